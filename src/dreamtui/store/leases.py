"""Who owns each claim on the queue, and returning the claims nobody owns (docs/architecture.md §4.3).

A lease is *owned* while an open changeset that loads names it: that dream's review decides what
becomes of its memories. Any other lease dreamtui took is *stranded*, and nothing would return
its memories: a finished dream's claim is kept without an expiry (`STMStore.keep_claim`), and a
killed dream's lease row is dropped by the next write (`STMStore.begin_writing`), its claim kept:
- no record names it: the dream was killed between the claim and the first save of its
  changeset, or a person deleted the file;
- only a closed record names it: a crash between "abandoned" and the end of the lease;
- the record naming it does not load (a corrupt or truncated file).
`release_stranded` returns all of them. The next dream returns the first two kinds by itself
(`settle`): it holds the workspace lock, so no other dream can be between its claim and its
first save, and it also closes the open dreams that never completed (their process is gone).
Claims behind an unreadable record wait for a person, who sees the record in `review list`.

A lease dreamtui did not take (a Dreamer server sharing stm.db, running its own dream) is never
released here: it returns its memories itself, or they return when it expires.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dreamtui.errors import InputError
from dreamtui.model import Changeset
from dreamtui.store.changesets import DREAM_ID_PREFIX, ChangesetStore, load_changeset_file
from dreamtui.store.files import fsync_dir
from dreamtui.store.lock import WorkspaceLock, changeset_lock
from dreamtui.store.stm import Holding, STMStore
from dreamtui.workspace.layout import Workspace

GONE = "its memories are gone from stm.db (the database was replaced or truncated)"
CORRUPT_SUFFIX = ".corrupt"
# The record's header (id, status, lease, batch) is its first line; a truncated file keeps it.
_LEASE_ID_RE = re.compile(r'"lease_id"\s*:\s*"([^"\\]{1,200})"')
_SALVAGE_BYTES = 1 << 20
_PROPOSALS_START = ', "proposals": ['  # what follows the header on the first line
_ASIDE_ATTEMPTS = 100


# -- records ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """One changeset file, as far as it can be read."""

    dream_id: str  # the file's name without .json
    path: Path
    status: str | None  # None: the file does not load
    lease_id: str | None  # for a file that does not load: read from its raw text, when it can be
    changeset: Changeset | None = None  # loaded for open records (the only ones that own a lease)
    problem: str | None = None  # why the file does not load

    @property
    def owns(self) -> bool:
        """An open record that loads: the one kind that owns its lease."""
        return self.changeset is not None and self.status == "open"


def read_record(path: Path) -> Record:
    """The record at `path`; a closed one from its header line alone (a year of nightly dreams
    would otherwise be parsed whole at every dream's start)."""
    head = _closed_head(path)
    if head is not None:
        return Record(path.stem, path, head[0], head[1])
    return _loaded(path)


def _loaded(path: Path) -> Record:
    try:
        changeset = load_changeset_file(path)
    except InputError as exc:
        return Record(path.stem, path, None, _salvage_lease_id(path), problem=str(exc))
    return Record(path.stem, path, changeset.status, changeset.lease_id, changeset)


def read_records(dreams_dir: Path) -> list[Record]:
    """Every changeset file in `dreams_dir`, in file-name order (oldest dream first)."""
    if not dreams_dir.is_dir():
        return []
    return [read_record(path) for path in sorted(dreams_dir.glob(f"{DREAM_ID_PREFIX}*.json"))]


def _closed_head(path: Path) -> tuple[str, str | None] | None:
    """(status, lease id) of a committed or abandoned record, from the header line
    `changeset_text` writes first; None when the file is open, written otherwise, or unreadable."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(_SALVAGE_BYTES).decode("utf-8")
        head = json.loads(first.rstrip("\r\n").removesuffix(_PROPOSALS_START) + "}") \
            if first.rstrip("\r\n").endswith(_PROPOSALS_START) else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(head, dict):
        return None
    status, lease_id = head.get("status"), head.get("lease_id")
    if status not in ("committed", "abandoned") or not isinstance(lease_id, str | None):
        return None
    return status, lease_id


def unreadable_records(dreams_dir: Path, readable: set[Path]) -> list[Record]:
    """The changeset files that do not load whole, given the paths of those that did."""
    if not dreams_dir.is_dir():
        return []
    records = (_loaded(path) for path in sorted(dreams_dir.glob(f"{DREAM_ID_PREFIX}*.json"))
               if path not in readable)
    return [record for record in records if record.problem is not None]


def _salvage_lease_id(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(_SALVAGE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    found = _LEASE_ID_RE.search(head)
    return found.group(1) if found else None


# -- claims -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A lease holding memories, and the record that names it (an owning one first), if any."""

    holding: Holding
    owner: Record | None

    @property
    def state(self) -> str:
        """owned | unreadable (its record does not load) | closed (its record is committed or
        abandoned) | unnamed (no record names it) | foreign (another program's lease)."""
        if self.owner is None:
            return "unnamed" if self.holding.ours else "foreign"
        if self.owner.owns:
            return "owned"
        return "unreadable" if self.owner.status is None else "closed"

    @property
    def stranded(self) -> bool:
        return self.state in ("unreadable", "closed", "unnamed")

    def describe(self) -> str:
        count = self.holding.memories
        held = f"{count} memor{'y' if count == 1 else 'ies'}"
        lease = f"lease {self.holding.lease_id[:8]}"
        owner = self.owner
        if owner is None:
            if self.holding.ours:
                return (f"{held} held by {lease}, which no dream record names (its dream was killed "
                        "before it saved one, or the record was deleted)")
            return (f"{held} held by {lease}, which dreamtui did not take (another program sharing "
                    "stm.db, e.g. a Dreamer server; it returns them itself or when the lease expires)")
        if owner.status is None:
            return f"{held} held by {lease} of {owner.path.name}, a dream record that does not load"
        if owner.owns:
            return f"{held} held by dream {owner.dream_id}"
        return f"{held} held by {lease} of dream {owner.dream_id}, which is {owner.status}"


def claims(stm: STMStore, records: list[Record]) -> list[Claim]:
    """Every lease that holds memories, with its owner."""
    named: dict[str, Record] = {}
    for record in records:
        if record.lease_id is not None and (record.lease_id not in named or record.owns):
            named[record.lease_id] = record
    return [Claim(holding, named.get(holding.lease_id)) for holding in stm.holdings()]


def memories_gone(stm: STMStore, batch: Sequence[str]) -> bool:
    """None of a dream's batch is in stm.db any more: the database was replaced (deleted and
    made anew) or truncated since the claim. A claimed memory is never purged, so nothing else
    removes them all."""
    return bool(batch) and stm.count_present(batch) == 0


# -- returning claims ---------------------------------------------------------------------------


def _return(stm: STMStore, lease_id: str) -> int:
    """Every memory the lease holds back to pending, and the lease ended: abandon's own steps."""
    released = stm.release(lease_id)
    stm.end_lease(lease_id)
    return released


def close_and_return(workspace: Workspace, changeset: Changeset) -> int:
    """Save the open record as abandoned, then return its batch; the memories returned.

    The record says "abandoned" before the lease ends, so a crash in between leaves a lease only a
    closed record names: stranded, and returned by the next dream or `release --stranded`.
    The caller holds the workspace lock and the record's changeset_lock.
    """
    changeset.status = "abandoned"
    ChangesetStore(workspace.dreams_dir).save(changeset)
    if changeset.lease_id is None:
        return 0
    with STMStore.for_workspace(workspace) as stm:
        return _return(stm, changeset.lease_id)


@dataclass(frozen=True)
class Abandoned:
    """What `abandon` did."""

    dream_id: str
    released: int
    gone: bool = False  # GONE: nothing could be returned (known only for a record that loads)
    problem: str | None = None  # the record did not load: why
    moved_to: Path | None = None  # … and where it now lies
    lease_found: bool = True  # False: an unreadable record whose lease could not be read


def abandon_unreadable(workspace: Workspace, record: Record) -> Abandoned:
    """Abandon a dream whose record does not load: move the file aside (never delete it: a person
    may want what it holds), then return what its lease holds, when the lease can be read.

    The file moves first, so a crash in between leaves a lease no record names: returned by the
    next dream. The caller holds the workspace lock and the record's changeset_lock.
    """
    moved = _move_aside(record.path)
    if record.lease_id is None:
        return Abandoned(record.dream_id, 0, problem=record.problem, moved_to=moved, lease_found=False)
    with STMStore.for_workspace(workspace) as stm:
        released = _return(stm, record.lease_id)
    return Abandoned(record.dream_id, released, problem=record.problem, moved_to=moved)


def _move_aside(path: Path) -> Path:
    """`<id>.json` → `<id>.json.corrupt` (or `.corrupt.2`, …): a link first, so nothing is
    ever overwritten, then the old name goes."""
    for attempt in range(1, _ASIDE_ATTEMPTS + 1):
        target = path.with_name(path.name + CORRUPT_SUFFIX + ("" if attempt == 1 else f".{attempt}"))
        try:
            os.link(path, target)
        except FileExistsError:
            continue
        os.unlink(path)
        fsync_dir(path.parent)
        return target
    raise InputError(f"{path}: {_ASIDE_ATTEMPTS} files named {path.name}{CORRUPT_SUFFIX}… already "
                     "exist; move some of them away first")


@dataclass(frozen=True)
class Released:
    claim: Claim
    released: int


def release_stranded(workspace: Workspace) -> list[Released]:
    """Return to the queue every stranded claim (module docstring), under the workspace lock."""
    with WorkspaceLock(workspace, "release --stranded").acquire(), \
            STMStore.for_workspace(workspace) as stm:
        stranded = [c for c in claims(stm, read_records(workspace.dreams_dir)) if c.stranded]
        return [Released(c, _return(stm, c.holding.lease_id)) for c in stranded]


def release_dream(workspace: Workspace, dream_id: str) -> int:
    """Return what the lease of DREAM still holds, when no open dream owns it; the memories returned.

    For a dream that is closed or whose record does not load. An open dream that loads owns its
    batch: `abandon` is what closes it.
    """
    store = ChangesetStore(workspace.dreams_dir)
    path = store.path_for(dream_id)
    with WorkspaceLock(workspace, f"release {dream_id}").acquire(), changeset_lock(workspace, dream_id):
        if not path.is_file():
            store.load(dream_id)  # raises the usual "no dream …" message
        record = read_record(path)
        if record.owns:
            raise InputError(f"dream {dream_id} is open and owns its batch; `dreamtui abandon "
                             f"{dream_id}` closes it and returns the batch")
        if record.lease_id is None:
            raise InputError(f"{path.name} names no lease that can be read; nothing to release "
                             "(`dreamtui release --stranded` returns every claim no open dream owns)")
        with STMStore.for_workspace(workspace) as stm:
            owner = next((c.owner for c in claims(stm, read_records(workspace.dreams_dir))
                          if c.holding.lease_id == record.lease_id and c.state == "owned"), None)
            if owner is not None:
                raise InputError(f"the lease of {dream_id} is owned by the open dream {owner.dream_id}")
            return _return(stm, record.lease_id)


def settle(workspace: Workspace) -> str | None:
    """At the start of a dream, under the workspace lock (so no other dream runs): close the open
    dreams that never completed and return the claims no record names or only a closed one does.

    Returns what was done, for the log, or None when there was nothing to do.
    """
    abandoned: list[str] = []
    returned = 0
    with WorkspaceLock(workspace, "dream").acquire():
        for record in read_records(workspace.dreams_dir):
            if not record.owns or record.changeset is None or record.changeset.complete:
                continue
            with changeset_lock(workspace, record.dream_id):
                returned += close_and_return(workspace, record.changeset)
            abandoned.append(record.dream_id)
        with STMStore.for_workspace(workspace) as stm:
            for claim in claims(stm, read_records(workspace.dreams_dir)):
                if claim.state in ("unnamed", "closed"):
                    returned += _return(stm, claim.holding.lease_id)
    if not abandoned and not returned:
        return None
    closed = (f"closed {len(abandoned)} dream(s) that never completed ({', '.join(abandoned)}); "
              if abandoned else "")
    return f"{closed}{returned} claimed memories no open dream owned are back in the queue"
