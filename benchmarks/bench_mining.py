"""What `dreamtui import claude-code` finds in real Claude Code logs: counts by kind, a sample
to judge, and the properties a person can check without judging (speed, ANSI, repeats).

Run:

    PYTHONPATH=src python benchmarks/bench_mining.py CORPUS [CORPUS ...] [--holdout SLUG,SLUG]
        [--sample 40] [--seed 12] [--show-sample] [--dump FILE]

Each CORPUS is a folder of real logs in one of the layouts they are published in, copied into a
temporary folder in Claude Code's own layout (`<projects>/<slug>/<session>.jsonl`,
`<projects>/<slug>/<session>/subagents/…`) before the import:

- Claude Code's own (`<slug>/<session>.jsonl`), as in `~/.claude/projects`;
- a backup layout (`<slug>/sessions/<session>.jsonl`, `<slug>/subagents/<session>/…`);
- a flat folder of transcripts (`<session>.jsonl`, `<session>/subagents/…`), each placed under
  the slug of the `cwd` its records carry.

Each slug folder is imported as its own project (the `cwd` whose slug it is) into one fresh
workspace, then imported again with nothing new. Printed: logs, MB and MB/s of wall-clock and of
CPU time (target >= 100; the CPU figure holds on a shared machine), the slowest re-import of a
project (target < 0.1 s), memories by kind (tuned-on and held-out apart when `--holdout`
names slug folders), memories holding ANSI escapes (target 0), record uuids stored in two
memories (target 0), rejections without the person's reason, corrections by the rule that made
them, and with `--show-sample` a seeded random sample of memories to judge by hand. Real logs
are never committed: pass their folder.

`benchmarks/run.py mining` runs it over the folders in `DREAMTUI_MINING_CORPUS` (separated by
`:`), and skips it when that is unset.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from dreamtui.intake.claude_code.discovery import project_slug
from dreamtui.intake.claude_code.importer import ImportOptions, ImportReport, import_logs
from dreamtui.model import NewMemory
from dreamtui.workspace.layout import Workspace, open_workspace

THROUGHPUT_TARGET = 100.0  # MB/s
REIMPORT_TARGET_S = 0.1
_ANSI = re.compile(r"\x1b\[|\x1b\]|\u241b\[")
_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')


def _first_cwd(path: Path) -> str | None:
    with open(path, "rb") as handle:
        for line in handle:
            found = _CWD.search(line)
            if found:
                value = json.loads(found.group(1))
                return value if isinstance(value, str) else None
    return None


def _copy_tree(source: Path, target: Path) -> None:
    for path in source.rglob("*.jsonl"):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


def to_claude_layout(source: Path, projects: Path) -> None:
    """Copy the logs under `source` into `projects` in Claude Code's layout (module docstring)."""
    flat = sorted(p for p in source.glob("*.jsonl") if p.is_file())
    for path in flat:
        cwd = _first_cwd(path)
        folder = projects / project_slug(cwd or "/unknown")
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / path.name)
        subagents = source / path.stem / "subagents"
        if subagents.is_dir():
            _copy_tree(subagents, folder / path.stem / "subagents")
    if flat:
        return
    for slug in sorted(p for p in source.iterdir() if p.is_dir()):
        sessions = slug / "sessions"
        if not sessions.is_dir():
            _copy_tree(slug, projects / slug.name)  # already Claude Code's layout
            continue
        for path in sorted(sessions.glob("*.jsonl")):
            (projects / slug.name).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, projects / slug.name / path.name)
        subagents = slug / "subagents"
        for session in sorted(subagents.iterdir()) if subagents.is_dir() else ():
            _copy_tree(session, projects / slug.name / session.name / "subagents")


