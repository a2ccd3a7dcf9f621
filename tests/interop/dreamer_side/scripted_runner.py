"""A stand-in for the Claude agent in Dreamer's dream runtime (imported by Dreamer, on Python 3.12).

Dreamer's `ClaudeAgentDreamEngine` hands a sandbox to a `ClaudeAgentRunner`; its own tests swap
the runner for a fake the same way. This one does what a model would do, deterministically: in
the LTM phase it writes one topic per inbox memory (Dreamer's frontmatter, the memory's content
as the body), in the context phase an AGENTS.md naming every topic. `delay_seconds` keeps the
dream (and its lease) running long enough for a test to act while it is under way; the runner
touches `started_file` first, so the test knows when that is.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from pathlib import Path

import yaml
from dreamer.contrib.dream._local import AgentRunResult, ClaudeAgentRunner


def _kebab(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "untitled"


def _read_memory(path: Path) -> tuple[dict[str, object], str]:
    text = path.read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front) or {}, body.strip()


class ScriptedRunner(ClaudeAgentRunner):
    name = "scripted"

    def __init__(self, *, delay_seconds: float = 0.0, started_file: str | None = None) -> None:
        self.delay_seconds = float(delay_seconds)
        self.started_file = Path(started_file) if started_file else None

    async def run(self, *, prompt: str, sandbox: Path, timeout_seconds: float,
                  env: Mapping[str, str] | None = None) -> AgentRunResult:
        if self.started_file is not None:
            self.started_file.write_text("started\n", encoding="utf-8")
        if (sandbox / "inbox").is_dir():
            self._ltm(sandbox)
        else:
            self._context(sandbox)
        if self.delay_seconds:
            await asyncio.sleep(self.delay_seconds)
        return AgentRunResult(tokens_in=0, tokens_out=0)

    @staticmethod
    def _ltm(sandbox: Path) -> None:
        topics = sandbox / "memory" / "topics"
        topics.mkdir(parents=True, exist_ok=True)
        for path in sorted((sandbox / "inbox").glob("*.md")):
            meta, body = _read_memory(path)
            title = str(meta.get("title") or "untitled")
            slug = _kebab(title)
            front = {"title": title, "slug": slug, "type": "topic", "tags": list(meta.get("tags") or []),
                     "created_at": "2026-11-30T00:00:00Z", "updated_at": "2026-11-30T00:00:00Z",
                     "related": [], "sources": [f"stm:{meta.get('id')}"]}
            text = f"---\n{yaml.safe_dump(front, sort_keys=False)}---\n\n{body}\n"
            (topics / f"{slug}.md").write_text(text, encoding="utf-8")

    @staticmethod
    def _context(sandbox: Path) -> None:
        topics = sorted((sandbox / "memory" / "topics").glob("*.md"))
        lines = ["# Guidance", ""] + [f"- see {p.stem} [mem: {p.stem}]" for p in topics]
        (sandbox / "context").mkdir(parents=True, exist_ok=True)
        (sandbox / "context" / "AGENTS.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
