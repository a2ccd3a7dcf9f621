"""`import claude-code|codex --project PATH`: a mistyped path is a usage error, a deleted one is not.

A project folder may be gone while its agents' logs remain (they are still worth mining), so
the error is given only when the folder is missing *and* no log names it.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from dreamtui.cli import main
from dreamtui.intake.claude_code.discovery import project_slug
from dreamtui.workspace.layout import Workspace


def _import(workspace: Workspace, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--workspace", str(workspace.root), "import", *args])
    return result.exit_code, result.output


def test_claude_code_missing_project_without_logs_is_a_usage_error(workspace: Workspace,
                                                                  tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    projects.mkdir()
    missing = tmp_path / "no-such-project"
    code, output = _import(workspace, "claude-code", "--projects-dir", str(projects),
                           "--project", str(missing))
    assert code == 2
    assert f"--project {missing}: no such folder, and no Claude Code session logs for it" in output
    assert "Traceback" not in output


def test_claude_code_reads_the_logs_of_a_deleted_project(workspace: Workspace, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    gone = tmp_path / "deleted-project"
    folder = projects / project_slug(str(gone))
    folder.mkdir(parents=True)
    (folder / "0a1b.jsonl").write_text(json.dumps({
        "type": "user", "uuid": "u1", "sessionId": "0a1b", "cwd": str(gone),
        "timestamp": "2026-11-02T10:00:00Z",
        "message": {"role": "user", "content": "Run the tests"}}) + "\n", encoding="utf-8")
    code, output = _import(workspace, "claude-code", "--projects-dir", str(projects),
                           "--project", str(gone), "--include-live")
    assert code == 0, output
    assert f"1 log for {gone}, 1 read" in output


def test_codex_missing_project_no_rollout_ran_in_is_a_usage_error(workspace: Workspace,
                                                                   tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    missing = tmp_path / "no-such-project"
    code, output = _import(workspace, "codex", "--sessions-dir", str(sessions), "--project", str(missing))
    assert code == 2
    assert f"--project {missing}: no such folder, and no Codex rollout in {sessions} ran there" in output
    # The workspace's own folder exists: nothing found there is no error.
    code, output = _import(workspace, "codex", "--sessions-dir", str(sessions))
    assert code == 0 and "no rollouts in" in output
