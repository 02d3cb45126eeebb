"""Regexes of policies on a linear-time engine.

A pattern regex, a matcher's `text`/`code`/`args` regex, a command-name glob and
a rule or allowlist glob all run on RE2 (google-re2), which matches in time
linear in the text whatever the pattern: an author's `^(a+)+$` over a long word,
or a flag-repetition pattern over `kill -s -s -s ...`, cannot stall the caller.

What RE2 cannot express (backreferences, lookaround, possessive quantifiers)
runs on the `regex` module with a budget per search (``FALLBACK_TIMEOUT`` of this
thread's CPU time, confirmed by longer tries, see :func:`bounded`: a busy machine changes no
verdict and fails no `validate`); past it, :class:`RegexTimeout` is raised and the evaluator judges the command
as past its budget: approval no grant covers, deny when the flat scan finds
a hardline command. So the worst case of any search is bounded either way.

Python's own syntax stays the reference: a pattern must compile with `re` (its
errors are the ones authors see), `\\Z` means end of text, and `\\w`, `\\s`,
`\\d`, `\\b` are ASCII classes under RE2 (the folded readings cover the rest).
"""

from __future__ import annotations

import fnmatch
import itertools
import re
import threading
from collections.abc import Callable, Iterator
from importlib import import_module
from time import perf_counter, thread_time

from engine.policy.sre import from_program as _from_program
from engine.policy.sre import sre_program as _sre_program

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Final

# The standard library's own regex parser: its tree tells how a pattern backtracks (see _degree).
re_parser: Any = import_module("re._parser")
C: Any = import_module("re._constants")


def fallback_engine() -> Any:
    """The `regex` module, imported when a pattern first needs it (most never do; it is slow to import)."""
    return import_module("regex")


# CPU seconds (of the searching thread) one search of a pattern RE2 cannot run may take.
FALLBACK_TIMEOUT = 0.002
# The `regex` module's own timeout is wall time: a thread that another process kept off the CPU
# reaches it without having done the work. Such a search is run again with a longer wall timeout,
# judged by the CPU time it took; all tries together are at most this many.
_TRIES: Final = 6
_WALL_FACTOR: Final = 50
# A search refused for its CPU time is refused only when the tries confirming it spend their budget
# too, each this many times the one before (2, 10, 50 ms). One reading of the thread's CPU time can
# hold what was not the search's: a collection by the garbage collector, a page fault, a loaded VM
# whose hypervisor's steal is charged to the running thread. Such noise comes in bursts: a 0.3 µs
# search read over 2 ms twice running in stop 46's CI (and one check in ~13,000 of stop 33's
# differential test). A slow pattern is slow every time: it costs 62 ms of CPU, no more.
_CONFIRMATIONS: Final = 3
_CONFIRM_FACTOR: Final = 5


class _LazyRE2:
    """google-re2's extension module, imported when a pattern is first compiled on RE2: a warm
    ``guard``/``check`` of short texts never does (importing it is ~3 ms of each start). The
    anchors are read with it: only a compiled RE2 object (made after this) uses them."""

    def __getattr__(self, name: str) -> Any:
        global _re2, _UNANCHORED, _ANCHOR_START
        module = import_module("re2._re2")
        _UNANCHORED = module.RE2.Anchor.UNANCHORED
        _ANCHOR_START = module.RE2.Anchor.ANCHOR_START
        _re2 = module
        return getattr(module, name)


_re2: Any = _LazyRE2()
_UNANCHORED: Any = None  # set with _re2
_ANCHOR_START: Any = None


class RegexError(ValueError):
    """The pattern does not compile."""


