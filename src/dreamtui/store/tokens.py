"""Bearer tokens for the MCP server over HTTP, kept hashed in the workspace's STM database.

A token is shown once, when it is created; only its SHA-256 is stored, so a copy of `stm.db`
does not leak working credentials. A dreamtui token's name is the agent id its memories carry.

A Dreamer server's tokens (its `auth_tokens` table, made by its SimpleTokenAuth in the same
database, hashed the same way) are accepted too, and attributed as Dreamer attributes them: the
agent id is the token's row id (a uuid, Dreamer's `Principal.id`), not its name, so a memory or
a confirmation sent with one token carries the same agent id, and the same idempotency key,
through either server. Their `last_used_at` is kept as Dreamer keeps it. Dreamer's tokens are
made and revoked with Dreamer's own CLI; `dreamtui token` manages only dreamtui's.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from dreamtui.errors import InputError
from dreamtui.model import iso_z, utcnow
from dreamtui.store import db
from dreamtui.store.stm import format_ts

TABLE = "dreamtui_tokens"
DREAMER_TABLE = "auth_tokens"  # Dreamer's SimpleTokenAuth, when it shares the database
TOKEN_PREFIX = "dtui_"
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

# Names are unique among live tokens only, so an agent's token can be rotated (revoke, then
# create the same name) while its memories keep one agent id.
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name VARCHAR NOT NULL,
  token_sha256 VARCHAR NOT NULL,
  created_at VARCHAR NOT NULL,
  revoked_at VARCHAR
);
CREATE UNIQUE INDEX IF NOT EXISTS ix_{TABLE}_live_name ON {TABLE} (name) WHERE revoked_at IS NULL;
"""


@dataclass(frozen=True)
class TokenInfo:
    name: str
    created_at: str
    revoked_at: str | None

    @property
    def live(self) -> bool:
        return self.revoked_at is None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _connect(store_path: Path, busy_timeout_ms: int) -> AbstractContextManager[sqlite3.Connection]:
    """A short-lived connection, shared with the TUI, dreams and the STM store in other processes."""
    return db.connection(store_path, busy_timeout_ms, what="the token table", schema=_SCHEMA)


def _check_name(name: str) -> str:
    if not _NAME_RE.fullmatch(name):
        raise InputError(f"name: {name!r} is not a token name (1 to 64 letters, digits, '.', '_' "
                         "or '-', starting with a letter or digit)")
    return name


def create_token(store_path: Path, name: str, *, busy_timeout_ms: int = 5000) -> str:
    """Store a new token for `name` and return its plaintext — the only time it is visible."""
    _check_name(name)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with _connect(store_path, busy_timeout_ms) as conn:
        try:
            conn.execute(f"INSERT INTO {TABLE} (name, token_sha256, created_at) VALUES (?, ?, ?)",
                         (name, _hash(token), iso_z(utcnow())))
        except sqlite3.IntegrityError:
            raise InputError(f"name: a live token named {name!r} already exists "
                             f"(revoke it first with `dreamtui token revoke {name}`)") from None
    return token


def list_tokens(store_path: Path, *, busy_timeout_ms: int = 5000) -> list[TokenInfo]:
    """Every token ever created, oldest first; revoked ones stay listed for the audit trail."""
    with _connect(store_path, busy_timeout_ms) as conn:
        rows = conn.execute(f"SELECT name, created_at, revoked_at FROM {TABLE} ORDER BY id").fetchall()
    return [TokenInfo(name=row[0], created_at=row[1], revoked_at=row[2]) for row in rows]


def revoke_token(store_path: Path, name: str, *, busy_timeout_ms: int = 5000) -> TokenInfo:
    """Revoke the live token named `name`; the server refuses it from its next request on."""
    _check_name(name)
    revoked_at = iso_z(utcnow())
    with _connect(store_path, busy_timeout_ms) as conn:
        row = conn.execute(f"UPDATE {TABLE} SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL "
                           "RETURNING name, created_at, revoked_at", (revoked_at, name)).fetchone()
    if row is None:
        raise InputError(f"name: no live token named {name!r} (see `dreamtui token list`)")
    return TokenInfo(name=row[0], created_at=row[1], revoked_at=row[2])


def verify(store_path: Path, token: str, *, busy_timeout_ms: int = 5000) -> str | None:
    """The agent id of the live token `token` (a dreamtui token's name, a Dreamer token's row
    id), or None. dreamtui's hashes are compared in constant time, every live one, so the
    answer's timing says nothing about how close a guess came."""
    candidate = _hash(token)
    with _connect(store_path, busy_timeout_ms) as conn:
        rows = conn.execute(f"SELECT name, token_sha256 FROM {TABLE} WHERE revoked_at IS NULL").fetchall()
        found: str | None = None
        for name, stored in rows:
            if hmac.compare_digest(candidate, stored):
                found = name
        return found if found is not None else _dreamer_token(conn, candidate)


def _has_dreamer_table(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (DREAMER_TABLE,)).fetchone() is not None


def _dreamer_token(conn: sqlite3.Connection, digest: str) -> str | None:
    """Dreamer's row id for a token of its `auth_tokens` table, or None (none there, revoked).

    Looked up by its unique hash, as Dreamer does: the lookup is by a SHA-256 of the token, so
    its timing tells nothing about the token. Like Dreamer, every attempt with a known token,
    revoked or not, sets last_used_at (in Dreamer's text form), so its audit trail stays whole.
    """
    if not _has_dreamer_table(conn):
        return None
    row = conn.execute(f"SELECT id, revoked_at FROM {DREAMER_TABLE} WHERE hash = ?", (digest,)).fetchone()
    if row is None:
        return None
    conn.execute(f"UPDATE {DREAMER_TABLE} SET last_used_at = ? WHERE id = ?", (format_ts(utcnow()), row[0]))
    return None if row[1] is not None else str(row[0])


def dreamer_live(store_path: Path, *, busy_timeout_ms: int = 5000) -> int:
    """How many live tokens a Dreamer server keeps in the same database (0 without its table)."""
    with _connect(store_path, busy_timeout_ms) as conn:
        if not _has_dreamer_table(conn):
            return 0
        return int(conn.execute(f"SELECT count(*) FROM {DREAMER_TABLE} WHERE revoked_at IS NULL").fetchone()[0])


def any_live(store_path: Path, *, busy_timeout_ms: int = 5000) -> bool:
    """Whether any token, dreamtui's or a Dreamer server's, would be accepted now."""
    with _connect(store_path, busy_timeout_ms) as conn:
        mine = conn.execute(f"SELECT 1 FROM {TABLE} WHERE revoked_at IS NULL LIMIT 1").fetchone()
    return mine is not None or dreamer_live(store_path, busy_timeout_ms=busy_timeout_ms) > 0
