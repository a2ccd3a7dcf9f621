"""The full-text index of live LTM entries: `.dreamtui/search.db`, an SQLite FTS5 table built and
queried with sqlite-utils.

It is derived data: the entry files stay the truth, the index lives in the git-ignored state
folder, and a missing, unreadable or older-schema file is simply built again. Every read first
brings it up to date (`sync`): one stat per entry file, and only files whose size or mtime changed
since they were indexed are read and parsed again, so a commit, a person's edit in an editor and a
`git pull` of the workspace are all seen by the next search. The commit calls `refresh` so the
work of a changed entry lands there, not on an agent's first search after it.

Slugs follow the store's rule (`LTMStore.scan`): when two live files share a slug, the one with
the smaller path is the entry; the other is never a result.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from dreamtui.entry.codec import parse_entry
from dreamtui.errors import EntryError, StoreError
from dreamtui.model import Entry
from dreamtui.store import db
from dreamtui.store.ltm import ARCHIVE, LTMStore

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

INDEX_NAME = "search.db"
# Bumped whenever the tables change: an index of another version is rebuilt, never migrated.
SCHEMA_VERSION = 1
TABLE = "entries"
FTS_COLUMNS = ("slug", "title", "tags", "body")
# bm25 weights in FTS_COLUMNS order: a word in the slug or title says more than one in the body.
_WEIGHTS = "4.0, 4.0, 2.0, 1.0"
# Porter stemming (`ports` finds `port`), diacritics folded (`resume` finds `résumé`).
TOKENIZE = "porter unicode61 remove_diacritics 2"
MAX_LIMIT = 50
MAX_QUERY_TERMS = 32
_CHECKPOINT_ROWS = 1000
_WORD_RE = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    """One search result: the entry's identity and the matching passage (`[` `]` mark the words)."""

    slug: str
    title: str
    type: str
    path: str
    tags: tuple[str, ...]
    snippet: str

    def to_dict(self) -> dict[str, Any]:
        return {"slug": self.slug, "title": self.title, "type": self.type, "path": self.path,
                "tags": list(self.tags), "snippet": self.snippet}


@dataclass(frozen=True)
class SyncStats:
    indexed: int  # files read and parsed again
    removed: int
    total: int  # live entries in the index afterwards

    @property
    def changed(self) -> bool:
        return bool(self.indexed or self.removed)


# Words an agent's question carries ("how to fix … in CI") that nearly every entry holds: ORed in,
# they rank nothing and make the query read most of the index (30 ms instead of 7 on 10,000).
STOP_WORDS = frozenset("""a an and are as at be but by can do does did for from get got how i if in
into is it its me my no not of on or our so that the their then there these this to was we what
when where which who why will with you your""".split())


