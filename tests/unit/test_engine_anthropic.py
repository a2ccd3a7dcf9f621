"""The anthropic engine against a loopback server speaking the Messages API's streaming protocol,
driven through the real `anthropic` client: the happy path, every failure, cancellation, refusals,
the fallback, and the whole dream runner."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest

from dreamtui.dream.engines.anthropic import AnthropicEngine
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
from dreamtui.dream.engines.llm.answer import SECRET_MARK
from dreamtui.dream.engines.llm.prompt import build_prompt
from dreamtui.dream.engines.llm.streaming import ModelUnreachable
from dreamtui.entry.codec import parse_entry
from dreamtui.errors import DreamError
from dreamtui.workspace.config import Config
from tests.llm_servers import (
    ALEMBIC,
    CONFIRM,
    DIRTY_A,
    DIRTY_B,
    NOISE,
    AnthropicServer,
    Chunks,
    Stall,
    alias,
    answer,
    anthropic_error,
    anthropic_events,
    anthropic_stream,
    free_port_url,
    sample_input,
    sse,
    workspace_answer,
    workspace_for,
)


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def config_for(url: str | None, **settings: Any) -> Config:
    # A model name of our own: the config's default is one the client warns about by date.
    anthropic = {"base_url": url, "max_retries": 0, "timeout_s": 5, "model": "claude-test", **settings}
    dream = {"anthropic": anthropic}
    if "fallback_to_heuristic" in settings:
        dream["fallback_to_heuristic"] = anthropic.pop("fallback_to_heuristic")
    return Config.model_validate({"dream": dream})


async def collect(config: Config, data: DreamInput | None = None,
                  cancel: CancelToken | None = None) -> list[Event]:
    engine = AnthropicEngine(config)
    return [e async for e in engine.run(data or sample_input(config), cancel or CancelToken())]


def ids(config: Config) -> dict[str, str]:
    prompt = build_prompt(sample_input(config), "tool")
    return {m: alias(prompt, m) for m in (DIRTY_A.id, DIRTY_B.id, ALEMBIC.id, NOISE.id)}


def good_answer(config: Config) -> list[dict[str, Any]]:
    return answer(build_prompt(sample_input(config), "tool"))


def proposals(events: list[Event]) -> list[tuple[str, str]]:
    return [(e.proposal.op, e.proposal.target) for e in events if isinstance(e, ProposalReady)]


def refusals(events: list[Event]) -> list[str]:
    return [e.refusal.reason for e in events if isinstance(e, Refused)]


# --- the happy path ----------------------------------------------------------------------------


async def test_streams_text_then_each_proposal_then_usage() -> None:
    script = [anthropic_stream(text="Three changes follow.", tool_inputs=good_answer(config_for(None)),
                               input_tokens=1500, output_tokens=400, cache_read=1024, cache_creation=0)]
    with AnthropicServer(script) as server:
        events = await collect(config_for(server.url))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "Three changes follow."
    assert proposals(events) == [("update", "topics/test-db-reset.md"),
                                 ("create", "topics/alembic-before-seed.md"),
                                 ("discard", "stm:d1"),
                                 ("reinforce", "topics/node-version.md")]  # the feedback, by policy
    usage = [e.tokens for e in events if isinstance(e, Usage)]
    assert usage == [{"input_tokens": 1500, "output_tokens": 400, "cache_read_input_tokens": 1024,
                      "cache_creation_input_tokens": 0}]
    assert isinstance(events[-1], Done) and events[-1].stats["prompt"] == "dream-v3"
    created = next(e.proposal for e in events if isinstance(e, ProposalReady) and e.proposal.op == "create")
    entry = parse_entry(created.after or "", created.target)
    assert entry.guidance == "Run `alembic upgrade head` before seeding the dev database."
    assert entry.sources == ("stm:b1",) and created.evidence == ["b1"]
    updated = next(e.proposal for e in events if isinstance(e, ProposalReady) and e.proposal.op == "update")
    assert "Symptom: IntegrityError on a dirty schema." in (updated.after or "")
    assert updated.base_sha256 is not None and sorted(updated.evidence) == ["a1", "a2"]


async def test_request_uses_config_tool_schema_and_fenced_prompt() -> None:
    config = config_for(None, model="claude-test-model", max_tokens=2048)
    with AnthropicServer([anthropic_stream(tool_inputs=good_answer(config))]) as server:
        await collect(replace_url(config, server.url))
    request = server.requests[0]
    # The key reaches the API in the client's auth header (x-api-key or a bearer token).
    auth = request.headers.get("x-api-key", "") + request.headers.get("authorization", "")
    assert "sk-ant-test-0000" in auth
    assert "anthropic-version" in request.headers
    body = request.body
    assert body["model"] == "claude-test-model" and body["max_tokens"] == 2048 and body["stream"] is True
    assert [t["name"] for t in body["tools"]] == ["propose_change"]
    assert body["tools"][0]["input_schema"]["properties"]["op"]["enum"][0] == "create"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    user = body["messages"][0]["content"]
    assert "<untrusted-data-" in user and "untrusted data written by agents" in body["system"][0]["text"]
    assert DIRTY_A.content in user
    assert CONFIRM.content not in user  # feedback goes to the policy, never to the model


def replace_url(config: Config, url: str) -> Config:
    data = config.model_dump()
    data["dream"]["anthropic"]["base_url"] = url
    return Config.model_validate(data)


async def test_each_proposal_is_emitted_when_its_tool_block_completes() -> None:
    script = [anthropic_stream(tool_inputs=good_answer(config_for(None)), delay=0.02)]
    with AnthropicServer(script) as server:
        engine = AnthropicEngine(config_for(server.url))
        async for event in engine.run(sample_input(engine.config), CancelToken()):
            if isinstance(event, ProposalReady):
                assert not server.finished_stream.is_set()  # the rest is still on its way
                break


async def test_base_url_from_the_clients_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    with AnthropicServer([anthropic_stream(tool_inputs=good_answer(config_for(None)))]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        events = await collect(config_for(None))
    assert len(server.requests) == 1 and isinstance(events[-1], Done)


async def test_a_feedback_only_batch_needs_no_request() -> None:
    with AnthropicServer([]) as server:
        config = config_for(server.url)
        events = await collect(config, sample_input(config, batch=[CONFIRM]))
    assert server.requests == [] and proposals(events) == [("reinforce", "topics/node-version.md")]


# --- what the policy must refuse ---------------------------------------------------------------


async def test_model_proposals_that_break_the_rules_are_refused_visibly() -> None:
    a = ids(config_for(None))
    answer = [
        {"op": "delete", "slug": "test-db-reset", "evidence": [a["a1"]], "rationale": "x"},
        {"op": "create", "slug": "Bad Slug!", "kind": "topic", "title": "t", "guidance": "g",
         "evidence": [a["a1"]], "rationale": "x"},
        {"op": "create", "slug": "../../etc/passwd", "kind": "topic", "title": "t", "guidance": "g",
         "evidence": [a["a1"]], "rationale": "x"},
        {"op": "archive", "slug": "ci-ports", "evidence": [a["a2"]], "rationale": "x"},
        {"op": "create", "slug": "no-evidence", "kind": "topic", "title": "t", "guidance": "g",
         "evidence": [], "rationale": "x"},
        {"op": "reinforce", "slug": "node-version", "evidence": ["m99"], "rationale": "x"},
        {"op": "create", "slug": "node-version", "kind": "topic", "title": "t", "guidance": "g",
         "evidence": [a["b1"]], "rationale": "x"},
        {"op": "update", "slug": "no-such-entry", "details": "d", "evidence": [a["b1"]], "rationale": "x"},
    ]
    with AnthropicServer([anthropic_stream(tool_inputs=answer)]) as server:
        events = await collect(config_for(server.url))
    reasons = refusals(events)
    assert len(reasons) == len(answer)
    expected = ["unknown op 'delete'", "bad slug", "bad slug", "ci-ports.md is pinned", "no evidence",
                "evidence not among the memories shown: m99", "'node-version' already exists",
                "no live entry 'no-such-entry'"]
    for reason, fragment in zip(reasons, expected, strict=True):
        assert fragment in reason
    assert isinstance(events[-1], Done)


async def test_secrets_in_model_output_are_redacted_and_marked() -> None:
    a = ids(config_for(None))
    secret = "AKIAUJZDE8GXD6NCF10E"  # not AWS's documented AKIA…EXAMPLE, which is no secret
    answer = [{"op": "create", "slug": "deploy-creds", "kind": "incident", "title": "Deploy credentials",
               "guidance": f"Deploy with key {secret} from the vault.", "evidence": [a["b1"]],
               "rationale": "x"}]
    with AnthropicServer([anthropic_stream(tool_inputs=answer)]) as server:
        events = await collect(config_for(server.url))
    created = next(e.proposal for e in events if isinstance(e, ProposalReady) and e.proposal.op == "create")
    assert secret not in (created.after or "") and "[REDACTED:" in (created.after or "")
    assert SECRET_MARK in created.safety
    assert created.target.startswith("incidents/2026-11/2026-11-28-deploy-creds")


async def test_an_unknown_tool_is_refused() -> None:
    script = [anthropic_stream(tool_inputs=[{"cmd": "rm -rf /"}], tool_name="bash")]
    with AnthropicServer(script) as server:
        events = await collect(config_for(server.url))
    assert refusals(events) == ["model called an unknown tool 'bash'"]


# --- failures: one line each, naming the setting -----------------------------------------------


@pytest.mark.parametrize(("reply", "message"), [
    (anthropic_error(401, "authentication_error", "invalid x-api-key"),
     "anthropic: API key rejected (401) — check $ANTHROPIC_API_KEY (dream.anthropic.api_key_env)"),
    (anthropic_error(404, "not_found_error", "model: claude-sonnet-4-5"),
     "anthropic: model 'claude-test' not found (404) — check dream.anthropic.model"),
    (anthropic_error(400, "invalid_request_error", "max_tokens: too large"),
     "anthropic: request rejected (400 invalid_request_error): max_tokens: too large"),
    (anthropic_error(403, "permission_error", "not allowed"), "anthropic: permission denied (403)"),
    (anthropic_error(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit",
                     {"retry-after": "1"}),
     "anthropic: rate limited (429) after 0 retries — dream again later, or raise "
     "dream.anthropic.max_retries"),
])
async def test_status_errors(reply: Any, message: str) -> None:
    with AnthropicServer([reply]) as server:
        with pytest.raises(DreamError) as raised:
            await collect(config_for(server.url))
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(("reply", "message"), [
    (anthropic_error(529, "overloaded_error", "Overloaded"),
     "anthropic: API overloaded (529) after 0 retries"),
    (anthropic_error(500, "api_error", "Internal server error"), "anthropic: API server error (500)"),
])
async def test_server_side_errors_count_as_unreachable(reply: Any, message: str) -> None:
    with AnthropicServer([reply]) as server:
        with pytest.raises(ModelUnreachable, match=re.escape(message)):
            await collect(config_for(server.url))


@pytest.mark.slow
async def test_rate_limit_retries_honour_retry_after_then_succeed() -> None:
    limited = anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "1"})
    script = [limited, anthropic_stream(tool_inputs=good_answer(config_for(None)))]
    with AnthropicServer(script) as server:
        started = time.monotonic()
        events = await collect(config_for(server.url, max_retries=2))
        waited = time.monotonic() - started
    assert len(server.requests) == 2 and isinstance(events[-1], Done)
    assert waited >= 0.9  # the client waited what retry-after asked


async def test_retries_are_bounded_by_max_retries() -> None:
    limited = anthropic_error(429, "rate_limit_error", "slow down", {"retry-after-ms": "10"})
    with AnthropicServer([limited] * 5) as server:
        with pytest.raises(DreamError, match=r"rate limited \(429\) after 2 retries"):
            await collect(config_for(server.url, max_retries=2))
    assert len(server.requests) == 3


async def test_connection_refused_names_the_url_and_settings() -> None:
    url = free_port_url()
    with pytest.raises(ModelUnreachable) as raised:
        await collect(config_for(url))
    assert str(raised.value) == (f"anthropic: cannot connect to {url} after 0 retries — check "
                                 "dream.anthropic.base_url (or ANTHROPIC_BASE_URL) and the network")


async def test_timeout_names_the_setting() -> None:
    with AnthropicServer([Stall(10)]) as server:
        with pytest.raises(ModelUnreachable,
                           match=r"no answer from .* within 0\.3 s .*dream\.anthropic\.timeout_s"):
            await collect(config_for(server.url, timeout_s=0.3))


async def test_missing_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_CLAUDE_KEY", raising=False)
    with pytest.raises(DreamError) as raised:
        await collect(config_for("http://127.0.0.1:9", api_key_env="MY_CLAUDE_KEY"))
    assert str(raised.value) == "anthropic: no API key — set $MY_CLAUDE_KEY (dream.anthropic.api_key_env)"


async def test_malformed_tool_json_fails_the_dream() -> None:
    script = [anthropic_stream(tool_inputs=['{"op": "create", "slug": }'])]
    with AnthropicServer(script) as server:
        with pytest.raises(DreamError, match="malformed JSON in a propose_change call"):
            await collect(config_for(server.url))


async def test_answer_cut_off_at_max_tokens_fails_the_dream() -> None:
    script = [anthropic_stream(tool_inputs=['{"op": "create", "sl'], stop_reason="max_tokens")]
    with AnthropicServer(script) as server:
        with pytest.raises(DreamError,
                           match=r"cut off at max_tokens \(8192\) — raise dream\.anthropic\.max_tokens"):
            await collect(config_for(server.url))


async def test_a_dropped_stream_fails_the_dream() -> None:
    script = [anthropic_stream(tool_inputs=good_answer(config_for(None)), stop_after=6)]
    with AnthropicServer(script) as server:
        with pytest.raises(DreamError, match="broke off mid-answer|ended before message_stop"):
            await collect(config_for(server.url))


async def test_an_error_event_mid_stream() -> None:
    events = anthropic_events(text="Thinking")[:4] + [
        sse("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})]
    script = [Chunks("text/event-stream; charset=utf-8", events)]
    with AnthropicServer(script) as server:
        with pytest.raises(DreamError, match=r"API overloaded \(overloaded_error mid-stream\) — dream again"):
            await collect(config_for(server.url))


# --- cancellation ------------------------------------------------------------------------------


@pytest.mark.slow
async def test_cancel_mid_stream_stops_promptly_and_closes_the_stream() -> None:
    script = [anthropic_stream(text="A long answer that streams slowly",
                               tool_inputs=good_answer(config_for(None)), delay=0.3, split=3)]
    cancel = CancelToken()
    seen: list[Event] = []
    with AnthropicServer(script) as server:
        engine = AnthropicEngine(config_for(server.url))
        started = time.monotonic()
        async for event in engine.run(sample_input(engine.config), cancel):
            seen.append(event)
            if isinstance(event, TextDelta):
                cancel.cancel()
                started = time.monotonic()
        stopped = time.monotonic() - started
        assert await asyncio.to_thread(server.disconnected.wait, 5)
    assert stopped < 0.3  # did not wait for the next chunk
    assert not any(isinstance(e, (Done, ProposalReady)) for e in seen)


@pytest.mark.slow
async def test_closing_the_generator_closes_the_http_response() -> None:
    script = [anthropic_stream(text="slow text", tool_inputs=good_answer(config_for(None)),
                               delay=0.2, split=2)]
    with AnthropicServer(script) as server:
        engine = AnthropicEngine(config_for(server.url))
        events = engine.run(sample_input(engine.config), CancelToken())
        async for event in events:
            if isinstance(event, TextDelta):
                break
        await events.aclose()
        assert await asyncio.to_thread(server.disconnected.wait, 5)


# --- the fallback ------------------------------------------------------------------------------


async def test_unreachable_model_falls_back_to_heuristic_when_configured() -> None:
    events = await collect(config_for(free_port_url(), fallback_to_heuristic=True))
    notes = [e.message for e in events if isinstance(e, Progress)]
    assert any("falling back to the heuristic engine (dream.fallback_to_heuristic)" in n for n in notes)
    assert proposals(events)  # the heuristic engine's proposals
    done = events[-1]
    assert isinstance(done, Done) and done.stats["fallback"] == "heuristic"


async def test_a_rejected_key_never_falls_back() -> None:
    with AnthropicServer([anthropic_error(401, "authentication_error", "invalid x-api-key")]) as server:
        with pytest.raises(DreamError, match="API key rejected"):
            await collect(config_for(server.url, fallback_to_heuristic=True))


# --- through the dream runner and the headless mode --------------------------------------------


def workspace_with_batch(tmp_path: Path, url: str) -> Any:
    return workspace_for(tmp_path, {"engine": "anthropic",
                                    "anthropic": {"base_url": url, "max_retries": 0, "model": "claude-test"}})


def test_runner_records_proposals_usage_and_refusals(tmp_path: Path) -> None:
    from dreamtui.dream.runner import dream

    with AnthropicServer([]) as server:
        workspace = workspace_with_batch(tmp_path, server.url)
        reply = workspace_answer(workspace)
        reply.append({"op": "archive", "slug": "ci-ports", "evidence": reply[0]["evidence"],
                      "rationale": "x"})
        server.script.append(anthropic_stream(text="ok", tool_inputs=reply, input_tokens=900,
                                              output_tokens=120, cache_read=0, cache_creation=700))
        changeset = dream(workspace)
    assert changeset is not None and changeset.complete and changeset.engine == "anthropic"
    ops = sorted(p.op for p in changeset.reviewable)
    assert "create" in ops and "update" in ops
    # The new lesson was seen once: kept in memory, so AGENTS.md does not change (no context).
    created = next(p for p in changeset.reviewable if p.op == "create")
    assert created.route == "memory" and "context" not in ops
    assert changeset.usage == {"input_tokens": 900, "output_tokens": 120, "cache_read_input_tokens": 0,
                               "cache_creation_input_tokens": 700}
    assert any("ci-ports.md is pinned" in r.reason for r in changeset.refused)
    assert changeset.stats["engine"]["left_out"] == []


def test_runner_failure_releases_the_batch_and_headless_exits_1(tmp_path: Path) -> None:
    from dreamtui.headless import run_headless
    from dreamtui.store.changesets import ChangesetStore
    from dreamtui.store.stm import STMStore

    reply = anthropic_error(401, "authentication_error", "invalid x-api-key")
    with AnthropicServer([reply]) as server:
        workspace = workspace_with_batch(tmp_path, server.url)
        result = run_headless(workspace, force=True, json_out=True)
    assert result.exit_code == 1
    assert "API key rejected (401)" in result.message and "\n" not in result.message
    with STMStore.for_workspace(workspace) as store:
        assert store.count_pending(exclude_feedback=False) == 5  # the whole batch is back
    dreams = ChangesetStore(workspace.dreams_dir).list()
    assert dreams and all(not d.complete and d.status == "abandoned" for d in dreams)


def test_headless_json_summary_carries_usage(tmp_path: Path) -> None:
    from dreamtui.headless import run_headless

    with AnthropicServer([]) as server:
        workspace = workspace_with_batch(tmp_path, server.url)
        server.script.append(anthropic_stream(tool_inputs=workspace_answer(workspace), input_tokens=321,
                                              output_tokens=54))
        result = run_headless(workspace, force=True, json_out=True)
    assert result.exit_code == 0, result.message
    assert result.summary["usage"]["input_tokens"] == 321
    assert result.summary["usage"]["output_tokens"] == 54
