"""A Codex CLI rollout's records → the events the friction rules read, and counts of the rest.

Shapes read (Codex CLI 0.2x–0.14x): `session_meta` (session id, cwd, version), `response_item`
(`message`, `function_call`/`custom_tool_call`/`local_shell_call` and their `*_output`),
`event_msg` (`user_message`, `agent_message`, `exec_command_end`, `patch_apply_end`,
`mcp_tool_call_end`, `turn_aborted`), and the older layout (Codex CLI of mid-2025): a first line
`{"id", "timestamp", "instructions", "git"}` without a `type`, `{"record_type": "state"}` lines,
and the response items at the top level without a `payload`; its session's cwd is only in the
first `<environment_context>` message (`<cwd>…</cwd>`, or earlier `Current working directory:
…`). Records known to carry nothing for a lesson (token counts,
reasoning, world state, …) are skipped; every other shape is counted by `type/subtype` and
reported, never silently ignored.

Codex writes the person's turn twice (a `message` item and a `user_message` event) and its own
context as user-role messages (`<environment_context>`, `# AGENTS.md instructions`, …): the
first are one turn, the second are not the person's.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from dreamtui.intake import decode
from dreamtui.intake.lessons import strip_ansi

# `{"timestamp":"…","type":"X","payload":{"type":"Y"`, or the older layout's `{"type":"Y"` (an
# item at the top level) — read off the line's head so the records skipped anyway (most of a
# rollout's bytes) are never decoded.
_HEAD = re.compile(rb'^\{(?:"timestamp":"([^"]*)",)?"type":"([a-z_]+)"(?:,"payload":\{"type":"([^"]+)")?')
_STATE_LINE = b'{"record_type":"state"}'  # the older layout's, one a turn: nothing to decode
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
# A call's output that says at its start the command exited 0: `Exit code: 0` (or `Process
# exited with code 0`) at the start of one of its first lines, which hold no escape but their
# line breaks (so the raw bytes are the text); or the older `{"output": "…", "metadata":
# {"exit_code": 0, …}}` as a string, its metadata the last thing on the line. A success's text
# is never read (`_output_result`), so such a line, most of a rollout's bytes, is not decoded.
_OUTPUT_START = re.compile(rb',"call_id":"([^"\\]+)","output":"')
_EXIT_AT_START = re.compile(rb'(?:[^"\\\n]*\\n)*?(?:Exit code:|Process exited with code) (-?\d+)')
_METADATA_TAIL = re.compile(rb',\\"metadata\\":\{\\"exit_code\\":(-?\d+),\\"duration_seconds\\":'
                            rb'[\d.]+\}\}"\}\}?$')
_EXIT_WINDOW = 200  # `_output_result` reads the exit line within the text's first 200 characters

_RESPONSE_ITEMS = frozenset({"message", "function_call", "custom_tool_call", "local_shell_call",
                             "function_call_output", "custom_tool_call_output"})
_EVENTS = frozenset({"user_message", "agent_message", "exec_command_end", "patch_apply_end",
                     "mcp_tool_call_end", "turn_aborted"})
# Shapes that carry no friction: read past without counting them as unknown.
_QUIET_TYPES = frozenset({"turn_context", "world_state", "compacted",
                          "inter_agent_communication_metadata"})
_QUIET_ITEMS = frozenset({"reasoning", "ghost_snapshot", "web_search_call", "tool_search_call",
                          "tool_search_output", "image_generation_call", "agent_message",
                          "compaction", "tool_call", "tool_result"})
_QUIET_EVENTS = frozenset({
    "token_count", "task_started", "task_complete", "agent_reasoning", "agent_reasoning_delta",
    "agent_message_delta", "agent_reasoning_raw_content", "agent_reasoning_section_break",
    "exec_command_begin", "exec_command_output_delta", "patch_apply_begin", "mcp_tool_call_begin",
    "web_search_begin", "web_search_end", "thread_settings_applied", "context_compacted",
    "sub_agent_activity", "image_generation_end", "thread_goal_updated", "entered_review_mode",
    "exited_review_mode", "item_completed", "item_started", "thread_name_updated",
    "collab_agent_spawn_end", "collab_waiting_end", "collab_close_end",
    "collab_agent_interaction_end", "view_image_tool_call", "dynamic_tool_call_request",
    "dynamic_tool_call_response", "undo_completed", "undo_started", "turn_diff", "plan_update",
    "background_event", "stream_error", "warning", "error", "session_configured",
    "turn.completed", "account/rateLimits/updated", "codex/event/raw_item", "guardian_assessment",
    "exec_approval_request", "apply_patch_approval_request", "shutdown_complete",
    "list_custom_prompts_response", "mcp_list_tools_response", "get_history_entry_response",
    "user_message_delta"})

# Codex's own context, written as user-role messages: never the person's words.
_HARNESS = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
            "<permissions instructions>", "<turn_aborted>", "<codex_internal_context",
            "<external_", "<skill>", "<model_switch>", "<personality_spec>", "<user_shell_command>",
            "Another language model started to solve this problem")
_ASSISTANT = re.compile(rb'"role":"assistant"')
# A message neither the person's nor the agent's (Codex's `developer` instructions): never read.
_NO_ONES = re.compile(rb'"type":"message",(?:"id":(?:null|"[^"\\]*"),)?"role":"(?:developer|system)"')
_USER = re.compile(rb'"type":"message",(?:"id":(?:null|"[^"\\]*"),)?"role":"user"')
_CALL_ID = re.compile(rb'"call_id":"([^"]+)"')
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
_EXIT_LINE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)", re.MULTILINE)
# Codex CLI of mid-2025 wrapped every non-zero exit under its sandbox as a denial, whatever the
# command's own error (a compile error too): what ran is its exit code and output.
_SANDBOX_WRAPPED = re.compile(r"failed in sandbox \S+ with execution error: sandbox denied exec "
                              r"error, exit code: (-?\d+), stdout: (.*?), stderr: (.*)", re.DOTALL)
_ENV_CWD = re.compile(r"<cwd>([^<\n]+)</cwd>|^Current working directory: (.+)$", re.MULTILINE)
_HEAD_LINES = 16  # the older layout's environment_context comes within its first few records
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})


@dataclass(frozen=True)
class Meta:
    session_id: str
    cwd: str | None
    version: str | None


@dataclass(frozen=True)
class UserTurn:
    text: str
    timestamp: str | None
    line: int = 0  # its line in the rollout

    @property
    def event(self) -> str:
        """The turn as a record of its session: its time, else (the older layout writes none)
        its line, which appending to the rollout never moves."""
        return f"@{self.timestamp}" if self.timestamp else f"#L{self.line}"


@dataclass(frozen=True)
class AgentText:
    text: str


@dataclass(frozen=True)
class Call:
    call_id: str
    tool: str
    action: str  # what a memory names: the command line, "apply_patch a.py", the tool
    polls: str | None = None  # `write_stdin`: the session of the running command it reads or writes


@dataclass(frozen=True)
class Result:
    call_id: str
    ok: bool
    text: str
    timestamp: str | None
    declined: bool = False  # Codex's own verdict that the call never ran (`status: declined`)
    exit_code: int | None = None
    # A success's first lines (`success_head`): all the detector reads of it, for notices the
    # shell prints before every call's output.
    head: str = ""


@dataclass(frozen=True)
class Aborted:
    reason: str
    timestamp: str | None


Event = Meta | UserTurn | AgentText | Call | Result | Aborted


@dataclass
class ReadStats:
    bytes_read: int = 0
    lines_read: int = 0
    malformed: int = 0
    first_malformed: int = 0  # the first malformed line's number (rollouts are read whole)
    unknown: Counter[str] = field(default_factory=Counter)

    def add(self, other: ReadStats) -> None:
        self.bytes_read += other.bytes_read
        self.lines_read += other.lines_read
        self.malformed += other.malformed
        self.unknown.update(other.unknown)

    def skip_malformed(self) -> None:
        """Count the line just read (number `lines_read`) as malformed."""
        self.malformed += 1
        self.first_malformed = self.first_malformed or self.lines_read


def _text(value: Any) -> str:
    """The text of an output or content field: a string, `{text|content|output}`, or a list."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("text", "content", "output"):
            if key in value:
                return _text(value[key])
        return ""
    if isinstance(value, list):
        return "\n".join(t for t in map(_text, value) if t)
    return ""


