"""The write-ahead journal: applied whole, rolled forward when marked, discarded when not — and
never over a file a person saved meanwhile, nor leaving a temp file behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import git
import pytest

from dreamtui.errors import WorkspaceError
from dreamtui.review import commit as commit_module
from dreamtui.review.commit import commit, commit_human_change
from dreamtui.store import journal
from dreamtui.store.files import file_sha256
from dreamtui.store.journal import (
    KEPT_NOTE,
    MANIFEST,
    MARKER,
    JournalPlan,
    TargetsChanged,
    _manifest,
    _mark,
    pending_journals,
    recover,
    run_journal,
)
from dreamtui.workspace.layout import Workspace
from tests.factories import DREAM_ID, NOW, Scenario, basic

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


# -- a person saving a file while the commit runs (docs/architecture.md §4.2) ----------------


def _checked_plan(workspace: Workspace) -> JournalPlan:
    """`_plan`, with the bases a commit's plan records: each file as it was read."""
    plan = _plan(workspace)
    plan.bases = {path: file_sha256(path) for path in plan.touched()}
    return plan


def test_a_target_changed_after_the_plan_calls_the_commit_off(workspace: Workspace) -> None:
    plan = _checked_plan(workspace)
    before = workspace.agents_md.read_text()
    old = workspace.memory_root / "topics" / "old.md"
    old.write_text("saved by a person meanwhile\n")
    with pytest.raises(TargetsChanged, match="workspace/memory/topics/old.md changed while") as info:
        run_journal(workspace, plan)
    assert info.value.paths == ["workspace/memory/topics/old.md"]
    assert old.read_text() == "saved by a person meanwhile\n"
    # nothing else was written either, no journal is left to roll forward, no temp file stays
    assert workspace.agents_md.read_text() == before
    assert not (workspace.memory_root / "topics" / "new.md").exists()
    assert not (workspace.memory_root / "archive" / "topics" / "old.md").exists()
    assert pending_journals(workspace) == []
    assert not [p for p in workspace.root.rglob("*.tmp")]


def test_a_file_created_where_the_plan_found_none_calls_the_commit_off(
        workspace: Workspace) -> None:
    plan = _checked_plan(workspace)
    new = workspace.memory_root / "topics" / "new.md"
    new.write_text("a person's own new entry\n")
    with pytest.raises(TargetsChanged):
        run_journal(workspace, plan)
    assert new.read_text() == "a person's own new entry\n"


