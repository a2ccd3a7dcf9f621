"""Flag triage: a person's verdict on the pending flags against one live entry, and its undo.

Owns which flags wait for triage (pending `context_flagged` memories, grouped by the live entry
they name), what each verdict changes and the undo stack. The Flags view and `dreamtui flags`
both call these functions; neither decides anything about triage itself.

- archive: the flag is right; the entry moves to archive/.
- pin: the flag is wrong; the entry is protected (`importance: pinned`).
- weaken: keep the entry with the caveat lines and counters a dream's weaken writes.
- correct: the flag is right but the entry is still useful; a person's corrected text replaces
  it (`correction_draft` shows the flags above the entry, `without_notes` takes them off).
- skip: change nothing; the flags stay pending and the next dream weighs them.

Every change goes through `commit_human_change` (journaled, `[human]` in LOG.md, INDEX.md and
the bundle rewritten, a git commit) and consumes the flags it settles in the same journal, so a
crash cannot apply a verdict and leave its flags to be decided again. A verdict is refused when
the entry is no longer the text that was listed, so it never lands on a hand edit it did not see.

The undo stack (`.dreamtui/triage-undo.json`, oldest first) keeps each verdict's entry text from
before it, so undo restores it byte for byte and returns its flags to the queue. It is changed
only under the workspace lock, together with the commit it records.

Two rules triage shares with the dream — which entry a flag without targets is about, and what a
weaken writes into an entry — belong to the dream policy, a layer above this one, so callers pass
them in as `FlagRules` (dreamtui.dream.triage_rules has the policy's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from dreamtui.errors import InputError, StoreError
from dreamtui.model import FEEDBACK_FLAGGED, Entry, Memory, flag_quote, flag_targets, iso_z, sha256_text
from dreamtui.review.commit import commit_human_change
from dreamtui.safety.marks import display_text
from dreamtui.store.files import atomic_write_text
from dreamtui.store.lock import WorkspaceLock
from dreamtui.store.ltm import LTMSnapshot, LTMStore, archive_path
from dreamtui.store.stm import MemoryFilter, STMStore
from dreamtui.vocabulary import clip
from dreamtui.workspace.layout import Workspace

VERDICTS = ("archive", "pin", "weaken", "skip")  # given by name; `correct` also takes a text
CORRECT = "correct"
DONE = {"archive": "archived", "pin": "pinned", "weaken": "weakened", "skip": "skipped",
        CORRECT: "corrected"}
UNDO_FILE = "triage-undo.json"
UNDO_KEPT = 100  # verdicts the stack remembers; older ones can only be undone by hand
FLAG_PAGE = 5000
OBSERVED_CHARS = 120  # of each flag's observation in the LOG.md reason


class FlagRules(Protocol):
    """The dream policy's two rules that triage applies by hand."""

    def matcher(self, snapshot: LTMSnapshot) -> Callable[[Memory], Entry | None]:
        """The live entry of `snapshot` a flag without targets is about, or None."""
        ...

    def weakened(self, entry: Entry, flags: Sequence[Memory], now: datetime) -> str:
        """The entry's text after a weaken by these flags (caveat lines, counters)."""
        ...


@dataclass(frozen=True)
class FlagGroup:
    """One live entry and the pending flags against it, oldest first: what one verdict settles."""

    entry: Entry
    flags: list[Memory]

    def to_dict(self) -> dict[str, Any]:
        entry = self.entry
        return {
            "entry": {"path": entry.path, "slug": entry.slug, "title": entry.title,
                      "pinned": entry.pinned, "confirmations": entry.confirmations,
                      "flags": entry.flags},
            "flags": [flag_dict(f) for f in self.flags],
        }


def flag_dict(flag: Memory) -> dict[str, Any]:
    """What a person weighs of one flag: who, when, what they saw, what they quoted."""
    return {"id": flag.id, "agent": flag.agent_id, "submitted_at": iso_z(flag.submitted_at),
            "observation": flag.content.strip(), "quote": flag_quote(flag),
            "targets": flag_targets(flag)}