def _command(value: Any) -> str:
    """`["bash", "-lc", "pnpm test"]` → `pnpm test`; a string stays as it is."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-lc", "-c"):
            return str(value[2])
        return " ".join(value)
    return value if isinstance(value, str) else ""


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = decode.loads(raw)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _call(item: dict[str, Any]) -> Call | None:
    call_id = item.get("call_id") or item.get("id")
    if not isinstance(call_id, str):
        return None
    name = str(item.get("name") or "shell")
    if item.get("type") == "local_shell_call":
        action = _text(item.get("action")) or _command((item.get("action") or {}).get("command"))
        return Call(call_id, "shell", strip_ansi(action) or "shell")
    raw = item.get("input") if item.get("type") == "custom_tool_call" else item.get("arguments")
    if name == "apply_patch":
        files = _PATCH_FILE.findall(raw if isinstance(raw, str) else _text(_arguments(raw)))
        return Call(call_id, name, "apply_patch " + ", ".join(files) if files else "apply_patch")
    args = _arguments(raw)
    if name == "write_stdin":
        session = args.get("session_id")
        return Call(call_id, name, name, polls=str(session) if isinstance(session, (int, str)) else None)
    command = _command(args.get("command") or args.get("cmd"))
    if command:
        return Call(call_id, "shell", strip_ansi(command))
    return Call(call_id, name, name)


def _output_result(item: dict[str, Any], timestamp: str | None) -> Result | None:
    call_id = item.get("call_id")
    if not isinstance(call_id, str):
        return None
    output = item.get("output")
    text = _text(output)
    exit_code: int | None = None
    parsed: dict[str, Any] | None = None
    if isinstance(output, str) and output.startswith("{"):
        parsed = _arguments(output)  # older Codex: {"output": "...", "metadata": {"exit_code": 1}}
        if parsed:
            text = _text(parsed.get("output", text))
            meta = parsed.get("metadata")
            if isinstance(meta, dict) and isinstance(meta.get("exit_code"), int):
                exit_code = meta["exit_code"]
    wrapped = _SANDBOX_WRAPPED.match(text)
    if wrapped is not None:
        exit_code = int(wrapped.group(1))
        text = "\n".join(part for part in (wrapped.group(3), wrapped.group(2)) if part.strip())
    if exit_code is None:
        framed = _EXIT_LINE.search(text[:200])
        exit_code = int(framed.group(1)) if framed else None
    success = output.get("success") if isinstance(output, dict) else None
    ok = exit_code == 0 if exit_code is not None else success is not False and not _patch_failed(text)
    # A success's output is never quoted: not cleaning it keeps big outputs cheap.
    return Result(call_id, ok, "" if ok else strip_ansi(text), timestamp, exit_code=exit_code,
                  head=success_head(text) if ok and not parsed and isinstance(output, str) else "")


_HEAD_CHARS = 300


def success_head(text: str) -> str:
    """The whole lines within the first 300 characters of a success's output, cleaned."""
    cut = text.rfind("\n", 0, _HEAD_CHARS)
    return strip_ansi(text[:cut]) if cut > 0 else ""


