"""The workbench's one handle on the core. Every method blocks: call it from a job, never a handler.

This layer only gathers what a view shows and forwards decisions to the core; the core decides
what a change means and guards it, so the TUI can never write LTM by another path.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from dreamtui.errors import EntryError
from dreamtui.model import (
    FEEDBACK_CONFIRMED,
    FEEDBACK_FLAGGED,
    FEEDBACK_TYPES,
    Changeset,
    Entry,
    Memory,
)
from dreamtui.review.bundle import find_markers, read_bundle
from dreamtui.store.changesets import ChangesetStore, ChangesetSummary
from dreamtui.store.ltm import ARCHIVE, LTMSnapshot, LTMStore
from dreamtui.store.search import SearchIndex
from dreamtui.store.stm import MemoryFilter, STMStore
from dreamtui.workspace.layout import Workspace

# The commit, dream and policy modules (engines, rapidfuzz, git) are imported by the methods that
# use them, in a job's thread: the first screen must not wait ~0.5 s for what it does not show.
if TYPE_CHECKING:
    from dreamtui.dream.engines.base import CancelToken, Event
    from dreamtui.review.commit import CommitReport
    from dreamtui.review.decide import AllMatching
    from dreamtui.review.plan import Plan
    from dreamtui.review.triage import FlagGroup, Undone, UndoRecord, Verdict

FEEDBACK_PAGE = 5000


@dataclass(frozen=True)
class QueueQuery:
    filter: MemoryFilter = MemoryFilter()
    newest_first: bool = True


@dataclass(frozen=True)
class QueueResult:
    query: QueueQuery
    total: int
    first_page: list[Memory]


@dataclass(frozen=True)
class LTMData:
    """What the Memory and Flags views show of LTM, gathered in one job."""

    entries: list[Entry]  # live entries by path, then archived ones
    problems: list[EntryError]
    bundle_lines: dict[str, list[tuple[int, str]]]  # slug → (line number, line) in AGENTS.md
    log: dict[str, list[str]]  # live path → LOG.md lines naming it, newest first
    feedback: dict[str, list[Memory]]  # slug → feedback memories that target it, newest first

    def flags(self, slug: str, *, pending_only: bool = False) -> list[Memory]:
        return [m for m in self.feedback.get(slug, ())
                if m.type == FEEDBACK_FLAGGED and (m.state == "pending" or not pending_only)]

    def confirmations(self, slug: str) -> list[Memory]:
        return [m for m in self.feedback.get(slug, ()) if m.type == FEEDBACK_CONFIRMED]


@dataclass(frozen=True)
class Sources:
    entry_path: str
    found: list[Memory]
    missing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HistoryData:
    log: list[str]  # LOG.md decisions, newest first
    commits: list[dict[str, object]]  # gitlog.recent_commits, newest first
    git_note: str  # why there are no commits, when there are none


@dataclass(frozen=True)
class FlagItem:
    """One flagged entry to triage (the core's group: the entry and its pending flags, oldest
    first) and what speaks for it."""

    group: FlagGroup
    confirmations: list[Memory]  # context_confirmed memories naming it, newest first
    bundle_lines: list[tuple[int, str]]

    @property
    def entry(self) -> Entry:
        return self.group.entry

    @property
    def flags(self) -> list[Memory]:
        return self.group.flags


@dataclass(frozen=True)
class DreamsState:
    summaries: list[ChangesetSummary]
    changeset: Changeset | None


@dataclass(frozen=True)
class CommitPreview:
    changeset: Changeset
    plan: Plan
    on_violation: str  # "fail" | "warn" (ltm.on_guard_violation)

    @property
    def blocking(self) -> list[str]:
        """Why the commit would be refused, empty when it can go: the core's own rule."""
        from dreamtui.review.commit import commit_blockers

        return commit_blockers(self.changeset, self.plan, self.on_violation)


def feedback_targets(memory: Memory) -> list[str]:
    """The slugs a feedback memory names (`target` for confirmations, `targets` for flags)."""
    from dreamtui.model import confirmation_target, flag_targets

    if memory.type == FEEDBACK_FLAGGED:
        return flag_targets(memory)
    target = confirmation_target(memory)
    return [target] if target else []


def live_path(path: str) -> str:
    return path.removeprefix(f"{ARCHIVE}/")


