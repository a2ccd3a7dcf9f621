"""Decisions on a dream's proposals, saved to its changeset at once, with undo.

Every call loads, changes and saves the changeset under its own lock, then recomputes the
context proposal so the bundle diff a person sees always follows from what they accepted so far
(docs/changeset-semantics.md). Each call is one undo step: `stats["history"]` keeps
`{step, proposal, from, to}` records and `undo_last` reverts the last step as a whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dreamtui.entry.codec import parse_entry
from dreamtui.errors import EntryError, InputError
from dreamtui.model import DECISIONS, OPS, ROUTES, Changeset, Proposal
from dreamtui.review.plan import LESSON_OPS, refresh_context
from dreamtui.safety.marks import scan
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.lock import changeset_lock
from dreamtui.store.ltm import LTMSnapshot, LTMStore, archive_path
from dreamtui.vocabulary import counted
from dreamtui.workspace.layout import Workspace

# pin and archive only mean something for entries (docs/changeset-semantics.md, decisions table)
_ENTRY_ONLY = ("pin", "archive")
_NOT_ENTRIES = ("discard", "context")
# `review show` prints "[3]" before the third proposal; "3" and "[3]" name it too. Ids are
# "p-<hex>", so a number never names an id.
_NUMBER_RE = re.compile(r"^\[?([0-9]+)\]?$")


def proposal_by_ref(changeset: Changeset, ref: str) -> Proposal:
    """A proposal by id, or by the number `review show` prints before it ([1] is the first)."""
    number = _NUMBER_RE.match(ref.strip())
    if number is not None:
        shown = changeset.reviewable
        n = int(number.group(1))
        if not 1 <= n <= len(shown):
            raise InputError(f"dream {changeset.id} has {counted(len(shown), 'proposal')}: [{n}] is not "
                             f"one of them (`dreamtui review show {changeset.id}` numbers them)")
        return shown[n - 1]
    try:
        return changeset.proposal(ref)
    except KeyError:
        raise InputError(f"dream {changeset.id} has no proposal {ref} "
                         f"(`dreamtui review show {changeset.id}` lists them)") from None


def proposal_number(changeset: Changeset, proposal: Proposal) -> int:
    """The number `review show` prints for `proposal`."""
    return next(n for n, p in enumerate(changeset.reviewable, start=1) if p is proposal)


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
    chosen: dict[str, Proposal] = {}
    for ref in selection:
        proposal = proposal_by_ref(changeset, ref)
        _check_decision(proposal, decision)
        chosen.setdefault(proposal.id, proposal)  # "3" and its id name one proposal
    return list(chosen.values())


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


def _refresh(changeset: Changeset, history: list[dict[str, object]], step: int,
             snapshot: LTMSnapshot, workspace: Workspace, now: datetime | None) -> None:
    """Recompute the bundle after entry decisions moved it. A changed diff needs a new decision;
    the one it loses is recorded in the step, so undo gives it back with the old diff."""
    before = changeset.bundle
    refresh_context(changeset, snapshot, workspace, now or workspace.clock())
    if before is not None and before.decision is not None and changeset.bundle is not before:
        history.append(_record(step, before, None))


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
        history += _sync_kept_confirmations(changeset, step)
        if others:
            _refresh(changeset, history, step, _snapshot(workspace, snapshot), workspace, now)
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
                if isinstance(item.get("edit"), dict):
                    _unedit(proposal, item["edit"])
                if isinstance(item.get("route"), dict):
                    _unroute(proposal, item["route"])
        # A kept-confirmations reinforce follows its rejected proposal back (or away), then
        # gets back the decision it had when that step dropped it.
        _sync_kept_confirmations(changeset, step)
        known = {p.id: p for p in changeset.proposals}
        for item in reversed(undone):
            kept = known.get(str(item.get("proposal")))
            if item.get("kept_from") and kept is not None:
                kept.decision = item.get("from")
        # The bundle after the entries: their decisions give back its diff, then its own decision.
        refresh_context(changeset, _snapshot(workspace, snapshot), workspace, now or workspace.clock())
        bundle = changeset.bundle
        for item in reversed(undone):
            if bundle is not None and item.get("proposal") == bundle.id:
                bundle.decision = item.get("from")
        store.save(changeset)
    return changeset


# -- a rejected change keeps the confirmations it folded in ---------------------------------------

# The details key under which a dream records the reinforce its confirmations would be alone
# (dream/proposals.EntryDraft): a person who rejects the update rejects its new text, not the
# agents who confirmed the entry (docs/changeset-semantics.md, "Rejecting a folded change").
KEPT_CONFIRMATIONS = "reinforce_alone"


def _kept_reinforce(rejected: Proposal) -> Proposal | None:
    alone = rejected.details.get(KEPT_CONFIRMATIONS)
    if not isinstance(alone, dict) or not isinstance(alone.get("after"), str):
        return None
    details = dict(alone.get("details") or {})
    details["kept_from"] = rejected.id
    n = int(details.get("confirmations") or 0)
    return Proposal(
        id=str(alone.get("id") or Proposal.make_id("reinforce", rejected.target, alone["after"])),
        op="reinforce", target=rejected.target, slug=rejected.slug, base_sha256=rejected.base_sha256,
        before=rejected.before, after=alone["after"],
        rationale=(f"{counted(n, 'confirmation')} kept from the rejected {rejected.op} "
                   f"{rejected.id}: {alone.get('rationale') or ''}").rstrip(": "),
        evidence=[str(i) for i in alone.get("evidence") or []],
        confidence=float(alone.get("confidence") or 0.9),
        safety=[str(m) for m in alone.get("safety") or []], details=details, route=rejected.route)


def _sync_kept_confirmations(changeset: Changeset, step: int) -> list[dict[str, object]]:
    """Give every rejected proposal that folded in confirmations its own reinforce (appended, so
    the numbers `review show` printed stay), and take it away again when the proposal is no
    longer rejected. Returns the history records of what changed in this step."""
    records: list[dict[str, object]] = []
    present = {p.id: p for p in changeset.proposals}
    for proposal in list(changeset.proposals):
        kept = _kept_reinforce(proposal)
        if kept is None:
            continue
        kept_fingerprints = set(kept.details.get("fingerprints") or [])
        own = [f for f in proposal.details.get("fingerprints") or [] if f not in kept_fingerprints]
        if proposal.decision == "reject" and kept.id not in present:
            changeset.proposals.append(kept)
            records.append({"step": step, "proposal": kept.id, "from": None, "to": None,
                            "kept_from": proposal.id})
            # The rejection remembers the change's own content, not the repeats kept apart.
            proposal.details["fingerprints"] = own
        elif proposal.decision != "reject" and kept.id in present:
            dropped = present[kept.id]
            changeset.proposals.remove(dropped)
            records.append({**_record(step, dropped, None), "kept_from": proposal.id})
            proposal.details["fingerprints"] = sorted({*own, *kept_fingerprints})
    return records


# -- a person's edit of a proposal before accepting it ------------------------------------------

# The ops whose `after` is an entry's text; a discard has none and the bundle is generated.
EDITABLE_OPS = ("create", "update", "reinforce", "weaken", "archive")


def editable_text(proposal: Proposal) -> str:
    """The text a person edits: the proposed entry as it would be written."""
    if proposal.op not in EDITABLE_OPS or proposal.after is None:
        what = ("the bundle is generated from the entries: edit or decide those instead"
                if proposal.op == "context" else "it proposes no entry text")
        raise InputError(f"proposal {proposal.id} is a {proposal.op}; it cannot be edited: {what}")
    return proposal.after


def _check_edit(proposal: Proposal, text: str) -> tuple[str, ...]:
    """The checks a proposed text passes at review (a parseable entry, the proposal's own slug
    at its own path); the safety marks of the edited text, or InputError, nothing saved."""
    path = (str(proposal.details.get("archive_path") or archive_path(proposal.target))
            if proposal.op == "archive" else proposal.target)
    try:
        entry = parse_entry(text, path)
    except EntryError as exc:
        raise InputError(f"the edited text is not a valid entry, nothing saved: {exc}") from None
    if proposal.slug is not None and entry.slug != proposal.slug:
        raise InputError(f"the edited text has slug {entry.slug!r}; proposal {proposal.id} is for "
                         f"{proposal.slug!r} at {proposal.target} — nothing saved")
    return scan(text)


def edit_proposal(workspace: Workspace, dream_id: str, proposal_id: str, text: str, *,
                  snapshot: LTMSnapshot | None = None, now: datetime | None = None) -> Changeset:
    """Replace a proposal's text with a person's edit and accept it: one undo step.

    The proposal keeps its id, records `details.edited_by_person` and the engine's own text in
    `details.engine_after` (the first edit's; a second edit keeps it), and gains the safety marks
    of the edited text. Undo gives back the text, the marks and the decision it had.
    """
    with changeset_lock(workspace, dream_id):
        store = ChangesetStore(workspace.dreams_dir)
        changeset = _open_changeset(store, dream_id)
        [proposal] = _select(changeset, [proposal_id], "accept")
        current = editable_text(proposal)
        marks = _check_edit(proposal, text)
        step = _next_step(changeset)
        record = _record(step, proposal, "accept")
        record["edit"] = {"after": current, "safety": list(proposal.safety),
                          "edited": bool(proposal.details.get("edited_by_person"))}
        proposal.details.setdefault("engine_after", current)
        proposal.details["edited_by_person"] = True
        proposal.after = text
        proposal.safety = sorted({*proposal.safety, *marks})
        proposal.decision = "accept"
        history = [*(changeset.stats.get("history") or []), record,
                   *_sync_kept_confirmations(changeset, step)]
        _refresh(changeset, history, step, _snapshot(workspace, snapshot), workspace, now)
        changeset.stats["history"] = history
        store.save(changeset)
    return changeset


def _unedit(proposal: Proposal, edit: dict[str, object]) -> None:
    proposal.after = str(edit.get("after"))
    safety = edit.get("safety")
    proposal.safety = [str(mark) for mark in safety] if isinstance(safety, list) else []
    if not edit.get("edited"):
        proposal.details.pop("edited_by_person", None)
        proposal.details.pop("engine_after", None)


# -- a person's change of a proposal's route ---------------------------------------------------


def reroute(workspace: Workspace, dream_id: str, proposal_id: str, route: str, *,
            snapshot: LTMSnapshot | None = None, now: datetime | None = None) -> Changeset:
    """Send a proposal's lesson somewhere else (vocabulary.Route): one undo step, its decision kept.

    Recorded like a decision (`stats.history`, with `route: {from, to}`); `details.engine_route`
    keeps the dream's own route from the first change. The bundle is recomputed, since the route
    decides whether AGENTS.md carries the entry.
    """
    if route not in ROUTES:
        raise InputError(f"route {route!r}: expected one of {', '.join(ROUTES)}")
    with changeset_lock(workspace, dream_id):
        store = ChangesetStore(workspace.dreams_dir)
        changeset = _open_changeset(store, dream_id)
        proposal = proposal_by_ref(changeset, proposal_id)
        if proposal.op not in LESSON_OPS:
            raise InputError(f"proposal {proposal.id} is a {proposal.op}: only a lesson "
                             f"({', '.join(LESSON_OPS)}) has a route")
        if proposal.route == route:
            raise InputError(f"proposal {proposal.id} already goes to {route}; nothing saved")
        step = _next_step(changeset)
        record = _record(step, proposal, proposal.decision)
        record["route"] = {"from": proposal.route,
                           "had_engine_route": "engine_route" in proposal.details}
        proposal.details.setdefault("engine_route", proposal.route)
        proposal.route = route
        history = [*(changeset.stats.get("history") or []), record]
        _refresh(changeset, history, step, _snapshot(workspace, snapshot), workspace, now)
        changeset.stats["history"] = history
        store.save(changeset)
    return changeset


def _unroute(proposal: Proposal, change: dict[str, object]) -> None:
    before = change.get("from")
    proposal.route = str(before) if before is not None else None
    if not change.get("had_engine_route"):
        proposal.details.pop("engine_route", None)
