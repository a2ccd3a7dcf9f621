"""`dreamtui mcp` as a subprocess, started the way an agent's MCP config starts it, for the MCP
test modules; every wait is bounded, so a hung server fails a test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from tests.factories import entry_text, write_entry

SRC = str(Path(__file__).parents[2] / "src")
ENTRY = "from dreamtui.cli.main import main; import dreamtui.cli.mcp_cmds; main()"
TIMEOUT = 60


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC}


def stdio(ws: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-c", ENTRY, "--workspace", str(ws), "mcp", *args],
                                 env={"PYTHONPATH": SRC})


# The slugs the MCP tests confirm: confirm_context refuses a slug that names no live entry.
CONFIRMED = ("test-db-reset", "still-up", "first", "second", "third", "fourth", "a-slug",
             "before-revoke", "after-revoke", "still-served")


def with_live_entries(ws: Path, slugs: tuple[str, ...] = CONFIRMED) -> Path:
    """`ws` with a live topic entry for each of `slugs`."""
    for slug in slugs:
        write_entry(ws / "workspace" / "memory", f"topics/{slug}.md", entry_text(slug))
    return ws


def stored(ws: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(ws / "stm.db") as conn:
        conn.row_factory = sqlite3.Row
        found = conn.execute("SELECT * FROM stm_memories ORDER BY submitted_at").fetchall()
    return [{**dict(row), **{k: json.loads(row[k]) for k in ("tags", "metadata", "extra")}}
            for row in found]


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool call's envelope, checked to be the same as text and as structured content, and
    never marked isError (a refusal is in the envelope, as Dreamer's server sends it)."""
    result = await client.call_tool(tool, args)
    envelope = json.loads(result.content[0].text)
    assert result.structured_content == envelope
    assert result.is_error is False
    return envelope


def jsonrpc(message_id: int | None, method: str, params: dict[str, Any]) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if message_id is not None:
        message["id"] = message_id
    return json.dumps(message) + "\n"


INITIALIZE = json.loads(jsonrpc(1, "initialize", {
    "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"}}))


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _wait_for_port(process: subprocess.Popen[str], host: str, port: int, log: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited early: {log.read_text(encoding='utf-8')}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server did not listen on {host}:{port} within {TIMEOUT}s")


class HttpServer:
    def __init__(self, workspace: Path, host: str, port: int, log: Path) -> None:
        self.workspace = workspace
        self.port = port
        self.url = f"http://{host}:{port}/mcp"
        self._log = log

    def client(self, token: str | None) -> Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(TIMEOUT))
        return Client(streamable_http_client(self.url, http_client=http))

    def raw_post(self, token: str | None, *, headers: dict[str, str] | None = None,
                 query: str = "") -> httpx.Response:
        """One `initialize` POST (a new session when it succeeds), with extra headers if given."""
        sent = {"Accept": "application/json, text/event-stream", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        return httpx.post(self.url + query, json=INITIALIZE, headers=sent, timeout=TIMEOUT)

    def delete(self, token: str, session_id: str) -> httpx.Response:
        return httpx.delete(self.url, headers={"Authorization": f"Bearer {token}",
                                               "Mcp-Session-Id": session_id}, timeout=TIMEOUT)

    def log(self) -> str:
        """What the server wrote to stderr so far (all of it once the server has stopped)."""
        return self._log.read_text(encoding="utf-8")


@contextmanager
def http_server(ws: Path, *args: str, host: str = "127.0.0.1") -> Iterator[HttpServer]:
    """`dreamtui mcp --http` on a free loopback port; stopped with Ctrl-C, which must end it
    cleanly with nothing on stdout. Its stderr goes to a file, so a chatty server never blocks
    on a full pipe."""
    port = free_port(host)
    log = ws.parent / f"mcp-{port}.log"
    with log.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", ENTRY, "--workspace", str(ws), "mcp", "--http", "--host", host,
             "--port", str(port), *args],
            stdout=subprocess.PIPE, stderr=stderr, text=True, env=env())
        try:
            _wait_for_port(process, host, port, log)
            yield HttpServer(ws, host, port, log)
        finally:
            process.send_signal(signal.SIGINT)
            try:
                stdout, _ = process.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                stdout, _ = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0  # Ctrl-C stops it cleanly
    assert stdout == ""  # logs, uvicorn's included, go to stderr
