"""Pilot flows through the workbench on a copy of the sample workspace."""

from __future__ import annotations

import stat
import sys
import time
from pathlib import Path

import pytest
from textual.widgets import Log, Static

from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.ltm import LTMStore
from dreamtui.store.stm import STMStore
from dreamtui.tui.screens.confirm import ConfirmCommitScreen
from dreamtui.tui.screens.dream import DreamScreen
from dreamtui.tui.screens.error import ErrorScreen
from dreamtui.tui.screens.flags import FlagsScreen
from dreamtui.tui.widgets.memory_list import MemoryList
from dreamtui.tui.widgets.proposal_list import ProposalList
from dreamtui.workspace.layout import Workspace

from .conftest import NOW, SIZE, settle, type_text


def static_text(app: object, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())  # type: ignore[attr-defined]


@pytest.mark.slow
async def test_filtering_the_queue(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        queue = app.screen.query_one(MemoryList)
        assert queue.total == 40
        await pilot.press("slash")
        await type_text(pilot, "alembic")
        await settle(app, pilot)
        assert 0 < queue.total < 40
        assert all("alembic" in f"{m.title} {m.content}".lower() for m in queue._pages[0])
        await pilot.press("escape", "t")  # type filter: the first configured type
        await settle(app, pilot)
        assert {m.type for m in queue._pages.get(0, [])} <= {"observation"}
        assert "observation" in static_text(app, "#queue-counts")
        await pilot.press("j")
        assert queue.cursor == 1


async def _open_flags(app, pilot) -> FlagsScreen:  # type: ignore[no-untyped-def]
    await pilot.press("3")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, FlagsScreen)
    return screen


