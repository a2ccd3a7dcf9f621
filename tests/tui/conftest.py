"""A copy of the sample workspace with its queue seeded, a frozen clock and UTC, for every TUI test.

Everything that would differ between runs is pinned: the app's clock, the STM's timestamps and
uuid4 ids (the seed has neither), and the random part of dream ids. Nothing waits on the wall
clock: the filters' typing pause is zero, typed text arrives as one paste, and the workspace with
a heuristic dream already run is built once, through the core, and copied for each test.
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot

from dreamtui.clock import RandomIds
from dreamtui.dream.runner import dream
from dreamtui.scaffold import seed_stm
from dreamtui.tui.app import DreamtuiApp, create_app
from dreamtui.tui.screens.memory import MemoryScreen
from dreamtui.tui.screens.queue import QueueScreen
from dreamtui.workspace.layout import Workspace, open_workspace

REPO = Path(__file__).parents[2]
SAMPLE = REPO / "sample_workspace"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SEEDED_AT = datetime(2026, 11, 29, 9, 30, tzinfo=UTC)
SIZE = (120, 36)
NAME = "acme-shop"  # the folder's name shows in the view bar of every snapshot


class FixedIds(RandomIds):
    """Counting uuid4 ids and dream-id suffixes: the same on every run. The counts say how many
    were given out, so a copy of a workspace can go on where its builder stopped."""

    def __init__(self, uuids: int = 0, tokens: int = 0) -> None:
        self.uuids = uuids
        self.tokens = tokens

    def uuid4(self) -> str:
        # Distinct leading digits, as real ids have: lists show only the first eight.
        self.uuids += 1
        n = self.uuids
        return str(uuid.UUID(int=((n * 2654435761) % 2**32) << 96 | n, version=4))

    def token_hex(self, nbytes: int) -> str:
        # "ab12" for the first dream; a later dream in the same frozen second needs an id of its own.
        suffix = f"{0xab12 + self.tokens:04x}"
        self.tokens += 1
        return suffix[: 2 * nbytes]


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty config home: the person's own themes must not reach a test or a snapshot."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_typing_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    """The filters run at once: tests wait for jobs, never for a debounce on the wall clock."""
    monkeypatch.setattr(QueueScreen, "FILTER_DELAY", 0.0)
    monkeypatch.setattr(MemoryScreen, "FILTER_DELAY", 0.0)


def _seeded(root: Path, ids: FixedIds) -> Workspace:
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__init__.py", "__pycache__", "*.db*"))
    # The workspace's clock is the seed time (so ages are stable) and its ids count.
    opened = open_workspace(root, clock=lambda: SEEDED_AT, ids=ids)
    seed_stm(opened, root / "stm_seed.jsonl")
    return opened


@pytest.fixture
def workspace(tmp_path: Path, frozen: None) -> Workspace:
    return _seeded(tmp_path / NAME, FixedIds())


@pytest.fixture(scope="session")
def _dreamed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FixedIds]:
    """The sample workspace after the heuristic dream the Dream view would run (`d`, enter) at NOW."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", "UTC")
        time.tzset()
        ids = FixedIds()
        built = _seeded(tmp_path_factory.mktemp("dreamed") / NAME, ids)
        assert dream(built, now=NOW) is not None
    time.tzset()
    return built.root, ids


@pytest.fixture
def dreamed_workspace(tmp_path: Path, frozen: None, _dreamed: tuple[Path, FixedIds]) -> Workspace:
    """A copy of the dreamed workspace: one open dream, its batch claimed."""
    built, ids = _dreamed
    root = tmp_path / NAME
    shutil.copytree(built, root)
    return open_workspace(root, clock=lambda: SEEDED_AT, ids=FixedIds(ids.uuids, ids.tokens))


def _app_factory(workspace: Workspace) -> Callable[..., DreamtuiApp]:
    def make(theme: str | None = None) -> DreamtuiApp:
        return create_app(workspace, theme=theme, clock=lambda: NOW)

    return make


@pytest.fixture
def make_app(workspace: Workspace) -> Iterator[Callable[..., DreamtuiApp]]:
    yield _app_factory(workspace)


@pytest.fixture
def make_dreamed_app(dreamed_workspace: Workspace) -> Iterator[Callable[..., DreamtuiApp]]:
    yield _app_factory(dreamed_workspace)


async def settle(app: DreamtuiApp, pilot: object) -> None:
    """Let every job finish and every message it posted be handled (jobs may start jobs)."""
    for _ in range(4):
        await app.workers.wait_for_complete()
        await pilot.pause()  # type: ignore[attr-defined]


async def type_text(pilot: Pilot[None], text: str) -> None:
    """`text` into the focused widget in one event, as a paste arrives: one change, not one a key."""
    pilot.app.post_message(events.Paste(text))
    await pilot.pause()
