"""Fixtures shared by every test module, and the Hypothesis profiles.

The fixtures wrap the builders of tests/factories.py (a module's own conftest may replace one,
as tests/tui/conftest.py does with `workspace`).

Hypothesis runs the `dev` profile unless told otherwise: few examples, so the developer loop
stays fast. `ci` tries many more; it is chosen by CI=true (what CI services set) or by naming a
profile in HYPOTHESIS_PROFILE. Neither has a deadline: on a shared machine a slow example is
noise, not a finding.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from dreamtui.workspace.layout import Workspace
from tests.factories import minimal_workspace, new_workspace, sample_workspace

settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile("ci", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The smallest workspace: an empty dreamtui.yaml (defaults apply) and the LTM/context folders."""
    return minimal_workspace(tmp_path / "ws")


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    """A workspace as `dreamtui init --no-git` makes it."""
    return new_workspace(tmp_path / "ws")


@pytest.fixture
def sample(tmp_path: Path) -> Workspace:
    """A copy of sample_workspace/ in its own git repository, its queue empty."""
    return sample_workspace(tmp_path / "acme-shop")


@pytest.fixture
def seeded_sample(tmp_path: Path) -> Workspace:
    """A copy of sample_workspace/ in its own git repository, its queue filled from stm_seed.jsonl."""
    return sample_workspace(tmp_path / "acme-shop", seed=True)


@pytest.fixture
def fact_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts whose facts the matcher reads (dream.match._Facts.read), in order: what the
    read-once caches are tested by."""
    from dreamtui.dream import match

    read = match._Facts.read
    texts: list[str] = []

    def counting(features: match.Features) -> match._Facts:
        texts.append(features.text)
        return read(features)

    monkeypatch.setattr(match._Facts, "read", counting)
    return texts
