"""`dreamtui.intake.lessons`: which failures and refusals make a lesson, and how a title says it.

The texts are written here in the shapes shells, test runners and the agents print them (zsh's
"command not found: rg", `uv run`'s "Failed to spawn", a runner's failing-test report, a
program's DEBUG records), not copied from anyone's logs.
"""

from __future__ import annotations

import pytest

from dreamtui.intake.lessons import (
    Friction,
    ToolCall,
    command_head,
    environment_fact,
    environment_subject,
    lesson_title,
    mostly_pasted,
    routine_error,
    worth_storing,
)


def _friction(kind: str, call: ToolCall | None, evidence: str = "", reason: str | None = None,
              session: str = "s1") -> Friction:
    return Friction(kind=kind, scope=session, session_id=session, record_uuids=[f"{session}-{kind}"],
                    timestamp=None, calls=[call] if call else [], said=None, evidence=evidence,
                    reason=reason)


@pytest.mark.parametrize("text", [
    "zsh:1: command not found: rg",
    "(eval):1: command not found: rg",
    "zsh: command not found: rg",
    "/bin/bash: line 1: rg: command not found",
])
def test_a_missing_command_reads_as_not_installed_whichever_shell_said_it(text: str) -> None:
    assert environment_subject(text) == ("command:rg", "`rg` is not installed here")
    assert environment_fact(text)


def test_uv_failing_to_spawn_a_tool_is_that_tool_missing() -> None:
    text = "error: Failed to spawn: `flake8`\n  Caused by: No such file or directory (os error 2)"
    assert environment_subject(text) == ("command:flake8", "`flake8` is not installed here")
    assert environment_fact(text)


def test_a_sandbox_named_on_the_command_line_is_no_fact_the_sandbox_refusing_is() -> None:
    echoed = ("Running `target/debug/app exec -c sandbox_mode=workspace-write --prompt x`\n"
              "error: unexpected argument '--prompt' found")
    assert not environment_fact(echoed)
    assert environment_fact("write blocked by the sandbox: /etc/hosts")
    assert environment_fact("sandbox denied the network request")


@pytest.mark.parametrize("text", [
    "Command timed out after 2m 0.0s",
    "Ripgrep search timed out after 20 seconds. Try searching a more specific path.",
    "failed in sandbox MacosSeatbelt with execution error: command timed out",
    "error (ignored): error: SQLite database 'x.sqlite' is busy\nerror: interrupted by the user",
])
def test_a_time_limit_running_out_is_routine(text: str) -> None:
    assert routine_error(text) and not environment_fact(text)


@pytest.mark.parametrize("text", [
    "# fail  1\nglobal failure: ServerError: GET /api/v2/user got HTTP 0",
    "Found 0 errors. Watching for file changes.\nFAILED: Clears goals when target is deleted",
    "FAILED tests/test_a.py::test_x - AssertionError: 2 != 3\n==== 1 failed, 4 passed in 0.2s ====",
    "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 2, want 3\nFAIL",
    "test result: FAILED. 3 passed; 1 failed; 0 ignored",
])
def test_tests_the_work_left_failing_are_routine(text: str) -> None:
    assert routine_error(text)


def test_a_command_error_of_the_project_is_not_routine() -> None:
    assert not routine_error('Usage Error: Couldn\'t find a script named "test:web".')
    assert not routine_error("fatal: unable to auto-detect email address (got 'u@host.(none)')")


def test_debug_records_state_no_error_whatever_their_words() -> None:
    text = ('time=2025-06-15T21:01:04 level=DEBUG source=nix.go:84 msg="nix command exited" '
            'error=nil\ntime=2025-06-15T21:01:05 level=INFO msg="failed lookups: 0"')
    assert routine_error(text)
    assert not routine_error(text + "\nError: nix daemon is not running")


def test_a_patch_in_the_wrong_format_is_the_agents_slip() -> None:
    assert routine_error("error: invalid patch: The first line of the patch must be '*** Begin Patch'")
    assert routine_error("error: invalid hunk at line 4, Unexpected line found in update hunk")


@pytest.mark.parametrize(("command", "head"), [
    ("timeout 60s nix run ./tests#run .", "nix run"),
    ("timeout -s KILL 30 make test", "make test"),
    ("cd app && time make build", "make build"),
    ("nice -n 5 cargo build --release", "cargo build"),
    ("timeit x", "timeit x"),
])
def test_what_runs_a_command_is_not_its_head(command: str, head: str) -> None:
    assert command_head(command) == head


