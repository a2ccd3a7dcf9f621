"""A dream SIGKILLed at any moment strands nothing and loses nothing (docs/architecture.md §4.3).

A fixed number of `dreamtui dream` subprocesses on one workspace, each killed with SIGKILL: the
first two at the runner's crash points (DREAMTUI_CRASH_AT=dream-claimed, between the claim and
the first save of the record, and dream-published, just after it), the rest at a random moment
(seeded) while it starts, claims, scans LTM or runs the engine. After each kill every claimed
memory either belongs to an open dream that loads, or `dreamtui release --stranded` returns it;
then abandoning every open dream returns the whole queue: no memory lost, none consumed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from dreamtui.cli import main
from dreamtui.dream.runner import DREAM_CRASH_POINTS
from dreamtui.model import NewMemory
from dreamtui.review.commit import abandon
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.journal import CRASH_ENV
from dreamtui.store.leases import claims, read_records
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace
from tests.factories import entry_text, new_workspace, submit, write_entry

pytestmark = pytest.mark.slow  # ten dream subprocesses, about 1-2 s each

SRC = str(Path(__file__).resolve().parents[2] / "src")
CLI = "from dreamtui.cli.main import main; main()"
ITERATIONS = 10
ENTRIES = 1000  # an LTM scan long enough to be killed in (it once ran between claim and save)
MEMORIES = 300
BATCH = 40
KILL_WINDOW_S = (0.2, 2.0)  # a dream here takes 1-2.5 s from exec to its last save


def _workspace(root: Path) -> tuple[Workspace, set[str]]:
    ws = new_workspace(root, stm__batch_size=BATCH)
    for i in range(ENTRIES):
        write_entry(ws.memory_root, f"topics/service-{i}.md",
                    entry_text(f"service-{i}", body=f"Service {i} listens on port {10000 + i}.\n"))
    ids = submit(ws, *[NewMemory(type="observation", title=f"lesson {i}",
                                 content=f"job {i} needs port {20000 + i} and cache {i}")
                       for i in range(MEMORIES)])
    return ws, set(ids)


def _kill_a_dream(ws: Workspace, crash_at: str | None, delay: float) -> int:
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop(CRASH_ENV, None)
    if crash_at is not None:
        env[CRASH_ENV] = crash_at
    proc = subprocess.Popen([sys.executable, "-c", CLI, "--workspace", str(ws.root), "dream"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    return proc.wait(timeout=60)


def _unowned(ws: Workspace) -> int:
    """Claimed memories no open dream that loads owns."""
    with STMStore.for_workspace(ws) as stm:
        return sum(c.holding.memories for c in claims(stm, read_records(ws.dreams_dir))
                   if c.state != "owned")


def _states(ws: Workspace) -> dict[str, str]:
    with STMStore.for_workspace(ws) as stm:
        return {m.id: m.state for m in stm.page(limit=10 * MEMORIES)}


def test_a_dream_killed_at_any_moment_strands_nothing(tmp_path: Path) -> None:
    ws, ids = _workspace(tmp_path / "ws")
    rng = random.Random(16)
    plan = [(point, 60.0) for point in DREAM_CRASH_POINTS]
    plan += [(None, rng.uniform(*KILL_WINDOW_S)) for _ in range(ITERATIONS - len(plan))]
    stranded_kills = 0
    started = time.monotonic()
    for crash_at, delay in plan:
        code = _kill_a_dream(ws, crash_at, delay)
        if crash_at is not None:
            assert code == -signal.SIGKILL, crash_at  # the crash point was reached
        stranded = _unowned(ws)
        if stranded:
            stranded_kills += 1
            released = CliRunner().invoke(main, ["--workspace", str(ws.root), "release", "--stranded"])
            assert released.exit_code == 0, released.output
            assert f"{stranded} memories back to the queue" in released.stdout
        assert _unowned(ws) == 0, (crash_at, delay)
        states = _states(ws)
        assert set(states) == ids  # nothing lost
        assert "consumed" not in states.values()
        # What the kill left open (an incomplete dream, or a finished one) returns the rest.
        for summary in ChangesetStore(ws.dreams_dir).open_changesets():
            abandon(ws, summary.id)
        assert set(_states(ws).values()) == {"pending"}, (crash_at, delay)
    assert stranded_kills >= 1  # the claim-to-save window was hit at least once (dream-claimed)
    assert time.monotonic() - started < 240
