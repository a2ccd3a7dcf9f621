"""Review without surprises (issue 11, item 8): short slugs, numbers as proposal ids, the review's
JSON, plain rationale words, a rejected update keeping its confirmations."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dreamtui.cli import main
from dreamtui.dream.runner import dream
from dreamtui.entry.codec import parse_entry
from dreamtui.model import NewMemory, Proposal
from dreamtui.review.commit import commit
from dreamtui.review.decide import decide, undo_last
from dreamtui.safety.paths import NEW_SLUG_LEN, slugify
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace
from tests.factories import DREAM_ID, NOW, Scenario, basic, new_workspace


@pytest.mark.parametrize(("title", "slug"), [
    ("Test checkout totals is flaky because of float rounding", "test-checkout-totals-is-flaky"),
    ("Seed script fails on a fresh database: migrate first", "seed-script-fails-on-a-fresh-database"),
    ("Frontend env vars need the VITE_ prefix", "frontend-env-vars-need-the-vite-prefix"),
])
def test_a_new_slug_is_the_first_words_of_its_title(title: str, slug: str) -> None:
    assert slugify(title) == slug
    assert len(slugify(title)) <= NEW_SLUG_LEN


@pytest.mark.parametrize(("title", "slug"), [
    ("Local docker compose Postgres is on port 5432", "local-docker-compose-postgres-port-5432"),
    ("The staging deploy is run by hand from the ops box", "the-staging-deploy-is-run-hand-ops-box"),
    ("Redis for the e-mail queue is on 6380 in CI", "redis-for-the-e-mail-queue-is-on-6380-ci"),
])
def test_a_long_title_sheds_function_words_before_its_meaning(title: str, slug: str) -> None:
    # Cut at 40 characters, each of these lost its last words: the port, "box", "ci".
    assert slugify(title) == slug
    assert len(slug) <= NEW_SLUG_LEN


# -- proposal numbers, the review's JSON ---------------------------------------------------------


def run(ws: Workspace, *args: str) -> Result:
    return CliRunner().invoke(main, ["--workspace", str(ws.root), *args], catch_exceptions=False)


def test_the_numbers_review_show_prints_name_proposals_in_decide(tmp_path: Path) -> None:
    s, proposals = basic(tmp_path)
    shown = run(s.ws, "review", "show", DREAM_ID)
    numbers = dict(re.findall(r"^\[(\d+)\] \S+ (p-[0-9a-z-]+) ", shown.stdout, re.MULTILINE))
    assert numbers["2"] == proposals["reinforce"].id and numbers["3"] == proposals["archive"].id
    result = run(s.ws, "decide", DREAM_ID, "2", "[3]", "accept")
    assert result.exit_code == 0, result.output
    assert f"[2] {proposals['reinforce'].id} accept" in result.stdout
    decided = {p.id: p.decision for p in s.load().proposals}
    assert decided[proposals["reinforce"].id] == decided[proposals["archive"].id] == "accept"
    assert decided[proposals["create"].id] is None
    one = run(s.ws, "review", "show", DREAM_ID, "3")
    assert one.stdout.count("\n[") == 1 and f"[3] ✓ {proposals['archive'].id}" in one.stdout


@pytest.mark.parametrize("ref", ["99", "[0]"])
def test_a_number_out_of_range_is_one_line(tmp_path: Path, ref: str) -> None:
    s, _ = basic(tmp_path)
    count = len(s.load().reviewable)
    result = CliRunner().invoke(main, ["--workspace", str(s.ws.root), "decide", DREAM_ID, ref, "accept"])
    assert result.exit_code == 2
    number = ref.strip("[]")
    assert result.output.strip() == (f"dreamtui: dream {DREAM_ID} has {count} proposals: [{number}] is "
                                     f"not one of them (`dreamtui review show {DREAM_ID}` numbers them)")


def test_review_show_json_has_the_documented_shape(tmp_path: Path) -> None:
    s, proposals = basic(tmp_path)
    result = run(s.ws, "review", "show", DREAM_ID, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == 1
    assert set(data) == {"format", "dream", "warnings", "refused", "proposals"}
    assert set(data["dream"]) == {"id", "engine", "fallback", "created_at", "status", "complete",
                                  "proposals", "undecided", "usage", "left_out", "known_corpus"}
    first = data["proposals"][0]
    assert set(first) == {"number", "id", "op", "target", "slug", "route", "decision", "confidence",
                          "rationale", "safety", "details", "evidence", "diff"}
    assert [p["number"] for p in data["proposals"]] == list(range(1, len(s.load().reviewable) + 1))
    assert first["id"] == proposals["create"].id and first["diff"][0] == "--- /dev/null"
    assert set(first["evidence"][0]) == {"id", "in_queue", "type", "agent", "title", "content"}
    only = json.loads(run(s.ws, "review", "show", DREAM_ID, "2", "--json").stdout)
    assert [p["number"] for p in only["proposals"]] == [2]


# -- a rejected update keeps its confirmations -----------------------------------------------------


def folded_update(tmp_path: Path, *, with_create: bool = False) -> tuple[Scenario, Proposal, Proposal]:
    """An update of test-db-reset from m0 that also folded in m1 and m2's confirmations, as the
    dream's EntryDraft records it (details.reinforce_alone); `with_create`: a new entry first."""
    s = Scenario(tmp_path / "ws")
    path = s.entry("test-db-reset", "Run make db-reset before integration tests.", confirmations=2)
    s.settle()
    m = s.memories(4 if with_create else 3)
    create = [s.create("alembic-first", "Apply alembic migrations before seeding.", [m.pop()])] if with_create else []
    alone = s.reinforce(path, [m[1], m[2]])
    update = s.update(path, "It also drops the test schema.", m)
    update.details["confirmations"] = 2
    update.details["reinforce_alone"] = {
        "id": alone.id, "after": alone.after, "rationale": "2 confirmations from 2 agents",
        "evidence": alone.evidence, "confidence": 0.9, "safety": [], "details": alone.details}
    s.changeset([*create, update])
    return s, update, alone


