"""The compiled-project cache: a validated project's policy, read back without compiling it.

A one-shot command that only judges (``guard``, ``check``) needs the compiled policy, the
config and the packs, nothing else. Building them means parsing every manifest, normalising
the config, compiling every pattern and running every example: hundreds of milliseconds.
So after a successful load they are kept in ``<default state dir>/compiled-project.bin``
(under ``$XDG_STATE_HOME/hermes-engine``, outside the project, in the ``engine_files``
class no tool may write), and the next start reads them back.

Never a stale verdict: the entry is keyed by a BLAKE2b-256 over the engine (its version and
the size and mtime of each of its own source files), the interpreter, the project root,
the home and XDG directories, and the *content* of every file the loader reads (the
config, each manifest of each pack, each handler source file). The file list itself is
recomputed from the packs on every start, so a manifest added or removed changes the key.

Never a weakened verdict: the file is ``MAGIC + MAC + body`` (keyed BLAKE2b-256, engine.digests),
the MAC under a key in the user's config directory (the audit log's key directory, 0600, outside the state
dir and any work tree). The MAC is checked, in constant time, *before* anything in the
body is read, and the body is only unpickled when it verifies: a file a tool could have
written (it cannot, but if it did) is never unpickled. Any problem at all -- missing,
short, bad MAC, wrong key, unpickling error, wrong type -- is a cache miss: the project is
built again from source and the entry rewritten.
"""

from __future__ import annotations

import contextlib
import copyreg
import gc
import io
import json
import os
import re
import sys
import types
from collections.abc import Iterator, Mapping
from pathlib import Path

from engine.digests import compare_digest, digest, mac
from engine.records import MISSING, NATIVE_RECORDS, Record, rebuild

try:  # the C pickler ``pickle`` itself uses, without importing ``pickle`` (and ``struct``) at start
    from _pickle import Pickler, PicklingError, loads
except ImportError:  # pragma: no cover - not CPython
    from pickle import Pickler, PicklingError, loads
from engine.source.project import CONFIG_NAMES, Pack, manifest_paths

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

    from engine.config import Config
    from engine.errors import Problem
    from engine.policy.model import CompiledPolicy

__all__ = ["CACHE_NAME", "CachedReport", "CompiledProject", "cache_path", "load_project", "validated"]

CACHE_NAME = "compiled-project.bin"
# 4: native records read back through __init__ (their fields are read-only); 5: Program's pieces_prefix and
# unpacks_here, ProgramTable's unpacks_here (debt42); 6: Program's unpacks_into and reads_planted (xf49); 7:
# ProgramTable's writes_through (debt51)
_MAGIC = b"HERMES-ENGINE-COMPILED/7\n"
_MAC_SIZE = 32
_PROTOCOL = 5  # pickle.HIGHEST_PROTOCOL of every Python the engine supports


class CompiledProject(Record):
    """What judging a call needs: the compiled policy, the config and the packs it came from."""

    __slots__ = (  # noqa: RUF023  (the fields' order)
        "root",
        "config",
        "packs",
        "policy",
        "warnings",
        "tools",
        "patterns",
        "from_cache",
        "classes",
        "extra_files",
    )

    root: Path
    config: Config
    packs: tuple[Pack, ...]
    policy: CompiledPolicy | None
    warnings: int
    tools: int
    patterns: int
    from_cache: bool
    # Path classes compiled ahead (engine.policy.paths.COMPILED_CLASSES), by their globs.
    classes: dict[tuple[str, ...], Any]
    # Python files of the project the load imported besides the handler roots' (a helper module a
    # handler imports): inputs too.
    extra_files: tuple[str, ...]

    def __init__(
        self,
        root: Path,
        config: Config,
        packs: tuple[Pack, ...],
        policy: CompiledPolicy | None,
        warnings: int,
        tools: int,
        patterns: int,
        from_cache: bool = False,
        classes: dict[tuple[str, ...], Any] = MISSING,
        extra_files: tuple[str, ...] = (),
    ) -> None:
        self.root = root
        self.config = config
        self.packs = packs
        self.policy = policy
        self.warnings = warnings
        self.tools = tools
        self.patterns = patterns
        self.from_cache = from_cache
        self.classes = {} if classes is MISSING else classes
        self.extra_files = extra_files

    def audit_path(self) -> Path:
        from engine.config import audit_path  # noqa: PLC0415

        return audit_path(self.config)


