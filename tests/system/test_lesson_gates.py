"""The frequency gate end to end (issue 11 item 5, issue 13 item 5): a lesson seen once is kept in
memory and not in AGENTS.md; seen again by another agent, the dream proposes `promote`, and the
commit moves the incident to topics/ and puts its guidance into AGENTS.md. Trivia never reaches
either."""

from __future__ import annotations

import json

from click.testing import CliRunner, Result

from dreamtui.cli import main
from dreamtui.model import NewMemory
from dreamtui.workspace.layout import Workspace
from tests.factories import new_workspace, submit

LESSON = "Background tasks must open their own `SessionLocal()` and close it."


def run(ws: Workspace, *args: str) -> Result:
    return CliRunner().invoke(main, ["--workspace", str(ws.root), *args], catch_exceptions=False)


def dream_and_commit(ws: Workspace) -> list[dict]:
    result = run(ws, "dream", "--json")
    assert result.exit_code == 0, result.output
    dream_id = json.loads(result.stdout)["dream_id"]
    proposals = json.loads((ws.dreams_dir / f"{dream_id}.json").read_text())["proposals"]
    assert run(ws, "decide", dream_id, "--all", "accept").exit_code == 0
    committed = run(ws, "commit", dream_id)
    assert committed.exit_code == 0, committed.output
    return proposals


def test_once_seen_stays_out_of_the_bundle_until_promoted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = new_workspace(tmp_path / "ws", git_repo=True)
    submit(ws, NewMemory(type="failure", title="Production API 500s: connection pool exhausted",
                         content=f"2026-11-27 14:05 UTC the production API returned 500s. {LESSON}",
                         agent_id="claude-code", tags=("api",), metadata={"session_id": "s1"}),
           NewMemory(type="observation", title="Python version", content="Python 3.12.",
                     agent_id="claude-code", metadata={"session_id": "s1"}))
    first = dream_and_commit(ws)
    ops = {p["op"] for p in first if p["op"] != "context"}
    assert ops == {"create", "discard"}
    created = next(p for p in first if p["op"] == "create")
    assert created["route"] == "memory" and created["target"].startswith("incidents/")
    discard = next(p for p in first if p["op"] == "discard")
    assert "trivia" in discard["details"]["reason"]
    incident = ws.memory_root / created["target"]
    assert incident.is_file() and "route: memory" in incident.read_text()
    assert LESSON not in ws.agents_md.read_text()

    submit(ws, NewMemory(type="observation", title="Background tasks need their own DB session",
                         content=LESSON, agent_id="codex", tags=("api",), metadata={"session_id": "s7"}))
    second = dream_and_commit(ws)
    promote = next(p for p in second if p["op"] == "promote")
    assert promote["route"] == "bundle" and promote["target"] == created["target"]
    topic = ws.memory_root / promote["details"]["promote_path"]
    assert topic.is_file() and not incident.exists()
    assert "type: topic" in topic.read_text() and "route: bundle" in topic.read_text()
    bundle = ws.agents_md.read_text()
    assert f"- {LESSON} [mem: {created['slug']}]" in bundle
    log = (ws.memory_root / "archive/LOG.md").read_text()
    assert f" promote {created['target']} (into the bundle, as the topic {promote['details']['promote_path']})" in log


def test_context_include_memory_carries_once_seen_lessons(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = new_workspace(tmp_path / "ws", git_repo=True, context__include=["bundle", "memory"])
    submit(ws, NewMemory(type="observation", title="Frontend env vars need the VITE_ prefix",
                         content="Only variables prefixed VITE_ reach the React code; others are undefined.",
                         agent_id="cursor", tags=("frontend",), metadata={"session_id": "s1"}))
    first = dream_and_commit(ws)
    created = next(p for p in first if p["op"] == "create")
    assert created["route"] == "memory"
    assert f"[mem: {created['slug']}]" in ws.agents_md.read_text()
