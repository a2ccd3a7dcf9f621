"""Creating workspaces: `dreamtui init`, and the demo's copy of the bundled sample."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from dreamtui.errors import InputError, WorkspaceError
from dreamtui.intake.validate import from_json
from dreamtui.review.bundle import render_bundle
from dreamtui.store.files import atomic_write_text
from dreamtui.store.ltm import LTMStore
from dreamtui.store.stm import STMStore
from dreamtui.workspace.config import CONFIG_NAME, DREAMER_CONFIG_NAME
from dreamtui.workspace.layout import STATE_DIR, Workspace, open_workspace

GITIGNORE = f"""# dreamtui: the queue database and local state stay out of git
*.db
*.db-wal
*.db-shm
{STATE_DIR}/
"""


def init_workspace(directory: Path, *, git: bool = True) -> Workspace:
    """Write the layout of docs/architecture.md §3.1; refuses to touch an existing workspace."""
    directory = directory.expanduser().resolve()
    for name in (CONFIG_NAME, DREAMER_CONFIG_NAME):
        if (directory / name).exists():
            raise WorkspaceError(f"{directory} already holds {name}; refusing to overwrite a workspace")
    if directory.exists() and not directory.is_dir():
        raise WorkspaceError(f"{directory} exists and is not a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        template = resources.files("dreamtui.workspace").joinpath("templates", CONFIG_NAME).read_text("utf-8")
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
    bundle = render_bundle(snapshot.live(), byte_budget=workspace.config.context.byte_budget)
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
