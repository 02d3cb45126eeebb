"""The Programs table: how ordinary programs read their arguments and what they run.

A `Programs` manifest (policies/executors.yaml) declares, per program, its option
grammar (see :mod:`engine.policy.argv`), its subcommands, and the *runs*: where a
command, a shell string, a script or an inline program hides in its arguments,
its environment or its input (`sed 1e CMD`, `tar --checkpoint-action=exec=CMD`,
`git -c core.pager=CMD`, `ssh -o ProxyCommand=CMD`, `find -exec CMD ;` ...). The
analyzer judges every payload as if it were on the line. Entries carry examples
that are run when the table is compiled, like the danger patterns' examples.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter
from types import MappingProxyType

from engine.errors import Problem
from engine.policy.argv import BARE, REQUIRED, Grammar, GrammarError, Parsed, parse_argv, parse_getopt, parse_long
from engine.policy.executors import OPTION_SPLITTERS, SourceRow, package_sources, settings_only, source_row
from engine.policy.lexer import FD_NAME
from engine.policy.regexes import Regex, RegexTimeout, bounded, compile_linear, fallback_engine
from engine.records import MISSING, FrozenRecord, fields_repr, native_record

# (subst51) A `substitution_words:` row: its spellings (each a command's first words: ("git", "merge-base")), what it
# prints (absolute, revisions, prefixed, names) and the options with which it prints only that (empty: its kind's
# reading decides, paths.lists_tree for a listing)
SubstitutionRow = tuple[tuple[tuple[str, ...], ...], str, frozenset[str]]

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

    from engine.source.yamlfile import Document

# What a payload is: words to run, a shell string, a file to run, or a language to read.
# options: a variable the program reads as options put before its own (TAR_OPTIONS, GIT_WORK_TREE as --work-tree=).
STRUCTURAL = frozenset(
    {
        "argv",
        "shell",
        "file",
        "reparse",
        "options",
        "sed",
        "ex",
        "ed",
        "keys",
        "make",
        "sql",
        "ssh_config",
        "code",
        "path",
        "alias",
    }
)
SOURCES = (
    "rest",
    "option",
    "options",
    "operand",
    "operands",
    "prefixed",
    "env",
    "env_pairs",
    "after",
    "stdin",
    "files",
)


_GLOB = re.compile(r"[*?\[]")


# Run kinds whose operand is program text (awk's, sed's, a shell's), not a file to read.
TEXT_KINDS = frozenset({"code", "sed", "ex", "ed", "shell", "sql", "keys"})


_RUN_FIELDS = (
    "source",
    "kind",
    "names",
    "index",
    "pattern",
    "attached",
    "until",
    "first",
    "language",
    "match",
    "last",
    "variable",
    "value",
    "indirect",
    "spawn",
    "each",
    "placeholder",
    "arguments",
    "replace",
    "with_rest",
    "prepend",
    "input_args",
    "argument_files",
    "decode",
    "if_flags",
    "if_bare",
    "unless_flags",
    "if_operands",
    "unless_operands",
    "positional",
    "under",
    "output",
    "only_under",
    "strip",
    "append",
    "into",
    "default",
    "not_words",
    "outer",
    "entry",
    "unmoved",
)


class Run:
    """One place a program takes something to run from, and how to read it.

    A native class under mypyc (docs/compiled.md), as :class:`Program` is: follow reads a run's fields by the
    dozen on every command of a described program (as a frozen record each read went through a ``__slots__``
    descriptor, and each call of :meth:`applies` made a bound method). It behaves as the frozen record it
    was (equality and hash by its fields, its repr; :func:`engine.records.replace` makes a changed copy);
    nothing assigns a field after ``__init__``."""

    __slots__ = _RUN_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _RUN_FIELDS

    source: Final[str]  # one of SOURCES
    kind: Final[str]  # one of STRUCTURAL
    names: Final[frozenset[str]]  # options, variables, marker words or file names
    index: Final[int]  # operand index
    pattern: Final[Extractor | None]  # `options:` long option names to read (any program); `env:` the globbed names
    attached: Final[bool]  # `options:` only `--name=VALUE`
    until: Final[frozenset[str]]  # words that end an `after:` or a `rest:` payload
    first: Final[bool]  # `after:` only when the marker is the first word of the rest (parallel ::: CMD)
    language: Final[str | None]  # code payloads and files: the interpreter that reads them; options: how they split
    match: Final[Extractor | None]  # the value must match; its `payload` group (if any) is the payload
    last: Final[bool]  # only the last value counts (su -c A -c B runs B)
    variable: Final[bool]  # the value names a variable; its value is the payload (git --config-env=K=VAR)
    # (adv42) with variable: the variable's value must match; its `payload` group (if any) is the payload (an
    # alias's `!CMD` runs CMD: `V='!rm -rf ~' git --config-env=alias.x=V x`)
    value: Final[Extractor | None]
    indirect: Final[bool]  # an escape hatch of a program whose job is not running commands
    spawn: Final[bool]  # report the payload as `sh -c PAYLOAD` (an unknown program runs a shell)
    each: Final[bool]  # each word is a command of its own (parallel ::: A B)
    placeholder: Final[str | None]  # find's {}: what the program found under its starting points
    # Marker words after which the arguments that complete the command are listed (parallel's :::):
    # each one makes a command of its own, put where `replace` matches in it, or appended.
    arguments: Final[frozenset[str]]
    replace: Final[Extractor | None]
    with_rest: Final[bool]  # the option's value starts a command that the remaining words continue
    prepend: Final[str | None]  # a program put before the payload's words (capsh -- ARGS runs bash ARGS)
    # The command's words are completed by what the program reads on stdin (xargs); these options
    # name a marker the input replaces instead (-I R). Set when the run has `input_args`.
    input_args: Final[frozenset[str]]
    # Options naming a file whose lines are the arguments (parallel -a F; `-`, /dev/stdin: its input), as
    # the files after an `until` word that is not one of `arguments` are (parallel's `:::: F`).
    argument_files: Final[frozenset[str]]
    decode: Final[str | None]  # "base64-utf16le" (powershell -EncodedCommand)
    if_flags: Final[frozenset[str]]
    if_bare: Final[frozenset[str]]  # argv.BARE + each option of if_bare: only when one is given without a value
    unless_flags: Final[frozenset[str]]
    if_operands: Final[int]
    unless_operands: Final[int]
    # The operands after the payload are its $0, $1… (`sh -c TEXT NAME ARGS`); for stdin, its $1…
    # ("sh"). "argv": they are its $1… and $argv (`tcsh -c TEXT ARGS`, `fish -c TEXT ARGS`). "": none.
    positional: Final[str]
    # as: file naming a folder of start-up files (HOME, XDG_CONFIG_HOME, ZDOTDIR): the names under it
    # the program may read; one the line or the session wrote (or changed since it began) asks
    under: Final[tuple[str, ...]]
    # as: path: the file the payload stands for, `{}` standing for it (a compiler's default output:
    # `cc x.c` writes a.out, `rustc x.rs` writes x, `tsc x.ts` writes x.js; adv32)
    output: Final[str | None]
    # (xfail40) as: argv with under: only a program found in those folders runs (`yarn NAME`: a bin of
    # node_modules/.bin when NAME is none of yarn's verbs); the words are not read as a command of their own
    only_under: Final[bool]
    # (xfail41) as: path from operands: a name the program computes from an option's value. strip: these options
    # name a suffix the program takes off an operand that ends with it (`gunzip -S .bak ~/.bashrc.bak` writes
    # ~/.bashrc); append: a suffix it puts after every operand (`gzip -S rc ~/.bash` writes ~/.bashrc; no payload
    # without the option); into: a folder it writes the payload into (`unzstd --output-dir-flat ~ .bashrc.zst`
    # writes ~/.bashrc; its base name there, and its whole relative path as --output-dir-mirror keeps it)
    strip: Final[frozenset[str]]
    append: Final[frozenset[str]]
    into: Final[frozenset[str]]
    # (xfail41) operand: N: the value when the program is given no such operand (script's log is ./typescript)
    default: Final[str | None]
    # (debt43) values that are none of the run's: a word among these is not read (a set built at load and looked up
    # per value; git's alias run excludes git's own verbs, which git never reads as an alias)
    not_words: Final[frozenset[str]]
    # (xf45) on a verb's run (`subcommands:`), `option:` names an option of the program's own, given before the verb
    # (git's `-c core.editor=CMD` before `rebase -i`): its values are read there, the verb's flags still condition it
    outer: Final[bool]
    # (entry50) as: file: how the program resolves the file it is given, as it would (node's module resolution,
    # python's folder `__main__.py`, `-m x.y`): the forms tried in order, `{}` the word given, `{/}` the word with
    # its dots as folders; `FORM#KEY` reads the JSON file FORM's KEY (package.json's `main`) and resolves that. The
    # first form whose file the line, the session or the disk holds is the one read; none: the word as given when
    # a form is `{}` itself, else nothing
    entry: Final[tuple[str, ...]]
    # (stop 56) the run's words name files where the program was started, not where its `chdir:` option moves what
    # it reads (cmake's -S DIR: CMakeLists.txt is read in DIR, its build files are written where it runs)
    unmoved: Final[bool]

    def __init__(
        self,
        source: str = "",
        kind: str = "",
        names: frozenset[str] = frozenset(),
        index: int = 0,
        pattern: Extractor | None = None,
        attached: bool = False,
        until: frozenset[str] = frozenset(),
        first: bool = False,
        language: str | None = None,
        match: Extractor | None = None,
        last: bool = False,
        variable: bool = False,
        value: Extractor | None = None,
        indirect: bool = False,
        spawn: bool = False,
        each: bool = False,
        placeholder: str | None = None,
        arguments: frozenset[str] = frozenset(),
        replace: Extractor | None = None,
        with_rest: bool = False,
        prepend: str | None = None,
        input_args: frozenset[str] = frozenset(),
        argument_files: frozenset[str] = frozenset(),
        decode: str | None = None,
        if_flags: frozenset[str] = frozenset(),
        if_bare: frozenset[str] = frozenset(),
        unless_flags: frozenset[str] = frozenset(),
        if_operands: int = 0,
        unless_operands: int = 0,
        positional: str = "",
        under: tuple[str, ...] = (),
        output: str | None = None,
        only_under: bool = False,
        strip: frozenset[str] = frozenset(),
        append: frozenset[str] = frozenset(),
        into: frozenset[str] = frozenset(),
        default: str | None = None,
        not_words: frozenset[str] = frozenset(),
        outer: bool = False,
        entry: tuple[str, ...] = (),
        unmoved: bool = False,
    ) -> None:
        self.source = source
        self.kind = kind
        self.names = names
        self.index = index
        self.pattern = pattern
        self.attached = attached
        self.until = until
        self.first = first
        self.language = language
        self.match = match
        self.last = last
        self.variable = variable
        self.value = value
        self.indirect = indirect
        self.spawn = spawn
        self.each = each
        self.placeholder = placeholder
        self.arguments = arguments
        self.replace = replace
        self.with_rest = with_rest
        self.prepend = prepend
        self.input_args = input_args
        self.argument_files = argument_files
        self.decode = decode
        self.if_flags = if_flags
        self.if_bare = if_bare
        self.unless_flags = unless_flags
        self.if_operands = if_operands
        self.unless_operands = unless_operands
        self.positional = positional
        self.under = under
        self.output = output
        self.only_under = only_under
        self.strip = strip
        self.append = append
        self.into = into
        self.default = default
        self.not_words = not_words
        self.outer = outer
        self.entry = entry
        self.unmoved = unmoved

    def applies(self, present: frozenset[str], operands: int) -> bool:
        if self.if_flags and present.isdisjoint(self.if_flags):
            return False
        if self.if_bare and present.isdisjoint(self.if_bare):
            return False
        if self.unless_flags and not present.isdisjoint(self.unless_flags):
            return False
        if self.if_operands and operands < self.if_operands:
            return False
        return not (self.unless_operands and operands >= self.unless_operands)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_run_fields(self) == _run_fields(other))

    def __hash__(self) -> int:
        return hash(_run_fields(self))

    def __repr__(self) -> str:
        return fields_repr(self, _RUN_FIELDS)


_run_fields = attrgetter(*_RUN_FIELDS)
native_record(Run)


class Send(FrozenRecord):
    """One way a program sends files to another host (its `sends:`, read by evaluate._sends_away): a copy
    to another host's path (`scp -r . h:`), an upload verb (`croc send .`, `az storage blob upload-batch`),
    a destination option naming a URL (`az storage copy -d https://...`), a batch script that puts files
    (`lftp -e 'mirror -R .'`). Every test is a set test or a table regex compiled when the table is."""

    __slots__ = ("verbs", "to", "options", "operands", "match", "unless", "script", "without", "stream")  # noqa: RUF023

    verbs: frozenset[str]  # one of these must be among its words (`send`, `upload-batch`); empty: any
    to: str  # where the destination is: "last" (the last word that is no option), "any" (every word), "option"
    options: tuple[str, ...]  # to: option: the spellings whose value is the destination (`-d`, `--destination`)
    operands: int  # at least this many words that are no option (`mc cp SRC DEST`)
    match: Extractor | None  # the destination must match (searched); None: the verbs alone say it sends
    unless: Extractor | None  # ... and not match this (`file://`, restic's `local:`)
    script: Extractor | None  # searched in its input (a here-string) and in each word: a batch script's put
    without: tuple[str, ...]  # none of these options given (`restic backup .`: the environment's repository)
    # (`input: true`) it sends what it reads, its input or a file named to it (`tar c . | nc h 80`, `curl -T
    # x.tgz URL`): alone, its words say nothing (evaluate._sends_away reads who feeds it)
    stream: bool

    def __init__(
        self,
        verbs: frozenset[str] = frozenset(),
        to: str = "",
        options: tuple[str, ...] = (),
        operands: int = 0,
        match: Extractor | None = None,
        unless: Extractor | None = None,
        script: Extractor | None = None,
        without: tuple[str, ...] = (),
        stream: bool = False,
    ) -> None:
        object.__setattr__(self, "verbs", verbs)
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "operands", operands)
        object.__setattr__(self, "match", match)
        object.__setattr__(self, "unless", unless)
        object.__setattr__(self, "script", script)
        object.__setattr__(self, "without", without)
        object.__setattr__(self, "stream", stream)

    def sends(self, argv: tuple[str, ...], stdin: str) -> bool:
        """Whether the command ``argv`` (with ``stdin``, its here-string or here-document) sends this way."""
        if self.stream:
            return False  # what it reads is sent: whether a tree reader feeds it is the line's (evaluate)
        if self.verbs and self.verbs.isdisjoint(argv):
            return False
        if self.without and any(w.startswith(o) for w in argv[1:] for o in self.without):
            return False  # one given (`-r X`, `-rX`, `--repo X`, `--repo=X`)
        if self.operands and sum(1 for w in argv[1:] if not w.startswith("-")) < self.operands:
            return False
        script = self.script
        if script is not None:
            return (bool(stdin) and script.search(stdin) is not None) or any(
                script.search(w) is not None for w in argv[1:]
            )
        match = self.match
        if match is None:
            return True
        for value in self._destinations(argv):
            if match.search(value) is not None and (self.unless is None or self.unless.search(value) is None):
                return True
        return False

    def _destinations(self, argv: tuple[str, ...]) -> list[str]:
        if self.to == "last":
            for word in reversed(argv[1:]):
                if not word.startswith("-"):
                    return [word]
            return []
        if self.to == "any":
            return list(argv[1:])
        found: list[str] = []
        for i, word in enumerate(argv):
            for option in self.options:
                if word == option:
                    if i + 1 < len(argv):
                        found.append(argv[i + 1])
                elif word.startswith(option) and len(word) > len(option):
                    if option.startswith("--"):
                        if word[len(option)] == "=":
                            found.append(word[len(option) + 1 :])
                    else:
                        found.append(word[len(option) :])  # `-dVALUE`
        return found


class DeletesListed(FrozenRecord):
    """(fp48) A lister that deletes what it lists (its `deletes_listed:`, read by evaluate._listed_deletes):
    `find . -name '*.pyc' -delete` and `find . -name '*.log' -exec rm {} +` are the `rm -f $(find . -name
    '*.pyc')` they are, `fd -e pyc -X rm` is `rm -f $(fd -e pyc)`. The listing is the command less its
    deleting action (`actions:`) or its run (one of `runs:` at its end, running one of `deleters:` given only
    the flags `deleter_flags:`, then the placeholder and the run's end); every other word is one of `keeps:` (a
    word the listing reads as a plain listing; NAME= takes the next word as its value), or an operand (before the
    first option when `operands_first:`; none of `operators:`), and one of `needs:` is among them (its name
    test)."""

    __slots__ = (  # noqa: RUF023
        "actions",
        "runs",
        "deleters",
        "short_flags",
        "long_flags",
        "keeps",
        "valued",
        "needs",
        "operands_first",
        "operators",
        "prunes",
    )

    actions: frozenset[str]  # `-delete`: deletes every entry the rest of the command lists
    runs: frozenset[str]  # `-exec`, `-X`: the options whose run (to the command's end) may be a deleter's
    deleters: frozenset[str]  # `rm`, `/bin/rm`: what such a run must run
    short_flags: frozenset[str]  # the deleter's one-letter flags allowed (`f`, `v`: -f, -fv)
    long_flags: frozenset[str]  # ... and long ones (`--force`)
    keeps: frozenset[str]  # the listing's words read as a plain listing (without a value)
    valued: frozenset[str]  # ... and those taking the next word as their value (`-name GLOB`)
    needs: frozenset[str]  # one of these among the listing's words (empty: none needed)
    operands_first: bool  # its operands (start points) come before its first option (find's expression)
    operators: frozenset[str]  # words that are no operand though they start with no dash (find's `!`, `(`, `,`)
    # (fp48) the words of a pruned branch before its alternative, `TEST VALUE PRUNE EITHER` after the operands (find's
    # `-path ./.venv -prune -o`: tests, then the prune word, then the alternative's words): it deletes less than the
    # rest alone lists, and is read as the rest (empty: (tests, prune, either) none)
    prunes: tuple[frozenset[str], str, frozenset[str]]

    def __init__(
        self,
        actions: frozenset[str] = frozenset(),
        runs: frozenset[str] = frozenset(),
        deleters: frozenset[str] = frozenset(),
        short_flags: frozenset[str] = frozenset(),
        long_flags: frozenset[str] = frozenset(),
        keeps: frozenset[str] = frozenset(),
        valued: frozenset[str] = frozenset(),
        needs: frozenset[str] = frozenset(),
        operands_first: bool = False,
        operators: frozenset[str] = frozenset(),
        prunes: tuple[frozenset[str], str, frozenset[str]] = (frozenset(), "", frozenset()),
    ) -> None:
        object.__setattr__(self, "actions", actions)
        object.__setattr__(self, "runs", runs)
        object.__setattr__(self, "deleters", deleters)
        object.__setattr__(self, "short_flags", short_flags)
        object.__setattr__(self, "long_flags", long_flags)
        object.__setattr__(self, "keeps", keeps)
        object.__setattr__(self, "valued", valued)
        object.__setattr__(self, "needs", needs)
        object.__setattr__(self, "operands_first", operands_first)
        object.__setattr__(self, "operators", operators)
        object.__setattr__(self, "prunes", prunes)

    def listing(self, argv: tuple[str, ...]) -> tuple[tuple[str, ...], str, tuple[str, ...]] | None:
        """The listing ``argv`` deletes (its words less the deleting action or run), the deleter its run runs
        ("" for an action), and its operands; None when it deletes no listing of this shape."""
        words = list(argv[1:])
        deleter = ""
        at = next((i for i, word in enumerate(words) if word in self.runs), -1)
        if at >= 0:
            tail = words[at + 1 :]
            if not tail or tail[0] not in self.deleters:
                return None
            end = len(tail)
            if end > 1 and tail[-1] in (";", "+"):
                end -= 1
            if end > 1 and tail[end - 1] == "{}":
                end -= 1
            for flag in tail[1:end]:
                if flag.startswith("--"):
                    if flag[2:] not in self.long_flags:
                        return None
                elif len(flag) < 2 or flag[0] != "-" or not self.short_flags.issuperset(flag[1:]):
                    return None
            deleter, words = tail[0].rsplit("/", 1)[-1], words[:at]
        tests, prune, either = self.prunes
        if prune and prune in words:
            at = next((i for i, word in enumerate(words) if word[:1] == "-" or word in self.operators), len(words))
            while words[at : at + 1] and words[at] in tests and words[at + 2 : at + 3] == [prune]:
                if words[at + 3 : at + 4] == [] or words[at + 3] not in either:
                    return None
                words = words[:at] + words[at + 4 :]
        acting = [w for w in words if w in self.actions]
        if bool(acting) == bool(deleter):  # one way of deleting: an action, or the run at its end
            return None
        listing: list[str] = []
        operands: list[str] = []
        needed = not self.needs
        value = False
        optioned = False
        acted = False
        for word in words:
            if value:
                value = False
            elif word in self.actions:
                acted = True
                continue
            elif word in self.valued:
                if acted:  # (unseen48) read left to right: a test after the action gates nothing it deleted
                    return None
                value = optioned = True
                needed = needed or word in self.needs
            elif word in self.keeps:
                optioned = True
                needed = needed or word in self.needs
            elif word[:1] == "-" or word in self.operators or (optioned and self.operands_first):
                return None
            else:
                operands.append(word)
            listing.append(word)
        if value or not needed:
            return None
        return (argv[0], *listing), deleter, tuple(operands)


def _deletes_listed(data: Mapping[str, Any] | None) -> DeletesListed | None:
    if not data:
        return None
    flags = [str(f) for f in data.get("deleter_flags") or ()]
    keeps = [str(k) for k in data.get("keeps") or ()]
    return DeletesListed(
        frozenset(str(a) for a in data.get("actions") or ()),
        frozenset(str(r) for r in data.get("runs") or ()),
        frozenset(str(d) for d in data.get("deleters") or ()),
        frozenset(f for f in flags if len(f) == 1),
        frozenset(f for f in flags if len(f) > 1),
        frozenset(k for k in keeps if not k.endswith("=")),
        frozenset(k[:-1] for k in keeps if k.endswith("=")),
        frozenset(str(n) for n in data.get("needs") or ()),
        bool(data.get("operands_first")),
        frozenset(str(o) for o in data.get("operators") or ()),
        (
            frozenset(str(t) for t in (data.get("prunes") or {}).get("tests") or ()),
            str((data.get("prunes") or {}).get("prune") or ""),
            frozenset(str(e) for e in (data.get("prunes") or {}).get("either") or ()),
        ),
    )


def sends_away(ways: tuple[Send, ...], argv: tuple[str, ...], stdin: str) -> bool:
    """Whether a command of a program whose `sends:` are ``ways`` sends files to another host."""
    return any(way.sends(argv, stdin) for way in ways)


_PROGRAM_FIELDS = (
    "names",
    "grammar",
    "runs",
    "subcommands",
    "windows",
    "prints",
    "prints_with",
    "active",
    "reparse",
    "option_names",
    "plain_runs",
    "word_runs",
    "text_runs",
    "option_word_runs",
    "carried_runs",
    "permutes_command",
    "separator",
    "pieces_prefix",
    "unpacks_here",
    "keeps_tree",
    "deletes_listed",
    "unpacks_into",
    "reads_planted",
)
_NO_GRAMMAR = Grammar()


class Program:
    """What a program runs, by its grammar: its runs and its subcommands'.

    A native class under mypyc (docs/compiled.md), as is :class:`ProgramTable`: a check reads their
    fields as C struct members (as frozen records, each read was a lookup through a ``__slots__``
    descriptor, ~150 instructions, dozens a check). Each behaves as the record it was (equality
    and hash by its fields, its repr); the guard's cache pickles them field by field
    (engine.records.NATIVE_RECORDS), so every ``__init__`` parameter has a default. Nothing
    assigns a field after ``__init__``."""

    __slots__ = _PROGRAM_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _PROGRAM_FIELDS
    # the rest __init__ works out
    _init_fields: ClassVar[tuple[str, ...]] = (
        *_PROGRAM_FIELDS[:7],
        "separator",
        "pieces_prefix",
        "unpacks_here",
        "keeps_tree",
        "deletes_listed",
        "unpacks_into",
        "reads_planted",
    )

    names: Final[tuple[str, ...]]
    grammar: Final[Grammar]
    runs: Final[tuple[Run, ...]]
    subcommands: Final[Mapping[str, Program]]
    windows: Final[bool]  # a cmd.exe / PowerShell program: backslashes are path separators
    # How its output is computed from its words (`prints:`, shell.printed_words): "" when not described
    prints: Final[str]
    # The options with which it prints `prints:` (grep -l: the names of files); empty: always
    prints_with: Final[frozenset[str]]
    active: Final[bool]  # it, or one of its subcommands, runs something
    reparse: Final[Run | None]  # env -S: words put back in its arguments
    # For skipping runs quickly: the options any run reads, the runs that read no option, and of
    # those the ones that read only the words (no variables, input or files).
    option_names: Final[frozenset[str]]
    plain_runs: Final[tuple[Run, ...]]
    word_runs: Final[tuple[Run, ...]]
    # The runs whose operand is program text (TEXT_KINDS): what matchers.shape reads of every
    # command of the program, found here once instead of in all its runs on each check.
    text_runs: Final[tuple[Run, ...]]
    # The `*` entry's runs read on every undescribed program's words (follow.follow_unknown): those of
    # its option words (`options:`), and those of a wrapper's operands (`after:` with the rest)
    option_word_runs: Final[tuple[Run, ...]]
    carried_runs: Final[tuple[Run, ...]]
    # It reads options anywhere (a getopt string without `+`) and runs the words after them as a command (`runuser -u U
    # CMD`): with POSIXLY_CORRECT in its environment its options end at the first operand instead
    # (shell._posix_reading)
    permutes_command: Final[bool]
    # The word that ends one of its commands and starts another, run in turn (tmux's `;`, spelled `\;` in a
    # shell): "" when it has none
    separator: Final[str]
    # (debt42) A splitter (`split`, `csplit`): the prefix it names the files it cuts a file into with when the line
    # gives none (its `as: path, prepend: tee` run names where the line gives one: trees.split_prefix); "" none
    pieces_prefix: Final[str]
    # (adv41, debt42) It writes files whose names the line does not show under the folder it runs in (an archive's
    # members, a patch's targets): through a link below that folder it writes where the link points
    # (shell.Analyzer._links_here). Read by name through ProgramTable.unpacks_here.
    unpacks_here: Final[bool]
    # (stop 48) Its verbs (first operand) that write nothing under that folder (`git status`, `git add`): with one of
    # them it unpacks nothing there (Program.writes_tree)
    keeps_tree: Final[frozenset[str]]
    # (fp48) It deletes what it lists (`find -delete`, `fd -X rm`: its `deletes_listed:`); None: it does not
    deletes_listed: Final[DeletesListed | None]
    # (xf49) The options with which it writes names the line does not show into its destination (its `-t DIR` or last
    # operand: `cp -r e/. sub/`, `rsync -a e/ sub/`; `*`: always, `mv e sub`): a glob there later on the line reads
    # that folder's names as unknown, as after an `unpacks_here` command (Program.unpacks_target)
    unpacks_into: Final[frozenset[str]]
    # (xf49) An option a glob puts among its words changes which files it changes, though none runs anything (rm's
    # -r: `git checkout B; rm *` with a checked-out `-rf` deletes the folders too): read as an `active` program's
    # globs after names the line does not show (shell.Analyzer._unknown_names)
    reads_planted: Final[bool]

    def __init__(
        self,
        names: tuple[str, ...] = (),
        grammar: Grammar | None = None,
        runs: tuple[Run, ...] = (),
        subcommands: Mapping[str, Program] = MISSING,
        windows: bool = False,
        prints: str = "",
        prints_with: frozenset[str] = frozenset(),
        separator: str = "",
        pieces_prefix: str = "",
        unpacks_here: bool = False,
        keeps_tree: frozenset[str] = frozenset(),
        deletes_listed: DeletesListed | None = None,
        unpacks_into: frozenset[str] = frozenset(),
        reads_planted: bool = False,
    ) -> None:
        self.names = names
        self.grammar = _NO_GRAMMAR if grammar is None else grammar
        self.runs = runs
        self.subcommands = {} if subcommands is MISSING else subcommands
        self.windows = windows
        self.prints = prints
        self.prints_with = prints_with
        self.separator = separator
        self.pieces_prefix = pieces_prefix
        self.unpacks_here = unpacks_here
        self.keeps_tree = keeps_tree
        self.deletes_listed = deletes_listed
        self.unpacks_into = unpacks_into
        self.reads_planted = reads_planted
        active = bool(runs) or any(sub.active for sub in self.subcommands.values())
        self.active = active
        self.reparse = next((r for r in runs if r.kind == "reparse"), None)
        reading_options = [
            r for r in runs if (r.source == "option" and not r.outer) or (r.with_rest and r.source != "operand")
        ]
        option_names: frozenset[str] = frozenset()
        if reading_options:
            option_names = option_names.union(*(r.names for r in reading_options))
        plain = tuple(r for r in runs if r not in reading_options)
        elsewhere = ("env", "env_pairs", "stdin", "files")
        self.option_names = option_names
        self.plain_runs = plain
        self.word_runs = tuple(r for r in plain if r.source not in elsewhere)
        self.text_runs = tuple(r for r in runs if r.source == "operand" and r.kind in TEXT_KINDS)
        self.option_word_runs = tuple(r for r in runs if r.source == "options" and r.pattern is not None)
        self.carried_runs = tuple(r for r in runs if r.source == "after" and r.with_rest)
        self.permutes_command = (
            bool(self.grammar.short)
            and not self.grammar.stop_at_operand
            and any(r.source == "rest" and r.kind == "argv" and not r.with_rest for r in runs)
        )

    def subcommand(self, word: str) -> Program | None:
        return self.subcommands.get(word.lower()) if self.subcommands else None

    def writes_tree(self, argv: Sequence[str]) -> bool:
        """Whether ``argv`` writes names the line does not show under the folder it runs in: its `unpacks_here`,
        unless its verb (first operand) is one of `keeps_tree` (`git status`: `git checkout B` writes them)."""
        if not self.unpacks_here:
            return False
        if not self.keeps_tree:
            return True
        operands = parse_argv(self.grammar, argv).all_operands(argv)
        return not operands or operands[0] not in self.keeps_tree

    def unpacks_target(self, argv: Sequence[str]) -> tuple[str, ...]:
        """(xf49) The destinations ``argv`` writes names the line does not show into, by its `unpacks_into:` (`cp -r
        e/. sub/`: `sub/`; `mv e sub`: `sub`): its `-t DIR` (a letter `t` taking a value) or its last operand of two
        or more; none without one of the options, or with fewer operands (`cp a b` copies a file it names).
        (unpack50) An option of `unpacks_into:` that takes a value names a destination itself (tar's `-C DIR`,
        unzip's `-d DIR`: every value); a verb's own `unpacks_into:` reads the words after the verb (`git clone URL
        DIR`: `DIR`)."""
        wanted = self.unpacks_into
        grammar = self.grammar
        parsed = parse_argv(grammar, argv) if wanted or self.subcommands else None
        valued = [] if parsed is None else [v for name, v, _ in parsed.options if v is not None and name in wanted]
        if self.subcommands:
            levels = None if parsed is None else _verb_levels(self, parsed, argv)
            if levels is not None:
                sub, at = levels
                # (a verb's destination is read where the program's own folder option moved it: `git -C d clone U r`)
                moved = [] if parsed is None else parsed.values(grammar.chdir)
                base = moved[-1] if moved else ""
                valued.extend(posixpath.join(base, target) for target in sub.unpacks_target(argv[at:]))
        if valued or not wanted or parsed is None:
            return tuple(valued)
        if "*" not in wanted and not any(not wanted.isdisjoint(grammar.names(option[0])) for option in parsed.options):
            return ()
        if grammar.short.get("t") == REQUIRED:
            targets = parsed.values(frozenset({"t"}))
            if targets:
                return (targets[-1],)
        operands = parsed.operands
        return (operands[-1],) if len(operands) > 1 else ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_program_fields(self) == _program_fields(other))

    def __hash__(self) -> int:
        return hash(_program_fields(self))

    def __repr__(self) -> str:
        return fields_repr(self, _PROGRAM_FIELDS)


_program_fields = attrgetter(*_PROGRAM_FIELDS)


def subcommand_levels(program: Program, parsed: Parsed, argv: Sequence[str]) -> list[tuple[Program, Parsed]]:
    """The program and the subcommands its operands name (`git -C d push` → git, push), each
    with its own reading of the words after it (its ``start``: the word after the verb). Kept on ``parsed`` for the
    matchers (the levels below the program: ``parsed`` holding itself would be freed by the cycle collector only).
    (debt51: moved from follow.py, which re-exports it; Program.unpacks_target walks the verbs with it too.)"""
    if parsed.levels is not None:
        return [(program, parsed), *parsed.levels]
    levels = [(program, parsed)]
    current, at = program, parsed
    while current.subcommands:
        index = at.operand_at[0] if at.operand_at else at.rest
        if index is None or index >= len(argv):
            break
        sub = current.subcommand(argv[index])
        if sub is None:
            break
        at = parse_argv(sub.grammar, argv, start=index + 1)
        current = sub
        levels.append((sub, at))
    parsed.levels = levels[1:]
    return levels


def stdin_run(command: Any) -> Any:
    """The Programs table's `stdin: true` run that applies to ``command`` (its input is read as a
    program, a shell's commands, ex or SQL commands), or None. (stop 55: moved from session_memory.py for the
    matchers' `input_program`.)"""
    program = command.program
    if program is None or not program.active:
        return None
    argv = list(command.argv)
    parsed = command.reading
    if any(FD_NAME.fullmatch(word) for word in argv[1:]):
        # `sh {fd}< x`: `{fd}` names the descriptor a redirection opens, no word of sh's
        argv = [argv[0], *(word for word in argv[1:] if not FD_NAME.fullmatch(word))]
        parsed = None
    if parsed is None:
        parsed = parse_argv(program.grammar, argv)
    if parsed.refused:
        return None
    for level, reading in subcommand_levels(program, parsed, argv):
        present = reading.present()
        count = len(reading.operands) + (len(argv) - reading.rest if reading.rest is not None else 0)
        for run in level.runs:
            if run.source == "stdin" and run.applies(present, count):
                return run
    return None


def reads_input_program(command: Any) -> bool:
    """(stop 55) Whether ``command`` may read its input as its program (a matcher's `input_program`): a `stdin: true`
    run of the Programs table applies to its words (`python3`, `python3 -i x.py`, `node`), or a word names its input as
    a file (`python3 -`, `perl /dev/stdin`), or the table does not describe it (fail closed). Not `python3 -m
    json.tool`, `python3 -c CODE` or `node x.js`: their program is elsewhere (an inline program is judged as one)."""
    from engine.policy.follow import stdin_file  # noqa: PLC0415 (follow imports this module)

    program = command.program
    if program is None or not program.active or stdin_run(command) is not None:
        return True
    cwd = command.cwd
    # (rev55) and, failing closed, a word that may name it any other way: through `..` from wherever it runs
    # (`python3 ../../../../dev/stdin`), a glob (`/dev/stdi?`), inside an option's value (`ruby -r/dev/stdin`, `php -d
    # auto_prepend_file=php://stdin`)
    # (rev55b) `/dev//stdin`, `/dev/./stdin`: the same file
    # (stop 57, adv57) not the inline program's own text, judged as a program (`node -p 'JSON.parse(require("fs")
    # .readFileSync("/dev/stdin", "utf8")).v'` reads its input as data: the data_only rows)
    code = command.code
    return any(
        (stdin_file(word, cwd) or _MAY_NAME_INPUT.search(_EXTRA_SLASHES.sub("/", word)) is not None) and word != code
        for word in command.argv[1:]
    )


_EXTRA_SLASHES: Final = re.compile(r"/(?:\.?/)+")
# (rev55) The spellings of a program's own input a word may hold (see reads_input_program)
# (a path word with a glob in it: no blank or quote, a `/` and one of `*?[`; an inline program's text has its quotes)
_MAY_NAME_INPUT: Final = re.compile(
    r"dev/std|fd/0(?![0-9])|php:/+std|/proc/[^/]*/fd|^[^\s'\"]*/[^\s'\"]*[*?\[]|^[^\s'\"]*[*?\[][^\s'\"]*/"
)


def _verb_levels(program: Program, parsed: Parsed, argv: Sequence[str]) -> tuple[Program, int] | None:
    """(unpack50) The deepest verb of ``program`` that ``argv`` (read as ``parsed``) names (`git clone URL DIR`:
    clone) with where its words start (the verb's own index, read as its argv[0]); None: no verb named.
    (debt51) The last of subcommand_levels: its reading starts at the word after the verb."""
    levels = subcommand_levels(program, parsed, argv)
    if len(levels) < 2:
        return None
    sub, reading = levels[-1]
    return sub, reading.start - 1


native_record(Program)


def runs_nothing(program: Program, parsed: Parsed) -> bool:
    """Whether ``program``, reading its words as ``parsed``, prints its help or version, or only parses, and
    exits (its grammar's `runs_nothing`: argv.runs_nothing). Not when it splits an option's value into its
    words first (`env -S'sh -c CMD' --help` runs CMD: --help is then the shell's $0): that reading is judged
    again on the words it makes (follow._reparse)."""
    if not parsed.quiet:
        return False
    reparse = program.reparse
    return reparse is None or not parsed.has(reparse.names)


_TABLE_FIELDS = (
    "by_name",
    "anyone",
    "everyone",
    "senders",
    "command_readers",
    "keeps_environment",
    "unpacks_here",
    "package_sources",
    "makes_no_names",
    "writes_through",
    "substitution_words",
)


class ProgramTable:
    """The programs a policy describes, by name, and the runs of every program (native: see Program)."""

    __slots__ = _TABLE_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _TABLE_FIELDS

    by_name: Final[Mapping[str, Program]]
    anyone: Final[Program | None]  # runs that apply to every program not in the table ("*")
    everyone: Final[Program | None]  # environment runs that apply to every program ("**")
    # The ways each program sends files to another host (`sends:`), by name: one lookup a command
    # (evaluate._sends_away). A program described by nothing else is in no other field: its words are
    # read as an undescribed program's (the `*` runs apply to it).
    senders: Final[Mapping[str, tuple[Send, ...]]]
    # The programs that read commands from their input (`command_readers:`): a write to one started in the
    # background is judged as its input, by line (session_memory.reader_kind). A project's add to the builtin.
    command_readers: Final[frozenset[str]]
    # (xfail40) The wrappers that start their command with the environment the line gave them, or a narrower one
    # (`keeps_environment:`): a command reached through any other (`direnv exec`, `pipenv run`, a login shell)
    # may get variables no word of the line names (POSIXLY_CORRECT: evaluate._environment_unknown).
    keeps_environment: Final[frozenset[str]]
    # (debt42) The names whose entry says `unpacks_here: true` (Program.unpacks_here), a described program's and
    # one described by nothing else (`unrar`: kept out of by_name, its words read as an undescribed program's)
    unpacks_here: Final[frozenset[str]]
    # (debt48) The `package_sources:` rows: per kind of package manager's file, the keys naming a source, those
    # naming a credential or a program, the sections not read (executors.package_sources reads them)
    package_sources: Final[tuple[SourceRow, ...]]
    # (fp49, debt50) The programs that make no entry of the tree whatever their words (`makes_no_names: {names:}`):
    # shell builtins that only read or set the shell's state, filters and selectors of a listing, deleters, wrappers
    # whose program is a command of its own (shell.Analyzer._makes_names). A project's names add to the builtin ones.
    makes_no_names: Final[frozenset[str]]
    # (link50, debt51) The programs that delete or write through the paths their words name (`writes_through:`), by
    # name: (last, last_name): only their last word (a copy's destination), and whether they open a link at a word's
    # last name too (cp's destination, tee, chmod). A described program's and one described by nothing else (`shred`:
    # its words stay an undescribed program's). Read by shell.Analyzer._through_unknown.
    writes_through: Final[Mapping[str, tuple[bool, bool]]]
    # (subst51) What a command substitution's words are (`substitution_words:`): per spelling of a command (its
    # words: `git merge-base`), what it prints (absolute / revisions / prefixed / names) and the options with which
    # it prints only that (SubstitutionRow; shell.substitution_kind reads them). A command no row names prints anything.
    substitution_words: Final[tuple[SubstitutionRow, ...]]

    def __init__(
        self,
        by_name: Mapping[str, Program] = MISSING,
        anyone: Program | None = None,
        everyone: Program | None = None,
        senders: Mapping[str, tuple[Send, ...]] = MISSING,
        command_readers: frozenset[str] = frozenset(),
        keeps_environment: frozenset[str] = frozenset(),
        unpacks_here: frozenset[str] = frozenset(),
        package_sources: tuple[SourceRow, ...] = (),
        makes_no_names: frozenset[str] = frozenset(),
        writes_through: Mapping[str, tuple[bool, bool]] = MISSING,
        substitution_words: tuple[SubstitutionRow, ...] = (),
    ) -> None:
        self.by_name = {} if by_name is MISSING else by_name
        self.anyone = anyone
        self.everyone = everyone
        self.senders = {} if senders is MISSING else senders
        self.command_readers = command_readers
        self.keeps_environment = keeps_environment
        self.unpacks_here = unpacks_here
        self.package_sources = package_sources
        self.makes_no_names = makes_no_names
        self.writes_through = {} if writes_through is MISSING else writes_through
        self.substitution_words = substitution_words

    def get(self, name: str) -> Program | None:
        return self.by_name.get(name)

    def triggers(self) -> tuple[frozenset[str], frozenset[str]]:
        """(words, substrings) whose presence means a line may run something through this table:
        the names of programs that run something and of the variables every program obeys, and for
        options of any program whose value is a command, the `=!` of `--hook=!cmd` (a value naming
        a shell names a trigger word already)."""
        words = {name for name, program in self.by_name.items() if program.active}
        if self.everyone is not None:  # LD_PRELOAD=... cmd
            words |= {name.lower() for run in self.everyone.runs for name in run.names}
        return frozenset(words), frozenset({"=!"} if self.anyone is not None else ())

    def __len__(self) -> int:
        return len(self.by_name)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_table_fields(self) == _table_fields(other))

    def __hash__(self) -> int:
        return hash(_table_fields(self))

    def __repr__(self) -> str:
        return fields_repr(self, _TABLE_FIELDS)


