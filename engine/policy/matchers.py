"""Compiled danger patterns: structural matchers over parsed commands, and path matchers."""

from __future__ import annotations

import itertools
import os
import posixpath
import re
from collections.abc import Mapping, Sequence
from operator import attrgetter

from engine.policy.argv import PAIR, Grammar, Parsed, parse_argv
from engine.policy.commands import option_values
from engine.policy.dataonly import data_only
from engine.policy.inline import CODE_STRINGS, HOME_EXPRESSIONS, JOINED_HINT, joined_literals
from engine.policy.paths import (
    ENGINE_CLASSES,
    EXPANSION_CLASSES,
    SECRET_HOLDER,
    Classes,
    View,
    forms_of,
    literal_fragments,
)
from engine.policy.programs import reads_input_program, subcommand_levels
from engine.policy.regexes import AnchoredRun, Regex, RegexError, compile_glob, compile_linear, search_among
from engine.policy.shell import Command
from engine.records import fields_repr, native_record

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

    from engine.policy.programs import Program

_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
# (adv53) and `<>`: opened for writing at the file's start, what the command prints replaces its first bytes (`echo x
# 1<>~/notes.txt` overwrote the user's note)
_TRUNCATING: Final = frozenset({">", ">|", "&>", ">&", "<>"})
_INPUT_REDIRECTS = frozenset({"<", "<>"})
# A string literal, quotes and all (no groups: `findall` of 17,000 literals then makes no tuples,
# and each distinct literal is unquoted once; the unrolled loop is the same language, ~10% faster).
_CODE_STRINGS = CODE_STRINGS
# A home path as a bare word of a Tcl program (`open ~/.ssh/id_rsa`, `$env(HOME)/.aws/credentials`), where
# a word needs no quotes: after a blank or a bracket (fresh37b).
_BARE_HOME = re.compile(r"(?:^|(?<=[\s\[{]))(?:~|\$(?:::)?env\(HOME\))(/[^\s\[\]{}();\"'<>|&]*)")
_MAX_BARE = 64  # bare home paths read per program
_BARE_WORD_LANGUAGES = frozenset({"tclsh", "wish", "expect"})


def bare_home_paths(code: str) -> list[str]:
    """The home paths a Tcl program writes as bare words, as `~/…`."""
    return ["~" + found.group(1) for found in itertools.islice(_BARE_HOME.finditer(code), _MAX_BARE)]


_CODE_HOME = re.compile(r"\$ENV\{HOME\}|process\.env\.HOME|os\.environ\[['\"]HOME['\"]\]|Dir\.home|\$HOME")
# A relative path literal: a name with a folder in it, or a dot file (`policies/x.yaml`, `.bashrc`).
_CODE_RELATIVE = re.compile(r"(?:[\w.-]+/)+[\w.-]+/?\Z|\.[\w][\w.-]*\Z")
# The home directory named by an expression rather than a string literal.
_CODE_HOME_EXPR = re.compile(HOME_EXPRESSIONS)
# The same in a long program, on RE2 (`re` tries each alternative at each position: ~5 ms over
# 64 KiB), made when first needed. `\s` is every blank `re` reads as one (RE2's is ASCII);
# `\b` is ASCII there, so it finds the home directory in at least the programs `re` does.
_CODE_HOME_LONG: list[Regex] = []
_LONG_CODE: Final = 4096
_BLANKS = "[\\s\x0b\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
_WILDCARDS = frozenset("*?[")


# A matcher's tests beyond the command's name (Matcher._checks), by number.
# (Final: C constants under mypyc, not a module dictionary lookup each, as matches_command compares them)
_NEVER: Final = 0
_VIA: Final = 1
_INDIRECT: Final = 2
_FED: Final = 3
_HAS_CODE: Final = 4
_HAS_REDIRECTS: Final = 5
_SHAPE: Final = 6
_REDIRECTS: Final = 7
_READS: Final = 8
_TEXT: Final = 9
_CODE: Final = 10
_CODE_PATHS: Final = 11
_CWD: Final = 12
_SELF_PIPED: Final = 13
_INPUT_PROGRAM: Final = 14
_DATA_ONLY: Final = 15
_NOT_VIA: Final = 16
# (stop 57, rev57) The mark of the readers the evaluator makes itself (evaluate.py: of an archive the session wrote,
# `session`; of a batch uploader's puts, `batch`) in Command.via: a NUL first, which no word of a line holds (a
# script named `session` run as `bash session` is in via as `session`, and was left out by `not_via: [session]`)
READER_MARK: Final = "\x00"


def _glob(pattern: str) -> Regex:
    return compile_glob(pattern, ignore_case=True)


_ARG_SPEC_FIELDS = ("globs", "regex", "classes", "not_classes", "position")


class ArgSpec:
    """What a matcher asks of an argument: globs, a regex or path classes it must fall in.

    A native class under mypyc (docs/compiled.md): a check reads its fields as C struct members.
    It behaves as the frozen record it was (equality and hash by its fields, its repr); the guard's
    cache pickles it field by field (engine.records.NATIVE_RECORDS)."""

    __slots__ = _ARG_SPEC_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _ARG_SPEC_FIELDS

    globs: Final[tuple[Regex, ...]]
    regex: Final[Regex | None]
    classes: Final[frozenset[str]]
    not_classes: Final[frozenset[str]]
    position: Final[str]

    def __init__(
        self,
        globs: tuple[Regex, ...] = (),
        regex: Regex | None = None,
        classes: frozenset[str] = frozenset(),
        not_classes: frozenset[str] = frozenset(),
        position: str = "any",
    ) -> None:
        self.globs = globs
        self.regex = regex
        self.classes = classes
        self.not_classes = not_classes
        self.position = position

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_arg_spec_fields(self) == _arg_spec_fields(other))

    def __hash__(self) -> int:
        return hash(_arg_spec_fields(self))

    def __repr__(self) -> str:
        return fields_repr(self, _ARG_SPEC_FIELDS)

    # The tests are module functions, called as such inside this module: under mypyc a call to a
    # method of a record (a plain Python class) makes a bound method object each time.
    def test(self, word: str, classify: Any) -> bool:
        return spec_test(self, word, classify)

    def any(self, words: Sequence[str], classify: Any) -> bool:
        return spec_any(self, words, classify)

    def landings(self, words: Sequence[str], directory: str | None = None) -> list[str]:
        """The paths an `into`/`inside` spec tests for a copy of ``words``: `into` the destination
        and where each source lands in it, `inside` only the latter (see `into_landings`)."""
        found = into_landings(words, directory)
        return found[1:] if self.position == "inside" else found


_LANDING_POSITIONS: Final = frozenset({"into", "inside"})
_arg_spec_fields = attrgetter(*_ARG_SPEC_FIELDS)
native_record(ArgSpec)


def spec_test(spec: ArgSpec, word: str, classify: Any) -> bool:
    """Whether ``word`` passes ``spec`` (ArgSpec.test)."""
    if spec.globs and not any(g.match(word) for g in spec.globs):
        return False
    regex = spec.regex
    if regex is not None and not (
        regex.search(word) if len(word) <= _LONG_CODE else regex.search_text(word)  # RE2: a long word
    ):
        return False
    classes = spec.classes
    not_classes = spec.not_classes
    if classes or not_classes:
        found = classify(word)
        if classes and found.isdisjoint(classes):
            return False  # in no form (a word judged in several forms is, as a set, their union)
        if found.__class__ is frozenset:
            return _classes_hold(classes, not_classes, found)
        # A word judged in several forms (as spelled, where it lands) matches when one does.
        return any(_classes_hold(classes, not_classes, form) for form in forms_of(found))
    return True


def _classes_hold(classes: frozenset[str], not_classes: frozenset[str], found: frozenset[str]) -> bool:
    if classes and not (found & classes):
        return False
    return not (not_classes and found & not_classes)


