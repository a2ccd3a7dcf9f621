"""The feedback policy, as plain functions: what confirmations and flags do to entries.

Feedback rules, each its own function:
- confirmations reinforce: one proposal per entry, `confirmations += n`, `last_confirmed`;
- flags from one source weaken an entry: counter, `last_flagged`, a caveat line quoting each flag;
- only corroborated flags propose archiving it: flags from two distinct agents or sessions, the
  agents named by the entry's earlier caveats included (`superseded_by` when a batch memory
  states the replacement). However strong its evidence, one agent's flag never proposes more
  than a weaken, so no single agent can queue entries for archival; a person who agrees with it
  decides `archive` on the weaken;
- a flag against a pinned entry never archives: it asks the human;
- a flag without targets is matched to an entry by its quote and observation, else discarded;
- feedback naming a slug that is no live entry is discarded with the reason.
Age only breaks ties.

The guard every engine's output passes afterwards is guard.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rapidfuzz import fuzz

from dreamtui.dream.cluster import (
    STOPWORDS,
    EntryIndex,
    Signature,
    TokenIndex,
    build_entry_index,
    entry_candidates,
    identifiers,
    mentions,
    normalise,
    numbers,
)
from dreamtui.dream.proposals import Drafts, EntryDraft, discard_proposal
from dreamtui.model import (
    CAVEAT_PREFIX,
    FEEDBACK_CONFIRMED,
    FEEDBACK_FLAGGED,
    Entry,
    Memory,
    Proposal,
    confirmation_target,
    flag_quote,
    flag_targets,
    frontmatter_time,
)
from dreamtui.store.ltm import LTMSnapshot
from dreamtui.vocabulary import clip, counted

WELL_CONFIRMED = 2  # confirmations that make one flag a caveat rather than a reason to retire
CORROBORATION = 2  # distinct agents or sessions whose flags, together, retire an entry
QUOTE_MATCH = 85  # partial_ratio of a flag's quote against an entry's text
OBSERVATION_MATCH = 70  # token_set_ratio of a flag's observation against title + guidance
EVIDENCE_SHARED_TOKENS = 2  # informative words an observation shares with the entry it names
REPLACEMENT_MATCH = 60  # token_set_ratio of a flag's observation against a would-be replacement
CAVEAT_CHARS = 300


# --- text helpers ----------------------------------------------------------------------------


def _entry_norm(entry: Entry) -> str:
    return normalise(f"{entry.title}\n{entry.body}")


# --- rule: confirmations reinforce -----------------------------------------------------------


def reinforce(draft: EntryDraft, confirmations: Sequence[Memory]) -> None:
    """All of an entry's confirmations in the batch become one reinforcement of n."""
    when = max(m.submitted_at for m in confirmations)
    agents = len({m.agent_id for m in confirmations})
    draft.confirm(confirmations, when,
                  f"{counted(len(confirmations), 'confirmation')} from {counted(agents, 'agent')}",
                  confidence=0.95)


# --- rule: is a flag evidenced, are flags corroborated ----------------------------------------


def quote_points_at(quote: str, entry: Entry) -> bool:
    return bool(quote) and fuzz.partial_ratio(normalise(quote), _entry_norm(entry)) >= QUOTE_MATCH


def observation_points_at(observation: str, entry: Entry) -> bool:
    """The observation names what the entry is about: shared words, a number or an identifier."""
    entry_norm = _entry_norm(entry)
    entry_words = set(entry_norm.split())
    shared = {w for w in normalise(observation).split()
              if w in entry_words and len(w) > 2 and w not in STOPWORDS}
    if len(shared) >= EVIDENCE_SHARED_TOKENS:
        return True
    entry_numbers = numbers(f"{entry.title}\n{entry.body}")
    return bool(numbers(observation) & entry_numbers) or any(
        mentions(entry_norm, words) for words in identifiers(observation))


def evidenced(flag: Memory, entry: Entry) -> bool:
    """A quote or an observation that points at the entry, not just its slug in `targets`."""
    return quote_points_at(flag_quote(flag), entry) or observation_points_at(flag.content, entry)


def flag_sources(flags: Sequence[Memory]) -> tuple[int, int]:
    """(distinct agents, distinct sessions) behind `flags`."""
    sessions = {str(f.metadata["session_id"]) for f in flags if f.metadata.get("session_id")}
    return len({f.agent_id for f in flags}), len(sessions)