def test_a_save_after_the_check_is_kept_and_named(workspace: Workspace,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The last line of defence: a save between the check and the file's own rename."""
    plan = _checked_plan(workspace)
    bundle = workspace.agents_md
    real = journal._as_planned
    checks: list[Path] = []

    def save_before_the_second_check(path: Path, base: str | None, new: bytes | None) -> bool:
        checks.append(path)
        if checks.count(path) == 2 and path == bundle:
            bundle.write_text("edited by hand at the last moment\n")
        return real(path, base, new)

    monkeypatch.setattr(journal, "_as_planned", save_before_the_second_check)
    outcome = run_journal(workspace, plan)
    assert outcome.kept == ["workspace/context/AGENTS.md"]
    assert bundle.read_text() == "edited by hand at the last moment\n"
    assert (workspace.memory_root / "topics" / "new.md").read_text() == "new entry\n"
    assert not (workspace.memory_root / "topics" / "old.md").exists()
    assert not [p for p in workspace.root.rglob("*.tmp")]


def test_roll_forward_keeps_a_file_edited_after_the_crash(workspace: Workspace) -> None:
    plan = _checked_plan(workspace)
    _write_journal(workspace, plan, marked=True)
    old = workspace.memory_root / "topics" / "old.md"
    old.write_text("edited after the crash\n")  # the removal must not take it
    workspace.agents_md.write_text("bundle edited after the crash\n")
    note = recover(workspace)
    assert note is not None
    assert f"workspace/context/AGENTS.md {KEPT_NOTE}" in note
    assert f"workspace/memory/topics/old.md {KEPT_NOTE}" in note
    assert workspace.agents_md.read_text() == "bundle edited after the crash\n"
    assert old.read_text() == "edited after the crash\n"
    # the rest of the commit lands
    assert (workspace.memory_root / "topics" / "new.md").read_text() == "new entry\n"
    assert (workspace.memory_root / "archive" / "topics" / "old.md").read_text() == "retired\n"
    assert pending_journals(workspace) == []


def test_roll_forward_after_a_partial_apply_sees_applied_targets_as_done(
        workspace: Workspace) -> None:
    plan = _checked_plan(workspace)
    _write_journal(workspace, plan, marked=True)
    (workspace.memory_root / "topics" / "new.md").write_text("new entry\n")  # applied before the crash
    (workspace.memory_root / "topics" / "old.md").unlink()
    note = recover(workspace)
    assert note is not None and KEPT_NOTE not in note
    assert workspace.agents_md.read_text() == "bundle\n"


# -- temp files a kill left behind -------------------------------------------------------------


def _strays(workspace: Workspace) -> tuple[list[Path], list[Path]]:
    """Temp files as a killed write leaves them, and look-alikes that are not dreamtui's."""
    memory, context = workspace.memory_root, workspace.context_root
    strays = [memory / "topics" / ".a.md.0badc0de.tmp", memory / "archive" / ".LOG.md.12345678.tmp",
              context / ".AGENTS.md.deadbeef.tmp"]
    others = [memory / "topics" / ".notes.tmp", memory / "topics" / "a.md.0badc0de.tmp",
              memory / "topics" / ".a.md.0BADC0DE.tmp", context / ".AGENTS.md.swp"]
    for path in [*strays, *others]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half a file")
    return strays, others


def test_recovery_removes_stray_temp_files(workspace: Workspace) -> None:
    strays, others = _strays(workspace)
    _write_journal(workspace, _plan(workspace), marked=False)  # what the kill left
    recover(workspace)
    assert not [p for p in strays if p.exists()]
    assert all(p.exists() for p in others)


def test_a_commit_removes_stray_temp_files_first(workspace: Workspace) -> None:
    strays, others = _strays(workspace)
    run_journal(workspace, _plan(workspace))
    assert not [p for p in strays if p.exists()]
    assert all(p.exists() for p in others)


def test_recent_temp_files_of_changeset_saves_are_left_alone(workspace: Workspace) -> None:
    """Decisions save changeset records without the workspace lock: a fresh temp may be in use."""
    workspace.dreams_dir.mkdir(parents=True, exist_ok=True)
    fresh = workspace.dreams_dir / ".d-20261129-030012-ab12.json.0badc0de.tmp"
    stale = workspace.dreams_dir / ".d-20261128-030012-ab12.json.12345678.tmp"
    for path in (fresh, stale):
        path.write_text("{")
    hour_ago = time.time() - 3600
    os.utime(stale, (hour_ago, hour_ago))
    run_journal(workspace, _plan(workspace))
    assert fresh.exists() and not stale.exists()


# -- the commit, when the journal calls it off -----------------------------------------------


def _save_once_before_the_journal(monkeypatch: pytest.MonkeyPatch, path: Path, text: str) -> None:
    """A person saves `path` after the commit planned and before its journal runs."""
    real = commit_module.run_journal

    def save_then_run(workspace: Workspace, plan: JournalPlan) -> journal.JournalOutcome:
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return real(workspace, plan)

    monkeypatch.setattr(commit_module, "run_journal", save_then_run)


def test_a_commit_plans_again_around_an_entry_saved_during_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s, proposals = basic(tmp_path)
    s.decide_all("accept")
    reinforce = proposals["reinforce"]
    edited = s.text(reinforce.target) + "\nA paragraph the person added.\n"
    _save_once_before_the_journal(monkeypatch, s.ws.memory_root / reinforce.target, edited)
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert s.text(reinforce.target) == edited
    assert report.warnings[0] == (f"workspace/memory/{reinforce.target} changed while the commit "
                                  "ran; planned again around your version")
    assert [(c.proposal_id, c.target) for c in report.conflicts] == [(reinforce.id, reinforce.target)]
    assert report.counts["held_back"] == 1 and report.counts["created"] == 1
    # the held-back proposal's memories return to the queue; the others' effects are in place
    states = s.states()
    assert {states[m] for m in reinforce.evidence} == {"pending"}
    assert {states[m] for m in proposals["create"].evidence} == {"consumed"}
    assert not any("reinforce" in line for line in s.log_lines())
    assert b"A paragraph the person added" not in (
        git.Repo(s.ws.root).head.commit.tree / f"workspace/memory/{reinforce.target}").data_stream.read()


def test_a_human_change_is_refused_when_its_entry_is_saved_meanwhile(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = Scenario(tmp_path / "ws")
    path = s.entry("by-hand", "Guidance.")
    s.settle()
    head = git.Repo(s.ws.root).head.commit.hexsha
    edited = s.text(path) + "\nSaved in the editor meanwhile.\n"
    _save_once_before_the_journal(monkeypatch, s.ws.memory_root / path, edited)
    with pytest.raises(TargetsChanged, match="nothing written, your version kept"):
        commit_human_change(s.ws, path, None, "pin", "keep")
    assert s.text(path) == edited
    assert s.log_lines() == []
    assert git.Repo(s.ws.root).head.commit.hexsha == head
