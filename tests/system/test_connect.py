"""`dreamtui connect` / `disconnect` through the CLI, on a workspace beside a toy project, with
HOME and CODEX_HOME in tmp_path (never the real ~): merges keep every other byte, a second run
changes nothing, --dry-run writes nothing, disconnect restores files byte for byte, and a file
that is not valid JSON/TOML is refused with its line, untouched."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from dreamtui.cli.main import main
from dreamtui.scaffold import init_workspace
from dreamtui.store import tokens
from dreamtui.workspace.layout import open_workspace

SETTINGS = """{
  "permissions": {"allow": ["Bash(ls)", "Bash(make test)"]},
  "model": "opus",
  "hooks": {
    "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "ruff format"}]}]
  }
}
"""
MCP_JSON = """{
    "mcpServers": {
        "github": {"command": "gh-mcp", "args": ["--read-only"], "env": {"GH_HOST": "github.com"}}
    }
}"""  # four-space indent, no final newline: both must survive
CODEX = """# Codex settings, kept by hand
model = "o4-mini"   # fast enough
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-mcp"  # the docs server
args = ["--port", "9000"]

[profiles.fast]
model = "o4-mini"
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / "codex-home"))
    monkeypatch.delenv("DREAMTUI_WORKSPACE", raising=False)
    return home


@pytest.fixture
def layout(tmp_path: Path, home: Path) -> tuple[Path, Path]:
    """~/notes/x (the workspace) beside ~/code/x (the project)."""
    project = home / "code" / "x"
    project.mkdir(parents=True)
    workspace = init_workspace(home / "notes" / "x", git=False)
    return workspace.root, project


def run(ws: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["-w", str(ws), *args])


def files(*paths: Path) -> dict[Path, bytes | None]:
    return {p: p.read_bytes() if p.exists() else None for p in paths}


