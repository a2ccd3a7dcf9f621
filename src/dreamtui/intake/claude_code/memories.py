"""From frictions to STM memories: one memory per distinct friction, and its repeats counted.

Each friction becomes one memory whose content quotes the evidence and names what the agent had
just done (the matching tool_use, or the last tool call and words since the person's last typed
turn). Its idempotency key is `cc:<session>:<kind>:<hash of the normalised evidence>`, so the same
friction repeated in a session is one memory with `metadata.occurrences`. A repeat read by a
later run (the session went on) raises the count of the memory while it is still pending; record
uuids keep a re-read from counting a record twice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from dreamtui.errors import InputError
from dreamtui.intake.claude_code.frictions import QUOTE_CHARS, Friction, clip, one_line
from dreamtui.intake.claude_code.rules import KIND_TYPES
from dreamtui.intake.validate import prepare
from dreamtui.model import NewMemory, frontmatter_int
from dreamtui.store.stm import STMStore
from dreamtui.workspace.config import Config

SOURCE = "claude-code"
AGENT_ID = "claude-code"
SUBAGENT_ID = "claude-code/subagent"

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
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")


def _normalise(text: str) -> str:
    """What makes two evidences 'the same friction': case, spacing and numbers do not count."""
    return _DIGITS.sub("#", _SPACES.sub(" ", text.lower())).strip()[:300]


def friction_key(friction: Friction) -> str:
    """The idempotency key of the memory a friction becomes (module docstring)."""
    parts = [getattr(friction, name) or "" for name in _SAME_FRICTION[friction.kind]]
    digest = hashlib.sha256("\0".join(map(_normalise, parts)).encode("utf-8")).hexdigest()
    scope = friction.scope if len(friction.scope) <= 120 else hashlib.sha256(
        friction.scope.encode("utf-8")).hexdigest()[:32]
    return f"cc:{scope}:{friction.kind}:{digest[:16]}"


def _memory_type(kind: str, config: Config) -> str:
    wanted = KIND_TYPES[kind]
    for candidate in (wanted, "observation"):
        if candidate in config.memory_types:
            return candidate
    raise InputError(f"memory_types: the Claude Code import stores '{wanted}' or 'observation' "
                     f"memories, and the workspace config allows neither "
                     f"(it allows {', '.join(config.memory_types)})")


def _title(first: Friction, limit: int) -> str:
    action = one_line(first.action, 70) if first.action else None
    evidence = one_line(first.evidence, limit)
    titles = {
        "rejection": f"Rejected {action or 'a tool call'}" + (
            f": {one_line(first.reason, limit)}" if first.reason else ""),
        "clarification": f"Asked to clarify before {action or 'a tool call'}",
        "interruption": f"Interrupted {action}" if action else "Interrupted the agent",
        "hook_block": f"Hook blocked {action or 'a tool call'}",
        "denial": f"Permission denied: {action or 'a tool call'}",
        "tool_error": f"{first.tool or 'A tool'} failed: {evidence}",
        "correction": f"Corrected: {evidence}",
    }
    return one_line(titles[first.kind], limit)


def _content(group: list[Friction], limit_bytes: int) -> str:
    first, last = group[0], group[-1]
    where = f" in {first.cwd}" if first.cwd else ""
    who = " (a subagent)" if first.sidechain else ""
    lines = [f"Claude Code session {first.session_id}{where}{who}, {first.timestamp or 'time unknown'}: "
             f"{KIND_STORIES[first.kind]}."]
    if first.action:
        lines.append(f"The agent had just called: {first.action}")
    if first.said:
        lines.append(f'The agent had said: "{clip(first.said, 300)}"')
    if first.reason:
        lines.append(f'The person said: "{clip(first.reason, 2 * QUOTE_CHARS)}"')
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
        groups.setdefault(friction_key(friction), []).append(friction)
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
        occurrences = frontmatter_int(stored.metadata.get("occurrences"), default=1) + len(fresh)
        last = new.metadata.get("last_timestamp")
        metadata = {**stored.metadata, "occurrences": occurrences, "record_uuids": counted + fresh,
                    "last_timestamp": last}
        revisions.append((stored.id, _recounted(stored.content, occurrences, last, limit_bytes),
                          metadata))
    return store.revise_pending(revisions) if revisions else 0
