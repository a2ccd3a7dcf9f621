"""`dreamtui flags correct FLAG [--file F]` (issue 14, item 3), through the real CLI on the seeded
sample workspace."""

from __future__ import annotations

import git
from click.testing import CliRunner

from dreamtui.cli.main import main
from dreamtui.workspace.layout import Workspace

from .test_cli_flags import flag_ids, last_log, run, workspace  # noqa: F401  (the fixture)


def test_correct_from_a_file_commits_the_entry_and_consumes_its_flags(workspace: Workspace, tmp_path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    entry = workspace.memory_root / "topics/ci-ports.md"
    flags = flag_ids(workspace, "ci-ports")
    corrected = tmp_path / "ci-ports.md"
    corrected.write_text(entry.read_text().replace("listens on 5432", "listens on 5433"))
    result = run(workspace, "correct", flags[0][:8], "--file", str(corrected))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"corrected ci-ports (flag {flags[0][:8]}…): ")
    assert "listens on 5433" in entry.read_text()
    assert flag_ids(workspace, "ci-ports") == []  # both flags on it are settled
    assert last_log(workspace).split()[2:4] == ["correct", "topics/ci-ports.md"]
    assert git.Repo(workspace.root).head.commit.message.startswith("dreamtui: correct topics/ci-ports.md")
    undone = run(workspace, "undo")
    assert undone.exit_code == 0 and "listens on 5432" in entry.read_text()
    assert last_log(workspace).split()[2:4] == ["undo", "correct"]


def test_correct_in_the_editor_sees_the_flags_and_an_unchanged_entry_exits_2(workspace: Workspace) -> None:  # noqa: F811
    entry = workspace.memory_root / "topics/ci-ports.md"
    before = entry.read_text()
    flag = flag_ids(workspace, "ci-ports")[0]
    args = ["-w", str(workspace.root), "flags", "correct", flag]
    # The "editor" keeps a copy of what it was shown, then fixes the port.
    shown = workspace.root.parent / "shown.md"
    editor = workspace.root.parent / "editor.sh"
    editor.write_text(f'#!/bin/sh\ncp -- "$1" "{shown}"\nsed -i "s/listens on 5432/listens on 5433/" "$1"\n')
    editor.chmod(0o755)
    result = CliRunner().invoke(main, args, env={"VISUAL": "", "EDITOR": str(editor)})
    assert result.exit_code == 0, result.output
    assert shown.read_text().startswith("<!-- dreamtui: correct the entry below")
    assert 'quoted: "listens on 5432 and Redis on 6379"' in shown.read_text().split("-->")[0]
    assert entry.read_text() == before.replace("listens on 5432", "listens on 5433")  # notes removed

    run(workspace, "undo")
    untouched = CliRunner().invoke(main, args, env={"VISUAL": "", "EDITOR": "true"})
    assert untouched.exit_code == 2
    assert "unchanged, nothing corrected" in untouched.output
    assert entry.read_text() == before
