"""The bad-input catalogue: cases of wrong input to the real CLI, what each must answer, and the
script that writes the table of them, docs/bad-inputs.md.

Every case runs `python -m dreamtui …` as a subprocess in its own temporary folder (the cwd),
with DREAMTUI_WORKSPACE and ANTHROPIC_API_KEY removed from the environment. Each must exit with
its documented code (2 usage or config error, 1 failed dream, 3 refused commit, 0 where a gate
just says no), print no traceback, and name the file, field or rule at fault.

From the repository root:

    python -m tests.system.bad_inputs           # run every case, then rewrite docs/bad-inputs.md
    python -m tests.system.bad_inputs --check   # run every case; exit 1 and show the difference
                                                # when docs/bad-inputs.md is out of date

tests/system/test_bad_inputs.py runs the same cases and the same check; no test writes the doc.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager as ContextManager
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from dreamtui.dream.runner import dream
from dreamtui.errors import ConfigError
from dreamtui.review.decide import all_matching, decide
from dreamtui.scaffold import init_workspace, regenerate_generated_files
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.lock import WorkspaceLock
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import open_workspace
from tests.factories import new_memory

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "bad-inputs.md"
SRC = str(REPO / "src")
TIMEOUT = 120  # per command; a hang (e.g. on a locked database) fails the case instead of CI
WS = "{ws}"  # in a case's arguments: its workspace folder
CI_PORTS = """---
title: CI service ports
slug: ci-ports
type: topic
tags: [ci]
created_at: 2026-11-02T09:14:00Z
updated_at: 2026-11-02T09:14:00Z
sources: []
---
CI Postgres listens on port 5433, not the default 5432.
"""


# -- the prepared workspaces each case copies ---------------------------------------------------


@dataclass
class Bases:
    plain: Path  # a fresh workspace
    dreamed: Path  # one open dream: a discard, a create, a reinforce of ci-ports, the bundle
    dream_id: str
    proposal: dict[str, str]  # op → proposal id in that dream


def build_bases(root: Path) -> Bases:
    """The workspaces the cases copy, made once in `root`."""
    plain = init_workspace(root / "plain", git=False)
    shutil.copytree(plain.root, root / "dreamed")
    workspace = open_workspace(root / "dreamed")
    (workspace.memory_root / "topics" / "ci-ports.md").write_text(CI_PORTS, encoding="utf-8")
    regenerate_generated_files(workspace)
    with STMStore.for_workspace(workspace) as store:
        store.submit(new_memory("CI Postgres listens on port 5433", agent_id="agent-a",
                                content="CI Postgres listens on port 5433, not the default 5432."))
        for agent in ("agent-a", "agent-b"):
            store.submit(new_memory("Run make db-reset first", agent_id=agent,
                                    content="Run make db-reset before integration tests."))
    changeset = dream(workspace)
    assert changeset is not None
    proposal = {p.op: p.id for p in changeset.reviewable}
    assert {"discard", "create", "reinforce", "context"} <= set(proposal)
    return Bases(plain.root, workspace.root, changeset.id, proposal)


# -- setups: each gets the case's temp folder and the bases, and prepares `ws` in it ------------


Setup = Callable[[Path, Bases], None]


def plain(path: Path, b: Bases) -> None:
    shutil.copytree(b.plain, path / "ws")


def dreamed(path: Path, b: Bases) -> None:
    shutil.copytree(b.dreamed, path / "ws")


def config(text: str | bytes, name: str = "dreamtui.yaml") -> Setup:
    def setup(path: Path, b: Bases) -> None:
        plain(path, b)
        (path / "ws" / "dreamtui.yaml").unlink()
        target = path / "ws" / name
        target.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return setup


def then(first: Setup, step: Callable[[Path], None]) -> Setup:
    def setup(path: Path, b: Bases) -> None:
        first(path, b)
        step(path / "ws")
    return setup


def cut_rollout(ws: Path) -> None:
    """A rollout of the workspace's project whose second line was cut mid-record."""
    path = ws.parent / "sessions/2026/11/30/rollout-2026-11-30T10-00-00-cut.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = json.dumps({"type": "session_meta", "payload": {"id": "s1", "cwd": str(ws)}})
    path.write_text(meta + '\n{"type":"event_msg","payload":{"type":"user_mes\n', encoding="utf-8")


def cut_session_log(ws: Path) -> None:
    """A Claude Code session log of the workspace's project whose second line was cut mid-record."""
    folder = ws.parent / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(ws.resolve()))
    folder.mkdir(parents=True)
    first = json.dumps({"type": "user", "uuid": "u1", "sessionId": "s1", "cwd": str(ws.resolve()),
                        "timestamp": "2026-11-30T10:00:00Z", "message": {"role": "user", "content": "hi"}})
    (folder / "s1.jsonl").write_text(first + '\n{"type":"assistant","uuid":"u2","mess\n', encoding="utf-8")


def pending_memory(ws: Path) -> None:
    with STMStore.for_workspace(open_workspace(ws)) as store:
        store.submit(new_memory("Use uv sync", agent_id="agent-a", content="Use uv sync instead of pip install."))


def dreamer_dreaming(ws: Path) -> None:
    """A Dreamer server sharing stm.db is mid-dream: its live lease on the tenant (far ahead, so
    the case never depends on the clock)."""
    STMStore(ws / "stm.db").close()
    with sqlite3.connect(ws / "stm.db") as conn:
        conn.execute("INSERT INTO dream_leases VALUES ('7c1f9e2a-dreamer', 'default', "
                     "'2026-01-01 00:00:00.000000', '2099-01-01 00:00:00.000000')")


