from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import dreamtui.cli.intake_cmds  # noqa: F401  (registers the commands on `main`)
from dreamtui.cli.main import main
from dreamtui.model import NewMemory
from dreamtui.store.stm import MemoryFilter, STMStore
from tests.factories import entry_text, write_entry

SRC = Path(__file__).resolve().parents[2] / "src"
RUN_CLI = "from dreamtui.cli.main import main; import dreamtui.cli.intake_cmds; main()"
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def run(ws: Path, *args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["-w", str(ws), *args], input=input)


def stored(ws: Path) -> list:
    with STMStore(ws / "stm.db") as store:
        return store.page(limit=1000, newest_first=False)


def assert_clean_failure(result: Result) -> None:
    """Exit 2 with a message: a SystemExit, never another exception's traceback."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


# -- submit ----------------------------------------------------------------------------------------

def test_submit_one(ws: Path) -> None:
    result = run(ws, "submit", "--type", "failure", "--title", " CI Postgres port ",
                 "--content", "CI maps 5433.", "--tags", "ci, testing", "--tags", "db,ci",
                 "--agent", "agent-a", "--metadata", '{"session": "s-1"}')
    assert result.exit_code == 0, result.output
    [memory] = stored(ws)
    assert result.stdout == f"submitted {memory.id}\n"
    assert (memory.type, memory.title, memory.content) == ("failure", "CI Postgres port",
                                                            "CI maps 5433.")
    assert memory.tags == ("ci", "testing", "db")
    assert memory.agent_id == "agent-a" and memory.metadata == {"session": "s-1"}


def test_submit_idempotency_key(ws: Path) -> None:
    args = ("submit", "--type", "observation", "--title", "t", "--content", "c",
            "--idempotency-key", "k-1")
    first = run(ws, *args)
    second = run(ws, *args[:-3], "other content", "--idempotency-key", "k-1")
    assert first.exit_code == second.exit_code == 0
    memory_id = first.stdout.split()[-1]
    assert second.stdout.startswith(f"already submitted as {memory_id}")
    assert len(stored(ws)) == 1


def test_submit_redacts_and_says_so(ws: Path) -> None:
    result = run(ws, "submit", "--type", "failure", "--title", "push failed",
                 "--content", f"used token {GITHUB_TOKEN} to push")
    assert result.exit_code == 0, result.output
    assert "secret redacted" in result.stderr
    [memory] = stored(ws)
    assert GITHUB_TOKEN not in memory.content and "[REDACTED:" in memory.content
    assert memory.extra["redacted"]


@pytest.mark.parametrize(("args", "message"), [
    (("--type", "bogus", "--title", "t", "--content", "c"), "type: 'bogus' is not an allowed"),
    (("--type", "failure", "--content", "c"), "--title: required"),
    (("--type", "failure", "--title", "t", "--content", "c", "--metadata", "{oops"),
     "--metadata: invalid JSON"),
    (("--type", "failure", "--title", "t", "--content", "c", "--metadata", "[1]"),
     "--metadata: expected a JSON object, got an array"),
    (("--type", "failure", "--title", "x" * 121, "--content", "c"), "title: 121 characters"),
    (("--jsonl", "-", "--type", "failure"), "--type: not allowed with --jsonl"),
])
def test_submit_refusals_name_the_field(ws: Path, args: tuple[str, ...], message: str) -> None:
    result = run(ws, "submit", *args, input="")
    assert_clean_failure(result)
    assert message in result.stderr
    assert stored(ws) == []


# -- submit --jsonl --------------------------------------------------------------------------------

def record(i: int, **extra: object) -> str:
    return json.dumps({"type": "observation", "title": f"memory {i}", "content": f"body {i}",
                       **extra})


def test_jsonl_keeps_good_lines_and_reports_bad_ones(ws: Path, tmp_path: Path) -> None:
    lines = [record(1), "", "{not json", "[1, 2]", json.dumps({"type": "nope", "title": "t",
                                                                "content": "c"}),
             record(2, idempotency_key="k"), record(3, idempotency_key="k"),
             json.dumps({"title": "t", "content": "c", "type": "failure", "colour": "red"}),
             record(4, agent_id="agent-z")]
    path = tmp_path / "in.jsonl"
    path.write_bytes("\n".join(lines).encode() + b"\n\xff\xfe\x00\x01\n")
    result = run(ws, "submit", "--jsonl", str(path), "--agent", "importer")
    assert_clean_failure(result)
    assert result.stdout == "3 submitted, 1 duplicate, 5 bad lines\n"
    err = result.stderr
    assert "line 3: invalid JSON" in err
    assert "line 4: expected a JSON object, got list" in err
    assert "line 5: type: 'nope' is not an allowed memory type" in err
    assert "line 8: unknown field colour" in err
    assert "line 10: not UTF-8 text (byte 0xff at column 1)" in err
    memories = stored(ws)
    assert [m.title for m in memories] == ["memory 1", "memory 2", "memory 4"]
    assert [m.agent_id for m in memories] == ["importer", "importer", "agent-z"]


def test_jsonl_all_good_exits_zero_with_bom(ws: Path) -> None:
    data = "\ufeff" + "\n".join(record(i) for i in range(300)) + "\n"
    result = run(ws, "submit", "--jsonl", "-", input=data.encode("utf-8"))
    assert result.exit_code == 0, result.output
    assert result.stdout == "300 submitted, 0 duplicates, 0 bad lines\n"
    assert len(stored(ws)) == 300


def test_jsonl_binary_junk_on_stdin(ws: Path) -> None:
    junk = bytes(range(256)) * 40 + b"\x00" * 5000
    result = run(ws, "submit", "--jsonl", "-", input=junk)
    assert_clean_failure(result)
    assert "not UTF-8 text" in result.stderr
    assert result.stdout.startswith("0 submitted, 0 duplicates, ")


def test_jsonl_overlong_line_is_refused_without_reading_it_whole(ws: Path) -> None:
    huge = b"x" * (3 << 20)
    result = run(ws, "submit", "--jsonl", "-", input=huge + b"\n" + record(1).encode() + b"\n")
    assert_clean_failure(result)
    assert "line 1: longer than 1048576 bytes" in result.stderr
    assert result.stdout == "1 submitted, 0 duplicates, 1 bad line\n"


def test_jsonl_caps_the_messages(ws: Path) -> None:
    result = run(ws, "submit", "--jsonl", "-", input="nope\n" * 80)
    assert_clean_failure(result)
    assert result.stderr.count("invalid JSON") == 50
    assert "30 more messages not shown" in result.stderr
    assert result.stdout == "0 submitted, 0 duplicates, 80 bad lines\n"


def test_jsonl_notes_redactions(ws: Path) -> None:
    data = record(1, content=f"token {GITHUB_TOKEN}") + "\n" + record(2) + "\n"
    result = run(ws, "submit", "--jsonl", "-", input=data)
    assert result.exit_code == 0, result.output
    assert "line 1: note: secret redacted" in result.stderr
    assert "line 2" not in result.stderr
    assert all(GITHUB_TOKEN not in m.content for m in stored(ws))


# -- feedback --------------------------------------------------------------------------------------

def _live(ws: Path, slug: str) -> None:
    write_entry(ws / "workspace" / "memory", f"topics/{slug}.md", entry_text(slug))


def test_confirm_once_per_agent_and_day(ws: Path) -> None:
    _live(ws, "test-db-reset")
    first = run(ws, "confirm", "test-db-reset", "--note", "saved me a rerun", "--agent", "a")
    again = run(ws, "confirm", "test-db-reset", "--agent", "a")
    other = run(ws, "confirm", "test-db-reset", "--agent", "b")
    assert first.exit_code == again.exit_code == other.exit_code == 0
    assert first.stdout.startswith("confirmed test-db-reset (")
    assert again.stdout.startswith("already confirmed test-db-reset today by a")
    memories = stored(ws)
    assert len(memories) == 2
    assert memories[0].type == "context_confirmed"
    assert memories[0].metadata == {"target": "test-db-reset"}
    assert memories[0].content == "saved me a rerun"


def test_confirm_long_slug_fits_the_title_limit(ws: Path) -> None:
    slug = "-".join(["segment"] * 18)  # 143 characters: a valid slug, too long for a title
    _live(ws, slug)
    result = run(ws, "confirm", slug)
    assert result.exit_code == 0, result.output
    [memory] = stored(ws)
    assert memory.metadata["target"] == slug and len(memory.title) == 120
    assert result.stderr == ""


def test_confirm_bad_slug(ws: Path) -> None:
    result = run(ws, "confirm", "Not A Slug")
    assert_clean_failure(result)
    assert "slug 'Not A Slug' is invalid" in result.stderr


def test_confirm_of_no_live_entry_is_refused_and_stores_nothing(ws: Path) -> None:
    result = run(ws, "confirm", "no-such-entry")
    assert_clean_failure(result)
    assert "no-such-entry: no live entry has this slug" in result.stderr
    assert stored(ws) == []


def test_flag(ws: Path) -> None:
    result = run(ws, "flag", "CI maps 5433, not 5432", "--target", "ci-ports", "--target",
                 "db-setup", "--quote", "listens on 5432", "--agent", "agent-c")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("flagged ci-ports, db-setup (")
    [memory] = stored(ws)
    assert memory.type == "context_flagged" and memory.content == "CI maps 5433, not 5432"
    assert memory.metadata == {"targets": ["ci-ports", "db-setup"], "quote": "listens on 5432"}
    empty = run(ws, "flag", "   ")
    assert_clean_failure(empty)
    assert "observation" in empty.stderr


# -- status ----------------------------------------------------------------------------------------

def write_dream(ws: Path, name: str, status: str, decisions: list[str | None]) -> None:
    dreams = ws / ".dreamtui" / "dreams"
    dreams.mkdir(parents=True, exist_ok=True)
    proposals = [{"id": f"p-{i}", "decision": d} for i, d in enumerate(decisions)]
    (dreams / f"{name}.json").write_text(json.dumps({"id": name, "status": status,
                                                     "proposals": proposals}))


@pytest.fixture
def busy_ws(ws: Path) -> Path:
    memory = ws / "workspace" / "memory"
    for path, meta in (("topics/test-db-reset.md", {"importance": "pinned", "confirmations": 4}),
                       ("topics/ci-ports.md", {"flags": 2}), ("topics/node-version.md", {"flags": 0}),
                       ("incidents/2026-11/2026-11-02-outage.md", {}),
                       ("archive/topics/old-port.md", {"importance": "pinned"})):
        slug = Path(path).stem
        write_entry(memory, path, entry_text(slug, body=f"Guidance for {slug}.\n\nflags: 9 in the body does not count",
                                             tags=("x",), **meta))
    (memory / "archive" / "LOG.md").write_text("- 2026-11-29T03:00:12Z archive topics/old-port.md\n")
    (memory / "INDEX.md").write_text("# LTM Index\n")
    write_dream(ws, "d-20261129-030012-ab12", "open", [None, "accept", "defer"])
    write_dream(ws, "d-20261128-030012-cd34", "committed", [None])
    (ws / ".dreamtui" / "dreams" / "d-broken.json").write_text("{trunc")
    with STMStore(ws / "stm.db") as store:
        store.submit_many([NewMemory(type="failure", title="f", content="c"),
                           NewMemory(type="observation", title="o", content="c"),
                           NewMemory(type="context_flagged", title="fl", content="c")])
        lease = store.claim(limit=1, lease_minutes=5)
        assert lease is not None
        store.consume(lease.id, [lease.memories[0].id])
    return ws


def test_status_json(busy_ws: Path) -> None:
    result = run(busy_ws, "status", "--json")
    assert result.exit_code == 0, result.output
    status = json.loads(result.stdout)
    assert status["stm"] | {"last_lease_at": None} == {
        "pending": 2, "claimed": 0, "consumed": 1, "pending_memories": 1, "pending_feedback": 1,
        "pending_by_type": {"observation": 1}, "feedback_by_type": {"context_flagged": 1},
        "last_lease_at": None}
    assert status["stm"]["last_lease_at"].endswith("Z")
    assert status["ltm"] == {"topics": 3, "incidents": 1, "archived": 1, "pinned": 1, "flagged": 1,
                             "malformed": 0}
    assert status["dreams"] == {"open": 1, "ids": ["d-20261129-030012-ab12"],
                                "undecided_proposals": 2, "unreadable": ["d-broken.json"],
                                "last_fallback": None}


def test_status_human(busy_ws: Path) -> None:
    result = run(busy_ws, "status")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "2 pending · 0 claimed · 1 consumed" in out
    assert "feedback 1 flag" in out
    assert "3 topics · 1 incident live · 1 archived · 1 pinned · 1 flagged" in out
    assert "2 proposals await review" in out
    assert "d-broken.json could not be read" in out


def test_status_hook(busy_ws: Path, ws: Path) -> None:
    result = run(busy_ws, "status", "--hook")
    assert result.exit_code == 0
    # Run from outside the workspace (as a project's hook is), the line names it.
    assert result.stdout == ("dreamtui: 2 proposals await review in 1 dream; 1 memory and "
                             f"1 feedback report pending — run `dreamtui -w {busy_ws}`\n")


def test_status_hook_is_silent_when_nothing_waits(ws: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(ws, "status", "--hook")
    assert (result.exit_code, result.output) == (0, "")
    elsewhere = tmp_path / "not-a-workspace"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("DREAMTUI_WORKSPACE", raising=False)
    outside = CliRunner().invoke(main, ["status", "--hook"])
    assert (outside.exit_code, outside.output) == (0, "")
    loud = CliRunner().invoke(main, ["status"])
    assert loud.exit_code == 2 and "no workspace found" in loud.stderr


def test_status_json_and_hook_conflict(ws: Path) -> None:
    result = run(ws, "status", "--json", "--hook")
    assert_clean_failure(result)
    assert "choose one" in result.stderr


# -- purge -----------------------------------------------------------------------------------------

def test_purge(ws: Path) -> None:
    now = datetime.now(UTC)
    with STMStore(ws / "stm.db") as store:
        store.submit_many(NewMemory(type="failure", title=f"m{i}", content="c") for i in range(3))
        lease = store.claim(limit=2, lease_minutes=5)
        assert lease is not None
        store.consume(lease.id, [lease.memories[0].id], now=now - timedelta(days=45))
        store.consume(lease.id, [lease.memories[1].id], now=now - timedelta(days=5))
    result = run(ws, "purge", "--older-than", "30")
    assert result.exit_code == 0, result.output
    assert result.stdout == "purged 1 consumed memory older than 30 days\n"
    with STMStore(ws / "stm.db") as store:
        assert store.count(MemoryFilter(state="consumed")) == 1
        assert store.count() == 2
    negative = run(ws, "purge", "--older-than", "-1")
    assert negative.exit_code == 2


# -- a real process --------------------------------------------------------------------------------

def test_real_subprocess_bulk_and_hook(ws: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("DREAMTUI_WORKSPACE", None)
    data = "".join(record(i) + "\n" for i in range(50)).encode() + b"\x00\xff binary junk\n"
    bulk = subprocess.run([sys.executable, "-c", RUN_CLI, "-w", str(ws), "submit", "--jsonl", "-"],
                          input=data, capture_output=True, env=env, timeout=120, check=False)
    assert bulk.returncode == 2, bulk.stderr
    assert bulk.stdout == b"50 submitted, 0 duplicates, 1 bad line\n"
    assert b"line 51: not UTF-8 text" in bulk.stderr and b"Traceback" not in bulk.stderr
    hook = subprocess.run([sys.executable, "-c", RUN_CLI, "status", "--hook"], cwd=ws,
                          capture_output=True, env=env, timeout=120, check=False)
    assert hook.returncode == 0, hook.stderr
    assert hook.stdout == b"dreamtui: 50 memories pending \xe2\x80\x94 run `dreamtui`\n"  # from inside it


def test_an_os_error_is_a_message_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from dreamtui.cli import main
    from dreamtui.store.changesets import ChangesetStore

    (tmp_path / "dreamtui.yaml").write_text("")

    def full_disk(self: ChangesetStore) -> list:
        raise OSError(28, "No space left on device", str(self.dreams_dir))

    monkeypatch.setattr(ChangesetStore, "list", full_disk)
    result = CliRunner().invoke(main, ["--workspace", str(tmp_path), "review", "list"])
    assert result.exit_code == 1
    assert "No space left on device" in result.output and "Traceback" not in result.output


def test_status_points_at_malformed_entries_and_config_check_names_them(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from dreamtui.cli import main
    from dreamtui.scaffold import init_workspace

    workspace = init_workspace(tmp_path / "ws", git=False)
    (workspace.memory_root / "topics" / "bad.md").write_text("---\ntitle: [broken\n---\nx\n")
    runner = CliRunner()
    status = runner.invoke(main, ["--workspace", str(workspace.root), "status"])
    assert status.exit_code == 0 and "1 entry file cannot be read as an entry" in status.output
    check = runner.invoke(main, ["--workspace", str(workspace.root), "config", "check"])
    assert check.exit_code == 2
    assert "topics/bad.md:3" in check.output and "invalid YAML" in check.output
