"""`dreamtui mcp`: agents submit memories and feedback over MCP (stdio, or streamable HTTP).

The tools are the Dreamer server's (`submit_memory`, `confirm_context`, `flag_context`), with
its input schemas, its results and its error codes, so a client written for Dreamer works
unchanged: every reply is one text block holding a JSON envelope, `{"ok": true, "result": …}`
or `{"ok": false, "error": "<code>", "message": …}`, with `isError` false either way (the
error is in the envelope, as Dreamer puts it). submit_memory answers `{"submitted": [Memory]}`
(Dreamer's Memory fields, then the extra ones such as `redacted` and `safety`), confirm_context
`{"stored", "target", "deduplicated", "memory_id"}`, flag_context `{"stored", "targets",
"anchored", "memory_id"}`. Every submission passes `intake.validate` (limits, redaction,
safety marks) before it reaches STM.

Over HTTP every request must carry `Authorization: Bearer <token>` (see `dreamtui.store.tokens`:
dreamtui's tokens and a Dreamer server's in the same database); the SDK's own bearer middleware
asks `WorkspaceTokenVerifier` on each request, so a revoked token stops working at once, and the
token's agent id (a dreamtui token's name, a Dreamer token's row id, as Dreamer attributes it)
becomes the memories'. It answers at `/mcp` and at `/mcp/`, Dreamer's address. The HTTP server also
checks every Host and Origin header exactly against the names it answers to (`allowed_hosts`),
holds each token to `mcp.max_sessions_per_token` open sessions (`SessionQuota`), and logs
requests without their query strings (`AccessLog`).

Agents cannot reach each other's memories through idempotency keys: STM keeps keys per agent for
this server's submissions (`STMStore.submit(per_agent=True)`), and a caller may not choose a key
in the forms dreamtui makes itself (`RESERVED_KEY_PREFIXES`).
"""

from __future__ import annotations

import errno
import hashlib
import ipaddress
import json
import logging
import math
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Annotated, Any

