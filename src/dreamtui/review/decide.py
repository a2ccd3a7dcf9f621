"""Decisions on a dream's proposals, saved to its changeset at once, with undo.

Every call loads, changes and saves the changeset under its own lock, then recomputes the
context proposal so the bundle diff a person sees always follows from what they accepted so far
(docs/changeset-semantics.md). Each call is one undo step: `stats["history"]` keeps
`{step, proposal, from, to}` records and `undo_last` reverts the last step as a whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dreamtui.errors import InputError
from dreamtui.model import DECISIONS, OPS, Changeset, Proposal
from dreamtui.review.plan import refresh_context
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.lock import changeset_lock
from dreamtui.store.ltm import LTMSnapshot, LTMStore
from dreamtui.workspace.layout import Workspace

# pin and archive only mean something for entries (docs/changeset-semantics.md, decisions table)
_ENTRY_ONLY = ("pin", "archive")
_NOT_ENTRIES = ("discard", "context")


@dataclass(frozen=True)
class AllMatching:
    """Every undecided proposal, optionally of one op (the `--all` / `A` / `R` of the UIs).

    Proposals carrying safety marks are never part of a bulk decision: suspicious text must be
    looked at and decided one by one, never waved through with the rest.
    """

    op: str | None = None

    def takes(self, proposal: Proposal, decision: str) -> bool:
        """Whether this bulk `decision` covers `proposal`."""
        return (proposal.decision is None and not proposal.safety
                and (self.op is None or proposal.op == self.op)
                and decision in allowed_decisions(proposal))


def all_matching(op: str | None = None) -> AllMatching:
    if op is not None and op not in OPS:
        raise InputError(f"--op {op!r}: expected one of {', '.join(OPS)}")
    return AllMatching(op)


def allowed_decisions(proposal: Proposal) -> tuple[str, ...]:
    if proposal.op in _NOT_ENTRIES:
        return tuple(d for d in DECISIONS if d not in _ENTRY_ONLY)
    return DECISIONS


def _check_decision(proposal: Proposal, decision: str) -> None:
    if decision not in allowed_decisions(proposal):
        what = "the bundle" if proposal.op == "context" else "a memory that adds nothing"
        raise InputError(f"proposal {proposal.id} is a {proposal.op} ({what}): it can only be "
                         f"decided {' / '.join(allowed_decisions(proposal))}, not {decision}")


def _open_changeset(store: ChangesetStore, dream_id: str) -> Changeset:
    changeset = store.load(dream_id)
    if changeset.status != "open":
        raise InputError(f"dream {dream_id} is {changeset.status}; decisions can only change "
                         "while it is open")
    if not changeset.complete:
        raise InputError(f"dream {dream_id} is incomplete (still running, or its engine failed); "
                         "decide once it is complete, or abandon it")
    return changeset


def _select(changeset: Changeset, selection: Sequence[str] | AllMatching,
            decision: str) -> list[Proposal]:
    if isinstance(selection, AllMatching):
        return [p for p in changeset.reviewable if selection.takes(p, decision)]
    chosen = []
    for proposal_id in dict.fromkeys(selection):
        try:
            proposal = changeset.proposal(proposal_id)
        except KeyError:
            raise InputError(f"dream {changeset.id} has no proposal {proposal_id} "
                             f"(`dreamtui review show {changeset.id}` lists them)") from None
        _check_decision(proposal, decision)
        chosen.append(proposal)
    return chosen


def _context_choice(changeset: Changeset, selection: Sequence[str] | AllMatching,
                    chosen: list[Proposal], decision: str) -> list[Proposal]:
    """The context proposal to decide, looked at after the other decisions moved the bundle.

    `--all` means the bundle as it now follows; a context proposal named by id is decided only if
    the refresh kept it — a replaced one showed a diff that no longer holds.
    """
    if isinstance(selection, AllMatching):
        if selection.op not in (None, "context") or changeset.bundle is None:
            return []
        return [p for p in _select(changeset, selection, decision) if p is changeset.bundle]
    return [p for p in chosen if p is changeset.bundle]


def _next_step(changeset: Changeset) -> int:
    history = changeset.stats.get("history") or []
    return max((int(item.get("step", 0)) for item in history), default=0) + 1


def _record(step: int, proposal: Proposal, decision: str | None) -> dict[str, object]:
    return {"step": step, "proposal": proposal.id, "from": proposal.decision, "to": decision}


def _snapshot(workspace: Workspace, snapshot: LTMSnapshot | None) -> LTMSnapshot:
    return snapshot if snapshot is not None else LTMStore(workspace.memory_root).scan()


def decide(workspace: Workspace, dream_id: str, selection: Sequence[str] | AllMatching,
           decision: str, *, snapshot: LTMSnapshot | None = None,
           now: datetime | None = None) -> Changeset:
    """Set `decision` on the selected proposals and save; the refreshed changeset is returned.

    `snapshot` lets a caller that already holds the LTM (the TUI) spare a rescan. The context
    proposal is decided last, after the others moved the bundle: if its diff changed, it was
    replaced and stays undecided.
    """
    if decision not in DECISIONS:
        raise InputError(f"decision {decision!r}: expected one of {', '.join(DECISIONS)}")
    with changeset_lock(workspace, dream_id):
        store = ChangesetStore(workspace.dreams_dir)
        changeset = _open_changeset(store, dream_id)
        chosen = _select(changeset, selection, decision)
        if not chosen:
            raise InputError(f"dream {dream_id}: no undecided proposal matches; nothing to {decision}")
        step = _next_step(changeset)
        history = list(changeset.stats.get("history") or [])
        others = [p for p in chosen if p is not changeset.bundle]
        for proposal in others:
            history.append(_record(step, proposal, decision))
            proposal.decision = decision
        if others:
            before = changeset.bundle
            refresh_context(changeset, _snapshot(workspace, snapshot), workspace, now or workspace.clock())
            if before is not None and before.decision is not None and changeset.bundle is not before:
                # The new diff needs a new decision; undo gives the old one back with the old diff.
                history.append(_record(step, before, None))
        for proposal in _context_choice(changeset, selection, chosen, decision):
            history.append(_record(step, proposal, decision))
            proposal.decision = decision
        changeset.stats["history"] = history
        store.save(changeset)
    return changeset


def undo_last(workspace: Workspace, dream_id: str, *, snapshot: LTMSnapshot | None = None,
              now: datetime | None = None) -> Changeset:
    """Revert the last `decide` call on this dream; InputError when there is nothing to undo."""
    with changeset_lock(workspace, dream_id):
        store = ChangesetStore(workspace.dreams_dir)
        changeset = _open_changeset(store, dream_id)
        history = list(changeset.stats.get("history") or [])
        if not history:
            raise InputError(f"dream {dream_id}: nothing to undo")
        step = history[-1].get("step")
        undone = [item for item in history if item.get("step") == step]
        changeset.stats["history"] = [item for item in history if item.get("step") != step]
        known = {p.id: p for p in changeset.proposals}
        for item in reversed(undone):
            proposal = known.get(str(item.get("proposal")))
            if proposal is not None:
                proposal.decision = item.get("from")
        # The bundle after the entries: their decisions give back its diff, then its own decision.
        refresh_context(changeset, _snapshot(workspace, snapshot), workspace, now or workspace.clock())
        bundle = changeset.bundle
        for item in reversed(undone):
            if bundle is not None and item.get("proposal") == bundle.id:
                bundle.decision = item.get("from")
        store.save(changeset)
    return changeset
