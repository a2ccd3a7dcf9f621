"""`t` in the Dream view (issue 13, item 5): a person sends a proposal's lesson elsewhere; `u`
gives the dream's route back. And the bundle proposal shows the first block it appends."""

from __future__ import annotations

import pytest

from dreamtui.model import Proposal
from dreamtui.store.changesets import ChangesetStore
from dreamtui.tui.keymap import REGISTRY
from dreamtui.tui.screens.dream import DreamScreen, review_texts
from dreamtui.tui.screens.pick import RoutePickScreen
from dreamtui.workspace.layout import Workspace
from tests.tui.conftest import SIZE, settle


def test_t_is_the_dream_views_route_key() -> None:
    assert REGISTRY["dream.route"].keys == "t"


def test_the_bundle_proposal_shows_the_first_block_it_appends() -> None:
    diff = ("--- a/AGENTS.md\n+++ b/AGENTS.md\n@@ -1,2 +1,5 @@\n # Mine\n hand line\n+\n"
            "+<!-- dreamtui:begin sha256=0123456789abcdef -->\n+- a line [mem: a]\n")
    proposal = Proposal(id="p-bundle-x", op="context", target="context/AGENTS.md", slug=None,
                        base_sha256=None, before="# Agent context\n", after="# Agent context\n",
                        rationale="r", details={"deliveries": [
                            {"target": "AGENTS.md", "first": True, "problem": None, "diff": diff},
                            {"target": "CLAUDE.md", "first": False, "problem": None, "diff": ""}]})
    before, after = review_texts(proposal)
    assert before is not None and after is not None
    assert before.endswith("── AGENTS.md (in the project) ──\n# Mine\nhand line\n")
    assert after.endswith("hand line\n\n<!-- dreamtui:begin sha256=0123456789abcdef -->\n- a line [mem: a]\n")
    assert "CLAUDE.md" not in after


def test_a_lesson_routed_skill_shows_the_skill_it_writes() -> None:
    proposal = Proposal(id="p-1", op="create", target="topics/s.md", slug="s", base_sha256=None,
                        before=None, after="---\nslug: s\ntitle: S\n---\nStep one.\n",
                        rationale="r", route="skill")
    before, after = review_texts(proposal, (None, "---\nname: s\n---\nStep one.\n"))
    assert before is not None and before.endswith("the project's .claude/skills/) ──\n")
    assert after is not None and after.endswith("──\n---\nname: s\n---\nStep one.\n")


@pytest.mark.slow
async def test_t_changes_the_route_and_u_gives_it_back(  # type: ignore[no-untyped-def]
        make_dreamed_app, dreamed_workspace: Workspace) -> None:
    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.changeset is not None
        proposal = next(p for p in screen.changeset.proposals if p.op == "create")
        screen.query_one("ProposalList").move_cursor(screen.changeset.reviewable.index(proposal))  # type: ignore[attr-defined]
        await settle(app, pilot)
        dream_route = proposal.route
        await pilot.press("t")
        await settle(app, pilot)
        assert isinstance(app.screen, RoutePickScreen)
        await pilot.press("end", "enter")  # the last route: person
        await settle(app, pilot)
        store = ChangesetStore(dreamed_workspace.dreams_dir)
        saved = store.load(screen.changeset.id).proposal(proposal.id)
        assert saved.route == "person" and saved.details["engine_route"] == dream_route
        await pilot.press("u")
        await settle(app, pilot)
        undone = store.load(screen.changeset.id).proposal(proposal.id)
        assert undone.route == dream_route and "engine_route" not in undone.details
