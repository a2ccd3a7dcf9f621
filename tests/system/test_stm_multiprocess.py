"""Several processes claiming from one STM file at once: no memory is claimed twice, none is lost."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from threading import Barrier

import pytest

from dreamtui.model import NewMemory
from dreamtui.store.stm import STMStore

pytestmark = pytest.mark.slow  # worker processes claiming at once

MEMORIES = 2000
WORKERS = 5


def claim_until_empty(path: str, start: Barrier, holding: Barrier, batch: int) -> list[str]:
    """Runs in a spawned process: claim small batches, consume them, stop when nothing is left."""
    claimed: list[str] = []
    with STMStore(Path(path), busy_timeout_ms=30_000) as store:
        start.wait(timeout=120)  # every worker has opened the file: they race from here
        first = True
        while (lease := store.claim(limit=batch, lease_minutes=60)) is not None:
            ids = [memory.id for memory in lease.memories]
            claimed.extend(ids)
            if first:
                # Every worker holds a live lease at this point, all at once. Without this, on a
                # 2-core CI box the first worker can drain the queue before the others are
                # scheduled and the test proves nothing about concurrent leases.
                holding.wait(timeout=120)
                first = False
            # Release a few and consume the rest, so rows go back to the queue while others claim.
            if len(ids) > 2:
                store.release(lease.id, ids[-1:])
                claimed.pop()
                ids = ids[:-1]
            store.consume(lease.id, ids)
            store.end_lease(lease.id)
    return claimed


def test_concurrent_claims_never_overlap(tmp_path: Path) -> None:
    path = tmp_path / "stm.db"
    with STMStore(path) as store:
        store.submit_many(NewMemory(type="observation", title=f"m{i}", content=f"memory {i}")
                          for i in range(MEMORIES))
        everything = {m.id for m in store.page(limit=MEMORIES)}
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(WORKERS) as pool:
        start, holding = manager.Barrier(WORKERS), manager.Barrier(WORKERS)
        results = [pool.apply_async(claim_until_empty, (str(path), start, holding, 3 + n))
                   for n in range(WORKERS)]
        per_worker = [result.get(timeout=240) for result in results]
    claimed = [memory_id for ids in per_worker for memory_id in ids]
    assert len(claimed) == len(set(claimed)), "a memory was claimed (and consumed) twice"
    assert set(claimed) == everything, "a memory was lost"
    # A worker whose first claim found nothing never reaches `holding`; the others then time out.
    assert all(per_worker), "a worker got no lease while the others held theirs"
    with STMStore(path) as store:
        assert store.counts() == {"pending": 0, "claimed": 0, "consumed": MEMORIES}
