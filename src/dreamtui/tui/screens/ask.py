"""A yes/no question before a change that is not a simple toggle (archiving an entry)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from dreamtui.tui import keys


class AskScreen(ModalScreen[bool]):
    BINDINGS = keys.bindings(keys.CONFIRM)

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Label(Text(self.question), classes="modal-title")
            if self.detail:
                yield Static(Text(self.detail))
            yield Label("y / enter yes    n / esc no", classes="modal-keys")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_dismiss_screen(self) -> None:
        self.dismiss(False)
