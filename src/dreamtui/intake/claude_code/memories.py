"""From Claude Code frictions to STM memories: the shared lesson-building of
`dreamtui.intake.lessons`, with Claude Code's source name, agents and key prefix.

Idempotency keys are `cc:<session>:<kind>:<hash>` (see `lessons.friction_key`), so the same
friction repeated in a session is one memory with `metadata.occurrences`, raised by a later
import while the memory is still pending.
"""

from __future__ import annotations

from collections.abc import Iterable

from dreamtui.intake import lessons
from dreamtui.intake.lessons import Friction
from dreamtui.model import NewMemory
from dreamtui.workspace.config import Config

SOURCE = "claude-code"
AGENT_ID = "claude-code"
SUBAGENT_ID = "claude-code/subagent"
CLAUDE_CODE = lessons.Source(name=SOURCE, agent_id=AGENT_ID, subagent_id=SUBAGENT_ID,
                             key_prefix="cc", label="Claude Code")


def friction_key(friction: Friction) -> str:
    return lessons.friction_key(friction, CLAUDE_CODE.key_prefix)


def build_memories(frictions: Iterable[Friction], config: Config) -> list[NewMemory]:
    """One validated, redacted memory per distinct friction, counting its repeats."""
    return lessons.build_memories(frictions, config, CLAUDE_CODE)

