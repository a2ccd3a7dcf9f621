"""Ages as lists and panes show them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dreamtui.tui.formatting import age, ago

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("before", "short", "sentence"), [
    (timedelta(seconds=20), "now", "just now"),
    (timedelta(minutes=5), "5m", "5m ago"),
    (timedelta(hours=2, minutes=59), "2h", "2h ago"),
    (timedelta(days=20), "2w", "2w ago"),
    (timedelta(days=800), "2y", "2y ago"),
])
def test_age_and_ago(before: timedelta, short: str, sentence: str) -> None:
    assert age(NOW - before, NOW) == short
    assert ago(NOW - before, NOW) == sentence
