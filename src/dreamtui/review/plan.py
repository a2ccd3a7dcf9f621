"""Planning a commit: what each decided proposal does to the workspace, without doing it.

Shared by the commit (which journals the plan), the review screens (which preview it) and the
dream (whose `context` proposal is the bundle that follows from the others). It follows the
decision table of docs/changeset-semantics.md; nothing here writes a file.

Rules worth knowing when reading the code:
- A proposal whose target changed since the dream read it (base_sha256 differs) is a conflict:
  it is held back, never applied over the person's edit.
- Memories: a batch memory is consumed when every proposal resting on it is finished (applied,
  or rejected unless the rejected proposal is a discard); it goes back to the queue when any of
  them stays open (undecided, deferred, held back) — a deferred idea must be able to come back.
- Guard rails (`violations`) depend on who decided: `auto=True` is the headless auto-apply
  policy, whose removals count against `ltm.max_autonomous_removals`; human decisions are not
  autonomous and have no removal budget. Pinned entries may only be changed by a human
  deciding a proposal that asks the human (`details.asks_human`), when `ltm.enforce_pinned`.
- `refusals` are reasons the commit must not happen whatever the guard setting: a bundle marker
  left pointing at no live entry, or unreviewed suspicious text entering the bundle.
- LOG.md gets one line per decision taken (accept, pin, archive, reject, and the bundle's);
  deferred and undecided proposals leave none — nothing about them was decided yet.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from dreamtui.deliver.decisions import decision_section, plan_decisions
from dreamtui.deliver.skills import plan_skills
from dreamtui.deliver.targets import Delivery, delivers_skills, plan_deliveries
from dreamtui.entry.codec import parse_entry, render_entry
from dreamtui.entry.edits import retire_text, unretired_text, with_meta
from dreamtui.errors import EntryError, InputError
from dreamtui.model import CONTEXT_TARGET, Changeset, Entry, Proposal, diff_stat, sha256_text
from dreamtui.review.bundle import dangling_markers, read_bundle, render_bundle
from dreamtui.safety.marks import scan
from dreamtui.safety.paths import UnsafePathError, resolve_inside
from dreamtui.store.ltm import LTMSnapshot, archive_path, log_line, render_index
from dreamtui.vocabulary import Decision, Effect, HumanOp, Op, Route, words
from dreamtui.vocabulary import counted as count_of
from dreamtui.workspace.layout import Workspace


@dataclass(frozen=True)
class Conflict:
    proposal_id: str
    op: str
    target: str
    reason: str


@dataclass(frozen=True)
class Violation:
    proposal_id: str | None
    rule: str  # "removals" | "pinned"
    message: str


@dataclass
class Plan:
    """What a commit of the changeset's decisions would do. Paths are relative to the memory root."""

    writes: dict[str, str] = field(default_factory=dict)  # entry path → new text
    moves: dict[str, str] = field(default_factory=dict)  # live path → archive path (text in writes)
    index: str | None = None  # INDEX.md, when it changes
    bundle: str | None = None  # AGENTS.md, when the context proposal is accepted and it changes
    bundle_followed: bool = False  # an undecided bundle proposal taken as accepted (bundle_decision)
    bundle_stale: str | None = None  # why AGENTS.md is left behind the entries this commit changes
    bundle_left_out: list[str] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    consume: list[str] = field(default_factory=list)
    release: list[str] = field(default_factory=list)  # no proposal of theirs stays open
    open_memories: list[str] = field(default_factory=list)  # some proposal of theirs stays open
    rejections: list[tuple[str, str, str]] = field(default_factory=list)  # (fingerprint, id, dream)
    conflicts: list[Conflict] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)  # proposal id → applied|rejected|open|held
    entries_after: dict[str, Entry] = field(default_factory=dict)
    # Files outside the memory root (absolute paths): the project's delivery targets, its
    # DECISIONS.md and the skills, each with the SHA-256 the plan read (None: absent), §4.2.
    deliveries: dict[Path, str] = field(default_factory=dict)
    delivery_removals: list[Path] = field(default_factory=list)
    delivery_bases: dict[Path, str | None] = field(default_factory=dict)

    def deliver(self, delivery: Delivery, proposal_id: str) -> None:
        """Take one planned project file: written, or held back as a conflict (never written over)."""
        if delivery.problem is not None:
            self.conflicts.append(Conflict(proposal_id, "deliver", delivery.name, delivery.problem))
        elif delivery.after is not None:
            self.deliveries[delivery.path] = delivery.after
            self.delivery_bases[delivery.path] = delivery.base


def edited_by_person(proposal: Proposal) -> bool:
    """Whether a person replaced the engine's text before accepting (review/decide.edit_proposal)."""
    return bool(proposal.details.get("edited_by_person"))


