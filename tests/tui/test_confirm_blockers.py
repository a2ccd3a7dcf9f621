"""The commit confirm screen asks the core whether a commit may go.

Its own copy of the refusal rule lacked "every decided proposal conflicts", so the screen
offered a commit the core then refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dreamtui.errors import CommitRefused
from dreamtui.review.commit import commit
from dreamtui.review.decide import decide
from dreamtui.tui.backend import Backend
from tests.factories import DREAM_ID, NOW, basic


def test_the_screen_blocks_exactly_when_the_core_refuses(tmp_path: Path) -> None:
    s, p = basic(tmp_path)
    decide(s.ws, DREAM_ID, [p["reinforce"].id], "accept", now=NOW)
    backend = Backend(s.ws, lambda: NOW)
    assert backend.preview_commit(DREAM_ID).blocking == []
    # A hand edit after the dream: the one decided proposal now conflicts.
    (s.ws.memory_root / "topics/test-db-reset.md").write_text(s.text("topics/test-db-reset.md") + "x\n")
    blocking = backend.preview_commit(DREAM_ID).blocking
    assert blocking and blocking[0] == "every decided proposal conflicts with the files as they are now"
    with pytest.raises(CommitRefused, match="every decided proposal conflicts"):
        commit(s.ws, DREAM_ID, now=NOW)
    backend.close()
