"""How fast `dreamtui import codex` reads Codex CLI rollouts, and how fast it re-imports nothing.

Run: `PYTHONPATH=src python benchmarks/bench_codex.py [--quick]`. It writes a synthetic corpus of
believable rollouts (~100 MB; 10 MB with --quick) in the shapes real ones hold (reads 1-3 of
public rollouts): a session_meta with its base instructions, Codex's developer message and the
AGENTS.md and environment_context user messages, turn contexts, reasoning items and events,
token counts, shell calls whose output (hundreds of lines) is mostly the output item alone,
without an exec_command_end event; one call in eight failing with kilobytes of output (a test
log, npm's), turns that paste a log, a declined command every few dozen turns; and 40% of the
rollouts in the older layout (items at the top level, state lines, outputs as
`{output, metadata}`). It times a full import into a fresh workspace (target >= 100 MB/s, CPU
time beside wall-clock) and a second import with nothing new (target < 0.1 s).

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
SESSION_MB = (0.05, 1.5)  # real rollouts: tens of KB to a few MB, half a MB on average
THROUGHPUT_TARGET = 100.0  # MB/s
REIMPORT_TARGET_S = 0.1
_WORDS = ("the config loader reads settings from the environment and falls back to defaults "
          "while the request handler validates input before it reaches the database layer").split()
OLDER_LAYOUT_SHARE = 0.4  # real reads hold rollouts of mid-2025 Codex too (read 3: 60% of its bytes)


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _listing(rng: random.Random, lines: int) -> str:
    """A command's output as real ones are: many short lines (a search's matches, a file)."""
    return "\n".join(f"src/{rng.choice(_WORDS)}_{i}.py:{rng.randint(1, 900)}: {_prose(rng, 9)}"
                     for i in range(lines))


def _test_log(rng: random.Random) -> str:
    """A failing test run's output: kilobytes of passing lines, then the failure."""
    passed = "\n".join(f"tests/test_{rng.choice(_WORDS)}.py::test_{i} PASSED"
                       for i in range(rng.randint(40, 160)))
    return (f"{passed}\n=================================== FAILURES ===\n"
            f"E       AssertionError: assert {rng.randint(1, 9)} == {rng.randint(10, 99)}\n"
            f"FAILED tests/test_loader.py::test_defaults - AssertionError\n"
            f"==== 1 failed, {rng.randint(40, 160)} passed in 3.2s ====")


