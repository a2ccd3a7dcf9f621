"""The heuristic engine on its own: clusters become entries, repeats reinforce, runs are stable."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Any

from dreamtui.dream.engines.base import CancelToken, Done, DreamInput, Event, Progress, ProposalReady
from dreamtui.dream.engines.heuristic import HeuristicEngine, entry_probe
from dreamtui.dream.guard import enforce
from dreamtui.dream.match import Features
from dreamtui.dream.proposals import content_fingerprint
from dreamtui.entry.codec import parse_entry
from dreamtui.model import FEEDBACK_FLAGGED, Memory, Proposal
from dreamtui.store.ltm import LTMSnapshot
from dreamtui.workspace.config import Config
from tests.factories import NOW, entry_text, memory, snapshot_of

mem = partial(memory, tags=("ci",))  # this module's memories are CI lessons unless they say otherwise


def dream_input(batch: list[Memory], snapshot: LTMSnapshot | None = None,
                rejected: frozenset[str] = frozenset()) -> DreamInput:
    return DreamInput(batch=batch, snapshot=snapshot or LTMSnapshot(), config=Config(), now=NOW,
                      rejected=rejected)


def events(data: DreamInput, cancel: CancelToken | None = None) -> list[Event]:
    async def collect() -> list[Event]:
        return [e async for e in HeuristicEngine(Config()).run(data, cancel or CancelToken())]
    return asyncio.run(collect())


def proposals(data: DreamInput) -> list[Proposal]:
    found = [e.proposal for e in events(data) if isinstance(e, ProposalReady)]
    kept, refused = enforce(found, data.snapshot, data.config, batch_ids=[m.id for m in data.batch],
                            memory_root=Path("/nonexistent-memory-root"))
    assert refused == []  # the heuristic engine never proposes what the guard refuses
    return kept


PORT_A = mem("a1", "CI Postgres service port",
             "In CI the Postgres service is exposed on port 5433, not the default.")
PORT_B = mem("b1", "CI postgres port",
             "In CI, the Postgres service is exposed on port 5433, not the default port.",
             agent="agent-b", minutes=3)
DB_RESET = mem("c1", "Reset the test database",
               "Run make db-reset before pytest tests/integration. The suite assumes an empty schema.",
               minutes=5, tags=("testing",))


def port_entry(**meta: Any) -> tuple[str, str]:
    """The live entry PORT_A and PORT_B repeat, at its path."""
    return ("topics/ci-postgres-service-port.md",
            entry_text("ci-postgres-service-port", "CI Postgres service port",
                       "In CI the Postgres service is exposed on port 5433, not the default.", **meta))


def test_a_cluster_across_agents_becomes_one_topic() -> None:
    found = proposals(dream_input([PORT_A, PORT_B]))
    # The representative (title, guidance) is the fuller of two equally alike memories.
    assert [(p.op, p.target) for p in found] == [("create", "topics/ci-postgres-port.md")]
    created = parse_entry(found[0].after or "", found[0].target)
    assert created.kind == "topic" and created.tags == ("ci",)
    assert created.sources == ("stm:a1", "stm:b1")
    assert created.guidance == PORT_B.content
    assert created.body.count("exposed on port 5433") == 1  # A's reworded sentence adds nothing
    assert created.meta["created_at"] == NOW and created.meta["updated_at"] == NOW
    assert sorted(found[0].evidence) == ["a1", "b1"]


def test_a_rule_seen_once_becomes_a_topic_kept_out_of_the_bundle() -> None:
    found = proposals(dream_input([DB_RESET]))
    # An evergreen rule is a topic by meaning (issue 11, item 4), however often it was seen; seen
    # once, its route keeps it out of AGENTS.md until it recurs (item 5).
    assert [p.target for p in found] == ["topics/reset-the-test-database.md"]
    assert found[0].route == "memory"
    created = parse_entry(found[0].after or "", found[0].target)
    assert created.kind == "topic" and created.route == "memory"
    # The guidance is one actionable sentence: a short rule with the reason it leans on.
    assert created.guidance == "Run make db-reset before pytest tests/integration; the suite assumes an empty schema."
    assert created.body.count("empty schema") == 1


def test_sessions_count_as_recurrence() -> None:
    one = mem("s1", "Flaky checkout test", "test_checkout depends on the wall clock.", session_id="x")
    two = mem("s2", "Flaky checkout test", "test_checkout depends on the wall-clock time.", session_id="y",
              minutes=1)
    found = proposals(dream_input([one, two]))
    assert [p.op for p in found] == ["create"] and found[0].target.startswith("topics/")


def test_exact_duplicates_are_discarded_as_safe() -> None:
    copy = mem("a2", PORT_A.title, PORT_A.content + "  ", agent="agent-c", minutes=9)
    found = proposals(dream_input([PORT_A, copy]))
    discard = next(p for p in found if p.op == "discard")
    assert discard.target == "stm:a2"
    assert discard.details == {"reason": "exact duplicate of stm:a1", "exact_duplicate": True,
                               "fingerprints": [content_fingerprint(copy)]}
    create = next(p for p in found if p.op == "create")
    assert create.evidence == ["a1"]


def test_look_alike_ports_stay_separate_entries() -> None:
    other = mem("b2", "CI Postgres service port",
                "In CI the Postgres service is exposed on port 5432, not the default.", agent="agent-b")
    found = proposals(dream_input([PORT_A, other]))
    assert sorted(p.op for p in found) == ["create", "create"]
    assert {p.slug for p in found} == {"ci-postgres-service-port", "ci-postgres-service-port-2"}


def test_a_repeat_of_a_live_entry_reinforces_and_cites_it() -> None:
    snap = snapshot_of(port_entry(confirmations=2))
    found = proposals(dream_input([PORT_B], snap))
    assert [(p.op, p.target) for p in found] == [("reinforce", "topics/ci-postgres-service-port.md")]
    after = parse_entry(found[0].after or "", found[0].target)
    assert after.confirmations == 3 and after.sources == ("stm:old-1", "stm:b1")
    assert after.body == snap.entries[found[0].target].body
    assert found[0].details["added_sources"] == ["stm:b1"]


def test_new_facts_update_the_matching_entry() -> None:
    snap = snapshot_of(port_entry())
    more = mem("b3", "CI Postgres service port",
               "In CI the Postgres service is exposed on port 5433, not the default. "
               "The service container takes a few seconds to accept connections.", agent="agent-b")
    found = proposals(dream_input([more], snap))
    assert [p.op for p in found] == ["update"]
    after = parse_entry(found[0].after or "", found[0].target)
    assert after.body.rstrip().endswith("The service container takes a few seconds to accept connections.")
    assert after.body.count("exposed on port 5433") == 1
    assert after.meta["updated_at"] == NOW and found[0].details["added_sources"] == ["stm:b3"]


def test_new_facts_for_a_pinned_entry_ask_the_human() -> None:
    snap = snapshot_of(port_entry(importance="pinned"))
    more = mem("b4", "CI Postgres service port", "In CI the Postgres service is exposed on port 5433, "
               "not the default. Use the service name as host.", agent="agent-b")
    found = proposals(dream_input([more], snap))
    assert found[0].op == "update" and found[0].details["asks_human"] is True
    assert "pinned-entry" in found[0].safety


def test_feedback_and_a_correction_meet_in_one_update_in_place() -> None:
    # Issue 11 item 2: a memory correcting the entry's fact, with flags against it, changes the
    # fact in place (one update answering the flags), not archive-plus-new-entry.
    snap = snapshot_of(("topics/ci-ports.md", entry_text("ci-ports", "CI service ports",
                                                         "CI Postgres listens on 5432 and Redis on 6379.")))
    flag = mem("f1", "flagged ci-ports",
               "Context says 5432 but CI maps 5433; connections to 5432 are refused.",
               type=FEEDBACK_FLAGGED, targets=["ci-ports"], quote="listens on 5432", minutes=20)
    # Corroborated by a second agent: one agent's flag alone only weakens (policy.verdict).
    second = mem("f2", "flagged ci-ports", "CI maps Postgres to 5433, not 5432.", agent="agent-b",
                 type=FEEDBACK_FLAGGED, targets=["ci-ports"], minutes=25)
    found = proposals(dream_input([PORT_A, flag, second], snap))
    assert [(p.op, p.target) for p in found] == [("update", "topics/ci-ports.md")]
    update = found[0]
    assert update.details["corrected"] == [{"from": "5432", "to": "5433"}]
    assert update.details["answered_flags"] == 2
    assert "CI Postgres listens on 5433 and Redis on 6379." in (update.after or "")


def test_same_input_gives_the_same_proposals_in_any_order() -> None:
    batch = [PORT_A, PORT_B, DB_RESET, mem("d1", "Docs", "Docs build with mkdocs build --strict.", minutes=7)]
    first = [p.to_dict() for p in proposals(dream_input(batch))]
    again = [p.to_dict() for p in proposals(dream_input(list(reversed(batch))))]
    assert first == again
    assert len({p["id"] for p in first}) == len(first)


def test_previously_rejected_content_and_changes_are_discarded() -> None:
    created = proposals(dream_input([DB_RESET]))[0]
    by_id = proposals(dream_input([DB_RESET], rejected=frozenset({created.id})))
    assert [(p.op, p.target) for p in by_id] == [("discard", "stm:c1")]
    assert by_id[0].details["reason"].startswith("previously rejected (create ")
    resubmitted = mem("c9", "Reset db", DB_RESET.content, minutes=60)
    by_content = proposals(dream_input([resubmitted], rejected=frozenset({content_fingerprint(DB_RESET)})))
    assert [(p.op, p.details["reason"]) for p in by_content] == [("discard", "previously rejected")]


def test_events_stream_progress_per_cluster_then_done() -> None:
    stream = events(dream_input([PORT_A, PORT_B, DB_RESET]))
    assert isinstance(stream[-1], Done) and stream[-1].stats["clusters"] == 2
    assert [e.done for e in stream if isinstance(e, Progress)] == [1, 2, 3]


def test_a_cancelled_run_stops_between_clusters() -> None:
    token = CancelToken()
    token.cancel()
    stream = events(dream_input([PORT_A, DB_RESET]), token)
    assert not any(isinstance(e, Done) for e in stream)


def test_clusters_saying_one_lesson_word_for_word_share_one_probe_reading() -> None:
    """Two clusters whose entry probe is one text (the same tip, not merged) read its facts
    once against the entries; a probe of another text is read on its own."""
    read: dict[tuple[str, str], Features] = {}
    first = entry_probe(PORT_A, ["ci"], read)
    again = entry_probe(mem("a2", PORT_A.title, PORT_A.content, agent="agent-c"), ["ci"], read)
    other = entry_probe(DB_RESET, ["testing"], read)
    assert again.features is first.features
    assert other.features is not first.features
    assert again.numbers == first.numbers == frozenset({5433})
    assert len(read) == 2


def test_a_sentence_extending_entries_in_several_clusters_is_read_once(fact_reads: list[str]) -> None:
    """A sentence bringing a new value, met again in another cluster extending an entry, is
    read once for the facts it may state differently, and still finds the changed fact."""
    from dreamtui.dream.engines.heuristic import stated_differently

    texts = fact_reads
    body = "In CI the Postgres service is exposed on port 5432."
    moved = mem("m1", "CI Postgres port", "In CI the Postgres service is exposed on port 5434.")
    for _ in range(2):
        assert stated_differently(body, [moved]) == [("5432", "5434")]
    assert len(texts) == len(set(texts))
