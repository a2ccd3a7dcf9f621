"""Edits to a person's JSON file (`.mcp.json`, `.claude/settings.json`) that change only the text
they must: a member set, replaced or removed, an array item appended or removed. Every other
byte — key order, indentation, inline arrays, spacing, the final newline — stays as written, so
`dreamtui connect` never reformats a file, and undoing an edit gives the text back.

The text is parsed once with `json` (for its error line) and once here for positions: each
value's span and each member's key, which is all an edit needs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from dreamtui.errors import InputError

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# json's own string scanner (positions included), which typeshed does not list.
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009
Path_ = tuple[str, ...]


@dataclass
class _Node:
    start: int
    end: int  # one past the value's last character
    members: dict[str, _Member] = field(default_factory=dict)  # objects, in file order
    items: list[_Node] = field(default_factory=list)  # arrays
    close: int = -1  # the closing bracket of an object or array
    kind: str = "scalar"


@dataclass
class _Member:
    key_start: int
    value: _Node


def _skip(text: str, at: int) -> int:
    match = _WS.match(text, at)
    assert match is not None
    return match.end()


def _node(text: str, at: int) -> _Node:
    """The value starting at `at` (after whitespace); the text is valid JSON (checked before)."""
    at = _skip(text, at)
    opener = text[at]
    if opener not in "{[":
        _, end = _DECODER.raw_decode(text, at)
        return _Node(at, end)
    node = _Node(at, -1, kind="object" if opener == "{" else "array")
    cursor = _skip(text, at + 1)
    closer = "}" if opener == "{" else "]"
    while text[cursor] != closer:
        if node.kind == "object":
            key_start = cursor
            key, cursor = _scanstring(text, cursor + 1)
            cursor = _skip(text, cursor) + 1  # the colon
            value = _node(text, cursor)
            node.members.pop(key, None)  # a repeated key: the last one counts, as for json.loads
            node.members[key] = _Member(key_start, value)
        else:
            value = _node(text, cursor)
            node.items.append(value)
        cursor = _skip(text, value.end)
        if text[cursor] == ",":
            cursor = _skip(text, cursor + 1)
    node.close = cursor
    node.end = cursor + 1
    return node


def loads(text: str, where: str) -> Any:
    """The parsed document, or InputError naming the file and line (the file is left as it is)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}:{exc.lineno}: not valid JSON ({exc.msg}); fix it and run "
                         "again, nothing was changed") from None


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _indent_of_line(text: str, at: int) -> str:
    start = _line_start(text, at)
    return text[start:start + len(text[start:]) - len(text[start:].lstrip(" \t"))]


def indent_unit(text: str) -> str:
    """The file's indentation step: the first indented line's whitespace; two spaces by default."""
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _render(value: Any, unit: str, indent: str) -> str:
    """`value` as JSON in the file's style, its continuation lines indented from `indent`."""
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


