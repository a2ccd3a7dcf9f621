"""The project's instruction files as the known corpus (dream/known.py) and the runner's pre-pass."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from dreamtui.deliver.decisions import HEADER, decision_section
from dreamtui.dream import known
from dreamtui.dream.known import (
    MARK_CONTRADICTS,
    MAX_FILE_BYTES,
    KnownIndex,
    read_corpus,
    split_rules,
)
from dreamtui.dream.runner import dream
from dreamtui.entry.codec import parse_entry
from dreamtui.model import Memory, NewMemory
from dreamtui.review.commit import commit
from dreamtui.review.decide import decide
from dreamtui.workspace.layout import Workspace
from tests.engines_for_tests import Recorder
from tests.factories import NOW, new_workspace, submit
from tests.fixtures.known_corpus import HELD_OUT, TUNE, Case

CLAUDE_MD = """# CLAUDE.md

Guidance for agents.

## Tooling

- Install dependencies with `pnpm install`; never use npm or yarn here.
- The API listens on port 8040 in development.
  Other services pick ports above 9000.

```bash
pnpm lint   # checks the TypeScript sources
```

| command | what |
| --- | --- |
| `pnpm dev` | starts the web app on port 3000 |

<!-- dreamtui:begin sha256=0123456789abcdef -->
- Reset the database with `make db-reset` before the integration tests. [mem: test-db-reset]
<!-- dreamtui:end -->

