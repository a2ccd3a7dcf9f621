"""Dreamer's own INDEX.md for a memory root (run by the Dreamer virtualenv's Python).

    python ltm_index.py ROOT

Opens ROOT with Dreamer's `MarkdownLTMStore` and commits a workspace with nothing changed: the
commit regenerates INDEX.md the way a Dreamer dream does. Prints nothing; INDEX.md is the result.
"""

from __future__ import annotations

import asyncio
import sys

from dreamer.api.contexts import CommitWorkspaceContext, OpenWorkspaceContext
from dreamer.api.tenants import TenantScope
from dreamer.contrib.ltm.markdown import MarkdownLTMStore

TENANT = "default"


async def main(root: str) -> None:
    store = MarkdownLTMStore(root=root)
    with TenantScope.set(TENANT):
        workspace = await store.open_workspace(ctx=OpenWorkspaceContext(request_id="index", tenant_id=TENANT))
        await store.commit_workspace(workspace, ctx=CommitWorkspaceContext(request_id="index", tenant_id=TENANT))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
