"""Review without surprises (issue 11, item 8): short slugs, numbers as proposal ids, the review's
JSON, plain rationale words, a rejected update keeping its confirmations."""

from __future__ import annotations

import pytest

from dreamtui.safety.paths import NEW_SLUG_LEN, slugify


@pytest.mark.parametrize(("title", "slug"), [
    ("Test checkout totals is flaky because of float rounding", "test-checkout-totals-is-flaky"),
    ("Seed script fails on a fresh database: migrate first", "seed-script-fails-on-a-fresh-database"),
    ("Frontend env vars need the VITE_ prefix", "frontend-env-vars-need-the-vite-prefix"),
])
def test_a_new_slug_is_the_first_words_of_its_title(title: str, slug: str) -> None:
    assert slugify(title) == slug
    assert len(slugify(title)) <= NEW_SLUG_LEN
