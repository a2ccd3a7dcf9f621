"""The engine interface every dream engine implements, and the events engines stream.

Engines only *propose*: they get the claimed batch and an LTM snapshot and yield events. The dream
runner (dreamtui.dream.runner) validates every proposal, applies the feedback policy, writes the
changeset and turns failures into a released batch — so no engine can skip those guarantees.
Engines are async generators because the LLM clients stream asynchronously; the heuristic engine
yields often enough that a cancellation is seen within one cluster's work.
"""

from __future__ import annotations

import importlib
import inspect
import threading
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from dreamtui.dream.known import KnownIndex, KnownMatch
from dreamtui.errors import InputError
from dreamtui.model import Memory, Proposal, Refusal
from dreamtui.store.ltm import LTMSnapshot
from dreamtui.workspace.config import Config, engine_problem


class CancelToken:
    """Set from any thread (the TUI's esc, a SIGTERM handler); checked between engine events."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass(frozen=True)
class DreamInput:
    batch: list[Memory]
    snapshot: LTMSnapshot
    config: Config
    now: datetime
    # fingerprints of proposals a human rejected before; engines must not propose them again
    rejected: frozenset[str] = frozenset()
    bundle_text: str = ""  # the current AGENTS.md, for engines that reason about it
    # The project's instruction files (dream/known.py), read by the runner before the engine:
    # `known.rules` with their citations (`known.related(text)` picks the ones a memory is
    # about). Memories that restate a rule are already discarded and not in `batch`; those that
    # contradict one are, with the rule they contradict in `contradictions` (by memory id), and
    # the runner marks every proposal resting on them.
    known: KnownIndex | None = None
    contradictions: Mapping[str, KnownMatch] = field(default_factory=dict)


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    message: str


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ProposalReady:
    proposal: Proposal


@dataclass(frozen=True)
class Refused:
    refusal: Refusal


@dataclass(frozen=True)
class Usage:
    tokens: dict[str, int]


@dataclass(frozen=True)
class Done:
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Failed:
    message: str  # one line: the cause and the setting to check


Event = Progress | TextDelta | ProposalReady | Refused | Usage | Done | Failed


@runtime_checkable
class Engine(Protocol):
    name: str

    def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncGenerator[Event, None]:
        """Yield events; end with `Done` (or raise `DreamError`, or yield `Failed`)."""
        ...


BUILTIN_ENGINES = {
    "heuristic": "dreamtui.dream.engines.heuristic:HeuristicEngine",
    "anthropic": "dreamtui.dream.engines.anthropic:AnthropicEngine",
    "ollama": "dreamtui.dream.engines.ollama:OllamaEngine",
}


def load_engine(name: str, config: Config) -> Engine:
    """An engine by built-in name or `package.module:ClassName`, checked against the interface."""
    problem = engine_problem(name)
    if problem:
        raise InputError(f"engine {problem}")
    reference = BUILTIN_ENGINES.get(name, name)
    module_name, _, class_name = reference.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"engine {name!r}: cannot import {module_name}: {exc}") from None
    found = getattr(module, class_name, None)
    if found is None or not inspect.isclass(found):
        raise InputError(f"engine {name!r}: {module_name} has no class {class_name}")
    cls: Any = found  # checked against the Engine protocol once built
    try:
        engine: Engine = cls(config)
    except TypeError as exc:
        raise InputError(f"engine {name!r}: {class_name}(config) failed: {exc} "
                         "(an engine's constructor takes the Config)") from None
    problems = _interface_problems(engine)
    if problems:
        raise InputError(f"engine {name!r} does not fit the engine interface: " + "; ".join(problems))
    return engine


def _interface_problems(engine: object) -> list[str]:
    problems = []
    if not isinstance(getattr(engine, "name", None), str):
        problems.append("needs a `name` string attribute")
    run = getattr(engine, "run", None)
    if run is None or not callable(run):
        problems.append("needs a `run(dream_input, cancel)` method")
    elif not inspect.isasyncgenfunction(run):
        problems.append("`run` must be an async generator (`async def run(...)` that yields events)")
    else:
        params = [p for p in inspect.signature(run).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(params) != 2:
            problems.append("`run` must take exactly (dream_input, cancel)")
    return problems
