"""Small pickers: the engine for a new dream, and a proposal's evidence memories."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static

from dreamtui.model import ROUTES, Memory
from dreamtui.tui import keys
from dreamtui.tui.widgets.memory_detail import memory_text


class EnginePickScreen(ModalScreen[str | None]):
    """The configured engine comes first, highlighted: enter starts the usual dream."""

    BINDINGS = keys.bindings(keys.CANCEL)

    def __init__(self, engines: list[str]) -> None:
        super().__init__()
        self.engines = engines

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box", id="engine-box"):
            yield Label("Start a dream with which engine?", classes="modal-title")
            yield OptionList(*self.engines, id="engine-options")
            yield Label("enter start    esc cancel", classes="modal-keys")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.engines[event.option_index])

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)


class RoutePickScreen(ModalScreen[str | None]):
    """Where a proposal's lesson goes (vocabulary.Route), its current route highlighted."""

    BINDINGS = keys.bindings(keys.CANCEL)

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box", id="route-box"):
            yield Label("Send this lesson where?", classes="modal-title")
            yield OptionList(*(f"{route:<10} {ROUTE_HELP[route]}" for route in ROUTES),
                             id="route-options")
            yield Label("enter choose    esc cancel", classes="modal-keys")

    def on_mount(self) -> None:
        if self.current in ROUTES:
            self.query_one(OptionList).highlighted = ROUTES.index(self.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(ROUTES[event.option_index])

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)


# One line each, as the picker shows them (vocabulary.Route says the same at more length).
ROUTE_HELP = {
    "memory": "long-term memory only: searchable, not in AGENTS.md",
    "bundle": "AGENTS.md, read by every agent session",
    "skill": "a SKILL.md in context/skills/ and the project's .claude/skills/",
    "decisions": "appended to the project's DECISIONS.md (never edited)",
    "person": "a question for you, written into no agent's context",
}


class EvidenceScreen(ModalScreen[None]):
    BINDINGS = keys.bindings(keys.CLOSE)

    def __init__(self, memories: list[Memory], missing: int, now: datetime) -> None:
        super().__init__()
        self.memories = memories
        self.missing = missing
        self.now = now

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box", id="evidence-box"):
            yield Label(f"Evidence — {len(self.memories)} memor{'y' if len(self.memories) == 1 else 'ies'}",
                        classes="modal-title")
            with VerticalScroll():
                for memory in self.memories:
                    yield Static(memory_text(memory, self.now), classes="evidence-memory")
                if self.missing:
                    yield Static(Text(f"{self.missing} no longer in the queue (purged)", "dim"))
            yield Label("esc close", classes="modal-keys")

    def action_dismiss_screen(self) -> None:
        self.dismiss()
