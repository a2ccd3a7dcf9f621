"""Classes of restatement the known corpus missed on real files (dream/known.py), each with the
look-alike beside it that must stay apart: which language is for what when a line names two, …

Every line is written for this file in dreamtui's own words, in the shapes real instruction files
take.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_known_rewordings import _kind

# A Japanese file whose rule names two languages: "even when asked in English, answer in Japanese".
TWO_LANGUAGES = "# CLAUDE.md\n\n## 言語\n\n- 英語で質問されても、回答は日本語で行う\n\n## 開発\n\n- 小さく変更する\n"
JAPANESE = "# CLAUDE.md\n\n## 言語\n\n- ユーザーへの回答は日本語で行う\n"


@pytest.mark.parametrize("docs, memory, kind", [
    # a docs line naming two languages says the one for replies in a clause of its own
    (TWO_LANGUAGES, "Always reply in Japanese.", "known"),
    (TWO_LANGUAGES, "Answer the user in Korean.", "contradicts"),
    # a memory naming two: one for thinking or code, one for replies; a bold label beside
    (JAPANESE, "**Language:** Reason in English, but give every reply to the user in Japanese.", "known"),
    (JAPANESE, "**Replies**: Write commit messages in English, but answer the user in Korean.", "contradicts"),
    # ... and a memory saying more than that is read as usual
    (JAPANESE, "Think in English, but reply in Japanese; run the linters before every push and keep "
               "commits small.", ""),
])
def test_a_line_naming_two_languages_says_which_is_for_replies(tmp_path: Path, docs: str, memory: str,
                                                              kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


ROOT_CAUSE = "## Debugging\n\n- Fix root causes, not symptoms\n- Keep each fix in its own commit\n"


@pytest.mark.parametrize("memory, kind", [
    # a later sentence that only rejects ("No hacks.") is no step of its own
    ("Fix the ROOT CAUSE, not the symptoms. No hacks.", "known"),
    # ... a later sentence doing something the rule does not say is
    ("Fix the ROOT CAUSE, not the symptoms. Then deploy the fix.", "close"),
])
def test_a_sentence_only_rejecting_is_no_new_step(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, ROOT_CAUSE, memory) == kind


VET = "## Checks\n\n- Every Go package must pass `govet` before it is merged.\n"


@pytest.mark.parametrize("docs, memory, known", [
    # a command the rule names, spelled apart
    (VET, "Run `go vet` before merging.", True),
    (VET, "Run `go test` before merging.", False),
    # the tool of a step the rule names without naming a tool for it
    ("## Workflow\n\n- Always run the test suite before pushing.\n", "Run `vitest` before every push.", True),
    ("## Workflow\n\n- Run the formatter before pushing.\n", "Always run `prettier` before pushing.", True),
    # ... not where the rule names the command to run, or another tool for the step
    ("## Workflow\n\n- Run the tests with `make check` before pushing.\n", "Run `vitest` before every push.", False),
    ("## Workflow\n\n- Always run the jest tests before pushing.\n", "Run `vitest` before every push.", False),
    # ... nor a tool of another step
    ("## Workflow\n\n- Always run the test suite before pushing.\n", "Run `eslint` before every push.", False),
])
def test_a_tool_named_otherwise_says_the_rule(tmp_path: Path, docs: str, memory: str, known: bool) -> None:
    assert (_kind(tmp_path, docs, memory) == "known") is known


AFTER = "## Releases\n\n- Always tag the release right after deploying it, even if the deploy was a hotfix.\n"
WHEN = "## Releases\n\n- **Tags**: When deploying a release, always tag it as well.\n"


@pytest.mark.parametrize("docs, memory, known", [
    # when a step is done, said as time in one and as a condition in the other, both ways
    (WHEN, "Always tag the release immediately after deploying it, even if the deploy was a hotfix.", True),
    (AFTER, "**Tags**: When deploying a release, always tag it as well.", True),
    ("## Git\n\n- Always push tags immediately after making them, even if more tags will follow.\n",
     "**Push tags**: When creating a tag, always push it to the remote as well.", True),
    # ... not where the rule's condition is something else the memory does not name
    ("## Releases\n\n- ONLY tag the release when the user's message says \"tag\".\n",
     "Always tag the release immediately after deploying it.", False),
    (AFTER, "When merging a pull request, always tag the release as well.", False),
])
def test_a_step_timed_or_conditioned_says_the_same(tmp_path: Path, docs: str, memory: str, known: bool) -> None:
    assert (_kind(tmp_path, docs, memory) == "known") is known


SAFETY = "## Safety\n\n- Never commit tokens, passwords, or private keys\n"


@pytest.mark.parametrize("memory, known", [
    # an aside doing what the memory does lists examples of its object: most of them the rule's
    ("**Never commit secrets** - avoid committing `id_rsa`, tokens, or passwords", True),
    # ... a list of things the rule does not name is news
    ("**Never commit secrets** - avoid committing `dist/`, `node_modules`, or build logs", False),
])
def test_an_aside_listing_examples_of_the_object_is_no_news(tmp_path: Path, memory: str, known: bool) -> None:
    assert (_kind(tmp_path, SAFETY, memory) == "known") is known


# A file saying "commit" in most rules: the rarest words of a permission memory are elsewhere.
GATED = (
    "# AGENTS.md\n"
    "\n"
    "## Commits\n"
    "\n"
    "- Commit messages use the imperative mood.\n"
    "- Each commit holds one logical change.\n"
    "- Run the commit hooks on every commit.\n"
    "- Squash fixup commits before review.\n"
    "- **Approval:** never commit changes without the user's explicit approval.\n"
    "\n"
    "## Helpers\n"
    "\n"
    "- The release helper creates a branch, collects the commits since the last tag and explicitly lists them.\n"
    "- The review helper creates a summary explicitly listing the commits of a branch.\n"
    "- The triage helper creates an issue explicitly naming the commits it blames.\n"
    "- The docs helper creates a page explicitly citing the commits it documents.\n"
    "- The changelog helper creates an entry explicitly grouping the commits by type.\n"
    "- The backport helper creates a branch explicitly picking the commits to port.\n"
)


@pytest.mark.parametrize("memory, known", [
    # the rule saying the same step needs the person's word is found and restated
    ("Do not create commits unless explicitly asked.", True),
    # ... not for another step
    ("Do not push unless explicitly asked.", False),
])
def test_a_step_needing_the_persons_word_finds_its_rule(tmp_path: Path, memory: str, known: bool) -> None:
    assert (_kind(tmp_path, GATED, memory) == "known") is known


SPARING = "## Style\n\n- Add docstrings only where the code is not obvious\n- Use exclamation marks sparingly\n"
EVERYWHERE = "## Style\n\n- Always add docstrings to the code\n"


@pytest.mark.parametrize("docs, memory, known", [
    # a step done only on some occasions, or little, against one saying to do it: two rules
    (SPARING, "Always add docstrings", False),
    (SPARING, "Use exclamation marks in every heading", False),
    (EVERYWHERE, "Add docstrings only where the code is not obvious", False),
    # ... both saying so restate each other
    (SPARING, "Only add docstrings where the code is not obvious.", True),
    # an "only" picking a tool or waiting for the person's word says nothing of how often
    ("## Git\n\n- Never commit unless asked\n", "Only commit when the user asks", True),
])
def test_a_step_done_only_sometimes_is_no_step_done_always(tmp_path: Path, docs: str, memory: str,
                                                          known: bool) -> None:
    assert (_kind(tmp_path, docs, memory) == "known") is known


CHINESE = "# CLAUDE.md\n\n## 语言\n\n- 所有回复都使用中文\n"


@pytest.mark.parametrize("docs, memory, kind", [
    # a language named again in an aside, in its own script and variant, is the same language
    (CHINESE, "Always answer in Chinese (Simplified Chinese).", "known"),
    # a variant the docs leave out says more than they do, no other language
    (CHINESE, "Reply in Traditional Chinese.", "close"),
    ("# AGENTS.md\n\n- Respond in British English.\n", "Respond in American English.", "contradicts"),
])
def test_a_variant_of_the_language_of_replies(tmp_path: Path, docs: str, memory: str, kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


@pytest.mark.parametrize("docs, memory", [
    # "always X unless told" does X by default: the opposite of "never X unless told"
    ("## Git\n\n- Never rebase shared branches unless told to.\n",
     "Always rebase shared branches unless told otherwise."),
    ("## Tests\n\n- Avoid slow fixtures unless explicitly requested.\n",
     "Always use slow fixtures unless explicitly requested."),
])
def test_a_step_done_by_default_contradicts_one_waiting_for_a_word(tmp_path: Path, docs: str, memory: str) -> None:
    assert _kind(tmp_path, docs, memory) == "contradicts"


@pytest.mark.parametrize("memory, kind", [
    # a language a clause rejects is not the language of replies it says
    ("Never reply to the user in Japanese.", "contradicts"),
    ("Do not answer in English; always answer in Japanese.", "known"),
])
def test_a_rejected_language_is_not_the_one_said(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, JAPANESE, memory) == kind


SHORT = "# Rules\n\n- Never deploy\n- Be terse.\n- No tabs.\n\nImportant:\n\n- Use spaces for indentation\n"


@pytest.mark.parametrize("memory, kind", [
    # an instruction of one word opening with its stance is a rule to restate or contradict
    ("Keep answers terse.", "known"),
    ("Do not use tabs.", "known"),
    ("Always deploy after merging.", "contradicts"),
    # ... a label line is none
    ("Important notes go in the changelog.", ""),
])
def test_a_one_word_instruction_is_a_rule(tmp_path: Path, memory: str, kind: str) -> None:
    assert _kind(tmp_path, SHORT, memory) == kind


@pytest.mark.parametrize("memory, known", [
    # a word naming nothing in particular, named as code, is a name the rule must say
    ("Prefer precise types; avoid `any`.", True),
    ("Prefer precise types; avoid `unknown`.", False),
])
def test_an_indefinite_word_as_code_is_a_name(tmp_path: Path, memory: str, known: bool) -> None:
    docs = "# TypeScript\n\n- **Never use the `any` type** in new code\n"
    assert (_kind(tmp_path, docs, memory) == "known") is known


@pytest.mark.parametrize("docs, memory, known", [
    # a line an agent definition labels as describing ("When to use:") is no rule to restate
    ("## Agents\n\n- **When to use:** A maintainer has finished a release and pushed the tag to the remote.\n"
     "- Tags follow semver.\n", "Push the tag to the remote after finishing a release.", False),
    ("## Agents\n\n- **When to use:** A maintainer has finished a release and pushed the tag to the remote.\n"
     "- Tags follow semver.\n", "Use semver for tags.", True),
    # the clauses of a memory are no list of things a rule naming one word of each says whole
    ("## Helpers\n\n- `release-notes.md`: writes release notes based on staged changes.\n",
     "If there are modified files for the release, stage only related files and write the release notes in the"
     " same turn.", False),
    ("## Helpers\n\n- `release-notes.md`: writes release notes based on staged changes.\n",
     "Write release notes based on the staged changes.", True),
])
def test_descriptions_and_clauses_say_no_rule(tmp_path: Path, docs: str, memory: str, known: bool) -> None:
    assert (_kind(tmp_path, docs, memory) == "known") is known


def test_the_verb_of_a_memorys_condition_is_its_event(tmp_path: Path) -> None:
    # "if flags are added" names the event the step waits for; "when working with flags" another
    docs = "## Config\n\n- When working with feature flags, only reference `flags.example.toml`\n"
    assert _kind(tmp_path, docs, "Update `flags.example.toml` if new feature flags are added.") != "known"


DOUBT = "## Working\n\n- Ask for clarification when in doubt\n"


@pytest.mark.parametrize("memory, known", [
    # to ask is to ask questions; "when in doubt" is a hedge; the act a step replaces is no news
    ("Ask questions for clarification instead of guessing.", True),
    # ... not with the opposite stance on asking, nor a thing picked over
    ("Never ask questions for clarification; decide yourself.", False),
    ("Ask for clarification in the issue tracker instead of chat.", False),
])
def test_asking_questions_in_doubt_says_asking_for_clarification(tmp_path: Path, memory: str, known: bool) -> None:
    assert (_kind(tmp_path, DOUBT, memory) == "known") is known


@pytest.mark.parametrize("memory, known", [
    # an adverb of manner ("gracefully", "properly") says nothing a rule must state
    ("Handle failures gracefully and never swallow them.", True),
    # ... the thing it is said of still must be the rule's
    ("Handle timeouts gracefully and never swallow them.", False),
])
def test_an_adverb_of_manner_needs_no_rule(tmp_path: Path, memory: str, known: bool) -> None:
    docs = "## Failures\n\n- Failures are data. Do not ignore them; handle each one.\n"
    assert (_kind(tmp_path, docs, memory) == "known") is known


@pytest.mark.parametrize("memory, kind", [
    # "No exceptions." after a rule says it holds always: no stance on exceptions, nor a rule
    ("Raise exceptions for invalid input.", ""),
    ("Run the linters before every push.", "known"),
])
def test_no_exceptions_is_emphasis(tmp_path: Path, memory: str, kind: str) -> None:
    docs = "# Rules\n\nAlways run the linters before pushing. No exceptions.\n"
    assert _kind(tmp_path, docs, memory) == kind


@pytest.mark.parametrize("docs, memory, known", [
    # the flag instruction files forbid by name, said by what it does, both ways
    ("## Git\n\n- Do not pass `--no-verify` to git commit.\n", "Never bypass the pre-commit hooks.", True),
    ("## Git\n\n- Never bypass the pre-commit hooks.\n", "Do not run `git commit --no-verify`.", True),
    # ... not another check
    ("## Git\n\n- Do not pass `--no-verify` to git commit.\n", "Never bypass the CI checks.", False),
])
def test_a_forbidden_flag_is_what_it_does(tmp_path: Path, docs: str, memory: str, known: bool) -> None:
    assert (_kind(tmp_path, docs, memory) == "known") is known