def project_with(files: dict[str, bytes]) -> Callable[[Path], None]:
    """The workspace serves ../project (project.root), holding `files`, and a memory waits."""
    def step(ws: Path) -> None:
        project = ws.parent / "project"
        project.mkdir()
        for name, data in files.items():
            (project / name).write_bytes(data)
        (ws / "dreamtui.yaml").write_text("project:\n  root: ../project\n", encoding="utf-8")
        pending_memory(ws)
    return step


def missing_project(ws: Path) -> None:
    (ws / "dreamtui.yaml").write_text("project:\n  root: ../nowhere\n", encoding="utf-8")
    pending_memory(ws)


def small_busy_timeout(ws: Path) -> None:
    (ws / "dreamtui.yaml").write_text("stm:\n  busy_timeout_ms: 300\n", encoding="utf-8")


def corrupt_database(ws: Path) -> None:
    for extra in ("stm.db-wal", "stm.db-shm"):
        (ws / extra).unlink(missing_ok=True)
    (ws / "stm.db").write_bytes(random.Random(7).randbytes(8192))  # seeded: the same junk each run


def entry(name: str, text: str) -> Callable[[Path], None]:
    def step(ws: Path) -> None:
        (ws / "workspace" / "memory" / "topics" / name).write_text(text, encoding="utf-8")
    return step


def _changeset_file(path: Path, b: Bases) -> Path:
    dreamed(path, b)
    return path / "ws" / ".dreamtui" / "dreams" / f"{b.dream_id}.json"


def edit_changeset(change: Callable[[dict], None]) -> Setup:
    def setup(path: Path, b: Bases) -> None:
        file = _changeset_file(path, b)
        data = json.loads(file.read_text(encoding="utf-8"))
        change(data)
        file.write_text(json.dumps(data), encoding="utf-8")
    return setup


def truncated_changeset(path: Path, b: Bases) -> None:
    file = _changeset_file(path, b)
    file.write_text(file.read_text(encoding="utf-8")[:200], encoding="utf-8")


def accepted_then_edited(path: Path, b: Bases) -> None:
    """The reinforce of ci-ports accepted, then a person edits ci-ports.md by hand."""
    dreamed(path, b)
    workspace = open_workspace(path / "ws")
    decide(workspace, b.dream_id, [b.proposal["reinforce"]], "accept")
    target = workspace.memory_root / "topics" / "ci-ports.md"
    target.write_text(CI_PORTS.replace("5433,", "5433 (edited by hand),"), encoding="utf-8")


def decided(path: Path, b: Bases) -> None:
    """The open dream with its reinforce of ci-ports accepted."""
    dreamed(path, b)
    decide(open_workspace(path / "ws"), b.dream_id, [b.proposal["reinforce"]], "accept")


