"""The feedback policy, rule by rule, and `enforce`, the guard on every engine's output."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dreamtui.dream.cluster import build_entry_index
from dreamtui.dream.guard import enforce
from dreamtui.dream.policy import (
    Replacement,
    feedback_proposals,
    match_flag,
    verdict,
)
from dreamtui.dream.proposals import EntryDraft, create_proposal, discard_proposal, make_proposal
from dreamtui.entry.codec import parse_entry, render_entry
from dreamtui.model import FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED, Memory, Proposal
from dreamtui.store.ltm import LTMSnapshot
from dreamtui.workspace.config import Config

NOW = datetime(2026, 11, 29, 3, 0, tzinfo=UTC)
T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
PORTS = "topics/ci-ports.md"
DBRESET = "topics/test-db-reset.md"


def entry_text(slug: str, title: str, guidance: str, **meta: Any) -> str:
    lines = [f"title: {title}", f"slug: {slug}", "type: topic", "tags: [ci]",
             "created_at: 2026-11-01T09:00:00Z", "updated_at: 2026-11-02T09:00:00Z"]
    lines += [f"{key}: {value}" for key, value in meta.items()]
    return "---\n" + "\n".join(lines) + f"\n---\n{guidance}\n\nDetails follow here.\n"


def snapshot_of(**texts: str) -> LTMSnapshot:
    snapshot = LTMSnapshot()
    for path, text in texts.items():
        snapshot.entries[path] = parse_entry(text, path)
    return snapshot


def ports_entry(**meta: Any) -> str:
    return entry_text("ci-ports", "CI service ports", "CI Postgres listens on 5432 and Redis on 6379.",
                      **meta)


def dbreset_entry(**meta: Any) -> str:
    return entry_text("test-db-reset", "Reset the test database",
                      "Run `make db-reset` before `pytest tests/integration`.", **meta)


def snapshot(ports: dict[str, Any] | None = None, dbreset: dict[str, Any] | None = None) -> LTMSnapshot:
    return snapshot_of(**{PORTS: ports_entry(**(ports or {})), DBRESET: dbreset_entry(**(dbreset or {}))})


_counter = iter(range(10_000))


def confirm(slug: str, agent: str = "agent-a", minutes: int = 0) -> Memory:
    return Memory(id=f"c{next(_counter)}", tenant_id="default", agent_id=agent, type=FEEDBACK_CONFIRMED,
                  title=f"confirmed {slug}", content=f"The guidance marked [mem: {slug}] helped.",
                  tags=(), metadata={"target": slug}, submitted_at=T0 + timedelta(minutes=minutes))


def flag(observation: str, targets: list[str] | None = None, quote: str | None = None,
         agent: str = "agent-a", session: str | None = None, minutes: int = 0) -> Memory:
    metadata: dict[str, Any] = {}
    if targets:
        metadata["targets"] = targets
    if quote:
        metadata["quote"] = quote
    if session:
        metadata["session_id"] = session
    return Memory(id=f"f{next(_counter)}", tenant_id="default", agent_id=agent, type=FEEDBACK_FLAGGED,
                  title="flagged", content=observation, tags=(), metadata=metadata,
                  submitted_at=T0 + timedelta(minutes=minutes))


def observation(title: str, content: str, agent: str = "agent-a") -> Memory:
    return Memory(id=f"o{next(_counter)}", tenant_id="default", agent_id=agent, type="observation",
                  title=title, content=content, tags=("ci",), metadata={}, submitted_at=T0)


def only(proposals: list[Proposal], op: str | None = None) -> Proposal:
    assert len(proposals) == 1, [(p.op, p.target) for p in proposals]
    if op is not None:
        assert proposals[0].op == op, (proposals[0].op, proposals[0].rationale)
    return proposals[0]


EVIDENCED = "Context says 5432 but CI maps 5433; connections to 5432 are refused."


# --- confirmations ---------------------------------------------------------------------------


def test_confirmations_make_one_reinforce_per_entry() -> None:
    snap = snapshot(ports={"confirmations": 2})
    batch = [confirm("ci-ports", "agent-a"), confirm("ci-ports", "agent-b", 5),
             confirm("ci-ports", "agent-c", 9)]
    p = only(feedback_proposals(batch, snap, NOW), "reinforce")
    assert p.details["confirmations"] == 3
    assert sorted(p.evidence) == sorted(m.id for m in batch)
    after = parse_entry(p.after or "", PORTS)
    assert after.confirmations == 5
    assert after.meta["last_confirmed"] == T0 + timedelta(minutes=9)
    assert after.body == snap.entries[PORTS].body
    assert p.base_sha256 == snap.entries[PORTS].sha256


def test_confirmation_of_an_unknown_or_archived_slug_is_discarded() -> None:
    snap = snapshot()
    old = "archive/topics/old.md"
    snap.entries[old] = parse_entry(entry_text("old", "Old", "Gone."), old)
    proposals = feedback_proposals([confirm("nope"), confirm("old")], snap, NOW)
    assert [p.op for p in proposals] == ["discard", "discard"]
    assert proposals[0].details["reason"] == "confirmation names no live entry: nope"
    assert proposals[1].details["reason"] == "confirmation names no live entry: old (archived)"


# --- flags -----------------------------------------------------------------------------------


def test_one_flag_against_a_well_confirmed_entry_weakens_it_with_a_caveat() -> None:
    snap = snapshot(ports={"confirmations": 4})
    quoted = flag(EVIDENCED, ["ci-ports"], quote="listens on 5432")
    p = only(feedback_proposals([quoted], snap, NOW), "weaken")
    after = parse_entry(p.after or "", PORTS)
    # last_flagged is when the flag came (issue 11, item 8), not when the dream ran
    assert after.flags == 1 and after.meta["last_flagged"] == quoted.submitted_at != NOW
    assert after.guidance == snap.entries[PORTS].guidance  # the caveat is its own paragraph
    caveat = after.body.split("\n\n")[1]
    assert caveat.startswith("> Caveat (flagged 2026-11-28 by agent-a): Context says 5432")
    assert 'Quoted: "listens on 5432"' in caveat
    assert p.details["flags"] == 1 and "well-confirmed" in p.rationale


def test_unevidenced_flag_against_an_unconfirmed_entry_only_weakens() -> None:
    p = only(feedback_proposals([flag("This was wrong for me.", ["ci-ports"])], snapshot(), NOW), "weaken")
    assert "without corroboration" in p.rationale


def test_one_agents_evidenced_flag_against_an_unconfirmed_entry_only_weakens_it() -> None:
    """Uncorroborated, however well evidenced: a person may decide archive on the weaken."""
    p = only(feedback_proposals([flag(EVIDENCED, ["ci-ports"], quote="listens on 5432")], snapshot(),
                                NOW), "weaken")
    assert "evidence" in p.rationale and "decide archive" in p.rationale
    assert parse_entry(p.after or "", PORTS).flags == 1


def test_one_agent_flagging_every_entry_queues_none_for_archival() -> None:
    batch = [flag(EVIDENCED, ["ci-ports"], agent="mallory"),
             flag("Run `make db-reset` is wrong: make has no db-reset target.", ["test-db-reset"],
                  agent="mallory", quote="make db-reset"),
             flag("Redis is not on 6379 either.", ["ci-ports"], agent="mallory", minutes=5)]
    proposals = feedback_proposals(batch, snapshot(), NOW)
    assert sorted(p.op for p in proposals) == ["weaken", "weaken"]


def test_corroborating_flags_from_two_agents_archive_an_unconfirmed_entry() -> None:
    flags = [flag(EVIDENCED, ["ci-ports"], agent="agent-a"), flag(EVIDENCED, ["ci-ports"], agent="agent-b")]
    p = only(feedback_proposals(flags, snapshot(), NOW), "archive")
    assert p.details["archive_path"] == "archive/topics/ci-ports.md"
    assert p.details["superseded_by"] is None
    after = parse_entry(p.after or "", PORTS)
    assert after.meta["retired_at"] == NOW and "2 agents" in after.meta["retired_reason"]


def test_evidenced_flag_outweighs_nothing_but_confirmations_in_the_same_batch_count() -> None:
    batch = [flag(EVIDENCED, ["ci-ports"]), confirm("ci-ports", "agent-b")]
    p = only(feedback_proposals(batch, snapshot(), NOW), "weaken")
    assert parse_entry(p.after or "", PORTS).confirmations == 1
    assert sorted(p.evidence) == sorted(m.id for m in batch)


@pytest.mark.parametrize("flags", [
    [flag("Redis is not on 6379 here.", ["ci-ports"], agent="agent-a"),
     flag("CI maps other ports.", ["ci-ports"], agent="agent-b")],
    [flag("Redis is not on 6379 here.", ["ci-ports"], session="s1"),
     flag("CI maps other ports.", ["ci-ports"], session="s2")],
])
def test_corroborated_flags_archive_even_a_well_confirmed_entry(flags: list[Memory]) -> None:
    p = only(feedback_proposals(flags, snapshot(ports={"confirmations": 9}), NOW), "archive")
    assert p.details["reason"].startswith("2 flags from")


def test_a_flag_against_an_entry_flagged_before_archives_it() -> None:
    p = only(feedback_proposals([flag("Still wrong.", ["ci-ports"])], snapshot(ports={"flags": 1}), NOW),
             "archive")
    assert "(the entry already had 1 flag)" in p.details["reason"]
    assert parse_entry(p.after or "", PORTS).flags == 2


def _weakened_by(agent: str) -> LTMSnapshot:
    """The ports entry after an earlier dream's weaken on one flag from `agent`."""
    earlier = flag(EVIDENCED, ["ci-ports"], agent=agent)
    weakened = only(feedback_proposals([earlier], snapshot(), NOW), "weaken").after or ""
    return snapshot_of(**{PORTS: weakened})


