"""Where a project's Claude Code logs are, and whether a log found there is the project's.

Claude Code keeps one JSONL file per session in `<projects_dir>/<slug>/<session-id>.jsonl`,
`<slug>` being the absolute project path with every character that is not a letter or digit
replaced by `-`; subagent transcripts live in `<slug>/<session-id>/subagents/*.jsonl`, and
the agents of a workflow (Claude Code 2.1.1xx) in `<slug>/<session-id>/subagents/workflows/
wf_*/` with the workflow's `journal.jsonl`. The mapping is lossy (`/a/my.app` and `/a/my-app`
share a slug), so a log joins the import only if the `cwd` its records carry is the project or a
folder in it — checked for every log at every import, not only new ones, from the `cwd` the last
read of it saw, so an unchanged log is still not opened; a log in the project's own slug folder
that carries no `cwd` at all is kept, and a subagent's log that carries none goes with its
session's. Sessions started in a subfolder of the project live under a longer slug
(`<slug>-src`): those folders are searched too, and kept only on a matching `cwd`. The `cwd` is
looked for in whole records, however long: Claude Code 2.1.167 writes it after a first prompt
that may be megabytes.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from dreamtui.errors import InputError
from dreamtui.intake.lessons import is_windows_path, path_inside
from dreamtui.workspace.layout import Workspace

_B_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')
_PROBE_RECORDS = 50  # how many records into a new log we look for the `cwd` that places it
_PROBE_BYTES = 64 * 1024 * 1024  # and at most this much of it (a pasted image is one long line)


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
    exact_slug: bool  # in the project's own slug folder (a log with no `cwd` still belongs)

    @classmethod
    def at(cls, path: Path, exact_slug: bool) -> LogFile:
        parts = path.parts
        if "subagents" in parts[:-1]:
            at = len(parts) - 1 - parts[::-1].index("subagents")
            session = parts[at - 1]
            inside = "/".join(parts[at + 1:])[: -len(path.suffix) or None]
            return cls(path, session, f"{session}/{inside}", True, exact_slug)
        return cls(path, path.stem, path.stem, False, exact_slug)

    @property
    def session_log(self) -> Path:
        """The session's own log (for a subagent, the main transcript next to its folder)."""
        if not self.subagent:
            return self.path
        parts = self.path.parts
        at = len(parts) - 1 - parts[::-1].index("subagents")
        return Path(*parts[: at - 1]) / f"{self.session_id}.jsonl"


def first_cwd(path: Path) -> str | None:
    """The `cwd` of the first record that carries one (module docstring)."""
    try:
        with open(path, "rb") as handle:
            read = 0
            for number, line in enumerate(handle):
                read += len(line)
                found = _B_CWD.search(line)
                if found is not None:
                    value = json.loads(found.group(1))
                    return value if isinstance(value, str) else None
                if number >= _PROBE_RECORDS or read >= _PROBE_BYTES:
                    return None
    except (OSError, ValueError):
        return None
    return None


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


def belongs(log: LogFile, project: str, cwd: str | None = None,
            verdicts: dict[Path, bool] | None = None, *, probe: bool = True) -> bool:
    """The lossy slug matched; the log's own `cwd` decides (module docstring). `cwd` is the one
    the last read of the log saw, if any (`probe` False: that read found none, the log is not
    opened again); `verdicts` holds the session logs decided so far."""
    cwd = cwd or (first_cwd(log.path) if probe else None)
    if cwd is not None:
        return path_inside(cwd, project)
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
