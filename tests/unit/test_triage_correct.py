"""The `correct` verdict (issue 14, item 3): the flag is right and the entry still useful; a
person's corrected text replaces it, the flags consumed, through the journaled commit."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from dreamtui.dream.triage_rules import POLICY_RULES
from dreamtui.errors import InputError
from dreamtui.review import triage

from .test_commit import NOW, Scenario
from .test_triage import flag, states


@pytest.fixture
def s(tmp_path: Path) -> Scenario:
    scenario = Scenario(tmp_path / "ws")
    scenario.entry("node-version", "Use Node 18 for the web app.")
    scenario.settle()
    return scenario


def test_the_draft_shows_each_flag_above_the_entry_and_saving_removes_it(s: Scenario) -> None:
    flag(s, "package.json says Node 20 --> not 18", targets=["node-version"], quote="Use Node 18",
         agent="cursor")
    group = triage.pending(s.ws, POLICY_RULES).groups[0]
    draft = triage.correction_draft(group)
    notes, entry = draft.split("\n-->\n", 1)
    assert entry == group.entry.raw
    assert "by cursor, 2026-11-29: package.json says Node 20 —> not 18" in notes  # cannot end the block
    assert 'quoted: "Use Node 18"' in notes
    assert triage.without_notes(draft) == group.entry.raw
    assert triage.without_notes(draft.replace("\n", "\r\n")) == group.entry.raw.replace("\n", "\r\n")
    assert triage.without_notes(group.entry.raw) == group.entry.raw  # no block: nothing to take off


def test_correct_commits_the_edit_consumes_the_flags_and_undo_says_what_it_undoes(s: Scenario) -> None:
    ids = [flag(s, "package.json says Node 20", targets=["node-version"])]
    before = s.text("topics/node-version.md")
    group = triage.pending(s.ws, POLICY_RULES).groups[0]
    edited = triage.correction_draft(group).replace("Use Node 18", "Use Node 20")
    verdict = triage.correct(s.ws, group, edited, now=NOW)
    assert verdict.done == "corrected"
    assert s.text("topics/node-version.md") == before.replace("Use Node 18", "Use Node 20")
    assert states(s, ids) == ["consumed"]
    assert s.log_lines()[-1] == ("- 2026-11-29T03:00:12Z correct topics/node-version.md (flag triage: the "
                                 "flag is right; corrected — package.json says Node 20) [human]")
    assert git.Repo(s.ws.root).head.commit.message.startswith("dreamtui: correct topics/node-version.md")
    assert triage.pending(s.ws, POLICY_RULES).groups == []

    assert triage.undo(s.ws, now=NOW).record.decision == "correct"
    assert s.text("topics/node-version.md") == before
    assert states(s, ids) == ["pending"]
    assert s.log_lines()[-1].split()[2:5] == ["undo", "correct", "topics/node-version.md"]


def test_an_unchanged_entry_corrects_nothing(s: Scenario) -> None:
    ids = [flag(s, "package.json says Node 20", targets=["node-version"])]
    group = triage.pending(s.ws, POLICY_RULES).groups[0]
    head = git.Repo(s.ws.root).head.commit.hexsha
    with pytest.raises(InputError, match="unchanged, nothing corrected"):
        triage.correct(s.ws, group, triage.correction_draft(group), now=NOW)
    assert git.Repo(s.ws.root).head.commit.hexsha == head and states(s, ids) == ["pending"]