def _raw_head(line: bytes, start: int) -> str:
    """`success_head` of the JSON string starting at `start` of a raw line, decoded from
    its first bytes only: the same lines for UTF-8 as Codex writes it; text written as \\uXXXX
    escapes may read fewer (a notice is then not seen, and nothing else changes)."""
    chunk = line[start:start + 3 * _HEAD_CHARS]  # 300 characters of UTF-8, as Codex writes it
    cut = chunk.rfind(b"\\n")
    while cut > 0 and (cut - len(chunk[:cut].rstrip(b"\\"))) % 2:
        cut = chunk.rfind(b"\\n", 0, cut)  # an escaped backslash and a letter n, no line break
    if cut <= 0:
        return ""
    piece = chunk[:cut]
    try:
        if piece.count(b"\\") == piece.count(b"\\n"):  # line breaks the only escapes
            text = piece.replace(b"\\n", b"\n").decode()
        else:  # the stdlib on a few hundred bytes: not the record's decode, which a success skips
            text = json.loads(b'"' + piece + b'"')
    except ValueError:  # UnicodeDecodeError is one
        return ""
    return success_head(f"{text}\n") if isinstance(text, str) else ""


def _plain_success(line: bytes, start: int) -> tuple[str, str] | None:
    """(the call id, the first lines) of an output item whose raw line shows a plain success
    (`_OUTPUT_START`), as `_output_result` would read them decoded; None when the line must be
    decoded to tell."""
    found = _OUTPUT_START.match(line, start)
    if found is None:
        return None
    text = found.end()
    if line.startswith(b"failed in sandbox", text):  # its exit code is in the sandbox's words
        return None
    if line.startswith(b'{\\"output\\":\\"', text):
        if line.startswith(b"failed in sandbox", text + 14):
            return None
        tail = _METADATA_TAIL.search(line, len(line) - 120)
        # The older shape's text is never read for its first lines, decoded or not.
        return (found.group(1).decode(), "") if tail is not None and int(tail.group(1)) == 0 else None
    if line.startswith(b"{", text) or not line[-64:].rstrip().endswith((b'"}', b'"}}')):
        return None  # an object as a string, or the text is not the record's last field
    exit_line = _EXIT_AT_START.match(line, text)
    if exit_line is None or exit_line.end() - text > _EXIT_WINDOW or int(exit_line.group(1)) != 0:
        return None
    return found.group(1).decode(), _raw_head(line, text)


