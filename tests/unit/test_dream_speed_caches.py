"""What the dream's speed-ups remember must read as reading afresh would: the lazily read entry
bodies, the lesson cache, the Features properties read once."""

from __future__ import annotations

import pytest

from dreamtui.dream import guidance, match
from dreamtui.dream.cluster import build_entry_index
from dreamtui.dream.guidance import lesson
from dreamtui.dream.match import Features, normalise
from tests.factories import entry_text, snapshot_of


def test_entry_bodies_are_normalised_on_first_use_as_read_whole() -> None:
    snapshot = snapshot_of(
        ("topics/ci-port.md", entry_text("ci-port", "CI Postgres port", "CI's Postgres listens on `5432`.",
                                         tags=("ci", "postgres"))),
        ("topics/lint.md", entry_text("lint", "Lint before pushing", "Run `ruff check` before pushing.")))
    index = build_entry_index(snapshot)
    assert len(index.body_norms) == 2
    for position, entry in enumerate(index.entries):
        expected = normalise(f"{entry.title}\n{entry.body}\n{' '.join(entry.tags)}")
        assert index.body_norms[position] == expected
        assert index.body_norms[position] is index.body_norms[position]  # read once
    assert "postgres listens on 5432" in index.body_norms[0]
    with pytest.raises(IndexError):
        index.body_norms[2]


def test_a_lesson_read_again_is_equal_and_its_own() -> None:
    guidance._taught.cache_clear()
    title, content = "Postgres port", "CI's Postgres listens on 5433. Connect with `psql -p 5433`.\n\nIt moved."
    first = lesson(title, content)
    first.rest.append("changed by a caller")
    second = lesson(title, content)
    assert guidance._taught.cache_info().hits == 1
    assert second.rest is not first.rest and "changed by a caller" not in second.rest
    assert (second.guidance, second.rest, second.actionable) == \
        (guidance._lesson(title, content).guidance, guidance._lesson(title, content).rest,
         guidance._lesson(title, content).actionable)


def test_a_features_property_is_read_once_and_then_kept() -> None:
    features = Features("Never push directly to `main`; open a PR.")
    assert "facts" not in features.__dict__
    facts = features.facts
    assert features.__dict__["facts"] is facts and features.facts is facts
    assert features.circumstances is features.circumstances
    assert Features.facts.__doc__ and "read in one pass" in Features.facts.__doc__


def test_what_the_paused_collector_let_live_is_old_and_its_cycles_still_freed() -> None:
    """After the pause its survivors sit in the oldest generation, so the next young collection
    does not walk them all; garbage cycles made during the pause are still collected."""
    import gc
    import weakref

    from dreamtui.dream.cluster import _collector_paused

    class Node:
        other: object = None

    assert gc.isenabled()
    with _collector_paused():
        kept = [[n] for n in range(20_000)]
        a, b = Node(), Node()
        a.other, b.other = b, a
        cycle = weakref.ref(a)
        del a, b
    assert gc.isenabled()
    marker = kept[-1]
    assert any(o is marker for o in gc.get_objects(generation=2))
    assert not any(o is marker for o in gc.get_objects(generation=0))
    assert cycle() is not None  # nothing collected it on the way out
    gc.collect()
    assert cycle() is None


# The patterns as they were written before they were reordered for speed: the fast ones must
# find exactly what these find.
_CODE_WORD_BEFORE = r"[\w.-]*[_./][\w./-]+"
_TOKEN_BEFORE = r"(?<![\w-])--?[^\W_][\w-]*|[^\W_]+|,"
_PAST_BEFORE = (r"(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bget )(?<!\bgets )(?:\b[a-z]{3,}(?<!e)ed\b"
                r"|\b(?:rewrote|wrote|took|went|ran|made|broke|threw|gave|got|saw|found|forgot|did|had)\b)")
_TRICKY = [
    "Set db_url in app.seed, run tests/integration and /etc/hosts.", "a/b/c x. y_ z/ .", "a..b -a_b --x.y",
    "foo_bar.baz/ qux", "é_x naïve.py ünï/code", "`src/gen` a.b.c/d_e-f", "x_", "_x", "./run.sh", "v1.2.3-rc.1",
    "The port is mapped, then it turned; we seeded and added it. Tests are required; it gets used.",
    "Is used, are needed, be saved, get killed, gets fixed: rewrote, wrote, took, seed, speed, bred, ed.",
    "", "\n", "a\tb/c\nd.e", "Run `ls --all -la` -x, a-b --no-cache -- --, x--y -_z -é",
]


def test_the_reordered_patterns_find_what_they_found_before() -> None:
    import random
    import re

    rng = random.Random(11)
    alphabet = "aB_./-é1 \n`:,is are get ed —"
    texts = _TRICKY + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    for fast, before in ((guidance._CODE_WORD_RE, _CODE_WORD_BEFORE), (guidance._PAST_RE, _PAST_BEFORE),
                         (match._TOKEN_RE, _TOKEN_BEFORE)):
        slow = re.compile(before)
        for text in texts:
            assert [m.span() for m in fast.finditer(text)] == [m.span() for m in slow.finditer(text)], (fast, text)
