"""Where a project's Claude Code logs are, and whether a log found there is the project's.

Claude Code keeps one JSONL file per session in `<projects_dir>/<slug>/<session-id>.jsonl`,
`<slug>` being the absolute project path with every character that is not a letter or digit
replaced by `-`; subagent transcripts live in `<slug>/<session-id>/subagents/*.jsonl`, and
the agents of a workflow (Claude Code 2.1.1xx) in `<slug>/<session-id>/subagents/workflows/
wf_*/` with the workflow's `journal.jsonl`. The mapping is lossy (`/a/my.app` and `/a/my-app`
share a slug), so the `cwd` values the log's records carry decide whether it is the project's.
Claude Code names the folder after the directory it was started in, while a record's `cwd` is
where the session is at that moment: a session started in `D:\\Work` may record only
`C:\\Users\\me` (and its subfolders) before it moves on, and a session started in the project
may end in another folder. So a `cwd` that is the folder it was started in, or inside it (the
prefix of the `cwd` whose slug is the folder's name), tells where the log belongs: the project's
if that folder is the project or inside it, another project's (same slug, or a longer slug that
is not a subfolder of the project) otherwise. A log whose `cwd` values never name such a folder
belongs to the project if one of them is inside it; else a log in the project's own slug folder
still does (the folder names the project, and no record says it is another's), a subagent's log
goes with its session's, and a log in a longer slug folder does not. The `cwd` values are read
from the log's first records (`placing_cwds`), however long: Claude Code 2.1.167 writes `cwd`
after a first prompt that may be megabytes. They are kept with the log's import state, so the
check is made for every log at every import — not only for new ones — without opening an
unchanged log. Sessions started in a subfolder of the project live under a longer slug
(`<slug>-src`): those folders are searched too.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dreamtui.errors import InputError
from dreamtui.intake.lessons import is_windows_path, path_inside
from dreamtui.workspace.layout import Workspace

_B_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')
_PROBE_RECORDS = 50  # how many records into a new log we look for the `cwd` that places it
_PROBE_BYTES = 64 * 1024 * 1024  # and at most this much of it (a pasted image is one long line)
_PLACING_CWDS = 16  # distinct `cwd` values kept to place a log none of whose first records names its folder


def project_slug(project: str) -> str:
    """Claude Code's folder name for a project path."""
    return re.sub(r"[^A-Za-z0-9]", "-", project)


@dataclass(frozen=True)
class LogFile:
    """One session or subagent transcript, and the scope its frictions merge within."""

    path: Path
    session_id: str
    scope: str  # the session id, or `<session>/<subagent file stem>` for a subagent
    subagent: bool
    exact_slug: bool  # in the project's own slug folder (a log no `cwd` places still belongs)
    folder: str  # the slug folder's name: the directory Claude Code was started in, as a slug

    @classmethod
    def at(cls, path: Path, exact_slug: bool) -> LogFile:
        parts = path.parts
        if "subagents" in parts[:-1]:
            at = len(parts) - 1 - parts[::-1].index("subagents")
            session = parts[at - 1]
            inside = "/".join(parts[at + 1:])[: -len(path.suffix) or None]
            return cls(path, session, f"{session}/{inside}", True, exact_slug, parts[at - 2])
        return cls(path, path.stem, path.stem, False, exact_slug, path.parent.name)

    @property
    def session_log(self) -> Path:
        """The session's own log (for a subagent, the main transcript next to its folder)."""
        if not self.subagent:
            return self.path
        parts = self.path.parts
        at = len(parts) - 1 - parts[::-1].index("subagents")
        return Path(*parts[: at - 1]) / f"{self.session_id}.jsonl"


def _cwds(path: Path) -> Iterator[str]:
    """The `cwd` of each of the log's first records that carries one (module docstring)."""
    try:
        with open(path, "rb") as handle:
            read = 0
            for number, line in enumerate(handle):
                read += len(line)
                found = _B_CWD.search(line)
                if found is not None:
                    value = json.loads(found.group(1))
                    if isinstance(value, str):
                        yield value
                if number >= _PROBE_RECORDS or read >= _PROBE_BYTES:
                    return
    except (OSError, ValueError):
        return


