"""`dreamtui dream`, `review`, `decide`, `commit`, `abandon`, `release` and `undo`: the review loop
without the TUI."""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Iterable
from typing import TextIO

import click

from dreamtui.cli.main import EPILOG, AppContext, main, pass_app
from dreamtui.deliver.questions import questions, questions_markdown
from dreamtui.deliver.skills import skill_preview
from dreamtui.errors import EXIT_OK, InputError
from dreamtui.headless import run_headless
from dreamtui.model import DECISIONS, OPS, ROUTES, Changeset, Memory, Proposal
from dreamtui.review.commit import CommitReport, abandon, commit
from dreamtui.review.decide import (
    all_matching,
    decide,
    edit_proposal,
    editable_text,
    proposal_by_ref,
    proposal_number,
    reroute,
    undo_last,
)
from dreamtui.safety.marks import display_text
from dreamtui.store.changesets import ChangesetStore
from dreamtui.store.journal import recover
from dreamtui.store.leases import GONE, memories_gone, release_dream, release_stranded, unreadable_records
from dreamtui.store.stm import STMStore
from dreamtui.vocabulary import counted, decision_glyph
from dreamtui.workspace.layout import Workspace


def _workspace(app: AppContext) -> Workspace:
    """The workspace, after finishing or discarding whatever a crashed commit left behind."""
    workspace = app.workspace
    note = recover(workspace)
    if note:
        click.echo(f"dreamtui: {note}", err=True)
    return workspace


def _store(workspace: Workspace) -> ChangesetStore:
    return ChangesetStore(workspace.dreams_dir)


# -- dream ------------------------------------------------------------------------------------


@main.command("dream", epilog=EPILOG)
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary on stdout.")
@click.option("--engine", metavar="NAME", help="Engine for this run (default: dream.engine).")
@click.option("--force", is_flag=True, help="Skip the headless gates (never the workspace lock).")
@click.option("--auto-apply", type=click.Choice(["none", "safe"]),
              help="Override headless.auto_apply: `safe` commits reinforcements, exact-duplicate "
                   "discards and the bundle that follows; a proposal with a safety mark always waits.")
@pass_app
@click.pass_context
def dream_cmd(ctx: click.Context, app: AppContext, as_json: bool, engine: str | None, force: bool,
              auto_apply: str | None) -> None:
    """Run one dream now and leave its changeset for review.

    With --headless (cron) the gates apply: headless.enabled, the workspace lock, headless.min_hours
    since the last dream, and headless.min_pending new memories or headless.min_flags flags on
    live entries. Without it a person is present, so the gates are skipped as with --force —
    never the lock.
    """
    workspace = app.workspace
    result = run_headless(workspace, engine=engine, force=force or not app.headless,
                          auto_apply=auto_apply, json_out=as_json, busy_is_skip=app.headless)
    if as_json:
        click.echo(json.dumps(result.summary, indent=2, ensure_ascii=False))
    else:
        failed = result.exit_code != EXIT_OK
        # the log's stderr leaves it out; an error reads as every other command's does
        click.echo(f"dreamtui: {result.message}" if failed else result.message, err=failed)
        dream_id = result.summary.get("dream_id")
        if dream_id and result.summary.get("waiting"):
            click.echo(f"review it: dreamtui review show {dream_id}   "
                       f"(or open `dreamtui` and press 4)")
    ctx.exit(result.exit_code)


# -- review -----------------------------------------------------------------------------------


@main.group("review")
def review_group() -> None:
    """List dreams and show their proposals with diffs."""


