"""The words of the CLI's everyday errors: one line where there is one problem, counts in
words a person reads ("1 bad line"), the file named beside each line number."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dreamtui.cli import main
from dreamtui.errors import ConfigError
from tests.factories import minimal_workspace


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_one_config_problem_is_one_line(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws", "headless:\n  min_hours: lots\n")
    code, output = _run("--workspace", str(ws), "status")
    assert code == 2
    assert output == (f"dreamtui: {ws / 'dreamtui.yaml'}: headless.min_hours: expected a valid number, "
                      "unable to parse string as a number, got 'lots'\n")


def test_config_check_names_the_keys_a_misspelt_one_may_mean(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws", "stm:\n  pathh: x\ndream:\n  anthropic:\n    modell: m\n")
    code, output = _run("--workspace", str(ws), "config", "check")
    assert code == 2
    assert output.startswith(f"2 problems in {ws / 'dreamtui.yaml'}:\n")
    assert "stm.pathh: unknown key (check its spelling; known here: path, tenant_id," in output
    assert "dream.anthropic.modell: unknown key (check its spelling; known here: model, api_key_env," in output
    assert "problem(s)" not in output and "see `dreamtui config check`" not in output


def test_config_check_says_what_an_empty_file_means(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws")
    code, output = _run("--workspace", str(ws), "config", "check")
    assert code == 0
    assert "valid (the file holds nothing: every setting is its default, project.root unset)" in output


def test_submit_jsonl_names_the_file_and_counts_in_words(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws")
    lines = tmp_path / "memories.jsonl"
    good = '{"type": "observation", "title": "t", "content": "c", "idempotency_key": "k"}'
    lines.write_text(f'{good}\n{good}\n{{"type": "observation", "title": "t", "content": "a\tb"}}\n'
                     '{"type": "observation", "title": "t", "content": "c", "colour": 1}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["--workspace", str(ws), "submit", "--jsonl", str(lines)])
    assert result.exit_code == 2
    assert result.stdout == "1 submitted, 1 duplicate, 2 bad lines\n"
    assert f"{lines}, line 3: invalid JSON at column 52: invalid control character" in result.stderr
    assert f"{lines}, line 4: unknown field colour (known: " in result.stderr


def test_a_reader_that_goes_away_is_no_error(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws")
    proc = subprocess.Popen([sys.executable, "-m", "dreamtui", "--workspace", str(ws), "config", "check"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the process starts writing: its first write meets a closed pipe
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert stderr == ""


def test_a_line_cut_short_is_placed_at_its_own_end(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws")
    lines = tmp_path / "cut.jsonl"
    cut = '{"type": "observation", "title": "t", "content": '
    lines.write_text(f"{cut}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--workspace", str(ws), "submit", "--jsonl", str(lines)])
    # json counts the failure past the newline as column 1 of a second line
    assert f"{lines}, line 1: invalid JSON at column {len(cut) + 1}: expecting value" in result.stderr


def test_config_check_names_a_misspelt_engine_and_an_unknown_version(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws", "version: 7\ndream:\n  engine: heurstic\n")
    code, output = _run("--workspace", str(ws), "config", "check")
    assert code == 2
    assert "version: expected 1, got 7" in output
    assert ("dream.engine: 'heurstic' is not a built-in engine (heuristic, anthropic, ollama) nor a "
            "`package.module:ClassName` reference") in output


def test_a_dream_with_an_unknown_engine_says_so_as_an_error(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws")
    result = CliRunner().invoke(main, ["--workspace", str(ws), "dream", "--engine", "nope"])
    assert result.exit_code == 2
    assert result.stderr.startswith("dreamtui: engine 'nope' is not a built-in engine")


def test_the_built_in_engines_are_the_ones_config_accepts() -> None:
    from dreamtui.dream.engines.base import BUILTIN_ENGINES
    from dreamtui.workspace.config import BUILTIN_ENGINE_NAMES

    assert tuple(BUILTIN_ENGINES) == BUILTIN_ENGINE_NAMES


def test_a_key_given_twice_is_named_not_silently_resolved(tmp_path: Path) -> None:
    ws = minimal_workspace(tmp_path / "ws", "headless:\n  min_pending: 1\n  min_pending: 5\n")
    code, output = _run("--workspace", str(ws), "status")
    assert code == 2
    assert output == (f"dreamtui: {ws / 'dreamtui.yaml'}: line 3, column 3: invalid YAML: 'min_pending' is "
                      "given twice in one mapping (lines 2 and 3); keep one\n")


def test_a_merge_key_may_still_be_overridden(tmp_path: Path) -> None:
    from dreamtui.workspace.config import load_config

    ws = minimal_workspace(tmp_path / "ws", "x-defaults: &git\n  author_name: a\ngit:\n  <<: *git\n  author_name: b\n")
    with pytest.raises(ConfigError, match="x-defaults: unknown key"):  # merged, then refused as no section
        load_config(ws / "dreamtui.yaml")
