"""Themes load from themes/*.yaml with dreamtui's variables, and from the person's theme folder;
every binding has a remappable id."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.theme import Theme

from dreamtui.errors import ConfigError, InputError
from dreamtui.tui import keymap, keys
from dreamtui.tui.app import create_app
from dreamtui.tui.themes import REQUIRED_VARIABLES, load_themes, load_user_themes, parse_theme, user_theme_folder
from dreamtui.workspace.layout import Workspace

from .conftest import NOW, SIZE, settle, type_text


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
        "ui.keymap.queue.flter: no such binding (did you mean queue.filter? known ids: see `?` in the app)"]


def test_the_keymap_check_names_keys_as_textual_does() -> None:
    # tui/keymap.py may not import Textual (config check reads it), so it restates this one rule.
    from textual.keys import _normalize_key_list

    for key in ["?", "/", "\\", "@", "-", "+", "_", "!", "#", ".", "\t", "a", "A", "1", "ctrl+p", "enter"]:
        assert keymap.key_name(key) == _normalize_key_list(key), key
    assert keymap.keymap_problems({}) == []  # the defaults never share a key within a view
    assert [b.id for b in keys.bindings(keys.DREAM) if isinstance(b, Binding)] == [a.id for a in keys.DREAM]


@pytest.mark.slow
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


@pytest.mark.slow
async def test_theme_changes_from_the_palette_command(workspace: Workspace) -> None:
    app = create_app(workspace, theme="dreamtui-light", clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "dreamtui-light"
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        await type_text(pilot, "contrast")
        await settle(app, pilot)  # the palette searches in a worker
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "dreamtui-contrast"


MINE = "name: mine\ndark: true\nprimary: '#aa3377'\nbackground: '#101010'\n"


def test_the_theme_folder_follows_xdg_config_home(no_user_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert user_theme_folder() == no_user_config / "dreamtui" / "themes"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/path")  # invalid by the XDG spec: ignored
    assert user_theme_folder() == Path.home() / ".config" / "dreamtui" / "themes"


@pytest.mark.slow
async def test_a_theme_from_the_user_folder_is_offered_and_used(workspace: Workspace, no_user_config: Path) -> None:
    folder = no_user_config / "dreamtui" / "themes"
    folder.mkdir(parents=True)
    (folder / "mine.yaml").write_text(MINE)  # dreamtui's own variables left out: the default's apply
    app = create_app(workspace, theme="mine", clock=lambda: NOW)
    assert {"mine", "dreamtui-dark", "dreamtui-light", "dreamtui-contrast"} <= set(app.dreamtui_themes)
    assert app.theme_problems == []
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "mine"
        assert app.theme_variables["primary"].lower() == "#aa3377"
        assert app.theme_variables["diff-added"] == load_themes()["dreamtui-dark"].variables["diff-added"]


BROKEN = {
    "unknown-key": ("name: a\nprimary: '#123456'\ncolour: red\n", "colour: unknown theme key"),
    "no-primary": ("name: b\n", "primary: required, a string"),
    "bad-colour": ("name: c\nprimary: not-a-colour\n", "primary: 'not-a-colour' is not a colour"),
    "bad-variable": ("name: d\nprimary: '#123'\nvariables: {diff-added: nope}\n",
                     "variables.diff-added: 'nope' is not a colour"),
    "bad-yaml": ("name: [e\n", "invalid YAML at line 2"),
    "shipped-name": ("name: dreamtui-dark\nprimary: '#123456'\n", "name: dreamtui-dark is a shipped theme"),
}


def test_each_bad_user_theme_is_one_line_naming_the_file_and_the_field(tmp_path: Path) -> None:
    for stem, (text, _) in BROKEN.items():
        (tmp_path / f"{stem}.yaml").write_text(text)
    (tmp_path / "mine.yaml").write_text(MINE)
    (tmp_path / "notes.txt").write_text("not a theme")
    loaded = load_user_themes(tmp_path, load_themes())
    assert list(loaded.themes) == ["mine"]
    for stem, (_, problem) in BROKEN.items():
        [line] = [p for p in loaded.problems if f"{tmp_path / stem}.yaml" in p]
        assert line.startswith(f"theme {tmp_path / stem}.yaml skipped: {problem}") and "\n" not in line


@pytest.mark.slow
async def test_a_bad_user_theme_leaves_the_app_with_the_shipped_themes(workspace: Workspace,
                                                                       no_user_config: Path) -> None:
    folder = no_user_config / "dreamtui" / "themes"
    folder.mkdir(parents=True)
    (folder / "broken.yaml").write_text("name: broken\nprimary: '#123456'\ncolour: red\n")
    app = create_app(workspace, theme="dreamtui-light", clock=lambda: NOW)
    [problem] = app.theme_problems  # notified when the app opens
    assert "broken.yaml skipped: colour: unknown theme key" in problem
    assert {"dreamtui-dark", "dreamtui-light", "dreamtui-contrast"} <= set(app.dreamtui_themes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "dreamtui-light"
    with pytest.raises(InputError, match=r"--theme: unknown theme 'broken' .*; theme .*broken\.yaml skipped"):
        create_app(workspace, theme="broken")
