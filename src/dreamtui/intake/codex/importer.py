"""The Codex import: which rollouts belong to the project, which changed, and their lessons.

A rollout belongs to the project when the `cwd` of its `session_meta` is the project folder or
inside it (path components, so `/code/app` never takes `/code/app2`'s sessions). Every rollout
looked at is recorded in the import state (`dreamtui_import_state`, source `codex`) with its size,
mtime and cwd, so an unchanged one is not opened again, whichever project it belongs to. A
changed rollout is read whole: Codex appends to it while the session runs, the frictions are
derived again and the idempotency keys (one per session, kind and event) keep the ones already
submitted from coming back. `--since` compares each friction's own timestamp.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from dreamtui.errors import InputError
from dreamtui.intake.codex.frictions import Detector, Friction
from dreamtui.intake.codex.reader import ReadStats, RolloutReader
from dreamtui.intake.lessons import memory_type, path_inside
from dreamtui.intake.validate import prepare
from dreamtui.model import NewMemory
from dreamtui.store.import_state import FileState, load_states, save_states
from dreamtui.store.stm import STMStore
from dreamtui.vocabulary import clip
from dreamtui.workspace.config import Config
from dreamtui.workspace.layout import Workspace

SOURCE = "codex"
AGENT_ID = "codex"
_FIRST_LINE_LIMIT = 16 * 1024 * 1024  # a session_meta line carries the base instructions
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
_NOT_FOUND = re.compile(r"(?:^|[\s:])([\w.+-]+): (?:command )?not found")

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
    stats: ReadStats = field(default_factory=ReadStats)
    frictions: int = 0
    memories: list[NewMemory] = field(default_factory=list)
    inserted: int = 0
    duplicates: int = 0


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
        return sorted(sessions_dir.rglob("rollout-*.jsonl"))
    except OSError as exc:
        raise InputError(f"--sessions-dir {sessions_dir}: cannot list it: {exc.strerror}") from None


def rollout_cwd(path: Path) -> str | None:
    """The `cwd` its `session_meta` (the first record) names; None when there is none."""
    try:
        with open(path, "rb") as handle:
            line = handle.readline(_FIRST_LINE_LIMIT)
    except OSError:
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    payload = record.get("payload") if isinstance(record, dict) else None
    cwd = (payload if isinstance(payload, dict) else record if isinstance(record, dict) else {}).get("cwd")
    return cwd if isinstance(cwd, str) else None


def _lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        yield from handle


def read_rollout(path: Path) -> tuple[list[Friction], ReadStats, str | None]:
    """The rollout's frictions, what reading it counted, and the Codex version that wrote it."""
    reader, detector = RolloutReader(), Detector()
    for event in reader.events(_lines(path)):
        detector.feed(event)
    return detector.finish(), reader.stats, detector.version


def _normalise(text: str | None) -> str:
    return _DIGITS.sub("#", _SPACES.sub(" ", (text or "").lower())).strip()[:300]


def friction_key(friction: Friction) -> str:
    """One key per event the person saw: a declined call, a stop, a correction are each their
    own; a failure the agent could not get past is one per command and session."""
    distinct = friction.kind in ("rejection", "interruption", "correction")
    parts = [friction.kind, _normalise(friction.action),
             friction.call_id or friction.timestamp or "" if distinct else _normalise(friction.evidence)]
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"codex:{friction.session_id[:64]}:{friction.kind}:{digest}"


def _code(text: str | None, limit: int = 70) -> str:
    return f"`{clip(_SPACES.sub(' ', text or '').strip(), limit)}`" if text else "a tool call"


