"""The model's answer: its schema, and turning each proposal the model wrote into a Proposal.

The model never writes paths, frontmatter or ids. It answers in a small schema (op, slug, title,
guidance, details, evidence, ...); `ProposalMaker` checks each answer and turns it into a full
Proposal with the same helpers the heuristic engine uses (proposals.py), after redacting secrets
from it again. Feedback memories never reach the model: the deterministic policy (policy.py)
handles them, folded into the same per-entry drafts as the model's changes to those entries.

The content contract the prompt states is enforced here, whatever the model wrote (issue 11):
- one guidance sentence: a longer guidance keeps its most actionable sentence (guidance.lesson)
  and the others move into the details;
- update, not create: a create that restates or corrects a live entry (cluster.find_entry) is
  made an update of that entry (new facts) or its confirmation, never a second entry;
- no pasted phrasings: details keep only sentences stating a fact the entry (or the new
  guidance) lacks (guidance.Known), so an update never appends a restatement;
- no pasted phrasings: details keep only sentences stating a fact the entry (or the new
  guidance) lacks (guidance.Known), so an update never appends a restatement; an update's
  details (and a restating create's text) are another telling of the entry's lesson, so only
  their rule and fact clauses count and a fix told in the past is added as the rule
  (guidance.fresh_paragraphs with other_phrasing), never the story of that one occurrence;
- known-corpus citations: a rationale may cite only project rules the prompt showed
  (`CLAUDE.md:14`); any other `file:line` makes the proposal a refusal;
- the value gate (heuristic.worthless): memories with no lesson that a model would make or
  extend an entry from are discarded with the gate's reason instead; a memory stating a rule
  (routes.states_rule: "Be concise.", "Maximum line length: 88") is never discarded unless the
  rationale cites a project rule shown (or it repeats another memory word for word);
- the route (routes.lesson_route) and its frontmatter, as the heuristic engine writes them; a
  skill carries no inline credentials, not even documentation examples
  (heuristic.leave_out_credentials, its rationale naming what was left out);
- tags: the memories', then the model's; with neither, the heuristic's (heuristic.new_entry_tags:
  the closest live entry's, else the subject the lesson's words name), so AGENTS.md files a new
  entry under "General" only when nothing names a subject.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from dreamtui.dream.cluster import EntryIndex, Signature, find_entry, normalise
from dreamtui.dream.engines.base import DreamInput, Event, ProposalReady, Refused
from dreamtui.dream.engines.heuristic import (
    REJECTED_REASON,
    leave_out_credentials,
    new_entry_tags,
    tags_by_use,
    worthless,
)
from dreamtui.dream.engines.llm.prompt import PROMPTS_PACKAGE, TITLE_CHARS, Prompt, one_line
from dreamtui.dream.guidance import Known, fresh_paragraphs, lesson
from dreamtui.dream.policy import Replacement, apply_feedback
from dreamtui.dream.proposals import (
    Drafts,
    EntryDraft,
    create_proposal,
    discard_proposal,
    source_ref,
    split_sentences,
)
from dreamtui.dream.routes import entry_route, lesson_route, route_meta, states_rule
from dreamtui.model import CAVEAT_PREFIX, Entry, Memory, Proposal, Refusal
from dreamtui.safety.paths import validate_slug
from dreamtui.safety.secrets import redact_obj
from dreamtui.store.ltm import entry_path

SCHEMA_FILE = "proposal-v1.schema.json"
TOOL_NAME = "propose_change"
MODEL_OPS = ("create", "update", "reinforce", "weaken", "archive", "discard")
TAGS_MAX = 8
SECRET_MARK = "secret-in-model-output"
_CITATION_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*(?:[\w-]+\.(?:md|mdc|txt)|\.cursorrules)):(\d+)\b")


@lru_cache(maxsize=1)
def proposal_schema() -> dict[str, Any]:
    """The JSON schema of one model proposal (the tool's input schema)."""
    text = resources.files(PROMPTS_PACKAGE).joinpath(f"prompts/{SCHEMA_FILE}").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    schema.pop("$schema", None)  # APIs take the schema body, not the meta-schema reference
    return schema


def answer_schema() -> dict[str, Any]:
    """The whole answer for JSON-mode models: {"proposals": [proposal, ...]}."""
    item = {k: v for k, v in proposal_schema().items() if k not in ("title", "description")}
    return {"type": "object", "properties": {"proposals": {"type": "array", "items": item}},
            "required": ["proposals"]}


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


def one_sentence(title: str, guidance: str) -> tuple[str, list[str]]:
    """(the guidance as one sentence, the sentences it had beyond that, for the details)."""
    if len(split_sentences(guidance)) <= 1:
        return guidance, []
    taught = lesson(title, guidance)
    return taught.guidance, taught.rest


def citations(text: str) -> list[str]:
    """The `file:line` citations in `text` ("CLAUDE.md:14", ".cursor/rules/db.mdc:3")."""
    return [f"{path}:{line}" for path, line in _CITATION_RE.findall(text)]


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
        self.known_tags = tags_by_use(index)
        self.contents: Counter[str] | None = None  # normalised contents of the memories shown
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
        clean, _kinds = redact_obj(data)
        op = clean.get("op") if isinstance(clean.get("op"), str) else "?"
        slug = clean.get("slug") if isinstance(clean.get("slug"), str) else ""
        target = slug or ", ".join(str(e) for e in clean.get("evidence") or [] if isinstance(e, str))
        return Refusal(op=op, target=target or "?", reason=f"model proposal refused: {reason}", raw=clean)

    def _check(self, raw: Any) -> _Checked:
        if not isinstance(raw, dict):
            raise _Refuse(f"expected a JSON object, got {type(raw).__name__}")
        clean, kinds = redact_obj(raw)  # the model may echo a secret it inferred or was fed
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
        unshown = [c for c in citations(rationale) if c not in self.prompt.citations]
        if unshown:
            raise _Refuse(f"cites {', '.join(unshown[:3])}, which is no project rule shown to it "
                          "(the project's docs are cited only as the prompt lists them)")
        marks = [SECRET_MARK] if kinds else []
        return _Checked(op, clean, memories, rationale, _confidence(clean.get("confidence")), marks)

    def _build(self, checked: _Checked) -> list[Proposal]:
        if checked.op == "discard":
            self._may_discard(checked)
            return [discard_proposal(m, checked.rationale, confidence=checked.confidence)
                    for m in checked.memories]
        gated: list[Proposal] = []
        if checked.op in ("create", "update", "reinforce"):
            # The value gate, as the heuristic applies it: a memory with no lesson makes no entry.
            kept = [m for m in checked.memories if worthless(m) is None]
            proposed = "a new entry" if checked.op == "create" else f"evidence for {_text(checked.raw, 'slug')}"
            gated = [discard_proposal(m, f"{worthless(m)} (the model proposed it as {proposed})",
                                      confidence=0.8, details={"no_lesson": True})
                     for m in checked.memories if m not in kept]
            if not kept:
                return gated
            checked = replace(checked, memories=kept)
        if checked.op == "create":
            created, restated = self._create(checked)
            if created is not None:
                return [*gated, created]
            assert restated is not None
            # Update, not create: what the model wrote becomes facts offered to that entry.
            raw = checked.raw
            facts = "\n\n".join([_text(raw, "guidance"), _text(raw, "details")])
            checked = _Checked("update", {"slug": restated.slug, "details": facts, "tags": raw.get("tags")},
                               checked.memories, f"restates {restated.slug}, so no new entry: {checked.rationale}",
                               checked.confidence, checked.marks)
        return [*gated, *self._entry_op(checked)]

    def _may_discard(self, checked: _Checked) -> None:
        """A discard of a memory stating a rule needs the citation of a project rule shown (or
        the memory repeats another shown one word for word): the value gate keeps short rules."""
        if any(c in self.prompt.citations for c in citations(checked.rationale)):
            return
        if self.contents is None:  # read once a dream, not once a discard: batches run to thousands
            self.contents = Counter(normalise(m.content) for m in self.prompt.aliases.values())
        for memory in checked.memories:
            text = " ".join(memory.content.split())
            if self.contents[normalise(memory.content)] < 2 and worthless(memory) is None and states_rule(text):
                name = next(a for a, m in self.prompt.aliases.items() if m.id == memory.id)
                raise _Refuse(f"{name} states a rule ({one_line(text, 80)!r}): a rule is discarded only "
                              "citing the project rule shown that states it; else create, update or reinforce")

    def _slug(self, raw: dict[str, Any]) -> str:
        slug = raw.get("slug")
        try:
            return validate_slug(slug if isinstance(slug, str) else "")
        except ValueError as exc:
            raise _Refuse(f"bad slug: {exc}") from None

    def _create(self, checked: _Checked) -> tuple[Proposal | None, Entry | None]:
        """(the new entry's proposal, None), or (None, the live entry it restates)."""
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
        given = _tags(raw.get("tags"))
        probe = Signature.of(f"{title}.\n{guidance}\n{' '.join(given)}", guidance)
        restated = self._restates(probe)
        if restated is not None:
            return None, restated
        guidance, beyond = one_sentence(title, guidance)
        details = "\n\n".join([*beyond, _text(raw, "details")])
        body = "\n\n".join([guidance, *fresh_paragraphs(details, Known(f"{title}\n{guidance}"))]) + "\n"
        route = lesson_route(checked.memories)
        body, left_out = leave_out_credentials(body, route)
        meta: dict[str, Any] = {
            "title": title, "slug": slug, "type": kind, "tags": self._entry_tags(checked.memories, given, probe, body),
            **route_meta(route, checked.memories),
            "created_at": self.now, "updated_at": self.now,
            "sources": [source_ref(m.id) for m in checked.memories],
        }
        path = entry_path(slug, kind, min(m.submitted_at for m in checked.memories))
        self.created.add(slug)
        self.replacements.extend(Replacement(m, slug) for m in checked.memories)
        proposal = create_proposal(path=path, meta=meta, body=body, kind=kind,
                                   rationale=checked.rationale + left_out, memories=checked.memories,
                                   confidence=checked.confidence, route=route)
        proposal.safety = sorted(set(proposal.safety) | set(checked.marks))
        return proposal, None

    def _restates(self, probe: Signature) -> Entry | None:
        """The live entry a would-be new entry restates or corrects, if any."""
        found = find_entry(probe, self.index, self.input.config.dream.similarity)
        return None if found is None else found.item

    def _entry_tags(self, memories: list[Memory], given: list[str], probe: Signature, text: str) -> list[str]:
        """The memories' tags first (the first is the bundle section, as the heuristic files it),
        then the model's; with neither, the heuristic's from the closest entry or the words."""
        own = [t for m in memories for t in m.tags]
        if own or given:
            return list(dict.fromkeys([*own, *given]))[:TAGS_MAX]
        return new_entry_tags(memories, memories[0], probe, self.index, self.known_tags, text)

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
            guidance, beyond = one_sentence(entry.title, one_line(_text(raw, "guidance"), 2000))
            new_guidance = bool(guidance) and normalise(guidance) != normalise(entry.guidance)
            if new_guidance:
                draft.body = replace_guidance(draft.body, guidance)
                draft.new_text.append(guidance)
            details = "\n\n".join([*beyond, _text(raw, "details")])
            fresh = fresh_paragraphs(details, Known(f"{entry.title}\n{draft.body}"), other_phrasing=True)
            kept, left_out = leave_out_credentials("\n\n".join(fresh), entry_route(entry))
            if left_out:  # a skill's new facts, its commands without their inline credentials
                fresh, why = ([kept] if kept.strip() else []), why + left_out
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
            draft.flag(memories, [f"{CAVEAT_PREFIX}flagged {self.now:%Y-%m-%d} by the dream): {caveat}"],
                       self.now, why, confidence, asks_human=entry.pinned)
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
