"""The shared run of an LLM dream, whichever model answers: prompt → model stream → proposals as
they complete → feedback and held drafts → Done, and the heuristic fallback when the model cannot
be reached. Each engine (anthropic.py, ollama.py) supplies only its `Backend`."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing

from dreamtui.dream.cluster import build_entry_index
from dreamtui.dream.engines.base import (
    CancelToken,
    Done,
    DreamInput,
    Event,
    Progress,
    ProposalReady,
    Refused,
    TextDelta,
    Usage,
)
from dreamtui.dream.engines.heuristic import HeuristicEngine
from dreamtui.dream.engines.llm.answer import ModelProposal, ProposalMaker
from dreamtui.dream.engines.llm.prompt import PROMPT_VERSION, AnswerStyle, Prompt, build_prompt
from dreamtui.dream.engines.llm.streaming import ModelUnreachable, StreamCancelled
from dreamtui.workspace.config import Config

BackendItem = TextDelta | Usage | ModelProposal | Refused
# A backend streams one model answer: text, usage, each proposal as it completes, and refusals of
# what it could already tell is not a proposal (an unknown tool).
Backend = Callable[[Prompt, CancelToken], AsyncGenerator[BackendItem, None]]


async def run_llm_dream(name: str, style: AnswerStyle, backend: Backend, dream_input: DreamInput,
                        cancel: CancelToken) -> AsyncGenerator[Event, None]:
    """Prompt → model stream → proposals as they complete → feedback and held drafts → Done.

    Ends without Done when cancelled (the runner reports it and releases the batch); raises
    DreamError with a one-line message when the model fails.
    """
    started = time.perf_counter()
    index = build_entry_index(dream_input.snapshot)
    prompt = build_prompt(dream_input, style, index=index)
    maker = ProposalMaker(dream_input, prompt, index)
    total = len(prompt.clusters)
    yield Progress(0, total, f"{name}: {total} clusters, {len(prompt.entries)} related entries, "
                             f"~{prompt.tokens} tokens; {len(prompt.left_out)} memories left out "
                             f"(dream.token_budget {prompt.budget})")
    if prompt.clusters:
        try:
            async with aclosing(backend(prompt, cancel)) as stream:
                async for item in stream:
                    if isinstance(item, ModelProposal):
                        for event in maker.take(item.raw):
                            yield event
                        yield Progress(maker.clusters_done(), total,
                                       f"{name}: {maker.answers} proposals from the model")
                    else:
                        yield item
        except StreamCancelled:
            return
    if cancel.cancelled:
        return
    for event in maker.finish():
        yield event
    yield Done({
        "prompt": PROMPT_VERSION,
        "prompt_tokens_estimate": prompt.tokens,
        "clusters": total,
        "related_entries": len(prompt.entries),
        "model_answers": maker.answers,
        "model_refused": maker.refused,
        "left_out": [m.id for m in prompt.left_out],
        "engine_seconds": round(time.perf_counter() - started, 3),
    })


async def with_fallback(events: AsyncGenerator[Event, None], dream_input: DreamInput, cancel: CancelToken,
                        config: Config) -> AsyncGenerator[Event, None]:
    """`events`, or — when the model is unreachable before it proposed anything and
    `dream.fallback_to_heuristic` is set — the heuristic engine's dream instead."""
    proposed = False
    try:
        async with aclosing(events) as stream:
            async for event in stream:
                proposed = proposed or isinstance(event, (ProposalReady, Refused))
                yield event
        return
    except ModelUnreachable as exc:
        if proposed or not config.dream.fallback_to_heuristic:
            raise
        reason = str(exc)
    yield Progress(0, 0, f"{reason}; falling back to the heuristic engine (dream.fallback_to_heuristic)")
    async with aclosing(HeuristicEngine(config).run(dream_input, cancel)) as fallback:
        async for event in fallback:
            if isinstance(event, Done):
                event = Done({**event.stats, "fallback": "heuristic", "fallback_reason": reason})
            yield event