_table_fields = attrgetter(*_TABLE_FIELDS)
native_record(ProgramTable)


EMPTY = ProgramTable()


class TableError(ValueError):
    def __init__(self, pointer: list[str | int], message: str) -> None:
        super().__init__(message)
        self.pointer = pointer
        self.message = message


class Extractor:
    """A table regex, run on the bounded `regex` engine: the model writes the text it searches,
    so a search past ``FALLBACK_TIMEOUT`` of CPU time raises RegexTimeout (the evaluator then fails closed)."""

    __slots__ = ("compiled", "linear", "literal", "pattern", "payloads", "prefix", "quick")
    compiled: Any
    linear: Regex | None
    literal: str | None
    payloads: tuple[str, ...]
    prefix: str
    quick: Regex | None

    def __init__(self, pattern: str, revived: tuple[Any, ...] | None = None) -> None:
        self.pattern = pattern
        if revived is not None:
            # Read back from the compiled-project cache: the `regex` pattern is compiled on first use
            # (:meth:`_regex`; not through ``__getattr__``, which a native class never reaches).
            self.payloads, self.prefix, self.quick, self.literal, self.linear = revived
            self.compiled = None
            return
        self.compiled = fallback_engine().compile(pattern, fallback_engine().V0)
        # Groups named payload, payload2, ...: the first that took part in the match is the payload.
        self.payloads = tuple(sorted(g for g in self.compiled.groupindex if g.startswith("payload")))
        self.prefix = _literal_prefix(pattern)
        # Most values do not match: RE2 says so first, in linear time; groups are read only on a match.
        quick = compile_linear(pattern)
        self.quick = quick if quick.linear else None
        # Whole-text tests need no groups: a literal is compared, anything else runs on RE2.
        self.literal = pattern if not _META.search(pattern) else None
        flags = _FLAGS.match(pattern)
        head = flags.group() if flags else ""
        whole = compile_linear(f"{head}(?:{pattern[len(head) :]})\\Z")
        self.linear = whole if whole.linear else None

    def __reduce__(self) -> tuple[Any, ...]:
        # For the compiled-project cache: everything but the `regex` pattern, compiled on first use.
        state = (self.pattern, self.payloads, self.prefix, self.quick, self.literal, self.linear)
        return (_revive_extractor, state)

    def search(self, text: str) -> Any:
        if self.prefix and not text.startswith(self.prefix):
            return None  # `^ext::...` cannot match what does not start with `ext::`
        if self.quick is not None and not self.quick.search(text):
            return None
        return bounded(self.pattern, self._regex().search, text)

    def finditer(self, text: str) -> list[Any]:
        """Every match in ``text``, in order."""
        if self.prefix and not text.startswith(self.prefix):
            return []
        if self.quick is not None and not self.quick.search(text):
            return []
        regex = self._regex()
        return list(bounded(self.pattern, lambda t, timeout: list(regex.finditer(t, timeout=timeout)), text))

    def sub(self, replacement: str, text: str) -> str:
        """``text`` with every match replaced by ``replacement`` (taken literally)."""
        if self.quick is not None and not self.quick.search(text):
            return text
        return str(bounded(self.pattern, self._regex().sub, lambda _: replacement, text))

    def fullmatch(self, text: str) -> bool:
        if self.literal is not None:
            return text == self.literal
        if self.linear is not None:
            return bool(self.linear.match(text))
        return bounded(self.pattern, self._regex().fullmatch, text) is not None

    def _regex(self) -> Any:
        """The `regex` module's pattern (compiled here first for an extractor read back from the cache)."""
        if self.compiled is None:
            self.compiled = fallback_engine().compile(self.pattern, fallback_engine().V0)
        return self.compiled


