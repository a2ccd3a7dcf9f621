"""The one way to open `stm.db`: the queue and every side table (rejections, import state, tokens).

Several processes share the file — the TUI, a cron dream, the MCP server, an import, a Dreamer
server — so every connection gets the same settings: WAL (readers never block the writer), a busy
timeout (a writer waits instead of failing), autocommit mode (callers say `BEGIN IMMEDIATE`
themselves: Python's implicit deferred BEGIN takes the write lock late and invites SQLITE_BUSY
deadlocks) and `synchronous = NORMAL` (in WAL mode it cannot corrupt the file, only lose the last
commits on power loss).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from dreamtui.errors import StoreError
from dreamtui.store.files import create_private


def connect(path: Path, busy_timeout_ms: int, *, what: str, read_only: bool = False,
            check_same_thread: bool = True) -> sqlite3.Connection:
    """An open connection to the database at `path`; `what` names the use in error messages."""
    if path.is_dir():
        raise StoreError(f"{path}: is a folder, expected an SQLite database file")
    if not read_only:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{path}: cannot create its folder: {exc.strerror}") from None
        try:
            # SQLite would create the file 0644, and its -wal and -shm copy the file's mode: the
            # queue holds every memory and the token hashes, so it is made private first.
            create_private(path)
        except OSError as exc:
            raise StoreError(f"{path}: cannot create: {exc.strerror}") from None
    target = f"{path.resolve().as_uri()}?mode=ro" if read_only else str(path)
    try:
        conn = sqlite3.connect(target, uri=read_only, timeout=busy_timeout_ms / 1000,
                               isolation_level=None, check_same_thread=check_same_thread)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open for {what}: {exc}") from None
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if not read_only:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: not a usable SQLite database ({exc})") from None
    return conn


@contextmanager
def connection(path: Path, busy_timeout_ms: int, *, what: str, read_only: bool = False,
               schema: str = "") -> Iterator[sqlite3.Connection]:
    """A short-lived connection for a side table, closed on exit; `schema` is run first
    (idempotent `CREATE … IF NOT EXISTS` statements). SQLite errors become StoreError."""
    with closing(connect(path, busy_timeout_ms, what=what, read_only=read_only)) as conn:
        try:
            if schema:
                conn.executescript(schema)
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: {what}: {exc}") from None


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: the write lock is taken at once, rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
