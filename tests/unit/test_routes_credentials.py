"""A memory that is nothing but redacted credentials carries no lesson: the dream discards it with
that reason, never merges it with other such memories into an entry nor routes it into AGENTS.md
(issue 11, new user M8)."""

from __future__ import annotations

from dreamtui.dream.routes import only_credentials
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
