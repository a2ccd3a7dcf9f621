"""`dreamtui mcp`: agents submit memories and feedback over MCP (stdio, or streamable HTTP).

The tools match the Dreamer server's (`submit_memory`, `confirm_context`, `flag_context`) and
every reply is a JSON envelope, `{"ok": true, "result": …}` or
`{"ok": false, "error": "<code>", "message": …}`, so an agent can act on the code. Every
submission passes `intake.validate` (limits, redaction, safety marks) before it reaches STM.

Over HTTP every request must carry `Authorization: Bearer <token>` (see `dreamtui.store.tokens`); the
SDK's own bearer middleware asks `WorkspaceTokenVerifier` on each request, so a revoked token
stops working at once, and the token's name becomes the memories' agent id.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
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
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from dreamtui.errors import InputError, StoreError
from dreamtui.intake import validate
from dreamtui.model import FEEDBACK_TYPES, NewMemory, iso_z
from dreamtui.store import tokens
from dreamtui.store.stm import STMStore, SubmitResult
from dreamtui.workspace.layout import Workspace

logger = logging.getLogger(__name__)

SERVER_NAME = "dreamtui"
HTTP_PATH = "/mcp"
DEFAULT_STDIO_AGENT = "mcp"

INSTRUCTIONS = """\
dreamtui collects what coding agents learn about this project. A human reviews every \
submission before it reaches the shared context (AGENTS.md). Guidance in that context ends \
with a [mem: <slug>] marker: call confirm_context with the slug when it helped, flag_context \
with what you observed when it was wrong, and submit_memory for a new lesson worth keeping. \
Never send secrets."""

SUBMIT_DESCRIPTION = """\
Save one lesson about this project for future coding sessions. Submit only what a future \
session could not work out in seconds from the code, the docs or one command: a non-obvious \
fix, a trap, an undocumented convention, an environment quirk. Report a failure's root cause \
and its fix together in ONE memory (symptom, cause, fix), never as separate memories. Title: \
the lesson in a few words (at most {title_chars} characters). Content: the specifics - exact \
command, path, setting or error text (at most {content_bytes} bytes). Never include secrets \
(keys, tokens, passwords, credentials in URLs): they are redacted on receipt, which leaves the \
memory useless. Allowed types: {types}. For feedback on existing guidance use confirm_context \
or flag_context instead. Replies are {{"ok": true, "result": {{"id": ..., "created": ...}}}} or \
{{"ok": false, "error": "<code>", "message": ...}}."""

CONFIRM_DESCRIPTION = """\
Report that guidance marked [mem: <slug>] in your context (AGENTS.md, CLAUDE.md) helped with \
this task. target is the slug inside the marker: for [mem: test-db-reset] pass \
"test-db-reset". One confirmation per agent, slug and day counts; repeating it is harmless \
(created: false). Confirmed guidance is kept and ranked higher."""

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
    """The envelope as JSON text (what every client shows the model) and as structured content;
    a refusal is marked as a tool error so clients surface it as one."""
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(envelope))],
                          structured_content=envelope, is_error=not envelope["ok"])


def error_code(exc: InputError) -> str:
    """Map a validation message to the code agents branch on; messages start with the field."""
    message = str(exc)
    field = message.split(":", 1)[0]
    if field == "type" and "not an allowed memory type" in message:
        return "type_not_allowed"
    if field in ("title", "content") and "at most" in message:
        return "too_large"
    return "invalid_args"


def _describe(submitted: SubmitResult) -> dict[str, Any]:
    memory = submitted.memory
    return {
        "id": memory.id,
        "created": submitted.created,  # false: the idempotency key matched an earlier submission
        "type": memory.type,
        "title": memory.title,
        "agent_id": memory.agent_id,
        "submitted_at": iso_z(memory.submitted_at),
        "redacted": list(memory.extra.get("redacted", ())),
        "safety": list(memory.safety),
    }


def _naming(argument: str, build: Callable[[], NewMemory]) -> NewMemory:
    """`validate_slug` raises a bare ValueError; name the argument the bad slug came in."""
    try:
        return build()
    except ValueError as exc:
        raise InputError(f"{argument}: {exc}") from None


