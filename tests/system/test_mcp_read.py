"""The read side of `dreamtui mcp` (intake/mcp_read.py) through the real `mcp` client, over stdio
and streamable HTTP: resources (the bundle, each live entry), search_memory over the index
(incidents the bundle does not carry included), get_entry, and confirm_context refusing a slug
that names no live entry."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from dreamtui.intake.mcp_read import BUNDLE_URI
from dreamtui.store import tokens
from dreamtui.workspace.layout import Workspace
from tests.factories import entry_text, write_entry
from tests.system.mcp_harness import TIMEOUT, call, http_server, stdio, stored

INCIDENT = "incidents/2026-11/2026-11-20-pgbouncer-pool-exhausted.md"


def with_unbundled_incident(workspace: Workspace) -> None:
    """An incident written after the bundle was: live, searchable, and not in AGENTS.md."""
    text = entry_text("pgbouncer-pool-exhausted", "PgBouncer pool exhausted during the sale",
                      "Checkout hung: PgBouncer's pool of 20 was exhausted by the report job. "
                      "Fix: the report job uses its own pool (pool_mode=session, size 5).",
                      tags=("database",)).replace("type: topic", "type: incident")
    write_entry(workspace.memory_root, INCIDENT, text)


async def read_everything(client: Client) -> None:
    listed = (await client.list_resources()).resources
    uris = {str(resource.uri) for resource in listed}
    assert BUNDLE_URI in uris
    assert {"dreamtui://memory/ci-ports", "dreamtui://memory/pgbouncer-pool-exhausted"} <= uris
    assert not any("archive" in uri for uri in uris)
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["dreamtui://memory/{slug}"]

    bundle = (await client.read_resource(BUNDLE_URI)).contents[0]
    assert "[mem: ci-ports]" in bundle.text and "pgbouncer" not in bundle.text
    entry = (await client.read_resource("dreamtui://memory/pgbouncer-pool-exhausted")).contents[0]
    assert entry.text.startswith("---\n") and "pool_mode=session" in entry.text
    with pytest.raises(MCPError, match="no live memory entry"):
        await client.read_resource("dreamtui://memory/no-such-entry")

    found = await call(client, "search_memory", {"query": "checkout hangs, database pool exhausted"})
    assert found["ok"]
    first = found["result"]["results"][0]
    assert first["slug"] == "pgbouncer-pool-exhausted" and first["type"] == "incident"
    assert first["in_bundle"] is False and first["path"] == INCIDENT
    assert "[exhausted]" in first["snippet"]
    bundled = await call(client, "search_memory", {"query": "postgres port CI", "limit": 1})
    assert [r["slug"] for r in bundled["result"]["results"]] == ["ci-ports"]
    assert bundled["result"]["results"][0]["in_bundle"] is True

    got = await call(client, "get_entry", {"slug": "[mem: pgbouncer-pool-exhausted]"})
    assert got["ok"] and got["result"]["title"] == "PgBouncer pool exhausted during the sale"
    assert "Fix: the report job" in got["result"]["markdown"]
    missing = await call(client, "get_entry", {"slug": "no-such-entry"})
    assert missing == {"ok": False, "error": "not_found", "message": missing["message"]}
    assert "search_memory" in missing["message"]
    for bad in ({"query": "   "}, {"query": "x", "limit": 0}, {"query": "x", "limit": 51}):
        assert (await call(client, "search_memory", bad))["error"] == "invalid_args"
    assert (await call(client, "get_entry", {"slug": "Not A Slug"}))["error"] == "invalid_args"

    unknown = await call(client, "confirm_context", {"target": "no-such-entry"})
    assert unknown["ok"] is False and unknown["error"] == "not_found"
    assert "no live memory entry" in unknown["message"]
    marker = await call(client, "confirm_context", {"target": "[mem: ci-ports]"})
    assert marker["ok"] and marker["result"]["target"] == "ci-ports"  # Dreamer's confirm_context result


async def test_stdio_agents_read_the_bundle_entries_and_search(sample: Workspace) -> None:
    with_unbundled_incident(sample)
    with anyio.fail_after(TIMEOUT):
        async with Client(stdio(sample.root, "--agent", "claude")) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert {"search_memory", "get_entry"} <= set(tools)
            assert tools["search_memory"].annotations.read_only_hint is True
            await read_everything(client)
            # A commit (or a hand edit) is seen by the next call: the index follows the files.
            write_entry(sample.memory_root, "topics/kafka-retention.md",
                        entry_text("kafka-retention", "Kafka keeps events for 3 days", "retention.ms"))
            found = await call(client, "search_memory", {"query": "kafka retention"})
            assert found["result"]["results"][0]["slug"] == "kafka-retention"
    confirmations = [row for row in stored(sample.root) if row["type"] == "context_confirmed"]
    assert [row["metadata"] for row in confirmations] == [{"target": "ci-ports"}]


@pytest.mark.slow  # starts the HTTP server as a subprocess
async def test_http_agents_read_the_bundle_entries_and_search(sample: Workspace) -> None:
    with_unbundled_incident(sample)
    token = tokens.create_token(sample.stm_path, "codex")
    with http_server(sample.root) as server:
        with anyio.fail_after(TIMEOUT):
            async with server.client(token) as client:
                await read_everything(client)


def test_the_index_lives_in_the_state_folder(sample: Workspace, tmp_path: Path) -> None:
    from dreamtui.store.search import SearchIndex

    index = SearchIndex.for_workspace(sample)
    assert index.path == sample.root / ".dreamtui" / "search.db"
    assert index.sync().total == len(list(sample.memory_root.glob("topics/*.md"))) + \
        len(list(sample.memory_root.glob("incidents/*/*.md")))
