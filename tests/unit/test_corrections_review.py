"""Corrections the second read found lost or wrongly gained by the day's narrower rules: each
case a correction that must be found again, next to the look-alike that must stay no correction.

Every text is written for the test (projects, files and words made up), in the shapes the review
reproduced."""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import correction_rule


@pytest.mark.parametrize(("text", "rule"), [
    # what the agent made, said not to be wanted, with "that"/"what" as the turn's subject
    ("that's not needed", "wrong"),
    ("that is not necessary", "wrong"),
    ("what you added isn't needed", "wrong"),
    ("the part that you added isn't needed", "wrong"),
    # a request to remove what is not needed is a task, not a verdict
    ("please remove things that are not necessary", None),
    ("drop what isn't needed", None),
])
def test_not_needed_said_first(text: str, rule: str | None) -> None:
    assert correction_rule(text) == rule
