"""Rich Text → one Strip of exactly `width` cells, layered over the widget's own style."""

from __future__ import annotations

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.strip import Strip


def text_strip(text: Text, width: int, console: Console, *layers: Style) -> Strip:
    """`layers` go under the text's own style and spans (base first, e.g. widget then cursor)."""
    text.truncate(width, overflow="ellipsis", pad=True)
    style = Style()
    for layer in layers:
        style += layer
    # Text.render leaves out `text.style` when the text has no spans, so it is applied here,
    # under the segments, with the layers below it.
    style += console.get_style(text.style)
    return Strip(text.render(console), width).apply_style(style)
