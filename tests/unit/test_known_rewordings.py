"""Rewordings of a project's rule that restate it, and look-alikes that do not (dream/known.py).

Each case is one shape real instruction files take, written in dreamtui's own words: a rule
restated with an escape for the person's word, behind a bold label, with examples, as the tool
a section picks; a stance read where there is none (a command's arguments, a rule's aside); the
opposite stance on the same thing; another format given in an aside; a heading naming no subject.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.dream.known import KnownIndex, KnownMatch, read_corpus
from tests.fixtures.known_corpus import (
    OWN_FIFTH,
    OWN_FOURTH,
    OWN_HELD_OUT,
    OWN_SECOND,
    OWN_THIRD,
    REWORDED,
    REWORDED_HELD_OUT,
)
from tests.unit.test_known import _measure, lesson, project

DO_DONT = ("## Do and don't\n\n| Do | Don't |\n|---|---|\n"
           "| Use `uvx ruff` for linting | Use `pip install ruff` for linting |\n")


def _check(tmp_path: Path, docs: str, memory: str) -> KnownMatch | None:
    found = lesson("m1", memory)
    index = KnownIndex.build(read_corpus(project(tmp_path, {"CLAUDE.md": docs})), [found])
    return index.check(found)


def _kind(tmp_path: Path, docs: str, memory: str) -> str:
    found = _check(tmp_path, docs, memory)
    return "" if found is None else found.kind


@pytest.mark.parametrize("docs, memory", [
    # a person's word overrides any rule: "never X" is "don't X unless told to"
    ("## Git\n\n- Never rewrite published history.\n",
     "Do not rewrite published history unless explicitly instructed to do so."),
    # a bold label names the section the memory came from, as a heading does
    ("## Git\n\n- Use the semantic commit format for every commit message.\n",
     "**Style:** Use the semantic commit format specification for every commit message."),
    # examples of what it rejects need no rule of their own
    ("## HTTP\n\n- Prefer `httpx` over `requests` and close every client you open.\n",
     "Use `httpx` for HTTP calls instead of older libraries like `requests` or `urllib3`."),
    # the tool a section picks, said as the tool for the repository
    ("## Package manager\n\n- **Use Yarn only.** Do not use npm or pnpm.\n- Add a dependency: `yarn add <pkg>`\n",
     "Yarn is the package manager for this repository."),
    # a pick implies rejecting what it could have been instead
    ("## Search\n\n- Prefer `fd` for finding files.\n",
     "Prefer using `fd` instead of `find` or `locate` to find files in the repository."),
    # the `warnings` of `-D warnings` is an argument, not a stance on warnings
    ("## Checks\n\nAfter changing code, run `cargo lint --workspace -- -D warnings`.\n",
     "Run `cargo lint` and make sure there are no warnings."),
    # a rule's aside explains ("the server is up"); it does not tell to run servers
    ("## Server\n\n- **NEVER run `make serve`** - the development server is always up\n",
     "Never run `make serve` or any development server command"),
    # a rejection's scope is a guess: "main or master branches" rejects no branch; the passive
    # puts the thing before its negation, the action stays rejected
    ("## Data\n\n- Never delete a backup that has been verified; archive it.\n",
     "Verified backups must not be deleted; archive them."),
    ("## Data\n\n- Do not modify the samples in `fixtures/raw/`.\n",
     "The samples in `fixtures/raw/` must never be modified."),
    ("## Client\n\n- Never call `fetch` directly from a page; go through `src/client.ts`.\n",
     "Pages should not call fetch themselves — they go through `src/client.ts`."),
    ("## Git\n\n- Always create a topic branch for changes. Never commit directly to main.\n",
     "Never commit directly to main or master branches"),
    # a command named in an aside names what the memory speaks of; it does not use it
    ("## Files\n\n- Lock files are generated in CI; never commit `.lockdb` files.\n",
     "Never commit the lock database (`.lockdb`) files to the repo."),
    # a reason it gives says why, not what to do
    ("## Scripts\n\n- Call `init_logging()` first in a script, before any import of the app.\n",
     "Call `init_logging()` first in each script, so that warnings raised while settings load still reach "
     "the log file."),
    # a "Do | Don't" table: the cell under "Don't" is rejected
    (DO_DONT,
     "Lint with `uvx ruff`, not `pip install ruff`."),
    # "not allowed" rejects every action on the thing
    ("## Testing\n- Jest; run `npx jest` before pushing.\n"
     "- Snapshot tests are not allowed; assert on visible text instead.\n",
     "Don't write snapshot tests — assert on the visible text."),
    # "only allowed in" is "none except in"
    ("## Code\n\n- No mutable globals except in `init.go`.\n- Keep functions short.\n",
     "Mutable globals are only allowed in init.go."),
    # two spellings of one name ("hard-coded", "hard-code"); an opposite stance on a plain word
    # ("timeouts") where the two agree on more (both reject hard-coding)
    ("## Settings\n\n- Settings live in `conf/*.toml`, read at start-up. Don't hard-code timeouts.\n",
     "Timeouts belong in the conf files, not hard-coded in the code."),
    # the "path" of `os.path` is a module, not the paths the memory speaks of
    ("## Files\n\n- Prefer `pathlib` over `os.path` and close every file you open.\n",
     "Prefer `pathlib` for path handling instead of `os.path`."),
])
def test_a_rewording_of_a_rule_is_known(tmp_path: Path, docs: str, memory: str) -> None:
    found = _check(tmp_path, docs, memory)
    assert found is not None and found.kind == "known", found


@pytest.mark.parametrize("docs, memory, differs", [
    # the opposite stance on the same thing
    ("## Git\n\n- Follow the semantic commit format (e.g., feat:, fix:, chore:)\n",
     "Do not use the semantic commit format.", ": do not vs do"),
    # ... said in the passive: the action is what the stance is on
    ("## Data\n\n- Never delete a backup that has been verified; archive it.\n",
     "Verified backups must be deleted after a week.", ": do vs do not"),
    ("## Data\n\n- Do not modify the samples in `fixtures/raw/`.\n",
     "The samples in `fixtures/raw/` can be modified freely by any test.", "do vs do not"),
    # a "Do | Don't" table's rejected cell, done
    (DO_DONT,
     "Use `pip install ruff` for linting.", "use vs do not use"),
    # "X is not used any more" rejects X
    ("## Releases\n\n- Roll out to `canary` first, then to everyone.\n",
     "Roll out to everyone at once; canary is not used any more.", "canary: do not vs do"),
    ("## Style\n\n- Prefer `zod` over hand-written validators.\n",
     "Prefer hand-written validators over `zod`.", "zod"),
    # another format, said in an aside with an example of what it rejects
    ("## Git\n\n- Subject line: `<type>(<area>): <summary>`\n",
     "**Subject:** Write it as `type: summary` (no area like `type(area): ...`).", "area: do not vs do"),
])
def test_the_opposite_stance_contradicts(tmp_path: Path, docs: str, memory: str, differs: str) -> None:
    found = _check(tmp_path, docs, memory)
    assert found is not None and found.kind == "contradicts", found
    assert differs in found.differs


@pytest.mark.parametrize("docs, memory", [
    # "Conventions" names no subject: it does not say "conventional"
    ("## Conventions\n\n- Commit messages are written in the past tense.\n",
     "Use conventional commit messages for every commit."),
    # the same command with a step the rule never gives; "no errors" is no alternative to a pick
    ("## Scripts\n\n- Run scripts: `yarn dev`, `yarn build`, `yarn start`\n",
     "Always run `yarn build` before the end-to-end tests, to make sure there are no build errors."),
    # a command the rule never names is news, whatever words it shares
    ("## Errors\n\n- Wrap errors with `fmt.Errorf(\"...: %w\", err)`; never drop an error with `_`.\n",
     "Use `errors.As` to unwrap wrapped errors."),
    # a command of another role: `bun test` instead of jest is about the test runner, not Bun
    ("## Package manager\n\n- **Use Bun only.** Do not use npm, yarn, or pnpm.\n",
     "Use `bun test` instead of `jest` or `vitest`."),
])
def test_a_related_memory_is_not_known(tmp_path: Path, docs: str, memory: str) -> None:
    assert _kind(tmp_path, docs, memory) != "known"


def test_own_rewording_sets(tmp_path: Path) -> None:
    known, recognised, others, wrongly = _measure(tmp_path / "tune", REWORDED)
    assert recognised == known and wrongly == 0, (recognised, known, wrongly, others)
    # Written with REWORDED, before known.py's rules for it, and only measured: nothing it holds
    # that is not a restatement may be called known.
    _, _, held_others, held_wrongly = _measure(tmp_path / "held", REWORDED_HELD_OUT)
    assert held_wrongly == 0, (held_wrongly, held_others)


SECTION = ("## Git\n\n- Every commit message follows the semantic commit format, in English.\n"
           "- Format: `<type>(<area>): <summary>`\n- Sign every release tag.\n")


def test_a_memory_stating_two_rules_restates_the_docs(tmp_path: Path) -> None:
    memory = "Write every commit message in English, in the semantic commit format: `<type>(<area>): <summary>`"
    found = _check(tmp_path, SECTION, memory)
    assert found is not None and found.kind == "known", found
    assert found.rule.line == 3  # the first statement's rule is cited


@pytest.mark.parametrize("memory", [
    # the second statement is news: another format
    "Write every commit message in English, in the semantic commit format: `<kind>/<ticket> <summary>`",
    # the second statement is a rule of its own
    "Write every commit message in English, in the semantic commit format. Squash every branch before merging.",
])
def test_a_memory_with_a_statement_the_docs_lack_is_not_known(tmp_path: Path, memory: str) -> None:
    assert _kind(tmp_path, SECTION, memory) != "known"


@pytest.mark.parametrize("docs, memory", [
    ("## Security\n\n- Never leak tokens or passwords into the repository.\n",
     "Never commit tokens to the repository."),
    ("## Changes\n\n- Keep every change minimal.\n- Run the linter before a commit.\n",
     "Make minimal edits."),
])
def test_kindred_words_say_the_rule(tmp_path: Path, docs: str, memory: str) -> None:
    # match.py's families (leak/commit, edit/change) count for what the rule says, in part
    assert _kind(tmp_path, docs, memory) == "known"


LOOK_ALIKES = "## Workers\n\n" + "".join(
    f"- Start `worker queue-{n}` for the {('mail', 'sms', 'push')[n % 3]} jobs on port {8100 + n}.\n"
    for n in range(40))


def test_among_look_alike_rules_the_number_finds_the_one_meant(tmp_path: Path) -> None:
    # the words of 40 rules are nearly the same; the number tells which rule a memory repeats
    found = _check(tmp_path, LOOK_ALIKES, "Start `worker queue-27` for the mail jobs on port 8127.")
    assert found is not None and found.kind == "known" and found.rule.line == 30, found


def test_another_number_is_no_restatement(tmp_path: Path) -> None:
    # "27" of the name is shared, the port is not: another value for one thing
    assert _kind(tmp_path, LOOK_ALIKES, "Start `worker queue-27` for the mail jobs on port 9127.") != "known"


@pytest.mark.parametrize("docs, memory", [
    # a word's kin counts beside a word of its family the rule says too
    ("## Changes\n\n- Keep each diff small and focused.\n",
     "Make small, surgical edits."),
    # an API key is a credential: "secrets" says it ...
    ("## Security\n\n- Never leak secrets or tokens.\n",
     "Never commit secrets or API keys."),
    # ... and a rule's "API keys" still says keys
    ("## Security\n\n- NEVER print API keys or passwords in logs.\n",
     "Never print passwords, private keys or tokens in logs."),
])
def test_words_that_say_one_thing_in_other_words(tmp_path: Path, docs: str, memory: str) -> None:
    assert _kind(tmp_path, docs, memory) == "known"


def test_own_second_set(tmp_path: Path) -> None:
    known, recognised, others, wrongly = _measure(tmp_path, OWN_SECOND)
    # Left: a pull request said as "go through a pull request" (not "open a PR"), `unwrap()` and
    # a command before "instead" read by match.py as rejected; a library's error crate said as the
    # binary's ("`anyhow` ... too" against "`anyhow` only in the binary") is still called known.
    assert recognised >= 15 and wrongly <= 1, (recognised, known, wrongly, others)


def test_own_third_set(tmp_path: Path) -> None:
    known, recognised, others, wrongly = _measure(tmp_path, OWN_THIRD)
    # Left: "Secrets must not go
    # into values files; they are pulled from AWS Secrets Manager" read as doing secrets (the
    # name says them outside the negated clause), a contradiction of "Never put secrets in
    # values files".
    assert recognised >= 12 and wrongly == 0, (recognised, known, wrongly, others)


def test_own_fourth_set(tmp_path: Path) -> None:
    known, recognised, others, wrongly = _measure(tmp_path, OWN_FOURTH)
    # Left: "Don't ignore errors by assigning them to `_`" against "never discard an error with
    # `_`" (ignore/discard, assign), "Take `ctx` as the first parameter" against "Context is
    # the first parameter, named `ctx`"; "Bump the build number" called a restatement of "bump
    # `version` …; build numbers are set by EAS" (a value swapped across two clauses).
    assert recognised >= 10 and wrongly <= 1, (recognised, known, wrongly, others)


FORBIDDEN = """# AGENTS.md

