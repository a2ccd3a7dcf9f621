"""The `ollama` dream engine: a local model through the official async client, streamed.

`/api/chat` with `format` set to the answer's JSON schema ({"proposals": [...]}) and `stream`
on. The model's text is shown live, and an incremental scanner hands on each proposal as soon as
its closing brace arrives. The client has no retries of its own, so 429/503 and refused
connections are retried here, at most `dream.ollama.max_retries` times, waiting what the
server's Retry-After asks or backing off exponentially. Settings: dream.ollama.{model, host,
timeout_s, max_retries}; without a host the client's OLLAMA_HOST applies.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

import httpx
import ollama

from dreamtui.dream.engines.base import CancelToken, DreamInput, Event, TextDelta, Usage
from dreamtui.dream.engines.llm.answer import ModelProposal, answer_schema
from dreamtui.dream.engines.llm.incremental_json import ArrayItemScanner
from dreamtui.dream.engines.llm.prompt import Prompt, one_line
from dreamtui.dream.engines.llm.run import BackendItem, run_llm_dream, with_fallback
from dreamtui.dream.engines.llm.streaming import ModelUnreachable, next_or_cancel, retry_delay, sleep_or_cancel
from dreamtui.errors import DreamError
from dreamtui.workspace.config import Config

RETRY_STATUSES = (429, 503)
OUTPUT_TOKENS = 8192  # room for the answer in the context window we ask for
CONTEXT_MARGIN = 1.25  # chars/4 underestimates code-heavy text; ask for a bit more
DEFAULT_HOST = "127.0.0.1:11434"  # the client's own default, named in messages


def context_size(prompt: Prompt) -> int:
    """num_ctx for the request: Ollama's small default window would silently cut our prompt."""
    wanted = prompt.tokens * CONTEXT_MARGIN + OUTPUT_TOKENS
    return int(math.ceil(wanted / 1024) * 1024)


class _ChatReader:
    """Follows one streamed chat: text out, proposals out as they complete, usage at the end."""

    def __init__(self, host: str, model: str) -> None:
        self.host = host
        self.model = model
        self.scanner = ArrayItemScanner("proposals")
        self.done = False
        self.done_reason: str | None = None

    def feed(self, part: Any) -> list[BackendItem]:
        items: list[BackendItem] = []
        text = part.message.content if part.message is not None else ""
        if text:
            items.append(TextDelta(text))
            for element in self.scanner.feed(text):
                items.append(ModelProposal(self._parse(element)))
        if part.done:
            self.done, self.done_reason = True, part.done_reason
            items.append(Usage({"input_tokens": part.prompt_eval_count or 0,
                                "output_tokens": part.eval_count or 0}))
        return items

    def _parse(self, element: str) -> Any:
        try:
            return json.loads(element)
        except json.JSONDecodeError as exc:
            raise self._malformed(f"{exc.msg} in a proposal") from None

    def _malformed(self, why: str) -> DreamError:
        return DreamError(f"ollama: the model's answer is not valid JSON ({why}) — dream again, or try "
                          f"another dream.ollama.model than {self.model!r}")

    def finish(self) -> list[BackendItem]:
        """Check the answer is whole; non-object proposals come out here so they are refused."""
        if not self.done:
            raise DreamError(f"ollama: the stream from {self.host} ended before done (connection "
                             "dropped) — dream again; check dream.ollama.timeout_s")
        if self.done_reason == "length" or self.scanner.unfinished:
            raise DreamError(f"ollama: the answer was cut off before its JSON closed (done_reason "
                             f"{self.done_reason}) — lower dream.token_budget or choose a model with "
                             "a longer context (dream.ollama.model)")
        try:
            answer = self.scanner.result()
        except ValueError as exc:
            raise self._malformed(one_line(str(exc), 80)) from None
        if not isinstance(answer, dict) or not isinstance(answer.get("proposals"), list):
            raise self._malformed('no "proposals" array')
        return [ModelProposal(item) for item in answer["proposals"] if not isinstance(item, dict)]


