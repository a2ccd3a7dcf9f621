"""Time and randomness as seams. A Workspace carries a clock and an id source; everything below it
asks them instead of `datetime.now` or `uuid4`, so a test (or a replay) injects fixed ones rather
than monkeypatching modules."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Now, timezone-aware UTC: every stored time is UTC."""
    return datetime.now(UTC)


class IdSource(Protocol):
    """Where random identifiers come from: memory and lease ids, dream and journal suffixes."""

    def uuid4(self) -> str: ...

    def token_hex(self, nbytes: int) -> str: ...


class RandomIds:
    """The real thing: uuid4 strings as `str(uuid.uuid4())` writes them, and `secrets.token_hex`."""

    def uuid4(self) -> str:
        return str(uuid.uuid4())

    def token_hex(self, nbytes: int) -> str:
        return secrets.token_hex(nbytes)


RANDOM_IDS: IdSource = RandomIds()