import anyio
import anyio.to_thread
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import (
    INVALID_REQUEST,
    CallToolResult,
    ErrorData,
    InputRequiredResult,
    JSONRPCError,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Resource as MCPResource
from mcp_types import Tool as MCPTool
from pydantic import Field, ValidationError
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dreamtui.errors import EXIT_FAILED, DreamtuiError, InputError, StoreError
from dreamtui.intake import validate
from dreamtui.model import FEEDBACK_TYPES, Memory, NewMemory
from dreamtui.safety.paths import SLUG_MAX_LEN, SLUG_PATTERN
from dreamtui.store import tokens
from dreamtui.store.stm import SCOPED_KEY_PREFIX, STMStore, SubmitResult
from dreamtui.workspace.config import Config
from dreamtui.workspace.layout import Workspace

logger = logging.getLogger(__name__)
access_logger = logger.getChild("access")

SERVER_NAME = "dreamtui"
HTTP_PATH = "/mcp"
DEFAULT_STDIO_AGENT = "mcp"
# Key forms only dreamtui makes: feedback keys, and the per-agent form STM stores a clashing key
# under. A caller who could choose one could pre-empt another agent's row.
RESERVED_KEY_PREFIXES = (*validate.FEEDBACK_KEY_PREFIXES, SCOPED_KEY_PREFIX)

INSTRUCTIONS = """\
dreamtui collects what coding agents learn about this project. A human reviews every \
submission before it reaches the shared context (AGENTS.md). Guidance in that context ends \
with a [mem: <slug>] marker: call confirm_context with the slug when it helped, flag_context \
with what you observed when it was wrong, and submit_memory for a new lesson worth keeping. \
When you meet an error or an unfamiliar part of the project, search_memory looks up what earlier \
sessions learned, past incidents included (get_entry reads one whole). Never send secrets."""

SUBMIT_DESCRIPTION = """\
Save one lesson about this project for future coding sessions. Submit only what a future \
session could not work out in seconds from the code, the docs or one command: a non-obvious \
fix, a trap, an undocumented convention, an environment quirk. Report a failure's root cause \
and its fix together in ONE memory (symptom, cause, fix), never as separate memories. Title: \
the lesson in a few words (at most {title_chars} characters). Content: the specifics - exact \
command, path, setting or error text (at most {content_bytes} bytes). Never include secrets \
(keys, tokens, passwords, credentials in URLs): they are redacted on receipt, which leaves the \
memory useless. Allowed types: {types}. For feedback on existing guidance use confirm_context \
or flag_context instead. Replies are {{"ok": true, "result": {{"submitted": [{{"id": ..., ...}}]}}}} \
or {{"ok": false, "error": "<code>", "message": ...}}."""

CONFIRM_DESCRIPTION = """\
Report that guidance marked [mem: <slug>] in your context (AGENTS.md, CLAUDE.md) helped with \
this task. target is the slug inside the marker: for [mem: test-db-reset] pass \
"test-db-reset". One confirmation per agent, slug and day counts; repeating it is harmless \
(deduplicated: true). Confirmed guidance is kept and ranked higher."""

FLAG_DESCRIPTION = """\
Report that guidance in your context was wrong, outdated or misleading. observation: what you \
actually saw - the error, the real value, the command that worked. targets: the slug(s) from \
the guidance's [mem: <slug>] marker, when you know them. quote: the misleading text. A flag \
changes nothing by itself; a human reviews it. If you also found the correct fact, submit it \
with submit_memory. Never include secrets."""


def ok(result: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "result": result}


def failure(code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": code, "message": message}


def reply(envelope: dict[str, Any]) -> CallToolResult:
    """The envelope as JSON text, the one block Dreamer's clients parse, and as structured
    content. `isError` stays false for a refusal too, as Dreamer sends it: the envelope says
    `ok: false` and the code, and a client written for Dreamer reads it there."""
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(envelope))],
                          structured_content=envelope, is_error=False)


def error_code(exc: InputError) -> str:
    """Map a validation message to Dreamer's code for it; messages start with the field."""
    message = str(exc)
    field = message.split(":", 1)[0]
    if field == "type" and "not an allowed memory type" in message:
        return "type_not_allowed"
    if field.startswith("metadata") and "schema in the config" in message:
        return "invalid_metadata"
    return "invalid_args"  # size limits too, as Dreamer codes them


def _json_time(moment: datetime | None) -> str | None:
    """A time as Dreamer's Memory serializes it (pydantic's JSON: ISO 8601, UTC as Z)."""
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def memory_payload(memory: Memory) -> dict[str, Any]:
    """A memory as Dreamer's `Memory.model_dump(mode="json")` gives it: its fields in Dreamer's
    order, then the extra ones (`redacted`, `safety` …) as top-level keys, as Dreamer's model
    (extra="allow") carries them."""
    payload: dict[str, Any] = {
        "id": memory.id, "tenant_id": memory.tenant_id, "agent_id": memory.agent_id,
        "type": memory.type, "title": memory.title, "content": memory.content,
        "tags": list(memory.tags), "metadata": memory.metadata,
        "submitted_at": _json_time(memory.submitted_at), "consumed_at": _json_time(memory.consumed_at),
        "consumed_by_lease": memory.consumed_by_lease, "idempotency_key": memory.idempotency_key,
    }
    return {**payload, **{k: v for k, v in memory.extra.items() if k not in payload}}


def _naming(argument: str, build: Callable[[], NewMemory]) -> NewMemory:
    """`validate_slug` raises a bare ValueError; name the argument the bad slug came in."""
    try:
        return build()
    except ValueError as exc:
        raise InputError(f"{argument}: {exc}") from None


