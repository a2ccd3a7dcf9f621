"""The agent's message is searched for steps it gave in time linear in its length.

`^\\s*(…)?\\s*` let both runs of spaces cross line ends and split a run of blank lines every way:
about n^3 steps, 19 s of CPU for one 1 KB message of blank lines before a paste-back was titled.
"""

from __future__ import annotations

from dreamtui.intake import corrections
from tests.watchdog import within


def test_blank_lines_cost_no_backtracking() -> None:
    said = "Here are the steps:\n" + " \n" * 3000 + "That is all."
    with within(5):  # the old pattern needed minutes here; this takes milliseconds
        assert corrections._GAVE_STEPS.search(said) is None


def test_steps_are_still_found_on_any_line() -> None:
    for said in ("Done.\n\n  1. run `make`", "Done.\n- Open the page", "ok\n   cd web"):
        assert corrections._GAVE_STEPS.search(said), said