def _project_of(folder: Path) -> str:
    """The project a slug folder is Claude Code's folder of: the cwd whose slug it is."""
    seen: Counter[str] = Counter()
    for path in folder.glob("*.jsonl"):
        cwd = _first_cwd(path)
        if cwd:
            seen[cwd] += 1
    exact = [cwd for cwd, _ in seen.most_common() if project_slug(cwd) == folder.name]
    if exact:
        return exact[0]
    return min(seen, key=len) if seen else "/" + folder.name.strip("-").replace("-", "/")


def _age(projects: Path) -> None:
    finished = time.time() - 86_400  # no log is a live session
    for path in projects.rglob("*.jsonl"):
        os.utime(path, (finished, finished))


def _workspace(root: Path) -> Workspace:
    root.mkdir()
    (root / "dreamtui.yaml").write_text("", encoding="utf-8")
    return open_workspace(root)


def _repeated_uuids(memories: list[NewMemory]) -> int:
    owners: Counter[str] = Counter()
    for memory in memories:
        for uuid in set(memory.metadata.get("record_uuids") or ()):
            owners[uuid] += 1
    return sum(1 for count in owners.values() if count > 1)


def mine(corpora: list[Path], holdout: set[str]) -> dict[str, Any]:
    """Import every slug folder of the corpora; the figures and memories of the run."""
    with tempfile.TemporaryDirectory(prefix="dreamtui-bench-mining-") as tmp:
        root = Path(tmp)
        layout = root / "layout"
        for corpus in corpora:
            to_claude_layout(corpus, layout)
        _age(layout)
        workspace = _workspace(root / "ws")
        memories: dict[str, list[NewMemory]] = {"tuned": [], "held-out": []}
        totals = Counter[str]()
        full_s = again_s = cpu_s = slowest_again = 0.0
        for folder in sorted(p for p in layout.iterdir() if p.is_dir()):
            # One projects folder per slug: a project's subfolder slugs are imported on their own.
            alone = root / "alone" / folder.name
            alone.mkdir(parents=True)
            folder.rename(alone / folder.name)
            options = ImportOptions(projects_dir=alone, project=_project_of(alone / folder.name))
            started, cpu = time.perf_counter(), time.process_time()
            report: ImportReport = import_logs(workspace, options)
            full_s += time.perf_counter() - started
            cpu_s += time.process_time() - cpu
            started = time.perf_counter()
            again = import_logs(workspace, options)
            took = time.perf_counter() - started
            again_s += took
            slowest_again = max(slowest_again, took)
            totals["logs"] += report.logs
            totals["read"] += report.read
            totals["other_project"] += report.other_project
            for name in ("replayed", "single_errors", "before_since"):
                totals[name] += getattr(report, name, 0)
            totals["bytes"] += report.stats.bytes_read
            totals["reimported"] += again.read + again.inserted
            part = "held-out" if folder.name in holdout else "tuned"
            memories[part].extend(report.memories)
    return {"totals": totals, "full_s": full_s, "again_s": again_s, "cpu_s": cpu_s,
            "slowest_again": slowest_again, "memories": memories}


def _kinds(memories: list[NewMemory]) -> Counter[str]:
    return Counter(str(m.metadata.get("kind")) for m in memories)


def _line(memory: NewMemory) -> str:
    first = memory.content.splitlines()[0] if memory.content else ""
    return f"[{memory.metadata.get('kind')}] {memory.title} | {first[:160]}"


