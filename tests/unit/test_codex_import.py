"""`dreamtui import codex`: Codex CLI rollouts → lessons.

The fixtures are written here in the shapes Codex CLI writes (session_meta, response_item,
event_msg records; the human-denial and policy strings codex-rs emits; the oldest top-level
layout), not copied from anyone's sessions.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dreamtui.intake.codex.frictions import classify, error_lines
from dreamtui.intake.codex.importer import (
    CodexOptions,
    default_sessions_dir,
    import_rollouts,
    read_rollout,
)
from dreamtui.intake.codex.reader import Result, RolloutReader
from dreamtui.intake.lessons import path_inside
from dreamtui.scaffold import init_workspace
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace, open_workspace

PROJECT = "/code/app"
OLD = datetime(2026, 8, 3, 12, 0, tzinfo=UTC)
NOW = datetime(2026, 8, 4, 12, 0, tzinfo=UTC)


class Rollout:
    """Builds one rollout's lines the way Codex CLI writes them."""

    def __init__(self, session: str = "019f-aaaa", cwd: str = PROJECT, version: str = "0.146.0"):
        self.session = session
        self.lines: list[dict[str, Any]] = []
        self.minute = 0
        self.calls = 0
        self.record("session_meta", {"id": session, "timestamp": self.ts(), "cwd": cwd,
                                     "originator": "codex_cli_rs", "cli_version": version,
                                     "source": "cli", "base_instructions": {"text": "x" * 2000}})
        self.record("turn_context", {"cwd": cwd, "approval_policy": "on-request", "model": "gpt"})

    def ts(self) -> str:
        self.minute += 1
        return f"2026-08-03T10:{self.minute:02d}:00.000Z"

    def record(self, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append({"timestamp": self.ts(), "type": kind, "payload": payload})

    def typed(self, text: str) -> Rollout:
        # Codex writes the turn as a message item and again as a user_message event.
        self.record("response_item", {"type": "message", "role": "user",
                                      "content": [{"type": "input_text", "text": text}]})
        self.record("event_msg", {"type": "user_message", "message": text, "images": []})
        return self

    def harness(self, text: str) -> Rollout:
        self.record("response_item", {"type": "message", "role": "user",
                                      "content": [{"type": "input_text", "text": text}]})
        return self

    def says(self, text: str) -> Rollout:
        self.record("event_msg", {"type": "agent_message", "message": text})
        self.record("response_item", {"type": "message", "role": "assistant",
                                      "content": [{"type": "output_text", "text": text}]})
        return self

    def shell(self, command: str, output: str, exit_code: int = 0, *,
              declined: bool = False, framed_first: bool = False) -> Rollout:
        self.calls += 1
        call_id = f"call_{self.calls}"
        self.record("response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                      "arguments": json.dumps({"command": ["bash", "-lc", command],
                                                               "workdir": PROJECT})})
        framed = output if declined else (f"Exit code: {exit_code}\nWall time: 0.4 seconds\n"
                                          f"Output:\n{output}")
        end = {"type": "exec_command_end", "call_id": call_id,
               "command": ["bash", "-lc", command], "exit_code": -1 if declined else exit_code,
               "stdout": "", "stderr": output, "aggregated_output": output,
               "status": "declined" if declined else ("completed" if exit_code == 0 else "failed")}
        if not framed_first:  # newer Codex writes the end event first, some the framed output
            self.record("event_msg", end)
        self.record("response_item", {"type": "function_call_output", "call_id": call_id,
                                      "output": framed})
        if framed_first:
            self.record("event_msg", end)
        return self

    def patch(self, path: str, output: str) -> Rollout:
        self.calls += 1
        call_id = f"call_{self.calls}"
        body = f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"
        self.record("response_item", {"type": "custom_tool_call", "name": "apply_patch",
                                      "call_id": call_id, "input": body, "status": "completed"})
        self.record("response_item", {"type": "custom_tool_call_output", "call_id": call_id,
                                      "output": output})
        return self

    def abort(self) -> Rollout:
        self.record("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
        return self

    def write(self, folder: Path, name: str | None = None, when: datetime = OLD) -> Path:
        day = folder / "2026" / "08" / "03"
        day.mkdir(parents=True, exist_ok=True)
        path = day / (name or f"rollout-2026-08-03T10-00-00-{self.session}.jsonl")
        path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n"
                                for line in self.lines), encoding="utf-8")
        os.utime(path, (when.timestamp(), when.timestamp()))
        return path


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    init_workspace(root)
    return open_workspace(root)


def _import(workspace: Workspace, sessions: Path, **kw: Any) -> Any:
    options = CodexOptions(sessions_dir=sessions, project=PROJECT, **kw)
    return import_rollouts(workspace, options, now=NOW)


def _stored(workspace: Workspace) -> list[Any]:
    with STMStore.for_workspace(workspace) as store:
        return list(store.page(limit=1000))


def test_a_declined_command_is_a_rejection_with_the_reason_the_person_typed(tmp_path: Path) -> None:
    rollout = (Rollout().harness("<environment_context>\n<cwd>/code/app</cwd>\n</environment_context>")
               .typed("Set up the database")
               .shell("psql -h prod.db -c 'drop table users'", "exec command rejected by user",
                      declined=True)
               .typed("never touch the prod database; use the local docker one"))
    frictions, stats, version = read_rollout(rollout.write(tmp_path))
    assert [f.kind for f in frictions] == ["rejection"]
    rejection = frictions[0]
    assert rejection.action == "psql -h prod.db -c 'drop table users'"
    assert rejection.reason == "never touch the prod database; use the local docker one"
    assert version == "0.146.0" and stats.malformed == 0 and not stats.unknown


def test_each_declined_call_is_its_own_memory_and_a_reasonless_one_is_kept(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Deploy it")
               .shell("git push --force", "exec command rejected by user", declined=True)
               .typed("no force pushes, open a PR")
               .shell("git push origin HEAD:main", "exec command rejected by user", declined=True)
               .typed("I said open a PR")
               .patch("/etc/hosts", "patch rejected by user"))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert [(f.kind, f.reason) for f in frictions] == [
        ("rejection", "no force pushes, open a PR"), ("rejection", "I said open a PR"),
        ("rejection", None)]
    assert frictions[2].action == "apply_patch /etc/hosts"


def test_routine_failures_are_dropped_and_the_ones_the_agent_could_not_pass_kept(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Fix the failing test")
               .shell("cat src/missing.py", "cat: src/missing.py: No such file or directory", 1)
               .shell("pytest tests/test_a.py", "FAILED tests/test_a.py::test_x - AssertionError", 1)
               .shell("pytest tests/test_a.py", "1 passed", 0)
               .shell("make lint", "\x1b[31merror\x1b[0m: ruff config invalid: unknown rule E999", 2)
               .shell("make lint", "\x1b[31merror\x1b[0m: ruff config invalid: unknown rule E999", 2)
               .shell("pnpm test", "bash: line 1: pnpm: command not found", 127)
               .says("Done."))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    kinds = {(f.kind, f.action) for f in frictions}
    assert kinds == {("environment", "pnpm test"), ("tool_error", "make lint")}
    lint = next(f for f in frictions if f.kind == "tool_error")
    assert lint.occurrences == 2
    assert "\x1b" not in lint.evidence and lint.evidence == "error: ruff config invalid: unknown rule E999"


def test_a_failure_the_person_spoke_about_is_kept_with_their_words(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Run the migrations")
               .shell("alembic upgrade head", "sqlalchemy.exc.OperationalError: could not connect", 1)
               .typed("alembic cannot connect because the db runs in docker compose, start it first"))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert [(f.kind, f.reason) for f in frictions] == [
        ("tool_error", "alembic cannot connect because the db runs in docker compose, start it first")]


