"""deliver/jsonedit.py: edits change only the member or item they name; the rest of the text,
whatever its style, stays byte for byte, and undoing an edit gives the text back."""

from __future__ import annotations

import json

import pytest

from dreamtui.deliver.jsonedit import MISSING, JsonText
from dreamtui.errors import InputError

STYLES = [
    '{"a": 1, "mcpServers": {"x": {"command": "x"}}}',  # one line
    '{\n\t"a": 1,\n\t"mcpServers": {\n\t\t"x": {"command": "x"}\n\t}\n}\n',  # tabs
    '{\n    "a" : 1 ,\n    "mcpServers" : { }\n}',  # odd spacing, empty object, no final newline
    '{\n  "a": [1, 2, 3],\n  "b": "é ünïcode"\n}\n',  # no mcpServers yet
    '{}',
    '',
    '{\r\n  "a": 1,\r\n  "mcpServers": {\r\n    "x": {}\r\n  }\r\n}\r\n',  # Windows line ends
]


@pytest.mark.parametrize("text", STYLES)
def test_set_then_remove_gives_the_text_back(text: str) -> None:
    doc = JsonText(text, "f.json")
    doc.set(("mcpServers", "dreamtui"), {"command": "dreamtui", "args": ["mcp"]})
    data = json.loads(doc.text)
    assert data["mcpServers"]["dreamtui"] == {"command": "dreamtui", "args": ["mcp"]}
    original = json.loads(text) if text.strip() else {}
    assert {k: v for k, v in data.items() if k != "mcpServers"} == \
        {k: v for k, v in original.items() if k != "mcpServers"}
    doc.remove(("mcpServers", "dreamtui"))
    if "mcpServers" not in original:
        doc.remove(("mcpServers",))
    assert json.loads(doc.text) == original
    if text.strip() and "mcpServers" in original and original["mcpServers"]:
        assert doc.text == text


def test_append_and_remove_items_keep_the_array_style() -> None:
    doc = JsonText('{"allow": ["a", "b"]}\n', "f.json")
    doc.append(("allow",), "c")
    assert doc.text == '{"allow": ["a", "b", "c"]}\n'
    assert doc.remove_item(("allow",), "c") and doc.text == '{"allow": ["a", "b"]}\n'
    assert not doc.remove_item(("allow",), "zzz")
    doc.append(("hooks", "SessionStart"), {"hooks": []})
    assert json.loads(doc.text)["hooks"] == {"SessionStart": [{"hooks": []}]}


def test_a_replaced_value_keeps_its_neighbours() -> None:
    text = '{\n  "before": 1,\n  "x": {"old": true},\n  "after": [1,2]\n}\n'
    doc = JsonText(text, "f.json")
    doc.set(("x",), {"new": 1})
    assert doc.text.startswith('{\n  "before": 1,\n  "x": {\n    "new": 1\n  },\n  "after": [1,2]\n}')
    assert doc.get(("x", "new")) == 1 and doc.get(("nope",)) is MISSING


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a": 1,}', "f.json:1: not valid JSON"),
    ('{\n  "a": 1\n  "b": 2\n}', "f.json:3: not valid JSON"),
    ("// comment\n{}", "f.json:1: not valid JSON"),
    ("[]", "expected a JSON object at the top"),
])
def test_malformed_json_names_the_line(text: str, expected: str) -> None:
    with pytest.raises(InputError, match=expected):
        JsonText(text, "f.json")


def test_a_path_through_a_non_object_is_refused() -> None:
    doc = JsonText('{"hooks": []}', "f.json")
    with pytest.raises(InputError, match="hooks is not a JSON object"):
        doc.append(("hooks", "SessionStart"), {})


def test_lines_added_to_a_crlf_file_end_in_crlf() -> None:
    doc = JsonText('{\r\n  "a": 1\r\n}\r\n', "f.json")
    doc.set(("mcpServers", "dreamtui"), {"command": "d"})
    assert "\n" not in doc.text.replace("\r\n", "")


def test_connects_undo_patch_gives_back_the_original_and_keeps_only_what_was_replaced() -> None:
    import random

    from dreamtui.deliver.connect import apply_patch, undo_patch

    rng = random.Random(5)
    for _ in range(200):
        lines = [f"line {rng.randint(0, 9)} {'x' * rng.randint(0, 5)}\n" for _ in range(rng.randint(0, 12))]
        original = "".join(lines)
        written = original
        for _ in range(rng.randint(1, 3)):  # a few splices, as connect's edits are
            at = rng.randint(0, len(written))
            cut = rng.randint(0, min(4, len(written) - at))
            written = written[:at] + rng.choice(["", ",\n  \"d\": 1", "new line\n", "y"]) + written[at + cut:]
        patch = undo_patch(written, original)
        assert apply_patch(written, patch) == original
        assert sum(len(text) for _, _, text in patch) <= len(original)
    inserted = undo_patch('{"a": 1, "b": 2}\n', '{"a": 1}\n')
    assert [text for _, _, text in inserted] == [""]  # an insertion keeps none of the person's text