class RegexTimeout(Exception):
    """A search by the bounded fallback engine ran past its timeout."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"the regex {pattern!r} took longer than {FALLBACK_TIMEOUT * 1000:g} ms")
        self.pattern = pattern


def bounded(pattern: str, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args, timeout=...)`` of the `regex` module within ``FALLBACK_TIMEOUT`` of CPU time.

    The first try has the budget as its wall timeout (the common case: done long before).
    Past it, the CPU time this thread spent tells a slow pattern (it used the budget) from a
    busy machine (it did not: tried again with a longer wall timeout, and the result kept only
    if its CPU time is within the budget). A search that used its budget is tried again with
    ``_CONFIRM_FACTOR`` times the budget, and refused when ``_CONFIRMATIONS`` tries in a row
    use theirs. So the same pattern on the same text is refused or not whatever else the
    machine runs, unless the machine charges the thread tens of milliseconds it did not spend.

    Raises:
        RegexTimeout: the search needs more than the budget of CPU time.
    """
    budget = wall = FALLBACK_TIMEOUT
    spent = 0  # tries that used their whole budget of CPU time
    for _ in range(_TRIES):
        started = thread_time()
        begun = perf_counter()
        try:
            found = call(*args, timeout=wall)
        except TimeoutError:
            if thread_time() - started < budget:
                wall = max(budget, FALLBACK_TIMEOUT * _WALL_FACTOR)  # kept off the CPU: try again, given longer
                continue
        else:
            # Done within the budget by the wall clock: no more CPU time than that was spent (and
            # thread_time is a system call, several µs on a virtual machine; perf_counter is not).
            if perf_counter() - begun <= budget or thread_time() - started <= budget:
                return found
        spent += 1
        if spent == _CONFIRMATIONS:
            break
        budget *= _CONFIRM_FACTOR  # the confirming try: a larger budget, its wall timeout (never more CPU)
        wall = budget
    raise RegexTimeout(pattern)