Money amounts are `Decimal`, never `float`. Keep functions under 60 lines.
"""


def project(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


def lesson(mid: str, content: str) -> Memory:
    return Memory(id=mid, tenant_id="default", agent_id="agent-a", type="observation",
                  title=" ".join(content.split()[:5]), content=content, tags=(), metadata={},
                  submitted_at=datetime(2026, 11, 28, 9, 0, tzinfo=UTC))


# -- splitting ----------------------------------------------------------------------------------


def test_rules_are_list_items_table_rows_and_sentences_with_their_lines() -> None:
    rules = split_rules(CLAUDE_MD, "CLAUDE.md")
    assert [(r.citation, r.text) for r in rules] == [
        ("CLAUDE.md:3", "Guidance for agents."),
        ("CLAUDE.md:7", "Install dependencies with `pnpm install`; never use npm or yarn here."),
        # an item's sentences each, and the item whole
        ("CLAUDE.md:8", "The API listens on port 8040 in development."),
        ("CLAUDE.md:9", "Other services pick ports above 9000."),
        ("CLAUDE.md:8", "The API listens on port 8040 in development. Other services pick ports above 9000."),
        # a shell block's command with the comment saying what it is for
        ("CLAUDE.md:12", "checks the TypeScript sources: `pnpm lint`"),
        # a table's body row, its cells joined (the header row and the |---| line are not rules)
        ("CLAUDE.md:17", "`pnpm dev`: starts the web app on port 3000"),
        ("CLAUDE.md:23", "Money amounts are `Decimal`, never `float`."),
        ("CLAUDE.md:23", "Keep functions under 60 lines."),
        # and the paragraph whole: a sentence may mean what it means only after the one before
        ("CLAUDE.md:23", "Money amounts are `Decimal`, never `float`. Keep functions under 60 lines."),
    ]


def test_the_workspaces_own_delivered_block_is_not_the_projects_word() -> None:
    texts = " ".join(r.text for r in split_rules(CLAUDE_MD, "CLAUDE.md"))
    assert "db-reset" not in texts and "mem:" not in texts


def test_cursor_rule_frontmatter_is_skipped() -> None:
    text = "---\ndescription: Python style rules\nglobs: ['**/*.py']\n---\n- Use type hints on every function.\n"
    assert [r.citation for r in split_rules(text, ".cursor/rules/python.mdc")] == [".cursor/rules/python.mdc:5"]


# -- finding and reading the files --------------------------------------------------------------


def test_the_instruction_files_are_found_from_the_root_up_to_the_git_root(tmp_path: Path) -> None:
    root = project(tmp_path, {
        "AGENTS.md": "- Run `make check` before pushing any branch.\n",
        "services/api/CLAUDE.md": "- The API uses FastAPI with async handlers.\n",
        "services/api/GEMINI.md": "- Gemini reads this file for the API service.\n",
        "services/api/.cursorrules": "- Prefer small pure functions everywhere.\n",
        "services/api/.github/copilot-instructions.md": "- Copilot suggestions follow PEP 8 strictly.\n",
        "services/api/.cursor/rules/db.mdc": "- Migrations are written with Alembic only.\n",
        "services/api/docs/adr/DECISIONS.md": "- We chose Postgres over MySQL in 2025.\n",
        "services/api/node_modules/pkg/DECISIONS.md": "- A dependency's decisions are not ours.\n",
        "services/api/.venv/DECISIONS.md": "- Nor are a virtualenv's.\n",
        "services/api/notes/extra.txt": "- Extra notes named by project.known_files count too.\n",
        "CONTRIBUTING.md": "- Not an instruction file unless named.\n",
    })
    corpus = read_corpus(root / "services" / "api", ["notes/*.txt"])
    assert corpus.files == ("CLAUDE.md", "../../AGENTS.md", "GEMINI.md", ".cursorrules",
                            ".github/copilot-instructions.md", ".cursor/rules/db.mdc",
                            "docs/adr/DECISIONS.md", "notes/extra.txt")
    assert corpus.problems == ()
    assert [r.citation for r in corpus.rules][:2] == ["CLAUDE.md:1", "../../AGENTS.md:1"]


def test_unreadable_files_are_one_line_each_and_the_rest_is_read(tmp_path: Path) -> None:
    root = project(tmp_path, {
        "CLAUDE.md": b"- Caf\xe9 rules in Latin-1 are not UTF-8 text at all.\n",
        "AGENTS.md": "- Run `make check` before pushing any branch.\n",
        "GEMINI.md": "x" * (MAX_FILE_BYTES + 1),
    })
    corpus = read_corpus(root)
    assert corpus.files == ("AGENTS.md",)
    assert corpus.problems == (
        "CLAUDE.md: not UTF-8 (byte 0xe9 at offset 5)",
        f"GEMINI.md: {MAX_FILE_BYTES + 1:,} bytes, over the 512 KB limit for an instruction file",
    )
    assert corpus.summary() == "project docs: 1 rule from 1 file; not read: " + "; ".join(corpus.problems)


def test_a_missing_root_is_a_problem_not_an_error(tmp_path: Path) -> None:
    corpus = read_corpus(tmp_path / "nowhere")
    assert corpus.rules == () and corpus.problems == (f"project.root {tmp_path / 'nowhere'}: not a folder",)
    assert read_corpus(None).summary() == "no project.root: the project's docs were not read"


def test_a_known_files_glob_cannot_leave_the_project(tmp_path: Path) -> None:
    root = project(tmp_path, {"CLAUDE.md": "- Run `make check` before pushing any branch.\n"})
    (tmp_path / "secret.md").write_text("- Outside the project.\n", encoding="utf-8")
    corpus = read_corpus(root, ["../*.md"])
    assert corpus.files == ("CLAUDE.md",)
    assert corpus.problems == (f"project.known_files '../*.md': {root / '..' / 'secret.md'} is outside "
                               "project.root; skipped",)


# -- matching -----------------------------------------------------------------------------------


def _index(tmp_path: Path, text: str, batch: list[Memory]) -> KnownIndex:
    return KnownIndex.build(read_corpus(project(tmp_path, {"CLAUDE.md": text})), batch)


def test_a_restatement_is_known_with_its_citation(tmp_path: Path) -> None:
    memory = lesson("m1", "Use `pnpm install` to install dependencies, not npm or yarn.")
    found = _index(tmp_path, CLAUDE_MD, [memory]).check(memory)
    assert found is not None and found.kind == "known"
    assert found.rationale() == ("already in the project's docs, CLAUDE.md:7: Install dependencies "
                                 "with `pnpm install`; never use npm or yarn here.")


@pytest.mark.parametrize("content, differs", [
    ("The development API listens on port 8080.", "8080 vs 8040"),
    ("Install dependencies with `yarn install`.", "yarn vs pnpm"),
])
def test_a_different_fact_contradicts_the_rule(tmp_path: Path, content: str, differs: str) -> None:
    memory = lesson("m1", content)
    found = _index(tmp_path, CLAUDE_MD, [memory]).check(memory)
    assert found is not None and found.kind == "contradicts", found
    assert differs in found.differs
    assert found.rationale().startswith("contradicts CLAUDE.md:")


def test_a_related_lesson_the_docs_do_not_state_is_neither(tmp_path: Path) -> None:
    memory = lesson("m1", "Invoices are rendered with WeasyPrint; it needs the Cairo system library.")
    assert _index(tmp_path, CLAUDE_MD, [memory]).check(memory) is None


def _measure(tmp_path: Path, cases: tuple[Case, ...]) -> tuple[int, int, int, int]:
    known = recognised = others = wrongly = 0
    for number, case in enumerate(cases):
        texts = [(kind, text) for kind in ("known", "novel", "conflicting") for text in getattr(case, kind)]
        batch = [lesson(f"m{i}", text) for i, (_, text) in enumerate(texts)]
        index = KnownIndex.build(read_corpus(project(tmp_path / str(number), {"CLAUDE.md": case.file})), batch)
        for (kind, _), memory in zip(texts, batch, strict=True):
            found = index.check(memory)
            said_known = found is not None and found.kind == "known"
            if kind == "known":
                known, recognised = known + 1, recognised + said_known
            else:
                others, wrongly = others + 1, wrongly + said_known
    return known, recognised, others, wrongly


def test_own_corpus_sets_restatements_recognised_and_nothing_else_called_known(tmp_path: Path) -> None:
    known, recognised, others, wrongly = _measure(tmp_path / "tune", TUNE)
    assert recognised / known >= 0.8 and wrongly == 0, (recognised, known, wrongly, others)
    # The held-out set is measured, not tuned on: it must not call a novel lesson known.
    _, _, held_others, held_wrongly = _measure(tmp_path / "held", HELD_OUT)
    assert held_wrongly == 0, (held_wrongly, held_others)


# -- the runner's pre-pass ------------------------------------------------------------------------


def _workspace_serving(tmp_path: Path) -> Workspace:
    root = project(tmp_path, {"CLAUDE.md": CLAUDE_MD})
    return new_workspace(tmp_path / "ws", project__root=str(root))


def test_the_dream_discards_a_restatement_citing_the_rule(tmp_path: Path) -> None:
    workspace = _workspace_serving(tmp_path)
    [known_id, new_id] = submit(workspace, NewMemory(
        type="observation", title="pnpm only", agent_id="agent-a",
        content="Use `pnpm install` to install dependencies, not npm or yarn."), NewMemory(
        type="observation", title="WeasyPrint needs Cairo", agent_id="agent-a",
        content="Invoices are rendered with WeasyPrint; it needs the Cairo system library."))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    [discard] = [p for p in changeset.proposals if p.op == "discard"]
    assert discard.evidence == [known_id]
    assert "CLAUDE.md:7" in discard.rationale
    assert discard.details["known"]["citation"] == "CLAUDE.md:7"
    [create] = [p for p in changeset.proposals if p.op == "create"]
    assert create.evidence == [new_id] and not create.safety
    stats = changeset.stats["known_corpus"]
    assert stats["known"] == 1 and stats["rules"] == 10 and stats["files"] == ["CLAUDE.md"]


def test_the_dream_marks_what_contradicts_a_rule(tmp_path: Path) -> None:
    workspace = _workspace_serving(tmp_path)
    [memory_id] = submit(workspace, NewMemory(type="observation", title="Dev API port", agent_id="agent-a",
                                              content="The development API listens on port 8080."))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    [proposal] = [p for p in changeset.proposals if memory_id in p.evidence]
    assert proposal.op == "create"
    assert MARK_CONTRADICTS in proposal.safety
    assert "contradicts CLAUDE.md:8: The API listens on port 8040" in proposal.rationale
    assert proposal.details["contradicts"][0]["citation"] == "CLAUDE.md:8"


def test_an_unreadable_instruction_file_never_fails_the_dream(tmp_path: Path) -> None:
    root = project(tmp_path, {"CLAUDE.md": b"\xff\xfe not text"})
    workspace = new_workspace(tmp_path / "ws", project__root=str(root))
    submit(workspace, NewMemory(type="observation", title="A lesson", agent_id="agent-a",
                                content="Run `make check` before pushing a branch."))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None and changeset.complete
    assert changeset.stats["known_corpus"]["problems"] == ["CLAUDE.md: not UTF-8 (byte 0xff at offset 0)"]


def test_a_links_words_count_not_its_url(tmp_path: Path) -> None:
    memory = lesson("m1", "This project uses [Poetry](https://python-poetry.org/docs/) to manage dependencies.")
    index = _index(tmp_path, "- Manage dependencies with Poetry.\n- Run `make test` before pushing.\n", [memory])
    found = index.check(memory)
    assert found is not None and found.kind == "known" and found.rule.citation == "CLAUDE.md:1"


def test_a_glob_naming_too_much_is_cut_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(known, "MAX_GLOBBED", 3)
    root = project(tmp_path, {f"notes/n{i}.md": f"- Rule number {i} says something useful.\n" for i in range(5)})
    corpus = read_corpus(root, ["notes/*.md"])
    assert len(corpus.files) == 3
    assert corpus.problems == ("project.known_files 'notes/*.md': more than 3 paths; the first 3 found are read",)


def test_a_rejected_known_discard_is_not_proposed_again(tmp_path: Path) -> None:
    workspace = _workspace_serving(tmp_path)
    [memory_id] = submit(workspace, NewMemory(
        type="observation", title="pnpm only", agent_id="agent-a",
        content="Use `pnpm install` to install dependencies, not npm or yarn."))
    first = dream(workspace, now=NOW)
    assert first is not None
    [discard] = [p for p in first.proposals if p.op == "discard"]
    decide(workspace, first.id, [discard.id], "reject", now=NOW)
    commit(workspace, first.id, now=NOW)
    # The person said the docs do not state it: the memory is back, and the engine decides.
    second = dream(workspace, now=NOW)
    assert second is not None
    [proposal] = [p for p in second.proposals if memory_id in p.evidence]
    assert proposal.op == "create", proposal
    assert second.stats["known_corpus"]["known"] == 0


def test_a_contradiction_the_engine_leaves_unused_is_still_marked(tmp_path: Path) -> None:
    root = project(tmp_path, {"CLAUDE.md": CLAUDE_MD})
    workspace = new_workspace(tmp_path / "ws", project__root=str(root))
    [memory_id] = submit(workspace, NewMemory(type="observation", title="Dev API port", agent_id="agent-a",
                                              content="The development API listens on port 8080."))
    changeset = dream(workspace, engine="tests.engines_for_tests:Silent", now=NOW)
    assert changeset is not None
    [discard] = [p for p in changeset.proposals if p.evidence == [memory_id]]
    assert discard.op == "discard" and MARK_CONTRADICTS in discard.safety
    assert "contradicts CLAUDE.md:8" in discard.rationale


def test_a_sentence_read_with_its_paragraph_shows_the_contradiction(tmp_path: Path) -> None:
    text = "# Tooling\n\nThis project uses pnpm as the package manager. Do not use npm or yarn.\n"
    memory = lesson("m1", "This project uses Yarn as the package manager. Always use `yarn` commands instead of `npm`.")
    found = _index(tmp_path, text, [memory]).check(memory)
    assert found is not None and found.kind == "contradicts", found
    assert found.rule.citation == "CLAUDE.md:3" and "pnpm" in found.differs


def test_engines_get_the_rules_and_the_contradictions_not_the_restatements(tmp_path: Path) -> None:
    workspace = _workspace_serving(tmp_path)
    [known_id, contra_id, new_id] = submit(workspace, *(
        NewMemory(type="observation", title=title, agent_id="agent-a", content=content) for title, content in (
            ("pnpm only", "Use `pnpm install` to install dependencies, not npm or yarn."),
            ("Dev API port", "The development API listens on port 8080."),
            ("WeasyPrint needs Cairo", "Invoices are rendered with WeasyPrint; it needs the Cairo system library."))))
    Recorder.seen.clear()
    dream(workspace, engine="tests.engines_for_tests:Recorder", now=NOW)
    [given] = Recorder.seen
    assert {m.id for m in given.batch} == {contra_id, new_id}  # the restatement is already discarded
    assert given.known is not None and len(given.known.rules) == 10
    assert given.known.rules[1].cited().startswith("CLAUDE.md:7: Install dependencies")
    assert set(given.contradictions) == {contra_id}
    assert given.contradictions[contra_id].rule.citation == "CLAUDE.md:8"
    assert [r.citation for r in given.known.related("which port does the API listen on in development")][:1] \
        == ["CLAUDE.md:8"]


def test_decision_sections_dreamtui_recorded_are_not_the_projects_word(tmp_path: Path) -> None:
    entry = parse_entry("---\ntitle: Money is Decimal\nslug: money-decimal\ntype: topic\n---\n"
                        "Store money amounts as `Decimal`, never `float`.\n", "topics/money-decimal.md")
    recorded = HEADER + decision_section(entry, NOW, "d-20261129-030012-ab12")
    text = recorded + "\n## 2026-11-30 — Our own call\n\nWe deploy on Tuesdays only.\n"
    rules = split_rules(text, "DECISIONS.md")
    assert [r.text for r in rules] == ["We deploy on Tuesdays only."]


def test_a_quoted_note_is_a_rule_too() -> None:
    text = ("# Notes\n\n> **Important:** never push directly to `main`;\n> open a pull request.\n>\n"
            "> - Tag releases with `vX.Y.Z`.\n")
    assert [(r.citation, r.text) for r in split_rules(text, "AGENTS.md")] == [
        ("AGENTS.md:3", "**Important:** never push directly to `main`; open a pull request."),
        ("AGENTS.md:6", "Tag releases with `vX.Y.Z`."),
    ]


def test_a_partial_restatement_is_noted_not_discarded(tmp_path: Path) -> None:
    root = project(tmp_path, {"CLAUDE.md": "# Style\n\n- Format the code with `black`.\n"
                                           "- Run `pytest -q` before pushing.\n- Keep functions short.\n"})
    workspace = new_workspace(tmp_path / "ws", project__root=str(root))
    [memory_id] = submit(workspace, NewMemory(
        type="observation", title="Tests before pushing", agent_id="agent-a",
        content="Before pushing, always run pytest -q and then git fetch the latest tags from upstream."))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    [proposal] = [p for p in changeset.proposals if memory_id in p.evidence]
    assert proposal.op == "create" and not proposal.safety  # kept, for the person to judge
    assert "; may repeat the project's docs, CLAUDE.md:4: Run `pytest -q` before pushing." in proposal.rationale
    assert proposal.details["close_to"][0]["citation"] == "CLAUDE.md:4"
    assert changeset.stats["known_corpus"]["close"] == 1


# -- where a rule sits, and how a memory words it ------------------------------------------------

STYLE_MD = """# CLAUDE.md

