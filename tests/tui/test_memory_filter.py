"""The Memory view's `/` filter: slug, title and tags at once, and the entries' text through the
search index (store/search.py), so a detail only an entry's body holds finds it."""

from __future__ import annotations

from dreamtui.workspace.layout import Workspace

from .conftest import SIZE, settle, type_text


async def test_the_filter_finds_words_only_an_entrys_body_holds(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        everything = len(app.screen.shown)
        await pilot.press("slash")
        await type_text(pilot, "6379")  # "Redis on 6379": in the body of ci-ports, not its title
        await settle(app, pilot)
        assert [e.slug for e in app.screen.shown] == ["ci-ports"]
        await pilot.press("ctrl+a", "ctrl+k")
        await type_text(pilot, "redi")  # typed so far: the last word is a prefix
        await settle(app, pilot)
        shown = {e.slug for e in app.screen.shown}
        assert "ci-ports" in shown and len(shown) < everything
        await pilot.press("ctrl+a", "ctrl+k")
        await type_text(pilot, "ci")  # a tag: found at once, as before
        await settle(app, pilot)
        assert "ci-ports" in {e.slug for e in app.screen.shown}
        await pilot.press("ctrl+a", "ctrl+k")
        await settle(app, pilot)
        assert len(app.screen.shown) == everything
