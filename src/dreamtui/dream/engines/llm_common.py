"""What the LLM engines share: the compact prompt, the answer schema, turning the model's answer
into Proposals, streaming helpers (cancellation, retries, incremental JSON) and the fallback.

The model never writes paths, frontmatter or ids. It answers in a small schema (op, slug, title,
guidance, details, evidence, ...); `ProposalMaker` turns each answer into a full Proposal with
the same helpers the heuristic engine uses (proposals.py), after redacting secrets from it
again. Feedback memories never reach the model: the deterministic policy (policy.py) handles
them, folded into the same per-entry drafts as the model's changes to those entries.

The prompt is compact: the batch is clustered first (cluster.py, as the heuristic engine does),
each cluster is shown once (its representative in full, the other members by id) with only the
few live entries that fuzzy matching relates to it, and clusters are added oldest first until
`dream.token_budget` is reached. Memories of the clusters that did not fit are reported in
`Done.stats["left_out"]`, and never shown to the model.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import math
import re
import string
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any, Literal, TypeVar

from dreamtui import safety
from dreamtui.dream.cluster import (
    Cluster,
    EntryIndex,
    build_entry_index,
    cluster_memories,
    entry_candidates,
    match_entry,
    normalise,
    similarity,
)
from dreamtui.dream.engines.base import (
    CancelToken,
    Done,
    DreamInput,
    Event,
    Progress,
    ProposalReady,
    Refused,
    TextDelta,
    Usage,
)
from dreamtui.dream.engines.heuristic import REJECTED_REASON, HeuristicEngine, cluster_tags, entry_probe
from dreamtui.dream.policy import Replacement, apply_feedback
from dreamtui.dream.proposals import (
    Drafts,
    EntryDraft,
    content_fingerprint,
    create_proposal,
    discard_proposal,
    source_ref,
)
from dreamtui.errors import DreamError
from dreamtui.model import Entry, Memory, Proposal, Refusal
from dreamtui.store.ltm import entry_path
from dreamtui.workspace.config import Config

PROMPT_VERSION = "dream-v1"
SCHEMA_FILE = "proposal-v1.schema.json"
TOOL_NAME = "propose_change"
MODEL_OPS = ("create", "update", "reinforce", "weaken", "archive", "discard")
CHARS_PER_TOKEN = 4  # the usual estimate for English prose and code; no tokenizer needed
RELATED_PER_CLUSTER = 3  # top-k live entries shown beside each cluster
# Below this token_set_ratio an entry shares little more than a tool's name with the cluster
# (measured on the benchmark's synthetic data: unrelated facts about one system score 55-67).
RELATED_MIN_SCORE = 70
MEMORY_CHARS = 1500  # a representative memory's content is cut here in the prompt
ENTRY_CHARS = 160  # an entry's body beyond its guidance is cut here in the prompt
TITLE_CHARS = 120
TAGS_MAX = 8
SECRET_MARK = "secret-in-model-output"
CANCEL_POLL_S = 0.05  # how often a blocked stream read looks at the cancel token
BACKOFF_BASE_S = 0.5  # first retry waits this long, doubling per attempt (tests shorten it)
BACKOFF_MAX_S = 8.0
RETRY_AFTER_MAX_S = 60.0  # a server asking for longer is not waited for beyond this

_SECTION_RE = re.compile(r"^<!-- section: ([a-z-]+) -->\n", re.MULTILINE)
_FENCE_WORD_RE = re.compile(r"untrusted-data", re.IGNORECASE)

AnswerStyle = Literal["tool", "json"]


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def counted(number: int, word: str, plural: str | None = None) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {plural or word + 's'}"


def one_line(text: str, limit: int) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


# --- prompt files --------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def prompt_sections(version: str = PROMPT_VERSION) -> dict[str, str]:
    """The named sections of prompts/<version>.md (system, user, answer-tool, answer-json)."""
    text = resources.files("dreamtui.dream.engines").joinpath(f"prompts/{version}.md").read_text("utf-8")
    parts = _SECTION_RE.split(text)
    # parts = [preamble, name1, body1, name2, body2, ...]; the preamble is the file's comment.
    return {name: body.strip() for name, body in zip(parts[1::2], parts[2::2], strict=False)}


@lru_cache(maxsize=1)
def proposal_schema() -> dict[str, Any]:
    """The JSON schema of one model proposal (the tool's input schema)."""
    text = resources.files("dreamtui.dream.engines").joinpath(f"prompts/{SCHEMA_FILE}").read_text("utf-8")
    schema = json.loads(text)
    schema.pop("$schema", None)  # APIs take the schema body, not the meta-schema reference
    return schema


def answer_schema() -> dict[str, Any]:
    """The whole answer for JSON-mode models: {"proposals": [proposal, ...]}."""
    item = {k: v for k, v in proposal_schema().items() if k not in ("title", "description")}
    return {"type": "object", "properties": {"proposals": {"type": "array", "items": item}},
            "required": ["proposals"]}


# --- building the prompt -------------------------------------------------------------------------


def _untrusted(text: str) -> str:
    """Memory text as it may appear inside the data fence: secrets redacted, fence word defused."""
    return _FENCE_WORD_RE.sub("untrusted data", safety.redact(text).text)


def _order(memory: Memory) -> tuple[datetime, str]:
    return (memory.submitted_at, memory.id)


@dataclass
class Prompt:
    """One dream's prompt and what it covers."""

    system: str
    user: str
    aliases: dict[str, Memory]  # "m1" → memory, for every memory shown to the model
    clusters: list[list[Memory]]  # the clusters shown, members in order
    entries: list[Entry]  # the related live entries shown
    feedback: list[Memory]  # handled by the policy, never shown
    rejected: list[Memory]  # content a person rejected before: discarded, never shown
    left_out: list[Memory]  # clusters over the token budget: not shown, not proposed on
    budget: int

    @property
    def chars(self) -> int:
        return len(self.system) + len(self.user)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.system) + estimate_tokens(self.user)


