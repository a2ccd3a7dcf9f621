"""Builders the test modules share: workspaces, entry files, memories and hand-built changesets.

Plain functions (and `Scenario`), so module-scoped fixtures, scripts and benchmarks can call them
as well as tests; tests/conftest.py wraps the common workspaces as fixtures. Every moment is
fixed (`NOW`, `T0`), so what a test builds is the same on every run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import git
import yaml

from dreamtui.entry.codec import parse_entry, render_entry
from dreamtui.model import Changeset, Memory, NewMemory, Proposal, sha256_text
from dreamtui.review.bundle import render_bundle
from dreamtui.review.decide import all_matching, decide
from dreamtui.review.plan import context_proposal
from dreamtui.scaffold import git_init, init_workspace, seed_stm
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.ltm import LTMSnapshot, LTMStore
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace, open_workspace

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_workspace"
NOW = datetime(2026, 11, 29, 3, 0, 12, tzinfo=UTC)  # when the tests' dreams and commits happen
DREAM_ID = "d-20261129-030012-ab12"  # the id of `Scenario`'s changeset: a dream at NOW
T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)  # when `memory()`'s memories arrive (plus minutes)


# -- workspaces ---------------------------------------------------------------------------------


def minimal_workspace(root: Path, config: str = "") -> Path:
    """The smallest workspace: dreamtui.yaml holding `config` (empty: defaults apply) and the
    LTM and context folders, nothing else (no queue yet, no git)."""
    (root / "workspace" / "memory").mkdir(parents=True)
    (root / "workspace" / "context").mkdir(parents=True)
    (root / "dreamtui.yaml").write_text(config, encoding="utf-8")
    return root


def new_workspace(root: Path, *, git_repo: bool = False, **settings: Any) -> Workspace:
    """What `dreamtui init` makes; each `section__key=value` overrides one config setting."""
    workspace = init_workspace(root, git=git_repo)
    if not settings:
        return workspace
    data = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8")) or {}
    for dotted, value in settings.items():
        section, key = dotted.split("__")
        data.setdefault(section, {})[key] = value
    workspace.config_path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return open_workspace(workspace.root)


def sample_workspace(root: Path, *, seed: bool = False) -> Workspace:
    """A copy of sample_workspace/ committed to a new git repository; `seed` fills its queue from
    stm_seed.jsonl (after the commit: the queue is not tracked)."""
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__init__.py", "__pycache__",
                                                                "*.db*", ".dreamtui"))
    workspace = open_workspace(root)
    git_init(workspace)
    if seed:
        assert seed_stm(workspace, root / "stm_seed.jsonl") > 10
    return workspace


def tree_hashes(root: Path) -> dict[str, str]:
    """SHA-256 of every workspace file a commit may touch (not git's, the queue's or local state)."""
    skip = (".git", ".dreamtui")
    hashes = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and rel.parts[0] not in skip and not rel.name.startswith("stm.db"):
            hashes[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


# -- entries ------------------------------------------------------------------------------------


def entry_text(slug: str, title: str | None = None, body: str | None = None, *,
               tags: Iterable[str] = ("ci",), sources: Iterable[str] = ("stm:old-1",),
               **meta: Any) -> str:
    """An entry file as a person writes one: YAML frontmatter, each of `meta` as `key: value`
    with the value written as given (a YAML literal), then the body."""
    lines = [f"title: {title or slug}", f"slug: {slug}", "type: topic", f"tags: [{', '.join(tags)}]",
             "created_at: 2026-11-01T09:00:00Z", "updated_at: 2026-11-01T09:00:00Z",
             f"sources: [{', '.join(sources)}]", *(f"{key}: {value}" for key, value in meta.items())]
    return "---\n" + "\n".join(lines) + f"\n---\n{body or f'Guidance for {slug}.'}\n"


def write_entry(memory_root: Path, path: str, text: str) -> Path:
    """`text` as the entry file at `path` (relative to the memory root), folders made as needed."""
    target = memory_root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def snapshot_of(*entries: tuple[str, str]) -> LTMSnapshot:
    """An LTM snapshot holding (path, entry text) pairs, without any file."""
    snapshot = LTMSnapshot()
    for path, text in entries:
        snapshot.entries[path] = parse_entry(text, path)
    return snapshot


# -- memories -----------------------------------------------------------------------------------


def new_memory(title: str, type: str = "observation", content: str | None = None,
               **fields: Any) -> NewMemory:
    """A memory as an agent submits it; the content defaults to one naming the title."""
    return NewMemory(type=type, title=title, content=content or f"content of {title}", **fields)


def memory(mid: str, title: str, content: str, agent: str = "agent-a", minutes: int = 0,
           type: str = "observation", tags: tuple[str, ...] = (), **metadata: Any) -> Memory:
    """A memory as the queue hands it to a dream: stored `minutes` after T0."""
    return Memory(id=mid, tenant_id="default", agent_id=agent, type=type, title=title, content=content,
                  tags=tags, metadata=metadata, submitted_at=T0 + timedelta(minutes=minutes))


def submit(workspace: Workspace, *memories: NewMemory) -> list[str]:
    """Submit each memory to the workspace's queue, in order; their ids."""
    with STMStore.for_workspace(workspace) as store:
        return [store.submit(m).memory.id for m in memories]


