"""A memory in full: header, tags, safety marks, content (hidden characters shown), metadata."""

from __future__ import annotations

import json
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from dreamtui.model import Memory
from dreamtui.safety.marks import display_text
from dreamtui.tui.formatting import ago, stamp


def memory_text(memory: Memory, now: datetime) -> Text:
    """Rich text built piece by piece: memory text is untrusted and must never be parsed as markup."""
    text = Text()
    text.append(memory.title or "(untitled)", "bold")
    text.append(f"\n{memory.type} · {memory.state} · {memory.agent_id} · "
                f"{stamp(memory.submitted_at)} ({ago(memory.submitted_at, now)})", "dim")
    if memory.tags:
        text.append(f"\ntags: {', '.join(memory.tags)}", "dim")
    if memory.safety:
        text.append(f"\n⚠ {', '.join(memory.safety)}", "bold")
    text.append("\n\n")
    text.append(display_text(memory.content))
    if memory.metadata:
        text.append("\n\n")
        for key, value in memory.metadata.items():
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            text.append(f"{key}: ", "dim")
            text.append(f"{display_text(shown)}\n")
    text.append(f"\nid {memory.id}", "dim")
    return text


class MemoryDetail(VerticalScroll):
    DEFAULT_CSS = """
    MemoryDetail { background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="memory-detail-body")

    def show(self, memory: Memory | None, now: datetime, *, placeholder: str = "…") -> None:
        body = self.query_one("#memory-detail-body", Static)
        body.update(memory_text(memory, now) if memory is not None else Text(placeholder, "dim"))
        self.scroll_home(animate=False)
