"""`lessons.mostly_pasted` and `quoted_turn` count the person's letters only as far as they need
(a pasted log holds tens of thousands): the verdicts at the threshold stay as they were."""

from __future__ import annotations

from dreamtui.intake.lessons import _letters, mostly_pasted, quoted_turn

_LOG = "\n".join(f"2026-08-03T10:00:{i % 60:02d} ERROR worker {i} failed" for i in range(3000))


def test_letters_are_counted_up_to_the_threshold() -> None:
    assert _letters("abc 123 _x") == 4
    assert _letters("word " * 10_000) == 25


def test_a_log_with_a_few_words_of_the_persons_own_is_mostly_pasted() -> None:
    assert mostly_pasted(f"see:\n{_LOG}")
    assert not mostly_pasted(f"the worker crashes again after your change, look:\n{_LOG}")
    # 24 letters is too few; one wide character (two letters' worth) makes 26.
    assert mostly_pasted(f"abcdefghijklmnopqrstuvwx\n{_LOG}")
    assert not mostly_pasted(f"abcdefghijklmnopqrstuvwx 错\n{_LOG}")


def test_a_long_turn_is_quoted_by_the_persons_words_first() -> None:
    quoted = quoted_turn(f"the worker crashes again after your change, look:\n{_LOG}", 600)
    assert quoted.startswith("the worker crashes again after your change, look:\n```\n")
    assert quoted_turn(f"see:\n{_LOG}", 600).startswith("see:\n2026-08-03")
