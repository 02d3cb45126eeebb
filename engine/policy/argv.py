"""How a program reads its arguments: getopt_long, written as data.

A program's grammar comes from the Programs table (policies/executors.yaml):
short options in getopt(3) syntax, long options (abbreviated to any unique
prefix, as getopt_long accepts), option values a program refuses, operands it
reads before the command it runs, and NAME=VALUE words. Parsing an argv the way
the program would is what lets `timeout --foreground echo reboot` be `echo`,
`git -C dir reset --ha` be `git reset --hard`, and `env -iS'sh -c x'` be `sh -c x`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from operator import attrgetter

from engine.records import MISSING, fields_repr, native_record

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

NONE: Final = 0
REQUIRED: Final = 1
OPTIONAL: Final = 2
# (fp45) A long option taking two words after it (`jq --arg NAME VALUE`), spelled `NAME==` in a row's `long`; the
# value recorded is the second word. Given as `--NAME=X`, it is read as an option the grammar does not know.
PAIR: Final = 3
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class GrammarError(ValueError):
    """A getopt string or long-option spelling that does not parse."""


_GRAMMAR_FIELDS = (
    "short",
    "long",
    "aliases",
    "stop_at_operand",
    "plus",
    "long_only",
    "traditional",
    "ignore_case",
    "first_match",
    "values",
    "leading",
    "assignments",
    "ends_options",
    "no_command_with",
    "runs_nothing",
    "runs_nothing_unless",
    "conflicts",
    "chdir",
    "clears_environment",
    "unsets_variable",
    "paths_in",
    "lone_dash",
    "input_from",
    "next_value",
    "hosts",
    "pattern",
    "quiet_with",
    "apart",
    "short_equals",
)


class Grammar:
    """The option syntax of one program (or of one of its subcommands).

    A native class under mypyc (docs/compiled.md): a check reads its fields as C struct members
    (as a frozen record, each read was a lookup through its ``__slots__`` descriptor, ~150
    instructions, dozens a check). It behaves as the record it was (equality and hash by its
    fields, its repr); the guard's cache pickles it field by field (engine.records.NATIVE_RECORDS).
    Nothing assigns a field after ``__init__``."""

    __slots__ = _GRAMMAR_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _GRAMMAR_FIELDS

    short: Final[Mapping[str, int]]  # letter -> NONE/REQUIRED/OPTIONAL
    long: Final[Mapping[str, int]]  # name -> NONE/REQUIRED/OPTIONAL
    aliases: Final[Mapping[str, str]]  # long name <-> letter, both ways
    stop_at_operand: Final[bool]  # getopt's leading '+': options end at the first operand
    plus: Final[bool]  # `+x` words are options too (shells)
    long_only: Final[bool]  # `-name` is a long option when it names one (getopt_long_only)
    traditional: Final[bool]  # a dashless first word of option letters is options (tar xzf A.tar)
    ignore_case: Final[bool]
    first_match: Final[bool]  # an ambiguous prefix is the first long option it abbreviates (PowerShell)
    values: Final[Mapping[str, Any]]  # option -> the values it accepts (a fullmatch())
    leading: Final[tuple[Any, ...]]  # operands read before the command (timeout DURATION), each a fullmatch()
    assignments: Final[str]  # NAME=VALUE words before the command: none | identifier | any
    ends_options: Final[frozenset[str]]  # options after which every word is an operand (python -c)
    no_command_with: Final[frozenset[str]]  # options that make the program refuse a command (env -0)
    # Options with which it prints its help or version, or only parses, and exits: nothing runs (help38; see
    # runs_nothing). Not with any of `runs_nothing_unless` (an interactive shell ignores -n).
    runs_nothing: Final[frozenset[str]]
    runs_nothing_unless: Final[frozenset[str]]
    conflicts: Final[tuple[frozenset[str], ...]]  # options the program refuses together (su -m -w)
    chdir: Final[frozenset[str]]  # options naming the directory the command runs in (env -C)
    clears_environment: Final[frozenset[str]]  # options with which the command it runs gets no variable (env -i)
    unsets_variable: Final[frozenset[str]]  # options naming a variable the command it runs does not get (env -u)
    paths_in: Final[frozenset[str]]  # options naming the directory its own paths are read in (git --work-tree)
    lone_dash: Final[str]  # the option a lone `-` before the command stands for (env's `-` is -i); "" none
    input_from: Final[frozenset[str]]  # options naming a file the program reads as it reads its input (sftp -b)
    # (xf46) Letters whose optional value, not attached, is the next word when that is no option (sudo's `-h HOST`:
    # `sudo -h reboot ls` runs ls; a lone `sudo -h` prints its help)
    next_value: Final[frozenset[str]]
    # (holes39) The operands (by index) that name hosts or host patterns (salt's target, ansible's pattern, ssh's
    # host): no path of this machine, whatever globs they hold (`salt '*' test.ping`)
    hosts: Final[tuple[int, ...]]
    # (fp44b) Options that give the program its pattern or filter (grep's -e/-f, jq's -f): without one of them, its
    # first operand is a pattern or a filter (`grep .key f`, `jq .key f.json`), read by no path class. None: no
    # operand of the program is one.
    pattern: Final[frozenset[str] | None]
    # (xf47) Options with which it writes nothing on its output (grep's -q): its pattern operand known only when it
    # runs (`grep -qF "$V" f`) is read by no path class, whatever option it turns out to be (`-Rv` reads the tree
    # and prints none of it)
    quiet_with: Final[frozenset[str]]
    # (unseen49) Each letter of a short option word is an option, and one that takes a value takes the next word
    # after the word, in order, never the rest of its own word (tree's `-oa FILE`: -o's value is FILE, -a a flag)
    apart: Final[bool]
    # (stop 54) A short option's value written `-o=VALUE` is VALUE (clap's and lexopt's reading: uv, cargo, rg, fd),
    # not `=VALUE` as getopt reads it (`uv export -o=../notes.txt` wrote the note above the project)
    short_equals: Final[bool]

    def __init__(
        self,
        short: Mapping[str, int] = MISSING,
        long: Mapping[str, int] = MISSING,
        aliases: Mapping[str, str] = MISSING,
        stop_at_operand: bool = False,
        plus: bool = False,
        long_only: bool = False,
        traditional: bool = False,
        ignore_case: bool = False,
        first_match: bool = False,
        values: Mapping[str, Any] = MISSING,
        leading: tuple[Any, ...] = (),
        assignments: str = "none",
        ends_options: frozenset[str] = frozenset(),
        no_command_with: frozenset[str] = frozenset(),
        runs_nothing: frozenset[str] = frozenset(),
        runs_nothing_unless: frozenset[str] = frozenset(),
        conflicts: tuple[frozenset[str], ...] = (),
        chdir: frozenset[str] = frozenset(),
        clears_environment: frozenset[str] = frozenset(),
        unsets_variable: frozenset[str] = frozenset(),
        paths_in: frozenset[str] = frozenset(),
        lone_dash: str = "",
        input_from: frozenset[str] = frozenset(),
        next_value: frozenset[str] = frozenset(),
        hosts: tuple[int, ...] = (),
        pattern: frozenset[str] | None = None,
        quiet_with: frozenset[str] = frozenset(),
        apart: bool = False,
        short_equals: bool = False,
    ) -> None:
        self.short = {} if short is MISSING else short
        self.long = {} if long is MISSING else long
        self.aliases = {} if aliases is MISSING else aliases
        self.stop_at_operand = stop_at_operand
        self.plus = plus
        self.long_only = long_only
        self.traditional = traditional
        self.ignore_case = ignore_case
        self.first_match = first_match
        self.values = {} if values is MISSING else values
        self.leading = leading
        self.assignments = assignments
        self.ends_options = ends_options
        self.no_command_with = no_command_with
        self.runs_nothing = runs_nothing
        self.runs_nothing_unless = runs_nothing_unless
        self.conflicts = conflicts
        self.chdir = chdir
        self.clears_environment = clears_environment
        self.unsets_variable = unsets_variable
        self.paths_in = paths_in
        self.lone_dash = lone_dash
        self.input_from = input_from
        self.next_value = next_value
        self.hosts = hosts
        self.pattern = pattern
        self.quiet_with = quiet_with
        self.apart = apart
        self.short_equals = short_equals

    def canonical(self, name: str) -> str:
        """The one name an option is known by in payload rules: its letter when it has one."""
        if len(name) > 1:
            return self.aliases.get(name, name)
        return name

    def names(self, name: str) -> tuple[str, ...]:
        """Every spelling of an option (its letter and its long name)."""
        other = self.aliases.get(name)
        return (name, other) if other else (name,)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_grammar_fields(self) == _grammar_fields(other))

    def __hash__(self) -> int:
        return hash(_grammar_fields(self))

    def __repr__(self) -> str:
        return fields_repr(self, _GRAMMAR_FIELDS)

    def resolve_long(self, name: str) -> list[str]:
        """Long options ``name`` may stand for: an exact name, or every one it is a prefix of."""
        key = name.lower() if self.ignore_case else name
        if key in self.long:
            return [key]
        found = [n for n in self.long if n.startswith(key)] if key else []
        return found[:1] if self.first_match else found


_grammar_fields = attrgetter(*_GRAMMAR_FIELDS)
native_record(Grammar)

_PARSED_FIELDS = (
    "options",
    "operands",
    "assignments",
    "operand_at",
    "start",
    "rest",
    "refused",
    "unknown",
    "levels",
    "quiet",
)


# Marks, in Parsed.present(), an option given without a value
BARE: Final = "\x00"


class Parsed:
    """An argv as its program reads it."""

    __slots__ = _PARSED_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    options: list[tuple[str, str | None, int]]  # (canonical name, value, index of the word it came from)
    operands: list[str]
    assignments: list[tuple[str, str]]
    operand_at: list[int]  # index of each operand in argv
    start: int  # index of the first word read (after the program, or after its subcommand)
    rest: int | None  # index where the command it runs begins
    refused: bool  # the program would refuse these arguments: nothing runs
    unknown: bool  # some option is not in the grammar (read as a flag without a value)
    # The subcommands it was read down to, with their readings ([(program, Parsed)], below the
    # program itself; follow.subcommand_levels).
    levels: list[tuple[Any, Parsed]] | None
    # It prints its help or version, or only parses, and exits (its grammar's `runs_nothing`): `refused` too,
    # and no hardline reading of its own words (`systemctl --help reboot`)
    quiet: bool

    def __init__(
        self,
        options: list[tuple[str, str | None, int]],
        operands: list[str],
        assignments: list[tuple[str, str]],
        operand_at: list[int],
        start: int = 1,
        rest: int | None = None,
        refused: bool = False,
        unknown: bool = False,
        levels: list[tuple[Any, Parsed]] | None = None,
        quiet: bool = False,
    ) -> None:
        self.options = options
        self.operands = operands
        self.assignments = assignments
        self.operand_at = operand_at
        self.start = start
        self.rest = rest
        self.refused = refused
        self.unknown = unknown
        self.levels = levels
        self.quiet = quiet

    def all_operands(self, argv: Sequence[str]) -> list[str]:
        """Operands before the command and, for a program that stops at its first operand, the rest."""
        return self.operands + list(argv[self.rest :]) if self.rest is not None else self.operands

    def has(self, names: frozenset[str]) -> bool:
        return any(name in names for name, _, _ in self.options)

    def present(self) -> frozenset[str]:
        """The names of the options given, and BARE before the name of each given without a value, or an empty one
        (a Run's `if_bare`: `node -p`, `node --print=` with no program read their input as one)."""
        return frozenset(
            [name for name, _, _ in self.options] + [BARE + name for name, value, _ in self.options if not value]
        )

    def values(self, names: frozenset[str]) -> list[str]:
        return [value for name, value, _ in self.options if name in names and value is not None]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_parsed_fields(self) == _parsed_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _PARSED_FIELDS)


