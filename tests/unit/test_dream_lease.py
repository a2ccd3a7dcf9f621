"""Dreamer's lease protocol (issue 15, problems 2, 6 and 7): dreamtui holds the tenant's
dream_leases row only while it writes, never while a review is open, writes nothing while another
program's lease is live, and never stores a row a Dreamer server cannot read."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dreamtui.cli import main
from dreamtui.dream.runner import dream
from dreamtui.errors import InputError
from dreamtui.model import NewMemory
from dreamtui.review.commit import commit, commit_human_change
from dreamtui.store.lock import WorkspaceLock
from dreamtui.store.stm import LeaseHeld, STMStore, format_ts
from dreamtui.workspace.layout import Workspace
from tests.factories import DREAM_ID, basic, entry_text, new_memory, submit

FOREIGN = "0d5e1c2a-dreamer-lease"


def lease_rows(ws: Workspace) -> list[tuple[str, str]]:
    with sqlite3.connect(ws.stm_path) as conn:
        return conn.execute("SELECT id, expires_at FROM dream_leases").fetchall()


def dreamer_acquires(ws: Workspace) -> bool:
    """What SQLiteDreamLeaseStore.acquire checks: no live row for the tenant."""
    now = format_ts(datetime.now(UTC))
    return not [row for row in lease_rows(ws) if row[1] > now]


def foreign_lease(ws: Workspace, minutes: int = 30) -> None:
    now = datetime.now(UTC)
    with sqlite3.connect(ws.stm_path) as conn:
        conn.execute("INSERT INTO dream_leases VALUES (?, 'default', ?, ?)",
                     (FOREIGN, format_ts(now), format_ts(now + timedelta(minutes=minutes))))


def test_an_open_review_holds_no_dream_lease_but_keeps_its_claim(workspace: Workspace) -> None:
    submit(workspace, new_memory("CI Postgres listens on 5433"), new_memory("Reset the test db first"))
    changeset = dream(workspace)
    assert changeset is not None and changeset.status == "open"
    assert lease_rows(workspace) == [] and dreamer_acquires(workspace)
    with STMStore.for_workspace(workspace) as stm:
        assert stm.counts()["claimed"] == 2
        assert stm.lease_alive(changeset.lease_id or "", now=datetime.now(UTC) + timedelta(days=400))
        # A later claim (dreamtui's or Dreamer's) takes nothing the review holds.
        assert stm.claim(limit=10, lease_minutes=5) is None


def test_the_lease_is_held_while_writing_and_given_back(workspace: Workspace) -> None:
    with WorkspaceLock(workspace, "commit").acquire():
        assert not dreamer_acquires(workspace)
        with WorkspaceLock(workspace, "commit").acquire():  # re-entered: still the one lease
            assert len(lease_rows(workspace)) == 1
    assert lease_rows(workspace) == []


def test_rows_left_by_a_killed_process_or_a_30_day_review_lease_are_dropped(workspace: Workspace) -> None:
    submit(workspace, new_memory("a lesson"))
    with STMStore.for_workspace(workspace) as stm:
        lease = stm.claim(limit=5, lease_minutes=30 * 24 * 60)  # as an older dreamtui held a review
    assert lease is not None
    with WorkspaceLock(workspace, "dream").acquire():
        pass
    assert lease_rows(workspace) == [] and dreamer_acquires(workspace)
    with STMStore.for_workspace(workspace) as stm:
        assert stm.counts()["claimed"] == 1  # the claim stays with its review


def _dream(ws: Workspace) -> Any:
    return dream(ws)


def _entry_change(ws: Workspace) -> Any:
    return commit_human_change(ws, "topics/by-hand.md", entry_text("by-hand"), "create", "a person knows")


@pytest.mark.parametrize("write", [_dream, _entry_change], ids=["dream", "entry change"])
def test_no_write_while_another_programs_dream_lease_is_live(workspace: Workspace,
                                                             write: Callable[[Workspace], Any]) -> None:
    submit(workspace, new_memory("a lesson"))
    foreign_lease(workspace)
    with pytest.raises(LeaseHeld, match="a Dreamer server.*lease 0d5e1c2a holds tenant 'default' until"):
        write(workspace)
    with STMStore.for_workspace(workspace) as stm:
        assert stm.counts() == {"pending": 1, "claimed": 0, "consumed": 0}
    assert not (workspace.memory_root / "topics" / "by-hand.md").exists()
    assert lease_rows(workspace) == [(FOREIGN, lease_rows(workspace)[0][1])]


def test_a_commit_waits_for_dreamers_dream_and_says_so(tmp_path: Path) -> None:
    s, _ = basic(tmp_path)
    s.decide_all("accept")
    foreign_lease(s.ws)
    with pytest.raises(LeaseHeld):
        commit(s.ws, DREAM_ID)
    assert set(s.states().values()) == {"claimed"}
    result = CliRunner().invoke(main, ["--workspace", str(s.ws.root), "commit", DREAM_ID])
    assert result.exit_code == 4 and "is dreaming: its lease 0d5e1c2a holds tenant 'default' until" in result.output
    assert result.output.count("nothing was done") == 1
    with sqlite3.connect(s.ws.stm_path) as conn:
        conn.execute("DELETE FROM dream_leases WHERE id = ?", (FOREIGN,))  # Dreamer's dream ended
    commit(s.ws, DREAM_ID)
    assert set(s.states().values()) == {"consumed"}


def test_an_expired_foreign_lease_does_not_block(workspace: Workspace) -> None:
    submit(workspace, new_memory("a lesson"))
    foreign_lease(workspace, minutes=-1)
    assert dream(workspace) is not None


@pytest.mark.parametrize("field", ["id", "tenant_id", "submitted_at", "consumed_by_lease", "title"])
def test_no_row_carries_an_extra_that_repeats_a_memory_field(workspace: Workspace, field: str) -> None:
    poison = NewMemory(type="observation", title="t", content="c", agent_id="a", extra={field: "x", "ok": 1})
    with STMStore.for_workspace(workspace) as stm:
        with pytest.raises(InputError, match=f"extra.{field}: '{field}' is a field of every memory"):
            stm.submit(poison)
        with pytest.raises(InputError, match=f"extra.{field}"):
            stm.submit_many([new_memory("fine"), poison])
        assert stm.count() == 0
        stm.submit(NewMemory(type="observation", title="t", content="c", agent_id="a", extra={"source": "x"}))
        assert stm.count() == 1


def test_dreamtuis_state_is_git_ignored_in_a_dreamer_folder(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    (folder / "workspace" / "memory").mkdir(parents=True)
    (folder / "workspace" / "context").mkdir()
    (folder / "dreamer.yaml").write_text("stm_store:\n  params:\n    db_path: ./dreamer.db\n", encoding="utf-8")
    (folder / ".gitignore").write_text("*.db\n*.db-journal\n*.db-shm\n*.db-wal\n", encoding="utf-8")  # dreamer init's
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    result = CliRunner().invoke(main, ["--workspace", str(folder), "submit", "--type", "observation",
                                       "--title", "t", "--content", "CI uses Node 20"])
    assert result.exit_code == 0, result.output
    assert CliRunner().invoke(main, ["--workspace", str(folder), "--headless", "dream"]).exit_code == 0
    untracked = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=all"],
                               capture_output=True, text=True, check=True).stdout
    assert ".dreamtui" not in untracked and (folder / ".dreamtui" / "dreams").is_dir()


def test_flag_triage_waits_for_dreamers_dream(seeded_sample: Workspace) -> None:
    def flags(*args: str) -> Any:
        return CliRunner().invoke(main, ["-w", str(seeded_sample.root), "flags", *args])

    listed = json.loads(flags("list", "--json").output)
    flag = next(str(g["flags"][0]["id"]) for g in listed["entries"] if g["entry"]["slug"] == "ci-ports")
    before = (seeded_sample.memory_root / "topics" / "ci-ports.md").read_text(encoding="utf-8")
    foreign_lease(seeded_sample)
    refused = flags("archive", flag[:8])
    assert refused.exit_code == 4 and "a Dreamer server" in refused.output
    assert (seeded_sample.memory_root / "topics" / "ci-ports.md").read_text(encoding="utf-8") == before
