"""Commit (docs/architecture.md §1.5, §4.2): a changeset's decisions → journal → files, log, index, bundle, queue, git.

Everything happens under the workspace lock and after `recover`, and every file (the changeset
record included) is written through one journal, so a crash leaves the whole commit or none of
it. Guard rails and refusals are checked on the plan before anything is written.

Who decided matters: `auto=True` is the headless auto-apply policy. Its removals count against
`ltm.max_autonomous_removals` and it may not touch pinned entries; suspicious text it would add to
the bundle refuses the commit. Decisions a person made are not autonomous: no removal budget
applies to them. An auto commit also leaves the proposals it did not decide open for review
(their memories stay claimed), where a person's commit closes the changeset and returns the
memories of undecided proposals to the queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamtui.errors import CommitRefused, InputError
from dreamtui.model import Changeset, iso_z
from dreamtui.review.plan import (
    Conflict,
    Plan,
    edited_by_person,
    plan_bundle,
    plan_commit,
    plan_human_change,
    refresh_context,
    summary_line,
)
from dreamtui.store.changesets import ChangesetStore, changeset_text
from dreamtui.store.files import file_sha256
from dreamtui.store.git import TRAILER_DREAM, TRAILER_ENGINE
from dreamtui.store.journal import (
    KEPT_NOTE,
    JournalOutcome,
    JournalPlan,
    STMSteps,
    TargetsChanged,
    recover,
    run_journal,
)
from dreamtui.store.leases import (
    GONE,
    Abandoned,
    abandon_unreadable,
    close_and_return,
    memories_gone,
    read_record,
)
from dreamtui.store.lock import WorkspaceLock, changeset_lock
from dreamtui.store.ltm import LOG_PATH, LTMSnapshot, LTMStore
from dreamtui.store.search import SearchIndex
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace


@dataclass
class CommitReport:
    dream_id: str | None
    counts: dict[str, int] = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    git_sha: str | None = None
    git_note: str = ""
    bundle_written: bool = False
    consumed: int = 0
    released: int = 0
    status: str = "committed"  # the changeset's status afterwards (auto commits may leave it open)
    recovered: str | None = None
    log_lines: list[str] = field(default_factory=list)
    bundle_stale: str | None = None  # why AGENTS.md was left behind the entries (also in warnings)
    delivered: list[str] = field(default_factory=list)  # files written or removed outside the memory

    @property
    def summary(self) -> str:
        return summary_line(self.counts, self.bundle_written)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dream_id": self.dream_id, "status": self.status, "counts": dict(self.counts),
            "summary": self.summary, "bundle_written": self.bundle_written,
            "conflicts": [{"proposal": c.proposal_id, "op": c.op, "target": c.target,
                           "reason": c.reason} for c in self.conflicts],
            "warnings": list(self.warnings), "git_sha": self.git_sha, "git_note": self.git_note,
            "consumed": self.consumed, "released": self.released, "recovered": self.recovered,
            "bundle_stale": self.bundle_stale, "delivered": list(self.delivered),
        }


# -- refusing ---------------------------------------------------------------------------------


def not_committable(changeset: Changeset) -> str | None:
    """Why this dream cannot be committed at all (a usage error), or None."""
    if changeset.status != "open":
        return f"dream {changeset.id} is {changeset.status}; only an open dream can be committed"
    if not changeset.complete:
        return (f"dream {changeset.id} is incomplete (still running, or its engine failed); "
                f"abandon it with `dreamtui abandon {changeset.id}`")
    if all(p.decision in (None, "defer") for p in changeset.reviewable):
        return (f"dream {changeset.id}: no proposal is decided yet; decide some first "
                f"(`dreamtui decide {changeset.id} …`) or abandon it")
    return None


def refusals(plan: Plan, on_guard_violation: str, dream_id: str) -> list[str]:
    """Why the planned commit would be refused before anything is written; empty when it may go."""
    problems = list(plan.refusals)
    if plan.violations and on_guard_violation == "fail":
        problems += [v.message for v in plan.violations]
    if not any(outcome in ("applied", "rejected") for outcome in plan.outcomes.values()) \
            and plan.conflicts:
        problems += [f"{c.proposal_id} {c.op} {c.target}: {c.reason}" for c in plan.conflicts]
        problems.insert(0, "every decided proposal conflicts with the files as they are now")
        # A conflict never resolves by waiting (the file stays as it is now), so say the two ways on.
        held = list(dict.fromkeys(c.proposal_id for c in plan.conflicts))
        which = "that proposal" if len(held) == 1 else "those proposals"
        problems.append(f"to go on: abandon the dream and dream again (`dreamtui abandon {dream_id}`, "
                        "then `dreamtui dream`), so its memories are weighed against the files as "
                        f"they are now; or reject {which} (`dreamtui decide {dream_id} {' '.join(held)} "
                        "reject`: the memories are consumed and the change is not proposed again)")
    return problems


def commit_blockers(changeset: Changeset, plan: Plan, on_guard_violation: str) -> list[str]:
    """Everything that stops this commit: the one rule `dreamtui commit` and the confirm screen share."""
    usage = not_committable(changeset)
    return ([usage] if usage else []) + refusals(plan, on_guard_violation, changeset.id)


def _refuse(plan: Plan, workspace: Workspace, dream_id: str) -> None:
    """CommitRefused before anything is written, or the warnings a `warn` setting lets through."""
    problems = refusals(plan, workspace.config.ltm.on_guard_violation, dream_id)
    if problems:
        raise CommitRefused("commit refused, nothing written:\n  " + "\n  ".join(problems))
    plan.warnings += [f"guard rail (on_guard_violation: warn): {v.message}" for v in plan.violations]


# -- the journal ------------------------------------------------------------------------------


def _log_text(workspace: Workspace, lines: list[str]) -> str:
    path = workspace.memory_root / LOG_PATH
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    if current and not current.endswith("\n"):
        current += "\n"  # a hand edit may have dropped the final newline; never glue lines
    return current + "".join(f"{line}\n" for line in lines)


def _file_writes(workspace: Workspace, plan: Plan) -> tuple[dict[Path, str], list[Path]]:
    root = workspace.memory_root
    writes = {root / path: text for path, text in plan.writes.items()}
    if plan.index is not None:
        writes[root / "INDEX.md"] = plan.index
    if plan.log_lines:
        writes[root / LOG_PATH] = _log_text(workspace, plan.log_lines)
    if plan.bundle is not None:
        writes[workspace.agents_md] = plan.bundle
    writes.update(plan.deliveries)  # the project's files and the skills, in the same journal
    return writes, [*(root / path for path in plan.moves), *plan.delivery_removals]


def _generated_files(workspace: Workspace) -> dict[Path, str | None]:
    """The generated files a commit may rewrite, hashed now: before the plan reads them, so any
    change after this read is one the plan may not have seen, and the journal refuses it."""
    root = workspace.memory_root
    paths = (root / "INDEX.md", root / LOG_PATH, workspace.agents_md)
    return {path: file_sha256(path) for path in paths}


def _bases(workspace: Workspace, plan: Plan, snapshot: LTMSnapshot,
           generated: dict[Path, str | None], writes: dict[Path, str]) -> dict[Path, str | None]:
    """What each file the commit writes or removes held when the plan read it (§4.2): an entry
    as the scan read it (None: a path the plan found free), a generated file as `generated`."""
    bases = {path: base for path, base in generated.items() if path in writes}
    bases.update(plan.delivery_bases)  # as deliver/ read them: a person's save since calls it off
    for path in [*plan.writes, *plan.moves]:
        entry = snapshot.entries.get(path)
        bases[workspace.memory_root / path] = None if entry is None else entry.sha256
    return bases


TRAILER_EDITED = "Edited"  # the proposals a person edited before accepting


def _git_message(changeset: Changeset, plan: Plan) -> str:
    edited = [p.id for p in changeset.proposals
              if edited_by_person(p) and plan.outcomes.get(p.id) == "applied"]
    trailer = f"{TRAILER_EDITED}: {' '.join(edited)}\n" if edited else ""
    return (f"dreamtui: dream {changeset.id} — {summary_line(plan.counts, plan.bundle is not None)}"
            f"\n\n{TRAILER_DREAM}: {changeset.id}\n{TRAILER_ENGINE}: {changeset.engine_label}\n"
            + trailer)



def _next_changeset(changeset: Changeset, plan: Plan, workspace: Workspace, now: datetime,
                    keep_open: bool) -> Changeset:
    """The record after the commit: closed, or (auto) open with only what is still undecided."""
    applied = [{"proposal": p.id, "op": p.op, "target": p.target, "decision": p.decision,
                "committed_at": iso_z(now)}
               for p in changeset.reviewable if plan.outcomes.get(p.id) in ("applied", "rejected")]
    stats = dict(changeset.stats)
    stats["committed"] = [*stats.get("committed", []), *applied]
    stats["conflicts"] = [{"proposal": c.proposal_id, "reason": c.reason} for c in plan.conflicts]
    remaining = [p for p in changeset.proposals if plan.outcomes.get(p.id) in ("open", "held")]
    for proposal in remaining:
        if plan.outcomes[proposal.id] == "held":
            proposal.decision = None  # held back: left undecided, never applied over an edit
    following = Changeset(**{**changeset.__dict__, "stats": stats})
    if not keep_open:
        following.status = "committed"
        return following
    following.proposals = remaining
    following.bundle = None  # recomputed below, against the bundle this commit writes
    following.batch = list(plan.open_memories)
    # Diff the next bundle against the one this commit writes (None: the file stays as it is).
    refresh_context(following, LTMSnapshot(entries=plan.entries_after), workspace, now,
                    bundle_now=plan.bundle)
    return following


def _stm_steps(changeset: Changeset, plan: Plan, now: datetime, keep_open: bool) -> STMSteps:
    release = plan.release if keep_open else [*plan.release, *plan.open_memories]
    return STMSteps(lease_id=changeset.lease_id, consume=plan.consume, release=release,
                    end_lease=not keep_open, at=now.isoformat())


def _keeps_open(plan: Plan, auto: bool) -> bool:
    """An auto commit leaves what it did not decide open for a person to review."""
    return auto and any(o in ("open", "held") for o in plan.outcomes.values())


def _journal_plan(workspace: Workspace, changeset: Changeset, plan: Plan, now: datetime,
                  keep_open: bool) -> JournalPlan:
    writes, removals = _file_writes(workspace, plan)
    following = _next_changeset(changeset, plan, workspace, now, keep_open)
    store = ChangesetStore(workspace.dreams_dir)
    git_message = _git_message(changeset, plan) if writes or removals else None
    writes[store.path_for(changeset.id)] = changeset_text(following)  # inside the journal: lands with the files
    return JournalPlan(label=f"dream {changeset.id}", writes=writes, removals=removals,
                       stm=_stm_steps(changeset, plan, now, keep_open),
                       rejections=list(plan.rejections), git_message=git_message)


# -- commit -----------------------------------------------------------------------------------


def _report(dream_id: str | None, plan: Plan, outcome: JournalOutcome, status: str,
            recovered: str | None, gone: bool = False) -> CommitReport:
    report = CommitReport(dream_id=dream_id, counts=dict(plan.counts), conflicts=list(plan.conflicts),
                          warnings=list(plan.warnings), bundle_written=plan.bundle is not None,
                          consumed=outcome.consumed, released=outcome.released, status=status,
                          recovered=recovered, log_lines=list(plan.log_lines),
                          bundle_stale=plan.bundle_stale,
                          delivered=[str(path) for path in [*plan.deliveries, *plan.delivery_removals]
                                     if str(path) not in outcome.kept])
    if outcome.git is not None:
        report.git_sha, report.git_note = outcome.git.sha, outcome.git.note
    report.warnings += [f"{path} {KEPT_NOTE}" for path in outcome.kept]
    if gone:
        report.warnings.append(f"{GONE}: the LTM changes are committed all the same; "
                               "no memory was consumed or returned to the queue")
    elif len(plan.consume) > outcome.consumed:
        report.warnings.append(
            f"{len(plan.consume) - outcome.consumed} memories were no longer held by this dream's "
            "lease (it expired) and were not consumed; they return to the queue")
    if plan.bundle_left_out and plan.bundle is not None:
        report.warnings.append(f"{len(plan.bundle_left_out)} entries did not fit the bundle's byte "
                               f"budget: {', '.join(plan.bundle_left_out[:10])}")
    return report


PLAN_ATTEMPTS = 3  # plans of one commit while a person keeps saving its files


def _plan_and_apply(workspace: Workspace, dream_id: str, moment: datetime,
                    auto: bool) -> tuple[Plan, LTMSnapshot, bool, JournalOutcome]:
    """Plan against the files as they are now and journal it; TargetsChanged (nothing written)
    when a person saved one of its files after the plan read it."""
    # Loaded afresh for every plan: _next_changeset marks held-back proposals undecided.
    changeset = ChangesetStore(workspace.dreams_dir).load(dream_id)
    usage = not_committable(changeset)
    if usage:
        raise InputError(usage)
    generated = _generated_files(workspace)
    snapshot = LTMStore(workspace.memory_root).scan()
    plan = plan_commit(changeset, snapshot, workspace, moment, auto=auto)
    _refuse(plan, workspace, changeset.id)
    keep_open = _keeps_open(plan, auto)
    journal = _journal_plan(workspace, changeset, plan, moment, keep_open)
    journal.bases = _bases(workspace, plan, snapshot, generated, journal.writes)
    return plan, snapshot, keep_open, run_journal(workspace, journal)


def commit(workspace: Workspace, dream_id: str, *, now: datetime | None = None,
           auto: bool = False) -> CommitReport:
    """Apply the dream's decisions. CommitRefused (exit 3) when guard rails or refusals say no."""
    moment = now or workspace.clock()
    called_off: list[str] = []
    with WorkspaceLock(workspace, f"commit {dream_id}").acquire():
        recovered = recover(workspace)
        with changeset_lock(workspace, dream_id):
            for attempt in range(1, PLAN_ATTEMPTS + 1):
                try:
                    plan, snapshot, keep_open, outcome = _plan_and_apply(workspace, dream_id,
                                                                         moment, auto)
                    break
                except TargetsChanged as changed:
                    # The next plan sees the person's version: its proposal is then held back
                    # like any conflict (§4.4), its memories returned, and nothing overwritten.
                    if attempt == PLAN_ATTEMPTS:
                        raise
                    called_off += changed.paths
    with STMStore.for_workspace(workspace) as stm:
        gone = memories_gone(stm, [*plan.consume, *plan.release, *plan.open_memories])
    # The changed entries are indexed now, not on an agent's next search (store/search.py).
    SearchIndex.for_workspace(workspace).refresh()
    report = _report(dream_id, plan, outcome, "open" if keep_open else "committed", recovered, gone)
    report.warnings[:0] = [f"{path} changed while the commit ran; planned again around your "
                           "version" for path in dict.fromkeys(called_off)]
    report.warnings.extend(_unreadable(snapshot))
    return report


