"""The incremental import: which of a project's logs to read, from where, and submitting what
they yield.

Per log file, `dreamtui.store.import_state` keeps the byte offset read up to, the size and mtime,
the identity of the last record consumed, and the parser's context (recent tool calls, the last
action), so an appended log is read from where it stopped and a tool result still names its
tool. An unchanged log (same size and mtime) is not opened. A log that shrank, or whose last
consumed line changed, is read whole again; idempotency keys keep that from duplicating
memories. Logs written to within `live_minutes` are live sessions and are skipped unless asked
for.

Across logs: a resumed session replays earlier records (same record uuids) into a new file, so a
friction whose record was already imported — from another file, in this import or an earlier one
(the uuids each log yielded are kept in its state) — is not stored again; logs are read oldest
first, so the original keeps it. A resume may also record the events again under new uuids, into
the same file or another: an event is also known by what it is (`frictions.Origin.events`: a
failed call by its tool_use_id, a typed turn by its words and the message they answer), and one
met before — in another log, or earlier in this one, now or in an earlier import (kept with the
uuids) — is not stored again either. A tool error kept only as a candidate (`frictions` module
docstring) becomes a memory when the same error occurs in two or more sessions: of this import,
or of this one and an earlier one (each log's state keeps the signatures of its one-off errors).
`--since` is the time of each event, not of the file: a log untouched since then is not opened,
and an event before it in a log written to since is left out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dreamtui.errors import InputError
from dreamtui.intake.claude_code.discovery import LogFile, belongs, find_logs, placing_cwds
from dreamtui.intake.claude_code.memories import CLAUDE_CODE, SOURCE, build_memories
from dreamtui.intake.claude_code.parser import ReadStats, line_identity, read_log
from dreamtui.intake.lessons import Friction, routine_error, submit_lessons
from dreamtui.model import NewMemory
from dreamtui.store.import_state import FileState, context_values, load_states, save_states
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace


@dataclass(frozen=True)
class ImportOptions:
    projects_dir: Path
    project: str
    since: datetime | None = None
    include_live: bool = False
    live_minutes: int = 10
    dry_run: bool = False


@dataclass
class ImportReport:
    logs: int = 0
    read: int = 0
    unchanged: int = 0
    live: int = 0
    too_old: int = 0
    other_project: int = 0
    replayed: int = 0  # frictions of records or events imported already (resumed sessions)
    before_since: int = 0  # frictions of events before --since
    single_errors: int = 0  # tool errors seen once, with nothing that makes them a lesson
    stats: ReadStats = field(default_factory=ReadStats)
    frictions: int = 0
    memories: list[NewMemory] = field(default_factory=list)
    inserted: int = 0
    duplicates: int = 0
    recounted: int = 0  # pending memories whose occurrence count this import raised


def _anchor_holds(path: Path, state: FileState) -> bool:
    """Is the last line we consumed still where we left it? (Otherwise the log was rewritten.)"""
    if state.last_id is None:
        return state.offset == 0
    try:
        with open(path, "rb") as handle:
            handle.seek(state.anchor)
            line = handle.read(state.offset - state.anchor)
    except OSError:
        return False
    return line.endswith(b"\n") and line_identity(line) == state.last_id


# What every log's state is asked for once a friction is met (`import_state.context_values`).
_ACROSS_LOGS = ("friction_uuids", "error_signatures")
# Where a log's state keeps its `discovery.placing_cwds`: the project check of every import
# reads them there, not from the log (nor from the parser's `cwd`, the last one the log had).
_PLACED = "placed"


def _uuids_of(context: dict[str, Any]) -> list[str]:
    """The record uuids and event identities (`frictions.Origin.events`) a log's frictions had."""
    uuids = context.get("friction_uuids")
    return [u for u in uuids if isinstance(u, str)] if isinstance(uuids, list) else []


def _signatures_of(context: dict[str, Any]) -> list[list[str]]:
    pairs = context.get("error_signatures")
    return [p for p in pairs if isinstance(p, list)] if isinstance(pairs, list) else []


def resume_point(path: Path, state: FileState | None, stat: os.stat_result) -> FileState | None:
    """The state to resume reading from; None when the log is unchanged and need not be opened."""
    fresh = FileState(0, 0, 0, 0, None, {})
    if state is None:
        return fresh
    if stat.st_size == state.size and stat.st_mtime_ns == state.mtime_ns:
        return None
    if stat.st_size < state.offset or not _anchor_holds(path, state):
        return fresh
    return state