_parsed_fields = attrgetter(*_PARSED_FIELDS)


def abbreviates(name: str, longs: frozenset[str] | tuple[str, ...]) -> bool:
    """Whether ``name`` (a long option's name, without its `--` and `=VALUE`) is one of ``longs`` or a prefix
    of one: getopt_long takes an unambiguous prefix (`--files-w` is --files-with-matches, `--f=-` is
    --files0-from for wc; redt36, redt37). A caller that cannot tell it is ambiguous reads it as each."""
    return bool(name) and any(long.startswith(name) for long in longs)


def parse_getopt(spec: str) -> tuple[dict[str, int], bool, bool]:
    """`+ab:c::` → ({a: NONE, b: REQUIRED, c: OPTIONAL}, stop_at_operand, plus).

    A leading ``+`` stops at the first operand; a leading ``±`` also reads `+x` words
    as options (shells).

    Raises:
        GrammarError: a ``:`` with no option letter before it.
    """
    stop = plus = False
    if spec.startswith("±"):
        stop = plus = True
        spec = spec[1:]
    elif spec.startswith("+"):
        stop = True
        spec = spec[1:]
    out: dict[str, int] = {}
    i = 0
    while i < len(spec):
        letter = spec[i]
        if letter == ":":
            raise GrammarError(f"':' at {i} follows no option letter")
        kind = NONE
        if spec.startswith("::", i + 1):
            kind = OPTIONAL
            i += 2
        elif spec.startswith(":", i + 1):
            kind = REQUIRED
            i += 1
        out[letter] = kind
        i += 1
    return out, stop, plus


