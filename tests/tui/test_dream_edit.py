"""`e` in the Dream view (issue 14, item 1): the proposed entry in $VISUAL, saved edited and
accepted; `u` gives back the engine's text."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from dreamtui.store.changesets import ChangesetStore
from dreamtui.tui.keymap import REGISTRY
from dreamtui.tui.screens.dream import DreamScreen
from dreamtui.workspace.layout import Workspace
from tests.tui.conftest import SIZE, settle


def use_editor(script: Path, line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """$VISUAL becomes a Python script that runs `line` on the file it is given."""
    script.write_text(f"#!{sys.executable}\nimport sys\n{line}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("VISUAL", str(script))


def test_e_is_the_dream_views_edit_key() -> None:
    assert REGISTRY["dream.edit"].keys == "e"


@pytest.mark.slow
async def test_e_edits_the_proposal_accepts_it_and_undo_gives_the_engines_text_back(  # type: ignore[no-untyped-def]
        make_dreamed_app, dreamed_workspace: Workspace, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    use_editor(tmp_path / "append-line", "open(sys.argv[1], 'a').write('Checked by a person.\\n')",
               monkeypatch)
    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.changeset is not None
        proposal = screen.current
        assert proposal is not None and proposal.op == "create" and proposal.after
        engine_text = proposal.after
        await pilot.press("e")
        await settle(app, pilot)
        store = ChangesetStore(dreamed_workspace.dreams_dir)
        saved = store.load(screen.changeset.id).proposal(proposal.id)
        assert saved.decision == "accept" and saved.after == engine_text + "Checked by a person.\n"
        assert saved.details["edited_by_person"] is True and saved.details["engine_after"] == engine_text
        assert screen.changeset.proposal(proposal.id).decision == "accept"  # the screen shows it

        await pilot.press("u")
        await settle(app, pilot)
        undone = store.load(screen.changeset.id).proposal(proposal.id)
        assert undone.after == engine_text and undone.decision is None
        assert "edited_by_person" not in undone.details


@pytest.mark.slow
async def test_an_edit_that_does_not_parse_is_shown_and_nothing_saved(  # type: ignore[no-untyped-def]
        make_dreamed_app, dreamed_workspace: Workspace, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    use_editor(tmp_path / "break", "open(sys.argv[1], 'w').write('no frontmatter here')", monkeypatch)
    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.changeset is not None
        path = dreamed_workspace.dreams_dir / f"{screen.changeset.id}.json"
        before = path.read_text()
        await pilot.press("e")
        await settle(app, pilot)
        assert "not a valid entry" in str(app.screen.query_one("#error-message").render())
        assert path.read_text() == before
