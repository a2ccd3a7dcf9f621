"""Claude Code session-log import: detection rules, merging, incremental reads and the CLI.

The fixture logs under tests/fixtures/claude_code/projects use Claude Code's exact texts; the
project they belong to is /home/u/my-app (slug `-home-u-my-app`).
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

import dreamtui.cli.import_cmds  # noqa: F401  (attaches `import` to `main`)
from dreamtui.cli.main import main
from dreamtui.errors import InputError
from dreamtui.intake.claude_code import importer as claude_importer
from dreamtui.intake.claude_code.discovery import LogFile, belongs, find_logs, project_slug
from dreamtui.intake.claude_code.importer import ImportOptions, import_logs
from dreamtui.intake.claude_code.memories import build_memories
from dreamtui.intake.claude_code.parser import read_log
from dreamtui.intake.claude_code.rules import classify_tool_error, clean_user_text
from dreamtui.intake.corrections import correction_rule
from dreamtui.model import Memory, NewMemory
from dreamtui.store.stm import STMStore
from dreamtui.workspace.layout import Workspace, open_workspace

FIXTURES = Path(__file__).parents[1] / "fixtures" / "claude_code" / "projects"
PROJECT = "/home/u/my-app"
SLUG = "-home-u-my-app"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
            "it was a file edit, the new_string was NOT written to the file). ")
# Every lesson in the fixtures of /home/u/my-app: 16 frictions, two of them repeats and one an
# edit refused once without a word (the one-off tool errors of the fixtures are read but are no
# lesson, and Escs without a reason are dropped).
EXPECTED_MEMORIES = 13


def _age(root: Path, seconds: float = 86_400) -> None:
    """Make every log look finished (older than live_minutes)."""
    moment = time.time() - seconds
    for path in root.rglob("*.jsonl"):
        os.utime(path, (moment, moment))


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    target = tmp_path / "projects"
    shutil.copytree(FIXTURES, target)
    _age(target)
    return target


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "dreamtui.yaml").write_text("", encoding="utf-8")
    return open_workspace(root)


def _options(projects: Path, **changes: object) -> ImportOptions:
    return ImportOptions(projects_dir=projects, project=PROJECT, **changes)  # type: ignore[arg-type]


def _by_kind(memories: list[NewMemory]) -> dict[str, list[NewMemory]]:
    kinds: dict[str, list[NewMemory]] = {}
    for memory in memories:
        kinds.setdefault(memory.metadata["kind"], []).append(memory)
    return kinds


def _session(memories: list[NewMemory], prefix: str) -> list[NewMemory]:
    return [m for m in memories if m.metadata["session_id"].startswith(prefix)]


def _stored(workspace: Workspace) -> int:
    with sqlite3.connect(workspace.stm_path) as conn:
        return conn.execute("SELECT COUNT(*) FROM stm_memories").fetchone()[0]


@pytest.fixture
def dry(workspace: Workspace, projects: Path) -> list[NewMemory]:
    return import_logs(workspace, _options(projects, dry_run=True)).memories


# -- rules, as pure functions -----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "no, use pnpm for everything in this repo",
    "No. Revert that change",
    "nope, don't touch the lockfile",
    "no",
    "No!",
    "Don't edit generated files",
    "do not push to main",
    "stop running the whole suite",
    "that's wrong, we squash before committing",
    "Hmm. That's not what I asked for",
    "It is incorrect: the port is 5433",
    "revert that",
    "wrong file",
    "I said the staging database",
    "actually, use the async client instead",
    "wait, no, use the other fixture",
    "use httpx instead",
    "No \u2014 that\u2019s not right",
])
def test_corrections_fire_on_contradicting_openings(text: str) -> None:
    assert correction_rule(text) is not None


@pytest.mark.parametrize("text", [
    "no worries",
    "No problem, thanks!",
    "no need to hurry",
    "actually, also add a test for the retry",
    "Don't forget to run the linter",
    "don't worry about the docs",
    "never mind",
    "nothing wrong with that",
    "Is that wrong?",
    "if that's wrong, we can revert",
    "now run the tests",
    "notice the flaky test in CI",
    "great, thanks",
    "Add the endpoint instead of the old one, too",
])
def test_corrections_ignore_ordinary_words(text: str) -> None:
    assert correction_rule(text) is None


@pytest.mark.parametrize(("content", "kind", "reason"), [
    (REJECTED + "STOP what you are doing and wait for the user to tell you how to proceed.",
     "rejection", None),
    (REJECTED + "To tell you how to proceed, the user said:\nuse make clean",
     "rejection", "use make clean"),
    ("The user doesn't want to take this action right now. STOP what you are doing.",
     "rejection", None),
    (REJECTED + "To tell you how to proceed, the user said:\n"
     "The user wants to clarify these questions.\n- Which DB?",
     "clarification", "- Which DB?"),
    ("The user doesn\u2019t want to take this action right now.", "rejection", None),
    ("[Request interrupted by user for tool use]", "interruption", None),
    ("Permission to use Bash with command rm -rf / has been denied.", "denial", None),
    ("PreToolUse:Bash hook error: [guard.sh]: Blocked: no curl | sh", "hook_block", None),
    ("Blocked by hook: writes to .env are not allowed", "hook_block", None),
    ("The PreToolUse hook denied this call", "hook_block", None),
    ("Exit code 1\nnpm ERR! missing script: lint", "tool_error", None),
    ("File does not exist.", "tool_error", None),
])
def test_tool_errors_are_told_apart(content: str, kind: str, reason: str | None) -> None:
    assert classify_tool_error(content) == (kind, reason)


def test_skip_rules_clean_typed_text() -> None:
    assert clean_user_text("This session is being continued from a previous conversation that "
                           "ran out of context. no, use yarn") == ""
    assert clean_user_text("<command-name>/clear</command-name>\n<command-args></command-args>") == ""
    assert clean_user_text("<local-command-stdout>ok</local-command-stdout>") == ""
    assert clean_user_text("Caveat: The messages below were generated by the user.") == ""
    reminded = "<system-reminder>\nplan mode\n</system-reminder>\nno, use pnpm"
    assert clean_user_text(reminded) == "no, use pnpm"


def test_slug_replaces_every_non_alphanumeric() -> None:
    assert project_slug("/home/u/my.app") == "-home-u-my-app"
    assert project_slug("/home/u/my_app 2") == "-home-u-my-app-2"


# -- finding logs -----------------------------------------------------------------------------


def test_logs_are_found_by_slug_and_kept_by_cwd(projects: Path) -> None:
    logs = find_logs(projects, PROJECT)
    names = {log.path.name: belongs(log, PROJECT) for log in logs}
    assert names["66666666-6666-4666-8666-666666666666.jsonl"] is False  # /home/u/my.app, same slug
    assert names["88888888-8888-4888-8888-888888888888.jsonl"] is True  # started in my-app/src
    assert names["99999999-9999-4999-8999-999999999999.jsonl"] is False  # /home/u/my-app-old
    assert names["agent-a1b2c3.jsonl"] is True
    subagent = next(log for log in logs if log.subagent)
    assert subagent.scope == "77777777-7777-4777-8777-777777777777/agent-a1b2c3"


# -- what each fixture yields -----------------------------------------------------------------


def test_whole_corpus_yields_one_memory_per_distinct_friction(workspace: Workspace,
                                                              projects: Path) -> None:
    report = import_logs(workspace, _options(projects, dry_run=True))
    assert report.frictions == EXPECTED_MEMORIES + 3
    assert len(report.memories) == EXPECTED_MEMORIES
    assert report.other_project == 2
    for memory in report.memories:
        assert 0 < len(memory.title) <= 120
        assert memory.idempotency_key and memory.idempotency_key.startswith("cc:")
        assert memory.agent_id in ("claude-code", "claude-code/subagent")
        assert memory.tags == ("claude-code", memory.metadata["kind"])
        assert {"session_id", "record_uuid", "timestamp", "kind", "tool", "file_path",
                "occurrences"} <= set(memory.metadata)


def test_rejections_quote_the_reason_and_merge_repeats(dry: list[NewMemory]) -> None:
    kinds = _by_kind(_session(dry, "11111111"))
    assert sorted(kinds) == ["clarification", "rejection"]
    # The Write of README.md refused once without a word says nothing of the next edit: no lesson.
    remove, edit = sorted(kinds["rejection"], key=lambda m: m.metadata["tool"])
    assert edit.type == "failure"
    assert edit.metadata["file_path"] == "/home/u/my-app/src/config.py"
    assert edit.title == ("Use the existing helper in utils/config_helpers.py instead "
                          "(rejected: edit `src/config.py`)")  # written from the project
    assert edit.content.startswith("Do not edit `src/config.py`: the person "
                                   "rejected it at the permission prompt and said “use the existing")
    assert edit.metadata["reason"] == "use the existing helper in utils/config_helpers.py instead"
    assert "The agent had called: Edit src/config.py" in edit.content
    assert "I'll rename `load` in src/config.py." in edit.content  # its words, same message
    assert remove.metadata["tool"] == "Bash" and remove.metadata["occurrences"] == 2
    assert len(remove.metadata["record_uuids"]) == 2
    assert "Seen 2 times in this session" in remove.content
    clarify = kinds["clarification"][0]
    assert clarify.type == "observation" and clarify.metadata["tool"] == "AskUserQuestion"
    assert "Which database" in clarify.content


def test_a_reasonless_refusal_with_its_marker_is_a_rejection(dry: list[NewMemory]) -> None:
    kinds = _by_kind(_session(dry, "22222222"))
    # Claude Code writes the marker after every refusal at the prompt: still a rejection. The
    # interrupted tool and the plain marker were Escs the person gave no reason for: no lesson.
    assert list(kinds) == ["rejection"]
    [rejection] = kinds["rejection"]
    assert rejection.metadata["tool"] == "Bash" and rejection.metadata["reason"] is None
    assert rejection.title == "Refused without a reason, ask first: run `alembic upgrade head`"


def test_denials_hooks_and_tool_errors_name_the_tool(dry: list[NewMemory]) -> None:
    kinds = _by_kind(_session(dry, "33333333"))
    assert [m.metadata["tool"] for m in kinds["denial"]] == ["Bash"]
    assert kinds["denial"][0].title == "Do not run `git push` here: a permission rule denies it"
    assert sorted(m.metadata["tool"] for m in kinds["hook_block"]) == ["Bash", "Write"]
    assert kinds["hook_block"][0].title.startswith("A hook blocks `curl https://example.com/install.sh`")
    # The session's tool errors (a missing file, an Edit mismatch, a failed fetch) happened once,
    # in one session, the agent went on: exploration, no lesson.
    assert "tool_error" not in kinds


def test_secrets_in_evidence_are_redacted(workspace: Workspace, projects: Path) -> None:
    log = LogFile.at(projects / SLUG / "33333333-3333-4333-8333-333333333333.jsonl", True)
    [fetch] = [f for f in read_log(log, "x").frictions if "ghp_" in f.evidence]
    [memory] = build_memories([fetch], workspace.config)
    assert "ghp_" not in memory.content and "[REDACTED:github-token]" in memory.content
    assert memory.extra["redacted"] == ["github-token"]


def test_corrections_follow_actions_and_skip_ordinary_turns(dry: list[NewMemory]) -> None:
    memories = _session(dry, "44444444")
    assert {m.metadata["kind"] for m in memories} == {"correction"}
    said = {m.metadata["occurrences"]: m for m in memories if "pnpm" in m.title}
    assert list(said) == [2]
    titles = sorted(m.title for m in memories)
    assert titles == [
        "Actually, use the async client instead",
        "Don't edit generated files in src/util.js, they come from the codegen step",
        "No, use pnpm for everything in this repo",
        "That's wrong, we squash before committing",
    ]
    pnpm = said[2]
    assert pnpm.content.startswith("Do as the person said after it tried to run `npm install "
                                   "left-pad`: “no, use pnpm for everything in this repo”")
    assert "The agent had just called: Bash npm install left-pad" in pnpm.content
    assert "The agent had said: “Installed left-pad with npm.”" in pnpm.content


def test_malformed_lines_and_invalid_utf8_are_counted_not_fatal(workspace: Workspace,
                                                                projects: Path) -> None:
    log = LogFile.at(projects / SLUG / "55555555-5555-4555-8555-555555555555.jsonl", True)
    outcome = read_log(log, "x")
    stats = outcome.stats
    assert (stats.malformed, stats.invalid_utf8, stats.incomplete_tail) == (4, 1, 1)
    assert [f.kind for f in outcome.frictions] == ["tool_error"]
    assert "\ufffd" in outcome.frictions[0].evidence
    size = log.path.stat().st_size
    tail = log.path.read_bytes().rsplit(b"\n", 1)[1]
    assert outcome.offset == size - len(tail)  # the unfinished line is left for later


def test_records_the_fast_decoder_refuses_are_read_as_before(tmp_path: Path) -> None:
    """A lone surrogate escape (an emoji cut in half) and deep nesting are valid JSON to Python:
    such a record is still read, not counted malformed."""
    log = tmp_path / SLUG / "66666666-6666-4666-8666-666666666666.jsonl"
    log.parent.mkdir()
    nested = "[" * 300 + "]" * 300
    log.write_text(
        '{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":'
        '[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}\n'
        '{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result",'
        '"tool_use_id":"t1","is_error":true,"content":"make: *** no rule \\ud83d"}]}}\n'
        f'{{"type":"system","uuid":"s1","subtype":"other","data":{nested}}}\n', encoding="utf-8")
    outcome = read_log(LogFile.at(log, True), "x")
    assert (outcome.stats.records_parsed, outcome.stats.malformed) == (3, 0)
    assert [f.kind for f in outcome.frictions] == ["tool_error"]
    assert "no rule \ud83d" in outcome.frictions[0].evidence


def test_a_long_target_gives_the_line_of_the_whole_text() -> None:
    """The shortcut for megabyte commands quotes what `one_line` over the whole text would."""
    from dreamtui.intake.claude_code.parser import _one_line
    from dreamtui.intake.lessons import one_line

    pieces = ["a", "b", " ", "\n", "\t", "é", "\u3000", "x" * 30, "\r\n", "\x1b[31m", "\u241b[0m",
              "\x1b]0;title\x07"]
    rng = random.Random(12)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 120))) for _ in range(3000)]
    texts += ["cat > f <<'EOF'\n" + "line   of\ttext\n" * 100_000 + "EOF", " " * 500 + "ls"]
    for text in texts:
        for limit in (5, 20, 100):
            assert _one_line(text, limit) == one_line(text, limit), (text[:80], limit)


def test_subagent_transcripts_are_their_own_agent(dry: list[NewMemory]) -> None:
    memories = _session(dry, "77777777")
    assert len(memories) == 1
    sub = memories[0]
    assert sub.agent_id == "claude-code/subagent"
    assert sub.idempotency_key.startswith("cc:77777777-7777-4777-8777-777777777777/agent-a1b2c3:")
    assert sub.metadata["sidechain"] is True and "only search inside the repo" in sub.title.lower()


def test_memory_types_follow_the_config(workspace: Workspace, projects: Path) -> None:
    only_observations = workspace.config.model_copy(update={"memory_types": ["observation"]})
    narrow = Workspace(workspace.root, workspace.config_path, only_observations)
    memories = import_logs(narrow, _options(projects, dry_run=True)).memories
    assert {m.type for m in memories} == {"observation"}
    no_fit = workspace.config.model_copy(update={"memory_types": ["code_snippet"]})
    with pytest.raises(InputError, match="memory_types"):
        import_logs(Workspace(workspace.root, workspace.config_path, no_fit),
                    _options(projects, dry_run=True))


# -- submitting and incremental import --------------------------------------------------------


def test_import_submits_and_reimport_reads_nothing(workspace: Workspace, projects: Path) -> None:
    first = import_logs(workspace, _options(projects))
    assert (first.inserted, first.duplicates) == (EXPECTED_MEMORIES, 0)
    assert _stored(workspace) == EXPECTED_MEMORIES
    again = import_logs(workspace, _options(projects))
    assert (again.read, again.stats.bytes_read, again.inserted) == (0, 0, 0)
    assert again.unchanged == first.read
    assert _stored(workspace) == EXPECTED_MEMORIES


def test_unchanged_reimport_decodes_only_its_own_states(workspace: Workspace, projects: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing new: no other log's state is decoded and the queue is not opened (the re-import
    of a project in a workspace holding many took 0.07 s on real logs, now 0.02 s)."""
    first = import_logs(workspace, _options(projects))
    asked: list[object] = []

    def spy(ws: Workspace, source: str, paths: object = None, keys: object = None) -> object:
        asked.append(paths)
        return real(ws, source, paths, keys)  # type: ignore[arg-type]

    real = claude_importer.load_states
    monkeypatch.setattr(claude_importer, "load_states", spy)
    monkeypatch.setattr(claude_importer.STMStore, "for_workspace",
                        lambda *_: pytest.fail("the queue was opened with nothing to submit"))
    again = import_logs(workspace, _options(projects))
    assert (again.read, again.unchanged) == (0, first.read)
    assert asked and all(paths is not None for paths in asked)


