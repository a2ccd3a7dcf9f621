"""A commit SIGKILLed at any point leaves, after recovery, the whole commit or none of it.

Each case copies one prepared workspace, runs `commit` in a subprocess with the test hook
DREAMTUI_CRASH_AT=<point> (see dreamtui.store.journal.crash_point), which SIGKILLs the process there,
then recovers as the next start would and compares the SHA-256 of every workspace file with the
state before the commit and the state a commit that was not interrupted leaves.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import git
import pytest

from dreamtui.review.commit import commit
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.journal import CRASH_ENV, CRASH_POINTS, pending_journals, recover
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import open_workspace
from tests.factories import DREAM_ID, NOW, Scenario, basic, tree_hashes

ROOT = Path(__file__).resolve().parents[2]
COMMIT = textwrap.dedent("""
    import sys
    from datetime import datetime
    from dreamtui.review.commit import commit
    from dreamtui.workspace.layout import open_workspace
    commit(open_workspace(sys.argv[1]), sys.argv[2], now=datetime.fromisoformat(sys.argv[3]))
""")
BEFORE_MARK = ("before-write", "journal-written")


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One decided workspace, and the file hashes before and after an uninterrupted commit."""
    base = tmp_path_factory.mktemp("crash")
    s, _ = basic(base)
    s.decide_all("accept")
    reference = base / "reference"
    shutil.copytree(s.ws.root, reference)
    commit(open_workspace(reference), DREAM_ID, now=NOW)
    return {"source": s.ws.root, "batch": list(s.batch), "before": tree_hashes(s.ws.root),
            "after": tree_hashes(reference)}


def _states(root: Path, batch: list[str]) -> dict[str, str]:
    with STMStore.for_workspace(open_workspace(root)) as store:
        return {m.id: m.state for m in store.get_many(batch)}


def _dream_commits(root: Path) -> int:
    return sum(f"Dream-Id: {DREAM_ID}" in c.message for c in git.Repo(root).iter_commits())


def test_every_crash_point_is_exercised() -> None:
    assert len(CRASH_POINTS) >= 5


@pytest.mark.slow
@pytest.mark.parametrize("point", CRASH_POINTS)
def test_sigkill_then_recover_is_all_or_nothing(point: str, prepared: dict[str, object],
                                                tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(prepared["source"], root)  # type: ignore[arg-type]
    batch: list[str] = prepared["batch"]  # type: ignore[assignment]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), CRASH_ENV: point}
    proc = subprocess.run([sys.executable, "-c", COMMIT, str(root), DREAM_ID, NOW.isoformat()],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    if point == "mid-apply":  # the crash really happened in between
        assert tree_hashes(root) not in (prepared["before"], prepared["after"])

    workspace = open_workspace(root)
    note = recover(workspace)  # what the next start does
    assert pending_journals(workspace) == []
    hashes = tree_hashes(root)
    changeset = ChangesetStore(workspace.dreams_dir).load(DREAM_ID)

    if point in BEFORE_MARK:
        assert hashes == prepared["before"]
        assert changeset.status == "open"
        assert set(_states(root, batch).values()) == {"claimed"}  # still held by the open dream
        assert _dream_commits(root) == 0
        commit(workspace, DREAM_ID, now=NOW)  # the person simply commits again
    else:
        assert note is not None and "finished the interrupted commit" in note
    assert tree_hashes(root) == prepared["after"]
    assert ChangesetStore(workspace.dreams_dir).load(DREAM_ID).status == "committed"
    assert set(_states(root, batch).values()) == {"consumed"}  # no memory lost
    assert _dream_commits(root) == 1  # committed once, never twice
    assert not git.Repo(root).is_dirty(untracked_files=True)


def test_crash_during_a_human_change_rolls_forward(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws")
    path = s.entry("by-hand", "Guidance.")
    s.settle()
    script = textwrap.dedent("""
        import sys
        from dreamtui.review.commit import commit_human_change
        from dreamtui.workspace.layout import open_workspace
        commit_human_change(open_workspace(sys.argv[1]), sys.argv[2], None, "pin", "keep")
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), CRASH_ENV: "mid-apply"}
    proc = subprocess.run([sys.executable, "-c", script, str(s.ws.root), path], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert recover(s.ws) is not None
    assert "importance: pinned" in s.text(path)
    assert "pin topics/by-hand.md (keep) [human]" in s.log_lines()[-1]