def corroborated(flags: Sequence[Memory], entry: Entry) -> bool:
    """Two distinct agents or sessions flagged it. The flags the entry already holds count by the
    agents their caveats name, so one agent flagging it again is still one agent; flags no caveat
    names (set by hand, or the caveat edited away) count as one more agent."""
    _, sessions = flag_sources(flags)
    earlier = caveat_agents(entry)
    unnamed = 1 if entry.flags > 0 and not earlier else 0
    agents = len({f.agent_id for f in flags} | earlier) + unnamed
    return max(agents, sessions) >= CORROBORATION


# --- rule: what flags do to an entry ----------------------------------------------------------


def _sources(agents: int, sessions: int) -> str:
    """"2 agents" or "1 agent, 2 sessions": sessions only when some flag named one."""
    spread = counted(agents, "agent")
    return f"{spread}, {counted(sessions, 'session')}" if sessions else spread


@dataclass(frozen=True)
class Verdict:
    action: str  # "weaken" | "archive" | "ask-human"
    reason: str
    confidence: float


def verdict(entry: Entry, flags: Sequence[Memory], confirmations_now: int) -> Verdict:
    """Pinned asks; corroboration archives; anything else weakens (module docstring)."""
    confirmations = entry.confirmations + confirmations_now
    count = counted(len(flags), "flag")
    if entry.pinned:
        return Verdict("ask-human", f"{count} against a pinned entry: the human decides", 0.5)
    if corroborated(flags, entry):
        agents, sessions = flag_sources(flags)
        earlier = f" (the entry already had {counted(entry.flags, 'flag')})" if entry.flags else ""
        return Verdict("archive", f"{count} from {_sources(agents, sessions)}{earlier}", 0.8)
    if confirmations == 0 and any(evidenced(f, entry) for f in flags):
        return Verdict("weaken", f"{count} with evidence against an entry nobody confirmed, from one "
                       "source: weakened, not archived (decide archive if the flag is right)", 0.7)
    if confirmations >= WELL_CONFIRMED:
        return Verdict("weaken", f"{count} against a well-confirmed entry ({confirmations} confirmations)",
                       0.8)
    return Verdict("weaken", f"{count} without corroboration, "
                   f"{counted(confirmations, 'confirmation')}", 0.6)


def caveat(flag: Memory) -> str:
    """The visible line a weakened entry carries: when, who, what was observed, what was quoted."""
    day = flag.submitted_at.astimezone(UTC).strftime("%Y-%m-%d")
    quote = flag_quote(flag)
    quoted = f' Quoted: "{clip(quote, 120)}".' if quote else ""
    return f"{CAVEAT_PREFIX}flagged {day} by {flag.agent_id}): {clip(flag.content, CAVEAT_CHARS)}{quoted}"


# What `caveat` writes before the observation: the agent an earlier flag came from.
_CAVEAT_AGENT_RE = re.compile(rf"^{re.escape(CAVEAT_PREFIX)}flagged \d{{4}}-\d{{2}}-\d{{2}} by (.+?)\): ",
                              re.MULTILINE)


def caveat_agents(entry: Entry) -> set[str]:
    """The agents whose earlier flags the entry's caveat lines name."""
    return set(_CAVEAT_AGENT_RE.findall(entry.body))


def weaken(draft: EntryDraft, flags: Sequence[Memory], now: datetime, judged: Verdict) -> None:
    draft.flag(flags, [caveat(f) for f in flags], now, judged.reason, judged.confidence,
               asks_human=judged.action == "ask-human")


def archive(draft: EntryDraft, flags: Sequence[Memory], confirmations: Sequence[Memory],
            now: datetime, judged: Verdict, superseded_by: str | None) -> None:
    reason = f"{judged.reason}: {clip(flags[0].content, 160)}"
    draft.retire([*flags, *confirmations], now, reason, superseded_by, judged.confidence)


# --- rule: the replacement a flag points to ---------------------------------------------------


@dataclass(frozen=True)
class Replacement:
    """A non-feedback memory of the batch and the slug of the entry it creates or updates."""

    memory: Memory
    slug: str


