"""A session's events in, frictions out: what the parser tells the rules, and the rules that
depend on order.

The parser reports four events, in log order, each with its `Origin` (where in which log) and
the `Agent` context of its thread (the main thread, or a sidechain/subagent): the agent acted
(`agent_acted`), a tool call failed (`tool_failed`), the person typed (`person_typed`), and the
log ended (`finish`). The `Detector` classifies each with `rules` and keeps the frictions.

Order matters twice. A reason-less rejection or an interrupted tool result waits for an
interrupt marker that may follow it: with the marker it is the Esc key (an interruption), and
it is settled by the thread's next agent record, next typed turn or the end of the log — so the
marker is expected in the same write as the rejection (Claude Code writes them together). And a
correction counts only in the main thread right after the agent acted: never the first turn,
never in a subagent, whose "user" is the parent agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Protocol

from dreamtui.intake.claude_code import rules

QUOTE_CHARS = 600  # how much of a tool result, typed turn or agent text a friction quotes
_SPACES = re.compile(r"\s+")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def one_line(text: str, limit: int) -> str:
    return clip(_SPACES.sub(" ", text).strip(), limit)


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


@dataclass(frozen=True)
class Origin:
    """Where an event happened: the log, session and record a friction points back to."""

    scope: str  # the session id, or `<session>/<subagent file stem>` for a subagent
    session_id: str
    record_uuid: str | None
    timestamp: str | None
    cwd: str | None
    log: str
    sidechain: bool  # a sidechain or subagent thread, not the person's own


class Agent(Protocol):
    """What the agent did in one thread since the person last typed (the parser keeps it)."""

    acted: bool
    last_tool: ToolCall | None

    def said_text(self) -> str | None:
        """The agent's last words, decoded only when asked for."""
        ...


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


def _friction(kind: str, where: Origin, agent: Agent, call: ToolCall | None, evidence: str,
              reason: str | None = None) -> Friction:
    return Friction(
        kind=kind, scope=where.scope, session_id=where.session_id, record_uuid=where.record_uuid,
        timestamp=where.timestamp, tool=call.name if call else None,
        file_path=call.file_path if call else None, action=call.describe() if call else None,
        said=agent.said_text(), evidence=clip(evidence.strip(), QUOTE_CHARS), reason=reason,
        cwd=where.cwd, sidechain=where.sidechain, log=where.log)


class Detector:
    """Classifies one log's events, in order, into frictions (module docstring)."""

    def __init__(self) -> None:
        self.frictions: list[Friction] = []
        # Per thread (keyed by `Origin.sidechain`): frictions waiting for an interrupt marker.
        self._pending: dict[bool, list[Friction]] = {False: [], True: []}

    def agent_acted(self, sidechain: bool) -> None:
        """An agent record in a thread: what waited there for an interrupt marker is settled."""
        self._settle(sidechain)

    def tool_failed(self, where: Origin, agent: Agent, call: ToolCall | None, content: str) -> None:
        """A tool_result marked `is_error`, `call` the tool_use it answers (None when unknown)."""
        text = rules.error_text(content)
        kind, reason = rules.classify_tool_error(text)
        if kind == "denial" and call is None:
            tool = rules.denied_tool(text)
            call = ToolCall(tool, None, None) if tool else None
        friction = _friction(kind, where, agent, call, text, reason)
        if kind == "interruption" or (kind == "rejection" and reason is None):
            self._pending[where.sidechain].append(friction)  # an interrupt marker may follow
        else:
            self.frictions.append(friction)

    def person_typed(self, where: Origin, agent: Agent, text: str) -> bool:
        """A user text; True when it is the person's turn, which starts the agent's context anew."""
        text = rules.clean_user_text(text)
        if not text:
            return False
        if rules.is_interruption(text):
            self._interrupted(where, agent, text)
            return False
        self._settle(where.sidechain)
        if agent.acted and not where.sidechain and rules.is_correction(text, agent.said_text):
            self.frictions.append(_friction("correction", where, agent, agent.last_tool, text))
        return True

    def _interrupted(self, where: Origin, agent: Agent, text: str) -> None:
        pending = self._pending[where.sidechain]
        if pending:
            # The Esc key at a permission prompt writes a rejection, then this marker.
            pending[:] = [replace(f, kind="interruption", evidence=text)
                          if f.kind == "rejection" else f for f in pending]
            self._settle(where.sidechain)
            return
        self.frictions.append(_friction("interruption", where, agent, agent.last_tool, text))

    def finish(self) -> list[Friction]:
        """The log ended: nothing waits any longer; every friction, in log order."""
        self._settle(False)
        self._settle(True)
        return self.frictions

    def _settle(self, sidechain: bool) -> None:
        pending = self._pending[sidechain]
        if pending:
            self.frictions.extend(pending)
            pending.clear()
