"""The `dreamtui` command line. Importing this package registers every command on `main`."""

from dreamtui.cli.main import main
# Importing a command module registers its commands on `main`.
from dreamtui.cli import dream_cmds, mcp_cmds, workspace_cmds  # noqa: F401

__all__ = ["main"]
