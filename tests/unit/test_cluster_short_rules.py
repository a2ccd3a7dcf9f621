"""Short rules: one plain word shared by two short rules keeps them apart; a rule about a tool not
picked is not the choice."""

from __future__ import annotations

from dreamtui.dream.cluster import cluster_memories
from dreamtui.dream.match import compare_texts
from tests.factories import memory

THRESHOLD = 88  # config.dream.similarity's default


def clusters(*texts: str) -> list[list[str]]:
    memories = [memory(f"m{n}", text, text, agent=f"agent-{n}") for n, text in enumerate(texts)]
    return [[m.content for m in cluster.members] for cluster in cluster_memories(memories, THRESHOLD)]


def test_a_short_rule_sharing_one_plain_word_with_another_stays_apart() -> None:
    # One plain word ("minimal") shared by two short rules is as often two rules.
    found = clusters("Minimal logging.", "Write minimal docstrings for helpers.")
    assert len(found) == 2


def test_a_rule_about_the_tool_not_picked_is_not_the_choice() -> None:
    # Both say something against npm, but the second is about one npm command, not the choice.
    verdict = compare_texts("Use bun, not npm.", "Never run `npm start` here: the server is already up.")
    assert not verdict.same_lesson
    assert [c.slot for c in verdict.conflicts] == ["picks"]
    assert clusters("Use bun, not npm.", "Never run `npm start` here: the server is already up.",
                    "We use **bun**, not npm.") == [["Use bun, not npm.", "We use **bun**, not npm."],
                                                    ["Never run `npm start` here: the server is already up."]]


def test_a_choice_restated_with_its_pick_is_still_one_rule() -> None:
    assert compare_texts("Use bun, not npm.", "Prefer bun over npm for every script.").same_lesson


def test_a_short_rule_does_not_join_its_contradiction_through_the_one_name_they_share() -> None:
    # "Use Bun" and "Use Node, not Bun" share only Bun, which one picks and the other rejects.
    found = clusters("Use Bun.", "Use Node, not Bun.", "Prefer Vitest.", "Run Vitest only in CI.")
    assert sorted(map(len, found)) == [1, 1, 1, 1]