def _placed(state: FileState | None) -> list[str] | None:
    """The `placing_cwds` an earlier import kept for the log (None: none kept, read them)."""
    placed = state.context.get(_PLACED) if state is not None else None
    return [c for c in placed if isinstance(c, str)] if isinstance(placed, list) else None


def _selected(logs: list[LogFile], options: ImportOptions, states: dict[str, FileState],
              report: ImportReport, now: datetime) -> list[tuple[LogFile, os.stat_result, list[str]]]:
    """The logs to look at, oldest first (a resumed session's original before its replay), each
    with the `cwd` values that placed it."""
    live_after = now.timestamp() - options.live_minutes * 60
    since = options.since.timestamp() if options.since else None
    verdicts: dict[Path, bool] = {}
    chosen: list[tuple[LogFile, os.stat_result, list[str]]] = []
    for log in logs:  # session logs come before their subagents' (`find_logs`)
        try:
            stat = log.path.stat()
        except OSError:
            continue  # vanished since the folder was listed
        if since is not None and stat.st_mtime < since:
            report.too_old += 1
            continue
        state = states.get(str(log.path))
        placed = _placed(state)
        if placed is None or (not placed and state is not None and
                              (state.size, state.mtime_ns) != (stat.st_size, stat.st_mtime_ns)):
            placed = placing_cwds(log)  # a log that had no `cwd` may have one now
        mine = belongs(log, options.project, placed, verdicts)
        if not log.subagent:
            verdicts[log.path] = mine
        if not mine:
            report.other_project += 1
        elif stat.st_mtime >= live_after and not options.include_live:
            report.live += 1
        else:
            chosen.append((log, stat, placed))
    return sorted(chosen, key=lambda chosen: (chosen[1].st_mtime_ns, str(chosen[0].path)))


def _owners(contexts: dict[str, dict[str, Any]], read_now: dict[str, str]) -> dict[str, str]:
    """Which log each record uuid came from: an earlier import's frictions first, then the
    logs this import read before (`read_now`, the first log to yield each)."""
    owners: dict[str, str] = {}
    for path, context in contexts.items():
        for uuid in _uuids_of(context):
            owners.setdefault(uuid, path)
    for uuid, path in read_now.items():
        owners.setdefault(uuid, path)
    return owners


def _after(friction: Friction, since: datetime | None) -> bool:
    if since is None or not friction.timestamp:
        return True
    try:
        moment = datetime.fromisoformat(friction.timestamp.replace("Z", "+00:00"))
    except ValueError:
        return True
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)) >= since


def _seen_errors(contexts: dict[str, dict[str, Any]], skip: set[str]) -> dict[str, set[str]]:
    """The sessions each one-off tool error of earlier imports occurred in, by signature (logs
    read again now left out: their errors are counted from this read)."""
    sessions: dict[str, set[str]] = {}
    for path, context in contexts.items():
        pairs = context.get("error_signatures")
        if path in skip or not isinstance(pairs, list):
            continue
        for pair in pairs:
            if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair):
                sessions.setdefault(pair[0], set()).add(pair[1])
    return sessions


def _recurring(frictions: list[Friction], earlier: dict[str, set[str]],
               report: ImportReport) -> list[Friction]:
    """Tool-error candidates kept when the same error occurs in two or more sessions, counting
    the sessions of earlier imports of this workspace."""
    sessions = {signature: set(found) for signature, found in earlier.items()}
    for friction in frictions:
        signature = friction.extra.get("signature")
        if isinstance(signature, str):
            sessions.setdefault(signature, set()).add(friction.session_id)
    kept = []
    for friction in frictions:
        signature = friction.extra.pop("signature", None)
        if not isinstance(signature, str):
            kept.append(friction)
        elif len(sessions[signature]) >= 2 and not routine_error(friction.evidence):
            friction.why = f"the same error occurred in {len(sessions[signature])} sessions"
            kept.append(friction)
        else:
            report.single_errors += 1
    return kept


