"""Regexes of policies on a linear-time engine.

A pattern regex, a matcher's `text`/`code`/`args` regex, a command-name glob and
a rule or allowlist glob all run on RE2 (google-re2), which matches in time
linear in the text whatever the pattern: an author's `^(a+)+$` over a long word,
or a flag-repetition pattern over `kill -s -s -s ...`, cannot stall the caller.

What RE2 cannot express (backreferences, lookaround, possessive quantifiers)
runs on the `regex` module with a timeout per search (``FALLBACK_TIMEOUT``);
past it, :class:`RegexTimeout` is raised and the evaluator judges the command
as past its budget: approval no grant covers, deny when the flat scan finds
a hardline command. So the worst case of any search is bounded either way.

Python's own syntax stays the reference: a pattern must compile with `re` (its
errors are the ones authors see), `\\Z` means end of text, and `\\w`, `\\s`,
`\\d`, `\\b` are ASCII classes under RE2 (the folded readings cover the rest).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

import regex as fallback_engine
from re2 import _re2

# Seconds one search of a pattern RE2 cannot run may take.
FALLBACK_TIMEOUT = 0.002

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_ANCHOR_START = _re2.RE2.Anchor.ANCHOR_START


class RegexError(ValueError):
    """The pattern does not compile."""


class RegexTimeout(Exception):
    """A search by the bounded fallback engine ran past its timeout."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"the regex {pattern!r} took longer than {FALLBACK_TIMEOUT * 1000:g} ms")
        self.pattern = pattern


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
    """A compiled policy regex: ``search`` and ``match`` return True or None, like a match object's truth."""

    __slots__ = ("_compiled", "_fallback", "linear", "pattern")

    def __init__(self, pattern: str, compiled: Any, fallback: Any) -> None:
        self.pattern = pattern
        self._compiled = compiled
        self._fallback = fallback
        self.linear = compiled is not None

    def search(self, text: str) -> bool | None:
        if self._compiled is not None:
            data = _encode(text)
            return True if self._compiled.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0 else None
        return self._bounded("search", text)

    def match(self, text: str) -> bool | None:
        """Anchored at the start of ``text`` (like ``re.Pattern.match``)."""
        if self._compiled is not None:
            data = _encode(text)
            return True if self._compiled.Match(_ANCHOR_START, data, 0, len(data))[0][0] >= 0 else None
        return self._bounded("match", text)

    def _bounded(self, how: str, text: str) -> bool | None:
        try:
            found = getattr(self._fallback, how)(text, timeout=FALLBACK_TIMEOUT)
        except TimeoutError:
            raise RegexTimeout(self.pattern) from None
        return True if found is not None else None

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r}{'' if self.linear else ', bounded'})"


def compile_linear(pattern: str, flags: int = 0) -> Regex:
    """``pattern`` (Python syntax) on RE2, or on the bounded fallback when RE2 cannot express it.

    Raises:
        RegexError: the pattern is not a valid Python regex.
    """
    try:
        re.compile(pattern, flags)
    except (re.error, OverflowError, RecursionError) as exc:
        raise RegexError(str(exc)) from None
    ignore_case = bool(flags & re.IGNORECASE)
    dot_all = bool(flags & re.DOTALL)
    compiled = _re2.RE2(_encode(_to_re2(pattern)), _options(ignore_case, dot_all))
    if compiled.ok():
        return Regex(pattern, compiled, None)
    try:
        slow = fallback_engine.compile(pattern, flags | fallback_engine.V0)
    except Exception as exc:  # the regex module refusing a pattern `re` accepts: say so, located
        raise RegexError(f"no engine can run it within a bound ({exc})") from None
    return Regex(pattern, None, slow)


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
    return compile_linear(pattern, re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def _glob_class(bracket: str) -> str:
    """One `[...]` of a glob as a regex class, exactly as fnmatch reads it (reversed ranges dropped ...)."""
    translated = fnmatch.translate(bracket)  # "(?s:CLASS)\\Z" for a single bracket expression
    inner = translated[len("(?s:") : -len(")\\Z")]
    return r"\b\B" if inner == "(?!)" else inner  # an empty class never matches


def _to_re2(pattern: str) -> str:
    r"""Python syntax → RE2 syntax where they differ: `\Z` (Python's end of text) is RE2's `\z`."""
    if "\\Z" not in pattern:
        return pattern
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            pair = pattern[i : i + 2]
            out.append("\\z" if pair == "\\Z" else pair)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)
