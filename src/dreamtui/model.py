"""Plain data shared by every layer: memories, entries, proposals, changesets.

Nothing here does I/O; stores build these objects and engines, the commit and the TUI read them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from difflib import SequenceMatcher
from typing import Any, Literal

from dreamtui.vocabulary import Decision, Op, Route, words

FEEDBACK_CONFIRMED = "context_confirmed"
FEEDBACK_FLAGGED = "context_flagged"
FEEDBACK_TYPES: tuple[str, ...] = (FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED)
DEFAULT_MEMORY_TYPES: tuple[str, ...] = ("observation", "failure", "code_snippet")
# The bundle proposal's target: how reviews, LOG.md lines and the engine guard name AGENTS.md.
CONTEXT_TARGET = "context/AGENTS.md"

MemoryState = Literal["pending", "claimed", "consumed"]
MEMORY_STATES: tuple[str, ...] = ("pending", "claimed", "consumed")

OPS: tuple[str, ...] = words(Op)

DECISIONS: tuple[str, ...] = words(Decision)

ROUTES: tuple[str, ...] = words(Route)
# The routes an entry's frontmatter keeps; `decisions` and `person` are delivered at commit.
ENTRY_ROUTES: tuple[str, ...] = (Route.MEMORY.value, Route.BUNDLE.value, Route.SKILL.value)

ChangesetStatus = Literal["open", "committed", "abandoned"]


def utcnow() -> datetime:
    """The system clock; code that has a Workspace asks `workspace.clock()` instead."""
    return datetime.now(UTC)


def iso_z(moment: datetime) -> str:
    """The one timestamp format of files we write (LOG.md, frontmatter, changesets)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def frontmatter_time(value: Any) -> float:
    """Seconds since the epoch for a frontmatter time; unreadable or absent counts as oldest."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return 0.0
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp()
    return 0.0


def frontmatter_int(value: Any, default: int = 0) -> int:
    """A counter from hand-editable text (confirmations, flags, occurrences); unreadable or absent
    counts as `default`, so one bad value never stops a dream or a listing."""
    try:
        return int(value or default)
    except (TypeError, ValueError, OverflowError):  # OverflowError: `confirmations: .inf`
        return default


def is_heading(line: str) -> bool:
    """A markdown ATX heading line (`# Title`, `## Notes` …)."""
    stripped = line.strip()
    marks = len(stripped) - len(stripped.lstrip("#"))
    return 1 <= marks <= 6 and (len(stripped) == marks or stripped[marks] in " \t")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def diff_stat(before: str | None, after: str | None) -> tuple[int, int]:
    """(added, removed) lines of `before` → `after` as a line diff counts them (None is empty):
    the one count every place that states a change's size uses, so a list's `AGENTS.md (+3 −1)`
    and a rationale's "+3 −1 lines" agree with the diff shown beside them."""
    a, b = (before or "").splitlines(), (after or "").splitlines()
    added = removed = 0
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed, added = removed + i2 - i1, added + j2 - j1
    return added, removed


@dataclass(frozen=True)
class NewMemory:
    """A memory as submitted, before the store gives it an id and a timestamp."""

    type: str
    title: str
    content: str
    agent_id: str = "cli"
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Memory:
    """One row of `stm_memories` (docs/architecture.md §3.2)."""

    id: str
    tenant_id: str
    agent_id: str
    type: str
    title: str
    content: str
    tags: tuple[str, ...]
    metadata: dict[str, Any]
    submitted_at: datetime
    consumed_at: datetime | None = None
    consumed_by_lease: str | None = None
    idempotency_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> MemoryState:
        if self.consumed_at is not None:
            return "consumed"
        if self.consumed_by_lease is not None:
            return "claimed"
        return "pending"

    @property
    def is_feedback(self) -> bool:
        return self.type in FEEDBACK_TYPES

    @property
    def safety(self) -> tuple[str, ...]:
        """Safety marks recorded at intake (see safety.scan), kept in `extra`."""
        return tuple(self.extra.get("safety", ()))


# A feedback memory's metadata: what a confirmation (FEEDBACK_CONFIRMED) or a flag
# (FEEDBACK_FLAGGED) is about. Read by the policy, the TUI and the review layer alike.


def confirmation_target(memory: Memory) -> str:
    """The slug a confirmation confirms ("" when it names none)."""
    return str(memory.metadata.get("target") or "").strip()


