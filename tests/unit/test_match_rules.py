"""Reading a rule as what it does, to what, with which polarity (dream/match.py): kindred words,
prohibitions sharing only their verb, sentences ending inside markdown emphasis. Fixtures are
written for these tests, in the shapes instruction files use."""

from __future__ import annotations

from dreamtui.dream.match import Features, Weights, bridges, compare, compare_texts, kin_of

# Unrelated rules beside the pair compared, as a batch has: rarity is read across them.
_OTHERS = ("Run the linter before pushing.", "Keep functions short.", "Write docs for public APIs.",
           "Use Decimal for money.")


def _in_batch(a: str, b: str) -> tuple[Features, Features, Weights]:
    fa, fb = Features.of(a), Features.of(b)
    return fa, fb, Weights([fa, fb, *(Features.of(t) for t in _OTHERS)])


def test_kindred_actions_state_one_rule() -> None:
    """Committing and pushing to a branch, leaking and committing a secret, writing and adding
    tests: instruction files say one rule with either verb; they are no different actions."""
    for a, b in (("Never push directly to the release branch.",
                  "Do not commit straight onto the release branch."),
                 ("Never leak API tokens.", "Do not commit tokens or passwords."),
                 ("Write tests for every new endpoint.", "Add tests for each new endpoint.")):
        verdict = compare_texts(a, b)
        assert "action" not in {c.slot for c in verdict.conflicts}, (a, b, verdict)
        assert verdict.same_lesson, (a, b, verdict)


def test_shipping_is_not_leaking() -> None:
    """Uploading and publishing are ways of shipping, not of exposing: two destinations are
    two rules."""
    verdict = compare_texts("Upload build artifacts to S3.", "Publish build artifacts to npm.")
    assert not verdict.same_lesson
    assert "action" in {c.slot for c in verdict.conflicts}


def test_a_kindred_word_swapped_is_no_changed_fact() -> None:
    """"new features" / "new behavior": a word swapped for its kin is a rewording, while a word
    swapped for an unrelated one still is a changed fact."""
    assert compare_texts("Write tests for new features.", "Write tests for new behavior.").same_lesson
    swapped = compare_texts("Write tests for new features.", "Write tests for new migrations.")
    assert not swapped.same_lesson
    # A kin rewords its own word only: "unit tests" / "e2e specs" still swap unit for e2e.
    assert not compare_texts("Run the unit tests before pushing.", "Run the e2e specs before pushing.").same_lesson
    # Two names of one kind are values, not kin: which branch a PR is based on is a fact.
    assert not compare_texts("Base every pull request on main.", "Base every pull request on master.").same_lesson


def test_kindred_words_are_bridged_not_folded() -> None:
    """Kin count as shared in the score, but stay their own stems (the known corpus and the
    guidance read stems), and each word bridges once however many families it is in."""
    push, commit = Features.of("push to the release branch"), Features.of("commit to the release branch")
    assert push.stems != commit.stems
    assert bridges(push.kin, commit.kin) == [("push", "commit")]
    assert bridges(commit.kin, push.kin) == [("commit", "push")]
    assert kin_of(Features.of("the release branch").stems) == {}


def test_execute_is_run() -> None:
    assert Features.of("execute the test suite").stems == Features.of("run the test suite").stems


def test_prohibitions_sharing_only_their_verb_are_two_rules() -> None:
    """"Never force push" and "never push to main" forbid pushing, each something the other
    never mentions: two rules, however alike the rest reads, and neither corrects the other.
    Two prohibitions of one thing stay one rule."""
    force = "Never force push. Start a new commit for a fix."
    main = "Never push to main. Start a new branch for a fix."
    verdict = compare_texts(force, main)
    assert not verdict.same_lesson and not verdict.correction
    assert [c.slot for c in verdict.conflicts] == ["prohibited"]
    assert compare_texts(force, "Do not force push; start a new commit for a fix instead.").same_lesson
    assert compare_texts(main, "Do not commit to main. Start a new branch for a fix.").same_lesson


def test_rejecting_another_alternative_to_one_choice_is_one_rule() -> None:
    """"Use pnpm, not npm" and "use pnpm, never yarn" make one choice and name different
    alternatives to it: one rule (a list on one side only is no other rule). Rejecting
    different things with no choice made ("never use npm" / "never use yarn") is two rules."""
    assert compare_texts("Use pnpm for packages, not npm.", "Use pnpm for packages, never yarn.").same_lesson
    apart = compare_texts("Never use npm for packages.", "Never use yarn for packages.")
    assert not apart.same_lesson


