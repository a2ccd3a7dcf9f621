"""Tokens for the MCP server over HTTP: shown once, stored hashed, revocable, names unique."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dreamtui.cli.main import main
from dreamtui.errors import InputError
from dreamtui.store import tokens
from tests.factories import minimal_workspace
from tests.fixtures.dreamer_auth import DREAMER_TOKEN, DREAMER_TOKEN_ID, add_dreamer_token


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "stm.db"


def test_create_returns_a_token_that_verifies_to_its_name(db: Path) -> None:
    token = tokens.create_token(db, "claude")
    assert token.startswith(tokens.TOKEN_PREFIX) and len(token) > 40
    assert tokens.verify(db, token) == "claude"
    assert tokens.verify(db, token + "x") is None
    assert tokens.verify(db, "") is None


def test_only_the_hash_is_stored(db: Path) -> None:
    token = tokens.create_token(db, "claude")
    with sqlite3.connect(db) as conn:
        dump = "\n".join(conn.iterdump())
    assert token not in dump
    assert tokens._hash(token) in dump


def test_live_names_are_unique(db: Path) -> None:
    tokens.create_token(db, "claude")
    with pytest.raises(InputError, match="name: a live token named 'claude' already exists"):
        tokens.create_token(db, "claude")


def test_revoked_token_no_longer_verifies_and_its_name_can_be_reused(db: Path) -> None:
    old = tokens.create_token(db, "codex")
    info = tokens.revoke_token(db, "codex")
    assert info.name == "codex" and info.revoked_at is not None
    assert tokens.verify(db, old) is None
    new = tokens.create_token(db, "codex")
    assert tokens.verify(db, new) == "codex"
    listed = tokens.list_tokens(db)
    assert [(t.name, t.live) for t in listed] == [("codex", False), ("codex", True)]


def test_revoking_an_unknown_name_names_the_field(db: Path) -> None:
    with pytest.raises(InputError, match="name: no live token named 'ghost'"):
        tokens.revoke_token(db, "ghost")


@pytest.mark.parametrize("name", ["", "has space", "-dash-first", "x" * 65, "naïve"])
def test_bad_names_are_refused(db: Path, name: str) -> None:
    with pytest.raises(InputError, match="name: "):
        tokens.create_token(db, name)


def test_table_lives_beside_the_stm_tables_in_wal_mode(db: Path) -> None:
    tokens.create_token(db, "a")
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tokens.TABLE in names


def _cli(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    code = "from dreamtui.cli.main import main; import dreamtui.cli.mcp_cmds; main()"
    return subprocess.run([sys.executable, "-c", code, "--workspace", str(workspace), *args],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")})


@pytest.mark.slow
def test_token_cli_create_list_revoke(ws: Path) -> None:
    created = _cli(ws, "token", "create", "claude")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    assert tokens.verify(ws / "stm.db", token) == "claude"
    assert "cannot be shown again" in created.stderr

    listed = _cli(ws, "token", "list")
    assert listed.returncode == 0 and "claude" in listed.stdout and "live" in listed.stdout
    assert token not in listed.stdout

    revoked = _cli(ws, "token", "revoke", "claude")
    assert revoked.returncode == 0, revoked.stderr
    assert tokens.verify(ws / "stm.db", token) is None
    assert "revoked" in _cli(ws, "token", "list").stdout

    again = _cli(ws, "token", "revoke", "claude")
    assert again.returncode == 2
    assert again.stderr.startswith("dreamtui: name: no live token named 'claude'")
    assert "Traceback" not in again.stderr


# -- a Dreamer server's tokens (issue 15, item 9) -------------------------------------------------

def _last_used(db: Path) -> str | None:
    with sqlite3.connect(db) as conn:
        value: str | None = conn.execute("SELECT last_used_at FROM auth_tokens").fetchone()[0]
    return value


def test_a_dreamer_token_is_accepted_as_its_row_id(db: Path) -> None:
    """Before: 401. The agent id is Dreamer's Principal.id for the token, its row id."""
    add_dreamer_token(db)
    assert tokens.any_live(db)
    assert tokens.verify(db, DREAMER_TOKEN) == DREAMER_TOKEN_ID
    used = _last_used(db)
    assert used is not None and len(used) == len("2026-12-01 11:24:25.767103") and "T" not in used
    assert tokens.verify(db, DREAMER_TOKEN[:-1]) is None


def test_a_revoked_dreamer_token_is_refused_and_the_attempt_recorded(db: Path) -> None:
    add_dreamer_token(db, revoked=True)
    assert not tokens.any_live(db)
    assert tokens.verify(db, DREAMER_TOKEN) is None
    assert _last_used(db) is not None  # as Dreamer records every attempt with a known token


def test_dreamtui_tokens_stay_names_beside_dreamers(db: Path) -> None:
    add_dreamer_token(db)
    mine = tokens.create_token(db, "codex")
    assert tokens.verify(db, mine) == "codex" and tokens.verify(db, DREAMER_TOKEN) == DREAMER_TOKEN_ID
    assert [t.name for t in tokens.list_tokens(db)] == ["codex"]


def test_token_list_mentions_dreamers_live_tokens(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws")
    add_dreamer_token(ws / "stm.db")
    shown = CliRunner().invoke(main, ["--workspace", str(ws), "token", "list"])
    assert shown.exit_code == 0, shown.output
    assert "also 1 live Dreamer server token in its auth_tokens table" in shown.output
    assert tokens.dreamer_live(ws / "stm.db") == 1
