"""Many processes on one workspace for a fixed amount of work; afterwards nothing is lost or doubled.

Against ONE git workspace, at the same time: two CLI submitters (`submit --jsonl -` batches and
single `submit`, every memory with an idempotency key, some keys re-sent), one agent over the
MCP server on stdio (the real `mcp` client), two headless dream loops (`--headless dream
--auto-apply safe --force`), a review loop that accepts everything open (`decide D --all accept`,
`commit D`; a refused commit is abandoned) and a reader paging the queue in-process.

The dream and review loops run the real CLI through a thin wrapper that records, from inside
the workspace lock, the interval each process held it and each dream ran (CLOCK_MONOTONIC is
one clock for every process on the machine), so "never two dreams at once" is checked on the
lock holders themselves rather than on wall-clock guesses.

The load is counted, not timed, so it is the same on a fast machine and a slow one:
DREAMTUI_STRESS_ITERATIONS sets the rounds of each CLI submitter (default 15: about 20 s here; a
round is a JSONL batch and a single submit), the MCP agent submits five times as often, and the
dream, review and reader loops run until the last submitter is done.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import git
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from dreamtui.errors import CommitRefused, InputError
from dreamtui.review.bundle import dangling_markers
from dreamtui.review.commit import abandon, commit
from dreamtui.review.decide import all_matching, decide
from dreamtui.scaffold import init_workspace
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.journal import pending_journals
from dreamtui.store.ltm import LTMStore, render_index
from dreamtui.store.stm import MemoryFilter, STMStore
from dreamtui.workspace.layout import Workspace, open_workspace

pytestmark = pytest.mark.slow  # a fixed load of about 20 s of subprocesses

SRC = str(Path(__file__).resolve().parents[2] / "src")
ROUNDS = int(os.environ.get("DREAMTUI_STRESS_ITERATIONS", "15"))
MCP_SUBMITS = 5 * ROUNDS  # at an agent's pace this lasts about as long as the CLI submitters' rounds
CALL_TIMEOUT = 180  # one CLI call; generous, because other suites load this machine too
HUNG_AFTER = CALL_TIMEOUT + 20 * ROUNDS  # seconds; a worker still busy then hangs (a round takes ~1.5 s)
TOPICS = (
    "Run make db-reset before the integration tests",
    "CI Postgres listens on port 5433 not 5432",
    "Use uv sync instead of pip install in this repo",
    "The staging deploy needs the VPN up first",
    "Regenerate the OpenAPI client after changing a route",
    "Flaky test_upload passes when run with -p no:randomly",
)
ASIDES = ("Seen again today.", "This bit me on the CI box.", "Confirmed while pairing.",
          "Still true after the upgrade.")

# The wrapper the dream and review loops run: the real CLI, plus interval records written from
# inside the workspace lock. Only the outermost hold is recorded (the lock is re-entrant).
WRAPPER = textwrap.dedent("""
    import os, time
    from contextlib import contextmanager
    import dreamtui.cli
    from dreamtui import headless
    from dreamtui.store import lock
    from dreamtui.cli.main import main

    LOG = os.environ["STRESS_INTERVALS"]
    depth = [0]

    def record(line):
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(line + "\\n")

    original_acquire = lock.WorkspaceLock.acquire

    @contextmanager
    def acquire(self, wait=False):
        with original_acquire(self, wait) as held:
            depth[0] += 1
            start = time.monotonic_ns()
            try:
                yield held
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    record(f"lock {os.getpid()} {start} {time.monotonic_ns()} {self.operation!r}")

    original_dream = headless._dream_once

    def dream_once(*args, **kwargs):
        start = time.monotonic_ns()
        result = original_dream(*args, **kwargs)
        dream_id = result.summary.get("dream_id")
        if dream_id:
            record(f"dream {os.getpid()} {start} {time.monotonic_ns()} {dream_id}")
        return result

    lock.WorkspaceLock.acquire = acquire
    headless._dream_once = dream_once
    main(prog_name="dreamtui")