def _patch_failed(text: str) -> bool:
    head = text[:300].lower()
    return ("verification failed" in head or head.startswith(("error", "failed", "invalid patch"))
            or "rejected" in head)


def _event_result(kind: str, event: dict[str, Any], timestamp: str | None) -> Result | None:
    call_id = event.get("call_id")
    if not isinstance(call_id, str):
        return None
    if kind == "exec_command_end":
        code = event.get("exit_code")
        text = _text(event.get("stderr")) or _text(event.get("aggregated_output")) \
            or _text(event.get("formatted_output"))
        declined = event.get("status") == "declined"
        ok = code == 0 and not declined
        return Result(call_id, ok, "" if ok else strip_ansi(text), timestamp, declined,
                      code if isinstance(code, int) else None,
                      head=success_head(_text(event.get("aggregated_output")) or text) if ok else "")
    if kind == "patch_apply_end":
        declined = event.get("status") == "declined"
        ok = event.get("success") is not False and not declined
        text = "" if ok else _text(event.get("stderr")) or _text(event.get("stdout"))
        return Result(call_id, ok, strip_ansi(text), timestamp, declined)
    result = event.get("result")  # mcp_tool_call_end: {"Ok": {...}} or {"Err": "..."}
    if isinstance(result, dict) and "Err" in result:
        return Result(call_id, False, strip_ansi(_text(result["Err"])), timestamp)
    ok_part = result.get("Ok") if isinstance(result, dict) else None
    failed = isinstance(ok_part, dict) and ok_part.get("isError") is True
    return Result(call_id, not failed, strip_ansi(_text(ok_part)) if failed else "", timestamp)


