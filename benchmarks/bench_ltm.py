"""How fast the LTM store lists a large memory and how fast INDEX.md and the bundle render.

Run: `PYTHONPATH=src python benchmarks/bench_ltm.py [ENTRIES]` (default 10,000). The target is a
`scan()` of 10,000 entries in under a second on a 2-core machine: the TUI's Memory screen and
every dream start with one.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dreamtui.entry.codec import render_entry
from dreamtui.review.bundle import render_bundle
from dreamtui.store.ltm import LTMStore, entry_path, render_index

DEFAULT_ENTRIES = 10_000
SCAN_TARGET_S = 1.0
_TAGS = ("testing", "database", "ci", "frontend", "deploy", "api", "auth", "docs")
_START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def _entry_text(number: int) -> tuple[str, str]:
    """A believable entry: design-order frontmatter and a two-paragraph body."""
    kind = "incident" if number % 5 == 0 else "topic"
    slug = f"lesson-{number:05d}"
    when = _START + timedelta(hours=number)
    meta: dict[str, Any] = {
        "title": f"Lesson {number}: keep the {_TAGS[number % len(_TAGS)]} setup reproducible",
        "slug": slug,
        "type": kind,
        "tags": [_TAGS[number % len(_TAGS)], _TAGS[(number * 3) % len(_TAGS)]],
        "created_at": when,
        "updated_at": when + timedelta(days=2),
        "related": [f"lesson-{(number + 1) % DEFAULT_ENTRIES:05d}"],
        "sources": [f"stm:{number:08x}-0000-4000-8000-{number:012x}"],
        "confirmations": number % 7,
    }
    if number % 97 == 0:
        meta["importance"] = "pinned"
    body = (f"Run `make check-{number}` before pushing; CI runs the same target and fails on drift.\n\n"
            "Details: the target wraps lint, type checks and the fast tests so agents see the same\n"
            "failures locally that CI reports.\n")
    return entry_path(slug, kind, when), render_entry(meta, body)


def generate(root: Path, count: int) -> None:
    """Write `count` entries under `root` (a memory root)."""
    for number in range(count):
        path, text = _entry_text(number)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _timed(func: Callable[[], Any], repeat: int = 3) -> tuple[float, float, Any]:
    """Best of `repeat` runs as (wall seconds, CPU seconds), and the last result.

    CPU time is reported too because on a shared machine wall time mostly measures the neighbours.
    """
    wall, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = func()
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    return wall, cpu, result


def run(quick: bool = False, count: int | None = None) -> list[dict[str, Any]]:
    count = count or (DEFAULT_ENTRIES // 10 if quick else DEFAULT_ENTRIES)
    with tempfile.TemporaryDirectory(prefix="dreamtui-bench-") as folder:
        root = Path(folder) / "memory"
        generated = _timed(lambda: generate(root, count), repeat=1)
        store = LTMStore(root)
        first = _timed(store.scan, repeat=1)
        again = _timed(store.scan)
        snapshot = first[2]
        index = _timed(lambda: render_index(snapshot.entries.values()))
        bundle = _timed(lambda: render_bundle(snapshot.entries.values()))
    return [
        _row("generate (render_entry + write)", count, generated, ""),
        _row("LTMStore.scan, first in process", len(snapshot.entries), first,
             f"{len(snapshot.problems)} problems", target=SCAN_TARGET_S),
        _row("LTMStore.scan, again", len(snapshot.entries), again, "best of 3; value caches warm"),
        _row("render_index", count, index, f"{len(index[2].encode('utf-8')):,} bytes"),
        _row("render_bundle (24 KiB)", count, bundle,
             f"{len(bundle[2].included)} included · {len(bundle[2].left_out)} left out"),
    ]


def _row(step: str, entries: int, timing: tuple[float, float, Any], note: str,
         target: float | None = None) -> dict[str, Any]:
    """A row for benchmarks/run.py (name, value, unit, target, ok) that keeps CPU time and a note."""
    return {"name": f"ltm: {step}, {entries:,} entries", "value": timing[0], "unit": "s",
            "target": f"< {target:g} s" if target else "", "ok": None if target is None else timing[0] < target,
            "step": step, "entries": entries, "seconds": timing[0], "cpu_seconds": timing[1], "note": note}


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'step':<34} {'entries':>8} {'wall s':>8} {'cpu s':>8}  note"]
    lines += [f"{r['step']:<34} {r['entries']:>8,} {r['seconds']:>8.3f} {r['cpu_seconds']:>8.3f}  {r['note']}"
              for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    print(_table(run(count=int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ENTRIES)))
