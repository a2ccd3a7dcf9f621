"""Mine Claude Code session logs for friction and turn each friction into an STM memory.

Where the logs are. Claude Code keeps one JSONL file per session in
`<projects_dir>/<slug>/<session-id>.jsonl`, `<slug>` being the absolute project path with every
character that is not a letter or digit replaced by `-`; subagent transcripts live in
`<slug>/<session-id>/subagents/*.jsonl`. The mapping is lossy (`/a/my.app` and `/a/my-app` share a
slug), so a log joins the import only if the `cwd` its records carry is the project or a folder in
it; a log in the project's own slug folder that carries no `cwd` at all is kept. Sessions started
in a subfolder of the project live under a longer slug (`<slug>-src`): those folders are searched
too, and kept only on a matching `cwd`.

What a log holds. There is no official schema, so every field is optional: records of unknown
types (`file-history-snapshot`, `summary`, `system`, `attachment`, `queue-operation`, …) are
skipped; a line that is not a JSON object is counted as malformed and skipped; a line with invalid
UTF-8 is counted and decoded with replacement characters. A last line without its newline is a
write in progress: it is not consumed, and the next import reads it once it is complete.

Detection rules — precision first: a rule fires on Claude Code's own fixed texts, or on a typed
turn whose *opening* contradicts what the agent had just done, never on a word anywhere.

| kind          | type        | fires on                                                            |
|---------------|-------------|---------------------------------------------------------------------|
| rejection     | failure     | a tool_result with `is_error: true` whose content starts "The user   |
|               |             | doesn't want to proceed with this tool use. The tool use was        |
|               |             | rejected" or "The user doesn't want to take this action right now." |
|               |             | The reason the person typed follows "To tell you how to proceed,    |
|               |             | the user said:".                                                    |
| clarification | observation | a rejection whose reason begins "The user wants to clarify these     |
|               |             | questions." — the person had questions, not an objection.           |
| interruption  | observation | a user text "[Request interrupted by user…]" (or a tool_result with |
|               |             | it). A reason-less rejection followed by that text is the Esc key:  |
|               |             | an interruption, not a rejection.                                   |
| hook_block    | failure     | an error result naming a hook that blocked or denied the call       |
|               |             | ("PreToolUse:Bash hook error", "Blocked by hook").                  |
| denial        | failure     | an error result "Permission to use <Tool> … has been denied" (a      |
|               |             | permission rule or the auto-mode classifier).                       |
| tool_error    | failure     | any other error result; the tool is named by the matching tool_use. |
| correction    | failure     | a typed turn right after the agent acted (never the first turn,     |
|               |             | never in a subagent, whose "user" is the parent agent) opening with |
|               |             | "no"/"nope" + a contradiction cue ("no, use …", "no. revert"), a     |
|               |             | bare "no", "don't …"/"stop …" (not "don't worry/forget"), "that's    |
|               |             | wrong / not what I asked" at a sentence start, "revert that",       |
|               |             | "I said …", "wrong …", or "actually/wait, … instead". Optional       |
|               |             | openers ("actually,", "wait,", "hmm,") are stripped first, so        |
|               |             | "actually, also add …" and "no worries" never fire. "no"/"don't"    |
|               |             | answering a question the agent just asked ("?") is an answer.        |

Skipped text: compaction summaries ("This session is being continued from a previous
conversation", or `isCompactSummary`), `isMeta` records, command wrappers (`<command-name>`,
`<command-message>`, `<local-command-stdout>`, `<bash-input>`, …), `<system-reminder>` blocks and
`Caveat:` lines.

Memories. Each friction becomes one memory whose content quotes the evidence and names what the
agent had just done (the matching tool_use, or the last tool call and words since the person's
last typed turn). Its idempotency key is `cc:<session>:<kind>:<hash of the normalised evidence>`,
so the same friction repeated in a session is one memory with `metadata.occurrences`. A repeat
read by a later run (the session went on) raises the count of the memory while it is still
pending; record uuids keep a re-read from counting a record twice.

Incremental import. Per log file, `dreamtui_import_state` (a table of ours in the workspace STM
database) keeps the byte offset read up to, the size and mtime, the uuid of the last record
consumed (or a hash of that line), and a small parser context (recent tool calls, the last action)
so an appended log is read from where it stopped and a tool result still names its tool. An
unchanged log (same size and mtime) is not opened. A log that shrank, or whose last consumed line
changed, is read whole again; idempotency keys keep that from duplicating memories. Logs written
to within `live_minutes` are live sessions and are skipped unless asked for. A rejection waiting
for a possible interrupt marker is settled when the log ends, so the marker is expected in the same
write as the rejection (Claude Code writes them together).

Speed. Most lines are successful tool results and plain assistant text; byte-level pre-checks
(`"tool_use"`, `"is_error":true`, `"tool_result"`, the record type) decide which lines need
`json.loads`. Assistant text is decoded only when a friction quotes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from dreamtui.errors import InputError, StoreError
from dreamtui.intake.validate import prepare
from dreamtui.model import NewMemory
from dreamtui.store.stm import STMStore
from dreamtui.workspace.config import Config
from dreamtui.workspace.layout import Workspace

SOURCE = "claude-code"
AGENT_ID = "claude-code"
SUBAGENT_ID = "claude-code/subagent"
STATE_TABLE = "dreamtui_import_state"

KIND_TYPES: dict[str, str] = {
    "rejection": "failure",
    "clarification": "observation",
    "interruption": "observation",
    "hook_block": "failure",
    "denial": "failure",
    "tool_error": "failure",
    "correction": "failure",
}

KIND_STORIES: dict[str, str] = {
    "rejection": "the person rejected the agent's tool call at the permission prompt",
    "clarification": "the person stopped the tool call to clarify questions first "
                     "(not a rejection of the idea)",
    "interruption": "the person interrupted the agent",
    "hook_block": "a hook blocked the agent's tool call",
    "denial": "a permission rule or classifier denied the agent's tool call",
    "tool_error": "the agent's tool call failed",
    "correction": "the person corrected the agent right after it acted",
}

_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected",
             "The user doesn't want to take this action right now.")
_REASON_MARK = "To tell you how to proceed, the user said:"
_CLARIFY = "The user wants to clarify these questions."
_INTERRUPTED = "[Request interrupted by user"
_COMPACTION = "This session is being continued from a previous conversation"
_WRAPPERS = ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
             "<local-command-stderr>", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
             "<user-memory-input>")

_HOOK = re.compile(r"\b(?:Pre|Post)ToolUse(?::\S+)? hook\b|\bblocked by (?:an? |the )?(?:\S+ )?hook\b"
                   r"|\bhook\b[^\n]{0,120}?\b(?:blocked|denied|blocking)\b", re.IGNORECASE)
_DENIED = re.compile(r"Permission to use (\S+?)\b[^\n]{0,400}?has been denied")
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")

# Corrections (module docstring). Applied to the first sentence-ish of a lowercased typed turn.
_SEP = r"[\s,.!:;\u2013\u2014-]"
_OPENER = re.compile(rf"^(?:(?:actually|wait|hmm+|um+|oh|ugh|sorry|hold on)\b{_SEP}*)+")
_NO_CUE = re.compile(
    rf"^(?:no|nope|nah)(?:{_SEP}+(?:use|using|don'?t|do not|not|never|stop|wrong|revert|undo|"
    r"instead|rather|i said|i meant|i asked|i told|i want|leave|keep|you should|you shouldn'?t|"
    r"you need|we should|we need|we don'?t|it should|that should|this should|that'?s not|"
    r"that is not|it'?s not|it is not|this is not|that'?s wrong|put|call|run|remove|delete|"
    r"go back|the other|change|switch)\b|[\s.!]*$)")
_DONT = re.compile(r"^(?:don'?t|do not|never|stop)\b(?!\s+(?:worry|forget|hesitate|mind)\b)")
_WRONG = re.compile(r"(?:^|[.!?;]\s+)(?:that'?s|that is|this is|it'?s|it is)\s+"
                    r"(?:wrong|incorrect|not (?:right|correct|what i (?:asked|wanted|meant|said)))\b")
_IMPERATIVE = re.compile(r"^(?:wrong\b|(?:revert|undo|roll back)\s+(?:that|this|it|the|your|those|"
                         r"these)\b|i (?:said|told you|meant)\b|i asked (?:you )?(?:to|for|not)\b)")
_INSTEAD = re.compile(r"^(?:(?:actually|wait)\b[^.!?\n]*|(?:please\s+)?use\s[^.!?\n]*)\binstead\b")
_ANSWERABLE = frozenset({"no", "dont"})

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
_B_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')

_KEPT_TOOLS = 64  # tool calls remembered across imports: results follow their call closely
_PROBE_BYTES = 256 * 1024  # how far into a new log we look for the `cwd` that places it
_QUOTE_CHARS = 600


# -- small text helpers -----------------------------------------------------------------------


def project_slug(project: str) -> str:
    """Claude Code's folder name for a project path."""
    return re.sub(r"[^A-Za-z0-9]", "-", project)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _one_line(text: str, limit: int) -> str:
    return _clip(_SPACES.sub(" ", text).strip(), limit)


