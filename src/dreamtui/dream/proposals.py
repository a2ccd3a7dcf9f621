"""Building proposals the way docs/changeset-semantics.md defines them, for every engine.

Engines decide *what* to change; these helpers make sure each proposal has its stable id, the
base hash of the text it was computed from, the safety marks of its evidence and of its new text,
and the content fingerprints a later rejection is remembered by. `EntryDraft` gathers every change
one dream makes to one live entry, so an entry gets one proposal however many memories and
feedback items touch it (two proposals on one file would conflict at commit).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from dreamtui.dream.cluster import NEGATIONS, normalise, numbers
from dreamtui.entry.codec import render_entry
from dreamtui.model import (
    CAVEAT_PREFIX,
    FEEDBACK_FLAGGED,
    Entry,
    Memory,
    Proposal,
    frontmatter_int,
    sha256_text,
)
from dreamtui.safety.marks import scan
from dreamtui.store.ltm import archive_path
from dreamtui.vocabulary import counted

PINNED_MARK = "pinned-entry"
# A caveat a later correction answered: no longer a Caveat (the bundle line and the flag count
# leave it), still the words of what someone saw.
ANSWERED_PREFIX = "> Answered ("
FLAG_NOTE = "> Flagged "  # a flag a person (or an older tool) noted in the body by hand
FINGERPRINT_PREFIX = "c-"
SENTENCE_KNOWN = 90  # partial_ratio at which a reworded sentence counts as already said
GUIDANCE_CHARS = 200  # a bundle line; longer first sentences are kept whole, never cut mid-word
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=\S)")
# A line break ends a sentence after its end mark (or a closing quote), or before a line that
# opens with a label ("Error: …", "The agent had said: …") or a count ("Seen 3 times …").
_LINE_END_RE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'”’)\]])|(?<=”))[ \t]*\n\s*"
                          r"|[ \t]*\n\s*(?=[A-Z][\w ]{0,30}:\s|Seen \d+ times\b)")
_FENCE = "```"

# When several changes meet in one entry the strongest decides the op (changeset-semantics.md):
# retiring beats recording a flag, which beats merging facts, which beats counting a confirmation.
# A correction of the entry's fact answers the flags against it: it is an update, not a retirement.
# A promotion carries whatever else the dream adds to the entry.
OP_PRECEDENCE = ("correct", "archive", "weaken", "promote", "update", "reinforce")


def content_fingerprint(memory: Memory) -> str:
    """What a rejection is remembered by: the memory's normalised content, not its id, so the same
    lesson submitted again later is recognised."""
    return _fingerprint(memory.content)


@lru_cache(maxsize=1 << 14)  # a dream asks for each memory's twice: the rejection check, the proposal
def _fingerprint(content: str) -> str:
    digest = hashlib.sha256(normalise(content).encode("utf-8")).hexdigest()
    return f"{FINGERPRINT_PREFIX}{digest[:16]}"


def source_ref(memory_id: str) -> str:
    return f"stm:{memory_id}"


def safety_marks(memories: Iterable[Memory], *texts: str) -> list[str]:
    """Marks recorded on the evidence at intake, plus a fresh scan of the text we propose."""
    marks: set[str] = set()
    for memory in memories:
        marks.update(memory.safety)
    for text in texts:
        if text:
            marks.update(scan(text))
    return sorted(marks)


def make_proposal(op: str, target: str, *, slug: str | None, before: str | None, after: str | None,
                  rationale: str, memories: Sequence[Memory], confidence: float,
                  scan_text: str = "", extra_marks: Iterable[str] = (),
                  details: dict[str, Any] | None = None, route: str | None = None) -> Proposal:
    """One proposal with its id, base hash, evidence, safety marks and rejection fingerprints.

    `scan_text` is the new text a person has not seen yet (a new body, an appended paragraph):
    scanning only that keeps an unchanged entry's old marks-free text from being re-flagged.
    """
    details = dict(details or {})
    fingerprints = sorted({content_fingerprint(m) for m in memories if not m.is_feedback})
    if fingerprints:
        details["fingerprints"] = fingerprints
    return Proposal(
        id=Proposal.make_id(op, target, after),
        op=op,
        target=target,
        slug=slug,
        base_sha256=sha256_text(before) if before is not None and op not in ("discard", "context") else None,
        before=before,
        after=after,
        rationale=rationale,
        evidence=list(dict.fromkeys(m.id for m in memories)),
        confidence=round(min(1.0, max(0.0, confidence)), 2),
        safety=sorted(set(safety_marks(memories, scan_text)) | set(extra_marks)),
        details=details,
        route=route,
    )


def discard_proposal(memory: Memory, reason: str, *, confidence: float = 0.9,
                     details: dict[str, Any] | None = None) -> Proposal:
    """A memory consumed without an LTM change; `reason` is shown to the reviewer and logged."""
    return make_proposal("discard", source_ref(memory.id), slug=None, before=None, after=None,
                         rationale=reason, memories=[memory], confidence=confidence,
                         details={"reason": reason, **(details or {})})


def create_proposal(*, path: str, meta: dict[str, Any], body: str, kind: str, rationale: str,
                    memories: Sequence[Memory], confidence: float, route: str | None = None,
                    details: dict[str, Any] | None = None) -> Proposal:
    """A new entry at `path` (see ltm.entry_path) with the given frontmatter and body."""
    after = render_entry(meta, body)
    return make_proposal("create", path, slug=str(meta["slug"]), before=None, after=after,
                         rationale=rationale, memories=memories, confidence=confidence,
                         scan_text=f"{meta.get('title', '')}\n{body}",
                         details={"kind": kind, **(details or {})}, route=route)



def split_paragraphs(text: str) -> list[str]:
    """Blank-line separated paragraphs; a fenced code block stays one paragraph, blank lines and all."""
    return list(_paragraphs(text))


# A dream splits each memory and entry text about three times (the lesson, the facts it brings,
# the values it states): split once, each caller gets its own list.
@lru_cache(maxsize=1 << 14)
def _paragraphs(text: str) -> tuple[str, ...]:
    paragraphs: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.strip("\n").splitlines():
        if line.strip().startswith(_FENCE):
            fenced = not fenced
        elif not fenced and not line.strip():
            if current:
                paragraphs.append("\n".join(current))
                current = []
            continue
        current.append(line.rstrip())
    if current:
        paragraphs.append("\n".join(current))
    return tuple(paragraphs)


def is_code(paragraph: str) -> bool:
    return paragraph.lstrip().startswith(_FENCE) or paragraph.startswith("    ")


def split_sentences(paragraph: str) -> list[str]:
    """The sentences of a prose paragraph. A line break after a sentence's end (a closing quote
    included) ends it too: a mined memory writes each statement on its own line ("…: “use
    format_day()”\nThe agent had just called: Edit …"), and so does one before a label or a count
    (_LINE_END_RE); a wrapped line goes on."""
    return list(_sentences(paragraph))


@lru_cache(maxsize=1 << 14)  # as _paragraphs: the same paragraphs are split again and again
def _sentences(paragraph: str) -> tuple[str, ...]:
    lines = _LINE_END_RE.split(paragraph) if "\n" in paragraph else (paragraph,)
    sentences: list[str] = []
    for line in lines:
        pieces = [s for s in _SENTENCE_RE.split(" ".join(line.split())) if s]
        if "`" in line:
            pieces = _whole_code_spans(pieces)
        if "“" in line:
            pieces = _whole_quotations(pieces)
        sentences += pieces
    return tuple(sentences)


def _whole_code_spans(pieces: list[str]) -> list[str]:
    """Sentences never end inside a code span: "then `COPY . .`." is one sentence, not "then
    `COPY ." and ".`."."""
    out: list[str] = []
    for piece in pieces:
        if out and out[-1].count("`") % 2:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _whole_quotations(pieces: list[str]) -> list[str]:
    """Nor inside a quotation: a mined memory quotes the person's or the agent's words whole
    ("said “Don't delete node_modules. Use yarn.”"), and half of it would read as the entry's own
    sentence — or, after "The agent had said: “…", as the agent's words left without their label."""
    out: list[str] = []
    for piece in pieces:
        if out and out[-1].count("“") > out[-1].count("”"):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def guidance_and_rest(title: str, content: str) -> tuple[str, list[str]]:
    """(one-line guidance from the first sentence(s), the remaining paragraphs of `content`).

    Content that opens with code has no sentence to lead with: the title is the guidance.
    """
    paragraphs = split_paragraphs(content)
    if not paragraphs or is_code(paragraphs[0]):
        return " ".join(title.split()), paragraphs
    sentences = split_sentences(paragraphs[0])
    taken = 1
    while taken < len(sentences) and len(" ".join(sentences[: taken + 1])) <= GUIDANCE_CHARS:
        taken += 1
    rest = " ".join(sentences[taken:])
    return " ".join(sentences[:taken]), ([rest] if rest else []) + paragraphs[1:]


def _known(piece: str, known: str) -> bool:
    """`piece` already said in the normalised text `known`: word for word, or nearly (a reworded
    sentence) when it brings no number and no negation that `known` lacks."""
    norm = normalise(piece)
    if f" {norm} " in known:
        return True
    words = set(norm.split())
    return (fuzz.partial_ratio(norm, known, processor=None) >= SENTENCE_KNOWN
            and numbers(piece) <= numbers(known)
            and (words & NEGATIONS) <= set(known.split()))


def new_paragraphs(memories: Sequence[Memory], body: str) -> list[str]:
    """What `memories` say that `body` does not: whole new code blocks, and of prose paragraphs
    only the sentences not already present."""
    known = f" {normalise(body)} "
    out: list[str] = []
    for memory in memories:
        for paragraph in split_paragraphs(memory.content):
            pieces = [paragraph] if is_code(paragraph) else split_sentences(paragraph)
            fresh = [p for p in pieces if normalise(p) and not _known(p, known)]
            if not fresh:
                continue
            text = paragraph if is_code(paragraph) else " ".join(fresh)
            out.append(text)
            known += f"{normalise(text)} "
    return out


def insert_after_guidance(body: str, paragraph: str) -> str:
    """Put `paragraph` right after the first paragraph (the guidance), where a reader sees it."""
    start = len(body) - len(body.lstrip("\n"))
    end = body.find("\n\n", start)
    if end < 0:
        return f"{body.rstrip()}\n\n{paragraph}\n"
    return f"{body[:end]}\n\n{paragraph}{body[end:]}"


@lru_cache(maxsize=1 << 12)  # an entry's correction tries each value on every line of its body
def _value_re(value: str) -> re.Pattern[str]:
    """`value` as a whole word: not inside a longer word or number ("80" is not in "8080")."""
    return re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w])")


