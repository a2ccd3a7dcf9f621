from __future__ import annotations

import json
import re
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamtui.errors import InputError, StoreError
from dreamtui.store.stm import DREAMER_SCHEMA, MemoryFilter, STMStore
from tests.factories import new_memory
from tests.fixtures.dreamer_stm import DREAMER_DDL, DREAMER_ROWS, LEASE_ID, build_dreamer_db

T0 = datetime(2026, 11, 29, 8, 0, 0, tzinfo=UTC)
TS_RE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[STMStore]:
    with STMStore(tmp_path / "stm.db") as opened:
        yield opened


def raw_rows(path: Path, sql: str, args: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


# -- schema --------------------------------------------------------------------------------------

def test_schema_text_is_designs(tmp_path: Path) -> None:
    assert tuple(ddl for _, ddl in DREAMER_SCHEMA) == DREAMER_DDL
    STMStore(tmp_path / "stm.db").close()
    stored = dict(raw_rows(tmp_path / "stm.db", "SELECT name, sql FROM sqlite_master"))
    for name, ddl in DREAMER_SCHEMA:
        assert stored[name] == ddl
    own = set(stored) - {name for name, _ in DREAMER_SCHEMA}
    assert all(name.startswith(("dreamtui_", "sqlite_autoindex_dreamtui_", "sqlite_autoindex_stm_",
                                "sqlite_autoindex_dream_leases"))
               for name in own), own


def test_wal_mode(tmp_path: Path) -> None:
    STMStore(tmp_path / "stm.db").close()
    assert raw_rows(tmp_path / "stm.db", "PRAGMA journal_mode")[0][0] == "wal"


def test_creates_missing_parent_folder(tmp_path: Path) -> None:
    with STMStore(tmp_path / "deep" / "er" / "stm.db") as store:
        assert store.counts() == {"pending": 0, "claimed": 0, "consumed": 0}


# -- Dreamer compatibility -----------------------------------------------------------------------

def test_reads_a_dreamer_database_without_altering_its_tables(tmp_path: Path) -> None:
    path = build_dreamer_db(tmp_path / "dreamer.db")
    before = dict(raw_rows(path, "SELECT name, sql FROM sqlite_master"))
    with STMStore(path) as store:
        assert store.counts() == {"pending": 3, "claimed": 1, "consumed": 1}
        first = store.get(DREAMER_ROWS[0][0])
        assert first is not None
        assert first.title == "Integration tests fail on dirty schema"
        assert first.tags == ("testing", "database")
        assert first.submitted_at == datetime(2026, 11, 28, 9, 14, 0, 123456, tzinfo=UTC)
        assert first.idempotency_key == "sess-1:0"
        flagged = store.get(DREAMER_ROWS[3][0])
        assert flagged is not None and flagged.state == "claimed"
        assert flagged.metadata == {"targets": ["ci-ports"], "quote": "listens on 5432"}
        consumed = store.get(DREAMER_ROWS[4][0])
        assert consumed is not None and consumed.state == "consumed"
        assert consumed.consumed_at == datetime(2026, 11, 21, 3, 0, 12, 654321, tzinfo=UTC)
        assert store.pending_by_type() == {"context_confirmed": 1, "failure": 1, "observation": 1}
        assert store.last_lease_at() == datetime(2026, 11, 28, 12, 30, tzinfo=UTC)
    after = dict(raw_rows(path, "SELECT name, sql FROM sqlite_master"))
    for name, sql in before.items():
        assert after[name] == sql
    assert all(name.startswith(("dreamtui_", "sqlite_autoindex_dreamtui_"))
               for name in set(after) - set(before))


def test_rows_written_are_in_dreamers_format(tmp_path: Path) -> None:
    path = build_dreamer_db(tmp_path / "dreamer.db")
    with STMStore(path) as store:
        result = store.submit(new_memory("Apply alembic migrations", tags=("db", "é"),
                                  metadata={"session": "s-1"}, idempotency_key="k-1"),
                              now=datetime(2026, 11, 29, 8, 0, 0))
        store.submit_many([new_memory("bulk one"), new_memory("bulk two")], now=T0)
    rows = raw_rows(path, "SELECT id, tenant_id, tags, metadata, submitted_at, consumed_at, "
                          "consumed_by_lease, extra FROM stm_memories WHERE id = ?",
                    (result.memory.id,))
    (mid, tenant, tags, metadata, submitted, consumed, lease, extra) = rows[0]
    assert uuid.UUID(mid).version == 4 and str(uuid.UUID(mid)) == mid
    assert tenant == "default"
    assert tags == json.dumps(["db", "é"]) == '["db", "\\u00e9"]'
    assert metadata == '{"session": "s-1"}'
    assert submitted == "2026-11-29 08:00:00.000000"
    assert (consumed, lease, extra) == (None, None, "{}")
    stamps = [r[0] for r in raw_rows(path, "SELECT submitted_at FROM stm_memories")]
    assert all(TS_RE.match(s) for s in stamps), stamps


def test_dreamer_lease_is_respected_and_reclaimed_when_expired(tmp_path: Path) -> None:
    path = build_dreamer_db(tmp_path / "dreamer.db", lease_expires_at="2026-11-28 13:00:00.000000")
    with STMStore(path) as store:
        assert store.lease_alive(LEASE_ID, now=datetime(2026, 11, 28, 12, 45, tzinfo=UTC))
        assert not store.lease_alive(LEASE_ID, now=T0)
        assert store.reclaim_expired(now=T0) == 1
        assert store.get(DREAMER_ROWS[3][0]).state == "pending"  # type: ignore[union-attr]
    assert raw_rows(path, "SELECT COUNT(*) FROM dream_leases")[0][0] == 0


def test_existing_idempotency_key_in_dreamer_db(tmp_path: Path) -> None:
    path = build_dreamer_db(tmp_path / "dreamer.db")
    with STMStore(path) as store:
        result = store.submit(new_memory("again", idempotency_key="sess-1:0"))
        assert not result.created
        assert result.memory.id == DREAMER_ROWS[0][0]


# -- bad files -----------------------------------------------------------------------------------

def test_not_a_database_raises_store_error(tmp_path: Path) -> None:
    path = tmp_path / "stm.db"
    path.write_bytes(b"this is not sqlite, just some text that happens to be long enough" * 100)
    with pytest.raises(StoreError) as info:
        STMStore(path)
    assert str(path) in str(info.value)
    assert "not" in str(info.value) and "database" in str(info.value)


def test_corrupted_pages_raise_store_error(tmp_path: Path) -> None:
    path = tmp_path / "stm.db"
    with STMStore(path) as store:
        store.submit_many(new_memory(f"m{i}", content="x" * 300) for i in range(2000))
    with path.open("r+b") as handle:
        handle.seek(4096 * 3)
        handle.write(bytes(range(256)) * 16 * 20)
    with pytest.raises(StoreError) as info, STMStore(path) as store:
        store.counts()
        store.page(limit=5000)
    assert str(path) in str(info.value) and "malformed" in str(info.value)


def test_folder_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder"):
        STMStore(tmp_path)


def test_incompatible_stm_table(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE stm_memories (id TEXT PRIMARY KEY, body TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError) as info:
        STMStore(path)
    message = str(info.value)
    assert str(path) in message and "missing column(s)" in message and "tenant_id" in message


def test_unknown_required_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute(DREAMER_DDL[0].replace("extra JSON NOT NULL ", "extra JSON NOT NULL, "
                                        "priority INTEGER NOT NULL "))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="priority"):
        STMStore(path)


def test_locked_database_gives_store_error(tmp_path: Path) -> None:
    path = tmp_path / "stm.db"
    STMStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with STMStore(path, busy_timeout_ms=50) as store, \
                pytest.raises(StoreError, match="locked by another process for 50 ms"):
            store.submit(new_memory("blocked"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# -- submitting ----------------------------------------------------------------------------------

def test_submit_and_idempotency(store: STMStore) -> None:
    first = store.submit(new_memory("one", idempotency_key="k"), now=T0)
    second = store.submit(new_memory("two", idempotency_key="k"), now=T0 + timedelta(hours=1))
    assert first.created and not second.created
    assert second.memory == first.memory
    assert store.get(first.memory.id) == first.memory
    assert store.count() == 1


def test_submit_many_counts_duplicates(store: STMStore) -> None:
    store.submit(new_memory("existing", idempotency_key="a"))
    batch = [new_memory("a again", idempotency_key="a"), new_memory("b", idempotency_key="b"),
             new_memory("b twice", idempotency_key="b"), new_memory("no key"), new_memory("no key")]
    assert store.submit_many(batch).__dict__ == {"inserted": 3, "duplicates": 2}
    assert store.count() == 4


def test_submit_many_keeps_input_order_across_chunks(store: STMStore) -> None:
    titles = [f"m{i:05d}" for i in range(12_000)]
    result = store.submit_many((new_memory(t) for t in titles), now=T0)
    assert result.inserted == 12_000
    oldest = store.page(limit=12_000, newest_first=False)
    assert [m.title for m in oldest] == titles
    stamps = [m.submitted_at for m in oldest]
    assert stamps == sorted(set(stamps))


def test_get_many_in_order_and_skipping_missing(store: STMStore) -> None:
    store.submit_many(new_memory(f"m{i}") for i in range(1200))
    ids = [m.id for m in store.page(limit=1200)]
    wanted = [ids[1100], "missing", ids[3], ids[700], ids[3]]
    assert [m.id for m in store.get_many(wanted)] == [ids[1100], ids[3], ids[700], ids[3]]
    assert len(store.get_many(ids)) == 1200


def test_rows_with_empty_json_columns_read_as_their_own_fresh_values(store: STMStore) -> None:
    """Empty tags, metadata and extra are made rather than parsed: each memory gets its own, of
    the type the column holds, and a malformed column still names its row."""
    store.submit_many([new_memory("a"), new_memory("b")])
    first, second = store.page(limit=2)
    assert (first.tags, first.metadata, first.extra) == ((), {}, {})
    first.metadata["changed"] = True
    first.extra["changed"] = True
    assert second.metadata == {} and second.extra == {}
    assert store.get_many([first.id])[0].metadata == {}
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE stm_memories SET metadata = '{' WHERE id = ?", (second.id,))
    with pytest.raises(StoreError, match=rf"row {second.id}: a JSON column holds invalid JSON"):
        store.get_many([second.id])


# -- leases --------------------------------------------------------------------------------------

def test_claim_takes_oldest_first_and_none_when_empty(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i}") for i in range(5)], now=T0)
    lease = store.claim(limit=3, lease_minutes=30, now=T0)
    assert lease is not None
    assert [m.title for m in lease.memories] == ["m0", "m1", "m2"]
    assert all(m.consumed_by_lease == lease.id for m in lease.memories)
    assert lease.expires_at - lease.acquired_at == timedelta(minutes=30)
    other = store.claim(limit=10, lease_minutes=30, now=T0)
    assert other is not None and [m.title for m in other.memories] == ["m3", "m4"]
    assert store.claim(limit=10, lease_minutes=30, now=T0) is None
    assert store.counts() == {"pending": 0, "claimed": 5, "consumed": 0}
    assert store.last_lease_at() == T0


def test_claim_nothing_leaves_no_lease_row(store: STMStore) -> None:
    assert store.claim(limit=5, lease_minutes=5) is None
    assert store._conn.execute("SELECT COUNT(*) FROM dream_leases").fetchone()[0] == 0


def test_claim_by_type(store: STMStore) -> None:
    store.submit_many([new_memory("f", "failure"), new_memory("o"), new_memory("c", "context_confirmed")], now=T0)
    lease = store.claim(limit=10, lease_minutes=5, types=["failure", "context_confirmed"], now=T0)
    assert lease is not None and sorted(m.title for m in lease.memories) == ["c", "f"]
    assert store.pending_by_type() == {"observation": 1}


def test_claim_rejects_bad_limits(store: STMStore) -> None:
    with pytest.raises(InputError, match="limit"):
        store.claim(limit=0, lease_minutes=5)
    with pytest.raises(InputError, match="lease_minutes"):
        store.claim(limit=1, lease_minutes=0)


def test_release_some_then_all_deletes_lease(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i}") for i in range(4)], now=T0)
    lease = store.claim(limit=4, lease_minutes=30, now=T0)
    assert lease is not None
    ids = [m.id for m in lease.memories]
    assert store.release(lease.id, ids[:1]) == 1
    assert store.lease_alive(lease.id, now=T0)
    assert store.release("some-other-lease") == 0
    assert store.release(lease.id) == 3
    assert not store.lease_alive(lease.id, now=T0)
    assert store.counts()["pending"] == 4


def test_consume_only_what_the_lease_holds(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i}") for i in range(4)], now=T0)
    first = store.claim(limit=2, lease_minutes=30, now=T0)
    second = store.claim(limit=2, lease_minutes=30, now=T0)
    assert first is not None and second is not None
    theirs = [m.id for m in second.memories]
    assert store.consume(first.id, theirs) == 0
    mine = [m.id for m in first.memories]
    assert store.consume(first.id, mine, now=T0 + timedelta(minutes=1)) == 2
    assert store.consume(first.id, mine) == 0  # already consumed
    consumed = store.get(mine[0])
    assert consumed is not None and consumed.state == "consumed"
    assert consumed.consumed_at == T0 + timedelta(minutes=1)
    store.end_lease(second.id)
    assert store.counts() == {"pending": 2, "claimed": 0, "consumed": 2}
    assert not store.lease_alive(second.id, now=T0)


def test_release_after_consume_deletes_lease_and_keeps_consumed(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i}") for i in range(3)], now=T0)
    lease = store.claim(limit=3, lease_minutes=30, now=T0)
    assert lease is not None
    ids = [m.id for m in lease.memories]
    store.consume(lease.id, ids[:2], now=T0)
    assert store.release(lease.id, ids[2:]) == 1
    assert not store.lease_alive(lease.id, now=T0)
    assert store.counts() == {"pending": 1, "claimed": 0, "consumed": 2}


def test_expired_lease_is_reclaimed_by_next_claim(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i}") for i in range(3)], now=T0)
    lease = store.claim(limit=3, lease_minutes=10, now=T0)
    assert lease is not None
    later = T0 + timedelta(minutes=11)
    assert not store.lease_alive(lease.id, now=later)
    again = store.claim(limit=3, lease_minutes=10, now=later)
    assert again is not None and len(again.memories) == 3
    assert store.consume(lease.id, [m.id for m in lease.memories]) == 0


def test_reclaim_expired_and_extend(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i}") for i in range(4)], now=T0)
    short = store.claim(limit=2, lease_minutes=5, now=T0)
    long = store.claim(limit=2, lease_minutes=5, now=T0)
    assert short is not None and long is not None
    store.extend_lease(long.id, 60, now=T0 + timedelta(minutes=4))
    assert store.reclaim_expired(now=T0 + timedelta(minutes=10)) == 2
    assert store.lease_alive(long.id, now=T0 + timedelta(minutes=10))
    assert not store.lease_alive(short.id, now=T0)  # its row is gone
    with pytest.raises(StoreError, match="no longer exists"):
        store.extend_lease(short.id, 5)
    assert store.counts() == {"pending": 2, "claimed": 2, "consumed": 0}


def test_a_foreign_claim_whose_lease_row_vanished_is_reclaimed_ours_is_kept(store: STMStore) -> None:
    store.submit_many([new_memory("m"), new_memory("n")], now=T0)
    ours = store.claim(limit=1, lease_minutes=60, now=T0)
    assert ours is not None
    # A Dreamer server's claim whose dream_leases row is gone (a crash, a hand edit).
    store._conn.execute("UPDATE stm_memories SET consumed_by_lease = 'dreamer-lease' WHERE consumed_by_lease IS NULL")
    store._conn.execute("DELETE FROM dream_leases")
    assert store.reclaim_expired(now=T0) == 1
    # dreamtui's claim outlives its row: an open changeset keeps it (the row is only held while writing).
    assert store.lease_alive(ours.id, now=T0 + timedelta(days=90))
    assert [m.title for m in store.page(MemoryFilter(state="claimed"))] == ["m"]


# -- counting, filters, paging -------------------------------------------------------------------

@pytest.fixture
def filled(store: STMStore) -> STMStore:
    store.submit_many([
        new_memory("CI Postgres port", "failure", content="Port 5433 in CI", agent_id="agent-a"),
        new_memory("Apply alembic migrations", content="Run alembic upgrade head", agent_id="agent-b"),
        new_memory("100% coverage", content="The gate wants 100% line coverage", agent_id="agent-b"),
        new_memory("confirmed x", "context_confirmed", content="helped", agent_id="agent-a"),
        new_memory("flagged y", "context_flagged", content="postgres port was wrong", agent_id="agent-c"),
    ], now=T0)
    return store


def titles(memories: list) -> list[str]:
    return [m.title for m in memories]


def test_counts_and_pending_by_type(filled: STMStore) -> None:
    lease = filled.claim(limit=1, lease_minutes=5, now=T0)
    assert lease is not None
    filled.consume(lease.id, [lease.memories[0].id])
    filled.claim(limit=1, lease_minutes=5, now=T0)
    assert filled.counts() == {"pending": 3, "claimed": 1, "consumed": 1}
    assert filled.pending_by_type() == {"context_confirmed": 1, "context_flagged": 1, "observation": 1}
    assert filled.count_pending() == 1
    assert filled.count_pending(exclude_feedback=False) == 3


def test_page_text_matches_every_token_case_insensitively(filled: STMStore) -> None:
    assert titles(filled.page(MemoryFilter(text="POSTGRES port"))) == ["flagged y", "CI Postgres port"]
    assert titles(filled.page(MemoryFilter(text="postgres 5433"))) == ["CI Postgres port"]
    assert titles(filled.page(MemoryFilter(text="agent-c"))) == ["flagged y"]
    assert titles(filled.page(MemoryFilter(text="100%"))) == ["100% coverage"]
    assert titles(filled.page(MemoryFilter(text="0%"))) == ["100% coverage"]
    assert filled.page(MemoryFilter(text="%%")) == []
    assert filled.count(MemoryFilter(text="port")) == 2


def test_page_filters_compose(filled: STMStore) -> None:
    assert titles(filled.page(MemoryFilter(types=("failure", "observation")), newest_first=False)) == [
        "CI Postgres port", "Apply alembic migrations", "100% coverage"]
    assert titles(filled.page(MemoryFilter(agent="agent-b"))) == ["100% coverage",
                                                                 "Apply alembic migrations"]
    assert filled.count(MemoryFilter(exclude_feedback=True)) == 3
    assert filled.count(MemoryFilter(state="pending", agent="agent-a")) == 2
    assert filled.count(MemoryFilter(state="consumed")) == 0
    with pytest.raises(InputError, match="state"):
        filled.page(MemoryFilter(state="eaten"))


def test_page_offset_and_limit(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i:03d}") for i in range(250)], now=T0)
    first = store.page(limit=100)
    assert titles(first)[:2] == ["m249", "m248"]
    second = store.page(offset=100, limit=100)
    third = store.page(offset=200, limit=100)
    assert len(third) == 50
    seen = titles(first) + titles(second) + titles(third)
    assert seen == [f"m{i:03d}" for i in reversed(range(250))]
    assert store.page(offset=300) == []


# -- housekeeping --------------------------------------------------------------------------------

def test_purge_only_old_consumed(store: STMStore) -> None:
    store.submit_many([new_memory(f"m{i}") for i in range(4)], now=T0)
    lease = store.claim(limit=3, lease_minutes=60, now=T0)
    assert lease is not None
    ids = [m.id for m in lease.memories]
    store.consume(lease.id, ids[:1], now=T0 - timedelta(days=40))
    store.consume(lease.id, ids[1:2], now=T0 - timedelta(days=2))
    assert store.purge_consumed(30, now=T0) == 1
    assert store.get(ids[0]) is None and store.get(ids[1]) is not None
    assert store.counts() == {"pending": 1, "claimed": 1, "consumed": 1}
    assert store.purge_consumed(0, now=T0) == 1
    with pytest.raises(InputError, match="older-than"):
        store.purge_consumed(-1)


def test_meta_roundtrip_and_tenant_scope(tmp_path: Path) -> None:
    path = tmp_path / "stm.db"
    with STMStore(path) as store:
        assert store.get_meta("last_dream_at") is None
        store.set_meta("last_dream_at", "2026-11-29T03:00:00Z")
        store.set_meta("last_dream_at", "2026-11-30T03:00:00Z")
        assert store.get_meta("last_dream_at") == "2026-11-30T03:00:00Z"
        store.submit(new_memory("tenant default"))
    with STMStore(path, tenant_id="team-b") as other:
        assert other.get_meta("last_dream_at") is None
        assert other.count() == 0 and other.claim(limit=5, lease_minutes=5) is None


def test_usable_from_other_threads(store: STMStore) -> None:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            store.submit_many(new_memory(f"t{i}") for i in range(50))
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and store.count() == 200
