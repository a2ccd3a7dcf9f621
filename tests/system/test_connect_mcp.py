"""What `dreamtui connect` writes works: the real `mcp` client starts the server exactly as the
written `.mcp.json` says (stdio), or reaches a running `dreamtui mcp --http` with the URL, the
header and the token connect gave (HTTP), and reads the bundle and an incident through it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import anyio
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from dreamtui.cli.main import main
from dreamtui.intake.mcp_read import BUNDLE_URI
from dreamtui.workspace.layout import Workspace
from tests.system.mcp_harness import SRC, TIMEOUT, call, http_server
from tests.system.test_mcp_read import with_unbundled_incident


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home" / ".codex"))
    folder = tmp_path / "code" / "shop"
    folder.mkdir(parents=True)
    return folder


async def reads_through(client: Client) -> None:
    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    assert BUNDLE_URI in uris and "dreamtui://memory/pgbouncer-pool-exhausted" in uris
    assert "[mem: ci-ports]" in (await client.read_resource(BUNDLE_URI)).contents[0].text
    found = await call(client, "search_memory", {"query": "pgbouncer pool exhausted"})
    assert found["result"]["results"][0]["slug"] == "pgbouncer-pool-exhausted"


async def test_the_written_mcp_json_starts_a_working_server(sample: Workspace, project: Path) -> None:
    with_unbundled_incident(sample)
    result = CliRunner().invoke(main, ["-w", str(sample.root), "connect", "claude-code", "--project", str(project)])
    assert result.exit_code == 0, result.output
    server = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["dreamtui"]
    params = StdioServerParameters(command=server["command"], args=server["args"], cwd=str(project),
                                   env={"PATH": os.environ["PATH"], "PYTHONPATH": SRC})
    with anyio.fail_after(TIMEOUT):
        async with Client(params) as client:
            await reads_through(client)


@pytest.mark.slow  # starts the HTTP server as a subprocess
async def test_connect_http_gives_a_url_header_and_token_that_work(sample: Workspace, project: Path) -> None:
    with_unbundled_incident(sample)
    with http_server(sample.root) as running:
        result = CliRunner().invoke(main, ["-w", str(sample.root), "connect", "claude-code",
                                           "--project", str(project), "--http", running.url])
        assert result.exit_code == 0, result.output
        token = re.search(r"^export DREAMTUI_TOKEN=(\S+)$", result.stdout, re.MULTILINE)
        assert token is not None
        server = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["dreamtui"]
        assert server["type"] == "http" and server["url"] == running.url
        # What Claude Code does with ${VAR} in a header: the value from the environment.
        headers = {k: v.replace("${DREAMTUI_TOKEN}", token.group(1)) for k, v in server["headers"].items()}
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(TIMEOUT))
        with anyio.fail_after(TIMEOUT):
            async with Client(streamable_http_client(server["url"], http_client=http)) as client:
                await reads_through(client)