@review_group.command("list")
@click.option("--open", "only_open", is_flag=True, help="Only dreams still waiting for decisions.")
@click.option("--json", "as_json", is_flag=True)
@pass_app
def review_list(app: AppContext, only_open: bool, as_json: bool) -> None:
    """Dreams, newest first."""
    store = _store(_workspace(app))
    every = store.list()
    summaries = [s for s in every if s.status == "open"] if only_open else every
    # A record that does not load may be an open dream holding its batch: never hidden.
    unreadable = unreadable_records(store.dreams_dir, {s.path for s in every})
    if as_json:
        click.echo(json.dumps([{"id": s.id, "engine": s.engine, "fallback": s.fallback,
                                "created_at": s.created_at,
                                "status": s.status, "complete": s.complete,
                                "proposals": s.proposals, "undecided": s.undecided}
                               for s in summaries]
                              + [{"id": r.dream_id, "engine": None, "fallback": None,
                                  "created_at": None, "status": "unreadable", "complete": False,
                                  "proposals": 0, "undecided": 0, "problem": r.problem}
                                 for r in unreadable], indent=2))
        return
    if not summaries and not unreadable:
        click.echo("no dreams yet (run `dreamtui dream`)")
        return
    for s in summaries:
        state = s.status if s.complete else f"{s.status}, incomplete"
        click.echo(f"{s.id}  {s.created_at}  {s.engine_label:<10} {state:<10} "
                   f"{s.proposals} proposals, {s.undecided} undecided")
    for r in unreadable:
        click.echo(click.style(f"{r.dream_id}  unreadable: {r.problem}", fg="yellow"))
        click.echo(f"  `dreamtui abandon {r.dream_id}` moves it aside and returns its batch")


def _diff_lines(proposal: Proposal) -> list[str]:
    before = (proposal.before or "").splitlines(keepends=True)
    after = (proposal.after or "").splitlines(keepends=True)
    target = proposal.target
    new_target = str(proposal.details.get("archive_path") or target)
    return [line.rstrip("\n") for line in difflib.unified_diff(
        before, after, fromfile=f"a/{target}" if proposal.before is not None else "/dev/null",
        tofile=f"b/{new_target}", n=3)]