def test_dry_run_submits_and_remembers_nothing(workspace: Workspace, projects: Path) -> None:
    report = import_logs(workspace, _options(projects, dry_run=True))
    assert len(report.memories) == EXPECTED_MEMORIES and report.inserted == 0
    assert not workspace.stm_path.exists()
    assert import_logs(workspace, _options(projects)).inserted == EXPECTED_MEMORIES


def _one_log_projects(tmp_path: Path, name: str) -> tuple[Path, Path, bytes]:
    source = FIXTURES / SLUG / name
    target = tmp_path / "only" / SLUG / name
    target.parent.mkdir(parents=True)
    return tmp_path / "only", target, source.read_bytes()


def test_appended_log_is_read_from_where_it_stopped(workspace: Workspace, tmp_path: Path) -> None:
    projects, log, data = _one_log_projects(tmp_path, "33333333-3333-4333-8333-333333333333.jsonl")
    lines = data.splitlines(keepends=True)
    # Cut between the npm test tool_use and its error: the tool must still be named after the cut.
    cut = next(i for i, line in enumerate(lines) if b"Exit code 1\\n" in line)
    head, rest = b"".join(lines[:cut]), b"".join(lines[cut:])
    log.write_bytes(head)
    _age(projects)
    first = import_logs(workspace, _options(projects))
    assert first.stats.bytes_read == len(head) and first.inserted == 3
    with open(log, "ab") as handle:
        handle.write(rest)
    _age(projects, 3600)
    second = import_logs(workspace, _options(projects))
    assert (second.stats.bytes_read, second.stats.lines_read) == (len(rest), len(lines) - cut)
    assert second.inserted == 0 and second.single_errors == 1  # a one-off test failure
    # Read from the cut with the context carried over, the failed result still names its call.
    resumed = read_log(LogFile.at(log, True), "x", len(head), _context_at(log, len(head)))
    [error] = [f for f in resumed.frictions if f.kind == "tool_error"]
    assert error.call is not None and error.call.describe() == "Bash npm test"


