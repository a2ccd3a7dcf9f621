"""The guard every engine's output passes before it enters a changeset.

Whatever an engine proposes (heuristic or LLM), a proposal that breaks the changeset contract —
an op outside the vocabulary, evidence outside the batch, a target outside the memory root or in
the wrong layout, a stale base hash, an engine pinning or archiving a pinned entry, an id that is
not the hash of its content — is refused with the reason of the first rule it breaks, and the
refusal is kept, visibly, in the changeset.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dreamtui.entry.codec import parse_entry
from dreamtui.errors import EntryError
from dreamtui.model import CONTEXT_TARGET, OPS, Entry, Proposal, Refusal
from dreamtui.safety.paths import UnsafePathError, resolve_inside, validate_slug
from dreamtui.store.ltm import LTMSnapshot, archive_path
from dreamtui.workspace.config import Config

_TOPIC_RE = re.compile(r"topics/(?P<slug>[^/]+)\.md")
_INCIDENT_RE = re.compile(r"incidents/(?P<month>\d{4}-\d{2})/(?P=month)-\d{2}-(?P<slug>[^/]+)\.md")


class _Refuse(Exception):
    """Internal: the first rule a proposal breaks."""


def _check(condition: bool, reason: str) -> None:
    if not condition:
        raise _Refuse(reason)


def _check_slug(slug: str | None) -> str:
    _check(slug is not None, "missing slug")
    assert slug is not None
    try:
        return validate_slug(slug)
    except ValueError as exc:
        raise _Refuse(str(exc)) from None


_PLAIN_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _parsed_after(proposal: Proposal) -> Entry:
    _check(bool(proposal.after), "no after-text")
    try:
        parsed = parse_entry(proposal.after or "", proposal.target)
    except EntryError as exc:
        raise _Refuse(f"after-text is not a valid entry: {exc}") from None
    _check(parsed.slug == proposal.slug,
           f"after-text has slug {parsed.slug!r}, the proposal says {proposal.slug!r}")
    return parsed


class Guard:
    """`enforce` for one dream: the folders a target resolves through are checked once each
    (resolving symlinks costs several system calls per path; a dream proposes thousands)."""

    def __init__(self, snapshot: LTMSnapshot, config: Config, *, batch_ids: Iterable[str],
                 memory_root: Path) -> None:
        self.snapshot = snapshot
        self.config = config
        self.batch = frozenset(batch_ids)
        self.root = memory_root
        self.root_text = str(memory_root)
        self._folders: dict[str, str | None] = {}

    def check(self, proposals: Iterable[Proposal]) -> tuple[list[Proposal], list[Refusal]]:
        kept: list[Proposal] = []
        refusals: list[Refusal] = []
        for proposal in proposals:
            try:
                self._check_one(proposal)
            except _Refuse as refused:
                refusals.append(Refusal(op=str(proposal.op), target=str(proposal.target),
                                        reason=str(refused), raw=_raw(proposal)))
            else:
                kept.append(proposal)
        return kept, refusals

    def _outside(self, relative: str) -> str | None:
        try:
            resolve_inside(self.root, relative)
        except UnsafePathError as exc:
            return f"target outside the memory root: {exc}"
        return None

    def _check_inside(self, target: str) -> bool:
        """Refuse a target that resolves outside the root; return whether something is there."""
        path = os.path.join(self.root_text, target)
        try:
            is_link = stat.S_ISLNK(os.lstat(path).st_mode)
            exists = True
        except OSError:
            is_link = exists = False  # nothing there, so nothing to follow
        folder, _, name = target.rpartition("/")
        if not folder or not _PLAIN_NAME_RE.fullmatch(name) or is_link:
            problem = self._outside(target)
        else:
            if folder not in self._folders:
                self._folders[folder] = self._outside(folder)
            problem = self._folders[folder]
        _check(problem is None, problem or "")
        return exists

    def _check_create(self, proposal: Proposal) -> None:
        slug = _check_slug(proposal.slug)
        layout = _TOPIC_RE.fullmatch(proposal.target) or _INCIDENT_RE.fullmatch(proposal.target)
        _check(layout is not None and layout["slug"] == slug,
               f"target must be topics/{slug}.md or incidents/YYYY-MM/YYYY-MM-DD-{slug}.md")
        occupied = self._check_inside(proposal.target)
        existing = self.snapshot.by_slug(slug)
        _check(existing is None, f"slug {slug!r} already exists live ({getattr(existing, 'path', '')})")
        _check(proposal.target not in self.snapshot.entries and not occupied,
               f"a file already exists at {proposal.target}")
        _check(proposal.before is None and proposal.base_sha256 is None, "a create has no before-text")
        after = _parsed_after(proposal)
        _check(not after.pinned, "an engine cannot pin an entry; only a person can")

    def _check_entry_op(self, proposal: Proposal) -> None:
        self._check_inside(proposal.target)
        entry = self.snapshot.entries.get(proposal.target)
        _check(entry is not None and not entry.archived, f"{proposal.target} is not a live entry")
        assert entry is not None
        _check(proposal.slug == entry.slug, f"slug {proposal.slug!r} is not the entry's ({entry.slug!r})")
        _check(proposal.base_sha256 == entry.sha256 and proposal.before == entry.raw,
               "base_sha256 does not match the entry as this dream read it")
        after = _parsed_after(proposal)
        if proposal.op == "reinforce":
            _check(after.body == entry.body, "a reinforce changes counters and sources, not the body")
        if proposal.op == "archive":
            _check(proposal.details.get("archive_path") == archive_path(entry.path),
                   f"details.archive_path must be {archive_path(entry.path)}")
        if proposal.op == "promote":
            _check(after.route == "bundle", "a promote puts the entry into the bundle (route: bundle)")
            moved = proposal.details.get("promote_path")
            if moved is not None:
                _check(moved == f"topics/{entry.slug}.md" and after.kind == "topic",
                       f"details.promote_path must be topics/{entry.slug}.md, the entry a topic")
                _check(moved not in self.snapshot.entries and not self._check_inside(str(moved)),
                       f"a file already exists at {moved}")
        if self.config.ltm.enforce_pinned and entry.pinned:
            _check(after.pinned, "a dream cannot unpin an entry")
            _check(proposal.op == "reinforce"
                   or (proposal.op != "archive" and bool(proposal.details.get("asks_human"))),
                   f"{entry.path} is pinned: a dream may only reinforce it or ask the human")
        elif after.pinned and not entry.pinned:
            raise _Refuse("an engine cannot pin an entry; only a person can")

    def _check_one(self, proposal: Proposal) -> None:
        _check(proposal.op in OPS, f"op {proposal.op!r} is not one of {', '.join(OPS)}")
        if proposal.op != "context":
            _check(bool(proposal.evidence), "no evidence: every proposal rests on batch memories")
        outside = [i for i in proposal.evidence if i not in self.batch]
        _check(not outside, f"evidence not in this dream's batch: {', '.join(outside[:3])}")
        if proposal.op == "discard":
            memory_id = proposal.target.removeprefix("stm:")
            _check(proposal.target.startswith("stm:") and memory_id in self.batch,
                   "a discard targets stm:<id> of a batch memory")
            _check(proposal.evidence == [memory_id], "a discard's evidence is the memory it discards")
            _check(proposal.after is None, "a discard has no after-text")
        elif proposal.op == "context":
            _check(proposal.target == CONTEXT_TARGET, f"a context proposal targets {CONTEXT_TARGET}")
        elif proposal.op == "create":
            self._check_create(proposal)
        else:
            _check_slug(proposal.slug)
            self._check_entry_op(proposal)
        _check(proposal.id == Proposal.make_id(proposal.op, proposal.target, proposal.after),
               "id is not the hash of op, target and after-text")


def enforce(proposals: Iterable[Proposal], snapshot: LTMSnapshot, config: Config, *,
            batch_ids: Iterable[str], memory_root: Path) -> tuple[list[Proposal], list[Refusal]]:
    """(proposals that keep the contract, refusals naming the rule each other one broke)."""
    return Guard(snapshot, config, batch_ids=batch_ids, memory_root=memory_root).check(proposals)


def _raw(proposal: Proposal) -> dict[str, Any]:
    # `before` is the entry as it stands: the reviewer has it; keeping it would double the file.
    raw = proposal.to_dict()
    raw.pop("before", None)
    return raw
