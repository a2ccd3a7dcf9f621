"""Proposals a person rejected, remembered so that later dreams do not propose them again.

A side table of `stm.db`, written by the commit journal and read by the dream runner.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from dreamtui.model import iso_z
from dreamtui.store import db
from dreamtui.workspace.layout import Workspace

REJECTIONS_TABLE = "dreamtui_rejections"
_SCHEMA = (f"CREATE TABLE IF NOT EXISTS {REJECTIONS_TABLE} (fingerprint TEXT PRIMARY KEY, "
           "proposal_id TEXT, dream_id TEXT, rejected_at TEXT);")
_WHAT = f"the {REJECTIONS_TABLE} table"


def rejected_fingerprints(workspace: Workspace) -> frozenset[str]:
    """Proposal ids and content fingerprints a person rejected (see proposals.content_fingerprint)."""
    with db.connection(workspace.stm_path, workspace.config.stm.busy_timeout_ms, what=_WHAT,
                       schema=_SCHEMA) as conn:
        return frozenset(row[0] for row in conn.execute(f"SELECT fingerprint FROM {REJECTIONS_TABLE}"))


def remember_rejections(workspace: Workspace, items: Iterable[tuple[str, str, str]], now: datetime) -> int:
    """Record (fingerprint, proposal id, dream id) rows; a fingerprint seen before keeps its first row."""
    stamp = iso_z(now)
    rows = [(fingerprint, proposal_id, dream_id, stamp) for fingerprint, proposal_id, dream_id in items]
    with db.connection(workspace.stm_path, workspace.config.stm.busy_timeout_ms, what=_WHAT,
                       schema=_SCHEMA) as conn:
        with db.immediate(conn):
            before = conn.total_changes
            conn.executemany(f"INSERT OR IGNORE INTO {REJECTIONS_TABLE} "
                             "(fingerprint, proposal_id, dream_id, rejected_at) VALUES (?, ?, ?, ?)", rows)
        return conn.total_changes - before
