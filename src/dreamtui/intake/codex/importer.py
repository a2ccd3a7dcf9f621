"""The Codex import: which rollouts belong to the project, which changed, and their lessons.

A rollout belongs to the project when the `cwd` of its `session_meta` (in the older layout, of
its first `<environment_context>`) is the project folder or inside it (path components, so
`/code/app` never takes `/code/app2`'s sessions). Every rollout looked at is recorded in the
import state (`dreamtui_import_state`, source `codex`) with its size, mtime and cwd, so an
unchanged one is not opened again, whichever project it belongs to. A
changed rollout is read whole: Codex appends to it while the session runs, the frictions are
derived again and the idempotency keys (`lessons.friction_key`: a person's words per session and
event; a failure or a fact of the machine per import) keep the ones already submitted from coming
back, and so does a memory an earlier version stored under another key (`lessons.submit_lessons`
knows a lesson by the records it was made of too); a failure met again raises the count of its
pending memory. The person's instructions about commands ("don't bother running mix precommit")
are kept in the state of the rollout they were typed in: a failure read in a later import takes
them as its lesson, and a pending failure stored before them is given them
(`lessons.instruct_pending`). `--since` compares each friction's own timestamp.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dreamtui.errors import InputError
from dreamtui.intake import lessons
from dreamtui.intake.codex.frictions import Detector, Friction, Instruction, instruction_for
from dreamtui.intake.codex.reader import ReadStats, RolloutReader, head_cwd
from dreamtui.intake.lessons import path_inside
from dreamtui.model import NewMemory
from dreamtui.store.import_state import FileState, load_states, save_states
from dreamtui.store.stm import STMStore
from dreamtui.vocabulary import clip
from dreamtui.workspace.layout import Workspace

SOURCE = "codex"
AGENT_ID = "codex"
_FIRST_LINE_LIMIT = 16 * 1024 * 1024  # a session_meta line carries the base instructions
_READ_BUFFER = 1 << 20

@dataclass(frozen=True)
class CodexOptions:
    sessions_dir: Path
    project: str
    since: datetime | None = None
    include_live: bool = False
    live_minutes: int = 10
    dry_run: bool = False


@dataclass
class CodexReport:
    logs: int = 0
    read: int = 0
    unchanged: int = 0
    live: int = 0
    too_old: int = 0
    other_project: int = 0
    no_cwd: int = 0
    unreadable: list[str] = field(default_factory=list)  # "<rollout>: <why>", one a rollout
    malformed_at: str = ""  # "<rollout>:<line>" of the first malformed line, for the person to look at
    stats: ReadStats = field(default_factory=ReadStats)
    frictions: int = 0
    memories: list[NewMemory] = field(default_factory=list)
    inserted: int = 0
    duplicates: int = 0
    recounted: int = 0
    instructed: int = 0  # pending failures given the person's instruction found later


def default_sessions_dir(workspace: Workspace, environ: dict[str, str] | None = None) -> Path:
    """`codex.sessions_dir`, else `$CODEX_HOME/sessions`, else `~/.codex/sessions`."""
    env = os.environ if environ is None else environ
    configured = workspace.config.codex.sessions_dir
    if configured:
        path = Path(os.path.expanduser(configured))
        return path if path.is_absolute() else workspace.root / path
    home = env.get("CODEX_HOME")
    return Path(os.path.expanduser(home)) / "sessions" if home else Path.home() / ".codex" / "sessions"


def default_project(workspace: Workspace) -> str:
    """`codex.project`, else `project.root`, else the workspace folder."""
    configured = workspace.config.codex.project
    if configured:
        path = Path(os.path.expanduser(configured))
        return str((path if path.is_absolute() else workspace.root / path).resolve())
    return str((workspace.project_root or workspace.root).resolve())


def find_rollouts(sessions_dir: Path) -> list[Path]:
    """Every `rollout-*.jsonl` under the sessions folder (YYYY/MM/DD, or flat), in name order."""
    try:
        # By parts, as paths compare, without comparing Path objects (costly in a large folder).
        return sorted(sessions_dir.rglob("rollout-*.jsonl"), key=lambda path: path.parts)
    except OSError as exc:
        raise InputError(f"--sessions-dir {sessions_dir}: cannot list it: {exc.strerror}") from None


def rollout_cwd(path: Path) -> str | None:
    """The session's cwd (`reader.head_cwd`: its `session_meta`, or the older layout's first
    `<environment_context>`); None when there is none or the file cannot be read."""
    try:
        return _first_cwd(path)
    except OSError:
        return None


def _first_cwd(path: Path) -> str | None:
    """`rollout_cwd`, raising OSError when the file cannot be read."""
    with open(path, "rb") as handle:
        return head_cwd(iter(lambda: handle.readline(_FIRST_LINE_LIMIT), b""))


def read_rollout(path: Path) -> tuple[list[Friction], ReadStats, str | None]:
    """The rollout's frictions, what reading it counted, and the Codex version that wrote it."""
    frictions, stats, version, _ = read_rollout_with_instructions(path)
    return frictions, stats, version


