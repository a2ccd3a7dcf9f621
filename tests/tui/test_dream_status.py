"""The Dream view's status line, and which of a running dream's events may give way to the next."""

from __future__ import annotations

from dreamtui.dream.engines.base import Done, Event, Failed, Progress, ProposalReady, Refused, TextDelta
from dreamtui.model import Proposal, Refusal
from dreamtui.tui.jobs import JobFailed
from dreamtui.tui.screens.dream import DreamEvent, usage_text


def test_dream_status_shows_llm_token_usage() -> None:
    assert usage_text({}) == ""
    assert usage_text({"input_tokens": 12000, "output_tokens": 800, "cache_read_input_tokens": 300}) \
        == " · tokens 12,000 in / 800 out (300 cached)"


def test_a_waiting_dream_event_gives_way_only_where_nothing_is_lost() -> None:
    proposal = Proposal(id="p1", op="create", target="topics/x.md", slug="x", base_sha256=None, before=None,
                        after="x", rationale="new")
    progress, later = Progress(1, 4, "clustering"), Progress(2, 4, "writing")

    def event(e: Event, proposals: tuple[Proposal, ...] = ()) -> DreamEvent:
        return DreamEvent("d-1", e, proposals)

    # Each event carries every proposal so far: one that only brought a proposal may go.
    assert event(ProposalReady(proposal), (proposal,)).can_replace(event(TextDelta("a"), (proposal,)))
    assert event(progress).can_replace(event(later))  # a newer progress line replaces the older one
    assert not event(progress).can_replace(event(TextDelta("a")))  # the line would be lost
    for kept in (TextDelta("a"), Refused(Refusal("create", "x", "no")), Failed("boom"), Done({})):
        assert not event(kept).can_replace(event(later))
    assert not event(progress).can_replace(JobFailed("dreaming", "boom"))
