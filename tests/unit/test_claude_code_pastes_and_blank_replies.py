"""Two shapes of a correction the Claude Code detector read past: an error pasted back after the
agent said it was done (a turn opening with a log line was dropped before any correction rule
read it), and a concession in the agent's second text record (Claude Code writes a blank text
before a long reply, which was taken as the reply)."""

from __future__ import annotations

from pathlib import Path

from dreamtui.workspace.layout import Workspace
from tests.unit.test_claude_code_mining import PROJECT, _Log, _mined, projects, workspace

__all__ = ["projects", "workspace"]  # the fixtures, for pytest


def test_an_error_pasted_back_after_done_is_a_correction(workspace: Workspace, projects: Path) -> None:
    log = _Log("c1c1c1c1-0000-4000-8000-000000000001")
    log.typed("make the report script print the totals")
    log.result(log.calls("Edit", file_path=f"{PROJECT}/report.py", old_string="x", new_string="y"), "ok")
    log.says("Done! Run it again with `python report.py`.")
    log.typed('Traceback (most recent call last):\n  File "report.py", line 3, in <module>\n'
              "    print(totals)\nNameError: name 'totals' is not defined")
    log.says("The variable is defined later; moving it up.")
    memories = _mined(workspace, projects, log)
    [memory] = [m for m in memories if m.metadata["kind"] == "correction"]
    assert memory.metadata["rule"] == "pasted_error"
    assert "NameError: name 'totals' is not defined" in memory.content


def test_a_pasted_log_the_agent_asked_for_is_no_correction(workspace: Workspace, projects: Path) -> None:
    log = _Log("c1c1c1c1-0000-4000-8000-000000000002")
    log.typed("the build fails on my machine")
    log.result(log.calls("Read", file_path=f"{PROJECT}/build.sh"), "make all")
    log.says("Can you paste the full output of `make all`?")
    log.typed("2026-11-02 10:00:01 ERROR cc: missing header foo.h\n2026-11-02 10:00:01 make: *** [all] Error 1")
    log.says("foo.h comes from libfoo-dev; install it with apt.")
    assert not [m for m in _mined(workspace, projects, log) if m.metadata["kind"] == "correction"]


def test_a_concession_after_a_blank_text_is_read(workspace: Workspace, projects: Path) -> None:
    log = _Log("c1c1c1c1-0000-4000-8000-000000000003")
    log.typed("tidy the style guide")
    log.result(log.calls("Edit", file_path=f"{PROJECT}/STYLE.md", old_string="a", new_string="b"), "ok")
    log.says("Tidied: I removed the colour section and shortened the intro.")
    log.typed("the brand book has a colour section too")
    log.says("\n\n")
    log.says("You're right, I removed the colour section by mistake: the brand book requires it. "
             "Putting it back.")
    [memory] = [m for m in _mined(workspace, projects, log) if m.metadata["kind"] == "correction"]
    assert memory.metadata["rule"] == "acknowledged"
    assert "I removed the colour section by mistake" in memory.content
