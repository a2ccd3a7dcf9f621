"""A correction's value replacement (proposals._replace_values, _names_any): whole words only.

The compiled, pre-checked form must do exactly what one `re.sub` per value per line did."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamtui.dream.proposals import _names_any, _replace_values, split_paragraphs, split_sentences


def reference_replace(text: str, changes: list[tuple[str, str]]) -> str:
    for old, new in changes:
        text = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, text)
    return text


def reference_names(line: str, changes: list[tuple[str, str]]) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", line)
               for change in changes for value in change)


def test_only_whole_values_change() -> None:
    changes = [("5432", "5433"), ("v1.2", "v1.3")]
    text = "port 5432, not 15432 or 5432x or 1.5432; use v1.2 (not v1.20)"
    assert _replace_values(text, changes) == "port 5433, not 15432 or 5432x or 1.5432; use v1.3 (not v1.20)"
    assert _names_any("maps 5433 now", changes) and not _names_any("maps 15432", changes)


_pieces = st.sampled_from(["5432", "5433", "v1.2", "1.2", "8080", "80", "node", "18", "a.b", ".", " ", "-",
                           "x", "\\1", "é", "_"])
_texts = st.lists(_pieces, max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(_texts, st.lists(st.tuples(_texts, _texts.filter(lambda t: "\\" not in t)), max_size=3))
@pytest.mark.slow
def test_replacing_agrees_with_one_search_per_value(text: str, changes: list[tuple[str, str]]) -> None:
    assert _replace_values(text, changes) == reference_replace(text, changes)
    assert bool(_names_any(text, changes)) == reference_names(text, changes)


def test_split_texts_are_each_callers_own() -> None:
    """Paragraphs and sentences are split once per text (cached): a caller changing its list
    changes nobody else's."""
    text = "Use uv. Not pip.\n\nRun `make test` first."
    paragraphs = split_paragraphs(text)
    sentences = split_sentences(paragraphs[0])
    assert paragraphs == ["Use uv. Not pip.", "Run `make test` first."]
    assert sentences == ["Use uv.", "Not pip."]
    paragraphs.append("changed")
    sentences.pop()
    assert split_paragraphs(text) == ["Use uv. Not pip.", "Run `make test` first."]
    assert split_sentences("Use uv. Not pip.") == ["Use uv.", "Not pip."]
