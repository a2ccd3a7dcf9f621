"""The lessons mined from Claude Code logs in the shapes real sessions have (versions 2.1.38 to
2.1.2xx): refusals at the prompt and Escs with the person's next turn as the reason, plan
rejections, clarifications, corrections in any language or conceded by the agent, tool errors
worth a lesson, workflow subagents, resumed-session replays, the project check, `cwd` past a long
first record, hooks outside tool results, `--since` by event time, and the lesson's own shape.

Every log here is written by `_Log`, reproducing the records Claude Code writes (field names and
texts as in real logs; the people, paths and commands are made up).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dreamtui.intake.claude_code import discovery
from dreamtui.intake.claude_code.discovery import find_logs, first_cwd
from dreamtui.intake.claude_code.importer import ImportOptions, ImportReport, import_logs
from dreamtui.intake.claude_code.rules import Signals, classify_tool_error
from dreamtui.intake.corrections import (
    acknowledges_mistake,
    correction_rule,
    disowned,
    lesson,
    only_asks,
    pasted_log,
    redirects,
)
from dreamtui.intake.lessons import (
    command_head,
    error_lines,
    person_words,
    strip_ansi,
)
from dreamtui.model import NewMemory
from dreamtui.workspace.layout import Workspace, open_workspace

PROJECT = "/home/u/shop"
SLUG = "-home-u-shop"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
            "it was a file edit, the new_string was NOT written to the file). STOP what you are "
            "doing and wait for the user to tell you how to proceed.")
MARKER = "[Request interrupted by user for tool use]"


class _Log:
    """One session log written the way Claude Code writes it: one content block per record."""

    def __init__(self, session: str, *, cwd: str = PROJECT, mode: str = "default",
                 entrypoint: str = "cli", sidechain: bool = False, start: int = 0) -> None:
        self.session, self.cwd, self.mode, self.entrypoint = session, cwd, mode, entrypoint
        self.sidechain = sidechain
        self.count = start
        self.records: list[dict[str, Any]] = []

    def _base(self, kind: str, uuid: str | None = None) -> dict[str, Any]:
        self.count += 1
        return {"parentUuid": None, "isSidechain": self.sidechain, "userType": "external",
                "cwd": self.cwd, "sessionId": self.session, "version": "2.1.68",
                "entrypoint": self.entrypoint, "type": kind,
                "uuid": uuid or f"{self.session[:8]}-{self.count:04d}",
                "timestamp": f"2026-11-02T10:{self.count // 60:02d}:{self.count % 60:02d}.000Z"}

    def typed(self, text: str, **extra: Any) -> _Log:
        record = self._base("user")
        record.update(permissionMode=self.mode, message={"role": "user", "content": text}, **extra)
        self.records.append(record)
        return self

    def marker(self, text: str = MARKER) -> _Log:
        record = self._base("user")
        record["message"] = {"role": "user", "content": [{"type": "text", "text": text}]}
        self.records.append(record)
        return self

    def says(self, text: str) -> _Log:
        record = self._base("assistant")
        record["message"] = {"id": f"msg_{self.count}", "role": "assistant",
                             "content": [{"type": "text", "text": text}]}
        self.records.append(record)
        return self

    def calls(self, name: str, **data: Any) -> str:
        record = self._base("assistant")
        tool_id = f"toolu_{self.session.replace('-', '')}{self.count:04d}"  # unique, as real ids are
        record["message"] = {"id": f"msg_{self.count}", "role": "assistant", "content": [
            {"type": "tool_use", "id": tool_id, "name": name, "input": data}]}
        self.records.append(record)
        return tool_id

    def result(self, tool_id: str, content: str, error: bool = False, **extra: Any) -> _Log:
        record = self._base("user")
        record["message"] = {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": error}]}
        record["toolUseResult"] = f"Error: {content}" if error else {"stdout": content}
        record.update(extra)
        self.records.append(record)
        return self

    def refused(self, tool_id: str, **extra: Any) -> _Log:
        return self.result(tool_id, REJECTED, True, toolUseResult="User rejected tool use", **extra)

    def attachment(self, **attachment: Any) -> _Log:
        record = self._base("attachment")
        record["attachment"] = attachment
        self.records.append(record)
        return self

    def hook_ran(self, tool_id: str, hook: str = "PreToolUse:Bash") -> _Log:
        record = self._base("progress")
        record.update(data={"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": hook,
                            "command": "~/.claude/hooks/guard.sh"},
                      toolUseID=tool_id, parentToolUseID=tool_id)
        self.records.append(record)
        return self

    def system(self, subtype: str, content: str) -> _Log:
        record = self._base("system")
        record.update(subtype=subtype, content=content, level="info")
        self.records.append(record)
        return self

    def raw(self, record: dict[str, Any]) -> _Log:
        self.records.append(record)
        return self

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records),
                        encoding="utf-8")
        return path


def _age(root: Path, seconds: float = 86_400) -> None:
    moment = time.time() - seconds
    for path in root.rglob("*.jsonl"):
        os.utime(path, (moment, moment))


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "dreamtui.yaml").write_text("version: 1\n", encoding="utf-8")
    return open_workspace(root)


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    return tmp_path / "projects"


def _import(workspace: Workspace, projects: Path, project: str = PROJECT,
            **options: Any) -> ImportReport:
    _age(projects)
    return import_logs(workspace, ImportOptions(projects_dir=projects, project=project, **options))


def _mined(workspace: Workspace, projects: Path, *logs: _Log) -> list[NewMemory]:
    for log in logs:
        log.write(projects / SLUG / f"{log.session}.jsonl")
    return _import(workspace, projects, dry_run=True).memories


def _kinds(memories: list[NewMemory]) -> list[str]:
    return [m.metadata["kind"] for m in memories]


# -- 1. refusals and Escs, with the reason the person typed next ------------------------------


def test_a_refusal_at_the_prompt_takes_the_next_typed_turn_as_its_reason(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("a1a1a1a1-0000-4000-8000-000000000001")
    log.typed("Set up the database for the tests")
    bash = log.calls("Bash", command="mkdir -p /tmp/shop-db && initdb /tmp/shop-db")
    log.refused(bash).marker()
    log.typed("Do not use /tmp; keep files within the project's .claude dir")
    log.says("Understood, I will use .claude/db instead.")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "rejection" and memory.type == "failure"
    assert memory.metadata["reason"] == "Do not use /tmp; keep files within the project's .claude dir"
    assert memory.title.startswith("Do not use /tmp; keep files within the project's .claude dir "
                                   "(rejected: run `mkdir -p /tmp/shop-db")
    first = memory.content.splitlines()[0]
    assert first.startswith("Do not run `mkdir -p /tmp/shop-db && initdb /tmp/shop-db`: the "
                            "person rejected it at the permission prompt and said “Do not use /tmp")
    # provenance in metadata, none of it in the title or the first line
    assert log.session not in memory.title + first
    assert memory.metadata["session_id"] == log.session
    assert memory.metadata["record_uuids"] == ["a1a1a1a1-0003"]
    assert memory.metadata["timestamp"] == "2026-11-02T10:00:03.000Z"
    assert memory.metadata["log"] == f"{SLUG}/{log.session}.jsonl"


def test_the_reason_typed_into_the_result_is_kept_and_the_next_turn_is_free(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("a2a2a2a2-0000-4000-8000-000000000002")
    log.typed("Clean up")
    bash = log.calls("Bash", command="rm -rf node_modules")
    log.result(bash, REJECTED.split(" STOP")[0] + " To tell you how to proceed, the user said:\n"
               "keep node_modules, only delete dist", True)
    log.says("OK, deleting dist only.")
    log.typed("no, leave dist alone too")
    kinds = _kinds(_mined(workspace, projects, log))
    assert sorted(kinds) == ["correction", "rejection"]


def test_the_reason_after_claude_codes_newer_phrase_is_kept(workspace: Workspace,
                                                           projects: Path) -> None:
    log = _Log("a2a2a2a2-0000-4000-8000-000000000003")
    log.typed("Clean up")
    bash = log.calls("Bash", command="rm -rf node_modules")
    log.result(bash, REJECTED.split(" STOP")[0] + " The user provided the following reason for "
               "the rejection:  keep node_modules, only delete dist", True,
               toolUseResult="User rejected tool use")
    memories = _mined(workspace, projects, log)
    assert [(m.metadata["kind"], m.metadata.get("reason")) for m in memories] == [
        ("rejection", "keep node_modules, only delete dist")]


def test_windows_logs_are_found_whichever_case_the_drive_letter_was_typed(
        workspace: Workspace, projects: Path) -> None:
    project = "C:\\Users\\me\\shop"
    for n, (folder, cwd) in enumerate([("C--Users-me-shop", "C:\\Users\\me\\shop"),
                                       ("c--Users-me-shop", "c:\\Users\\me\\shop\\web")]):
        # two sessions, typed at different times (the same words at the same time are one turn)
        log = _Log(f"b{n}b{n}b{n}b{n}-0000-4000-8000-000000000001", cwd=cwd, start=50 * n)
        log.typed("Deploy")
        log.refused(log.calls("Bash", command="git push --force"))
        log.typed("never force push")
        log.write(projects / folder / f"{log.session}.jsonl")
    report = _import(workspace, projects, project=project, dry_run=True)
    assert (len(report.memories), report.other_project) == (2, 0)


def test_an_esc_in_bypass_mode_over_parallel_calls_is_one_interruption_with_its_reason(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("a3a3a3a3-0000-4000-8000-000000000003", mode="bypassPermissions")
    log.typed("the server does not start")
    first = log.calls("Bash", command="mix phx.server 2>&1 | head -80")
    second = log.calls("Glob", pattern="config/*.exs")
    log.refused(first).refused(second).marker()
    log.typed("it is already running in tmux, read its log instead")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "interruption"  # no prompt in this mode: the Esc key
    assert memory.metadata["reason"] == "it is already running in tmux, read its log instead"
    assert memory.title.startswith("It is already running in tmux, read its log instead "
                                   "(interrupted: run `mix phx.server")
    assert "The agent had called: Bash mix phx.server 2>&1 | head -80; Glob config/*.exs" \
        in memory.content
    assert len(memory.metadata["record_uuids"]) == 2


def test_an_esc_with_no_reason_is_no_lesson_and_toolDenialKind_is_read(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("a4a4a4a4-0000-4000-8000-000000000004")
    log.typed("run the suite")
    bash = log.calls("Bash", command="pytest -x")
    log.result(bash, MARKER, True, toolDenialKind="interrupted").marker()
    log.typed("<task-notification>\n<status>completed</status>\n</task-notification>")
    log.says("The background task finished.")
    fetch = log.calls("Bash", command="curl -s https://internal.example/api")
    log.result(fetch, "Permission for this action was denied.", True, toolDenialKind="classifier")
    assert _kinds(_mined(workspace, projects, log)) == ["denial"]


def test_each_rejected_plan_is_its_own_lesson_and_quotes_the_plan(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("a5a5a5a5-0000-4000-8000-000000000005", mode="plan")
    log.typed("plan the migration to the new payments API")
    for plan, reason in (("# Migrate payments\n1. Drop the old tables\n2. Import", "keep the old "
                          "tables until the import is verified"),
                         ("# Migrate payments\n1. Rename the old tables\n2. Import", "write the "
                          "import as a reversible migration")):
        tool = log.calls("ExitPlanMode", plan=plan)
        log.refused(tool).marker()
        log.typed(reason)
    memories = _mined(workspace, projects, log)
    assert _kinds(memories) == ["plan_rejection", "plan_rejection"]
    keep, write = memories
    assert keep.title == "Keep the old tables until the import is verified (plan rejected)"
    assert "The plan: “# Migrate payments\n1. Drop the old tables\n2. Import”" in keep.content
    assert "Rename the old tables" in write.content


def test_a_refused_question_is_a_clarification_with_the_persons_words(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("a6a6a6a6-0000-4000-8000-000000000006")
    log.typed("add caching")
    ask = log.calls("AskUserQuestion", questions=[{"question": "Redis or in-process?",
                                                    "header": "Cache", "options": []}])
    log.refused(ask).marker()
    log.attachment(type="queued_command", prompt="we have no Redis in production")
    log.typed("use functools.lru_cache for now")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "clarification" and memory.type == "observation"
    assert memory.metadata["reason"] == ("we have no Redis in production\n"
                                         "use functools.lru_cache for now")
    assert "Redis or in-process?" in memory.content


# -- 2. corrections people write ------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "why did you miss Qwen 3?",
    "did you actually test it?",
    "Why are you still editing the generated client?",
    "no verify them 1 by 1",
    "ultrathink no, the port is 5433",
    "you forgot the migration",
    "it still fails with the same error",
    "不要重复进行同样的测试",
    "不对，应该用 pnpm",
    "为什么又改了配置文件？",
    "可以,后续你自动完成,无需询问,决策都采用你认为最好的",
    "ok go ahead, and stop asking me before each step",
])
def test_corrections_in_the_shapes_people_write(text: str) -> None:
    assert correction_rule(text) is not None


@pytest.mark.parametrize("text", [
    "did you push?",  # a question, not a challenge
    "no worries, take your time",
    "no need to rush",
    "what does this function do?",
    "继续",
    "可以,后续你自动完成",
    "ask me if the schema is unclear",
    "so no one calls this endpoint anymore?",
    "no longer needed, thanks",
])
def test_ordinary_turns_are_not_corrections(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("reply", "conceded"), [
    ("You're absolutely right — I skipped the integration tests.", True),
    ("My mistake, the flag is --frozen-lockfile.", True),
    ("你说得对，我漏掉了 Qwen 3。", True),
    ("I apologize for the confusion.", True),
    ("Sure, here is the summary.", False),
    ("Right now the build takes 4 minutes.", False),
])
def test_the_agent_conceding_a_mistake(reply: str, conceded: bool) -> None:
    assert acknowledges_mistake(reply) is conceded


def test_a_turn_the_agent_concedes_is_a_correction_quoting_both(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("b1b1b1b1-0000-4000-8000-000000000001")
    log.typed("list the open models we support")
    log.result(log.calls("Read", file_path=f"{PROJECT}/models.yaml"), "1\tllama")
    log.says("We support Llama and Mistral.")
    log.typed("Qwen 3 is in the yaml too")
    log.says("You're absolutely right, I missed Qwen 3 in models.yaml.")
    log.typed("thanks, now add a test")
    log.says("Added the test.")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "correction" and memory.metadata["rule"] == "acknowledged"
    assert memory.title == "Qwen 3 is in the yaml too"
    assert "The agent replied: “You're absolutely right, I missed Qwen 3" in memory.content
    assert "The agent had just called: Read models.yaml" in memory.content  # from the project


def test_hook_output_notifications_pasted_logs_and_sdk_sessions_are_not_the_person(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("b2b2b2b2-0000-4000-8000-000000000002")
    log.typed("fix the flaky test")
    log.result(log.calls("Bash", command="pytest tests/test_api.py"), "1 passed")
    log.says("Fixed.")
    log.typed("Stop hook feedback:\nno, the lint step failed: ruff found 3 errors")
    log.says("Sorry, fixing the lint errors now.")
    log.typed("<task-notification>\n<status>failed</status>\n</task-notification>")
    log.says("I apologize, the background run failed.")
    log.typed("2026-11-02 10:01:02 ERROR worker crashed\n  File \"app.py\", line 3")
    log.says("You're right, the worker crashes on start.")
    sdk = _Log("b3b3b3b3-0000-4000-8000-000000000003", entrypoint="sdk-cli")
    sdk.typed("summarise the session")
    sdk.says("Done.")
    sdk.typed("no, use the observation format")
    sdk.says("You're absolutely right.")
    assert _mined(workspace, projects, log, sdk) == []


def test_an_sdk_session_with_a_slash_command_typed_is_a_persons(workspace: Workspace,
                                                               projects: Path) -> None:
    # An IDE driving Claude Code through the Agent SDK writes `entrypoint: sdk-ts` on every
    # record; a program sends prompts, never "/model", so after one the turns are a person's.
    ide = _Log("b4b4b4b4-0000-4000-8000-000000000004", entrypoint="sdk-ts")
    ide.typed("<command-name>/model</command-name>\n<command-message>model</command-message>")
    ide.typed("<local-command-stdout>Set model to opus</local-command-stdout>")
    ide.typed("add the show commands to both prompts")
    ide.result(ide.calls("Edit", file_path=f"{PROJECT}/prompts.py"), "The file has been updated.")
    ide.says("Done. Both prompts list the show commands.")
    ide.typed("Actually remove the list from the system prompt and keep it in the other one.")
    ide.says("Removing it.")
    [memory] = _mined(workspace, projects, ide)
    assert memory.metadata["kind"] == "correction" and memory.metadata["tool"] == "Edit"
    assert memory.title == "Actually remove the list from the system prompt and keep it in the other one."


# -- 3. tool errors worth a lesson ----------------------------------------------------------


def test_only_tool_errors_that_teach_something_are_kept(workspace: Workspace, projects: Path) -> None:
    log = _Log("c1c1c1c1-0000-4000-8000-000000000001")
    log.typed("get the emulator rooted")
    log.result(log.calls("Read", file_path=f"{PROJECT}/missing.md"),
               "<tool_use_error>File does not exist.</tool_use_error>", True)  # exploring
    log.result(log.calls("Edit", file_path=f"{PROJECT}/a.py"),
               "<tool_use_error>String to replace not found in file.</tool_use_error>", True)
    log.result(log.calls("Bash", command="pytest -q"), "Exit code 1\n1 failed", True)
    log.result(log.calls("Bash", command="pytest -q"), "3 passed")  # the agent got past it
    log.result(log.calls("Bash", command="adb shell su -c id"),
               "Exit code 127\n/system/bin/sh: su: inaccessible or not found", True)  # environment
    for _ in range(2):  # failed twice, never got past
        log.result(log.calls("Bash", command="adb root"),
                   "Exit code 1\n\x1b[31madbd cannot run as root in production builds\x1b[0m", True)
    log.says("adb root does not work on this image.")
    log.result(log.calls("Bash", command="make flash"), "Exit code 2\nmake: *** [flash] Error 1",
               True)
    log.says("The flash target failed.")
    log.typed("make flash needs the device in fastboot mode first")  # the person comments
    memories = {m.metadata["tool"] + " " + m.content.splitlines()[1]: m
                for m in _mined(workspace, projects, log)}
    whys = sorted(m.metadata["why"] for m in memories.values())
    assert whys == ["an environment fact", "the person commented on it",
                    "the same call failed 2 times and the agent did not get past it"]
    assert all(m.metadata["kind"] == "tool_error" for m in memories.values())
    root = next(m for m in memories.values() if "adb root" in m.content)
    assert "\x1b" not in root.title + root.content
    assert "adbd cannot run as root in production builds" in root.title
    flash = next(m for m in memories.values() if "make flash" in m.content)
    assert "The person then said: “make flash needs the device in fastboot mode first”" in flash.content


def test_a_tool_error_recurring_in_another_session_is_kept(workspace: Workspace,
                                                            projects: Path) -> None:
    logs = []
    for n in range(2):
        log = _Log(f"c2c2c2c{n}-0000-4000-8000-00000000000{n}")
        log.typed("deploy")
        log.result(log.calls("Bash", command="./deploy.sh staging"),
                   f"Exit code 1\nerror: could not connect to vault at 10.0.0.{n}:8200", True)
        log.result(log.calls("Bash", command="./deploy.sh staging"), "ok")
        logs.append(log)
    once = _Log("c2c2c2c9-0000-4000-8000-000000000009")
    once.typed("deploy")
    once.result(once.calls("Bash", command="./build.sh"), "Exit code 1\nerror: disk quota", True)
    once.result(once.calls("Bash", command="./build.sh"), "ok")
    memories = _mined(workspace, projects, *logs, once)
    # One cause, one memory across the sessions: the vault's address differs, the error does not.
    assert len(memories) == 1
    assert memories[0].metadata["why"] == "the same error occurred in 2 sessions"
    assert memories[0].metadata["occurrences"] == 2
    assert "Seen 2 times in 2 sessions" in memories[0].content


def test_error_lines_are_preferred_and_ansi_is_stripped() -> None:
    text = ("Exit code 1\n\x1b[2mCompiling 40 files\x1b[0m\n[===    ] 25%\r[=====  ] 50%\n"
            "\x1b[31merror:\x1b[0m could not resolve \"js/app.js\"\nDone in 2s")
    assert error_lines(text, 200) == 'Exit code 1\nerror: could not resolve "js/app.js"'
    assert strip_ansi("\x1b]0;title\x07\x1b[1;32mok\x1b[0m") == "ok"


# -- 4. the records of the wild -------------------------------------------------------------


def test_workflow_subagent_logs_and_their_journal_are_read(workspace: Workspace,
                                                           projects: Path) -> None:
    session = "d1d1d1d1-0000-4000-8000-000000000001"
    _Log(session).typed("build it").says("Starting a workflow.").write(
        projects / SLUG / f"{session}.jsonl")
    workflow = projects / SLUG / session / "subagents" / "workflows" / "wf_9cab1d1d-783"
    agent = _Log(session, sidechain=True)
    agent.records.append({"type": "user", "isSidechain": True, "agentId": "a4c69c8",
                          "uuid": "wf-0001", "timestamp": "2026-11-02T10:00:00.000Z",
                          "message": {"role": "user", "content": "Explore the SDK images"}})
    tool = agent.calls("Bash", command="sdkmanager --install 'system-images;android-36'")
    agent.result(tool, "Exit code 127\nbash: sdkmanager: command not found", True)
    for record in agent.records:
        record.pop("cwd", None)  # workflow agents' records carry no cwd
    agent.write(workflow / "agent-a4c69c858dab2afd6.jsonl")
    (workflow / "journal.jsonl").write_text("", encoding="utf-8")
    assert len(find_logs(projects, PROJECT)) == 3
    report = _import(workspace, projects, dry_run=True)
    [memory] = report.memories
    assert memory.agent_id == "claude-code/subagent" and memory.metadata["sidechain"] is True
    # A tool error's key is the error's, in any log (one cause, one memory); its log is kept.
    assert str(memory.metadata["log"]).endswith(
        f"{session}/subagents/workflows/wf_9cab1d1d-783/agent-a4c69c858dab2afd6.jsonl")


def _resumed(original: _Log, session: str) -> _Log:
    """A resumed session: the earlier records (same uuids) replayed into a new file, then more."""
    copy = _Log(session, start=100)
    copy.records = [{**r, "sessionId": session} for r in original.records]
    return copy


def test_a_resumed_session_stores_no_record_twice(workspace: Workspace, projects: Path) -> None:
    first = _Log("e1e1e1e1-0000-4000-8000-000000000001")
    first.typed("migrate")
    first.refused(first.calls("Bash", command="dropdb shop")).marker()
    first.typed("never drop the database, it holds the only copy")
    first.write(projects / SLUG / f"{first.session}.jsonl")
    assert _import(workspace, projects).inserted == 1
    second = _resumed(first, "e2e2e2e2-0000-4000-8000-000000000002")
    second.says("Resuming.")
    second.refused(second.calls("Bash", command="rm -rf media/")).marker()
    second.typed("media/ is user uploads, keep it")
    second.write(projects / SLUG / f"{second.session}.jsonl")
    _age(projects, 3600)  # newer than the first
    os.utime(projects / SLUG / f"{first.session}.jsonl", (time.time() - 7200,) * 2)
    report = import_logs(workspace, ImportOptions(projects_dir=projects, project=PROJECT))
    assert (report.inserted, report.replayed) == (1, 1)
    # both files new to another workspace, in one import: the older file keeps the record
    other_root = workspace.root.parent / "ws2"
    other_root.mkdir()
    (other_root / "dreamtui.yaml").write_text("", encoding="utf-8")
    other = open_workspace(other_root)
    again = import_logs(other, ImportOptions(projects_dir=projects, project=PROJECT))
    assert (again.inserted, again.replayed) == (2, 1)
    uuids = [u for m in again.memories for u in m.metadata["record_uuids"]]
    assert len(uuids) == len(set(uuids))


def _chained(log: _Log) -> _Log:
    """Each record's parent is the record before it, as Claude Code writes a conversation."""
    for before, record in zip([None, *log.records], log.records, strict=False):
        record["parentUuid"] = before["uuid"] if before else None
    return log


