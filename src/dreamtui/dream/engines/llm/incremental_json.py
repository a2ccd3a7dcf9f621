"""Incremental JSON: each proposal of a streamed answer, as soon as its closing brace arrives."""

from __future__ import annotations

import json
from typing import Any


class ArrayItemScanner:
    """Finds each complete element of the top-level object's `key` array in streamed JSON text.

    A small state machine over the characters (strings and escapes respected), so a proposal is
    handed on as soon as its closing brace arrives, long before the whole answer is complete.
    """

    def __init__(self, key: str = "proposals") -> None:
        self.key = key
        self.text = ""
        self._pos = 0
        self._stack: list[str] = []
        self._in_string = False
        self._escape = False
        self._key_start: int | None = None  # where a root-level key string starts
        self._expect_key = False
        self._last_key: str | None = None
        self._array_depth: int | None = None  # stack depth inside the target array
        self._item_start: int | None = None

    def feed(self, chunk: str) -> list[str]:
        """Append `chunk`; return the texts of the elements it completed."""
        self.text += chunk
        found: list[str] = []
        text = self.text
        for i in range(self._pos, len(text)):
            char = text[i]
            if self._in_string:
                self._string_char(char, i)
            elif char == '"':
                self._in_string = True
                if self._expect_key and self._stack == ["{"]:
                    self._key_start, self._expect_key = i, False
            elif char in "{[":
                self._open(char, i)
            elif char in "}]":
                item = self._close(char, i)
                if item is not None:
                    found.append(item)
            elif char == "," and self._stack == ["{"]:
                self._expect_key = True
        self._pos = len(text)
        return found

    def _string_char(self, char: str, i: int) -> None:
        if self._escape:
            self._escape = False
        elif char == "\\":
            self._escape = True
        elif char == '"':
            self._in_string = False
            if self._key_start is not None:
                self._last_key = json.loads(self.text[self._key_start:i + 1])
                self._key_start = None

    def _open(self, char: str, i: int) -> None:
        if char == "{" and self._array_depth is not None and len(self._stack) == self._array_depth:
            self._item_start = i
        if char == "[" and self._stack == ["{"] and self._last_key == self.key and self._array_depth is None:
            self._array_depth = 2
        self._stack.append(char)
        if self._stack == ["{"]:
            self._expect_key = True

    def _close(self, char: str, i: int) -> str | None:
        if not self._stack:
            return None  # unbalanced: `result` reports it
        self._stack.pop()
        depth = len(self._stack)
        if char == "}" and self._item_start is not None and depth == self._array_depth:
            start, self._item_start = self._item_start, None
            return self.text[start:i + 1]
        if char == "]" and self._array_depth is not None and depth == self._array_depth - 1:
            self._array_depth = None
            self._last_key = None
        return None

    @property
    def unfinished(self) -> bool:
        """The text so far stops inside a string, object or array."""
        return self._in_string or bool(self._stack)

    def result(self) -> Any:
        """The whole answer parsed; ValueError when it is not one valid JSON document."""
        return json.loads(self.text)
