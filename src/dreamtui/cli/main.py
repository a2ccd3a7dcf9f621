"""The `dreamtui` click group: global options, workspace opening, and error → exit code.

Command modules (`workspace_cmds`, `intake_cmds`, …) attach their commands to `main`; none of
them imports Textual, so `dreamtui --headless …` never loads the TUI. `main` imports a command
module only when one of its commands is looked up (see COMMAND_MODULES).
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field
from typing import Any, NoReturn

import click

from dreamtui.errors import EXIT_FAILED, EXIT_USAGE, DreamtuiError, LockedError
from dreamtui.workspace.layout import Workspace, open_workspace


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


# Which module attaches each top-level command. Importing every module up front costs about half
# a second (pydantic models, the commit and dream machinery, the MCP SDK), more than a quick
# `dreamtui status` or a hook may spend in total, so a module loads when one of its commands is
# looked up. tests/system/test_cli_bulk.py keeps this map equal to what the modules register.
COMMAND_MODULES: dict[str, str] = {
    **dict.fromkeys(("init", "config", "demo"), "dreamtui.cli.workspace_cmds"),
    **dict.fromkeys(("submit", "confirm", "flag", "status", "purge"), "dreamtui.cli.intake_cmds"),
    "import": "dreamtui.cli.import_cmds",
    "entry": "dreamtui.cli.entry_cmds",
    "flags": "dreamtui.cli.flags_cmds",
    "bundle": "dreamtui.cli.bundle_cmds",
    **dict.fromkeys(("dream", "review", "decide", "undo", "commit", "abandon", "release"),
                    "dreamtui.cli.dream_cmds"),
    **dict.fromkeys(("mcp", "token"), "dreamtui.cli.mcp_cmds"),
    **dict.fromkeys(("connect", "disconnect"), "dreamtui.cli.connect_cmds"),
}


class SentenceHelpGroup(click.Group):
    """Lists its commands with the whole first sentence of each one's help, wrapped, where
    click cuts it at the terminal's width ("Close DREAM without applying anything; its whole
    batch..."): the half of a sentence left says less than the command does."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=SHORT_HELP_CHARS)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


# Long enough for any first sentence of ours; write_dl wraps it under the command's column.
SHORT_HELP_CHARS = 300


class DreamtuiGroup(SentenceHelpGroup):
    """Loads command modules on demand, and turns every `DreamtuiError` into a one-line message
    and its exit code, never a traceback."""

    # `main.group(...)` builds its subgroups (`import`, `review`, …) with this class: they list
    # their commands the same way, without loading modules on demand.
    group_class = SentenceHelpGroup

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMAND_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(COMMAND_MODULES[cmd_name])  # its decorators register on `main`
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LockedError as exc:
            fail(f"{exc}; nothing was done, try again when it is released", exc.exit_code)
        except DreamtuiError as exc:
            fail(str(exc), exc.exit_code)
        except BrokenPipeError:
            # The reader went away (`dreamtui review show | head`): what it wanted it has, and a
            # message would only land on the pipe's stderr. Python's own advice: point stdout at
            # devnull so the flush at exit cannot fail a second time.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_FAILED)
        except OSError as exc:
            # A full disk or a vanished folder outside the journaled paths: the operation did
            # not happen, and saying which file and why is all a person can act on.
            where = f" ({exc.filename})" if exc.filename else ""
            fail(f"{exc.strerror or exc}{where}; nothing further was done", EXIT_FAILED)

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
  4  the workspace is busy: another process holds its lock (nothing done; try again)
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

