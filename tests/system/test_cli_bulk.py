"""Large `submit --jsonl` inputs (validated in worker processes), lazy command loading, and the
crash recovery `status` runs first."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dreamtui.cli import intake_cmds
from dreamtui.cli.main import COMMAND_MODULES, main
from dreamtui.store.stm import STMStore

GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def run(ws: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["-w", str(ws), *args])


def good(number: int, **extra: object) -> bytes:
    return json.dumps({"type": "observation", "title": f"memory {number}",
                       "content": f"body {number}", **extra}).encode()


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2], ids=["one-process", "worker-processes"])
def test_large_jsonl_reports_exact_bad_lines_and_keeps_order(ws: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             workers: int) -> None:
    if workers and not sys.platform.startswith("linux"):
        pytest.skip("worker processes are only used where fork is safe")
    monkeypatch.setattr(intake_cmds, "_workers", lambda: workers)
    total, block = 30_000, intake_cmds.BLOCK_LINES
    chunk = 5_000  # STMStore's bulk transaction size: a boundary of its own
    bad = {
        1: b"not json",
        block: json.dumps({"type": "observation", "title": "t", "content": "c",
                           "colour": "red"}).encode(),
        block + 1: json.dumps({"type": "nope", "title": "t", "content": "c"}).encode(),
        2 * block: b"\xff\xfe not UTF-8",
        chunk: json.dumps({"type": "observation", "title": "  ", "content": "c"}).encode(),
        chunk + 1: b"[1, 2]",
        12_345: b"x" * ((1 << 20) + 10),  # longer than the line limit
        total - 1: b"{\"type\": ",
        total: b"{truncated",  # the last line, without a newline
    }
    blank, duplicate, noted = 777, 20_000, 15_000
    lines = []
    for number in range(1, total + 1):
        if number in bad:
            lines.append(bad[number])
        elif number == blank:
            lines.append(b"   ")
        elif number in (10, duplicate):
            lines.append(good(number, idempotency_key="same"))
        elif number == noted:
            lines.append(good(number, content=f"token {GITHUB_TOKEN}"))
        else:
            lines.append(good(number))
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(lines))

    result = run(ws, "submit", "--jsonl", str(path))

    kept = [n for n in range(1, total + 1) if n not in bad and n not in (blank, duplicate)]
    assert result.exit_code == 2, result.output
    assert result.stdout == f"{len(kept)} submitted, 1 duplicate, {len(bad)} bad lines\n"
    reported = [int(n) for n in re.findall(rf"^{re.escape(str(path))}, line (\d+): ", result.stderr, re.M)]
    assert reported == sorted([*bad, noted])
    assert f"line {noted}: note: secret redacted" in result.stderr
    assert f"line {12_345}: longer than 1048576 bytes" in result.stderr
    assert f"line {2 * block}: not UTF-8 text" in result.stderr
    with STMStore(ws / "stm.db") as store:
        stored = store.page(limit=total, newest_first=False)
    assert [m.title for m in stored] == [f"memory {n}" for n in kept]
    assert all(GITHUB_TOKEN not in m.content for m in stored)


def test_every_command_is_listed_and_loads_from_its_module() -> None:
    # A fresh interpreter: importing the CLI loads no command module until one is looked up.
    code = (
        "import sys\n"
        "from dreamtui.cli import main\n"
        "from dreamtui.cli.main import COMMAND_MODULES\n"
        "assert not any(m in sys.modules for m in set(COMMAND_MODULES.values())), 'eager'\n"
        "import click\n"
        "ctx = click.Context(main)\n"
        "for name in main.list_commands(ctx):\n"
        "    command = main.get_command(ctx, name)\n"
        "    assert command is not None, name\n"
        "    assert command.callback.__module__ == COMMAND_MODULES[name], name\n"
        "print(len(main.commands))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(COMMAND_MODULES)
    # …and the modules register nothing the map does not know.
    for module in set(COMMAND_MODULES.values()):
        __import__(module)
    assert set(main.commands) == set(COMMAND_MODULES)


def test_help_lists_every_command(ws: Path) -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    listed = re.findall(r"^  (\S+)\s", result.stdout.split("Commands:")[1], re.M)
    assert set(COMMAND_MODULES) <= set(listed)


def test_status_finishes_a_crashed_commit_first(ws: Path) -> None:
    unfinished = ws / ".dreamtui" / "journal" / "j-unmarked"
    unfinished.mkdir(parents=True)
    (unfinished / "manifest.json").write_text("{}")
    result = run(ws, "status", "--json")
    assert result.exit_code == 0, result.output
    assert "discarded the unfinished commit journal j-unmarked" in result.stderr
    assert not unfinished.exists()
    assert json.loads(result.stdout)["stm"]["pending"] == 0
