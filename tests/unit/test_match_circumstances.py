"""Stock clauses of when and where a rule applies (dream/match.py `_circumstances`): a permission
("unless explicitly asked"), a step of the workflow ("before committing"), a scope ("in all
Python files"). They are no evidence that two rules are one. Fixtures are written for these
tests, in the shapes instruction files use; none is a line of a real file."""

from __future__ import annotations

from dreamtui.dream.cluster import cluster_memories
from dreamtui.dream.match import CIRCUMSTANCE_WEIGHT, Features, Weights, compare
from tests.factories import memory

THRESHOLD = 88  # config.dream.similarity's default

# Unrelated rules beside the ones compared, as a batch has: rarity is read across them.
_OTHERS = ("Keep functions short.", "Use Decimal for money.", "Pin the Node version in .nvmrc.",
           "Prefer dataclasses over dicts for records.", "Log with structlog, never print.")


def _verdict(a: str, b: str) -> tuple[bool, float]:
    fa, fb = Features.of(a), Features.of(b)
    verdict = compare(fa, fb, Weights([fa, fb, *(Features.of(t) for t in _OTHERS)]))
    return verdict.same_lesson, verdict.score


def test_the_stock_words_of_each_clause_are_circumstances() -> None:
    assert Features.of("Never rename public APIs unless the maintainer explicitly asks.").circumstances \
        == {"unless", "maintain", "explicit", "ask"}
    assert Features.of("Regenerate the lockfile before committing.").circumstances == {"befor", "commit"}
    assert Features.of("Add docstrings in all Python files.").circumstances == {"python", "file"}
    # A word the rule also says outside the clause is its content; code is never a circumstance.
    assert Features.of("Commit often, and squash before committing.").circumstances == {"befor"}
    assert Features.of("Put fixtures in `tests/fixtures` files.").circumstances == {"file"}
    # No clause, nothing set aside.
    assert Features.of("Use Decimal for money.").circumstances == frozenset()


def test_rules_sharing_only_a_permission_clause_are_two_lessons() -> None:
    """Each would have passed the link on its clause alone, and links chain."""
    for a, b in (("Never rename public APIs unless explicitly asked.",
                  "Do not add new npm scripts unless explicitly requested."),
                 ("Never rename public APIs unless the user explicitly asks.",
                  "Do not open draft releases unless the user explicitly asks.")):
        same, score = _verdict(a, b)
        assert not same, (a, b, score)


def test_rules_sharing_only_a_scope_are_two_lessons() -> None:
    for a, b in (("Add docstrings to public functions in all Python files.",
                  "Prefer f-strings over percent formatting in all Python files."),
                 ("Never leave TODO markers in code or documentation.",
                  "No trailing whitespace in code or documentation."),
                 ("Attach a screenshot for every PR.", "Link the tracking ticket for every PR.")):
        same, score = _verdict(a, b)
        assert not same, (a, b, score)


def test_a_rule_about_the_step_is_not_a_rule_done_before_it() -> None:
    """"before committing" is when, not what: a rule about commits themselves is another."""
    same, score = _verdict("Update the changelog before committing.", "Squash commits before merging.")
    assert not same, score


def test_a_rewording_that_drops_or_changes_the_clause_is_one_lesson() -> None:
    for a, b in (("Do not rename public APIs unless explicitly asked.", "Never rename public APIs."),
                 ("Add docstrings to every public function in all Python files.",
                  "Every public function needs a docstring.")):
        same, score = _verdict(a, b)
        assert same, (a, b, score)


def test_an_instruction_to_ask_is_the_permission_another_rule_states() -> None:
    """"Ask before X" says what "never X unless asked" says, though asking is one's rule and
    the other's condition."""
    assert Features.of("Ask the user before dropping database tables.").asks == {"ask", "user"}
    same, score = _verdict("Ask the user before dropping database tables.",
                           "Never drop database tables unless explicitly requested.")
    assert same, score


def test_a_shared_permission_clause_does_not_chain_rules_into_one_cluster() -> None:
    """Three rules with one clause, each said twice: three clusters of two, not one of six."""
    texts = [("Emojis", "Do not use emojis in output unless explicitly asked."),
             ("No emojis", "Never put emojis in output unless the user explicitly asks."),
             ("Refactors", "Do not refactor unrelated modules unless explicitly requested."),
             ("Unrelated refactors", "Never refactor unrelated modules unless the user asks."),
             ("Upgrades", "Do not upgrade the ORM unless explicitly asked."),
             ("ORM upgrades", "Never upgrade the ORM version unless the user explicitly requests it."),
             *((f"other {n}", text) for n, text in enumerate(_OTHERS))]
    memories = [memory(f"m{n}", title, content, agent=f"agent-{n}", minutes=n)
                for n, (title, content) in enumerate(texts)]
    clusters = cluster_memories(memories, THRESHOLD)
    grouped = sorted(sorted(m.id for m in c.members) for c in clusters if len(c.members) > 1)
    assert grouped == [["m0", "m1"], ["m2", "m3"], ["m4", "m5"]]