def _recorded_again(original: _Log, into: _Log, at: str) -> _Log:
    """A resume (Claude Code 2.0) recording the history again into `into`, its own file or
    another: fresh uuids, the resume's time on every record, the agent's message ids and the
    tool_use ids kept, and an IDE tag split from its turn into a record of its own; the copy
    starts a chain of its own (its first record has no parent)."""
    start = len(into.records)
    for record in list(original.records):
        into.count += 1
        copy = {**record, "uuid": f"{into.session[:8]}-again-{into.count:04d}", "timestamp": at,
                "sessionId": into.session}
        content = copy.get("message", {}).get("content")
        if copy["type"] == "user" and isinstance(content, list) and len(content) == 2 and \
                all(b.get("type") == "text" for b in content):
            tag = {**copy, "uuid": copy["uuid"] + "-ide", "message": {"role": "user",
                                                                      "content": [content[0]]}}
            into.records.append(tag)
            copy["message"] = {"role": "user", "content": [content[1]]}
        into.records.append(copy)
    _chained(into).records[start]["parentUuid"] = None
    return into


def _conversation(session: str) -> _Log:
    log = _Log(session)
    log.typed("speed up the budget sync")
    log.says("I'll add a /sync endpoint that returns every table.")
    log.result(log.calls("Edit", file_path="app/sync.rb"), "The file app/sync.rb has been updated.")
    log.says("Done: the new /sync endpoint returns every table in one call.")
    log.raw({**log._base("user"), "message": {"role": "user", "content": [
        {"type": "text", "text": "<ide_selection>The user selected the lines 25 to 26 from "
                                 "app/sync.rb:\nget_budgets_for_response\n</ide_selection>"},
        {"type": "text", "text": "No, keep using the existing get_*_for_response functions, "
                                 "not a new endpoint"}]}})
    log.says("Understood, I will reuse get_budgets_for_response.")
    log.refused(log.calls("Edit", file_path="app/models/budget.rb")).marker()
    log.typed("don't touch the models, only the controller")
    log.result(log.calls("Bash", command="bin/rails test test/sync_test.rb"),
               "Exit code 1\nerror: relation budgets_sync does not exist", True)
    return _chained(log)


