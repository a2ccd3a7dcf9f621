"""The default dream engine: offline, deterministic, no API key.

New memories are clustered (cluster.py: one cluster per lesson, match.py's verdict). Before
anything else, memories with no lesson (routes.no_lesson: a status remark, trivia, a bare "the
tool failed") and orders to agents (an injection mark) become discards with a reason, exact
duplicates too. Then each cluster is looked up in the LTM first (cluster.find_entry):

- it restates a live entry: the entry gains only the facts it lacks (guidance.new_facts), else
  a confirmation and a source; a fact it states with another value ("5432" → "5433") is changed
  in place, and flags against that entry in the batch are answered by the correction; a
  once-seen entry (route memory) seen again is promoted into the bundle;
- it corrects one (same subject, a plain value differs): an update of that value, not an entry;
- otherwise it becomes a new entry: guidance.lesson's one guidance sentence from the most
  complete member, the kind by meaning (a dated story is an incident, a rule a topic), tags,
  and the route of routes.lesson_route (a once-seen rule stays out of AGENTS.md).

Feedback goes through the policy (policy.py).

Determinism: inputs are sorted, there is no randomness, and every timestamp comes from
`dream_input.now` or the memories themselves, so the same input gives the same proposal ids.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections import Counter
from collections.abc import AsyncGenerator, Iterable, Sequence
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from dreamtui.deliver.skills import without_credentials
from dreamtui.dream.cluster import (
    Cluster,
    EntryIndex,
    Signature,
    build_entry_index,
    cluster_memories,
    entry_candidates,
    find_entry,
    may_match,
    normalise,
)
from dreamtui.dream.engines.base import CancelToken, Done, DreamInput, Event, Progress, ProposalReady
from dreamtui.dream.guidance import (
    Known,
    happened,
    is_event,
    is_list,
    lesson,
    list_items,
    most_complete,
    new_facts,
    subject_tags,
    tags_for,
    title_of,
)
from dreamtui.dream.match import TOOL_SLOTS, Conflict, Features, compare, features_of
from dreamtui.dream.policy import Replacement, apply_feedback, retired_by_flags, route_feedback
from dreamtui.dream.proposals import (
    Drafts,
    content_fingerprint,
    create_proposal,
    discard_proposal,
    is_code,
    source_ref,
    split_paragraphs,
    split_sentences,
)
from dreamtui.dream.routes import (
    counted_sessions,
    entry_route,
    lesson_route,
    no_lesson,
    only_credentials,
    recurs,
    route_meta,
    seen_in,
    why,
)
from dreamtui.model import Entry, Memory, Proposal, memory_session
from dreamtui.review.bundle import REDACTION_RE
from dreamtui.safety.paths import slugify
from dreamtui.store.ltm import entry_path
from dreamtui.vocabulary import Route, clip, counted
from dreamtui.workspace.config import Config

YIELD_EVERY = 50  # clusters between event-loop yields, so a cancel or a redraw is never far off
TITLE_CHARS = 120
REJECTED_REASON = "previously rejected"
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)*")
CORRECTION_SENTENCES = 4  # a cluster's sentences with a new value compared with the entry it matches
# Safety marks that make a memory an order to agents rather than a lesson (safety/marks.py).
ORDERS_TO_AGENTS = frozenset({"injection-suspected", "exfiltration-cue", "role-delimiter"})


def _order(memory: Memory) -> tuple[datetime, str]:
    return (memory.submitted_at, memory.id)


def split_exact_duplicates(members: Sequence[Memory]) -> tuple[list[Memory], list[tuple[Memory, Memory]]]:
    """(first of each normalised content, [(duplicate, the first it repeats)])."""
    firsts: dict[str, Memory] = {}
    duplicates: list[tuple[Memory, Memory]] = []
    for memory in members:
        key = normalise(memory.content)
        if key in firsts:
            duplicates.append((memory, firsts[key]))
        else:
            firsts[key] = memory
    return list(firsts.values()), duplicates


def cluster_tags(members: Sequence[Memory], first: Memory) -> list[str]:
    """The union of subject tags (`guidance.subject_tags`), the representative's first: the first tag is
    the bundle section."""
    return list(dict.fromkeys(t for m in (first, *members) for t in subject_tags(m)))


def entry_probe(first: Memory, tags: Sequence[str],
                read: dict[tuple[str, str], Features] | None = None) -> Signature:
    """How a cluster is compared with entries: what an entry made of it would say (title,
    guidance, tags), guarded by the numbers of everything it says. `read`: the probes' Features
    by text and guidance so far; clusters saying one lesson word for word share one, whose
    facts are then read once (a Features is what its text and body give, whatever the
    numbers reported)."""
    guidance = lesson(first.title, first.content).guidance
    text = f"{first.title}.\n{guidance}\n{' '.join(tags)}"
    probe = Signature.of(text, guidance, facts=f"{first.title}\n{first.content}",
                         features=None if read is None else read.get((text, guidance)))
    if read is not None:
        read.setdefault((text, guidance), probe.features)
    return probe


def _spread(members: Sequence[Memory]) -> str:
    agents = len({m.agent_id for m in members})
    sessions = len({s for s in map(memory_session, members) if s})
    # A mined memory met in several sessions counts them (routes.counted_sessions).
    sessions = max(sessions, *(counted_sessions(m) for m in members)) if sessions else 0
    text = f"{counted(len(members), 'memory', 'memories')} from {counted(agents, 'agent')}"
    return f"{text}, {counted(sessions, 'session')}" if sessions else text


def _say(members: Sequence[Memory], one: str, many: str) -> str:
    """"1 memory from 1 agent adds …", "2 memories from 2 agents add …": the verb agrees."""
    return f"{_spread(members)} {one if len(members) == 1 else many}"


def corrections(body: str, conflicts: Sequence[Conflict]) -> list[tuple[str, str]]:
    """(the entry's value, the memory's) for each conflicting fact `body` states as a plain word
    or number, so it can be changed in place; [] when some conflict is not of that kind (a
    stance, several values): a person then reads both."""
    changes: list[tuple[str, str]] = []
    for conflict in conflicts:
        old, new = conflict.b, conflict.a
        plain = all(v and "/" not in v and " " not in v and not v.startswith("not") for v in (old, new))
        # A value a word swap can change: a number, or a tool in its category (pnpm vs yarn). Any
        # other word ("below" vs "entry") is wording, and replacing it would garble the entry.
        valued = all(_NUMBER_RE.fullmatch(v) for v in (old, new)) or conflict.slot in TOOL_SLOTS
        if not plain or not valued or not re.search(rf"(?<![\w.]){re.escape(old)}(?!\w)", body):
            return []
        if (old, new) not in changes:
            changes.append((old, new))
    return changes


def stated_text(body: str) -> str:
    """What an entry states itself: a quoted flag or caveat (`>` lines) says what someone saw."""
    return "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(">"))


def stated_differently(body: str, members: Sequence[Memory], known: Known | None = None
                       ) -> list[tuple[str, str]]:
    """The facts of `body` that a sentence of `members` restates with another value ("listens on
    5432" vs "localhost:5433"), even when the memories as a whole read as the same lesson (they
    mention the old value too: "connecting to 5432 is refused").

    Only distinct sentences bringing a number or a name the entry lacks are compared (most
    restatements bring none), at most CORRECTION_SENTENCES a cluster: the cost stays bounded."""
    changes: list[tuple[str, str]] = []
    stated = stated_text(body)
    known = known or Known(stated)
    stated_features: Features | None = None
    # A cluster's members mostly repeat one another: each distinct sentence is read once.
    sentences = dict.fromkeys(s for memory in members for s in (
        memory.title, *(s for p in split_paragraphs(memory.content) if not is_code(p)
                        for s in split_sentences(p))))
    bringing = [s for s in sentences if known.brings_value(s)]
    for sentence in bringing[:CORRECTION_SENTENCES]:
        # An entry several clusters restate is read once, and so is a sentence several clusters
        # extending entries bring (match.features_of remembers both).
        stated_features = stated_features or features_of(stated)
        verdict = compare(features_of(sentence), stated_features)
        if verdict.conflicts and (verdict.same_lesson or verdict.correction):
            changes += [c for c in corrections(stated, verdict.conflicts) if c not in changes]
    olds = [old for old, _new in changes]
    # One old value told two new ones is no correction a dream can make: a person decides.
    return [c for c in changes if olds.count(c[0]) == 1]


def worthless(memory: Memory) -> str | None:
    """Why a memory is discarded rather than kept (the value gate), or None: it reads as an
    order to agents (a person still decides: the discard carries the memory's marks), or it
    carries no lesson (routes.no_lesson)."""
    marked = sorted(set(memory.safety) & ORDERS_TO_AGENTS)
    if marked:
        return (f"reads as an order to agents, not a lesson ({', '.join(marked)}): kept out of memory "
                "and AGENTS.md (reject this discard to keep it)")
    return no_lesson(memory)


def leave_out_credentials(body: str, route: Route) -> tuple[str, str]:
    """A new entry's body, and the note its rationale ends with: a skill carries no credentials,
    not even documentation examples (deliver.skills.without_credentials), and the note names what
    was left out; any other route's body is unchanged."""
    if route != Route.SKILL:
        return body, ""
    body, names = without_credentials(body)
    if not names:
        return body, ""
    return body, (f"; left out the inline {', '.join(names)} {'value' if len(names) == 1 else 'values'}: "
                  "a skill carries no credentials, the command reads them from the environment")


def tags_by_use(index: EntryIndex) -> list[str]:
    """The live entries' tags, most used first (the known tags a lesson's words may name)."""
    tag_counts = Counter(t for e in index.entries for t in e.tags)
    return [t for t, _ in sorted(tag_counts.items(), key=lambda tc: (-tc[1], tc[0]))]


def new_entry_tags(members: Sequence[Memory], best: Memory, probe: Signature, index: EntryIndex,
                   known_tags: Sequence[str], text: str) -> list[str]:
    """A new entry's tags (guidance.tags_for): the memories', else the tags of the live entry
    sharing most rare words with the lesson (looked up only then), else the lesson's words."""
    nearby: list[str] = []
    if not any(subject_tags(m) for m in members):
        nearby = next((list(index.entries[i].tags) for i in entry_candidates(probe, index, limit=1)), [])
    return tags_for(members, best, nearby=nearby, known_tags=known_tags, text=text)


class _Dream:
    """One run's state: the entry index, the drafts of live entries, the slugs taken so far."""

    def __init__(self, dream_input: DreamInput, feedback: Sequence[Memory] = ()) -> None:
        self.input = dream_input
        self.now = dream_input.now
        self.threshold = dream_input.config.dream.similarity
        self.index: EntryIndex = build_entry_index(dream_input.snapshot)
        self.routed = route_feedback(feedback, dream_input.snapshot, self.index)
        self.retiring = retired_by_flags(self.routed, dream_input.snapshot)
        self.drafts = Drafts()
        self.replacements: list[Replacement] = []
        self.slugs = set(dream_input.snapshot.slugs())
        self.next_suffix: dict[str, int] = {}  # many clusters may share a title: no rescans
        self.paths = set(dream_input.snapshot.entries) | {
            str(problem.path) for problem in dream_input.snapshot.problems}
        # The slug each unreadable entry file holds (its name), with what is wrong in it.
        self.broken = {PurePosixPath(p.path).stem: str(p) for p in dream_input.snapshot.problems
                       if p.path.endswith(".md") and p.path not in dream_input.snapshot.entries}
        self.held: dict[str, str] = {}  # memory id → the broken entry file it waits for
        self.known_tags = tags_by_use(self.index)
        self.known: dict[str, Known] = {}  # what each extended entry states so far, by path
        self.probes: dict[tuple[str, str], Features] = {}  # entry_probe's, by text and guidance
        self.matched = 0
        self.created = 0
        self.promoted = 0

    def cluster(self, cluster: Cluster) -> list[Proposal]:
        """Discards (exact duplicates, memories with no lesson), then a create, or nothing yet
        (the matched entry's draft grows)."""
        unique, duplicates = split_exact_duplicates(cluster.members)
        proposals = [discard_proposal(dup, f"exact duplicate of {source_ref(first.id)}", confidence=0.99,
                                      details={"exact_duplicate": True})
                     for dup, first in duplicates]
        kept: list[Memory] = []
        # One contradicting the project's docs rules on what they rule on: a person decides.
        reasons = {m.id: None if m.id in self.input.contradictions else worthless(m) for m in unique}
        # A terse restatement ("One logical change per commit") of a lesson another member
        # states is evidence of that lesson, not a remark without one; an order to agents stays out.
        lesson_kept = any(reason is None for reason in reasons.values())
        for memory in unique:
            reason = reasons[memory.id]
            if reason is not None and lesson_kept and not set(memory.safety) & ORDERS_TO_AGENTS \
                    and not only_credentials(memory.content):  # a secret restates no lesson
                reason = None
            if reason is None:
                kept.append(memory)
            else:
                proposals.append(discard_proposal(memory, reason, confidence=0.8,
                                                  details={"no_lesson": True}))
        if not kept:
            return proposals
        dropped = {m.id for m in unique if m not in kept}
        if dropped:
            # A memory discarded here is no sighting of the lesson: it neither counts as its
            # recurrence (into AGENTS.md) nor is cited as its evidence.
            cluster = dataclasses.replace(cluster, members=tuple(m for m in cluster.members if m.id not in dropped))
        # The representative may itself be a duplicate; the memory it repeats stands for it.
        first = next((kept_ for dup, kept_ in duplicates if dup.id == cluster.representative.id),
                     cluster.representative)
        if first not in kept:
            first = kept[0]
        probe = entry_probe(first, cluster_tags(kept, first), self.probes)
        found = find_entry(probe, self.index, self.threshold) if may_match(probe, self.index) else None
        if found is not None and found.item.path in self.retiring and not stated_differently(
                found.item.body, kept):
            found = None  # restating an entry the flags retire: the replacement, a new entry
        if found is not None and found.verdict.same_lesson:
            self._extend(found.item, found.verdict.score, kept, cluster.members)
            return proposals
        changes = corrections(found.item.body, found.verdict.conflicts) if found is not None else []
        if found is not None and changes:
            self._correct(found.item, changes, found.verdict.describe(), kept)
            return proposals
        if found is not None and found.verdict.score >= self.threshold:
            # As alike as a restatement, with a difference no word swap states: a person reads both.
            self._extend(found.item, found.verdict.score, kept, cluster.members,
                         contested=found.verdict.describe())
            return proposals
        created = self._create(first, kept, cluster, probe)
        return proposals if created is None else [*proposals, created]

    def _correct(self, entry: Entry, changes: list[tuple[str, str]], verdict: str,
                 members: list[Memory]) -> None:
        """A cluster stating the entry's subject with a different fact: the fact changes in place
        (an update), rather than a new entry beside the wrong one."""
        self.matched += 1
        draft = self.drafts(entry)
        self.known.pop(entry.path, None)  # its text changes
        said = ", ".join(f"{old} → {new}" for old, new in changes)
        draft.correct(members, changes, self.now,
                      f"{_say(members, 'corrects', 'correct')} this entry ({verdict}): {said}",
                      confidence=0.75, asks_human=entry.pinned)
        self.replacements.extend(Replacement(m, entry.slug) for m in members)

    def _extend(self, entry: Entry, score: float, members: list[Memory], seen: Sequence[Memory], *,
                contested: str = "") -> None:
        """A cluster restating or extending a live entry: never a new entry. A once-seen lesson
        (route memory) seen again is promoted; new facts are added; a pure restatement confirms."""
        self.matched += 1
        draft = self.drafts(entry)
        known = self.known.get(entry.path) or Known(f"{entry.title}\n{stated_text(draft.body)}")
        changes = stated_differently(draft.body, members, known)
        if changes:
            said = ", ".join(f"{old} → {new}" for old, new in changes)
            draft.correct(members, changes, self.now, f"{_say(members, 'states', 'state')} a fact differently: {said}",
                          confidence=0.75, asks_human=entry.pinned)
            known = Known(f"{entry.title}\n{stated_text(draft.body)}")
        facts = self._about(entry, new_facts(members, known))  # `known` grows with what it takes
        self.known[entry.path] = known
        when = max(m.submitted_at for m in seen)
        note = f"; it states something differently ({contested}): check both" if contested else ""
        if facts:
            # A skill's new commands keep no inline credentials, as a new skill's body does.
            kept, left_out = leave_out_credentials("\n\n".join(facts), entry_route(entry))
            if left_out:
                facts, note = ([kept] if kept.strip() else []), note + left_out
        if facts:
            draft.merge_facts(members, facts, self.now,
                              f"{_say(members, 'adds', 'add')} {counted(len(facts), 'fact')} "
                              f"(similarity {score:.0f}){note}",
                              confidence=(0.4 if contested else 0.5) + score / 250, asks_human=entry.pinned)
        if entry.route == Route.MEMORY and not entry.pinned and recurs(members, seen_in(entry) or ["earlier"]):
            self.promoted += 1
            to_path = None
            if entry.kind == "incident":
                candidate = entry_path(entry.slug, "topic", when)
                to_path = candidate if candidate not in self.paths else None
                if to_path is not None:
                    self.paths.add(to_path)
            draft.promote(members, when, self.now,
                          f"{_say(members, 'repeats', 'repeat')} this once-seen lesson: it recurs, "
                          "so into AGENTS.md",
                          confidence=0.85, to_path=to_path)
        elif not facts:
            draft.confirm(members, when, f"{_say(members, 'repeats', 'repeat')} this entry{note}",
                          confidence=0.7 if contested else 0.9, cite=True)
        self.replacements.extend(Replacement(m, entry.slug) for m in members)

    def _about(self, entry: Entry, facts: list[str]) -> list[str]:
        """`facts` without the list items another live entry states ("- Use Node 20" of a
        frontend checklist matched to the typecheck entry is the node-version entry's): a memory
        listing several lessons adds to each entry only its own."""
        kept: list[str] = []
        for paragraph in facts:
            if not is_list(paragraph):
                kept.append(paragraph)
                continue
            own = []
            for item in list_items(paragraph):
                found = find_entry(Signature.of(item), self.index, self.threshold)
                if found is None or found.item.path == entry.path:
                    own.append(item)
            if own:
                kept.append("\n".join(own))
        return kept

    @staticmethod
    def _base_slug(title: str, guidance: str) -> str:
        # A slug is in every AGENTS.md line: no "redacted-stripe-key" from a secret in the title.
        title = REDACTION_RE.sub(" ", title)
        if not slugify(f"x {title}").removeprefix("x"):  # slugify gives a word for an empty one
            # A title with no letter a slug can keep ("不要修改生成的文件") would make every such
            # entry "memory", "memory-2"…: the names and commands its guidance holds name it.
            return slugify(guidance)
        return slugify(title)

    def _slug_and_path(self, title: str, kind: str, when: datetime, guidance: str = "") -> tuple[str, str]:
        base = self._base_slug(title, guidance)
        number = self.next_suffix.get(base, 1)
        while True:
            slug = base if number == 1 else f"{base}-{number}"
            path = entry_path(slug, kind, when)
            number += 1
            if slug not in self.slugs and path not in self.paths:
                self.next_suffix[base] = number
                self.slugs.add(slug)
                self.paths.add(path)
                return slug, path

    def _create(self, first: Memory, members: list[Memory], cluster: Cluster, probe: Signature) -> Proposal | None:
        best = most_complete(members, first)
        taught = lesson(best.title, best.content)
        route = lesson_route(cluster.members)
        # A decision stands until another replaces it, whenever it was taken: a topic.
        kind = "incident" if route != Route.DECISIONS and is_event(members, taught) else "topic"
        text = f"{best.title}\n{best.content}"
        tags = new_entry_tags(members, best, probe, self.index, self.known_tags, text)
        title = clip(title_of(best.title, taught.guidance), TITLE_CHARS)
        broken = self.broken.get(self._base_slug(title, taught.guidance))
        if broken is not None:
            # The entry this lesson would be is a file a person broke by hand: a "-2" twin would
            # stand beside it once it is fixed. The memories wait in the queue until then.
            self.held.update({m.id: broken for m in cluster.members})
            return None
        slug, path = self._slug_and_path(title, kind, happened(members), taught.guidance)
        body_parts = [taught.guidance, *taught.rest]
        known = Known(f"{title}\n" + "\n\n".join(body_parts))
        body_parts += new_facts([m for m in members if m.id != best.id], known, values_only=True)
        body = "\n\n".join(body_parts) + "\n"
        body, left_out = leave_out_credentials(body, route)
        meta: dict[str, Any] = {
            "title": title, "slug": slug, "type": kind, "tags": tags, **route_meta(route, cluster.members),
            "created_at": self.now, "updated_at": self.now,
            "sources": [source_ref(m.id) for m in members],
        }
        self.replacements.extend(Replacement(m, slug) for m in members)
        confidence = min(0.9, 0.5 + 0.1 * (len(cluster.members) - 1) + (0.1 if route != Route.MEMORY else 0.0))
        self.created += 1
        return create_proposal(path=path, meta=meta, body=body, kind=kind,
                               rationale=f"new {kind}: {_spread(cluster.members)}; {why(route)}{left_out}",
                               memories=members, confidence=confidence, route=route)

    def feedback(self, feedback: Sequence[Memory]) -> list[Proposal]:
        return apply_feedback(feedback, self.input.snapshot, self.now, self.drafts, routed=self.routed,
                              replacements=self.replacements, index=self.index)


def _unless_rejected(proposals: Iterable[Proposal], rejected: frozenset[str],
                     memories: dict[str, Memory]) -> list[Proposal]:
    """A change a person rejected before is not proposed again; its memories are discarded."""
    out: list[Proposal] = []
    for proposal in proposals:
        if proposal.id not in rejected or proposal.op == "discard":
            out.append(proposal)
            continue
        reason = f"{REJECTED_REASON} ({proposal.op} {proposal.target}, {proposal.id})"
        out.extend(discard_proposal(memories[i], reason) for i in proposal.evidence)
    return out


class HeuristicEngine:
    name = "heuristic"

    def __init__(self, config: Config) -> None:
        self.config = config

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncGenerator[Event, None]:
        started = time.perf_counter()
        batch = sorted(dream_input.batch, key=_order)
        memories = {m.id: m for m in batch}
        rejected = dream_input.rejected
        fresh: list[Memory] = []
        for memory in batch:
            if not memory.is_feedback and content_fingerprint(memory) in rejected:
                yield ProposalReady(discard_proposal(memory, REJECTED_REASON))
            else:
                fresh.append(memory)
        dream = _Dream(dream_input, [m for m in fresh if m.is_feedback])
        clusters = cluster_memories([m for m in fresh if not m.is_feedback], dream.threshold)
        clustered = time.perf_counter()
        total = len(clusters) + 1
        for number, cluster in enumerate(clusters, start=1):
            if cancel.cancelled:
                return
            if number % YIELD_EVERY == 0:
                await asyncio.sleep(0)
            for proposal in _unless_rejected(dream.cluster(cluster), rejected, memories):
                yield ProposalReady(proposal)
            yield Progress(number, total, f"cluster {number}/{len(clusters)}: "
                                          f"{clip(cluster.representative.title, 60)}")
        if cancel.cancelled:
            return
        late = dream.feedback([m for m in fresh if m.is_feedback]) + dream.drafts.proposals()
        for proposal in _unless_rejected(late, rejected, memories):
            yield ProposalReady(proposal)
        yield Progress(total, total, "feedback and entry changes")
        yield Done({
            "clusters": len(clusters),
            "matched_entries": dream.matched,
            "new_entries": dream.created,
            "promoted_entries": dream.promoted,
            "cluster_seconds": round(clustered - started, 3),
            "engine_seconds": round(time.perf_counter() - started, 3),
            # Back to the queue (dream/runner.py), with the broken file each waits for.
            **({"left_out": sorted(dream.held), "held_for_broken_entries": dict(sorted(dream.held.items()))}
               if dream.held else {}),
        })
