"""A hang guard for tests of patterns that once backtracked exponentially.

Not a speed measurement (those are benchmarks): the bound is a thousand times what the work
takes, so it fails only when the work never ends in practice, as the old patterns' did.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Raise TimeoutError if the block runs longer than `seconds` (SIGALRM interrupts `re`)."""
    def _stop(*_: object) -> None:
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, _stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
