"""A commit that delivers into the code project, SIGKILLed at every crash point: no project file
is ever half-written, and recovery leaves each exactly as an uninterrupted commit does."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dreamtui.review.commit import commit
from dreamtui.store.journal import CRASH_ENV, CRASH_POINTS, pending_journals, recover
from dreamtui.workspace.layout import open_workspace
from tests.factories import DREAM_ID, NOW, Scenario
from tests.system.test_crash import COMMIT, ROOT

HAND_AGENTS = "# Agents\n\nThis repo uses pnpm.\n"
HAND_CLAUDE = "my own CLAUDE.md\n"
PROJECT_FILES = ("AGENTS.md", "CLAUDE.md", "DECISIONS.md", ".claude/skills/deploy-steps/SKILL.md")


def _files(project: Path) -> dict[str, bytes | None]:
    return {name: (project / name).read_bytes() if (project / name).exists() else None
            for name in PROJECT_FILES}


def _temps(project: Path) -> list[Path]:
    return [p for p in project.rglob("*.tmp") if ".git" not in p.parts]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A workspace and its project side by side (project.root: ../code), decided: a skill, a
    decision and the bundle with its first blocks; and the project after a clean commit."""
    base = tmp_path_factory.mktemp("deliver-crash") / "pair"
    project = base / "code"
    project.mkdir(parents=True)
    (project / "AGENTS.md").write_text(HAND_AGENTS)
    (project / "CLAUDE.md").write_text(HAND_CLAUDE)
    s = Scenario(base / "ws", project__root="../code")
    s.settle()
    m = s.memories(2)
    skill = s.create("deploy-steps", "Deploy: 1. make build 2. make push.", [m[0]])
    skill.route = "skill"
    decision = s.create("postgres-16", "We run Postgres 16 everywhere.", [m[1]])
    decision.route = "decisions"
    s.changeset([skill, decision])
    s.decide_all("accept")
    reference = base.parent / "reference"
    shutil.copytree(base, reference)
    commit(open_workspace(reference / "ws"), DREAM_ID, now=NOW)
    after = _files(reference / "code")
    assert all(after[name] is not None for name in PROJECT_FILES)
    return {"source": base, "before": _files(project), "after": after}


@pytest.mark.slow
@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_killed_commit_never_leaves_a_half_written_project_file(
        point: str, prepared: dict[str, object], tmp_path: Path) -> None:
    pair = tmp_path / "pair"
    shutil.copytree(prepared["source"], pair)  # type: ignore[arg-type]
    project = pair / "code"
    before: dict[str, bytes | None] = prepared["before"]  # type: ignore[assignment]
    after: dict[str, bytes | None] = prepared["after"]  # type: ignore[assignment]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), CRASH_ENV: point}
    proc = subprocess.run([sys.executable, "-c", COMMIT, str(pair / "ws"), DREAM_ID, NOW.isoformat()],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    for name, data in _files(project).items():  # each file whole: as it was, or as it will be
        assert data in (before[name], after[name]), name
    if point == "mid-apply":  # killed between renames: the staged project texts are strays now
        assert _temps(project)

    workspace = open_workspace(pair / "ws")
    recover(workspace)
    assert pending_journals(workspace) == []
    if _files(project) != after:  # killed before the journal was marked: nothing happened yet
        assert _files(project) == before
        commit(workspace, DREAM_ID, now=NOW)
    assert _files(project) == after
    assert _temps(project) == []
    assert (project / "AGENTS.md").read_text().startswith(HAND_AGENTS)