class WorkspaceTokenVerifier:
    """The SDK's `TokenVerifier` over the workspace's token tables (dreamtui's and a Dreamer
    server's); the client id is the token's agent id (`tokens.verify`)."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    async def verify_token(self, token: str) -> AccessToken | None:
        check = partial(tokens.verify, self._workspace.stm_path, token,
                        busy_timeout_ms=self._workspace.config.stm.busy_timeout_ms)
        try:
            # In a worker thread: a busy database must not stall every other connection.
            agent = await anyio.to_thread.run_sync(check)
        except StoreError as exc:
            logger.error("cannot check a bearer token: %s", exc)
            return None
        return AccessToken(token=token, client_id=agent, scopes=[]) if agent else None


def http_agent() -> str | None:
    """Over HTTP the agent is the agent id of the token the SDK's middleware accepted."""
    token = get_access_token()
    return token.client_id if token else None


class MemoryTools:
    """The three Dreamer tools. Each call opens a short-lived STM store in a worker thread, so the
    server holds no connection between calls and shares the database with the TUI and dreams."""

    def __init__(self, workspace: Workspace, agent: Callable[[], str | None]) -> None:
        self._workspace = workspace
        self._config = workspace.config
        self._agent = agent
        # The refusal for a confirmation naming no live entry (None: any slug is taken).
        self.known_target: Callable[[str], str | None] | None = None

    async def submit_memory(
        self,
        type: Annotated[str, Field(description="Memory type, one of the allowed types above.")],
        title: Annotated[str, Field(description="The lesson in a few words.")],
        content: Annotated[str, Field(description="Specifics: root cause and fix, exact commands, "
                                                  "paths, settings. No secrets.")],
        tags: Annotated[list[str] | None, Field(description="Short topic tags, e.g. ['ci', 'db'].")] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description="Optional JSON object of "
                                                                     "extra facts.")] = None,
        idempotency_key: Annotated[str | None, Field(description="Optional; resubmitting with the "
                                                                 "same key returns the first memory.")] = None,
    ) -> CallToolResult:
        record: dict[str, Any] = {"type": type, "title": title, "content": content,
                                  "tags": tags or [], "metadata": metadata or {}}
        if idempotency_key is not None:
            record["idempotency_key"] = idempotency_key
        return await self._submit(partial(self._memory_from_record, record),
                                  lambda done: {"submitted": [memory_payload(done.memory)]})

    async def confirm_context(
        self,
        target: Annotated[str, Field(description="The slug from the [mem: <slug>] marker.")],
        note: Annotated[str | None, Field(description="Optional: how it helped.")] = None,
    ) -> CallToolResult:
        if self.known_target is not None:
            # A confirmation of nothing would wait in the queue for a dream to drop it; the
            # agent learns now that its slug is wrong.
            refusal = await anyio.to_thread.run_sync(self.known_target, target)
            if refusal is not None:
                return reply(failure("not_found", refusal))
        return await self._submit(
            lambda agent: validate.prepare(_naming("target", lambda: validate.confirmation(
                target, agent, note, self._workspace.clock())), self._config),
            lambda done: {"stored": True, "target": done.memory.metadata["target"],
                          "deduplicated": not done.created, "memory_id": done.memory.id})

    async def flag_context(
        self,
        observation: Annotated[str, Field(description="What you actually observed: the error, "
                                                      "the real value, what worked.")],
        targets: Annotated[list[str] | None, Field(description="Slugs from the [mem: <slug>] "
                                                               "markers of the wrong guidance.")] = None,
        quote: Annotated[str | None, Field(description="The misleading text, quoted.")] = None,
    ) -> CallToolResult:
        return await self._submit(
            lambda agent: validate.prepare(
                _naming("targets", lambda: validate.flag(observation, targets, quote, agent)), self._config),
            lambda done: {"stored": True, "targets": list(done.memory.metadata.get("targets", [])),
                          "anchored": bool(done.memory.metadata.get("targets")
                                           or done.memory.metadata.get("quote")),
                          "memory_id": done.memory.id})

    def _memory_from_record(self, record: dict[str, Any], agent: str) -> NewMemory:
        # Checked here, not only in `validate.prepare`: feedback types are valid STM types, but
        # feedback must come through its own tools, which set its metadata and idempotency key.
        allowed = self._config.memory_types
        if record["type"] not in allowed:
            hint = (" (feedback goes through confirm_context or flag_context)"
                    if record["type"] in FEEDBACK_TYPES else "")
            raise InputError(f"type: {record['type']!r} is not an allowed memory type "
                             f"(allowed: {', '.join(allowed)}){hint}")
        key = record.get("idempotency_key")
        if isinstance(key, str) and key.startswith(RESERVED_KEY_PREFIXES):
            raise InputError(f"idempotency_key: keys starting with {', '.join(RESERVED_KEY_PREFIXES)} "
                             "are dreamtui's own (feedback and per-agent keys); choose another key")
        return validate.from_json(record, self._config, default_agent=agent)

    async def _submit(self, build: Callable[[str], NewMemory],
                      result: Callable[[SubmitResult], dict[str, Any]]) -> CallToolResult:
        """Build, validate and store one memory and answer `result` of it; every failure becomes
        an envelope, because a tool must never take the server down."""
        agent = self._agent()
        if agent is None:
            return reply(failure("unauthorized", "no valid bearer token on this request"))
        try:
            memory = build(agent)
            submitted = await anyio.to_thread.run_sync(self._store, memory)
        except InputError as exc:
            return reply(failure(error_code(exc), str(exc)))
        except StoreError as exc:
            logger.error("STM store unavailable: %s", exc)
            return reply(failure("unavailable", f"{self._without_paths(str(exc))} (try again shortly)"))
        except Exception as exc:
            logger.exception("tool call from agent %r failed unexpectedly", agent)
            return reply(failure("internal", f"internal error ({type(exc).__name__}); "
                                             "the server's log has the details"))
        return reply(ok(result(submitted)))

    def _store(self, memory: NewMemory) -> SubmitResult:
        with STMStore.for_workspace(self._workspace) as store:
            return store.submit(memory, per_agent=True)

    def _without_paths(self, message: str) -> str:
        """The agent learns what failed, not where the workspace lives; the server's log has both."""
        stm = self._workspace.stm_path
        return message.replace(str(stm), stm.name).replace(str(self._workspace.root), "the workspace")