def related_entries(cluster: Cluster, index: EntryIndex, threshold: float) -> list[tuple[Entry, float, bool]]:
    """(entry, score, is the heuristic's match) for the top-k live entries related to `cluster`."""
    tags = cluster_tags(cluster.members, cluster.representative)
    probe = entry_probe(cluster.representative, tags)
    match = match_entry(probe, index, threshold)
    scored: dict[int, float] = {}
    for i in entry_candidates(probe, index):
        score = similarity(probe.norm, index.signatures[i].norm, RELATED_MIN_SCORE)
        if score >= RELATED_MIN_SCORE:
            scored[i] = score
    best = sorted(scored.items(), key=lambda item: (-item[1], index.entries[item[0]].path))
    related = [(index.entries[i], score, False) for i, score in best[:RELATED_PER_CLUSTER]]
    if match is not None:
        related = [(match[0], match[1], True)] + [r for r in related if r[0].path != match[0].path]
        related = related[:RELATED_PER_CLUSTER]
    return related


def _titled(title: str, text: str, separator: str) -> str:
    """`title` + `text`, or `text` alone when it already says every word of the title."""
    if set(normalise(title).split()) <= set(normalise(text).split()):
        return text
    return f"{one_line(title, TITLE_CHARS)}{separator}{text}"


def render_entry_block(entry: Entry) -> str:
    """`## slug · facts`, then `title: guidance`, then the start of the rest of the body."""
    facts = [entry.kind]
    if entry.pinned:
        facts.append("pinned")
    if entry.confirmations:
        facts.append(counted(entry.confirmations, "confirmation"))
    if entry.flags:
        facts.append(counted(entry.flags, "flag"))
    facts.append(f"tags: {', '.join(entry.tags) or '-'}")
    body = entry.body.strip()
    rest = body[len(entry.guidance):] if body.startswith(entry.guidance) else body
    lines = [_untrusted(f"## {entry.slug} · {' · '.join(facts)}"),
             _untrusted(_titled(entry.title, entry.guidance, ": "))]
    if rest.strip():
        lines.append(_untrusted(f"more: {one_line(rest, ENTRY_CHARS)}"))
    return "\n".join(lines)


