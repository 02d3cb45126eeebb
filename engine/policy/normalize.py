"""Readings of a command: the text the shell receives, and what display tricks make of it.

The shell runs the raw text, so the raw text alone gives a command its structure
(words, quotes, comments, operators, continuations, here-documents). Terminal
escapes, control and invisible characters, compatibility forms (NFKC) and
look-alike letters change what a human reviewer sees, what another interpreter
runs (PowerShell reads `–` as `-` and `“` as `"`), or how a regex over the text
reads it: each folding only adds a *reading* that is judged as well, and the
verdict is the strictest over all readings. None of them is ever used instead
of the raw text.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable

from engine.records import FrozenRecord

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Final

# Anything but printable ASCII, tab and newline: only such text has other readings.
_SUSPECT = re.compile(r"[^\t\n\x20-\x7e]")
# C0 and C1 controls other than tab and newline (DEL included).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_CODES = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]  # the same characters
_CONTROL_DELETED = dict.fromkeys(_CONTROL_CODES)
_CONTROL_BLANKED = dict.fromkeys(_CONTROL_CODES, " ")


def _controls(text: str, replacement: str = "") -> str:
    """``text`` with each control character (_CONTROL) replaced. On ASCII text a translation (C,
    20 times faster over 64 KiB than the regex, which stops at each of thousands of controls);
    other text goes by the regex (`str.translate` maps a wide text character by character)."""
    if text.isascii():
        return text.translate(_CONTROL_BLANKED if replacement else _CONTROL_DELETED)
    return _CONTROL.sub(replacement, text)


# Terminal escape sequences, each bounded: an unterminated string sequence (OSC, DCS,
# SOS, PM, APC) loses only its introducer here, never the text after it.
# Each repeat is possessive (`re` never backtracks into it): the character after it is of a class the
# repeat cannot hold, so giving characters back could never let the rest match (and over thousands
# of unterminated `ESC ]` it cost a fifth of the time).
_ESCAPES = re.compile(
    r"\x1b\[[0-?]{0,64}+[ -/]{0,16}+[@-~]"  # CSI: colours, cursor moves
    r"|\x9b[0-?]{0,64}+[ -/]{0,16}+[@-~]"  # 8-bit CSI
    # Terminated strings; their body holds no other introducer, so a match is short where they repeat.
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x90\x98\x9b-\x9f]{0,4096}+(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -/]{0,4}+[0-~]"  # two-byte escapes (and nF sequences)
)
# The same sequences as _ESCAPES, in the same order, with the ESC ones behind one `\x1b` (`re` tries one
# alternative at each position instead of four: a third of the time over thousands of escapes); on
# ASCII text only (no C1 control, so none of _ESCAPES's other alternatives can match).
_ESCAPES_ASCII = re.compile(
    r"\x1b(?:\[[0-?]{0,64}+[ -/]{0,16}+[@-~]"  # CSI
    r"|[\]PX^_][^\x07\x1b\x90\x98\x9b-\x9f]{0,4096}+(?:\x07|\x1b\\|\x9c)"  # terminated strings
    r"|[ -/]{0,4}+[0-~])"  # two-byte escapes
)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]"
)
# Characters that read as shell syntax or as ASCII letters to a person or another
# program, and that NFKC leaves alone.
_CONFUSABLES = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2035", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036", '"'),
        **dict.fromkeys("\u2215\u2044\u29f8", "/"),
        **dict.fromkeys("\u29f5\u29f9\u2216", "\\"),
        **dict.fromkeys("\u2217\u204e\u2731", "*"),
        **dict.fromkeys("\u223c\u2053\u02dc", "~"),
        **dict.fromkeys("\u01c0\u2223\u23d0", "|"),
        **dict.fromkeys("\u037e", ";"),
        **dict.fromkeys("\u0589\u2236", ":"),
        # Latin look-alikes from Cyrillic and Greek.
        **dict(zip("аеорсухѕіјһԁԛԝӏмт", "aeopcyxsijhdqwlmt", strict=True)),
        **dict(zip("АВЕКМНОРСТХЅІЈ", "ABEKMHOPCTXSIJ", strict=True)),
        **dict(zip("αοριτκνυε", "aopitkvue", strict=True)),
        **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
    }
)


class Readings(FrozenRecord):
    """The raw text and every other reading of it (each distinct from the raw text and the others)."""

    __slots__ = ("raw", "extra", "disguised")  # noqa: RUF023  (the fields' order)

    raw: str
    extra: tuple[str, ...]
    # Set when the text holds control characters, terminal escapes or characters that
    # NFKC or the removal of invisible characters changes: nobody can read it for certain.
    disguised: str | None

    def __init__(self, raw: str, extra: tuple[str, ...] = (), disguised: str | None = None) -> None:
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "extra", extra)
        object.__setattr__(self, "disguised", disguised)


# An escape sequence may start here: ESC, or a C1 control that introduces one (CSI, DCS, SOS, OSC, PM, APC).
_INTRODUCER = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
# Where an ASCII escape may be longer than ESC and one character (_ESCAPES_ASCII): a CSI (`ESC [`), an
# nF sequence (`ESC` then `[ -/]`), or a string ended by `ESC \` (or by BEL, asked apart: one memchr).
_ESCAPE_LONGER = re.compile(r"\x1b[ -/\[\\]")
# An escape's introducer: ESC and the printable character after it (C1 controls go with the rest).
_INTRODUCED = re.compile(r"\x1b[\x20-\x7e]?")
# Deletion readings enumerated per escape, past which only the uniform ones are made (see _deletions).
_MIXED_READINGS = 27
_MIXED_LENGTH = 4096


def _deletions(text: str) -> list[str]:
    """The text with its control characters and escape sequences deleted, in every plausible way.

    Each escape is read three ways: its first character alone deleted (a lone control), its
    introducer deleted (ESC and the character after it, as a disguise inserted it), or the whole
    sequence as a terminal consumes it (an unterminated string sequence is only its introducer:
    it never eats the text after it). Then every other control character is deleted. With few
    escapes in a short text every combination is a reading (the disguise may mix kinds); past
    that, each way applied to all of them.
    """
    mixed = _mixed(text) if len(text) <= _MIXED_LENGTH else None
    if mixed is None:  # uniform: each way for every escape, linear in the text
        if text.isascii():
            # No C1 control: an escape starts at ESC, and without one both ways delete nothing.
            if "\x1b" not in text:
                return [_controls(text)]
            introduced = _INTRODUCED.sub("", text)
            if "\x07" not in text and _ESCAPE_LONGER.search(text) is None:
                # Every escape is ESC and one character, or ESC alone (before a control or at the end):
                # _ESCAPES_ASCII's reading is _INTRODUCED's once the controls are deleted (~2 ms over
                # 8,000 `ESC ]`, each one a match of both).
                return list(dict.fromkeys(_controls(t) for t in (text, introduced)))
            uniform = (text, introduced, _ESCAPES_ASCII.sub("", text))
        else:
            uniform = (text, _INTRODUCED.sub("", text), _ESCAPES.sub("", text))
        return list(dict.fromkeys(_controls(t) for t in uniform))
    spans, picks = mixed
    out: dict[str, None] = {}
    for pick in picks:
        parts: list[str] = []
        at = 0
        for start, end in zip(spans, pick, strict=True):
            if start < at:
                continue  # inside an escape deleted whole
            parts.append(text[at:start])
            at = end
        parts.append(text[at:])
        out[_controls("".join(parts))] = None
    return list(out)


def _mixed(text: str) -> tuple[list[int], Iterable[tuple[int, ...]]] | None:
    """Where each escape starts and every combination of where it may end; None past _MIXED_READINGS."""
    starts: list[int] = []
    stops: list[tuple[int, ...]] = []
    choices = 1
    for found in _INTRODUCER.finditer(text):
        start = found.start()
        ends = {start + 1}
        if text[start] == "\x1b" and start + 1 < len(text) and "\x20" <= text[start + 1] <= "\x7e":
            ends.add(start + 2)
        full = _ESCAPES.match(text, start)
        if full is not None:
            ends.add(full.end())
        choices *= len(ends)
        if choices > _MIXED_READINGS:
            return None
        starts.append(start)
        stops.append(tuple(sorted(ends)))
    return starts, itertools.product(*stops)


# Printable ASCII, tab and newline: an ASCII text without other characters has no other reading.
_PLAIN_BYTES: Final = bytes(range(0x20, 0x7F)) + b"\t\n"
_SHORT: Final = 512  # ASCII texts up to this long are tested with str.isprintable (see suspicious)


def suspicious(text: str) -> bool:
    """Whether ``text`` has characters any folding could change (false for printable ASCII). For
    ASCII text, whether it holds a control character (_CONTROL) other than tab and newline."""
    if not text.isascii():
        return True  # a character past ASCII is one _SUSPECT finds
    if len(text) > _SHORT:
        # One C pass: the text's bytes without every plain one (`str.isprintable` looks each character
        # up in the Unicode tables: ~0.18 ms over 64 KiB, this ~0.03).
        return bool(text.encode("ascii").translate(None, _PLAIN_BYTES))
    if text.isprintable():
        return False  # the common case, without a regex
    # ASCII with line breaks or tabs (a program, a here-document): a control character other than
    # those is what _SUSPECT finds. Two C replaces and a test, not a regex stopping at each character.
    return not text.replace("\n", " ").replace("\t", " ").isprintable()


# Runs of non-ASCII characters, each folded with the character before it (a letter a combining mark
# after it composes with: `e` + U+0301 is `é`). NFKC leaves ASCII alone, and no ASCII character
# composes with one before it (ASCII characters are starters, none is the second of a composition):
# the NFKC of a text is that of each run in place. A long text with a few disguised characters (64
# KiB of commands and one fullwidth letter) is folded in its runs, found by halving the text where a
# half is not all ASCII (`str.isascii` is a flag: a slice's copy is the cost) instead of NFKC and
# invisible-stripping over the whole text; past _FEW_RUNS runs the text is folded whole.
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_FEW_RUNS = 64
_SCANNED = 512  # a stretch this short is searched by the regex


def _non_ascii_runs(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Append to ``out`` the spans of non-ASCII characters in text[start:end] (a run across a halving
    point as two adjacent spans), stopping past _FEW_RUNS of them."""
    if len(out) > _FEW_RUNS or text[start:end].isascii():
        return
    if end - start <= _SCANNED:
        out += [run.span() for run in _NON_ASCII.finditer(text, start, end)]
        return
    middle = (start + end) // 2
    _non_ascii_runs(text, start, middle, out)
    _non_ascii_runs(text, middle, end, out)


