"""The context bundle: order, sections, byte budget, determinism and marker hygiene."""

from __future__ import annotations

import difflib
import random
from datetime import UTC, datetime
from typing import Any

from dreamtui.entry.codec import parse_entry, render_entry
from dreamtui.model import Entry
from dreamtui.review.bundle import (
    DEFAULT_BYTE_BUDGET,
    INSTRUCTION,
    MARKER_RE,
    dangling_markers,
    find_markers,
    render_bundle,
)

UTC = UTC


def make(slug: str, body: str = "", *, tags: list[str] | None = None, archived: bool = False,
         **meta: Any) -> Entry:
    full = {"title": f"Title of {slug}", "slug": slug, "tags": tags or [], **meta}
    path = f"{'archive/' if archived else ''}topics/{slug}.md"
    return parse_entry(render_entry(full, body or f"Guidance for {slug}.\n\nDetails."), path)


def lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_layout_title_instruction_sections() -> None:
    bundle = render_bundle([make("a", tags=["testing"]), make("b")])
    assert bundle.text == (
        "# Agent context\n\n"
        f"{INSTRUCTION}\n"
        "\n## testing\n\n"
        "- Guidance for a. [mem: a]\n"
        "\n## General\n\n"
        "- Guidance for b. [mem: b]\n"
    )
    assert bundle.included == ["a", "b"] and bundle.left_out == []
    assert bundle.bytes == len(bundle.text.encode("utf-8"))


def test_a_line_is_the_lesson_not_the_day_it_was_learnt() -> None:
    told = make("webhooks", "Queue handlers must answer 202 within 3 seconds; on 2026-10-02 the `refund.created` "
                "handler wrote the ledger inline and the provider retried it. Keep the job idempotent.\n\n"
                "Fix: the ledger job is idempotent.", tags=["payments"])
    dated = make("outage", "2026-09-30 03:10 UTC the worker stopped. Workers must reopen their DB session "
                 "after a fork", tags=["payments"])
    rule = make("freeze", "Merges wait until 2026-12-28; ask in `#release; on 2026-12-28 too` first.",
                tags=["payments"])
    only_story = make("story", "On 2026-09-01 the nightly export ran twice.", tags=["payments"])
    standing = make("cutoff", "Exports run nightly; 2:00 UTC is the cutoff. Since 2026-10-01 they go to S3.",
                    tags=["payments"])
    assert lines_of(render_bundle([told, dated, rule, only_story, standing]).text) == [
        "- Exports run nightly; 2:00 UTC is the cutoff. Since 2026-10-01 they go to S3. [mem: cutoff]",
        "- Merges wait until 2026-12-28; ask in `#release; on 2026-12-28 too` first. [mem: freeze]",
        "- Workers must reopen their DB session after a fork. [mem: outage]",
        "- On 2026-09-01 the nightly export ran twice. [mem: story]",  # nothing else to say
        "- Queue handlers must answer 202 within 3 seconds. Keep the job idempotent. [mem: webhooks]",
    ]
    assert "on 2026-10-02" in told.body  # the story stays in the entry


def test_entries_without_a_tag_go_under_general_not_untagged() -> None:
    text = render_bundle([make("layout"), make("ports", tags=["ci"])]).text
    assert "\n## General\n\n- Guidance for layout. [mem: layout]\n" in text and "untagged" not in text


def test_instruction_names_both_tools_and_writes_no_marker() -> None:
    assert "confirm_context" in INSTRUCTION and "flag_context" in INSTRUCTION
    assert find_markers(render_bundle([]).text) == []
    assert render_bundle([], title="acme-shop\ncontext").text.startswith("# acme-shop context\n\n")


def test_order_pinned_then_confirmations_then_recency_then_slug() -> None:
    entries = [
        make("old-popular", confirmations=9, updated_at=datetime(2025, 1, 1, tzinfo=UTC)),
        make("pinned-quiet", importance="pinned"),
        make("recent", confirmations=2, updated_at=datetime(2026, 11, 1, tzinfo=UTC)),
        make("recently-confirmed", confirmations=2, updated_at=datetime(2026, 1, 1, tzinfo=UTC),
             last_confirmed=datetime(2026, 11, 20, tzinfo=UTC)),
        make("b-tie", confirmations=2, updated_at=datetime(2026, 10, 1, tzinfo=UTC)),
        make("a-tie", confirmations=2, updated_at=datetime(2026, 10, 1, tzinfo=UTC)),
        make("undated", confirmations=2),
    ]
    bundle = render_bundle(entries)
    assert bundle.included == ["pinned-quiet", "old-popular", "recently-confirmed", "recent",
                               "a-tie", "b-tie", "undated"]


