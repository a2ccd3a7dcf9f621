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


def test_a_verb_s_own_preposition_opens_no_scope() -> None:
    # "Rely on X classes" says what to use; "in all X classes" says where a rule applies.
    relied = Features.of("Rely on Bootstrap classes rather than hand-written stylesheets.")
    assert {"bootstrap", "class"}.isdisjoint(relied.circumstances)
    assert "class" in Features.of("Use early returns in all Python classes.").circumstances


def test_a_word_each_side_qualifies_its_own_way_is_no_opposite_stance() -> None:
    # One does Bootstrap CSS, the other rejects external CSS while doing Bootstrap's classes.
    verdict = compare_texts("Style only with Bootstrap CSS utility classes.",
                            "Rely on Bootstrap utility classes rather than external CSS files.")
    assert "css" not in [c.slot for c in verdict.conflicts]
    # The other side rejecting the qualifier itself still opposes it.
    verdict = compare_texts("Style only with Bootstrap CSS utility classes.",
                            "Avoid Bootstrap CSS utility classes; write external CSS files.")
    assert verdict.conflicts


def test_a_leading_condition_does_not_make_the_instruction_a_statement() -> None:
    facts = Features.of("If the branch is shared, never rebase, only merge.").facts
    assert "merg" in facts.done and "rebas" in facts.rejected


def test_a_prohibition_is_the_opposite_of_its_kindred_verb_asked() -> None:
    # "Never write comments" forbids what "Add comments" asks, though the verbs differ.
    verdict = compare_texts("Never write docstrings.", "Add docstrings.")
    assert [str(c) for c in verdict.conflicts] == ["polarity: do not write vs do add"]
    assert compare_texts("Never write docstrings.", "Do not add docstrings.").same_lesson


def test_typescript_s_any_named_unquoted_is_the_type() -> None:
    assert compare_texts("Keep TypeScript strict: no any types.", "Never use the `any` type.").same_lesson
    # "any" as the English word is still no content
    assert "ani" not in Features.of("Do not add any types of comments.").stems


def test_a_flag_is_what_it_does() -> None:
    # `--no-verify` bypasses the hooks: a rule naming the flag and one naming what it skips.
    assert compare_texts("Never bypass the git hooks.", "Do not run `git commit --no-verify`.").same_lesson


def test_a_command_heading_its_description_is_mentioned_not_run() -> None:
    # "`cmd` - what it is": the line names the command; the description says who runs it.
    assert compare_texts("`pnpm dev` - the dev server will be started by the person.",
                         "Never run `pnpm dev` yourself.").same_lesson
    # A description that asks to run it still opposes the prohibition.
    assert not compare_texts("`pnpm dev` - start the dev server before the e2e tests.",
                             "Never run `pnpm dev` yourself.").same_lesson


def test_tests_first_is_another_rule_than_running_or_having_tests() -> None:
    # When tests are written against when they are run, or whether there are any.
    verdict = compare_texts("Write the tests before the implementation code.", "Run the tests before committing code.")
    assert "aspect" in [c.slot for c in verdict.conflicts]
    verdict = compare_texts("Always write tests before the implementation code.", "Always add tests for new features.")
    assert "aspect" in [c.slot for c in verdict.conflicts]
    # Running them first is no test-first.
    assert "testfirst" not in Features.of("Always run the tests first, then commit.").stems


def test_never_x_without_y_still_opposes_x_without_y() -> None:
    verdict = compare_texts("Never merge a PR without a review.", "Merge PRs without waiting for a review.")
    assert not verdict.same_lesson
