"""Problem 1 (issue 15): a folder `dreamer init` made opens as a dreamtui workspace, and what
dreamtui reads from its dreamer.yaml is what Dreamer itself does."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.interop.conftest import Dreamer, dreamtui


def test_a_dreamer_init_folder_opens(dreamer: Dreamer, folder: Path) -> None:
    status = dreamtui("--workspace", ".", "status", cwd=folder)
    assert status.returncode == 0, status.stderr
    dreamer.ops("config", "dreamer.yaml", cwd=folder)  # Dreamer loads the same file

    checked = dreamtui("--workspace", ".", "config", "check", cwd=folder)
    assert checked.returncode == 0, checked.stderr
    config = yaml.safe_load(checked.stdout[checked.stdout.index("version:"):])
    written = yaml.safe_load((folder / "dreamer.yaml").read_text(encoding="utf-8"))
    stm = written["stm_store"]["params"]
    assert config["memory_types"] == ["failure", "observation", "code_snippet"]
    assert config["stm"]["batch_size"] == stm["max_batch_size"] == 200
    assert config["stm"]["max_content_bytes"] == stm["max_content_bytes"]
    assert config["stm"]["lease_minutes"] * 60 == written["dream_lease_store"]["params"]["default_ttl_seconds"]
    assert (config["mcp"]["host"], config["mcp"]["port"]) == (written["server"]["host"], written["server"]["port"])
    assert Path(config["stm"]["path"]) == Path("dreamer.db")


def test_metadata_schemas_from_dreamer_yaml_are_enforced(dreamer: Dreamer, folder: Path) -> None:
    """`dreamer init` declares a schema for context_confirmed (target: a slug); a custom type's
    schema is enforced the same way Dreamer's MCP entry point does."""
    config = folder / "dreamer.yaml"
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["stm_store"]["params"]["memory_types"].append(
        {"name": "incident", "description": "An outage.",
         "metadata_schema": {"type": "object", "required": ["severity"],
                             "properties": {"severity": {"enum": ["low", "high"]}}}})
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    dreamer.ops("config", "dreamer.yaml", cwd=folder)

    ok = dreamtui("submit", "--type", "incident", "--title", "db down", "--content", "the primary failed over",
                  "--metadata", json.dumps({"severity": "high"}), cwd=folder)
    assert ok.returncode == 0, ok.stderr
    bad = dreamtui("submit", "--type", "incident", "--title", "db down", "--content", "the primary failed over",
                   "--metadata", json.dumps({"severity": "medium"}), cwd=folder)
    assert bad.returncode == 2
    assert "metadata" in bad.stderr and "severity" in bad.stderr and "Traceback" not in bad.stderr
    missing = dreamtui("submit", "--type", "incident", "--title", "db down", "--content", "x", cwd=folder)
    assert missing.returncode == 2 and "'severity' is a required property" in missing.stderr
    assert dreamer.ops("list", str(folder / "dreamer.db"), cwd=folder).__len__() == 1


def test_interpolated_relative_paths_name_the_file_dreamer_opens(dreamer: Dreamer, folder: Path) -> None:
    """Problem 8: `${VAR:-default}` resolved as Dreamer resolves it, a relative path from the folder
    Dreamer runs in (where its dreamer.yaml is); before, dreamtui made a folder named `${DREAMER_DATA:-.`."""
    config = folder / "dreamer.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("db_path: ./dreamer.db", "db_path: ${DREAMER_DATA:-./data}/dreamer.db"),
                      encoding="utf-8")
    (folder / "data").mkdir()
    done = dreamtui("submit", "--type", "observation", "--title", "shared", "--content", "one file", cwd=folder)
    assert done.returncode == 0, done.stderr
    seen = dreamer.ops("config-list", "dreamer.yaml", cwd=folder)
    assert seen["titles"] == ["shared"] and seen["db_path"] == "./data/dreamer.db"
    assert not [p for p in folder.iterdir() if "$" in p.name]