def test_the_same_agent_flagging_a_weakened_entry_again_only_weakens_it_again() -> None:
    p = only(feedback_proposals([flag("Still wrong.", ["ci-ports"], agent="agent-a")],
                                _weakened_by("agent-a"), NOW), "weaken")
    assert parse_entry(p.after or "", PORTS).flags == 2


def test_another_agent_flagging_a_weakened_entry_archives_it() -> None:
    p = only(feedback_proposals([flag("Still wrong.", ["ci-ports"], agent="agent-b")],
                                _weakened_by("agent-a"), NOW), "archive")
    assert "(the entry already had 1 flag)" in p.details["reason"]


def test_archive_names_the_replacement_stated_in_the_batch() -> None:
    replacement = observation("CI Postgres port", "In CI the Postgres service is exposed on port 5433.")
    unrelated = observation("Docs", "Docs are built with mkdocs.")
    flags = [flag(EVIDENCED, ["ci-ports"], agent="agent-a"), flag(EVIDENCED, ["ci-ports"], agent="agent-b")]
    p = only(feedback_proposals(flags, snapshot(), NOW,
                                replacements=[Replacement(unrelated, "docs-build"),
                                              Replacement(replacement, "ci-postgres-port")]), "archive")
    assert p.details["superseded_by"] == "ci-postgres-port"
    assert parse_entry(p.after or "", PORTS).meta["superseded_by"] == "ci-postgres-port"


