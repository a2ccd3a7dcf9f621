"""How fast `dreamtui import codex` reads Codex CLI rollouts, and how fast it re-imports nothing.

Run: `PYTHONPATH=src python benchmarks/bench_codex.py [--quick]`. It writes a synthetic corpus of
believable rollouts (~100 MB; 10 MB with --quick) in Codex CLI's shape — a session_meta with its
base instructions, turn contexts, reasoning items, token counts, shell calls with their
exec_command_end events and outputs, agent messages — with a declined command or a failing
command every few dozen turns, then times a full import into a fresh workspace (target
>= 100 MB/s) and a second import with nothing new (target < 0.1 s).
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dreamtui.intake.codex.importer import CodexOptions, import_rollouts
from dreamtui.scaffold import init_workspace

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


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(f"{row['name']:60} {row['value']:10.3f} {row['unit']:6} target {row['target']}")
