"""Property-based fuzzing of every parser that reads text someone else wrote.

Each parser must turn any input into its result or its own error type (which the CLI shows as
a message), never another exception (which would be a traceback). Inputs are arbitrary values
and mutations of valid documents, so the search reaches past the first validation step.
Settings are derandomized, so a run tries the same examples every time (how many: the Hypothesis
profile, see tests/conftest.py); each test prints how many it tried.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dreamtui.entry.codec import parse_entry
from dreamtui.errors import ConfigError, EntryError, InputError
from dreamtui.intake import validate
from dreamtui.intake.claude_code.discovery import LogFile
from dreamtui.intake.claude_code.memories import build_memories
from dreamtui.intake.claude_code.parser import read_log
from dreamtui.intake.claude_code.rules import classify_tool_error, clean_user_text
from dreamtui.intake.corrections import TurnRule, correction_rule
from dreamtui.intake.lessons import KIND_TYPES
from dreamtui.model import Changeset, Entry, NewMemory
from dreamtui.review import bundle
from dreamtui.store.changesets import changeset_from_dict
from dreamtui.store.ltm import render_index
from dreamtui.workspace import config
from dreamtui.workspace.config import Config, load_config, parse_config

# How many examples comes from the Hypothesis profile (tests/conftest.py: `dev` few, `ci` many).
FUZZ = settings(derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CONFIG = Config()


@pytest.fixture
def tried(capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[[str], None]]:
    """Count examples; print the count when the test ends (shown even under capture)."""
    counts: dict[str, int] = {}

    def count(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    yield count
    with capsys.disabled():
        for name, n in counts.items():
            print(f"\nfuzz {name}: {n} examples tried")


# -- strategies -------------------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=20)
yaml_scalars = (json_scalars | st.dates() | st.datetimes()
                | st.sampled_from(["${env:HOME}", "${env:NOPE_NOT_SET}", "${env:X:-1}", "~", ".inf"]))


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """`text` after a few edits: cut a span, insert junk, repeat or drop a line, swap two lines."""
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cut", "insert", "repeat", "drop", "swap"]))
        if kind in ("cut", "insert"):
            at = draw(st.integers(0, len(text)))
            if kind == "cut":
                text = text[:at] + text[at + draw(st.integers(1, 40)):]
            else:
                junk = draw(st.text(max_size=12) | st.sampled_from(
                    ["---", "\n", ": ", "[", "]", "{", "&a", "*a", "!!binary ", "- ", "\t", "'", '"',
                     "\ufeff", "\u202e", "2026-02-30", ".inf", "? "]))
                text = text[:at] + junk + text[at:]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "repeat":
                lines.insert(i, lines[j])
            elif kind == "drop" and len(lines) > 1:
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


# -- LTM entries ------------------------------------------------------------------------------

VALID_ENTRY = """---
title: Reset the test database before integration tests
slug: test-db-reset
type: topic                 # topic | incident
tags: [testing, database]
created_at: 2026-11-02T09:14:00Z
updated_at: 2026-11-20T17:40:00Z
related: [ci-flaky-ports]
sources: [stm:18eafcdd-f39a-4eaa-bb42-6a20a9e0697c]
confirmations: 4
last_confirmed: 2026-11-19T10:00:00Z
flags: 1
importance: pinned
custom: {nested: [1, 2, {deep: true}]}
---
Run `make db-reset` before `pytest tests/integration`; the suite assumes an empty schema.

