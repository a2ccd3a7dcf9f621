"""The pairwise verdict (dream/match.py) on sets written for this project (tests/data/quality)."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dreamtui.dream.cluster import build_entry_index, cluster_memories, find_entry
from dreamtui.dream.match import (
    Features,
    MatchIndex,
    Weights,
    compare,
    compare_texts,
    pair_overlap,
    raw_overlap,
    stem,
)
from tests.factories import entry_text, memory, snapshot_of

SETS = Path(__file__).parents[1] / "data" / "quality"
THRESHOLD = 88  # config.dream.similarity's default


def _text(m: dict[str, Any]) -> str:
    return f"{m['title']}.\n{m['content']}"


def _features(m: dict[str, Any]) -> Features:
    return Features.of(_text(m), m["content"])


def test_issue_cases_precision_and_recall_meet_the_targets() -> None:
    """Every pair inside a group merges (recall >= 0.90), no labelled negative does (precision
    >= 0.95, and not one look-alike), with rarity taken across the whole set as in a dream."""
    data = json.loads((SETS / "issue-cases.json").read_text(encoding="utf-8"))
    groups = [[_features(m) for m in g["memories"]] for g in data["groups"]]
    looks = [(_features(p["a"]), _features(p["b"])) for p in data["lookalikes"]]
    singles = [_features(m) for m in data["singletons"]]
    everything = [f for g in groups for f in g] + [f for pair in looks for f in pair] + singles
    weights = Weights(everything)
    positives = [(a, b) for g in groups for a, b in combinations(g, 2)]
    negatives = [(a, b) for g, h in combinations(groups, 2) for a in g for b in h]
    negatives += [(s, f) for s in singles for f in everything if f is not s]
    merged = sum(compare(a, b, weights).same_lesson for a, b in positives)
    wrong = sum(compare(a, b, weights).same_lesson for a, b in negatives)
    looked_alike = [(a.text, b.text) for a, b in looks if compare(a, b, weights).same_lesson]
    assert looked_alike == []
    assert merged / len(positives) >= 0.90
    assert merged / (merged + wrong + len(looked_alike)) >= 0.95


def test_issue_cases_cluster_as_one_lesson_each() -> None:
    data = json.loads((SETS / "issue-cases.json").read_text(encoding="utf-8"))
    batch = [memory(f"{g['id']}-{n}", m["title"], m["content"], agent=m["agent"], minutes=n)
             for g in data["groups"] for n, m in enumerate(g["memories"])]
    clusters = cluster_memories(batch, THRESHOLD)
    lessons = {tuple(sorted({m.id.rsplit("-", 1)[0] for m in c.members})) for c in clusters}
    assert all(len(group) == 1 for group in lessons), lessons  # no cluster mixes two lessons
    whole = {c.members[0].id.rsplit("-", 1)[0] for c in clusters if len(c.members) > 1}
    # pytest/editable, Decimal, the DB reset with its durations, five ruff tips: one cluster each
    for gid in ("pytest-needs-editable-install", "decimal-for-money", "integration-tests-db-reset",
                "ruff-format-not-black"):
        assert sum(1 for c in clusters if c.members[0].id.startswith(gid)) == 1, gid
    assert whole


def test_the_live_entries_come_first_restatements_match_and_corrections_are_told_apart() -> None:
    data = json.loads((SETS / "issue-cases.json").read_text(encoding="utf-8"))
    snapshot = snapshot_of(*[(f"topics/{e['slug']}.md", entry_text(e["slug"], e["title"], e["body"],
                                                                   tags=e.get("tags", [])))
                             for e in data["entries"]])
    index = build_entry_index(snapshot)
    for case in data["restates"]:
        found = find_entry(_text(case["memory"]), index)
        assert found is not None and found.item.slug == case["entry"] and found.verdict.same_lesson
    for case in data["corrects"]:
        found = find_entry(_text(case["memory"]), index)
        assert found is not None and found.item.slug == case["entry"]
        assert found.verdict.kind == "correction" and not found.verdict.same_lesson
        assert [str(c) for c in found.verdict.conflicts] == ["port: 5433 vs 5432"]


def test_conflicts_name_the_differing_fact() -> None:
    port = compare_texts("CI Postgres uses port 5432.", "CI Postgres uses port 5433.")
    assert port.kind == "correction" and [str(c) for c in port.conflicts] == ["port: 5432 vs 5433"]
    tool = compare_texts("Always use `pnpm` instead of `npm`.", "Always use `yarn` instead of `npm`.")
    assert not tool.same_lesson
    assert "JavaScript package manager: pnpm vs yarn" in [str(c) for c in tool.conflicts]
    polarity = compare_texts("Always pass --no-cache to docker build in CI.",
                             "Never pass --no-cache to docker build in CI.")
    assert not polarity.same_lesson and polarity.conflicts
    command = compare_texts("Install packages with `uv pip install`, not plain pip.",
                            "Use uv for packages; never `uv pip install`, never plain pip.")
    assert "`uv pip install`: use vs do not use" in [str(c) for c in command.conflicts]
    capitals = compare_texts("NEVER commit secrets to the repository.",
                             "Never commit secrets or API keys to the repository.")
    assert capitals.same_lesson, capitals  # an upper-case NEVER rejects as a lower-case one


def test_what_only_one_side_says_or_a_story_number_is_no_conflict() -> None:
    took = compare_texts("Integration tests need a DB reset. Run make db-reset first. It took 3 minutes.",
                         "Integration tests need a DB reset. Run make db-reset first. It took 4 minutes.")
    assert took.same_lesson, took
    shorter = compare_texts("Run `make db-reset` before `pytest tests/integration`.",
                            "Run `make db-reset` before `pytest tests/integration` (port 5433).")
    assert shorter.conflicts == ()
    timeout = compare_texts("Set the HTTP client timeout to 30 seconds.",
                            "Set the HTTP client timeout to 60 seconds.")
    assert not timeout.same_lesson  # a duration in a setting is a fact


def test_a_different_environment_is_a_different_subject_not_a_correction() -> None:
    verdict = compare_texts("Staging Postgres listens on port 5432.", "CI Postgres listens on port 5432.")
    assert not verdict.same_lesson and not verdict.correction


def test_a_tool_rule_is_no_correction_of_an_entry_that_merely_uses_another_tool() -> None:
    """'use pnpm, not npm' must not rewrite an entry saying 'start the API before npm run dev'."""
    snapshot = snapshot_of(("topics/vite-proxy.md", entry_text(
        "vite-proxy", "The Vite dev server proxies /api to FastAPI",
        "The Vite dev server proxies `/api` to `http://localhost:8000`; start the backend with "
        "`make api` before `npm run dev`, or every request fails with a 504.", tags=("frontend",))))
    found = find_entry("Package manager.\nThis project uses pnpm as the package manager; run "
                       "`pnpm install`, not npm.", build_entry_index(snapshot))
    assert found is None


_WORDS = st.sampled_from("run use never always pytest pnpm yarn port 5432 5433 the tests before after "
                         "install `make db-reset` migrations database not cache --no-cache instead of "
                         "over unless , . : ( ) took 3 minutes commit push write add \" npm".split())
_TEXTS = st.lists(_WORDS, min_size=1, max_size=12).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(_TEXTS, _TEXTS)
def test_the_verdict_is_symmetric_and_deterministic(a: str, b: str) -> None:
    one, other = compare_texts(a, b), compare_texts(b, a)
    assert (one.score, one.same_lesson, one.correction) == (other.score, other.same_lesson, other.correction)
    assert len(one.conflicts) == len(other.conflicts)
    assert compare_texts(a, b) == one
    assert compare_texts(a, a).conflicts == ()


def test_best_is_what_the_full_ranking_puts_first() -> None:
    """MatchIndex.best reads facts lazily; it must agree with verdicts() on every memory."""
    data = json.loads((SETS / "issue-cases.json").read_text(encoding="utf-8"))
    snapshot = snapshot_of(*[(f"topics/{e['slug']}.md", entry_text(e["slug"], e["title"], e["body"],
                                                                   tags=e.get("tags", [])))
                             for e in data["entries"]])
    index = build_entry_index(snapshot).matcher
    memories = [m for g in data["groups"] for m in g["memories"]]
    memories += [case["memory"] for case in data["restates"] + data["corrects"]]
    memories += [m for pair in data["lookalikes"] for m in (pair["a"], pair["b"])]
    for m in memories:
        query = _features(m)
        ranked = [(i, v) for i, v in index.verdicts(query) if v.same_lesson or v.correction]
        found = index.best(query)
        assert (found is None) == (not ranked)
        if found is not None:
            assert (index.items.index(found.item), found.verdict.kind) == (ranked[0][0], ranked[0][1].kind)


@settings(max_examples=200, deadline=None)
@given(_TEXTS, _TEXTS)
def test_comparing_two_texts_alone_weighs_as_a_two_document_corpus(a: str, b: str) -> None:
    fa, fb = Features.of(a), Features.of(b)
    assert abs(pair_overlap(fa, fb) - raw_overlap(fa, fb, Weights((fa, fb)))) < 1e-9


def test_without_explaining_a_consequence_takes_no_stance() -> None:
    """'without it the bundle breaks' tells why, it does not reject 'the bundle': a restatement
    worded so is the same lesson, not a 'bundl: do not vs do' conflict."""
    rule = "Run `make gen-schema` before `npm run build`; the bundle expects generated types."
    restated = ("Generate the schema before building.\nRun `make gen-schema` before `npm run build`: "
                "without it the bundle breaks on missing types, because it expects generated types.")
    verdict = compare_texts(rule, restated)
    assert verdict.conflicts == ()
    assert verdict.same_lesson


def test_a_sentence_reads_with_the_code_words_of_its_own_text() -> None:
    """Sentences are read once and remembered (a batch repeats them), but a code word changes a
    reading: in a text naming `any`, "never use any casts" rejects `any`; alone, "any" is only
    emphasis. Whichever text is read first, each keeps its own reading."""
    alone = Features.of("Never use any casts.")
    coded = Features.of("Type with `any` sparingly. Never use any casts.")
    assert stem("any") not in alone.facts.stance
    assert coded.facts.stance[stem("any")] == 3  # done in the first sentence, rejected in the second
    later = Features.of("Never use any casts.")
    assert later.facts.stance == alone.facts.stance


def test_candidates_for_one_query_agree_whatever_limit_is_asked_first() -> None:
    """MatchIndex remembers its last query's candidates (may_match asks for one, find_entry for
    ten): a shorter list is the longer one's head, never a stale answer for another query."""
    texts = [f"Run `make reset-{n}` before the {n} tests; the {n} suite needs a clean schema." for n in
             ("api", "web", "worker", "db", "cache")]
    features = [Features.of(t) for t in texts]
    index = MatchIndex.build(list(range(len(texts))), features)
    query, other = Features.of(texts[0]), Features.of(texts[3])
    assert index.candidates(query, limit=1) == index.candidates(query)[:1]
    assert index.candidates(other) == MatchIndex.build(list(range(len(texts))), features).candidates(other)
    assert index.candidates(query, limit=3) == index.candidates(query)[:3]


