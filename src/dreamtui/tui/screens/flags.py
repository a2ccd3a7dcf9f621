"""3 Flags — keyboard triage of flagged entries, one key per verdict, `[3/10]` as it goes.

A view over the core's flag triage (review/triage.py), which decides what is pending and what
each verdict does: archive (the flag is right), pin (the flag is wrong; protect the entry),
weaken (keep it, with the dream's caveat) or correct (the flag is right and the entry still
useful: it opens in $VISUAL/$EDITOR with the flags above it). `s` skips to the next entry and
wraps to the first after the last, so a pass over the skipped ones needs no key of its own.
`u` undoes the verdicts given since the app started,
newest first: the entry gets its old text back (from archive/ too) and its flags wait in the
queue again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from dreamtui.errors import DreamtuiError
from dreamtui.safety.marks import display_text
from dreamtui.tui import keys
from dreamtui.tui.backend import FlagItem
from dreamtui.tui.editor import edit_text
from dreamtui.tui.jobs import JobFailed, run_job
from dreamtui.tui.screens.view import ViewScreen
from dreamtui.tui.widgets.entry_view import confirmations_line, feedback_text

if TYPE_CHECKING:
    from dreamtui.review.triage import Undone, UndoRecord, Verdict


@dataclass
class FlagsLoaded(Message):
    items: list[FlagItem]


@dataclass
class Triaged(Message):
    item: FlagItem
    verdict: Verdict


@dataclass
class TriageUndone(Message):
    undone: Undone


def entry_side(item: FlagItem, now: datetime) -> Text:
    entry = item.entry
    text = Text()
    if entry.pinned:
        text.append("◆ pinned\n", "bold")
    text.append(display_text(entry.body.strip()))
    text.append("\n\nin AGENTS.md: ", "bold")
    if item.bundle_lines:
        for number, line in item.bundle_lines:
            text.append(f"\n  line {number}: ")
            text.append(display_text(line))
    else:
        text.append("not in the bundle", "dim")
    text.append(f"\nsources: {' '.join(s[:12] + '…' for s in entry.sources) or 'none'}\n", "dim")
    text.append(f"\n{confirmations_line(entry, len(item.confirmations))}\n", "bold")
    for memory in item.confirmations:
        feedback_text(text, memory, now)
    return text


def flags_side(item: FlagItem, now: datetime) -> Text:
    text = Text()
    for memory in item.flags:
        feedback_text(text, memory, now)
    return text


class FlagsScreen(ViewScreen):
    VIEW = "flags"
    BINDINGS = keys.bindings(keys.FLAGS)

    def __init__(self) -> None:
        super().__init__()
        self.items: list[FlagItem] = []
        self.position = 0
        self.decided = 0
        self.busy = False
        self.undos: list[UndoRecord] = []  # verdicts since the app started, oldest first

    def compose_view(self) -> ComposeResult:
        with Horizontal(classes="status-line"):
            yield Static("Flags — triage", id="flags-title")
            yield Static("", id="flags-counter")
        with Horizontal(classes="panes"):
            with VerticalScroll(id="flags-entry", classes="pane-left"):
                yield Static(id="flags-entry-text")
            with VerticalScroll(id="flags-evidence", classes="pane-right"):
                yield Static(id="flags-evidence-text")

    def start_loading(self) -> None:
        run_job(self, self.backend.flag_items, FlagsLoaded, what="reading flags", group="flags",
                exclusive=True)

    def on_flags_loaded(self, message: FlagsLoaded) -> None:
        # A triage consumes its flags, so a reload never offers a decided item again.
        self.items = message.items
        self.position = min(self.position, max(0, len(self.items) - 1))
        self._show()

    @property
    def current(self) -> FlagItem | None:
        return self.items[self.position] if 0 <= self.position < len(self.items) else None

    def _show(self) -> None:
        item = self.current
        counter = self.query_one("#flags-counter", Static)
        entry_pane = self.query_one("#flags-entry", VerticalScroll)
        evidence_pane = self.query_one("#flags-evidence", VerticalScroll)
        if item is None:
            counter.update(f"{self.decided} decided" if self.decided else "")
            entry_pane.border_title = "no flagged entries"
            evidence_pane.border_title = "flags"
            self.query_one("#flags-entry-text", Static).update(
                Text("Nothing to triage: no pending flag names a live entry.", "dim"))
            self.query_one("#flags-evidence-text", Static).update("")
            return
        now = self.dreamtui.clock()
        counter.update(Text(f"[{self.position + 1}/{len(self.items)}]"))
        entry = item.entry
        entry_pane.border_title = Text(f"{entry.slug} · {display_text(entry.title)} · "
                                       f"{entry.confirmations} confirmations")
        evidence_pane.border_title = f"{len(item.flags)} flag{'s' if len(item.flags) != 1 else ''}"
        self.query_one("#flags-entry-text", Static).update(entry_side(item, now))
        self.query_one("#flags-evidence-text", Static).update(flags_side(item, now))
        entry_pane.scroll_home(animate=False)
        evidence_pane.scroll_home(animate=False)

    def action_move(self, step: int) -> None:
        if self.items:
            self.position = max(0, min(len(self.items) - 1, self.position + step))
            self._show()

    def action_skip(self) -> None:
        if len(self.items) < 2:
            self.notify("the only flagged entry; skipped, its flags stay pending for the next dream")
            return
        wrapped = self.position == len(self.items) - 1
        self.position = 0 if wrapped else self.position + 1
        self._show()
        if wrapped:
            self.notify("that was the last flagged entry: back to the first (skipped ones stay "
                        "pending for the next dream)")

    def action_triage(self, decision: str) -> None:
        item = self.current
        if item is None or self.busy:
            return
        self.busy = True
        run_job(self, lambda: Triaged(item, self.backend.triage(item, decision)),
                lambda done: done, what=f"triaging {item.entry.path}", group="triage")

    def action_correct(self) -> None:
        from dreamtui.review.triage import correction_draft

        item = self.current
        if item is None or self.busy:
            return
        draft = correction_draft(item.group)
        try:
            text = edit_text(self.app, draft, item.entry.slug)
        except DreamtuiError as exc:
            self.post_message(JobFailed(f"editing {item.entry.path}", str(exc)))
            return
        if text == draft:
            self.notify(f"{item.entry.path}: unchanged, nothing corrected", markup=False)
            return
        self.busy = True
        run_job(self, lambda: Triaged(item, self.backend.correct_flagged(item, text)),
                lambda done: done, what=f"correcting {item.entry.path}", group="triage")

    def action_undo(self) -> None:
        if self.busy:
            return
        if not self.undos:
            self.notify("nothing to undo: no verdict given since the app started")
            return
        self.busy = True
        record = self.undos[-1]
        run_job(self, lambda: TriageUndone(self.backend.undo_triage(record)), lambda done: done,
                what=f"undoing the triage of {record.path}", group="triage")

    def on_triage_undone(self, message: TriageUndone) -> None:
        self.busy = False
        record = message.undone.record
        self.undos = [r for r in self.undos if r.id != record.id]
        self.decided -= 1
        self.notify(f"undone: {record.path} is as it was, its flags pending again", markup=False)
        self.dreamtui.workspace_changed()  # reloads: the entry is offered again

    def on_triaged(self, message: Triaged) -> None:
        self.busy = False
        verdict = message.verdict
        if verdict.record is not None:
            self.undos.append(verdict.record)
        self.decided += 1
        self.items = [i for i in self.items if i.entry.path != message.item.entry.path]
        # The next item slides under the cursor: triage moves on by itself.
        self.position = min(self.position, max(0, len(self.items) - 1))
        self.notify(f"{verdict.done} {message.item.entry.path}: {verdict.summary}", markup=False)
        self._show()
        self.dreamtui.workspace_changed()

    def on_job_failed(self, message: JobFailed) -> None:
        if message.group == "triage":
            self.busy = False
