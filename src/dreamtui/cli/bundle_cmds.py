"""`dreamtui bundle [--check]`: regenerate AGENTS.md from the live entries, or (CI) say whether it is stale."""

from __future__ import annotations

import sys

import click

from dreamtui.cli.main import EPILOG, AppContext, main, pass_app
from dreamtui.errors import EXIT_FAILED
from dreamtui.model import diff_stat
from dreamtui.review.bundle import read_bundle
from dreamtui.review.commit import commit_bundle
from dreamtui.review.plan import plan_bundle
from dreamtui.store.ltm import LTMStore


@main.command("bundle", epilog=EPILOG)
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 when AGENTS.md differs from what the live entries give.")
@pass_app
def bundle_cmd(app: AppContext, check: bool) -> None:
    """Regenerate AGENTS.md from the live entries: journaled, a LOG.md line and a git commit.

    With --check (for CI), exit 1 and print the size of the difference on stderr when the
    bundle on disk is stale; exit 0 when it is up to date.
    """
    workspace = app.workspace
    if check:
        plan = plan_bundle(LTMStore(workspace.memory_root).scan(), workspace, workspace.clock())
        behind = [*plan.deliveries, *plan.delivery_removals]  # the project's blocks, the skills
        if plan.bundle is None and not behind:
            click.echo(f"{workspace.agents_md}: up to date")
            return
        if plan.bundle is not None:
            current = read_bundle(workspace.agents_md)
            added, removed = diff_stat(current, plan.bundle)
            click.echo(f"{workspace.agents_md} is stale: +{added} −{removed} lines against the live "
                       "entries; `dreamtui bundle` regenerates it", err=True)
        for path in behind:
            click.echo(f"{path} is stale; `dreamtui bundle` rewrites it", err=True)
        sys.exit(EXIT_FAILED)
    report = commit_bundle(workspace)
    if report.recovered:
        click.echo(f"dreamtui: {report.recovered}", err=True)
    for warning in report.warnings:
        click.echo(click.style(f"warning: {warning}", fg="yellow"), err=True)
    for written in report.delivered:
        click.echo(f"delivered: {written}")
    if not report.bundle_written and not report.delivered:
        click.echo(f"{workspace.agents_md}: up to date, nothing written")
        return
    if report.bundle_written:
        click.echo(f"{workspace.agents_md}: regenerated")
    click.echo(f"git: {report.git_sha[:10] if report.git_sha else report.git_note}")
