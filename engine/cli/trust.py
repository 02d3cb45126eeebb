"""``hermes-engine trust``: approve the engine's own files as they are now (engine.compile.approved)."""

from __future__ import annotations

import json
import sys

import click

from engine.cli.options import project_root, root_options
from engine.errors import UsageError

_STATES = {"changed": "changed", "added": "new    ", "removed": "removed"}


@click.command()
@root_options
@click.option("--show", "show_only", is_flag=True, help="List what changed since the last approval; approve nothing.")
@click.option("--yes", is_flag=True, help="Approve without asking (for a provisioning script; never from a tool call).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def trust(ctx: click.Context, show_only: bool, yes: bool, as_json: bool) -> None:
    """Approve the project's engine files as they are now.

    The engine refuses to load a config, manifest, handler source or plugin file whose
    content changed since it was last approved: a tool call may have written it. Review
    the files listed here (git diff), then approve them. At a terminal this asks first;
    elsewhere it needs --yes. Exit 0 when approved (or nothing changed), 1 with --show
    when something awaits approval.
    """
    from engine.compile.approved import approve, pending  # noqa: PLC0415
    from engine.compile.loader import ProjectLoader  # noqa: PLC0415

    root = project_root(ctx)
    packs, folders = ProjectLoader(root, pin="off").engine_inputs()
    found, why = pending(root, packs, folders)
    if as_json and (show_only or not found):
        click.echo(
            json.dumps({"approved": False, "pending": [{"path": c.path, "state": c.state} for c in found], "note": why})
        )
        ctx.exit(1 if show_only and found else 0)
    if not as_json:
        if why:
            click.echo(f"note: {why}")
        if not found:
            click.echo("nothing changed since the last approval")
            ctx.exit(0)
        click.echo(f"{len(found)} engine file(s) differ from the last approval:")
        for change in found:
            click.echo(f"  {_STATES[change.state]}  {change.path}")
    if show_only:
        ctx.exit(1)
    if not yes:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("no terminal to ask on: review the files, then run `hermes-engine trust --yes`")
        if not click.confirm("Approve them, so the engine loads them?", default=False):
            click.echo("nothing approved")
            ctx.exit(1)
    changed, where = approve(root, packs, folders)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "approved": True,
                    "pending": [{"path": c.path, "state": c.state} for c in changed],
                    "record": str(where),
                }
            )
        )
    else:
        click.echo(f"approved {len(changed)} change(s); record: {where}")