def rejection_fingerprints(proposal: Proposal) -> list[str]:
    """What a rejection is remembered by: the stable proposal id (op, target and text), and the
    content fingerprints of its memories (details.fingerprints) so the same lesson resubmitted
    later is recognised too."""
    return [proposal.id, *[str(f) for f in proposal.details.get("fingerprints") or []]]


# -- simulating decisions -----------------------------------------------------------------------


class _Held(Exception):
    """A proposal that cannot be applied now; the message is the conflict's reason."""


@dataclass
class _State:
    """The memory root as the plan so far leaves it."""

    workspace: Workspace
    snapshot: LTMSnapshot
    now: datetime
    entries: dict[str, Entry]
    touched: set[str] = field(default_factory=set)
    decided: list[Entry] = field(default_factory=list)  # entries routed `decisions`, in order
    writes: dict[str, str] = field(default_factory=dict)
    moves: dict[str, str] = field(default_factory=dict)
    # live slug → path, kept in step with `entries` (a scan per create would be quadratic)
    owners: dict[str, str] = field(default_factory=dict)
    folders: dict[str, Path] = field(default_factory=dict)  # checked folder → resolved path

    def __post_init__(self) -> None:
        for entry in self.entries.values():
            if not entry.archived:
                self.owners.setdefault(entry.slug, entry.path)

    def file(self, path: str) -> Path:
        """`path` inside the memory root, or UnsafePathError.

        Each folder is resolved (symlinks included) once: resolving every file of a 1,000-entry
        commit separately costs more than the rest of the plan.
        """
        folder, _, name = path.rpartition("/")
        if name in ("", ".", "..") or "\\" in name or not name.isprintable():
            raise UnsafePathError(f"path {path!r} does not name a file")
        base = self.folders.get(folder)
        if base is None:
            root = self.workspace.memory_root
            base = self.folders[folder] = resolve_inside(root, folder) if folder else root.resolve()
        return base / name

    def current_text(self, path: str) -> str | None:
        """The file as it is on disk now (parsed or not), None when absent."""
        entry = self.snapshot.entries.get(path)
        if entry is not None:
            return entry.raw
        try:
            return self.file(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def exists(self, path: str) -> bool:
        return path in self.entries or os.path.lexists(self.file(path))

    def slug_owner(self, slug: str) -> str | None:
        return self.owners.get(slug)

    def put(self, path: str, text: str, route: str | None = None) -> None:
        """`text` at `path`; with `route`, its frontmatter says that route (set only when the
        text does not already resolve to it: an entry without the key counts as `bundle`)."""
        try:
            entry = parse_entry(text, path)
            if route is not None and entry.route != route:
                text = with_meta(text, path, {"route": route})
                entry = parse_entry(text, path)
        except EntryError as exc:
            raise _Held(f"the proposed text is not a valid entry: {exc}") from None
        self._forget(path)
        self.writes[path] = text
        self.entries[path] = entry
        self.touched.add(path)
        if not entry.archived:
            self.owners.setdefault(entry.slug, path)

    def move(self, source: str, target: str, text: str) -> None:
        self.put(target, text)
        self.moves[source] = target
        self._forget(source)
        self.entries.pop(source, None)
        self.touched.add(source)

    def _forget(self, path: str) -> None:
        old = self.entries.get(path)
        if old is not None and self.owners.get(old.slug) == path:
            del self.owners[old.slug]


def _safe_path(state: _State, path: str, what: str) -> str:
    try:
        state.file(path)
    except UnsafePathError as exc:
        raise _Held(f"{what}: {exc}") from None
    return path


def _check_base(state: _State, proposal: Proposal) -> str:
    """The target's current text, when it is still what the dream read; else the conflict."""
    target = _safe_path(state, proposal.target, "target")
    if target in state.touched:
        raise _Held("another proposal of this commit already changes this entry")
    current = state.current_text(target)
    if current is None:
        raise _Held(f"{target} no longer exists (moved or removed since the dream)")
    expected = proposal.base_sha256 or (sha256_text(proposal.before) if proposal.before else None)
    if expected is not None and sha256_text(current) != expected:
        raise _Held(f"{target} was changed by hand since the dream read it; not overwritten")
    return current


def _free_archive_slot(state: _State, path: str) -> str:
    dest = _safe_path(state, path, "archive path")
    if not dest.startswith("archive/"):
        raise _Held(f"archive path {dest} must lie under archive/")
    if dest in state.touched or state.exists(dest):
        raise _Held(f"{dest} already exists; an archived entry is never overwritten")
    return dest


def _apply_create(state: _State, p: Proposal, decision: str) -> str:
    target = _safe_path(state, p.target, "target")
    if p.after is None:
        raise _Held("a create proposal without text")
    if target in state.touched or state.exists(target):
        raise _Held(f"{target} already exists; a new entry never replaces a file")
    entry = _parse_or_hold(p.after, target)
    owner = state.slug_owner(entry.slug)
    if owner is not None and decision != "archive":
        raise _Held(f"slug {entry.slug!r} is already used by {owner}")
    if decision == "archive":
        dest = _free_archive_slot(state, archive_path(target))
        state.put(dest, retire_text(p.after, dest, state.now, "filed directly under archive/ at review",
                                    None))
        return "archived"
    text = with_meta(p.after, target, {"importance": "pinned"}) if decision == "pin" else p.after
    state.put(target, text, _entry_route(p))
    return "pinned" if decision == "pin" else "created"


def _apply_change(state: _State, p: Proposal, decision: str) -> str:
    """update / reinforce / weaken."""
    current = _check_base(state, p)
    if decision == "archive":
        dest = _free_archive_slot(state, archive_path(p.target))
        state.move(p.target, dest, retire_text(current, dest, state.now,
                                               f"retired at review instead of the proposed {p.op}",
                                               None))
        return "archived"
    if p.after is None:
        raise _Held(f"an {p.op} proposal without text")
    text = with_meta(p.after, p.target, {"importance": "pinned"}) if decision == "pin" else p.after
    state.put(p.target, text, _entry_route(p))
    return Effect.PINNED if decision == Decision.PIN else Op(p.op).accepted


def _apply_archive(state: _State, p: Proposal, decision: str) -> str:
    current = _check_base(state, p)
    if decision == "pin":  # the flags were wrong: keep the entry and protect it
        state.put(p.target, with_meta(current, p.target, {"importance": "pinned"}))
        return "pinned"
    dest = _free_archive_slot(state, str(p.details.get("archive_path") or archive_path(p.target)))
    text = p.after if p.after is not None else retire_text(
        current, dest, state.now, str(p.details.get("reason") or "retired at review"),
        p.details.get("superseded_by"))
    state.move(p.target, dest, text)
    return "archived"


def _apply_promote(state: _State, p: Proposal, decision: str) -> str:
    """promote: the entry's text with route bundle; an incident moves to details.promote_path
    (topics/<slug>.md) as a topic. Archived at review: as any change."""
    dest = p.details.get("promote_path")
    if not dest or decision == "archive":
        effect = _apply_change(state, p, decision)
        return Effect.PROMOTED if effect == Effect.UPDATED else effect
    _check_base(state, p)
    dest = _safe_path(state, str(dest), "promote path")
    if dest in state.touched or state.exists(dest):
        raise _Held(f"{dest} already exists; a promoted entry never replaces a file")
    if p.after is None:
        raise _Held("a promote proposal without text")
    text = with_meta(p.after, dest, {"importance": "pinned"}) if decision == "pin" else p.after
    state.move(p.target, dest, text)
    state.owners[state.entries[dest].slug] = dest
    return Effect.PINNED if decision == Decision.PIN else Effect.PROMOTED


def _parse_or_hold(text: str, path: str) -> Entry:
    try:
        return parse_entry(text, path)
    except EntryError as exc:
        raise _Held(f"the proposed text is not a valid entry: {exc}") from None


# What an entry's frontmatter `route` says for each proposal route: a lesson appended to
# DECISIONS.md is kept in memory (searchable, matched by later dreams) but not in AGENTS.md.
_ENTRY_ROUTE = {Route.MEMORY: Route.MEMORY, Route.BUNDLE: Route.BUNDLE, Route.SKILL: Route.SKILL,
                Route.DECISIONS: Route.MEMORY}
LESSON_OPS = (Op.CREATE, Op.UPDATE, Op.REINFORCE, Op.WEAKEN)  # the ops whose route a person may change


def _entry_route(p: Proposal) -> str | None:
    """The frontmatter `route` the proposal's route gives its entry (None: no route to set)."""
    route = _ENTRY_ROUTE.get(Route(p.route)) if p.route else None
    return None if route is None else str(route)


def _apply(state: _State, p: Proposal, decision: str) -> str:
    """Apply one LTM-changing decision to the state; its effect name, or raise _Held."""
    if p.route == Route.PERSON and p.op in LESSON_OPS and decision != Decision.ARCHIVE:
        return Effect.NOTED  # a question for the person: written into no file
    try:
        if p.op == "create":
            return _apply_create(state, p, decision)
        if p.op in ("update", "reinforce", "weaken"):
            return _apply_change(state, p, decision)
        if p.op == "promote":
            return _apply_promote(state, p, decision)
        if p.op == "archive":
            return _apply_archive(state, p, decision)
    except EntryError as exc:
        raise _Held(str(exc)) from None
    return "discarded"  # discard: only the memory is consumed


def _new_state(snapshot: LTMSnapshot, workspace: Workspace, now: datetime) -> _State:
    return _State(workspace=workspace, snapshot=snapshot, now=now, entries=dict(snapshot.entries))


# -- log lines ----------------------------------------------------------------------------------


def _log_detail(p: Proposal, effect: str) -> str:
    details = p.details
    if effect == "reinforced":
        return f"+{details.get('confirmations', 1)} confirmations"
    if effect == "weakened":
        return f"+{details.get('flags', 1)} flags"
    if effect == "updated":
        added = details.get("added_sources") or []
        return f"+{len(added)} sources" if added else p.rationale
    if effect == "created":
        return f"new {details.get('kind') or 'entry'}"
    if effect == "promoted":
        moved = details.get("promote_path")
        return f"into the bundle, as the topic {moved}" if moved else "into the bundle"
    if effect == "archived":
        reason = details.get("reason") or p.rationale
        superseded = details.get("superseded_by")
        return f"{reason}; superseded by {superseded}" if superseded else str(reason)
    if effect == "pinned":
        return f"pinned at review of a proposed {p.op}"
    if effect == "discarded":
        return str(details.get("reason") or p.rationale)
    if effect == Effect.NOTED:
        return f"a question for a person: {p.rationale}"
    return f"rejected {p.op}: {p.rationale}"


# -- guard rails --------------------------------------------------------------------------------


def _pinned_violation(p: Proposal, effect: str, state: _State, auto: bool) -> Violation | None:
    if p.op == "create":
        return None
    entry = state.snapshot.entries.get(p.target)
    if entry is None or not entry.pinned:
        return None
    after = state.entries.get(p.target)
    keeps_pin = after is not None and after.pinned
    # Counters only: a confirmation never downgrades a pinned entry, and pinning it again is no change.
    if effect in ("reinforced", "pinned") and keeps_pin:
        return None
    if not auto and p.details.get("asks_human"):
        return None
    who = "the headless auto-apply policy" if auto else "a proposal that does not ask the human"
    return Violation(p.id, "pinned", f"{p.id}: {effect} {p.target} — the entry is pinned and "
                                     f"{who} may not change it (ltm.enforce_pinned)")


def _guard(plan: Plan, applied: list[tuple[Proposal, str]], state: _State, auto: bool) -> None:
    ltm = state.workspace.config.ltm
    if ltm.enforce_pinned:
        for proposal, effect in applied:
            violation = _pinned_violation(proposal, effect, state, auto)
            if violation is not None:
                plan.violations.append(violation)
    removals = len(state.moves)
    if auto and removals > ltm.max_autonomous_removals:
        plan.violations.append(Violation(
            None, "removals", f"{removals} entries would be retired without a human decision; "
                              f"ltm.max_autonomous_removals allows {ltm.max_autonomous_removals}"))


# -- the bundle ---------------------------------------------------------------------------------


def _new_lines(before: str, after: str) -> list[str]:
    """Lines of `after` whose text `before` does not hold anywhere: what the safety scan reads.
    (A line that only moved is no new text; sizes of a change are `model.diff_stat`'s.)"""
    old = set(before.splitlines())
    return [line for line in after.splitlines() if line not in old]


def _changes_entries(plan: Plan, changeset: Changeset) -> bool:
    return any(plan.outcomes.get(p.id) == "applied" and p.op != Op.DISCARD for p in changeset.proposals)


def bundle_decision(context: Proposal, changes_entries: bool, auto: bool) -> str | None:
    """The bundle proposal's decision as the commit takes it: a person's explicit one, else
    accept when the commit changes entries — the bundle follows the accepted entries by default.

    Never implicit for a bundle carrying safety marks (suspicious text is decided by a person, one
    proposal at a time) nor for the headless policy, which decides the bundle itself.
    """
    if context.decision is not None or auto or context.safety or not changes_entries:
        return context.decision
    return Decision.ACCEPT


def _plan_bundle(plan: Plan, context: Proposal | None, state: _State, auto: bool,
                 changes_entries: bool) -> None:
    """The bundle's part of the plan: AGENTS.md, and the project's targets when it is accepted."""
    workspace = state.workspace
    current = read_bundle(workspace.agents_md)
    live = [e for e in state.entries.values() if not e.archived]
    decision = bundle_decision(context, changes_entries, auto) if context is not None else None
    plan.bundle_followed = context is not None and context.decision is None and decision == "accept"
    if decision == "accept":
        bundle = render_bundle(live, byte_budget=workspace.config.context.byte_budget,
                               include=workspace.config.context.include, previous=current)
        plan.bundle_left_out = list(bundle.left_out)
        if context is not None and bundle.text != context.after:
            plan.warnings.append("the bundle written differs from the reviewed context proposal "
                                 "because some proposals were held back or entries changed since")
        if bundle.text != current:
            plan.bundle = bundle.text
        _check_bundle_safety(plan, current, bundle.text, auto)
        final = bundle.text
        # Appending to a file a person wrote needs that person's own accept of the diff shown; the
        # workspace's AGENTS.md still follows the accepted entries, and the next dream asks again.
        explicit = context is not None and context.decision == Decision.ACCEPT and not auto
        for delivery in plan_deliveries(workspace, bundle.text, append=explicit):
            plan.deliver(delivery, context.id if context is not None else "-")
    else:
        final = current
        if context is None:  # nothing to deliver; still say which project file would be held back
            plan.warnings += [d.problem for d in plan_deliveries(workspace, current, append=True)
                              if d.problem is not None]
        if changes_entries and render_bundle(
                live, byte_budget=workspace.config.context.byte_budget,
                include=workspace.config.context.include, previous=current).text != current:
            plan.bundle_stale = _stale_reason(context)
            plan.warnings.append(plan.bundle_stale)
    dangling = dangling_markers(final, {e.slug for e in live})
    if dangling:
        plan.refusals.append(
            f"{workspace.agents_md} would keep [mem: …] markers naming no live entry: "
            f"{', '.join(dangling)} — accept the context proposal so the bundle is regenerated")


def _stale_reason(context: Proposal | None) -> str:
    if context is None:
        how = "not proposed"
    elif context.decision in ("reject", "defer"):
        how = {"reject": "rejected", "defer": "deferred"}[str(context.decision)]
    elif context.safety:
        how = "left undecided (it carries safety marks)"
    else:
        how = "left undecided"
    return (f"{CONTEXT_TARGET} is left STALE: the bundle proposal was {how} while this commit "
            "changes entries, so agents keep reading guidance the entries no longer give — "
            "`dreamtui bundle` regenerates it")


def _check_bundle_safety(plan: Plan, before: str, after: str, auto: bool) -> None:
    if not auto:
        return  # a person accepted this exact bundle diff, marks shown
    for line in _new_lines(before, after):
        marks = scan(line)
        if marks:
            plan.refusals.append(f"the new bundle would carry text marked {', '.join(marks)} "
                                 f"that no human reviewed: {line[:120]!r}")


# -- memories -----------------------------------------------------------------------------------


def _plan_memories(plan: Plan, changeset: Changeset) -> None:
    finished: dict[str, bool] = {}
    open_: set[str] = set()
    for p in changeset.proposals:
        outcome = plan.outcomes.get(p.id, "open")
        stays_open = outcome in ("open", "held")
        back_to_queue = outcome == "rejected" and p.op == "discard"
        for memory_id in p.evidence:
            if stays_open:
                open_.add(memory_id)
            finished.setdefault(memory_id, False)
            if outcome == "applied" or (outcome == "rejected" and not back_to_queue):
                finished[memory_id] = True
    for memory_id in dict.fromkeys([*changeset.batch, *finished]):
        if memory_id in open_:
            plan.open_memories.append(memory_id)
        elif finished.get(memory_id):
            plan.consume.append(memory_id)
        else:
            plan.release.append(memory_id)


# -- the plan -----------------------------------------------------------------------------------


def _count(plan: Plan, effect: str) -> None:
    plan.counts[effect] = plan.counts.get(effect, 0) + 1


def _decide_one(plan: Plan, state: _State, changeset: Changeset, p: Proposal,
                applied: list[tuple[Proposal, str]]) -> None:
    decision = p.decision
    if decision in (None, "defer"):
        plan.outcomes[p.id] = "open"
        _count(plan, "undecided" if decision is None else "deferred")
        return
    if decision == "reject":
        plan.outcomes[p.id] = "rejected"
        _count(plan, "rejected")
        plan.log_lines.append(log_line(state.now, "reject", p.target,
                                       _log_detail(p, "rejected"), changeset.id))
        if p.op != "discard":  # a rejected discard means "keep the memory", not "never again"
            plan.rejections += [(fp, p.id, changeset.id) for fp in rejection_fingerprints(p)]
        elif p.details.get("known"):
            # "The project's docs do not say this": never that discard again (by its id only,
            # so the memory's content is not remembered as rejected; dream/runner.read_known).
            plan.rejections.append((p.id, p.id, changeset.id))
        return
    try:
        effect = _apply(state, p, decision)
    except _Held as held:
        plan.outcomes[p.id] = "held"
        plan.conflicts.append(Conflict(p.id, p.op, p.target, str(held)))
        _count(plan, "held_back")
        return
    plan.outcomes[p.id] = "applied"
    applied.append((p, effect))
    _count(plan, effect)
    if p.route == Route.DECISIONS and effect in (Effect.CREATED, Effect.UPDATED, Effect.PINNED):
        state.decided.append(state.entries[p.target])
    detail = _log_detail(p, effect)
    if edited_by_person(p):
        detail = f"{detail}; edited by a person" if detail else "edited by a person"
    plan.log_lines.append(log_line(state.now, Effect(effect).log_op, p.target, detail, changeset.id))


def plan_commit(changeset: Changeset, snapshot: LTMSnapshot, workspace: Workspace, now: datetime,
                *, auto: bool = False) -> Plan:
    """The full effect of committing `changeset`'s decisions onto `snapshot` (the LTM now)."""
    plan = Plan()
    state = _new_state(snapshot, workspace, now)
    applied: list[tuple[Proposal, str]] = []
    for p in changeset.proposals:
        _decide_one(plan, state, changeset, p, applied)
    _drop_archived_related(plan, state, changeset.id)
    _guard(plan, applied, state, auto)
    context = changeset.bundle
    _plan_bundle(plan, context, state, auto, _changes_entries(plan, changeset))
    if context is not None:
        _record_context_decision(plan, context, state, changeset)
    plan.writes, plan.moves, plan.entries_after = state.writes, state.moves, state.entries
    index = render_index(state.entries.values(), state.snapshot.listed.values())
    if index != _read_index(workspace):
        plan.index = index
    _plan_memories(plan, changeset)
    _plan_project(plan, state, changeset.id, {p.slug: p.id for p in changeset.proposals if p.slug})
    return plan


def _plan_project(plan: Plan, state: _State, dream_id: str | None, owners: dict[str, str]) -> None:
    """Skills and DECISIONS.md as the entries after this commit give them (`owners`: the
    proposal id a held-back skill is reported under, by slug)."""
    workspace = state.workspace
    live = [e for e in state.entries.values() if not e.archived]
    skills = plan_skills(workspace, live, to_project=delivers_skills(workspace))
    plan.deliveries.update(skills.writes)
    plan.delivery_removals += skills.removals
    plan.delivery_bases.update(skills.bases)
    plan.conflicts += [Conflict(owners.get(slug, "-"), "deliver", slug, reason)
                       for slug, reason in skills.held]
    if state.decided and workspace.project_root is None:
        plan.warnings.append(f"{count_of(len(state.decided), 'lesson')} routed to DECISIONS.md kept "
                             "in memory only: no project.root is set, so no DECISIONS.md is written")
    elif state.decided:
        sections = [decision_section(entry, state.now, dream_id) for entry in state.decided]
        delivery = plan_decisions(workspace, sections)
        if delivery is not None:
            plan.deliver(delivery, owners.get(state.decided[0].slug, "-"))
    _log_deliveries(plan, state, dream_id)


def _log_deliveries(plan: Plan, state: _State, dream_id: str | None) -> None:
    """One LOG.md line naming the project files this commit writes or removes: the project is
    not the workspace's git history, so LOG.md is where a person finds what reached it."""
    project = state.workspace.project_root
    if project is None:
        return
    real = project.resolve()
    names = [path.relative_to(real).as_posix()
             for path in [*plan.deliveries, *plan.delivery_removals] if path.is_relative_to(real)]
    if names:
        plan.log_lines.append(log_line(state.now, "deliver", str(real), ", ".join(sorted(names)),
                                       dream_id))


def _record_context_decision(plan: Plan, context: Proposal, state: _State, changeset: Changeset) -> None:
    decision = "accept" if plan.bundle_followed else context.decision
    if decision in (None, "defer"):
        plan.outcomes[context.id] = "open"
        return
    plan.outcomes[context.id] = "applied" if decision == "accept" else "rejected"
    detail = "bundle regenerated" if decision == "accept" else "bundle left as it is"
    if plan.bundle_followed:
        detail += ", following the accepted entries"
    if decision == "accept" and plan.bundle_left_out:
        detail += f"; {len(plan.bundle_left_out)} entries over the byte budget"
    plan.log_lines.append(log_line(state.now, "context" if decision == "accept" else "reject",
                                   CONTEXT_TARGET, detail, changeset.id))


def _read_index(workspace: Workspace) -> str | None:
    try:
        return (workspace.memory_root / "INDEX.md").read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def summary_line(counts: dict[str, int], bundle: bool) -> str:
    """"3 created, 2 updated, 1 archived, bundle updated" — for commit messages and reports."""
    parts = [f"{counts[k]} {k.words}" for k in Effect if counts.get(k)]
    if bundle:
        parts.append("bundle updated")
    return ", ".join(parts) or "no changes"


# -- the context proposal -----------------------------------------------------------------------


def context_proposal(changeset: Changeset, snapshot: LTMSnapshot, workspace: Workspace,
                     now: datetime, *, bundle_now: str | None = None) -> Proposal | None:
    """The bundle diff that follows from the other proposals, or None when the bundle would not change.

    Uses the accepted/pinned/archived proposals; while none is decided (a fresh dream), all of
    them as if accepted. `bundle_now` is the AGENTS.md to diff against (default: the file).
    """
    others = changeset.proposals
    fresh = all(p.decision is None for p in others)
    state = _new_state(snapshot, workspace, now)
    counted = 0
    for p in others:
        decision = "accept" if fresh else p.decision
        if decision is None or not Decision(decision).applies or p.op == Op.DISCARD:
            continue
        try:
            _apply(state, p, decision)
        except _Held:
            continue
        counted += 1
    before = read_bundle(workspace.agents_md) if bundle_now is None else bundle_now
    bundle = render_bundle([e for e in state.entries.values() if not e.archived],
                           byte_budget=workspace.config.context.byte_budget,
                           include=workspace.config.context.include, previous=before)
    deliveries = plan_deliveries(workspace, bundle.text, append=True)
    if bundle.text == before and not any(d.after is not None for d in deliveries):
        return None
    added = _new_lines(before, bundle.text)
    grown, shrunk = diff_stat(before, bundle.text)
    which = "proposed" if fresh else "accepted"
    rationale = (f"the bundle that follows from {count_of(counted, f'{which} change')}: "
                 f"+{grown} −{shrunk} lines")
    if bundle.left_out:
        rationale += f"; {count_of(len(bundle.left_out), 'entry', 'entries')} over the byte budget"
    rationale += _deliveries_note(deliveries)
    return Proposal(
        id=bundle_proposal_id(changeset.id), op="context",
        target=CONTEXT_TARGET, slug=None, base_sha256=None, before=before, after=bundle.text,
        rationale=rationale, evidence=[], confidence=1.0,
        safety=sorted({mark for line in added for mark in scan(line)}),
        details={"left_out": list(bundle.left_out), "included": len(bundle.included),
                 "bytes": bundle.bytes,
                 # each project file it reaches; a first block's whole diff, for the person to see
                 "deliveries": [{"target": d.name, "first": d.first, "problem": d.problem,
                                 "new": d.before is None and d.after is not None,
                                 "diff": d.diff if d.first else ""} for d in deliveries]})


def _deliveries_note(deliveries: list[Delivery]) -> str:
    """The rationale's words for what reaches the project: "; delivered to AGENTS.md, …"."""
    written = [d.name for d in deliveries if d.after is not None]
    first = [d.name for d in deliveries if d.first]
    held = [d.name for d in deliveries if d.problem is not None]
    note = f"; delivered to {', '.join(written)}" if written else ""
    if first:
        note += f" (a dreamtui block appended for the first time to {', '.join(first)})"
    if held:
        note += f"; held back: {', '.join(held)}"
    return note


def bundle_proposal_id(dream_id: str) -> str:
    """The bundle proposal's id: one per dream, whatever its content, so a script can name it
    across decisions and undo (an entry proposal's id is a hash of its change, Proposal.make_id)."""
    return f"p-bundle-{dream_id.removeprefix('d-')}"


def refresh_context(changeset: Changeset, snapshot: LTMSnapshot, workspace: Workspace,
                    now: datetime, *, bundle_now: str | None = None) -> Proposal | None:
    """Recompute the bundle proposal; a changed bundle keeps its id and loses its decision."""
    fresh = context_proposal(changeset, snapshot, workspace, now, bundle_now=bundle_now)
    old = changeset.bundle
    if fresh is not None and old is not None and old.after == fresh.after \
            and old.before == fresh.before \
            and old.details.get("deliveries") == fresh.details.get("deliveries"):
        return old
    changeset.bundle = fresh
    return fresh


# -- the bundle on demand (`dreamtui bundle`) --------------------------------------------------


def plan_bundle(snapshot: LTMSnapshot, workspace: Workspace, now: datetime) -> Plan:
    """AGENTS.md as the live entries give it; `bundle` is None when the file already says that."""
    current = read_bundle(workspace.agents_md)
    bundle = render_bundle([e for e in snapshot.entries.values() if not e.archived],
                           byte_budget=workspace.config.context.byte_budget,
                           include=workspace.config.context.include, previous=current)
    plan = Plan(bundle_left_out=list(bundle.left_out), entries_after=dict(snapshot.entries))
    if bundle.text != current:
        plan.bundle = bundle.text
        added, removed = diff_stat(current, bundle.text)
        detail = f"bundle regenerated from the live entries: +{added} −{removed} lines"
        plan.log_lines.append(log_line(now, "context", CONTEXT_TARGET, detail, None))
    _deliver_directly(plan, _new_state(snapshot, workspace, now), bundle.text)
    return plan


def _deliver_directly(plan: Plan, state: _State, bundle: str) -> None:
    """The project's files after a change no dream proposed (`dreamtui bundle`, a person's own
    change): existing blocks follow, skills too, but no block is appended to a file for the first
    time — that is shown as a dream's bundle proposal first."""
    for delivery in plan_deliveries(state.workspace, bundle, append=False):
        if delivery.problem is not None:
            plan.warnings.append(delivery.problem)
        else:
            plan.deliver(delivery, "-")
    _plan_project(plan, state, None, {})


# -- a person's own change from the Memory view --------------------------------------------------

HUMAN_OPS = words(HumanOp)


def _drop_archived_related(plan: Plan, state: _State, dream_id: str | None) -> None:
    """`related:` never names an archived entry (issue 11, item 8): the live entries naming one
    this commit archives lose it, and an entry the commit writes anyway loses any archived one.
    A slug that is live again (restored, or reused) stays."""
    archived_now = {state.entries[dest].slug for dest in state.moves.values()
                    if dest in state.entries and state.entries[dest].archived}
    archived = {e.slug for e in state.entries.values() if e.archived}
    for path, entry in sorted(state.entries.items()):
        related = entry.meta.get("related")
        if entry.archived or not isinstance(related, list):
            continue
        gone = archived if path in state.touched else archived_now
        dead = [s for s in related if isinstance(s, str) and s in gone and s not in state.owners]
        if not dead:
            continue
        state.put(path, with_meta(entry.raw, path, {"related": [s for s in related if s not in dead]}))
        plan.log_lines.append(log_line(state.now, "update", path,
                                       f"related: {', '.join(dead)} archived, no longer listed", dream_id))


def plan_human_change(snapshot: LTMSnapshot, workspace: Workspace, path: str, new_text: str | None,
                      op: str, reason: str, now: datetime, *, label: str | None = None) -> Plan:
    """A person's pin / unpin / archive / edit of one live entry: no guard rails, bundle rewritten.
    LOG.md names the change `label` (default `op`).

    Raises InputError (or EntryError for an edit that does not parse) naming the path.
    """
    if op not in HUMAN_OPS:
        raise InputError(f"op {op!r}: expected one of {', '.join(HUMAN_OPS)}")
    entry = snapshot.entries.get(path)
    if entry is None or entry.archived != (op == "restore"):
        what = "archived" if op == "restore" else "live"
        raise InputError(f"{path}: no {what} entry at this path in {workspace.memory_root}")
    state = _new_state(snapshot, workspace, now)
    try:
        if op == "restore":
            _restore(state, entry, new_text)
        else:
            _apply_human(state, entry, new_text, op, reason)
    except _Held as held:
        raise InputError(f"{path}: {held}") from None
    plan = Plan(writes=state.writes, moves=state.moves, entries_after=state.entries)
    plan.counts = {HumanOp(op).effect: 1}
    plan.log_lines.append(log_line(now, label or op, path, reason, None))
    _drop_archived_related(plan, state, None)
    live = [e for e in state.entries.values() if not e.archived]
    current = read_bundle(workspace.agents_md)
    bundle = render_bundle(live, byte_budget=workspace.config.context.byte_budget,
                           include=workspace.config.context.include, previous=current)
    plan.bundle_left_out = list(bundle.left_out)
    if bundle.text != current:
        plan.bundle = bundle.text
    _deliver_directly(plan, state, bundle.text)
    index = render_index(state.entries.values(), state.snapshot.listed.values())
    if index != _read_index(workspace):
        plan.index = index
    return plan


def _restore(state: _State, entry: Entry, new_text: str | None) -> None:
    """Back to the live path it was archived from, as `new_text` (the text it had there; by
    default the archived text without its retirement keys)."""
    live = _safe_path(state, entry.path.removeprefix("archive/"), "live path")
    if new_text is None:
        new_text = unretired_text(entry)
    restored = parse_entry(new_text, live)
    if state.exists(live):
        raise _Held(f"{live} exists again; restoring would overwrite it")
    owner = state.slug_owner(restored.slug)
    if owner is not None:
        raise _Held(f"slug {restored.slug!r} is now used by {owner}")
    state.move(entry.path, live, new_text)


def _apply_human(state: _State, entry: Entry, new_text: str | None, op: str, reason: str) -> None:
    path = entry.path
    if op == "archive":
        dest = _free_archive_slot(state, archive_path(path))
        state.move(path, dest, retire_text(entry.raw, dest, state.now, reason, None))
        return
    if op in ("edit", "weaken"):
        if new_text is None:
            raise _Held(f"{op} needs the new text")
        edited = parse_entry(new_text, path)  # EntryError names the line that does not parse
        owner = state.slug_owner(edited.slug)
        if owner is not None and owner != path:
            raise _Held(f"slug {edited.slug!r} is already used by {owner}")
        state.put(path, new_text)
        return
    meta = dict(entry.meta)
    if op == "pin":
        meta["importance"] = "pinned"
    else:
        meta.pop("importance", None)
    state.put(path, new_text if new_text is not None else render_entry(meta, entry.body, original=entry))