def read_rollout_with_instructions(
        path: Path) -> tuple[list[Friction], ReadStats, str | None, list[Instruction]]:
    """`read_rollout`, and the person's instructions about commands (`Detector.instructions`)."""
    reader, detector = RolloutReader(), Detector()
    # A large buffer: a rollout's lines of a megabyte (a command's whole output) would be read in
    # the default buffer's 8 KB pieces.
    with open(path, "rb", buffering=_READ_BUFFER) as handle:
        for event in reader.events(handle):
            detector.feed(event)
    return detector.finish(), reader.stats, detector.version, detector.instructions


def _more_ids(metadata: Mapping[str, Any]) -> list[str]:
    """The records a memory names besides its counted ones, as `shared_friction` names them:
    the stop of a message the person amended, and, for one stored before record ids were kept,
    its call (a correction's was the call before the person's turn, not the turn) and its time."""
    session, call, moment = (metadata.get(k) for k in ("session_id", "call_id", "timestamp"))
    stopped = metadata.get("stopped")
    ids = [stopped] if isinstance(stopped, str) else []
    if not isinstance(session, str):
        return ids
    ids += [f"{session}:@{moment}"] if isinstance(moment, str) else []
    if isinstance(call, str) and metadata.get("kind") != "correction":
        ids.append(f"{session}:{call}")
    return ids


CODEX = lessons.Source(name=SOURCE, agent_id=AGENT_ID, subagent_id=AGENT_ID, key_prefix="codex",
                       label="Codex", more_ids=_more_ids)


def shared_friction(friction: Friction, log: str, version: str | None) -> lessons.Friction:
    """The friction as every importer's lessons read it (`intake.lessons`): the call it names,
    the event it is as a record id (`<session>:<call or turn>`), Codex's own ids in metadata."""
    tool = friction.tool or "shell"
    # A tool that takes no command or patch is named by its name alone ("use request_user_input").
    target = friction.action if friction.action != tool else None
    call = lessons.ToolCall(tool, target, _patched_file(friction)) if friction.action else None
    extra: dict[str, object] = {"call_id": friction.call_id, "cli_version": version}
    if friction.kind in ("tool_error", "environment") and target:
        extra["command"] = target  # what an instruction found in a later import names
    if friction.stopped:
        extra["stopped"] = f"{friction.session_id}:{friction.stopped}"
    return lessons.Friction(
        kind=friction.kind, scope=friction.session_id, session_id=friction.session_id,
        record_uuids=[f"{friction.session_id}:{friction.event}"], timestamp=friction.timestamp,
        calls=[call] if call else [], said=friction.said, evidence=friction.evidence,
        reason=friction.reason, cwd=friction.cwd, log=log, extra=extra)


def _patched_file(friction: Friction) -> str | None:
    action = friction.action or ""
    return action.removeprefix("apply_patch ").split(", ")[0] \
        if friction.tool == "apply_patch" and action.startswith("apply_patch ") else None


def with_instructions(frictions: list[lessons.Friction],
                      instructions: list[Instruction]) -> list[lessons.Friction]:
    """A failure the person told the agent what to do about, in any session of the project read
    now or before ("don't bother running mix precommit as it isn't working yet"), has that as
    its lesson."""
    for friction in frictions:
        if friction.kind in ("tool_error", "environment") and not friction.reason:
            call = friction.call
            found = instruction_for(call.target if call else None, instructions)
            if found is not None:
                friction.reason = clip(found.sentence, 2 * lessons.QUOTE_CHARS)
                friction.extra["instruction_session"] = found.session_id
    return frictions


def _saved(instructions: list[Instruction]) -> list[list[str]]:
    return [[i.command, i.subcommand, i.sentence, i.session_id] for i in instructions]


def _loaded(context: dict[str, Any]) -> list[Instruction]:
    saved = context.get("instructions")
    return [Instruction(*item) for item in saved if isinstance(item, list) and len(item) == 4
            and all(isinstance(part, str) for part in item)] if isinstance(saved, list) else []


def _instruction(memory_id: str, metadata: Mapping[str, Any], met: dict[str, NewMemory],
                 instructions: list[Instruction], project: str) -> str | None:
    """The person's sentence about a stored failure's command: the one this import gave the
    failure when it met it again (in this project, whichever project met it first; a fact of the
    machine is one memory), else one read now, when the memory is this project's."""
    again = met.get(memory_id)
    if again is not None and again.metadata.get("instruction_session"):
        reason = again.metadata.get("reason")
        return reason if isinstance(reason, str) else None
    cwd, command = metadata.get("cwd"), metadata.get("command")
    if not isinstance(cwd, str) or not isinstance(command, str) or not path_inside(cwd, project):
        return None
    found = instruction_for(command, instructions)
    return clip(found.sentence, 2 * lessons.QUOTE_CHARS) if found else None


def _after(friction: Friction, since: datetime | None) -> bool:
    if since is None or friction.timestamp is None:
        return True
    try:
        moment = datetime.fromisoformat(friction.timestamp.replace("Z", "+00:00"))
    except ValueError:
        return True
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)) >= since


