"""A line-API list that renders only the visible rows (Toolong style), generic over its row type.

Rows come either from an in-memory sequence or from a loader that fetches pages by offset. Pages
are fetched in thread workers into an LRU cache; `render_line` reads only the cache and draws a
placeholder row for a page still on its way, so moving the cursor never waits on I/O. A subclass
names its row type (`VirtualList[Memory]`) and draws one row in `render_row`, so owners get typed
rows back from `current`, `row_at` and `CursorMoved` without checking what they hold.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Generic, TypeVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from dreamtui.tui import keys
from dreamtui.tui.jobs import JobFailed, run_job
from dreamtui.tui.widgets.render import text_strip

RowT = TypeVar("RowT")
MovedRowT = TypeVar("MovedRowT")  # CursorMoved's own: a nested class cannot reuse its owner's
Loader = Callable[[int, int], Sequence[RowT]]  # (offset, limit) -> rows; runs in a thread
MAX_INFLIGHT = 3  # page fetches at once; the store serialises them anyway


@dataclass
class PageLoaded(Generic[RowT], Message):
    generation: int
    page: int
    rows: Sequence[RowT]


class VirtualList(Generic[RowT], ScrollView, can_focus=True):
    """Subclasses implement `render_row`; owners call `show_rows` or `show_pages`."""

    BINDINGS = keys.bindings(keys.LIST)
    COMPONENT_CLASSES = {"virtual-list--cursor", "virtual-list--placeholder", "virtual-list--empty"}
    DEFAULT_CSS = """
    VirtualList {
        overflow-x: hidden;
        overflow-y: auto;
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
        & > .virtual-list--cursor { background: $block-cursor-blurred-background; }
        &:focus > .virtual-list--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: bold;
        }
        & > .virtual-list--placeholder { color: $muted; }
        & > .virtual-list--empty { color: $muted; text-style: italic; }
    }
    """

    @dataclass
    class CursorMoved(Generic[MovedRowT], Message):
        """The cursor is on `row` (None while its page is loading, or when the list is empty)."""

        source: VirtualList[MovedRowT]
        index: int
        row: MovedRowT | None

        @property
        def control(self) -> VirtualList[MovedRowT]:
            return self.source

    def __init__(self, *, page_size: int = 200, max_pages: int = 64, empty_text: str = "nothing here",
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.page_size = page_size
        self.max_pages = max_pages
        self.empty_text = empty_text
        self.cursor = 0
        self._total = 0
        self._rows: Sequence[RowT] | None = ()
        self._loader: Loader[RowT] | None = None
        self._pages: OrderedDict[int, Sequence[RowT]] = OrderedDict()
        self._inflight: set[int] = set()
        self._generation = 0
        self._failed = False
        self._fetch_scheduled = False

    # -- what the owner calls -----------------------------------------------------------------

    @property
    def total(self) -> int:
        return self._total

    def show_rows(self, rows: Sequence[RowT], *, cursor: int | None = None) -> None:
        """Show an in-memory sequence (rendered lazily, so 10,000 rows cost nothing up front)."""
        self._reset(len(rows), cursor)
        self._rows = rows
        self._loader = None
        self._announce()

    def show_pages(self, total: int, loader: Loader[RowT], first_page: Sequence[RowT] = (),
                   *, cursor: int | None = None) -> None:
        """Show `total` rows fetched by `loader`; `first_page` (offset 0) spares one round trip."""
        self._reset(total, cursor)
        self._rows = None
        self._loader = loader
        if first_page:
            self._pages[0] = first_page
        self._announce()

    def row_at(self, index: int) -> RowT | None:
        """The row if it is at hand; otherwise None, and its page is requested."""
        if not 0 <= index < self._total:
            return None
        if self._rows is not None:
            return self._rows[index]
        page, slot = divmod(index, self.page_size)
        rows = self._pages.get(page)
        if rows is None:
            self._schedule_fetch()
            return None
        self._pages.move_to_end(page)
        return rows[slot] if slot < len(rows) else None

    @property
    def current(self) -> RowT | None:
        return self.row_at(self.cursor)

    def move_cursor(self, index: int) -> None:
        index = max(0, min(index, self._total - 1)) if self._total else 0
        self.cursor = index
        self._scroll_cursor_into_view()
        self.refresh()
        self._announce()

    # -- internals ------------------------------------------------------------------------------

    def _reset(self, total: int, cursor: int | None) -> None:
        self._generation += 1
        self._pages.clear()
        self._inflight.clear()
        self._failed = False
        self._total = total
        self.cursor = max(0, min(self.cursor if cursor is None else cursor, total - 1)) if total else 0
        self.virtual_size = Size(1, total)
        self._scroll_cursor_into_view()
        self.refresh()

    def _announce(self) -> None:
        self.post_message(self.CursorMoved(self, self.cursor, self.row_at(self.cursor)))

    def _viewport_height(self) -> int:
        return max(1, self.scrollable_content_region.height)

    def _scroll_cursor_into_view(self) -> None:
        top = round(self.scroll_offset.y)
        height = self._viewport_height()
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, force=True)

    def _schedule_fetch(self) -> None:
        # render_line must stay free of side effects; fetches start after the frame is drawn.
        if not self._fetch_scheduled and self._loader is not None and not self._failed:
            self._fetch_scheduled = True
            self.call_after_refresh(self._fetch_missing)

    def _fetch_missing(self) -> None:
        """Fetch the pages of the viewport and of one screen either side of it (prefetch)."""
        self._fetch_scheduled = False
        loader = self._loader
        if loader is None or self._failed or not self._total:
            return
        height = self._viewport_height()
        top = round(self.scroll_offset.y)
        first = max(0, top - height) // self.page_size
        last = min(self._total - 1, top + 2 * height) // self.page_size
        visible = range(top // self.page_size, min(self._total - 1, top + height) // self.page_size + 1)
        wanted = [*visible, *(p for p in range(first, last + 1) if p not in visible)]
        for page in wanted:
            if len(self._inflight) >= MAX_INFLIGHT:
                break
            if page in self._pages or page in self._inflight:
                continue
            self._inflight.add(page)
            run_job(self, partial(loader, page * self.page_size, self.page_size),
                    partial(PageLoaded, self._generation, page), what="loading rows", group="pages")

    def on_page_loaded(self, message: PageLoaded[RowT]) -> None:
        message.stop()
        if message.generation != self._generation:
            return  # the filter changed while this page was on its way
        self._inflight.discard(message.page)
        self._pages[message.page] = message.rows
        while len(self._pages) > self.max_pages:
            self._pages.popitem(last=False)
        self.refresh()
        if self.cursor // self.page_size == message.page:
            self._announce()
        self._schedule_fetch()

    def on_job_failed(self, message: JobFailed) -> None:
        # Let it bubble to the app's error modal, but stop asking for pages until the next reset,
        # or every frame would repeat the failing query.
        self._failed = True
        self._inflight.clear()

    def part(self, component: str) -> Style:
        """A component's own style only: row parts must not repaint the cursor's background."""
        return self.get_component_rich_style(component, partial=True)

    def render_row(self, row: RowT, index: int, width: int) -> Text:
        """One row as styled text; subclasses pick columns and colours."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        index = round(self.scroll_offset.y) + y
        if index >= self._total:
            if index == 0 and self.empty_text:
                text = Text(" " + self.empty_text, style=self.part("virtual-list--empty"))
                return self._strip(text, width, base, None)
            return Strip.blank(width, base)
        row = self.row_at(index)
        if row is None:
            text = Text(" …", style=self.part("virtual-list--placeholder"))
        else:
            text = self.render_row(row, index, width)
        cursor = self.part("virtual-list--cursor") if index == self.cursor else None
        return self._strip(text, width, base, cursor)

    def _strip(self, text: Text, width: int, base: Style, cursor: Style | None) -> Strip:
        layers = (base, cursor) if cursor is not None else (base,)
        return text_strip(text, width, self.app.console, *layers)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._loader is not None:
            self._schedule_fetch()

    # -- keys and mouse -------------------------------------------------------------------------

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor - 1)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor + self._viewport_height())

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor - self._viewport_height())

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self._total - 1)

    def on_click(self, event: events.Click) -> None:
        self.move_cursor(round(self.scroll_offset.y) + event.y)