def test_a_flag_against_a_pinned_entry_asks_the_human() -> None:
    flags = [flag(EVIDENCED, ["ci-ports"], agent="agent-a"), flag(EVIDENCED, ["ci-ports"], agent="agent-b")]
    p = only(feedback_proposals(flags, snapshot(ports={"importance": "pinned"}), NOW), "weaken")
    assert p.details["asks_human"] is True
    assert "pinned-entry" in p.safety
    assert parse_entry(p.after or "", PORTS).pinned


def test_a_flag_without_targets_is_matched_by_its_quote() -> None:
    f = flag("That command did not exist.", quote="Run make db-reset before pytest tests/integration")
    p = only(feedback_proposals([f], snapshot(dbreset={"confirmations": 3}), NOW), "weaken")
    assert p.target == DBRESET


def test_a_flag_without_targets_is_matched_by_its_observation() -> None:
    f = flag("CI Postgres listens on 5433, not 5432, and Redis on 6379")
    p = only(feedback_proposals([f], snapshot(ports={"confirmations": 3}), NOW), "weaken")
    assert p.target == PORTS


def test_a_flag_matching_nothing_is_discarded_with_its_reason() -> None:
    p = only(feedback_proposals([flag("The deploy key rotated last week.", quote="deploy with key X")],
                                snapshot(), NOW), "discard")
    # Said as a person checks it: the text no entry holds, the nearest entry, how near it came.
    assert p.details["reason"] == ("flag matched no live entry: no entry says “deploy with key X”, and none "
                                   "shares its words")