def spec_any(spec: ArgSpec, words: Sequence[str], classify: Any) -> bool:
    """Whether a word of ``words`` passes ``spec`` at its position (ArgSpec.any)."""
    if not words:
        return False
    position = spec.position
    if position == "first":
        return spec_test(spec, words[0], classify)
    if position == "last":
        return spec_test(spec, words[-1], classify)
    if position == "after_first":  # (xf44) the words after the first (`chisel client SERVER REMOTE...`)
        words = words[1:]
    elif position in _LANDING_POSITIONS:
        return any(spec_test(spec, w, classify) for w in spec.landings(words))
    classes = spec.classes
    if classes and not spec.globs and spec.regex is None:
        # Classes only (most path tests): a word in none of them is passed over without a call
        # (a word judged in several forms is, as a set, their union).
        for word in words:
            found = classify(word)
            if not found.isdisjoint(classes) and spec_test(spec, word, classify):
                return True
        return False
    for word in words:  # noqa: SIM110 -- a plain loop is cheaper than any(<genexpr>) here
        if spec_test(spec, word, classify):
            return True
    return False


def into_landings(words: Sequence[str], directory: str | None = None) -> list[str]:
    """Where a copy lands: the destination as named, and, since it may be a directory, each
    source's last component inside it (`cp /tmp/.bashrc ~` writes ``~/.bashrc``).

    ``directory``: a target directory given by an option (`cp -t DIR FILE...`); else the last word.
    """
    if directory is None:
        if not words:
            return []
        directory, words = words[-1], words[:-1]
    found = [directory]
    for word in words:
        name = posixpath.basename(word.rstrip("/"))
        if ":" in name:  # `host:.bashrc` (scp, rsync), `c:.bashrc`: the file's own name too
            found.append(posixpath.join(directory, name.rpartition(":")[2]))
        if name and name not in (".", ".."):
            found.append(posixpath.join(directory, name))
    return found


# The name part of an option word with its value attached by `=` (`--from-file`, `-in`, `if`).
_OPTION_NAME = re.compile(r"-{0,2}[A-Za-z][\w-]*")
_BLANK = re.compile(r"\s")

_SHAPE_FIELDS = (
    "short",
    "long",
    "positionals",
    "words",
    "lowered",
    "values",
    "known",
    "literal",
    "firm",
    "hosts",
    "patterns",
    "sealed",
    "outer",
)


class Shape:
    """Flags, positionals and option words of a command, computed once per command."""

    __slots__ = _SHAPE_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    short: set[str]
    long: set[str]
    positionals: list[str]
    words: list[str]
    lowered: tuple[str, ...]  # positionals in lower case, for subcommands
    # Option values as the program reads them (abbreviated, bundled, attached), by every name of
    # the option; None when the program has no grammar in the Programs table.
    values: dict[str, list[str]] | None
    known: frozenset[str]  # option names the grammar declares
    # Program text the shell passes as written (`sed '$d'`, `awk '$1 > 3'`: an operand the
    # Programs table runs as code, with no expansion in it): never a path "computed" at run time.
    literal: frozenset[str]
    # (adv38) The flags before the first operand, for a program that reads options anywhere unless
    # POSIXLY_CORRECT is in its environment (then a later `--help` is an operand: `shutdown now --help` shuts
    # down): what a pattern's `without_flags` may rely on. None: the flags (`short`, `long`) are firm.
    firm: tuple[set[str], set[str]] | None
    # (holes39) Operands naming hosts or host patterns (its grammar's `hosts`: `salt '*' test.ping`), each word
    # only once among its words: read by no path class
    hosts: frozenset[str]
    # (fp44b) The operand its grammar reads as its pattern or filter (Grammar.pattern: `grep .key f`), the word only
    # once among its words: read by no file class (credential, secret, shell history)
    patterns: frozenset[str]
    # (xf47) The program prints nothing (its grammar's quiet_with): an expansion among `patterns` is read by no
    # class of an expansion either (`grep -qF "$V" f`)
    sealed: bool
    # (stop 55) The values the program's own grammar read for the options before its verb (`docker -H=ssh://h run`:
    # pflag's `-H=VALUE` is VALUE), by every name of the option: what a verb's `option_values` reads too for a name
    # its own grammar does not declare (a global option), beside the words' plain reading. None: no verb named.
    outer: dict[str, list[str]] | None

    def __init__(
        self,
        short: set[str],
        long: set[str],
        positionals: list[str],
        words: list[str],
        lowered: tuple[str, ...] = (),
        values: dict[str, list[str]] | None = None,
        known: frozenset[str] = frozenset(),
        literal: frozenset[str] = frozenset(),
        firm: tuple[set[str], set[str]] | None = None,
        hosts: frozenset[str] = frozenset(),
        patterns: frozenset[str] = frozenset(),
        sealed: bool = False,
        outer: dict[str, list[str]] | None = None,
    ) -> None:
        self.outer = outer
        self.patterns = patterns
        self.sealed = sealed
        self.firm = firm
        self.hosts = hosts
        self.short = short
        self.long = long
        self.positionals = positionals
        self.words = words
        self.lowered = lowered
        self.values = values
        self.known = known
        self.literal = literal

    def option_values(self, name: str) -> list[str]:
        if name == "*":
            return self.every_value()
        if self.values is not None and name in self.known:
            return self.values.get(name, [])
        found = option_values(name, self.words)  # `of=` (dd) and options no grammar declares
        outer = self.outer.get(name) if self.outer is not None else None
        return found + outer if outer else found

    def every_value(self) -> list[str]:
        """Every option value (the name `*` of a matcher's `options`): those the grammar read, and
        the text after the first `=` of a word spelled `--name=V` or `-name=V` (an option the
        grammar does not declare), or `name=V` for a program without one (dd's `if=`); none with
        a blank in it. A value written as its own word after an option no
        grammar declares is a positional already (`_plain`)."""
        found: list[str] = []
        described = self.values is not None
        if self.values is not None:
            for spelled in self.values.values():
                found.extend(spelled)
        for word in self.words:
            at = word.find("=")
            if at > 0 and (word[0] == "-" or not described) and _OPTION_NAME.fullmatch(word, 0, at) is not None:
                found.append(word[at + 1 :])
        # A value with a blank is a command line or a text, not a name (`rsync -e "ssh -i KEY"`:
        # the command it runs is judged in its own right).
        return [v for v in dict.fromkeys(found) if not _BLANK.search(v)]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_shape_fields(self) == _shape_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _SHAPE_FIELDS)


_shape_fields = attrgetter(*_SHAPE_FIELDS)


