"""Delivery into a toy code project through the real CLI (issue 13, items 1, 4, 5): a hand-written,
untracked CLAUDE.md and a git-tracked AGENTS.md keep every byte and gain the block; a hand edit
inside the block between dream and commit is held back; a procedure routed `skill` becomes a
reviewed SKILL.md in the project; routes change with `decide --route` and undo; questions export."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import git
from click.testing import CliRunner, Result

from dreamtui.cli import main
from dreamtui.deliver.targets import find_block, with_block
from dreamtui.scaffold import init_workspace
from dreamtui.workspace.layout import Workspace, open_workspace

HAND_AGENTS = "# Agents\n\nUse pnpm, never npm.\n\n- keep PRs small\n"
HAND_CLAUDE = "# Claude\n\nAsk before deleting files.\n"


def run(ws: Workspace, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["--workspace", str(ws.root), *args], input=stdin,
                              catch_exceptions=False)


def toy(tmp_path: Path) -> tuple[Workspace, Path]:
    project = tmp_path / "code" / "x"
    project.mkdir(parents=True)
    (project / "AGENTS.md").write_text(HAND_AGENTS)
    repo = git.Repo.init(project)
    repo.index.add(["AGENTS.md"])
    actor = git.Actor("t", "t@localhost")
    repo.index.commit("hand-written AGENTS.md", author=actor, committer=actor)
    (project / "CLAUDE.md").write_text(HAND_CLAUDE)  # untracked
    ws = init_workspace(tmp_path / "notes" / "x")
    # the template's own project block, its root set (a second `project:` would be a key given twice)
    ws.config_path.write_text(re.sub(r"^(  root: )null", r"\1../../code/x", ws.config_path.read_text(encoding="utf-8"),
                                     count=1, flags=re.MULTILINE), encoding="utf-8")
    return open_workspace(ws.root), project


def submit(ws: Workspace, title: str, content: str, agent: str, session: str) -> None:
    result = run(ws, "submit", "--type", "observation", "--title", title, "--content", content,
                 "--agent", agent, "--metadata", json.dumps({"session_id": session}))
    assert result.exit_code == 0, result.output


def dream(ws: Workspace) -> dict:
    result = run(ws, "--headless", "dream", "--force", "--json")
    assert result.exit_code == 0, result.output
    dream_id = json.loads(result.stdout)["dream_id"]
    return {"id": dream_id, "proposals": json.loads(
        (ws.dreams_dir / f"{dream_id}.json").read_text())["proposals"]}


def test_dream_and_commit_keep_the_projects_bytes_and_add_the_blocks(tmp_path: Path) -> None:
    ws, project = toy(tmp_path)
    for session in ("s-1", "s-2"):
        submit(ws, "Integration tests need a DB reset",
               "pytest tests/integration fails on a dirty schema; run make db-reset first",
               f"agent-{session}", session)
    d = dream(ws)
    shown = run(ws, "review", "show", d["id"])
    assert "appends a dreamtui block to AGENTS.md for the first time" in shown.stdout
    assert "+@AGENTS.md" in shown.stdout  # the CLAUDE.md diff, shown before anything is written
    assert "creates CLAUDE.md" not in shown.stdout  # it exists: a block is appended to it
    committed = run(ws, "decide", d["id"], "--all", "accept")
    assert committed.exit_code == 0, committed.output
    committed = run(ws, "commit", d["id"])
    assert committed.exit_code == 0, committed.output
    assert f"delivered: {(project / 'AGENTS.md').resolve()}" in committed.stdout

    agents, claude = (project / "AGENTS.md").read_text(), (project / "CLAUDE.md").read_text()
    assert agents.startswith(HAND_AGENTS) and claude.startswith(HAND_CLAUDE)
    block = find_block(agents)
    assert block is not None and "# Agent context" in block.content and not block.edited
    import_block = find_block(claude)
    assert import_block is not None and import_block.content == "@AGENTS.md\n"
    assert (project / import_block.content[1:].strip()).resolve() == (project / "AGENTS.md").resolve()
    # the project's history is the project's: AGENTS.md shows as modified, nothing committed there
    status = subprocess.run(["git", "-C", str(project), "status", "--porcelain"], capture_output=True,
                            text=True, check=True).stdout
    assert " M AGENTS.md" in status and "?? CLAUDE.md" in status
    assert len(list(git.Repo(project).iter_commits())) == 1


def test_a_hand_edit_in_the_block_between_dream_and_commit_is_held_back(tmp_path: Path) -> None:
    ws, project = toy(tmp_path)
    submit(ws, "CI Postgres is on 5433", "CI maps Postgres to port 5433, not 5432", "agent-a", "s-1")
    first = dream(ws)
    run(ws, "decide", first["id"], "--all", "accept")
    assert run(ws, "commit", first["id"]).exit_code == 0
    for session in ("s-2", "s-3"):  # seen in two sessions: it goes to the bundle
        submit(ws, "npm ci needs Node 20", "npm ci fails on Node 18; use Node 20", f"agent-{session}",
               session)
    second = dream(ws)
    edited = (project / "AGENTS.md").read_text().replace("# Agent context", "# Agent context (mine)")
    (project / "AGENTS.md").write_text(edited)
    run(ws, "decide", second["id"], "--all", "accept")
    committed = run(ws, "commit", second["id"])
    assert committed.exit_code == 0, committed.output
    assert "held back" in committed.stdout and "edited by hand" in committed.stdout
    assert (project / "AGENTS.md").read_text() == edited
    assert "Node 20" in ws.agents_md.read_text()  # the rest of the commit went through


def test_a_block_edited_by_hand_is_reported_even_when_the_bundle_does_not_change(
        tmp_path: Path) -> None:
    ws, project = toy(tmp_path)
    submit(ws, "CI Postgres is on 5433", "CI maps Postgres to port 5433, not 5432", "agent-a", "s-1")
    first = dream(ws)
    run(ws, "decide", first["id"], "--all", "accept")
    run(ws, "commit", first["id"])
    (project / "AGENTS.md").write_text((project / "AGENTS.md").read_text().replace(
        "# Agent context", "# Agent context (mine)"))
    submit(ws, "Ruff before black", "Run ruff format, not black", "agent-b", "s-2")  # memory only
    second = dream(ws)
    run(ws, "decide", second["id"], "--all", "accept")
    committed = run(ws, "commit", second["id"])
    assert "AGENTS.md: the dreamtui block was edited by hand" in committed.output


def test_a_procedure_routed_skill_becomes_a_reviewed_skill_in_the_project(tmp_path: Path) -> None:
    ws, project = toy(tmp_path)
    submit(ws, "Release the frontend",
           "To release the frontend: 1. pnpm build 2. pnpm test 3. aws s3 sync dist/ s3://shop-web",
           "agent-a", "s-1")
    d = dream(ws)
    create = next(p for p in d["proposals"] if p["op"] == "create")
    if create.get("route") != "skill":  # the dream's own rule may not see a procedure here
        assert run(ws, "decide", d["id"], create["id"], "--route", "skill").exit_code == 0
    shown = run(ws, "review", "show", d["id"], "-p", create["id"])
    assert "route: skill" in shown.stdout
    assert "the skill it writes" in shown.stdout and f"+name: {create['slug']}" in shown.stdout
    run(ws, "decide", d["id"], "--all", "accept")
    committed = run(ws, "commit", d["id"])
    assert committed.exit_code == 0, committed.output
    slug = create["slug"]
    skill = (project / ".claude/skills" / slug / "SKILL.md").read_text()
    assert skill == (ws.context_root / "skills" / slug / "SKILL.md").read_text()
    assert skill.startswith(f"---\nname: {slug}\ndescription: ") and "\nversion: 1\n" in skill
    assert f"[mem: {slug}]" in skill and "aws s3 sync" in skill
    entry = (ws.memory_root / create["target"]).read_text()
    assert "route: skill" in entry


def test_route_changes_are_undone_and_questions_export_as_markdown(tmp_path: Path) -> None:
    ws, project = toy(tmp_path)
    submit(ws, "Guest checkout needs a product decision",
           "checkout.py requires a login, but two customers asked to order as guests; decide "
           "whether POST /orders may accept an anonymous cart", "agent-a", "s-1")
    d = dream(ws)
    create = next(p for p in d["proposals"] if p["op"] == "create")
    original = create.get("route")
    assert run(ws, "decide", d["id"], create["id"], "--route", "decisions").exit_code == 0
    undone = run(ws, "undo", d["id"])
    assert undone.exit_code == 0 and f"{create['id']} goes to {original or 'no route'} again" in undone.stdout
    assert run(ws, "decide", d["id"], create["id"], "accept", "--route", "person").exit_code == 0
    listed = run(ws, "review", "questions", "--markdown")
    assert listed.stdout.startswith("# Questions for a person\n")
    assert "## Guest checkout needs a product decision" in listed.stdout
    run(ws, "decide", d["id"], "--all", "accept")
    assert run(ws, "commit", d["id"]).exit_code == 0
    assert not (ws.memory_root / create["target"]).exists()  # never written into agent context
    assert "guest" not in (project / "AGENTS.md").read_text().lower()
    assert f"{create['id']} [noted] Guest checkout" in run(ws, "review", "questions").stdout


def test_bundle_check_sees_a_stale_project_block_and_bundle_rewrites_it(tmp_path: Path) -> None:
    ws, project = toy(tmp_path)
    submit(ws, "CI Postgres is on 5433", "CI maps Postgres to port 5433, not 5432", "agent-a", "s-1")
    d = dream(ws)
    run(ws, "decide", d["id"], "--all", "accept")
    run(ws, "commit", d["id"])
    assert run(ws, "bundle", "--check").exit_code == 0
    current = (project / "AGENTS.md").read_text()
    (project / "AGENTS.md").write_text(with_block(current, "an older bundle\n"))  # as an old commit left it
    checked = run(ws, "bundle", "--check")
    assert checked.exit_code == 1, checked.output
    assert f"{(project / 'AGENTS.md').resolve()} is stale" in checked.stderr
    rewritten = run(ws, "bundle")
    assert rewritten.exit_code == 0 and "delivered:" in rewritten.stdout, rewritten.output
    assert (project / "AGENTS.md").read_text() == current
    assert run(ws, "bundle", "--check").exit_code == 0
