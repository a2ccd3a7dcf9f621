"""Short human forms for times, ids and counts, relative to the app's (injectable) clock."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.cells import cell_len, set_cell_size

MEMORY_TYPE_SHORT = {
    "observation": "observ.",
    "failure": "failure",
    "code_snippet": "snippet",
    "context_confirmed": "confirm",
    "context_flagged": "flag",
}


def age(moment: datetime | None, now: datetime) -> str:
    """'now', '5m', '2h', '3d', '4w', '7mo', '2y' — the width of a list column."""
    if moment is None:
        return ""
    seconds = max(0.0, (now - moment).total_seconds())
    for limit, size, unit in ((60, 1, "s"), (3600, 60, "m"), (86400, 3600, "h"),
                              (14 * 86400, 86400, "d"), (60 * 86400, 7 * 86400, "w"),
                              (730 * 86400, 30 * 86400, "mo")):
        if seconds < limit:
            return "now" if unit == "s" else f"{int(seconds // size)}{unit}"
    return f"{int(seconds // (365 * 86400))}y"


def ago(moment: datetime | None, now: datetime) -> str:
    """'5m ago', or 'just now' (not 'now ago') for the last minute."""
    short = age(moment, now)
    return "just now" if short == "now" else f"{short} ago"


def stamp(moment: datetime | None) -> str:
    """Minute precision in UTC: what the stores keep, and stable across machines."""
    if moment is None:
        return ""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def parse_iso(value: object) -> datetime | None:
    """Frontmatter and changeset times come as datetimes or ISO strings ('…Z')."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def type_short(memory_type: str) -> str:
    return MEMORY_TYPE_SHORT.get(memory_type, memory_type[:8])


def short_id(memory_id: str) -> str:
    return memory_id.removeprefix("stm:")[:8]


def fit(text: str, width: int) -> str:
    """One line of at most `width` cells: newlines folded, an ellipsis where it was cut."""
    line = " ".join(text.split())
    if width <= 0:
        return ""
    return line if cell_len(line) <= width else set_cell_size(line, width - 1) + "…"
