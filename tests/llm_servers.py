"""Loopback servers that speak the real LLM protocols, for offline engine tests.

`AnthropicServer` answers `POST /v1/messages` the way the Messages API does when `stream` is true:
an SSE stream of message_start, ping, content_block_start/delta/stop (text and tool_use blocks
with input_json_delta chunks split mid-token), message_delta (stop_reason, usage) and
message_stop; errors are JSON bodies `{"type": "error", "error": {...}}` with their status codes.
`OllamaServer` answers `POST /api/chat` with Ollama's NDJSON stream (message chunks, then a final
`done: true` line with token counts and durations) and its `{"error": ...}` bodies.

Each server takes a script: one reply per request, in order. Replies are plain objects built by
the helpers below, and every request is recorded (path, headers, JSON body) for assertions. Both
run in a thread on 127.0.0.1 at a free port, so the real client libraries are driven end to end.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from dreamtui.dream.engines.base import DreamInput
from dreamtui.dream.engines.llm.prompt import Prompt, build_prompt
from dreamtui.entry.codec import parse_entry
from dreamtui.model import FEEDBACK_CONFIRMED, Memory, NewMemory
from dreamtui.scaffold import init_workspace, regenerate_generated_files
from dreamtui.store.ltm import LTMSnapshot, LTMStore
from dreamtui.store.stm import STMStore
from dreamtui.workspace.config import Config
from dreamtui.workspace.layout import Workspace


@dataclass
class Chunks:
    """A streamed 200 reply: `chunks` written one by one, `delay` seconds apart.

    `stop_after` cuts the connection after that many chunks (a dropped stream).
    """

    content_type: str
    chunks: list[bytes]
    delay: float = 0.0
    stop_after: int | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Status:
    """A plain reply with a status code, a JSON body and extra headers."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Stall:
    """Accept the request and say nothing for `seconds` (the client's timeout fires first)."""

    seconds: float


