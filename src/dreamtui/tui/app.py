"""The workbench app and its one factory, `create_app`, used by the CLI and by the tests."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from importlib import import_module
from typing import Any, cast

from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.theme import Theme

from dreamtui.errors import InputError
from dreamtui.tui import keys
from dreamtui.tui.backend import Backend
from dreamtui.tui.commands import DreamtuiCommands
from dreamtui.tui.jobs import LOG_NAME, JobFailed, log
from dreamtui.tui.screens.error import ErrorScreen
from dreamtui.tui.screens.help import HelpScreen
from dreamtui.tui.screens.queue import QueueScreen
from dreamtui.tui.screens.view import ViewScreen
from dreamtui.tui.themes import DEFAULT_THEME, load_themes, load_user_themes, user_theme_folder
from dreamtui.workspace.layout import Workspace

Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _log_to_workspace(workspace: Workspace) -> logging.Handler | None:
    """Tracebacks of unexpected failures go to .dreamtui/logs/tui.log; the screen gets a message."""
    try:
        workspace.ensure_state_dirs()
        handler = logging.FileHandler(workspace.log_dir / LOG_NAME, encoding="utf-8")
    except OSError:
        return None  # a read-only workspace still opens; the modal still shows the message
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)
    return handler


def _view(module: str, name: str) -> Callable[[], Screen[None]]:
    """A view imported when first shown: the first screen (the Queue) must not wait for the
    others, which pull in the dream, commit and policy modules."""

    def make() -> Screen[None]:
        return cast("type[Screen[None]]", getattr(import_module(f"dreamtui.tui.screens.{module}"), name))()

    return make


class DreamtuiApp(App[None]):
    TITLE = "dreamtui"
    CSS_PATH = "app.tcss"
    BINDINGS = keys.bindings(keys.GLOBAL)
    COMMANDS = App.COMMANDS | {DreamtuiCommands}
    MODES = {"queue": QueueScreen, "memory": _view("memory", "MemoryScreen"),
             "flags": _view("flags", "FlagsScreen"), "dream": _view("dream", "DreamScreen"),
             "history": _view("history", "HistoryScreen")}
    DEFAULT_MODE = "queue"

    def __init__(self, workspace: Workspace, *, theme: str, themes: dict[str, Theme], clock: Clock,
                 theme_problems: Sequence[str] = ()) -> None:
        # Set before App.__init__, which already builds the stylesheet from the theme variables.
        self.dreamtui_themes = themes
        self.theme_problems = list(theme_problems)  # the person's theme files that were skipped
        super().__init__()
        self.workspace = workspace
        self.clock = clock
        self.backend = Backend(workspace, clock)
        # Bumped by every commit: a view whose data is older reloads when it is shown.
        self.data_version = 0
        for item in self.dreamtui_themes.values():
            self.register_theme(item)
        self.theme = theme
        self.keymap = dict(workspace.config.ui.keymap)
        self._log_handler: logging.Handler | None = None
        self.set_keymap(self.keymap)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Textual's built-in themes lack dreamtui's variables; borrow the default theme's.
        return dict(self.dreamtui_themes[DEFAULT_THEME].variables)

    def on_mount(self) -> None:
        self._log_handler = _log_to_workspace(self.workspace)
        for problem in [*self.theme_problems, *keys.keymap_problems(self.keymap)]:
            self.notify(problem, severity="warning", timeout=8, markup=False)

    def on_unmount(self) -> None:
        self.backend.close()
        if self._log_handler is not None:
            log.removeHandler(self._log_handler)
            self._log_handler.close()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # dreamtui's provider offers its own themes; Textual's theme picker would list every theme.
        return (command for command in super().get_system_commands(screen) if command.title != "Theme")

    # -- actions -----------------------------------------------------------------------------------

    async def action_switch_view(self, view: str) -> None:
        await self.switch_mode(view)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        view = self.screen.VIEW if isinstance(self.screen, ViewScreen) else None
        self.push_screen(HelpScreen(view))

    async def action_start_dream(self) -> None:
        await self.switch_mode("dream")
        await self.screen.run_action("start")

    async def action_commit(self) -> None:
        await self.switch_mode("dream")
        await self.screen.run_action("commit")

    def set_dreamtui_theme(self, name: str) -> None:
        self.theme = name

    # -- shared state ------------------------------------------------------------------------------

    def workspace_changed(self) -> None:
        """A commit wrote the workspace: reload the shown view now, the others when shown."""
        self.data_version += 1
        self.backend.forget_cache()
        screen = self.screen
        if isinstance(screen, ViewScreen):
            screen.load()

    def on_job_failed(self, message: JobFailed) -> None:
        top = self.screen
        if isinstance(top, ErrorScreen):
            top.add(message.what, message.message)
        else:
            self.push_screen(ErrorScreen(message.what, message.message))


def create_app(workspace: Workspace, theme: str | None = None, *, clock: Clock | None = None) -> DreamtuiApp:
    """The workbench for `workspace`: theme from --theme, else the config; `clock` for tests.

    The person's own themes (themes.user_theme_folder) join the shipped ones."""
    name = theme or workspace.config.ui.theme
    shipped = load_themes()
    mine = load_user_themes(user_theme_folder(), shipped)
    known = shipped | mine.themes
    if name not in known:
        source = "--theme" if theme else f"{workspace.config_path}: ui.theme"
        raise InputError(f"{source}: unknown theme {name!r} (choose one of {', '.join(sorted(known))})"
                         + "".join(f"; {problem}" for problem in mine.problems))
    return DreamtuiApp(workspace, theme=name, themes=known, clock=clock or _utc_now, theme_problems=mine.problems)
