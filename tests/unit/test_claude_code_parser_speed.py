"""The Claude Code parser decodes only the lines that can matter, and reads them as before.

Claude Code 2.x streams a message as one record per content block, and every record of a message
that ends in a tool call carries `"stop_reason":"tool_use"`: its text and thinking records too.
These tests write those shapes (as Claude Code writes them, not copied from anyone's log) and
check that such a record is not decoded as a tool call, yet the agent's words it holds are quoted
as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dreamtui.intake.claude_code import parser as parser_module
from dreamtui.intake.claude_code.discovery import LogFile
from dreamtui.intake.claude_code.parser import read_log

SESSION = "2ba77433-09f3-4717-9d1c-697db6b2ed3d"


def _record(kind: str, uuid: str, message: dict[str, Any], **extra: Any) -> str:
    record = {"parentUuid": None, "isSidechain": False, "type": kind, "message": message,
              "uuid": uuid, "timestamp": f"2026-06-03T16:30:{uuid[-2:]}.000Z",
              "entrypoint": "cli", "cwd": "/code/app", "sessionId": SESSION, **extra}
    return json.dumps(record, separators=(",", ":"))


def _assistant(uuid: str, message_id: str, block: dict[str, Any]) -> str:
    # The shape of Claude Code 2.1: the message's own keys first, its stop reason after content.
    return _record("assistant", uuid, {
        "model": "claude-sonnet-4-6", "id": message_id, "type": "message", "role": "assistant",
        "content": [block], "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 191,
                  "cache_creation": {"ephemeral_1h_input_tokens": 6375}}})


def _log(tmp_path: Path, spaced: bool = False) -> LogFile:
    lines = [
        _record("user", "u-01", {"role": "user", "content": "rename the config loader"}),
        _assistant("a-02", "msg_1", {"type": "text", "text": "I will run the tests first."}),
        _assistant("a-03", "msg_1", {"type": "thinking", "thinking": "tests, then rename",
                                     "signature": "c2ln"}),
        _assistant("a-04", "msg_1", {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                     "input": {"command": "pytest -q tests/test_config.py"}}),
        _record("user", "u-05", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
             "content": "The user doesn't want to proceed with this tool use. The tool use was "
                        "rejected (eg. if it was a file edit, the new_string was NOT written to "
                        "the file). To tell you how to proceed, the user said:\nrun the whole "
                        "suite with make test, never pytest alone"}]},
            toolUseResult="User rejected tool use"),
    ]
    if spaced:  # another JSON writer's spelling: `"key": value`
        lines = [json.dumps(json.loads(line)) for line in lines]
    path = tmp_path / "-code-app" / f"{SESSION}.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return LogFile.at(path, True)


class _Decodes:
    """The lines the parser hands to its decoder."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.real = parser_module._loads

    def __call__(self, raw: bytes) -> tuple[Any, bool]:
        self.lines.append(raw)
        return self.real(raw)


@pytest.mark.parametrize("spaced", [False, True])
def test_words_of_a_message_stopped_for_a_tool_are_not_decoded_as_a_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spaced: bool) -> None:
    decodes = _Decodes()
    monkeypatch.setattr(parser_module, "_loads", decodes)
    outcome = read_log(_log(tmp_path, spaced), "x")
    uuids = [json.loads(line)["uuid"] for line in decodes.lines]
    # The thinking record is never decoded; the text record only when a friction quotes it.
    assert "a-03" not in uuids
    assert uuids.count("a-04") == 1 and uuids.count("u-05") == 1
    [rejection] = outcome.frictions
    assert rejection.kind == "rejection"
    assert rejection.said == "I will run the tests first."
    assert rejection.calls[0].target == "pytest -q tests/test_config.py"
    assert "make test" in (rejection.reason or "")


def test_a_tool_call_is_known_in_either_spelling(tmp_path: Path) -> None:
    for spaced in (False, True):
        folder = tmp_path / ("spaced" if spaced else "compact")
        folder.mkdir()
        [rejection] = read_log(_log(folder, spaced), "x").frictions
        assert rejection.calls[0].name == "Bash"


def test_attachments_that_are_no_event_are_not_decoded(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Claude Code 2.1 writes the attachment (its type first) before the record's own type.
    def attachment(uuid: str, **body: Any) -> str:
        record = {"parentUuid": None, "isSidechain": False, "attachment": body, "type": "attachment",
                  "uuid": uuid, "timestamp": f"2026-06-03T16:31:{uuid[-2:]}.000Z", "cwd": "/code/app",
                  "sessionId": SESSION}
        return json.dumps(record, separators=(",", ":"))

    log = _log(tmp_path)
    with open(log.path, "a", encoding="utf-8") as out:
        out.write(attachment("t-06", type="hook_success", hookName="PostToolUse:Bash",
                             toolUseID="toolu_1", content="formatted 3 files") + "\n")
        out.write(attachment("t-07", type="task_reminder", content=[], itemCount=0) + "\n")
        out.write(attachment("t-08", type="hook_blocking_error", hookName="PreToolUse:Bash",
                             blockingError={"blockingError": "Blocked by hook: no force pushes",
                                            "command": "guard.sh"}) + "\n")
    decodes = _Decodes()
    monkeypatch.setattr(parser_module, "_loads", decodes)
    outcome = read_log(log, "x")
    uuids = [json.loads(line)["uuid"] for line in decodes.lines]
    assert "t-06" not in uuids and "t-07" not in uuids and "t-08" in uuids
    assert sorted(f.kind for f in outcome.frictions) == ["hook_block", "rejection"]