def dreamer_schemas(config: Config) -> dict[str, dict[str, Any]]:
    """The three tools' input schemas as Dreamer's server lists them (its mcp_app and feedback
    tools), so a client that reads them finds what it was written for: submit_memory's `type`
    an `enum` of the types an agent may submit, `title` its `maxLength`; the feedback tools'
    slugs Dreamer's pattern and length, no argument beyond those named."""
    slug = {"type": "string", "pattern": f"^{SLUG_PATTERN}$", "maxLength": SLUG_MAX_LEN}
    return {
        "submit_memory": {
            "type": "object", "additionalProperties": False, "required": ["type", "title", "content"],
            "properties": {
                "type": {"type": "string", "enum": sorted(config.memory_types)},
                "title": {"type": "string", "maxLength": config.stm.max_title_chars},
                "content": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}, "default": []},
                "metadata": {"type": "object", "default": {}},
                "idempotency_key": {"type": "string"},
            },
        },
        "confirm_context": {
            "type": "object", "additionalProperties": False, "required": ["target"],
            "properties": {
                "target": {**slug, "description": "The LTM slug from the [mem: <slug>] marker."},
                "note": {"type": "string", "description": "Optional: how the guidance helped."},
            },
        },
        "flag_context": {
            "type": "object", "additionalProperties": False, "required": ["observation"],
            "properties": {
                "observation": {"type": "string", "minLength": 1,
                                "description": "What the context said or implied, and what turned "
                                               "out to be true. Include the evidence."},
                "targets": {"type": "array", "items": slug,
                            "description": "LTM slugs from [mem: <slug>] markers, if known."},
                "quote": {"type": "string", "description": "The misleading text, verbatim."},
            },
        },
    }


