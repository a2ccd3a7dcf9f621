"""What is no reason of a stop, seen in public logs (reads 4 and 5) and written here in their
shapes: at a plan's prompt, a question about the plan ("explain point 1 …", "这个文档和代码一致吗")
or another task ("mcp add playwright …") is asked before deciding, not why the plan was refused;
an instruction said as a question ("what if we …", "如果…呢") or run into one ("保持极简，…哪些合理")
still is one. In Codex, a stop while the agent only polled a running command names that command.

Every log, plan and turn here is written for the test, reproducing the shapes of real ones (the
projects, plans and words are made up)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamtui.intake.claude_code.rules import asks_about_plan, asks_otherwise, reason_at_plan
from dreamtui.intake.codex.importer import read_rollout
from dreamtui.workspace.layout import Workspace
from tests.unit.test_claude_code_mining import MARKER, _Log, _mined, projects, workspace
from tests.unit.test_codex_import import PROJECT, Rollout
from tests.unit.test_plan_stops_and_aborts import PLAN, STAYED, _planned, _rejected_with

__all__ = ["projects", "workspace"]  # the fixtures, used by name


# -- a question at a plan's prompt ---------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "explain point 2 of the plan before I decide",
    "what does step 3 clear exactly?",
    "解释一下：1. 为什么要加缓存；2. 五分钟是什么意思；3 管理员编辑价格时如何清除",
    "这个方案和我们现在的价格接口一致吗。最好的做法应该是怎样",
    "目前的结账流程距离这个方案还差哪些，哪些已经有了，请深度review，并深度访谈我。\n\n╔════╗\n║ 需要 ║",
    "what do you think about it?",
])
def test_a_question_about_the_plan_only_asks(text: str) -> None:
    assert asks_about_plan(text)
    assert reason_at_plan(text, PLAN) is None


@pytest.mark.parametrize("text", [
    "what if we cache per product instead of per page?",
    "如果我们把缓存放到 Redis 里呢",
    "保持简单，不要引入新的依赖，分析一下哪些步骤可以省掉",
    "what do you think, and remember the app runs on four workers so we need a shared cache",
    "why a five minute expiry? keep it under a minute",
    "以上计划用中文写",
    "an expiry of five minutes is too long, prices change every minute during sales",
    "I asked about the checkout, not the admin screens: change the plan we are discussing",
])
def test_an_instruction_at_the_plan_is_its_reason(text: str) -> None:
    assert not asks_about_plan(text)
    assert reason_at_plan(text, PLAN) == text


def test_another_task_at_the_plan_is_no_reason() -> None:
    assert asks_otherwise("mcp add browser-tools npx @browser-tools/mcp@latest", PLAN)
    assert asks_otherwise("add the storybook addon", PLAN)
    # words of the plan, a pointer at it, a way of working, a single word: about the plan
    for text in ("add a metric for the cache hit rate", "drop step 3", "switch to vitest and msw",
                 "npm", "use memcached everywhere"):
        assert not asks_otherwise(text, PLAN), text


def test_staying_in_plan_mode_then_asking_a_question_is_no_lesson(
        workspace: Workspace, projects: Path) -> None:
    logs = []
    for n, typed in enumerate(("explain point 2 of the plan, what does the cache hold?",
                               "mcp add browser-tools npx @browser-tools/mcp@latest",
                               "keep the cache in Redis, the app runs on four workers")):
        log = _Log(f"e1e1e1e1-0000-4000-8000-00000000000{n}", mode="plan", start=100 * n)
        log.result(_planned(log), STAYED, True).marker()
        log.typed(typed)
        log.says("Sure.")
        logs.append(log)
    assert [m.metadata["reason"] for m in _mined(workspace, projects, *logs)] == [
        "keep the cache in Redis, the app runs on four workers"]


def test_a_question_typed_at_the_plans_prompt_is_no_lesson(workspace: Workspace, projects: Path) -> None:
    assert _rejected_with("这个方案和现在的结账代码一致吗", "e1e1e1e1-0000-4000-8000-000000000009",
                          workspace, projects) == []


# -- Codex: a stop while the agent polled a running command -------------------------------------


def _poll(rollout: Rollout, session: int, output: str) -> Rollout:
    rollout.calls += 1
    call_id = f"call_{rollout.calls}"
    rollout.record("response_item", {"type": "function_call", "name": "write_stdin", "call_id": call_id,
                                     "arguments": json.dumps({"session_id": session, "chars": "",
                                                              "yield_time_ms": 1000})})
    rollout.record("response_item", {"type": "function_call_output", "call_id": call_id, "output": output})
    return rollout


def _started(rollout: Rollout, command: str, session: int) -> Rollout:
    """An `exec_command` left running: Codex answers with the session the agent then polls."""
    rollout.calls += 1
    call_id = f"call_{rollout.calls}"
    rollout.record("response_item", {"type": "function_call", "name": "exec_command", "call_id": call_id,
                                     "arguments": json.dumps({"cmd": command, "workdir": PROJECT})})
    rollout.record("response_item", {"type": "function_call_output", "call_id": call_id, "output": (
        f"Chunk ID: 1a2b3c\nWall time: 1.0 seconds\nProcess running with session ID {session}\n"
        "Original token count: 9\nOutput:\n\n> shop@0.1.0 dev\n> vite\n\n")})
    return rollout


def test_a_codex_stop_while_the_agent_polled_names_the_polled_command(tmp_path: Path) -> None:
    rollout = _started(Rollout().typed("Fix the drag lag"), "npm run dev -- --port 5174", 4242)
    rollout.says("The dev server is up.").typed("the cart drawer still flickers")
    _started(rollout, "npx vitest --watch", 5151)
    _poll(rollout, 4242, "Chunk ID: 4d5e6f\nWall time: 5.0 seconds\nProcess running with session ID "
          "4242\nOriginal token count: 0\nOutput:\n")
    rollout.abort().typed("Wait, the console says the drawer node is not initialised: use onNodesChange")
    [friction] = read_rollout(rollout.write(tmp_path))[0]
    assert (friction.kind, friction.action) == ("interruption", "npm run dev -- --port 5174")


def test_a_codex_stop_after_polling_an_unknown_session_names_no_call(tmp_path: Path) -> None:
    rollout = _poll(Rollout().typed("Fix the drag lag"), 777, "Chunk ID: 1\nWall time: 5.0 seconds\n"
                    "Process running with session ID 777\nOutput:\n")
    rollout.abort().typed("Wait, the console says the drawer node is not initialised: use onNodesChange")
    [friction] = read_rollout(rollout.write(tmp_path))[0]
    assert (friction.kind, friction.action) == ("interruption", None)


# -- an Esc, then "continue" and what the person pasted ------------------------------------------

ESC = "[Request interrupted by user]"
DIFF_SHOWN = "\n".join(f"      {n} +        {line}" for n, line in enumerate((
    "{/* Filters */}", "<motion.div", "  animate={{ opacity: 1, y: 0 }}", "  initial={{ opacity: 0, y: 8 }}",
    "  className=\"flex gap-2 rounded-md border px-3 py-2\"", ">", "</motion.div>"), start=40))


@pytest.mark.parametrize("typed", ["继续 " + DIFF_SHOWN, "continue\n" + DIFF_SHOWN])
def test_an_esc_then_continue_and_a_paste_is_no_lesson(typed: str, workspace: Workspace,
                                                       projects: Path) -> None:
    log = _Log("e2e2e2e2-0000-4000-8000-000000000001")
    log.typed("build the filter bar")
    log.says("Looking for the tsconfig first.")
    log.result(log.calls("Glob", pattern="apps/web/tsconfig*.json"), "No files found").marker(ESC)
    log.typed(typed)
    log.says("Continuing with the filter bar.")
    assert _mined(workspace, projects, log) == []


def test_an_esc_then_continue_and_words_of_ones_own_is_kept(workspace: Workspace, projects: Path) -> None:
    log = _Log("e2e2e2e2-0000-4000-8000-000000000002")
    log.typed("build the filter bar")
    log.says("Looking for the tsconfig first.")
    log.result(log.calls("Glob", pattern="apps/web/tsconfig*.json"), "No files found").marker(ESC)
    log.typed("继续，但是不要用 motion.div，用普通的 div")
    log.says("好的，改用普通的 div。")
    assert [m.metadata["kind"] for m in _mined(workspace, projects, log)] == ["interruption"]


# -- an Esc right after the person's own slash command --------------------------------------------


def test_an_esc_stopping_the_persons_own_skill_is_no_interruption_of_the_call_before(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("e3e3e3e3-0000-4000-8000-000000000001")
    log.typed("sync the docs to the backup repo")
    log.result(log.calls("Bash", command="bash ~/.claude/skills/sync/run.sh"), "synced 4 files")
    log.says("Sync done: 4 files pushed.")
    log.typed('<command-message>The "deploy-check" skill is running</command-message>\n'
              "<command-name>deploy-check</command-name>")
    log.typed("Base directory for this skill: /home/u/.claude/skills/deploy-check\n\n# Overview\n"
              "- Check the deploy before release.", isMeta=False)
    log.marker(ESC)
    log.typed("remove the deploy-check skill")
    log.says("Removing it.")
    assert [m.metadata["kind"] for m in _mined(workspace, projects, log)] == []


def test_an_esc_after_the_agent_acted_on_the_command_is_an_interruption(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("e3e3e3e3-0000-4000-8000-000000000002")
    log.typed("sync the docs to the backup repo")
    log.says("Sync done: 4 files pushed.")
    log.typed("<command-name>/deploy-check</command-name>")
    log.says("Running the deploy check.")
    log.result(log.calls("Bash", command="./scripts/deploy-check.sh --prod"), "", False).marker(MARKER)
    log.typed("not against prod, run it against staging")
    log.says("Running it against staging.")
    assert [m.metadata["kind"] for m in _mined(workspace, projects, log)] == ["interruption"]


@pytest.mark.parametrize("text", [
    "Does this properly handle guest checkouts? Logged-in carts vs guest carts?",
    "Are the five minutes actually based on how often prices change?",
    "这个方案考虑到了促销价格吗",
])
def test_a_question_pointing_at_a_gap_in_the_plan_is_its_reason(text: str) -> None:
    assert not asks_about_plan(text)
    assert reason_at_plan(text, PLAN) == text


def test_a_want_about_the_plan_is_no_other_task() -> None:
    # the plan is kept by its head only: a word of it may be past what the call holds
    assert not asks_otherwise("I want to make sure we're deliberate about what is in .gitignore and why", PLAN)