def shape(command: Command) -> Shape:
    """Flags and positionals as the program reads them: global options before a verb are
    skipped with their values (`git -C dir reset --ha`), long options are expanded from
    any unique prefix, and option values are not positionals."""
    words = list(command.argv[1:])
    program = command.program
    short: set[str] = set()
    long: set[str] = set()
    positionals: list[str] = []
    if program is None:
        _plain(words, short, long, positionals)
        return Shape(short, long, positionals, words, tuple(map(str.lower, positionals)))
    argv = command.argv
    reading = command.reading
    if reading is None:
        reading = command.reading = parse_argv(program.grammar, argv)
    levels = subcommand_levels(program, reading, argv)
    for _, at in levels[1:]:
        positionals.append(argv[at.start - 1])
    level, reading = levels[-1]
    grammar = level.grammar
    _flags(grammar, reading, short, long)
    positionals.extend(reading.operands)
    hosts = _hosts(grammar, reading, argv) if grammar.hosts else frozenset()
    patterns: frozenset[str] = frozenset()
    sealed = False
    if grammar.pattern is not None and reading.operands:
        patterns = _pattern(grammar.pattern, reading, argv)
        if patterns and grammar.quiet_with:
            # (xf48a) only a pattern one quoted expansion gave: an unquoted one is split at run time into options and
            # files (`grep -q $(cat k.txt) f` is `grep -q -e secret KEY f`: its status tells what the key holds)
            sealed = any(name in grammar.quiet_with for name, _, _ in reading.options) and (
                not any("$" in word or "`" in word for word in patterns) or patterns <= command.quoted_words
            )
    if reading.rest is not None and len(levels) > 1 and not level.subcommands:
        # A described verb that stops at its first operand (`docker run IMAGE CMD...`): the words
        # after it belong to the command it hands them to, never its own options
        # (`docker run alpine ls -v /` mounts nothing).
        _plain(list(argv[reading.rest :]), set(), set(), positionals)
    outer: dict[str, list[str]] | None = None
    for above, read in levels[:-1]:
        for name, value, _ in read.options:
            if value is not None:
                outer = {} if outer is None else outer
                for spelling in above.grammar.names(name):
                    outer.setdefault(spelling, []).append(value)
    values: dict[str, list[str]] = {}
    pairs = grammar.long
    for name, value, _ in reading.options:
        # (fp46) the VALUE of a `NAME VALUE` binding (argv.PAIR: jq's `--arg k ~/.ssh/id_rsa`) is a text the program
        # hands its filter, never a file it opens: no option value a matcher reads as a path
        if value is not None and pairs.get(name) != PAIR:
            for spelling in grammar.names(name):
                values.setdefault(spelling, []).append(value)
    if reading.rest is not None and not (len(levels) > 1 and not level.subcommands):
        # A verb the table does not describe, or the command a wrapper runs: its words are read
        # the plain way, and its options are read from the words (no option name is `known`);
        # the values the grammar read before it are kept for `every_value` (`xargs -a FILE cmd`).
        _plain(list(argv[reading.rest :]), short, long, positionals)
        return Shape(
            short,
            long,
            positionals,
            words,
            tuple(map(str.lower, positionals)),
            values,
            hosts=hosts,
            patterns=patterns,
            sealed=sealed,
            outer=outer,
        )
    if program.text_runs:
        literal = _program_text(program, reading, command)
    elif command.literal_words and not program.active:
        # (fp43) a program that runs nothing (Program.active false): a quoted operand is the name written
        # (`cp x 'a$(id)b'` writes the file of that name, as `> 'a$(id)b'` does: Command.literal_targets)
        literal = command.literal_words.intersection(reading.operands)
    else:
        literal = frozenset()
    firm: tuple[set[str], set[str]] | None = None
    if grammar.runs_nothing and not grammar.stop_at_operand and reading.operand_at and len(levels) == 1:
        # (adv38) a getopt program of the system (its row names the options it prints and exits with) whose options
        # may follow its first operand: with POSIXLY_CORRECT (inherited, exported: not known here) they are operands
        first = reading.operand_at[0]
        before = Parsed([o for o in reading.options if o[2] < first], [], [], [])
        firm = (set(), set())
        _flags(grammar, before, *firm)
    return Shape(
        short,
        long,
        positionals,
        words,
        tuple(map(str.lower, positionals)),
        values,
        _known(grammar),
        literal,
        firm,
        hosts,
        patterns,
        sealed,
        outer,
    )


def _hosts(grammar: Grammar, reading: Parsed, argv: Sequence[str]) -> frozenset[str]:
    """(holes39) The operands ``grammar`` reads as hosts or host patterns (`salt '*' test.ping`, `ansible 'web*' -m
    ping`): no path of this machine. A word that is also another of the command's words is not one (`salt '*'
    cp.get_file x '*'`: the second may be a path)."""
    operands = reading.operands
    found = [operands[i] for i in grammar.hosts if i < len(operands)]
    if found and reading.unknown:
        # (adv39) An option the grammar does not know is read as a flag: its value (`ansible -t ~/.ssh h -m
        # ping`, a tree of output files) would be read as the host. Only operands before every unknown option
        # are hosts.
        known = _known(grammar)
        first = min((at for name, _, at in reading.options if name not in known), default=len(argv))
        at = reading.operand_at
        found = [operands[i] for i in grammar.hosts if i < len(operands) and i < len(at) and at[i] < first]
    return frozenset(w for w in found if argv.count(w) == 1)


def _program_text(program: Program, reading: Parsed, command: Command) -> frozenset[str]:
    """Operands ``program`` runs as program text that hold `$` or a backquote no expansion touched
    (quoted): `awk '$1 > 3' f`, `sed -n '$p' f`; and sed's script completed by an expansion (`sed "s/v/$(date
    +%F)/" f`: a script, not a path known only when it runs; a stored value spliced in asks where the script
    runs, follow._spliced), unless the expansion is the whole text (`sed "$x" f`: nobody here reads it)."""
    found: list[str] = []
    operands: list[str] | None = None
    present: frozenset[str] = frozenset()
    argv, dynamic = command.argv, command.dynamic
    for run in program.text_runs:  # those of its runs whose operand is program text (TEXT_KINDS)
        if operands is None:
            operands = reading.all_operands(argv)
            present = reading.present()
        if run.index >= len(operands) or not run.applies(present, len(operands)):
            continue
        word = operands[run.index]
        if "$" not in word and "`" not in word:
            continue
        at = [i for i in range(1, min(len(argv), len(dynamic))) if argv[i] == word]
        if at and (
            not any(dynamic[i] for i in at) or (run.kind in _SPLICE_JUDGED and _EXPANSION.sub("", word).strip())
        ):
            found.append(word)
    return frozenset(found)


# Program texts whose spliced values are judged where they run (follow._spliced, sed's by spliced_data; awk's
# `"$1 > 3"` stays a computed word), and the expansions of a word: one that is expansions only (`"$x"`,
# `"$(cat s)"`) is a text nobody here reads, left to the matchers as a computed word.
_SPLICE_JUDGED: Final = frozenset({"sed"})
_EXPANSION: Final = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|\$\([^()]*\)|`[^`]*`")


def _pattern(unless: frozenset[str], reading: Parsed, argv: Sequence[str]) -> frozenset[str]:
    """(fp44b) The first operand of a program whose grammar reads it as its pattern or filter (Grammar.pattern: `grep
    .key f`, `rg '.pem' src`, `jq '.key' f.json`): no path, unless an option gives the pattern (`grep -f KEY x`, `rg
    -e x .env`: the first operand is then a file), an option the grammar does not know is there (it may take
    a value: `jq --rawfile a KEY .`, or give the pattern: `yq KEY --from-file x`, wherever it is), or the word is
    also another of the command's words (`grep .env .env`)."""
    if reading.unknown:
        return frozenset()
    for name, _, _ in reading.options:
        if name in unless:
            return frozenset()
    word = reading.operands[0]
    return frozenset((word,)) if argv.count(word) == 1 else frozenset()


class _Literal:
    """A classifier that reads program text passed as written (`'$p'`) without the classes of an
    expansion: `sed -n '$p' f` reads no path known only when it runs. With ``names`` the words are file
    names given as written (a quoted operand of a program that runs nothing, a quoted redirection target):
    (fp44) such a name is read as the path it spells, its `$` and backquotes plain characters (`cp x
    '$HOME/.bashrc'` writes `.bashrc` in a folder named `$HOME` here, not the home's start-up file)."""

    __slots__ = ("classify", "folder", "names", "words")

    def __init__(self, classify: Any, words: frozenset[str], names: bool = False) -> None:
        self.classify = classify
        self.words = words
        self.names = names
        # Where a relative name lands: the working directory of the check's View. None (a classifier made for a
        # `cd` on the line, whose folder may be known only at run time): no name is read as written (fail closed).
        owner = getattr(classify, "__self__", None)
        self.folder: str | None = owner.workdir if isinstance(owner, View) else None

    def __call__(self, word: str) -> frozenset[str]:
        # (cfg49) and where a copy lands inside such a name (`cp x '$HOME/.bashrc'`, read `into`: `$HOME/.bashrc/x`)
        if self.names and self._named(word) and not _spelled_entry(word, self.folder):
            # (the characters the shell would expand, each spelled `_`: a name beside it of the same classes,
            # `$HOME` no more the home than `_HOME`; a leading `~` stays the home, as read unquoted: fail closed)
            named: frozenset[str] = self.classify(word.replace("$", "_").replace("`", "_"))
            return named
        found: frozenset[str] = self.classify(word)
        if word not in self.words:
            return found
        return _less(found, EXPANSION_CLASSES)

    def _named(self, word: str) -> bool:
        return word in self.words or any(
            word.startswith(name.rstrip("/") + "/") for name in self.words if "$" in name or "`" in name
        )


