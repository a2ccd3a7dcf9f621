"""One Dreamer claim, started on a signal so it races a dreamtui claim (run by Dreamer's Python).

    python race_claim.py DB READY_FILE START_FILE MAX

Opens Dreamer's stores, writes READY_FILE, waits for START_FILE, then does what Dreamer's
orchestrator does before a dream: acquire the tenant's dream lease, claim_batch under it. Prints
{"lease": id or null, "ids": [...]}.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from dreamer.api.contexts import AcquireLeaseContext, ClaimContext, CountContext
from dreamer.api.tenants import TenantScope
from dreamer.contrib.stm.sqlite import SQLiteDreamLeaseStore, SQLiteSTMStore


async def main(db: str, ready: Path, start: Path, most: int) -> dict[str, object]:
    stm = SQLiteSTMStore(db_path=db)
    leases = SQLiteDreamLeaseStore(db_path=db)
    with TenantScope.set("default"):
        await stm.count_unconsumed(ctx=CountContext(request_id="race", tenant_id="default"))  # connect first
        ready.write_text("ready\n", encoding="utf-8")
        while not start.exists():
            time.sleep(0.001)
        lease = await leases.acquire(ctx=AcquireLeaseContext(request_id="race", tenant_id="default"))
        if lease is None:
            return {"lease": None, "ids": []}
        batch = await stm.claim_batch(ctx=ClaimContext(request_id="race", tenant_id="default",
                                                       lease_id=lease.id, max_batch_size=most))
        return {"lease": lease.id, "ids": [m.id for m in batch.memories]}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])))))
