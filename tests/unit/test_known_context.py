"""Where a rule sits in its file, and what it says in context (dream/known.py): a file opening
with a horizontal rule, instructions indented under a line ending in a colon, …

Every line is written for this file in dreamtui's own words, in the shapes real instruction files
take.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.dream.known import split_rules
from tests.unit.test_known_rewordings import _kind

# A file framed by horizontal rules, with a numbered list between: no YAML frontmatter.
FRAMED = ("---\nTeam coding notes:\n\n1. Keep functions short.\n   - Split any function over forty lines "
          "into helpers.\n\n---\n")


def test_a_file_opening_with_a_horizontal_rule_has_no_frontmatter() -> None:
    texts = [r.text for r in split_rules(FRAMED, "CLAUDE.md")]
    assert "Split any function over forty lines into helpers." in texts


def test_a_yaml_frontmatter_is_still_skipped() -> None:
    text = "---\ndescription: style\nglobs:\n  - '**/*.py'\nalwaysApply: true\n---\n- Use type hints everywhere.\n"
    assert [r.text for r in split_rules(text, "x.mdc")] == ["Use type hints everywhere."]


# Instructions indented under a label line, without list markers (a plain-text file).
INDENTED = ("Release notes:\n\tWrite each entry in the past tense.\n\tKeep every entry under 90 characters.\n"
            "\t\tLonger entries go in the linked issue.\n\tNever mention internal ticket numbers.\n"
            "\nShell scripts:\n\tQuote every variable expansion.\n")


def test_lines_indented_under_a_line_ending_in_a_colon_are_its_items() -> None:
    rules = split_rules(INDENTED, "CLAUDE.md")
    by_text = {r.text: r for r in rules}
    item = by_text["Keep every entry under 90 characters. Longer entries go in the linked issue."]
    assert (item.line, item.lead) == (3, "Release notes:")
    assert by_text["Never mention internal ticket numbers."].lead == "Release notes:"
    assert by_text["Quote every variable expansion."].lead == "Shell scripts:"



# A Japanese file saying which language is for what: code comments and answers in Japanese.
FOR_WHAT = "# CLAUDE.md\n\n## 言語\n\n- コードのコメントと回答は日本語で書くこと\n- 変更は小さく保つ\n"
# An English file whose only language rule is on replies.
REPLIES_ONLY = "## Language\n\n- Always answer the user in German.\n"


@pytest.mark.parametrize("docs, memory, kind", [
    # the same language for the same thing, across languages
    (FOR_WHAT, "Write code comments in Japanese.", "known"),
    (FOR_WHAT, "Interact with the user in Japanese.", "known"),
    # another language for the same thing is a contradiction, never a restatement
    (FOR_WHAT, "Use English for code comments.", "contradicts"),
    # a language for a thing the docs name none for: read as usual (no rule says comments' language)
    (REPLIES_ONLY, "Write code comments in English.", ""),
    # ... and a memory saying that beside the docs' own rule says more than the docs: close
    (REPLIES_ONLY, "Answer the user in German, write code comments in English.", "close"),
])
def test_which_language_is_for_what(tmp_path: Path, docs: str, memory: str, kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


# A rule holding under a condition of several items, one said by a kin in the memory.
CONDITIONED = "## Working\n\n- Ask the user before coding if the task is incomplete, contradictory, or vague.\n"


@pytest.mark.parametrize("memory, kind", [
    # the memory's condition is a kin of an item of the rule's list ("ambiguous" / "vague")
    ("Ask the user before coding when it is ambiguous.", "known"),
    # ... a condition the rule does not say is another rule
    ("Ask the user before coding when it is slow.", "close"),
])
def test_a_condition_is_read_through_its_list_and_its_kin(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, CONDITIONED, memory) == kind


# "Never X without Y" is "Y before X": a requirement, no rejection of X.
REQUIRED = "## Reviews\n\n- Never merge a branch without a passing review first.\n- Keep branches short-lived.\n"


@pytest.mark.parametrize("memory, kind", [
    ("Merge a branch only after a passing review.", "known"),
    # a one-word label in parentheses names no tool the rule must say
    ("Always merge branches with a passing review first (Gate)", "known"),
    # merging without the review is what the rule forbids
    ("Always merge a branch without review.", "contradicts"),
    # ... and never merging at all is another rule: the rule's "without" is its condition
    ("Never merge a branch.", "close"),
])
def test_a_step_forbidden_without_another_requires_it(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, REQUIRED, memory) == kind


@pytest.mark.parametrize("docs, memory, kind", [
    # "prefer A to B" rejects B as "prefer A over B" does
    ("## Files\n\n- Prefer extending existing modules over writing new ones.\n",
     "Always prefer extending an existing module to writing a new one.", "known"),
    ("## Files\n\n- Prefer extending existing modules over writing new ones.\n",
     "Prefer writing new modules to extending existing ones.", "contradicts"),
    # an HTML link is its text, as a Markdown link is
    ("## Git\n\n- Every commit follows the semantic commit format.\n",
     'Every commit follows the <a href="https://example.org/semantic">semantic commit</a> format.', "known"),
    ("## Checks\n\n- Always run the linter before pushing.\n",
     "<b>Always</b> run the linter before <em>every</em> push.", "known"),
    # quoted examples, with their "etc.", are examples: the rule need not list them
    ("## Git\n\n- No ticket tags in commit subjects.\n", "No ticket tags like 'JIRA-12:', 'OPS-7:', etc.", "known"),
])
def test_preferences_markup_and_quoted_examples_read_as_said(tmp_path: Path, docs: str, memory: str,
                                                             kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


STRINGS = "## Style\n\n- Use tabs for indentation\n- Wrap strings in backticks\n"


@pytest.mark.parametrize("memory, kind", [
    # an exception the memory makes, naming a tool or not, needs no rule of its own
    ("Prefer backticks for strings except in Svelte templates (use plain quotes)", "known"),
    ("Wrap strings in backticks unless they hold no variables", "known"),
    # ... and the rest must still be the rule's
    ("Wrap error messages in backticks except in logs", ""),
])
def test_an_exception_a_memory_makes_needs_no_rule(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, STRINGS, memory) == kind


def test_what_a_prohibition_allows_is_its_rule_not_an_exception(tmp_path: Path) -> None:
    # "never X unless Y" allows X on Y: another rule than "never X"
    docs = "## Dependencies\n\n- Never add runtime dependencies.\n"
    assert _kind(tmp_path, docs, "Never add runtime dependencies unless the build needs them.") == "close"


# A numbered list whose items hold nested ones, between horizontal rules.
NESTED = ("---\nReview checklist:\n\n1. Keep modules loosely coupled.\n   - Inject collaborators through "
          "constructors instead of importing globals.\n   - Prefer small interfaces.\n\n2. Name things plainly.\n"
          "   - Use full words for variables.\n\n---\n")


def test_a_nested_item_records_the_item_holding_it() -> None:
    rules = {r.text: r for r in split_rules(NESTED, "CLAUDE.md")}
    assert rules["Prefer small interfaces."].parent == "Keep modules loosely coupled."
    assert rules["Use full words for variables."].parent == "Name things plainly."
    assert rules["Keep modules loosely coupled."].parent == ""
    # a horizontal rule is no text of the line after it
    assert rules["Keep modules loosely coupled."].lead == "Review checklist:"


@pytest.mark.parametrize("memory, kind", [
    # the nested item's words with its parent's: one instruction
    ("Keep modules loosely coupled by injecting collaborators through constructors.", "known"),
    # ... but a parent's words and another item's are no instruction the file gives
    ("Keep modules small.", "close"),
    ("Use full words for function names.", "close"),
])
def test_a_nested_item_is_read_with_the_item_holding_it(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, NESTED, memory) == kind


@pytest.mark.parametrize("docs, memory, kind", [
    # a command whose head is a plain word the rule says in another form (`export` / "exports")
    ("## Modules\n\n- Favor named exports over wildcard exports\n",
     "Always use `export` for named exports, never wildcard exports.", "known"),
    # ... a command the rule never names is still news
    ("## Modules\n\n- Favor named exports over wildcard exports\n", "Use `rollup` for named exports.", "close"),
    # a commit's message is where a rule on committing goes; adhering is following
    ("## Git\n\n- When committing, always use the semantic commit format.\n",
     "All commit messages must adhere to the semantic commit format.", "known"),
    # a reason given as what a step is good for needs no rule
    ("## Style\n\n- Return early from functions.\n", "Return early from functions to reduce nesting.", "known"),
])
def test_forms_of_a_word_and_what_a_step_implies(tmp_path: Path, docs: str, memory: str, kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


PERSONS = ("## Deploys\n\n- The staging deploy must only ever be triggered by the maintainers - never run "
           "`make deploy` yourself.\n")


@pytest.mark.parametrize("memory, kind", [
    # a step only the person takes is one the agent does not: said as a prohibition ...
    ("Agents should NOT trigger the staging deploy.", "known"),
    # ... or as a command's line saying the person runs it
    ("`make deploy` - the staging deploy is triggered manually by maintainers", "known"),
    # the agent taking it is what the rule forbids
    ("Always trigger the staging deploy yourself with `make deploy`.", "contradicts"),
    ("Always trigger the staging deploy yourself.", "contradicts"),
])
def test_a_step_only_the_person_takes(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, PERSONS, memory) == kind


def test_before_and_first_say_one_order(tmp_path: Path) -> None:
    docs = "## Releases\n\n- Never publish a release without a signed changelog entry first.\n- Keep releases small.\n"
    assert _kind(tmp_path, docs, "A signed changelog entry comes before every release.") == "known"


@pytest.mark.parametrize("docs, memory, kind", [
    # a template of placeholders shows the format the memory names: an example
    ("## Git\n\n- Follow the semantic commit format (e.g. feat:, fix:).\n",
     "Use the semantic commit format for all commit messages: `<kind>(<area>): <summary>`", "known"),
    # ... where the rule gives its own template, another one is another value
    ("## Git\n\n- Follow the semantic commit format: `<kind>(<area>): <summary>`\n",
     "Use the semantic commit format for all commit messages: `<ticket>/<kind> <summary>`", "contradicts"),
])
def test_a_template_shows_the_format_it_names(tmp_path: Path, docs: str, memory: str, kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


@pytest.mark.parametrize("memory, kind", [
    # a test's outcome is what running the tests is for
    ("Always make sure the tests pass.", "known"),
    ("The tests must always pass.", "known"),
    # ... not a linter's
    ("Always make sure the linter passes.", ""),
])
def test_passing_is_what_testing_is_for(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, "## Checks\n\n- Always run the tests.\n- Keep branches short.\n", memory) == kind
