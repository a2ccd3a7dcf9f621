"""The search index behind `search_memory` (store/search.py) on a large memory.

Run: `PYTHONPATH=src python benchmarks/bench_search.py [ENTRIES]` (default 10,000 entries written
by generate.write_entries: 60% topics, 40% incidents, the wording of generated facts).

Measured: building the index from nothing; a read when nothing changed (every search pays this
stat walk); one search end to end, median and 95th percentile over queries an agent would type
(a fact's system, symptom and fix number); the read after ten entries changed (what a commit's
refresh pays); listing every live entry (`resources/list`). Found@5: for each query, whether the
entry it was made from is among the first five results (synthetic facts, many alike by design:
it shows the ranking works, not how it does on a real memory).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from dreamtui.entry.codec import parse_entry  # noqa: E402
from dreamtui.store.search import SearchIndex  # noqa: E402
from generate import write_entries  # noqa: E402

DEFAULT_ENTRIES = 10_000
QUERIES = 60
BUILD_TARGET_S = 10.0
# An agent's tool call: well under a second even on a loaded 2-core machine.
SEARCH_P95_TARGET_S = 0.5
SYNC_TARGET_S = 0.25


def _timed(func: Callable[[], Any]) -> tuple[float, float, Any]:
    started, started_cpu = time.perf_counter(), time.process_time()
    result = func()
    return time.perf_counter() - started, time.process_time() - started_cpu, result


def _queries(memory: Path, count: int) -> list[tuple[str, str]]:
    """(query, slug it was made from): the words an agent who met the problem would use."""
    rng = random.Random(11)
    files = sorted(memory.rglob("*.md"))
    out = []
    for path in rng.sample(files, count):
        entry = parse_entry(path.read_text(encoding="utf-8"), path.relative_to(memory).as_posix())
        guidance = entry.body.split("\n", 1)[0]  # "When <system> <symptom> <place>, <fix>."
        situation, fix = guidance.removeprefix("When ").split(", ", 1)
        words = situation.split()
        numbers = [w.strip(".`") for w in fix.split() if any(c.isdigit() for c in w)]
        out.append((" ".join([*words[:3], *numbers[:1], "how to fix"]), entry.slug))
    return out


def run(quick: bool = False, count: int | None = None) -> list[dict[str, Any]]:
    count = count or (DEFAULT_ENTRIES // 10 if quick else DEFAULT_ENTRIES)
    with tempfile.TemporaryDirectory(prefix="dreamtui-bench-search-") as folder:
        memory = Path(folder) / "memory"
        write_entries(memory, count)
        index = SearchIndex(memory, Path(folder) / ".dreamtui" / "search.db")
        build = _timed(index.sync)
        unchanged = min((_timed(index.sync) for _ in range(3)), key=lambda t: t[0])
        queries = _queries(memory, min(QUERIES, count))
        latencies, cpus, found, with_detail, found_detail = [], [], 0, 0, 0
        for query, slug in queries:
            wall, cpu, hits = _timed(lambda q=query: index.search(q, 5))  # type: ignore[misc]
            latencies.append(wall)
            cpus.append(cpu)
            hit = any(h.slug == slug for h in hits)
            found += hit
            if any(c.isdigit() for c in query):  # the fix's number: a detail only this entry has
                with_detail += 1
                found_detail += hit
        for path in sorted(memory.rglob("*.md"))[:10]:
            path.write_text(path.read_text(encoding="utf-8") + "\nEdited once more.\n", encoding="utf-8")
        changed = _timed(index.sync)
        listed = _timed(index.slugs)
        size = sum(p.stat().st_size for p in index.path.parent.iterdir())
    p95 = statistics.quantiles(latencies, n=20)[-1]
    return [
        _row("build from nothing", count, build[0], build[1], f"{build[2].total:,} indexed, "
             f"{size / 1e6:.1f} MB on disk", BUILD_TARGET_S),
        _row("read, nothing changed (stat walk)", count, unchanged[0], unchanged[1], "best of 3",
             SYNC_TARGET_S),
        _row("search_memory, median", count, statistics.median(latencies), statistics.median(cpus),
             f"{len(queries)} queries, limit 5, sync included"),
        _row("search_memory, p95", count, p95, statistics.quantiles(cpus, n=20)[-1],
             f"found@5 {found}/{len(queries)}; {found_detail}/{with_detail} of those naming a "
             "detail (synthetic)", SEARCH_P95_TARGET_S),
        _row("read after 10 entries changed", count, changed[0], changed[1],
             f"{changed[2].indexed} re-read"),
        _row("list every live entry", count, listed[0], listed[1], f"{len(listed[2]):,} resources"),
    ]


def _row(step: str, entries: int, seconds: float, cpu: float, note: str,
         target: float | None = None) -> dict[str, Any]:
    return {"name": f"search: {step}, {entries:,} entries", "value": seconds, "unit": "s",
            "target": f"< {target:g} s" if target else "", "ok": None if target is None else seconds < target,
            "step": step, "entries": entries, "seconds": seconds, "cpu_seconds": cpu, "note": note}


if __name__ == "__main__":
    rows = run(count=int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ENTRIES)
    print(f"{'step':<36} {'entries':>8} {'wall s':>8} {'cpu s':>8}  note")
    for r in rows:
        print(f"{r['step']:<36} {r['entries']:>8,} {r['seconds']:>8.3f} {r['cpu_seconds']:>8.3f}  {r['note']}")
