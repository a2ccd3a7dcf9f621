"""Two steps in the other order, and the option a rule rejects, are contradictions of the rule
however many words they share with it, never restatements (dream/known.py, KnownIndex.turned);
the same order or pick said in other words still restates it. (Half the rows failed before
KnownIndex.turned; the others, most restatements among them, are the look-alikes it must leave as
they were.)

Every line is written for this file in dreamtui's own words, in the shapes real instruction files
take.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_known_rewordings import _kind

COMPOSITION = "## Design\n\n- Prefer composition over inheritance when designing classes.\n"
TEST_FILES = "## Tests\n\n- Prefer adding cases to existing test files over creating new test files.\n"
SMALL = "## Style\n\n- Choose small functions rather than long ones.\n"
SQL = "## Data\n\n- Use plain SQL queries instead of the ORM.\n"
HELPERS = "## Code\n\n- Prefer reusing existing helpers over writing new ones.\n"


@pytest.mark.parametrize("docs, memory, kind", [
    # the memory picks what the rule picks another option over: by a verb of picking ...
    (COMPOSITION, "Prefer inheritance when designing classes.", "contradicts"),
    (TEST_FILES, "Prefer to create new test files.", "contradicts"),
    (SMALL, "Choose long functions.", "contradicts"),
    (HELPERS, "Prefer to write new helpers.", "contradicts"),
    # ... or by doing it ("use B", "write B")
    (COMPOSITION, "Use inheritance for designing classes.", "contradicts"),
    (TEST_FILES, "Create new test files for each feature.", "contradicts"),
    (SQL, "Use the ORM for queries.", "contradicts"),
    # ... or by the rule's own pick turned round
    (COMPOSITION, "Favour inheritance over composition when designing classes.", "contradicts"),
    # ... or by rejecting what the rule picks, and nothing else
    (COMPOSITION, "Never use composition when designing classes.", "contradicts"),
    # the rule's pick, said alone or with another verb of picking, restates it
    (COMPOSITION, "Prefer composition when designing classes.", "known"),
    (COMPOSITION, "Favour composition over inheritance when designing classes.", "known"),
    (TEST_FILES, "Prefer adding cases to existing test files.", "known"),
    (SQL, "Write plain SQL queries.", "known"),
    (HELPERS, "Prefer reusing existing helpers.", "known"),
    (COMPOSITION, "Avoid inheritance when designing classes.", "known"),
    (COMPOSITION, "Rather than inheritance, prefer composition when designing classes.", "known"),
])
def test_picking_what_a_rule_rejects_contradicts_it(tmp_path: Path, docs: str, memory: str, kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind


TAG_BEFORE = "## Release\n\n- Always tag the release before publishing the package.\n"
TAG_FIRST = "## Release\n\n- Tag the release first, then publish the package.\n"
BACKUP = "## Data\n\n- Back up the database before running a migration.\n"
SMOKE = "## Deploy\n\n- Always run a smoke test before deploying to production.\n"


@pytest.mark.parametrize("docs, memory, kind", [
    # the same two steps the other way round, by whichever order word
    (TAG_BEFORE, "Publish the package before tagging the release.", "contradicts"),
    (TAG_BEFORE, "Publish the package, then tag the release.", "contradicts"),
    (TAG_FIRST, "Publish the package before tagging the release.", "contradicts"),
    (TAG_FIRST, "Publish the package first, then tag the release.", "contradicts"),
    (BACKUP, "Run migrations before the database backup.", "contradicts"),
    (BACKUP, "Run the migration, then back up the database.", "contradicts"),
    (SMOKE, "Deploy to production, then run the smoke test.", "contradicts"),
    # ... a fronted clause, or the earlier step held back
    (TAG_BEFORE, "After publishing the package, tag the release.", "contradicts"),
    (TAG_BEFORE, "Do not tag the release until the package is published.", "contradicts"),
    (TAG_BEFORE, "Never tag the release before publishing the package.", "contradicts"),
    # the same order in other words restates it: "Y after X", "X first, then Y", "prior to",
    # "Y once X", "not Y until X"
    (TAG_BEFORE, "Publish the package only after tagging the release.", "known"),
    (TAG_BEFORE, "Tag the release first, then publish the package.", "known"),
    (TAG_FIRST, "Tag the release before publishing the package.", "known"),
    (TAG_BEFORE, "Before publishing the package, tag the release.", "known"),
    (BACKUP, "Back up the database prior to running a migration.", "known"),
    (BACKUP, "Run the migration once the database is backed up.", "known"),
    (BACKUP, "Do not run a migration until the database is backed up.", "known"),
    # ... and so does holding the later step back until the earlier one
    (SMOKE, "Never deploy to production before the smoke test.", "known"),
])
def test_two_steps_in_the_other_order_contradict_the_rule(tmp_path: Path, docs: str, memory: str,
                                                          kind: str) -> None:
    assert _kind(tmp_path, docs, memory) == kind