# Tools whose arguments are only those their schema names, as Dreamer validates them (its
# submit_memory takes and ignores others: so does this one).
_CLOSED = ("confirm_context", "flag_context")


class DreamtuiMCPServer(MCPServer):
    """An unknown tool, and arguments that fail the tools' schemas, get the same envelope as every
    other refusal, instead of the SDK's free-text tool error. `tools/list` shows Dreamer's input
    schemas for its three tools (`schemas`). `resources/list` also lists each live entry
    (`listed`, set by `intake.mcp_read.register`), which changes with every commit."""

    listed: Callable[[], list[MCPResource]] | None = None
    schemas: dict[str, dict[str, Any]] | None = None

    async def list_resources(self) -> list[MCPResource]:
        static = await super().list_resources()
        return static if self.listed is None else [*static, *await anyio.to_thread.run_sync(self.listed)]

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        schemas = self.schemas or {}
        return [tool.model_copy(update={"input_schema": schemas[tool.name]}) if tool.name in schemas
                else tool for tool in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        known = [tool.name for tool in await self.list_tools()]
        if name not in known:
            # Its own code, not invalid_args: no change to the arguments makes this call work.
            # The name is not echoed: like every rejected value, it is the caller's data.
            return reply(failure("unknown_tool", f"no such tool; this server's tools are "
                                                 f"{', '.join(known)}"))
        if name in _CLOSED and self.schemas is not None:
            allowed = self.schemas[name]["properties"]
            unexpected = sorted(str(key)[:40] for key in arguments if key not in allowed)
            if unexpected:
                return reply(failure("invalid_args", f"{name}: additional properties are not allowed "
                                                     f"({', '.join(unexpected)}; known: "
                                                     f"{', '.join(allowed)})"))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            # Field names and rules only: the rejected values are the caller's data.
            problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                                 for err in cause.errors())
            return reply(failure("invalid_args", f"{name}: {problems}"))