## Package Manager

This project uses pnpm.

## Style

- Never use emojis in generated docs or code. Status lines take plain text markers instead,
  such as [DONE], [HIGH] or [SKIP], uppercase and bracketed.
- Format code with `black`.

## Commands

| command | what it does |
| --- | --- |
| `make db-reset` | resets the local database before the integration tests |
| dev server port | 5173 |

```bash
# Start the local stack (Postgres and Redis)
docker compose up -d
pnpm seed
```
"""


@pytest.mark.parametrize("content, citation", [
    # one sentence of a two-sentence item
    ("Never use emojis in code or generated docs.", "CLAUDE.md:9"),
    # the same, with an aside of examples the rule does not list
    ("Never use emojis anywhere — not in commit messages, comments or replies.", "CLAUDE.md:9"),
    # generic words ("run", "files") need no rule
    ("Always run `black` to keep code formatted.", "CLAUDE.md:11"),
    # the heading carries the subject
    ("pnpm is the package manager.", "CLAUDE.md:5"),
    # a table's row
    ("Run `make db-reset` to reset the local database before the integration tests.", "CLAUDE.md:17"),
    # a command in a shell block, with the comment above it
    ("Start the local stack with `docker compose up -d`.", "CLAUDE.md:22"),
])
def test_a_restatement_is_known_wherever_the_rule_sits(tmp_path: Path, content: str, citation: str) -> None:
    memory = lesson("m1", content)
    found = _index(tmp_path, STYLE_MD, [memory]).check(memory)
    assert found is not None and found.kind == "known", found
    assert found.rule.citation == citation


def test_a_shell_blocks_commands_are_rules_only_with_their_comment() -> None:
    rules = [(r.citation, r.text) for r in split_rules(STYLE_MD, "CLAUDE.md") if "`" in r.text]
    assert ("CLAUDE.md:22", "Start the local stack (Postgres and Redis): `docker compose up -d`") in rules
    assert not [text for _, text in rules if "pnpm seed" in text]  # no comment says what it is for


@pytest.mark.parametrize("content", [
    "Use `pnpm dlx` instead of `npx` for one-off package execution.",
    "Never commit emojis to the changelog — the release tool rejects them.",
    "Run `make db-reset` after every migration you write.",
    "Always run `black --check` in CI, never `black` itself.",
    "Rebuild with `docker compose up -d --build` after changing the Dockerfile.",
    # an aside naming a command is no example of the rule but news
    "Never use emojis in docs — use `:emoji-free:` lint via `pnpm lint:text` instead.",
    # a later step the rule does not ask for
    "Reset the local database with `make db-reset` before the integration tests, then commit the dump.",
])
def test_a_related_lesson_is_not_called_known(tmp_path: Path, content: str) -> None:
    memory = lesson("m1", content)
    found = _index(tmp_path, STYLE_MD, [memory]).check(memory)
    assert found is None or found.kind != "known", found


@pytest.mark.parametrize("content, differs", [
    ("The dev server port is 5174.", "5174 vs 5173"),
    ("Format code with `yapf` (not black).", "yapf vs black"),
])
def test_a_contradiction_of_a_row_or_an_item_is_shown_with_its_citation(
        tmp_path: Path, content: str, differs: str) -> None:
    memory = lesson("m1", content)
    found = _index(tmp_path, STYLE_MD, [memory]).check(memory)
    assert found is not None and found.kind == "contradicts", found
    assert differs in found.differs and found.rationale().startswith("contradicts CLAUDE.md:1")


POETRY_MD = """# AGENTS.md

