"""The default dream engine: offline, deterministic, no API key.

New memories are clustered (cluster.py); each cluster either extends the live entry it matches
(new sentences appended, or — when it adds nothing — a confirmation and a source) or becomes a
new entry: a topic when it recurs across agents or sessions, an incident otherwise. Exact
duplicates inside a cluster are discarded. Feedback goes through the policy (policy.py).

Determinism: inputs are sorted, there is no randomness, and every timestamp comes from
`dream_input.now` or the memories themselves, so the same input gives the same proposal ids.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Iterable, Sequence
from datetime import datetime
from typing import Any

from dreamtui.dream.cluster import (
    Cluster,
    EntryIndex,
    Signature,
    build_entry_index,
    cluster_memories,
    match_entry,
    may_match,
    normalise,
)
from dreamtui.dream.engines.base import CancelToken, Done, DreamInput, Event, Progress, ProposalReady
from dreamtui.dream.policy import Replacement, apply_feedback
from dreamtui.dream.proposals import (
    Drafts,
    content_fingerprint,
    create_proposal,
    discard_proposal,
    guidance_and_rest,
    new_paragraphs,
    source_ref,
)
from dreamtui.model import Entry, Memory, Proposal
from dreamtui.safety.paths import slugify
from dreamtui.store.ltm import entry_path
from dreamtui.vocabulary import clip, counted
from dreamtui.workspace.config import Config

YIELD_EVERY = 50  # clusters between event-loop yields, so a cancel or a redraw is never far off
TITLE_CHARS = 120
REJECTED_REASON = "previously rejected"


def _order(memory: Memory) -> tuple[datetime, str]:
    return (memory.submitted_at, memory.id)


def split_exact_duplicates(members: Sequence[Memory]) -> tuple[list[Memory], list[tuple[Memory, Memory]]]:
    """(first of each normalised content, [(duplicate, the first it repeats)])."""
    firsts: dict[str, Memory] = {}
    duplicates: list[tuple[Memory, Memory]] = []
    for memory in members:
        key = normalise(memory.content)
        if key in firsts:
            duplicates.append((memory, firsts[key]))
        else:
            firsts[key] = memory
    return list(firsts.values()), duplicates


def cluster_tags(members: Sequence[Memory], first: Memory) -> list[str]:
    """The union of tags, the representative's first: the first tag is the bundle section."""
    return list(dict.fromkeys(t for m in (first, *members) for t in m.tags))


def entry_probe(first: Memory, tags: Sequence[str]) -> Signature:
    """How a cluster is compared with entries: what an entry made of it would say (title,
    guidance, tags), guarded by the numbers of everything it says."""
    guidance, _rest = guidance_and_rest(first.title, first.content)
    return Signature.of(f"{first.title}.\n{guidance}\n{' '.join(tags)}", guidance,
                        facts=f"{first.title}\n{first.content}")


def _spread(members: Sequence[Memory]) -> str:
    agents = len({m.agent_id for m in members})
    sessions = len({m.metadata.get("session_id") for m in members if m.metadata.get("session_id")})
    text = f"{counted(len(members), 'memory', 'memories')} from {counted(agents, 'agent')}"
    return f"{text}, {counted(sessions, 'session')}" if sessions else text


