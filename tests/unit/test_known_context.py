"""Where a rule sits in its file, and what it says in context (dream/known.py): a file opening
with a horizontal rule, instructions indented under a line ending in a colon, …

Every line is written for this file in dreamtui's own words, in the shapes real instruction files
take.
"""

from __future__ import annotations

from dreamtui.dream.known import split_rules

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

