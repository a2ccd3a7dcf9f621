"""A client written for Dreamer's MCP server, run unchanged against `dreamtui mcp --http`.

    python mcp_client.py URL TOKEN SLUG

It does what an agent integration for Dreamer does with the `mcp` 1.27 client: list the tools,
submit a memory (and re-send it with its idempotency key), confirm the guidance SLUG twice, flag
it, and make the refusals Dreamer documents (an over-long title, an over-size content, a type
not declared, an unknown tool). It parses every reply the way such a client does, from the first
text block as JSON, and prints one JSON report: tool schemas, results and codes, with ids and
times replaced by their kind, so two servers' reports can be compared as they are.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


def _shape(value: Any) -> Any:
    """`value` with what differs from run to run (uuids, times) replaced by their kind."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    if isinstance(value, str) and _UUID.match(value):
        return "<uuid>"
    if isinstance(value, str) and _TIME.match(value):
        return "<time>"
    return value


async def main(url: str, token: str, slug: str) -> dict[str, Any]:
    report: dict[str, Any] = {}
    async with streamablehttp_client(url, headers={"Authorization": f"Bearer {token}"}) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        report["tools"] = {tool.name: tool.inputSchema for tool in listed.tools}

        async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            result = await session.call_tool(name, args)
            envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            envelope["isError"] = result.isError
            return envelope

        memory = {"type": "failure", "title": "CI Postgres listens on 5433",
                  "content": "Connection refused on 5432; the CI workflow maps 5433.",
                  "tags": ["ci"], "metadata": {"file": "ci.yml"}, "idempotency_key": "ci-port-1"}
        first = await call("submit_memory", memory)
        again = await call("submit_memory", {**memory, "title": "re-sent"})
        report["submit"] = _shape(first)
        report["resubmit_same_memory"] = again["result"] == first["result"]
        confirmed = await call("confirm_context", {"target": slug, "note": "it worked"})
        repeat = await call("confirm_context", {"target": slug})
        report["confirm"], report["confirm_again"] = _shape(confirmed), _shape(repeat)
        report["flag"] = _shape(await call("flag_context", {"observation": "It said 5432; CI maps 5433.",
                                                             "targets": [slug], "quote": "port 5432"}))
        report["flag_unanchored"] = _shape(await call("flag_context", {"observation": "Something was off."}))
        refusals = {
            "title_too_long": ("submit_memory", {**memory, "title": "x" * 121, "idempotency_key": "t"}),
            "content_too_large": ("submit_memory", {**memory, "content": "x" * 9000, "idempotency_key": "c"}),
            "type_not_declared": ("submit_memory", {**memory, "type": "recipe", "idempotency_key": "r"}),
            "unknown_tool": ("submit_memories", {}),
            "extra_argument": ("confirm_context", {"target": slug, "agent_id": "someone"}),
        }
        report["refusals"] = {}
        for name, (tool, args) in refusals.items():
            refused = await call(tool, args)
            report["refusals"][name] = {key: refused[key] for key in ("ok", "error", "isError")}
    return report


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:4])), sort_keys=True))
