"""Entries made from lessons mined from transcripts (issue 11, new user's M2/M3/H3): the entry says
the person's words as the rule, not the story around them; its title has no provenance tail and is
not cut mid-word; its tags are subjects, not a folder of a path or a language keyword."""

from __future__ import annotations

from functools import partial

from dreamtui.dream.guidance import Known, fresh_paragraphs, lesson, said_words, tags_for, title_of
from dreamtui.entry.codec import parse_entry
from dreamtui.model import Memory
from tests.factories import entry_text, memory, snapshot_of
from tests.unit.test_heuristic import dream_input, proposals

# Shapes of what the importers store (own wording, not a copied transcript line).
STOPPED = ("The person stopped the agent as it was about to run `make check` and said “wait, the whole "
           "suite runs for 40 minutes; run only tests/test_invoice.py”.\nThe agent had called: Bash make check")
REJECTED = ("Do not run `npm install left-pad`: the person rejected it at the permission prompt and said "
            "“no, we add packages with pnpm here: pnpm add left-pad”.\nThe agent had called: Bash npm install left-pad")
ASKED = ("Do as the person said after it tried to edit `lib/report.py`: “why did you remove the invoice "
         "renderer? the monthly cron uses it, restore it”\nThe agent had just called: Edit lib/report.py")
mined = partial(memory, tags=("claude-code", "interruption"))


def test_the_persons_words_are_the_lesson_said_as_a_rule_reason_after() -> None:
    taught = lesson("Wait, the whole suite runs for 40 minutes; run only tests/test_invoice.py "
                    "(interrupted: run `make check`)", STOPPED)
    assert taught.guidance == "Run only tests/test_invoice.py: the whole suite runs for 40 minutes."
    assert "person" not in " ".join([taught.guidance, *taught.rest])


def test_a_rejection_keeps_the_persons_rule_and_the_call_not_to_make() -> None:
    taught = lesson("x", REJECTED)
    said = " ".join([taught.guidance, *taught.rest])
    assert "We add packages with pnpm here: pnpm add left-pad." in said
    assert "Do not run `npm install left-pad`" in said
    assert "permission prompt" not in said


def test_a_question_the_person_asks_is_a_sentence_not_a_joined_fragment() -> None:
    taught = lesson("x", ASKED)
    assert "?;" not in taught.guidance
    assert "Do as the person said" not in taught.guidance


def test_a_title_loses_its_provenance_tail_and_a_cut_title_gives_way_to_the_guidance() -> None:
    assert title_of("No, use pnpm (rejected: run `npm install left-pad`)", "Use pnpm.") == "Use pnpm"
    assert title_of("Stop, the suite is slow (interrupted: run `make check`)", "g") == "The suite is slow"
    assert title_of("Keep the invoice renderer: the person asked “why did you remove the inv…",
                    "The monthly cron uses the invoice renderer.") == "The monthly cron uses the invoice renderer."
    assert title_of("Use pnpm", "Use pnpm.") == "Use pnpm"
    assert title_of("ruff format and black disagree", "g") == "ruff format and black disagree"  # its own case


def test_a_path_or_a_language_keyword_is_no_tag() -> None:
    one = memory("m1", "Keep the renderer", "It is used by `lib/report.py`.")
    assert tags_for([one], one, text="Keep the renderer\nIt is used by `lib/report.py` and `app.py`.") == []
    snippet = memory("m2", "Parse ids", "```go\nfunc parseID(s string) int {\n```")
    assert "func" not in tags_for([snippet], snippet, text="`func parseID`")


def _created(batch: list[Memory]) -> list[tuple[str, str]]:
    out = []
    for p in proposals(dream_input(batch)):
        if p.op == "create" and p.after:
            entry = parse_entry(p.after, p.target)
            out.append((str(entry.meta["title"]), entry.body))
    return out


def test_a_mined_interruption_becomes_an_entry_a_person_accepts_as_it_stands() -> None:
    title = "Wait, the whole suite runs for 40 minutes; run only tests/test_invoice.py (interrupted: run `make check`)"
    [(made_title, body)] = _created([mined("i1", title, STOPPED)])
    assert "interrupted" not in made_title and not made_title.endswith(("…", "..."))
    assert body.split("\n\n")[0].startswith("Run only tests/test_invoice.py: the whole suite runs for 40 minutes")


def test_an_unrelated_lesson_sharing_a_word_is_no_fragment_update() -> None:
    """H3: the Esc lesson about which tests to run is not folded into the invoice-renderer entry
    as a fragment with a stray closing quote."""
    entry = ("topics/keep-the-invoice-renderer.md",
             entry_text("keep-the-invoice-renderer", "Keep the invoice renderer",
                        "Do as the person said after it tried to edit `lib/report.py`: “why did you remove the "
                        "invoice renderer? the monthly cron uses it, restore it”"))
    title = "Wait, the whole suite runs for 40 minutes; run only tests/test_invoice.py (interrupted: run `make check`)"
    found = proposals(dream_input([mined("i1", title, STOPPED)], snapshot_of(entry)))
    assert [p.op for p in found if p.target == entry[0]] == []  # no update of the renderer entry
    [created] = [parse_entry(p.after or "", p.target) for p in found if p.op == "create"]
    assert created.body.startswith("Run only tests/test_invoice.py: the whole suite runs for 40 minutes")


def test_a_piece_cut_out_of_a_quotation_is_never_a_fact_to_add() -> None:
    known = Known("Keep the invoice renderer\n\nThe monthly cron uses the invoice renderer.")
    told = "Our lead wrote “the renderer is slow; cache the invoice renderer output in redis”."
    for added in (fresh_paragraphs(told, known, other_phrasing=True), fresh_paragraphs(told, Known("x"))):
        assert added in ([], [told])  # the whole sentence, or nothing
        assert all(p.count("“") == p.count("”") for p in added)
    assert fresh_paragraphs("Our lead wrote “cache it; the renderer is slow”.", Known("x")) != [
        "The renderer is slow”."]
    # A whole sentence holding a whole quotation still adds its fact.
    assert fresh_paragraphs("Cache the “invoice renderer” output in `redis` on port 6380.", known) != []


def test_a_frame_below_the_first_line_is_the_occasions_record_not_the_lesson() -> None:
    told = ("Run `uv sync` before `pytest` (the person said so when `pytest` failed here).\n"
            "The agent had called: Bash pytest\nThe person then said: “still broken, run uv sync first”")
    assert said_words(told) == told