_LONG = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)(==|=\??)?(?:/(.))?$")


def parse_long(items: Sequence[str]) -> tuple[dict[str, int], dict[str, str]]:
    """`["unset=/u", "debug/v", "color=?", "arg=="]` → ({unset: REQUIRED, ..., arg: PAIR}, {unset: u, u: unset, ...}).

    Raises:
        GrammarError: a spelling that is not NAME, NAME=, NAME=? or NAME== with an optional /LETTER.
    """
    long: dict[str, int] = {}
    aliases: dict[str, str] = {}
    for item in items:
        match = _LONG.match(item)
        if match is None:
            raise GrammarError(f"{item!r} is not NAME, NAME=, NAME=? or NAME== (optionally /LETTER)")
        name, arg, letter = match.groups()
        long[name] = NONE if not arg else OPTIONAL if arg == "=?" else PAIR if arg == "==" else REQUIRED
        if letter:
            aliases[name] = letter
            aliases[letter] = name
    return long, aliases


def parse_argv(grammar: Grammar, argv: Sequence[str], start: int = 1) -> Parsed:
    """Read ``argv[start:]`` as the program would (argv[0] is the program)."""
    options: list[tuple[str, str | None, int]] = []
    operands: list[str] = []
    assignments: list[tuple[str, str]] = []
    operand_at: list[int] = []
    parsed = Parsed(options, operands, assignments, operand_at, start)
    n = len(argv)
    i = start
    leading = grammar.leading
    plus = grammar.plus
    ends = grammar.ends_options
    assigns = grammar.assignments != "none"
    stop = grammar.stop_at_operand
    options_done = False
    if grammar.traditional and i < n and _traditional(grammar, argv[i]):
        i = _traditional_options(grammar, argv, i, parsed)
    while i < n:
        word = argv[i]
        if not options_done and len(word) > 1 and (word[0] == "-" or (plus and word[0] == "+")):
            if word == "--":
                options_done = True
                i += 1
                continue
            i = _option(grammar, argv, i, parsed)
            if ends and options and options[-1][0] in ends:
                # (xfail40) the words after it are operands, and the first is where its command starts (`rest`),
                # whether or not the grammar's options end at the first operand (`+`)
                options_done = stop = True
            continue
        if assigns and not operands and _is_assignment(grammar, word):
            name, _, value = word.partition("=")
            assignments.append((name, value))
            i += 1
            # Assignments end option parsing: `env A=1 -i` runs the command `-i`.
            options_done = True
            continue
        if word == "-" and grammar.lone_dash and not options_done and not operands:
            options.append((grammar.lone_dash, None, i))  # `env - rm -rf x`: `-` is `-i`
            i += 1
            continue
        if leading and len(operands) < len(leading):
            if not leading[len(operands)].fullmatch(word):
                parsed.refused = True  # `timeout echo x`: no valid DURATION, nothing runs
                return parsed
        elif stop:
            parsed.rest = i
            break
        operands.append(word)
        operand_at.append(i)
        i += 1
    if grammar.values:
        for option, given, _ in options:
            accepted = grammar.values.get(option)
            if accepted is not None and (given is None or not accepted.fullmatch(given)):
                if given is None and grammar.short.get(option) == OPTIONAL:
                    continue  # an optional value left out (`perl -l`)
                parsed.refused = True
    if grammar.no_command_with and parsed.rest is not None and parsed.has(grammar.no_command_with):
        parsed.refused = True
    if grammar.conflicts:
        present = {name for name, _, _ in options}
        if any(group <= present for group in grammar.conflicts):
            parsed.refused = True
    if grammar.runs_nothing and options and runs_nothing(grammar, argv, parsed):
        parsed.quiet = parsed.refused = True
    return parsed