## Forbidden

- Force-pushing to `main`
- Editing files under `vendor/`

## Releases

Before tagging a release:

- run `make changelog`
- bump the version in `VERSION`

Do NOT:

- publish from a laptop

The following are not allowed in tests:

- network calls to production
"""


@pytest.mark.parametrize("memory", [
    "Never force-push to main.",
    "Don't edit anything under `vendor/`.",
    "Run `make changelog` before tagging a release.",
    "Never publish a release from your laptop.",
    "Tests must never make network calls to production.",
])
def test_a_list_reads_with_its_heading_and_lead(tmp_path: Path, memory: str) -> None:
    # a heading or a lead line saying what is under it is not to be done rejects each item;
    # a lead saying when ("Before tagging a release:") is said by each item
    assert _kind(tmp_path, FORBIDDEN, memory) == "known"


@pytest.mark.parametrize("memory", [
    "Edit the files under `vendor/` directly when a dependency needs a fix.",
    "Publish releases from a laptop.",
])
def test_doing_what_a_list_forbids_contradicts(tmp_path: Path, memory: str) -> None:
    assert _kind(tmp_path, FORBIDDEN, memory) == "contradicts"


def test_a_statement_read_alone_is_no_contradiction(tmp_path: Path) -> None:
    # "write a migration for every schema change" alone is about changes the rule's other clause
    # forbids; the memory as a whole says what the rule says (in part)
    docs = ("## Database\n\n- Every schema change is a migration; never change the tables by hand.\n"
            "- Seeds are local only.\n")
    memory = "Don't edit the tables by hand; write a migration for every schema change."
    assert _kind(tmp_path, docs, memory) != "contradicts"


def test_own_fifth_set(tmp_path: Path) -> None:
    known, recognised, others, wrongly = _measure(tmp_path, OWN_FIFTH)
    # Left: "No `dd()` ... calls in committed code" against "`dd()` ... left in committed code"
    # under "## Don'ts" (a one-word swap, calls/left), "Don't put `...` placeholders in code
    # samples" against "Code samples must be runnable; no `...` placeholders" (the samples
    # taken as rejected), one partial.
    assert recognised >= 9 and wrongly == 0, (recognised, known, wrongly, others)


def test_own_held_out_set(tmp_path: Path) -> None:
    # Only measured: nothing it holds that is not a restatement may be called known.
    _, _, others, wrongly = _measure(tmp_path, OWN_HELD_OUT)
    assert wrongly == 0, (wrongly, others)


def test_a_section_of_both_kinds_is_read_as_written(tmp_path: Path) -> None:
    # "Do's and Don'ts" holds rules of both kinds: an item there is not rejected by the heading
    docs = "## Do's and Don'ts\n\n- Use `just` to run tasks\n- Don't call `make` directly\n"
    assert _kind(tmp_path, docs, "Run tasks with `just`.") == "known"
