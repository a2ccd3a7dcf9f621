"""What is no reason of a stop, and which tool errors say nothing of the project, in the shapes
public logs of read 6 showed (Windows machines, Chinese and English, plan mode, MCP servers):

- a question typed after a refusal or an Esc ("what are the main credentials?", "除了文件，…能识别
  吗"), the person hurrying the agent ("为什么这么久还没好"), another session's transcript pasted,
  or "continue" opening the next piece of work, is not why the agent was stopped; a question
  word in one clause does not make a sentence that goes on to say what to do a question, nor
  does a request ending "…可以吗";
- a subagent's call refused without a word, or a refused call that only reads through an MCP
  server, is no rule; the same words typed after two refusals are one lesson;
- an MCP server's error of a call a hook ran for is the tool's, not the hook's;
- a binary file handed to Read, a read outside the project no one could grant, are Claude Code's
  own limits; the Windows shell's runtime crashing is its own fact, not the command's; a line
  left unreadable by its decoding is dropped; `cd` into a folder with an escaped space is a step.

Every log, plan and turn here is written for the test, reproducing the shapes of real ones (the
projects, paths and words are made up)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.intake.claude_code.rules import Signals, asks_about_plan, classify_tool_error, no_reason
from dreamtui.intake.lessons import environment_subject, error_lines
from dreamtui.workspace.layout import Workspace
from tests.unit.test_claude_code_mining import MARKER, PROJECT, _Log, _mined, projects, workspace
from tests.unit.test_plan_stops_and_aborts import PLAN, _rejected_with

__all__ = ["projects", "workspace"]  # the fixtures, used by name


def _esc_then(log: _Log, command: str, turn: str) -> None:
    tool = log.calls("Bash", command=command)
    log.result(tool, MARKER, True, toolDenialKind="interrupted").marker()
    log.typed(turn)
    log.says("Understood.")


# -- what is typed after a stop --------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "为什么这么久还没跑完", "怎么又卡住了", "is it stuck?", "why is this so slow",  # hurrying
    "what port does the staging database listen on?",  # a question
    "除了报表，邮件里的附件也能读出来吗",  # a lead-in, then a question
    "刚才停下来是因为钩子让你暂停了吗？",
    "我想知道你有没有找到现成的库，或者稍微改一下就能用的",  # "I want to know", then its other side
    "I want to know whether the cache is shared, or one per worker",
])
def test_a_question_or_hurrying_is_no_reason(text: str) -> None:
    assert no_reason(text)


@pytest.mark.parametrize("text", [
    # a question word in one clause, then what to do: the preference the question led to
    "这个方案每次都先重建索引，有时候我不需要重建是否只要说一声，这次不重建，直接用现有索引就行。然后我想问重建会清掉缓存吗",
    "我想回到最开始的设置，把端口都恢复成默认的可以吗",  # a request, said politely
    "你先确认是否是这个目录，然后再开始",  # 是否 after a verb of checking: an instruction
    "先给我讲讲你打算怎么设计\n我再决定是否实施",
    "用只读模式，你需要知道哪些信息",  # the way to work, then a question
    "我觉得全局的那份不该放这么多内容，你觉得呢",  # an opinion
    "你可以用无头浏览器，我也可以给你账号，你还需要什么",  # a suggestion
    "why is it so slow? use the cached index",
    "等等，你目前只是比较了如何定价，还没有分析库存呢",  # "not yet" with 呢, how a thing was done: said
])
def test_a_question_that_also_says_what_to_do_is_a_reason(text: str) -> None:
    assert not no_reason(text)


def test_a_shaped_question_a_not_a_still_only_asks() -> None:
    assert asks_about_plan("你说的这个索引，占多少内存，对启动影响大不大")
    assert asks_about_plan("根据我们的规范文档，这个方案和现在的代码一致吗")


def test_a_preference_before_a_question_at_a_plan_is_its_reason(workspace: Workspace,
                                                                  projects: Path) -> None:
    text = ("这个方案每次都先重建缓存，有时候我不需要重建是否只要说一声，这次不重建，直接用现有数据就行。"
            "然后我想问的是重建之后旧的缓存还能用吗")
    assert _rejected_with(text, "e7e7e7e7-0000-4000-8000-000000000001", workspace, projects) == [text]


def test_a_question_or_hurrying_after_an_esc_is_no_lesson(workspace: Workspace, projects: Path) -> None:
    log = _Log("e7e7e7e7-0000-4000-8000-000000000002")
    log.typed("rebuild the price index")
    _esc_then(log, "python scripts/reindex.py --all", "为什么这么久还没好")
    _esc_then(log, "python scripts/reindex.py --all --fast", "怎么卡住了")
    _esc_then(log, "python scripts/reindex.py --shard 1", "the cache is warm already, reindex only shard 2")
    assert [m.metadata["reason"] for m in _mined(workspace, projects, log)] == [
        "the cache is warm already, reindex only shard 2"]


def test_a_question_after_a_refusal_is_no_reason_of_it(workspace: Workspace, projects: Path) -> None:
    log = _Log("e7e7e7e7-0000-4000-8000-000000000003")
    log.typed("ship the fix")
    push = log.calls("Bash", command="git push origin main")
    log.refused(push).marker()
    log.typed("which credentials does the staging server use?")
    log.says("The staging server uses the deploy key.")
    look = log.calls("Bash", command="ls -la deploy/")
    log.refused(look).marker()
    log.typed("这个目录里还有别的配置吗？")
    log.says("还有两个。")
    [memory] = _mined(workspace, projects, log)
    # the push refused stands, without the question as its why; the listing refused is no rule
    assert memory.metadata["kind"] == "rejection" and memory.metadata.get("reason") is None
    assert memory.title == "Refused without a reason, ask first: run `git push origin main`"


def test_a_pasted_transcript_or_continue_with_new_work_after_an_esc_is_no_lesson(
        workspace: Workspace, projects: Path) -> None:
    transcript = ("开始报表项目\nLet me先看一下项目结构。\n\nGlobpattern: \"reports/**/*\"\nFound 42 files\n"
                  "Bash List the reports folder\nIN\nls -la reports/\n\nOUT\ntotal 88\n"
                  + "-rw-r--r-- 1 u u 10 a.csv\n" * 8)
    report = ("现在我已经确认了整个数据流。让我写出复核报告。\n\n报表方案 — 复核报告\n复核日期：2026-11-01\n\n"
              "一、问题\n" + "".join(f"{n}. 汇总表第{n}列缺少退货的行，需要按订单号补上。\n" for n in range(1, 13)))
    brief = ("继续分析。第二批——逐个分析以下4个店铺：\n\n1. 北区店 | 120单 | 已发货\n2. 南区店 | 80单 | 待付款\n"
             "3. 东区店 | 45单 | 选款中\n4. 西区店 | 30单 | 新客户\n每个输出：阶段、下一步。")
    log = _Log("e7e7e7e7-0000-4000-8000-000000000004")
    log.typed("analyse the shops")
    for n, turn in enumerate((transcript, report, brief)):
        _esc_then(log, f"node scripts/shop_{n}.js", turn)
    _esc_then(log, "node scripts/shop_9.js", "继续，但是不要用上周的旧数据")
    assert [m.metadata["reason"] for m in _mined(workspace, projects, log)] == ["继续，但是不要用上周的旧数据"]


def test_a_subagent_refusal_or_an_mcp_read_refused_without_a_word_is_no_rule(
        workspace: Workspace, projects: Path) -> None:
    main = _Log("e7e7e7e7-0000-4000-8000-000000000005")
    main.typed("map the auth module")
    listing = main.calls("mcp__plugin_files_files__list_dir", relative_path="src/auth")
    main.refused(listing).marker()
    main.says("I'll read the files directly instead.")
    sub = _Log("e7e7e7e7-0000-4000-8000-000000000005", sidechain=True, start=50)
    sub.typed("Explore the auth module and report its structure")
    write = sub.calls("Bash", command="mkdir -p notes && touch notes/auth.md")
    sub.refused(write)
    sub.says("I could not write notes; here is the structure.")
    assert _mined(workspace, projects, main, sub) == []


def test_the_same_words_after_two_refusals_are_one_lesson(workspace: Workspace, projects: Path) -> None:
    log = _Log("e7e7e7e7-0000-4000-8000-000000000006")
    log.typed("put the generator script in the docs repo")
    said = "sorry, the right folder is C:\\Users\\me\\team-docs, and keep only the first and last slide"
    first = log.calls("Bash", command='mkdir -p "C:\\Users\\me\\team-doc\\scripts"')
    log.refused(first).marker()
    log.typed(said)
    log.says("Got it, moving it.")
    second = log.calls("Bash", command='mv "C:\\Users\\me\\team-doc\\gen.py" scripts/')
    log.refused(second).marker()
    log.typed(said + "The template is only for the sales decks")  # sent again, a sentence added
    log.says("Understood, copying it to team-docs.")
    # each record in its chain, as Claude Code writes them: the words typed twice, not a copy
    for before, record in zip(log.records, log.records[1:], strict=False):
        record["parentUuid"] = before["uuid"]
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["reason"] == said + "\nThe template is only for the sales decks"
    assert len(memory.metadata["record_uuids"]) == 2  # both refusals, one lesson


# -- hooks and tool errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    'Reading file failed: {"code":-32603,"message":"Internal error","data":"reading bytes of the file"}',
    "Error executing tool read_file: 1 validation error for arguments relative_path Field required",
    "Tool permission request failed: Error: Tool use aborted",
])
def test_an_mcp_servers_error_after_a_hook_ran_is_the_tools(text: str) -> None:
    signals = Signals(tool="mcp__files__read_file", hooked="PreToolUse:*")
    assert classify_tool_error(text, signals) == ("tool_error", None)
    assert classify_tool_error("Pre-commit gate failed:\n[FORMAT] run the formatter first",
                               Signals(tool="Bash", hooked="PreToolUse:Bash"))[0] == "hook_block"


def test_claude_codes_own_limits_recurring_are_no_lesson(workspace: Workspace, projects: Path) -> None:
    logs = []
    for n in range(2):
        log = _Log(f"e8e8e8e{n}-0000-4000-8000-00000000000{n}", start=100 * n)
        log.typed("update the budget sheet")
        sheet = log.calls("Read", file_path=f"{PROJECT}/budget.xlsx")
        log.result(sheet, "This tool cannot read binary files. The file appears to be a binary .xlsx file. "
                          "Please use appropriate tools for binary file analysis.", True)
        notes = log.calls("Read", file_path="/home/u/.claude/plugin-notes/observations.jsonl")
        log.result(notes, "Claude requested permissions to read from /home/u/.claude/plugin-notes/"
                          "observations.jsonl, but you haven't granted it yet.", True)
        log.result(log.calls("Bash", command="python -c 'import openpyxl'"), "ok")
        logs.append(log)
    assert _mined(workspace, projects, *logs) == []


def test_the_windows_shell_crashing_is_its_own_fact(workspace: Workspace, projects: Path) -> None:
    crash = ("Exit code 3221225477\n      0 [main] bash (4242) C:\\Program Files\\Git\\bin\\..\\usr\\bin\\bash.exe: "
             '*** fatal error - add_item ("\\??\\C:\\Program Files\\Git", "/", ...) failed, errno 1')
    log = _Log("e8e8e8e8-0000-4000-8000-000000000008")
    log.typed("list the shop folders")
    log.result(log.calls("Bash", command='ls -la "C:\\work" | grep -i shop'), crash, True)
    [memory] = _mined(workspace, projects, log)
    assert memory.title.startswith("`bash` itself crashes here as it starts")
    assert "`ls`" not in memory.title


def test_unreadable_lines_are_dropped_from_the_error() -> None:
    # no line names an error: every line is quoted, but the one a console's code page garbled
    text = "Exit code 1\n\ufffd\ufffd\ufffd\ufffd: \ufffd\ufffd\ufffd\ufffd \"chrome.exe\"\ufffd\ufffd\n" \
           "Launching Chrome...\nWaiting... (1s)\n\u274c debug port not responding after 15s"
    lines = error_lines(text, 600)
    assert "\ufffd" not in lines and "debug port not responding" in lines
    # a stray mark in a readable line is kept with it
    assert "caf\ufffd menu failed" in error_lines("Exit code 1\ncaf\ufffd menu failed to load", 600)


def test_cd_into_a_folder_with_an_escaped_space_is_a_step(workspace: Workspace, projects: Path) -> None:
    log = _Log("e8e8e8e8-0000-4000-8000-000000000009")
    log.typed("check the prerequisites")
    for _ in range(2):
        log.result(log.calls("Bash", command="cd /home/u/my\\ shop && .tools/check.sh --json"),
                   "Exit code 126\n(eval):1: permission denied: .tools/check.sh", True)
    [memory] = _mined(workspace, projects, log)
    assert memory.title.startswith("`.tools/check.sh")
    assert not memory.title.startswith("`cd")


def test_plan_prompt_question_shapes_unchanged() -> None:
    # the questions the plan rules were tuned on still only ask
    assert asks_about_plan("explain step 2") and not asks_about_plan(PLAN)


def test_a_powershell_property_bash_expanded_is_no_missing_program() -> None:
    # `powershell -Command "... $excel.Name ..."` run from bash: `$excel` expands to nothing
    text = ("Exit code 1\n/usr/bin/bash: line 12: .Name: command not found\n"
            "+ CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException")
    assert environment_subject(text) is None
    assert environment_subject("/usr/bin/bash: line 1: Get-ChildItem: command not found") == \
        ("command:Get-ChildItem", "`Get-ChildItem` is not installed here")
