"""`dreamtui import codex`: lessons from Codex CLI rollouts (see `dreamtui.intake.codex`)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from dreamtui.cli.import_cmds import SinceType, import_group
from dreamtui.cli.main import AppContext, fail, pass_app
from dreamtui.intake.codex.importer import (
    CodexOptions,
    CodexReport,
    default_project,
    default_sessions_dir,
    import_rollouts,
)
from dreamtui.intake.lessons import resolve_project
from dreamtui.vocabulary import counted


@import_group.command("codex")
@click.option("--sessions-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where Codex CLI keeps rollouts (default: codex.sessions_dir, else "
                   "$CODEX_HOME/sessions, else ~/.codex/sessions).")
@click.option("--project", metavar="PATH",
              help="The project whose sessions to mine: rollouts whose cwd is inside it (default: "
                   "codex.project, else project.root, else the workspace folder).")
@click.option("--since", type=SinceType(),
              help="Only frictions since then (their own time): 7d, 12h, 30m, 2w, or an ISO date.")
@click.option("--include-live", is_flag=True,
              help="Also read rollouts written to in the last codex.live_minutes minutes.")
@click.option("--dry-run", is_flag=True, help="Print what would be submitted; submit nothing.")
@pass_app
def codex(app: AppContext, sessions_dir: Path | None, project: str | None,
          since: datetime | None, include_live: bool, dry_run: bool) -> None:
    """Mine Codex CLI rollouts for lessons and submit them as memories.

    Rejected and failed commands and patches, policy denials, the person's corrections and
    interruptions with what they said. Re-importing never duplicates.
    """
    workspace = app.workspace
    chosen = resolve_project(project) if project else None
    options = CodexOptions(
        sessions_dir=sessions_dir or default_sessions_dir(workspace),
        project=chosen or default_project(workspace), since=since, include_live=include_live,
        live_minutes=workspace.config.codex.live_minutes, dry_run=dry_run)
    report = import_rollouts(workspace, options)
    if dry_run:
        for memory in report.memories:
            click.echo(f"[{memory.type}] {memory.title}")
            for line in memory.content.splitlines():
                click.echo(f"    {line}")
            click.echo()
    _summary(report, options)


def _summary(report: CodexReport, options: CodexOptions) -> None:
    if report.read == 0 and not Path(options.project).is_dir():
        # As for Claude Code: a deleted project's rollouts are still read; a missing folder that
        # no rollout names either is most likely a mistyped path.
        fail(f"--project {options.project}: no such folder, and no Codex rollout in "
             f"{options.sessions_dir} ran there; expected the path of the code project")
    if report.logs == 0:
        click.echo(f"codex: no rollouts in {options.sessions_dir} (choose the folder with "
                   "--sessions-dir or codex.sessions_dir)")
        return
    skipped = [f"{n} {what}" for n, what in (
        (report.unchanged, "unchanged"), (report.live, "live (use --include-live)"),
        (report.too_old, "older than --since"), (report.other_project, "of another project"),
        (report.no_cwd, "without a session cwd"),
    ) if n]
    stats = report.stats
    click.echo(f"codex: {counted(report.logs, 'rollout')} in {options.sessions_dir}, "
               f"{report.read} read for {options.project}"
               + (f"; skipped {', '.join(skipped)}" if skipped else "")
               + f"; {stats.bytes_read / 1_000_000:.2f} MB, {counted(stats.lines_read, 'line')}")
    if report.unreadable:
        more = f" and {len(report.unreadable) - 1} more" if len(report.unreadable) > 1 else ""
        click.echo(f"  {counted(len(report.unreadable), 'rollout')} could not be read: "
                   f"{report.unreadable[0]}{more}")
    if stats.malformed:
        click.echo(f"  {counted(stats.malformed, 'malformed line')} skipped (not a JSON object), "
                   f"the first at {report.malformed_at}")
    if stats.unknown:
        shapes = ", ".join(f"{name} ×{n}" for name, n in stats.unknown.most_common(8))
        click.echo(f"  {counted(sum(stats.unknown.values()), 'record')} of a shape this version "
                   f"does not read: {shapes}")
    outcome = (f"{len(report.memories)} would be submitted (dry run: nothing submitted)"
               if options.dry_run else
               f"{report.inserted} new, {report.duplicates} already imported"
               + (f" ({report.recounted} still pending got a higher occurrence count)"
                  if report.recounted else "")
               + (f"; {counted(report.instructed, 'pending failure')} took the person's "
                  "instruction about it" if report.instructed else ""))
    click.echo(f"  {counted(report.frictions, 'friction')} → "
               f"{counted(len(report.memories), 'memory', 'memories')}: {outcome}")
