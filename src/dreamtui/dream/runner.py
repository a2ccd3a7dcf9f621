"""The dream runner, shared by the headless mode and the TUI.

It claims a batch, runs an engine, and records what the engine proposes in a changeset that is
on disk from the first moment: a crash, a closed terminal or a cron timeout loses nothing. Every
proposal passes `guard.enforce` (refusals are kept, visibly), every batch memory ends up as
evidence of some proposal, and a dream that fails or is cancelled gives its batch back to the
queue and marks its changeset abandoned. A dream writes nothing to LTM or the context.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime

from dreamtui.dream.cluster import _collector_paused as collector_paused
from dreamtui.dream.engines.base import (
    CancelToken,
    Done,
    DreamInput,
    Engine,
    Event,
    Failed,
    ProposalReady,
    Refused,
    Usage,
    load_engine,
)
from dreamtui.dream.guard import Guard
from dreamtui.dream.known import MARK_CONTRADICTS, KnownCorpus, KnownIndex, KnownMatch, read_corpus
from dreamtui.dream.proposals import discard_proposal
from dreamtui.errors import DreamError, DreamtuiError, StoreError
from dreamtui.model import Changeset, Memory, Proposal, Refusal, iso_z
from dreamtui.review.bundle import read_bundle
from dreamtui.review.plan import context_proposal
from dreamtui.store.changesets import ChangesetStore, new_dream_id
from dreamtui.store.journal import crash_point
from dreamtui.store.leases import settle
from dreamtui.store.lock import WorkspaceLock
from dreamtui.store.ltm import LTMSnapshot, LTMStore
from dreamtui.store.rejections import rejected_fingerprints
from dreamtui.store.stm import Lease, STMStore
from dreamtui.workspace.layout import Workspace

SAVE_INTERVAL_S = 0.5
# A save rewrites the whole changeset, so saves also wait this many times the last save's
# duration: at most a tenth of a run goes to saving, however big the changeset grows.
SAVE_COST_FACTOR = 10
UNUSED_REASON = "no engine proposal used this memory"
KNOWN_CONFIDENCE = 0.8  # a restatement of the project's docs: likely, and the citation lets a person check
ID_ATTEMPTS = 64  # ids differ in 16 random bits: running out means something is wrong, not bad luck
# Test hooks (store/journal.crash_point): DREAMTUI_CRASH_AT=<point> SIGKILLs the dream there.
DREAM_CRASH_POINTS = ("dream-claimed", "dream-published")

EventCallback = Callable[[Event, Changeset], None]


# --- the runner --------------------------------------------------------------------------------


class _Cancelled(Exception):
    """Internal: the cancel token was set."""


class _Run:
    """One dream from claimed batch to saved changeset."""

    def __init__(self, workspace: Workspace, stm: STMStore, lease: Lease, engine: Engine,
                 cancel: CancelToken, on_event: EventCallback | None, now: datetime) -> None:
        self.workspace = workspace
        self.config = workspace.config
        self.stm = stm
        self.lease = lease
        self.engine = engine
        self.cancel = cancel
        self.on_event = on_event
        self.now = now
        self.store = ChangesetStore(workspace.dreams_dir)
        self.batch_ids = frozenset(m.id for m in lease.memories)
        self.unseen: list[str] = []  # batch memories the engine reported it never saw
        self.entry_problems: list[str] = []  # entry files the LTM scan could not read, "path:line: why"
        self.changeset = Changeset(id=new_dream_id(now, workspace.ids), engine=engine.name, created_at=iso_z(now),
                                   lease_id=lease.id, batch=[m.id for m in lease.memories])
        self.seen_ids: set[str] = set()
        self.targets: set[str] = set()
        self.engine_stats: dict[str, object] = {}
        self.done = False
        self.started = time.monotonic()
        self.last_beat = self.started
        self.last_save = self.started
        self.last_save_cost = 0.0
        self.saved_count = 0
        self.saves = 0
        # Proposals are only appended during a run (decisions wait until it is done), so each
        # is encoded for the changeset file once, not at every save.
        self.encoded: list[str] = []
        self.settled: str | None = None  # what `settle` did before the claim, for the stats
        self.corpus = KnownCorpus(None)
        self.index: KnownIndex | None = None
        self.known: dict[str, KnownMatch] = {}  # batch memories the project's docs already state
        self.contradictions: dict[str, KnownMatch] = {}  # ... and those that contradict them
        self.close: dict[str, KnownMatch] = {}  # ... and those that partly restate one (noted only)

    # -- saving --

    def publish(self) -> None:
        """The first save: under an id no other dream has (the time part may be shared)."""
        began = time.monotonic()
        for _ in range(ID_ATTEMPTS):
            try:
                self.store.create(self.changeset)
                break
            except FileExistsError:
                self.changeset.id = new_dream_id(self.now, self.workspace.ids)
        else:
            raise DreamError(f"no free dream id in {self.store.dreams_dir} after {ID_ATTEMPTS} tries")
        self.saved(began)

    def save(self) -> None:
        began = time.monotonic()
        self.store.save(self.changeset, self.encoded)
        self.saved(began)

    def saved(self, began: float) -> None:
        self.last_save = time.monotonic()
        self.last_save_cost = self.last_save - began
        self.saved_count = len(self.changeset.proposals)
        self.saves += 1

    def maybe_save(self) -> None:
        pending = len(self.changeset.proposals) - self.saved_count
        if pending <= 0:
            return
        waited = time.monotonic() - self.last_save
        if waited >= max(SAVE_INTERVAL_S, SAVE_COST_FACTOR * self.last_save_cost):
            self.save()

    def heartbeat(self) -> None:
        """Keep the lease alive through a long engine run (an LLM on a big batch)."""
        minutes = self.config.stm.lease_minutes
        if time.monotonic() - self.last_beat >= minutes * 30:
            self.stm.extend_lease(self.lease.id, minutes)
            self.last_beat = time.monotonic()

    # -- events --

    def refuse(self, refusal: Refusal) -> None:
        self.changeset.refused.append(refusal)
        if self.on_event is not None:
            self.on_event(Refused(refusal), self.changeset)

    def accept(self, proposal: Proposal) -> None:
        if proposal.op == "context":
            self.refuse(Refusal(proposal.op, proposal.target, "engines do not propose the bundle: "
                                "dreamtui renders it from the other proposals", {"id": proposal.id}))
            return
        kept, refusals = self.guard.check([proposal])
        for refusal in refusals:
            self.refuse(refusal)
        for item in map(self.mark_from_docs, kept):
            if item.id in self.seen_ids:
                continue  # the same change proposed twice is one proposal
            if item.target in self.targets:
                self.refuse(Refusal(item.op, item.target, f"another proposal already changes {item.target}; "
                                    "an engine proposes one change per target", {"id": item.id}))
                continue
            self.seen_ids.add(item.id)
            self.targets.add(item.target)
            self.changeset.proposals.append(item)

    def handle(self, event: Event) -> None:
        if isinstance(event, ProposalReady):
            self.accept(event.proposal)
        elif isinstance(event, Refused):
            self.changeset.refused.append(event.refusal)
        elif isinstance(event, Usage):
            for key, value in event.tokens.items():
                self.changeset.usage[key] = self.changeset.usage.get(key, 0) + int(value)
        elif isinstance(event, Done):
            self.engine_stats = dict(event.stats)
            self.done = True
        if self.on_event is not None:
            self.on_event(event, self.changeset)
        if isinstance(event, Failed):
            raise DreamError(f"engine {self.engine.name} failed: {event.message}")
        self.maybe_save()
        self.heartbeat()

    # -- the project's docs (dream/known.py) --

    def read_known(self, rejected: frozenset[str]) -> list[Memory]:
        """Check the batch against the project's docs; the memories left for the engine.

        A restatement is discarded here with its citation, whatever the engine, unless a person
        rejected that discard before (the docs do not say it, they said: the engine decides); a
        contradiction stays in the batch and every proposal resting on it says so
        (mark_from_docs), as does a partial restatement, without a safety mark.
        """
        self.corpus = read_corpus(self.workspace.project_root, self.config.project.known_files)
        lessons = [m for m in self.lease.memories if not m.is_feedback]
        if not self.corpus.rules or not lessons:
            return list(self.lease.memories)
        self.index = KnownIndex.build(self.corpus, lessons)
        for memory in sorted(lessons, key=_order):
            found = self.index.check(memory)
            if found is None:
                continue
            if found.kind == "known":
                discard = discard_proposal(memory, found.rationale(), confidence=KNOWN_CONFIDENCE,
                                           details={"known": found.to_json()})
                if discard.id in rejected:
                    continue
                self.known[memory.id] = found
                self.accept(discard)
            elif found.kind == "close":
                self.close[memory.id] = found
            else:
                self.contradictions[memory.id] = found
        return [m for m in self.lease.memories if m.id not in self.known]

    def mark_from_docs(self, proposal: Proposal) -> Proposal:
        """A proposal resting on a memory that contradicts a rule carries the mark and the rule;
        one resting on a partial restatement names the rule it may repeat."""
        contradicting = [(i, self.contradictions[i]) for i in proposal.evidence if i in self.contradictions]
        close = [(i, self.close[i]) for i in proposal.evidence if i in self.close]
        if not contradicting and not close:
            return proposal
        said = "; ".join(dict.fromkeys(match.rationale() for _, match in [*contradicting, *close]))
        details = dict(proposal.details)
        if contradicting:
            details["contradicts"] = [{"memory": i, **match.to_json()} for i, match in contradicting]
        if close:
            details["close_to"] = [{"memory": i, **match.to_json()} for i, match in close]
        marks = {*proposal.safety, MARK_CONTRADICTS} if contradicting else set(proposal.safety)
        return dataclasses.replace(proposal, rationale=f"{proposal.rationale}; {said}",
                                   safety=sorted(marks), details=details)

    # -- the run --

    async def run(self) -> Changeset:
        # Published before the LTM scan, the slowest step before the engine: from here on a kill
        # leaves an open, incomplete dream naming the lease, which `abandon` (or the next dream)
        # closes. A kill before it leaves a lease no record names: see store/leases.py.
        self.publish()
        crash_point("dream-published")
        snapshot = LTMStore(self.workspace.memory_root).scan()
        # An entry file the scan cannot read is invisible to the engine: the changeset names it.
        self.entry_problems = [str(problem) for problem in snapshot.problems]
        self.guard = Guard(snapshot, self.config, batch_ids=self.batch_ids,
                           memory_root=self.workspace.memory_root)
        rejected = rejected_fingerprints(self.workspace)
        batch = self.read_known(rejected)
        dream_input = DreamInput(batch=batch, snapshot=snapshot, config=self.config,
                                 now=self.now, rejected=rejected,
                                 bundle_text=read_bundle(self.workspace.agents_md),
                                 known=self.index, contradictions=dict(self.contradictions))
        engine_started = time.monotonic()
        events = self.engine.run(dream_input, self.cancel)
        try:
            async for event in events:
                self.handle(event)
                if self.cancel.cancelled:
                    break
        finally:
            await events.aclose()
        if self.cancel.cancelled:
            raise _Cancelled()
        if not self.done:
            raise DreamError(f"engine {self.engine.name} stopped without finishing (no Done event)")
        engine_seconds = time.monotonic() - engine_started
        self.finish(snapshot, engine_seconds)
        return self.changeset

    def finish(self, snapshot: LTMSnapshot, engine_seconds: float) -> None:
        used = {i for p in self.changeset.proposals for i in p.evidence}
        self.release_unseen(used)
        for memory in sorted(self.lease.memories, key=_order):
            if memory.id not in used and memory.id not in self.unseen:
                self.changeset.proposals.append(
                    self.mark_from_docs(discard_proposal(memory, UNUSED_REASON, confidence=0.5)))
        context = context_proposal(self.changeset, snapshot, self.workspace, self.now)
        if context is not None:
            self.changeset.bundle = context
            self.changeset.left_out = [str(s) for s in context.details.get("left_out") or []]
        self.changeset.stats = self.stats(engine_seconds)
        self.changeset.note_fallback()
        self.changeset.complete = True
        # The review may take days: its batch stays claimed without the tenant's dream lease,
        # which would stop a Dreamer server sharing the queue (store/stm.py, LEASES_TABLE).
        if self.changeset.batch:  # else every memory went back to the queue, and the lease with them
            self.stm.keep_claim(self.lease.id)
        self.save()

    def release_unseen(self, used: set[str]) -> None:
        """Memories the engine never saw (over an LLM's token budget) go back to the queue.

        Discarding them as unused would let a person consume them unread; they wait for a later
        dream instead, and the changeset says which ones they were.
        """
        reported = self.engine_stats.get("left_out")
        named = reported if isinstance(reported, list) else []
        self.unseen = [i for i in named if isinstance(i, str) and i in self.batch_ids and i not in used]
        if not self.unseen:
            return
        self.stm.release(self.lease.id, self.unseen)
        unseen = set(self.unseen)
        self.changeset.batch = [i for i in self.changeset.batch if i not in unseen]

    def stats(self, engine_seconds: float) -> dict[str, object]:
        ops = Counter(p.op for p in self.changeset.reviewable)
        return {
            "batch_size": len(self.lease.memories),
            "feedback": sum(1 for m in self.lease.memories if m.is_feedback),
            "proposals": len(self.changeset.reviewable),
            "ops": {op: ops[op] for op in sorted(ops)},
            "refused": len(self.changeset.refused),
            "engine_seconds": round(engine_seconds, 3),
            "total_seconds": round(time.monotonic() - self.started, 3),
            "saves": self.saves + 1,
            "left_out_memories": [f"stm:{i}" for i in self.unseen],
            **({"entry_problems": self.entry_problems} if self.entry_problems else {}),
            "engine": self.engine_stats,
            "known_corpus": {"files": list(self.corpus.files), "rules": len(self.corpus.rules),
                             "known": len(self.known), "contradicts": len(self.contradictions),
                             "close": len(self.close),
                             "problems": list(self.corpus.problems), "summary": self.corpus.summary()},
            **({"settled": self.settled} if self.settled else {}),
        }

    def abandon(self) -> int:
        """Give the batch back and mark the changeset abandoned; returns the memories released."""
        released = len(self.lease.memories)
        try:
            self.stm.end_lease(self.lease.id)
        except StoreError:
            released = 0  # the lease expires on its own; the changeset still says what happened
        self.changeset.status = "abandoned"
        self.changeset.complete = False
        try:
            self.save()
        except OSError:
            pass  # the dream already failed; a changeset we cannot write is not a second error
        return released


def _order(memory: Memory) -> tuple[datetime, str]:
    return (memory.submitted_at, memory.id)


async def dream_async(workspace: Workspace, *, engine: str | None = None, cancel: CancelToken | None = None,
                      on_event: EventCallback | None = None, now: datetime | None = None,
                      limit: int | None = None) -> Changeset | None:
    """Claim a batch and dream on it; None when nothing is pending.

    Raises DreamError (batch released, changeset abandoned) when the engine fails or the dream is
    cancelled through `cancel`. When the task itself is cancelled, the same clean-up happens
    and asyncio.CancelledError propagates, as asyncio.timeout and worker frameworks expect.
    """
    config = workspace.config
    moment = now or workspace.clock()
    chosen = load_engine(engine or config.dream.engine, config)  # before claiming: a typo claims nothing
    token = cancel or CancelToken()
    # Whoever calls — cron, the workbench, a script — one process at a time dreams, commits or
    # recovers (the headless runner already holds the lock; it is re-entrant for its thread).
    # The batch, the LTM snapshot, the engine's drafts and features and the proposals all live
    # until the dream ends: the cycle collector rescanning them again and again is wasted work
    # (a twentieth of a 10,000-memory dream), and reference counting still frees the rest.
    with (collector_paused(), WorkspaceLock(workspace, "dream").acquire(),
          STMStore.for_workspace(workspace) as stm):
        # No other dream runs now, so claims no open dream owns go back before this one claims.
        settled = settle(workspace)
        workspace.ensure_state_dirs()  # before the claim: only the record's own write follows it
        lease = stm.claim(limit=limit or config.stm.batch_size, lease_minutes=config.stm.lease_minutes)
        if lease is None:
            return None
        crash_point("dream-claimed")
        run = _Run(workspace, stm, lease, chosen, token, on_event, moment)
        run.settled = settled
        try:
            return await run.run()
        except _Cancelled:
            released = run.abandon()
            raise DreamError(f"dream cancelled; its {released} memories are back in the queue") from None
        except (asyncio.CancelledError, KeyboardInterrupt):
            run.abandon()
            raise
        except DreamError:
            run.abandon()
            raise
        except DreamtuiError as exc:
            run.abandon()
            raise DreamError(f"dream failed: {exc}") from None
        except Exception as exc:
            run.abandon()
            raise DreamError(f"engine {chosen.name} failed: {type(exc).__name__}: {exc}") from exc


def dream(workspace: Workspace, *, engine: str | None = None, cancel: CancelToken | None = None,
          on_event: EventCallback | None = None, now: datetime | None = None,
          limit: int | None = None) -> Changeset | None:
    """`dream_async` for callers without an event loop (the headless mode, the CLI)."""
    result: list[Changeset | None] = []

    async def main() -> None:
        # Not returned through asyncio.run: it formats the finished task's repr, result included,
        # and the repr of a 10,000-proposal changeset costs a noticeable part of the dream.
        result.append(await dream_async(workspace, engine=engine, cancel=cancel, on_event=on_event,
                                        now=now, limit=limit))

    asyncio.run(main())
    return result[0]