def render_cluster_block(number: int, members: Sequence[Memory], representative: Memory,
                         aliases: dict[str, str], related: Sequence[tuple[Entry, float, bool]]) -> str:
    """`## cN: member ids (spread)`, related entry slugs, then the representative memory in full."""
    head = f"## c{number}: {', '.join(aliases[m.id] for m in members)}"
    if len(members) > 1:
        agents = len({m.agent_id for m in members})
        sessions = len({m.metadata.get("session_id") for m in members if m.metadata.get("session_id")})
        spread = [counted(len(members), "memory", "memories"), counted(agents, "agent")]
        if sessions:
            spread.append(counted(sessions, "session"))
        head += f" ({', '.join(spread)})"
    lines = [head]
    if related:
        hints = [f"{entry.slug} ({score:.0f}{', likely repeats' if is_match else ''})"
                 for entry, score, is_match in related]
        lines.append(f"related: {', '.join(hints)}")
    content = representative.content
    if len(content) > MEMORY_CHARS:
        content = content[:MEMORY_CHARS].rstrip() + " …(cut)"
    tags = ", ".join(representative.tags) or "-"
    about = f"{representative.type} · {representative.agent_id} · {representative.submitted_at:%Y-%m-%d}"
    lines += [_untrusted(f"[{aliases[representative.id]}] {about} · tags: {tags}"),
              _untrusted(_titled(representative.title, content.strip(), "\n"))]
    return "\n".join(lines)