def build_server(workspace: Workspace, agent: Callable[[], str | None],
                 token_verifier: WorkspaceTokenVerifier | None = None,
                 issuer_url: str | None = None) -> MCPServer:
    """The server with its three tools; `token_verifier` (with `issuer_url`) turns on bearer auth."""
    auth = AuthSettings(issuer_url=issuer_url, resource_server_url=None) if token_verifier else None
    server = DreamtuiMCPServer(SERVER_NAME, instructions=INSTRUCTIONS, token_verifier=token_verifier,
                               auth=auth)
    server.schemas = dreamer_schemas(workspace.config)
    tools = MemoryTools(workspace, agent)
    stm = workspace.config.stm
    server.add_tool(tools.submit_memory, name="submit_memory",
                    description=SUBMIT_DESCRIPTION.format(title_chars=stm.max_title_chars,
                                                          content_bytes=stm.max_content_bytes,
                                                          types=", ".join(workspace.config.memory_types)),
                    annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    server.add_tool(tools.confirm_context, name="confirm_context", description=CONFIRM_DESCRIPTION,
                    annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=True,
                                                open_world_hint=False))
    server.add_tool(tools.flag_context, name="flag_context", description=FLAG_DESCRIPTION,
                    annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    from dreamtui.intake import mcp_read  # it uses this module's envelope helpers

    reader = mcp_read.register(server, workspace)
    server.listed = reader.entry_resources
    tools.known_target = reader.unknown_target
    return server


def serve_stdio(workspace: Workspace, agent: str = DEFAULT_STDIO_AGENT) -> None:
    """Serve over stdin/stdout until the client closes stdin. The SDK points fd 1 at stderr while
    it serves, so stray output from anything in the process cannot corrupt the protocol."""
    if not agent.strip():
        raise InputError("--agent: must not be empty")
    server = build_server(workspace, agent=lambda: agent)
    logger.info("dreamtui MCP server on stdio, workspace %s, agent %r", workspace.root, agent)
    anyio.run(server.run_stdio_async)


def base_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


# -- HTTP: Host and Origin -------------------------------------------------------------------------

# Loopback addresses a bind answers on besides its own, so local clients may use either usual URL.
_ALSO_LOCAL: dict[str, tuple[str, ...]] = {"localhost": ("127.0.0.1", "::1"),
                                           "0.0.0.0": ("127.0.0.1",), "::": ("::1",)}
_WILDCARDS = frozenset({"0.0.0.0", "::"})  # no client names these in a Host header
_HOST_NAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _allowed_name(entry: str) -> str:
    name = entry[1:-1] if entry.startswith("[") and entry.endswith("]") else entry
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        if _HOST_NAME.fullmatch(name):
            return name
    raise InputError(f"allowed host {entry!r}: expected a host name or address without a port "
                     "(e.g. devbox.lan or 192.168.1.20); the port is always the server's")


def _host_value(name: str, port: int) -> str:
    """What a client's Host header holds for http://name:port/ (no port when it is HTTP's own)."""
    host = f"[{name}]" if ":" in name else name
    return host if port == 80 else f"{host}:{port}"


def allowed_hosts(bind: str, port: int, names: Sequence[str]) -> list[str]:
    """The exact Host values the server answers to: its bind address, localhost, and `names`.

    Binding beyond loopback needs `names`: only the person starting the server knows which names
    reach it over the network, and naming them makes exposing it a deliberate step.
    """
    if not is_loopback(bind) and not names:
        raise InputError(f"--host {bind}: listening beyond this machine needs the host names "
                         "clients will use (--allow-host NAME, or mcp.allowed_hosts in "
                         "dreamtui.yaml); every other Host header is refused")
    own = [] if bind in _WILDCARDS else [bind]
    candidates = ["localhost", *_ALSO_LOCAL.get(bind, ()), *own, *map(_allowed_name, names)]
    return list(dict.fromkeys(_host_value(name, port) for name in candidates))


def transport_security(bind: str, port: int, names: Sequence[str]) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding check, always on and exact: no entry ends in the SDK's `:*`
    wildcard, which is a prefix match (it took `127.0.0.1:evil.example` for `127.0.0.1:*`)."""
    hosts = allowed_hosts(bind, port, names)
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=[f"http://{host}" for host in hosts])


# -- HTTP: sessions and the access log -----------------------------------------------------------


@dataclass
class _Session:
    owner: str  # SHA-256 of the Authorization header that opened it
    in_flight: int = 0
    idle_since: float = 0.0  # anyio.current_time() when its last request ended


async def _serve_watching(app: ASGIApp, scope: Scope, receive: Receive, send: Send,
                          on_start: Callable[[Message], None]) -> None:
    """Run `app` for one request, showing `on_start` its response's first message."""
    async def watch(message: Message) -> None:
        if message["type"] == "http.response.start":
            on_start(message)
        await send(message)

    await app(scope, receive, watch)


class SessionQuota:
    """At most `per_token` open sessions per bearer token, so one token cannot take the SDK's
    session table (10,000 by default) from every other agent.

    It follows sessions by the protocol itself: an `initialize` answered with an Mcp-Session-Id
    opens one for the Authorization header it came with; a DELETE, a 404 (the SDK no longer has
    it) or `idle_seconds` with no request in flight — the SDK's own idle rule, given the same
    value, so a session is never counted gone before the SDK has ended it — closes it. A request
    without a session id is an opening one while it runs, so a burst of them is held to the same
    cap (a stateless request of a newer protocol revision holds a place only while it runs). At
    the cap, a new one is refused with 429 and a Retry-After; other tokens are untouched.
    """

    def __init__(self, app: ASGIApp, *, path: str, per_token: int, idle_seconds: float) -> None:
        self._app = app
        self._path = path
        self._per_token = per_token
        self._idle_seconds = idle_seconds
        self._sessions: dict[str, _Session] = {}
        self._opening: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Only the MCP endpoint holds sessions; without a credential the bearer middleware refuses.
        headers = Headers(scope=scope) if scope["type"] == "http" else None
        credential = headers.get("authorization") if headers is not None else None
        if headers is None or credential is None or scope["path"] != self._path:
            await self._app(scope, receive, send)
            return
        owner = hashlib.sha256(credential.encode("latin-1")).hexdigest()
        session_id = headers.get(MCP_SESSION_ID_HEADER)
        if session_id is None:
            await self._open(owner, scope, receive, send)
        else:
            await self._use(owner, session_id, scope, receive, send)

    async def _open(self, owner: str, scope: Scope, receive: Receive, send: Send) -> None:
        now = anyio.current_time()
        self._expire(now)
        held = sum(1 for s in self._sessions.values() if s.owner == owner) + self._opening.get(owner, 0)
        if held >= self._per_token:
            logger.warning("refused a new session to a token that holds %d (mcp.max_sessions_per_token)",
                           held)
            await self._refusal(owner, now)(scope, receive, send)
            return
        self._opening[owner] = self._opening.get(owner, 0) + 1
        opened: list[_Session] = []

        def on_start(message: Message) -> None:
            session_id = Headers(raw=message.get("headers", [])).get(MCP_SESSION_ID_HEADER)
            if message["status"] < 400 and session_id is not None:
                # Open from now on: the client may use the id before this response ends.
                opened.append(_Session(owner, in_flight=1))
                self._sessions[session_id] = opened[0]
                self._stop_opening(owner)

        try:
            await _serve_watching(self._app, scope, receive, send, on_start)
        finally:
            if opened:
                self._ended(opened[0])
            else:
                self._stop_opening(owner)

    async def _use(self, owner: str, session_id: str, scope: Scope, receive: Receive,
                   send: Send) -> None:
        session = self._sessions.get(session_id)
        if session is None or session.owner != owner:
            await self._app(scope, receive, send)  # the SDK answers 404: nothing to count
            return
        session.in_flight += 1
        statuses: list[int] = []
        try:
            await _serve_watching(self._app, scope, receive, send,
                                  lambda message: statuses.append(message["status"]))
        finally:
            self._ended(session)
            status = statuses[0] if statuses else 0
            if status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300):
                self._sessions.pop(session_id, None)

    def _stop_opening(self, owner: str) -> None:
        self._opening[owner] -= 1
        if not self._opening[owner]:
            del self._opening[owner]

    def _ended(self, session: _Session) -> None:
        session.in_flight -= 1
        session.idle_since = anyio.current_time()

    def _expire(self, now: float) -> None:
        gone = [sid for sid, s in self._sessions.items()
                if not s.in_flight and now - s.idle_since >= self._idle_seconds]
        for session_id in gone:
            del self._sessions[session_id]

    def _refusal(self, owner: str, now: float) -> Response:
        waits = [s.idle_since + self._idle_seconds - now for s in self._sessions.values()
                 if s.owner == owner and not s.in_flight]
        retry = max(1, math.ceil(min(waits, default=self._idle_seconds)))
        message = (f"this token already holds {self._per_token} open sessions, the most one token "
                   "may (mcp.max_sessions_per_token): end one with DELETE, or retry after an idle "
                   f"one closes ({self._idle_seconds:g} s without a request, mcp.session_idle_seconds)")
        body = JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message=message))
        return Response(body.model_dump_json(by_alias=True, exclude_unset=True), status_code=429,
                        media_type="application/json", headers={"Retry-After": str(retry)})


