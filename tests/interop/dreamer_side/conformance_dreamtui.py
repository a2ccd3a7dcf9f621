"""Dreamer's conformance suites (`dreamer.testing.conformance`) on dreamtui's side of the queue.

Run by the Dreamer virtualenv's pytest, with dreamtui's src/ on PYTHONPATH (its store needs only
pydantic and PyYAML, which Dreamer has): tests/interop/test_conformance.py does that and checks
the counts. Not named test_*.py: dreamtui's own pytest must not collect it (it imports Dreamer).

- `TestDreamtuiSTMStore`: Dreamer's STMStore suite against dreamtui's STMStore through
  `DreamtuiSTMAdapter`, a thin async wrapper (Dreamer's protocol is async and passes contexts).
- `TestDreamerStoresOnADreamtuiDatabase`: Dreamer's own SQLite stores, both suites, on files
  dreamtui created (its indices and side tables included).
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dreamer.api.contexts import (
    ClaimContext,
    CountContext,
    ListUnconsumedContext,
    MarkConsumedContext,
    PurgeConsumedContext,
    ReclaimContext,
    ReleaseContext,
    SubmitContext,
)
from dreamer.api.tenants import TenantScope
from dreamer.api.types import Memory, MemoryBatch
from dreamer.contrib.stm.sqlite import SQLiteDreamLeaseStore, SQLiteSTMStore
from dreamer.testing.conformance.dream_lease import DreamLeaseStoreConformance
from dreamer.testing.conformance.stm_store import STMStoreConformance

from dreamtui.model import Memory as DreamtuiMemory
from dreamtui.model import NewMemory
from dreamtui.store.stm import MemoryFilter, STMStore

DREAMER_BATCH = 200  # SQLiteSTMStore's max_batch_size when a claim names none
CLAIM_MINUTES = 30
EVERY = 1_000_000


def _dreamer(memory: DreamtuiMemory) -> Memory:
    return Memory(id=memory.id, tenant_id=memory.tenant_id, agent_id=memory.agent_id, type=memory.type,
                  title=memory.title, content=memory.content, tags=list(memory.tags),
                  metadata=dict(memory.metadata), submitted_at=memory.submitted_at,
                  consumed_at=memory.consumed_at, consumed_by_lease=memory.consumed_by_lease,
                  idempotency_key=memory.idempotency_key, **memory.extra)


class DreamtuiSTMAdapter:
    """Dreamer's STMStore protocol over dreamtui's STMStore (one per tenant, as dreamtui opens it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stores: dict[str, STMStore] = {}

    def store(self, tenant_id: str) -> STMStore:
        TenantScope.assert_matches(tenant_id)  # Dreamer's tenant rule, before any I/O
        if tenant_id not in self._stores:
            self._stores[tenant_id] = STMStore(self.path, tenant_id=tenant_id)
        return self._stores[tenant_id]

    def close(self) -> None:
        for store in self._stores.values():
            store.close()

    async def submit(self, memory: Memory, *, ctx: SubmitContext) -> Memory:
        base = set(Memory.model_fields)
        extra = {k: v for k, v in memory.model_dump().items() if k not in base}
        new = NewMemory(type=memory.type, title=memory.title, content=memory.content, agent_id=memory.agent_id,
                        tags=tuple(memory.tags), metadata=dict(memory.metadata),
                        idempotency_key=memory.idempotency_key, extra=extra)
        return _dreamer(self.store(ctx.tenant_id).submit(new, now=memory.submitted_at).memory)

    async def list_unconsumed(self, *, ctx: ListUnconsumedContext) -> list[Memory]:
        found = self.store(ctx.tenant_id).page(MemoryFilter(state="pending"), newest_first=False,
                                               limit=ctx.limit if ctx.limit is not None else EVERY)
        return [_dreamer(m) for m in found]

    async def claim_batch(self, *, ctx: ClaimContext) -> MemoryBatch:
        store = self.store(ctx.tenant_id)
        lease = store.claim(limit=ctx.max_batch_size or DREAMER_BATCH, lease_minutes=CLAIM_MINUTES,
                            lease_id=ctx.lease_id)
        return MemoryBatch(lease_id=ctx.lease_id, tenant_id=ctx.tenant_id,
                           memories=[_dreamer(m) for m in (lease.memories if lease else [])],
                           snapshot_at=ctx.snapshot_at or datetime.now(UTC))

    def _held(self, store: STMStore, lease_id: str) -> list[str]:
        return [m.id for m in store.page(MemoryFilter(state="claimed"), limit=EVERY)
                if m.consumed_by_lease == lease_id]

    async def mark_consumed(self, *, ctx: MarkConsumedContext) -> None:
        store = self.store(ctx.tenant_id)
        ids = list(ctx.memory_ids) or self._held(store, ctx.lease_id)  # none named: all the lease holds
        store.consume(ctx.lease_id, ids, now=ctx.consumed_at)

    async def release_unconsumed(self, *, ctx: ReleaseContext) -> None:
        self.store(ctx.tenant_id).release(ctx.lease_id)

    async def count_unconsumed(self, *, ctx: CountContext) -> int:
        pending = self.store(ctx.tenant_id).pending_by_type()
        excluded = set(ctx.exclude_types or ())
        return sum(n for memory_type, n in pending.items() if memory_type not in excluded)

    async def release_for_expired_leases(self, *, ctx: ReclaimContext) -> int:
        store = self.store(ctx.tenant_id)
        return sum(store.release(lease_id) for lease_id in ctx.expired_lease_ids)

    async def purge_consumed(self, *, ctx: PurgeConsumedContext) -> int:
        return self.store(ctx.tenant_id).purge_consumed(0, now=ctx.before)


def _dreamtui_database() -> Path:
    """A new stm.db as dreamtui creates it."""
    path = Path(tempfile.mkdtemp(prefix="dreamtui-conformance-")) / "stm.db"
    STMStore(path).close()
    return path


class TestDreamtuiSTMStore(STMStoreConformance):
    async def make_stm_store(self) -> AsyncIterator[Any]:
        adapter = DreamtuiSTMAdapter(_dreamtui_database())
        try:
            yield adapter
        finally:
            adapter.close()


class TestDreamerSTMStoreOnADreamtuiDatabase(STMStoreConformance):
    async def make_stm_store(self) -> AsyncIterator[Any]:
        yield SQLiteSTMStore(db_path=str(_dreamtui_database()))


class TestDreamerLeaseStoreOnADreamtuiDatabase(DreamLeaseStoreConformance):
    async def make_lease_store(self) -> AsyncIterator[Any]:
        yield SQLiteDreamLeaseStore(db_path=str(_dreamtui_database()))
