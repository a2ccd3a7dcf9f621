"""Reading one Claude Code log: JSONL lines in, a session's events out to `frictions.Detector`.

What a log holds. There is no official schema, so every field is optional; a line that is not a
JSON object is counted as malformed and skipped; a line with invalid UTF-8 is counted and decoded
with replacement characters. A last line without its newline is a write in progress: it is not
consumed, and the next import reads it once it is complete.

The events. An assistant record is the agent acting: its tool_use blocks are calls remembered by
id, its text blocks the words it said. A user record's tool_result marked `is_error` is a failed
tool call, named by the tool_use it answers, with the record's signals (`toolUseResult`,
`toolDenialKind`, the session's `permissionMode`, a PreToolUse hook that ran for it). A user
record's text is the person typing, unless Claude Code marks the record `isMeta` or
`isCompactSummary` (its own words in the person's place) or the session is the Agent SDK's
(`entrypoint` `sdk-*`) with no slash command typed in it (an IDE's prompt). Text queued while
the agent worked comes in `attachment` records (`queued_command`); hooks speak in `progress`
records (`hook_progress`, naming the hook that ran for a tool call), `system` records (subtype
`informational`) and `attachment` records (`hook_blocking_error`, `hook_system_message`). Other
records (`file-history-snapshot`, `summary`, `queue-operation`, …) and attachments of other types
(`hook_success`, `task_reminder`, …: each names its type first) are no event and are not decoded.

Context. So that an appended log reads as if whole, what a later line may need is carried to the
next import (`LogRead.context`): the recent tool calls (a result still names its tool), each
thread's agent context (did it act, its last call and words), the session id, `cwd`,
`permissionMode` and `entrypoint`.

Copies. A resumed session may record its history again, into its own file or a new one, under
new record uuids (and often with the resume's time on every record): a failed call is known by
its tool_use_id and a typed turn by its words and the agent's message it answers (`_turn_ids`),
so a copy met later in the log is no new event (the events met are carried in the context too),
and each friction names its events for the importer to know copies across logs.

Speed. Most lines are successful tool results, progress records and plain assistant text;
byte-level pre-checks (`"type":"tool_use"`, `"is_error":true`, `"tool_result"`, the record type) decide
which lines need `json.loads`, each passing over a line at most once: a line's bytes, not its
records, are the cost (tool results of megabytes). The lines that are decoded go through
`intake.decode` (pydantic's JSON parser, a fifth of the read's CPU time less than `json.loads`,
and the stdlib for what it refuses, so a record reads the same). Assistant text is
decoded only when a friction quotes it or a typed turn waits for the agent's reply; a successful
result is looked at only while an error waits to be got past.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from dreamtui.errors import InputError
from dreamtui.intake import decode
from dreamtui.intake.claude_code import rules
from dreamtui.intake.claude_code.discovery import LogFile
from dreamtui.intake.claude_code.frictions import Detector, Origin
from dreamtui.intake.lessons import QUOTE_CHARS, Friction, ToolCall, clip, one_line

# Byte-level pre-checks: they only decide which lines are worth json.loads; the parsed record
# decides everything else, so a pre-check hit on a string's content costs a parse, nothing more.
# Substring tests, not regexes: they run on every byte of the corpus. Each comes in Claude Code's
# compact spelling and in the `": "` spelling of other JSON writers.
_B_TOOL_USE = b'"tool_use"'
# A tool_use block's own type, not the `"stop_reason":"tool_use"` that every record of a message
# ending in a tool call carries (its text and thinking records too).
_B_TYPE_KEYS = (b'"type":', b'"type": ')
_B_TOOL_RESULT = b'"tool_result"'


def _spellings(key: str, value: str) -> tuple[bytes, bytes]:
    return f'"{key}":{value}'.encode(), f'"{key}": {value}'.encode()


_B_IS_ERROR = b'"is_error"'
_B_ASSISTANT = _spellings("type", '"assistant"')
_B_USER = _spellings("type", '"user"')
_B_SIDECHAIN = b'"isSidechain"'
_B_TRUE = (b":true", b": true")
_B_TEXT_BLOCK = _spellings("type", '"text"')
_B_UUID = re.compile(rb'"uuid"\s*:\s*"([^"\\]{1,100})"')
_B_HOOK_PROGRESS = b'"hook_progress"'
_B_PRE_TOOL_USE = b'"PreToolUse'
_B_HOOK_ID = re.compile(rb'"toolUseID"\s*:\s*"([^"\\]{1,200})"')
_B_HOOK_NAME = re.compile(rb'"hookName"\s*:\s*"([^"\\]{1,200})"')
_B_RESULT_ID = re.compile(rb'"tool_use_id"\s*:\s*"([^"\\]{1,200})"')
_B_ATTACHMENT = _spellings("type", '"attachment"')
_B_SYSTEM = _spellings("type", '"system"')
_B_MODE = b'ermissionMode"'  # permissionMode (user records) and the permission-mode record
# The record's own type, when it is the first "type" key near the start of the line (Claude
# Code writes it before `message`/`data`); a line where it is not is read the slow way.
_B_HEAD_TYPE = re.compile(rb'"type"\s*:\s*"([A-Za-z_-]{1,40})"')
_HEAD_BYTES = 1024
# An assistant record's message id, among the first keys of its message (after `model`).
_B_MESSAGE_ID = re.compile(rb'"message"\s*:\s*\{[^{}]{0,400}?"id"\s*:\s*"([^"\\]{1,200})"')
# Claude Code 1.0 writes an assistant record's type after its message, whose own type comes first:
# `"message":{"id":…,"type":"message","role":"assistant",…}`.
_B_ROLE_ASSISTANT = (b',"role":"assistant"', b', "role": "assistant"')
_NO_EVENT_TYPES = frozenset({b"file-history-snapshot", b"queue-operation", b"last-prompt",
                             b"summary", b"ai-title", b"custom-title"})
_ATTACHMENTS = frozenset({"queued_command", "hook_blocking_error", "hook_system_message",
                          "hook_stopped_continuation", "hook_error_during_execution"})
_B_ATTACHMENTS = frozenset(name.encode() for name in _ATTACHMENTS)

_KEPT_TOOLS = 64  # tool calls remembered across imports: results follow their call closely
_KEPT_HOOKS = 64  # tool calls a PreToolUse hook ran for, remembered until their result
_READ_BUFFER = 1 << 20
_TARGET_CHARS = 100  # a tool call's target (command, path, url, …) as a lesson quotes it
_KEPT_EVENTS = 4096  # events of a log remembered across its imports, to know their replays


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
    plan = data.get("plan") if isinstance(data.get("plan"), str) and data["plan"].strip() else None
    target = path
    if target is None and plan is not None:
        target = next((line.lstrip("# ") for line in plan.splitlines() if line.strip()), None)
    if target is None and isinstance(data.get("questions"), list) and data["questions"]:
        first = data["questions"][0]
        if isinstance(first, dict) and isinstance(first.get("question"), str):
            target = first["question"]
    if target is None:
        for key in ("command", "pattern", "url", "query", "description", "prompt", "skill"):
            if isinstance(data.get(key), str) and data[key].strip():
                target = data[key]
                break
    return ToolCall(name, _one_line(target, _TARGET_CHARS) if target else None, path,
                    clip(plan.strip(), rules.PLAN_CHARS) if plan else None)


def _one_line(text: str, limit: int) -> str:
    """`one_line(text, limit)` of a text that may be megabytes (a command with a heredoc, a
    subagent's prompt) without collapsing the spaces of all of it: a head with no escape that
    still outlasts `limit` once collapsed starts the whole text's line, so it gives that line."""
    head = text[: 4 * limit]
    if len(head) < len(text) and "\x1b" not in head and "\u241b" not in head:
        line = one_line(head, len(head))
        if len(line) > limit:
            return clip(line, limit)
    return one_line(text, limit)


@dataclass
class _Thread:
    """What the agent did since the person last typed, in the main thread or the sidechain
    (a `frictions.Agent`)."""

    acted: bool = False
    last_tool: ToolCall | None = None
    said: bytes | str | None = None  # a raw assistant line until a friction needs its text
    said_in: str | None = None  # the message id of `said`, known once decoded
    last_message: bytes | str | None = None  # the agent's last record (raw) or its message id

    def said_text(self) -> str | None:
        if isinstance(self.said, bytes):
            self.said, self.said_in = _assistant_words(self.said)
        return self.said

    def answered(self) -> str | None:
        """The message id of the agent's last record: what a turn typed now answers."""
        if isinstance(self.last_message, bytes):
            raw = self.last_message
            found = _B_MESSAGE_ID.search(raw, 0, _HEAD_BYTES)
            if found:  # the line need not be decoded (its thinking may be long)
                self.last_message = found.group(1).decode("utf-8", "replace")
            else:
                try:
                    message = _loads(raw)[0]["message"]
                except (ValueError, RecursionError, TypeError, KeyError):
                    message = None
                self.last_message = _text(message.get("id")) if isinstance(message, dict) else None
        return self.last_message

    def calls(self, call: ToolCall, message_id: str) -> None:
        """The agent calls a tool; words from an earlier message no longer explain it."""
        self.last_tool = call
        if isinstance(self.said, bytes):
            if f'"{message_id}"'.encode() not in self.said:
                self.said = None
        elif self.said_in != message_id:
            self.said = None

    def reset(self) -> None:
        """The person typed: the agent starts anew (the message they answered stays the last)."""
        self.acted, self.last_tool, self.said, self.said_in = False, None, None, None

    def to_json(self) -> dict[str, Any]:
        said = self.said_text()
        return {"acted": self.acted, "last_tool": self.last_tool.to_json() if self.last_tool else None,
                "said": clip(said, QUOTE_CHARS) if said else None, "said_in": self.said_in,
                "answered": self.answered()}

    @classmethod
    def from_json(cls, data: Any) -> _Thread:
        if not isinstance(data, dict):
            return cls()
        tool = data.get("last_tool")
        return cls(acted=bool(data.get("acted")), last_tool=ToolCall.from_json(tool),
                   said=data.get("said") if isinstance(data.get("said"), str) else None,
                   said_in=data.get("said_in") if isinstance(data.get("said_in"), str) else None,
                   last_message=_text(data.get("answered")))


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


def _calls_tool(raw: bytes) -> bool:
    """Does the line hold a tool_use block (`"type":"tool_use"`, in either spelling)? One pass."""
    at = raw.find(_B_TOOL_USE)
    while at >= 0:
        if raw.endswith(_B_TYPE_KEYS, 0, at):
            return True
        at = raw.find(_B_TOOL_USE, at + len(_B_TOOL_USE))
    return False


def _flag(raw: bytes, key: bytes) -> bool:
    """Is the JSON key `key` true anywhere in the line? (One pass, for both spellings.)"""
    at = raw.find(key)
    while at >= 0:
        at += len(key)
        if raw.startswith(_B_TRUE, at):
            return True
        at = raw.find(key, at)
    return False


def _in_sidechain(raw: bytes) -> bool:
    """The record's own `isSidechain`, the first in the line: Claude Code writes it second, and
    looking on for a `true` would scan the rest of every main-thread line."""
    at = raw.find(_B_SIDECHAIN)
    return at >= 0 and raw.startswith(_B_TRUE, at + len(_B_SIDECHAIN))


def _loads(raw: bytes) -> tuple[Any, bool]:
    """(record, was the UTF-8 valid); invalid bytes become U+FFFD rather than losing the line."""
    try:
        return decode.loads(raw), True
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
    # Where the first malformed line is, for the person to look at: "<log>:<line>" when the log
    # was read from its start, else "<log> at byte N" (an incremental read knows no line numbers).
    malformed_at: str = ""

    def add(self, other: ReadStats) -> None:
        for name in self.__dataclass_fields__:
            if name != "malformed_at":
                setattr(self, name, getattr(self, name) + getattr(other, name))
        self.malformed_at = self.malformed_at or other.malformed_at


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
        self.tools: dict[str, ToolCall] = {}
        for key, value in tools.items():
            call = ToolCall.from_json(value)
            if call is not None:
                self.tools[key] = call
        hooked = context.get("hooked")
        self.hooked: dict[str, str] = {k: v for k, v in hooked.items() if isinstance(v, str)} \
            if isinstance(hooked, dict) else {}
        streams = context.get("streams")
        streams = streams if isinstance(streams, dict) else {}
        self.main = _Thread.from_json(streams.get("main"))
        self.side = _Thread.from_json(streams.get("side"))
        self.session_id: str = str(context.get("session_id") or log.session_id)
        self.cwd: str | None = _text(context.get("cwd"))
        self.mode: str | None = _text(context.get("mode"))
        self.entrypoint: str | None = _text(context.get("entrypoint"))
        # A person typed a slash command in this session: an IDE runs it through the Agent SDK,
        # and its turns are theirs, not a program's.
        self.person: bool = context.get("person") is True
        # The events met in this log (failed calls by tool_use_id, typed turns by `_turn_ids`):
        # a resumed session records them again under new uuids, and the copy is no new event.
        seen = context.get("seen")
        self.seen: dict[str, None] = dict.fromkeys(
            e for e in seen if isinstance(e, str)) if isinstance(seen, list) else {}

    def context(self) -> dict[str, Any]:
        kept = list(self.tools.items())[-_KEPT_TOOLS:]
        return {"tools": {k: v.to_json() for k, v in kept},
                "hooked": dict(list(self.hooked.items())[-_KEPT_HOOKS:]),
                "streams": {"main": self.main.to_json(), "side": self.side.to_json()},
                "session_id": self.session_id, "cwd": self.cwd, "mode": self.mode,
                "entrypoint": self.entrypoint, "person": self.person,
                "seen": list(self.seen)[-_KEPT_EVENTS:]}

    def feed(self, raw: bytes) -> None:
        head = _B_HEAD_TYPE.search(raw, 0, _HEAD_BYTES)
        kind = head.group(1) if head else None
        if kind == b"message" and head is not None and raw.startswith(_B_ROLE_ASSISTANT, head.end()):
            kind = b"assistant"
        if kind == b"progress":
            if _B_HOOK_PROGRESS in raw and _B_PRE_TOOL_USE in raw:
                self._hook_ran(raw)
            return
        if kind in _NO_EVENT_TYPES:
            return
        if kind == b"assistant":
            if _calls_tool(raw):
                self._parse(raw)
            else:
                self._agent_spoke(raw)
            return
        if kind == b"user":
            if _B_TOOL_RESULT in raw and not _flag(raw, _B_IS_ERROR):
                self._succeeded(raw)
            else:
                self._parse(raw)
            return
        if kind == b"system" or kind == b"permission-mode":
            self._parse(raw)
            return
        if kind is not None and _has(raw, _B_ATTACHMENT):
            # An attachment record names its attachment's type first: of the few that are
            # events, or of one that carries the permission mode, the record is read.
            if kind in _B_ATTACHMENTS or kind == b"attachment" or _B_MODE in raw:
                self._parse(raw)
            return
        if _B_TOOL_USE in raw or _flag(raw, _B_IS_ERROR):
            self._parse(raw)
        elif _B_TOOL_RESULT in raw:
            self._succeeded(raw)
        elif _has(raw, _B_ASSISTANT):
            self._agent_spoke(raw)
        elif _has(raw, _B_USER):
            self._parse(raw)
        elif _B_HOOK_PROGRESS in raw:
            if _B_PRE_TOOL_USE in raw:
                self._hook_ran(raw)
        elif _has(raw, _B_ATTACHMENT) or _has(raw, _B_SYSTEM) or _B_MODE in raw:
            self._parse(raw)
        # anything else (summaries, snapshots, progress, queue operations…) is skipped unread

    def _succeeded(self, raw: bytes) -> None:
        """A successful tool result: did the agent get past an error? (Else nothing to read.)"""
        if self.detector.has_open_errors:
            found = _B_RESULT_ID.search(raw)
            if found:
                sidechain = _in_sidechain(raw) or self.log.subagent
                call = self.tools.get(found.group(1).decode("utf-8", "replace"))
                self.detector.tool_succeeded(sidechain, call)

    def _agent_spoke(self, raw: bytes) -> None:
        """An assistant record without a tool call: the agent acted; its words kept undecoded."""
        sidechain = _in_sidechain(raw) or self.log.subagent
        self.detector.agent_acted(sidechain)
        thread = self.side if sidechain else self.main
        thread.acted = True
        thread.last_message = raw
        if _has(raw, _B_TEXT_BLOCK):
            thread.said = raw
            if self.detector.awaits_reply(sidechain):
                words = thread.said_text()
                # Claude Code writes a blank text before a long reply: the reply (a concession,
                # say) is in the next record, and None would read as "a tool call came first".
                if words is not None:
                    self.detector.agent_replied(sidechain, words)

    def _hook_ran(self, raw: bytes) -> None:
        """A `progress` record of a PreToolUse hook: remember which call it ran for."""
        tool_id, name = _B_HOOK_ID.search(raw), _B_HOOK_NAME.search(raw)
        if tool_id and name:
            self.hooked[tool_id.group(1).decode("utf-8", "replace")] = \
                name.group(1).decode("utf-8", "replace")
            if len(self.hooked) > 4 * _KEPT_HOOKS:
                self.hooked = dict(list(self.hooked.items())[-_KEPT_HOOKS:])

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
        self.cwd = _text(record.get("cwd")) or self.cwd
        self.session_id = _text(record.get("sessionId")) or self.session_id
        self.mode = _text(record.get("permissionMode")) or self.mode
        self.entrypoint = _text(record.get("entrypoint")) or self.entrypoint
        message = record.get("message")
        message = message if isinstance(message, dict) else {}
        kind = record.get("type")
        if kind == "assistant":
            self._assistant(record, message)
        elif kind == "user":
            self._user(record, message.get("content"))
        elif kind == "attachment":
            self._attachment(record)
        elif kind == "system" and record.get("subtype") == "informational" \
                and isinstance(record.get("content"), str):
            sidechain = self._sidechain(record)
            self.detector.hook_said(self._origin(record, sidechain),
                                    self.side if sidechain else self.main, record["content"])

    def _sidechain(self, record: dict[str, Any]) -> bool:
        """Is the record in the sidechain thread? A subagent's transcript is all sidechain."""
        return record.get("isSidechain") is True or self.log.subagent

    def _origin(self, record: dict[str, Any], sidechain: bool, events: tuple[str, ...] = ()) -> Origin:
        return Origin(scope=self.log.scope, session_id=self.session_id,
                      record_uuid=_text(record.get("uuid")), timestamp=_text(record.get("timestamp")),
                      cwd=self.cwd, log=self.log_name, sidechain=sidechain, events=events)

    def _replayed(self, events: tuple[str, ...]) -> bool:
        """Was this event met before in the log (a resumed session's copy)? Else it is now."""
        if any(e in self.seen for e in events):
            return True
        self.seen.update(dict.fromkeys(events))
        if len(self.seen) > 2 * _KEPT_EVENTS:
            self.seen = dict.fromkeys(list(self.seen)[-_KEPT_EVENTS:])
        return False

    def _assistant(self, record: dict[str, Any], message: dict[str, Any]) -> None:
        sidechain = self._sidechain(record)
        self.detector.agent_acted(sidechain)
        thread = self.side if sidechain else self.main
        thread.acted = True
        message_id = str(message.get("id"))
        thread.last_message = _text(message.get("id"))
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                call = _tool_call(block)
                self.tools[str(block.get("id"))] = call
                thread.calls(call, message_id)
                if self.detector.awaits_reply(sidechain):
                    self.detector.agent_replied(sidechain, None)
            elif block.get("type") == "text" and isinstance(block.get("text"), str) \
                    and block["text"].strip():
                words: str = block["text"].strip()
                thread.said, thread.said_in = words, message_id
                if self.detector.awaits_reply(sidechain):
                    self.detector.agent_replied(sidechain, words)

    def _user(self, record: dict[str, Any], content: Any) -> None:
        sidechain = self._sidechain(record)
        thread = self.side if sidechain else self.main
        if record.get("parentUuid", "") is None:
            thread.last_message = None  # a chain starts (a resume's copy, too): it answers nothing
        if isinstance(content, str):
            self._typed(record, sidechain, thread, content)
            return
        if not isinstance(content, list):
            return
        blocks = [b for b in content if isinstance(b, dict)]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for block in results:
            tool_id = str(block.get("tool_use_id"))
            call = self.tools.get(tool_id)
            if block.get("is_error") is not True:
                self.detector.tool_succeeded(sidechain, call)
                continue
            events = (f"tool:{tool_id}",) if isinstance(block.get("tool_use_id"), str) else ()
            if self._replayed(events):
                continue  # the same failed call recorded again: it was met, with what followed it
            outcome = record.get("toolUseResult")
            raw = _result_text(block.get("content"))
            signals = rules.Signals(
                tool=call.name if call else None,
                user_rejected=isinstance(outcome, str) and outcome.startswith("User rejected"),
                denial_kind=_text(record.get("toolDenialKind")), mode=self.mode,
                hooked=self.hooked.pop(tool_id, None), tagged="<tool_use_error>" in raw[:40])
            self.detector.tool_failed(self._origin(record, sidechain, events), thread, call, raw,
                                      signals)
        texts = [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        if texts and not results:
            self._typed(record, sidechain, thread, "\n".join(texts))

    def _typed(self, record: dict[str, Any], sidechain: bool, thread: _Thread, text: str) -> None:
        if record.get("isMeta") is True or record.get("isCompactSummary") is True:
            return  # Claude Code's own words in the person's place
        events = _turn_ids(text, thread)
        if self._replayed(events):
            if self.detector.replayed(sidechain, text):  # typed before: not said now
                thread.reset()
            return
        self.person = self.person or rules.is_slash_command(text)
        human = self.person or not rules.is_sdk(self.entrypoint)
        if self.detector.person_typed(self._origin(record, sidechain, events), thread, text,
                                      human=human):
            thread.reset()

    def _attachment(self, record: dict[str, Any]) -> None:
        attachment = record.get("attachment")
        if not isinstance(attachment, dict) or attachment.get("type") not in _ATTACHMENTS:
            return
        sidechain = self._sidechain(record)
        thread = self.side if sidechain else self.main
        where = self._origin(record, sidechain)
        if attachment["type"] == "queued_command":
            text = _attached_text(attachment, ("prompt", "content", "text"))
            if text and (self.person or not rules.is_sdk(self.entrypoint)) and \
                    self.detector.queued(where, thread, text):
                thread.reset()
            return
        text = _attached_text(attachment, ("blockingError", "content", "message", "stderr"))
        if text:
            self.detector.hook_said(where, thread, text)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _turn_ids(text: str, thread: _Thread) -> tuple[str, ...]:
    """What a typed turn is, whichever record holds it: its words with the message of the
    agent's they answer, none in a chain's first records (a resume's copy starts a chain of its
    own, with the IDE's tags of the first turn in a record of their own). A resume copies the
    turn with a new uuid, and often with the resume's time on every record, but keeps the
    agent's message ids; so not the time, which two Escs of such a copy share. Not `promptId`:
    every record of a prompt carries it, the interrupt marker and tool results as the turn."""
    words = rules.turn_words(text)
    if not words:
        return ()
    return ("turn:" + _digest(thread.answered(), words),)


def _digest(*parts: str | None) -> str:
    return hashlib.sha1(repr(parts).encode("utf-8", "replace")).hexdigest()[:20]


def _attached_text(attachment: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The text an attachment carries under the first of `keys` it has (a string, a list of
    text blocks, or a dict such as `blockingError: {blockingError, command}`)."""
    for key in keys:
        value = attachment.get(key)
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, str) and v.strip()), None)
        text = _result_text(value)
        if text.strip():
            return text
    return None


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
    line = raw.strip()
    return line[:1] == b"{" and line[-1:] == b"}"


def read_log(log: LogFile, log_name: str, start: int = 0, context: dict[str, Any] | None = None,
             anchor: int = 0, last_id: str | None = None) -> LogRead:
    """Read a log's complete lines from `start`; `anchor`/`last_id` carry over when none is new."""
    parser = _LogParser(log, log_name, context)
    stats = parser.stats
    feed = parser.feed
    offset = start
    lines = 0
    last_line: bytes | None = None
    try:
        # A large buffer: lines of a megabyte (a pasted image, a file read whole) are common, and
        # the default 8 KB buffer reads them in 8 KB pieces (a third of the CPU time of the loop).
        with open(log.path, "rb", buffering=_READ_BUFFER) as handle:
            handle.seek(start)
            for raw in handle:
                if not raw.endswith(b"\n"):
                    stats.incomplete_tail = 1  # being written: read it once it is complete
                    break
                lines += 1
                malformed = stats.malformed
                if raw[:1] == b"{" and raw.endswith(b"}\n"):
                    feed(raw)  # nearly every line: a record, without copying it
                elif raw.isspace():
                    offset += len(raw)
                    continue
                elif _looks_like_object(raw):
                    feed(raw)
                else:
                    stats.malformed += 1
                if stats.malformed > malformed and not stats.malformed_at:
                    stats.malformed_at = (f"{log.path}:{lines}" if start == 0
                                          else f"{log.path} at byte {offset}")
                anchor, last_line = offset, raw
                offset += len(raw)
    except OSError as exc:
        raise InputError(f"{log.path}: cannot read this Claude Code log: {exc.strerror}") from None
    stats.lines_read = lines
    stats.bytes_read = offset - start
    frictions = parser.finish()
    return LogRead(frictions, stats, offset, anchor,
                   line_identity(last_line) if last_line is not None else last_id, parser.context())
