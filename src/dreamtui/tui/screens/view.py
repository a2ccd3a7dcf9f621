"""What the five views share: the view bar, the footer, reloading after a commit, and the
typing pause of a filter box."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import ComposeResult
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer

from dreamtui.tui.widgets.view_bar import ViewBar

if TYPE_CHECKING:
    from dreamtui.tui.app import DreamtuiApp
    from dreamtui.tui.backend import Backend


class ViewScreen(Screen[None]):
    VIEW: ClassVar[str]
    # Seconds of typing pause before a filter applies; the tests set 0, so nothing waits.
    FILTER_DELAY: ClassVar[float] = 0.2

    def __init__(self) -> None:
        super().__init__()
        self.loaded_version = -1
        self._filter_timer: Timer | None = None

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

    def after_typing(self, apply: Callable[[], None]) -> None:
        """Run `apply` once typing has paused for FILTER_DELAY (a newer keystroke starts over)."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if self.FILTER_DELAY > 0:
            self._filter_timer = self.set_timer(self.FILTER_DELAY, apply)
        else:
            apply()  # Textual's timers take no zero delay