def test_claude_code_merges_is_idempotent_and_disconnects_byte_for_byte(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(SETTINGS, encoding="utf-8")
    (project / ".mcp.json").write_text(MCP_JSON, encoding="utf-8")
    watched = [project / ".mcp.json", project / ".claude" / "settings.json", ws / "dreamtui.yaml"]
    before = files(*watched)

    preview = run(ws, "connect", "claude-code", "--project", str(project), "--dry-run")
    assert preview.exit_code == 0, preview.output
    assert "+++ " + str(project / ".mcp.json") in preview.output and "dry run: nothing was written" in preview.output
    assert files(*watched) == before and not (ws / ".dreamtui" / "connections.json").exists()

    done = run(ws, "connect", "claude-code", "--project", str(project))
    assert done.exit_code == 0, done.output
    assert f"connected claude-code to {project}" in done.output
    servers = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["github"] == {"command": "gh-mcp", "args": ["--read-only"], "env": {"GH_HOST": "github.com"}}
    assert servers["dreamtui"]["type"] == "stdio"
    assert servers["dreamtui"]["args"][-5:] == ["--workspace", str(ws), "mcp", "--agent", "claude-code"]
    mcp_text = (project / ".mcp.json").read_text(encoding="utf-8")
    # Every byte of the person's text stays; the new member follows their four-space style.
    assert mcp_text.startswith(MCP_JSON[:MCP_JSON.rindex('"env"')])
    assert '\n        "dreamtui": {\n            "type": "stdio",' in mcp_text and not mcp_text.endswith("\n")
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert settings["permissions"] == {"allow": ["Bash(ls)", "Bash(make test)"]} and settings["model"] == "opus"
    assert settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "ruff format"
    hook = settings["hooks"]["SessionStart"][0]["hooks"][0]
    assert hook["type"] == "command" and hook["command"].endswith(f"--workspace {ws} status --hook")
    assert settings["enabledMcpjsonServers"] == ["dreamtui"]
    assert '"permissions": {"allow": ["Bash(ls)", "Bash(make test)"]},' in \
        (project / ".claude" / "settings.json").read_text(encoding="utf-8")  # inline stays inline
    config = yaml.safe_load((ws / "dreamtui.yaml").read_text(encoding="utf-8"))
    assert config["project"]["root"] == "../../code/x"
    assert open_workspace(ws).project_root.resolve() == project  # type: ignore[union-attr]
    assert "# dreamtui workspace configuration" in (ws / "dreamtui.yaml").read_text(encoding="utf-8")

    connected = files(*watched)
    again = run(ws, "connect", "claude-code")  # the project now comes from project.root
    assert again.exit_code == 0 and "nothing to change" in again.output
    assert files(*watched) == connected

    record = (ws / ".dreamtui" / "connections.json").read_bytes()
    preview_undo = run(ws, "disconnect", "--dry-run")
    assert preview_undo.exit_code == 0 and "--- " + str(project / ".mcp.json") in preview_undo.output
    assert files(*watched) == connected and (ws / ".dreamtui" / "connections.json").read_bytes() == record

    gone = run(ws, "disconnect")
    assert gone.exit_code == 0, gone.output
    assert files(*watched) == before
    assert not (ws / ".dreamtui" / "connections.json").exists()
    assert "nothing to disconnect" in run(ws, "disconnect").output


def test_connect_creates_files_and_disconnect_removes_them_with_their_folder(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    assert run(ws, "connect", "claude-code", "--project", str(project)).exit_code == 0
    assert (project / ".mcp.json").is_file() and (project / ".claude" / "settings.json").is_file()
    assert json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["dreamtui"]
    assert run(ws, "disconnect", "claude-code").exit_code == 0
    assert sorted(p.name for p in project.iterdir()) == []  # .claude was connect's: gone too


def test_a_file_changed_after_connect_loses_only_dreamtuis_entries(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    (project / ".mcp.json").write_text(MCP_JSON, encoding="utf-8")
    assert run(ws, "connect", "claude-code", "--project", str(project)).exit_code == 0
    data = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    data["mcpServers"]["later"] = {"command": "added-by-hand"}
    (project / ".mcp.json").write_text(json.dumps(data, indent=4), encoding="utf-8")
    settings = project / ".claude" / "settings.json"
    settings.write_text(settings.read_text(encoding="utf-8").replace("{\n", '{\n  "theme": "dark",\n', 1),
                        encoding="utf-8")

    assert run(ws, "disconnect").exit_code == 0
    left = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert set(left["mcpServers"]) == {"github", "later"}
    assert settings.read_text(encoding="utf-8") == '{\n  "theme": "dark"\n}\n'  # nothing of dreamtui's left


def test_an_existing_dreamtui_entry_is_replaced_and_given_back(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    old = '{"mcpServers": {"dreamtui": {"command": "dreamtui", "args": ["--workspace", "/old", "mcp"]}}}\n'
    (project / ".mcp.json").write_text(old, encoding="utf-8")
    done = run(ws, "connect", "claude-code", "--project", str(project))
    assert done.exit_code == 0 and "replaced the mcpServers.dreamtui that was there" in done.output
    assert json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["dreamtui"]["args"][-1] \
        == "claude-code"
    assert run(ws, "disconnect").exit_code == 0
    assert (project / ".mcp.json").read_text(encoding="utf-8") == old


def test_codex_keeps_comments_and_an_http_token_is_created_and_revoked(layout: tuple[Path, Path], home: Path) -> None:
    ws, project = layout
    config = home / "codex-home" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX, encoding="utf-8")
    done = run(ws, "connect", "codex", "--project", str(project), "--http", "http://127.0.0.1:8765")
    assert done.exit_code == 0, done.output
    text = config.read_text(encoding="utf-8")
    block = '[mcp_servers.dreamtui]\nurl = "http://127.0.0.1:8765/mcp"\nbearer_token_env_var = "DREAMTUI_TOKEN"\n\n'
    assert block in text and text.replace(block, "") == CODEX  # every comment and table as written
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["dreamtui"] == {"url": "http://127.0.0.1:8765/mcp",
                                                 "bearer_token_env_var": "DREAMTUI_TOKEN"}
    assert parsed["mcp_servers"]["docs"]["args"] == ["--port", "9000"]
    token = next(line.split("=", 1)[1] for line in done.stdout.splitlines() if line.startswith("export "))
    assert token not in text  # the secret never lands in a file
    workspace = open_workspace(ws)
    assert tokens.verify(workspace.stm_path, token) == "codex-x"
    assert "nothing to change" in run(ws, "connect", "codex", "--http", "http://127.0.0.1:8765").output
    assert not (home / ".codex").exists()  # $CODEX_HOME, not ~/.codex

    assert run(ws, "disconnect", "codex").exit_code == 0
    assert config.read_text(encoding="utf-8") == CODEX
    assert tokens.verify(workspace.stm_path, token) is None


def test_codex_stdio_into_a_new_config(layout: tuple[Path, Path], home: Path) -> None:
    ws, project = layout
    assert run(ws, "connect", "codex", "--project", str(project)).exit_code == 0
    server = tomllib.loads((home / "codex-home" / "config.toml").read_text(encoding="utf-8"))["mcp_servers"]["dreamtui"]
    assert server["args"][-5:] == ["--workspace", str(ws), "mcp", "--agent", "codex"]
    assert run(ws, "disconnect").exit_code == 0
    assert not (home / "codex-home").exists()


def test_two_agents_share_project_root_until_the_last_disconnects(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    before = (ws / "dreamtui.yaml").read_bytes()
    assert run(ws, "connect", "claude-code", "--project", str(project)).exit_code == 0
    assert run(ws, "connect", "codex").exit_code == 0
    assert "project.root kept" in run(ws, "disconnect", "claude-code").output
    assert open_workspace(ws).project_root is not None
    assert run(ws, "disconnect", "codex").exit_code == 0
    assert (ws / "dreamtui.yaml").read_bytes() == before


@pytest.mark.parametrize(("name", "text", "line"), [
    (".mcp.json", '{\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n', 4),  # a trailing comma
    (".mcp.json", "[1, 2]\n", None),
    (".claude/settings.json", '{\n  "hooks": []\n}\n', None),  # hooks must be an object
])
def test_a_file_that_is_not_what_connect_expects_is_refused_untouched(
        layout: tuple[Path, Path], name: str, text: str, line: int | None) -> None:
    ws, project = layout
    target = project / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    result = run(ws, "connect", "claude-code", "--project", str(project))
    assert result.exit_code == 2
    message = result.output.strip()
    assert message.count("\n") == 0 and str(target) in message and "nothing was changed" in message
    if line is not None:
        assert f"{target}:{line}:" in message
    assert target.read_text(encoding="utf-8") == text
    assert not (project / ".mcp.json").exists() or name == ".mcp.json"
    assert not (ws / ".dreamtui" / "connections.json").exists()


def test_malformed_codex_toml_is_refused_with_its_line(layout: tuple[Path, Path], home: Path) -> None:
    ws, project = layout
    config = home / "codex-home" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"\n[mcp_servers\n', encoding="utf-8")
    result = run(ws, "connect", "codex", "--project", str(project))
    assert result.exit_code == 2 and f"{config}:2: not valid TOML" in result.output
    assert config.read_text(encoding="utf-8") == 'model = "o3"\n[mcp_servers\n'


def test_connect_needs_a_project_and_a_valid_url(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    missing = run(ws, "connect", "claude-code")
    assert missing.exit_code == 2 and "--project PATH" in missing.output
    bad = run(ws, "connect", "claude-code", "--project", str(project), "--http", "ftp://x")
    assert bad.exit_code == 2 and "--http" in bad.output
    assert run(ws, "connect", "claude-code", "--project", str(project), "--no-token").exit_code == 2
    remote = run(ws, "connect", "codex", "--project", str(project), "--http", "http://devbox.lan:8765/mcp",
                 "--no-token")
    assert remote.exit_code == 0 and "no token created" in remote.output and "export" not in remote.output
    assert tokens.list_tokens(open_workspace(ws).stm_path) == []
    nowhere = run(ws, "connect", "claude-code", "--project", str(project / "nope"))
    assert nowhere.exit_code == 2 and "not a folder" in nowhere.output


def test_init_with_a_project_keeps_it_relative_and_imports_default_to_it(tmp_path: Path, home: Path) -> None:
    from dreamtui.intake.claude_code.discovery import default_project

    project = home / "code" / "x"
    project.mkdir(parents=True)
    result = CliRunner().invoke(main, ["init", str(home / "notes" / "x"), "--project", str(project), "--no-git"])
    assert result.exit_code == 0, result.output
    assert f"project {project} (project.root: ../../code/x)" in result.output
    assert "connect claude-code" in result.output
    text = (home / "notes" / "x" / "dreamtui.yaml").read_text(encoding="utf-8")
    assert '  root: "../../code/x"     # its folder' in text  # the template's comment stays, aligned
    workspace = open_workspace(home / "notes" / "x")
    assert workspace.project_root is not None and workspace.project_root.resolve() == project
    assert default_project(workspace) == str(project)  # not the workspace folder any more
    # connect finds project.root as it is and has nothing to add to dreamtui.yaml
    connected = run(workspace.root, "connect", "claude-code")
    assert connected.exit_code == 0 and "dreamtui.yaml" not in connected.output

    far = tmp_path / "elsewhere"  # no common folder two levels below /: absolute
    far.mkdir()
    assert CliRunner().invoke(main, ["init", str(tmp_path / "ws2"), "--project", "/", "--no-git"]).exit_code == 0
    assert open_workspace(tmp_path / "ws2").config.project.root == "/"
    missing = CliRunner().invoke(main, ["init", str(tmp_path / "ws3"), "--project", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "not a folder" in missing.output and not (tmp_path / "ws3").exists()


def test_a_workspace_without_project_root_imports_its_own_folder(tmp_path: Path) -> None:
    from dreamtui.intake.claude_code.discovery import default_project

    workspace = init_workspace(tmp_path / "ws", git=False)
    assert default_project(workspace) == str(workspace.root)


def test_a_toy_project_from_init_to_disconnect_keeps_every_hand_written_byte(home: Path) -> None:
    """The issue's run: init --project, connect, memories, a dream, a commit, disconnect."""
    project = home / "code" / "x"
    project.mkdir(parents=True)
    claude_md = "# My project\n\nHand-written rule: use pnpm, never npm.\n"  # untracked
    agents_md = "# Agents\n\nRun `make test` before pushing.\n"
    (project / "CLAUDE.md").write_text(claude_md, encoding="utf-8")
    (project / "AGENTS.md").write_text(agents_md, encoding="utf-8")
    ws = home / "notes" / "x"
    assert CliRunner().invoke(main, ["init", str(ws), "--project", str(project), "--no-git"]).exit_code == 0
    assert run(ws, "connect", "claude-code").exit_code == 0
    for n in range(6):
        assert run(ws, "submit", "--type", "failure", "--title", f"CI Postgres listens on 5433 ({n})",
                   "--content", "Connection refused on 5432 in CI; the workflow maps Postgres to 5433",
                   "--tags", "ci", "--agent", f"agent-{n}").exit_code == 0
    dreamed = run(ws, "--headless", "dream")
    assert dreamed.exit_code == 0, dreamed.output
    dream_id = next(p.stem for p in (ws / ".dreamtui" / "dreams").glob("d-*.json"))
    assert run(ws, "decide", dream_id, "--all", "accept").exit_code == 0
    bundle = re.findall(r"p-bundle-\S+", run(ws, "review", "show", dream_id).output)[0]
    assert run(ws, "decide", dream_id, bundle, "accept").exit_code == 0
    committed = run(ws, "commit", dream_id)
    assert committed.exit_code == 0, committed.output

    agents_after = (project / "AGENTS.md").read_text(encoding="utf-8")
    claude_after = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert agents_after.startswith(agents_md) and "<!-- dreamtui:begin" in agents_after
    assert open_workspace(ws).agents_md.read_text(encoding="utf-8") in agents_after  # the bundle itself
    assert claude_after.startswith(claude_md)
    imported = next(line for line in claude_after.splitlines() if line.startswith("@"))
    assert (project / imported[1:]).resolve() == (project / "AGENTS.md").resolve()  # resolves from the project

    gone = run(ws, "disconnect")
    assert gone.exit_code == 0, gone.output
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == agents_md
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == claude_md
    assert sorted(p.name for p in project.iterdir()) == ["AGENTS.md", "CLAUDE.md"]
    assert "project.root stays" in gone.output


def test_the_written_hook_runs_from_the_project_and_says_what_waits(layout: tuple[Path, Path]) -> None:
    import os
    import subprocess

    ws, project = layout
    assert run(ws, "connect", "claude-code", "--project", str(project)).exit_code == 0
    assert run(ws, "submit", "--type", "observation", "--title", "Use uv sync",
               "--content", "uv sync, not pip install").exit_code == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    # As Claude Code runs it: through a shell, in the project, which holds no workspace.
    env = {k: v for k, v in os.environ.items() if k != "DREAMTUI_WORKSPACE"}
    done = subprocess.run(command, shell=True, cwd=project, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"dreamtui: 1 memory pending — run `dreamtui -w {ws}`"


@pytest.mark.parametrize("text", [
    'mcp_servers = { docs = { command = "docs-mcp" } }  # inline, kept inline\n',
    'mcp_servers.docs.command = "docs-mcp"\n',
    '[mcp_servers]\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
    "",
])
def test_codex_configs_written_every_way_take_the_server_and_give_it_back(
        layout: tuple[Path, Path], home: Path, text: str) -> None:
    ws, project = layout
    config = home / "codex-home" / "config.toml"
    config.parent.mkdir()
    config.write_text(text, encoding="utf-8")
    assert run(ws, "connect", "codex", "--project", str(project)).exit_code == 0
    servers = tomllib.loads(config.read_text(encoding="utf-8"))["mcp_servers"]
    assert servers["dreamtui"]["args"][-1] == "codex" and servers.get("docs", {"command": "docs-mcp"}) == \
        {"command": "docs-mcp"}
    assert run(ws, "disconnect").exit_code == 0
    assert config.read_text(encoding="utf-8") == text


def test_an_array_of_mcp_servers_tables_is_refused(layout: tuple[Path, Path], home: Path) -> None:
    ws, project = layout
    config = home / "codex-home" / "config.toml"
    config.parent.mkdir()
    config.write_text("[[mcp_servers]]\nname = \"x\"\n", encoding="utf-8")
    result = run(ws, "connect", "codex", "--project", str(project))
    assert result.exit_code == 2 and "mcp_servers is not a TOML table" in result.output


def test_a_file_deleted_by_hand_and_connected_again_is_still_connects_to_remove(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    assert run(ws, "connect", "claude-code", "--project", str(project)).exit_code == 0
    (project / ".mcp.json").unlink()
    again = run(ws, "connect", "claude-code")
    assert again.exit_code == 0 and "created" in again.output
    assert run(ws, "disconnect").exit_code == 0
    assert sorted(p.name for p in project.iterdir()) == []


def test_a_file_edited_between_two_connects_keeps_the_edit_at_disconnect(layout: tuple[Path, Path]) -> None:
    ws, project = layout
    (project / ".mcp.json").write_text(MCP_JSON, encoding="utf-8")
    assert run(ws, "connect", "claude-code", "--project", str(project)).exit_code == 0
    edited = (project / ".mcp.json").read_text(encoding="utf-8").replace('"--read-only"', '"--read-write"')
    (project / ".mcp.json").write_text(edited, encoding="utf-8")
    assert run(ws, "connect", "claude-code", "--project", str(project), "--http", "http://127.0.0.1:1/mcp",
               "--no-token").exit_code == 0  # changes connect's own entry in the edited file
    assert run(ws, "disconnect").exit_code == 0
    assert (project / ".mcp.json").read_text(encoding="utf-8") == MCP_JSON.replace('"--read-only"', '"--read-write"')


def test_the_record_holds_no_copy_of_a_persons_config(layout: tuple[Path, Path], home: Path) -> None:
    ws, project = layout
    secret = "sk-live-0123456789abcdef"
    servers = {"mcpServers": {"billing": {"command": "b", "env": {"API_KEY": secret}}}}
    (project / ".mcp.json").write_text(json.dumps(servers) + "\n", encoding="utf-8")
    config = home / "codex-home" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[mcp_servers.billing]\ncommand = "b"\nenv = {{ API_KEY = "{secret}" }}\n', encoding="utf-8")
    before = files(project / ".mcp.json", config)
    assert run(ws, "connect", "claude-code", "--project", str(project)).exit_code == 0
    assert run(ws, "connect", "codex").exit_code == 0
    record = (ws / ".dreamtui" / "connections.json").read_text(encoding="utf-8")
    assert secret not in record and "billing" not in record
    assert ((ws / ".dreamtui" / "connections.json").stat().st_mode & 0o077) == 0  # private all the same
    assert run(ws, "disconnect").exit_code == 0
    assert files(project / ".mcp.json", config) == before
