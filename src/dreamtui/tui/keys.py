"""Textual's bindings for the action registry (tui/keymap.py), which holds the ids, views and
default keys as plain data. Textual applies `ui.keymap` through `App.set_keymap`."""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding, BindingType

from dreamtui.tui.keymap import (
    ALL_GROUPS,
    CANCEL,
    CLOSE,
    CONFIRM,
    DREAM,
    FLAGS,
    GLOBAL,
    HISTORY,
    LIST,
    MEMORY,
    QUEUE,
    REGISTRY,
    VIEW_ACTIONS,
    VIEWS,
    Action,
    keymap_problems,
)

__all__ = ["ALL_GROUPS", "CANCEL", "CLOSE", "CONFIRM", "DREAM", "FLAGS", "GLOBAL", "HISTORY", "LIST",
           "MEMORY", "QUEUE", "REGISTRY", "VIEWS", "VIEW_ACTIONS", "Action", "binding", "bindings",
           "keymap_problems"]


def binding(action: Action) -> Binding:
    return Binding(action.keys, action.action, action.description, show=action.show,
                   key_display=action.key_display, priority=action.priority, id=action.id)


def bindings(actions: Iterable[Action]) -> list[BindingType]:
    return [binding(action) for action in actions]
