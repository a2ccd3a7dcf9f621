"""`--help` lists every command with its whole first sentence, at an 80-column terminal."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from dreamtui.cli import main

GROUPS = ((), ("import",), ("review",), ("entry",), ("flags",), ("token",), ("config",))


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: " ".join(g) or "dreamtui")
def test_no_command_help_is_cut_short(group: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*group, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    commands = result.output.split("Commands:", 1)[1].split("\n\n", 1)[0]
    assert commands.strip()
    assert "..." not in commands, commands
    assert all(len(line) <= 80 for line in commands.splitlines())


def test_decide_help_names_every_decision() -> None:
    from dreamtui.cli.dream_cmds import EDIT
    from dreamtui.model import DECISIONS

    result = CliRunner().invoke(main, ["decide", "--help"], terminal_width=80)
    assert "decide [OPTIONS] DREAM [N|P]... [DECISION]" in result.output
    listed = result.output.split("DECISION is ", 1)[1].split(".", 1)[0]
    assert listed.replace(" or ", ", ").split(", ") == [*DECISIONS, EDIT]


def test_dream_help_names_every_headless_gate() -> None:
    from dreamtui.workspace.config import HeadlessConfig

    result = CliRunner().invoke(main, ["dream", "--help"], terminal_width=80)
    text = " ".join(result.output.split())
    gates = [name for name in HeadlessConfig.model_fields if name != "auto_apply"]
    assert all(f"headless.{gate}" in text for gate in gates), gates
