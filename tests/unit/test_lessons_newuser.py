"""Memories a new user would not let into AGENTS.md: a path of this machine in a team-shared line,
"avoid the command" where the person said what was right, and a premise they corrected dropped.

The logs' shapes (a Claude Code edit refused at the prompt, a Codex `shell` call, a test runner's
connection error) are written here, not copied from anyone's logs.
"""

from __future__ import annotations

import pytest

from dreamtui.intake.corrections import corrects_premise, instruction
from dreamtui.intake.lessons import Friction, Source, ToolCall, build_memories, names_failure
from dreamtui.workspace.config import Config

_SOURCE = Source(name="test-agent", agent_id="test-agent", subagent_id="test-agent", key_prefix="t", label="Test")
_ROOT = "/home/dev/code/shop"


def _friction(kind: str, call: ToolCall, evidence: str, reason: str | None, cwd: str | None = _ROOT) -> Friction:
    return Friction(kind=kind, scope="s1", session_id="s1", record_uuids=[f"u-{kind}"], timestamp=None,
                    calls=[call], said=None, evidence=evidence, reason=reason, cwd=cwd)


@pytest.mark.parametrize(("kind", "call", "evidence", "reason"), [
    ("rejection", ToolCall("Edit", f"{_ROOT}/app/views.py", f"{_ROOT}/app/views.py"), "",
     "Keep views thin; logic goes in services/"),
    ("hook_block", ToolCall("Write", f"{_ROOT}/app/views.py", f"{_ROOT}/app/views.py"),
     "BLOCKED: generated files are read-only", None),
    ("interruption", ToolCall("Bash", f"python {_ROOT}/scripts/seed.py --all", None), "[Request interrupted by user]",
     "Stop, seed only the test database"),
    ("tool_error", ToolCall("Bash", f"cat {_ROOT}/app/settings.toml", None),
     "cat: settings.toml: Permission denied", "why is that file locked?"),
])
def test_a_path_inside_the_project_is_written_from_the_project_in_every_kind(
        kind: str, call: ToolCall, evidence: str, reason: str | None) -> None:
    [memory] = build_memories([_friction(kind, call, evidence, reason)], Config(), _SOURCE)
    assert _ROOT not in memory.title and _ROOT not in memory.content
    assert ("app/" in memory.content or "scripts/seed.py" in memory.content)
    # what the log said stays in the provenance
    assert memory.metadata["cwd"] == _ROOT


def test_the_first_line_of_a_refused_edit_names_the_file_from_the_project() -> None:
    call = ToolCall("Edit", f"{_ROOT}/server.py", f"{_ROOT}/server.py")
    [memory] = build_memories([_friction("rejection", call, "", "Routes go in routes/, not server.py")],
                              Config(), _SOURCE)
    assert memory.content.startswith("Do not edit `server.py`: the person rejected it")
    assert memory.metadata["file_path"] == f"{_ROOT}/server.py"


@pytest.mark.parametrize(("target", "shown"), [
    ("/home/dev/code/shop2/server.py", "/home/dev/code/shop2/server.py"),  # a sibling folder is outside
    ("/etc/hosts", "/etc/hosts"),
    (f"ls {_ROOT}", "ls ."),  # the project folder itself
    (f"ls -la {_ROOT}/", "ls -la ."),  # and with its separator, nothing under it
])
def test_paths_outside_the_project_stay_as_they_are(target: str, shown: str) -> None:
    [memory] = build_memories([_friction("rejection", ToolCall("Bash", target, None), "", "Not now, ask first")],
                              Config(), _SOURCE)
    assert f"`{shown}`" in memory.content


def test_a_windows_project_path_is_made_relative_whatever_its_slashes_and_case() -> None:
    call = ToolCall("Edit", r"c:\Users\Dev\Shop\src\app.ts", r"c:\Users\Dev\Shop\src\app.ts")
    [memory] = build_memories([_friction("rejection", call, "", "Keep app.ts small", cwd="C:/Users/dev/shop")],
                              Config(), _SOURCE)
    assert r"`src\app.ts`" in memory.content and "Users" not in memory.content


def test_a_correction_of_a_failed_call_leads_with_what_the_person_said_not_avoid_the_command() -> None:
    failed = _friction("tool_error", ToolCall("shell", "yarn test tests/", None), "Error: No tests found in tests/\n",
                       "No, the API tests live in packages/api/tests, not tests/.")
    [memory] = build_memories([failed], Config(), _SOURCE)
    first = memory.content.split("\n", 1)[0]
    assert first == ("The API tests live in packages/api/tests, not tests/ (the person said so when `yarn test` "
                     "failed here with “Error: No tests found in tests/”).")
    assert "Avoid" not in memory.content and "as done here" not in memory.content
    assert memory.title.startswith("The API tests live in packages/api/tests, not tests/ (")


