"""STM figures: bulk submit (CLI vs bare sqlite3), single submits, and `dreamtui status`.

    python benchmarks/bench_stm.py            # full sizes (100,000 memories; a few minutes)
    python benchmarks/bench_stm.py --quick    # a tenth of every size, for a smoke run
    python benchmarks/bench_stm.py --profile  # also cProfile the bulk-submit path in-process
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
SRC = BENCH_DIR.parent / "src"
for folder in (SRC, BENCH_DIR):  # runnable from a checkout without installing the package
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from dreamtui.intake import validate  # noqa: E402
from dreamtui.model import NewMemory  # noqa: E402
from dreamtui.store.stm import BULK_CHUNK, CACHE_KIB, STMStore  # noqa: E402
from dreamtui.workspace.config import Config  # noqa: E402
from generate import generate, write_jsonl  # noqa: E402

# The CLI as a user runs it; importing intake_cmds explicitly keeps this working whether or not
# dreamtui.cli registers it yet.
RUN_CLI = "from dreamtui.cli.main import main; import dreamtui.cli.intake_cmds; main()"


@dataclass(frozen=True)
class _Run:
    wall: float  # seconds
    cpu: float  # user + system seconds of the child: the figure a busy machine does not skew
    stdout: str


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(args: list[str], stdin: Any = None) -> _Run:
    paths = [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    cpu_before = _cpu_of_children()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN_CLI, *args], stdin=stdin, env=env,
                          capture_output=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"dreamtui {' '.join(args)} exited {done.returncode}: "
                           f"{done.stderr.decode(errors='replace')[-2000:]}")
    return _Run(wall, _cpu_of_children() - cpu_before, done.stdout.decode())


def _workspace(root: Path) -> Path:
    (root / "workspace" / "memory").mkdir(parents=True)
    (root / "workspace" / "context").mkdir(parents=True)
    (root / "dreamtui.yaml").write_text("")
    return root


def _row(name: str, value: float, unit: str, target: str, ok: bool | None) -> dict[str, Any]:
    # Keys as benchmarks/run.py reads them; ok=None marks a reference figure without a target.
    return {"name": name, "value": value, "unit": unit, "target": target, "ok": ok}


def _bare_rows(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The rows the CLI would store, built ahead of time so only the insert is timed."""
    # Increasing stamps as the store writes them: equal ones would scatter the index inserts.
    start = datetime(2026, 11, 29, 3, 0, 0)
    return [(str(uuid.uuid4()), "default", r["agent_id"], r["type"], r["title"], r["content"],
             json.dumps(r.get("tags", [])), json.dumps(r.get("metadata", {})),
             (start + timedelta(microseconds=i)).isoformat(" ", "microseconds"), None, None,
             r.get("idempotency_key"), "{}") for i, r in enumerate(records)]


def _bare_insert_rate(db: Path, rows: list[tuple[Any, ...]]) -> float:
    STMStore(db).close()  # the same schema, indices and pragmas as the store's
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous = NORMAL")  # the store's per-connection pragmas
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        started = time.perf_counter()
        # The store's chunking, so the ratio measures dreamtui's own overhead, not transaction
        # size (one 100,000-row transaction spills SQLite's page cache and is slower).
        for start in range(0, len(rows), BULK_CHUNK):
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT INTO stm_memories VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows[start:start + BULK_CHUNK])
            conn.execute("COMMIT")
        return len(rows) / (time.perf_counter() - started)
    finally:
        conn.close()