ALIAS_BOMB = "".join(["lol0: &a0 [x, x, x, x, x, x, x, x, x]\n",
                      *(f"lol{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))])
ENTRY_BOMB = ("---\ntitle: Laughs\nslug: laughs\ntype: topic\n" + ALIAS_BOMB
              + "---\nA billion laughs.\n")
ENTRY_DEEP = "---\ntitle: Deep\nslug: deep\ntype: topic\nx: " + "[" * 200_000 + "]" * 200_000 + "\n---\nDeep.\n"


def project_with_bad_targets(path: Path, b: Bases) -> None:
    """The open dream, everything accepted, its workspace serving ../code, whose AGENTS.md is
    Latin-1 bytes and whose CLAUDE.md is a folder."""
    dreamed(path, b)
    code = path / "code"
    (code / "CLAUDE.md").mkdir(parents=True)
    (code / "AGENTS.md").write_bytes("# Agents, caf\xe9\n".encode("latin-1"))
    config_file = path / "ws" / "dreamtui.yaml"  # the template's project block, its root set
    config_file.write_text(re.sub(r"^(  root: )null", r"\1../code", config_file.read_text(encoding="utf-8"),
                                  count=1, flags=re.MULTILINE), encoding="utf-8")
    decide(open_workspace(path / "ws"), b.dream_id, all_matching(), "accept")


def code_project(files: dict[str, str]) -> Callable[[Path], None]:
    """A code project at ../code beside the workspace, holding `files` (for `connect`)."""
    def step(ws: Path) -> None:
        for name, text in files.items():
            target = ws.parent / "code" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        (ws.parent / "code").mkdir(exist_ok=True)
    return step


def unchanged(name: str, text: str) -> Callable[[Path], None]:
    def check(ws: Path) -> None:
        assert (ws.parent / name).read_text(encoding="utf-8") == text, f"{name} was changed"
        assert not (ws / ".dreamtui" / "connections.json").exists(), "a connection was recorded"
    return check


MCP_TRAILING_COMMA = '{\n  "mcpServers": {\n    "github": {"command": "gh-mcp"},\n  }\n}\n'
CODEX_BROKEN = 'model = "o3"\n[mcp_servers\n'


# -- what runs alongside a case ---------------------------------------------------------------


@contextmanager
def database_locked(ws: Path) -> Iterator[None]:
    """Another process's write transaction, held for the whole command."""
    conn = sqlite3.connect(ws / "stm.db", isolation_level=None)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        yield
        conn.execute("ROLLBACK")
    finally:
        conn.close()


@contextmanager
def workspace_locked(ws: Path) -> Iterator[None]:
    with WorkspaceLock(open_workspace(ws), "a commit in another window").acquire():
        yield


# -- checks after a case ----------------------------------------------------------------------


def states(ws: Path) -> dict[str, int]:
    try:
        store = STMStore.for_workspace(open_workspace(ws))
    except ConfigError:  # the case broke the config on purpose: the database is where init put it
        store = STMStore(ws / "stm.db")
    with store:
        return store.counts()


def batch_returned(ws: Path) -> None:
    assert states(ws) == {"pending": 1, "claimed": 0, "consumed": 0}
    [summary] = ChangesetStore(ws / ".dreamtui" / "dreams").list()
    assert summary.status == "abandoned"


def nothing_claimed(ws: Path) -> None:
    assert states(ws) == {"pending": 1, "claimed": 0, "consumed": 0}
    assert not list((ws / ".dreamtui" / "dreams").glob("*.json"))


def duplicates_untouched(ws: Path) -> None:
    topics = ws / "workspace" / "memory" / "topics"
    assert (topics / "ci-ports.md").read_text() == (topics / "ci-ports-copy.md").read_text() == CI_PORTS
    assert states(ws)["claimed"] == 1  # the dream ran and holds its batch for review


def refused_wrote_nothing(ws: Path) -> None:
    assert "(edited by hand)" in (ws / "workspace" / "memory" / "topics" / "ci-ports.md").read_text()
    assert states(ws)["claimed"] == 3  # the dream still holds its whole batch
    assert not (ws / "workspace" / "memory" / "topics" / "run-make-db-reset-first.md").exists()


# -- the cases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    input: str  # what is wrong, for the table
    args: tuple[str, ...]  # after `dreamtui`; WS stands for the case's workspace
    exit: int
    names: tuple[str, ...]  # the output must name these: the file, the field, the rule
    setup: Setup | None = None
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict)
    during: Callable[[Path], ContextManager[None]] | None = None
    after: Callable[[Path], None] | None = None
    shown: str | None = None  # the command as the table shows it, when args are long


def w(*args: str) -> tuple[str, ...]:
    return ("--workspace", WS, *args)


BIG = "x" * 9000
CASES: tuple[Case, ...] = (
    # config
    Case("config: broken YAML", w("status"), 2, ("dreamtui.yaml", "line 3", "invalid YAML"),
         config("stm:\n  path: [stm.db\n")),
    Case("config: unknown key", w("status"), 2, ("dreamtui.yaml", "stm.pathh", "unknown key"),
         config("stm:\n  pathh: other.db\n")),
    Case("config: wrong type", w("status"), 2, ("dreamtui.yaml", "stm.max_content_bytes", "'lots'"),
         config("stm:\n  max_content_bytes: lots\n")),
    Case("config: value out of range", w("--headless", "dream"), 2,
         ("dreamtui.yaml", "headless.min_pending", "greater than or equal to 0"),
         config("headless:\n  min_pending: -1\n")),
    Case("config: ${env:…} names an unset variable", w("status"), 2,
         ("dreamtui.yaml", "git.author_name", "DREAMTUI_BAD_INPUT_UNSET is not set"),
         config("git:\n  author_name: ${env:DREAMTUI_BAD_INPUT_UNSET}\n")),
    Case("config: impossible date (2026-02-30)", w("status"), 2,
         ("dreamtui.yaml", "invalid YAML value", "day is out of range"),
         config("version: 2026-02-30\n")),
    Case("config: YAML alias that contains itself", w("status"), 2,
         ("dreamtui.yaml", "refers to itself"), config("memory_types: &types [*types]\n")),
    Case("config: bad memory type name", w("status"), 2, ("dreamtui.yaml", "memory_types", "'Bad Type'"),
         config("memory_types: [observation, Bad Type]\n")),
    Case("Dreamer config with wrong shapes", w("status"), 2,
         ("dreamer.yaml", "ltm.max_autonomous_removals", "'many'"),
         config("ltm_store:\n  params:\n    root: memory\n    max_autonomous_removals: many\n",
                name="dreamer.yaml")),
    Case("Dreamer config: ${secret:…} where dreamtui reads the value", w("status"), 2,
         ("dreamer.yaml", "stm_store.params.db_path", "cannot resolve secrets"),
         config("stm_store:\n  class: dreamer.contrib.stm.sqlite.SQLiteSTMStore\n  params:\n"
                "    db_path: ${secret:DREAMER_DB}\n", name="dreamer.yaml")),
    Case("Dreamer config: ${VAR} unset and without a default", w("status"), 2,
         ("dreamer.yaml", "stm_store.params.db_path", "DREAMTUI_BAD_INPUT_UNSET is not set"),
         config("stm_store:\n  params:\n    db_path: ${DREAMTUI_BAD_INPUT_UNSET}/x.db\n", name="dreamer.yaml")),
    Case("Dreamer config: a metadata_schema that is no JSON Schema", w("status"), 2,
         ("dreamer.yaml", "stm_store.params.memory_types[0].metadata_schema", "not a JSON Schema"),
         config("stm_store:\n  params:\n    memory_types:\n      - name: incident\n        description: x\n"
                "        metadata_schema: {type: objekt}\n", name="dreamer.yaml")),
    Case("Dreamer config: an in-memory STM database", w("status"), 2,
         ("dreamer.yaml", "stm_store.params.db_path", "in-memory database"),
         config("stm_store:\n  params:\n    db_path: ':memory:'\n", name="dreamer.yaml")),
    # finding the workspace
    Case("no workspace here or above", ("status",), 2, ("no workspace found", "dreamtui.yaml")),
    Case("--workspace names a file", ("--workspace", "notes.txt", "status"), 2,
         ("--workspace", "notes.txt", "not a folder"),
         lambda path, b: (path / "notes.txt").write_text("hi", encoding="utf-8")),
    Case("--workspace names a folder without a config", ("--workspace", ".", "status"), 2,
         ("holds no dreamtui.yaml", "dreamtui init")),
    Case("$DREAMTUI_WORKSPACE names a missing folder", ("status",), 2,
         ("$DREAMTUI_WORKSPACE", "missing", "not a folder"), env={"DREAMTUI_WORKSPACE": "missing"}),
    Case("init into an existing workspace", ("init", WS), 2, ("already holds dreamtui.yaml",), plain),
    # the queue database
    Case("database locked by another writer (busy_timeout_ms: 300)",
         w("submit", "--type", "observation", "--title", "t", "--content", "c"), 2,
         ("stm.db", "locked by another process for 300 ms"), then(plain, small_busy_timeout),
         during=database_locked),
    Case("database file is random bytes", w("status"), 2, ("stm.db", "not a usable SQLite database"),
         then(plain, corrupt_database)),
    # long-term memory
    Case("entry with broken frontmatter (the store still works)", w("status"), 0,
         ("LTM", "dreams"),
         then(plain, entry("broken.md", "---\ntitle: Broken\nslug: [not, closed\n---\nBody\n"))),
    Case("two entries with the same slug", w("--headless", "dream", "--force"), 0,
         ("2 proposals",), then(then(then(plain, entry("ci-ports.md", CI_PORTS)),
                                    entry("ci-ports-copy.md", CI_PORTS)), pending_memory),
         after=duplicates_untouched),
    # submitting
    Case("oversized memory (9000 bytes)", w("submit", "--type", "observation", "--title", "t",
                                            "--content", BIG), 2,
         ("content:", "9000 bytes", "stm.max_content_bytes"), plain,
         shown="--workspace <tmp>/ws submit --type observation --title t --content <9000 × x>"),
    Case("title too long (121 chars)", w("submit", "--type", "failure", "--title", "t" * 121,
                                         "--content", "c"), 2,
         ("title:", "121 characters", "at most 120"), plain,
         shown="--workspace <tmp>/ws submit --type failure --title <121 × t> --content c"),
    Case("unknown memory type", w("submit", "--type", "recipe", "--title", "t", "--content", "c"),
         2, ("type:", "'recipe'", "allowed"), plain),
    Case("binary junk on stdin for --jsonl", w("submit", "--jsonl", "-"), 2,
         ("line 1:", "0 submitted"), plain, stdin=random.Random(3).randbytes(2000).replace(b"\n", b"")),
    Case("JSONL line with invalid UTF-8", w("submit", "--jsonl", "-"), 2,
         ("line 1:", "not UTF-8", "0xff"), plain,
         stdin=b'{"type": "observation", "title": "t\xff", "content": "c"}\n'),
    Case("JSONL line that is an array", w("submit", "--jsonl", "-"), 2,
         ("line 2:", "expected a JSON object, got list", "1 submitted"), plain,
         stdin=b'{"type": "observation", "title": "t", "content": "c"}\n["observation", "t"]\n'),
    # feedback
    Case("flag with an invalid slug", w("flag", "wrong port", "--target", "../etc/passwd"), 2,
         ("targets:",), plain),
    Case("confirm with an empty slug", w("confirm", ""), 2, ("target:",), plain),
    Case("confirm of a slug no live entry has", w("confirm", "no-such-entry"), 2,
         ("no-such-entry: no live entry has this slug", "nothing was recorded"), plain),
    Case("purge --older-than -3", w("purge", "--older-than", "-3"), 2, ("--older-than", "-3"), plain),
    # importing
    Case("import from a missing projects folder",
         w("import", "claude-code", "--projects-dir", "/nonexistent"), 2,
         ("--projects-dir /nonexistent", "not a folder"), plain),
    Case("import codex from a missing sessions folder",
         w("import", "codex", "--sessions-dir", "/nonexistent"), 2,
         ("--sessions-dir /nonexistent", "not a folder"), plain),
    Case("import codex: a folder named like a rollout", w("import", "codex", "--sessions-dir", "sessions"), 0,
         ("1 rollout could not be read", "rollout-2026-11-30T10-00-00-bad.jsonl", "Is a directory"),
         then(plain, lambda ws: (ws.parent / "sessions/2026/11/30/rollout-2026-11-30T10-00-00-bad.jsonl").mkdir(
             parents=True))),
    Case("import codex: a rollout with a truncated line",
         w("import", "codex", "--sessions-dir", "sessions", "--include-live"), 0,
         ("1 malformed line skipped", "rollout-2026-11-30T10-00-00-cut.jsonl:2"),
         then(plain, cut_rollout)),
    Case("import claude-code: a session log with a truncated line",
         w("import", "claude-code", "--projects-dir", "projects", "--include-live"), 0,
         ("1 malformed line skipped", "s1.jsonl:2"), then(plain, cut_session_log)),
    Case("import claude-code --project that is no folder and has no logs",
         w("import", "claude-code", "--projects-dir", ".", "--project", "/nonexistent/project"), 2,
         ("--project /nonexistent/project", "no such folder"), plain),
    Case("import --since that is not a moment", w("import", "claude-code", "--since", "last tuesday"),
         2, ("--since", "'last tuesday'", "is not a moment"), plain),
    # dreaming
    Case("--engine names a module that does not exist",
         w("--headless", "dream", "--force", "--engine", "nonexistent.module:Thing"), 2,
         ("engine 'nonexistent.module:Thing'", "cannot import nonexistent"),
         then(plain, pending_memory), after=nothing_claimed),
    Case("a dream while a Dreamer server sharing stm.db dreams", w("dream"), 4,
         ("stm.db", "a Dreamer server", "lease 7c1f9e2a", "until 2099-01-01 00:00:00 UTC",
          "nothing was done"), then(then(plain, pending_memory), dreamer_dreaming), after=nothing_claimed),
    Case("--engine anthropic without an API key", w("--headless", "dream", "--force", "--engine",
                                                    "anthropic"), 1,
         ("ANTHROPIC_API_KEY",), then(plain, pending_memory), after=batch_returned),
    Case("dream.engine: an unknown name in the config", w("--headless", "dream", "--force"), 2,
         ("dreamtui.yaml", "dream.engine: 'sleepy'", "not a built-in engine"),
         then(then(plain, pending_memory),
              lambda ws: (ws / "dreamtui.yaml").write_text("dream:\n  engine: sleepy\n", encoding="utf-8")),
         after=nothing_claimed),
    Case("config: a key given twice", w("status"), 2,
         ("dreamtui.yaml", "line 3", "'min_pending' is given twice", "lines 2 and 3"),
         config("headless:\n  min_pending: 1\n  min_pending: 5\n")),
    Case("config: a version this dreamtui does not read", w("config", "check"), 2,
         ("dreamtui.yaml", "version: expected 1, got 7"), config("version: 7\n")),
    Case("headless dream with nothing pending (gate)", w("--headless", "dream"), 0,
         ("skipped: 0 pending memories", "headless.min_pending"), plain),
    Case("headless dream while another process holds the lock", w("--headless", "dream", "--force"),
         0, ("skipped: workspace locked by pid", "a commit in another window"),
         then(plain, pending_memory), during=workspace_locked),
    # the project's instruction files (the known corpus): skipped in one line, the dream goes on
    Case("instruction file that is not UTF-8", w("dream"), 0,
         ("CLAUDE.md: not UTF-8 (byte 0xe9 at offset 5)", "not read"),
         then(plain, project_with({"CLAUDE.md": b"- Caf\xe9 rules written in Latin-1.\n"}))),
    Case("project.root that is not a folder", w("dream"), 0, ("project.root", "nowhere: not a folder"),
         then(plain, missing_project)),
    Case("config check: project.root that is not a folder", w("config", "check"), 2,
         ("dreamtui.yaml: project.root:", "nowhere: not a folder"), then(plain, missing_project)),
    # reviewing, deciding, committing
    Case("changeset edited by hand: wrong type", w("review", "show", "{dream}"), 2,
         ("{dream}.json", "proposals[0]", "'confidence'", "got str"),
         edit_changeset(lambda d: d["proposals"][0].update(confidence="high"))),
    Case("changeset edited by hand: unknown decision", w("commit", "{dream}"), 2,
         ("{dream}.json", "decision 'maybe'"),
         edit_changeset(lambda d: d["proposals"][1].update(decision="maybe"))),
    Case("changeset edited by hand: truncated JSON", w("review", "show", "{dream}"), 2,
         ("{dream}.json", "invalid JSON"), truncated_changeset),
    Case("unknown dream id", w("review", "show", "d-20990101-000000-gone"), 2,
         ("no dream d-20990101-000000-gone",), dreamed),
    Case("bad proposal id", w("decide", "{dream}", "p-000000000000", "accept"), 2,
         ("has no proposal p-000000000000",), dreamed),
    Case("proposal number past the list", w("decide", "{dream}", "99", "accept"), 2,
         ("dream {dream} has", "[99] is not one of them", "review show {dream}"), dreamed),
    Case("decide with an invalid decision word", w("decide", "{dream}", "--all", "maybe"), 2,
         ("'maybe'", "accept"), dreamed),
    Case("pin on a discard proposal", w("decide", "{dream}", "{discard}", "pin"), 2,
         ("is a discard", "not pin"), dreamed),
    Case("commit with nothing decided", w("commit", "{dream}"), 2, ("no proposal is decided yet",),
         dreamed),
    Case("commit over an entry edited since the dream", w("commit", "{dream}"), 3,
         ("commit refused, nothing written", "topics/ci-ports.md"),
         accepted_then_edited, after=refused_wrote_nothing),
    # a person's change from the shell
    Case("entry change naming no entry", w("entry", "pin", "no-such-slug"), 2,
         ("no-such-slug", "no live entry has this slug or path"), dreamed),
    Case("restore of an entry that is live", w("entry", "restore", "ci-ports"), 2,
         ("ci-ports", "no archived entry has this slug or path"), dreamed),
    # the workspace lock: a refusal says so with its own exit code
    Case("commit while another process holds the workspace lock", w("commit", "{dream}"), 4,
         ("workspace locked by pid", "a commit in another window", "nothing was done"),
         decided, during=workspace_locked),
    Case("abandon while another process holds the workspace lock", w("abandon", "{dream}"), 4,
         ("workspace locked by pid", "nothing was done"), dreamed, during=workspace_locked),
    Case("a person's dream while another process holds the lock", w("dream"), 4,
         ("workspace locked by pid", "nothing was done"), then(plain, pending_memory),
         during=workspace_locked),
    # fields of a memory
    Case("tag holding a newline", w("submit", "--type", "observation", "--title", "t", "--content", "c",
                                    "--tags", "a\nb"), 2, ("tags:", "U+000A"), plain,
         shown="--workspace <tmp>/ws submit --type observation --title t --content c --tags 'a<newline>b'"),
    Case("metadata holding NaN", w("submit", "--type", "observation", "--title", "t", "--content", "c",
                                   "--metadata", '{"n": NaN}'), 2, ("metadata.n", "NaN"), plain),
    Case("33 tags", w("submit", "--type", "observation", "--title", "t", "--content", "c",
                      "--tags", ",".join(f"t{i}" for i in range(33))), 2, ("tags:", "32"), plain,
         shown="--workspace <tmp>/ws submit --type observation --title t --content c --tags t0,t1,…,t32"),
    # entries that could exhaust the parser
    Case("entry frontmatter with a YAML alias bomb", w("config", "check"), 2,
         ("topics/laughs.md", "aliases are not allowed"), then(plain, entry("laughs.md", ENTRY_BOMB))),
    Case("entry frontmatter nested 200,000 deep", w("config", "check"), 2,
         ("topics/deep.md", "nested more than 32 levels"), then(plain, entry("deep.md", ENTRY_DEEP))),
    # entries Dreamer reads (issue 15): a slug from the file name or kebab-cased, else refused
    Case("entry without a slug, its file name giving none", w("config", "check"), 2,
         ("topics/___.md", "missing slug, and the file name gives none"),
         then(plain, entry("___.md", "---\ntitle: T\n---\nx\n"))),
    Case("entry with a Mixed_Case slug (read, reported)", w("config", "check"), 0,
         ("topics/mixed.md", "'Mixed_Case'", "read as 'mixed-case'"),
         then(plain, entry("mixed.md", "---\ntitle: M\nslug: Mixed_Case\n---\nx\n"))),
    Case("config with a YAML alias bomb", w("status"), 2, ("dreamtui.yaml", "100,000 values"),
         config(ALIAS_BOMB.replace("lol", "x_lol"))),
    # keymap and terminals
    Case("keymap: an unknown binding id", w("config", "check"), 2,
         ("dreamtui.yaml", "ui.keymap.accept", "dream.accept"), config("ui:\n  keymap: {accept: y}\n")),
    Case("keymap: a key two actions of one view would share", w("config", "check"), 2,
         ("dreamtui.yaml", "ui.keymap.dream.accept", "dream.reject"),
         config("ui:\n  keymap: {dream.accept: n}\n")),
    Case("the workbench without a terminal", w(), 2, ("no terminal", "--headless"), plain),
    # the MCP server
    Case("MCP over HTTP beyond loopback without an allowlist", w("mcp", "--http", "--host", "0.0.0.0"), 2,
         ("--host 0.0.0.0", "--allow-host"), plain),
    Case("MCP allowlist entry with a port", w("mcp", "--http", "--allow-host", "devbox.lan:8765"), 2,
         ("devbox.lan:8765", "without a port"), plain),
    Case("config: mcp.max_sessions_per_token: 0", w("status"), 2,
         ("dreamtui.yaml", "mcp.max_sessions_per_token"), config("mcp:\n  max_sessions_per_token: 0\n")),
    # stranded and unreadable dreams
    Case("release with neither a dream nor --stranded", w("release"), 2, ("--stranded",), plain),
    Case("release of an open dream", w("release", "{dream}"), 2, ("is open", "abandon"), dreamed),
    Case("abandon of a truncated record", w("abandon", "{dream}"), 0,
         ("does not load", "moved aside", ".corrupt"), truncated_changeset),
    Case("changeset edited by hand: bad stats.fallback", w("review", "show", "{dream}"), 2,
         ("{dream}.json", "stats.fallback"), edit_changeset(lambda d: d["stats"].update(fallback="anthropic"))),
    # a person's edit of a proposal
    Case("edit with text that is not an entry", w("decide", "{dream}", "{create}", "edit", "--file", "-"), 2,
         ("not a valid entry", "nothing saved"), dreamed, stdin=b"just some words\n"),
    Case("edit with --all", w("decide", "{dream}", "--all", "edit"), 2, ("exactly one proposal",), dreamed),
    Case("--file without edit", w("decide", "{dream}", "{create}", "accept", "--file", "-"), 2,
         ("--file only goes with edit",), dreamed, stdin=b""),
    # delivery into the code project (project.root, context.targets) and routes
    Case("config: context.also_claude_md (removed)", w("status"), 2,
         ("dreamtui.yaml", "also_claude_md was removed", "context.targets"),
         config("context:\n  also_claude_md: true\n")),
    Case("config: a delivery target outside the project", w("status"), 2,
         ("dreamtui.yaml", "context.targets.0.path", "'../notes/AGENTS.md'", "inside it"),
         config("project:\n  root: ../code\ncontext:\n  targets:\n    - path: ../notes/AGENTS.md\n")),
    Case("config: context.include names no entry route", w("status"), 2,
         ("dreamtui.yaml", "context.include.0", "'bundel'"),
         config("context:\n  include: [bundel]\n")),
    Case("config: context.include is empty", w("status"), 2,
         ("dreamtui.yaml", "context.include", "name at least one entry route"),
         config("context:\n  include: []\n")),
    Case("config: context.targets is a string, not a list", w("status"), 2,
         ("dreamtui.yaml", "context.targets", "'AGENTS.md'"),
         config("context:\n  targets: AGENTS.md\n")),
    Case("config: an import target naming no block target", w("status"), 2,
         ("dreamtui.yaml", "context.targets", "imports 'README.md'"),
         config("context:\n  targets:\n    - path: AGENTS.md\n    - {path: CLAUDE.md, mode: import, "
                "imports: README.md}\n")),
    Case("project AGENTS.md is not UTF-8, CLAUDE.md a folder (held back, the rest committed)",
         w("commit", "{dream}"), 0, ("held back", "AGENTS.md is not UTF-8 text", "CLAUDE.md is a folder"),
         project_with_bad_targets),
    Case("decide --route with an unknown route", w("decide", "{dream}", "{create}", "--route", "wiki"), 2,
         ("--route", "'wiki'", "decisions"), dreamed),
    Case("decide --route on the bundle", w("decide", "{dream}", "{context}", "--route", "skill"), 2,
         ("is a context", "only a lesson"), dreamed),
    # connect / disconnect: a person's agent config is never rewritten when it cannot be read
    Case("connect: .mcp.json that is not JSON (a trailing comma)", w("connect", "claude-code", "--project", "code"),
         2, ("code/.mcp.json:4", "not valid JSON", "nothing was changed"),
         then(plain, code_project({".mcp.json": MCP_TRAILING_COMMA})),
         after=unchanged("code/.mcp.json", MCP_TRAILING_COMMA)),
    Case("connect: .claude/settings.json whose hooks is a list", w("connect", "claude-code", "--project", "code"),
         2, ("settings.json", "hooks is not a JSON object"),
         then(plain, code_project({".claude/settings.json": '{"hooks": []}\n'})),
         after=unchanged("code/.claude/settings.json", '{"hooks": []}\n')),
    Case("connect codex: config.toml that is not TOML", w("connect", "codex", "--project", "code"), 2,
         ("codex-home/config.toml:2", "not valid TOML"),
         then(plain, code_project({"../codex-home/config.toml": CODEX_BROKEN})),
         env={"CODEX_HOME": "codex-home"}, after=unchanged("codex-home/config.toml", CODEX_BROKEN)),
    Case("connect: --http with a URL that is not http(s)",
         w("connect", "claude-code", "--project", "code", "--http", "localhost:8765"), 2,
         ("--http", "http://127.0.0.1:8765/mcp"), then(plain, code_project({}))),
    Case("connect: --project that is not a folder", w("connect", "claude-code", "--project", "nowhere"), 2,
         ("nowhere", "not a folder"), plain),
    Case("connect without a project (no --project, no project.root)", w("connect", "codex"), 2,
         ("--project PATH", "project.root"), plain),
    Case("init --project that is not a folder", ("init", "ws2", "--project", "nowhere", "--no-git"), 2,
         ("nowhere", "not a folder"), plain),
    Case("disconnect: .dreamtui/connections.json that is not JSON", w("disconnect"), 2,
         ("connections.json", "not a record dreamtui can read"),
         then(plain, lambda ws: (ws / ".dreamtui").mkdir(exist_ok=True)
              or (ws / ".dreamtui" / "connections.json").write_text("{", encoding="utf-8"))),

)


# -- running ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    case: Case
    command: list[str]
    exit: int
    stdout: str
    stderr: str
    folder: Path


def _fill(text: str, ws: Path, b: Bases) -> str:
    return (text.replace(WS, str(ws)).replace("{dream}", b.dream_id)
            .replace("{discard}", b.proposal["discard"]).replace("{create}", b.proposal["create"])
            .replace("{context}", b.proposal["context"]))


def _env(case: Case) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DREAMTUI_WORKSPACE", "ANTHROPIC_API_KEY", "DREAMTUI_BAD_INPUT_UNSET")}
    return {**env, "PYTHONPATH": SRC, **case.env}


def run_case(case: Case, folder: Path, b: Bases) -> Outcome:
    ws = folder / "ws"
    command = [sys.executable, "-m", "dreamtui", *(_fill(arg, ws, b) for arg in case.args)]
    during = case.during(ws) if case.during is not None else nullcontext()
    with during:
        proc = subprocess.run(command, input=case.stdin if case.stdin is not None else b"",
                              capture_output=True, cwd=folder, env=_env(case), timeout=TIMEOUT)
    return Outcome(case, command, proc.returncode, proc.stdout.decode("utf-8", "replace"),
                   proc.stderr.decode("utf-8", "replace"), folder)


_LOG_LINE = re.compile(r"^\d{4}-\d{2}-\d{2}T\S+ (?:INFO|WARNING|ERROR|DEBUG) ")
_VARIABLE = (
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"pid \d+ on \S+ since \S+"), "pid <pid> on <host> since <time>"),
)
_PLAIN_ARG = re.compile(r"[\w@%+=:,./<>…×-]+")


