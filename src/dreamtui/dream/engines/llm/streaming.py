"""Streaming and retry plumbing of the LLM engines: waiting on the model without ignoring the cancel
token, how long to wait before a retry, and the error that lets the heuristic fallback apply."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import AsyncIterator
from typing import TypeVar

from dreamtui.dream.engines.base import CancelToken
from dreamtui.errors import DreamError

CANCEL_POLL_S = 0.05  # how often a blocked stream read looks at the cancel token
BACKOFF_BASE_S = 0.5  # first retry waits this long, doubling per attempt (tests shorten it)
BACKOFF_MAX_S = 8.0
RETRY_AFTER_MAX_S = 60.0  # a server asking for longer is not waited for beyond this

T = TypeVar("T")


class StreamCancelled(Exception):
    """Internal: the cancel token was set while waiting for the model."""


async def next_or_cancel(iterator: AsyncIterator[T], cancel: CancelToken) -> T:
    """The next item, or StreamCancelled as soon as `cancel` is set, even while a read blocks.

    Raises StopAsyncIteration at the end, like `anext`.
    """
    if cancel.cancelled:
        raise StreamCancelled()
    task = asyncio.ensure_future(anext(iterator))
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=CANCEL_POLL_S)
            if done:
                return task.result()
            if cancel.cancelled:
                raise StreamCancelled()
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def sleep_or_cancel(seconds: float, cancel: CancelToken) -> None:
    deadline = time.monotonic() + seconds
    while not cancel.cancelled:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        await asyncio.sleep(min(left, CANCEL_POLL_S))
    raise StreamCancelled()


def retry_delay(attempt: int, retry_after: str | None) -> float:
    """Seconds before retry number `attempt` (0-based): the server's Retry-After (seconds or an
    HTTP date) when it sent one, else exponential backoff."""
    if retry_after:
        try:
            seconds = float(retry_after)
        except ValueError:
            parsed = email.utils.parsedate_tz(retry_after)
            seconds = float(email.utils.mktime_tz(parsed)) - time.time() if parsed else -1.0
        if seconds >= 0:
            return min(seconds, RETRY_AFTER_MAX_S)
    return min(BACKOFF_BASE_S * 2.0 ** attempt, BACKOFF_MAX_S)


class ModelUnreachable(DreamError):
    """The model could not be reached (connection, timeout, overloaded): the fallback may apply."""
