"""The entry codec and the markdown LTM store: parsing, byte-preserving rewrites, INDEX.md, LOG.md,
scanning.

Run `PYTHONPATH=src python tests/unit/test_ltm.py` to regenerate the sample workspace's INDEX.md and
AGENTS.md after editing its entries.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamtui.entry.codec import parse_entry, render_entry
from dreamtui.errors import EntryError
from dreamtui.model import FEEDBACK_CONFIRMED, FEEDBACK_FLAGGED, Entry
from dreamtui.review.bundle import dangling_markers, render_bundle
from dreamtui.store.ltm import LTMSnapshot, LTMStore, archive_path, entry_path, log_line, render_index
from dreamtui.workspace.config import load_config

SAMPLE = Path(__file__).resolve().parents[2] / "sample_workspace"
UTC = UTC

EXAMPLE_ENTRY = """\
---
title: Reset the test database before integration tests
slug: test-db-reset
type: topic                 # topic | incident
tags: [testing, database]
created_at: 2026-11-02T09:14:00Z
updated_at: 2026-11-20T17:40:00Z
related: [ci-flaky-ports]
sources: [stm:18eafcdd-f39a-4eaa-bb42-6a20a9e0697c, stm:…]
confirmations: 4            # optional from here on
last_confirmed: 2026-11-19T10:00:00Z
flags: 1                    # dreamtui's addition: count of flags held against it
last_flagged: 2026-11-20T17:40:00Z
importance: pinned          # pinned | normal | ephemeral (absent = normal)
---
Run `make db-reset` before `pytest tests/integration`; the suite assumes an empty schema.

Details, examples and caveats follow the first paragraph.
"""

ODD_ENTRY = """\
---
# written by hand; keep my notes
title:    "Ports: CI vs local"
slug: ci-ports
tags:
  - ci
  # the second tag came later
  - database
owner: platform-team   # not a dreamtui key
confirmations: 2
review:
  due: 2026-12-01
  by: [ana, bo]
last_confirmed: 2026-11-19 10:00:00
---

