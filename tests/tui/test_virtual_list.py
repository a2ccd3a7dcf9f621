"""The paged list: the cursor never waits for a page, pages come from workers into a bounded LRU."""

from __future__ import annotations

import threading
import time

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult

from dreamtui.tui.themes import DEFAULT_THEME, load_themes
from dreamtui.tui.widgets.virtual_list import VirtualList

TOTAL = 100_000


class Numbers(VirtualList[int | str]):
    def render_row(self, row: int | str, index: int, width: int) -> Text:
        return Text(f"row {row}")


class ListApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.fetched: list[int] = []
        self.moves: list[int] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(load_themes()[DEFAULT_THEME].variables)  # the widget's CSS names them

    def compose(self) -> ComposeResult:
        yield Numbers(page_size=200, max_pages=4)

    def load(self, offset: int, limit: int) -> list[int]:
        self.release.wait(10)  # a slow database: pages arrive only when the test allows
        self.fetched.append(offset)
        return list(range(offset, min(TOTAL, offset + limit)))

    def on_virtual_list_cursor_moved(self, message: VirtualList.CursorMoved) -> None:
        self.moves.append(message.index)


def visible(widget: VirtualList, y: int) -> str:
    return "".join(segment.text for segment in widget.render_line(y)).strip()


async def test_cursor_moves_while_pages_are_still_loading() -> None:
    app = ListApp()
    async with app.run_test(size=(40, 12)) as pilot:
        numbers = app.query_one(Numbers)
        numbers.show_pages(TOTAL, app.load)
        numbers.focus()
        await pilot.pause()
        assert visible(numbers, 0) == "…"  # a placeholder, not a wait
        # Posted at once, as key repeat sends them: Pilot's press would wait for idle after each.
        started = time.perf_counter()
        for key in [*["pagedown"] * 50, "end"]:
            app.post_message(events.Key(key, None))
        while numbers.cursor != TOTAL - 1 and time.perf_counter() - started < 5:
            await pilot.pause()
        assert numbers.cursor == TOTAL - 1
        app.release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        top = round(numbers.scroll_offset.y)
        assert visible(numbers, numbers.cursor - top) == f"row {TOTAL - 1}"
        # Only the pages around what was on screen were fetched, never the whole table.
        assert len(app.fetched) <= 12
        assert len(numbers._pages) <= numbers.max_pages


async def test_a_page_for_an_old_filter_is_dropped() -> None:
    app = ListApp()
    async with app.run_test(size=(40, 12)) as pilot:
        numbers = app.query_one(Numbers)
        numbers.show_pages(TOTAL, app.load)
        await pilot.pause()
        numbers.show_rows(["a", "b"])  # the filter changed before the slow page came back
        app.release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert numbers.total == 2
        assert visible(numbers, 0) == "row a"
        assert app.moves[-1] == 0