def _revive_extractor(
    pattern: str, payloads: tuple[str, ...], prefix: str, quick: Any, literal: str | None, linear: Any
) -> Extractor:
    """An :class:`Extractor` read back from the cache: its `regex` pattern compiled when first used."""
    return Extractor(pattern, (payloads, prefix, quick, literal, linear))


_META = re.compile(r"[\\.^$*+?{}\[\]|()]")
_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")


def _literal_prefix(pattern: str) -> str:
    """The literal text every match starts with, for an anchored, case-sensitive pattern."""
    if not pattern.startswith("^"):
        return ""
    out = []
    for ch in pattern[1:]:
        if ch in "\\.^$*+?{}[]|()":
            break
        out.append(ch)
    # A quantifier may follow the last character and make it optional.
    return "".join(out[:-1]) if out else ""


def _regex(value: str, pointer: list[str | int]) -> Extractor:
    try:
        re.compile(value)
        return Extractor(value)
    except Exception as exc:  # re's error for a bad pattern; the regex module's for one it refuses
        raise TableError(pointer, f"invalid regex {value!r}: {exc}") from None


def _grammar(data: Mapping[str, Any], base: list[str | int], short_equals: bool = False) -> Grammar:
    try:
        short, stop, plus = parse_getopt(data.get("getopt") or "")
    except GrammarError as exc:
        raise TableError([*base, "getopt"], str(exc)) from None
    try:
        spelled = data.get("long") or ()  # (an item may be a list: `[*uv_long, script=]`)
        long, aliases = parse_long([n for item in spelled for n in ([item] if isinstance(item, str) else item)])
    except GrammarError as exc:
        raise TableError([*base, "long"], str(exc)) from None
    ignore_case = bool(data.get("ignore_case"))
    if ignore_case:
        long = {k.lower(): v for k, v in long.items()}
        aliases = {_fold(k): _fold(v) for k, v in aliases.items()}
    known = frozenset(short) | frozenset(long)

    def canonical(key: str, names: Iterable[str]) -> frozenset[str]:
        return frozenset(
            _option_name(name, known, aliases, ignore_case, [*base, key, i]) for i, name in enumerate(names)
        )

    values = {
        next(iter(canonical("values", [name]))): _regex(regex, [*base, "values", name])
        for name, regex in (data.get("values") or {}).items()
    }
    return Grammar(
        short=short,
        long=long,
        aliases=aliases,
        stop_at_operand=stop,
        plus=plus,
        long_only=bool(data.get("long_only")),
        traditional=bool(data.get("traditional")),
        ignore_case=ignore_case,
        first_match=bool(data.get("first_match")),
        values=values,
        leading=tuple(_regex(r, [*base, "leading", i]) for i, r in enumerate(data.get("leading") or ())),
        assignments=str(data.get("assignments") or "none"),
        ends_options=canonical("ends_options", data.get("ends_options") or ()),
        no_command_with=canonical("no_command_with", data.get("no_command_with") or ()),
        runs_nothing=canonical("runs_nothing", data.get("runs_nothing") or ()),
        runs_nothing_unless=canonical("runs_nothing_unless", data.get("runs_nothing_unless") or ()),
        conflicts=tuple(canonical("conflicts", group) for group in data.get("conflicts") or ()),
        chdir=canonical("chdir", data.get("chdir") or ()),
        clears_environment=canonical("clears_environment", data.get("clears_environment") or ()),
        unsets_variable=canonical("unsets_variable", data.get("unsets_variable") or ()),
        paths_in=canonical("paths_in", data.get("paths_in") or ()),
        lone_dash=next(iter(canonical("lone_dash", [data["lone_dash"]]))) if data.get("lone_dash") else "",
        input_from=canonical("input_from", data.get("input_from") or ()),
        next_value=frozenset(data.get("next_value") or ()),
        hosts=tuple(int(i) for i in data.get("hosts") or ()),
        pattern=canonical("pattern", data["pattern"] or ()) if "pattern" in data else None,
        quiet_with=canonical("quiet_with", data.get("quiet_with") or ()),
        apart=bool(data.get("apart")),
        short_equals=bool(data.get("short_equals", short_equals)),
    )


