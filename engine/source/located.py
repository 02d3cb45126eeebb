"""The located reader: YAML text → documents whose node trees map any value back to its place.

libyaml composes the node tree (fast, in C); a small builder turns nodes into plain JSON-like
values and keeps each document's root node, so any JSON Pointer can later be mapped back to a
line and column. The builder also catches what PyYAML lets through silently: duplicate mapping
keys (PyYAML keeps the last), alias expansion bombs, recursive aliases, absurd nesting and
foreign tags.

Imported only when a file is not in the fast reader's subset (engine.source.plainyaml) or a
problem is located: importing PyYAML is ~8% of the instructions of a cold ``validate`` of
1,000 tools that never needs it.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from engine.errors import Problem
from engine.source.yamlfile import (
    MAX_DEPTH,
    MAX_EXPANDED_NODES,
    YAML11_BOOL_WORDS,
    Document,
    ParsedFile,
    to_pointer,
)

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


_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
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


def parse_located(data: bytes, file: str, *, pack: str = "project", path: Path | None = None) -> ParsedFile:
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


def placeholder(file: str, line: int, column: int) -> Node:
    """An empty scalar at ``line``:``column``, to place a problem at."""
    mark = yaml.error.Mark(file, 0, line - 1, column - 1, None, 0)
    return ScalarNode(_STR, "", mark, mark)
