"""themes/*.yaml → textual Themes, with dreamtui's diff and status colours as theme variables.

The YAML files ship inside the wheel as the package `dreamtui.themes`; a source checkout run with
PYTHONPATH=src has no such package, so the repository's top-level themes/ folder is read instead.
A person's own themes are `*.yaml` files in `$XDG_CONFIG_HOME/dreamtui/themes/` (else
`~/.config/dreamtui/themes/`), as Posting keeps them. A bad one is skipped with a one-line
message naming the file and the field; the shipped themes are always there.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

from dreamtui.errors import ConfigError

DEFAULT_THEME = "dreamtui-dark"
# Every variable a widget's CSS names. The shipped themes define each one; a person's theme may
# leave some out, and gets the default theme's (DreamtuiApp.get_theme_variable_defaults).
REQUIRED_VARIABLES = (
    "diff-added", "diff-added-bg", "diff-added-word-bg", "diff-removed", "diff-removed-bg",
    "diff-removed-word-bg", "diff-hunk", "diff-context", "status-pending", "status-claimed",
    "status-consumed", "decision-accept", "decision-reject", "decision-defer", "decision-pin",
    "decision-archive", "safety-mark", "pinned", "flagged", "confirmed", "muted",
)
_THEME_FIELDS = {f.name for f in dataclasses.fields(Theme)}
_COLOUR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
                  "surface", "panel", "boost")
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


def user_theme_folder() -> Path:
    """Where a person's themes live: $XDG_CONFIG_HOME/dreamtui/themes, else ~/.config/…"""
    config_home = os.environ.get("XDG_CONFIG_HOME", "")
    # The XDG spec says a relative path is invalid and is to be ignored.
    base = Path(config_home) if os.path.isabs(config_home) else Path.home() / ".config"
    return base / "dreamtui" / "themes"


def parse_theme(data: Any, where: str, required: Iterable[str] = REQUIRED_VARIABLES) -> Theme:
    """One theme document → Theme; ConfigError names the file and the key at fault."""
    if not isinstance(data, dict):
        raise ConfigError(where, ["(top level): expected a mapping of theme keys"])
    problems = [f"{key}: unknown theme key (expected one of {', '.join(sorted(_THEME_FIELDS))})"
                for key in data if key not in _THEME_FIELDS]
    for key in ("name", "primary"):
        if not isinstance(data.get(key), str):
            problems.append(f"{key}: required, a string")
    # A colour Textual cannot parse would fail only when the theme is applied, as a traceback.
    problems += [f"{key}: {data[key]!r} is not a colour" for key in _COLOUR_FIELDS
                 if data.get(key) is not None and not _is_colour(data[key])]
    if not isinstance(data.get("dark", True), bool):
        problems.append("dark: expected true or false")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        problems.append("variables: expected a mapping of variable name to colour")
        variables = {}
    problems += [f"variables.{name}: required by dreamtui's widgets"
                 for name in required if name not in variables]
    problems += [f"variables.{name}: {variables[name]!r} is not a colour"
                 for name in REQUIRED_VARIABLES if name in variables and not _is_colour(variables[name])]
    if problems:
        raise ConfigError(where, problems)
    fields = {k: v for k, v in data.items() if k != "variables"}
    return Theme(**fields, variables={str(k): str(v) for k, v in variables.items()})


def _is_colour(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        Color.parse(value)
    except ColorParseError:
        return False
    return True


def _read_theme(file: Traversable, required: Iterable[str] = REQUIRED_VARIABLES) -> Theme:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(str(file), [f"invalid YAML{at}: {getattr(exc, 'problem', None) or exc}"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(file), [f"unreadable: {exc}"]) from None
    return parse_theme(data, str(file), required)


def load_themes(files: Iterable[Traversable] | None = None) -> dict[str, Theme]:
    """The shipped themes by name; any fault in one is a ConfigError (it is dreamtui's bug)."""
    themes: dict[str, Theme] = {}
    for file in files if files is not None else theme_files():
        theme = _read_theme(file)
        themes[theme.name] = theme
    if DEFAULT_THEME not in themes:
        raise ConfigError(str(_REPO_THEMES), [f"the default theme {DEFAULT_THEME} is missing"])
    return themes


@dataclasses.dataclass(frozen=True)
class UserThemes:
    themes: dict[str, Theme]
    problems: list[str]  # one line per skipped file: the file and the field at fault


def load_user_themes(folder: Path, shipped: Iterable[str]) -> UserThemes:
    """The person's themes in `folder`, by name. A file that does not parse, or that would replace
    a shipped theme, is skipped and described: the app still opens, with the shipped themes."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    taken = set(shipped)
    for file in sorted(folder.glob("*.yaml")):
        try:
            theme = _read_theme(file, required=())
        except ConfigError as exc:
            more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
            problems.append(f"theme {file} skipped: {exc.problems[0]}{more}")
            continue
        if theme.name in taken:
            problems.append(f"theme {file} skipped: name: {theme.name} is a shipped theme; give yours another name")
            continue
        themes[theme.name] = theme
    return UserThemes(themes, problems)
