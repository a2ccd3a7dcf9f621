"""Themes load from themes/*.yaml with dreamtui's variables; every binding has a remappable id."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.theme import Theme

from dreamtui.errors import ConfigError, InputError
from dreamtui.tui import keys
from dreamtui.tui.app import create_app
from dreamtui.tui.themes import REQUIRED_VARIABLES, load_themes, parse_theme
from dreamtui.workspace.layout import Workspace

from .conftest import NOW, SIZE, settle


def test_shipped_themes_become_textual_themes() -> None:
    themes = load_themes()
    assert {"dreamtui-dark", "dreamtui-light", "dreamtui-contrast"} <= set(themes)
    for theme in themes.values():
        assert isinstance(theme, Theme)
        assert set(REQUIRED_VARIABLES) <= set(theme.variables)
    assert themes["dreamtui-light"].dark is False


def test_a_bad_theme_names_the_file_and_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_theme({"name": "x", "primary": "#fff", "colour": "red", "variables": {}}, "themes/x.yaml")
    message = str(caught.value)
    assert "themes/x.yaml" in message and "colour: unknown theme key" in message
    assert "variables.diff-added: required" in message


def test_themes_fall_back_to_the_repository_folder(tmp_path: Path) -> None:
    (tmp_path / "only.yaml").write_text("name: dreamtui-dark\nprimary: '#123456'\nvariables: {"
                                        + ", ".join(f"{v}: '#000'" for v in REQUIRED_VARIABLES) + "}\n")
    assert list(load_themes([tmp_path / "only.yaml"])) == ["dreamtui-dark"]


def test_unknown_theme_is_a_message_not_a_crash(workspace: Workspace) -> None:
    with pytest.raises(InputError, match="--theme: unknown theme 'nope'"):
        create_app(workspace, theme="nope")


def test_every_binding_has_a_unique_id() -> None:
    ids = [action.id for group in keys.ALL_GROUPS for action in group]
    assert len(ids) == len(set(ids))
    assert keys.keymap_problems({"queue.filter": "f", "queue.flter": "g"}) == [
        "ui.keymap.queue.flter: no such binding (known ids: see `?` in the app)"]


async def test_keymap_from_the_config_remaps_a_binding(workspace: Workspace) -> None:
    workspace.config.ui.keymap = {"queue.filter": "f", "app.view.memory": "m"}
    app = create_app(workspace, clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        assert app.focused is not None and app.focused.id == "queue-filter"
        await pilot.press("escape", "m")
        await settle(app, pilot)
        assert app.current_mode == "memory"


async def test_theme_changes_from_the_palette_command(workspace: Workspace) -> None:
    app = create_app(workspace, theme="dreamtui-light", clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "dreamtui-light"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"contrast")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "dreamtui-contrast"
