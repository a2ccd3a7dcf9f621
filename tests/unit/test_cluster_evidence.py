"""A cluster's members are evidence of its lesson: the value gate does not discard a terse
restatement that clustered with a member stating the lesson in full. Fixtures written for this
test, in the shapes instruction files use."""

from __future__ import annotations

from dreamtui.dream.runner import dream
from dreamtui.model import NewMemory
from dreamtui.workspace.layout import Workspace
from tests.factories import NOW, submit

FULL = NewMemory(type="observation", title="Split unrelated edits", agent_id="agent-a",
                 content="Keep each commit to one logical change; split unrelated edits into separate commits.")
TERSE = NewMemory(type="observation", title="One logical change per commit", agent_id="agent-b",
                  content="One logical change per commit.")


def _ops(workspace: Workspace, ids: list[str]) -> dict[str, str]:
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    return {m: p.op for p in changeset.proposals if p.op != "context" for m in p.evidence if m in ids}


def test_a_terse_restatement_is_evidence_of_the_lesson_it_clustered_with(workspace: Workspace) -> None:
    ids = submit(workspace, FULL, TERSE)
    ops = _ops(workspace, ids)
    assert ops == {ids[0]: "create", ids[1]: "create"}, ops


def test_alone_the_terse_remark_is_still_gated(workspace: Workspace) -> None:
    ids = submit(workspace, TERSE)
    assert _ops(workspace, ids) == {ids[0]: "discard"}
