"""Reading one Claude Code log: JSONL lines in, a session's events out to `frictions.Detector`.

What a log holds. There is no official schema, so every field is optional: records of unknown
types (`file-history-snapshot`, `summary`, `system`, `attachment`, `queue-operation`, …) are
skipped; a line that is not a JSON object is counted as malformed and skipped; a line with invalid
UTF-8 is counted and decoded with replacement characters. A last line without its newline is a
write in progress: it is not consumed, and the next import reads it once it is complete.

The events. An assistant record is the agent acting: its tool_use blocks are calls remembered by
id, its text blocks the words it said. A user record's tool_result marked `is_error` is a failed
tool call, named by the tool_use it answers. A user record's text is the person typing, unless
Claude Code marks the record `isMeta` or `isCompactSummary` (its own words in the person's place).
Everything else — successful tool results, other record types — is no event. The parser knows
the record format and nothing of what makes a friction: that is `rules` and `frictions`.

Context. So that an appended log reads as if whole, what a later line may need is carried to the
next import (`LogRead.context`): the recent tool calls (a result still names its tool), each
thread's agent context (did it act, its last call and words), the session id and the `cwd`.

Speed. Most lines are successful tool results and plain assistant text; byte-level pre-checks
(`"tool_use"`, `"is_error":true`, `"tool_result"`, the record type) decide which lines need
`json.loads`. Assistant text is decoded only when a friction quotes it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from dreamtui.errors import InputError
from dreamtui.intake.claude_code.discovery import LogFile
from dreamtui.intake.claude_code.frictions import QUOTE_CHARS, Detector, Friction, Origin, ToolCall, clip, one_line

# Byte-level pre-checks: they only decide which lines are worth json.loads; the parsed record
# decides everything else, so a pre-check hit on a string's content costs a parse, nothing more.
# Substring tests, not regexes: they run on every byte of the corpus. Each comes in Claude Code's
# compact spelling and in the `": "` spelling of other JSON writers.
_B_TOOL_USE = b'"tool_use"'
_B_TOOL_RESULT = b'"tool_result"'


def _spellings(key: str, value: str) -> tuple[bytes, bytes]:
    return f'"{key}":{value}'.encode(), f'"{key}": {value}'.encode()


_B_IS_ERROR = _spellings("is_error", "true")
_B_ASSISTANT = _spellings("type", '"assistant"')
_B_USER = _spellings("type", '"user"')
_B_SIDECHAIN = _spellings("isSidechain", "true")
_B_TEXT_BLOCK = _spellings("type", '"text"')
_B_UUID = re.compile(rb'"uuid"\s*:\s*"([^"\\]{1,100})"')

_KEPT_TOOLS = 64  # tool calls remembered across imports: results follow their call closely


def _result_text(content: Any) -> str:
    """tool_result content is a string or a list of `{type: text, text}` blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(block["text"] for block in content
                         if isinstance(block, dict) and isinstance(block.get("text"), str))
    return ""


def _tool_call(block: dict[str, Any]) -> ToolCall:
    name = str(block.get("name") or "unknown tool")
    data = block.get("input")
    data = data if isinstance(data, dict) else {}
    path = next((data[k] for k in ("file_path", "notebook_path", "path")
                 if isinstance(data.get(k), str)), None)
    target = path
    if target is None:
        for key in ("command", "pattern", "url", "query", "description", "prompt"):
            if isinstance(data.get(key), str) and data[key].strip():
                target = data[key]
                break
    return ToolCall(name, one_line(target, 100) if target else None, path)


@dataclass
class _Thread:
    """What the agent did since the person last typed, in the main thread or the sidechain
    (a `frictions.Agent`)."""

    acted: bool = False
    last_tool: ToolCall | None = None
    said: bytes | str | None = None  # a raw assistant line until a friction needs its text
    said_in: str | None = None  # the message id of `said`, known once decoded

    def said_text(self) -> str | None:
        if isinstance(self.said, bytes):
            self.said, self.said_in = _assistant_words(self.said)
        return self.said

    def calls(self, call: ToolCall, message_id: str) -> None:
        """The agent calls a tool; words from an earlier message no longer explain it."""
        self.last_tool = call
        if isinstance(self.said, bytes):
            if f'"{message_id}"'.encode() not in self.said:
                self.said = None
        elif self.said_in != message_id:
            self.said = None

    def reset(self) -> None:
        self.acted, self.last_tool, self.said, self.said_in = False, None, None, None

    def to_json(self) -> dict[str, Any]:
        said = self.said_text()
        return {"acted": self.acted, "last_tool": self.last_tool.to_json() if self.last_tool else None,
                "said": clip(said, QUOTE_CHARS) if said else None, "said_in": self.said_in}

    @classmethod
    def from_json(cls, data: Any) -> _Thread:
        if not isinstance(data, dict):
            return cls()
        tool = data.get("last_tool")
        return cls(acted=bool(data.get("acted")),
                   last_tool=ToolCall(*tool) if isinstance(tool, list) and len(tool) == 3 else None,
                   said=data.get("said") if isinstance(data.get("said"), str) else None,
                   said_in=data.get("said_in") if isinstance(data.get("said_in"), str) else None)