def flag_targets(memory: Memory) -> list[str]:
    """The slugs a flag names: one string or a list, blanks dropped."""
    targets = memory.metadata.get("targets") or []
    if isinstance(targets, str):
        targets = [targets]
    return [str(t).strip() for t in targets if str(t).strip()]


def flag_quote(memory: Memory) -> str:
    """The entry text a flag quotes ("" when it quotes none)."""
    return str(memory.metadata.get("quote") or "").strip()


def memory_session(memory: Memory) -> str | None:
    """The agent session a memory came from: `metadata.session_id` (MCP, the Claude Code miner)
    or `metadata.session` (hand-written seeds and older clients); None when it names none."""
    value = memory.metadata.get("session_id") or memory.metadata.get("session")
    return str(value) if value else None


# A weakened entry's visible caveat lines start with this (dream/policy.caveat writes them;
# the bundle shows the newest beside the guidance).
CAVEAT_PREFIX = "> Caveat ("


@dataclass(frozen=True)
class Entry:
    """One LTM markdown file. `meta` keeps every frontmatter key in file order."""

    path: str  # relative to the memory root, posix separators; archived entries start "archive/"
    meta: dict[str, Any]
    body: str
    raw: str  # the exact text read, so an untouched entry is rewritten byte for byte
    # What the codec read from elsewhere, as Dreamer reads such files, because the frontmatter
    # has none to give: "slug" from the file name (or a Mixed_Case slug kebab-cased), "title"
    # from the body's leading `# heading` or the file name. Never written back into the file.
    derived: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def slug(self) -> str:
        return self.derived.get("slug") or str(self.meta.get("slug", ""))

    @property
    def title(self) -> str:
        return self.derived.get("title") or str(self.meta.get("title", self.slug))

    @property
    def kind(self) -> str:
        return str(self.meta.get("type", "topic"))

    @property
    def tags(self) -> tuple[str, ...]:
        tags = self.meta.get("tags") or ()
        return tuple(str(t) for t in tags) if isinstance(tags, (list, tuple)) else (str(tags),)

    @property
    def pinned(self) -> bool:
        return self.meta.get("importance") == "pinned"

    @property
    def archived(self) -> bool:
        return self.path.startswith("archive/")

    @property
    def confirmations(self) -> int:
        return frontmatter_int(self.meta.get("confirmations"))

    @property
    def flags(self) -> int:
        return frontmatter_int(self.meta.get("flags"))

    @property
    def sources(self) -> tuple[str, ...]:
        sources = self.meta.get("sources") or ()
        return tuple(str(s) for s in sources) if isinstance(sources, (list, tuple)) else ()

    @property
    def guidance(self) -> str:
        """The body's first paragraph that is not a heading: the line the context bundle carries.

        Entries in Dreamer's shape (and what a model writes) open with `# Title`: that is the
        title, never the guidance.
        """
        paragraph: list[str] = []
        for line in self.body.strip().splitlines():
            heading = is_heading(line)
            if not line.strip() or heading:
                if paragraph:
                    break
                continue
            paragraph.append(line.strip())
        return " ".join(paragraph)

    @property
    def route(self) -> str:
        """Where the entry's lesson goes (frontmatter `route`: memory, bundle or skill; see
        dream/routes.py). Absent or unreadable is `bundle`: entries written before routes existed
        were all in AGENTS.md and stay there."""
        value = str(self.meta.get("route") or "")
        return value if value in ENTRY_ROUTES else Route.BUNDLE.value

    @property
    def caveats(self) -> list[str]:
        """The body's caveat lines (CAVEAT_PREFIX …), in file order, without the leading "> "."""
        return [line.strip()[2:] for line in self.body.splitlines()
                if line.strip().startswith(CAVEAT_PREFIX)]

    @property
    def sha256(self) -> str:
        return sha256_text(self.raw)


