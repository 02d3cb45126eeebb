"""YAML text → documents that remember where every value came from.

libyaml composes the node tree (fast, in C); a small builder turns nodes into
plain JSON-like values and keeps each document's root node, so any JSON Pointer
can later be mapped back to a line and column. The builder also catches what
PyYAML lets through silently: duplicate mapping keys (PyYAML keeps the last),
alias expansion bombs, recursive aliases, absurd nesting and foreign tags.
"""

from __future__ import annotations

import functools
import hashlib
import math
import operator
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from engine.digests import digest
from engine.errors import Problem
from engine.source.plainyaml import read as read_plain

try:  # libyaml is part of every PyYAML wheel; the pure-Python parser is a slow fallback.
    from yaml.cyaml import CParser as _Parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - exercised only without libyaml
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser, Composer):  # type: ignore[no-redef]
        def __init__(self, stream: bytes) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)


MAX_FILE_BYTES = 1024 * 1024
MAX_EXPANDED_NODES = 200_000
MAX_DEPTH = 100

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"

# YAML 1.1 words PyYAML reads as booleans; used to explain a type error.
YAML11_BOOL_WORDS = frozenset(["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"])


_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers


def _resolve(kind: Any, value: Any, implicit: Any) -> str:
    """PyYAML's YAML 1.1 implicit tag resolution, without path resolvers."""
    if kind is ScalarNode:
        if implicit[0]:
            for tag, regexp in _IMPLICIT.get(value[:1], ()):
                if regexp.match(value):
                    return str(tag)
        return _STR
    return _SEQ if kind is SequenceNode else _MAP


class _Loader(_Parser, yaml.resolver.Resolver):
    """libyaml's composer with a cheaper resolver.

    The composer calls back into Python for every node. Keys and short values
    repeat across manifests, so resolution goes through a C-level LRU cache, and
    the path-resolver hooks (unused here) are C builtins that accept the same
    arguments and do nothing, so no Python frame is created for them.
    """

    resolve = staticmethod(functools.lru_cache(maxsize=16384)(_resolve))
    descend_resolver = staticmethod(operator.is_)  # type: ignore[assignment]  # (node, index) -> ignored
    ascend_resolver = staticmethod(int)  # type: ignore[assignment]  # () -> ignored

    def __init__(self, stream: bytes) -> None:
        _Parser.__init__(self, stream)
        yaml.resolver.Resolver.__init__(self)


_SAFE = yaml.constructor.SafeConstructor()


class Document:
    """One YAML document of a manifest file, with its source positions.

    ``node`` (the root of its node tree, which maps any JSON Pointer to a line and column) is
    composed when first asked for: a file the fast reader read (engine.source.plainyaml) is parsed
    again by the located reader then, from the very bytes that were read, and a valid file is
    never asked (only a problem is located)."""

    __slots__ = ("_node", "_source", "column", "data", "file", "index", "line", "pack", "path")

    def __init__(
        self,
        file: str,
        index: int,
        data: Any,
        node: Node | None,
        pack: str = "project",
        path: Path | None = None,
        *,
        line: int = 1,
        column: int = 1,
        source: _Located | None = None,
    ) -> None:
        self.file = file  # display path, relative to the project root
        self.index = index  # position of the document in its file
        self.data = data
        self.pack = pack
        self.path = path
        self._node = node
        self._source = source
        if node is not None:
            line, column = node.start_mark.line + 1, node.start_mark.column + 1
        self.line = line
        self.column = column

    def __repr__(self) -> str:
        return f"Document({self.file!r}, {self.index}, line={self.line}, column={self.column}, pack={self.pack!r})"

    @property
    def node(self) -> Node:
        node = self._node
        if node is None:
            assert self._source is not None  # a document is made with a node or with its file's bytes
            node = self._node = self._source.root(self.index, self.line, self.column)
        return node

    def node_at(self, pointer: Sequence[str | int], *, key: bool = False) -> Node:
        """The deepest node along ``pointer``; with ``key``, the last segment's key node."""
        return node_at(self.node, pointer, key=key)

    def locate(self, pointer: Sequence[str | int], *, key: bool = False) -> tuple[int, int]:
        mark = self.node_at(pointer, key=key).start_mark
        return mark.line + 1, mark.column + 1

    def problem(
        self,
        pointer: Sequence[str | int],
        code: str,
        message: str,
        *,
        key: bool = False,
        severity: str = "error",
    ) -> Problem:
        line, column = self.locate(pointer, key=key)
        return Problem(
            self.file,
            line,
            column,
            code,
            message,
            to_pointer(pointer),
            severity,  # type: ignore[arg-type]
        )