def _context_at(log: Path, offset: int) -> dict[str, object]:
    """The context a read of the log's first `offset` bytes carries to the next import."""
    data = log.read_bytes()
    head = log.with_name("head.jsonl")
    head.write_bytes(data[:offset])
    try:
        return read_log(LogFile.at(head, True), "x", 0).context
    finally:
        head.unlink()


def test_unfinished_last_line_is_read_once_complete(workspace: Workspace, tmp_path: Path) -> None:
    projects, log, data = _one_log_projects(tmp_path, "11111111-1111-4111-8111-111111111111.jsonl")
    last = data.splitlines(keepends=True)[-2]  # the assistant turn that settles the Write rejection
    body = data[: -len(data.splitlines(keepends=True)[-1])]
    log.write_bytes(body[: -len(last)] + last[:40])
    _age(projects)
    first = import_logs(workspace, _options(projects))
    assert first.stats.incomplete_tail == 1
    log.write_bytes(body)
    _age(projects, 3600)
    second = import_logs(workspace, _options(projects))
    assert second.stats.bytes_read == len(last) and second.stats.incomplete_tail == 0
    assert second.stats.malformed == 0


def test_rewritten_log_is_read_whole_without_duplicates(workspace: Workspace, tmp_path: Path) -> None:
    projects, log, data = _one_log_projects(tmp_path, "11111111-1111-4111-8111-111111111111.jsonl")
    log.write_bytes(data)
    _age(projects)
    assert import_logs(workspace, _options(projects)).inserted == 3
    lines = data.splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-3]) + lines[-1] + lines[-1])  # shorter and different
    _age(projects, 3600)
    again = import_logs(workspace, _options(projects))
    assert again.stats.bytes_read == log.stat().st_size
    assert again.inserted == 0 and again.duplicates > 0


