"""The `dreamtui` command line. Importing this package registers every command on `main`."""

from dreamtui.cli.main import main

# Importing a command module registers its commands on `main`.
from dreamtui.cli import (  # noqa: F401, E402
    dream_cmds,
    import_cmds,
    intake_cmds,
    mcp_cmds,
    workspace_cmds,
)

__all__ = ["main"]
