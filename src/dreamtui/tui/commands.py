"""The command palette's dreamtui commands: switch view, start a dream, commit, change theme."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from dreamtui.tui.keys import VIEWS

if TYPE_CHECKING:
    from dreamtui.tui.app import DreamtuiApp

Command = tuple[str, Callable[[], object], str]


class DreamtuiCommands(Provider):
    def _commands(self) -> list[Command]:
        app = cast("DreamtuiApp", self.app)
        commands: list[Command] = [
            (f"View: {title}", partial(app.run_action, f"switch_view('{view}')"), f"key {number}")
            for number, (view, title) in enumerate(VIEWS, start=1)
        ]
        commands += [
            ("Dream: start a dream", partial(app.run_action, "start_dream"),
             "claim pending memories and propose changes"),
            ("Dream: commit decisions", partial(app.run_action, "commit"),
             "review the counts and guard rails, then commit"),
            ("Keys: show the keys of this view", partial(app.run_action, "help"), "?"),
        ]
        commands += [(f"Theme: {name}", partial(app.set_dreamtui_theme, name),
                      "current theme" if name == app.theme else "switch theme")
                     for name in sorted(app.dreamtui_themes)]
        return commands

    async def discover(self) -> Hits:
        for name, command, help_text in self._commands():
            yield DiscoveryHit(name, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, command, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), command, help=help_text)