def _normalise(text: str) -> str:
    """What makes two evidences 'the same friction': case, spacing and numbers do not count."""
    return _DIGITS.sub("#", _SPACES.sub(" ", text.lower())).strip()[:300]


def _plain_quotes(text: str) -> str:
    return text.replace("\u2019", "'")


def clean_user_text(text: str) -> str:
    """A typed turn without reminders and caveats; "" when the whole turn is a skip rule."""
    text = _REMINDER.sub("", text)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("Caveat:")]
    text = "\n".join(lines).strip()
    if text.startswith(_COMPACTION) or text.startswith(_WRAPPERS):
        return ""
    return text


def _result_text(content: Any) -> str:
    """tool_result content is a string or a list of `{type: text, text}` blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(block["text"] for block in content
                         if isinstance(block, dict) and isinstance(block.get("text"), str))
    return ""


def classify_tool_error(content: str) -> tuple[str, str | None]:
    """(kind, the reason the person typed) of a tool_result marked `is_error`."""
    text = _plain_quotes(content).lstrip()
    if text.startswith(_REJECTED):
        reason = text.partition(_REASON_MARK)[2].strip() or None
        if reason is not None and reason.startswith(_CLARIFY):
            return "clarification", reason
        return "rejection", reason
    if text.startswith(_INTERRUPTED):
        return "interruption", None
    if _HOOK.search(text):
        return "hook_block", None
    if _DENIED.search(text):
        return "denial", None
    return "tool_error", None


def correction_rule(text: str) -> str | None:
    """The correction rule a typed turn's opening matches, or None (module docstring)."""
    lowered = _plain_quotes(text).lower().strip()[:300]
    head = _OPENER.sub("", lowered)
    if _NO_CUE.match(head):
        return "no"
    if _DONT.match(head):
        return "dont"
    if _IMPERATIVE.match(head):
        return "imperative"
    if _WRONG.search(head):
        return "wrong"
    if _INSTEAD.match(lowered):  # needs its opener: "actually, … instead"
        return "instead"
    return None