def _fold(name: str) -> str:
    return name.lower() if len(name) > 1 else name


def _option_name(
    written: str, known: frozenset[str], aliases: Mapping[str, str], ignore_case: bool, pointer: list[str | int]
) -> str:
    """A run's or value's option name, checked against the grammar, as the parser reports it."""
    name = written.lstrip("-")
    if ignore_case:
        name = _fold(name)
    if name not in known:
        raise TableError(pointer, f"option {name!r} is not declared in getopt or long")
    return aliases.get(name, name) if len(name) > 1 else name


def _run(data: Mapping[str, Any], grammar: Grammar, base: list[str | int], outer: Grammar | None = None) -> Run:
    sources = [s for s in SOURCES if s in data]
    if len(sources) != 1:
        raise TableError(base, f"a run needs exactly one of {', '.join(SOURCES)} (found {len(sources)})")
    source = sources[0]
    kind = data["as"]
    language = data.get("language")
    if kind == "code" and not language:
        raise TableError([*base, "as"], "as: code needs language: (the interpreter that reads it)")
    if kind == "options" and language is not None and language not in OPTION_SPLITTERS:
        raise TableError([*base, "language"], f"as: options reads language: {', '.join(OPTION_SPLITTERS)}")
    if "output" in data and kind not in ("path", "file"):
        raise TableError([*base, "output"], "output: is a file the run names (as: path or as: file)")
    if any(key in data for key in ("strip", "append", "into")) and (source != "operands" or kind != "path"):
        raise TableError(base, "strip:, append: and into: name what an operand writes (operands: true, as: path)")
    if "default" in data and source not in ("operand", "option"):
        raise TableError(
            [*base, "default"],
            "default: is the value of an operand: N the program is not given, or of an option: given as a flag",
        )
    if kind == "path" and not data.get("prepend"):
        raise TableError([*base, "as"], "as: path needs prepend: (the command the path is judged as an operand of)")
    known = frozenset(grammar.short) | frozenset(grammar.long)
    outer_run = bool(data.get("outer"))
    if outer_run and (source != "option" or outer is None):
        raise TableError(
            [*base, "outer"], "outer: names an option of the program given before its verb (option:, in subcommands:)"
        )

    def options(key: str) -> frozenset[str]:
        return frozenset(
            _option_name(name, known, grammar.aliases, grammar.ignore_case, [*base, key, i])
            for i, name in enumerate(data.get(key) or ())
        )

    names: frozenset[str] = frozenset()
    pattern = None
    index = 0
    if source == "option" and outer_run and outer is not None:
        outer_known = frozenset(outer.short) | frozenset(outer.long)
        names = frozenset(
            _option_name(name, outer_known, outer.aliases, outer.ignore_case, [*base, "option", i])
            for i, name in enumerate(data.get("option") or ())
        )
    elif source == "option":
        names = options("option")
    elif source == "options":
        pattern = _regex(data["options"], [*base, "options"])
    elif source == "env":
        # CARGO_TARGET_*_RUNNER: a glob names every variable it matches, whatever its case
        names = frozenset(n for n in data["env"] if not _GLOB.search(n))
        globs = [n for n in data["env"] if _GLOB.search(n)]
        if globs:
            pattern = _regex("(?i)" + "|".join(fnmatch.translate(g) for g in globs), [*base, "env"])
    elif source in ("after", "files"):
        names = frozenset(data[source])
    elif source == "env_pairs":
        names = frozenset(data["env_pairs"])
    elif source == "operand":
        index = int(data["operand"])
    elif source == "operands" and data["operands"] is not True:
        index = int(data["operands"])  # (stop 56) from the operand at this index on
    elif source == "prefixed":
        names = frozenset([data["prefixed"]])
    return Run(
        source=source,
        kind=kind,
        names=names,
        index=index,
        pattern=pattern,
        attached=bool(data.get("attached")),
        until=frozenset(data.get("until") or ()),
        first=bool(data.get("first")),
        language=language,
        match=_regex(data["match"], [*base, "match"]) if "match" in data else None,
        last=bool(data.get("last")),
        variable=bool(data.get("variable")),
        value=_regex(data["value"], [*base, "value"]) if "value" in data else None,
        indirect=bool(data.get("indirect")),
        spawn=bool(data.get("spawn")),
        each=bool(data.get("each")),
        placeholder=data.get("placeholder"),
        arguments=frozenset(data.get("arguments") or ()),
        replace=_regex(data["replace"], [*base, "replace"]) if "replace" in data else None,
        with_rest=bool(data.get("with_rest")),
        prepend=data.get("prepend"),
        input_args=options("input_args") if data.get("input_args") else frozenset(),
        argument_files=options("argument_files") if data.get("argument_files") else frozenset(),
        decode=data.get("decode"),
        if_flags=options("if_flags"),
        if_bare=frozenset(BARE + name for name in options("if_bare")),
        unless_flags=options("unless_flags"),
        if_operands=int(data.get("if_operands") or 0),
        unless_operands=int(data.get("unless_operands") or 0),
        positional="argv" if data.get("positional") == "argv" else "sh" if data.get("positional") else "",
        under=tuple(data.get("under") or ()),
        output=data.get("output"),
        only_under=bool(data.get("only_under")),
        strip=options("strip"),
        append=options("append"),
        into=options("into"),
        default=data.get("default"),
        not_words=frozenset(str(word) for word in data.get("not_words") or ()),
        outer=outer_run,
        entry=_entry_forms(data, kind, [*base, "entry"]),
        unmoved=bool(data.get("unmoved")),
    )


