"""2 Memory — LTM entries beside their text and provenance; pin, archive, restore and edit them.

Every action is a human decision that goes through the core's guarded commit path
(`commit_human_change`), which logs it to LOG.md and re-renders the bundle.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from dreamtui.errors import DreamtuiError
from dreamtui.model import Entry
from dreamtui.tui import keys
from dreamtui.tui.backend import LTMData, Sources
from dreamtui.tui.editor import edit_text
from dreamtui.tui.jobs import JobFailed, run_job
from dreamtui.tui.screens.ask import AskScreen
from dreamtui.tui.screens.view import ViewScreen
from dreamtui.tui.widgets.entry_list import EntryList
from dreamtui.tui.widgets.entry_view import entry_text, provenance_text
from dreamtui.tui.widgets.virtual_list import VirtualList


@dataclass
class EntriesLoaded(Message):
    data: LTMData


@dataclass
class SourcesLoaded(Message):
    sources: Sources


@dataclass
class TextMatched(Message):
    """The live entries whose text (body included) holds the filter's words, from the index."""

    words: list[str]
    paths: set[str]


@dataclass
class HumanChanged(Message):
    path: str
    op: str
    summary: str


def matches(entry: Entry, words: list[str]) -> bool:
    haystack = f"{entry.slug} {entry.title} {' '.join(entry.tags)}".casefold()
    return all(word in haystack for word in words)