def match_expression(query: str) -> str | None:
    """The FTS5 MATCH text for a person's or an agent's words: each word quoted (FTS5 operators
    and punctuation in the query are plain text) and joined with OR, so bm25 ranks entries that
    share more of the words first instead of dropping every entry that lacks one of them. Stop
    words are left out unless the query holds nothing else."""
    words = list(dict.fromkeys(w.casefold() for w in _WORD_RE.findall(query)))
    words = ([w for w in words if w not in STOP_WORDS] or words)[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{word}"' for word in words) or None


def _row(entry: Entry, stat: os.stat_result) -> dict[str, Any]:
    return {"path": entry.path, "slug": entry.slug, "title": " ".join(entry.title.split()),
            "type": entry.kind, "tags": " ".join(entry.tags), "body": entry.body,
            **_stamp(stat)}


def _stamp(stat: os.stat_result) -> dict[str, int]:
    # A rename (every atomic write) changes the inode, an edit in place the mtime or the size.
    return {"mtime_ns": stat.st_mtime_ns, "size": stat.st_size, "ino": stat.st_ino}


def _winners(conn: sqlite3.Connection, slugs: Iterable[str]) -> dict[str, str]:
    """Slug -> the path that is its entry: the smaller one when two live files share it."""
    return {slug: path for slug in slugs
            for (path,) in conn.execute(f"SELECT min(path) FROM {TABLE} WHERE slug = ?", (slug,))}


def _unparsable(rel: str, stat: os.stat_result) -> dict[str, Any]:
    # Kept as a row with no slug, so a broken file is not read again until it changes.
    return {"path": rel, "slug": "", "title": "", "type": "", "tags": "", "body": "", **_stamp(stat)}


class SearchIndex:
    """The index of one memory root, stored at `path`.

    One instance keeps its connection and what it knows of the indexed files between calls (the
    MCP server holds one for its life), so a read costs the stat walk and the query, not reloading
    10,000 stamps; `PRAGMA data_version` says when another process (a commit) wrote the index
    meanwhile. Calls from several threads are taken one at a time. `close()` lets go.
    """

    def __init__(self, memory_root: Path, path: Path, *, busy_timeout_ms: int = 5000) -> None:
        self._store = LTMStore(memory_root)
        self.path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._inode = -1
        self._known: dict[str, tuple[int, int, int]] | None = None  # path -> stamp, as indexed
        self._version = -1

    @classmethod
    def for_workspace(cls, workspace: Any) -> SearchIndex:
        """The workspace's index (`Any`: the store layer does not import the workspace's type)."""
        return cls(workspace.memory_root, workspace.state_dir / INDEX_NAME,
                   busy_timeout_ms=workspace.config.stm.busy_timeout_ms)

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn, self._known, self._inode = None, None, -1

    # -- opening -----------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        """The open connection, opened again when the file was removed or replaced meanwhile."""
        try:
            inode = os.stat(self.path).st_ino
        except FileNotFoundError:
            inode = -1
        if self._conn is None or inode != self._inode:
            self._drop()
            self._conn = self._open()
            self._inode = os.stat(self.path).st_ino
        return self._conn

    def _open(self) -> sqlite3.Connection:
        """A connection to an index of this schema version, built afresh when the file is not one."""
        try:
            conn = db.connect(self.path, self._busy_timeout_ms, what="the search index",
                              check_same_thread=False)
            if self._usable(conn):
                return conn
            conn.close()
        except (StoreError, sqlite3.DatabaseError) as exc:
            logger.warning("rebuilding the search index %s: %s", self.path, exc)
        self._remove_files()
        conn = db.connect(self.path, self._busy_timeout_ms, what="the search index",
                          check_same_thread=False)
        try:
            self._create(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(f"{self.path}: cannot create the search index: {exc}") from None
        return conn

    def _usable(self, conn: sqlite3.Connection) -> bool:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            conn.execute(f"SELECT count(*) FROM {TABLE}_fts WHERE {TABLE}_fts MATCH 'x'").fetchone()
            return True
        if version == 0 and not conn.execute("SELECT 1 FROM sqlite_master").fetchone():
            self._create(conn)  # a new, empty file
            return True
        return False

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    @staticmethod
    def _create(conn: sqlite3.Connection) -> None:
        database = sqlite_utils.Database(conn)
        table = database.table(TABLE)
        table.create({"path": str, "slug": str, "title": str, "type": str, "tags": str, "body": str,
                      "mtime_ns": int, "size": int, "ino": int}, pk="path", if_not_exists=True)
        table.create_index(["slug"], if_not_exists=True)
        if table.detect_fts() is None:
            # Triggers keep the FTS table equal to `entries` through every upsert and delete.
            table.enable_fts(list(FTS_COLUMNS), create_triggers=True, tokenize=TOKENIZE)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- keeping it current ------------------------------------------------------------------

    def _on_disk(self) -> dict[str, tuple[str, os.stat_result]]:
        """Relative path → (file to read, its stat) of every live entry file."""
        problems: list[EntryError] = []
        found: dict[str, tuple[str, os.stat_result]] = {}
        for file, rel in self._store.entry_files(problems):
            if rel.startswith(ARCHIVE + "/"):
                continue
            try:
                found[rel] = (file, os.stat(file))
            except OSError:
                continue  # removed since the listing: it is not an entry any more
        return found

    def _stamps(self, conn: sqlite3.Connection) -> dict[str, tuple[int, int, int]]:
        """What the index holds of each file: kept from the last call unless another connection
        wrote the index since."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if self._known is None or version != self._version:
            self._known = {path: (mtime, size, ino) for path, mtime, size, ino
                           in conn.execute(f"SELECT path, mtime_ns, size, ino FROM {TABLE}")}
            self._version = version
        return self._known

    def _sync(self, conn: sqlite3.Connection) -> SyncStats:
        on_disk = self._on_disk()
        known = self._stamps(conn)
        gone = [path for path in known if path not in on_disk]
        rows = []
        for rel, (file, stat) in on_disk.items():
            if known.get(rel) == (stat.st_mtime_ns, stat.st_size, stat.st_ino):
                continue
            try:
                rows.append(_row(parse_entry(self._read(file, rel), rel), stat))
            except EntryError:
                rows.append(_unparsable(rel, stat))
            except OSError:
                continue  # unreadable now; tried again at the next sync
        if rows or gone:
            table = sqlite_utils.Database(conn).table(TABLE)
            self._known = None  # until the write is done: a failure leaves nothing half known
            with db.immediate(conn):
                if gone:
                    conn.executemany(f"DELETE FROM {TABLE} WHERE path = ?", ((p,) for p in gone))
                if rows:
                    table.upsert_all(rows, pk="path")
            if len(rows) > _CHECKPOINT_ROWS:
                # A build leaves its whole text in the -wal file (7 MB for 10,000 entries) until
                # the next checkpoint: fold it in now, so the index costs its size once on disk.
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for path in gone:
                known.pop(path, None)
            known.update({row["path"]: (row["mtime_ns"], row["size"], row["ino"]) for row in rows})
            self._known = known
        total = conn.execute(f"SELECT count(*) FROM {TABLE} WHERE slug != ''").fetchone()[0]
        return SyncStats(indexed=len(rows), removed=len(gone), total=int(total))

    def _read(self, file: str, rel: str) -> str:
        with open(file, "rb") as handle:
            data = handle.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise EntryError(rel, None, "not UTF-8 text") from None

    def _use(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """`work` on the index brought up to date, one call at a time; an SQLite failure drops
        the connection (the next call opens it afresh) and is a StoreError."""
        with self._lock:
            try:
                conn = self._connection()
                self._sync(conn)
                return work(conn)
            except sqlite3.Error as exc:
                self._drop()
                raise StoreError(f"{self.path}: the search index: {exc}") from None

    def sync(self) -> SyncStats:
        """Bring the index up to date with the entry files (building it when it is missing)."""
        with self._lock:
            try:
                return self._sync(self._connection())
            except sqlite3.Error as exc:
                self._drop()
                raise StoreError(f"{self.path}: the search index: {exc}") from None

    def refresh(self) -> SyncStats | None:
        """After a commit: update an index that exists; one nobody has searched yet is left to
        be built by the first search. Never raises: a commit must not fail over derived data."""
        if not self.path.exists():
            return None
        try:
            return self.sync()
        except (StoreError, OSError) as exc:
            logger.warning("search index not refreshed (the next search rebuilds it): %s", exc)
            return None
        finally:
            self.close()

    # -- reading -----------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """Live entries matching `query`, best first (bm25), at most `limit` (1..MAX_LIMIT)."""
        limit = max(1, min(MAX_LIMIT, limit))
        expression = match_expression(query)
        if expression is None:
            return []

        def run(conn: sqlite3.Connection) -> list[Hit]:
            # A few extra rows: a slug's shadowed duplicate is dropped below.
            found = conn.execute(
                f"SELECT e.path, e.slug, e.title, e.type, e.tags, "
                f"snippet({TABLE}_fts, 3, '[', ']', '…', 24) "
                f"FROM {TABLE}_fts JOIN {TABLE} e ON e.rowid = {TABLE}_fts.rowid "
                f"WHERE {TABLE}_fts MATCH ? AND e.slug != '' "
                f"ORDER BY bm25({TABLE}_fts, {_WEIGHTS}), e.path LIMIT ?",
                (expression, limit * 2 + 5)).fetchall()
            winners = _winners(conn, {row[1] for row in found})
            hits = [Hit(slug=slug, title=title, type=kind, path=path, tags=tuple(tags.split()),
                        snippet=" ".join(snippet.split()))
                    for path, slug, title, kind, tags, snippet in found if winners.get(slug) == path]
            return hits[:limit]
        return self._use(run)

    def matching(self, text: str) -> set[str]:
        """Paths of the live entries holding every word of `text` (the last one as a prefix,
        for a filter typed a letter at a time): the Memory view's `/` filter over their bodies."""
        # Each typed word is a phrase of its parts: `test-db` is "test db", the two adjacent.
        typed = [" ".join(_WORD_RE.findall(word.casefold())) for word in text.split()]
        phrases = [p for p in typed if p and p not in STOP_WORDS] or [p for p in typed if p]
        if not phrases:
            return set()
        phrases = phrases[:MAX_QUERY_TERMS]
        expression = " ".join([*(f'"{p}"' for p in phrases[:-1]), f'"{phrases[-1]}"*'])
        return self._use(lambda conn: {path for (path,) in conn.execute(
            f"SELECT e.path FROM {TABLE}_fts JOIN {TABLE} e ON e.rowid = {TABLE}_fts.rowid "
            f"WHERE {TABLE}_fts MATCH ? AND e.slug != ''", (expression,))})

    def path_of(self, slug: str) -> str | None:
        """The memory-root path of the live entry with this slug, or None."""
        return self._use(lambda conn: _winners(conn, [slug]).get(slug))

    def slugs(self) -> list[tuple[str, str, str]]:
        """(slug, title, type) of every live entry, by slug."""
        def run(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
            rows = conn.execute(f"SELECT slug, title, type FROM {TABLE} WHERE slug != '' ORDER BY slug, path")
            first: dict[str, tuple[str, str, str]] = {}  # the first path of a slug is its entry
            for slug, title, kind in rows:
                first.setdefault(slug, (slug, title, kind))
            return list(first.values())
        return self._use(run)

    def entry(self, slug: str) -> Entry | None:
        """The live entry with this slug, read from its file now (so it is never the index's
        older copy), or None."""
        path = self.path_of(slug)
        if path is None:
            return None
        try:
            entry = self._store.read(path)
        except EntryError:
            return None
        return entry if entry.slug == slug else None
