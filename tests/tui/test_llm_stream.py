"""A dream with the real `anthropic` client, against the loopback Messages server, in the app:
the model's words reach the Dream view while the stream is still open, then its proposals."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Log

from dreamtui.store.changesets import ChangesetStore
from dreamtui.tui.app import create_app
from dreamtui.tui.screens.dream import DreamScreen
from dreamtui.tui.screens.error import ErrorScreen
from tests.llm_servers import (
    AnthropicServer,
    Chunks,
    anthropic_events,
    workspace_answer,
    workspace_for,
)
from tests.tui.conftest import NOW, SIZE, settle

FIRST_HALF = "Merging the two notes about the CI database port "
SECOND_HALF = "into one rule, and a new entry for the alembic heads."


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


class HeldBack(list[bytes]):
    """The reply's two writes; the server asks for the second only when `release` is set, so the
    first half is on screen with the stream still open for as long as the test needs."""

    def __init__(self, first: bytes, rest: bytes, release: threading.Event) -> None:
        super().__init__([first, rest])
        self.release = release

    def __iter__(self) -> Iterator[bytes]:
        yield self[0]
        self.release.wait(60)  # a failing test sets it too (finally), so the server never hangs
        yield self[1]


def _held_back_stream(tool_inputs: list[dict], release: threading.Event) -> Chunks:
    """The message in two writes: everything up to the first half of the text, then the rest."""
    events = anthropic_events(text=FIRST_HALF + SECOND_HALF, tool_inputs=tool_inputs, split=len(FIRST_HALF))
    cut = next(i for i, event in enumerate(events) if FIRST_HALF.encode() in event) + 1
    return Chunks("text/event-stream; charset=utf-8",
                  HeldBack(b"".join(events[:cut]), b"".join(events[cut:]), release))


@pytest.mark.slow
async def test_the_models_words_stream_into_the_dream_view(tmp_path: Path, frozen: None) -> None:
    release = threading.Event()
    with AnthropicServer([]) as server:
        workspace = workspace_for(tmp_path, {"engine": "anthropic", "anthropic": {
            "base_url": server.url, "max_retries": 0, "model": "claude-test"}})
        server.script.append(_held_back_stream(workspace_answer(workspace), release))
        app = create_app(workspace, clock=lambda: NOW)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press("4")
                await settle(app, pilot)
                await pilot.press("d")
                await settle(app, pilot)
                await pilot.press("enter")  # the configured engine, anthropic, is offered first
                screen = app.screen
                assert isinstance(screen, DreamScreen)
                stream = screen.query_one("#dream-stream", Log)
                # Starting the client and sending the request may take seconds on a busy machine.
                deadline = time.monotonic() + 60
                while FIRST_HALF.strip() not in "".join(stream.lines) and time.monotonic() < deadline:
                    await pilot.pause(0.01)
                shown = "".join(stream.lines)
                assert FIRST_HALF.strip() in shown and SECOND_HALF not in shown  # mid-stream
                assert screen.run is not None and screen.changeset is None
                release.set()
                for _ in range(100):
                    await settle(app, pilot)
                    if screen.run is None:
                        break
                assert not isinstance(app.screen, ErrorScreen)
                changeset = screen.changeset
                assert changeset is not None and changeset.engine == "anthropic" and changeset.complete
                # The model's new lesson was seen once: kept in memory, AGENTS.md unchanged.
                assert "create" in {p.op for p in changeset.reviewable}
                assert {p.route for p in changeset.reviewable if p.op == "create"} == {"memory"}
                assert changeset.usage["input_tokens"] == 1200
                assert ChangesetStore(workspace.dreams_dir).load(changeset.id).proposals
        finally:
            release.set()
    [request] = server.requests
    assert request.body["stream"] is True and request.body["model"] == "claude-test"