class _Rollout:
    """One believable rollout in the shapes real ones hold (module docstring): Codex CLI's
    current layout, or with `older` the mid-2025 one (items at the top level, state lines)."""

    def __init__(self, rng: random.Random, session: str, older: bool = False) -> None:
        self.rng, self.session, self.older = rng, session, older
        self.lines: list[str] = []
        self.calls = 0
        if older:
            self.lines.append(json.dumps({"id": session, "timestamp": "2025-08-03T10:00:00Z",
                                          "instructions": None, "git": None},
                                         separators=(",", ":")))
        else:
            self._emit("session_meta", {"id": session, "cwd": PROJECT, "originator": "codex_cli_rs",
                                        "cli_version": "0.146.0", "source": "cli",
                                        "base_instructions": {"text": _prose(rng, 3000)}})
            self._item({"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": "<permissions instructions>" + _prose(rng, 600)}]})
        self._item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"# AGENTS.md instructions for {PROJECT}\n" + _prose(rng, 900)}]})
        self._item({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n  <cwd>{PROJECT}</cwd>\n"
                                           "</environment_context>"}]})

    def _emit(self, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append(json.dumps({"timestamp": "2026-08-03T10:00:00.000Z", "type": kind,
                                      "payload": payload}, separators=(",", ":")))

    def _item(self, item: dict[str, Any]) -> None:
        if self.older:
            self.lines.append(json.dumps(item, separators=(",", ":")))
        else:
            self._emit("response_item", item)

    def _event(self, event: dict[str, Any]) -> None:
        if not self.older:  # the older layout wrote no events
            self._emit("event_msg", event)

    def turn(self) -> None:
        rng = self.rng
        if not self.older:
            self._emit("turn_context", {"cwd": PROJECT, "approval_policy": "on-request",
                                        "model": "gpt-5.6", "summary": "auto"})
        text = _prose(rng, 30)
        if rng.random() < 0.15:  # a turn that pastes a log, or the IDE's files around it
            text = f"{text}\n```\n{_listing(rng, rng.randint(20, 200))}\n```"
        self._item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
        self._event({"type": "user_message", "message": text, "images": []})
        for _ in range(rng.randint(2, 8)):
            self._item({"type": "reasoning", "summary": [],
                        "encrypted_content": "gAAAA" + "x" * rng.randint(500, 6000)})
            self._event({"type": "agent_reasoning", "text": _prose(rng, 25)})
            self._shell()
            self._event({"type": "token_count", "info": {"total_token_usage": {
                "input_tokens": rng.randint(1000, 90000), "output_tokens": 300}}})
        reply = _prose(rng, 80)
        self._event({"type": "agent_message", "message": reply})
        self._item({"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": reply}]})
        if rng.random() < 0.04:
            self._shell(declined=True)
            text = "never run that here; " + _prose(rng, 12)
            self._item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
            self._event({"type": "user_message", "message": text, "images": []})

    def _shell(self, declined: bool = False) -> None:
        rng = self.rng
        self.calls += 1
        call_id = f"call_{self.calls}"
        command = rng.choice(["rg config src", "pytest -q tests", "cat src/app.py", "git status",
                              "sed -n 1,200p src/loader.py", "npm run build"])
        failed = not declined and rng.random() < 0.12
        if declined:
            output, code = "exec command rejected by user", -1
        elif failed:
            output, code = rng.choice([
                (_test_log(rng), 1),
                ("npm ERR! code ELIFECYCLE\nnpm ERR! " + _prose(rng, 12) + "\n" + _listing(rng, 30), 1),
                ("bash: line 1: pnpm: command not found", 127),
                ("rg: src/missing: No such file or directory (os error 2)", 2)])
        else:
            output, code = _listing(rng, rng.randint(5, 400)), 0
        self._item({"type": "function_call", "name": "shell", "call_id": call_id,
                    "arguments": json.dumps({"command": ["bash", "-lc", command]})})
        if rng.random() < 0.3:  # most real calls have no exec_command_end event: the output item
            self._event({"type": "exec_command_end", "call_id": call_id,
                         "command": ["bash", "-lc", command], "exit_code": code,
                         "stdout": output, "stderr": "", "aggregated_output": output,
                         "status": "declined" if declined else "completed"})
        framed = (json.dumps({"output": output, "metadata": {"exit_code": code,
                                                             "duration_seconds": 0.2}},
                             separators=(",", ":"))
                  if self.older else f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{output}")
        self._item({"type": "function_call_output", "call_id": call_id, "output": framed})
        if self.older:
            self.lines.append('{"record_type":"state"}')

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def write_corpus(folder: Path, megabytes: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    total, index = 0, 0
    old = time.time() - 3 * 86400
    while total < megabytes * 1_000_000:
        rollout = _Rollout(rng, f"019f{index:04d}-bench", older=rng.random() < OLDER_LAYOUT_SHARE)
        target = rng.uniform(*SESSION_MB) * 1_000_000
        while sum(map(len, rollout.lines)) < target:
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
        start, cpu = time.perf_counter(), time.process_time()
        report = import_rollouts(workspace, options)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        start = time.perf_counter()
        again = import_rollouts(workspace, options)
        reimport = time.perf_counter() - start
        assert again.read == 0 and report.inserted > 0
        mb = size / 1_000_000
        return [
            {"name": f"import codex: {mb:.0f} MB, {report.read} rollouts, {report.inserted} memories",
             "value": mb / elapsed, "unit": "MB/s", "target": f">= {THROUGHPUT_TARGET:.0f}",
             "ok": mb / elapsed >= THROUGHPUT_TARGET},
            {"name": "import codex: the same, CPU time", "value": mb / max(cpu, 1e-9),
             "unit": "MB/s", "target": f">= {THROUGHPUT_TARGET:.0f}",
             "ok": mb / max(cpu, 1e-9) >= THROUGHPUT_TARGET},
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