def report(result: dict[str, Any], sample: int, seed: int, show: bool) -> list[dict[str, Any]]:
    totals, memories = result["totals"], result["memories"]
    everything = memories["tuned"] + memories["held-out"]
    mb = totals["bytes"] / 1_000_000
    speed = mb / result["full_s"] if result["full_s"] else 0.0
    cpu_speed = mb / result["cpu_s"] if result["cpu_s"] else 0.0
    print(f"{totals['logs']} logs, {totals['read']} read, {totals['other_project']} of another "
          f"project, {mb:.1f} MB in {result['full_s']:.2f} s ({result['cpu_s']:.2f} s of CPU, "
          f"{cpu_speed:.0f} MB/s); re-import {result['again_s']:.3f} s over every project, "
          f"{result['slowest_again']:.3f} s the slowest; "
          f"{totals['replayed']} replayed frictions dropped, {totals['single_errors']} one-off "
          "tool errors dropped")
    for part, found in memories.items():
        if found:
            kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(_kinds(found).items()))
            print(f"{part}: {len(found)} memories: {kinds}")
    ansi = sum(1 for m in everything if _ANSI.search(m.title + m.content))
    twice = _repeated_uuids(everything)
    reasonless = [m for m in everything
                  if m.metadata.get("kind") == "rejection" and not m.metadata.get("reason")]
    print(f"ANSI in {ansi} memories; {twice} record uuids in two memories; "
          f"{len(reasonless)} rejections without the person's reason")
    # Which rule made each correction (`corrections.correction_rule`, or the agent's reply:
    # "acknowledged", "answered_no", "agreed"): what a sample of each is judged by.
    rules = Counter(str(m.metadata.get("rule")) for m in everything if m.metadata.get("kind") == "correction")
    if rules:
        print("corrections by rule: " + ", ".join(f"{rule} {count}" for rule, count in rules.most_common()))
    if show:
        for part, found in memories.items():
            rng = random.Random(seed)
            picked = rng.sample(found, min(sample, len(found)))
            print(f"\n-- {part}: {len(picked)} memories sampled (seed {seed}) --")
            for number, memory in enumerate(picked, 1):
                print(f"{number:2}. {_line(memory)}")
    return [
        {"name": f"mining: import ({mb:.0f} MB real logs)", "value": speed, "unit": "MB/s",
         "target": f">= {THROUGHPUT_TARGET:.0f}", "ok": speed >= THROUGHPUT_TARGET},
        {"name": f"mining: import, CPU time ({mb:.0f} MB)", "value": cpu_speed, "unit": "MB/s",
         "target": f">= {THROUGHPUT_TARGET:.0f}", "ok": cpu_speed >= THROUGHPUT_TARGET},
        {"name": "mining: re-import of a project, nothing new", "value": result["slowest_again"],
         "unit": "s", "target": f"< {REIMPORT_TARGET_S}",
         "ok": result["slowest_again"] < REIMPORT_TARGET_S and totals["reimported"] == 0},
        {"name": "mining: memories with ANSI escapes", "value": ansi, "unit": "memories",
         "target": "0", "ok": ansi == 0},
        {"name": "mining: record uuids stored twice", "value": twice, "unit": "uuids",
         "target": "0", "ok": twice == 0},
    ]


def run(quick: bool = False) -> list[dict[str, Any]]:
    corpora = [Path(p) for p in os.environ.get("DREAMTUI_MINING_CORPUS", "").split(":") if p]
    if not corpora:
        print("mining: skipped (set DREAMTUI_MINING_CORPUS to folders of real Claude Code logs)",
              file=sys.stderr)
        return []
    return report(mine(corpora, set()), 40, 12, show=False)


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="+", type=Path)
    parser.add_argument("--holdout", default="", help="slug folders kept aside from tuning")
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--show-sample", action="store_true")
    parser.add_argument("--dump", type=Path, help="write every memory as JSON lines here")
    args = parser.parse_args(argv)
    result = mine(args.corpus, {s for s in args.holdout.split(",") if s})
    rows = report(result, args.sample, args.seed, args.show_sample)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for part, found in result["memories"].items():
                for memory in found:
                    out.write(json.dumps({"part": part, "title": memory.title,
                                          "content": memory.content,
                                          "metadata": memory.metadata}, ensure_ascii=False) + "\n")
    for row in rows:
        ok = "" if row["ok"] is None else ("yes" if row["ok"] else "NO")
        print(f"{row['name']:50} {row['value']:>10,.3f} {row['unit']:9} {row['target']:>7}  {ok}")
    return 0 if all(row["ok"] is not False for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
