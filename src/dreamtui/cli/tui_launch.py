"""The one place the CLI reaches into the TUI package, imported only when the app opens."""

from __future__ import annotations

from dreamtui.workspace.layout import Workspace


def run_tui(workspace: Workspace, theme: str | None) -> None:
    from dreamtui.tui.app import create_app

    create_app(workspace, theme=theme).run()
