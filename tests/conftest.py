"""Fixtures shared by test modules of the core."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The smallest workspace: an empty dreamtui.yaml (defaults apply) and the LTM/context folders."""
    root = tmp_path / "ws"
    (root / "workspace" / "memory").mkdir(parents=True)
    (root / "workspace" / "context").mkdir(parents=True)
    (root / "dreamtui.yaml").write_text("")
    return root
