"""Watching a project with watchfiles and reloading the engine on save.

Two watchers run: one recursive over the folders that hold manifests and handler
modules, one non-recursive over the project root (the config file, and folders
that appear or disappear). Editors' temporary files are ignored; a burst of
events (an atomic-rename save is several) becomes one reload.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.source.project import CONFIG_NAMES, MANIFEST_DIRS, MANIFEST_SUFFIXES, is_ignored_name

if TYPE_CHECKING:
    from engine.engine import Engine

log = logging.getLogger("hermes_engine.watch")

DEFAULT_DEBOUNCE_MS = 250
DEFAULT_STEP_MS = 10


class Watcher:
    """Reloads ``engine`` whenever a file it was loaded from changes. A context manager."""

    def __init__(
        self,
        engine: Engine,
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
        self._threads: list[threading.Thread] = []
        self._ready = threading.Barrier(3, timeout=10)

    # -- what to watch ---------------------------------------------------------------

    def folders(self) -> list[Path]:
        root = self.engine.root
        found = [root / d for d in MANIFEST_DIRS if (root / d).is_dir()]
        found += [p for p in self.engine.handler_dirs() if p.is_dir()]
        return found

    def relevant(self, path: Path) -> bool:
        root = self.engine.root
        try:
            rel = path.relative_to(root)
        except ValueError:
            return False
        if any(is_ignored_name(part) for part in rel.parts) or "__pycache__" in rel.parts:
            return False
        if len(rel.parts) == 1:
            return rel.name in CONFIG_NAMES or rel.name in MANIFEST_DIRS or (root / rel).is_dir()
        if rel.parts[0] in MANIFEST_DIRS:
            return path.suffix in MANIFEST_SUFFIXES or not path.suffix
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
        first = True
        for changes in self._events([self.engine.root], recursive=False, stop=self._stop):
            if first:
                first = False
                self._arrive()
            if not changes:
                continue
            paths = {Path(p) for _, p in changes}
            if any(p.name in MANIFEST_DIRS or p.is_dir() for p in paths):
                self._restart.set()  # a watched folder appeared or went away
            self._reload(paths)

    def _watch_folders(self) -> None:
        first = True
        while not self._stop.is_set():
            self._restart.clear()
            folders = self.folders()
            if not folders:
                if first:
                    first = False
                    self._arrive()
                self._restart.wait(0.2)
                continue
            stop = _Either(self._stop, self._restart)
            for changes in self._events(folders, recursive=True, stop=stop):  # type: ignore[arg-type]
                if first:
                    first = False
                    self._arrive()
                if changes:
                    self._reload({Path(p) for _, p in changes})

    def _arrive(self) -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            self._ready.wait()

    def _reload(self, paths: set[Path]) -> None:
        try:
            self.engine.reload(sorted(paths))
        except Exception:  # a reload never kills the watcher; the engine reports what went wrong
            log.exception("reload failed")


class _Either:
    """An event that is set when either of two events is (watchfiles polls is_set)."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        self.first = first
        self.second = second

    def is_set(self) -> bool:
        return self.first.is_set() or self.second.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self.second.wait(timeout) or self.first.is_set()