def _entry_forms(data: Mapping[str, Any], kind: str, base: list[str | int]) -> tuple[str, ...]:
    """(entry50) A run's `entry:` forms (see Run.entry): only of an `as: file` run, each naming the word."""
    forms = data.get("entry")
    if forms is None:
        return ()
    if kind != "file" or not isinstance(forms, list) or not forms:
        raise TableError(base, "entry: is a list of the forms an as: file run's word resolves to")
    for i, form in enumerate(forms):
        if not isinstance(form, str) or ("{}" not in form and "{/}" not in form):
            raise TableError([*base, i], "an entry: form names the word given: `{}` or `{/}`")
    return tuple(forms)


# The fields of an entry that describe nothing but what it sends (see ProgramTable.senders).
_SENDS_ONLY = frozenset({"program", "sends", "examples", "description"})
# ... and of one that describes nothing but that, or that and what it sends (`unpacks_here:` of a program no other
# field describes: `unrar`, whose words stay an undescribed program's; see ProgramTable.unpacks_here)
_UNPACKS_ONLY = _SENDS_ONLY | {"unpacks_here", "writes_through"}
_SEND_TO = frozenset({"last", "any"})


def _writes_through(data: Mapping[str, Any]) -> tuple[bool, bool] | None:
    """(debt51) An entry's `writes_through:` as the table keeps it: (its last word only, it follows a link at a word's
    last name); None: it has none (the schema checks its shape)."""
    row = data.get("writes_through")
    if not isinstance(row, dict):
        return None
    return (row.get("words") == "last", bool(row.get("last_name")))


