"""The one place the CLI reaches into the TUI package, imported only when the app opens."""

from __future__ import annotations

import sys

from dreamtui.errors import DreamtuiError
from dreamtui.workspace.layout import Workspace


class NoTerminal(DreamtuiError):
    """The workbench was asked for where no person can see it (cron, a pipe): exit 2."""


def require_terminal(headless_example: str = "dreamtui --headless dream") -> None:
    # Without a terminal on both ends Textual waits for keys that never come: a cron line that
    # forgot --headless would hang every night instead of saying so once.
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise NoTerminal(f"no terminal: use --headless, e.g. `{headless_example}`")


def run_tui(workspace: Workspace, theme: str | None) -> None:
    require_terminal()
    from dreamtui.tui.app import create_app

    create_app(workspace, theme=theme).run()