def test_a_repeat_in_an_appended_log_raises_the_pending_count(workspace: Workspace,
                                                              tmp_path: Path) -> None:
    projects, log, data = _one_log_projects(tmp_path, "11111111-1111-4111-8111-111111111111.jsonl")
    lines = data.splitlines(keepends=True)
    # Cut after the first `rm -rf build/` rejection has settled, before its repeat.
    cut = next(i for i, line in enumerate(lines) if b"Clean build again" in line)
    log.write_bytes(b"".join(lines[:cut]))
    _age(projects)
    assert import_logs(workspace, _options(projects)).inserted == 2

    def bash_rejection() -> Memory:
        with STMStore.for_workspace(workspace) as store:
            [memory] = [m for m in store.page(limit=50) if m.metadata.get("tool") == "Bash"]
        return memory

    assert bash_rejection().metadata["occurrences"] == 1
    assert "Seen" not in bash_rejection().content
    log.write_bytes(data)
    _age(projects, 3600)
    second = import_logs(workspace, _options(projects))
    assert (second.inserted, second.recounted) == (1, 1)  # the clarification (the Write: no word)
    memory = bash_rejection()
    assert memory.metadata["occurrences"] == 2
    assert memory.metadata["record_uuids"] == ["111111-0014", "111111-0022"]
    assert memory.content.endswith("Seen 2 times in this session (last 2026-11-02T09:01:03.000Z).")
    # A log read whole again (it shrank) holds the same records: nothing is counted twice.
    log.write_bytes(b"".join(lines[:-1]))
    _age(projects, 7200)
    third = import_logs(workspace, _options(projects))
    assert third.stats.bytes_read == log.stat().st_size and third.recounted == 0
    assert bash_rejection().metadata["occurrences"] == 2
    assert _stored(workspace) == 3


