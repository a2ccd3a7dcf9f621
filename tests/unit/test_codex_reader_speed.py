"""The Codex reader skips what it need not decode, and reads the same events as decoding all.

Real rollouts spend most of their bytes on successful command outputs, reasoning items of the
older top-level layout and Codex's `developer` messages; these tests write those shapes (as
Codex CLI writes them, not copied from anyone's sessions) and check that the reader never
decodes them, yet yields exactly the events a full decode gives.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dreamtui.intake.codex import reader as reader_module
from dreamtui.intake.codex.reader import Event, Result, RolloutReader


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def _item(payload: dict[str, Any], minute: int = 1) -> bytes:
    return _line({"timestamp": f"2026-08-03T10:{minute:02d}:00.000Z", "type": "response_item",
                  "payload": payload})


def _output(call: str, text: str) -> bytes:
    return _item({"type": "function_call_output", "call_id": call, "output": text})


def _older_output(call: str, text: str, code: int) -> dict[str, Any]:
    inner = json.dumps({"output": text, "metadata": {"exit_code": code, "duration_seconds": 0.1}},
                       separators=(",", ":"), ensure_ascii=False)
    return {"type": "function_call_output", "call_id": call, "output": inner}


def _call(call: str, command: str) -> bytes:
    return _item({"type": "function_call", "name": "shell", "call_id": call,
                  "arguments": json.dumps({"command": ["bash", "-lc", command]})})


def _meta() -> bytes:
    return _line({"timestamp": "2026-08-03T10:00:00.000Z", "type": "session_meta",
                  "payload": {"id": "019f-speed", "cwd": "/code/app", "cli_version": "0.146.0"}})


def _read(lines: list[bytes]) -> list[Event]:
    return list(RolloutReader().events(iter(lines)))


_REAL_LOADS = json.loads


class _Decodes:
    """Counts the lines the reader hands to its decoder (`intake.decode.loads`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines: list[bytes] = []
        real = _REAL_LOADS

        def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(text, bytes):
                self.lines.append(text)
            return real(text, *args, **kwargs)

        monkeypatch.setattr(reader_module.decode, "loads", counting)


def _decoded_all(lines: list[bytes]) -> list[Event]:
    """The events when every line is decoded: what the reader must yield all the same."""
    reader = RolloutReader()

    def decode(lines: Iterator[bytes]) -> Iterator[Event]:
        for line in lines:
            reader.stats.lines_read += 1  # a turn of the older layout is known by its line
            yield from reader._record(json.loads(line))

    return list(decode(iter(lines)))


_BIG = "\n".join(f"src/module_{i}.py:{i}: def handler_{i}(request): ..." for i in range(400))


def test_successful_outputs_are_not_decoded_and_read_as_the_same_success(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [
        _meta(),
        _call("c1", "rg handler src"), _output("c1", f"Exit code: 0\nWall time: 0.2 seconds\nOutput:\n{_BIG}"),
        _call("c2", "ls"), _output("c2", "Chunk ID: 4acc99\nWall time: 0.0503 seconds\nProcess exited "
                                         f"with code 0\nOriginal token count: 103\nOutput:\n{_BIG}"),
        _call("c3", "cat a.py"), _item(_older_output("c3", _BIG, 0)),
    ]
    expected = _decoded_all(lines)
    counted = _Decodes(monkeypatch)
    assert _read(lines) == expected
    assert [_REAL_LOADS(line)["type"] for line in counted.lines] == [
        "session_meta", "response_item", "response_item", "response_item"]  # the three calls


@pytest.mark.parametrize("text", [
    "Exit code: 1\nWall time: 0.2 seconds\nOutput:\nerror: no such file",
    "Exit code: 01\nOutput:\nodd",  # 1, not 0
    "Chunk ID: 1\nWall time: 1 s\nProcess running with session ID 7\nOutput:\nstill going",
    'Wall "time"\nExit code: 0\nOutput:\n',  # an escape before the exit line: decoded to tell
    "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: "
    "0, stdout: Exit code: 0, stderr: cannot write",
    "{\"output\": \"Exit code: 0\"}",
    "x\n" * 150 + "Exit code: 0\n",  # beyond the 200 characters the exit line is read within
])
def test_an_output_that_is_no_plain_success_is_decoded_and_read_the_same(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [_meta(), _call("c1", "make"), _output("c1", text)]
    expected = _decoded_all(lines)
    counted = _Decodes(monkeypatch)
    assert _read(lines) == expected
    assert len(counted.lines) == 3


@pytest.mark.parametrize("text,code", [
    ("error: build failed", 2), ("failed in sandbox Seatbelt with execution error", 0),
    ("done", 0)])
def test_the_older_outputs_failures_are_decoded(text: str, code: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [_meta(), _call("c1", "make"), _item(_older_output("c1", text, code))]
    expected = _decoded_all(lines)
    counted = _Decodes(monkeypatch)
    assert _read(lines) == expected
    assert len(counted.lines) == (2 if code == 0 and not text.startswith("failed") else 3)


def test_the_older_layouts_reasoning_state_lines_and_developer_messages_are_not_decoded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [
        _line({"id": "019f-old", "timestamp": "2025-06-01T10:00:00Z", "instructions": None}),
        _line({"record_type": "state"}),
        _line({"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n<cwd>/code/app</cwd>\n"
                                           "</environment_context>"}]}),
        _line({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "g" * 5000}),
        _line({"type": "message", "id": None, "role": "developer",
               "content": [{"type": "input_text", "text": "<permissions instructions>" + _BIG}]}),
        _line({"type": "message", "id": None, "role": "user",
               "content": [{"type": "input_text", "text": "fix the parser"}]}),
        _line({"type": "function_call", "id": None, "name": "shell", "call_id": "c1",
               "arguments": json.dumps({"command": ["bash", "-lc", "pytest"]})}),
        _line(_older_output("c1", "3 passed", 0)),
        _line({"record_type": "state"}),
    ]
    expected = _decoded_all(lines)
    counted = _Decodes(monkeypatch)
    events = _read(lines)
    assert events == expected
    assert [record.get("type") for record in map(_REAL_LOADS, counted.lines)] == [
        None, "message", "message", "function_call"]


def test_a_reasoning_record_with_a_payload_is_still_decoded_and_counted_unknown() -> None:
    line = _line({"type": "reasoning", "payload": {"type": "summary"}})
    reader = RolloutReader()
    list(reader.events(iter([line])))
    assert reader.stats.unknown == {"reasoning/summary": 1}


def test_the_persons_message_items_after_their_events_are_not_decoded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    turn = [_item({"type": "message", "role": "user",
                   "content": [{"type": "input_text", "text": "# Files mentioned by the user\n" + _BIG}]}),
            _line({"timestamp": "2026-08-03T10:01:00.000Z", "type": "event_msg",
                   "payload": {"type": "user_message", "message": "fix it", "images": []}})]
    lines = [_meta(), *turn, *turn]
    expected = _decoded_all(lines)
    counted = _Decodes(monkeypatch)
    assert _read(lines) == expected
    assert len(counted.lines) == 4  # the meta, the first turn's item and its event, the second event


def test_a_rollout_without_a_cwd_is_counted_each_import_but_its_head_read_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dreamtui.intake.codex import importer
    from dreamtui.scaffold import init_workspace

    sessions = tmp_path / "sessions" / "2026" / "08" / "03"
    sessions.mkdir(parents=True)
    headless = _line({"timestamp": "2026-08-03T10:00:00.000Z", "type": "session_meta",
                      "payload": {"id": "019f-nocwd", "cli_version": "0.146.0"}})
    (sessions / "rollout-2026-08-03T10-00-00-019f-nocwd.jsonl").write_bytes(headless)
    (sessions / "rollout-2026-08-03T11-00-00-019f-app.jsonl").write_bytes(
        b"".join([_meta(), _call("c1", "ls"), _output("c1", "Exit code: 0\nOutput:\na.py")]))
    workspace = init_workspace(tmp_path / "ws", git=False)
    heads: list[str] = []
    real = importer._first_cwd
    monkeypatch.setattr(importer, "_first_cwd", lambda path: heads.append(path.name) or real(path))
    options = importer.CodexOptions(sessions_dir=tmp_path / "sessions", project="/code/app",
                                    include_live=True)
    first, again = (importer.import_rollouts(workspace, options) for _ in range(2))
    assert (first.no_cwd, first.read, again.no_cwd, again.read) == (1, 1, 1, 0)
    assert sorted(heads) == ["rollout-2026-08-03T10-00-00-019f-nocwd.jsonl",
                             "rollout-2026-08-03T11-00-00-019f-app.jsonl"]


@pytest.mark.parametrize("body", [
    "/opt/brew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted\nREADME.md\nsrc\n",
    "C:\\new\\notes.txt\nC:\\nested\\n.txt\nsecond line\n",  # a backslash before an n: no line break
    "说明：" * 80 + "\n第二行\n",  # 3 bytes a character in UTF-8, 6 as a \uXXXX escape
    "\x1b[31merror\x1b[0m: colour\nplain\n",
    "one line, no break at its end",
])
def test_a_successs_first_lines_read_off_the_raw_line_are_the_decoded_ones(
        body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [_meta(), _call("c1", "ls"), _output("c1", f"Exit code: 0\nWall time: 0.1 seconds\nOutput:\n{body}"),
             _call("c2", "ls"), _output("c2", f"Exit code: 0\nOutput:\n{body * 20}")]
    expected = _decoded_all(lines)
    _Decodes(monkeypatch)
    assert _read(lines) == expected
    first = next(event for event in expected if isinstance(event, Result))
    assert body.splitlines()[0][-12:] in first.head or "\x1b" in body or "\n" not in body
