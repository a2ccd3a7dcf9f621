"""What a memory is worth and where it goes: nothing but redacted credentials carries no lesson (discarded,
never an entry nor AGENTS.md: new user M8); a two-line helper is no skill (M3)."""

from __future__ import annotations

from dreamtui.dream.routes import lesson_route, only_credentials
from dreamtui.vocabulary import Route
from tests.factories import memory
from tests.unit.test_heuristic import dream_input, proposals

ONLY_SECRETS = [
    "export PAYMENTS_API_KEY=[REDACTED:stripe-key]",
    "sentry_dsn = [REDACTED:url-credentials]",
    "[REDACTED:aws-access-key] is the deploy user's key id",
    "REDIS_PASSWORD=[REDACTED:password]\nREDIS_TOKEN: [REDACTED:github-token]",
]
LESSONS = [
    "Set PAYMENTS_API_KEY=[REDACTED:stripe-key] in .env before you run the payment tests.",
    "The staging token is [REDACTED:github-token]; never commit it.",
    "Connect with postgres://app:[REDACTED:url-credentials]@db.internal:5433/app for the staging data.",
]


def test_only_credentials_reads_assignments_and_labels_not_lessons_holding_a_secret() -> None:
    assert all(only_credentials(c) for c in ONLY_SECRETS)
    assert not any(only_credentials(c) for c in LESSONS)
    assert not only_credentials("PORT=5433")  # a setting, not a secret: the value is the lesson


def test_memories_of_nothing_but_credentials_are_discarded_never_an_entry() -> None:
    batch = [memory(f"s{k}", "secret test", content, agent=f"agent-{k % 2}", minutes=k)
             for k, content in enumerate(ONLY_SECRETS)]
    found = proposals(dream_input(batch))
    assert {p.op for p in found} == {"discard"}, [(p.op, p.target) for p in found]
    assert all("nothing but credentials" in p.rationale for p in found)


def test_a_two_line_helper_is_no_skill_a_longer_snippet_or_a_recipe_is() -> None:
    helper = memory("h1", "Read widget ids as integers", "```python\ndef to_id(s: str) -> int:\n"
                    "    return int(s.strip())\n```")
    snippet = memory("h2", "Retry helper", "```ts\nconst retry = async (f) => {\n  try { return await f() }\n"
                     "  catch { return await f() }\n}\n```", type="code_snippet")
    recipe = memory("h3", "Rebuild the search index", "```sh\nmake index-drop\nmake index-build\n```")
    assert lesson_route([helper]) != Route.SKILL
    assert lesson_route([memory("h4", "x", "def to_id(s): return int(s)", type="code_snippet")]) != Route.SKILL
    assert lesson_route([snippet]) == Route.SKILL
    assert lesson_route([recipe]) == Route.SKILL


def test_credentials_beside_a_lesson_in_one_cluster_are_still_discarded() -> None:
    lesson_ = memory("l0", "staging secret test", "Connect to staging with `psql -h db.staging -p 5433` and "
                     "export PAYMENTS_API_KEY=[REDACTED:stripe-key] first.")
    batch = [lesson_, *(memory(f"s{k}", "staging secret test", content, agent=f"agent-{k % 2}", minutes=k + 1)
                        for k, content in enumerate(ONLY_SECRETS))]
    found = proposals(dream_input(batch))
    discarded = {p.target for p in found if p.op == "discard"}
    assert discarded == {f"stm:s{k}" for k in range(len(ONLY_SECRETS))}, [(p.op, p.target) for p in found]
    for p in found:
        if p.op == "create":
            assert p.evidence == ["l0"] and "PAYMENTS_API_KEY" in (p.after or "")
            assert "into AGENTS.md" not in p.rationale  # the discarded secrets are no recurrence