class Backend:
    def __init__(self, workspace: Workspace, clock: Callable[[], datetime]) -> None:
        self.workspace = workspace
        self.clock = clock
        self.ltm = LTMStore(workspace.memory_root)
        self.search = SearchIndex.for_workspace(workspace)  # the `/` filter of the Memory view
        self.changesets = ChangesetStore(workspace.dreams_dir)
        self._stm: STMStore | None = None
        self._lock = threading.Lock()
        self._snapshot: LTMSnapshot | None = None

    @property
    def stm(self) -> STMStore:
        with self._lock:
            if self._stm is None:
                self._stm = STMStore.for_workspace(self.workspace)
            return self._stm

    def close(self) -> None:
        with self._lock:
            if self._stm is not None:
                self._stm.close()
                self._stm = None

    def forget_cache(self) -> None:
        with self._lock:
            self._snapshot = None

    def snapshot(self) -> LTMSnapshot:
        """One scan shared by the views until the next commit (10,000 entries take ~1 s)."""
        with self._lock:
            if self._snapshot is None:
                self._snapshot = self.ltm.scan()
            return self._snapshot

    # -- queue ------------------------------------------------------------------------------------

    def queue_first(self, query: QueueQuery, limit: int) -> QueueResult:
        stm = self.stm
        return QueueResult(query=query, total=stm.count(query.filter),
                           first_page=stm.page(query.filter, offset=0, limit=limit,
                                               newest_first=query.newest_first))

    def queue_counts(self) -> dict[str, int]:
        """pending / claimed / consumed: a full scan (~0.1 s at 100,000), so a job of its own."""
        return self.stm.counts()

    def queue_page(self, query: QueueQuery, offset: int, limit: int) -> list[Memory]:
        return self.stm.page(query.filter, offset=offset, limit=limit, newest_first=query.newest_first)

    # -- LTM and provenance -----------------------------------------------------------------------

    def ltm_data(self) -> LTMData:
        snapshot = self.snapshot()
        live = sorted(snapshot.live(), key=lambda e: e.path)
        archived = sorted(snapshot.archived(), key=lambda e: e.path)
        return LTMData(entries=live + archived, problems=list(snapshot.problems),
                       bundle_lines=self._bundle_lines(), log=self._log_index(),
                       feedback=self._feedback_index())

    def _bundle_lines(self) -> dict[str, list[tuple[int, str]]]:
        text = read_bundle(self.workspace.agents_md)
        lines: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for number, line in enumerate(text.splitlines(), start=1):
            for slug in dict.fromkeys(find_markers(line)):
                lines[slug].append((number, line))
        return dict(lines)

    def _log_index(self) -> dict[str, list[str]]:
        """LOG.md lines by the entry path they name (`- <time> <op> <path> …`)."""
        index: dict[str, list[str]] = defaultdict(list)
        for line in self.ltm.log_lines(newest_first=True):
            parts = line.split(maxsplit=4)
            if len(parts) >= 4:
                index[live_path(parts[3])].append(line)
        return dict(index)

    def _feedback_index(self) -> dict[str, list[Memory]]:
        index: dict[str, list[Memory]] = defaultdict(list)
        flt = MemoryFilter(types=FEEDBACK_TYPES)
        offset = 0
        while page := self.stm.page(flt, offset=offset, limit=FEEDBACK_PAGE):
            for memory in page:
                for slug in feedback_targets(memory):
                    index[slug].append(memory)
            offset += len(page)
        return dict(index)

    def sources(self, entry: Entry) -> Sources:
        ids = [s.removeprefix("stm:") for s in entry.sources]
        found = self.stm.get_many(ids)
        known = {m.id for m in found}
        return Sources(entry.path, found, [i for i in ids if i not in known])

    def memories(self, ids: list[str]) -> list[Memory]:
        return self.stm.get_many(ids)

    # -- flags and human decisions ------------------------------------------------------------

    def flag_items(self) -> list[FlagItem]:
        """Live entries with pending flags, in the order the flags came in (oldest first); a flag
        that names no live entry is left for the dream, which discards it with a reason."""
        from dreamtui.dream.triage_rules import POLICY_RULES
        from dreamtui.review.triage import pending

        snapshot = self.snapshot()
        groups = pending(self.workspace, POLICY_RULES, snapshot=snapshot, stm=self.stm).groups
        feedback = self._feedback_index()
        bundle = self._bundle_lines()
        return [FlagItem(group=group,
                         confirmations=[m for m in feedback.get(group.entry.slug, ())
                                        if m.type == FEEDBACK_CONFIRMED],
                         bundle_lines=bundle.get(group.entry.slug, []))
                for group in groups]

    def human_change(self, path: str, new_text: str | None, op: str, reason: str,
                     consume: Sequence[str] = (), unconsume: Sequence[str] = (),
                     expect_sha256: str | None = None) -> str:
        """A person's pin / unpin / archive / edit / restore through the guarded commit path;
        its summary."""
        from dreamtui.review.commit import commit_human_change

        report = commit_human_change(self.workspace, path, new_text, op, reason, now=self.clock(),
                                     consume=consume, unconsume=unconsume,
                                     expect_sha256=expect_sha256)
        self.forget_cache()
        return report.summary

    def triage(self, item: FlagItem, decision: str) -> Verdict:
        """archive (the flag is right), pin (it is wrong) or weaken (keep it, with a caveat)."""
        from dreamtui.dream.triage_rules import POLICY_RULES
        from dreamtui.review.triage import give

        try:
            return give(self.workspace, item.group, decision, POLICY_RULES, now=self.clock())
        finally:
            self.forget_cache()  # a refusal too: the entry changed on disk since the cached scan

    def correct_flagged(self, item: FlagItem, text: str) -> Verdict:
        """The flag is right and the entry still useful: `text` (as `correction_draft` gave it,
        edited) replaces the entry, its flags consumed; InputError when nothing changed."""
        from dreamtui.review.triage import correct

        try:
            return correct(self.workspace, item.group, text, now=self.clock())
        finally:
            self.forget_cache()

    def undo_triage(self, record: UndoRecord) -> Undone:
        """The entry back as it was before the verdict, its flags pending again; refused
        (InputError) when the entry changed since."""
        from dreamtui.review.triage import undo

        try:
            return undo(self.workspace, record.id, now=self.clock())
        finally:
            self.forget_cache()

    # -- dreams -----------------------------------------------------------------------------------

    def open_dreams(self, wanted: str | None) -> DreamsState:
        """The open dreams, newest first, and the one to review (`wanted`, else the newest)."""
        summaries = self.changesets.open_changesets()
        ids = [s.id for s in summaries]
        chosen = wanted if wanted in ids else (ids[0] if ids else None)
        return DreamsState(summaries, self.changesets.load(chosen) if chosen else None)

    def engines(self) -> list[str]:
        from dreamtui.dream.engines.base import BUILTIN_ENGINES

        configured = self.workspace.config.dream.engine
        return [configured, *(name for name in BUILTIN_ENGINES if name != configured)]

    def run_dream(self, engine: str, cancel: CancelToken,
                  on_event: Callable[[Event, Changeset], None]) -> Changeset | None:
        from dreamtui.dream.runner import dream

        return dream(self.workspace, engine=engine, cancel=cancel, on_event=on_event, now=self.clock())

    def decide(self, dream_id: str, selection: Sequence[str] | AllMatching, decision: str) -> Changeset:
        from dreamtui.review.decide import decide

        return decide(self.workspace, dream_id, selection, decision, snapshot=self.snapshot(),
                      now=self.clock())

    def edit_proposal(self, dream_id: str, proposal_id: str, text: str) -> Changeset:
        from dreamtui.review.decide import edit_proposal

        return edit_proposal(self.workspace, dream_id, proposal_id, text, snapshot=self.snapshot(),
                             now=self.clock())

    def reroute(self, dream_id: str, proposal_id: str, route: str) -> Changeset:
        from dreamtui.review.decide import reroute

        return reroute(self.workspace, dream_id, proposal_id, route, snapshot=self.snapshot(),
                       now=self.clock())

    def undo(self, dream_id: str) -> Changeset:
        from dreamtui.review.decide import undo_last

        return undo_last(self.workspace, dream_id, snapshot=self.snapshot(), now=self.clock())

    def preview_commit(self, dream_id: str) -> CommitPreview:
        """What committing would do, read fresh from disk: conflicts must show what is there now."""
        from dreamtui.review.plan import plan_commit

        changeset = self.changesets.load(dream_id)
        snapshot = self.ltm.scan()
        with self._lock:
            self._snapshot = snapshot
        return CommitPreview(changeset, plan_commit(changeset, snapshot, self.workspace, self.clock()),
                             self.workspace.config.ltm.on_guard_violation)

    def commit(self, dream_id: str) -> CommitReport:
        from dreamtui.review.commit import commit

        report = commit(self.workspace, dream_id, now=self.clock())
        self.forget_cache()
        return report

    # -- history ----------------------------------------------------------------------------------

    def history(self, log_limit: int = 5000, commit_limit: int = 500) -> HistoryData:
        from dreamtui.store.git import is_repository, recent_commits

        commits = recent_commits(self.workspace, commit_limit)
        note = "" if commits else ("no commits yet" if is_repository(self.workspace)
                                   else "the workspace is not a git repository")
        return HistoryData(self.ltm.log_lines(newest_first=True, limit=log_limit), commits, note)
