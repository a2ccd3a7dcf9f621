"""Our difflib hunks: headers as `diff -u` writes them, word-level intra-line highlights."""

from __future__ import annotations

from dreamtui.model import diff_stat
from dreamtui.tui.diffing import diff_lines, word_spans


def test_hunk_header_and_kinds() -> None:
    before = "a\nb\nc\nd\n"
    after = "a\nb\nC\nd\ne\n"
    lines = diff_lines(before, after)
    assert lines[0].text == "@@ -1,4 +1,5 @@"
    assert [line.kind for line in lines[1:]] == ["context", "context", "removed", "added", "context", "added"]


def test_create_is_all_added_from_zero() -> None:
    lines = diff_lines(None, "x\ny\n")
    assert lines[0].text == "@@ -0,0 +1,2 @@"
    assert [line.kind for line in lines[1:]] == ["added", "added"]


def test_changed_words_are_highlighted_not_the_whole_line() -> None:
    lines = diff_lines("CI Postgres listens on 5432.\n", "CI Postgres listens on 5433.\n")
    removed, added = lines[1], lines[2]
    assert removed.text[slice(*removed.spans[0])] == "5432"
    assert added.text[slice(*added.spans[0])] == "5433"


def test_unrelated_lines_get_no_word_highlights() -> None:
    assert word_spans("completely different", "nothing alike here at all") is None


def test_far_apart_changes_make_two_hunks() -> None:
    before = "".join(f"line {i}\n" for i in range(30))
    after = before.replace("line 2\n", "line two\n").replace("line 27\n", "line twenty-seven\n")
    assert sum(1 for line in diff_lines(before, after) if line.kind == "hunk") == 2
    assert diff_stat(before, after) == (2, 2)