def test_a_sentence_ends_inside_markdown_emphasis() -> None:
    """"**Never edit `schema.sql` by hand.** Always run ..." is two sentences: the second is an
    instruction to do, not part of the prohibition."""
    facts = Features.of("**Never edit `schema.sql` by hand.** Always regenerate it with `make schema`.").facts
    assert "hand" in facts.rejected
    assert "regener" in facts.done


def test_a_list_of_rejected_alternatives_on_one_side_is_not_another_rule() -> None:
    """"Use poetry (not pip, pipenv, conda or pdm)" says what "use poetry to manage the
    virtualenv" says: the rule is the pick, the list names what it replaces. Both rejecting one
    alternative share it at its full weight."""
    listed, bare, weights = _in_batch("Use poetry (not pip, pipenv, conda or pdm).",
                                      "Use poetry to manage the virtualenv.")
    assert listed.alternatives == {"pip", "pipenv", "conda", "pdm"}
    assert bare.alternatives == frozenset()
    assert compare(listed, bare, weights).same_lesson
    one, other, weights = _in_batch("Use poetry for dependencies, never pip.",
                                    "Manage dependencies with poetry; never pip.")
    assert compare(one, other, weights).same_lesson


def test_picks_for_different_roles_are_two_rules() -> None:
    """uv as Python's package manager and yarn as JavaScript's: two rules however alike "the
    package manager" reads, and neither corrects the other."""
    uv, yarn, weights = _in_batch("This project uses uv as its package manager; do not use pip.",
                                  "This project uses yarn as its package manager; do not use npm.")
    verdict = compare(uv, yarn, weights)
    assert not verdict.same_lesson and not verdict.correction
    assert "picks" in {c.slot for c in verdict.conflicts}


def test_quoted_examples_are_literal_words() -> None:
    """'"Add option" not "Added option"' names words as examples: they weigh half, and a
    quoted word bridges to no kin and is no action ("Add" in quotes is not "write" tests)."""
    example = Features.of('Subjects in the imperative: "Add option", "Fix crash".')
    assert example.quoted == {"add", "option", "fix", "crash"}
    assert example.kin_stems == {"subject"}  # its own word ("subject" / "summary"), not the quoted ones
    # Nor is it what the rule does: this one is about commit subjects, not about writing.
    subjects, tests, weights = _in_batch('Commit subjects in the imperative ("Add parser", "Fix typo").',
                                         "Write a parser test for each typo fix.")
    verdict = compare(subjects, tests, weights)
    assert not verdict.same_lesson
    assert [str(c) for c in verdict.conflicts] == ["action: commit vs write"]
    assert Features.of("Add tests; never skip them.").kin != {}


def test_a_code_span_opens_no_aside() -> None:
    """The parenthesis of `type(scope): ...` and the ` -- ` of `cargo clippy -- -D warnings`
    are the command's: a rejection before the span covers all of it, so "no scope like
    `type(scope): ...`" rejects the scope and conflicts with a format that has one."""
    facts = Features.of("Write the subject as `type: summary` (no scope like `type(scope): summary`).").facts
    assert "scope" in facts.rejected
    verdict = compare_texts("Write the subject as `type(scope): summary`.",
                            "Write the subject as `type: summary` (no scope like `type(scope): summary`).")
    assert not verdict.same_lesson
    assert Features.of("Run `cargo clippy -- -D warnings` after edits.").facts.done >= {"cargo", "clippi", "warn"}


def test_two_command_lines_running_one_program_are_two_facts() -> None:
    """`uv run pytest` and `python -m pytest tests`: each side's way to run the suite, which
    the other never mentions; a text naming the command once more is still the same."""
    verdict = compare_texts("Run the tests with `uv run pytest`.", "Run the tests with `python -m pytest tests`.")
    assert not verdict.same_lesson
    assert "command" in {c.slot for c in verdict.conflicts}
    assert compare_texts("Run the tests with `uv run pytest`.",
                         "The tests run with `uv run pytest` from the repository root.").same_lesson


def test_an_explanation_after_a_colon_is_not_rejected() -> None:
    """"Never hand-edit build/out: that folder is rebuilt by `make assets`" rejects the
    hand edits, not `make assets`: the clause after the colon explains, it lists nothing."""
    text = "Never hand-edit build/out: that folder is rebuilt by `make assets` and edits vanish."
    stance = Features.of(text).facts.stance
    assert stance["build"] == 2
    assert "asset" not in stance and "make" not in stance
    # A list after a colon still is what is rejected.
    assert Features.of("Never read: .env files, private keys.").facts.rejected >= {"environ", "privat", "key"}