@dataclass(frozen=True)
class Pending:
    """Every pending flag: grouped by the live entry it names, or naming none (the next dream
    discards those with the reason)."""

    groups: list[FlagGroup]
    unmatched: list[Memory]

    def to_dict(self) -> dict[str, Any]:
        return {"entries": [g.to_dict() for g in self.groups],
                "unmatched": [flag_dict(f) for f in self.unmatched]}

    def find(self, ref: str, entry: str | None = None) -> tuple[FlagGroup, Memory]:
        """The group to triage for flag REF (its id or a unique prefix), and that flag.

        `entry` (slug or path) chooses among the entries a flag naming several targets.
        InputError when REF names no pending flag, several, or a flag without a live entry.
        """
        wanted = ref.strip().lower()
        flags = {f.id: f for g in self.groups for f in g.flags} | {f.id: f for f in self.unmatched}
        matches = [flags[wanted]] if wanted in flags else \
            [f for i, f in flags.items() if wanted and i.startswith(wanted)]
        if not matches:
            raise InputError(f"{ref}: no pending flag has this id or id prefix "
                             "(`dreamtui flags list` shows them)")
        if len(matches) > 1:
            ids = ", ".join(sorted(f.id[:12] for f in matches)[:5])
            raise InputError(f"{ref}: {len(matches)} pending flags start with it ({ids}); "
                             "give more of the id")
        flag = matches[0]
        groups = [g for g in self.groups if flag in g.flags]
        if not groups:
            named = ", ".join(flag_targets(flag)) or "no target, and its text matches no entry"
            raise InputError(f"flag {flag.id[:8]} names no live entry ({named}); the next dream "
                             "discards it with the reason")
        if entry is not None:
            groups = [g for g in groups if entry in (g.entry.slug, g.entry.path)]
            if not groups:
                raise InputError(f"flag {flag.id[:8]} is not against {entry}")
        if len(groups) > 1:
            slugs = ", ".join(g.entry.slug for g in groups)
            raise InputError(f"flag {flag.id[:8]} names {len(groups)} live entries ({slugs}); "
                             "choose one with --entry SLUG")
        return groups[0], flag


def pending(workspace: Workspace, rules: FlagRules, *, snapshot: LTMSnapshot | None = None,
            stm: STMStore | None = None) -> Pending:
    """The pending flags, by the live entry each names, groups in the order their first flag came.

    A flag's `targets` name entries by slug; a flag without targets is matched the way the dream
    matches it (`rules`). `snapshot` and `stm` let a caller reuse what it holds open.
    """
    snapshot = snapshot or LTMStore(workspace.memory_root).scan()
    if stm is None:
        with STMStore.for_workspace(workspace) as own:
            flags = _pending_flags(own)
    else:
        flags = _pending_flags(stm)
    match: Callable[[Memory], Entry | None] | None = None
    by_path: dict[str, list[Memory]] = {}
    unmatched: list[Memory] = []
    for flag in flags:
        targets = flag_targets(flag)
        if targets:
            entries = [e for e in (snapshot.by_slug(t) for t in dict.fromkeys(targets)) if e]
        else:
            match = match or rules.matcher(snapshot)
            entries = [e for e in [match(flag)] if e is not None]
        if not entries:
            unmatched.append(flag)
        for entry in entries:
            by_path.setdefault(entry.path, []).append(flag)
    return Pending([FlagGroup(snapshot.entries[path], items) for path, items in by_path.items()],
                   unmatched)


def _pending_flags(stm: STMStore) -> list[Memory]:
    flt = MemoryFilter(state="pending", types=(FEEDBACK_FLAGGED,))
    flags: list[Memory] = []
    while page := stm.page(flt, offset=len(flags), limit=FLAG_PAGE, newest_first=False):
        flags.extend(page)
    return flags


