"""YAML that expands or nests without bound is refused where it is read: entries and config.

Nine nested aliases in one entry's frontmatter loaded as ~387 million values the moment anything
walked the entry (a pin, a dream's rewrite): 2.8 GB after four minutes. A few hundred thousand
nested brackets crashed the C parser outright. Entries now refuse aliases and deep nesting as
bad entries (skipped and reported, like any other); the config refuses documents whose aliases
expand beyond any real config.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from dreamtui.entry.codec import parse_entry
from dreamtui.errors import ConfigError, EntryError, InputError
from dreamtui.review.commit import commit_human_change
from dreamtui.store.ltm import LTMStore
from dreamtui.workspace.config import load_config
from tests.factories import Scenario, write_entry

ROOT = Path(__file__).resolve().parents[2]


def laughs(levels: int = 9, width: int = 9) -> list[str]:
    """`a0` holds `width` strings, each further level `width` aliases of the one before."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * width)}]" for n in range(1, levels)]
    return lines


BOMB_ENTRY = "---\ntitle: Laughs\nslug: laughs\n" + "\n".join(laughs()) + "\n---\nBody.\n"


def test_an_alias_bomb_entry_is_a_bad_entry_named_with_its_line(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws")
    s.entry("fine", "A fine entry.")
    write_entry(s.ws.memory_root, "topics/laughs.md", BOMB_ENTRY)
    started = time.perf_counter()
    snapshot = LTMStore(s.ws.memory_root).scan()
    assert time.perf_counter() - started < 1.0
    # plain strings only: a failure message showing the entry itself would expand the bomb
    paths, problems = list(snapshot.entries), [str(p) for p in snapshot.problems]
    assert paths == ["topics/fine.md"]
    # line 5: `a1`, the first alias (the frontmatter starts on the file's second line)
    assert problems == ["topics/laughs.md:5: YAML alias *a0 in frontmatter: aliases are not "
                        "allowed in an entry; write the value out"]


def test_pinning_an_alias_bomb_entry_is_refused_at_once(tmp_path: Path) -> None:
    s = Scenario(tmp_path / "ws")
    write_entry(s.ws.memory_root, "topics/laughs.md", BOMB_ENTRY)
    s.settle()
    started = time.perf_counter()
    with pytest.raises(InputError, match="topics/laughs.md: no live entry at this path"):
        commit_human_change(s.ws, "topics/laughs.md", None, "pin", "keep it")
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("frontmatter", [
    "base: &port 5432\nci: *port",  # one harmless alias is refused too: the rule is simple
    "defaults: &defaults {tags: [ci]}\n<<: *defaults",  # a merge key is an alias too
])
def test_any_alias_is_refused(frontmatter: str) -> None:
    with pytest.raises(EntryError, match="YAML alias"):
        parse_entry(f"---\ntitle: t\nslug: s\n{frontmatter}\n---\nBody\n", "topics/s.md")


def test_an_anchor_alone_is_still_read() -> None:
    entry = parse_entry("---\ntitle: t\nslug: s\nbase: &port 5432\n---\nBody\n", "topics/s.md")
    assert entry.meta["base"] == 5432


def test_deep_nesting_is_a_bad_entry_not_a_crash() -> None:
    """Run apart: before the limit, libyaml's composer overflowed the C stack (a segfault)."""
    depth = 200_000
    script = (
        "from dreamtui.entry.codec import parse_entry\n"
        "from dreamtui.errors import EntryError\n"
        f"text = '---\\ntitle: t\\nslug: s\\nx: ' + '[' * {depth} + ']' * {depth} + '\\n---\\nb\\n'\n"
        "try:\n"
        "    parse_entry(text, 'topics/deep.md')\n"
        "except EntryError as exc:\n"
        "    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env={"PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "topics/deep.md:4: frontmatter nested more than 32 levels deep"


def test_nesting_an_entry_needs_is_read() -> None:
    text = "---\ntitle: t\nslug: s\ncustom: {a: [1, {b: [2, {c: 3}]}]}\n---\nBody\n"
    assert parse_entry(text, "topics/s.md").meta["custom"] == {"a": [1, {"b": [2, {"c": 3}]}]}


def test_an_alias_bomb_config_is_refused_at_once(tmp_path: Path) -> None:
    config = tmp_path / "dreamtui.yaml"
    config.write_text("\n".join(laughs()) + "\n", encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(ConfigError) as failure:
        load_config(config, environ={})
    assert time.perf_counter() - started < 1.0
    assert failure.value.problems == ["(file): more than 100,000 values once YAML aliases are "
                                      "expanded; write the values out instead of aliasing them"]


def test_a_config_may_still_use_aliases(tmp_path: Path) -> None:
    config = tmp_path / "dreamtui.yaml"
    config.write_text("ltm: {max_autonomous_removals: &n 3}\nheadless: {min_pending: *n}\n",
                      encoding="utf-8")
    assert load_config(config, environ={}).headless.min_pending == 3


def test_a_config_alias_that_contains_itself_keeps_its_message(tmp_path: Path) -> None:
    config = tmp_path / "dreamtui.yaml"
    config.write_text("ltm: &x [*x]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as failure:
        load_config(config, environ={})
    assert failure.value.problems == ["(file): nested too deeply, or a YAML alias refers to itself"]