# -- the key -------------------------------------------------------------------------


def _record_path(root: Path) -> Path:
    """The record of approved engine files (engine.compile.approved.record_path), without importing it."""
    from engine.state_files import APPROVED_RECORD_NAME  # noqa: PLC0415

    return cache_path(root).with_name(APPROVED_RECORD_NAME)


def cache_path(root: Path) -> Path:
    """Where the entry of the project at ``root`` lives: its default state dir, whatever the config says
    (the config is what the entry saves reading)."""
    from engine.config import default_state_dir  # noqa: PLC0415

    return default_state_dir(root) / CACHE_NAME


def _import_path_stamp() -> list[str]:
    """Each folder packages are installed in, with the names it holds: a package installed or
    removed (which handlers may import, and whose absence ``validate`` reports) changes the names,
    so the key. Not the folder's mtime: the first import of a one-file module makes
    ``__pycache__`` there, and pip's ``~name`` folders come and go, without a package changing
    (a warm validate was a miss while another process imported or installed beside it). (Not the
    working directory ``python -m`` puts first: any file created there would be a miss.)"""
    out = []
    for entry in sys.path:
        if not entry.rstrip("/").endswith(("site-packages", "dist-packages")):
            continue
        try:
            names = sorted(n for n in os.listdir(entry or ".") if n != "__pycache__" and not n.startswith("~"))
        except OSError:
            out.append(f"{entry}\0-")
            continue
        out.append(f"{entry}\0{digest(chr(0).join(names).encode('utf-8', 'surrogateescape')).hexdigest()}")
    return out


def _handler_files(pack: Pack) -> Iterator[Path]:
    for prefix in pack.handler_roots:
        top = prefix.split(".", 1)[0]
        module = pack.root / f"{top}.py"
        if module.is_file():
            yield module
        package = pack.root / top
        if package.is_dir():
            yield from sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def input_files(root: Path, packs: tuple[Pack, ...]) -> list[str]:
    """Every file a load of the project reads: configs, manifests of each pack, handler sources."""
    files = [os.path.join(root, name) for name in CONFIG_NAMES]
    for pack in packs:
        if pack.root != root:
            files += [os.path.join(pack.root, name) for name in CONFIG_NAMES]
        files += manifest_paths(pack)
        files += [str(path) for path in _handler_files(pack)]
    return files


def imported_files(packs: tuple[Pack, ...]) -> tuple[str, ...]:
    """The Python files under the packs' roots that this process has imported (a load imports the
    handlers, and whatever they import), less the handler roots' own (already inputs) and the
    engine's (in its stamp)."""
    roots = tuple(str(pack.root) + os.sep for pack in packs)
    engine_dir = str(Path(__file__).resolve().parent.parent) + os.sep
    known = {str(p) for pack in packs for p in _handler_files(pack)}
    found = set()
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.endswith(".py"):
            file = os.path.abspath(file)
            if file.startswith(roots) and not file.startswith(engine_dir) and file not in known:
                found.add(file)
    return tuple(sorted(found))


