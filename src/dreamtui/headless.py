"""The cron runner (docs/architecture.md §1.7): gates, one dream, the auto-apply policy, logs and exit codes.

Gates run cheapest first — enabled, workspace lock free, hours since the last dream, pending
memories (feedback not counted) or else flags against live entries — and a gate that says no is
a normal outcome: exit 0 with a one-line reason. `force` skips the gates but never the lock. The
lock is held for the whole run, so of two runs started together exactly one dreams. The last
dream's time is kept in the STM database (dreamtui_meta), never read from a file's mtime.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from io import TextIOWrapper
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from dreamtui.dream.engines.base import CancelToken, Done, Event, Failed, ProposalReady, Refused
from dreamtui.dream.runner import dream
from dreamtui.dream.triage_rules import POLICY_RULES
from dreamtui.errors import EXIT_OK, DreamtuiError, InputError, LockedError
from dreamtui.model import FEEDBACK_FLAGGED, Changeset, Proposal, iso_z
from dreamtui.review.commit import CommitReport, commit
from dreamtui.review.decide import decide
from dreamtui.review.triage import pending as pending_flags
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.files import create_private
from dreamtui.store.journal import recover
from dreamtui.store.leases import settle
from dreamtui.store.lock import WorkspaceLock
from dreamtui.store.stm import MemoryFilter, STMStore
from dreamtui.vocabulary import counted
from dreamtui.workspace.layout import Workspace

LAST_DREAM_KEY = "last_dream_at"
LOG_NAME = "dreamtui.log"
LOG_MAX_BYTES = 1_000_000
LOG_BACKUPS = 5
AUTO_POLICIES = ("none", "safe")
# The result line goes to the log file only: the caller prints `HeadlessResult.message` (or the
# --json summary holding it), and a terminal showing it twice reads as two events.
RESULT_RECORD = "dreamtui_result"


@dataclass
class HeadlessResult:
    exit_code: int
    message: str  # one line for a person or a cron mail
    summary: dict[str, Any] = field(default_factory=dict)  # what `--json` prints


class _Skip(Exception):
    """A gate said no: exit 0 with this one-line reason."""


# -- logging ----------------------------------------------------------------------------------


class _PrivateLog(RotatingFileHandler):
    """The log names dreams, entries and errors: created 0600, as is each file a rollover starts."""

    def _open(self) -> TextIOWrapper:
        create_private(Path(self.baseFilename))
        return super()._open()


@contextmanager
def _logging(workspace: Workspace, quiet: bool) -> Iterator[logging.Logger]:
    """stderr (warnings only when `quiet`, so --json output stays the only chatter) + a rotating file."""
    workspace.ensure_state_dirs()
    logger = logging.getLogger("dreamtui.headless")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%dT%H:%M:%S%z")
    stream = logging.StreamHandler(sys.stderr)
    stream.setLevel(logging.WARNING if quiet else logging.INFO)
    stream.addFilter(lambda record: not getattr(record, RESULT_RECORD, False))
    file = _PrivateLog(workspace.log_dir / LOG_NAME, maxBytes=LOG_MAX_BYTES,
                       backupCount=LOG_BACKUPS, encoding="utf-8")
    file.setLevel(logging.DEBUG)
    for handler in (stream, file):
        handler.setFormatter(fmt)
        logger.addHandler(handler)
    try:
        yield logger
    finally:
        for handler in (stream, file):
            logger.removeHandler(handler)
            handler.close()


@contextmanager
def _cancel_on_sigterm(token: CancelToken, logger: logging.Logger) -> Iterator[None]:
    """SIGTERM (cron timeout, systemd stop) cancels the dream so its batch goes back to the queue."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals can only be handled on the main thread; the caller owns cancellation then
        return

    def handler(signum: int, _frame: Any) -> None:
        logger.warning("received signal %d: cancelling the dream, its batch returns to the queue",
                       signum)
        token.cancel()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- gates ------------------------------------------------------------------------------------


def last_dream_at(store: STMStore) -> datetime | None:
    value = store.get_meta(LAST_DREAM_KEY)
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None  # an unreadable stamp must not block dreaming forever


def _gate_hours(workspace: Workspace, store: STMStore, now: datetime) -> None:
    min_hours = workspace.config.headless.min_hours
    last = last_dream_at(store)
    if last is None or min_hours <= 0:
        return
    hours = (now - last).total_seconds() / 3600
    if hours < min_hours:
        raise _Skip(f"skipped: the last dream was {hours:.1f} h ago, at {iso_z(last)} "
                    f"(headless.min_hours: {min_hours:g})")