def _assistant_words(raw: bytes) -> tuple[str | None, str | None]:
    """(text, message id) of an assistant line kept undecoded until a friction quoted it."""
    try:
        message = _loads(raw)[0]["message"]
        text = _result_text(message["content"])
    except (ValueError, RecursionError, TypeError, KeyError):
        return None, None
    return text.strip() or None, str(message.get("id"))


def _has(raw: bytes, spellings: tuple[bytes, bytes]) -> bool:
    return spellings[0] in raw or spellings[1] in raw


def _loads(raw: bytes) -> tuple[Any, bool]:
    """(record, was the UTF-8 valid); invalid bytes become U+FFFD rather than losing the line."""
    try:
        return json.loads(raw), True
    except UnicodeDecodeError:
        return json.loads(raw.decode("utf-8", "replace")), False


@dataclass
class ReadStats:
    bytes_read: int = 0
    lines_read: int = 0
    records_parsed: int = 0
    malformed: int = 0
    invalid_utf8: int = 0
    incomplete_tail: int = 0

    def add(self, other: ReadStats) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class _LogParser:
    """Feeds on complete lines of one log; reports its events to a Detector (module docstring)."""

    def __init__(self, log: LogFile, log_name: str, context: dict[str, Any] | None) -> None:
        context = context or {}
        self.log = log
        self.log_name = log_name
        self.stats = ReadStats()
        self.detector = Detector()
        tools = context.get("tools")
        tools = tools if isinstance(tools, dict) else {}
        self.tools: dict[str, ToolCall] = {k: ToolCall(*v) for k, v in tools.items()
                                           if isinstance(v, list) and len(v) == 3}
        streams = context.get("streams")
        streams = streams if isinstance(streams, dict) else {}
        self.main = _Thread.from_json(streams.get("main"))
        self.side = _Thread.from_json(streams.get("side"))
        self.session_id: str = str(context.get("session_id") or log.session_id)
        self.cwd: str | None = context.get("cwd") if isinstance(context.get("cwd"), str) else None

    def context(self) -> dict[str, Any]:
        kept = list(self.tools.items())[-_KEPT_TOOLS:]
        return {"tools": {k: v.to_json() for k, v in kept},
                "streams": {"main": self.main.to_json(), "side": self.side.to_json()},
                "session_id": self.session_id, "cwd": self.cwd}

    def feed(self, raw: bytes) -> None:
        if _B_TOOL_USE in raw or _has(raw, _B_IS_ERROR):
            self._parse(raw)
        elif _B_TOOL_RESULT in raw:
            return  # a successful tool result: most of the bytes, never an event
        elif _has(raw, _B_ASSISTANT):
            sidechain = _has(raw, _B_SIDECHAIN) or self.log.subagent
            self.detector.agent_acted(sidechain)
            thread = self.side if sidechain else self.main
            thread.acted = True
            if _has(raw, _B_TEXT_BLOCK):
                thread.said = raw
        elif _has(raw, _B_USER):
            self._parse(raw)
        # anything else (summaries, snapshots, system records…) is skipped unread

    def finish(self) -> list[Friction]:
        return self.detector.finish()

    def _parse(self, raw: bytes) -> None:
        try:
            record, valid = _loads(raw)
        except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
            self.stats.malformed += 1
            return
        self.stats.records_parsed += 1
        self.stats.invalid_utf8 += not valid
        if not isinstance(record, dict):
            self.stats.malformed += 1
            return
        if isinstance(record.get("cwd"), str):
            self.cwd = record["cwd"]
        if isinstance(record.get("sessionId"), str):
            self.session_id = record["sessionId"]
        message = record.get("message")
        message = message if isinstance(message, dict) else {}
        if record.get("type") == "assistant":
            self._assistant(record, message)
        elif record.get("type") == "user":
            self._user(record, message.get("content"))

    def _sidechain(self, record: dict[str, Any]) -> bool:
        """Is the record in the sidechain thread? A subagent's transcript is all sidechain."""
        return record.get("isSidechain") is True or self.log.subagent

    def _origin(self, record: dict[str, Any], sidechain: bool) -> Origin:
        uuid, timestamp = record.get("uuid"), record.get("timestamp")
        return Origin(scope=self.log.scope, session_id=self.session_id,
                      record_uuid=uuid if isinstance(uuid, str) else None,
                      timestamp=timestamp if isinstance(timestamp, str) else None,
                      cwd=self.cwd, log=self.log_name, sidechain=sidechain)

    def _assistant(self, record: dict[str, Any], message: dict[str, Any]) -> None:
        sidechain = self._sidechain(record)
        self.detector.agent_acted(sidechain)
        thread = self.side if sidechain else self.main
        thread.acted = True
        message_id = str(message.get("id"))
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                call = _tool_call(block)
                self.tools[str(block.get("id"))] = call
                thread.calls(call, message_id)
            elif block.get("type") == "text" and isinstance(block.get("text"), str) \
                    and block["text"].strip():
                thread.said, thread.said_in = block["text"].strip(), message_id

    def _user(self, record: dict[str, Any], content: Any) -> None:
        sidechain = self._sidechain(record)
        thread = self.side if sidechain else self.main
        if isinstance(content, str):
            self._typed(record, sidechain, thread, content)
            return
        if not isinstance(content, list):
            return
        blocks = [b for b in content if isinstance(b, dict)]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for block in results:
            if block.get("is_error") is True:
                call = self.tools.get(str(block.get("tool_use_id")))
                self.detector.tool_failed(self._origin(record, sidechain), thread, call,
                                          _result_text(block.get("content")))
        texts = [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        if texts and not results:
            self._typed(record, sidechain, thread, "\n".join(texts))

    def _typed(self, record: dict[str, Any], sidechain: bool, thread: _Thread, text: str) -> None:
        if record.get("isMeta") is True or record.get("isCompactSummary") is True:
            return  # Claude Code's own words in the person's place
        if self.detector.person_typed(self._origin(record, sidechain), thread, text):
            thread.reset()


@dataclass
class LogRead:
    """The outcome of reading one log from an offset."""

    frictions: list[Friction]
    stats: ReadStats
    offset: int  # just past the last complete line
    anchor: int  # where that last non-blank line starts
    last_id: str | None  # its record uuid, or `sha1:<hex>` of the line when it has none
    context: dict[str, Any]


def line_identity(line: bytes) -> str:
    """What tells a consumed line apart: its record uuid, else a hash of the line."""
    found = _B_UUID.search(line)
    if found:
        return found.group(1).decode("ascii", "replace")
    return "sha1:" + hashlib.sha1(line.rstrip(b"\r\n")).hexdigest()


def _looks_like_object(raw: bytes) -> bool:
    if raw[:1] == b"{" and raw.endswith(b"}\n"):
        return True  # the common case, without copying the line
    line = raw.strip()
    return line[:1] == b"{" and line[-1:] == b"}"


def read_log(log: LogFile, log_name: str, start: int = 0, context: dict[str, Any] | None = None,
             anchor: int = 0, last_id: str | None = None) -> LogRead:
    """Read a log's complete lines from `start`; `anchor`/`last_id` carry over when none is new."""
    parser = _LogParser(log, log_name, context)
    stats = parser.stats
    offset = start
    last_line: bytes | None = None
    try:
        with open(log.path, "rb") as handle:
            handle.seek(start)
            for raw in handle:
                if not raw.endswith(b"\n"):
                    stats.incomplete_tail = 1  # being written: read it once it is complete
                    break
                stats.lines_read += 1
                if raw.isspace():
                    offset += len(raw)
                    continue
                if not _looks_like_object(raw):
                    stats.malformed += 1
                else:
                    parser.feed(raw)
                anchor, last_line = offset, raw
                offset += len(raw)
    except OSError as exc:
        raise InputError(f"{log.path}: cannot read this Claude Code log: {exc.strerror}") from None
    stats.bytes_read = offset - start
    frictions = parser.finish()
    return LogRead(frictions, stats, offset, anchor,
                   line_identity(last_line) if last_line is not None else last_id, parser.context())