def test_a_claimed_memory_keeps_its_count(workspace: Workspace, tmp_path: Path) -> None:
    projects, log, data = _one_log_projects(tmp_path, "11111111-1111-4111-8111-111111111111.jsonl")
    lines = data.splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b"Clean build again" in line)
    log.write_bytes(b"".join(lines[:cut]))
    _age(projects)
    import_logs(workspace, _options(projects))
    with STMStore.for_workspace(workspace) as store:
        assert store.claim(limit=10, lease_minutes=60) is not None  # a dream is reading them
    log.write_bytes(data)
    _age(projects, 3600)
    assert import_logs(workspace, _options(projects)).recounted == 0


def test_live_sessions_wait_unless_included(workspace: Workspace, projects: Path) -> None:
    live = projects / SLUG / "22222222-2222-4222-8222-222222222222.jsonl"
    os.utime(live)  # written to just now
    report = import_logs(workspace, _options(projects, live_minutes=10))
    assert report.live == 1
    assert not _session(report.memories, "22222222")
    report = import_logs(workspace, _options(projects, live_minutes=10, include_live=True))
    assert report.read == 1 and len(_session(report.memories, "22222222")) == 1


def test_since_skips_older_logs(workspace: Workspace, projects: Path) -> None:
    recent = projects / SLUG / "33333333-3333-4333-8333-333333333333.jsonl"
    _age(projects, 10 * 86_400)
    moment = time.time() - 3600
    os.utime(recent, (moment, moment))
    since = datetime.now(UTC) - timedelta(days=2)
    report = import_logs(workspace, _options(projects, since=since, dry_run=True))
    assert report.read == 1 and report.too_old == report.logs - 1


