"""A copy of the sample workspace with its queue seeded, a frozen clock and UTC, for every TUI test.

Everything that would differ between runs is pinned: the app's clock, the STM's timestamps and
uuid4 ids (the seed has neither), and the random part of dream ids.
"""

from __future__ import annotations

import itertools
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dreamtui.clock import RandomIds
from dreamtui.scaffold import seed_stm
from dreamtui.tui.app import DreamtuiApp, create_app
from dreamtui.workspace.layout import Workspace, open_workspace

REPO = Path(__file__).parents[2]
SAMPLE = REPO / "sample_workspace"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SEEDED_AT = datetime(2026, 11, 29, 9, 30, tzinfo=UTC)
SIZE = (120, 36)


class FixedIds(RandomIds):
    """Counting uuid4 ids and dream-id suffixes: the same on every run."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        # "ab12" for the first dream; a later dream in the same frozen second needs an id of its own.
        self._suffixes = (f"{0xab12 + i:04x}" for i in itertools.count())

    def uuid4(self) -> str:
        # Distinct leading digits, as real ids have: lists show only the first eight.
        n = next(self._counter)
        return str(uuid.UUID(int=((n * 2654435761) % 2**32) << 96 | n, version=4))

    def token_hex(self, nbytes: int) -> str:
        return next(self._suffixes)[: 2 * nbytes]


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


@pytest.fixture
def workspace(tmp_path: Path, frozen: None) -> Workspace:
    root = tmp_path / "acme-shop"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__init__.py", "__pycache__", "*.db*"))
    # The workspace's clock is the seed time (so ages are stable) and its ids count.
    opened = open_workspace(root, clock=lambda: SEEDED_AT, ids=FixedIds())
    seed_stm(opened, root / "stm_seed.jsonl")
    return opened


@pytest.fixture
def make_app(workspace: Workspace) -> Iterator[Callable[..., DreamtuiApp]]:
    def make(theme: str | None = None) -> DreamtuiApp:
        return create_app(workspace, theme=theme, clock=lambda: NOW)

    yield make


async def settle(app: DreamtuiApp, pilot: object) -> None:
    """Let every job finish and every message it posted be handled (jobs may start jobs)."""
    for _ in range(4):
        await app.workers.wait_for_complete()
        await pilot.pause()  # type: ignore[attr-defined]
