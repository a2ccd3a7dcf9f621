"""`dreamtui init`, `dreamtui config check` and `dreamtui demo`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click

from dreamtui.cli.main import AppContext, fail, main, pass_app
from dreamtui.cli.tui_launch import require_terminal, run_tui
from dreamtui.errors import ConfigError
from dreamtui.scaffold import (
    git_init,
    init_workspace,
    new_demo_folder,
    remove_old_demos,
    sample_workspace_source,
    seed_stm,
)
from dreamtui.vocabulary import counted
from dreamtui.workspace.config import CONFIG_NAME, render_config
from dreamtui.workspace.layout import Workspace, open_workspace


@main.command("init")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=".")
@click.option("--git/--no-git", default=True, show_default=True,
              help="Make the workspace a git repository (dreamtui commits each decision).")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path),
              help="The code project this workspace serves (project.root; relative when beside it).")
def init_cmd(directory: Path, git: bool, project: Path | None) -> None:
    """Scaffold a workspace in DIRECTORY (default: here)."""
    workspace = init_workspace(directory, git=git, project=project)
    click.echo(f"created workspace {workspace.root}")
    click.echo(f"  config  {workspace.config_path}")
    click.echo(f"  memory  {workspace.memory_root}")
    click.echo(f"  context {workspace.agents_md}")
    if workspace.project_root is not None:
        click.echo(f"  project {workspace.project_root.resolve()} (project.root: {workspace.config.project.root})")
        click.echo(f"next: `dreamtui -w {workspace.root} connect claude-code` (or codex) wires the "
                   "project's agents; `dreamtui` to review")
    else:
        click.echo("next: `dreamtui submit …`, `dreamtui connect claude-code --project PATH` for "
                   "agents, `dreamtui` to review")


@main.group("config")
def config_group() -> None:
    """Inspect the workspace configuration."""


@config_group.command("check")
@click.option("--json", "as_json", is_flag=True, help="Print the resolved config as JSON.")
@pass_app
def config_check(app: AppContext, as_json: bool) -> None:
    """Print the resolved config, or every problem with its file, key and expectation.

    Also checks ui.keymap against the workbench's bindings (unknown ids, keys two actions of one
    view share) and reads every memory entry, naming those that do not parse (exit 2 if any).
    """
    try:
        workspace = app.workspace
    except ConfigError as exc:
        click.echo(f"{counted(len(exc.problems), 'problem')} in {exc.path}:", err=True)
        for problem in exc.problems:
            click.echo(f"  {exc.path}: {problem}", err=True)
        raise SystemExit(2) from None
    source = "Dreamer server config" if workspace.is_dreamer else CONFIG_NAME
    from dreamtui.store.ltm import LTMStore
    from dreamtui.tui.keymap import keymap_problems  # the key registry's data, Textual-free

    keymap = keymap_problems(workspace.config.ui.keymap)
    for problem in keymap:
        click.echo(f"{workspace.config_path}: {problem}", err=True)
    # A root that moved away (a workspace copied elsewhere, a relative path) loses the known
    # corpus and the delivery silently until a dream warns: name it here.
    project = workspace.project_root
    missing_project = project is not None and not project.is_dir()
    if missing_project:
        click.echo(f"{workspace.config_path}: project.root: {project}: not a folder (expected the code "
                   "project this workspace serves, relative to the workspace)", err=True)
    snapshot = LTMStore(workspace.memory_root).scan()
    for bad in snapshot.problems:
        where = ("not in AGENTS.md; INDEX.md lists it, as Dreamer does" if bad.path in snapshot.listed
                 else "not in INDEX.md or AGENTS.md")
        click.echo(f"entry problem: {bad} (skipped: {where})", err=True)
    for notice in snapshot.notices():
        click.echo(f"entry notice: {notice}", err=True)
    failed = bool(keymap or snapshot.problems or missing_project)
    if as_json:
        click.echo(json.dumps(workspace.config.model_dump(mode="json"), indent=2))
        raise SystemExit(2 if failed else 0)
    verdict = "see the problems above" if keymap or missing_project else "valid"
    if not workspace.is_dreamer and not workspace.config_path.read_text(encoding="utf-8").strip(" \t\r\n"):
        # Valid, but a file emptied by accident reads the same: say what that means.
        verdict += " (the file holds nothing: every setting is its default, project.root unset)"
    click.echo(f"# {workspace.config_path} ({source}) — {verdict}")
    click.echo(f"# stm.db: {workspace.stm_path}")
    click.echo(f"# memory: {workspace.memory_root}")
    click.echo(f"# context: {workspace.context_root}")
    click.echo(render_config(workspace.config), nl=False)
    if failed:
        raise SystemExit(2)


@main.command("demo")
@click.option("--into", type=click.Path(file_okay=False, path_type=Path),
              help="Copy the sample workspace here instead of a new temporary folder.")
@click.option("--no-open", is_flag=True, help="Only prepare the copy; do not open the app.")
@pass_app
@click.pass_context
def demo_cmd(ctx: click.Context, app: AppContext, into: Path | None, no_open: bool) -> None:
    """A fresh copy of the bundled sample workspace, opened in the workbench.

    With --headless, runs a dream on the copy and prints its review instead of opening the app.
    Without --into the copy is a temporary folder; a later demo removes those unused for a day.
    """
    if into is not None and into.exists() and any(into.iterdir()):
        fail(f"--into {into}: folder is not empty; name a new or empty folder")
    if not (app.headless or no_open):
        require_terminal("dreamtui --headless demo")  # before a copy is made for nobody to see
    removed = remove_old_demos()
    if removed:
        click.echo(f"removed {len(removed)} demo {'copy' if len(removed) == 1 else 'copies'} "
                   f"unused for a day from {removed[0].parent}")
    workspace = _copy_sample(into or new_demo_folder())
    click.echo(f"demo workspace: {workspace.root}")
    if into is None:
        click.echo("  (temporary: a later `dreamtui demo` removes it once unused for a day; "
                   "--into DIR keeps one)")
    # Every later command of this invocation works on the copy, never on the repo's sample.
    app.workspace_option = str(workspace.root)
    if app.headless:
        from dreamtui.cli.dream_cmds import review_show
        from dreamtui.headless import run_headless

        result = run_headless(workspace, force=True)
        click.echo(result.message)
        dream_id = result.summary.get("dream_id")
        if dream_id:
            ctx.invoke(review_show, dream_id=dream_id)
        ctx.exit(result.exit_code)
    elif not no_open:
        run_tui(workspace, app.theme)


def _copy_sample(target: Path) -> Workspace:
    with sample_workspace_source() as source:
        shutil.copytree(source, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "__init__.py", "*.db*", ".dreamtui"))
    workspace = open_workspace(target)
    seed = target / "stm_seed.jsonl"
    count = seed_stm(workspace, seed)
    # A repository, so the demo shows what a real workspace gets: one git commit per decision.
    git_init(workspace)
    click.echo(f"seeded {count} memories from {seed.name}")
    return workspace
