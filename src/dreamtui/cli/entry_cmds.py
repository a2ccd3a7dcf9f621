"""`dreamtui entry pin|unpin|archive|restore`: a person's change to one entry, from a shell.

The headless twin of the Memory view's keys, over the same guarded and journaled commit path
(`commit_human_change`): logged as `[human]` in LOG.md, INDEX.md and the bundle rewritten, a git
commit made.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from dreamtui.cli.main import EPILOG, AppContext, main, pass_app
from dreamtui.errors import InputError
from dreamtui.review.commit import commit_human_change
from dreamtui.store.ltm import LTMStore
from dreamtui.workspace.layout import Workspace


def _entry_path(workspace: Workspace, ref: str, *, archived: bool) -> str:
    """REF as a path under the memory root: a path as given, or the one entry with that slug."""
    snapshot = LTMStore(workspace.memory_root).scan()
    if ref in snapshot.entries:
        return ref
    state = "archived" if archived else "live"
    found = sorted(e.path for e in snapshot.entries.values() if e.slug == ref and e.archived == archived)
    if not found:
        where = "archive/ holds them" if archived else "INDEX.md lists the live ones"
        raise InputError(f"{ref}: no {state} entry has this slug or path in {workspace.memory_root} "
                         f"({where})")
    if len(found) > 1:
        raise InputError(f"{ref}: {len(found)} {state} entries have this slug ({', '.join(found)}); "
                         "name one by its path")
    return found[0]


def _change(app: AppContext, ref: str, op: str, reason: str | None) -> None:
    workspace = app.workspace
    path = _entry_path(workspace, ref, archived=op == "restore")
    report = commit_human_change(workspace, path, None, op, reason or f"{op} from the command line")
    click.echo(f"{op} {path}: {report.summary}")
    click.echo(f"git: {report.git_sha[:10] if report.git_sha else report.git_note}")
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)


# The commands, each a human op of the Memory view, with its --help text.
ENTRY_OPS: dict[str, str] = {
    "pin": "Pin a live entry: dreams may then only reinforce it or ask you.",
    "unpin": "Unpin a live entry.",
    "archive": "Move a live entry to archive/, with its retirement keys; it leaves the bundle.",
    "restore": "Bring an archived entry back to its live path, without its retirement keys.",
}


@main.group("entry", epilog=EPILOG)
def entry_group() -> None:
    """A person's change to one LTM entry: pin, unpin, archive or restore it."""


def _command(op: str) -> Callable[[AppContext, str, str | None], None]:
    def run(app: AppContext, ref: str, reason: str | None) -> None:
        _change(app, ref, op, reason)
    return run


for _op, _help in ENTRY_OPS.items():
    entry_group.command(_op, help=_help, epilog=EPILOG)(
        click.argument("ref", metavar="SLUG|PATH")(
            click.option("--reason", help="Why, in a few words: it goes into LOG.md and the git "
                                          "message.")(pass_app(_command(_op)))))