# -- parsing one log --------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A tool_use block, reduced to what a memory names."""

    name: str
    target: str | None
    file_path: str | None

    def describe(self) -> str:
        return f"{self.name} {self.target}" if self.target else self.name

    def to_json(self) -> list[str | None]:
        return [self.name, self.target, self.file_path]


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
    return ToolCall(name, _one_line(target, 100) if target else None, path)


# What makes two frictions of a kind "the same friction repeated": a correction is its words,
# wherever it came; a rejection is the same call refused for the same reason.
_SAME_FRICTION: dict[str, tuple[str, ...]] = {
    "rejection": ("action", "reason"),
    "clarification": ("tool", "reason"),
    "interruption": ("action", "evidence"),
    "hook_block": ("action", "evidence"),
    "denial": ("action", "evidence"),
    "tool_error": ("action", "evidence"),
    "correction": ("evidence",),
}


@dataclass(frozen=True)
class LogFile:
    """One session or subagent transcript, and the scope its frictions merge within."""

    path: Path
    session_id: str
    scope: str  # the session id, or `<session>/<subagent file stem>` for a subagent
    subagent: bool
    exact_slug: bool  # in the project's own slug folder (a log with no `cwd` still belongs)

    @classmethod
    def at(cls, path: Path, exact_slug: bool) -> LogFile:
        if path.parent.name == "subagents":
            session = path.parent.parent.name
            return cls(path, session, f"{session}/{path.stem}", True, exact_slug)
        return cls(path, path.stem, path.stem, False, exact_slug)


@dataclass
class Friction:
    """One detected friction, before merging and turning into a memory."""

    kind: str
    scope: str
    session_id: str
    record_uuid: str | None
    timestamp: str | None
    tool: str | None
    file_path: str | None
    action: str | None  # what the agent had just done
    said: str | None  # the agent's last words before it
    evidence: str  # the quoted text: tool result, reason or typed turn
    reason: str | None
    cwd: str | None
    sidechain: bool
    log: str

    @property
    def key(self) -> str:
        parts = [getattr(self, name) or "" for name in _SAME_FRICTION[self.kind]]
        digest = hashlib.sha256("\0".join(map(_normalise, parts)).encode("utf-8")).hexdigest()
        scope = self.scope if len(self.scope) <= 120 else hashlib.sha256(
            self.scope.encode("utf-8")).hexdigest()[:32]
        return f"cc:{scope}:{self.kind}:{digest[:16]}"


