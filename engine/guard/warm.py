"""A warm start for the one-shot commands: what every start would compile again, kept compiled.

``guard``, ``check`` and ``validate`` run as a fresh process per call, and importing the policy
modules compiles the same things each time: their module-level regexes (``re.compile``: the
parse is most of it) and the methods ``@dataclass`` generates (``exec`` of generated source:
about a millisecond a class here). Both are pure functions of their text and of the
interpreter, so their compiled forms are kept in ``<state root>/warm-start.bin``:

- regexes: ``re``'s compiled program of each (pattern, flags), put back in ``re``'s own
  cache before the modules that compile them are imported (``re.compile`` then finds them);
- dataclass methods: the code object of each generated source text, which ``dataclasses``
  then executes instead of compiling the text (a name ``exec`` in that module, shadowing the
  builtin, for these processes only: the library never does this).

A run that compiled anything not in the file adds it when the process ends. The file is
``MAGIC + MAC + marshal`` (keyed BLAKE2b-256), under the compiled-project cache's key (user config
dir, 0600); it is keyed by the interpreter and the engine's own files, and read only when its MAC
verifies: code objects are code, and a file nobody but the engine could have written is the
only one loaded. Any problem is a miss: everything is compiled as usual.
"""

from __future__ import annotations

import marshal
import os
import re
import sys
from importlib import import_module
from pathlib import Path

from engine.digests import compare_digest, digest, mac
from engine.policy.sre import from_program, sre_program

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["engine_stamp", "install", "mac_key", "mark_warm", "save"]

_MAGIC = b"HERMES-ENGINE-WARM/2\n"
_MAC_SIZE = 32
_NAME = "warm-start.bin"
_KEY_NAME = "compiled-project"
_MAX_REGEXES = 400  # below re's own cache size (512), so none of them pushes out another
_MAX_CODES = 1000
_ENGINE = Path(__file__).resolve().parent.parent

_sre: Any = import_module("_sre")  # its MAGIC is part of the tag
_STAMP: list[bytes] = []


def engine_stamp() -> bytes:
    """The engine's version and the (path, size, mtime) of each of its own files: a changed engine
    is a miss (once per process)."""
    if _STAMP:
        return _STAMP[0]
    from engine import __version__  # noqa: PLC0415

    lines: list[str] = []
    _stamp_lines(str(_ENGINE), lines)
    stamp = digest(__version__.encode())
    stamp.update("".join(lines).encode("utf-8", "surrogateescape"))
    _STAMP.append(stamp.digest())
    return _STAMP[0]


def _stamp_lines(directory: str, lines: list[str]) -> None:
    """A line per engine file under ``directory``: its files by name, then its folders' (one
    ``scandir`` and one ``stat`` per entry: what ``os.walk`` did, without its lists and joins)."""
    folders: list[str] = []
    with os.scandir(directory) as found:
        entries = sorted(found, key=lambda entry: entry.name)
    for entry in entries:
        name = entry.name
        if name.endswith((".py", ".json", ".yaml")) and not entry.is_dir():
            st = entry.stat()
            lines.append(f"{directory}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n")
        elif name != "__pycache__" and entry.is_dir(follow_symlinks=False):
            folders.append(entry.path)
    for folder in folders:
        _stamp_lines(folder, lines)


class _Warm:
    def __init__(self, path: Path, tag: bytes) -> None:
        self.path = path
        self.tag = tag
        self.regexes: dict[tuple[type, Any, int], tuple[Any, ...]] = {}
        self.codes: dict[str, Any] = {}
        self.added_codes = False
        self.warm = False  # this run read the project from its cache: what it compiles is worth keeping

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        """``exec`` for dataclasses' generated methods: their code compiled once, then kept."""
        if isinstance(source, str):
            code = self.codes.get(source)
            if code is None:
                # As exec compiles it in dataclasses (no __future__ flags of this module).
                code = self.codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
                self.added_codes = True
            source = code
        exec(source, globals, locals)


_ACTIVE: list[_Warm] = []


def _path() -> Path:
    from engine.state_files import state_root  # noqa: PLC0415

    return state_root() / _NAME


def _tag() -> bytes:
    head = f"{sys.version}\0{sys.executable}\0{sys.prefix}\0{marshal.version}\0{getattr(_sre, 'MAGIC', '')}"
    tag: bytes = digest(engine_stamp() + head.encode("utf-8", "surrogateescape")).digest()
    return tag


