"""The project's DECISIONS.md: lessons routed `decisions` are appended, never edited.

Each accepted proposal with the route `decisions` adds one dated section at the end of the file
(the file is created with a short header when the project has none). What the file already holds
is never changed: the new text is the old text plus the sections, and the
journal writes it only over the exact bytes the plan read (§4.2), so a line a person adds while
the commit runs is never lost.
"""

from __future__ import annotations

import re
from datetime import datetime

from dreamtui.deliver.targets import Delivery, HoldBack, Skip, missing_project, read_target
from dreamtui.model import Entry
from dreamtui.workspace.layout import Workspace

DECISIONS_FILE = "DECISIONS.md"
HEADER = ("# Decisions\n\nAppend-only: each entry below was accepted at a dreamtui review; "
          "entries are never edited, a later decision supersedes an earlier one.\n")
# How each section dreamtui appends ends; the dream's known corpus leaves such sections out
# (dream/known.py): they are the memory's own lessons, not the project's.
RECORDED_BY = "_Recorded by dreamtui from "


# A title labelled as what the file is ("Decision: use X", "ADR-12: use X"): in DECISIONS.md the
# heading says the decision, the label would only repeat the file's name.
_LABEL_RE = re.compile(r"^(?:decision|adr(?:[- ]?\d+)?)\s*:\s*(?=\S)", re.IGNORECASE)


def decision_section(entry: Entry, now: datetime, dream_id: str | None) -> str:
    """One appended section: the date and title, the lesson, where it came from."""
    source = f"dream {dream_id}" if dream_id else "a person's change"
    title = _LABEL_RE.sub("", " ".join(entry.title.split()))
    title = title[:1].upper() + title[1:]
    return (f"\n## {now:%Y-%m-%d} — {title}\n\n{entry.body.strip()}\n\n"
            f"{RECORDED_BY}{source}; memory entry `{entry.slug}`._\n")


def plan_decisions(workspace: Workspace, sections: list[str]) -> Delivery | None:
    """DECISIONS.md with `sections` appended; None when there is nothing to append."""
    project = workspace.project_root
    if project is None or not sections:
        return None
    problem = missing_project(workspace)
    if problem is not None:
        return Delivery(DECISIONS_FILE, project / DECISIONS_FILE, None, None, None, problem)
    try:
        read = read_target(project, DECISIONS_FILE)
    except (HoldBack, Skip) as held:
        return Delivery(DECISIONS_FILE, project / DECISIONS_FILE, None, None, None,
                        f"{DECISIONS_FILE} {held or 'is a link to the workspace'}")
    current = HEADER if read.text is None else read.text
    if current and not current.endswith("\n"):
        current += "\n"  # never glue a section onto a person's last line
    # Old text + new sections, by construction: the file's bytes so far are never rewritten.
    after = current + "".join(sections)
    return Delivery(DECISIONS_FILE, read.path, read.text, after, read.base)
