"""An aside listing code examples of what a rule rejects, and one name inflected."""

from __future__ import annotations

from dreamtui.dream.match import compare_texts

REJECTS_EXAMPLE = "Do NOT add bot trailers (`Reviewed-By: Copilot` or similar) to commit messages."


def test_an_aside_of_code_examples_is_rejected_with_its_clause() -> None:
    assert compare_texts(REJECTS_EXAMPLE, "**NEVER add Copilot as a reviewed-by trailer in commits**").same_lesson
    verdict = compare_texts(REJECTS_EXAMPLE, "Use `Reviewed-By: Copilot` trailers in commit messages.")
    assert not verdict.same_lesson
    assert "`reviewed-by: copilot`" in [c.slot for c in verdict.conflicts]


def test_an_aside_that_explains_is_not_rejected() -> None:
    # The aside states what rebuilds the files; running it is no opposite of the rule.
    verdict = compare_texts("Never hand-edit generated files (`make codegen` rebuilds them).",
                            "Run `make codegen` after editing the schema.")
    assert "`make codegen`" not in [c.slot for c in verdict.conflicts]


def test_a_name_inflected_is_the_same_name() -> None:
    assert compare_texts("Do NOT add bot credits (`Co-Reviewed-By: Bot` or similar) to commit messages.",
                         "**NEVER add Bot as a co-reviewer in commits**").same_lesson
    # requirements.txt and requirements-dev.txt are two files, not one inflected.
    verdict = compare_texts("Pin runtime packages in requirements.txt.", "Pin dev packages in requirements-dev.txt.")
    assert not verdict.same_lesson