def test_a_number_is_a_fact_of_the_subject_it_is_said_of() -> None:
    """A port (a limit, a version) belongs to the service named with it: Redis on 5433 says
    nothing against Postgres on 5432, however the sentences are worded, while Postgres on 5433
    is the same slot with another value ("listens on" and "port" name one slot): a correction,
    where the other is a different subject, neither a restatement nor a correction."""
    for postgres, redis in (("Postgres listens on 5432.", "Redis is on port 5433."),
                            ("Postgres is on port 5432.", "Redis is on port 5433."),
                            ("In CI Postgres listens on port 5432.", "In CI Redis listens on port 5433.")):
        verdict = compare_texts(postgres, redis)
        assert not verdict.same_lesson and not verdict.correction, (postgres, redis)
        assert not any(c.slot == "port" for c in verdict.conflicts), (postgres, redis)
    for old, new in (("Postgres listens on 5432.", "Postgres is on port 5433."),
                     ("Postgres is on port 5432.", "Postgres is on port 5433."),
                     ("CI Postgres listens on 5432.", "Port 5433 for CI.")):
        assert [str(c) for c in compare_texts(old, new).conflicts] == ["port: 5432 vs 5433"], (old, new)


def test_an_entry_naming_two_services_is_corrected_only_for_the_one_a_memory_names() -> None:
    entry = "CI Postgres listens on 5432 and Redis on port 6379."
    assert [str(c) for c in compare_texts(entry, "In CI, Redis is on port 6380.").conflicts] == ["port: 6379 vs 6380"]
    assert compare_texts(entry, "In CI, Redis is on port 6379.").conflicts == ()


