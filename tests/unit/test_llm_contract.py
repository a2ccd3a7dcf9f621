"""The LLM engines keep the heuristic engine's content contract (issue 11): one guidance sentence,
update-not-create, no pasted phrasings, citations only of project rules shown — stated in the
prompt and enforced on the answer, driven end to end through the real clients against the
loopback Anthropic and Ollama servers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from dreamtui.dream.engines.anthropic import AnthropicEngine
from dreamtui.dream.engines.base import CancelToken, DreamInput, Event, ProposalReady, Refused
from dreamtui.dream.engines.llm import streaming
from dreamtui.dream.engines.llm.prompt import build_prompt
from dreamtui.dream.engines.ollama import OllamaEngine
from dreamtui.dream.known import KnownIndex, read_corpus
from dreamtui.entry.codec import parse_entry
from dreamtui.model import Proposal
from dreamtui.workspace.config import Config
from tests.llm_servers import (
    ALEMBIC,
    DIRTY_A,
    DIRTY_B,
    AnthropicServer,
    OllamaServer,
    alias,
    anthropic_stream,
    ollama_stream,
    sample_input,
)


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.setattr(streaming, "BACKOFF_BASE_S", 0.01)


def anthropic_config(url: str) -> Config:
    return Config.model_validate({"dream": {"anthropic": {"base_url": url, "max_retries": 0, "timeout_s": 5,
                                                          "model": "claude-test"}}})


def ollama_config(url: str) -> Config:
    return Config.model_validate({"dream": {"ollama": {"host": url, "max_retries": 0, "timeout_s": 5,
                                                       "model": "qwen2.5:7b"}}})


def with_docs(tmp_path: Path, data: DreamInput) -> DreamInput:
    """The sample dream with a project whose CLAUDE.md states two rules."""
    (tmp_path / "CLAUDE.md").write_text("# Project\n\n- Apply alembic migrations before seeding: run "
                                        "`alembic upgrade head` before seeding the dev database.\n"
                                        "- Format Python with `ruff format`.\n", encoding="utf-8")
    corpus = read_corpus(tmp_path)
    return replace(data, known=KnownIndex.build(corpus, data.batch))


async def run_anthropic(data: DreamInput, answers: list[dict[str, Any]]) -> tuple[list[Event], Any]:
    with AnthropicServer([anthropic_stream(text="", tool_inputs=answers)]) as server:
        engine = AnthropicEngine(anthropic_config(server.url))
        events = [e async for e in engine.run(replace(data, config=anthropic_config(server.url)),
                                              CancelToken())]
    return events, server


async def run_ollama(data: DreamInput, answers: list[dict[str, Any]]) -> tuple[list[Event], Any]:
    with OllamaServer([ollama_stream(json.dumps({"proposals": answers}))]) as server:
        engine = OllamaEngine(ollama_config(server.url))
        events = [e async for e in engine.run(replace(data, config=ollama_config(server.url)),
                                              CancelToken())]
    return events, server


def made(events: list[Event]) -> list[Proposal]:
    return [e.proposal for e in events if isinstance(e, ProposalReady)]


def refused(events: list[Event]) -> list[str]:
    return [e.refusal.reason for e in events if isinstance(e, Refused)]


def ids(data: DreamInput) -> dict[str, str]:
    prompt = build_prompt(data, "tool")
    return {m.id: alias(prompt, m.id) for m in (DIRTY_A, DIRTY_B, ALEMBIC)}


RUNNERS = [run_anthropic, run_ollama]


def test_the_prompt_states_the_contract_and_lists_the_project_rules(tmp_path: Path) -> None:
    data = with_docs(tmp_path, sample_input())
    prompt = build_prompt(data, "tool")
    assert "Guidance is exactly one sentence" in prompt.system
    assert "is never a create" in prompt.system and "Never paste" in prompt.system
    assert "# Project rules" in prompt.user and "CLAUDE.md:3: Apply alembic migrations" in prompt.user
    assert prompt.citations == {"CLAUDE.md:3"}


@pytest.mark.parametrize("run", RUNNERS)
async def test_a_guidance_of_several_sentences_keeps_one(run: Any) -> None:
    data = sample_input()
    m = ids(data)
    answers = [{"op": "create", "slug": "alembic-before-seed", "kind": "topic", "title": "Migrate before seeding",
                "tags": ["database"], "evidence": [m[ALEMBIC.id]], "rationale": "new lesson",
                "guidance": "Seeding failed on the dev database. Run `alembic upgrade head` before seeding. "
                            "It took a while to find."}]
    events, _ = await run(data, answers)
    created = next(p for p in made(events) if p.op == "create")
    entry = parse_entry(created.after or "", created.target)
    assert entry.guidance == "Run `alembic upgrade head` before seeding."
    assert "Seeding failed on the dev database." in entry.body and created.route == "memory"
    assert entry.route == "memory" and entry.meta["seen_in"]


@pytest.mark.parametrize("run", RUNNERS)
async def test_a_create_restating_a_live_entry_becomes_its_update(run: Any) -> None:
    data = sample_input()
    m = ids(data)
    answers = [{"op": "create", "slug": "reset-before-integration-tests", "kind": "topic",
                "title": "Reset the test database before integration tests", "tags": ["testing"],
                "guidance": "Run `make db-reset` before `pytest tests/integration`; the suite assumes an empty schema.",
                "details": "Without it the suite fails with IntegrityError.",
                "evidence": [m[DIRTY_A.id], m[DIRTY_B.id]], "rationale": "the agents keep hitting it"}]
    events, _ = await run(data, answers)
    ops = [(p.op, p.target) for p in made(events)]
    assert not [op for op in ops if op[0] == "create"], ops
    update = next(p for p in made(events) if p.target == "topics/test-db-reset.md")
    assert update.op == "update" and "restates test-db-reset" in update.rationale
    entry = parse_entry(update.after or "", update.target)
    assert entry.body.count("make db-reset") == 1  # the restated guidance was not pasted again
    assert "IntegrityError" in entry.body


@pytest.mark.parametrize("run", RUNNERS)
async def test_an_update_adds_only_new_facts(run: Any) -> None:
    data = sample_input()
    m = ids(data)
    answers = [{"op": "update", "slug": "test-db-reset", "evidence": [m[DIRTY_A.id], m[DIRTY_B.id]],
                "rationale": "one new fact",
                "details": "Run make db-reset before the integration tests because they assume an empty schema. "
                           "The reset takes 40 seconds on CI."}]
    events, _ = await run(data, answers)
    update = next(p for p in made(events) if p.target == "topics/test-db-reset.md")
    body = parse_entry(update.after or "", update.target).body
    assert body.rstrip().endswith("The reset takes 40 seconds on CI.")
    assert "because they assume an empty schema" not in body


@pytest.mark.parametrize("run", RUNNERS)
async def test_only_project_rules_shown_may_be_cited(run: Any, tmp_path: Path) -> None:
    data = with_docs(tmp_path, sample_input())
    m = ids(data)
    answers = [{"op": "discard", "evidence": [m[ALEMBIC.id]],
                "rationale": "CLAUDE.md:3 already says to migrate before seeding"},
               {"op": "discard", "evidence": [m[DIRTY_A.id], m[DIRTY_B.id]],
                "rationale": "CLAUDE.md:40 covers this"}]
    events, _ = await run(data, answers)
    discards = [p for p in made(events) if p.op == "discard"]
    assert [p.target for p in discards] == [f"stm:{ALEMBIC.id}"]
    assert discards[0].details["reason"].startswith("CLAUDE.md:3")
    assert any("cites CLAUDE.md:40, which is no project rule shown" in r for r in refused(events))
