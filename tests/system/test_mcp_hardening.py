"""The MCP server against an adversarial agent (issue 16): keys shared across agents, one token
taking every HTTP session, Host checks that depend on the --host string, tokens in the access log,
local paths in replies, and an unknown tool's reply.

The tool semantics run in-process through the real `mcp` client library (fast); the HTTP ones
start `dreamtui mcp --http` on loopback and are marked slow.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import pytest
from click.testing import CliRunner
from mcp import Client

from dreamtui.cli.main import main
from dreamtui.errors import EXIT_USAGE, InputError
from dreamtui.intake import mcp_server
from dreamtui.model import NewMemory
from dreamtui.store import tokens
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace, open_workspace
from tests.system.mcp_harness import INITIALIZE, TIMEOUT, HttpServer, call, http_server, stored, with_live_entries


@pytest.fixture
def ws(ws: Path) -> Path:
    """The minimal workspace with a live entry for each slug these tests confirm."""
    return with_live_entries(ws)

OBSERVATION = {"type": "observation", "title": "CI Postgres listens on 5433",
               "content": "Connection refused on 5432; the workflow maps 5433."}


def agent_client(workspace: Workspace, agent: str) -> Client:
    """The real client library against the server in-process, as `agent`."""
    return Client(mcp_server.build_server(workspace, agent=lambda: agent))


# -- 6: idempotency keys are each agent's own --------------------------------------------------


async def test_an_agent_never_gets_another_agents_memory_back_by_its_key(ws: Path) -> None:
    workspace = open_workspace(ws)
    with anyio.fail_after(TIMEOUT):
        async with agent_client(workspace, "alice") as alice, agent_client(workspace, "bob") as bob:
            first = await call(alice, "submit_memory", {**OBSERVATION, "idempotency_key": "ci-port"})
            theirs = await call(bob, "submit_memory", {
                "type": "failure", "title": "bob's own lesson", "content": "something else",
                "idempotency_key": "ci-port"})
            [mine], [bobs] = first["result"]["submitted"], theirs["result"]["submitted"]
            assert bobs["agent_id"] == "bob" and bobs["title"] == "bob's own lesson"
            assert bobs["id"] != mine["id"]
            # Each agent's key still deduplicates its own submissions, and only its own.
            again = await call(alice, "submit_memory", {**OBSERVATION, "idempotency_key": "ci-port"})
            assert again["result"] == first["result"]
            bob_again = await call(bob, "submit_memory", {**OBSERVATION, "idempotency_key": "ci-port"})
            assert bob_again["result"] == theirs["result"]
    keys = {(row["agent_id"], row["idempotency_key"]) for row in stored(ws)}
    # The first holder keeps the plain key (a Dreamer server sharing the file sees it as before).
    assert keys == {("alice", "ci-port"), ("bob", "agent:bob:ci-port")}


def _days() -> list[str]:
    """Today and tomorrow (UTC): a confirmation's key names its day, and a test may cross midnight."""
    now = datetime.now(UTC)
    return [(now + timedelta(days=n)).strftime("%Y-%m-%d") for n in (0, 1)]


async def test_a_caller_cannot_take_the_keys_dreamtui_makes(ws: Path) -> None:
    workspace = open_workspace(ws)
    with anyio.fail_after(TIMEOUT):
        async with agent_client(workspace, "alice") as alice, agent_client(workspace, "bob") as bob:
            for key in (*(f"{prefix}:alice:test-db-reset:{day}" for day in _days()
                          for prefix in ("context_confirmed", "confirm")),
                        "flag:alice:test-db-reset", "context_flagged:alice", "agent:alice:ci-port"):
                refused = await call(bob, "submit_memory", {**OBSERVATION, "idempotency_key": key})
                assert refused["error"] == "invalid_args", key
                assert refused["message"].startswith("idempotency_key:"), refused
            confirmed = await call(alice, "confirm_context", {"target": "test-db-reset"})
            assert confirmed["ok"] and confirmed["result"]["deduplicated"] is False
    assert [(row["type"], row["agent_id"]) for row in stored(ws)] == [("context_confirmed", "alice")]


