"""All-or-nothing multi-file commits: a write-ahead journal under `.dreamtui/journal/<id>/`.

A commit first writes everything it will do — every file's full new text, the entries moved to archive/,
the STM memories to consume and release, the rejections to remember and the git commit to make —
into `manifest.json` (fsynced), then marks the journal committed by renaming a marker into place.
Only then does it touch the workspace. `recover` runs at every start: a marked journal is rolled
forward (every step is idempotent, so repeating a half-done apply is safe); an unmarked one is
discarded, because nothing was applied before the mark. A crash at any moment therefore leaves
the workspace as it was before the commit or as it is after it, never in between.

A person may save a file while a commit runs. The plan read each target at the start, so the
manifest records what it read (`bases`: each target's SHA-256, or null for "absent"), and no
file is replaced or removed unless it still holds that (or already holds its new text):
- Every new text is staged in a temp file first, then every target is checked. If one changed,
  the commit is called off — the marker is removed, nothing was replaced, no memory consumed —
  and `TargetsChanged` tells the caller to plan again around the person's version (a dream's
  commit then holds that proposal back like any conflict, §4.4). Calling off rather than
  skipping keeps the invariants whole: a skipped file would leave its LOG.md line, its
  memories consumed and INDEX.md/AGENTS.md describing a text that was never written.
- After that check the renames follow at once, each target checked again just before its own
  rename. A save landing in those microseconds, or after a crash and before the roll-forward,
  can no longer call the commit off (other files are already replaced): that file is left as
  the person saved it, kept out of the git commit, and named in `JournalOutcome.kept`, which
  the commit reports ("changed while the commit ran; kept your version, not written"). Only
  then may its LOG.md line and memories describe a change the file does not hold — the
  warning says which file, so nothing is lost silently.

Test hook: when the environment variable DREAMTUI_CRASH_AT names a crash point (see CRASH_POINTS),
the process SIGKILLs itself there. tests/system/test_crash.py uses it to prove the claim above.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dreamtui.errors import CommitRefused, LockedError, WorkspaceError
from dreamtui.model import iso_z
from dreamtui.safety.paths import UnsafePathError, resolve_inside
from dreamtui.store.files import (
    atomic_write_text,
    file_sha256,
    fsync_dir,
    is_temp_name,
    remove_stray_temps,
    write_temp,
)
from dreamtui.store.git import GitResult, commit_paths
from dreamtui.store.lock import WorkspaceLock
from dreamtui.store.rejections import remember_rejections
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace

CRASH_ENV = "DREAMTUI_CRASH_AT"
CRASH_POINTS = ("before-write", "journal-written", "marked", "mid-apply", "after-files",
                "after-git")
MANIFEST = "manifest.json"
MARKER = "COMMITTED"
STALE_TEMP_S = 600.0
KEPT_NOTE = "changed while the commit ran; kept your version, not written"
FORMAT_VERSION = 1


def crash_point(name: str) -> None:
    """Test hook: die here, as abruptly as a power cut allows a process to, when asked to."""
    if os.environ.get(CRASH_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


@dataclass
class STMSteps:
    """What the commit does to the queue once the files are in place."""

    lease_id: str | None
    consume: list[str] = field(default_factory=list)
    release: list[str] = field(default_factory=list)
    end_lease: bool = True  # False: an open changeset keeps its lease (auto commits)
    at: str = ""  # consumed_at, as decided when the commit was planned
    unconsume: list[str] = field(default_factory=list)  # settled by a decision now undone


@dataclass
class JournalPlan:
    """Everything one commit does. Paths are absolute; the manifest stores them workspace-relative."""

    label: str  # "dream d-…" or "human": for messages about a recovered journal
    writes: dict[Path, str] = field(default_factory=dict)
    # Files removed after every write is in place: the live copies of entries moved to archive/
    # (their archived copies are among the writes), so nothing is ever removed without a copy.
    removals: list[Path] = field(default_factory=list)
    stm: STMSteps | None = None
    rejections: list[tuple[str, str, str]] = field(default_factory=list)
    git_message: str | None = None
    # What each write or removal must find before it happens: the SHA-256 of the file as the
    # plan read it, or None for "absent". A path not named here is written whatever it holds
    # (dreamtui's own state, such as the changeset record, which its own lock protects).
    bases: dict[Path, str | None] = field(default_factory=dict)

    def touched(self) -> list[Path]:
        return [*self.writes, *self.removals]


@dataclass
class JournalOutcome:
    journal_id: str
    git: GitResult | None
    consumed: int = 0
    released: int = 0
    # Targets a person changed after the last check (workspace-relative): left as they saved them.
    kept: list[str] = field(default_factory=list)


class TargetsChanged(CommitRefused):
    """Files of the commit changed after it was planned; called off before anything was written."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        super().__init__(f"{', '.join(paths)} changed while the commit ran; nothing written, "
                         "your version kept — commit again")


