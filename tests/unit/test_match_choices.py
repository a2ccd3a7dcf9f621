"""Choices: what one rule prefers is what another prefers something over."""

from __future__ import annotations

import pytest

from dreamtui.dream.match import compare_texts


@pytest.mark.parametrize(("a", "b"), [
    ("Prefer **named exports** (`export function foo`) over default exports.",
     "Prefer default exports over barrel files."),
    ("Prefer dataclasses over plain dicts for records.", "Use plain dicts rather than namedtuples for records."),
])
def test_opposite_preferences_are_two_rules(a: str, b: str) -> None:
    verdict = compare_texts(a, b)
    assert not verdict.same_lesson
    assert verdict.conflicts


def test_one_preference_said_two_ways_is_one_rule() -> None:
    assert compare_texts("Prefer composition over inheritance.",
                         "Use composition instead of inheritance wherever you can.").same_lesson