""")


@dataclass
class Tally:
    """What the workers did; filled from several threads, so every change takes the lock."""

    guard: threading.Lock = field(default_factory=threading.Lock)
    cli_keys: set[str] = field(default_factory=set)  # every key a CLI submitter sent
    mcp_ids: set[str] = field(default_factory=set)
    submits: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    dreams: list[str] = field(default_factory=list)
    skips: int = 0
    commits: int = 0
    abandoned: int = 0
    decides: int = 0
    pages: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, **changes: Any) -> None:
        with self.guard:
            for name, value in changes.items():
                current = getattr(self, name)
                if isinstance(current, set):
                    current.update(value)
                elif isinstance(current, list):
                    current.extend(value)
                elif isinstance(current, Counter):
                    current.update(value)
                else:
                    setattr(self, name, current + value)


class Stress:
    def __init__(self, root: Path, intervals: Path) -> None:
        self.root = root
        self.intervals = intervals
        self.submitters: list[threading.Thread] = []
        self.tally = Tally()
        self.env = {k: v for k, v in os.environ.items() if k != "DREAMTUI_WORKSPACE"}
        self.env.update(PYTHONPATH=SRC, STRESS_INTERVALS=str(intervals))

    def running(self) -> bool:
        """Whether memories are still arriving: the dream, review and reader loops go on until not."""
        return any(thread.is_alive() for thread in self.submitters)

    def cli(self, *args: str, stdin: str | None = None,
            wrapped: bool = False) -> subprocess.CompletedProcess[str]:
        entry = ["-c", WRAPPER] if wrapped else ["-m", "dreamtui"]
        proc = subprocess.run([sys.executable, *entry, "--workspace", str(self.root), *args],
                              input=stdin, capture_output=True, text=True, env=self.env,
                              timeout=CALL_TIMEOUT)
        if "Traceback" in proc.stdout + proc.stderr:
            self.tally.add(errors=[f"traceback from {args}: {proc.stderr[-2000:]}"])
        return proc

    def fail(self, what: str, proc: subprocess.CompletedProcess[str]) -> None:
        self.tally.add(errors=[f"{what}: exit {proc.returncode}\n{proc.stdout[-1000:]}\n"
                               f"{proc.stderr[-1000:]}"])


def _record(name: str, n: int) -> dict[str, Any]:
    # Few topics, worded alike and without numbers (the clusterer keeps texts whose numbers
    # differ apart): memories merge, and later dreams update or reinforce earlier entries.
    topic = TOPICS[(n * 7 + len(name)) % len(TOPICS)]
    return {"type": ("observation", "failure")[n % 2], "title": topic,
            "content": f"{topic}. {ASIDES[n % len(ASIDES)]}", "agent_id": name,
            "tags": ["stress", name], "idempotency_key": f"{name}-{n}"}


def cli_submitter(s: Stress, name: str) -> None:
    """ROUNDS rounds: a JSONL batch of three (re-sending one earlier key now and then), then one
    single submit."""
    n = 0
    for _ in range(ROUNDS):
        batch = [_record(name, n + i) for i in range(3)]
        resend = [_record(name, n - 2)] if (n // 4) % 2 else []  # a key of the previous batch
        n += 3
        stdin = "".join(json.dumps(r) + "\n" for r in batch + resend)
        proc = s.cli("submit", "--jsonl", "-", stdin=stdin)
        match = re.fullmatch(r"(\d+) submitted, (\d+) duplicates?, 0 bad lines\n", proc.stdout)
        if proc.returncode != 0 or match is None or int(match.group(1)) != 3 \
                or int(match.group(2)) != len(resend):
            s.fail(f"{name} submit --jsonl", proc)
            return
        s.tally.add(cli_keys={r["idempotency_key"] for r in batch},
                    submits={"cli-jsonl": 3}, duplicates=len(resend))
        one = _record(name, n)
        n += 1
        proc = s.cli("submit", "--type", one["type"], "--title", one["title"], "--content",
                     one["content"], "--agent", name, "--idempotency-key", one["idempotency_key"])
        if proc.returncode != 0 or not proc.stdout.startswith("submitted "):
            s.fail(f"{name} submit", proc)
            return
        s.tally.add(cli_keys={one["idempotency_key"]}, submits={"cli-single": 1})


def mcp_submitter(s: Stress) -> None:
    """An agent over stdio: MCP_SUBMITS new memories, a re-sent key now and then, confirmations of
    live slugs."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "dreamtui", "--workspace", str(s.root), "mcp",
                                         "--agent", "mcp-agent"], env=s.env)

    async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(tool, args)
        envelope: dict[str, Any] = json.loads(result.content[0].text)
        if not envelope.get("ok"):
            raise AssertionError(f"MCP {tool} refused: {envelope}")
        return envelope["result"]

    async def run() -> None:
        first_ids: dict[str, str] = {}
        with anyio.fail_after(HUNG_AFTER):
            async with Client(params) as client:
                for n in range(MCP_SUBMITS):
                    record = _record("mcp", n)
                    record.pop("agent_id")
                    [result] = (await call(client, "submit_memory", record))["submitted"]
                    first_ids[record["idempotency_key"]] = result["id"]
                    s.tally.add(mcp_ids={result["id"]}, submits={"mcp": 1})
                    if n % 4 == 3:
                        again = _record("mcp", n - 2)
                        again.pop("agent_id")
                        [repeat] = (await call(client, "submit_memory", again))["submitted"]
                        if repeat["id"] != first_ids[again["idempotency_key"]]:
                            raise AssertionError(f"idempotency key re-sent over MCP: {repeat}")
                        s.tally.add(duplicates=1)
                    if n % 5 == 4:
                        slugs = re.findall(r"\[mem: ([a-z0-9-]+)\]", _bundle_text(s.root))
                        if slugs:
                            confirmed = await call(client, "confirm_context",
                                                   {"target": slugs[n % len(slugs)]})
                            s.tally.add(mcp_ids={confirmed["memory_id"]}, submits={"mcp-confirm": 1})
                    await anyio.sleep(0.25)  # an agent's pace: the CLI submitters share the cores

    try:
        anyio.run(run)
    except Exception as exc:  # reported through the tally: a worker thread cannot fail the test
        s.tally.add(errors=[f"MCP submitter: {type(exc).__name__}: {exc}"])


