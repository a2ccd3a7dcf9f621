"""Stock clauses of a workflow: two moments of one workflow, one permission said two ways, and a
flag that is what a rule forbids."""

from __future__ import annotations

import pytest

from dreamtui.dream.cluster import cluster_memories
from dreamtui.dream.match import Features, compare_texts
from tests.factories import memory


@pytest.mark.parametrize(("a", "b"), [
    ("Run `cargo test` before committing your changes.", "Run `cargo test` after making changes."),
    ("Lint with `ruff check` before finishing a change.", "Run `ruff check` after making changes."),
])
def test_two_moments_of_one_workflow_are_one_rule(a: str, b: str) -> None:
    assert compare_texts(a, b).same_lesson


def test_before_and_after_one_step_still_conflict() -> None:
    verdict = compare_texts("Run `cargo test` before committing.", "Run `cargo test` after committing.")
    assert "before/after" in [c.slot for c in verdict.conflicts]


def test_a_permission_word_both_say_in_a_stock_clause_takes_no_stance() -> None:
    # "request" inside "do not ... without explicit user request" is no rejection of asking.
    a = "**Do not git add/tag without explicit user request.**"
    b = "Suggest tag messages, but do not tag unless asked"
    memories = [memory("m0", a, a), memory("m1", b, b, agent="agent-b")]
    assert len(cluster_memories(memories, 88)) == 1


def test_a_command_allowed_only_when_asked_is_the_one_forbidden_without_a_request() -> None:
    assert compare_texts("Never run `git push` without the user's explicit request.",
                         '**ONLY** run `git push` when the user\'s latest message says "push".').same_lesson


def test_a_rejected_flag_is_what_the_rule_forbids() -> None:
    verdict = compare_texts("Never use `git push --no-verify` unless the user asks.",
                            "Do not git push without explicit user request.")
    assert not verdict.same_lesson
    assert not verdict.correction  # another rule, not a fact of this one to change
    assert [c.slot for c in verdict.conflicts] == ["prohibited"]
    # The flag said by its word is the same rule.
    assert compare_texts("Never use `git push --force` unless the user asks.",
                         "Never force push unless the user asks.").same_lesson


def test_a_pull_request_is_one_thing_not_a_request() -> None:
    features = Features("Link the issue in every pull request.")
    assert "ask" not in features.stems  # "request" asks for permission; a pull request does not
    assert "pr" in features.stems


def test_a_scope_does_not_reach_across_a_dash() -> None:
    # "to develop - use PRs" is no scope "to ... PRs": develop is what the rule is about.
    assert Features("Never push to develop - use PRs and a code review").circumstances == frozenset()
