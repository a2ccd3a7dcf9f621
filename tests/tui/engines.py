"""Test engines loaded by reference (`tests.tui.engines:StreamingEngine`), like a custom engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from dreamtui.dream.engines.base import CancelToken, Done, DreamInput, Event, Progress, TextDelta
from dreamtui.workspace.config import Config


class StreamingEngine:
    """Streams text like an LLM and never finishes on its own: it runs until cancelled."""

    name = "streaming"

    def __init__(self, config: Config) -> None:
        self.config = config

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        yield Progress(0, len(dream_input.batch), "reading the batch")
        yield TextDelta("Writing entry: ")
        # A word every 50 ms, as a model writes: between words the app is idle, so the test's key
        # presses do not wait out Pilot's idle timeout. 20 s at most, so a broken test cannot hang.
        for _ in range(400):
            if cancel.cancelled:
                break
            await asyncio.sleep(0.05)
            yield TextDelta("ok ")
        yield Done({})
