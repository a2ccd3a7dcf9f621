"""Issue 16 from the command line: `submit` (one and `--jsonl`), `confirm` and `flag` redact and
refuse every field the way the gate does, and say what they changed."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

import dreamtui.cli.intake_cmds  # noqa: F401  (registers the commands on `main`)
from dreamtui.cli.main import main
from dreamtui.store.stm import STMStore
from tests.factories import entry_text, write_entry

GHP = "gh" "p_" "abcdefghijklmnopqrstuvwxyz0123456789"  # the reproduction (a fake)


def run(ws: Path, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["-w", str(ws), *args], input=input)


def stored_text(ws: Path) -> str:
    with STMStore(ws / "stm.db") as store:
        rows = store.page(limit=100, newest_first=False)
    return json.dumps([[m.title, m.content, m.agent_id, m.tags, m.metadata, m.idempotency_key]
                       for m in rows])


def test_submit_redacts_a_secret_tag_and_says_so(ws: Path) -> None:
    result = run(ws, "submit", "--type", "observation", "--title", "t", "--content", "c",
                 "--tags", GHP)
    assert result.exit_code == 0, result.output
    assert "secret redacted before storing (github-token)" in result.stderr
    assert GHP not in stored_text(ws) and "[REDACTED:github-token]" in stored_text(ws)


def test_submit_jsonl_redacts_every_field(ws: Path) -> None:
    record = {"type": "observation", "title": "t", "content": "c", "tags": [GHP],
              "agent_id": f"ci:{GHP}", "idempotency_key": f"k:{GHP}", "metadata": {GHP: [GHP]}}
    result = run(ws, "submit", "--jsonl", "-", input=json.dumps(record) + "\n")
    assert result.exit_code == 0, result.output
    assert "line 1: note: secret redacted before storing (github-token)" in result.stderr
    assert GHP not in stored_text(ws)


def test_confirm_and_flag_redact_the_agent(ws: Path) -> None:
    write_entry(ws / "workspace" / "memory", "topics/ci-ports.md", entry_text("ci-ports"))
    assert run(ws, "confirm", "ci-ports", "--agent", GHP).exit_code == 0
    assert run(ws, "flag", "port is 5433", "--target", "ci-ports", "--quote", f"use {GHP}",
               "--agent", GHP).exit_code == 0
    assert GHP not in stored_text(ws)


def test_submit_refuses_nan_metadata_naming_the_field(ws: Path) -> None:
    result = run(ws, "submit", "--type", "observation", "--title", "t", "--content", "c",
                 "--metadata", '{"n": NaN}')
    assert result.exit_code == 2
    assert "metadata.n: NaN is not a finite number" in result.output
    assert stored_text(ws) == "[]"


def test_flag_refuses_too_many_targets(ws: Path) -> None:
    targets = [arg for i in range(17) for arg in ("--target", f"entry-{i}")]
    result = run(ws, "flag", "wrong", *targets)
    assert result.exit_code == 2
    assert "targets: 17 targets, at most 16 allowed" in result.output
