"""Short and long forms of a project's rule (dream/known.py): where it holds, what narrows it, the
condition it holds under, the person's word, a gate said both ways, a list of short rules.

Each case is a shape instruction files take, in dreamtui's own words; each restatement has a
look-alike beside it that must not be called known (the opposite stance, another value, a
condition left out).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.dream.known import KnownIndex, read_corpus
from tests.unit.test_known import project
from tests.unit.test_known_rewordings import _check, _kind

STORY = ("## Agents\n\n- Context: A maintainer has finished a release, tagged it, and is about to publish"
         " the notes.\n  user: \"I have tagged `v2.1`. Can you draft the notes?\"\n  assistant: \"Sure. I will"
         " read the pushes and changes since the last tag and draft the notes for you.\"\n"
         "- **Permission:** never push changes without explicit approval.\n")


@pytest.mark.parametrize("docs, memory", [
    # a rule saying no place holds everywhere: the memory's places narrow it
    ("## Style\n\n- Do not use ASCII art banners unless explicitly requested.\n",
     "No ASCII art banners in code, log messages, or documentation."),
    ("## Layout\n\n- Tabs for indentation, LF line endings, a final newline\n",
     "Use tabs for indentation in all Go and Makefile files."),
    # ... and a rule naming a place shares it with the memory's
    ("## Git\n\n- Never put ticket numbers in commit messages.\n",
     "NEVER put ticket numbers in git commits, pull requests, or any code."),
    # a word narrowing what the rule says ("docstring" comments are comments)
    ("## Style\n\n- Do not write comments unless I ask for them.\n",
     "Avoid docstring comments in the code!!"),
    # the kind of thing a name is: "format", "spec", "style"
    ("## Releases\n\n- When tagging releases, follow the Semantic Versioning spec.\n",
     "Use Semantic Versioning format for all release tags (e.g., `v1.2.0`, `v2.0.0-rc.1`)."),
    # the person's word, said as approval
    ("## Git\n\n- Do not rebase shared branches unless explicitly asked.\n",
     "**Safety:** the AI must NEVER rebase shared branches without explicit user approval."),
    # a gate said both ways: "never X if not Y" and "Y before X"
    ("## Workflow\n\n- NEVER deploy the site if the smoke checks do not pass.\n",
     "Make sure the smoke checks pass before deploying."),
    # one verb putting a thing where it goes for another
    ("## Python\n\n- Keep fixtures in the conftest of each package.\n",
     "Put fixtures in the conftest of each package."),
    # an acronym spells the other side's words
    ("## Workflow\n\n- Keep continuous integration green before merging.\n", "Keep CI green before merging."),
    ("## Workflow\n\n- Keep CI green before merging.\n", "Keep continuous integration green before merging."),
    # a hedge of the memory's needs no rule
    ("## Workflow\n\n- Always ensure the linters pass before pushing.\n",
     "Run the relevant linters before pushing when practical."),
    # a short memory all of whose words a long rule says, with examples of its own
    ("## Security\n\n- **NEVER commit private keys, tokens, or passwords** to any file in the repo — not in"
     " code, not in docs, not in notebooks.\n",
     "**NEVER** commit passwords to version control."),
    # "when needed" is a hedge, not a condition the memory must say
    ("## Design\n\n- Avoid global state; pass a context object when needed.\n",
     "Avoid global state."),
])
def test_a_short_or_long_form_of_a_rule_is_known(tmp_path: Path, docs: str, memory: str) -> None:
    assert _kind(tmp_path, docs, memory) == "known"


@pytest.mark.parametrize("docs, memory", [
    # the condition the rule holds under, left out: another rule
    ("## Workflow\n\n- NEVER deploy the site if the smoke checks do not pass.\n",
     "Do not deploy the site - leave that for the release manager"),
    # a place that is a value, not where the rule holds
    ("## Language\n\n- Write all responses in Spanish.\n",
     "Write all responses in Portuguese."),
    # a rule's own word before the noun is its value: "double" is not "single"
    ("## Style\n\n- Double quotes, tabs, trailing commas\n",
     "Single quotes, no trailing commas"),
    # the opposite stance, however short
    ("## Style\n\n- Do not use ASCII art banners unless explicitly requested.\n",
     "Always use ASCII art banners in code and documentation."),
    # a name's kind word does not make another name the same: "Conventional" is no "convention"
    ("## Conventions\n\n- Commit messages use the imperative mood.\n",
     "Use Conventional Commits for all commit messages."),
    # a story's sentences name the memory's words in passing: it says to do none of them
    (STORY, "ALWAYS push after you finish making changes."),
    (STORY, "Always push once you finish the release."),
])
def test_a_look_alike_of_a_short_or_long_form_is_not_known(tmp_path: Path, docs: str, memory: str) -> None:
    assert _kind(tmp_path, docs, memory) != "known"


JAPANESE = ("# CLAUDE.md\n\n## 言語設定\n\n- ユーザーへの応答は日本語で行う\n\n"
            "## 開発ルール\n\n- テストを書いてから実装する\n")
KOREAN = "# AGENTS.md\n\n## 규칙\n\n- 모든 답변은 한국어로 작성합니다.\n"


@pytest.mark.parametrize("docs, memory, kind", [
    # the language the agent answers in, said in the docs' own language and in English
    (JAPANESE, "Always reply to the user in Japanese.", "known"),
    (JAPANESE, "Use Japanese when chatting with the developer.", "known"),
    (KOREAN, "Answer in Korean.", "known"),
    # another language is a contradiction, whichever language the docs are in
    (JAPANESE, "Respond in English whatever language the question is asked in.", "contradicts"),
    # a language for code or docs is not the language of replies
    (JAPANESE, "Write code comments in English.", ""),
    # a memory saying more than the language is read as usual
    (JAPANESE, "Reply in Japanese, run the linters before every push and keep commits small.", ""),
])
def test_the_language_of_replies_is_read_across_languages(tmp_path: Path, docs: str, memory: str,
                                                          kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


def test_a_restated_language_of_replies_cites_its_line(tmp_path: Path) -> None:
    found = _check(tmp_path, JAPANESE, "Provide every answer in Japanese.")
    assert found is not None and found.rule.citation == "CLAUDE.md:5"
    assert found.rationale() == "already in the project's docs, CLAUDE.md:5: ユーザーへの応答は日本語で行う"


def test_docs_naming_no_language_leave_a_language_memory_to_the_usual_reading(tmp_path: Path) -> None:
    assert _kind(tmp_path, "## Git\n\n- Never force-push to `main`.\n", "Reply in Japanese.") == ""


SEVERAL = ("## Rules\n\n- Use uv for environments; run `uv run ruff check` before pushing; never commit `.envrc`.\n"
           "- Prefer dataclasses over dicts, avoid module-level singletons, and keep modules under 400 lines.\n"
           "- When writing migrations, name them after the table they change.\n")


@pytest.mark.parametrize("memory, kind, line", [
    # one instruction of a line stating several, restated: known, citing the line
    ("Keep each module under 400 lines.", "known", 4),
    ("Avoid module-level singletons.", "known", 4),
    ("Never commit .envrc.", "known", 3),
    # ... with another value: a contradiction of that line
    ("Keep modules under 250 lines.", "contradicts", 4),
    # a clause opening with a condition stays with its instruction: no part "When writing migrations"
    ("Write migrations by hand.", "", 0),
])
def test_one_instruction_of_a_line_stating_several(tmp_path: Path, memory: str, kind: str, line: int) -> None:
    found = _check(tmp_path, SEVERAL, memory)
    assert ("" if found is None else found.kind) == kind
    if found is not None:
        assert found.rule.citation == f"CLAUDE.md:{line}"


def test_the_parts_of_a_line_are_not_counted_as_more_rules(tmp_path: Path) -> None:
    corpus = read_corpus(project(tmp_path, {"CLAUDE.md": SEVERAL}))
    assert corpus.summary() == "project docs: 3 rules from 1 file"


@pytest.mark.parametrize("docs, memory, kind", [
    # a tool both name says its role
    ("## Tooling\n\n- Always use `bun` instead of `npm` or `pnpm`\n",
     "**Use bun** - Always use `bun` instead of `npm` for package management commands.", "known"),
    # the person's word said two ways is no other fact
    ("## Deps\n\n- Avoid new dependencies unless explicitly approved.\n- Keep the lockfile committed.\n",
     "No new dependencies unless you ask first.", "known"),
    # a place opening the memory, ended by a comma
    ("## Style\n\n- Use 100 chars per line limit in general.\n",
     "For all source files, aim to keep line lengths under 100 characters.", "known"),
    # what a memory picks over another kind of the thing the rule names
    ("## TypeScript\n\n- Use named exports in modules.\n", "Prefer named exports over default exports.", "known"),
    ("## TypeScript\n\n- Use named exports in modules.\n", "Prefer default exports over named exports.",
     "contradicts"),
    # ... by the short name of its language
    ("## Tooling\n\n- This project uses **Bun** as the package manager, not npm.\n",
     "In JS/TS projects, use `bun` instead of `npm`", "known"),
    # a bold lead and a dash: the rule is what follows the dash, not the label
    ("## Work\n\n- When a test fails, fix the test rather than the code it checks.\n",
     "**Just fix it** - Don't ask unnecessary questions, investigate and solve the problem", ""),
    # the action a rule takes on a thing is not the thing's own action: pushing commits is not committing
    ("## Data\n\n- Never upload logs unless the user explicitly asks to upload.\n",
     "**Rule:** the AI must NEVER log changes without explicit user approval.", ""),
    ("## Git\n\n- Never push commits unless the user explicitly asks to push.\n",
     "**Rule:** the AI must NEVER commit changes without explicit user approval.", ""),
    # a command picked is not a rule's plain word
    ("## TypeScript\n\n- **Avoid `any`** — use `unknown` with type guards when the type is truly unknown\n",
     "**Types**: Use `type` not `interface`", ""),
    # a bold lead that is itself an instruction is the rule; the dash gives its reason
    ("## Shell\n\n- NEVER use `git clean`, `git reset --hard`, or `git checkout .` to discard work.\n",
     "**NEVER use `git reset --hard`** - it is blocked by a pre-command hook for safety", "known"),
    # a language said alone, its variant by another name
    ("## Writing\n\n- Use British English spelling and terminology in all responses to the user.\n",
     "Use UK English.", "known"),
    # one word swapped for another is another fact, but not an item of a list
    ("## Repo\n\n- Never commit files under `vendor/cache/`.\n", "Never commit binaries under `vendor/cache/`.",
     "contradicts"),
    ("## Python\n\n- Write docstrings for all modules and classes\n",
     "Write docstrings for all modules and functions", "known"),
    # a language's variant is another value
    ("## Writing\n\n- Use American English spelling in all responses to the user.\n",
     "Always respond in British English.", "contradicts"),
    # what a name is said of is no place where a rule holds
    ("## CLI\n\n- Use long explicit flags over abbreviated ones.\n",
     "Avoid abbreviations in variable names.", ""),
])
def test_what_a_short_form_must_still_say(tmp_path: Path, docs: str, memory: str, kind: str) -> None:
    found = _kind(tmp_path, docs, memory)
    assert found == kind if kind else found != "known"


def test_a_models_prompt_gets_the_docs_lines_not_their_parts(tmp_path: Path) -> None:
    index = KnownIndex.build(read_corpus(project(tmp_path, {"CLAUDE.md": SEVERAL})))
    related = index.related("keep modules under 400 lines and avoid module-level singletons")
    assert related and not any(rule.part for rule in related)
    assert related[0].text.startswith("Prefer dataclasses over dicts")
