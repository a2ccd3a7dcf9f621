"""Blocking work (SQLite, files, git, engines, commit) in thread workers that only post messages.

A job's function runs off the UI thread and must not touch widget state; its result comes back
as a message the starting node handles on the UI thread. A failure becomes `JobFailed`, which
bubbles to the app and opens a modal with the message — never a traceback on screen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker

from dreamtui.errors import DreamtuiError

T = TypeVar("T")
log = logging.getLogger("dreamtui.tui")
LOG_NAME = "tui.log"  # in the workspace's .dreamtui/logs/


@dataclass
class JobFailed(Message):
    """A job raised; `what` says what was being done, `message` is fit for a person."""

    what: str
    message: str
    group: str = ""  # the job's group, so the node that started it can undo its own state


def run_job(node: DOMNode, work: Callable[[], T], done: Callable[[T], Message], *, what: str,
            group: str = "default", exclusive: bool = False) -> Worker[None]:
    """Run `work()` in a thread; post `done(result)` (or JobFailed) to `node`."""

    def body() -> None:
        try:
            result = work()
        except DreamtuiError as exc:
            node.post_message(JobFailed(what, str(exc), group))
        except Exception as exc:  # a bug must still not put a traceback on the screen
            log.exception("%s failed", what)
            node.post_message(JobFailed(what, f"{type(exc).__name__}: {exc} (the traceback is in "
                                              f".dreamtui/logs/{LOG_NAME})", group))
        else:
            node.post_message(done(result))

    return node.run_worker(body, name=what, group=group, exclusive=exclusive, thread=True,
                           exit_on_error=False)