## Setup

- Run `poetry install` once to set up dependencies.
- Execute `poetry run pytest` before every commit.
- The test database is Postgres 16.
"""


def test_another_tool_for_a_role_the_docs_fill_contradicts_them(tmp_path: Path) -> None:
    memory = lesson("m1", "Always use `uv` for package management -- never `pip`.")
    found = _index(tmp_path, POETRY_MD, [memory]).check(memory)
    assert found is not None and found.kind == "contradicts", found
    assert found.rationale().startswith("contradicts CLAUDE.md:5: Run `poetry install` once")
    assert found.differs == "Python package manager: uv vs poetry"


@pytest.mark.parametrize("content", [
    "Cache fixtures in SQLite when running locally.",  # databases: a project often has several
    "Keep dependency groups small and documented.",  # names no tool
    "Use `poetry add --group dev` for test-only packages.",  # the docs' own tool
])
def test_no_other_tool_no_contradiction_of_the_docs_choice(tmp_path: Path, content: str) -> None:
    memory = lesson("m1", content)
    found = _index(tmp_path, POETRY_MD, [memory]).check(memory)
    assert found is None or found.kind != "contradicts", found


def test_a_tool_the_docs_name_too_is_not_against_their_choice(tmp_path: Path) -> None:
    text = POETRY_MD + "- We are moving to `uv`; new scripts may use it.\n"
    memory = lesson("m1", "Always use `uv` for package management -- never `pip`.")
    found = _index(tmp_path, text, [memory]).check(memory)
    assert found is None or "poetry" not in found.differs, found


# -- restatements worded differently: numbers, "ask before", lists --------------------------------

WORDING_MD = """# CLAUDE.md