def _styled_diff(lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        shown = display_text(line)  # hidden and bidi characters made visible
        if line.startswith(("+++", "---")):
            yield click.style(shown, bold=True)
        elif line.startswith("@@"):
            yield click.style(shown, fg="cyan")
        elif line.startswith("+"):
            yield click.style(shown, fg="green")
        elif line.startswith("-"):
            yield click.style(shown, fg="red")
        else:
            yield shown


def _evidence_lines(proposal: Proposal, memories: dict[str, Memory]) -> list[str]:
    lines = []
    for memory_id in proposal.evidence:
        memory = memories.get(memory_id)
        if memory is None:
            lines.append(f"    {memory_id} (no longer in the queue)")
            continue
        lines.append(f"    {memory_id[:8]} {memory.type} · {memory.agent_id} · "
                     f"{display_text(memory.title)}")
        if proposal.op == "discard":
            lines += [f"      {display_text(line)}" for line in memory.content.splitlines()[:12]]
    return lines


# What accepting does beyond the entry, said beside the route (changeset-semantics.md, Routes).
ROUTE_EFFECT = {
    "memory": " — kept in memory, searchable, not in AGENTS.md",
    "skill": " — also written as context/skills/<name>/SKILL.md, delivered to the project's "
             ".claude/skills/<name>/",
    "decisions": " — also appended as a dated section to the project's DECISIONS.md",
    "person": " — a question for you: nothing is written (`dreamtui review questions`)",
}


def _show_proposal(number: int, proposal: Proposal, memories: dict[str, Memory]) -> None:
    mark = decision_glyph(proposal.decision)
    decision = proposal.decision or "undecided"
    click.echo(click.style(f"[{number}] {mark} {proposal.id}  {proposal.op} {proposal.target}  "
                           f"({decision}, confidence {proposal.confidence:.2f})", bold=True))
    click.echo(f"  why: {display_text(proposal.rationale)}")
    if proposal.safety:
        click.echo(click.style(f"  ⚠ safety: {', '.join(proposal.safety)}", fg="yellow", bold=True))
    for key in ("asks_human", "archive_path", "superseded_by", "left_out", "reason"):
        # A discard's reason is its rationale, already printed as "why:"; shown only if it differs.
        if proposal.details.get(key) and proposal.details[key] != proposal.rationale:
            click.echo(f"  {key}: {proposal.details[key]}")
    if proposal.route is not None:
        engine_route = proposal.details.get("engine_route", proposal.route)
        changed = f" (changed by a person; the dream said {engine_route})" \
            if engine_route != proposal.route else ""
        click.echo(f"  route: {proposal.route}{changed}{ROUTE_EFFECT.get(proposal.route, '')}")
    for delivery in proposal.details.get("deliveries") or []:
        if delivery.get("problem"):
            click.echo(click.style(f"  held back: {delivery['problem']}", fg="yellow"))
        elif delivery.get("first"):
            click.echo(f"  appends a dreamtui block to {delivery['target']} for the first time "
                       "(only when you accept this proposal yourself):")
            for line in _styled_diff(str(delivery.get("diff") or "").splitlines()):
                click.echo(f"    {line}")
        elif delivery.get("new"):
            click.echo(f"  creates {delivery['target']} in the project, holding only the dreamtui block")
        else:
            click.echo(f"  updates the dreamtui block of {delivery['target']}")
    if proposal.evidence:
        click.echo("  evidence:")
        for line in _evidence_lines(proposal, memories):
            click.echo(line)
    for line in _styled_diff(_diff_lines(proposal)):
        click.echo(f"  {line}")
    click.echo("")


def _show_skill(workspace: Workspace, proposal: Proposal) -> None:
    """The SKILL.md a lesson routed `skill` writes, as a diff against the one there now."""
    preview = skill_preview(workspace, proposal)
    if preview is None:
        return
    before, after = preview
    click.echo("  the skill it writes (context/skills/, delivered to the project's .claude/skills/):")
    diff = difflib.unified_diff((before or "").splitlines(), after.splitlines(), "a/SKILL.md",
                                "b/SKILL.md", lineterm="")
    for line in _styled_diff(diff):
        click.echo(f"  {line}")
    click.echo("")


def _memories(workspace: Workspace, changeset: Changeset) -> dict[str, Memory]:
    ids = [m for p in changeset.proposals for m in p.evidence]  # the bundle cites no memory
    if not ids or not workspace.stm_path.exists():
        return {}
    with STMStore.for_workspace(workspace) as store:
        return {m.id: m for m in store.get_many(ids)}


@review_group.command("show")
@click.argument("dream_id", metavar="DREAM")
@click.argument("proposal_ref", metavar="[N|P]", required=False)
@click.option("--proposal", "-p", "proposal_opt", metavar="N|P",
              help="Show only this proposal: its number [N] or its id.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the dream and its proposals as JSON (docs/changeset-semantics.md, "
                   "'review show --json').")
@pass_app
def review_show(app: AppContext, dream_id: str, proposal_ref: str | None, proposal_opt: str | None,
                as_json: bool) -> None:
    """Every proposal of DREAM: rationale, evidence, safety marks and a unified diff.

    The number printed before a proposal, [N], names it here and in `dreamtui decide`.
    """
    if proposal_ref is not None and proposal_opt is not None:
        raise InputError("name one proposal, as [N|P] or with --proposal (not both)")
    workspace = _workspace(app)
    changeset = _store(workspace).load(dream_id)
    chosen = proposal_ref or proposal_opt
    numbered = list(enumerate(changeset.reviewable, start=1))
    if chosen is not None:
        only = proposal_by_ref(changeset, chosen)
        numbered = [(proposal_number(changeset, only), only)]
    warnings = _warnings(workspace, changeset)
    memories = _memories(workspace, changeset)
    if as_json:
        click.echo(json.dumps(review_json(changeset, numbered, memories, warnings), indent=2,
                              ensure_ascii=False))
        return
    click.echo(click.style(f"{changeset.id} · {changeset.engine_label} · {changeset.status} · "
                           f"{len(changeset.reviewable)} proposals · {changeset.undecided} undecided",
                           bold=True))
    for warning in warnings:
        click.echo(click.style(f"warning: {warning}", fg="yellow"))
    if changeset.usage:
        click.echo("usage: " + ", ".join(f"{k} {v}" for k, v in changeset.usage.items()))
    known = _known_corpus(changeset)
    if known.get("rules") or known.get("problems"):
        # Counts of memories, not of rules: "3 contradicting them" read as the docs' 3 rules.
        click.echo(f"{known.get('summary')}; of the memories, {known.get('known', 0)} already stated there, "
                   f"{known.get('close', 0)} maybe, {known.get('contradicts', 0)} contradicting them")
    for refusal in changeset.refused:
        click.echo(click.style(f"refused {refusal.op} {refusal.target}: {refusal.reason}", fg="yellow"))
    click.echo("")
    for number, proposal in numbered:
        _show_proposal(number, proposal, memories)
        _show_skill(workspace, proposal)
    if changeset.status == "open" and changeset.bundle is None and chosen is None:
        click.echo(NO_CONTEXT)
    if changeset.status == "open":
        click.echo(f"decide: dreamtui decide {changeset.id} N… accept|pin|archive|reject|defer  "
                   f"(N: the numbers above, or ids; or --all accept [--op OP]); "
                   f"then: dreamtui commit {changeset.id}")


def _warnings(workspace: Workspace, changeset: Changeset) -> list[str]:
    if changeset.status == "open" and workspace.stm_path.exists():
        with STMStore.for_workspace(workspace) as stm:
            if memories_gone(stm, changeset.batch):
                return [f"{GONE}; committing still applies the LTM changes, but no memory is "
                        "consumed or returned"]
    return []


def _known_corpus(changeset: Changeset) -> dict[str, object]:
    found = changeset.stats.get("known_corpus")
    return found if isinstance(found, dict) else {}


# The shape of `review show --json`, documented in docs/changeset-semantics.md; a change to a
# key's meaning bumps it.
REVIEW_JSON_FORMAT = 1


def review_json(changeset: Changeset, numbered: list[tuple[int, Proposal]], memories: dict[str, Memory],
                warnings: list[str]) -> dict[str, object]:
    """`review show --json`: the dream, then each proposal as `review show` prints it."""
    return {
        "format": REVIEW_JSON_FORMAT,
        "dream": {"id": changeset.id, "engine": changeset.engine, "fallback": changeset.fallback,
                  "created_at": changeset.created_at, "status": changeset.status,
                  "complete": changeset.complete, "proposals": len(changeset.reviewable),
                  "undecided": changeset.undecided, "usage": dict(changeset.usage),
                  "left_out": list(changeset.left_out), "known_corpus": _known_corpus(changeset) or None},
        "warnings": warnings,
        "refused": [{"op": r.op, "target": r.target, "reason": r.reason} for r in changeset.refused],
        "proposals": [_proposal_json(number, p, memories) for number, p in numbered],
    }


def _proposal_json(number: int, proposal: Proposal, memories: dict[str, Memory]) -> dict[str, object]:
    evidence = []
    for memory_id in proposal.evidence:
        memory = memories.get(memory_id)
        evidence.append({"id": memory_id, "in_queue": memory is not None,
                         "type": memory.type if memory else None, "agent": memory.agent_id if memory else None,
                         "title": memory.title if memory else None, "content": memory.content if memory else None})
    return {
        "number": number, "id": proposal.id, "op": proposal.op, "target": proposal.target,
        "slug": proposal.slug, "route": proposal.route, "decision": proposal.decision,
        "confidence": proposal.confidence, "rationale": proposal.rationale, "safety": list(proposal.safety),
        "details": {k: v for k, v in proposal.details.items() if k not in _DETAILS_LEFT_OUT},
        "evidence": evidence, "diff": _diff_lines(proposal),
    }


# Bulky or internal details: the engine's text before a person's edit, what a rejection is
# remembered by, and the reinforce a rejection would add (it appears as its own proposal then).
_DETAILS_LEFT_OUT = ("engine_after", "fingerprints", "reinforce_alone")


@review_group.command("questions")
@click.option("--markdown", is_flag=True, help="Print them as one markdown document.")
@pass_app
def review_questions(app: AppContext, markdown: bool) -> None:
    """Lessons routed to a person: product questions, never written into agent context."""
    found = questions(_workspace(app))
    if markdown:
        click.echo(questions_markdown(found), nl=False)
        return
    if not found:
        click.echo("no questions for a person in open or committed dreams")
    for q in found:
        click.echo(f"{q.dream_id} {q.proposal_id} [{q.state}] {display_text(q.title)}")
        click.echo(f"  {display_text(' '.join(q.text.split()))}")


# -- decide, undo, commit, abandon ---------------------------------------------------------------

EDIT = "edit"  # `decide D P edit`: not a decision of its own, an edit that ends in accept
# A fresh dream previews every proposal as accepted; once one is decided, the bundle follows the
# accepted ones only (docs/changeset-semantics.md, "The bundle"), and may then change nothing.
NO_CONTEXT = ("no context proposal: AGENTS.md would not change (it follows the accepted proposals; "
              "before any decision, all of them)")


def _after_decide(changeset: Changeset) -> None:
    context = changeset.bundle
    if context is not None:
        click.echo(f"[{proposal_number(changeset, context)}] context {context.id}: "
                   f"{context.decision or 'undecided'} "
                   f"({context.rationale})")
    else:
        click.echo(NO_CONTEXT)
    flagged = [p for p in changeset.reviewable if p.decision is None and p.safety]
    if flagged:
        click.echo(click.style(f"{counted(len(flagged), 'undecided proposal')} with safety marks "
                               "(never decided in bulk); name them one by one: "
                               + " ".join(f"[{proposal_number(changeset, p)}]" for p in flagged),
                               fg="yellow"))
    click.echo(f"{changeset.undecided} undecided; commit with `dreamtui commit {changeset.id}`")


@main.command("decide")
@click.argument("dream_id", metavar="DREAM")
@click.argument("proposal_ids", nargs=-1, metavar="[N|P]...")
# Not a click.Choice: with --route the decision may be left out, and click would then take the
# last proposal id for it. Checked below, with the same words.
@click.argument("decision", metavar="[DECISION]", required=False)
@click.option("--all", "all_", is_flag=True,
              help="Every undecided proposal that allows DECISION, except those with safety marks.")
@click.option("--op", type=click.Choice(OPS), help="With --all: only proposals of this op.")
@click.option("--file", "text_file", type=click.File("r", encoding="utf-8"),
              help="With edit: the new text from this file ('-': stdin) instead of $VISUAL/$EDITOR.")
@click.option("--route", type=click.Choice(ROUTES),
              help="Send P's lesson there instead (memory, bundle, skill, decisions, person): "
                   "recorded and undone like a decision; with DECISION, decided too.")
@pass_app
def decide_cmd(app: AppContext, dream_id: str, proposal_ids: tuple[str, ...], decision: str | None,
               all_: bool, op: str | None, text_file: TextIO | None, route: str | None) -> None:
    """Record DECISION on proposals of DREAM (or --all of them), saved at once.

    DECISION is accept, pin, archive, reject, defer or edit.

    Name proposals by the number `dreamtui review show` prints before each ([3], or 3) or by id.

    pin and archive apply to entries only; a discard or the context bundle can be accepted,
    rejected or deferred. `edit` replaces one proposal's entry text with yours and accepts it
    (checked like an engine's; LOG.md and the git commit say a person edited it; undo gives
    back the engine's text). `--route R` changes where one proposal's lesson goes.
    """
    if route is not None and decision is not None and decision not in (*DECISIONS, EDIT):
        proposal_ids, decision = (*proposal_ids, decision), None  # `decide D P --route R`
    if decision is None and route is None:
        raise InputError(f"say what to decide: {' | '.join([*DECISIONS, EDIT])} (or --route ROUTE)")
    if decision is not None and decision not in (*DECISIONS, EDIT):
        raise InputError(f"decision {decision!r}: expected one of {', '.join([*DECISIONS, EDIT])}")
    if all_ == bool(proposal_ids):
        raise InputError("name proposal ids, or give --all (not both)")
    if op is not None and not all_:
        raise InputError("--op only goes with --all")
    if text_file is not None and decision != EDIT:
        raise InputError("--file only goes with edit")
    workspace = _workspace(app)
    if route is not None:
        if all_ or len(proposal_ids) != 1:
            raise InputError("--route takes exactly one proposal id (no --all)")
        changeset = reroute(workspace, dream_id, proposal_ids[0], route)
        routed = proposal_by_ref(changeset, proposal_ids[0])
        click.echo(f"[{proposal_number(changeset, routed)}] {routed.id} goes to {route}  "
                   f"(undo: `dreamtui undo {dream_id}`)")
        if decision is None:
            _after_decide(changeset)
            return
    if decision == EDIT:
        _edit(workspace, dream_id, proposal_ids, all_, text_file)
        return
    assert decision is not None  # without --route a decision was required above
    selection = all_matching(op) if all_ else list(proposal_ids)
    before = {p.id: p.decision for p in _store(workspace).load(dream_id).reviewable}
    changeset = decide(workspace, dream_id, selection, decision)
    for number, proposal in enumerate(changeset.reviewable, start=1):
        if proposal.id not in before:
            click.echo(f"[{number}] {proposal.id} new {proposal.op}  ({proposal.target}): {proposal.rationale}")
        elif before[proposal.id] != proposal.decision:
            click.echo(f"[{number}] {proposal.id} {proposal.decision or 'undecided'}  "
                       f"({proposal.op} {proposal.target})")
    _after_decide(changeset)


def _edit(workspace: Workspace, dream_id: str, proposal_ids: tuple[str, ...], all_: bool,
          text_file: TextIO | None) -> None:
    if all_ or len(proposal_ids) != 1:
        raise InputError("edit takes exactly one proposal id (no --all)")
    [ref] = proposal_ids
    proposal_id = proposal_by_ref(_store(workspace).load(dream_id), ref).id
    current = editable_text(_store(workspace).load(dream_id).proposal(proposal_id))
    if text_file is not None:
        text = text_file.read()
    elif sys.stdin.isatty() and sys.stdout.isatty():
        edited = click.edit(current, extension=".md", require_save=False)
        text = current if edited is None else edited
    else:
        raise InputError("edit: no terminal for $VISUAL/$EDITOR; give the new text with "
                         "--file F (or --file - for stdin)")
    if text == current:
        raise InputError(f"{proposal_id}: the text is unchanged; nothing saved "
                         f"(accept it with `dreamtui decide {dream_id} {proposal_id} accept`)")
    changeset = edit_proposal(workspace, dream_id, proposal_id, text)
    edited_proposal = changeset.proposal(proposal_id)
    click.echo(f"{proposal_id} accept, edited by a person  ({edited_proposal.op} {edited_proposal.target})")
    if edited_proposal.safety:
        click.echo(click.style(f"⚠ safety: {', '.join(edited_proposal.safety)}", fg="yellow"))
    _after_decide(changeset)


@main.command("undo")
@click.argument("dream_id", metavar="DREAM")
@pass_app
def undo_cmd(app: AppContext, dream_id: str) -> None:
    """Revert the last decide on DREAM."""
    workspace = _workspace(app)
    history = _store(workspace).load(dream_id).stats.get("history") or []
    changeset = undo_last(workspace, dream_id)
    step = history[-1].get("step") if history else None
    for item in (i for i in history if i.get("step") == step):
        route = item.get("route")
        if isinstance(route, dict):  # a change of route, its decision untouched
            click.echo(f"{item.get('proposal')} goes to {route.get('from') or 'no route'} again")
            continue
        click.echo(f"{item.get('proposal')} {item.get('to') or 'undecided'} → "
                   f"{item.get('from') or 'undecided'}")
    _after_decide(changeset)


def _print_report(report: CommitReport) -> None:
    if report.recovered:
        click.echo(f"dreamtui: {report.recovered}", err=True)
    click.echo(f"committed {report.dream_id}: {report.summary}")
    for conflict in report.conflicts:
        click.echo(click.style(f"held back {conflict.proposal_id} {conflict.op} {conflict.target}: "
                               f"{conflict.reason}", fg="yellow"))
    for warning in report.warnings:
        click.echo(click.style(f"warning: {warning}", fg="yellow"))
    for path in report.delivered:
        click.echo(f"delivered: {path}")
    click.echo(f"memories: {report.consumed} consumed, {report.released} back to the queue")
    click.echo(f"git: {report.git_sha[:10] if report.git_sha else report.git_note}")
    if report.status == "open":
        click.echo(f"{report.dream_id} stays open for the proposals still undecided")


@main.command("commit", epilog=EPILOG)
@click.argument("dream_id", metavar="DREAM")
@click.option("--json", "as_json", is_flag=True, help="Print the commit report as JSON.")
@pass_app
def commit_cmd(app: AppContext, dream_id: str, as_json: bool) -> None:
    """Apply DREAM's decisions: files, LOG.md, INDEX.md, the bundle, the queue and git.

    Exits 3 with nothing written when guard rails refuse it. A proposal whose file was edited by
    hand since the dream is held back and reported, never overwritten.
    """
    report = commit(app.workspace, dream_id)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_report(report)
    if report.bundle_stale:  # loud: a script that reads only stderr, or only --json, sees it too
        click.echo(click.style(f"warning: {report.bundle_stale}", fg="yellow", bold=True), err=True)


@main.command("abandon")
@click.argument("dream_id", metavar="DREAM")
@pass_app
def abandon_cmd(app: AppContext, dream_id: str) -> None:
    """Close DREAM without applying anything; its whole batch returns to the queue."""
    done = abandon(_workspace(app), dream_id)
    if done.moved_to is not None:
        click.echo(f"{dream_id}'s record does not load ({done.problem}); moved aside to "
                   f"{done.moved_to.name}")
    if done.gone:
        click.echo(f"abandoned {dream_id}: {GONE}; nothing returned to the queue")
    elif not done.lease_found:
        click.echo(f"abandoned {dream_id}: its lease could not be read from the record; "
                   "`dreamtui release --stranded` returns every claim no open dream owns")
    else:
        click.echo(f"abandoned {dream_id}: {done.released} memories back to the queue")


@main.command("release")
@click.argument("dream_id", metavar="[DREAM]", required=False)
@click.option("--stranded", is_flag=True,
              help="Every claim no open dream owns (its dream was killed before it saved a record, "
                   "its record was closed or deleted, or its record does not load).")
@pass_app
def release_cmd(app: AppContext, dream_id: str | None, stranded: bool) -> None:
    """Return to the queue memories claimed by a lease no open dream owns.

    With DREAM: what the lease of that closed (or unreadable) dream still holds. An open dream
    owns its batch; `dreamtui abandon DREAM` is what returns it.
    """
    if stranded == (dream_id is not None):
        raise InputError("name a dream, or give --stranded (not both)")
    workspace = _workspace(app)
    if dream_id is not None:
        click.echo(f"released {release_dream(workspace, dream_id)} memories held by {dream_id}'s lease")
        return
    released = release_stranded(workspace)
    for item in released:
        click.echo(f"released {item.claim.describe()}")
    click.echo(f"{sum(item.released for item in released)} memories back to the queue"
               if released else "nothing stranded: every claimed memory belongs to an open dream")
