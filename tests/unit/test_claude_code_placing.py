"""Which project a Claude Code log belongs to when its records' `cwd` is not the folder Claude
Code filed it under (`discovery` module docstring): a session started in one directory records
another, moves, or ends elsewhere. Fixtures are written here in Claude Code's record shapes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from dreamtui.intake.claude_code import discovery
from dreamtui.intake.claude_code.discovery import LogFile, belongs, placing_cwds
from dreamtui.intake.claude_code.importer import ImportOptions, ImportReport, import_logs
from dreamtui.workspace.layout import Workspace

PROJECT = "/home/u/my-app"
SLUG = "-home-u-my-app"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
            "it was a file edit, the new_string was NOT written to the file). To tell you how to "
            "proceed, the user said:\n")


def _records(session: str, cwds: list[str], *, sidechain: bool = False) -> list[dict[str, Any]]:
    """A turn, a command the person refused with a reason typed into the prompt, one record
    per `cwd` in turn (the last one repeats for what follows)."""
    at = iter(range(1, 100))

    def base(kind: str, cwd: str) -> dict[str, Any]:
        n = next(at)
        return {"parentUuid": None, "isSidechain": sidechain, "type": kind, "cwd": cwd,
                "sessionId": session, "version": "2.1.90", "entrypoint": "cli",
                "uuid": f"{session[:8]}-{n:04d}", "timestamp": f"2026-11-02T10:00:{n:02d}.000Z"}

    cwd = iter(cwds)
    here = next(cwd)
    records = [base("user", here) | {"message": {"role": "user", "content": "tidy the build"}}]
    for here in cwd:
        records.append(base("assistant", here) | {"message": {
            "id": f"msg_{len(records)}", "role": "assistant",
            "content": [{"type": "text", "text": "Looking around."}]}})
    tool = f"toolu_{session[:8]}01"
    records.append(base("assistant", here) | {"message": {
        "id": "msg_call", "role": "assistant",
        "content": [{"type": "tool_use", "id": tool, "name": "Bash",
                     "input": {"command": "rm -rf build"}}]}})
    records.append(base("user", here) | {
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool, "is_error": True,
             "content": REJECTED + "keep build, the release job reads it"}]},
        "toolUseResult": "User rejected tool use"})
    return records


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record) + "\n")
    finished = time.time() - 86_400  # no live session
    os.utime(path, (finished, finished))
    return path


def _import(workspace: Workspace, projects: Path, project: str = PROJECT) -> ImportReport:
    return import_logs(workspace, ImportOptions(projects_dir=projects, project=project))


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    return tmp_path / "projects"


def test_a_log_in_the_projects_folder_that_only_records_another_folder_is_the_projects(
        workspace: Workspace, projects: Path) -> None:
    # Started in the project (so filed under its slug), the records say where the shell was.
    session = "a1a1a1a1-0000-4000-8000-000000000001"
    _write(projects / SLUG / f"{session}.jsonl",
           _records(session, ["/home/u", "/home/u/Desktop", "/home/u"]))
    report = _import(workspace, projects)
    assert (report.read, report.other_project) == (1, 0)
    assert [(m.metadata["kind"], m.metadata.get("reason")) for m in report.memories] == [
        ("rejection", "keep build, the release job reads it")]


def test_a_record_naming_another_folder_with_the_same_slug_keeps_the_log_out(
        workspace: Workspace, projects: Path) -> None:
    # /home/u/my.app has the slug of /home/u/my-app: the log is that project's, wherever it began.
    session = "a2a2a2a2-0000-4000-8000-000000000002"
    _write(projects / SLUG / f"{session}.jsonl",
           _records(session, ["/home/u", "/home/u/my.app/src", "/home/u/my-app"]))
    report = _import(workspace, projects)
    assert (report.read, report.other_project) == (0, 1)
    assert _import(workspace, projects, "/home/u/my.app").read == 1


def test_a_longer_slug_folder_is_the_projects_only_when_a_record_places_it_inside(
        workspace: Workspace, projects: Path) -> None:
    inside, sibling, nowhere = ("b1b1b1b1-0000-4000-8000-00000000000" + n for n in "123")
    # -home-u-my-app-old is /home/u/my-app/old or the sibling project /home/u/my-app-old
    _write(projects / f"{SLUG}-old" / f"{inside}.jsonl", _records(inside, ["/home/u", "/home/u/my-app/old"]))
    _write(projects / f"{SLUG}-old" / f"{sibling}.jsonl", _records(sibling, ["/home/u", "/home/u/my-app-old"]))
    _write(projects / f"{SLUG}-old" / f"{nowhere}.jsonl", _records(nowhere, ["/home/u", "/tmp"]))
    report = _import(workspace, projects)
    assert (report.read, report.other_project) == (1, 2)
    assert _import(workspace, projects, "/home/u/my-app-old").read == 2  # its own, and "nowhere"


def test_a_subagent_that_worked_in_another_folder_goes_with_its_session(
        workspace: Workspace, projects: Path) -> None:
    session = "c1c1c1c1-0000-4000-8000-000000000001"
    _write(projects / SLUG / f"{session}.jsonl", _records(session, [PROJECT]))
    _write(projects / SLUG / session / "subagents" / "agent-a1.jsonl",
           _records(session, ["/home/u/other-checkout"], sidechain=True))
    folder = projects / SLUG / session / "subagents"
    log = LogFile.at(folder / "agent-a1.jsonl", True)
    assert log.folder == SLUG
    assert belongs(log, PROJECT, verdicts={projects / SLUG / f"{session}.jsonl": False}) is False
    report = _import(workspace, projects)
    assert (report.read, report.other_project) == (2, 0)


def test_a_log_that_ends_in_another_folder_stays_the_projects_at_the_next_import(
        workspace: Workspace, projects: Path) -> None:
    # The check of every import reads the `cwd` values that placed the log, not the last one seen.
    session = "d1d1d1d1-0000-4000-8000-000000000001"
    path = _write(projects / SLUG / f"{session}.jsonl", _records(session, [PROJECT, "/srv/elsewhere"]))
    assert _import(workspace, projects).read == 1
    _write(path, [{"type": "user", "cwd": "/srv/elsewhere", "sessionId": session,
                   "uuid": "d1d1d1d1-9999", "message": {"role": "user", "content": "thanks"}}])
    report = _import(workspace, projects)
    assert (report.read, report.other_project) == (1, 0)


def test_the_folders_are_read_once_and_kept_with_the_logs_state(
        workspace: Workspace, projects: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = "e1e1e1e1-0000-4000-8000-000000000001"
    path = _write(projects / SLUG / f"{session}.jsonl",
                  _records(session, ["/home/u", "/home/u/Desktop", PROJECT]))
    assert placing_cwds(LogFile.at(path, True)) == ["/home/u", "/home/u/Desktop", PROJECT]
    _import(workspace, projects)
    probed: list[Path] = []
    real = discovery.placing_cwds
    monkeypatch.setattr("dreamtui.intake.claude_code.importer.placing_cwds",
                        lambda log: probed.append(log.path) or real(log))
    report = _import(workspace, projects)
    assert (report.unchanged, report.other_project, probed) == (1, 0, [])


def test_a_windows_session_started_on_another_drive_is_the_projects(workspace: Workspace,
                                                                    projects: Path) -> None:
    session = "f1f1f1f1-0000-4000-8000-000000000001"
    _write(projects / "D--my-app" / f"{session}.jsonl",
           _records(session, ["C:\\Users\\me", "C:\\Users\\me\\Desktop"]))
    assert _import(workspace, projects, "d:\\my-app").read == 1
    collision = "f2f2f2f2-0000-4000-8000-000000000002"  # D:\my-app and d:\my.app share the slug
    _write(projects / "D--my-app" / f"{collision}.jsonl",
           _records(collision, ["C:\\Users\\me", "d:\\my.app\\x"]))
    assert _import(workspace, projects, "D:\\my-app").other_project == 1
