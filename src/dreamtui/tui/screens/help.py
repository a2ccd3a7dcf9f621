"""`?` — the keys of the current view, as remapped by `ui.keymap`, then the keys every view has."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from dreamtui.tui import keys

if TYPE_CHECKING:
    from dreamtui.tui.app import DreamtuiApp


class HelpScreen(ModalScreen[None]):
    BINDINGS = keys.bindings(keys.CLOSE)

    def __init__(self, view: str | None) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        titles = dict(keys.VIEWS)
        with Vertical(id="help-box", classes="modal-box"):
            yield Label(f"Keys — {titles.get(self.view or '', 'dreamtui')}", classes="modal-title")
            with VerticalScroll():
                yield Static(self._text(), id="help-keys")
            yield Label("remap any key in dreamtui.yaml: ui.keymap: {<id>: <key>}", classes="modal-keys")

    def _keys(self, action: keys.Action) -> str:
        app = cast("DreamtuiApp", self.app)
        bound = app.keymap.get(action.id, action.keys)
        if action.key_display and action.id not in app.keymap:
            return action.key_display
        return " ".join(app.get_key_display(Binding(key.strip(), "")) for key in bound.split(","))

    def _section(self, text: Text, title: str, actions: tuple[keys.Action, ...]) -> None:
        text.append(f"{title}\n", "bold")
        for action in actions:
            text.append(f"  {self._keys(action):<16}", "bold")
            text.append(f"{action.description:<26}")
            text.append(f"{action.id}\n", "dim")
        text.append("\n")

    def _text(self) -> Text:
        text = Text()
        if self.view is not None:
            self._section(text, dict(keys.VIEWS)[self.view], keys.VIEW_ACTIONS[self.view])
            self._section(text, "Lists", keys.LIST)
        self._section(text, "Everywhere", keys.GLOBAL)
        return text

    def action_dismiss_screen(self) -> None:
        self.dismiss()
