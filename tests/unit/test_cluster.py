"""Near-duplicate clustering: the labelled fixture, the guards, the token index, entry matching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamtui.dream.cluster import (
    MAX_CANDIDATES,
    build_entry_index,
    candidate_pairs,
    cluster_memories,
    identifiers,
    match_entry,
    normalise,
    numbers,
)
from dreamtui.dream.match import Features, Weights, raw_overlap
from dreamtui.model import Memory
from tests.factories import entry_text, memory, snapshot_of

FIXTURE = Path(__file__).parents[1] / "fixtures" / "clusters.json"
THRESHOLD = 88  # config.dream.similarity's default


def fixture_pairs(kind: str) -> list[tuple[Memory, Memory]]:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return [(memory(f"{kind}-{i}-a", a["title"], a["content"]),
             memory(f"{kind}-{i}-b", b["title"], b["content"], agent="agent-b"))
            for i, (a, b) in enumerate(data[kind])]


def merged(a: Memory, b: Memory) -> bool:
    return len(cluster_memories([a, b], THRESHOLD)) == 1


def test_fixture_is_big_enough() -> None:
    assert len(fixture_pairs("must_merge")) >= 25
    assert len(fixture_pairs("must_not_merge")) >= 25


def test_labelled_pairs_precision_and_recall() -> None:
    must = fixture_pairs("must_merge")
    must_not = fixture_pairs("must_not_merge")
    true_merges = sum(merged(a, b) for a, b in must)
    false_merges = [(a.content, b.content) for a, b in must_not if merged(a, b)]
    precision = true_merges / max(1, true_merges + len(false_merges))
    recall = true_merges / len(must)
    print(f"\nmerges: precision {precision:.2%}, recall {recall:.2%} "
          f"({true_merges}/{len(must)} must-merge, {len(false_merges)}/{len(must_not)} look-alikes merged)")
    assert false_merges == []
    assert recall >= 0.90


def test_look_alikes_stay_apart_in_one_big_batch() -> None:
    """All fixture memories in one batch: no chain of merges may join a look-alike pair."""
    must_not = fixture_pairs("must_not_merge")
    batch = [m for pair in fixture_pairs("must_merge") + must_not for m in pair]
    cluster_of = {m.id: n for n, c in enumerate(cluster_memories(batch, THRESHOLD)) for m in c.members}
    joined = [(a.content, b.content) for a, b in must_not if cluster_of[a.id] == cluster_of[b.id]]
    assert joined == []


def test_ports_and_versions_never_merge_even_with_identical_wording() -> None:
    a = memory("a", "CI Postgres", "CI Postgres uses port 5432")
    b = memory("b", "CI Postgres", "CI Postgres uses port 5433")
    c = memory("c", "Node", "The build needs Node 18")
    d = memory("d", "Node", "The build needs Node 20")
    assert len(cluster_memories([a, b, c, d], 50)) == 4


def test_chains_cannot_join_a_substitution() -> None:
    """A~B and B~C must not put A and C together when A and C name different identifiers."""
    a = memory("a", "Test settings", "Set PGHOST for the integration tests before running them locally.")
    b = memory("b", "Test settings",
               "Set the variable for the integration tests before running them locally.")
    c = memory("c", "Test settings", "Set PGPORT for the integration tests before running them locally.")
    clusters = cluster_memories([a, b, c], THRESHOLD)
    together = [c_ for c_ in clusters if {"a", "c"} <= {m.id for m in c_.members}]
    assert together == []


def test_clusters_keep_input_order_and_pick_a_representative() -> None:
    first = memory("m1", "Reset the test database", "Run make db-reset before the integration tests.")
    other = memory("m2", "Unrelated", "The docs are built with mkdocs and published on merge.", minutes=1)
    repeat = memory("m3", "Reset test database",
                    "Run make db-reset before the integration tests; they assume an empty schema.", minutes=2)
    clusters = cluster_memories([first, other, repeat], THRESHOLD)
    assert [[m.id for m in c.members] for c in clusters] == [["m1", "m3"], ["m2"]]
    assert clusters[0].representative.id in ("m1", "m3")
    assert clusters[0].agents == {"agent-a"}


def test_normalise_numbers_identifiers() -> None:
    assert normalise("Don't  run `make db-reset`!") == "dont run make db reset"
    assert numbers("Node v18.2.0 on port 5432, port 5432") == frozenset({18, 2, 0, 5432})
    ids = identifiers("Set PGPORT in .env.example, run pytest -x and see Postgres docs.")
    assert ("pgport",) in ids and ("env", "example") in ids and ("x",) in ids and ("postgres",) in ids
    assert ("set",) not in ids  # a sentence's first word is not a proper name


def test_candidate_generation_is_bounded() -> None:
    """Every document shares tokens with every other: candidates stay capped per document."""
    tokens = [["alpha", "beta", "gamma", f"t{i}"] for i in range(500)]
    pairs = candidate_pairs(tokens)
    assert len(pairs) <= 500 * MAX_CANDIDATES
    assert all(i < j for i, j in pairs)


def test_match_entry_finds_the_entry_a_memory_repeats() -> None:
    snapshot = snapshot_of(
        ("topics/ci-postgres-port.md", entry_text("ci-postgres-port", "CI Postgres port",
                                                  "In CI the Postgres service listens on port 5433.")),
        ("topics/docs.md", entry_text("docs", "Docs build", "Docs are built with mkdocs.", tags=("docs",))),
        ("archive/topics/old.md", entry_text("old", "CI Postgres port", "In CI Postgres listens on 5433.")),
    )
    index = build_entry_index(snapshot)
    assert [e.path for e in index.entries] == ["topics/ci-postgres-port.md", "topics/docs.md"]
    found = match_entry("CI Postgres port.\nIn CI the Postgres service listens on port 5433. ci", index)
    assert found is not None and found[0].slug == "ci-postgres-port" and found[1] >= THRESHOLD
    look_alike = "CI Postgres port.\nIn CI the Postgres service listens on port 5432. ci"
    assert match_entry(look_alike, index) is None
    assert match_entry("Something else entirely about deploy keys.", index) is None


@pytest.mark.parametrize("text", [
    "CI MySQL port.\nIn CI the MySQL service listens on port 5433. ci",
    "CI Postgres port.\nIn CI the Postgres service never listens on port 5433. ci",
])
def test_match_entry_applies_the_guards(text: str) -> None:
    snapshot = snapshot_of(("topics/ci-postgres-port.md", entry_text(
        "ci-postgres-port", "CI Postgres port", "In CI the Postgres service listens on port 5433.")))
    assert match_entry(text, build_entry_index(snapshot)) is None


def test_memories_of_one_text_are_read_once(fact_reads: list[str]) -> None:
    """A tip several agents sent word for word is one reading of its facts for the conflict
    checks, and still one member per memory; another text is read on its own."""
    texts = fact_reads
    tip = ("Postgres port", "The dev Postgres listens on 5433, not 5432.")
    batch = [memory(f"m{i}", *tip, agent=f"agent-{i}") for i in range(4)]
    batch.append(memory("other", "Postgres port", "The dev Postgres listens on 5434, not 5432."))
    clusters = cluster_memories(batch, THRESHOLD)
    assert sorted(len(c.members) for c in clusters) == [1, 4]
    assert sorted(set(texts)) == sorted(texts)  # each distinct text read at most once
    assert len(texts) == 2


def test_rules_sharing_only_their_frame_stay_apart() -> None:
    """Each rule has a rewording in the batch; the two families share "never include" and a
    word of their objects ("code"), which must not join them."""
    batch = [memory("a1", "Attribution", "Never include Claude Code attribution in commit messages"),
             memory("a2", "Attribution", "Never include a 'Generated with Claude Code' line in commit messages",
                    agent="agent-b"),
             memory("k1", "Keys", "Never include real API keys, secrets, or credentials in generated code"),
             memory("k2", "Keys", "Never include API keys or secrets in code you generate", agent="agent-b")]
    cluster_of = {m.id: n for n, c in enumerate(cluster_memories(batch, THRESHOLD)) for m in c.members}
    assert cluster_of["a1"] == cluster_of["a2"]
    assert cluster_of["k1"] == cluster_of["k2"]
    assert cluster_of["a1"] != cluster_of["k1"]



def test_kindred_words_link_no_memories_but_rewordings_still_merge() -> None:
    """A batch's links ignore kindred words (commit/push, leak/commit): links chain, and bridged
    they joined every rule naming a commit into one lesson. A rule reworded with a kindred verb
    still merges (compare reads the kin when the cluster's members are weighed)."""
    a = Features.of("Run the tests before committing.")
    b = Features.of("Follow the Conventional Commits spec when pushing.")
    weights = Weights([a, b])
    assert raw_overlap(a, b, weights, kin=False) < raw_overlap(a, b, weights)
    for x, y in (("Never push directly to the release branch.",
                  "Do not commit straight onto the release branch."),
                 ("Never leak API tokens.", "Do not commit API tokens."),
                 ("Write tests for every new endpoint.", "Add tests for each new endpoint.")):
        assert merged(memory("x", x, x), memory("y", y, y, agent="agent-b")), (x, y)


def test_kindred_words_link_memories_unless_they_name_commits() -> None:
    """A batch's links bridge kindred words (diffs/edits, small/minimal), but not the families
    holding commit and push: rules name commits as an object as often as an action, and those
    bridges chained every rule naming a commit into one cluster."""
    others = ("Keep functions short.", "Use Decimal for money.", "Pin the Node version in .nvmrc.",
              "Prefer dataclasses over dicts for records.", "Log with structlog, never print.")

    def grouped(*texts: str) -> list[list[str]]:
        memories = [memory(f"m{n}", text, text, agent=f"agent-{n}", minutes=n)
                    for n, text in enumerate((*texts, *others))]
        return [sorted(m.id for m in c.members) for c in cluster_memories(memories, THRESHOLD)
                if len(c.members) > 1]

    assert grouped("Keep pull request diffs small and surgical.",
                   "Make minimal, targeted edits in a pull request.") == [["m0", "m1"]]
    commit, push = Features.of("Never commit the lockfile by hand."), Features.of("Never push the lockfile by hand.")
    weights = Weights([commit, push, *(Features.of(t) for t in others)])
    assert raw_overlap(commit, push, weights, linking=True) == raw_overlap(commit, push, weights, kin=False) \
        < raw_overlap(commit, push, weights)