def to_pointer(segments: Sequence[str | int]) -> str:
    """RFC 6901 JSON Pointer for a path of keys and indexes."""
    if not segments:
        return ""
    return "/" + "/".join(str(s).replace("~", "~0").replace("/", "~1") for s in segments)


def _mapping_pairs(node: MappingNode) -> list[tuple[Node, Node]]:
    """Key/value pairs including those pulled in by ``<<`` merge keys (later wins)."""
    pairs: list[tuple[Node, Node]] = []
    for k, v in node.value:
        if k.tag == _MERGE:
            for merged in v.value if isinstance(v, SequenceNode) else [v]:
                if isinstance(merged, MappingNode):
                    pairs.extend(_mapping_pairs(merged))
        else:
            pairs.append((k, v))
    return pairs


def node_at(root: Node, pointer: Sequence[str | int], *, key: bool = False) -> Node:
    node = root
    last = len(pointer) - 1
    for depth, segment in enumerate(pointer):
        if isinstance(node, MappingNode):
            found = None
            for k, v in reversed(_mapping_pairs(node)):
                if isinstance(k, ScalarNode) and k.value == str(segment):
                    found = k if (key and depth == last) else v
                    break
            if found is None:
                return node
            node = found
        elif isinstance(node, SequenceNode):
            try:
                node = node.value[int(segment)]
            except (ValueError, IndexError):
                return node
        else:
            return node
    return node


class _TooComplex(Exception):
    def __init__(self, node: Node, code: str, message: str) -> None:
        self.node = node
        self.code = code
        self.message = message