def environment_cwd(text: str) -> str | None:
    """The cwd an `<environment_context>` message names, else None."""
    if not text.lstrip().startswith("<environment_context>"):
        return None
    found = _ENV_CWD.search(text)
    return (found.group(1) or found.group(2)).strip() if found else None


def _older_header(record: dict[str, Any]) -> bool:
    """The older layout's first line: the session's id and time, no `type`."""
    return record.get("type") is None and "payload" not in record \
        and isinstance(record.get("id"), str) and "timestamp" in record


def head_cwd(lines: Iterator[bytes]) -> str | None:
    """The session's cwd from a rollout's first lines: its `session_meta`, or, in the older
    layout, the first `<environment_context>` message among the next few records."""
    records = []
    for line in lines:
        try:
            record = decode.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict):
            return None
        records.append(record)
        if len(records) == 1:
            payload = record.get("payload")
            cwd = (payload if isinstance(payload, dict) else record).get("cwd")
            if isinstance(cwd, str) or not _older_header(record):
                return cwd if isinstance(cwd, str) else None
        elif record.get("type") == "message" and record.get("role") == "user":
            cwd = environment_cwd(_text(record.get("content")))
            if cwd is not None:
                return cwd
        if len(records) > _HEAD_LINES:
            return None
    return None


def is_person(text: str) -> bool:
    return bool(text.strip()) and not text.lstrip().startswith(_HARNESS)


