"""What agents read over MCP: the bundle and each live entry as resources, and two tools,
`search_memory` and `get_entry`, over the search index (store/search.py).

The bundle carries what every session needs; the rest of the memory — incidents above all, which
the bundle leaves out — stays one `search_memory` away, so a session looks history up when it
meets the problem instead of the bundle carrying it. Replies use the server's envelope
(`intake.mcp_server.ok/failure/reply`); a read never changes anything (read-only hints).

Resources: `dreamtui://context/AGENTS.md` (the bundle) and `dreamtui://memory/<slug>` (one live
entry's file as it is on disk), every live entry listed by `resources/list`.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import FunctionResource
from mcp_types import CallToolResult, ToolAnnotations
from mcp_types import Resource as MCPResource
from pydantic import Field

from dreamtui.errors import InputError, StoreError
from dreamtui.intake import validate
from dreamtui.intake.mcp_server import failure, ok, reply
from dreamtui.model import Entry
from dreamtui.review.bundle import find_markers
from dreamtui.store.search import MAX_LIMIT, SearchIndex
from dreamtui.workspace.layout import Workspace

logger = logging.getLogger(__name__)

BUNDLE_URI = "dreamtui://context/AGENTS.md"
ENTRY_URI = "dreamtui://memory/{slug}"
MARKDOWN = "text/markdown"

SEARCH_DESCRIPTION = f"""\
Search this project's curated memory: every live entry, including incidents (what broke, why, \
how it was fixed) that AGENTS.md does not carry. Use it when you meet an error, a flaky step or \
an unfamiliar part of the project: "postgres connection refused in CI", "staging deploy \
rollback". Words are matched stemmed, best matches first. limit: 1-{MAX_LIMIT} (default 10). \
Each result has slug, title, type, path, tags, snippet (matched words in [brackets]) and \
in_bundle (already in AGENTS.md); read one whole with get_entry. Replies are \
{{"ok": true, "result": {{"results": [...]}}}} or {{"ok": false, "error": "<code>", "message": ...}}."""

GET_DESCRIPTION = """\
Read one live memory entry whole: its markdown (frontmatter and body), title, type, tags and \
whether AGENTS.md carries it. slug: the entry's slug, as search_memory returns it or as a \
[mem: <slug>] marker names it (the marker itself is accepted)."""


def _in_bundle(workspace: Workspace) -> set[str]:
    try:
        return set(find_markers(workspace.agents_md.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        return set()


def entry_uri(slug: str) -> str:
    return ENTRY_URI.format(slug=slug)


class MemoryReader:
    """The read tools and resources of one workspace. Each call runs in a worker thread and opens
    the index afresh, so the server holds nothing between calls and sees every commit at once."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace
        self._index = SearchIndex.for_workspace(workspace)

    # -- tools --------------------------------------------------------------------------------

    async def search_memory(
        self,
        query: Annotated[str, Field(description="What you are looking for, in plain words.")],
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Most results to return.")] = 10,
    ) -> CallToolResult:
        if not query.strip():
            return reply(failure("invalid_args", "query: must contain at least one word"))
        return await self._answer(lambda: self._search(query, limit))

    async def get_entry(
        self,
        slug: Annotated[str, Field(description="The entry's slug, e.g. ci-ports.")],
    ) -> CallToolResult:
        try:
            wanted = validate.target_slug("slug", slug)
        except InputError as exc:
            return reply(failure("invalid_args", str(exc)))
        return await self._answer(lambda: self._entry_reply(wanted))

    def _search(self, query: str, limit: int) -> dict[str, Any]:
        bundled = _in_bundle(self._workspace)
        hits = self._index.search(query, limit)
        return ok({"results": [{**hit.to_dict(), "in_bundle": hit.slug in bundled,
                                "uri": entry_uri(hit.slug)} for hit in hits]})

    def _entry_reply(self, slug: str) -> dict[str, Any]:
        entry = self._index.entry(slug)
        if entry is None:
            return failure("not_found", no_entry_message("slug"))
        return ok(self._describe(entry))

    def _describe(self, entry: Entry) -> dict[str, Any]:
        return {"slug": entry.slug, "title": entry.title, "type": entry.kind, "path": entry.path,
                "tags": list(entry.tags), "in_bundle": entry.slug in _in_bundle(self._workspace),
                "uri": entry_uri(entry.slug), "markdown": entry.raw}

    async def _answer(self, work: Any) -> CallToolResult:
        try:
            envelope = await anyio.to_thread.run_sync(work)
        except StoreError as exc:
            logger.error("search index unavailable: %s", exc)
            return reply(failure("unavailable", "the memory index cannot be read right now "
                                                "(try again shortly)"))
        except Exception as exc:
            logger.exception("a read tool failed unexpectedly")
            return reply(failure("internal", f"internal error ({type(exc).__name__}); "
                                             "the server's log has the details"))
        return reply(envelope)

    # -- feedback on entries ----------------------------------------------------------------

    def unknown_target(self, target: str) -> str | None:
        """The refusal for a confirmation whose target names no live entry, else None (an
        invalid slug is left to the submission's own check, which names the rule)."""
        try:
            slug = validate.target_slug("target", target)
        except InputError:
            return None
        return None if self._index.path_of(slug) is not None else no_entry_message("target")

    # -- resources ----------------------------------------------------------------------------

    def bundle(self) -> str:
        try:
            return self._workspace.agents_md.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ResourceError("no bundle yet: AGENTS.md is written by the first commit") from None
        except (OSError, UnicodeDecodeError) as exc:
            logger.error("cannot read the bundle: %s", exc)
            raise ResourceError("the bundle cannot be read right now") from None

    def entry_text(self, slug: str) -> str:
        try:
            entry = self._index.entry(validate.target_slug("slug", slug))
        except InputError as exc:
            raise ResourceError(str(exc)) from None
        except StoreError as exc:
            logger.error("search index unavailable: %s", exc)
            raise ResourceError("the memory index cannot be read right now") from None
        if entry is None:
            raise ResourceError(no_entry_message("slug"))
        return entry.raw

    def entry_resources(self) -> list[MCPResource]:
        return [MCPResource(uri=entry_uri(slug), name=slug, title=title, mime_type=MARKDOWN,
                            description=f"{kind} entry of the curated memory")
                for slug, title, kind in self._index.slugs()]


def no_entry_message(argument: str) -> str:
    # The value is not echoed: like every rejected value, it is the caller's data.
    return (f"{argument}: no live memory entry has this slug (it may have been archived or "
            "renamed); search_memory finds entries by their words")


def register(server: MCPServer, workspace: Workspace) -> MemoryReader:
    """Add the read tools and resources to `server`; returns the reader, whose `entry_resources`
    the server lists beside its static resources and whose `unknown_target` checks confirmations."""
    reader = MemoryReader(workspace)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)
    server.add_tool(reader.search_memory, name="search_memory", description=SEARCH_DESCRIPTION,
                    annotations=read_only)
    server.add_tool(reader.get_entry, name="get_entry", description=GET_DESCRIPTION,
                    annotations=read_only)
    server.add_resource(FunctionResource(
        uri=BUNDLE_URI, name="AGENTS.md", title="The project's curated context (AGENTS.md)",
        description="What every coding session of this project should know; lines end in "
                    "[mem: <slug>] markers naming their entries.",
        mime_type=MARKDOWN, fn=reader.bundle))
    server.resource(ENTRY_URI, name="memory-entry", title="A live memory entry",
                    description="One entry's markdown file, frontmatter and body.",
                    mime_type=MARKDOWN)(reader.entry_text)
    return reader