CI Postgres listens on 5433.
"""


def entry_text(slug: str = "demo", title: str = "Demo", *, extra: str = "", body: str = "Guidance.\n") -> str:
    return f"---\ntitle: {title}\nslug: {slug}\ntype: topic\n{extra}---\n{body}"


def write(root: Path, rel: str, text: str | bytes) -> Path:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_bytes(text.encode("utf-8"))
    return target


# --- parse and render -------------------------------------------------------------------------


def test_parse_design_example() -> None:
    entry = parse_entry(EXAMPLE_ENTRY, "topics/test-db-reset.md")
    assert entry.slug == "test-db-reset"
    assert entry.tags == ("testing", "database")
    assert entry.meta["created_at"] == datetime(2026, 11, 2, 9, 14, tzinfo=UTC)
    assert entry.confirmations == 4 and entry.flags == 1 and entry.pinned
    assert entry.guidance.startswith("Run `make db-reset`")
    assert entry.body.startswith("Run `make db-reset`")


@pytest.mark.parametrize("text", [EXAMPLE_ENTRY, ODD_ENTRY, EXAMPLE_ENTRY.replace("\n", "\r\n"),
                                  entry_text(body="no final newline")])
def test_untouched_entry_renders_byte_for_byte(text: str) -> None:
    entry = parse_entry(text, "topics/x.md")
    assert render_entry(entry.meta, entry.body, entry) == text
    # A copy of meta that compares equal is still "untouched".
    assert render_entry(json_roundtrip_copy(entry.meta), entry.body, entry) == text


def json_roundtrip_copy(meta: dict) -> dict:
    return {key: (list(value) if isinstance(value, list) else value) for key, value in meta.items()}


def test_changed_key_rewritten_in_place_keeping_its_comment() -> None:
    entry = parse_entry(EXAMPLE_ENTRY, "topics/test-db-reset.md")
    meta = dict(entry.meta)
    meta["confirmations"] = 6
    meta["last_confirmed"] = datetime(2026, 11, 29, 3, 0, 12, tzinfo=UTC)
    text = render_entry(meta, entry.body, entry)
    old, new = EXAMPLE_ENTRY.splitlines(), text.splitlines()
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(old) == len(new)
    assert changed == [
        ("confirmations: 4            # optional from here on",
         "confirmations: 6            # optional from here on"),
        ("last_confirmed: 2026-11-19T10:00:00Z", "last_confirmed: 2026-11-29T03:00:12Z"),
    ]
    assert parse_entry(text, entry.path).meta == meta


def test_new_keys_appended_removed_keys_dropped_lists_in_flow_style() -> None:
    entry = parse_entry(ODD_ENTRY, "topics/ci-ports.md")
    meta = dict(entry.meta)
    meta["tags"] = ["ci", "database", "postgres"]
    meta["flags"] = 1
    del meta["owner"]
    text = render_entry(meta, entry.body, entry)
    assert text == ODD_ENTRY.replace(
        "tags:\n  - ci\n  # the second tag came later\n  - database\n", "tags: [ci, database, postgres]\n"
    ).replace("owner: platform-team   # not a dreamtui key\n", "").replace(
        "---\n\nCI Postgres", "flags: 1\n---\n\nCI Postgres")
    assert parse_entry(text, entry.path).meta == meta


def test_layout_that_cannot_be_split_is_rewritten_plainly() -> None:
    text = "---\ntitle: t\nslug: s\nci: 1\nci: 5432\n---\nBody\n"  # a repeated key: the last wins
    entry = parse_entry(text, "topics/s.md")
    meta = dict(entry.meta, ci=5433)
    out = render_entry(meta, entry.body, entry)
    assert out == "---\ntitle: t\nslug: s\nci: 5433\n---\nBody\n"
    assert render_entry(entry.meta, entry.body, entry) == text


def test_crlf_entry_keeps_crlf_on_rewrite() -> None:
    text = EXAMPLE_ENTRY.replace("\n", "\r\n")
    entry = parse_entry(text, "topics/t.md")
    meta = dict(entry.meta, confirmations=5)
    out = render_entry(meta, entry.body, entry)
    assert "confirmations: 5            # optional from here on\r\n" in out
    assert out.count("\n") == out.count("\r\n")


def test_fresh_entry_uses_design_order_and_formats() -> None:
    meta = {"custom": "kept", "slug": "x", "title": "Title: with colon", "tags": ["a", "b c"],
            "created_at": datetime(2026, 11, 2, 9, 14, tzinfo=UTC), "confirmations": 0,
            "related": [], "sources": ["stm:1234-abcd"], "type": "topic"}
    text = render_entry(meta, "Body")
    assert text == (
        "---\n"
        'title: "Title: with colon"\n'
        "slug: x\n"
        "type: topic\n"
        "tags: [a, b c]\n"
        "created_at: 2026-11-02T09:14:00Z\n"
        "related: []\n"
        "sources: [stm:1234-abcd]\n"
        "confirmations: 0\n"
        "custom: kept\n"
        "---\n"
        "Body\n"
    )
    assert parse_entry(text, "topics/x.md").meta == meta


def test_naive_datetimes_are_written_as_utc() -> None:
    text = render_entry({"title": "t", "slug": "t", "updated_at": datetime(2026, 1, 2, 3, 4, 5)}, "b")
    assert "updated_at: 2026-01-02T03:04:05Z\n" in text


_scalars = st.one_of(
    st.text(max_size=30), st.integers(-10**6, 10**6), st.booleans(), st.none(),
    st.floats(allow_nan=False, allow_infinity=True), st.dates(),
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2100, 1, 1)).map(
        lambda d: d.replace(microsecond=0, tzinfo=UTC)),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True),
                       st.one_of(_scalars, st.lists(_scalars, max_size=4)), max_size=6),
       st.text(min_size=1, max_size=40))
@pytest.mark.slow
def test_render_then_parse_gives_the_same_meta(extra: dict, title: str) -> None:
    if not title.strip():
        title = "t"
    meta = {"title": title, "slug": "s", **{k: v for k, v in extra.items() if k not in ("title", "slug")}}
    text = render_entry(meta, "Body\n")
    assert parse_entry(text, "topics/s.md").meta == meta


_simple = st.from_regex(r"[A-Za-z0-9 ._/:#'-]{1,14}", fullmatch=True)
_fast_values = st.one_of(
    _simple,
    st.lists(_simple, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    _simple.map(lambda text: f'"{text}"'),
    st.sampled_from(["yes", "No", "on", "null", "~", "", "1_000", "0x1F", "1:30", "1.5e3", ".inf",
                     "2026-11-02", "2026-11-02T09:14:00Z", "2026-11-02 09:14:00", "2026-02-30",
                     "C#", "a #b", "a: b", "'q''s'", '"d: q"', '"esc\\n"', "[a, b]", "[a,,b]",
                     "[ ]", "[a: b]", "[x?]", "[stm:1, 2]", "-x", "- x", "*a", "&a x", "!t x", "|",
                     "a\tb", "1e5", "+1", "=", "<<", "[a, [b]]", "{a: 1}", "é…", "true # c"]),
    # No "\n": a value is one line; a newline could start a '---' fence, which is not YAML's business.
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["title", "slug", "tags", "on", "Null", "x_1", "a"]),
                          _fast_values, st.sampled_from(["", "  # note", "\r"])), max_size=6),
       st.sampled_from(["", "# a comment\n", "\n"]))
@pytest.mark.slow
def test_fast_frontmatter_reads_exactly_what_yaml_reads(lines: list, prefix: str) -> None:
    """Scanning skips the YAML parser for simple frontmatter; both must always agree."""
    source = prefix + "".join(f"{key}: {value}{suffix}\n" for key, value, suffix in lines)
    text = f"---\n{source}---\nbody\n"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        expected: object = yaml.load(source, Loader=loader)
    except (yaml.YAMLError, ValueError):
        expected = "error"
    if expected != "error" and any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(source, loader)):
        expected = "error"  # YAML reads an alias; an entry refuses it (the alias bomb)
    try:
        got: object = parse_entry(text, "topics/x.md").meta
    except EntryError as exc:
        got = "error" if "YAML" in exc.reason or "value" in exc.reason or "mapping" in exc.reason else exc
    if isinstance(got, EntryError):  # a valid mapping without a usable slug or title
        assert isinstance(expected, dict)
    else:
        assert got == expected if isinstance(expected, dict) else got == "error"


def test_parsing_the_same_text_twice_gives_independent_entries() -> None:
    """Parsed frontmatter is cached; changing one entry's meta must not leak into the next."""
    text = "---\ntitle: Reset the DB\nslug: db-reset\ntags: [testing, db]\n---\nbody\n"
    first = parse_entry(text, "topics/db-reset.md")
    first.meta["tags"].append("changed")
    first.meta["title"] = "changed"
    second = parse_entry(text, "topics/db-reset.md")
    assert second.meta == {"title": "Reset the DB", "slug": "db-reset", "tags": ["testing", "db"]}
    assert second.meta["tags"] is not first.meta["tags"]


