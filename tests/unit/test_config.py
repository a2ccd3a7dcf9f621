"""Config loading: defaults, interpolation, Dreamer configs, and errors that name file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.errors import ConfigError
from dreamtui.workspace.config import Config, load_config, parse_config

TEMPLATE = Path(__file__).parents[2] / "src" / "dreamtui" / "workspace" / "templates" / "dreamtui.yaml"


def write(tmp_path: Path, text: str, name: str = "dreamtui.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_empty_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "")) == Config()


def test_init_template_states_the_defaults() -> None:
    # The commented template is documentation: it must not drift from the real defaults.
    assert load_config(TEMPLATE) == Config()


def test_env_interpolation(tmp_path: Path) -> None:
    path = write(tmp_path, "stm:\n  path: ${env:DB_DIR}/stm.db\ndream:\n  ollama:\n    host: ${env:OH:-http://x:1}\n")
    config = load_config(path, environ={"DB_DIR": "/data"})
    assert config.stm.path == "/data/stm.db"
    assert config.dream.ollama.host == "http://x:1"


def test_missing_env_variable_names_key(tmp_path: Path) -> None:
    path = write(tmp_path, "stm:\n  path: ${env:NOPE}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, environ={})
    assert "stm.path" in str(info.value) and "NOPE" in str(info.value)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("ltm:\n  max_autonomus_removals: 3\n", "ltm.max_autonomus_removals: unknown key"),
        ("ltm:\n  on_guard_violation: explode\n", "ltm.on_guard_violation: expected"),
        ("stm:\n  max_content_bytes: lots\n", "stm.max_content_bytes: expected"),
        ("context:\n  byte_budget: 10\n", "context.byte_budget: expected"),
        ("memory_types: [Observation]\n", "memory_types"),
        ("memory_types: [context_flagged]\n", "feedback type"),
        ("- a\n- b\n", "expected a mapping"),
        ("stm: [\n", "invalid YAML"),
    ],
)
def test_errors_name_file_key_and_expectation(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    assert needle in message


def test_every_problem_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "stm:\n  lease_minutes: 0\nltm:\n  bogus: 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert len(info.value.problems) == 2


def test_invalid_utf8_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "dreamtui.yaml"
    path.write_bytes(b"stm:\n  path: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_dreamer_yaml_is_mapped(tmp_path: Path) -> None:
    path = write(tmp_path, """
stm_store:
  class: dreamer.contrib.stm.sqlite.SQLiteSTMStore
  params:
    db_path: ./data/dreamer.db
    memory_types: [observation, failure, decision]
ltm_store:
  class: dreamer.contrib.ltm.markdown.MarkdownLTMStore
  params:
    root: ./ws/memory
    max_autonomous_removals: 2
    on_guard_violation: warn
context_store:
  class: dreamer.contrib.context.markdown.MarkdownContextStore
  params:
    root: ./ws/context
dream_engine:
  class: dreamer.contrib.dream.claude_agent.ClaudeAgentDreamEngine
""", name="dreamer.yaml")
    config = load_config(path)
    assert config.stm.path == "./data/dreamer.db"
    assert config.ltm.root == "./ws/memory"
    assert config.ltm.max_autonomous_removals == 2
    assert config.ltm.on_guard_violation == "warn"
    assert config.context.root == "./ws/context"
    assert config.memory_types == ["observation", "failure", "decision"]


def test_parse_config_accepts_none() -> None:
    assert parse_config(None, Path("x.yaml")) == Config()
