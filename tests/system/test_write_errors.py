"""A disk that fills up during a commit: nothing half-written, the failure named, no memory lost.

Tests run as root in CI, where a read-only folder does not stop writes, so the full disk is
simulated in-process: from the Nth call on, `files.atomic_write_bytes` (the journal's manifest
and marker, the changeset record) or `os.replace` (every rename into place, the journal's
own included) raises OSError(ENOSPC), as a disk that stays full would. For every N up to the
number of such calls a whole commit makes, the commit must fail with a message naming the file
and the error, and leave the workspace either exactly as before (then committing again, once
there is space, gives the normal result) or journaled so that `recover` rolls it fully forward.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git
import pytest

from dreamtui.errors import DreamtuiError
from dreamtui.review.commit import commit
from dreamtui.store import files
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.journal import pending_journals, recover
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace, open_workspace
from tests.factories import DREAM_ID, NOW, basic

pytestmark = pytest.mark.slow  # a dozen full commits, one per failing write

TARGETS: dict[str, tuple[Any, str]] = {
    "files.atomic_write_bytes": (files, "atomic_write_bytes"),
    "os.replace": (os, "replace"),
}
# Runtime state that changes whatever a commit does: the lock files, the rotating log, the state
# folder's own .gitignore (written when the folder is first used), git's own files (checked
# through git instead) and the SQLite file (checked through its rows instead).
VOLATILE = (".git/", ".dreamtui/lock", ".dreamtui/locks/", ".dreamtui/logs/", ".dreamtui/.gitignore")


def all_files(root: Path) -> dict[str, str]:
    hashes = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(VOLATILE) and not path.name.startswith("stm.db"):
            hashes[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def memory_rows(workspace: Workspace, batch: list[str]) -> dict[str, tuple[str, str | None]]:
    with STMStore.for_workspace(workspace) as store:
        return {m.id: (m.state, m.consumed_by_lease) for m in store.get_many(batch)}


@contextmanager
def counting(monkeypatch: pytest.MonkeyPatch, name: str, fail_from: int | None) -> Iterator[list[int]]:
    """Count calls of the target; from call `fail_from` on, each raises ENOSPC."""
    owner, attribute = TARGETS[name]
    original: Callable[..., Any] = getattr(owner, attribute)
    calls = [0]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if fail_from is not None and calls[0] >= fail_from:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return original(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(owner, attribute, wrapper)
        yield calls


@dataclass
class Prepared:
    source: Path
    batch: list[str]
    lease: str
    before: dict[str, str]
    after: dict[str, str]
    after_rows: dict[str, tuple[str, str | None]]
    calls: dict[str, int]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """A decided dream (create, reinforce, archive, discard, bundle) and an uninterrupted commit."""
    base = tmp_path_factory.mktemp("write-errors")
    s, _ = basic(base)
    s.decide_all("accept")
    assert s.lease_id is not None
    before = all_files(s.ws.root)
    calls = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in TARGETS:
            reference = base / f"reference-{name}"
            shutil.copytree(s.ws.root, reference)
            with counting(monkeypatch, name, None) as count:
                commit(open_workspace(reference), DREAM_ID, now=NOW)
            calls[name] = count[0]
    workspace = open_workspace(reference)
    return Prepared(s.ws.root, list(s.batch), s.lease_id, before, all_files(reference),
                    memory_rows(workspace, s.batch), calls)


def _git_clean(root: Path) -> bool:
    return not git.Repo(root).is_dirty(untracked_files=True)


def test_a_full_disk_at_any_write_leaves_all_or_nothing(
        prepared: Prepared, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert all(prepared.calls.values()), prepared.calls
    outcomes: dict[str, int] = {"nothing written": 0, "rolled forward": 0}
    lines = []
    for name, total in prepared.calls.items():
        for n in range(1, total + 1):
            root = tmp_path / f"{name}-{n}"
            shutil.copytree(prepared.source, root)
            workspace = open_workspace(root)
            with counting(monkeypatch, name, n) as count:
                with pytest.raises(DreamtuiError) as failure:
                    commit(workspace, DREAM_ID, now=NOW)
            where = f"{name} failing from call {n} of {total}"
            assert count[0] >= n, where
            message = str(failure.value)
            # says what failed: the file (inside this workspace) and the error
            assert "No space left on device" in message, (where, message)
            assert str(root) in message, (where, message)

            if pending_journals(workspace):
                # the journal was marked: the next start finishes the commit
                note = recover(workspace)
                assert note is not None and "finished the interrupted commit" in note, where
                outcome = "rolled forward"
            else:
                assert all_files(root) == prepared.before, where
                assert ChangesetStore(workspace.dreams_dir).load(DREAM_ID).status == "open", where
                assert set(memory_rows(workspace, prepared.batch).values()) == \
                    {("claimed", prepared.lease)}, where  # still held by the open dream
                commit(workspace, DREAM_ID, now=NOW)  # space again: the person commits again
                outcome = "nothing written"
            assert pending_journals(workspace) == [], where
            assert all_files(root) == prepared.after, where
            assert memory_rows(workspace, prepared.batch) == prepared.after_rows, where
            assert _git_clean(root), where
            outcomes[outcome] += 1
            lines.append(f"  {where}: {outcome}; said: {message.splitlines()[0]}")
    with capsys.disabled():
        print(f"\nwrite errors: {sum(outcomes.values())} commits failed at a write "
              f"({', '.join(f'{v} {k}' for k, v in outcomes.items())})")
        print("\n".join(line.replace(str(tmp_path), "<tmp>") for line in lines))
    assert outcomes["nothing written"] and outcomes["rolled forward"]
