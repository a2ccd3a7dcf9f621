"""Durable changesets: `.dreamtui/dreams/<dream-id>.json`, written atomically on every change.

A changeset file is also input (a person may edit it, a crash may truncate an old-format one),
so loading validates every field and names what is wrong instead of failing later.
"""

from __future__ import annotations

import builtins
import json
import os
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamtui.clock import IdSource
from dreamtui.errors import InputError
from dreamtui.model import DECISIONS, OPS, ROUTES, Changeset, Proposal, Refusal, engine_label
from dreamtui.store.files import atomic_write_text, fsync_dir, write_temp
from dreamtui.vocabulary import Op

DREAM_ID_PREFIX = "d-"
STATUSES = ("open", "committed", "abandoned")


def new_dream_id(now: datetime, ids: IdSource) -> str:
    return f"{DREAM_ID_PREFIX}{now.strftime('%Y%m%d-%H%M%S')}-{ids.token_hex(2)}"


@dataclass(frozen=True)
class ChangesetSummary:
    id: str
    engine: str
    created_at: str
    status: str
    complete: bool
    proposals: int
    undecided: int
    path: Path
    fallback: dict[str, str] | None = None  # Changeset.fallback

    @property
    def engine_label(self) -> str:
        return engine_label(self.engine, self.fallback)


def summary_of(changeset: Changeset, path: Path) -> ChangesetSummary:
    """The summary of `changeset` as it is now: the one place its counts are taken, so a list row
    and a view of the same dream in memory say the same numbers."""
    return ChangesetSummary(
        id=changeset.id, engine=changeset.engine, created_at=changeset.created_at,
        status=changeset.status, complete=changeset.complete,
        proposals=len(changeset.reviewable), undecided=changeset.undecided, path=path,
        fallback=changeset.fallback)


