"""Stops that are not what they look like, seen in public logs (read 5) and written here in their
shapes: a plan accepted with its context cleared is refused by Claude Code itself, and is no
rejection; "User chose to stay in plan mode" is a plan rejection whose reason is typed next, not a
tool error; text pasted at a plan's prompt (the plan pasted back, a review approving it) is no
reason; an Esc followed by "继续" (go on) teaches nothing. In Codex, a stop followed by the
person's words is an interruption with them as its reason, one followed by a slash command's
template is none, and a stop at the approval prompt is the rejection alone.

Every log, plan and turn here is written for the test, reproducing the shapes of real ones (the
projects, plans and words are made up)."""

from __future__ import annotations

from pathlib import Path

from dreamtui.intake.claude_code.rules import Signals, classify_tool_error, reason_at_plan
from dreamtui.intake.codex.frictions import typed_words
from dreamtui.intake.codex.importer import read_rollout
from dreamtui.workspace.layout import Workspace
from tests.unit.test_claude_code_mining import MARKER, REJECTED, _kinds, _Log, _mined, projects, workspace
from tests.unit.test_codex_import import Rollout

__all__ = ["projects", "workspace"]  # the fixtures, used by name

PLAN = ("# Cache the price lookups\n\n## Goal\n\nServe repeated price lookups from a cache so the "
        "checkout page stops timing out.\n\n## Steps\n\n1. Add `PriceCache` in `shop/prices.py` "
        "with a five minute expiry\n2. Read through the cache in `checkout_total`\n3. Clear the "
        "cache when an admin edits a price\n\n## Verification\n\n- `pytest tests/test_prices.py`\n"
        "- open /checkout twice and compare the timings\n")
STAYED = "User chose to stay in plan mode and continue planning"


def _planned(log: _Log) -> str:
    log.typed("plan a cache for the price lookups")
    log.says("Here is the plan.")
    return log.calls("ExitPlanMode", plan=PLAN)


# -- a plan accepted with its context cleared -------------------------------------------------


def test_a_plan_handed_to_a_cleared_context_is_no_rejection(workspace: Workspace, projects: Path) -> None:
    log = _Log("d1d1d1d1-0000-4000-8000-000000000001", mode="plan")
    log.result(_planned(log), REJECTED, True).marker()  # toolUseResult "Error: The user doesn't want …"
    # Claude Code starts the new context with the plan, a chain of its own
    log.typed(f"Implement the following plan:\n\n{PLAN}", planContent=PLAN)
    log.says("I'll implement the cache step by step.")
    log.calls("Read", file_path="/home/u/shop/shop/prices.py")
    assert _mined(workspace, projects, log) == []


def test_a_cleared_context_opening_with_the_refusal_of_an_unknown_call_is_no_rejection(
        workspace: Workspace, projects: Path) -> None:
    # The new session's log starts with the refusal of the ExitPlanMode call the earlier log made.
    log = _Log("d1d1d1d1-0000-4000-8000-000000000002", mode="bypassPermissions")
    log.result("toolu_from_the_planning_log", REJECTED, True).marker()
    log.typed(f"Implement the following plan:\n\n{PLAN}", planContent=PLAN)
    log.says("Starting with PriceCache.")
    assert _mined(workspace, projects, log) == []