# (debt48) the class a package manager's configuration in the project is of by its name (policies/paths.yaml)
_SETTINGS_DROPPED: Final = frozenset({"sensitive_dotfile"})


class _Settings:
    """(debt48) A classifier reading a package manager's configuration of settings only written in the project
    (Command.settings_targets) without the class its name gives it; where it lands keeps its own classes (a link
    `.npmrc -> ~/.npmrc` is the home's credential file)."""

    __slots__ = ("classify", "words")

    def __init__(self, classify: Any, words: frozenset[str]) -> None:
        self.classify = classify
        self.words = words

    def __call__(self, word: str) -> frozenset[str]:
        found: frozenset[str] = self.classify(word)
        return _less(found, _SETTINGS_DROPPED) if word in self.words else found


def _less(found: frozenset[str], dropped: frozenset[str]) -> frozenset[str]:
    """A word's classes without ``dropped``, in each of its forms (see paths.forms_of)."""
    if found.isdisjoint(dropped):
        return found
    return Classes([form - dropped for form in forms_of(found)])


def _spelled_entry(word: str, folder: str | None) -> bool:
    """(adv44b) Whether the folder or file a name given as written spells with `$` or a backquote exists (a link
    `$HOME -> ~` an earlier `ln -s ~ '$HOME'` made), relative names looked up in ``folder``, the engine's working
    directory (lead44: not the process's, which a host's `workdir:` may set apart); where it leads is not read
    here, so the word keeps the reading of an expansion (`rm -rf '$HOME'/*` is not a folder of its own to empty).
    True when ``folder`` is unknown. One lstat, for such names only."""
    parts = word.split("/")
    at = next((i for i, part in enumerate(parts) if "$" in part or "`" in part), None)
    if at is None:
        return False
    spelled = "/".join(parts[: at + 1]) or "/"
    if not spelled.startswith("/"):
        if folder is None:
            return True
        spelled = posixpath.join(folder, spelled)
    return os.path.lexists(spelled)


def literal_reading(command: Command, shaped: Shape, classify: Any) -> Any:
    """``classify`` reading the words ``shaped`` holds as written (Shape.literal) as _Literal reads them: program
    text without an expansion's classes, a name given as written (a program with no text runs) as the path it
    spells (fp44)."""
    program = command.program
    return _Literal(classify, shaped.literal, program is not None and not program.text_runs)


# (fp44b) The classes of a file whose content a reader prints, which a pattern word may spell (`.key`, `.env`):
# a folder's classes (secret_parent, a link's) stay, as any other of its reading (fail closed).
_FILE_CLASSES: Final = frozenset({"credential", "secret", "shell_history"})
_PATTERN_DROPS: Final = _FILE_CLASSES | {SECRET_HOLDER}
_SEALED_DROPS: Final = _PATTERN_DROPS | EXPANSION_CLASSES


class _Pattern:
    """(fp44b) A classifier that reads a program's pattern or filter operand (Shape.patterns) as no file of the
    classes a reader prints (`grep .key f`, `jq '.key' f.json`)."""

    __slots__ = ("classify", "sealed", "words")

    def __init__(self, classify: Any, words: frozenset[str], sealed: bool = False) -> None:
        self.classify = classify
        self.words = words
        self.sealed = sealed

    def __call__(self, word: str) -> frozenset[str]:
        found: frozenset[str] = self.classify(word)
        if word not in self.words:
            return found
        if self.sealed and ("$" in word or "`" in word):
            # (xf47) a quiet program's pattern known only when it runs (`grep -qF "$V" f`): a pattern, or an option
            # of a program that prints nothing (`-Rv`): no file it names is read out
            return _less(found, _SEALED_DROPS)
        # (fp46) a folder "holding a secret" because the word itself spells one (`.key`, `id_rsa`: View._holds) is
        # that file class again: a pattern spelling a key holds none (`grep -rn '.key' src`); a folder's other
        # classes, and a holder found by a walk (`.` with a .env below), stay
        return _less(found, _PATTERN_DROPS if not found.isdisjoint(_FILE_CLASSES) else _FILE_CLASSES)


class _Hosts:
    """(holes39) A classifier that reads a program's host operands (Shape.hosts) as no path: `salt '*' test.ping`
    names no file of the working directory."""

    __slots__ = ("classify", "words")

    def __init__(self, classify: Any, words: frozenset[str]) -> None:
        self.classify = classify
        self.words = words

    def __call__(self, word: str) -> frozenset[str]:
        if word in self.words:
            return frozenset()
        found: frozenset[str] = self.classify(word)
        return found


# The option names each grammar declares, by the grammar's identity (kept alive with it).
_KNOWN: Final[dict[int, tuple[Grammar, frozenset[str]]]] = {}


def _known(grammar: Grammar) -> frozenset[str]:
    found = _KNOWN.get(id(grammar))
    if found is None or found[0] is not grammar:
        if len(_KNOWN) >= 4096:
            _KNOWN.clear()
        found = _KNOWN[id(grammar)] = (grammar, frozenset(grammar.short) | frozenset(grammar.long))
    return found[1]


def _plain(words: list[str], short: set[str], long: set[str], positionals: list[str]) -> None:
    """Split words without a grammar: `-abc` are letters, `--name[=v]` a long option."""
    options_done = False
    for word in words:
        if options_done or word == "-" or not word.startswith("-"):
            positionals.append(word)
        elif word == "--":
            options_done = True
        elif word.startswith("--"):
            long.add(word[2:].split("=", 1)[0])
        else:
            short.update(word[1:])


def _flags(grammar: Grammar, reading: Parsed, short: set[str], long: set[str]) -> None:
    aliases = grammar.aliases
    for name, _, _ in reading.options:
        if len(name) == 1:
            short.add(name)
            other = aliases.get(name)
            if other:
                long.add(other)
        else:
            long.add(name)


def first_operand(command: Command) -> str | None:
    """The first positional word, after global options and their values, in lower case."""
    shaped: Shape | None = command.shape
    if shaped is None:
        shaped = command.shape = shape(command)
    return shaped.lowered[0] if shaped.lowered else None


_COMPUTED_SOURCE = frozenset({"computed", "computed_source"})


# (adv52) the folder a `cd` only the run knows leads to, as a variable the line never sets (View._under_unknown)
_UNKNOWN_FOLDER: Final = "$__folder_known_at_run_time/"


_ENGINE_STATE: Final = frozenset({"engine_state"})
_A_FOLDER_OF_KEYS: Final = frozenset({"credential", "secret_parent"})


def _state_unsure(form: frozenset[str]) -> frozenset[str]:
    """A form of a word under a folder only the run knows that names the engine's state there (View.anywhere): a
    folder that may hold keys, not the state (see _in_directory)."""
    return form if form.isdisjoint(_ENGINE_STATE) else (form - _ENGINE_STATE) | _A_FOLDER_OF_KEYS


