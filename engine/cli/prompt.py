"""The approval prompt at the terminal, and text made safe to print there.

Everything a tool caller controls (the command, paths, descriptions built from
them) is shown with control and format characters escaped, so a `\\r`, an ESC
sequence or a bidi override cannot repaint the prompt to show something else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from engine.cli.verdict import printable

if TYPE_CHECKING:
    from engine.policy.approval import ApprovalRequest

__all__ = ["printable", "prompt"]


def prompt(request: ApprovalRequest) -> str:
    """Ask the person at the terminal; anything but an offered answer is a denial."""
    click.echo(f"\napproval required for {printable(request.tool)}: {printable(request.command)}", err=True)
    for match in request.verdict.matches:
        click.echo(f"  [{match.severity}] {printable(match.key)}: {printable(match.description)}", err=True)
    if not request.grantable:
        click.echo("  (this call cannot be read for certain: it can be allowed once only)", err=True)
        choices = "[o]nce/[d]eny"
    else:
        for glob in request.always_globs:
            click.echo(f"  always adds to approvals.command_allowlist: {printable(glob)}", err=True)
        choices = "[o]nce/[s]ession/[a]lways/[d]eny"
    from engine.policy.approval import normalise_answer  # noqa: PLC0415  (printable alone imports nothing)

    answer = click.prompt(choices, default="d", show_default=True, err=True)
    chosen = normalise_answer(answer) or "deny"
    return chosen if request.grantable or chosen in ("once", "deny") else "deny"