# -- hand-built changesets ----------------------------------------------------------------------


class Scenario:
    """A workspace with entries, a claimed batch and a hand-built changeset (id DREAM_ID), so a
    test controls exactly what is proposed."""

    def __init__(self, root: Path, *, git_repo: bool = True, **settings: Any) -> None:
        self.ws: Workspace = new_workspace(root, **settings)
        self.git_repo = git_repo
        self.lease_id: str | None = None
        self.batch: list[str] = []

    # -- entries ---------------------------------------------------------------------------

    def entry(self, slug: str, guidance: str, *, tags: tuple[str, ...] = ("testing",),
              **meta: Any) -> str:
        path = f"topics/{slug}.md"
        full = {"title": guidance[:60], "slug": slug, "type": "topic", "tags": list(tags),
                "created_at": NOW - timedelta(days=30), "updated_at": NOW - timedelta(days=30),
                "sources": [], **meta}
        write_entry(self.ws.memory_root, path, render_entry(full, f"{guidance}\n\nDetails follow.\n"))
        return path

    def text(self, path: str) -> str:
        return (self.ws.memory_root / path).read_text(encoding="utf-8")

    def settle(self) -> None:
        """INDEX.md and the bundle as a previous commit would have left them; git baseline."""
        store = LTMStore(self.ws.memory_root)
        snapshot = store.scan()
        store.write_index(snapshot)
        self.ws.agents_md.write_text(render_bundle(snapshot.live()).text, encoding="utf-8")
        if self.git_repo:
            repo = git.Repo.init(self.ws.root)
            repo.git.add(all=True)
            actor = git.Actor("test", "test@localhost")
            repo.index.commit("baseline", author=actor, committer=actor)

    # -- the queue ---------------------------------------------------------------------------

    def submit(self, count: int, content: str = "lesson number {i}") -> None:
        with STMStore.for_workspace(self.ws) as store:
            store.submit_many([NewMemory(type="observation", title=f"memory {i}",
                                         content=content.format(i=i), agent_id=f"agent-{i % 2}")
                               for i in range(count)], now=NOW - timedelta(hours=1))

    def memories(self, count: int) -> list[str]:
        """`count` new memories, claimed under one lease as a dream would."""
        self.submit(count)
        with STMStore.for_workspace(self.ws) as store:
            lease = store.claim(limit=count, lease_minutes=24 * 60, now=NOW)
        assert lease is not None
        self.lease_id = lease.id
        self.batch = [m.id for m in lease.memories]
        return self.batch

    def states(self) -> dict[str, str]:
        with STMStore.for_workspace(self.ws) as store:
            return {m.id: m.state for m in store.get_many(self.batch)}

    # -- proposals ---------------------------------------------------------------------------

    def create(self, slug: str, guidance: str, evidence: list[str], **meta: Any) -> Proposal:
        path = f"topics/{slug}.md"
        full = {"title": guidance[:60], "slug": slug, "type": "topic", "tags": ["testing"],
                "created_at": NOW, "updated_at": NOW,
                "sources": [f"stm:{m}" for m in evidence], **meta}
        after = render_entry(full, f"{guidance}\n")
        return Proposal(id=Proposal.make_id("create", path, after), op="create", target=path,
                        slug=slug, base_sha256=None, before=None, after=after,
                        rationale="new lesson", evidence=evidence, details={"kind": "topic"})

    def _change(self, op: str, path: str, changes: dict[str, Any], evidence: list[str],
                body_suffix: str = "", **details: Any) -> Proposal:
        before = self.text(path)
        entry = parse_entry(before, path)
        meta = {**entry.meta, **changes}
        after = render_entry(meta, entry.body + body_suffix, original=entry)
        return Proposal(id=Proposal.make_id(op, path, after), op=op, target=path, slug=entry.slug,
                        base_sha256=sha256_text(before), before=before, after=after,
                        rationale=f"{op} it", evidence=evidence, details=details)

    def reinforce(self, path: str, evidence: list[str]) -> Proposal:
        entry = parse_entry(self.text(path), path)
        return self._change("reinforce", path, {"confirmations": entry.confirmations + len(evidence),
                                                "last_confirmed": NOW}, evidence,
                            confirmations=len(evidence))

    def update(self, path: str, paragraph: str, evidence: list[str]) -> Proposal:
        return self._change("update", path, {"updated_at": NOW}, evidence, f"\n{paragraph}\n",
                            added_sources=[f"stm:{m}" for m in evidence])

    def weaken(self, path: str, evidence: list[str], asks_human: bool = False) -> Proposal:
        details: dict[str, Any] = {"flags": 1}
        if asks_human:
            details["asks_human"] = True
        return self._change("weaken", path, {"flags": 1, "last_flagged": NOW}, evidence,
                            "\nCaveat: flagged once.\n", **details)

    def archive(self, path: str, evidence: list[str], reason: str = "flags were right",
                superseded_by: str | None = None) -> Proposal:
        changes: dict[str, Any] = {"retired_at": NOW, "retired_reason": reason}
        if superseded_by:
            changes["superseded_by"] = superseded_by
        return self._change("archive", path, changes, evidence, archive_path=f"archive/{path}",
                            reason=reason, superseded_by=superseded_by)

    def discard(self, memory_id: str, reason: str = "duplicate of an entry",
                exact: bool = False) -> Proposal:
        target = f"stm:{memory_id}"
        return Proposal(id=Proposal.make_id("discard", target, None), op="discard", target=target,
                        slug=None, base_sha256=None, before=None, after=None, rationale=reason,
                        evidence=[memory_id],
                        details={"reason": reason, **({"exact_duplicate": True} if exact else {})})

    def changeset(self, proposals: list[Proposal], *, with_context: bool = True,
                  engine: str = "heuristic") -> Changeset:
        changeset = Changeset(id=DREAM_ID, engine=engine, created_at=NOW.isoformat(),
                              lease_id=self.lease_id, batch=list(self.batch),
                              proposals=list(proposals), complete=True)
        if with_context:
            snapshot = LTMStore(self.ws.memory_root).scan()
            context = context_proposal(changeset, snapshot, self.ws, NOW)
            if context is not None:
                changeset.proposals.append(context)
        ChangesetStore(self.ws.dreams_dir).save(changeset)
        return changeset

    def load(self) -> Changeset:
        return ChangesetStore(self.ws.dreams_dir).load(DREAM_ID)

    def decide_all(self, decision: str = "accept") -> None:
        decide(self.ws, DREAM_ID, all_matching(), decision, now=NOW)

    def log_lines(self) -> list[str]:
        return LTMStore(self.ws.memory_root).log_lines(newest_first=False)