class TrailingSlash:
    """`/mcp/`, where Dreamer serves MCP, answered as `/mcp` itself rather than with a 307: a
    client configured with Dreamer's URL works unchanged, and one that will not follow a POST's
    redirect (or drops its Authorization header on one) is not lost."""

    def __init__(self, app: ASGIApp, *, path: str) -> None:
        self._app = app
        self._path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == self._path + "/":
            scope = {**scope, "path": self._path, "raw_path": self._path.encode("ascii")}
        await self._app(scope, receive, send)


class AccessLog:
    """One line per request with the path only: uvicorn's own access log writes the query string,
    where a client may have put its token."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        statuses: list[int] = []
        try:
            await _serve_watching(self._app, scope, receive, send,
                                  lambda message: statuses.append(message["status"]))
        finally:
            client = scope.get("client")
            access_logger.info('%s - "%s %s" %s', f"{client[0]}:{client[1]}" if client else "-",
                               scope["method"], scope["path"], statuses[0] if statuses else "-")


def serve_http(workspace: Workspace, host: str, port: int, allowed: Sequence[str] = ()) -> None:
    """Serve streamable HTTP at `HTTP_PATH`; every request needs a live bearer token and a Host
    header naming the bind address, localhost or one of `allowed`."""
    security = transport_security(host, port, allowed)
    sockets = listen(host, port)  # first: a busy port is the whole message, not after warnings
    if not tokens.any_live(workspace.stm_path, busy_timeout_ms=workspace.config.stm.busy_timeout_ms):
        logger.warning("no live tokens: every request will get 401 until you run "
                       "`dreamtui token create NAME`")
    if not is_loopback(host):
        logger.warning("listening on %s, beyond this machine: anyone who reaches it with a token "
                       "can submit memories", host)
    url = base_url(host, port)
    config = workspace.config.mcp
    server = build_server(workspace, agent=http_agent, token_verifier=WorkspaceTokenVerifier(workspace),
                          issuer_url=url)
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, transport_security=security,
                                     session_idle_timeout=config.session_idle_seconds)
    gated = AccessLog(TrailingSlash(SessionQuota(app, path=HTTP_PATH, per_token=config.max_sessions_per_token,
                                                 idle_seconds=config.session_idle_seconds), path=HTTP_PATH))
    logger.info("dreamtui MCP server on %s%s (Host %s), workspace %s", url, HTTP_PATH,
                ", ".join(security.allowed_hosts), workspace.root)
    # log_config=None: uvicorn's loggers propagate to our stderr handler (its default config would
    # send access lines to stdout); access_log=False: AccessLog writes those lines instead.
    try:
        uvicorn.Server(uvicorn.Config(gated, log_config=None, access_log=False)).run(sockets=sockets)
    finally:
        for sock in sockets:
            sock.close()


class ServeError(DreamtuiError):
    """The server cannot listen where it was asked to (the port is taken, the address is not
    this machine's): exit 1 with one line, never uvicorn's log and its exit code 3."""

    exit_code = EXIT_FAILED


def listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound on every address `host` names (localhost: IPv4 and IPv6), as uvicorn would
    bind them, or ServeError. Bound here so that a failure is dreamtui's message."""
    where = base_url(host, port)
    try:
        addresses = dict.fromkeys(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                     flags=socket.AI_PASSIVE))
    except socket.gaierror as exc:
        raise ServeError(f"cannot listen on {where}: {exc.strerror} (check --host or mcp.host)") from None
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _name, address in addresses:
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # as asyncio does: the IPv4 address has its own socket
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        reason = (exc.strerror or str(exc)).lower()
        hint = "; is another server on it? choose another with --port or mcp.port" \
            if exc.errno == errno.EADDRINUSE else " (check --host or mcp.host)"
        raise ServeError(f"cannot listen on {where}: {reason}{hint}") from None
    return sockets
