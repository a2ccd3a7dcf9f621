"""themes/*.yaml → textual Themes, with dreamtui's diff and status colours as theme variables.

The YAML files ship inside the wheel as the package `dreamtui.themes`; a source checkout run with
PYTHONPATH=src has no such package, so the repository's top-level themes/ folder is read instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from textual.theme import Theme

from dreamtui.errors import ConfigError

DEFAULT_THEME = "dreamtui-dark"
# Every variable a widget's CSS names; a theme missing one would make the stylesheet fail to parse.
REQUIRED_VARIABLES = (
    "diff-added", "diff-added-bg", "diff-added-word-bg", "diff-removed", "diff-removed-bg",
    "diff-removed-word-bg", "diff-hunk", "diff-context", "status-pending", "status-claimed",
    "status-consumed", "decision-accept", "decision-reject", "decision-defer", "decision-pin",
    "decision-archive", "safety-mark", "pinned", "flagged", "confirmed", "muted",
)
_THEME_FIELDS = {f.name for f in dataclasses.fields(Theme)}
_REPO_THEMES = Path(__file__).resolve().parents[3] / "themes"


def theme_files() -> list[Traversable]:
    """The shipped theme files, from the installed package or else the source checkout."""
    try:
        folder: Traversable = resources.files("dreamtui.themes")
    except ModuleNotFoundError:
        folder = _REPO_THEMES
    if not folder.is_dir():
        folder = _REPO_THEMES
    return sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)


def parse_theme(data: Any, where: str) -> Theme:
    """One theme document → Theme; ConfigError names the file and the key at fault."""
    if not isinstance(data, dict):
        raise ConfigError(where, ["(top level): expected a mapping of theme keys"])
    problems = [f"{key}: unknown theme key (expected one of {', '.join(sorted(_THEME_FIELDS))})"
                for key in data if key not in _THEME_FIELDS]
    for key in ("name", "primary"):
        if not isinstance(data.get(key), str):
            problems.append(f"{key}: required, a string")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        problems.append("variables: expected a mapping of variable name to colour")
        variables = {}
    problems += [f"variables.{name}: required by dreamtui's widgets"
                 for name in REQUIRED_VARIABLES if name not in variables]
    if problems:
        raise ConfigError(where, problems)
    fields = {k: v for k, v in data.items() if k != "variables"}
    return Theme(**fields, variables={str(k): str(v) for k, v in variables.items()})


def load_themes(files: Iterable[Traversable] | None = None) -> dict[str, Theme]:
    themes: dict[str, Theme] = {}
    for file in files if files is not None else theme_files():
        try:
            data = yaml.safe_load(file.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ConfigError(str(file), [f"invalid YAML: {exc}"]) from None
        theme = parse_theme(data, str(file))
        themes[theme.name] = theme
    if DEFAULT_THEME not in themes:
        raise ConfigError(str(_REPO_THEMES), [f"the default theme {DEFAULT_THEME} is missing"])
    return themes
