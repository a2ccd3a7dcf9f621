"""The bundle follows the decisions (issue 14, item 2), through the real CLI: an undecided bundle
proposal is committed with the accepted entries, it keeps one id within a dream and under undo,
a commit that leaves AGENTS.md stale says so loudly, and `dreamtui bundle [--check]`."""

from __future__ import annotations

import json

import git
from click.testing import CliRunner, Result

from dreamtui.cli import main
from dreamtui.workspace.layout import Workspace


def run(ws: Workspace, *args: str) -> Result:
    return CliRunner().invoke(main, ["--workspace", str(ws.root), *args], catch_exceptions=False)


def proposals(ws: Workspace, dream_id: str) -> list[dict]:
    return json.loads((ws.dreams_dir / f"{dream_id}.json").read_text())["proposals"]


def context(ws: Workspace, dream_id: str) -> dict | None:
    return next((p for p in proposals(ws, dream_id) if p["op"] == "context"), None)


def dream_and_accept_a_create(ws: Workspace) -> tuple[str, dict]:
    """A dream, and one clean create accepted; the bundle proposal left as the dream made it."""
    result = run(ws, "--headless", "dream", "--json")
    assert result.exit_code == 0, result.output
    dream_id = json.loads(result.stdout)["dream_id"]
    create = next(p for p in proposals(ws, dream_id) if p["op"] == "create" and not p["safety"])
    assert run(ws, "decide", dream_id, create["id"], "accept").exit_code == 0
    return dream_id, create


def marker(create: dict) -> str:
    return f"[mem: {create['target'].rsplit('/', 1)[-1].removesuffix('.md')}]"


def test_an_undecided_bundle_follows_the_accepted_entries(seeded_sample: Workspace) -> None:
    ws = seeded_sample
    dream_id, create = dream_and_accept_a_create(ws)
    bundle = context(ws, dream_id)
    assert bundle is not None and bundle["decision"] is None and not bundle["safety"]
    assert marker(create) not in ws.agents_md.read_text()

    committed = run(ws, "commit", dream_id)
    assert committed.exit_code == 0, committed.output
    assert marker(create) in ws.agents_md.read_text()  # before: AGENTS.md left as it was
    assert "bundle updated" in committed.stdout and "STALE" not in committed.output
    log = (ws.memory_root / "archive/LOG.md").read_text()
    assert "following the accepted entries" in log
    assert not git.Repo(ws.root).is_dirty(untracked_files=True)


def test_the_bundle_proposal_keeps_its_id_across_decisions_and_undo(seeded_sample: Workspace) -> None:
    ws = seeded_sample
    result = run(ws, "--headless", "dream", "--json")
    dream_id = json.loads(result.stdout)["dream_id"]
    first = context(ws, dream_id)
    assert first is not None
    creates = [p for p in proposals(ws, dream_id) if p["op"] == "create" and not p["safety"]]
    assert run(ws, "decide", dream_id, creates[0]["id"], "accept").exit_code == 0
    second = context(ws, dream_id)
    assert second is not None and second["id"] == first["id"] and second["after"] != first["after"]
    assert run(ws, "decide", dream_id, second["id"], "reject").exit_code == 0
    assert run(ws, "undo", dream_id).exit_code == 0
    after_undo = context(ws, dream_id)
    assert after_undo is not None and after_undo["id"] == first["id"] and after_undo["decision"] is None
    assert run(ws, "undo", dream_id).exit_code == 0
    assert context(ws, dream_id)["id"] == first["id"]  # type: ignore[index]


def test_a_commit_that_leaves_the_bundle_stale_warns_and_bundle_check_fails(
        seeded_sample: Workspace) -> None:
    ws = seeded_sample
    dream_id, create = dream_and_accept_a_create(ws)
    bundle = context(ws, dream_id)
    assert bundle is not None
    assert run(ws, "decide", dream_id, bundle["id"], "reject").exit_code == 0

    committed = run(ws, "commit", dream_id, "--json")
    assert committed.exit_code == 0, committed.output
    assert "context/AGENTS.md is left STALE: the bundle proposal was rejected" in committed.stderr
    assert json.loads(committed.stdout)["bundle_stale"].startswith("context/AGENTS.md is left STALE")
    assert marker(create) not in ws.agents_md.read_text()

    check = run(ws, "bundle", "--check")
    assert check.exit_code == 1 and "is stale: +" in check.stderr
    head = git.Repo(ws.root).head.commit.hexsha

    regenerated = run(ws, "bundle")
    assert regenerated.exit_code == 0, regenerated.output
    assert marker(create) in ws.agents_md.read_text()
    repo = git.Repo(ws.root)
    assert repo.head.commit.hexsha != head
    assert repo.head.commit.message.startswith("dreamtui: bundle regenerated")
    assert not repo.is_dirty(untracked_files=True)
    log = (ws.memory_root / "archive/LOG.md").read_text().splitlines()
    assert " context context/AGENTS.md (bundle regenerated from the live entries: +" in log[-1]
    assert log[-1].endswith("[human]")

    assert run(ws, "bundle", "--check").exit_code == 0
    again = run(ws, "bundle")
    assert again.exit_code == 0 and "up to date, nothing written" in again.stdout
    assert repo.head.commit.hexsha == git.Repo(ws.root).head.commit.hexsha


def test_a_marked_bundle_never_follows_implicitly(seeded_sample: Workspace) -> None:
    ws = seeded_sample
    # A lesson two agents send, with a hidden character in it: it goes into the bundle (it
    # recurs), and its line carries the mark. (The sample's injection attempt is discarded.)
    for agent in ("claude-code", "codex"):
        sent = run(ws, "submit", "--type", "observation", "--title", "Lint before pushing",
                   "--content", "Run `make lint` before pushing\u200b.", "--tags", "ci", "--agent", agent)
        assert sent.exit_code == 0, sent.output
    result = run(ws, "--headless", "dream", "--json")
    dream_id = json.loads(result.stdout)["dream_id"]
    marked = [p for p in proposals(ws, dream_id) if p["op"] == "create" and p["safety"]]
    assert marked
    assert run(ws, "decide", dream_id, *[p["id"] for p in marked], "accept").exit_code == 0
    bundle = context(ws, dream_id)
    assert bundle is not None and bundle["safety"] and bundle["decision"] is None
    before = ws.agents_md.read_text()

    committed = run(ws, "commit", dream_id)
    assert committed.exit_code == 0, committed.output
    assert ws.agents_md.read_text() == before
    assert "left undecided (it carries safety marks)" in committed.stderr


def test_a_first_reject_that_leaves_the_bundle_unchanged_says_so(seeded_sample: Workspace) -> None:
    """A fresh dream previews every proposal as accepted; after a reject, with nothing accepted,
    AGENTS.md would not change: decide and review show say why the context proposal is gone."""
    ws = seeded_sample
    result = run(ws, "--headless", "dream", "--json")
    dream_id = json.loads(result.stdout)["dream_id"]
    assert context(ws, dream_id) is not None
    entry = next(p for p in proposals(ws, dream_id) if p["op"] == "create" and not p["safety"])
    decided = run(ws, "decide", dream_id, entry["id"], "reject")
    assert decided.exit_code == 0, decided.output
    assert context(ws, dream_id) is None
    assert "no context proposal: AGENTS.md would not change" in decided.stdout
    shown = run(ws, "review", "show", dream_id)
    assert "no context proposal: AGENTS.md would not change" in shown.stdout
