"""A dream's proposals as rows: decision glyph, op, target and what is special about it."""

from __future__ import annotations

from rich.text import Text

from dreamtui.model import Changeset, Proposal, diff_stat
from dreamtui.store.changesets import ChangesetSummary, summary_of
from dreamtui.tui.formatting import fit
from dreamtui.tui.widgets.virtual_list import VirtualList
from dreamtui.vocabulary import counted, decision_glyph


def proposal_label(proposal: Proposal) -> str:
    """`test-db-reset (+2)`, `AGENTS.md (+3 −1)`: the target and the size of the change."""
    if proposal.op == "context":
        added, removed = diff_stat(proposal.before, proposal.after)
        return f"AGENTS.md (+{added} −{removed})"
    if proposal.op == "discard":
        return f"stm:{proposal.target.removeprefix('stm:')[:8]}"
    label = proposal.slug or proposal.target
    if proposal.op == "reinforce" and proposal.details.get("confirmations"):
        label += f" (+{proposal.details['confirmations']})"
    if proposal.op == "weaken" and proposal.details.get("flags"):
        label += f" ⚑{proposal.details['flags']}"
    return label


class ProposalList(VirtualList[Proposal]):
    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {
        "proposal-list--accept", "proposal-list--pin", "proposal-list--archive",
        "proposal-list--reject", "proposal-list--defer", "proposal-list--undecided",
        "proposal-list--safety", "proposal-list--op",
    }
    DEFAULT_CSS = """
    ProposalList {
        & > .proposal-list--accept { color: $decision-accept; }
        & > .proposal-list--pin { color: $decision-pin; }
        & > .proposal-list--archive { color: $decision-archive; }
        & > .proposal-list--reject { color: $decision-reject; }
        & > .proposal-list--defer { color: $decision-defer; }
        & > .proposal-list--undecided { color: $muted; }
        & > .proposal-list--safety { color: $safety-mark; text-style: bold; }
        & > .proposal-list--op { color: $muted; }
    }
    """

    def render_row(self, row: Proposal, index: int, width: int) -> Text:
        style = self.part
        decision = row.decision or "undecided"
        text = Text(no_wrap=True)
        text.append(f"{decision_glyph(row.decision)} ", style(f"proposal-list--{decision}"))
        text.append(f"{row.op:<9} ", style("proposal-list--op"))
        marks = (" ⚠" if row.safety else "") + (" asks you" if row.details.get("asks_human") else "")
        text.append(fit(proposal_label(row), max(4, width - 12 - len(marks))))
        if marks:
            text.append(marks, style("proposal-list--safety"))
        return text


def dream_counts(proposals: int, undecided: int) -> str:
    """`34 proposals · 27 open`, from `Changeset.reviewable` and `Changeset.undecided` (deferred
    proposals are open): how a dream's list row and the Dream view's status line both say it."""
    return f"{counted(proposals, 'proposal')} · {undecided} open"


class DreamList(VirtualList[ChangesetSummary]):
    """Open dreams (including those a headless run prepared), newest first."""

    COMPONENT_CLASSES = VirtualList.COMPONENT_CLASSES | {"dream-list--meta"}
    DEFAULT_CSS = """
    DreamList > .dream-list--meta { color: $muted; }
    """

    def render_row(self, row: ChangesetSummary, index: int, width: int) -> Text:
        text = Text(no_wrap=True)
        text.append(f"{row.id} ")
        counts = f" · {dream_counts(row.proposals, row.undecided)}" + ("" if row.complete else " · incomplete")
        # A fallback's reason is long: it gives way before the counts do.
        engine = fit(row.engine_label, max(len(row.engine), width - len(row.id) - 1 - len(counts)))
        text.append(engine + counts, self.part("dream-list--meta"))
        return text

    def follow(self, changeset: Changeset) -> None:
        """Show `changeset`'s row as the view holds it now: a decision changes its counts at once,
        not when the dreams are next read from disk."""
        rows = [self.row_at(i) for i in range(self.total)]
        if not any(row is not None and row.id == changeset.id for row in rows):
            return
        self._rows = [summary_of(changeset, row.path) if row.id == changeset.id else row
                      for row in rows if row is not None]
        self.refresh()