def project_key(
    root: Path,
    packs: tuple[Pack, ...],
    extra: tuple[str, ...] | list[str] = (),
    fingerprints: Mapping[str, bytes] | None = None,
) -> str:
    """The key of the project's compiled form: the engine, the interpreter, the environment and the
    content of every input file and of the ``extra`` ones (a missing file hashes as missing).

    ``fingerprints``: the digest of what a load parsed, by path (LoadResult.fingerprints): a file
    named there is keyed by the content that was compiled, without reading it again (one changed
    since is a miss on the next read, never an entry that holds another content than its key says)."""
    from engine.guard.warm import engine_stamp  # noqa: PLC0415

    key = digest(engine_stamp())
    env = [os.environ.get(name, "") for name in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")]
    head = [sys.version, sys.prefix, str(root), *env, *_import_path_stamp()]
    key.update(json.dumps(head).encode("utf-8", "surrogateescape"))
    # The record of approved files too: an entry holds for the approvals it was built under.
    for path in [*input_files(root, packs), *extra, str(_record_path(root))]:
        key.update(path.encode("utf-8", "surrogateescape") + b"\0")
        parsed = fingerprints.get(path) if fingerprints else None
        if parsed is not None:
            key.update(parsed + b"\n")
            continue
        try:
            with open(path, "rb") as handle:
                content = handle.read()
        except FileNotFoundError:
            key.update(b"-\n")
            continue
        except OSError as exc:  # a folder, a link loop, unreadable: hashed as such (the load reports it)
            key.update(f"!{exc.errno}\n".encode())
            continue
        key.update(digest(content).digest() + b"\n")
    text: str = key.hexdigest()
    return text


# -- the MAC key ---------------------------------------------------------------------


def _mac_key(create: bool) -> bytes | None:
    """The key the entries are authenticated with, kept beside the audit keys (0600, user config dir)."""
    from engine.guard.warm import mac_key  # noqa: PLC0415

    return mac_key(create)


# -- reading and writing -------------------------------------------------------------


def _reduce_pattern(pattern: re.Pattern[Any]) -> tuple[Any, ...]:
    from engine.policy.sre import sre_program  # noqa: PLC0415

    return (_pattern, (pattern.pattern, pattern.flags, sre_program(pattern.pattern, pattern.flags)))


def _pattern(source: Any, flags: int, program: tuple[Any, ...] | None) -> re.Pattern[Any]:
    """A ``re`` pattern from its compiled program (no parse), or compiled again."""
    from engine.policy.sre import from_program  # noqa: PLC0415

    return from_program(source, flags, program)


def _mapping_proxy(data: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(data)


class _Pickler(Pickler):
    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=_PROTOCOL)
        # One object for each value of the fields written (equal frozensets, tuples, strings of the
        # many matchers): pickle writes an object once and then refers to it, so the entry reads
        # back with a fraction of the objects to build.
        self.same: dict[tuple[type, Any], Any] = {}

    def reducer_override(self, obj: Any) -> Any:
        return _reduce_slots(obj, self.same)


if TYPE_CHECKING:
    _ProgramsBase = Mapping[str, Any]
else:
    _ProgramsBase = Mapping  # Any is the type checker's only


class _LazyPrograms(_ProgramsBase):
    """A policy's programs by name (``ProgramTable.by_name``) read back from the cache: each program
    read from its own pickle when first looked up. Most commands name a few programs, or none the
    table describes; reading all of them back was a third of reading the entry."""

    __slots__ = ("_blobs", "_names", "_read")

    def __init__(self, names: dict[str, int], blobs: tuple[bytes, ...]) -> None:
        self._names = names  # name -> its program's blob (aliases share one)
        self._blobs = blobs
        self._read: dict[int, Any] = {}

    def __getitem__(self, name: str) -> Any:
        index = self._names[name]
        program = self._read.get(index)
        if program is None:
            # Authentic like the rest of the entry: these bytes were inside the MAC it was read under.
            program = self._read[index] = loads(self._blobs[index])
        return program

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_mapping_proxy, (dict(self.items()),))


def _lazy_programs(names: dict[str, int], blobs: tuple[bytes, ...]) -> _LazyPrograms:
    return _LazyPrograms(names, blobs)


