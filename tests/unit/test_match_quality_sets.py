"""The own labelled sets of benchmarks/bench_quality.py, through the real dream."""

from __future__ import annotations

import pytest
from benchmarks.bench_quality import OWN_SETS, TARGETS, evaluate, held_out, own_set, run


def test_rule_readings_meet_the_own_targets() -> None:
    """The set written for this session's rule readings (kindred words, lists of alternatives,
    statements beside instructions, look-alikes sharing a verb or an object), end to end."""
    scores = evaluate(own_set(OWN_SETS / "rule-readings.json"))
    assert scores.lookalikes_merged == 0, scores.errors
    assert scores.precision >= TARGETS["own"]["precision"], scores.errors
    assert scores.recall >= TARGETS["own"]["recall"], scores.errors


@pytest.mark.parametrize("name", ["holdout-paraphrases", "holdout-rules"])
def test_errors_of_a_held_out_set_are_never_printed(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`--errors` is for tuning; a set kept for measuring shows its figures only."""
    labelled = own_set(OWN_SETS / f"{name}.json")
    assert held_out(labelled)
    rows = run(show_errors=True, sets=[(labelled, TARGETS["own"])])
    assert rows and capsys.readouterr().out == ""


def test_errors_of_a_tuning_set_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    labelled = own_set(OWN_SETS / "rule-readings.json")
    assert not held_out(labelled)
    run(show_errors=True, sets=[(labelled, TARGETS["own"])])
    assert capsys.readouterr().out.startswith("--- own rule-readings")
