"""Stops and plan rejections: the cases a second read found (review1 H1, H2, H6, M1, M7, L1,
L2, L8), each on a made-up session in the shape of a real one."""
from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.intake.claude_code import frictions
from dreamtui.intake.claude_code.rules import asks_about_plan, asks_otherwise, reason_at_plan
from dreamtui.intake.codex.frictions import Detector, typed_words
from dreamtui.intake.codex.reader import Aborted, AgentText, Call, Meta, Result, UserTurn
from dreamtui.workspace.layout import Workspace
from tests.unit.test_claude_code_mining import MARKER, _Log, _mined, projects, workspace

__all__ = ["projects", "workspace"]  # the fixtures, used by name

IDE = ("# Context from my IDE setup:\n\n## Active file: src/parser.ts\n\n## Open tabs:\n"
       "- parser.ts: src/parser.ts\n- lexer.ts: src/lexer.ts\n\n## My request for Codex:\n")


def _codex(*events: object) -> list[tuple[str, str | None, str]]:
    detector = Detector()
    detector.feed(Meta("s1", "/home/u/p", "0.50.0"))
    for event in events:
        detector.feed(event)  # type: ignore[arg-type]
    return [(f.kind, f.reason, f.evidence) for f in detector.finish()]


def _stopped_then(first: str, second: str) -> list[tuple[str, str | None, str]]:
    return _codex(UserTurn(first, "2026-11-02T10:00:00Z", 1),
                  AgentText("I'll rewrite the lexer."),
                  Call("c1", "shell", "sed -i s/a/b/ src/lexer.ts"),
                  Aborted("interrupted", "2026-11-02T10:00:05Z"),
                  UserTurn(second, "2026-11-02T10:00:09Z", 5))


def test_codex_redirect_after_a_stop_is_read_under_the_ide_context() -> None:
    said = "Wait, do not touch the lexer, only fix the parser's error recovery"
    found = _stopped_then(IDE + "fix the parser's error recovery", IDE + said)
    assert [(kind, reason) for kind, reason, _ in found] == [("interruption", said)]


def test_codex_amendment_under_the_ide_context_keeps_only_the_typed_words() -> None:
    found = _stopped_then(IDE + "fix the parser's error recovery",
                          IDE + "fix the parser's error recovery, but don't touch the public API")
    assert [(kind, reason) for kind, reason, _ in found] == [
        ("interruption", "fix the parser's error recovery, but don't touch the public API")]


def test_codex_correction_after_done_is_found_under_the_ide_context() -> None:
    said = "No, revert that, the old parser handled comments and this one does not"
    found = _codex(UserTurn(IDE + "rewrite the parser", "2026-11-02T10:00:00Z", 1),
                   Call("c1", "shell", "sed -i s/a/b/ src/parser.ts"),
                   Result("c1", True, "", "2026-11-02T10:00:02Z"),
                   AgentText("Done: the parser is rewritten."),
                   UserTurn(IDE + said, "2026-11-02T10:00:10Z", 4))
    assert [(kind, evidence) for kind, _, evidence in found] == [("correction", said)]


TEMPLATE = ("## User Input\n\n```text\nDon't touch the migrations, only fix the API handler\n```\n\n"
            "You **MUST** consider the user input before proceeding (if not empty).")


def test_codex_template_user_input_block_is_the_persons_words() -> None:
    assert typed_words(TEMPLATE) == "Don't touch the migrations, only fix the API handler"
    assert typed_words("## Outline\n\n1. Load the spec.\n2. Write the plan.") is None
    found = _codex(UserTurn("fix the API handler for uploads", "2026-11-02T10:00:00Z", 1),
                   Call("c1", "shell", "alembic revision --autogenerate"),
                   Aborted("interrupted", "2026-11-02T10:00:05Z"),
                   UserTurn(TEMPLATE, "2026-11-02T10:00:09Z", 5))
    assert [(kind, reason) for kind, reason, _ in found] == [
        ("interruption", "Don't touch the migrations, only fix the API handler")]