def test_a_missing_module_is_missing_for_the_interpreter_that_ran() -> None:
    call = ToolCall("Bash", "cd app && python3 -m pytest tests", None)
    friction = _friction("tool_error", call, "ModuleNotFoundError: No module named 'sqlalchemy'")
    assert lesson_title(friction, 120) == "The module `sqlalchemy` is not installed for `python3`"


def test_a_command_a_permission_rule_denies_is_named_by_its_head() -> None:
    call = ToolCall("Bash", "rm /home/u/.dots/a /home/u/.dots/b 2>/dev/null || true", None)
    friction = _friction("denial", call, "Permission to use Bash with command rm /home/u/.dots/a "
                                         "has been denied.")
    assert lesson_title(friction, 120) == "Do not run `rm` here: a permission rule denies it"


def test_an_edit_refused_without_a_word_is_a_lesson_only_when_refused_again() -> None:
    edit = ToolCall("Edit", "/app/src/errors.ts", "/app/src/errors.ts")
    once = _friction("rejection", edit)
    assert worth_storing([once]) == []
    again = _friction("rejection", edit, session="s2")
    assert worth_storing([once, again]) == [once, again]
    # With the person's words it is a lesson at once; a command refused is one too (ask first).
    said = _friction("rejection", edit, reason="keep the old error codes")
    command = _friction("rejection", ToolCall("Bash", "alembic upgrade head", None))
    assert worth_storing([said, command]) == [said, command]


def test_a_question_the_person_wanted_to_talk_over_needs_their_words() -> None:
    ask = ToolCall("AskUserQuestion", "Which database should the tests use?", None)
    silent = _friction("clarification", ask)
    spoken = _friction("clarification", ask, reason="the tests use sqlite, never postgres")
    assert worth_storing([silent, spoken]) == [spoken]


def test_a_run_log_pasted_without_a_word_is_told_from_a_report_with_one() -> None:
    log = ("Running `target/debug/orchestrator --prompt 'build a demo'`\n"
           '[orchestrator] {"data":{"description":"delegate prompt","task_id":1},"event":"launch"}\n'
           "worker! Unable to find image 'worker:local' locally\n"
           "worker! docker: error getting credentials\n"
           '[orchestrator] {"data":{"status":127,"success":false,"task_id":1},"event":"done"}\n'
           "Orchestrated: [\n    TaskResult {\n        task_id: 1,\n        success: false,\n    },\n]")
    assert mostly_pasted(log)
    reported = "it seems the worker image is never built, the docker step fails:\n" + log
    assert not mostly_pasted(reported)
    fenced = "```\n" + log + "\n```\nstill no image: build it in the setup step"
    assert not mostly_pasted(fenced)
    assert not mostly_pasted("Thanks! Since you know the repo, look at the other scrapers. " * 4)
    assert not mostly_pasted("Wait, hold on. I see a console error:\n\n[React Flow]: It seems "
                             "that you are trying to drag a node that is not initialized. Please "
                             "use onNodesChange as explained in the docs. Help: https://x.dev/e015")
    assert not mostly_pasted('{"a": 1}')  # short: typed, whatever it holds


def test_a_missing_module_names_no_program_that_is_not_its_interpreter() -> None:
    call = ToolCall("Bash", "which python && python -c 'import sqlalchemy'", None)
    friction = _friction("tool_error", call, "ModuleNotFoundError: No module named 'sqlalchemy'")
    assert lesson_title(friction, 120) == "The module `sqlalchemy` is not installed here"


def test_the_error_lines_of_a_debug_run_are_the_programs_own_error() -> None:
    from dreamtui.intake.lessons import error_lines
    text = ('time=21:01:04 level=DEBUG source=nix.go:84 msg="nix command exited" cmd.code=1 '
            'cmd.stderr="1 dependencies failed to build"\nError: nix: command error: print-dev-env')
    assert error_lines(text, 300) == "Error: nix: command error: print-dev-env"


def test_local_changes_in_the_way_of_a_checkout_are_routine() -> None:
    assert routine_error("Exit code 1\nerror: Your local changes to the following files would be "
                         "overwritten by checkout:\n\tsrc/app.py\nPlease commit your changes")