def test_facts_in_slots_the_other_never_fills_are_another_lesson() -> None:
    """Both about MySQL under docker compose, sharing the quoted command: one gives its port,
    the other the image version that crashed on ARM. Each states a fact the other has no slot
    for, so the shared command does not make them one lesson (nor a correction)."""
    port = ("Local MySQL is on port 3307.\nOn laptops `docker compose up mysql` publishes MySQL on "
            "port 3307; only CI keeps 3306.")
    arm = ("docker compose mysql fails on ARM laptops.\n`docker compose up mysql` crashed on an ARM "
           "laptop with the old mysql:5.7 image; the compose file now pins mysql:8, which has arm64 builds.")
    verdict = compare_texts(port, arm)
    assert not verdict.same_lesson and not verdict.correction
    # One value worded in two slots is one fact.
    assert compare_texts("Node 18 is required for the frontend.", "Use Node version 18 for the frontend.").same_lesson


def test_a_step_before_another_named_thing_is_another_rule() -> None:
    """'Reset the DB before `pytest tests/api`' and '... before Cypress' share the command but
    not the moment: the seeding memory is not a restatement of the API-tests entry."""
    memory = ("Cypress specs need seeded data.\n`npm run e2e` expects the demo products: run "
              "`make db-reset && make seed` before Cypress, or the checkout specs time out.")
    entry = ("Reset the test database before API tests.\nRun `make db-reset` before `pytest tests/api`; "
             "the API suite assumes an empty schema.")
    verdict = compare_texts(memory, entry)
    assert not verdict.same_lesson and not verdict.correction
    restated = "Before `pytest tests/api`, run `make db-reset`: the API tests need an empty schema."
    assert compare_texts(restated, entry).same_lesson