def _gate_pending(workspace: Workspace, store: STMStore, logger: logging.Logger) -> None:
    """Enough new lessons (feedback not counted), or enough flags against live entries: guidance
    flagged as wrong is reviewed the next night, not once five lessons have come. Confirmations
    alone never start a dream: they only reinforce what is there."""
    config = workspace.config.headless
    pending = store.count_pending(exclude_feedback=True)
    if pending >= config.min_pending:
        return
    reason = (f"skipped: {pending} pending memories, feedback not counted "
              f"(headless.min_pending: {config.min_pending})")
    # Counted first: the LTM scan that matching flags to entries needs runs only when enough wait.
    flags = store.count(MemoryFilter(state="pending", types=(FEEDBACK_FLAGGED,)))
    if not flags:
        raise _Skip(reason)
    gate = f"(headless.min_flags: {config.min_flags})"
    if not 0 < config.min_flags <= flags:
        raise _Skip(f"{reason}; {_count(flags, 'pending flag')} {gate}")
    live = _flags_on_live_entries(workspace, store)
    if live < config.min_flags:
        raise _Skip(f"{reason}; {live} of {_count(flags, 'pending flag')} against a live entry {gate}")
    logger.info("dreaming for %s against live entries (headless.min_flags: %d)",
                _count(live, "flag"), config.min_flags)


def _flags_on_live_entries(workspace: Workspace, store: STMStore) -> int:
    """Pending flags naming a live entry, matched as the Flags view and the dream match them."""
    groups = pending_flags(workspace, POLICY_RULES, stm=store).groups
    return len({flag.id for group in groups for flag in group.flags})


def _count(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + 's'}"


# -- the auto-apply policy ----------------------------------------------------------------------


def is_safe(proposal: Proposal) -> bool:
    """The kinds the `safe` policy accepts: never anything carrying a safety mark."""
    if proposal.safety:
        return False
    return proposal.op == "reinforce" or (
        proposal.op == "discard" and bool(proposal.details.get("exact_duplicate")))


def _auto_apply(workspace: Workspace, changeset: Changeset, now: datetime,
                logger: logging.Logger) -> CommitReport | None:
    safe = [p.id for p in changeset.proposals if is_safe(p)]
    if not safe:
        logger.info("auto-apply: no safe proposal; everything waits for review")
        return None
    changeset = decide(workspace, changeset.id, safe, "accept", now=now)
    context = changeset.bundle
    bundle = context is not None and not context.safety and context.decision is None
    if context is not None and bundle:
        decide(workspace, changeset.id, [context.id], "accept", now=now)
    logger.info("auto-apply: accepted %s%s", counted(len(safe), "safe proposal"),
                " and the bundle that follows" if bundle else "")
    # SIGTERM is back to its default here: a kill mid-commit is what the journal recovers from
    return commit(workspace, changeset.id, now=now, auto=True)


# -- the run ------------------------------------------------------------------------------------


def _log_event(logger: logging.Logger, event: Event) -> None:
    if isinstance(event, ProposalReady):
        logger.info("proposal %s %s %s", event.proposal.id, event.proposal.op, event.proposal.target)
    elif isinstance(event, Refused):
        logger.warning("refused %s %s: %s", event.refusal.op, event.refusal.target,
                       event.refusal.reason)
    elif isinstance(event, Failed):
        logger.error("engine failed: %s", event.message)
    elif isinstance(event, Done):
        logger.info("engine done")


def _summary(changeset: Changeset, report: CommitReport | None) -> dict[str, Any]:
    waiting = 0 if report is not None and report.status == "committed" else sum(
        1 for p in changeset.reviewable if p.decision in (None, "defer"))
    return {
        "dream_id": changeset.id,
        "engine": changeset.engine,
        "fallback": changeset.fallback,
        "proposals": dict(Counter(p.op for p in changeset.reviewable)),
        "refused": len(changeset.refused),
        "usage": dict(changeset.usage),
        "left_out": list(changeset.left_out),
        "waiting": waiting,
        "commit": report.to_dict() if report is not None else None,
    }


