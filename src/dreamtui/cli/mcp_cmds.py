"""`dreamtui mcp` (the MCP server for agents) and `dreamtui token create|list|revoke`."""

from __future__ import annotations

import logging
import sys

import click

from dreamtui.cli.main import AppContext, main, pass_app
from dreamtui.store import tokens
from dreamtui.vocabulary import counted


def _log_to_stderr() -> None:
    # Configured before the SDK's own setup, which then leaves it alone: stdout belongs to the
    # protocol in stdio mode, and a server's log belongs on stderr in either mode.
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


@main.command("mcp")
@click.option("--http", "use_http", is_flag=True,
              help="Serve streamable HTTP (needs bearer tokens) instead of stdio.")
@click.option("--host", metavar="ADDR", help="HTTP bind address (default: mcp.host, 127.0.0.1).")
@click.option("--port", type=click.IntRange(1, 65535), help="HTTP port (default: mcp.port, 8765).")
@click.option("--allow-host", "allow_hosts", metavar="NAME", multiple=True,
              help="A Host name HTTP clients use besides the bind address and localhost (repeatable; "
                   "added to mcp.allowed_hosts). Needed to listen beyond loopback.")
@click.option("--agent", metavar="NAME",
              help="Agent id for memories over stdio (default: mcp). Over HTTP it is the token's name.")
@pass_app
def mcp_cmd(app: AppContext, use_http: bool, host: str | None, port: int | None,
            allow_hosts: tuple[str, ...], agent: str | None) -> None:
    """Serve the memory to agents: submit_memory, confirm_context and flag_context to write;
    search_memory, get_entry and the resources dreamtui://context/AGENTS.md and
    dreamtui://memory/<slug> to read. `dreamtui connect` writes an agent's config for it.

    \b
    stdio (default):  claude mcp add dreamtui -- dreamtui --workspace DIR mcp --agent claude
    HTTP:             dreamtui mcp --http   then   http://127.0.0.1:8765/mcp
                      with  Authorization: Bearer <token from `dreamtui token create NAME`>
    beyond loopback:  dreamtui mcp --http --host 0.0.0.0 --allow-host devbox.lan
    """
    from dreamtui.intake import mcp_server  # the SDK and uvicorn load only for this command

    if use_http and agent is not None:
        raise click.UsageError("--agent applies to stdio; over HTTP the agent is the token's name")
    if not use_http and (host is not None or port is not None or allow_hosts):
        raise click.UsageError("--host, --port and --allow-host need --http")
    _log_to_stderr()
    workspace = app.workspace
    try:
        if use_http:
            config = workspace.config.mcp
            mcp_server.serve_http(workspace, host or config.host, port or config.port,
                                  [*config.allowed_hosts, *allow_hosts])
        else:
            mcp_server.serve_stdio(workspace, agent or mcp_server.DEFAULT_STDIO_AGENT)
    except KeyboardInterrupt:
        # Ctrl-C is how a person stops a server: a clean exit, not click's "Aborted!".
        logging.getLogger(__name__).info("stopped")


@main.group("token")
def token_group() -> None:
    """Bearer tokens for `dreamtui mcp --http` (stored hashed in the STM database)."""


@token_group.command("create")
@click.argument("name")
@pass_app
def token_create(app: AppContext, name: str) -> None:
    """Create a token for agent NAME and print it once."""
    workspace = app.workspace
    token = tokens.create_token(workspace.stm_path, name,
                                busy_timeout_ms=workspace.config.stm.busy_timeout_ms)
    click.echo(token)
    click.echo(f"token for {name!r} created; copy it now, it cannot be shown again", err=True)


@token_group.command("list")
@pass_app
def token_list(app: AppContext) -> None:
    """Every token's name, creation time and state (never the token itself)."""
    workspace = app.workspace
    listed = tokens.list_tokens(workspace.stm_path, busy_timeout_ms=workspace.config.stm.busy_timeout_ms)
    theirs = tokens.dreamer_live(workspace.stm_path, busy_timeout_ms=workspace.config.stm.busy_timeout_ms)
    if theirs:  # accepted too, and managed with Dreamer's own CLI
        click.echo(f"also {counted(theirs, 'live Dreamer server token')} in its auth_tokens table "
                   "(their memories carry the token's id; manage them with `dreamer-simple-auth token …`)",
                   err=True)
    if not listed:
        click.echo("no tokens (create one with `dreamtui token create NAME`)", err=True)
        return
    width = max(len("NAME"), *(len(t.name) for t in listed))
    click.echo(f"{'NAME':<{width}}  {'CREATED':<20}  STATE")
    for info in listed:
        state = "live" if info.live else f"revoked {info.revoked_at}"
        click.echo(f"{info.name:<{width}}  {info.created_at:<20}  {state}")


@token_group.command("revoke")
@click.argument("name")
@pass_app
def token_revoke(app: AppContext, name: str) -> None:
    """Revoke NAME's live token; the server refuses it from its next request on."""
    workspace = app.workspace
    info = tokens.revoke_token(workspace.stm_path, name,
                               busy_timeout_ms=workspace.config.stm.busy_timeout_ms)
    click.echo(f"revoked {info.name} at {info.revoked_at}")