def _dumps(payload: Any, *, lazy: Any = None) -> bytes:
    """``payload`` pickled; the mapping ``lazy`` (if any) as a :class:`_LazyPrograms`."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer)
    table = copyreg.dispatch_table.copy()

    def proxy(mapping: Mapping[Any, Any]) -> tuple[Any, ...]:
        if lazy is None or mapping is not lazy:
            return (_mapping_proxy, (dict(mapping),))
        names: dict[str, int] = {}
        found: dict[int, int] = {}  # id of a program -> its blob
        blobs: list[bytes] = []
        for name, value in mapping.items():
            if id(value) not in found:
                found[id(value)] = len(blobs)
                blobs.append(_dumps(value))
            names[name] = found[id(value)]
        return (_lazy_programs, (names, tuple(blobs)))

    table[types.MappingProxyType] = proxy
    table[_LazyPrograms] = proxy
    table[re.Pattern] = _reduce_pattern
    pickler.dispatch_table = table
    pickler.dump(payload)
    return buffer.getvalue()


def _shared(value: Any, same: dict[tuple[type, Any], Any]) -> Any:
    """The first value written equal to ``value`` when it is text, or a tuple or frozenset of texts
    (equal ones are the same in every respect: not so ``(1,)`` and ``(True,)``, or objects whose
    equality leaves fields out), else ``value``."""
    kind = type(value)
    if kind is str or (kind in (tuple, frozenset) and all(type(item) is str for item in value)):
        return same.setdefault((kind, value), value)
    return value


def _reduce_slots(obj: Any, same: dict[tuple[type, Any], Any]) -> Any:
    """Records (engine.records) and slotted dataclasses are read back by one C-level setter per field,
    not through ``__setstate__`` or ``dataclasses.fields``."""
    cls = type(obj)
    if cls in NATIVE_RECORDS:
        # Every field (set again as it was in the pure build), made again through __init__ under mypyc, where
        # the fields are read-only (records.rebuild). Nothing a record holds refers back to it (a cycle would
        # need the object before its fields).
        return (rebuild, (cls, tuple(_shared(getattr(obj, name), same) for name in cls.__dict__["_fields"])))
    if isinstance(obj, Record):
        slots = cls.__dict__["_fields"]  # its fields (a record's are its __slots__)
    else:
        slots = cls.__dict__.get("__slots__") if "__dataclass_fields__" in cls.__dict__ else None
        if not slots or "__weakref__" in slots or any("__slots__" in base.__dict__ for base in cls.__mro__[1:-1]):
            return NotImplemented
    values = tuple(_shared(getattr(obj, name), same) for name in slots)
    # The object is created (and remembered, for cycles) before its fields are read back.
    return (copyreg.__newobj__, (cls,), values, None, None, _set_slots)  # type: ignore[attr-defined]


_SETTERS: dict[type, tuple[Any, ...]] = {}


def _set_slots(obj: Any, values: tuple[Any, ...]) -> None:
    cls = type(obj)
    setters = _SETTERS.get(cls)
    if setters is None:
        native = issubclass(cls, Record) or cls in NATIVE_RECORDS
        fields = cls.__dict__["_fields"] if native else cls.__dict__["__slots__"]
        setters = _SETTERS[cls] = tuple(cls.__dict__[name].__set__ for name in fields)
    for setter, value in zip(setters, values, strict=True):
        setter(obj, value)


def _read(path: Path, key: bytes) -> tuple[dict[str, Any], bytes] | None:
    """(header, pickled body) of an authentic entry, or None. Nothing is unpickled here."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if not raw.startswith(_MAGIC) or len(raw) < len(_MAGIC) + _MAC_SIZE:
        return None
    found = raw[len(_MAGIC) : len(_MAGIC) + _MAC_SIZE]
    signed = raw[len(_MAGIC) + _MAC_SIZE :]
    if not compare_digest(found, mac(key, signed)):
        return None
    newline = signed.find(b"\n")
    if newline < 0:
        return None
    try:
        header = json.loads(signed[:newline])
    except ValueError:
        return None
    if not isinstance(header, dict):
        return None
    return header, signed[newline + 1 :]


