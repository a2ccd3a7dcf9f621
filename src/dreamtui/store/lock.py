"""The workspace lock: one process at a time dreams, commits or recovers a workspace.

The lock itself is `fcntl.flock` on `.dreamtui/lock`: the kernel drops it when the holder dies, so
a crashed process can never leave a workspace locked. The file's body (pid, host, start time as
JSON) is only information for the message another process prints; it is never trusted as state,
and neither is the file's mtime.

Inside one process the lock is re-entrant for the thread that holds it, so the headless runner can
hold it for a whole run and still call `commit`, which takes it too.

Whoever holds it also holds the tenant's dream lease in stm.db (`STMStore.begin_writing`), so a
Dreamer server sharing the folder never dreams while dreamtui dreams or writes, and dreamtui never
writes while Dreamer dreams (LeaseHeld, exit 4): Dreamer's dream mirrors a snapshot of the tree
back over it and would undo a commit made meanwhile. The lease is renewed while the lock is held
and given back with it; nothing else holds it, an open review included.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dreamtui.errors import LockedError, StoreError, WorkspaceError
from dreamtui.model import iso_z
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.files import PRIVATE
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace

_registry_guard = threading.Lock()


@dataclass
class _Held:
    fd: int
    thread: int
    depth: int
    lease: _TenantLease | None = None


class _TenantLease:
    """The tenant's dream lease while the workspace lock is held, renewed by a daemon thread."""

    def __init__(self, workspace: Workspace) -> None:
        self.minutes = workspace.config.stm.lease_minutes
        self.stm = STMStore.for_workspace(workspace)
        try:
            self.id = self.stm.begin_writing(self.minutes)
        except BaseException:
            self.stm.close()
            raise
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name="dreamtui-dream-lease", daemon=True)
        self._thread.start()

    def _renew(self) -> None:
        # A third of the lease: two renewals may fail (a busy database) before it lapses.
        while not self._stop.wait(self.minutes * 20):
            try:
                self.stm.extend_lease(self.id, self.minutes)
            except StoreError:
                pass  # the next attempt tries again; the lease itself says until when it holds

    def end(self) -> None:
        self._stop.set()
        self._thread.join()
        try:
            self.stm.end_writing(self.id)
        finally:
            self.stm.close()


# Lock files this process holds, by resolved path: flock conflicts between two descriptors of
# the same process, so re-entry must be recognised here rather than by the kernel.
_held: dict[Path, _Held] = {}


def _lock_file(path: Path) -> Path:
    return path.parent.resolve() / path.name


def _open(path: Path) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE)  # private, like all of .dreamtui/
    except OSError as exc:
        raise WorkspaceError(f"cannot open the workspace lock {path}: {exc.strerror}") from None


def _read_body(fd: int) -> dict[str, Any]:
    try:
        data = os.pread(fd, 4096, 0)
        body = json.loads(data.decode("utf-8")) if data.strip() else {}
    except (OSError, UnicodeDecodeError, ValueError):
        body = {}
    return body if isinstance(body, dict) else {}


def _describe(body: dict[str, Any], path: Path) -> str:
    if not body.get("pid"):
        return f"workspace locked by another process (lock file {path}; it recorded no details yet)"
    doing = f" ({body['operation']})" if body.get("operation") else ""
    return (f"workspace locked by pid {body['pid']} on {body.get('host', '?')} since "
            f"{body.get('started_at', '?')}{doing}; lock file {path}")


class WorkspaceLock:
    """`with WorkspaceLock(ws).acquire(): …` — LockedError when another live process holds it."""

    def __init__(self, workspace: Workspace, operation: str = "") -> None:
        self.path = _lock_file(workspace.lock_path)
        self.operation = operation
        self._clock = workspace.clock
        self._workspace = workspace

    @contextmanager
    def acquire(self, wait: bool = False) -> Iterator[WorkspaceLock]:
        if self._reenter():
            try:
                yield self
            finally:
                self._leave()
            return
        self._workspace.ensure_state_dirs()
        fd = _open(self.path)
        try:
            self._flock(fd, wait)
        except BaseException:
            os.close(fd)
            raise
        with _registry_guard:
            _held[self.path] = _Held(fd=fd, thread=threading.get_ident(), depth=1)
        try:
            self._write_body(fd)
            _held[self.path].lease = _TenantLease(self._workspace)
            yield self
        finally:
            self._leave()

    def _reenter(self) -> bool:
        with _registry_guard:
            held = _held.get(self.path)
            if held is None:
                return False
            if held.thread != threading.get_ident():
                # Another thread of this process holds it: to this thread that is a holder like
                # any other process, reported the same way.
                raise LockedError(_describe(_read_body(held.fd), self.path))
            held.depth += 1
            return True

    def _leave(self) -> None:
        with _registry_guard:
            held = _held[self.path]
            held.depth -= 1
            if held.depth > 0:
                return
            del _held[self.path]
        try:
            if held.lease is not None:
                held.lease.end()
        finally:
            # Empty the body before unlocking so nobody reads a finished holder as the current one.
            try:
                os.ftruncate(held.fd, 0)
            except OSError:
                pass
            fcntl.flock(held.fd, fcntl.LOCK_UN)
            os.close(held.fd)

    def _flock(self, fd: int, wait: bool) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise LockedError(_describe(_read_body(fd), self.path)) from None
            raise WorkspaceError(f"cannot lock {self.path}: {exc.strerror}") from None

    def _write_body(self, fd: int) -> None:
        # A body left by a dead holder is simply overwritten: the kernel already freed its lock.
        body = {"pid": os.getpid(), "host": socket.gethostname(), "started_at": iso_z(self._clock()),
                "operation": self.operation}
        data = json.dumps(body).encode("utf-8")
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)


def lock_holder(workspace: Workspace) -> dict[str, Any] | None:
    """Who holds the workspace lock ({pid, host, started_at, operation}), or None when it is free."""
    path = _lock_file(workspace.lock_path)
    with _registry_guard:
        held = _held.get(path)
        if held is not None:
            return _read_body(held.fd) or {"pid": os.getpid()}
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WorkspaceError(f"cannot read the workspace lock {path}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                body = _read_body(fd)
                return body or {"pid": None, "host": None, "started_at": None, "operation": ""}
            raise WorkspaceError(f"cannot test the workspace lock {path}: {exc.strerror}") from None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


@contextmanager
def changeset_lock(workspace: Workspace, dream_id: str) -> Iterator[None]:
    """Serialise read-modify-write of one changeset file (decide, undo, commit, abandon).

    Separate from the workspace lock so a person can decide on yesterday's dream while tonight's
    cron run holds the workspace; every holder only does a short load-change-save, so waiting is
    right here.
    """
    ChangesetStore(workspace.dreams_dir).path_for(dream_id)  # refuses ids that are not plain names
    path = workspace.state_dir / "locks" / f"{dream_id}.lock"
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the flock
