"""Watching a project with watchfiles and reloading the engine on save.

Two watchers run: one recursive over the folders that hold manifests and handler
modules, one non-recursive over the project root (the config file, and folders
that appear or disappear). Editors' temporary files are ignored; a burst of
events (an atomic-rename save is several) becomes one reload. Once both watches are
armed, :meth:`Watcher.start` reloads whatever changed since the engine's load read the
files (a save in between raised no event), before it returns.

Neither thread ends before :meth:`Watcher.stop`: when the root is renamed away or
removed, the root watcher waits for it to come back, then watches again and reloads
every file (anything may have changed meanwhile); a watch that fails (a folder gone
between listing and watching) is set up again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from engine.source.project import CONFIG_NAMES, MANIFEST_DIRS, MANIFEST_SUFFIXES, is_ignored_name

log = logging.getLogger("hermes_engine.watch")

DEFAULT_DEBOUNCE_MS = 250
DEFAULT_STEP_MS = 10
RETRY_SECONDS = 0.2
READY_SECONDS = 60


class Reloadable(Protocol):
    """What a watcher needs from what it reloads (the Engine): not the Engine itself, so
    this module never imports ``engine.engine`` (tests/test_layout.py checks it)."""

    @property
    def root(self) -> Path: ...
    def handler_dirs(self) -> list[Path]: ...
    def plugin_dirs(self) -> list[Path]: ...
    def reload(self, changed: Iterable[Path | str] = ()) -> object: ...
    def changed_since_load(self, candidates: Iterable[Path] = ()) -> list[Path]: ...


class Watcher:
    """Reloads ``engine`` whenever a file it was loaded from changes. A context manager."""

    def __init__(
        self,
        engine: Reloadable,
        *,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
        step_ms: int = DEFAULT_STEP_MS,
        force_polling: bool | None = None,
    ) -> None:
        self.engine = engine
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.force_polling = force_polling
        self._stop = threading.Event()
        self._restart = threading.Event()
        self._lost = threading.Event()  # the root was gone: reload everything once it is back
        self._arrived: set[str] = set()
        self._threads: list[threading.Thread] = []
        # Generous: a start() that stops waiting compares before a watch is in place, and a save
        # after that compare and before the watch would be lost (a loaded machine is slow to set one up).
        self._ready = threading.Barrier(3, timeout=READY_SECONDS)
        # A test seam: called on each watching thread just before its watch is set up.
        self._before_arming: Callable[[], None] | None = None

    # -- what to watch ---------------------------------------------------------------

    def folders(self) -> list[Path]:
        root = self.engine.root
        found = [root / d for d in MANIFEST_DIRS if (root / d).is_dir()]
        found += [p for p in self.engine.handler_dirs() if p.is_dir()]
        found += [p for p in self.engine.plugin_dirs() if p.is_dir()]
        return found

    def relevant(self, path: Path) -> bool:
        root = self.engine.root
        try:
            rel = path.relative_to(root)
        except ValueError:
            return False
        if not rel.parts:
            return True  # the root itself: renamed, removed or replaced
        if any(is_ignored_name(part) for part in rel.parts) or "__pycache__" in rel.parts:
            return False
        if len(rel.parts) == 1:
            return rel.name in CONFIG_NAMES or rel.name in MANIFEST_DIRS or (root / rel).is_dir()
        if rel.parts[0] in MANIFEST_DIRS or any(path.is_relative_to(d) for d in self.engine.plugin_dirs()):
            return path.suffix in MANIFEST_SUFFIXES or not path.suffix or path.suffix == ".py"
        return path.suffix == ".py"

    # -- threads -----------------------------------------------------------------------

    def start(self) -> Watcher:
        for target in (self._watch_root, self._watch_folders):
            thread = threading.Thread(target=target, name=f"hermes-watch-{target.__name__}", daemon=True)
            thread.start()
            self._threads.append(thread)
        try:
            self._ready.wait()  # both watchers are set up before start() returns
        except threading.BrokenBarrierError:
            log.warning("the file watcher took too long to start")
        # A save made after the engine read its files and before the watches were in place
        # raised no event: compare with what the load read, and reload what differs. Saves
        # from now on are the watches' to see.
        try:
            missed = {p for p in self.engine.changed_since_load(self._everything()) if self.relevant(p)}
        except Exception:  # never keeps the watcher from starting; the watches see what comes next
            log.warning("could not compare the project with what was loaded", exc_info=True)
            missed = set()
        if missed:
            self._reload(missed)
        return self

    def stop(self) -> None:
        self._stop.set()
        self._restart.set()
        for thread in self._threads:
            thread.join(timeout=10)
        self._threads = []

    def __enter__(self) -> Watcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _events(self, paths: Iterable[Path], *, recursive: bool, stop: threading.Event) -> Any:
        import watchfiles  # noqa: PLC0415  (only hosts that watch pay for it)

        return watchfiles.watch(
            *paths,
            watch_filter=lambda _change, path: self.relevant(Path(path)),
            debounce=self.debounce_ms,
            step=self.step_ms,
            stop_event=stop,
            recursive=recursive,
            raise_interrupt=False,
            force_polling=self.force_polling,
            yield_on_timeout=True,
            rust_timeout=200,
        )

    def _watch_root(self) -> None:
        while not self._stop.is_set():
            root = self.engine.root
            identity = _identity(root)
            if identity is None:  # renamed away or removed: wait for it to come back
                self._lost.set()
                self._arrive()
                self._stop.wait(RETRY_SECONDS)
                continue
            if self._lost.is_set():
                self._lost.clear()
                self._restart.set()
                self._reload(self._everything())
            self._arming()
            try:
                for changes in self._events([root], recursive=False, stop=self._stop):
                    self._arrive()
                    paths = {Path(p) for _, p in changes}
                    # The root itself changed (removed, moved; a new directory may even get the
                    # old inode number): its watch is gone, so watch again and read everything.
                    if root in paths or _identity(root) != identity:
                        self._lost.set()
                        self._restart.set()
                        break
                    if not paths:
                        continue
                    if any(p.name in MANIFEST_DIRS or p.is_dir() for p in paths):
                        self._restart.set()  # a watched folder appeared or went away
                    self._reload(paths)
            except Exception:
                log.debug("watching the project root failed; watching it again", exc_info=True)
                self._arrive()
                self._stop.wait(RETRY_SECONDS)

    def _watch_folders(self) -> None:
        ended: float | None = None  # when the previous watch stopped: files saved since were missed
        while not self._stop.is_set():
            self._restart.clear()
            folders = self.folders() if self.engine.root.is_dir() else []
            if not folders:
                self._arrive()
                self._restart.wait(RETRY_SECONDS)
                continue
            stop = _Either(self._stop, self._restart)
            armed = False
            self._arming()
            try:
                for changes in self._events(folders, recursive=True, stop=stop):  # type: ignore[arg-type]
                    self._arrive()
                    if not armed:  # the first yield: the new watch is in place
                        armed = True
                        missed = self._saved_since(ended, folders) if ended is not None else set()
                        if missed:
                            self._reload(missed)
                    if changes:
                        paths = {Path(p) for _, p in changes}
                        self._reload(paths)
                        if paths.intersection(folders):  # a watched folder itself went away or moved
                            break
            except Exception:
                log.debug("watching the project folders failed; watching them again", exc_info=True)
                self._arrive()
                self._restart.wait(RETRY_SECONDS)
            ended = time.time()

    def _saved_since(self, moment: float, folders: list[Path]) -> set[Path]:
        """Relevant files under ``folders`` modified at or after ``moment`` (wall clock, as mtimes are)."""
        found: set[Path] = set()
        for folder in folders:
            with contextlib.suppress(OSError):
                for path in folder.rglob("*"):
                    with contextlib.suppress(OSError):
                        if path.stat().st_mtime >= moment - 0.01 and path.is_file() and self.relevant(path):
                            found.add(path)
        return found

    def _everything(self) -> set[Path]:
        """Every file a reload reads, so that each is parsed (and each handler module imported) again."""
        root = self.engine.root
        found = {root / name for name in CONFIG_NAMES}
        for folder in self.folders():
            with contextlib.suppress(OSError):
                found.update(p for p in folder.rglob("*") if p.is_file() and self.relevant(p))
        return found

    def _arming(self) -> None:
        if self._before_arming is not None:
            self._before_arming()

    def _arrive(self) -> None:
        """Tell start() this thread is watching (once per thread)."""
        name = threading.current_thread().name
        if name in self._arrived:
            return
        self._arrived.add(name)
        with contextlib.suppress(threading.BrokenBarrierError):
            self._ready.wait()

    def _reload(self, paths: set[Path]) -> None:
        try:
            self.engine.reload(sorted(paths))
        except Exception:  # a reload never kills the watcher; the engine reports what went wrong
            log.exception("reload failed")


def _identity(path: Path) -> tuple[int, int] | None:
    """Which directory ``path`` is now (None: there is none)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if path.is_dir() else None


class _Either:
    """An event that is set when either of two events is (watchfiles polls is_set)."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        self.first = first
        self.second = second

    def is_set(self) -> bool:
        return self.first.is_set() or self.second.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self.second.wait(timeout) or self.first.is_set()
