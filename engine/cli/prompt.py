"""The approval prompt at the terminal, and text made safe to print there.

Everything a tool caller controls (the command, paths, descriptions built from
them) is shown with control and format characters escaped, so a `\\r`, an ESC
sequence or a bidi override cannot repaint the prompt to show something else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from engine.policy.approval import ApprovalRequest

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def printable(text: str) -> str:
    """``text`` with every character a terminal would not print as itself escaped (``\\x1b``, ``\\u202e``)."""
    if text.isprintable() and "\\" not in text:
        return text
    out: list[str] = []
    for char in text:
        if char in _NAMED:
            out.append(_NAMED[char])
        elif char.isprintable():
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


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