## Writing

- Use a 100 chars per line limit in general. Code or URLs may exceed it.
- Do not delete remote branches or tags unless the user explicitly asks.
- NEVER print or log the contents of `.env`, `.env.production`, or any file holding API tokens.
- Ask before running database migrations against staging.
- Batch imports stay under 1,500 rows per request.
- Keep functions under 40 lines.
- Retry flaky uploads 3 times with backoff.
"""


RESTATED = (
    # "chars" is "characters", the number both give is the fact, and the item's second sentence
    # says what the first leaves out ("code")
    "For all code files, aim to keep line lengths under 100 characters.",
    # "ask before X" is "don't X unless asked"
    "Ask before deleting remote branches or tags (git push --delete, git tag -d).",
    # a list's items, each covered by what the rule names ("API tokens" for "deploy tokens")
    "Never request or log: .env, .env.*, private deploy tokens, passwords.",
    # and its mirror: "don't X unless asked" is "ask before X"
    "Never run database migrations against staging unless the user asks.",
    # "1,500" is one number, not 1 and 500
    "Keep each batch import below 1,500 rows per request.",
    "Functions should be at most 40 lines long.",
)
RELATED = (
    "Keep Markdown line lengths under 120 characters.",  # another number
    "Ask before merging remote branches.",  # another action needs the person's word
    "Never log: request bodies, session cookies, user emails.",  # a list the rule does not name
    "Never seed the staging database unless the user asks.",  # another step needs the word
    "Keep each batch import below 500 rows per request.",
    "Line length of Python code: 88",
    "Functions should be at most 60 lines long.",
    "Retry failed uploads up to 5 times, backing off.",
    "For all code files, aim to keep line lengths under 100 characters, then run the formatter.",
)
# Measured as one batch, as a dream does: a word's rarity is counted over the batch too.
WORDING_BATCH = [lesson(f"m{number}", text) for number, text in enumerate(RESTATED + RELATED)]


@pytest.mark.parametrize("memory", WORDING_BATCH[:len(RESTATED)], ids=lambda m: m.content[:40])
def test_a_restatement_in_other_words_is_known(tmp_path: Path, memory: Memory) -> None:
    found = _index(tmp_path, WORDING_MD, WORDING_BATCH).check(memory)
    assert found is not None and found.kind == "known", found


@pytest.mark.parametrize("memory", WORDING_BATCH[len(RESTATED):], ids=lambda m: m.content[:40])
def test_a_related_line_stating_something_else_is_not_known(tmp_path: Path, memory: Memory) -> None:
    found = _index(tmp_path, WORDING_MD, WORDING_BATCH).check(memory)
    assert found is None or found.kind != "known", found


REPO_MD = """# CLAUDE.md