def basic(tmp_path: Path, **settings: Any) -> tuple[Scenario, dict[str, Proposal]]:
    """Two entries, five memories and one proposal of each kind."""
    s = Scenario(tmp_path / "ws", **settings)
    db = s.entry("test-db-reset", "Run make db-reset before integration tests.", confirmations=2)
    ports = s.entry("ci-ports", "CI Postgres listens on 5432.")
    s.settle()
    m = s.memories(5)
    proposals = {
        "create": s.create("alembic-first", "Apply alembic migrations before seeding.", [m[0]]),
        "reinforce": s.reinforce(db, [m[1], m[2]]),
        "archive": s.archive(ports, [m[3]], superseded_by="alembic-first"),
        "discard": s.discard(m[4], exact=True),
    }
    s.changeset(list(proposals.values()))
    return s, proposals


# -- another process holding the workspace lock ------------------------------------------------

_LOCK_HOLDER = textwrap.dedent("""
    import sys, time
    from dreamtui.workspace.layout import open_workspace
    from dreamtui.store.lock import WorkspaceLock
    ws = open_workspace(sys.argv[1])
    with WorkspaceLock(ws, "test holder").acquire():
        print("held", flush=True)
        time.sleep(60)
""")


def hold_lock_in_subprocess(workspace: Workspace) -> subprocess.Popen[str]:
    """A live process holding `workspace`'s lock (as "test holder") until the caller kills it."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen([sys.executable, "-c", _LOCK_HOLDER, str(workspace.root)], env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc
