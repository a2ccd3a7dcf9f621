"""What Dreamer's dream engine would show its model of the queue (run by the Dreamer virtualenv).

    python serialize.py DB OUT

Reads the unconsumed memories with Dreamer's SQLiteSTMStore and writes them with both of its
serializers, markdown-per-memory (the `dreamer init` default) under OUT/markdown and JSONL under
OUT/jsonl, as a dream's sandbox inbox holds them.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from dreamer.api.contexts import ListUnconsumedContext, SerializeContext
from dreamer.api.tenants import TenantScope
from dreamer.api.types import MemoryBatch
from dreamer.contrib.dream.serializers import JsonlSerializer, MarkdownPerMemorySerializer
from dreamer.contrib.stm.sqlite import SQLiteSTMStore

TENANT = "default"


async def main(db: str, out: str) -> None:
    with TenantScope.set(TENANT):
        memories = await SQLiteSTMStore(db_path=db).list_unconsumed(
            ctx=ListUnconsumedContext(request_id="serialize", tenant_id=TENANT))
        batch = MemoryBatch(lease_id="serialize", tenant_id=TENANT, memories=memories,
                            snapshot_at=datetime.now(UTC))
        ctx = SerializeContext(request_id="serialize", tenant_id=TENANT, lease_id="serialize")
        services = cast(Any, None)  # neither serializer uses its services
        for name, serializer in (("markdown", MarkdownPerMemorySerializer()), ("jsonl", JsonlSerializer())):
            await serializer.write(batch, target=Path(out) / name, ctx=ctx, services=services)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