PLAN = """# Plan: rate limiting for the public API

1. Add a `RateLimiter` class in `api/limits.py`, backed by Redis, with a fixed window per API key.
2. Wire the limiter into the request handler after authentication, so that anonymous requests use the client IP.
3. Return 429 with a Retry-After header when a key is over its limit.
4. Add tests for the limiter and for the handler: one key over the limit, two keys, the window reset.
5. Do not change the database schema; the limits live in the settings file for now.
"""


def test_a_short_reason_in_the_plans_words_is_no_paste() -> None:
    typed = "Do not use Redis for the limiter; use the settings file for the limits, and add the tests."
    assert reason_at_plan(typed, PLAN) == typed
    two = ("Do not use Redis for the limiter.\n"
           "Keep the limits in the settings file and add tests for the window reset first")
    assert reason_at_plan(two, PLAN) == two


def test_a_line_added_to_a_pasted_plan_in_its_words_is_kept() -> None:
    pasted = PLAN.replace("3. Return 429", "Do not use Redis for the limiter.\n3. Return 429")
    assert reason_at_plan(PLAN, PLAN) is None
    assert reason_at_plan(pasted, PLAN) == "Do not use Redis for the limiter."


def test_a_question_then_a_statement_of_fact_is_an_objection() -> None:
    for text in ("Why Redis? An in-memory bucket is enough for one server.",
                 "What happens to existing API keys? They would all be rate limited at once.",
                 "Why 429? Our clients expect 503 here."):
        assert not asks_about_plan(text), text
        assert reason_at_plan(text, PLAN) == text
    assert asks_about_plan("explain step 2") and reason_at_plan("explain step 2", PLAN) is None


def test_a_counter_proposal_without_a_verb_of_work_is_no_other_task() -> None:
    for text in ("Postgres advisory locks would be simpler", "Cloudflare already rate limits us at the edge"):
        assert not asks_otherwise(text, PLAN), text
        assert reason_at_plan(text, PLAN) == text
    assert asks_otherwise("mcp add playwright npx @playwright/mcp@latest", PLAN)


def test_words_typed_while_a_call_ran_have_one_owner(workspace: Workspace, projects: Path) -> None:
    log = _Log("a1a1a1a1-0000-4000-8000-000000000001")
    log.typed("build the docs site")
    first = log.calls("Bash", command="mkdocs build --strict")
    log.result(first, "Exit code 1\nERROR - Config value 'theme': Unrecognised theme name: 'material'.", True)
    second = log.calls("Bash", command="mkdocs build --strict --verbose")
    log.typed("the material theme lives in requirements-docs.txt, install that file with pip first")
    log.result(second, MARKER, True, toolDenialKind="interrupted").marker()
    log.says("I'll install requirements-docs.txt.")
    mined = _mined(workspace, projects, log)
    assert [m.metadata["kind"] for m in mined] == ["tool_error"]
    assert "requirements-docs.txt" in mined[0].content


def test_a_plan_handoff_drops_only_the_refusal_of_exit_plan_mode(workspace: Workspace, projects: Path) -> None:
    log = _Log("e5e5e5e5-0000-4000-8000-000000000001")
    log.typed("tidy the api module")
    edit = log.calls("Edit", file_path="/home/u/shop/api/v1.py", old_string="a", new_string="b")
    log.refused(edit).marker()
    log.attachment(type="queued_command", prompt="the mobile clients still import v1")
    log.typed("Implement the following plan:\n1. Move the handlers to api/v2.\n2. Keep the v1 routes.")
    log.says("I'll follow that plan.")
    mined = _mined(workspace, projects, log)
    assert [(m.metadata["kind"], m.title.split(" (")[0]) for m in mined] == [
        ("rejection", "The mobile clients still import v1")]


