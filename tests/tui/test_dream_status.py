"""The Dream view's status line."""

from __future__ import annotations


def test_dream_status_shows_llm_token_usage() -> None:
    from dreamtui.tui.screens.dream import usage_text

    assert usage_text({}) == ""
    assert usage_text({"input_tokens": 12000, "output_tokens": 800, "cache_read_input_tokens": 300}) \
        == " · tokens 12,000 in / 800 out (300 cached)"