def lesson(friction: Friction) -> tuple[str, str]:
    """The memory's title and first line: what to do or avoid, then what happened."""
    action, reason, evidence = _code(friction.action), friction.reason, friction.evidence
    said = f' after saying "{clip(friction.said, 200)}"' if friction.said else ""
    if friction.kind == "rejection":
        if reason:
            return (reason, f"The person declined {action} at Codex's approval prompt and said: "
                            f'"{reason}"')
        return (f"Ask before running {action}",
                f"The person declined {action} at Codex's approval prompt without a reason.")
    if friction.kind == "interruption":
        return (reason or f"Stopped while running {action}",
                f"The person stopped the agent while it ran {action} and said: \"{reason}\"")
    if friction.kind == "correction":
        return (evidence, f"After the agent ran {action}{said}, the person said: \"{evidence}\"")
    if friction.kind == "denial":
        return (f"{action} is refused here: {evidence}",
                f"Codex's policy refused {action}: {evidence}")
    if friction.kind == "hook_block":
        return (f"A hook blocks {action}: {evidence}", f"A PreToolUse hook blocked {action}: {evidence}")
    if friction.kind == "environment":
        missing = _NOT_FOUND.search(evidence)
        if missing:
            return (f"`{missing.group(1)}` is not available here",
                    f"{action} failed because `{missing.group(1)}` is not installed or not on "
                    f"PATH: {evidence}")
        return (f"{action} cannot run here: {evidence}",
                f"{action} failed on an environment limit (sandbox, network or permissions): "
                f"{evidence}")
    times = f" {friction.occurrences} times" if friction.occurrences > 1 else ""
    person = f' The person said: "{reason}"' if reason else ""
    return (f"{action} fails here: {evidence}",
            f"{action} failed{times} and the agent did not get past it: {evidence}.{person}")


def build_memory(friction: Friction, log: str, version: str | None, config: Config) -> NewMemory:
    title, first = lesson(friction)
    where = f"Codex CLI session {friction.session_id}" + (f" in {friction.cwd}" if friction.cwd else "")
    content = f"{first}\n\n({where}, {friction.timestamp or 'time unknown'}.)"
    metadata = {"source": SOURCE, "kind": friction.kind, "session_id": friction.session_id,
                "timestamp": friction.timestamp, "call_id": friction.call_id, "tool": friction.tool,
                "cwd": friction.cwd, "log": log, "cli_version": version,
                "occurrences": friction.occurrences}
    limit = config.stm.max_content_bytes
    if len(content.encode("utf-8")) > limit:
        content = content.encode("utf-8")[: limit - 3].decode("utf-8", "ignore") + "…"
    return prepare(NewMemory(type=memory_type(friction.kind, config, "Codex"),
                             title=clip(_SPACES.sub(" ", title).strip(), config.stm.max_title_chars),
                             content=content, agent_id=AGENT_ID, tags=("codex", friction.kind),
                             metadata=metadata, idempotency_key=friction_key(friction)), config)


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
    live_after = now.timestamp() - options.live_minutes * 60
    for path in rollouts:
        try:
            stat = path.stat()
        except OSError:
            continue
        saved = states.get(str(path))
        same = saved is not None and (saved.size, saved.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        cwd = saved.context.get("cwd") if same and saved is not None else rollout_cwd(path)
        if not isinstance(cwd, str):
            report.no_cwd += 1
            continue
        if not path_inside(cwd, options.project):
            report.other_project += 1
            # Remembered unread: another project's import later reads it (never "unchanged").
            updated[str(path)] = FileState(0, stat.st_size, stat.st_mtime_ns, 0, None,
                                           {"cwd": cwd, "read": False})
            continue
        if same and saved is not None and saved.context.get("read", True):
            report.unchanged += 1
            continue
        if options.since is not None and stat.st_mtime < options.since.timestamp():
            report.too_old += 1  # nothing written since: no event can be newer
            continue
        if stat.st_mtime >= live_after and not options.include_live:
            report.live += 1
            continue
        frictions, stats, version = read_rollout(path)
        report.read += 1
        report.stats.add(stats)
        kept = [f for f in frictions if _after(f, options.since)]
        report.frictions += len(kept)
        log = str(path.relative_to(sessions_dir))
        report.memories.extend(build_memory(f, log, version, workspace.config) for f in kept)
        updated[str(path)] = FileState(stat.st_size, stat.st_size, stat.st_mtime_ns, 0, None,
                                       {"cwd": cwd, "read": True})
    if options.dry_run:
        return report
    if report.memories:
        with STMStore.for_workspace(workspace) as store:
            result = store.submit_many(report.memories, now=now)
        report.inserted, report.duplicates = result.inserted, result.duplicates
    # Saved after the submit: a crash in between reads these rollouts again, and keys absorb it.
    if updated:
        save_states(workspace, SOURCE, updated, now)
    return report