class _Dream:
    """One run's state: the entry index, the drafts of live entries, the slugs taken so far."""

    def __init__(self, dream_input: DreamInput) -> None:
        self.input = dream_input
        self.now = dream_input.now
        self.threshold = dream_input.config.dream.similarity
        self.index: EntryIndex = build_entry_index(dream_input.snapshot)
        self.drafts = Drafts()
        self.replacements: list[Replacement] = []
        self.slugs = set(dream_input.snapshot.slugs())
        self.next_suffix: dict[str, int] = {}  # many clusters may share a title: no rescans
        self.paths = set(dream_input.snapshot.entries) | {
            str(problem.path) for problem in dream_input.snapshot.problems}
        self.matched = 0
        self.created = 0

    def cluster(self, cluster: Cluster) -> list[Proposal]:
        """Discards for exact duplicates, then a create, or nothing yet (the entry's draft grows)."""
        unique, duplicates = split_exact_duplicates(cluster.members)
        proposals = [discard_proposal(dup, f"exact duplicate of {source_ref(first.id)}", confidence=0.99,
                                      details={"exact_duplicate": True})
                     for dup, first in duplicates]
        # The representative may itself be a duplicate; the memory it repeats stands for it.
        first = next((kept for dup, kept in duplicates if dup.id == cluster.representative.id),
                     cluster.representative)
        tags = cluster_tags(unique, first)
        match = None
        if may_match(cluster.signature, self.index):
            match = match_entry(entry_probe(first, tags), self.index, self.threshold)
        if match is not None:
            self._extend(match[0], match[1], unique)
        else:
            proposals.append(self._create(first, unique, tags, cluster))
        return proposals

    def _extend(self, entry: Entry, score: float, members: list[Memory]) -> None:
        self.matched += 1
        draft = self.drafts(entry)
        paragraphs = new_paragraphs(members, draft.body)
        if paragraphs:
            draft.merge_facts(members, paragraphs, self.now,
                              f"{_spread(members)} add {counted(len(paragraphs), 'paragraph')} (match {score:.0f})",
                              confidence=0.5 + score / 250, asks_human=entry.pinned)
        else:
            draft.confirm(members, max(m.submitted_at for m in members),
                          f"{_spread(members)} repeat this entry", confidence=0.9, cite=True)
        self.replacements.extend(Replacement(m, entry.slug) for m in members)

    def _slug_and_path(self, title: str, kind: str, when: datetime) -> tuple[str, str]:
        base = slugify(title)
        number = self.next_suffix.get(base, 1)
        while True:
            slug = base if number == 1 else f"{base}-{number}"
            path = entry_path(slug, kind, when)
            number += 1
            if slug not in self.slugs and path not in self.paths:
                self.next_suffix[base] = number
                self.slugs.add(slug)
                self.paths.add(path)
                return slug, path

    def _create(self, first: Memory, members: list[Memory], tags: list[str], cluster: Cluster) -> Proposal:
        self.created += 1
        recurs = len(cluster.agents) >= 2 or len(cluster.sessions) >= 2
        kind = "topic" if recurs else "incident"
        title = clip(first.title, TITLE_CHARS)
        slug, path = self._slug_and_path(title, kind, min(m.submitted_at for m in members))
        guidance, rest = guidance_and_rest(first.title, first.content)
        others = [m for m in members if m.id != first.id]
        body_parts = [guidance, *rest]
        body_parts += new_paragraphs(others, "\n\n".join(body_parts))
        meta: dict[str, Any] = {
            "title": title, "slug": slug, "type": kind, "tags": tags,
            "created_at": self.now, "updated_at": self.now,
            "sources": [source_ref(m.id) for m in members],
        }
        self.replacements.extend(Replacement(m, slug) for m in members)
        why = "recurs across agents or sessions" if recurs else "seen in one session"
        confidence = min(0.9, 0.5 + 0.1 * (len(cluster.members) - 1) + (0.1 if recurs else 0.0))
        return create_proposal(path=path, meta=meta, body="\n\n".join(body_parts) + "\n", kind=kind,
                               rationale=f"new {kind}: {_spread(cluster.members)}; {why}",
                               memories=members, confidence=confidence)

    def feedback(self, feedback: Sequence[Memory]) -> list[Proposal]:
        return apply_feedback(feedback, self.input.snapshot, self.now, self.drafts,
                              replacements=self.replacements, index=self.index)


def _unless_rejected(proposals: Iterable[Proposal], rejected: frozenset[str],
                     memories: dict[str, Memory]) -> list[Proposal]:
    """A change a person rejected before is not proposed again; its memories are discarded."""
    out: list[Proposal] = []
    for proposal in proposals:
        if proposal.id not in rejected or proposal.op == "discard":
            out.append(proposal)
            continue
        reason = f"{REJECTED_REASON} ({proposal.op} {proposal.target}, {proposal.id})"
        out.extend(discard_proposal(memories[i], reason) for i in proposal.evidence)
    return out


class HeuristicEngine:
    name = "heuristic"

    def __init__(self, config: Config) -> None:
        self.config = config

    async def run(self, dream_input: DreamInput, cancel: CancelToken) -> AsyncGenerator[Event, None]:
        started = time.perf_counter()
        batch = sorted(dream_input.batch, key=_order)
        memories = {m.id: m for m in batch}
        rejected = dream_input.rejected
        fresh: list[Memory] = []
        for memory in batch:
            if not memory.is_feedback and content_fingerprint(memory) in rejected:
                yield ProposalReady(discard_proposal(memory, REJECTED_REASON))
            else:
                fresh.append(memory)
        dream = _Dream(dream_input)
        clusters = cluster_memories([m for m in fresh if not m.is_feedback], dream.threshold)
        clustered = time.perf_counter()
        total = len(clusters) + 1
        for number, cluster in enumerate(clusters, start=1):
            if cancel.cancelled:
                return
            if number % YIELD_EVERY == 0:
                await asyncio.sleep(0)
            for proposal in _unless_rejected(dream.cluster(cluster), rejected, memories):
                yield ProposalReady(proposal)
            yield Progress(number, total, f"cluster {number}/{len(clusters)}: "
                                          f"{clip(cluster.representative.title, 60)}")
        if cancel.cancelled:
            return
        late = dream.feedback([m for m in fresh if m.is_feedback]) + dream.drafts.proposals()
        for proposal in _unless_rejected(late, rejected, memories):
            yield ProposalReady(proposal)
        yield Progress(total, total, "feedback and entry changes")
        yield Done({
            "clusters": len(clusters),
            "matched_entries": dream.matched,
            "new_entries": dream.created,
            "cluster_seconds": round(clustered - started, 3),
            "engine_seconds": round(time.perf_counter() - started, 3),
        })
