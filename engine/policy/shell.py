"""Tokens → the simple commands a shell would run, wrappers and disguises removed.

`sudo env X=1 nice /usr/bin/rm -rf /` is seen at every stage (sudo, env, nice,
rm). What a program runs -- the command after a wrapper's options, `bash -c`,
`sed 1e`, `git -c core.pager=`, `find -exec` -- is read from the Programs table
(see follow.py) and followed like any other command. Variables assigned earlier
on the line are substituted and split into words as the shell splits them;
`$(echo rm)` is evaluated; symbolic links made on the line are followed. What
cannot be known statically is marked ``dynamic`` so a policy can treat it as
possibly anything.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache, partial
from operator import attrgetter

from engine.policy import gitindex, values
from engine.policy.argv import (
    NONE,
    REQUIRED,
    Grammar,
    Parsed,
    abbreviates,
    in_system_folder,
    parse_argv,
    parse_getopt,
    parse_long,
    stopping,
    without_unknown_values,
)
from engine.policy.commands import (
    ASSIGNMENT,
    POSIX_SHELLS,
    command_name,
    dash_unread,
    decode_filter,
    download_targets,
    printed_text,
    printed_words,
    shell_word,
)
from engine.policy.executors import OPTION_SPLITTERS, fish_text, settings_named, settings_write
from engine.policy.follow import UNREAD_SHELL_MARK, Follower, descriptor_file, join_path, matched_payload, renamed
from engine.policy.lexer import (
    ARITH,
    BUDGET,
    FD_NAME,
    LIT,
    REDIRECT_OPS,
    SUB,
    VAR,
    Seg,
    ShellSyntaxError,
    Token,
    body_expansions,
    decode_ansi_c,
    decode_prompt,
    expand_braces,
    heredoc_text,
    substitutions,
    tokenize,
)
from engine.policy.links import LINKERS, UNKNOWN_TARGET, LinkFollower
from engine.policy.paths import LISTER_NAMES, file_operand, key_in_workdir, key_within, lists_tree, ls_files_others
from engine.policy.programs import EMPTY, Program, ProgramTable, Run, SubstitutionRow, subcommand_levels
from engine.policy.trees import FOLLOWERS, split_prefix
from engine.policy.values import arithmetic_value
from engine.policy.variables import ANY_VARIABLE, SHELL_OWN, env_get, fresh_variables, read_by_programs
from engine.records import fields_repr

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final

    from engine.policy.session_memory import ShellState
    from engine.policy.views import SessionView

MAX_DEPTH: Final = 8
# (Final here: a name imported from another module is looked up in this one's globals on each use)
_LINKERS: Final = LINKERS
_UNKNOWN_TARGET: Final = UNKNOWN_TARGET
# A makefile's recipe line that only prints plain words (see Analyzer.inert_recipe).
_INERT_RECIPE: Final = re.compile(r"echo(?:[ \t]+[\w,+:%@-]+)*[ \t]*", re.ASCII)
MAX_COMMANDS: Final = 512
_NOTHING: Final[frozenset[str]] = frozenset()


# The shared first value of an Analyzer's tables that most lines never fill (no allocation and no free
# per line): a table is replaced by one of its own where it is first written (`if table is _NO_ENTRIES`).
# Plain empty values (a dict subclass whose writes raise did not raise in the compiled build: a test
# writing to it changed it there); tests/test_policy_lazy_tables.py writes each table, checks it is the
# line's own after, and that the shared values stay empty.
_NO_ENTRIES: Final[Any] = {}
_NO_ITEMS: Final[Any] = []
_NO_NAMES: Final[Any] = set()
_GLOB: Final = re.compile(r"[*?\[]")
# (adv47) a word bash may glob to a name starting with `-`: _GLOB's characters or an extglob group (`@(-del*)`):
# see _dash_glob (a regex only for a word holding `(`)
_EXTGLOB_OPEN: Final = re.compile(r"[@!+]\(")
# (xf48a) the first characters of a glob word that may match a name starting with `-`: `-` itself, a wildcard,
# a bracket expression, an extglob group's opener
_OPTION_GLOB_START: Final = frozenset("-*?[@!+")
_MAX_GLOBBED: Final = 256  # the names of a folder a glob is matched against
_PLAIN_VALUE: Final = re.compile(r"[\w./~:@%+,=-]*")  # a value a reader parses as the word it is (_pasted_value)
_MAX_BODY_SUBSTITUTIONS: Final = 64  # `$(...)` and backquotes in one unquoted here-document body, each judged
# Fed to a command when an earlier stage printed something of a file the session wrote that is not
# known (policies/exec.yaml: a shell or interpreter reading it asks).
_WRITTEN_INPUT: Final[frozenset[str]] = frozenset({"$written"})
# Fed to a command when an earlier stage printed a text computed from its words that is not evaluated
# here (`date +FORMAT`, an inline program's print, a program nobody describes given shell text):
# policies/exec.yaml printed_code (a shell or interpreter reading it asks).
_PRINTED_INPUT: Final[frozenset[str]] = frozenset({"$printed"})
# Fed to a command when an earlier stage prints what it keeps or finds, not its words (`prints: stored`:
# `git config k`, `git log --format=%s`, `readlink l`, `ls`, `pwd`), which an earlier command may have set
# to any text (redt34): policies/exec.yaml stored_code (a shell reading it asks).
_STORED_INPUT: Final[frozenset[str]] = frozenset({"$stored"})
# A word that holds shell text: more than one word, or an operator, a quote or an expansion.
_SHELL_TEXT: Final = re.compile(r"[\s;&|<>()`$'\"]")
_PRINTERS: Final = frozenset({"echo", "printf"})  # programs whose output is their words (see _output)
# Analyzer.printing while a stage whose output is read runs lines and none has printed yet (see
# _simple): shared and never written to (_run_pipelines puts a new list in its place).
_UNPRINTED: Final[list[str]] = []
# Programs that print the names (or sizes, sums) of the files they are given, not their text.
_NAME_PRINTERS: Final = LISTER_NAMES | frozenset(
    {"stat", "du", "file", "wc", "realpath", "readlink", "basename", "dirname"}
)
_WRITE_REDIRECTS: Final = frozenset({">", ">|", ">>", "&>", "&>>"})
_COPIERS: Final = frozenset(
    {"cp", "mv", "install", "rsync", "ln", "link", "gcp", "gmv", "ginstall"}
)  # copies keep the text
# (xfail41b) copiers under another name: `git mv SRC DST`, `cpio -p DIR` (the names its input lists)
_OTHER_COPIERS: Final = frozenset({"git", "cpio"})
_FILE_WRITERS: Final = frozenset({"tee", "curl", "wget", "dd"}) | _COPIERS | _OTHER_COPIERS  # write files they name
_BARE_GRAMMAR: Final = Grammar()  # an undescribed copier's (`link A B`): every word no option is an operand
_TARGET_OPTION: Final = frozenset({"t"})  # a copier's -t DIR / --target-directory=DIR (see Analyzer._copies)
# Builtins whose NAME=VALUE arguments set variables for the rest of the line.
_DECLARERS: Final = frozenset({"export", "declare", "typeset", "local", "readonly"})
# fish's `set` as its option parser reads it (wgetopt, `+`: options end at the first operand; a long one abbreviated to
# a unique prefix): Analyzer._fish_set
_FISH_SET_LONG: Final = parse_long([
    "erase/e", "query/q", "names/n", "show/S", "append/a", "prepend/p", "export/x", "unexport/u", "global/g",
    "local/l", "universal/U", "function/f", "long/L", "help/h", "path", "unpath",
])  # fmt: skip
_FISH_SET: Final = Grammar(
    short=parse_getopt("LSUaefghlnpqux")[0], long=_FISH_SET_LONG[0], aliases=_FISH_SET_LONG[1], stop_at_operand=True
)
# Builtins that give the variables they name a new value (or none): see Analyzer._forget.
_VARIABLE_WRITERS: Final = frozenset(
    {"unset", "read", "mapfile", "readarray", "printf", "getopts", "wait", "coproc", "let"}
)
_DEFAULT_VARIABLES: Final = {
    "read": ("REPLY",),
    "mapfile": ("MAPFILE",),
    "readarray": ("MAPFILE",),
    "getopts": ("OPTARG", "OPTIND"),
}
_DEFAULT_IFS: Final = " \t\n"
# A cmd.exe / PowerShell path written with backslashes, which a POSIX shell would unescape.
# A command word whose last component is a glob (`/???/?m`, `r?`, `/bin/ta[r]`): bash expands it
# before it looks the name up, so the name is known only at run time. A lone `[` is the test command.
_GLOBBED_NAME: Final = re.compile(r"[*?]|\[[^\]/]*\]")
# `$(mktemp -d)` as a folder name: a new, empty folder.
_FRESH_FOLDER: Final = re.compile(r"^\$\(mktemp -d(?: -[pt] ?[^\s$`()]+| --tmpdir=[^\s$`()]+)?\)$")
_WINDOWS_WORD: Final = re.compile(r'^"?(?:[A-Za-z]:\\|%\w+%\\|\$env:\w+\\|\$\{env:\w+\}\\)', re.IGNORECASE)


def _dash_glob(word: str) -> bool:
    """(adv47, xf48a) Whether ``word`` holds what bash globs: `*`, `?`, `[` (three substring tests in C, on every word
    of a command), or an extglob group's `@(`, `!(`, `+(` (a regex, only for a word holding `(`)."""
    return "*" in word or "?" in word or "[" in word or ("(" in word and _EXTGLOB_OPEN.search(word) is not None)


def _globbed_name(word: str) -> bool:
    """Whether a command word's name is a glob bash expands (`/???/?m` runs `/bin/rm`)."""
    if not ("*" in word or "?" in word or "[" in word):
        return False  # (a memchr each: most names hold none of the three, and the regex needs one)
    return _GLOBBED_NAME.search(word[word.rfind("/") + 1 :]) is not None


# Wrappers that run a builtin in this shell: a `cd` under them moves it.
_SAME_SHELL: Final = frozenset({"builtin", "command"})
# bash's builtins (`compgen -b`) and reserved words (`compgen -k`): a function may be named like
# one; an alias may be named like either; none of them starts another shell.
_BUILTIN_NAMES: Final = (
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown "
    "echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile "
    "popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true "
    "type typeset ulimit umask unalias unset wait"
)
_BASH_BUILTINS: Final = frozenset(_BUILTIN_NAMES.split())
# builtins that run none of their words: an option of theirs holding a command is printed or dropped
# (`echo --cmd='rm -rf ~'`), never run; what they print into a shell is read as that shell's line
_WORDS_ONLY: Final = frozenset({"echo", "printf", "true", "false", ":"})
# Programs the tables do not describe that read or print the files or words they are given and run none of
# them: no wrapper (`cat -n rm -rf ~` reads files named so; follow._carried reads other undescribed programs'
# operands from a shell or an acting program's name on)
# (read only for a program the Programs table does not describe: a described one never reaches that test. debt40
# took out the 15 described ones listed here too, ls, stat, sort, file, ...: tests/redteam/test_debt40.py keeps it so)
_READS_ONLY: Final = frozenset(
    {"cat", "tac", "head", "tail", "wc", "nl", "od", "hexdump", "strings", "cut", "paste", "fold", "fmt", "pr"}
    | {"column", "tr", "rev", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "base32"}
    | {"cowsay", "figlet", "toilet", "banner", "look", "comm", "join", "expand", "unexpand"}
    # (holes39) lookups of a program's name, and printers of a message (`which reboot`, `tldr kill`, `logger reboot`):
    # follow._carried's bare reading would ask on them
    | {"which", "whereis", "whatis", "apropos", "info", "pinfo", "tldr", "cheat", "whence", "where", "notify-send"}
    | {"logger", "wall", "espeak", "say", "spd-say", "lolcat", "boxes"}
)
_RESERVED_WORDS: Final = (
    "if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc"
)
_RESERVED: Final = frozenset(_RESERVED_WORDS.split())
# What `via` holds that runs in the same shell: substitutions, function bodies, alias texts, loops.
# (stop 57) and the prompts a shell runs itself (PROMPT_COMMAND, PS0-PS4: fresh39b's `PROMPT_COMMAND='history -a'`
# to a background shell asked once _new_shell took it for another shell's) and a link read again
_SAME_SHELL_MARKS: Final = frozenset(
    {"$()", ">()", "<()", "function", "alias", "for", "stdin", "link", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4"}
)
# An alias whose text is known only at run time: a command word that may be anything.
_UNKNOWN_ALIAS: Final = '"$__alias_known_at_run_time"'
_MAX_ALIASES: Final = 64  # alias expansions for one command
# bash's tables of aliases and of command paths (`BASH_CMDS[ls]=/bin/rm` makes ls run rm), and
# what runs a command through the second (not a wrapper, which looks the name up itself).
_NAME_TABLES: Final = ("BASH_ALIASES", "BASH_CMDS")
_TABLE_ENTRY: Final = re.compile(r"(BASH_ALIASES|BASH_CMDS)\[([^\]]+)\]=(.*)", re.DOTALL)
_NOT_FOUND: Final = "command_not_found_handle"  # the function bash runs for a command it does not find
_HASH_USERS: Final = frozenset({"builtin", "command", "exec", "time"})
# `env 'BASH_FUNC_f%%=() { …; }' bash -c f`: a bash started with it has the function f.
_IMPORTED_FUNCTION: Final = re.compile(r"BASH_FUNC_(.+?)(?:%%|\(\))")


_NO_TARGETS: Final[frozenset[str]] = frozenset()


def _literal_targets(descriptors: list[tuple[str, str, str, bool]]) -> frozenset[str]:
    """(rows42) The redirection targets holding `$` or a backquote that no expansion made (a quoted
    `> 'a$(id)b'`: the file of that name), none of them also given by a word that expands."""
    literal = {t for _, _, t, varies in descriptors if not varies and ("$" in t or "`" in t)}
    if not literal:
        return _NO_TARGETS
    return frozenset(literal - {t for _, _, t, varies in descriptors if varies})


def _literal_words(tokens: list[Any], argv: list[str], dynamic: list[bool]) -> frozenset[str]:
    """(fp43) The words of a simple command holding `$` or a backquote that no expansion made (a quoted `cp x
    'a$(id)b'`: the file of that name), none of them also within a word that expands (`-v "$(cat d)":/h`'s
    `$(cat d)`, which a program's reading may cut out of it). Only on a line quoting a word (Token.quoted)."""
    if not any(token.quoted for token in tokens):
        return _NO_TARGETS
    literal = {w for w, varies in zip(argv, dynamic, strict=False) if not varies and ("$" in w or "`" in w)}
    if not literal:
        return _NO_TARGETS
    varying = [w for w, varies in zip(argv, dynamic, strict=False) if varies]
    return frozenset(w for w in literal if not any(w in v for v in varying))


def _quoted_words(tokens: list[Token], resolved: list[_Word]) -> frozenset[str]:
    """(xf48a) The texts of the words a whole quoted expansion gave (`"$V"`, `"$(cat f)"`: every expansion in the
    word quoted, one word at run time), none also the text of a word an unquoted expansion gave (split at run
    time into options and files: `grep -q $(cat k) f` is `grep -q -e secret KEY f`)."""
    if not any(token.quoted for token in tokens):
        return _NO_TARGETS
    quoted: set[str] = set()
    split: set[str] = set()
    for token, word in zip(tokens, resolved, strict=False):
        if not word.dynamic or token.literal is not None:
            continue
        if token.quoted and all(seg.quoted for seg in token.segs if seg.kind != LIT):
            quoted.update(word.texts)
        else:
            split.update(word.texts)
    return frozenset(quoted - split) if quoted else _NO_TARGETS


_COMMAND_FIELDS: Final = (
    "name",
    "argv",
    "dynamic",
    "redirects",
    "stdin",
    "fed_by",
    "via",
    "code",
    "depth",
    "cwd",
    "program",
    "indirect",
    "reading",
    "reread",
    "text",
    "shape",
    "guessed",
    "literal_targets",
    "literal_words",
    "quoted_words",
    "settings_targets",
)


# (xf46) `ls -d NAME...`: it prints the names it is given, one a line (a file's name as given, not piped to a terminal)
_LS_NAMES_ONLY: Final = frozenset({"-d", "--directory", "-1", "-d1", "-1d"})


def _listed_names(argv: tuple[str, ...]) -> str | None:
    """What `ls -d NAME...` prints: its names, when it is given only -d (and -1) (the producer of `ls -d
    ~/.ssh/id_ed25519 | tar -cf x.tar -T -`, whose listed name tar packs); without -d, when every name is a glob
    (xf48b: `ls ~/.ssh/* | cpio -o`, the glob given as its names); None otherwise."""
    names: list[str] = []
    directory = False
    folders = False  # a name that is not a glob: without -d `ls` prints a folder's entries, not its name
    ended = False  # (adv46b) after `--` every word is a name (`ls -d -- ~/.ssh/id_ed25519 | tar -cf x.tar -T -`)
    for word in argv[1:]:
        if word == "--" and not ended:
            ended = True
        elif word[:1] == "-" and not ended:
            if word not in _LS_NAMES_ONLY:
                return None
            directory = directory or "d" in word
        else:
            # (xf48b) a glob prints the names it matches, known only when it runs: given as the glob, as `echo` gives
            # it (`ls ~/.ssh/* | cpio -o > x.cpio` packs what `cat -- ~/.ssh/*` reads); a folder it matches is
            # listed by its entries without -d, names below the glob's own folder
            folders = folders or _GLOB.search(word) is None
            names.append(word)
    return "".join(name + "\n" for name in names) if names and (directory or not folders) else None


class Command:
    """One simple command as it would run, at one unwrapping stage."""

    __slots__ = _COMMAND_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    name: str  # lower-case basename of argv[0]; "" when only known at run time
    argv: tuple[str, ...]
    dynamic: tuple[bool, ...]  # per word: contains an unresolved expansion
    redirects: tuple[tuple[str, str], ...]  # (operator, target)
    stdin: str  # data it reads: here-docs, here-strings, literal text piped in
    fed_by: frozenset[str]  # commands whose output reaches it
    via: tuple[str, ...]  # wrappers and interpreters it was found inside
    code: str | None  # an interpreter's inline program
    depth: int
    cwd: str | None  # set when an earlier `cd` on the line moved away from the working directory
    program: Program | None  # how this program reads its arguments (the Programs table)
    indirect: bool  # reached through an escape hatch (sed e, tar --checkpoint-action, git -c ...)
    reading: Any  # its argv as its program reads it (argv.Parsed), once something needed it
    reread: bool  # found by another reading of a command (an unknown option taking a value)
    text: str  # the words joined, as rules and messages show them
    shape: Any  # flags and positionals, filled by the first matcher that needs them
    # (holes39) Read from an undescribed program's operands that merely name an acting program (`mywrap reboot`:
    # follow._carried's bare reading): it may be a wrapper, or a program that takes the name as data; a hardline
    # match on it asks
    guessed: bool
    # (rows42) Redirection targets a quoted word gave as written though they hold `$` or a backquote
    # (`> 'a$(id)b'` opens the file named so: no substitution runs); read by no expansion class
    literal_targets: frozenset[str]
    # (fp43) Words of the simple command it comes from that a quoted word gave as written though they hold `$` or a
    # backquote (`cp x 'a$(id)b'`); read by no expansion class where its program runs nothing (matchers.shape)
    literal_words: frozenset[str]
    # (xf48a) Words of the simple command it comes from that a whole quoted expansion gave (`"$V"`, `"$(cat f)"`:
    # one word whatever the value, never split into options and files); read by Shape.sealed (grep -q's pattern)
    quoted_words: frozenset[str]
    # (debt48) Its `>` targets that a package manager's configuration of settings only is written to, known on the
    # line (`printf 'save-exact=true\n' > .npmrc`: executors.settings_write); read by no redirection class
    settings_targets: frozenset[str]

    def __init__(
        self,
        name: str,
        argv: tuple[str, ...],
        dynamic: tuple[bool, ...],
        redirects: tuple[tuple[str, str], ...] = (),
        stdin: str = "",
        fed_by: frozenset[str] = frozenset(),
        via: tuple[str, ...] = (),
        code: str | None = None,
        depth: int = 0,
        cwd: str | None = None,
        program: Program | None = None,
        indirect: bool = False,
        reading: Any = None,
        reread: bool = False,
    ) -> None:
        self.name = name
        self.argv = argv
        self.dynamic = dynamic
        self.redirects = redirects
        self.stdin = stdin
        self.fed_by = fed_by
        self.via = via
        self.code = code
        self.depth = depth
        self.cwd = cwd
        self.program = program
        self.indirect = indirect
        self.reading = reading
        self.reread = reread
        self.text = ""
        self.shape = None
        self.guessed = False
        self.literal_targets = _NO_TARGETS
        self.literal_words = _NO_TARGETS
        self.quoted_words = _NO_TARGETS
        self.settings_targets = _NO_TARGETS
        self.__post_init__()

    def __post_init__(self) -> None:
        self.text = " ".join(self.argv)

    @property
    def is_dynamic(self) -> bool:
        return not self.name

    def identity(self) -> tuple[object, ...]:
        """Every field a matcher, a scope or a message may read (`text`, `reading` and `shape`
        follow from these): two commands with one identity get the same verdict."""
        return (
            self.name,
            self.argv,
            self.dynamic,
            self.redirects,
            self.stdin,
            self.fed_by,
            self.via,
            self.code,
            self.depth,
            self.cwd,
            id(self.program),  # the Programs table's own entry: alive as long as the command
            self.indirect,
            self.reread,
            self.guessed,
            self.literal_targets,
            self.literal_words,
            self.quoted_words,
            self.settings_targets,
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_command_fields(self) == _command_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _COMMAND_FIELDS)


_command_fields = attrgetter(*_COMMAND_FIELDS)


_WRITTEN_FIELDS: Final = ("writers", "content")


class _Written:
    """A file the line wrote: the programs that wrote it, and what, when known."""

    __slots__ = _WRITTEN_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    writers: frozenset[str]
    content: str | None

    def __init__(self, writers: frozenset[str], content: str | None) -> None:
        self.writers = writers
        self.content = content

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_written_fields(self) == _written_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _WRITTEN_FIELDS)


_written_fields = attrgetter(*_WRITTEN_FIELDS)


# Brace expansion of words with quoted or expanded parts: each part is one private-use character.
_PLACEHOLDER_BASE: Final = 0xF0000
_PLACEHOLDERS: Final = 0x10FFFD - _PLACEHOLDER_BASE


# Rounds of reading unknown options as taking a value (each round drops the ones before the verb).
_MAX_UNKNOWN_ROUNDS: Final = 4


class TooComplex(ShellSyntaxError):
    pass


_KEYWORDS: Final = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "!",
        "{",
        "}",
        "coproc",
        "function",
        "]]",
    }
)
_CLAUSE_HEADERS: Final = frozenset({"for", "select", "case"})
# Words that open and close a compound command or a group, in a command's place (see _split).
_OPENERS: Final = frozenset({"if", "while", "until", "for", "select", "case", "{"})
_CLOSERS: Final = frozenset({"fi", "done", "esac", "}"})


# What two readings of one command may leave different: variables, the directory, "$@", pushd's stack.
_State = tuple[dict[str, str], str | None, list[str] | None, list[str | None]]


_WORD_FIELDS: Final = ("texts", "dynamic", "quoted", "subs")


def _process_direction(raw: str, script: str) -> str:
    """ "<" or ">" when ``script`` is a process substitution's in the word ``raw`` (`-f<(script)`), "" when
    it is a command substitution's (`$(script)`, also when both spellings are there)."""
    if "$(" + script + ")" in raw or "`" in raw:
        return ""
    if "<(" + script + ")" in raw:
        return "<"
    return ">" if ">(" + script + ")" in raw else ""


class _Word:
    """A word of a command as expanded."""

    __slots__ = _WORD_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    texts: list[str]  # more than one after brace expansion
    dynamic: bool
    quoted: bool
    subs: list[str]

    def __init__(self, texts: list[str], dynamic: bool, quoted: bool, subs: list[str]) -> None:
        self.texts = texts
        self.dynamic = dynamic
        self.quoted = quoted
        self.subs = subs

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_word_fields(self) == _word_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _WORD_FIELDS)


_word_fields = attrgetter(*_WORD_FIELDS)


_RAW_FIELDS: Final = ("words", "redirects", "arrays", "conditional", "fed", "printed")


class _Raw:
    """A simple command's words and redirections as read, before expansion."""

    __slots__ = _RAW_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    words: list[Token]
    redirects: list[tuple[str, Token | None]]
    arrays: list[tuple[str, list[Token] | None]]  # `a=(x y)`, `a+=(z)`: NAME= or NAME+=, the elements
    # What it does to variables may not last: it may not run (after && or ||, in an if, case or
    # loop), runs in a subshell (`( … )`, a pipe), or its NAME=VALUE words are only the command's.
    conditional: bool
    # A pipe with a compound command on either side (`{ echo …; } | bash`, `echo … | (bash)`): the
    # commands whose output is this one's input; and, for those, what they printed (the literal
    # data when known, the names that fed it) once read (see Analyzer._pipeline).
    fed: list[_Raw]
    printed: tuple[str | None, frozenset[str]] | None

    def __init__(
        self,
        words: list[Token] | None = None,
        redirects: list[tuple[str, Token | None]] | None = None,
        arrays: list[tuple[str, list[Token] | None]] | None = None,
        conditional: bool = False,
    ) -> None:
        self.words = [] if words is None else words
        self.redirects = [] if redirects is None else redirects
        self.arrays = [] if arrays is None else arrays
        self.conditional = conditional
        self.fed = []
        self.printed = None

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_raw_fields(self) == _raw_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _RAW_FIELDS)


_raw_fields = attrgetter(*_RAW_FIELDS)


def _split(
    tokens: list[Token], sure: list[tuple[bool, int]] | None = None, kept: frozenset[str] = _NOTHING
) -> list[list[_Raw]]:
    """Tokens → pipelines of raw simple commands. With ``sure``, whether each pipeline surely runs
    in this shell is appended to it, with where the next one starts: not after `&&`/`||`, not
    inside a compound command, a subshell or a group, not piped and not in the background (see
    Analyzer._run_pipelines). Reserved words in ``kept`` (named by an alias) stay words."""
    pipelines: list[list[_Raw]] = []
    pipeline: list[_Raw] = []
    words: list[Token] = []
    redirects: list[tuple[str, Token | None]] = []
    arrays: list[tuple[str, list[Token] | None]] = []
    piped = False  # the last operator was a pipe, and no word came after it
    level = 0  # compound commands, groups and subshells open (only counted for ``sure``)
    parens = 0  # subshells among them
    nested = False  # the pipeline being read is inside one, or a coprocess
    after = ""  # the operator that ended the pipeline before
    nest = 0  # inside an if, case, loop or subshell (each command's ``conditional``)
    maybe = False  # after && or || (until the list ends), or in a pipe
    opened = 0  # `for`/`select`/`case` headers being read
    coproc = False  # the command is a coprocess (a NAME may follow)
    # `{ … }` groups: where each starts in ``made`` (every raw command so far), and whether it runs
    # in a subshell (a coprocess, piped into); after a `}`, where its group started (piped out of,
    # or in the background, it ran in a subshell too).
    made: list[_Raw] = []
    groups: list[tuple[int, bool]] = []
    closed: int | None = None
    finished = False  # a compound command or group just ended (see ``sure``)
    # Compound commands open (where each starts in ``made``, whether a subshell); after one ends,
    # where it started (an input redirection that follows is its commands').
    compounds: list[tuple[int, bool, list[_Raw] | None]] = []
    pipe_from: list[_Raw] | None = None  # after `} |`: the compound's commands (see _Raw.fed)
    compound_at: int | None = None
    subshell_at: int | None = None
    cases = 0  # case statements open
    case_header = False  # after `case`, before its `in`
    pattern = False  # reading a case clause's patterns (`a|b)`, `(*)`): words no command runs
    i = 0
    n = len(tokens)
    while i <= n:
        token = tokens[i] if i < n else None
        i += 1
        if pattern and token is not None:
            if token.kind == "word" and not (token.literal == "esac" and "esac" not in kept):
                if any(seg.kind != LIT for seg in token.segs):
                    # `$(cmd))`: a pattern's substitution runs, and its arithmetic is evaluated (`$((x)))`,
                    # `${a[x]})` with x='a[$(cmd)]': adv44): judged with the header
                    words.append(token)
                continue
            if token.kind == "nl" or (token.kind == "op" and token.value in ("|", "(")):
                continue
            pattern = False  # its `)` (ending the header's words, as before), or `esac`
        if token is not None and token.kind == "op" and token.value in (";;", ";&", ";;&") and cases:
            pattern = True
        if token is not None and token.kind == "word":
            if token.literal == "case" and "case" not in kept and not words:
                cases += 1
                case_header = True
            elif token.literal == "esac" and "esac" not in kept and cases:
                cases -= 1
            elif token.literal == "in" and case_header:
                case_header = False
                pattern = True
            if (
                token.value[-1] == "="
                and i < n
                and tokens[i].value == "("
                and tokens[i].kind == "op"
                and _ARRAY_ASSIGNMENT.fullmatch(token.value)
            ):
                # `a=(x ~)`: an array's elements (None: not a plain list of words)
                end = i + 1
                while end < n and tokens[end].kind in ("word", "nl"):
                    end += 1
                if end < n and tokens[end].value == ")":
                    arrays.append((token.value, [t for t in tokens[i + 1 : end] if t.kind == "word"]))
                    i = end + 1
                    continue
            literal = token.literal
            if words and not (literal in _AFTER_PREFIX and literal not in kept and _prefix(words, coproc, kept)):
                words.append(token)
                continue
            if words:  # `time -p { …; }`, `coproc NAME { …; }`: the word is reserved, what follows runs
                if coproc and words[0].literal is None:
                    made.append(_Raw(words, [], [], True))  # the NAME's substitutions run
                    pipeline.append(made[-1])
                words = []
            coproc = coproc or (literal == "coproc" and literal not in kept)
            if literal == "{" and "{" not in kept:
                groups.append((len(made), coproc or piped))
            elif literal == "}" and "}" not in kept and groups:
                start, subshell = groups.pop()
                if subshell:
                    _not_lasting(made[start:])
                else:
                    closed = start
            if literal in _OPENERS and literal not in kept:
                compounds.append((len(made), False, _piped_source(made, pipe_from, pipeline) if piped else None))
                pipe_from = None
            elif literal in _CLOSERS and literal not in kept and compounds and not compounds[-1][1]:
                compound_at = _close(compounds, made)
            if sure is not None:
                if literal in _OPENERS:
                    level += 1
                elif literal in _CLOSERS and level:
                    level -= 1
                    finished = True
                nested = nested or level > 0 or literal == "coproc"
            if literal in _NESTING and literal not in kept:
                if literal in _CLAUSE_HEADERS:
                    opened += 1  # the header itself runs: its body is what may not
                else:
                    nest = max(nest + _NESTING[literal], 0)
            if literal not in _KEYWORDS or literal in kept:
                words.append(token)
            continue
        if sure is not None and token is not None and token.kind == "op":
            if token.value == "(" and not words:
                level += 1
                parens += 1
                nested = True
            elif token.value == ")" and parens:  # not a case pattern's
                level -= 1
                parens -= 1
        if token is not None and token.kind == "op" and token.value in REDIRECT_OPS:
            target = tokens[i] if i < n and tokens[i].kind == "word" else None
            op = _raw_op(token)
            if compound_at is not None and op in _INPUTS and all(w.literal == "esac" for w in words):
                # `{ bash; } <<< 'rm -rf ~'`: a compound command's input is its commands'
                for inner in made[compound_at:]:
                    if not any(op in _INPUTS for op, _ in inner.redirects):
                        inner.redirects.append((op, target))
            elif compound_at is not None and target is not None and target.value.startswith(">("):
                # `{ echo CMD; } > >(sh)`, `for …; done 2> >(sh)`: what its commands print is the
                # substitution's input, as `echo CMD > >(sh)`'s is (see Analyzer._feed_sinks)
                for inner in made[compound_at:]:
                    inner.redirects.append((op, target))
            redirects.append((op, target))
            if target is not None:
                i += 1
            continue
        if token is not None and token.kind == "op" and token.value == "((" and token.literal:
            # `(( expr ))` is `let 'expr'` (its substitutions follow as words of their own), and
            # so is `for (( init; test; step ))`
            if len(words) == 1 and words[0].literal == "for" and "for" not in kept:
                words = []
            words.extend((_LET, Token("word", token.literal, (), False, None, token.literal, True)))
            continue
        if token is not None and token.kind == "nl" and piped and not (words or redirects):
            continue  # `a |` then newlines: the pipe goes on on the next line
        if closed is not None and token is not None and token.value in ("&", "|", "|&"):
            _not_lasting(made[closed:])
        if compound_at is not None and token is not None and token.value in ("|", "|&"):
            pipe_from = made[compound_at:]
        closed = compound_at = None
        if token is not None and token.kind == "op":
            if token.value == "(" and not words:
                compounds.append((len(made), True, _piped_source(made, pipe_from, pipeline) if piped else None))
                pipe_from = None
            elif token.value == ")" and compounds and compounds[-1][1]:
                subshell_at = len(made)  # the subshell's last command is read just below
        if finished and not (words or redirects) and (token is None or token.value in (";", "&", "\n")):
            # `{ cd build; } & rm -rf *`: what follows a compound command runs surely
            nested, after = level > 0, ";"
        finished = False
        was_piped = piped
        piped = token is not None and token.kind == "op" and token.value in ("|", "|&")
        # An operator or a newline (or the end) ends the simple command ...
        if words or redirects or arrays:
            conditional = (
                nest > 0
                or maybe
                or piped
                or was_piped
                or (  # `X=1 cmd`: X is cmd's only
                    bool(words)
                    and "=" in words[0].value
                    and ASSIGNMENT.match(words[0].value) is not None
                    and any(ASSIGNMENT.match(w.value) is None and _APPEND.match(w.value) is None for w in words)
                )
                or coproc  # `coproc x=build`, a subshell's
                or (token is not None and token.value == "&")  # `x=build &`: the background job's
            )
            made.append(_Raw(words, redirects, arrays, conditional))
            pipeline.append(made[-1])
            if pipe_from is not None and made[-1].words and made[-1].words[0].literal != "esac":
                # (not the compound's own redirections, nor the `esac` that ended it)
                _feed(made[-1], pipe_from)
                pipe_from = None
            words, redirects, arrays = [], [], []
            nest, opened = nest + opened, 0
        coproc = False
        if subshell_at is not None:
            compound_at, subshell_at = _close(compounds, made), None
        if token is not None and token.kind == "op":
            if token.value in ("&&", "||"):
                maybe = True
            elif token.value == "(":
                nest += 1
            elif token.value == ")":
                nest = max(nest - 1, 0)
            elif token.value not in ("|", "|&"):
                maybe = False
        elif token is not None and token.kind == "nl" and not was_piped:
            maybe = False
        # ... and all but a pipe end the pipeline.
        if pipeline and (token is None or token.value not in ("|", "|&")):
            pipelines.append(pipeline)
            if sure is not None:
                ended = token.value if token is not None else ""
                sure.append((not nested and len(pipeline) == 1 and after not in ("&&", "||") and ended != "&", i))
                after = ended
                nested = level > 0
            pipeline = []
    return pipelines


_VALUES_FIELDS: Final = (
    "unset",
    "assumed",
    "readonly",
    "arrays",
    "written",
    "exported",
    "attributes",
    "heads",
    "oldpwd",
    "oldpwd_at",
    "input",
    "here",
    "loops",
)


class _Values:
    """What the line did to variables, beyond the values in Analyzer.env."""

    __slots__ = _VALUES_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    unset: set[str]  # variables known to be unset (their value "" in env)
    assumed: set[str]  # variables this reading takes for set (to values known at run time)
    readonly: set[str]
    arrays: dict[str, list[str]]  # `a=(x y)`: the elements, when all are known
    written: set[str]  # variables the line wrote or unset ($PWD/$OLDPWD are then not cd's)
    # (stop 57) variables the line exported (`export X`, `declare -x X`; EXPORT_ALL after `set -a`): a program's shell
    # (`bash -c`, a script it runs) sees no other variable the line wrote (see Analyzer.in_new_shell)
    exported: set[str]
    attributes: dict[str, frozenset[str]]  # `declare -i/-l/-u NAME`: how assignments store
    heads: dict[int, list[tuple[str, Token | None]]]  # see _loop_inputs
    oldpwd: str | None  # where the last `cd` left from (None: not known)
    oldpwd_at: str | None  # where that `cd` went (OLDPWD is known while the shell is there)
    # The literal input of the command being read, when it has one: (text, whether the command is
    # a while/until loop's condition, whether the text comes down a pipe).
    input: tuple[str, bool, bool] | None
    here: bool  # the command being read took $PWD for "." (see _moved_to)
    loops: bool  # a loop header with known words was read

    def __init__(self) -> None:
        self.unset = set()
        self.assumed = set()
        self.readonly = set()
        self.arrays = {}
        self.written = set()
        self.exported = set()
        self.attributes = {}
        self.heads = {}
        self.oldpwd = None
        self.oldpwd_at = None
        self.input = None
        self.here = False
        self.loops = False

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_values_fields(self) == _values_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _VALUES_FIELDS)


_values_fields = attrgetter(*_VALUES_FIELDS)


def _printing_kind(command: Command, program: Program, kind: str) -> str:
    """How ``command`` prints (`prints:`, policies/printers.yaml) when its subcommand or options decide:
    the deepest subcommand saying so (`npm config get KEY` a value kept, `npm run` not), and a program's
    `prints_with` only with one of those options (`grep -l`: names of files; `grep x f`: lines of f)."""
    argv = command.argv
    reading = command.reading
    if reading is None:
        reading = command.reading = parse_argv(program.grammar, argv)
    if program.subcommands:
        for level, _ in subcommand_levels(program, reading, argv)[1:]:
            if level.prints:
                kind = level.prints
    if program.prints_with and kind == program.prints:
        grammar, wanted = program.grammar, program.prints_with
        if not any(
            name in wanted or (len(name) > 2 and abbreviates(name, wanted))  # (a short option's name: no prefix)
            for option in reading.options
            for name in grammar.names(option[0])
        ):
            return ""
    return kind


def _raw_text(raw: _Raw) -> str:
    """A simple command's words as written (what a substitution of it would hold: see Analyzer.feeding)."""
    return " ".join(t.value for t in raw.words)


def _listing_of(command: Command) -> tuple[str, str | None] | None:
    """(`$(LISTER ...)`, the folder it runs in) when ``command`` only lists names of the tree
    (paths.lists_tree): what it pipes into the next stage (`find . -name '*.py' | xargs grep x`).
    The folder is the line's after a `cd` (None: the working directory); the reader uses the
    listing only when it runs there too (follow._listing_input)."""
    if command.name not in LISTER_NAMES or any(command.dynamic) or command.redirects or command.via:
        return None
    if any(not word or any(c.isspace() or c in "'\"$`()" for c in word) for word in command.argv):
        return None
    text = "$(" + " ".join(command.argv) + ")"
    return (text, command.cwd) if lists_tree(text) else None


class Analyzer(Follower, LinkFollower):
    """Turns one command line into every simple command it would run."""

    # A text lexed again under a token budget reuses its tokens, charged again (see _tokens).
    # Speed only (off in the differential test's reference).
    replay: ClassVar[bool] = True  # a class attribute (tests switch it off), also when compiled
    # Readings of the line (see _choose): where a value may be one of several (`${x:-~}` with x
    # not set on the line is x's unknown value, or ~), each reading is judged: the strictest wins.
    # (Class defaults, set on an instance when used: an instance with more than 30 attributes is
    # slower to make, and every line makes one.)
    script: list[int] | None = None  # the options this reading takes at each choice, in order
    options: list[int]  # how many options each choice met so far had
    taken: list[int]  # the option taken at each
    breaking = False  # this reading takes loops for left early: see _readings
    # The line whose readings are made, when choices may be left out for variables it never
    # reads (see _unread_change); None: none is.
    line: str | None = None
    declaring = False  # the words being resolved are a declaration's (`export x=$PWD`)
    # Lines of another process being read (`sh -c`, `awk`'s system(), a function's body): its
    # environment may hold any name its parent gave it (`env x=/ sh -c 'rm -rf ${x:-tmp}'`: see _inherited).
    children = 0
    # (stop 57) The variables the command being read assigns before its name (`X=1 bash -c …`): its environment's,
    # exported to the programs it starts (see in_new_shell)
    leading: frozenset[str] = frozenset()
    # (stop 58) The text being read is a POSIX sh's (dash's): see _dialect
    posix = False
    # (stop 58) The variables, lost values and `leading` before a wrapper of the chain being read changed what the
    # command it runs gets (`env -i`, `env -u X`, `env X=/`: wrapper_environment); put back when the chain ends
    wrapped: tuple[dict[str, str], dict[str, list[str]], frozenset[str]] | None = None
    # A background shell's input (session_memory.ShellState): what its earlier lines left (its
    # functions, variables, directory...) is where every reading of this line starts. `ended`,
    # when a list: every other reading's analyzer once read (what the line leaves is any of theirs).
    resumed: ShellState | None = None
    ended: list[Analyzer] | None = None
    # When a dict (session_memory._after): the commands whose input is `>(…)`'s pipe, by id (kept
    # alive), so what a background shell's line starts reading the shell's own input can be told apart.
    piped: dict[int, Command] | None = None
    # (fresh41) the line holds a `}` (or `{`): a word of one may close or open a group in zsh (see _zsh_braces)
    braces = False
    # (comp46) names whose value, unknown here, is a command substitution's output or a listing's names: the
    # substitution as written (`x=$(find ~ -type f)`, `for f in $(…)`, `… | while read f`, `mapfile -t a < <(…)`,
    # `set -- $(…)`). A later word reading the name is that text in its place (`rm $x` reads as `rm $(find ~ -type
    # f)`), judged by the rows a substitution meets. Kept for the line, as tainted is; None: none yet (no cost
    # on a line without substitutions).
    carried: dict[str, str] | None = None
    # What the command being read takes on its input, as a substitution would print it (`$(find ~ -type f)`):
    # the stages before it in a pipe, a `< <(…)`, `<<< "$(…)"` or `< FILE` (`$(cat FILE)`); None: not known.
    feeding: str | None = None
    # (xf46) The names starting with `-` in the folder a command runs in (its cwd, as self.cwd holds it), which a
    # glob word there expands to (see _dash_globbed); None: not read (a parse of text alone, session_memory's).
    # With True: every name there (adv47: the values a planted option reads, `git * status` with `-c` planted).
    dash_names: Callable[[str | None, bool], tuple[str, ...]] | None = None
    # (fp49) Whether a file (a folder as Command.cwd holds it, a name) is empty, absent or ends with a newline on the
    # disk (see _settings_text); None: not read (a parse of text alone)
    line_ended: Callable[[str | None, str], bool] | None = None
    # and the folders (cwds) where it read none: a parse kept for later checks is read again once one holds such a
    # name (Evaluator._detect_text); a folder that held one, or a name written on the line, keeps it from being kept
    dash_folders: list[str | None] = _NO_ITEMS
    # (xf48a) What the commands made so far create in folders, collected as each is made (not walked again per
    # glob): (folder key, name) of each name starting with `-` a command names where its program cannot read it
    # as an option (see _dash_operands); and the folders (cwds) where a command wrote names the line does not show
    # (a Programs entry's `unpacks_here`: `git checkout B`, `tar xf A`), where a glob's names are unknown
    dash_made: list[tuple[str, str]] = _NO_ITEMS
    # (xf49) kept as (folder key, command) and read only where a later glob needs it (_unknown_names): whether `git
    # VERB` writes the tree (Program.writes_tree, a parse of its words) and where `cp -r A B` writes (its
    # `unpacks_into:` destination) are not worked out for a line with no glob after them
    unknown_made: list[tuple[str, Command]] = _NO_ITEMS
    # (fp49) The commands holding a listing of the tree read from the disk (paths.lists_tree: `rm -f $(find . -name
    # X)`, xargs's `find . -name X | xargs rm`), each with its word holding the listing and whether IFS splits
    # otherwise than at blanks where it runs: judged at the line's end against what the line's other commands write
    # (_listings_made; debt50: the word kept, not looked for again)
    listings: list[tuple[Command, str, bool]] = _NO_ITEMS

    def __init__(self, programs: ProgramTable = EMPTY, session: SessionView | None = None) -> None:
        self.programs = programs
        # What the session wrote before this line (see session_memory): files it runs are read there.
        self.session = session
        self.unread: list[str] = []  # files the line runs that were written but cannot be read
        self.moved: list[str] = _NO_ITEMS  # files moved away (mv SRC ...)
        # (xfail41b) prefixes a program names its outputs from (`split x p`: paa, pab ...; a writer's `output: "{}*"`)
        self.prefixed: list[str] = _NO_ITEMS
        self.edited: list[str] = _NO_ITEMS  # files edited in place (sed -i, perl -i ...): their text after is unknown
        self.commands: list[Command] = []
        self.env = fresh_variables(_FRESH_ENV)  # what is known of the line's variables (lost ones too)
        self.cwd: str | None = None
        self.indirect = 0
        # Files written earlier on the line (by redirections, tee, curl -o, wget): who wrote
        # them and, when it is literal, what. A later command that runs or reads one is fed
        # by its writers; a shell that runs one runs its text.
        self.files: dict[str, _Written] = {}
        self.pipes = 0  # process substitutions read so far (each is a /dev/fd/N file)
        # What `exec N<<< ...` / `exec N< file` gave a file descriptor: a later `<&N` reads it.
        self.descriptors: str | None = None
        self.exec_input: str | None = None  # see _simple: `exec < FILE` (its text, when known)
        self.printing: list[str] | None = None  # what the lines a stage runs print (see _simple)
        self.printed_unread = False  # and whether one printed a written text nobody reads here (see _pipeline)
        self.history: list[str] = _NO_ITEMS  # commands `history -s` added (see _fix_command)
        self.expanding: set[str] = _NO_NAMES  # aliases whose text is being read as a line (see _alias_reading)
        self.exec_reads: list[tuple[str, str]] = _NO_ITEMS  # and the files it reads
        self.exec_numbered: set[tuple[str, str]] = _NO_NAMES  # those of them another descriptor reads (`exec 3< F`)
        self.exec_opened: dict[str, str] = {}  # `exec 3< F`: descriptor -> F (a later `exec <&3` reads F)
        # `exec < F` (or `exec 0<&3` after `exec 3< F`) at the line's top: a shell reading commands
        # from its input reads them from F from here on (see _exec_input)
        self.input_replaced = False
        # Commands with another descriptor's input redirections (`sh 3< x`), by id: the input
        # redirections that are their own (a "<<<" with no target: data on their input)
        self.own_inputs: dict[int, tuple[tuple[str, str], ...]] = _NO_ENTRIES
        # `set -k` (keyword) was read: a NAME=VALUE word after a command's name is in its environment
        # too (`set -k; tar xf a.tar TAR_OPTIONS=--to-command=…`).
        self.keyword = False
        # Second names made earlier on the line (`ln -s TARGET NAME`): NAME -> TARGET.
        # The session's own, from earlier calls, come first (see session_memory).
        self.links: dict[str, str] = session.links() if session is not None else {}
        self.alternate = False  # reading a command again with unknown options taking values
        # (rows42) the redirection targets of the command being unwrapped given as written (Command.literal_targets)
        self.literal_targets: frozenset[str] = _NO_TARGETS
        # (fp43) the words of the command being unwrapped given as written (Command.literal_words)
        self.literal_words: frozenset[str] = _NO_TARGETS
        # (xf48a) and those a whole quoted expansion gave (Command.quoted_words)
        self.quoted_words: frozenset[str] = _NO_TARGETS
        # `alias NAME=VALUE` earlier on the line: a later command named NAME runs VALUE (bash -O
        # expand_aliases, or an interactive shell), read with its words.
        self.aliases: dict[str, str] = _NO_ENTRIES
        self.directories: list[str | None] = []  # pushd's stack: where each pushd on the line left
        # Texts lexed on this line: a substitution is lexed for what it prints, for the names it
        # runs and for its commands; tokens never change once lexed.
        self.lexed: dict[str, list[Token]] = {}
        # The same under a token budget (a long line), with what lexing each cost the budget: a
        # text lexed again is charged that again, so the budget runs out where it did.
        self.charged: dict[str, tuple[list[Token], int]] = _NO_ENTRIES
        # A substitution's pipelines as _static_output and _names_in read them (never changed),
        # by its tokens: `$(a) $(a) ...` is split once for both, not twice per occurrence.
        self.split_once: dict[int, tuple[list[Token], list[list[_Raw]] | None]] = _NO_ENTRIES
        # Shell functions defined on the line: NAME -> the bodies given it (all of them are read:
        # the strictest wins). A call runs each body with its arguments as $1.. and "$@".
        self.functions: dict[str, list[list[Token]]] = {}
        self.calling: set[str] = _NO_NAMES  # functions being read (a recursive call is read once)
        # `>(CMD)`: the file is CMD's input (`echo 'rm -rf ~' > >(sh)` pipes into sh); `exec N> >(CMD)`
        # leaves a descriptor the rest of the line writes to (sink), no fd numbers kept.
        self.sinks: dict[str, str] = _NO_ENTRIES
        self.sink: str | None = None
        # A download unpacked or cloned earlier on the line (`curl … | tar x`, `git clone URL`): a
        # script run afterwards that the line did not write may come from it.
        self.fetched = False
        self.namerefs: set[str] = set()  # `declare -n` names: another variable's value, unknown here
        self.following: set[str] = set()  # variables whose payload is being read (see follow_environment)
        self.positional: list[str] | None = None  # "$@" when known (`set -- a b`, a function's call)
        self.globbed: set[str] = set()  # loop variables read as a glob's names (see _read_loops)
        # The positional parameters ("1".."9", "@", "*") whose value a call's argument spliced in: a
        # substitution's output or a value the line set (`f "$(cmd)"`, `set -- "$x"`; see spliced_code)
        self.spliced_args: frozenset[str] = _NOTHING
        # variables the line set to a text an earlier command may have stored (`read x`, `x=$(cat f)`), which
        # arithmetic evaluates again: `a[$(CMD)]` in it runs CMD (see _arithmetic; redt35)
        self.tainted: set[str] = _NO_NAMES
        # a variable of the integer attribute (`declare -i y`) was given such a text: each assignment to
        # it is arithmetic (`declare -i y; y=$(<f)`, `read y < f`, `y=n` with n tainted: redt36)
        self.integer_stored = False
        # what such assignments run: a known value's subscripts (`declare -i n; n='a[$(rm -rf ~)]'`: adv44)
        self.integer_scripts: list[str] = _NO_ITEMS
        self.frames: list[set[str]] = _NO_ITEMS  # the `local` variables of each function call being read
        # `alias NAME=…` where NAME is a reserved word (`alias if='rm -rf'`): it stays a word.
        self.kept: frozenset[str] = _NOTHING
        # The shell (see _shell_scope) each alias was defined in: a new shell (`bash -c`) has none.
        self.alias_scopes: dict[str, tuple[str, ...]] = _NO_ENTRIES
        # `declare -n NAME=TARGET`: assigning NAME assigns TARGET ("" no target yet, None unknown).
        self.references: dict[str, str | None] = _NO_ENTRIES
        self.hashed: dict[str, str] = _NO_ENTRIES  # `hash -p PATH NAME`, `BASH_CMDS[NAME]=PATH`: NAME runs PATH
        self.traced: tuple[object, ...] = ()  # the PS4 values read already (see _trace_prompt)
        self.prompted: tuple[object, ...] = ()  # a background shell's prompt values read already (_shell_prompts)
        self.vals = _Values()  # what the line did to variables beyond their values (see _Values)
        if session is not None and session.shell is not None:
            session.shell.restore(self)

    def _tokens(self, text: str) -> list[Token]:
        """tokenize(text), once per text on the line. Under a token budget (a long line) every
        lexing pays for itself as before: a text read again is charged what lexing it cost."""
        tokens = self.lexed.get(text)
        if tokens is None:
            budget = BUDGET.get()
            if budget is None:
                tokens = self.lexed[text] = tokenize(text)
            elif (known := self.charged.get(text)) is not None and Analyzer.replay:
                budget.spend(known[1])
                tokens = known[0]
            else:
                before = budget.tokens
                tokens = tokenize(text)
                if self.charged is _NO_ENTRIES:
                    self.charged = {}
                self.charged[text] = (tokens, before - budget.tokens)
        return tokens

    def _names_in(self, script: str) -> set[str]:
        pipelines = self._pipelines_of(script)
        return {"$dynamic"} if pipelines is None else _names_of(pipelines)

    def _pipelines_of(self, script: str) -> list[list[_Raw]] | None:
        """_split(self._tokens(script)) for a reader that changes nothing in it (None: a syntax
        error), split once per text. The budget is charged as by _tokens, each time."""
        tokens = self._tokens(script)
        known = self.split_once.get(id(tokens))
        if known is not None and known[0] is tokens:
            return known[1]
        try:
            pipelines: list[list[_Raw]] | None = _split(tokens)
        except ShellSyntaxError:
            pipelines = None
        if self.split_once is _NO_ENTRIES:
            self.split_once = {}
        self.split_once[id(tokens)] = (tokens, pipelines)  # the entry keeps its tokens (and id) alive
        return pipelines

    # A line of plain words is read without tokens (see _plain_words). Speed only: off in the
    # differential test's reference, which must read alike.
    plain_words: ClassVar[bool] = True
    # A makefile's recipe line that is a plain `echo WORD...` is not read (see inert_recipe): off
    # in the tests' reference, which must judge alike.
    inert_recipes: ClassVar[bool] = True
    skipped = 0  # commands not read (inert recipe lines, repeated writes): each counts toward MAX_COMMANDS
    # A file an inline program writes again (`open("x", "w")` 300 times) is read once (see
    # Follower.code): off in the tests' reference, which must judge alike.
    repeated_writes: ClassVar[bool] = True

    def spent(self) -> int:
        """The tokens left in the check's budget (0 without one): see repeat."""
        budget = BUDGET.get()
        return budget.tokens if budget is not None else 0

    def commands_met(self) -> int:
        """The commands read on the line so far, those met again and not read too (see Follower.follow_program)."""
        return len(self.commands) + self.skipped

    def repeat(self, commands: int, tokens: int) -> bool:
        """A payload read before on the line, met again and not read: charged the ``tokens`` reading
        it spent and counted as the ``commands`` it made (OverBudget, TooComplex where reading it
        again would raise them). False (nothing done: read it) when switched off."""
        if not Analyzer.repeated_writes:
            return False
        budget = BUDGET.get()
        if budget is not None and tokens:
            budget.spend(tokens)
        if len(self.commands) + self.skipped + commands > MAX_COMMANDS:
            raise TooComplex(f"more than {MAX_COMMANDS} commands")
        self.skipped += commands
        return True

    def inert_recipe(self, recipe: str, depth: int) -> bool:
        """Whether a makefile's recipe line is left unread: `echo` and plain words (no quote, `$`,
        path, glob, `=` or operator), where nothing earlier on the line changes what `echo` does (no
        function, alias, hashed name, output sink, `cd`, variable set, trace prompt, escape hatch ...)
        and no token budget is spent. Read, it would be one `echo` command no pattern matches: it
        counts toward MAX_COMMANDS as that command (past it the line is TooComplex where it was)."""
        if (
            not Analyzer.inert_recipes
            or _INERT_RECIPE.fullmatch(recipe) is None
            or depth + 4 > MAX_DEPTH
            or self.indirect
            or BUDGET.get() is not None
            or self.functions
            or self.aliases
            or self.hashed
            or self.sinks
            or self.sink is not None
            or self.keyword
            or self.cwd is not None
            or self.printing is not None
            or self.descriptors is not None
            or self.exec_input is not None
            or self.input_replaced
            or self.positional is not None
            or self.traced
            or self.frames
            or self.alternate
            or self.listing is not None
            or self.env.lost
            or any(name != "HOME" for name in self.env)
        ):
            return False
        if len(self.commands) + self.skipped >= MAX_COMMANDS:
            raise TooComplex(f"more than {MAX_COMMANDS} commands")
        self.skipped += 1
        return True

    def analyze(self, text: str, *, depth: int = 0, via: tuple[str, ...] = ()) -> None:
        if self.script is None and not depth and not via:
            self._readings(text)
            # The shared empty tables (_NO_ENTRIES ...) must still be empty after a line: a writer
            # that forgot its `is _NO_...` step changed every later line's (a few instructions).
            assert not (_NO_ENTRIES or _NO_ITEMS or _NO_NAMES), "a line wrote a shared empty table of shell.py"
            if self.listings:
                self._listings_made(text)
            return
        if via:
            dialect = self._dialect(text, via)
            if dialect is not None and dialect != self.posix:
                self.posix = dialect
                try:
                    self._posix_analyze(text, depth, via)
                finally:
                    self.posix = not dialect
                return
        self._posix_analyze(text, depth, via)

    def _posix_analyze(self, text: str, depth: int, via: tuple[str, ...]) -> None:
        if self.posix and dash_unread(text):
            self.unread.append(UNREAD_SHELL_MARK + text[:80])  # see commands.DASH_UNREAD
        self._analyze(text, depth, via)

    def _dialect(self, text: str, via: tuple[str, ...]) -> bool | None:
        r"""(stop 58, adv58, rev58) Whether ``text``, reached through ``via``, is read by a POSIX sh (True: dash, ash),
        by another shell (False: bash, zsh, ...), or by the shell reading it now (None: `eval`, `$(…)`, a function).
        `sh -c`, `| sh`, `sh x.sh`, a `#!/bin/sh` script and the shell a program's system() or a git alias starts
        (/bin/sh) are POSIX sh's: there bash-only syntax asks (commands.DASH_UNREAD) and echo and printf write as
        dash's do (printed_text's posix): `sh -c "echo \$'a\\' ; rm -rf ~ # \\''"` runs rm in dash."""
        step = via[-1]
        if step in POSIX_SHELLS:
            return True
        if step in _OTHER_SHELLS:
            return False
        script = "/" in step or step == "stdin" or "." in step or "*" in step
        if len(via) > 1 and step not in self.programs.by_name:
            # `sh x.sh`, `sh` reading its input, `python mod.py`'s system(), make's Makefile: the shell named reads the
            # file, whatever its `#!` line says (adv58b: `sh c.sh` of a `#!/bin/bash` file is dash's)
            if via[-2] in POSIX_SHELLS:
                return True
            if via[-2] in _OTHER_SHELLS:
                return False
            if via[-2] in _SYSTEM_SHELL_RUNNERS:
                return True
        if script and text[:2] == "#!":
            shebang = _SHEBANG.match(text)
            if shebang is not None:
                # (adv58b) `#!/usr/bin/busybox sh`: busybox's sh and ash are POSIX sh's
                return shebang.group(1) in POSIX_SHELLS or shebang.group(1) == "busybox"
        return True if step in _SYSTEM_SHELL_RUNNERS else None

    def _readings(self, text: str) -> None:
        """Read the line once taking the first option at every choice (see _choose); then again
        for each other combination of options (up to _MAX_READINGS readings in all), adding the
        commands those readings find (marked as read again: not the command as written). A loop
        that may be left early (a `break`, or a command known only at run time) is read again
        with its variable holding each of its words after it."""
        if self.resumed is not None:
            self.resumed.check()  # a shell whose state is lost: nothing written to it can be read
        fresh = self.env == _FRESH_ENV and not (
            self.env.lost or self.aliases or self.namerefs or self.functions or self.hashed
        )
        start = None if fresh else self._start()
        cwd, positional = self.cwd, self.positional
        self.script, self.options, self.taken = [], [], []
        self.line = text if fresh and self.resumed is None else None
        self._analyze(text, 0, ())
        if self.early_reads is not None:
            self._read_early()
        breaking = self.vals.loops and any(c.name == "break" or not c.name for c in self.commands)
        if not self.options and not breaking:
            return
        seen = {c.identity() for c in self.commands}
        readings = 1
        script = _next_script(self.taken, self.options)
        for leaving in (False, True) if breaking else (False,):
            if leaving:
                script = []
            while script is not None and readings < _MAX_READINGS:
                other = Analyzer(self.programs, self.session)
                other.dash_names = self.dash_names
                if self.resumed is not None and other.resumed is None:
                    self.resumed.restore(other)
                other.lexed = self.lexed
                other.cwd, other.positional = cwd, positional
                if start is not None:
                    other._begin(start)
                other.script, other.options, other.taken = script, [], []
                other.breaking = leaving
                other.line = self.line
                other.piped = self.piped
                try:
                    other._analyze(text, 0, ())
                    if other.listings:
                        other._listings_made(text)
                finally:
                    self._merge_reading(other, seen)
                    if self.ended is not None:
                        self.ended.append(other)
                script = _next_script(other.taken, other.options)
                readings += 1
            if script is not None:
                # Readings left unjudged (an attacker may hide the harmful one past the limit).
                raise TooComplex(f"more than {_MAX_READINGS} readings of the line's values")

    def _read_early(self) -> None:
        """A file a command ran or read as commands before a later command of the line wrote it: the
        two may run at once (`sh < p & echo CMD > p`, `bash p & printf CMD > p`: a named pipe, made
        here or earlier, or a plain file): the reader runs what was written, read again as if after."""
        reads, self.early_reads = self.early_reads or [], None
        for name, word, stdin in reads:
            if self._file_key(word) in self.files:
                line = f"{shell_word(name)} {'< ' if stdin else ''}{shell_word(word)}"
                self.analyze(line, depth=1, via=("written later",))
        self.early_reads = None

    def _start(self) -> tuple[object, ...]:
        """What the line starts from, beyond the cwd and positionals (a session's shell): each
        reading of the line starts from it again."""
        lost = {key: list(held) for key, held in self.env.lost.items()}
        return (
            dict(self.env),
            lost,
            dict(self.aliases),
            dict(self.alias_scopes),
            self.kept,
            set(self.namerefs),
            dict(self.references),
            {name: list(bodies) for name, bodies in self.functions.items()},
            dict(self.hashed),
        )

    def _begin(self, start: tuple[object, ...]) -> None:
        env, lost, aliases, scopes, kept, namerefs, references, functions, hashed = start
        self.env = fresh_variables(env)  # type: ignore[arg-type]
        self.env.lost = {key: list(held) for key, held in lost.items()}  # type: ignore[attr-defined]
        self.aliases = dict(aliases)  # type: ignore[call-overload]
        self.alias_scopes = dict(scopes)  # type: ignore[call-overload]
        self.kept = kept  # type: ignore[assignment]
        self.namerefs = set(namerefs)  # type: ignore[call-overload]
        self.references = dict(references)  # type: ignore[call-overload]
        self.functions = {name: list(bodies) for name, bodies in functions.items()}  # type: ignore[attr-defined]
        self.hashed = dict(hashed)  # type: ignore[call-overload]

    def _dash_globbed(self, globs: set[str], argv: list[str], dynamic: list[bool], start: int = 1) -> bool:
        """(xf46) Put before each glob word the names starting with `-` it matches in the folder the command runs in:
        bash's glob puts them among the words, where its program reads them as options (`find . -del*` with a file
        `-delete` planted there is `find . -delete`; `tar cf x.tar *` with files `--checkpoint=1` and
        `--checkpoint-action=exec=sh x`). A word with a `/` globs no name to its front; a quoted glob character
        matches itself (`-name '-del*'`): ``globs`` are the words bash globs. The folder is read from the disk:
        a parse is kept only while it holds no such name (dash_folders). ``start``: the first word a glob may be
        (1: a command's, past its name; 0: the values of an array or a loop, xf48a). Whether a name was put."""
        if not globs or globs.isdisjoint(argv[start:]):
            return False
        assert self.dash_names is not None
        names = self.dash_names(self.cwd, False)
        if self.files:  # and those written earlier on the line (`: > ./-delete; find . -del*`)
            here = self._file_key(".")
            here = "" if here == "." else here
            names += tuple(
                posixpath.basename(key)
                for key in self.files
                if posixpath.basename(key)[:1] == "-" and posixpath.dirname(key) == here
            )
        if self.dash_made:  # and those an earlier command names past its options (`touch ./-delete`, `mkdir -- -x`)
            names += self._dash_operands()
        if self.unknown_made:  # (xf48a) and any name, after `git checkout B`, `tar xf A` there
            self._unknown_names(globs, argv, start)
        if not names:
            if self.dash_folders is _NO_ITEMS:
                self.dash_folders = []
            if self.cwd not in self.dash_folders:
                self.dash_folders.append(self.cwd)
            return False
        self.read_disk = True
        every: tuple[str, ...] | None = None
        put = False
        at = start
        while at < len(argv):
            word = argv[at]
            if word in globs:
                matcher = _bash_glob(_unknown_widened(word) if dynamic[at] else word)
                hits = [name for name in names if matcher.fullmatch(name) is not None]
                if hits:
                    # the other names it matches follow, in the order bash sorts them: a planted `-c` reads the
                    # next one as its value (`git * status`, `-c` and `core.fsmonitor=rm -rf ~` planted)
                    if every is None:
                        every = self.dash_names(self.cwd, True)[:_MAX_GLOBBED]
                    hits = sorted({*hits, *(name for name in every if matcher.fullmatch(name) is not None)})
                argv[at:at] = hits
                dynamic[at:at] = [False] * len(hits)
                at += len(hits)
                put = put or bool(hits)
            at += 1
        return put

    def _dash_operands(self) -> tuple[str, ...]:
        """(adv47) The names starting with `-` in the folder the command runs in that an earlier command on the line
        names where its program cannot read them as options, so may create them: spelled with a folder
        (`touch ./-delete`, `mkdir sub/-x` after `cd sub`) or after `--` (`touch -- -delete`, `cp x -- -delete`).
        Collected as each command is made (_dash_made, xf48a), not walked again for each glob."""
        here = self._file_key(".")
        return tuple(name for folder, name in self.dash_made if folder == here)

    def _dash_made(self, command: Command) -> None:
        """Keep the (folder key, name) of each name starting with `-` ``command`` names past its options (see
        _dash_operands)."""
        ended = False
        for word in command.argv[1:]:
            if not ended and word == "--":
                ended = True
                continue
            base = posixpath.basename(word.rstrip("/"))
            if base[:1] != "-" or (not ended and "/" not in word):
                continue
            if self.dash_made is _NO_ITEMS:
                self.dash_made = []
            self.dash_made.append(((posixpath.dirname(join_path(command.cwd, word.rstrip("/"))) or "."), base))

    def _split_expression(self, command: Command) -> None:
        """(xf49) A lister whose expression holds actions (its Programs entry's `deletes_listed:`: find's `-delete`,
        `-exec`), given a word a substitution's output makes where it may be read as one: unquoted (split at run time
        into words: `find . $(cat f.txt)`, `x=$(cat f); find . $x`, the names xargs appends, `ls | xargs find .`), or
        quoted where a start point goes (`find "$(cat f)" -name x`: a line `-delete` starts the expression). What
        it does is not known for certain (asked: `$unknown_expression:WORD` among the unread). A quoted word after an
        option word is that option's value (`-name "$(cat p)"`), or an error find exits with; one with a literal
        first character (`"./$(cat f)"`) or the working tree's top (`"$(git rev-parse --show-toplevel)"`) is none."""
        argv = command.argv
        quoted = command.quoted_words
        for at in range(1, len(argv)):
            word = argv[at]
            if not command.dynamic[at] or not word.startswith(("$(", "`")) or self._path_word(word, whole=True):
                continue
            before = argv[at - 1]
            if word in quoted and at > 1 and before[:1] == "-" and before not in _EXPRESSION_JOINERS:
                continue
            self.unread.append(f"$unknown_expression:{word}")
            return

    def _split_options(self, command: Command, program: Program) -> None:
        """(xf49b) A program some of whose options' values run or write something (its `option_names`: git's -c,
        ssh's -o, pip's --log) and whose options end at its first operand (getopt `+`, a verb), given there a word
        only the run knows: a substitution's output or a variable's value the line does not show (`git $(cat f.txt)`
        with `-c core.fsmonitor=./x.sh status` ran x.sh; `ssh $(cat o) h` with `-oProxyCommand=sh x.sh`). Split
        into words, or followed by more, it may be options that run code (asked: `$unknown_options:WORD` among the
        unread). A word after the first operand (`git log $(git merge-base a b)..HEAD`, `git checkout $(git rev-parse
        HEAD)`), an option's value (`git -C $(pwd) status`) or a substitution printing a path is none.

        (subst50) The same at each subcommand the words name (`docker run $(cat args)`: run's `-v /:/host`), for a
        program any of whose subcommands has such an option (`docker $(cat args)`); an option of `option_names` whose
        value is such a word (`ssh -o "$(cat o.txt)" h`: quoted, it is still `ProxyCommand=...`); and for a program
        that reads options among its operands (GNU getopt's permuting: tar, sort, rsync, zip), a substitution or a
        variable set to an unknown text anywhere before `--` (`tar czf x.tgz $(cat list)`: a name
        `--checkpoint-action=exec=sh x`; quoted too: one word may be one option). `$(git ls-files)` is read from the
        index (gitindex): none when no name it prints starts with `-` or holds a blank or a glob character."""
        argv = command.argv
        parsed = parse_argv(program.grammar, argv)
        levels = subcommand_levels(program, parsed, argv) if program.subcommands else [(program, parsed)]
        for depth, (level, reading) in enumerate(levels):
            if not _runs_options(level):
                continue
            first = reading.operand_at[0] if reading.operand_at else reading.rest
            stop = level.grammar.stop_at_operand
            # (to its first operand, or where the command it runs begins, an image, a host; else to that command)
            end = len(argv) if reading.rest is None else reading.rest
            end = first + 1 if stop and first is not None else end
            values: dict[int, tuple[str, str]] = {}
            for name, value, at in reading.options:
                if value is not None:  # (the word holding the value: the option's own, `-oVALUE`, or the next)
                    attached = argv[at].endswith(value) and argv[at] not in (f"-{name}", f"--{name}")
                    values[at if attached else at + 1] = (name, value)
            for at in range(reading.start, end):
                word = argv[at]
                if word == "--":
                    break
                named = values.get(at)
                if named is not None:
                    name, value = named
                    expands = value[:1] in "$`" or _SUBSTITUTES.search(value) or self._splices_a_value(value)
                    unknown = command.dynamic[at] and bool(expands) and not self._path_word(value)
                    if unknown and name in level.option_names and not self._expands_no_option(value, command):
                        # (stop 52) past its start too: `git -c "core.$(cat f)" status` is `-c core.fsmonitor=./x.sh`;
                        # not what prints no option (`cmake -B build -DX=$(nproc)`)
                        self.unread.append(f"$unknown_options:{value}")
                        return
                    split = command.dynamic[at] and word not in command.quoted_words
                    if split and self._splits_into_options(value, command):
                        # (stop 52) an unquoted value split at run time: its words after the first are options
                        # (`git -C $(cat f) status` with f holding `. -c core.fsmonitor=./x.sh`)
                        self.unread.append(f"$unknown_options:{value}")
                        return
                    continue
                if (
                    not command.dynamic[at]
                    or ("$" not in word and "`" not in word)
                    or self._path_word(word, whole=True)
                ):
                    continue  # (adv52: an expansion anywhere in the word, `./$(cat f)`, `$(pwd)/$(cat f)`)
                if word in command.quoted_words and word[:1] not in "$`-":
                    continue  # (one word at run time that starts with its literal text: `CFLAGS="$(pkg-config …)"`)
                environment = "$(" not in word and "`" not in word and not self._splices_a_value(word)
                if environment and word[:1] not in "$`-":
                    continue  # (stop 52) the environment's after literal text: `sh /proc/$$/fd/0`, `git log v$VERSION`
                if stop:
                    if at != first or (word in command.quoted_words and at == len(argv) - 1):
                        continue  # (one word, quoted, nothing after it: no verb follows an option it may be)
                    if depth and environment:
                        continue  # (`docker run --rm "$IMAGE" ls`: the environment's, as below)
                elif "xargs" in command.via:
                    continue  # (the names xargs appends are its input's reading, see follow._xargs_items)
                elif environment:
                    continue  # (a variable the line never set: the environment's, which the caller does not write)
                elif self._globbed_only(word) or ("make" in command.via and _MAKE_REF.fullmatch(word)):
                    # (fix50) a loop variable over a glob (`for f in *.c; do gcc -c "$f"`: a name starting with `-` is
                    # the glob's reading, xf46), or a make variable the makefile reader left as written
                    continue
                if depth and _FILE_WORDS.match(word) and any(r.language == "requirements" for r in level.runs):
                    # (subst51) a verb reading its own words from a file (`pip install -r reqs.txt`: a requirements
                    # file's lines are pip's words, an index or an option alike) reads a file's words among its
                    # operands as that file (`pip install $(cat reqs.txt)`, xf49b's decision)
                    continue
                if ("$(" in word or "`" in word) and self._expands_no_option(word, command):
                    # (subst51) a substitution whose words are no option by what its command prints (the table's
                    # `substitution_words:`): `git log $(git merge-base a b)..HEAD`, `gcc -c $(find . -name '*.c')`;
                    # at a verb's own permuted options too (`git log $(cat f)`: `--output=FILE`)
                    continue
                self.unread.append(f"$unknown_options:{word}")
                return

    def _splits_into_options(self, value: str, command: Command) -> bool:
        """(stop 52) Whether ``value``, an option's value spelled unquoted, may split at run time into more words that
        start with `-`: a substitution or a variable the line set to a text nobody knows (read, a substitution's), as
        an operand is judged in _split_options; not the environment's, a glob's names, nor a substitution whose
        command prints no option (`-C $(git rev-parse --show-toplevel)`). (adv52) Every expansion in it, not only a
        leading one: `-C ./$(cat f)`, `-C $(pwd)/$(cat f)`, `-C $PWD$(cat f)` split as well."""
        value = _ARITHMETIC.sub("0", value)  # (stop 52) `$((n + 1))` is a number: `make -j$((n + 1))`
        if "$(" not in value and "`" not in value and not self._splices_a_value(value):
            return False  # (the environment's, which the caller does not write)
        return not self._expands_no_option(value, command)

    def _expands_no_option(self, word: str, command: Command) -> bool:
        """(adv52) Whether no expansion in ``word`` may split into a word starting with `-`: each command substitution
        in it prints no option (_prints_no_option: `$(git merge-base a b)..HEAD`, `$(pwd)/x`) and each variable is
        the environment's or a glob's (_globbed_only); a substitution anywhere, not only leading
        (`$(nproc)$(cat f)`), or one the line cannot read (nested, quoted inside) is unknown."""
        text = word[1:] if word[:1] == '"' else word
        rest: list[str] = []
        at = 0
        for found in _ANY_SUBSTITUTION.finditer(text):
            if not self._prints_no_option(found.group(0), command):
                return False
            rest.append(text[at : found.start()])
            at = found.end()
        rest.append(text[at:])
        left = " ".join(rest)
        if "$(" in left or "`" in left:
            return False
        return not self._splices_a_value(left) or self._globbed_only(left)

    def _globbed_only(self, word: str) -> bool:
        """(fix50) Whether every variable ``word`` expands holds, where it is read, a value the line makes known that
        is no option: a loop's word over a glob (`for f in *.c; do gcc -c "$f"`: the body is read with `$f` set to
        `*.c`; a name the glob matches that starts with `-` is the glob's reading, xf48a) or a plain word."""
        names = [found.group(1) for found in _SPLICED_NAME.finditer(word)]
        if not names:
            return False
        for name in names:
            if name in self.globbed:
                continue  # (the body read with the glob's names as any text: Analyzer.spliced_code judges them)
            value = self.env.get(name)
            if not isinstance(value, str) or not value or value[0] == "-" or any(c in value for c in "$`\\ \t\n"):
                return False
        return True

    def _path_word(self, word: str, whole: bool = False) -> bool:
        """A word that is (``whole``), or starts with, a substitution printing an absolute path (the table's
        `substitution_words:`, `prints: absolute`: `"$(pwd)/x"`, `$(mktemp -d)`): never an option."""
        found = _LEADING_SUBSTITUTION.match(word)
        if found is None or (found.end() != len(word) and (whole or word[found.end()] != "/")):
            return False
        text = found.group(1) if found.group(1) is not None else found.group(2)
        return substitution_kind(self.programs.substitution_words, text) == "absolute" and not self._shadowed(text)

    def _shadowed(self, text: str) -> bool:
        """(adv52) Whether the command ``text`` of a substitution may run another program than its name says: the line
        made its name a function, an alias or a hash, or changed PATH (`nproc(){ cat f; }; make -j$(nproc)`,
        `export PATH=.:$PATH; git -C $(pwd) status` with ./pwd written): what it prints is not the table's kind."""
        name = text.split(None, 1)[0] if text.strip() else ""
        return self._redefines(name) or "PATH" in self.env or "PATH" in self.env.lost

    def _prints_no_option(self, word: str, command: Command) -> bool:
        """(subst51) Whether ``word`` starts with a command substitution none of whose words, split and expanded, may
        start with `-`, by what its command prints (substitution_kind, the table's `substitution_words:`): absolute
        paths or revisions (`$(pwd)`, `$(git merge-base a b)..HEAD`) always; a listing of the tree (`$(find . -name
        X)`: each path starts with its start point; `$(git ls-files)`, `$(ls)`: bare names) when the names on the
        disk below where it runs (and the index's, for git) hold none that a blank or a glob character splits into
        another word, nor, for bare names, one starting with `-`. Any other substitution prints anything."""
        # (stop 52) called by _expands_no_option with one substitution alone: the text around it is read there
        found = _ANY_SUBSTITUTION.fullmatch(word[1:] if word[:1] == '"' else word)
        if found is None:
            return False
        text = found.group(1) if found.group(1) is not None else found.group(2)
        kind = substitution_kind(self.programs.substitution_words, text)
        if kind and self._shadowed(text):
            return False
        if kind in ("absolute", "revisions", "numbers"):
            return True
        if kind not in ("prefixed", "names", "refs") or self.dash_names is None:
            return False  # (the disk is read only in a check: a table's examples read no listing)
        if command.cwd == "$unknown":
            return False
        self.read_disk = True  # (a kept parse would not see a name planted later)
        try:
            base = self.session.workdir if self.session is not None else os.getcwd()
            folder = os.path.realpath(os.path.join(base, os.path.expanduser(command.cwd or ".")))
        except (OSError, ValueError):
            return False
        if kind == "refs":
            # (adv51b) branch and tag names (`git describe`, `git branch --show-current`): a ref named `--output=F`
            # is git's to keep (`git update-ref`, a clone's tags), read from the repository on the disk
            return gitindex.refs_plain(folder)
        bare = kind == "names"
        words = [w.strip("'\"") for w in text.split("|")[0].split()]
        if words[0] == "git":
            # the index's names (`git ls-files`, `git diff --name-only`); the tree's too for the untracked ones (`-o`)
            # or a diff naming revisions (their names are history's: not read, asked)
            names = gitindex.listed(folder)
            if names is None or any(_UNPLAIN_TRACKED.search(name) for name in names):
                return False
            if words[1] == "diff":
                return all(w[:1] == "-" for w in words[3:])
            return ls_files_others(words[2:]) is None or _tree_plain([folder], bare)
        # find's start points (the words before its expression), ls's folders: walked below the folder it runs in
        operands = list(itertools.takewhile(lambda w: w[:1] not in ("-", "(", "!"), words[1:]))
        if words[0] == "ls":
            operands = [w for w in words[1:] if w[:1] != "-"]
        elif words[0] in ("fd", "fdfind"):
            operands = []  # (its pattern, then its start points: the whole folder is walked)
        starts = [os.path.join(folder, w) for w in operands if not _UNPLAIN_NAME.search(w)] or [folder]
        return len(starts) == max(len(operands), 1) and _tree_plain(starts, bare)

    def _unknown_folders(self) -> list[str]:
        """(xf49) The folders where a command of Analyzer.unknown_made wrote names the line does not show: an
        `unpacks_here` command's own (unless its verb is one of its `keeps_tree:`, `git status`), an `unpacks_into:`
        command's destination (`cp -r e/. sub/`: `sub`; none without its options: `cp a b`). (xf49b) Not the
        destination of a copy or a move whose sources are folders of the project the line names literally, which no
        earlier writer of unseen names on the line (a checkout) and neither the line nor the session wrote into, and
        whose names on disk hold none starting with `-` or holding a blank (`cp -r src dist && cd dist && zip -r
        ../d.zip *`: dist holds src's names, read from src); the folders below it stay unknown (`folder/*`: only
        the source's own names are read)."""
        folders: list[str] = []
        for folder, command in self.unknown_made:
            program = command.program
            if program is None:
                folders.append(folder)  # (an undescribed unpacker: every verb may write)
            elif program.unpacks_here:
                if program.writes_tree(command.argv):
                    # (unpack50) where its folder option or its verb's destination sends them: `tar xf a.tar -C
                    # /tmp/x`, `unzip -d /tmp/x a.zip`, `git clone URL /tmp/r`; (rev51) there only, not into its own
                    # folder too (`git clone URL r && rm -rf build/` read build/ as a link: DENY); none named: its own
                    targets = program.unpacks_target(command.argv)
                    if not targets:
                        folders.append(folder)
                    for target in targets:
                        folders.append(join_path(command.cwd, file_operand(target).rstrip("/") or "/"))
            elif program.unpacks_into:
                parsed = parse_argv(program.grammar, command.argv)  # (debt50: once, for its sources)
                for target in program.unpacks_target(command.argv):
                    into = join_path(command.cwd, file_operand(target).rstrip("/") or "/")
                    # (xf49b) a clean source's top names are read from it: the folders below stay unknown
                    known = self._sources_known(command, parsed, target, folders)
                    folders.append(into + _BELOW if known else into)
        return folders

    def _through_unknown(
        self,
        command: Command,
        argv: list[str],
        redirects: list[tuple[str, str]],
        writes: tuple[bool, bool] | None,
    ) -> tuple[list[str], list[tuple[str, str]]] | None:
        """(link50) ``argv`` and ``redirects`` read as if the first name below a folder where an earlier command of
        the line wrote names it does not show (_unknown_folders: a clone, `tar xf A -C D`, `git checkout B`) were a
        link to the home, for each word that goes through such a name (more follows it, or a `/` ends the word):
        `rm -rf r/h/*` after `git clone URL r` is `rm -rf ~/*` (the clone may hold h -> ~, git stores links; live).
        The name itself (`rm -rf build`) is not read so: rm acts on the link.

        ``writes``: the program's `writes_through:` (its last word only, it opens a link at a word's last name), None
        without one. (debt51) Its words are read so below any such folder, the unpacker's own too (`git pull; rm -rf
        h/*`); every other program's (a read: `cat r/h/.ssh/id_ed25519`, a copy's sources) only below a folder the
        line named (_named_folders: a clone's DIR, `-C D`, `-d D`, a copy's destination). Below such a folder, the
        last name of a word a program opens and writes (`last_name:`: `cp x r/n`, `tee r/n`) and of a redirection's
        target (`echo x > r/n`) is read as a link to a file of the home only the run knows (`~/$LINKED`: n ->
        ~/.bashrc): the unpacker's own folder is not read so (`git pull && cp a b` writes into the project). None: no
        word goes through."""
        made = [(folder, c) for folder, c in self.unknown_made if c is not command]
        if not made:
            return None
        kept, self.unknown_made = self.unknown_made, made
        try:
            folders = self._unknown_folders()
        finally:
            self.unknown_made = kept
        named = _named_folders(folders, made)
        if writes is None and not named:
            return None  # (only a writer reads through the unpacker's own folder)
        changed = False
        out = list(argv)
        first = len(argv) - 1 if writes is not None and writes[0] else 1
        moved = self.cwd not in (None, ".")  # (`cd r && cp x n`: n is r/n)
        for at in range(1, len(argv)):
            word = argv[at]
            if word[:1] != "-" and ("/" in word or moved):
                key = self._file_key(word)
                written = writes is not None and at >= first
                read = _through_folders(key, word, folders if written else named)
                if read is None and written and writes is not None and writes[1]:
                    read = _through_folders(key, word, named, last_name=True)
                if read is not None:
                    out[at], changed = read, True
        targets = list(redirects)
        for at, (operator, target) in enumerate(redirects):
            if ">" in operator and ("/" in target or moved) and target[:1] != "&":
                key = self._file_key(target)
                read = _through_folders(key, target, folders) or _through_folders(key, target, named, last_name=True)
                if read is not None:
                    targets[at], changed = (operator, read), True
        return (out, targets) if changed else None

    def _sources_known(self, command: Command, parsed: Parsed, target: str, made: list[str]) -> bool:
        """(xf49b) Whether every source of copy/move ``command`` (its operands other than ``target``, as ``parsed``
        reads its words) is a folder of the project spelled literally, not below a folder in ``made`` (written unseen
        earlier on the line), not written by the line or the session, whose names on disk (some: a folder not listed
        is not read) hold none starting with `-` or holding a blank."""
        if self.dash_names is None:
            return False
        sources = [
            (word, at) for word, at in zip(parsed.operands, parsed.operand_at, strict=True) if word is not target
        ]
        if not sources or len(sources) > _MAX_KNOWN_SOURCES:
            return False
        for word, at in sources:
            if command.dynamic[at] or _GLOB.search(word) is not None:
                return False
            key = join_path(command.cwd, file_operand(word).rstrip("/") or "/")
            if key.startswith(("/", "~", "$", "..")) or key == ".":
                return False
            if any(_within(key, folder) for folder in made) or self._key_touched(key):
                return False
            names = self.dash_names(key, True)
            if not names or any(name[:1] == "-" or not name.isprintable() or " " in name for name in names):
                return False
        return True

    def _key_touched(self, key: str) -> bool:
        """(xf49b) Whether the line or the session wrote folder ``key`` or a file below it."""
        inside = key.rstrip("/") + "/"
        if key in self.files or any(k.startswith(inside) for k in self.files):
            return True
        return self.session is not None and bool(self.session.touched(key))

    def _unknown_names(self, globs: set[str], argv: list[str], start: int) -> None:
        """(xf48a) A glob word that may expand to a name starting with `-`, in a folder where an earlier command on
        the line wrote names it does not show (`git checkout B; find . -del*`: the branch may hold `-delete`): what
        the program reads there is not known for certain (asked: the name `$unknown_names` among the unread), where
        its Programs entry is `active` (an option of it runs something: find, tar, git, xargs ...). A glob whose text
        cannot reach as an option is not one: a literal first character other than `-` (`src*`), a literal `.`
        (`*.py`, `*.md`: a program's option named so is not read here), after `--`, or with a folder."""
        if not start:
            return  # (an array's or a loop's values: read where a command takes them)
        program = self.programs.get(command_name(argv[0]))
        if program is None or not (program.active or program.reads_planted):
            return  # (a program none of whose options runs anything: `git pull; ls *`, `cat *`, `grep -n x *`)
        here = self._file_key(".")
        if not any(_within(here, made) for made in self._unknown_folders()):
            return
        # (xf49) a name holding a `.` reaches as an option where one takes a value (tar's `--checkpoint-action=exec=sh
        # x.py`, `-Ish x.py`): a literal `.` keeps a glob from one only for a grammar none of whose options takes one
        # (xf49b) whose value runs or writes something (its Programs entry's option runs: sed's -e, mypy's reports)
        dotted = _valued_options(program)
        for at in range(start, len(argv)):
            word = argv[at]
            if word == "--":
                return
            if word in globs and word[:1] in _OPTION_GLOB_START and (dotted or "." not in word):
                self.unread.append(f"$unknown_names:{word}")
                return

    def _merge_reading(self, other: Analyzer, seen: set[tuple[object, ...]]) -> None:
        """Add what another reading of the line found."""
        for command in other.commands:
            key = command.identity()
            if key not in seen:
                seen.add(key)
                command.reread = True
                self.commands.append(command)
        self.unread.extend(w for w in other.unread if w not in self.unread)
        if self.moved is _NO_ITEMS:
            self.moved = []
        self.moved.extend(other.moved)
        self.fetched = self.fetched or other.fetched
        self.read_disk = self.read_disk or other.read_disk
        if other.dash_folders:
            self.dash_folders = [*self.dash_folders, *(f for f in other.dash_folders if f not in self.dash_folders)]
        if len(self.commands) + self.skipped > MAX_COMMANDS:
            raise TooComplex(f"more than {MAX_COMMANDS} commands")

    def _choose(self, options: int) -> int:
        """The option (0 .. options-1) this reading takes at the next choice. The first reading
        takes 0 everywhere (the reading the analyzer always made); _readings tries the others."""
        if self.script is None or options < 2:
            return 0
        at = len(self.taken)
        pick = self.script[at] if at < len(self.script) else 0
        self.taken.append(pick)
        self.options.append(options)
        return pick

    def _analyze(self, text: str, depth: int, via: tuple[str, ...]) -> None:
        if depth > MAX_DEPTH:
            raise TooComplex(f"commands nested more than {MAX_DEPTH} levels deep")
        if depth == 0 and ("}" in text or "{" in text):
            self.braces = True
        if (
            not via
            and self.plain_words
            and not (self.aliases or self.functions or self.hashed)  # a word may name one (a session's shell)
            and BUDGET.get() is None
            and env_get(self.env, "HOME", "~") == "~"
        ):
            words = _plain_words(text)
            if words is not None:
                self._plain_command(words)
                return
        tokens = self.lexed.get(text)  # self._tokens(text), inlined: every line comes here
        if tokens is None:
            tokens = self._tokens(text)
        self._analyze_tokens(tokens, depth, via)

    def _analyze_tokens(self, tokens: list[Token], depth: int, via: tuple[str, ...]) -> None:
        # (stop 57, rev57) the text of a shell another program starts (python's os.system, awk's system(), perl's,
        # node's, a git alias, ssh's remote line, not only `bash -c`): the variables the line did not export are
        # none of its (see in_new_shell)
        if via and self.vals.written and self._new_shell(via):
            self.in_new_shell(partial(self._analyze_tokens_here, tokens, depth, via))
        else:
            self._analyze_tokens_here(tokens, depth, via)

    def _new_shell(self, via: tuple[str, ...]) -> bool:
        """Whether ``via``'s last step starts another process's shell (see _starts_shell), not being the file `source`
        reads: `bash -c`, `sh x.sh`, `./x.sh`, find's `-exec sh -c`, python's os.system, a git alias, ssh's line."""
        return not (len(via) > 1 and via[-2] in ("source", ".")) and self._starts_shell(via[-1])

    def _starts_shell(self, step: str) -> bool:
        """Whether a step of via is a program (a shell of its own), not a builtin (`eval`, `trap`, `compgen -W`), a
        reserved word, a function the line defined or one of the same-shell marks (a substitution, a prompt)."""
        return not (step in _BASH_BUILTINS or step in _SAME_SHELL_MARKS or step in _RESERVED or step in self.functions)

    def _analyze_tokens_here(self, tokens: list[Token], depth: int, via: tuple[str, ...]) -> None:
        if depth > MAX_DEPTH:
            raise TooComplex(f"commands nested more than {MAX_DEPTH} levels deep")
        # A script another process runs (`sh -c`, `$(...)`) moves only itself with a `cd`; `eval`,
        # `source` and an alias run in this shell.
        saved = self.cwd
        child = bool(via) and via[-1] not in ("eval", "alias") and not (len(via) > 1 and via[-2] in ("source", "."))
        vals = self.vals
        values = (
            (dict(self.env), dict(vals.arrays), set(vals.unset), set(vals.assumed), set(vals.exported))
            if child
            else None
        )
        if child:
            self.children += 1  # not undone when reading fails: then only more is inherited
        spans = _define_functions(tokens, self.functions) if len(tokens) > 2 else ()
        if spans:
            # Each definition's body is read where it stands, with unknown arguments: it may run
            # later through a call the line does not spell. A definition runs nothing: what the
            # body sets is not set after it (each call reads the body again with its arguments).
            at = 0
            for begin, body, end in spans:
                if begin < at:
                    continue  # a definition inside a body read already
                self._run_pipelines(tokens[at:begin], depth, via)
                self._read_body(tokens[body:end], depth, (*via, "function"), None)
                at = end
            tokens = tokens[at:]
        self._run_pipelines(tokens, depth, via)
        if len(tokens) > 5:
            self._read_loops(tokens, depth, via)
        if child:
            self.cwd = saved
        if child:
            self.children -= 1
        if values is not None:
            # nor its variables: `x=/etc; bash -c 'x=build'; rm -rf $x` removes /etc
            env, self.vals.arrays, self.vals.unset, self.vals.assumed, self.vals.exported = values
            self.env.restore(env)

    def _run_pipelines(self, tokens: list[Token], depth: int, via: tuple[str, ...]) -> None:
        """Read each pipeline of ``tokens`` in turn. One that may not run, or runs in a subshell
        (after `&&`/`||`, in a compound command, piped, in the background), leaves a variable the
        line had set with two possible values: it is unknown after (`d=~; false && d=x; rm -rf
        "$d"` deletes home), as are the positional parameters it changed."""
        sure: list[tuple[bool, int]] = []
        before: tuple[dict[str, str], list[str] | None, str | None] | None = None
        kept = self.kept
        looped = len(tokens) > 4 and any(t.literal in ("while", "until") for t in tokens)
        heads = _loop_inputs(tokens) if looped else None
        if heads:
            self.vals.heads.update(heads)
        pipelines = _split(tokens, sure, kept)
        k = 0
        # (stop 57, rev57) the variables exported before commands that may not run or run in a subshell (`[ -n "$Z" ]
        # && export X`, `(export X)`, `export X | cat`): one they export may not be after (read as not: in_new_shell)
        exported: set[str] | None = None
        while k < len(pipelines):
            certain, end = sure[k]
            if certain:
                if before is not None:
                    self._settle(*before)
                    before = None
                if exported is not None:
                    self.vals.exported &= exported
                    exported = None
            elif before is None:
                before = (dict(self.env), self.positional, self.cwd)
                exported = set(self.vals.exported)
            if heads:
                for raw in pipelines[k]:
                    given = heads.get(id(raw.words[0])) if raw.words else None
                    if given and not _replaces_input(raw.redirects):
                        raw.redirects = [*raw.redirects, *given]  # `while read d; do …; done <<< ~`
            printed = self._pipeline(pipelines[k], depth, via)
            if printed is not None and self.printing is not None:
                self._print(printed)  # a stage whose output is read runs this line (see _simple)
            k += 1
            if self.kept is not kept:
                # `alias if='rm -rf'`: the rest is read again with that word a command's
                kept, tokens, k = self.kept, tokens[end:], 0
                sure = []
                pipelines = _split(tokens, sure, kept)
        if before is not None:
            self._settle(*before)
        if exported is not None:
            self.vals.exported &= exported

    def _settle(self, env: dict[str, str], positional: list[str] | None, cwd: str | None) -> None:
        """After commands that may not have run: what they changed of ``env`` (and of the
        positional parameters) is unknown. A variable the line had not set keeps its new value.
        Another reading (see _choose) keeps the new values: the commands ran (`d=x; while read d;
        do break; done <<< ~` leaves d at ~); the reading where they did not is _pipeline's (a
        command that may not run) -- the strictest wins. A `cd` among them did not move this
        shell in the first reading (`cd ~; (cd build); rm -rf *`, `cd build & rm -rf "$PWD"`)."""
        changed = [key for key, value in self.env.items() if key in env and env[key] != value]
        moved = positional is not None and self.positional != positional
        if not (changed or moved or cwd != self.cwd) or self._choose(2):
            return
        self.cwd = cwd
        for key in changed:
            del self.env[key]
        if moved:
            self._drop_positional()
            self.positional = None

    # -- words -------------------------------------------------------------------

    def _resolve(self, token: Token, split: bool = True, here: bool = False) -> _Word:
        """A word's values after expansion: brace expansion, and the field splitting the shell
        applies to unquoted expansions (`CMD="rm -rf /"; $CMD` is three words). ``here``: a word
        used where it is expanded though not split (a redirection's target): $PWD in it is the
        folder the command runs in, as in a command's words."""
        literal = token.literal
        raw = token.value
        if "\\" in raw and "\\\\" not in raw and _WINDOWS_WORD.match(raw):
            # `C:\Users\me`, `%USERPROFILE%\.ssh`: cmd.exe and PowerShell keep the backslashes
            # a POSIX shell drops.
            return _Word([raw.replace('"', "")], False, token.quoted, [])
        if literal is not None and not token.brace:
            return _Word([literal], False, token.quoted, [])
        if raw.startswith(("<(", ">(")) and len(token.segs) == 1 and token.segs[0].kind == SUB:
            return self._process_substitution(raw[0], token.segs[0].text)
        if token.brace and any(seg.kind != LIT or seg.quoted for seg in token.segs):
            return self._resolve_braced(token, split, here)
        fields: list[list[str]] = [[]]
        relative = split or here
        dynamic = False
        subs: list[str] = []
        separators = env_get(self.env, "IFS", _DEFAULT_IFS) if split else ""
        if split and not separators and "IFS" in self.vals.unset:
            separators = _DEFAULT_IFS  # `unset IFS`: bash splits at blanks (see _separators)
        quoted_part = False
        inner = 0  # substitutions inside an operator's word (`${x:-$(cmd)}`): run, not text of their own
        for seg in token.segs:
            value: str | None
            if inner and seg.kind == SUB:
                inner -= 1
                subs.append(seg.text)
                continue
            if seg.kind == LIT:
                fields[-1].append(seg.text)
                quoted_part = quoted_part or seg.quoted
                continue
            if seg.kind == VAR:
                if seg.text.endswith("@P"):
                    subs.extend(self._prompt_scripts(seg.text[:-2]))
                args = (
                    _positional_words(seg.text, self.positional) if self.positional is not None and seg.quoted else None
                )
                if args is not None:
                    # "$@": each argument its own word (`f() { gh "$@"; }; f auth token`); "${@:N[:M]}" a slice
                    if args:
                        fields[-1].append(args[0])
                        fields.extend([arg] for arg in args[1:])
                    continue
                if self.positional is not None and seg.text[:1] in _DIGITS and seg.text[:1] != "0":
                    value = _positional_value(seg.text, self.positional, self.env)  # `f() { rm -rf $1/; }; f`
                elif _NAME_ONLY.fullmatch(seg.text):
                    if seg.text in self.namerefs:
                        value = self._dereference(seg.text)
                    else:
                        # "." for $PWD in a word, not in a value kept for later (`x=$PWD`, `declare
                        # x=$PWD`): `--mount type=bind,src=$PWD/hl` is a place all the same
                        kept = self.declaring and _KEPT_VALUE.fullmatch("".join(fields[-1])) is not None
                        value = self._variable(seg.text, relative and not kept)
                        if value is None and kept and seg.text == "PWD":
                            value = self._kept_pwd("".join(fields[-1]))
                else:
                    # `${a[x]}`, `${s:x}`: the subscript or offset is arithmetic
                    named = _PARAMETER_NAME.match(seg.text)
                    subs.extend(self._arithmetic(seg.text[named.end() if named else 0 :], literal=False))
                    if "$(" in seg.text or "`" in seg.text or "<(" in seg.text or ">(" in seg.text:
                        inner = len(substitutions(seg.text, process=not seg.quoted))  # (as the lexer read them)
                    if seg.quoted and seg.text.endswith("[@]") and seg.text[:-3] in self.vals.arrays:
                        elements = self._elements(seg.text[:-3])
                        if elements is not None:  # "${a[@]}": each element its own word
                            if elements:
                                fields[-1].append(elements[0])
                                fields.extend([e] for e in elements[1:])
                            quoted_part = True
                            continue
                    value = self._parameter(seg.text, seg.quoted, subs)
                if value is None and raw[:1] == "-":
                    # (fix51) `-de${9#x}lete`, `-e${x%y}xec`, `-de${@:1}lete`: an operator that yields nothing
                    # from an unset parameter reads as the parameter itself here
                    stripped = _EMPTY_WHEN_UNSET.fullmatch(seg.text)
                    if self._empty_in_option(stripped.group(1) if stripped else seg.text, raw):
                        value = ""
                if value is None and not fields[0] and self._empty_before_path(seg, token):
                    value = ""
                if value is None:
                    carried = self._carried_text(seg.text) if self.carried is not None else None
                    if carried is None and self._derived(seg.text):
                        carried = f"$(derived ${{{seg.text}}})"  # (stop 57) see _derived
                    fields[-1].append("$" + seg.text if carried is None else carried)
                    dynamic = True
                    continue
            elif seg.kind == SUB:
                if "<(" in raw and _process_direction(raw, seg.text) == "<":
                    # `-f<(cmd)`, `--file=<(cmd)`: the word holds the file's path, /dev/fd/N, not cmd's
                    # output (a program reads or runs that file: `make -f<(printf …)`; fresh37a). (An
                    # output one, `x=>(sh)`, stays a word known only at run time: what writes into it)
                    made = self._process_substitution("<", seg.text)
                    subs.extend(made.subs)
                    fields[-1].append(made.texts[0])
                    continue
                subs.append(seg.text)
                value = self._static_output(seg.text)
                if value is None and (fresh := _FRESH_OUTPUT.match(seg.text)) and self._redefines(fresh.group(1)):
                    # `pwd() { echo ~; }; … $(pwd)`: not the program paths read as a fresh place
                    fields[-1].append(f"$(redefined {fresh.group(1)})")
                    dynamic = True
                    continue
                if value is None and self._unsure_lister(seg.text):
                    # not a listing of the tree (paths.lists_tree): what it prints is unknown
                    fields[-1].append(f"$(unsure {seg.text.strip()})")
                    dynamic = True
                    continue
                if value is None and _PWD_ONLY.fullmatch(seg.text):
                    # `$(pwd)` is $PWD: where the shell is
                    kept = self.declaring and _KEPT_VALUE.fullmatch("".join(fields[-1])) is not None
                    value = self._variable("PWD", relative and not kept)
                    if value is None and kept:
                        value = self._kept_pwd("".join(fields[-1]))
                if value is None:
                    fields[-1].append(f"$({seg.text})")
                    dynamic = True
                    continue
            else:
                subs.extend(self._arithmetic(seg.text, literal=False))
                if "=" in seg.text or "++" in seg.text or "--" in seg.text:
                    for before, after in _ASSIGNED.findall(seg.text):
                        self._drop(before or after)  # `$((x=0))` assigns x
                fields[-1].append(f"$(({seg.text}))")
                dynamic = True
                continue
            if (
                seg.kind == VAR
                and (value == "~" or value[:2] == "~/")
                and any(fields[-1])
                and fields[-1][-1][-1:] not in ("=", ":", "")
            ):
                # (stop 58, fix58a) the home (`$HOME`, a value a tilde gave) after other text of the word is the
                # home's path there, not a `~` the paths read as a folder of that name (`rm -f /$HOME/notes.txt`); after
                # a `=` or `:` (`--file=$HOME/x`, `PATH=a:$HOME/bin`) the paths read the `~` as the home already. A
                # variable's only: a substitution's `~` is what a printer made of one (`$(basename ~)`, CI of 4f7108f2)
                value = posixpath.expanduser("~") + value[1:]
            if seg.quoted or not separators:
                fields[-1].append(value)
                quoted_part = quoted_part or seg.quoted
                continue
            _split_fields(value, separators, fields)
        words = ["".join(f) for f in fields]
        if split and not quoted_part:
            # Unquoted expansions that are empty vanish: `$EMPTY rm -rf /` runs rm.
            words = [w for w in words if w]
        if not token.brace or token.quoted:
            return _Word(words, dynamic, token.quoted, subs)
        texts: list[str] = []
        for word in words:
            expanded, complete = expand_braces(word)
            if not complete:
                raise TooComplex("a brace expansion past its limits (64 words, 64 groups, 16 levels)")
            texts.extend(w for w in expanded if w)  # an empty unquoted word vanishes: `{,}`
        return _Word(texts, dynamic, token.quoted, subs)

    def _resolve_braced(self, token: Token, split: bool, here: bool = False) -> _Word:
        """Brace expansion first, as bash does it: only unquoted braces count (`""{/,x}` is `/ x`),
        and what quotes or expansions hold is never a brace. Each quoted or expanded part stands
        in for itself as one placeholder character while the braces expand."""
        segs = token.segs
        if len(segs) > _PLACEHOLDERS or any(ord(c) >= _PLACEHOLDER_BASE for s in segs for c in s.text):
            raise TooComplex("a word too complex to expand for certain")
        masked = "".join(
            seg.text if seg.kind == LIT and not seg.quoted else chr(_PLACEHOLDER_BASE + i) for i, seg in enumerate(segs)
        )
        expanded, complete = expand_braces(masked)
        if not complete:
            raise TooComplex("a brace expansion past its limits (64 words, 64 groups, 16 levels)")
        out = _Word([], False, token.quoted, [])
        for text in expanded:
            parts: list[Seg] = []
            run: list[str] = []
            for ch in text:
                if ord(ch) >= _PLACEHOLDER_BASE:
                    if run:
                        parts.append(Seg(LIT, "".join(run)))
                        run.clear()
                    parts.append(segs[ord(ch) - _PLACEHOLDER_BASE])
                else:
                    run.append(ch)
            if run:
                parts.append(Seg(LIT, "".join(run)))
            word = self._resolve(Token("word", token.value, parts, False, None, None, token.quoted), split, here)
            out.texts.extend(word.texts)
            out.dynamic = out.dynamic or word.dynamic
            out.subs.extend(sub for sub in word.subs if sub not in out.subs)
        return out

    def _zsh_braces(self, words: list[Token], depth: int, via: tuple[str, ...]) -> None:
        """(fresh41) zsh reads a bare `}` word anywhere on a line as closing a group, and `if COND { … }`,
        `while COND { … }`, `{ … } always { … }` as its short forms: where bash passes `}` and `{` to a
        command as words (`true } always { rm -rf ~ }`), zsh runs what follows them. Each run of words after
        such a brace is read as a command too (a terminal whose shell is zsh, a `zsh -c` line)."""
        part: list[str] | None = None
        parts: list[list[str]] = []
        for token in words[1:]:
            if token.value in ("{", "}"):
                part = []
                parts.append(part)
            elif part is not None:
                part.append(token.value)
        for found in parts:
            if found:
                self.analyze(" ".join(found), depth=depth + 1, via=(*via, "zsh"))

    def _substitution(self, script: str, depth: int, via: tuple[str, ...]) -> None:
        """Read a substitution's commands (`$(cmd)`, `<(cmd)`, `>(cmd)`). Those of `>(cmd)` read a
        pipe, not the shell's input (see ``piped``)."""
        start = len(self.commands)
        self.analyze(script, depth=depth + 1, via=(*via, "$()"))
        if self.piped is not None and script in self.sinks.values():
            self.piped.update((id(c), c) for c in self.commands[start:])

    def _process_substitution(self, direction: str, script: str) -> _Word:
        """`<(cmd)` is a file, /dev/fd/N, holding what cmd prints: a program that runs or reads it
        (`bash <(echo ...)`, `awk -f <(...)`, `curl -T <(env)`) runs or reads that."""
        path = f"/dev/fd/{63 + self.pipes}"
        self.pipes += 1
        content = self._static_output(script) if direction == "<" else None
        self.files[path] = _Written(frozenset(self._names_in(script)), content)
        if direction == ">":
            if self.sinks is _NO_ENTRIES:
                self.sinks = {}
            self.sinks[path] = script
        return _Word([path], False, False, [script])

    def _unread_change(self, env: dict[str, str], arrays: object) -> bool:
        """Whether what a conditional part changed (`(x0=1)`, `false && x0=1`) is only variables the
        line never reads (_read_names): both readings (it lasted or not) give the same commands,
        so the choice is not made (a line of such parts met the reading cap before the reading
        that mattered: `d=~; (d=build); (x0=1)…(x6=1); rm -rf "$d"`)."""
        if self.line is None or arrays != self.vals.arrays:
            return False
        read = _read_names(self.line)
        if read is None:
            return False
        current = self.env
        changed = {k for k in env.keys() | current.keys() if env.get(k) != current.get(k)}
        return all(_UNREAD_NAME.fullmatch(k) is not None and k not in read for k in changed)

    def _unsure_lister(self, text: str) -> bool:
        """Whether the lister ``text`` runs (`ls`, `find`, `git ls-files`: paths.lists_tree) may
        print other names than the tree's: the line made its name run something else (a function,
        alias, hash), changed PATH (`PATH=.:$PATH; cat $(ls)` runs ./ls), or, for git, set a
        variable git reads (`export GIT_INDEX_FILE=x.idx`: an index the caller wrote, whose
        names may be `/home/me/.ssh/id_ed25519` or `../..`)."""
        name = text.split(None, 1)[0] if text.strip() else ""
        if name not in LISTER_NAMES:
            return False
        env = self.env
        if self._redefines(name) or "PATH" in env or "PATH" in env.lost:
            return True
        return name == "git" and any(n.startswith("GIT_") for n in (*env, *env.lost))

    def _redefines(self, name: str) -> bool:
        """Whether the line made the builtin ``name`` run something else (a function, alias, hash)."""
        return name in self.functions or name in self.aliases or name in self.hashed

    def _static_output(self, script: str) -> str | None:
        """What `$(echo rm)` prints, when that is knowable without running anything."""
        pipelines = self._pipelines_of(script)
        if pipelines is None or len(pipelines) != 1:
            return None
        if len(pipelines[0]) > 1:
            # `$(echo cm0gLXJmIC8= | base64 -d)`: literal data through decoders is knowable.
            try:
                inner = Analyzer(self.programs)
                inner.lexed = self.lexed
                if self.charged is _NO_ENTRIES:
                    self.charged = {}  # shared with inner: what it charges is this line's too
                inner.charged = self.charged
                return inner._pipeline(pipelines[0], MAX_DEPTH, ("$()",))
            except ShellSyntaxError:
                return None
        raw = pipelines[0][0]
        words = [w.literal for w in raw.words]
        if not raw.redirects and words and words[0] in _PATH_PRINTERS:
            return self._path_printed(raw)  # (mk49) `$(dirname "$0")`: a known value's folder
        if raw.redirects or not words or any(w is None for w in words):
            return None
        return printed_text(command_name(words[0] or ""), [w for w in words[1:] if w is not None], self.posix)

    def _path_printed(self, raw: _Raw) -> str | None:
        """(mk49) What `dirname WORD`/`basename WORD` print when each word is literal text and variables
        the line (or a script's run: its $0, $1…) made known (`$(dirname "$0")` in `bash s/b.sh` is `s`);
        None when a word is not known for certain (a variable unset or split, a glob)."""
        args: list[str] = []
        for word in raw.words[1:]:
            if word.literal is not None:
                args.append(word.literal)
                continue
            text: list[str] = []
            for seg in word.segs:
                if seg.kind == LIT:
                    text.append(seg.text)
                    continue
                if seg.kind != VAR or _NAME_ONLY.fullmatch(seg.text) is None or seg.text[:1] in "@*#?$!-":
                    return None
                if seg.text[:1] in _DIGITS and seg.text != "0":
                    if self.positional is None:
                        return None
                    value = _positional_value(seg.text, self.positional, self.env)
                else:
                    value = self.env.get("0") if seg.text == "0" else self._variable(seg.text)
                if value is None or (not seg.quoted and (_GLOB.search(value) or not value or value.split() != [value])):
                    return None
                text.append(value)
            args.append("".join(text))
        name = raw.words[0].literal or ""
        program = self.programs.get(name)
        kind = program.prints if program is not None else ""
        if kind not in ("dirname", "basename"):
            return None
        printed, exact = printed_words(kind, args, self.env)
        return printed if exact else None

    # -- commands ----------------------------------------------------------------

    def _plain_command(self, argv: list[str]) -> None:
        """What analyze, _pipeline and _simple do with one simple command of plain words (no
        assignment first, redirection, input, keyword or expansion): the same stages."""
        start = len(self.commands)
        dynamic = [False] * len(argv)
        if self.dash_names is not None and len(argv) > 1:
            globs = {word for word in argv[1:] if "/" not in word and _dash_glob(word)}
            if globs:
                argv = list(argv)
                self._dash_globbed(globs, argv, dynamic)
        stages = self._unwrap(argv, dynamic, [], "", _NOTHING, (), 0)
        output = self._output(stages[-1] if stages else None, "")
        if stages and (
            stages[-1].name in _FILE_WRITERS or stages[-1].name in _IN_PLACE or _may_write(stages[-1].program)
        ):
            # a program's own file holds what the commands it ran printed too (as in _simple: adv40)
            nested = len(self.commands) > start + len(stages) and _may_write(stages[-1].program)
            self._record_writes(stages[-1], self.commands[start:] if nested else stages, [], "", output)
        if stages and (self.sinks or self.sink is not None):
            self._feed_sinks(argv, stages, [], "", output, 0, ())

    def _pipeline(self, pipeline: list[_Raw], depth: int, via: tuple[str, ...]) -> str | None:
        """Analyze one pipeline; return the literal data it finally writes, if knowable."""
        upstream: frozenset[str] = _NOTHING
        data: str | None = None  # literal data flowing down the pipe
        last = pipeline[-1]
        listing: tuple[str, str | None] | None = None  # what the stage before lists of the tree (see _listing_of)
        outer = self.feeding
        written = ""  # the stages before, as written (see feeding)
        for raw in pipeline:
            if raw.fed and data is None:
                # `{ echo 'rm -rf ~'; } | bash`: what the compound's commands printed (the known parts)
                printed = [r.printed for r in raw.fed if r.printed is not None]
                known = [text for text, _ in printed if text is not None]
                data = _joined(known) if known else None
                upstream = upstream.union(*(names for _, names in printed))
            before = (dict(self.env), dict(self.vals.arrays), set(self.vals.unset)) if raw.conditional else None
            self.listing = listing if data is None else None
            ran = self.written_runs
            given = data  # what is piped into it, when known
            # What this stage prints reaches another: the next stage, a compound's command it is piped
            # into (raw.printed: `(make) | sh`, `{ sh x.sh; } | sh`, `make | (sh)`), or the output of a
            # stage that runs this line (`sh -c 'cat x.sh' | sh`: see _simple)
            feeds = raw is not last or raw.printed is not None or self.printing is not None
            start = len(self.commands)
            if raw.fed:
                self.feeding = "$(" + " | ".join(_raw_text(r) for r in raw.fed) + ")"
            else:
                self.feeding = "$(" + written + ")" if written else None
            if raw is not last:
                written = written + " | " + _raw_text(raw) if written else _raw_text(raw)
            try:
                stages, data = self._simple(raw, depth, via, upstream, data, feeds=feeds)
            finally:
                self.listing = None
                self.feeding = outer
            unread = _NOTHING
            nested = feeds and len(self.commands) > start + len(stages)
            ran_names = _NOTHING
            if nested:
                # it ran lines of its own (`sh -c 'curl URL'`, a function, a git alias `!curl URL`): what
                # they printed is in its output (see _simple), and the names of their commands feed the
                # next stage as its own do (`sh -c 'curl URL' | sh` is curl's output in sh)
                ran_names = frozenset(c.name or "$dynamic" for c in self.commands[start:])
                if self.printed_unread:
                    # one printed a text nobody reads here (`sh -c 'sed "" x.sh' | sh`, x.sh written)
                    ran_names, self.printed_unread = ran_names | _WRITTEN_INPUT, False
                if any(c.program is not None and c.program.prints == "code" for c in self.commands[start:]):
                    # an inline program it hands on (`deno eval CODE` runs `node -e CODE`): what it prints
                    # is not evaluated here (see _printed_of)
                    ran_names = ran_names | _PRINTED_INPUT
                upstream = upstream | ran_names
            if stages and feeds and self.written_runs != ran:
                # `make | sh` after the session wrote the Makefile, `npm run -s gen | sh`: the stage ran a
                # written file, so what it prints is that file's doing, and nobody reads it here (even
                # beside a known part: `f() { echo hi; sh x.sh; }; f | sh`)
                unread = _WRITTEN_INPUT
            if (data is None or nested) and stages and feeds and (self.files or self.session is not None):
                # `cat x.sh | sh`, `sed '' x.sh | sh`: what a stage prints of the files it reads (before
                # what its own lines printed: `sh x.sh | sh`)
                found, exact = self._printed_files(stages[-1])
                if found is not None:
                    data = found if data is None else _joined([found, data])
                if not exact:
                    unread = _WRITTEN_INPUT
            if data is None and stages and feeds and stages[-1].name in _PRINTERS and any(stages[-1].dynamic):
                # `echo "rm -rf ~ $x" | sh`, `xargs echo 'rm -rf ~' < /dev/null | sh` (xargs adds what it reads):
                # the text it prints, its unknown words as they are spelled (a reader runs `$x` as a command
                # nobody knows here, and the known words as they stand)
                last_stage = stages[-1]
                data = printed_text(last_stage.name or "", list(last_stage.argv[1:]), self.posix)
                if any(
                    d and (self.spliced_code(w) or _WHOLE_VALUE.fullmatch(w))
                    for w, d in zip(last_stage.argv, last_stage.dynamic, strict=False)
                ):
                    # `x=$(readlink l); echo "echo $x" | sh`: x's value is parsed there, not the word `$x`
                    # (see spliced_code; redt34): as a stored value (a shell reading it asks)
                    unread = _STORED_INPUT
            if data is None and stages and feeds and not unread:
                # `yes CMD | sh`, `basename CMD | sh`, `date +CMD | sh`, `awk 'BEGIN{print "CMD"}' | sh`: what a
                # program prints of its own words (see _printed_of)
                data, unread = self._printed_of(stages[-1], nested)
            if data is None and stages and feeds and (given is not None or stages[-1].stdin):
                # `echo 'rm -rf ~' | grep . | sh`, `awk 1 <<< 'rm -rf ~' | sh`: a known text through a program
                # whose output is not computed here (a filter, an editor, a program reading it). What it
                # prints may be that text, and nobody reads it: as a written file's text nobody can read
                unread = _WRITTEN_INPUT
            if unread:
                upstream = upstream | unread
            listing = _listing_of(stages[-1]) if len(stages) == 1 and raw is not last and not raw.fed else None
            if listing is not None and self._unsure_lister(stages[-1].name or ""):
                listing = None
            if raw.printed is not None:
                names = frozenset(c.name or "$dynamic" for c in stages)
                raw.printed = (data, names.union(unread, ran_names, *(c.fed_by for c in stages)))
            if unread and raw is last and self.printing is not None:
                self.printed_unread = True  # for the stage that runs this line (see above)
            if (
                before is not None
                and (before[0] != self.env or before[1] != self.vals.arrays)
                and not self._unread_change(before[0], before[1])
                and self._choose(2)
            ):
                # another reading: what it did to variables did not last (`false && x=build`,
                # `(x=build)`, `x=build true`)
                env, self.vals.arrays, self.vals.unset = before
                self.env.restore(env)
            if stages and raw is not last:  # what feeds the next stage: nothing after the last
                # What fed a stage (substitutions, files it read) flows on down the pipe too.
                upstream = upstream.union(c.name or "$dynamic" for c in stages)
                fed = [c.fed_by for c in stages if c.fed_by is not upstream]
                if fed:
                    upstream = upstream.union(*fed)
        return data

    def _simple(
        self,
        raw: _Raw,
        depth: int,
        via: tuple[str, ...],
        fed_by: frozenset[str],
        piped: str | None,
        aliases: bool = True,
        *,
        feeds: bool = False,
    ) -> tuple[list[Command], str | None]:
        """Read one simple command (a pipeline's stage, fed ``piped`` when that is known, by ``fed_by``);
        return its commands and what it prints, when known. What it prints includes what the lines it
        runs print (`sh -c 'echo CMD'`, a function's body, `eval`, a git alias `!echo CMD`: their known
        parts), collected while it is read when its output is read (``feeds``: the next stage, a
        compound it is piped into, a file, or an enclosing line's own output)."""
        if raw.words and raw.words[0].value.startswith(_NAME_TABLES):
            self._name_table(raw.words[0], via)
        for array, _ in raw.arrays:
            if array.startswith(_NAME_TABLES):  # `BASH_ALIASES=([cd]='rm -rf')`: the whole table
                raise TooComplex(f"{array.rstrip('+=')} set in a way not read here")
        if aliases and self.aliases and raw.words:
            read = self._alias_reading(raw, depth, via, fed_by, piped, feeds)
            if read is not None:
                return read
        extra_fed: frozenset[str] = fed_by
        if self.braces and len(raw.words) > 1:
            self._zsh_braces(raw.words, depth, via)
        here = self.vals.here  # (a substitution's commands are read while the outer command's words are)
        # (texts, dynamic) per word; texts has more than one entry after brace expansion or splitting.
        words: list[tuple[list[str], bool]] = []
        plain: list[str] | None = None  # every word's text, when each is one run of literal text
        resolved: list[_Word] | None = None  # each word's values, when not plain
        # (a word ending in `)` may be a glob with zsh's qualifiers, whose code the loop below reads)
        if all(
            t.literal is not None and not t.brace and "\\" not in t.value and t.value[-1:] != ")" for t in raw.words
        ):
            plain = [t.literal for t in raw.words]  # type: ignore[misc]
        else:
            resolved = []
            assigning = True
            for t in raw.words:
                # Assignment words are not split: `X=$(echo a b)` is one value.
                prefixed = assigning
                assigning = assigning and ASSIGNMENT.match(t.value) is not None
                self.declaring = self.declaring or assigning  # `p=$PWD/x` keeps a value too
                word = self._resolve(t, split=not assigning)
                if t.value[-1:] == ")" and not assigning:
                    # (fresh41) zsh's glob qualifiers that run code: `*(e:'CMD':)`, `*(+CMD)`
                    word.subs = [*word.subs, *_glob_qualifier_scripts(t.value)]
                resolved.append(word)
                if prefixed and not assigning:  # the command word: `declare x=$PWD` keeps a value
                    self.declaring = t.literal in _DECLARERS
            self.declaring = False
            words = [(w.texts, w.dynamic) for w in resolved]
            if any(w.subs for w in resolved):
                names = set(fed_by)
                for word in resolved:
                    for sub in word.subs:
                        self._substitution(sub, depth, via)
                        names.update(self._names_in(sub))
                extra_fed = frozenset(names)
        redirects: list[tuple[str, str]] = []
        stdin = piped or ""
        literal = piped  # its input, when that is one literal text (a `read` takes its value from it)
        # each input redirection kept in ``redirects``: (its descriptor, "" for 0; op, target, varies)
        descriptors: list[tuple[str, str, str, bool]] = []
        numbered = False
        given = piped is not None  # data on its own input (a pipe, a here-document or -string)
        unwritten: str | None = None  # a file on its input that nobody wrote (yet)
        if raw.redirects:
            stdin_parts: list[str] = []
            fed_names: set[str] = set()
            for raw_op, target in raw.redirects:
                if target is None:
                    continue
                descriptor, op = split_descriptor(raw_op)
                if descriptor:
                    numbered = True  # `sh 3< x`: another descriptor's input, not the command's
                elif op in ("<<", "<<-", "<<<"):
                    given = True
                if target.heredoc is not None and op in ("<<", "<<-"):
                    body = target.heredoc.body or ""
                    expands = not target.quoted and any(c in body for c in "$`\\")
                    # (adv49) what the command reads: `\$HOME` in an unquoted body is `$HOME` to a shell
                    stdin_parts.append(
                        heredoc_text(body, self._pasted_value, self._pasted_expansion) if expands else body
                    )
                    if expands:
                        # An unquoted body is expanded before the command reads it: bash runs each
                        # `$(cmd)` and backquote in it (quotes in a body are characters, never quoting).
                        # (counted before they are read: a body of thousands costs no reading)
                        many = body.count("$(") + body.count("`") // 2 > _MAX_BODY_SUBSTITUTIONS
                        subs = [] if many else substitutions(body)
                        if many or len(subs) > _MAX_BODY_SUBSTITUTIONS:
                            raise TooComplex(f"a here-document runs more than {_MAX_BODY_SUBSTITUTIONS} commands")
                        for sub in subs:
                            self._substitution(sub, depth, via)
                        if "${" in body or "$((" in body or "$[" in body:
                            self._body_expansions(body, depth, via)
                        if subs or self._unread_body(body):
                            # (subst50) a piece of the text its reader parses that only the run knows:
                            # `python3 <<E` / `$(cat f)`, `${x:-a}`, `$((n))` (read as `bash <<< "$x"` is)
                            fed_names.update(_STORED_INPUT)
                    # (stop 58, adv58) an unquoted body of no expansion is its text, backslashes processed (`read a
                    # <<E` of `../notes.tx\t`: read without -r makes it ../notes.txt)
                    whole = not expands or ("$" not in body and "`" not in body)
                    literal = None if literal is not None else stdin_parts[-1] if whole else _UNKNOWN_INPUT
                    continue
                resolved_target = self._resolve(target, split=False, here=op != "<<<")
                if op in ("<", "<&", "<>", "<<<"):
                    known = not resolved_target.dynamic and len(resolved_target.texts) == 1 and literal is None
                    if op == "<<<":
                        unknown = literal is None and resolved_target.dynamic
                        literal = resolved_target.texts[0] + "\n" if known else _UNKNOWN_INPUT if unknown else None
                    else:  # a file the line wrote (`<(echo ~)` is one)
                        literal = self._content(resolved_target.texts[0]) if known and op == "<" else None
                for sub in resolved_target.subs:
                    self._substitution(sub, depth, via)
                    if op in ("<", "<<<"):
                        # `bash < <(curl ...)`: its input is what the substitution prints; (stop 56) and a
                        # here-string's (`python3 -c CODE <<< "$(curl URL)"`: fed by curl, as `curl URL | …` is)
                        fed_names.update(self._names_in(sub))
                if op == "<<<":
                    stdin_parts.append(resolved_target.texts[0] if resolved_target.texts else "")
                    if resolved_target.dynamic and any(
                        self.spliced_code(t) or _WHOLE_VALUE.fullmatch(t) for t in resolved_target.texts
                    ):
                        # `bash <<< "echo $x"` with x from `$(cmd)`: its value is parsed (see spliced_code)
                        fed_names.update(_STORED_INPUT)
                    if not descriptor and resolved_target.dynamic and resolved_target.texts:
                        self._fed_text(resolved_target.texts[0])  # `read -ra a <<< "$(find ~)"`
                elif op == "<" and target.value.startswith("<("):
                    # `bash < <(echo ...)`: what the substitution prints, when knowable, is the input.
                    if not descriptor and resolved_target.subs:
                        self.feeding = "$(" + resolved_target.subs[0] + ")"  # `done < <(find ~ -type f)`
                    piped_in = self._content(resolved_target.texts[0]) if resolved_target.texts else None
                    if piped_in is not None:
                        stdin_parts.append(piped_in)
                    redirects.append((op, resolved_target.texts[0]))
                    descriptors.append((descriptor, op, resolved_target.texts[0], resolved_target.dynamic))
                elif resolved_target.texts:
                    if op == "<" and not descriptor:
                        self._fed_text(f"$(cat {resolved_target.texts[0]})")  # `done < list.txt`
                    if op in ("<", "<>") and not resolved_target.dynamic:
                        written = self._file_text(resolved_target.texts[0])
                        if written is None and not descriptor and raw.words:
                            # (a later command may write it: `sh < p & echo CMD > p`, see _readings)
                            unwritten = resolved_target.texts[0]
                        if isinstance(written, str):
                            stdin_parts.append(written)  # `echo 'rm -rf ~' > x.txt; bash < x.txt`
                        elif written is False:
                            # written with a text nobody knows here (`uniq a x.sh; sh < x.sh`, a named pipe:
                            # `mkfifo p; sh < p & echo CMD > p`): read as `cat x.sh | sh` is
                            fed_names.update(_WRITTEN_INPUT)
                    elif op == "<&" and not descriptor and self.exec_opened:
                        # `bash <&3` after `exec 3< x.sh` (on this line or an earlier one to the same
                        # shell: the session's shell state keeps what exec opened): its input is x.sh;
                        # `bash <&"$fd"` after `exec {fd}< x.sh`: any file exec opened
                        number = "" if resolved_target.dynamic else resolved_target.texts[0].removesuffix("-")
                        number = number.lstrip("0") or ("0" if number else "")
                        written = self.opened_content(number)
                        if written is not None and written not in stdin_parts:
                            stdin_parts.append(written)
                        elif written is None and self._opened_unknown(number):
                            # `mkfifo p; exec 3<>p; echo CMD >&3; sh <&3`: a file written with a text nobody
                            # knows here, read as `sh < p` is
                            fed_names.update(_WRITTEN_INPUT)
                    redirects.append((op, resolved_target.texts[0]))
                    descriptors.append((descriptor, op, resolved_target.texts[0], resolved_target.dynamic))
            if piped is not None:
                stdin_parts.append(piped)
            if self.descriptors is not None and any(op == "<&" and t != "-" for op, t in redirects):
                stdin_parts.append(self.descriptors)  # `bash <&3` after `exec 3<<< ...`
            stdin = "\n".join(stdin_parts)
            if fed_names:
                extra_fed = extra_fed | fed_names

        # Leading NAME=value words set variables (for this command, or the rest of the line).
        argv: list[str] = []
        dynamic: list[bool] = []
        if plain is not None:
            if plain and "=" not in plain[0]:
                # No assignment leads: each word is one argument as it stands (the loop below
                # would give the same, one word at a time).
                argv, dynamic = plain, [False] * len(plain)
            else:
                words = [([w], False) for w in plain]
        assigning = True
        home_before: str | None = None  # (the home before a HOME= that leads this command: adv42b)
        leading: list[str] = []
        for texts, is_dynamic in words:
            if not texts:
                continue
            text = texts[0]
            match = ASSIGNMENT.match(text) if assigning and "=" in text else None
            appended = _APPEND.match(text) if assigning and match is None and "+=" in text else None
            if appended is not None:
                # `c=r; c+=m`: the value grows (unknown when either part is)
                current = self.env.get(appended.group(1))
                grown_name = appended.group(1)
                if (
                    current is None
                    and grown_name not in self.vals.written
                    and not self.env.lost
                    and grown_name not in self.vals.attributes
                    and grown_name not in self.references
                ):
                    # (rev58) one the line never set: the environment's, unset in most (`x+=../notes.txt; rm -f "$x"`
                    # was read as the user's value): it holds what the line appended (see _assign_arrays). Not one
                    # declared (`declare -i y; y+=$x` is arithmetic: CI of 4f7108f2) nor a reference
                    current = ""
                if current is None and appended.group(1) in self.references:
                    # `declare -n r=PS4; r+='$(cmd)'`: the target's value grows (adv44)
                    referent = self._referent(appended.group(1))
                    if referent:
                        current = self.env.get(referent)
                        if current is None and referent not in self.env.lost:
                            current = ""  # (unset: the text appended is its value)
                grown = None if is_dynamic or current is None else current + text[appended.end() :]
                if grown is None and "i" in self.vals.attributes.get(appended.group(1), ()):
                    # `declare -i n; n+='a[$(cmd)]'`, `n+=$x` (adv44): the whole value, as bash does not split it
                    self._integer_text(" ".join(texts)[appended.end() :])
                self._assign(appended.group(1), grown, appended=True)
                leading.append(appended.group(1))
                if is_dynamic:
                    self._carry(appended.group(1), text[appended.end() :])
                if is_dynamic and self._stored_value(text[appended.end() :]):
                    self._taint(appended.group(1))  # `x+=$(readlink l)` (see _arithmetic)
                continue
            if match is not None:
                if home_before is None and match.group(1) == "HOME":
                    home_before = env_get(self.env, "HOME", "~")
                self._assign(match.group(1), None if is_dynamic else text[match.end() :])
                leading.append(match.group(1))
                if is_dynamic:
                    self._carry(match.group(1), text[match.end() :])
                    if self._stored_value(text[match.end() :]):
                        self._taint(match.group(1))
                continue
            element = _ELEMENT.match(text) if assigning and "[" in text else None
            subscripted = _SUBSCRIPTED.match(" ".join(texts)) if assigning and "[" in text else None
            if subscripted is not None:
                # `a[$x]=1`, `a['$(cmd)']=1`: an indexed array's subscript is arithmetic (cmd runs)
                for script in self._arithmetic(subscripted.group(1)):
                    self.analyze(script, depth=depth + 1, via=(*via, "let"))
            if element is not None:
                # (read as a command word, it was split: `a[1]=$x` with x='b ~' is one value)
                whole = not is_dynamic and len(texts) == 1
                if "i" in self.vals.attributes.get(element.group(1), ()):
                    # `declare -ai a; a[0]='a[$(cmd)]'`: an element of an integer array is arithmetic (adv44)
                    self._integer_text(" ".join(texts)[element.end() :])
                self._assign_element(element.group(1), element.group(2), text[element.end() :] if whole else None)
                continue
            assigning = False
            if len(texts) == 1:
                argv.append(text)
                dynamic.append(is_dynamic)
            else:
                argv.extend(texts)
                dynamic.extend([is_dynamic] * len(texts))
        if (
            self.dash_names is not None
            and len(argv) > 1
            and any("*" in w or "?" in w or "[" in w or "(" in w for w in argv[1:])
        ):
            self._dash_globbed(_glob_words(raw.words, resolved), argv, dynamic)
        if self.keyword:
            for arg, varies in zip(argv[1:], dynamic[1:], strict=True):
                keyed = ASSIGNMENT.match(arg) if "=" in arg else None
                if keyed is not None:
                    self._assign(keyed.group(1), None if varies else arg[keyed.end() :])
        if raw.arrays:
            self._assign_arrays(raw.arrays, depth, via)
        if self.references:
            self._assign_references()
        if "PS4" in self.env or "PS4" in self.env.lost:
            self._trace_prompt(depth, via)
        if self.resumed is not None:
            self._shell_prompts(depth, via)
        if self.integer_stored:
            self._integer_value(depth, via)
        # (`~` first: a slice and a lookup per word otherwise, on every command)
        if any(word.startswith("~") and _directory_tilde(word) for word in argv) or any(
            t.startswith("~") and _directory_tilde(t) for _, t in redirects
        ):
            # `~+` is $PWD, `~-` is $OLDPWD (adv29: `echo x > ~+/policies/deny.yaml` was read as
            # the home of a user named `+`); `~1`, `~+1`, `~-2` a folder of the stack pushd made
            old = self.env.get("OLDPWD")
            # (CI of f21bd19b) a stack's tilde only where the word spells it unquoted (`--preview-window '~3'` is text)
            tokens = [*raw.words, *(t for _, t in raw.redirects if t is not None)]
            # (CI of 8244a8c5: `\~0` as `~0`, as the other tildes here read a word whatever its quoting of the `~`)
            spelled: set[str] = set()  # (a loop, not a walrus in a generator: the compiled build's)
            for token in tokens:
                found = _STACK_PREFIX.match(token.value[1:] if token.value[:2] == "\\~" else token.value)
                if found is not None:
                    spelled.add(found.group())
            stacked = frozenset(spelled)
            dynamic = [
                d
                or (
                    _tilde_dir(w, None, stacked) is not None
                    and (w[1] not in "+-" or (not old and w[1] == "-") or w[2:3].isdigit())
                )
                for w, d in zip(argv, dynamic, strict=True)
            ]
            argv = [_tilde_dir(word, old, stacked) or word for word in argv]
            redirects = [(op, _tilde_dir(target, old, stacked) or target) for op, target in redirects]
        # `HOME=/etc; cp x ~/passwd`: a tilde is the home the line set; a HOME= leading the command itself is
        # assigned after its words are expanded (adv42b: `HOME=/tmp/x rm -rf ~` was read as `rm -rf /tmp/x` and
        # allowed: bash deletes the home), its tilde the home before: the real one named as a path when that was
        # the engine's `~` (the command's own children see HOME as set: `HOME=/x sh -c 'rm -rf "$1"' _ ~`)
        if home_before is not None and argv:
            home = home_before if home_before != "~" else posixpath.expanduser("~")
        else:
            home = env_get(self.env, "HOME", "~")
        if home != "~" and home:
            argv = [_rehome(word, home) for word in argv]
            redirects = [(op, _rehome(target, home)) for op, target in redirects]
        if not argv:
            if not redirects:
                return [], None
            # `> file` (or `X=1 > file`) still opens, and truncates, its targets: judge it as
            # the null command `:` with those redirections.
            argv, dynamic = [":"], [False]
        first = raw.words[0] if raw.words else None
        if first is not None and first.literal in _CLAUSE_HEADERS:
            if first.literal in _LOOP_HEADERS and len(argv) > 1:
                # After the loop the variable holds its last value (read again per value in
                # _read_loops): what the line assigned before is no longer it.
                self._forget(first.literal, argv)
            return [], None
        if argv[0] == "exec" and all(FD_NAME.fullmatch(a) for a in argv[1:]):
            # `exec 3<<< 'cmd'`: the data waits on a descriptor (the lexer keeps no fd numbers:
            # any later `<&N` is taken to read it) -- or is the shell's input from here on (`exec
            # < x.txt; bash`): what later commands read when they are given no input of their own.
            if stdin:
                self.descriptors = self.exec_input = stdin
            if self.exec_reads is _NO_ITEMS:
                self.exec_reads = []
            self.exec_reads.extend((op, target) for op, target in redirects if op in ("<", "<>"))
            if descriptors:
                self._exec_input(descriptors, depth, via)
        elif (self.exec_input is not None or self.exec_reads) and piped is None and not _replaces_input(raw.redirects):
            stdin = stdin or self.exec_input or ""
            redirects = [*redirects, *self.exec_reads]
            if self.exec_numbered:
                # `exec 3< list.txt; sh`: sh's input is the shell's, not list.txt
                numbered = True
                descriptors.extend(("3", op, t, False) for op, t in self.exec_reads if (op, t) in self.exec_numbered)
        looped = bool(self.vals.heads) and bool(raw.words) and id(raw.words[0]) in self.vals.heads
        self.vals.input = None if literal is None else (literal, looped, literal is piped)
        printing = self.printing
        if feeds or redirects or printing is not None:
            self.printing = _UNPRINTED  # what the lines it runs print (see _run_pipelines)
        if not self.keyword and (
            ("k" in "".join(argv) and _keyword_option(argv)) or "keyword" in env_get(self.env, "SHELLOPTS", "")
        ):
            self.keyword = True
        if unwritten is not None and not stdin and not dynamic[0]:
            self._early_read(argv[0], unwritten, True)
        start = len(self.commands)
        outer_literal, outer_words, outer_quoted = self.literal_targets, self.literal_words, self.quoted_words
        if descriptors:
            self.literal_targets = _literal_targets(descriptors)
        self.literal_words = _literal_words(raw.words, argv, dynamic)
        self.quoted_words = _quoted_words(raw.words, resolved) if resolved is not None and any(dynamic) else _NO_TARGETS
        outer_leading = self.leading
        if leading or outer_leading:
            # (rev57) and the outer command's, still in the environment of what it runs (`X=1 eval "bash -c …"`)
            self.leading = frozenset(leading) | outer_leading
        try:
            stages = self._unwrap(argv, dynamic, redirects, stdin, extra_fed, via, depth)
        finally:
            self.literal_targets, self.literal_words, self.quoted_words = outer_literal, outer_words, outer_quoted
            self.leading = outer_leading
            self.vals.input = None
            self.vals.here = here
            printed, self.printing = self.printing, printing
        if numbered and stages:
            own = [(op, target) for descriptor, op, target, _ in descriptors if not descriptor]
            if given or (self.exec_input is not None and not _replaces_input(raw.redirects)):
                own.append(("<<<", ""))
            for stage in stages:
                if self.own_inputs is _NO_ENTRIES:
                    self.own_inputs = {}
                self.own_inputs[id(stage)] = tuple(own)
        output = self._output(stages[-1] if stages else None, stdin)
        if output is None and printed:
            # the lines it ran printed this (`sh -c "echo …" | sh`, `f | bash`, `git x | sh`)
            output = _joined(printed)
        if stages and (
            redirects
            or stages[-1].name in _FILE_WRITERS
            or stages[-1].name in _IN_PLACE
            or _may_write(stages[-1].program)
        ):
            # the lines it ran wrote into its redirections too: their commands are the file's writers
            # (`sh -c 'echo set -e; curl URL' > y.sh; sh y.sh`: only the known part is its text)
            # so too a program's own file (`script -qc env LOG`: LOG holds what env printed, adv40)
            nested = len(self.commands) > start + len(stages)
            ran = self.commands[start:] if nested and (redirects or _may_write(stages[-1].program)) else stages
            self._record_writes(stages[-1], ran, redirects, stdin, output)
        if stages and (self.sinks or self.sink is not None):
            self._feed_sinks(argv, stages, redirects, stdin, output, depth, via)
        return stages, output

    def _exec_input(self, descriptors: list[tuple[str, str, str, bool]], depth: int, via: tuple[str, ...]) -> None:
        """`exec`'s input redirections (no command: they last). `exec < F`, `exec 0<> F`, `exec 0<&3`
        after `exec 3< F`: a shell that reads its commands from its input (a background shell,
        `bash -s`) reads the next ones from F -- its text is judged as the shell's commands (as
        `source F`), and in a background shell a text not known is not judged (asked). `exec 3< F`
        only opens F (a read loop's `read -u 3`); `exec 3<&0` copies the input, `exec <&-` closes it."""
        for descriptor, op, word, unknown in descriptors:
            source = target = word
            varies = unknown
            if descriptor:
                if op in ("<", "<>"):
                    if self.exec_numbered is _NO_NAMES:
                        self.exec_numbered = set()
                    self.exec_numbered.add((op, target))
                    # by its file key: a later line (the session's shell state) may run in another folder
                    self.exec_opened[descriptor.lstrip("0") or "0"] = "" if varies else self._file_key(target)
                elif op == "<&":
                    source = target[:-1] if target.endswith("-") else target
                    self.exec_opened[descriptor.lstrip("0") or "0"] = self.exec_opened.get(source, "")
                continue
            if op == "<&":
                source = target[:-1] if target.endswith("-") else target
                if source in ("", "0"):
                    continue  # `exec <&-` closes the input: the shell reads no more
                target = self.exec_opened.get(source.lstrip("0") or "0", "")
                varies = not target
            elif op not in ("<", "<>"):
                continue
            if depth == 0 and not via:
                self.input_replaced = True
            text = None if varies else (self._keyed_script(target, target) if op == "<&" else self._script(target))
            if text is not None:
                self.analyze(text, depth=depth + 1, via=(*via, "exec"))
            elif self.session is not None and self.session.shell is not None:
                self.unread.append(target or f"<&{source}")  # a background shell reads what nobody knows

    def _trace_prompt(self, depth: int, via: tuple[str, ...]) -> None:
        """PS4: bash expands it (substitutions and all) before each command it traces, and any
        later `set -x`, `set -o xtrace`, `shopt -os xtrace`, SHELLOPTS or `bash -x` turns tracing on:
        a PS4 the line sets is read as run, once per value (nobody's to read here: an approval)."""
        values, lost = self.env.readings("PS4", {})
        seen = (*values, lost)
        if seen == self.traced:
            return
        self.traced = seen
        via = (*via, "PS4")
        if lost:
            self._escape_hatch(None, via, depth + 1)
        for value in values:
            for text in _prompt_texts(value):
                self.analyze(': "' + text + '"', depth=depth + 1, via=via)

    def _shell_prompts(self, depth: int, via: tuple[str, ...]) -> None:
        """(fresh39b) A background shell may be interactive (`bash -i`, the shell `script` starts): before
        each prompt it runs PROMPT_COMMAND and expands PS1 (PS0 after a line is read, PS2 on a
        continuation), substitutions and all. What its lines set there is read as run, once per value
        (one known only at run time: nobody's to read here, an approval)."""
        env = self.env
        seen: list[tuple[str, tuple[str, ...], bool, tuple[str, ...]]] = []
        for name in _PROMPTS:
            if name in env or name in env.lost or name in self.vals.arrays:
                values, lost = env.readings(name, {})
                seen.append((name, tuple(values), bool(lost), tuple(self.vals.arrays.get(name, ()))))
        if not seen or tuple(seen) == self.prompted:
            return
        self.prompted = tuple(seen)
        for name, known, unknown, elements in seen:
            inner = (*via, name)
            if unknown:
                self._escape_hatch(None, inner, depth + 1)
            for value in (*known, *elements):
                if name == "PROMPT_COMMAND":
                    self.analyze(value, depth=depth + 1, via=inner)
                else:
                    for text in _prompt_texts(value):
                        self.analyze(': "' + text + '"', depth=depth + 1, via=inner)

    def _feed_sinks(
        self,
        argv: list[str],
        stages: list[Command],
        redirects: list[tuple[str, str]],
        stdin: str,
        output: str | None,
        depth: int,
        via: tuple[str, ...],
    ) -> None:
        """What a command writes into `>(CMD)` is CMD's input: CMD is read again with it."""
        last = stages[-1]
        fed: list[tuple[str, str | None]] = []
        for op, target in redirects:
            if op in _WRITE_REDIRECTS and target in self.sinks:
                if argv == ["exec"]:
                    self.sink = self.sinks[target]
                else:
                    fed.append((self.sinks[target], output))
        if last.name == "tee":
            fed += [(self.sinks[a], stdin or None) for a in last.argv[1:] if a in self.sinks]
        else:
            # any other program handed `>(CMD)` may write into it (`wget -O >(sh) URL`, `curl -o >(sh) URL`):
            # CMD reads what it writes, known only at run time (fresh37a)
            fed += [(self.sinks[a], None) for a in last.argv[1:] if a in self.sinks]
        if self.sink is not None and argv != ["exec"] and output is not None:
            fed.append((self.sink, output))
        writers = frozenset(c.name or "$dynamic" for c in stages) | last.fed_by
        for script, data in fed:
            for pipeline in _split(self._tokens(script)):
                # the data (unknown: its writers) goes into the first stage, and what each stage prints
                # of it, when known, into the next (`echo CMD > >(cat | sh)`)
                given = data
                for raw in pipeline:
                    given = self._simple(raw, depth + 1, (*via, ">()"), writers, given)[1]

    def _print(self, text: str) -> None:
        """``text`` is printed by a line (or a command) that a stage whose output is read runs (see _simple)."""
        if self.printing is _UNPRINTED or self.printing is None:
            self.printing = [text]
        else:
            self.printing.append(text)

    def _printed_of(self, command: Command, nested: bool) -> tuple[str | None, frozenset[str]]:
        """What ``command`` prints of its words, for the stage after it: (the text when it is computed here,
        _PRINTED_INPUT when it is not exactly that text). A program of the table's `prints:` (policies/
        printers.yaml) by how it prints; any other whose words hold shell text (`tool 'rm -rf ~' | sh`)
        may print them, as nobody here knows (fail closed: a shell reading it asks). A program that runs
        lines (``nested``: `sh -c 'cat y.sh'`, a git alias) prints what they print, collected where they
        ran (see _simple); one that ran only the substitutions of its words did not (`./tool "$(...)"`).
        One of `prints: stored` prints what it keeps or finds (`git config k`, `ls`, `pwd`): a text an
        earlier command may have set, not computed here (_STORED_INPUT)."""
        program = command.program
        kind = program.prints if program is not None else ""
        if program is not None and (program.subcommands or program.prints_with):
            kind = _printing_kind(command, program, kind)
        if not kind:
            if nested and program is not None and program.active:
                return None, _NOTHING
            if any(_SHELL_TEXT.search(word) for word in command.argv[1:]):
                return None, _PRINTED_INPUT
            if any(_GLOB.search(word) for word in command.argv[1:]):
                # `md5sum * | sh`, `wc -l * | sh`, `file * | sh`: it may print the names a glob expands to, which
                # an earlier command may have made any text (`touch 'x;CMD;'`) (redt35)
                return None, _STORED_INPUT
            return None, _NOTHING
        if kind == "stored":
            return None, _STORED_INPUT
        text, exact = printed_words(kind, command.argv[1:], self.env)
        return text, _NOTHING if exact and not any(command.dynamic) else _PRINTED_INPUT

    def _output(self, command: Command | None, stdin: str) -> str | None:
        """Literal data this command writes to its stdout, when it only echoes text."""
        if command is None or any(command.dynamic):
            return None
        if command.name in ("echo", "printf"):
            return printed_text(command.name, command.argv[1:], self.posix)
        if command.name == "ls" and len(command.argv) > 1:
            return _listed_names(command.argv)
        if stdin:
            return decode_filter(command.argv, stdin)
        return None

    def _emit(self, command: Command) -> None:
        if len(self.commands) + self.skipped >= MAX_COMMANDS:
            raise TooComplex(f"more than {MAX_COMMANDS} commands")
        if self.alternate:
            command.reread = True
        if self.literal_targets and command.redirects:
            command.literal_targets = self.literal_targets
        if self.literal_words:
            command.literal_words = self.literal_words
        if self.quoted_words:
            command.quoted_words = self.quoted_words
        self.commands.append(command)
        program = command.program
        if program is not None and any(command.dynamic):
            if program.deletes_listed is not None:
                self._split_expression(command)  # (xf49: a lister with actions, a word only the run knows)
            elif _runs_options(program):
                self._split_options(command, program)  # (xf49b, subst50: where it reads options that run, such a word)
        if ("$(" in command.text or "`" in command.text) and len(self.commands) > 1:
            # (fp49) a listing of the tree in its words, after another command (a substring gates the walk)
            for word in command.argv[1:]:
                if (word[:2] == "$(" or word[:1] == "`") and lists_tree(word):
                    if self.listings is _NO_ITEMS:
                        self.listings = []
                    # (IFS splits an unquoted substitution only: not xargs's input, nor a whole quoted word, `"$f"`)
                    split = "xargs" not in command.via and word not in command.quoted_words
                    self.listings.append(
                        (command, word, split and (self._separators() != _DEFAULT_IFS or "IFS" in self.env.lost))
                    )
                    break
        if self.dash_names is not None:
            # (xf48a) what it makes that a later glob may expand to (a word with a folder naming a `-` name, or
            # one after `--`: a plain substring and a tuple test gate the walk of its words)
            if "/-" in command.text or "--" in command.argv:
                self._dash_made(command)
            if command.name in self.programs.unpacks_here or (program is not None and program.unpacks_into):
                if self.unknown_made is _NO_ITEMS:
                    self.unknown_made = []
                self.unknown_made.append((self._file_key("."), command))

    def _listings_made(self, text: str) -> None:
        """(fp49) A listing of the tree (paths.lists_tree) is judged by the names on the disk when the line is judged
        (PathClassifier._listed: a name there with a blank, a quote or a glob character is not known). It is read so
        only when nothing makes or renames an entry before it runs: any other command of the line that may (by what
        it writes: _makes_names) -- one before it, or any when commands may run before it though written after (a
        loop, a background `&`, a pipe) --, IFS changed where it runs (`IFS=/`), or a background writer of the
        session still running, makes it not known (`$unknown_listing:WORD` among the unread: asked). `mkdir -p "x
        $HOME" && touch "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)` split `./x $HOME/notes.txt` at its
        blank and deleted ~/notes.txt."""
        # (fix49) a trap's body runs later; a listing inside a script or wrapper (`bash x.sh`) runs where that text
        # says, which the top line's text does not show: any other command counts
        anywhere = _CONCURRENT.search(text) is not None or "trap" in text
        running = self.session is not None and self.session.writes_running()
        for listing, word, split in self.listings:
            at = next((i for i, c in enumerate(self.commands) if c is listing), len(self.commands))
            inside = any(v not in ("$()", "xargs") for v in listing.via)
            others = self.commands if anywhere or inside else self.commands[:at]
            if split or running or any(c is not listing and self._makes_names(c, listing) for c in others):
                mark = "$unknown_listing:" + word
                if mark not in self.unread:
                    self.unread.append(mark)

    def _makes_names(self, command: Command, listing: Command) -> bool:
        """(fp49) Whether ``command`` may make or rename an entry a listing in ``listing`` prints, by what it writes:
        a file redirection to a name that splits or is known only at run time; a program not known to write no entry
        (a shell builtin, a reader or filter, a deleter, a wrapper whose program is a command of its own, a listing
        of the tree itself, a verb of its Programs entry's `keeps_tree:` while the line and the session wrote no file
        it may read as code). Fails closed: `mkdir`, `touch`, `cp -r`, `tar x`, `git checkout`, a script do."""
        for operator, target in command.redirects:
            if (">" in operator and target != "/dev/null" and not target.startswith("&")) and (
                not target or _MADE_SPLITS.search(target) is not None
            ):
                return True
        name = command.name
        if name in self.programs.makes_no_names or name in _READS_ONLY or name in listing.via:
            return False
        if command.via and _READ_FROM_FILE.search(command.via[-1]) is not None and _not_a_program(name):
            # (merge49) a value a program reads from a file, judged as what it may run (`git ls-files` after `git
            # init`: .git/config's `0`, `true`, `false`): a word no folder of the system's PATH holds runs nothing
            return False
        if name in _TREE_LISTERS and lists_tree("$(" + " ".join(command.argv) + ")"):
            return False  # the listing's own lister (`$(find . -name X)`, `find … | xargs`)
        if name == "tee":  # a write as the engine reads it (a writer's `prepend: tee` run): the names it spells
            return any(_MADE_SPLITS.search(word) is not None for word in command.argv[1:] if word[:1] != "-")
        program = command.program
        if program is not None and program.keeps_tree:
            # (not after a file written by another command of the line, or in the session: `make clean` runs a
            # makefile's recipe, which may be one)
            if any(name not in entry.writers for entry in self.files.values()):
                return True
            if self.session is None or not self.session.files.files:
                operands = parse_argv(program.grammar, command.argv).all_operands(command.argv)
                return not operands or operands[0] not in program.keeps_tree
        return True

    def _synthetic(self, name: str, argv: tuple[str, ...], via: tuple[str, ...], depth: int) -> Command:
        """A command the line runs without spelling it out (the shell behind `sed 1e`, ...)."""
        command = Command(
            name, argv, (False,) * len(argv), (), "", _NOTHING, via, None, depth, self.cwd, self.programs.get(name)
        )
        command.indirect = self.indirect > 0
        self._emit(command)
        return command

    def _unwrap(
        self,
        argv: list[str],
        dynamic: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> list[Command]:
        stages: list[Command] = []
        table = self.programs
        # (read once: a field of the table is a lookup by name each time, and the table never changes;
        # `in` and `[]` on its mapping are C calls where `table.get` is two method lookups)
        by_name = table.by_name
        everyone, anyone = table.everyone, table.anyone
        local: dict[str, str] = {}  # variables set by wrappers along the way (`env A=1 ...`)
        escaped = 0  # escape hatches entered along this chain (they end with the chain)
        here: list[str | None] = []  # a wrapper's directory option (`env -C DIR`) moves only what it runs
        shadowed: _State | None = None  # what a function named like a builtin left (see below)
        wrapped, self.wrapped = self.wrapped, None
        try:
            as_written: list[str] | None = None  # (xf45) the words before the links were read through (_tree_links)
            while argv:
                if self.links:
                    as_written = argv
                    argv = self._through_links(argv)
                    redirects = [(op, self._through_link(target)) for op, target in redirects]
                if self.hashed and argv[0] in self.hashed and all(s.name in _HASH_USERS for s in stages):
                    # `hash -p /bin/rm ls; ls -rf ~` runs /bin/rm: that reading too
                    program_path = self.hashed.pop(argv[0])  # once: `hash -p /bin/ls ls`
                    try:
                        hashed = [program_path, *argv[1:]]
                        self._unwrap(hashed, dynamic, redirects, stdin, fed_by, (*via, "hash"), depth + 1)
                    finally:
                        self.hashed[argv[0]] = program_path
                unknown = dynamic[0] or _globbed_name(argv[0]) or argv[0].startswith(_UNKNOWN_TARGET)
                name = "" if unknown else command_name(argv[0])
                fed = fed_by | self._read_from(name, argv, redirects) if self.files else fed_by
                program = by_name[name] if name and name in by_name else None
                if (
                    program is not None
                    and anyone is not None
                    and not self.alternate
                    and (
                        ("/" in argv[0] and not in_system_folder(argv[0]))
                        or (
                            ("PATH" in local or "PATH" in self.env or "PATH" in self.env.lost)
                            and self._path_shadows(local)
                        )
                    )
                ):
                    # (xfail40) `./sudo`, `bin/nice`, `PATH=.:$PATH sudo`: a program of the table's name outside the
                    # system's folders may be any program (a copy of dash named sudo runs `-V -c TEXT`'s TEXT): also
                    # read as one the table does not describe
                    self._unlisted_reading(name, argv, dynamic, redirects, stdin, fed_by, via, depth)
                if program is not None and program.runs and read_by_programs(self.env, local):
                    argv, dynamic = self._environment_options(program, argv, dynamic, local, via, depth)
                if program is not None and program.grammar.input_from and (self.files or self.session is not None):
                    stdin, fed = self._input_from(program.grammar, argv, dynamic, stdin, fed)
                into = None
                if name == "ln" and program is not None:
                    into = self._into_folder(argv, dynamic, program.grammar)
                    argv = self._from_link_folder(argv, dynamic, program.grammar)
                command = Command(
                    name,
                    tuple(argv),
                    tuple(dynamic),
                    tuple(redirects),
                    stdin,
                    fed,
                    via,
                    None,
                    depth,
                    self.cwd,
                    program,
                    self.indirect > 0,
                )
                self._emit(command)
                stages.append(command)
                if not name:
                    break
                if into is not None:
                    # NAME may be a folder: the link is made in it (judged and remembered there too)
                    self._unwrap(into, list(dynamic), redirects, stdin, fed_by, (*via, "link"), depth + 1)
                if self.links and program is not None and "link" not in via:
                    for split, split_dynamic in self._attached_links(program, argv, dynamic):
                        # (stop 54) `sort -ox` with x a link: `sort -o x`, read through it
                        self._unwrap(split, split_dynamic, redirects, stdin, fed_by, (*via, "link"), depth + 1)
                if self.links and program is not None and program.pieces_prefix and "link" not in via:
                    for target in self._pieces_links(command):
                        # (stop 55) a splitter's piece named like a link made here: written through it
                        self._unwrap(
                            ["tee", target], [False, False], redirects, stdin, fed_by, (*via, "link"), depth + 1
                        )
                if self.links and name in FOLLOWERS and "link" not in via:
                    # `ln -s ~/.ssh src/k; grep -R . src`: the tree's links made on the line are read too
                    for followed in self._tree_links(command, as_written):
                        here_cwd, self.cwd = self.cwd, None  # a link's target is kept from the working directory
                        try:
                            self._unwrap(followed, list(dynamic), redirects, stdin, fed_by, (*via, "link"), depth + 1)
                        finally:
                            self.cwd = here_cwd
                if (
                    self.unknown_made
                    and "link" not in via
                    and (redirects or self.cwd not in (None, ".") or any("/" in word for word in argv[1:]))
                ):
                    # (link50) a path through a name an unpacker or a checkout made earlier on the line may go
                    # through a link it holds (`git clone URL r; rm -rf r/h/*`, h -> ~): read as one to the home
                    # (debt51: who writes through which words is the table's `writes_through:`; only a word with a
                    # `/`, a redirection, or any word after a `cd` may: `git status && git log` works out no folder)
                    through = self._through_unknown(command, argv, redirects, table.writes_through.get(name))
                    if through is not None:
                        self._unwrap(through[0], list(dynamic), through[1], stdin, fed_by, (*via, "link"), depth + 1)
                if self.links and name in table.unpacks_here and "link" not in via:
                    # `ln -s ~ b/h; cd b && tar xf a.tar`: a member `h/.bashrc` lands in the home (adv41)
                    for target in self._links_here():
                        here_cwd, self.cwd = self.cwd, target
                        try:
                            self._unwrap(list(argv), list(dynamic), redirects, stdin, fed_by, (*via, "link"), depth + 1)
                        finally:
                            self.cwd = here_cwd
                if (
                    name in _UNPACKERS
                    or (self.fetched and name in _SCRIPT_RUNNERS)
                    or (self.fetched and "/" in argv[0])
                ):
                    self._fetched_code(command, via, depth)
                written = self._written_entry(self._file_key(argv[0])) if self.files and "/" in argv[0] else None
                if written is None and self.session is not None and "/" in argv[0]:
                    written = self._session_file(argv[0])
                    if written is None and not self.session.disk:
                        # (unpack50) `./x.sh` planted before the session began: read as a check without one reads it
                        unread = len(self.unread)
                        planted = self._planted(argv[0])
                        if planted is not None or len(self.unread) > unread:
                            written = _Written(frozenset(), planted)
                path_set = written is None and ("PATH" in local or "PATH" in self.env or "PATH" in self.env.lost)
                if path_set and name and "/" not in argv[0]:
                    written = self._on_path(argv[0], local)
                if path_set and written is None and program is not None:
                    written = self._plugin_on_path(program, argv, local)
                if written is not None:
                    # `./fetched.sh`: a file written on this line, run by its interpreter.
                    runner = Command(
                        "sh",
                        ("sh", *argv),
                        (False, *dynamic),
                        tuple(redirects),
                        stdin,
                        fed | written.writers,
                        (*via, argv[0]),
                        None,
                        depth,
                        self.cwd,
                        table.get("sh"),
                        self.indirect > 0,
                    )
                    self._emit(runner)
                    stages.append(runner)
                    if written.content is None:
                        self.unread.append(argv[0])
                    else:
                        self._run_written(runner, written.content, argv[0], depth + 1, (*via, argv[0]))
                    break
                # A function runs in place of a builtin or a program of its name, `time` before it
                # or not; `builtin NAME` and `command NAME` skip it. Named like a builtin the engine
                # follows, the builtin is read too (the definition may not have run): what the two
                # readings leave different is unknown after (see _merge).
                if (
                    self.functions
                    and argv[0] in self.functions
                    and argv[0] not in self.calling
                    and all(s.name == "time" for s in stages[:-1])
                ):
                    reads = [(op, target) for op, target in redirects if op in ("<", "<>")]
                    if argv[0] in _BASH_BUILTINS:
                        start = self._state()
                        self._call_function(argv, dynamic, depth, via, stdin, reads)
                        shadowed = self._state()
                        self._restore(start)
                    else:
                        self._call_function(argv, dynamic, depth, via, stdin, reads)
                # A `cd` a wrapper runs (`sudo cd`) moves nothing; under `builtin`/`command` it moves this
                # shell (found by rt6: `builtin cd /; rm -rf etc` was allowed).
                if len(stages) == 1 or all(s.name in _SAME_SHELL for s in stages[:-1]):
                    if name == "pushd":
                        self.directories.append(self.cwd)
                        operands = [a for a in argv[1:] if a not in ("-n", "--")]
                        if not operands or re.fullmatch(r"[+-]\d+", operands[0]):
                            self.cwd = "$unknown"  # a swap or a rotation of the stack
                            self._drop_relative()
                        else:
                            self._change_directory(argv, dynamic)
                    elif name == "cd":
                        self._change_directory(argv, dynamic)
                    elif name == "popd":
                        # back where the matching pushd left, when the line holds it
                        known = self.directories and len(argv) == 1
                        self.cwd = self.directories.pop() if known else "$unknown"
                        self._drop_relative()
                    elif name == "alias":
                        self._define_aliases(argv, dynamic, via)
                    elif name == "history" and len(argv) > 2 and argv[1] == "-s":
                        if self.history is _NO_ITEMS:
                            self.history = []
                        self.history.append(" ".join(argv[2:]))  # `history -s 'rm -rf ~'`: a later `fc -s` runs it
                    elif name == "fc":
                        self._fix_command(argv, depth, via)
                    elif name == "hash":
                        self._hash(argv, dynamic)
                    elif name in _ARITHMETIC_NAMES:
                        for text in _arithmetic_words(name, argv):
                            for script in self._arithmetic(text):
                                self.analyze(script, depth=depth + 1, via=(*via, name))
                    elif name == "set" and self.fish_dialect:
                        self._fish_set(argv, dynamic)
                    elif name in ("set", "shift"):
                        self._set_positional(argv, dynamic)
                if name in _LINKERS:
                    self._record_link(command)  # a wrapper links all the same (`env ln -s / zz`, rt6)
                if name in _DECLARERS:
                    self._declare(argv, dynamic)
                    if self.frames and name not in ("export", "readonly"):
                        self._localize(argv)
                elif name in _VARIABLE_WRITERS:
                    self._forget(name, argv, self.vals.input)
                    if self.references:
                        self._forget_references(argv)
                if self.integer_stored:
                    self._integer_value(depth, via)
                if everyone is not None and read_by_programs(self.env, local):
                    self.follow_environment(command, everyone, local)
                if program is None:
                    if anyone is not None and not (name in _WORDS_ONLY and argv[0] == name):
                        # (a builtin or a function the line defined is no wrapper: `echo sh -c x` prints)
                        carries = (
                            name not in _BASH_BUILTINS
                            and name not in _READS_ONLY
                            and not (self.functions and name in self.functions)
                        )
                        self.follow_unknown(command, anyone, carries=carries)
                    if (
                        self.functions
                        and _NOT_FOUND in self.functions
                        and _NOT_FOUND not in self.calling
                        and argv[0] not in self.functions
                        and argv[0] not in _BASH_BUILTINS
                    ):
                        # a command bash does not find runs this function with its words
                        self._call_function([_NOT_FOUND, *argv], [False, *dynamic], depth, via)
                    break
                if program.grammar.chdir or program.grammar.paths_in:
                    started = self.cwd
                    parsed = parse_argv(program.grammar, argv)
                    # its subcommands' own (`npm run build --prefix DIR`) after the program's
                    levels = subcommand_levels(program, parsed, argv) if program.subcommands else [(program, parsed)]
                    trees: list[str] = []
                    # (disk51) an option given before the verb moves the verb where the verb's own reading of it does
                    # (`npm --prefix d start`, `pnpm -C d test`: d's package.json runs; with `install -g` the prefix
                    # stays where the bins go: install's row does not move with it)
                    verb = levels[-1][0].grammar.chdir if len(levels) > 1 else frozenset()
                    for level, reading in levels:
                        for option, folder, _ in reading.options:
                            if folder is None:
                                continue
                            if option in level.grammar.chdir or (level is program and option in verb):
                                if not here:
                                    here.append(self.cwd)
                                self.cwd = self._moved_to(folder, "$" in folder or "`" in folder)
                                self._drop_relative()
                            elif option in level.grammar.paths_in:
                                trees.append(folder)
                    self._read_in_folders(command, [self._moved_to(f, "$" in f or "`" in f) for f in trees])
                    if self.cwd != started:
                        self.started_in = (started,)  # (stop 56) for its `unmoved:` runs (see follow_program)
                inner = self.follow_program(command, program, local)
                if local and inner is not None:
                    # `env x='a[$(cmd)]' bash -c 'let y=x'`: what a wrapper sets is a value the line gave the
                    # command it runs, which its shell may evaluate again (adv44; see _arithmetic)
                    # (a value of no `[`, `$`, backquote or backslash evaluates to no command: `env x=1`)
                    for key, value in local.items():
                        if key not in self.tainted and _IDENTIFIER.fullmatch(key) and _EVALUATED.search(value):
                            self._taint(key)
                if anyone is not None and len(argv) > 1:
                    self.follow_unknown(command, anyone, program)
                if program.option_word_runs and len(argv) > 1:
                    # (sess45) a row's own `options:` runs read the options its grammar does not declare
                    # (ipython's traitlets `--InteractiveShellApp.exec_lines=[…]`, `--ext=M`: each was allowed)
                    self.follow_unknown(command, program, program)
                if local and any(key.startswith("BASH_FUNC_") for key in local):
                    self._import_functions(local, depth, via)
                if not self.alternate and (program.active or program.subcommands or program.grammar.stop_at_operand):
                    self._alternate_reading(command, program, argv, dynamic, redirects, stdin, fed_by, via, depth)
                    if program.permutes_command:
                        self._posix_reading(command, program, argv, dynamic, redirects, stdin, fed_by, via, depth)
                    if program.separator and program.separator in argv:
                        self._separated(command, program, argv, dynamic, redirects, stdin, fed_by, via, depth)
                if inner is None:
                    break
                argv, dynamic, indirect = inner
                via = (*via, name)
                if indirect:
                    self.indirect += 1
                    escaped += 1
        finally:
            self.indirect -= escaped
            if here:
                self.cwd = here[0]
            self._end_wrapped(wrapped)
        if shadowed is not None:
            self._merge(shadowed)
        return stages

    def _unlisted_reading(
        self,
        name: str,
        argv: list[str],
        dynamic: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """``argv`` read as a program the table does not describe (its name's row may not be it: see _unwrap):
        judged with no row (no help or version reading lowers its matches) and read by the undescribed
        programs' runs (`-c TEXT`, a program among its operands). Once per chain, as an alternate reading."""
        anyone = self.programs.anyone
        assert anyone is not None
        self.alternate = True
        try:
            command = Command(
                name,
                tuple(argv),
                tuple(dynamic),
                tuple(redirects),
                stdin,
                fed_by,
                via,
                None,
                depth,
                self.cwd,
                None,
                self.indirect > 0,
            )
            self._emit(command)
            self.follow_unknown(command, anyone, carries=True)
        finally:
            self.alternate = False

    def _path_shadows(self, local: dict[str, str]) -> bool:
        """Whether the PATH the line set may find a program outside the system's folders before the system's
        own (`PATH=.:$PATH sudo`, `PATH=bin:/usr/bin`, `PATH=/usr/bin:.`): an entry is not a system folder (nor
        the caller's `$PATH`). Unknown (`PATH=$X`): it may."""
        value = local.get("PATH", self.env.get("PATH"))
        if value is None:
            return True
        # (adv40b) any entry, not the first alone: a program the folders before it do not hold is found there
        # (`PATH=/usr/bin:. doas ...` runs ./doas where no doas is installed); an entry with `..` is no system folder
        return not all(entry in ("$PATH", "${PATH}") or in_system_folder(entry + "/") for entry in value.split(":"))

    def _input_from(
        self, grammar: Grammar, argv: list[str], dynamic: list[bool], stdin: str, fed: frozenset[str]
    ) -> tuple[str, frozenset[str]]:
        """The input of a program reading a file an option names as its input (its grammar's `input_from`:
        `sftp -b FILE`): the text the line or the session wrote to FILE, as `sftp h < FILE` reads it (tail36);
        one written with a text not known here feeds it as `cat FILE |` does."""
        parts = [stdin] if stdin else []
        for option, value, at in parse_argv(grammar, argv).options:
            if option not in grammar.input_from or value is None or value == "-":
                continue
            if any(dynamic[at : at + 2]):
                continue  # a name only the run knows: the `as: file` run of the table judges it
            written = self._file_text(value)
            if isinstance(written, str):
                parts.append(written)
            elif written is False:
                fed = fed | _WRITTEN_INPUT
        return "\n".join(parts), fed

    def _read_in_folders(self, command: Command, folders: list[str | None]) -> None:
        """`git -C DIR checkout x -- policies/deny.yaml`, `git --work-tree=DIR ...`: the program reads
        its own path operands and options in DIR (the `chdir` and `paths_in` options of its grammar),
        while the shell opens its redirections where the line is. The command is judged once more
        there, without its redirections (adv29: run from another folder, `git -C PROJECT` was read
        where the line was)."""
        for folder in (self.cwd, *folders):
            if folder == command.cwd:
                continue
            self._emit(
                Command(
                    command.name,
                    command.argv,
                    command.dynamic,
                    (),
                    command.stdin,
                    command.fed_by,
                    command.via,
                    None,
                    command.depth,
                    folder,
                    command.program,
                    command.indirect,
                )
            )

    def _environment_options(
        self,
        program: Program,
        argv: list[str],
        dynamic: list[bool],
        local: dict[str, str],
        via: tuple[str, ...],
        depth: int,
    ) -> tuple[list[str], list[bool]]:
        """Variables the program reads as options (`TAR_OPTIONS='--to-command=…' tar x`,
        `GIT_WORK_TREE=~ git checkout -f`): their words, split as the program splits them (the
        run's `language`), go before the program's own."""
        words: list[str] = []
        tail: list[str] = []
        for run in program.runs:
            if run.kind != "options" or run.source != "env":
                continue
            if run.prepend is not None and "{" in run.prepend:
                # (cfg50) a variable that spells an option by its name (`PIP_REPORT=F pip install x` is `pip
                # install x --report=F`): after the verb, where the verb's options are read
                for option, word in self._named_options(run, program.grammar.long, local, (*via, argv[0]), depth):
                    # one of the program's own options goes before its verb (where `yarn --https-proxy=P install`
                    # reads it), a verb's after it
                    global_option = program.grammar.stop_at_operand and option in program.grammar.long
                    (words if global_option else tail).append(word)
                continue
            split = OPTION_SPLITTERS[run.language or "env"]
            for value in self.variable_values(run, local, (*via, argv[0]), depth + 1):
                payload = matched_payload(run, value)
                if payload is None:
                    continue
                if run.prepend is not None:
                    words.append(run.prepend + payload)
                else:
                    words.extend(split(payload, self.env))
        if tail:
            at = argv.index("--") if "--" in argv[1:] else len(argv)
            argv, dynamic = [*argv[:at], *tail, *argv[at:]], [*dynamic[:at], *([False] * len(tail)), *dynamic[at:]]
        if not words:
            return argv, dynamic
        # Before the first word when options end at the first operand (`git VERB`), else last
        # (`tar xf a.tar` keeps its first word), ahead of a `--`.
        at = 1 if program.grammar.stop_at_operand else (argv.index("--") if "--" in argv[1:] else len(argv))
        return [*argv[:at], *words, *argv[at:]], [*dynamic[:at], *([False] * len(words)), *dynamic[at:]]

    def _named_options(
        self, run: Run, declared: Mapping[str, int], local: dict[str, str], via: tuple[str, ...], depth: int
    ) -> list[tuple[str, str]]:
        """(cfg50) The options a run `{env: ["PIP_*"], as: options, prepend: "--{PIP_}="}` reads: each variable
        of the line the globs match is the long option its name spells past the prefix in braces (lower case,
        `_` as `-`: PIP_LOG_FILE is `--log-file=VALUE`), as pip, npm (`npm_config_KEY`) and yarn read their
        environment. A no value is the negation (`npm_config_strict_ssl=false` is `--no-strict-ssl`), a yes value
        the flag itself when the program's grammar (``declared``) reads the option without a value
        (`PIP_NO_CACHE_DIR=1` is `--no-cache-dir`), else `--OPTION=VALUE` (a bare option before the verb would
        take the verb as its value). With a `language:`, a value of more than one word is each of its words too
        (pip splits a list option's value at blanks: `language: tar`)."""
        prepend = run.prepend or ""
        head, _, rest = prepend.partition("{")
        prefix, _, after = rest.partition("}")
        words: list[tuple[str, str]] = []
        for variable in self.variables_read(run, local):
            if len(variable) <= len(prefix) or variable[: len(prefix)].lower() != prefix.lower():
                continue
            option = variable[len(prefix) :].lower().replace("_", "-")
            held, lost = self.env.readings(variable, local)
            if lost:
                self._escape_hatch(None, via, depth)
            for value in held:
                payload = matched_payload(run, value)
                if payload is None:
                    continue
                folded = payload.strip().lower()
                if folded in ("0", "false", "no", "off"):
                    words.append(("no-" + option, head + "no-" + option))
                    continue
                flag = folded in ("1", "true", "yes", "on") and declared.get(option) == NONE
                words.append((option, head + option + ("" if flag else after + payload)))
                parts = OPTION_SPLITTERS[run.language](payload, self.env) if run.language else []
                if len(parts) > 1:
                    words += [(option, head + option + after + part) for part in parts]
        return words

    def _alternate_reading(
        self,
        command: Command,
        program: Program,
        argv: list[str],
        dynamic: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """An option the table does not know may take a value (a newer program than the table
        describes): the command is also read with each such option and the word after it left
        out, so `git --new-opt VAL push --force` is `git push --force` too. Once per chain."""
        reading = command.reading
        if reading is None:
            if not any(w[:1] == "-" for w in argv[1:]):
                return
            reading = command.reading = parse_argv(program.grammar, argv)
        words, flags = argv, dynamic
        for _ in range(_MAX_UNKNOWN_ROUNDS):  # `git --a x --b y push`: x ends git's options, then y
            # the program's options, then each subcommand's (`docker compose --new VAL down`)
            kept = None
            levels = subcommand_levels(program, reading, words) if program.subcommands else [(program, reading)]
            for level, at in levels:
                kept = without_unknown_values(level.grammar, words, at)
                if kept is not None:
                    break
            if kept is None:
                break
            words, flags = [words[j] for j in kept], [flags[j] for j in kept]
            reading = parse_argv(program.grammar, words)
        if words is argv:
            return
        self._unwrap_alternate(words, flags, redirects, stdin, fed_by, via, depth)

    def _unwrap_alternate(
        self,
        words: list[str],
        flags: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """``words`` read as a second reading of the command (an unknown option's value left out, options
        ended POSIX's way, one of tmux's `;` pieces): with ``alternate`` set while it is read."""
        self.alternate = True
        try:
            self._unwrap(words, flags, redirects, stdin, fed_by, via, depth)
        finally:
            self.alternate = False

    def _posix_reading(
        self,
        command: Command,
        program: Program,
        argv: list[str],
        dynamic: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """A program that reads its options anywhere and runs a command (`runuser -u U CMD ARGS`): with
        POSIXLY_CORRECT in the environment (set on the line, or by the caller's: not known here) getopt ends
        its options at the first operand, and the command's own options are the command's (`runuser -u me rm
        -rf ~` runs `rm -rf ~`; read as options, -r is refused). The command is also read so: the words with a
        `--` before that operand. Once per chain."""
        if "--" in argv:
            return  # (options end there in either reading)
        stopped = parse_argv(stopping(program.grammar), argv)
        at = stopped.rest
        if stopped.refused or at is None or not any(w[:1] == "-" and w != "-" for w in argv[at + 1 :]):
            return  # no option after the command's name: both readings agree
        words = [*argv[:at], "--", *argv[at:]]
        flags = [*dynamic[:at], False, *dynamic[at:]]
        self._unwrap_alternate(words, flags, redirects, stdin, fed_by, via, depth)

    def _separated(
        self,
        command: Command,
        program: Program,
        argv: list[str],
        dynamic: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """A program that runs several of its commands given in one line, each ended by its separator
        (`tmux new -d \\; if true 'run CMD'`): each command after the first is read as the program given it
        after its options (`tmux if true 'run CMD'`)."""
        reading = command.reading if command.reading is not None else parse_argv(program.grammar, argv)
        first = reading.operand_at[0] if reading.operand_at else reading.rest
        if first is None:
            return
        mark = program.separator
        starts = [i + 1 for i in range(first, len(argv)) if argv[i] == mark]
        ends = [*(i - 1 for i in starts[1:]), len(argv)]
        for start, end in zip(starts, ends, strict=True):
            if start < end:
                words = [*argv[:first], *argv[start:end]]
                flags = [*dynamic[:first], *dynamic[start:end]]
                self._unwrap_alternate(words, flags, redirects, stdin, fed_by, via, depth)

    def _fetched_code(self, command: Command, via: tuple[str, ...], depth: int) -> None:
        """Remember an unpacked download or a clone; a later script it may hold runs as fetched code
        (`curl -s URL | tar x && ./install.sh`, `git clone URL && cd x && make`)."""
        argv = command.argv
        if command.name in _UNPACKERS:
            if command.name == "git":
                # (xfail40) and the patches format-patch writes: mail made of the commits' text (a message line
                # `rm -rf ~` is a line of `sh 0001-x.patch`), which nobody reads here
                # (xfail41) its verb after every global option (`git -c a=b -C x clone URL`), as git reads them
                verb = list(argv[1:4])
                if command.program is not None and not self.fetched:
                    reading = command.reading
                    if reading is None:
                        reading = command.reading = parse_argv(command.program.grammar, argv)
                    verb = [*verb, *reading.all_operands(argv)[:1]]
                self.fetched = self.fetched or any(w in _GIT_FETCHES for w in verb)
                return
            archives = [self.files.get(self._file_key(w)) for w in argv[1:] if not w.startswith("-")]
            writers = command.fed_by.union(*(a.writers for a in archives if a is not None))
            self.fetched = self.fetched or not writers.isdisjoint(_FETCHERS) or self._unread_archive(command)
            return
        operands = [w for w in argv[1:] if not w.startswith("-")]
        target = argv[0] if "/" in argv[0] else (operands[0] if operands else "")
        if command.name in ("make", "gmake") or (target and not self._known(target)):
            runner = self._synthetic("sh", ("sh", target or command.name), via, depth)
            runner.fed_by = frozenset({"download"})

    def _took_pwd(self) -> bool:
        return self.vals.here

    def _unread_archive(self, command: Command) -> bool:
        """(xfail39) Whether ``command`` extracts an archive whose members nobody reads here: one the line or the
        session wrote (or that changed in the working tree since the session began), one not on disk when the line
        is judged, one named only at run time, or its input from another command. A script it holds run later on
        the line (`tar xf s.tar -C t && sh t/x.sh`) is then code nobody read, as a download's is. An archive of
        the project the session did not touch is read as the project's other files are (not at all)."""
        archive = _extracted_archive(command)
        if archive is None:
            return False
        if archive == "-":
            return bool(command.fed_by) or bool(command.stdin)
        at = command.argv.index(archive) if archive in command.argv else -1  # (not in `--file=A`)
        if (at >= 0 and command.dynamic[at]) or archive.startswith("$"):
            return True
        key = self._file_key(archive)
        if key in self.files:
            return True
        session = self.session
        if session is None or key.startswith(("$", "~")):
            return False
        if session.touched(key):
            return True
        self.read_disk = self.read_disk or session.disk  # (perf50) a check's kept parse would not see it change
        return not posixpath.lexists(posixpath.join(session.workdir, key))

    def _read_loops(self, tokens: list[Token], depth: int, via: tuple[str, ...]) -> None:
        """`for d in ~; do rm -rf "$d"; done`: each loop's body is read again with its variable set
        to each word of its list (the first _MAX_LOOP_VALUES), as well as unknown."""
        for name, words, body in _for_loops(tokens):
            values: list[str] = []
            if not words and self.positional is not None:
                values = list(self.positional)  # `for d; do`: the positional parameters
            resolved_words = [self._resolve(word) for word in words]
            for resolved in resolved_words:
                if not resolved.dynamic:
                    values.extend(resolved.texts)
            if self.dash_names is not None and values:
                # (xf48a) the loop's glob words are globbed where it runs: `for f in -del*; do find . "$f"; done`
                # with a file `-delete` there gives `$f` the value `-delete` (a quoted `"$f"` is globbed no more)
                known = [token for token, resolved in zip(words, resolved_words, strict=True) if not resolved.dynamic]
                self._dash_globbed(
                    _glob_words(known, [r for r in resolved_words if not r.dynamic]),
                    values,
                    [False] * len(values),
                    0,
                )
            saved = self.env.get(name)
            globbed = (
                name not in self.globbed
                and any(_GLOB.search(value) for value in values)
                and any(t.literal in _CODE_READERS or t.literal in self.functions or _evaluates(t) for t in body)
            )
            try:
                if globbed:
                    # `for f in *; do sh -c "echo $f"; done`: a glob's names are any text a file's name may
                    # hold (`x;rm -rf ~`), which a shell reading the word parses: set by the line, not
                    # known (Analyzer.spliced_code; redt34); so too given a function (`f "$f"`: open35)
                    self.env.pop(name, None)
                    self.globbed.add(name)
                    for pipeline in _split(body):
                        self._pipeline(pipeline, depth, (*via, "for"))
                    self.globbed.discard(name)
                for value in dict.fromkeys(values[:_MAX_LOOP_VALUES]):
                    self.env[name] = value
                    for pipeline in _split(body):
                        self._pipeline(pipeline, depth, (*via, "for"))
            finally:
                if globbed:
                    self.globbed.discard(name)
                if saved is None:
                    self.env.pop(name, None)
                else:
                    self.env[name] = saved

    def run_script(self, text: str, command: Command, path: str, depth: int, via: tuple[str, ...]) -> None:
        """`echo 'rm -rf "$1"' > x.sh; bash x.sh ~`: the words after the script's path are its
        "$1"… (`.`/`source` put back the caller's after it; an unknown word stays unknown)."""
        argv = list(command.argv)
        at = argv.index(path) + 1 if path in argv else len(argv)
        if at >= len(argv) and command.name in (".", "source"):
            self.analyze(text, depth=depth, via=via)  # no words: the caller's "$@" stays
            return
        # (mk49) a script run (not sourced) gets the path it runs as for its $0 (`cd "$(dirname "$0")"`)
        script = command.name in _SCRIPT_SHELLS and path in argv and not command.dynamic[at - 1]
        name = path if script else None
        self._with_positional(text, argv[at:], list(command.dynamic[at:]), depth, via, name)

    def run_folder(self, command: Command, folder: str, via: tuple[str, ...], depth: int) -> None:
        """`run-parts DIR`: every file of DIR runs, with the `--arg` words as its $1…. The files the
        line or the session wrote there (or changed on disk since it began) are judged, each as
        its first line's interpreter reads it (a shell script otherwise); a folder named only at
        run time, in a session that wrote files, is not judged (asked)."""
        names = self.written_in(folder)
        if names is None:
            self.unread.append(folder)
            return
        key = self._file_key(folder.rstrip("/") or "/")
        if key == ".":
            key = ""
        reading = command.reading
        args = [v for n, v, _ in reading.options if n in ("a", "arg") and v is not None] if reading is not None else []
        matches = [posixpath.join(key, name) for name in names[:_MAX_GLOBBED] if not name.startswith(".")]
        # (xfail41b) and the files the line or the session wrote in its subfolders: `runsvdir DIR` runs DIR/NAME/run,
        # runsv DIR its DIR/log/run too
        prefix = key.rstrip("/") + "/" if key else ""
        deep = [k for k in self.files if _under(k, key.rstrip("/")) and "/" in k[len(prefix) :]]
        if self.session is not None:
            deep += self.session.keys_under(key)
        for match in dict.fromkeys(k for k in deep if "/" in k[len(prefix) :] and "/." not in "/" + k[len(prefix) :]):
            if len(matches) >= 2 * _MAX_GLOBBED:
                break
            matches.append(match)
        for match in matches:
            text = self._keyed_script(match, match)
            if text is None:
                continue
            inner = (*via, match)
            language = _shebang_language(text)
            if language is not None:
                self.code(command, language, text, inner, depth)
            else:
                if _shebang_unread(text):
                    self.unread.append(match)
                fish = _shebang_shell(text) == "fish"  # (rev55b) a fish script's eval/source are fish's too
                spelled = fish_text(text) if fish else text
                self.in_dialect(
                    fish, partial(self._with_positional, spelled, args, [False] * len(args), depth + 1, inner)
                )

    def _run_written(self, runner: Command, text: str, path: str, depth: int, via: tuple[str, ...]) -> None:
        """`./x`: a file the line or the session wrote, run by the interpreter its `#!` line names
        (fresh37b: `#!/usr/bin/env python3` read as the Python it is, not as shell lines); an
        interpreter nobody reads programs of here (`#!/usr/bin/make -f`) is a run nobody judged (ask)."""
        line = _shebang_line(text)
        if line is not None:
            # the `#!` line is a command the kernel runs with the file's path after it (`#!/usr/bin/env -S bash
            # -c 'rm -rf ~'`, `#!/bin/rm -rf`): judged as that line (fresh37b)
            self.analyze(line + " " + shell_word(path), depth=depth + 1, via=via)
        language = _shebang_language(text)
        if language is not None:
            self.code(runner, language, text, via, depth)
            return
        if _shebang_unread(text):
            self.unread.append(path)
        fish = _shebang_shell(text) == "fish"  # (rev55b) a fish script's eval/source are fish's too
        spelled = fish_text(text) if fish else text  # (unseen55) as fish reads its lines
        # (mk49) its $0 the path it runs as, its $1… the words after it (`cd "$(dirname "$0")"`)
        at = runner.argv.index(path) if path in runner.argv else None
        if at is None or runner.dynamic[at]:
            self.in_dialect(fish, lambda: self.analyze(spelled, depth=depth, via=via))
            return
        words, flags = list(runner.argv[at + 1 :]), list(runner.dynamic[at + 1 :])
        self.in_dialect(fish, lambda: self._with_positional(spelled, words, flags, depth, via, path))

    def written_in(self, folder: str) -> list[str] | None:
        if "$" in folder or "`" in folder:
            return None if self.files or (self.session is not None and self.session.files.files) else []
        key = self._file_key(folder.rstrip("/") or "/")
        if key == ".":
            key = ""
        names = {posixpath.basename(k) for k in self.files if posixpath.dirname(k) == key}
        if self.session is not None:
            names.update(self.session.names_in(key))
        return sorted(names)

    def _end_wrapped(self, outer: tuple[dict[str, str], dict[str, list[str]], frozenset[str]] | None) -> None:
        """A chain ends (_unwrap): what its wrappers gave the commands they ran is undone, the outer chain's is back."""
        if self.wrapped is not None:
            values, lost, self.leading = self.wrapped
            self.env.reset(values, lost)
        self.wrapped = outer

    def wrapper_environment(self, grammar: Grammar, parsed: Parsed, unknown: bool) -> None:
        """(stop 58) `export X=p/; env X=/ bash -c 'rm -f ~/"$X"notes.txt'` removed the note, read with the exported
        value: what a wrapper gives the command it runs is what the rest of the chain reads. A variable `env -i`
        empties or `env -u` unsets is known only at run time there (its value before one reading); one it assigns
        has its value (none known when a word of the wrapper's is known only at run time), and the shell it starts
        gets it (`leading`). Undone when the chain ends (_unwrap)."""
        env = self.env
        if self.wrapped is None:
            self.wrapped = (dict(env), {key: list(values) for key, values in env.lost.items()}, self.leading)
        gone: list[str] = []
        if grammar.clears_environment and parsed.has(grammar.clears_environment):
            # (HOME as the engine starts it, `~`, stays: the tilde of a shell with no HOME is the user's home)
            gone.extend(name for name in env if name not in SHELL_OWN and (name != "HOME" or env[name] != "~"))
        if grammar.unsets_variable:
            # (rev58) a name the line never set is unset there as it may be here: nothing to take (`env -u
            # VIRTUAL_ENV pip list` is no variable of any value); HOME as the engine starts it stays, as with -i
            gone.extend(
                name
                for name in parsed.values(grammar.unsets_variable)
                if name in env and (name != "HOME" or env[name] != "~")
            )
        for name in gone:
            env.pop(name)
        if parsed.assignments:
            for name, value in parsed.assignments:
                if unknown:
                    env.pop(name)
                else:
                    env[name] = value
            self.leading = self.leading | {name for name, _ in parsed.assignments}

    def in_new_shell(self, action: Callable[[], object]) -> None:
        """Run ``action``, the reading of a shell another program starts (`bash -c`, `sh x.sh`, `./x.sh`): a variable
        the line wrote and did not export is none of that shell's (stop 57: `X=p/; bash -c 'rm -f ~/"$X"notes.txt'`
        removes ~/notes.txt, read as ~/p/notes.txt). It may still be in the environment the line was started with
        (assigning one of those changes what the child sees): known only at run time there, its value one reading.
        Those the command itself assigns (`X=1 bash -c …`) and those exported are the new shell's, and exported by it
        in turn. (Entered from _analyze_tokens, for a text whose last step of via starts a shell: _new_shell.)"""
        vals = self.vals
        exported, leading = vals.exported, self.leading
        env = self.env
        hidden = [
            name
            for name in vals.written
            if name in env and name not in exported and name not in leading and name not in SHELL_OWN and name != "HOME"
        ]
        if not hidden and not leading:
            action()
            return
        saved = {name: env[name] for name in hidden}
        lost = {key: list(values) for key, values in env.lost.items()}
        for name in hidden:
            env.pop(name)
        vals.exported = exported | leading | {name for name in vals.written if name in env}
        self.leading = _NOTHING
        try:
            action()
        finally:
            vals.exported, self.leading = exported, leading
            for name in hidden:
                env.pop(name, None)
            env.update(saved)
            env.lost = lost

    def run_with(self, text: str, words: list[str], flags: list[bool], depth: int, via: tuple[str, ...]) -> None:
        """`sh -c 'rm -rf "$1"' _ ~`, `bash -s ~ <<< 'rm -rf "$1"'`: the words after the text
        (after the shell's options for stdin) are its $0, $1…."""
        self._with_positional(text, words[1:], flags[1:], depth, via, words[0] if not flags[0] else None)

    def _with_positional(
        self,
        text: str,
        args: list[str],
        dynamic: list[bool],
        depth: int,
        via: tuple[str, ...],
        name: str | None = None,
    ) -> None:
        """Read ``text`` with ``args`` as its "$1"… (and ``name`` as its $0 when given), then put the
        line's own back."""
        keys = (*_POSITIONAL_KEYS, "0")
        saved, saved_spliced = self.positional, self.spliced_args
        saved_env = {key: self.env[key] for key in keys if key in self.env}
        self._positional(args, dynamic)
        if "0" in self.env:
            self.env.pop("0", None)
        if name is not None:
            self.env["0"] = name
        try:
            self.analyze(text, depth=depth, via=via)
        finally:
            self._drop_positional(keys)
            self.env.update(saved_env)
            self.positional, self.spliced_args = saved, saved_spliced

    def _fix_command(self, argv: list[str], depth: int, via: tuple[str, ...]) -> None:
        """`fc [-e EDITOR] …` runs EDITOR on a file (`fc -e 'rm -rf ~'`), then the commands it held:
        the history entries the line added (`history -s …; fc -s`). `fc -l` only lists."""
        options = [a for a in argv[1:] if a.startswith("-")]
        if any("l" in a for a in options if a != "-e"):
            return
        editor = next((argv[k + 1] for k in range(1, len(argv) - 1) if argv[k] == "-e"), None)
        if editor is not None and editor != "-" and "-s" not in options:
            self.analyze(f"{editor} /tmp/bash-fc.tmp", depth=depth + 1, via=(*via, "fc"))
        if not self.history:
            # entries the line did not add (a background shell's earlier lines under `set -o history`,
            # this line's own commands): what runs is not on the line, an escape hatch (ask)
            self._escape_hatch(None, via, depth + 1)
            return
        # `fc -s old=new`: each entry with every `old` replaced by `new`, as bash re-runs it
        edits = [a.partition("=") for a in argv[1:] if "=" in a and not a.startswith("-") and a != editor]
        for entry in self.history:
            text = entry
            for old, _, new in edits:
                text = text.replace(old, new) if old else text
            self.analyze(text, depth=depth + 1, via=(*via, "fc"))

    def _call_function(
        self,
        argv: list[str],
        dynamic: list[bool],
        depth: int,
        via: tuple[str, ...],
        stdin: str = "",
        reads: list[tuple[str, str]] | None = None,
    ) -> None:
        """`f() { gh "$@"; }; f auth token` runs `gh auth token`: each body given the function is
        read again with the call's arguments as its positional parameters (an argument known
        only at run time stays unknown there). The call's input (``stdin``, the files it ``reads``)
        is its commands' (`f() { bash; }; f <<< 'rm -rf ~'`), as after `exec <` (see _simple)."""
        name = argv[0]
        bodies = self.functions[name]
        if self.calling is _NO_NAMES:
            self.calling = set()
        self.calling.add(name)
        saved = self.exec_input, self.exec_reads
        if stdin:
            self.exec_input = stdin
        if reads:
            self.exec_reads = [*self.exec_reads, *reads]
        given = self.exec_input, self.exec_reads
        try:
            if len(bodies) == 1:
                self._read_body(bodies[0], depth + 1, (*via, name), (argv[1:], dynamic[1:]))
                return
            # Defined more than once: one of the bodies runs, each from where the call starts;
            # what they leave different is unknown after.
            start = self._state()
            ends: list[_State] = []
            for body in bodies:
                self._restore(start)
                self._read_body(body, depth + 1, (*via, name), (argv[1:], dynamic[1:]))
                ends.append(self._state())
            for end in ends[:-1]:
                self._merge(end)
        finally:
            self.calling.discard(name)
            if self.exec_input is given[0]:
                self.exec_input = saved[0]  # (not when the body ran `exec <` itself)
            if self.exec_reads is given[1]:
                self.exec_reads = saved[1]

    def _read_body(
        self, body: list[Token], depth: int, via: tuple[str, ...], args: tuple[list[str], list[bool]] | None
    ) -> None:
        """Read a function's body with ``args`` as its positional parameters (None: unknown, at
        its definition, which runs nothing: what the body sets or moves is put back after). A call
        runs the body in this shell: what it sets stays set (`f() { a=$1; }; f ~` sets a to ~),
        but a `local` variable gets its old value back; what a command that may not run sets is
        unknown (see _run_pipelines)."""
        before = dict(self.env)
        saved_positional, saved_spliced = self.positional, self.spliced_args
        saved_cwd, saved_directories = self.cwd, list(self.directories)
        if args is None:
            self._positional(["$unknown"], [True])
        else:
            self._positional(*args)
        # A group runs in this shell: its commands surely run.
        grouped = len(body) > 1 and body[0].literal == "{" and body[-1].literal == "}"
        inner = body[1:-1] if grouped else body
        if self.frames is _NO_ITEMS:
            self.frames = []
        self.frames.append(set())
        try:
            self._run_pipelines(inner, depth, via)
            if len(body) > 5:
                self._read_loops(body, depth, via)
        finally:
            local = self.frames.pop()
            self.positional, self.spliced_args = saved_positional, saved_spliced
            if args is None:
                self.env.restore(before)
                self.cwd, self.directories = saved_cwd, saved_directories
            else:
                for key in (*_POSITIONAL_KEYS, *local):
                    if key in before:
                        self.env[key] = before[key]
                    else:
                        self.env.pop(key, None)

    def _state(self) -> _State:
        return dict(self.env), self.cwd, self.positional, list(self.directories)

    def _restore(self, state: _State) -> None:
        env, self.cwd, self.positional, directories = state
        self.env.restore(env)
        self.directories = list(directories)

    def _merge(self, other: _State) -> None:
        """Two readings of one command (an alias live or not, a function or the builtin it is
        named like), this one and ``other``: what they leave different is unknown after."""
        env, cwd, positional, directories = other
        for key, value in list(self.env.items()):
            if env.get(key) != value:
                del self.env[key]
        if cwd != self.cwd:
            self.cwd = "$unknown"
        if positional != self.positional:
            self._drop_positional()
            self.positional = None
        if directories != self.directories:
            self.directories = []  # a popd goes where it may

    def _shell_scope(self, via: tuple[str, ...]) -> tuple[str, ...]:
        """The shells ``via`` started (`bash -c`, `sudo`, a script run as ./x.sh): an alias is
        known in the shell it was defined in, and in its subshells, not in another one."""
        scope: list[str] = []
        sourced = False
        for step in via:
            if sourced:
                sourced = False  # the file `source` reads
            elif step in ("source", "."):
                sourced = True
            elif self._starts_shell(step):
                scope.append(step)
        return tuple(scope)

    def _define_aliases(self, argv: list[str], dynamic: list[bool], via: tuple[str, ...]) -> None:
        """`alias NAME=TEXT ...`: a later command word NAME runs TEXT. A text known only at run time
        is a command word that may be anything; a name known only at run time, any command's."""
        scope = self._shell_scope(via) if via else ()
        at = 1
        while at < len(argv) and argv[at][:1] == "-" and not dynamic[at]:
            at += 1  # (fish's `alias --save`, bash's `alias -p`)
        if len(argv) - at >= 2 and "=" not in argv[at] and (self.fish_dialect or (scope and scope[-1] in _CSH_SHELLS)):
            # (unseen55) `alias NAME TEXT…` without `=`: fish's form (`fish -c 'alias x "rm -rf ~"; x'` runs rm) and
            # csh's (the words joined); (stop 55) only in those shells: to bash (`alias x 'rm -rf ~'; x`) it defines
            # nothing, prints NAME's lookup failing, and x is no command (a hardline there was about nothing that runs)
            text = " ".join(argv[at + 1 :])
            argv = [argv[0], f"{argv[at]}={fish_text(text) if self.fish_dialect else text}"]
            dynamic = [False, any(dynamic[at:])]
        for word, is_dynamic in zip(argv[1:], dynamic[1:], strict=False):
            alias, sep, value = word.partition("=")
            if is_dynamic and (not sep or "$" in alias or "`" in alias):
                raise TooComplex("an alias whose name is known only at run time")
            if not sep or not alias:
                continue
            if self.aliases is _NO_ENTRIES:
                self.aliases = {}
            self.aliases[alias] = _UNKNOWN_ALIAS if is_dynamic else value
            if self.alias_scopes is _NO_ENTRIES:
                self.alias_scopes = {}
            self.alias_scopes[alias] = scope
            if alias in _RESERVED and not self._choose(2):
                # another reading: aliases are off (a non-interactive shell without expand_aliases,
                # or the alias is defined on the line it is used on) and the word stays reserved
                # (`alias coproc=echo; coproc X { rm -rf ~; }` runs the group)
                self.kept = self.kept | {alias}

    def _hash(self, argv: list[str], dynamic: list[bool]) -> None:
        """`hash -p PATH NAME...`: the command NAME runs the program at PATH."""
        if "-p" not in argv[1:-2]:
            return
        at = argv.index("-p")
        for word, is_dynamic in zip(argv[at + 2 :], dynamic[at + 2 :], strict=False):
            if is_dynamic or dynamic[at + 1]:
                raise TooComplex("a command path set with hash known only at run time")
            if word[:1] != "-":
                if self.hashed is _NO_ENTRIES:
                    self.hashed = {}
                self.hashed[word] = argv[at + 1]

    def _name_table(self, token: Token, via: tuple[str, ...]) -> None:
        """`BASH_ALIASES[NAME]=TEXT` is `alias NAME=TEXT`; `BASH_CMDS[NAME]=PATH` is `hash -p PATH
        NAME`. Any other way of setting them (a whole array, `+=`) is past what is read here."""
        word = self._resolve(token, split=False)
        entry = _TABLE_ENTRY.fullmatch(word.texts[0]) if len(word.texts) == 1 else None
        if entry is None or word.dynamic:
            raise TooComplex(f"{token.value.split('=', 1)[0]} set in a way not read here")
        table, name, value = entry.groups()
        if table == "BASH_CMDS":
            if self.hashed is _NO_ENTRIES:
                self.hashed = {}
            self.hashed[name] = value
        else:
            self._define_aliases(["alias", f"{name}={value}"], [False, False], via)

    def _import_functions(self, local: dict[str, str], depth: int, via: tuple[str, ...]) -> None:
        """`env 'BASH_FUNC_f%%=() { rm -rf ~; }' bash -c f`: the function a bash started with that
        variable has (defined here for the whole line: stricter)."""
        for key, value in local.items():
            match = _IMPORTED_FUNCTION.fullmatch(key)
            if match is not None and value.lstrip().startswith("()"):
                self.analyze(f"{match.group(1)} {value}", depth=depth + 1, via=(*via, "function"))

    def _expand_alias(
        self, words: list[Token], i: int, used: frozenset[str], scope: tuple[str, ...], left: list[int]
    ) -> bool:
        """Expand, in place, the alias ``words[i]`` names, as bash does: an unquoted word, then the
        first word of its text (not an alias being expanded), and the word after the text when it
        ends in a blank. True when a text holds operators (the words after it were left as they are)."""
        if i >= len(words):
            return False
        token = words[i]
        name = token.literal
        if (
            name is None
            or token.quoted
            or name in used
            or name not in self.aliases
            or self.alias_scopes.get(name, ()) != scope
        ):
            return False
        left[0] -= 1
        if left[0] < 0:
            raise TooComplex(f"aliases expanding more than {_MAX_ALIASES} times for one command")
        value = self.aliases[name]
        tokens = self._tokens(value)
        words[i : i + 1] = tokens
        if any(t.kind != "word" for t in tokens):
            return True
        size = len(words)
        if self._expand_alias(words, i, used | {name}, scope, left):
            return True
        if value[-1:] in (" ", "\t"):
            return self._expand_alias(words, i + len(tokens) + len(words) - size, used, scope, left)
        return False

    def _alias_reading(
        self, raw: _Raw, depth: int, via: tuple[str, ...], fed_by: frozenset[str], piped: str | None, feeds: bool
    ) -> tuple[list[Command], str | None] | None:
        """A command whose word is an alias is read twice: as written (aliases off, as in `bash -c`
        unless `shopt -s expand_aliases`) and with its aliases expanded (an interactive shell, or
        expand_aliases on; the engine cannot tell). None: no alias applies."""
        words = raw.words
        k = 0
        while k < len(words) - 1 and ASSIGNMENT.match(words[k].value) is not None:
            k += 1
        if k == 0 and len(words) > 1 and words[0].value == "time" and "time" not in self.aliases:
            k = 2 if words[1].value == "-p" and len(words) > 2 else 1  # the reserved word `time [-p]`
        if words[k].literal not in self.aliases or words[k].literal in self.expanding:
            return None  # (not within its own text, read as a line: `alias time='time -p'`)
        expanded = list(words)
        left = [_MAX_ALIASES]
        operators = self._expand_alias(expanded, k, _NOTHING, self._shell_scope(via) if via else (), left)
        if left[0] == _MAX_ALIASES:
            return None
        # A text that gives a reserved word (`alias t='time '`, `alias g='{ '`) is read as a line:
        # `t { rm -rf ~; }` runs the group.
        operators = operators or any(t.literal in _RESERVED for t in expanded[k:])
        start = self._state()
        stages, output = self._simple(raw, depth, via, fed_by, piped, aliases=False, feeds=feeds)
        plain = self._state()
        self._restore(start)
        inner = (*via, "alias")
        if operators:
            tokens = list(expanded)
            for op, target in raw.redirects:
                if target is not None:
                    tokens += (Token("op", op), target)
            mark = len(self.commands)
            name = words[k].literal or ""
            if self.expanding is _NO_NAMES:
                self.expanding = set()
            self.expanding.add(name)
            printing = self.printing
            if feeds or printing is not None:
                self.printing = _UNPRINTED  # what its line prints is its output (see _simple)
            try:
                self._analyze_tokens(tokens, depth + 1, inner)
            finally:
                self.expanding.discard(name)
                printed, self.printing = self.printing, printing
            if output is None and printed:
                output = _joined(printed)
            stages = stages + self.commands[mark:]
        else:
            more, aliased = self._simple(
                _Raw(expanded, raw.redirects), depth + 1, inner, fed_by, piped, aliases=False, feeds=feeds
            )
            stages = stages + more
            output = aliased if aliased is not None else output
        self._merge(plain)
        return stages, output

    def _drop_positional(self, keys: tuple[str, ...] | None = None) -> None:
        """Drop the shell's own parameters ``keys`` (all in SHELL_OWN) from env: what `env.pop` does
        for each, minus the call for one that is not there (a SHELL_OWN key is never remembered as
        lost, so popping an absent one changes nothing)."""
        env = self.env
        for key in _POSITIONAL_KEYS if keys is None else keys:
            if key in env:
                env.pop(key, None)

    def _positional(self, args: list[str], dynamic: list[bool], spliced: bool = False) -> None:
        """Make ``args`` the positional parameters ($1.., $#, $@, $*). Those whose word splices in a
        value not known here (see spliced_code, read where the words are the caller's) are marked so;
        ``spliced``: all are (a `shift` of ones not known, some of them spliced)."""
        self.spliced_args = _ALL_POSITIONAL if spliced else self._spliced_args(args, dynamic)
        self._drop_positional()
        known = not any(dynamic)
        if not known:
            self._carry_any("@", [arg for arg, d in zip(args, dynamic, strict=False) if d])  # `set -- $(find ~)`
        self.positional = list(args) if known else None
        for i, (arg, is_dynamic) in enumerate(zip(args, dynamic, strict=False), start=1):
            if i > 9:
                break
            if not is_dynamic:
                self.env[str(i)] = arg
        if known:
            self.env["#"] = str(len(args))
            self.env["@"] = " ".join(args)
            self.env["*"] = self._separators()[:1].join(args)

    def _spliced_args(self, args: list[str], dynamic: list[bool]) -> frozenset[str]:
        """The positional parameters ``args`` would set whose word splices in a value not known here."""
        if not any(dynamic):
            return _NOTHING
        names = [
            str(i) if i <= 9 else "*"
            for i, (arg, is_dynamic) in enumerate(zip(args, dynamic, strict=False), start=1)
            if is_dynamic and self.spliced_code(arg)
        ]
        if not names:
            return _NOTHING
        # "$@", "$*" hold them all; `${10}` reads as `$1` below: a tenth spliced marks every one
        return _ALL_POSITIONAL if "*" in names else frozenset((*names, "@", "*"))

    def _set_positional(self, argv: list[str], dynamic: list[bool]) -> None:
        """`set -- a b` sets the positional parameters; `shift [N]` drops the first N."""
        if argv[0] == "shift":
            operands = argv[2:] if argv[1:2] == ["--"] else argv[1:]
            count = operands[0] if operands else "1"
            arithmetic = _ARITHMETIC_WORD.fullmatch(count)
            if arithmetic is not None and self.positional is not None:
                # `shift $(( $# - 1 ))`
                shifted = _sum(arithmetic.group(1), len(self.positional))
                count = str(shifted) if shifted is not None and shifted >= 0 else count
            if self.positional is not None and count.isdigit() and len(operands) <= 1:
                rest = self.positional[int(count) :]
                self._positional(rest, [False] * len(rest))
            else:
                self._positional(["$unknown"], [True], bool(self.spliced_args))
            return
        for at, word in enumerate(argv[1:], 1):
            if word == "--" or word[:1] not in ("-", "+"):
                break
            # (stop 57) `set -a` / `set -o allexport`: every variable set after it is exported; `+a` ends it
            allexport = word[1:] == "o" and argv[at + 1 : at + 2] == ["allexport"]
            if allexport or ("a" in word[1:] and word[1:2] != word[:1]):
                if word[0] == "-":
                    self.vals.exported.add(EXPORT_ALL)
                else:
                    self.vals.exported.discard(EXPORT_ALL)
        if "--" in argv:
            start = argv.index("--") + 1
        elif len(argv) > 1 and not argv[1].startswith(("-", "+")):
            start = 1
        else:
            return  # `set -e`, `set -o pipefail`: options only
        self._positional(argv[start:], dynamic[start:])

    def _fish_set(self, argv: list[str], dynamic: list[bool]) -> None:
        """(stop 56) fish's `set [-gx…] NAME VALUE…` assigns NAME (`fish -c 'set -x BASH_ENV e.sh; bash -c true'`
        ran e.sh, allowed: read as `set -- …`, sh's positional parameters): an exported, lasting one (`-x`, not `-l`,
        not a function's own) as `export NAME='VALUE…'`, any other as a value known only at run time (rev56, below);
        `-a`/`--append` and `-p`/`--prepend` add to the value, `-e`/`--erase` unsets; `-q`, `-n`, `-S` and a bare
        `set` change nothing; an element `NAME[2] VALUE` leaves the value unknown, a NAME known only at run time may
        be any variable (_any_variable)."""
        parsed = parse_argv(_FISH_SET, argv)
        flags = {name for name, _, _ in parsed.options}
        if parsed.unknown or parsed.refused:
            flags.add("?")  # an option fish refuses (the command fails) or one not known here: not read as exported
        at = parsed.operand_at[0] if parsed.operand_at else parsed.rest if parsed.rest is not None else len(argv)
        operands, changing = argv[at:], dynamic[at:]
        if not operands or flags & {"q", "n", "S"}:
            return
        if "e" in flags:
            self._forget("unset", ["unset", *(w.split("[", 1)[0] for w in operands)])
            return
        name = operands[0].split("[", 1)[0]
        if not _IDENTIFIER.fullmatch(name) or changing[0]:
            # `set -x (string upper bash_env) e.sh`: any variable, those programs read as code too (adv56)
            self._forget("unset", ["unset", operands[0] if "$" in operands[0] else f"${{{operands[0]}}}"])
            self._any_variable()
            return
        if "[" in operands[0] or any(changing[1:]):
            self._assign(name, None)
            self._carry(name, " ".join(operands[1:]))
            return
        if "x" not in flags or flags & {"l", "u"} or (self.calling and not flags & {"g", "U"}):
            # (rev56) a value only this fish holds, or only for a while: not exported (a `bash -c` it starts sees
            # the variable unset), block-local (`begin; set -l X p/; end`), or a function's own (`function f; set X
            # p/; end; f`): each read `rm -f ~/"$X"notes.txt` as `~/p/notes.txt`, where it ran `rm -f
            # ~/notes.txt`. Known only at run time, then (fail closed: `set c rm; $c -rf ~` still asks)
            self._assign(name, None)
            return
        self.vals.exported.add(name)  # (stop 57) a shell it starts sees it (see in_new_shell)
        value = " ".join(operands[1:])
        known = self.env.get(name) if flags & {"a", "p"} else ""
        if known is None:
            self._assign(name, None)
            return
        self._assign(name, value if not known else f"{known} {value}" if "a" in flags else f"{value} {known}")

    def _any_variable(self) -> None:
        """(stop 56, adv56) A variable named only at run time was given a value: it may be any variable, so each a
        program reads holds a value known only at run time (Variables.readings: `export "$(cat f)=e.sh"; bash -c
        true` may run e.sh as BASH_ENV). (Its value is not kept: each variable of each program judged as it, the
        shells' again in the shell they start, is past any bound.)"""
        self.env.lost.setdefault(ANY_VARIABLE, [])

    def _arithmetic(self, text: str, *, literal: bool = True, seen: set[str] | None = None) -> list[str]:
        """The scripts evaluating arithmetic ``text`` runs: its command substitutions (when
        ``literal``, the text reaches the evaluator unexpanded, as `let 'a[$(cmd)]'` does), and
        those of every variable it names, whose value is evaluated again in turn
        (`x='a[$(cmd)]'; echo $((x))`). Each variable is read once."""
        found = substitutions(text) if "$(" in text or "`" in text else []
        scripts = list(found) if literal else []
        if any(not _counts(script) for script in found):
            # `$(( $(cat f) ))`, `[[ $(readlink l) -eq 0 ]]`: what it prints is evaluated in turn (redt35)
            scripts.append(_UNKNOWN_ARITHMETIC)
        seen = set() if seen is None else seen
        for named in _IDENTIFIER.finditer(text):
            name = named.group()
            value = self.env.get(name)
            if value and name not in seen:
                seen.add(name)
                scripts.extend(self._arithmetic(value, seen=seen))
            elif (
                value is None
                and name not in seen
                and self._stored(name)
                and text[named.start() - 1 : named.start()] != "#"  # (`${#a[@]}`: a count)
            ):
                # `read n < f; echo $((n))`, `for f in *; do (( f )); done`: a value nobody knows here that
                # an earlier command may have stored (`a[$(rm -rf ~)]`), evaluated as arithmetic (redt35)
                seen.add(name)
                scripts.append(_UNKNOWN_ARITHMETIC)
        return scripts

    def _pasted_value(self, name: str) -> str | None:
        """The text an unquoted here-document's `$NAME` pastes into the body its reader parses, when the line
        set it to a value the reader would parse otherwise than a word (`x=';'`, a newline, a quote: adv49);
        None (the reader expands `$NAME` itself, to the same value) for a plain word or a value nobody knows."""
        if name not in self.env:
            return None
        value = env_get(self.env, name, "")
        return None if _PLAIN_VALUE.fullmatch(value) else value

    def _pasted_expansion(self, segs: list[Seg]) -> str | None:
        """The value of an unquoted here-document's expansion with an operator or arithmetic (one part,
        ``segs``: `${x#a}`, `${x/a/b}`, `$((1+2))`), computed as a command word's is; None when the line does
        not make it known (subst50). (What its subscripts run was read already: _body_expansions.)"""
        if segs[0].kind == ARITH:
            number = arithmetic_value(segs[0].text, self.env)
            return None if number is None else str(number)
        word = self._resolve(Token("word", "$", segs, quoted=True), split=False, here=True)
        return None if word.dynamic or len(word.texts) != 1 else word.texts[0]

    def _unread_body(self, body: str) -> bool:
        """Whether an unquoted here-document's ``body`` pastes into what its reader parses a value the line does
        not make known (subst50): a parameter expansion with an operator or an arithmetic one not computed here
        (`${x:-a}`, `${x#a}`, `$((n))`), or a variable an earlier command set to a text nobody knows here
        (see spliced_code). A plain `$NAME` the line never set is the environment's, which the caller does not
        write: its reader sees it as adv49 reads it. Its command substitutions are the caller's."""
        if "$" not in body:
            return False
        if ("${" in body or "$((" in body or "$[" in body) and any(
            (seg.kind != VAR or _PLAIN_NAME.fullmatch(seg.text) is None) and self._pasted_expansion([seg]) is None
            for seg in body_expansions(body)
        ):
            return True
        return self._splices_a_value(body, known=True)

    def _body_expansions(self, body: str, depth: int, via: tuple[str, ...]) -> None:
        """An unquoted here-document's parameter and arithmetic expansions, read as a double-quoted word's:
        a subscript, an offset, `$((x))` or `${!x}` evaluates arithmetic, where a value holding `a[$(cmd)]`
        runs cmd (`x='a[$(rm -rf ~)]'; cat <<E` with `$((x))` in the body: adv44). Its command
        substitutions were read already (the caller's)."""
        try:
            segs = body_expansions(body)
        except ShellSyntaxError as error:
            raise TooComplex(f"a here-document's expansion nobody can read for certain: {error}") from error
        if segs:
            word = self._resolve(Token("word", body, segs, quoted=True), split=False, here=True)
            for sub in word.subs:
                self._substitution(sub, depth, via)

    def _integer_value(self, depth: int, via: tuple[str, ...]) -> None:
        """A variable of the integer attribute was given a text nobody knows here, or one whose arithmetic
        runs a command: bash evaluates it as it assigns it, and a subscript in it runs (`a[$(rm -rf ~)]`):
        see _arithmetic."""
        self.integer_stored = False
        scripts, self.integer_scripts = self.integer_scripts or [_UNKNOWN_ARITHMETIC], _NO_ITEMS
        for script in scripts:
            self.analyze(script, depth=depth + 1, via=(*via, "declare"))

    def _integer_text(self, text: str) -> None:
        """``text`` is assigned to (or appended to) a variable of the integer attribute: the commands its
        arithmetic runs (see _arithmetic) are read at the end of the command (_integer_value)."""
        scripts = self._arithmetic(text)
        if scripts:
            if self.integer_scripts is _NO_ITEMS:
                self.integer_scripts = []
            self.integer_scripts.extend(scripts)
            self.integer_stored = True

    def _carry(self, name: str, text: str) -> None:
        """Name ``name`` (an unknown value) holds what substitution ``text`` prints (see carried)."""
        if "$(" in text or "`" in text:
            if self.carried is None:
                self.carried = {}
            self.carried[name] = text

    def _fed_text(self, text: str) -> None:
        """The command being read takes ``text`` on its input, when it holds a substitution (see feeding)."""
        if "$(" in text or "`" in text:
            self.feeding = text

    def _carry_any(self, name: str, texts: list[str]) -> None:
        """Name ``name`` holds any one of ``texts`` (a loop's list, an array's elements): the one naming
        files outside the tree when one does (`for f in $(ls) $(find ~)`), else the first substitution."""
        found = [t for t in texts if "$(" in t or "`" in t]
        if found:
            self._carry(name, next((t for t in found if not lists_tree(t)), found[0]))

    def _carry_printed(self, words: list[str]) -> None:
        """`printf -v NAME FORMAT ARGS...` (or `-vNAME`): NAME holds what the substitutions among FORMAT and
        ARGS print (see carried)."""
        for i, word in enumerate(words):
            if word == "--":
                return
            if word.startswith("-v"):
                named = word[2:] if len(word) > 2 else (words[i + 1] if i + 1 < len(words) else "")
                rest = words[i + 1 :] if len(word) > 2 else words[i + 2 :]
                if _IDENTIFIER.fullmatch(named):
                    self._carry_any(named, rest)  # the substitutions among them, not the format
                return
            if not word.startswith("-"):
                return

    def _carried_text(self, text: str) -> str | None:
        """The substitution parameter ``text`` (`x`, `a[@]`, `a[0]`, `x:-d`, `@`, `1`) carries, if any: not
        a length (`${#a[@]}`). An indirection (`${!v}`) carries what the name v holds names, when known
        (`v=x`), else any carried substitution naming files outside the tree (adv46b)."""
        carried = self.carried
        if carried is None or not text or text[0] == "#":
            return None
        if text[0] == "!":
            pointed = _PARAMETER_NAME.match(text)
            name = pointed.group(1) if pointed is not None else ""
            if not _IDENTIFIER.fullmatch(name) or pointed is None or pointed.end() != len(text):
                return None  # `${!a[@]}`, `${!p*}`: keys and names, not values
            value = self.env.get(name) if name not in self.vals.written else None
            if value is not None and _IDENTIFIER.fullmatch(value):
                return carried.get(value)
            return next((t for t in carried.values() if not lists_tree(t)), None)
        named = _PARAMETER_NAME.match(text)
        name = named.group(1) if named is not None else ""
        if name and (name in "@*" or name.isdigit()):
            name = "@"
        return carried.get(name)

    def _taint(self, name: str) -> None:
        """Variable ``name``'s value, when unknown here, may be a text an earlier command stored (see
        _arithmetic). Kept for the line (a later value known here is read as it is; an unknown one stays
        suspect, as another reading of the line may not have assigned it)."""
        if self.tainted is _NO_NAMES:
            self.tainted = set()
        self.tainted.add(name)
        if self.vals.attributes and "i" in self.vals.attributes.get(name, ()):
            self.integer_stored = True

    def _stored(self, name: str) -> bool:
        """Whether variable ``name``'s value, unknown here, may be a text an earlier command stored."""
        return name in self.tainted or name in self.globbed

    def _stored_value(self, text: str) -> bool:
        """Whether an assigned value ``text`` (as resolved: `$(CMD)`, `$x` where unknown) may hold a text
        an earlier command stored: a substitution not only counting (see _counts), or a tainted variable."""
        if ("$(" in text or "`" in text) and any(not _counts(script) for script in substitutions(text)):
            return True
        return bool(self.tainted or self.globbed) and any(
            self._stored(found.group(1)) for found in _SPLICED_NAME.finditer(text)
        )

    def spliced_data(self, text: str) -> bool:
        """Whether ``text`` (a word the outer shell completes with a value not known here, which a program
        reads as its own commands: sed's script, `s/v/$x/`) may hold a text an earlier command stored: a
        substitution printing more than a count or a fact of the system (`$(git describe)`: a tag name may
        be `v/;erm${IFS}-rf${IFS}~;#`; `$(date +%F)`, `$(nproc)` are not: _counts, with no `/` or `#`
        of their own), a variable set from one or read (_stored), a function's argument that is one, or
        $PWD in a folder named with shell text."""
        if ("$(" in text or "`" in text) and any(
            not _counts(script) or "/" in script or "#" in script for script in substitutions(text)
        ):
            return True
        for found in _SPLICED_NAME.finditer(text):
            name = found.group(1)
            if self._stored(name) or name in self.spliced_args:
                return True
            if name in ("PWD", "OLDPWD") and self._odd_folder():
                return True
        return False

    def spliced_code(self, text: str) -> bool:
        """Whether ``text`` (a word the outer shell completes with a value not known here, which a shell
        then reads as commands: `sh -c "echo $x"`, `eval "ls $x"`) holds a substitution's output or a
        variable the line set (`read x`, `x=$(cmd)`, a loop's): its value, parsed, may hold `;CMD`. One
        the line did not set is the environment's, which the caller does not write."""
        if "`" in text or "$(" in text:
            return True
        return self._splices_a_value(text)

    def _splices_a_value(self, text: str, known: bool = False) -> bool:
        """Whether ``text`` expands a variable the line set to a value nobody knows here (see spliced_code);
        with ``known``, a variable whose value the line makes known is not one (its text is pasted)."""
        for found in _SPLICED_NAME.finditer(text):
            name = found.group(1)
            if known and self.env.get(name) is not None:
                continue
            if (
                name in self.vals.written
                or name in self.globbed
                or name in self.spliced_args
                or (self.positional is not None and not name.isalpha())
            ):
                return True
            if name in ("PWD", "OLDPWD") and self._odd_folder():
                return True  # `cd ';CMD;' && sh -c "ls $PWD"` (see _variable)
        return False

    def _separators(self) -> str:
        """The characters word splitting splits at: $IFS, or the default when it was never set or
        `unset IFS` removed it (bash then splits at blanks and newlines, as with the default; `$IFS`
        itself expands to nothing: `unset IFS; c="rm -rf $HOME"; $c` runs rm)."""
        separators = env_get(self.env, "IFS", _DEFAULT_IFS)
        if not separators and "IFS" in self.vals.unset:
            return _DEFAULT_IFS
        return separators

    def _variable(self, name: str, relative: bool = False) -> str | None:
        """The value of `$NAME` when the line makes it known. $PWD and $OLDPWD the line did not
        write are where `cd` left (only an absolute place, or with ``relative`` "." for the
        directory a command runs in: not for a value kept in a variable, which a later `cd`
        would move)."""
        if name in self.namerefs:
            return None
        value = self.env.get(name)
        if value is not None or name in self.vals.written or (self.namerefs and name in ("PWD", "OLDPWD")):
            return value
        if name == "IFS":
            return _DEFAULT_IFS
        if name == "PWD":
            if self.cwd is not None and self.cwd.startswith(("/", "~")):
                return self.cwd
            if self._odd_folder():
                # `mkdir ';CMD;' && cd ';CMD;' && sh -c "$PWD"`: as text its name matters, which "." is not
                # (a path relative to a start not known here: redt34)
                return None
            if relative and self.cwd != "$unknown":
                self.vals.here = True
                return "."
            return None
        if name == "OLDPWD" and self.vals.oldpwd is not None and self.vals.oldpwd.startswith(("/", "~")):
            return self.vals.oldpwd if self.cwd == self.vals.oldpwd_at else None  # not after a popd
        return None

    def _odd_folder(self) -> bool:
        """Whether the line moved to a folder (relative to where it started) whose name holds shell text."""
        cwd = self.cwd
        # (a glob: `cd ./*` moves to a folder of any name an earlier command made; redt35)
        return cwd is not None and (_SHELL_TEXT.search(cwd) is not None or _GLOB.search(cwd) is not None)

    def _elements(self, name: str) -> list[str] | None:
        """The elements of array NAME, when the line made them all known (and they are still its)."""
        elements = self.vals.arrays.get(name)
        if elements is None or name in self.namerefs or (elements[0] if elements else "") != self.env.get(name):
            return None
        return elements

    def _kept_pwd(self, head: str) -> str | None:
        """$PWD (or `$(pwd)`) starting a value kept in a variable (`p=$PWD/policies`, `HOME=$PWD/x`,
        `export d=$(pwd)`) where the line's folder is relative to where it started: "." for that
        folder. A relative value kept so is dropped when the line moves (see _drop_relative), so
        `> $p/deny.yaml` is judged where $PWD was read (found by adv27: it was an unknown prefix)."""
        if _KEPT_HEAD.fullmatch(head) is None or self.cwd == "$unknown" or "PWD" in self.namerefs:
            return None
        if "PWD" in self.vals.written or (self.namerefs and "OLDPWD" in self.namerefs):
            return None
        return "."

    def _drop_relative(self, before: str | None = "$unknown") -> None:
        """The line moved from ``before``: values kept relative to where it was ("." and "./x")
        are rewritten relative to where it is when both places are relative to where the line
        started (`p=$PWD; cd sub` leaves p at ".."), else not known."""
        if len(self.env) <= 1:
            return
        after = self.cwd
        movable = before is None or not before.startswith(("/", "~", "$"))
        movable = movable and (after is None or not after.startswith(("/", "~", "$")))
        for name, value in list(self.env.items()):
            if not (value in (".", "..") or value.startswith(("./", "../"))):
                continue
            if movable:
                moved = posixpath.relpath(posixpath.join(before or ".", value), after or ".")
                self.env[name] = moved if moved.startswith(".") else "./" + moved
            else:
                del self.env[name]

    def _element(self, name: str, subscript: str | None) -> str | None:
        """`$NAME`, `${NAME[N]}`, `${NAME[@]}` (its elements joined) when known."""
        if subscript is None:
            return self._variable(name)
        index = subscript[1:-1].strip()
        if index in ("@", "*"):
            elements = self._elements(name)
            if elements is None:
                value = self._variable(name)
                return None if value is None or name in self.vals.arrays else value
            return " ".join(elements)
        if not re.fullmatch(r"-?[0-9]+", index):
            return None
        number = int(index)
        elements = self._elements(name)
        if elements is None:
            return self._variable(name) if number == 0 and name not in self.vals.arrays else None
        if number < -len(elements):
            return None  # bad array subscript
        return elements[number] if number < len(elements) else ""

    def _parameter(self, text: str, quoted: bool = False, subs: list[str] | None = None, depth: int = 0) -> str | None:
        """The value of `${TEXT}` with an operator, when the line makes it knowable: defaults
        (`${x:-w}`, `${x=w}`, `${x:+w}` ...), indirection (`${!x}`), lengths, substrings, pattern
        removal and substitution, case changes, `@Q` `@E` `@P` `@U` `@L`, array elements. A
        variable the line did not set may be unset: a default's word is one more reading of it
        (see _choose). Anything not certain is None (known only at run time)."""
        if depth > MAX_DEPTH:
            return None
        length = text.startswith("#") and len(text) > 1
        indirect = text.startswith("!")
        operand = _OPERAND.match(text, 1 if length or indirect else 0)
        if operand is None:
            return None
        name, subscript = operand.group(1), operand.group(2)
        rest = text[operand.end() :]
        if indirect:
            if length or subscript in ("[@]", "[*]") or rest in ("*", "@"):
                return None  # `${!a[@]}` (keys), `${!prefix*}` (names)
            target = self._element(name, subscript)
            if target is not None and "[" in target and subs is not None:
                subs.extend(self._arithmetic(target))  # `x='a[$(cmd)]'; : ${!x}` runs cmd
            elif target is None and subs is not None and self._stored(name):
                subs.append(_UNKNOWN_ARITHMETIC)  # `x=$(readlink l); echo ${!x}`: a stored name's subscript (redt35)
            if target is None or not _INDIRECT.fullmatch(target):
                return None
            return self._parameter(target + rest, quoted, subs, depth + 1)
        value = self._element(name, subscript)
        if (length or (rest and not _DEFAULT.match(rest))) and (
            not _NAME_OR_DIGIT.fullmatch(name) or subscript in ("[@]", "[*]")
        ):
            return None  # `${@:1:1}`, `${a[@]%x}`, `${#@}`: per argument or element, not on one text
        if length:
            if rest:
                return None
            if subscript in ("[@]", "[*]"):
                elements = self._elements(name)
                return None if elements is None else str(len(elements))
            return None if value is None or "~" in value or not value.isascii() else str(len(value))
        if not rest:
            return value
        default = _DEFAULT.match(rest)
        if default is not None:
            colon, op = default.groups()
            return self._default(name, subscript, value, colon, op, rest[default.end() :], quoted)
        if rest == "@P" and subs is not None and name in self.namerefs and not subscript:
            # (adv38) `declare -n r=x; echo ${r@P}`: the prompt expansion of the target's value; a target not known
            # here may hold any text (asks)
            target = self._referent(name)
            value = self.env.get(target) if target else None
            if value is None:
                subs.append(_UNKNOWN_ARITHMETIC)
                return None
        if rest == "@P" and value is None and subs is not None and self._stored(name):
            subs.append(_UNKNOWN_ARITHMETIC)  # `x=$(readlink l); echo ${x@P}`: a stored text's `$(...)` runs (redt35)
        if rest == "@P" and value is not None:
            # prompt expansion runs the value's substitutions (`x='$(cmd)'; echo "${x@P}"` runs cmd), those its
            # escapes spell too (`x='\\140cmd\\140'`: unseen50)
            if subs is not None:
                subs.extend(_prompt_substitutions(value))
            if "\\" in value or '"' in value or "!" in value:
                return None  # prompt escapes (`\w` is the directory), `!` the history number
            return self._word_value(value, True)
        if value is None or "~" in value or not value.isascii() or len(value) > values.MAX_VALUE:
            return None  # `~` stands for a home whose text is not known here
        if rest[0] == ":":
            bounds = _BOUNDS.fullmatch(rest)
            if bounds is None:
                return None
            count = None if bounds.group(2) is None else int(bounds.group(2))
            return values.substring(value, int(bounds.group(1)), count)
        if rest in ("^", "^^", ",", ",,", "@U", "@u", "@L"):
            return values.case_changed(value, rest)
        if rest == "@Q":
            return values.quoted(value)
        if rest == "@E":
            return decode_ansi_c(value).split("\0", 1)[0]
        if rest[0] in "#%":
            op = rest[:2] if rest[:2] in ("##", "%%") else rest[0]
            pattern = self._pattern(rest[len(op) :])
            return None if pattern is None else values.remove(value, pattern, op)
        if rest[0] == "/":
            return self._substituted(value, rest, quoted)
        return None

    def _derived(self, text: str) -> bool:
        """(stop 57, adv57) Whether `${TEXT}`, whose value is not known here, is one the line computes from a text it
        knows or chose: an operator that transforms (`%`, `#`, `/`, case, substring, an element) a value the line set
        (`x=~/notes.txt.bak; rm -f ${x%.*}`: the `~` stands for a home whose text is not known, so it is not worked
        out), a positional parameter the line gave, or the places HOME, PWD and OLDPWD (`rm -f "${PWD%/*}/notes.txt"`
        is the user's note above the tree); or `$_`, BASH_REMATCH, OPTARG and DIRSTACK, what the line's earlier words
        put there (`ls ~/notes.txt; rm -f "$_"`). Such a word is a path computed from the line (a `$(…)` marker: paths
        read it as `computed_source`, and delete_computed_path asks for a delete of it), not the environment's unknown
        variable a bare `$F` is (`rm -f "$TMPFILE"` stays allowed), nor a default's readings (`${D:?}`, `${x:-y}`)."""
        operand = _OPERAND.match(text, 1 if text[:1] == "!" else 0)
        if operand is None or text[:1] == "#":
            return False  # a length is a number
        name, rest = operand.group(1), text[operand.end() :]
        if name in _LINE_DERIVED:
            return True
        if (not rest and operand.group(2) in (None, "[@]", "[*]")) or _DEFAULT.match(rest) is not None:
            # (CI of 692ffff7) `"${a[@]}"` whole: its elements are read where they stand (xf48a's globs of names
            # starting with `-`, judged where find reads them)
            return False
        if name in _PLACE_VARIABLES or name in self.env or name in self.vals.arrays or name in self.vals.written:
            return True
        return name.isdigit() and self.positional is not None

    def _prompt_scripts(self, operand: str) -> list[str]:
        """The scripts `${OPERAND@P}` runs when OPERAND is positional parameters or an array's elements (a
        scalar's value is _parameter's): prompt expansion runs the `$(...)` and backquotes of each value
        (`set -- '$(CMD)'; echo ${1@P}`, `a=('$(CMD)'); echo ${a[@]@P}` run CMD: fresh38a). Values the line
        does not make known are a command nobody reads here."""
        found = _OPERAND.fullmatch(operand)
        if found is None:
            return [_UNKNOWN_ARITHMETIC]
        name, subscript = found.group(1), found.group(2)
        texts: list[str] | None
        if name in ("@", "*") or name.isdigit():
            if name == "0":
                return []  # the shell's name
            if self.positional is None:
                texts = None
            elif name in ("@", "*"):
                texts = list(self.positional)
            else:
                index = int(name)
                texts = self.positional[index - 1 : index]
        elif subscript in ("[@]", "[*]"):
            texts = self._elements(name)
        else:
            return []
        if texts is None:
            return [_UNKNOWN_ARITHMETIC]
        return [script for text in texts for script in _prompt_substitutions(text)]

    def _default(
        self, name: str, subscript: str | None, value: str | None, colon: str, op: str, word: str, quoted: bool
    ) -> str | None:
        """`${x:-w}`, `${x-w}`, `${x:=w}`, `${x=w}`, `${x:+w}`, `${x+w}`, `${x:?}`, `${x?}`."""
        # Not set on the line: set to a value known only at run time (the first reading), or unset.
        # (`${x:?}` has no unset reading: the shell stops there.)
        if (
            value is None
            and subscript is None
            and op != "?"
            and name not in self.vals.assumed
            and _NAME_OR_DIGIT.fullmatch(name)
        ):
            if op in "-=" and not self._inherited(name):
                # A lowercase name the line never wrote holds no value the caller chose (the local
                # runtime passes an allow list of uppercase names on, handlers/_env.py; another's is the
                # user's): a default's value is its word (`${x:-ls} -la` runs ls, adv33). Nothing is
                # kept of it: `${x+/}` later still reads x both ways (a container's `http_proxy`).
                result = self._word_value(word, quoted)
                if op == "=":
                    self._assign(name, result)
                    result = self._variable(name)
                return result
            if self._choose(2):
                value = ""
                self.env[name] = ""
                self.vals.unset.add(name)
            else:
                self.vals.assumed.add(name)  # this reading takes it for set: every use of it alike
        if value is None:
            return self._word_value(word, quoted) if op == "+" else None
        is_set = value != "" or (not colon and name not in self.vals.unset)
        if op == "+":
            return self._word_value(word, quoted) if is_set else ""
        if is_set:
            return value
        if op == "?":
            return None  # the shell stops with an error: no value
        result = self._word_value(word, quoted)
        if op == "=":
            if subscript is not None:
                self._drop(name)
            else:
                self._assign(name, result)
                result = self._variable(name)  # as its attributes store it (`declare -i x; ${x:=1-1}` is 0)
        return result

    def _empty_in_option(self, name: str, raw: str) -> bool:
        """(fresh41) Whether this reading takes variable ``name``, known only at run time, as empty in an
        option's name spelled with it (`find ~ -${t}delete`, `find . -e${q}xec rm -rf ~ {} +`, `-ok$x`): an
        unset variable is one value it may have, and the program then reads `-delete`, `-exec`. The first
        reading keeps it unknown; another takes it empty, every use of it on the line alike (see _default).
        Only a word of option-name letters and expansions, no value (`-o$dir/x`, `--out=$f` are not)."""
        if (
            _OPTION_NAME_WORD.fullmatch(raw) is None
            or (_NAME_OR_DIGIT.fullmatch(name) is None and _POSITIONAL_NAME.fullmatch(name) is None)
            or name == "0"
            or name in self.namerefs
            or name in self.vals.assumed
        ):
            return False
        return self._read_empty(name)

    def _read_empty(self, name: str) -> bool:
        """Two readings of variable ``name``, known only at run time: this one takes it empty (unset: True), the
        other keeps it unknown (assumed, not asked again: False)."""
        if self._choose(2):
            self.env[name] = ""
            self.vals.unset.add(name)
            return True
        self.vals.assumed.add(name)
        return False

    def _empty_before_path(self, seg: Seg, token: Token) -> bool:
        """(unseen45) Whether this reading takes the variable ``seg`` expands, known only at run time, as empty where it
        begins a word and a path follows it (`cat "$p/../../../etc/shadow"`, `cat $x/etc/shadow`: dot-do/bashx's
        expectation). Unset, the word is the absolute path after it, which the first reading (the variable
        kept unknown) never classified. Another reading takes it empty, as _empty_in_option does."""
        head: list[Seg] = list(token.segs[:2])
        if len(head) < 2 or head[0] is not seg or head[1].kind != LIT or not head[1].text.startswith("/"):
            return False
        name = seg.text
        if (
            (_NAME_OR_DIGIT.fullmatch(name) is None and _POSITIONAL_NAME.fullmatch(name) is None)
            or name == "0"
            or name in self.namerefs
            or name in self.vals.assumed
        ):
            return False
        return self._read_empty(name)

    def _inherited(self, name: str) -> bool:
        """Whether variable ``name``, which the line has no value for, may hold one the caller chose:
        set by an earlier line of the shell, lost on this one (`read x`), or an uppercase name (one
        with a lowercase letter is the user's environment's at most: see _default)."""
        return (
            self.resumed is not None
            or self.children > 0
            or not any(c.islower() for c in name)
            or name in self.vals.written
            or name in self.env.lost
        )

    def _word_value(self, word: str, quoted: bool, subs: list[str] | None = None) -> str | None:
        """An operator's word (`w` in `${x:-w}`) as the shell expands it: one word, known text.
        Within double quotes it is read as double-quoted text (`"${x:-'a'}"` keeps the quotes)."""
        if not word:
            return ""
        if quoted and '"' in word:
            return None
        try:
            tokens = self._tokens('"' + word + '"' if quoted else word)
        except ShellSyntaxError:
            return None
        if len(tokens) != 1 or tokens[0].kind != "word":
            return None
        token = tokens[0]
        resolved = self._resolve(token, split=False)
        if subs is not None:
            subs.extend(resolved.subs)
        if resolved.dynamic or len(resolved.texts) != 1:
            return None
        text = resolved.texts[0]
        if not quoted and any(seg.quoted for seg in token.segs) and any(c in text for c in _DEFAULT_IFS):
            return None  # `${x:-"a b"}` unquoted: which blanks split the word is not kept here
        return text

    def _pattern(self, word: str) -> re.Pattern[str] | None:
        """A pattern word (`${x%PATTERN}`): quoted parts match themselves, unquoted ones are globs."""
        if not word:
            return values.glob_regex([])
        try:
            tokens = self._tokens(word)
        except ShellSyntaxError:
            return None
        if len(tokens) != 1 or tokens[0].kind != "word" or tokens[0].brace:
            return None
        parts: list[tuple[str, bool]] = []
        segs = tokens[0].segs or (Seg(LIT, tokens[0].value, tokens[0].quoted),)
        for seg in segs:
            if seg.kind == LIT:
                parts.append((seg.text, seg.quoted))
            elif seg.kind == VAR and _NAME_ONLY.fullmatch(seg.text):
                value = self._variable(seg.text)
                if value is None or "~" in value:
                    return None
                parts.append((value, seg.quoted))
            else:
                return None
        return values.glob_regex(parts)

    def _substituted(self, value: str, rest: str, quoted: bool) -> str | None:
        """`${x/p/r}`, `${x//p/r}`, `${x/#p/r}`, `${x/%p/r}`."""
        split = values.split_operation(rest)
        if split is None:
            return None
        mode, pattern_word, replacement_word = split
        if "&" in replacement_word:
            return None  # bash 5.2's patsub_replacement: & is the matched text
        pattern = self._pattern(pattern_word)
        replacement = self._word_value(replacement_word, quoted)
        if pattern is None or replacement is None:
            return None
        result = values.substitute(value, pattern, replacement, mode)
        # `shopt -s nocasematch` (an earlier line may have set it) makes the match ignore case.
        folded = re.compile(pattern.pattern, re.DOTALL | re.IGNORECASE)
        if result is None or values.substitute(value, folded, replacement, mode) != result:
            return None
        return result

    def _change_directory(self, argv: list[str], dynamic: list[bool]) -> None:
        """Follow `cd` so later relative paths on the line are judged where they land. `cd` sets
        $PWD and $OLDPWD (see _variable); a relative value kept in a variable stays where it was."""
        target = next((a for a in argv[1:] if a == "-" or not a.startswith("-")), "~")
        self.vals.here = False  # `cd "$PWD/x"` moves from where $PWD was read
        before = self.cwd
        self.cwd = self._moved_to(target, any(dynamic[1:]))
        self.vals.oldpwd, self.vals.oldpwd_at = before, self.cwd
        for name in ("PWD", "OLDPWD"):
            self.env.pop(name, None)
            self.vals.written.discard(name)
        relative = before is None or not before.startswith(("/", "~"))
        if relative and self.cwd is not None:
            self._drop_relative(before)

    def _moved_to(self, target: str, dynamic: bool) -> str | None:
        """The directory a `cd TARGET` (or `env -C TARGET`) moves to, from the current one."""
        if self.vals.here:
            if not dynamic and posixpath.normpath(target) == ".":
                # (stop 53) the folder is the shell's own (`make -C $(pwd)`, `git -C "$PWD" status`): no move, and
                # the words that took $PWD for "." are where the command runs (it read as one only the run knows,
                # and "." there as the engine's state folder: a hardline deny)
                return self.cwd
            # `env -C /tmp rm -rf "$PWD"`: the words took $PWD for "." where the shell is, not
            # where the wrapper goes: the command's place is not known here
            return "$unknown"
        if dynamic:
            # A fresh folder (`cd "$(mktemp -d)"`) holds nothing its members could replace.
            return "/tmp/mktemp.XXXXXXXXXX" if _FRESH_FOLDER.match(target) else "$unknown"
        if target == "-" or ("CDPATH" in self.env and not target.startswith(("/", "~", "./", "../"))):
            return "$unknown"  # the previous directory, or one CDPATH names
        if _GLOB.search(target) is not None:
            return "$unknown"  # (adv43b) `cd d*`: the folder a glob matches when it runs (was read as `d*`)
        target = self._through_link(target) if self.links else target
        if target.startswith(UNKNOWN_TARGET):
            return "$unknown"
        if target.startswith(("/", "~")):
            return target
        if self.cwd == "$unknown":
            return self.cwd
        # Relative to where the line started (`cd build && rm -rf *` is not the work tree's top).
        return posixpath.normpath(posixpath.join(self.cwd, target) if self.cwd is not None else target)

    def _forget(self, name: str, argv: list[str], stdin: tuple[str, bool, bool] | None = None) -> None:
        """`unset X`, `read X`, `mapfile X`, `printf -v X`, `getopts o X`, `for X in`: the variables
        such a builtin names get a new value. `unset X` empties X (`X=a; unset X; rm -rf "$X"/*`
        runs `rm -rf /*`); `read`/`mapfile` from a literal input (`read d <<< ~`), `printf -v` of
        known words, a loop's known words give known values; anything else is known only at run
        time. Every word that starts like a name is taken for one (stricter: an extra unknown
        variable), plus the builtins' default variables. A name known only at run time
        (`unset "$n"`) may be any variable: none is known afterwards."""
        words = argv[1:]
        if name == "unset" and self.vals.exported:
            self.vals.exported.difference_update(words)  # (rev57) an unset variable set again is not exported
        if name in ("for", "select"):
            self._drop(words[0])
            dynamic = any("$" in word or "`" in word for word in words)
            if dynamic and len(words) > 2 and words[1] == "in":
                self._carry_any(words[0], words[2:])  # `for f in $(find ~ -type f)`
            if dynamic and self._stored_value(" ".join(words[1:])):
                # `for t in $(git tag); do sed "s/v/$t/" f; done`: each a text an earlier command stored (see
                # _arithmetic, spliced_data; tail36)
                self._taint(words[0])
            loop = None if dynamic else self._written_values(name, words, None)
            if loop:
                self.vals.loops = True
                if not self.breaking and name == "for":
                    loop = loop[:1]  # after the loop: its last word
                for variable, item in loop[self._choose(len(loop))].items():
                    self._assign(variable, item if isinstance(item, str) else None)
            return
        if name == "let":
            for word in words:
                self._let(word)
            return
        if any("$" in word or "`" in word for word in words):
            home = self.env.get("HOME")
            self.env.clear()
            self.vals.arrays.clear()
            self.vals.written.update(("PWD", "OLDPWD", "IFS"))
            if home is not None:
                self.env["HOME"] = home
            for word in words:
                named = word[2:] if name == "printf" and word.startswith("-v") else word  # (`printf -vNAME`)
                if _IDENTIFIER.fullmatch(named):
                    # `printf -v x %s "$(readlink l)"`: the names it gives are set by the line (see spliced_code),
                    # to a value known only at run time (`printf -v PS4 %s "$(cat p)"; set -x`: adv44)
                    self.env.pop(named, None)
                    self.vals.written.add(named)
                    self._taint(named)
            if name == "printf":
                self._carry_printed(words)  # `printf -v x %s "$(find ~ -type f)"; rm $x` (adv46b)
            if words != ["$name"] and _names_unknown(name, words):  # (not the "any variable" of a reference)
                # `x=PS4; printf -v "$x" %s "$(cat p)"`: any variable, those the shell itself reads as code
                # too, which no line set before (adv44): known only at run time
                for special in _SHELL_CODE_VARIABLES:
                    self.env.pop(special, None)
            return
        known = self._written_values(name, words, stdin)
        if known and stdin is not None and stdin[2]:
            # `echo ~ | read d`: the last stage of a pipe runs in a subshell unless `lastpipe` is
            # set: the variables may keep their values
            known.append({variable: self.env.get(variable) for variable in known[0]})
        if name == "unset" and not any(w[:1] == "-" and ("f" in w or "n" in w) for w in words):
            for word in words:
                if word in self.vals.readonly:
                    continue  # unset fails: the value stays
                if _IDENTIFIER.fullmatch(word) and word not in self.namerefs:
                    self.env[word] = ""
                    self.vals.unset.add(word)
                    self.vals.arrays[word] = []
                    self.vals.written.add(word)
                elif _IDENTIFIER.match(word):
                    self._drop(word)
            return
        for word in words:
            self._drop(word)
        for default in _DEFAULT_VARIABLES.get(name, ()):
            self._drop(default)
        if name in _INPUT_READERS:
            # `read n < f`: the input's text, which an earlier command may have written (see _arithmetic)
            feeding = None if known else self.feeding
            if feeding is None and not known and stdin is not None and stdin[0]:
                # (stop 58, adv58) a text the line gave that is not split here (`IFS=: read a b <<< x:../notes.txt`,
                # `read a` of a backslash): a path the line computed, not the environment's unknown value
                feeding = "$(derived read)"
            for word in (*words, *_DEFAULT_VARIABLES.get(name, ())):
                if _IDENTIFIER.fullmatch(word):
                    self._taint(word)
                    if feeding is not None:
                        self._carry(word, feeding)  # `find ~ | while read -r f`: f is a name find lists
        if known:
            pick = self._choose(len(known))
            for variable, written in known[pick].items():
                if isinstance(written, list):
                    if variable in self.vals.attributes or variable in self.vals.readonly:
                        continue  # stays unknown
                    self.vals.arrays[variable] = written
                    self.env[variable] = written[0] if written else ""
                elif written is not None:
                    self._assign(variable, written)  # as its attributes store it (`declare -i d; read d`)

    def _let(self, expression: str) -> None:
        """`let x=1-1`, `(( x = n * 2 ))`: the variables it assigns (known when a plain
        `NAME=EXPR` of known values; else known only at run time)."""
        simple = _LET_ASSIGNMENT.fullmatch(expression)
        if simple is not None and "$" not in expression:
            value = arithmetic_value(simple.group(2), self.env)
            self._assign(simple.group(1), None if value is None else str(value))
            return
        before = expression.split("=", 1)[0]
        if "$" in before or "`" in before:
            self._forget("unset", ["unset", "$name"])  # `let "$v=1"`: any variable
            return
        for before, after in _ASSIGNED.findall(expression):
            self._drop(before or after)

    def _drop(self, word: str) -> None:
        """Variable ``word`` (`a[1]`: array a) gets a value known only at run time."""
        match = _IDENTIFIER.match(word)
        if match is not None:
            name = match.group()
            if name in self.namerefs:
                target = self._referent(name) if name in self.references else None
                if target:
                    self._drop(target)  # `declare -n r=d; read r`: d
                else:
                    self._forget("unset", ["unset", "$name"])  # what it refers to changes
            self.env.pop(name, None)
            self.vals.arrays.pop(name, None)
            self.vals.unset.discard(name)
            self.vals.assumed.discard(name)
            self.vals.written.add(name)

    def _written_values(
        self, name: str, words: list[str], given: tuple[str, bool, bool] | None
    ) -> list[dict[str, str | list[str] | None]] | None:
        """What `read`, `mapfile`, `printf -v` or a loop header give their variables, when known:
        one mapping per possible reading (a `read` from several lines may take any: in a loop it
        takes each). None when not known."""
        if name in ("for", "select"):
            if len(words) < 2 or words[1] != "in":
                if len(words) == 1 and self.positional is not None and name == "for":
                    items = self.positional
                else:
                    return None
            else:
                items = words[2:]
            items = list(dict.fromkeys(items[-1:] + items[:-1]))[:_MAX_LOOP_VALUES]
            if name == "select":
                items.append("")  # an answer that is no item's number
            # After a loop its variable holds the last word (an earlier one after a `break`).
            return [{words[0]: item} for item in items] or None
        if name == "printf":
            if len(words) < 3 or words[0] != "-v" or not _IDENTIFIER.fullmatch(words[1]) or "q" in words[2]:
                return None
            printed = printed_text("printf", words[2:], self.posix)
            return None if printed is None else [{words[1]: printed}]
        if name not in ("read", "mapfile", "readarray"):
            return None
        names, raw, array, descriptor = self._read_options(words) if name == "read" else ([], False, None, False)
        stdin = self.descriptors if descriptor else (None if given is None else given[0])
        if stdin is None or stdin is _UNKNOWN_INPUT:
            return None
        lines = stdin.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if name != "read":
            if any(w != "-t" for w in words[:-1]) or (words and words[-1].startswith("-") and words[-1] != "-t"):
                return None
            target = words[-1] if words and words[-1] != "-t" else "MAPFILE"
            if not _IDENTIFIER.fullmatch(target):
                return None
            return [{target: lines if "-t" in words else [line + "\n" for line in lines]}]
        if names is None:
            return None
        ifs = self._separators() if "IFS" not in self.vals.written or "IFS" in self.env else None
        out: list[dict[str, str | list[str] | None]] = []
        for line in (lines or [""])[:_MAX_LOOP_VALUES]:
            if (not raw and "\\" in line) or ifs is None:
                return None
            if array is not None:
                fields = values.read_fields(line, len(line) + 1, ifs)
                if fields is None:
                    return None
                out.append({array: [f for f in fields if f]})
            elif not names:
                out.append({"REPLY": line})
            else:
                fields = values.read_fields(line, len(names), ifs)
                if fields is None:
                    return None
                out.append(dict(zip(names, fields, strict=True)))
        if not lines:
            out.append({n: "" for n in (names or [array or "REPLY"])})  # no line: the names are emptied
        elif given is not None and given[1]:
            # a loop's last `read`, at the end of its input, empties them too; the loop's body
            # never sees that (`rm -f ""` reads as the working directory): known at run time
            out.append({n: None for n in (names or [array or "REPLY"])})
        return out

    @staticmethod
    def _read_options(words: list[str]) -> tuple[list[str] | None, bool, str | None, bool]:
        """`read`'s names, whether -r is given, -a's array and whether -u names a descriptor;
        names None when an option makes the value unknowable here (-d, -n, -N, -t: another
        delimiter, a count, a time limit)."""
        raw = False
        descriptor = False
        array: str | None = None
        i = 0
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            word = words[i]
            i += 1
            if word == "--":
                break
            for at, flag in enumerate(word[1:], start=1):
                if flag == "r":
                    raw = True
                elif flag in "es":
                    continue
                elif flag in "aipu":
                    argument = word[at + 1 :] or (words[i] if i < len(words) else "")
                    if not word[at + 1 :]:
                        i += 1
                    if flag == "a":
                        array = argument
                    descriptor = descriptor or flag == "u"
                    break
                else:
                    return None, raw, None, descriptor
        names = words[i:]
        if not all(_IDENTIFIER.fullmatch(n) for n in names) or (array is not None and not _IDENTIFIER.fullmatch(array)):
            return None, raw, None, descriptor
        return names, raw, array, descriptor

    def _localize(self, argv: list[str]) -> None:
        """`local x`, `declare x` in a function body (not `declare -g`): x is the call's own."""
        if any(w[:1] == "-" and "g" in w for w in argv[1:]):
            return
        for word in argv[1:]:
            match = _IDENTIFIER.match(word)
            if match is not None and word[:1] != "-":
                self.frames[-1].add(match.group())

    def _referent(self, name: str) -> str | None:
        """The variable a name reference stands for, through references to references ("" none
        yet, None unknown)."""
        for _ in range(MAX_DEPTH):
            target = self.references.get(name)
            if target is None or target == "" or target not in self.references:
                return target
            name = target
        return None

    def _dereference(self, name: str) -> str | None:
        """`$r` with `declare -n r=d`: d's value, when the line knows it."""
        target = self._referent(name)
        return self.env.get(target) if target else None

    def _assign_references(self) -> None:
        """`declare -n r=d; r=~`: what the line assigned to a reference is its target's value (the
        first assignment to a reference without one names its target). An unknown target may be
        any variable: every value the line knew is unknown after."""
        for name in [key for key in self.env if key in self.references]:
            value = self.env[name]
            del self.env[name]
            target = self._referent(name)
            if target is None:
                self.env.clear()
                return
            if target == "":
                self.references[name] = _referent_name(value)
            else:
                self.env[target] = value

    def _forget_references(self, argv: list[str]) -> None:
        """`read r`, `unset r` with r a reference: its target's value is unknown after."""
        for word in argv[1:]:
            match = _IDENTIFIER.match(word)
            if match is not None and match.group() in self.references:
                target = self._referent(match.group())
                if target is None:
                    self.env.clear()
                    return
                self.env.pop(target, None)

    def _declare(self, argv: list[str], dynamic: list[bool]) -> None:
        """`export NAME=VALUE`: the variable is set for the rest of the line. A name reference
        (`declare -n r=x`) stands for another variable: known only at run time here. Attributes
        change what later assignments store (`-i`: the arithmetic's value, `-l`/`-u`: the case);
        `readonly` (`-r`) ones keep their value; `local NAME` is a new, unset variable."""
        flags: set[str] = set()
        removed: set[str] = set()
        for word in argv[1:]:
            if len(word) > 1 and word[0] in "-+" and not word.startswith("--"):
                (flags if word[0] == "-" else removed).update(word[1:])
        if argv[0] == "readonly":
            flags.add("r")
        if flags & {"f", "F", "p"}:
            return  # functions, or printing: no variable changes
        # (stop 57) `export -n X`, `declare +x X` take the export away; `export`'s -n is no name reference
        export = argv[0] == "export"
        unexported = (export and "n" in flags) or "x" in removed
        # (rev57) readonly takes no -x, and `local` outside a function fails: neither exports
        exported = (
            not unexported
            and (export or "x" in flags)
            and argv[0] != "readonly"
            and (argv[0] != "local" or bool(self.frames))
        )
        nameref = "n" in flags and not export
        for word, is_dynamic in zip(argv[1:], dynamic[1:], strict=False):
            if len(word) > 1 and word[0] in "-+" and not word.startswith("--"):
                continue
            if nameref and _IDENTIFIER.match(word):
                name = _IDENTIFIER.match(word)
                if name is not None:
                    self.namerefs.add(name.group())
                    self.env.pop(name.group(), None)
                    target = word[name.end() + 1 :] if word[name.end() : name.end() + 1] == "=" else ""
                    if self.references is _NO_ENTRIES:
                        self.references = {}
                    self.references[name.group()] = None if is_dynamic else _referent_name(target)
                continue
            match = ASSIGNMENT.match(word) or _APPEND.match(word)
            named = match.group(1) if match is not None else (word if _IDENTIFIER.fullmatch(word) else None)
            if named is None:
                if "$" in word or "`" in word:
                    self._forget("unset", ["unset", word])  # `declare "$n=…"`: any variable
                    if "=" in word:
                        self._any_variable()
                continue
            if exported:
                self.vals.exported.add(named)
            elif unexported:
                self.vals.exported.discard(named)
            attributes = (self.vals.attributes.get(named, frozenset()) | (flags & _ATTRIBUTES)) - removed
            if "l" in flags or "u" in flags:
                attributes -= {"u"} if "l" in flags else {"l"}
            if attributes:
                self.vals.attributes[named] = frozenset(attributes)
            else:
                self.vals.attributes.pop(named, None)
            if match is None:
                if argv[0] == "local" and named not in self.vals.readonly:
                    self.env[named] = ""
                    self.vals.unset.add(named)
                    self.vals.written.add(named)
            else:
                appended = match.re is _APPEND
                known = self.env.get(named) if appended else ""
                value = None if is_dynamic or known is None else known + word[match.end() :]
                if value is None and not is_dynamic and "i" in attributes:
                    self._integer_text(word[match.end() :])  # `declare -i n; declare n+='a[$(cmd)]'` (adv44)
                self._assign(named, value, appended=appended)
                if is_dynamic:
                    self._carry(named, word[match.end() :])
                if is_dynamic and self._stored_value(word[match.end() :]):
                    self._taint(named)  # `declare x=$(readlink l)`, `local`, `export` (see _arithmetic)
            if "r" in flags and "r" not in removed:
                self.vals.readonly.add(named)
        if self.references:
            self._assign_references()

    def _assign(self, name: str, value: str | None, appended: bool = False) -> None:
        """NAME=VALUE (None: a value known only at run time), as its attributes store it."""
        if name in self.vals.readonly:
            return  # the assignment fails
        if name in self.namerefs and (name not in self.references or self._referent(name) is None):
            # `declare -n r=$x; r=/`: some variable changes (a known target is assigned through
            # the reference: see _assign_references)
            self._forget("unset", ["unset", "$name"])
        elif value is None and name in self.namerefs:
            target = self._referent(name)
            if target:
                self.env.pop(target, None)  # `declare -n r=PS4; r=$(cat p)`: the target's value is unknown (adv44)
        attributes = self.vals.attributes.get(name) if self.vals.attributes else None
        if attributes and value is not None:
            if "i" in attributes:
                # `declare -i y; y=n` with n read from a file (redt36), `y='a[$(cmd)]'`, `y=x` with x holding it
                self._integer_text(value)
                number = None if appended else arithmetic_value(value, self.env)
                value = None if number is None else str(number)
            elif not value.isascii():
                value = None
            elif "l" in attributes:
                value = value.lower()
            elif "u" in attributes:
                value = value.upper()
        self.vals.unset.discard(name)
        self.vals.assumed.discard(name)
        self.vals.written.add(name)
        if EXPORT_ALL in self.vals.exported:
            self.vals.exported.add(name)  # (stop 57) `set -a` is on
        if value is None:
            self.env.pop(name, None)
            self.vals.arrays.pop(name, None)
            return
        self.env[name] = value
        elements = self.vals.arrays.get(name)
        if elements:
            self.vals.arrays[name] = [value, *elements[1:]]

    def _assign_element(self, name: str, index: str, value: str | None) -> None:
        """`a[N]=VALUE`: one element of an array (the array is unknown when N is not a literal
        number next to its known elements: arrays may have gaps)."""
        arrays = self.vals.arrays
        elements = self._elements(name) if name in arrays else ([self.env[name]] if name in self.env else None)
        number = int(index) if re.fullmatch(r"-?[0-9]+", index.strip()) else None
        fixed = name in self.vals.attributes or name in self.vals.readonly
        if elements is None or number is None or value is None or fixed:
            self._drop(name)
            return
        if number < 0:
            number += len(elements)
        if not 0 <= number <= len(elements):
            self._drop(name)
            return
        elements = [*elements[:number], value, *elements[number + 1 :]]
        self.vals.arrays[name] = elements
        self.env[name] = elements[0]
        self.vals.unset.discard(name)
        self.vals.written.add(name)

    def _assign_arrays(self, arrays: list[tuple[str, list[Token] | None]], depth: int, via: tuple[str, ...]) -> None:
        """`a=(x ~)`, `a+=(y)`: the elements when every one is a known word (no glob to expand).
        A `[KEY]=value` element's KEY is arithmetic (`a=([$x]=1)`, `a=(['$(cmd)']=1)` run cmd)."""
        for target, tokens in arrays:
            name = target.rstrip("+=")
            elements: list[str] | None = []
            keys = tokens is not None and any(t.value.startswith("[") for t in tokens)
            for token in tokens or () if keys else ():
                keyed = _SUBSCRIPTED.match("_" + " ".join(self._resolve(token).texts))
                for script in self._arithmetic(keyed.group(1)) if keyed is not None else ():
                    self.analyze(script, depth=depth + 1, via=(*via, "let"))
            integer = "i" in self.vals.attributes.get(name, ())
            words = [] if keys else [self._resolve(token) for token in tokens or ()]
            dashed = False
            if self.dash_names is not None and words and not any(word.dynamic for word in words):
                # (xf48a) bash globs the elements where the array is assigned: `a=(-del*)` with a file `-delete`
                # there holds `-delete`, an option to `find . "${a[@]}"`. The names starting with `-` a glob matches
                # are known elements (before it, as in a command's words); the glob stands for the other names
                texts = [text for word in words for text in word.texts]
                if self._dash_globbed(_glob_words(tokens or [], words), texts, [False] * len(texts), 0):
                    words, dashed = [_Word(texts, False, False, [])], True
                    self._taint(name)  # (an element of any text, as below)
            for resolved in words:
                if integer:
                    self._integer_text(" ".join(resolved.texts))  # `declare -ai a; a=('a[$(cmd)]')` (adv44)
                if resolved.dynamic or (not dashed and any(c in t for t in resolved.texts for c in "*?[")):
                    if resolved.dynamic:
                        self._carry_any(name, resolved.texts)  # `a=($(find ~ -type f))`
                    if not resolved.dynamic or self._stored_value(" ".join(resolved.texts)):
                        self._taint(name)  # `a=($(readlink l))`, `a=(*)`: an element of any text (see _arithmetic)
                    elements = None
                    break
                assert elements is not None
                elements.extend(resolved.texts)
            if tokens is None or keys or elements is None or "[" in target or name in self.vals.attributes:
                self._drop(name)
                continue
            if target.endswith("+="):
                before = self._elements(name) if name in self.vals.arrays else None
                if before is None and name in self.env and name not in self.vals.arrays:
                    before = [self.env[name]] if self.env[name] or name not in self.vals.unset else []
                if before is None and name not in self.vals.written and not self.env.lost:
                    # (stop 58) one the line never set: the environment's, unset in most (`x+=(~/notes.txt); rm -f
                    # ${x[@]}` was dropped, read as the user's value, and allowed); one it holds is the user's
                    before = []
                if before is None and not dashed:
                    self._drop(name)
                    continue
                # (xf48a: `a+=(-del*)` onto an unknown value holds at least the names its glob put)
                elements = (before or []) + elements
            if name in self.vals.readonly:
                continue
            self.vals.arrays[name] = elements
            self.env[name] = elements[0] if elements else ""
            self.vals.unset.discard(name)
            self.vals.written.add(name)

    # -- files written and read on the same line ------------------------------------

    def _file_key(self, word: str) -> str:
        return join_path(self.cwd, file_operand(word))

    def _on_disk_kind(self, key: str) -> str:
        if self.dash_names is None or key.startswith("$"):
            return ""  # (the disk is read only in a check: a table's examples read no folder)
        self.read_disk = True  # (a kept parse would not see the folder made later)
        try:
            base = self.session.workdir if self.session is not None else os.getcwd()
            path = os.path.join(base, os.path.expanduser(key))
            return "folder" if os.path.isdir(path) else "file" if os.path.isfile(path) else ""
        except (OSError, ValueError):
            return ""

    def _workdir_key(self, key: str) -> str | None:
        if self.session is None:
            return None
        base = posixpath.normpath(self.session.workdir)
        if key == "~" or key.startswith("~/"):
            key = posixpath.expanduser("~") + key[1:]
        elif key.startswith("../") or key == "..":
            key = posixpath.join(base, key)
        elif not key.startswith("/"):
            return None
        key = posixpath.normpath(key)
        if key != base and not key.startswith(base + "/"):
            # (rev53b) the workdir is a real path: `~/p/x` with ~/p a link to it names the same file
            key = os.path.realpath(key)
        if key == base:
            return "."
        return key[len(base) + 1 :] if key.startswith(base + "/") else None

    def _project_text(self, word: str) -> str | None:
        """What the file ``word`` holds: as the line or the session wrote it, else on disk (the start
        of it: a project's go.mod, read for the program `go build` names after it); None: unknown."""
        text = self._content(word)
        if text is not None:
            return text
        key = self._file_key(word)
        if self.session is None or key.startswith(("$", "~")):
            return None
        self.read_disk = self.read_disk or self.session.disk  # (perf50) a check's kept parse would not see it change
        try:
            with open(posixpath.join(self.session.workdir, key), "rb") as handle:
                return handle.read(_PROJECT_TEXT_BYTES).decode("utf-8", "replace")
        except (OSError, ValueError):
            return None

    def _folder_name(self) -> str:
        """The name of the folder the command runs in ("" when not known here)."""
        if self.cwd is None or not self.cwd.startswith("/"):
            if self.session is None or (self.cwd or "").startswith(("$", "~")):
                return ""
            return posixpath.basename(posixpath.normpath(posixpath.join(self.session.workdir, self.cwd or ".")))
        return posixpath.basename(posixpath.normpath(self.cwd))

    def _settings_text(self, op: str, word: str, output: str) -> str:
        """(cfg49) The text a settings write leaves to read: ``output`` itself, or appended (`>>`) after the file's
        last line when that has no newline (`printf 'script-shell=' > .npmrc` then `>> .npmrc` of `./x.sh` makes one
        `script-shell=./x.sh`); a file not read for certain gives a line no key matches, read as more than settings."""
        if op != ">>":
            return output
        if output.lstrip("\n")[:1] in (" ", "\t"):
            # (adv49b) an indented line continues the file's last entry (an ini's value, pip's configparser even past
            # blank lines; a YAML mapping's): `echo '  x = http://h/simple' >> pip.conf` after `extra-index-url = URL`
            # added the index (pip splits the value at blanks). Not read for certain: more than settings
            return "\x00\n" + output
        found = self._file_text(word)  # as the line or the session wrote it, else on disk
        key = self._file_key(word)
        if found is None and self.session is not None and not key.startswith(("$", "~", "/")):
            self.read_disk = self.read_disk or self.session.disk  # (perf50) a check's kept parse would not see it
            found = last_line(posixpath.join(self.session.workdir, key))
        elif found is None and self.session is None and self.line_ended is not None:
            # (fp49) without a session: the disk's file, read where the line's cd put it (absent, empty or ending
            # with a newline: the text starts a line of its own); the parse is then not kept
            self.read_disk = True
            if self.line_ended(self.cwd, word):
                return output
        if not isinstance(found, str):
            return "\x00\n" + output
        text = found
        return text.rsplit("\n", 1)[-1] + output

    def _content(self, word: str) -> str | None:
        key = self._file_key(word)
        entry = self.files.get(key)
        if entry is None and self.session is not None:
            found = self.session.read(key)
            return found if isinstance(found, str) else None
        return entry.content if entry is not None else None

    def _file_text(self, word: str) -> str | bool | None:
        """What the line or the session wrote to the file ``word`` names: its text, False when that is
        not known here, None when neither wrote it (see _content)."""
        key = self._file_key(word)
        entry = self.files.get(key)
        if entry is None:
            return self.session.read(key) if self.session is not None else None
        return False if entry.content is None else entry.content

    def opened_content(self, number: str) -> str | None:
        """What the file `exec N< F` opened on descriptor ``number`` holds, when the line or the session
        wrote it; ``number`` "" (known only at run time: `<&"$fd"`, `/dev/fd/$fd`): every such file's."""
        if number:
            key = self.exec_opened.get(number)
            return self._keyed_content(key) if key else None
        texts = [self._keyed_content(key) for key in self.exec_opened.values() if key]
        known = [text for text in texts if text is not None]
        return "\n".join(known) if known else None

    def _opened_unknown(self, number: str) -> bool:
        """Whether a file `exec N< F` (N ``number``, "": any) opened was written with a text not known here."""
        keys = [self.exec_opened.get(number, "")] if number else list(self.exec_opened.values())
        return any(key and (entry := self.files.get(key)) is not None and entry.content is None for key in keys)

    def _keyed_content(self, key: str) -> str | None:
        """What the line or the session wrote to the file of ``key`` (a _file_key), when known."""
        entry = self.files.get(key)
        if entry is None and self.session is not None:
            found = self.session.read(key)
            return found if isinstance(found, str) else None
        return entry.content if entry is not None else None

    def _folder_unknown(self) -> bool:
        return self.cwd == "$unknown"

    def _known(self, word: str) -> bool:
        """Whether the line or the session wrote ``word`` (or its text is to be judged)."""
        key = self._file_key(word)
        if key in self.files or (self.session is not None and self.session.read(key) is not None):
            return True
        # `files: ["*.py"]`: any written file the glob matches in the line's directory
        return (
            (self.session is not None or bool(self.files))
            and _GLOB.search(word) is not None
            and self._globbed_script(key) is not None
        )

    def _touched(self, word: str) -> bool:
        key = self._file_key(word)
        if key == ".":
            # (env44) the working directory itself (`XDG_CONFIG_HOME=. less`, `PHP_INI_SCAN_DIR=. php`):
            # every relative file the line wrote is in it (its keys have no `./`)
            if any(map(key_in_workdir, self.files)):
                return True
            return self.session is not None and bool(self.session.touched(key))
        inside = key.rstrip("/") + "/"
        if key in self.files or any(k.startswith(inside) for k in self.files):
            return True
        return self.session is not None and bool(self.session.touched(key))

    def _script(self, word: str) -> str | None:
        """The text of a file the line runs; a file written but unreadable is noted as unread."""
        return self._keyed_script(self._file_key(word), word)

    def _planted(self, word: str) -> str | None:
        """(unpack50) The text of the project's file ``word`` names exactly that a command runs, which neither the line
        nor the session wrote (it did not change since the session began: SessionView.read knows nothing of it), read
        from the disk as a check without a session reads it (SessionView.planted); a text too large to judge is
        unread. A glob, a name only the run knows or a folder only the run knows is not read here (_keyed_script)."""
        if self.session is None or self.cwd == "$unknown" or _GLOB.search(word) or "$" in word or "`" in word:
            return None
        key = self._file_key(word)
        if key in self.files:
            return None  # (the line's own text: read as written)
        found = self.session.planted(key)
        if found is False:
            self.unread.append(word)
            return None
        return found if isinstance(found, str) else None

    def _written_entry(self, key: str) -> _Written | None:
        """What the line wrote to the file of ``key``: its entry, or (xfail41b) a piece named from a prefix a
        splitter of the line wrote its outputs under (`split x.txt p; sh paa`), a text nobody knows here."""
        entry = self.files.get(key)
        if entry is None and self.prefixed:
            for prefix in self.prefixed:
                rest = key[len(prefix) :]
                if key.startswith(prefix) and rest and (prefix.endswith("/") or "/" not in rest):
                    return _Written(frozenset(), None)
        if entry is None and self.files and _copied_into(self.files, key):
            return _Written(frozenset(), None)
        return entry

    def _keyed_script(self, key: str, word: str) -> str | None:
        entry = self._written_entry(key)
        if entry is not None:
            if entry.content is None:
                self.unread.append(word)
            return entry.content
        if self.session is None:
            return self._globbed_script(key) if self.files and _GLOB.search(word) else None
        found = self.session.read(key)
        if found is False:
            self.unread.append(word)
        if found is None and ("$" in word or "`" in word):
            if self.files or self.session.files.files or self.session.disk:
                # `sh $(ls *.sh)`, `xargs sh` fed a listing: a script named only at run time, in a
                # session that wrote files it may name (fail closed: not judged, asked); (adv49b) without a
                # session every file of the tree is one the check reads (`bash $(cat list)`, list naming x.sh)
                self.unread.append(word)
            return None
        if found is None and _GLOB.search(word):
            return self._globbed_script(key)
        return found if isinstance(found, str) else None

    def _globbed_script(self, key: str) -> str | None:
        """`sh x.s?`, `sh [x].sh`, `sh ./*` (what `find . -exec sh {} ;` runs): the glob matched
        against the names in its folder (the line's and the session's files, and the folder on
        disk); the text of every match the line or the session wrote, joined."""
        if "**" in key:
            return self._deep_globbed_script(key)
        folder, pattern = posixpath.split(key)
        if not pattern or _GLOB.search(folder) or "$" in key:
            return None
        names = {posixpath.basename(k) for k in self.files if posixpath.dirname(k) == folder}
        if self.session is not None:
            names.update(self.session.names_in(folder))
        hidden = pattern.startswith(".")
        texts: list[str] = []
        for name in sorted(names)[:_MAX_GLOBBED]:
            if _GLOB.search(name) or (name.startswith(".") and not hidden) or not fnmatch.fnmatchcase(name, pattern):
                continue
            match = posixpath.join(folder, name)
            text = self._keyed_script(match, match)
            if text is not None:
                texts.append(text)
        return "\n".join(texts) if texts else None

    def _deep_globbed_script(self, key: str) -> str | None:
        """`files: ["**/*.py"]`, `["/**/site-packages/*.pth"]`: every file the line or the session
        wrote under the folder before `**` (any depth; `/`: anywhere) whose last path components
        match the rest, and the files of the folders under it on disk that changed since the
        session began (a bounded walk); their texts joined. Python imports packages (`pkg/__init__.py`,
        namespace folders) from its directory and runs the `.pth` files of every site-packages."""
        base, _, rest = key.partition("**")
        if "$" in key or "**" in rest or (base and not base.endswith("/")):
            return None
        parts = rest.strip("/").split("/")
        if not parts[-1]:
            return None
        base = base.rstrip("/") if base != "/" else "/"
        keys = [k for k in self.files if _under(k, base)]
        if self.session is not None:
            keys += self.session.keys_under(base, parts[-1])
        matched = sorted({k for k in keys if _tail_matches(k, parts)})
        texts: list[str] = []
        for name in matched[:_MAX_GLOBBED]:
            text = self._keyed_script(name, name)
            if text is not None:
                texts.append(text)
        return "\n".join(texts) if texts else None

    def _session_file(self, word: str) -> _Written | None:
        """A file the session wrote (or changed on disk since it began), as a line-written one."""
        assert self.session is not None
        key = self._file_key(word)
        found = self.session.read(key)
        if found is None:
            # `find . -name t -exec {} ;` runs `./**/t`: the written files the glob matches (fresh37b)
            globbed = self._globbed_script(key) if _GLOB.search(word) else None
            return None if globbed is None else _Written(frozenset(), globbed)
        return _Written(frozenset(), found if isinstance(found, str) else None)

    def _on_path(self, name: str, local: dict[str, str]) -> _Written | None:
        """`PATH=.:$PATH ls`: the file a PATH the line or its shell set finds for ``name`` may be
        one written before (`cp /bin/rm ./ls`), on the line, by the shell's earlier lines or in the
        session. A PATH known only at run time may find any written file of that name (unread)."""
        value = local.get("PATH", self.env.get("PATH"))
        if value is None:
            found = [entry for key, entry in self.files.items() if posixpath.basename(key) == name]
            if self.session is not None and name in self.session.files.names:
                found.append(_Written(frozenset(), None))
            return _Written(frozenset().union(*(e.writers for e in found)), None) if found else None
        for folder in value.split(":"):
            word = posixpath.join(folder or ".", name)
            entry = self.files.get(self._file_key(word))
            if entry is None and self.session is not None:
                entry = self._session_file(word)
            if entry is not None:
                return entry
        return None

    def _plugin_on_path(self, program: Program, argv: list[str], local: dict[str, str]) -> _Written | None:
        """`PATH=.:$PATH git x` runs `git-x` (kubectl-x, cargo-x ...): a program's verb it does not
        know is a plugin found through PATH (a run `as: file, language: plugin` gives the prefix).
        One the line, its shell or the session wrote is run as `./x` is (adv29)."""
        prefixes = [r.prepend for r in program.runs if r.language == "plugin" and r.prepend]
        if not prefixes:
            return None
        operands = parse_argv(program.grammar, argv).all_operands(argv)
        if not operands or "/" in operands[0]:
            return None
        for prefix in prefixes:
            found = self._on_path(prefix + operands[0], local)
            if found is not None:
                return found
        return None

    def _printed_files(self, command: Command) -> tuple[str | None, bool]:
        """What ``command`` prints of the files the line or the session wrote that it names (the
        files' text: a filter's output is judged as its input), and whether that is all it prints:
        not when a file cannot be read, or the program is not a plain copier of its input (`sed
        s/x// x.sh`, `awk 1 x.sh`: their output, read by the next stage, is not known)."""
        texts: list[str] = []
        exact = True
        for word, dynamic in zip(command.argv[1:], command.dynamic[1:], strict=False):
            if dynamic or not word or word.startswith("-"):
                continue
            key = self._file_key(word)
            entry = self.files.get(key)
            found: str | bool | None
            if entry is not None:
                found = entry.content if entry.content is not None else False
            elif self.session is not None:
                found = self.session.read(key)
            else:
                found = None
            if found is None:
                continue
            if isinstance(found, str):
                texts.append(found)
            else:
                exact = False
        if not texts or command.name in _NAME_PRINTERS:
            return None, exact and not texts
        plain = command.name == "cat" and not any(w.startswith("-") and w != "-" for w in command.argv[1:])
        return "\n".join(texts), exact and plain

    def _read_from(self, name: str, argv: list[str], redirects: list[tuple[str, str]]) -> frozenset[str]:
        """Writers of the files this command reads: for a script runner, only its script."""
        program = self.programs.get(name)
        script = _script_words(program, argv) if program is not None else None
        words = script if script is not None else argv[1:]
        words += [target for op, target in redirects if op in ("<", "<>")]
        writers: set[str] = set()
        for word in words:
            entry = self.files.get(self._file_key(word))
            if entry is not None:
                writers |= entry.writers
        return frozenset(writers)

    def _record_writes(
        self, last: Command, stages: list[Command], redirects: list[tuple[str, str]], stdin: str, output: str | None
    ) -> None:
        targets = [(t, op.endswith(">>"), output) for op, t in redirects if op in _WRITE_REDIRECTS]
        if output is not None and self.programs.package_sources:
            # (debt48) a package manager's configuration of settings only (no key naming a source, a credential
            # or a program), written whole with a text known here: not a sensitive file's write
            # (cfg49) named from where the line's `cd` put it (`cd ..; printf ... > .config/pip/pip.conf` is the
            # home's); appended (`>>`), its text joined to the file's last unended line
            settings = frozenset(
                t
                for op, t in redirects
                if op in (">", ">|", ">>")
                and self.cwd != "$unknown"
                and settings_named(self.programs.package_sources, t)
                and settings_write(self.programs.package_sources, self._file_key(t), self._settings_text(op, t, output))
            )
            if settings:
                last.settings_targets = settings
        if last.name == "tee":
            append = any(a in ("-a", "--append") for a in last.argv[1:])
            targets += [(a, append, stdin or None) for a in last.argv[1:] if not a.startswith("-")]
        targets += [(t, False, None) for t in download_targets(last.name, last.argv)]
        if last.name == "exec" and any(op == "<>" for op, _ in redirects):
            # `exec 3<>f.sh`: what later commands write through the descriptor (`echo CMD >&3`) is in it,
            # a text not followed here (`exec 3<>f.sh; echo CMD >&3; sh f.sh`)
            targets += [(t, True, None) for op, t in redirects if op == "<>"]
        if last.name == "dd":
            # `dd of=x.sh <<< TEXT`: the file holds its input (another source: unknown)
            source = any(a.startswith("if=") for a in last.argv[1:])
            targets += [(a[3:], False, None if source else stdin or None) for a in last.argv[1:] if a.startswith("of=")]
        if last.name in _COPIERS:
            targets += self._copies(last)
        elif last.name in _OTHER_COPIERS:
            targets += self._other_copies(last, stdin)
        if _may_write(last.program):
            targets += [(t, False, None) for t in _table_writes(last, self._project_text, self._folder_name)]
        if last.program is not None and last.program.pieces_prefix:
            # (xfail41b) `split x.txt p`, `csplit -f p x.txt 1`: pieces named p + a suffix (paa, p00 ...), each
            # remembered as a prefix (see _written_entry), since no one name is known here
            prefix = split_prefix(last)[1]
            if prefix:
                if self.prefixed is _NO_ITEMS:
                    self.prefixed = []
                self.prefixed.append(self._file_key(prefix))
        if last.name in _IN_PLACE:
            # `sed -i CMD x.sh`, `perl -pi -e CMD x.sh`: x.sh holds a text nobody computes here (fresh38b: a
            # later `sh x.sh` on the line or in the shell is not the text an earlier line wrote)
            edited = _edited_in_place(last)
            if edited:
                if self.edited is _NO_ITEMS:
                    self.edited = []
                self.edited.extend(self._file_key(t) for t in edited)
                targets += [(t, False, None) for t in edited]
        if not targets:
            return
        writers = frozenset(c.name or "$dynamic" for c in stages) | last.fed_by
        for target, append, data in targets:
            key = self._file_key(target)
            old = self.files.get(key)
            if append and old is not None:
                both = None if old.content is None or data is None else old.content + "\n" + data
                self.files[key] = _Written(writers | old.writers, both)
            elif append:
                # `echo x >> s.sh`: after what s.sh held, when the session knows it (its own write,
                # or a workdir file changed since it began); else the added text as before
                before = self._content(target) if self.session is not None else None
                both = data if before is None else None if data is None else before + "\n" + data
                self.files[key] = _Written(writers, both)
            else:
                self.files[key] = _Written(writers, data)

    def _other_copies(self, command: Command, stdin: str) -> list[tuple[str, bool, str | None]]:
        """(xfail41b) `git mv SRC DST` (mv's words after the verb), `cpio -p DIR` (each name its input lists,
        DIR/NAME, with the source's text; an input not known here: any file under DIR, see _written_entry): the
        copies of files the line or the session wrote."""
        argv = command.argv
        if command.name == "git":
            verb = next((i for i, w in enumerate(argv[1:], 1) if not w.startswith("-")), 0)
            if not verb or argv[verb] != "mv" or any(w == "-C" or w.startswith("--work-tree") for w in argv[1:verb]):
                return []
            words = [w for w in argv[verb + 1 :] if w not in ("-k", "-f", "-n", "-v")]
            # a file the line or the session wrote among the sources (else, as git's own, its text is the project's)
            if not any(self._file_text(w) is not None for w in words[:-1] if not w.startswith("-")):
                return []
            return self._copies(command, ["mv", *words])
        passing = [w for w in argv[1:] if w == "--pass-through" or (w[:1] == "-" and w[1:2] != "-" and "p" in w)]
        folders = [w for w in argv[1:] if not w.startswith("-")]
        if not passing or not folders:
            return []
        folder = folders[-1]
        if not stdin:
            # `find . | cpio -pdm d`: what it copies is known at run time only
            if self.prefixed is _NO_ITEMS:
                self.prefixed = []
            self.prefixed.append(self._file_key(folder).rstrip("/") + "/")
            return []
        names = [n for n in stdin.split("\n") if n.strip() and self._file_text(n) is not None][:64]
        return [(posixpath.join(folder, n.lstrip("/")), False, self._content(n)) for n in names]

    def _copies(self, command: Command, words_of: list[str] | None = None) -> list[tuple[str, bool, str | None]]:
        """`cp SRC DST`, `mv SRC... DIR/`, `install -t DIR SRC`: each file it writes, with the
        source's text when the line or the session knows it. ``words_of``: the copier's words, when not
        the command's (`git mv`)."""
        argv = command.argv if words_of is None else words_of
        name = command.name if words_of is None else words_of[0]
        # (debt42) its words as its grammar reads them (the Programs table: cp's -S SUFFIX, install's -m MODE take a
        # value, rsync's -t is --times); -t/--target-directory (the letter `t` where the grammar gives it a value)
        program = command.program if words_of is None else self.programs.get(name)
        grammar = _BARE_GRAMMAR if program is None else program.grammar
        parsed = parse_argv(grammar, argv)
        words = parsed.operands
        targets = parsed.values(_TARGET_OPTION) if grammar.short.get("t") == REQUIRED else []
        target = targets[-1] if targets else None
        if target is None:
            if len(words) < 2:
                return []
            *sources, dest = words
        else:
            sources, dest = words, target
        out: list[tuple[str, bool, str | None]] = []
        for source in sources:
            content = self._content(source)
            if name == "mv":
                if self.moved is _NO_ITEMS:
                    self.moved = []
                self.moved.append(self._file_key(source))
            base = posixpath.basename(source.rstrip("/"))
            if target is not None or len(sources) > 1 or dest.endswith("/"):
                out.append((posixpath.join(dest, base), False, content))
            else:  # DST may be a directory: both places are remembered
                out.append((dest, False, content))
                out.append((posixpath.join(dest, base), False, content))
        return out


def last_line(path: str) -> str | None:
    """(cfg49) The file's last line when no newline ends it ("" when one does, when it is empty, or there is no file);
    None when it cannot be read or that line is longer than is read. (debt50) Also evaluate._line_ended's reading."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - 4096))
            tail = handle.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
    except (OSError, ValueError):
        return None
    if "\n" not in tail and size > 4096:
        return None
    return tail.rsplit("\n", 1)[-1]


# A program's runs that name a file it writes (`as: path, prepend: tee`), and whether it or a subcommand
# has one, by the program (kept with it: an id is reused only after the program is gone)
_TEE_RUNS: Final[dict[int, tuple[Program, tuple[Run, ...], bool]]] = {}


def _tee_entry(program: Program) -> tuple[Program, tuple[Run, ...], bool]:
    found = _TEE_RUNS.get(id(program))
    if found is None or found[0] is not program:
        runs = tuple(
            r
            for r in program.runs
            if r.kind == "path"
            and (
                (r.prepend == "tee" and r.source in ("option", "operand", "after"))
                or (r.source in ("operands", "files") and r.output is not None)
                # (xfail41) a name computed from each operand (a decompressor's: `unxz x.sh.xz` writes x.sh)
                or (
                    r.prepend == "tee"
                    and r.source == "operands"
                    and (r.match is not None or bool(r.strip) or bool(r.append) or bool(r.into))
                )
            )
        )
        anywhere = bool(runs) or any(_tee_entry(sub)[2] for sub in program.subcommands.values())
        if len(_TEE_RUNS) > 4096:
            _TEE_RUNS.clear()
        found = _TEE_RUNS[id(program)] = (program, runs, anywhere)
    return found


def _joined(printed: list[str]) -> str:
    """What commands that printed ``printed`` in turn printed together. A piece's text does not say
    whether a newline ended it (`echo a` does, `printf a` does not): both readings, each piece on a line of
    its own (`sh -c 'echo a; echo CMD' | sh`) and the pieces run together (`printf r; printf 'm -rf ~'`)."""
    if len(printed) == 1:
        return printed[0]
    return "\n".join(printed) + "\n" + "".join(printed)


# Programs that edit the files they are given in place with an option (sed -i, perl -pi, ruby -i, gawk -i inplace).
_IN_PLACE: Final = frozenset({"sed", "gsed", "perl", "ruby", "awk", "gawk"})


def _edited_in_place(command: Command) -> list[str]:
    """The files ``command`` edits in place: sed's with -i/--in-place (its script the first operand unless
    -e/-f give it), perl's and ruby's with -i (the script file first unless -e gives the program), gawk's
    with `-i inplace`; none when it edits nothing in place or its words are computed."""
    program = command.program
    if program is None:
        return []
    argv = command.argv
    parsed = command.reading if command.reading is not None else parse_argv(program.grammar, argv)
    if parsed.refused:
        return []
    present = {name for name, _, _ in parsed.options}
    name = command.name
    if name in ("sed", "gsed"):
        if not present & {"i", "in-place"}:
            return []
        given = bool(present & {"e", "f", "expression", "file"})
    elif name in ("perl", "ruby"):
        if "i" not in present:
            return []
        given = bool(present & {"e", "E"})
    else:
        if not any(n in ("i", "include") and v in ("inplace", "inplace.awk") for n, v, _ in parsed.options):
            return []
        given = bool(present & {"f", "e", "E", "file", "source", "exec"})
    operands = parsed.all_operands(argv)
    return [w for w in (operands if given else operands[1:]) if w and w != "-"]


def _may_write(program: Program | None) -> bool:
    """Whether ``program`` or one of its subcommands names a file it writes (see _table_writes)."""
    return program is not None and _tee_entry(program)[2]


def _table_writes(command: Command, read: Callable[[str], str | None], folder: Callable[[], str]) -> list[str]:
    """The files a program of the table writes that its line names (a run `as: path, prepend: tee`:
    `uniq IN OUT`, `xxd -r IN OUT`, `openssl ... -out F`, find's `-fprint F`; one with an `output:` name:
    `cc x.c` writes a.out, `make x` x; `files:` with one: a project file's text names it, read with
    ``read``: `go build` writes go.mod's module's last element, or one named after ``folder()``, the
    working directory's name, without go.mod): remembered as written with a
    text nobody knows here, so that a later run of one asks, as after `tee F` (adv31). Every such run
    counts, whatever its `if_flags` (a file remembered that was not written only asks more)."""
    program = command.program
    if program is None or not _may_write(program):
        return []
    argv = list(command.argv)
    parsed = command.reading  # (read once per command: follow_program's, with its subcommands' levels)
    if parsed is None:
        parsed = command.reading = parse_argv(program.grammar, argv)
    levels = subcommand_levels(program, parsed, argv) if program.subcommands else [(program, parsed)]
    out: list[str] = []
    for level, reading in levels:
        out += _level_writes(_tee_entry(level)[1], reading, argv, read, folder)
    return [p for p in out if p and p != "-"]


def _level_writes(
    runs: tuple[Run, ...],
    parsed: Parsed,
    argv: list[str],
    read: Callable[[str], str | None],
    folder: Callable[[], str],
) -> list[str]:
    out: list[str] = []
    for run in runs:
        if run.source == "option":
            out += parsed.values(run.names)
        elif run.source == "operand":
            operands = parsed.all_operands(argv)
            # (xfail41) or the program's default (script's ./typescript)
            out += operands[run.index : run.index + 1] or ([run.default] if run.default is not None else [])
        elif run.source == "operands":
            # a compiler's default output, named after its sources or not (`cc x.c`: a.out)
            operands = parsed.all_operands(argv)[run.index :]
            found: list[str | None] = [matched_payload(run, w) for w in operands]
            if run.strip or run.append or run.into:
                # names computed from an option's value (`gunzip -S .bak x.bak`: x, xfail41)
                found = renamed(run, parsed, operands, found)
            out += dict.fromkeys(p for p in found if p is not None)
        elif run.source == "files":
            # the output a project file's text names (`go build`: go.mod's `module example.com/x/app`
            # writes app, adv33); with no such file, or none that names it, the program is named after
            # the working directory (Go's rule without go.mod)
            names = (matched_payload(run, t) for t in map(read, sorted(run.names)) if t is not None)
            out += [next((p for p in names if p), None) or (run.output or "{}").replace("{}", folder())]
        else:  # after a marker word
            out += [argv[i + 1] for i in range(1, len(argv) - 1) if argv[i] in run.names]
    return out


_PROJECT_TEXT_BYTES: Final = 65536  # how much of a project file _project_text reads from disk
_SLICE: Final = re.compile(r"@:([^:]+)(?::([^:]+))?")
_ARITHMETIC_WORD: Final = re.compile(r"\$\(\((.*)\)\)", re.DOTALL)
_SUM: Final = re.compile(r"\s*[+-]?\s*\d+(?:\s*[+-]\s*\d+)*\s*")


def _sum(expression: str, count: int) -> int | None:
    """An arithmetic expression of whole numbers, `+`, `-` and `$#` (``count``); None for any other."""
    text = expression.replace("$#", str(count))
    if _SUM.fullmatch(text) is None:
        return None
    return sum(int(sign + "1") * int(digits) for sign, digits in re.findall(r"([+-]?)\s*(\d+)", text))


_DIGITS: Final = frozenset("0123456789")
# (mk49) shells whose script run gets the script's path as its $0 (not `.`/`source`: the caller's stays)
_SCRIPT_SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "rbash", "busybox"})
# (mk49) programs printing a path computed from their words (`$(dirname "$0")`: see Analyzer._path_printed)
_PATH_PRINTERS: Final = frozenset({"dirname", "basename", "gdirname", "gbasename"})
_POSITIONAL_OPERATOR: Final = re.compile(r"(\d+)(?:(:?)([-+])(.*))?", re.DOTALL)
_WORD_VARIABLE: Final = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def _positional_value(text: str, positional: list[str], env: dict[str, str]) -> str | None:
    """`${N}`, `${N:-w}`, `${N-w}`, `${N:+w}`, `${N+w}` with the positional parameters known: past
    the last one $N is unset (`f() { rm -rf $1/; }; f` runs `rm -rf /`). The word w is literal text
    or one variable the line set (`${1:-$HOME}`); None for anything else."""
    match = _POSITIONAL_OPERATOR.fullmatch(text)
    if match is None:
        return None
    number, colon, operator, word = match.groups()
    index = int(number)
    value = positional[index - 1] if index <= len(positional) else None
    if operator is None:
        return value if value is not None else ""
    variable = _WORD_VARIABLE.fullmatch(word)
    if variable is not None:
        known = env.get(variable.group(1) or variable.group(2) or "")
        if known is None:
            return None
        word = known
    elif any(ch in word for ch in "$`\\\"'"):
        return None
    is_set = value is not None and (value != "" or not colon)
    if operator == "+":
        return word if is_set else ""
    return value if is_set and value is not None else word


def _positional_words(text: str, positional: list[str]) -> list[str] | None:
    """The words "${TEXT}" gives with the positional parameters known: "$@", a slice "${@:N[:M]}"
    (`${@: -1}`, `${@:$#}` the last), "${!#}" the last; None for any other."""
    if text == "@":
        return positional
    if text == "!#":
        return positional[-1:]
    sliced = _SLICE.fullmatch(text)
    if sliced is None:
        return None
    count = len(positional)
    offset = _sum(sliced.group(1), count)
    length = _sum(sliced.group(2), count) if sliced.group(2) is not None else count
    if offset is None or length is None or length < 0:
        return None
    first = count + offset if offset < 0 else max(offset - 1, 0)  # $0 (offset 0) is not kept
    return positional[first : first + length] if first >= 0 else []


_APPEND: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\+=")


# The shell's $PWD and $OLDPWD tildes (adv29: `echo x > ~+/policies/deny.yaml` was read as the home
# of a user named `+`): _expand reads them (_tilde_dir); the fast paths that skip it
# (_plain_words, Evaluator._can_skip) send a line holding one to the parser (may_name_directory_tilde).
_PWD_TILDE: Final = "~+"
_OLDPWD_TILDE: Final = "~-"
_DIRECTORY_TILDES: Final = (_PWD_TILDE, _OLDPWD_TILDE)


def may_name_directory_tilde(text: str) -> bool:
    """Whether ``text`` holds `~+`, `~-` or `~` and a digit anywhere (a superset of the words that are one)."""
    # `~` first: one memchr, where a search for two characters steps through a long text.
    return "~" in text and (_PWD_TILDE in text or _OLDPWD_TILDE in text or _STACK_PREFIX.search(text) is not None)


# (stop 58) `~1`, `~+1`, `~-2`: a folder of the stack pushd made (`pushd ~; pushd /tmp; rm -f ~1/notes.txt` removes
# the user's note): a path the line's own cd and pushd computed (Analyzer._derived's DIRSTACK)
_STACK_WORD: Final = re.compile(r"~[+-]?[0-9]+(?=/|$)")
_STACK_PREFIX: Final = re.compile(r"~[+-]?[0-9]+")


def _directory_tilde(word: str) -> bool:
    """Whether ``word`` (starting with `~`) starts with one of the tildes _tilde_dir reads."""
    return word[:2] in _DIRECTORY_TILDES or _STACK_WORD.match(word) is not None


def _tilde_dir(word: str, old: str | None = None, stacked: frozenset[str] = frozenset()) -> str | None:
    """`~+` / `~+/x` as `.` / `./x` (the shell's $PWD: where the command runs), `~-` / `~-/x` as the
    $OLDPWD the line gave (a `$OLDPWD` nobody knows otherwise), `~1/x` (`~+1`, `~-1`) as a path the line computed,
    `$(derived ~1)/x` (``stacked``: the stack's tildes the line spells unquoted); None for any other word."""
    stack = _STACK_WORD.match(word)
    if stack is not None:
        return f"$(derived {stack.group()})" + word[stack.end() :] if stack.group() in stacked else None
    if word[:2] not in _DIRECTORY_TILDES or (len(word) > 2 and word[2] != "/"):
        return None
    if word[1] == "+":
        return "." + word[2:]
    return (old or "$OLDPWD") + word[2:]


def _rehome(word: str, home: str) -> str:
    return home + word[1:] if word == "~" or word.startswith("~/") else word


_MAX_LOOP_VALUES: Final = 16


# (stop 58) The shells that are no POSIX sh (a text they run is read as bash's), and the programs whose system() or
# aliases run /bin/sh (see Analyzer._dialect). Not make: a Makefile may name its SHELL (`SHELL := /bin/bash`), which
# the recipe's reading does not see here (its recipes are read as bash's, as before)
_OTHER_SHELLS: Final = frozenset(
    {"bash", "rbash", "zsh", "ksh", "mksh", "pdksh", "yash", "fish", "csh", "tcsh", "pwsh", "powershell", "cmd", "ssh"}
)
_SYSTEM_SHELL_RUNNERS: Final = frozenset(
    {
        "python",
        "python2",
        "python3",
        "pypy",
        "pypy3",
        "perl",
        "ruby",
        "node",
        "nodejs",
        "deno",
        "bun",
        "php",
        "lua",
        "awk",
        "gawk",
        "mawk",
        "nawk",
        "busybox",
        "git",
        "npm",
        "npx",
        "pnpm",
        "yarn",
        "watch",
        "flock",
        "tclsh",
        "R",
        "Rscript",
        "sqlite3",
        "vim",
        "vi",
        "nvim",
        "ex",
        "ed",
        "less",
        "man",
        "gdb",
        "tar",
    }
)
_SHEBANG: Final = re.compile(r"#![ \t]*(?:/\S*/)?(?:env[ \t]+(?:-\S+[ \t]+)*)?(?:\S*/)?([A-Za-z]+)")
_SHEBANG_LANGUAGES: Final = {
    "python": "python",
    "pypy": "python",
    "perl": "perl",
    "node": "node",
    "nodejs": "node",
    "deno": "node",
    "bun": "node",
    "ruby": "ruby",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
    "tclsh": "tclsh",
    "wish": "tclsh",
    "expect": "expect",
    "awk": "awk",
    "gawk": "awk",
    "mawk": "awk",
    "nawk": "awk",
}
# What a `#!` line may name that reads the file as shell lines (the analyzer's own reading).
_SHEBANG_SHELLS: Final = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "mksh", "lksh", "oksh", "pdksh", "ash", "yash", "posh", "rbash", "busybox"}
    | {"fish", "csh", "tcsh"}
)


_CSH_SHELLS: Final = frozenset({"csh", "tcsh"})  # (stop 55) whose `alias NAME TEXT` defines NAME (_define_aliases)


def _shebang_shell(text: str) -> str | None:
    """The interpreter a script's `#!` line names (lower case), or None."""
    if not text.startswith("#!"):
        return None
    found = _SHEBANG.match(text)
    return found.group(1).lower() if found is not None else None


def _shebang_language(text: str) -> str | None:
    """The language of a script whose first line names an interpreter the table reads programs
    of (`#!/usr/bin/env python3`), None for a shell script (or one it cannot tell)."""
    if not text.startswith("#!"):
        return None
    found = _SHEBANG.match(text)
    return _SHEBANG_LANGUAGES.get(found.group(1).lower()) if found is not None else None


_SHEBANG_PLAIN: Final = re.compile(r"#![ \t]*(?:/\S*/)?(?:env[ \t]+)?\S+[ \t]*\r?$")


def _shebang_line(text: str) -> str | None:
    """A script's `#!` line, when it gives its interpreter arguments (`#!/usr/bin/env -S bash -c …`,
    `#!/bin/rm -rf`); None for none, or an interpreter named alone (`#!/bin/sh`, `#!/usr/bin/env python3`)."""
    if not text.startswith("#!"):
        return None
    line = text.split("\n", 1)[0]
    if _SHEBANG_PLAIN.match(line) is not None:
        return None
    return line[2:].strip()


def _shebang_unread(text: str) -> bool:
    """Whether a script's `#!` line names an interpreter that is neither a shell nor one whose
    programs are read here (`#!/usr/bin/make -f`, `#!/usr/bin/env Rscript`): its text is not
    what runs as shell lines."""
    if not text.startswith("#!"):
        return False
    found = _SHEBANG.match(text)
    if found is None:
        return True
    name = found.group(1).lower()
    return name not in _SHEBANG_SHELLS and name not in _SHEBANG_LANGUAGES


_LINK_ONLY: Final = frozenset({"ln", "link", "mount"})


def _copied_into(files: Mapping[str, _Written], key: str) -> bool:
    """(sess51) Whether the line (or a background shell's earlier lines) copied, moved or unpacked a folder or a glob
    whose files the file of ``key`` may be one of, with no text known here: `cp -r d e && sh e/x.sh`, `mv d/* f/ && sh
    f/x.sh`, `rsync -a d/ e/ && sh e/x.sh` (keyed `e`, `e/d`, `f/*`, `e/d`: the file run is in none of them by name,
    and was not on the disk when judged -- d/x.sh's `rm -rf ~` ran unjudged). Such a file is unread."""
    for written, entry in files.items():
        if entry.content is not None or not written or written.startswith("$") or entry.writers <= _LINK_ONLY:
            continue  # (a link the line made is followed to its target: links.LinkFollower, not a copy)
        if key.startswith(written.rstrip("/") + "/"):
            return True
        if _GLOB.search(written) is not None and fnmatch.fnmatchcase(key, written):
            return True
        if "rsync" in entry.writers and key.startswith(posixpath.dirname(written) + "/"):
            return True  # `rsync d/ e/` copies d's files into e (keyed e/d)
    return False


def _under(key: str, base: str) -> bool:
    """Whether the analyzer's file ``key`` is under the folder ``base`` ("": the working
    directory, relative keys; "/": anywhere)."""
    if base == "/":
        return True
    if not base:
        return not key.startswith(("/", "~", "$"))
    return key.startswith(base + "/")


def _tail_matches(key: str, parts: list[str]) -> bool:
    """Whether the last components of ``key`` match the glob components ``parts``, one each."""
    names = key.split("/")
    if len(names) < len(parts):
        return False
    return all(fnmatch.fnmatchcase(name, part) for name, part in zip(names[-len(parts) :], parts, strict=True))


# Programs that unpack or fetch a tree of files; network fetchers; programs that run a script file.
_GIT_FETCHES: Final = frozenset({"clone", "format-patch"})  # git verbs writing files of text nobody reads here
_UNPACKERS: Final = frozenset({"tar", "bsdtar", "gtar", "unzip", "busybox-unzip", "7z", "7za", "7zz", "cpio", "git"})
_FETCHERS: Final = frozenset(
    {"curl", "wget", "fetch", "aria2c", "http", "https", "iwr", "invoke-webrequest", "download"}
)
_SCRIPT_RUNNERS: Final = frozenset(
    {
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "source",
        ".",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
        "php",
        "make",
        "gmake",
    }
)
_LOOP_HEADERS: Final = frozenset({"for", "select"})


def _extracted_archive(command: Command) -> str | None:
    """(xfail39) The archive ``command`` extracts files from (`-`: its input), None when it extracts none: tar's
    `-x` (its `-f` value), unzip's first operand (not `-l`/`-t`/`-p`/`-Z`, which only list, test or print), 7z's
    `x`/`e` ARCHIVE."""
    name = command.name
    argv = command.argv
    if name in ("tar", "bsdtar", "gtar"):
        program = command.program
        if program is None:
            return None
        parsed = parse_argv(program.grammar, list(argv))
        names = {option for option, _, _ in parsed.options}
        if not names & {"x", "extract", "get"}:
            return None
        files = [value for option, value, _ in parsed.options if option in ("f", "file") and value is not None]
        return files[-1] if files else "-"
    if name in ("unzip", "busybox-unzip"):
        words = iter(argv[1:])
        for word in words:
            if word == "--":
                return next(words, None)
            if word.startswith("-") and len(word) > 1:
                if any(letter in word for letter in "ltpZ"):
                    return None
                if word[-1] in "dPx":
                    next(words, None)  # its value
                continue
            return word
        return None
    if name in ("7z", "7za", "7zz"):
        operands = [word for word in argv[1:] if not word.startswith("-")]
        if len(operands) >= 2 and operands[0] in ("x", "e"):
            return operands[1]
    return None


def _keyword_option(argv: list[str]) -> bool:
    """Whether the command may turn on bash's keyword option (`set -k`, `set -o keyword`, `shopt
    -so keyword`, `bash -k`, `SHELLOPTS=keyword`): NAME=VALUE words anywhere in a command are then
    its environment. Loose on purpose: a false hit only judges those words twice."""
    setter = False
    for k, word in enumerate(argv):
        if word.startswith("SHELLOPTS=") and "keyword" in word:
            return True
        if setter and word == "keyword" and argv[k - 1][:1] == "-" and "o" in argv[k - 1]:
            return True
        if setter and len(word) > 1 and word[0] == "-" and word[1] != "-" and "k" in word:
            return True
        setter = setter or posixpath.basename(word) in _KEYWORD_SETTERS
    return False


_KEYWORD_SETTERS: Final = frozenset(
    {"set", "shopt", "sh", "bash", "rbash", "dash", "ksh", "mksh", "zsh", "ash", "yash"}
)


def _piped_source(made: list[_Raw], pipe_from: list[_Raw] | None, pipeline: list[_Raw]) -> list[_Raw]:
    """What a compound command opened after a pipe reads: the commands before the pipe. (xf47) After simple
    commands, the pipeline's stages so far, so that a listing selected by later stages is read as the whole pipe
    (`find . -name '*.tmp' | grep -v keep | while read f; do rm "$f"; done`, as `rm $(find … | grep -v keep)`)."""
    if pipe_from is not None:
        return pipe_from
    if pipeline and made and pipeline[-1] is made[-1]:
        return list(pipeline)
    return made[-1:]


def _close(compounds: list[tuple[int, bool, list[_Raw] | None]], made: list[_Raw]) -> int:
    """End the innermost compound command: its commands read what a pipe into it carries
    (`echo 'rm -rf ~' | (bash)`). Returns where it started in ``made``."""
    start, _, source = compounds.pop()
    if source:
        for raw in made[start:]:
            if not raw.fed and not _replaces_input(raw.redirects):
                _feed(raw, source)
    return start


def _feed(raw: _Raw, source: list[_Raw]) -> None:
    raw.fed = source
    for fed in source:
        if fed.printed is None:
            fed.printed = (None, _NOTHING)  # to be filled when read


def _not_lasting(raws: list[_Raw]) -> None:
    """Mark commands that run in a subshell (a group piped or in the background, a coprocess): what
    they set does not last (`d=~; { d=build; } & rm -rf "$d"` removes home)."""
    for raw in raws:
        raw.conditional = True


# Reserved words bash reads as such after a prefix (`time -p`, `coproc NAME`): see _prefix.
_AFTER_PREFIX: Final = frozenset({"{", "!", "time", "if", "while", "until", "for", "select", "case", "coproc"})


def _prefix(words: list[Token], coproc: bool, kept: frozenset[str]) -> bool:
    """Whether ``words`` are a prefix after which bash still reads a reserved word: `time`, `time -p`,
    `time -p --` (a pipeline follows), or a coprocess's NAME (a compound command follows)."""
    if coproc:
        return len(words) == 1
    return words[0].literal == "time" and "time" not in kept and all(w.literal in _TIME_WORDS for w in words)


_TIME_WORDS: Final = frozenset({"time", "-p", "--"})
# Words that open (+1) or close (-1) a compound command whose parts may not run.
_NESTING: Final = {"if": 1, "case": 1, "while": 1, "until": 1, "for": 1, "select": 1, "fi": -1, "esac": -1, "done": -1}


def _for_loops(tokens: list[Token]) -> list[tuple[str, list[Token], list[Token]]]:
    """(variable, its words, the body's tokens) of each `for NAME in WORDS; do BODY done`."""
    loops: list[tuple[str, list[Token], list[Token]]] = []
    n = len(tokens)
    for i, token in enumerate(tokens):
        if token.kind != "word" or token.literal not in _LOOP_HEADERS or i + 2 >= n:
            continue
        name, keyword = tokens[i + 1], tokens[i + 2]
        if name.literal is None or not _NAME_ONLY.fullmatch(name.literal):
            continue
        words: list[Token] = []
        if keyword.literal == "in":
            j = i + 3
            while j < n and tokens[j].kind == "word":
                words.append(tokens[j])
                j += 1
        elif keyword.kind in ("op", "nl") or keyword.literal == "do":
            j = i + 2  # `for NAME; do`: over the positional parameters
        else:
            continue
        while j < n and (tokens[j].kind == "nl" or tokens[j].value == ";"):
            j += 1
        if j >= n or tokens[j].literal != "do" or (not words and keyword.literal == "in"):
            continue
        level = 0
        end = n
        for k in range(j, n):
            if tokens[k].kind == "word" and tokens[k].literal == "do":
                level += 1
            elif tokens[k].kind == "word" and tokens[k].literal == "done":
                level -= 1
                if level == 0:
                    end = k
                    break
        loops.append((name.literal, words, tokens[j + 1 : end]))
    return loops


_MAX_READINGS: Final = 32
# A name a choice may be left out for (Analyzer._unread_change): lower case, so none the shell
# or a program reads by itself (IFS, PATH, HOME, TAR_OPTIONS, GIT_DIR… are upper case).
_UNREAD_NAME: Final = re.compile(r"[a-z][a-z0-9_]*")
_SPELLED_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?!\+?=|[A-Za-z0-9_])")
# What reads a variable by a name the text does not spell: indirection, eval, namerefs and
# declarations, arithmetic (a value naming a variable is evaluated: `$(( $v$w ))`), `-v` tests,
# exporting to programs, another file or shell's text (`source`, `.`).
_READS_BY_NAME: Final = re.compile(
    r"\$\{!|\$\{\w+:(?![-=?+])|\(\(|\$\[|\[\[|\w\[|\b(?:eval|declare|typeset|local|export|readonly|set|let|"
    r"source|unset|enable|shopt|trap|fc|history|alias|printf|read|mapfile|readarray|getopts|compgen|coproc|wait)\b|"
    r"(?:^|[\s;&|(){}])\.(?=[\s])|-v\b"
)


@lru_cache(maxsize=16)
def _read_names(text: str) -> frozenset[str] | None:
    """Every identifier ``text`` spells other than as an assignment's target (a superset of the
    variables it reads: `echo x0` counts), or None when something may read a variable whose name
    is not spelled (_READS_BY_NAME)."""
    if _READS_BY_NAME.search(text):
        return None
    return frozenset(_SPELLED_NAME.findall(text))


_KEPT_HEAD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")  # a value that starts here: `NAME=$PWD/x`
_KEPT_VALUE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=.*")  # `NAME=…`: a variable's value
_FRESH_ENV: Final = {"HOME": "~"}  # a new Analyzer's variables


def _next_script(taken: list[int], options: list[int]) -> list[int] | None:
    """The choices of the next reading after one that took ``taken`` (depth first), or None."""
    for at in range(len(taken) - 1, -1, -1):
        if taken[at] + 1 < options[at]:
            return [*taken[:at], taken[at] + 1]
    return None


_INPUTS: Final = frozenset({"<", "<<<", "<<", "<<-"})


def _replaces_input(redirects: list[tuple[str, Token | None]]) -> bool:
    """Whether a command's redirections give it another input (`< F`, a here-document or -string) --
    not `< /dev/stdin`, `< /dev/fd/0`, `< /proc/self/fd/0`: the process's own input, kept (`echo CMD |
    sh -c 'sh < /dev/stdin'`, `| (sh < /dev/fd/0)` run CMD)."""
    for op, target in redirects:
        if op in _INPUTS and (
            op != "<"
            or target is None
            or descriptor_file(target.value if target.literal is None else target.literal) != "0"
        ):
            return True
    return False


_INPUT_OPS: Final = frozenset({"<", "<>", "<&", "<<", "<<<", "<<-"})


def _raw_op(token: Token) -> str:
    """A redirection's operator as a raw command keeps it: an input redirection of a descriptor
    other than 0 carries its number (`3<`, `{fd}<&`), so it is not taken for the command's own
    input (`sh 3< x` reads the shell's); see split_descriptor."""
    descriptor = token.literal
    if descriptor is None or token.value not in _INPUT_OPS or not descriptor.strip("0"):
        return token.value
    return descriptor + token.value


def split_descriptor(op: str) -> tuple[str, str]:
    """(the descriptor, "" for the operator's own default; the operator) of a raw redirection."""
    if op[0] in "<>&":
        return "", op
    at = op.index("<")
    return op[:at], op[at:]


def _loop_inputs(tokens: list[Token]) -> dict[int, list[tuple[str, Token | None]]]:
    """The first token of each `while`/`until` condition (by id) → the input redirections after
    the loop's `done` (the condition's `read` reads them: `while read d; do …; done <<< ~`)."""
    heads: dict[int, list[tuple[str, Token | None]]] = {}
    n = len(tokens)
    for i, token in enumerate(tokens):
        if token.kind != "word" or token.literal not in ("while", "until") or i + 1 >= n:
            continue
        if tokens[i + 1].kind != "word":
            continue
        level = 0
        end = n
        for k in range(i + 1, n):
            if tokens[k].kind == "word" and tokens[k].literal == "do":
                level += 1
            elif tokens[k].kind == "word" and tokens[k].literal == "done":
                level -= 1
                if level <= 0:
                    end = k
                    break
        given: list[tuple[str, Token | None]] = []
        k = end + 1
        while k + 1 < n and tokens[k].kind == "op" and tokens[k].value in REDIRECT_OPS and tokens[k + 1].kind == "word":
            if tokens[k].value in _INPUTS:
                given.append((tokens[k].value, tokens[k + 1]))
            k += 2
        heads[id(tokens[i + 1])] = given
    return heads


_PWD_ONLY: Final = re.compile(r"\s*pwd(?:\s+-[LP])?\s*")
_FRESH_OUTPUT: Final = re.compile(r"\s*(pwd|mktemp)\b")  # what paths.py reads as a fresh place ($(mktemp))
_POSITIONAL_KEYS: Final = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "#", "@", "*")
_ALL_POSITIONAL: Final = frozenset(("1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*"))


_LET: Final = Token("word", "let", (), False, None, "let", False)
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAMETER_NAME: Final = re.compile(r"[!#]?([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]?)")
# Builtins that evaluate some of their words as arithmetic, or take variable names whose
# subscript is arithmetic (`read 'a[$(cmd)]'`, `printf -v 'a[$(cmd)]'`, `declare -i n=EXPR`).
_ARITHMETIC_NAMES: Final = frozenset(
    {
        "let",
        "[[",
        "test",
        "[",
        "read",
        "mapfile",
        "readarray",
        "printf",
        "unset",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "wait",
        "getopts",
    }
)
_COMPARISONS: Final = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


def _arithmetic_words(name: str, argv: list[str]) -> list[str]:
    """The words of a builtin call that the shell evaluates as arithmetic (a variable name's
    subscript included)."""
    args = argv[1:]
    if name == "let":
        return args
    if name == "[[":
        # an arithmetic comparison or -v: `[[ ]]` does not split its words, so all of them
        return [" ".join(args)] if any(w in _COMPARISONS or w == "-v" for w in args) else []
    if name in ("test", "["):
        return [word for i, word in enumerate(args) if i > 0 and args[i - 1] == "-v"]
    if name == "printf":
        if not args or not args[0].startswith("-v"):
            return []  # its format and arguments name no variable (`printf %s 'a[$(x)]'` prints it)
        named = [word[2:] if word.startswith("-v") and word != "-v" else word for word in args[:2]]
        return [word for word in named if "[" in word or "$" in word]
    integer = name in _DECLARERS and any(w.startswith("-") and "i" in w for w in args)
    if name in _DECLARERS and any(w.startswith("-") and "n" in w for w in args):
        # a name reference's target is evaluated at each use: `declare -n r='a[$(cmd)]'`; its
        # value may have been split (`declare -n r=$x`): the words together
        return [" ".join(args)]
    if integer and any("=" in word for word in args):
        return [" ".join(args)]  # `declare -i y=$x`: each value is arithmetic, split or not
    # (a name only the run knows where bash evaluates its subscript: `read "$x"`, `declare "$x=1"`; redt35)
    by_name = name == "read" or name in ("declare", "typeset", "local")
    return [
        word if integer else word.partition("=")[0]
        for word in args
        if "[" in word
        or (integer and "=" in word)
        or (by_name and "$" in word.partition("=")[0] and (name == "read" or "=" in word))
    ]


# `${NAME}` names a variable alone; `${NAME:-word}` and kin default it (see Analyzer._parameter).
# Words that hand a text to a shell (a cheap test of a loop's body: see Analyzer._read_loops)
def _prompt_texts(value: str) -> list[str]:
    """The texts a prompt string's expansion reads for substitutions (PS0 PS1 PS2 PS4): its value, and the value
    its backslash escapes decode to when that differs (`PS4='\\140cmd\\140 '`: bash decodes `\\140` to a
    backquote before it expands the prompt: unseen50). None without a `$` or a backquote."""
    texts = [value] if "$" in value or "`" in value else []
    if "\\" in value:
        decoded = decode_prompt(value)
        if decoded != value and ("$" in decoded or "`" in decoded):
            texts.append(decoded)
    return texts


def _prompt_substitutions(value: str) -> list[str]:
    """The scripts `${x@P}` runs for a value: its `$(...)` and backquotes, and those its decoded prompt escapes spell
    (`\\140cmd\\140`, `\\044(cmd)`: unseen50)."""
    scripts = substitutions(value) if "$(" in value or "`" in value else []
    if "\\" in value:
        decoded = decode_prompt(value)
        if decoded != value:
            scripts.extend(script for script in substitutions(decoded) if script not in scripts)
    return scripts


# What an interactive shell runs or expands around each line it reads (see Analyzer._shell_prompts)
_PROMPTS: Final = ("PROMPT_COMMAND", "PS0", "PS1", "PS2")
# What a value needs to run a command where the shell evaluates it again (a subscript, a substitution, an escape)
_EVALUATED: Final = re.compile(r"[\[$`\\]")
# The shell's own variables it expands or runs as code (see _trace_prompt, _shell_prompts)
_SHELL_CODE_VARIABLES: Final = ("PS4", *_PROMPTS)
# The options of the builtins that give variables values whose own value is no variable's name (see _names_unknown)
_VALUED_OPTIONS: Final = {"read": "pdituNn", "mapfile": "dnOsuCc", "readarray": "dnOsuCc"}


def _names_unknown(name: str, words: list[str]) -> bool:
    """Whether a builtin that gives variables a text (`read`, `mapfile`, `printf -v`) names one only the run knows
    (`read "$x"`, `printf -v "$x" %s "$(cat p)"`): it may be any variable. (printf of plain words gives a plain
    text; getopts and `wait -p` give a letter or a number.)"""
    if name == "printf":
        if not words or not words[0].startswith("-v"):
            return False
        named, given = (words[1], words[2:]) if words[0] == "-v" and len(words) > 1 else (words[0][2:], words[1:])
        return _unknown_word(named) and any(c in word for word in given for c in "$`\\")
    valued = _VALUED_OPTIONS.get(name)
    if valued is None:
        return False
    previous = ""
    for word in words:
        if _unknown_word(word) and not (previous[:1] == "-" and previous[-1:] in valued):
            return True
        previous = word
    return False


def _unknown_word(word: str) -> bool:
    """A word that is no plain name nor option: an expansion only the run knows (`$x`, `a$(cmd)`). Not a
    positional parameter left unknown (a function's body read where it is defined: each call reads it again
    with its arguments, `f(){ printf -v "$1" %s "$2"; }; f PS4 …` as `printf -v PS4 …`)."""
    return (
        ("$" in word or "`" in word)
        and word[:1] != "-"
        and _IDENTIFIER.fullmatch(word) is None
        and _POSITIONAL_WORD.fullmatch(word) is None
    )


_POSITIONAL_WORD: Final = re.compile(r"\$(?:[1-9]|\{[1-9][0-9]*\})")


_CODE_READERS: Final = frozenset({"eval", "-c", "source", ".", "sh", "bash", "dash", "zsh", "ksh", "-lc", "-ec"})
# A command run in arithmetic's place when a value it evaluates is a text nobody knows here (see _arithmetic)
_UNKNOWN_ARITHMETIC: Final = '"$__arithmetic_value_known_at_run_time"'
# Builtins whose variables take their input's text (see _forget)
_INPUT_READERS: Final = frozenset({"read", "mapfile", "readarray"})
# Programs that print a count or a fact of the system, not a text an earlier command stored: a substitution
# of one of them with plain words (no expansion, quote, glob or list) is no arithmetic's code (see _counts)
_COUNTERS: Final = frozenset({"nproc", "getconf", "wc", "id", "date", "expr", "seq", "echo", "printf", "tput"})
_UNCOUNTED: Final = re.compile(r"[$`'\"*?\[;&(){}\\\n]")
_ARITHMETIC_TOKEN: Final = re.compile(r"\(\(|^(?:let|\[\[|declare|typeset|local)$")


def _counts(script: str) -> bool:
    """Whether substitution ``script`` prints only a count or a fact of the system (`nproc`, `wc -l`, `date
    +%s`, `ls | wc -l`): its last stage one of _COUNTERS with plain words. A file's text (`cat f`, `<f`),
    what a program keeps (`readlink l`, `git config k`) or an unknown program's output may be any text."""
    last = script.rsplit("|", 1)[-1]
    words = last.split()
    return bool(words) and words[0] in _COUNTERS and _UNCOUNTED.search(last) is None


def _evaluates(token: Token) -> bool:
    """Whether a loop body's token evaluates arithmetic (`(( f ))`, `$((f))`, `let`, `[[`, `declare`)."""
    return _ARITHMETIC_TOKEN.search(token.value) is not None


# `$NAME`, `${NAME…}`, `$1`, `$@` in a word's text (see Analyzer.spliced_code)
_PLAIN_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # `${x}` / `${#x}` as _dollar keeps it (_unread_body)
_SPLICED_NAME: Final = re.compile(r"\$\{?!?([A-Za-z_][A-Za-z0-9_]*|[0-9@*])")  # (`${!n}`: n names the variable)
# A text that is one value nobody knows here, whole (`python3 <<< "$x"`, `echo "$x" | node`): a program read from it
# is not known, as `python3 -c "$x"` is not (adv37; follow._unread_program)
_WHOLE_VALUE: Final = re.compile(r"\s*\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*|[0-9@*])\s*")
_NAME_ONLY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!-]")
_ARRAY_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_ELEMENT: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]=")
_SUBSCRIPTED: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[(.*)\]\+?=", re.DOTALL)  # the last `]=` (a[b[$(c)]]=1)
_ATTRIBUTES: Final = frozenset("ilu")
# (stop 57) In _Values.exported: `set -a` (allexport) is on: each variable set from then on is exported (_assign; no
# variable's name holds a dash)
EXPORT_ALL: Final = "-a"
_LET_ASSIGNMENT: Final = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)", re.DOTALL)
# A variable an arithmetic expression assigns: `x=`, `x+=` ... `x++`, `--x`.
_ASSIGNED: Final = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:(?:<<|>>|[-+*/%&|^])?=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)"
)
_NAME_OR_DIGIT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]")
# (fresh41) a word that is an option's name spelled with expansions: `-${t}delete`, `-e"$q"xec`, `--$x`
_OPTION_NAME_WORD: Final = re.compile(
    r"--?(?:[A-Za-z0-9_-]|\$\{?(?:[A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*|[@*])\}?"
    r"|\$\{(?:[A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*|[@*])(?:##?|%%?|//?|:[^-=+?}]|\^\^?|,,?)[^}]*\}|[\"'])*"
)
# (fix51) a parameter expansion whose operator yields nothing when the parameter is unset or empty (removal of a
# prefix or suffix, a substitution, a substring, a case change): `${9#x}`, `${x%y}`, `${@:1}`, `${x/a/b}`
_EMPTY_WHEN_UNSET: Final = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*|[@*])(?:##?|%%?|//?|:[^-=+?}]|\^\^?|,,?)[^}]*", re.DOTALL
)
# (unseen51) the positional parameters a word may spell: `$9`, `${10}`, `$@`, `$*` (none is set where the terminal's
# `sh -c` runs a command)
_POSITIONAL_NAME: Final = re.compile(r"[1-9][0-9]*|[@*]")
_OPERAND: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(\[[^\]]*\])?")
_INDIRECT: Final = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?:\[-?[0-9@*]+\])?")
_DEFAULT: Final = re.compile(r"(:?)([-=+?])")
# (stop 58) The input of a command the line gives in a here-document or here-string whose text only the run knows
# (an expansion in it): what `read` takes from it is a value the line computed (see _forget)
_UNKNOWN_INPUT: Final = "$(derived input)"
# (stop 57) Analyzer._derived: variables the line's earlier words set (the last word of the command before, a match's
# groups, getopts' value), and the places whose text is not known here but whose meaning is
# (stop 58) DIRSTACK: the directories the line's cd, pushd and popd put there (`cd ~; rm -f ${DIRSTACK[0]}/notes.txt`)
_LINE_DERIVED: Final = frozenset({"_", "BASH_REMATCH", "OPTARG", "DIRSTACK"})
_PLACE_VARIABLES: Final = frozenset({"HOME", "PWD", "OLDPWD"})
_BOUNDS: Final = re.compile(r":[ ]*(-?[0-9]+)[ ]*(?::[ ]*(-?[0-9]+)[ ]*)?")


# One simple command of plain words: letters, digits and punctuation that neither the lexer nor
# the shell reads as anything but part of a word (no quote, `$`, backquote, backslash, operator,
# redirection, group, brace or comment), blanks between them. The lexer's tokens for it are its
# words (lexer._PLAIN_LINE), so the line is those words, split at its blanks.
# Such a line is one with no character outside them (searched for: a charset scan in C, half the
# instructions of the full match of words and blanks) and a word (text.split() not empty).
_NOT_PLAIN: Final = re.compile(r"[^A-Za-z0-9_@%+=:,./~^*?\[\] \t-]")
_PLAIN_MAX: Final = 1024
# Words _split, _define_functions, _read_loops or _simple read as more than a word somewhere.
_PLAIN_RESERVED: Final = _KEYWORDS | _CLAUSE_HEADERS


_QUALIFIER_CLOSE: Final = {"(": ")", "[": "]", "{": "}", "<": ">"}
_QUALIFIER_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_:.-]*")


# (xf49) Substitutions printing a path that starts with `/` (never an expression word) and the words joining an
# expression's parts, after which a quoted word is a part of its own (`find . -o "$(cat f)"`): see _split_expression
_UNPLAIN_TRACKED: Final = re.compile(rb"^-|[\s*?\[]")  # a tracked name split or expanded into an option
_FILE_WORDS: Final = re.compile(r"^(?:\$\((?:cat\s+|<\s*)[\w./-]+\)|`(?:cat\s+|<\s*)[\w./-]+`)$")
_LEADING_SUBSTITUTION: Final = re.compile(r"^(?:\$\(([^()`$]*)\)|`([^()`$]*)`)")
# (subst51) a word of a substitution whose command prints only its kind: plain, no quote, operator or expansion
_PLAIN_SUBSTITUTED: Final = re.compile(r"^[\w./:=@^~%+,-]+$")
_ANY_SUBSTITUTION: Final = re.compile(r"\$\(([^()`$]*)\)|`([^()`$]*)`")
_ARITHMETIC: Final = re.compile(r"\$\(\((?:[^()]|\([^()]*\))*\)\)")  # `$((n + 1))`: a number, one word
_SUBSTITUTES: Final = re.compile(r"\$\(|`")  # ... a command substitution anywhere
_COMMAND_BREAK: Final = re.compile(r"[\n\r;&]")  # a substitution's text holding more than one command
_UNPLAIN_NAME: Final = re.compile(r"[\s*?\[]")  # a name on the disk split or expanded into other words
_MAX_TREE_PLAIN: Final = 4096  # entries _tree_plain reads; past them, a name may be any
_EXPRESSION_JOINERS: Final = frozenset({"-o", "-or", "-a", "-and", "-not", ","})


# (fix50) a make variable a recipe names that the makefile reader left as written (one set in both arms of an
# `ifeq`: `$(CC) $(CFLAGS) -o app main.c`): make expands it before the shell runs; its values are the makefile's
_MAKE_REF = re.compile(r"\$\([A-Z_][A-Z0-9_]*\)")


def substitution_kind(rows: tuple[SubstitutionRow, ...], text: str) -> str:
    """(subst51) What the command ``text`` of a substitution prints, by the table's `substitution_words:` rows: the
    kind of the first row one of whose spellings starts its words and that prints only its kind with the others
    (absolute, revisions: every other word plain, an option among the row's `options:`; prefixed, names: a listing
    of the tree, paths.lists_tree); "" (anything) otherwise."""
    if _COMMAND_BREAK.search(text):
        return ""  # (stop 52) another command after it: `$(nproc<newline>cat f)`, `$(pwd; cat f)`
    words = text.split()
    for spellings, kind, options in rows:
        for spelling in spellings:
            if tuple(words[: len(spelling)]) != spelling:
                continue
            if kind in ("prefixed", "names"):
                if lists_tree("$(" + text + ")"):
                    return kind
                continue
            rest = words[len(spelling) :]
            if all(_PLAIN_SUBSTITUTED.match(w) and (w[:1] != "-" or w.split("=", 1)[0] in options) for w in rest):
                return kind
    return ""


def _tree_plain(folders: list[str], bare: bool) -> bool:
    """(subst51) Whether the names below ``folders`` (a `.git` not walked) hold none that a blank or a glob character
    splits or expands into other words and, ``bare`` (names printed without a start point before them), none that
    starts with `-`; false past _MAX_TREE_PLAIN entries or a folder that cannot be read (a file start point: its own
    name is the word's, read above)."""
    pending = list(folders)
    seen = 0
    while pending:
        folder = pending.pop()
        if folder in folders and not os.path.isdir(folder):
            continue  # (a file named as a start point, or none: its name is the word's, read above)
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    name = entry.name
                    if seen > _MAX_TREE_PLAIN or _UNPLAIN_NAME.search(name) or (bare and name[:1] == "-"):
                        return False
                    if name != ".git" and entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
        except OSError:
            return False
    return True


def _runs_options(program: Program) -> bool:
    """(subst50) Whether ``program`` or a subcommand of it has an option whose value runs or writes something (its
    `option_names`: `docker $(cat args)` may be `run -v /:/host ...`)."""
    if program.option_names:
        return True
    return any(_runs_options(sub) for sub in program.subcommands.values()) if program.subcommands else False


def _valued_options(program: Program) -> bool:
    """(xf49) Whether an option of ``program`` may carry a text holding a `.` (a value its grammar's `values:` does not
    hold to a few words, or a grammar not described): a name a glob holding a `.` expands to may then be one
    (`--to-command=sh x.py`; not rm's `--interactive=WHEN`). (xf49b) Only an option whose value runs or writes
    something (its `option_names`: tar's -I, sed's -e, mypy's --junit-xml): `git checkout x; grep -m 1 x *.md` reads
    no `-m9.md` as harm, `sed -n 1p *.md` may read `-e1esh x.sh #.md` (it ran x.sh live)."""
    grammar = program.grammar
    if not grammar.short and not grammar.long:
        return True
    held = grammar.values
    wanted = program.option_names
    for options in (grammar.short, grammar.long):
        for name, kind in options.items():
            if not kind:
                continue
            canonical = grammar.aliases.get(name, "")
            if name not in wanted and canonical not in wanted and wanted.isdisjoint(grammar.names(name)):
                continue
            if not _held_to_words(held.get(name) or held.get(canonical)):
                return True
    return False


def _held_to_words(pattern: Any) -> bool:
    """Whether a `values:` regex accepts no text holding a `.` (no wildcard, escape class or negated set in it)."""
    if pattern is None:
        return False
    text = str(pattern.pattern)
    return "." not in text and "\\" not in text and "[^" not in text


# (debt50) The listers (paths.LISTER_NAMES) _makes_names reads by their words: a listing of the tree itself makes no
# name (`$(find . -name X)`); `ls` is among the builtin table's `makes_no_names:` whatever it lists (policies/
# executors.yaml; a test of it here was never reached)
_TREE_LISTERS: Final = LISTER_NAMES.difference({"ls"})
# (merge49) A wrapper entry naming a file a program reads (`.git/config`), not a program
_READ_FROM_FILE: Final = re.compile(r"[/.]")
_SYSTEM_PATH: Final = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _not_a_program(name: str) -> bool:
    """(merge49) Whether ``name`` runs nothing as a command: no `/` in it and no folder of the system's PATH holds
    it (a config value read as what a program may run: `0`, `origin`, `https://h/r`)."""
    import shutil  # noqa: PLC0415  (only here: a listing after a file a program reads)

    return "/" not in name and (not name or shutil.which(name, path=_SYSTEM_PATH) is None)


# A redirection target that may make a name a listing splits (a blank, a quote, a glob, a newline) or that only the
# run knows (a variable, a substitution)
_MADE_SPLITS: Final = re.compile(r"[\s'\"\\*?\[$`]")
# A line where a command written after a listing may run before it: a loop, a background `&`, a pipe, a process
# substitution, a coprocess
_CONCURRENT: Final = re.compile(r"(?<![&>|])&(?![&>])|(?<!\|)\|(?!\|)|[<>]\(|\b(?:for|while|until|select|coproc)\b")
_MAX_KNOWN_SOURCES: Final = 8  # (xf49b) the sources of a copy whose names are read from the disk, at most


_BELOW: Final = "/*"  # (xf49b) a made folder key's end: only the folders below it are made unseen


# (debt51) What the last name of a path below a folder the line named (a clone's DIR) is read as when a program opens
# and writes through it (`cp x r/n`, `echo x > r/n`, n -> ~/.bashrc): a file of the home only the run knows
_LINKED_FILE: Final = "~/$LINKED"


def _named_folders(folders: list[str], made: list[tuple[str, Command]]) -> list[str]:
    """(debt51) Of ``folders`` (Analyzer._unknown_folders of ``made``), those the line named as a destination (a
    clone's DIR, `tar -C D`, `unzip -d D`, a copy's destination), not an unpacker's own working folder."""
    own = {folder for folder, command in made if command.program is None or command.program.unpacks_here}
    return [folder for folder in folders if folder not in own]


def _through_folders(key: str, word: str, folders: list[str], last_name: bool = False) -> str | None:
    """(link50) ``word`` (its file key ``key``) read through a link to the home at the first name below one of
    ``folders`` (a `/*` end: the second, the top names are read from a source) when the word goes through that
    name; None when it does not (the folder itself, a name directly in it without a `/` after it). (debt51)
    ``last_name``: a name directly in it too, read as a link to a file of the home (_LINKED_FILE)."""
    if not folders or key.startswith(("~", "$")):
        return None
    # (the deepest first: `git clone URL r` makes both its folder's names and r's unknown; r/h is the link, not r:
    # the first folder the key is in decides)
    for folder in sorted(folders, key=lambda folder: (folder != ".", len(folder)), reverse=True):
        below = folder.endswith(_BELOW)
        top = folder[: -len(_BELOW)] if below else folder
        if top == ".":
            if not key_in_workdir(key) or key in (".", "..") or key.startswith("../"):
                continue
            rest = key[2:] if key.startswith("./") else key
        elif key.startswith(top.rstrip("/") + "/"):
            rest = key[len(top.rstrip("/")) + 1 :]
        else:
            continue
        parts = [part for part in rest.split("/") if part and part != "."]
        link = 1 if below else 0
        if len(parts) > link + 1 or (len(parts) == link + 1 and word.endswith("/")):
            after = "/".join(parts[link + 1 :])
            return "~/" + after + ("/" if word.endswith("/") and after else "")
        return _LINKED_FILE if last_name and len(parts) == link + 1 else None
    return None


def _within(here: str, made: str) -> bool:
    """(xf48a) Whether folder key ``here`` may be ``made`` or below it (a checkout writes every folder of its
    tree): a folder only the run knows (`$…`) may be any. (xf49b) ``made`` ending `/*`: only below it."""
    if made.endswith(_BELOW):
        top = made[: -len(_BELOW)]
        return "$" in here or "$" in top or here.startswith(top.rstrip("/") + "/")
    return "$" in here or "$" in made or key_within(here, made)


def _glob_words(tokens: list[Token], resolved: list[_Word] | None) -> set[str]:
    """The texts of the words bash globs that hold no `/` (a glob there may expand to a name starting with `-`):
    a glob character no quote made literal, or the value of an unquoted expansion (`x='-del*'; find . $x`,
    `find . $(echo '-del*')`); an extglob group (`@(-delete)`) is one too;
    ``resolved``: each token's values (None when every token is literal text)."""
    globs: set[str] = set()
    for n, token in enumerate(tokens):
        if token.literal is not None:
            if not _active_glob(token):
                continue
            texts: Iterable[str] = expand_braces(token.literal)[0] if token.brace else (token.literal,)
        elif resolved is not None and (
            _active_glob(token) or any(seg.kind != LIT and not seg.quoted for seg in token.segs)
        ):
            texts = resolved[n].texts
        else:
            continue
        globs.update(text for text in texts if "/" not in text and _dash_glob(text))
    return globs


_EXPANSION_START: Final = re.compile(r"[$`]")


def _unknown_widened(word: str) -> str:
    """(adv48) A glob word holding an expansion the reading left unknown (`find . -de$1l*`, `-de${u}l*`, `$@-del*`:
    empty in bash, which globs `-del*`): its text to the expansion, then any text (`-de*`)."""
    found = _EXPANSION_START.search(word)
    return word if found is None else word[: found.start()] + "*"


@lru_cache(maxsize=256)
def _bash_glob(word: str) -> re.Pattern[str]:
    """(adv47) What names bash's glob may expand ``word`` to, widened where Python's fnmatch reads it otherwise:
    a bracket expression (`[[:alpha:]]`, `[^x]`, `[!x]`) is any one character, an extglob group (`@(…)`, `!(…)`,
    `+(…)`, `*(…)`, `?(…)`) any text, and case is ignored (`shopt -s nocaseglob`): a name bash may give the
    program is never left out."""
    out: list[str] = []
    at, end = 0, len(word)
    while at < end:
        char = word[at]
        if char in "@!+*?" and word[at + 1 : at + 2] == "(":
            depth, at = 1, at + 2
            while at < end and depth:
                depth += {"(": 1, ")": -1}.get(word[at], 0)
                at += 1
            out.append(".*")
            continue
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "[":
            close = _bracket_end(word, at)
            if close < 0:
                out.append(re.escape(char))
            else:
                out.append(".")
                at = close
        else:
            out.append(re.escape(char))
        at += 1
    return re.compile("".join(out), re.S | re.I)


def _bracket_end(word: str, at: int) -> int:
    """Where the bracket expression opened at ``at`` closes (its `]`), -1 when it does not (a literal `[`)."""
    inner = at + 1
    if word[inner : inner + 1] in ("!", "^"):
        inner += 1
    if word[inner : inner + 1] == "]":
        inner += 1
    while inner < len(word):
        if word[inner] == "[" and word[inner + 1 : inner + 2] in (":", ".", "="):
            close = word.find(word[inner + 1] + "]", inner + 2)
            if close >= 0:
                inner = close + 2
                continue
        if word[inner] == "]":
            return inner
        inner += 1
    return -1


def _active_glob(token: Token) -> bool:
    """Whether a word holds a glob character bash expands: one no quote or backslash made literal (`-del*""` is
    a glob, `'-del*'` and `-del\\*` are not)."""
    if not token.quoted:
        return _dash_glob(token.value)
    return any(seg.kind == LIT and not seg.quoted and _dash_glob(seg.text) for seg in token.segs)


def _glob_qualifier_scripts(word: str) -> list[str]:
    """(fresh41) The shell code zsh runs for a glob word's qualifiers (its final parenthesized group, after a
    pattern: `*(e:CODE:)`, `**/*(.e{CODE})`, `*(#qe'CODE')`): `e` takes a string between a delimiter and its
    closing one (zsh runs it for each file, after quote removal), `+NAME` runs the command NAME for each
    file. Bash reads such a word as a syntax error or an extended pattern: one more reading, for a terminal
    whose shell is zsh or a `zsh -c` line. A qualifier left unclosed runs the rest of the group."""
    opens: list[int] = []
    start = -1
    glob_before: list[bool] = []
    quote = ""
    glob = False
    i = 0
    while i < len(word):
        c = word[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "(":
            opens.append(i)
            glob_before.append(glob)
        elif c == ")" and opens:
            at, globbed = opens.pop(), glob_before.pop()
            start = at if i == len(word) - 1 and (globbed or word.startswith("#q", at + 1)) else -1
            if start > 0 and word[start - 1] in "$<>=":
                start = -1  # `$(…)`, `<(…)`, `=(…)`: substitutions, read as such
        elif c in "*?[":
            glob = True
        i += 1
    if start < 0 or quote:
        return []
    group = word[start + 1 : -1]
    if _unquoted_index(group, "|", 0) < len(group):
        return []  # `*(a|b)`: a pattern's alternatives (bash's extglob), not qualifiers
    scripts: list[str] = []
    j = 0
    while j < len(group):
        c = group[j]
        if c in "eugP" and j + 1 < len(group) and not group[j + 1].isalnum():
            close = _QUALIFIER_CLOSE.get(group[j + 1], group[j + 1])
            end = _unquoted_index(group, close, j + 2)
            if c == "e":
                scripts.append(_without_quotes(group[j + 2 : end]))
            j = end + 1
        elif c == "+" and (name := _QUALIFIER_NAME.match(group, j + 1)) is not None:
            scripts.append(name.group())
            j = name.end()
        else:
            j += 1
    return scripts


def _unquoted_index(text: str, char: str, start: int) -> int:
    """The index of the first ``char`` in ``text`` from ``start`` outside quotes; len(text) when none."""
    quote = ""
    i = start
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
        elif c == char:
            return i
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        i += 1
    return len(text)


def _without_quotes(text: str) -> str:
    """``text`` after the shell's quote removal (quotes dropped, a backslash keeps the next character)."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote and c == quote:
            quote = ""
        elif not quote and c in "'\"":
            quote = c
        elif c == "\\" and quote != "'" and i + 1 < len(text):
            i += 1
            out.append(text[i])
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _plain_words(text: str) -> list[str] | None:
    """The words of ``text`` when it is one simple command of plain words whose first word assigns
    nothing (_NOT_PLAIN, no reserved word anywhere); else None. `=~` makes the lexer read the
    next word as a regex, and `~+`/`~-` are the shell's folders: such a line is lexed."""
    if len(text) > _PLAIN_MAX or _NOT_PLAIN.search(text) is not None or "=~" in text:
        return None
    if may_name_directory_tilde(text):
        return None  # the shell's $PWD and $OLDPWD tildes: read by _expand's words (see _tilde_dir)
    words = text.split()
    if not words or "=" in words[0] or not _PLAIN_RESERVED.isdisjoint(words):
        return None
    return words


def _referent_name(target: str) -> str | None:
    """The variable a reference's target names (`a[1]`: a); None when it names none for certain."""
    if target == "":
        return ""
    match = _IDENTIFIER.match(target)
    if match is None or (match.end() < len(target) and target[match.end()] != "["):
        return None
    return match.group()


def _define_functions(tokens: list[Token], functions: dict[str, list[list[Token]]]) -> list[tuple[int, int, int]]:
    """Record every `NAME() BODY` and `function NAME [()] BODY` in ``tokens``: NAME -> BODY's
    tokens (a `{ ... }` group or a `( ... )` subshell; the rest of the text when it does not end).
    Returns where each definition begins, where its body begins and where it ends."""
    spans: list[tuple[int, int, int]] = []
    n = len(tokens)
    for i, token in enumerate(tokens):
        if token.kind != "word" or token.literal is None:
            continue
        nested = False
        if token.literal == "function" and i + 1 < n and tokens[i + 1].kind == "word" and _command_word(tokens, i):
            name_at = i + 1
            start = name_at + 1
            if start + 1 < n and tokens[start].value == "(" and tokens[start + 1].value == ")":
                start += 2
        elif i + 2 < n and tokens[i + 1].kind == "op" and tokens[i + 1].value == "(" and tokens[i + 2].value == ")":
            nested = i > 0 and tokens[i - 1].kind == "word" and tokens[i - 1].literal != "function"
            if nested and tokens[i - 1].literal not in _DEFINITION_AFTER:
                continue  # `echo f ()` is no definition
            name_at, start = i, i + 3
        else:
            continue
        name = tokens[name_at].literal
        if not name:
            continue
        while start < n and tokens[start].kind == "nl":
            start += 1
        body = _body(tokens, start)
        functions.setdefault(name, []).append(body)
        if not nested:
            spans.append((i, start, start + len(body)))
        # (open35) `{ f() {…}; f "$(cmd)"; }`, `then f() …`, `do f() …`: its calls are read with their
        # arguments; the compound is read whole (its body as a group there, with the line's "$1")
    return spans


# Words after which `NAME ()` starts a definition inside a compound: a command starts there (_define_functions)
_DEFINITION_AFTER: Final = frozenset({"{", "then", "do", "else", "elif", "if", "while", "until", "!"})
# The operators after which a command starts (no redirection's: `> function f` names a file)
_COMMAND_AFTER: Final = frozenset({";", "&", "|", "&&", "||", "|&", ";;", ";&", ";;&", "(", ")"})


def _command_word(tokens: list[Token], i: int) -> bool:
    """(carr45) Whether the word at ``i`` is where a command starts, the one place `function` is a reserved word:
    `sudo -p function rm -rf ~` gives sudo a prompt and runs rm (read as a definition of `rm`, it ran unread)."""
    if i == 0:
        return True
    before = tokens[i - 1]
    if before.kind == "nl":
        return True
    if before.kind == "op":
        return before.value in _COMMAND_AFTER
    return before.kind == "word" and before.literal in _DEFINITION_AFTER


_COMPOUND_ENDS: Final = {"if": "fi", "for": "done", "while": "done", "until": "done", "select": "done", "case": "esac"}


def _body(tokens: list[Token], start: int) -> list[Token]:
    """The compound command starting at ``start``: up to its matching `}` or `)`."""
    if start >= len(tokens):
        return []
    first = tokens[start]
    opener, closer, kind = ("{", "}", "word") if first.kind == "word" else ("(", ")", "op")
    if first.kind == "word" and first.literal in _COMPOUND_ENDS:
        opener, closer = first.literal, _COMPOUND_ENDS[first.literal]  # `f() if …; fi`
    elif first.value != opener:
        opener, closer, kind = "", "", ""
    openers = {"for", "while", "until", "select"} if closer == "done" else {opener}
    level = 0
    for j in range(start, len(tokens)):
        token = tokens[j]
        if not kind:
            if token.kind in ("op", "nl") and token.value in (";", "\n", "&", "&&", "||"):
                return tokens[start:j]
            continue
        if token.kind == kind and token.value in openers:
            level += 1
        elif token.kind == kind and token.value == closer:
            level -= 1
            if level == 0:
                return tokens[start : j + 1]
    return tokens[start:]


def _split_fields(value: str, separators: str, fields: list[list[str]]) -> None:
    """Append an unquoted expansion's value to ``fields``, starting a new field at each run of
    separators (IFS whitespace)."""
    start = 0
    n = len(value)
    i = 0
    while i < n:
        if value[i] in separators:
            if i > start:
                fields[-1].append(value[start:i])
            while i < n and value[i] in separators:
                i += 1
            if fields[-1]:
                fields.append([])
            start = i
            continue
        i += 1
    if start < n:
        fields[-1].append(value[start:])


def _script_words(program: Program, argv: list[str]) -> list[str] | None:
    """For a program that runs a script named by an operand: that operand (or nothing, when its
    code comes from -c, -e or stdin). None for other programs: all their words are read."""
    for run in program.runs:
        if run.kind == "file" and run.source == "operand":
            parsed = parse_argv(program.grammar, argv)
            present = parsed.present()
            operands = parsed.all_operands(argv)
            if run.applies(present, len(operands)) and len(operands) > run.index:
                return [operands[run.index]]
            return []
    return None


def _names_in(script: str, lex: Callable[[str], list[Token]] = tokenize) -> set[str]:
    """Command names inside a substitution (for fed_by), without recursing further."""
    try:
        pipelines = _split(lex(script))
    except ShellSyntaxError:
        return {"$dynamic"}
    return _names_of(pipelines)


def _names_of(pipelines: list[list[_Raw]]) -> set[str]:
    names: set[str] = set()
    for pipeline in pipelines:
        for raw in pipeline:
            if raw.words:
                literal = raw.words[0].literal
                names.add(command_name(literal) if literal else "$dynamic")
    return names


def parse(text: str, programs: ProgramTable = EMPTY) -> list[Command]:
    """Every simple command ``text`` would run, at each unwrapping stage, reading programs'
    arguments as ``programs`` describes them.

    Raises:
        ShellSyntaxError: the text cannot be parsed (unbalanced quotes, too long, too deep).
    """
    analyzer = Analyzer(programs)
    analyzer.analyze(text)
    return analyzer.commands
