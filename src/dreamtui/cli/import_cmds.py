"""`dreamtui import …`: turn agents' own logs into STM memories.

`dreamtui import claude-code` mines the project's Claude Code session logs for friction
(rejections, interruptions, denials, hook blocks, tool errors, corrections); see
`dreamtui.intake.claude_code.rules` for the rules.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click

from dreamtui.cli.main import AppContext, fail, main, pass_app
from dreamtui.intake.claude_code.discovery import default_project, default_projects_dir, project_slug
from dreamtui.intake.claude_code.importer import ImportOptions, ImportReport, import_logs
from dreamtui.intake.lessons import resolve_project
from dreamtui.vocabulary import counted

_RELATIVE = re.compile(r"(\d+)\s*([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class SinceType(click.ParamType[datetime, object]):
    """A moment: `7d`, `12h`, `30m`, `2w` ago, or an ISO date or date-time (UTC unless stated)."""

    name = "WHEN"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        text = str(value).strip()
        relative = _RELATIVE.fullmatch(text)
        if relative:
            amount = timedelta(**{_UNITS[relative.group(2)]: int(relative.group(1))})
            return datetime.now(UTC) - amount
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            self.fail(f"{text!r} is not a moment: expected an age such as 7d, 12h, 30m, 2w, or a "
                      "date such as 2026-11-01 or 2026-11-01T09:00", param, ctx)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@main.group("import")
def import_group() -> None:
    """Import memories from agents' logs."""


@import_group.command("claude-code")
@click.option("--projects-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where Claude Code keeps session logs (default: claude_code.projects_dir, "
                   "~/.claude/projects).")
@click.option("--project", metavar="PATH",
              help="The project whose sessions to mine (default: claude_code.project, else "
                   "project.root, else the workspace folder).")
@click.option("--since", type=SinceType(),
              help="Only what happened since then (by each event's own time): 7d, 12h, 30m, "
                   "2w, or an ISO date.")
@click.option("--include-live", is_flag=True,
              help="Also read sessions written to in the last claude_code.live_minutes minutes.")
@click.option("--dry-run", is_flag=True, help="Print what would be submitted; submit nothing.")
@pass_app
def claude_code(app: AppContext, projects_dir: Path | None, project: str | None,
                since: datetime | None, include_live: bool, dry_run: bool) -> None:
    """Mine Claude Code session logs for friction and submit it as memories.

    Only what was appended since the last import is read; re-importing never duplicates.
    """
    workspace = app.workspace
    settings = workspace.config.claude_code
    chosen = resolve_project(project) if project else None
    options = ImportOptions(
        projects_dir=projects_dir or default_projects_dir(workspace),
        project=chosen or default_project(workspace),
        since=since, include_live=include_live, live_minutes=settings.live_minutes, dry_run=dry_run)
    report = import_logs(workspace, options)
    if dry_run:
        _print_memories(report)
    _print_summary(report, options)


def _print_memories(report: ImportReport) -> None:
    for memory in report.memories:
        count = memory.metadata.get("occurrences", 1)
        times = f"  (×{count})" if count > 1 else ""
        click.echo(f"[{memory.type}] {memory.title}{times}")
        click.echo(f"    key: {memory.idempotency_key}  agent: {memory.agent_id}")
        for line in memory.content.splitlines():
            click.echo(f"    {line}")
        click.echo()


def _print_summary(report: ImportReport, options: ImportOptions) -> None:
    if report.logs == 0:
        folder = options.projects_dir / project_slug(options.project)
        if not Path(options.project).is_dir():
            # A deleted project's logs are still worth mining, so a missing folder is an error
            # only when no log names it either: then the path is most likely mistyped.
            fail(f"--project {options.project}: no such folder, and no Claude Code session logs "
                 f"for it (looked in {folder}); expected the path of the code project")
        click.echo(f"claude-code: no session logs for {options.project} (looked in {folder}; "
                   "choose the project with --project or claude_code.project)")
        return
    skipped = [f"{count} {what}" for count, what in (
        (report.unchanged, "unchanged"),
        (report.live, "live (use --include-live)"),
        (report.too_old, "older than --since"),
        (report.other_project, "of another project"),
    ) if count]
    stats = report.stats
    click.echo(f"claude-code: {counted(report.logs, 'log')} for {options.project}, {report.read} read"
               + (f"; skipped {', '.join(skipped)}" if skipped else "")
               + f"; {stats.bytes_read / 1_000_000:.2f} MB, {counted(stats.lines_read, 'line')}")
    damaged = [what for count, what in (
        (stats.malformed, f"{counted(stats.malformed, 'malformed line')} skipped (not a JSON object), "
                          f"the first at {stats.malformed_at}"),
        (stats.invalid_utf8, f"{counted(stats.invalid_utf8, 'line')} with invalid UTF-8 read with "
                             "replacement characters"),
        (stats.incomplete_tail, f"{counted(stats.incomplete_tail, 'unfinished last line')} left "
                                "for the next import"),
        (report.replayed, f"{counted(report.replayed, 'friction')} of records already imported "
                          "from another log (a resumed session) left out"),
        (report.before_since, f"{counted(report.before_since, 'friction')} before --since left out"),
    ) if count]
    if damaged:
        click.echo("  " + "; ".join(damaged))
    outcome = (f"{len(report.memories)} would be submitted (dry run: nothing submitted)"
               if options.dry_run else
               f"{report.inserted} new, {report.duplicates} already imported"
               + (f" ({report.recounted} still pending got a higher occurrence count)"
                  if report.recounted else ""))
    one_off = (f" ({counted(report.single_errors, 'one-off tool error')} that taught nothing left "
               "out)") if report.single_errors else ""
    click.echo(f"  {counted(report.frictions, 'friction')}{one_off} → "
               f"{counted(len(report.memories), 'memory', 'memories')}: {outcome}")


# `import codex` lives in its own module and registers on `import_group` when imported.
from dreamtui.cli import import_codex_cmds  # noqa: E402,F401