def _lessons(memories: list[NewMemory]) -> list[tuple[str, int]]:
    return sorted((m.metadata["kind"], m.metadata["occurrences"]) for m in memories)


def test_a_resume_recording_events_again_in_its_file_stores_each_once(workspace: Workspace,
                                                                      projects: Path) -> None:
    """The same correction, refusal and failed call recorded again under new uuids (and the
    IDE tag of the turn in a record of its own) are the same events: one memory each, counted
    once, and one failure is no call that "failed twice"."""
    log = _conversation("a7a7a7a7-0000-4000-8000-000000000001")
    _recorded_again(log, log, "2026-11-02T11:30:00.000Z")
    log.typed("now add a test for the controller")
    memories = _mined(workspace, projects, log)
    assert _lessons(memories) == [("correction", 1), ("rejection", 1)]
    [refusal] = [m for m in memories if m.metadata["kind"] == "rejection"]
    assert refusal.metadata["reason"] == "don't touch the models, only the controller"
    assert all("-again-" not in u for m in memories for u in m.metadata["record_uuids"])


def test_a_resume_recording_events_again_in_another_file_stores_each_once(
        workspace: Workspace, projects: Path) -> None:
    first = _conversation("a8a8a8a8-0000-4000-8000-000000000001")
    first.write(projects / SLUG / f"{first.session}.jsonl")
    os.utime(projects / SLUG / f"{first.session}.jsonl", (time.time() - 7200,) * 2)
    second = _recorded_again(first, _Log("a8a8a8a8-0000-4000-8000-000000000002"),
                             "2026-11-03T09:00:00.000Z")
    second.says("Resuming.").typed("now add a test for the controller")
    path = second.write(projects / SLUG / f"{second.session}.jsonl")
    os.utime(path, (time.time() - 3600,) * 2)  # newer than the first
    report = import_logs(workspace, ImportOptions(projects_dir=projects, project=PROJECT))
    assert _lessons(report.memories) == [("correction", 1), ("rejection", 1)]
    assert {m.metadata["session_id"] for m in report.memories} == {first.session}
    assert report.replayed == 3  # the correction, the refusal, the failed call


def test_a_resume_in_another_file_imported_later_stores_nothing_again(workspace: Workspace,
                                                                     projects: Path) -> None:
    """Across imports: the events an earlier import stored are kept in its logs' state."""
    first = _conversation("a6a6a6a6-0000-4000-8000-000000000001")
    first.write(projects / SLUG / f"{first.session}.jsonl")
    assert _import(workspace, projects).inserted == 2
    second = _recorded_again(first, _Log("a6a6a6a6-0000-4000-8000-000000000002"),
                             "2026-11-03T09:00:00.000Z")
    second.says("Resuming.")
    second.refused(second.calls("Bash", command="rm -rf media/")).marker()
    second.typed("media/ is user uploads, keep it")
    second.write(projects / SLUG / f"{second.session}.jsonl")
    report = _import(workspace, projects)
    assert (report.inserted, report.recounted, report.replayed) == (1, 0, 3)
    [memory] = report.memories
    assert memory.metadata["reason"] == "media/ is user uploads, keep it"


def test_an_appended_resume_recording_events_again_stores_nothing_new(workspace: Workspace,
                                                                      projects: Path) -> None:
    """Incremental: the copy appended after an import is known from the log's import state."""
    log = _conversation("a9a9a9a9-0000-4000-8000-000000000001")
    path = log.write(projects / SLUG / f"{log.session}.jsonl")
    assert _import(workspace, projects).inserted == 2
    replay = _recorded_again(log, _Log(log.session, start=500), "2026-11-02T11:30:00.000Z")
    replay.records[0]["parentUuid"] = log.records[-1]["uuid"]
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in replay.records))
    report = _import(workspace, projects)
    # the copies are known as such where they are read (the log's state keeps its events)
    assert (report.read, report.frictions, report.inserted, report.recounted) == (1, 0, 0, 0)


def test_the_project_check_applies_to_logs_an_earlier_import_read(workspace: Workspace,
                                                                  projects: Path) -> None:
    web = _Log("f1f1f1f1-0000-4000-8000-000000000001", cwd="/home/u/shop-web")
    web.typed("style it")
    web.refused(web.calls("Bash", command="npm i tailwind")).marker()
    web.typed("we use plain CSS")
    web.write(projects / "-home-u-shop-web" / f"{web.session}.jsonl")
    assert _import(workspace, projects, project="/home/u/shop-web").inserted == 1
    # /home/u/shop is a prefix of /home/u/shop-web and its slug folder matches -home-u-shop-*
    report = _import(workspace, projects, project=PROJECT)
    assert (report.other_project, report.read, report.unchanged) == (1, 0, 0)


def test_cwd_is_found_after_a_first_prompt_of_any_length(workspace: Workspace,
                                                         projects: Path) -> None:
    log = _Log("f2f2f2f2-0000-4000-8000-000000000002", cwd="/home/u/shop-admin")
    log.typed("x" * 400_000)
    first = log.records[0]
    log.records[0] = {k: first[k] for k in ("type", "message", "uuid", "timestamp")} | {
        "cwd": first["cwd"], "sessionId": first["sessionId"]}  # 2.1.167: cwd after message
    path = log.write(projects / "-home-u-shop-admin" / f"{log.session}.jsonl")
    assert first_cwd(path) == "/home/u/shop-admin"
    report = _import(workspace, projects, project=PROJECT, dry_run=True)
    assert report.other_project == 1  # /home/u/shop-admin is not inside /home/u/shop


def test_hooks_are_read_from_progress_system_and_attachment_records(workspace: Workspace,
                                                                    projects: Path) -> None:
    log = _Log("f3f3f3f3-0000-4000-8000-000000000003")
    log.typed("commit it")
    commit = log.calls("Bash", command="git commit -am 'wip'")
    log.hook_ran(commit)
    # the hook printed its newlines escaped, as a real pre-commit gate did
    log.result(commit, "Pre-commit validation failed:\\n\\n[FORMAT] Run 'mix format' to fix.", True)
    edit = log.calls("Edit", file_path=f"{PROJECT}/.env")
    log.hook_ran(edit, "PreToolUse:Edit")
    log.result(edit, "<tool_use_error>File has not been read yet.</tool_use_error>", True)
    log.system("informational", "PreToolUse:Write hook blocked: writes outside src/ are denied")
    log.attachment(type="hook_blocking_error", hookName="PreToolUse:Bash",
                   blockingError={"blockingError": "Blocked by hook: use rg, not grep -r",
                                  "command": "~/.claude/hooks/search-gate.sh"})
    memories = _mined(workspace, projects, log)
    assert _kinds(memories) == ["hook_block", "hook_block", "hook_block"]
    titles = [m.title for m in memories]
    assert titles[0] == "A hook blocks `git commit`: Pre-commit validation failed: [FORMAT] Run 'mix format' to fix."
    assert "use rg, not grep -r" in titles[2]
    assert "\\n" not in memories[0].content


def test_since_is_the_time_of_each_event(workspace: Workspace, projects: Path) -> None:
    log = _Log("f4f4f4f4-0000-4000-8000-000000000004")
    log.typed("go")
    log.refused(log.calls("Bash", command="git push -f")).marker()
    log.typed("never force-push")
    log.refused(log.calls("Bash", command="git reset --hard")).marker()
    log.typed("keep my local changes")
    log.write(projects / SLUG / f"{log.session}.jsonl")
    since = datetime(2026, 11, 2, 10, 0, 7, tzinfo=UTC)  # between the two refusals
    report = _import(workspace, projects, since=since, dry_run=True)
    assert report.too_old == 0  # the file was written to after --since: read, events filtered
    assert [m.metadata["reason"] for m in report.memories] == ["keep my local changes"]
    assert report.before_since == 1


