"""Third-party-style engines for the dream runner's tests, loaded as `tests.engines_for_tests:<Class>`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from dreamtui.dream.engines.base import CancelToken, Done, DreamInput, Event, Failed, Progress, ProposalReady
from dreamtui.dream.proposals import discard_proposal, make_proposal
from dreamtui.workspace.config import Config

PAUSE_S = 0.7  # longer than the runner's save interval, so a save happens mid-stream


class _Base:
    name = "test"

    def __init__(self, config: Config) -> None:
        self.config = config


class Boom(_Base):
    """Proposes one discard, then crashes."""

    name = "boom"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        yield ProposalReady(discard_proposal(dream_input.batch[0], "noise"))
        raise RuntimeError("the model returned garbage")


class Fails(_Base):
    """Reports a failure the clean way."""

    name = "fails"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        yield Progress(0, 1, "connecting")
        yield Failed("model unreachable at http://localhost:11434 (check dream.ollama.host)")


class Slow(_Base):
    """Proposes one discard, pauses, proposes the rest: the changeset must be on disk meanwhile."""

    name = "slow"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        first, *rest = dream_input.batch
        yield ProposalReady(discard_proposal(first, "noise"))
        await asyncio.sleep(PAUSE_S)
        yield Progress(1, 2, "thinking")
        for memory in rest:
            yield ProposalReady(discard_proposal(memory, "noise"))
        yield Done({"slow": True})


class Endless(_Base):
    """Streams progress until cancelled, then stops (without Done, like a cancelled engine)."""

    name = "endless"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        step = 0
        while not cancel.cancelled:
            step += 1
            yield Progress(step, 0, "dreaming")
            await asyncio.sleep(0.01)


class NoDone(_Base):
    """Ends its stream without saying it is done."""

    name = "no-done"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        yield Progress(0, 1, "starting")


class Unruly(_Base):
    """Proposes what the guard must refuse, twice the same discard, and leaves a memory unused."""

    name = "unruly"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        first = dream_input.batch[0]
        yield ProposalReady(make_proposal(
            "create", "../outside.md", slug="outside", before=None, after="---\nslug: outside\n---\n",
            rationale="escape", memories=[first], confidence=0.5))
        yield ProposalReady(make_proposal(
            "context", "context/AGENTS.md", slug=None, before=None, after="# my own bundle\n",
            rationale="write the bundle myself", memories=[first], confidence=0.5))
        yield ProposalReady(discard_proposal(first, "noise"))
        yield ProposalReady(discard_proposal(first, "noise"))
        yield Done()


class SyncRun(_Base):
    """Not an engine: `run` is a plain method."""

    def run(self, dream_input: DreamInput, cancel: CancelToken) -> list[Event]:
        return [Done()]


class Budgeted(_Base):
    """Like an LLM engine over its token budget: proposes on the first memory, never sees the rest."""

    name = "budgeted"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        first, *rest = dream_input.batch
        yield ProposalReady(discard_proposal(first, "noise"))
        yield Done({"left_out": [m.id for m in rest]})


class Silent(_Base):
    """Proposes nothing: every batch memory is left to the runner's unused-memory discards."""

    name = "silent"

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        yield Done()


class Recorder(_Base):
    """Proposes nothing and keeps the DreamInput it was given, for tests of what engines get."""

    name = "recorder"
    seen: list[DreamInput] = []

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncIterator[Event]:
        Recorder.seen.append(dream_input)
        yield Done()