def _sends(data: Mapping[str, Any], base: list[str | int]) -> tuple[Send, ...]:
    """An entry's `sends:` ways, their regexes compiled once here."""
    ways: list[Send] = []
    for i, way in enumerate(data.get("sends") or ()):
        at: list[str | int] = [*base, "sends", i]
        options = tuple(("-" if len(str(o)) == 1 else "--") + str(o) for o in way.get("option") or ())
        to = str(way.get("to") or "")
        if to and to not in _SEND_TO:
            raise TableError([*at, "to"], "to: is last (the last word that is no option) or any (every word)")
        if options and to:
            raise TableError(at, "a way reads its destination from to: or from option:, not both")
        match = _regex(way["match"], [*at, "match"]) if "match" in way else None
        unless = _regex(way["unless"], [*at, "unless"]) if "unless" in way else None
        script = _regex(way["script"], [*at, "script"]) if "script" in way else None
        if match is not None and not (to or options):
            raise TableError([*at, "match"], "match: tests a destination: say where it is (to: or option:)")
        if (to or options) and match is None:
            raise TableError(at, "a destination (to: or option:) needs match: (what makes it another host's)")
        if unless is not None and match is None:
            raise TableError([*at, "unless"], "unless: narrows a match:")
        verbs = frozenset(str(v) for v in way.get("verbs") or ())
        if way.get("input"):
            if set(way) != {"input"}:
                raise TableError(at, "input: (it sends what it reads) is a way of its own: no other key with it")
            ways.append(Send(stream=True))
            continue
        if not (verbs or match is not None or script is not None):
            raise TableError(at, "a way needs verbs:, a destination (to: or option: with match:), script: or input:")
        if script is not None and match is not None:
            raise TableError(at, "a way reads a script: or a destination, not both")
        operands = int(way.get("operands") or 0)
        without = tuple(("-" if len(str(o)) == 1 else "--") + str(o) for o in way.get("without") or ())
        ways.append(Send(verbs, "option" if options else to, options, operands, match, unless, script, without))
    return tuple(ways)