class OllamaEngine:
    name = "ollama"

    def __init__(self, config: Config) -> None:
        self.config = config
        self.settings = config.dream.ollama

    @property
    def host(self) -> str:
        return self.settings.host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncGenerator[Event, None]:
        events = run_llm_dream(self.name, "json", self._stream, dream_input, cancel)
        async with aclosing(with_fallback(events, dream_input, cancel, self.config)) as stream:
            async for event in stream:
                yield event

    async def _stream(self, prompt: Prompt, cancel: CancelToken) -> AsyncGenerator[BackendItem, None]:
        retry_after: dict[str, str | None] = {}

        async def remember(response: httpx.Response) -> None:
            # The client's ResponseError keeps only status and text; Retry-After is read here.
            retry_after["value"] = response.headers.get("retry-after")

        client = ollama.AsyncClient(host=self.settings.host, timeout=self.settings.timeout_s,
                                    event_hooks={"response": [remember]})
        reader = _ChatReader(self.host, self.settings.model)
        try:
            parts, first = await self._open(client, prompt, cancel, retry_after)
            async with aclosing(parts):
                part: Any = first
                while part is not None:
                    for item in reader.feed(part):
                        yield item
                    part = await self._next(parts, cancel)
            for item in reader.finish():
                yield item
        finally:
            await client.close()  # type: ignore[no-untyped-call]  # ollama's AsyncClient.close has no hints

    def _request(self, prompt: Prompt) -> dict[str, Any]:
        return {
            "model": self.settings.model,
            "messages": [{"role": "system", "content": prompt.system},
                         {"role": "user", "content": prompt.user}],
            "format": answer_schema(),
            "options": {"temperature": 0, "num_ctx": context_size(prompt)},
            "stream": True,
        }

    async def _open(self, client: ollama.AsyncClient, prompt: Prompt, cancel: CancelToken,
                    retry_after: dict[str, str | None]) -> tuple[Any, Any]:
        """The stream and its first part; busy servers and refused connections are retried."""
        attempt = 0
        while True:
            retry_after.clear()
            parts = await client.chat(**self._request(prompt))
            try:
                return parts, await next_or_cancel(parts, cancel)
            except StopAsyncIteration:
                raise DreamError(f"ollama: {self.host} answered with an empty stream — check "
                                 "dream.ollama.host points at an Ollama server") from None
            except (ollama.ResponseError, ConnectionError, httpx.HTTPError, ValueError) as exc:
                await parts.aclose()
                if attempt >= self.settings.max_retries or not self._retryable(exc):
                    raise self._failure(exc, attempt) from None
                await sleep_or_cancel(retry_delay(attempt, retry_after.get("value")), cancel)
                attempt += 1

    async def _next(self, parts: Any, cancel: CancelToken) -> Any:
        try:
            return await next_or_cancel(parts, cancel)
        except StopAsyncIteration:
            return None
        except (ollama.ResponseError, ConnectionError, httpx.HTTPError, ValueError) as exc:
            raise self._failure(exc, 0, mid_stream=True) from None

    @staticmethod
    def _retryable(exc: Exception) -> bool:
        if isinstance(exc, ollama.ResponseError):
            return exc.status_code in RETRY_STATUSES
        return isinstance(exc, (ConnectionError, httpx.ConnectError))

    def _failure(self, exc: Exception, retries: int, *, mid_stream: bool = False) -> DreamError:
        """One line naming the cause and the setting to check."""
        model, host = self.settings.model, self.host
        after = f" after {retries} retries" if retries else ""
        if isinstance(exc, httpx.TimeoutException):
            return ModelUnreachable(f"ollama: no answer from {host} within {self.settings.timeout_s:g} s "
                                    "— check dream.ollama.timeout_s (a cold model loads slowly)")
        if isinstance(exc, (ConnectionError, httpx.ConnectError)) and not mid_stream:
            return ModelUnreachable(f"ollama: cannot connect to {host}{after} — is `ollama serve` "
                                    "running? check dream.ollama.host (or OLLAMA_HOST)")
        if isinstance(exc, (httpx.HTTPError, ConnectionError)):
            return DreamError(f"ollama: the stream from {host} broke off mid-answer ({type(exc).__name__}) "
                              "— dream again; check dream.ollama.timeout_s")
        if not isinstance(exc, ollama.ResponseError):
            return DreamError(f"ollama: {host} did not answer in Ollama's NDJSON ({one_line(str(exc), 60)}) "
                              "— check dream.ollama.host")
        error = one_line(str(exc.error), 160)
        if exc.status_code == 404 or "not found" in error.lower():
            return DreamError(f"ollama: model {model!r} not found on {host} — run `ollama pull {model}` "
                              "or check dream.ollama.model")
        if exc.status_code in RETRY_STATUSES:
            return ModelUnreachable(f"ollama: {host} is busy ({exc.status_code}){after} — dream again "
                                    "later (dream.ollama.max_retries)")
        status = f" ({exc.status_code})" if exc.status_code > 0 else ""
        return DreamError(f"ollama: {error}{status} — check dream.ollama.model and dream.ollama.host")
