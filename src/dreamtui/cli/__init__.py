"""The `dreamtui` command line. Importing this package registers every command on `main`."""

from dreamtui.cli.main import main
from dreamtui.cli import workspace_cmds  # noqa: F401  (registers commands)

__all__ = ["main"]
