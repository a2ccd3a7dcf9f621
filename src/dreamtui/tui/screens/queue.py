"""1 Queue — the STM queue, paged from SQL: counts, filter, type/state filter, sort, detail."""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import var
from textual.widgets import Input, Static

from dreamtui.model import FEEDBACK_TYPES, Memory
from dreamtui.tui import keys
from dreamtui.tui.backend import QueueQuery, QueueResult
from dreamtui.tui.jobs import run_job
from dreamtui.tui.screens.view import ViewScreen
from dreamtui.tui.widgets.memory_detail import MemoryDetail
from dreamtui.tui.widgets.memory_list import MemoryList
from dreamtui.tui.widgets.virtual_list import VirtualList

PAGE_SIZE = 200
STATES: tuple[str | None, ...] = (None, "pending", "claimed", "consumed")


@dataclass
class QueueLoaded(Message):
    result: QueueResult


@dataclass
class CountsLoaded(Message):
    counts: dict[str, int]


class QueueScreen(ViewScreen):
    VIEW = "queue"
    BINDINGS = keys.bindings(keys.QUEUE)

    # The status line follows these; set after every load, since it also describes the query.
    counts: var[dict[str, int] | None] = var(None, init=False, always_update=True)
    shown: var[int | None] = var(None, init=False, always_update=True)

    def __init__(self) -> None:
        super().__init__()
        self.query_state = QueueQuery()

    def compose_view(self) -> ComposeResult:
        with Horizontal(id="queue-status", classes="status-line"):
            yield Static("STM …", id="queue-counts")
            yield Input(placeholder="/ to filter", id="queue-filter")
        with Horizontal(classes="panes"):
            yield MemoryList(self.dreamtui.clock, page_size=PAGE_SIZE, id="queue-list",
                             empty_text="no memories match", classes="pane-left")
            yield MemoryDetail(id="queue-detail", classes="pane-right")

    @property
    def memory_list(self) -> MemoryList:
        return self.query_one(MemoryList)

    def on_mount(self) -> None:
        self.memory_list.focus()
        self.memory_list.border_title = "queue"
        self.query_one(MemoryDetail).border_title = "memory"

    def start_loading(self) -> None:
        self._load_rows()
        run_job(self, self.backend.queue_counts, CountsLoaded, what="counting the queue", group="counts")

    def _load_rows(self) -> None:
        query = self.query_state
        run_job(self, lambda: self.backend.queue_first(query, PAGE_SIZE), QueueLoaded,
                what="reading the queue", group="queue", exclusive=True)

    def on_queue_loaded(self, message: QueueLoaded) -> None:
        result = message.result
        if result.query != self.query_state:
            return  # a newer filter is on its way
        query = result.query
        self.memory_list.show_pages(result.total, lambda offset, limit: self.backend.queue_page(query, offset, limit),
                                    result.first_page)
        self.shown = result.total

    def on_counts_loaded(self, message: CountsLoaded) -> None:
        self.counts = message.counts

    def watch_counts(self) -> None:
        self._show_status()

    def watch_shown(self) -> None:
        self._show_status()

    def _show_status(self) -> None:
        counts = self.counts
        totals = (f"STM  {counts['pending']:,} pending · {counts['claimed']:,} claimed · "
                  f"{counts['consumed']:,} consumed" if counts else "STM  counting…")
        shown = f"{self.shown:,} shown" if self.shown is not None else "reading…"
        self.query_one("#queue-counts", Static).update(f"{totals}  │  {shown} · {self._describe()}")

    def _describe(self) -> str:
        flt = self.query_state.filter
        parts = [flt.state or "all states", ", ".join(flt.types) or "all types",
                 "newest first" if self.query_state.newest_first else "oldest first"]
        return " · ".join(parts)

    def _requery(self, query: QueueQuery) -> None:
        self.query_state = query
        self.memory_list.move_cursor(0)
        self._load_rows()

    @on(VirtualList.CursorMoved, "#queue-list")
    def _memory_highlighted(self, message: VirtualList.CursorMoved[Memory]) -> None:
        self.query_one(MemoryDetail).show(message.row, self.dreamtui.clock(),
                                          placeholder="" if not message.source.total else "loading…")

    # -- filter, type, state, sort ------------------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#queue-filter", Input).focus()

    @on(Input.Changed, "#queue-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        text = event.value.strip() or None
        self.after_typing(lambda: self._requery(replace(self.query_state,
                                                        filter=replace(self.query_state.filter, text=text))))

    @on(Input.Submitted, "#queue-filter")
    def _filter_done(self) -> None:
        self.memory_list.focus()

    def action_back_to_list(self) -> None:
        """Esc: from the filter it clears the filter (Enter is the way to keep it), then the list."""
        field = self.query_one("#queue-filter", Input)
        if field.has_focus and field.value:
            field.value = ""  # Input.Changed requeries without the text
        self.memory_list.focus()

    def action_cycle_type(self) -> None:
        choices: list[tuple[str, ...]] = [(), *((t,) for t in self.dreamtui.workspace.config.memory_types),
                                          *((t,) for t in FEEDBACK_TYPES)]
        current = self.query_state.filter.types
        following = choices[(choices.index(current) + 1) % len(choices)] if current in choices else ()
        self._requery(replace(self.query_state, filter=replace(self.query_state.filter, types=following)))

    def action_cycle_state(self) -> None:
        current = self.query_state.filter.state
        following = STATES[(STATES.index(current) + 1) % len(STATES)]
        self._requery(replace(self.query_state, filter=replace(self.query_state.filter, state=following)))

    def action_toggle_sort(self) -> None:
        self._requery(replace(self.query_state, newest_first=not self.query_state.newest_first))
