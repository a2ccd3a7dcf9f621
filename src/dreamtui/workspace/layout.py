"""Finding, opening and scaffolding a workspace: its config and the paths everything else uses."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from dreamtui.clock import RANDOM_IDS, Clock, IdSource, system_clock
from dreamtui.errors import WorkspaceError
from dreamtui.workspace.config import CONFIG_NAME, DREAMER_CONFIG_NAME, Config, load_config

ENV_WORKSPACE = "DREAMTUI_WORKSPACE"
STATE_DIR = ".dreamtui"


@dataclass(frozen=True)
class Workspace:
    """An opened workspace. Paths in the config are relative to `root`."""

    root: Path
    config_path: Path
    config: Config
    # The seams for time and randomness (see dreamtui.clock): tests pass fixed ones.
    clock: Clock = field(default=system_clock, compare=False, repr=False)
    ids: IdSource = field(default=RANDOM_IDS, compare=False, repr=False)

    def _resolve(self, configured: str) -> Path:
        path = Path(os.path.expanduser(configured))
        return path if path.is_absolute() else self.root / path

    @cached_property
    def stm_path(self) -> Path:
        return self._resolve(self.config.stm.path)

    @cached_property
    def memory_root(self) -> Path:
        return self._resolve(self.config.ltm.root)

    @cached_property
    def context_root(self) -> Path:
        return self._resolve(self.config.context.root)

    @property
    def project_root(self) -> Path | None:
        """The code project this workspace serves (`project.root`), or None when none is named."""
        configured = self.config.project.root
        return None if configured is None else self._resolve(os.path.expanduser(configured))

    @property
    def agents_md(self) -> Path:
        return self.context_root / "AGENTS.md"

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def dreams_dir(self) -> Path:
        return self.state_dir / "dreams"

    @property
    def lock_path(self) -> Path:
        return self.state_dir / "lock"

    @property
    def journal_dir(self) -> Path:
        return self.state_dir / "journal"

    @property
    def log_dir(self) -> Path:
        return self.state_dir / "logs"

    @property
    def is_dreamer(self) -> bool:
        return self.config_path.name == DREAMER_CONFIG_NAME

    def ensure_state_dirs(self) -> None:
        for path in (self.state_dir, self.dreams_dir, self.log_dir):
            path.mkdir(parents=True, exist_ok=True)
        # The folder ignores itself: a Dreamer server's folder (or any repository) has no
        # `.dreamtui/` line in its .gitignore, and the lock, journals and dreams are no one's history.
        try:
            with (self.state_dir / ".gitignore").open("x", encoding="utf-8") as handle:
                handle.write("*\n")
        except FileExistsError:
            pass


def _config_in(folder: Path) -> Path | None:
    for name in (CONFIG_NAME, DREAMER_CONFIG_NAME):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def find_workspace_root(explicit: str | Path | None = None, cwd: Path | None = None,
                        environ: dict[str, str] | None = None) -> Path:
    """`--workspace`, else `$DREAMTUI_WORKSPACE`, else the nearest folder upwards with a config."""
    env = os.environ if environ is None else environ
    named = explicit or env.get(ENV_WORKSPACE)
    if named:
        root = Path(os.path.expanduser(str(named))).resolve()
        source = "--workspace" if explicit else f"${ENV_WORKSPACE}"
        if not root.is_dir():
            raise WorkspaceError(f"{source} names {root}, which is not a folder")
        if _config_in(root) is None:
            raise WorkspaceError(f"{source} names {root}, which holds no {CONFIG_NAME} or "
                                 f"{DREAMER_CONFIG_NAME} (create one with `dreamtui init {root}`)")
        return root
    start = (cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if _config_in(folder) is not None:
            return folder
    raise WorkspaceError(f"no workspace found: no {CONFIG_NAME} or {DREAMER_CONFIG_NAME} in {start} "
                         f"or any folder above it (use --workspace DIR, set ${ENV_WORKSPACE}, "
                         "or create one with `dreamtui init DIR`)")


def open_workspace(explicit: str | Path | None = None, cwd: Path | None = None,
                   environ: dict[str, str] | None = None, *, clock: Clock = system_clock,
                   ids: IdSource = RANDOM_IDS) -> Workspace:
    root = find_workspace_root(explicit, cwd, environ)
    config_path = _config_in(root)
    assert config_path is not None  # find_workspace_root checked it
    return Workspace(root=root, config_path=config_path, config=load_config(config_path, environ),
                     clock=clock, ids=ids)
