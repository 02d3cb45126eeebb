"""The common shape of a manifest, read straight into values: no node tree, no marks.

libyaml composes a node with two marks for every value, each through a Python call, and the
builder then walks those nodes: together they were most of a cold ``validate`` of 1,000 tools.
Manifests are nearly always block mappings and sequences of plain or quoted scalars, one-line
flow collections and literal or folded block scalars. :func:`read` reads exactly that subset,
line by line, into the values the located reader (engine.source.yamlfile) builds, and gives up
(returns ``None``) at anything else: anchors, aliases, tags, merge keys, multi-line plain or
quoted scalars, complex or quoted keys, directives, tabs, ``\\r``, any character libyaml refuses,
a duplicate key, a scalar the builder would report. A file it gives up on is parsed by the
located reader, which reports every problem where it is; a file it reads has none to report.

It is a fast path only: the located reader is the reference, and tests/test_yaml_fast.py checks
that both give the same values, documents and document positions, on the engine's own files, on
tricky texts and on generated ones.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

__all__ = ["read"]

# What a text may hold: the printable characters libyaml accepts, less those it also reads as a
# line break (NEL, LS, PS), the byte-order mark, tabs and carriage returns. An ASCII text is checked
# by deleting the bytes it may hold (anything left is a control character); any other also for the
# UTF-8 of C1 controls, NEL, LS, PS, the BOM and U+FFFE/U+FFFF (strict decoding refuses surrogates).
# (A character class over the Unicode ranges costs ~6 ms to compile: a cold start pays that.)
_ASCII_OK = b"\n" + bytes(range(0x20, 0x7F))
_PRINTABLE_BYTES = _ASCII_OK + bytes(range(0x80, 0x100))
_UNSAFE_UTF8 = re.compile(rb"\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef(?:\xbb\xbf|\xbf[\xbe\xbf])")
# A block mapping key: a plain scalar of the usual characters (then ' *:' and a space or the end).
_KEY_TEXT = re.compile(r"[A-Za-z0-9_$./][A-Za-z0-9_$./+()\- ]*")
_BLOCK_HEADER = re.compile(r"([|>])(-?)(?: +#.*)?$")
# (a `-` starts one only before a character that is no blank or flow indicator: `- y` is a block entry, an error there)
_FLOW_PLAIN = re.compile(r"(?:[A-Za-z0-9_$./~()+=^;<\\]|-(?=[^\s,\[\]{}]))[^,\[\]{}#:'\"\n]*")
_DOUBLE = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
# Plain scalars start with none of YAML's indicators (a '-' only when followed by a non-space).
_PLAIN_START = frozenset("&*!%@`,[]{}?:#|>'\"")
_MAX_DEPTH = 90  # below the located reader's limit (engine.source.yamlfile.MAX_DEPTH): deeper is its to report
_MAX_KEY = 1000  # libyaml refuses implicit keys over 1,024 characters

# YAML 1.1's implicit types of a plain scalar, as PyYAML resolves and builds them, for the forms a
# manifest holds: its boolean and null words, decimal integers, and floats with digits on each side
# of a point. Any other text that PyYAML may read as a number or a date (it starts like one: a
# digit, a sign then a digit or a point, a point then a digit, .inf, .nan), '<<' and '=' are left to
# the located reader; tests/test_yaml_fast.py compares these against PyYAML's own on generated texts.
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("~", "null", "Null", "NULL", ""), None),
}
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_POINT = re.compile(r"[-+]?[0-9]+\.[0-9]*\Z|\.[0-9]+\Z")
_NUMBER_LIKE = re.compile(r"[-+]?[0-9]|\.[0-9]|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|<<\Z|=\Z")
_MISSING = object()


class _GiveUp(Exception):
    """Not in the subset: the located reader parses the file."""


class _Unclosed(_GiveUp):
    """A flow collection that goes on past the end of its line."""


_GIVE_UP = _GiveUp()
_UNCLOSED = _Unclosed()
_UNREADABLE = object()
_PLAIN: dict[str, Any] = {}  # plain scalar text -> its value (or _UNREADABLE); they repeat across files
# A one-line flow collection of scalars -> its items (or key/value pairs), to copy.
_FLOWS: dict[str, tuple[Any, ...]] = {}
# A mapping line "key: plain scalar" -> (key, value): most lines of a project's manifests repeat.
_LINES: dict[str, tuple[str, Any]] = {}
_KEYS: dict[str, Any] = {}  # the text before a mapping line's colon -> its key, or None when not one


def _entry(text: str) -> tuple[str, str | None] | None:
    """(key, the text of its value or None) when ``text`` is a block mapping entry with a plain key."""
    head, colon, rest = text.partition(": ")
    if colon:
        value: str | None = rest.lstrip(" ")
    elif text[-1:] == ":":
        head, value = text[:-1], None
    else:
        return None
    key = _KEYS.get(head, _KEYS)
    if key is _KEYS:
        key = head.rstrip(" ") if len(head) <= _MAX_KEY and _KEY_TEXT.fullmatch(head) else None
        if len(_KEYS) > 50_000:
            _KEYS.clear()
        _KEYS[head] = key
    if key is None:
        return None
    return key, value


def _plain(text: str) -> Any:
    """The value of a plain scalar, as the located reader builds it (YAML 1.1 implicit types)."""
    value = _PLAIN.get(text, _PLAIN)
    if value is _PLAIN:
        value = _construct(text)
        if len(_PLAIN) > 50_000:
            _PLAIN.clear()
        _PLAIN[text] = value
    if value is _UNREADABLE:
        raise _GIVE_UP
    return value


def _construct(text: str) -> Any:
    value = _WORDS.get(text, _MISSING)
    if value is not _MISSING:
        return value
    if not _NUMBER_LIKE.match(text):
        return text
    if _DECIMAL.match(text):
        return int(text)
    if _POINT.match(text):
        return float(text)
    return _UNREADABLE


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) == 1:
        found = _ESCAPES.get(code)
        if found is None:
            raise _GIVE_UP
        return found
    point = int(code[1:], 16)
    if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
        raise _GIVE_UP
    return chr(point)


def _quoted(text: str, at: int) -> tuple[str, int]:
    """The quoted scalar at ``text[at]`` on this line: (its value, the index after it)."""
    if text[at] == "'":
        start = at + 1
        while True:
            end = text.find("'", start)
            if end < 0:
                raise _GIVE_UP  # continues on the next line
            if text[end + 1 : end + 2] != "'":
                return text[at + 1 : end].replace("''", "'"), end + 1
            start = end + 2
    match = _DOUBLE.match(text, at)
    if match is None:
        raise _GIVE_UP
    body = match.group(1)
    if "\\" in body:
        body = _ESCAPE.sub(_unescape, body)
    return body, match.end()


def _ends(text: str, at: int) -> bool:
    """Nothing but a comment after ``text[at:]`` on its line (the last line of ``text``)."""
    rest = text[at:]
    return not rest or (rest[0] == " " and rest.lstrip(" ")[:1] == "#" and "\n" not in rest)


def _skip(text: str, i: int) -> int:
    """The index of the next character of a flow collection past spaces, line breaks and comments."""
    size = len(text)
    while i < size:
        char = text[i]
        if char in {" ", "\n"}:
            i += 1
        elif char == "#" and text[i - 1] in " \n":
            end = text.find("\n", i)
            i = size if end < 0 else end
        else:
            break
    return i


def _flow(text: str, at: int, depth: int) -> tuple[Any, int]:
    """The flow collection at ``text[at]``: (its value, the index after it)."""
    if depth > _MAX_DEPTH:
        raise _GIVE_UP
    closing = "]" if text[at] == "[" else "}"
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    key = ""
    i = _skip(text, at + 1)
    size = len(text)
    if i >= size:
        raise _UNCLOSED
    if text[i] == closing:
        return (items if closing == "]" else mapping), i + 1
    while True:
        if closing == "}":
            if text[i] == '"' or text[i] == "'":
                key, i = _quoted(text, i)
                while text[i : i + 1] == " ":
                    i += 1
            else:
                match = _FLOW_PLAIN.match(text, i)
                if match is None:
                    raise _GIVE_UP
                key, i = match.group().rstrip(" "), match.end()
                if not key:
                    raise _GIVE_UP
            if text[i : i + 2] not in (": ", ":\n") or key in mapping:
                raise _GIVE_UP
            i = _skip(text, i + 2)
        if i >= size:
            raise _UNCLOSED
        char = text[i]
        value: Any
        if char in {"[", "{"}:
            value, i = _flow(text, i, depth + 1)
        elif char in {"'", '"'}:
            value, i = _quoted(text, i)
        else:
            if char == "-" and text[i + 1 : i + 2] in ("", " ", "\n", ",", "]", "}"):
                raise _GIVE_UP
            match = _FLOW_PLAIN.match(text, i)
            if match is None:
                raise _GIVE_UP
            value, i = _plain(match.group().rstrip(" ")), match.end()
        if closing == "]":
            items.append(value)
        else:
            mapping[key] = value
        i = _skip(text, i)
        if i >= size:
            raise _UNCLOSED
        char = text[i]
        if char == closing:
            return (items if closing == "]" else mapping), i + 1
        if char != ",":
            raise _GIVE_UP
        i = _skip(text, i + 1)
        if i >= size:
            raise _UNCLOSED
        if text[i] in "]},":
            raise _GIVE_UP  # an empty entry (a trailing comma)


class _Reader:
    """One document's significant lines: (raw line index, indentation, text without it)."""

    __slots__ = ("end", "lines", "raws", "rows", "stop")

    def __init__(self, lines: list[str], rows: list[tuple[int, int, str]], stop: int) -> None:
        self.lines = lines
        self.rows = rows
        self.raws = [row[0] for row in rows]
        self.end = len(rows)
        self.stop = stop  # the raw line index where this document ends

    def block(self, at: int, parent: int, depth: int) -> tuple[Any, int]:
        if depth > _MAX_DEPTH:
            raise _GIVE_UP
        _, indent, text = self.rows[at]
        if text[:2] == "- " or text == "-":
            return self.sequence(at, indent, False, depth)
        return self.mapping(at, indent, depth)

    def mapping(self, at: int, indent: int, depth: int) -> tuple[dict[str, Any], int]:
        rows = self.rows
        out: dict[str, Any] = {}
        end = self.end
        known = _PLAIN.get
        seen_line = _LINES.get
        while True:
            text = rows[at][2]
            line = seen_line(text)
            if line is not None:  # "key: plain scalar", read before
                key, value = line
                if key in out:
                    raise _GIVE_UP
                out[key] = value
                at += 1
            else:
                entry = _entry(text)
                if entry is None:
                    raise _GIVE_UP
                key, rest = entry
                if key in out:
                    raise _GIVE_UP  # a duplicate: the located reader reports it
                # A text read before as a plain scalar (the cache holds nothing else) is one again.
                value = known(rest, _PLAIN) if rest else _PLAIN
                if value is _PLAIN or value is _UNREADABLE:
                    value, at = self.value(rest, at, indent, True, depth)
                else:
                    if len(_LINES) > 50_000:
                        _LINES.clear()
                    _LINES[text] = (key, value)
                    at += 1
                out[key] = value
            if at >= end:
                return out, at
            found = rows[at][1]
            if found < indent:
                return out, at
            if found > indent:
                raise _GIVE_UP

    def sequence(self, at: int, indent: int, indentless: bool, depth: int) -> tuple[list[Any], int]:
        rows = self.rows
        out: list[Any] = []
        end = self.end
        while True:
            raw, _, text = rows[at]
            if text == "-":
                rest: str | None = None
            elif text[:2] == "- ":
                rest = text[2:].lstrip(" ")
                if rest[:2] == "- " or rest == "-" or _entry(rest) is not None:
                    # A compact nested collection: a row of its own at its column.
                    rows[at] = (raw, indent + len(text) - len(rest), rest)
                    value, at = self.block(at, indent, depth + 1)
                    out.append(value)
                    rest = ""
            elif indentless:
                return out, at
            else:
                raise _GIVE_UP
            if rest != "":
                value, at = self.value(rest, at, indent, False, depth)
                out.append(value)
            if at >= end:
                return out, at
            found = rows[at][1]
            if found < indent:
                return out, at
            if found > indent:
                raise _GIVE_UP

    def value(self, rest: str | None, at: int, indent: int, in_mapping: bool, depth: int) -> tuple[Any, int]:
        """The value that starts with ``rest`` on row ``at`` of a collection at ``indent``:
        (it, the next row)."""
        if not rest or rest[0] == "#":
            following = at + 1
            if following < self.end:
                _, found, text = self.rows[following]
                if found > indent:
                    return self.block(following, indent, depth + 1)
                if in_mapping and found == indent and (text[:2] == "- " or text == "-"):
                    return self.sequence(following, indent, True, depth + 1)
            return None, following
        first = rest[0]
        if first in {"'", '"'}:
            value, after = _quoted(rest, 0)
            if not _ends(rest, after):
                raise _GIVE_UP
            return value, at + 1
        if first in {"[", "{"}:
            flat = _FLOWS.get(rest)
            if flat is not None:  # read before: a new list or dict of the same scalars
                return (list(flat) if first == "[" else dict(flat)), at + 1
            try:
                value, after = _flow(rest, 0, depth + 1)
            except _Unclosed:
                return self.flow_lines(rest, at, indent, depth + 1)
            if not _ends(rest, after):
                raise _GIVE_UP
            items = value if first == "[" else list(value.items())
            if not any(isinstance(v, (list, dict)) for v in (items if first == "[" else value.values())):
                if len(_FLOWS) > 10_000:
                    _FLOWS.clear()
                _FLOWS[rest] = tuple(items)
            return value, at + 1
        if first in {"|", ">"}:
            return self.scalar_block(rest, at, indent)
        if first in _PLAIN_START or (first == "-" and rest[1:2] in ("", " ")):
            raise _GIVE_UP
        comment = rest.find(" #")
        if comment >= 0:
            rest = rest[:comment].rstrip(" ")
        if ": " in rest or rest[-1] == ":":
            raise _GIVE_UP
        return _plain(rest), at + 1

    def flow_lines(self, rest: str, at: int, indent: int, depth: int) -> tuple[Any, int]:
        """A flow collection that starts with ``rest`` on row ``at`` and goes on over the next lines
        (each indented past the collection it is a value of)."""
        lines, stop = self.lines, self.stop
        parts = [rest]
        opened = rest.count("[") + rest.count("{") - rest.count("]") - rest.count("}")
        i = self.raws[at] + 1
        # The bracket count is a guess (brackets inside quotes count too): each time it says
        # "closed", the joined lines are read again. A few wrong guesses and the located reader
        # takes the file (linear in its size), so no text makes this quadratic.
        guesses = 4
        while i < stop:
            line = lines[i].rstrip(" ")
            text = line.lstrip(" ")
            if text and text[0] != "#" and len(line) - len(text) <= indent:
                raise _GIVE_UP
            parts.append(line)
            i += 1
            opened += text.count("[") + text.count("{") - text.count("]") - text.count("}")
            if opened <= 0:
                joined = "\n".join(parts)
                try:
                    value, after = _flow(joined, 0, depth)
                except _Unclosed:
                    guesses -= 1
                    if not guesses:
                        raise _GIVE_UP from None
                    continue
                if not _ends(joined, after):
                    raise _GIVE_UP
                return value, bisect_left(self.raws, i)
        raise _GIVE_UP

    def scalar_block(self, header: str, at: int, indent: int) -> tuple[str, int]:
        """A literal (``|``) or folded (``>``) block scalar, clipped or stripped (``-``)."""
        match = _BLOCK_HEADER.match(header)
        if match is None:
            raise _GIVE_UP  # keep (+) or an explicit indentation
        style, chomp = match.groups()
        lines, stop = self.lines, self.stop
        start = first = self.raws[at] + 1
        while first < stop and not lines[first].strip(" "):
            first += 1
        if first >= stop:
            raise _GIVE_UP
        line = lines[first]
        width = len(line) - len(line.lstrip(" "))
        if width <= indent or any(len(lines[i]) > width for i in range(start, first)):
            raise _GIVE_UP
        body: list[str] = []
        i = last = first
        while i < stop:
            line = lines[i]
            text = line.lstrip(" ")
            if not text:
                if len(line) > width:
                    raise _GIVE_UP  # spaces past the indentation are content
                body.append("")
            elif len(line) - len(text) < width:
                break
            else:
                body.append(line[width:])
                last = i
            i += 1
        while body and not body[-1]:
            body.pop()
        if style == "|":
            value = "\n" * (first - start) + "\n".join(body)
        else:
            if first > start or any(b[:1] == " " for b in body):
                raise _GIVE_UP  # folding around more-indented lines
            parts: list[str] = []
            breaks = 0
            for b in body:
                if not b:
                    breaks += 1
                    continue
                if parts:
                    parts.append("\n" * breaks if breaks else " ")
                parts.append(b)
                breaks = 0
            value = "".join(parts)
        if not chomp and last < len(lines) - 1:  # clipped: the last line's break, when it has one
            value += "\n"
        return value, bisect_left(self.raws, i)


