"""The wheel must carry every subpackage, the themes and the sample workspace."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).parents[2]


def test_every_source_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(REPO / "src").parts)
        for init in (REPO / "src").rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_installed_package_ships_themes_sample_and_template() -> None:
    from importlib import resources

    themes = [p.name for p in resources.files("dreamtui.themes").iterdir() if p.name.endswith(".yaml")]
    assert {"dreamtui-dark.yaml", "dreamtui-light.yaml", "dreamtui-contrast.yaml"} <= set(themes)
    sample = resources.files("dreamtui.sample_workspace")
    assert sample.joinpath("dreamtui.yaml").is_file()
    assert sample.joinpath("stm_seed.jsonl").is_file()
    assert resources.files("dreamtui.workspace").joinpath("templates", "dreamtui.yaml").is_file()
