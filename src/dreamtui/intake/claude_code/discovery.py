"""Where a project's Claude Code logs are, and whether a log found there is the project's.

Claude Code keeps one JSONL file per session in `<projects_dir>/<slug>/<session-id>.jsonl`,
`<slug>` being the absolute project path with every character that is not a letter or digit
replaced by `-`; subagent transcripts live in `<slug>/<session-id>/subagents/*.jsonl`. The
mapping is lossy (`/a/my.app` and `/a/my-app` share a slug), so a log joins the import only if the
`cwd` its records carry is the project or a folder in it; a log in the project's own slug folder
that carries no `cwd` at all is kept. Sessions started in a subfolder of the project live under a
longer slug (`<slug>-src`): those folders are searched too, and kept only on a matching `cwd`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dreamtui.errors import InputError
from dreamtui.workspace.layout import Workspace

_B_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')
_PROBE_BYTES = 256 * 1024  # how far into a new log we look for the `cwd` that places it


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
        if path.parent.name == "subagents":
            session = path.parent.parent.name
            return cls(path, session, f"{session}/{path.stem}", True, exact_slug)
        return cls(path, path.stem, path.stem, False, exact_slug)


def _inside(cwd: str, project: str) -> bool:
    here, root = PurePosixPath(cwd), PurePosixPath(project)
    return here == root or root in here.parents


def _first_cwd(path: Path) -> str | None:
    """The `cwd` of the first record that carries one, looking only at the head of the log."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_PROBE_BYTES)
    except OSError:
        return None
    found = _B_CWD.search(head)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def find_logs(projects_dir: Path, project: str) -> list[LogFile]:
    """Every log that may belong to `project`: its slug folder and its subfolders' slug folders."""
    slug = project_slug(project)
    logs: list[LogFile] = []
    try:
        folders = sorted(p for p in projects_dir.iterdir()
                         if p.is_dir() and (p.name == slug or p.name.startswith(slug + "-")))
    except OSError as exc:
        raise InputError(f"--projects-dir {projects_dir}: cannot list it: {exc.strerror}") from None
    for folder in folders:
        exact = folder.name == slug
        paths = sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*/subagents/*.jsonl"))
        logs.extend(LogFile.at(path, exact) for path in paths)
    return logs


def belongs(log: LogFile, project: str) -> bool:
    """The lossy slug matched; the log's own `cwd` decides (module docstring)."""
    cwd = _first_cwd(log.path)
    return log.exact_slug if cwd is None else _inside(cwd, project)


def _configured_path(workspace: Workspace, configured: str) -> Path:
    path = Path(os.path.expanduser(configured))
    return (path if path.is_absolute() else workspace.root / path).resolve()


def default_project(workspace: Workspace) -> str:
    """`claude_code.project` from the config, else the workspace folder itself."""
    configured = workspace.config.claude_code.project
    return str(_configured_path(workspace, configured)) if configured else str(workspace.root)


def default_projects_dir(workspace: Workspace) -> Path:
    return _configured_path(workspace, workspace.config.claude_code.projects_dir)