def test_a_comment_that_corrects_nothing_keeps_the_failure_first() -> None:
    failed = _friction("tool_error", ToolCall("Bash", "make docs", None), "make: *** No rule to make target 'docs'.",
                       "why does make docs fail?")
    [memory] = build_memories([failed], Config(), _SOURCE)
    assert not memory.content.startswith("Why does make docs fail")


def test_a_machine_fact_the_person_answered_with_what_to_use_leads_with_their_words() -> None:
    failed = _friction("tool_error", ToolCall("Bash", "npm test", None), "sh: 1: npm: not found", "No, use pnpm here")
    [memory] = build_memories([failed], Config(), _SOURCE)
    assert memory.content.startswith("Use pnpm here (the person said so when `npm test` failed here")


@pytest.mark.parametrize(("text", "words"), [
    ("No, the API tests live in packages/api/tests, not tests/.",
     "The API tests live in packages/api/tests, not tests/."),
    ("Actually no, use pnpm", "Use pnpm"),
    ("No. Use pnpm instead.", "Use pnpm instead."),
    ("Don't delete node_modules.", "Don't delete node_modules."),
    ("No problem, carry on", "No problem, carry on"),  # no bare "No" to take off
    ("Nope.", "Nope."),  # nothing would be left
])
def test_an_instruction_is_the_words_without_a_bare_no(text: str, words: str) -> None:
    assert instruction(text) == words


_REFUSED = ("E   ConnectionRefusedError: [Errno 111] Connection refused: localhost:8080\n"
            "FAILED tests/test_health.py::test_health - ConnectionRefusedError\n1 failed in 0.12s")


@pytest.mark.parametrize(("text", "failed"), [
    ("The API runs on port 8040 locally, not 8080. Start it with `make api` first.",
     f"pytest -q tests/test_health.py\n{_REFUSED}"),
    ("The fixtures are in testdata/, not fixtures/.", "pytest tests\nFileNotFoundError: fixtures/users.json"),
    ("Routes go in routes/health.py, not server.py.", "Edit server.py\n"),
    ("It's pytest here, not unittest", "python -m unittest discover\nRan 0 tests"),  # a word the agent chose
])
def test_a_fact_set_against_the_one_a_failed_call_went_by_is_a_correction(text: str, failed: str) -> None:
    assert corrects_premise(text, failed)


@pytest.mark.parametrize(("text", "failed"), [
    # a new preference: "spaces" printed in the error is a prose word, not the call's value
    ("Use tabs, not spaces.", "npx prettier --check src\nerror: mixed spaces and tabs"),
    ("Use tabs, not spaces.", f"pytest -q\n{_REFUSED}"),
    ("Is it on 8040, not 8080?", f"pytest -q\n{_REFUSED}"),  # a question corrects nothing
    ("It should be 9000, not 8040", f"pytest -q\n{_REFUSED}"),  # the failure never went by 8040
    ("Do not run the build, not yet", "npm run build\nerror"),
])
def test_a_not_that_names_nothing_the_failure_went_by_is_no_correction(text: str, failed: str) -> None:
    assert not corrects_premise(text, failed)


def test_a_premise_corrected_after_a_failure_is_a_comment_on_it() -> None:
    text = "The API runs on port 8040 locally, not 8080. Start it with `make api` first."
    assert names_failure(text, "pytest -q tests/test_health.py", _REFUSED)
    assert not names_failure("Use tabs, not spaces.", "pytest -q tests/test_health.py", _REFUSED)


def test_a_premise_corrected_after_a_failure_leads_its_lesson() -> None:
    text = "The API runs on port 8040 locally, not 8080. Start it with `make api` first."
    failed = _friction("tool_error", ToolCall("Bash", "curl -s localhost:8080/health", None),
                       "curl: (7) Failed to connect to localhost port 8080: Connection refused", text)
    [memory] = build_memories([failed], Config(), _SOURCE)
    assert memory.content.startswith("The API runs on port 8040 locally, not 8080. Start it with `make api` first "
                                     "(the person said so when `curl` failed")


def test_a_step_into_the_project_folder_is_left_out_of_the_call() -> None:
    call = ToolCall("Bash", f'cd "{_ROOT}" && git push origin main', None)
    [memory] = build_memories([_friction("rejection", call, "", "Never push to main, open a PR")], Config(), _SOURCE)
    assert "(rejected: run `git push origin main`)" in memory.title
    assert "cd" not in memory.content.split("\n", 1)[0]


def test_a_report_that_it_still_fails_is_no_instruction_to_lead_the_first_line() -> None:
    failed = _friction("tool_error", ToolCall("Bash", "./build.sh", None), "E: Unable to locate package zfs-dkms",
                       "Still says build standard")
    [memory] = build_memories([failed], Config(), _SOURCE)
    assert not memory.content.startswith("Still says build standard")