def _bundle_text(root: Path) -> str:
    try:
        return (root / "workspace" / "context" / "AGENTS.md").read_text(encoding="utf-8")
    except OSError:
        return ""


def dream_loop(s: Stress) -> None:
    while s.running():
        proc = s.cli("--headless", "dream", "--auto-apply", "safe", "--force", "--json",
                     wrapped=True)
        try:
            summary = json.loads(proc.stdout)
        except ValueError:
            summary = {}
        if proc.returncode != 0 or summary.get("exit_code") != 0:
            s.fail("headless dream", proc)
            return
        if summary.get("dream_id"):
            s.tally.add(dreams=[summary["dream_id"]])
            time.sleep(1.0)  # leave the review loop room to commit between dreams, as cron would
        else:
            s.tally.add(skips=1)  # the lock was held by the other loop or a commit, or nothing pending


def review_loop(s: Stress) -> None:
    """Accept everything open and commit it, as a person would between dreams."""
    while s.running():
        proc = s.cli("review", "list", "--open", "--json")
        if proc.returncode != 0:
            s.fail("review list", proc)
            return
        open_ids = [item["id"] for item in json.loads(proc.stdout) if item["complete"]]
        if not open_ids:
            time.sleep(0.2)
        for dream_id in open_ids:
            if not s.running():
                return
            review_one(s, dream_id)


def review_one(s: Stress, dream_id: str) -> None:
    proc = s.cli("decide", dream_id, "--all", "accept")
    if proc.returncode == 0:
        s.tally.add(decides=1)
    elif proc.returncode != 2 or "nothing to accept" not in proc.stderr:
        s.fail(f"decide {dream_id}", proc)  # exit 2 only when no undecided proposal is left
        return
    proc = s.cli("commit", dream_id, "--json", wrapped=True)
    if proc.returncode == 0 and proc.stdout.strip():
        report = json.loads(proc.stdout)
        if report["status"] == "committed":
            s.tally.add(commits=1)
    elif proc.returncode == 4 and "workspace locked" in proc.stderr:
        pass  # a dream holds the lock: this dream is taken up again on the next round
    elif proc.returncode == 3:
        # Files changed since this dream read them (another dream committed first): a person
        # would look and abandon; the batch returns to the queue for the next dream.
        proc = s.cli("abandon", dream_id)
        if proc.returncode == 0:
            s.tally.add(abandoned=1)
        elif not (proc.returncode == 4 and "workspace locked" in proc.stderr):
            s.fail(f"abandon {dream_id}", proc)  # locked: abandoned on a later round
    elif not (proc.returncode == 2 and "no proposal is decided" in proc.stderr):
        s.fail(f"commit {dream_id}", proc)