def _options(ignore_case: bool, dot_all: bool) -> Any:
    options = _re2.RE2.Options()
    options.log_errors = False
    options.never_capture = True
    options.case_sensitive = not ignore_case
    options.dot_nl = dot_all
    return options


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class Regex:
    """A compiled policy regex with ``search`` and ``match`` (truthy on a match, None otherwise).

    Where ``re`` provably runs in linear time on this pattern (see _degree: no quantifier
    that can try every length besides the one scanning the text), ``search``/``match`` are
    ``re``'s own (compiled ASCII, as RE2 reads classes): nothing is faster per call. Otherwise
    texts short enough that ``re``'s backtracking stays under a bound run on ``re``, longer
    ones on RE2 (or on the bounded fallback).

    A regex read back from the compiled-project cache (:func:`_revive`) has no engine compiled
    yet: ``python`` is None, and the first ``search``/``match``/``search_text`` compiles them
    (:meth:`_load`). A plain attribute, not ``__getattr__``: the class is native on the compiled
    build (docs/compiled.md), where a read of an empty slot never reaches ``__getattr__``.
    """

    __slots__ = (
        "_compiled",
        "_fallback",
        "_literals",
        "_match_short",
        "_program",
        "_python",
        "_required",
        "_search_short",
        "flags",
        "glob",
        "linear",
        "match",
        "pattern",
        "search",
    )

    def __init__(
        self,
        pattern: str,
        compiled: Any,
        fallback: Any,
        python: re.Pattern[str] | None,
        shorts: tuple[int, int],
        required: tuple[str, ...] = (),
        flags: int = 0,
        linear: bool | None = None,
        program: tuple[Any, ...] | None = None,
    ) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled = compiled
        self._fallback = fallback
        self._python = python
        self._program = program  # the `re` program a revived regex compiles from (see _load)
        self._search_short, self._match_short = shorts  # texts up to these lengths run on ``re``
        self._required = required  # characters every match contains: a text without one cannot match
        # Texts one of which every match holds (see _literals_of), found when a search first
        # leaves ``re``: an ASCII text holding none of them is not searched on RE2.
        self._literals: tuple[str, ...] | None = _UNREAD
        self.linear = compiled is not None if linear is None else linear
        self.glob: str | None = None  # the glob this was compiled from, if any
        self.search: Callable[[str], object] = self._first_search
        self.match: Callable[[str], object] = self._first_match
        if python is not None:
            self._bind(python)

    def _bind(self, python: re.Pattern[str]) -> None:
        self.search = python.search if self._search_short >= _ANY else self._search
        self.match = python.match if self._match_short >= _ANY else self._match

    def _load(self) -> re.Pattern[str]:
        """Compile ``re``'s engine of a regex read back from the cache (valid when it was written: the
        cache holds only validated projects, so compiling it again cannot fail). RE2's and the
        fallback's are compiled when a text first needs them (:meth:`_long`, :meth:`_bounded`)."""
        python = _from_program(self.pattern, self.flags | re.ASCII, self._program)
        self._python = python
        self._program = None
        self._bind(python)
        return python

    def _first_search(self, text: str) -> object:
        self._load()
        return self.search(text)

    def _first_match(self, text: str) -> object:
        self._load()
        return self.match(text)

    def _search(self, text: str) -> bool | None:
        for ch in self._required:
            if ch not in text:
                return None
        python = self._python if self._python is not None else self._load()
        if len(text) <= self._search_short:
            return True if python.search(text) is not None else None
        if self._none_held(text):
            return None
        if self.linear:
            data = _encode(text)
            return True if self._long().Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0 else None
        return self._bounded("search", text)

    def _match(self, text: str) -> bool | None:
        for ch in self._required:
            if ch not in text:
                return None
        python = self._python if self._python is not None else self._load()
        if len(text) <= self._match_short:
            return True if python.match(text) is not None else None
        if self.linear:
            data = _encode(text)
            return True if self._long().Match(_ANCHOR_START, data, 0, len(data))[0][0] >= 0 else None
        return self._bounded("match", text)

    def search_text(self, text: str) -> object:
        """``search`` over what may be a whole command line: past _LONG_TEXT characters on RE2
        when it can run the pattern (`re` tries each alternative at each position: a
        case-insensitive alternation takes milliseconds over 64 KiB, RE2 a tenth of one)."""
        if len(text) > _LONG_TEXT and self.linear:
            if self._none_held(text):
                return None
            data = _encode(text)
            return True if self._long().Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0 else None
        return self.search(text)

    def _none_held(self, text: str) -> bool:
        """Whether ``text`` is ASCII and holds none of the texts every match holds (_literals_of):
        no match, without a search (RE2's call alone is ~1 µs; `cloud_metadata` went to it for
        every text over 9 characters). A text with other characters is searched: RE2 folds
        some of them to ASCII letters under case folding (the Kelvin sign)."""
        if len(text) > _NONE_HELD_MAX:
            return False  # (a long text: RE2's one pass costs less than lowering it and a pass a literal)
        literals = self._literals
        if literals is _UNREAD:
            tree = re_parser.parse(self.pattern, self.flags)
            fold = bool((self.flags | tree.state.flags) & re.IGNORECASE)
            found = _literals_of(list(tree), fold)
            if found is not None and (len(found) > _MAX_LITERALS or min(len(t) for t in found) < 2):
                found = None  # looking costs more than it saves (a path class's hundred choices, a `/`)
            # ("" first: the text is lowered before it is looked in, the literals being lowered)
            literals = self._literals = None if found is None else ("" if fold else "\0", *found)
        if literals is None or not text.isascii():
            return False
        looked = text.lower() if not literals[0] else text
        return all(literal not in looked for literal in literals[1:])

    def _long(self) -> Any:
        """RE2's program (compiled here first for a regex read back from the cache)."""
        if self._compiled is None:
            pattern, flags = self.pattern, self.flags
            tree = re_parser.parse(pattern, flags)
            self._compiled = _re2.RE2(_encode(_to_re2(pattern, tree.state.flags)), _regex_options(flags))
        return self._compiled

    def _bounded(self, how: str, text: str) -> bool | None:
        if self._fallback is None:  # a regex read back from the cache
            self._fallback = fallback_engine().compile(self.pattern, self.flags | fallback_engine().V0)
        found = bounded(self.pattern, getattr(self._fallback, how), text)
        return True if found is not None else None

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r}{'' if self.linear else ', bounded'})"

    def __reduce__(self) -> tuple[Any, ...]:
        # For the compiled-project cache (engine.guard.cache): the pattern and what compiling it
        # found; read back, it is compiled again on first use, on the same engines as before.
        state = (self.pattern, self.flags, self._search_short, self._match_short, self._required, self.linear)
        key = (self.pattern, self.flags | re.ASCII)
        program = self._program
        if self._python is not None:
            program = _PROGRAMS[key] if key in _PROGRAMS else _sre_program(*key)
        return (_revive, (*state, self.glob, program))