# -- the command ------------------------------------------------------------------------------


def _cli(workspace: Workspace, projects: Path, *args: str) -> object:
    return CliRunner().invoke(main, ["--workspace", str(workspace.root), "import", "claude-code",
                                     "--projects-dir", str(projects), "--project", PROJECT, *args])


def test_cli_dry_run_prints_memories_and_submits_nothing(workspace: Workspace, projects: Path) -> None:
    result = _cli(workspace, projects, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "[failure] No, use pnpm for everything in this repo  (×2)" in result.output
    assert "key: cc:" in result.output
    assert f"{EXPECTED_MEMORIES} would be submitted (dry run: nothing submitted)" in result.output
    assert "4 malformed lines skipped" in result.output
    assert not workspace.stm_path.exists()


def test_cli_imports_then_reports_nothing_new(workspace: Workspace, projects: Path) -> None:
    result = _cli(workspace, projects)
    assert result.exit_code == 0, result.output
    assert f"{EXPECTED_MEMORIES} new, 0 already imported" in result.output
    assert "2 of another project" in result.output
    result = _cli(workspace, projects)
    assert "0 new, 0 already imported" in result.output and "unchanged" in result.output
    with STMStore.for_workspace(workspace) as store:
        assert store.count() == EXPECTED_MEMORIES


def test_cli_default_project_is_the_workspace_folder(workspace: Workspace, projects: Path) -> None:
    result = CliRunner().invoke(main, ["--workspace", str(workspace.root), "import", "claude-code",
                                       "--projects-dir", str(projects)])
    assert result.exit_code == 0, result.output
    assert f"no session logs for {workspace.root}" in result.output
    assert project_slug(str(workspace.root)) in result.output


def test_cli_explains_bad_input(workspace: Workspace, projects: Path, tmp_path: Path) -> None:
    result = _cli(workspace, projects, "--since", "yesterday-ish")
    assert result.exit_code == 2 and "--since" in result.output and "7d" in result.output
    missing = tmp_path / "nowhere"
    result = CliRunner().invoke(main, ["--workspace", str(workspace.root), "import", "claude-code",
                                       "--projects-dir", str(missing)])
    assert result.exit_code == 2
    assert f"--projects-dir {missing}: not a folder" in result.output
    assert "Traceback" not in result.output
