"""A command's first word is read in time linear in its length, however its quotes stand.

A word with a quote left open (`python -c "print(x.__version__)" 2>&1` split at the space) made
the closed-quote pattern retry every split of its plain run: minutes of CPU for one log line.
"""

from __future__ import annotations

import pytest

from dreamtui.intake.lessons import command_head
from tests.watchdog import within


@pytest.mark.parametrize("command", [
    'python -c "import scrapling; print(scrapling.__version__)" 2>&1',
    'run_thing' + "a" * 60 + '"',
    "x" * 50_000 + "'",
], ids=["python -c", "60 characters", "50,000 characters"])
def test_an_open_quote_costs_no_backtracking(command: str) -> None:
    # The old pattern took 2^n steps here (n = the plain run's length): 54 s for 34 characters,
    # never ending for 60. Ten seconds is far above the few milliseconds it takes now.
    with within(10):
        head = command_head(command)
    assert head


def test_closed_quotes_still_name_the_program() -> None:
    assert command_head('"/opt/my tools/run.sh" --fast') == "/opt/my tools/run.sh"
    assert command_head("'C:\\Program Files\\x.exe'") == "C:\\Program Files\\x.exe"