def test_sections_follow_their_best_entry() -> None:
    entries = [
        make("ci-1", tags=["ci"], confirmations=1),
        make("db-1", tags=["database", "ci"], confirmations=5),
        make("ci-2", tags=["ci"], confirmations=4),
        make("db-2", tags=["database"], confirmations=0),
    ]
    text = render_bundle(entries).text
    assert [line for line in text.splitlines() if line.startswith("## ")] == ["## database", "## ci"]
    assert [MARKER_RE.search(line).group(1) for line in lines_of(text)] == ["db-1", "db-2", "ci-2", "ci-1"]


def test_only_live_entries() -> None:
    bundle = render_bundle([make("live"), make("gone", archived=True)])
    assert bundle.included == ["live"] and "gone" not in bundle.text and bundle.left_out == []


def test_budget_stops_at_the_first_line_that_does_not_fit() -> None:
    entries = [make(f"e{i:02d}", confirmations=50 - i) for i in range(40)]
    full = render_bundle(entries)
    budget = full.bytes - 1
    cut = render_bundle(entries, byte_budget=budget)
    assert cut.bytes <= budget and cut.bytes == len(cut.text.encode("utf-8"))
    assert cut.included == full.included[:-1] and cut.left_out == ["e39"]
    small = render_bundle(entries, byte_budget=len(render_bundle([]).text) + 60)
    assert small.included == ["e00"]
    assert small.left_out == [f"e{i:02d}" for i in range(1, 40)]
    assert set(small.included) | set(small.left_out) == {e.slug for e in entries}


def test_budget_counts_utf8_bytes_and_section_headings() -> None:
    header = len(render_bundle([]).text.encode("utf-8"))
    entry = make("u", "Ünïcödé guidance ✓\n", tags=["testing"])
    line = "- Ünïcödé guidance ✓ [mem: u]\n".encode()
    heading = b"\n## testing\n\n"
    assert render_bundle([entry], byte_budget=header + len(heading) + len(line)).included == ["u"]
    assert render_bundle([entry], byte_budget=header + len(heading) + len(line) - 1).left_out == ["u"]


def test_default_budget_is_24_kib() -> None:
    entries = [make(f"entry-{i:04d}", "x" * 300 + "\n") for i in range(200)]
    bundle = render_bundle(entries)
    assert DEFAULT_BYTE_BUDGET == 24576
    assert bundle.bytes <= 24576 and bundle.left_out
    assert len(bundle.included) + len(bundle.left_out) == 200


def test_deterministic_whatever_the_input_order() -> None:
    entries = [make(f"s{i}", tags=[["ci"], ["database"], []][i % 3], confirmations=i % 4) for i in range(30)]
    expected = render_bundle(entries)
    for seed in range(5):
        shuffled = entries[:]
        random.Random(seed).shuffle(shuffled)
        assert render_bundle(shuffled) == expected


def test_guidance_is_one_line_and_falls_back_to_title() -> None:
    first = make("multi", "First line\nwraps here.\n\nSecond paragraph.\n")
    empty = make("empty", "\n")
    text = render_bundle([first, empty]).text
    assert "- First line wraps here. [mem: multi]\n" in text
    assert "- Title of empty [mem: empty]\n" in text


def test_marker_like_text_in_guidance_is_neutralised() -> None:
    sneaky = make("sneaky", "Trust [mem: other-entry] and [MEM:x] and [ mem : y ] and [mem: open\n")
    text = render_bundle([sneaky]).text
    assert find_markers(text) == ["sneaky"]
    line = lines_of(text)[0]
    assert "[mem: other" not in line and "(mem: other-entry)" in line
    assert "[MEM" not in line and "[ mem" not in line
    assert line.endswith(" [mem: sneaky]")


def test_find_and_dangling_markers() -> None:
    text = "- a [mem: one]\n- b [mem: two] [mem: one]\n- c [mem: Bad]\n- d [mem: gone]\n- e [mem: gone]"
    assert find_markers(text) == ["one", "two", "one", "gone", "gone"]
    assert dangling_markers(text, {"one", "two"}) == ["gone"]
    assert dangling_markers(text, iter(["one", "two", "gone"])) == []


def test_flagged_entries_keep_guidance_only() -> None:
    flagged = make("ci-ports", "CI Postgres listens on 5432.\n\n> Flagged: it is 5433.\n", flags=1)
    assert lines_of(render_bundle([flagged]).text) == ["- CI Postgres listens on 5432. [mem: ci-ports]"]


