"""Dreamer's lease protocol against the real server (issue 15, problems 2 and 3): an open dreamtui
review does not stop Dreamer's dreams, and a Dreamer dream racing a dreamtui commit on one folder
loses nothing."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from dreamtui.store.lock import WorkspaceLock
from dreamtui.workspace.layout import open_workspace
from tests.interop.conftest import Dreamer, dreamtui, scripted_engine

PORT = ("CI Postgres listens on 5433", "CI Postgres listens on port 5433, not the default 5432.")
PNPM = ("Use pnpm not yarn", "This repository installs with pnpm; yarn rewrites the lockfile.")


def submit(folder: Path, title: str, content: str) -> None:
    done = dreamtui("submit", "--type", "observation", "--title", title, "--content", content, cwd=folder)
    assert done.returncode == 0, done.stderr


def dreamed(folder: Path) -> str:
    """Dream (heuristic engine) and accept everything; the dream's id."""
    done = dreamtui("dream", cwd=folder)
    assert done.returncode == 0, done.stderr
    [record] = sorted((folder / ".dreamtui" / "dreams").glob("d-*.json"))
    dream_id = record.stem
    decided = dreamtui("decide", dream_id, "--all", "accept", cwd=folder)
    assert decided.returncode == 0, decided.stderr
    return dream_id


def states(dreamer: Dreamer, folder: Path) -> dict[str, str]:
    script = ("import json, sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(json.dumps({t: "
              "'consumed' if done else ('claimed' if lease else 'pending') for t, done, lease in "
              "c.execute('SELECT title, consumed_at, consumed_by_lease FROM stm_memories')}))")
    done = dreamer.run([str(dreamer.python), "-c", script, str(folder / "dreamer.db")], cwd=folder)
    return dict(json.loads(done.stdout))


def wait_for(path: Path, process: subprocess.Popen[str], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert process.poll() is None, f"dreamer dream ended early: {process.communicate()}"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_an_open_review_does_not_stop_dreamer(dreamer: Dreamer, folder: Path) -> None:
    submit(folder, *PORT)
    assert dreamtui("dream", cwd=folder).returncode == 0  # its changeset stays open, unreviewed
    dreamer.ops("submit", str(folder / "dreamer.db"),
                json.dumps({"agent_id": "claude", "type": "observation", "title": PNPM[0], "content": PNPM[1]}),
                cwd=folder)
    done = dreamer.cli("dream", "--log-level", "info", cwd=folder)
    assert "lease_held" not in done.stdout + done.stderr
    assert (folder / "workspace" / "memory" / "topics" / "use-pnpm-not-yarn.md").is_file()
    # Dreamer consumed its own memory and left the one the open review holds alone.
    assert states(dreamer, folder) == {PORT[0]: "claimed", PNPM[0]: "consumed"}


def test_a_dreamer_dream_and_a_dreamtui_commit_racing_lose_nothing(dreamer: Dreamer, folder: Path,
                                                                 tmp_path: Path) -> None:
    submit(folder, *PORT)
    dream_id = dreamed(folder)
    dreamer.ops("submit", str(folder / "dreamer.db"),
                json.dumps({"agent_id": "claude", "type": "observation", "title": PNPM[0], "content": PNPM[1]}),
                cwd=folder)
    started = tmp_path / "dreamer-started"
    scripted_engine(folder / "dreamer.yaml", sandbox=tmp_path / "race-sandboxes", delay_seconds=4,
                    started_file=started)
    racing = dreamer.popen("dream", cwd=folder)
    try:
        wait_for(started, racing)  # Dreamer has its lease and its snapshot of the tree
        refused = [dreamtui(*args, cwd=folder) for args in
                   (("commit", dream_id), ("dream",), ("flags", "list"))]
        assert [r.returncode for r in refused[:2]] == [4, 4], [r.stderr for r in refused]
        assert all("a Dreamer server" in r.stderr and "try again" in r.stderr for r in refused[:2])
        deadline = time.monotonic() + 120
        while (committed := dreamtui("commit", dream_id, cwd=folder)).returncode == 4:
            assert time.monotonic() < deadline, committed.stderr
            time.sleep(0.2)
        assert committed.returncode == 0, committed.stderr
    finally:
        out, err = racing.communicate(timeout=300)
    assert racing.returncode == 0, err
    memory = folder / "workspace" / "memory"
    assert (memory / "topics" / "use-pnpm-not-yarn.md").is_file()  # Dreamer's entry
    assert (memory / "topics" / "ci-postgres-listens-on-5433.md").is_file()  # dreamtui's entry survived
    log = (memory / "archive" / "LOG.md").read_text(encoding="utf-8")
    assert f"create topics/ci-postgres-listens-on-5433.md (new topic) [dream {dream_id}]" in log
    assert states(dreamer, folder) == {PORT[0]: "consumed", PNPM[0]: "consumed"}


def test_dreamer_skips_its_dream_while_dreamtui_writes(dreamer: Dreamer, folder: Path) -> None:
    dreamer.ops("submit", str(folder / "dreamer.db"),
                json.dumps({"agent_id": "claude", "type": "observation", "title": PNPM[0], "content": PNPM[1]}),
                cwd=folder)
    workspace = open_workspace(folder)
    with WorkspaceLock(workspace, "commit").acquire():  # what every dreamtui write holds
        skipped = dreamer.cli("dream", cwd=folder)
    assert "reason': 'lease_held'" in skipped.stderr
    assert states(dreamer, folder) == {PNPM[0]: "pending"}
    dreamer.cli("dream", cwd=folder)  # the lease went with the lock: Dreamer dreams again
    assert states(dreamer, folder) == {PNPM[0]: "consumed"}
