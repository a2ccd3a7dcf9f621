"""The import state side table: what an import asks of it without decoding every log's context."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from dreamtui.store.import_state import (
    IMPORT_STATE_TABLE,
    FileState,
    context_values,
    load_states,
    save_states,
)
from dreamtui.workspace.layout import Workspace, open_workspace

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "dreamtui.yaml").write_text("", encoding="utf-8")
    return open_workspace(root)


def _saved(workspace: Workspace) -> None:
    save_states(workspace, "claude-code", {
        "/p/a.jsonl": FileState(10, 10, 1, 0, "u1", {"tools": {"t": ["Bash", "ls", None]},
                                                     "friction_uuids": ["u1", "u2"], "cwd": "/p"}),
        "/p/b.jsonl": FileState(5, 5, 2, 0, None, {"error_signatures": [["Bash\0x", "s1"]]}),
        "/q/c.jsonl": FileState(7, 7, 3, 0, None, {"friction_uuids": ["u9"]}),
    }, NOW)
    save_states(workspace, "codex", {"/p/a.jsonl": FileState(1, 1, 1, 0, None, {"x": 1})}, NOW)


def test_load_states_of_some_paths_only(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    _saved(workspace)
    states = load_states(workspace, "claude-code", {"/p/a.jsonl", "/p/missing.jsonl"})
    assert list(states) == ["/p/a.jsonl"]
    assert states["/p/a.jsonl"].context["cwd"] == "/p"
    assert set(load_states(workspace, "claude-code")) == {"/p/a.jsonl", "/p/b.jsonl", "/q/c.jsonl"}
    assert load_states(workspace, "claude-code", set()) == {}


def test_load_states_with_keys_decodes_only_those_values(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    _saved(workspace)
    with sqlite3.connect(workspace.stm_path) as conn:  # damaged rows: no state, as when decoded whole
        conn.execute(f"UPDATE {IMPORT_STATE_TABLE} SET context = '{{not json' WHERE path = '/q/c.jsonl'")
        conn.execute(f"INSERT INTO {IMPORT_STATE_TABLE} VALUES ('default', 'claude-code', '/r.jsonl', "
                     "0, 0, 0, 0, NULL, '[1, 2]', '2026-01-01')")
    states = load_states(workspace, "claude-code", None, keys=("cwd", "friction_uuids"))
    assert states == {
        "/p/a.jsonl": FileState(10, 10, 1, 0, "u1", {"cwd": "/p", "friction_uuids": ["u1", "u2"]}),
        "/p/b.jsonl": FileState(5, 5, 2, 0, None, {"cwd": None, "friction_uuids": None}),
    }
    assert set(states) == set(load_states(workspace, "claude-code"))


def test_context_values_pick_keys_and_skip_damaged_contexts(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    _saved(workspace)
    with sqlite3.connect(workspace.stm_path) as conn:  # as a damaged row would read
        conn.execute(f"UPDATE {IMPORT_STATE_TABLE} SET context = '{{not json' WHERE path = '/q/c.jsonl'")
        conn.execute(f"INSERT INTO {IMPORT_STATE_TABLE} VALUES ('default', 'claude-code', '/r.jsonl', "
                     "0, 0, 0, 0, NULL, '[1, 2]', '2026-01-01')")
    values = context_values(workspace, "claude-code", ("friction_uuids", "error_signatures"))
    assert values == {
        "/p/a.jsonl": {"friction_uuids": ["u1", "u2"], "error_signatures": None},
        "/p/b.jsonl": {"friction_uuids": None, "error_signatures": [["Bash\0x", "s1"]]},
    }
    assert set(values) == set(load_states(workspace, "claude-code"))  # the same logs


def test_nothing_saved_yet(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    assert context_values(workspace, "claude-code", ("friction_uuids",)) == {}
    assert load_states(workspace, "claude-code", {"/p/a.jsonl"}) == {}
    assert not workspace.stm_path.exists()
