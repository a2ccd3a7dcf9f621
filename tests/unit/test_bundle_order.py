"""AGENTS.md across dreams (issue 11): the file a dream regenerates keeps the order it has, so the
context proposal's diff and the commit show what changed, not sections reshuffled by rank."""

from __future__ import annotations

import difflib
from pathlib import Path

from dreamtui.review.commit import commit
from tests.factories import DREAM_ID, NOW, Scenario


def _scenario(tmp_path: Path) -> tuple[Scenario, str]:
    s = Scenario(tmp_path / "ws")
    s.entry("ci-ports", "CI Postgres listens on 5432.", tags=("ci",), confirmations=5)
    s.entry("deploy-staging", "Deploy staging with make deploy-staging.", tags=("deploy",), confirmations=3)
    db = s.entry("test-db-reset", "Run make db-reset before integration tests.", confirmations=0)
    s.settle()
    return s, db


def test_a_reinforcement_leaves_agents_md_as_it_is(tmp_path: Path) -> None:
    s, db = _scenario(tmp_path)
    before = s.ws.agents_md.read_text(encoding="utf-8")
    # Eight confirmations rank test-db-reset first: a fresh file would open with its section.
    changeset = s.changeset([s.reinforce(db, s.memories(8))])
    assert [p.op for p in changeset.proposals] == ["reinforce"]  # no context proposal: no change
    s.decide_all()
    commit(s.ws, DREAM_ID, now=NOW)
    assert s.ws.agents_md.read_text(encoding="utf-8") == before


def test_a_new_entry_in_a_new_section_adds_only_its_heading_and_line(tmp_path: Path) -> None:
    s, db = _scenario(tmp_path)
    before = s.ws.agents_md.read_text(encoding="utf-8")
    m = s.memories(9)
    changeset = s.changeset([s.reinforce(db, m[:8]),
                             s.create("vite-proxy", "Start make api before npm run dev.", m[8:],
                                      tags=["frontend"], confirmations=4)])
    context = changeset.proposals[-1]
    assert context.op == "context" and context.before == before
    diff = [line for line in difflib.unified_diff(before.splitlines(), (context.after or "").splitlines(),
                                                  lineterm="", n=0)
            if not line.startswith(("---", "+++", "@@"))]
    assert sorted(line for line in diff if line.strip("+")) == [
        "+## frontend", "+- Start make api before npm run dev. [mem: vite-proxy]"]
    assert context.rationale.endswith("+4 −0 lines")  # the heading, its line, two blank lines
