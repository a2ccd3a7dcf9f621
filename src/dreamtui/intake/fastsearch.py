"""A rule's pattern searched only in the texts that could hold a match.

The miners' rules are alternations of phrases ("command not found|No module named|…",
case-insensitive), run over every failed command's output and every typed turn. Python's `re`
tries each alternative at each position of the text: such a pattern reads a few MB/s, while a
substring test (`in`) reads GB/s. Every match of an alternative holds that alternative's longest
run of plain characters (in "permission denied: \\S", "permission denied: "); a text holding
none of the runs can hold no match, so `screen` tests the runs first, and `matcher` runs only the
alternatives whose runs are there, each on its own (one alternative with a plain start is searched
fast). The rule is still written once, as its pattern; the runs are read from it.
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


def _split(pattern: re.Pattern[str]) -> list[str] | None:
    """The pattern's top-level alternatives as text; None when they cannot be told apart safely
    (the split is checked against `re`'s own reading of the pattern)."""
    parts, depth, start, at, source = [], 0, 0, 0, pattern.pattern
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 1
        elif char == "[":  # a class: `]` first in it, or escaped, does not close it
            at += 2 if source.startswith(("[]", "[^]"), at) else 1
            at += source.startswith("^]", at)
            while at < len(source) and source[at] != "]":
                at += 2 if source[at] == "\\" else 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(source[start:at])
            start = at + 1
        at += 1
    parts.append(source[start:])
    items = list(_sre_parse.parse(source, pattern.flags))
    branches = len(items[0][1][1]) if len(items) == 1 and items[0][0] is _sre.BRANCH else 1
    return parts if len(parts) == branches and len(parts) > 1 else None


def matcher(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    """`pattern.search(text) is not None`, trying only the alternatives whose runs the text
    holds, each on its own: one alternative is searched fast, thirty tried at every position
    are not."""
    parts = _split(pattern)
    try:
        alternatives = [] if parts is None else [
            (_runs(compiled), compiled) for compiled in (re.compile(part, pattern.flags)
                                                         for part in parts)]
    except re.error:  # an alternative that does not stand alone (a reference to another's group)
        alternatives = []
    if not alternatives or any(runs is None for runs, _ in alternatives):
        could = screen(pattern)
        return lambda text: could(text) and pattern.search(text) is not None
    folded = bool(pattern.flags & re.IGNORECASE)
    # Each run once, with the alternatives that hold it, in one flat list: a text is scanned for
    # a run once however many alternatives share it, and no generator is made per alternative
    # (on the short texts most rules read, that costs more than the scans).
    holding: dict[str, list[re.Pattern[str]]] = {}
    for runs, compiled in alternatives:
        for run in runs or ():
            holding.setdefault(run, []).append(compiled)
    by_run = list(holding.items())

    def matches(text: str) -> bool:
        if folded and not text.isascii() and _FOLDS_TO_ASCII.search(text) is not None:
            return pattern.search(text) is not None
        seen = text.lower() if folded else text
        tried: set[re.Pattern[str]] = set()
        for run, holders in by_run:
            if run in seen:
                for compiled in holders:
                    if compiled not in tried:
                        if compiled.search(text) is not None:
                            return True
                        tried.add(compiled)
        return False

    return matches
