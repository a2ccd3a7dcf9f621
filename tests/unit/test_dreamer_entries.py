"""Entries in Dreamer's shape (issue 15, item 4 and the INDEX.md/slug part of item 11): a leading
`# Title` is the title, not the guidance; slugs missing or `Mixed_Case` read as Dreamer reads the
files (reported, never dropped); INDEX.md byte for byte what Dreamer's writer gives the same tree
(recorded in tests/fixtures/dreamer_ltm.py; tests/interop compares with the live package).
"""

from __future__ import annotations

from pathlib import Path

from dreamtui.dream.runner import dream
from dreamtui.entry.codec import parse_entry
from dreamtui.entry.edits import with_meta
from dreamtui.model import NewMemory
from dreamtui.review.bundle import guidance_line
from dreamtui.review.commit import commit_human_change
from dreamtui.store.ltm import LTMStore, render_index
from dreamtui.workspace.layout import Workspace
from tests.factories import NOW, submit
from tests.fixtures import dreamer_ltm


def _index_of(tmp_path: Path, tree: dict[str, str]) -> str:
    store = LTMStore(dreamer_ltm.build(tmp_path / "memory", tree))
    store.write_index(store.scan())
    return store.index_path.read_text(encoding="utf-8")


def test_index_is_dreamers_byte_for_byte(tmp_path: Path) -> None:
    assert _index_of(tmp_path, dreamer_ltm.TREE) == dreamer_ltm.DREAMER_INDEX


def test_index_has_no_empty_sections(tmp_path: Path) -> None:
    assert _index_of(tmp_path / "a", dreamer_ltm.ONLY_INCIDENT) == dreamer_ltm.DREAMER_INDEX_ONLY_INCIDENT
    assert _index_of(tmp_path / "b", {}) == dreamer_ltm.DREAMER_INDEX_EMPTY
    assert render_index([]) == dreamer_ltm.DREAMER_INDEX_EMPTY


def test_index_written_by_dreamer_is_left_alone(tmp_path: Path) -> None:
    """The point of byte-identity: dreamtui's writer does not rewrite Dreamer's INDEX.md."""
    root = dreamer_ltm.build(tmp_path / "memory")
    (root / "INDEX.md").write_text(dreamer_ltm.DREAMER_INDEX, encoding="utf-8")
    before = (root / "INDEX.md").stat().st_mtime_ns
    store = LTMStore(root)
    store.write_index(store.scan())
    assert (root / "INDEX.md").stat().st_mtime_ns == before


def test_missing_and_mixed_case_slugs_are_read_and_reported(tmp_path: Path) -> None:
    snapshot = LTMStore(dreamer_ltm.build(tmp_path / "memory")).scan()
    assert snapshot.entries["topics/no-slug.md"].slug == "no-slug"
    assert snapshot.entries["topics/mixed.md"].slug == "mixed-case"
    assert snapshot.by_slug("mixed-case") is snapshot.entries["topics/mixed.md"]
    notices = {n.path: n for n in snapshot.notices()}
    assert set(notices) == {"topics/no-slug.md", "topics/mixed.md"}
    assert "no slug in the frontmatter: read as 'no-slug'" in notices["topics/no-slug.md"].reason
    assert notices["topics/mixed.md"].line == 3 and "'Mixed_Case'" in notices["topics/mixed.md"].reason
    # Skipped as an entry (the slug is taken) but still listed, as Dreamer lists it.
    assert "topics/dup-b.md" in snapshot.listed and "topics/dup-b.md" not in snapshot.entries
    assert [p.path for p in snapshot.problems] == ["topics/dup-b.md", "topics/notes.md"]


def test_slug_from_an_incident_file_name_drops_the_date() -> None:
    entry = parse_entry("---\ntitle: Lock\ntype: incident\n---\nx\n",
                        "incidents/2026-10/2026-10-28-db-lock.md")
    assert entry.slug == "db-lock" and "slug" not in entry.meta


def test_a_derived_slug_is_never_written_into_the_file() -> None:
    text = "---\ntitle: Without a slug\n---\nBody.\n"
    entry = parse_entry(text, "topics/no-slug.md")
    assert entry.derived == {"slug": "no-slug"} and entry.raw == text and entry.meta == {"title": "Without a slug"}


def test_title_from_the_leading_heading_when_the_frontmatter_has_none() -> None:
    entry = parse_entry("---\nslug: x\n---\n# Heading title\n\nThe guidance.\n", "topics/x.md")
    assert entry.title == "Heading title" and entry.guidance == "The guidance."
    bare = parse_entry("---\nslug: x\n---\nThe guidance.\n", "topics/x.md")
    assert bare.title == "x"  # the file name, as Dreamer's INDEX.md shows it


def test_a_leading_title_heading_is_not_the_guidance() -> None:
    entry = parse_entry(dreamer_ltm.TREE["topics/ci-ports.md"], "topics/ci-ports.md")
    assert entry.guidance == "CI runs Postgres on port 5433, not 5432: set PGPORT=5433 before pytest."
    assert guidance_line(entry).startswith("- CI runs Postgres on port 5433")
    assert "# CI ports" not in guidance_line(entry)


def test_a_memory_matching_a_dreamer_shaped_entry_reinforces_it(workspace: Workspace) -> None:
    """Before: the guidance read as '# CI ports' and the memory created ci-ports-2."""
    dreamer_ltm.build(workspace.memory_root, {"topics/ci-ports.md": dreamer_ltm.TREE["topics/ci-ports.md"]})
    submit(workspace, NewMemory(type="failure", title="CI ports", agent_id="agent-a", tags=("ci",),
                                content="CI runs Postgres on port 5433, not 5432: set PGPORT=5433 before pytest."))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    creates = [p for p in changeset.reviewable if p.op == "create"]
    assert creates == [], [p.target for p in creates]
    assert any(p.target == "topics/ci-ports.md" for p in changeset.reviewable if p.op != "context")


def test_a_commit_keeps_the_files_dreamer_lists_in_index(workspace: Workspace) -> None:
    """A person's change commits INDEX.md from the plan: the second dup file stays listed."""
    dreamer_ltm.build(workspace.memory_root)
    path = "topics/loose.md"
    text = (workspace.memory_root / path).read_text(encoding="utf-8")
    commit_human_change(workspace, path, with_meta(text, path, {"importance": "pinned"}), "pin", "keep it")
    index = (workspace.memory_root / "INDEX.md").read_text(encoding="utf-8")
    assert index == dreamer_ltm.DREAMER_INDEX and "- [Dup B](topics/dup-b.md)" in index
