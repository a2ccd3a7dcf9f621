"""The write-ahead journal: applied whole, rolled forward when marked, discarded when not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dreamtui.errors import WorkspaceError
from dreamtui.store.journal import (
    MANIFEST,
    MARKER,
    JournalPlan,
    _manifest,
    _mark,
    pending_journals,
    recover,
    run_journal,
)
from dreamtui.workspace.layout import Workspace

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _plan(workspace: Workspace) -> JournalPlan:
    memory = workspace.memory_root
    (memory / "topics" / "old.md").write_text("old entry\n")
    return JournalPlan(label="test",
                       writes={memory / "topics" / "new.md": "new entry\n",
                               memory / "archive" / "topics" / "old.md": "retired\n",
                               workspace.agents_md: "bundle\n"},
                       removals=[memory / "topics" / "old.md"])


def _write_journal(workspace: Workspace, plan: JournalPlan, marked: bool) -> Path:
    """A journal as a crash would leave it: written (and maybe marked) but not applied."""
    folder = workspace.journal_dir / "j-test"
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_text(json.dumps(_manifest(workspace, "j-test", plan)))
    if marked:
        _mark(folder)
    return folder


def test_run_journal_applies_writes_and_removals_then_removes_itself(workspace: Workspace) -> None:
    outcome = run_journal(workspace, _plan(workspace))
    memory = workspace.memory_root
    assert (memory / "topics" / "new.md").read_text() == "new entry\n"
    assert (memory / "archive" / "topics" / "old.md").read_text() == "retired\n"
    assert not (memory / "topics" / "old.md").exists()
    assert workspace.agents_md.read_text() == "bundle\n"
    assert pending_journals(workspace) == []
    assert outcome.git is None  # no git message in the plan


def test_marked_journal_is_rolled_forward(workspace: Workspace) -> None:
    _write_journal(workspace, _plan(workspace), marked=True)
    note = recover(workspace)
    assert note is not None and "finished the interrupted commit j-test (test)" in note
    assert (workspace.memory_root / "topics" / "new.md").read_text() == "new entry\n"
    assert not (workspace.memory_root / "topics" / "old.md").exists()
    assert pending_journals(workspace) == []


def test_roll_forward_is_idempotent_after_a_partial_apply(workspace: Workspace) -> None:
    plan = _plan(workspace)
    folder = _write_journal(workspace, plan, marked=True)
    # half applied: one write and the removal already happened
    (workspace.memory_root / "topics" / "new.md").write_text("new entry\n")
    (workspace.memory_root / "topics" / "old.md").unlink()
    recover(workspace)
    assert (workspace.memory_root / "archive" / "topics" / "old.md").read_text() == "retired\n"
    assert not folder.exists()


def test_unmarked_journal_is_discarded_without_applying(workspace: Workspace) -> None:
    before = workspace.agents_md.read_text()
    _write_journal(workspace, _plan(workspace), marked=False)
    note = recover(workspace)
    assert note is not None and "discarded" in note
    assert workspace.agents_md.read_text() == before
    assert not (workspace.memory_root / "topics" / "new.md").exists()
    assert (workspace.memory_root / "topics" / "old.md").exists()
    assert pending_journals(workspace) == []


def test_nothing_to_recover_is_none(workspace: Workspace) -> None:
    assert recover(workspace) is None


def test_manifest_paths_are_workspace_relative(workspace: Workspace) -> None:
    manifest = _manifest(workspace, "j-x", _plan(workspace))
    assert manifest["writes"][0]["path"] == "workspace/memory/topics/new.md"
    assert manifest["removals"] == ["workspace/memory/topics/old.md"]


def test_a_manifest_escaping_the_workspace_is_refused(workspace: Workspace, tmp_path: Path) -> None:
    folder = workspace.journal_dir / "j-evil"
    folder.mkdir(parents=True)
    manifest = _manifest(workspace, "j-evil", JournalPlan(label="evil"))
    manifest["writes"] = [{"path": "../outside.txt", "text": "pwned"}]
    (folder / MANIFEST).write_text(json.dumps(manifest))
    _mark(folder)
    with pytest.raises(WorkspaceError, match="unsafe path"):
        recover(workspace)
    assert not (tmp_path / "outside.txt").exists()


def test_recover_leaves_a_journal_alone_while_another_process_holds_the_lock(
        workspace: Workspace) -> None:
    _write_journal(workspace, _plan(workspace), marked=True)
    holder = textwrap.dedent("""
        import sys, time
        from dreamtui.workspace.layout import open_workspace
        from dreamtui.store.lock import WorkspaceLock
        with WorkspaceLock(open_workspace(sys.argv[1])).acquire():
            print("held", flush=True)
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", holder, str(workspace.root)],
                            env={**os.environ, "PYTHONPATH": SRC}, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        assert recover(workspace) is None
        assert (workspace.journal_dir / "j-test" / MARKER).exists()
    finally:
        proc.kill()
        proc.wait()
    assert recover(workspace) is not None
