"""A bare "continue" typed after an Esc, in any language, redirects nothing; a report of what the
person tried after the agent said it was done is a report, not a case to handle."""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import just_continues, redirects, reports_after_done


@pytest.mark.parametrize("turn", ["继续", "continue", "weiter", "continuez", "продолжай", "続けて", "계속해", "好的"])
def test_a_bare_continue_redirects_nothing(turn: str) -> None:
    assert just_continues(turn)
    assert not redirects(turn)


@pytest.mark.parametrize("turn", ["继续，但是不要改数据库", "weiter, aber ohne die Migration",
                                  "no, use the other config file"])
def test_a_continue_with_a_change_still_redirects(turn: str) -> None:
    assert not just_continues(turn)
    assert redirects(turn)


DONE = "## ✅ The billing page is now live at https://shop.test! Everything is working."


@pytest.mark.parametrize("turn", [
    "if I go to the billing page, its showing a 404 and the login isnt working either",
    "when I refresh, nothing happens",
    "如果我点击保存，页面报错",
])
def test_what_the_person_did_then_what_it_gave_is_a_report(turn: str) -> None:
    assert reports_after_done(turn, DONE)


@pytest.mark.parametrize("turn", [
    "if it fails, retry twice",
    "when I ask you to fix a bug, write a test first",  # the condition holds the problem word
    "if the upload fails, show an error toast",
])
def test_a_case_to_handle_is_no_report(turn: str) -> None:
    assert not reports_after_done(turn, DONE)
