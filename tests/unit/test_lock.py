"""The workspace lock: flock-based, informative body, re-entrant per thread, freed by death."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from dreamtui.errors import LockedError
from dreamtui.store.lock import WorkspaceLock, changeset_lock, lock_holder
from dreamtui.workspace.layout import Workspace
from tests.factories import hold_lock_in_subprocess

SRC = str(Path(__file__).resolve().parents[2] / "src")

def test_free_lock_is_acquired_and_body_names_this_process(workspace: Workspace) -> None:
    assert lock_holder(workspace) is None
    with WorkspaceLock(workspace, "commit d-1").acquire():
        body = json.loads(workspace.lock_path.read_text())
        assert body["pid"] == os.getpid()
        assert body["operation"] == "commit d-1"
        assert lock_holder(workspace)["pid"] == os.getpid()
    assert lock_holder(workspace) is None


def test_other_live_process_makes_acquire_fail_with_its_pid(workspace: Workspace) -> None:
    proc = hold_lock_in_subprocess(workspace)
    try:
        with pytest.raises(LockedError) as caught:
            with WorkspaceLock(workspace).acquire():
                pass
        message = str(caught.value)
        assert f"workspace locked by pid {proc.pid} on " in message
        assert "since" in message and "test holder" in message
        assert lock_holder(workspace)["pid"] == proc.pid
    finally:
        proc.kill()
        proc.wait()


def test_killed_holder_frees_the_lock_and_its_stale_body_is_taken_over(workspace: Workspace) -> None:
    proc = hold_lock_in_subprocess(workspace)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # the dead holder's body is still in the file, but the kernel released its flock
    assert json.loads(workspace.lock_path.read_text())["pid"] == proc.pid
    assert lock_holder(workspace) is None
    with WorkspaceLock(workspace).acquire():
        assert json.loads(workspace.lock_path.read_text())["pid"] == os.getpid()


def test_wait_blocks_until_the_holder_lets_go(workspace: Workspace) -> None:
    proc = hold_lock_in_subprocess(workspace)
    threading.Timer(0.3, proc.kill).start()
    started = time.monotonic()
    with WorkspaceLock(workspace).acquire(wait=True):
        assert time.monotonic() - started >= 0.2
    proc.wait()


def test_reentrant_in_one_thread_but_not_across_threads(workspace: Workspace) -> None:
    errors: list[BaseException] = []

    def other_thread() -> None:
        try:
            with WorkspaceLock(workspace).acquire():
                pass
        except LockedError as exc:
            errors.append(exc)

    with WorkspaceLock(workspace).acquire():
        with WorkspaceLock(workspace).acquire():
            thread = threading.Thread(target=other_thread)
            thread.start()
            thread.join()
        # the inner exit must not have released the outer hold
        assert lock_holder(workspace)["pid"] == os.getpid()
    assert len(errors) == 1
    assert lock_holder(workspace) is None


def test_changeset_lock_serialises_threads(workspace: Workspace) -> None:
    order: list[str] = []

    def second() -> None:
        with changeset_lock(workspace, "d-20260101-000000-abcd"):
            order.append("second")

    with changeset_lock(workspace, "d-20260101-000000-abcd"):
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.1)
        order.append("first")
    thread.join()
    assert order == ["first", "second"]


def test_changeset_lock_refuses_a_path_like_dream_id(workspace: Workspace) -> None:
    from dreamtui.errors import InputError

    with pytest.raises(InputError, match="dream id"):
        with changeset_lock(workspace, "../../etc"):
            pass