def _in_directory(view: View, cwd: str) -> Any:
    """Classify relative words as paths under ``cwd`` (after a `cd` on the same line)."""
    classify = view.classify
    anywhere = view.anywhere
    listed_in = view.listed_in

    def resolved(word: str) -> frozenset[str]:
        if cwd == "$unknown" and not word.startswith(("/", "~", "$", "-", "`")):
            # Under any directory: each form is kept apart, so that where the word would land
            # from the work tree (`../x` in /tmp) does not excuse it as spelled (`cd "$D"; rm -rf ../x`).
            forms = [form | {"variable"} for form in forms_of(classify(word))]
            # ... and in any folder the engine reads (`cd -; echo x >> deny.yaml`). (stop 53) That the folder is the
            # engine's state folder is a guess, not a reading of it: a reader there reads a folder of keys (ask, as
            # `grep -r x ~/.ssh`), not the hardline engine_state_read (`cd "$D" && du -sh .` was denied)
            forms += [_state_unsure(form) for form in anywhere(word)]
            # (adv52) ... and in the home, as a path under a folder only the run knows is (`$D/.bashrc`,
            # View._under_unknown): `cd "$(cat f)" && echo x >> .bashrc` with f holding the home's path
            forms += forms_of(classify(_UNKNOWN_FOLDER + word))
            return Classes(forms)
        if word.startswith(("/", "~", "$", "-", "`")) or "://" in word:
            if word.startswith(("$(", "`")) and cwd != "$unknown":
                # A listing of the tree after a `cd` (`cd src; cat $(ls)`) lists the folder the
                # line moved to: walked there (View.listed_in; None for anything else).
                there = listed_in(word, cwd)
                if there is not None:
                    return there
            found: frozenset[str] = classify(word)
            if "computed" in found and "computed_source" not in found and word.startswith(("$(", "`")):
                # A listing of the tree judged at the engine's working directory, where the line
                # is not (a folder only the run knows: `cd -`): known only at run time.
                return Classes([*forms_of(found), _COMPUTED_SOURCE])
            return found
        joined: frozenset[str] = classify(posixpath.join(cwd, word))
        if word.startswith("..") and not cwd.startswith(("/", "~")):
            # Relative to a directory itself relative to the work tree: read both ways (the strictest;
            # each reading is kept apart, so one reading's exclusions do not excuse the other).
            return Classes([*forms_of(joined), *forms_of(classify(word))])
        return joined

    return resolved


def code_paths(code: str) -> list[str]:
    """Path literals in an inline program, and ``~`` when it names the home directory otherwise
    (each literal once; the last program's list is kept: every `code_paths` matcher of a check
    reads the same program, and 64 KiB of literals took ~4 ms to read)."""
    if _LAST_CODE[0] is code:
        return _LAST_PATHS[0]
    out = []
    home = _names_home(code)
    strings = _code_strings(code)
    if JOINED_HINT.search(code) is not None:
        strings += joined_literals(code)
    for quoted in dict.fromkeys(strings):
        literal = quoted[1:-1]
        if "HOME" in literal or "home" in literal:
            literal = _CODE_HOME.sub("~", literal)
        if literal.startswith(("/", "~")) or _CODE_RELATIVE.match(literal):
            out.append(literal)
            if home and not literal.startswith("~"):
                # joined to the home directory somewhere: `Dir.home + "/.bashrc"`, `join(homedir(), ".bashrc")`
                out.append("~/" + literal.lstrip("/"))
    if home:
        out.append("~")
    _LAST_CODE[0] = code
    _LAST_PATHS[0] = out
    return out


# A run of a program's text holding no string literal code_paths keeps: characters that open none
# (not a quote) and literals no path can be read from (no `/`, `~`, `.`, backslash, `home` or `HOME`
# in them). A literal found by _CODE_STRINGS.findall ends at its first unescaped quote: one without
# a backslash is the same text when read here, so skipping the run leaves every other literal where
# findall finds it (`open("x", "w");` 4,000 times: one match, not 8,000).
_INERT_LITERAL = r"[^{q}\\/~.hH]|h(?!ome)|H(?!OME)"
_NO_PATH_LITERALS = re.compile(
    r"""(?:[^"']++|"(?:{dq})*+"|'(?:{sq})*+')++""".format(
        dq=_INERT_LITERAL.format(q='"'), sq=_INERT_LITERAL.format(q="'")
    )
)
# The same on RE2 for an ASCII program (`re` takes ~0.4 ms over 64 KiB): a literal with an `h` or
# `H` in it stops the run (RE2 has no lookahead), a superset of those kept.
_NO_PATH_RUN = AnchoredRun(r"""(?:[^"']|"[^"\\/~.hH]*"|'[^'\\/~.hH]*')*""")
# Literals read one by one after the inert runs, past which the rest is read by findall (a program
# of literals that may each be a path costs what findall alone does).
_MAX_STEPPED = 64


# String literals joined into one (`'.e' + 'nv'`, perl's and PHP's `.`, lua's `..`, Python's `'.e' 'nv'`):
# the path the program opens is their join (`open('.e'+'nv')` reads `.env`), read as one literal more.
def _code_strings(code: str) -> list[str]:
    """The string literals of ``code`` that may hold a path, in order: those of
    ``_CODE_STRINGS.findall(code)`` less some that cannot (see _NO_PATH_LITERALS)."""
    out: list[str] = []
    skip = _NO_PATH_LITERALS.match
    literal = _CODE_STRINGS.match
    pos, end = 0, len(code)
    data = code.encode("ascii") if end > _LONG_CODE and code.isascii() else None
    for _ in range(_MAX_STEPPED):
        if data is not None:
            pos = _NO_PATH_RUN.end(data, pos)
        else:
            skipped = skip(code, pos)
            if skipped is not None:
                pos = skipped.end()
        if pos >= end:
            return out
        found = literal(code, pos)  # at a quote: a literal as findall reads it there, or none
        if found is None:
            pos += 1
        else:
            out.append(found.group())
            pos = found.end()
    out += _CODE_STRINGS.findall(code, pos)
    return out


_LAST_CODE: list[str | None] = [None]
_LAST_PATHS: list[list[str]] = [[]]


def _names_home(code: str) -> bool:
    """Whether an expression of ``code`` names the home directory (_CODE_HOME_EXPR)."""
    if len(code) <= _LONG_CODE:
        return _CODE_HOME_EXPR.search(code) is not None
    if not _CODE_HOME_LONG:
        _CODE_HOME_LONG.append(compile_linear(HOME_EXPRESSIONS.replace("\\s", _BLANKS)))
    return _CODE_HOME_LONG[0].search_text(code) is not None


def _plain_name(glob: str | None) -> bool:
    """A glob that is a lower-case ASCII name: its (case-insensitive) regex matches an ASCII word
    exactly when the word's lower case equals it."""
    if not glob:
        return False
    return glob.isascii() and glob == glob.lower() and not _WILDCARDS & set(glob)