def reader(s: Stress, db: Path) -> None:
    filters = [MemoryFilter(), MemoryFilter(state="pending"), MemoryFilter(state="consumed"),
               MemoryFilter(text="postgres"), MemoryFilter(state="claimed", exclude_feedback=True)]
    try:
        with STMStore(db, busy_timeout_ms=20_000) as store:
            n = 0
            while s.running():
                flt = filters[n % len(filters)]
                total = store.count(flt)
                for offset in range(0, min(total, 200), 25):
                    store.page(flt, offset=offset, limit=25, newest_first=bool(n % 2))
                    s.tally.add(pages=1)
                store.counts()
                n += 1
                time.sleep(0.02)
    except Exception as exc:
        s.tally.add(errors=[f"reader: {type(exc).__name__}: {exc}"])


def settle(workspace: Workspace, tally: Tally) -> int:
    """After the load: accept and commit (or, when refused, abandon) every dream still open.

    In-process, because the load is over; it leaves every memory consumed or pending, except
    those resting on proposals with safety marks, which are never decided in bulk.
    """
    settled = 0
    for summary in ChangesetStore(workspace.dreams_dir).open_changesets():
        try:
            decide(workspace, summary.id, all_matching(), "accept")
        except InputError:
            pass  # nothing left to accept; what was accepted before is still to commit
        try:
            commit(workspace, summary.id)
            tally.add(commits=1)
        except CommitRefused:
            abandon(workspace, summary.id)
            tally.add(abandoned=1)
        except InputError:
            continue  # nothing decided: only proposals with safety marks remain
        settled += 1
    return settled


# -- checks -----------------------------------------------------------------------------------


def _intervals(path: Path) -> dict[str, list[tuple[int, int, int, str]]]:
    found: dict[str, list[tuple[int, int, int, str]]] = {"lock": [], "dream": []}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            kind, pid, start, end, label = line.split(" ", 4)
            found[kind].append((int(start), int(end), int(pid), label))
    return found


def _overlaps(spans: list[tuple[int, int, int, str]]) -> list[str]:
    ordered = sorted(spans)
    return [f"{a[3]} (pid {a[2]}) and {b[3]} (pid {b[2]})"
            for a, b in zip(ordered, ordered[1:], strict=False) if b[0] < a[1]]


def _rows(db: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(row) for row in conn.execute(
            "SELECT id, agent_id, idempotency_key, consumed_at, consumed_by_lease FROM stm_memories")]


def _ltm_sources(store: LTMStore) -> Counter[str]:
    snapshot = store.scan()
    assert snapshot.problems == [], snapshot.problems
    sources: Counter[str] = Counter()
    for entry in snapshot.entries.values():
        for source in entry.meta.get("sources") or []:
            if str(source).startswith("stm:"):
                sources[str(source)[4:]] += 1
    return sources


