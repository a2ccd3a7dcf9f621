"""Editing an entry in $VISUAL / $EDITOR while the app is suspended."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

from dreamtui.errors import InputError


def editor_command() -> list[str]:
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(command)


def edit_text(app: App[object], text: str, name: str) -> str:
    """The text after the person's editor exits; the app gives up the terminal meanwhile."""
    handle, temp = tempfile.mkstemp(prefix=f"dreamtui-{name}-", suffix=".md")
    path = Path(temp)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        command = [*editor_command(), str(path)]
        try:
            with app.suspend():
                result = _run(command)
        except SuspendNotSupported:
            # No terminal to hand over (headless runs): the editor runs without one.
            result = _run(command)
        if result != 0:
            raise InputError(f"{command[0]} exited with status {result}; the entry was left as it was")
        with open(path, encoding="utf-8", newline="") as file:  # keep the entry's line endings
            return file.read()
    finally:
        path.unlink(missing_ok=True)


def _run(command: list[str]) -> int:
    try:
        return subprocess.run(command, check=False).returncode
    except FileNotFoundError:
        raise InputError(f"editor {command[0]!r} not found; set $EDITOR to your editor") from None