def import_rollouts(workspace: Workspace, options: CodexOptions, *,
                    now: datetime | None = None) -> CodexReport:
    """Read the project's changed rollouts and submit their lessons (unless a dry run)."""
    now = now or workspace.clock()
    sessions_dir = Path(os.path.expanduser(options.sessions_dir)).resolve()
    if not sessions_dir.is_dir():
        raise InputError(f"--sessions-dir {sessions_dir}: not a folder (Codex CLI keeps rollouts "
                         "in $CODEX_HOME/sessions, default ~/.codex/sessions; see codex.sessions_dir)")
    states = load_states(workspace, SOURCE)
    rollouts = find_rollouts(sessions_dir)
    report = CodexReport(logs=len(rollouts))
    updated: dict[str, FileState] = {}
    found: list[lessons.Friction] = []
    instructions: list[Instruction] = []  # the person's, in the rollouts read now
    earlier: list[Instruction] = []  # … and in the project's rollouts read before
    unheard: list[tuple[Path, FileState]] = []  # … read before, what was said not kept
    live_after = now.timestamp() - options.live_minutes * 60
    for path in rollouts:
        try:
            stat = path.stat()
        except OSError:
            continue
        saved, read_now = states.get(str(path)), False
        same = saved is not None and (saved.size, saved.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        try:
            cwd = saved.context.get("cwd") if same and saved is not None else _first_cwd(path)
        except OSError as exc:
            report.unreadable.append(f"{path.name}: {exc.strerror or exc}")
            continue
        if not isinstance(cwd, str):
            report.no_cwd += 1
            if not same:  # remembered, so its head is not read again until it changes
                updated[str(path)] = FileState(0, stat.st_size, stat.st_mtime_ns, 0, None,
                                               {"cwd": None, "read": False})
            continue
        if not path_inside(cwd, options.project):
            report.other_project += 1
            # Remembered unread: another project's import later reads it (never "unchanged");
            # one its own project read already, unchanged since, stays read.
            if not same:
                updated[str(path)] = FileState(0, stat.st_size, stat.st_mtime_ns, 0, None,
                                               {"cwd": cwd, "read": False})
            continue
        unchanged = same and saved is not None and saved.context.get("read", True)
        if unchanged:
            report.unchanged += 1
        elif options.since is not None and stat.st_mtime < options.since.timestamp():
            report.too_old += 1  # nothing written since: no event can be newer
        elif stat.st_mtime >= live_after and not options.include_live:
            report.live += 1
        else:
            read_now = True
        if not read_now:  # what the person said in it when it was read still holds
            if unchanged and saved is not None and "instructions" not in saved.context:
                unheard.append((path, saved))
            else:
                earlier.extend(_loaded(saved.context) if saved is not None else [])
            continue
        try:
            frictions, stats, version, said = read_rollout_with_instructions(path)
        except OSError as exc:  # removed or made unreadable since: read again next time
            report.unreadable.append(f"{path.name}: {exc.strerror or exc}")
            continue
        instructions.extend(said)
        report.read += 1
        if stats.first_malformed and not report.malformed_at:
            report.malformed_at = f"{path}:{stats.first_malformed}"
        report.stats.add(stats)
        kept = [f for f in frictions if _after(f, options.since)]
        report.frictions += len(kept)
        log = str(path.relative_to(sessions_dir))
        found.extend(shared_friction(f, log, version) for f in kept)
        # What the person said is kept for a failure a later import meets (`with_instructions`).
        context: dict[str, Any] = {"cwd": cwd, "read": True, "instructions": _saved(said)}
        updated[str(path)] = FileState(stat.st_size, stat.st_size, stat.st_mtime_ns, 0, None,
                                       context)
    if unheard and any(f.kind in ("tool_error", "environment") and not f.reason for f in found):
        # Read by a version that kept no instructions: read once more for them, and kept.
        for path, saved in unheard:
            try:
                said = read_rollout_with_instructions(path)[3]
            except OSError:
                continue
            earlier.extend(said)
            updated[str(path)] = replace(saved, context={**saved.context,
                                                          "instructions": _saved(said)})
    # One memory per distinct friction of the import: a fact of the machine or a failure met in
    # several sessions is one lesson, its occurrences counted (`lessons.build_memories`).
    report.memories = lessons.build_memories(with_instructions(found, instructions + earlier),
                                             workspace.config, CODEX)
    if options.dry_run:
        return report
    if report.memories or instructions:
        with STMStore.for_workspace(workspace) as store:
            # Met again, under its key or an earlier version's: the pending memory counts it.
            result = lessons.submit_lessons(store, report.memories,
                                            workspace.config.stm.max_content_bytes, CODEX, now=now)
            if instructions or any(m.metadata.get("instruction_session") for m in result.met.values()):
                # A failure stored before the person said what to do about it.
                report.instructed = lessons.instruct_pending(
                    store, lambda memory_id, metadata: _instruction(
                        memory_id, metadata, result.met, instructions, options.project),
                    workspace.config, CODEX)
        report.inserted, report.duplicates = result.inserted, result.duplicates
        report.recounted = result.recounted
    # Saved after the submit: a crash in between reads these rollouts again, and keys absorb it.
    if updated:
        save_states(workspace, SOURCE, updated, now)
    return report
