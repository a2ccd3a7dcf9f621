"""Flag triage in the core: what is pending, each verdict through the journaled commit path, and
undo newest first."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import git
import pytest

from dreamtui.dream.triage_rules import POLICY_RULES
from dreamtui.errors import InputError
from dreamtui.model import NewMemory
from dreamtui.review import triage
from dreamtui.review.commit import commit_human_change
from dreamtui.store.stm import STMStore

from .test_commit import NOW, Scenario


def flag(s: Scenario, content: str, *, targets: list[str] | None = None, quote: str = "",
         agent: str = "agent-a", minutes: int = 0) -> str:
    metadata: dict[str, object] = {"quote": quote} if quote else {}
    if targets is not None:
        metadata["targets"] = targets
    with STMStore.for_workspace(s.ws) as stm:
        return stm.submit(NewMemory(type="context_flagged", title="flag", content=content,
                                    agent_id=agent, metadata=metadata),
                          now=NOW - timedelta(hours=1) + timedelta(minutes=minutes)).memory.id


def states(s: Scenario, ids: list[str]) -> list[str]:
    with STMStore.for_workspace(s.ws) as stm:
        return [m.state for m in stm.get_many(ids)]


def pending(s: Scenario) -> triage.Pending:
    return triage.pending(s.ws, POLICY_RULES)


@pytest.fixture
def s(tmp_path: Path) -> Scenario:
    scenario = Scenario(tmp_path / "ws")
    scenario.entry("ci-ports", "CI Postgres listens on 5432.")
    scenario.entry("node-version", "Use Node 18 for the web app.")
    scenario.settle()
    return scenario


def test_pending_flags_are_grouped_by_the_live_entry_they_name(s: Scenario) -> None:
    first = flag(s, "CI uses 5433", targets=["ci-ports"], quote="listens on 5432")
    both = flag(s, "both are stale", targets=["ci-ports", "node-version"], minutes=1)
    gone = flag(s, "this entry does not exist", targets=["no-such-entry"], minutes=2)
    # No targets: matched by its quote, the way a dream matches it.
    quoted = flag(s, "package.json says Node 20", quote="Use Node 18 for the web app", minutes=3)
    found = pending(s)
    assert [(g.entry.path, [f.id for f in g.flags]) for g in found.groups] == [
        ("topics/ci-ports.md", [first, both]), ("topics/node-version.md", [both, quoted])]
    assert [f.id for f in found.unmatched] == [gone]
    listed = found.to_dict()["entries"][0]
    assert listed["entry"]["slug"] == "ci-ports"
    assert listed["flags"][0] == {"id": first, "agent": "agent-a", "submitted_at": "2026-11-29T02:00:12Z",
                                  "observation": "CI uses 5433", "quote": "listens on 5432",
                                  "targets": ["ci-ports"]}


def test_archive_consumes_its_flags_and_undo_brings_the_entry_back_byte_for_byte(s: Scenario) -> None:
    ids = [flag(s, "CI uses 5433", targets=["ci-ports"]),
           flag(s, "really 5433", targets=["ci-ports"], minutes=1)]
    before = s.text("topics/ci-ports.md")
    group = pending(s).groups[0]
    verdict = triage.archive(s.ws, group, now=NOW)
    assert verdict.done == "archived" and "1 archived" in verdict.summary
    assert not (s.ws.memory_root / "topics/ci-ports.md").exists()
    assert "flag triage: the flag is right — CI uses 5433; really 5433" in s.text("archive/topics/ci-ports.md")
    assert s.log_lines()[-1] == ("- 2026-11-29T03:00:12Z archive topics/ci-ports.md (flag triage: the "
                                 "flag is right — CI uses 5433; really 5433) [human]")
    assert states(s, ids) == ["consumed", "consumed"]
    assert "archive topics/ci-ports.md" in git.Repo(s.ws.root).head.commit.message
    assert [r.id for r in triage.load_undo_stack(s.ws)] == [verdict.record.id]  # type: ignore[union-attr]
    assert pending(s).groups == []

    undone = triage.undo(s.ws, now=NOW)
    assert undone.record == verdict.record
    assert s.text("topics/ci-ports.md") == before
    assert not (s.ws.memory_root / "archive/topics/ci-ports.md").exists()
    assert states(s, ids) == ["pending", "pending"]
    assert s.log_lines()[-1] == ("- 2026-11-29T03:00:12Z undo archive archive/topics/ci-ports.md (undo of "
                                 "flag triage (archive topics/ci-ports.md)) [human]")
    assert git.Repo(s.ws.root).head.commit.message.startswith(
        "dreamtui: undo archive archive/topics/ci-ports.md (by hand)")
    assert triage.load_undo_stack(s.ws) == []
    with pytest.raises(InputError, match="nothing to undo"):
        triage.undo(s.ws, now=NOW)


def test_pin_and_weaken_are_undone_newest_first(s: Scenario) -> None:
    flag(s, "CI uses 5433", targets=["ci-ports"])
    flag(s, "package.json says Node 20", targets=["node-version"], quote="Node 18", agent="cursor",
         minutes=1)
    ci_before, node_before = s.text("topics/ci-ports.md"), s.text("topics/node-version.md")
    ci, node = pending(s).groups
    assert triage.pin(s.ws, ci, now=NOW).done == "pinned"
    assert "importance: pinned" in s.text("topics/ci-ports.md")
    weakened = triage.weaken(s.ws, node, POLICY_RULES, now=NOW)
    assert weakened.done == "weakened"
    text = s.text("topics/node-version.md")
    assert ('> Caveat (flagged 2026-11-29 by cursor): package.json says Node 20 Quoted: "Node 18".'
            in text)
    # last_flagged is when the flag came (NOW - 1 h + 1 min), not when the person triaged it
    assert "flags: 1" in text and "last_flagged: 2026-11-29T02:01:12Z" in text
    assert [line.split()[2] for line in s.log_lines()[-2:]] == ["pin", "weaken"]
    assert "(flag triage: weakened — package.json says Node 20) [human]" in s.log_lines()[-1]

    assert triage.undo(s.ws, now=NOW).record.decision == "weaken"  # the newest first
    assert s.text("topics/node-version.md") == node_before
    assert s.text("topics/ci-ports.md") != ci_before
    assert triage.undo(s.ws, now=NOW).record.decision == "pin"
    assert s.text("topics/ci-ports.md") == ci_before
    assert [g.entry.slug for g in pending(s).groups] == ["ci-ports", "node-version"]


def test_skip_changes_nothing_and_leaves_its_flags_pending(s: Scenario) -> None:
    ids = [flag(s, "CI uses 5433", targets=["ci-ports"])]
    head = git.Repo(s.ws.root).head.commit.hexsha
    verdict = triage.give(s.ws, pending(s).groups[0], "skip", POLICY_RULES, now=NOW)
    assert verdict.done == "skipped" and verdict.record is None
    assert verdict.summary == "1 flag left pending for the next dream"
    assert states(s, ids) == ["pending"] and git.Repo(s.ws.root).head.commit.hexsha == head
    assert triage.load_undo_stack(s.ws) == []
    with pytest.raises(InputError, match="expected archive, pin, weaken, skip"):
        triage.give(s.ws, pending(s).groups[0], "delete", POLICY_RULES)


@pytest.mark.parametrize("decision", ["archive", "pin", "weaken"])
def test_a_hand_edit_between_listing_and_verdict_is_held_back(s: Scenario, decision: str) -> None:
    ids = [flag(s, "CI uses 5433", targets=["ci-ports"])]
    group = pending(s).groups[0]
    path = s.ws.memory_root / "topics/ci-ports.md"
    edited = path.read_text() + "\nFixed by hand: CI uses 5433.\n"
    path.write_text(edited)
    log = s.log_lines()
    with pytest.raises(InputError, match="has changed since; not overwritten"):
        triage.give(s.ws, group, decision, POLICY_RULES, now=NOW)
    assert path.read_text() == edited and s.log_lines() == log
    assert states(s, ids) == ["pending"] and triage.load_undo_stack(s.ws) == []


def test_a_flag_whose_target_is_gone(s: Scenario) -> None:
    retired = flag(s, "CI uses 5433", targets=["ci-ports"])
    commit_human_change(s.ws, "topics/ci-ports.md", None, "archive", "gone by hand", now=NOW)
    found = pending(s)
    assert found.groups == [] and [f.id for f in found.unmatched] == [retired]
    with pytest.raises(InputError, match="names no live entry .ci-ports.; the next dream discards it"):
        found.find(retired)

    # Listed, then its entry disappears before the verdict: refused, the flag stays pending.
    late = flag(s, "Node 20 now", targets=["node-version"])
    group = pending(s).groups[0]
    (s.ws.memory_root / "topics/node-version.md").unlink()
    with pytest.raises(InputError, match="has changed since"):
        triage.archive(s.ws, group, now=NOW)
    assert states(s, [late]) == ["pending"]


def test_undo_refuses_when_the_entry_changed_since_and_keeps_the_record(s: Scenario) -> None:
    flag(s, "CI uses 5433", targets=["ci-ports"])
    verdict = triage.pin(s.ws, pending(s).groups[0], now=NOW)
    path = s.ws.memory_root / "topics/ci-ports.md"
    path.write_text(path.read_text() + "\nEdited after the triage.\n")
    with pytest.raises(InputError, match="has changed since"):
        triage.undo(s.ws, now=NOW)
    assert path.read_text().endswith("Edited after the triage.\n")
    assert triage.load_undo_stack(s.ws) == [verdict.record]
    with pytest.raises(InputError, match="no longer on record"):
        triage.undo(s.ws, "nosuchrecord", now=NOW)


def test_find_takes_an_id_or_a_unique_prefix(s: Scenario) -> None:
    one = flag(s, "CI uses 5433", targets=["ci-ports"])
    both = flag(s, "both are stale", targets=["ci-ports", "node-version"])
    found = pending(s)
    group, chosen = found.find(one[:6].upper())
    assert chosen.id == one and group.entry.slug == "ci-ports"
    with pytest.raises(InputError, match="no pending flag has this id"):
        found.find("zz")
    with pytest.raises(InputError, match="no pending flag has this id"):
        found.find("")
    twins = triage.FlagGroup(group.entry, [replace(f, id=f"abc{i}") for i, f in enumerate(group.flags)])
    with pytest.raises(InputError, match="2 pending flags start with it .abc0, abc1.; give more"):
        triage.Pending([twins], []).find("ab")
    assert triage.Pending([twins], []).find("abc1")[1].id == "abc1"
    with pytest.raises(InputError, match=r"names 2 live entries \(ci-ports, node-version\); choose one"):
        found.find(both)
    assert found.find(both, "node-version")[0].entry.path == "topics/node-version.md"
    assert found.find(both, "topics/ci-ports.md")[0].entry.slug == "ci-ports"
    with pytest.raises(InputError, match="is not against"):
        found.find(one, "node-version")