Details, examples and caveats follow the first paragraph.
"""
# Well-formed `key: value` lines with values that are odd for their key: these reach past the
# YAML parser into what the store, the index and the bundle compute from an entry.
VALUE_LINES = st.sampled_from([
    "tags: 5", "tags: [a, [b]]", "tags: null", "confirmations: .inf", "confirmations: -3",
    "confirmations: 1e400", "confirmations: [1]", "flags: .nan", "flags: -.inf", "flags: true",
    "importance: pinned", "importance: 7", "created_at: 2026-02-30", "updated_at: 2026-11-02",
    "last_confirmed: 12", "updated_at: not a date", "sources: {a: 1}", "sources: [1, null]",
    "related: x", "type: incident", "x: &a [*a]", "title: [1]", "slug: A B", "retired_at: .inf",
])
# Lines that break the YAML structure in the ways hand edits do.
JUNK_LINES = st.sampled_from(["---", "? [a]", ": b", "key: |", "  block", "- item", "\ttab: 1",
                              "# comment", "", "slug: a-b", "title:"])


def _use_entry(entry: Entry) -> None:
    """Everything the store, the index and the bundle read from an entry."""
    _ = (entry.slug, entry.title, entry.kind, entry.tags, entry.pinned, entry.archived,
         entry.confirmations, entry.flags, entry.sources, entry.guidance, entry.sha256)
    bundle.guidance_line(entry)
    bundle.render_bundle([entry])
    render_index([entry])


def _parse_entry_or_error(text: str, path: str = "topics/x.md") -> None:
    try:
        entry = parse_entry(text, path)
    except EntryError as exc:
        assert exc.path == path and exc.reason
        return
    _use_entry(entry)


def test_entry_parser_on_arbitrary_text(tried: Callable[[str], None]) -> None:
    @FUZZ
    @given(st.text(max_size=400)
           | st.lists(VALUE_LINES | JUNK_LINES | st.text(max_size=30), max_size=12).map("\n".join)
           | st.lists(VALUE_LINES, max_size=4).map(
               lambda ls: "---\nslug: fuzz\ntitle: Fuzz\n" + "\n".join(ls) + "\n---\nBody\n"))
    @example("---\nslug: a\ntitle: t\nconfirmations: .inf\n---\nx\n")  # once an OverflowError
    def run(text: str) -> None:
        tried("ltm.parse_entry (arbitrary text)")
        _parse_entry_or_error(text)
        _parse_entry_or_error(text, "archive/incidents/2026-11/2026-11-02-x.md")

    run()


def test_entry_parser_on_mutated_valid_entries(tried: Callable[[str], None]) -> None:
    _use_entry(parse_entry(VALID_ENTRY, "topics/test-db-reset.md"))  # the seed itself is valid

    @FUZZ
    @given(mutated(VALID_ENTRY))
    def run(text: str) -> None:
        tried("ltm.parse_entry (mutated entries)")
        _parse_entry_or_error(text, "topics/test-db-reset.md")

    run()


# -- config -----------------------------------------------------------------------------------

KEYS = {name: sorted(section.model_fields) for name, section in (
    ("stm", config.STMConfig), ("ltm", config.LTMConfig), ("context", config.ContextConfig),
    ("dream", config.DreamConfig), ("headless", config.HeadlessConfig), ("git", config.GitConfig),
    ("ui", config.UIConfig), ("claude_code", config.ClaudeCodeIntakeConfig), ("mcp", config.MCPConfig))}
yaml_values = st.recursive(
    yaml_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(max_size=10) | st.integers() | st.none() | st.booleans(), inner, max_size=4),
    max_leaves=12)


@st.composite
def config_documents(draw: st.DrawFn) -> Any:
    """Mostly real sections and keys with values of any type, so validation goes deep."""
    if draw(st.booleans()):
        return draw(yaml_values)
    document: dict[Any, Any] = {}
    for section in draw(st.lists(st.sampled_from([*KEYS, "memory_types", "version", "extra"]),
                                 max_size=4)):
        if section in KEYS:
            keys = st.sampled_from(KEYS[section]) | st.text(max_size=8)
            document[section] = draw(st.dictionaries(keys, yaml_values, max_size=4) | yaml_values)
        else:
            document[section] = draw(yaml_values | st.lists(st.text(max_size=12), max_size=3))
    return document


def test_config_parser_on_arbitrary_documents(tried: Callable[[str], None]) -> None:
    path = Path("dreamtui.yaml")

    @FUZZ
    @given(config_documents(), st.dictionaries(st.sampled_from(["HOME", "X"]), st.text(max_size=8)))
    def run(document: Any, environ: dict[str, str]) -> None:
        tried("config.parse_config")
        try:
            assert isinstance(parse_config(document, path, environ), Config)
        except ConfigError as exc:
            assert exc.problems and all(isinstance(p, str) for p in exc.problems)

    run()


def test_config_loader_on_arbitrary_files(tried: Callable[[str], None]) -> None:
    template = (Path(config.__file__).parent / "templates" / "dreamtui.yaml").read_text("utf-8")
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / "dreamtui.yaml", Path(folder) / "dreamer.yaml"]

        @FUZZ
        @given(st.binary(max_size=300) | mutated(template).map(str.encode)
               | st.lists(st.sampled_from(["stm:", "  path: [", "a: 2026-02-30", "x: &a [*a]",
                                           "[" * 50, "{" * 300, "? [a]", ": 1",
                                           "!!python/name:os.system",
                                           "version: !!binary ab", "\t- x", "b: *missing"]), max_size=6)
               .map(lambda ls: "\n".join(ls).encode()),
               st.booleans())
        def run(data: bytes, dreamer: bool) -> None:
            tried("config.load_config (file bytes)")
            path = paths[dreamer]
            path.write_bytes(data)
            try:
                assert isinstance(load_config(path, environ={}), Config)
            except ConfigError as exc:
                assert exc.path == path and exc.problems

        run()


# -- Claude Code session logs -------------------------------------------------------------------

TOOL_ERRORS = st.sampled_from([
    "The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you "
    "how to proceed, the user said: use pnpm", "[Request interrupted by user]",
    "PreToolUse:Bash hook error: blocked", "Permission to use Bash has been denied",
    "<tool_use_error>exit 1</tool_use_error>", "The user wants to clarify these questions."])
USER_TEXTS = st.sampled_from(["no, use pnpm instead", "don't touch that", "that's wrong",
                              "[Request interrupted by user for tool use]", "actually, use X instead",
                              "<command-name>/clear</command-name>", "thanks"])
tool_ids = st.sampled_from(["t1", "t2"]) | json_values
blocks = st.one_of(
    st.fixed_dictionaries({
        "type": st.just("tool_use"), "id": tool_ids,
        "name": st.sampled_from(["Bash", "Edit"]) | json_values,
        "input": st.fixed_dictionaries({"command": st.text(max_size=20)}) | json_values}),
    st.fixed_dictionaries({
        "type": st.just("tool_result"), "tool_use_id": tool_ids,
        "is_error": st.just(True) | json_values,
        "content": TOOL_ERRORS | json_values | st.lists(st.fixed_dictionaries(
            {"type": st.just("text"), "text": TOOL_ERRORS | json_values}), max_size=2)}),
    st.fixed_dictionaries({"type": st.just("text"), "text": USER_TEXTS | json_values}),
    json_values)
records = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "summary"]) | json_values,
     "message": st.fixed_dictionaries({"id": json_values, "content": st.lists(blocks, max_size=3)
                                       | USER_TEXTS | json_values}) | json_values},
    optional={"isSidechain": st.booleans() | json_values, "uuid": st.text(max_size=10) | json_values,
              "cwd": st.sampled_from(["/p", "/p/src"]) | json_values, "sessionId": json_values,
              "timestamp": json_values, "isMeta": json_values, "isCompactSummary": json_values})
log_lines = st.lists(
    records.map(lambda r: json.dumps(r).encode())
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=60).filter(lambda b: b"\n" not in b)
    | st.sampled_from([b"{", b"{}", b"[1]", b'{"type": "user", "message": {"content": "no\xff"}}',
                       b"\xef\xbb\xbf{}", b"{" * 200 + b"}" * 200, b"   "]),
    max_size=12)


def test_session_log_reader_on_arbitrary_lines(tried: Callable[[str], None]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session-1.jsonl"
        log = LogFile.at(path, exact_slug=True)

        # Two file reads an example, the slowest target: two thirds of the profile's examples.
        @settings(FUZZ, max_examples=max(1, FUZZ.max_examples * 2 // 3))
        @given(log_lines, st.booleans())
        def run(lines: list[bytes], finished: bool) -> None:
            tried("claude_code.read_log + build_memories")
            data = b"\n".join(lines) + (b"\n" if finished else b"")
            path.write_bytes(data)
            read = read_log(log, "session-1.jsonl")
            assert read.stats.malformed <= read.stats.lines_read <= data.count(b"\n")
            assert read.offset <= len(data)
            # the context carried to the next import must read back too
            again = read_log(log, "session-1.jsonl", start=read.offset,
                             context=json.loads(json.dumps(read.context)))
            assert again.frictions == []
            try:
                memories = build_memories(read.frictions, CONFIG)
            except InputError:
                return  # a friction whose text the intake gate refuses: named, not a crash
            assert all(isinstance(m, NewMemory) for m in memories)

        run()


def test_friction_rules_on_arbitrary_text(tried: Callable[[str], None]) -> None:
    @FUZZ
    @given(st.text(max_size=200) | TOOL_ERRORS | USER_TEXTS)
    def run(text: str) -> None:
        tried("claude_code friction rules")
        kind, reason = classify_tool_error(text)
        assert kind in KIND_TYPES and (reason is None or isinstance(reason, str))
        rule = correction_rule(text)
        assert rule is None or rule in get_args(TurnRule)
        clean_user_text(text)

    run()


# -- intake validation (the MCP tools and JSONL) ---------------------------------------------------

memory_records = st.fixed_dictionaries(
    {"type": st.sampled_from(["observation", "failure", "recipe", "context_flagged"]) | json_values,
     "title": st.text(max_size=130) | json_values, "content": st.text(max_size=100) | json_values},
    optional={"tags": st.lists(st.text(max_size=70), max_size=3) | json_values,
              "metadata": st.dictionaries(st.text(max_size=5), json_values, max_size=3) | json_values,
              "idempotency_key": st.text(max_size=210) | json_values,
              "agent_id": st.text(max_size=10) | json_values, "extra": json_values,
              "unknown": json_values})


def test_intake_validation_on_arbitrary_arguments(tried: Callable[[str], None]) -> None:
    @FUZZ
    @given(memory_records | json_values)
    def run(record: Any) -> None:
        tried("validate.from_json")
        try:
            memory = validate.from_json(record, CONFIG)
        except InputError as exc:
            assert str(exc)
            return
        assert isinstance(memory, NewMemory) and memory.type in CONFIG.submit_types
        assert len(memory.title) <= CONFIG.stm.max_title_chars

    run()


def test_feedback_and_prepare_on_arbitrary_arguments(tried: Callable[[str], None]) -> None:
    text = st.text(max_size=80) | st.sampled_from(
        ["", "  ", "../etc", "Not A Slug", "a" * 201, "ok-slug"])

    @FUZZ
    @given(st.sampled_from(["confirm", "flag", "prepare"]), text, text, st.none() | text,
           st.none() | st.lists(text, max_size=3), st.lists(st.text(max_size=70), max_size=3),
           st.dictionaries(st.text(max_size=5), json_values, max_size=3))
    def run(tool: str, first: str, agent: str, note: str | None, targets: list[str] | None,
            tags: list[str], metadata: dict[str, Any]) -> None:
        tried("validate.confirmation / flag / prepare")
        try:
            if tool == "confirm":
                memory = validate.prepare(validate.confirmation(first, agent or "a", note), CONFIG)
            elif tool == "flag":
                memory = validate.prepare(validate.flag(first, targets, note, agent or "a"), CONFIG)
            else:
                memory = validate.prepare(NewMemory(type="observation", title=first, content=agent,
                                                    agent_id=note or "a", tags=tuple(tags),
                                                    metadata=metadata), CONFIG)
        except InputError as exc:
            assert str(exc)
            return
        assert isinstance(memory, NewMemory)

    run()


# -- changesets -------------------------------------------------------------------------------

VALID_CHANGESET: dict[str, Any] = {
    "id": "d-20261129-030012-ab12", "engine": "heuristic", "created_at": "2026-11-29T03:00:12Z",
    "status": "open", "complete": True, "lease_id": "9f2c", "batch": ["m1", "m2", "m3"],
    "stats": {"batch_size": 3,
              "history": [{"step": 1, "proposal": "p-1", "from": None, "to": "accept"}]},
    "usage": {"input_tokens": 10}, "left_out": [],
    "proposals": [
        {"id": "p-1", "op": "update", "target": "topics/a.md", "slug": "a", "base_sha256": "00",
         "before": "old", "after": "new", "rationale": "r", "evidence": ["m1"], "confidence": 0.8,
         "safety": [], "decision": "accept", "details": {"added_sources": ["stm:m1"]}},
        {"id": "p-2", "op": "discard", "target": "stm:m2", "slug": None, "base_sha256": None,
         "before": None, "after": None, "rationale": "dup", "evidence": ["m2"], "confidence": 1,
         "safety": ["injection-suspected"], "decision": None, "details": {"reason": "dup"}},
        {"id": "p-3", "op": "context", "target": "context/AGENTS.md", "slug": None,
         "base_sha256": None, "before": "b", "after": "a", "rationale": "", "evidence": [],
         "confidence": 0.5, "safety": [], "decision": None, "details": {"left_out": []}}],
    "refused": [{"op": "archive", "target": "topics/p.md", "reason": "pinned", "raw": {}}],
}


@st.composite
def mutated_changesets(draw: st.DrawFn) -> Any:
    """The valid changeset with a few fields replaced by any JSON value, or removed."""
    document = json.loads(json.dumps(VALID_CHANGESET))
    for _ in range(draw(st.integers(1, 3))):
        parent: Any = document
        while True:
            keys = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
            if not keys:
                break
            key = draw(st.sampled_from(keys))
            child = parent[key]
            if isinstance(child, (dict, list)) and child and draw(st.booleans()):
                parent = child
                continue
            if isinstance(parent, dict) and draw(st.integers(0, 4)) == 0:
                del parent[key]
            else:
                parent[key] = draw(json_values | st.sampled_from(
                    ["", "reject", "pin", "bogus", "committed", True, 1.5, -1, None, [], {}]))
            break
    return document


def test_changeset_loader_on_arbitrary_and_mutated_documents(tried: Callable[[str], None]) -> None:
    assert isinstance(changeset_from_dict(VALID_CHANGESET, "seed"), Changeset)

    @FUZZ
    @given(mutated_changesets() | json_values)
    def run(document: Any) -> None:
        tried("changeset.changeset_from_dict")
        try:
            changeset = changeset_from_dict(document, "d.json")
        except InputError as exc:
            assert str(exc).startswith("d.json")
            return
        _ = changeset.undecided
        # what loads must save and load again to the same record
        again = changeset_from_dict(json.loads(json.dumps(changeset.to_dict())), "d.json")
        assert again.to_dict() == changeset.to_dict()

    run()