def test_a_plan_refused_with_words_typed_next_is_still_a_plan_rejection(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("d1d1d1d1-0000-4000-8000-000000000003", mode="plan")
    log.refused(_planned(log)).marker()
    log.typed("an expiry of five minutes is too long, prices change every minute during sales")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "plan_rejection"


# -- "stay in plan mode" -----------------------------------------------------------------------


def test_staying_in_plan_mode_is_classified_as_a_plan_rejection() -> None:
    assert classify_tool_error(STAYED, Signals(tool="ExitPlanMode")) == ("plan_rejection", None)


def test_staying_in_plan_mode_is_a_plan_rejection_with_the_turn_typed_next(
        workspace: Workspace, projects: Path) -> None:
    logs = []
    for n, reason in enumerate(("write the plan to docs/archive/v3 instead of the chat",
                                "keep the cache in Redis, the app runs on four workers")):
        log = _Log(f"d2d2d2d2-0000-4000-8000-00000000000{n}", mode="plan", start=100 * n)
        log.result(_planned(log), STAYED, True).marker()
        log.typed(reason)
        log.says("Understood, updating the plan.")
        logs.append(log)
    memories = sorted(_mined(workspace, projects, *logs), key=lambda m: m.metadata["session_id"])
    # two events in two sessions: two lessons, not one tool error counted twice
    assert [(m.metadata["kind"], m.metadata["reason"]) for m in memories] == [
        ("plan_rejection", "write the plan to docs/archive/v3 instead of the chat"),
        ("plan_rejection", "keep the cache in Redis, the app runs on four workers")]
    assert "the plan" in memories[1].content and "Cache the price lookups" in memories[1].content


def test_staying_in_plan_mode_with_nothing_typed_is_no_lesson(workspace: Workspace,
                                                            projects: Path) -> None:
    log = _Log("d2d2d2d2-0000-4000-8000-000000000009", mode="plan")
    log.result(_planned(log), STAYED, True)
    log.says("Let me look at the admin screens before finishing the plan.")
    log.calls("Read", file_path="/home/u/shop/shop/admin.py")
    assert _mined(workspace, projects, log) == []


# -- text pasted at a plan's prompt -------------------------------------------------------------


def _rejected_with(text: str, session: str, workspace: Workspace, projects: Path) -> list[str | None]:
    log = _Log(session, mode="plan")
    tool = _planned(log)
    log.result(tool, REJECTED.split(" STOP")[0] + " To tell you how to proceed, the user said:\n" + text,
               True, toolUseResult="User rejected tool use")
    log.says("Thanks, updating the plan.")
    return [m.metadata.get("reason") for m in _mined(workspace, projects, log)]


# The plan as the viewer shows it, copied with its chrome and without the Markdown marks.
RENDERED = "Ready for review\nSelect text to add comments on the plan\n" + \
    PLAN.replace("#", "").replace("`", "").replace("\n\n", "\n")


def test_the_plan_pasted_back_is_no_reason(workspace: Workspace, projects: Path) -> None:
    assert _rejected_with(RENDERED, "d3d3d3d3-0000-4000-8000-000000000001", workspace, projects) == []


def test_the_plan_pasted_back_with_a_line_changed_has_that_line_as_its_reason() -> None:
    edited = RENDERED.replace("with a five minute expiry", "with a thirty second expiry, never longer")
    assert reason_at_plan(edited, PLAN) == \
        "1. Add PriceCache in shop/prices.py with a thirty second expiry, never longer"


REVIEW_BODY = ("\n\n### What's correct\n\n1. The cache is read through in one place, so a stale "
               "entry has one cause.\n2. Admin edits clear it, which covers the manual price changes."
               "\n3. The timings check on /checkout is the right verification for the timeout.\n\n"
               "### Notes\n\n* Log the hit rate so the expiry can be tuned later.\n* Keep the expiry "
               "in settings rather than in code.\n\n### Go/No-Go\n\n* Go for implementation: YES\n"
               "* Risk: LOW\n\nNext step: write PriceCache first, then wire checkout_total, then the "
               "admin hook, and run the tests after each.")


def test_a_pasted_review_that_approves_the_plan_is_no_reason(workspace: Workspace,
                                                              projects: Path) -> None:
    approving = "This version is **solid and ready for implementation**. The earlier gaps are closed." \
        + REVIEW_BODY
    assert _rejected_with(approving, "d3d3d3d3-0000-4000-8000-000000000002", workspace, projects) == []


def test_a_pasted_critique_is_the_persons_reason(workspace: Workspace, projects: Path) -> None:
    critique = ("This is **close**, but the cache will serve stale prices during a sale. Overall "
                "verdict: fix the expiry before coding." + REVIEW_BODY)
    approved_but = ("Short answer: **this is approved**, with **two small but mandatory fixes**."
                    + REVIEW_BODY)
    assert _rejected_with(critique, "d3d3d3d3-0000-4000-8000-000000000003", workspace, projects) == [
        critique]
    assert reason_at_plan(approved_but, PLAN) == approved_but


def test_a_short_typed_approval_with_a_request_is_kept() -> None:
    typed = "Great plan -- but also warm the cache when the app starts"
    assert reason_at_plan(typed, PLAN) == typed
    assert reason_at_plan("Great plan -- give me a script that warms the cache at start", PLAN) == \
        "Great plan -- give me a script that warms the cache at start"


# -- an Esc followed by "go on" -----------------------------------------------------------------


def test_an_esc_followed_by_go_on_in_chinese_is_no_lesson(workspace: Workspace, projects: Path) -> None:
    log = _Log("d4d4d4d4-0000-4000-8000-000000000001")
    log.typed("chat 请求失败，修一下")
    log.calls("Bash", command="curl -s http://127.0.0.1:8231/api/chat/stream?message=test")
    log.says("Rewrite 已修复，请刷新页面重试。")
    log.marker("[Request interrupted by user]")
    log.typed("继续")
    log.says("检查当前服务状态。")
    assert _kinds(_mined(workspace, projects, log)) == []


def test_an_esc_followed_by_a_redirect_in_chinese_is_kept(workspace: Workspace, projects: Path) -> None:
    log = _Log("d4d4d4d4-0000-4000-8000-000000000002")
    log.typed("更新设计文档")
    log.calls("Edit", file_path="/home/u/shop/docs/design.md", old_string="a", new_string="b")
    log.marker(MARKER)
    log.typed("注意新的首页已经取消了卡片布局，先更新 docs/frontend.md")
    assert _kinds(_mined(workspace, projects, log)) == ["interruption"]


# -- Codex: a stop and what the person typed after it --------------------------------------------


def test_a_codex_stop_followed_by_a_reason_is_an_interruption_quoting_what_ran(tmp_path: Path) -> None:
    rollout = (Rollout().typed("/speckit.specify the desktop app waits for its backend")
               .shell("cat > specs/001/spec.md <<'EOF'\n# Spec\nEOF", "aborted by user after 2.0s", 1)
               .abort()
               .typed("Here is the original spec, do not rewrite it from memory:\n\n# Startup readiness\n"
                      "The app waits for the backend port before showing the window."))
    [friction] = read_rollout(rollout.write(tmp_path))[0]
    assert friction.kind == "interruption"
    assert friction.action == "cat > specs/001/spec.md <<'EOF'\n# Spec\nEOF"
    assert friction.reason is not None and friction.reason.startswith(
        "Here is the original spec, do not rewrite it from memory:")


def test_a_codex_stop_followed_by_a_slash_commands_template_is_no_lesson(tmp_path: Path) -> None:
    template = ("## User Input\n\n```text\nCreate a technical plan for the poker site in TypeScript\n```"
                "\n\nYou **MUST** consider the user input before proceeding (if not empty).\n\n"
                "## Outline\n\n1. Run the setup script")
    rollout = (Rollout().typed("Review milestone 4").shell("git fetch --all --prune", "").abort()
               .typed(template).says("Planning."))
    assert read_rollout(rollout.write(tmp_path))[0] == []


def test_the_words_after_the_ides_context_are_the_reason_and_a_prompt_file_is_none() -> None:
    context = ("# Files mentioned by the user:\n\n## shot.png: C:/Users/me/shot.png\n\n"
               "## My request for Codex:\n")
    assert typed_words(context + "the vault is at Documents/VAULT, not the repo") == \
        "the vault is at Documents/VAULT, not the repo"
    assert typed_words(context) is None
    assert typed_words("# Context from my IDE setup:\n\n## Active file: docs/req.md\n\n"
                       "## My request for Codex:\n# Implement a new requirement\n\n## Purpose\n- …") is None


def test_a_codex_stop_at_the_approval_prompt_is_the_rejection_alone(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Finish phase 6")
               .shell("cargo test --test startup", "exec command rejected by user", declined=True)
               .abort()
               .typed("Just make sure the whole app builds with no warnings and call phase 6 done"))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    assert [(f.kind, f.reason) for f in frictions] == [
        ("rejection", "Just make sure the whole app builds with no warnings and call phase 6 done")]


def test_a_codex_stop_while_the_agent_only_talked_names_no_earlier_call(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Add the endpoint").shell("rg -n routes src", "src/app.ts:3: routes")
               .says("Done, the endpoint is in.").typed("now the docs").says("Writing the docs …")
               .abort().typed("no, put the docs in docs/api.md, not the README"))
    [friction] = read_rollout(rollout.write(tmp_path))[0]
    assert (friction.kind, friction.action) == ("interruption", None)


# -- words typed while a call ran, then the call stopped ------------------------------------------


def test_words_typed_while_a_call_ran_are_the_reason_of_the_stop_that_follows(
        workspace: Workspace, projects: Path) -> None:
    report = "the status line is redrawn every millisecond, it should show once"
    log = _Log("d5d5d5d5-0000-4000-8000-000000000001", mode="bypassPermissions")
    log.typed("fix the story parsing in flow.sh")
    log.says("Fixed. Committing.")
    commit = log.calls("Bash", command="git add bin/flow.sh && git commit -m 'fix: parse the story'")
    log.typed(report)  # typed while the commit ran
    log.refused(commit).marker().marker("[Request interrupted by user]")
    log.typed(report)  # sent again, so that the agent reads it
    log.says("I see, the spinner repeats. Let me fix it.")
    [memory] = _mined(workspace, projects, log)
    assert (memory.metadata["kind"], memory.metadata["reason"]) == ("interruption", report)
    assert "git commit" in memory.title


def test_words_typed_while_a_call_ran_are_the_reason_when_nothing_is_typed_after(
        workspace: Workspace, projects: Path) -> None:
    fix = ("your recursion starts from the related PRD, not the one being checked: start it from "
           "the initial path and the cycle is found on the first visit")
    log = _Log("d5d5d5d5-0000-4000-8000-000000000002", mode="bypassPermissions")
    log.typed("why is the cycle found so late?")
    trace = log.calls("Bash", command="node -e \"require('./prd-utils').syncMemory('docs/a.json')\"")
    log.typed(fix)
    log.refused(trace).marker()
    log.says("Let me fix hasCircularDependency to start from the initial path.")
    log.calls("Read", file_path="/home/u/shop/prd-utils.js")
    [memory] = _mined(workspace, projects, log)
    assert (memory.metadata["kind"], memory.metadata["reason"]) == ("interruption", fix)


def test_a_long_plan_pasted_back_is_read_as_far_as_the_call_keeps_it(workspace: Workspace,
                                                                     projects: Path) -> None:
    # A plan of many thousand characters: the call keeps its first 2000, the paste is compared
    # with them, and its line cut at that length is not taken for a change.
    steps = "".join(f"{n}. Move handler {n} of the checkout into `shop/handlers_{n}.py`\n" for n in range(400))
    plan = f"# Split the checkout handlers\n\n## Steps\n\n{steps}"
    log = _Log("d3d3d3d3-0000-4000-8000-000000000004", mode="plan")
    log.typed("plan the split of the checkout handlers")
    tool = log.calls("ExitPlanMode", plan=plan)
    log.result(tool, REJECTED.split(" STOP")[0] + " To tell you how to proceed, the user said:\n"
               + plan.replace("#", "").replace("`", ""), True, toolUseResult="User rejected tool use")
    log.says("The plan is ready.")
    assert _mined(workspace, projects, log) == []


def test_the_plan_pasted_back_as_the_turn_after_staying_in_plan_mode_is_no_reason(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("d3d3d3d3-0000-4000-8000-000000000005", mode="plan")
    log.result(_planned(log), STAYED, True).marker()
    log.typed(RENDERED)
    log.says("That is the plan as written; shall I go on?")
    assert _mined(workspace, projects, log) == []


def test_a_pasted_review_approving_the_plan_in_chinese_is_no_reason_and_one_with_a_but_is() -> None:
    body = "\n\n### 优点\n\n" + "".join(f"{n}. 缓存只在一个地方读取，价格修改时清空。\n" for n in range(1, 30))
    assert reason_at_plan("这个方案整体非常可行，可以开始实施。" + body, PLAN) is None
    critique = "这个方案整体可行，但是过期时间太长，促销时价格会过时。" + body
    assert reason_at_plan(critique, PLAN) == critique