def test_a_statement_is_not_a_do() -> None:
    """"Files under build/out are written by `make assets`" and "the staging server is already
    running" say how things are: a rule rejecting those words ("never hand-edit build/out",
    "never start any staging server") is a rewording, not their opposite. An instruction with
    a statement inside ("Disclose that ... were written with") still does what it says."""
    assert compare_texts("Files under build/out are written by `make assets`; changes there are lost.",
                         "Never hand-edit build/out: that folder is rebuilt by `make assets` and your "
                         "changes are lost.").same_lesson
    assert compare_texts("Never run `make serve` - the staging server is already running.",
                         "Never run `make serve` or start any staging server.").same_lesson
    disclose = compare_texts("Disclose that the release notes were written with an AI tool.",
                             "Never say the release notes were written with an AI tool.")
    assert not disclose.same_lesson
    # The tool a statement names is its pick.
    assert Features.of("The package manager here is pnpm.").facts.picks == {"JavaScript package manager": {"pnpm"}}
    # "have to" makes a requirement of it.
    assert Features.of("Tests have to pass before you merge.").facts.done >= {"test", "pass"}


def test_loading_and_reading_a_secret_are_one_action() -> None:
    """"Load them from the environment" / "read them from the environment", and leaking as an
    action of its own: one rule about secrets, not a commit rule against a read rule."""
    verdict = compare_texts("Never commit credentials or API tokens; load them from environment variables.",
                            "Never leak API tokens into the repository; read them from the environment.")
    assert verdict.same_lesson, verdict
    assert "leak" in Features.of("Never leak tokens.").facts.actions


def test_a_path_a_statement_mentions_is_not_used_by_it() -> None:
    """"Files under `web/api/` are generated" mentions the path; "Never hand-edit `web/api/`"
    rejects editing it: no use against do-not-use of `web/api/`."""
    assert compare_texts("Files under `web/api/` are generated by `make client`; hand edits there are overwritten.",
                         "Never hand-edit `web/api/`: that folder is regenerated by `make client` and your "
                         "edits are lost.").same_lesson


def test_kindred_frame_words_frame_two_rules() -> None:
    """"Add a changelog entry for each release" and "Create a git tag for each release" share a
    frame said in two kindred words (add/create) and nothing but the release: two rules.
    "Each" is an emphasis word, no content."""
    verdict = compare_texts("Add a changelog entry for each release.", "Create a git tag for each release.")
    assert not verdict.same_lesson
    assert "object" in {c.slot for c in verdict.conflicts}
    assert compare_texts("Add a changelog entry for each release.",
                         "Write a changelog entry for every release.").same_lesson
    assert "each" not in Features.of("Add a test for each bug.").stems


def test_a_markdown_link_is_its_text() -> None:
    """The address's words (https, www, org, v1) are no part of the rule: a rewording links
    another page or none."""
    linked = Features.of("Follow [Semantic Versioning](https://semver.org/spec/v2.0.0.html) for every release.")
    assert linked.stems == Features.of("Follow Semantic Versioning for every release.").stems
    assert compare_texts("Use [Keep a Changelog](https://keepachangelog.com/en/1.1.0/) for the changelog.",
                         "Use Keep a Changelog for the changelog.").same_lesson


def test_instruction_vocabulary_said_two_ways() -> None:
    """Words instruction files use for one thing: a formatter formats, a linter lints (one
    stem each); functions and methods, tests and specs, responses and answers, assuming and
    guessing are kin."""
    assert Features.of("run the formatter and the linter").stems == Features.of("run format and lint").stems
    for a, b in (("Keep methods short.", "Keep functions small."),
                 ("Keep answers brief.", "Keep responses brief."),
                 ("Never guess; ask the user.", "Never assume; ask the user.")):
        assert compare_texts(a, b).same_lesson, (a, b)


def test_what_the_verb_acts_on_is_the_rule() -> None:
    """"Create a branch for every fix" and "Write a test for every fix": kindred verbs, one
    circumstance, two things made: two rules. The words a condition's verb acts on ("when
    adding a command") are no object of the rule. A rewording naming its object among others
    is still one rule."""
    for a, b in (("Create a branch for every fix.", "Write a test for every fix."),
                 ("Update the README when adding a command.", "Add tests when changing a command."),
                 # an adverb says how, a qualifier which: neither is the object
                 ("Resolve merge conflicts locally.", "Fix failing tests locally."),
                 ("Create a new migration instead of editing an old one.",
                  "Create a new branch instead of reusing an old one.")):
        verdict = compare_texts(a, b)
        assert not verdict.same_lesson, (a, b, verdict)
        assert "object" in {c.slot for c in verdict.conflicts}, (a, b, verdict)
    assert Features.of("Update the README when adding a command.").facts.objects == {"readm"}
    # "without" is a preposition, no content two rules share.
    assert "without" not in Features.of("Never change the public API without a deprecation.").stems
    assert not compare_texts("Never change the public API without a deprecation.",
                             "Never change the database schema without a migration.").same_lesson
    assert compare_texts("Create a branch for every fix.", "Create a new topic branch for each fix.").same_lesson