def _write(path: Path, key: bytes, header: dict[str, Any], body: bytes) -> None:
    signed = json.dumps(header, sort_keys=True).encode("utf-8", "surrogateescape") + b"\n" + body
    signature = mac(key, signed)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    import tempfile  # noqa: PLC0415

    fd, tmp = tempfile.mkstemp(prefix=".compiled.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(_MAGIC + signature + signed)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _packs_of(header: dict[str, Any]) -> tuple[Pack, ...] | None:
    try:
        return tuple(
            Pack(str(p["name"]), Path(p["root"]), tuple(p["handler_roots"]), dict(p["alias"]), str(p["prefix"]))
            for p in header["packs"]
        )
    except (KeyError, TypeError, ValueError):
        return None


def _pack_dicts(packs: tuple[Pack, ...]) -> list[dict[str, Any]]:
    return [
        {
            "name": p.name,
            "root": str(p.root),
            "handler_roots": list(p.handler_roots),
            "alias": dict(p.module_alias),
            "prefix": p.display_prefix,
        }
        for p in packs
    ]


def _current(root: Path, path: Path) -> tuple[dict[str, Any], bytes] | None:
    """(header, body) of the entry at ``path`` when it is authentic (its MAC verifies under our key)
    and current (its key is the key of the project's files as they are now), else None."""
    key = _mac_key(create=False)
    if key is None:
        return None
    entry = _read(path, key)
    if entry is None:
        return None
    header, _ = entry
    packs = _packs_of(header)
    extra = header.get("extra", [])
    if not (isinstance(extra, list) and all(isinstance(f, str) for f in extra)):
        return None
    if packs is None or header.get("root") != str(root) or header.get("key") != project_key(root, packs, extra):
        return None
    return entry


def _from_cache(root: Path, path: Path) -> CompiledProject | None:
    entry = _current(root, path)
    if entry is None:
        return None
    header, body = entry
    was_enabled = gc.isenabled()
    gc.disable()  # thousands of small objects that live as long as the process: no collection finds garbage
    try:
        project = loads(body)  # authentic: written by this engine for these very inputs
    except Exception:
        return None
    finally:
        if was_enabled:
            gc.enable()
    if not isinstance(project, CompiledProject) or project.root != root:
        return None
    project.from_cache = True
    from engine.guard.warm import mark_warm  # noqa: PLC0415

    mark_warm()
    if project.policy is not None and not project.classes and isinstance(header.get("report"), dict):
        # Written by validate, without the compiled path classes: completed once, best effort.
        with contextlib.suppress(Exception):
            store(project, None, report=header["report"])
    from engine.policy.paths import COMPILED_CLASSES  # noqa: PLC0415

    COMPILED_CLASSES.update(project.classes)
    return project


class CachedReport(Record, frozen=True):
    """What ``validate`` reports of a project whose valid load is cached: its warnings, counts
    and file count, as the load that wrote the entry found them (never errors: a project with
    errors has no entry)."""

    __slots__ = ("problems", "counts", "files")  # noqa: RUF023  (the fields' order)

    problems: tuple[Problem, ...]
    counts: dict[str, int]
    files: int

    def __init__(self, problems: tuple[Problem, ...], counts: dict[str, int], files: int) -> None:
        object.__setattr__(self, "problems", problems)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "files", files)

    @property
    def ok(self) -> bool:
        return True

    @property
    def errors(self) -> list[Problem]:
        return []

    @property
    def warnings(self) -> list[Problem]:
        return list(self.problems)


def _report_of(result: Any) -> dict[str, Any]:
    return {
        "problems": [{**p.as_dict(), "severity": p.severity} for p in result.problems],
        "counts": list(result.counts.items()),  # pairs: the header is written with sorted keys
        "files": result.files,
    }


def _report_from(data: Any) -> CachedReport | None:
    from engine.errors import Problem  # noqa: PLC0415

    try:
        problems = tuple(
            Problem(
                str(p["file"]),
                int(p["line"]),
                int(p["column"]),
                str(p["code"]),
                str(p["message"]),
                str(p["pointer"]),
                "warning",
            )
            for p in data["problems"]
            if p["severity"] == "warning"
        )
        if len(problems) != len(data["problems"]):
            return None  # an entry is written only for a load without errors
        counts = {str(k): int(v) for k, v in data["counts"]}
        return CachedReport(problems, counts, int(data["files"]))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def validated(root: Path) -> tuple[CachedReport | None, Path]:
    """``validate``'s report of the project at ``root`` from its cache entry, without loading it:
    (the report, or None when there is no authentic and current entry; the resolved root).

    Raises:
        UsageError: ``root`` is not a project.
    """
    from engine.source.project import check_project_root  # noqa: PLC0415

    root = check_project_root(Path(root))
    entry = _current(root, cache_path(root))
    if entry is None:
        return None, root
    report = _report_from(entry[0].get("report"))
    if report is not None:
        from engine.guard.warm import mark_warm  # noqa: PLC0415

        mark_warm()
    return report, root