def test_rejecting_an_update_keeps_its_confirmations_as_a_reinforce(tmp_path: Path) -> None:
    s, update, alone = folded_update(tmp_path)
    numbered_before = [p.id for p in s.load().proposals]
    changeset = decide(s.ws, DREAM_ID, [update.id], "reject", now=NOW)
    kept = changeset.proposal(alone.id)
    assert kept.op == "reinforce" and kept.decision is None and kept.evidence == alone.evidence
    assert kept.after == alone.after and kept.details["kept_from"] == update.id
    assert kept.rationale.startswith(f"2 confirmations kept from the rejected update {update.id}")
    assert [p.id for p in changeset.proposals][: len(numbered_before)] == numbered_before
    decide(s.ws, DREAM_ID, [alone.id], "accept", now=NOW)
    report = commit(s.ws, DREAM_ID, now=NOW)
    entry = parse_entry(s.text("topics/test-db-reset.md"), "topics/test-db-reset.md")
    assert entry.confirmations == 4 and "drops the test schema" not in entry.body
    assert report.consumed == 3, (report, s.states())
    assert [line.split()[2] for line in s.log_lines()] == ["reject", "reinforce"]


def test_undoing_the_rejection_takes_the_kept_reinforce_away(tmp_path: Path) -> None:
    s, update, alone = folded_update(tmp_path)
    decide(s.ws, DREAM_ID, [update.id], "reject", now=NOW)
    changeset = undo_last(s.ws, DREAM_ID, now=NOW)
    assert alone.id not in {p.id for p in changeset.proposals}
    assert changeset.proposal(update.id).decision is None
    # Accepting after all drops it too, and undoing that gives it back with its decision.
    decide(s.ws, DREAM_ID, [update.id], "reject", now=NOW)
    decide(s.ws, DREAM_ID, [alone.id], "defer", now=NOW)
    changeset = decide(s.ws, DREAM_ID, [update.id], "accept", now=NOW)
    assert alone.id not in {p.id for p in changeset.proposals}
    changeset = undo_last(s.ws, DREAM_ID, now=NOW)
    assert changeset.proposal(update.id).decision == "reject"
    assert changeset.proposal(alone.id).decision == "defer"