def _names_any(line: str, changes: Sequence[tuple[str, str]]) -> bool:
    """Whether `line` names the old or the new value of one of `changes` (whole words)."""
    return any(value in line and _value_re(value).search(line)
               for change in changes for value in change)


def _replace_values(text: str, changes: Sequence[tuple[str, str]]) -> str:
    """Each old value of `changes` replaced by its new one, where `text` states it whole."""
    for old, new in changes:
        if old in text:  # the search below cannot match otherwise
            text = _value_re(old).sub(new, text)
    return text


def append_paragraphs(body: str, paragraphs: Sequence[str]) -> str:
    if not paragraphs:
        return body
    return body.rstrip() + "\n\n" + "\n\n".join(paragraphs) + "\n"


class EntryDraft:
    """Every change one dream makes to one live entry, turned into a single proposal."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.meta: dict[str, Any] = dict(entry.meta)
        self.body = entry.body
        self.memories: list[Memory] = []
        self._memory_ids: set[str] = set()
        self.rationale: list[str] = []
        self.details: dict[str, Any] = {}
        self.marks: set[str] = set()
        self.new_text: list[str] = []  # what this dream wrote into the entry, for the safety scan
        self.ops: set[str] = set()
        self.confidence: dict[str, float] = {}
        # Each confirm() call, replayed alone when a stronger op carries them: a person who
        # rejects that change keeps these as a reinforce of their own (review/decide.py).
        self.confirmed: list[tuple[list[Memory], datetime, str, float, bool]] = []

    def _note(self, op: str, memories: Iterable[Memory], rationale: str, confidence: float) -> None:
        self.ops.add(op)
        for memory in memories:
            if memory.id not in self._memory_ids:
                self._memory_ids.add(memory.id)
                self.memories.append(memory)
        self.rationale.append(rationale)
        self.confidence[op] = max(confidence, self.confidence.get(op, 0.0))

    def add_sources(self, memories: Sequence[Memory]) -> None:
        existing = [str(s) for s in self.meta.get("sources") or []]
        added = [source_ref(m.id) for m in memories if source_ref(m.id) not in existing]
        if added:
            self.meta["sources"] = existing + added
            self.details["added_sources"] = self.details.get("added_sources", []) + added

    def merge_facts(self, memories: Sequence[Memory], paragraphs: Sequence[str], now: datetime,
                    rationale: str, confidence: float, *, asks_human: bool = False) -> None:
        """New facts from `memories`: append `paragraphs`, cite the memories as sources.
        `asks_human` when the entry is pinned: only a person may change its text."""
        self.body = append_paragraphs(self.body, paragraphs)
        self.new_text.extend(paragraphs)
        self.add_sources(memories)
        self.meta["updated_at"] = now
        if asks_human:
            self.details["asks_human"] = True
            self.marks.add(PINNED_MARK)
        self._note("update", memories, rationale, confidence)

    def confirm(self, memories: Sequence[Memory], when: datetime, rationale: str, confidence: float,
                *, cite: bool = False) -> None:
        """Each memory is one confirmation; `cite` also lists them as sources (repeats do)."""
        self.meta["confirmations"] = frontmatter_int(self.meta.get("confirmations")) + len(memories)
        self.meta["last_confirmed"] = when
        self.details["confirmations"] = self.details.get("confirmations", 0) + len(memories)
        if cite:
            self.add_sources(memories)
        self._note("reinforce", memories, rationale, confidence)
        self.confirmed.append((list(memories), when, rationale, confidence, cite))

    def correct(self, memories: Sequence[Memory], changes: Sequence[tuple[str, str]], now: datetime,
                rationale: str, confidence: float, *, asks_human: bool = False) -> None:
        """Change the entry's facts in place: each (old, new) value replaced where the entry states
        it (whole words only, its title too), the memories cited as sources. Flags in the same dream are then
        answered by the correction (see `flag`, `retire`), and so are earlier ones whose caveat (or
        hand-written "> Flagged …" note) names a changed value: it is relabelled answered and the
        flag count drops, so it neither stays on the bundle line nor corroborates a later flag."""
        lines = self.body.split("\n")
        answered = 0
        for number, line in enumerate(lines):
            if line.lstrip().startswith(CAVEAT_PREFIX) and _names_any(line, changes):
                # The flag behind this caveat was about the value now changed: answered, so it
                # leaves the bundle line and counts against the entry no more; its words stay.
                line = line.replace(CAVEAT_PREFIX, ANSWERED_PREFIX, 1).replace(
                    "): ", f", corrected {now:%Y-%m-%d}): ", 1)
                answered += 1
            elif line.lstrip().startswith(FLAG_NOTE) and _names_any(line, changes):
                # A flag noted by hand ("> Flagged 2026-11-21 by codex: …"), answered alike.
                line = line.replace(FLAG_NOTE, f"{ANSWERED_PREFIX}corrected {now:%Y-%m-%d}): Flagged ", 1)
                answered += 1
            elif line.lstrip().startswith(">"):
                continue  # a quoted flag or caveat says what someone saw then: never rewritten
            else:
                line = _replace_values(line, changes)
            lines[number] = line
        self.new_text.extend(new for _old, new in changes)
        self.body = "\n".join(lines)
        # "The API listens on 8080" over a body saying 9090 misleads.
        title = _replace_values(str(self.meta.get("title") or ""), changes)
        if title != str(self.meta.get("title") or ""):
            self.meta["title"] = title
        self.add_sources(memories)
        self.meta["updated_at"] = now
        self.details["corrected"] = [{"from": old, "to": new} for old, new in changes]
        if answered:
            left = frontmatter_int(self.meta.get("flags")) - answered
            if left > 0:
                self.meta["flags"] = left
            else:
                self.meta.pop("flags", None)
            self.details["answered_flags"] = self.details.get("answered_flags", 0) + answered
            rationale += f"; answers {counted(answered, 'earlier flag')}"
        if asks_human:
            self.details["asks_human"] = True
            self.marks.add(PINNED_MARK)
        self._note("correct", memories, rationale, confidence)

    def promote(self, memories: Sequence[Memory], when: datetime, now: datetime, rationale: str,
                confidence: float, *, to_path: str | None) -> None:
        """A once-seen lesson seen again: route `bundle` (into AGENTS.md), a topic (moved to
        `to_path` when it was filed as an incident), each memory one confirmation."""
        self.meta["route"] = "bundle"
        if to_path is not None:
            self.meta["type"] = "topic"
            self.details["promote_path"] = to_path
        self.meta["updated_at"] = now
        self.details["promoted_from"] = self.entry.kind
        self.confirm(memories, when, rationale, confidence, cite=True)
        self.ops.add("promote")
        self.confidence["promote"] = max(confidence, self.confidence.get("promote", 0.0))

    @property
    def corrected(self) -> bool:
        return "correct" in self.ops

    def flag(self, memories: Sequence[Memory], caveats: Sequence[str], now: datetime, rationale: str,
             confidence: float, *, asks_human: bool = False) -> None:
        """Record flags: counter, last_flagged and visible caveat lines under the guidance (none
        when this dream corrects the fact they are about: the correction answers them)."""
        if self.corrected:  # the flags are evidence of the correction, not marks against its text
            self.details["answered_flags"] = self.details.get("answered_flags", 0) + len(memories)
            self._note("correct", memories, f"{rationale}; answered by the correction", confidence)
            return
        self.meta["flags"] = frontmatter_int(self.meta.get("flags")) + len(memories)
        # When the newest flag came, not when the dream ran (the flags may wait days for it).
        self.meta["last_flagged"] = max((m.submitted_at for m in memories), default=now)
        self.meta["updated_at"] = now
        for caveat in reversed(caveats):
            self.body = insert_after_guidance(self.body, caveat)
        self.new_text.extend(caveats)
        self.details["flags"] = self.details.get("flags", 0) + len(memories)
        if asks_human:
            self.details["asks_human"] = True
            self.marks.add(PINNED_MARK)
        self._note("weaken", memories, rationale, confidence)

    def retire(self, memories: Sequence[Memory], now: datetime, reason: str,
               superseded_by: str | None, confidence: float) -> None:
        """Archive the entry; the after-text is what will stand at archive/<path>. When this dream
        corrects the entry's fact instead, the flags are recorded and answered by the correction."""
        flagged = sum(1 for m in memories if m.type == FEEDBACK_FLAGGED)
        if self.corrected:  # as in `flag`: the correction answers them
            self.details["answered_flags"] = self.details.get("answered_flags", 0) + flagged
            self._note("correct", memories, f"{reason}; answered by the correction", confidence)
            return
        self.meta["flags"] = frontmatter_int(self.meta.get("flags")) + flagged
        self.meta["retired_at"] = now
        self.meta["retired_reason"] = reason
        if superseded_by:
            self.meta["superseded_by"] = superseded_by
        self.details.update(archive_path=archive_path(self.entry.path), reason=reason,
                            superseded_by=superseded_by)
        self._note("archive", memories, reason, confidence)

    @property
    def op(self) -> str:
        """The proposal's op; a correction is an `update` (of the fact, in place)."""
        op = next(op for op in OP_PRECEDENCE if op in self.ops)
        return "update" if op == "correct" else op

    def to_proposal(self) -> Proposal:
        op = self.op
        strongest = next(op for op in OP_PRECEDENCE if op in self.ops)
        after = render_entry(self.meta, self.body, original=self.entry)
        route = "bundle" if op == "promote" else self.entry.route
        details = self.details
        if op != "reinforce" and self.confirmed:
            details = {**details, "reinforce_alone": self._reinforce_alone()}
        return make_proposal(op, self.entry.path, slug=self.entry.slug, before=self.entry.raw,
                             after=after, rationale="; ".join(self.rationale),
                             memories=self.memories, confidence=self.confidence[strongest],
                             scan_text="\n".join(self.new_text), extra_marks=self.marks,
                             details=details, route=route)

    def _reinforce_alone(self) -> dict[str, Any]:
        """The confirmations a stronger op carries, as the reinforce they would be alone
        (docs/changeset-semantics.md, "Rejecting a folded change")."""
        alone = EntryDraft(self.entry)
        for memories, when, rationale, confidence, cite in self.confirmed:
            alone.confirm(memories, when, rationale, confidence, cite=cite)
        proposal = alone.to_proposal()
        return {"id": proposal.id, "after": proposal.after, "rationale": proposal.rationale,
                "evidence": proposal.evidence, "confidence": proposal.confidence,
                "safety": proposal.safety, "details": proposal.details}


class Drafts:
    """The drafts of one dream, by entry path, finalised in path order (deterministic output)."""

    def __init__(self) -> None:
        self._drafts: dict[str, EntryDraft] = {}

    def __call__(self, entry: Entry) -> EntryDraft:
        draft = self._drafts.get(entry.path)
        if draft is None:
            draft = self._drafts[entry.path] = EntryDraft(entry)
        return draft

    def proposals(self) -> list[Proposal]:
        return [self._drafts[path].to_proposal() for path in sorted(self._drafts)]