# --- malformed entries --------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "line", "words"), [
    ("title: x\nslug: x\n", 1, "missing opening '---'"),
    ("\ufeff---\ntitle: x\nslug: x\n---\n", 1, "byte-order mark"),
    ("---\ntitle: x\nslug: x\nbody\n", 4, "missing closing '---'"),
    ("---\ntitle: x\nslug: x\ntags: [a, b\n---\n", 5, "invalid YAML"),
    ("---\ntitle: x\n  bad: indent\nslug: x\n---\n", 3, "invalid YAML"),
    ("---\n- a\n- b\n---\n", 2, "must be a mapping"),
    ("---\n---\nbody\n", 2, "must be a mapping"),
    # A missing or Mixed_Case slug is read from the file name or kebab-cased (as Dreamer reads
    # such files, tests/unit/test_dreamer_entries.py); only when neither gives one is it an error.
    ("---\ntitle: x\ntype: topic\n---\n", 2, "missing slug, and the file name gives none"),
    ("---\ntitle: x\ntype: topic\nslug: ___\n---\n", 4, "must match"),
    ("---\ntitle: x\nslug: 12\n---\n", 3, "slug: required"),
    ("---\ntitle: x\nslug: " + "a" * 201 + "\n---\n", 3, "at most 200"),
])
def test_malformed_entry_reports_line_and_reason(text: str, line: int, words: str) -> None:
    with pytest.raises(EntryError) as caught:
        parse_entry(text, "topics/__.md")
    assert caught.value.path == "topics/__.md"
    assert caught.value.line == line
    assert words in caught.value.reason
    assert str(caught.value).startswith(f"topics/__.md:{line}: ")