class _Builder:
    """Turns a composed node tree into JSON-like values, collecting problems."""

    __slots__ = ("building", "built", "expanded", "file", "problems", "sizes")

    def __init__(self, file: str, problems: list[Problem]) -> None:
        self.file = file
        self.problems = problems
        self.built: dict[int, Any] = {}
        self.sizes: dict[int, int] = {}
        self.building: set[int] = set()
        self.expanded = 0

    def _problem(self, node: Node, path: list[str | int], code: str, message: str) -> None:
        m = node.start_mark
        self.problems.append(Problem(self.file, m.line + 1, m.column + 1, code, message, to_pointer(path)))

    def build(self, node: Node, path: list[str | int]) -> Any:
        if node.__class__ is ScalarNode:
            self.expanded += 1
            tag = node.tag
            if tag == _STR:
                return node.value
            return self._scalar(node, path)
        if len(path) > MAX_DEPTH:
            raise _TooComplex(node, "yaml-too-deep", f"nesting deeper than {MAX_DEPTH} levels")
        ident = id(node)
        if ident in self.built:
            # An alias: share the value already built, but count its full size so a
            # "billion laughs" document is refused instead of expanded downstream.
            self.expanded += self.sizes[ident]
            if self.expanded > MAX_EXPANDED_NODES:
                raise _TooComplex(
                    node,
                    "yaml-too-complex",
                    f"aliases expand to more than {MAX_EXPANDED_NODES} values",
                )
            return self.built[ident]
        if ident in self.building:
            raise _TooComplex(node, "yaml-recursive-alias", "an alias refers to its own ancestor")
        self.building.add(ident)
        before = self.expanded
        self.expanded += 1
        value: Any
        if node.__class__ is MappingNode:
            if node.tag != _MAP:
                self._problem(node, path, "yaml-unsupported-tag", f"unsupported tag {node.tag!r}")
            value = self._mapping(node, path)
        else:
            if node.tag != _SEQ:
                self._problem(node, path, "yaml-unsupported-tag", f"unsupported tag {node.tag!r}")
            value = []
            for i, item in enumerate(node.value):
                if item.__class__ is ScalarNode and item.tag == _STR:
                    self.expanded += 1
                    value.append(item.value)
                    continue
                path.append(i)
                value.append(self.build(item, path))
                path.pop()
        self.building.discard(ident)
        self.built[ident] = value
        self.sizes[ident] = self.expanded - before
        if self.expanded > MAX_EXPANDED_NODES:
            raise _TooComplex(node, "yaml-too-complex", f"document expands to more than {MAX_EXPANDED_NODES} values")
        return value

    def _mapping(self, node: MappingNode, path: list[str | int]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: dict[str, Node] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.__class__ is not ScalarNode:
                self._problem(key_node, path, "yaml-complex-key", "mapping keys must be plain strings")
                continue
            if key_node.tag == _MERGE:
                self._merge(value_node, path, merged)
                continue
            # Keys are always their text: `on:` or `1:` as a property name means the
            # string, never the YAML 1.1 boolean or integer.
            key = key_node.value
            first = seen.get(key)
            if first is not None:
                path.append(key)
                self._problem(
                    key_node,
                    path,
                    "yaml-duplicate-key",
                    f"duplicate key {key!r} (first defined on line {first.start_mark.line + 1}); "
                    "YAML would silently keep only the last value",
                )
                path.pop()
                continue
            seen[key] = key_node
            if value_node.__class__ is ScalarNode and value_node.tag == _STR:
                self.expanded += 1
                out[key] = value_node.value
                continue
            path.append(key)
            out[key] = self.build(value_node, path)
            path.pop()
        if merged:
            for key, value in merged.items():
                out.setdefault(key, value)
        return out

    def _merge(self, value_node: Node, path: list[str | int], into: dict[str, Any]) -> None:
        sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
        for source in sources:
            if not isinstance(source, MappingNode):
                self._problem(source, path, "yaml-bad-merge", "a '<<' merge needs a mapping")
                continue
            built = self.build(source, path)
            for key, value in built.items():
                into.setdefault(key, value)

    def _scalar(self, node: ScalarNode, path: list[str | int]) -> Any:
        tag = node.tag
        try:
            if tag == _INT:
                text = node.value
                if text.isdigit() and (text == "0" or text[0] != "0"):  # plain decimal: the common case
                    return int(text)
                return _SAFE.construct_yaml_int(node)
            if tag == _BOOL:
                return _SAFE.construct_yaml_bool(node)
            if tag == _NULL:
                return None
            if tag == _FLOAT:
                value = _SAFE.construct_yaml_float(node)
                if not math.isfinite(value):
                    self._problem(node, path, "yaml-not-json", f"{node.value!r} is not a JSON number")
                return value
            if tag == _TIMESTAMP:
                # Manifests are JSON data: a date stays the text that was written.
                return node.value
        except (ValueError, yaml.YAMLError) as exc:
            self._problem(node, path, "yaml-bad-scalar", f"cannot read {node.value!r}: {exc}")
            return node.value
        self._problem(node, path, "yaml-unsupported-tag", f"unsupported tag {tag!r}")
        return node.value


@dataclass(slots=True)
class ParsedFile:
    file: str
    documents: list[Document]
    problems: list[Problem]
    digest: str = ""  # SHA-256 of the very bytes parsed (engine.compile.approved compares it)
    # BLAKE2b-256 of the same bytes: what the compiled-project cache keys an entry with
    # (engine.guard.cache.project_key), so writing one reads no file a second time.
    fingerprint: bytes = b""
    stat: tuple[int, int, int, int] | None = None  # engine.source.yamlfile.stat_key of the file read


class _Located:
    """The bytes of a file the fast reader read, parsed by the located reader when one of its
    documents' nodes is first needed (to locate a problem)."""

    __slots__ = ("data", "file", "roots")

    def __init__(self, data: bytes, file: str) -> None:
        self.data = data
        self.file = file
        self.roots: dict[int, Node] | None = None

    def root(self, index: int, line: int, column: int) -> Node:
        if self.roots is None:
            self.roots = {d.index: d.node for d in _parse_located(self.data, self.file).documents}
        node = self.roots.get(index)
        if node is not None:
            return node
        # Never expected (the fast reader reads only what the located one reads alike, which
        # tests/test_yaml_fast.py checks): a problem is then placed where the document starts.
        mark = yaml.error.Mark(self.file, 0, line - 1, column - 1, None, 0)
        return ScalarNode(_STR, "", mark, mark)


def parse_bytes(data: bytes, file: str, *, pack: str = "project", path: Path | None = None) -> ParsedFile:
    """Parse every document in ``data``; never raises for bad YAML.

    The common shape of a manifest is read by the fast reader (engine.source.plainyaml), whose
    documents compose their nodes only when a problem must be located; anything else, and every
    file with a problem, by the located reader."""
    # Patterns and programs are located one by one even when valid (engine.policy.compile,
    # engine.policy.programs): their files are composed once, not read fast and then composed.
    found = None if b"DangerPatterns" in data or b"Programs" in data else read_plain(data)
    if found is None:
        return _parse_located(data, file, pack=pack, path=path)
    source = _Located(data, file)
    documents = [
        Document(file, index, value, None, pack, path, line=line, column=column, source=source)
        for index, (value, line, column) in enumerate(found)
    ]
    return ParsedFile(file, documents, [])


def _parse_located(data: bytes, file: str, *, pack: str = "project", path: Path | None = None) -> ParsedFile:
    """Every document of ``data`` with its node tree, and every problem, located."""
    problems: list[Problem] = []
    documents: list[Document] = []
    loader = _Loader(data)
    index = 0
    try:
        while True:
            try:
                if not loader.check_node():
                    break
                root = loader.get_node()
            except yaml.MarkedYAMLError as exc:
                mark = exc.problem_mark or exc.context_mark
                line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
                problems.append(Problem(file, line, column, "yaml-syntax", _yaml_message(exc)))
                break
            except yaml.YAMLError as exc:  # reader errors: bad encoding, control characters
                message = str(exc).split("\n", 1)[0]
                problems.append(Problem(file, *_reader_position(data, exc), "yaml-syntax", message))
                break
            if root is None:  # pragma: no cover - get_node returns None only at stream end
                break
            builder = _Builder(file, problems)
            try:
                value = builder.build(root, [])
            except _TooComplex as exc:
                m = exc.node.start_mark
                problems.append(Problem(file, m.line + 1, m.column + 1, exc.code, exc.message))
                index += 1
                continue
            documents.append(Document(file, index, value, root, pack, path))
            index += 1
    finally:
        loader.dispose()
    return ParsedFile(file, documents, problems)


def stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    """What tells a file's versions apart: a save changes it (ctime too: ``touch -d`` puts an mtime
    back, nothing puts a ctime back)."""
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def parse_file(path: Path, file: str, *, pack: str = "project", max_bytes: int = MAX_FILE_BYTES) -> ParsedFile:
    """Read and parse one manifest file; size and I/O problems are reported, not raised.

    One open, one fstat and one read: the stat the result carries is that of the file read."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            size = st.st_size
            if size > max_bytes:
                message = f"file is {size} bytes; manifests are limited to {max_bytes} bytes"
                return ParsedFile(file, [], [Problem(file, 1, 1, "file-too-large", message)], stat=stat_key(st))
            data = handle.read()
    except OSError as exc:
        return ParsedFile(file, [], [Problem(file, 1, 1, "file-unreadable", exc.strerror or str(exc))])
    parsed = parse_bytes(data, file, pack=pack, path=path)
    parsed.digest = hashlib.sha256(data).hexdigest()
    parsed.fingerprint = digest(data).digest()
    parsed.stat = stat_key(st)
    return parsed


_SPACES = re.compile(r"\s+")


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    parts = [p for p in (exc.context, exc.problem) if p]
    text = _SPACES.sub(" ", "; ".join(parts)) or "invalid YAML"
    start, end = exc.context_mark, exc.problem_mark
    if start is not None and end is not None and (start.line, start.column) != (end.line, end.column):
        text += f" (the construct started at line {start.line + 1}, column {start.column + 1})"
    return text


def _reader_position(data: bytes, exc: yaml.YAMLError) -> tuple[int, int]:
    position = getattr(exc, "position", None)
    if isinstance(position, int):
        head = data[:position]
        line = head.count(b"\n") + 1
        return line, position - (head.rfind(b"\n") + 1) + 1
    return 1, 1


def is_yaml11_bool(node: Node) -> bool:
    """True when a plain scalar was read as a boolean only because of YAML 1.1 rules."""
    return (
        isinstance(node, ScalarNode)
        and node.tag == _BOOL
        and not node.style  # plain (unquoted): libyaml says '' and PyYAML None
        and node.value in YAML11_BOOL_WORDS
    )


__all__ = [
    "MAX_FILE_BYTES",
    "Document",
    "ParsedFile",
    "is_yaml11_bool",
    "node_at",
    "parse_bytes",
    "parse_file",
    "stat_key",
    "to_pointer",
]
