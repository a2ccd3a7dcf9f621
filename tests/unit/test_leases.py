"""No batch is ever stranded (docs/architecture.md §4.3, store/leases.py).

A claim no open dream owns — its dream killed before it saved a record, its record closed, deleted
or unreadable — goes back through `release --stranded` (and, for the first kinds, the next dream);
an unreadable open record is listed and abandoned from its lease, moved aside, never deleted; an
open dream whose memories vanished with stm.db says so instead of "back to the queue"; a claim
another program holds is never touched.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dreamtui.cli import main
from dreamtui.dream.runner import dream
from dreamtui.errors import CommitRefused, InputError
from dreamtui.headless import run_headless
from dreamtui.model import NewMemory
from dreamtui.review.commit import abandon, commit
from dreamtui.review.decide import all_matching, decide
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.leases import GONE, release_dream, release_stranded, settle
from dreamtui.store.stm import LeaseHeld, STMStore, format_ts
from dreamtui.workspace.layout import Workspace
from tests.factories import DREAM_ID, NOW, basic, new_workspace, submit, write_entry


def cli(ws: Workspace, *args: str) -> Result:
    return CliRunner().invoke(main, ["--workspace", str(ws.root), *args], catch_exceptions=False)


def status(ws: Workspace) -> dict:
    result = cli(ws, "status", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def states(ws: Workspace) -> dict[str, int]:
    with STMStore.for_workspace(ws) as stm:
        return stm.counts()


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    workspace = new_workspace(tmp_path / "ws")
    submit(workspace, *[NewMemory(type="observation", title=f"lesson {i}",
                                  content=f"the CI job {i} needs port {5400 + i}") for i in range(6)])
    return workspace


def claim_without_record(ws: Workspace, limit: int = 4) -> str:
    """What a dream killed between its claim and its first save leaves: a lease, no record."""
    with STMStore.for_workspace(ws) as stm:
        lease = stm.claim(limit=limit, lease_minutes=30)
    assert lease is not None
    return lease.id


def foreign_claim(ws: Workspace, count: int = 2) -> str:
    """A lease a Dreamer server sharing stm.db took for its own dream (dreamtui never took it)."""
    lease_id = "dreamer-lease-1"
    with STMStore.for_workspace(ws) as stm:
        pending = [m.id for m in stm.page(newest_first=False) if m.state == "pending"][:count]
    conn = __import__("sqlite3").connect(ws.stm_path)
    with conn:
        conn.execute("INSERT INTO dream_leases VALUES (?, 'default', ?, ?)",
                     (lease_id, format_ts(NOW), format_ts(NOW + timedelta(days=3650))))
        conn.executemany("UPDATE stm_memories SET consumed_by_lease = ? WHERE id = ?",
                         [(lease_id, i) for i in pending])
    conn.close()
    return lease_id


# -- a dream killed before its record --------------------------------------------------------------


def test_status_names_a_claim_no_dream_owns_and_release_stranded_returns_it(ws: Workspace) -> None:
    lease_id = claim_without_record(ws)
    shown = status(ws)
    assert shown["stm"]["claimed"] == 4 and shown["claims"]["stranded"] == 4
    assert shown["claims"]["stranded_leases"] == [{"lease": lease_id, "memories": 4, "state": "unnamed",
                                                   "dream": None}]
    human = cli(ws, "status").stdout
    assert "4 claimed by a lease no open dream owns — `dreamtui release --stranded`" in human

    released = cli(ws, "release", "--stranded")
    assert released.exit_code == 0 and "4 memories back to the queue" in released.stdout
    assert states(ws) == {"pending": 6, "claimed": 0, "consumed": 0}
    assert status(ws)["claims"]["stranded"] == 0
    assert "nothing stranded" in cli(ws, "release", "--stranded").stdout


def test_the_next_dream_returns_unnamed_claims_before_it_claims(ws: Workspace) -> None:
    claim_without_record(ws)
    changeset = dream(ws, now=NOW)
    assert changeset is not None
    assert len(changeset.batch) == 6  # the stranded four are in this batch
    assert "4 claimed memories no open dream owned" in str(changeset.stats["settled"])


def test_the_cron_gates_count_stranded_claims_as_pending(ws: Workspace) -> None:
    claim_without_record(ws)  # 2 of 6 left pending: under headless.min_pending (5)
    result = run_headless(ws, now=NOW)
    assert result.exit_code == 0 and result.summary.get("dream_id"), result.message
    assert states(ws)["claimed"] == 6


def test_the_next_dream_closes_a_dream_that_never_completed(ws: Workspace) -> None:
    first = dream(ws, now=NOW, limit=3)
    assert first is not None
    # As a kill mid-engine leaves it: published, open, incomplete, its lease alive.
    first.complete = False
    ChangesetStore(ws.dreams_dir).save(first)
    assert status(ws)["claims"]["interrupted"] == [first.id]
    second = dream(ws, now=NOW + timedelta(seconds=1))
    assert second is not None and len(second.batch) == 6
    assert ChangesetStore(ws.dreams_dir).load(first.id).status == "abandoned"


def test_a_lease_left_behind_a_closed_record_is_released(ws: Workspace) -> None:
    changeset = dream(ws, now=NOW)
    assert changeset is not None and changeset.lease_id is not None
    # A crash between abandon's "abandoned" and the end of the lease.
    changeset.status = "abandoned"
    ChangesetStore(ws.dreams_dir).save(changeset)
    shown = status(ws)["claims"]
    assert shown["stranded"] == 6 and shown["stranded_leases"][0]["state"] == "closed"
    assert release_dream(ws, changeset.id) == 6
    assert states(ws)["pending"] == 6


def test_release_refuses_an_open_dream_and_a_bad_call(ws: Workspace) -> None:
    changeset = dream(ws, now=NOW)
    assert changeset is not None
    with pytest.raises(InputError, match=f"`dreamtui abandon {changeset.id}`"):
        release_dream(ws, changeset.id)
    assert cli(ws, "release").exit_code == 2
    assert cli(ws, "release", changeset.id, "--stranded").exit_code == 2
    assert release_stranded(ws) == []  # an open dream's claim is not stranded
    assert states(ws)["claimed"] == 6


def test_another_programs_claim_is_never_released(ws: Workspace) -> None:
    foreign_claim(ws)
    shown = status(ws)["claims"]
    assert (shown["foreign"], shown["stranded"]) == (2, 0)
    assert "claimed by a lease dreamtui did not take" in cli(ws, "status").stdout
    # While its dream lease is live dreamtui writes nothing at all (issue 15, problem 2): neither
    # returns its claims nor dreams beside it.
    for write in (release_stranded, settle, lambda w: dream(w, now=NOW)):
        with pytest.raises(LeaseHeld, match="lease dreamer- holds tenant 'default'"):
            write(ws)
    refused = cli(ws, "release", "--stranded")
    assert refused.exit_code == 4 and "a Dreamer server" in refused.output
    assert states(ws)["claimed"] == 2


# -- a corrupt open record ---------------------------------------------------------------------------


def _corrupt(ws: Workspace, dream_id: str, keep: int) -> Path:
    path = ws.dreams_dir / f"{dream_id}.json"
    path.write_bytes(path.read_bytes()[:keep])
    return path


def test_an_unreadable_open_record_is_listed_and_abandoned_from_its_lease(ws: Workspace) -> None:
    changeset = dream(ws, now=NOW)
    assert changeset is not None
    path = _corrupt(ws, changeset.id, 300)  # the header line, with the lease id, cut short
    listed = cli(ws, "review", "list")
    assert f"{changeset.id}  unreadable: " in listed.stdout and "invalid JSON" in listed.stdout
    assert f"`dreamtui abandon {changeset.id}`" in listed.stdout
    as_json = json.loads(cli(ws, "review", "list", "--open", "--json").stdout)
    assert [(d["id"], d["status"]) for d in as_json] == [(changeset.id, "unreadable")]
    assert settle(ws) is None  # a person looks at it first: the next dream leaves it alone
    assert states(ws)["claimed"] == 6
    for refused in (["decide", changeset.id, "--all", "accept"], ["commit", changeset.id]):
        assert cli(ws, *refused).exit_code == 2

    done = cli(ws, "abandon", changeset.id)
    assert done.exit_code == 0, done.output
    assert f"moved aside to {changeset.id}.json.corrupt" in done.stdout
    assert "6 memories back to the queue" in done.stdout
    assert not path.exists() and (ws.dreams_dir / f"{changeset.id}.json.corrupt").read_bytes()
    assert states(ws) == {"pending": 6, "claimed": 0, "consumed": 0}


def test_a_record_without_a_readable_lease_is_moved_aside_and_release_stranded_covers_it(
        ws: Workspace) -> None:
    changeset = dream(ws, now=NOW)
    assert changeset is not None
    path = ws.dreams_dir / f"{changeset.id}.json"
    path.write_bytes(b"\x00garbage")
    (ws.dreams_dir / f"{changeset.id}.json.corrupt").write_text("an older one")  # never overwritten
    done = abandon(ws, changeset.id)
    assert (done.lease_found, done.released) == (False, 0)
    assert done.moved_to == ws.dreams_dir / f"{changeset.id}.json.corrupt.2"
    assert done.moved_to.read_bytes() == b"\x00garbage"
    assert (ws.dreams_dir / f"{changeset.id}.json.corrupt").read_text() == "an older one"
    assert [r.released for r in release_stranded(ws)] == [6]


def test_deleting_an_open_record_strands_nothing(ws: Workspace) -> None:
    changeset = dream(ws, now=NOW)
    assert changeset is not None
    (ws.dreams_dir / f"{changeset.id}.json").unlink()
    assert status(ws)["claims"]["stranded"] == 6
    assert "6 claimed memories" in str(settle(ws))
    assert states(ws)["pending"] == 6


# -- stm.db replaced or truncated ------------------------------------------------------------------


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_an_open_dream_whose_memories_left_with_stm_db_says_so(tmp_path: Path, how: str) -> None:
    s, _ = basic(tmp_path)
    s.decide_all("accept")
    for suffix in ("", "-wal", "-shm"):
        target = Path(f"{s.ws.stm_path}{suffix}")
        if how == "deleted" or not suffix:
            target.unlink(missing_ok=True) if how == "deleted" else target.write_bytes(b"")
    shown = cli(s.ws, "status")
    assert f"warning: dream {DREAM_ID}: {GONE}" in shown.stdout
    assert GONE in cli(s.ws, "review", "show", DREAM_ID).stdout
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert (report.consumed, report.released) == (0, 0)
    assert any(GONE in w and "no memory was consumed or returned" in w for w in report.warnings)
    assert not any("return to the queue" in w for w in report.warnings)
    assert report.counts["created"] == 1  # the LTM changes are committed all the same


def test_abandoning_a_dream_whose_memories_are_gone_says_so(tmp_path: Path) -> None:
    s, _ = basic(tmp_path)
    os.unlink(s.ws.stm_path)
    done = cli(s.ws, "abandon", DREAM_ID)
    assert done.exit_code == 0 and f"{GONE}; nothing returned to the queue" in done.stdout


# -- two open dreams proposing the same new path -----------------------------------------------------


def _two_dreams_creating_one_path(ws: Workspace) -> tuple[str, str]:
    submit(ws, NewMemory(type="observation", title="Apply alembic migrations first",
                         content="Run alembic upgrade head before the seed script, or it fails."))
    first = dream(ws, now=NOW, limit=1)
    submit(ws, NewMemory(type="observation", title="Apply alembic migrations first",
                         content="Seeding a fresh database fails until alembic upgrade head ran."))
    second = dream(ws, now=NOW + timedelta(seconds=1))
    assert first is not None and second is not None
    (create,) = [p for p in first.proposals if p.op == "create"]
    assert [p.target for p in second.proposals if p.op == "create"] == [create.target]
    decide(ws, first.id, [create.id], "accept", now=NOW)
    commit(ws, first.id, now=NOW)
    return second.id, next(p.id for p in second.proposals if p.target == create.target)


def test_a_second_create_of_one_path_is_refused_with_the_ways_on(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws")
    second, proposal = _two_dreams_creating_one_path(ws)
    decide(ws, second, [proposal], "accept", now=NOW)
    with pytest.raises(CommitRefused) as refused:
        commit(ws, second, now=NOW)
    message = str(refused.value)
    assert f"`dreamtui abandon {second}`" in message
    assert f"`dreamtui decide {second} {proposal} reject`" in message
    # Either way on works: rejecting it lets the commit go.
    decide(ws, second, [proposal], "reject", now=NOW)
    assert commit(ws, second, now=NOW).counts["rejected"] == 1


def test_abandoning_the_second_dream_and_dreaming_again_commits(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws")
    second, _ = _two_dreams_creating_one_path(ws)
    assert abandon(ws, second).released == 1
    again = dream(ws, now=NOW + timedelta(seconds=2))
    assert again is not None
    decide(ws, again.id, all_matching(), "accept", now=NOW)
    report = commit(ws, again.id, now=NOW)  # weighed against the entry the first dream made
    assert not report.conflicts and report.consumed == 1


# -- the LTM counts status gives ---------------------------------------------------------------------


BROKEN = {
    "topics/no-frontmatter.md": "just text\n",
    "topics/bad-yaml.md": "---\ntitle: [broken\nslug: bad-yaml\n---\nx\n",
    "topics/bad-slug.md": "---\ntitle: Bad\nslug: ___\n---\nx\n",  # nor kebab-cased a slug
    "topics/no-title.md": "---\nslug: no-title\n---\nx\n",  # read: titled by its file name, as Dreamer does
    "topics/dup-a.md": "---\ntitle: A\nslug: dup\n---\nx\n",
    "topics/dup-b.md": "---\ntitle: B\nslug: dup\n---\nx\n",  # the duplicate: skipped
    "incidents/2026-11/2026-11-01-list.md": "---\n- a\n- b\n---\nx\n",
}


def test_status_counts_every_entry_the_store_cannot_read(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws")
    for path, text in BROKEN.items():
        write_entry(ws.memory_root, path, text)
    (ws.memory_root / "topics" / "latin1.md").write_bytes(b"---\ntitle: caf\xe9\nslug: latin1\n---\nx\n")
    (ws.memory_root / "topics" / "passwd.md").symlink_to("/etc/passwd")
    write_entry(ws.memory_root, "topics/fine.md", "---\ntitle: Fine\nslug: fine\nflags: 2\n---\nx\n")
    first = status(ws)["ltm"]
    assert first["malformed"] == 7, first  # 4 broken files, a duplicate slug, non-UTF-8, a link out
    assert (first["topics"], first["flagged"]) == (3, 1)  # fine.md, dup-a.md and no-title.md
    assert "7 entry files cannot be read as entries" in cli(ws, "status").stdout
    assert status(ws)["ltm"] == first  # from the cache
    (ws.memory_root / "topics" / "bad-slug.md").write_text("---\ntitle: T\nslug: bad-slug\n---\nx\n")
    assert status(ws)["ltm"]["malformed"] == 6  # an edit is seen at once
