"""A redacted secret in an entry's line (issue 11): "[REDACTED:stripe-key]" means nothing to an
agent, so neither the guidance a dream writes nor the AGENTS.md line carries it; the memory does."""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.dream.runner import dream
from dreamtui.model import NewMemory
from dreamtui.review.bundle import without_secrets
from dreamtui.safety.secrets import redact
from dreamtui.scaffold import init_workspace
from dreamtui.store.stm import STMStore

KEY = "[REDACTED:stripe-key]"
CONTENT = ("Set STRIPE_WEBHOOK_SECRET=whsec_4eC39HqLyjWDarjtT1zdp7dc in backend/.env before running "
           "the webhook tests.")


@pytest.mark.parametrize(("text", "line"), [
    # the variable it is assigned to says where it lives
    (f"Local checkout needs STRIPE_SECRET_KEY={KEY} in .env.", "Local checkout needs STRIPE_SECRET_KEY in .env."),
    (f'Set `STRIPE_KEY: "{KEY}"` in config.yml.', "Set `STRIPE_KEY` in config.yml."),
    # read in passing after a noun
    (f"Use the Stripe test key {KEY} for local checkout tests.", "Use the Stripe test key for local checkout tests."),
    (f"Local tests use the Stripe key (`{KEY}`), never the live one.",
     "Local tests use the Stripe key, never the live one."),
    # the clause was the secret: it goes, the rest stays
    (f"The Stripe test key is {KEY}; run `make stripe-listen` before the webhook tests.",
     "Run `make stripe-listen` before the webhook tests."),
    # ... and what named it stands for the "it" that followed
    (f"The Stripe test key is {KEY}; checkout tests need it in .env.",
     "Checkout tests need the Stripe test key in .env."),
    ('Our staging token was "[REDACTED:github-token]". Put it in ~/.netrc for git pulls.',
     "Put our staging token in ~/.netrc for git pulls."),
    # nothing else to say: what kind of secret it was, never the marker
    (f"Use {KEY} for local runs.", "Use the stripe-key (not kept in memory) for local runs."),
    ("No secret here; nothing changes.", "No secret here; nothing changes."),
])
def test_a_line_carries_no_redaction_marker(text: str, line: str) -> None:
    assert without_secrets(text) == line


def test_a_dream_writes_no_marker_into_guidance_or_agents_md(tmp_path: Path) -> None:
    workspace = init_workspace(tmp_path / "ws", git=False)
    with STMStore.for_workspace(workspace) as store:  # two agents: it recurs, so it enters AGENTS.md
        for agent in ("a1", "a2"):
            store.submit(NewMemory(type="observation", title="Local Stripe webhooks need the test secret",
                                   content=CONTENT, agent_id=agent))
    assert "[REDACTED:" in redact(CONTENT).text  # what the queue holds
    changeset = dream(workspace)
    assert changeset is not None
    create = next(p for p in changeset.proposals if p.op == "create")
    context = changeset.bundle
    assert context is not None and create.after is not None and context.after is not None
    assert "[REDACTED" not in create.after and "[REDACTED" not in context.after
    assert "STRIPE_WEBHOOK_SECRET in backend/.env" in context.after


def test_a_secret_in_the_title_leaves_no_trace_in_the_slug(tmp_path: Path) -> None:
    workspace = init_workspace(tmp_path / "ws", git=False)
    with STMStore.for_workspace(workspace) as store:
        store.submit(NewMemory(type="observation",
                               title="Stripe test key sk_test_4eC39HqLyjWDarjtT1zdp7dc works for local checkout",
                               content="Local checkout tests run against Stripe test mode.", agent_id="a1"))
    changeset = dream(workspace)
    assert changeset is not None
    create = next(p for p in changeset.proposals if p.op == "create")
    assert create.slug == "stripe-test-key-works-for-local-checkout"
