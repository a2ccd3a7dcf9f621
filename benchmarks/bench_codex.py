"""How fast `dreamtui import codex` reads Codex CLI rollouts, and how fast it re-imports nothing.

Run: `PYTHONPATH=src python benchmarks/bench_codex.py [--quick]`. It writes a synthetic corpus of
believable rollouts (~100 MB; 10 MB with --quick) in Codex CLI's shape — a session_meta with its
base instructions, turn contexts, reasoning items, token counts, shell calls with their
exec_command_end events and outputs, agent messages — with a declined command or a failing
command every few dozen turns, then times a full import into a fresh workspace (target
>= 100 MB/s) and a second import with nothing new (target < 0.1 s).

Over real rollouts: `PYTHONPATH=src python benchmarks/bench_codex.py --sessions-dir DIR
[--sample 20] [--seed 7] [--show-sample] [--dump FILE]` imports every project the rollouts' `cwd`s name (the
deepest first, so a rollout goes to the most specific one) into one fresh workspace, imports
again with nothing new, and prints MB/s of wall-clock and CPU time, the slowest re-import, the
memories by kind, how many hold ANSI escapes, and with `--show-sample` a seeded random sample to
judge by hand (`--dump` writes every memory as JSON lines, to judge a larger sample). Real
rollouts are never committed: pass their folder.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from dreamtui.intake.codex.importer import CodexOptions, find_rollouts, import_rollouts, rollout_cwd
from dreamtui.scaffold import init_workspace
from dreamtui.store.stm import STMStore

PROJECT = "/home/bench/webapp"
FULL_MB, QUICK_MB = 100, 10
SESSION_MB = 2.5
THROUGHPUT_TARGET = 100.0  # MB/s
REIMPORT_TARGET_S = 0.1
_WORDS = ("the config loader reads settings from the environment and falls back to defaults "
          "while the request handler validates input before it reaches the database layer").split()


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


class _Rollout:
    def __init__(self, rng: random.Random, session: str) -> None:
        self.rng, self.session, self.lines, self.calls = rng, session, [], 0
        self._emit("session_meta", {"id": session, "cwd": PROJECT, "originator": "codex_cli_rs",
                                    "cli_version": "0.146.0", "source": "cli",
                                    "base_instructions": {"text": _prose(rng, 3000)}})

    def _emit(self, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append(json.dumps({"timestamp": "2026-08-03T10:00:00.000Z", "type": kind,
                                      "payload": payload}, separators=(",", ":")))

    def turn(self) -> None:
        rng = self.rng
        self._emit("turn_context", {"cwd": PROJECT, "approval_policy": "on-request",
                                    "model": "gpt-5.6", "summary": "auto"})
        text = _prose(rng, 30)
        self._emit("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": text}]})
        self._emit("event_msg", {"type": "user_message", "message": text, "images": []})
        for _ in range(rng.randint(2, 6)):
            self._emit("response_item", {"type": "reasoning", "summary": [],
                                         "encrypted_content": "gAAAA" + "x" * rng.randint(500, 4000)})
            self._shell()
            self._emit("event_msg", {"type": "token_count", "info": {"total_token_usage": {
                "input_tokens": rng.randint(1000, 90000), "output_tokens": 300}}})
        reply = _prose(rng, 80)
        self._emit("event_msg", {"type": "agent_message", "message": reply})
        self._emit("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": reply}]})
        if rng.random() < 0.04:
            self._shell(declined=True)
            text = "never run that here; " + _prose(rng, 12)
            self._emit("event_msg", {"type": "user_message", "message": text, "images": []})

    def _shell(self, declined: bool = False) -> None:
        rng = self.rng
        self.calls += 1
        call_id = f"call_{self.calls}"
        command = rng.choice(["rg config src", "pytest -q tests", "cat src/app.py", "git status"])
        failed = not declined and rng.random() < 0.05
        output = ("exec command rejected by user" if declined else
                  "error: " + _prose(rng, 8) if failed else _prose(rng, rng.randint(50, 1500)))
        code = -1 if declined else (1 if failed else 0)
        self._emit("response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                     "arguments": json.dumps({"command": ["bash", "-lc", command]})})
        self._emit("event_msg", {"type": "exec_command_end", "call_id": call_id,
                                 "command": ["bash", "-lc", command], "exit_code": code,
                                 "stdout": output, "stderr": "", "aggregated_output": output,
                                 "status": "declined" if declined else "completed"})
        self._emit("response_item", {"type": "function_call_output", "call_id": call_id,
                                     "output": f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{output}"})

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def write_corpus(folder: Path, megabytes: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    total, index = 0, 0
    old = time.time() - 3 * 86400
    while total < megabytes * 1_000_000:
        rollout = _Rollout(rng, f"019f{index:04d}-bench")
        while sum(map(len, rollout.lines)) < SESSION_MB * 1_000_000:
            rollout.turn()
        day = folder / "2026" / "08" / f"{1 + index % 28:02d}"
        day.mkdir(parents=True, exist_ok=True)
        path = day / f"rollout-2026-08-03T10-00-00-{rollout.session}.jsonl"
        text = rollout.text()
        path.write_text(text, encoding="utf-8")
        os.utime(path, (old, old))
        total += len(text.encode("utf-8"))
        index += 1
    return total


def run(quick: bool = False) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        sessions = Path(tmp) / "sessions"
        size = write_corpus(sessions, QUICK_MB if quick else FULL_MB)
        workspace = init_workspace(Path(tmp) / "ws", git=False)
        options = CodexOptions(sessions_dir=sessions, project=PROJECT)
        start = time.perf_counter()
        report = import_rollouts(workspace, options)
        elapsed = time.perf_counter() - start
        start = time.perf_counter()
        again = import_rollouts(workspace, options)
        reimport = time.perf_counter() - start
        assert again.read == 0 and report.inserted > 0
        mb = size / 1_000_000
        return [
            {"name": f"import codex: {mb:.0f} MB, {report.read} rollouts, {report.inserted} memories",
             "value": mb / elapsed, "unit": "MB/s", "target": f">= {THROUGHPUT_TARGET:.0f}",
             "ok": mb / elapsed >= THROUGHPUT_TARGET},
            {"name": "import codex: unchanged re-import", "value": reimport, "unit": "s",
             "target": f"< {REIMPORT_TARGET_S}", "ok": reimport < REIMPORT_TARGET_S},
        ]


def mine(sessions: Path, sample: int, seed: int, show: bool,
         dump: Path | None = None) -> list[dict[str, Any]]:
    """Import real rollouts project by project; print what was stored (module docstring)."""
    projects = sorted({cwd for cwd in map(rollout_cwd, find_rollouts(sessions)) if cwd},
                      reverse=True)
    with tempfile.TemporaryDirectory() as tmp:
        workspace = init_workspace(Path(tmp) / "ws", git=False)
        size, wall, cpu = 0, time.perf_counter(), time.process_time()
        for project in projects:
            report = import_rollouts(workspace, CodexOptions(sessions_dir=sessions, project=project,
                                                             include_live=True))
            size += report.stats.bytes_read
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        slowest, reread = 0.0, 0
        for project in projects:
            start = time.perf_counter()
            again = import_rollouts(workspace, CodexOptions(sessions_dir=sessions, project=project,
                                                            include_live=True))
            slowest = max(slowest, time.perf_counter() - start)
            reread += again.read
        with STMStore.for_workspace(workspace) as store:
            memories = list(store.page(limit=100_000))
    kinds = Counter(str(m.metadata.get("kind")) for m in memories)
    if dump is not None:
        with open(dump, "w", encoding="utf-8") as out:
            for memory in memories:
                out.write(json.dumps({"title": memory.title, "content": memory.content,
                                      "metadata": memory.metadata}, ensure_ascii=False) + "\n")
    ansi = sum(1 for m in memories if "\x1b" in m.title + m.content)
    mb = size / 1_000_000
    print(f"{len(projects)} projects, {mb:.1f} MB; {len(memories)} memories: "
          + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))
    if show:
        picked = random.Random(seed).sample(memories, min(sample, len(memories)))
        print(f"-- {len(picked)} memories sampled (seed {seed}) --")
        for number, memory in enumerate(picked, 1):
            print(f"{number:2}. [{memory.metadata.get('kind')}] {memory.title}\n"
                  f"    {memory.metadata.get('log')} {memory.metadata.get('timestamp')}")
    return [
        {"name": f"import codex: {mb:.0f} MB real rollouts, wall-clock", "value": mb / wall,
         "unit": "MB/s", "target": f">= {THROUGHPUT_TARGET:.0f}", "ok": mb / wall >= THROUGHPUT_TARGET},
        {"name": f"import codex: {mb:.0f} MB real rollouts, CPU time", "value": mb / max(cpu, 1e-9),
         "unit": "MB/s", "target": f">= {THROUGHPUT_TARGET:.0f}",
         "ok": mb / max(cpu, 1e-9) >= THROUGHPUT_TARGET},
        {"name": "import codex: slowest unchanged re-import of a project", "value": slowest,
         "unit": "s", "target": f"< {REIMPORT_TARGET_S}", "ok": slowest < REIMPORT_TARGET_S},
        {"name": "import codex: rollouts read again by an unchanged re-import", "value": reread,
         "unit": "rollouts", "target": "0", "ok": reread == 0},
        {"name": "import codex: memories with ANSI escapes", "value": ansi, "unit": "memories",
         "target": "0", "ok": ansi == 0},
    ]


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 10 MB synthetic corpus")
    parser.add_argument("--sessions-dir", type=Path, help="a folder of real Codex rollouts")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show-sample", action="store_true")
    parser.add_argument("--dump", type=Path, help="write every memory as JSON lines here")
    args = parser.parse_args(argv)
    rows = mine(args.sessions_dir, args.sample, args.seed, args.show_sample, args.dump) \
        if args.sessions_dir \
        else run(quick=args.quick)
    for row in rows:
        print(f"{row['name']:60} {row['value']:10.3f} {row['unit']:8} target {row['target']}")
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
