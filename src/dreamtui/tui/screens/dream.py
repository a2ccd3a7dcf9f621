"""4 Dream — start a dream and watch it stream; review its proposals, decide, commit.

Dreams prepared by headless runs are listed and reviewed the same way. Decisions show at once
(the cursor moves on to the next undecided proposal) and are saved by a job; the saved
changeset that comes back is the truth, including the recomputed bundle (context) proposal.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import Log, Static

from dreamtui.deliver.skills import skill_preview
from dreamtui.dream.engines.base import CancelToken, Done, Event, Failed, Progress, Refused, TextDelta
from dreamtui.errors import DreamError, DreamtuiError
from dreamtui.model import Changeset, Memory, Proposal, engine_label
from dreamtui.review.commit import CommitReport
from dreamtui.review.decide import AllMatching, all_matching, allowed_decisions, editable_text
from dreamtui.review.plan import LESSON_OPS
from dreamtui.safety.marks import display_text
from dreamtui.store.changesets import ChangesetSummary
from dreamtui.tui import keys
from dreamtui.tui.backend import CommitPreview, DreamsState
from dreamtui.tui.editor import edit_text
from dreamtui.tui.formatting import fit, short_id
from dreamtui.tui.jobs import LOG_NAME, JobFailed, log, run_job
from dreamtui.tui.screens.confirm import ConfirmCommitScreen
from dreamtui.tui.screens.pick import EnginePickScreen, EvidenceScreen, RoutePickScreen
from dreamtui.tui.screens.view import ViewScreen
from dreamtui.tui.widgets.diff_view import DiffView
from dreamtui.tui.widgets.proposal_list import DreamList, ProposalList, dream_counts
from dreamtui.tui.widgets.virtual_list import VirtualList
from dreamtui.vocabulary import Decision

# -- messages (posted by jobs; handlers own the state) ----------------------------------------------


def usage_text(usage: dict[str, int]) -> str:
    """What an LLM dream cost, as the API reported it; nothing for the offline engine."""
    if not usage:
        return ""
    cached = usage.get("cache_read_input_tokens", 0)
    return (f" · tokens {usage.get('input_tokens', 0):,} in / {usage.get('output_tokens', 0):,} out"
            + (f" ({cached:,} cached)" if cached else ""))


@dataclass
class DreamsLoaded(Message):
    state: DreamsState


@dataclass
class ChangesetSaved(Message):
    changeset: Changeset


@dataclass
class DreamEvent(Message):
    """An engine event, with every proposal the runner has accepted so far (copies).

    Each one carries the whole list, so one still waiting in the queue may give way to the next:
    a dream that streams events faster than the screen draws cannot flood it. Text, refusals,
    failures and the end are each shown; a progress line gives way only to a newer one.
    """

    dream_id: str
    event: Event
    proposals: tuple[Proposal, ...]

    def can_replace(self, message: Message) -> bool:
        if not isinstance(message, DreamEvent) or isinstance(self.event, (TextDelta, Refused, Failed, Done)):
            return False
        return not isinstance(self.event, Progress) or isinstance(message.event, Progress)


@dataclass
class DreamFinished(Message):
    """The run ended: its changeset, None (nothing pending), or cancelled."""

    changeset: Changeset | None
    cancelled: bool


@dataclass
class EvidenceLoaded(Message):
    proposal_id: str
    memories: list[Memory]
    missing: int
    open_after: bool


@dataclass
class PreviewReady(Message):
    preview: CommitPreview


@dataclass
class Committed(Message):
    report: CommitReport


@dataclass(frozen=True)
class Run:
    """A dream under way, as the status line shows it: replaced, never changed, as events arrive."""

    engine: str
    token: CancelToken = field(default_factory=CancelToken)
    proposals: Sequence[Proposal] = ()
    progress: str = "starting…"
    dream_id: str = ""


def proposal_head(proposal: Proposal, evidence: list[Memory] | None) -> Text:
    text = Text()
    text.append(f"{proposal.op} {proposal.target}", "bold")
    if proposal.decision:
        text.append(f"  [{Decision(proposal.decision).past}]", "bold")
    text.append(f"\n{display_text(proposal.rationale)} · conf {proposal.confidence:.2f}", "dim")
    if proposal.evidence:
        text.append(f"\nevidence ({len(proposal.evidence)}, o to open): ", "dim")
        if evidence is None:
            text.append(" ".join(f"stm:{short_id(i)}" for i in proposal.evidence[:6]))
        else:
            text.append("  ".join(f'{short_id(m.id)} "{fit(display_text(m.title), 40)}"' for m in evidence[:3]))
        if len(proposal.evidence) > (6 if evidence is None else 3):
            text.append(" …")
    if proposal.safety:
        text.append(f"\n⚠ {', '.join(proposal.safety)}", "bold")
    if proposal.details.get("asks_human"):
        text.append("\nthe entry is pinned: dreams never change it on their own; you decide", "bold")
    if proposal.route is not None:
        engine_route = proposal.details.get("engine_route", proposal.route)
        changed = f", changed from {engine_route}" if engine_route != proposal.route else ""
        text.append(f"\nroute: {proposal.route}{changed} (t to change)", "dim")
    for delivery in proposal.details.get("deliveries") or []:
        if delivery.get("problem"):
            text.append(f"\nheld back: {delivery['problem']}", "bold")
        elif delivery.get("first"):
            text.append(f"\nappends a dreamtui block to {delivery['target']} for the first time "
                        "(below; only when you accept this)", "bold")
    left_out = proposal.details.get("left_out")
    if left_out:
        text.append(f"\nover the byte budget, left out: {', '.join(left_out[:8])}", "dim")
    return text


def review_texts(proposal: Proposal, skill: tuple[str | None, str] | None = None
                 ) -> tuple[str | None, str | None]:
    """What the diff view compares: the proposal's own before/after, then for a lesson routed
    `skill` the SKILL.md it writes (`skill`: before and after, deliver/skills.skill_preview), and
    for the bundle the project files it appends a first block to (their unified diffs, cut back
    into both sides), each under a `── <file> ──` line: the person sees every byte decided."""
    before, after = proposal.before, proposal.after
    if skill is not None:
        heading = "\n── SKILL.md (context/skills/, and the project's .claude/skills/) ──\n"
        before, after = (before or "") + heading + (skill[0] or ""), (after or "") + heading + skill[1]
    for delivery in proposal.details.get("deliveries") or []:
        if not delivery.get("first") or not delivery.get("diff"):
            continue
        heading = f"\n── {delivery['target']} (in the project) ──\n"
        old, new = [], []
        for line in str(delivery["diff"]).splitlines(keepends=True):
            if line.startswith(("---", "+++", "@@")):
                continue
            if line[:1] in (" ", "-"):
                old.append(line[1:])
            if line[:1] in (" ", "+"):
                new.append(line[1:])
        before = (before or "") + heading + "".join(old)
        after = (after or "") + heading + "".join(new)
    return before, after


class DreamScreen(ViewScreen):
    VIEW = "dream"
    BINDINGS = keys.bindings(keys.DREAM)

    # The status line follows these two. Always "changed" when set: comparing changesets of
    # thousands of proposals would cost more than drawing one line.
    changeset: var[Changeset | None] = var(None, init=False, always_update=True)
    run: var[Run | None] = var(None, init=False, always_update=True)

    def __init__(self) -> None:
        super().__init__()
        self.evidence: dict[str, list[Memory]] = {}
        self.committing = False

    def compose_view(self) -> ComposeResult:
        yield Static("Dream", id="dream-status", classes="status-line")
        with Horizontal(classes="panes"):
            with Vertical(id="dream-left", classes="pane-left"):
                yield DreamList(id="dream-list", empty_text="no open dream — d starts one")
                yield ProposalList(id="proposal-list", empty_text="no proposals")
            with Vertical(id="dream-right", classes="pane-right"):
                yield Static(id="proposal-head")
                yield DiffView(id="proposal-diff")
                yield Log(id="dream-stream", max_lines=2000)

    def on_mount(self) -> None:
        self.query_one("#dream-left").border_title = "dreams · proposals"
        self.query_one(ProposalList).focus()
        self.query_one("#dream-stream", Log).display = False

    # -- loading ------------------------------------------------------------------------------------

    def start_loading(self) -> None:
        wanted = self.changeset.id if self.changeset else None
        run_job(self, lambda: self.backend.open_dreams(wanted), DreamsLoaded, what="reading dreams",
                group="dreams", exclusive=True)

    def on_dreams_loaded(self, message: DreamsLoaded) -> None:
        summaries = message.state.summaries
        chosen = message.state.changeset
        index = next((i for i, s in enumerate(summaries) if chosen and s.id == chosen.id), 0)
        dreams = self.query_one(DreamList)
        dreams.styles.height = max(1, min(4, len(summaries)))
        dreams.show_rows(summaries, cursor=index)
        if self.run is None:
            self._show_changeset(chosen)

    def _show_changeset(self, changeset: Changeset | None, *, cursor: int | None = None) -> None:
        proposals = changeset.reviewable if changeset else []
        self.query_one(ProposalList).show_rows(proposals, cursor=cursor)
        self.changeset = changeset

    def watch_changeset(self) -> None:
        self._show_status()

    def watch_run(self) -> None:
        self._show_status()

    def _show_status(self) -> None:
        status = self.query_one("#dream-status", Static)
        if self.run is not None:
            status.update(Text(f"Dream — {self.run.dream_id or 'starting'} · {self.run.engine} · "
                               f"{len(self.run.proposals)} proposals · {self.run.progress}   esc cancels"))
            return
        changeset = self.changeset
        if changeset is None:
            status.update("Dream — no open dream · d starts one")
            return
        self.query_one(DreamList).follow(changeset)  # the row says the counts the line says
        engine = engine_label(changeset.engine, changeset.fallback, with_reason=False)  # the list row has it
        status.update(Text(f"Dream — {changeset.id} · {engine} · "
                           f"{dream_counts(len(changeset.reviewable), changeset.undecided)}"
                           + ("" if changeset.complete else " · incomplete") + usage_text(changeset.usage)))

    @on(VirtualList.CursorMoved, "#dream-list")
    def _dream_highlighted(self, message: VirtualList.CursorMoved[ChangesetSummary]) -> None:
        summary = message.row
        if summary is not None and self.run is None and (self.changeset is None
                                                         or summary.id != self.changeset.id):
            run_job(self, lambda: self.backend.open_dreams(summary.id), DreamsLoaded,
                    what="reading a dream", group="dreams", exclusive=True)

    @on(VirtualList.CursorMoved, "#proposal-list")
    def _proposal_highlighted(self, message: VirtualList.CursorMoved[Proposal]) -> None:
        self._show_proposal(message.row)

    def _show_proposal(self, proposal: Proposal | None) -> None:
        head = self.query_one("#proposal-head", Static)
        diff = self.query_one(DiffView)
        if proposal is None:
            head.update("")
            diff.show(None, None, empty_text="")
            return
        head.update(proposal_head(proposal, self.evidence.get(proposal.id)))
        if proposal.op == "discard":
            diff.show(None, None, empty_text="the memory is consumed without an LTM change")
        else:
            diff.show(*review_texts(proposal, skill_preview(self.backend.workspace, proposal)))
        if proposal.evidence and proposal.id not in self.evidence:
            self._load_evidence(proposal, open_after=False)

    @property
    def current(self) -> Proposal | None:
        return self.query_one(ProposalList).current

    # -- running a dream ----------------------------------------------------------------------------

    def action_start(self) -> None:
        if self.run is not None:
            self.notify("a dream is already running; esc cancels it", severity="warning")
            return

        def picked(engine: str | None) -> None:
            if engine:
                self._start(engine)

        self.app.push_screen(EnginePickScreen(self.backend.engines()), picked)

    def _start(self, engine: str) -> None:
        run = Run(engine)
        self.evidence.clear()
        stream = self.query_one("#dream-stream", Log)
        stream.clear()
        stream.display = True
        self.query_one(ProposalList).show_rows(run.proposals)
        self.run = run
        shown: tuple[Proposal, ...] = ()

        def on_event(event: Event, changeset: Changeset) -> None:
            # Called in the worker thread. Only proposals the runner accepted (after policy) are
            # shown; they are copied, since the runner keeps the originals. Every message carries
            # them all (see DreamEvent.can_replace); the tuple is rebuilt only when one was added.
            nonlocal shown
            if len(changeset.proposals) > len(shown):
                shown += tuple(copy.deepcopy(changeset.proposals[len(shown):]))
            self.post_message(DreamEvent(changeset.id, event, shown))

        def body() -> None:
            try:
                changeset = self.backend.run_dream(engine, run.token, on_event)
            except DreamError as exc:
                self.post_message(DreamFinished(None, cancelled=run.token.cancelled))
                if not run.token.cancelled:
                    self.post_message(JobFailed(f"dreaming with {engine}", str(exc)))
            except Exception as exc:  # shown in the modal, like every job failure
                log.exception("dream failed")
                self.post_message(DreamFinished(None, cancelled=False))
                self.post_message(JobFailed(f"dreaming with {engine}", f"{type(exc).__name__}: {exc} "
                                            f"(the traceback is in .dreamtui/logs/{LOG_NAME})"))
            else:
                self.post_message(DreamFinished(changeset, cancelled=False))

        self.run_worker(body, name="dream", group="dream-run", thread=True, exit_on_error=False)

    def on_dream_event(self, message: DreamEvent) -> None:
        run = self.run
        if run is None:
            return
        event = message.event
        stream = self.query_one("#dream-stream", Log)
        if len(message.proposals) != len(run.proposals):
            proposals = self.query_one(ProposalList)
            proposals.show_rows(message.proposals, cursor=proposals.cursor)
        progress = run.progress
        if isinstance(event, Progress):
            progress = f"{event.done}/{event.total} {event.message}"
            stream.write_line(f"· {event.message} ({event.done}/{event.total})")
        elif isinstance(event, TextDelta):
            stream.write(event.text)  # the model's text: the entry being written grows here
        elif isinstance(event, Refused):
            stream.write_line(f"✗ refused {event.refusal.op} {event.refusal.target}: {event.refusal.reason}")
        elif isinstance(event, Failed):
            stream.write_line(f"✗ {event.message}")
        elif isinstance(event, Done):
            progress = "done"
        self.run = replace(run, dream_id=message.dream_id, proposals=message.proposals, progress=progress)

    def on_dream_finished(self, message: DreamFinished) -> None:
        self.run = None
        self.query_one("#dream-stream", Log).display = False
        if message.cancelled:
            self.notify("dream cancelled: its batch went back to the queue")
        elif message.changeset is None and not message.cancelled:
            self.notify("nothing to dream about: no pending memories")
        elif message.changeset is not None and message.changeset.fallback is not None:
            self.notify(f"dream {message.changeset.id} was made by {message.changeset.engine_label}",
                        severity="warning")
        # The run's changeset if it made one (the status line shows its id), else the one shown before.
        self._show_changeset(message.changeset if message.changeset is not None else self.changeset)
        self.start_loading()
        self.dreamtui.data_version += 1  # the queue changed (claimed or released memories)

    def action_cancel_dream(self) -> None:
        if self.run is None:
            return
        self.run.token.cancel()
        self.run = replace(self.run, progress="cancelling…")

    # -- deciding -----------------------------------------------------------------------------------

    def _reviewable(self) -> Changeset | None:
        if self.run is not None:
            self.notify("the dream is still running; decide once it is done (esc cancels it)",
                        severity="warning")
            return None
        changeset = self.changeset
        if changeset is None or changeset.status != "open":
            return None
        return changeset

    def action_decide(self, decision: str) -> None:
        changeset = self._reviewable()
        proposal = self.current
        if changeset is None or proposal is None:
            return
        if decision not in allowed_decisions(proposal):
            self.notify(f"a {proposal.op} proposal cannot be {Decision(decision).past}", severity="warning")
            return
        proposal.decision = decision  # shown at once; the saved changeset replaces it
        self._save(changeset.id, [proposal.id], decision)
        proposals = self.query_one(ProposalList)
        following = next((i for i, p in enumerate(changeset.reviewable)
                          if i > proposals.cursor and p.decision is None), None)
        proposals.refresh()
        proposals.move_cursor(following if following is not None else proposals.cursor)
        self.mutate_reactive(DreamScreen.changeset)  # the decided count

    def action_decide_rest(self, decision: str) -> None:
        changeset = self._reviewable()
        proposal = self.current
        if changeset is None or proposal is None:
            return
        selection = all_matching(proposal.op)
        for p in changeset.reviewable:  # shown at once: exactly what the core will decide
            if selection.takes(p, decision):
                p.decision = decision
        self.query_one(ProposalList).refresh()
        self._save(changeset.id, selection, decision)

    def _save(self, dream_id: str, selection: list[str] | AllMatching, decision: str) -> None:
        run_job(self, lambda: self.backend.decide(dream_id, selection, decision), ChangesetSaved,
                what=f"saving the decision ({decision})", group="decide")

    def action_edit(self) -> None:
        """The proposed entry in $VISUAL/$EDITOR; the edited text is checked, saved and accepted."""
        changeset = self._reviewable()
        proposal = self.current
        if changeset is None or proposal is None:
            return
        try:
            current = editable_text(proposal)
            text = edit_text(self.app, current, proposal.slug or proposal.op)
        except DreamtuiError as exc:
            self.post_message(JobFailed(f"editing {proposal.id}", str(exc)))
            return
        if text == current:
            self.notify(f"{proposal.target}: unchanged", markup=False)
            return
        dream_id, proposal_id = changeset.id, proposal.id
        run_job(self, lambda: self.backend.edit_proposal(dream_id, proposal_id, text), ChangesetSaved,
                what=f"saving the edit of {proposal_id}", group="decide")

    def action_route(self) -> None:
        """Pick where the current proposal's lesson goes; saved as one undo step."""
        changeset = self._reviewable()
        proposal = self.current
        if changeset is None or proposal is None:
            return
        if proposal.op not in LESSON_OPS:
            self.notify(f"a {proposal.op} proposal carries no lesson, so it has no route",
                        severity="warning")
            return
        dream_id, proposal_id = changeset.id, proposal.id

        def picked(route: str | None) -> None:
            if route is None or route == proposal.route:
                return
            run_job(self, lambda: self.backend.reroute(dream_id, proposal_id, route), ChangesetSaved,
                    what=f"sending {proposal_id} to {route}", group="decide")

        self.app.push_screen(RoutePickScreen(proposal.route), picked)

    def action_undo(self) -> None:
        changeset = self._reviewable()
        if changeset is not None:
            run_job(self, lambda: self.backend.undo(changeset.id), ChangesetSaved,
                    what="undoing the last decision", group="decide")

    def on_changeset_saved(self, message: ChangesetSaved) -> None:
        if self.changeset is None or message.changeset.id != self.changeset.id:
            return
        self._show_changeset(message.changeset, cursor=self.query_one(ProposalList).cursor)

    def on_job_failed(self, message: JobFailed) -> None:
        if message.group == "commit":
            self.committing = False
        elif message.group == "decide":
            # The optimistic glyphs are wrong now: show the changeset as it is saved on disk.
            self.start_loading()

    # -- evidence, commit -----------------------------------------------------------------------------

    def _load_evidence(self, proposal: Proposal, *, open_after: bool) -> None:
        ids = list(proposal.evidence)

        def work() -> EvidenceLoaded:
            memories = self.backend.memories(ids)
            return EvidenceLoaded(proposal.id, memories, len(ids) - len(memories), open_after)

        run_job(self, work, lambda message: message, what="reading evidence", group="evidence",
                exclusive=True)

    def on_evidence_loaded(self, message: EvidenceLoaded) -> None:
        self.evidence[message.proposal_id] = message.memories
        current = self.current
        if current is not None and current.id == message.proposal_id:
            self.query_one("#proposal-head", Static).update(proposal_head(current, message.memories))
        if message.open_after:
            self.app.push_screen(EvidenceScreen(message.memories, message.missing, self.dreamtui.clock()))

    def action_evidence(self) -> None:
        proposal = self.current
        if proposal is None or not proposal.evidence:
            self.notify("this proposal rests on no memory")
            return
        self._load_evidence(proposal, open_after=True)

    def action_commit(self) -> None:
        changeset = self._reviewable()
        if changeset is None:
            if self.run is None:
                self.notify("no open dream to commit; d starts one", severity="warning")
            return
        if self.committing:
            return
        run_job(self, lambda: self.backend.preview_commit(changeset.id), PreviewReady,
                what="checking the commit", group="commit")

    def on_preview_ready(self, message: PreviewReady) -> None:
        preview = message.preview

        def answered(yes: bool | None) -> None:
            if yes:
                self.committing = True
                run_job(self, lambda: self.backend.commit(preview.changeset.id), Committed,
                        what=f"committing {preview.changeset.id}", group="commit")

        self.app.push_screen(ConfirmCommitScreen(preview), answered)

    def on_committed(self, message: Committed) -> None:
        self.committing = False
        report = message.report
        # The git note (why nothing was committed to git) is on the History view, not in a toast.
        note = f" · git {report.git_sha[:10]}" if report.git_sha else ""
        self.notify(f"committed: {report.summary}{note}", timeout=8)
        for warning in report.warnings:
            self.notify(warning, severity="warning", timeout=10)
        # Forgotten so the reload picks the newest open dream; the status line changes with it.
        self.set_reactive(DreamScreen.changeset, None)
        self.dreamtui.workspace_changed()

    def action_switch_dream(self) -> None:
        dreams, proposals = self.query_one(DreamList), self.query_one(ProposalList)
        (proposals if dreams.has_focus else dreams).focus()
