"""The `dreamtui` click group: global options, workspace opening, and error → exit code.

Command modules (`workspace_cmds`, `intake_cmds`, …) attach their commands to `main`; none of
them imports Textual, so `dreamtui --headless …` never loads the TUI.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, NoReturn

import click

from dreamtui.errors import EXIT_USAGE, DreamtuiError
from dreamtui.workspace import Workspace, open_workspace


@dataclass
class AppContext:
    """What every command shares: the global options and the lazily opened workspace."""

    workspace_option: str | None
    headless: bool
    theme: str | None
    _workspace: Workspace | None = field(default=None, repr=False)

    @property
    def workspace(self) -> Workspace:
        if self._workspace is None:
            self._workspace = open_workspace(self.workspace_option)
        return self._workspace


class DreamtuiGroup(click.Group):
    """Turns every `DreamtuiError` into a one-line message and its exit code, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DreamtuiError as exc:
            fail(str(exc), exc.exit_code)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        except DreamtuiError as exc:  # raised while click parsed or opened the workspace
            fail(str(exc), exc.exit_code)


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    click.echo(f"dreamtui: {message}", err=True)
    sys.exit(code)


pass_app = click.make_pass_decorator(AppContext)

EPILOG = """\b
Exit codes:
  0  done, or a headless gate skipped the dream (the reason is printed)
  1  the dream failed (its batch was returned to the queue, nothing written)
  2  usage or config error
  3  commit refused (guard rails or conflicts; nothing written)
"""


@click.group(cls=DreamtuiGroup, invoke_without_command=True, epilog=EPILOG,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--workspace", "-w", "workspace_option", metavar="DIR",
              help="Workspace folder (default: $DREAMTUI_WORKSPACE, else the nearest folder "
                   "upwards holding dreamtui.yaml or dreamer.yaml).")
@click.option("--headless", is_flag=True, help="Never open the TUI (for cron and scripts).")
@click.option("--theme", metavar="NAME", help="TUI theme (dreamtui-dark, dreamtui-light, …).")
@click.version_option(package_name="dreamtui")
@click.pass_context
def main(ctx: click.Context, workspace_option: str | None, headless: bool, theme: str | None) -> None:
    """dreamtui — curate what your coding agents learn.

    With no command, opens the workbench on the workspace.
    """
    ctx.obj = AppContext(workspace_option=workspace_option, headless=headless, theme=theme)
    if ctx.invoked_subcommand is None:
        if headless:
            fail("--headless needs a command (for example `dreamtui --headless dream`)")
        from dreamtui.cli.tui_launch import run_tui

        run_tui(ctx.obj.workspace, theme)

