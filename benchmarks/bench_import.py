"""How fast `dreamtui import claude-code` reads session logs, and how fast it re-imports nothing.

Run: `PYTHONPATH=src python benchmarks/bench_import.py [--quick]`. It writes a synthetic corpus of
believable Claude Code logs (~100 MB; 10 MB with --quick) — mostly user prompts, assistant text,
thinking, tool calls and large successful tool results, with a friction every few dozen turns —
then times a full import into a fresh workspace (target >= 30 MB/s) and a second import with
nothing new (target < 1 s: unchanged logs must not even be opened).
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

from dreamtui.intake.claude_code.discovery import project_slug
from dreamtui.intake.claude_code.importer import ImportOptions, import_logs
from dreamtui.workspace.layout import open_workspace

PROJECT = "/home/bench/webapp"
FULL_MB, QUICK_MB = 100, 10
SESSION_MB = 2.5
THROUGHPUT_TARGET = 30.0  # MB/s
REIMPORT_TARGET_S = 1.0

_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
             "if it was a file edit, the new_string was NOT written to the file). ")
_WORDS = ("the config loader reads settings from the environment and falls back to defaults "
          "while the request handler validates input before it reaches the database layer").split()


class _Session:
    """Writes one session's records in Claude Code's shape (one content block per line)."""

    def __init__(self, rng: random.Random, session: str, sidechain: bool = False) -> None:
        self.rng, self.session, self.sidechain = rng, session, sidechain
        self.parent: str | None = None
        self.count = 0
        self.lines: list[str] = []

    def _base(self, kind: str) -> dict[str, Any]:
        self.count += 1
        uuid = f"{self.session[:8]}-{self.count:06d}-4000-8000-000000000000"
        record = {"parentUuid": self.parent, "isSidechain": self.sidechain, "userType": "external",
                  "cwd": PROJECT, "sessionId": self.session, "version": "2.0.14",
                  "gitBranch": "main", "type": kind, "uuid": uuid,
                  "timestamp": f"2026-11-02T{9 + self.count // 3600 % 12:02d}:"
                               f"{self.count // 60 % 60:02d}:{self.count % 60:02d}.000Z"}
        self.parent = uuid
        return record

    def _emit(self, record: dict[str, Any]) -> None:
        self.lines.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False))

    def _prose(self, words: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(words))

    def user(self, content: Any) -> None:
        record = self._base("user")
        record["message"] = {"role": "user", "content": content}
        self._emit(record)

    def assistant(self, block: dict[str, Any], message_id: str) -> None:
        record = self._base("assistant")
        record["message"] = {"id": message_id, "type": "message", "role": "assistant",
                             "model": "claude-sonnet-4-5", "content": [block], "stop_reason": None,
                             "usage": {"input_tokens": 1200, "cache_read_input_tokens": 40000,
                                       "output_tokens": 300}}
        record["requestId"] = f"req_{self.count:012d}"
        self._emit(record)

    def result(self, tool_id: str, content: str, is_error: bool) -> None:
        record = self._base("user")
        record["message"] = {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": content, "is_error": is_error}]}
        record["toolUseResult"] = {"stdout": content, "stderr": "", "interrupted": False}
        self._emit(record)

    def turn(self, number: int) -> None:
        """A prompt, then a few tool round trips; one turn in ~8 carries a friction."""
        self.user(f"Please update the {self.rng.choice(_WORDS)} handling ({number}) and run the tests")
        for step in range(self.rng.randint(2, 5)):
            message_id = f"msg_{self.count:010d}"
            self.assistant({"type": "thinking", "thinking": self._prose(60), "signature": "s" * 200},
                           message_id)
            self.assistant({"type": "text", "text": self._prose(25)}, message_id)
            tool_id = f"toolu_{self.count:010d}"
            path = f"{PROJECT}/src/module_{self.rng.randint(1, 40)}.py"
            self.assistant({"type": "tool_use", "id": tool_id, "name": "Read",
                            "input": {"file_path": path}}, message_id)
            if step == 0 and number % 30 == 29:
                self.result(tool_id, _REJECTED + "To tell you how to proceed, the user said:\n"
                            f"read the tests first ({number % 7})", True)
            elif step == 1 and number % 12 == 5:
                self.result(tool_id, f"Exit code 1\nFAILED tests/test_module_{number % 9}.py::"
                            f"test_case - AssertionError: {self._prose(12)}", True)
            elif step == 1 and number % 50 == 17:
                self.result(tool_id, "[Request interrupted by user for tool use]", True)
                self.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
            else:
                body = "\n".join(f"{i:6}\t{self._prose(10)}" for i in range(self.rng.randint(20, 90)))
                self.result(tool_id, body, False)
        self.assistant({"type": "text", "text": "Done: " + self._prose(20)}, f"msg_{self.count:010d}")
        if number % 40 == 39:
            self.user("no, use the existing helper instead")
        self._emit({"type": "file-history-snapshot", "messageId": f"m{self.count}",
                    "snapshot": {"trackedFileBackups": {}, "timestamp": "2026-11-02T09:00:00Z"},
                    "isSnapshotUpdate": False})


def make_corpus(projects: Path, megabytes: float, seed: int = 7) -> tuple[int, int]:
    """Write sessions (and some subagent transcripts) until the corpus holds `megabytes`."""
    rng = random.Random(seed)
    folder = projects / project_slug(PROJECT)
    folder.mkdir(parents=True)
    total = files = 0
    number = 0
    while total < megabytes * 1_000_000:
        session_id = f"{number:08x}-1111-4111-8111-111111111111"
        session = _Session(rng, session_id)
        turn = 0
        while sum(map(len, session.lines)) < SESSION_MB * 1_000_000 * rng.uniform(0.5, 1.5):
            session.turn(turn)
            turn += 1
        paths = [(folder / f"{session_id}.jsonl", session)]
        if number % 4 == 0:
            sub = _Session(rng, session_id, sidechain=True)
            for sub_turn in range(40):
                sub.turn(sub_turn)
            paths.append((folder / session_id / "subagents" / f"agent-{number:06x}.jsonl", sub))
        for path, written in paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = "".join(line + "\n" for line in written.lines).encode("utf-8")
            path.write_bytes(data)
            total += len(data)
            files += 1
        number += 1
    finished = time.time() - 86_400  # yesterday: no session is live
    for path in folder.rglob("*.jsonl"):
        os.utime(path, (finished, finished))
    return total, files


def run(quick: bool = False) -> list[dict[str, Any]]:
    megabytes = QUICK_MB if quick else FULL_MB
    with tempfile.TemporaryDirectory(prefix="dreamtui-bench-import-") as tmp:
        root = Path(tmp)
        size, files = make_corpus(root / "projects", megabytes)
        (root / "ws").mkdir()
        (root / "ws" / "dreamtui.yaml").write_text("", encoding="utf-8")
        workspace = open_workspace(root / "ws")
        options = ImportOptions(projects_dir=root / "projects", project=PROJECT)
        started = time.perf_counter()
        full = import_logs(workspace, options)
        full_s = time.perf_counter() - started
        started = time.perf_counter()
        again = import_logs(workspace, options)
        again_s = time.perf_counter() - started
    assert full.read == files and again.read == 0 and again.inserted == 0
    mb_per_s = size / 1_000_000 / full_s
    label = f"{size / 1_000_000:.0f} MB, {files} logs"
    return [
        {"name": f"import claude-code: full import ({label})", "value": mb_per_s, "unit": "MB/s",
         "target": f">= {THROUGHPUT_TARGET:.0f}", "ok": mb_per_s >= THROUGHPUT_TARGET},
        {"name": f"import claude-code: full import, {full.inserted} memories", "value": full_s,
         "unit": "s", "target": "", "ok": None},
        {"name": "import claude-code: re-import, nothing new", "value": again_s, "unit": "s",
         "target": f"< {REIMPORT_TARGET_S:.0f}", "ok": again_s < REIMPORT_TARGET_S},
    ]


if __name__ == "__main__":
    rows = run(quick="--quick" in sys.argv[1:])
    print(f"{'benchmark':58} {'value':>10} {'unit':6} {'target':>8}  ok")
    for row in rows:
        ok = "" if row["ok"] is None else ("yes" if row["ok"] else "NO")
        print(f"{row['name']:58} {row['value']:>10,.3f} {row['unit']:6} {row['target']:>8}  {ok}")
    raise SystemExit(0 if all(row["ok"] is not False for row in rows) else 1)
