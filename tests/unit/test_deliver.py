"""Delivery into the code project (deliver/): marked blocks, imports, symlinks, skills, DECISIONS.md,
and routes as the commit executes them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from dreamtui.deliver.skills import SKILL_FILE, skill_text
from dreamtui.deliver.targets import (
    BlockError,
    block_text,
    deliver_file,
    find_block,
    import_line,
    with_block,
    without_block,
)
from dreamtui.entry.codec import parse_entry
from dreamtui.model import Proposal
from dreamtui.review.commit import commit, commit_bundle
from dreamtui.review.decide import decide
from dreamtui.store.ltm import LTMStore
from tests.factories import DREAM_ID, NOW, Scenario

HAND_CLAUDE = "# My notes\n\nAlways run `make lint` first.\n"  # no final blank line on purpose
HAND_AGENTS = "# Agents\n\nThis repo uses pnpm.\n\n- keep PRs small\n"


# -- blocks -------------------------------------------------------------------------------------


def test_a_block_is_appended_then_replaced_in_place_keeping_every_other_byte() -> None:
    first = with_block(HAND_AGENTS, "one\n")
    assert first.startswith(HAND_AGENTS) and first.endswith("<!-- dreamtui:end -->\n")
    edited = first.replace("# Agents", "# Agents (edited)") + "\nA line after the block.\r\n"
    second = with_block(edited, "two\n")
    block = find_block(second)
    assert block is not None and block.content == "two\n" and not block.edited
    assert second[:block.start] == edited[:find_block(edited).start]  # type: ignore[union-attr]
    assert second.endswith("\nA line after the block.\r\n")
    assert without_block(with_block(HAND_AGENTS, "x\n")) == HAND_AGENTS


def test_a_missing_file_becomes_the_block_alone() -> None:
    assert with_block(None, "x") == block_text("x\n")


def test_a_block_edited_by_hand_is_recognised() -> None:
    text = with_block(HAND_AGENTS, "guidance\n").replace("guidance", "guidance, my own words")
    block = find_block(text)
    assert block is not None and block.edited


@pytest.mark.parametrize("text", [
    "<!-- dreamtui:begin sha256=0000000000000000 -->\nno end\n",
    "<!-- dreamtui:end -->\n<!-- dreamtui:begin -->\n",
    block_text("a\n") + block_text("b\n"),
])
def test_broken_markers_are_refused_not_guessed_at(text: str) -> None:
    with pytest.raises(BlockError):
        find_block(text)


@pytest.mark.parametrize(("claude", "agents", "line"), [
    ("CLAUDE.md", "AGENTS.md", "@AGENTS.md\n"),
    (".claude/CLAUDE.md", "AGENTS.md", "@../AGENTS.md\n"),
    ("CLAUDE.md", "docs/agents/AGENTS.md", "@docs/agents/AGENTS.md\n"),
    ("web/CLAUDE.md", "docs/AGENTS.md", "@../docs/AGENTS.md\n"),
])
def test_the_import_path_is_relative_to_the_importing_files_folder(
        tmp_path: Path, claude: str, agents: str, line: str) -> None:
    assert import_line(tmp_path / claude, tmp_path / agents) == line
    # and it resolves, from that folder, to the imported file
    resolved = (tmp_path / claude).parent / line[1:].strip()
    assert resolved.resolve() == (tmp_path / agents).resolve()


# -- symlinks and unreadable files -------------------------------------------------------------


def test_a_symlink_inside_the_project_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/AGENTS.md").write_text(HAND_AGENTS)
    (tmp_path / "AGENTS.md").symlink_to("docs/AGENTS.md")
    delivery = deliver_file(tmp_path, "AGENTS.md", "x\n", append=True)
    assert delivery is not None and delivery.problem is None
    assert delivery.path == (tmp_path / "docs/AGENTS.md").resolve() and delivery.first


def test_a_symlink_outside_the_project_or_dangling_is_held_back(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "elsewhere.md").write_text("theirs\n")
    (project / "AGENTS.md").symlink_to(tmp_path / "elsewhere.md")
    (project / "CLAUDE.md").symlink_to(project / "gone.md")
    outside = deliver_file(project, "AGENTS.md", "x\n", append=True)
    dangling = deliver_file(project, "CLAUDE.md", "x\n", append=True)
    assert outside is not None and "outside the project" in str(outside.problem)
    assert dangling is not None and "does not exist" in str(dangling.problem)
    assert (tmp_path / "elsewhere.md").read_text() == "theirs\n"


def test_a_link_to_the_workspace_bundle_is_left_alone(tmp_path: Path) -> None:
    bundle = tmp_path / "ws/context/AGENTS.md"
    bundle.parent.mkdir(parents=True)
    bundle.write_text("# Agent context\n")
    (tmp_path / "AGENTS.md").symlink_to(bundle)
    assert deliver_file(tmp_path, "AGENTS.md", "x\n", append=True, own=(bundle,)) is None


def test_unreadable_and_binary_targets_are_held_back(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe binary")
    binary = deliver_file(tmp_path, "AGENTS.md", "x\n", append=True)
    assert binary is not None and "not UTF-8" in str(binary.problem)
    if os.geteuid() != 0:  # root reads any file
        (tmp_path / "CLAUDE.md").write_text("mine\n")
        (tmp_path / "CLAUDE.md").chmod(0)
        locked = deliver_file(tmp_path, "CLAUDE.md", "x\n", append=True)
        assert locked is not None and "cannot be read" in str(locked.problem)


# -- the commit ---------------------------------------------------------------------------------


def _project(tmp_path: Path) -> Path:
    """A toy code project: a git-tracked AGENTS.md and an untracked, hand-written CLAUDE.md."""
    project = tmp_path / "code"
    project.mkdir()
    (project / "AGENTS.md").write_text(HAND_AGENTS)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "add", "AGENTS.md"], check=True)
    subprocess.run(["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-qm", "hand"], check=True)
    (project / "CLAUDE.md").write_text(HAND_CLAUDE)
    return project


def _scenario(tmp_path: Path, **settings: object) -> tuple[Scenario, Path]:
    project = _project(tmp_path)
    s = Scenario(tmp_path / "ws", project__root=str(project), **settings)
    s.entry("test-db-reset", "Run make db-reset before integration tests.", confirmations=2)
    s.settle()
    return s, project


def _dream(s: Scenario, *proposals: Proposal) -> None:
    s.changeset(list(proposals))


def test_a_dream_and_commit_keep_every_hand_written_byte_and_add_the_blocks(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    m = s.memories(1)
    _dream(s, s.create("alembic-first", "Apply alembic migrations before seeding.", m))
    context = s.load().bundle
    assert context is not None
    assert [(d["target"], d["first"], d["new"]) for d in context.details["deliveries"]] == \
        [("AGENTS.md", True, False), ("CLAUDE.md", True, False)]
    assert "+<!-- dreamtui:begin" in context.details["deliveries"][0]["diff"]
    decide(s.ws, DREAM_ID, [s.load().proposals[0].id], "accept", now=NOW)
    decide(s.ws, DREAM_ID, [context.id], "accept", now=NOW)
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert report.conflicts == []
    agents, claude = (project / "AGENTS.md").read_text(), (project / "CLAUDE.md").read_text()
    assert agents.startswith(HAND_AGENTS) and "[mem: alembic-first]" in agents
    assert claude.startswith(HAND_CLAUDE) and find_block(claude).content == "@AGENTS.md\n"  # type: ignore[union-attr]
    assert s.log_lines()[-1].endswith(f" deliver {project.resolve()} (AGENTS.md, CLAUDE.md) [dream {DREAM_ID}]")
    # the workspace's git history is not the project's: dreamtui commits nothing there
    log = subprocess.run(["git", "-C", str(project), "log", "--oneline"], capture_output=True,
                         text=True, check=True).stdout
    assert len(log.splitlines()) == 1


def test_a_first_block_is_not_appended_without_the_bundle_decided(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    m = s.memories(1)
    _dream(s, s.create("alembic-first", "Apply alembic migrations before seeding.", m))
    decide(s.ws, DREAM_ID, [s.load().proposals[0].id], "accept", now=NOW)
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert "[mem: alembic-first]" in s.ws.agents_md.read_text()  # the workspace bundle follows
    assert (project / "AGENTS.md").read_text() == HAND_AGENTS  # the files a person wrote wait
    assert (project / "CLAUDE.md").read_text() == HAND_CLAUDE
    held = {c.target: c.reason for c in report.conflicts}
    assert "accept the bundle proposal yourself" in held["AGENTS.md"] and "CLAUDE.md" in held
    # the next dream asks again, though the bundle itself does not change
    _dream(s, s.create("node-20", "npm ci needs Node 20.", s.memories(1)))
    assert [d["first"] for d in s.load().bundle.details["deliveries"]] == [True, True]  # type: ignore[union-attr]


def _delivered(tmp_path: Path) -> tuple[Scenario, Path]:
    """A project whose blocks a first commit wrote; then a second dream, open."""
    s, project = _scenario(tmp_path)
    _dream(s, s.create("alembic-first", "Apply alembic migrations before seeding.", s.memories(1)))
    s.decide_all("accept")
    commit(s.ws, DREAM_ID, now=NOW)
    _dream(s, s.create("node-20", "npm ci needs Node 20.", s.memories(1)))  # the same id, reused
    return s, project


def test_a_hand_edit_inside_the_block_between_dream_and_commit_is_held_back(tmp_path: Path) -> None:
    s, project = _delivered(tmp_path)
    edited = (project / "AGENTS.md").read_text().replace("Apply alembic", "Apply ALEMBIC")
    (project / "AGENTS.md").write_text(edited)
    s.decide_all("accept")
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert (project / "AGENTS.md").read_text() == edited
    held = [c for c in report.conflicts if c.target == "AGENTS.md"]
    assert held and "edited by hand" in held[0].reason
    assert "[mem: node-20]" in s.ws.agents_md.read_text()  # the rest of the commit went through


def test_text_outside_the_block_may_change_freely(tmp_path: Path) -> None:
    s, project = _delivered(tmp_path)
    (project / "AGENTS.md").write_text("# A new first line\n" + (project / "AGENTS.md").read_text()
                                       + "\nand a new last line\n")
    s.decide_all("accept")
    report = commit(s.ws, DREAM_ID, now=NOW)
    text = (project / "AGENTS.md").read_text()
    assert report.conflicts == [] and "[mem: node-20]" in text
    assert text.startswith("# A new first line\n" + HAND_AGENTS) and text.endswith("\nand a new last line\n")


def test_without_a_project_root_nothing_leaves_the_workspace(tmp_path: Path) -> None:
    project = _project(tmp_path)
    s = Scenario(tmp_path / "ws")
    s.settle()
    m = s.memories(1)
    _dream(s, s.create("alembic-first", "Apply alembic migrations before seeding.", m))
    s.decide_all("accept")
    commit(s.ws, DREAM_ID, now=NOW)
    assert (project / "AGENTS.md").read_text() == HAND_AGENTS
    assert not (s.ws.context_root / "CLAUDE.md").exists()


# -- routes -------------------------------------------------------------------------------------


def _routed(s: Scenario, route: str, slug: str = "deploy-steps") -> Proposal:
    m = s.memories(1)
    p = s.create(slug, "Deploy: 1. make build 2. make push 3. make release.", m)
    p.route = route
    return p


def test_route_memory_is_written_to_the_entry_and_kept_out_of_the_bundle(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    _dream(s, _routed(s, "memory"))
    s.decide_all("accept")
    commit(s.ws, DREAM_ID, now=NOW)
    entry = parse_entry(s.text("topics/deploy-steps.md"), "topics/deploy-steps.md")
    assert entry.meta["route"] == "memory"
    assert "deploy-steps" not in s.ws.agents_md.read_text()


def test_route_skill_writes_a_skill_and_delivers_it_to_the_project(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    _dream(s, _routed(s, "skill"))
    s.decide_all("accept")
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert report.conflicts == []
    workspace_copy = (s.ws.context_root / "skills/deploy-steps" / SKILL_FILE).read_text()
    delivered = (project / ".claude/skills/deploy-steps" / SKILL_FILE).read_text()
    assert delivered == workspace_copy
    assert workspace_copy.startswith("---\nname: deploy-steps\ndescription: 'Deploy: 1. make build")
    assert "version: 1\n" in workspace_copy and "[mem: deploy-steps]" in workspace_copy
    assert "confirm_context" in workspace_copy


def test_a_hand_edited_project_skill_is_held_back(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    _dream(s, _routed(s, "skill"))
    s.decide_all("accept")
    commit(s.ws, DREAM_ID, now=NOW)
    skill = project / ".claude/skills/deploy-steps" / SKILL_FILE
    skill.write_text(skill.read_text() + "My own step 4.\n")
    path = "topics/deploy-steps.md"
    entry = parse_entry(s.text(path), path)
    from dreamtui.review.commit import commit_human_change
    report = commit_human_change(s.ws, path, s.text(path).replace("make release", "make ship"),
                                 "edit", "renamed the target", now=NOW)
    assert skill.read_text().endswith("My own step 4.\n")
    assert any("edited by hand" in c.reason for c in report.conflicts)
    assert "version: 2" in (s.ws.context_root / "skills/deploy-steps" / SKILL_FILE).read_text()
    assert entry.slug == "deploy-steps"


def test_a_project_skill_dreamtui_did_not_write_is_never_replaced(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    theirs = project / ".claude/skills/deploy-steps" / SKILL_FILE
    theirs.parent.mkdir(parents=True)
    theirs.write_text("---\nname: deploy-steps\ndescription: mine\n---\nmine\n")
    _dream(s, _routed(s, "skill"))
    s.decide_all("accept")
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert theirs.read_text().endswith("mine\n")
    assert any("not written by dreamtui" in c.reason for c in report.conflicts)


def test_skill_version_goes_up_only_when_the_text_changes() -> None:
    entry = parse_entry("---\nslug: s\ntitle: T\n---\nStep one.\n", "topics/s.md")
    first = skill_text(entry, None)
    assert "version: 1" in first and skill_text(entry, first) == first
    changed = parse_entry("---\nslug: s\ntitle: T\n---\nStep one, then two.\n", "topics/s.md")
    assert "version: 2" in skill_text(changed, first)


def test_a_skill_md_never_carries_a_credential_an_entry_was_edited_to_hold() -> None:
    entry = parse_entry("---\nslug: s\ntitle: T\nroute: skill\n---\nPublish by hand.\n\n```sh\n"
                        "STRIPE_SECRET_KEY=sk_test_EXAMPLE123456 \\\n  ./publish.sh --live\n"
                        "PGPASSWORD=$PGPASSWORD psql\n```\n", "topics/s.md")
    text = skill_text(entry, None)
    assert "```sh\n./publish.sh --live\nPGPASSWORD=$PGPASSWORD psql\n```" in text  # a reference holds none
    assert "sk_test" not in text


def test_a_skill_description_says_when_to_use_it_without_pointing_below() -> None:
    def description(title: str, guidance: str) -> str:
        entry = parse_entry(f"---\nslug: s\ntitle: {title}\nroute: skill\n---\n{guidance}\n\n```sh\nmake x\n```\n",
                            "topics/s.md")
        text = skill_text(entry, None)
        assert f"\n{guidance}\n" in text  # the body keeps the line: there the snippet is below
        return str(yaml.safe_load(text.split("---\n")[1])["description"])

    assert description("Publish the docs", "For publishing the docs by hand, use the snippet below.") \
        == "Publish the docs: for publishing the docs by hand."
    assert description("Rotate the logs", "Rotate the logs: use the snippet below.") == "Rotate the logs."
    assert description("Seed data", "Run it after every reset.") == "Run it after every reset."


def test_route_decisions_appends_to_decisions_md_and_never_edits_it(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    existing = "# Decisions\n\n## 2026-01-01 — Use pnpm\n\nWe use pnpm.\n"
    (project / "DECISIONS.md").write_text(existing)
    _dream(s, _routed(s, "decisions", slug="postgres-16"))
    s.decide_all("accept")
    commit(s.ws, DREAM_ID, now=NOW)
    text = (project / "DECISIONS.md").read_text()
    assert text.startswith(existing) and "— Deploy: 1. make build" in text
    assert "memory entry `postgres-16`" in text
    entry = parse_entry(s.text("topics/postgres-16.md"), "topics/postgres-16.md")
    assert entry.meta["route"] == "memory"  # kept and searchable, not in AGENTS.md


def test_route_person_writes_nothing_and_logs_a_question(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    _dream(s, _routed(s, "person", slug="pricing-question"))
    s.decide_all("accept")
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert report.counts.get("noted") == 1
    assert not (s.ws.memory_root / "topics/pricing-question.md").exists()
    assert any(" question topics/pricing-question.md" in line for line in s.log_lines())


def test_dreamtui_bundle_updates_blocks_but_never_appends_a_first_one(tmp_path: Path) -> None:
    s, project = _scenario(tmp_path)
    s.entry("node-20", "npm ci needs Node 20.")
    report = commit_bundle(s.ws, now=NOW)
    assert (project / "AGENTS.md").read_text() == HAND_AGENTS
    assert any("no dreamtui block yet" in w for w in report.warnings)
    assert LTMStore(s.ws.memory_root).scan().problems == []


def test_archiving_a_skill_removes_both_copies_and_leaves_skills_dreamtui_did_not_write(
        tmp_path: Path) -> None:
    from dreamtui.review.commit import commit_human_change
    s, project = _scenario(tmp_path)
    theirs = s.ws.context_root / "skills/release-notes" / SKILL_FILE  # a Dreamer server's own
    theirs.parent.mkdir(parents=True)
    theirs.write_text("---\nname: release-notes\ndescription: theirs\nversion: 3\n---\nTheirs.\n")
    _dream(s, _routed(s, "skill"))
    s.decide_all("accept")
    commit(s.ws, DREAM_ID, now=NOW)
    delivered = project / ".claude/skills/deploy-steps" / SKILL_FILE
    assert delivered.exists()
    commit_human_change(s.ws, "topics/deploy-steps.md", None, "archive", "superseded", now=NOW)
    assert not delivered.exists()
    assert not (s.ws.context_root / "skills/deploy-steps" / SKILL_FILE).exists()
    assert theirs.read_text().endswith("Theirs.\n")


def test_a_long_slug_gives_a_skill_name_claude_code_accepts() -> None:
    from dreamtui.deliver.skills import NAME_LIMIT, skill_name
    slug = "run-the-integration-suite-against-a-fresh-postgres-container-before-every-merge"
    name = skill_name(slug)
    assert len(name) <= NAME_LIMIT and slug.startswith(name) and not name.endswith("-")
    assert skill_name("short-one") == "short-one"


def test_a_project_root_that_is_the_context_folder_never_doubles_the_bundle(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws", project__root="workspace/context")
    s.settle()
    _dream(s, s.create("alembic-first", "Apply alembic migrations before seeding.", s.memories(1)))
    s.decide_all("accept")
    commit(s.ws, DREAM_ID, now=NOW)
    bundle = s.ws.agents_md.read_text()
    assert bundle.startswith("# Agent context") and "dreamtui:begin" not in bundle
    claude = (s.ws.context_root / "CLAUDE.md").read_text()
    assert find_block(claude).content == "@AGENTS.md\n"  # type: ignore[union-attr]


def test_a_save_while_the_commit_runs_is_kept_and_the_commit_planned_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dreamtui.review.commit as commit_module
    s, project = _delivered(tmp_path)
    s.decide_all("accept")
    real_run = commit_module.run_journal
    calls: list[int] = []

    def save_then_run(workspace, plan):  # type: ignore[no-untyped-def]
        if not calls:  # a person saves AGENTS.md after the plan read it, before any rename
            (project / "AGENTS.md").write_text("# Saved meanwhile\n" + (project / "AGENTS.md").read_text())
        calls.append(1)
        return real_run(workspace, plan)

    monkeypatch.setattr(commit_module, "run_journal", save_then_run)
    report = commit(s.ws, DREAM_ID, now=NOW)
    text = (project / "AGENTS.md").read_text()
    assert len(calls) == 2 and text.startswith("# Saved meanwhile\n" + HAND_AGENTS)
    assert "[mem: node-20]" in text
    assert any("planned again around your version" in w for w in report.warnings)


def test_a_project_root_that_is_not_a_folder_is_never_created(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws", project__root="../no-such-project")
    s.settle()
    p = _routed(s, "decisions")
    _dream(s, p)
    s.decide_all("accept")
    report = commit(s.ws, DREAM_ID, now=NOW)
    assert not (tmp_path / "no-such-project").exists()
    assert any("is not a folder; nothing delivered" in c.reason for c in report.conflicts)
    assert (s.ws.memory_root / "topics/deploy-steps.md").exists()  # the memory is committed
