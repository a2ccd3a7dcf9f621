"""Two ways of saying no are one rule; a bare `git pull` is no pull request."""

from __future__ import annotations

import pytest

from dreamtui.dream.match import compare, features_of


@pytest.mark.parametrize(("a", "b"), [
    ("Do not use emojis.", "No emojis."),
    ("Never add trailing whitespace.", "No trailing whitespace."),
])
def test_two_negations_are_no_polarity_conflict(a: str, b: str) -> None:
    verdict = compare(features_of(a), features_of(b))
    assert not [c for c in verdict.conflicts if c.slot == "polarity"]
    assert verdict.same_lesson


def test_one_negation_is_still_a_polarity_conflict() -> None:
    verdict = compare(features_of("The API listens on 5433"), features_of("The API never listens on 5433"))
    assert [c for c in verdict.conflicts if c.slot == "polarity"]


def test_git_pull_is_not_a_pull_request() -> None:
    assert not compare(features_of("Run git pull before starting work"),
                       features_of("Open a pull request for every change")).same_lesson
    assert compare(features_of("Open PRs against develop"),
                   features_of("Open pull requests against develop")).same_lesson