def test_codex_refusal_reason_keeps_its_lines_as_a_stops_does() -> None:
    said = "Don't run the migration here.\nThe staging database is shared with the billing team."
    found = _codex(UserTurn("add the index to orders", "2026-11-02T10:00:00Z", 1),
                   Call("c1", "shell", "alembic upgrade head"),
                   Result("c1", False, "exec command rejected by user", "2026-11-02T10:00:03Z"),
                   UserTurn(said, "2026-11-02T10:00:09Z", 5))
    assert [(kind, reason) for kind, reason, _ in found] == [("rejection", said)]


def test_the_plan_a_call_keeps_is_what_a_paste_is_compared_with(workspace: Workspace, projects: Path) -> None:
    from dreamtui.intake.claude_code.rules import PLAN_CHARS  # one number, the parser's and the rule's

    steps = "\n".join(f"{n}. Move handler {n} of the orders service to api/v2 and keep route {n} in v1."
                      for n in range(1, 60))
    assert len(steps) > PLAN_CHARS + 500
    log = _Log("f6f6f6f6-0000-4000-8000-000000000001", mode="plan")
    log.typed("plan the move of the orders handlers")
    plan = log.calls("ExitPlanMode", plan=steps)
    log.refused(plan).marker()
    log.typed(steps)  # the whole plan pasted back: more than the call kept of it
    log.says("I'll revise the plan.")
    assert _mined(workspace, projects, log) == []


def test_a_dropped_stop_leaves_no_mark_on_a_later_one(
        workspace: Workspace, projects: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # CPython gives a freed object's address to a later one: every object sharing one id stands
    # for the second stop taking the first one's place.
    monkeypatch.setattr(frictions, "id", lambda _: 1, raising=False)
    log = _Log("a7a7a7a7-0000-4000-8000-000000000001")
    log.typed("fix the parser")
    first = log.calls("Bash", command="sleep 30")
    log.typed("hmm")  # typed while the call ran: the reason of the Esc after it, which it drops
    log.result(first, MARKER, True, toolDenialKind="interrupted").marker()
    log.says("Stopped.")
    asked = "Don't touch the lexer, only fix the parser"
    log.typed(asked)
    second = log.calls("Bash", command="sed -i s/a/b/ src/lexer.ts")
    log.result(second, MARKER, True, toolDenialKind="interrupted").marker()
    log.attachment(type="queued_command", prompt=asked)
    log.typed(asked)  # the request sent again: no lesson of the Esc
    log.says("Only the parser, then.")
    assert "interruption" not in [m.metadata["kind"] for m in _mined(workspace, projects, log)]


def test_a_question_then_a_request_to_think_harder_still_only_asks() -> None:
    text = "这个方案和 docs/spec-v3.md、docs/config.md 一致吗。最佳的模式应该是怎样。ultrathink,深度访谈我"
    assert asks_about_plan(text) and reason_at_plan(text, PLAN) is None


def test_codex_spec_sent_again_through_a_templates_user_input_is_no_lesson() -> None:
    spec = ("Users upload invoices as PDF files; the service stores each file in the bucket, extracts "
            "the totals and the due date, and shows them on the dashboard within a minute of the upload.")
    pasted = f"Here is the original spec:\n\n# Feature: Invoice upload\n\n**Input**: {spec}"
    template = (f"## User Input\n\n```text\n**Input**: {spec}\n```\n\n"
                "You **MUST** consider the user input before proceeding (if not empty).")
    found = _codex(UserTurn(pasted, "2026-11-02T10:00:00Z", 1),
                   Call("c1", "shell", "cat > specs/plan.md <<'EOF'\n# Plan\nEOF"),
                   Aborted("interrupted", "2026-11-02T10:00:05Z"),
                   UserTurn(template, "2026-11-02T10:00:09Z", 5))
    assert found == []


def test_a_review_opening_with_think_about_this_plan_is_a_reason() -> None:
    text = "思考这个方案，这是一个决定 SEO 效率和架构复杂度的关键决策。哪些页面需要服务端渲染？"
    assert not asks_about_plan(text) and reason_at_plan(text, PLAN) == text
