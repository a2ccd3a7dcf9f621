"""Our diff widget: difflib hunks drawn with the Line API, wrapped to the width, theme coloured."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from dreamtui.safety.marks import display_text
from dreamtui.tui.diffing import DiffLine, diff_lines
from dreamtui.tui.widgets.render import text_strip

_SIGN = {"hunk": "", "context": " ", "added": "+", "removed": "-"}


class DiffView(ScrollView, can_focus=True):
    """Shows `before` → `after`; a None side counts as empty (a create, or a note-only change)."""

    COMPONENT_CLASSES = {
        "diff--hunk", "diff--context", "diff--added", "diff--removed",
        "diff--added-word", "diff--removed-word", "diff--empty",
    }
    DEFAULT_CSS = """
    DiffView {
        overflow-x: hidden;
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
        & > .diff--hunk { color: $diff-hunk; text-style: bold; }
        & > .diff--context { color: $diff-context; }
        & > .diff--added { color: $diff-added; background: $diff-added-bg; }
        & > .diff--removed { color: $diff-removed; background: $diff-removed-bg; }
        & > .diff--added-word { background: $diff-added-word-bg; text-style: bold; }
        & > .diff--removed-word { background: $diff-removed-word-bg; text-style: bold; }
        & > .diff--empty { color: $muted; text-style: italic; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[DiffLine] = []
        self._empty_text = ""
        self._strips: list[Strip] = []
        self._strips_width = -1

    def show(self, before: str | None, after: str | None, *, empty_text: str = "no change to show") -> None:
        # Marked text is shown with its hidden characters made visible (safety.display_text).
        self._lines = diff_lines(None if before is None else display_text(before),
                                 None if after is None else display_text(after))
        self._empty_text = empty_text
        self._invalidate()
        self.scroll_to(y=0, animate=False, force=True)

    @property
    def lines(self) -> list[DiffLine]:
        return self._lines

    def _invalidate(self) -> None:
        self._strips_width = -1
        self._build()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips_width = -1  # the theme changed: colours are baked into the strips

    def on_resize(self) -> None:
        self._build()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def _line_text(self, line: DiffLine) -> Text:
        if line.kind == "hunk":
            return Text(line.text, style=self._style("diff--hunk"))
        text = Text(f"{_SIGN[line.kind]} {line.text}", style=self._style(f"diff--{line.kind}"))
        if line.kind in ("added", "removed"):
            word = self._style(f"diff--{line.kind}-word")
            for start, end in line.spans:
                text.stylize(word, start + 2, end + 2)
        return text

    def _build(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._strips_width:
            return
        base = self.rich_style
        console = self.app.console
        strips: list[Strip] = []
        if not self._lines:
            strips.append(self._strip(Text(self._empty_text, style=self._style("diff--empty")), width, base))
        for line in self._lines:
            text = self._line_text(line)
            # Each wrapped part keeps the line's style, so a changed line's background spans
            # the whole width, padding included.
            strips.extend(self._strip(part, width, base) for part in text.wrap(console, width, overflow="fold"))
        self._strips = strips
        self._strips_width = width
        self.virtual_size = Size(width, len(strips))

    def _strip(self, text: Text, width: int, base: Style) -> Strip:
        return text_strip(text, width, self.app.console, base)

    def render_line(self, y: int) -> Strip:
        if self._strips_width != self.scrollable_content_region.width:
            self._build()
        index = round(self.scroll_offset.y) + y
        if index < len(self._strips):
            return self._strips[index]
        return Strip.blank(self.size.width, self.rich_style)
