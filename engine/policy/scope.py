"""What an approval covers: a pattern key and the canonical form of what it matched.

A session or "always" grant is ``(tool, key, scope)``. The scope of a match on a
*plain* simple command — no wrapper around it, nothing piped into it, no `cd` on
the line, no redirection but to /dev/null — is that command's argv with paths
resolved (``~`` expanded, relative to the working directory, symlinks followed).
A match in any other context is scoped to the whole call: approving
`curl https://a | sh` never approves `curl https://b | sh`, approving
`ssh a rm -rf /d` never approves `ssh b rm -rf /d`.

A match has no scope — it may be allowed once, never granted — when what it
covers cannot be written down for certain: the detector marked it so, a word is
known only at run time, a normalisation changed the text, the parser cannot read it.
"""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Iterable, Sequence

from engine.policy.lexer import ShellSyntaxError
from engine.policy.model import Match, Verdict
from engine.policy.normalize import readings
from engine.policy.programs import EMPTY, ProgramTable
from engine.policy.shell import Command, parse
from engine.records import Record

# Commands that change what a later relative path on the same line means.
_MOVERS = frozenset({"cd", "pushd", "popd"})
_GLOB_SPECIAL = str.maketrans({"*": "[*]", "?": "[?]", "[": "[[]"})


class Scoped(Record, frozen=True):
    """One match of a request, with what a grant of it would cover."""

    __slots__ = ("match", "scope", "glob")  # noqa: RUF023  (the fields' order)

    match: Match
    scope: str | None  # None: this match may be allowed once, never granted
    glob: str | None  # what "always" records in command_allowlist; None when no glob can say it exactly

    def __init__(self, match: Match, scope: str | None, glob: str | None) -> None:
        object.__setattr__(self, "match", match)
        object.__setattr__(self, "scope", scope)
        object.__setattr__(self, "glob", glob)


def is_plain(command: Command) -> bool:
    """Whether ``command`` means the same wherever it appears: its argv alone says what it does."""
    if command.via or command.fed_by or command.stdin or command.depth or command.cwd is not None:
        return False
    if command.reread:  # `git --new-opt VAL push` read as `git push`: not the command as written
        return False
    if command.is_dynamic or any(command.dynamic):
        return False
    return all(_harmless_redirect(op, target) for op, target in command.redirects)


def _harmless_redirect(op: str, target: str) -> bool:
    if target == "/dev/null":
        return True
    return op in (">&", "<&") and (target.isdigit() or target == "-")


def line_moves(commands: Iterable[Command]) -> bool:
    """A `cd` (or pushd/popd) anywhere on the line: relative paths depend on where it ran."""
    return any(c.name in _MOVERS for c in commands)


def glob_literal(text: str) -> str:
    """``text`` as a command_allowlist glob that matches exactly it."""
    return text.translate(_GLOB_SPECIAL)


def resolve_path(word: str, base: str) -> str:
    """A path word as the file it names: ``~`` expanded, joined to ``base``, symlinks followed."""
    path = os.path.expanduser(word) if word.startswith("~") else word
    resolved = os.path.realpath(posixpath.join(base, path))
    # `rm -rf link` removes a link, `rm -rf link/` what it points to: keep them apart.
    return resolved + "/" if word.endswith(("/", "/.")) and resolved != "/" else resolved


def _word(word: str, base: str) -> str:
    if "://" in word:
        return word
    if word.startswith("-") and "=" in word:
        option, _, value = word.partition("=")
        return f"{option}={_word(value, base)}" if value else word
    if word.startswith("~") or "/" in word or word in (".", ".."):
        return resolve_path(word, base)
    return word


def canonical(command: Command, workdir: str) -> list[object] | None:
    """The command as a comparable value, or None when it is not known before it runs."""
    if command.is_dynamic or any(command.dynamic):
        return None
    base = workdir
    if command.cwd is not None:
        if command.cwd.startswith("$"):
            return None
        base = resolve_path(command.cwd, workdir)
    words = [command.name, *(_word(w, base) for w in command.argv[1:])]
    redirects = [[op, _word(target, base)] for op, target in command.redirects]
    return [list(command.via), words, redirects, command.stdin, sorted(command.fed_by), command.depth]


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def scope_matches(
    tool: str,
    verdict: Verdict,
    values: Sequence[str],
    workdir: str,
    cwd: str | None = None,
    programs: ProgramTable = EMPTY,
) -> tuple[Scoped, ...]:
    """Each match of ``verdict`` with the scope a grant of it would have.

    ``values`` are the call's guarded argument values as the tool receives them;
    ``verdict.commands`` the values that were read as commands; ``cwd`` the directory
    the call runs in when it names one (the terminal's argument), relative to ``workdir``;
    ``programs`` the Programs table the detector read them with (a match reached through a
    wrapper or an executor is found, and counted, where the detector found it).
    """
    if cwd:
        # Where it runs is part of what it does: `rm -rf build` in another directory is another delete.
        workdir = resolve_path(cwd, workdir)
    matches = verdict.matches
    # Text a normalisation changed (escapes, invisible characters): what was judged is not what runs.
    if any(readings(v).extra for v in values):
        return tuple(Scoped(m, None, None) for m in matches)
    lines: list[list[Command]] = []
    try:
        lines = [parse(text, programs) for text in verdict.commands]
    except ShellSyntaxError:
        return tuple(Scoped(m, None, None) for m in matches)
    moves = any(line_moves(line) for line in lines)
    canonicals = [[canonical(c, workdir) for c in line] for line in lines]
    unknown = any(c is None for line in canonicals for c in line)
    whole = None if unknown else _dump(["call", workdir, canonicals])
    out: list[Scoped] = []
    for match in matches:
        if not match.grantable or match.key == "unparseable":
            out.append(Scoped(match, None, None))
        elif match.key.startswith("hook:"):
            out.append(Scoped(match, _dump(["hook", tool, match.description]), None))
        elif not lines:  # a path argument: the file it lands on
            out.append(Scoped(match, _dump(["path", resolve_path(match.command, workdir)]), None))
        else:
            located = [
                canonical(c, workdir)
                for line in lines
                for c in line
                if c.text == match.command and c.via == match.via and is_plain(c)
            ]
            plain = bool(located) and not moves and not cwd and len(located) == _count(lines, match)
            if plain:
                scope = _dump(["command", sorted({_dump(c) for c in located})])
                out.append(Scoped(match, scope, glob_literal(match.command)))
            else:
                out.append(Scoped(match, whole, None))
    return tuple(out)


def _count(lines: list[list[Command]], match: Match) -> int:
    """How many commands of the call the match's text stands for (all must be plain)."""
    return sum(1 for line in lines for c in line if c.text == match.command and c.via == match.via)
