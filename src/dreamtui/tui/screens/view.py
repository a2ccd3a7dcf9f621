"""What the five views share: the view bar, the footer, and reloading after a commit."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from dreamtui.tui.widgets.view_bar import ViewBar

if TYPE_CHECKING:
    from dreamtui.tui.app import DreamtuiApp
    from dreamtui.tui.backend import Backend


class ViewScreen(Screen[None]):
    VIEW: ClassVar[str]

    def __init__(self) -> None:
        super().__init__()
        self.loaded_version = -1

    @property
    def dreamtui(self) -> DreamtuiApp:
        return cast("DreamtuiApp", self.app)

    @property
    def backend(self) -> Backend:
        return self.dreamtui.backend

    def compose(self) -> ComposeResult:
        yield ViewBar(self.dreamtui.workspace.root.name, self.VIEW)
        yield from self.compose_view()
        yield Footer()

    def compose_view(self) -> ComposeResult:
        """The view's own widgets, between the view bar and the footer."""
        raise NotImplementedError

    def load(self) -> None:
        """Start the jobs that (re)load the view's data; results arrive as messages."""
        self.loaded_version = self.dreamtui.data_version
        self.start_loading()

    def start_loading(self) -> None:
        raise NotImplementedError

    def on_mount(self) -> None:
        self.load()

    def on_screen_resume(self) -> None:
        if self.is_mounted and self.loaded_version not in (-1, self.dreamtui.data_version):
            self.load()
