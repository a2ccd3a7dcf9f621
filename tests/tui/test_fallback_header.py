"""A dream the heuristic engine made in place of an unreachable model says so in the Dream view:
the status line names the stand-in and the model, the dream's row gives the reason."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from dreamtui.store.changesets import ChangesetStore
from dreamtui.tui.widgets.proposal_list import DreamList
from dreamtui.workspace.layout import Workspace

from .conftest import SIZE, settle

REASON = "cannot connect to http://127.0.0.1:9 after 0 retries — check dream.anthropic.base_url"


@pytest.mark.slow
async def test_the_dream_view_shows_a_fallback_dream_as_such(dreamed_workspace: Workspace,
                                                             make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    store = ChangesetStore(dreamed_workspace.dreams_dir)
    [summary] = store.open_changesets()
    # What the runner records when dream.fallback_to_heuristic stood in for the model.
    changeset = store.load(summary.id)
    changeset.stats["fallback"] = {"from": "anthropic", "reason": REASON}
    store.save(changeset)

    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        status = str(app.screen.query_one("#dream-status", Static).render())
        assert status.startswith(f"Dream — {summary.id} · heuristic (fallback: anthropic unreachable) · "
                                 f"{len(changeset.reviewable)} proposals · {changeset.undecided} open")
        dreams = app.screen.query_one(DreamList)
        shown = dreams.row_at(0)
        assert shown is not None and shown.id == summary.id
        row = dreams.render_row(shown, 0, 110).plain
        # The reason gives way to the counts when the row is short; here it fits in part.
        assert row.startswith(f"{summary.id} heuristic (fallback: anthropic unreachable: cannot connect")
        assert row.endswith(f" · {len(changeset.reviewable)} proposals · {changeset.undecided} open")
        assert len(row) <= 110