class RolloutReader:
    """One rollout's records in order → events (module docstring); counts in `stats`."""

    def __init__(self) -> None:
        self.stats = ReadStats()
        self._last_user: str | None = None
        self._typed_events = False  # the rollout writes `user_message` events: items are echoes
        self._agent_events = False  # … and `agent_message` events
        self._settled: set[str] = set()  # calls an `*_end` event reported
        self._meta_seen: Meta | None = None  # the session's, its cwd filled in once known

    def events(self, lines: Iterator[bytes]) -> Iterator[Event]:
        for line in lines:
            self.stats.lines_read += 1
            self.stats.bytes_read += len(line)
            # Without copying the line (`strip` would): many are megabytes.
            if not line or line.isspace() or (len(line) < 32 and line.rstrip() == _STATE_LINE):
                continue
            head = _HEAD.match(line)
            if head is not None:
                kind, sub = head.group(2).decode(), (head.group(3) or b"").decode()
                if head.group(1) is None and not sub and b'"payload":' not in line:
                    kind, sub = "response_item", kind  # the older layout's item at the top level
                if not self._wanted(kind, sub, line):
                    continue
                if sub in _OUTPUTS and kind == "response_item":
                    success = _plain_success(line, head.end())
                    if success is not None:
                        stamp = head.group(1)
                        yield Result(success[0], True, "", stamp.decode() if stamp else None,
                                     exit_code=0, head=success[1])
                        continue
            try:
                record = decode.loads(line)
            except ValueError:
                self.stats.skip_malformed()
                continue
            if isinstance(record, dict):
                yield from self._record(record)
            else:
                self.stats.skip_malformed()

    def _wanted(self, kind: str, sub: str, line: bytes) -> bool:
        """From the head alone: is this record worth decoding? Quiet shapes are not, nor the
        second copy Codex writes of what was already read: the assistant's `message` item once
        its `agent_message` events are there, a call's output item once its `*_end` event
        settled it (outputs are most of a rollout's bytes)."""
        if kind in _QUIET_TYPES:
            return False
        if kind == "response_item":
            if sub in _QUIET_ITEMS:
                return False
            if sub == "message" and (
                    _NO_ONES.search(line, 0, 300)
                    or (self._agent_events and _ASSISTANT.search(line, 0, 300))
                    or (self._typed_events and _USER.search(line, 0, 300))):
                return False  # read from the events, or no one's words
            if sub in ("function_call_output", "custom_tool_call_output"):
                call = _CALL_ID.search(line, 0, 400)
                return call is None or call.group(1).decode() not in self._settled
            return True
        return not (kind == "event_msg" and sub in _QUIET_EVENTS)

    def _record(self, record: dict[str, Any]) -> Iterator[Event]:
        kind = record.get("type")
        timestamp = record.get("timestamp") or record.get("created_at")
        ts = timestamp if isinstance(timestamp, str) else None
        payload = record.get("payload")
        if kind == "session_meta" and isinstance(payload, dict):
            yield self._meta(payload)
        elif kind == "response_item" and isinstance(payload, dict):
            yield from self._item(payload, ts)
        elif kind == "event_msg" and isinstance(payload, dict):
            yield from self._event(payload, ts)
        elif payload is None and kind in _RESPONSE_ITEMS:
            yield from self._item(record, ts)  # the oldest layout: items at the top level
        elif payload is None and kind is None and "record_type" in record:
            return  # the older layout's state lines
        elif _older_header(record):
            yield self._meta(record)
        elif kind in _QUIET_TYPES or (payload is None and kind in _QUIET_ITEMS) or (
                kind == "response_item" and isinstance(payload, dict)
                and payload.get("type") in _QUIET_ITEMS):
            return
        else:
            sub = payload.get("type") if isinstance(payload, dict) else None
            self.stats.unknown[f"{kind}/{sub}" if sub else str(kind)] += 1

    def _meta(self, payload: dict[str, Any]) -> Meta:
        cwd, version = payload.get("cwd"), payload.get("cli_version")
        self._meta_seen = Meta(str(payload.get("id") or payload.get("session_id") or "unknown"),
                               cwd if isinstance(cwd, str) else None,
                               version if isinstance(version, str) else None)
        return self._meta_seen

    def _item(self, item: dict[str, Any], ts: str | None) -> Iterator[Event]:
        kind = item.get("type")
        if kind == "message":
            text = _text(item.get("content"))
            if item.get("role") == "assistant" and text:
                yield AgentText(text)
            elif item.get("role") == "user" and not self._typed_events:
                meta = self._meta_seen
                if meta is not None and meta.cwd is None:  # the older layout's cwd
                    cwd = environment_cwd(text)
                    if cwd is not None:
                        self._meta_seen = replace(meta, cwd=cwd)
                        yield self._meta_seen
                yield from self._user(text, ts)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            call = _call(item)
            if call is not None:
                yield call
        elif kind in ("function_call_output", "custom_tool_call_output"):
            result = _output_result(item, ts)
            if result is not None:
                yield result
        elif kind not in _QUIET_ITEMS:
            self.stats.unknown[f"response_item/{kind}"] += 1

    def _event(self, event: dict[str, Any], ts: str | None) -> Iterator[Event]:
        kind = event.get("type")
        if kind == "user_message":
            text = _text(event.get("message"))
            if strip_ansi(text).strip() == self._last_user and not self._typed_events:
                self._typed_events = True  # the item came first: this event is its echo
                return
            self._typed_events = True
            yield from self._user(text, ts)
        elif kind == "agent_message":
            self._agent_events = True
            text = _text(event.get("message"))
            if text:
                yield AgentText(text)
        elif kind == "turn_aborted":
            yield Aborted(str(event.get("reason") or "interrupted"), ts)
        elif isinstance(kind, str) and kind in _EVENTS:
            result = _event_result(kind, event, ts)
            if result is not None:
                self._settled.add(result.call_id)
                yield result
        elif kind not in _QUIET_EVENTS:
            self.stats.unknown[f"event_msg/{kind}"] += 1

    def _user(self, text: str, ts: str | None) -> Iterator[Event]:
        text = strip_ansi(text).strip()
        if is_person(text):
            self._last_user = text
            yield UserTurn(text, ts, self.stats.lines_read)