def _split_flags(flags: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """Short (one-letter) and long flags, apart."""
    return frozenset(f for f in flags if len(f) == 1), frozenset(f for f in flags if len(f) > 1)


# (debt42) A Matcher's fields in two named groups, in this order: those declared `Final` (read-only after __init__:
# what the policy gives it), then those declared without it (worked out, or set again, after __init__'s first
# assignment: __post_init__ and the compiler write them). tests/test_records.py checks each group against the
# class's annotations (a field added to the wrong group fails there).
_MATCHER_FINAL: Final = (
    "names",
    "name_globs",
    "not_names",
    "subcommands",
    "not_subcommands",
    "flags",
    "all_flags",
    "without_flags",
    "args",
    "words",
    "options",
    "redirects",
    "reads",
    "via",
    "not_via",
    "fed_by",
    "text",
    "code",
    "code_paths",
    "path",
    "cwd",
    "dynamic",
    "no_args",
    "indirect",
    "self_piped",
    "input_program",
    "data_only",
)
_MATCHER_DERIVED: Final = (
    "uses_shape",
    "prefilter",
    "prefilter_fragments",
    "_flags",
    "_all_flags",
    "_without_flags",
    "_checks",
    "_words_first",
    "needs_words",
    "_fed_names",
    "_fed_literal",
    "_fed_globs",
    "arg_classes",
)
_MATCHER_FIELDS: Final = (*_MATCHER_FINAL, *_MATCHER_DERIVED)  # the fields' order
# The derived fields __init__ takes as parameters (the compiler works them out); it works out the rest itself
_MATCHER_PASSED: Final = ("prefilter", "prefilter_fragments", "_flags", "_all_flags", "_without_flags")
_MATCHER_WORKED_OUT: Final = tuple(name for name in _MATCHER_DERIVED if name not in _MATCHER_PASSED)
# Its __init__'s parameters: the fields but those __init__ works out from them.
_MATCHER_INIT: Final = tuple(name for name in _MATCHER_FIELDS if name not in _MATCHER_WORKED_OUT)


class Matcher:
    """A structured condition on one simple command: its name, subcommands, flags and arguments.

    A native class under mypyc, as ArgSpec (its fields read as C struct members, its methods
    called directly); it compares by its fields as the record it was, and is unhashable."""

    __slots__ = _MATCHER_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _MATCHER_FIELDS
    _init_fields: ClassVar[tuple[str, ...]] = _MATCHER_INIT  # the rest __init__ works out
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    names: Final[frozenset[str] | None]  # None: any command
    name_globs: Final[tuple[Regex, ...]]
    not_names: Final[frozenset[str]]
    subcommands: Final[tuple[tuple[str, ...], ...]]
    # (fp43) Leading positional words that rule the command out (`git status` in a folder not known here).
    not_subcommands: Final[tuple[tuple[str, ...], ...]]
    flags: Final[tuple[str, ...]]
    all_flags: Final[tuple[str, ...]]
    without_flags: Final[tuple[str, ...]]
    args: Final[ArgSpec | None]
    words: Final[ArgSpec | None]
    options: Final[tuple[tuple[str, ArgSpec], ...]]
    redirects: Final[ArgSpec | None]
    reads: Final[ArgSpec | None]
    via: Final[frozenset[str]]
    # (stop 57) The command is none of these readers the evaluator makes itself (READER_MARK + name in its via):
    # `not_via: [session]` leaves out those of the archives this session wrote (evaluate.py: `tar -c -f FILE --
    # SOURCES`), which name that archive as tar's -f and are no run of tar the caller wrote
    not_via: Final[frozenset[str]]
    fed_by: Final[tuple[Regex, ...]]
    text: Final[Regex | None]
    code: Final[Regex | None]
    code_paths: Final[ArgSpec | None]
    path: Final[ArgSpec | None]
    cwd: Final[ArgSpec | None]  # the directory the command runs in (after a `cd` on the line)
    dynamic: Final[bool | None]
    no_args: Final[bool | None]
    indirect: Final[bool | None]
    # (xfail39) A call of a shell function inside its own body (directly or through another function) whose
    # input is piped from another call of it: each call starts two more (a fork bomb, whatever the names).
    self_piped: Final[bool | None]
    # (stop 55) Whether the command may read its input as its program (programs.reads_input_program: the Programs
    # table's stdin run applies to its words, `python3 -`, or an undescribed program), not `python3 -m json.tool`.
    input_program: Final[bool | None]
    # (stop 56) Whether the command's inline program is one of the data-only shapes (engine/policy/dataonly.py):
    # `data_only: false` matches an inline program that may do anything but turn its input into data
    data_only: Final[bool | None]
    uses_shape: bool
    # Text one of which must appear in the command for this (name-less) matcher to match at all.
    prefilter: re.Pattern[str] | None
    # The literal fragments ``prefilter`` searches for (their trie: paths.literal_union), or ():
    # the evaluator joins those of several matchers into one search (evaluate._Index._gate).
    prefilter_fragments: tuple[str, ...]
    _flags: tuple[frozenset[str], frozenset[str]]
    _all_flags: tuple[frozenset[str], frozenset[str]]
    _without_flags: tuple[frozenset[str], frozenset[str]]
    # The tests this matcher needs beyond its name, cheapest first (built once, run per command),
    # by number (_SHAPE, _VIA, ...: see matches_command).
    _checks: tuple[int, ...]
    # `words` tests no path classes (a regex or glob on each word): run before `args`, whose
    # classes make it look at the file system (`rm a1` fails `-(recurse|r)` before `a1` is classified).
    _words_first: bool
    # Whether the shape test needs words after the command's name to hold (a flag, an argument,
    # a subcommand, an option's value): a bare command (`sh`, `$(...)`) never meets such a matcher.
    needs_words: bool
    # `fed_by` split for speed: lower-case ASCII names without wildcards (their glob matches an ASCII
    # name exactly when the name's lower case is one of them), their globs, and the other globs.
    _fed_names: frozenset[str]
    _fed_literal: tuple[Regex, ...]
    _fed_globs: tuple[Regex, ...]
    # The classes one of the command's positionals must be in for this matcher to match (its `args`
    # test at any, the first or the last position), or None: the evaluator passes over a matcher
    # whose classes no positional holds without calling it (Evaluator.by_classes).
    arg_classes: frozenset[str] | None

    def __init__(
        self,
        names: frozenset[str] | None = None,
        name_globs: tuple[Regex, ...] = (),
        not_names: frozenset[str] = frozenset(),
        subcommands: tuple[tuple[str, ...], ...] = (),
        not_subcommands: tuple[tuple[str, ...], ...] = (),
        flags: tuple[str, ...] = (),
        all_flags: tuple[str, ...] = (),
        without_flags: tuple[str, ...] = (),
        args: ArgSpec | None = None,
        words: ArgSpec | None = None,
        options: tuple[tuple[str, ArgSpec], ...] = (),
        redirects: ArgSpec | None = None,
        reads: ArgSpec | None = None,
        via: frozenset[str] = frozenset(),
        not_via: frozenset[str] = frozenset(),
        fed_by: tuple[Regex, ...] = (),
        text: Regex | None = None,
        code: Regex | None = None,
        code_paths: ArgSpec | None = None,
        path: ArgSpec | None = None,
        cwd: ArgSpec | None = None,
        dynamic: bool | None = None,
        no_args: bool | None = None,
        indirect: bool | None = None,
        self_piped: bool | None = None,
        input_program: bool | None = None,
        data_only: bool | None = None,
        prefilter: re.Pattern[str] | None = None,
        prefilter_fragments: tuple[str, ...] = (),
        _flags: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
        _all_flags: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
        _without_flags: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
    ) -> None:
        self.names = names
        self.name_globs = name_globs
        self.not_names = not_names
        self.subcommands = subcommands
        self.not_subcommands = not_subcommands
        self.flags = flags
        self.all_flags = all_flags
        self.without_flags = without_flags
        self.args = args
        self.words = words
        self.options = options
        self.redirects = redirects
        self.reads = reads
        self.via = via
        self.not_via = not_via
        self.fed_by = fed_by
        self.text = text
        self.code = code
        self.code_paths = code_paths
        self.path = path
        self.cwd = cwd
        self.dynamic = dynamic
        self.no_args = no_args
        self.indirect = indirect
        self.self_piped = self_piped
        self.input_program = input_program
        self.data_only = data_only
        self.uses_shape = False
        self.prefilter = prefilter
        self.prefilter_fragments = prefilter_fragments
        self._flags = _flags
        self._all_flags = _all_flags
        self._without_flags = _without_flags
        self._checks = ()
        self._words_first = False
        self.needs_words = False
        self._fed_names = frozenset()
        self._fed_literal = ()
        self._fed_globs = ()
        self.arg_classes = None
        self.__post_init__()

    def __post_init__(self) -> None:
        self._flags = _split_flags(self.flags)
        self._all_flags = _split_flags(self.all_flags)
        self._without_flags = _split_flags(self.without_flags)
        self.uses_shape = bool(
            self.subcommands
            or self.not_subcommands
            or self.flags
            or self.all_flags
            or self.without_flags
            or self.args
            or self.words
            or self.options
            or self.no_args is not None
        )
        self._words_first = self.words is not None and not (self.words.classes or self.words.not_classes)
        literal = tuple(g for g in self.fed_by if _plain_name(g.glob))
        self._fed_names = frozenset(g.glob for g in literal if g.glob)
        self._fed_literal = literal
        self._fed_globs = tuple(g for g in self.fed_by if not _plain_name(g.glob))
        args = self.args
        if args is not None and args.classes and args.position in ("any", "first", "last"):
            self.arg_classes = args.classes
        self.needs_words = bool(
            (self.subcommands and all(self.subcommands))
            or self.flags
            or self._all_flags[0]
            or self._all_flags[1]
            or self.args is not None
            or self.words is not None
            or self.options
        )
        checks: list[int] = []
        if self.path is not None:
            checks.append(_NEVER)
        if self.self_piped is not None:
            checks.append(_SELF_PIPED)  # two set lookups: first, most commands are no function's call
        if self.via:
            checks.append(_VIA)
        if self.not_via:
            checks.append(_NOT_VIA)
        if self.indirect is not None:
            checks.append(_INDIRECT)
        if self.fed_by:
            checks.append(_FED)
        if self.input_program is not None:
            checks.append(_INPUT_PROGRAM)  # after `fed_by`: parses the words of a command that met it
        if self.code is not None or self.code_paths is not None or self.data_only is not None:
            checks.append(_HAS_CODE)  # cheap, and most commands carry no inline program
        if (self.redirects is not None or self.reads is not None) and self.uses_shape:
            checks.append(_HAS_REDIRECTS)  # before the shape test, which costs more
        if self.uses_shape:
            checks.append(_SHAPE)
        if self.redirects is not None:
            checks.append(_REDIRECTS)
        if self.reads is not None:
            checks.append(_READS)
        if self.text is not None:
            checks.append(_TEXT)
        if self.code is not None:
            checks.append(_CODE)
        if self.code_paths is not None:
            checks.append(_CODE_PATHS)
        if self.data_only is not None:
            checks.append(_DATA_ONLY)
        if self.cwd is not None:
            checks.append(_CWD)
        self._checks = tuple(checks)

    def _name_ok(self, command: Command) -> bool:
        if not command.name:  # command.is_dynamic
            # A name only known at run time could be any command: fail closed.
            return self.dynamic is not False
        if self.dynamic is True:
            return False
        if command.name in self.not_names:
            return False
        if self.names is None and not self.name_globs:
            return True
        if self.names is not None and command.name in self.names:
            return True
        return any(g.match(command.name) for g in self.name_globs)

    def matches_command(self, command: Command, view: View, name_checked: bool = False, classify: Any = None) -> bool:
        """Whether this matcher matches ``command``, its words classified by ``view`` (``name_checked``:
        the caller already matched the name; ``classify``: ``view.classify``, when the caller holds it: a
        bound method made once per line, not once per matcher)."""
        if not name_checked and not self._name_ok(command):
            return False
        if command.cwd is not None:
            classify = _in_directory(view, command.cwd)
        elif classify is None:
            classify = view.classify
        # Each test called directly (a native method call under mypyc), not through a bound method.
        for check in self._checks:
            if check == _SHAPE:
                ok = self._shape_ok(command, classify)
            elif check == _HAS_REDIRECTS:
                ok = bool(command.redirects)
            elif check == _HAS_CODE:
                ok = command.code is not None
            elif check == _VIA:
                ok = self._via_ok(command, classify)
            elif check == _FED:
                ok = self._fed_ok(command, classify)
            elif check == _REDIRECTS:
                ok = self._redirects_ok(command, classify)
            elif check == _READS:
                ok = self._reads_ok(command, classify)
            elif check == _TEXT:
                ok = self._text_ok(command, classify)
            elif check == _CODE:
                ok = self._code_ok(command, classify)
            elif check == _CODE_PATHS:
                ok = self._code_paths_ok(command, classify)
            elif check == _CWD:
                ok = self._cwd_ok(command, classify, view)
            elif check == _INDIRECT:
                ok = self._indirect_ok(command, classify)
            elif check == _SELF_PIPED:
                ok = (command.name in command.via and command.name in command.fed_by) == self.self_piped
            elif check == _INPUT_PROGRAM:
                ok = reads_input_program(command) == self.input_program
            elif check == _DATA_ONLY:
                ok = command.code is not None and data_only(command.name, command.code) == self.data_only
            elif check == _NOT_VIA:
                ok = self.not_via.isdisjoint(command.via)
            else:  # _NEVER: a path matcher never matches a command
                ok = False
            if not ok:
                return False
        return True

    def _via_ok(self, command: Command, classify: Any) -> bool:
        return not self.via.isdisjoint(command.via)

    def _indirect_ok(self, command: Command, classify: Any) -> bool:
        return command.indirect == self.indirect

    def _fed_ok(self, command: Command, classify: Any) -> bool:
        """Whether a command that feeds this one matches a `fed_by` glob."""
        names, globs = self._fed_names, self._fed_globs
        for name in command.fed_by:
            if name.isascii():
                if name.lower() in names:
                    return True
            elif any(g.match(name) for g in self._fed_literal):
                return True
            if globs and any(g.match(name) for g in globs):
                return True
        return False

    def _shape_ok(self, command: Command, classify: Any) -> bool:
        shaped: Shape | None = command.shape
        if shaped is None:
            shaped = command.shape = shape(command)
        positionals = shaped.positionals
        if shaped.literal:
            classify = literal_reading(command, shaped, classify)
        if shaped.hosts:
            classify = _Hosts(classify, shaped.hosts)
        if shaped.patterns:
            classify = _Pattern(classify, shaped.patterns, shaped.sealed)
        if self.subcommands:
            lowered = shaped.lowered
            for hit in self.subcommands:
                if lowered[: len(hit)] == hit:
                    break
            else:
                return False
            positionals = positionals[len(hit) :]
        if self.not_subcommands:
            lowered = shaped.lowered
            if any(lowered[: len(hit)] == hit for hit in self.not_subcommands):
                return False
        # Flags as sets: one-letter flags are looked up among clustered short options, longer
        # ones among --long options (split once, when the pattern was compiled).
        short, long = shaped.short, shaped.long
        if self.flags and short.isdisjoint(self._flags[0]) and long.isdisjoint(self._flags[1]):
            return False
        if self.all_flags and not (self._all_flags[0] <= short and self._all_flags[1] <= long):
            return False
        if self.without_flags:
            firm_short, firm_long = shaped.firm or (short, long)
            if not (firm_short.isdisjoint(self._without_flags[0]) and firm_long.isdisjoint(self._without_flags[1])):
                return False
        if self.no_args is not None and (not positionals) != self.no_args:
            return False
        words = self.words
        if self._words_first and not spec_any(words, shaped.words, classify):  # type: ignore[arg-type]
            return False
        if self.args is not None and not spec_any(self.args, positionals, classify):
            return False
        if words is not None and not self._words_first and not spec_any(words, shaped.words, classify):
            return False
        for name, spec in self.options:
            values = shaped.option_values(name)
            if spec.position in _LANDING_POSITIONS:
                values = [w for v in values for w in spec.landings(positionals, v)]
            if not any(spec_test(spec, v, classify) for v in values):
                return False
        return True

    def _redirects_ok(self, command: Command, classify: Any) -> bool:
        spec = self.redirects
        # (home51) `position: truncating`: the redirections that empty their file first (`>`, `>|`, `&>`, `>&`), not
        # an append (`>>`, `&>>`); (adv53) and `<>`, which writes over the file from its start
        ops = _TRUNCATING if spec is not None and spec.position == "truncating" else _OUTPUT_REDIRECTS
        targets = [t for op, t in command.redirects if op in ops]
        if command.settings_targets:  # (debt48) a package manager's configuration of settings only
            classify = _Settings(classify, command.settings_targets)
        if command.literal_targets:
            classify = _Literal(classify, command.literal_targets, True)  # (rows42) `> 'a$(id)b'`: a name as written
        return self.redirects is not None and spec_any(self.redirects, targets, classify)

    def _reads_ok(self, command: Command, classify: Any) -> bool:
        sources = [t for op, t in command.redirects if op in _INPUT_REDIRECTS]
        if command.literal_targets:
            classify = _Literal(classify, command.literal_targets, True)
        return self.reads is not None and spec_any(self.reads, sources, classify)

    def _text_ok(self, command: Command, classify: Any) -> bool:
        return self.text is not None and self.text.search_text(command.text + "\n" + command.stdin) is not None

    def _code_ok(self, command: Command, classify: Any) -> bool:
        return self.code is not None and command.code is not None and search_among(self.code, command.code) is not None

    def _code_paths_ok(self, command: Command, classify: Any) -> bool:
        if self.code_paths is None or command.code is None:
            return False
        paths = code_paths(command.code)
        if command.name in _BARE_WORD_LANGUAGES and ("~/" in command.code or "env(HOME)" in command.code):
            paths = paths + bare_home_paths(command.code)
        return spec_any(self.code_paths, paths, classify)

    def _cwd_ok(self, command: Command, classify: Any, view: View) -> bool:
        # `classify` already reads a relative word under the line's `cd`; "." is that directory.
        # A directory known only at run time (`cd "$D"`, `cd -`, CDPATH) may be any: fail closed.
        spec = self.cwd
        if spec is None:
            return False
        if command.cwd == "$unknown":
            return True
        if not view.holders or SECRET_HOLDER in spec.classes or SECRET_HOLDER in spec.not_classes:
            return spec_test(spec, ".", classify)
        # On a line that sends away, a word's classes include secret_holder after a walk of its
        # folder (View._holds): a spec that names no secret_holder cannot tell the difference.
        view.holders = False
        try:
            return spec_test(spec, ".", classify)
        finally:
            view.holders = True

    def matches_path(self, value: str, classify: Any) -> bool:
        return self.path is not None and spec_test(self.path, value, classify)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_matcher_fields(self) == _matcher_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _MATCHER_FIELDS)