## Repository

- Never commit files under `fixtures/large/`.
- `just check` (not `npm run check`)
- Use tabs for indentation in Makefiles.
"""


@pytest.mark.parametrize("content, kind", [
    # "anything" for "files": one word swapped for another naming nothing in particular
    ("Do not commit anything under `fixtures/large/`.", "known"),
    # the rule's "not" rejects npm, not running
    ("Always run `just check` before opening a pull request.", None),
    # still contradictions: a word naming a thing, the command the aside rejects, another fact
    ("Never commit secrets under `fixtures/large/`.", "contradicts"),
    ("Run `npm run check`.", "contradicts"),
    ("Use spaces for indentation in Makefiles.", "contradicts"),
])
def test_only_a_difference_stating_another_fact_contradicts(tmp_path: Path, content: str,
                                                            kind: str | None) -> None:
    memory = lesson("m1", content)
    found = _index(tmp_path, REPO_MD, [memory]).check(memory)
    assert (found.kind if found is not None and found.kind != "close" else None) == kind, found


def test_a_number_with_a_thousands_comma_is_one_number(tmp_path: Path) -> None:
    same, other = lesson("m1", "Batch imports stay under 1500 rows per request."), \
        lesson("m2", "Keep each batch import below 1,600 rows per request.")
    index = _index(tmp_path, WORDING_MD, [same, other])
    found = index.check(same)
    assert found is not None and found.kind == "known", found
    found = index.check(other)
    assert found is not None and found.kind == "contradicts" and "1600 vs 1500" in found.differs, found


def test_a_short_memory_contradicting_a_rule_is_not_discarded_as_trivia(tmp_path: Path) -> None:
    # Too short to read as a lesson alone, but it rules on what the docs rule on: a person decides.
    root = project(tmp_path, {"CLAUDE.md": "# Style\n\n- Double quotes, tab indentation, trailing commas\n"})
    workspace = new_workspace(tmp_path / "ws", project__root=str(root))
    [memory_id] = submit(workspace, NewMemory(type="observation", title="Quotes", agent_id="agent-a",
                                              content="Single quotes, no trailing commas"))
    changeset = dream(workspace, now=NOW)
    assert changeset is not None
    [proposal] = [p for p in changeset.proposals if memory_id in p.evidence]
    assert proposal.op != "discard"
    assert MARK_CONTRADICTS in proposal.safety and "CLAUDE.md:3" in proposal.rationale
