"""A failed job's message in a modal: what was being done and why it failed, never a traceback."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from dreamtui.tui import keys


class ErrorScreen(ModalScreen[None]):
    BINDINGS = keys.bindings(keys.CLOSE)

    def __init__(self, what: str, message: str) -> None:
        super().__init__()
        self.problems: list[tuple[str, str]] = [(what, message)]

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box", classes="modal-box"):
            yield Label("Something went wrong", classes="modal-title")
            with VerticalScroll():
                yield Static(self._text(), id="error-message")
            yield Label("esc / enter close", classes="modal-keys")

    def _text(self) -> Text:
        text = Text()
        for number, (what, message) in enumerate(self.problems):
            if number:
                text.append("\n\n")
            text.append(f"{what}:\n", "bold")
            text.append(message)  # a Text, not markup: messages quote file contents
        return text

    def add(self, what: str, message: str) -> None:
        self.problems.append((what, message))
        self.query_one("#error-message", Static).update(self._text())

    def action_dismiss_screen(self) -> None:
        self.dismiss()
