"""Rule globs over what the shell will run, not over the text it was given.

A `deny:` glob or a deny/ask rule is tried against every simple command the
parser found (wrappers, `bash -c`, pipes unwrapped), in several spellings, and
hits when any of them matches — the strictest reading: the argv as written, the
command by its basename (`/usr/bin/curl` is `curl`), the words without options
(`npm --loglevel=silent publish`), the words without options and their values;
case-insensitively (hosts are), with abbreviated subcommands and long options
(`npm pub`, `git push --forc`) completed to the glob's own words.

An allow glob (command_allowlist, allow rules) is the opposite: it covers a
command only as written, and only a command whose meaning does not depend on
its context (see engine.policy.scope.is_plain).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from engine.policy.lexer import ShellSyntaxError
from engine.policy.programs import EMPTY, ProgramTable
from engine.policy.regexes import Regex
from engine.policy.scope import is_plain, line_moves
from engine.policy.shell import Command, parse
from engine.records import Record

_QUOTES = re.compile(r"[\"'`]")
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]+")
_LONG_OPTION = re.compile(r"--[a-z0-9][a-z0-9-]*")
_SPECIAL = re.compile(r"[*?\[]")


class Piece(Record, frozen=True):
    """One simple command of a call, as rule globs see it."""

    __slots__ = ("text", "via", "plain", "spellings")  # noqa: RUF023  (the fields' order)

    text: str  # argv joined, as written
    via: tuple[str, ...]
    plain: bool  # its argv alone says what it does (allow globs may cover it)
    spellings: tuple[tuple[str, ...], ...]  # lower-case word lists deny/ask globs are tried on

    def __init__(self, text: str, via: tuple[str, ...], plain: bool, spellings: tuple[tuple[str, ...], ...]) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "via", via)
        object.__setattr__(self, "plain", plain)
        object.__setattr__(self, "spellings", spellings)


def pieces(commands: Iterable[str], programs: ProgramTable = EMPTY) -> tuple[list[str], list[Piece]]:
    """The whole command texts (stripped) and every simple command in them (``programs``: how
    wrappers and shells read their arguments)."""
    lines: list[str] = []
    out: list[Piece] = []
    for text in commands:
        lines.append(text.strip())
        try:
            parsed = parse(text, programs)
        except ShellSyntaxError:
            try:  # judge what the words would do if the quoting were fixed
                parsed = parse(_QUOTES.sub(" ", text), programs)
            except ShellSyntaxError:
                continue
        moves = line_moves(parsed)
        out.extend(Piece(c.text, c.via, is_plain(c) and not moves, _spellings(c)) for c in parsed if c.name)
    return lines, out


def _spellings(command: Command) -> tuple[tuple[str, ...], ...]:
    words = [w.lower() for w in command.argv[1:]]
    name = command.name
    found = {
        tuple(command.text.lower().split(" ")),
        (name, *words),
        (name, *(w for w in words if not w.startswith("-"))),
        (name, *_without_options(words, valued=True)),
    }
    # Global options before the subcommand (`git -C . push`, `npm --loglevel silent publish`),
    # taking a value or not: the rest is kept as written.
    for valued in (True, False):
        rest = _after_leading_options(words, valued)
        found.add((name, *rest))
    return tuple(found)


def _without_options(words: list[str], *, valued: bool) -> list[str]:
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = valued and "=" not in word and word != "--"
            continue
        out.append(word)
    return out


def _after_leading_options(words: list[str], valued: bool) -> list[str]:
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if valued and "=" not in words[i] and words[i] != "--" else 1
    return words[i:]


@functools.lru_cache(maxsize=1024)
def literal_words(glob: str) -> frozenset[str]:
    """The words of a glob up to its first wildcard, lower-case: what abbreviations complete to."""
    out: set[str] = set()
    for word in glob.lower().split():
        cut = _SPECIAL.search(word)
        literal = word[: cut.start()] if cut else word
        if literal:
            out.add(literal)
    return frozenset(out)


def _complete(word: str, literals: frozenset[str]) -> str:
    option, eq, value = word.partition("=")
    if _LONG_OPTION.fullmatch(option):
        full = [lit for lit in literals if lit.startswith(option) and lit != option and lit.startswith("--")]
        return full[0] + eq + value if len(full) == 1 else word
    if not eq and _SUBCOMMAND.fullmatch(word):
        full = [lit for lit in literals if lit.startswith(word) and lit != word and _SUBCOMMAND.fullmatch(lit)]
        return full[0] if len(full) == 1 else word
    return word


def strict_hit(glob: Regex, source: str, lines: list[str], found: list[Piece]) -> bool:
    """Whether a deny/ask glob (compiled case-insensitively) hits any spelling of the call."""
    if any(glob.match(line) for line in lines):
        return True
    literals = literal_words(source)
    for piece in found:
        for words in piece.spellings:
            if glob.match(" ".join(words)):
                return True
            if literals:
                completed = [words[0], *(_complete(w, literals) for w in words[1:])]
                if glob.match(" ".join(completed)):
                    return True
    return False


def hit_texts(glob: Regex, source: str, lines: list[str], found: list[Piece]) -> list[str]:
    """The commands (or whole lines) a deny glob hits, for the verdict's matches."""
    hits = [line for line in lines if glob.match(line)]
    single = [p for p in found if strict_hit(glob, source, [], [p])]
    return list(dict.fromkeys([*(p.text for p in single), *hits]))
