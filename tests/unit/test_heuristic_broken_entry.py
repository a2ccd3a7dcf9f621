"""A hand-broken entry file (its frontmatter does not load) is no slug to step around: a memory
restating it makes no "-2" twin; it waits in the queue, and the dream says why (new user M5)."""

from __future__ import annotations

from dreamtui.dream.engines.base import Done
from dreamtui.dream.runner import dream
from dreamtui.errors import EntryError
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace
from tests.factories import NOW, memory, new_memory, snapshot_of, submit
from tests.unit.test_heuristic import dream_input, events, proposals

BROKEN = "topics/format-with-black-before-commit.md"


def test_a_restatement_of_a_broken_entry_waits_instead_of_a_twin() -> None:
    snapshot = snapshot_of()
    snapshot.problems.append(EntryError(BROKEN, 4, "invalid YAML in frontmatter: did not find expected ','"))
    told = memory("f1", "Format with black before commit", "Run `black src` before you commit.",
                  tags=("style",))
    data = dream_input([told], snapshot)
    assert [p for p in proposals(data) if p.op == "create"] == []
    [done] = [e for e in events(data) if isinstance(e, Done)]
    assert done.stats["left_out"] == ["f1"]  # back to the queue (dream/runner.py)
    assert done.stats["held_for_broken_entries"] == {"f1": f"{BROKEN}:4: invalid YAML in frontmatter: "
                                                            "did not find expected ','"}


def test_another_lesson_is_created_beside_a_broken_entry() -> None:
    snapshot = snapshot_of()
    snapshot.problems.append(EntryError(BROKEN, 4, "invalid YAML"))
    told = memory("f2", "Pin Node 20 for the frontend", "Use Node 20 for the frontend build.")
    [created] = [p for p in proposals(dream_input([told], snapshot)) if p.op == "create"]
    assert created.target == "topics/pin-node-20-for-the-frontend.md"


def test_a_dream_whose_every_memory_waits_for_a_broken_entry_keeps_them_pending(workspace: Workspace) -> None:
    path = workspace.memory_root / BROKEN
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\ntitle: Format with black before commit\nslug: format-with-black-before-commit\n"
                    "tags: [style\n---\nRun `black src` before you commit.\n", encoding="utf-8")
    [mid] = submit(workspace, new_memory("Format with black before commit",
                                         content="Run `black src` before you commit."))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None and changeset.complete
    assert [p for p in changeset.proposals if p.op == "create"] == []
    assert changeset.stats["entry_problems"] == [f"{BROKEN}:5: invalid YAML in frontmatter: did not find "
                                                 "expected ',' or ']'"]
    with STMStore.for_workspace(workspace) as stm:
        assert stm.pending_by_type() == {"observation": 1}  # it waits for the file to be fixed
        waiting = stm.get(mid)
    assert waiting is not None and waiting.consumed_by_lease is None
    assert path.read_text(encoding="utf-8").count("tags: [style\n") == 1  # the hand edit untouched