def test_processes_share_one_workspace_without_losing_or_doubling_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workspace = init_workspace(tmp_path / "ws", git=True)
    config = workspace.config_path.read_text(encoding="utf-8")
    config = re.sub(r"min_hours: 6\b", "min_hours: 0", config)
    config = re.sub(r"min_pending: 5\b", "min_pending: 1", config)
    # Generous under a loaded CI machine: a writer waiting 5 s would be the machine, not the code.
    config = re.sub(r"busy_timeout_ms: 5000\b", "busy_timeout_ms: 30000", config)
    workspace.config_path.write_text(config, encoding="utf-8")
    root = workspace.root
    workspace = open_workspace(root)
    assert workspace.config.headless.min_pending == 1 and workspace.config.headless.min_hours == 0

    started = time.monotonic()
    s = Stress(root, tmp_path / "intervals.log")
    workers: list[tuple[Callable[..., None], tuple[Any, ...]]] = [
        (cli_submitter, (s, "cli-a")), (cli_submitter, (s, "cli-b")), (mcp_submitter, (s,)),
        (dream_loop, (s,)), (dream_loop, (s,)), (review_loop, (s,)),
        (reader, (s, workspace.stm_path))]
    threads = [threading.Thread(target=target, args=args, daemon=True) for target, args in workers]
    s.submitters = threads[:3]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.0, started + HUNG_AFTER + CALL_TIMEOUT - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads), "a worker hung"
    elapsed = time.monotonic() - started
    tally = s.tally
    assert tally.errors == [], "\n\n".join(tally.errors)
    settled = settle(workspace, tally)

    # -- every submitted memory exactly once, in exactly one state --------------------------------
    rows = _rows(workspace.stm_path)
    by_key = Counter(row["idempotency_key"] for row in rows if row["idempotency_key"])
    assert max(by_key.values(), default=1) == 1
    cli_rows = {row["idempotency_key"] for row in rows if row["agent_id"].startswith("cli-")}
    assert cli_rows == tally.cli_keys  # every key sent is stored, once; nothing else is
    mcp_rows = {row["id"] for row in rows if row["agent_id"] == "mcp-agent"}
    assert mcp_rows == tally.mcp_ids
    assert len(rows) == len(tally.cli_keys) + len(tally.mcp_ids)

    store = ChangesetStore(workspace.dreams_dir)
    changesets = {summary.id: store.load(summary.id) for summary in store.list()}
    assert len(changesets) == len(list(workspace.dreams_dir.glob("*.json")))  # all load
    assert set(tally.dreams) == set(changesets)
    by_lease = {cs.lease_id: cs for cs in changesets.values()}
    assert len(by_lease) == len(changesets)  # one lease per dream, never shared
    states: Counter[str] = Counter()
    for row in rows:
        lease = row["consumed_by_lease"]
        if row["consumed_at"] is not None:
            states["consumed"] += 1
            # consumed by exactly one dream: the one whose lease took it, and that dream committed,
            # or auto-applied its safe part (the rest then stays open, or was abandoned later)
            owner = by_lease.get(lease)
            assert owner is not None, f"memory {row['id']} consumed by unknown lease {lease}"
            assert owner.status in ("committed", "open") or owner.stats.get("committed"), \
                (row["id"], owner.id, owner.status)
        elif lease is not None:
            states["claimed"] += 1
            owner = by_lease.get(lease)
            assert owner is not None and owner.status == "open", (row["id"], lease)
            assert row["id"] in owner.batch, (row["id"], owner.id)
        else:
            states["pending"] += 1
    for cs in changesets.values():
        if cs.status == "open":  # after settling, only proposals with safety marks still wait
            assert all(p.safety for p in cs.proposals if p.decision is None)
            continue
        for memory_id in cs.batch:  # a closed dream holds nothing: consumed by it, or returned
            row = next(r for r in rows if r["id"] == memory_id)
            assert row["consumed_by_lease"] != cs.lease_id or row["consumed_at"] is not None
    # no memory rests in two entries: it was consumed by one dream, once
    sources = _ltm_sources(LTMStore(workspace.memory_root))
    assert [m for m, n in sources.items() if n > 1] == []
    consumed_ids = {row["id"] for row in rows if row["consumed_at"] is not None}
    assert set(sources) <= consumed_ids

    # -- never two dreams (or a dream and a commit) at once -------------------------------------
    spans = _intervals(s.intervals)
    assert len(spans["dream"]) == len(tally.dreams)
    assert _overlaps(spans["dream"]) == []
    assert _overlaps(spans["lock"]) == []

    # -- LTM, INDEX.md, the bundle and git agree ---------------------------------------------------
    assert pending_journals(workspace) == []
    snapshot = LTMStore(workspace.memory_root).scan()
    index = (workspace.memory_root / "INDEX.md").read_text(encoding="utf-8")
    assert index == render_index(snapshot.live())
    bundle = workspace.agents_md.read_text(encoding="utf-8")
    assert dangling_markers(bundle, snapshot.slugs()) == []
    repo = git.Repo(root)
    dirty = repo.git.status("--porcelain", "--", "workspace/memory", "workspace/context")
    assert dirty == "", dirty
    git_commits = sum(1 for c in repo.iter_commits() if "Dream-Id:" in c.message)

    figures = {
        "rounds": ROUNDS, "seconds": round(elapsed, 1),
        "submitted": len(rows), "submit_calls": dict(tally.submits),
        "duplicates_resent": tally.duplicates,
        "consumed": states["consumed"], "claimed": states["claimed"], "pending": states["pending"],
        "dreams": len(tally.dreams), "dream_skips": tally.skips, "decides": tally.decides,
        "settled_after_load": settled,
        "commits": tally.commits, "refused_then_abandoned": tally.abandoned,
        "proposals": dict(sum((Counter(cs.stats.get("ops") or {}) for cs in changesets.values()),
                              Counter())),
        "git_dream_commits": git_commits, "lock_holds": len(spans["lock"]),
        "live_entries": len(snapshot.live()), "reader_pages": tally.pages,
    }
    with capsys.disabled():
        print(f"\nstress: {json.dumps(figures)}")
    assert tally.dreams and tally.commits and states["consumed"], figures  # the load really ran
