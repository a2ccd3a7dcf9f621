"""The top line of every view: the workspace's name and the five views, the active one marked."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from dreamtui.tui.keys import VIEWS


class ViewTab(Label):
    def __init__(self, number: int, view: str, title: str, active: bool) -> None:
        super().__init__(f" {number} {title} ", classes="view-tab -active" if active else "view-tab")
        self.view = view

    async def on_click(self, event: events.Click) -> None:
        event.stop()
        await self.run_action(f"app.switch_view('{self.view}')")


class ViewBar(Horizontal):
    DEFAULT_CSS = """
    ViewBar {
        height: 1;
        background: $panel;
        & > #view-title { width: 1fr; color: $text; text-style: bold; padding: 0 1; }
        & > .view-tab { color: $text-muted; }
        & > .view-tab.-active { background: $primary; color: $text; text-style: bold; }
    }
    """

    def __init__(self, workspace_name: str, active: str) -> None:
        super().__init__()
        self.workspace_name = workspace_name
        self.active = active

    def compose(self) -> ComposeResult:
        # The folder's name, not its path: a path names the host's layout (and changes per test run).
        yield Label(Text(f"dreamtui · {self.workspace_name}"), id="view-title")
        for number, (view, title) in enumerate(VIEWS, start=1):
            yield ViewTab(number, view, title, view == self.active)
