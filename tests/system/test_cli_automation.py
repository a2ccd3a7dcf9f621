"""Automation that tells the truth, through the real CLI: a fallback dream says so everywhere,
flags start the nightly dream, no hang without a terminal, one line for a busy port or a failed
dream, `config check` validates the keymap, and the demo tidies its temporary copies."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import git
import pytest
from click.testing import CliRunner, Result

from dreamtui.cli import main
from dreamtui.model import NewMemory
from dreamtui.scaffold import DEMO_MARKER
from dreamtui.tui.keymap import REGISTRY
from dreamtui.workspace.layout import Workspace
from tests.factories import entry_text, new_memory, new_workspace, submit, write_entry
from tests.llm_servers import free_port_url

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "src" / "dreamtui" / "workspace" / "templates" / "dreamtui.yaml"
TIMEOUT = 60
KEY = {"ANTHROPIC_API_KEY": "sk-ant-test-0000", "ANTHROPIC_BASE_URL": None}


def run(ws: Workspace, *args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(main, ["--workspace", str(ws.root), *args], env=env, catch_exceptions=False)


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None, stdin: int | None = subprocess.DEVNULL,
        timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """`python -m dreamtui …` as cron would run it: no terminal on stdin or stdout."""
    full = {**os.environ, **(env or {})}
    full.pop("DREAMTUI_WORKSPACE", None)
    return subprocess.run([sys.executable, "-m", "dreamtui", *args], cwd=cwd, env=full, stdin=stdin,
                          capture_output=True, text=True, timeout=timeout)


def anthropic_workspace(root: Path, *, fallback: bool) -> Workspace:
    """A workspace whose model is unreachable (nothing listens at its base_url), one lesson pending."""
    workspace = new_workspace(root, git_repo=True, dream__engine="anthropic",
                              dream__fallback_to_heuristic=fallback,
                              dream__anthropic={"base_url": free_port_url(), "max_retries": 0,
                                                "model": "claude-test", "timeout_s": 5})
    submit(workspace, new_memory("CI Postgres listens on 5433", type="failure",
                                 content="the CI service maps Postgres to port 5433, not 5432"))
    return workspace


# -- 6. a fallback dream is labelled as the heuristic engine's, with the reason ----------------------


@pytest.mark.slow
def test_a_fallback_dream_is_shown_as_the_heuristic_engines_everywhere(tmp_path: Path) -> None:
    ws = anthropic_workspace(tmp_path / "ws", fallback=True)
    dreamed = run(ws, "--headless", "dream", "--force", "--json", env=KEY)
    assert dreamed.exit_code == 0, dreamed.output
    summary = json.loads(dreamed.stdout)
    dream_id = summary["dream_id"]
    assert summary["engine"] == "heuristic"
    assert summary["fallback"]["from"] == "anthropic"
    assert summary["fallback"]["reason"].startswith("cannot connect to http://127.0.0.1:")
    label = "heuristic (fallback: anthropic unreachable: cannot connect to http://127.0.0.1:"
    # Warned on stderr even with --json, and in the log.
    assert f"WARNING dream {dream_id} was made by {label}" in dreamed.stderr
    assert f"WARNING dream {dream_id} was made by {label}" in (ws.log_dir / "dreamtui.log").read_text()
    record = json.loads((ws.dreams_dir / f"{dream_id}.json").read_text())
    assert record["engine"] == "heuristic" and record["stats"]["fallback"] == summary["fallback"]

    listed = run(ws, "review", "list")
    assert f"{dream_id}  " in listed.stdout and label in listed.stdout
    assert json.loads(run(ws, "review", "list", "--json").stdout)[0]["fallback"]["from"] == "anthropic"
    assert run(ws, "review", "show", dream_id).stdout.startswith(f"{dream_id} · {label}")
    hook = run(ws, "status", "--hook").stdout
    assert f"the last dream, {dream_id}, was made by heuristic (fallback: anthropic unreachable)" in hook

    assert run(ws, "decide", dream_id, "--all", "accept").exit_code == 0
    committed = run(ws, "commit", dream_id)
    assert committed.exit_code == 0, committed.output
    trailer = git.Repo(ws.root).head.commit.message.strip().splitlines()[-1]
    assert trailer.startswith(f"Engine: {label}")


def test_a_record_written_before_the_fallback_was_kept_at_the_top_is_read_as_one(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws")
    ws.dreams_dir.mkdir(parents=True)
    # What earlier versions wrote: the model's name on top, the fallback only in the engine's stats.
    old = {"id": "d-20261129-030012-ab12", "engine": "ollama", "created_at": "2026-11-29T03:00:12Z",
           "status": "open", "complete": True, "batch": [], "proposals": [], "refused": [],
           "stats": {"engine": {"fallback": "heuristic",
                                "fallback_reason": "ollama: cannot connect to http://127.0.0.1:11434"}}}
    (ws.dreams_dir / f"{old['id']}.json").write_text(json.dumps(old))
    listed = run(ws, "review", "list")
    assert "heuristic (fallback: ollama unreachable: cannot connect to http://127.0.0.1:11434)" in listed.stdout
    bad = {**old, "stats": {"fallback": "anthropic"}}
    (ws.dreams_dir / f"{old['id']}.json").write_text(json.dumps(bad))
    shown = run(ws, "review", "show", old["id"])
    assert shown.exit_code == 2 and 'stats.fallback must be {"from": engine, "reason": text}' in shown.output


# -- 7. flags against live entries start the nightly dream ------------------------------------------


def flagged_workspace(root: Path, **settings: object) -> Workspace:
    ws = new_workspace(root, **settings)
    write_entry(ws.memory_root, "topics/ci-ports.md",
                entry_text("ci-ports", "CI service ports", "CI runs Postgres on port 5432."))
    return ws


def flag(slug: str) -> NewMemory:
    return NewMemory(type="context_flagged", title="wrong port", content="CI uses 5433 now",
                     agent_id="agent-a", metadata={"targets": [slug], "quote": "port 5432"})


def test_one_flag_against_a_live_entry_starts_the_nightly_dream(tmp_path: Path) -> None:
    ws = flagged_workspace(tmp_path / "ws")
    submit(ws, flag("ci-ports"))
    result = run(ws, "--headless", "dream", "--json")
    summary = json.loads(result.stdout)
    assert result.exit_code == 0 and summary["dream_id"], result.output
    # The flagged guidance is up for review tonight (weaken or archive: the policy's call).
    assert set(summary["proposals"]) - {"context"} in ({"weaken"}, {"archive"})


def test_confirmations_or_flags_on_no_live_entry_never_start_it(tmp_path: Path) -> None:
    ws = flagged_workspace(tmp_path / "ws")
    confirmation = NewMemory(type="context_confirmed", title="helped", content="ports were right",
                             agent_id="agent-a", metadata={"target": "ci-ports"})
    submit(ws, confirmation, flag("no-such-entry"))
    result = run(ws, "--headless", "dream")
    assert result.exit_code == 0
    assert result.stdout.strip() == ("skipped: 0 pending memories, feedback not counted "
                                     "(headless.min_pending: 5); 0 of 1 pending flag against a live "
                                     "entry (headless.min_flags: 1)")


def test_min_flags_zero_leaves_flags_to_wait_for_lessons(tmp_path: Path) -> None:
    ws = flagged_workspace(tmp_path / "ws", headless__min_flags=0)
    submit(ws, flag("ci-ports"))
    result = run(ws, "--headless", "dream")
    assert result.exit_code == 0 and result.stdout.startswith("skipped: 0 pending memories")
    assert result.stdout.strip().endswith("; 1 pending flag (headless.min_flags: 0)")


# -- 8. exit codes and terminals -------------------------------------------------------------------


def test_without_a_terminal_the_workbench_is_refused_not_hung(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws")
    for args in ((), ("demo", "--into", str(tmp_path / "demo"))):
        result = cli("--workspace", str(ws.root), *args, cwd=tmp_path, timeout=30)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.startswith("dreamtui: no terminal: use --headless, e.g. `dreamtui --headless ")
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "demo").exists()  # no copy made for nobody to see


def test_the_headless_demo_prints_its_review(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--headless", "demo", "--into", str(tmp_path / "demo")],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "proposals; " in result.output and "\n[1] " in result.output  # the review, numbered


def test_a_failed_dream_says_why_once(tmp_path: Path) -> None:
    ws = anthropic_workspace(tmp_path / "ws", fallback=False)
    result = run(ws, "dream", env=KEY)
    assert result.exit_code == 1
    said = result.stdout + result.stderr
    assert said.count("cannot connect to http://127.0.0.1:") == 1, said
    assert result.stdout == "" and "anthropic: cannot connect" in result.stderr
    assert "ERROR anthropic: cannot connect" in (ws.log_dir / "dreamtui.log").read_text()


@pytest.mark.slow
def test_mcp_http_on_a_busy_port_is_one_line_and_exit_one(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = cli("--workspace", str(ws.root), "mcp", "--http", "--port", str(port), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [
        f"dreamtui: cannot listen on http://127.0.0.1:{port}: address already in use; is another "
        "server on it? choose another with --port or mcp.port"]


def test_config_check_names_unknown_and_clashing_keymap_entries(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws", ui__keymap={"accept": "y", "dream.accept": "n", "queue.filter": "f"})
    result = run(ws, "config", "check")
    assert result.exit_code == 2
    problems = [line for line in result.stderr.splitlines() if "ui.keymap" in line]
    assert problems == [
        f"{ws.config_path}: ui.keymap.accept: no such binding (did you mean dream.accept? known ids: "
        "see `?` in the app)",
        f"{ws.config_path}: ui.keymap.dream.accept: 'n' is also dream.reject in the Dream view "
        "(one of them would never run)"]
    fine = new_workspace(tmp_path / "fine", ui__keymap={"dream.accept": "n", "dream.reject": "y"})
    assert run(fine, "config", "check").exit_code == 0  # a swap is no clash


@pytest.mark.slow
def test_config_check_reads_the_keymap_without_loading_textual(tmp_path: Path) -> None:
    ws = new_workspace(tmp_path / "ws", ui__keymap={"dream.accept": "enter"})
    probe = ("import sys\nfrom dreamtui.cli.main import main\n"
             f"sys.argv = ['dreamtui', '--workspace', {str(ws.root)!r}, 'config', 'check']\n"
             "try:\n    main()\nexcept SystemExit as done:\n    code = done.code\n"
             "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.stdout.splitlines()[-1] == "0 []", result.stderr


def test_the_keymap_examples_name_real_bindings() -> None:
    for config in (TEMPLATE, REPO / "sample_workspace" / "dreamtui.yaml"):
        example = re.search(r"keymap: \{\}.*e\.g\. \{([^:}]+):", config.read_text())
        assert example is not None and example.group(1) in REGISTRY, config


# -- 9. installing, and the demo's temporary copies --------------------------------------------------


@pytest.mark.slow
def test_demo_removes_its_own_copies_unused_for_a_day(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    day_ago = time.time() - 25 * 3600

    def copy(name: str, *, marked: bool, when: float) -> Path:
        folder = temp / name
        (folder / ".dreamtui").mkdir(parents=True)
        (folder / "stm.db").write_text("")
        if marked:
            (folder / DEMO_MARKER).write_text("")
        for path in (*folder.rglob("*"), folder):
            os.utime(path, (when, when))
        return folder

    old = copy("dreamtui-demo-old1", marked=True, when=day_ago)
    recent = copy("dreamtui-demo-new1", marked=True, when=time.time() - 3600)
    foreign = copy("dreamtui-demo-mine", marked=False, when=day_ago)  # not one dreamtui made
    result = cli("demo", "--no-open", cwd=tmp_path, env={"TMPDIR": str(temp)})
    assert result.returncode == 0, result.stderr
    assert not old.exists() and recent.exists() and foreign.exists()
    lines = result.stdout.splitlines()
    assert lines[0] == f"removed 1 demo copy unused for a day from {temp}"
    made = Path(next(line for line in lines if line.startswith("demo workspace: ")).split(": ", 1)[1])
    assert made.parent == temp and (made / DEMO_MARKER).is_file()
    assert "a later `dreamtui demo` removes it once unused for a day; --into DIR keeps one" in result.stdout
    assert "demo-copy" not in git.Repo(made).git.ls_files()  # the marker stays out of the demo's git


def test_the_readme_says_how_to_put_dreamtui_on_path() -> None:
    readme = (REPO / "README.md").read_text()
    assert "pipx install ." in readme and "uv tool install ." in readme
    assert "headless.min_flags" in readme
