"""The errors dreamtui reports to people. The CLI turns each into a message and an exit code.

Every error that can reach a user derives from `DreamtuiError`, so the CLI has one place that
decides "message, not traceback".
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_FAILED = 1  # a dream failed; its batch was released
EXIT_USAGE = 2  # usage or config error
EXIT_REFUSED = 3  # commit refused by guard rails or conflicts
EXIT_LOCKED = 4  # another process holds the workspace lock; nothing was done, try again later


class DreamtuiError(Exception):
    """An error with a message fit for a person; `exit_code` is what the CLI exits with."""

    exit_code = EXIT_USAGE


class ConfigError(DreamtuiError):
    def __init__(self, path: Path | str, problems: list[str]) -> None:
        self.path = Path(path)
        self.problems = problems
        if len(problems) == 1:  # one line, as every other bad input gets
            super().__init__(f"{self.path}: {problems[0]}")
            return
        lines = "\n".join(f"  {self.path}: {problem}" for problem in problems)
        super().__init__(f"invalid config {self.path} ({len(problems)} problems):\n{lines}")


class WorkspaceError(DreamtuiError):
    """No workspace, or one that cannot be opened or created."""


class InputError(DreamtuiError):
    """A memory, feedback or argument that fails validation; names the field and the rule."""


class EntryError(DreamtuiError):
    """A malformed LTM entry file: path, line and reason."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {reason}")


class StoreError(DreamtuiError):
    """The STM database cannot be opened or used (locked, corrupted, wrong schema)."""


class LockedError(DreamtuiError):
    """The workspace lock is held by another live process.

    Its own exit code, not 0: a script that runs `dreamtui commit` must not believe a commit
    happened. Only the headless gate decides that a busy workspace is a skip (exit 0), because a
    cron dream that finds another dream running has nothing to do.
    """

    exit_code = EXIT_LOCKED


class DreamError(DreamtuiError):
    """A dream failed (engine unreachable, bad answer, cancelled); its batch is released."""

    exit_code = EXIT_FAILED


class CommitRefused(DreamtuiError):
    """Guard rails or conflicts refused a commit; nothing was written."""

    exit_code = EXIT_REFUSED