@dataclass
class _Stream:
    """What the agent did since the person last typed, for one of main thread or sidechain."""

    acted: bool = False
    last_tool: ToolCall | None = None
    said: bytes | str | None = None  # a raw assistant line until a friction needs its text
    said_in: str | None = None  # the message id of `said`, known once decoded
    pending: list[Friction] = field(default_factory=list)

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
                "said": _clip(said, _QUOTE_CHARS) if said else None, "said_in": self.said_in}

    @classmethod
    def from_json(cls, data: Any) -> _Stream:
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
    """Feeds on complete lines of one log; collects frictions (module docstring)."""

    def __init__(self, log: LogFile, log_name: str, context: dict[str, Any] | None) -> None:
        context = context or {}
        self.log = log
        self.log_name = log_name
        self.stats = ReadStats()
        self.frictions: list[Friction] = []
        tools = context.get("tools") if isinstance(context.get("tools"), dict) else {}
        self.tools: dict[str, ToolCall] = {k: ToolCall(*v) for k, v in tools.items()
                                           if isinstance(v, list) and len(v) == 3}
        streams = context.get("streams") if isinstance(context.get("streams"), dict) else {}
        self.main = _Stream.from_json(streams.get("main"))
        self.side = _Stream.from_json(streams.get("side"))
        self.session_id: str = str(context.get("session_id") or log.session_id)
        self.cwd: str | None = context.get("cwd") if isinstance(context.get("cwd"), str) else None

    def context(self) -> dict[str, Any]:
        kept = list(self.tools.items())[-_KEPT_TOOLS:]
        return {"tools": {k: v.to_json() for k, v in kept},
                "streams": {"main": self.main.to_json(), "side": self.side.to_json()},
                "session_id": self.session_id, "cwd": self.cwd}

    def _stream(self, sidechain: bool) -> _Stream:
        return self.side if sidechain or self.log.subagent else self.main

    def feed(self, raw: bytes) -> None:
        if _B_TOOL_USE in raw or _has(raw, _B_IS_ERROR):
            self._parse(raw)
        elif _B_TOOL_RESULT in raw:
            return  # a successful tool result: most of the bytes, never a friction
        elif _has(raw, _B_ASSISTANT):
            stream = self._stream(_has(raw, _B_SIDECHAIN))
            self._settle(stream)
            stream.acted = True
            if _has(raw, _B_TEXT_BLOCK):
                stream.said = raw
        elif _has(raw, _B_USER):
            self._parse(raw)
        # anything else (summaries, snapshots, system records…) is skipped unread

    def finish(self) -> list[Friction]:
        self._settle(self.main)
        self._settle(self.side)
        return self.frictions

    def _settle(self, stream: _Stream) -> None:
        self.frictions.extend(stream.pending)
        stream.pending.clear()

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

    def _assistant(self, record: dict[str, Any], message: dict[str, Any]) -> None:
        stream = self._stream(record.get("isSidechain") is True)
        self._settle(stream)
        stream.acted = True
        message_id = str(message.get("id"))
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                call = _tool_call(block)
                self.tools[str(block.get("id"))] = call
                stream.calls(call, message_id)
            elif block.get("type") == "text" and isinstance(block.get("text"), str) \
                    and block["text"].strip():
                stream.said, stream.said_in = block["text"].strip(), message_id

    def _user(self, record: dict[str, Any], content: Any) -> None:
        stream = self._stream(record.get("isSidechain") is True)
        if isinstance(content, str):
            self._typed(stream, record, content)
            return
        if not isinstance(content, list):
            return
        blocks = [b for b in content if isinstance(b, dict)]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for block in results:
            if block.get("is_error") is True:
                self._tool_failure(stream, record, block)
        texts = [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        if texts and not results:
            self._typed(stream, record, "\n".join(texts))

    def _friction(self, kind: str, record: dict[str, Any], stream: _Stream, call: ToolCall | None,
                  evidence: str, reason: str | None = None) -> Friction:
        return Friction(
            kind=kind, scope=self.log.scope, session_id=self.session_id,
            record_uuid=record.get("uuid") if isinstance(record.get("uuid"), str) else None,
            timestamp=record.get("timestamp") if isinstance(record.get("timestamp"), str) else None,
            tool=call.name if call else None, file_path=call.file_path if call else None,
            action=call.describe() if call else None, said=stream.said_text(),
            evidence=_clip(evidence.strip(), _QUOTE_CHARS), reason=reason, cwd=self.cwd,
            sidechain=stream is self.side, log=self.log_name)

    def _tool_failure(self, stream: _Stream, record: dict[str, Any], block: dict[str, Any]) -> None:
        text = _TOOL_ERROR_TAG.sub("", _REMINDER.sub("", _result_text(block.get("content")))).strip()
        call = self.tools.get(str(block.get("tool_use_id")))
        kind, reason = classify_tool_error(text)
        if kind == "denial" and call is None:
            denied = _DENIED.search(text)
            call = ToolCall(denied.group(1), None, None) if denied else None
        friction = self._friction(kind, record, stream, call, text, reason)
        if kind == "interruption" or (kind == "rejection" and reason is None):
            stream.pending.append(friction)  # an interrupt marker may follow (module docstring)
        else:
            self.frictions.append(friction)

    def _typed(self, stream: _Stream, record: dict[str, Any], text: str) -> None:
        if record.get("isMeta") is True or record.get("isCompactSummary") is True:
            return
        text = clean_user_text(text)
        if not text:
            return
        if text.startswith(_INTERRUPTED):
            self._interrupted(stream, record, text)
            return
        self._settle(stream)
        if stream.acted and stream is self.main and self._is_correction(stream, text):
            self.frictions.append(self._friction("correction", record, stream, stream.last_tool, text))
        stream.reset()

    def _is_correction(self, stream: _Stream, text: str) -> bool:
        rule = correction_rule(text)
        if rule in _ANSWERABLE:
            said = stream.said_text()
            return not (said and said.rstrip().endswith("?"))
        return rule is not None

    def _interrupted(self, stream: _Stream, record: dict[str, Any], text: str) -> None:
        if stream.pending:
            # The Esc key at a permission prompt writes a rejection, then this marker.
            stream.pending = [replace(f, kind="interruption", evidence=text)
                              if f.kind == "rejection" else f for f in stream.pending]
            self._settle(stream)
            return
        self.frictions.append(self._friction("interruption", record, stream, stream.last_tool, text))


@dataclass
class LogRead:
    """The outcome of reading one log from an offset."""

    frictions: list[Friction]
    stats: ReadStats
    offset: int  # just past the last complete line
    anchor: int  # where that last non-blank line starts
    last_id: str | None  # its record uuid, or `sha1:<hex>` of the line when it has none
    context: dict[str, Any]


def _line_identity(line: bytes) -> str:
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
                   _line_identity(last_line) if last_line is not None else last_id, parser.context())


