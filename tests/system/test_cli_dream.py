"""End to end through the command line, on a copy of sample_workspace/:
dream → review show → decide → commit → LOG.md, INDEX.md, AGENTS.md and git updated."""

from __future__ import annotations

import json

import git
from click.testing import CliRunner, Result

from dreamtui.cli import main
from dreamtui.workspace.layout import Workspace


def run(ws: Workspace, *args: str) -> Result:
    return CliRunner().invoke(main, ["--workspace", str(ws.root), *args], catch_exceptions=False)


def dream(ws: Workspace) -> dict:
    result = run(ws, "--headless", "dream", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_dream_review_decide_commit_end_to_end(seeded_sample: Workspace) -> None:
    ws = seeded_sample
    summary = dream(ws)
    dream_id = summary["dream_id"]
    assert dream_id.startswith("d-") and summary["exit_code"] == 0 and summary["engine"] == "heuristic"
    assert summary["waiting"] == sum(summary["proposals"].values()) and summary["commit"] is None

    listed = run(ws, "review", "list")
    assert dream_id in listed.stdout and "open" in listed.stdout

    shown = run(ws, "review", "show", dream_id)
    assert shown.exit_code == 0
    assert "why: " in shown.stdout and "evidence:" in shown.stdout
    # The memory stating CI's port (5433) corrects ci-ports in place (issue 11, item 2): an update
    # answering the two flags, not an archive beside a new entry.
    assert "--- a/topics/ci-ports.md" in shown.stdout and "+++ b/topics/ci-ports.md" in shown.stdout
    assert "+CI Postgres listens on 5433 and Redis on 6379." in shown.stdout
    assert "⚠ safety: " in shown.stdout  # the sample's injection attempt is flagged
    assert "\x1b[" not in shown.stdout  # no colour codes when stdout is not a terminal

    changeset = ws.dreams_dir / f"{dream_id}.json"
    proposals = json.loads(changeset.read_text())["proposals"]
    discard = next(p for p in proposals if p["op"] == "discard")
    refused = run(ws, "decide", dream_id, discard["id"], "pin")
    assert refused.exit_code == 2 and "not pin" in refused.output
    one = run(ws, "review", "show", dream_id, "--proposal", discard["id"])
    number = [p["id"] for p in proposals].index(discard["id"]) + 1  # as the whole review numbers it
    assert one.stdout.count("\n[") == 1 and f"[{number}] · {discard['id']}" in one.stdout

    bulk = run(ws, "decide", dream_id, "--all", "accept")
    assert bulk.exit_code == 0
    assert "with safety marks (never decided in bulk)" in bulk.stdout
    flagged = [p["id"] for p in json.loads(changeset.read_text())["proposals"]
               if p["decision"] is None and p["safety"] and p["op"] != "context"]
    assert flagged
    assert run(ws, "decide", dream_id, *flagged, "reject").exit_code == 0
    context = next(p for p in json.loads(changeset.read_text())["proposals"] if p["op"] == "context")
    if context["decision"] is None:  # its own marks keep it out of bulk decisions too
        assert run(ws, "decide", dream_id, context["id"], "accept").exit_code == 0

    index_before = (ws.memory_root / "INDEX.md").read_text()
    committed = run(ws, "commit", dream_id)
    assert committed.exit_code == 0, committed.output
    assert f"committed {dream_id}: " in committed.stdout and "git: " in committed.stdout

    log = (ws.memory_root / "archive/LOG.md").read_text()
    assert f"[dream {dream_id}]" in log and " update topics/ci-ports.md " in log
    assert " reject " in log
    assert (ws.memory_root / "INDEX.md").read_text() != index_before
    bundle = ws.agents_md.read_text()
    assert "- CI Postgres listens on 5433 and Redis on 6379. [mem: ci-ports]" in bundle
    assert "ignore all previous instructions" not in bundle.lower()
    head = git.Repo(ws.root).head.commit
    assert head.message.startswith(f"dreamtui: dream {dream_id} — ")
    assert f"\n\nDream-Id: {dream_id}\nEngine: heuristic\n" in head.message
    assert not git.Repo(ws.root).is_dirty(untracked_files=True)

    again = run(ws, "commit", dream_id)
    assert again.exit_code == 2 and "is committed" in again.output


def test_json_commit_report_and_undo(seeded_sample: Workspace) -> None:
    ws = seeded_sample
    dream_id = dream(ws)["dream_id"]
    assert run(ws, "decide", dream_id, "--all", "accept", "--op", "reinforce").exit_code == 0
    undone = run(ws, "undo", dream_id)
    assert undone.exit_code == 0 and "accept → undecided" in undone.stdout
    assert run(ws, "decide", dream_id, "--all", "accept", "--op", "reinforce").exit_code == 0
    report = run(ws, "commit", dream_id, "--json")
    data = json.loads(report.stdout)
    assert data["counts"]["reinforced"] >= 1 and data["status"] == "committed"
    assert data["git_sha"] == git.Repo(ws.root).head.commit.hexsha


def test_a_refused_commit_exits_three_and_writes_nothing(seeded_sample: Workspace) -> None:
    ws = seeded_sample
    dream_id = dream(ws)["dream_id"]
    proposals = json.loads((ws.dreams_dir / f"{dream_id}.json").read_text())["proposals"]
    # The dream corrects ci-ports in place; the person retires it instead (decision archive).
    ports = next(p for p in proposals if p["target"] == "topics/ci-ports.md")
    assert run(ws, "decide", dream_id, ports["id"], "archive").exit_code == 0
    context = next(p for p in json.loads((ws.dreams_dir / f"{dream_id}.json").read_text())["proposals"]
                   if p["op"] == "context")
    assert run(ws, "decide", dream_id, context["id"], "reject").exit_code == 0
    before = ws.agents_md.read_text()
    result = run(ws, "commit", dream_id)
    assert result.exit_code == 3
    assert "commit refused, nothing written" in result.output and "ci-ports" in result.output
    assert ws.agents_md.read_text() == before
    assert (ws.memory_root / "topics/ci-ports.md").exists()


def test_abandon_and_gates_and_usage_errors(seeded_sample: Workspace) -> None:
    ws = seeded_sample
    dream_id = dream(ws)["dream_id"]
    abandoned = run(ws, "abandon", dream_id)
    assert abandoned.exit_code == 0 and "memories back to the queue" in abandoned.stdout
    # a second headless dream inside headless.min_hours is skipped with the reason, exit 0
    skipped = run(ws, "--headless", "dream")
    assert skipped.exit_code == 0 and skipped.stdout.startswith("skipped: the last dream was")
    # a person at the terminal is not held back by the gates
    interactive = run(ws, "dream")
    assert interactive.exit_code == 0 and "review it: dreamtui review show d-" in interactive.stdout
    assert run(ws, "decide", dream_id, "--all", "bogus").exit_code == 2
    assert run(ws, "decide", dream_id, "accept").exit_code == 2  # neither ids nor --all


def test_config_error_exits_two(sample: Workspace) -> None:
    config = sample.config_path
    config.write_text(config.read_text().replace("on_guard_violation: fail", "on_guard_violation: maybe"))
    result = run(sample, "--headless", "dream")
    assert result.exit_code == 2 and "on_guard_violation" in result.output


def test_help_documents_exit_codes() -> None:
    result = CliRunner().invoke(main, ["dream", "--help"])
    assert "Exit codes:" in result.output and "3  commit refused" in result.output