def test_a_flag_naming_unknown_slugs_is_discarded() -> None:
    p = only(feedback_proposals([flag(EVIDENCED, ["no-such", "other"])], snapshot(), NOW), "discard")
    assert p.details["reason"] == "flag names no live entry: no-such, other"


def test_age_only_breaks_a_tie_between_equally_matching_entries() -> None:
    older = entry_text("port-a", "CI service ports", "CI Postgres listens on 5432.")
    newer = entry_text("port-b", "CI service ports", "CI Postgres listens on 5432.").replace(
        "updated_at: 2026-11-02", "updated_at: 2026-11-20")
    snap = snapshot_of(**{"topics/port-b.md": newer, "topics/port-a.md": older})
    entry, reason = match_flag(flag("wrong", quote="CI Postgres listens on 5432"), build_entry_index(snap))
    assert entry is not None and entry.slug == "port-a", reason


def test_verdict_thresholds() -> None:
    snap = snapshot(ports={"confirmations": 1})
    entry = snap.entries[PORTS]
    assert verdict(entry, [flag(EVIDENCED, ["ci-ports"])], 0).action == "weaken"
    assert verdict(entry, [flag(EVIDENCED, ["ci-ports"])], 1).confidence == 0.8  # now well-confirmed


# --- enforce ---------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "topics").mkdir()
    return tmp_path


def check(proposal: Proposal, snap: LTMSnapshot, root: Path, batch: list[str] | None = None,
          config: Config | None = None) -> str | None:
    kept, refusals = enforce([proposal], snap, config or Config(), batch_ids=batch or ["m1", "m2"],
                             memory_root=root)
    assert len(kept) + len(refusals) == 1
    return refusals[0].reason if refusals else None


def create(slug: str = "new-thing", path: str | None = None, **meta: Any) -> Proposal:
    m = observation("New thing", "A new thing.")
    m = replace(m, id="m1")
    fields = {"title": "New thing", "slug": slug, "type": "topic", "tags": ["ci"], **meta}
    return create_proposal(path=path or f"topics/{slug}.md", meta=fields, body="A new thing.\n",
                           kind="topic", rationale="r", memories=[m], confidence=0.5)


def entry_op(snap: LTMSnapshot, op: str = "update", path: str = PORTS, *, asks_human: bool = False,
             memories: list[Memory] | None = None, **meta: Any) -> Proposal:
    draft = EntryDraft(snap.entries[path])
    evidence = memories or [replace(observation("x", "y"), id="m1")]
    if op == "update":
        draft.merge_facts(evidence, ["A new fact."], NOW, "r", 0.7, asks_human=asks_human)
    elif op == "reinforce":
        draft.confirm(evidence, NOW, "r", 0.9)
    elif op == "weaken":
        draft.flag(evidence, ["> Caveat"], NOW, "r", 0.6, asks_human=asks_human)
    else:
        draft.retire(evidence, NOW, "r", None, 0.7)
    draft.meta.update(meta)
    return draft.to_proposal()


def test_enforce_keeps_valid_proposals(root: Path) -> None:
    snap = snapshot()
    assert check(create(), snap, root) is None
    assert check(create("dated", path="incidents/2026-11/2026-11-29-dated.md"), snap, root) is None
    for op in ("update", "reinforce", "weaken", "archive"):
        assert check(entry_op(snap, op), snap, root) is None, op
    assert check(discard_proposal(replace(observation("x", "y"), id="m2"), "noise"), snap, root) is None


def test_enforce_refuses_unknown_ops_and_bad_slugs(root: Path) -> None:
    bad_op = create()
    bad_op.op = "delete"
    assert check(bad_op, snapshot(), root) == \
        "op 'delete' is not one of create, update, promote, reinforce, weaken, archive, discard, context"
    assert "invalid" in (check(create("Bad_Slug"), snapshot(), root) or "")


