"""`dreamtui mcp` driven by the real `mcp` client library, over stdio and over streamable HTTP.

The server always runs as a subprocess started the way an agent's MCP config starts it, and every
wait is bounded, so a hung server fails the test instead of hanging the suite. Each test takes
about a second; all but the main stdio path are marked slow.
"""

from __future__ import annotations

import json
import queue
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from dreamtui.store import tokens
from tests.fixtures.dreamer_auth import DREAMER_TOKEN, DREAMER_TOKEN_ID, add_dreamer_token
from tests.system.mcp_harness import (
    ENTRY,
    TIMEOUT,
    HttpServer,
    call,
    env,
    http_server,
    jsonrpc,
    stdio,
    stored,
    with_live_entries,
)

SECRET = "ghp_abcdefghijklmnopqrstuvwxyzABCDEF123456"


@pytest.fixture
def ws(ws: Path) -> Path:
    """The minimal workspace with a live entry for each slug these tests confirm."""
    return with_live_entries(ws)


# -- stdio ---------------------------------------------------------------------------------------


async def test_stdio_tools_store_memories_and_feedback(ws: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with Client(stdio(ws, "--agent", "claude")) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(listed) == {"submit_memory", "confirm_context", "flag_context", "search_memory", "get_entry"}
            guidance = listed["submit_memory"].description
            assert "root cause" in guidance and "secret" in guidance.lower()
            assert "observation, failure, code_snippet" in guidance

            first = await call(client, "submit_memory", {
                "type": "failure", "title": "CI Postgres listens on 5433",
                "content": f"Connection refused on 5432; the workflow maps 5433. Token {SECRET}.",
                "tags": ["ci", "db"], "metadata": {"file": ".github/workflows/ci.yml"},
                "idempotency_key": "ci-port-1"})
            # Dreamer's shape: {"submitted": [Memory]}, its fields, then the extra ones.
            assert first["ok"] and list(first["result"]) == ["submitted"]
            [memory] = first["result"]["submitted"]
            assert list(memory)[:12] == ["id", "tenant_id", "agent_id", "type", "title", "content", "tags",
                                         "metadata", "submitted_at", "consumed_at", "consumed_by_lease",
                                         "idempotency_key"]
            assert memory["agent_id"] == "claude" and memory["tenant_id"] == "default"
            assert memory["submitted_at"].endswith("Z") and memory["consumed_at"] is None
            assert memory["redacted"] == ["github-token"] and SECRET not in memory["content"]
            again = await call(client, "submit_memory", {
                "type": "failure", "title": "different", "content": "different",
                "idempotency_key": "ci-port-1"})
            assert again["result"] == first["result"]  # the first memory, as Dreamer answers a repeat

            confirmed = await call(client, "confirm_context", {"target": "test-db-reset"})
            assert confirmed["result"] == {"stored": True, "target": "test-db-reset", "deduplicated": False,
                                           "memory_id": confirmed["result"]["memory_id"]}
            repeat = await call(client, "confirm_context", {"target": "test-db-reset", "note": "again"})
            assert repeat["result"] == {**confirmed["result"], "deduplicated": True}

            flagged = await call(client, "flag_context", {
                "observation": "Context says 5432 but CI maps 5433", "targets": ["ci-ports"],
                "quote": "listens on 5432"})
            assert flagged["result"] == {"stored": True, "targets": ["ci-ports"], "anchored": True,
                                         "memory_id": flagged["result"]["memory_id"]}
            loose = await call(client, "flag_context", {"observation": "Something said 5432"})
            assert loose["result"]["anchored"] is False and loose["result"]["targets"] == []

    rows = stored(ws)
    assert [row["type"] for row in rows] == ["failure", "context_confirmed", "context_flagged", "context_flagged"]
    assert {row["agent_id"] for row in rows} == {"claude"}
    memory, confirmation, flag, _ = rows
    assert SECRET not in memory["content"] and "[REDACTED:github-token]" in memory["content"]
    assert memory["tags"] == ["ci", "db"] and memory["idempotency_key"] == "ci-port-1"
    # Shaped as Dreamer's confirm_context makes it: one confirmation through either server counts once.
    assert confirmation["metadata"] == {"target": "test-db-reset"}
    assert (confirmation["title"], confirmation["content"]) == ("context confirmed: test-db-reset", "")
    assert confirmation["idempotency_key"].startswith("context_confirmed:claude:test-db-reset:")
    assert flag["title"] == "context flagged: ci-ports"
    assert flag["metadata"] == {"targets": ["ci-ports"], "quote": "listens on 5432"}
    assert flag["content"] == "Context says 5432 but CI maps 5433"


BAD_CALLS = [
    ("submit_memory", {"type": "recipe", "title": "t", "content": "c"}, "type_not_allowed", "type:"),
    ("submit_memory", {"type": "context_confirmed", "title": "t", "content": "c"},
     "type_not_allowed", "confirm_context"),
    # Size limits are invalid_args, as Dreamer codes them.
    ("submit_memory", {"type": "observation", "title": "x" * 121, "content": "c"}, "invalid_args", "title:"),
    ("submit_memory", {"type": "observation", "title": "t", "content": "é" * 4200}, "invalid_args", "content:"),
    ("submit_memory", {"type": "observation", "title": "  ", "content": "c"}, "invalid_args", "title:"),
    ("submit_memory", {"type": "observation", "title": "t"}, "invalid_args", "content"),
    ("submit_memory", {"type": "observation", "title": "t", "content": "c", "tags": "ci"},
     "invalid_args", "tags"),
    ("confirm_context", {"target": "Not A Slug"}, "invalid_args", "target:"),
    ("confirm_context", {}, "invalid_args", "target"),
    ("confirm_context", {"target": "a-slug", "agent_id": "someone-else"}, "invalid_args", "agent_id"),
    ("flag_context", {"observation": "wrong", "severity": "high"}, "invalid_args", "severity"),
    ("flag_context", {"observation": "wrong", "targets": ["ok-slug", "../etc"]}, "invalid_args", "targets:"),
    ("flag_context", {"observation": "   "}, "invalid_args", "observation:"),
    ("submit_memory", {"type": "observation", "title": "t", "content": "c",
                       "idempotency_key": "confirm:claude:a-slug:2026-11-29"},
     "invalid_args", "idempotency_key:"),
    ("submit_memory", {"type": "observation", "title": "t", "content": "c",
                       "idempotency_key": "context_confirmed:claude:a-slug:2026-11-29"},
     "invalid_args", "idempotency_key:"),
    ("no_such_tool", {}, "unknown_tool", "submit_memory"),
]


@pytest.mark.slow  # starts the MCP server as a subprocess
async def test_stdio_bad_arguments_get_coded_refusals_and_store_nothing(ws: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with Client(stdio(ws)) as client:
            for tool, args, code, named in BAD_CALLS:
                envelope = await call(client, tool, args)
                assert envelope["ok"] is False, (tool, args)
                assert envelope["error"] == code, (tool, args, envelope)
                assert named in envelope["message"], (tool, args, envelope)
            # The server survived every refusal and still works.
            assert (await call(client, "confirm_context", {"target": "still-up"}))["ok"]
    assert [row["agent_id"] for row in stored(ws)] == ["mcp"]


@pytest.mark.slow  # starts the MCP server as a subprocess
async def test_stdio_shares_the_database_with_other_writers(ws: Path) -> None:
    (ws / "dreamtui.yaml").write_text("stm:\n  busy_timeout_ms: 1000\n", encoding="utf-8")
    with anyio.fail_after(TIMEOUT):
        async with Client(stdio(ws)) as client:
            assert (await call(client, "confirm_context", {"target": "first"}))["ok"]
            # Another process (a dream, the TUI) holds the write lock briefly: the call waits.
            holder = sqlite3.connect(ws / "stm.db", isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")

            async def release_soon() -> None:
                await anyio.sleep(0.3)
                holder.execute("COMMIT")

            async with anyio.create_task_group() as group:
                group.start_soon(release_soon)
                assert (await call(client, "confirm_context", {"target": "second"}))["ok"]
            # Held beyond stm.busy_timeout_ms: a coded refusal, and the server keeps serving.
            holder.execute("BEGIN IMMEDIATE")
            stuck = await call(client, "confirm_context", {"target": "third"})
            holder.execute("ROLLBACK")
            holder.close()
            assert stuck["error"] == "unavailable" and "locked" in stuck["message"]
            assert str(ws) not in stuck["message"]
            assert (await call(client, "confirm_context", {"target": "fourth"}))["ok"]
    assert [row["metadata"]["target"] for row in stored(ws)] == ["first", "second", "fourth"]


def _refused(exc: BaseException) -> bool:
    """The client's failure carries the server's refusal (possibly inside task-group groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(_refused(inner) for inner in exc.exceptions)
    return isinstance(exc, MCPError)


@pytest.mark.slow  # starts the MCP server as a subprocess
def test_stdio_stdout_carries_nothing_but_protocol(ws: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", ENTRY, "--workspace", str(ws), "mcp"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env())
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True)
    reader.start()
    assert process.stdin is not None
    process.stdin.write("".join([
        jsonrpc(1, "initialize", {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                                   "clientInfo": {"name": "raw", "version": "0"}}),
        jsonrpc(None, "notifications/initialized", {}),
        jsonrpc(2, "tools/call", {"name": "submit_memory", "arguments": {"type": "nope"}}),
        jsonrpc(3, "tools/call", {"name": "confirm_context", "arguments": {"target": "a-slug"}}),
    ]))
    process.stdin.flush()
    answers: dict[int, dict[str, Any]] = {}
    try:
        while set(answers) != {1, 2, 3}:
            message = json.loads(lines.get(timeout=TIMEOUT))  # any non-JSON line fails here
            assert message.get("jsonrpc") == "2.0"
            if "id" in message:
                answers[message["id"]] = message
        process.stdin.close()  # EOF ends a stdio server
        assert process.wait(timeout=TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=TIMEOUT)
    assert process.stderr is not None
    stderr = process.stderr.read()
    reader.join(timeout=TIMEOUT)
    assert lines.empty()
    assert json.loads(answers[2]["result"]["content"][0]["text"])["error"] == "invalid_args"
    assert json.loads(answers[3]["result"]["content"][0]["text"])["ok"] is True
    assert "dreamtui MCP server on stdio" in stderr  # the log went to stderr


# -- streamable HTTP -----------------------------------------------------------------------------


@pytest.fixture()
def http(ws: Path) -> Iterator[HttpServer]:
    with http_server(ws) as server:
        yield server


@pytest.mark.slow  # starts the MCP server as a subprocess
async def test_http_tools_use_the_token_name_as_agent(http: HttpServer) -> None:
    token = tokens.create_token(http.workspace / "stm.db", "codex")
    with anyio.fail_after(TIMEOUT):
        async with http.client(token) as client:
            submitted = await call(client, "submit_memory", {
                "type": "observation", "title": "Run make db-reset first",
                "content": "pytest tests/integration assumes an empty schema."})
            assert submitted["ok"] and submitted["result"]["submitted"][0]["agent_id"] == "codex"
            assert (await call(client, "confirm_context", {"target": "test-db-reset"}))["ok"]
            assert (await call(client, "flag_context", {"observation": "port is 5433"}))["ok"]
            refused = await call(client, "submit_memory", {"type": "nope", "title": "t", "content": "c"})
            assert refused["error"] == "type_not_allowed"
    rows = stored(http.workspace)
    assert [(row["type"], row["agent_id"]) for row in rows] == [
        ("observation", "codex"), ("context_confirmed", "codex"), ("context_flagged", "codex")]


@pytest.mark.slow  # starts the MCP server as a subprocess
async def test_http_takes_a_dreamer_token_at_dreamers_address(http: HttpServer) -> None:
    """Before: a Dreamer token got 401 and /mcp/ a 307. Its memories carry the token's row id,
    as Dreamer attributes them."""
    add_dreamer_token(http.workspace / "stm.db")
    answered = await anyio.to_thread.run_sync(lambda: http.raw_post(DREAMER_TOKEN, query="/"))
    assert answered.status_code == 200, answered.text  # served at /mcp/ itself, no redirect
    with anyio.fail_after(TIMEOUT):
        async with http.client(DREAMER_TOKEN) as client:
            submitted = await call(client, "submit_memory", {
                "type": "observation", "title": "Run make db-reset first",
                "content": "pytest tests/integration assumes an empty schema."})
    assert submitted["result"]["submitted"][0]["agent_id"] == DREAMER_TOKEN_ID
    assert [row["agent_id"] for row in stored(http.workspace)] == [DREAMER_TOKEN_ID]


@pytest.mark.slow  # starts the MCP server as a subprocess
async def test_http_refuses_missing_wrong_and_revoked_tokens(http: HttpServer) -> None:
    db = http.workspace / "stm.db"
    token = tokens.create_token(db, "claude")
    for bad in (None, "dtui_not-a-real-token"):
        response = await anyio.to_thread.run_sync(http.raw_post, bad)
        assert response.status_code == 401
        assert response.json()["error"] == "invalid_token"
        with anyio.fail_after(TIMEOUT), pytest.raises(Exception) as refused:
            async with http.client(bad) as client:
                await client.list_tools()
        assert _refused(refused.value)
    assert (await anyio.to_thread.run_sync(http.raw_post, token)).status_code == 200

    with anyio.fail_after(TIMEOUT):
        async with http.client(token) as client:
            assert (await call(client, "confirm_context", {"target": "before-revoke"}))["ok"]
            tokens.revoke_token(db, "claude")
            # An open session does not outlive its token: the next request is refused.
            with pytest.raises(MCPError):
                await client.call_tool("confirm_context", {"target": "after-revoke"})
    assert (await anyio.to_thread.run_sync(http.raw_post, token)).status_code == 401
    with anyio.fail_after(TIMEOUT), pytest.raises(Exception) as refused:
        async with http.client(token) as client:
            await client.list_tools()
    assert _refused(refused.value)
    assert [row["metadata"]["target"] for row in stored(http.workspace)] == ["before-revoke"]