def test_scan_skips_malformed_files_and_loads_the_rest(tmp_path: Path) -> None:
    write(tmp_path, "topics/good.md", entry_text("good"))
    write(tmp_path, "topics/broken.md", "---\ntitle: x\nslug: x\ntags: [a\n---\n")
    write(tmp_path, "topics/latin1.md", "---\ntitle: café\nslug: cafe\n---\n".encode("latin-1"))
    write(tmp_path, "incidents/2026-11/2026-11-02-nofence.md", "just text\n")
    snapshot = LTMStore(tmp_path).scan()
    assert list(snapshot.entries) == ["topics/good.md"]
    problems = {p.path: p for p in snapshot.problems}
    assert set(problems) == {"topics/broken.md", "topics/latin1.md",
                             "incidents/2026-11/2026-11-02-nofence.md"}
    assert problems["topics/broken.md"].line == 5
    assert "not UTF-8" in problems["topics/latin1.md"].reason
    assert problems["incidents/2026-11/2026-11-02-nofence.md"].line == 1


def test_slug_with_a_trailing_newline_never_splits_a_marker(tmp_path: Path) -> None:
    """`$` matched before a final newline, so "ci-ports\\n" loaded and split its AGENTS.md marker;
    now it is read kebab-cased (as Dreamer's files are), reported, and its marker is whole."""
    write(tmp_path, "topics/good.md", entry_text("good"))
    write(tmp_path, "topics/ci-ports.md", '---\ntitle: CI ports\nslug: "ci-ports\\n"\n---\nUse port 5433.\n')
    snapshot = LTMStore(tmp_path).scan()
    assert snapshot.entries["topics/ci-ports.md"].slug == "ci-ports" and snapshot.problems == []
    [notice] = snapshot.notices()
    assert (notice.path, notice.line) == ("topics/ci-ports.md", 3)
    assert notice.reason.startswith("slug 'ci-ports\\n' is not") and "\n" not in str(notice)
    bundle = render_bundle(snapshot.live()).text
    assert "[mem: good]" in bundle and "[mem: ci-ports]" in bundle and "ci-ports\n" not in bundle


def test_duplicate_live_slugs_keep_the_first_path(tmp_path: Path) -> None:
    write(tmp_path, "topics/a.md", entry_text("same", "First"))
    write(tmp_path, "topics/b.md", entry_text("same", "Second"))
    write(tmp_path, "archive/topics/same.md", entry_text("same", "Retired"))
    snapshot = LTMStore(tmp_path).scan()
    assert sorted(snapshot.entries) == ["archive/topics/same.md", "topics/a.md"]
    assert snapshot.by_slug("same").title == "First"
    [problem] = snapshot.problems
    assert (problem.path, problem.line) == ("topics/b.md", 3)
    assert "duplicate slug 'same'" in problem.reason and "topics/a.md" in problem.reason


def test_scan_skips_index_log_dotfiles_and_other_files(tmp_path: Path) -> None:
    store = LTMStore(tmp_path)
    store.ensure_layout()
    write(tmp_path, "topics/.draft.md", "not an entry")
    write(tmp_path, "topics/.hidden/x.md", "not an entry")
    write(tmp_path, "topics/notes.txt", "not an entry")
    write(tmp_path, "topics/ok.md", entry_text("ok"))
    store.append_log(["- 2026-11-29T03:00:12Z create topics/ok.md [human]"])
    snapshot = store.scan()
    assert list(snapshot.entries) == ["topics/ok.md"] and snapshot.problems == []


def test_by_slug_follows_changes_to_the_snapshot() -> None:
    first, second = parse_entry(entry_text("a"), "topics/a.md"), parse_entry(entry_text("b"), "topics/b.md")
    snapshot = LTMSnapshot(entries={first.path: first})
    assert snapshot.by_slug("a") is first and snapshot.by_slug("b") is None
    snapshot.entries[second.path] = second
    assert snapshot.by_slug("b") is second
    renamed = parse_entry(entry_text("c"), "topics/a.md")
    snapshot.entries[renamed.path] = renamed
    assert snapshot.by_slug("a") is None and snapshot.slugs() == {"b", "c"}


def test_snapshot_views(tmp_path: Path) -> None:
    write(tmp_path, "topics/a.md", entry_text("a"))
    write(tmp_path, "archive/topics/b.md", entry_text("b"))
    snapshot = LTMStore(tmp_path).scan()
    assert [e.slug for e in snapshot.live()] == ["a"]
    assert [e.slug for e in snapshot.archived()] == ["b"]
    assert snapshot.slugs() == {"a"}
    assert snapshot.by_slug("b") is None
    assert LTMSnapshot().live() == []


