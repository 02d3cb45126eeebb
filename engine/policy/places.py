"""The engine's own files, computed from the loaded project: no tool may change them.

Whatever the loader reads decides what the engine is: ``kind:`` makes any document in
a manifest folder a tool, a policy or an approval setting, and a handler package runs
inside the host. So every folder and file the loader reads (in the project and in the
builtin pack), the engine's own package, and its state (audit log, grants, logs) form
the computed path class ``engine_files``; the state alone is ``engine_state``.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Callable, Iterable
from pathlib import Path

from engine.config import Config, state_root
from engine.policy.paths import Places, ancestors, literal
from engine.source.project import CONFIG_NAMES, MANIFEST_DIRS, Pack

_ENGINE_PACKAGE = Path(__file__).resolve().parent.parent


class _Real:
    """``os.path.realpath`` of each path once within one call of :func:`engine_places` (the same
    folders are resolved for several lists: 57 calls for 24 paths). Made per call: a link changed
    between two calls (``guard --serve``) is resolved again."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def __call__(self, path: str | Path) -> str:
        key = os.fspath(path)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = os.path.realpath(key)
        return found


def _tree(path: Path, real: Callable[[Path], str] = os.path.realpath) -> list[str]:
    """Globs for a path and everything under it, by its real path and as spelled."""
    out: list[str] = []
    for spelling in dict.fromkeys((str(path), real(path))):
        out += [literal(spelling), literal(spelling) + "/**"]
    return out


def _file(path: Path, real: Callable[[Path], str] = os.path.realpath) -> list[str]:
    return [literal(p) for p in dict.fromkeys((str(path), real(path)))]


def temp_dirs() -> list[str]:
    """Every folder ``tempfile`` may choose as the temp dir (it takes the first it can write:
    ``TMPDIR``, ``TEMP``, ``TMP``, then the usual ones; the working directory, its last resort, is
    a link area anyway), and ``/dev/shm``. All of them rather than the one chosen: the same
    areas or more, without importing ``tempfile`` and writing a probe file on every start."""
    named = [os.path.abspath(d) for d in (os.environ.get(n) for n in ("TMPDIR", "TEMP", "TMP")) if d]
    return [*named, "/tmp", "/var/tmp", "/usr/tmp", "/dev/shm"]


def config_home() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    home = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return home / "hermes-engine"


def interpreter_files(
    prefix: str | None = None, base_prefix: str | None = None, site_dirs: Iterable[str] | None = None
) -> tuple[list[Path], list[Path]]:
    """(folders, files) of the interpreter the engine runs on: what it reads before and while it
    imports the engine (adv46). Its virtual environment whole when it runs in one (the scripts in
    bin/, `pyvenv.cfg`, which names the interpreter), the standard library, every site folder (the
    engine's dependencies, its compiled `*__mypyc*` library, the `.pth` files run at start-up), the
    user's when the interpreter reads it, and the interpreter itself: a write to any of them runs
    the writer's code inside the engine on its next start, as a write to the engine's own package
    would. Existing or not yet (a user site created with a `.pth` in it loads as one that was there)."""
    prefix = sys.prefix if prefix is None else prefix
    base_prefix = sys.base_prefix if base_prefix is None else base_prefix
    folders: list[str] = []
    if prefix != base_prefix:
        folders.append(prefix)
    paths = sysconfig.get_paths()
    folders += [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(k)]
    if site_dirs is None:
        found = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
        if site.ENABLE_USER_SITE:
            found.append(site.getusersitepackages())
        site_dirs = found
    folders += list(site_dirs)
    named = [sys.executable, getattr(sys, "_base_executable", "")]
    files = [f for f in named if f and os.path.isabs(f)]
    return [Path(f) for f in dict.fromkeys(folders) if f and os.path.isabs(f)], [Path(f) for f in dict.fromkeys(files)]