class MemoryScreen(ViewScreen):
    VIEW = "memory"
    BINDINGS = keys.bindings(keys.MEMORY)
    FILTER_DELAY = 0.15  # filtering in memory: a shorter pause than the Queue's SQL query

    def __init__(self) -> None:
        super().__init__()
        self.data: LTMData | None = None
        self.shown: list[Entry] = []
        self.show_archived = False
        self.filter_words: list[str] = []
        self.text_matches: set[str] = set()  # paths the index finds for filter_words
        self.sources: Sources | None = None

    def compose_view(self) -> ComposeResult:
        with Horizontal(classes="status-line"):
            yield Static("LTM …", id="memory-counts")
            yield Input(placeholder="/ to filter", id="memory-filter")
        with Horizontal(classes="panes"):
            yield EntryList(id="memory-list", empty_text="no entries", classes="pane-left")
            with VerticalScroll(id="memory-entry", classes="pane-right"):
                yield Static(id="memory-entry-text")
            with VerticalScroll(id="memory-provenance", classes="pane-right"):
                yield Static(id="memory-provenance-text")

    def on_mount(self) -> None:
        self.query_one(EntryList).focus()
        self.query_one("#memory-entry").border_title = "entry"
        self.query_one("#memory-provenance").border_title = "provenance"

    def start_loading(self) -> None:
        run_job(self, self.backend.ltm_data, EntriesLoaded, what="reading LTM", group="ltm", exclusive=True)

    def on_entries_loaded(self, message: EntriesLoaded) -> None:
        self.data = message.data
        self._refilter()
        live = [e for e in self.data.entries if not e.archived]
        self.query_one("#memory-counts", Static).update(
            f"LTM  {len(live):,} live · {len(self.data.entries) - len(live):,} archived · "
            f"{sum(e.pinned for e in live):,} pinned · "
            f"{sum(1 for e in live if e.flags or self.data.flags(e.slug, pending_only=True)):,} flagged"
            + (f" · {len(self.data.problems)} unreadable" if self.data.problems else ""))

    def _refilter(self) -> None:
        if self.data is None:
            return
        current = self.current
        self.shown = [e for e in self.data.entries
                      if (self.show_archived or not e.archived)
                      and (matches(e, self.filter_words) or e.path in self.text_matches)]
        index = next((i for i, e in enumerate(self.shown) if current and e.path == current.path), None)
        self.query_one(EntryList).show_rows(self.shown, cursor=index)

    @property
    def current(self) -> Entry | None:
        return self.query_one(EntryList).current

    @on(VirtualList.CursorMoved, "#memory-list")
    def _entry_highlighted(self, message: VirtualList.CursorMoved[Entry]) -> None:
        entry = message.row
        if entry is None:
            self.query_one("#memory-entry-text", Static).update("")
            self.query_one("#memory-provenance-text", Static).update("")
            return
        self.query_one("#memory-entry-text", Static).update(entry_text(entry))
        self.query_one("#memory-entry", VerticalScroll).scroll_home(animate=False)
        self.sources = None
        self._show_provenance(entry)
        if entry.sources:
            run_job(self, lambda: self.backend.sources(entry), SourcesLoaded,
                    what="resolving sources", group="sources", exclusive=True)

    def on_sources_loaded(self, message: SourcesLoaded) -> None:
        entry = self.current
        if entry is not None and message.sources.entry_path == entry.path:
            self.sources = message.sources
            self._show_provenance(entry)

    def _show_provenance(self, entry: Entry) -> None:
        data = self.data
        if data is None:
            return
        sources = self.sources if self.sources and self.sources.entry_path == entry.path else None
        text = provenance_text(
            entry,
            sources=sources.found if sources else (None if entry.sources else []),
            missing=sources.missing if sources else [],
            bundle_lines=data.bundle_lines.get(entry.slug, []) if not entry.archived else [],
            log=data.log.get(entry.path.removeprefix("archive/"), []),
            flags=data.flags(entry.slug) if not entry.archived else [],
            confirmations=data.confirmations(entry.slug) if not entry.archived else [],
            now=self.dreamtui.clock())
        self.query_one("#memory-provenance-text", Static).update(text)

    # -- filter -------------------------------------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#memory-filter", Input).focus()

    @on(Input.Changed, "#memory-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        words = event.value.casefold().split()

        def apply() -> None:
            self.filter_words = words
            self.text_matches = set()
            self._refilter()  # slug, title and tags at once; the entries' text when the index answers
            if words:
                run_job(self, lambda: self.backend.search.matching(" ".join(words)),
                        lambda paths: TextMatched(words, paths), what="searching the entries' text",
                        group="memory-filter", exclusive=True)

        self.after_typing(apply)

    def on_text_matched(self, message: TextMatched) -> None:
        if message.words == self.filter_words:  # not an answer to words typed over since
            self.text_matches = message.paths
            self._refilter()

    @on(Input.Submitted, "#memory-filter")
    def _filter_done(self) -> None:
        self.query_one(EntryList).focus()

    def action_back_to_list(self) -> None:
        self.query_one(EntryList).focus()

    def action_toggle_archived(self) -> None:
        self.show_archived = not self.show_archived
        self._refilter()

    # -- human decisions ------------------------------------------------------------------------------

    def _live_current(self, verb: str) -> Entry | None:
        entry = self.current
        if entry is None:
            return None
        if entry.archived:
            self.notify(f"{entry.path} is archived; only live entries can be {verb}", severity="warning",
                        markup=False)
            return None
        return entry

    def _change(self, entry: Entry, new_text: str | None, op: str, reason: str) -> None:
        run_job(self, lambda: self.backend.human_change(entry.path, new_text, op, reason),
                lambda summary: HumanChanged(entry.path, op, summary), what=f"{op} {entry.path}", group="human")

    def on_human_changed(self, message: HumanChanged) -> None:
        self.notify(f"{message.op} {message.path}: {message.summary}", markup=False)
        self.dreamtui.workspace_changed()

    def action_pin(self) -> None:
        entry = self._live_current("pinned")
        if entry is not None:
            op = "unpin" if entry.pinned else "pin"
            self._change(entry, None, op, f"{op}ned in the Memory view")

    def action_archive(self) -> None:
        entry = self._live_current("archived")
        if entry is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._change(entry, None, "archive", "archived in the Memory view")

        detail = "pinned: archiving overrides the pin" if entry.pinned else ""
        self.app.push_screen(AskScreen(f"Archive {entry.path}?", detail), answered)

    def action_restore(self) -> None:
        entry = self.current
        if entry is None:
            return
        if not entry.archived:
            self.notify(f"{entry.path} is live; only archived entries can be restored (A shows them)",
                        severity="warning", markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._change(entry, None, "restore", "restored in the Memory view")

        live = entry.path.removeprefix("archive/")
        self.app.push_screen(AskScreen(f"Restore {entry.path} to {live}?",
                                       "its retirement keys are removed; the bundle is rewritten"),
                             answered)

    def action_edit(self) -> None:
        entry = self._live_current("edited")
        if entry is None:
            return
        try:
            text = edit_text(self.app, entry.raw, entry.slug)
        except DreamtuiError as exc:
            self.post_message(JobFailed(f"editing {entry.path}", str(exc)))
            return
        if text == entry.raw:
            self.notify(f"{entry.path}: unchanged", markup=False)
            return
        self._change(entry, text, "edit", "edited in $EDITOR")
