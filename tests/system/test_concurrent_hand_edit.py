"""A person saving entries while a commit runs never loses an edit (docs/architecture.md §4.2, §4.4).

A thread rewrites entry files the commit is about to change, at random moments while `commit`
runs: 40 edits over four commits of about two tenths of a second each. Afterwards every edited
file must hold exactly the last text the person saved, whether the edit landed before the plan
read the file (a conflict, held back), between the plan and the writes (the commit is called off
and planned again around it, or refused when the edits keep coming, and then made again), in
the last microseconds before its own write (left as the person saved it) or after it. Before
the journal re-checked its targets, edits landing between the scan and the replace were
overwritten: 3 to 4 of these 40 on every run, 6 of 40 in the adversarial run.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import git
import pytest

from dreamtui.errors import CommitRefused
from dreamtui.review.commit import CommitReport, commit
from dreamtui.store.journal import KEPT_NOTE
from tests.factories import DREAM_ID, NOW, Scenario

ROUNDS = 4
EDITS_PER_ROUND = 10
ENTRIES = 120  # a commit of about 0.2 s, so the edits (0.2 s apart at most) land inside it


def _prepared(root: Path) -> tuple[Scenario, list[str]]:
    """A workspace whose open dream updates every one of its entries, all accepted."""
    s = Scenario(root)
    paths = [s.entry(f"lesson-{n:03d}", f"Lesson {n}: run the checks before pushing.")
             for n in range(ENTRIES)]
    s.settle()
    memories = s.memories(ENTRIES)
    s.changeset([s.update(path, f"Also seen in round {n}.", [memories[n]])
                 for n, path in enumerate(paths)])
    s.decide_all("accept")
    return s, paths


class _Editor(threading.Thread):
    """Saves EDITS_PER_ROUND edits at random moments, as an editor does (truncate, then write)."""

    def __init__(self, s: Scenario, paths: list[str], rng: random.Random, first: int) -> None:
        super().__init__()
        self.s, self.paths, self.rng, self.first = s, paths, rng, first
        self.saved: dict[str, str] = {}  # path → the last text saved there
        self.edits = 0

    def run(self) -> None:
        for number in range(self.first, self.first + EDITS_PER_ROUND):
            time.sleep(self.rng.uniform(0.0, 0.04))
            path = self.rng.choice(self.paths)
            target = self.s.ws.memory_root / path
            head, _, _ = target.read_text(encoding="utf-8").rpartition("---\n")
            text = f"{head}---\nHand edit number {number}: keep this sentence.\n"
            target.write_text(text, encoding="utf-8")
            self.saved[path] = text
            self.edits += 1


def _commit_during_edits(s: Scenario, editor: _Editor) -> CommitReport:
    """Commit while the editor saves; a commit the edits kept calling off is made again after."""
    editor.start()
    try:
        return commit(s.ws, DREAM_ID, now=NOW)
    except CommitRefused:
        # The edits kept calling it off (TargetsChanged), or the scan caught a file half saved
        # (empty, so its bundle marker would dangle). Nothing was written: the dream is still
        # open and its whole batch still claimed.
        assert s.load().status == "open"
        assert set(s.states().values()) == {"claimed"}
    finally:
        editor.join(timeout=30)
    return commit(s.ws, DREAM_ID, now=NOW)  # the person commits again once the saving stops


@pytest.mark.slow
def test_no_hand_edit_saved_during_a_commit_is_lost(tmp_path: Path) -> None:
    rng = random.Random(16)
    lost: list[str] = []
    edits = 0
    for round_number in range(ROUNDS):
        s, paths = _prepared(tmp_path / f"ws{round_number}")
        editor = _Editor(s, paths, rng, round_number * EDITS_PER_ROUND)
        report = _commit_during_edits(s, editor)
        edits += editor.edits
        lost += [f"round {round_number}: {path}" for path, text in editor.saved.items()
                 if s.text(path) != text]
        held = {c.target for c in report.conflicts}
        kept = {w.split()[0].removeprefix("workspace/memory/") for w in report.warnings
                if KEPT_NOTE in w}
        # A proposal held back has nothing consumed: its memory returns to the queue.
        states = s.states()
        assert all(states[s.batch[paths.index(path)]] == "pending" for path in held)
        # The dream's git commit never records a person's edit as its own.
        head = git.Repo(s.ws.root).head.commit
        for path in held | kept:
            assert b"Hand edit number" not in (head.tree / f"workspace/memory/{path}").data_stream.read()
    assert edits == ROUNDS * EDITS_PER_ROUND  # the editor thread really saved every edit
    assert not lost, f"{len(lost)} of {edits} hand edits were overwritten: {lost}"
