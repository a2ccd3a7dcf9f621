"""Dreamer's conformance suites on dreamtui's queue (issue 15): dreamtui's STMStore through the
adapter in dreamer_side/conformance_dreamtui.py (13 cases; its claim takes the caller's lease id),
and Dreamer's own SQLite stores on databases dreamtui created (13 + 6)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from tests.interop.conftest import DREAMER_SIDE, REPO, Dreamer

EXPECTED = {"TestDreamtuiSTMStore": 13, "TestDreamerSTMStoreOnADreamtuiDatabase": 13,
            "TestDreamerLeaseStoreOnADreamtuiDatabase": 6}


def test_dreamers_conformance_suites_pass_on_dreamtuis_store(dreamer: Dreamer, tmp_path: Path) -> None:
    report = tmp_path / "conformance.xml"
    env = {**dreamer.env(), "PYTHONPATH": os.pathsep.join([str(DREAMER_SIDE), str(REPO / "src")])}
    done = dreamer.run([str(dreamer.python), "-m", "pytest", "-q", "-c", str(DREAMER_SIDE / "pytest.ini"),
                        "--rootdir", str(DREAMER_SIDE), f"--junitxml={report}",
                        str(DREAMER_SIDE / "conformance_dreamtui.py")], cwd=tmp_path, check=False, env=env)
    cases = ET.parse(report).getroot().iter("testcase")
    passed: Counter[str] = Counter()
    failed = []
    for case in cases:
        if any(child.tag in ("failure", "error", "skipped") for child in case):
            failed.append(f"{case.get('classname')}::{case.get('name')}")
        else:
            passed[str(case.get("classname")).rsplit(".", 1)[-1]] += 1
    assert not failed, f"{failed}\n{done.stdout[-4000:]}"
    assert dict(passed) == EXPECTED, done.stdout
    assert done.returncode == 0