def test_the_agent_named_as_who_the_rule_is_for_is_a_circumstance() -> None:
    """"AI must never ...", "Agents should ...": whom the rule addresses, as "you" is."""
    assert Features.of("AI agents must sign their commits with a GPG key.").circumstances == {"ai", "agent"}
    same, score = _verdict("AI agents must sign their commits with a GPG key.",
                           "AI agents should keep their answers under five lines.")
    assert not same, score
    # Said as what the rule is about, it is the rule's content.
    assert "ai" not in Features.of("Mark code the AI wrote with a comment.").circumstances


def test_examples_weigh_little_but_may_be_what_the_other_rule_says() -> None:
    """An example a rule gives is an illustration: it weighs what a circumstance does, but it
    keeps its higher weight shared, as one text's example may be all the other says."""
    prefix = Features.of("Prefix commit subjects with a type (e.g. `feat:`, `fix:`).")
    assert prefix.examples == {"feat", "fix"} <= prefix.circumstances
    weights = Weights([prefix, *(Features.of(t) for t in _OTHERS)])
    vector, _ = weights.vector(prefix)
    assert vector["feat"] == weights.of(prefix, "feat") * CIRCUMSTANCE_WEIGHT
    same, score = _verdict('Commit subjects in the present tense (e.g. "fix crash").',
                           'Present tense for commit subjects: "fix crash", not "fixed crash".')
    assert same, score


def test_a_rule_of_one_word_and_its_circumstances_finds_its_rewording() -> None:
    """Clustering compares a memory with those sharing two of its rarest words; a rule saying
    one thing beside its circumstances shares only that one with a rewording."""
    texts = [("Semicolons", "Never use semicolons unless explicitly requested."),
             ("No semicolons", "No semicolons in code or documentation."),
             *((f"other {n}", text) for n, text in enumerate(_OTHERS))]
    memories = [memory(f"m{n}", title, content, agent=f"agent-{n}", minutes=n)
                for n, (title, content) in enumerate(texts)]
    clusters = cluster_memories(memories, THRESHOLD)
    assert [sorted(m.id for m in c.members) for c in clusters if len(c.members) > 1] == [["m0", "m1"]]


def test_a_bold_label_heading_a_rule_weighs_like_an_example() -> None:
    """"**Keep imports on top** - ...": the label is the rule in brief, in words a rewording
    rarely repeats; bold words running on into the sentence are the rule itself."""
    labelled = Features.of("**Module layout** - Place every import at the top of the module, never inside functions.")
    assert labelled.examples == {"layout"}
    assert Features.of("**No tabs** in YAML files.").examples == frozenset()
    same, score = _verdict("**Fail loudly, never silently** - Do not swallow exceptions in handlers.",
                           "Never swallow exceptions; log and re-raise them.")
    assert same, score


def test_the_task_a_rule_applies_during_is_a_circumstance() -> None:
    """"When adding dependencies, pin ..." and "No new dependencies unless asked": two rules for
    one task; the task is where they apply."""
    assert Features.of("When adding new migrations, never edit an applied one.").circumstances \
        == {"add", "new", "migrat"}
    same, score = _verdict("When adding new migrations, give each a timestamped name.",
                           "No new migrations unless the user asks first.")
    assert not same, score
    same, score = _verdict("When adding a migration, give it a timestamped name.",
                           "Give every migration a timestamped name.")
    assert same, score


def test_asking_first_and_not_doing_it_are_one_permission() -> None:
    """"Ask before renaming the API" and "do not rename the API" take no opposite stance on it."""
    same, score = _verdict("Do not rename public API functions.",
                           "Ask the user before renaming any public API function.")
    assert same, score


def test_on_request_is_a_permission_clause() -> None:
    assert Features.of("Add emoji to commit subjects only on request.").circumstances >= {"ask"}


def test_a_service_named_after_in_is_what_the_rule_is_about() -> None:
    """"In CI the Postgres service listens on 5433": the service is the rule's subject, not a
    scope; its correction of "Postgres listens on 5432" is still read."""
    assert Features.of("In CI the Postgres service is exposed on port 5433.").circumstances == frozenset()
    verdict = compare(Features.of("In CI the Postgres service is exposed on port 5433, not the default."),
                      Features.of("CI Postgres listens on 5432 and Redis on 6379."))
    assert verdict.correction, verdict