def _nonce(*parts: str) -> str:
    """A fence label the data cannot guess without its own hash: deterministic, so the same input
    gives the same prompt (and proposal ids, and prompt-cache hits)."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()
    return digest[:12]


def _fill(style: AnswerStyle, cluster_blocks: Sequence[str], entry_blocks: Sequence[str], memories: int,
          live: int, left_out: int) -> str:
    sections = prompt_sections()
    entries_text = "\n\n".join(entry_blocks) or "(none related)"
    clusters_text = "\n\n".join(cluster_blocks)
    note = (f"\n{left_out} more memories did not fit this dream's token budget; they wait for a "
            "later dream.") if left_out else ""
    return string.Template(sections["user"]).substitute(
        answer_format=sections["answer-tool" if style == "tool" else "answer-json"],
        cluster_count=len(cluster_blocks), memory_count=memories, entry_count=len(entry_blocks),
        live_count=live, left_out_note=note, nonce=_nonce(entries_text, clusters_text),
        entries=entries_text, clusters=clusters_text)


def split_batch(dream_input: DreamInput) -> tuple[list[Memory], list[Memory], list[Memory]]:
    """(new memories for the model, feedback for the policy, memories a person rejected before)."""
    fresh: list[Memory] = []
    feedback: list[Memory] = []
    rejected: list[Memory] = []
    for memory in sorted(dream_input.batch, key=_order):
        if memory.is_feedback:
            feedback.append(memory)
        elif content_fingerprint(memory) in dream_input.rejected:
            rejected.append(memory)
        else:
            fresh.append(memory)
    return fresh, feedback, rejected


def build_prompt(dream_input: DreamInput, style: AnswerStyle, *, budget: int | None = None,
                 index: EntryIndex | None = None) -> Prompt:
    """Cluster the batch, relate each cluster to a few entries, fill the budget oldest first."""
    config = dream_input.config
    budget = budget if budget is not None else config.dream.token_budget
    fresh, feedback, rejected = split_batch(dream_input)
    index = index if index is not None else build_entry_index(dream_input.snapshot)
    system = prompt_sections()["system"]
    # The frame (system prompt, answer format, headings) costs the same whatever is included.
    used = estimate_tokens(system) + estimate_tokens(_fill(style, [], [], 0, 0, 0)) + 16
    aliases: dict[str, str] = {}
    shown_entries: dict[str, str] = {}
    cluster_blocks: list[str] = []
    shown: list[list[Memory]] = []
    left_out: list[Memory] = []
    threshold = config.dream.similarity
    for cluster in cluster_memories(fresh, threshold):
        related = related_entries(cluster, index, threshold)
        trial = dict(aliases)
        for member in cluster.members:
            trial.setdefault(member.id, f"m{len(trial) + 1}")
        block = render_cluster_block(len(cluster_blocks) + 1, cluster.members, cluster.representative,
                                     trial, related)
        new_entries = {e.path: render_entry_block(e) for e, _, _ in related if e.path not in shown_entries}
        cost = estimate_tokens(block) + sum(estimate_tokens(b) for b in new_entries.values()) + 2
        if used + cost > budget:
            left_out.extend(cluster.members)
            continue
        used += cost
        aliases = trial
        shown_entries.update(new_entries)
        cluster_blocks.append(block)
        shown.append(list(cluster.members))
    if fresh and not shown:
        raise DreamError(f"prompt: not even one cluster fits dream.token_budget ({budget} tokens) — "
                         "raise dream.token_budget")
    by_id = {m.id: m for m in fresh}
    entries = [dream_input.snapshot.entries[path] for path in shown_entries]
    user = _fill(style, cluster_blocks, list(shown_entries.values()), len(aliases),
                 len(index.entries), len(left_out))
    return Prompt(system=system, user=user,
                  aliases={alias: by_id[memory_id] for memory_id, alias in aliases.items()},
                  clusters=shown, entries=entries, feedback=feedback, rejected=rejected,
                  left_out=sorted(left_out, key=_order), budget=budget)


def naive_prompt(dream_input: DreamInput, style: AnswerStyle) -> str:
    """What a prompt without clustering or relating would hold: the whole batch, the whole LTM.

    Only the benchmark uses it, as the baseline ours is measured against.
    """
    memories = [f"[{m.id}] {m.type} · {m.agent_id} · {m.submitted_at:%Y-%m-%d} · "
                f"tags: {', '.join(m.tags) or '-'}\ntitle: {m.title}\n{m.content}"
                for m in sorted(dream_input.batch, key=_order)]
    entries = [f"## {e.path}\n{e.raw}" for e in sorted(dream_input.snapshot.live(), key=lambda e: e.path)]
    sections = prompt_sections()
    answer = sections["answer-tool" if style == "tool" else "answer-json"]
    return "\n\n".join([sections["system"], answer, "# Long-term entries", *entries,
                        "# New memories", *memories])


# --- turning model answers into proposals ------------------------------------------------------


@dataclass(frozen=True)
class ModelProposal:
    """One proposal as the model wrote it (already parsed JSON, not yet trusted)."""

    raw: Any


@dataclass
class _Checked:
    """A model proposal whose common fields passed the checks."""

    op: str
    raw: dict[str, Any]
    memories: list[Memory]
    rationale: str
    confidence: float
    marks: list[str] = field(default_factory=list)


class _Refuse(Exception):
    """Internal: a model proposal breaks a rule; the message is the refusal's reason."""