def _dream_once(workspace: Workspace, engine: str | None, policy: str, now: datetime,
                logger: logging.Logger) -> HeadlessResult:
    token = CancelToken()
    with _cancel_on_sigterm(token, logger):
        changeset = dream(workspace, engine=engine, cancel=token,
                          on_event=lambda event, _changeset: _log_event(logger, event),
                          now=now)
    if changeset is None:
        return HeadlessResult(EXIT_OK, "nothing pending: no dream needed", {"dream_id": None})
    with STMStore.for_workspace(workspace) as store:
        store.set_meta(LAST_DREAM_KEY, now.isoformat())
    logger.info("dream %s: %s", changeset.id, counted(len(changeset.reviewable), "proposal"))
    known = changeset.stats.get("known_corpus")
    if isinstance(known, dict) and known.get("problems"):
        # One line on stderr: an instruction file the dream could not read is the person's to fix.
        logger.warning("%s", known.get("summary"))
    engine_stats = changeset.stats.get("engine")
    held = engine_stats.get("held_for_broken_entries") if isinstance(engine_stats, dict) else None
    waiting = Counter((held or {}).values()) if isinstance(held, dict) else Counter[str]()
    for problem in changeset.stats.get("entry_problems") or []:
        # The engine could not see this entry: the lessons it holds wait for it, not a "-2" twin.
        n = waiting[problem]
        wait = f"; {counted(n, 'memory')} restating it {'waits' if n == 1 else 'wait'} in the queue" if n else ""
        logger.warning("entry problem: %s (not read by this dream%s; fix the file and dream again)", problem, wait)
    if changeset.fallback is not None:
        # Said on stderr even with --json: whoever reads these proposals must know no model made them.
        logger.warning("dream %s was made by %s", changeset.id, changeset.engine_label)
    report = _auto_apply(workspace, changeset, now, logger) if policy == "safe" else None
    if report is not None:
        changeset = ChangesetStore(workspace.dreams_dir).load(changeset.id)
    summary = _summary(changeset, report)
    message = f"dream {changeset.id}: {counted(len(changeset.reviewable), 'proposal')}"
    if report is not None:
        message += f"; auto-applied: {report.summary}"
    if summary["waiting"]:
        message += f"; {summary['waiting']} wait for review"
    return HeadlessResult(EXIT_OK, message, summary)


def _check_policy(policy: str) -> str:
    if policy not in AUTO_POLICIES:
        raise InputError(f"--auto-apply {policy!r}: expected one of {', '.join(AUTO_POLICIES)}")
    return policy


def run_headless(workspace: Workspace, *, engine: str | None = None, force: bool = False,
                 auto_apply: str | None = None, json_out: bool = False,
                 now: datetime | None = None, busy_is_skip: bool = True) -> HeadlessResult:
    """Gates → lock → dream → (auto-apply → commit). Never raises a DreamtuiError: see exit_code.

    A workspace locked by another process is a skip (exit 0) for cron, where another dream
    running means there is nothing to do; with `busy_is_skip=False` (a person asked for this
    dream) it is the lock's own exit code.
    """
    moment = now or workspace.clock()
    with _logging(workspace, quiet=json_out) as logger:
        try:
            policy = _check_policy(auto_apply or workspace.config.headless.auto_apply)
            if not force and not workspace.config.headless.enabled:
                raise _Skip("skipped: headless dreams are disabled (headless.enabled: false)")
            with WorkspaceLock(workspace, "headless dream").acquire():
                recovered = recover(workspace)
                if recovered:
                    logger.warning("%s", recovered)
                # Before the gates: claims no open dream owns count as pending again.
                settled = settle(workspace)
                if settled:
                    logger.warning("%s", settled)
                if not force:
                    with STMStore.for_workspace(workspace) as store:
                        _gate_hours(workspace, store, moment)
                        _gate_pending(workspace, store, logger)
                result = _dream_once(workspace, engine, policy, moment, logger)
        except LockedError as busy:
            if busy_is_skip:
                text = f"skipped: {busy}"
                result = HeadlessResult(EXIT_OK, text, {"skipped": text})
            else:
                text = f"{busy}; nothing was done, try again when it is released"
                result = HeadlessResult(busy.exit_code, text, {"error": text})
        except _Skip as skip:
            result = HeadlessResult(EXIT_OK, str(skip), {"skipped": str(skip)})
        except DreamtuiError as exc:
            result = HeadlessResult(exc.exit_code, str(exc), {"error": str(exc)})
        level = logging.INFO if result.exit_code == EXIT_OK else logging.ERROR
        logger.log(level, "%s", result.message, extra={RESULT_RECORD: True})
    result.summary["exit_code"] = result.exit_code
    result.summary.setdefault("message", result.message)
    return result

