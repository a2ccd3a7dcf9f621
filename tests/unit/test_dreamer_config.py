"""A Dreamer server's dreamer.yaml, read as Dreamer reads it (issue 15, problems 1 and 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.errors import ConfigError, InputError
from dreamtui.intake.validate import prepare
from dreamtui.model import NewMemory
from dreamtui.workspace.config import load_config

STM = "stm_store:\n  class: dreamer.contrib.stm.sqlite.SQLiteSTMStore\n  params:\n"


def dreamer_yaml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "dreamer.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path, environ: dict[str, str] | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path, environ={} if environ is None else environ)
    return "\n".join(info.value.problems)


@pytest.mark.parametrize(("value", "environ", "expected"), [
    ("${DREAMER_DB}", {"DREAMER_DB": "/srv/d.db"}, "/srv/d.db"),
    ("${DREAMER_DB:-./fallback.db}", {}, "./fallback.db"),
    ("${DREAMER_DB:-./fallback.db}", {"DREAMER_DB": "set.db"}, "set.db"),
    ("${env:DATA}/stm.db", {"DATA": "/data"}, "/data/stm.db"),
    ("${env:DATA:-/var}/stm.db", {}, "/var/stm.db"),
    ("sqlite:///./data/stm.db", {}, "./data/stm.db"),
    ("sqlite+aiosqlite:////abs/stm.db?timeout=5", {}, "/abs/stm.db"),
])
def test_interpolation_and_db_urls_as_dreamer_resolves_them(tmp_path: Path, value: str, environ: dict[str, str],
                                                            expected: str) -> None:
    path = dreamer_yaml(tmp_path, f"{STM}    db_path: '{value}'\n")
    assert load_config(path, environ=environ).stm.path == expected


def test_unresolvable_references_are_reported_with_their_key(tmp_path: Path) -> None:
    path = dreamer_yaml(tmp_path, f"{STM}    db_path: ${{NOPE}}/x.db\nltm_store:\n  params:\n"
                                  "    root: ${secret:LTM_ROOT}\ncontext_store:\n  params:\n    root: ${vault:x}\n")
    found = problems(path)
    assert "stm_store.params.db_path: environment variable NOPE is not set" in found
    assert "ltm_store.params.root: ${secret:LTM_ROOT} is resolved by Dreamer's secret resolver" in found
    assert "context_store.params.root: ${vault:x}: Dreamer reserves the vault: namespace" in found


def test_a_secret_dreamtui_does_not_read_is_left_to_dreamer(tmp_path: Path) -> None:
    path = dreamer_yaml(tmp_path, f"{STM}    db_path: ./dreamer.db\ndream_engine:\n  class: x.Y\n  params:\n"
                                  "    api_key: ${secret:ANTHROPIC_API_KEY}\n")
    assert load_config(path, environ={}).stm.path == "./dreamer.db"


def test_memory_types_in_every_form_dreamer_accepts(tmp_path: Path) -> None:
    mappings = dreamer_yaml(tmp_path, f"{STM}    memory_types:\n      - name: failure\n        description: x\n"
                                      "      - name: context_confirmed\n        description: y\n"
                                      "        metadata_schema: {type: object, required: [target]}\n")
    config = load_config(mappings, environ={})
    assert config.memory_types == ["failure"]
    assert config.metadata_schemas == {"context_confirmed": {"type": "object", "required": ["target"]}}
    # The top-level list wins over the store's, as in dreamer.server.app; plain names are read too.
    top = dreamer_yaml(tmp_path, f"memory_types:\n  - name: decision\n    description: z\n  - observation\n"
                                 f"{STM}    memory_types: [{{name: failure, description: x}}]\n")
    assert load_config(top, environ={}).memory_types == ["decision", "observation"]


def test_defaults_are_dreamers_where_its_config_leaves_them_out(tmp_path: Path) -> None:
    config = load_config(dreamer_yaml(tmp_path, f"{STM}    memory_types: [observation]\n"
                                                "dream_lease_store:\n  class: x.Y\n"), environ={})
    assert (config.stm.path, config.stm.batch_size, config.stm.lease_minutes) == ("./dreamer.db", 200, 30)


def test_a_lease_store_on_another_file_is_refused(tmp_path: Path) -> None:
    path = dreamer_yaml(tmp_path, f"{STM}    db_path: ./a.db\ndream_lease_store:\n  params:\n    db_path: ./b.db\n")
    assert "dream_lease_store.params.db_path: './b.db' is not the STM database" in problems(path)


def test_metadata_schema_is_enforced_at_intake(tmp_path: Path) -> None:
    path = dreamer_yaml(tmp_path, f"{STM}    memory_types:\n      - name: incident\n        description: x\n"
                                  "        metadata_schema:\n          type: object\n"
                                  "          properties: {severity: {enum: [low, high]}}\n")
    config = load_config(path, environ={})
    memory = NewMemory(type="incident", title="db down", content="failover", agent_id="a",
                       metadata={"severity": "high"})
    assert prepare(memory, config).metadata == {"severity": "high"}
    with pytest.raises(InputError, match=r"metadata\.severity: 'mid' is not one of \['low', 'high'\]"):
        prepare(NewMemory(type="incident", title="db down", content="failover", agent_id="a",
                          metadata={"severity": "mid"}), config)


# Dreamer's README, "Extensions": the variant a person copies from it.
README_VARIANT = """\
stm_store:
  class: dreamer.contrib.stm.sqlite.SQLiteSTMStore
  params:
    path: ./data/stm.db

ltm_store:
  class: dreamer.contrib.ltm.markdown.MarkdownLTMStore
  params:
    root: ./workspace/memory

context_store:
  class: dreamer.contrib.context.markdown.MarkdownContextStore
  params:
    root: ./workspace/context

dream_engine:
  class: dreamer.contrib.dream.claude_agent.ClaudeAgentDreamEngine

triggers:
  - class: dreamer.contrib.triggers.cron.CronTrigger
    params:
      schedule: "0 */6 * * *"
"""


def test_dreamers_readme_variant_opens(tmp_path: Path) -> None:
    config = load_config(dreamer_yaml(tmp_path, README_VARIANT), environ={})
    assert (config.stm.path, config.ltm.root, config.context.root) == \
        ("./data/stm.db", "./workspace/memory", "./workspace/context")
    assert config.memory_types == ["observation", "failure", "code_snippet"]  # none declared: dreamtui's
    assert config.stm.batch_size == 200