# -- verdicts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class UndoRecord:
    """One verdict as the undo stack keeps it: the entry's path and text before, where it is
    now and as what text, and the flags it settled."""

    id: str
    decision: str
    path: str
    before: str
    now_path: str
    now_sha256: str
    flag_ids: tuple[str, ...]
    at: str


@dataclass(frozen=True)
class Verdict:
    """What a verdict did: the commit's summary, and its undo record (None for a skip)."""

    decision: str
    group: FlagGroup
    summary: str
    record: UndoRecord | None
    warnings: list[str] = field(default_factory=list)

    @property
    def done(self) -> str:
        return DONE[self.decision]


def archive(workspace: Workspace, group: FlagGroup, *, now: datetime | None = None) -> Verdict:
    """The flag is right: retire the entry to archive/."""
    return _commit(workspace, group, "archive", None, "the flag is right", now or workspace.clock())


def pin(workspace: Workspace, group: FlagGroup, *, now: datetime | None = None) -> Verdict:
    """The flag is wrong: pin the entry, so a dream may only reinforce it or ask."""
    return _commit(workspace, group, "pin", None, "the flag is wrong", now or workspace.clock())


def weaken(workspace: Workspace, group: FlagGroup, rules: FlagRules, *,
           now: datetime | None = None) -> Verdict:
    """Keep the entry, with the caveat lines and counters a dream's weaken proposal writes."""
    moment = now or workspace.clock()
    text = rules.weakened(group.entry, group.flags, moment)
    return _commit(workspace, group, "weaken", text, "weakened", moment)


# The flags shown above the entry a person corrects: an HTML comment, so a renderer hides it if it
# were ever kept, and a block `without_notes` recognises by its first line.
NOTES_OPEN = "<!-- dreamtui: correct the entry below"
_NOTES_RE = re.compile(rf"\A{re.escape(NOTES_OPEN)}.*?^-->[ \t]*\r?\n", re.DOTALL | re.MULTILINE)


def correction_draft(group: FlagGroup) -> str:
    """The entry's text with the flags against it (observation, quote) in a comment block above
    it, for a person to correct in an editor; `without_notes` removes the block again."""
    def line(text: str) -> str:  # one line, and never the end of the comment
        return " ".join(display_text(text).split()).replace("-->", "—>")

    notes = [f"{NOTES_OPEN}. The flags say it is wrong; fix what they point at and save.",
             "     This block is removed on save; leave the entry unchanged to correct nothing."]
    for flag in group.flags:
        notes.append(f"flag {flag.id[:8]} by {line(flag.agent_id)}, "
                     f"{flag.submitted_at.strftime('%Y-%m-%d')}: {line(flag.content)}")
        if quote := flag_quote(flag):
            notes.append(f'    quoted: "{line(quote)}"')
    return "\n".join([*notes, "-->", ""]) + group.entry.raw


def without_notes(text: str) -> str:
    """`text` without the block `correction_draft` put above the entry (if it is still there)."""
    return _NOTES_RE.sub("", text, count=1)


def correct(workspace: Workspace, group: FlagGroup, text: str, *,
            now: datetime | None = None) -> Verdict:
    """The flag is right and the entry still useful: `text` (notes block or not) replaces it and
    its flags are consumed. InputError when the text is the entry as it was."""
    corrected = without_notes(text)
    if corrected == group.entry.raw:
        raise InputError(f"{group.entry.path}: unchanged, nothing corrected; the flags stay pending "
                         "(archive, pin or weaken decide them otherwise)")
    return _commit(workspace, group, CORRECT, corrected, "the flag is right; corrected",
                   now or workspace.clock())


def skip(group: FlagGroup) -> Verdict:
    """Leave the flags pending: nothing changes, the next dream weighs them."""
    count = len(group.flags)
    return Verdict("skip", group, f"{count} flag{'s' if count != 1 else ''} left pending for the "
                                  "next dream", None)