Reply = Chunks | Status | Stall


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class ScriptedServer:
    """An HTTP server on 127.0.0.1 that answers each request with the next scripted reply."""

    def __init__(self, script: Sequence[Reply], path: str) -> None:
        self.script = list(script)
        self.path = path
        self.requests: list[Recorded] = []
        self.disconnected = threading.Event()  # set when a client hung up mid-stream
        self.finished_stream = threading.Event()  # set when a stream was written to its end
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next_reply(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            if not self.script:
                return Status(500, {"error": "test server: no scripted reply left"})
            return self.script.pop(0)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
                pass  # keep pytest output clean

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                recorded = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                if self.path.split("?")[0] != server.path:
                    self._send_status(Status(404, {"error": f"no route {self.path}"}))
                    return
                reply = server._next_reply(recorded)
                if isinstance(reply, Status):
                    self._send_status(reply)
                elif isinstance(reply, Stall):
                    server._stopping.wait(reply.seconds)
                    self.close_connection = True
                else:
                    self._send_chunks(reply)

            def _send_status(self, reply: Status) -> None:
                data = json.dumps(reply.body).encode("utf-8")
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_chunks(self, reply: Chunks) -> None:
                self.close_connection = True
                self.send_response(200)
                self.send_header("content-type", reply.content_type)
                self.send_header("transfer-encoding", "chunked")
                self.send_header("cache-control", "no-cache")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    for number, chunk in enumerate(reply.chunks):
                        if reply.stop_after is not None and number >= reply.stop_after:
                            return  # drop the connection without the closing chunk
                        if number and reply.delay:
                            time.sleep(reply.delay)
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    server.finished_stream.set()
                except (BrokenPipeError, ConnectionResetError):
                    server.disconnected.set()

        return Handler


def free_port_url() -> str:
    """A loopback URL where nothing listens: connecting to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def split_every(text: str, size: int) -> Iterator[str]:
    """Fixed-size pieces: JSON split mid-token, mid-string and mid-escape, as real streams do."""
    for start in range(0, len(text), size):
        yield text[start:start + size]


# --- Anthropic Messages API ------------------------------------------------------------------


class AnthropicServer(ScriptedServer):
    def __init__(self, script: Sequence[Reply]) -> None:
        super().__init__(script, "/v1/messages")


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def anthropic_events(*, text: str = "", tool_inputs: Sequence[dict[str, Any] | str] = (),
                     stop_reason: str = "tool_use", input_tokens: int = 1200,
                     output_tokens: int = 345, cache_read: int = 0, cache_creation: int = 0,
                     model: str = "claude-sonnet-4-5-20250929", split: int = 7,
                     tool_name: str = "propose_change") -> list[bytes]:
    """The SSE events of one streamed message: optional text, then one tool_use block per input.

    A `str` tool input is sent as-is (malformed JSON tests); a dict is serialised and split.
    """
    events = [sse("message_start", {"type": "message_start", "message": {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
        "content": [], "model": model, "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "cache_creation_input_tokens": cache_creation,
                  "cache_read_input_tokens": cache_read, "output_tokens": 1}}}),
        sse("ping", {"type": "ping"})]
    index = 0
    if text:
        events.append(sse("content_block_start", {"type": "content_block_start", "index": index,
                                                  "content_block": {"type": "text", "text": ""}}))
        for piece in split_every(text, split):
            events.append(sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                      "delta": {"type": "text_delta", "text": piece}}))
        events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for number, tool_input in enumerate(tool_inputs):
        partial = tool_input if isinstance(tool_input, str) else json.dumps(tool_input)
        events.append(sse("content_block_start", {
            "type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": f"toolu_01A09q90qw90lq917835lq{number:02d}",
                              "name": tool_name, "input": {}}}))
        # The API's first input_json_delta of a block is often empty.
        for piece in ["", *split_every(partial, split)]:
            events.append(sse("content_block_delta", {
                "type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece}}))
        events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(sse("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                        "usage": {"output_tokens": output_tokens}}))
    events.append(sse("message_stop", {"type": "message_stop"}))
    return events


def anthropic_stream(*, delay: float = 0.0, stop_after: int | None = None, **kwargs: Any) -> Chunks:
    return Chunks("text/event-stream; charset=utf-8", anthropic_events(**kwargs), delay=delay,
                  stop_after=stop_after, headers={"request-id": "req_011CUabc",
                                                  "anthropic-organization-id": "org-test"})


def anthropic_error(status: int, kind: str, message: str,
                    headers: dict[str, str] | None = None) -> Status:
    body = {"type": "error", "error": {"type": kind, "message": message},
            "request_id": "req_011CUerr"}
    return Status(status, body, {"request-id": "req_011CUerr", **(headers or {})})


# --- Ollama /api/chat ------------------------------------------------------------------------


class OllamaServer(ScriptedServer):
    def __init__(self, script: Sequence[Reply]) -> None:
        super().__init__(script, "/api/chat")


def _ndjson(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode("utf-8") + b"\n"


def ollama_lines(content: str, *, model: str = "qwen2.5:7b", split: int = 9,
                 prompt_eval_count: int = 900, eval_count: int = 210,
                 done_reason: str = "stop") -> list[bytes]:
    """One NDJSON line per piece of `content`, then the final `done: true` line with counts."""
    created = "2026-11-29T03:00:12.123456Z"
    lines = [_ndjson({"model": model, "created_at": created,
                      "message": {"role": "assistant", "content": piece}, "done": False})
             for piece in split_every(content, split)]
    lines.append(_ndjson({
        "model": model, "created_at": created, "message": {"role": "assistant", "content": ""},
        "done_reason": done_reason, "done": True, "total_duration": 5_043_500_667,
        "load_duration": 5_025_959, "prompt_eval_count": prompt_eval_count,
        "prompt_eval_duration": 325_953_000, "eval_count": eval_count,
        "eval_duration": 4_709_213_000}))
    return lines


def ollama_stream(content: str, *, delay: float = 0.0, stop_after: int | None = None,
                  **kwargs: Any) -> Chunks:
    return Chunks("application/x-ndjson", ollama_lines(content, **kwargs), delay=delay,
                  stop_after=stop_after)


def ollama_error(status: int, message: str, headers: dict[str, str] | None = None) -> Status:
    return Status(status, {"error": message}, dict(headers or {}))


# --- a small dream to script answers for -----------------------------------------------------

NOW = datetime(2026, 11, 29, 3, 0, 12, tzinfo=UTC)
T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


def memory(mid: str, title: str, content: str, agent: str = "agent-a", minutes: int = 0,
           type: str = "observation", tags: tuple[str, ...] = ("ci",), **metadata: Any) -> Memory:
    return Memory(id=mid, tenant_id="default", agent_id=agent, type=type, title=title, content=content,
                  tags=tags, metadata=metadata, submitted_at=T0 + timedelta(minutes=minutes))


def entry_text(slug: str, title: str, body: str, **meta: Any) -> str:
    lines = [f"title: {title}", f"slug: {slug}", "type: topic", "tags: [testing]",
             "created_at: 2026-11-01T09:00:00Z", "updated_at: 2026-11-01T09:00:00Z",
             "sources: [stm:old-1]", *(f"{k}: {v}" for k, v in meta.items())]
    return "---\n" + "\n".join(lines) + f"\n---\n{body}\n"


SAMPLE_ENTRIES = {
    "topics/test-db-reset.md": entry_text(
        "test-db-reset", "Reset the test database before integration tests",
        "Run `make db-reset` before `pytest tests/integration`; the suite assumes an empty schema.",
        confirmations=1),
    "topics/ci-ports.md": entry_text(
        "ci-ports", "CI service ports", "CI Postgres listens on 5432 and Redis on 6379.",
        importance="pinned"),
    "topics/node-version.md": entry_text(
        "node-version", "Use Node 20 for the frontend",
        "Run `nvm use 20` before `npm ci`; Node 18 fails on the lockfile."),
}

DIRTY_A = memory("a1", "Integration tests fail on a dirty schema",
                 "Integration tests fail with IntegrityError when the test database schema is dirty; "
                 "run make db-reset first.", tags=("testing",))
DIRTY_B = memory("a2", "Integration tests fail on a dirty schema",
                 "Integration tests fail with IntegrityError when the test database schema is dirty, "
                 "run make db-reset first.", agent="agent-b", minutes=2, tags=("testing",))
ALEMBIC = memory("b1", "Apply alembic migrations before seeding",
                 "Seeding the dev database fails unless `alembic upgrade head` ran first.",
                 minutes=4, tags=("database",))
CONFIRM = memory("c1", "node-version helped", "The Node 20 guidance was right.", minutes=6,
                 type=FEEDBACK_CONFIRMED, target="node-version")
NOISE = memory("d1", "ok", "ok", minutes=8, tags=())


def sample_snapshot() -> LTMSnapshot:
    snapshot = LTMSnapshot()
    for path, text in SAMPLE_ENTRIES.items():
        snapshot.entries[path] = parse_entry(text, path)
    return snapshot


def sample_batch() -> list[Memory]:
    return [DIRTY_A, DIRTY_B, ALEMBIC, CONFIRM, NOISE]


def sample_input(config: Config | None = None, batch: list[Memory] | None = None,
                 rejected: frozenset[str] = frozenset()) -> DreamInput:
    return DreamInput(batch=sample_batch() if batch is None else batch, snapshot=sample_snapshot(),
                      config=config or Config(), now=NOW, rejected=rejected)


def alias(prompt: Prompt, memory_id: str) -> str:
    """The id the model sees for `memory_id` (m1, m2, ...)."""
    return next(name for name, m in prompt.aliases.items() if m.id == memory_id)


def answer(prompt: Prompt, ids: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """A good answer to the sample dream: update, create, discard (ids: sample id → real id)."""
    def a(sample_id: str) -> str:
        return alias(prompt, (ids or {}).get(sample_id, sample_id))
    return [
        {"op": "update", "slug": "test-db-reset", "details": "Symptom: IntegrityError on a dirty schema.",
         "evidence": [a("a1"), a("a2")], "rationale": "two agents hit it", "confidence": 0.8},
        {"op": "create", "slug": "alembic-before-seed", "kind": "topic",
         "title": "Apply alembic migrations before seeding", "tags": ["database"],
         "guidance": "Run `alembic upgrade head` before seeding the dev database.",
         "details": "Seeding fails otherwise.", "evidence": [a("b1")], "rationale": "new lesson",
         "confidence": 0.7},
        {"op": "discard", "evidence": [a("d1")], "rationale": "says nothing"},
    ]


# --- a workspace holding the sample dream, for runner and headless tests ----------------------


def workspace_for(root: Path, dream: dict[str, Any]) -> Workspace:
    """A workspace with the sample entries and the sample batch pending; `dream` is its config."""
    workspace = init_workspace(root / "workspace", git=False)
    for path, text in SAMPLE_ENTRIES.items():
        target = workspace.memory_root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    workspace = replace(workspace, config=Config.model_validate({"dream": dream}))
    regenerate_generated_files(workspace)
    with STMStore.for_workspace(workspace) as store:
        for m in sample_batch():
            store.submit(NewMemory(type=m.type, title=m.title, content=m.content, agent_id=m.agent_id,
                                   tags=m.tags, metadata=m.metadata), now=m.submitted_at)
    return workspace


def workspace_answer(workspace: Workspace) -> list[dict[str, Any]]:
    """`answer` for the workspace's pending batch (its memories have store-made ids)."""
    with STMStore.for_workspace(workspace) as store:
        batch = store.page(limit=100, newest_first=False)
    by_content = {m.content: m.id for m in batch}
    ids = {m.id: by_content[m.content] for m in sample_batch()}
    data = DreamInput(batch=batch, snapshot=LTMStore(workspace.memory_root).scan(), config=workspace.config,
                      now=NOW)
    return answer(build_prompt(data, "tool"), ids)