_matcher_fields = attrgetter(*_MATCHER_FIELDS)
native_record(Matcher)


class PatternError(ValueError):
    """A pattern field that does not compile; ``pointer`` locates it inside the pattern."""

    def __init__(self, pointer: list[str | int], message: str) -> None:
        super().__init__(message)
        self.pointer = pointer
        self.message = message


def compile_regex(value: str, pointer: list[str | int], flags: int = 0) -> Regex:
    """``value`` on a linear-time engine (or the bounded fallback: see engine.policy.regexes)."""
    try:
        return compile_linear(value, flags)
    except RegexError as exc:
        raise PatternError(pointer, f"invalid regex {value!r}: {exc}") from None


def _arg_spec(data: Mapping[str, Any], pointer: list[str | int], known: frozenset[str]) -> ArgSpec:
    for key in ("classes", "not_classes"):
        for i, name in enumerate(data.get(key) or ()):
            if name not in known:
                raise PatternError(
                    [*pointer, key, i], f"unknown path class {name!r} (known: {', '.join(sorted(known))})"
                )
    return ArgSpec(
        globs=tuple(_glob(g) for g in data.get("glob") or ()),
        regex=compile_regex(data["regex"], [*pointer, "regex"]) if "regex" in data else None,
        classes=frozenset(data.get("classes") or ()),
        not_classes=frozenset(data.get("not_classes") or ()),
        position=data.get("position", "any"),
    )


