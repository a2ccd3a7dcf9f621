"""Slugs and paths: the one slug rule, turning titles into slugs, and paths kept inside a root.

A slug names an entry's file and its `[mem: <slug>]` marker in AGENTS.md, so it must be one line
of lowercase words; a relative path from untrusted text must never lead outside the workspace.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

__all__ = [
    "NEW_SLUG_LEN",
    "SLUG_MAX_LEN",
    "SLUG_PATTERN",
    "SLUG_RE",
    "UnsafePathError",
    "is_slug",
    "resolve_inside",
    "slugify",
    "validate_slug",
]


SLUG_MAX_LEN = 200  # what a valid slug may be: a hand-written or older entry keeps its own
# What a new slug may be: a marker in every AGENTS.md line and a file name a person types, so
# the first words of a title, not the whole title (issue 11: 60-character incident slugs).
NEW_SLUG_LEN = 40
# Words a shortened slug does not end on: "flaky-because-of" reads as cut, "flaky" does not.
_DANGLING = frozenset("""
a after an and are as at be because before but by for from if in into is of on or over than that
the to under when while with without
""".split())
# The grammar alone, unanchored, so a search for `[mem: <slug>]` markers inside text uses it too.
SLUG_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
# `\Z`, not `$`: `$` also matches before a trailing newline, which would let "slug\n" through.
SLUG_RE = re.compile(rf"^{SLUG_PATTERN}\Z")


def is_slug(value: object) -> bool:
    """The slug rule: a string of lowercase words joined by single hyphens, at most SLUG_MAX_LEN long."""
    return isinstance(value, str) and len(value) <= SLUG_MAX_LEN and SLUG_RE.match(value) is not None


class UnsafePathError(ValueError):
    """A path that could escape the workspace; the message names the value and the reason."""


def validate_slug(slug: str) -> str:
    """Return `slug` unchanged if it is a valid entry slug, else raise ValueError saying why."""
    if not isinstance(slug, str):
        raise ValueError(f"slug must be a string, got {type(slug).__name__}: {slug!r}")
    if not slug:
        raise ValueError("slug is empty")
    if len(slug) > SLUG_MAX_LEN:
        raise ValueError(
            f"slug {slug[:40]!r}... is {len(slug)} characters; at most {SLUG_MAX_LEN} allowed"
        )
    if not is_slug(slug):
        raise ValueError(
            f"slug {slug!r} is invalid: use lowercase a-z, digits and single hyphens between them"
        )
    return slug


# Letters NFKD does not decompose into ASCII but that have an obvious ASCII spelling.
_ASCII_FOLD = str.maketrans(
    {
        "ß": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o", "ł": "l",
        "Ł": "l", "đ": "d", "Đ": "d", "þ": "th", "Þ": "th", "ð": "d", "ı": "i",
        "'": None, "’": None,  # "don't" -> "dont", not "don-t"
    }
)


def slugify(text: str, max_len: int = NEW_SLUG_LEN) -> str:
    """Turn a title into a valid slug (ASCII-folded, lowercase, hyphenated); never empty.

    A longer title first sheds its function words, the last first, when that alone makes it
    fit: every word that carries the meaning stays ("local-docker-compose-postgres-port-5432",
    not "local-docker-compose-postgres-is-on-port", which lost the port). Otherwise it is cut at
    a word boundary, dropping the function words it would end on. A slug is an id: this only
    names new entries, an existing entry keeps the slug its file has.
    """
    if max_len < 1:
        raise ValueError(f"max_len must be at least 1, got {max_len}")
    limit = min(max_len, SLUG_MAX_LEN)
    folded = unicodedata.normalize("NFKD", text.translate(_ASCII_FOLD))
    ascii_text = folded.encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    if len(slug) > limit:
        slug = _without_function_words(slug, limit)
    if len(slug) > limit:
        cut = slug[:limit]
        # Cut at a word boundary when there is one, so the slug does not end mid-word.
        if slug[limit] != "-" and "-" in cut:
            cut = cut.rsplit("-", 1)[0]
        words = cut.strip("-").split("-")
        while len(words) > 1 and words[-1] in _DANGLING:
            words.pop()
        slug = "-".join(words)
    return slug or "memory"[:limit]


def _without_function_words(slug: str, limit: int) -> str:
    """`slug` without its function words, the last first, once that fits `limit`; unchanged if
    dropping all of them would not (the first words of the title are then a better name)."""
    words = slug.split("-")
    fillers = [n for n, word in enumerate(words) if word in _DANGLING]
    kept = [word for word in words if word not in _DANGLING]
    if not kept or len("-".join(kept)) > limit:
        return slug
    # Dropping the last `count` fillers, fewest first; dropping them all fits (checked above).
    shorter = ("-".join(word for n, word in enumerate(words) if n not in fillers[-count:])
               for count in range(1, len(fillers) + 1))
    return next(candidate for candidate in shorter if len(candidate) <= limit)


_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE_RE = re.compile(r"^[A-Za-z]:")


def resolve_inside(root: Path, relative: str) -> Path:
    """Resolve `root/relative` (following symlinks) and refuse anything that lands outside root."""
    if not isinstance(relative, str):
        raise UnsafePathError(f"path must be a string, got {type(relative).__name__}: {relative!r}")
    if not relative:
        raise UnsafePathError("path is empty")
    if _CONTROL_RE.search(relative):
        raise UnsafePathError(f"path {relative!r} contains a NUL or control character")
    if "\\" in relative:
        raise UnsafePathError(f"path {relative!r} contains a backslash; use '/' separators")
    if relative.startswith("/") or _DRIVE_RE.match(relative):
        raise UnsafePathError(f"path {relative!r} is absolute; it must be relative to {root}")
    if ".." in relative.split("/"):
        raise UnsafePathError(f"path {relative!r} contains a '..' component")
    base = root.resolve()
    try:
        resolved = (base / relative).resolve(strict=False)
    except RuntimeError as exc:  # Python 3.11 reports symlink loops this way
        raise UnsafePathError(f"path {relative!r} runs into a symlink loop") from exc
    if not resolved.is_relative_to(base):
        raise UnsafePathError(
            f"path {relative!r} resolves to {resolved}, outside {base} (via a symlink)"
        )
    return resolved
