"""``check``'s verdict as text, and ``check`` run without the command-line library.

``hermes-engine check [--builtin | --root PATH] [--tool T] [--json] COMMAND`` is parsed here
when it has exactly that shape, so a script calling it per command does not import click;
any other shape, and any failure, goes through the full parser (engine.cli.fast), which
reports it as it always has.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.errors import EXIT_INVALID

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


def check_output(root: Path, command: str, tool: str, as_json: bool) -> tuple[int, str]:
    """(exit code, text) of ``check``: 0 only for allow.

    Raises:
        ValidationFailed: the project does not load.
        UsageError: ``root`` is not a project.
    """
    from engine.errors import ValidationFailed  # noqa: PLC0415
    from engine.guard.cache import load_project  # noqa: PLC0415
    from engine.guard.hook import evaluator_for  # noqa: PLC0415

    project, result = load_project(root)
    if project is None:
        raise ValidationFailed(result.problems)
    verdict = evaluator_for(project, Path(project.config.workdir(Path.cwd()))).check(command, tool)
    code = 0 if verdict.decision == "allow" else EXIT_INVALID
    if as_json:
        return code, json.dumps(verdict.as_dict(), indent=2, ensure_ascii=False)
    lines = [verdict.decision + (" (hardline)" if verdict.hardline else "")]
    for match in verdict.matches:
        via = f"  (via {printable(' > '.join(match.via))})" if match.via else ""
        shown = f"{printable(match.key)}: {printable(match.description)} -- {printable(match.command)}"
        lines.append(f"  [{match.severity}] {shown}{via}")
    if verdict.reason and verdict.decision != "allow":
        lines.append(f"  {printable(verdict.reason)}")
    return code, "\n".join(lines)


def check_call(args: list[str]) -> tuple[str | None, bool, str, str, bool] | None:
    """(root, builtin, command, tool, as_json) when ``args`` is ``check`` in the plain shape (each
    option once, one argument not starting with "-", not both --root and --builtin); else None."""
    from engine.cli.plain import plain_options  # noqa: PLC0415

    parsed = plain_options(args[1:], ("--root", "--tool"), ("--builtin", "--json"))
    if parsed is None or len(parsed[1]) != 1:
        return None
    found, [command] = parsed
    root, tool = found.get("--root"), found.get("--tool", "terminal")
    builtin = "--builtin" in found
    if root == "" or (root is not None and builtin):
        return None
    return (str(root) if root is not None else None), builtin, command, str(tool), "--json" in found


def run_check(args: list[str], spec: tuple[str | None, bool, str, str, bool]) -> None:
    """``check`` as its own program, without click; anything but a verdict is left to the full parser."""
    root, builtin, command, tool, as_json = spec
    try:
        if builtin:
            from engine.source.project import builtin_pack_dir  # noqa: PLC0415

            where = builtin_pack_dir()
        else:
            where = Path(root) if root is not None else Path.cwd()
        code, text = check_output(where, command, tool, as_json)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception:  # the full command line reports it (its messages, its exit codes)
        from engine.cli.fast import run_fast  # noqa: PLC0415

        run_fast(args)
        return
    sys.stdout.write(text + "\n")
    sys.exit(code)
