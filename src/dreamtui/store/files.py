"""File writes that never leave a half-written file behind, and never widen who may read one.

Every file dreamtui creates is private (0600): entries, the bundle, changesets, the journal, logs
and the queue can all hold what agents learnt. A file that already exists keeps its mode across
a rewrite, so a person who made AGENTS.md world-readable keeps it that way.

Temp files are named `.<name>.<8 hex>.tmp`, beside the file they replace (`temp_path`). A kill
can strand one; `remove_stray_temps` removes exactly that pattern, and the workspace's
.gitignore (scaffold.GITIGNORE) keeps it out of git.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import stat
import time
from pathlib import Path

PRIVATE = 0o600
_TEMP_RE = re.compile(r"\..+\.[0-9a-f]{8}\.tmp")


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in `path` durable (a crash could otherwise forget it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temp_path(path: Path) -> Path:
    """A fresh temp name beside `path`: `.<name>.<8 hex>.tmp`."""
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")


def is_temp_name(name: str) -> bool:
    return _TEMP_RE.fullmatch(name) is not None


def _mode_for(path: Path) -> int:
    """The mode a new version of `path` gets: the existing file's, or private for a new file."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return PRIVATE


def write_temp(path: Path, data: bytes, *, sync: bool) -> Path:
    """`data` in a new temp file beside `path`, with the mode `path` keeps; the temp's path.

    `sync`: fsync the data too (a caller that syncs a whole set of files at once says False).
    """
    mode = _mode_for(path)
    temp = temp_path(path)
    # O_EXCL: never write through a name someone placed there; 0600 until the mode is set, so the
    # data is never readable by more people than the final file allows.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode != PRIVATE:
                os.fchmod(handle.fileno(), mode)  # fchmod is not narrowed by the umask
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temp file beside `path`, fsync, then rename over it: all or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = write_temp(path, data, sync=True)
    try:
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def create_private(path: Path) -> None:
    """Create `path` empty and private unless it exists (a file another program then opens)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE))
    except FileExistsError:
        pass


def file_sha256(path: Path) -> str | None:
    """SHA-256 of the file's bytes, None when there is no such file."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def remove_stray_temps(root: Path, *, min_age_s: float = 0.0) -> list[Path]:
    """Remove the temp files (`temp_path`'s pattern) a killed write left anywhere under `root`.

    Only for a folder no other process is writing into right now, or with `min_age_s` longer
    than any write there takes. Hidden folders (.git) and symlinked ones are not entered.
    """
    removed: list[Path] = []
    oldest = time.time() - min_age_s
    folders = [root]
    while folders:
        try:
            with os.scandir(folders.pop()) as listing:
                items = list(listing)
        except OSError:
            continue  # a folder that cannot be listed holds nothing we could remove either
        for item in items:
            if item.is_dir(follow_symlinks=False):
                if not item.name.startswith("."):
                    folders.append(Path(item.path))
            elif is_temp_name(item.name) and item.is_file(follow_symlinks=False) \
                    and (not min_age_s or _modified_before(item, oldest)):
                Path(item.path).unlink(missing_ok=True)
                removed.append(Path(item.path))
    return removed


def _modified_before(item: os.DirEntry[str], moment: float) -> bool:
    try:
        return item.stat(follow_symlinks=False).st_mtime < moment
    except FileNotFoundError:
        return False  # renamed into place meanwhile: it was a write in progress
