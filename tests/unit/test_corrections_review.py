"""Corrections the second read found lost or wrongly gained by the day's narrower rules: each
case a correction that must be found again, next to the look-alike that must stay no correction.

Every text is written for the test (projects, files and words made up), in the shapes the review
reproduced."""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import concedes, correction_rule, lesson, reports_after_done


@pytest.mark.parametrize(("text", "rule"), [
    # what the agent made, said not to be wanted, with "that"/"what" as the turn's subject
    ("that's not needed", "wrong"),
    ("that is not necessary", "wrong"),
    ("what you added isn't needed", "wrong"),
    ("the part that you added isn't needed", "wrong"),
    # a request to remove what is not needed is a task, not a verdict
    ("please remove things that are not necessary", None),
    ("drop what isn't needed", None),
])
def test_not_needed_said_first(text: str, rule: str | None) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize(("text", "rule"), [
    # 并没有 denying a deed is a failure; denying a problem is none
    ("我点了保存，但是并没有生效", "fails"),
    ("这个改动并没有什么问题，继续吧", None),
    ("刚才那样并没有错，接着做下一步", None),
    # following the agent's instructions and meeting a failure, against meeting none
    ("I followed your steps and got: permission denied on /var/run/app.sock", "fails"),
    ("I started it using your instructions and got: address already in use", "fails"),
    ("Following your steps I got the service up, not a single issue", None),
    ("With your script I get: 14 rows imported", None),
    # the language the person wants to be answered in, against the app's language
    ("please reply in German from now on", "prefer"),
    ("you should answer in Spanish", "prefer"),
    ("ну и пожалуйста общаться со мной по-русски", "prefer"),
    ("the widget should respond in French to Canadian visitors", None),
    ("Can the assistant answer in German when the page is in German?", None),
    ("Портал должен работать на русском и казахском", None),
    ("бот должен отвечать по-русски клиентам", None),
    # a "why" about the agent's work that failed, against one about the world
    ("why is the export empty again after the migration", "question"),
    ("why do linters raise warnings for unused imports?", None),
    ("why does java throw an exception on integer overflow?", None),
    # how the agent's mistake came about and that it not come again, against a task about an incident
    ("look at how this happened and never let it happen again", "recurrence"),
    ("The cron job stopped on Sunday. Read the logs and tell me how that happened.", None),
    ("The disk filled up overnight, find out how this happened", None),
])
def test_review_look_alikes(text: str, rule: str | None) -> None:
    assert correction_rule(text) == rule


def test_the_agents_own_rerun_is_no_request_to_try() -> None:
    turn = "I get an error when I open the billing page as well, look at it after this"
    assert not reports_after_done(turn, "Now let me run the linter again.")
    assert not reports_after_done(turn, "I'll rerun the build now.")
    assert reports_after_done(turn, "Fixed the handler. Please try it again now.")
    assert reports_after_done(turn, "You can test it now.")


@pytest.mark.parametrize(("text", "title"), [
    # the agent's code failed: the work's lesson
    ("With your fix the report still crashes on export",
     "With your fix the report still crashes on export: check that it works before saying it is done"),
    ("Using your script, the backup folder is still empty",
     "Using your script, the backup folder is still empty: check that it works before saying it is done"),
    # the agent's instructions failed the person: the instructions' lesson
    ("Following your steps the installer still fails at the last one",
     "Check that your instructions work before giving them: the person said "
     "“Following your steps the installer still fails at the last one”"),
])
def test_instructions_title_only_for_instructions(text: str, title: str) -> None:
    assert lesson(text, "edit `report.py`", "Done ✅ the export is fixed.") == title


@pytest.mark.parametrize(("text", "after_done"), [
    # 错误 after a verb: the work does it wrongly
    ("订单列表显示错误", True),
    ("上传后的文件名保存错误，下载时乱码", True),
    ("日志里打印错误信息了", True),
    # 错误 as a noun to build or to point at
    ("再加上错误处理和重试", False),
    ("把错误码统一成枚举", False),
    ("看一下那个错误是从哪来的", False),
    # a failure with a harmless side: the side spares something else, the failure stands
    ("导入页面报错了，不过对导出没有影响", True),
    ("The import page crashes now. It doesn't cause any issues for export, but import is broken", True),
    # a problem the person calls harmless itself: a wish to tidy it
    ("我看到一个报错，不影响使用，有空再修", False),
    ("there is a warning error in the console, it does not cause any issues, maybe clean it up", False),
])
def test_problem_after_done(text: str, after_done: bool) -> None:
    assert reports_after_done(text, "已完成 ✅ 页面已更新。") is after_done


@pytest.mark.parametrize(("turn", "conceded"), [
    # a reproach that opens like "what do you make of …"
    ("你怎么看不出来这里少了判空？", "acknowledged"),
    ("你怎么看都没看就提交了", "acknowledged"),
    # asking the agent's view of a text: its "you are right" concedes nothing
    ("你怎么看这个方案？", None),
    ("你如何看待以下评审意见。接口命名不统一。", None),
])
def test_reproach_is_no_request_for_advice(turn: str, conceded: str | None) -> None:
    assert concedes(turn, "你说得对，我马上修复。", None) == conceded
