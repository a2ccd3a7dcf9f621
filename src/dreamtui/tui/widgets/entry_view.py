"""An LTM entry, and the provenance beside it: sources, bundle line, LOG.md history, feedback."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.text import Text

from dreamtui.model import Entry, Memory, iso_z
from dreamtui.safety.marks import display_text
from dreamtui.tui.formatting import ago, fit, parse_iso, short_id, stamp
from dreamtui.vocabulary import counted

_META_SHOWN = ("type", "tags", "importance", "created_at", "updated_at", "confirmations",
               "last_confirmed", "flags", "last_flagged", "related", "retired_at", "retired_reason",
               "superseded_by")


def entry_text(entry: Entry) -> Text:
    text = Text()
    text.append(entry.title, "bold")
    text.append(f"\n{entry.path}", "dim")
    for key in _META_SHOWN:
        value = entry.meta.get(key)
        if value in (None, "", [], ()):
            continue
        if isinstance(value, datetime):
            shown = iso_z(value)
        elif isinstance(value, (list, tuple)):
            shown = ", ".join(str(v) for v in value)
        else:
            shown = str(value)
        text.append(f"\n{key}: ", "dim")
        text.append(display_text(shown))
    text.append("\n\n")
    text.append(display_text(entry.body.strip()))
    return text


def confirmations_line(entry: Entry, on_record: int) -> str:
    """`4 confirmations counted, 2 on record`: the entry's own counter, then the confirmation
    memories still in the queue (the Memory and Flags views say it alike)."""
    return f"{counted(entry.confirmations, 'confirmation')} counted, {on_record or 'none'} on record"


def feedback_text(text: Text, memory: Memory, now: datetime) -> None:
    """One flag or confirmation: who, when, the quoted text and the observation."""
    text.append(f"  {memory.agent_id} · {ago(memory.submitted_at, now)} · {memory.state}", "dim")
    quote = memory.metadata.get("quote")
    if quote:
        text.append(f" · quoted \"{display_text(str(quote))}\"")
    if memory.content.strip():
        text.append(f"\n    {display_text(memory.content.strip())}")
    text.append("\n")


def provenance_text(entry: Entry, *, sources: Sequence[Memory] | None, missing: Sequence[str],
                    bundle_lines: Sequence[tuple[int, str]], log: Sequence[str],
                    flags: Sequence[Memory], confirmations: Sequence[Memory], now: datetime) -> Text:
    text = Text()
    text.append("in AGENTS.md\n", "bold")
    if bundle_lines:
        for number, line in bundle_lines:
            text.append(f"  line {number}: ", "dim")
            text.append(f"{display_text(line)}\n")
    else:
        text.append("  not in the bundle\n" if not entry.archived else "  archived: not in the bundle\n", "dim")

    text.append(f"\nsources ({len(entry.sources)})\n", "bold")
    if sources is None:
        text.append("  resolving…\n", "dim")
    else:
        for memory in sources:
            text.append(f"  stm:{short_id(memory.id)} ", "dim")
            text.append(f"{memory.type} · {memory.agent_id} · {stamp(memory.submitted_at)}\n", "dim")
            text.append(f"    {fit(display_text(memory.title), 200)}\n")
        for memory_id in missing:
            text.append(f"  stm:{short_id(memory_id)} no longer in the queue (purged)\n", "dim")

    text.append(f"\nflags ({len(flags)})\n", "bold")
    for memory in flags:
        feedback_text(text, memory, now)
    text.append(f"\n{confirmations_line(entry, len(confirmations))}\n", "bold")
    last = parse_iso(entry.meta.get("last_confirmed"))
    if last is not None:
        text.append(f"  last confirmed {ago(last, now)}\n", "dim")
    for memory in confirmations:
        feedback_text(text, memory, now)

    text.append(f"\nLOG.md ({len(log)})\n", "bold")
    for line in log:
        text.append(f"  {display_text(line.removeprefix('- '))}\n")
    return text
