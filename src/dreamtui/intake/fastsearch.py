"""A rule's pattern searched only in the texts that could hold a match.

The miners' rules are alternations of phrases ("command not found|No module named|…",
case-insensitive), run over every failed command's output and every typed turn. Python's `re`
tries each alternative at each position of the text: such a pattern reads a few MB/s, while a
substring test (`in`) reads GB/s. Every match of an alternative holds that alternative's longest
run of plain characters (in "permission denied: \\S", "permission denied: "); a text holding
none of the runs can hold no match, so `searcher` tests the runs first and runs the pattern only
when one is there. The rule is still written once, as its pattern; the runs are read from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# `re`'s own parser: the pattern as `re` itself reads it (groups, escapes, flags, VERBOSE).
from re import _constants as _sre  # type: ignore[attr-defined]
from re import _parser as _sre_parse  # type: ignore[attr-defined]
from typing import Any

# Under IGNORECASE these four characters match an ASCII letter though their `lower()` is not it
# (U+0130 and U+0131 'i', U+017F 's', U+212A 'k'): a text holding one is searched the slow way.
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
_SHORTEST_RUN = 3  # a shorter run is in most texts: testing it first saves nothing

Search = Callable[[str], "re.Match[str] | None"]


def _needs(items: list[Any], folded: bool) -> list[str] | None:
    """Runs of characters at least one of which every match of the sequence `items` holds:
    its longest plain run, else those of a group it cannot skip (one run per alternative);
    None when there are none to tell by."""
    best, run = "", ""
    for op, value in [*items, (None, None)]:
        char = chr(value) if op is _sre.LITERAL else None
        if char is not None and (not folded or char.isascii()):
            run += char.lower() if folded else char
            continue
        best, run = max(best, run, key=len), ""
    if len(best) >= _SHORTEST_RUN:
        return [best]
    for op, value in items:
        inner = None
        if op is _sre.BRANCH:  # `(?:a|b)`, which the parser leaves ungrouped
            inner = _alternatives([(op, value)], folded)
        elif op is _sre.SUBPATTERN and not value[1] and not value[2]:  # no flags of its own
            inner = _alternatives(list(value[3]), folded)
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) and value[0] >= 1:
            inner = _alternatives(list(value[2]), folded)
        if inner is not None:
            return inner
    return None


def _alternatives(items: list[Any], folded: bool) -> list[str] | None:
    """`_needs` of a sequence that may be one alternation: any alternative's runs."""
    if len(items) != 1 or items[0][0] is not _sre.BRANCH:
        return _needs(items, folded)
    runs: list[str] = []
    for branch in items[0][1][1]:
        needs = _needs(list(branch), folded)
        if needs is None:
            return None
        runs.extend(needs)
    return list(dict.fromkeys(runs))


def _runs(pattern: re.Pattern[str]) -> list[str] | None:
    """Runs of characters at least one of which every match holds (lower-cased, and ASCII
    only, under IGNORECASE); None when the pattern has an alternative without one."""
    if pattern.flags & re.LOCALE:
        return None
    return _alternatives(list(_sre_parse.parse(pattern.pattern, pattern.flags)),
                         bool(pattern.flags & re.IGNORECASE))


def screen(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    """Could a text hold a match of `pattern`? False only when it holds none of its runs."""
    runs = _runs(pattern)
    if runs is None:
        return lambda text: True
    if not pattern.flags & re.IGNORECASE:
        return lambda text: any(run in text for run in runs)

    def could_fold(text: str) -> bool:
        if _FOLDS_TO_ASCII.search(text) is not None:
            return True
        lowered = text.lower()
        return any(run in lowered for run in runs)

    return could_fold


def searcher(pattern: re.Pattern[str]) -> Search:
    """`pattern.search`, the same matches, skipping the texts that hold none of its runs."""
    if _runs(pattern) is None:
        return pattern.search
    could, search = screen(pattern), pattern.search
    return lambda text: search(text) if could(text) else None
