"""Bad inputs through the real CLI: a clear message and the documented exit code, never a traceback.

The cases, and the script that writes their table to docs/bad-inputs.md, are in
tests/system/bad_inputs.py. The slow test runs every case and fails when the committed table is
out of date; it never writes the doc (`python -m tests.system.bad_inputs` does). The fast one
checks, without running anything, that the table lists exactly the catalogue's cases.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.system.bad_inputs import CASES, DOC, doc_difference, run_catalogue, table_cell

_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")  # a `|` that table_cell did not escape


def test_the_doc_lists_every_case_with_its_exit_code() -> None:
    assert len(CASES) >= 30
    rows = [_CELL_SEPARATOR.split(line)[1:-1] for line in DOC.read_text(encoding="utf-8").splitlines()
            if re.match(r"\| \d+ \|", line)]
    assert [(cells[1].strip(), int(cells[3])) for cells in rows] == \
        [(table_cell(case.input), case.exit) for case in CASES], \
        "docs/bad-inputs.md is out of date: regenerate it with `python -m tests.system.bad_inputs`"


@pytest.mark.slow
def test_bad_inputs_get_messages_and_exit_codes(tmp_path: Path) -> None:
    report = run_catalogue(tmp_path)
    assert not report.problems, "\n\n".join(report.problems)
    difference = doc_difference(report.doc)
    assert difference is None, ("docs/bad-inputs.md is out of date: regenerate it with "
                                f"`python -m tests.system.bad_inputs`\n{difference}")