def _program(
    data: Mapping[str, Any],
    base: list[str | int],
    names: tuple[str, ...],
    outer: Grammar | None = None,
    short_equals: bool = False,
) -> Program:
    # (stop 54) a program's verbs parse `-o=VALUE` as their parent does (clap's verbs share its parser), unless a
    # verb says otherwise
    grammar = _grammar(data, base, short_equals)
    runs = tuple(_run(r, grammar, [*base, "runs", i], outer) for i, r in enumerate(data.get("runs") or ()))
    subcommands: dict[str, Program] = {}
    for verb, sub in (data.get("subcommands") or {}).items():
        # (xf45) a verb's `outer:` runs read the program's own options (the top level's, through nested verbs)
        program = _program(
            sub or {}, [*base, "subcommands", verb], (verb,), grammar if outer is None else outer, grammar.short_equals
        )
        for alias in [verb, *(sub or {}).get("aliases", ())]:
            subcommands[alias.lower()] = program
    prints = str(data.get("prints") or "")
    prints_with = frozenset(str(name).split("/")[0].rstrip("=?") for name in data.get("prints_with") or ())
    separator = str(data.get("separator") or "")
    return Program(
        names,
        grammar,
        runs,
        MappingProxyType(subcommands),
        bool(data.get("windows")),
        prints,
        prints_with,
        separator,
        str(data.get("pieces_prefix") or ""),
        bool(data.get("unpacks_here")),
        frozenset(str(verb) for verb in data.get("keeps_tree") or ()),
        _deletes_listed(data.get("deletes_listed")),
        frozenset(str(option) for option in data.get("unpacks_into") or ()),
        bool(data.get("reads_planted")),
    )


# Examples that ran clean, by what their outcome depends on (a digest of the documents the table
# or policy was compiled from, and the entry itself): every Engine.load compiles the builtin pack's
# tables and patterns again, and a project reloaded in one process (`dev`, a host's engines, the
# tests) runs each example once. Only a clean run is kept: a failure, or an example past its time
# limit, runs again (and is reported again) on every compile.
_CLEAN_EXAMPLES: set[tuple[str, str]] = set()
_MAX_CLEAN_EXAMPLES = 16384


