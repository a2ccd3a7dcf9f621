"""Lessons routed `person`: product questions for the human, never written into agent context.

They stay in the dreams' changeset records (an accepted one is "noted" at commit, nothing else
is written), and `dreamtui review questions [--markdown]` lists those of every open or committed
dream that were not rejected, so a person can take them to whoever decides the product.
"""

from __future__ import annotations

from dataclasses import dataclass

from dreamtui.entry.codec import parse_entry
from dreamtui.errors import EntryError, InputError
from dreamtui.model import Proposal
from dreamtui.store.changesets import ChangesetStore, load_changeset_file
from dreamtui.vocabulary import Decision, Route
from dreamtui.workspace.layout import Workspace


@dataclass(frozen=True)
class Question:
    dream_id: str
    proposal_id: str
    title: str
    text: str
    why: str
    state: str  # open (undecided in an open dream), deferred, noted (accepted)
    evidence: int


def _question(dream_id: str, proposal: Proposal) -> Question:
    title, text = proposal.target, proposal.after or ""
    try:
        entry = parse_entry(proposal.after or "", proposal.target)
        title, text = entry.title, entry.body.strip()
    except EntryError:
        pass  # shown as written: a question need not be a valid entry to be asked
    state = {"accept": "noted", "pin": "noted", "defer": "deferred"}.get(proposal.decision or "", "open")
    return Question(dream_id, proposal.id, title, text, proposal.rationale, state,
                    len(proposal.evidence))


def questions(workspace: Workspace) -> list[Question]:
    """Every question of an open or committed dream that was not rejected, oldest dream first."""
    found = []
    for summary in reversed(ChangesetStore(workspace.dreams_dir).list()):
        if summary.status == "abandoned":
            continue
        try:
            changeset = load_changeset_file(summary.path)
        except InputError:
            continue  # replaced while listing; an unreadable record is `review list`'s to report
        found += [_question(changeset.id, p) for p in changeset.proposals
                  if p.route == Route.PERSON and p.decision not in (Decision.REJECT, Decision.ARCHIVE)]
    return found


def questions_markdown(found: list[Question]) -> str:
    """The questions as a markdown document a person can paste into an issue or a doc."""
    lines = ["# Questions for a person", ""]
    if not found:
        return "\n".join([*lines, "_No open questions._", ""])
    for q in found:
        lines += [f"## {q.title}", "", q.text, "",
                  f"- why it is asked: {q.why}",
                  f"- from dream {q.dream_id}, proposal {q.proposal_id} ({q.state}; "
                  f"{q.evidence} {'memory' if q.evidence == 1 else 'memories'})", ""]
    return "\n".join(lines)