class ReplacementIndex:
    """The batch memories that could state what replaces a flagged entry, read once per dream."""

    def __init__(self, replacements: Sequence[Replacement]) -> None:
        self.items = list(replacements)
        self.norms = [normalise(f"{r.memory.title}\n{r.memory.content}") for r in self.items]
        self.tokens = TokenIndex([_words(norm) for norm in self.norms])
        # Only the few candidates a flag's words find are scored: their numbers are read then.
        self._numbers: dict[int, frozenset[int]] = {}

    def numbers_of(self, i: int) -> frozenset[int]:
        found = self._numbers.get(i)
        if found is None:
            memory = self.items[i].memory
            found = self._numbers[i] = numbers(f"{memory.title}\n{memory.content}")
        return found

    def _score(self, i: int, observation: str, obs_norm: str, entry_norm: str,
               entry_numbers: frozenset[int]) -> float:
        """How well item i states what the flag says instead; 0 when it does not.

        Fuzzy match of the observation, or a concrete fact (a number or identifier) that the flag
        and the memory share and the flagged entry lacks: "CI maps 5433" and "Postgres is on 5433".
        """
        text_norm = self.norms[i]
        score = fuzz.token_set_ratio(obs_norm, text_norm, processor=None)
        if (numbers(observation) & self.numbers_of(i)) - entry_numbers:
            return max(score, 100.0)
        if any(mentions(text_norm, w) and not mentions(entry_norm, w) for w in identifiers(observation)):
            return max(score, 100.0)
        return score if score >= REPLACEMENT_MATCH else 0.0

    def superseding_slug(self, flags: Sequence[Memory], entry: Entry) -> str | None:
        """The slug of the batch memory that states the replacement; newer wins a tie."""
        entry_norm = _entry_norm(entry)
        entry_numbers = numbers(f"{entry.title}\n{entry.body}")
        best: tuple[float, datetime, str] | None = None
        for flag in flags:
            obs_norm = normalise(flag.content)
            for i in self.tokens.candidates(_words(obs_norm), needed=1):
                candidate = self.items[i]
                if candidate.slug == entry.slug:
                    continue
                score = self._score(i, flag.content, obs_norm, entry_norm, entry_numbers)
                key = (score, candidate.memory.submitted_at, candidate.slug)
                if score > 0 and (best is None or key > best):
                    best = key
        return None if best is None else best[2]


def _words(norm: str) -> set[str]:
    return {w for w in norm.split() if w not in STOPWORDS}


# --- rule: a flag without targets is matched by quote and observation ------------------------


def match_flag(flag: Memory, index: EntryIndex) -> tuple[Entry | None, str]:
    """(the entry the flag is about, "") or (None, why nothing matched)."""
    quote = flag_quote(flag)
    quote_norm = normalise(quote)
    probe = Signature.of(f"{quote}\n{flag.content}")
    probe_obs = normalise(flag.content)
    best: tuple[float, float, str] | None = None
    best_entry: Entry | None = None
    closest: tuple[float, str] | None = None  # (best score, slug) of the entries read
    for i in entry_candidates(probe, index):
        entry = index.entries[i]
        quote_score = fuzz.partial_ratio(quote_norm, index.body_norms[i], processor=None) if quote else 0.0
        obs_score = fuzz.token_set_ratio(probe_obs, index.signatures[i].norm, processor=None)
        near = (max(quote_score, obs_score), entry.slug)
        if closest is None or near[0] > closest[0]:
            closest = near
        if quote_score < QUOTE_MATCH and obs_score < OBSERVATION_MATCH:
            continue
        # Age breaks a tie only: the entry updated longest ago is the likelier one to be stale.
        key = (max(quote_score, obs_score), -_updated(entry), entry.path)
        if best is None or key > best:
            best, best_entry = key, entry
    if best_entry is not None:
        return best_entry, ""
    # Said as a person checks it: which text no entry holds, and how near the nearest came.
    said = f"no entry says “{clip(quote, 60)}”" if quote else "no entry says what it observed"
    if closest is None:
        return None, f"flag matched no live entry: {said}, and none shares its words"
    need = f"{QUOTE_MATCH}% for the quote, {OBSERVATION_MATCH}% for the observation" if quote else \
        f"{OBSERVATION_MATCH}% needed"
    return None, (f"flag matched no live entry: {said} (the nearest, {closest[1]}, is {closest[0]:.0f}% "
                  f"alike; {need})")


def _updated(entry: Entry) -> float:
    return frontmatter_time(entry.meta.get("updated_at") or entry.meta.get("created_at"))


# --- rule: feedback naming no live entry is discarded -----------------------------------------