def bench_bulk(tmp: Path, n: int) -> list[dict[str, Any]]:
    jsonl = write_jsonl(tmp / "bulk.jsonl", n)
    runs = []
    for attempt in range(3):  # median of 3 fresh workspaces: one run on a busy machine is noise
        ws = _workspace(tmp / f"bulk-ws-{attempt}")
        with jsonl.open("rb") as stdin:
            bulk = _cli(["-w", str(ws), "submit", "--jsonl", "-"], stdin=stdin)
        if not bulk.stdout.startswith(f"{n} submitted"):
            raise RuntimeError(f"bulk submit stored less than it read: {bulk.stdout}")
        runs.append(bulk)
    wall = statistics.median(run.wall for run in runs)
    cpu = statistics.median(run.cpu for run in runs)
    cli_rate = n / wall
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    rows = _bare_rows(records)
    # Best of two fresh files: a slow outlier in the reference would flatter the ratio.
    bare_rate = max(_bare_insert_rate(tmp / f"bare-{i}.db", rows) for i in range(2))
    memories = [NewMemory(type=r["type"], title=r["title"], content=r["content"],
                          agent_id=r["agent_id"], tags=tuple(r.get("tags", ())),
                          metadata=r.get("metadata", {}), idempotency_key=r.get("idempotency_key"))
                for r in records]
    started = time.perf_counter()
    with STMStore(tmp / "store.db") as store:
        store.submit_many(memories)
    store_rate = n / (time.perf_counter() - started)
    config = Config()
    sample = records[: min(len(records), 5000)]
    started = time.perf_counter()
    for record in sample:
        validate.from_json(record, config)
    validate_rate = len(sample) / (time.perf_counter() - started)
    return [
        _row(f"submit --jsonl, {n:,} memories (subprocess, median of 3)", cli_rate, "memories/s",
             ">= 20,000", cli_rate >= 20_000),
        _row("bare sqlite3 executemany, same rows and chunks", bare_rate, "rows/s", "(reference)",
             None),
        _row("ratio submit --jsonl / bare", cli_rate / bare_rate, "x", ">= 0.5",
             cli_rate / bare_rate >= 0.5),
        _row("submit --jsonl per CPU second (process and its workers)", n / cpu, "memories/s",
             "(reference)", None),
        _row("STMStore.submit_many alone (no validation)", store_rate, "memories/s", "(reference)",
             None),
        _row("ratio submit_many / bare", store_rate / bare_rate, "x", "(reference)", None),
        _row("intake.validate.from_json alone (incl. safety)", validate_rate, "records/s",
             "(reference)", None),
    ]


def bench_single(tmp: Path, n: int) -> list[dict[str, Any]]:
    with STMStore(tmp / "single.db") as store:
        started = time.perf_counter()
        for i in range(n):
            store.submit(NewMemory(type="observation", title=f"single {i}",
                                   content=f"one transaction each, number {i}"))
        rate = n / (time.perf_counter() - started)
    return [_row(f"STMStore.submit x {n:,}, one transaction each", rate, "memories/s", ">= 1,000",
                 rate >= 1_000)]


def bench_status(tmp: Path, memories: int, entries: int) -> list[dict[str, Any]]:
    ws = generate(tmp / "status-ws", memories, entries)
    _cli(["-w", str(ws), "status"])  # first run creates dreamtui's indices if missing; not timed
    runs = [_cli(["-w", str(ws), "status"]) for _ in range(3)]
    wall = statistics.median(run.wall for run in runs)
    cpu = statistics.median(run.cpu for run in runs)
    return [_row(f"dreamtui status, {memories:,} memories + {entries:,} entries (subprocess, "
                 "median of 3)", wall, "s", "< 1", wall < 1.0),
            _row("dreamtui status, CPU time (user + system)", cpu, "s", "(reference)", None)]


def profile_bulk(tmp: Path, n: int) -> str:
    """cProfile of the bulk path in-process (CliRunner), top functions by internal time."""
    from click.testing import CliRunner

    import dreamtui.cli.intake_cmds  # noqa: F401  (registers `submit`)
    from dreamtui.cli.main import main

    jsonl = write_jsonl(tmp / "profile.jsonl", n)
    ws = _workspace(tmp / "profile-ws")
    profiler = cProfile.Profile()
    profiler.enable()
    CliRunner().invoke(main, ["-w", str(ws), "submit", "--jsonl", str(jsonl)])
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return out.getvalue()


def run(quick: bool = False) -> list[dict[str, Any]]:
    scale = 10 if quick else 1
    with tempfile.TemporaryDirectory(prefix="dreamtui-bench-") as folder:
        tmp = Path(folder)
        return [*bench_bulk(tmp, 100_000 // scale), *bench_single(tmp, 2_000 // scale),
                *bench_status(tmp, 100_000 // scale, 10_000 // scale)]


def format_table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'benchmark':<72} {'value':>12} {'unit':<11} {'target':<11} result"]
    for row in rows:
        verdict = "-" if row["ok"] is None else ("pass" if row["ok"] else "FAIL")
        value = f"{row['value']:,.2f}" if row["value"] < 100 else f"{row['value']:,.0f}"
        lines.append(f"{row['name']:<72} {value:>12} {row['unit']:<11} {row['target']:<11} "
                     f"{verdict}")
    return "\n".join(lines)


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of every size")
    parser.add_argument("--profile", action="store_true", help="also profile the bulk path")
    args = parser.parse_args()
    print(format_table(run(quick=args.quick)))
    if args.profile:
        with tempfile.TemporaryDirectory(prefix="dreamtui-profile-") as folder:
            print(profile_bulk(Path(folder), 2_000 if args.quick else 10_000))


if __name__ == "__main__":
    _main()
