"""`?` — the keys of the current view, as remapped by `ui.keymap`, then the keys every view has,
then what the marks in the lists mean (the decision glyphs come from the vocabulary, the queue's
from its list, so the legend cannot drift from what the rows show)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from dreamtui.tui import keys
from dreamtui.tui.widgets.memory_list import STATE_GLYPH
from dreamtui.vocabulary import UNDECIDED_GLYPH, Decision

if TYPE_CHECKING:
    from dreamtui.tui.app import DreamtuiApp


def legend() -> list[tuple[str, list[tuple[str, str]]]]:
    """(where, [(mark, meaning)]) for every mark a list row shows."""
    decisions = [(d.glyph, d.past) for d in Decision] + [(UNDECIDED_GLYPH, "undecided")]
    return [
        ("Dream proposals", [*decisions, ("⚠", "safety marks: suspicious text, decide it yourself"),
                             ("⚑n", "flags behind a weaken"), ("(+n)", "confirmations it adds")]),
        ("Memory entries", [("◆", "pinned: dreams only reinforce it or ask"),
                            ("⚑n", "flags it holds"), ("✓n", "confirmations counted")]),
        ("Queue memories", [*((glyph, state) for state, glyph in STATE_GLYPH.items()),
                            ("⚠", "safety marks")]),
    ]


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
            # The marks legend sits below the keys, out of sight in a short terminal: say so.
            yield Label("↓ End: what the marks mean · remap a key: ui.keymap {<id>: <key>}",
                        classes="modal-keys")

    def _keys(self, action: keys.Action) -> str:
        app = cast("DreamtuiApp", self.app)
        bound = app.keymap.get(action.id, action.keys)
        if action.key_display and action.id not in app.keymap:
            return action.key_display
        return " ".join(app.get_key_display(Binding(key.strip(), "")) for key in bound.split(","))

    def _section(self, text: Text, title: str, actions: tuple[keys.Action, ...], width: int) -> None:
        text.append(f"{title}\n", "bold")
        for action in actions:
            text.append(f"  {self._keys(action):<16}", "bold")
            text.append(f"{action.description:<{width}}")
            text.append(f"{action.id}\n", "dim")
        text.append("\n")

    def _text(self) -> Text:
        text = Text()
        sections = [("Everywhere", keys.GLOBAL)]
        if self.view is not None:
            sections[:0] = [(dict(keys.VIEWS)[self.view], keys.VIEW_ACTIONS[self.view]), ("Lists", keys.LIST)]
        # One column for every section, two spaces past the longest description, so an id never
        # runs into the words before it ("route (where the lesson goes)dream.route").
        width = 2 + max(len(action.description) for _, actions in sections for action in actions)
        for title, actions in sections:
            self._section(text, title, actions, width)
        text.append("Marks\n", "bold")
        for where, marks in legend():
            text.append(f"  {where}: ", "dim")
            text.append("  ".join(f"{mark} {meaning}" for mark, meaning in marks) + "\n")
        return text

    def action_dismiss_screen(self) -> None:
        self.dismiss()