# -- one long text searched by many regexes: their literals read in one pass first -----------------
_MAX_FILTERED = 256  # regexes held by the prefilter (more: each searched alone)


class _Prefilter:
    """The linear regexes searched so far by ``search_among``, in one RE2 FilteredRE2: one pass of
    the literals each needs (its atoms, matched case-insensitively: a superset) over a text says
    which may match it; the others cannot (RE2's own guarantee for the same pattern and options)
    and need no search. The last text's answer is kept (by identity) with the filter it came from.

    Fail closed: the binding drops the atom pass's own result (RE2::Set::Match returns false when its
    DFA runs out of memory, and the binding then reads "no atom": every filtered regex skipped). So
    the filter's regex 0 is a canary whose only atom is _CANARY, and every text is searched with
    _CANARY after it: an answer without the canary is a failed pass, and every regex may match."""

    __slots__ = ("filter", "index", "kept", "last", "lock")

    def __init__(self) -> None:
        self.index: dict[int, int] = {}  # id(regex) -> its number in the filter
        self.kept: list[Regex] = []  # the regexes, in order (kept alive: their ids stay theirs)
        self.filter: Any = None
        self.last: tuple[str | None, Any, frozenset[int]] = (None, None, frozenset())
        self.lock = threading.Lock()

    def number(self, regex: Regex) -> int:
        """``regex``'s number in the filter (added when first asked); -1 when it is not in it."""
        known = self.index.get(id(regex))
        if known is not None:
            return known
        with self.lock:
            known = self.index.get(id(regex))
            if known is not None:
                return known
            if len(self.kept) >= _MAX_FILTERED:
                return -1
            built = _re2.Filter()
            if built.Add(_CANARY, _regex_options(0)) != 0:
                return -1
            for n, each in enumerate((*self.kept, regex), 1):
                tree = re_parser.parse(each.pattern, each.flags)
                pattern = _encode(_to_re2(each.pattern, tree.state.flags))
                if built.Add(pattern, _regex_options(each.flags)) != n:
                    return -1  # (only the new one can fail: the others were added before)
            if not built.Compile():
                return -1
            self.kept.append(regex)
            self.filter = built
            self.index[id(regex)] = len(self.kept)
            return len(self.kept)

    def possible(self, text: str) -> frozenset[int]:
        """The numbers of the regexes that may match ``text``."""
        filtered = self.filter
        last = self.last
        if last[0] is text and last[1] is filtered:
            return last[2]
        found = frozenset(filtered.Match(_encode(text) + b" " + _CANARY, True))
        if 0 not in found:  # the atom pass failed (see the class): every regex may match
            found = frozenset(range(len(self.kept) + 1))
        self.last = (text, filtered, found)
        return found


_CANARY = b"hermescanaryq7zx"  # the prefilter's regex 0: its one atom, after every text it is given
_PREFILTER = _Prefilter()


def search_among(regex: Regex, text: str) -> object:
    """``regex.search_text(text)``, for a long text many regexes search in turn (an inline program,
    by every `code` matcher): a regex whose literals the text lacks is not searched (_Prefilter)."""
    if len(text) > _LONG_TEXT and regex.linear:
        number = _PREFILTER.number(regex)
        if number >= 0 and number not in _PREFILTER.possible(text):
            return None
    return regex.search_text(text)


def _revive(
    pattern: str,
    flags: int,
    search_short: int,
    match_short: int,
    required: tuple[str, ...],
    linear: bool,
    glob: str | None,
    program: tuple[Any, ...] | None = None,
) -> Regex:
    """A :class:`Regex` read back from the cache: its engines compiled when first used."""
    regex = Regex(pattern, None, None, None, (search_short, match_short), required, flags, linear, program)
    regex.glob = glob
    return regex


def _regex_options(flags: int) -> Any:
    return _options(bool(flags & re.IGNORECASE), bool(flags & re.DOTALL))


# The `re` program of each pattern compile_linear compiled in this process, by (pattern, flags): the
# pattern is parsed once for `re` (not again by re.compile) and, when the compiled project is
# written (engine.guard.cache), its program is not worked out a second time (Regex.__reduce__).
_PROGRAMS: dict[tuple[str, int], tuple[Any, ...] | None] = {}
_MAX_PROGRAMS = 4096


