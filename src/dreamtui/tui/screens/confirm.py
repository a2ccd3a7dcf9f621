"""`c` in the Dream view: the counts, the guard-rail check and the conflicts, then commit."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from dreamtui.review.plan import summary_line
from dreamtui.tui import keys
from dreamtui.tui.backend import CommitPreview
from dreamtui.vocabulary import counted


def preview_text(preview: CommitPreview) -> Content:
    """What the commit would do; its colours are the theme's ($error, $warning, $success)."""
    plan = preview.plan
    parts: list[str | tuple[str, str]] = [
        ("changes   ", "bold"), summary_line(plan.counts, plan.bundle is not None) + "\n",
        ("memories  ", "bold"), f"{len(plan.consume)} consumed · {len(plan.release) + len(plan.open_memories)} "
                                "return to the queue\n",
        ("log       ", "bold"), f"{counted(len(plan.log_lines), 'line')} appended to LOG.md\n",
        *_delivered(plan.deliveries, plan.delivery_removals),
        ("\nguard rails  ", "bold"),
    ]
    if plan.violations:
        verdict = "refused" if preview.on_violation == "fail" else "warn only (on_guard_violation: warn)"
        parts.append((f"✗ {counted(len(plan.violations), 'violation')}, {verdict}\n", "bold $error"))
        parts += [f"  · {violation.message}\n" for violation in plan.violations]
    else:
        parts.append(("✓ within the rails\n", "$success"))
    parts.append(("conflicts    ", "bold"))
    if plan.conflicts:
        parts.append((f"{len(plan.conflicts)} held back (changed since the dream read them)\n", "$warning"))
        parts += [f"  · {conflict.op} {conflict.target}: {conflict.reason}\n" for conflict in plan.conflicts]
    else:
        parts.append("none\n")
    parts += [(f"✗ {refusal}\n", "bold $error") for refusal in plan.refusals]
    parts += [(f"! {warning}\n", "$warning") for warning in plan.warnings]
    if preview.blocking:
        parts += [("\nThis commit would be refused: ", "bold $error"), "; ".join(preview.blocking) + ".\n"]
    # Plain parts, never markup: conflict reasons and messages quote file contents.
    return Content.assemble(*parts)


def _delivered(writes: Iterable[Path], removals: Iterable[Path]) -> list[str | tuple[str, str]]:
    """The files outside the memory this commit writes (the project's, the skills), by folder
    and name; nothing when there are none."""
    names = [f"{path.parent.name}/{path.name}" for path in writes] + \
        [f"{path.parent.name}/{path.name} (removed)" for path in removals]
    return [("project   ", "bold"), f"{', '.join(names)}\n"] if names else []


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
