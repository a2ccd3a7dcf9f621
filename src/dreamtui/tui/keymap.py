"""The action registry: every key binding of the workbench, each with a stable id — as plain data.

Ids are what `ui.keymap` in dreamtui.yaml remaps (`queue.filter: f`). Textual-free, so that
`dreamtui config check` can validate a keymap without loading the TUI (docs/architecture.md
§2.3); `tui/keys.py` builds Textual's bindings from it, and the help screen lists it. A binding
that is not listed here does not exist.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Action:
    id: str
    keys: str  # Textual key names, comma separated
    action: str
    description: str
    show: bool = True
    key_display: str | None = None
    priority: bool = False


VIEWS: tuple[tuple[str, str], ...] = (
    ("queue", "Queue"), ("memory", "Memory"), ("flags", "Flags"), ("dream", "Dream"),
    ("history", "History"),
)

GLOBAL: tuple[Action, ...] = (
    *(Action(f"app.view.{name}", str(number), f"app.switch_view('{name}')", title, show=False)
      for number, (name, title) in enumerate(VIEWS, start=1)),
    Action("app.help", "question_mark", "app.help", "help", key_display="?"),
    Action("app.palette", "ctrl+p", "app.command_palette", "palette", show=False, priority=True),
    Action("app.quit", "q", "app.quit", "quit", show=False),
)

LIST: tuple[Action, ...] = (
    Action("list.down", "j,down", "cursor_down", "move", show=False),
    Action("list.up", "k,up", "cursor_up", "move", show=False),
    Action("list.page-down", "pagedown,ctrl+d", "page_down", "page down", show=False),
    Action("list.page-up", "pageup,ctrl+u", "page_up", "page up", show=False),
    Action("list.first", "home,g", "first", "first", show=False),
    Action("list.last", "end,G", "last", "last", show=False),
)

QUEUE: tuple[Action, ...] = (
    Action("queue.filter", "slash", "filter", "filter", key_display="/"),
    Action("queue.type", "t", "cycle_type", "type"),
    Action("queue.state", "a", "cycle_state", "state"),
    Action("queue.sort", "s", "toggle_sort", "sort"),
    Action("queue.dream", "d", "app.start_dream", "dream"),
    Action("queue.back", "escape", "back_to_list", "back to the list", show=False),
)

MEMORY: tuple[Action, ...] = (
    Action("memory.filter", "slash", "filter", "filter", key_display="/"),
    Action("memory.pin", "p", "pin", "pin/unpin"),
    Action("memory.archive", "x", "archive", "archive"),
    Action("memory.restore", "r", "restore", "restore"),
    Action("memory.edit", "e", "edit", "edit"),
    Action("memory.archived", "A", "toggle_archived", "archived"),
    Action("memory.back", "escape", "back_to_list", "back to the list", show=False),
)

FLAGS: tuple[Action, ...] = (
    Action("flags.archive", "x", "triage('archive')", "archive (flag is right)"),
    Action("flags.pin", "p", "triage('pin')", "pin (flag is wrong)"),
    Action("flags.weaken", "w", "triage('weaken')", "weaken"),
    Action("flags.correct", "c", "correct", "correct"),
    Action("flags.skip", "s", "skip", "skip"),
    Action("flags.undo", "u", "undo", "undo"),
    Action("flags.next", "j,down", "move(1)", "next", show=False),
    Action("flags.previous", "k,up", "move(-1)", "previous", show=False),
)

DREAM: tuple[Action, ...] = (
    Action("dream.accept", "y", "decide('accept')", "accept"),
    Action("dream.pin", "p", "decide('pin')", "pin"),
    Action("dream.archive", "x", "decide('archive')", "archive"),
    Action("dream.reject", "n", "decide('reject')", "reject"),
    Action("dream.defer", "b", "decide('defer')", "defer"),
    Action("dream.edit", "e", "edit", "edit, then accept", show=False),
    Action("dream.route", "t", "route", "route (where the lesson goes)", show=False),
    Action("dream.undo", "u", "undo", "undo"),
    Action("dream.accept-rest", "A", "decide_rest('accept')", "accept rest of this op", show=False),
    Action("dream.reject-rest", "R", "decide_rest('reject')", "reject rest of this op", show=False),
    Action("dream.commit", "c", "commit", "commit"),
    Action("dream.start", "d", "app.start_dream", "dream"),
    Action("dream.evidence", "o", "evidence", "evidence", show=False),
    Action("dream.switch", "tab", "switch_dream", "next dream", show=False),
    Action("dream.cancel", "escape", "cancel_dream", "cancel dream", show=False),
)

HISTORY: tuple[Action, ...] = (
    Action("history.switch", "tab", "switch_pane", "log / git", show=False),
    Action("history.reload", "r", "reload", "reload"),
)

CONFIRM: tuple[Action, ...] = (
    Action("confirm.yes", "enter,y", "confirm", "commit"),
    Action("confirm.no", "escape,n", "dismiss_screen", "cancel"),
)

CLOSE: tuple[Action, ...] = (
    Action("modal.close", "escape,q,question_mark,enter", "dismiss_screen", "close"),
)

CANCEL: tuple[Action, ...] = (
    Action("modal.cancel", "escape", "dismiss_screen", "cancel"),
)

VIEW_ACTIONS: dict[str, tuple[Action, ...]] = {
    "queue": QUEUE, "memory": MEMORY, "flags": FLAGS, "dream": DREAM, "history": HISTORY,
}
ALL_GROUPS: tuple[tuple[Action, ...], ...] = (GLOBAL, LIST, *VIEW_ACTIONS.values(), CONFIRM, CLOSE, CANCEL)
REGISTRY: dict[str, Action] = {action.id: action for group in ALL_GROUPS for action in group}

# The bindings that answer a key together, by where they are live: a view's own, its lists'
# (the Flags view has none) and the app's. A modal's bindings take over from everything behind
# it, so a modal is a scope of its own. Two actions on one key in a scope: one of them never runs.
SCOPES: dict[str, tuple[tuple[Action, ...], ...]] = {
    "the Queue view": (QUEUE, LIST, GLOBAL), "the Memory view": (MEMORY, LIST, GLOBAL),
    "the Flags view": (FLAGS, GLOBAL), "the Dream view": (DREAM, LIST, GLOBAL),
    "the History view": (HISTORY, LIST, GLOBAL), "the commit confirmation": (CONFIRM,),
    "the help and message windows": (CLOSE,), "the pick windows": (CANCEL,),
}

# Textual's names for the characters whose Unicode names it shortens (textual.keys).
_KEY_NAME_REPLACEMENTS = {"solidus": "slash", "reverse_solidus": "backslash", "commercial_at": "at",
                          "hyphen_minus": "minus", "plus_sign": "plus", "low_line": "underscore"}


def key_name(key: str) -> str:
    """A key as Textual names it once a keymap is applied: `?` is `question_mark`, `/` `slash`."""
    key = key.strip()
    if len(key) != 1 or key.isalnum():
        return key
    if key == "\t":
        return "tab"
    try:
        name = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        return key
    return _KEY_NAME_REPLACEMENTS.get(name, name)


def keys_of(action: Action, keymap: Mapping[str, str]) -> list[str]:
    """The keys `action` answers to under `keymap` (its own unless remapped)."""
    return [key_name(k) for k in keymap.get(action.id, action.keys).split(",") if k.strip()]


def keymap_problems(keymap: Mapping[str, str]) -> list[str]:
    """`ui.keymap` entries that name no binding, give no key, or put a key on two actions live at
    once: each would otherwise silently do nothing."""
    problems = []
    for binding_id, keys in keymap.items():
        if binding_id not in REGISTRY:
            close = difflib.get_close_matches(binding_id, REGISTRY, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            problems.append(f"ui.keymap.{binding_id}: no such binding ({hint}known ids: see `?` in the app)")
        elif not str(keys).strip(" ,"):
            problems.append(f"ui.keymap.{binding_id}: no key given (its default is {REGISTRY[binding_id].keys})")
    clashes: dict[tuple[str, str, str], list[str]] = {}  # (remapped id, key, the others) -> scopes
    for scope, groups in SCOPES.items():
        owners: dict[str, list[Action]] = {}
        for action in (a for group in groups for a in group):
            for key in dict.fromkeys(keys_of(action, keymap)):
                owners.setdefault(key, []).append(action)
        for key, actions in owners.items():
            remapped = [a for a in actions if a.id in keymap]
            if len(actions) > 1 and remapped:
                others = ", ".join(a.id for a in actions if a is not remapped[0])
                clashes.setdefault((remapped[0].id, key, others), []).append(scope)
    for (binding_id, key, others), scopes in clashes.items():
        where = scopes[0] if len(scopes) == 1 else f"{', '.join(scopes[:-1])} and {scopes[-1]}"
        problems.append(f"ui.keymap.{binding_id}: {key!r} is also {others} in {where} "
                        "(one of them would never run)")
    return problems
