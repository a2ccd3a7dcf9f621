"""Run every benchmark and print one table of figures against their targets.

    python benchmarks/run.py            # full scale (minutes)
    python benchmarks/run.py --quick    # one tenth, for a smoke run
    python benchmarks/run.py stm dream  # only some
    python benchmarks/run.py quality    # consolidation quality on the labelled sets
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

SUITES = ("stm", "ltm", "search", "dream", "known", "commit", "import", "mining", "codex", "prompt", "tui",
          "quality")


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    wanted = [a for a in argv if not a.startswith("-")] or list(SUITES)
    rows: list[dict] = []
    for name in wanted:
        module = importlib.import_module(f"bench_{name}")
        rows.extend(module.run(quick=quick))
    print(f"{'benchmark':58} {'value':>12} {'unit':10} {'target':>16}  ok")
    for row in rows:
        ok = "" if row.get("ok") is None else ("yes" if row["ok"] else "NO")
        print(f"{row['name']:58} {row['value']:>12,.3f} {row['unit']:10} {row.get('target', ''):>16}  {ok}")
    return 0 if all(row.get("ok") is not False for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