def first_cwd(path: Path) -> str | None:
    """The `cwd` of the first record that carries one."""
    return next(_cwds(path), None)


def _started_in(cwd: str, folder: str) -> str | None:
    """The folder `cwd` is or is inside whose slug is `folder` (the slug keeps the path's length,
    so it can only be the prefix of that length), or None."""
    size = len(folder)
    if len(cwd) < size or (len(cwd) > size and cwd[size] not in "/\\"):
        return None
    head = cwd[:size]
    if is_windows_path(head):  # the drive letter as it was typed: `C--…` or `c--…`
        return head if project_slug(head).lower() == folder.lower() else None
    return head if project_slug(head) == folder else None


def placing_cwds(log: LogFile) -> list[str]:
    """The `cwd` values that place the log (module docstring): the first one when it names the
    folder the session was started in (nearly every log), else the distinct ones of its first
    records up to the first that names it."""
    first = first_cwd(log.path)
    if first is None or _started_in(first, log.folder) is not None:
        return [first] if first is not None else []
    seen: list[str] = []
    for cwd in _cwds(log.path):
        if cwd not in seen:
            seen.append(cwd)
            if _started_in(cwd, log.folder) is not None or len(seen) >= _PLACING_CWDS:
                break
    return seen


def find_logs(projects_dir: Path, project: str) -> list[LogFile]:
    """Every log that may belong to `project`: its slug folder and its subfolders' slug folders."""
    # Claude Code on Windows names one project `C--Users-…` or `c--Users-…` as the drive letter
    # was typed: the folder names compare without case there.
    fold = str.lower if is_windows_path(project) else str
    slug = fold(project_slug(project))
    logs: list[LogFile] = []
    try:
        folders = sorted(p for p in projects_dir.iterdir()
                         if p.is_dir() and (fold(p.name) == slug or fold(p.name).startswith(slug + "-")))
    except OSError as exc:
        raise InputError(f"--projects-dir {projects_dir}: cannot list it: {exc.strerror}") from None
    for folder in folders:
        exact = fold(folder.name) == slug
        paths = sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*/subagents/*.jsonl")) \
            + sorted(folder.glob("*/subagents/workflows/*/*.jsonl"))
        logs.extend(LogFile.at(path, exact) for path in paths)
    return logs


def belongs(log: LogFile, project: str, placed: list[str] | None = None,
            verdicts: dict[Path, bool] | None = None) -> bool:
    """Is the log the project's (module docstring)? `placed` is its `placing_cwds` as an earlier
    import kept them (None: read them from the log); `verdicts` holds the session logs decided
    so far."""
    cwds = placing_cwds(log) if placed is None else placed
    for cwd in cwds:
        started = _started_in(cwd, log.folder)
        if started is not None:
            return path_inside(started, project)
    if any(path_inside(cwd, project) for cwd in cwds):
        return True
    if log.subagent and verdicts is not None and log.session_log in verdicts:
        return verdicts[log.session_log]
    return log.exact_slug


def _configured_path(workspace: Workspace, configured: str) -> Path:
    path = Path(os.path.expanduser(configured))
    return (path if path.is_absolute() else workspace.root / path).resolve()


def default_project(workspace: Workspace) -> str:
    """`claude_code.project` from the config, else `project.root` (the code project the workspace
    serves, where its agents' sessions run), else the workspace folder itself."""
    configured = workspace.config.claude_code.project
    if configured:
        return str(_configured_path(workspace, configured))
    project = workspace.project_root
    return str(project.resolve()) if project is not None else str(workspace.root)


def default_projects_dir(workspace: Workspace) -> Path:
    return _configured_path(workspace, workspace.config.claude_code.projects_dir)
