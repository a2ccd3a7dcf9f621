"""Text rules every importer shares: what a terminal's escape codes are, and their removal.

Agents' logs quote tool output as the terminal printed it; colour codes in a memory make its
title a shell banner and earn it a false invisible-character safety mark.
"""

from __future__ import annotations

import re

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) ended by BEL or ST,
# and the lone two-byte escapes; then the C0 controls a terminal would not print.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    """`text` without terminal escape sequences and stray control characters (tabs, newlines kept)."""
    if "\x1b" not in text and not _CONTROLS.search(text):
        return text
    return _CONTROLS.sub("", _ANSI.sub("", text))
