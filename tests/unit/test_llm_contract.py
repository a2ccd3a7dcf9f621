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
from dreamtui.dream.engines.llm.answer import proposal_schema
from dreamtui.dream.engines.llm.prompt import build_prompt
from dreamtui.dream.engines.ollama import OllamaEngine
from dreamtui.dream.known import KnownIndex, read_corpus
from dreamtui.entry.codec import parse_entry
from dreamtui.model import Memory, Proposal
from dreamtui.workspace.config import Config
from tests.llm_servers import (
    ALEMBIC,
    DIRTY_A,
    DIRTY_B,
    AnthropicServer,
    OllamaServer,
    alias,
    anthropic_stream,
    entry_text,
    memory,
    ollama_stream,
    sample_batch,
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
    # The heuristic's rules, said to the model too.
    system = " ".join(prompt.system.split())
    assert "a command never carries credentials, not even documentation example keys" in system
    assert "never the story of this occurrence" in system and "a fix told in the past said as the rule" in system
    assert "Tags: the memories' tags first, else the subject" in system
    assert 'A short rule ("Be concise.", "Maximum line length: 88") is a lesson' in system
    guidance = proposal_schema()["properties"]["guidance"]["description"]
    assert "the one sentence an agent should follow" in guidance and "two sentences" not in guidance


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


# --- the heuristic's rules, kept whatever the model wrote -------------------------------------

S3_SYNC = memory("k1", "Sync the built frontend to S3",
                 "Deploying the static bundle by hand:\n\n```sh\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE "
                 "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY \\\n"
                 "  aws s3 sync web/dist s3://bucket --delete\n```", type="code_snippet", tags=("deploy",))
CONCISE = memory("r1", "Reply style", "Be concise.", tags=(), minutes=10)
UNTAGGED = memory("r2", "Replies", "Summarize your changes at the end of every reply.", tags=(), minutes=12)
GREEN = memory("s1", "Status", "Test suite is green", tags=(), minutes=14)
ALEMBIC_AGAIN = memory("b2", "Seeding needs migrations", "Run alembic upgrade head before you seed the dev database.",
                       agent="agent-b", minutes=16, tags=("database",))


def with_batch(*memories: Memory) -> DreamInput:
    return sample_input(batch=[*sample_batch(), *memories])


def shown(data: DreamInput, memory_id: str) -> str:
    return alias(build_prompt(data, "tool"), memory_id)


@pytest.mark.parametrize("run", RUNNERS)
async def test_a_skill_the_model_creates_leaves_out_inline_credentials(run: Any) -> None:
    data = with_batch(S3_SYNC)
    answers = [{"op": "create", "slug": "sync-frontend-to-s3", "kind": "topic",
                "title": "Sync the built frontend to S3", "tags": ["deploy"],
                "guidance": "For deploying the static bundle by hand, use the snippet below.",
                "details": "```sh\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE "
                           "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY \\\n"
                           "  aws s3 sync web/dist s3://bucket --delete\n```",
                "evidence": [shown(data, S3_SYNC.id)], "rationale": "a recipe"}]
    events, _ = await run(data, answers)
    created = next(p for p in made(events) if p.op == "create")
    body = parse_entry(created.after or "", created.target).body
    assert created.route == "skill"
    assert "```sh\naws s3 sync web/dist s3://bucket --delete\n```" in body
    assert "EXAMPLE" not in body and "AWS_SECRET_ACCESS_KEY" not in body
    assert "left out the inline AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY values" in created.rationale


@pytest.mark.parametrize("run", RUNNERS)
async def test_an_update_adds_the_fix_not_the_story(run: Any) -> None:
    data = sample_input()
    m = ids(data)
    answers = [{"op": "update", "slug": "test-db-reset", "evidence": [m[DIRTY_A.id], m[DIRTY_B.id]],
                "rationale": "the fix that worked",
                "details": "Yesterday at 14:05 test_checkout_totals failed on CI after the rename. "
                           "Using `make db-reset --hard` made it stable."}]
    events, _ = await run(data, answers)
    update = next(p for p in made(events) if p.target == "topics/test-db-reset.md")
    body = parse_entry(update.after or "", update.target).body
    assert body.rstrip().endswith("Use `make db-reset --hard`.")
    assert "test_checkout_totals" not in body and "Yesterday" not in body


@pytest.mark.parametrize("run", RUNNERS)
async def test_a_new_entry_the_model_leaves_untagged_gets_the_heuristic_tags(run: Any) -> None:
    data = with_batch(UNTAGGED, ALEMBIC_AGAIN)
    answers = [{"op": "create", "slug": "summarize-changes", "kind": "topic", "title": "Summarize your changes",
                "guidance": "Summarize your changes at the end of every reply.",
                "evidence": [shown(data, UNTAGGED.id)], "rationale": "a standing rule"},
               {"op": "create", "slug": "migrate-then-seed", "kind": "topic", "title": "Migrate, then seed",
                "tags": ["alembic"], "guidance": "Run `alembic upgrade head` before seeding the dev database.",
                "evidence": [shown(data, ALEMBIC.id), shown(data, ALEMBIC_AGAIN.id)], "rationale": "two agents"}]
    events, _ = await run(data, answers)
    tags = {p.target: list(parse_entry(p.after or "", p.target).tags) for p in made(events) if p.op == "create"}
    assert tags == {"topics/summarize-changes.md": ["communication"],
                    "topics/migrate-then-seed.md": ["database", "alembic"]}


@pytest.mark.parametrize("run", RUNNERS)
async def test_the_value_gate_keeps_short_rules_and_drops_remarks(run: Any, tmp_path: Path) -> None:
    data = with_docs(tmp_path, with_batch(CONCISE, GREEN))
    answers = [{"op": "discard", "evidence": [shown(data, CONCISE.id)], "rationale": "too short to matter"},
               {"op": "create", "slug": "suite-green", "kind": "topic", "title": "The suite is green",
                "tags": ["testing"], "guidance": "Keep the test suite green.",
                "evidence": [shown(data, GREEN.id)], "rationale": "worth knowing"}]
    events, _ = await run(data, answers)
    reasons = refused(events)
    assert any(f"{shown(data, CONCISE.id)} states a rule ('Be concise.')" in r for r in reasons), reasons
    discards = [p for p in made(events) if p.op == "discard"]
    assert [p.target for p in discards] == [f"stm:{GREEN.id}"]
    assert discards[0].details["reason"].startswith("trivia the project's own files already show")
    assert "the model proposed it as a new entry" in discards[0].details["reason"]
    assert not [p for p in made(events) if p.op == "create"]
    # Cited as a project rule shown, a short rule may be discarded.
    cited = [{"op": "discard", "evidence": [shown(data, ALEMBIC.id)], "rationale": "CLAUDE.md:3 states it"}]
    assert [p.op for p in made((await run(data, cited))[0]) if p.target == f"stm:{ALEMBIC.id}"] == ["discard"]


@pytest.mark.parametrize("run", RUNNERS)
async def test_an_update_of_a_skill_leaves_out_inline_credentials(run: Any) -> None:
    data = with_batch(S3_SYNC)
    skill = parse_entry(entry_text("sync-frontend", "Sync the built frontend to S3",
                                   "For deploying the static bundle by hand, use the snippet below.",
                                   route="skill"), "topics/sync-frontend.md")
    data.snapshot.entries[skill.path] = skill
    answers = [{"op": "update", "slug": "sync-frontend", "evidence": [shown(data, S3_SYNC.id)],
                "rationale": "the command",
                "details": "```sh\nexport AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
                           "aws s3 sync web/dist s3://bucket --delete\n```"}]
    events, _ = await run(data, answers)
    update = next(p for p in made(events) if p.target == skill.path)
    body = parse_entry(update.after or "", update.target).body
    assert body.rstrip().endswith("```sh\naws s3 sync web/dist s3://bucket --delete\n```")
    assert "EXAMPLE" not in body and "left out the inline AWS_SECRET_ACCESS_KEY value" in update.rationale


@pytest.mark.parametrize("run", RUNNERS)
async def test_a_rule_said_twice_word_for_word_may_be_discarded_once(run: Any) -> None:
    again = memory("r3", "Reply style", "Be concise.", agent="agent-b", tags=(), minutes=11)
    data = with_batch(CONCISE, again)
    answers = [{"op": "discard", "evidence": [shown(data, again.id)], "rationale": "repeats the other one"}]
    events, _ = await run(data, answers)
    assert [p.target for p in made(events) if p.op == "discard"] == [f"stm:{again.id}"], refused(events)
