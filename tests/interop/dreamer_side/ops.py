"""Dreamer's own stores, driven from the command line (run by the Dreamer virtualenv's Python).

    python ops.py submit DB JSON        store a memory through SQLiteSTMStore.submit
    python ops.py list DB               list_unconsumed: the ids, oldest first
    python ops.py claim DB [MAX]        acquire the tenant's dream lease, claim_batch under it
    python ops.py acquire DB TTL        acquire the tenant's dream lease (null: one is live)
    python ops.py release DB LEASE      release_unconsumed and release the dream lease
    python ops.py config PATH           load dreamer.yaml as `dreamer config check` does
    python ops.py config-list PATH      list_unconsumed of the STM store dreamer.yaml configures

Each prints one JSON document; a store error prints {"error": "..."} and exits 1.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from typing import Any

from dreamer.api.contexts import (
    AcquireLeaseContext,
    ClaimContext,
    ListUnconsumedContext,
    ReleaseContext,
    ReleaseLeaseContext,
    SubmitContext,
)
from dreamer.api.tenants import TenantScope
from dreamer.api.types import Memory
from dreamer.contrib.stm.sqlite import SQLiteDreamLeaseStore, SQLiteSTMStore

TENANT = "default"


async def main(command: str, args: list[str]) -> Any:
    if command == "config":
        from dreamer.api.config import load

        resolved = load(args[0])
        return {"slots": sorted(k for k, v in resolved.components.items() if v is not None)}
    if command == "config-list":
        from dreamer.api.config import load

        configured = load(args[0]).components["stm_store"]
        with TenantScope.set(TENANT):
            found = await configured.list_unconsumed(ctx=ListUnconsumedContext(request_id="ops", tenant_id=TENANT))
        return {"db_path": configured.db_path, "titles": [m.title for m in found]}
    db = args[0]
    stm = SQLiteSTMStore(db_path=db)
    leases = SQLiteDreamLeaseStore(db_path=db)
    with TenantScope.set(TENANT):
        if command == "submit":
            fields = json.loads(args[1])
            fields.setdefault("tenant_id", TENANT)
            fields.setdefault("submitted_at", datetime.now(UTC).isoformat())
            stored = await stm.submit(Memory(**fields), ctx=SubmitContext(request_id="ops", tenant_id=TENANT))
            return stored.model_dump(mode="json")
        if command == "list":
            memories = await stm.list_unconsumed(ctx=ListUnconsumedContext(request_id="ops", tenant_id=TENANT))
            return [m.id for m in memories]
        if command == "acquire":
            lease = await leases.acquire(ctx=AcquireLeaseContext(request_id="ops", tenant_id=TENANT,
                                                                 ttl_seconds=float(args[1])))
            return lease.id if lease else None
        if command == "claim":
            lease = await leases.acquire(ctx=AcquireLeaseContext(request_id="ops", tenant_id=TENANT))
            if lease is None:
                return {"lease": None, "ids": []}
            batch = await stm.claim_batch(ctx=ClaimContext(
                request_id="ops", tenant_id=TENANT, lease_id=lease.id,
                max_batch_size=int(args[1]) if len(args) > 1 else None))
            return {"lease": lease.id, "ids": [m.id for m in batch.memories]}
        if command == "release":
            await stm.release_unconsumed(ctx=ReleaseContext(request_id="ops", tenant_id=TENANT, lease_id=args[1]))
            await leases.release(ctx=ReleaseLeaseContext(request_id="ops", tenant_id=TENANT, lease_id=args[1]))
            return {"released": args[1]}
    raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    try:
        result = asyncio.run(main(sys.argv[1], sys.argv[2:]))
    except Exception as exc:  # the test reads what Dreamer raised
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
        sys.exit(1)
    print(json.dumps(result))
