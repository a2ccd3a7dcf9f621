"""Files dreamtui creates are private (0600); a file that exists keeps its mode when rewritten.

The queue holds every memory and the token hashes, changesets and the journal hold entry texts,
the log names dreams and errors: none of it is for other users of the machine. Each test runs
under the common umask 022, which would otherwise leave new files readable by everyone.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreamtui import headless
from dreamtui.headless import run_headless
from dreamtui.review.commit import commit, commit_human_change
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.files import atomic_write_text
from dreamtui.store.journal import MANIFEST, MARKER
from dreamtui.store.lock import WorkspaceLock, changeset_lock
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace
from tests.factories import DREAM_ID, NOW, Scenario, basic, new_memory, new_workspace


@pytest.fixture(autouse=True)
def common_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_queue_and_its_wal_and_shm_are_private(tmp_path: Path) -> None:
    workspace = new_workspace(tmp_path / "ws")
    with STMStore.for_workspace(workspace) as store:
        store.submit(new_memory("a lesson"))
        files = [workspace.stm_path, Path(f"{workspace.stm_path}-wal"),
                 Path(f"{workspace.stm_path}-shm")]
        assert all(path.exists() for path in files)  # WAL mode, and the connection is open
        assert {path.name: mode(path) for path in files} == {path.name: 0o600 for path in files}


def test_an_existing_queue_keeps_its_mode(tmp_path: Path) -> None:
    """A Dreamer server may share the file under its own permissions: never changed."""
    workspace = new_workspace(tmp_path / "ws")
    workspace.stm_path.chmod(0o640)
    with STMStore.for_workspace(workspace) as store:
        store.submit(new_memory("a lesson"))
    assert mode(workspace.stm_path) == 0o640


def test_changesets_and_the_journal_are_private(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    s, _ = basic(tmp_path)
    record = ChangesetStore(s.ws.dreams_dir).path_for(DREAM_ID)
    assert mode(record) == 0o600  # saved by Scenario.changeset
    s.decide_all("accept")
    assert mode(record) == 0o600
    seen: dict[str, int] = {}

    def look_at_the_journal(name: str) -> None:
        if name == "marked":
            folder = next(s.ws.journal_dir.iterdir())
            seen.update({p.name: mode(p) for p in (folder / MANIFEST, folder / MARKER)})

    monkeypatch.setattr("dreamtui.store.journal.crash_point", look_at_the_journal)
    commit(s.ws, DREAM_ID, now=NOW)
    assert seen == {MANIFEST: 0o600, MARKER: 0o600}
    assert mode(record) == 0o600  # rewritten by the commit's journal


def test_a_new_changeset_is_private(tmp_path: Path) -> None:
    s, _ = basic(tmp_path)
    changeset = s.load()
    changeset.id = "d-20261129-030013-cd34"
    ChangesetStore(s.ws.dreams_dir).create(changeset)
    assert mode(ChangesetStore(s.ws.dreams_dir).path_for(changeset.id)) == 0o600


def test_a_commit_keeps_each_files_mode_and_creates_new_ones_private(tmp_path: Path) -> None:
    s, proposals = basic(tmp_path)
    s.decide_all("accept")
    memory = s.ws.memory_root
    index, bundle = memory / "INDEX.md", s.ws.agents_md
    assert (mode(index), mode(bundle)) == (0o600, 0o600)  # as `dreamtui init` writes them
    reinforced = memory / proposals["reinforce"].target
    reinforced.chmod(0o644)  # a person's choice, kept
    commit(s.ws, DREAM_ID, now=NOW)
    assert (mode(index), mode(bundle)) == (0o600, 0o600)  # were 0644 after the first commit
    assert mode(reinforced) == 0o644
    assert mode(memory / proposals["create"].target) == 0o600


def test_a_human_change_keeps_the_modes_a_person_chose(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws")
    path = s.entry("by-hand", "Guidance.")
    s.settle()
    s.ws.agents_md.chmod(0o640)  # shared with the group that runs the agents
    (s.ws.memory_root / path).chmod(0o444)
    commit_human_change(s.ws, path, None, "pin", "keep")
    assert mode(s.ws.agents_md) == 0o640
    assert mode(s.ws.memory_root / path) == 0o444


def test_atomic_writes_create_private_files_and_keep_existing_modes(tmp_path: Path) -> None:
    fresh, existing = tmp_path / "fresh.txt", tmp_path / "existing.txt"
    existing.write_text("old")
    existing.chmod(0o640)
    atomic_write_text(fresh, "new")
    atomic_write_text(existing, "new")
    assert (mode(fresh), mode(existing)) == (0o600, 0o640)
    assert existing.read_text() == "new"


def test_lock_files_are_private(workspace: Workspace) -> None:
    with WorkspaceLock(workspace, "test").acquire():
        pass
    with changeset_lock(workspace, DREAM_ID):
        pass
    assert mode(workspace.lock_path) == 0o600
    assert mode(workspace.state_dir / "locks" / f"{DREAM_ID}.lock") == 0o600


def test_the_headless_log_is_private(workspace: Workspace) -> None:
    run_headless(workspace)  # nothing pending: a skip, logged
    log = workspace.log_dir / headless.LOG_NAME
    assert log.read_text() and mode(log) == 0o600


def test_each_log_file_a_rollover_starts_is_private(tmp_path: Path) -> None:
    handler = headless._PrivateLog(tmp_path / "dreamtui.log", maxBytes=200, backupCount=2,
                                   encoding="utf-8")
    logger = logging.getLogger("dreamtui.test-permissions")
    logger.addHandler(handler)
    try:
        for number in range(20):
            logger.warning("line %d of a log that rolls over every few lines", number)
    finally:
        logger.removeHandler(handler)
        handler.close()
    files = sorted(tmp_path.glob("dreamtui.log*"))
    assert len(files) == 3
    assert {mode(path) for path in files} == {0o600}