# -- paths ------------------------------------------------------------------------------------


def _store_path(workspace: Workspace, path: Path) -> str:
    # Relative when possible: a copied workspace must roll forward into itself, not its origin.
    try:
        return path.relative_to(workspace.root).as_posix()
    except ValueError:
        return str(path)


def _roots(workspace: Workspace) -> tuple[Path, ...]:
    project = workspace.project_root  # delivery writes the project's AGENTS.md, skills, DECISIONS.md
    return (workspace.root, workspace.memory_root, workspace.context_root,
            *((project,) if project is not None else ()))


def _load_path(workspace: Workspace, stored: str) -> Path:
    """A manifest path back to a file, refusing anything outside the workspace's own folders."""
    try:
        if not Path(stored).is_absolute():
            return resolve_inside(workspace.root, stored)
        resolved = Path(stored).resolve()
    except UnsafePathError as exc:
        raise WorkspaceError(f"journal manifest names an unsafe path: {exc}") from None
    if not any(resolved.is_relative_to(root.resolve()) for root in _roots(workspace)):
        raise WorkspaceError(f"journal manifest names {stored}, outside the workspace's folders")
    return resolved


# -- writing a journal ------------------------------------------------------------------------


def _manifest(workspace: Workspace, journal_id: str, plan: JournalPlan) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "id": journal_id,
        "label": plan.label,
        "created_at": iso_z(workspace.clock()),
        "writes": [{"path": _store_path(workspace, p), "text": t} for p, t in plan.writes.items()],
        "removals": [_store_path(workspace, p) for p in plan.removals],
        "bases": {_store_path(workspace, p): base for p, base in plan.bases.items()},
        "stm": None if plan.stm is None else {
            "lease_id": plan.stm.lease_id, "consume": plan.stm.consume,
            "release": plan.stm.release, "end_lease": plan.stm.end_lease, "at": plan.stm.at,
            "unconsume": plan.stm.unconsume},
        "rejections": [list(item) for item in plan.rejections],
        "git": None if plan.git_message is None else {
            "message": plan.git_message,
            # local state (the changeset record) is git-ignored and never part of the history
            "paths": [_store_path(workspace, p) for p in plan.touched()
                      if not p.is_relative_to(workspace.state_dir)]},
    }


class JournalWriteError(WorkspaceError):
    """A file of a commit could not be written (disk full, read-only folder, …)."""


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    # A failed write() says only "No space left on device"; a person needs to know where.
    try:
        yield
    except OSError as exc:
        raise JournalWriteError(f"cannot write {path}: {exc.strerror or exc}") from None


def run_journal(workspace: Workspace, plan: JournalPlan) -> JournalOutcome:
    """Journal `plan`, mark it committed, apply it, then remove the journal. Caller holds the lock.

    TargetsChanged when a target changed since the plan read it: nothing was written.
    """
    crash_point("before-write")
    _remove_stray_temps(workspace)  # a commit killed earlier may have left some
    journal_id = f"j-{workspace.clock():%Y%m%d-%H%M%S}-{workspace.ids.token_hex(3)}"
    folder = workspace.journal_dir / journal_id
    manifest = _manifest(workspace, journal_id, plan)
    try:
        with _writing(folder):
            folder.mkdir(parents=True)
            fsync_dir(workspace.journal_dir)
        with _writing(folder / MANIFEST):
            atomic_write_text(folder / MANIFEST, json.dumps(manifest, ensure_ascii=False))
        crash_point("journal-written")
        with _writing(folder / MARKER):
            _mark(folder)
    except JournalWriteError as exc:
        shutil.rmtree(folder, ignore_errors=True)  # nothing was applied: nothing to finish later
        raise JournalWriteError(f"commit not written, nothing changed: {exc}") from None
    crash_point("marked")
    try:
        return _finish(workspace, folder, manifest, fresh=True)
    except TargetsChanged:
        _remove(folder)  # nothing was replaced: the marker goes, and with it the journal
        raise
    except (JournalWriteError, OSError) as exc:
        raise JournalWriteError(f"commit interrupted: {exc}; its journal {folder} finishes it at the "
                                "next start, once the cause is fixed") from None


