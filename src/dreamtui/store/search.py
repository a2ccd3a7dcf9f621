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
from collections.abc import Callable, Iterable
from contextlib import closing
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


def match_expression(query: str) -> str | None:
    """The FTS5 MATCH text for a person's or an agent's words: each word quoted (FTS5 operators
    and punctuation in the query are plain text) and joined with OR, so bm25 ranks entries that
    share more of the words first instead of dropping every entry that lacks one of them."""
    words = list(dict.fromkeys(w.casefold() for w in _WORD_RE.findall(query)))[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{word}"' for word in words) or None


def _row(entry: Entry, stat: os.stat_result) -> dict[str, Any]:
    return {"path": entry.path, "slug": entry.slug, "title": " ".join(entry.title.split()),
            "type": entry.kind, "tags": " ".join(entry.tags), "body": entry.body,
            **_stamp(stat)}


def _stamp(stat: os.stat_result) -> dict[str, int]:
    # A rename (every atomic write) changes the inode, an edit in place the mtime or the size.
    return {"mtime_ns": stat.st_mtime_ns, "size": stat.st_size, "ino": stat.st_ino}


def _unparsable(rel: str, stat: os.stat_result) -> dict[str, Any]:
    # Kept as a row with no slug, so a broken file is not read again until it changes.
    return {"path": rel, "slug": "", "title": "", "type": "", "tags": "", "body": "", **_stamp(stat)}


class SearchIndex:
    """The index of one memory root, stored at `path`."""

    def __init__(self, memory_root: Path, path: Path, *, busy_timeout_ms: int = 5000) -> None:
        self._store = LTMStore(memory_root)
        self.path = path
        self._busy_timeout_ms = busy_timeout_ms

    @classmethod
    def for_workspace(cls, workspace: Any) -> SearchIndex:
        """The workspace's index (`Any`: the store layer does not import the workspace's type)."""
        return cls(workspace.memory_root, workspace.state_dir / INDEX_NAME,
                   busy_timeout_ms=workspace.config.stm.busy_timeout_ms)

    # -- opening -----------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        """A connection to an index of this schema version, built afresh when the file is not one."""
        try:
            conn = db.connect(self.path, self._busy_timeout_ms, what="the search index")
            if self._usable(conn):
                return conn
            conn.close()
        except (StoreError, sqlite3.DatabaseError) as exc:
            logger.warning("rebuilding the search index %s: %s", self.path, exc)
        self._remove_files()
        conn = db.connect(self.path, self._busy_timeout_ms, what="the search index")
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

    def _sync(self, conn: sqlite3.Connection) -> SyncStats:
        on_disk = self._on_disk()
        known = {path: (mtime, size, ino) for path, mtime, size, ino
                 in conn.execute(f"SELECT path, mtime_ns, size, ino FROM {TABLE}")}
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
            with db.immediate(conn):
                if gone:
                    conn.executemany(f"DELETE FROM {TABLE} WHERE path = ?", ((p,) for p in gone))
                if rows:
                    table.upsert_all(rows, pk="path")
        total = conn.execute(f"SELECT count(*) FROM {TABLE} WHERE slug != ''").fetchone()[0]
        return SyncStats(indexed=len(rows), removed=len(gone), total=int(total))

    def _read(self, file: str, rel: str) -> str:
        with open(file, "rb") as handle:
            data = handle.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise EntryError(rel, None, "not UTF-8 text") from None

    def sync(self) -> SyncStats:
        """Bring the index up to date with the entry files (building it when it is missing)."""
        with closing(self._open()) as conn:
            return self._guarded(lambda: self._sync(conn))

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

    def _guarded(self, work: Callable[[], _T]) -> _T:
        try:
            return work()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: the search index: {exc}") from None

    # -- reading -----------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """Live entries matching `query`, best first (bm25), at most `limit` (1..MAX_LIMIT)."""
        limit = max(1, min(MAX_LIMIT, limit))
        expression = match_expression(query)
        if expression is None:
            return []
        with closing(self._open()) as conn:
            def run() -> list[Hit]:
                self._sync(conn)
                # A few extra rows: a slug's shadowed duplicate is dropped below.
                found = conn.execute(
                    f"SELECT e.path, e.slug, e.title, e.type, e.tags, "
                    f"snippet({TABLE}_fts, 3, '[', ']', '…', 24) "
                    f"FROM {TABLE}_fts JOIN {TABLE} e ON e.rowid = {TABLE}_fts.rowid "
                    f"WHERE {TABLE}_fts MATCH ? AND e.slug != '' "
                    f"ORDER BY bm25({TABLE}_fts, {_WEIGHTS}), e.path LIMIT ?",
                    (expression, limit * 2 + 5)).fetchall()
                winners = self._winners(conn, {row[1] for row in found})
                hits = [Hit(slug=slug, title=title, type=kind, path=path,
                            tags=tuple(tags.split()), snippet=" ".join(snippet.split()))
                        for path, slug, title, kind, tags, snippet in found
                        if winners.get(slug) == path]
                return hits[:limit]
            return self._guarded(run)

    @staticmethod
    def _winners(conn: sqlite3.Connection, slugs: Iterable[str]) -> dict[str, str]:
        return {slug: path for slug in slugs
                for (path,) in conn.execute(f"SELECT min(path) FROM {TABLE} WHERE slug = ?", (slug,))}

    def path_of(self, slug: str) -> str | None:
        """The memory-root path of the live entry with this slug, or None."""
        with closing(self._open()) as conn:
            def run() -> str | None:
                self._sync(conn)
                return self._winners(conn, [slug]).get(slug)
            return self._guarded(run)

    def slugs(self) -> list[tuple[str, str, str]]:
        """(slug, title, type) of every live entry, by slug."""
        with closing(self._open()) as conn:
            def run() -> list[tuple[str, str, str]]:
                self._sync(conn)
                return [(slug, title, kind) for slug, title, kind in conn.execute(
                    f"SELECT slug, title, type FROM {TABLE} e WHERE slug != '' AND path = "
                    f"(SELECT min(path) FROM {TABLE} WHERE slug = e.slug) ORDER BY slug")]
            return self._guarded(run)

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