def runs_nothing(grammar: Grammar, argv: Sequence[str], parsed: Parsed) -> bool:
    """Whether one of the grammar's `runs_nothing` options makes the program print its help or version, or only
    parse, and exit before it runs anything (`sudo --help rm -rf /`, `systemctl --hel reboot`, `bash -n -c TEXT`).

    Fail closed: only such an option before the first operand (with POSIXLY_CORRECT a later `--help` is an
    operand: `rm -rf / --help`), in a reading that met no option the grammar does not know (it may take the
    word after it as its value), with none of `runs_nothing_unless` (`bash -n -i` runs), and, for a grammar
    whose `+x` words are options, no such word (`bash -n +n -c TEXT` runs TEXT; `+o noexec` too)."""
    if parsed.unknown or not system_program(argv[0] if argv else ""):
        return False
    first = parsed.operand_at[0] if parsed.operand_at else parsed.rest if parsed.rest is not None else len(argv)
    quiet = grammar.runs_nothing
    unless = grammar.runs_nothing_unless
    plus = grammar.plus
    found = False
    for name, _, at in parsed.options:
        if name in unless or (plus and argv[at][:1] == "+"):
            return False
        if name in quiet and at < first:
            found = True
    return found


def runs_nothing_later(grammar: Grammar, argv: Sequence[str], parsed: Parsed) -> bool:
    """(holes39) Whether one of a permuting grammar's `runs_nothing` options follows its first operand
    (`shutdown now --help`, `systemctl reboot -h`): getopt permutes it before the operand, and the program
    prints and exits, unless POSIXLY_CORRECT is in its environment (then it is an operand, and the verb runs).
    Not known for certain here, so not `runs_nothing`: the caller decides what the doubt weighs. The same
    conditions as runs_nothing otherwise (no unknown option, no `runs_nothing_unless`, a system program)."""
    if grammar.stop_at_operand or not grammar.runs_nothing or parsed.unknown or parsed.quiet or parsed.refused:
        return False
    if not parsed.operand_at or not system_program(argv[0] if argv else ""):
        return False
    quiet = grammar.runs_nothing
    unless = grammar.runs_nothing_unless
    found = False
    for name, _, _ in parsed.options:
        if name in unless:
            return False
        if name in quiet:
            found = True
    return found


