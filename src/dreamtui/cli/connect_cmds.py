"""`dreamtui connect claude-code|codex` and `dreamtui disconnect` (deliver/connect.py)."""

from __future__ import annotations

from pathlib import Path

import click

from dreamtui.cli.main import AppContext, main, pass_app
from dreamtui.deliver.connect import (
    AGENTS,
    TOKEN_ENV,
    Agent,
    FileChange,
    apply_connect,
    apply_disconnect,
    plan_connect,
    plan_disconnect,
    state_path,
)


def _show_diffs(changes: list[FileChange]) -> None:
    for change in changes:
        click.echo(change.diff(), nl=False)


def _list(changes: list[FileChange], notes: list[str]) -> None:
    for change in changes:
        verb = "created" if change.before is None else "removed" if change.after is None else "updated"
        click.echo(f"  {verb:<8} {change.path}")
        for what in change.what:
            click.echo(f"           {what}")
    for note in notes:
        click.echo(f"  note     {note}")


@main.command("connect")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--project", type=click.Path(file_okay=False, path_type=Path),
              help="The code project's folder (default: project.root; kept there for next time).")
@click.option("--http", "http_url", metavar="URL",
              help="Reach a running `dreamtui mcp --http` at URL with a bearer token "
                   f"(read from ${TOKEN_ENV}) instead of starting dreamtui over stdio.")
@click.option("--no-token", is_flag=True,
              help="With --http: create no token here (the server serves another machine's "
                   "workspace; its owner gives you one).")
@click.option("--dry-run", is_flag=True, help="Show the changes as a diff; write nothing.")
@pass_app
def connect_cmd(app: AppContext, agent: Agent, project: Path | None, http_url: str | None,
                no_token: bool, dry_run: bool) -> None:
    """Wire AGENT in a project to this workspace: its MCP server, the session-start hook
    (Claude Code) and project.root, so commits deliver the bundle into the project.

    \b
    claude-code:  PROJECT/.mcp.json, PROJECT/.claude/settings.json
    codex:        $CODEX_HOME/config.toml (default ~/.codex/config.toml)
    both:         project.root in dreamtui.yaml

    Existing files are merged into (every other key and byte kept); running it again changes
    nothing; `dreamtui disconnect` removes exactly what it added.
    """
    if no_token and not http_url:
        raise click.UsageError("--no-token applies to --http")
    workspace = app.workspace
    plan = plan_connect(workspace, agent, project=project, http_url=http_url, token=not no_token)
    if not plan.changes and not plan.token_name:
        click.echo(f"nothing to change: {agent} is already connected to {plan.project}")
        _list([], plan.notes)
        return
    if dry_run:
        _show_diffs(plan.changes)
        if plan.token_name:
            click.echo(f"would create the token {plan.token_name!r} (shown once, for ${TOKEN_ENV})")
        click.echo("dry run: nothing was written")
        return
    applied = apply_connect(workspace, plan)
    click.echo(f"connected {agent} to {plan.project} (workspace {workspace.root})")
    _list(applied.changes, applied.notes)
    if applied.token:
        click.echo(f"token {plan.token_name!r} created; the agent reads it from ${TOKEN_ENV}. "
                   "Copy it now, it cannot be shown again:", err=True)
        click.echo(f"export {TOKEN_ENV}={applied.token}")
    click.echo(f"recorded in {state_path(workspace)}; `dreamtui disconnect` undoes it")
    if agent == "claude-code":
        click.echo(f"next: start a new Claude Code session in {plan.project}")
    else:
        click.echo("next: start a new Codex session (`codex mcp list` shows the server)")


@main.command("disconnect")
@click.argument("agent", type=click.Choice(AGENTS), required=False)
@click.option("--project", type=click.Path(file_okay=False, path_type=Path),
              help="Only the connections to this project (default: every one).")
@click.option("--dry-run", is_flag=True, help="Show the changes as a diff; write nothing.")
@pass_app
def disconnect_cmd(app: AppContext, agent: Agent | None, project: Path | None, dry_run: bool) -> None:
    """Remove what `dreamtui connect` added (AGENT: only that agent's connections).

    A file nobody changed since is put back byte for byte (one connect created is removed);
    in a file changed since, only dreamtui's entries go.
    """
    workspace = app.workspace
    plan = plan_disconnect(workspace, agent, project)
    if not plan.removed:
        click.echo(f"nothing to disconnect: {state_path(workspace)} records no such connection")
        return
    if dry_run:
        _show_diffs(plan.changes)
        click.echo("dry run: nothing was written")
        return
    apply_disconnect(workspace, plan)
    for connection in plan.removed:
        click.echo(f"disconnected {connection.agent} from {connection.project}")
    _list(plan.changes, plan.notes)
