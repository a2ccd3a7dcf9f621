"""`intake.decode.loads` reads every text as `json.loads` does, and refuses what it refuses."""

from __future__ import annotations

import json

import pytest

from dreamtui.intake.decode import loads

_READ = [
    b'{"type":"user","message":{"content":"rename it"}}',
    b'{"a": 1, "a": 2, "b": [1.5, -0.0, 1e400, 123456789012345678901234567890]}',
    b'{"half":"\\ud83d an emoji cut in half"}',  # the fast parser refuses a lone surrogate
    b'\xef\xbb\xbf{"bom": true}',  # … and a byte-order mark
    b"[" * 300 + b"]" * 300,  # … and nesting this deep
    b'{"nan": NaN, "inf": -Infinity}',
    '{"text":"caf\u00e9 \u4f60\u597d"}'.encode(),
]


@pytest.mark.parametrize("text", _READ)
def test_reads_as_the_standard_library(text: bytes) -> None:
    expected = json.loads(text)
    assert repr(loads(text)) == repr(expected)
    assert repr(loads(text.decode("utf-8-sig"))) == repr(json.loads(text.decode("utf-8-sig")))


@pytest.mark.parametrize("text, error", [
    (b'{"a":"tab\tinside"}', json.JSONDecodeError),  # a raw control character in a string
    (b'{"a":1,}', json.JSONDecodeError),
    (b'{"a":1} trailing', json.JSONDecodeError),
    (b'{"a":"\xff\xfe"}', UnicodeDecodeError),  # not UTF-8
])
def test_refuses_what_the_standard_library_refuses(text: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        json.loads(text)
    with pytest.raises(error):
        loads(text)