# The folders a system's own programs are in (adv38, xfail40, adv40b): a program named by a path elsewhere (`./sudo`,
# `bin/nice`, `~/x/env`), or found there by a PATH the line set, may be any file the caller put there (a copy of dash
# named sudo runs `-V -c TEXT`). One list for every reader: the `--help` lowering (runs_nothing), shell's reading of
# a planted program (_unwrap), follow's program named by an option (`scp -S PROG`).
SYSTEM_FOLDERS: Final = (
    "/bin/",
    "/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
    "/usr/libexec/",
    "/opt/homebrew/bin/",
    "/opt/homebrew/sbin/",
    "/run/current-system/sw/bin/",
    "/nix/var/nix/profiles/",
    "/snap/bin/",
    "/usr/lib/",
    "/lib/",
    # the dynamic loader's own (`/lib64/ld-linux-x86-64.so.2 --list PROG`, test_policy_shell)
    "/lib64/",
    "/usr/lib64/",
    "/lib32/",
    "/usr/lib32/",
)


# (adv41b) The library folders hold more than the system's programs: package managers install their trees there,
# and as root `npm link` makes /usr/lib/node_modules/NAME a link to the caller's folder (`npm link` then
# `/usr/lib/node_modules/NAME/sudo -V -c TEXT` ran the caller's ./sudo unread). A program in one counts only in the
# folder itself or one folder below it (/usr/lib/git-core/git, /usr/lib/openssh/sftp-server, /lib64/ld-linux-...).
_LIBRARY_FOLDERS: Final = ("/usr/lib/", "/lib/", "/lib64/", "/usr/lib64/", "/lib32/", "/usr/lib32/", "/usr/libexec/")
# (adv41b) Nix's per-user profiles are the users' own (each user's folder is theirs; `nix-env -p` puts any derivation
# there): no system folder
_USERS_FOLDERS: Final = ("/nix/var/nix/profiles/per-user/",)


