"""How long a heuristic dream takes, and how its cost grows with the batch.

Run: `PYTHONPATH=src python benchmarks/bench_dream.py [--quick]`. Targets: a dream of 10,000
pending memories against 5,000 LTM entries in at most 10 s (claim, LTM scan, clustering, entry
matching, guard, changeset saves and the bundle proposal included), and at most 5x the time for
4x the memories (2,500 → 10,000), i.e. near-linear growth. `--quick` runs a tenth of the sizes.
Wall and CPU time are both reported: on a shared machine the first includes waiting for a core.

`--dump DIR` also writes each dream's changeset (proposals, refusals, the bundle; no timings) to
DIR/dream-<pending>.json. The workspaces and the dreams' ids are the same on every run, so a change
meant to leave the dream's output alone is checked by dumping with the code before and after it,
under one PYTHONHASHSEED (the dream itself no longer depends on it, see
tests/unit/test_dream_determinism.py, but code older than that did, on rare ties):

    PYTHONHASHSEED=0 PYTHONPATH=<old checkout>/src python benchmarks/bench_dream.py --dump /tmp/before
    PYTHONHASHSEED=0 PYTHONPATH=src python benchmarks/bench_dream.py --dump /tmp/after
    diff -r /tmp/before /tmp/after
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dreamtui.dream.runner import dream  # noqa: E402
from dreamtui.workspace.layout import open_workspace  # noqa: E402
from generate import SeededIds, generate  # noqa: E402

PENDING = (2_500, 5_000, 10_000)
ENTRIES = 5_000
TARGET_S = 10.0
TARGET_RATIO = 5.0
NOW = datetime(2026, 11, 29, 3, 0, tzinfo=UTC)


def _one(pending: int, entries: int, dump: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-dream-") as folder:
        # generate() consumes the oldest fifth, as in a workspace in use: 5/4 leaves `pending`.
        root = generate(Path(folder) / "ws", memories=pending * 5 // 4, entries=entries)
        workspace = open_workspace(root, ids=SeededIds(pending))
        started, cpu_started = time.perf_counter(), time.process_time()
        changeset = dream(workspace, now=NOW)
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
    assert changeset is not None and changeset.complete
    if dump is not None:
        output = dataclasses.asdict(changeset)
        output.pop("stats")  # timings
        dump.mkdir(parents=True, exist_ok=True)
        (dump / f"dream-{pending}.json").write_text(
            json.dumps(output, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    stats = changeset.stats
    return {"pending": len(changeset.batch), "seconds": seconds, "cpu": cpu,
            "engine": stats["engine_seconds"], "cluster": stats["engine"]["cluster_seconds"],
            "proposals": len(changeset.proposals), "ops": stats["ops"],
            "clusters": stats["engine"]["clusters"]}


def run(quick: bool = False, dump: Path | None = None) -> list[dict[str, Any]]:
    scale = 10 if quick else 1
    entries = ENTRIES // scale
    results = [_one(n // scale, entries, dump) for n in PENDING]
    rows: list[dict[str, Any]] = []
    for result in results:
        big = result is results[-1]
        rows.append({
            "name": f"dream: {result['pending']:,} memories vs {entries:,} entries",
            "value": result["seconds"], "unit": "s",
            "target": f"<= {TARGET_S:g} s" if big and not quick else "",
            "ok": result["seconds"] <= TARGET_S if big and not quick else None,
            "detail": result,
        })
        rows.append({"name": "  CPU time (wall time less waiting for a core)",
                     "value": result["cpu"], "unit": "s", "target": "", "ok": None})
        rows.append({"name": f"  engine (index + clustering {result['cluster']:.2f} s)",
                     "value": result["engine"], "unit": "s", "target": "", "ok": None})
    ratio = results[-1]["seconds"] / results[0]["seconds"]
    rows.append({"name": f"dream growth {results[0]['pending']:,} → {results[-1]['pending']:,} memories",
                 "value": ratio, "unit": "x", "target": f"<= {TARGET_RATIO:g}x",
                 "ok": ratio <= TARGET_RATIO})
    return rows


def main(argv: list[str]) -> int:
    dump = None
    if "--dump" in argv:
        at = argv.index("--dump")
        if at + 1 == len(argv):
            print("--dump: expected the folder to write the changesets to", file=sys.stderr)
            return 2
        dump = Path(argv[at + 1])
    rows = run(quick="--quick" in argv, dump=dump)
    print(f"{'benchmark':52} {'value':>10} {'unit':5} {'target':>10}  ok")
    for row in rows:
        ok = "" if row["ok"] is None else ("yes" if row["ok"] else "NO")
        print(f"{row['name']:52} {row['value']:>10.2f} {row['unit']:5} {row['target']:>10}  {ok}")
        if "detail" in row:
            detail = row["detail"]
            print(f"    {detail['proposals']:,} proposals from {detail['clusters']:,} clusters: "
                  f"{detail['ops']}")
    return 0 if all(row["ok"] is not False for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