def _compiled_python(pattern: str, flags: int) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from a program worked out once (see _PROGRAMS).

    Raises:
        re.error: as re.compile (an invalid pattern is compiled by it, to say why).
    """
    key = (pattern, flags)
    if key in _PROGRAMS:
        program = _PROGRAMS[key]
    else:
        program = _sre_program(pattern, flags)
        if len(_PROGRAMS) >= _MAX_PROGRAMS:
            _PROGRAMS.clear()
        _PROGRAMS[key] = program
    return _from_program(pattern, flags, program)


def compile_linear(pattern: str, flags: int = 0) -> Regex:
    """``pattern`` (Python syntax) on RE2, or on the bounded fallback when RE2 cannot express it.

    Raises:
        RegexError: the pattern is not a valid Python regex.
    """
    try:
        python = _compiled_python(pattern, flags | re.ASCII)
        tree = re_parser.parse(pattern, flags)
    except (re.error, OverflowError, RecursionError) as invalid:
        raise RegexError(str(invalid)) from None
    items = list(tree)
    degree = _degree(items)
    starts = 0 if _anchored(items, tree.state.flags) else 1  # an unanchored search tries every start
    shorts = (_short(None if degree is None else degree + starts), _short(degree))
    ignore_case = bool(flags & re.IGNORECASE)
    dot_all = bool(flags & re.DOTALL)
    compiled = _re2.RE2(_encode(_to_re2(pattern, tree.state.flags)), _options(ignore_case, dot_all))
    required = tuple(sorted(_required(items, bool((flags | tree.state.flags) & re.IGNORECASE))))
    if compiled.ok():
        return Regex(pattern, compiled, None, python, shorts, required, flags)
    try:
        slow = fallback_engine().compile(pattern, flags | fallback_engine().V0)
    except Exception as refused:  # the regex module refusing a pattern `re` accepts: say so, located
        raise RegexError(f"no engine can run it within a bound ({refused})") from None
    return Regex(pattern, None, slow, python, shorts, required, flags)


def _short(degree: int | None) -> int:
    """The longest text ``re`` may take for a backtracking cost of degree ``degree`` (-1: none)."""
    if degree is None:
        return -1
    if degree <= 1:
        return _ANY  # linear: any text
    return int(_BACKTRACK_STEPS ** (1 / degree))


_LONG_TEXT: Final = 4096  # characters past which search_text runs on RE2
_NONE_HELD_MAX: Final = 1024  # characters past which Regex._none_held looks for no literal (RE2 searches)
_UNREAD: Final[tuple[str, ...]] = ("not read yet",)  # Regex._literals before its first long search
_MAX_LITERALS: Final = 24
# Backtracking steps ``re`` may take on one text: texts up to the length where n ** degree
# reaches this run on ``re``; longer ones on RE2.
_BACKTRACK_STEPS = 1 << 16
_ANY = 1 << 62
_SINGLE = frozenset({C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY})
_REPEATS = frozenset({C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT})


def _degree(items: list[Any]) -> int | None:
    """The degree d of a polynomial bound O(n ** d) on ``re``'s backtracking for one start, or None.

    Each unbounded quantifier may try every length: a sequence adds their degrees. A repeated
    group that can match in more than one way (a quantifier or a choice inside) may take
    exponential time: None.
    """
    total = 0
    for op, av in items:
        if op in _SINGLE or op is C.AT:
            continue
        if op is C.SUBPATTERN:
            inner = _degree(list(av[-1]))
        elif op is C.ATOMIC_GROUP:
            inner = _degree(list(av))
        elif op is C.BRANCH:
            branches = [_degree(list(b)) for b in av[1]]
            inner = None if any(b is None for b in branches) else max(b for b in branches if b is not None)
        elif op in _REPEATS:
            _, high, item = av
            body = list(item)
            inner = _degree(body)
            if inner is None:
                return None
            if high > 1 and not all(o in _SINGLE for o, _ in body):
                return None
            inner += 1 if high is C.MAXREPEAT or high > 32 else 0
        elif op in (C.ASSERT, C.ASSERT_NOT):
            inner = _degree(list(av[1]))
        elif op is C.GROUPREF:
            inner = 1
        else:
            return None
        if inner is None:
            return None
        total += inner
    return total


def _literals_of(items: list[Any], fold: bool) -> tuple[str, ...] | None:
    """Texts one of which every match of this sequence holds (lowercased under case folding), or
    None when none is known. Of a sequence: the best of its runs of ASCII literals and of what
    its groups, choices and repeats of at least one hold (the longest shortest text, then the
    fewest); of a choice: what each branch holds, together (None if one holds none). A group
    that changes the flags, a class, a lookaround or anything else holds none (it breaks a run)."""
    options: list[tuple[str, ...]] = []
    run: list[str] = []
    for op, av in items:
        if op is C.LITERAL and av < 128:
            run.append(chr(av).lower() if fold else chr(av))
            continue
        if run:
            options.append(("".join(run),))
            run = []
        inner: tuple[str, ...] | None = None
        if op is C.SUBPATTERN and not av[1] and not av[2]:
            inner = _literals_of(list(av[-1]), fold)
        elif op is C.ATOMIC_GROUP:
            inner = _literals_of(list(av), fold)
        elif op in _REPEATS and av[0] >= 1:
            inner = _literals_of(list(av[2]), fold)
        elif op is C.BRANCH:
            held: list[str] = []
            for branch in av[1]:
                each = _literals_of(list(branch), fold)
                if each is None:
                    held = []
                    break
                held.extend(each)
            if held:
                inner = tuple(dict.fromkeys(held))
        if inner is not None:
            options.append(inner)
    if run:
        options.append(("".join(run),))
    if not options:
        return None
    return max(options, key=lambda texts: (min(len(t) for t in texts), -len(texts)))


def _required(items: list[Any], fold: bool) -> set[str]:
    """Characters every match of this sequence contains (literals outside options and choices).

    Under case folding only characters that have no other case count.
    """
    found: set[str] = set()
    for op, av in items:
        if op is C.LITERAL:
            ch = chr(av)
            if not fold or ch.lower() == ch.upper():
                found.add(ch)
        elif op is C.SUBPATTERN:
            found |= _required(list(av[-1]), (fold or bool(av[1] & re.IGNORECASE)) and not av[2] & re.IGNORECASE)
        elif op is C.BRANCH:
            branches = [_required(list(b), fold) for b in av[1]]
            found |= set.intersection(*branches) if branches else set()
        elif op in _REPEATS and av[0] >= 1:
            found |= _required(list(av[2]), fold)
        elif op is C.ASSERT and av[0] == 1:  # a lookahead must match in the text too
            found |= _required(list(av[1]), fold)
    return found


def _anchored(items: list[Any], flags: int) -> bool:
    if not items:
        return False
    first = items[0]
    return bool(
        first == (C.AT, C.AT_BEGINNING_STRING) or (first == (C.AT, C.AT_BEGINNING) and not flags & re.MULTILINE)
    )


# Where a glob may hold a bracket expression fnmatch reads otherwise than bash (see bash_brackets).
_BASH_BRACKET = re.compile(r"\[[:=.^]")


def bash_brackets(word: str) -> str:
    """``word`` with bash's bracket expressions that fnmatch (glob's reading) spells otherwise made
    its own: `[^a]` is `[!a]`, and one holding a class, an equivalence class or a collating symbol
    (`[[:alpha:]]`, `[[=a=]]`, `[[.a.]]`: fnmatch reads `[[:alpha:]` then a `]`) is `?`, any one
    character (more than bash matches: the landings are a superset, never fewer)."""
    out: list[str] = []
    i, n = 0, len(word)
    while i < n:
        if word[i] != "[":
            out.append(word[i])
            i += 1
            continue
        j = i + 1
        negated = j < n and word[j] in "!^"
        j += negated
        j += j < n and word[j] == "]"  # a leading `]` is a member
        special = False
        while j < n and word[j] != "]":
            if word[j] == "[" and j + 1 < n and word[j + 1] in ":=.":
                close = word.find(word[j + 1] + "]", j + 2)
                if close >= 0:
                    special, j = True, close + 2
                    continue
            j += 1
        if j >= n:  # no closing `]`: a literal `[`
            out.append("[")
            i += 1
            continue
        out.append("?" if special else "[!" + word[i + 2 : j + 1] if negated else word[i : j + 1])
        i = j + 1
    return "".join(out)


def compile_glob(glob: str, *, ignore_case: bool = False) -> Regex:
    """A shell-style glob (`*`, `?`, `[...]`, `[!...]`) that must match the whole text; `*` crosses `/`."""
    out: list[str] = []
    i = 0
    n = len(glob)
    while i < n:
        ch = glob[i]
        i += 1
        if ch == "*":
            while i < n and glob[i] == "*":
                i += 1
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            j = i + 1 if i < n and glob[i] == "!" else i
            j = j + 1 if j < n and glob[j] == "]" else j  # a leading ] is a member
            end = glob.find("]", j)
            if end < 0:
                out.append("\\[")
                continue
            out.append(_glob_class(glob[i - 1 : end + 1]))
            i = end + 1
        else:
            out.append(re.escape(ch))
    pattern = "(?:" + "".join(out) + ")\\Z"
    compiled = compile_linear(pattern, re.DOTALL | (re.IGNORECASE if ignore_case else 0))
    compiled.glob = glob
    return compiled


class Finder:
    """Every match of a literal-heavy pattern in a text, on RE2 (linear, and fast where nothing matches).

    Works on the UTF-8 bytes of the text: positions are byte offsets. ``lazy``: compiled when
    first searched (a process that never searches with it builds no RE2 program; a pattern RE2
    refuses raises then).
    """

    __slots__ = ("_compiled", "_pattern")

    def __init__(self, pattern: str, lazy: bool = False) -> None:
        self._pattern = pattern
        self._compiled: Any = None
        if not lazy:
            self._compile()

    def _compile(self) -> Any:
        options = _options(ignore_case=True, dot_all=False)
        options.never_capture = True
        compiled = _re2.RE2(_encode(self._pattern), options)
        if not compiled.ok():
            raise RegexError(compiled.error().decode("utf-8", "replace"))
        self._compiled = compiled
        return compiled

    def spans(self, data: bytes) -> Iterator[tuple[int, int]]:
        pos = 0
        end = len(data)
        match = (self._compiled or self._compile()).Match
        while pos <= end:
            start, stop = match(_UNANCHORED, data, pos, end)[0]
            if start < 0:
                return
            yield start, stop
            pos = stop if stop > start else stop + 1


class AnchoredRun:
    """Where the match of a pattern from a place of an ASCII text ends, on RE2 (linear; for a
    pattern read one way only from any place: alternatives that start with different characters,
    nothing after its repetitions, so RE2's match is the one `re` finds)."""

    __slots__ = ("_compiled", "_pattern")

    def __init__(self, pattern: str) -> None:
        self._pattern = pattern
        self._compiled: Any = None

    def _compile(self) -> Any:
        compiled = _re2.RE2(_encode(self._pattern), _options(ignore_case=False, dot_all=True))
        if not compiled.ok():
            raise RegexError(compiled.error().decode("utf-8", "replace"))
        self._compiled = compiled
        return compiled

    def end(self, data: bytes, pos: int) -> int:
        """The end of the match from ``pos`` of ``data`` (ASCII), ``pos`` when there is none."""
        start, stop = (self._compiled or self._compile()).Match(_ANCHOR_START, data, pos, len(data))[0]
        return stop if start >= 0 else pos


def glob_in_word(glob: str, word: str) -> str:
    """A regex for ``glob`` where ``word`` (a class of characters) is what `*` and `?` may match."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        ch = glob[i]
        i += 1
        if ch == "*":
            out.append(word + "*")
        elif ch == "?":
            out.append(word)
        elif ch == "[" and glob.find("]", i + 1) > 0:
            end = glob.find("]", i + 1)
            out.append(_glob_class(glob[i - 1 : end + 1]))
            i = end + 1
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _glob_class(bracket: str) -> str:
    """One `[...]` of a glob as a regex class, exactly as fnmatch reads it (reversed ranges dropped ...)."""
    translated = fnmatch.translate(bracket)  # "(?s:CLASS)\\Z" for a single bracket expression
    inner = translated[len("(?s:") : -len(")\\Z")]
    return r"\b\B" if inner == "(?!)" else inner  # an empty class never matches


def _to_re2(pattern: str, flags: int) -> str:
    r"""Python syntax → RE2 syntax where they differ.

    `\Z` (Python's end of text) is RE2's `\z`; Python's `$` also matches before a final
    newline, which RE2's does not (a boolean search cannot tell `\n?\z` from it).
    """
    if "\\Z" not in pattern and ("$" not in pattern or flags & re.MULTILINE):
        return pattern
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            pair = pattern[i : i + 2]
            out.append("\\z" if pair == "\\Z" and not in_class else pair)
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            out.append(ch)
            i += 1
            # A leading ^ and a ] right after the bracket are members, not the end.
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append("]")
                i += 1
            continue
        elif ch == "$" and not flags & re.MULTILINE:
            out.append("(?:\\n?\\z)")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# -- long texts: an `re` pattern tried only where RE2 finds a match may start --------------------
# Below this many characters an `re` scan is cheaper than an RE2 search and its Python calls.
_LOCATE_FROM = 2048
# Places RE2 finds where `re` then finds no match, past which the rest of the text is scanned by
# `re` itself (a text built to make RE2 find a place at every word costs what `re` alone does).
_MAX_MISSES = 64


def without_lookarounds(pattern: str) -> str:
    """``pattern`` with its lookahead and lookbehind groups taken out (a zero-width test dropped:
    every match of ``pattern`` is then a match of the result at the same start, and more)."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    skipping = 0  # depth of the lookaround group being dropped (0: none)
    depth = 0
    in_class = False
    while i < n:
        ch = pattern[i]
        step = 2 if ch == "\\" else 1
        if not in_class and ch == "(" and skipping == 0 and pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            skipping = depth + 1
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                step = 2
            if pattern[i + step : i + step + 1] == "]":
                step += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if skipping and depth < skipping:
                skipping = 0
                i += 1
                continue
        if not skipping:
            out.append(pattern[i : i + step])
        i += step
    return "".join(out)


class Located:
    """``finditer``/``search`` of an `re` pattern that, over a long ASCII text, tries a match only
    where RE2 finds its lookaround-free form (without_lookarounds: a superset, linear and fast
    where nothing matches) starting: the same matches as `re`'s own scan, in the same order. A
    short or non-ASCII text (RE2 reads classes as ASCII) is scanned by `re` alone."""

    __slots__ = ("_compiled", "python")

    def __init__(self, python: re.Pattern[str]) -> None:
        self.python = python
        self._compiled: Any = None

    def _starts(self) -> Any:
        flags = self.python.flags
        options = _options(ignore_case=True, dot_all=bool(flags & re.DOTALL))
        options.never_capture = True
        prefix = "(?m)" if flags & re.MULTILINE else ""
        compiled = _re2.RE2(_encode(prefix + without_lookarounds(self.python.pattern)), options)
        if not compiled.ok():
            raise RegexError(compiled.error().decode("utf-8", "replace"))
        self._compiled = compiled
        return compiled

    def finditer(self, text: str, limit: int) -> list[re.Match[str]]:
        """The first ``limit`` matches of ``self.python.finditer(text)``."""
        python = self.python
        if len(text) < _LOCATE_FROM or not text.isascii():
            return list(itertools.islice(python.finditer(text), limit))
        data = text.encode("ascii")
        search = (self._compiled or self._starts()).Match
        end = len(data)
        out: list[re.Match[str]] = []
        pos = 0
        misses = 0
        while pos <= end and len(out) < limit:
            at = search(_UNANCHORED, data, pos, end)[0][0]
            if at < 0:
                break
            found = python.match(text, at)
            if found is None:
                misses += 1
                if misses > _MAX_MISSES:
                    out += itertools.islice(python.finditer(text, at), limit - len(out))
                    break
                pos = at + 1
                continue
            out.append(found)
            pos = found.end() if found.end() > at else at + 1
        return out

    def search(self, text: str) -> re.Match[str] | None:
        """``self.python.search(text)``."""
        found = self.finditer(text, 1)
        return found[0] if found else None
