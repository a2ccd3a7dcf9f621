"""The Queue's rows: state, safety mark, type, title, agent and age of each STM memory."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rich.text import Text

from dreamtui.model import Memory
from dreamtui.tui.formatting import age, fit, type_short
from dreamtui.tui.widgets.virtual_list import VirtualList

STATE_GLYPH = {"pending": "●", "claimed": "◐", "consumed": "○"}


class MemoryList(VirtualList[Memory]):
    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {
        "memory-list--pending", "memory-list--claimed", "memory-list--consumed",
        "memory-list--safety", "memory-list--type", "memory-list--feedback", "memory-list--meta",
    }
    DEFAULT_CSS = """
    MemoryList {
        & > .memory-list--pending { color: $status-pending; }
        & > .memory-list--claimed { color: $status-claimed; }
        & > .memory-list--consumed { color: $status-consumed; }
        & > .memory-list--safety { color: $safety-mark; text-style: bold; }
        & > .memory-list--type { color: $muted; }
        & > .memory-list--feedback { color: $flagged; }
        & > .memory-list--meta { color: $muted; }
    }
    """

    def __init__(self, clock: Callable[[], datetime], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.clock = clock

    def render_row(self, row: Memory, index: int, width: int) -> Text:
        style = self.part
        now = self.clock()
        agent_width = 12 if width >= 70 else 0
        title_width = max(8, width - 2 - 2 - 9 - agent_width - 5)
        text = Text(no_wrap=True)
        text.append(STATE_GLYPH[row.state], style(f"memory-list--{row.state}"))
        text.append(" ⚠" if row.safety else "  ", style("memory-list--safety"))
        type_style = style("memory-list--feedback" if row.is_feedback else "memory-list--type")
        text.append(f" {type_short(row.type):<8}", type_style)
        text.append(f" {fit(row.title, title_width - 1):<{title_width - 1}}")
        if agent_width:
            text.append(f" {fit(row.agent_id, agent_width - 1):<{agent_width - 1}}", style("memory-list--meta"))
        text.append(f" {age(row.submitted_at, now):>4}", style("memory-list--meta"))
        return text