def in_system_folder(path: str) -> bool:
    """Whether ``path`` (a program's, or a PATH entry's with `/` added) is in one of SYSTEM_FOLDERS as the kernel
    resolves it. `/./` and `//` inside are read away; a leading `//` is not (POSIX leaves its meaning to the
    system). A path with `..` is not: `/usr/bin/../../tmp/sudo` is /tmp/sudo, and `/tmp/l/../../usr/bin/sudo` is
    wherever the link /tmp/l leads two folders up, not /usr/bin (the kernel follows a link before it reads `..`:
    no reading of the words alone says where it lands)."""
    if "/." in path or "//" in path:
        if "/.." in path:
            return False
        path = posixpath.normpath(path) + ("/" if path.endswith("/") else "")
    if not path.startswith(SYSTEM_FOLDERS) or path.startswith(_USERS_FOLDERS):
        return False
    for folder in _LIBRARY_FOLDERS:
        if path.startswith(folder):
            # (adv41b) at most one folder below a library folder (/usr/lib/git-core/git, /usr/libexec/x)
            return path.count("/", len(folder)) <= 1
    return True


def system_program(word: str) -> bool:
    """Whether ``word`` names a program by its name alone (found on PATH) or in one of the system's folders."""
    return "/" not in word or in_system_folder(word)


def without_unknown_values(grammar: Grammar, argv: Sequence[str], parsed: Parsed) -> list[int] | None:
    """The indices left when every option the grammar does not know takes the word after it as
    its value (`docker --new-opt VAL rm -f web`): the other reading of an unknown option, which a
    newer version of the program than the table describes may have. None when nothing changes.

    Only options before the first operand (where a program's verb or command starts) count: the
    words are walked once, each unknown option taking the word after it (a lone `-` too), known
    ones their values, up to the first word left that is no option."""
    if not parsed.unknown:
        return None
    dropped: set[int] = set()
    scratch = Parsed([], [], [], [], parsed.start)
    n = len(argv)
    i = parsed.start
    while i < n:
        word = argv[i]
        if word == "--" or len(word) < 2 or word[0] != "-":
            break
        value = argv[i + 1] if i + 1 < n else "-x"  # (none: an option word, never a value)
        if "=" not in word and (value[:1] != "-" or value == "-") and _unknown_last(grammar, word):
            dropped.update((i, i + 1))
            i += 2
            continue
        i = _option(grammar, argv, i, scratch)
    if not dropped:
        return None
    return [j for j in range(len(argv)) if j not in dropped]


