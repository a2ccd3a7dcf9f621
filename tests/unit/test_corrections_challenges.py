"""Corrections that are not shaped "a problem after done": a "why" with a negation or a failure,
in English and Chinese; how a mistake came about and that it not come again; what following the
agent's own instructions gave; the language to answer in; a reminder of what the agent should
know; a failure reported after the agent asked the person to try. And the shapes near them that
stay no correction, or keep their words as the title: a request about what is not needed, a new
request the agent praised as a good call, a pasted review to weigh, an error of another process,
a report of how the agent works.

Every text here is written for the test, reproducing the shape of turns seen in public logs (the
projects, files and words are made up)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from dreamtui.intake.claude_code.frictions import Detector, Origin
from dreamtui.intake.codex.importer import read_rollout
from dreamtui.intake.corrections import concedes, correction_rule, lesson, reports_after_done, wonders
from dreamtui.intake.lessons import ToolCall
from tests.unit.test_codex_import import Rollout


@pytest.mark.parametrize(("text", "rule"), [
    # a "why" with a negation asks what did not happen as it should
    ("why did none of the requests go through the gateway?", "question"),
    ("why doesn't tapping the row open the detail view like we planned?", "question"),
    ("why did not you push the tag?", "question"),
    ("Why was there a null pointer exception in the parser?", "question"),  # "why" with a failure
    ("why did the deploy step get stuck", "question"),
    # how the mistake came about, that it not come again
    ("first find out how this happened and how to prevent it from happening again", "recurrence"),
    ("改回来，以后不要再删测试", "recurrence"),
    ("为什么所有请求都没有经过网关", "zh"),
    ("检查一下设置页，为什么点开卡片，没有像我们设计的那样跳到编辑页", "zh"),
    ("这个名字只是给你的示例，不要写进配置", "zh"),
    ("那只是一个例子，不要照抄到文档里", "zh"),
    ("点了以后并没有跳转，还停在首页", "fails"),
    # what following the agent's own instructions gave
    ("I tried to start the server using your instructions and got: port already in use", "fails"),
    ("Im using your suggested flags and both builds exit immediately. Check the entry point.", "fails"),
    ("I did exactly what you told me and nothing shows up", "fails"),
    ("getting a blank screen: Uncaught TypeError: x is undefined", "fails"),
    # the language to answer in, anywhere in the opening
    ("ok, and answer in English from now on", "prefer"),
    ("好的，以后用中文和我交流", "prefer"),
    ("да, поправь план и работай со мной на русском", "prefer"),
    ("요약은 좋아요. 한글로 답변해줘", "prefer"),
    ("日本語で答えてください", "prefer"),
    # a reminder of what the agent should know
    ("I'm on Fedora 39. You should know this by now.", "reminded"),
    ("The port is 5433, I told you that before", "reminded"),
])
def test_challenges_and_reports_without_a_done_before_them(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "why do they all start with a digit?",  # a "why" about what is, no negation
    "I followed your steps and it works now, thanks",  # the instructions pleased them
    "I built it with your script and got a clean build, no errors",
    "按照你的步骤跑了一遍，没有报错",  # "ran it by your steps, no errors"
    "按照你说的计划执行",  # "go ahead with the plan you described"
    "帮我写一个导出脚本，格式比如 a,b,c，这只是一个例子",  # an example in a new request
    "我开个新窗口试一下，想对比改完之后有没有变化",  # asks whether anything changed
    "translate the README into English",  # a document's language
    "make the settings page work in English and French",  # the app's languages
    "приложение теперь работает на русском",  # "the app now works in Russian"
    "Please remove the parts that are not necessary",  # a request about what is not needed
    "okay no probs, I already merged it, now update the docs",  # "no probs" is no "no"
    "now, like I said, where is the generated helper and how do I call it?",
    "you should know that the deploy takes an hour, so start it first",  # a fact told
])
def test_the_shapes_near_them_stay_no_correction(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("text", "said", "reported"), [
    # asked to try, the person reports what the try gave, even said as a request
    ("帮我再测一下登录（请求失败：Request failed (500)）", "服务正常运行。请刷新页面再试，告诉我结果。", True),
    ("the export still fails with a 500", "Please refresh and try again.", True),
    ("add error handling for the upload", "Please refresh and try again.", False),  # a task
    # a review pasted to weigh, another process's error: not a report on the agent's work
    ("你如何看待以下评审意见。主线清晰，但错误处理策略没有写成标准，落地时容易走样。", "✅ 文档已更新", False),
    ("看一下另一个终端里这个错误是怎么回事", "已修复 ✅", False),
    ("那个名字只是给你的示例，具体名字不要写进配置。有问题问我", "✅ 完成", False),
    # a problem the person calls harmless: a wish to tidy it
    ("i have this error, it does not cause any issues so i leave it, maybe we can fix it", "Done ✅", False),
])
def test_a_failure_after_the_agent_asked_to_try_it(text: str, said: str, reported: bool) -> None:
    assert reports_after_done(text, said) is reported


@pytest.mark.parametrize(("text", "wondering"), [
    ("why is that a problem for the cache?", True),  # a plain question, unless the agent concedes
    ("Why was there a null pointer exception in the parser?", False),
    ("why did the deploy step get stuck", False),
    ("why did none of the requests go through the gateway?", False),
])
def test_a_why_with_a_failure_or_a_negation_points_at_the_work(text: str, wondering: bool) -> None:
    assert wonders(text) is wondering


@pytest.mark.parametrize(("turn", "reply", "rule"), [
    ("the script patched the other file after creating the new one", "Thanks for flagging that mix-up. "
     "I added a guard.", "acknowledged"),
    ("导出的文件少了表头", "感谢指正，我来补上表头。", "acknowledged"),
    ("what does the flag do?", "Thanks for asking. It sets the mode.", None),
])
def test_an_agent_thanking_for_the_catch_concedes(turn: str, reply: str, rule: str | None) -> None:
    assert concedes(turn, reply) == rule


def test_a_new_request_praised_as_a_good_call_concedes_nothing() -> None:
    turn = "I want a second list with add and remove buttons on the settings tab"
    reply = "Good call — I've added the list editor you asked for."
    assert concedes(turn, reply, "I can add presets next if you like.") is None
    # an objection the agent praised still is one, and so is a way asked for instead of its own
    assert concedes("why not keep the old list?", reply, None) == "acknowledged"
    assert concedes("please reuse the existing list widget", reply, None) == "acknowledged"


@pytest.mark.parametrize(("text", "title"), [
    # how the agent works keeps its words: checking that the work runs is not its lesson
    ("You aren't following the project's style guide", None),
    ("I'm on Fedora 39. You should know this by now.",
     "Keep in mind what the person told you: “I'm on Fedora 39. You should know this by now.”"),
    ("点了以后并没有跳转，还停在首页", "点了以后并没有跳转，还停在首页: check that it works before saying it is done"),
    ("Im using your suggested flags and both builds exit immediately.", "Check that your instructions work "
     "before giving them: the person said “Im using your suggested flags and both builds exit immediately.”"),
])
def test_the_titles_of_those_corrections(text: str, title: str | None) -> None:
    assert lesson(text, None, "Done.") == title


@dataclass
class _Agent:
    acted: bool = True
    last_tool: ToolCall | None = None
    said: str | None = None

    def said_text(self) -> str | None:
        return self.said


def test_a_failure_after_the_agent_asked_the_person_to_retry_is_a_correction() -> None:
    detector = Detector()
    where = Origin(scope="s1", session_id="s1", record_uuid="u1", timestamp="2026-01-01T00:00:01Z",
                   cwd="/home/u/app", log="s1.jsonl", sidechain=False)
    agent = _Agent(last_tool=ToolCall("Bash", "systemctl restart app", None),
                   said="服务正常运行。请在浏览器里再试一次登录，告诉我结果。")
    detector.person_typed(where, agent, "帮我测试登录\n\n（请求失败：Request failed (502)）")
    [friction] = detector.finish()
    assert friction.kind == "correction" and friction.extra["rule"] == "after_done"
    assert friction.calls[0].target == "systemctl restart app"


def test_codex_reports_of_the_agents_instructions_failing_are_corrections(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Add a launcher for the viewer")
               .shell("pytest -q", "4 passed", 0)
               .says("Done. You can now start it with `app-viewer` or `python -m app.viewer`.")
               .typed("I tried to start it using your instructions and got nothing. It exited immediately.")
               .says("Let me look at the entry point.")
               .shell("cat pyproject.toml", "[project.scripts]", 0)
               .says("Run it with QT_QPA_PLATFORM=xcb if you are headless.")
               .typed("I'm on Fedora 39. You should know this... I'm not headless.")
               .says("Understood."))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert [(f.kind, f.evidence[:20]) for f in frictions] == [
        ("correction", "I tried to start it "), ("correction", "I'm on Fedora 39. Yo")]