# -- related: never names an archived entry -------------------------------------------------------


def test_archiving_an_entry_takes_it_out_of_every_related_list(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws")
    ports = s.entry("ci-ports", "CI Postgres listens on 5432.")
    s.entry("test-db-reset", "Run make db-reset before integration tests.", related=["ci-ports", "pytest-markers"])
    s.entry("pytest-markers", "Mark Postgres tests with pytest.mark.db.", related=["ci-ports"])
    s.settle()
    m = s.memories(1)
    s.changeset([s.archive(ports, m)])
    s.decide_all()
    commit(s.ws, DREAM_ID, now=NOW)
    reset = parse_entry(s.text("topics/test-db-reset.md"), "topics/test-db-reset.md")
    markers = parse_entry(s.text("topics/pytest-markers.md"), "topics/pytest-markers.md")
    assert reset.meta["related"] == ["pytest-markers"] and markers.meta["related"] == []
    assert any(" update topics/test-db-reset.md (related: ci-ports archived, no longer listed)" in line
               for line in s.log_lines())


def test_a_persons_archive_takes_it_out_of_related_lists_too(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws")
    s.entry("ci-ports", "CI Postgres listens on 5432.")
    s.entry("test-db-reset", "Run make db-reset before integration tests.", related=["ci-ports"])
    s.settle()
    result = run(s.ws, "entry", "archive", "ci-ports", "--reason", "moved to the wiki")
    assert result.exit_code == 0, result.output
    reset = parse_entry(s.text("topics/test-db-reset.md"), "topics/test-db-reset.md")
    assert reset.meta["related"] == []


# -- through a real dream: the folded confirmations, last_flagged ---------------------------------

DB_RESET = """---
title: Reset the test database
slug: test-db-reset
type: topic
tags: [testing]
created_at: 2026-11-01T09:00:00Z
updated_at: 2026-11-01T09:00:00Z
sources: []
confirmations: 2
---
Run `make db-reset` before `pytest tests/integration`.
"""


def dreamed_on(tmp_path: Path, *memories: NewMemory, at: datetime) -> Workspace:
    ws = new_workspace(tmp_path / "ws")
    (ws.memory_root / "topics").mkdir(parents=True, exist_ok=True)
    (ws.memory_root / "topics" / "test-db-reset.md").write_text(DB_RESET, encoding="utf-8")
    with STMStore.for_workspace(ws) as store:
        store.submit_many(memories, now=at)
    return ws


def test_a_dreams_update_keeps_its_confirmations_when_rejected(tmp_path: Path) -> None:
    ws = dreamed_on(tmp_path, NewMemory(
        type="observation", title="Reset the test database", agent_id="agent-a",
        content="Run `make db-reset` before `pytest tests/integration`. The reset also drops the "
                "`audit` schema, so re-run `make audit-schema` after it."), NewMemory(
        type="context_confirmed", title="db reset helped", agent_id="agent-b", content="It helped.",
        metadata={"target": "test-db-reset"}), at=NOW - timedelta(hours=5))
    changeset = dream(ws, now=NOW)
    assert changeset is not None
    [update] = [p for p in changeset.proposals if p.target == "topics/test-db-reset.md"]
    assert update.op == "update" and update.details["confirmations"] == 1
    decided = decide(ws, changeset.id, [update.id], "reject", now=NOW)
    [kept] = [p for p in decided.proposals if p.details.get("kept_from") == update.id]
    assert kept.op == "reinforce" and len(kept.evidence) == 1
    decide(ws, changeset.id, [kept.id], "accept", now=NOW)
    commit(ws, changeset.id, now=NOW)
    entry = parse_entry((ws.memory_root / "topics/test-db-reset.md").read_text(), "topics/test-db-reset.md")
    assert entry.confirmations == 3 and "audit" not in entry.body


def test_last_flagged_is_when_the_flag_came(tmp_path: Path) -> None:
    flagged_at = NOW - timedelta(days=3)
    ws = dreamed_on(tmp_path, NewMemory(
        type="context_flagged", title="db reset is wrong", agent_id="agent-b",
        content="make db-reset no longer exists; the target is now make reset-db.",
        metadata={"targets": ["test-db-reset"], "quote": "Run `make db-reset`"}), at=flagged_at)
    changeset = dream(ws, now=NOW)
    assert changeset is not None
    [weaken] = [p for p in changeset.proposals if p.target == "topics/test-db-reset.md"]
    assert weaken.after is not None
    entry = parse_entry(weaken.after, weaken.target)
    assert entry.meta["last_flagged"] == flagged_at.replace(microsecond=0)


# -- rationale words a person reads ----------------------------------------------------------------


def test_the_sample_dreams_rationales_read_as_sentences(seeded_sample: Workspace) -> None:
    changeset = dream(seeded_sample, now=NOW)
    assert changeset is not None
    said = [p.rationale for p in changeset.reviewable]
    assert not [r for r in said if "(s)" in r or re.search(r"\b0 (sessions|agents)\b", r)]
    assert not [r for r in said if "(match " in r or "held earlier" in r]
    # The verb agrees with its subject: "1 memory from 1 agent adds", never "… 1 agent add".
    assert not [r for r in said if re.search(r"\b1 memory from [^;]*? (add|repeat|state|correct) ", r)]
    corroborated = next(r for r in said if "2 flags from 2 agents" in r)
    assert "(the entry already had 1 flag)" in corroborated


def test_a_route_changes_by_number_too(tmp_path: Path) -> None:
    s, proposals = basic(tmp_path)
    result = run(s.ws, "decide", DREAM_ID, "1", "--route", "memory")
    assert result.exit_code == 0, result.output
    assert f"[1] {proposals['create'].id} goes to memory" in result.stdout
    assert s.load().proposal(proposals["create"].id).route == "memory"


def test_review_json_leaves_the_internal_details_out(tmp_path: Path) -> None:
    s, update, _ = folded_update(tmp_path)
    data = json.loads(run(s.ws, "review", "show", DREAM_ID, "--json").stdout)
    [shown] = [p for p in data["proposals"] if p["id"] == update.id]
    assert shown["details"]["confirmations"] == 2
    assert not {"reinforce_alone", "fingerprints", "engine_after"} & set(shown["details"])


def test_decide_prints_the_kept_reinforce_and_the_bundles_new_number(tmp_path: Path) -> None:
    s, update, alone = folded_update(tmp_path, with_create=True)
    shown = s.load()
    assert shown.bundle is not None and len(shown.reviewable) == 3  # create, update, the bundle
    assert run(s.ws, "decide", DREAM_ID, "1", "accept").exit_code == 0  # the bundle follows it
    result = run(s.ws, "decide", DREAM_ID, update.id, "reject")
    assert result.exit_code == 0, result.output
    assert f"[3] {alone.id} new reinforce" in result.stdout  # where the bundle was
    assert "[4] context p-bundle-" in result.stdout


def test_review_show_prints_a_discard_reason_once(tmp_path: Path) -> None:
    s, _ = basic(tmp_path)
    shown = run(s.ws, "review", "show", DREAM_ID).stdout
    assert shown.count("duplicate of an entry") == 1
    assert "  why: duplicate of an entry" in shown