async def test_a_key_stored_by_another_path_does_not_suppress_an_agents_feedback(ws: Path) -> None:
    workspace = open_workspace(ws)
    with STMStore.for_workspace(workspace) as store:  # e.g. `dreamtui submit --jsonl` of such rows
        for day in _days():
            store.submit(NewMemory(type="observation", title="t", content="c", agent_id="cli",
                                   idempotency_key=f"context_confirmed:alice:test-db-reset:{day}"))
    with anyio.fail_after(TIMEOUT):
        async with agent_client(workspace, "alice") as alice:
            confirmed = await call(alice, "confirm_context", {"target": "test-db-reset"})
            assert confirmed["ok"] and confirmed["result"]["deduplicated"] is False
            repeat = await call(alice, "confirm_context", {"target": "test-db-reset"})
            assert repeat["result"] == {**confirmed["result"], "deduplicated": True}
    assert [row["agent_id"] for row in stored(ws) if row["type"] == "context_confirmed"] == ["alice"]


# -- 12 and 15: what a reply tells the agent ---------------------------------------------------


async def test_an_unknown_tool_gets_the_documented_envelope(ws: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with agent_client(open_workspace(ws), "alice") as client:
            refused = await call(client, "submit_memories", {"type": "observation"})
    assert refused["ok"] is False and refused["error"] == "unknown_tool"
    assert "submit_memory, confirm_context, flag_context" in refused["message"]


async def test_a_store_error_reply_names_no_local_path(ws: Path) -> None:
    (ws / "stm.db").write_bytes(b"not an SQLite database" * 100)
    with anyio.fail_after(TIMEOUT):
        async with agent_client(open_workspace(ws), "alice") as client:
            refused = await call(client, "submit_memory", OBSERVATION)
    assert refused["error"] == "unavailable"
    assert str(ws) not in refused["message"] and "/" not in refused["message"]
    assert refused["message"].startswith("stm.db: not a usable SQLite database")


# -- 12: Host and Origin are checked exactly -------------------------------------------------


def test_the_allowed_hosts_are_built_from_the_bind_address() -> None:
    assert mcp_server.allowed_hosts("127.0.0.1", 8765, []) == ["localhost:8765", "127.0.0.1:8765"]
    assert mcp_server.allowed_hosts("127.0.0.2", 9000, []) == ["localhost:9000", "127.0.0.2:9000"]
    assert mcp_server.allowed_hosts("::1", 8765, []) == ["localhost:8765", "[::1]:8765"]
    assert mcp_server.allowed_hosts("localhost", 80, []) == ["localhost", "127.0.0.1", "[::1]"]
    assert mcp_server.allowed_hosts("0.0.0.0", 8765, ["devbox.lan", "[fe80::1]", "192.168.1.20"]) == [
        "localhost:8765", "127.0.0.1:8765", "devbox.lan:8765", "[fe80::1]:8765", "192.168.1.20:8765"]
    for bind in ("0.0.0.0", "::", "192.168.1.20", "devbox.lan"):
        with pytest.raises(InputError, match="--allow-host NAME"):
            mcp_server.allowed_hosts(bind, 8765, [])
    for bad in ("devbox.lan:8765", "127.0.0.1:*", "http://devbox.lan", "evil example", "-x.lan", ""):
        with pytest.raises(InputError, match="allowed host"):
            mcp_server.allowed_hosts("127.0.0.1", 8765, [bad])


def test_listening_beyond_loopback_needs_an_allowlist(ws: Path) -> None:
    # Refused before anything binds, so this test never listens beyond loopback.
    result = CliRunner().invoke(main, ["-w", str(ws), "mcp", "--http", "--host", "0.0.0.0"])
    assert result.exit_code == EXIT_USAGE
    assert "--host 0.0.0.0: listening beyond this machine" in result.output
    assert "--allow-host NAME" in result.output and "mcp.allowed_hosts" in result.output


def _statuses(server: HttpServer, token: str, headers: list[dict[str, str]]) -> list[int]:
    return [server.raw_post(token, headers=sent).status_code for sent in headers]


@pytest.mark.slow  # starts the MCP server as a subprocess
def test_http_checks_host_and_origin_exactly(ws: Path) -> None:
    token = tokens.create_token(ws / "stm.db", "codex")
    with http_server(ws) as server:
        port = server.port
        refused_hosts = [f"127.0.0.1:{port}.evil.example", "127.0.0.1:evil.example",
                         f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1", f"localhost.:{port}"]
        assert _statuses(server, token, [{"Host": h} for h in refused_hosts]) == [421] * len(refused_hosts)
        refused_origins = ["http://evil.example", "http://127.0.0.1:evil.example",
                           f"http://127.0.0.1:{port}.evil.example", f"https://evil.example:{port}"]
        assert _statuses(server, token, [{"Origin": o} for o in refused_origins]) == [403] * len(refused_origins)
        accepted = [{}, {"Host": f"localhost:{port}"}, {"Origin": f"http://127.0.0.1:{port}"},
                    {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}]
        assert _statuses(server, token, accepted) == [200] * len(accepted)


@pytest.mark.slow  # starts the MCP server as a subprocess
def test_http_on_another_loopback_address_checks_hosts_too(ws: Path) -> None:
    token = tokens.create_token(ws / "stm.db", "codex")
    with http_server(ws, host="127.0.0.2") as server:
        port = server.port
        assert _statuses(server, token, [{"Host": f"evil.example:{port}"},
                                         {"Origin": "http://evil.example"},
                                         {"Host": f"127.0.0.2:{port}"}, {}]) == [421, 403, 200, 200]


@pytest.mark.slow  # starts the MCP server as a subprocess
def test_http_access_log_never_shows_a_query_string(ws: Path) -> None:
    token = tokens.create_token(ws / "stm.db", "codex")
    with http_server(ws) as server:
        # A token in the query string is no credential (401), and neither is it logged.
        assert server.raw_post(None, query=f"?access_token={token}").status_code == 401
        assert server.raw_post(token, query=f"?token={token}&x=1").status_code == 200
    log = server.log()
    assert token not in log and "access_token" not in log and "?" not in log
    assert '"POST /mcp" 401' in log and '"POST /mcp" 200' in log


# -- 7: one token cannot take every session ----------------------------------------------------


def _open_sessions(server: HttpServer, token: str, count: int) -> list[httpx.Response]:
    return [server.raw_post(token) for _ in range(count)]


async def _burst(server: HttpServer, token: str, count: int) -> list[int]:
    """`count` initialize requests from one token at once."""
    statuses: list[int] = []
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        async def one() -> None:
            response = await http.post(server.url, json=INITIALIZE, headers={
                "Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"})
            statuses.append(response.status_code)

        async with anyio.create_task_group() as group:
            for _ in range(count):
                group.start_soon(one)
    return sorted(statuses)


def _config(ws: Path, **mcp: Any) -> None:
    (ws / "dreamtui.yaml").write_text(json.dumps({"mcp": mcp}), encoding="utf-8")


@pytest.mark.slow  # starts the MCP server as a subprocess
async def test_one_token_at_its_session_cap_leaves_other_tokens_unaffected(ws: Path) -> None:
    _config(ws, max_sessions_per_token=3)
    flooder, other, burster = (tokens.create_token(ws / "stm.db", name) for name in ("flood", "codex", "burst"))
    with http_server(ws) as server:
        run = anyio.to_thread.run_sync
        opened = await run(_open_sessions, server, flooder, 3)
        assert [r.status_code for r in opened] == [200] * 3
        refused = await run(server.raw_post, flooder)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert "mcp.max_sessions_per_token" in refused.json()["error"]["message"]
        with anyio.fail_after(TIMEOUT):
            async with server.client(other) as client:  # another token initializes and works
                assert (await call(client, "confirm_context", {"target": "still-served"}))["ok"]
        # Ending a session frees its place at once.
        assert (await run(server.delete, flooder, opened[0].headers["mcp-session-id"])).status_code == 200
        assert (await run(server.raw_post, flooder)).status_code == 200
        # A burst of concurrent initializes is held to the same cap.
        with anyio.fail_after(TIMEOUT):
            assert await _burst(server, burster, 10) == [200] * 3 + [429] * 7
    assert [row["agent_id"] for row in stored(ws)] == ["codex"]


@pytest.mark.slow  # starts the MCP server as a subprocess and waits for a session to go idle
async def test_an_idle_session_closes_and_frees_its_place(ws: Path) -> None:
    _config(ws, max_sessions_per_token=2, session_idle_seconds=1)
    token = tokens.create_token(ws / "stm.db", "codex")
    with http_server(ws) as server:
        run = anyio.to_thread.run_sync
        opened = await run(_open_sessions, server, token, 2)
        assert [r.status_code for r in opened] == [200, 200]
        refused = await run(server.raw_post, token)
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
        await anyio.sleep(1.3)
        assert (await run(server.raw_post, token)).status_code == 200
        # The SDK closed it too: the old session's id is gone.
        assert (await run(server.delete, token, opened[0].headers["mcp-session-id"])).status_code == 404