def _lines(memories: list[NewMemory]) -> Iterator[str]:
    for memory in memories:
        yield memory.title
        yield memory.content.splitlines()[0]


def test_every_memory_is_a_lesson_without_provenance_in_its_words(workspace: Workspace,
                                                                   projects: Path) -> None:
    log = _Log("f5f5f5f5-0000-4000-8000-000000000005")
    log.typed("ship it")
    log.refused(log.calls("Bash", command="npm publish")).marker()
    log.typed("publishing happens in CI only")
    log.says("Done")
    log.typed("don't bump the version by hand")
    for line in _lines(_mined(workspace, projects, log)):
        assert not line.startswith("Claude Code session")
        assert log.session not in line and PROJECT not in line


def test_a_tool_error_recurring_in_a_later_import_is_kept(workspace: Workspace,
                                                          projects: Path) -> None:
    def pushed(session: str, branch: str) -> _Log:
        log = _Log(session)
        log.typed("push it")
        log.result(log.calls("Bash", command="git push 2>&1"),
                   f"Exit code 128\nfatal: The current branch {branch} has no upstream branch.",
                   True)
        log.result(log.calls("Bash", command=f"git push -u origin {branch}"), "done")
        log.write(projects / SLUG / f"{session}.jsonl")
        return log

    pushed("c3c3c3c1-0000-4000-8000-000000000001", "shop-dov")
    first = _import(workspace, projects)
    assert (first.inserted, first.single_errors) == (0, 1)
    pushed("c3c3c3c2-0000-4000-8000-000000000002", "shop-fum")
    second = _import(workspace, projects)
    [memory] = second.memories
    assert second.inserted == 1 and memory.metadata["session_id"].startswith("c3c3c3c2")
    assert memory.metadata["why"] == "the same error occurred in 2 sessions"
    assert "has no upstream branch" in memory.title


@pytest.mark.parametrize(("command", "head"), [
    ('adb -s emulator-5554 shell "su -c id" 2>&1', "adb shell"),
    ("git push 2>&1", "git push"),
    ("cd /tmp/ramdisk && cpio -i < ramdisk.cpio", "cpio"),
    ("export ANDROID_HOME=/sdk && export PATH=$ANDROID_HOME/bin:$PATH && sdkmanager --list",
     "sdkmanager"),
    ("# Try the mirrors\nfor url in a b; do curl -f $url; done", "for url"),
    ("PGPASSWORD=x psql -h db", "psql"),
    ("git -C repo status", "git status"),
])
def test_a_command_is_named_by_its_head(command: str, head: str) -> None:
    assert command_head(command) == head