@dataclass
class Proposal:
    """One reviewable change (docs/architecture.md §3.4). Mutable only in `decision`."""

    id: str
    op: str
    target: str  # path relative to the memory root, or "context/AGENTS.md" for op=context
    slug: str | None
    base_sha256: str | None
    before: str | None
    after: str | None
    rationale: str
    evidence: list[str] = field(default_factory=list)
    confidence: float = 0.5
    safety: list[str] = field(default_factory=list)
    decision: str | None = None
    # op-specific facts the commit and the log need (e.g. confirmations delta, superseded_by)
    details: dict[str, Any] = field(default_factory=dict)
    # Where the lesson goes (vocabulary.Route); None for proposals that carry no lesson
    # (discard, the bundle itself) and for changesets written before routes existed.
    route: str | None = None

    @staticmethod
    def make_id(op: str, target: str, after: str | None) -> str:
        """Stable id: the same op on the same target with the same text is the same proposal."""
        digest = hashlib.sha256(f"{op}\0{target}\0{after or ''}".encode()).hexdigest()
        return f"p-{digest[:12]}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "op": self.op,
            "target": self.target,
            "slug": self.slug,
            "base_sha256": self.base_sha256,
            "before": self.before,
            "after": self.after,
            "rationale": self.rationale,
            "evidence": list(self.evidence),
            "confidence": self.confidence,
            "safety": list(self.safety),
            "decision": self.decision,
            "details": dict(self.details),
            **({"route": self.route} if self.route is not None else {}),
        }


@dataclass
class Refusal:
    """Something an engine proposed that validation or policy refused, kept visible."""

    op: str
    target: str
    reason: str
    raw: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "target": self.target, "reason": self.reason, "raw": self.raw}


def engine_label(engine: str, fallback: dict[str, str] | None, *, with_reason: bool = True) -> str:
    """`heuristic (fallback: anthropic unreachable: cannot connect …)`: the engine that made a
    dream and, when it stood in for another, which one and why (Changeset.fallback). Without
    the reason for a one-line header that must keep room for the counts."""
    if fallback is None:
        return engine
    reason = " ".join(fallback["reason"].split())  # one line: it is also a git trailer's value
    because = f": {reason}" if with_reason else ""
    return f"{engine} (fallback: {fallback['from']} unreachable{because})"


@dataclass
class Changeset:
    """A dream's durable record (docs/architecture.md §3.4).

    `proposals` are the changes to LTM entries (and the memories they consume); `bundle` is the
    AGENTS.md diff that follows from them, recomputed as they are decided. On disk the bundle
    proposal is the last line of the one `proposals` list.
    """

    id: str
    engine: str
    created_at: str
    status: str = "open"
    lease_id: str | None = None
    batch: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    proposals: list[Proposal] = field(default_factory=list)
    bundle: Proposal | None = None
    refused: list[Refusal] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)
    complete: bool = False  # false while the engine is still producing, or when it failed

    @property
    def reviewable(self) -> list[Proposal]:
        """Everything a person decides, in review order: the entry proposals, then the bundle."""
        return [*self.proposals, self.bundle] if self.bundle is not None else list(self.proposals)

    def proposal(self, proposal_id: str) -> Proposal:
        for proposal in self.reviewable:
            if proposal.id == proposal_id:
                return proposal
        raise KeyError(proposal_id)

    @property
    def undecided(self) -> int:
        return sum(1 for p in self.reviewable if p.decision in (None, "defer"))

    @property
    def fallback(self) -> dict[str, str] | None:
        """`{"from": the engine asked for, "reason": why it could not answer}` when `engine` stood
        in for it (`dream.fallback_to_heuristic`); None when the engine asked for made the dream."""
        value = self.stats.get("fallback")
        return value if isinstance(value, dict) else None  # its shape is checked when loaded

    @property
    def engine_label(self) -> str:
        return engine_label(self.engine, self.fallback)

    def note_fallback(self) -> None:
        """Name the engine that made the dream when the engine's stats (`Done`: `fallback`, the
        stand-in's name, and `fallback_reason`) say another stood in: a heuristic dream must not
        read as the model's. Idempotent; also lifts the record out of files written before it
        was kept at the top."""
        engine_stats = self.stats.get("engine")
        if self.fallback is not None or not isinstance(engine_stats, dict):
            return
        made_by = engine_stats.get("fallback")
        if not isinstance(made_by, str) or not made_by:
            return
        reason = str(engine_stats.get("fallback_reason") or "no reason recorded")
        # The model's message starts with the engine's name, which the label already says.
        self.stats["fallback"] = {"from": self.engine, "reason": reason.removeprefix(f"{self.engine}: ")}
        self.engine = made_by

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "engine": self.engine,
            "created_at": self.created_at,
            "status": self.status,
            "complete": self.complete,
            "lease_id": self.lease_id,
            "batch": list(self.batch),
            "stats": dict(self.stats),
            "usage": dict(self.usage),
            "left_out": list(self.left_out),
            "proposals": [p.to_dict() for p in self.reviewable],
            "refused": [r.to_dict() for r in self.refused],
        }
