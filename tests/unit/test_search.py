"""The FTS5 index of live entries (store/search.py): built when missing, current after any edit,
rebuilt when unusable, and searched with words an agent types (FTS5 syntax is plain text)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from dreamtui.store.search import INDEX_NAME, SearchIndex, match_expression
from dreamtui.workspace.layout import Workspace
from tests.factories import entry_text, write_entry


def index(root: Path) -> SearchIndex:
    return SearchIndex(root / "memory", root / ".dreamtui" / INDEX_NAME)


def incident(slug: str, title: str, body: str) -> str:
    return entry_text(slug, title, body).replace("type: topic", "type: incident")


def test_search_finds_topics_and_incidents_ranked_by_their_words(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    write_entry(memory, "topics/ci-ports.md", entry_text("ci-ports", "CI Postgres listens on 5433",
                                                         "The workflow maps Postgres to port 5433."))
    write_entry(memory, "topics/vite-proxy.md", entry_text("vite-proxy", "Vite proxy", "Use /api."))
    write_entry(memory, "incidents/2026-11/2026-11-02-redis-outage.md",
                incident("redis-outage", "Redis outage on staging",
                         "Staging redis ran out of memory during the nightly job; raised maxmemory."))
    write_entry(memory, "archive/topics/old-port.md", entry_text("old-port", "Postgres port 5432"))
    search = index(tmp_path)

    hits = search.search("postgres ports")  # stemmed: "ports" finds "port"
    assert [hit.slug for hit in hits] == ["ci-ports"]  # the archived entry is not live
    assert "[Postgres]" in hits[0].snippet or "[port]" in hits[0].snippet
    found = search.search("why did staging run out of memory?")
    assert found[0].slug == "redis-outage" and found[0].type == "incident"
    assert found[0].path == "incidents/2026-11/2026-11-02-redis-outage.md"
    assert search.search("") == [] and search.search("  ?! ") == []


def test_fts_syntax_in_a_query_is_plain_text() -> None:
    assert match_expression('port AND "5433" NEAR(x) -y*') == '"port" OR "5433" OR "near" OR "x" OR "y"'
    assert match_expression("how to") == '"how" OR "to"'  # only stop words: kept
    assert match_expression("") is None


def test_the_index_follows_edits_additions_and_removals(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    path = write_entry(memory, "topics/ci-ports.md", entry_text("ci-ports", "CI ports", "port 5433"))
    search = index(tmp_path)
    assert search.sync().indexed == 1
    assert not search.sync().changed  # nothing read again when nothing changed

    path.write_text(entry_text("ci-ports", "CI ports", "port 6543 since the upgrade"), encoding="utf-8")
    assert [h.slug for h in search.search("6543")] == ["ci-ports"]
    assert search.search("5433") == []
    write_entry(memory, "topics/new-one.md", entry_text("new-one", "Kafka topics", "kafka"))
    assert [h.slug for h in search.search("kafka")] == ["new-one"]
    (memory / "topics/new-one.md").unlink()
    assert search.search("kafka") == []
    assert search.sync().total == 1


def test_duplicate_slugs_follow_the_store_rule_and_broken_files_are_skipped(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    write_entry(memory, "topics/a-first.md", entry_text("shared", "First copy", "kafka first"))
    write_entry(memory, "topics/b-second.md", entry_text("shared", "Second copy", "kafka second"))
    write_entry(memory, "topics/broken.md", "---\ntitle: [unclosed\n---\nkafka\n")
    search = index(tmp_path)
    assert [(h.slug, h.path) for h in search.search("kafka")] == [("shared", "topics/a-first.md")]
    assert search.path_of("shared") == "topics/a-first.md"
    entry = search.entry("shared")
    assert entry is not None and entry.title == "First copy"
    assert search.entry("nope") is None
    assert [slug for slug, _, _ in search.slugs()] == ["shared"]


def test_an_unusable_index_file_is_rebuilt(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    write_entry(memory, "topics/ci-ports.md", entry_text("ci-ports", "CI ports", "port 5433"))
    search = index(tmp_path)
    search.path.parent.mkdir(parents=True)
    search.path.write_bytes(b"this is not a database" * 100)
    assert [h.slug for h in search.search("5433")] == ["ci-ports"]
    with_other_version = SearchIndex(memory, search.path)
    with sqlite3.connect(search.path) as conn:
        conn.execute("PRAGMA user_version = 99")
    assert [h.slug for h in with_other_version.search("5433")] == ["ci-ports"]


def test_refresh_updates_an_existing_index_and_never_builds_one(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    write_entry(memory, "topics/ci-ports.md", entry_text("ci-ports", "CI ports", "port 5433"))
    search = index(tmp_path)
    assert search.refresh() is None and not search.path.exists()
    search.sync()
    write_entry(memory, "topics/more.md", entry_text("more", "More", "redis"))
    stats = search.refresh()
    assert stats is not None and stats.indexed == 1 and stats.total == 2


def test_an_edit_keeping_size_and_mtime_is_seen_through_the_inode(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    path = write_entry(memory, "topics/ci-ports.md", entry_text("ci-ports", "CI ports", "port 5433"))
    search = index(tmp_path)
    search.sync()
    before = path.stat()
    replacement = path.with_name(".tmp-replacement")
    replacement.write_text(entry_text("ci-ports", "CI ports", "port 6543"), encoding="utf-8")
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, path)  # what an atomic write does: same size, same mtime, new inode
    assert [h.slug for h in search.search("6543")] == ["ci-ports"]


def test_a_commit_refreshes_an_existing_index(sample: Workspace) -> None:
    from dreamtui.review.commit import commit_human_change

    search = SearchIndex.for_workspace(sample)
    assert search.sync().total > 0

    def indexed() -> set[str]:  # the stored rows, read without the sync a search would do
        with sqlite3.connect(search.path) as conn:
            return {slug for (slug,) in conn.execute("SELECT slug FROM entries")}

    assert "vite-proxy" in indexed()
    commit_human_change(sample, "topics/vite-proxy.md", None, "archive", "replaced by the dev server")
    assert "vite-proxy" not in indexed()


def test_one_instance_sees_what_another_wrote_and_a_replaced_file(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    write_entry(memory, "topics/ci-ports.md", entry_text("ci-ports", "CI ports", "port 5433"))
    server, commit = index(tmp_path), index(tmp_path)  # the MCP server's, and a commit's
    assert [h.slug for h in server.search("5433")] == ["ci-ports"]
    write_entry(memory, "topics/kafka.md", entry_text("kafka", "Kafka", "retention"))
    assert commit.refresh() is not None  # the other connection indexes it
    assert not server.sync().changed  # its stamps came from the index, not from reading the file
    assert [h.slug for h in server.search("retention")] == ["kafka"]
    server.path.unlink()  # removed under it (a person tidying .dreamtui/)
    assert [h.slug for h in server.search("retention")] == ["kafka"]
    server.close()


SAMPLE_QUERIES = [  # what an agent types when it meets the problem → the entry it needs
    ("stripe webhook handler times out and customers get duplicate receipts", "stripe-webhook-timeouts"),
    ("a migration locked the orders table during deploy", "orders-index-lock"),
    ("connection refused to postgres in CI, which port?", "ci-ports"),
    ("which node version does the frontend need", "frontend-node-version"),
    ("integration tests fail on a dirty database", "test-db-reset"),
    ("how do I deploy to staging", "deploy-staging"),
    ("api requests to the dev server from vite", "vite-proxy"),
]


def test_search_ranks_the_sample_workspace_entries_an_agent_needs_first(sample: Workspace) -> None:
    search = SearchIndex.for_workspace(sample)
    ranked = {query: [hit.slug for hit in search.search(query, 3)] for query, _ in SAMPLE_QUERIES}
    assert {query: found[:1] for query, found in ranked.items()} == \
        {query: [slug] for query, slug in SAMPLE_QUERIES}


def test_matching_is_the_filters_and_of_typed_words_the_last_a_prefix(sample: Workspace) -> None:
    search = SearchIndex.for_workspace(sample)
    assert search.matching("6379") == {"topics/ci-ports.md"}  # a detail only the body holds
    assert search.matching("redi") == {"topics/ci-ports.md"}  # still being typed: a prefix
    assert search.matching("test-db") == {"topics/test-db-reset.md"}  # the parts adjacent
    assert search.matching("postgres 5432") == {"topics/ci-ports.md"}  # every word
    assert search.matching("postgres nonexistentword") == set()
    assert search.matching("  ") == set()
