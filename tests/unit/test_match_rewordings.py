"""Rewordings with few shared words, and the permission two look-alike rules disagree on."""

from __future__ import annotations

import pytest

from dreamtui.dream.cluster import cluster_memories
from dreamtui.dream.match import compare_texts
from tests.factories import memory

THRESHOLD = 88  # config.dream.similarity's default


def merged(a: str, b: str) -> bool:
    memories = [memory("m0", a, a), memory("m1", b, b, agent="agent-b")]
    return len(cluster_memories(memories, THRESHOLD)) == 1


@pytest.mark.parametrize(("a", "b"), [
    # clarifying / clarification (two stems), vague / unclear (kin)
    ("Request clarification whenever the spec is vague.", "Ask clarifying questions if anything is unclear."),
    # smallest / minimal, edit / patch: one shared idea said by kin words only
    ("Make the smallest edit that fixes the bug.", "Keep every patch minimal."),
    # swallow / ignore: found as candidates through the kin family, not only scored alike
    ("Never swallow exceptions silently.", "Do not ignore exceptions."),
    ("Never flatter the user.", "No sycophancy toward the user."),
])
def test_rewordings_said_in_kindred_words_merge(a: str, b: str) -> None:
    assert compare_texts(a, b).same_lesson
    assert merged(a, b)


def test_only_when_asked_and_unasked_are_two_rules() -> None:
    verdict = compare_texts("Push only when the user explicitly asks you to.",
                            "Push your branch at the end of every task.")
    assert not verdict.same_lesson
    assert "permission" in [c.slot for c in verdict.conflicts]
    assert not merged("Push only when the user explicitly asks you to.",
                      "Push your branch at the end of every task.")


@pytest.mark.parametrize(("a", "b"), [
    ("Never delete branches unless the user asks.", "Ask before deleting any branch."),
    ("Push only when the user explicitly asks you to.", "Never push without the user's approval."),
])
def test_one_permission_said_two_ways_is_still_one_rule(a: str, b: str) -> None:
    assert compare_texts(a, b).same_lesson


def test_brevity_is_concise_and_conversations_are_a_scope() -> None:
    # "In all conversations and code reviews" says where the rule applies; "brevity" is "brief".
    assert compare_texts("In all conversations and code reviews, favour brevity.", "Be concise.").same_lesson


@pytest.mark.parametrize(("a", "b"), [
    ("No sweeping rewrites or drive-by cleanups.", "Prefer minimal, targeted rewrites."),
    ("Do not be verbose.", "Be concise."),
])
def test_a_word_rejected_states_its_opposite(a: str, b: str) -> None:
    assert compare_texts(a, b).same_lesson
    assert merged(a, b)


def test_the_word_unrejected_is_no_opposite() -> None:
    assert not compare_texts("Be verbose.", "Be concise.").same_lesson
    assert not compare_texts("Make sweeping rewrites.", "Prefer minimal rewrites.").same_lesson
