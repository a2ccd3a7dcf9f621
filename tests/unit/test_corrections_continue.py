"""A bare "continue" typed after an Esc, in any language, redirects nothing: the stop has no lesson."""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import just_continues, redirects


@pytest.mark.parametrize("turn", ["继续", "continue", "weiter", "continuez", "продолжай", "続けて", "계속해", "好的"])
def test_a_bare_continue_redirects_nothing(turn: str) -> None:
    assert just_continues(turn)
    assert not redirects(turn)


@pytest.mark.parametrize("turn", ["继续，但是不要改数据库", "weiter, aber ohne die Migration",
                                  "no, use the other config file"])
def test_a_continue_with_a_change_still_redirects(turn: str) -> None:
    assert not just_continues(turn)
    assert redirects(turn)
