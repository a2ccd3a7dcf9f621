"""The words of a review, once: what a proposal does (Op), what a person decided (Decision), what
a commit did (Effect), and what a person did by hand (HumanOp).

Each is a `StrEnum`, so a member *is* its string: changesets, LOG.md and JSON keep the plain words,
and code compares with either. The past tense, the LOG.md word and the glyph of each live here
and nowhere else.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Effect(StrEnum):
    """What a commit did to one proposal's target; the order is the order of summaries."""

    CREATED = "created"
    UPDATED = "updated"
    PROMOTED = "promoted"  # a once-seen lesson seen again: into AGENTS.md (an incident becomes a topic)
    REINFORCED = "reinforced"
    WEAKENED = "weakened"
    ARCHIVED = "archived"
    RESTORED = "restored"
    PINNED = "pinned"
    NOTED = "noted"  # a lesson routed `person`: a question for the human, written nowhere
    DISCARDED = "discarded"
    REJECTED = "rejected"
    DEFERRED = "deferred"
    UNDECIDED = "undecided"
    HELD_BACK = "held_back"

    @property
    def log_op(self) -> str:
        """The verb LOG.md records for this effect ("created" → "create")."""
        return _LOG_OP[self]

    @property
    def words(self) -> str:
        """As a person reads it in a summary ("held back")."""
        return "noted for a person" if self is Effect.NOTED else self.value.replace("_", " ")


# Only the effects a dream's commit writes to LOG.md; a person's own change logs its HumanOp.
_LOG_OP = {Effect.CREATED: "create", Effect.UPDATED: "update", Effect.PROMOTED: "promote",
           Effect.REINFORCED: "reinforce",
           Effect.WEAKENED: "weaken", Effect.ARCHIVED: "archive", Effect.PINNED: "pin",
           Effect.DISCARDED: "discard", Effect.REJECTED: "reject", Effect.NOTED: "question"}


class Op(StrEnum):
    """What a proposal does. `context` regenerates the bundle (AGENTS.md)."""

    CREATE = "create"
    UPDATE = "update"
    PROMOTE = "promote"  # route memory → bundle; an incident also moves to topics/ (details.promote_path)
    REINFORCE = "reinforce"
    WEAKEN = "weaken"
    ARCHIVE = "archive"
    DISCARD = "discard"
    CONTEXT = "context"

    @property
    def accepted(self) -> Effect:
        """What accepting a proposal of this op does to its target (not asked of `context`,
        whose effect is the bundle's rewrite)."""
        return _ACCEPTED[self]


_ACCEPTED = {Op.CREATE: Effect.CREATED, Op.UPDATE: Effect.UPDATED, Op.PROMOTE: Effect.PROMOTED,
             Op.REINFORCE: Effect.REINFORCED,
             Op.WEAKEN: Effect.WEAKENED, Op.ARCHIVE: Effect.ARCHIVED, Op.DISCARD: Effect.DISCARDED}


class Route(StrEnum):
    """Where a lesson goes once accepted (issue 13): the dream proposes one, a person may change it.

    `memory` keeps it in LTM only (searchable, not in AGENTS.md); `bundle` puts it in AGENTS.md;
    `skill` makes it a context/skills/<name>/SKILL.md; `decisions` appends it to the project's
    DECISIONS.md; `person` is a question for the human, never written into agent context."""

    MEMORY = "memory"
    BUNDLE = "bundle"
    SKILL = "skill"
    DECISIONS = "decisions"
    PERSON = "person"


class Decision(StrEnum):
    """What a person (or the headless policy) decided about a proposal."""

    ACCEPT = "accept"
    PIN = "pin"
    ARCHIVE = "archive"
    REJECT = "reject"
    DEFER = "defer"

    @property
    def past(self) -> str:
        """"accepted", "pinned", … — how the review and its messages say it."""
        return _PAST[self]

    @property
    def glyph(self) -> str:
        """The one-character mark lists show, in the workbench and `review show` alike."""
        return _GLYPH[self]

    @property
    def applies(self) -> bool:
        """Whether the decision changes LTM (or writes the bundle) when committed."""
        return self in (Decision.ACCEPT, Decision.PIN, Decision.ARCHIVE)


_PAST = {Decision.ACCEPT: "accepted", Decision.PIN: "pinned", Decision.ARCHIVE: "archived",
         Decision.REJECT: "rejected", Decision.DEFER: "deferred"}
_GLYPH = {Decision.ACCEPT: "✓", Decision.PIN: "◆", Decision.ARCHIVE: "▣", Decision.REJECT: "✗",
          Decision.DEFER: "↷"}
UNDECIDED_GLYPH = "·"


def decision_glyph(decision: str | None) -> str:
    """The glyph of a proposal's decision, `·` while it is undecided."""
    return Decision(decision).glyph if decision else UNDECIDED_GLYPH


class HumanOp(StrEnum):
    """A person's own change to one entry, outside a dream (Memory view, `dreamtui entry`)."""

    EDIT = "edit"
    WEAKEN = "weaken"  # an edit that adds a caveat: its own op, so LOG.md says what the person did
    PIN = "pin"
    UNPIN = "unpin"
    ARCHIVE = "archive"
    RESTORE = "restore"  # an archived entry back to its live path

    @property
    def effect(self) -> Effect:
        return {HumanOp.ARCHIVE: Effect.ARCHIVED, HumanOp.PIN: Effect.PINNED,
                HumanOp.RESTORE: Effect.RESTORED}.get(self, Effect.UPDATED)


def words(enum: type[StrEnum]) -> tuple[str, ...]:
    """Every word of one vocabulary, in order: for choices and 'expected one of' messages."""
    return tuple(member.value for member in enum)


def counted(n: int, word: str, plural: str | None = None) -> str:
    """"1 flag", "2 flags", "3 memories" (with `plural` for words that do not take an s)."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def clip(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters, cut at a word boundary with "…" (a word
    longer than the whole limit is cut inside, still with "…")."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    head = line[: limit - 1]
    whole = line[limit - 1] == " " or " " not in head  # head ends on a word, or is one word
    cut = head if whole else head.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


# A character of a script written without spaces between words (kana, CJK ideographs, Hangul):
# one such character says as much as a word, so lengths and word counts are read by character.
WIDE_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