def test_the_next_prompt_is_no_comment_unless_it_names_the_failure(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Run the migrations")
               .shell("alembic upgrade head", "sqlalchemy.exc.OperationalError: could not connect", 1)
               .typed("Hello?")
               .shell("rg TODO src", "", 1)
               .shell("rg TODO src", "", 1)
               .typed("Thanks! Now write the changelog"))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert frictions == []  # a one-off failure, and two searches that found nothing


def test_a_correction_of_what_the_agent_said_counts_too(tmp_path: Path) -> None:
    rollout = (Rollout().typed("What is your goal here?")
               .says("To keep the notes tidy.")
               .typed("NO -- more specifically, keep the record accurate"))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert [(f.kind, f.evidence) for f in frictions] == [
        ("correction", "NO -- more specifically, keep the record accurate")]


def test_a_rollout_skipped_for_another_project_is_read_for_its_own(workspace: Workspace,
                                                                   tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    (Rollout(cwd="/code/other").typed("go")
     .shell("npm install", "exec command rejected by user", declined=True)
     .typed("use pnpm")).write(sessions)
    assert _import(workspace, sessions).other_project == 1
    options = CodexOptions(sessions_dir=sessions, project="/code/other")
    report = import_rollouts(workspace, options, now=NOW)
    assert (report.read, report.unchanged, report.inserted) == (1, 0, 1)
    # Its own project read it; another project's import leaves it read, so nothing is read again.
    assert _import(workspace, sessions).other_project == 1
    again = import_rollouts(workspace, options, now=NOW)
    assert (again.read, again.unchanged) == (0, 1)


def test_corrections_by_rule_and_by_the_agents_acknowledgement(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Add the dependency")
               .shell("pip install httpx", "Successfully installed httpx", 0)
               .typed("no, use uv add instead of pip")
               .says("Switching to uv.")
               .shell("uv add httpx", "Resolved 3 packages", 0)
               .typed("did you actually run the tests after that?")
               .says("You're right, I did not run them. Running now.")
               .shell("uv run pytest", "3 passed", 0)
               .typed("thanks, looks good")
               .says("Great."))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert [(f.kind, f.evidence, f.action) for f in frictions] == [
        ("correction", "no, use uv add instead of pip", "pip install httpx"),
        ("correction", "did you actually run the tests after that?", "uv add httpx")]


def test_a_stop_and_the_turn_that_redirects_are_one_interruption_and_none_without(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Refactor the parser")
               .shell("sleep 100", "aborted by user after 3.2s", 1)
               .shell("rg parser", "aborted by user after 3.2s", 1)
               .abort()
               .typed("stop, keep the public API unchanged")
               .shell("rg tokens", "aborted by user after 1.0s", 1)
               .abort())
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert [(f.kind, f.reason, f.action) for f in frictions] == [
        ("interruption", "stop, keep the public API unchanged", "sleep 100")]


def test_a_stop_to_amend_the_persons_own_message_is_no_lesson(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Which port for stderr?")
               .says("Should stderr be a separate output port?")
               .typed("separate output port")
               .abort()
               .typed("separate output port. Oh, and light the port up when data arrives")
               .says("Got it.")
               .shell("npm run dev", "ready on :3000", 0)
               .says("The drag now works.")
               .typed("nope, still cannot drag")
               .shell("npm run dev", "ready on :3000", 0)
               .abort()
               .typed("nope, still cannot drag. it starts a selection instead"))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    # The first stop amended an answer; the second amended a correction, which is one correction
    # in its amended words.
    assert [(f.kind, f.evidence) for f in frictions] == [
        ("correction", "nope, still cannot drag. it starts a selection instead")]


def test_policy_denials_hooks_and_sandbox_are_told_apart() -> None:
    def kind(text: str) -> str | None:
        return classify(Result("c", False, text, None))
    assert kind("This action was rejected due to unacceptable risk. Rationale: deletes data") == "denial"
    assert kind("`rm -rf /` rejected: policy forbids commands starting with `rm`") == "denial"
    assert kind("Command blocked by PreToolUse hook: no network. Command: curl x") == "hook_block"
    assert kind('Network access to "pypi.org" is blocked by policy.') == "environment"
    assert kind("touch: cannot touch '/usr/x': Read-only file system") == "environment"
    assert kind("Traceback (most recent call last):\nValueError: bad") == "tool_error"
    assert classify(Result("c", True, "ok", None)) is None
    framed = ("Exit code: 1\nWall time: 1.2 seconds\nOutput:\ncollected 3 items\n"
              "FAILED tests/test_a.py::test_x - AssertionError\n")
    assert error_lines(framed) == "FAILED tests/test_a.py::test_x - AssertionError"


def test_the_oldest_layout_and_unknown_shapes_are_read_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "rollout-old.jsonl"
    lines = [
        {"id": "old-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": "x"},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run it"}]},
        {"type": "function_call", "name": "shell", "call_id": "c1",
         "arguments": json.dumps({"command": ["make", "release"]})},
        {"type": "function_call_output", "call_id": "c1",
         "output": json.dumps({"output": "exec command rejected by user", "metadata": {"exit_code": 1}})},
        {"type": "message", "role": "user", "content": [{"type": "input_text",
                                                         "text": "releases go through CI only"}]},
        {"timestamp": "2025-05-01T10:05:00Z", "type": "event_msg",
         "payload": {"type": "brand_new_event", "x": 1}},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n", encoding="utf-8")
    frictions, stats, _ = read_rollout(path)
    assert [(f.kind, f.action, f.reason) for f in frictions] == [
        ("rejection", "make release", "releases go through CI only")]
    assert frictions[0].session_id == "old-1"
    assert stats.unknown == {"event_msg/brand_new_event": 1} and stats.malformed == 1


def test_import_stores_lessons_once_and_reimport_reads_nothing(workspace: Workspace,
                                                               tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    (Rollout().typed("Set up")
     .shell("npm install", "exec command rejected by user", declined=True)
     .typed("this repo uses pnpm, never npm")).write(sessions)
    Rollout(session="019f-bbbb", cwd="/code/app2").typed("x").shell(
        "rm -rf build", "exec command rejected by user", declined=True).typed("no").write(sessions)
    first = _import(workspace, sessions)
    assert (first.read, first.other_project, first.inserted) == (1, 1, 1)
    memory = _stored(workspace)[0]
    assert memory.title == "This repo uses pnpm, never npm (rejected: run `npm install`)"
    assert memory.content.startswith("Do not run `npm install`: the person rejected it at the "
                                     "permission prompt and said “this repo uses pnpm, never npm”.")
    assert memory.metadata["session_id"] == "019f-aaaa" and memory.metadata["source"] == "codex"
    assert memory.metadata["log"].endswith("019f-aaaa.jsonl") and "019f-aaaa" not in memory.content
    assert memory.agent_id == "codex"
    again = _import(workspace, sessions)
    assert (again.read, again.unchanged, again.other_project, again.inserted) == (0, 1, 1, 0)


def test_an_appended_rollout_adds_only_its_new_lessons(workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    rollout = (Rollout().typed("go").shell("npm install", "exec command rejected by user",
                                           declined=True).typed("use pnpm"))
    rollout.write(sessions)
    _import(workspace, sessions)
    rollout.shell("docker compose down -v", "exec command rejected by user", declined=True)
    rollout.typed("never drop the volumes, they hold the dev data")
    rollout.write(sessions, when=datetime(2026, 8, 3, 13, 0, tzinfo=UTC))
    report = _import(workspace, sessions)
    assert (report.inserted, report.duplicates) == (1, 1)
    assert len(_stored(workspace)) == 2


def test_since_compares_the_events_own_time(workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    (Rollout().typed("go").shell("npm install", "exec command rejected by user", declined=True)
     .typed("use pnpm")).write(sessions)
    report = _import(workspace, sessions, since=datetime(2026, 8, 3, 10, 30, tzinfo=UTC))
    assert (report.read, report.frictions) == (1, 0)


def test_live_rollouts_wait_and_a_prefix_project_is_not_ours(workspace: Workspace,
                                                             tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    Rollout().typed("go").write(sessions, when=NOW)
    assert _import(workspace, sessions).live == 1
    assert path_inside("/code/app/sub", "/code/app") and not path_inside("/code/app2", "/code/app")
    assert path_inside("c:\\Users\\me\\app\\sub", "C:\\Users\\me\\app")


def test_sessions_dir_follows_codex_home(workspace: Workspace, tmp_path: Path) -> None:
    assert default_sessions_dir(workspace, {"CODEX_HOME": str(tmp_path / "ch")}) == \
        tmp_path / "ch" / "sessions"
    assert default_sessions_dir(workspace, {}).parts[-2:] == (".codex", "sessions")


def test_a_search_whose_matches_say_error_a_typo_and_a_retry_after_an_esc_are_no_lessons(
        tmp_path: Path) -> None:
    rollout = (Rollout().typed("Find where the config error is raised")
               .shell('rg -n "codex" -g"*"', "worker.py:62:    except codex_config.CodexConfigError"
                                              " as exc:", 1)
               .shell('rg -n "codex" -g"*"', "worker.py:62:    except codex_config.CodexConfigError"
                                              " as exc:", 1)
               .shell("rg -n shard missing.md", "rg: missing.md: No such file or directory (os "
                                                 "error 2)", 1)
               .shell("rg -n shard missing.md", "rg: missing.md: No such file or directory (os "
                                                 "error 2)", 1)
               .shell("rg -n '(shard' src", "rg: regex parse error:\n    (shard\nerror: unclosed "
                                             "group", 2)
               .shell("rg -n '(shard' src", "rg: regex parse error:\n    (shard\nerror: unclosed "
                                             "group", 2)
               .shell("nmp test", "nmp : The term 'nmp' is not recognized\n+ CategoryInfo : "
                                  "ObjectNotFound: (nmp:String) [], CommandNotFoundException", 1)
               .shell("nmp test", "nmp : The term 'nmp' is not recognized\n+ CategoryInfo : "
                                  "ObjectNotFound: (nmp:String) [], CommandNotFoundException", 1)
               .shell("sleep 100", "aborted by user after 3.2s", 1)
               .abort()
               .typed("Retry")
               .shell("sleep 100", "aborted by user after 1.0s", 1)
               .abort()
               .typed("RESEARCH: OpenAI Swarm protocols")
               .shell('rg -n "codex" -g"*"', "command timed out after 1013 milliseconds\n"
                                              "compose.yaml:29: codex --version", 124)
               .typed("the codex workers pull jobs from one central queue")
               .patch("AGENTS.md", "apply_patch verification failed: Failed to find expected lines "
                                   "in AGENTS.md:\nIf any work remains")
               .patch("AGENTS.md", "apply_patch verification failed: Failed to find expected lines "
                                   "in AGENTS.md:\nIf any work remains")
               .shell("Get-Content '!/DOCKET.md'", "Get-Content : Cannot find path 'C:\\v\\!\\DOCKET.md'"
                                                   " because \r\nit does not exist.\r\nAt line:1", 1,
                      framed_first=True)
               .shell("Get-Content '!/DOCKET.md'", "Get-Content : Cannot find path 'C:\\v\\!\\DOCKET.md'"
                                                   " because \r\nit does not exist.\r\nAt line:1", 1,
                      framed_first=True)
               .shell("sleep 100", "aborted by user after 1.0s", 1)
               .abort()
               .typed("Error ID: 3d511891-89d5-4d26-a816-9d1407ff54d6")
               .shell("Get-Content '!/BRIEF.md'", "Get-Content : Cannot open 'C:\\v\\!\\BRIEF.md'", 1)
               .typed("You are helping with rewrite prep for C:\\v. Read !/BRIEF.md and the docket, "
                      + "then list every open thread, its owner and its state. " * 8)
               .shell("Get-ChildItem -Recurse -File | Select-String -Pattern 'HUNTER'",
                      "0x%X  (iO)        error buffer index out of range", 1)
               .shell("Get-ChildItem -Recurse -File | Select-String -Pattern 'HUNTER'",
                      "0x%X  (iO)        error buffer index out of range", 1)
               .shell("sed -n '1,200p' docsArchitecture.md",
                      "sed: can't read docsArchitecture.md: No such file or directory", 2)
               .shell("sed -n '1,200p' docsArchitecture.md",
                      "sed: can't read docsArchitecture.md: No such file or directory", 2))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    # Only rg's own complaint, twice, is a failure the agent did not get past: a path it guessed
    # that is not there is exploration, however often it guesses it.
    assert {(f.kind, f.action) for f in frictions} == {("tool_error", "rg -n '(shard' src")}


def test_one_fact_of_the_machine_is_one_memory_across_commands_sessions_and_imports(
        workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    missing = "/run/current-system/sw/bin/bash: line 1: cargo: command not found"
    (Rollout().typed("Build the kernel")
     .shell("cargo check --manifest-path kernel/Cargo.toml", missing, 127)
     .shell("cargo test", missing, 127).says("Cargo is missing.")).write(sessions)
    (Rollout(session="019f-bbbb").typed("Run the tests")
     .shell("cargo test -p ui", missing, 127)).write(sessions)
    report = _import(workspace, sessions)
    assert (report.frictions, report.inserted) == (3, 1)
    [memory] = _stored(workspace)
    assert memory.title == "`cargo` is not installed here"
    assert memory.metadata["occurrences"] == 3 and memory.metadata["kind"] == "environment"
    assert "Seen 3 times in 2 sessions" in memory.content
    # A later session meeting it again raises the count of the memory still pending.
    (Rollout(session="019f-cccc").typed("again").shell("cargo build", missing, 127)).write(sessions)
    again = _import(workspace, sessions)
    assert (again.read, again.inserted, again.duplicates, again.recounted) == (1, 0, 1, 1)
    [memory] = _stored(workspace)
    assert memory.metadata["occurrences"] == 4 and len(memory.metadata["record_uuids"]) == 4


def test_a_failures_title_names_the_fact_and_the_persons_instruction_is_its_lesson(
        workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    pubsub = ('** (RuntimeError) failed to start Mix.PubSub, reason: {{:shutdown, {:failed_to_start_'
              'child, Mix.PubSub.Subscriber, {%Mix.Error{message: "failed to open a TCP socket in '
              'Mix.Sync.PubSub.subscribe/1, reason: :eperm"}}}}')
    (Rollout().typed("Add the column").shell("mix precommit", pubsub, 1)
     .shell("mix precommit", pubsub, 1).says("mix precommit fails in the sandbox.")).write(sessions)
    (Rollout(session="019f-bbbb").typed("Yes, implement this, don't bother running mix precommit "
                                        "as it isn't working yet.")
     .shell("mix precommit", pubsub, 1)).write(sessions)
    _import(workspace, sessions)
    [memory] = _stored(workspace)
    assert memory.title.startswith("Don't bother running mix precommit as it isn't working yet "
                                   "(`mix precommit` cannot run here: the sandbox blocks network")
    # the person's instruction is the lesson: it leads, the failure and its fact follow
    assert memory.content.startswith("Don't bother running mix precommit as it isn't working yet (the "
                                     "person said so when `mix precommit` failed here with “failed to start "
                                     "Mix.PubSub”; `mix precommit` cannot run here: the sandbox blocks network "
                                     "sockets (EPERM)).")
    assert memory.metadata["occurrences"] == 3
    assert memory.metadata["reason"] == "don't bother running mix precommit as it isn't working yet"


def test_a_fact_title_without_a_word_from_the_person() -> None:
    from dreamtui.intake.codex.frictions import Friction
    from dreamtui.intake.codex.importer import CODEX, shared_friction
    from dreamtui.intake.lessons import build_memories
    from dreamtui.workspace.config import Config

    def title(kind: str, command: str, evidence: str) -> str:
        friction = Friction(kind, "s", None, command, "shell", evidence, None, "c1", PROJECT)
        return build_memories([shared_friction(friction, "log", None)], Config(), CODEX)[0].title
    assert title("environment", "bash .specify/setup.sh --json",
                 ".specify/setup.sh: line 2: $'\\r': command not found") == (
        "Shell scripts here have Windows line endings ($'\\r': command not found): convert them "
        "to LF before running them")
    assert title("environment", "python -m unittest", "ERROR: test_x (t.T.test_x)\nTraceback (most "
                 "recent call last):\nPermissionError: [Errno 13] Permission denied: 'C:\\\\T\\\\tmp'") \
        == "`python` cannot run here: PermissionError: [Errno 13] Permission denied: 'C:\\\\T\\\\tmp'"
    assert title("tool_error", "mix test", "** (RuntimeError) could not start repo, reason: {{:x}}") \
        == "`mix test` fails here: could not start repo"
    assert title("environment", "git add a.md", "fatal: Unable to create 'C:/v/.git/index.lock': "
                 "Permission denied") == ("`git add` cannot run here: git cannot write in .git "
                                          "(permission denied on its lock files)")
    assert title("environment", "git fetch --all --prune", "ssh: Could not resolve hostname "
                 "github.com: Temporary failure in name resolution") == (
        "`git fetch` cannot run here: there is no network access (host names do not resolve)")


def test_powershells_missing_command_is_a_fact_of_the_machine(tmp_path: Path) -> None:
    missing = ("crewai : The term 'crewai' is not recognized as the name of a cmdlet, function, \r\n"
               "script file, or operable program.\r\nAt line:2 char:1\r\n+ crewai create crew x\r\n"
               "    + CategoryInfo          : ObjectNotFound: (crewai:String) [], CommandNotFou \r\n"
               "   ndException\r\n    + FullyQualifiedErrorId : CommandNotFoundException\r\n")
    rollout = Rollout().typed("Scaffold the crew").shell("crewai create crew x", missing, 1)
    [friction] = read_rollout(rollout.write(tmp_path))[0]
    assert friction.kind == "environment"
    assert friction.evidence.startswith("crewai : The term 'crewai' is not recognized")


def test_exploration_misses_and_output_stating_no_error_are_no_failures(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Count the bills")
               .shell("Get-ChildItem 'BILLS' | Measure-Object", "0\r\nGet-ChildItem : Cannot find "
                      "path 'C:\\v\\BILLS' because \r\nit does not exist.\r\nAt line:2 char:1\r\n"
                      "    + CategoryInfo : ObjectNotFound: (C:\\v\\BILLS:String) [Get-ChildItem], "
                      "ItemNotFound \r\n   Exception", 1)
               .shell("python scan.py", "Traceback (most recent call last):\nFileNotFoundError: "
                      "[WinError 3] The system cannot find the path specified: 'C:\\x'", 1)
               .shell("git lfs ls-files | Select-Object -First 2", "fa14 - Survey.pdf\n85b5 - "
                      "Results.pdf", 1)
               .typed("the bills are under GOVERNMENTS, Survey.pdf and scan.py are fine"))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert frictions == []


def test_a_word_or_two_typed_again_with_more_is_no_amendment(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Seed the database").says("Shall I seed it now?").typed("ok")
               .shell("psql -h prod.db -f seed.sql", "", 0).abort()
               .typed("ok, but seed the staging database, not prod"))
    assert [(f.kind, f.reason) for f in read_rollout(rollout.write(tmp_path))[0]] == [
        ("interruption", "ok, but seed the staging database, not prod")]


def test_an_amendment_that_adds_a_correction_is_one(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Fix the parser")
               .shell("sed -i 's/parse/parse2/' src/api.py", "", 0).abort()
               .typed("Fix the parser, but don't touch the public API"))
    assert [(f.kind, f.reason, f.action) for f in read_rollout(
        rollout.write(tmp_path))[0]] == [("interruption", "Fix the parser, but don't touch the public "
                                          "API", "sed -i 's/parse/parse2/' src/api.py")]


def test_a_correction_names_the_command_not_the_poll_of_its_output(tmp_path: Path) -> None:
    rollout = Rollout().typed("Make nodes draggable").shell("npm run dev", "ready on :3000", 0)
    rollout.calls += 1
    rollout.record("response_item", {"type": "function_call", "name": "write_stdin",
                                     "call_id": "poll", "arguments": '{"session_id": 3, "chars": ""}'})
    rollout.record("response_item", {"type": "function_call_output", "call_id": "poll",
                                     "output": "Process running"})
    rollout.says("Dragging works now.").typed("nope, still cannot drag")
    [friction] = read_rollout(rollout.write(tmp_path))[0]
    assert (friction.kind, friction.action) == ("correction", "npm run dev")


def test_a_ping_after_a_stop_redirects_nothing(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Fetch the page").shell("curl -s x", "aborted by user", 1).abort()
               .typed("PING"))
    assert read_rollout(rollout.write(tmp_path))[0] == []


def test_the_command_says_how_many_pending_memories_were_counted_again(workspace: Workspace,
                                                                       tmp_path: Path) -> None:
    from click.testing import CliRunner

    from dreamtui.cli import main
    sessions = tmp_path / "sessions"
    missing = "bash: line 1: uv: command not found"
    Rollout().typed("sync").shell("uv sync", missing, 127).write(sessions)
    args = ["--workspace", str(workspace.root), "import", "codex", "--sessions-dir", str(sessions),
            "--project", PROJECT, "--include-live"]
    assert CliRunner().invoke(main, args).exit_code == 0
    Rollout(session="019f-bbbb").typed("lock").shell("uv lock", missing, 127).write(sessions)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "0 new, 1 already imported (1 still pending got a higher occurrence count)" in result.output


def test_a_stop_then_a_console_error_is_an_interruption_titled_by_the_error(
        workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    (Rollout().typed("Make nodes draggable").says("Dragging now works; refresh and try it.")
     .shell("npm run dev", "ready on :3000", 0).abort()
     .typed("Wait, hold on. I see a console error: \n\n[React Flow]: It seems that you are trying "
            "to drag a node that is not initialized.")).write(sessions)
    _import(workspace, sessions)
    [memory] = _stored(workspace)
    assert memory.metadata["kind"] == "interruption"
    assert memory.content.startswith("The person stopped the agent as it was about to run `npm run "
                                     "dev` and said “Wait, hold on. I see a console error:")
    assert memory.title.startswith("I see a console error: [React Flow]: It seems that you are "
                                   "trying to drag a node that is not initialized. (interrupted")


def _as_stored_by_79ef06f(workspace: Workspace, sessions: Path) -> int:
    """Store the rollouts' lessons as the import of commit 79ef06f did: one memory per friction
    of each session (a failure once per session and command), keyed by session, kind and call,
    metadata without record ids; a stop followed by a redirect was an interruption."""
    import hashlib

    from dreamtui.intake.codex.importer import read_rollout
    from dreamtui.model import NewMemory

    def norm(text: str | None) -> str:
        return " ".join((text or "").lower().split())[:300]

    memories: dict[str, NewMemory] = {}
    for path in sorted(sessions.rglob("rollout-*.jsonl")):
        frictions, _, version = read_rollout(path)
        for f in frictions:
            kind = f.kind
            moment = f.timestamp  # a stop's: the time Codex aborted the turn
            distinct = kind in ("rejection", "interruption", "correction")
            parts = [kind, norm(f.action),
                     (f.call_id or moment or "") if distinct else norm(f.evidence)]
            digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]
            key = f"codex:{f.session_id[:64]}:{kind}:{digest}"
            memories.setdefault(key, NewMemory(
                type="failure" if kind != "environment" else "observation",
                title=f"{f.action} ({kind})", content=f.evidence, agent_id="codex",
                tags=("codex", kind), idempotency_key=key,
                metadata={"source": "codex", "kind": kind, "session_id": f.session_id,
                          "timestamp": moment, "call_id": f.call_id, "tool": f.tool,
                          "cwd": f.cwd, "log": str(path.relative_to(sessions)),
                          "cli_version": version, "occurrences": f.occurrences}))
    with STMStore.for_workspace(workspace) as store:
        return store.submit_many(list(memories.values()), now=OLD).inserted


def test_upgrading_from_the_per_session_keys_stores_no_lesson_twice(workspace: Workspace,
                                                                     tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    pubsub = "** (Mix) failed to open a TCP socket in Mix.Sync.PubSub.subscribe/1, reason: :eperm"
    first = (Rollout().typed("Add the column").shell("mix precommit", pubsub, 1)
             .shell("mix precommit", pubsub, 1)
             .shell("npm install", "exec command rejected by user", declined=True)
             .typed("use pnpm here")
             .shell("cargo build", "compiling…").abort()
             .typed("no, don't touch the public API, fix the parser instead"))
    first.write(sessions)
    (Rollout(session="019f-bbbb").typed("Run the checks").shell("mix precommit", pubsub, 1)
     .shell("mix precommit", pubsub, 1)).write(sessions)
    old = _as_stored_by_79ef06f(workspace, sessions)
    assert old == 4  # two failures (one a session), the rejection, the stop with its redirect
    # The session goes on: the failure again, and a new lesson.
    first.shell("mix precommit", pubsub, 1)
    first.shell("docker compose down -v", "exec command rejected by user", declined=True)
    first.typed("never drop the volumes, they hold the dev data")
    first.write(sessions, when=datetime(2026, 8, 3, 13, 0, tzinfo=UTC))
    report = _import(workspace, sessions)
    stored = _stored(workspace)
    assert (report.inserted, len(stored)) == (1, old + 1)
    assert sum("docker compose down -v" in (m.title + m.content) for m in stored) == 1
    assert _import(workspace, sessions).inserted == 0


def test_a_lesson_whose_key_changed_counts_its_new_occurrences_once(workspace: Workspace,
                                                                    tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    missing = "bash: line 1: uv: command not found"
    rollout = Rollout().typed("sync").shell("uv sync", missing, 127)
    rollout.write(sessions)
    _import(workspace, sessions)
    # A later version keys the same lesson otherwise: the stored memory is it, met again.
    with STMStore.for_workspace(workspace) as store:
        conn = store._connect()
        conn.execute("UPDATE stm_memories SET idempotency_key = 'codex:an-older-scheme'")
        conn.commit()
    rollout.shell("uv lock", missing, 127)
    rollout.write(sessions, when=datetime(2026, 8, 3, 13, 0, tzinfo=UTC))
    report = _import(workspace, sessions)
    [memory] = _stored(workspace)
    assert (report.inserted, report.duplicates, report.recounted) == (0, 1, 1)
    assert memory.metadata["occurrences"] == 2
    assert memory.metadata["record_uuids"] == ["019f-aaaa:call_1", "019f-aaaa:call_2"]
    rollout.write(sessions, when=datetime(2026, 8, 3, 14, 0, tzinfo=UTC))  # read whole again
    _import(workspace, sessions)
    assert _stored(workspace)[0].metadata["occurrences"] == 2


PUBSUB = ("** (RuntimeError) failed to start Mix.PubSub, reason: {{:shutdown, {:failed_to_start_child, "
          "Mix.PubSub.Subscriber, {%Mix.Error{message: \"failed to open a TCP socket in "
          "Mix.Sync.PubSub.subscribe/1, reason: :eperm\"}}}}")
INSTRUCTION = "Yes, implement this, don't bother running mix precommit as it isn't working yet."


def test_an_instruction_read_in_an_earlier_import_is_the_lesson_of_a_later_failure(
        workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    Rollout().typed(INSTRUCTION).says("Implemented.").write(sessions)
    assert _import(workspace, sessions).inserted == 0
    (Rollout(session="019f-bbbb").typed("Add the column").shell("mix precommit", PUBSUB, 1)
     .shell("mix precommit", PUBSUB, 1)).write(sessions)
    report = _import(workspace, sessions)
    [memory] = _stored(workspace)
    assert (report.read, report.unchanged, report.inserted) == (1, 1, 1)
    assert memory.title.startswith("Don't bother running mix precommit as it isn't working yet "
                                   "(`mix precommit` cannot run here")
    assert memory.metadata["instruction_session"] == "019f-aaaa"


def test_a_pending_failure_takes_the_instruction_a_later_import_finds(workspace: Workspace,
                                                                      tmp_path: Path) -> None:
    from click.testing import CliRunner

    from dreamtui.cli import main
    sessions = tmp_path / "sessions"
    (Rollout().typed("Add the column").shell("mix precommit", PUBSUB, 1)
     .shell("mix precommit", PUBSUB, 1)).write(sessions)
    refused = "** (DBConnection.ConnectionError) connection refused"
    (Rollout(session="019f-cccc").typed("Add the index").shell("mix precommit", refused, 1)
     .shell("mix precommit", refused, 1)).write(sessions)
    unbuilt = "** (Mix) error: could not compile dependency :telemetry"
    (Rollout(session="019f-dddd", cwd="/code/other").typed("Build").shell("mix precommit", unbuilt, 1)
     .shell("mix precommit", unbuilt, 1)).write(sessions)
    _import(workspace, sessions)
    args = ["--workspace", str(workspace.root), "import", "codex", "--sessions-dir", str(sessions),
            "--include-live"]
    assert CliRunner().invoke(main, [*args, "--project", "/code/other"]).exit_code == 0
    before = {m.metadata["session_id"]: m for m in _stored(workspace)}
    assert not any(m.metadata["reason"] for m in before.values())
    with STMStore.for_workspace(workspace) as store:  # a dream consumed one of them
        assert store.consume_pending([before["019f-cccc"].id], now=NOW) == 1
    Rollout(session="019f-bbbb").typed(INSTRUCTION).says("Implemented.").write(sessions)
    result = CliRunner().invoke(main, [*args, "--project", PROJECT])
    assert result.exit_code == 0, result.output
    assert "0 already imported; 1 pending failure took the person's instruction about it" \
        in result.output
    after = {m.metadata["session_id"]: m for m in _stored(workspace)}
    precommit = after["019f-aaaa"]
    assert precommit.title.startswith("Don't bother running mix precommit as it isn't working yet "
                                      f"({before['019f-aaaa'].title[:30]}")
    # the instruction leads the first line as it would have had it come first; the fact follows
    assert precommit.content.startswith("Don't bother running mix precommit as it isn't working yet (the person "
                                        "said so when `mix precommit` failed here with “failed to start Mix.PubSub”; "
                                        "`mix precommit` cannot run here: the sandbox blocks network sockets (EPERM)).")
    assert "The person then said: “don't bother running mix precommit as it isn't working yet”" \
        in precommit.content
    assert precommit.content.endswith(before["019f-aaaa"].content.rsplit("\n", 1)[1])  # seen line
    assert precommit.metadata["occurrences"] == 2
    # Another project's failure and a consumed one stay as they were.
    assert after["019f-dddd"].title == before["019f-dddd"].title
    assert (after["019f-cccc"].title, after["019f-cccc"].content) == (
        before["019f-cccc"].title, before["019f-cccc"].content)
    again = CliRunner().invoke(main, [*args, "--project", PROJECT])
    assert "instruction" not in again.output


def test_an_unreadable_rollout_and_unknown_shapes_are_named_on_their_own_line(
        workspace: Workspace, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from dreamtui.cli import main
    sessions = tmp_path / "sessions"
    rollout = Rollout().typed("go")
    rollout.record("event_msg", {"type": "brand_new_event"})
    rollout.write(sessions)
    (sessions / "2026" / "08" / "03" / "rollout-2026-08-03T11-00-00-019f-zzzz.jsonl").mkdir()
    args = ["--workspace", str(workspace.root), "import", "codex", "--sessions-dir", str(sessions),
            "--project", PROJECT, "--include-live"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("codex: 2 rollouts in ") and ", 1 read for /code/app;" in lines[0]
    assert lines[1:3] == [
        "  1 rollout could not be read: rollout-2026-08-03T11-00-00-019f-zzzz.jsonl: Is a directory",
        "  1 record of a shape this version does not read: event_msg/brand_new_event ×1"]
    assert lines[3] == "  0 frictions → 0 memories: 0 new, 0 already imported"


def test_a_stop_an_earlier_version_stored_is_the_amended_correction_that_covers_it(
        workspace: Workspace, tmp_path: Path) -> None:
    from dreamtui.model import NewMemory
    sessions = tmp_path / "sessions"
    rollout = (Rollout().typed("Make dragging the nodes smooth").shell("npm run build", "built")
               .says("Dragging is smooth now.").typed("still laggy af")
               .shell("rg -n onNodeDrag src", "src/canvas.tsx:12: onNodeDrag").abort()
               .typed("still laggy af. sometimes i'll get 1-2 updates during the drag, but mostly "
                      "just on drag end"))
    rollout.write(sessions)
    stop = next(line["timestamp"] for line in rollout.lines
                if line["payload"].get("type") == "turn_aborted")
    # 79ef06f stored the stop, with the amended message as its reason, at the time of the stop.
    old = NewMemory(type="failure", title="still laggy af. sometimes i'll get 1-2 updates",
                    content="The person stopped the agent …", agent_id="codex",
                    tags=("codex", "interruption"), idempotency_key="codex:019f-aaaa:interruption:1",
                    metadata={"source": "codex", "kind": "interruption", "session_id": "019f-aaaa",
                              "timestamp": stop, "call_id": "call_2", "tool": "shell"})
    with STMStore.for_workspace(workspace) as store:
        store.submit(old, now=OLD)
    report = _import(workspace, sessions)
    assert [m.metadata["kind"] for m in report.memories] == ["correction"]
    assert (report.inserted, len(_stored(workspace))) == (0, 1)


def test_a_fact_first_met_in_another_project_takes_the_instruction_of_the_one_meeting_it_now(
        workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    (Rollout(cwd="/code/api").typed("Add the column").shell("mix precommit", PUBSUB, 1)
     .shell("mix precommit", PUBSUB, 1)).write(sessions)
    import_rollouts(workspace, CodexOptions(sessions_dir=sessions, project="/code/api"), now=NOW)
    (Rollout(session="019f-bbbb").typed(INSTRUCTION).shell("mix precommit", PUBSUB, 1)
     .shell("mix precommit", PUBSUB, 1)).write(sessions)
    report = _import(workspace, sessions)
    [memory] = _stored(workspace)
    assert (report.inserted, report.recounted, report.instructed) == (0, 1, 1)
    assert memory.title.startswith("Don't bother running mix precommit as it isn't working yet (")
    assert memory.metadata["occurrences"] == 4


def test_an_instruction_in_a_rollout_an_earlier_version_read_is_found_once(
        workspace: Workspace, tmp_path: Path) -> None:
    from dataclasses import replace

    from dreamtui.store.import_state import load_states, save_states
    sessions = tmp_path / "sessions"
    Rollout().typed(INSTRUCTION).says("Implemented.").write(sessions)
    _import(workspace, sessions)
    # The state as a version that kept no instructions wrote it.
    [(path, state)] = load_states(workspace, "codex").items()
    save_states(workspace, "codex", {path: replace(state, context={"cwd": PROJECT, "read": True})},
                NOW)
    (Rollout(session="019f-bbbb").typed("Add the column").shell("mix precommit", PUBSUB, 1)
     .shell("mix precommit", PUBSUB, 1)).write(sessions)
    report = _import(workspace, sessions)
    [memory] = _stored(workspace)
    assert (report.read, report.unchanged) == (1, 1)
    assert memory.title.startswith("Don't bother running mix precommit as it isn't working yet (")
    assert load_states(workspace, "codex")[path].context["instructions"][0][:2] == ["mix", "precommit"]


def _older_rollout(folder: Path, session: str, environment: str, *,
                   extra: tuple[Any, ...] = ()) -> Path:
    """A rollout in Codex CLI's mid-2025 layout: a header without `type`, `record_type` state
    lines, the response items bare, the cwd only in the environment_context message."""
    call_output = {"output": "bash: line 1: rg: command not found\n",
                   "metadata": {"exit_code": 127, "duration_seconds": 0.3}}
    lines: list[Any] = [
        {"id": session, "timestamp": "2025-08-23T17:19:02.962Z", "instructions": None,
         "git": {"commit_hash": "e421928e", "branch": "main", "repository_url": "git@h:o/r"}},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>\n\nUse just fmt\n</user_instructions>"}]},
        {"type": "message", "id": None, "role": "user",
         "content": [{"type": "input_text", "text": environment}]},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user",
         "content": [{"type": "input_text", "text": "find where the config is loaded"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "look"}],
         "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_1", "name": "shell", "call_id": "call_1",
         "arguments": json.dumps({"command": ["bash", "-lc", "rg -n config src"],
                                  "timeout": 120000})},
        {"record_type": "state"},
        {"type": "function_call_output", "call_id": "call_1", "output": json.dumps(call_output)},
        {"type": "function_call", "id": "fc_2", "name": "shell", "call_id": "call_2",
         "arguments": json.dumps({"command": ["bash", "-lc", "cargo test -p codex-core"]})},
        {"type": "function_call_output", "call_id": "call_2",
         "output": json.dumps({"output": "exec command rejected by user",
                               "metadata": {"exit_code": 1, "duration_seconds": 0}})},
        {"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text", "text": "don't run the whole crate's tests, only the tui ones"}]},
        *extra,
    ]
    day = folder / "2025" / "08" / "23"
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-2025-08-23T17-19-02-{session}.jsonl"
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines),
                    encoding="utf-8")
    os.utime(path, (OLD.timestamp(), OLD.timestamp()))
    return path


def test_the_older_layout_takes_its_cwd_from_the_environment_context(tmp_path: Path) -> None:
    tagged = ("<environment_context>\n  <cwd>/code/app/sub</cwd>\n  <approval_policy>on-request"
              "</approval_policy>\n  <shell>zsh</shell>\n</environment_context>")
    path = _older_rollout(tmp_path, "a9bc-0001", tagged,
                          extra=({"type": "brand_new_item", "x": 1},))
    frictions, stats, _ = read_rollout(path)
    assert sorted((f.kind, f.action, f.cwd) for f in frictions) == [
        ("environment", "rg -n config src", "/code/app/sub"),
        ("rejection", "cargo test -p codex-core", "/code/app/sub")]
    rejection = next(f for f in frictions if f.kind == "rejection")
    assert rejection.reason == "don't run the whole crate's tests, only the tui ones"
    assert rejection.session_id == "a9bc-0001"
    # The state lines and reasoning items are known shapes; a new one is still counted.
    assert stats.unknown == {"brand_new_item": 1} and stats.malformed == 0
    plain = "<environment_context>\nCurrent working directory: /code/app\nSandbox mode: " \
            "workspace-write\n</environment_context>"
    frictions = read_rollout(_older_rollout(tmp_path, "6e79-0002", plain))[0]
    assert {f.cwd for f in frictions} == {"/code/app"}


def test_older_layout_rollouts_are_imported_for_their_project_once(workspace: Workspace,
                                                                   tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    _older_rollout(sessions, "a9bc-0001", "<environment_context>\n  <cwd>/code/app</cwd>\n"
                   "</environment_context>")
    _older_rollout(sessions, "a9bc-0002", "<environment_context>\n  <cwd>/code/app2</cwd>\n"
                   "</environment_context>")
    first = _import(workspace, sessions)
    assert (first.read, first.other_project, first.no_cwd) == (1, 1, 0)
    assert first.inserted == 2 and not first.stats.unknown
    assert {m.metadata["cwd"] for m in _stored(workspace)} == {"/code/app"}
    again = _import(workspace, sessions)
    assert (again.read, again.unchanged, again.other_project, again.inserted) == (0, 1, 1, 0)


def _bare(*items: tuple[str, str]) -> list[Any]:
    """The older layout's bare items: ("user"|"assistant", text) messages, ("shell", command)
    calls that succeed."""
    lines: list[Any] = []
    for n, (who, text) in enumerate(items):
        if who == "shell":
            lines += [{"type": "function_call", "name": "shell", "call_id": f"call_s{n}",
                       "arguments": json.dumps({"command": ["bash", "-lc", text]})},
                      {"type": "function_call_output", "call_id": f"call_s{n}",
                       "output": json.dumps({"output": "ok", "metadata": {"exit_code": 0}})}]
        else:
            kind = "input_text" if who == "user" else "output_text"
            lines.append({"type": "message", "role": who,
                          "content": [{"type": kind, "text": text}]})
        lines.append({"record_type": "state"})
    return lines


def test_each_correction_of_an_older_layout_session_is_its_own_lesson_across_appends(
        workspace: Workspace, tmp_path: Path) -> None:
    # The older layout writes no timestamps: two corrections must not be one record.
    sessions = tmp_path / "sessions"
    environment = "<environment_context>\n  <cwd>/code/app</cwd>\n</environment_context>"
    first = _bare(("shell", "pip install httpx"), ("user", "no, use uv add instead of pip"),
                  ("assistant", "Switching to uv."), ("shell", "uv add httpx"),
                  ("user", "did you actually run the tests after that?"),
                  ("assistant", "You're right, I did not run them."))
    path = _older_rollout(sessions, "a9bc-0003", environment, extra=tuple(first))
    frictions = read_rollout(path)[0]
    corrections = [f.evidence for f in frictions if f.kind == "correction"]
    assert corrections == ["no, use uv add instead of pip",
                           "did you actually run the tests after that?"]
    assert _import(workspace, sessions).inserted == 4  # 2 corrections, the rejection, rg missing
    more = _bare(("shell", "uv run pytest"), ("user", "no, run only the unit tests"))
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in more)
    os.utime(path, (OLD.timestamp() + 60, OLD.timestamp() + 60))
    again = _import(workspace, sessions)
    assert (again.read, again.inserted) == (1, 1)
    assert sum(m.metadata["kind"] == "correction" for m in _stored(workspace)) == 3


def test_a_failure_the_older_sandbox_wrapped_as_denied_is_the_commands_own(tmp_path: Path) -> None:
    # Codex of mid-2025 reported every non-zero exit under Seatbelt as "sandbox denied".
    def wrapped(call_id: str, command: str, code: int, stderr: str) -> list[Any]:
        text = (f"failed in sandbox MacosSeatbelt with execution error: sandbox denied exec "
                f"error, exit code: {code}, stdout: , stderr: {stderr}")
        return [{"type": "function_call", "name": "shell", "call_id": call_id,
                 "arguments": json.dumps({"command": ["bash", "-lc", command]})},
                {"type": "function_call_output", "call_id": call_id,
                 "output": json.dumps({"output": text, "metadata": {"exit_code": 1}})}]
    extra = (*wrapped("w1", "cargo build -p orchestrator", 101,
                      "error[E0308]: mismatched types\n --> src/main.rs:3:5"),
             *wrapped("w2", "ps aux", 1, "bash: line 1: /bin/ps: Operation not permitted"))
    path = _older_rollout(tmp_path, "a9bc-0004", "<environment_context>\n  <cwd>/code/app</cwd>\n"
                          "</environment_context>", extra=extra)
    frictions = {f.action: f for f in read_rollout(path)[0]}
    assert frictions["ps aux"].kind == "environment"
    assert "Operation not permitted" in frictions["ps aux"].evidence
    # The compile error is the agent's own, met on the way (no fact of the machine).
    assert "cargo build -p orchestrator" not in frictions
    results = [e for e in RolloutReader().events(iter(path.read_bytes().splitlines(True)))
               if isinstance(e, Result) and e.call_id == "w1"]
    assert [(r.ok, r.exit_code, r.text.splitlines()[0]) for r in results] == [
        (False, 101, "error[E0308]: mismatched types")]


def test_a_patch_run_as_a_command_is_no_missing_tool(tmp_path: Path) -> None:
    body = "*** Begin Patch\n*** Update File: AGENTS.md\n@@\n-a\n+b\n*** End Patch\n"
    rollout = (Rollout().typed("Update the docs")
               .shell(body, "bash: line 1: AGENTS.md: command not found", 127)
               .shell("just fmt", "bash: line 1: just: command not found", 127))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    assert [(f.kind, f.action) for f in frictions] == [("environment", "just fmt")]


def test_a_run_log_pasted_back_without_a_word_is_no_correction(tmp_path: Path) -> None:
    log = ("Running `target/debug/orchestrator --prompt 'say hi'`\n"
           '[orchestrator] {"data":{"description":"delegate prompt","task_id":1},"event":"launch"}\n'
           "worker! error: unexpected argument 'say hi' found\n"
           "worker! Usage: worker exec [OPTIONS] [PROMPT]\n"
           '[orchestrator] {"data":{"status":2,"success":false,"task_id":1},"event":"done"}')
    rollout = (Rollout().typed("Wire the orchestrator to the worker")
               .shell("cargo build -p orchestrator", "Finished dev profile", 0)
               .says("Done: the orchestrator now delegates to the worker.")
               .typed(log)
               .says("Sorry, my mistake: the worker takes the prompt after `--`. Fixing it.")
               .shell("cargo build -p orchestrator", "Finished dev profile", 0)
               .says("Fixed.")
               .typed("still not working, the worker never gets the prompt:\n" + log))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    # The paste alone the agent conceded to is no correction; the same paste with the person's
    # words saying what is wrong is one.
    assert [(f.kind, f.evidence.split("\n", 1)[0]) for f in frictions] == [
        ("correction", "still not working, the worker never gets the prompt:")]


def test_a_time_out_and_a_sandbox_named_on_the_command_line_are_no_facts(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Check the web tools end to end")
               .shell("app exec -c sandbox_mode=workspace-write --prompt x",
                      "Running `app exec -c sandbox_mode=workspace-write --prompt x`\n"
                      "error: unexpected argument '--prompt' found", 2)
               .shell("cargo build", "failed in sandbox MacosSeatbelt with execution error: "
                                     "command timed out", 1)
               .shell("cargo build", "failed in sandbox MacosSeatbelt with execution error: "
                                     "command timed out", 1)
               .shell("rg -n ollama", "zsh:1: command not found: rg", 127))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    assert [(f.kind, f.action) for f in frictions] == [("environment", "rg -n ollama")]


def test_a_patch_whose_lines_were_not_found_states_no_fact_and_a_crate_download_says_no_network(
        tmp_path: Path) -> None:
    rollout = (Rollout().typed("Add the REPL planner")
               .patch("src/main.rs", 'error: Failed to find expected lines ["    Mode::Repl => {", '
                                     '"        eprintln!(\\"unknown command\\");"]')
               .shell("cargo build", "error: failed to get `anyhow` as a dependency of package "
                                     "`app v0.1.0`\n\nCaused by:\n  download of config.json failed\n\n"
                                     "Caused by:\n  [6] Couldn't resolve host name (Could not resolve "
                                     "host: index.crates.io)", 101))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    assert [(f.kind, f.action) for f in frictions] == [("environment", "cargo build")]
    assert "Could not resolve host: index.crates.io" in frictions[0].evidence


def test_a_correction_after_a_failure_it_does_not_name_corrects_the_work(tmp_path: Path) -> None:
    rollout = (Rollout().typed("Give the orchestrator's agents write access")
               .shell("cargo build -p orchestrator", "Finished dev profile", 0)
               .says("Done: the agents now run with --sandbox workspace-write.")
               .shell('rg -n "--ask-for-approval|AskForApproval" ocodex -S',
                      "error: Found argument '--ask-for-approval|AskForApproval' which wasn't expected", 2)
               .typed("seems that --sandbox for the agents under orchestrator still have read-only mode on"))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    assert [(f.kind, f.evidence) for f in frictions] == [
        ("correction", "seems that --sandbox for the agents under orchestrator still have read-only mode on")]


def test_a_long_report_quoting_a_log_keeps_the_persons_words_and_a_mistyped_apply_patch_is_a_slip(
        tmp_path: Path) -> None:
    dump = "\n".join(f'[orchestrator] {{"data":{{"task_id":{n},"success":false}},"event":"done"}}'
                     for n in range(12))
    said = "it still does not work: the worker image is never built, build it before starting it"
    rollout = (Rollout().typed("Run the worker from the orchestrator")
               .shell("cargo build -p orchestrator", "Finished dev profile", 0)
               .says("Done: the orchestrator now starts the worker in docker.")
               .typed(f"Running `target/debug/orchestrator --prompt 'build a demo'`\n{dump}\n] {said}")
               .shell("applypatch <<'PATCH'", "bash: line 1: applypatch: command not found", 127))
    frictions = read_rollout(rollout.write(tmp_path))[0]
    [correction] = frictions  # and no 'applypatch is not installed' fact
    assert correction.kind == "correction" and said in correction.evidence
    assert len(correction.evidence) <= 600


def test_a_sessions_first_turn_saying_earlier_work_is_still_wrong_is_a_correction(tmp_path: Path) -> None:
    opened = (Rollout("019f-eeee").typed("The export isn't right still. The dates still come out in UTC.")
              .says("Let me look at the exporter.").shell("cat export.py", "def export(): ..."))
    bug = (Rollout("019f-ffff").typed("the exporter keeps crashing on empty files, can you look?")
           .says("Let me look.").shell("cat export.py", "def export(): ..."))
    first, _, _ = read_rollout(opened.write(tmp_path / "a"))
    other, _, _ = read_rollout(bug.write(tmp_path / "b"))
    assert [(f.kind, f.action) for f in first] == [("correction", None)]
    assert first[0].evidence.startswith("The export isn't right still.")
    assert other == []  # a bug reported in a fresh session is a task


@pytest.mark.parametrize("framed_first", [False, True])
def test_a_notice_the_shell_prints_on_every_call_is_not_what_failed(
        workspace: Workspace, tmp_path: Path, framed_first: bool) -> None:
    # A sandboxed login shell whose profile runs a command it may not ("…/shellenv.sh: line 18:
    # /bin/ps: Operation not permitted") prints it before every call's output, the successful
    # ones of any program. A search that then finds nothing, or a miss while exploring, is no fact of the
    # machine; a real missing tool after the same notice still is. Both orders Codex writes a
    # call's records in (the framed output first is read off the raw line, undecoded).
    sessions = tmp_path / "sessions"
    notice = "/opt/brew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted"
    (Rollout().typed("Find where the config is loaded")
     .shell("ls", f"{notice}\nREADME.md\nsrc\n", framed_first=framed_first)
     .shell("cat README.md", f"{notice}\n# App\n", framed_first=framed_first)
     .shell("rg -n load_config src", f"{notice}\n", 1)
     .shell("rg -n load_settings src", f"{notice}\n", 1)
     .shell("cat docs/config.md", f"{notice}\ncat: docs/config.md: No such file or directory\n", 1)
     .shell("pnpm test", f"{notice}\nbash: line 1: pnpm: command not found\n", 127)
     .says("Done.")).write(sessions)
    _import(workspace, sessions)
    assert [memory.title for memory in _stored(workspace)] == ["`pnpm` is not installed here"]


def test_without_a_success_printing_it_the_same_failure_is_still_kept(
        workspace: Workspace, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    denied = "bash: /work/out.log: Operation not permitted"
    (Rollout().typed("Write the log")
     .shell("ls", "README.md\nsrc\n")
     .shell("echo hi > /work/out.log", f"{denied}\n", 1)
     .says("Done.")).write(sessions)
    _import(workspace, sessions)
    assert len(_stored(workspace)) == 1


def test_an_error_one_program_printed_and_got_past_is_still_a_fact(workspace: Workspace,
                                                                    tmp_path: Path) -> None:
    # `uv run ruff check .; gh pr create` succeeds after uv's "Failed to spawn: `ruff`": one
    # program's success does not make the line a notice of the shell's.
    sessions = tmp_path / "sessions"
    spawn = "error: Failed to spawn: `ruff`\n  Caused by: No such file or directory (os error 2)"
    (Rollout().typed("Lint and open the PR")
     .shell("uv run ruff check . ; gh pr create", f"{spawn}\nhttps://example.test/pr/1\n")
     .shell("uv run ruff check .", f"{spawn}\n", 2)
     .shell("uv run ruff check src", f"{spawn}\n", 2)
     .says("ruff is missing.")).write(sessions)
    _import(workspace, sessions)
    assert [memory.title for memory in _stored(workspace)] == ["`ruff` is not installed here"]


def test_an_error_pasted_after_the_agents_steps_is_a_correction_and_an_answer_is_none(tmp_path: Path) -> None:
    rollout = (Rollout().typed("how do I publish this folder to github")
               .says("Create the repo, then push:\n- `git init`\n- `git remote add origin <url>`\n"
                     "- `git push -u origin main`")
               .typed("git push -u origin main\nerror: src refspec main does not match any")
               .says("There is no commit yet. Run `git add .` and `git commit -m init` first.")
               .typed("is the history kept?")
               .says("Yes. I drafted the notes in `docs/history.md`. Is that detailed enough?")
               .typed("enough that we won't fuck anything up when the files are gone")
               .says("Good. Should I proceed to delete the old services?")
               .typed("i just want the old services documented, I don't need them deleted"))
    frictions, _, _ = read_rollout(rollout.write(tmp_path))
    assert [(f.kind, f.evidence.split("\n")[0]) for f in frictions] == [
        ("correction", "git push -u origin main"),
        ("correction", "i just want the old services documented, I don't need them deleted")]
