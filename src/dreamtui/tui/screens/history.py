"""5 History — the LOG.md decisions beside the workspace's git log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from dreamtui.safety.marks import display_text
from dreamtui.tui import keys
from dreamtui.tui.backend import HistoryData
from dreamtui.tui.formatting import age, parse_iso
from dreamtui.tui.jobs import run_job
from dreamtui.tui.screens.view import ViewScreen
from dreamtui.tui.widgets.virtual_list import VirtualList


@dataclass
class HistoryLoaded(Message):
    data: HistoryData


class LogList(VirtualList[str]):
    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {"log-list--time", "log-list--human"}
    DEFAULT_CSS = """
    LogList {
        & > .log-list--time { color: $muted; }
        & > .log-list--human { color: $accent; }
    }
    """

    def render_row(self, row: str, index: int, width: int) -> Text:
        # `- 2026-11-29T03:00:12Z reinforce topics/x.md (+2 confirmations) [dream d-…]`
        time, _, rest = row.removeprefix("- ").partition(" ")
        text = Text(no_wrap=True)
        text.append(time.replace("T", " ").removesuffix("Z")[:16] + " ", self.part("log-list--time"))
        text.append(display_text(rest), self.part("log-list--human") if rest.endswith("[human]") else "")
        return text


class CommitList(VirtualList[dict[str, Any]]):
    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {"commit-list--sha"}
    DEFAULT_CSS = """
    CommitList > .commit-list--sha { color: $diff-hunk; }
    """

    def __init__(self, clock: Callable[[], datetime], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.clock = clock

    def render_row(self, row: dict[str, Any], index: int, width: int) -> Text:
        text = Text(no_wrap=True)
        text.append(f"{str(row['short'])[:8]} ", self.part("commit-list--sha"))
        text.append(f"{age(parse_iso(row.get('date')), self.clock()):>4} ")
        text.append(display_text(str(row.get("summary", ""))))
        return text


class HistoryScreen(ViewScreen):
    VIEW = "history"
    BINDINGS = keys.bindings(keys.HISTORY)

    def compose_view(self) -> ComposeResult:
        yield Static("history …", id="history-status", classes="status-line")
        with Horizontal(classes="panes"):
            yield LogList(id="history-log", empty_text="no decisions logged yet", classes="pane-left")
            with Vertical(classes="pane-right", id="history-git"):
                yield CommitList(self.dreamtui.clock, id="history-commits", empty_text="no commits")
                yield Static(id="history-commit-message")

    def on_mount(self) -> None:
        self.query_one(LogList).focus()
        self.query_one("#history-log").border_title = "LOG.md decisions"
        self.query_one("#history-git").border_title = "git log"

    def start_loading(self) -> None:
        run_job(self, self.backend.history, HistoryLoaded, what="reading the history", group="history",
                exclusive=True)

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        data = message.data
        self.query_one(LogList).show_rows(data.log)
        commits = self.query_one(CommitList)
        commits.empty_text = data.git_note or "no commits"
        commits.show_rows(data.commits)
        self.query_one("#history-status", Static).update(Text(
            f"{len(data.log):,} decisions in LOG.md · {len(data.commits):,} git commits"
            + (f" · {data.git_note}" if data.git_note else "")))

    @on(VirtualList.CursorMoved, "#history-commits")
    def _commit_highlighted(self, message: VirtualList.CursorMoved[dict[str, Any]]) -> None:
        row = message.row
        self.query_one("#history-commit-message", Static).update(
            Text(display_text(str(row.get("message", "")).strip())) if row else "")

    def action_switch_pane(self) -> None:
        target = self.query_one(CommitList) if self.query_one(LogList).has_focus else self.query_one(LogList)
        target.focus()

    def action_reload(self) -> None:
        self.load()
