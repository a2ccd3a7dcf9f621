"""Choices: what one rule prefers is what another prefers something over; one word of two kinds."""

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


def test_one_word_qualified_two_ways_names_two_kinds() -> None:
    # "custom CSS" is rejected, "Bootstrap CSS" used: no opposite stances on CSS.
    assert compare_texts("Avoid inline styles or custom CSS unless really needed.",
                         "Style with Bootstrap CSS; avoid inline styles.").same_lesson
    # The same qualifier on both sides is still an opposite stance.
    verdict = compare_texts("Never use raw SQL in handlers.", "Always use raw SQL for reports.")
    assert "sql" in [c.slot for c in verdict.conflicts]


def test_a_choice_over_an_alternative_is_no_rule_forbidding_an_action_on_it() -> None:
    verdict = compare_texts('Use "trunk" as the default branch name, rather than "develop"',
                            "**Never push directly to `develop`.** Always open a feature branch and a pull request.")
    assert not verdict.same_lesson
    assert not verdict.correction  # another rule, not a fact of this one
    # A rule naming the pick restates the choice, whatever it forbids besides.
    assert compare_texts("Always use `bun` instead of `npm`",
                         "**Use bun only.** Never run `npm install` or `npx`.").same_lesson


def test_wrapping_and_catching_are_two_actions() -> None:
    # Both forbid something about rescue blocks; one forbids wrapping calls, the other catching errors.
    verdict = compare_texts("Never wrap `require` calls in `begin`/`rescue` blocks.",
                            "**Don't catch broad errors** - avoid bare `rescue` blocks or `rescue Exception`.")
    assert not verdict.same_lesson
    assert "action" in [c.slot for c in verdict.conflicts]


def test_generating_a_file_and_exposing_secrets_are_two_actions() -> None:
    verdict = compare_texts("Generate `.env.sample` with dummy values whenever config vars are added.",
                            "Never expose tokens or passwords; keep them in environment variables.")
    assert "action" in [c.slot for c in verdict.conflicts]


def test_a_participle_names_a_kind_not_an_action() -> None:
    # "generated docs" is a kind of document: no action "generate" to set against "commit".
    assert compare_texts("Never use emojis in generated docs or code.",
                         "No emojis anywhere: not in commits, code or replies.").same_lesson


def test_a_rejected_alternative_left_out_is_no_changed_value() -> None:
    # One says what it picks pnpm over, the other what it picks pnpm for: no other value.
    assert compare_texts("This project uses pnpm instead of npm.",
                         "Always use pnpm for dependency management.").same_lesson
    # Two different alternatives rejected beside no shared pick still differ.
    assert not compare_texts("Never use npm here.", "Never use yarn here.").same_lesson


def test_a_merge_strategy_is_a_choice() -> None:
    # Squash against rebase is another pick, like pnpm against yarn.
    verdict = compare_texts("Squash-merge every PR; no rebasing.", "Never rebase shared branches; merge them.")
    assert not verdict.same_lesson
    assert compare_texts("Always squash merges.", "Use squash merges for every PR.").same_lesson
    assert "merge strategy: squash vs rebase" in [str(c) for c in compare_texts("Use squash merges.",
                                                                               "Use rebase merges.").conflicts]


def test_a_pick_and_its_alternative_swapped_are_opposite_rules() -> None:
    # "X, not Y" against "Y, not X", whatever X and Y are.
    assert not compare_texts("Use tabs, not spaces.", "Use spaces, not tabs.").same_lesson
    assert not compare_texts("Wrap lines at the margin, not in the middle.",
                             "Wrap lines in the middle, not at the margin.").same_lesson
    assert compare_texts("Use tabs, not spaces.", "Indent with tabs rather than spaces.").same_lesson