def compile_matcher(data: Mapping[str, Any], known_classes: frozenset[str], base: list[str | int]) -> Matcher:
    """Raises:
    PatternError: a regex, glob or class reference that does not compile.
    """
    names: set[str] | None = None
    globs: list[Regex] = []
    for name in data.get("command") or ():
        lowered = name.lower()
        if lowered == "*":
            names = None
            globs = []
            break
        if _WILDCARDS & set(lowered):
            globs.append(_glob(lowered))
        else:
            names = (names or set()) | {lowered}
    return Matcher(
        names=frozenset(names) if names is not None else None,
        name_globs=tuple(globs),
        not_names=frozenset(n.lower() for n in data.get("not_command") or ()),
        subcommands=tuple(tuple(s.lower().split()) for s in data.get("subcommand") or ()),
        not_subcommands=tuple(tuple(s.lower().split()) for s in data.get("not_subcommand") or ()),
        flags=tuple(f.lstrip("-") for f in data.get("flags") or ()),
        all_flags=tuple(f.lstrip("-") for f in data.get("all_flags") or ()),
        without_flags=tuple(f.lstrip("-") for f in data.get("without_flags") or ()),
        args=_arg_spec(data["args"], [*base, "args"], known_classes) if "args" in data else None,
        words=_arg_spec(data["words"], [*base, "words"], known_classes) if "words" in data else None,
        options=tuple(
            (name, _arg_spec(spec, [*base, "options", name], known_classes))
            for name, spec in (data.get("options") or {}).items()
        ),
        redirects=_arg_spec(data["redirects"], [*base, "redirects"], known_classes) if "redirects" in data else None,
        reads=_arg_spec(data["reads"], [*base, "reads"], known_classes) if "reads" in data else None,
        via=frozenset(v.lower() for v in data.get("via") or ()),
        not_via=frozenset(READER_MARK + v.lower() for v in data.get("not_via") or ()),
        fed_by=tuple(_glob(f.lower()) for f in data.get("fed_by") or ()),
        text=compile_regex(data["text"], [*base, "text"]) if "text" in data else None,
        code=compile_regex(data["code"], [*base, "code"]) if "code" in data else None,
        code_paths=_arg_spec(data["code_paths"], [*base, "code_paths"], known_classes)
        if "code_paths" in data
        else None,
        path=_arg_spec(data["path"], [*base, "path"], known_classes) if "path" in data else None,
        cwd=_arg_spec(data["cwd"], [*base, "cwd"], known_classes) if "cwd" in data else None,
        dynamic=data.get("dynamic"),
        no_args=data.get("no_args"),
        indirect=data.get("indirect"),
        self_piped=data.get("self_piped"),
        input_program=data.get("input_program"),
        data_only=data.get("data_only"),
    )


def triggers(data: Mapping[str, Any], classes: Mapping[str, Sequence[str]]) -> tuple[set[str], set[str]] | None:
    """(words, substrings) whose absence proves the matcher cannot match; None if unknown."""
    commands = [c.lower() for c in data.get("command") or ()]
    if commands and "*" not in commands:
        words = {c for c in commands if not _WILDCARDS & set(c)}
        subs = {c.split("*")[0] for c in commands if _WILDCARDS & set(c) and len(c.split("*")[0]) >= 2}
        if len(words) + len(subs) == len(commands):
            return words, subs
        return None
    if data.get("code") is not None or data.get("code_paths") is not None or data.get("data_only") is not None:
        # An inline program: only a program the Programs table reads as running code carries one
        # (Command.code), and the names of every such program are trigger words already.
        return set(), set()
    if data.get("self_piped"):
        # A shell function's definition: `NAME()` (a blank may part the parentheses) or the `function` keyword.
        return {"function"}, {"("}
    if data.get("fed_by"):
        names = [f.lower() for f in data["fed_by"]]
        if not any(_WILDCARDS & set(n) for n in names):
            return set(names), set()
    fragments: set[str] = set()
    # Every condition must hold: the fragments of any one argmatch say when the matcher cannot match
    # (an option's value among them: `options: {"*": {classes: [...]}}`).
    specs = [data.get(key) for key in ("args", "words", "redirects", "reads")]
    specs.extend((data.get("options") or {}).values())
    for spec in specs:
        if not spec:
            continue
        if spec.get("glob"):
            parts = [f for g in spec["glob"] for f in literal_fragments(g)]
        elif spec.get("classes"):
            if set(spec["classes"]) <= EXPANSION_CLASSES:
                # Only a word with `$` or a backtick is in them, and such a text is always parsed.
                return set(), set()
            engine = ENGINE_CLASSES.intersection(spec["classes"])
            if engine:
                # The engine's own file names are added to the fast path at run time (Evaluator);
                # mixed with declared classes, a prefilter could not know them: always parse.
                return (set(), set()) if len(engine) == len(spec["classes"]) else None
            if not all(c in classes for c in spec["classes"]):
                return None
            parts = [
                f for c in spec["classes"] for g in classes[c] if not g.startswith("!") for f in literal_fragments(g)
            ]
        else:
            return None
        if not parts or any(len(p) < 2 for p in parts):
            return None
        fragments.update(p.lower() for p in parts)
        return set(), fragments
    return None