def _text(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    return value.strip() if isinstance(value, str) else ""


def _confidence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return 0.5
    return min(1.0, max(0.0, float(value)))


def _tags(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    tags = [one_line(t, 40).lower() for t in value if isinstance(t, str) and t.strip()]
    return list(dict.fromkeys(tags))[:TAGS_MAX]


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def replace_guidance(body: str, guidance: str) -> str:
    """`body` with its first paragraph (the guidance) replaced."""
    paragraphs = re.split(r"\n\s*\n", body.strip(), maxsplit=1)
    rest = paragraphs[1] if len(paragraphs) > 1 else ""
    return f"{guidance}\n\n{rest}\n" if rest else f"{guidance}\n"


class ProposalMaker:
    """Turns the model's proposals into Proposals, one at a time, as they stream in.

    Changes to entries that feedback in the batch also touches are held in the shared drafts and
    come out in `finish`, merged with the feedback: one proposal per entry, as the runner requires.
    """

    def __init__(self, dream_input: DreamInput, prompt: Prompt, index: EntryIndex) -> None:
        self.input = dream_input
        self.prompt = prompt
        self.index = index
        self.now = dream_input.now
        self.snapshot = dream_input.snapshot
        self.lookup: dict[str, Memory] = dict(prompt.aliases)
        self.lookup.update({m.id: m for m in prompt.aliases.values()})
        self.drafts = Drafts()
        scratch = Drafts()
        apply_feedback(prompt.feedback, self.snapshot, self.now, scratch, index=index)
        self.held = {p.target for p in scratch.proposals()}
        self.replacements: list[Replacement] = []
        self.created: set[str] = set()
        self.cited: set[str] = set()
        self.answers = 0
        self.refused = 0

    # -- one model proposal --

    def take(self, raw: Any) -> list[Event]:
        self.answers += 1
        try:
            checked = self._check(raw)
            proposals = self._build(checked)
        except _Refuse as refused:
            self.refused += 1
            return [Refused(self._refusal(raw, str(refused)))]
        self.cited.update(m.id for m in checked.memories)
        return [ProposalReady(p) for p in self._unless_rejected(proposals)]

    def _refusal(self, raw: Any, reason: str) -> Refusal:
        data = raw if isinstance(raw, dict) else {"answer": raw}
        clean, _kinds = safety.redact_obj(data)
        op = clean.get("op") if isinstance(clean.get("op"), str) else "?"
        slug = clean.get("slug") if isinstance(clean.get("slug"), str) else ""
        target = slug or ", ".join(str(e) for e in clean.get("evidence") or [] if isinstance(e, str))
        return Refusal(op=op, target=target or "?", reason=f"model proposal refused: {reason}", raw=clean)

    def _check(self, raw: Any) -> _Checked:
        if not isinstance(raw, dict):
            raise _Refuse(f"expected a JSON object, got {type(raw).__name__}")
        clean, kinds = safety.redact_obj(raw)  # the model may echo a secret it inferred or was fed
        op = clean.get("op")
        if op not in MODEL_OPS:
            raise _Refuse(f"unknown op {op!r} (a model may propose {', '.join(MODEL_OPS)})")
        evidence = clean.get("evidence")
        if not isinstance(evidence, list) or not evidence:
            raise _Refuse("no evidence: every proposal must cite memories of this dream")
        unknown = [str(e) for e in evidence if not isinstance(e, str) or e not in self.lookup]
        if unknown:
            raise _Refuse(f"evidence not among the memories shown: {', '.join(unknown[:3])}")
        memories = list({self.lookup[e].id: self.lookup[e] for e in evidence}.values())
        rationale = one_line(_text(clean, "rationale") or f"{op} proposed by the model", 300)
        marks = [SECRET_MARK] if kinds else []
        return _Checked(op, clean, memories, rationale, _confidence(clean.get("confidence")), marks)

    def _build(self, checked: _Checked) -> list[Proposal]:
        if checked.op == "discard":
            return [discard_proposal(m, checked.rationale, confidence=checked.confidence)
                    for m in checked.memories]
        if checked.op == "create":
            return [self._create(checked)]
        return self._entry_op(checked)

    def _slug(self, raw: dict[str, Any]) -> str:
        slug = raw.get("slug")
        try:
            return safety.validate_slug(slug if isinstance(slug, str) else "")
        except ValueError as exc:
            raise _Refuse(f"bad slug: {exc}") from None

    def _create(self, checked: _Checked) -> Proposal:
        raw = checked.raw
        slug = self._slug(raw)
        if self.snapshot.by_slug(slug) is not None or slug in self.created:
            raise _Refuse(f"slug {slug!r} already exists; propose an update of it instead")
        kind = raw.get("kind") or "topic"
        if kind not in ("topic", "incident"):
            raise _Refuse(f"kind {kind!r} must be topic or incident")
        title, guidance = one_line(_text(raw, "title"), TITLE_CHARS), one_line(_text(raw, "guidance"), 2000)
        if not title or not guidance:
            raise _Refuse("a create needs a title and guidance")
        body = "\n\n".join([guidance, *_paragraphs(_text(raw, "details"))]) + "\n"
        meta: dict[str, Any] = {
            "title": title, "slug": slug, "type": kind, "tags": _tags(raw.get("tags")),
            "created_at": self.now, "updated_at": self.now,
            "sources": [source_ref(m.id) for m in checked.memories],
        }
        path = entry_path(slug, kind, min(m.submitted_at for m in checked.memories))
        self.created.add(slug)
        self.replacements.extend(Replacement(m, slug) for m in checked.memories)
        proposal = create_proposal(path=path, meta=meta, body=body, kind=kind,
                                   rationale=checked.rationale, memories=checked.memories,
                                   confidence=checked.confidence)
        proposal.safety = sorted(set(proposal.safety) | set(checked.marks))
        return proposal

    def _entry_op(self, checked: _Checked) -> list[Proposal]:
        raw = checked.raw
        slug = self._slug(raw)
        entry = self.snapshot.by_slug(slug)
        if entry is None:
            raise _Refuse(f"no live entry {slug!r} to {checked.op}")
        if checked.op == "archive" and entry.pinned:
            # Refused here, not only by the policy: merged into a feedback draft, it would take
            # the feedback's own (valid) change down with it.
            raise _Refuse(f"{entry.path} is pinned: a dream never archives it")
        held = entry.path in self.held
        draft = self.drafts(entry) if held else EntryDraft(entry)
        self._apply(draft, entry, checked)
        draft.marks.update(checked.marks)
        if checked.op in ("update", "reinforce"):
            self.replacements.extend(Replacement(m, slug) for m in checked.memories)
        return [] if held else [draft.to_proposal()]

    def _apply(self, draft: EntryDraft, entry: Entry, checked: _Checked) -> None:
        raw, memories, why, confidence = checked.raw, checked.memories, checked.rationale, checked.confidence
        if checked.op == "update":
            guidance = one_line(_text(raw, "guidance"), 2000)
            new_guidance = bool(guidance) and normalise(guidance) != normalise(entry.guidance)
            if new_guidance:
                draft.body = replace_guidance(draft.body, guidance)
                draft.new_text.append(guidance)
            known = normalise(draft.body)
            fresh = [p for p in _paragraphs(_text(raw, "details")) if normalise(p) not in known]
            tags = [t for t in _tags(raw.get("tags")) if t not in entry.tags]
            if tags:
                draft.meta["tags"] = [*entry.tags, *tags]
            if fresh or new_guidance or tags:
                draft.merge_facts(memories, fresh, self.now, why, confidence, asks_human=entry.pinned)
                return
            # An update that adds nothing is what the design calls a repeat: a confirmation.
        if checked.op in ("update", "reinforce"):
            draft.confirm(memories, max(m.submitted_at for m in memories), why, confidence, cite=True)
        elif checked.op == "weaken":
            caveat = one_line(_text(raw, "details") or why, 300)
            draft.flag(memories, [f"> Caveat ({self.now:%Y-%m-%d}, dream): {caveat}"], self.now, why,
                       confidence, asks_human=entry.pinned)
        else:
            superseded = raw.get("superseded_by")
            replacement = None
            if isinstance(superseded, str) and superseded.strip():
                replacement = self._slug({"slug": superseded.strip()})
                if replacement not in self.created and self.snapshot.by_slug(replacement) is None:
                    raise _Refuse(f"superseded_by {replacement!r} is no live or new entry")
            draft.retire(memories, self.now, why, replacement, confidence)

    def _unless_rejected(self, proposals: Iterable[Proposal]) -> list[Proposal]:
        """A change a person rejected before is not proposed again; its memories are discarded
        (as the heuristic engine does)."""
        out: list[Proposal] = []
        for proposal in proposals:
            if proposal.id not in self.input.rejected or proposal.op == "discard":
                out.append(proposal)
                continue
            reason = f"{REJECTED_REASON} ({proposal.op} {proposal.target}, {proposal.id})"
            memories = {m.id: m for m in [*self.prompt.aliases.values(), *self.prompt.feedback]}
            out.extend(discard_proposal(memories[i], reason) for i in proposal.evidence if i in memories)
        return out

    # -- the end of the answer --

    def finish(self) -> list[Event]:
        """Feedback (merged with held model changes), and discards of previously rejected content."""
        late = [discard_proposal(m, REJECTED_REASON) for m in self.prompt.rejected]
        late += apply_feedback(self.prompt.feedback, self.snapshot, self.now, self.drafts,
                               replacements=self.replacements, index=self.index)
        late += self.drafts.proposals()
        return [ProposalReady(p) for p in self._unless_rejected(late)]

    def clusters_done(self) -> int:
        return sum(1 for members in self.prompt.clusters if all(m.id in self.cited for m in members))


# --- incremental JSON --------------------------------------------------------------------------


class ArrayItemScanner:
    """Finds each complete element of the top-level object's `key` array in streamed JSON text.

    A small state machine over the characters (strings and escapes respected), so a proposal is
    handed on as soon as its closing brace arrives, long before the whole answer is complete.
    """

    def __init__(self, key: str = "proposals") -> None:
        self.key = key
        self.text = ""
        self._pos = 0
        self._stack: list[str] = []
        self._in_string = False
        self._escape = False
        self._key_start: int | None = None  # where a root-level key string starts
        self._expect_key = False
        self._last_key: str | None = None
        self._array_depth: int | None = None  # stack depth inside the target array
        self._item_start: int | None = None

    def feed(self, chunk: str) -> list[str]:
        """Append `chunk`; return the texts of the elements it completed."""
        self.text += chunk
        found: list[str] = []
        text = self.text
        for i in range(self._pos, len(text)):
            char = text[i]
            if self._in_string:
                self._string_char(char, i)
            elif char == '"':
                self._in_string = True
                if self._expect_key and self._stack == ["{"]:
                    self._key_start, self._expect_key = i, False
            elif char in "{[":
                self._open(char, i)
            elif char in "}]":
                item = self._close(char, i)
                if item is not None:
                    found.append(item)
            elif char == "," and self._stack == ["{"]:
                self._expect_key = True
        self._pos = len(text)
        return found

    def _string_char(self, char: str, i: int) -> None:
        if self._escape:
            self._escape = False
        elif char == "\\":
            self._escape = True
        elif char == '"':
            self._in_string = False
            if self._key_start is not None:
                self._last_key = json.loads(self.text[self._key_start:i + 1])
                self._key_start = None

    def _open(self, char: str, i: int) -> None:
        if char == "{" and self._array_depth is not None and len(self._stack) == self._array_depth:
            self._item_start = i
        if char == "[" and self._stack == ["{"] and self._last_key == self.key and self._array_depth is None:
            self._array_depth = 2
        self._stack.append(char)
        if self._stack == ["{"]:
            self._expect_key = True

    def _close(self, char: str, i: int) -> str | None:
        if not self._stack:
            return None  # unbalanced: `result` reports it
        self._stack.pop()
        depth = len(self._stack)
        if char == "}" and self._item_start is not None and depth == self._array_depth:
            start, self._item_start = self._item_start, None
            return self.text[start:i + 1]
        if char == "]" and self._array_depth is not None and depth == self._array_depth - 1:
            self._array_depth = None
            self._last_key = None
        return None

    @property
    def unfinished(self) -> bool:
        """The text so far stops inside a string, object or array."""
        return self._in_string or bool(self._stack)

    def result(self) -> Any:
        """The whole answer parsed; ValueError when it is not one valid JSON document."""
        return json.loads(self.text)


# --- streaming helpers -------------------------------------------------------------------------

T = TypeVar("T")


class StreamCancelled(Exception):
    """Internal: the cancel token was set while waiting for the model."""


async def next_or_cancel(iterator: AsyncIterator[T], cancel: CancelToken) -> T:
    """The next item, or StreamCancelled as soon as `cancel` is set, even while a read blocks.

    Raises StopAsyncIteration at the end, like `anext`.
    """
    if cancel.cancelled:
        raise StreamCancelled()
    task = asyncio.ensure_future(anext(iterator))
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=CANCEL_POLL_S)
            if done:
                return task.result()
            if cancel.cancelled:
                raise StreamCancelled()
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def sleep_or_cancel(seconds: float, cancel: CancelToken) -> None:
    deadline = time.monotonic() + seconds
    while not cancel.cancelled:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        await asyncio.sleep(min(left, CANCEL_POLL_S))
    raise StreamCancelled()


def retry_delay(attempt: int, retry_after: str | None) -> float:
    """Seconds before retry number `attempt` (0-based): the server's Retry-After (seconds or an
    HTTP date) when it sent one, else exponential backoff."""
    if retry_after:
        try:
            seconds = float(retry_after)
        except ValueError:
            parsed = email.utils.parsedate_tz(retry_after)
            seconds = email.utils.mktime_tz(parsed) - time.time() if parsed else -1.0
        if seconds >= 0:
            return min(seconds, RETRY_AFTER_MAX_S)
    return min(BACKOFF_BASE_S * 2 ** attempt, BACKOFF_MAX_S)


class ModelUnreachable(DreamError):
    """The model could not be reached (connection, timeout, overloaded): the fallback may apply."""


# --- the shared run ----------------------------------------------------------------------------

BackendItem = TextDelta | Usage | ModelProposal | Refused
# A backend streams one model answer: text, usage, each proposal as it completes, and refusals of
# what it could already tell is not a proposal (an unknown tool).
Backend = Callable[[Prompt, CancelToken], AsyncGenerator[BackendItem, None]]


async def run_llm_dream(name: str, style: AnswerStyle, backend: Backend, dream_input: DreamInput,
                        cancel: CancelToken) -> AsyncGenerator[Event, None]:
    """Prompt → model stream → proposals as they complete → feedback and held drafts → Done.

    Ends without Done when cancelled (the runner reports it and releases the batch); raises
    DreamError with a one-line message when the model fails.
    """
    started = time.perf_counter()
    index = build_entry_index(dream_input.snapshot)
    prompt = build_prompt(dream_input, style, index=index)
    maker = ProposalMaker(dream_input, prompt, index)
    total = len(prompt.clusters)
    yield Progress(0, total, f"{name}: {total} clusters, {len(prompt.entries)} related entries, "
                             f"~{prompt.tokens} tokens; {len(prompt.left_out)} memories left out "
                             f"(dream.token_budget {prompt.budget})")
    if prompt.clusters:
        try:
            async with aclosing(backend(prompt, cancel)) as stream:
                async for item in stream:
                    if isinstance(item, ModelProposal):
                        for event in maker.take(item.raw):
                            yield event
                        yield Progress(maker.clusters_done(), total,
                                       f"{name}: {maker.answers} proposals from the model")
                    else:
                        yield item
        except StreamCancelled:
            return
    if cancel.cancelled:
        return
    for event in maker.finish():
        yield event
    yield Done({
        "prompt": PROMPT_VERSION,
        "prompt_tokens_estimate": prompt.tokens,
        "clusters": total,
        "related_entries": len(prompt.entries),
        "model_answers": maker.answers,
        "model_refused": maker.refused,
        "left_out": [m.id for m in prompt.left_out],
        "engine_seconds": round(time.perf_counter() - started, 3),
    })


async def with_fallback(events: AsyncGenerator[Event, None], dream_input: DreamInput, cancel: CancelToken,
                        config: Config) -> AsyncGenerator[Event, None]:
    """`events`, or — when the model is unreachable before it proposed anything and
    `dream.fallback_to_heuristic` is set — the heuristic engine's dream instead."""
    proposed = False
    try:
        async with aclosing(events) as stream:
            async for event in stream:
                proposed = proposed or isinstance(event, (ProposalReady, Refused))
                yield event
        return
    except ModelUnreachable as exc:
        if proposed or not config.dream.fallback_to_heuristic:
            raise
        reason = str(exc)
    yield Progress(0, 0, f"{reason}; falling back to the heuristic engine (dream.fallback_to_heuristic)")
    async with aclosing(HeuristicEngine(config).run(dream_input, cancel)) as fallback:
        async for event in fallback:
            if isinstance(event, Done):
                event = Done({**event.stats, "fallback": "heuristic", "fallback_reason": reason})
            yield event
