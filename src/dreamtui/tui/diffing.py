"""Unified-diff hunks with intra-line highlights, computed with difflib for the diff widget.

Kept free of Textual so it can be tested on plain strings. Changed line pairs are compared word
by word (not character by character), so a highlight covers the words a person would call changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

Kind = Literal["hunk", "context", "added", "removed"]
_TOKEN_RE = re.compile(r"\w+|\s+|[^\w\s]")
PAIR_RATIO = 0.4  # below this two lines share too little for word highlights to help


@dataclass(frozen=True)
class DiffLine:
    kind: Kind
    text: str
    spans: tuple[tuple[int, int], ...] = ()  # character ranges that changed within the line


def _range(start: int, length: int) -> str:
    """The `-a,b` / `+c,d` part of a hunk header, as `diff -u` writes it."""
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def _tokens(line: str) -> list[str]:
    return _TOKEN_RE.findall(line)


def _offsets(tokens: list[str]) -> list[int]:
    offsets, position = [0], 0
    for token in tokens:
        position += len(token)
        offsets.append(position)
    return offsets


def word_spans(old: str, new: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]] | None:
    """Changed character ranges in `old` and in `new`, or None when the lines are too different."""
    a, b = _tokens(old), _tokens(new)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < PAIR_RATIO:
        return None
    a_at, b_at = _offsets(a), _offsets(b)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            old_spans.append((a_at[i1], a_at[i2]))
        if j2 > j1:
            new_spans.append((b_at[j1], b_at[j2]))
    return tuple(old_spans), tuple(new_spans)


def _replaced(old: list[str], new: list[str]) -> list[DiffLine]:
    """A replaced block: removed lines then added ones, pairs highlighted word by word."""
    removed = [DiffLine("removed", line) for line in old]
    added = [DiffLine("added", line) for line in new]
    for k in range(min(len(old), len(new))):
        spans = word_spans(old[k], new[k])
        if spans is not None:
            removed[k] = DiffLine("removed", old[k], spans[0])
            added[k] = DiffLine("added", new[k], spans[1])
    return removed + added


def diff_lines(before: str | None, after: str | None, context: int = 3) -> list[DiffLine]:
    """Hunks of `before` → `after` (None counts as an empty text)."""
    a = (before or "").splitlines()
    b = (after or "").splitlines()
    out: list[DiffLine] = []
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        header = f"@@ -{_range(first[1], last[2] - first[1])} +{_range(first[3], last[4] - first[3])} @@"
        out.append(DiffLine("hunk", header))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(DiffLine("context", line) for line in a[i1:i2])
            elif tag == "replace":
                out.extend(_replaced(a[i1:i2], b[j1:j2]))
            elif tag == "delete":
                out.extend(DiffLine("removed", line) for line in a[i1:i2])
            else:
                out.extend(DiffLine("added", line) for line in b[j1:j2])
    return out
