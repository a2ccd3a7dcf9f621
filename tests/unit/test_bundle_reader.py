"""One reader of AGENTS.md: a bundle that is not UTF-8 neither fails a dream nor hides from the diff.

Before, the dream runner refused such a file (every dream failed) while the commit plan read it
as empty (its diff claimed the whole bundle was new).
"""

from __future__ import annotations

from pathlib import Path

from dreamtui.dream.runner import dream
from dreamtui.model import NewMemory
from dreamtui.review.bundle import read_bundle
from dreamtui.review.commit import commit
from dreamtui.review.decide import all_matching, decide
from dreamtui.scaffold import init_workspace
from dreamtui.store.stm import STMStore

BAD = b"# Agent context\n- caf\xe9 au lait [mem: coffee]\n"


def test_missing_is_empty_and_bad_bytes_show_as_replacement_characters(tmp_path: Path) -> None:
    assert read_bundle(tmp_path / "AGENTS.md") == ""
    (tmp_path / "AGENTS.md").write_bytes(BAD)
    assert read_bundle(tmp_path / "AGENTS.md") == "# Agent context\n- caf\ufffd au lait [mem: coffee]\n"


def test_a_bundle_that_is_not_utf8_is_shown_in_the_diff_and_replaced_by_the_commit(tmp_path: Path) -> None:
    workspace = init_workspace(tmp_path / "ws", git=False)
    workspace.agents_md.write_bytes(BAD)
    with STMStore.for_workspace(workspace) as store:  # two agents: a lesson that recurs enters the bundle
        for agent in ("a1", "a2"):
            store.submit(NewMemory(type="observation", title="CI maps Postgres to port 5433",
                                   content="the CI compose file publishes Postgres on 5433", agent_id=agent))
    changeset = dream(workspace)
    assert changeset is not None  # the dream does not fail over a generated file
    context = changeset.bundle
    assert context is not None and context.before is not None and "caf\ufffd au lait" in context.before
    decide(workspace, changeset.id, all_matching(), "accept")
    commit(workspace, changeset.id)
    written = workspace.agents_md.read_text(encoding="utf-8")
    assert "5433" in written and "caf" not in written