def _dream_names(outcome: Outcome) -> dict[str, str]:
    """Ids that differ from run to run (dreams made by the fixture or the case, their
    proposals) → stand-ins; ids the cases wrote themselves stay as they are."""
    names = {}
    # `.json.corrupt` too: an abandoned unreadable record is moved aside under that name.
    for file in (outcome.folder / "ws" / ".dreamtui" / "dreams").glob("d-*.json*"):
        names[file.name.partition(".json")[0]] = "<dream>"
        try:
            proposals = json.loads(file.read_text(encoding="utf-8")).get("proposals", ())
        except ValueError:
            continue  # the case broke this file on purpose
        names.update({p["id"]: "<proposal>" for p in proposals
                      if isinstance(p, dict) and isinstance(p.get("id"), str)})
    return names


def normalise(text: str, outcome: Outcome) -> str:
    folder = outcome.folder
    for path in sorted({str(folder), str(folder.resolve())}, key=len, reverse=True):
        text = text.replace(path, "<tmp>")
    for name, stand_in in _dream_names(outcome).items():
        text = text.replace(name, stand_in)
    for pattern, stand_in in _VARIABLE:
        text = pattern.sub(stand_in, text)
    return text.replace(sys.executable, "python")


def shown_command(outcome: Outcome, b: Bases) -> str:
    case = outcome.case
    if case.shown is not None:
        return case.shown
    args = [normalise(_fill(arg, outcome.folder / "ws", b), outcome) for arg in case.args]
    return " ".join(arg if _PLAIN_ARG.fullmatch(arg) else shlex.quote(arg) for arg in args)