# --- symlinks and paths ---------------------------------------------------------------------------


def test_symlink_leaving_the_root_is_a_problem_not_an_entry(tmp_path: Path) -> None:
    root, outside = tmp_path / "memory", tmp_path / "elsewhere"
    write(outside, "secret.md", entry_text("secret"))
    write(root, "topics/inside.md", entry_text("inside"))
    (root / "topics" / "escape.md").symlink_to(outside / "secret.md")
    (root / "topics" / "alias.md").symlink_to(root / "topics" / "inside.md")
    (root / "incidents").mkdir()
    (root / "incidents" / "2026-11").symlink_to(outside, target_is_directory=True)
    store = LTMStore(root)
    snapshot = store.scan()
    assert "topics/escape.md" not in snapshot.entries
    problems = {p.path: p.reason for p in snapshot.problems}
    assert "outside the memory root" in problems["topics/escape.md"]
    assert "outside the memory root" in problems["incidents/2026-11"]
    # A link that stays inside is read, and then reported as the duplicate it is.
    assert "duplicate slug" in problems["topics/inside.md"]
    with pytest.raises(EntryError, match="outside the memory root"):
        store.read("topics/escape.md")


def test_symlinked_top_folder_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "memory", tmp_path / "elsewhere"
    write(outside, "x.md", entry_text("x"))
    root.mkdir()
    (root / "topics").symlink_to(outside, target_is_directory=True)
    snapshot = LTMStore(root).scan()
    assert snapshot.entries == {}
    assert [p.path for p in snapshot.problems] == ["topics"]


@pytest.mark.parametrize("path", ["../x.md", "/etc/passwd", "topics/../../x.md", "", "topics\\x.md"])
def test_read_refuses_paths_that_leave_the_root(tmp_path: Path, path: str) -> None:
    with pytest.raises(EntryError, match="relative path"):
        LTMStore(tmp_path).read(path)


def test_read_missing_entry(tmp_path: Path) -> None:
    with pytest.raises(EntryError, match="no such entry"):
        LTMStore(tmp_path).read("topics/none.md")


def test_read_returns_exact_text(tmp_path: Path) -> None:
    write(tmp_path, "topics/x.md", EXAMPLE_ENTRY.replace("\n", "\r\n"))
    entry = LTMStore(tmp_path).read("topics/x.md")
    assert entry.raw == EXAMPLE_ENTRY.replace("\n", "\r\n")