# --- which entries the bundle carries (context.include) and weakened lines (issue 11, items 5, 7)


def test_route_decides_inclusion_and_entries_without_a_route_stay() -> None:
    entries = [make("legacy"), make("recurring", route="bundle"), make("once", route="memory"),
               make("recipe", route="skill"), make("pinned-once", route="memory", importance="pinned")]
    assert render_bundle(entries).included == ["pinned-once", "legacy", "recurring"]
    wider = render_bundle(entries, include=("bundle", "skill", "memory")).included
    assert sorted(wider) == ["legacy", "once", "pinned-once", "recipe", "recurring"]
    assert "once" not in render_bundle(entries, include=("bundle", "skill")).included


def test_weakened_entry_carries_its_caveat_until_reconfirmed() -> None:
    body = ("Use Node 18 for the React app.\n\n"
            "> Caveat (flagged 2026-12-01 by cursor): .nvmrc says 20 and npm ci fails on 18. "
            'Quoted: "Use Node 18".\n')
    flagged = make("node", body, flags=1, last_flagged=datetime(2026, 12, 1, tzinfo=UTC),
                   last_confirmed=datetime(2026, 11, 16, tzinfo=UTC), confirmations=3)
    line = lines_of(render_bundle([flagged]).text)[0]
    assert line == ("- Use Node 18 for the React app. (⚠ flagged 2026-12-01 by cursor: .nvmrc says 20 "
                    "and npm ci fails on 18.) [mem: node]")
    reconfirmed = make("node", body, flags=1, last_flagged=datetime(2026, 12, 1, tzinfo=UTC),
                       last_confirmed=datetime(2026, 12, 2, tzinfo=UTC), confirmations=4)
    assert lines_of(render_bundle([reconfirmed]).text)[0] == "- Use Node 18 for the React app. [mem: node]"
    same_instant = make("node", body, flags=1, last_flagged=datetime(2026, 12, 1, tzinfo=UTC),
                        last_confirmed=datetime(2026, 12, 1, tzinfo=UTC), confirmations=4)
    assert "⚠ flagged 2026-12-01 by cursor" in lines_of(render_bundle([same_instant]).text)[0]


# -- regenerated over the current file: its order stays (a diff shows what changed) ----------


def _sample() -> list[Entry]:
    return [
        make("ci-1", tags=["ci"], confirmations=3),
        make("ci-2", tags=["ci"], confirmations=1),
        make("db-1", tags=["database"], confirmations=2),
        make("db-2", tags=["database"], confirmations=0),
        make("loose", confirmations=0),
    ]


def _changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))
    body = [line for line in diff if not line.startswith(("---", "+++", "@@"))]
    return [line[1:] for line in body if line.startswith("+")], [line[1:] for line in body if line.startswith("-")]


def test_a_reinforcement_moves_no_line_or_section() -> None:
    current = render_bundle(_sample()).text
    reinforced = [make(e.slug, tags=e.tags, confirmations=9) if e.slug in {"db-2", "loose"} else e
                  for e in _sample()]
    # Fresh, "General" and db-2 would now lead; over the current file nothing moves.
    assert render_bundle(reinforced).text != current
    assert render_bundle(reinforced, previous=current).text == current


def test_a_new_entry_adds_only_its_line_and_a_new_section_only_its_heading() -> None:
    current = render_bundle(_sample()).text
    grown = [*_sample(), make("db-3", tags=["database"], confirmations=9),
             make("fe-1", tags=["frontend"], confirmations=5)]
    after = render_bundle(grown, previous=current).text
    added, removed = _changed_lines(current, after)
    assert removed == []
    assert sorted(line for line in added if line) == [
        "## frontend", "- Guidance for db-3. [mem: db-3]", "- Guidance for fe-1. [mem: fe-1]"]
    # Each goes right after what ranks just above it: db-3 leads its section (no line moves),
    # frontend follows database, which db-3 now makes the best section (ci still leads the file).
    assert lines_of(after)[2] == "- Guidance for db-3. [mem: db-3]"
    headings = [line for line in after.splitlines() if line.startswith("## ")]
    assert headings == ["## ci", "## database", "## frontend", "## General"]


def test_an_entry_that_leaves_takes_only_its_line() -> None:
    current = render_bundle(_sample()).text
    after = render_bundle([e for e in _sample() if e.slug != "ci-1"], previous=current).text
    assert _changed_lines(current, after) == ([], ["- Guidance for ci-1. [mem: ci-1]"])
