"""`c` in the Dream view: the counts, the guard-rail check and the conflicts, then commit."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from dreamtui.review.plan import summary_line
from dreamtui.tui import keys
from dreamtui.tui.backend import CommitPreview


def preview_text(preview: CommitPreview) -> Text:
    plan = preview.plan
    text = Text()
    text.append("changes   ", "bold")
    text.append(summary_line(plan.counts, plan.bundle is not None) + "\n")
    text.append("memories  ", "bold")
    text.append(f"{len(plan.consume)} consumed · {len(plan.release) + len(plan.open_memories)} "
                "return to the queue\n")
    text.append("log       ", "bold")
    text.append(f"{len(plan.log_lines)} line(s) appended to LOG.md\n")
    text.append("\nguard rails  ", "bold")
    if plan.violations:
        verdict = "refused" if preview.on_violation == "fail" else "warn only (on_guard_violation: warn)"
        text.append(f"✗ {len(plan.violations)} violation(s), {verdict}\n", "bold red")
        for violation in plan.violations:
            text.append(f"  · {violation.message}\n")
    else:
        text.append("✓ within the rails\n", "green")
    text.append("conflicts    ", "bold")
    if plan.conflicts:
        text.append(f"{len(plan.conflicts)} held back (changed since the dream read them)\n", "yellow")
        for conflict in plan.conflicts:
            text.append(f"  · {conflict.op} {conflict.target}: {conflict.reason}\n")
    else:
        text.append("none\n")
    for refusal in plan.refusals:
        text.append(f"✗ {refusal}\n", "bold red")
    for warning in plan.warnings:
        text.append(f"! {warning}\n", "yellow")
    if preview.blocking:
        text.append("\nThis commit would be refused: ", "bold red")
        text.append("; ".join(preview.blocking) + ".\n")
    return text


class ConfirmCommitScreen(ModalScreen[bool]):
    BINDINGS = keys.bindings(keys.CONFIRM)

    def __init__(self, preview: CommitPreview) -> None:
        super().__init__()
        self.preview = preview

    def compose(self) -> ComposeResult:
        changeset = self.preview.changeset
        with Vertical(id="confirm-box", classes="modal-box"):
            yield Label(Text(f"Commit dream {changeset.id} ({changeset.engine})"), classes="modal-title")
            with VerticalScroll():
                yield Static(preview_text(self.preview), id="confirm-text")
            keys_hint = ("esc close" if self.preview.blocking
                         else "y / enter commit    n / esc back to review")
            yield Label(keys_hint, classes="modal-keys")

    def action_confirm(self) -> None:
        if not self.preview.blocking:
            self.dismiss(True)

    def action_dismiss_screen(self) -> None:
        self.dismiss(False)
