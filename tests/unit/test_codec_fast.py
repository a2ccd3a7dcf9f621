"""The codec's fast path against the YAML parser it stands in for.

Entry frontmatter of the simple shapes dreamtui writes is read without the YAML parser, both when
an entry is parsed and when a rewrite checks which source lines it may keep. Whatever the text,
the fast path must give what the parser gives, types included (1 is not True, a date is not a
string), and a rewrite must come out byte for byte as the parser-only codec writes it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamtui.entry import codec
from dreamtui.entry.codec import parse_entry, render_entry
from dreamtui.errors import EntryError
from dreamtui.model import Entry


@contextmanager
def parser_only() -> Iterator[None]:
    """The codec with its fast path switched off: every frontmatter and block goes to YAML."""
    with mock.patch.object(codec, "_cached_frontmatter", lambda source: None):
        yield


def exactly_equal(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down; NaN equals NaN (`.nan` read twice)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(exactly_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(exactly_equal(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


_plain = st.from_regex(r"[A-Za-z0-9 ._/:#'-]{1,14}", fullmatch=True)
# One line's value: what dreamtui writes (plain words, flow lists, Z timestamps, quoted strings)
# and the near misses a person types, which YAML reads as something else or refuses.
_values = st.one_of(
    _plain,
    st.lists(_plain, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    _plain.map(lambda text: f'"{text}"'),
    _plain.map(lambda text: f"'{text}'"),
    st.sampled_from(["yes", "No", "on", "null", "~", "", "1", "0", "1.0", "1_000", "0x1F", "0o17",
                     "1:30", "1.5e3", ".inf", "-.inf", ".nan", "2026-11-02", "2026-11-02T09:14:00Z",
                     "2026-11-02 09:14:00", "2026-11-02T09:14:00+02:00", "2026-02-30", "C#",
                     "a #b", "a: b", "'q''s'", '"d: q"', '"esc\\n"', "[a, b]", "[a,,b]", "[ ]",
                     "[a: b]", "[x?]", "[stm:1, 2]", "[1, true, null, 2026-11-02]", "-x", "*a",
                     "&a x", "!t x", "a\tb", "1e5", "+1", "=", "<<", "[a, [b]]", "{a: 1}", "é…",
                     "true # c", "5432   # the CI port"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
            max_size=10),
)
_keys = st.sampled_from(["title", "slug", "tags", "sources", "confirmations", "updated_at", "on",
                         "Null", "x_1", "a"])
# A block of several lines the fast path never takes: it must still agree with the parser.
_multiline = st.sampled_from(["tags:\n  - ci\n  # later\n  - db\n", "review:\n  due: 2026-12-01\n",
                              "note: >\n  folded\n  text\n", "list:\n- a\n- 1\n"])
_line = st.one_of(
    st.tuples(_keys, _values, st.sampled_from(["", "  # note", "\t# tab"])).map(
        lambda t: f"{t[0]}: {t[1]}{t[2]}\n"),
    st.sampled_from(["# a comment\n", "\n", "   \n"]),
    _multiline,
)
_new_values = st.one_of(
    st.text(max_size=12), st.integers(-5, 5), st.booleans(), st.none(),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)).map(
        lambda d: d.replace(microsecond=0, tzinfo=UTC)),
    st.lists(st.text(max_size=6), max_size=3),
)


def parsed(text: str) -> Entry | None:
    try:
        return parse_entry(text, "topics/x.md")
    except EntryError:
        return None


@settings(max_examples=500, deadline=None)
@given(st.lists(_line, max_size=7))
@pytest.mark.slow
def test_fast_reading_gives_the_parsers_values_types_included(lines: list[str]) -> None:
    text = "---\n" + "".join(lines) + "---\nbody\n"
    fast = parsed(text)
    with parser_only():
        slow = parsed(text)
    assert (fast is None) == (slow is None)
    if fast is not None and slow is not None:
        assert exactly_equal(fast.meta, slow.meta)
        assert fast.derived == slow.derived


@settings(max_examples=500, deadline=None)
@given(st.lists(_line, min_size=1, max_size=7), st.data())
@pytest.mark.slow
def test_a_rewrite_keeps_the_same_bytes_as_the_parser_only_codec(lines: list[str], data: st.DataObject) -> None:
    text = "---\nslug: s\n" + "".join(lines) + "---\nbody\n"
    entry = parsed(text)
    if entry is None:
        return
    meta = dict(entry.meta)
    keys = list(meta)
    changed = data.draw(st.sampled_from(keys))
    meta[changed] = data.draw(_new_values)
    if data.draw(st.booleans()) and len(keys) > 1:
        del meta[data.draw(st.sampled_from([k for k in keys if k != changed]))]
    if data.draw(st.booleans()):
        meta["added_key"] = data.draw(_new_values)
    fast = render_entry(meta, entry.body, entry)
    with parser_only():
        slow = render_entry(meta, entry.body, entry)
    assert fast == slow
    assert render_entry(entry.meta, entry.body, entry) == text  # untouched: the file itself


def test_a_one_line_block_with_a_comment_is_kept_and_its_changed_value_keeps_the_comment() -> None:
    text = ("---\ntitle: Ports\nslug: ci-ports\n# the port CI maps\nport: 5432   # changed in May\n"
            "tags: [ci, db]\n---\nbody\n")
    entry = parse_entry(text, "topics/ci-ports.md")
    out = render_entry({**entry.meta, "port": 5433}, entry.body, entry)
    assert out == text.replace("port: 5432   #", "port: 5433   #")
    with parser_only():
        assert render_entry({**entry.meta, "port": 5433}, entry.body, entry) == out


def test_a_block_yaml_reads_otherwise_is_not_taken_for_its_source() -> None:
    """`on: yes` is the key True with the value True to YAML: the fast path must not keep it as
    the string key "on"; the rewrite falls back to writing the frontmatter plainly, as before."""
    text = "---\ntitle: t\nslug: s\non: yes\n---\nbody\n"
    entry = parse_entry(text, "topics/s.md")
    assert entry.meta[True] is True
    out = render_entry({**entry.meta, "title": "u"}, entry.body, entry)
    with parser_only():
        assert render_entry({**entry.meta, "title": "u"}, entry.body, entry) == out


def test_an_untouched_entry_holding_nan_is_its_own_text() -> None:
    """NaN is unequal to itself: read as a change, it made the rewrite of an untouched entry
    (or of any other key) write the frontmatter plainly, reordered, its comments gone."""
    text = "---\nslug: s\n# measured\nratio: .nan\ntitle: t\n---\nbody\n"
    entry = parse_entry(text, "topics/s.md")
    assert render_entry(entry.meta, entry.body, entry) == text
    assert render_entry({**entry.meta, "title": "u"}, entry.body, entry) == text.replace("title: t", "title: u")
