"""Where each imported agent log was read up to: the `dreamtui_import_state` side table of `stm.db`.

One row per tenant, source (`claude-code`) and log path: the byte offset read up to, the log's
size and mtime then, where the last consumed line starts and its identity (a record uuid or a
line hash), and the reader's context — JSON this store keeps without reading it. An import
reads the rows first, even a dry run, so reading never creates the database or the table: a
missing one means "no state yet". The rows are written after the import submitted what it read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Container
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from dreamtui.store import db
from dreamtui.workspace.layout import Workspace

IMPORT_STATE_TABLE = "dreamtui_import_state"
_SCHEMA = f"""CREATE TABLE IF NOT EXISTS {IMPORT_STATE_TABLE} (
  tenant_id VARCHAR NOT NULL, source VARCHAR NOT NULL, path VARCHAR NOT NULL,
  "offset" INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  anchor INTEGER NOT NULL, last_uuid VARCHAR, context JSON NOT NULL, updated_at DATETIME NOT NULL,
  PRIMARY KEY (tenant_id, source, path));"""
_WHAT = f"the {IMPORT_STATE_TABLE} table"


@dataclass(frozen=True)
class FileState:
    """How far one log was read, and what reading on from there needs."""

    offset: int
    size: int
    mtime_ns: int
    anchor: int
    last_id: str | None
    context: dict[str, Any]


def load_states(workspace: Workspace, source: str,
                paths: Container[str] | None = None) -> dict[str, FileState]:
    """The saved state of every log of `source` (or of those in `paths`), by path; nothing when
    the database or table does not exist yet. Decoding a context is most of the cost: an
    unchanged re-import asks only for its own project's logs."""
    path = workspace.stm_path
    if not path.is_file():
        return {}
    settings = workspace.config.stm
    with db.connection(path, settings.busy_timeout_ms, what=_WHAT, read_only=True) as conn:
        try:
            rows = conn.execute(f'SELECT path, "offset", size, mtime_ns, anchor, last_uuid, context '
                                f"FROM {IMPORT_STATE_TABLE} WHERE tenant_id = ? AND source = ?",
                                (settings.tenant_id, source)).fetchall()
        except sqlite3.Error as exc:
            if "no such table" in str(exc):
                return {}
            raise
    states = {}
    for log, offset, size, mtime_ns, anchor, last_id, context in rows:
        if paths is not None and log not in paths:
            continue
        try:
            saved = json.loads(context)
        except ValueError:
            saved = None  # a damaged context only costs re-reading that log whole
        if isinstance(saved, dict):
            states[log] = FileState(offset, size, mtime_ns, anchor, last_id, saved)
    return states


def save_states(workspace: Workspace, source: str, states: dict[str, FileState], now: datetime) -> None:
    """Record (or replace) the state of each log in `states`, keyed by path."""
    settings = workspace.config.stm
    stamp = now.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
    rows = [(settings.tenant_id, source, log, s.offset, s.size, s.mtime_ns, s.anchor, s.last_id,
             json.dumps(s.context), stamp) for log, s in states.items()]
    with db.connection(workspace.stm_path, settings.busy_timeout_ms, what=_WHAT,
                       schema=_SCHEMA) as conn, db.immediate(conn):
        conn.executemany(f"INSERT OR REPLACE INTO {IMPORT_STATE_TABLE} VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
