"""YAML text → documents that remember where every value came from.

A file in the common shape of a manifest is read by the fast reader (engine.source.plainyaml),
which imports no YAML library; any other file, and a document whose problem must be located, by
the located reader (engine.source.located: libyaml's node tree, which maps any JSON Pointer back
to a line and column, and catches what PyYAML lets through silently: duplicate keys, alias bombs,
recursive aliases, absurd nesting and foreign tags).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.digests import digest
from engine.errors import Problem
from engine.source.plainyaml import read as read_plain

if TYPE_CHECKING:
    from yaml.nodes import Node

MAX_FILE_BYTES = 1024 * 1024
MAX_EXPANDED_NODES = 200_000
MAX_DEPTH = 100


# YAML 1.1 words PyYAML reads as booleans; used to explain a type error.
YAML11_BOOL_WORDS = frozenset(["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"])


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
        from engine.source.located import parse_located, placeholder  # noqa: PLC0415

        if self.roots is None:
            self.roots = {d.index: d.node for d in parse_located(self.data, self.file).documents}
        node = self.roots.get(index)
        if node is not None:
            return node
        # Never expected (the fast reader reads only what the located one reads alike, which
        # tests/test_yaml_fast.py checks): a problem is then placed where the document starts.
        return placeholder(self.file, line, column)


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
    """Every document of ``data`` with its node tree, and every problem, located (engine.source.located)."""
    from engine.source.located import parse_located  # noqa: PLC0415

    return parse_located(data, file, pack=pack, path=path)


def node_at(root: Node, pointer: Sequence[str | int], *, key: bool = False) -> Node:
    """The deepest node along ``pointer`` from ``root``; with ``key``, the last segment's key node."""
    from engine.source.located import node_at as located_node_at  # noqa: PLC0415

    return located_node_at(root, pointer, key=key)


def is_yaml11_bool(node: Node) -> bool:
    """True when a plain scalar was read as a boolean only because of YAML 1.1 rules."""
    from engine.source.located import is_yaml11_bool as located_bool  # noqa: PLC0415

    return located_bool(node)


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