def unknown_slug_reason(kind: str, slugs: Sequence[str], snapshot: LTMSnapshot) -> str:
    archived = {e.slug for e in snapshot.archived()}
    named = ", ".join(f"{s} (archived)" if s in archived else s for s in slugs) or "nothing"
    return f"{kind} names no live entry: {named}"


# --- putting the rules together ---------------------------------------------------------------


def _route_feedback(feedback: Sequence[Memory], snapshot: LTMSnapshot, index: EntryIndex | None
                    ) -> tuple[dict[str, list[Memory]], dict[str, list[Memory]], list[Proposal]]:
    """Confirmations and flags by the entry path they concern, and discards for the rest."""
    confirmations: dict[str, list[Memory]] = {}
    flags: dict[str, list[Memory]] = {}
    discards: list[Proposal] = []
    for memory in feedback:
        if memory.type == FEEDBACK_CONFIRMED:
            entry = snapshot.by_slug(confirmation_target(memory))
            if entry is None:
                reason = unknown_slug_reason("confirmation", [confirmation_target(memory)], snapshot)
                discards.append(discard_proposal(memory, reason))
            else:
                confirmations.setdefault(entry.path, []).append(memory)
        elif memory.type == FEEDBACK_FLAGGED:
            entries, reason = _flag_entries(memory, snapshot, index)
            if not entries:
                discards.append(discard_proposal(memory, reason))
            for entry in entries:
                flags.setdefault(entry.path, []).append(memory)
    return confirmations, flags, discards


def _flag_entries(flag: Memory, snapshot: LTMSnapshot, index: EntryIndex | None
                  ) -> tuple[list[Entry], str]:
    targets = flag_targets(flag)
    if targets:
        live = [e for e in (snapshot.by_slug(t) for t in dict.fromkeys(targets)) if e is not None]
        return live, "" if live else unknown_slug_reason("flag", targets, snapshot)
    entry, reason = match_flag(flag, index if index is not None else build_entry_index(snapshot))
    return ([entry] if entry is not None else []), reason


Routed = tuple[dict[str, list[Memory]], dict[str, list[Memory]], list[Proposal]]


def route_feedback(feedback: Sequence[Memory], snapshot: LTMSnapshot, index: EntryIndex | None = None
                   ) -> Routed:
    """(confirmations by entry path, flags by entry path, discards): read once per dream."""
    return _route_feedback(feedback, snapshot, index)


def retired_by_flags(routed: Routed, snapshot: LTMSnapshot) -> set[str]:
    """The paths of the entries this batch's flags will propose to archive (corroborated flags):
    a memory restating such an entry states its replacement, not a repeat of it."""
    confirmations, flags, _ = routed
    return {path for path, flagging in flags.items()
            if verdict(snapshot.entries[path], flagging, len(confirmations.get(path, []))).action == "archive"}


def apply_feedback(feedback: Sequence[Memory], snapshot: LTMSnapshot, now: datetime, drafts: Drafts,
                   *, replacements: Sequence[Replacement] = (), index: EntryIndex | None = None,
                   routed: Routed | None = None) -> list[Proposal]:
    """Fold the batch's feedback into `drafts` (one per entry); return the discards. `routed`:
    `route_feedback`'s answer for this `feedback`, when the caller has it already."""
    confirmations, flags, discards = routed or _route_feedback(feedback, snapshot, index)
    stated: ReplacementIndex | None = None
    for path in sorted(confirmations.keys() | flags.keys()):
        entry = snapshot.entries[path]
        draft = drafts(entry)
        confirming = confirmations.get(path, [])
        flagging = flags.get(path, [])
        if not flagging:
            reinforce(draft, confirming)
            continue
        judged = verdict(entry, flagging, len(confirming))
        if judged.action == "archive":
            stated = stated or ReplacementIndex(replacements)  # built once, and only when needed
            archive(draft, flagging, confirming, now, judged, stated.superseding_slug(flagging, entry))
            continue
        if confirming:
            reinforce(draft, confirming)
        weaken(draft, flagging, now, judged)
    return discards


def feedback_proposals(feedback: Sequence[Memory], snapshot: LTMSnapshot, now: datetime, *,
                       replacements: Sequence[Replacement] = ()) -> list[Proposal]:
    """The feedback policy on its own: entry proposals (by path) then discards."""
    drafts = Drafts()
    discards = apply_feedback(feedback, snapshot, now, drafts, replacements=replacements)
    return drafts.proposals() + discards
