"""The ollama engine against a loopback server speaking Ollama's `/api/chat` NDJSON stream, driven
through the real `ollama` client: the happy path, every failure, retries, cancellation, refusals,
the fallback, and the whole dream runner."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

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
from dreamtui.dream.engines.llm import streaming
from dreamtui.dream.engines.llm.answer import answer_schema
from dreamtui.dream.engines.llm.prompt import build_prompt
from dreamtui.dream.engines.llm.streaming import ModelUnreachable
from dreamtui.dream.engines.ollama import OllamaEngine
from dreamtui.errors import DreamError
from dreamtui.workspace.config import Config
from tests.llm_servers import (
    CONFIRM,
    Chunks,
    OllamaServer,
    Stall,
    alias,
    answer,
    free_port_url,
    ollama_error,
    ollama_lines,
    ollama_stream,
    sample_input,
    workspace_answer,
    workspace_for,
)

MODEL = "qwen-test"


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "BACKOFF_BASE_S", 0.01)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


def config_for(host: str | None, **settings: Any) -> Config:
    dream: dict[str, Any] = {"ollama": {"host": host, "max_retries": 0, "timeout_s": 5, "model": MODEL,
                                        **settings}}
    if "fallback_to_heuristic" in settings:
        dream["fallback_to_heuristic"] = dream["ollama"].pop("fallback_to_heuristic")
    return Config.model_validate({"dream": dream})


def good_json(config: Config | None = None) -> str:
    prompt = build_prompt(sample_input(config or config_for(None)), "json")
    return json.dumps({"proposals": answer(prompt)}, indent=1)


async def collect(config: Config, data: DreamInput | None = None,
                  cancel: CancelToken | None = None) -> list[Event]:
    engine = OllamaEngine(config)
    return [e async for e in engine.run(data or sample_input(config), cancel or CancelToken())]


def proposals(events: list[Event]) -> list[tuple[str, str]]:
    return [(e.proposal.op, e.proposal.target) for e in events if isinstance(e, ProposalReady)]


# --- the happy path ----------------------------------------------------------------------------


async def test_streams_text_and_proposals_then_usage() -> None:
    content = good_json()
    with OllamaServer([ollama_stream(content, prompt_eval_count=812, eval_count=190)]) as server:
        events = await collect(config_for(server.url))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == content
    assert proposals(events) == [("update", "topics/test-db-reset.md"),
                                 ("create", "topics/alembic-before-seed.md"),
                                 ("discard", "stm:d1"),
                                 ("reinforce", "topics/node-version.md")]
    assert [e.tokens for e in events if isinstance(e, Usage)] == [{"input_tokens": 812, "output_tokens": 190}]
    assert isinstance(events[-1], Done)


async def test_request_sets_the_json_schema_format_and_context() -> None:
    with OllamaServer([ollama_stream(good_json())]) as server:
        await collect(config_for(server.url))
    request = server.requests[0]
    assert request.path == "/api/chat"
    body = request.body
    assert body["model"] == MODEL and body["stream"] is True
    assert body["format"] == answer_schema()
    assert body["options"]["temperature"] == 0 and body["options"]["num_ctx"] >= 8192
    system, user = body["messages"]
    assert system["role"] == "system" and "untrusted data" in system["content"]
    assert user["role"] == "user" and "<untrusted-data-" in user["content"]
    assert CONFIRM.content not in user["content"]


async def test_each_proposal_is_emitted_as_soon_as_it_parses() -> None:
    with OllamaServer([ollama_stream(good_json(), delay=0.01)]) as server:
        engine = OllamaEngine(config_for(server.url))
        async for event in engine.run(sample_input(engine.config), CancelToken()):
            if isinstance(event, ProposalReady):
                assert not server.finished_stream.is_set()
                break


async def test_host_from_the_clients_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    with OllamaServer([ollama_stream(good_json())]) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        events = await collect(config_for(None))
    assert len(server.requests) == 1 and isinstance(events[-1], Done)


# --- what the policy must refuse ---------------------------------------------------------------


async def test_bad_proposals_are_refused_visibly() -> None:
    prompt = build_prompt(sample_input(config_for(None)), "json")
    a1 = alias(prompt, "a1")
    content = json.dumps({"proposals": [
        {"op": "rename", "slug": "test-db-reset", "evidence": [a1], "rationale": "x"},
        {"op": "weaken", "slug": "ci_ports", "evidence": [a1], "rationale": "x"},
        "create everything",
        {"op": "reinforce", "slug": "node-version", "rationale": "no evidence"},
    ]})
    with OllamaServer([ollama_stream(content)]) as server:
        events = await collect(config_for(server.url))
    reasons = [e.refusal.reason for e in events if isinstance(e, Refused)]
    assert len(reasons) == 4
    assert "unknown op 'rename'" in reasons[0] and "bad slug" in reasons[1]
    assert "no evidence" in reasons[2] and "expected a JSON object, got str" in reasons[3]
    assert isinstance(events[-1], Done)


# --- failures ----------------------------------------------------------------------------------


async def test_model_not_found_suggests_ollama_pull() -> None:
    with OllamaServer([ollama_error(404, f'model "{MODEL}" not found, try pulling it first')]) as server:
        with pytest.raises(DreamError) as raised:
            await collect(config_for(server.url))
    assert str(raised.value) == (f"ollama: model '{MODEL}' not found on {server.url} — run "
                                 f"`ollama pull {MODEL}` or check dream.ollama.model")


async def test_other_server_errors_name_the_settings() -> None:
    with OllamaServer([ollama_error(500, "llama runner process has terminated")]) as server:
        with pytest.raises(DreamError, match=r"ollama: llama runner process has terminated \(500\) — "
                                             r"check dream\.ollama\.model and dream\.ollama\.host"):
            await collect(config_for(server.url))


@pytest.mark.slow
async def test_busy_server_is_retried_honouring_retry_after() -> None:
    script = [ollama_error(503, "server busy, please try again", {"retry-after": "1"}),
              ollama_error(429, "too many requests", {"retry-after": "0"}),
              ollama_stream(good_json())]
    with OllamaServer(script) as server:
        started = time.monotonic()
        events = await collect(config_for(server.url, max_retries=2))
        waited = time.monotonic() - started
    assert len(server.requests) == 3 and isinstance(events[-1], Done)
    assert waited >= 0.9


async def test_retries_are_bounded() -> None:
    busy = ollama_error(503, "server busy, please try again", {"retry-after": "0"})
    with OllamaServer([busy] * 5) as server:
        with pytest.raises(ModelUnreachable, match=r"is busy \(503\) after 2 retries — dream again later "
                                                   r"\(dream\.ollama\.max_retries\)"):
            await collect(config_for(server.url, max_retries=2))
    assert len(server.requests) == 3


async def test_connection_refused_names_the_host_and_settings() -> None:
    url = free_port_url()
    with pytest.raises(ModelUnreachable) as raised:
        await collect(config_for(url, max_retries=1))
    assert str(raised.value) == (f"ollama: cannot connect to {url} after 1 retries — is `ollama serve` "
                                 "running? check dream.ollama.host (or OLLAMA_HOST)")


async def test_timeout_names_the_setting() -> None:
    with OllamaServer([Stall(10)]) as server:
        with pytest.raises(ModelUnreachable,
                           match=r"no answer from .* within 0\.3 s — check dream\.ollama\.timeout_s"):
            await collect(config_for(server.url, timeout_s=0.3))


async def test_malformed_json_fails_the_dream() -> None:
    content = '{"proposals": [{"op": "create", "slug": alembic}]}'
    with OllamaServer([ollama_stream(content)]) as server:
        with pytest.raises(DreamError, match=r"ollama: the model's answer is not valid JSON .* — dream "
                                             r"again, or try another dream\.ollama\.model than 'qwen-test'"):
            await collect(config_for(server.url))


@pytest.mark.parametrize("done_reason", ["length", "stop"])
async def test_truncated_json_fails_the_dream(done_reason: str) -> None:
    content = good_json()[:-40]
    with OllamaServer([ollama_stream(content, done_reason=done_reason)]) as server:
        with pytest.raises(DreamError, match="cut off before its JSON closed .* lower dream.token_budget"):
            await collect(config_for(server.url))


async def test_an_answer_without_the_proposals_array_is_malformed() -> None:
    with OllamaServer([ollama_stream('{"changes": []}')]) as server:
        with pytest.raises(DreamError, match='no "proposals" array'):
            await collect(config_for(server.url))


async def test_a_dropped_stream_fails_the_dream() -> None:
    with OllamaServer([ollama_stream(good_json(), stop_after=3)]) as server:
        with pytest.raises(DreamError, match="broke off mid-answer|ended before done"):
            await collect(config_for(server.url))


async def test_an_error_line_mid_stream() -> None:
    error = b'{"error":"an error was encountered while running the model"}\n'
    lines = ollama_lines(good_json())[:3] + [error]
    with OllamaServer([Chunks("application/x-ndjson", lines)]) as server:
        with pytest.raises(DreamError,
                           match="ollama: an error was encountered while running the model — check"):
            await collect(config_for(server.url))


async def test_a_server_that_is_not_ollama() -> None:
    with OllamaServer([Chunks("text/html", [b"<html>hello</html>\n"])]) as server:
        with pytest.raises(DreamError, match="did not answer in Ollama's NDJSON .* check dream.ollama.host"):
            await collect(config_for(server.url))


# --- cancellation ------------------------------------------------------------------------------


async def test_cancel_mid_stream_stops_promptly_and_closes_the_stream() -> None:
    cancel = CancelToken()
    seen: list[Event] = []
    with OllamaServer([ollama_stream(good_json(), delay=0.3, split=4)]) as server:
        engine = OllamaEngine(config_for(server.url))
        started = time.monotonic()
        async for event in engine.run(sample_input(engine.config), cancel):
            seen.append(event)
            if isinstance(event, TextDelta):
                cancel.cancel()
                started = time.monotonic()
        stopped = time.monotonic() - started
        assert await asyncio.to_thread(server.disconnected.wait, 5)
    assert stopped < 0.3
    assert not any(isinstance(e, (Done, ProposalReady)) for e in seen)


async def test_cancel_during_a_retry_wait() -> None:
    cancel = CancelToken()
    script = [ollama_error(503, "busy", {"retry-after": "30"})]
    with OllamaServer(script) as server:
        engine = OllamaEngine(config_for(server.url, max_retries=1))
        asyncio.get_running_loop().call_later(0.3, cancel.cancel)
        started = time.monotonic()
        events = [e async for e in engine.run(sample_input(engine.config), cancel)]
    assert time.monotonic() - started < 5
    assert not any(isinstance(e, Done) for e in events)


# --- the fallback ------------------------------------------------------------------------------


async def test_unreachable_server_falls_back_to_heuristic_when_configured() -> None:
    events = await collect(config_for(free_port_url(), fallback_to_heuristic=True))
    notes = [e.message for e in events if isinstance(e, Progress)]
    assert any("falling back to the heuristic engine" in note for note in notes)
    assert proposals(events)
    assert isinstance(events[-1], Done) and events[-1].stats["fallback"] == "heuristic"


async def test_a_missing_model_never_falls_back() -> None:
    with OllamaServer([ollama_error(404, f'model "{MODEL}" not found, try pulling it first')]) as server:
        with pytest.raises(DreamError, match="ollama pull"):
            await collect(config_for(server.url, fallback_to_heuristic=True))


# --- through the dream runner and the headless mode --------------------------------------------


def workspace_with_batch(tmp_path: Path, url: str) -> Any:
    return workspace_for(tmp_path, {"engine": "ollama",
                                    "ollama": {"host": url, "max_retries": 0, "model": MODEL}})


def test_runner_records_proposals_usage_and_refusals(tmp_path: Path) -> None:
    from dreamtui.dream.runner import dream

    with OllamaServer([]) as server:
        workspace = workspace_with_batch(tmp_path, server.url)
        reply = workspace_answer(workspace)
        reply.append({"op": "teleport", "evidence": reply[0]["evidence"], "rationale": "x"})
        server.script.append(ollama_stream(json.dumps({"proposals": reply}), prompt_eval_count=700,
                                           eval_count=80))
        changeset = dream(workspace)
    assert changeset is not None and changeset.complete and changeset.engine == "ollama"
    assert {"create", "update", "discard", "reinforce"} <= {p.op for p in changeset.proposals}
    assert changeset.usage == {"input_tokens": 700, "output_tokens": 80}
    assert any("unknown op 'teleport'" in r.reason for r in changeset.refused)


def test_runner_failure_releases_the_batch_and_headless_exits_1(tmp_path: Path) -> None:
    from dreamtui.headless import run_headless
    from dreamtui.store.changesets import ChangesetStore
    from dreamtui.store.stm import STMStore

    with OllamaServer([ollama_error(404, f'model "{MODEL}" not found, try pulling it first')]) as server:
        workspace = workspace_with_batch(tmp_path, server.url)
        result = run_headless(workspace, force=True, json_out=True)
    assert result.exit_code == 1 and f"ollama pull {MODEL}" in result.message
    with STMStore.for_workspace(workspace) as store:
        assert store.count_pending(exclude_feedback=False) == 5
    assert all(not d.complete for d in ChangesetStore(workspace.dreams_dir).list())
