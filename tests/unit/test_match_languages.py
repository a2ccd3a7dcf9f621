"""Languages and scripts named in their own writing are read as their English names."""

from __future__ import annotations

from dreamtui.dream.match import compare_texts


def test_a_language_named_in_its_own_script_is_that_language() -> None:
    a, b = "Write commit messages in Chinese.", "提交说明请使用中文"
    assert compare_texts(a, b).same_lesson
    assert compare_texts("Write code comments in Japanese.", "コードのコメントは日本語で書く").same_lesson


def test_simplified_and_traditional_chinese_are_two_scripts() -> None:
    verdict = compare_texts("Reply to users in Traditional Chinese.",
                            "Replies to users must be in Chinese (简体中文).")
    assert not verdict.same_lesson
    assert [c.slot for c in verdict.conflicts] == ["simplified/traditional"]
