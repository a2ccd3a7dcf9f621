"""The Claude Code import asks for every log's state only when a friction needs it.

Telling a resumed session's copy from a new event needs the record uuids of every log imported
before (`import_state.context_values`), which grows with the workspace; an import whose new
lines hold no friction (a session's few new turns, a quiet project) does not read them, and one
that meets a friction still knows its copies. The logs are written here in Claude Code 2.1's
shapes, not copied from anyone's.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from dreamtui.intake.claude_code import importer
from dreamtui.intake.claude_code.importer import ImportOptions, import_logs
from dreamtui.workspace.layout import Workspace, open_workspace

PROJECT = "/code/app"
SLUG = "-code-app"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
            "if it was a file edit, the new_string was NOT written to the file). To tell you how "
            "to proceed, the user said:\nrun the whole suite with make test, never pytest alone")


def _record(kind: str, uuid: str, session: str, message: dict[str, Any], **extra: Any) -> str:
    return json.dumps({"parentUuid": None, "isSidechain": False, "type": kind, "message": message,
                       "uuid": uuid, "timestamp": f"2026-06-03T16:30:{uuid[-2:]}.000Z",
                       "entrypoint": "cli", "cwd": PROJECT, "sessionId": session, **extra},
                      separators=(",", ":"))


def _quiet(session: str, first: int) -> list[str]:
    """A turn and its answer: no friction."""
    return [_record("user", f"u-{first:02d}", session, {"role": "user", "content": "add a test"}),
            _record("assistant", f"a-{first + 1:02d}", session, {
                "id": f"msg_{session}_{first}", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": "Added tests/test_config.py."}]})]


def _rejected(session: str) -> list[str]:
    """A Bash call the person rejected with their reason: one friction."""
    return [_record("assistant", "a-10", session, {
                "id": "msg_reject", "type": "message", "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                             "input": {"command": "pytest -q tests/test_config.py"}}]}),
            _record("user", "u-11", session, {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                 "content": REJECTED}]}, toolUseResult="User rejected tool use")]


def _write(projects: Path, session: str, lines: list[str], age: float) -> None:
    path = projects / SLUG / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    moment = 1_780_000_000 - age  # long finished: no log is a live session
    os.utime(path, (moment, moment))


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "dreamtui.yaml").write_text("", encoding="utf-8")
    return open_workspace(root)


class _Asked:
    """Counts the imports that read every log's state."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.times = 0
        real = importer.context_values

        def counting(*args: Any, **kwargs: Any) -> dict[str, dict[str, Any]]:
            self.times += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(importer, "context_values", counting)


def test_new_lines_without_a_friction_do_not_read_every_logs_state(
        workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    projects = tmp_path / "projects"
    _write(projects, "s1", _quiet("s1", 1) + _rejected("s1"), age=300)
    asked = _Asked(monkeypatch)
    options = ImportOptions(projects_dir=projects, project=PROJECT)
    first = import_logs(workspace, options)
    assert (first.inserted, asked.times) == (1, 1)
    _write(projects, "s2", _quiet("s2", 1), age=200)  # a session with nothing to learn
    second = import_logs(workspace, options)
    assert (second.read, second.inserted, asked.times) == (1, 0, 1)


def test_a_copy_in_another_log_is_still_known_when_a_quiet_log_is_read_first(
        workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    projects = tmp_path / "projects"
    _write(projects, "s1", _quiet("s1", 1) + _rejected("s1"), age=300)
    options = ImportOptions(projects_dir=projects, project=PROJECT)
    assert import_logs(workspace, options).inserted == 1
    asked = _Asked(monkeypatch)
    # Read oldest first: a quiet session, then a resume that copies the rejection (same uuids).
    _write(projects, "s2", _quiet("s2", 1), age=200)
    _write(projects, "s3", _quiet("s3", 20) + _rejected("s1"), age=100)
    again = import_logs(workspace, options)
    assert (again.read, again.replayed, again.inserted, asked.times) == (2, 1, 0, 1)