def test_entry_and_archive_paths() -> None:
    late = datetime(2026, 11, 2, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 04:30 UTC next day
    assert entry_path("test-db-reset", "topic", late) == "topics/test-db-reset.md"
    assert entry_path("pool", "incident", late) == "incidents/2026-11/2026-11-03-pool.md"
    assert archive_path("topics/a.md") == "archive/topics/a.md"
    with pytest.raises(EntryError, match="must match"):
        entry_path("Bad Slug", "topic", late)
    with pytest.raises(EntryError, match="type"):
        entry_path("ok", "note", late)
    with pytest.raises(EntryError, match="already archived"):
        archive_path("archive/topics/a.md")
    with pytest.raises(EntryError):
        archive_path("../a.md")


# --- INDEX.md ---------------------------------------------------------------------------------


def _entry(path: str, title: str, tags: list[str] | None = None) -> Entry:
    meta = {"title": title, "slug": path.rsplit("/", 1)[-1][:-3].lower(), "tags": tags or []}
    text = render_entry(meta, "Guidance.\n")
    return parse_entry(text, path)


def test_render_index_golden() -> None:
    entries = [
        _entry("topics/zeta.md", "zeta lowercase", ["testing"]),
        _entry("topics/alpha.md", "Alpha [draft]", ["testing", "ci"]),
        _entry("topics/db.md", "Database", ["database"]),
        _entry("topics/loose.md", "Loose"),
        _entry("incidents/2026-10/2026-10-28-lock.md", "Lock", ["database"]),
        _entry("incidents/2026-11/2026-11-02-a.md", "Early November"),
        _entry("incidents/2026-11/2026-11-20-b.md", "Late November"),
        _entry("archive/topics/old.md", "Old"),
    ]
    # Dreamer's writer: titles unescaped, plain code-point order (more in test_dreamer_entries).
    expected = """\
# LTM Index

## Topics

### database

- [Database](topics/db.md)

### testing

- [Alpha [draft]](topics/alpha.md)
- [zeta lowercase](topics/zeta.md)

### untagged

- [Loose](topics/loose.md)

## Incidents

### 2026-11

- [Late November](incidents/2026-11/2026-11-20-b.md)
- [Early November](incidents/2026-11/2026-11-02-a.md)

### 2026-10

- [Lock](incidents/2026-10/2026-10-28-lock.md)
"""
    assert render_index(entries) == expected
    assert render_index(reversed(entries)) == expected


def test_render_index_empty() -> None:
    assert render_index([]) == "# LTM Index\n\n_(empty)_\n"


def test_write_index_and_ensure_layout(tmp_path: Path) -> None:
    store = LTMStore(tmp_path / "memory")
    store.ensure_layout()
    for name in ("topics", "incidents", "archive"):
        assert (tmp_path / "memory" / name).is_dir()
    assert (tmp_path / "memory/archive/LOG.md").read_text() == ""
    assert (tmp_path / "memory/INDEX.md").read_text() == render_index([])
    write(tmp_path / "memory", "topics/a.md", entry_text("a", "A"))
    store.write_index(store.scan())
    assert "- [A](topics/a.md)" in (tmp_path / "memory/INDEX.md").read_text()
    assert [p.name for p in (tmp_path / "memory").iterdir() if p.name.startswith(".")] == []
    store.ensure_layout()  # idempotent: keeps what is there
    assert "- [A](topics/a.md)" in (tmp_path / "memory/INDEX.md").read_text()


# --- LOG.md -------------------------------------------------------------------------------------


def test_log_line_format() -> None:
    moment = datetime(2026, 11, 29, 3, 0, 12, tzinfo=UTC)
    dream = "d-20261129-030012-ab12"
    assert log_line(moment, "reinforce", "topics/test-db-reset.md", "+2 confirmations", dream) \
        == f"- 2026-11-29T03:00:12Z reinforce topics/test-db-reset.md (+2 confirmations) [dream {dream}]"
    assert log_line(moment, "archive", "topics/x.md", "flag\nwas right", None) \
        == "- 2026-11-29T03:00:12Z archive topics/x.md (flag was right) [human]"
    assert log_line(moment, "pin", "topics/x.md", "", None) \
        == "- 2026-11-29T03:00:12Z pin topics/x.md [human]"


def test_append_log_and_read_back(tmp_path: Path) -> None:
    store = LTMStore(tmp_path)
    assert store.log_lines() == []
    store.append_log(["- one", "- two"])
    with open(store.log_path, "ab") as handle:
        handle.write(b"- three (hand edit, no newline)")
    store.append_log(["- four"])
    store.append_log([])
    assert store.log_path.read_text() == "- one\n- two\n- three (hand edit, no newline)\n- four\n"
    assert store.log_lines() == ["- four", "- three (hand edit, no newline)", "- two", "- one"]
    assert store.log_lines(newest_first=False, limit=2) == ["- three (hand edit, no newline)", "- four"]
    assert store.log_lines(limit=10) == store.log_lines()
    assert store.log_lines(limit=0) == []
    with pytest.raises(ValueError):
        store.append_log(["- two\nlines"])


def test_log_lines_with_limit_reads_only_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = LTMStore(tmp_path)
    lines = [f"- 2026-11-29T03:00:{i % 60:02d}Z reinforce topics/e{i}.md (+1 ü) [dream d-{i}]"
             for i in range(5000)]
    store.append_log(lines[:2500])
    with open(store.log_path, "ab") as handle:
        handle.write(b"\n\n")  # blank lines do not count
    store.append_log(lines[2500:])
    read_sizes: list[int] = []
    real_open = open

    def spying_open(*args, **kwargs):  # type: ignore[no-untyped-def]
        handle = real_open(*args, **kwargs)
        real_read = handle.read

        def read(size: int = -1) -> bytes:
            read_sizes.append(size)
            return real_read(size)

        handle.read = read
        return handle

    monkeypatch.setattr("builtins.open", spying_open)
    assert store.log_lines(limit=3) == lines[:-4:-1]
    assert sum(read_sizes) < store.log_path.stat().st_size / 4
    monkeypatch.undo()
    assert store.log_lines(limit=4000, newest_first=False) == lines[-4000:]


# --- the sample workspace -----------------------------------------------------------------------


def _sample_generated() -> tuple[str, str]:
    config = load_config(SAMPLE / "dreamtui.yaml")
    snapshot = LTMStore(SAMPLE / config.ltm.root).scan()
    bundle = render_bundle(snapshot.live(), byte_budget=config.context.byte_budget)
    return render_index(snapshot.entries.values()), bundle.text


def regenerate_sample() -> None:
    config = load_config(SAMPLE / "dreamtui.yaml")
    index, agents = _sample_generated()
    (SAMPLE / config.ltm.root / "INDEX.md").write_text(index, encoding="utf-8")
    (SAMPLE / config.context.root / "AGENTS.md").write_text(agents, encoding="utf-8")


def test_sample_workspace_generated_files_are_current() -> None:
    config = load_config(SAMPLE / "dreamtui.yaml")
    index, agents = _sample_generated()
    hint = "regenerate with `PYTHONPATH=src python tests/unit/test_ltm.py`"
    assert (SAMPLE / config.ltm.root / "INDEX.md").read_text(encoding="utf-8") == index, hint
    assert (SAMPLE / config.context.root / "AGENTS.md").read_text(encoding="utf-8") == agents, hint


def test_sample_workspace_is_consistent() -> None:
    config = load_config(SAMPLE / "dreamtui.yaml")
    store = LTMStore(SAMPLE / config.ltm.root)
    snapshot = store.scan()
    assert snapshot.problems == []
    assert 10 <= len(snapshot.live()) <= 15 and len(snapshot.archived()) == 1
    assert sum(e.pinned for e in snapshot.live()) == 1
    assert [e.slug for e in snapshot.live() if e.flags] == ["ci-ports"]
    [retired] = snapshot.archived()
    assert {"retired_at", "retired_reason", "superseded_by"} <= set(retired.meta)
    assert retired.meta["superseded_by"] in snapshot.slugs()
    assert any(f" {retired.path.removeprefix('archive/')} " in line and " archive " in line
               for line in store.log_lines())
    assert not (SAMPLE / "stm.db").exists()
    assert {"stm.db*", ".dreamtui/"} <= set((SAMPLE / ".gitignore").read_text().split())
    assert dangling_markers((SAMPLE / "workspace/context/AGENTS.md").read_text(), snapshot.slugs()) == []


def test_sample_seed_feedback_points_at_real_entries() -> None:
    records = [json.loads(line) for line in (SAMPLE / "stm_seed.jsonl").read_text().splitlines()]
    snapshot = LTMStore(SAMPLE / "workspace/memory").scan()
    assert 35 <= len(records) <= 45
    assert {r["agent_id"] for r in records} == {"claude-code", "codex", "cursor"}
    for record in records:
        assert set(record) <= {"type", "title", "content", "agent_id", "tags", "metadata", "idempotency_key"}
        if record["type"] == FEEDBACK_CONFIRMED:
            assert record["metadata"]["target"] in snapshot.slugs()
        if record["type"] == FEEDBACK_FLAGGED:
            assert set(record["metadata"].get("targets", [])) <= snapshot.slugs()
    anchored = [r for r in records if r["type"] == FEEDBACK_FLAGGED and r["metadata"].get("targets")]
    unanchored = [r for r in records if r["type"] == FEEDBACK_FLAGGED and not r["metadata"].get("targets")]
    assert anchored and unanchored and all("quote" in r["metadata"] for r in unanchored)
    assert any("AKIA" in r["content"] for r in records)


def test_dates_in_frontmatter_stay_dates() -> None:
    entry = parse_entry(entry_text(extra="review_by: 2027-03-01\n"), "topics/demo.md")
    assert entry.meta["review_by"] == date(2027, 3, 1)
    assert "review_by: 2027-03-01\n" in render_entry(dict(entry.meta, title="New"), entry.body, entry)


def test_scan_uses_sorted_paths(tmp_path: Path) -> None:
    for name in ("c", "a", "b"):
        write(tmp_path, f"topics/{name}.md", entry_text(name))
    assert list(LTMStore(tmp_path).scan().entries) == ["topics/a.md", "topics/b.md", "topics/c.md"]


if __name__ == "__main__":
    regenerate_sample()
    print(f"regenerated INDEX.md and AGENTS.md in {SAMPLE}")
