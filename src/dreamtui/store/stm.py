"""The short-term memory queue: Dreamer's SQLite schema, taken and claimed safely by many processes.

Rows stay byte-compatible with a Dreamer server sharing the file (docs/architecture.md §3.2): uuid4 ids, UTC
timestamps as 'YYYY-MM-DD HH:MM:SS.ffffff', JSON columns as `json.dumps` writes them. Every write
that must be atomic runs in one `BEGIN IMMEDIATE` transaction, so cron, the TUI and the MCP server
can claim from the same file at once without a memory being claimed twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import islice
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self
from urllib.parse import quote

from dreamtui.clock import RANDOM_IDS, Clock, IdSource, system_clock
from dreamtui.errors import InputError, LockedError, StoreError
from dreamtui.model import FEEDBACK_TYPES, MEMORY_STATES, Memory, NewMemory
from dreamtui.store import db

if TYPE_CHECKING:
    from types import TracebackType

    from dreamtui.workspace.layout import Workspace

# Dreamer's tables as its SQLAlchemy metadata creates them (docs/architecture.md §3.2): column for column
# and index for index the same schema, so either program reads and writes what the other created (the
# DDL text differs: SQLAlchemy writes its own spelling of the same types).
STM_MEMORIES_DDL = """CREATE TABLE stm_memories (
  id VARCHAR NOT NULL PRIMARY KEY,        -- uuid4 string
  tenant_id VARCHAR NOT NULL,             -- 'default'
  agent_id VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  title VARCHAR NOT NULL,                 -- <= 120 chars
  content TEXT NOT NULL,                  -- <= max_content_bytes UTF-8 (default 8192)
  tags JSON NOT NULL,                     -- JSON array of strings
  metadata JSON NOT NULL,                 -- JSON object
  submitted_at DATETIME NOT NULL,         -- UTC, text 'YYYY-MM-DD HH:MM:SS.ffffff'
  consumed_at DATETIME,                   -- same format; set when a commit consumed it
  consumed_by_lease VARCHAR,              -- lease id while claimed
  idempotency_key VARCHAR,
  extra JSON NOT NULL                     -- JSON object for any further fields
)"""
IX_IDEMPOTENCY_DDL = """CREATE UNIQUE INDEX ix_stm_memories_tenant_idempotency
  ON stm_memories (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL"""
IX_TENANT_DDL = "CREATE INDEX ix_stm_memories_tenant_id ON stm_memories (tenant_id)"
IX_LEASE_DDL = "CREATE INDEX ix_stm_memories_consumed_by_lease ON stm_memories (consumed_by_lease)"
DREAM_LEASES_DDL = """CREATE TABLE dream_leases (
  id VARCHAR NOT NULL PRIMARY KEY, tenant_id VARCHAR NOT NULL,
  acquired_at DATETIME NOT NULL, expires_at DATETIME NOT NULL)"""
IX_LEASES_TENANT_DDL = "CREATE INDEX ix_dream_leases_tenant_id ON dream_leases (tenant_id)"

# (sqlite_master name, exact DDL), in creation order.
DREAMER_SCHEMA: tuple[tuple[str, str], ...] = (
    ("stm_memories", STM_MEMORIES_DDL),
    ("ix_stm_memories_tenant_idempotency", IX_IDEMPOTENCY_DDL),
    ("ix_stm_memories_tenant_id", IX_TENANT_DDL),
    ("ix_stm_memories_consumed_by_lease", IX_LEASE_DDL),
    ("dream_leases", DREAM_LEASES_DDL),
    ("ix_dream_leases_tenant_id", IX_LEASES_TENANT_DDL),
)

# dreamtui's own indices. Partial ones cost nothing for rows outside their WHERE, so only the
# pending index is paid for on insert; it carries `type` so counting pending by type never
# touches the table, and its order is the claim order.
DREAMTUI_INDEXES: dict[str, str] = {
    "dreamtui_stm_pending": (
        "CREATE INDEX IF NOT EXISTS dreamtui_stm_pending ON stm_memories "
        "(tenant_id, submitted_at, id, type) "
        "WHERE consumed_by_lease IS NULL AND consumed_at IS NULL"),
    "dreamtui_stm_submitted": (
        "CREATE INDEX IF NOT EXISTS dreamtui_stm_submitted ON stm_memories "
        "(tenant_id, submitted_at, id)"),
    "dreamtui_stm_claimed": (
        "CREATE INDEX IF NOT EXISTS dreamtui_stm_claimed ON stm_memories (consumed_by_lease) "
        "WHERE consumed_by_lease IS NOT NULL AND consumed_at IS NULL"),
    "dreamtui_stm_consumed_at": (
        "CREATE INDEX IF NOT EXISTS dreamtui_stm_consumed_at ON stm_memories "
        "(tenant_id, consumed_at) WHERE consumed_at IS NOT NULL"),
}
META_TABLE = "dreamtui_meta"
META_DDL = f"""CREATE TABLE IF NOT EXISTS {META_TABLE} (
  tenant_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (tenant_id, key))"""
# The leases dreamtui itself took (dream_leases is shared with a Dreamer server, whose live leases
# are never dreamtui's to release). Dreamer's protocol allows one live dream_leases row per tenant,
# held while dreaming; dreamtui holds its rows only while it writes (the workspace lock, see
# `begin_writing`). A claim outlives its row: once the row is gone the claim is *kept* — its
# memories stay claimed for the open changeset that names them, Dreamer never touches them
# (it reclaims only leases whose row expired) — until a commit, abandon or release ends it.
LEASES_TABLE = "dreamtui_leases"
LEASES_DDL = f"""CREATE TABLE IF NOT EXISTS {LEASES_TABLE} (
  id TEXT NOT NULL PRIMARY KEY, tenant_id TEXT NOT NULL, acquired_at TEXT NOT NULL)"""

COLUMNS: tuple[str, ...] = ("id", "tenant_id", "agent_id", "type", "title", "content", "tags",
                            "metadata", "submitted_at", "consumed_at", "consumed_by_lease",
                            "idempotency_key", "extra")
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM stm_memories"
_INSERT = (f"INSERT INTO stm_memories ({', '.join(COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(COLUMNS))}) ON CONFLICT DO NOTHING")
# What `bulk_rows` builds, in order; the insert appends submitted_at, and the columns left out
# (consumed_at, consumed_by_lease) start NULL, as a pending memory's must.
BULK_COLUMNS: tuple[str, ...] = ("id", "tenant_id", "agent_id", "type", "title", "content", "tags",
                                 "metadata", "idempotency_key", "extra")
_BULK_INSERT = (f"INSERT INTO stm_memories ({', '.join(BULK_COLUMNS)}, submitted_at) "
                f"VALUES ({', '.join('?' * (len(BULK_COLUMNS) + 1))}) ON CONFLICT DO NOTHING")
_PENDING = "consumed_by_lease IS NULL AND consumed_at IS NULL"
_CLAIMED = "consumed_by_lease IS NOT NULL AND consumed_at IS NULL"
_CONSUMED = "consumed_at IS NOT NULL"
_STATE_SQL = {"pending": _PENDING, "claimed": _CLAIMED, "consumed": _CONSUMED}

# Rows per bulk transaction: enough to amortise a commit, few enough that a claim waits briefly.
BULK_CHUNK = 5000
IN_CHUNK = 500  # ids per IN (...) list, far below SQLite's variable limit
CACHE_KIB = 32 * 1024  # page cache per connection (SQLite's default is 2 MiB)
LAST_LEASE_KEY = "last_lease_at"
_ONE_MICROSECOND = timedelta(microseconds=1)
_KEY_AT = COLUMNS.index("idempotency_key")
# The form a per-agent key takes when another agent already holds the plain key (`submit`).
SCOPED_KEY_PREFIX = "agent:"


def scoped_key(agent_id: str, key: str) -> str:
    """`key` as `agent_id`'s own; quoting keeps ':' out of the agent part, so no two (agent, key)
    pairs share a scoped key."""
    return f"{SCOPED_KEY_PREFIX}{quote(agent_id, safe='')}:{key}"


# Dreamer's Memory model (dreamer.api.types) spreads `extra` into its own fields when it reads a
# row: a key that repeats one makes every list_unconsumed and claim_batch of the queue raise.
DREAMER_MEMORY_FIELDS = frozenset(COLUMNS) - {"extra"}


def refuse_colliding_extra(extra: dict[str, Any]) -> None:
    """InputError when a key of `extra` is a field of Dreamer's Memory, which no row may carry."""
    clash = sorted(DREAMER_MEMORY_FIELDS.intersection(extra)) if extra else []
    if clash:
        raise InputError(f"extra.{clash[0]}: {', '.join(map(repr, clash))} is a field of every memory "
                         "(a Dreamer server sharing stm.db could no longer read the queue); rename the key")


# Every database a Dreamer server opened has its token table (its SQLAlchemy metadata creates all
# three); only then can a Dreamer acquire race ours.
DREAMER_TOKENS_TABLE = "auth_tokens"
# Far more than the milliseconds between the read and the insert of Dreamer's acquire.
DREAMER_ACQUIRE_GAP_S = 0.15


class LeaseHeld(LockedError):
    """Another program sharing stm.db (a Dreamer server) holds the tenant's live dream lease."""


@dataclass(frozen=True)
class SubmitResult:
    memory: Memory
    created: bool


@dataclass(frozen=True)
class BulkResult:
    inserted: int
    duplicates: int


@dataclass(frozen=True)
class Lease:
    id: str
    acquired_at: datetime
    expires_at: datetime
    memories: list[Memory]


@dataclass(frozen=True)
class Holding:
    """A lease that holds claimed memories, as the queue sees it."""

    lease_id: str
    memories: int
    expires_at: datetime | None  # None: no dream_leases row (a kept claim, or a vanished lease)
    ours: bool  # dreamtui took it; else another program sharing the file (a Dreamer server)


@dataclass(frozen=True)
class MemoryFilter:
    state: str | None = None
    types: tuple[str, ...] = ()
    text: str | None = None
    agent: str | None = None
    exclude_feedback: bool = False


def format_ts(moment: datetime) -> str:
    """Dreamer's text form; a naive datetime is taken to be UTC already."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(" ", "microseconds")


def parse_ts(value: Any, where: str) -> datetime:
    """Read a stored timestamp (with or without fraction or offset) as an aware UTC datetime."""
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise StoreError(f"{where}: {value!r} is not a timestamp "
                         "(expected 'YYYY-MM-DD HH:MM:SS.ffffff')") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


_encode = json.JSONEncoder().encode  # what json.dumps uses, without its per-call setup


def _loads(text: Any) -> Any:
    """A JSON column's value; the empty list and object most rows hold are made, not parsed
    (a fresh one each time: callers may change what they get)."""
    if text == "{}":
        return {}
    if text == "[]":
        return []
    return json.loads(text)


def _json(value: dict[str, Any] | Sequence[str]) -> str:
    """json.dumps output (Dreamer's format), byte for byte.

    Empty values and flat string lists or dicts (nearly every tag list and most metadata) are
    joined from the encoder's own string escaper: a third of the encoder's per-call cost.
    """
    if not value:
        return "[]" if isinstance(value, (list, tuple)) else "{}"
    try:
        if isinstance(value, dict):
            return "{" + ", ".join([f"{encode_basestring_ascii(k)}: {encode_basestring_ascii(v)}"
                                    for k, v in value.items()]) + "}"
        return "[" + ", ".join(map(encode_basestring_ascii, value)) + "]"
    except TypeError:  # a key or value that is not a string: the encoder's rules apply
        return _encode(value)


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def new_ids(count: int) -> list[str]:
    """`count` random uuid4 strings as `self._ids.uuid4()` writes them, from one urandom read.

    The version nibble is set to 4 and the variant's two top bits to 10, as uuid4 does; the
    other 122 bits stay random. A fifth of the cost of uuid4() per id, which matters where ids
    are made by the hundred thousand (`dreamtui submit --jsonl`).
    """
    digits = os.urandom(16 * count).hex()
    ids = []
    for start in range(0, 32 * count, 32):
        h = digits[start:start + 32]
        ids.append(f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}")
    return ids


class RowFields(Protocol):
    """What `bulk_rows` reads of a memory: a NewMemory, or the intake gate's lighter tuple."""

    @property
    def type(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def agent_id(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def idempotency_key(self) -> str | None: ...
    @property
    def extra(self) -> dict[str, Any]: ...


def bulk_rows(memories: Sequence[RowFields], tenant_id: str,
              ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """Rows for `STMStore.insert_rows` (columns as BULK_COLUMNS): everything but the timestamp.

    Pure and picklable, so a bulk intake can build them in worker processes while the store
    inserts earlier ones.
    """
    for memory in memories:
        if memory.extra:
            refuse_colliding_extra(memory.extra)
    return [(mem_id, tenant_id, m.agent_id, m.type, m.title, m.content, _json(m.tags),
             _json(m.metadata), m.idempotency_key, _json(m.extra))
            for mem_id, m in zip(ids, memories, strict=True)]


def _stamps(start: datetime, count: int) -> list[str]:
    """`count` stamps 1 µs apart from naive-UTC `start`, as format_ts writes them.

    Formatting the date once per second and the microseconds by string ops is ten times cheaper
    than a datetime addition and isoformat per row.
    """
    stamps: list[str] = []
    second = start.replace(microsecond=0)
    micro = start.microsecond
    while len(stamps) < count:
        prefix = f"{second.isoformat(' ')}."
        take = min(count - len(stamps), 1_000_000 - micro)
        stamps += [f"{prefix}{u:06d}" for u in range(micro, micro + take)]
        second += timedelta(seconds=1)
        micro = 0
    return stamps


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _like_pattern(token: str) -> str:
    escaped = token.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class STMStore:
    """One connection to an STM file. Safe to share between threads (calls are serialised)."""

    def __init__(self, path: Path, *, tenant_id: str = "default", busy_timeout_ms: int = 5000,
                 clock: Clock = system_clock, ids: IdSource = RANDOM_IDS) -> None:
        self.path = Path(path)
        self.tenant_id = tenant_id
        self.busy_timeout_ms = busy_timeout_ms
        self._clock = clock
        self._ids = ids
        self._lock = threading.RLock()
        self._conn = self._connect()
        try:
            self._ensure_schema()
        except BaseException:
            self._conn.close()
            raise

    @classmethod
    def for_workspace(cls, workspace: Workspace) -> STMStore:
        settings = workspace.config.stm
        return cls(workspace.stm_path, tenant_id=settings.tenant_id,
                   busy_timeout_ms=settings.busy_timeout_ms, clock=workspace.clock, ids=workspace.ids)

    def _now(self, now: datetime | None) -> datetime:
        return _aware(now) if now is not None else self._clock()

    # -- connection and schema ---------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = db.connect(self.path, self.busy_timeout_ms, what="the queue", check_same_thread=False)
        try:
            # Random uuid4 keys spread every bulk chunk over the whole primary-key index; with
            # SQLite's default 2 MB cache its pages are read back from the OS again and again.
            # This is only a ceiling: the cache grows as pages are used.
            conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"{self.path}: not a usable SQLite database ({exc})") from None
        return conn

    def _ensure_schema(self) -> None:
        with self._guard("reading the schema"):
            present = {row[0] for row in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
        if "stm_memories" in present:
            self._check_compatible()
        wanted = {name for name, _ in DREAMER_SCHEMA} | set(DREAMTUI_INDEXES) | {META_TABLE, LEASES_TABLE}
        if wanted <= present:
            return
        with self._transaction("creating the schema"):
            # Re-read inside the write lock: another process may have created it meanwhile.
            present = {row[0] for row in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
            for name, ddl in DREAMER_SCHEMA:
                if name not in present:
                    self._conn.execute(ddl)
            for ddl in DREAMTUI_INDEXES.values():
                self._conn.execute(ddl)
            self._conn.execute(META_DDL)
            self._conn.execute(LEASES_DDL)

    def _check_compatible(self) -> None:
        """Refuse a foreign `stm_memories`: we must be able to read and insert every row."""
        with self._guard("reading the schema"):
            # (cid, name, type, notnull, default, pk) per column
            columns = self._conn.execute("PRAGMA table_info(stm_memories)").fetchall()
        names = {column[1] for column in columns}
        missing = [name for name in COLUMNS if name not in names]
        if missing:
            raise StoreError(f"{self.path}: table stm_memories is not Dreamer's STM table "
                             f"(missing column(s) {', '.join(missing)})")
        required_unknown = [name for _, name, _, notnull, default, _ in columns
                            if name not in COLUMNS and notnull and default is None]
        if required_unknown:
            raise StoreError(f"{self.path}: table stm_memories has required column(s) dreamtui "
                             f"cannot fill: {', '.join(required_unknown)}")

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """Turn sqlite3 failures into a StoreError that says which file and what we were doing."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreError(f"{self.path}: {action}: the database stayed locked by another "
                                 f"process for {self.busy_timeout_ms} ms") from None
            raise StoreError(f"{self.path}: {action}: {exc}") from None
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {action}: {exc}") from None

    @contextmanager
    def _transaction(self, action: str) -> Iterator[sqlite3.Connection]:
        with self._lock, self._guard(action):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def _reading(self, action: str) -> Iterator[sqlite3.Connection]:
        with self._lock, self._guard(action):
            yield self._conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- rows ------------------------------------------------------------------------------------

    def _to_memory(self, row: Sequence[Any]) -> Memory:
        (mem_id, tenant, agent, mtype, title, content, tags, metadata, submitted,
         consumed, lease, key, extra) = row
        where = f"{self.path}: stm_memories row {mem_id}"
        try:
            tag_list = _loads(tags)
            meta = _loads(metadata)
            extra_obj = _loads(extra)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{where}: a JSON column holds invalid JSON ({exc})") from None
        # Imported here: the safety patterns take ~30 ms to compile, which `status` must not pay.
        from dreamtui.safety.fields import clean_memory

        # A row another program wrote (a Dreamer server shares this table) never passed the intake
        # gate, so every Memory handed out, a dream's batch first, is as the gate would have
        # stored it: redacted, with its marks (architecture.md §4.6). The row itself is left as is.
        return clean_memory(Memory(
            id=mem_id, tenant_id=tenant, agent_id=agent, type=mtype, title=title,
            content=content,
            tags=tuple(str(t) for t in tag_list) if isinstance(tag_list, list) else (),
            metadata=meta if isinstance(meta, dict) else {},
            submitted_at=parse_ts(submitted, f"{where} submitted_at"),
            consumed_at=parse_ts(consumed, f"{where} consumed_at") if consumed else None,
            consumed_by_lease=lease, idempotency_key=key,
            extra=extra_obj if isinstance(extra_obj, dict) else {}))

    def _new_row(self, memory: NewMemory, submitted_at: str) -> tuple[Any, ...]:
        refuse_colliding_extra(memory.extra)
        return (self._ids.uuid4(), self.tenant_id, memory.agent_id, memory.type, memory.title,
                memory.content, _json(memory.tags), _json(memory.metadata), submitted_at, None,
                None, memory.idempotency_key, _json(memory.extra))

    def _by_key(self, conn: sqlite3.Connection, key: str) -> Memory | None:
        row = conn.execute(f"{_SELECT} WHERE tenant_id = ? AND idempotency_key = ?",
                           (self.tenant_id, key)).fetchone()
        return self._to_memory(row) if row else None

    # -- submitting ------------------------------------------------------------------------------

    def submit(self, memory: NewMemory, *, now: datetime | None = None,
               per_agent: bool = False) -> SubmitResult:
        """Store one memory; the same idempotency key returns the row stored first.

        `per_agent` (what the MCP server asks) makes a key each agent's own: a plain key another
        agent holds is stored under `scoped_key` instead, and another agent's row is never
        returned. An agent's key that no one else holds stays plain, so it deduplicates as
        before, and against a Dreamer server sharing the file.
        """
        row = self._new_row(memory, format_ts(self._now(now)))
        with self._transaction("submitting a memory") as conn:
            key = memory.idempotency_key
            if key is not None:
                existing = self._by_key(conn, key)
                if per_agent and existing is not None and existing.agent_id != memory.agent_id:
                    key = scoped_key(memory.agent_id, key)
                    row = (*row[:_KEY_AT], key, *row[_KEY_AT + 1:])
                    existing = self._by_key(conn, key)
                    if existing is not None and existing.agent_id != memory.agent_id:
                        # Only a row stored by another path (CLI, JSONL, Dreamer) can get here.
                        raise InputError("idempotency_key: already used by another agent; "
                                         "choose another key")
                if existing is not None:
                    return SubmitResult(existing, created=False)
            conn.execute(_INSERT, row)
        return SubmitResult(self._to_memory(row), created=True)

    def submit_many(self, memories: Iterable[NewMemory], *, now: datetime | None = None) -> BulkResult:
        """Store memories in chunked transactions; rows whose idempotency key exists are skipped."""
        # One id per memory from the store's id source, like submit(): the ids tests may pin.
        rows = (row for chunk in _chunks(memories, BULK_CHUNK)
                for row in bulk_rows(chunk, self.tenant_id, [self._ids.uuid4() for _ in chunk]))
        return self.insert_rows(rows, now=now)

    def insert_rows(self, rows: Iterable[tuple[Any, ...]], *,
                    now: datetime | None = None) -> BulkResult:
        """Store `bulk_rows` output in chunked transactions, in order; existing keys are skipped."""
        inserted = duplicates = 0
        previous: datetime | None = None
        for chunk in _chunks(rows, BULK_CHUNK):
            # Strictly increasing stamps (one clock read per chunk, then +1 µs a row) keep the
            # queue, which is ordered by submitted_at, in input order.
            start = self._now(now).astimezone(UTC).replace(tzinfo=None)
            if previous is not None and start <= previous:
                start = previous + _ONE_MICROSECOND
            stamped = [row + (stamp,)
                       for row, stamp in zip(chunk, _stamps(start, len(chunk)), strict=True)]
            previous = start + timedelta(microseconds=len(chunk) - 1)
            with self._transaction("submitting memories") as conn:
                before = conn.total_changes
                conn.executemany(_BULK_INSERT, stamped)
                added = conn.total_changes - before
            inserted += added
            duplicates += len(stamped) - added
        return BulkResult(inserted=inserted, duplicates=duplicates)

    # -- reading ---------------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        with self._reading("reading a memory") as conn:
            row = conn.execute(f"{_SELECT} WHERE id = ? AND tenant_id = ?",
                               (memory_id, self.tenant_id)).fetchone()
        return self._to_memory(row) if row else None

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        """The memories with these ids, in the order given; unknown ids are skipped."""
        found: dict[str, Memory] = {}
        with self._reading("reading memories") as conn:
            for chunk in _chunks(dict.fromkeys(ids), IN_CHUNK):
                marks = ", ".join("?" * len(chunk))
                for row in conn.execute(f"{_SELECT} WHERE tenant_id = ? AND id IN ({marks})",
                                        (self.tenant_id, *chunk)):
                    found[row[0]] = self._to_memory(row)
        return [found[i] for i in ids if i in found]

    def metadata_of_agents(self, agents: Sequence[str]) -> list[tuple[str, str | None, dict[str, Any], bool]]:
        """(id, idempotency key, metadata, still pending) of every memory these agents submitted,
        in any state: what an importer matches what it read against. Read as stored, not cleaned
        like a `Memory` (that costs milliseconds a row): nothing here reaches a person or a dream;
        `get_many` gives the memories themselves."""
        marks = ", ".join("?" * len(agents))
        with self._reading("reading memories") as conn:
            rows = conn.execute(f"SELECT id, idempotency_key, metadata, {_PENDING} FROM stm_memories "
                                f"WHERE tenant_id = ? AND agent_id IN ({marks})",
                                (self.tenant_id, *agents)).fetchall()
        found = []
        for memory_id, key, metadata, pending in rows:
            try:
                meta = json.loads(metadata)
            except (TypeError, ValueError):
                meta = None
            found.append((memory_id, key, meta if isinstance(meta, dict) else {}, bool(pending)))
        return found

    def revise_pending(self, revisions: Iterable[tuple[str, str, dict[str, Any]]], *,
                       titles: Mapping[str, str] | None = None) -> int:
        """Rewrite (id, content, metadata) of memories that are still pending, and the title of
        those `titles` names by id; returns how many.

        One that a dream claimed meanwhile is left as it is: its batch is already being read.
        """
        titled = titles or {}
        rows = [(titled.get(memory_id), content, _json(metadata), memory_id, self.tenant_id)
                for memory_id, content, metadata in revisions]
        with self._transaction("revising memories") as conn:
            before = conn.total_changes
            conn.executemany(f"UPDATE stm_memories SET title = COALESCE(?, title), content = ?, "
                             f"metadata = ? WHERE id = ? AND tenant_id = ? AND {_PENDING}", rows)
            return conn.total_changes - before

    # -- leases ----------------------------------------------------------------------------------

    def claim(self, *, limit: int, lease_minutes: int, types: Sequence[str] | None = None,
              now: datetime | None = None, lease_id: str | None = None) -> Lease | None:
        """Take a lease on the oldest pending memories, or return None when none are pending.

        `lease_id` is the caller's (Dreamer's claim_batch takes one); by default a new uuid4.
        LeaseHeld while another program's dream lease is live: Dreamer claims only under its
        lease, then selects and updates without a re-check, so claiming beside it could hand
        the same memories to both.
        """
        if limit < 1:
            raise InputError(f"limit: expected at least 1, got {limit}")
        if lease_minutes < 1:
            raise InputError(f"lease_minutes: expected at least 1, got {lease_minutes}")
        moment = self._now(now)
        expires = moment + timedelta(minutes=lease_minutes)
        lease_id = lease_id or self._ids.uuid4()
        type_sql, type_args = self._types_clause(types)
        with self._transaction("claiming memories") as conn:
            self._reclaim(conn, moment)
            self._refuse_foreign_lease(conn, moment)
            conn.execute("INSERT INTO dream_leases (id, tenant_id, acquired_at, expires_at) "
                         "VALUES (?, ?, ?, ?)",
                         (lease_id, self.tenant_id, format_ts(moment), format_ts(expires)))
            # The re-check in the outer WHERE is what keeps a second claimer (or a Dreamer server
            # that does not take the write lock first) from stealing a row.
            claimed = conn.execute(
                f"UPDATE stm_memories SET consumed_by_lease = ? WHERE id IN ("
                f"SELECT id FROM stm_memories WHERE tenant_id = ? AND {_PENDING}{type_sql} "
                f"ORDER BY submitted_at, id LIMIT ?) AND {_PENDING}",
                (lease_id, self.tenant_id, *type_args, limit)).rowcount
            if claimed == 0:
                conn.execute("DELETE FROM dream_leases WHERE id = ?", (lease_id,))
                return None
            self._set_meta(conn, LAST_LEASE_KEY, format_ts(moment))
            conn.execute(f"INSERT INTO {LEASES_TABLE} (id, tenant_id, acquired_at) VALUES (?, ?, ?)",
                         (lease_id, self.tenant_id, format_ts(moment)))
            rows = conn.execute(f"{_SELECT} WHERE consumed_by_lease = ? AND consumed_at IS NULL "
                                "ORDER BY submitted_at, id", (lease_id,)).fetchall()
        return Lease(id=lease_id, acquired_at=moment, expires_at=expires,
                     memories=[self._to_memory(row) for row in rows])

    @staticmethod
    def _types_clause(types: Sequence[str] | None) -> tuple[str, tuple[str, ...]]:
        if not types:
            return "", ()
        return f" AND type IN ({', '.join('?' * len(types))})", tuple(types)

    def release(self, lease_id: str, ids: Sequence[str] | None = None) -> int:
        """Return this lease's claimed memories (all, or only `ids`) to pending."""
        with self._transaction("releasing memories") as conn:
            if ids is None:
                released = conn.execute(
                    "UPDATE stm_memories SET consumed_by_lease = NULL "
                    "WHERE consumed_by_lease = ? AND consumed_at IS NULL", (lease_id,)).rowcount
            else:
                released = self._update_ids(
                    conn, "SET consumed_by_lease = NULL WHERE consumed_by_lease = ? "
                          "AND consumed_at IS NULL", (lease_id,), ids)
            self._drop_lease_if_done(conn, lease_id)
        return released

    def consume(self, lease_id: str, ids: Sequence[str], *, now: datetime | None = None) -> int:
        """Mark consumed the given memories that this lease still holds."""
        stamp = format_ts(self._now(now))
        with self._transaction("consuming memories") as conn:
            return self._update_ids(
                conn, "SET consumed_at = ? WHERE consumed_by_lease = ? AND consumed_at IS NULL",
                (stamp, lease_id), ids)

    def consume_pending(self, ids: Sequence[str], *, now: datetime | None = None) -> int:
        """Mark consumed the given memories that are still pending (a person decided on them
        outside a dream, e.g. flags triaged by hand); a memory a dream holds is left to it."""
        stamp = format_ts(self._now(now))
        with self._transaction("consuming memories") as conn:
            return self._update_ids(
                conn, "SET consumed_at = ? WHERE consumed_by_lease IS NULL AND consumed_at IS NULL",
                (stamp,), ids)

    def unconsume_settled(self, ids: Sequence[str]) -> int:
        """Return to the queue memories a person's decision consumed outside a dream (see
        consume_pending), when that decision is undone; ones a dream consumed are left alone."""
        with self._transaction("returning memories to the queue") as conn:
            return self._update_ids(
                conn, "SET consumed_at = NULL WHERE consumed_by_lease IS NULL AND consumed_at IS NOT NULL",
                (), ids)

    def end_lease(self, lease_id: str) -> None:
        """Release whatever the lease still holds and delete it."""
        with self._transaction("ending a lease") as conn:
            conn.execute("UPDATE stm_memories SET consumed_by_lease = NULL "
                         "WHERE consumed_by_lease = ? AND consumed_at IS NULL", (lease_id,))
            conn.execute("DELETE FROM dream_leases WHERE id = ?", (lease_id,))
            conn.execute(f"DELETE FROM {LEASES_TABLE} WHERE id = ?", (lease_id,))

    def lease_alive(self, lease_id: str, now: datetime | None = None) -> bool:
        """Whether the lease still holds its claim: its dream_leases row is live, or dreamtui
        took it and keeps the claim without a row (LEASES_TABLE's comment)."""
        with self._reading("reading a lease") as conn:
            row = conn.execute("SELECT expires_at FROM dream_leases WHERE id = ?",
                               (lease_id,)).fetchone()
            if row is None:
                return conn.execute(f"SELECT 1 FROM {LEASES_TABLE} WHERE id = ?",
                                    (lease_id,)).fetchone() is not None
        return parse_ts(row[0], f"lease {lease_id}") > self._now(now)

    # -- the tenant's dream lease (Dreamer's protocol) ----------------------------------------

    def _refuse_foreign_lease(self, conn: sqlite3.Connection, moment: datetime) -> None:
        row = conn.execute(
            f"SELECT id, expires_at FROM dream_leases WHERE tenant_id = ? AND expires_at > ? "
            f"AND id NOT IN (SELECT id FROM {LEASES_TABLE}) ORDER BY expires_at DESC LIMIT 1",
            (self.tenant_id, format_ts(moment))).fetchone()
        if row is not None:
            until = parse_ts(row[1], f"lease {row[0]}").strftime("%Y-%m-%d %H:%M:%S UTC")
            # The CLI adds "nothing was done, try again when it is released".
            raise LeaseHeld(f"{self.path}: another program sharing this database (a Dreamer server) is "
                            f"dreaming: its lease {str(row[0])[:8]} holds tenant {self.tenant_id!r} until {until}")

    def begin_writing(self, lease_minutes: int, now: datetime | None = None) -> str:
        """Take the tenant's dream lease for a write (dream, commit, entry change, triage): a Dreamer
        server then skips its dreams until `end_writing`. LeaseHeld while another program's is live.

        The caller holds the workspace lock, so every other dream_leases row dreamtui took is left
        from a process that is gone, or from before leases were held only while writing (an open
        review's 30 days): their rows are dropped, their claims kept.
        """
        moment = self._now(now)
        lease_id = self._ids.uuid4()
        with self._transaction("taking the dream lease") as conn:
            self._drop_our_rows(conn)
            self._refuse_foreign_lease(conn, moment)
            conn.execute("INSERT INTO dream_leases (id, tenant_id, acquired_at, expires_at) VALUES (?, ?, ?, ?)",
                         (lease_id, self.tenant_id, format_ts(moment),
                          format_ts(moment + timedelta(minutes=lease_minutes))))
            conn.execute(f"INSERT INTO {LEASES_TABLE} (id, tenant_id, acquired_at) VALUES (?, ?, ?)",
                         (lease_id, self.tenant_id, format_ts(moment)))
            shared = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                  (DREAMER_TOKENS_TABLE,)).fetchone() is not None
        if shared:
            # Dreamer's acquire reads "no live lease" and inserts its own without a transaction
            # between: one that read before our insert lands just after it. Wait that gap out and
            # look again; then whichever lease is live, only one of us goes on.
            time.sleep(DREAMER_ACQUIRE_GAP_S)
            try:
                with self._reading("checking the dream lease") as conn:
                    self._refuse_foreign_lease(conn, self._now(None))
            except LeaseHeld:
                self.end_writing(lease_id)
                raise
        return lease_id

    def end_writing(self, lease_id: str) -> None:
        """Give the tenant's dream lease back: its row, and the rows of the claims taken meanwhile
        (a dream's), whose claims are kept for their review."""
        with self._transaction("returning the dream lease") as conn:
            self._drop_our_rows(conn)
            conn.execute(f"DELETE FROM {LEASES_TABLE} WHERE id = ?", (lease_id,))

    def _drop_our_rows(self, conn: sqlite3.Connection) -> None:
        conn.execute(f"DELETE FROM dream_leases WHERE tenant_id = ? AND id IN (SELECT id FROM {LEASES_TABLE})",
                     (self.tenant_id,))

    def holdings(self) -> list[Holding]:
        """Every lease that holds claimed memories, with how many and whether dreamtui took it."""
        with self._reading("reading leases") as conn:
            # `+tenant_id`, as in _reclaim: the small partial index of claimed rows does the work.
            rows = conn.execute(
                f"SELECT held.lease, held.n, dream_leases.expires_at, {LEASES_TABLE}.id IS NOT NULL "
                f"FROM (SELECT consumed_by_lease AS lease, COUNT(*) AS n FROM stm_memories "
                f"WHERE +tenant_id = ? AND {_CLAIMED} GROUP BY consumed_by_lease) AS held "
                f"LEFT JOIN dream_leases ON dream_leases.id = held.lease "
                f"LEFT JOIN {LEASES_TABLE} ON {LEASES_TABLE}.id = held.lease ORDER BY held.lease",
                (self.tenant_id,)).fetchall()
        return [Holding(lease_id=lease, memories=count, ours=bool(ours),
                        expires_at=parse_ts(expires, f"lease {lease}") if expires else None)
                for lease, count, expires, ours in rows]

    def count_present(self, ids: Sequence[str]) -> int:
        """How many of these memory ids the queue holds, in any state."""
        found = 0
        with self._reading("reading memories") as conn:
            for chunk in _chunks(dict.fromkeys(ids), IN_CHUNK):
                marks = ", ".join("?" * len(chunk))
                found += conn.execute(f"SELECT COUNT(*) FROM stm_memories WHERE tenant_id = ? "
                                      f"AND id IN ({marks})", (self.tenant_id, *chunk)).fetchone()[0]
        return found

    def keep_claim(self, lease_id: str) -> None:
        """End the lease's dream_leases row and keep its claim (LEASES_TABLE's comment): a finished
        dream's batch waits for its review without holding Dreamer's tenant lease."""
        with self._transaction("keeping a claim") as conn:
            if conn.execute(f"SELECT 1 FROM {LEASES_TABLE} WHERE id = ?", (lease_id,)).fetchone() is None:
                raise StoreError(f"{self.path}: lease {lease_id} is not one dreamtui took; its claim "
                                 "cannot be kept")
            conn.execute("DELETE FROM dream_leases WHERE id = ?", (lease_id,))

    def extend_lease(self, lease_id: str, minutes: int, now: datetime | None = None) -> None:
        """Push the lease's expiry to `minutes` from now (a heartbeat for a long dream)."""
        expires = format_ts(self._now(now) + timedelta(minutes=minutes))
        with self._transaction("extending a lease") as conn:
            updated = conn.execute("UPDATE dream_leases SET expires_at = ? WHERE id = ?",
                                   (expires, lease_id)).rowcount
        if updated == 0:
            raise StoreError(f"{self.path}: lease {lease_id} no longer exists "
                             "(it expired and its memories were reclaimed, or it ended)")

    def reclaim_expired(self, now: datetime | None = None) -> int:
        """Return to pending what expired leases (or vanished ones) still hold; delete those leases."""
        with self._transaction("reclaiming expired leases") as conn:
            return self._reclaim(conn, self._now(now))

    def _reclaim(self, conn: sqlite3.Connection, moment: datetime) -> int:
        stamp = format_ts(moment)
        # Back to pending: claims whose lease row expired, and claims of another program whose
        # row is gone (deleted by hand or by a crashed server), which would stay claimed forever.
        # A claim dreamtui keeps without a row stays (LEASES_TABLE's comment).
        # `+tenant_id` keeps the planner on the small partial index of claimed rows instead of
        # walking every row of the tenant.
        reclaimed = conn.execute(
            f"UPDATE stm_memories SET consumed_by_lease = NULL "
            f"WHERE +tenant_id = ? AND {_CLAIMED} AND NOT EXISTS ("
            f"SELECT 1 FROM dream_leases WHERE dream_leases.id = stm_memories.consumed_by_lease "
            f"AND dream_leases.expires_at > ?) AND (EXISTS ("
            f"SELECT 1 FROM dream_leases WHERE dream_leases.id = stm_memories.consumed_by_lease) "
            f"OR NOT EXISTS (SELECT 1 FROM {LEASES_TABLE} WHERE {LEASES_TABLE}.id = stm_memories.consumed_by_lease))",
            (self.tenant_id, stamp)).rowcount
        conn.execute("DELETE FROM dream_leases WHERE tenant_id = ? AND expires_at <= ?",
                     (self.tenant_id, stamp))
        conn.execute(f"DELETE FROM {LEASES_TABLE} WHERE tenant_id = ? AND id NOT IN "
                     f"(SELECT id FROM dream_leases) AND NOT EXISTS (SELECT 1 FROM stm_memories "
                     f"WHERE consumed_by_lease = {LEASES_TABLE}.id AND consumed_at IS NULL)", (self.tenant_id,))
        return reclaimed

    def _update_ids(self, conn: sqlite3.Connection, set_where: str, args: tuple[Any, ...],
                    ids: Sequence[str]) -> int:
        changed = 0
        for chunk in _chunks(dict.fromkeys(ids), IN_CHUNK):
            marks = ", ".join("?" * len(chunk))
            changed += conn.execute(f"UPDATE stm_memories {set_where} AND id IN ({marks})",
                                    (*args, *chunk)).rowcount
        return changed

    @staticmethod
    def _drop_lease_if_done(conn: sqlite3.Connection, lease_id: str) -> None:
        held = conn.execute("SELECT 1 FROM stm_memories WHERE consumed_by_lease = ? "
                            "AND consumed_at IS NULL LIMIT 1", (lease_id,)).fetchone()
        if held is None:
            conn.execute("DELETE FROM dream_leases WHERE id = ?", (lease_id,))
            conn.execute(f"DELETE FROM {LEASES_TABLE} WHERE id = ?", (lease_id,))

    def last_lease_at(self) -> datetime | None:
        """When the last claim was taken, by dreamtui (remembered) or a live Dreamer lease."""
        with self._reading("reading lease times") as conn:
            # dreamtui's own rows are its writes, not claims; its claims are remembered.
            live = conn.execute(f"SELECT MAX(acquired_at) FROM dream_leases WHERE tenant_id = ? "
                                f"AND id NOT IN (SELECT id FROM {LEASES_TABLE})", (self.tenant_id,)).fetchone()[0]
            remembered = self._get_meta(conn, LAST_LEASE_KEY)
        stamps = [parse_ts(s, "last lease") for s in (live, remembered) if s]
        return max(stamps) if stamps else None

    # -- counting and paging ---------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        # `+tenant_id`: one sequential scan beats an index walk with a lookup per row.
        with self._reading("counting memories") as conn:
            row = conn.execute(
                f"SELECT SUM(CASE WHEN {_PENDING} THEN 1 ELSE 0 END), "
                f"SUM(CASE WHEN {_CLAIMED} THEN 1 ELSE 0 END), "
                f"SUM(CASE WHEN {_CONSUMED} THEN 1 ELSE 0 END) "
                f"FROM stm_memories WHERE +tenant_id = ?", (self.tenant_id,)).fetchone()
        return {"pending": row[0] or 0, "claimed": row[1] or 0, "consumed": row[2] or 0}

    def pending_by_type(self) -> dict[str, int]:
        with self._reading("counting pending memories") as conn:
            rows = conn.execute(
                f"SELECT type, COUNT(*) FROM stm_memories INDEXED BY dreamtui_stm_pending "
                f"WHERE tenant_id = ? AND {_PENDING} GROUP BY type ORDER BY type",
                (self.tenant_id,)).fetchall()
        return dict(rows)

    def count_pending(self, *, exclude_feedback: bool = True) -> int:
        return self.count(MemoryFilter(state="pending", exclude_feedback=exclude_feedback))

    def _where(self, flt: MemoryFilter) -> tuple[str, list[Any]]:
        clauses = ["tenant_id = ?"]
        args: list[Any] = [self.tenant_id]
        if flt.state is not None:
            if flt.state not in _STATE_SQL:
                raise InputError(f"state: {flt.state!r} is not a memory state "
                                 f"(expected one of {', '.join(MEMORY_STATES)})")
            clauses.append(_STATE_SQL[flt.state])
        if flt.types:
            clauses.append(f"type IN ({', '.join('?' * len(flt.types))})")
            args.extend(flt.types)
        if flt.exclude_feedback:
            clauses.append(f"type NOT IN ({', '.join('?' * len(FEEDBACK_TYPES))})")
            args.extend(FEEDBACK_TYPES)
        if flt.agent:
            clauses.append("agent_id = ?")
            args.append(flt.agent)
        for token in (flt.text or "").split():
            clauses.append("(title LIKE ? ESCAPE '\\' OR content LIKE ? ESCAPE '\\' "
                           "OR agent_id LIKE ? ESCAPE '\\')")
            args.extend([_like_pattern(token)] * 3)
        return " AND ".join(clauses), args

    def page(self, flt: MemoryFilter = MemoryFilter(), *, offset: int = 0, limit: int = 100,
             newest_first: bool = True) -> list[Memory]:
        """One page of memories matching the filter; text matches every word, case-insensitively."""
        where, args = self._where(flt)
        order = "DESC" if newest_first else "ASC"
        with self._reading("paging memories") as conn:
            rows = conn.execute(
                f"{_SELECT} WHERE {where} ORDER BY submitted_at {order}, id {order} "
                f"LIMIT ? OFFSET ?", (*args, max(limit, 0), max(offset, 0))).fetchall()
        return [self._to_memory(row) for row in rows]

    def count(self, flt: MemoryFilter = MemoryFilter()) -> int:
        where, args = self._where(flt)
        with self._reading("counting memories") as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM stm_memories WHERE {where}",
                                    args).fetchone()[0])

    # -- housekeeping ----------------------------------------------------------------------------

    def purge_consumed(self, older_than_days: float, *, now: datetime | None = None) -> int:
        """Delete memories consumed more than `older_than_days` ago; pending ones are never touched."""
        if older_than_days < 0:
            raise InputError(f"older-than: expected a number of days >= 0, got {older_than_days}")
        cutoff = format_ts(self._now(now) - timedelta(days=older_than_days))
        with self._transaction("purging consumed memories") as conn:
            return conn.execute("DELETE FROM stm_memories WHERE tenant_id = ? "
                                "AND consumed_at IS NOT NULL AND consumed_at < ?",
                                (self.tenant_id, cutoff)).rowcount

    def set_meta(self, key: str, value: str) -> None:
        with self._transaction("writing dreamtui_meta") as conn:
            self._set_meta(conn, key, value)

    def get_meta(self, key: str) -> str | None:
        with self._reading("reading dreamtui_meta") as conn:
            return self._get_meta(conn, key)

    def _set_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute(f"INSERT INTO {META_TABLE} (tenant_id, key, value) VALUES (?, ?, ?) "
                     "ON CONFLICT (tenant_id, key) DO UPDATE SET value = excluded.value",
                     (self.tenant_id, key, value))

    def _get_meta(self, conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute(f"SELECT value FROM {META_TABLE} WHERE tenant_id = ? AND key = ?",
                           (self.tenant_id, key)).fetchone()
        return row[0] if row else None
