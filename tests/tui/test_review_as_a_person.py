"""Issue 14, items 3 and 4 in the workbench: the Flags view's skip wraps and `c` corrects, the
counts of a dream agree wherever they are shown, `?` explains the marks, Esc clears the queue
filter."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Label, Static

from dreamtui.store.ltm import LTMStore
from dreamtui.tui.screens.dream import DreamScreen
from dreamtui.tui.screens.help import HelpScreen
from dreamtui.tui.widgets.memory_list import MemoryList
from dreamtui.tui.widgets.proposal_list import DreamList, proposal_label
from dreamtui.workspace.layout import Workspace

from .conftest import SIZE, settle, type_text
from .test_flows import _open_flags, static_text, use_editor


@pytest.mark.slow
async def test_skip_on_the_last_flagged_entry_wraps_to_the_first(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_flags(app, pilot)
        total = len(screen.items)
        assert total >= 2
        first = screen.current
        for _ in range(total - 1):
            await pilot.press("s")
        assert static_text(app, "#flags-counter") == f"[{total}/{total}]"
        await pilot.press("s")
        await settle(app, pilot)
        assert screen.current == first and static_text(app, "#flags-counter") == f"[1/{total}]"
        assert any("back to the first" in str(n.message) for n in app._notifications)


@pytest.mark.slow
async def test_correct_opens_the_entry_with_the_flags_above_it_and_commits_the_fix(  # type: ignore[no-untyped-def]
        make_app, workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = tmp_path / "shown.md"
    use_editor(tmp_path / "fix-port",
               f"text = open(sys.argv[1]).read(); open({str(shown)!r}, 'w').write(text)\n"
               "open(sys.argv[1], 'w').write(text.replace('listens on 5432', 'listens on 5433'))",
               monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_flags(app, pilot)
        total = len(screen.items)
        assert screen.current is not None and screen.current.entry.path == "topics/ci-ports.md"
        await pilot.press("c")
        await settle(app, pilot)
        notes = shown.read_text().split("\n-->\n")[0]
        assert notes.startswith("<!-- dreamtui: correct the entry below")
        assert 'quoted: "listens on 5432 and Redis on 6379"' in notes
        entry = (workspace.memory_root / "topics/ci-ports.md").read_text()
        assert "listens on 5433" in entry and "<!--" not in entry
        assert LTMStore(workspace.memory_root).log_lines(limit=1)[0].split()[2:4] == [
            "correct", "topics/ci-ports.md"]
        assert len(screen.items) == total - 1  # its flags are consumed
        await pilot.press("u")
        await settle(app, pilot)
        assert "listens on 5432" in (workspace.memory_root / "topics/ci-ports.md").read_text()
        assert LTMStore(workspace.memory_root).log_lines(limit=1)[0].split()[2:4] == ["undo", "correct"]


@pytest.mark.slow
async def test_the_dream_row_and_the_status_line_say_the_same_counts(make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.changeset is not None
        await pilot.press("y", "b")  # one accepted, one deferred: deferred is still open
        await settle(app, pilot)
        changeset = screen.changeset
        total, still_open = len(changeset.reviewable), changeset.undecided
        assert still_open == total - 1
        counts = f"{total} proposals · {still_open} open"
        assert counts in static_text(app, "#dream-status")
        dreams = screen.query_one(DreamList)
        shown = dreams.row_at(0)
        assert shown is not None and dreams.render_row(shown, 0, 200).plain.endswith(counts)


def test_a_bundle_label_counts_the_lines_its_rationale_counts() -> None:
    from dreamtui.model import Proposal, diff_stat

    before = "# A\n\n- one\n- two\n- three\n"
    after = "# A\n\n- one\n- two\n- two\n- four\n"  # a repeated line and a replaced one
    bundle = Proposal(id="p-1", op="context", target="context/AGENTS.md", slug=None, base_sha256=None,
                      before=before, after=after, rationale="", evidence=[], confidence=1.0)
    added, removed = diff_stat(before, after)
    assert proposal_label(bundle) == f"AGENTS.md (+{added} −{removed})" == "AGENTS.md (+2 −1)"


async def test_help_explains_every_mark_the_lists_show(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-keys", Static).render())
        for mark in ("✓ accepted", "◆ pinned", "▣ archived", "✗ rejected", "↷ deferred", "· undecided",
                     "⚠ safety marks", "⚑n", "✓n confirmations", "● pending", "◐ claimed", "○ consumed"):
            assert mark in text, mark


async def test_help_keeps_each_action_id_apart_from_its_words(make_app) -> None:  # type: ignore[no-untyped-def]
    from dreamtui.tui import keys

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("4", "question_mark")  # the Dream view has the longest descriptions
        await settle(app, pilot)
        text = str(app.screen.query_one("#help-keys", Static).render())
        for action in (*keys.VIEW_ACTIONS["dream"], *keys.LIST, *keys.GLOBAL):
            assert f"{action.description}  " in text and f" {action.id}\n" in text, action.id
        assert "marks" in str(app.screen.query_one(".modal-keys", Label).render())


@pytest.mark.slow
async def test_esc_in_the_queue_filter_clears_it(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        queue = app.screen.query_one(MemoryList)
        await pilot.press("slash")
        await type_text(pilot, "alembic")
        await settle(app, pilot)
        assert 0 < queue.total < 40
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen.query_one("#queue-filter", Input).value == ""
        assert queue.total == 40 and queue.has_focus
        await pilot.press("slash")
        await type_text(pilot, "alembic")
        await pilot.press("enter")  # Enter keeps the filter
        await settle(app, pilot)
        assert 0 < queue.total < 40 and app.screen.query_one("#queue-filter", Input).value == "alembic"


async def test_the_memory_view_says_confirmations_in_words(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        entry = app.screen.current
        assert entry is not None and entry.confirmations == 1  # the sample's first entry
        provenance = static_text(app, "#memory-provenance-text")
        assert "1 confirmation counted, none on record" in provenance  # was "confirmations (0; 1 counted)"
