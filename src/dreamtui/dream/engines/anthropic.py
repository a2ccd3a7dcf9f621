"""The `anthropic` dream engine: Claude through the official async client, streamed.

Structured output comes through tool use: the model calls `propose_change` (whose input schema is
the proposal schema) once per proposal, and each tool_use block is turned into a proposal the
moment its content_block_stop arrives. Text blocks stream to the TUI as TextDelta. Retries of
429/5xx/connection errors are the client's own (it honours retry-after), bounded by
`dream.anthropic.max_retries`. Settings: dream.anthropic.{model, api_key_env, base_url,
max_tokens, timeout_s, max_retries}; without a base_url the client's ANTHROPIC_BASE_URL applies.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

import anthropic
import httpx2

from dreamtui.dream.engines.base import CancelToken, DreamInput, Event, Refused, TextDelta, Usage
from dreamtui.dream.engines.llm.answer import TOOL_NAME, ModelProposal, proposal_schema
from dreamtui.dream.engines.llm.prompt import Prompt, one_line
from dreamtui.dream.engines.llm.run import BackendItem, run_llm_dream, with_fallback
from dreamtui.dream.engines.llm.streaming import ModelUnreachable, next_or_cancel
from dreamtui.errors import DreamError
from dreamtui.model import Refusal
from dreamtui.workspace.config import AnthropicConfig, Config

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


class _MessageReader:
    """Follows one streamed message: text deltas out, tool_use blocks assembled, usage summed."""

    def __init__(self, settings: AnthropicConfig) -> None:
        self.settings = settings
        self.usage: dict[str, int] = {}
        self.tool_json: dict[int, list[str]] = {}
        self.tool_names: dict[int, str] = {}
        self.stop_reason: str | None = None
        self.stopped = False
        self.malformed: str | None = None

    def feed(self, event: Any) -> list[BackendItem]:
        kind = event.type
        if kind == "message_start":
            self._usage(event.message.usage)
        elif kind == "content_block_start" and event.content_block.type == "tool_use":
            self.tool_json[event.index] = []
            self.tool_names[event.index] = event.content_block.name
        elif kind == "content_block_delta":
            return self._delta(event)
        elif kind == "content_block_stop" and event.index in self.tool_json:
            return self._tool_call(event.index)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self._usage(event.usage)
            return [Usage(dict(self.usage))]
        elif kind == "message_stop":
            self.stopped = True
        return []

    def _usage(self, usage: Any) -> None:
        # message_delta's counts are cumulative: the last value of each key is the total.
        for key in USAGE_KEYS:
            value = getattr(usage, key, None)
            if isinstance(value, int):
                self.usage[key] = value

    def _delta(self, event: Any) -> list[BackendItem]:
        delta = event.delta
        if delta.type == "text_delta" and delta.text:
            return [TextDelta(delta.text)]
        if delta.type == "input_json_delta" and event.index in self.tool_json:
            self.tool_json[event.index].append(delta.partial_json)
        return []

    def _tool_call(self, index: int) -> list[BackendItem]:
        name = self.tool_names.pop(index)
        text = "".join(self.tool_json.pop(index)).strip() or "{}"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            # Reported in `finish`: a cut-off answer (max_tokens) says so, anything else is malformed.
            self.malformed = self.malformed or f"{exc.msg} at char {exc.pos}"
            return []
        if name != TOOL_NAME:
            return [Refused(Refusal(op="?", target=name, reason=f"model called an unknown tool {name!r}",
                                    raw={"tool": name, "input": data}))]
        return [ModelProposal(data)]

    def finish(self) -> None:
        settings = self.settings
        if self.stop_reason == "max_tokens":
            raise DreamError(f"anthropic: the answer was cut off at max_tokens ({settings.max_tokens}) — "
                             "raise dream.anthropic.max_tokens or lower dream.token_budget")
        if self.malformed:
            raise DreamError(f"anthropic: malformed JSON in a {TOOL_NAME} call ({self.malformed}) — "
                             "dream again, or try another dream.anthropic.model")
        if self.stop_reason == "refusal":
            raise DreamError("anthropic: the model declined to answer (stop_reason refusal) — review the "
                             "batch, or try another dream.anthropic.model")
        if not self.stopped:
            raise DreamError("anthropic: the stream ended before message_stop (connection dropped) — "
                             "dream again; check dream.anthropic.timeout_s")


class AnthropicEngine:
    name = "anthropic"

    def __init__(self, config: Config) -> None:
        self.config = config
        self.settings = config.dream.anthropic

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncGenerator[Event, None]:
        self._api_key()  # a missing key fails every dream, not only those that reach the model
        events = run_llm_dream(self.name, "tool", self._stream, dream_input, cancel)
        async with aclosing(with_fallback(events, dream_input, cancel, self.config)) as stream:
            async for event in stream:
                yield event

    def _api_key(self) -> str:
        variable = self.settings.api_key_env
        key = os.environ.get(variable, "").strip()
        if not key:
            raise DreamError(f"anthropic: no API key — set ${variable} (dream.anthropic.api_key_env)")
        return key

    def _client(self) -> anthropic.AsyncAnthropic:
        settings = self.settings
        return anthropic.AsyncAnthropic(api_key=self._api_key(), base_url=settings.base_url,
                                        timeout=settings.timeout_s, max_retries=settings.max_retries)

    def _request(self, prompt: Prompt) -> dict[str, Any]:
        schema = proposal_schema()
        return {
            "model": self.settings.model,
            "max_tokens": self.settings.max_tokens,
            # The system prompt and tool schema are the same every dream: cache them.
            "system": [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": TOOL_NAME, "description": schema.get("description", ""),
                       "input_schema": schema}],
            "tool_choice": {"type": "auto"},
            "messages": [{"role": "user", "content": prompt.user}],
            "stream": True,
        }

    async def _stream(self, prompt: Prompt, cancel: CancelToken) -> AsyncGenerator[BackendItem, None]:
        client = self._client()
        url = str(client.base_url).rstrip("/")
        reader = _MessageReader(self.settings)
        try:
            try:
                stream = await client.messages.create(**self._request(prompt))
            except (anthropic.APIError, httpx2.HTTPError) as exc:
                raise self._failure(exc, url) from None
            async with stream:
                events = aiter(stream)
                while True:
                    try:
                        event = await next_or_cancel(events, cancel)
                    except StopAsyncIteration:
                        break
                    except (anthropic.APIError, httpx2.HTTPError) as exc:
                        raise self._failure(exc, url) from None
                    for item in reader.feed(event):
                        yield item
            reader.finish()
        finally:
            await client.close()

    def _failure(self, exc: Exception, url: str) -> DreamError:
        """One line naming the cause and the setting to check."""
        settings = self.settings
        retries = f"after {settings.max_retries} retries "
        if isinstance(exc, (anthropic.APITimeoutError, httpx2.TimeoutException)):
            return ModelUnreachable(f"anthropic: no answer from {url} within {settings.timeout_s:g} s "
                                    f"{retries}— check dream.anthropic.timeout_s")
        if isinstance(exc, anthropic.APIConnectionError):
            return ModelUnreachable(f"anthropic: cannot connect to {url} {retries}— check "
                                    "dream.anthropic.base_url (or ANTHROPIC_BASE_URL) and the network")
        if isinstance(exc, httpx2.HTTPError):
            return DreamError(f"anthropic: the stream from {url} broke off mid-answer "
                              f"({type(exc).__name__}) — dream again; check dream.anthropic.timeout_s")
        if not isinstance(exc, anthropic.APIStatusError):
            return DreamError(f"anthropic: {one_line(str(exc), 200)} — check the dream.anthropic settings")
        return self._status_failure(exc, retries)

    def _status_failure(self, exc: anthropic.APIStatusError, retries: str) -> DreamError:
        settings, key = self.settings, f"${self.settings.api_key_env} (dream.anthropic.api_key_env)"
        kind = exc.type or ""
        # An error event inside a 200 stream has the stream's status: name it by its type; the
        # client retries only before a stream starts.
        mid_stream = exc.status_code < 400
        status = f"{kind} mid-stream" if mid_stream else str(exc.status_code)
        retries = "" if mid_stream else retries
        detail = one_line(exc.api_message or "", 160)
        if isinstance(exc, anthropic.AuthenticationError) or kind == "authentication_error":
            return DreamError(f"anthropic: API key rejected ({status}) — check {key}")
        if isinstance(exc, anthropic.PermissionDeniedError) or kind == "permission_error":
            return DreamError(f"anthropic: permission denied ({status}): {detail} — check {key} "
                              "and dream.anthropic.model")
        if isinstance(exc, anthropic.NotFoundError) or kind == "not_found_error":
            return DreamError(f"anthropic: model {settings.model!r} not found ({status}) — check "
                              "dream.anthropic.model (and dream.anthropic.base_url)")
        if isinstance(exc, anthropic.RateLimitError) or kind == "rate_limit_error":
            return DreamError(f"anthropic: rate limited ({status}) {retries}— dream again later, or "
                              "raise dream.anthropic.max_retries")
        if exc.status_code >= 500 or kind in ("overloaded_error", "api_error"):
            what = "overloaded" if kind == "overloaded_error" or exc.status_code == 529 else "server error"
            return ModelUnreachable(f"anthropic: API {what} ({status}) {retries}— dream again later "
                                    "(dream.anthropic.max_retries)")
        return DreamError(f"anthropic: request rejected ({status} {kind}): {detail} — check "
                          "dream.anthropic.model and dream.anthropic.max_tokens")
