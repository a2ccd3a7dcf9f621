"""The core (stores, engines, commit, headless) must never import Textual (docs/architecture.md §2.3)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import dreamtui

SRC = Path(dreamtui.__file__).parent


def core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages([str(SRC)], prefix="dreamtui."):
        if info.name.startswith("dreamtui.tui") or info.name == "dreamtui.__main__":
            continue
        names.append(info.name)
    return names


def test_core_modules_exist() -> None:
    names = core_modules()
    for required in ("dreamtui.store.stm", "dreamtui.store.ltm", "dreamtui.review.commit", "dreamtui.headless",
                     "dreamtui.dream.engines.heuristic", "dreamtui.cli"):
        assert required in names


@pytest.mark.slow  # a fresh interpreter imports the whole core
def test_importing_every_core_module_leaves_textual_unloaded() -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {core_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(len(loaded))\n"
        "sys.exit(1 if loaded else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "0"