def storable(result: Any) -> bool:
    """A load whose engine files await approval is never cached: a judging command would serve it."""
    return not any(p.code == "unapproved-change" for p in result.problems)


def _cacheable(config: Config) -> bool:
    """Plugins are code outside the key's files (installed packages, plugin folders): a project
    that loads any is built from source every time."""
    plugins = config.get("plugins") or {}
    return not (plugins.get("enabled") or plugins.get("folders"))


def build(root: Path, *, pin: str = "enforce") -> tuple[CompiledProject | None, Any]:
    """Load the project from source (every check, every example): (the compiled project or None, LoadResult).

    ``pin`` is the loader's handling of approved engine files (engine.compile.approved): a judging
    command enforces it; ``validate`` only reports (see :func:`storable`)."""
    from engine.compile.loader import ProjectLoader  # noqa: PLC0415

    loader = ProjectLoader(root, pin=pin)
    result = loader.load()
    snapshot = result.snapshot
    if snapshot is None:
        return None, result
    packs = tuple(loader.packs(snapshot.config))
    project = CompiledProject(
        loader.root,
        snapshot.config,
        packs,
        snapshot.policy,
        len(result.warnings),
        result.counts.get("tools", 0),
        result.counts.get("patterns", 0),
    )
    project.extra_files = imported_files(packs)
    return project, result


def store(project: CompiledProject, result: Any, *, classes: bool = True, report: Any = None) -> None:
    """Write the entry of a freshly built project and the ``result`` of its load (or its ``report``
    as an entry holds it) (best effort: a failure leaves no entry).

    ``classes=False`` leaves the path classes out (``validate``, which never judges: compiling
    them is a third of the cost of writing the entry); the first ``guard`` or ``check`` that
    reads the entry compiles them and writes it again.
    """
    if not _cacheable(project.config):
        return
    key = _mac_key(create=True)
    if key is None:
        return
    path = cache_path(project.root)
    project.classes = _path_classes(project) if classes else {}
    parsed = result.fingerprints if result is not None else None
    header = {
        "root": str(project.root),
        "packs": _pack_dicts(project.packs),
        "key": project_key(project.root, project.packs, project.extra_files, parsed),
        "extra": list(project.extra_files),
        "report": _report_of(result) if report is None else report,
    }
    try:
        lazy = project.policy.programs.by_name if project.policy is not None else None
        _write(path, key, header, _dumps(project, lazy=lazy))
    except (OSError, PicklingError, TypeError, AttributeError, RecursionError):
        with contextlib.suppress(OSError):
            path.unlink()


def _path_classes(project: CompiledProject) -> dict[tuple[str, ...], Any]:
    """The project's path classes and the engine's own (they do not depend on the working directory), compiled."""
    from engine.policy.paths import _compile  # noqa: PLC0415
    from engine.policy.places import engine_places  # noqa: PLC0415

    if project.policy is None:
        return {}
    places = engine_places(project.packs, project.config, project.root, project.audit_path())
    every = [*project.policy.classes.values(), places.engine_files, places.engine_state, places.engine_parents]
    return {tuple(globs): _compile(globs) for globs in every}


def load_project(root: Path, *, use_cache: bool = True) -> tuple[CompiledProject | None, Any]:
    """The compiled project at ``root``: from the cache when its entry is authentic and current,
    else built from source (and the entry written). (project, LoadResult or None when cached).

    Raises:
        UsageError: ``root`` is not a project.
    """
    from engine.source.project import check_project_root  # noqa: PLC0415

    root = check_project_root(Path(root))
    # No record of approved files (a first use, or one removed): only a load from source decides.
    if use_cache and _record_path(root).exists():
        cached = _from_cache(root, cache_path(root))
        if cached is not None:
            return cached, None
    from engine.guard.deferred import release_collection  # noqa: PLC0415

    release_collection()  # a load from source makes garbage: collected as ever (engine.cli holds it for a warm start)
    project, result = build(root)
    if project is not None and use_cache:
        store(project, result)
    return project, result
