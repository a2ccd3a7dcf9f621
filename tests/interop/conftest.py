"""The interop suite: dreamtui beside the real Dreamer server (`dreamer-server` 0.2.0 from PyPI).

Not part of the main run (pyproject's `norecursedirs` leaves tests/interop out); run it with
`.venv/bin/python -m pytest tests/interop` (CI runs it as its own step of .ci/run).

Dreamer needs Python 3.12 and `mcp==1.27.0`; dreamtui needs `mcp>=2.3`, so the two cannot share
a virtualenv. Dreamer gets its own, built here once per machine (DREAMTUI_INTEROP_VENV, default
~/.cache/dreamtui/interop/dreamer-server-0.2.0; rebuilt when REQUIREMENTS change), and the tests,
running in dreamtui's virtualenv, drive it as subprocesses: its CLI (`dreamer init`, `dreamer
dream`) and the scripts in tests/interop/dreamer_side run by its Python, which import only
Dreamer (and, for the conformance adapter, dreamtui's store from src/, which needs nothing
Dreamer's environment lacks).

Python 3.12 is DREAMTUI_PYTHON312, else `python3.12` on PATH, else the newest pyenv 3.12. A
missing interpreter or a failed install fails every test with the reason; nothing is skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DREAMER_SIDE = Path(__file__).resolve().parent / "dreamer_side"
# Dreamer as its README installs it (the `defaults` extra: SQLite stores, the dream runtime),
# the mcp it was checked with, and pytest for its conformance suites.
REQUIREMENTS = ("dreamer-server[defaults]==0.2.0", "mcp==1.27.0", "pytest==8.4.2", "pytest-asyncio==1.5.0")
READY = ".dreamtui-interop-ready"
SUBPROCESS_TIMEOUT_S = 300


def _python312() -> Path:
    named = os.environ.get("DREAMTUI_PYTHON312")
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    installed = sorted(pyenv.glob("3.12.*/bin/python"),
                       key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.parent.name)])
    on_path = shutil.which("python3.12")
    # A pyenv shim on PATH answers "command not found" unless 3.12 is selected: each is tried.
    candidates = [Path(c) for c in ([named] if named else [*reversed(installed), on_path]) if c]
    for candidate in candidates:
        probe = subprocess.run([str(candidate), "-c", "import sys; sys.exit(sys.version_info[:2] != (3, 12))"],
                               capture_output=True, timeout=60, check=False)
        if probe.returncode == 0:
            return candidate
    pytest.fail("interop: no Python 3.12 (Dreamer requires it) among "
                f"{', '.join(map(str, candidates)) or 'DREAMTUI_PYTHON312, pyenv, PATH'}: set DREAMTUI_PYTHON312, "
                "put python3.12 on PATH, or `pyenv install 3.12`", pytrace=False)


def _build(venv: Path) -> None:
    wanted = "\n".join(REQUIREMENTS) + "\n"
    marker = venv / READY
    if marker.is_file() and marker.read_text(encoding="utf-8") == wanted:
        return
    python = _python312()
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    for step in ([str(python), "-m", "venv", str(venv)],
                 [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *REQUIREMENTS]):
        done = subprocess.run(step, capture_output=True, text=True, timeout=900, check=False)
        if done.returncode != 0:
            pytest.fail(f"interop: `{' '.join(step)}` failed (exit {done.returncode}):\n"
                        f"{done.stderr[-3000:]}", pytrace=False)
    marker.write_text(wanted, encoding="utf-8")


@dataclass(frozen=True)
class Dreamer:
    """The Dreamer virtualenv and ways to run what it holds."""

    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["PYTHONPATH"] = str(DREAMER_SIDE)
        return env

    def run(self, args: list[str], *, cwd: Path, check: bool = True,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env or self.env(),
                              timeout=SUBPROCESS_TIMEOUT_S, check=False)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(map(str, args))} exited {done.returncode}:\n"
                                 f"{done.stdout}\n{done.stderr}")
        return done

    def cli(self, *args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run([str(self.venv / "bin" / "dreamer"), *args], cwd=cwd, check=check)

    def ops(self, *args: str, cwd: Path, check: bool = True) -> Any:
        done = self.run([str(self.python), str(DREAMER_SIDE / "ops.py"), *args], cwd=cwd, check=False)
        result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else None
        if check and done.returncode != 0:
            raise AssertionError(f"ops.py {' '.join(args)} exited {done.returncode}: {done.stdout}{done.stderr}")
        return result

    def popen(self, *args: str, cwd: Path) -> subprocess.Popen[str]:
        return subprocess.Popen([str(self.venv / "bin" / "dreamer"), *args], cwd=cwd, env=self.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="session")
def dreamer() -> Dreamer:
    venv = Path(os.environ.get("DREAMTUI_INTEROP_VENV")
                or Path.home() / ".cache" / "dreamtui" / "interop" / "dreamer-server-0.2.0")
    _build(venv)
    return Dreamer(venv)


_DREAM_ENGINE = re.compile(r"^dream_engine:\n(?:[ \t]+.*\n)+", re.MULTILINE)


def scripted_engine(config: Path, *, sandbox: Path, delay_seconds: float = 0.0,
                    started_file: Path | None = None) -> None:
    """Put the scripted runner (dreamer_side/scripted_runner.py) in place of the Claude agent in a
    `dreamer init` config (again, to change its settings); everything else stays as Dreamer wrote it."""
    text = config.read_text(encoding="utf-8")
    assert len(_DREAM_ENGINE.findall(text)) == 1, "dreamer init wrote no dream_engine block this suite knows"
    started = f", started_file: {json.dumps(str(started_file))}" if started_file else ""
    block = ("dream_engine:\n  class: dreamer.contrib.dream.claude_agent.ClaudeAgentDreamEngine\n  params:\n"
             "    serializer: { ref: stm_serializer }\n    timeout_seconds: 1200\n"
             f"    sandbox_root: {json.dumps(str(sandbox))}\n"
             "    runner: {class: scripted_runner.ScriptedRunner, "
             f"params: {{delay_seconds: {delay_seconds}{started}}}}}\n")
    config.write_text(_DREAM_ENGINE.sub(lambda _: block, text), encoding="utf-8")


@pytest.fixture
def folder(dreamer: Dreamer, tmp_path: Path) -> Path:
    """A folder as `dreamer init` makes it, its dream engine scripted."""
    root = tmp_path / "srv"
    root.mkdir()
    dreamer.cli("init", cwd=root)
    scripted_engine(root / "dreamer.yaml", sandbox=tmp_path / "sandboxes")
    return root


def dreamtui(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The dreamtui CLI of this checkout, as a separate process (it races real Dreamer processes)."""
    return subprocess.run([sys.executable, "-m", "dreamtui", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=SUBPROCESS_TIMEOUT_S, check=False)
