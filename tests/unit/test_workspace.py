"""Workspace discovery (flag, environment, upward search) and `dreamtui init`."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.errors import WorkspaceError
from dreamtui.workspace.layout import find_workspace_root, open_workspace


def make(root: Path, name: str = "dreamtui.yaml", text: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text, encoding="utf-8")
    return root


def test_explicit_beats_env_beats_search(tmp_path: Path) -> None:
    a, b, c = make(tmp_path / "a"), make(tmp_path / "b"), make(tmp_path / "c")
    deep = c / "x" / "y"
    deep.mkdir(parents=True)
    env = {"DREAMTUI_WORKSPACE": str(b)}
    assert find_workspace_root(a, cwd=deep, environ=env) == a.resolve()
    assert find_workspace_root(None, cwd=deep, environ=env) == b.resolve()
    assert find_workspace_root(None, cwd=deep, environ={}) == c.resolve()


def test_dreamer_folder_opens(tmp_path: Path) -> None:
    root = make(tmp_path / "d", "dreamer.yaml",
                "stm_store:\n  params:\n    db_path: ./data/x.db\n")
    workspace = open_workspace(root, environ={})
    assert workspace.is_dreamer
    assert workspace.stm_path == root.resolve() / "data" / "x.db"


def test_no_workspace_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="no workspace found"):
        find_workspace_root(None, cwd=tmp_path, environ={})


def test_named_folder_without_config(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="dreamtui init"):
        find_workspace_root(tmp_path, environ={})
    with pytest.raises(WorkspaceError, match="DREAMTUI_WORKSPACE"):
        find_workspace_root(None, environ={"DREAMTUI_WORKSPACE": str(tmp_path / "missing")})


def test_paths_resolve_relative_to_root(tmp_path: Path) -> None:
    root = make(tmp_path / "w", text="ltm:\n  root: mem\ncontext:\n  root: /abs/ctx\n")
    workspace = open_workspace(root, environ={})
    assert workspace.memory_root == root.resolve() / "mem"
    assert workspace.context_root == Path("/abs/ctx")
    assert workspace.agents_md == Path("/abs/ctx/AGENTS.md")