def _folded(text: str) -> str:
    """``text`` without invisible characters, NFKC-normalized (then without the invisible ones NFKC made)."""
    if len(text) <= 4 * _SCANNED:
        return _folded_whole(text)
    spans: list[tuple[int, int]] = []
    _non_ascii_runs(text, 0, len(text), spans)
    if len(spans) > _FEW_RUNS:
        return _folded_whole(text)
    pieces: list[str] = []
    at = 0
    for begin, end in spans:
        if begin == at and pieces:  # the second half of a run cut at a halving point
            pieces[-1] += text[begin:end]
        else:
            pieces += (text[at : begin - 1], text[begin - 1 : end]) if begin > 0 else ("", text[begin:end])
        at = end
    folded = [piece if i % 2 == 0 else _folded_whole(piece) for i, piece in enumerate(pieces)]
    return "".join(folded) + text[at:]


def _folded_whole(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text)
    if folded.isascii():
        # No invisible character was there: NFKC never deletes a character, each invisible one's
        # decomposition holds a character past ASCII (tests/redteam/test_flat31_readings.py), and a
        # composition is never ASCII. 64 KiB of fullwidth letters: NFKC, without a regex search of
        # the wide text (~0.5 ms).
        return folded
    bare = text
    if _INVISIBLE.search(text) is not None:
        bare = _INVISIBLE.sub("", text)
        folded = unicodedata.normalize("NFKC", bare)
    if folded != bare and not folded.isascii():
        folded = _INVISIBLE.sub("", folded)  # NFKC can produce some of them (none is ASCII)
    return folded


def readings(text: str, suspect: bool = False) -> Readings:
    """Every reading of ``text``: itself first, then each folding that changes it. ``suspect``: the
    caller found suspicious(text) true (not asked again)."""
    if not suspect and not suspicious(text):
        return Readings(text)
    bases = [text]
    reasons: list[str] = []
    # A suspicious ASCII text holds a control character (see suspicious): no regex over it all.
    if text.isascii() or _CONTROL.search(text):
        reasons.append("control characters or terminal escapes")
        bases += _deletions(text)
        # What a program that splits on control characters reads.
        bases.append(_controls(text.replace("\r", "\n"), " "))
    found = bases[1:]
    compatibility = False
    for base in bases:
        if base.isascii():
            continue
        folded = _folded(base)
        compatibility = compatibility or folded != base
        # Every look-alike _CONFUSABLES maps is past ASCII: an ASCII fold has no other reading.
        found += [folded] if folded.isascii() else [folded, folded.translate(_CONFUSABLES)]
    if compatibility:
        reasons.append("invisible or compatibility characters")
    extra = tuple(r for r in dict.fromkeys(found) if r != text)
    return Readings(text, extra, " and ".join(reasons) or None)
