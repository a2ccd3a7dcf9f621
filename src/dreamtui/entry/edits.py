"""Frontmatter edits on an entry's text: set keys, retire an entry into archive/, bring it back.

Each edit changes only the keys it names; every other line of the file is kept byte for byte
(see `render_entry`), so a person's comments and layout survive a pin, an archive or a restore.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from dreamtui.entry.codec import parse_entry, render_entry
from dreamtui.model import Entry

# The keys an entry carries while it stands under archive/.
RETIREMENT_KEYS = ("retired_at", "retired_reason", "superseded_by")


def with_meta(text: str, path: str, changes: dict[str, Any]) -> str:
    """`text` with frontmatter keys set, every untouched line kept byte for byte."""
    entry = parse_entry(text, path)
    meta = dict(entry.meta)
    meta.update(changes)
    return render_entry(meta, entry.body, original=entry)


def retire_text(text: str, path: str, now: datetime, reason: str, superseded_by: str | None) -> str:
    """The text an entry stands with under archive/: its retirement keys set."""
    keys: dict[str, Any] = {"retired_at": now, "retired_reason": reason}
    if superseded_by:
        keys["superseded_by"] = superseded_by
    return with_meta(text, path, keys)


def unretired_text(entry: Entry) -> str:
    """An archived entry's text without its retirement keys, every other line kept byte for byte."""
    meta = {key: value for key, value in entry.meta.items() if key not in RETIREMENT_KEYS}
    return render_entry(meta, entry.body, original=entry)