def _unknown_last(grammar: Grammar, word: str) -> bool:
    """Whether the option word ends in an option the grammar does not know (so it may take a value)."""
    if word.startswith("--"):
        return len(grammar.resolve_long(word[2:])) != 1
    if grammar.long_only and len(grammar.resolve_long(word[1:])) == 1:
        return False
    letters = word[1:]
    for j, letter in enumerate(letters):
        kind = grammar.short.get(letter if not grammar.ignore_case else letter.lower())
        if kind is None:
            return j == len(letters) - 1
        if kind != NONE:
            return False  # a known option with a value takes the rest of the word
    return False


def _is_assignment(grammar: Grammar, word: str) -> bool:
    if grammar.assignments == "none" or "=" not in word:
        return False
    return grammar.assignments == "any" or _IDENTIFIER.match(word) is not None


def _traditional(grammar: Grammar, word: str) -> bool:
    return bool(word) and word[0] not in "-+" and all(letter in grammar.short for letter in word)


def _traditional_options(grammar: Grammar, argv: Sequence[str], i: int, parsed: Parsed) -> int:
    """tar's old style: `tar cvzf A.tar DIR` is `-c -v -z -f A.tar DIR` (values in order after the
    letters). Returns the index of the first word after the option values."""
    return _letters_in_order(grammar, argv, i, argv[i], parsed)


def _apart_options(grammar: Grammar, argv: Sequence[str], i: int, parsed: Parsed) -> int:
    """(unseen49) tree's short options: `tree -oa FILE` is `-o FILE -a` (a letter that takes a value takes the next
    word after the option word, in order, as tar's old style does; `-oout` is -o, -o, -u, -t). Returns the index of
    the first word after the values."""
    return _letters_in_order(grammar, argv, i, argv[i][1:], parsed)


def _letters_in_order(grammar: Grammar, argv: Sequence[str], i: int, letters: str, parsed: Parsed) -> int:
    """(debt50) The option letters ``letters`` of the word ``argv[i]``, each a flag or one that takes the next word
    after the option word, in order (tar's old style, tree's short options); a letter the grammar does not know is
    a flag, and the parse is then not known for certain. Returns the index of the first word after the values."""
    following = i + 1
    for letter in letters:
        found = grammar.short.get(letter)
        if found is None:
            parsed.unknown = True
            parsed.options.append((letter, None, i))
        elif found == REQUIRED:
            if following >= len(argv):
                parsed.refused = True
                return following
            # Recorded one before its value, as a `-x VALUE` pair is (the value is at index + 1).
            parsed.options.append((letter, argv[following], following - 1))
            following += 1
        else:
            parsed.options.append((letter, None, i))
    return following


