"""`dreamtui flags list|archive|pin|weaken|skip|undo`: the Flags view's triage, from a shell.

A thin layer over review/triage.py, the same functions the Flags view calls: each verdict goes
through the guarded, journaled commit path (`[human]` in LOG.md, INDEX.md and the bundle
rewritten, a git commit) and consumes the flags it settles.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

import click

from dreamtui.cli.main import EPILOG, AppContext, main, pass_app
from dreamtui.dream.triage_rules import POLICY_RULES
from dreamtui.model import Memory, flag_quote, iso_z
from dreamtui.review import triage
from dreamtui.safety.marks import display_text
from dreamtui.vocabulary import clip, counted

SHOWN_ID = 8  # of a flag's id in listings: enough to be a unique prefix in practice
QUOTED_CHARS = 60  # of the observation in a verdict's one-line report

FLAG_HELP = """FLAG is the flag memory's id or a unique prefix of it, as `dreamtui flags list`
shows it (list numbers are not accepted: they shift after every verdict). The verdict is on the
entry the flag names and settles every pending flag against that entry, as in the Flags view."""


@main.group("flags", epilog=EPILOG)
def flags_group() -> None:
    """Triage pending flags (context_flagged feedback) against the live entries they name."""


def _one_line(text: str, limit: int) -> str:
    return clip(display_text(text), limit)


def _flag_lines(flag: Memory) -> list[str]:
    quote = flag_quote(flag)
    quoted = f' · quoted "{_one_line(quote, 200)}"' if quote else ""
    lines = [f"  {flag.id[:SHOWN_ID]}  {display_text(flag.agent_id)} · {iso_z(flag.submitted_at)}{quoted}"]
    if flag.content.strip():
        lines.append(f"  {'':{SHOWN_ID}}  {_one_line(flag.content, 400)}")
    return lines


@flags_group.command("list", epilog=EPILOG)
@click.option("--json", "as_json", is_flag=True, help="Print the groups as JSON on stdout.")
@pass_app
def flags_list(app: AppContext, as_json: bool) -> None:
    """Pending flags, grouped by the live entry they name, oldest first."""
    pending = triage.pending(app.workspace, POLICY_RULES)
    if as_json:
        click.echo(json.dumps(pending.to_dict(), indent=2, ensure_ascii=False))
        return
    if not pending.groups:
        click.echo("Nothing to triage: no pending flag names a live entry.")
    for group in pending.groups:
        entry = group.entry
        pinned = ", pinned" if entry.pinned else ""
        count = len(group.flags)
        click.echo(f"{entry.path} · {display_text(entry.title)} · "
                   f"{counted(entry.confirmations, 'confirmation')}{pinned} · {counted(count, 'flag')}")
        for flag in group.flags:
            for line in _flag_lines(flag):
                click.echo(line)
    if pending.unmatched:
        ids = ", ".join(f.id[:SHOWN_ID] for f in pending.unmatched[:10])
        count = len(pending.unmatched)
        one = count == 1
        click.echo(f"{counted(count, 'pending flag')} name{'s' if one else ''} no live entry; the next "
                   f"dream discards {'it' if one else 'them'} with the reason: {ids}")


def _verdict(app: AppContext, ref: str, entry: str | None, decision: str) -> None:
    workspace = app.workspace
    group, flag = triage.pending(workspace, POLICY_RULES).find(ref, entry)
    verdict = triage.give(workspace, group, decision, POLICY_RULES)
    others = len(group.flags) - 1
    more = f"; {others} more flag{'s' if others != 1 else ''} on it" if others else ""
    click.echo(f'{verdict.done} {group.entry.slug} (flag {flag.id[:SHOWN_ID]}…: '
               f'"{_one_line(flag.content, QUOTED_CHARS)}"{more}): {verdict.summary}')
    for warning in verdict.warnings:
        click.echo(f"warning: {warning}", err=True)


VERDICT_HELP: dict[str, str] = {
    "archive": "The flag is right: move the entry to archive/; it leaves the bundle.",
    "pin": "The flag is wrong: pin the entry, so a dream may only reinforce it or ask you.",
    "weaken": "Keep the entry, with the caveat lines and counters a dream's weaken writes.",
    "skip": "Change nothing: the flags stay pending and the next dream weighs them.",
}


def _command(decision: str) -> Callable[[AppContext, str, str | None], None]:
    def run(app: AppContext, flag: str, entry: str | None) -> None:
        _verdict(app, flag, entry, decision)
    return run


for _decision in triage.VERDICTS:
    flags_group.command(_decision, help=f"{VERDICT_HELP[_decision]}\n\n{FLAG_HELP}", epilog=EPILOG)(
        click.argument("flag", metavar="FLAG")(
            click.option("--entry", metavar="SLUG|PATH",
                         help="The entry to triage, when the flag names several.")(
                pass_app(_command(_decision)))))


CORRECT_HELP = """The flag is right but the entry is still useful: commit the corrected entry,
its flags consumed. The editor shows each flag's observation and quote in a comment block above
the entry, removed on save; an unchanged entry corrects nothing (exit 2)."""


@flags_group.command(triage.CORRECT, help=f"{CORRECT_HELP}\n\n{FLAG_HELP}", epilog=EPILOG)
@click.argument("flag", metavar="FLAG")
@click.option("--entry", metavar="SLUG|PATH", help="The entry to triage, when the flag names several.")
@click.option("--file", "source", type=click.File("r", encoding="utf-8"), metavar="F",
              help="The corrected entry (`-` for stdin); without it, $VISUAL/$EDITOR opens the "
                   "entry with the flags above it.")
@pass_app
def flags_correct(app: AppContext, flag: str, entry: str | None, source: TextIO | None) -> None:
    workspace = app.workspace
    group, chosen = triage.pending(workspace, POLICY_RULES).find(flag, entry)
    if source is not None:
        text = source.read()
    else:
        draft = triage.correction_draft(group)
        # None: the editor quit without saving, which is an unchanged entry.
        text = click.edit(draft, extension=".md", require_save=True) or draft
    verdict = triage.correct(workspace, group, text)
    click.echo(f"{verdict.done} {group.entry.slug} (flag {chosen.id[:SHOWN_ID]}…): {verdict.summary}")
    for warning in verdict.warnings:
        click.echo(f"warning: {warning}", err=True)


@flags_group.command("undo", epilog=EPILOG)
@pass_app
def flags_undo(app: AppContext) -> None:
    """Undo the newest triage verdict (from here or the Flags view): the entry back as it was,
    from archive/ too, and its flags pending again. Refused when the entry changed since."""
    undone = triage.undo(app.workspace)
    record = undone.record
    count = len(record.flag_ids)
    click.echo(f"undone: {record.decision} of {record.path}; it is as it was, its {count} "
               f"flag{'s' if count != 1 else ''} pending again")
    for warning in undone.warnings:
        click.echo(f"warning: {warning}", err=True)
