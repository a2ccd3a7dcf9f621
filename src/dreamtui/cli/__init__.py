"""The `dreamtui` command line. `main` imports each command module when one of its commands is
looked up, so a command pays only for its own dependencies."""

from dreamtui.cli.main import main

__all__ = ["main"]
