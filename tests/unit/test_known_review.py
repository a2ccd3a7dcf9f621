"""What a new user's walkthrough found the known corpus getting wrong (dream/known.py): a
prohibition restated with its occasion said as a clause of time, or with the mined record of the
call it was made on, read as doing that step against a rule forbidding it.

Every line is written for this file, in the shapes instruction files and mined memories take.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dreamtui.dream.known import KnownIndex, read_corpus
from tests.unit.test_known import lesson, project
from tests.unit.test_known_rewordings import _check, _kind

HOOKS = "# app\n\n## Git\n- Run the linters with `make lint`.\n- Never use `git push --force`.\n"


@pytest.mark.parametrize("memory, kind", [
    # the step is the occasion of the prohibition, said as a clause of time ...
    ("Do not use --force when pushing.", "known"),
    ("Never pass --force while pushing to the remote.", "known"),
    # ... or in the record of the call a mined memory was made on
    ("Do not use --force.\nThe agent had just called: Bash git push --force origin main", "known"),
    # a prohibition of something else on that occasion is still no restatement of the rule
    ("Do not use --no-verify when pushing.", ""),
])
def test_the_occasion_of_a_prohibition_is_no_step_taken(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, HOOKS, memory) == kind


def test_a_step_forbidden_outright_still_differs_from_its_occasion(tmp_path: Path) -> None:
    # "never push" forbids nothing but the push: a memory on what to do when pushing presumes one
    docs = "# app\n\n## Git\n- Never push.\n"
    assert _kind(tmp_path, docs, "Do not use --force when pushing.") != "known"


PNPM = "# app\n\n## Testing\n- Run the tests with `pnpm test`.\n"


@pytest.mark.parametrize("memory, kind", [
    # a tool missing on the machine is a fact of the machine: no choice of tool against the docs'
    ("`bun` is not installed here: `bun test` failed with “sh: 1: bun: not found”; do not count on it.", ""),
    ("zsh: command not found: bun. The runner isn't available on this machine.", ""),
    # ... while one picking it still contradicts the docs' choice
    ("Use `bun` to run the tests.", "contradicts"),
])
def test_a_missing_tool_picks_none(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, PNPM, memory) == kind


def test_one_swap_is_said_once(tmp_path: Path) -> None:
    found = _check(tmp_path, PNPM, "Run the tests with `yarn test`.")
    assert found is not None and found.kind == "contradicts"
    assert found.differs == "JavaScript package manager: yarn vs pnpm"


def test_stances_on_two_words_are_two_differences(tmp_path: Path) -> None:
    found = _check(tmp_path, "# app\n\n## Git\n- Always commit and push at the end of each task.\n",
                   "Never commit and never push at the end of a task.")
    assert found is not None and found.kind == "contradicts"
    assert found.differs == "; ".join(str(c) for c in found.verdict.conflicts)


def test_a_command_used_against_one_forbidden_is_one_difference(tmp_path: Path) -> None:
    found = _check(tmp_path, HOOKS, "Always run `git push --force` after a rebase.")
    assert found is not None and found.kind == "contradicts"
    assert found.differs == "`git push --force`: use vs do not use"


def test_the_command_a_memory_was_made_on_is_no_command_used(tmp_path: Path) -> None:
    # the mined shape: what the person said after the call, which the rule forbids too
    memory = "Do as the person said after it tried to run `git push --force`: “Don't force the push.”"
    assert _kind(tmp_path, HOOKS, memory) != "contradicts"


def test_a_difference_names_the_rules_command_as_written(tmp_path: Path) -> None:
    found = _check(tmp_path, "# app\n\n## Git\n- Never use `git commit --no-verify`.\n",
                   "Always run `git commit --no-verify`.")
    assert found is not None and found.differs == "`git commit --no-verify`: use vs do not use"


def test_a_mined_correction_restates_the_rule_it_was_typed_for(tmp_path: Path) -> None:
    # intake/lessons.py's shape: the title says the lesson; the content says what the person
    # typed after which call, and records the call. The call's words ("Add parser module") are
    # the occasion's, which no rule needs to say: the memory is the rule's, or close to it.
    said = "Why did you pass --no-verify? Never bypass the pre-commit hooks."
    call = "git commit --no-verify -m 'Add parser module'"
    memory = replace(lesson("m1", f"Do as the person said after it tried to run `{call}`: “{said}”\n"
                                  f"The agent had just called: Bash {call}"),
                     title=f"Do not use --no-verify unasked: the person asked “{said}”")
    docs = "# app\n\n## Testing\n- Run tests with `pytest -q`.\n- Never use `git commit --no-verify`.\n"
    index = KnownIndex.build(read_corpus(project(tmp_path, {"CLAUDE.md": docs})), [memory])
    found = index.check(memory)
    assert found is not None and found.kind in ("known", "close") and found.rule.line == 5