# -- finding logs -----------------------------------------------------------------------------


def _inside(cwd: str, project: str) -> bool:
    here, root = PurePosixPath(cwd), PurePosixPath(project)
    return here == root or root in here.parents


def _first_cwd(path: Path) -> str | None:
    """The `cwd` of the first record that carries one, looking only at the head of the log."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_PROBE_BYTES)
    except OSError:
        return None
    found = _B_CWD.search(head)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def find_logs(projects_dir: Path, project: str) -> list[LogFile]:
    """Every log that may belong to `project`: its slug folder and its subfolders' slug folders."""
    slug = project_slug(project)
    logs: list[LogFile] = []
    try:
        folders = sorted(p for p in projects_dir.iterdir()
                         if p.is_dir() and (p.name == slug or p.name.startswith(slug + "-")))
    except OSError as exc:
        raise InputError(f"--projects-dir {projects_dir}: cannot list it: {exc.strerror}") from None
    for folder in folders:
        exact = folder.name == slug
        paths = sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*/subagents/*.jsonl"))
        logs.extend(LogFile.at(path, exact) for path in paths)
    return logs


def belongs(log: LogFile, project: str) -> bool:
    """The lossy slug matched; the log's own `cwd` decides (module docstring)."""
    cwd = _first_cwd(log.path)
    return log.exact_slug if cwd is None else _inside(cwd, project)


# -- import state -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FileState:
    offset: int
    size: int
    mtime_ns: int
    anchor: int
    last_id: str | None
    context: dict[str, Any]


_STATE_DDL = f"""CREATE TABLE IF NOT EXISTS {STATE_TABLE} (
  tenant_id VARCHAR NOT NULL, source VARCHAR NOT NULL, path VARCHAR NOT NULL,
  "offset" INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  anchor INTEGER NOT NULL, last_uuid VARCHAR, context JSON NOT NULL, updated_at DATETIME NOT NULL,
  PRIMARY KEY (tenant_id, source, path))"""


def _connect(db_path: Path, busy_timeout_ms: int, *, read_only: bool) -> sqlite3.Connection:
    uri = f"{db_path.resolve().as_uri()}?mode=ro" if read_only else str(db_path)
    try:
        conn = sqlite3.connect(uri, uri=read_only, timeout=busy_timeout_ms / 1000,
                               isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    except sqlite3.Error as exc:
        raise StoreError(f"{db_path}: cannot open for the import state: {exc}") from None
    return conn


def load_states(db_path: Path, tenant_id: str, busy_timeout_ms: int) -> dict[str, FileState]:
    """The saved state of every log; nothing when the database or table does not exist yet."""
    if not db_path.is_file():
        return {}
    conn = _connect(db_path, busy_timeout_ms, read_only=True)
    try:
        rows = conn.execute(f'SELECT path, "offset", size, mtime_ns, anchor, last_uuid, context '
                            f"FROM {STATE_TABLE} WHERE tenant_id = ? AND source = ?",
                            (tenant_id, SOURCE)).fetchall()
    except sqlite3.Error as exc:
        if "no such table" in str(exc):
            return {}
        raise StoreError(f"{db_path}: reading {STATE_TABLE}: {exc}") from None
    finally:
        conn.close()
    states = {}
    for path, offset, size, mtime_ns, anchor, last_id, context in rows:
        try:
            saved = json.loads(context)
        except ValueError:
            saved = None  # a damaged context only costs re-reading that log whole
        if isinstance(saved, dict):
            states[path] = FileState(offset, size, mtime_ns, anchor, last_id, saved)
    return states


def save_states(db_path: Path, tenant_id: str, busy_timeout_ms: int,
                states: dict[str, FileState], now: datetime) -> None:
    conn = _connect(db_path, busy_timeout_ms, read_only=False)
    stamp = now.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
    rows = [(tenant_id, SOURCE, path, s.offset, s.size, s.mtime_ns, s.anchor, s.last_id,
             json.dumps(s.context), stamp) for path, s in states.items()]
    try:
        conn.execute(_STATE_DDL)
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(f"INSERT OR REPLACE INTO {STATE_TABLE} VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise StoreError(f"{db_path}: saving {STATE_TABLE}: {exc}") from None
    finally:
        conn.close()


def _anchor_holds(path: Path, state: FileState) -> bool:
    """Is the last line we consumed still where we left it? (Otherwise the log was rewritten.)"""
    if state.last_id is None:
        return state.offset == 0
    try:
        with open(path, "rb") as handle:
            handle.seek(state.anchor)
            line = handle.read(state.offset - state.anchor)
    except OSError:
        return False
    return line.endswith(b"\n") and _line_identity(line) == state.last_id


def resume_point(path: Path, state: FileState | None, stat: os.stat_result) -> FileState | None:
    """The state to resume reading from; None when the log is unchanged and need not be opened."""
    fresh = FileState(0, 0, 0, 0, None, {})
    if state is None:
        return fresh
    if stat.st_size == state.size and stat.st_mtime_ns == state.mtime_ns:
        return None
    if stat.st_size < state.offset or not _anchor_holds(path, state):
        return fresh
    return state


# -- memories ---------------------------------------------------------------------------------


def _memory_type(kind: str, config: Config) -> str:
    wanted = KIND_TYPES[kind]
    for candidate in (wanted, "observation"):
        if candidate in config.memory_types:
            return candidate
    raise InputError(f"memory_types: the Claude Code import stores '{wanted}' or 'observation' "
                     f"memories, and the workspace config allows neither "
                     f"(it allows {', '.join(config.memory_types)})")


def _title(first: Friction, limit: int) -> str:
    action = _one_line(first.action, 70) if first.action else None
    evidence = _one_line(first.evidence, limit)
    titles = {
        "rejection": f"Rejected {action or 'a tool call'}" + (
            f": {_one_line(first.reason, limit)}" if first.reason else ""),
        "clarification": f"Asked to clarify before {action or 'a tool call'}",
        "interruption": f"Interrupted {action}" if action else "Interrupted the agent",
        "hook_block": f"Hook blocked {action or 'a tool call'}",
        "denial": f"Permission denied: {action or 'a tool call'}",
        "tool_error": f"{first.tool or 'A tool'} failed: {evidence}",
        "correction": f"Corrected: {evidence}",
    }
    return _one_line(titles[first.kind], limit)


def _content(group: list[Friction], limit_bytes: int) -> str:
    first, last = group[0], group[-1]
    where = f" in {first.cwd}" if first.cwd else ""
    who = " (a subagent)" if first.sidechain else ""
    lines = [f"Claude Code session {first.session_id}{where}{who}, {first.timestamp or 'time unknown'}: "
             f"{KIND_STORIES[first.kind]}."]
    if first.action:
        lines.append(f"The agent had just called: {first.action}")
    if first.said:
        lines.append(f'The agent had said: "{_clip(first.said, 300)}"')
    if first.reason:
        lines.append(f'The person said: "{_clip(first.reason, 2 * _QUOTE_CHARS)}"')
    if first.reason is None:
        label = "The person wrote" if first.kind == "correction" else "Evidence"
        lines.append(f'{label}: "{first.evidence}"')
    if len(group) > 1:
        lines.append(_seen_line(len(group), last.timestamp))
    text = "\n".join(lines)
    encoded = text.encode("utf-8")
    if len(encoded) <= limit_bytes:
        return text
    return encoded[: limit_bytes - 3].decode("utf-8", "ignore") + "…"


def _seen_line(occurrences: int, last: str | None) -> str:
    return f"Seen {occurrences} times in this session (last {last or 'unknown'})."


_SEEN_LINE_RE = re.compile(r"\nSeen \d+ times in this session \(last [^()\n]*\)\.\Z")


def _recounted(content: str, occurrences: int, last: str | None, limit_bytes: int) -> str:
    """`content` saying the new count; as it was when it had been clipped or would not fit."""
    if content.endswith("…"):
        return content
    text = _SEEN_LINE_RE.sub("", content) + "\n" + _seen_line(occurrences, last)
    return text if len(text.encode("utf-8")) <= limit_bytes else content


def _memory(key: str, group: list[Friction], config: Config) -> NewMemory:
    first = group[0]
    metadata = {
        "source": SOURCE, "kind": first.kind, "session_id": first.session_id,
        "record_uuid": first.record_uuid, "timestamp": first.timestamp, "tool": first.tool,
        "file_path": first.file_path, "cwd": first.cwd, "log": first.log,
        "occurrences": len(group), "record_uuids": [f.record_uuid for f in group if f.record_uuid],
        "last_timestamp": group[-1].timestamp,
    }
    return NewMemory(type=_memory_type(first.kind, config),
                     title=_title(first, config.stm.max_title_chars),
                     content=_content(group, config.stm.max_content_bytes),
                     agent_id=SUBAGENT_ID if first.sidechain else AGENT_ID,
                     tags=("claude-code", first.kind), metadata=metadata, idempotency_key=key)


def build_memories(frictions: Iterable[Friction], config: Config) -> list[NewMemory]:
    """One validated, redacted memory per distinct friction, counting its repeats."""
    groups: dict[str, list[Friction]] = {}
    for friction in frictions:
        groups.setdefault(friction.key, []).append(friction)
    return [prepare(_memory(key, group, config), config) for key, group in groups.items()]


def merge_repeats(store: STMStore, memories: Sequence[NewMemory], limit_bytes: int) -> int:
    """Raise the count of pending memories that this import's frictions repeat; how many rose.

    An appended session log adds occurrences, not duplicates. Records are told apart by uuid, so
    a log read whole again (it shrank or changed) counts nothing twice; a friction without a
    record uuid cannot be told apart and is not counted. A memory a dream has claimed or consumed
    keeps its count: it has been read already.
    """
    keyed = {m.idempotency_key: m for m in memories if m.idempotency_key}
    revisions: list[tuple[str, str, dict[str, Any]]] = []
    for key, stored in store.pending_by_keys(keyed).items():
        new = keyed[key]
        counted = list(stored.metadata.get("record_uuids") or ())
        known = set(counted)
        fresh = [u for u in new.metadata.get("record_uuids") or () if u not in known]
        if not fresh or stored.metadata.get("source") != SOURCE:
            continue
        occurrences = int(stored.metadata.get("occurrences") or 1) + len(fresh)
        last = new.metadata.get("last_timestamp")
        metadata = {**stored.metadata, "occurrences": occurrences, "record_uuids": counted + fresh,
                    "last_timestamp": last}
        revisions.append((stored.id, _recounted(stored.content, occurrences, last, limit_bytes),
                          metadata))
    return store.revise_pending(revisions) if revisions else 0


# -- the import -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportOptions:
    projects_dir: Path
    project: str
    since: datetime | None = None
    include_live: bool = False
    live_minutes: int = 10
    dry_run: bool = False


@dataclass
class ImportReport:
    logs: int = 0
    read: int = 0
    unchanged: int = 0
    live: int = 0
    too_old: int = 0
    other_project: int = 0
    stats: ReadStats = field(default_factory=ReadStats)
    frictions: int = 0
    memories: list[NewMemory] = field(default_factory=list)
    inserted: int = 0
    duplicates: int = 0
    recounted: int = 0  # pending memories whose occurrence count this import raised


def _configured_path(workspace: Workspace, configured: str) -> Path:
    path = Path(os.path.expanduser(configured))
    return (path if path.is_absolute() else workspace.root / path).resolve()


def default_project(workspace: Workspace) -> str:
    """`claude_code.project` from the config, else the workspace folder itself."""
    configured = workspace.config.claude_code.project
    return str(_configured_path(workspace, configured)) if configured else str(workspace.root)


def default_projects_dir(workspace: Workspace) -> Path:
    return _configured_path(workspace, workspace.config.claude_code.projects_dir)


def _selected(logs: list[LogFile], options: ImportOptions, states: dict[str, FileState],
              report: ImportReport, now: datetime) -> Iterator[tuple[LogFile, os.stat_result]]:
    live_after = now.timestamp() - options.live_minutes * 60
    since = options.since.timestamp() if options.since else None
    for log in logs:
        try:
            stat = log.path.stat()
        except OSError:
            continue  # vanished since the folder was listed
        if since is not None and stat.st_mtime < since:
            report.too_old += 1
        elif stat.st_mtime >= live_after and not options.include_live:
            report.live += 1
        elif str(log.path) not in states and not belongs(log, options.project):
            report.other_project += 1
        else:
            yield log, stat


def import_logs(workspace: Workspace, options: ImportOptions, *,
                now: datetime | None = None) -> ImportReport:
    """Read what is new in the project's logs, and submit its frictions (unless a dry run)."""
    now = now or datetime.now(UTC)
    # State rows are keyed by absolute path: the same log must not look new under another spelling.
    projects_dir = Path(os.path.expanduser(options.projects_dir)).resolve()
    options = replace(options, projects_dir=projects_dir)
    if not projects_dir.is_dir():
        raise InputError(f"--projects-dir {projects_dir}: not a folder (Claude Code keeps "
                         "session logs in ~/.claude/projects; see claude_code.projects_dir)")
    settings = workspace.config.stm
    states = load_states(workspace.stm_path, settings.tenant_id, settings.busy_timeout_ms)
    logs = find_logs(options.projects_dir, options.project)
    report = ImportReport(logs=len(logs))
    frictions: list[Friction] = []
    updated: dict[str, FileState] = {}
    for log, stat in _selected(logs, options, states, report, now):
        start = resume_point(log.path, states.get(str(log.path)), stat)
        if start is None:
            report.unchanged += 1
            continue
        outcome = read_log(log, str(log.path.relative_to(options.projects_dir)), start.offset,
                           start.context, start.anchor, start.last_id)
        report.read += 1
        report.stats.add(outcome.stats)
        frictions.extend(outcome.frictions)
        updated[str(log.path)] = FileState(outcome.offset, stat.st_size, stat.st_mtime_ns,
                                           outcome.anchor, outcome.last_id, outcome.context)
    report.frictions = len(frictions)
    report.memories = build_memories(frictions, workspace.config)
    if options.dry_run:
        return report
    with STMStore.for_workspace(workspace) as store:
        result = store.submit_many(report.memories, now=now)
        if result.duplicates:
            report.recounted = merge_repeats(store, report.memories,
                                             workspace.config.stm.max_content_bytes)
    report.inserted, report.duplicates = result.inserted, result.duplicates
    # Saved after the submit: a crash in between re-reads these logs, and keys absorb the repeat.
    if updated:
        save_states(workspace.stm_path, settings.tenant_id, settings.busy_timeout_ms, updated, now)
    return report