class WorkspaceTokenVerifier:
    """The SDK's `TokenVerifier` over the workspace's token table; the client id is the name."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    async def verify_token(self, token: str) -> AccessToken | None:
        check = partial(tokens.verify, self._workspace.stm_path, token,
                        busy_timeout_ms=self._workspace.config.stm.busy_timeout_ms)
        try:
            # In a worker thread: a busy database must not stall every other connection.
            name = await anyio.to_thread.run_sync(check)
        except StoreError as exc:
            logger.error("cannot check a bearer token: %s", exc)
            return None
        return AccessToken(token=token, client_id=name, scopes=[]) if name else None


def http_agent() -> str | None:
    """Over HTTP the agent is the name of the token the SDK's middleware accepted."""
    token = get_access_token()
    return token.client_id if token else None


class MemoryTools:
    """The three tools. Each call opens a short-lived STM store in a worker thread, so the
    server holds no connection between calls and shares the database with the TUI and dreams."""

    def __init__(self, workspace: Workspace, agent: Callable[[], str | None]) -> None:
        self._workspace = workspace
        self._config = workspace.config
        self._agent = agent

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
        return await self._submit(partial(self._memory_from_record, record))

    async def confirm_context(
        self,
        target: Annotated[str, Field(description="The slug from the [mem: <slug>] marker.")],
        note: Annotated[str | None, Field(description="Optional: how it helped.")] = None,
    ) -> CallToolResult:
        return await self._submit(lambda agent: validate.prepare(
            _naming("target", lambda: validate.confirmation(target, agent, note)), self._config))

    async def flag_context(
        self,
        observation: Annotated[str, Field(description="What you actually observed: the error, "
                                                      "the real value, what worked.")],
        targets: Annotated[list[str] | None, Field(description="Slugs from the [mem: <slug>] "
                                                               "markers of the wrong guidance.")] = None,
        quote: Annotated[str | None, Field(description="The misleading text, quoted.")] = None,
    ) -> CallToolResult:
        return await self._submit(lambda agent: validate.prepare(
            _naming("targets", lambda: validate.flag(observation, targets, quote, agent)), self._config))

    def _memory_from_record(self, record: dict[str, Any], agent: str) -> NewMemory:
        # Checked here, not only in `validate.prepare`: feedback types are valid STM types, but
        # feedback must come through its own tools, which set its metadata and idempotency key.
        allowed = self._config.memory_types
        if record["type"] not in allowed:
            hint = (" (feedback goes through confirm_context or flag_context)"
                    if record["type"] in FEEDBACK_TYPES else "")
            raise InputError(f"type: {record['type']!r} is not an allowed memory type "
                             f"(allowed: {', '.join(allowed)}){hint}")
        return validate.from_json(record, self._config, default_agent=agent)

    async def _submit(self, build: Callable[[str], NewMemory]) -> CallToolResult:
        """Build, validate and store one memory; every failure becomes an envelope, because a
        tool must never take the server down."""
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
            return reply(failure("unavailable", f"{exc} (try again shortly)"))
        except Exception as exc:
            logger.exception("tool call from agent %r failed unexpectedly", agent)
            return reply(failure("internal", f"internal error ({type(exc).__name__}); "
                                             "the server's log has the details"))
        return reply(ok(_describe(submitted)))

    def _store(self, memory: NewMemory) -> SubmitResult:
        with STMStore.for_workspace(self._workspace) as store:
            return store.submit(memory)


class DreamtuiMCPServer(MCPServer):
    """Arguments that fail the tools' schemas get the same envelope as every other refusal,
    instead of the SDK's free-text tool error."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
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


def serve_http(workspace: Workspace, host: str, port: int) -> None:
    """Serve streamable HTTP at `HTTP_PATH`; every request needs a live bearer token."""
    if not any(t.live for t in tokens.list_tokens(workspace.stm_path,
                                                  busy_timeout_ms=workspace.config.stm.busy_timeout_ms)):
        logger.warning("no live tokens: every request will get 401 until you run "
                       "`dreamtui token create NAME`")
    if host not in ("127.0.0.1", "localhost", "::1"):
        logger.warning("listening on %s, beyond this machine: anyone who reaches it with a token "
                       "can submit memories", host)
    url = base_url(host, port)
    server = build_server(workspace, agent=http_agent, token_verifier=WorkspaceTokenVerifier(workspace),
                          issuer_url=url)
    app = server.streamable_http_app(host=host, streamable_http_path=HTTP_PATH)
    logger.info("dreamtui MCP server on %s%s, workspace %s", url, HTTP_PATH, workspace.root)
    # log_config=None: uvicorn's loggers propagate to our stderr handler (its default config would
    # send access lines to stdout).
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=None)).run()
