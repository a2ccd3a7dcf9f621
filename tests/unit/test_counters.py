"""Counters read from hand-editable entries (confirmations, flags): one reading, and a bad value
never stops a dream."""

from __future__ import annotations

import math

import pytest

from dreamtui.dream.runner import dream
from dreamtui.entry.codec import parse_entry
from dreamtui.model import FEEDBACK_CONFIRMED, NewMemory, frontmatter_int
from dreamtui.workspace.layout import Workspace
from tests.factories import NOW, entry_text, submit, write_entry


@pytest.mark.parametrize(("value", "expected"), [
    (None, 0), (0, 0), (3, 3), ("4", 4), (2.9, 2), (True, 1),
    (math.inf, 0), (-math.inf, 0), (math.nan, 0), ("many", 0), ([1], 0), ({}, 0),
])
def test_frontmatter_int_reads_what_it_can_and_counts_the_rest_as_default(value: object, expected: int) -> None:
    assert frontmatter_int(value) == expected


def test_frontmatter_int_default_stands_for_absent_and_unreadable_values() -> None:
    assert frontmatter_int(None, default=1) == 1
    assert frontmatter_int(math.inf, default=1) == 1
    assert frontmatter_int(5, default=1) == 5


def test_an_infinite_confirmation_count_does_not_stop_the_dream(workspace: Workspace) -> None:
    """`confirmations: .inf` reads as a float YAML cannot turn into an int: the dream used to
    raise OverflowError on every run until someone edited the file."""
    write_entry(workspace.memory_root, "topics/ci-ports.md", entry_text("ci-ports", confirmations=".inf"))
    submit(workspace, NewMemory(type=FEEDBACK_CONFIRMED, title="confirmed ci-ports", agent_id="agent-a",
                                content="It helped.", metadata={"target": "ci-ports"}))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None and changeset.complete
    [reinforce] = [p for p in changeset.proposals if p.op == "reinforce"]
    assert reinforce.target == "topics/ci-ports.md" and reinforce.after is not None
    # The unreadable count counts as none, so one confirmation makes it 1.
    assert parse_entry(reinforce.after, reinforce.target).meta["confirmations"] == 1