@pytest.mark.parametrize("path, reason", [
    ("../escape/new-thing.md", "target must be topics/new-thing.md"),
    ("notes/new-thing.md", "target must be topics/new-thing.md"),
    ("topics/other.md", "target must be topics/new-thing.md"),
])
def test_enforce_refuses_targets_off_the_layout(root: Path, path: str, reason: str) -> None:
    assert (check(create(path=path), snapshot(), root) or "").startswith(reason)


def test_enforce_refuses_paths_escaping_through_symlinks(root: Path,
                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (root / "topics").rmdir()
    (root / "topics").symlink_to(outside, target_is_directory=True)
    assert (check(create(), snapshot(), root) or "").startswith("target outside the memory root")


def test_enforce_refuses_creating_a_live_slug_or_an_existing_file(root: Path) -> None:
    assert "already exists live" in (check(create("ci-ports"), snapshot(), root) or "")
    (root / "topics" / "stray.md").write_text("not an entry", encoding="utf-8")
    assert check(create("stray"), snapshot(), root) == "a file already exists at topics/stray.md"


def test_enforce_refuses_entry_ops_on_non_live_paths_and_stale_bases(root: Path) -> None:
    snap = snapshot()
    moved = entry_op(snap)
    moved.target = "topics/gone.md"
    assert check(moved, snap, root) == "topics/gone.md is not a live entry"
    stale = entry_op(snap)
    stale.base_sha256 = "0" * 64
    assert check(stale, snap, root) == "base_sha256 does not match the entry as this dream read it"


def test_enforce_guards_pinned_entries(root: Path) -> None:
    snap = snapshot(ports={"importance": "pinned"})
    assert "is pinned" in (check(entry_op(snap, "update"), snap, root) or "")
    assert "is pinned" in (check(entry_op(snap, "archive"), snap, root) or "")
    assert check(entry_op(snap, "weaken", asks_human=True), snap, root) is None
    assert check(entry_op(snap, "update", asks_human=True), snap, root) is None
    assert check(entry_op(snap, "reinforce"), snap, root) is None
    assert check(entry_op(snap, "weaken", asks_human=True, importance="normal"), snap, root) == \
        "a dream cannot unpin an entry"
    relaxed = Config.model_validate({"ltm": {"enforce_pinned": False}})
    assert check(entry_op(snap, "update"), snap, root, config=relaxed) is None


def test_enforce_refuses_an_engine_pinning_or_rewriting_on_reinforce(root: Path) -> None:
    snap = snapshot()
    assert check(entry_op(snap, "update", importance="pinned"), snap, root) == \
        "an engine cannot pin an entry; only a person can"
    sneaky = entry_op(snap, "reinforce")
    entry = snap.entries[PORTS]
    sneaky.after = render_entry(dict(entry.meta, confirmations=1), "Something else entirely.\n",
                                original=entry)
    sneaky.id = Proposal.make_id(sneaky.op, sneaky.target, sneaky.after)
    assert check(sneaky, snap, root) == "a reinforce changes counters and sources, not the body"


def test_enforce_requires_evidence_from_the_batch(root: Path) -> None:
    snap = snapshot()
    stranger = entry_op(snap, memories=[replace(observation("x", "y"), id="zz")])
    assert check(stranger, snap, root) == "evidence not in this dream's batch: zz"
    bare = make_proposal("update", PORTS, slug="ci-ports", before=snap.entries[PORTS].raw,
                         after=entry_op(snap).after, rationale="r", memories=[], confidence=0.5)
    assert check(bare, snap, root) == "no evidence: every proposal rests on batch memories"


def test_enforce_refuses_malformed_after_text_and_wrong_ids(root: Path) -> None:
    snap = snapshot()
    broken = entry_op(snap)
    broken.after = "no frontmatter at all"
    broken.id = Proposal.make_id(broken.op, broken.target, broken.after)
    assert (check(broken, snap, root) or "").startswith("after-text is not a valid entry")
    forged = entry_op(snap)
    forged.id = "p-000000000000"
    assert check(forged, snap, root) == "id is not the hash of op, target and after-text"
    odd_discard = discard_proposal(replace(observation("x", "y"), id="m9"), "noise")
    assert (check(odd_discard, snap, root) or "").startswith("evidence not in this dream's batch")
