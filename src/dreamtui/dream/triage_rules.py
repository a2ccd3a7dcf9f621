"""The dream policy's flag rules as flag triage applies them by hand (review/triage.py).

Triage sits in the review layer, below the dream, so it cannot import these rules; the Flags view
and `dreamtui flags` hand it `POLICY_RULES`, and a flag triaged by hand is matched and weakened
exactly as a dream would match and weaken it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from dreamtui.dream.cluster import EntryIndex, build_entry_index
from dreamtui.dream.policy import caveat, match_flag
from dreamtui.dream.proposals import EntryDraft
from dreamtui.model import Entry, Memory
from dreamtui.store.ltm import LTMSnapshot


class PolicyRules:
    """review.triage.FlagRules over the dream policy."""

    def matcher(self, snapshot: LTMSnapshot) -> Callable[[Memory], Entry | None]:
        index: EntryIndex | None = None

        def match(flag: Memory) -> Entry | None:
            nonlocal index
            index = index or build_entry_index(snapshot)  # built once, and only when needed
            return match_flag(flag, index)[0]

        return match

    def weakened(self, entry: Entry, flags: Sequence[Memory], now: datetime) -> str:
        draft = EntryDraft(entry)
        draft.flag(flags, [caveat(f) for f in flags], now, "flag triage", 1.0)
        after = draft.to_proposal().after
        assert after is not None  # a weaken always has an after-text
        return after


POLICY_RULES = PolicyRules()