def give(workspace: Workspace, group: FlagGroup, decision: str, rules: FlagRules, *,
         now: datetime | None = None) -> Verdict:
    """The verdict named `decision` (one of VERDICTS), for callers keyed by name."""
    if decision == "archive":
        return archive(workspace, group, now=now)
    if decision == "pin":
        return pin(workspace, group, now=now)
    if decision == "weaken":
        return weaken(workspace, group, rules, now=now)
    if decision == "skip":
        return skip(group)
    raise InputError(f"triage decision {decision!r}: expected {', '.join(VERDICTS)}")


def _commit(workspace: Workspace, group: FlagGroup, decision: str, new_text: str | None,
            judged: str, now: datetime) -> Verdict:
    entry = group.entry
    observed = "; ".join(clip(f.content, OBSERVED_CHARS) for f in group.flags)
    settled = tuple(f.id for f in group.flags)
    # One lock around the commit and its undo record, so two processes triaging at once cannot
    # interleave them (the commit takes the same lock again: it is re-entrant).
    with WorkspaceLock(workspace, f"flag triage: {decision} {entry.path}").acquire():
        # A correction is an edit to the store; LOG.md and git still say which verdict it was.
        report = commit_human_change(workspace, entry.path, new_text,
                                     "edit" if decision == CORRECT else decision,
                                     f"flag triage: {judged} — {observed}", now=now,
                                     consume=settled, expect_sha256=entry.sha256, label=decision)
        now_path = archive_path(entry.path) if decision == "archive" else entry.path
        written = (workspace.memory_root / now_path).read_text(encoding="utf-8")
        record = UndoRecord(id=workspace.ids.token_hex(6), decision=decision, path=entry.path,
                            before=entry.raw, now_path=now_path, now_sha256=sha256_text(written),
                            flag_ids=settled, at=iso_z(now))
        # Written after the commit: a crash in between loses only the way back, never a change.
        _save(workspace, [*load_undo_stack(workspace), record][-UNDO_KEPT:])
    return Verdict(decision, group, report.summary, record, list(report.warnings))


# -- undo -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Undone:
    record: UndoRecord
    summary: str
    warnings: list[str] = field(default_factory=list)


def undo(workspace: Workspace, record_id: str | None = None, *,
         now: datetime | None = None) -> Undone:
    """Undo the newest verdict on record (or the one with `record_id`): the entry back as it was,
    from archive/ too, and its flags pending again.

    InputError when there is nothing to undo, or when the entry changed since the verdict (the
    record then stays: a person decides what to do with the later change).
    """
    with WorkspaceLock(workspace, "undo of a flag triage").acquire():
        stack = load_undo_stack(workspace)
        chosen = [r for r in stack if record_id in (None, r.id)]
        if not chosen:
            raise InputError("nothing to undo: no flag triage verdict on record" if record_id is None
                             else f"verdict {record_id} is no longer on record; nothing undone")
        record = chosen[-1]
        op = "restore" if record.decision == "archive" else "edit"
        report = commit_human_change(workspace, record.now_path, record.before, op,
                                     f"undo of flag triage ({record.decision} {record.path})",
                                     now=now or workspace.clock(), unconsume=record.flag_ids,
                                     expect_sha256=record.now_sha256,
                                     label=f"undo {record.decision}")
        _save(workspace, [r for r in stack if r.id != record.id])
    return Undone(record, report.summary, list(report.warnings))


def _undo_path(workspace: Workspace) -> Path:
    return workspace.state_dir / UNDO_FILE


def load_undo_stack(workspace: Workspace) -> list[UndoRecord]:
    """The verdicts that can be undone, oldest first."""
    path = _undo_path(workspace)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [UndoRecord(**{**item, "flag_ids": tuple(item["flag_ids"])})
                for item in data["verdicts"]]
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{path}: unreadable undo stack of flag triage ({exc}); delete the file "
                         "to forget it (the verdicts stay, only their undo is lost)") from None


def _save(workspace: Workspace, stack: list[UndoRecord]) -> None:
    workspace.state_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(_undo_path(workspace),
                      json.dumps({"verdicts": [asdict(r) for r in stack]}, indent=1) + "\n")