def import_logs(workspace: Workspace, options: ImportOptions, *,
                now: datetime | None = None) -> ImportReport:
    """Read what is new in the project's logs, and submit its frictions (unless a dry run)."""
    now = now or datetime.now(UTC)
    # State rows are keyed by absolute path: the same log must not look new under another spelling.
    projects_dir = Path(os.path.expanduser(options.projects_dir)).resolve()
    options = replace(options, projects_dir=projects_dir)
    if not projects_dir.is_dir():
        raise InputError(f"--projects-dir {projects_dir}: not a folder (Claude Code keeps "
                         "session logs in ~/.claude/projects; see claude_code.projects_dir)")
    logs = find_logs(options.projects_dir, options.project)
    # Only this project's states up front, and of each context only what places the log: an
    # unchanged re-import needs nothing else. The whole context of a log read on from where it
    # stopped is decoded next; of every log's state only its record uuids and one-off errors,
    # and only once a friction is met.
    heads = load_states(workspace, SOURCE, {str(log.path) for log in logs}, keys=(_PLACED,))
    report = ImportReport(logs=len(logs))
    frictions: list[Friction] = []
    updated: dict[str, FileState] = {}
    starts: list[tuple[LogFile, os.stat_result, FileState, list[str]]] = []
    for log, stat, placed in _selected(logs, options, heads, report, now):
        start = resume_point(log.path, heads.get(str(log.path)), stat)
        if start is None:
            report.unchanged += 1
        else:
            starts.append((log, stat, start, placed))
    if not starts:
        return report
    resumed = {str(log.path) for log, _, start, _ in starts if start is heads.get(str(log.path))}
    states = load_states(workspace, SOURCE, resumed) if resumed else {}
    starts = [(log, stat, states.get(str(log.path), FileState(0, 0, 0, 0, None, {}))
               if str(log.path) in resumed else start, placed) for log, stat, start, placed in starts]
    # Every log's record uuids and one-off errors, read at the first friction met: an import
    # whose new lines hold none (a session's few new lines, a quiet project) needs no other log.
    every: dict[str, dict[str, Any]] | None = None
    owners: dict[str, str] = {}
    reread: set[str] = set()  # logs read from their start: their earlier errors are read again
    for log, stat, start, placed in starts:
        state = states.get(str(log.path))
        outcome = read_log(log, str(log.path.relative_to(options.projects_dir)), start.offset,
                           start.context, start.anchor, start.last_id)
        report.read += 1
        report.stats.add(outcome.stats)
        yielded = _uuids_of(start.context) if start is state else []
        if start is not state:
            reread.add(str(log.path))
        here = str(log.path)
        met = set(yielded)  # the events this log yielded, to know a copy later in it
        for friction in outcome.frictions:
            if every is None:
                every = context_values(workspace, SOURCE, _ACROSS_LOGS)
                owners = _owners(every, owners)
            events = friction.extra.pop("events", [])
            if owners.get(friction.record_uuid or "", here) != here or \
                    any(e in met or owners.get(e, here) != here for e in events):
                report.replayed += 1
                continue
            met.update(events)
            yielded.extend([*friction.record_uuids, *events])
            if _after(friction, options.since):
                frictions.append(friction)
            else:
                report.before_since += 1
        for uuid in yielded:
            owners.setdefault(uuid, here)
        signatures = [[f.extra["signature"], f.session_id] for f in outcome.frictions
                      if isinstance(f.extra.get("signature"), str)]
        if start is state:
            signatures = _signatures_of(start.context) + signatures
        context = {**outcome.context, _PLACED: placed, "friction_uuids": list(dict.fromkeys(yielded)),
                   "error_signatures": [list(p) for p in dict.fromkeys(map(tuple, signatures))]}
        updated[str(log.path)] = FileState(outcome.offset, stat.st_size, stat.st_mtime_ns,
                                           outcome.anchor, outcome.last_id, context)
    frictions = _recurring(frictions, _seen_errors(every, reread) if every is not None else {},
                           report)
    report.frictions = len(frictions)
    report.memories = build_memories(frictions, workspace.config)
    if options.dry_run:
        return report
    with STMStore.for_workspace(workspace) as store:
        # Met again, under its key or an earlier version's: the pending memory counts it.
        result = submit_lessons(store, report.memories, workspace.config.stm.max_content_bytes,
                                CLAUDE_CODE, now=now)
        report.recounted = result.recounted
        # Saved after the submit: a crash in between re-reads these logs, and keys absorb the
        # repeat. Saved while the queue is still open, so that closing the state's connection is
        # not the last close, which would copy the log into the database (and sync it) once more.
        if updated:
            save_states(workspace, SOURCE, updated, now)
    report.inserted, report.duplicates = result.inserted, result.duplicates
    return report