def _option(grammar: Grammar, argv: Sequence[str], i: int, parsed: Parsed) -> int:
    """Read the option word at ``argv[i]``; return the index of the next word."""
    word = argv[i]
    options = parsed.options
    long_form = word.startswith("--")
    if long_form or (grammar.long_only and word[0] == "-" and _long_only_match(grammar, word[1:])):
        body = word[2:] if long_form else word[1:]
        name, eq, value = body.partition("=")
        matches = grammar.resolve_long(name)
        if len(matches) != 1:
            # Unknown or ambiguous: getopt_long would refuse it; read it as a flag (and as every
            # option it may abbreviate) so a grammar that lists one option too many or too few
            # never hides what the command does.
            parsed.unknown = True
            options.append((name.lower() if grammar.ignore_case else name, value if eq else None, i))
            options.extend((grammar.canonical(full), None, i) for full in matches)
            return i + 1
        full = matches[0]
        kind = grammar.long[full]
        canonical = grammar.canonical(full)
        if kind == PAIR:
            if eq:
                parsed.unknown = True  # `--arg=k v`: not a spelling the program is known to read
                options.append((canonical, value, i))
                return i + 1
            if i + 2 >= len(argv):
                parsed.refused = True
                return len(argv)
            options.append((canonical, argv[i + 2], i))
            return i + 3
        if kind == REQUIRED and not eq:
            if i + 1 >= len(argv):
                parsed.refused = True
                return i + 1
            options.append((canonical, argv[i + 1], i))
            return i + 2
        if kind == OPTIONAL and not eq and canonical in grammar.next_value and _next_value(argv, i):
            options.append((canonical, argv[i + 1], i))  # `node --print CODE`, as its short `-p CODE`
            return i + 2
        options.append((canonical, value if eq and kind != NONE else None, i))
        if eq and kind == NONE:
            parsed.refused = True  # `--force=x`: "option doesn't allow an argument"
        return i + 1
    if grammar.apart:
        return _apart_options(grammar, argv, i, parsed)
    short = grammar.short
    j = 1
    while j < len(word):
        letter = word[j]
        if grammar.ignore_case and letter not in short:
            letter = letter.lower()
        found = short.get(letter)
        if found is None:
            parsed.unknown = True
            options.append((letter, None, i))
            j += 1
            continue
        if found == NONE:
            options.append((letter, None, i))
            j += 1
            continue
        attached = word[j + 1 :]
        if attached[:1] == "=" and grammar.short_equals:
            options.append((letter, attached[1:], i))  # `-o=` is an empty value, as clap reads it
            return i + 1
        if attached:
            if found == OPTIONAL and grammar.values:
                accepted = grammar.values.get(letter)
                if accepted is not None and not accepted.fullmatch(attached):
                    # An optional value the program reads only as far as it accepts it (perl's `-l`
                    # octal digits, `-d`'s `t:MOD`): the letters after it are options (`perl -lne`,
                    # `-de`; fresh37a). The longest accepted prefix, none when it accepts none.
                    k = min(len(attached), 16)
                    while k > 0 and not accepted.fullmatch(attached[:k]):
                        k -= 1
                    options.append((letter, attached[:k] or None, i))
                    j += 1 + k
                    continue
            options.append((letter, attached, i))
            return i + 1
        if found == OPTIONAL:
            if letter in grammar.next_value and _next_value(argv, i):
                options.append((letter, argv[i + 1], i))
                return i + 2
            options.append((letter, None, i))
            return i + 1
        if i + 1 >= len(argv):
            parsed.refused = True
            return i + 1
        options.append((letter, argv[i + 1], i))
        return i + 2
    return i + 1


def _next_value(argv: Sequence[str], i: int) -> bool:
    """Whether the word after an optional-valued option of `next_value` is its value: one that is there and
    does not start with `-` (nor is empty)."""
    return i + 1 < len(argv) and argv[i + 1][:1] not in ("-", "")


def _long_only_match(grammar: Grammar, body: str) -> bool:
    """getopt_long_only: `-ex` is a long option if it names one; otherwise short letters."""
    name = body.partition("=")[0]
    if len(name) == 1 and name in grammar.short:
        return False
    return len(grammar.resolve_long(name)) >= 1


_STOPPING: dict[int, tuple[Grammar, Grammar]] = {}


def stopping(grammar: Grammar) -> Grammar:
    """``grammar`` with its options ending at the first operand (getopt under POSIXLY_CORRECT, or with `+`)."""
    kept = _STOPPING.get(id(grammar))
    if kept is not None and kept[0] is grammar:
        return kept[1]
    made = Grammar(
        **{name: getattr(grammar, name) for name in _GRAMMAR_FIELDS if name != "stop_at_operand"},
        stop_at_operand=True,
    )
    _STOPPING[id(grammar)] = (grammar, made)
    return made
