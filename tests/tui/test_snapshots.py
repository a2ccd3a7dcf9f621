"""Snapshots at 120×36 with a frozen clock, UTC, no cursor blink, and every job awaited."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from dreamtui.tui.app import DreamtuiApp

from .conftest import SIZE, settle, type_text

Steps = Callable[[Pilot], Awaitable[None]]


@dataclass(frozen=True)
class Typed:
    """Text typed into the focused input, in one event."""

    text: str


def keys(*pressed: str | Typed) -> Steps:
    async def run(pilot: Pilot) -> None:
        app = pilot.app
        for input_box in app.query(Input):
            input_box.cursor_blink = False
        await settle(app, pilot)  # type: ignore[arg-type]
        for key in pressed:
            if isinstance(key, Typed):
                await type_text(pilot, key.text)
            else:
                await pilot.press(key)
            await settle(app, pilot)  # type: ignore[arg-type]
        for input_box in app.screen.query(Input):
            input_box.cursor_blink = False
        # Toasts time out on the wall clock; one still showing or not would make shots differ.
        app.clear_notifications()
        await pilot.pause()
    return run


def shot(snap_compare, app: DreamtuiApp, steps: Steps) -> bool:  # type: ignore[no-untyped-def]
    return snap_compare(app, terminal_size=SIZE, run_before=steps)


def test_queue(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys())


@pytest.mark.slow
def test_queue_filtered(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("slash", Typed("alembic")))


@pytest.mark.slow
def test_queue_flag_detail_and_type_filter(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("t", "t", "t", "t", "t", "j"))


@pytest.mark.slow
def test_memory(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("2"))


@pytest.mark.slow
def test_memory_provenance_of_a_confirmed_entry(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("2", "slash", Typed("test-db"), "enter"))


@pytest.mark.slow
def test_flags(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("3"))


@pytest.mark.slow
def test_dream_empty(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("4"))


@pytest.mark.slow
def test_engine_picker(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("4", "d"))


@pytest.mark.slow
def test_dream_review(snap_compare, make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_dreamed_app(), keys("4", "y", "n"))


@pytest.mark.slow
def test_dream_update_diff(snap_compare, make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_dreamed_app(), keys("4", "G", "k", "k"))  # test-db-reset's update


@pytest.mark.slow
def test_dream_bundle_diff(snap_compare, make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_dreamed_app(), keys("4", "G"))


@pytest.mark.slow
def test_commit_confirmation(snap_compare, make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_dreamed_app(), keys("4", "y", "n", "b", "y", "c"))


@pytest.mark.slow
def test_history_after_commit(snap_compare, make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_dreamed_app(), keys("4", "y", "n", "c", "enter", "5"))


@pytest.mark.slow
def test_help_queue(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("question_mark"))


@pytest.mark.slow
def test_help_dream(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app(), keys("4", "question_mark"))


@pytest.mark.slow
def test_light_theme(snap_compare, make_dreamed_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_dreamed_app("dreamtui-light"), keys("4", "G", "k"))


@pytest.mark.slow
def test_contrast_theme(snap_compare, make_app) -> None:  # type: ignore[no-untyped-def]
    assert shot(snap_compare, make_app("dreamtui-contrast"), keys("2"))