class JsonText:
    """A JSON document's text and the edits made to it (each re-reads the positions)."""

    def __init__(self, text: str, where: str) -> None:
        self.where = where
        self.data = loads(text, where) if text.strip() else {}
        if not isinstance(self.data, dict):
            raise InputError(f"{where}: expected a JSON object at the top, found "
                             f"{type(self.data).__name__}; nothing was changed")
        self.text = text if text.strip() else "{}\n"
        # A file written on Windows keeps its CRLF line ends in the lines added to it.
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def _root(self) -> _Node:
        return _node(self.text, 0)

    def get(self, path: Path_) -> Any:
        value: Any = self.data
        for part in path:
            if not isinstance(value, dict) or part not in value:
                return _MISSING
            value = value[part]
        return value

    def _walk(self, path: Path_) -> tuple[_Node, int]:
        """The deepest existing object along `path` and how many parts of `path` it covers; a
        part that holds something else than an object is an error naming the key."""
        node = self._root()
        depth = 0
        for part in path:
            if node.kind != "object":
                raise self._not_an_object(path[:depth])
            member = node.members.get(part)
            if member is None:
                break
            node, depth = member.value, depth + 1
        return node, depth

    def _not_an_object(self, path: Path_) -> InputError:
        return InputError(f"{self.where}: {'.'.join(path) or '(top level)'} is not a JSON object; "
                          "fix it and run again, nothing was changed")

    def _splice(self, start: int, end: int, new: str) -> None:
        if self.newline != "\n":
            new = new.replace("\n", self.newline)
        self.text = self.text[:start] + new + self.text[end:]
        self.data = json.loads(self.text)

    def set(self, path: Path_, value: Any) -> None:
        """Set the member at `path` (its parents made as needed) to `value`, in place if it exists."""
        node, depth = self._walk(path)
        unit = indent_unit(self.text)
        if depth == len(path):
            self._splice(node.start, node.end, _render(value, unit, _indent_of_line(self.text, node.start)))
            return
        if node.kind != "object":
            raise self._not_an_object(path[:depth])
        for part in reversed(path[depth + 1:]):
            value = {part: value}
        self._add_member(node, path[depth], value, unit)

    def _add_member(self, node: _Node, key: str, value: Any, unit: str) -> None:
        members = list(node.members.values())
        if not members:
            indent = _indent_of_line(self.text, node.start)
            inner = indent + unit
            self._splice(node.start, node.end,
                         f"{{\n{inner}{json.dumps(key)}: {_render(value, unit, inner)}\n{indent}}}")
            return
        first, last = members[0], members[-1]
        if "\n" not in self.text[node.start:first.key_start]:  # written on one line: stays one
            self._splice(last.value.end, last.value.end, f", {json.dumps(key)}: {_compact(value)}")
            return
        inner = _indent_of_line(self.text, first.key_start)
        self._splice(last.value.end, last.value.end,
                     f",\n{inner}{json.dumps(key)}: {_render(value, unit, inner)}")

    def append(self, path: Path_, item: Any) -> None:
        """Append `item` to the array at `path`, which is made when missing."""
        current = self.get(path)
        if current is _MISSING:
            self.set(path, [item])
            return
        if not isinstance(current, list):
            raise InputError(f"{self.where}: {'.'.join(path)} is not a JSON array; fix it and run "
                             "again, nothing was changed")
        node, _ = self._walk(path)
        unit = indent_unit(self.text)
        if not node.items:
            indent = _indent_of_line(self.text, node.start)
            inner = indent + unit
            self._splice(node.start, node.end, f"[\n{inner}{_render(item, unit, inner)}\n{indent}]")
        elif "\n" not in self.text[node.start:node.items[0].start]:
            self._splice(node.items[-1].end, node.items[-1].end, f", {_compact(item)}")
        else:
            inner = _indent_of_line(self.text, node.items[0].start)
            self._splice(node.items[-1].end, node.items[-1].end, f",\n{inner}{_render(item, unit, inner)}")

    def remove(self, path: Path_) -> None:
        """Remove the member at `path` with its comma; its neighbours keep their text."""
        parent, depth = self._walk(path[:-1])
        if depth != len(path) - 1 or path[-1] not in parent.members:
            return
        members = list(parent.members.values())
        index = [m.key_start for m in members].index(parent.members[path[-1]].key_start)
        self._cut(parent, [(m.key_start, m.value.end) for m in members], index)

    def remove_item(self, path: Path_, item: Any) -> bool:
        """Remove the first item of the array at `path` equal to `item`; whether one was."""
        current = self.get(path)
        if not isinstance(current, list) or item not in current:
            return False
        node, _ = self._walk(path)
        self._cut(node, [(i.start, i.end) for i in node.items], current.index(item))
        return True

    def _cut(self, container: _Node, spans: list[tuple[int, int]], index: int) -> None:
        if len(spans) == 1:  # the only one: the container becomes empty, `{}` or `[]`
            self._splice(container.start + 1, container.close, "")
        elif index > 0:  # from the end of the one before: its comma and our text go
            self._splice(spans[index - 1][1], spans[index][1], "")
        else:  # the first: up to the next one's start
            self._splice(spans[0][0], spans[1][0], "")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


_MISSING: Any = _Missing()
MISSING: Any = _MISSING
