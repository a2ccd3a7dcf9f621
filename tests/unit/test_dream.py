"""The dream runner: claims, durable changesets, guards, failures that give the batch back."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import timedelta

import pytest

from dreamtui.clock import RandomIds
from dreamtui.dream.engines.base import CancelToken, Event, ProposalReady
from dreamtui.dream.proposals import content_fingerprint
from dreamtui.dream.runner import (
    UNUSED_REASON,
    dream,
    dream_async,
)
from dreamtui.errors import DreamError, InputError
from dreamtui.model import Changeset, NewMemory, utcnow
from dreamtui.review.commit import commit
from dreamtui.review.decide import all_matching, decide
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.ltm import LTMStore
from dreamtui.store.rejections import rejected_fingerprints, remember_rejections
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace
from tests.factories import NOW, submit

ENGINES = "tests.engines_for_tests"

PORT = NewMemory(type="failure", title="CI Postgres service port", agent_id="agent-a", tags=("ci",),
                 content="In CI the Postgres service is exposed on port 5433, not the default.")
PORT_AGAIN = NewMemory(type="failure", title="CI postgres port", agent_id="agent-b", tags=("ci",),
                       content="In CI, the Postgres service is exposed on port 5433, not the default port.")
PORT_LOOKALIKE = NewMemory(type="failure", title="CI Postgres service port", agent_id="agent-c", tags=("ci",),
                           content="In CI the Postgres service is exposed on port 5432, not the default.")
DB_RESET = NewMemory(type="observation", title="Reset the test database", agent_id="agent-a",
                     tags=("testing",), content="Run make db-reset before pytest tests/integration.")
CONFIRM_NOTHING = NewMemory(type="context_confirmed", title="confirmed gone", agent_id="agent-a",
                            content="It helped.", metadata={"target": "gone"})


def states(workspace: Workspace) -> dict[str, int]:
    with STMStore.for_workspace(workspace) as store:
        return store.counts()


def saved(workspace: Workspace, changeset: Changeset) -> dict:
    path = ChangesetStore(workspace.dreams_dir).path_for(changeset.id)
    return json.loads(path.read_text(encoding="utf-8"))


def test_nothing_pending_means_no_dream(workspace: Workspace) -> None:
    assert dream(workspace, now=NOW) is None
    assert ChangesetStore(workspace.dreams_dir).list() == []


def test_a_dream_records_a_complete_changeset_and_keeps_its_batch(workspace: Workspace) -> None:
    ids = submit(workspace, PORT, PORT_AGAIN, DB_RESET, CONFIRM_NOTHING)
    changeset = dream(workspace, now=NOW)
    assert changeset is not None and changeset.complete and changeset.status == "open"
    assert saved(workspace, changeset) == json.loads(json.dumps(changeset.to_dict()))
    assert sorted(changeset.batch) == sorted(ids)
    ops = [p.op for p in changeset.reviewable]
    assert ops.count("create") == 2 and ops.count("discard") == 1 and ops[-1] == "context"
    assert changeset.bundle is not None and changeset.bundle.op == "context"
    assert changeset.stats["batch_size"] == 4 and changeset.stats["ops"]["create"] == 2
    used = {i for p in changeset.proposals for i in p.evidence}
    assert used == set(ids)  # every memory is evidence of some proposal
    assert states(workspace)["claimed"] == 4  # held while the changeset waits for review
    with STMStore.for_workspace(workspace) as store:
        assert store.lease_alive(changeset.lease_id or "", now=utcnow() + timedelta(days=20))
    assert not any((workspace.memory_root / "topics").iterdir())  # a dream writes no entry


def test_the_changeset_is_on_disk_before_the_engine_finishes(workspace: Workspace) -> None:
    submit(workspace, PORT, DB_RESET, PORT_LOOKALIKE)
    seen: list[tuple[int, bool]] = []

    def on_event(event: Event, changeset: Changeset) -> None:
        data = saved(workspace, changeset)
        seen.append((len(data["proposals"]), data["complete"]))

    changeset = dream(workspace, engine=f"{ENGINES}:Slow", on_event=on_event, now=NOW)
    assert changeset is not None and changeset.engine == "slow"
    assert seen[0] == (0, False)  # the file exists from the first event on
    assert (1, False) in seen  # after the pause, the first proposal was saved mid-stream
    # Proposals saved mid-stream are encoded once and reused: the last save must still be whole.
    assert saved(workspace, changeset) == json.loads(json.dumps(changeset.to_dict()))


def test_memories_the_engine_never_saw_go_back_to_the_queue(workspace: Workspace) -> None:
    first, *rest = submit(workspace, PORT, DB_RESET, PORT_LOOKALIKE)
    changeset = dream(workspace, engine=f"{ENGINES}:Budgeted", now=NOW)
    assert changeset is not None and changeset.complete
    assert changeset.batch == [first]  # no unseen memory can be decided, so none is consumed unread
    assert not any(i in p.evidence for p in changeset.proposals for i in rest)
    assert changeset.stats["left_out_memories"] == [f"stm:{i}" for i in rest]
    assert states(workspace) == {"pending": 2, "claimed": 1, "consumed": 0}


def test_an_engine_crash_gives_the_batch_back(workspace: Workspace) -> None:
    submit(workspace, PORT, DB_RESET)
    with pytest.raises(DreamError, match="engine boom failed: RuntimeError: the model returned garbage"):
        dream(workspace, engine=f"{ENGINES}:Boom", now=NOW)
    assert states(workspace)["pending"] == 2
    [summary] = ChangesetStore(workspace.dreams_dir).list()
    assert summary.status == "abandoned" and not summary.complete and summary.proposals == 1


def test_a_failed_event_gives_the_batch_back(workspace: Workspace) -> None:
    submit(workspace, PORT)
    with pytest.raises(DreamError, match=r"model unreachable .*dream\.ollama\.host"):
        dream(workspace, engine=f"{ENGINES}:Fails", now=NOW)
    assert states(workspace)["pending"] == 1


def test_an_engine_that_never_says_done_fails(workspace: Workspace) -> None:
    submit(workspace, PORT)
    with pytest.raises(DreamError, match="stopped without finishing"):
        dream(workspace, engine=f"{ENGINES}:NoDone", now=NOW)
    assert states(workspace)["pending"] == 1


def test_cancel_gives_the_batch_back(workspace: Workspace) -> None:
    submit(workspace, PORT, DB_RESET, PORT_AGAIN)
    token = CancelToken()

    def on_event(event: Event, changeset: Changeset) -> None:
        token.cancel()

    with pytest.raises(DreamError, match="dream cancelled; its 3 memories are back in the queue"):
        dream(workspace, engine=f"{ENGINES}:Endless", cancel=token, on_event=on_event, now=NOW)
    assert states(workspace)["pending"] == 3
    assert ChangesetStore(workspace.dreams_dir).list()[0].status == "abandoned"


def test_task_cancellation_gives_the_batch_back_and_propagates(workspace: Workspace) -> None:
    submit(workspace, PORT)

    async def run() -> None:
        task = asyncio.create_task(dream_async(workspace, engine=f"{ENGINES}:Endless", now=NOW))
        await asyncio.sleep(0.1)
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(run())
    assert states(workspace)["pending"] == 1


@pytest.mark.parametrize("engine, message", [
    ("nonexistent_pkg.engines:Engine", "cannot import nonexistent_pkg.engines"),
    (f"{ENGINES}:Missing", "has no class Missing"),
    (f"{ENGINES}:SyncRun", "`run` must be an async generator"),
    ("gpt", "not a built-in engine"),
])
def test_engine_loading_errors_claim_nothing(workspace: Workspace, engine: str, message: str) -> None:
    submit(workspace, PORT)
    with pytest.raises(InputError, match=message):
        dream(workspace, engine=engine, now=NOW)
    assert states(workspace)["pending"] == 1
    assert ChangesetStore(workspace.dreams_dir).list() == []


def test_refusals_stay_visible_and_no_memory_is_lost(workspace: Workspace) -> None:
    ids = submit(workspace, PORT, DB_RESET)
    changeset = dream(workspace, engine=f"{ENGINES}:Unruly", now=NOW)
    assert changeset is not None
    reasons = [r.reason for r in changeset.refused]
    assert any(r.startswith("target must be topics/outside.md") for r in reasons)
    assert any(r.startswith("engines do not propose the bundle") for r in reasons)
    discards = [p for p in changeset.proposals if p.op == "discard"]
    assert [p.target for p in discards] == [f"stm:{ids[0]}", f"stm:{ids[1]}"]  # the repeat was one
    assert discards[1].details["reason"] == UNUSED_REASON


def test_events_reach_the_callback_with_the_growing_changeset(workspace: Workspace) -> None:
    submit(workspace, PORT, DB_RESET)
    counts: list[int] = []

    def on_event(event: Event, changeset: Changeset) -> None:
        if isinstance(event, ProposalReady):
            counts.append(len(changeset.proposals))

    dream(workspace, on_event=on_event, now=NOW)
    assert counts == [1, 2]


def commit_everything(workspace: Workspace, changeset: Changeset) -> None:
    decide(workspace, changeset.id, all_matching(), "accept", now=NOW)
    commit(workspace, changeset.id, now=NOW)


def test_after_a_commit_nothing_is_proposed_again_and_a_repeat_reinforces(workspace: Workspace) -> None:
    submit(workspace, PORT, DB_RESET)
    first = dream(workspace, now=NOW)
    assert first is not None
    commit_everything(workspace, first)
    assert states(workspace)["consumed"] == 2
    assert dream(workspace, now=NOW) is None  # the same (consumed) input: nothing to propose

    [again] = submit(workspace, PORT_AGAIN)
    second = dream(workspace, now=NOW)
    assert second is not None
    entry_ops = [(p.op, p.slug) for p in second.proposals if p.op not in ("context", "discard")]
    # Another agent repeats a lesson seen once: it recurs, so the dream promotes it into the
    # bundle (issue 11, item 5) rather than only counting a confirmation.
    assert entry_ops == [("promote", "ci-postgres-service-port")]
    promote = second.proposals[0]
    assert f"stm:{again}" in promote.details["added_sources"] and promote.route == "bundle"
    live = LTMStore(workspace.memory_root).scan().live()
    assert len(live) == 2  # the dream proposed, it did not write


def test_look_alike_ports_make_two_entries_end_to_end(workspace: Workspace) -> None:
    submit(workspace, PORT, PORT_LOOKALIKE)
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    creates = [p for p in changeset.proposals if p.op == "create"]
    assert len(creates) == 2
    assert sorted("5433" in (p.after or "") for p in creates) == [False, True]


def test_rejections_are_remembered_and_honoured(workspace: Workspace) -> None:
    assert rejected_fingerprints(workspace) == frozenset()
    [memory_id] = submit(workspace, DB_RESET)
    with STMStore.for_workspace(workspace) as store:
        fingerprint = content_fingerprint(store.get_many([memory_id])[0])
    added = remember_rejections(workspace, [(fingerprint, "p-abc", "d-x"), ("p-abc", "p-abc", "d-x"),
                                            (fingerprint, "p-other", "d-y")], now=NOW)
    assert added == 2
    assert rejected_fingerprints(workspace) == frozenset({fingerprint, "p-abc"})
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    assert [(p.op, p.details.get("reason")) for p in changeset.proposals] == \
        [("discard", "previously rejected")]


def test_a_dream_never_takes_over_another_dreams_record(workspace: Workspace) -> None:
    submit(workspace, PORT)
    first = dream(workspace, now=NOW)
    assert first is not None
    before = ChangesetStore(workspace.dreams_dir).path_for(first.id).read_bytes()
    # The next dream draws the same id first (same second, same random part), then another:
    # the workspace's id source is the seam.
    suffixes = iter([first.id.rsplit("-", 1)[1], "cd34"])

    class Replaying(RandomIds):
        def token_hex(self, nbytes: int) -> str:
            return next(suffixes)

    submit(workspace, DB_RESET)
    second = dream(dataclasses.replace(workspace, ids=Replaying()), now=NOW)
    assert second is not None and second.id == first.id.rsplit("-", 1)[0] + "-cd34"
    assert ChangesetStore(workspace.dreams_dir).path_for(first.id).read_bytes() == before
    assert second.lease_id != first.lease_id


def test_the_cycle_collector_waits_for_the_whole_dream(workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claim, LTM scan, engine and finish all build objects that live until the dream ends: the
    collector is paused from the claim to the saved changeset, and running again afterwards."""
    import gc

    seen: dict[str, bool] = {}

    def watching(name: str, method):  # type: ignore[no-untyped-def]
        def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen[name] = gc.isenabled()
            return method(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(STMStore, "claim", watching("claim", STMStore.claim))
    monkeypatch.setattr(LTMStore, "scan", watching("scan", LTMStore.scan))
    monkeypatch.setattr(ChangesetStore, "save", watching("save", ChangesetStore.save))
    submit(workspace, PORT, DB_RESET)
    assert gc.isenabled()
    assert dream(workspace, now=NOW) is not None
    assert seen == {"claim": False, "scan": False, "save": False}
    assert gc.isenabled()
