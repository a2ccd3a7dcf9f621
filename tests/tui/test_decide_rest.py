"""`A` (accept the rest of this op) shows exactly what the core decides: marked proposals stay
undecided on screen as they do on disk (docs/architecture.md §4.5)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from dreamtui.model import Changeset
from dreamtui.store.changesets import ChangesetStore
from dreamtui.tui.screens.dream import DreamScreen
from dreamtui.tui.widgets.proposal_list import ProposalList
from dreamtui.workspace.layout import Workspace
from tests.tui.conftest import SIZE, settle


@pytest.mark.slow
async def test_accept_rest_leaves_marked_proposals_undecided_on_screen(  # type: ignore[no-untyped-def]
        make_dreamed_app, dreamed_workspace: Workspace) -> None:
    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.changeset is not None
        # The sample's injection attempt is a discard carrying its mark, beside unmarked discards.
        discards = [p for p in screen.changeset.reviewable if p.op == "discard"]
        marked = [p.id for p in discards if p.safety]
        assert marked and len(marked) < len(discards)
        for _ in range(len(screen.changeset.reviewable)):
            if screen.current is not None and screen.current.op == "discard":
                break
            await pilot.press("down")
            await settle(app, pilot)
        assert screen.current is not None and screen.current.op == "discard"
        # Hold the save back, to see what the screen shows before the saved changeset replaces it.
        saving = threading.Event()
        decide = screen.backend.decide

        def held_decide(*args: Any) -> Changeset:
            saving.wait(timeout=10)
            return decide(*args)

        screen.backend.decide = held_decide  # type: ignore[method-assign]
        await pilot.press("A")
        assert _on_screen(screen, marked) == dict.fromkeys(marked)
        saving.set()
        await settle(app, pilot)
        saved = ChangesetStore(dreamed_workspace.dreams_dir).load(screen.changeset.id)
        for p in discards:
            assert saved.proposal(p.id).decision == (None if p.safety else "accept")
        every = [p.id for p in saved.reviewable]
        assert _on_screen(screen, every) == {p.id: p.decision for p in saved.reviewable}


def _on_screen(screen: DreamScreen, ids: list[str]) -> dict[str, str | None]:
    """The decisions the proposal list shows for these proposals."""
    shown = screen.query_one(ProposalList)
    rows = [shown.row_at(i) for i in range(len(screen.changeset.reviewable if screen.changeset else []))]
    return {row.id: row.decision for row in rows if row is not None and row.id in ids}
