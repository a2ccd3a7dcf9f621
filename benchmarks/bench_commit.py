"""Commit figures: 1,000 accepted proposals on a synthetic workspace, journaled and git-committed.

    python benchmarks/bench_commit.py            # 1,000 proposals over 2,000 entries
    python benchmarks/bench_commit.py --quick    # a tenth, for a smoke run

The changeset is built directly (creates, reinforcements and archives in the proportions a big
dream yields, plus the context proposal), so the figure is the commit alone: lock, recovery
check, scan, plan, guard rails, journal with fsync, apply, LOG.md, INDEX.md, the bundle, STM
consumption and the git commit. Target: at most 3 s for 1,000 proposals.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
SRC = BENCH_DIR.parent / "src"
for folder in (SRC, BENCH_DIR):  # runnable from a checkout without installing the package
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from dreamtui.dream.proposals import EntryDraft, create_proposal, discard_proposal  # noqa: E402
from dreamtui.model import Changeset, Memory, Proposal, iso_z  # noqa: E402
from dreamtui.review.commit import commit  # noqa: E402
from dreamtui.review.decide import all_matching, decide  # noqa: E402
from dreamtui.review.plan import context_proposal, plan_commit  # noqa: E402
from dreamtui.store.changesets import ChangesetStore, new_dream_id  # noqa: E402
from dreamtui.store.ltm import LTMStore  # noqa: E402
from dreamtui.store.stm import STMStore  # noqa: E402
from dreamtui.workspace.layout import Workspace, open_workspace  # noqa: E402
from generate import generate  # noqa: E402

TARGET_S = 3.0
NOW = datetime(2026, 11, 29, 3, 0, tzinfo=UTC)


def _git_baseline(workspace: Workspace) -> None:
    import git

    (workspace.root / ".gitignore").write_text("*.db\n*.db-wal\n*.db-shm\n.dreamtui/\n")
    repo = git.Repo.init(workspace.root)
    repo.git.add(all=True)
    actor = git.Actor("bench", "bench@localhost")
    repo.index.commit("baseline", author=actor, committer=actor)


def _proposals(memories: list[Memory], workspace: Workspace) -> list[Proposal]:
    """Half creates, 40% reinforcements of distinct entries, 5% archives, 5% discards."""
    snapshot = LTMStore(workspace.memory_root).scan()
    # pinned entries are off limits to a dream (the guard rail would rightly refuse the commit)
    entries = iter(sorted((e for e in snapshot.live() if not e.pinned), key=lambda e: e.path))
    n = len(memories)
    proposals: list[Proposal] = []
    for i, memory in enumerate(memories):
        if i < n // 2:
            slug = f"bench-lesson-{i:05d}"
            meta = {"title": memory.title, "slug": slug, "type": "topic", "tags": list(memory.tags),
                    "created_at": NOW, "updated_at": NOW, "sources": [f"stm:{memory.id}"]}
            proposals.append(create_proposal(path=f"topics/{slug}.md", meta=meta,
                                             body=memory.content + "\n", kind="topic",
                                             rationale="new lesson", memories=[memory],
                                             confidence=0.7))
        elif i < n * 9 // 10:
            draft = EntryDraft(next(entries))
            draft.confirm([memory], NOW, "repeats the entry", 0.9)
            proposals.append(draft.to_proposal())
        elif i < n * 95 // 100:
            draft = EntryDraft(next(entries))
            draft.retire([memory], NOW, "superseded", None, 0.8)
            proposals.append(draft.to_proposal())
        else:
            proposals.append(discard_proposal(memory, "noise"))
    return proposals


def _prepare(root: Path, count: int) -> tuple[Workspace, str]:
    generate(root, memories=count + count // 4, entries=count * 2)
    workspace = open_workspace(root)
    _git_baseline(workspace)
    with STMStore.for_workspace(workspace) as store:
        lease = store.claim(limit=count, lease_minutes=24 * 60)
    assert lease is not None and len(lease.memories) == count
    changeset = Changeset(id=new_dream_id(NOW, workspace.ids), engine="bench", created_at=iso_z(NOW),
                          lease_id=lease.id, batch=[m.id for m in lease.memories],
                          proposals=_proposals(lease.memories, workspace), complete=True)
    context = context_proposal(changeset, LTMStore(workspace.memory_root).scan(), workspace, NOW)
    if context is not None:
        changeset.proposals.append(context)
    workspace.ensure_state_dirs()
    ChangesetStore(workspace.dreams_dir).save(changeset)
    return workspace, changeset.id


def _row(name: str, value: float, unit: str = "s", target: str = "",
         ok: bool | None = None) -> dict[str, Any]:
    return {"name": name, "value": value, "unit": unit, "target": target, "ok": ok}


def run(quick: bool = False) -> list[dict[str, Any]]:
    count = 100 if quick else 1_000
    with tempfile.TemporaryDirectory(prefix="dreamtui-bench-commit-") as folder:
        workspace, dream_id = _prepare(Path(folder) / "ws", count)
        started = time.perf_counter()
        decide(workspace, dream_id, all_matching(), "accept", now=NOW)
        decide_s = time.perf_counter() - started
        changeset = ChangesetStore(workspace.dreams_dir).load(dream_id)
        started = time.perf_counter()
        plan = plan_commit(changeset, LTMStore(workspace.memory_root).scan(), workspace, NOW)
        plan_s = time.perf_counter() - started
        started = time.perf_counter()
        report = commit(workspace, dream_id, now=NOW)
        commit_s = time.perf_counter() - started
    decided = sum(plan.counts.get(k, 0) for k in ("created", "reinforced", "archived", "discarded"))
    return [
        _row(f"decide --all accept ({count} proposals, one context refresh)", decide_s),
        _row(f"plan_commit ({decided} decided, preview only)", plan_s),
        _row(f"commit {decided} accepted proposals (journal + git), "
             f"{len(plan.writes)} files", commit_s, target=f"<= {TARGET_S:.0f} s",
             ok=commit_s <= TARGET_S and report.git_sha is not None),
    ]


def format_table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'benchmark':<72} {'value':>9} {'unit':<5} {'target':<8} result"]
    for row in rows:
        verdict = "-" if row["ok"] is None else ("pass" if row["ok"] else "FAIL")
        lines.append(f"{row['name']:<72} {row['value']:>9.3f} {row['unit']:<5} {row['target']:<8} "
                     f"{verdict}")
    return "\n".join(lines)


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 proposals instead of 1,000")
    print(format_table(run(quick=parser.parse_args().quick)))


if __name__ == "__main__":
    _main()