def digest(data: Any) -> str:
    """A digest of manifest data (what YAML reads: mappings, lists, scalars)."""
    import hashlib  # noqa: PLC0415  (compiles only: a guard or check start does not import these)
    import json  # noqa: PLC0415

    text = json.dumps(data, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def examples_clean(key: tuple[str, str]) -> bool:
    """Whether the examples under ``key`` (see :data:`_CLEAN_EXAMPLES`) already ran clean."""
    return key in _CLEAN_EXAMPLES


def remember_clean(key: tuple[str, str]) -> None:
    if len(_CLEAN_EXAMPLES) >= _MAX_CLEAN_EXAMPLES:
        _CLEAN_EXAMPLES.clear()
    _CLEAN_EXAMPLES.add(key)


def table_digest(docs: Sequence[Document], skipped: Mapping[int, frozenset[int]] | None = None) -> str:
    """What a table compiled from ``docs`` depends on: each document's pack, data and skipped entries."""
    return digest([[d.pack, d.data, sorted((skipped or {}).get(id(d), ()))] for d in docs])


def compile_programs(
    docs: Sequence[Document], skipped: Mapping[int, frozenset[int]] | None = None, table_key: str | None = None
) -> tuple[ProgramTable, list[Problem]]:
    """Every Programs manifest → one table; a project's entry replaces the builtin one of that name.

    ``skipped``: per document, the entries whose structure is already reported as broken.
    ``table_key``: :func:`table_digest` of ``docs`` when the caller has it.
    """
    problems: list[Problem] = []
    by_name: dict[str, Program] = {}
    senders: dict[str, tuple[Send, ...]] = {}
    where: dict[str, tuple[str, str]] = {}  # name -> (pack, "file:line")
    anyone: Program | None = None
    everyone: Program | None = None
    entries: list[tuple[Document, list[str | int], Program]] = []
    readers: set[str] = set()
    keeping: set[str] = set()
    unpacking: set[str] = set()
    writing: dict[str, tuple[bool, bool]] = {}
    sources: list[SourceRow] = []
    source_docs: list[tuple[Document, int]] = []
    no_names: set[str] = set()
    no_names_docs: list[Document] = []
    printed: list[SubstitutionRow] = []
    printed_docs: list[Document] = []
    for doc in docs:
        rows = doc.data.get("substitution_words")
        if isinstance(rows, dict) and isinstance(rows.get("commands"), list):  # (a malformed one: the schema's error)
            printed.extend(_substitution_row(row) for row in rows["commands"] if isinstance(row, dict))
            printed_docs.append(doc)
        row = doc.data.get("makes_no_names")
        listed = row.get("names") if isinstance(row, dict) else None
        if isinstance(listed, list):  # (a malformed one is the schema's error)
            no_names.update(name.lower() for name in listed if isinstance(name, str))
            no_names_docs.append(doc)
        listed = doc.data.get("command_readers")
        if isinstance(listed, list):  # (a malformed one is the schema's error)
            readers.update(name.lower() for name in listed if isinstance(name, str))
        listed = doc.data.get("keeps_environment")
        if isinstance(listed, list):
            keeping.update(name.lower() for name in listed if isinstance(name, str))
        for at, row in enumerate(doc.data.get("package_sources") or ()):
            if isinstance(row, dict) and row.get("files"):  # (a malformed one is the schema's error)
                sources.append(_source_row(row))
                source_docs.append((doc, at))
        broken = (skipped or {}).get(id(doc), frozenset())
        for index, data in enumerate(doc.data.get("programs") or ()):
            if index in broken:
                continue
            base: list[str | int] = ["programs", index]
            names = tuple(n.lower() for n in data["program"])
            try:
                program = _program(data, base, names)
                ways = _sends(data, base)
            except TableError as exc:
                pointer = exc.pointer if exc.pointer[:2] == base else [*base, *exc.pointer]
                problems.append(doc.problem(pointer, "program-invalid", exc.message))
                continue
            for name in names:
                seen = where.get(name)
                if seen is not None and seen[0] == doc.pack:
                    message = f"program {name!r} is already described at {seen[1]}"
                    problems.append(doc.problem([*base, "program"], "program-duplicate", message))
                    continue
                where[name] = (doc.pack, f"{doc.file}:{doc.locate(base)[0]}")
                if ways:
                    senders[name] = ways
                else:
                    senders.pop(name, None)  # a project's entry replaces the builtin one whole
                if program.unpacks_here:
                    unpacking.add(name)
                else:
                    unpacking.discard(name)  # (a project's entry replaces the builtin one whole)
                writes = _writes_through(data)
                if writes is not None:
                    writing[name] = writes
                else:
                    writing.pop(name, None)
                if (ways or program.unpacks_here or writes is not None) and _UNPACKS_ONLY.issuperset(data):
                    by_name.pop(name, None)  # described only by what it sends (see ProgramTable.senders) or unpacks
                elif name == "*":
                    anyone = program
                elif name == "**":
                    everyone = program
                else:
                    by_name[name] = program
            entries.append((doc, base, program))
    table = ProgramTable(
        MappingProxyType(by_name),
        anyone,
        everyone,
        MappingProxyType(senders),
        frozenset(readers),
        frozenset(keeping),
        frozenset(unpacking),
        tuple(sources),
        frozenset(no_names),
        MappingProxyType(writing),
        tuple(printed),
    )
    if table_key is None:
        table_key = table_digest(docs, skipped)
    for doc, at in source_docs:
        problems.extend(_source_examples(table, doc, at))
    for doc in no_names_docs:
        problems.extend(_no_names_examples(table, doc))
    for doc in printed_docs:
        problems.extend(_substitution_examples(table, doc))
    for doc, base, program in entries:
        node: Any = doc.data
        for part in base:
            node = node[part]
        key = (table_key, digest(node))
        if examples_clean(key):
            continue
        found = _run_examples(table, doc, base, program)
        if not found:
            remember_clean(key)
        problems.extend(found)
    return table, problems


def _source_row(data: Mapping[str, Any]) -> SourceRow:
    """A `package_sources:` row as the table keeps it: (files, keys, settings, not_sections)."""
    files, keys, settings, sections = (
        tuple(str(item) for item in (data.get(name) or ()) if isinstance(item, str))
        for name in ("files", "keys", "settings", "not_sections")
    )
    return (files, keys, settings, sections)


def _source_examples(table: ProgramTable, doc: Document, at: int) -> list[Problem]:
    """A `package_sources:` row's examples: `sources: {TEXT: [SOURCE...]}` (each read from TEXT, a file named as
    the row's first file), `not_sources: [TEXT]` (none read); `settings` / `not_settings`: TEXT sets a key
    that matters (one of the row's keys or settings) or none."""
    data = doc.data["package_sources"][at]
    examples = data.get("examples") or {}
    row = source_row(table.package_sources, str(data["files"][0]))
    base: list[str | int] = ["package_sources", at, "examples"]
    problems: list[Problem] = []
    for text, wanted in (examples.get("sources") or {}).items():
        found = package_sources(text, row)
        missing = [source for source in wanted if source not in found]
        if missing:
            message = f"{text!r} does not name {missing!r} (it names: {found!r})"
            problems.append(doc.problem([*base, "sources", text], "program-example-failed", message, key=True))
    for n, text in enumerate(examples.get("not_sources") or ()):
        found = package_sources(text, row)
        if found:
            problems.append(
                doc.problem([*base, "not_sources", n], "program-example-failed", f"{text!r} names {found!r}")
            )
    for key, expected in (("settings", True), ("not_settings", False)):
        for n, text in enumerate(examples.get(key) or ()):
            if settings_only(text, row) == expected:
                verb = "sets none of the keys that matter" if expected else "sets a key that matters"
                problems.append(doc.problem([*base, key, n], "program-example-failed", f"{text!r} {verb}"))
    return problems


def _substitution_row(data: Mapping[str, Any]) -> SubstitutionRow:
    """A `substitution_words:` row as the table keeps it: (its spellings' words, what it prints, its options)."""
    spellings = tuple(tuple(str(s).split()) for s in data.get("command") or () if isinstance(s, str) and s.strip())
    options = frozenset(str(o) for o in data.get("options") or () if isinstance(o, str))
    return (spellings, str(data.get("prints") or ""), options)


def _unread_examples(
    table: ProgramTable, doc: Document, section: str, marker: str, keys: tuple[str, str], verbs: tuple[str, str]
) -> list[Problem]:
    """(rev51: subst51's and debt50's example readers, one) ``section``'s examples: each line of ``keys[0]`` leaves a
    word starting with ``marker`` among the analyzer's unread, each of ``keys[1]`` none; ``verbs``: the message for
    a line of each that does not."""
    from engine.policy.lexer import ShellSyntaxError  # noqa: PLC0415
    from engine.policy.shell import Analyzer  # noqa: PLC0415

    examples = doc.data[section].get("examples") or {}
    problems: list[Problem] = []
    for key, expected, verb in ((keys[0], True, verbs[0]), (keys[1], False, verbs[1])):
        for n, line in enumerate(examples.get(key) or ()):
            pointer: list[str | int] = [section, "examples", key, n]
            try:
                analyzer = Analyzer(table)
                analyzer.analyze(line)
            except (ShellSyntaxError, RegexTimeout) as exc:
                problems.append(doc.problem(pointer, "program-example-failed", f"{line!r}: {exc}"))
                continue
            if any(word.startswith(marker) for word in analyzer.unread) != expected:
                message = f"{line!r} {verb} (its `{section}:`)"
                problems.append(doc.problem(pointer, "program-example-failed", message))
    return problems


def _substitution_examples(table: ProgramTable, doc: Document) -> list[Problem]:
    """(subst51) `substitution_words:`'s examples: `options: [LINE]`, a word of LINE that a substitution prints may
    be an option of a program whose options run or write something (`$unknown_options:` among the unread);
    `not_options`: none is."""
    verbs = ("reads no option from a substitution", "reads an option from a substitution")
    return _unread_examples(table, doc, "substitution_words", "$unknown_options:", ("options", "not_options"), verbs)


def _no_names_examples(table: ProgramTable, doc: Document) -> list[Problem]:
    """(debt50) `makes_no_names:`'s examples: `unknown_listing: [LINE]`, a listing of the tree on LINE is not read
    from the disk (another command of the line may make or rename an entry first); `not_unknown_listing`: it is."""
    keys = ("unknown_listing", "not_unknown_listing")
    verbs = ("reads its listing from the disk", "reads no listing from the disk")
    return _unread_examples(table, doc, "makes_no_names", "$unknown_listing:", keys, verbs)


def _globs_unknown(line: str, table: ProgramTable) -> bool:
    """(xf49) Whether ``line``, read with no name starting with `-` on the disk (xf49b: a folder a copy reads holds
    `-delete`), has a glob the names an earlier command wrote unseen may reach as an option
    (shell.Analyzer._unknown_names)."""
    from engine.policy.shell import Analyzer  # noqa: PLC0415

    analyzer = Analyzer(table)
    analyzer.dash_names = _no_dash_names
    analyzer.analyze(line)
    return any(word.startswith("$unknown_names:") for word in analyzer.unread)


def _no_dash_names(_cwd: str | None, every: bool) -> tuple[str, ...]:
    # (xf49b) a copy's source folder holds a `-delete` (a copy of a clean folder of the project writes known names)
    return ("-delete",) if every else ()


def _read_through(line: str, table: ProgramTable) -> bool:
    """(debt51) Whether a command of ``line`` is also read through a link (via `link`) a name an earlier command of the
    line wrote unseen may be (shell.Analyzer._through_unknown), read as _globs_unknown reads it."""
    from engine.policy.shell import Analyzer  # noqa: PLC0415

    analyzer = Analyzer(table)
    analyzer.dash_names = _no_dash_names
    analyzer.analyze(line)
    return any("link" in command.via for command in analyzer.commands)


def _sends_files(line: str, table: ProgramTable) -> bool:
    """Whether a command of ``line`` sends files to another host, by its program's `sends:` (evaluate._sends_away)."""
    from engine.policy.shell import parse  # noqa: PLC0415

    senders = table.senders
    return any(sends_away(senders[c.name], c.argv, c.stdin) for c in parse(line, table) if c.name in senders)


def _run_examples(table: ProgramTable, doc: Document, base: list[str | int], program: Program) -> list[Problem]:
    """`runs: {LINE: COMMAND}`: reading LINE finds COMMAND; `not_runs`: it does not."""
    # The shell analyzer reads the examples; it needs this module's table, so it is imported here.
    from engine.policy.lexer import ShellSyntaxError  # noqa: PLC0415
    from engine.policy.shell import parse  # noqa: PLC0415

    node: Any = doc.data
    for part in base:
        node = node[part]
    examples = node.get("examples") or {}
    problems: list[Problem] = []
    for key, expected in (("runs", True), ("not_runs", False)):
        for line, command in (examples.get(key) or {}).items():
            try:
                # (holes39) a guessed reading (an undescribed program naming an acting one: Command.guessed) asks
                # at most: what a `not_runs` example says is that no certain reading runs it
                found = {c.text for c in parse(line, table) if expected or not c.guessed}
            except (ShellSyntaxError, RegexTimeout) as exc:
                # (A table regex past its budget twice running on the example: a located error, not
                # an exception out of the load; regexes.bounded.)
                problems.append(
                    doc.problem([*base, "examples", key, line], "program-example-failed", f"{line!r}: {exc}", key=True)
                )
                continue
            if (command in found) == expected:
                continue
            verb = "does not run" if expected else "runs"
            shown = ", ".join(sorted(found)[:8])
            problems.append(
                doc.problem(
                    [*base, "examples", key, line],
                    "program-example-failed",
                    f"{line!r} {verb} {command!r} (it runs: {shown})",
                    key=True,
                )
            )
    # (fp48) `deletes_listed: {LINE: "rm -f $(LISTING)"}`: `deletes_listed:` reads LINE as that rm; `not_...`: as none
    listed: list[tuple[list[str | int], str, str]] = [
        ([*base, "examples", "deletes_listed", line], line, str(rm))
        for line, rm in (examples.get("deletes_listed") or {}).items()
    ]
    listed += [
        ([*base, "examples", "not_deletes_listed", n], line, "")
        for n, line in enumerate(examples.get("not_deletes_listed") or ())
    ]
    if listed:
        from engine.policy.evaluate import listed_delete  # noqa: PLC0415
    for pointer, line, rm in listed:
        try:
            commands = parse(line, table)
        except (ShellSyntaxError, RegexTimeout) as exc:
            problems.append(doc.problem(pointer, "program-example-failed", f"{line!r}: {exc}"))
            continue
        made: list[str] = []
        for i, command in enumerate(commands):
            reading = listed_delete(command, commands[i + 1] if i + 1 < len(commands) else None)
            if reading is not None:
                made.append(f"rm -f {reading[1]}")
        if (rm in made) if rm else not made:
            continue
        message = f"{line!r} is read as {', '.join(made) or 'no listing deleted'} (its `deletes_listed:`)"
        problems.append(doc.problem(pointer, "program-example-failed", message))

    def _example_loop(key: str, predicate: Callable[[str], bool], verb: tuple[str, str]) -> None:
        """(debt50) `KEY: [LINE]`: ``predicate`` holds for each LINE; `not_KEY: [LINE]`: it holds for none. ``verb``:
        what a failed example does instead (a `KEY:` one's, a `not_KEY:` one's)."""
        for name, expected in ((key, True), ("not_" + key, False)):
            for n, line in enumerate(examples.get(name) or ()):
                pointer: list[str | int] = [*base, "examples", name, n]
                try:
                    found = predicate(line)
                except (ShellSyntaxError, RegexTimeout) as exc:
                    problems.append(doc.problem(pointer, "program-example-failed", f"{line!r}: {exc}"))
                    continue
                if found != expected:
                    message = f"{line!r} {verb[0] if expected else verb[1]}"
                    problems.append(doc.problem(pointer, "program-example-failed", message))

    # (xf49) `globs_unknown: [LINE]`: a glob of LINE may expand to a name an earlier command wrote unseen (an
    # `unpacks_here`, `unpacks_into:` command), read as an option; `not_globs_unknown`: none is
    unseen = "of names an earlier command wrote unseen (glob_of_unknown_names)"
    _example_loop(
        "globs_unknown", lambda line: _globs_unknown(line, table), (f"reads no glob {unseen}", f"reads a glob {unseen}")
    )
    # (debt51) `writes_through: [LINE]`: a command of LINE is also read through a link a name an earlier command wrote
    # unseen may be (`writes_through:`, shell.Analyzer._through_unknown); `not_writes_through`: none is
    through = "through a link a name an earlier command wrote unseen may be"
    _example_loop(
        "writes_through", lambda line: _read_through(line, table), (f"is not read {through}", f"is read {through}")
    )
    # `sends: [LINE]`: a command of LINE sends files to another host by its program's `sends:`; `not_sends`: none
    away = "files to another host (its `sends:`)"
    _example_loop("sends", lambda line: _sends_files(line, table), (f"does not send {away}", f"sends {away}"))
    return problems