def test_a_quoted_word_takes_no_stance() -> None:
    """A line rejected by quoting it ('no lines like "Generated with [Jenkins]"') names the tool
    in the quotes (where a bracket would otherwise open an aside the rejection does not reach);
    it does not use it, so a rule rejecting the tool is no opposite."""
    quoted, plain, weights = _in_batch('Never add lines like "Generated with [Jenkins]" to release notes.',
                                       "Avoid Jenkins lines in release notes.")
    assert "jenkin" in quoted.quoted
    assert not compare(quoted, plain, weights).conflicts


def test_a_flag_value_is_the_command_s_not_a_do() -> None:
    """`-D warnings` denies warnings: a rule saying "no warnings" agrees with it."""
    flag, prose, weights = _in_batch("Before pushing, run `golangci-lint run --fail-on warnings`.",
                                     "Run `golangci-lint` and make sure there are no warnings.")
    assert "warn" not in {c.slot for c in compare(flag, prose, weights).conflicts}


def test_allowed_only_when_asked_is_forbidden_without_asking() -> None:
    """"Deploy only when the user asks" and "never deploy without explicit approval" state one
    permission, not opposite stances on deploying."""
    only, never, weights = _in_batch("Deploy only when the user asks.",
                                     "Never deploy without explicit approval from the user.")
    assert not compare(only, never, weights).conflicts
    # Without the condition on both sides, doing and not doing stay opposite.
    always, forbids, weights = _in_batch("Deploy to staging after every merge.", "Never deploy to staging.")
    assert compare(always, forbids, weights).conflicts


def test_a_generic_word_for_what_a_rule_covers_is_no_changed_fact() -> None:
    """"tests for new code" / "tests for new functionality": no value changed, one lesson."""
    code, functionality, weights = _in_batch("Write unit tests for new code.",
                                             "Write unit tests for new functionality.")
    assert compare(code, functionality, weights).same_lesson
    unit, e2e, weights = _in_batch("Write unit tests for new endpoints.", "Write e2e tests for new endpoints.")
    assert not compare(unit, e2e, weights).same_lesson
    # A generic word swapped for a specific one narrows the rule: another fact.
    files, secrets, weights = _in_batch("Never commit files under `fixtures/big/`.",
                                        "Never commit secrets under `fixtures/big/`.")
    assert not compare(files, secrets, weights).same_lesson


def test_prohibitions_sharing_verb_and_object_are_one_rule() -> None:
    """"never create a release commit" / "do not create commits or tags": both forbid creating
    commits (the object both name, a verb elsewhere), though each names another thing too."""
    one, other, weights = _in_batch("Never create a release commit unless the user explicitly asks to commit.",
                                    "Do not create commits or tags unless explicitly asked.")
    assert "prohibited" not in {c.slot for c in compare(one, other, weights).conflicts}
    # Sharing only the verb, they stay two rules.
    force, main, weights = _in_batch("Never force push.", "Never push directly to main.")
    assert "prohibited" in {c.slot for c in compare(force, main, weights).conflicts}


def test_british_and_uk_name_one_spelling() -> None:
    uk, british, weights = _in_batch("Prefer UK spelling.",
                                     "Write British spelling in the user guide, error messages and release notes.")
    assert compare(uk, british, weights).same_lesson


def test_an_acronym_spelled_out_is_shared() -> None:
    """"TDD" / "test-driven development", "ESM" / "ES modules": an acronym a rewording spells
    out is the same words; two letters spell too many word pairs to count."""
    tdd, spelled, weights = _in_batch("Follow TDD for every new parser.",
                                      "Use test-driven development for every new parser.")
    assert compare(tdd, spelled, weights).same_lesson
    esm, modules, weights = _in_batch("ESM only in the web package.", "The web package uses ES modules only.")
    assert compare(esm, modules, weights).score > compare(esm, Features.of("The web package uses CommonJS only."),
                                                          weights).score
    assert Features.of("Open a PR for each fix.").acronyms == frozenset()


def test_prs_is_pr() -> None:
    assert Features.of("Link the ticket in PRs.").stems >= {"pr"}
