"""A memory read against the project's docs (dream/known.py) where the person's words answer the
agent ("no, …"), reject one tool for the docs' own, or add a rule of their own beside one the
docs hold; and a contradiction's reason said in the words a person reads."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dreamtui.dream.known import KnownIndex, read_corpus
from tests.unit.test_known import lesson, project
from tests.unit.test_known_rewordings import _check, _kind

REDIS = "## Testing\n\n- Staging tests need Redis on port 6380 (the compose file maps it there).\n"


@pytest.mark.parametrize("memory", [
    "no, the staging tests use Redis on 6380, put that back",
    "No. Staging tests run Redis on port 6380.",
    "Nope, staging tests need Redis on 6380",
    "Do as the person said: “no, staging tests use Redis on 6380, put that back”",
])
def test_a_persons_no_answers_the_agent_and_negates_no_rule(tmp_path: Path, memory: str) -> None:
    # the "no" rejects what the agent did; the sentence after it says what the rule says
    assert _kind(tmp_path, REDIS, memory) in ("known", "close")


def test_a_persons_no_does_not_hide_another_value(tmp_path: Path) -> None:
    found = _check(tmp_path, REDIS, "no, staging tests use Redis on port 6381")
    assert found is not None and found.kind == "contradicts" and "6381" in found.differs


def test_a_contradictions_reason_names_the_word_as_written(tmp_path: Path) -> None:
    # match.py names a stance's word by its stem ("redi"); a person reads "Redis"
    found = _check(tmp_path, "## Testing\n\n- Staging tests need Redis on port 6380.\n",
                   "Staging tests never need Redis.")
    assert found is not None and found.kind == "contradicts"
    assert "Redis" in found.differs and "redi:" not in found.differs


UV = "## Tooling\n\n- Dependencies are managed with uv: `uv add PKG`, never edit pyproject by hand.\n"


def test_rejecting_a_tool_for_the_docs_own_is_no_contradiction(tmp_path: Path) -> None:
    # a mined rejection: the title records the call the person turned down after their reason
    said = "Don't use pip here, packages go through uv: uv add requests"
    found = lesson("m1", f"Do not run `pip install requests`: the person rejected it and said “{said}”.")
    found = replace(found, title=f"{said} (rejected: run `pip install requests`)")
    index = KnownIndex.build(read_corpus(project(tmp_path, {"CLAUDE.md": UV})), [found])
    verdict = index.check(found)
    assert verdict is None or verdict.kind != "contradicts"


@pytest.mark.parametrize("memory", ["Use pip for packages: pip install requests",
                                    "Install packages with pip, not uv."])
def test_picking_another_tool_still_contradicts_the_docs(tmp_path: Path, memory: str) -> None:
    found = _check(tmp_path, UV, memory)
    assert found is not None and found.kind == "contradicts" and "pip vs uv" in found.differs


YARN = "## Tools\n\n- Use yarn for every install.\n"


@pytest.mark.parametrize("memory", [
    "Use yarn for installs, and never commit the node_modules folder.",
    "Use yarn for every install, and push the lockfile with each upgrade.",
])
def test_an_instruction_of_its_own_beside_a_known_one_keeps_the_memory_news(tmp_path: Path, memory: str) -> None:
    assert _kind(tmp_path, YARN, memory) != "known"


def test_the_known_instruction_alone_is_still_known(tmp_path: Path) -> None:
    assert _kind(tmp_path, YARN, "Use yarn for installs.") == "known"


@pytest.mark.parametrize("docs, memory", [
    ("## 提交\n\n- 请勿提交 secrets.toml 文件\n", "Commit the secrets.toml file so everyone has the settings."),
    ("## 提交\n\n- 别提交 secrets.toml 文件\n", "Commit the secrets.toml file so everyone has the settings."),
    ("## Commits\n\n- Commit the secrets.toml file so everyone has the settings.\n", "- 勿提交 secrets.toml 文件"),
    ("## Commits\n\n- Commit the secrets.toml file so everyone has the settings.\n", "请勿提交 secrets.toml 文件"),
])
def test_a_chinese_prohibition_against_the_instruction_is_never_known(tmp_path: Path, docs: str,
                                                                      memory: str) -> None:
    assert _kind(tmp_path, docs, memory) == "contradicts"


def test_an_instruction_said_by_a_kin_word_of_the_rules_is_no_news(tmp_path: Path) -> None:
    # "ignore" is match.py's kin of "discard": the second instruction is the rule's own
    assert _kind(tmp_path, "## Errors\n\n- Check every returned error. Do not discard errors.\n",
                 "Check every returned error, don't ignore errors.") == "known"


@pytest.mark.parametrize("docs, memory, kind", [
    # "prefer A to B" where B is a short option: the pick turned round contradicts the rule
    ("## Style\n\n- Prefer tabs over spaces.\n", "Prefer spaces to tabs.", "contradicts"),
    ("## Tests\n\n- Prefer pytest to unittest.\n", "Prefer unittest to pytest.", "contradicts"),
    ("## Style\n\n- Prefer small modules over one big package.\n", "Prefer one big package to small modules.",
     "contradicts"),
    # ... and the same pick said with "to" restates it
    ("## Style\n\n- Prefer tabs over spaces.\n", "Prefer tabs to spaces.", "known"),
    # a "to" naming what the pick is for is no option rejected
    ("## Search\n\n- Prefer `rg` for searching files.\n", "Prefer `rg` to search files.", "known"),
])
def test_prefer_a_to_b_names_the_option_b(tmp_path: Path, docs: str, memory: str, kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


@pytest.mark.parametrize("memory", [
    "no, the staging tests use Redis on port 6380, put that back",
    "Do as the person said: “nope, staging tests need Redis on port 6380, revert that”",
])
def test_telling_the_agent_to_undo_its_change_is_no_news(tmp_path: Path, memory: str) -> None:
    # what the agent did is the occasion; what the person said of the docs' rule is the rule
    assert _kind(tmp_path, REDIS, memory) == "known"


def test_forbidding_the_undoing_is_an_instruction_of_its_own(tmp_path: Path) -> None:
    # "never revert that" is what the memory tells, no undoing of the agent's last step
    assert _kind(tmp_path, REDIS, "Staging tests need Redis on port 6380, never revert that") != "known"
