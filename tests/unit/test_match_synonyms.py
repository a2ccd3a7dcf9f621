"""One rule in words that share little: a practice named many ways (test-first), a commit's first
line by its several names, a file kind by its extension, a requirement stated as "never X
without Y", and a list of rejected things going on after an aside."""

from __future__ import annotations

from dreamtui.dream.match import Features, compare_texts


def test_test_first_in_its_several_wordings_is_one_practice() -> None:
    wordings = ("Follow TDD: write the test before the code.", "Write a failing test first, then make it pass.",
                "Tests before the implementation, always.")
    for a in wordings:
        for b in wordings:
            if a != b:
                assert compare_texts(a, b).same_lesson, (a, b)
    # Writing tests first is not writing tests for every change.
    assert not compare_texts("Write a failing test first, then make it pass.",
                             "Every change comes with tests.").same_lesson


def test_never_x_without_y_requires_y_rather_than_forbidding_x() -> None:
    verdict = compare_texts("Never write new code without a failing test first.", "Write failing tests first.")
    assert verdict.same_lesson, verdict
    # A plain prohibition still opposes doing it.
    assert not compare_texts("Never write new code in the legacy folder.",
                             "Write new code in the legacy folder.").same_lesson


def test_a_commit_s_first_line_by_any_of_its_names() -> None:
    assert compare_texts("Summary under 60 characters.",
                         "Keep the commit title short: under 60 characters.").same_lesson
    assert not compare_texts("Summary under 60 characters.", "Keep the commit title under 72 characters.").same_lesson


def test_a_markdown_file_is_a_md_file_and_generating_one_is_creating_it() -> None:
    assert compare_texts("Never create Markdown notes about your changes.",
                         "Do not generate .md notes about the changes.").same_lesson


def test_a_list_of_rejected_things_goes_on_after_an_aside() -> None:
    facts = Features.of("Never add summary files (*.txt) or changelog files.").facts
    assert {"summar", "changelog"} <= facts.rejected
    assert "changelog" not in facts.done