def read(data: bytes) -> list[tuple[Any, int, int]] | None:
    """Each document of ``data`` as (value, line, column of its root), or ``None`` when the text is
    not in the subset this reads (the located reader then parses it)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if data.isascii():
        if data.translate(None, _ASCII_OK):
            return None  # a control character
    elif data.translate(None, _PRINTABLE_BYTES) or (
        (b"\xc2" in data or b"\xe2\x80" in data or b"\xef" in data) and _UNSAFE_UTF8.search(data)
    ):
        return None
    lines = text.split("\n")
    documents: list[tuple[Any, int, int]] = []
    rows: list[tuple[int, int, str]] = []
    separated = False
    try:
        for index, line in enumerate(lines):
            content = line.lstrip(" ")
            if not content or content[0] == "#":
                continue
            indent = len(line) - len(content)
            if indent == 0 and content[0] in "-.%" and not content.startswith("- ") and content != "-":
                if content.rstrip(" ") != "---" and not re.match(r"--- +#", content):
                    raise _GIVE_UP  # directives, '...', '--- value', '-x' at the root
                if rows or separated:
                    _document(lines, rows, index, documents)
                rows = []
                separated = True
                continue
            rows.append((index, indent, content.rstrip(" ")))
        if rows or separated:
            _document(lines, rows, len(lines), documents)
    except (_GiveUp, RecursionError):
        return None
    return documents


def _document(lines: list[str], rows: list[tuple[int, int, str]], stop: int, out: list[tuple[Any, int, int]]) -> None:
    if not rows or rows[0][1] != 0:
        raise _GIVE_UP  # an empty document, or a root that is indented
    reader = _Reader(lines, rows, stop)
    first = rows[0]
    text = first[2]
    if not (text[:2] == "- " or text == "-" or _entry(text) is not None):
        raise _GIVE_UP  # a scalar or a flow collection at the root
    value, at = reader.block(0, -1, 1)
    if at != len(rows):
        raise _GIVE_UP
    out.append((value, first[0] + 1, 1))
