"""Creating workspaces: `dreamtui init`, and the demo's copy of the bundled sample."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from dreamtui.deliver.connect import relative_if_sensible, with_project_root
from dreamtui.errors import InputError, WorkspaceError
from dreamtui.intake.validate import from_json
from dreamtui.review.bundle import read_bundle, render_bundle
from dreamtui.store.files import atomic_write_text
from dreamtui.store.ltm import LTMStore
from dreamtui.store.stm import STMStore
from dreamtui.workspace.config import CONFIG_NAME, DREAMER_CONFIG_NAME
from dreamtui.workspace.layout import STATE_DIR, Workspace, open_workspace

# store/files.temp_path's names: git must never pick one up, even by a person's `git add -A`.
TEMP_IGNORE = ".*." + "[0-9a-f]" * 8 + ".tmp"
GITIGNORE = f"""# dreamtui: the queue database and local state stay out of git
*.db
*.db-wal
*.db-shm
{STATE_DIR}/
# temp files of a write a kill interrupted; the next commit removes them
{TEMP_IGNORE}
"""


def init_workspace(directory: Path, *, git: bool = True, project: Path | None = None) -> Workspace:
    """Write the layout of docs/architecture.md §3.1; refuses to touch an existing workspace.

    `project`: the code project the workspace serves, kept as project.root — relative to the
    workspace when the two sit side by side (`~/notes/x`, `~/code/x`), so the folder pair works
    for a teammate with the same layout.
    """
    directory = directory.expanduser().resolve()
    if project is not None:
        project = project.expanduser().resolve()
        if not project.is_dir():
            raise InputError(f"--project {project}: not a folder; name the code project's folder")
    for name in (CONFIG_NAME, DREAMER_CONFIG_NAME):
        if (directory / name).exists():
            raise WorkspaceError(f"{directory} already holds {name}; refusing to overwrite a workspace")
    if directory.exists() and not directory.is_dir():
        raise WorkspaceError(f"{directory} exists and is not a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        template = resources.files("dreamtui.workspace").joinpath("templates", CONFIG_NAME).read_text("utf-8")
        if project is not None:
            template = with_project_root(template, CONFIG_NAME, relative_if_sensible(project, directory))
        atomic_write_text(directory / CONFIG_NAME, template)
        gitignore = directory / ".gitignore"
        if not gitignore.exists():
            atomic_write_text(gitignore, GITIGNORE)
        workspace = open_workspace(directory)
        regenerate_generated_files(workspace)
        STMStore.for_workspace(workspace).close()
    except OSError as exc:
        raise WorkspaceError(f"cannot create a workspace in {directory}: {exc.strerror}") from None
    if git:
        git_init(workspace)
    return workspace


def regenerate_generated_files(workspace: Workspace) -> None:
    """INDEX.md and the bundle from whatever LTM holds (an empty store gives the empty forms)."""
    store = LTMStore(workspace.memory_root)
    store.ensure_layout()
    snapshot = store.scan()
    store.write_index(snapshot)
    workspace.context_root.mkdir(parents=True, exist_ok=True)
    bundle = render_bundle(snapshot.live(), byte_budget=workspace.config.context.byte_budget,
                           include=workspace.config.context.include,
                           previous=read_bundle(workspace.agents_md))
    atomic_write_text(workspace.agents_md, bundle.text)


def git_init(workspace: Workspace) -> None:
    import git

    repo = git.Repo.init(workspace.root)
    repo.git.add(all=True)
    author = git.Actor(workspace.config.git.author_name, workspace.config.git.author_email)
    repo.index.commit("dreamtui: new workspace", author=author, committer=author)


@contextmanager
def sample_workspace_source() -> Iterator[Path]:
    """The sample workspace shipped in the package (a real folder even from a zipped install)."""
    with resources.as_file(resources.files("dreamtui.sample_workspace")) as path:
        yield Path(path)


def seed_stm(workspace: Workspace, seed: Path) -> int:
    """Fill the queue from a JSONL seed; a bad line is an error naming the file and line."""
    memories = []
    with seed.open("r", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                memories.append(from_json(json.loads(line), workspace.config))
            except (json.JSONDecodeError, InputError) as exc:
                raise InputError(f"{seed}:{number}: {exc}") from None
    with STMStore.for_workspace(workspace) as store:
        return store.submit_many(memories).inserted


# -- the demo's temporary copies ----------------------------------------------------------------

DEMO_PREFIX = "dreamtui-demo-"
# Written into every temporary copy (inside the git-ignored state folder): the sweep removes only
# folders dreamtui made, never another program's or a person's `--into` folder.
DEMO_MARKER = f"{STATE_DIR}/demo-copy"
DEMO_MAX_IDLE_S = 24 * 3600


def new_demo_folder() -> Path:
    """A new, marked temporary folder for a demo copy."""
    folder = Path(tempfile.mkdtemp(prefix=DEMO_PREFIX))
    marker = folder / DEMO_MARKER
    marker.parent.mkdir()
    marker.write_text("a temporary copy made by `dreamtui demo`; removed once unused for a day\n",
                      encoding="utf-8")
    return folder


def _last_used(folder: Path) -> float:
    """The newest change among the folder, its files and its state folder: the queue database,
    the lock, logs and dream records change whenever any dreamtui command works on it."""
    times = [folder.stat().st_mtime]
    for parent in (folder, folder / STATE_DIR):
        with os.scandir(parent) as items:
            times += [item.stat(follow_symlinks=False).st_mtime for item in items]
    return max(times)


def remove_old_demos(*, now: float | None = None, parent: Path | None = None) -> list[Path]:
    """Remove this user's temporary demo copies unused for a day; returns those removed. One that
    cannot be read or removed is left as it is: tidying must never fail a demo."""
    moment = time.time() if now is None else now
    removed = []
    for folder in sorted((parent or Path(tempfile.gettempdir())).glob(f"{DEMO_PREFIX}*")):
        try:
            if folder.is_symlink() or not (folder / DEMO_MARKER).is_file() \
                    or folder.stat().st_uid != os.getuid() or moment - _last_used(folder) < DEMO_MAX_IDLE_S:
                continue
            shutil.rmtree(folder)
        except OSError:
            continue
        removed.append(folder)
    return removed