def _unreadable(snapshot: LTMSnapshot) -> list[str]:
    """Entries the store had to skip are absent from the bundle (and from INDEX.md unless
    Dreamer's writer lists them too, `LTMSnapshot.listed`): say so, loudly."""
    return [f"skipped, not in {'AGENTS.md' if problem.path in snapshot.listed else 'INDEX.md or AGENTS.md'} "
            f"until fixed: {problem}" for problem in snapshot.problems]


def abandon(workspace: Workspace, dream_id: str) -> Abandoned:
    """Close an open dream without applying anything; its whole batch returns to the queue.

    The record says "abandoned" before the lease ends (store/leases.close_and_return). A record
    that does not load is moved aside to `<id>.json.corrupt`, never deleted, and what its lease
    holds returns when the lease can be read from the file (store/leases.abandon_unreadable).
    """
    # The workspace lock, as a commit takes it: the batch goes back to the queue, which a running
    # dream may be claiming from.
    with WorkspaceLock(workspace, f"abandon {dream_id}").acquire(), changeset_lock(workspace, dream_id):
        store = ChangesetStore(workspace.dreams_dir)
        path = store.path_for(dream_id)
        if not path.is_file():
            store.load(dream_id)  # raises the usual "no dream …" message
        record = read_record(path)
        if record.problem is not None:
            return abandon_unreadable(workspace, record)
        if record.status != "open" or record.changeset is None:
            raise InputError(f"dream {dream_id} is already {record.status}")
        with STMStore.for_workspace(workspace) as stm:
            gone = memories_gone(stm, record.changeset.batch)
        return Abandoned(dream_id, close_and_return(workspace, record.changeset), gone=gone)