class ChangesetStore:
    def __init__(self, dreams_dir: Path) -> None:
        self.dreams_dir = dreams_dir

    def path_for(self, dream_id: str) -> Path:
        if not dream_id.startswith(DREAM_ID_PREFIX) or "/" in dream_id or "\\" in dream_id \
                or dream_id.strip(".") != dream_id:
            raise InputError(f"dream id {dream_id!r}: expected an id like d-20261129-030012-ab12")
        return self.dreams_dir / f"{dream_id}.json"

    def save(self, changeset: Changeset, encoded: list[str] | None = None) -> None:
        """Write the changeset atomically; `encoded` as in changeset_text."""
        atomic_write_text(self.path_for(changeset.id), changeset_text(changeset, encoded))

    def create(self, changeset: Changeset) -> None:
        """Publish a new changeset under its id; FileExistsError when the id is taken.

        Two dreams started in the same second share the id's time part, so a plain save could
        replace another dream's record (and orphan the memories its lease holds). Linking a
        finished temp file to the name is atomic and never overwrites.
        """
        path = self.path_for(changeset.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = write_temp(path, changeset_text(changeset).encode("utf-8"), sync=True)  # 0600
        try:
            os.link(temp, path)
        finally:
            os.unlink(temp)
        fsync_dir(path.parent)

    def load(self, dream_id: str) -> Changeset:
        path = self.path_for(dream_id)
        if not path.is_file():
            known = ", ".join(s.id for s in self.list()[:5]) or "none"
            raise InputError(f"no dream {dream_id} in {self.dreams_dir} (recent: {known})")
        return load_changeset_file(path)

    def list(self) -> list[ChangesetSummary]:
        """Newest first. A file that does not load is skipped here; `load` reports it."""
        if not self.dreams_dir.is_dir():
            return []
        summaries = []
        for path in self.dreams_dir.glob(f"{DREAM_ID_PREFIX}*.json"):
            try:
                changeset = load_changeset_file(path)
            except InputError:
                continue
            summaries.append(summary_of(changeset, path))
        return sorted(summaries, key=lambda s: (s.created_at, s.id), reverse=True)

    def open_changesets(self) -> builtins.list[ChangesetSummary]:
        return [s for s in self.list() if s.status == "open"]


def changeset_text(changeset: Changeset, encoded: list[str] | None = None) -> str:
    """JSON with one proposal (and one refusal) a line: diff-able and editable by hand, and
    without `indent`'s cost, which made saving a large dream a tenth of its run time.

    `encoded` lets a running dream, whose proposals are only ever appended, encode each proposal
    once instead of at every save: it holds the lines of the first proposals and is extended here.
    """
    head = replace(changeset, proposals=[], bundle=None, refused=[]).to_dict()
    del head["proposals"], head["refused"]
    if encoded is None:
        encoded = []
    encoded.extend(json.dumps(p.to_dict(), ensure_ascii=False)
                   for p in changeset.proposals[len(encoded):])
    bundle = [] if changeset.bundle is None else [json.dumps(changeset.bundle.to_dict(), ensure_ascii=False)]
    lists = {"proposals": [*encoded, *bundle],
             "refused": [json.dumps(r.to_dict(), ensure_ascii=False) for r in changeset.refused]}
    parts = [json.dumps(head, ensure_ascii=False)[:-1]]
    for key, rows in lists.items():
        parts.append(f', "{key}": [\n  ' + ",\n  ".join(rows) + "\n]" if rows else f', "{key}": []')
    return "".join(parts) + "}\n"


def load_changeset_file(path: Path) -> Changeset:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; a changeset is a JSON file") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    return changeset_from_dict(data, str(path))


def _field(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str,
           default: Any = ..., nullable: bool = False) -> Any:
    if key not in data:
        if default is ...:
            raise InputError(f"{where}: missing field {key!r}")
        return default
    value = data[key]
    if value is None and nullable:
        return None
    # bool is an int in Python; a changeset edited by hand must not pass true as a number
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        expected = " or ".join(t.__name__ for t in _as_tuple(kind)) + (" or null" if nullable else "")
        raise InputError(f"{where}: field {key!r} must be {expected}, got {type(value).__name__}")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _string_list(data: dict[str, Any], key: str, where: str) -> list[str]:
    values = _field(data, key, list, where, default=[])
    if not all(isinstance(v, str) for v in values):
        raise InputError(f"{where}: field {key!r} must be a list of strings")
    return list(values)


def proposal_from_dict(data: Any, where: str) -> Proposal:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected an object")
    op = _field(data, "op", str, where)
    if op not in OPS:
        raise InputError(f"{where}: op {op!r} is not one of {', '.join(OPS)}")
    decision = _field(data, "decision", str, where, default=None, nullable=True)
    if decision is not None and decision not in DECISIONS:
        raise InputError(f"{where}: decision {decision!r} is not one of {', '.join(DECISIONS)}")
    route = _field(data, "route", str, where, default=None, nullable=True)
    if route is not None and route not in ROUTES:
        raise InputError(f"{where}: route {route!r} is not one of {', '.join(ROUTES)}")
    confidence = _field(data, "confidence", (int, float), where, default=0.5)
    if not 0.0 <= float(confidence) <= 1.0:
        raise InputError(f"{where}: confidence must be between 0 and 1, got {confidence}")
    return Proposal(
        id=_field(data, "id", str, where),
        op=op,
        target=_field(data, "target", str, where),
        slug=_field(data, "slug", str, where, default=None, nullable=True),
        base_sha256=_field(data, "base_sha256", str, where, default=None, nullable=True),
        before=_field(data, "before", str, where, default=None, nullable=True),
        after=_field(data, "after", str, where, default=None, nullable=True),
        rationale=_field(data, "rationale", str, where, default=""),
        evidence=_string_list(data, "evidence", where),
        confidence=float(confidence),
        safety=_string_list(data, "safety", where),
        decision=decision,
        details=dict(_field(data, "details", dict, where, default={})),
        route=route,
    )


def changeset_from_dict(data: Any, source: str) -> Changeset:
    if not isinstance(data, dict):
        raise InputError(f"{source}: expected a JSON object at the top")
    status = _field(data, "status", str, source, default="open")
    if status not in STATUSES:
        raise InputError(f"{source}: status {status!r} is not one of {', '.join(STATUSES)}")
    raw_proposals = _field(data, "proposals", list, source, default=[])
    proposals = [proposal_from_dict(p, f"{source}: proposals[{i}]") for i, p in enumerate(raw_proposals)]
    ids = [p.id for p in proposals]
    if len(ids) != len(set(ids)):
        raise InputError(f"{source}: proposal ids must be unique")
    bundles = [p for p in proposals if p.op == Op.CONTEXT]
    if len(bundles) > 1:
        raise InputError(f"{source}: {len(bundles)} context proposals; a dream has at most one bundle")
    refused = []
    for i, item in enumerate(_field(data, "refused", list, source, default=[])):
        where = f"{source}: refused[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: expected an object")
        refused.append(Refusal(op=str(item.get("op", "")), target=str(item.get("target", "")),
                               reason=_field(item, "reason", str, where),
                               raw=dict(_field(item, "raw", dict, where, default={}))))
    usage = _field(data, "usage", dict, source, default={})
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values()):
        raise InputError(f"{source}: usage values must be whole numbers")
    changeset = Changeset(
        id=_field(data, "id", str, source),
        engine=_field(data, "engine", str, source),
        created_at=_field(data, "created_at", str, source),
        status=status,
        lease_id=_field(data, "lease_id", str, source, default=None, nullable=True),
        batch=_string_list(data, "batch", source),
        stats=dict(_field(data, "stats", dict, source, default={})),
        proposals=[p for p in proposals if p.op != Op.CONTEXT],
        bundle=bundles[0] if bundles else None,
        refused=refused,
        usage=dict(usage),
        left_out=_string_list(data, "left_out", source),
        complete=_field(data, "complete", bool, source, default=False),
    )
    fallback = changeset.stats.get("fallback")
    if fallback is not None and not (isinstance(fallback, dict) and set(fallback) == {"from", "reason"}
                                     and all(isinstance(v, str) for v in fallback.values())):
        raise InputError(f'{source}: stats.fallback must be {{"from": engine, "reason": text}} or absent')
    changeset.note_fallback()  # a file written before the fallback was recorded at the top
    return changeset
