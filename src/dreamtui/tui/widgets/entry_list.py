"""LTM entries as list rows: pinned / flags / confirmations indicators, then the title."""

from __future__ import annotations

from rich.text import Text

from dreamtui.model import Entry
from dreamtui.tui.formatting import fit
from dreamtui.tui.widgets.virtual_list import VirtualList


class EntryList(VirtualList[Entry]):
    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {
        "entry-list--pinned", "entry-list--flagged", "entry-list--confirmed", "entry-list--archived",
    }
    DEFAULT_CSS = """
    EntryList {
        & > .entry-list--pinned { color: $pinned; text-style: bold; }
        & > .entry-list--flagged { color: $flagged; }
        & > .entry-list--confirmed { color: $confirmed; }
        & > .entry-list--archived { color: $muted; }
    }
    """

    def render_row(self, row: Entry, index: int, width: int) -> Text:
        style = self.part
        text = Text(no_wrap=True)
        text.append("◆" if row.pinned else " ", style("entry-list--pinned"))
        text.append(f" ⚑{row.flags:<2}" if row.flags else "    ", style("entry-list--flagged"))
        text.append(f" ✓{row.confirmations:<2}" if row.confirmations else "    ",
                    style("entry-list--confirmed"))
        label = f" {row.slug}" + (" (archived)" if row.archived else "")
        text.append(fit(label, width - 9), style("entry-list--archived") if row.archived else "")
        return text