def test_a_reason_that_says_nothing_is_no_reason_and_a_silent_plan_refusal_no_lesson() -> None:
    edit = ToolCall("Edit", "/app/.claude/settings.json", "/app/.claude/settings.json")
    assert worth_storing([_friction("rejection", edit, reason="继续操作")]) == []
    assert worth_storing([_friction("rejection", edit, reason="I have a question here.")]) == []
    build = _friction("rejection", ToolCall("Bash", "yarn build_web_test", None), reason="Cancel")
    assert worth_storing([build]) == [build] and build.reason is None
    assert lesson_title(build, 120) == "Refused without a reason, ask first: run `yarn build_web_test`"
    plan = ToolCall("ExitPlanMode", None, None, plan="# Plan: commit the changes")
    assert worth_storing([_friction("plan_rejection", plan)]) == []
    reasoned = _friction("plan_rejection", plan, reason="commit the tests separately")
    assert worth_storing([reasoned]) == [reasoned]


def test_a_hook_script_the_agent_ran_itself_blocks_nothing() -> None:
    tested = _friction("hook_block", ToolCall(
        "Bash", """echo '{"tool_input":{"command":"rm -rf data/"}}' | python .claude/hooks/guard.py""",
        None), "Destructive command blocked by safety hook: matched pattern 'rm -rf'")
    blocked = _friction("hook_block", ToolCall("Bash", "rm -rf data/", None),
                        "PreToolUse:Bash hook error: [guard.py]: Destructive command blocked")
    assert worth_storing([tested, blocked]) == [blocked]


def test_a_report_quoting_a_log_is_titled_by_the_persons_words() -> None:
    text = ("```target/debug/mcp-client /usr/bin/node ~/.codex/search.js\n2025-08-30T15:20:06Z DEBUG "
            'mcp_client: message to server: {"id":1,"method":"initialize"}``` and when ```cargo run '
            "--bin app``` ```MCP client for `search` failed to start: request timed out``` the search "
            "tool never starts, how can I debug why it fails when app runs?")
    friction = _friction("correction", ToolCall("shell", "cargo build", None), text)
    title = lesson_title(friction, 120)
    assert "target/debug" not in title and "search tool never starts" in title


def test_a_hook_fed_its_payload_on_a_line_the_log_cut_blocks_nothing() -> None:
    cut = """cd "E:/CC-test" && echo '{"tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/t"}}' | PYTHON…"""
    tested = _friction("hook_block", ToolCall("Bash", cut, None), "Hook PreToolUse:Bash denied this tool")
    assert worth_storing([tested]) == []


def test_a_subagent_refused_without_a_word_and_a_look_after_cd_make_no_lesson() -> None:
    from dreamtui.intake.lessons import only_looks
    brief = _friction("rejection", ToolCall("Task", "Explore the aisuite module structure", None))
    assert worth_storing([brief]) == []
    assert only_looks([ToolCall("Bash", "cd /code/app && git diff HEAD internal/service", None)])
    assert not only_looks([ToolCall("Bash", "cd /code/app && git reset --hard", None)])


def test_a_pasted_command_running_on_to_the_next_line_is_no_word_of_the_person() -> None:
    from dreamtui.intake.lessons import own_words
    text = ("Running `target/debug/orchestrator --prompt 'build\na demo'`\n"
            '[orchestrator] {"data":{"task_id":1},"event":"launch"}\n'
            "Orchestrated from prompt: [\n    TaskResult {\n        success: false,\n    },\n"
            "] seems the docker image needs to be built first")
    assert own_words(text) == "seems the docker image needs to be built first"


def test_windows_denying_access_is_a_fact_in_any_language() -> None:
    for text in ("Exit code 1\nError de sistema 5.", "System error 5 has occurred.\n\nAccess is denied."):
        assert environment_fact(text)
        assert environment_subject(text) == ("windows-denied", "Windows denies access here (System "
                                             "error 5): it needs an administrator's shell")
    assert not environment_fact("System error 50 has occurred.")


def test_one_fact_of_the_machine_is_one_tool_error_whichever_shell_stated_it() -> None:
    from dreamtui.intake.lessons import friction_key
    zsh = _friction("tool_error", ToolCall("Bash", "nix flake show --json | jq .", None),
                    "(eval):1: command not found: jq")
    bash = _friction("tool_error", ToolCall("Bash", "gh run view 12 --json jobs | jq .jobs", None),
                     "Exit code 127\n/usr/bin/bash: line 1: jq: command not found", session="s2")
    assert friction_key(zsh, "cc") == friction_key(bash, "cc")
    other = _friction("tool_error", ToolCall("Bash", "yarn test:web", None),
                      'Usage Error: Couldn\'t find a script named "test:web".')
    assert friction_key(other, "cc") != friction_key(zsh, "cc")