def test_one_code_span_replaced_by_another_is_a_different_fact() -> None:
    """The same sentence around `REACT_APP_` and `NEXT_PUBLIC_`: one prefix of one word against
    one of two is still one swapped fact, not a rewording."""
    react = "Browser variables.\nOnly variables prefixed `REACT_APP_` are bundled for the browser."
    nextjs = "Browser variables.\nOnly variables prefixed `NEXT_PUBLIC_` are bundled for the browser."
    verdict = compare_texts(react, nextjs)
    assert not verdict.same_lesson
    assert [str(c) for c in verdict.conflicts if c.slot == "code"] == ["code: react_app_ vs next_public_"]


def test_an_abbreviation_is_the_word_it_stands_for() -> None:
    """Instruction files write env/environment, var/variable, dep/dependency, config,
    dir/directory, auth: each pair is one word to the matcher."""
    for short, full in (("env vars", "environment variables"), ("deps", "dependencies"),
                        ("config dir", "configuration directory"), ("auth", "authentication")):
        assert Features.of(short).stems == Features.of(full).stems, (short, full)


def test_a_shared_frame_does_not_make_two_rules_one() -> None:
    """"Never include", "make sure to run", "keep" frame a rule; what it is about is the rest.
    Two rules sharing the frame and little of the rest are two lessons, and neither corrects
    the other; a rewording sharing its objects still is one lesson."""
    for a, b in (("Never include Claude Code attribution in commit messages",
                  "Never include real API keys, secrets, or credentials in generated code"),
                 ("Make sure to run the linter before committing",
                  "Make sure to run the migrations before deploying")):
        verdict = compare_texts(a, b)
        assert not verdict.same_lesson, (a, b, verdict)
        assert not verdict.correction, (a, b, verdict)
    # Alike enough to be read for facts (the first pair shares only its frame and a scope, "in
    # generated code", which weighs little: test_match_circumstances.py), the frame sets them apart.
    verdict = compare_texts("Make sure to run the linter before committing",
                            "Make sure to run the migrations before deploying")
    assert [c.slot for c in verdict.conflicts] == ["object"], verdict
    assert compare_texts("Never include credentials in commit messages",
                         "Do not put secrets in commits").same_lesson
    # A frame word inside a command is part of the object: the "make" of `make deploy-staging`
    # (the sample workspace's entry and the memory adding a fact to it).
    entry = ("Deploy to staging from a clean main\nDeploy to staging with `make deploy-staging` from an "
             "up-to-date `main`; the target runs migrations before it switches traffic, so never run "
             "`alembic upgrade` against staging by hand.")
    fact = "`make deploy-staging` refuses to run when main's last CI run is red; re-run CI or fix main first."
    assert "object" not in {c.slot for c in compare_texts(fact, entry).conflicts}


def test_a_tool_one_rule_rejects_and_the_other_picks_is_a_conflict() -> None:
    """"`bun test` instead of jest" rejects the very tool "Use Jest" picks: two rules, not one,
    however alike the rest reads; two rules both rejecting it are one."""
    bun = "Run the unit tests with `bun test` instead of jest."
    verdict = compare_texts(bun, "Use Jest for the unit tests.")
    assert not verdict.same_lesson
    assert "jest" in {c.slot for c in verdict.conflicts}
    assert compare_texts(bun, "Use `bun test` for the unit tests, not jest.").same_lesson
