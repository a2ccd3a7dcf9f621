"""Issue 14, item 5: what the dream, the triage and the bundle write reads as plain words —
counts with their plurals, no "(s)", no "0 sessions", cuts at a word boundary, one heading rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.dream.policy import feedback_proposals, verdict
from dreamtui.dream.triage_rules import POLICY_RULES
from dreamtui.entry.codec import parse_entry
from dreamtui.review import triage
from dreamtui.review.bundle import render_bundle
from dreamtui.store.ltm import render_index
from dreamtui.vocabulary import clip, counted

from .test_commit import NOW, Scenario
from .test_policy import PORTS, confirm, flag, only, ports_entry, snapshot
from .test_triage import flag as submit_flag


@pytest.mark.parametrize(("text", "limit", "cut"), [
    ("deploy the build to infra/staging first", 33, "deploy the build to…"),
    ("deploy the build to infra/staging first", 34, "deploy the build to infra/staging…"),
    ("ab cd ef", 6, "ab cd…"),
    ("abcdefgh", 4, "abc…"),  # one word longer than the limit: cut inside it, still marked
    ("fits  as\nit is", 20, "fits as it is"),
])
def test_clip_cuts_at_a_word_boundary_and_says_so(text: str, limit: int, cut: str) -> None:
    assert clip(text, limit) == cut and len(cut) <= limit


def test_counted_says_one_thing_once_and_many_in_the_plural() -> None:
    assert [counted(1, "flag"), counted(2, "flag"), counted(0, "session")] == ["1 flag", "2 flags", "0 sessions"]
    assert counted(3, "memory", "memories") == "3 memories"


def test_flag_and_confirmation_reasons_read_as_words() -> None:
    entry = parse_entry(ports_entry(), PORTS)
    two = [flag("Redis is not on 6379.", ["ci-ports"], agent="a"), flag("Other ports.", ["ci-ports"], agent="b")]
    assert verdict(entry, two, 0).reason == "2 flags from 2 agents"  # no "0 session(s)"
    one_agent = [flag("x", ["ci-ports"], session="s1"), flag("y", ["ci-ports"], session="s2")]
    assert verdict(entry, one_agent, 0).reason == "2 flags from 1 agent, 2 sessions"
    assert verdict(entry, [flag("z", ["ci-ports"])], 1).reason == "1 flag without corroboration, 1 confirmation"
    reinforce = only(feedback_proposals([confirm("ci-ports")], snapshot(), NOW), "reinforce")
    assert reinforce.rationale.startswith("1 confirmation from 1 agent")
    for reason in (verdict(entry, two, 0).reason, reinforce.rationale):
        assert "(s)" not in reason


def test_a_triage_reason_in_log_md_and_git_is_cut_at_a_word(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws")
    s.entry("ci-ports", "CI Postgres listens on 5432.")
    s.settle()
    long = "the deploy job reads its settings from infra/staging " * 4  # well past OBSERVED_CHARS
    submit_flag(s, long, targets=["ci-ports"])
    triage.archive(s.ws, triage.pending(s.ws, POLICY_RULES).groups[0], now=NOW)
    line = s.log_lines()[-1]
    observed = line.split(" — ", 1)[1].removesuffix(") [human]")
    assert observed.endswith("…") and len(observed) <= triage.OBSERVED_CHARS
    assert long.startswith(observed.removesuffix("…")) and long[len(observed) - 1] == " "


def test_bundle_headings_are_the_index_headings() -> None:
    entries = [parse_entry(ports_entry(), PORTS),
               parse_entry("---\ntitle: Layout\nslug: layout\ntype: topic\ntags: []\n---\nRepo layout.\n",
                           "topics/layout.md")]
    bundle = [line[3:] for line in render_bundle(entries).text.splitlines() if line.startswith("## ")]
    index = [line[4:] for line in render_index(entries).splitlines() if line.startswith("### ")]
    # A tag heads both; an entry without one is INDEX.md's "untagged" (Dreamer's format) and
    # AGENTS.md's "General" (no heading an agent reads as a subject).
    assert sorted(index) == ["ci", "untagged"] and sorted(bundle) == ["General", "ci"]
