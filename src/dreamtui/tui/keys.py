"""The action registry: every key binding of the workbench, each with a stable id.

Ids are what `ui.keymap` in dreamtui.yaml remaps (`queue.filter: f`); Textual applies the keymap
through `App.set_keymap`. The help screen and the config check read this registry, so a binding
that is not listed here does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Action:
    id: str
    keys: str  # Textual key names, comma separated
    action: str
    description: str
    show: bool = True
    key_display: str | None = None
    priority: bool = False

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.description, show=self.show,
                       key_display=self.key_display, priority=self.priority, id=self.id)


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


def bindings(actions: Iterable[Action]) -> list[BindingType]:
    return [action.binding() for action in actions]


def keymap_problems(keymap: Mapping[str, str]) -> list[str]:
    """`ui.keymap` entries that name no binding: a typo would otherwise silently do nothing."""
    return [f"ui.keymap.{binding_id}: no such binding (known ids: see `?` in the app)"
            for binding_id in keymap if binding_id not in REGISTRY]
