"""dreamtui's MCP tools answer as Dreamer's server does (issue 15, item 10): the calls the client
script tests/interop/dreamer_side/mcp_client.py makes, made here in process, compared with what
Dreamer answered them (recorded in tests/fixtures/dreamer_mcp.py). tests/interop/test_shapes.py
runs the script itself against both servers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from dreamtui.intake import mcp_server
from dreamtui.model import NewMemory
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import open_workspace
from tests.fixtures.dreamer_mcp import DREAMER_REPORT
from tests.system.mcp_harness import TIMEOUT, call, with_live_entries

AGENT = "b85624d1-f8e7-4c18-bd26-7a990d793c8d"  # a Dreamer token's id: the agent id it gives
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


def _shape(value: Any) -> Any:
    """As the client script prints it: uuids and times replaced by their kind."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    if isinstance(value, str) and _UUID.match(value):
        return "<uuid>"
    if isinstance(value, str) and _TIME.match(value):
        return "<time>"
    return value


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k != "description"}
    return schema


async def _report(ws: Path) -> dict[str, Any]:
    """The client script's calls, through the real client library against the server in process."""
    server = mcp_server.build_server(open_workspace(ws), agent=lambda: AGENT)
    report: dict[str, Any] = {}
    async with Client(server) as client:
        report["tools"] = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}

        async def shaped(name: str, args: dict[str, Any]) -> dict[str, Any]:
            return _shape({**await call(client, name, args), "isError": False})

        memory = {"type": "failure", "title": "CI Postgres listens on 5433",
                  "content": "Connection refused on 5432; the CI workflow maps 5433.",
                  "tags": ["ci"], "metadata": {"file": "ci.yml"}, "idempotency_key": "ci-port-1"}
        first = await call(client, "submit_memory", memory)
        again = await call(client, "submit_memory", {**memory, "title": "re-sent"})
        report["submit"] = _shape({**first, "isError": False})
        report["resubmit_same_memory"] = again["result"] == first["result"]
        report["confirm"] = await shaped("confirm_context", {"target": "ci-ports", "note": "it worked"})
        report["confirm_again"] = await shaped("confirm_context", {"target": "ci-ports"})
        report["flag"] = await shaped("flag_context", {"observation": "It said 5432; CI maps 5433.",
                                                       "targets": ["ci-ports"], "quote": "port 5432"})
        report["flag_unanchored"] = await shaped("flag_context", {"observation": "Something was off."})
        refusals = {
            "title_too_long": ("submit_memory", {**memory, "title": "x" * 121, "idempotency_key": "t"}),
            "content_too_large": ("submit_memory", {**memory, "content": "x" * 9000, "idempotency_key": "c"}),
            "type_not_declared": ("submit_memory", {**memory, "type": "recipe", "idempotency_key": "r"}),
            "unknown_tool": ("submit_memories", {}),
            "extra_argument": ("confirm_context", {"target": "ci-ports", "agent_id": "someone"}),
        }
        report["refusals"] = {}
        for name, (tool, args) in refusals.items():
            refused = await shaped(tool, args)
            report["refusals"][name] = {key: refused[key] for key in ("ok", "error", "isError")}
    return report


async def test_results_and_refusals_are_shaped_as_dreamers(ws: Path) -> None:
    """Before: {"id", "created", …} instead of {"submitted": [Memory]}, `too_large`, isError true."""
    with_live_entries(ws, ("ci-ports",))
    with anyio.fail_after(TIMEOUT):
        ours = await _report(ws)
    for key in ("submit", "resubmit_same_memory", "confirm", "confirm_again", "flag", "flag_unanchored",
                "refusals"):
        assert ours[key] == DREAMER_REPORT[key], key


async def test_tool_schemas_are_dreamers(ws: Path) -> None:
    """Before: pydantic's schemas (anyOf/null, titles, no enum, no maxLength, extra arguments taken)."""
    with_live_entries(ws, ("ci-ports",))
    with anyio.fail_after(TIMEOUT):
        ours = await _report(ws)
    theirs = {name: _without_descriptions(schema) for name, schema in DREAMER_REPORT["tools"].items()}
    mine = {name: _without_descriptions(schema) for name, schema in ours["tools"].items() if name in theirs}
    their_enum = theirs["submit_memory"]["properties"]["type"].pop("enum")
    my_enum = mine["submit_memory"]["properties"]["type"].pop("enum")
    # Dreamer also lists the two feedback types; dreamtui takes feedback only through its tools.
    assert my_enum == [t for t in their_enum if t not in ("context_confirmed", "context_flagged")]
    assert mine == theirs


async def test_a_confirmation_dreamer_stored_counts_once(ws: Path) -> None:
    """Before: dreamtui's key was confirm:<agent>:…, Dreamer's context_confirmed:<agent>:…, so an
    agent that confirmed through both servers counted twice."""
    with_live_entries(ws, ("ci-ports",))
    workspace = open_workspace(ws)
    day = workspace.clock().strftime("%Y-%m-%d")
    with STMStore.for_workspace(workspace) as store:  # the row Dreamer's confirm_context stores
        theirs = store.submit(NewMemory(type="context_confirmed", title="context confirmed: ci-ports",
                                        content="", agent_id=AGENT, metadata={"target": "ci-ports"},
                                        idempotency_key=f"context_confirmed:{AGENT}:ci-ports:{day}")).memory
    server = mcp_server.build_server(workspace, agent=lambda: AGENT)
    with anyio.fail_after(TIMEOUT):
        async with Client(server) as client:
            ours = await call(client, "confirm_context", {"target": "ci-ports"})
    assert ours["result"] == {"stored": True, "target": "ci-ports", "deduplicated": True, "memory_id": theirs.id}
    with STMStore.for_workspace(workspace) as store:
        assert store.counts()["pending"] == 1