def mac_key(create: bool) -> bytes | None:
    """The key the compiled-project cache and this file are authenticated with, kept beside the
    audit keys (0600, user config dir); created when ``create`` and there is none. Read without
    importing the audit module (a warm start's import budget), which only creating it needs."""
    from engine.state_files import key_dir, read_key  # noqa: PLC0415

    directory = key_dir()
    try:
        existing = read_key(directory / f"{_KEY_NAME}.key")
    except (OSError, ValueError):
        existing = None
    if existing is not None or not create:
        return existing
    from engine.policy.audit import AuditError, _Keys  # noqa: PLC0415

    try:
        return _Keys(directory / f"{_KEY_NAME}.key", directory / f"{_KEY_NAME}.head").create()
    except (AuditError, OSError):
        return None


def install() -> None:
    """Put the kept regexes in ``re``'s cache and the kept code where ``dataclasses`` finds it;
    remember what this process compiles besides (see :func:`save`). Never raises."""
    if _ACTIVE or not isinstance(getattr(re, "_cache", None), dict):
        return
    try:
        warm = _Warm(_path(), _tag())
    except Exception:
        return
    _ACTIVE.append(warm)
    try:
        _load(warm)
    except Exception:
        warm.regexes.clear()
        warm.codes.clear()
    # Deferred in these processes (engine.guard.deferred): set on the module before it runs, read when it does.
    dataclasses = sys.modules.get("dataclasses") or import_module("dataclasses")
    if "exec" not in vars(dataclasses):
        dataclasses.exec = warm.exec  # type: ignore[attr-defined]


def _load(warm: _Warm) -> None:
    key = mac_key(create=False)
    if key is None:
        return
    try:
        raw = warm.path.read_bytes()
    except OSError:
        return
    if not raw.startswith(_MAGIC) or len(raw) < len(_MAGIC) + _MAC_SIZE:
        return
    found, signed = raw[len(_MAGIC) : len(_MAGIC) + _MAC_SIZE], raw[len(_MAGIC) + _MAC_SIZE :]
    if not compare_digest(found, mac(key, signed)):
        return
    if not signed.startswith(warm.tag):
        return  # another interpreter or engine: compiled again, and the file rewritten
    data = marshal.loads(signed[len(warm.tag) :])  # authentic: written by this engine, for this interpreter
    cache: dict[Any, Any] = re._cache  # type: ignore[attr-defined]
    for is_bytes, pattern, flags, program in data["regexes"]:
        key_ = (bytes if is_bytes else str, pattern, flags)
        warm.regexes[key_] = program
        if key_ not in cache:
            cache[key_] = from_program(pattern, flags, program)
    warm.codes.update(data["codes"])


def mark_warm() -> None:
    """This run reads its project from the cache: at its end, keep what it compiled (a cold run
    compiles the loader's regexes and classes too, which a warm one never needs)."""
    if _ACTIVE:
        _ACTIVE[0].warm = True


def save() -> None:
    """Add what this warm run compiled and the file does not hold yet (when anything). Never raises."""
    if not _ACTIVE or not _ACTIVE[0].warm:
        return
    warm = _ACTIVE[0]
    try:
        cache: dict[Any, Any] = re._cache  # type: ignore[attr-defined]
        added = False
        for key_ in list(cache):
            if len(warm.regexes) >= _MAX_REGEXES:
                break
            kind, pattern, flags = key_
            if key_ in warm.regexes or kind not in (str, bytes) or not isinstance(flags, int):
                continue
            program = sre_program(pattern, flags)
            if program is not None:
                warm.regexes[key_] = program
                added = True
        if not (added or warm.added_codes):
            return
        key = mac_key(create=True)
        if key is None:
            return
        codes = dict(list(warm.codes.items())[:_MAX_CODES])
        regexes = [(kind is bytes, pattern, flags, program) for (kind, pattern, flags), program in warm.regexes.items()]
        signed = warm.tag + marshal.dumps({"regexes": regexes, "codes": codes})
        _write(warm.path, _MAGIC + mac(key, signed) + signed)
        warm.added_codes = False  # saved: a second call (atexit after an explicit save) writes nothing
    except Exception:
        return


def _write(path: Path, data: bytes) -> None:
    import tempfile  # noqa: PLC0415

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=".warm.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
