"""A busy workspace: whoever dreams takes the lock, and a refused command says so with a non-zero exit.

Two bugs this guards against: the workbench's dream never took the workspace lock (only the
headless runner did), and `dreamtui commit` on a locked workspace printed the lock message and
exited 0, so a script believed the commit had happened.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreamtui.dream.runner import dream
from dreamtui.errors import EXIT_LOCKED, EXIT_OK, LockedError
from dreamtui.model import NewMemory
from dreamtui.review.decide import all_matching, decide
from dreamtui.scaffold import init_workspace
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace
from tests.factories import hold_lock_in_subprocess

SRC = str(Path(__file__).resolve().parents[2] / "src")

LESSONS = [
    ("Integration tests need a DB reset", "pytest tests/integration fails on a dirty schema; run make db-reset"),
    ("CI maps Postgres to port 5433", "the CI compose file publishes Postgres on 5433, not 5432"),
]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC}


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    ws = init_workspace(tmp_path / "ws", git=False)
    (ws.memory_root / "topics").mkdir(exist_ok=True)
    (ws.memory_root / "topics" / "node-version.md").write_text(
        "---\ntitle: Node version\nslug: node-version\ntype: topic\ntags: [tooling]\n"
        "created_at: 2026-11-01T00:00:00Z\nupdated_at: 2026-11-01T00:00:00Z\n---\n"
        "npm ci needs Node 20.\n", encoding="utf-8")
    with STMStore.for_workspace(ws) as store:
        for title, content in LESSONS:
            store.submit(NewMemory(type="observation", title=title, content=content, agent_id="a1"))
    return ws


@pytest.fixture
def held(workspace: Workspace) -> Iterator[subprocess.Popen[str]]:
    """Another live process holding the workspace lock for the duration of the test."""
    proc = hold_lock_in_subprocess(workspace)
    yield proc
    proc.kill()
    proc.wait()


def _cli(workspace: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dreamtui", "--workspace", str(workspace.root), *args],
                          env=_env(), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_a_dream_takes_the_lock_itself_and_claims_nothing_while_another_process_holds_it(
        workspace: Workspace, held: subprocess.Popen[str]) -> None:
    # `dream()` is what the workbench calls from its worker thread: no caller-side lock.
    with pytest.raises(LockedError, match="test holder"):
        dream(workspace)
    with STMStore.for_workspace(workspace) as store:
        assert store.count_pending() == len(LESSONS)  # nothing claimed, nothing stranded


@pytest.mark.slow
def test_refused_commands_on_a_locked_workspace_exit_non_zero_and_say_nothing_was_done(
        workspace: Workspace) -> None:
    changeset = dream(workspace)
    assert changeset is not None
    decide(workspace, changeset.id, all_matching(), "accept")
    proc = hold_lock_in_subprocess(workspace)
    try:
        for args in (("commit", changeset.id), ("abandon", changeset.id), ("dream",),
                     ("entry", "pin", "node-version")):
            result = _cli(workspace, *args)
            assert result.returncode == EXIT_LOCKED, (args, result.stderr)
            assert "workspace locked by pid" in result.stderr
            assert "nothing was done" in result.stderr
        # The cron gate alone treats a busy workspace as "nothing to do".
        result = _cli(workspace, "--headless", "dream", "--force")
        assert result.returncode == EXIT_OK, result.stderr
        assert "skipped: workspace locked" in result.stdout + result.stderr
    finally:
        proc.kill()
        proc.wait()
    result = _cli(workspace, "commit", changeset.id)
    assert result.returncode == EXIT_OK, result.stderr