def test_retries_of_the_same_command_are_stuck_other_attempts_are_exploring(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("c4c4c4c4-0000-4000-8000-000000000004")
    log.typed("find the su binary")
    for path in ("/system/xbin/su", "/sbin/su", "/system/bin/su"):  # three different looks
        log.result(log.calls("Bash", command=f'adb -s emulator-5554 shell "ls {path}"'),
                   f"Exit code 1\nls: {path}: No such file or directory", True)
    assert _mined(workspace, projects, log) == []


def test_a_log_without_cwd_is_not_probed_again_at_every_import(
        workspace: Workspace, projects: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = "d2d2d2d2-0000-4000-8000-000000000002"
    _Log(session).typed("go").says("ok").write(projects / SLUG / f"{session}.jsonl")
    agent = _Log(session, sidechain=True)
    agent.says("working")
    for record in agent.records:
        record.pop("cwd")
    agent.write(projects / SLUG / session / "subagents" / "workflows" / "wf_1" / "agent-a1.jsonl")
    _import(workspace, projects)
    probed: list[Path] = []
    real = discovery.first_cwd
    monkeypatch.setattr(discovery, "first_cwd", lambda path: probed.append(path) or real(path))
    report = import_logs(workspace, ImportOptions(projects_dir=projects, project=PROJECT))
    assert (report.unchanged, report.other_project, probed) == (2, 0, [])


# -- held-out evaluation shapes: what is no lesson, and one cause as one memory ---------------


def _esc_then(log: _Log, command: str, turn: str) -> None:
    tool = log.calls("Bash", command=command)
    log.result(tool, MARKER, True, toolDenialKind="interrupted").marker()
    log.typed(turn)
    log.says("Understood.")


def test_an_esc_is_a_lesson_only_when_the_turn_after_it_redirects_the_agent(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("e1e1e1e1-0000-4000-8000-000000000001")
    log.typed("bring the bridge online")
    _esc_then(log, "./bridge.sh start", "Retry")  # after an API error
    _esc_then(log, "./bridge.sh status", "Is the binary bridge online")  # a plain question
    _esc_then(log, "./deploy.sh staging", "Actually it could deploy to multiple at once but add "
                                          "that too")  # one more feature
    _esc_then(log, "./voice.sh", "Also how to use voice input")
    _esc_then(log, "./mode.sh", "Ultrathink design this mode of building the images")  # new ask
    _esc_then(log, "mktemp -d /tmp/build.XXXX", "Dont use /tmp keep everything within the claude dir")
    plan = log.calls("ExitPlanMode", plan="1. Write the issues by hand")
    log.result(plan, MARKER, True, toolDenialKind="interrupted").marker()
    log.typed("Create the beads")  # said instead of the plan: a redirect, whatever its words
    memory, instead = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "interruption"
    assert memory.title.startswith("Dont use /tmp keep everything within the claude dir")
    assert instead.title.startswith("Create the beads (interrupted: carry out its plan")


@pytest.mark.parametrize(("turn", "redirecting"), [
    ("Retry and re-read that line", False),
    ("RESEARCH: OpenAI Swarm protocols", False),
    ("289", False),
    ("Do we not have the production orchestration system", True),  # a challenge, not a question
    ("Remember we have a hooks/ directory", True),
    ("Ignore the large file", True),
    ("why did you delete the fixtures?", True),
    ("https://github.com/u/shop", False),  # a link answering the agent
    ("Actually i changed a LOT of other stuff commit it all", False),  # more of the same work
    ("do both in parallel", False),
])
def test_which_turns_after_an_esc_redirect(turn: str, redirecting: bool) -> None:
    assert redirects(turn) is redirecting


def test_a_title_leaves_out_openers_markup_and_pasted_output(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("e2e2e2e2-0000-4000-8000-000000000002")
    log.typed("start the stream")
    _esc_then(log, "./stream.sh", "ultrathink no, the stream runs from the hooks/ folder")
    paste = ("ubuntu@ubuntu:~/shop(main)$ ./stream.sh\n  File \"stream.sh\", line 605\n"
             "SyntaxError: invalid syntax")
    log.refused(log.calls("Bash", command="./stream.sh --debug")).marker()
    log.typed(paste)
    log.says("Understood.")
    _esc_then(log, "./stream.sh --trace", paste)  # a log after an Esc redirects nothing
    first, pasted = _mined(workspace, projects, log)
    assert first.title.startswith("No, the stream runs from the hooks/ folder (interrupted")
    assert pasted.title == "Refused with a pasted log, ask first: run `./stream.sh --debug`"
    assert "SyntaxError: invalid syntax" in pasted.content  # quoted in the body, not the title
    assert person_words("ultrathink <command-name>/fix</command-name> keep the wrapper") == \
        "/fix keep the wrapper"
    assert not pasted_log("Fix the path issues")


@pytest.mark.parametrize("turn", [
    "ubuntu@ubuntu:~/shop(main)$ ./stream.sh",  # a shell prompt, as titles told it
    "○ Waiting for the build",  # the agent's own screen
    "✔ compiled in 3s",
    "2026-03-01 12:00 INFO started",
    "Traceback (most recent call last):",  # as corrections told it
    "app.ts:12:5 - error TS2304: Cannot find name",
    "[3/7] Linking",
])
def test_one_rule_tells_a_pasted_log_for_corrections_and_titles(turn: str) -> None:
    # The titles and the corrections ask the same question of a person's turn: one rule answers.
    assert pasted_log(turn)
    assert pasted_log(f"\n\n{turn}\nand the rest")
    assert not pasted_log(f"I ran it and got: {turn}")


def test_one_cause_is_one_memory_across_sessions_and_within_one(
        workspace: Workspace, projects: Path) -> None:
    logs = []
    for n, name in enumerate(("README.md", "SESSION-2026-03-23.md", "LEVELSET.md")):
        log = _Log(f"e3e3e3e{n}-0000-4000-8000-00000000000{n}")
        log.typed("commit the notes")
        exit_line = "Exit code 128\n" if n else ""  # Claude Code puts it first, or not
        log.result(log.calls("Bash", command=f'git add "!/{name}"'),
                   f"{exit_line}fatal: pathspec '!C:/Users/u/AppData/Local/Programs/Git/{name}' "
                   "did not match any files", True)
        logs.append(log)
    compose = logs[0]
    for container in ("stream-prod", "stream-db", "stream-cache"):
        compose.result(compose.calls("Bash", command="sudo docker-compose up -d"),
                       f"Exit code 1\nERROR: for {container}  Cannot start service: failed to "
                       "mount local volume", True)
    memories = _mined(workspace, projects, *logs)
    by_tool = {m.title.split(" fails here")[0]: m for m in memories}
    assert sorted(by_tool) == ["`git add`", "`sudo docker-compose`"]
    git = by_tool["`git add`"]
    assert git.title.startswith("`git add` fails here: fatal: pathspec '!C:/Users/u/AppData/Local/"
                                "Programs/Git/")
    assert git.metadata["occurrences"] == 3 and "Seen 3 times in 3 sessions" in git.content
    assert by_tool["`sudo docker-compose`"].metadata["occurrences"] == 3


def test_the_read_size_limit_and_a_shell_banner_are_no_errors(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("e4e4e4e4-0000-4000-8000-000000000004")
    log.typed("look at the scraper")
    read = log.calls("Read", file_path=f"{PROJECT}/scraper.py")
    log.hook_ran(read, "PreToolUse:Read")
    log.result(read, "File content (16509 tokens) exceeds maximum allowed tokens (10000). Please "
                     "use offset and limit parameters to read specific portions of the file.", True)
    banner = "○ Tandem Orchestrator: Not found\n⚠ Agent Registry: Not found"
    for command in ("./ultrathink.sh", "git commit -m wip", "grep -r Global ."):
        for _ in range(2):  # failed twice, never got past: kept, were the banner an error
            log.result(log.calls("Bash", command=command), f"Exit code 1\n{banner}", True)
    for _ in range(2):
        log.result(log.calls("Bash", command="dmesg"),
                   f"Exit code 1\ndmesg: read kernel buffer failed: Operation not permitted\n{banner}",
                   True)
    [memory] = _mined(workspace, projects, log)
    assert memory.title == "`dmesg` fails here: dmesg: read kernel buffer failed: Operation not permitted"


def test_a_word_game_move_and_relayed_text_are_no_corrections(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("e5e5e5e5-0000-4000-8000-000000000005")
    log.typed("let's play: PING, DING, RING, next word?")
    log.says("RANG")
    log.typed("WRONG")
    log.says("You're right! RUNG?")
    log.result(log.calls("Bash", command="./swarm.sh status"), "3 agents idle")
    log.typed("CODEX SAYS: the swarm must run from the vault root")
    log.says("You're absolutely right, I will move it.")  # conceding to the relayed agent
    log.result(log.calls("Bash", command="./fix.sh"), "fixed line 132")
    log.says("Line 132 is fixed.")
    log.typed("Line 132 still shows an error")
    log.says("Let me look again.")
    memories = _mined(workspace, projects, log)
    assert [m.title for m in memories] == \
        ["Line 132 still shows an error"]


@pytest.mark.parametrize("text", [
    "Line 132 still shows an error",
    "you can fix what is there",
    "Fix the script to not overwrite our wrapper",
])
def test_corrections_the_evaluation_found_missed(text: str) -> None:
    assert correction_rule(text) is not None


def test_relayed_text_is_not_the_persons_correction() -> None:
    assert correction_rule("CODEX SAYS: no, revert the config") is None
    assert correction_rule("Linear chatbot says: that is wrong") is None


def test_the_agents_own_slips_and_a_diff_that_differs_are_no_lessons(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("e6e6e6e6-0000-4000-8000-000000000006")
    log.typed("show the learning summary")
    for _ in range(2):
        log.result(log.calls("Bash", command='python3 -c "import db; db.summary()"'),
                   "Exit code 1\nTraceback (most recent call last):\nasyncpg.exceptions."
                   'UndefinedColumnError: column "success_rate" does not exist', True)
        log.result(log.calls("Bash", command="python3 learning_cli.py summary"),
                   "Exit code 1\nError: 'LearningSystem' object has no attribute 'summary'", True)
        log.result(log.calls("Bash", command="for f in *.sh; do grep -l x $f | grep"),
                   "Exit code 2\n/bin/bash: -c: line 1: syntax error near unexpected token `grep'",
                   True)
        log.result(log.calls("Edit", file_path=f"{PROJECT}/agents/BGP.md"),
                   "<tool_use_error>File has been modified since read, either by the user or by a "
                   "linter. Read it again before attempting to write it.</tool_use_error>", True)
        log.result(log.calls("Bash", command="cd notes && diff a.md b.md"),
                   "Exit code 1\n1,24c1,24\n< title: 2026-03-29", True)  # they differ
    for _ in range(2):  # stuck on the machine, not on its own code: kept
        log.result(log.calls("Bash", command="sudo initdb -D /srv/pg"),
                   "Exit code 1\ninitdb: error: could not access directory \"/srv/pg\": "
                   "Permission denied", True)
    assert [m.title for m in _mined(workspace, projects, log)] == [
        '`sudo initdb` fails here: initdb: error: could not access directory "/srv/pg": '
        "Permission denied"]


# -- corrections the second held-out read found missed ------------------------------------------


@pytest.mark.parametrize(("text", "rule"), [
    ("syntax highlighting does not quite work", "fails"),  # a report that the work fails
    ("[Image #8] still does not work?", "wrong"),  # after Claude Code's attachment marker
    ("i still dont have actual programming lang syntax highlighting", "fails"),
    ("i dont see it in the repo", "fails"),
    ("same error", "fails"),
    ("there is no TSModuleInfo diff", "fails"),
    ("bootstrap脚本没有更新啊哥们", "fails"),
    ("i dont think we saved any data room", "doubt"),
    ("lah wait undo comment", "imperative"),
    ("the keybinds were made in hyprland", "premise"),  # corrects what the agent assumed
    ("teams is installed as a pwa", "premise"),
    ("one question at a time plz", "prefer"),
    ("More concise please", "prefer"),
    ("yes but ill need actual syntax highlighting too", "prefer"),
    ("方案A有问题，这个方案不是很合理", "zh"),
    ("我觉得差不多，然后我们应该避免在代码定义里使用DRA", "zh"),
    ("Sorry to say it's the same...", "fails"),
    ("hmm, there's more issues...", "fails"),
    ("let's go through them one-at-a-time", "prefer"),
    ("Hold on, let's stick with question 1 until we're done", "prefer"),
    ("like I said, a can_ function would be generated", "imperative"),
    ("Ok, you just left padding it", "imperative"),
    ('call the regular role "user" not "regular"', "instead"),
    ("give me fucking file paths", "frustrated"),
    ("ur stupid", "frustrated"),
    ("stupid windows paths again, use forward slashes", "frustrated"),  # what keeps failing
    ("u didnt actually fetch changes", "imperative"),
    ("ultrathink WHAT ARE YOU DOING stop REMOVING SO MANY FUNCTIONS", "imperative"),
    ("yep still same thing, i have the auth token in the env", "fails"),
    ("Activation failed again, cable was fine earlier", "fails"),
    ("BGP-BLUE-TEAM.md has the same error line 121 fix it", "fails"),
    ("Lines 133-187 also show errors in sublime-text", "wrong"),
    ("Modify the script to run as sudo also [WARNING] NPU not detected.\nis just wrong", "wrong"),
    ("can we not filter in the resolver?", "question"),
    ("why is it doing this", "question"),  # short: no "?" needed
    ("AGENTS KEEP ASSUMING THEY KNOW WHAT a tool is for", "habit"),
    ("GitHub Desktop says main hasn't been published -- that doesn't make sense?", "doubt"),
    ("continue, i dont want the minimal version i want all tools", "prefer"),
    ("你说的没错，当wait=false的时候没有中间状态，这不是我们希望的", "zh"),
])
def test_failure_reports_premises_and_preferences_are_corrections(text: str, rule: str) -> None:
    assert correction_rule(text) == rule


@pytest.mark.parametrize("text", [
    "add a button that does not load the page",  # a spec, not a report
    "I want the page to not load twice",
    "make sure it does not show the password",
    "Again, only touch that one file",  # an instruction repeated: not read as a correction
    "it works now, thanks",
    "what is installed in the venv?",
    "but will it stay at 10 minutes",  # a question, not "yes, but …"
    "it is the same as before, thanks, now add tests",
    "looks the same to me, ship it",
    "you just need to run make",
    "fuck yeah it works",  # pleased
    "I'm leaning Rust for its type system. Definitely not Go, fuck that language.",  # not at the agent
    "why is the sky blue, explain the physics to me in detail please and with examples",
    "keep going until it stops failing again",
    "Make the following changes one at a time, and test each",  # a task, not how to talk
    "帮我写一个新的接口，用于查询用户的订单列表，需要支持分页和按状态过滤，" * 8 + "不合理的参数返回400",
])
def test_specs_wishes_and_long_tasks_are_not_failure_reports(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("reply", "conceded"), [
    ("Ah, you're right — the keybinds live in hyprland.conf.", True),
    ("I see the issue: the parser is never started.", True),
    ("Good point, the claim is the unit.", True),
    ("好思路，和现有的 totalResource 逻辑一致。", True),
    ("Let me fix that.", True),
    ("Let me fix the linter errors you listed.", False),  # doing what was asked
    ("Let me check the version first.", False),
    ("好的。先讨论方案。", False),
])
def test_more_ways_the_agent_concedes(reply: str, conceded: bool) -> None:
    assert acknowledges_mistake(reply) is conceded


def test_a_failure_report_after_done_is_a_lesson_to_verify_first(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f1f1f1f1-0000-4000-8000-000000000001")
    log.typed("add go syntax highlighting to the diff preview")
    log.result(log.calls("Edit", file_path="/home/u/.config/nvim/lua/telescope.lua"),
               "The file /home/u/.config/nvim/lua/telescope.lua has been updated successfully.")
    log.says("Done. Let me know if the highlighting kicks in now.")
    log.typed("[Image #8] still does not work?")
    log.typed("[Image: source: /home/u/.claude/image-cache/f1f1/8.png]")
    log.says("Let me check the nvim-treesitter version.")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "correction"
    # words with no fact of their own: the title names what the agent had just done
    assert memory.title == ("After you edit `telescope.lua`, check that it works before saying it "
                            "is done: the person said “still does not work?”")
    assert memory.content.startswith("Do as the person said after it tried to edit "
                                     "`/home/u/.config/nvim/lua/telescope.lua`: “[Image #8] still "
                                     "does not work?”")
    assert "The agent had said: “Done. Let me know if the highlighting kicks in now.”" in memory.content


def test_a_bare_no_or_stop_quotes_what_the_agent_had_just_done(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f2f2f2f2-0000-4000-8000-000000000002")
    log.typed("why does the led not blink for teams?")
    log.result(log.calls("Bash", command="find ~/.config/systemd -name '*.service'"), "led.service")
    log.typed("Stop")
    log.says("Stopping.")
    log.typed("how do I reach the proxmox ui?")
    log.says("Open `http://192.168.6.200:8006` in your browser.")
    log.result(log.calls("Read", file_path="/etc/hosts"), "127.0.0.1 localhost")
    log.says("Open `http://192.168.6.200:8006` in your browser.")
    log.typed("No same issue")
    log.says("Then the firewall blocks it.")
    log.result(log.calls("Bash", command="make gen"), "ok")
    log.typed("ur stupid")  # frustration alone: no lesson in it
    log.says("Understood.")
    titles = [m.title for m in _mined(workspace, projects, log)]
    assert titles == [
        "Do not run `find ~/.config/systemd -name '*.service'` unasked: the person said “Stop”",
        "After you read `hosts`, check that it works before saying it is done: the person said "
        "“No same issue”"]


def test_a_no_answering_a_question_inside_the_agents_words_is_an_answer_and_a_bare_opening_is_skipped(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f5f5f5f5-0000-4000-8000-000000000005")
    log.typed("why does buf generate fail?")
    log.result(log.calls("Bash", command="gh auth status"), "Logged in, scopes: repo")
    log.says("The token has the repo scope. Has this command ever worked for the team? It may be "
             "worth asking a colleague how they run it.")
    log.typed("nope it never worked")  # the answer to its question
    log.says("Then the Dockerfile is the cause.")
    log.result(log.calls("Edit", file_path=f"{PROJECT}/mocks/events.mock.go"), "updated")
    log.says("Builds clean. I added the two mock methods by hand.")
    log.typed("im sorry.... did u just modify generated files?")
    log.says("Yes. That was wrong of me.")
    [memory] = _mined(workspace, projects, log)
    assert memory.title == "Did u just modify generated files?"
    assert memory.metadata["rule"] == "acknowledged"


@pytest.mark.parametrize("text", ["Continue", "Continue fixing the scripts, then build the ISO"])
def test_continuing_after_an_esc_redirects_nothing(text: str) -> None:
    assert not redirects(text)


def test_a_premise_correction_and_a_chosen_alternative_are_corrections(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f3f3f3f3-0000-4000-8000-000000000003")
    log.typed("what did we change in the keybinds last week?")
    log.result(log.calls("Read", file_path="/home/u/.claude/keybindings.json"), "{}")
    log.says("Your keybindings file is empty.")
    log.typed("the keybinds were made in hyprland")
    log.says("Looking at ~/.config/hypr.")
    log.result(log.calls("Read", file_path=f"{PROJECT}/quota.go"), "package quota")
    log.says("两种方式：按 pod 重复计，或按 claim 去重。我倾向于 MVP 阶段按 pod 重复计。")
    log.typed("我们应该按照claim计算 因此我们需要cache集群中的claim相关信息")
    log.says("好，敲定：按 ResourceClaim 去重计算 quota。")
    log.result(log.calls("Read", file_path=f"{PROJECT}/cache.go"), "package cache")
    log.says("The cache holds claims already. Shall I go on?")
    log.typed("we should add a test too")  # agreeing and adding: no recommendation overridden
    log.says("Adding it.")
    memories = _mined(workspace, projects, log)
    assert [(m.title, m.metadata["rule"]) for m in memories] == [
        ("The keybinds were made in hyprland", "premise"),
        ("我们应该按照claim计算 因此我们需要cache集群中的claim相关信息", "override")]


def test_a_pasted_log_the_agent_answers_is_not_the_persons_correction(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f4f4f4f4-0000-4000-8000-000000000004")
    log.typed("add GNA support to the setup script")
    log.result(log.calls("Bash", command="bash -n setup.sh"), "")
    log.says("Added GNA support.")
    log.typed("[INFO] Creating udev rules for GNA device access...\n[sudo] password for u:")
    log.says("I see the issue - the script prompts for input when it should not.")
    assert pasted_log("[INFO] Creating udev rules for GNA device access...")
    assert _mined(workspace, projects, log) == []


def test_claude_codes_note_after_a_typed_reason_is_not_the_persons_words() -> None:
    text = (REJECTED.split(" STOP")[0] + " To tell you how to proceed, the user said:\n"
            "read the paths from env\n\nNote: The user's next message may contain a correction or "
            "preference. Pay close attention — if they explain what went wrong or how they'd prefer "
            "you to work, consider saving that to memory for future sessions.")
    assert classify_tool_error(text) == ("rejection", "read the paths from env")


# -- what reads as a correction but carries no lesson for the agent ---------------------------

@pytest.mark.parametrize("text", [
    "why do they all begin with t",  # about the world, not the agent's work
    "Why is he here?",
    "wait do we not currently make any calls from public-graphql to handset api?",
    "ah i see, thats not a general update status",  # the person now understands
    "sorry delete all of that it was wrong file",  # the person's own slip
    "my bad, wrong repo",
    "GROK RESEARCH: **Persephone, Hecate, and Hestia** are three deities",  # relayed
    "Linear chatbot says: This plan is mostly sound, but I'd tighten two parts",
    "no for the storage i mean",  # which of the agent's items they meant
])
def test_curious_questions_relayed_text_and_own_slips_are_not_corrections(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize("text", [
    "why did you do it like this to begin with?",
    "why is it doing this",
    "why does the overlay filesystem still display 33gb",
    "Why do we need the new storage method?",
    "did you not look in the telecom-mobile repo?",
    "can we not filter in the resolver?",
    "sorry, that's wrong, use pnpm",  # an apology that still corrects
    "i see the same error on the second page",
    "no, use pnpm",
])
def test_challenges_stay_corrections(text: str) -> None:
    assert correction_rule(text) is not None


@pytest.mark.parametrize("text", [
    "ah i see, thats not a general update status",
    "给我写一个示例",  # a new request
    "[1/8] Checking prerequisites...✓ NUMA support detected✓ Sufficient memory: 62GB",
    "Creating auto-integration hook..../BRING_ONLINE.sh: line 429: /tmp/x.service: Permission denied",
    "sorry delete all of that it was wrong file",
])
def test_after_an_esc_these_redirect_nothing(text: str) -> None:
    assert not redirects(text)


def test_turns_with_no_lesson_for_the_agent_are_not_stored(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f7f7f7f7-0000-4000-8000-000000000007")
    log.typed("how do I reach the proxmox ui?")
    log.result(log.calls("Bash", command="ip addr show"), "inet 192.168.6.200/24")
    log.says("Open `http://192.168.6.200:8006` in your browser.")
    log.typed("ok and the backups?")
    log.says("They are under /var/lib/vz/dump.")
    log.typed("nope")  # a bare no to the agent's words, not conceded: nothing to learn
    log.says("Then check `pvesm status`.")
    log.result(log.calls("Bash", command="make gen"), "ok")
    log.typed("ur stupid")  # frustration alone
    log.says("Understood.")
    log.result(log.calls("Bash", command="mkdir -p ~/ext"), "")
    log.refused(log.calls("Bash", command="cp a.js ~/ext")).marker()
    log.typed("sorry delete all of that it was wrong file")  # the person's own slip
    log.result(log.calls("Bash", command="rm -rf ~/ext"), "")
    log.refused(log.calls("Bash", command="ls ~/ext")).marker()
    log.typed("GROK RESEARCH: the ext folder holds the Chrome build")  # relayed
    log.result(log.calls("Bash", command="grep -rn UpdateStatus ."), "a.go:1")
    log.result(log.calls("Bash", command="grep -rn UpdateContract ."), "a.go:2")
    log.marker("[Request interrupted by user]")
    log.typed("ah i see, thats not a general update status")  # the person now understands
    log.says("Right, it only updates the contract.")
    log.result(log.calls("TodoWrite", todos=[]), "ok")
    log.typed("what would be the best idea, im also thinking of replacing nspawn with arch-chroot")
    log.says("You're absolutely right - nspawn has been a source of problems.")  # asked advice
    log.result(log.calls("Bash", command="npm install"), "added 3 packages")
    log.typed("no, use pnpm")  # stays a correction
    assert [m.title for m in _mined(workspace, projects, log)] == ["No, use pnpm"]


def test_a_bare_no_to_the_agents_words_is_a_correction_when_the_agent_concedes(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f8f8f8f8-0000-4000-8000-000000000008")
    log.typed("how do I reach the proxmox ui?")
    log.result(log.calls("Bash", command="ip addr show"), "inet 192.168.6.200/24")
    log.says("Open `http://192.168.6.200:8006` in your browser.")
    log.typed("ok and the backups?")
    log.says("They are under /var/lib/vz/dump.")
    log.typed("nope")
    log.says("You're right, this host keeps them under /mnt/pve/backups.")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["rule"] == "acknowledged"


def test_a_failure_report_with_words_of_its_own_leads_the_title() -> None:
    assert lesson("syntax highlighting does not quite work", "edit `/a/nvim/telescope.lua`", None) == \
        "Syntax highlighting does not quite work: check that it works before saying it is done"
    assert lesson("i dont see it in the repo", "run `git commit -m x`", None) == \
        "I dont see it in the repo: check that it works before saying it is done"
    assert lesson("still broken", "edit `/home/u/app/main.go`", None) == (
        "After you edit `main.go`, check that it works before saying it is done: the person said "
        "“still broken”")


def test_a_failure_that_said_nothing_is_no_lesson_however_often_it_recurs(
        workspace: Workspace, projects: Path) -> None:
    logs = []
    for n in range(3):
        log = _Log(f"c3c3c3c{n}-0000-4000-8000-00000000000{n}")
        log.typed("is psycopg2 installed?")
        command = "python3 -m pip list 2>/dev/null | grep -E 'psycopg2|asyncpg'"
        log.result(log.calls("Bash", command=command), "Error", True)  # output thrown away
        log.result(log.calls("Bash", command=command), "Error", True)
        log.result(log.calls("Bash", command="./up.sh"), "Exit code 1\nerror: disk quota", True)
        logs.append(log)
    memories = _mined(workspace, projects, *logs)
    assert [m.title for m in memories] == ["`./up.sh` fails here: error: disk quota"]


def test_a_no_answering_a_question_with_an_aside_after_it_is_an_answer(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f9f9f9f9-0000-4000-8000-000000000009")
    log.typed("what was that command I ran last week?")
    log.result(log.calls("Bash", command="tail -5 ~/.bash_history"), "ls\ncd")
    log.says("Do you remember what the command was or what it was for? (e.g., flashing firmware, "
             "installing udev rules, building, etc.)")
    log.typed("no i dont ugh")
    log.says("Then let me search the history for udev.")
    assert _mined(workspace, projects, log) == []


def test_a_comment_on_selected_text_puts_the_persons_words_first(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("fafafafa-0000-4000-8000-00000000000a", mode="plan")
    log.typed("plan the folder layout")
    log.refused(log.calls("ExitPlanMode", plan="# Layout\n1. Name the folder `here.`")).marker()
    log.typed("On selected text:\n> Name the folder `here.`\n?\n\n\nWindows forbids a trailing "
              "period in a folder name, drop it")
    [memory] = _mined(workspace, projects, log)
    assert memory.title == ("Windows forbids a trailing period in a folder name, drop it "
                            "(plan rejected)")
    assert memory.metadata["reason"].endswith("(on the selected text “Name the folder `here.`”)")


@pytest.mark.parametrize(("text", "title"), [
    ("can we not just lookup the os and call the right thing?",
     "Lookup the os and call the right thing: the person asked “can we not just lookup the os and "
     "call the right thing?”"),
    ("Why not just update the expiry in UpdateContractStatus?",
     "Update the expiry in UpdateContractStatus: the person asked “Why not just update the expiry "
     "in UpdateContractStatus?”"),
    ("did you not look in the telecom-mobile repo? i only see js/ts stuff",
     "Look in the telecom-mobile repo first: the person asked “did you not look in the "
     "telecom-mobile repo? i only see js/ts stuff”"),
    ("why did u just modify generated files?",
     "Do not modify generated files unasked: the person asked “why did u just modify generated "
     "files?”"),
])
def test_a_challenging_question_is_titled_as_what_to_do(text: str, title: str) -> None:
    assert lesson(text, "edit `/a/b.go`", None) == title


@pytest.mark.parametrize("text", [
    "can you not use my config?",  # asks the agent to stop: its words are the lesson
    "why did you do it like this to begin with?",  # names nothing to do
    "Why did we need to add the extra contract months?",
])
def test_questions_that_name_nothing_to_do_keep_their_words(text: str) -> None:
    assert lesson(text, "edit `/a/b.go`", None) is None


def test_a_comment_on_selected_text_given_with_the_rejection_puts_the_persons_words_first() -> None:
    text = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
            "it was a file edit, the new_string was NOT written to the file). The user provided the "
            "following reason for the rejection:  On selected text:\n> the\n> ~/.claude/MEMORY.md "
            "scaffolding\nShould not even have been accessible to you here")
    assert classify_tool_error(text, Signals(tool="ExitPlanMode")) == (
        "plan_rejection", "Should not even have been accessible to you here\n(on the selected text "
        "“the ~/.claude/MEMORY.md scaffolding”)")


@pytest.mark.parametrize(("text", "title"), [
    ("Thats so dumb why did u do that?",
     "Do not run `git reset --hard` unasked: the person asked “Thats so dumb why did u do that?”"),
    ("Where did you get this info from",
     "Say where this info comes from before stating it: the person asked “Where did you get this "
     "info from”"),
    ("give me fucking file paths", "Give me file paths"),
    ("Fuck me stop making chnages without checking with me first",
     "Stop making chnages without checking with me first"),
])
def test_a_title_names_what_the_challenge_is_about_without_the_swearing(text: str, title: str) -> None:
    assert lesson(text, "run `git reset --hard`", None) == title


def test_youre_right_to_a_plain_question_concedes_nothing(workspace: Workspace, projects: Path) -> None:
    log = _Log("fbfbfbfb-0000-4000-8000-00000000000b")
    log.typed("clean up the learning system")
    log.result(log.calls("Write", file_path="/home/u/shop/INSTALL.md"), "ok")
    log.typed("Is agent_learning_system.py redundant to setup_learning_system.py as the 1st uses sqlite")
    log.says("You're absolutely right! Both set up the same tables.")
    log.result(log.calls("Read", file_path="/home/u/shop/models.go"), "type Offer struct{}")
    log.typed("ok so we have an array for all the colours, and the variant shows all the combos? what if")
    log.says("You're right to push back - the flat lists do not say which combos exist.")
    log.result(log.calls("Bash", command="go build ./..."), "ok")
    log.typed("you forgot the tests")
    log.says("You're right, adding them now.")
    assert [m.title for m in _mined(workspace, projects, log)] == ["You forgot the tests"]


def test_a_failure_whose_output_states_no_error_is_no_lesson(workspace: Workspace,
                                                             projects: Path) -> None:
    log = _Log("fcfcfcfc-0000-4000-8000-00000000000c")
    log.typed("bring it online")
    warnings = ("Exit code 2\nhybrid.c:20:9: warning: \"_GNU_SOURCE\" redefined\n"
                "   20 | #define _GNU_SOURCE\n<command-line>: note: this is the location of the "
                "previous definition")
    for _ in range(3):
        log.result(log.calls("Bash", command="./BRING_ONLINE.sh"), warnings, True)
    log.result(log.calls("Bash", command="./up.sh"), "Exit code 1\nerror: disk quota", True)
    log.result(log.calls("Bash", command="./up.sh"), "Exit code 1\nerror: disk quota", True)
    assert [m.title for m in _mined(workspace, projects, log)] == [
        "`./up.sh` fails here: error: disk quota"]


@pytest.mark.parametrize(("text", "title"), [
    ("i dont think it copied to ventoy partition",
     "Check that it copied to ventoy partition before saying it is done: the person said “i dont "
     "think it copied to ventoy partition”"),
    ("yes but ill need actual syntax highlighting too. like if its a go file",
     "Ill need actual syntax highlighting too"),
    ("continue,i dont want minimal version i want all tools",
     "I dont want minimal version i want all tools"),
])
def test_a_doubt_about_done_work_says_to_check_it_and_agreeing_first_is_left_out(
        text: str, title: str) -> None:
    assert lesson(text, None, None) == title


def test_a_doubt_that_is_a_view_keeps_its_words() -> None:
    assert lesson("i dont think we care about the bill migration.", None, None) is None


def test_a_why_that_points_at_nothing_the_agent_did_waits_for_its_reply(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("fdfdfdfd-0000-4000-8000-00000000000d")
    log.typed("add the expiry to the contract")
    log.result(log.calls("Edit", file_path="/home/u/shop/models.go"), "ok")
    log.typed("so why did we need to add the extra contract months?")
    log.says("`signedAt` comes from the provider's callback; the months give the end date.")
    log.result(log.calls("Edit", file_path="/home/u/shop/models.go"), "ok")
    log.typed("why is that an issue?")
    log.says("Because the pointer can be nil when the provider is late.")
    log.result(log.calls("Edit", file_path="/home/u/shop/helpers.go"), "ok")
    log.typed("why did u do it?")
    log.says("You're right, I should have put it in `helpers.go` from the start.")
    log.result(log.calls("Bash", command="rm tests/test_models.py"), "")
    log.typed("why did you delete the tests?")
    log.says("The tests were failing, so I removed them.")
    assert [(m.metadata["rule"], m.title) for m in _mined(workspace, projects, log)] == [
        ("acknowledged", "Do not edit `helpers.go` unasked: the person asked “why did u do it?”"),
        ("question", "Do not delete the tests unasked: the person asked “why did you delete the "
                     "tests?”")]


@pytest.mark.parametrize("text", [
    "i see, but you used the wrong file",  # understands, then corrects
    "i see you forgot the tests",
    "sorry, that's wrong, use pnpm",
])
def test_words_that_still_correct_are_not_disowned(text: str) -> None:
    assert not disowned(text)


@pytest.mark.parametrize("text", [
    "what about the tests?",  # a reminder the agent may rightly concede
    "where is the test?",
    "what if theres more than colours and storage for opts?",
])
def test_reminders_are_not_plain_questions(text: str) -> None:
    assert not only_asks(text)


def test_error_lines_reads_every_case_of_the_error_words() -> None:
    # error_lines searches lower-cased UTF-8 unless a text holds a character IGNORECASE folds to
    # an ASCII letter: a fifth such character would be missed in that search.
    import re

    from dreamtui.intake.lessons import _FOLDS_TO_ASCII, error_lines

    letter = re.compile("[a-z]", re.IGNORECASE)
    folding = [chr(c) for c in range(128, 0x110000) if letter.match(chr(c))]
    assert all(_FOLDS_TO_ASCII.match(c) for c in folding) and len(folding) == 4
    text = "ok\nMIſSING file\nÉchec: FAILED\n错误 here\nfine\ud800\nblocKed"
    assert error_lines(text, 400) == "MIſSING file\nÉchec: FAILED\n错误 here\nblocKed"
    assert error_lines(text.replace("ſ", "s").replace("K", "k"), 400) == \
        "MIsSING file\nÉchec: FAILED\n错误 here\nblocked"


def test_a_hook_block_is_found_in_any_case() -> None:
    # The hook-block search runs only on text holding "hook" once lower-cased: every character
    # the case-blind pattern takes for a letter of "hook" must lower-case to that letter.
    import re

    from dreamtui.intake.claude_code.rules import classify_tool_error, names_a_block

    for letter in "hok":
        pattern = re.compile(letter, re.IGNORECASE)
        assert all(chr(c).lower() == letter for c in range(0x110000) if pattern.match(chr(c)))
    assert names_a_block("PreToolUse:Bash HOO\u212a: blocked")
    assert classify_tool_error("The Hook script blocked this command")[0] == "hook_block"
    assert classify_tool_error("Exit code 1\nhooks directory missing")[0] == "tool_error"


DENIED = ("Permission to use {tool} has been denied. IMPORTANT: You *may* attempt to accomplish "
          "this action using other tools that might naturally be used to accomplish this goal, "
          "e.g. using head instead of cat.")


def test_a_tool_denied_to_subagents_is_one_fact_per_import_whatever_each_call_asked(
        workspace: Workspace, projects: Path) -> None:
    session = "d3d3d3d3-0000-4000-8000-000000000001"
    _Log(session).typed("find contacts at the shop").says("Starting research agents.").write(
        projects / SLUG / f"{session}.jsonl")
    for n, queries in enumerate((["shop owner email", "shop linkedin"], ["shop canberra phone"])):
        agent = _Log(session, sidechain=True, start=100 * (n + 1))
        for query in queries:
            tool = agent.calls("WebSearch", query=query)
            agent.result(tool, DENIED.format(tool="WebSearch"), True)
        tool = agent.calls("Bash", command=f"curl -s https://shop.example/{n}")
        agent.result(tool, DENIED.format(tool="Bash"), True)
        agent.write(projects / SLUG / session / "subagents" / f"agent-a{n}c69c858dab2afd6.jsonl")
    memories = _import(workspace, projects, dry_run=True).memories
    denials = sorted((m for m in memories if m.metadata["kind"] == "denial"),
                     key=lambda m: str(m.metadata["tool"]))
    assert [(m.metadata["tool"], m.metadata["occurrences"]) for m in denials] == [
        ("Bash", 2), ("WebSearch", 3)]
    bash, search = denials
    assert search.title == "`WebSearch` is denied to subagents here"
    assert "shop owner email" in search.content and "shop canberra phone" in search.content
    assert "Permission to use WebSearch has been denied." in search.content
    assert "curl -s https://shop.example/1" in bash.content


IDE_OPENED = ("<ide_opened_file>The user opened the file /home/u/shop/app/cart.ts in the IDE. This "
              "may or may not be related to the current task.</ide_opened_file>")
IDE_SELECTED = ("<ide_selection>The user selected the lines 56 to 58 from /home/u/shop/test/cart.ts:\n"
                "    while (cart.state() !== Done) {\n        await sleep(100);\n    }\n\nThis may "
                "or may not be related to the current task.</ide_selection>")


def test_the_ides_tags_are_not_the_persons_words_and_a_selection_follows_them(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("fbfbfbfb-0000-4000-8000-00000000000b")
    log.typed("fix the cart test")
    log.refused(log.calls("Bash", command="npx tsc --noEmit app/cart.ts"))
    log.typed(f"{IDE_OPENED} use the project's tsconfig, not a bare file")
    log.says("Done, the test polls until the cart is done.")
    log.calls("Edit", file_path="/home/u/shop/test/cart.ts", old_string="a", new_string="b")
    log.raw({**log._base("user"), "permissionMode": "default", "message": {"role": "user", "content": [
        {"type": "text", "text": IDE_SELECTED},
        {"type": "text", "text": "That's wrong, this polling loop should be a helper we reuse"}]}})
    log.typed(IDE_OPENED)  # the IDE's tag alone: nobody typed anything
    rejection, correction = _mined(workspace, projects, log)
    assert rejection.title.startswith("Use the project's tsconfig, not a bare file (rejected")
    assert "<ide_" not in rejection.content and "opened the file" not in rejection.content
    assert correction.title.startswith("That's wrong, this polling loop")
    assert ("(on lines 56–58 of /home/u/shop/test/cart.ts selected in the IDE: “while (cart.state() "
            "!== Done) { await sleep(100); }”)") in correction.content
    assert "<ide_" not in correction.content


def test_a_reason_claude_code_2_0_wrote_as_the_edits_result_is_a_rejection(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("fcfcfcfc-0000-4000-8000-00000000000c")
    log.typed("check both objects in the goal test")
    edit = log.calls("Edit", file_path="/home/u/shop/test/goal.ts", old_string="a", new_string="b")
    log.result(edit, "No.  Can you just dry up code and check values on both objects?", True)
    log.says("I'll factor the checks out.")
    edit = log.calls("Edit", file_path="/home/u/shop/test/goal.ts", old_string="c", new_string="d")
    log.result(edit, "File has been unexpectedly modified. Read it again before attempting to write it.",
               True)  # the tool's own error, untagged in 2.0.x: not the person's words
    for record in log.records:
        record["version"] = "2.0.2"
    memories = _mined(workspace, projects, log)
    assert _kinds(memories) == ["rejection"]
    [rejection] = memories
    assert rejection.metadata["reason"] == "No.  Can you just dry up code and check values on both objects?"
    assert rejection.title.startswith("No. Can you just dry up code and check values on both objects? "
                                      "(rejected: edit `test/goal.ts`)")  # from the project
    for own in ("Error: EACCES: permission denied, open '/etc/hosts'", "User cancelled the write"):
        assert classify_tool_error(own, Signals(tool="Write")) == ("tool_error", None)


def test_the_subagent_warmup_is_no_tool_error_however_often_it_recurs(
        workspace: Workspace, projects: Path) -> None:
    for n in range(3):  # Claude Code warms each subagent up with a "Warmup" it answers itself
        session = f"fdfdfd0{n}-0000-4000-8000-00000000000d"
        _Log(session).typed("plan the sync").says("Exploring.").write(
            projects / SLUG / f"{session}.jsonl")
        agent = _Log(session, sidechain=True, start=100)
        agent.typed("Warmup")
        agent.result(agent.calls("Bash", command="ls -la /home/u/shop"), "Warmup", True)
        agent.result(agent.calls("Glob", pattern="**/*.ts"), "Warmup", True)
        agent.says("This appears to be a warmup request.")
        agent.write(projects / SLUG / f"agent-a{n}edd2b.jsonl")
    assert _mined(workspace, projects) == []


def test_a_refusal_in_a_session_an_ide_runs_through_the_sdk_takes_the_next_turn_as_reason(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("fefefefe-0000-4000-8000-00000000000e", entrypoint="sdk-ts")
    log.typed("update the prompts for the network devices")
    log.refused(log.calls("Write", file_path="/home/u/shop/prompts.py", content="NX-OS prompts"))
    log.marker()
    log.typed("no, its connecting to cumulus devices that run linux.")
    log.says("Got it - Cumulus Linux.")
    log.typed("no, use the observation format")  # a program's turn in an SDK session: no correction
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["kind"] == "rejection"
    assert memory.metadata["reason"] == "no, its connecting to cumulus devices that run linux."


def test_a_look_refused_without_a_word_is_no_lesson_a_change_refused_is(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f0f0f0f0-0000-4000-8000-00000000000f")
    log.typed("why does suspend fail?")
    for command in ("ls -la /nix/var/nix/profiles/", "git merge-base two-step-sync develop",
                    "cat ~/.config/settings.json 2>/dev/null | head -100"):
        log.refused(log.calls("Bash", command=command)).marker()
        log.says("Let me try another way.")  # no reason typed before the agent went on
    log.refused(log.calls("Read", file_path="/etc/systemd/sleep.conf")).marker().says("Next.")
    log.refused(log.calls("Bash", command="cat notes.txt > /etc/systemd/sleep.conf")).marker()
    log.says("Next.")
    log.refused(log.calls("Bash", command="sudo nixos-rebuild switch --flake /home/u/conf")).marker()
    log.says("Next.")
    memories = _mined(workspace, projects, log)
    assert [m.title for m in memories] == [
        "Refused without a reason, ask first: run `cat notes.txt > /etc/systemd/sleep.conf`",
        "Refused without a reason, ask first: run `sudo nixos-rebuild switch --flake /home/u/conf`"]


def test_one_command_refused_without_a_word_in_several_sessions_is_one_honest_memory(
        workspace: Workspace, projects: Path) -> None:
    logs = []
    for n, command in enumerate(("sudo nixos-rebuild switch --flake /home/u/conf",
                                 "sudo nixos-rebuild switch --flake .#laptop")):
        log = _Log(f"f1f1f1f{n}-0000-4000-8000-00000000001{n}")
        log.typed("apply the new config")
        log.refused(log.calls("Bash", command=command)).marker()
        log.says("Understood, I will not rebuild.")
        logs.append(log)
    [memory] = _mined(workspace, projects, *logs)
    # The person said nothing: the memory says so, and asks first; no rule in words not said.
    assert memory.title == "Refused without a reason, ask first: run `sudo nixos-rebuild switch --flake /home/u/conf`"
    assert memory.content.startswith("The person refused to let the agent run `sudo nixos-rebuild")
    assert "typed no reason" in memory.content
    assert "switch --flake .#laptop" in memory.content  # every call refused is named
    assert "Seen 2 times in 2 sessions" in memory.content
    assert memory.metadata["occurrences"] == 2 and len(memory.metadata["record_uuids"]) == 2


def test_claude_codes_note_after_a_clarification_is_not_the_persons_words() -> None:
    text = (REJECTED + " To tell you how to proceed, the user said:\nThe user wants to clarify these "
            "questions.\n    This means they may have additional information, context or questions "
            "for you.\n    Take their response into account and then reformulate the questions if "
            "appropriate.\n    Start by asking them what they would like to clarify.\n\n    Questions "
            "asked:\n- \"Should the autocomplete fill every field?\"")
    assert classify_tool_error(text, Signals(tool="AskUserQuestion", user_rejected=True)) == (
        "clarification", None)  # the person's words come in their next turn


def test_a_routine_miss_is_commented_on_only_by_naming_what_it_missed(workspace: Workspace,
                                                                     projects: Path) -> None:
    # The person's next turn corrects other work, or says what any turn may ("we were working on
    # this", and the miss says "your current working directory is …"): no comment on the miss.
    missing = ("File does not exist. Note: your current working directory is /home/u/shop.")
    log = _Log("5c0e0001-0000-4000-8000-000000000001").typed("Speed up the search page")
    log.result(log.calls("Read", file_path="/home/u/shop/src/search_v2.py"), missing, True)
    log.typed("No.. its still slow can you think again?")
    other = _Log("5c0e0002-0000-4000-8000-000000000002").typed("Where were we?")
    other.result(other.calls("Read", file_path="/home/u/shop/notes/MEMORY.md"), missing, True)
    other.typed("we were working on this")
    named = _Log("5c0e0003-0000-4000-8000-000000000003").typed("Update the changelog")
    named.result(named.calls("Read", file_path="/home/u/shop/CHANGES.md"), missing, True)
    named.typed("it is called CHANGELOG.md, not CHANGES.md")
    memories = _mined(workspace, projects, log, other, named)
    errors = [m for m in memories if m.metadata["kind"] == "tool_error"]
    assert [m.metadata["reason"] for m in errors] == ["it is called CHANGELOG.md, not CHANGES.md"]


def test_a_sessions_first_turn_saying_earlier_work_is_still_wrong_is_a_correction(
        workspace: Workspace, projects: Path) -> None:
    logs = []
    for n, turn in enumerate(("The tmux config isn't right still. The status bar still shows the host.",
                              "we changed the timeout to 5 minutes but it doesnt seem to be that anymore",
                              "the extension keeps crashing, can you look?",  # a bug, a new task
                              "Add a status bar to the tmux config")):
        log = _Log(f"f2f2f2f{n}-0000-4000-8000-00000000002{n}")
        log.typed(turn)
        log.result(log.calls("Read", file_path="/app/tmux.conf"), "set -g status on")
        log.says("I see the config.")
        logs.append(log)
    memories = _mined(workspace, projects, *logs)
    assert [m.metadata["rule"] for m in memories] == ["earlier_work", "earlier_work"]
    first, second = memories
    assert first.content.startswith("Do as the person said as a session began, of the work before it: "
                                    "“The tmux config isn't right still.")
    assert "The tmux config isn't right still" in first.title
    assert "timeout to 5 minutes" in second.title


def test_an_answer_or_an_addition_the_agent_praises_as_an_idea_is_no_correction(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f3f3f3f3-0000-4000-8000-000000000030")
    log.typed("show the weather on the lock screen")
    log.result(log.calls("Edit", file_path="/app/lock.conf", old_string="a", new_string="b"), "ok")
    log.says("Added. Which city should I hardcode? What's your city?")
    log.typed("I am in Lyon most weeks but I travel so it has to switch")  # answers the question
    log.says("Good call. I'll add a city file with auto-detection as the fallback.")
    log.result(log.calls("Edit", file_path="/app/lock.conf", old_string="b", new_string="c"), "ok")
    log.says("Done, the city file is read first.")
    log.typed("还有一个，同一家公司的多个联系人可以一起记录")  # "also, …": an addition
    log.says("好思路。同一公司找到多人就一起记录。")
    log.result(log.calls("Edit", file_path="/app/lock.conf", old_string="c", new_string="d"), "ok")
    log.says("Done.")
    log.typed("the city file is read after the detection, that overrides my setting")
    log.says("Good catch. The order is wrong; let me read the file first.")  # a mistake conceded
    log.result(log.calls("Edit", file_path="/app/lock.conf", old_string="d", new_string="e"), "ok")
    log.says("Fixed. Should I also show the humidity?")
    log.typed("cityFile 我们是否叫 city_override 更符合语义？")  # asks back: a challenge
    log.says("好的建议。改名为 city_override。")
    memories = _mined(workspace, projects, log)
    assert [m.metadata["rule"] for m in memories] == ["acknowledged", "acknowledged"]
    assert "overrides my setting" in memories[0].content and "city_override" in memories[1].content


def test_a_no_answering_the_agents_offer_is_a_correction_when_it_says_what_should_be_but_is_not(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f4f4f4f4-0000-4000-8000-000000000040")
    log.typed("why are the monthly totals off?")
    log.result(log.calls("Bash", command="python3 sheet.py --totals"), "B12: 0.03")
    log.says("The gap is a month-over-month change. Do you want me to dig into the formula?")
    log.typed("No, in cells B12 and C12 you will see a subtraction. Those values should line up, "
              "but they routinely show a few cents difference. Explain why.")
    log.says("Looking at B12 now.")
    log.result(log.calls("Bash", command="python3 sheet.py --cell B12"), "=B11-A11")
    log.says("It reads the rounded cells. Want me to switch it to the raw values?")
    log.typed("no thanks, it should be fine but keep a note")  # an answer, nothing wrong
    log.says("Noted.")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["rule"] == "no" and "should line up" in memory.content


def test_the_same_words_typed_again_with_other_end_marks_are_one_correction(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f5f5f5f5-0000-4000-8000-000000000050")
    log.typed("make the nodes draggable")
    for n, turn in enumerate(("Nope, still cannot drag", "nope, still cannot drag.")):
        log.result(log.calls("Edit", file_path="/app/Flow.tsx", old_string=f"a{n}", new_string=f"b{n}"), "ok")
        log.says("Updated the handlers.")
        log.typed(turn)
    log.says("Let me look again.")
    [memory] = _mined(workspace, projects, log)
    assert memory.metadata["occurrences"] == 2


def test_a_call_refused_to_ask_a_question_says_to_answer_first_not_never_to_call_it(
        workspace: Workspace, projects: Path) -> None:
    log = _Log("f6f6f6f6-0000-4000-8000-000000000060")
    log.typed("tune the swap settings")
    log.refused(log.calls("Edit", file_path="/etc/nixos/swap.nix", old_string="a", new_string="b")).marker()
    # (a question alone is no reason at all: `test_stop_reasons_kinds`; with a word of why, it is)
    log.typed("Explain what swap priority is? I want to understand it before you change it")
    log.says("Swap priority decides which device is used first.")
    log.refused(log.calls("Bash", command="sudo swapoff -a")).marker()
    log.typed("no, the laptop has only one swap file")
    log.says("Understood.")
    asked, refused = _mined(workspace, projects, log)
    assert asked.content.startswith("Before you edit `/etc/nixos/swap.nix`, answer the person: they "
                                    "rejected it at the permission prompt and asked “Explain what swap")
    assert refused.content.startswith("Do not run `sudo swapoff -a`: the person rejected it")


def _refused_on_8080(comment: str) -> _Log:
    log = _Log("d2d2d2d2-0000-4000-8000-000000000002")
    log.typed("run the api tests")
    log.result(log.calls("Bash", command="pytest -q tests/api"),
               "Exit code 1\nE   ConnectionRefusedError: [Errno 111] Connection refused: localhost:8080\n"
               "1 failed, 3 passed", True)
    log.says("One test failed: the API is not reachable.")
    log.typed(comment)
    return log


def test_a_premise_set_right_keeps_the_routine_failure_it_answers(workspace: Workspace, projects: Path) -> None:
    """"The API runs on 8040, not 8080" after a routine test failure that went by 8080: the value is
    the lesson, so the failure is kept with the person's words."""
    memories = _mined(workspace, projects, _refused_on_8080(
        "The API runs on port 8040 locally, not 8080. Start it with `make api` first."))
    assert [m.metadata["why"] for m in memories] == ["the person commented on it"]
    assert memories[0].title.startswith("The API runs on port 8040 locally, not 8080")


def test_a_new_preference_is_no_comment_on_a_routine_failure(workspace: Workspace, projects: Path) -> None:
    memories = _mined(workspace, projects, _refused_on_8080("Use tabs, not spaces, in the new module."))
    assert not [m for m in memories if m.metadata["kind"] == "tool_error"]