def pack_files(pack: Pack, real: Callable[[Path], str] = os.path.realpath) -> tuple[list[str], set[str]]:
    """(globs, names) of what the loader reads from one pack, existing or not yet."""
    globs: list[str] = []
    names: set[str] = set()
    root = pack.root
    for folder in MANIFEST_DIRS:
        globs += _tree(root / folder, real)
        names.add(folder)
    for config in CONFIG_NAMES:
        globs += _file(root / config, real)
        names.add(config)
    if pack.is_plugin:
        # A plugin's folder (plugin.yaml, its manifests, its package) is read whole; its name is
        # a word a command must contain to reach it (the detector's prefilter).
        globs += _tree(root, real)
        names |= {root.name, "plugin.yaml"}
    code = pack.package_root
    for prefix in pack.handler_roots:
        top = prefix.split(".", 1)[0]
        # The root is first on sys.path: the package, a module of that name, and its bytecode.
        globs += _tree(code / top, real) + _file(code / f"{top}.py", real)
        globs += [g + "/" + literal(top) + ".*" for g in _file(code / "__pycache__", real)]
        names.add(top)
    return globs, names


def engine_places(
    packs: Iterable[Pack], config: Config, workdir: Path, audit_log: Path, *, resolve: bool = True
) -> Places:
    """Where the engine runs and which files are its own, for the path classifier."""
    real = _Real()
    files: list[str] = []
    names: set[str] = {"__pycache__"}
    tops: list[Path] = []  # what the loader reads, for the folders above it
    folders: list[str] = []  # where its members are (see Places.engine_folders)
    manifest_folders: set[str] = set()
    for pack in packs:
        globs, found = pack_files(pack, real)
        files += globs
        names |= found
        tops += [pack.root / n for n in (*MANIFEST_DIRS, *CONFIG_NAMES)] + [pack.package_root]
        manifest_folders.update(real(pack.root / n) for n in MANIFEST_DIRS)
        folders += [real(pack.root), *(real(pack.root / n) for n in MANIFEST_DIRS)]
        folders += [real(pack.package_root / prefix.split(".", 1)[0]) for prefix in pack.handler_roots]
    state = config.state_dir
    roots = (_ENGINE_PACKAGE, state, state_root(), config_home())
    for path in roots:
        files += _tree(path, real)
        names.add(path.name)
    files += _file(audit_log, real)
    tops += [*roots, audit_log]
    runtime, programs = interpreter_files()
    for path in runtime:
        files += _tree(path, real)
    for path in programs:
        files += _file(path, real)
    tops += [*runtime, *programs]
    # A name any spelling of them holds (the venv's folder, `site-packages`, `python3.11`), for the prefilter; not a
    # bare `python`/`python3` (in most commands that run code, and spelled inside the venv's folder or the stdlib's)
    names.update(p.name for p in runtime)
    names.update(p.name for p in programs if "." in p.name)
    folders += [real(p) for p in roots]
    parents = ancestors(p for top in tops for p in dict.fromkeys((str(top), real(top))))
    names.add(audit_log.name)
    # Spilled results are the model's own output, and it is told to read them back.
    readable = [g for p in (state / "results",) for g in _tree(p, real)]
    # The engine's state and its keys (the audit log's HMAC key lives under config_home()).
    secret = [*_tree(state, real), *_tree(state_root(), real), *_tree(config_home(), real), *_file(audit_log, real)]
    secret += ["!" + g for g in readable]
    cwd = real(workdir)
    home = real(Path.home())
    extra = [real(config.root / Path(r).expanduser()) for r in config.get("files", "roots")]
    temp = {real(p) for p in temp_dirs()}
    return Places(
        cwd=cwd,
        home=home,
        engine_files=tuple(dict.fromkeys(files)),
        engine_state=tuple(dict.fromkeys(secret)),
        engine_parents=tuple(parents),
        names=tuple(sorted(n.lower() for n in names if len(n) >= 2)),
        resolve=resolve,
        link_areas=tuple(dict.fromkeys((cwd, home, *extra, *sorted(temp)))),
        engine_folders=tuple(dict.fromkeys(folders)),
        manifest_folders=frozenset(manifest_folders),
    )