def message(outcome: Outcome) -> str:
    """What the command said first to a person: click's `Error:` line for a usage error, else the
    first line printed (log records skipped); a line ending in ':' continues on the next, as
    config errors do."""
    lines = [line.strip() for line in (outcome.stderr + "\n" + outcome.stdout).splitlines()
             if line.strip() and not _LOG_LINE.match(line)]
    usage = [line for line in lines if line.startswith("Error: ")]
    if usage:
        return usage[0]
    if not lines:
        return ""
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:
        first = f"{first} {lines[1]}"
    return first


def table_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def render(rows: list[tuple[Case, str, str]]) -> str:
    lines = [
        "# Bad inputs and what the CLI says",
        "",
        "Generated by `python -m tests.system.bad_inputs` (do not edit by hand): every row is run through "
        "`python -m dreamtui` in a temporary folder (`<tmp>`); none may print a traceback. Exit "
        "codes: 0 a gate said no, 1 a dream failed (its batch went back to the queue), 2 usage "
        "or config error, 3 commit refused (nothing written), 4 the workspace is busy (nothing done).",
        "",
        "| # | input | command | exit | message (first line) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for number, (case, command, said) in enumerate(rows, start=1):
        lines.append(f"| {number} | {table_cell(case.input)} | `dreamtui {table_cell(command)}` "
                     f"| {case.exit} | {table_cell(said)} |")
    return "\n".join(lines) + "\n"


# -- the catalogue as a whole, and the doc --------------------------------------------------------


@dataclass(frozen=True)
class Report:
    problems: list[str]  # one paragraph per case that answered wrongly
    doc: str  # docs/bad-inputs.md as these answers make it


def run_catalogue(root: Path) -> Report:
    """Run every case in its own folder under `root` and check what it answered."""
    bases = build_bases(root / "bases")
    folders = []
    for number, case in enumerate(CASES, start=1):
        folder = root / f"case{number:02d}"
        folder.mkdir()
        if case.setup is not None:
            case.setup(folder, bases)
        folders.append(folder)
    # Subprocesses in parallel: each case has its own folder, so they cannot interfere.
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda pair: run_case(pair[0], pair[1], bases),
                                 zip(CASES, folders, strict=True)))

    problems = []
    rows = []
    for outcome in outcomes:
        case = outcome.case
        said = outcome.stdout + outcome.stderr
        expected = [_fill(name, outcome.folder / "ws", bases) for name in case.names]
        wrong = []
        if "Traceback" in said:
            wrong.append("printed a traceback")
        if outcome.exit != case.exit:
            wrong.append(f"exit {outcome.exit}, expected {case.exit}")
        wrong += [f"does not name {name!r}" for name in expected if name not in said]
        if not wrong and case.after is not None:
            try:
                case.after(outcome.folder / "ws")
            except AssertionError as exc:
                wrong.append(f"check after the command failed: {exc!r}")
        if wrong:
            problems.append(f"{case.input}: {'; '.join(wrong)}\n  $ {' '.join(outcome.command)}\n"
                            f"  stdout: {outcome.stdout[-800:]!r}\n  stderr: {outcome.stderr[-1500:]!r}")
        rows.append((case, shown_command(outcome, bases), normalise(message(outcome), outcome)))
    return Report(problems, render(rows))


