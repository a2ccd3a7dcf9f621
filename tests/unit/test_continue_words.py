"""A turn that only says "go on" carries no lesson, in the ways Chinese says it too."""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import just_continues


@pytest.mark.parametrize("text", ["继续", "繼續", "继续吧", "繼續吧", "好的，继续", "好，繼續", "嗯，继续",
                                  "ok, continue", "continue", "好的", "對"])
def test_go_on_in_any_form(text: str) -> None:
    assert just_continues(text)


@pytest.mark.parametrize("text", ["继续，但是不要改配置文件", "繼續之前先跑測試", "好的，但是先别提交",
                                  "continue, but do not touch the config"])
def test_go_on_with_a_condition_is_more_than_going_on(text: str) -> None:
    assert not just_continues(text)