def _mark(folder: Path) -> None:
    pending = folder / f"{MARKER}.tmp"
    atomic_write_text(pending, "committed\n")
    os.replace(pending, folder / MARKER)
    fsync_dir(folder)


# -- applying ---------------------------------------------------------------------------------


class _Targets:
    """Manifest paths → files. Each folder is checked and created once, not once per file."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.folders: dict[str, Path] = {}

    def __call__(self, stored: str) -> Path:
        folder, _, name = stored.rpartition("/")
        if name in ("", ".", "..") or "\\" in name or not name.isprintable():
            raise WorkspaceError(f"journal manifest names an unsafe path: {stored!r}")
        base = self.folders.get(folder)
        if base is None:
            base = _load_path(self.workspace, folder) if folder else self.workspace.root.resolve()
            base.mkdir(parents=True, exist_ok=True)
            self.folders[folder] = base
        return base / name


def _as_planned(path: Path, base: str | None, new: bytes | None) -> bool:
    """True when `path` holds what the plan read (`base`; None: absent) or already its new state
    (`new`; None: removed), as a roll-forward finds the targets a crash left done."""
    current = file_sha256(path)
    if current == base:
        return True
    if new is None:
        return current is None
    return current is not None and path.read_bytes() == new


def _apply_files(workspace: Workspace, manifest: dict[str, Any], fresh: bool) -> list[str]:
    """Stage, check, rename, remove; the targets kept as a person saved them (see the module doc).

    Temp files are not fsynced one by one: the journal holds a durable copy of every text, so
    until it is removed a lost write is redone by the roll-forward; one sync for the whole set
    is what makes a 1,000-file commit take a second instead of several. `fresh`: the first run,
    which calls the commit off (TargetsChanged) when a target changed before any rename.
    """
    target = _Targets(workspace)
    bases: dict[str, str | None] = manifest.get("bases") or {}  # absent in older journals
    writes = [(item["path"], target(item["path"]), item["text"].encode("utf-8"))
              for item in manifest["writes"]]
    steps: list[tuple[str, Path, bytes | None]] = [
        *writes, *((stored, target(stored), None) for stored in manifest["removals"])]

    def as_planned(stored: str, path: Path, new: bytes | None) -> bool:
        with _writing(path):
            return stored not in bases or _as_planned(path, bases[stored], new)

    staged: dict[str, Path] = {}
    try:
        for stored, path, data in writes:
            with _writing(path):
                staged[stored] = write_temp(path, data, sync=False)
        changed = [stored for stored, path, new in steps if not as_planned(stored, path, new)]
        if changed and fresh:
            raise TargetsChanged(changed)
        kept = []
        for number, (stored, path, new) in enumerate(steps):
            if stored in changed or not as_planned(stored, path, new):  # checked again, last moment
                kept.append(stored)
            elif new is None:
                with _writing(path):
                    path.unlink(missing_ok=True)
            else:
                with _writing(path):
                    os.replace(staged[stored], path)
                del staged[stored]  # only once renamed: a failed rename's temp is removed below
            if number == 0:
                crash_point("mid-apply")
    finally:
        for temp in staged.values():
            temp.unlink(missing_ok=True)
    os.sync()  # every write above is durable before the journal that could redo it goes away
    return kept


def _apply_stm(workspace: Workspace, steps: dict[str, Any] | None) -> tuple[int, int]:
    if not steps or not (steps.get("lease_id") or steps.get("consume") or steps.get("unconsume")):
        return 0, 0
    lease = steps["lease_id"]
    at = datetime.fromisoformat(steps["at"]) if steps.get("at") else None
    with STMStore.for_workspace(workspace) as store:
        if lease is None:  # a person's decision on memories no dream holds
            consumed = store.consume_pending(steps["consume"], now=at) if steps["consume"] else 0
            # .get: journals written before this step existed have no "unconsume"
            returned = store.unconsume_settled(steps["unconsume"]) if steps.get("unconsume") else 0
            return consumed, returned
        consumed = store.consume(lease, steps["consume"], now=at) if steps["consume"] else 0
        released = store.release(lease, steps["release"]) if steps["release"] else 0
        if steps.get("end_lease", True):
            store.end_lease(lease)
    return consumed, released


def _apply_rejections(workspace: Workspace, rejections: list[list[str]], decided_at: str) -> None:
    if not rejections:
        return
    # Stamped with the journal's own time, so a roll-forward at the next start records when the
    # person rejected, not when the recovery ran.
    when = datetime.fromisoformat(decided_at.replace("Z", "+00:00"))
    remember_rejections(workspace, [(fp, pid, did) for fp, pid, did in rejections], when)


def _finish(workspace: Workspace, folder: Path, manifest: dict[str, Any], *,
            fresh: bool) -> JournalOutcome:
    kept = _apply_files(workspace, manifest, fresh)
    crash_point("after-files")
    consumed, released = _apply_stm(workspace, manifest.get("stm"))
    _apply_rejections(workspace, manifest.get("rejections") or [], manifest["created_at"])
    git = None
    if manifest.get("git"):
        target = _Targets(workspace)
        # a kept file holds the person's text, which is not this commit's to record
        paths = [target(p) for p in manifest["git"]["paths"] if p not in kept]
        git = commit_paths(workspace, paths, manifest["git"]["message"])
    crash_point("after-git")
    _remove(folder)
    return JournalOutcome(journal_id=manifest["id"], git=git, consumed=consumed, released=released,
                          kept=kept)


def _remove(folder: Path) -> None:
    # The marker goes first: a crash halfway through the removal then leaves an unmarked journal,
    # which recovery discards instead of applying a second time.
    (folder / MARKER).unlink(missing_ok=True)
    fsync_dir(folder)
    shutil.rmtree(folder, ignore_errors=True)


# -- recovery ---------------------------------------------------------------------------------


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise WorkspaceError(f"{path}: a committed journal cannot be read ({exc}); the commit it "
                             "records is half applied — restore from git or apply it by hand") from None
    if not isinstance(manifest, dict) or manifest.get("version") != FORMAT_VERSION:
        raise WorkspaceError(f"{path}: not a dreamtui journal manifest of version {FORMAT_VERSION}")
    return manifest


def pending_journals(workspace: Workspace) -> list[Path]:
    if not workspace.journal_dir.is_dir():
        return []
    return sorted(p for p in workspace.journal_dir.iterdir() if p.is_dir())


def recover(workspace: Workspace) -> str | None:
    """Finish or discard what a crashed commit left; a one-line note of what was done, or None.

    Skipped (None) while another process holds the workspace lock: that process may be in the
    middle of the very commit whose journal we see.
    """
    if not pending_journals(workspace):
        return None
    try:
        with WorkspaceLock(workspace, "recover").acquire():
            notes = [_recover_one(workspace, folder) for folder in pending_journals(workspace)]
            _remove_stray_temps(workspace)
    except LockedError:
        return None
    return "; ".join(notes) or None


def _recover_one(workspace: Workspace, folder: Path) -> str:
    if not (folder / MARKER).exists():
        shutil.rmtree(folder, ignore_errors=True)
        return f"discarded the unfinished commit journal {folder.name} (nothing had been applied)"
    manifest = _read_manifest(folder)
    _remove_temps_beside_project_files(workspace, manifest)
    outcome = _finish(workspace, folder, manifest, fresh=False)
    git = f"; {outcome.git.note}" if outcome.git is not None else ""
    kept = "".join(f"; {path} {KEPT_NOTE}" for path in outcome.kept)
    return f"finished the interrupted commit {folder.name} ({manifest.get('label', '')}){git}{kept}"


def _remove_temps_beside_project_files(workspace: Workspace, manifest: dict[str, Any]) -> None:
    """The temps a killed apply left beside the project files it writes. Only those names: the
    code project is never walked (it may hold node_modules), nor anything else in it touched."""
    project = workspace.project_root
    if project is None:
        return
    for item in manifest.get("writes") or []:
        path = Path(item["path"])
        if path.is_absolute() and path.is_relative_to(project.resolve()):
            for temp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
                if is_temp_name(temp.name) and not temp.is_symlink():
                    temp.unlink(missing_ok=True)


def _remove_stray_temps(workspace: Workspace) -> None:
    """The temp files of writes a kill interrupted, wherever the journal writes.

    Under the workspace lock no other dreamtui process writes into the memory and context
    roots. Decisions save changeset records without it, so there only temps older than any
    save could take are strays.
    """
    for root in (workspace.memory_root, workspace.context_root):
        remove_stray_temps(root)
    remove_stray_temps(workspace.dreams_dir, min_age_s=STALE_TEMP_S)