def commit_human_change(workspace: Workspace, path: str, new_text: str | None, op: str,
                        reason: str, *, now: datetime | None = None,
                        consume: Sequence[str] = (), unconsume: Sequence[str] = (),
                        expect_sha256: str | None = None, label: str | None = None) -> CommitReport:
    """A person's edit / weaken / pin / unpin / archive / restore of one entry (Memory and Flags
    views).

    Journaled and logged like a dream's commit ("[human]" in LOG.md), with INDEX.md and the bundle
    regenerated and a git commit; no guard rail applies, because a person decided. `consume` names
    the pending feedback memories the decision settles (flags triaged by hand), consumed in the
    same journal so a crash cannot apply the decision and leave the flags to be decided again;
    `unconsume` returns such memories to the queue when that decision is undone.
    `expect_sha256`: refuse (InputError) unless the entry at `path` is still exactly that text.
    `label`: what LOG.md and the git message call the change when `op` alone would misname it
    (a triage's "correct", its "undo archive"); `op` by default.
    """
    moment = now or workspace.clock()
    if not reason.strip():
        raise InputError("reason: say in a few words why (it goes into LOG.md and the git message)")
    with WorkspaceLock(workspace, f"{op} {path}").acquire():
        recovered = recover(workspace)
        generated = _generated_files(workspace)
        snapshot = LTMStore(workspace.memory_root).scan()
        current = snapshot.entries.get(path)
        if expect_sha256 is not None and (current is None or current.sha256 != expect_sha256):
            raise InputError(f"{path} has changed since; not overwritten")
        plan = plan_human_change(snapshot, workspace, path, new_text, op, reason, moment, label=label)
        writes, removals = _file_writes(workspace, plan)
        message = f"dreamtui: {label or op} {path} (by hand)\n\nReason: {' '.join(reason.split())}\n"
        steps = STMSteps(lease_id=None, consume=list(consume), end_lease=False,
                         at=moment.isoformat(), unconsume=list(unconsume)) \
            if consume or unconsume else None
        # TargetsChanged (exit 3) when a file changed meanwhile: the person's text was written
        # against the old one, so it is not applied over the new one.
        outcome = run_journal(workspace, JournalPlan(
            label=f"human {op} {path}", writes=writes, removals=removals, stm=steps,
            git_message=message, bases=_bases(workspace, plan, snapshot, generated, writes)))
    SearchIndex.for_workspace(workspace).refresh()
    report = _report(None, plan, outcome, "committed", recovered)
    report.warnings.extend(_unreadable(snapshot))
    return report


def commit_bundle(workspace: Workspace, *, now: datetime | None = None) -> CommitReport:
    """Regenerate AGENTS.md (and CLAUDE.md) from the live entries, journaled like any commit: a
    LOG.md line ("[human]") and a git commit. Nothing is written when the bundle is up to date."""
    moment = now or workspace.clock()
    with WorkspaceLock(workspace, "bundle").acquire():
        recovered = recover(workspace)
        generated = _generated_files(workspace)
        snapshot = LTMStore(workspace.memory_root).scan()
        plan = plan_bundle(snapshot, workspace, moment)
        writes, removals = _file_writes(workspace, plan)
        outcome = JournalOutcome("", None) if not writes else run_journal(workspace, JournalPlan(
            label="bundle", writes=writes, removals=removals, stm=None,
            git_message="dreamtui: bundle regenerated from the live entries (by hand)\n",
            bases=_bases(workspace, plan, snapshot, generated, writes)))
    report = _report(None, plan, outcome, "committed", recovered)
    report.warnings.extend(_unreadable(snapshot))
    return report