def doc_difference(doc: str) -> str | None:
    """How the committed docs/bad-inputs.md differs from `doc` (a unified diff), or None."""
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if current == doc:
        return None
    name = str(DOC.relative_to(REPO))
    return "".join(difflib.unified_diff(current.splitlines(keepends=True), doc.splitlines(keepends=True),
                                        f"{name} (committed)", f"{name} (what the CLI says now)"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.system.bad_inputs",
                                     description="Run the bad-input catalogue and write docs/bad-inputs.md.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 and show the difference when the doc is out of date")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dreamtui-bad-inputs-") as folder:
        report = run_catalogue(Path(folder))
    if report.problems:
        print("\n\n".join(report.problems), file=sys.stderr)
        print(f"{len(report.problems)} case(s) answered wrongly; {DOC.name} not written", file=sys.stderr)
        return 1
    difference = doc_difference(report.doc)
    if difference is None:
        print(f"{DOC.relative_to(REPO)} is up to date ({len(CASES)} cases)")
        return 0
    if args.check:
        print(f"{DOC.relative_to(REPO)} is out of date; regenerate it with "
              f"`python -m tests.system.bad_inputs`:\n{difference}", file=sys.stderr)
        return 1
    DOC.write_text(report.doc, encoding="utf-8")
    print(f"wrote {DOC.relative_to(REPO)} ({len(CASES)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