async def test_triaging_a_flag(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_flags(app, pilot)
        total = len(screen.items)
        assert total >= 2 and static_text(app, "#flags-counter") == f"[1/{total}]"
        first = screen.current
        assert first is not None and first.entry.path == "topics/ci-ports.md"
        assert len(first.flags) == 2  # one names it, one quotes it
        await pilot.press("x")  # the flags are right: archive it
        await settle(app, pilot)
        assert not (workspace.memory_root / "topics/ci-ports.md").exists()
        assert (workspace.memory_root / "archive/topics/ci-ports.md").exists()
        log = LTMStore(workspace.memory_root).log_lines(limit=1)[0]
        assert "archive topics/ci-ports.md" in log and log.endswith("[human]")
        # The cursor moved on by itself to the next flagged entry.
        assert screen.current is not None and screen.current.entry.path != "topics/ci-ports.md"
        assert static_text(app, "#flags-counter") == f"[1/{total - 1}]"
        await pilot.press("w")  # weaken the next one: it stays, with a caveat
        await settle(app, pilot)
        weakened = LTMStore(workspace.memory_root).log_lines(limit=1)[0]
        path = weakened.split()[3]
        assert "flag triage: weakened" in weakened
        assert "> Caveat (flagged" in (workspace.memory_root / path).read_text()


@pytest.mark.slow
async def test_undoing_triage_verdicts_newest_first(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    root = workspace.memory_root
    ci_ports = (root / "topics/ci-ports.md").read_bytes()
    with STMStore.for_workspace(workspace) as stm:
        pending = stm.counts()["pending"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_flags(app, pilot)
        total = len(screen.items)
        await pilot.press("x")  # archive topics/ci-ports.md
        await settle(app, pilot)
        second = screen.current
        assert second is not None
        second_text = (root / second.entry.path).read_bytes()
        await pilot.press("p")  # pin the next one
        await settle(app, pilot)
        assert b"importance: pinned" in (root / second.entry.path).read_bytes()
        await pilot.press("u")  # the pin first: newest first
        await settle(app, pilot)
        assert not isinstance(app.screen, ErrorScreen)
        assert (root / second.entry.path).read_bytes() == second_text
        await pilot.press("u")  # then the archive: the entry is live again, byte for byte
        await settle(app, pilot)
        assert (root / "topics/ci-ports.md").read_bytes() == ci_ports
        assert not (root / "archive/topics/ci-ports.md").exists()
        assert len(screen.items) == total and static_text(app, "#flags-counter") == f"[1/{total}]"
        await pilot.press("u")
        await settle(app, pilot)
        assert not isinstance(app.screen, ErrorScreen)  # nothing left to undo: a notice only
    with STMStore.for_workspace(workspace) as stm:
        assert stm.counts()["pending"] == pending  # every triaged flag is back in the queue
    log = LTMStore(root).log_lines(limit=4)
    # Each undo is logged as the undo of its verdict, not as a hand edit.
    assert [" ".join(line.split()[2:4]) for line in log[:2]] == ["undo archive", "undo pin"]
    assert [line.split()[2] for line in log[2:]] == ["pin", "archive"]
    assert all(line.endswith("[human]") for line in log)


@pytest.mark.slow
async def test_undo_refuses_when_the_entry_changed_since(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _open_flags(app, pilot)
        await pilot.press("p")
        await settle(app, pilot)
        path = workspace.memory_root / "topics/ci-ports.md"
        path.write_text(path.read_text() + "\nEdited by hand after the triage.\n")
        await pilot.press("u")
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "has changed since" in str(app.screen.query_one("#error-message", Static).render())
    assert path.read_text().endswith("Edited by hand after the triage.\n")


@pytest.mark.slow
async def test_a_dream_started_in_the_view_shows_its_proposals(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        await pilot.press("d")
        await settle(app, pilot)
        await pilot.press("enter")  # the configured engine (heuristic) is offered first
        screen = app.screen
        assert isinstance(screen, DreamScreen)
        for _ in range(50):
            await settle(app, pilot)
            if screen.run is None and screen.changeset is not None:
                break
        changeset = screen.changeset
        assert changeset is not None and changeset.complete and changeset.proposals
        saved = ChangesetStore(workspace.dreams_dir).load(changeset.id)
        shown = screen.query_one(ProposalList)
        assert [shown.row_at(i).id for i in range(shown.total)] == [p.id for p in saved.reviewable]
        assert static_text(app, "#dream-status") == (f"Dream — {changeset.id} · heuristic · "
                                                      f"{len(saved.reviewable)} proposals · "
                                                      f"{len(saved.reviewable)} open")
        assert not screen.query_one("#dream-stream", Log).display


async def _open_dream(app, pilot) -> DreamScreen:  # type: ignore[no-untyped-def]
    """The Dream view on the workspace's open dream (`dreamed_workspace`)."""
    await pilot.press("4")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, DreamScreen) and screen.changeset is not None
    return screen


@pytest.mark.slow
async def test_reviewing_and_committing_a_dream_with_mixed_decisions(  # type: ignore[no-untyped-def]
        make_dreamed_app, dreamed_workspace: Workspace) -> None:
    workspace = dreamed_workspace
    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_dream(app, pilot)
        changeset = screen.changeset
        assert changeset is not None and changeset.complete and changeset.proposals
        first, second = changeset.proposals[0], changeset.proposals[1]
        await pilot.press("y")  # accept the first; the cursor moves on to the second
        await pilot.press("n")  # reject the second
        await settle(app, pilot)
        saved = ChangesetStore(workspace.dreams_dir).load(changeset.id)
        assert saved.proposal(first.id).decision == "accept"
        assert saved.proposal(second.id).decision == "reject"
        await pilot.press("b")  # defer the third
        await settle(app, pilot)
        await pilot.press("c")
        await settle(app, pilot)
        confirm = app.screen
        assert isinstance(confirm, ConfirmCommitScreen)
        assert "1 created" in static_text(app, "#confirm-text") or "1 updated" in static_text(app, "#confirm-text")
        assert "within the rails" in static_text(app, "#confirm-text")
        await pilot.press("enter")
        await settle(app, pilot)
        committed = ChangesetStore(workspace.dreams_dir).load(changeset.id)
        assert committed.status == "committed"
        log = LTMStore(workspace.memory_root).log_lines()
        assert any(f"[dream {changeset.id}]" in line for line in log)
        # Deferred and undecided memories went back to the queue.
        with STMStore.for_workspace(workspace) as stm:
            assert stm.counts()["claimed"] == 0
        assert isinstance(app.screen, DreamScreen) and app.screen.changeset is None
        await pilot.press("5")  # the decisions show up in History
        await settle(app, pilot)
        assert not isinstance(app.screen, ErrorScreen)
        assert "decisions in LOG.md" in static_text(app, "#history-status")


@pytest.mark.slow
async def test_undoing_a_decision(make_dreamed_app, dreamed_workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    workspace = dreamed_workspace
    app = make_dreamed_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_dream(app, pilot)
        assert screen.changeset is not None
        dream_id, first = screen.changeset.id, screen.changeset.proposals[0].id
        await pilot.press("y")
        await settle(app, pilot)
        assert ChangesetStore(workspace.dreams_dir).load(dream_id).proposal(first).decision == "accept"
        await pilot.press("u")
        await settle(app, pilot)
        assert ChangesetStore(workspace.dreams_dir).load(dream_id).proposal(first).decision is None
        proposals = app.screen.query_one(ProposalList)
        assert proposals.row_at(0).decision is None


@pytest.mark.slow
async def test_cancelling_a_dream_returns_its_batch(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    workspace.config.dream.engine = "tests.tui.engines:StreamingEngine"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4", "d")
        await settle(app, pilot)
        await pilot.press("enter")
        stream = app.screen.query_one("#dream-stream", Log)
        deadline = time.monotonic() + 30  # the engine writes a word every 50 ms; a busy machine is slower
        while "ok ok" not in "".join(stream.lines) and time.monotonic() < deadline:
            await pilot.pause(0.02)
        assert stream.display and "".join(stream.lines).startswith("· reading the batch")
        assert "Writing entry: ok ok" in "".join(stream.lines)  # the model's text grows on screen
        with STMStore.for_workspace(workspace) as stm:
            assert stm.counts()["claimed"] == 40
        await pilot.press("escape")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.run is None
        assert not stream.display
        with STMStore.for_workspace(workspace) as stm:
            assert stm.counts() == {"pending": 40, "claimed": 0, "consumed": 0}
        assert [s.status for s in ChangesetStore(workspace.dreams_dir).list()] == ["abandoned"]


def use_editor(script: Path, line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """$VISUAL becomes a Python script that runs `line` on the file it is given."""
    script.write_text(f"#!{sys.executable}\nimport sys\n{line}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("VISUAL", str(script))


@pytest.mark.slow
async def test_a_failing_job_opens_a_modal_not_a_traceback(make_app, workspace: Workspace,
                                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    use_editor(tmp_path / "break-frontmatter", "open(sys.argv[1], 'w').write('no frontmatter here')",
               monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        assert isinstance(app.screen, ErrorScreen)
        message = static_text(app, "#error-message")
        assert "missing opening '---' line" in message and "Traceback" not in message
        await pilot.press("escape")
        assert app.is_running


@pytest.mark.slow
async def test_editing_and_pinning_in_the_memory_view(make_app, workspace: Workspace, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    use_editor(tmp_path / "append-line", "open(sys.argv[1], 'a').write('Edited by hand.\\n')", monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        entry = app.screen.current
        assert entry is not None and not entry.pinned
        await pilot.press("e")
        await settle(app, pilot)
        assert (workspace.memory_root / entry.path).read_text().endswith("Edited by hand.\n")
        await pilot.press("p")
        await settle(app, pilot)
        assert "importance: pinned" in (workspace.memory_root / entry.path).read_text()
        log = LTMStore(workspace.memory_root).log_lines(limit=2, newest_first=False)
        assert [line.split()[2] for line in log] == ["edit", "pin"]
        assert app.screen.current is not None and app.screen.current.pinned


@pytest.mark.slow
async def test_restoring_an_archived_entry_in_the_memory_view(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    root = workspace.memory_root
    archived = (root / "archive/topics/use-yarn.md").read_text()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.press("r")  # a live entry: a warning, nothing changes
        await settle(app, pilot)
        assert not (root / "topics/use-yarn.md").exists()
        await pilot.press("A", "G")  # show archived entries too: they come after the live ones
        await settle(app, pilot)
        assert app.screen.current.path == "archive/topics/use-yarn.md"
        await pilot.press("r", "y")  # restore, and yes at the question
        await settle(app, pilot)
        assert not isinstance(app.screen, ErrorScreen)
    restored = (root / "topics/use-yarn.md").read_text()
    assert not (root / "archive/topics/use-yarn.md").exists()
    kept = [line for line in archived.splitlines(keepends=True)
            if not line.startswith(("retired_at:", "retired_reason:", "superseded_by:"))]
    assert restored == "".join(kept)  # only the retirement keys go; every other byte stays
    assert "[mem: use-yarn]" in workspace.agents_md.read_text()
    assert LTMStore(root).log_lines(limit=1)[0].split()[2:4] == ["restore", "archive/topics/use-yarn.md"]


@pytest.mark.slow
async def test_a_dream_prepared_headless_is_reviewed_the_same_way(make_app, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    from dreamtui.dream.runner import dream_async

    prepared = await dream_async(workspace, now=NOW)  # what a headless run leaves for the morning
    assert prepared is not None
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DreamScreen)
        assert screen.changeset is not None and screen.changeset.id == prepared.id
        assert static_text(app, "#dream-status").startswith(f"Dream — {prepared.id} · heuristic")
        await pilot.press("y")
        await settle(app, pilot)
        assert ChangesetStore(workspace.dreams_dir).load(prepared.id).proposals[0].decision == "accept"
