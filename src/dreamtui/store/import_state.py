"""Where each imported agent log was read up to: the `dreamtui_import_state` side table of `stm.db`.

One row per tenant, source (`claude-code`) and log path: the byte offset read up to, the log's
size and mtime then, where the last consumed line starts and its identity (a record uuid or a
line hash), and the reader's context — JSON this store keeps without reading it (but for the
values an import asks of every log, `context_values`). An import reads the rows first, even a
dry run, so reading never creates the database or the table: a missing one means "no state
yet". The rows are written after the import submitted what it read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
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


def _rows(workspace: Workspace, source: str, columns: str, where: str = "",
          parameters: tuple[str, ...] = ()) -> list[tuple[Any, ...]]:
    """`columns` of the rows of `source` (and `where`, with `parameters` for its placeholders);
    none when the database or table does not exist yet."""
    path = workspace.stm_path
    if not path.is_file():
        return []
    settings = workspace.config.stm
    with db.connection(path, settings.busy_timeout_ms, what=_WHAT, read_only=True) as conn:
        try:
            return conn.execute(f"SELECT {columns} FROM {IMPORT_STATE_TABLE} "
                                f"WHERE tenant_id = ? AND source = ?{where}",
                                (settings.tenant_id, source, *parameters)).fetchall()
        except sqlite3.Error as exc:
            if "no such table" in str(exc):
                return []
            raise


def load_states(workspace: Workspace, source: str, paths: Collection[str] | None = None,
                keys: tuple[str, ...] | None = None) -> dict[str, FileState]:
    """The saved state of every log of `source` (or of those in `paths`), by path; nothing when
    the database or table does not exist yet. Decoding a context is most of the cost: an
    unchanged re-import asks only for its own project's logs, and of their contexts only the
    values under `keys` (picked out by SQLite, as `context_values` does; a key a context lacks
    is None), to tell which logs changed before it decodes those logs' whole contexts."""
    context = "context"
    if keys is not None:
        assert all(key.isidentifier() for key in keys)  # written into the query
        picked = ", ".join(f"'{key}', json_extract(context, '$.{key}')" for key in keys)
        # A damaged context (not JSON, or no object) gives NULL: no state, as when decoded whole.
        context = (f"CASE WHEN json_valid(context) THEN CASE WHEN json_type(context) = 'object' "
                   f"THEN json_object({picked}) END END")
    columns = f'path, "offset", size, mtime_ns, anchor, last_uuid, {context}'
    if paths is None:
        rows = _rows(workspace, source, columns)
    else:  # in the query: the other logs' contexts are not even fetched
        rows = _rows(workspace, source, columns, " AND path IN (SELECT value FROM json_each(?))",
                     (json.dumps(list(paths)),))
    states = {}
    for log, offset, size, mtime_ns, anchor, last_id, context in rows:
        try:
            saved = json.loads(context) if context is not None else None
        except ValueError:
            saved = None  # a damaged context only costs re-reading that log whole
        if isinstance(saved, dict):
            states[log] = FileState(offset, size, mtime_ns, anchor, last_id, saved)
    return states


def context_values(workspace: Workspace, source: str,
                   keys: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The values under `keys` of every log's context, by path (a key a context lacks is None),
    for the logs `load_states` returns. SQLite picks them out, so the rest of each context (the
    parser's recent tool calls, most of its bytes) is not decoded: an import of new logs in a
    workspace holding many asks every log for its record uuids."""
    assert all(key.isidentifier() for key in keys)  # written into the query
    picked = ", ".join(f"json_extract(context, '$.{key}')" for key in keys)
    valid = " AND CASE WHEN json_valid(context) THEN json_type(context) END = 'object'"
    # One JSON text for all the rows, `[[path, value, …], …]`: one decode, not one a value.
    rows = _rows(workspace, source, f"json_group_array(json_array(path, {picked}))", valid)
    return {log: dict(zip(keys, values, strict=True)) for log, *values in json.loads(rows[0][0])} \
        if rows else {}


def save_states(workspace: Workspace, source: str, states: dict[str, FileState], now: datetime) -> None:
    """Record (or replace) the state of each log in `states`, keyed by path."""
    settings = workspace.config.stm
    stamp = now.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
    rows = [(settings.tenant_id, source, log, s.offset, s.size, s.mtime_ns, s.anchor, s.last_id,
             json.dumps(s.context), stamp) for log, s in states.items()]
    with db.connection(workspace.stm_path, settings.busy_timeout_ms, what=_WHAT,
                       schema=_SCHEMA) as conn, db.immediate(conn):
        conn.executemany(f"INSERT OR REPLACE INTO {IMPORT_STATE_TABLE} VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