@pytest.mark.parametrize(("text", "key"), [
    ("Place your finger on the reader\nsudo: a terminal is required to read the password; either "
     "use the -S option", "sudo-password"),
    ("git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
     "ssh-key"),
    ("To get started with GitHub CLI, please run:  gh auth login", "gh-auth"),
    ("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon "
     "running?", "docker-daemon"),
    ("error: externally-managed-environment\n\nThis environment is externally managed", "pip-managed"),
])
def test_what_the_person_must_set_up_is_a_fact_of_the_machine(text: str, key: str) -> None:
    assert environment_fact(text)
    subject = environment_subject(text)
    assert subject is not None and subject[0] == key


@pytest.mark.parametrize("text", [
    "src/app.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
    "error[E0308]: mismatched types\n --> src/main.rs:3:5",
    "error: could not compile `app` (bin \"app\") due to 2 previous errors",
    "/code/app/src/a.js\n  3:7  error  'x' is defined but never used  no-unused-vars\n\n"
    "✖ 5 problems (3 errors, 2 warnings)",
    "src/app/models.py:12: error: Incompatible types\nFound 2 errors in 1 file (checked 3 source files)",
])
def test_the_compiler_and_linter_on_the_agents_own_code_are_routine(text: str) -> None:
    assert routine_error(text) and not environment_fact(text)


def test_a_flag_the_command_does_not_take_and_a_warning_record_are_routine() -> None:
    assert routine_error("error: unexpected argument '--prompt' found\n\nUsage: app exec [PROMPT]")
    assert routine_error("usage: run.py [-h]\nrun.py: error: unrecognized arguments: --fast")
    assert routine_error("2025-08-24 19:38:31,187 - __main__ - WARNING - Could not check memory")
    assert not routine_error("sed: invalid option -- 'i'")  # BSD sed: a fact of the machine


def test_gh_with_an_invalid_token_is_not_logged_in() -> None:
    text = "X Failed to log in to github.com account u (keyring)\n- The token in keyring is invalid."
    assert environment_fact(text)
    assert environment_subject(text) == ("gh-auth", "`gh` is not logged in here (gh auth login)")


def test_a_connection_timing_out_is_the_networks_limit_not_the_agents() -> None:
    assert not routine_error("curl: (28) Connection timed out after 10001 milliseconds")
    assert not routine_error("curl: (28) Operation timed out after 30000 milliseconds with 0 bytes")


@pytest.mark.parametrize(("turn", "title"), [
    ("Ok the build is passing, good. I don't like the retry loop. Use the queue's ack instead.",
     "I don't like the retry loop."),
    ("Looking good. I have an odd glitch though: the total doubles after a sync.",
     "I have an odd glitch though: the total doubles after a sync."),
    ("I like option 2 to keep one endpoint. But I'm worried the SQL gets too complicated.",
     "I'm worried the SQL gets too complicated."),
    ("I understand this. But the inherited attributes are still listed twice.",
     "The inherited attributes are still listed twice."),
    ("Good catch on the port. Now the header is gone.", "Good catch on the port."),  # a point of its own
    ("Think some more. I don't like either approach.", "Think some more."),  # the verb, no keyword
    ("think hard: the cache key ignores the locale", "The cache key ignores the locale"),
    ("Nothing is working. The page stays blank.", "Nothing is working."),
    ("The build isnt passing. The cache is stale.",
     "The build isnt passing. The cache is stale: check that it works before saying it is done"),
])
def test_a_correction_title_starts_at_the_point_not_at_the_approval_before_it(turn: str, title: str) -> None:
    edit = ToolCall("Edit", "/app/sync.ts", "/app/sync.ts")
    assert lesson_title(_friction("correction", edit, evidence=turn), 120) == title


def test_a_failure_title_quotes_the_error_not_the_table_drawn_around_it() -> None:
    run = ToolCall("Bash", "python run_crew.py", None)
    evidence = ("+--------------------+--------------------[EventsBus] handler error: 'charmap' codec "
                "can't encode character\n╭──────────╮\n│ Crew failed │\n╰──────────╯")
    title = lesson_title(_friction("tool_error", run, evidence=evidence), 120)
    assert title.startswith("`python run_crew.py` fails here: [EventsBus] handler error: 'charmap' codec")
    assert "--" not in title and "─" not in title
