"""What a check reads of the files a command runs: a session's view of the files it wrote (SessionView), and the view
of a check without a session (DiskView: `Engine.check`, `hermes-engine check`, what a guard hook asks), with the one
reading of a file's text on disk both share (SessionView._disk).

(perf50) Split from session_memory, which keeps what only a session holds (the background processes, the shells'
state, the memory of every session): a guard's check start imports this module and no dataclass (the warm file keeps
no code for it). A DiskView records what each file it read was on disk (DiskView.stamps: its resolved path, inode,
size, change and modification times): the evaluator keeps the parse of a line that read files with those stamps and
uses it again while every stamp is the same (evaluate.Evaluator._disk_parses); a file changed within ``settle``
seconds of the check is never kept (a rewrite in the same clock tick keeps its times).
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import stat
import threading
import time
from collections import OrderedDict

from engine.policy.lexer import MAX_LENGTH
from engine.policy.paths import key_in_workdir, runs_path

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

    from engine.policy.session_memory import ProcessInput, ShellState, Watched, WatchedKeys, Writing

MAX_FILES = 256  # files remembered with their content, per session
MAX_NAMES = 4096  # files remembered at all (past MAX_FILES: as unread), per session
MAX_BYTES = 4 * 1024 * 1024  # remembered content, per session
MAX_CONTENT = MAX_LENGTH  # one file's text judged (the limit of a command line)
MAX_SOURCES = 16  # the words a tree reader read, remembered per file it wrote (SessionFiles.archives)
MAX_SEARCHES = 256  # quiet tree searches remembered per session (SessionFiles.searched: past it, the oldest go)
_SLACK = 2.0  # seconds: file systems stamp times coarser than the clock reads them
_TICK = 0.05  # (sess51) seconds a file's change time may lag the clock (the kernel stamps with its coarse clock)
_BINARY = b"\x00"
_MAX_LISTED = 256  # the entries of a folder read to match a glob (SessionView.names_in, keys_under)
_MAX_DEPTH_WALKED = 3  # the folders under a `**` glob's folder walked on disk (SessionView.keys_under)
_NOT_WALKED = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages"})


class Remembered:
    """A file the session wrote: its text when the engine saw it, else None (unread)."""

    __slots__ = ("content",)

    def __init__(self, content: str | None) -> None:
        self.content = content


def _live(entries: dict[str, Any], lock: threading.Lock) -> list[Any]:
    """(bg49) The entries of ``entries`` (Watched, Writing: each with its process's ``alive`` handle) whose process
    still runs or is about to start (no handle yet); the ended ones are forgotten. A handle that fails: still running.
    One sweep for the watches and the writers (``lock``, the session memory's, not held by the caller: a handle is
    asked without it)."""
    with lock:
        items = list(entries.items())
    live: list[Any] = []
    ended: list[str] = []
    for key, entry in items:
        try:
            alive = entry.alive is None or entry.alive()
        except Exception:
            alive = True  # not known: still running
        if alive:
            live.append(entry)
        else:
            ended.append(key)
    if ended:
        with lock:
            for key in ended:
                entries.pop(key, None)
    return live


class SessionFiles:
    """One session's remembered files."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.files: OrderedDict[str, Remembered] = OrderedDict()
        self.size = 0
        self.kept = 0  # entries holding content
        self.names: frozenset[str] = frozenset()  # basenames, for the fast path
        self.processes: dict[str, ProcessInput] = {}
        # Second names the session made (`ln TARGET NAME`, `ln -s`, `cp -l`): NAME -> TARGET, both
        # absolute. A later line writing through NAME writes TARGET (a hard link cannot be told
        # from its file on disk by its path).
        self.links: OrderedDict[str, str] = OrderedDict()
        # Files a tree reader wrote (`tar czf /tmp/x.tgz .`, `grep -r KEY . > hits`): key -> the words it
        # read (absolute, `~/…`, or with `$`). A later call sending the file sends them (evaluate:
        # project_exfiltration judges it as the reader on the sender's line).
        self.archives: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        # (quiet42) The quiet tree searches that ran (`grep -rq 'PASSWORD=a' . && echo y`: one bit of what the
        # tree holds a call), as digests of what each asked (evaluate.quiet_search_key), the oldest forgotten past
        # MAX_SEARCHES; ``quiet``: one ran. Once one ran, a search of a folder holding a secret asking anything
        # else asks (evaluate._asked_before), whatever folder each read (a copy of the tree, a link to it).
        self.searched: OrderedDict[int, None] = OrderedDict()
        self.quiet = False
        # (sess46) Live background processes and the files they read as code (Watched), by process id; the
        # readings the gate allowed whose process has not started yet, by command (SessionMemory.expect).
        self.watches: dict[str, Watched] = {}
        self.expected: OrderedDict[str, Watched] = OrderedDict()
        # (adv48) Live background processes and the files they write (Writing), by process id, or by command
        # before the process started (SessionMemory.terminal_wrote with background, started)
        self.writing: dict[str, Writing] = {}
        self.wide = False  # one of them writes a glob or a tree (Writing.wide): see _names

    def searches(self, found: list[int | None]) -> None:
        """Remember quiet tree searches that ran: their digests, None for one asking something new each
        time (only that one ran is remembered; the lock held)."""
        self.quiet = True
        for key in found:
            if key is not None:
                self.searched.pop(key, None)
                self.searched[key] = None
        while len(self.searched) > MAX_SEARCHES:
            self.searched.popitem(last=False)

    def link(self, made: dict[str, str]) -> None:
        """Remember second names (NAME -> TARGET); the oldest are forgotten past MAX_NAMES."""
        for name, target in made.items():
            self.links.pop(name, None)
            self.links[name] = target
        while len(self.links) > MAX_NAMES:
            self.links.popitem(last=False)
        self._names()

    def _names(self) -> None:
        # (adv48) and the files a background job writes through a link (`cp y.txt l.sh`, l.sh -> x.sh: `sh x.sh`)
        written = (k for writing in self.writing.values() for k in writing.keys)
        self.names = frozenset(posixpath.basename(k) for k in (*self.files, *self.links, *written))
        # (bg49) a background writer of a glob or a tree may write any name: no line is skipped unread meanwhile
        self.wide = any(writing.wide for writing in self.writing.values())

    def remember(self, key: str, content: str | None, sources: tuple[str, ...] = ()) -> None:
        self.archives.pop(key, None)  # written again: what a reader put there is gone
        if sources:
            self.archives[key] = sources[:MAX_SOURCES]
            while len(self.archives) > MAX_FILES:
                self.archives.popitem(last=False)
        if content is not None and (len(content) > MAX_CONTENT or content.encode("utf-8", "replace").count(_BINARY)):
            content = None  # too large to judge, or not text: unread
        old = self.files.pop(key, None)
        if old is not None and old.content is not None:
            self.size -= len(old.content)
            self.kept -= 1
        self.files[key] = Remembered(content)
        if content is not None:
            self.size += len(content)
            self.kept += 1
        # Over the bounds: the oldest lose their content first (they stay known, as unread),
        # then their names.
        if self.size > MAX_BYTES or self.kept > MAX_FILES:
            for entry in self.files.values():
                if self.size <= MAX_BYTES and self.kept <= MAX_FILES:
                    break
                if entry.content is not None:
                    self.size -= len(entry.content)
                    self.kept -= 1
                    entry.content = None
        while len(self.files) > MAX_NAMES:
            self.files.popitem(last=False)
        self._names()

    def hold(self, key: str, sources: tuple[str, ...]) -> None:
        """Remember that the files ``key`` stands for (a splitter's prefix: held_by) hold ``sources``."""
        self.archives.pop(key, None)
        self.archives[key] = sources
        while len(self.archives) > MAX_FILES:
            self.archives.popitem(last=False)

    def forget(self, key: str) -> None:
        self.archives.pop(key, None)
        old = self.files.pop(key, None)
        if old is not None:
            if old.content is not None:
                self.size -= len(old.content)
                self.kept -= 1
            self._names()


class SessionView:
    """What one check reads from its session: remembered files, and files on disk."""

    __slots__ = ("_lock", "_real", "_under", "files", "overlay", "reads", "shell", "workdir")
    disk = False  # (bg49) a DiskView: a check without a session

    def __init__(self, files: SessionFiles, workdir: str, lock: threading.Lock) -> None:
        self.files = files
        self.workdir = workdir
        self._lock = lock
        self._real: str | None = None
        # keys_under's answers in this check (a python command asks twice): one check, one state.
        self._under: dict[tuple[str, str | None], list[str]] = {}
        # The background shell a `process write` is judged for: its lines are read from there.
        self.shell: ShellState | None = None
        # (sess46) The keys ``read`` is asked for (the gate judging a background command: what its process watches)
        self.reads: WatchedKeys | None = None
        # (sess46) Files a call is about to write, by key: their new text (None: not known). A running background
        # process's command is judged again with these (SessionMemory.rewritten).
        self.overlay: dict[str, str | None] | None = None

    def searched(self, key: int) -> bool:
        """Whether a quiet tree search of the session that ran asked what ``key`` digests (SessionFiles.searched)."""
        with self._lock:
            return key in self.files.searched

    def links(self) -> dict[str, str]:
        """The second names the session made, under every key the analyzer may look them up by
        (absolute, and relative to the working directory when inside it)."""
        if not self.files.links:
            return {}
        with self._lock:
            made = list(self.files.links.items())
        out: dict[str, str] = {}
        for name, target in made:
            out[name] = target
            out[file_key(name, self.workdir)] = target
        return out

    def archive_sources(self, key: str) -> tuple[str, ...]:
        """The words a tree reader read to write the file the analyzer keys ``key`` (see
        SessionFiles.archives): none when the session did not write it so."""
        if not self.files.archives:
            return ()
        with self._lock:
            return held_by(self.files.archives, file_key(key, self.workdir))

    def archives(self) -> list[tuple[str, tuple[str, ...]]]:
        """Every file the session remembers a tree reader wrote, with the words it read (redt36); a splitter's
        pieces by their prefix."""
        if not self.files.archives:
            return []
        with self._lock:
            return [(key.rstrip(_PREFIX_MARK), held) for key, held in self.files.archives.items()]

    def mentioned(self, text: str) -> bool:
        """Whether ``text`` may run a file this view knows (a fast-path test: no parse), or a
        name the shell it is written to defined (then it is read)."""
        if "/" in text or self.shell is not None or self.reads is not None or self.overlay or self.files.wide:
            return True
        names = self.files.names
        return bool(names) and any(name in text for name in names)

    def read(self, key: str) -> str | bool | None:
        """The text to judge for running the file the analyzer keys ``key``: the remembered
        text and the text on disk (joined when they differ); False when the session wrote it
        but nobody can read it; None when the session knows nothing of it (not judged)."""
        name = file_key(key, self.workdir)
        if self.reads is not None:
            self.reads.add(name)
        if self.overlay and name in self.overlay:
            rewritten = self.overlay[name]
            return False if rewritten is None else rewritten
        if self.files.writing and self._being_written(name):
            return False  # (adv48) a live background process of the session writes it: its text is not known
        with self._lock:
            entry = self.files.files.get(name)
            remembered = entry.content if entry is not None else None
        disk = self._disk(name, entry is not None)
        if entry is None:
            # changed in the working tree since the session began: its text, or False when it cannot
            # be judged (a program built there, a text past the bound)
            return disk if disk is not None else None
        if remembered is None:
            return disk if isinstance(disk, str) else False
        if isinstance(disk, str) and disk != remembered:
            return remembered + "\n" + disk
        return remembered

    def _being_written(self, name: str) -> bool:
        """(adv48) Whether a background process of the session that still runs (or is about to start) writes the
        file of ``name`` (Writing); the ended ones are forgotten."""
        return any(writing.writes(name) for writing in _live(self.files.writing, self._lock))

    def writes_running(self) -> bool:
        """(fp49) Whether a background process of the session that writes files (Writing) still runs or is about
        to start: a listing of the tree read from the disk now may not be what it prints (Analyzer._listings_made). The
        ended ones are forgotten (_live: debt50, one sweep with _being_written's)."""
        return bool(self.files.writing) and bool(_live(self.files.writing, self._lock))

    def planted(self, key: str) -> str | bool | None:
        """(unpack50) The text of the file the analyzer keys ``key`` that a command runs by its exact name (`bash
        x.sh`, `./x`), when ``read`` knows nothing of it (the session did not write it, and it did not change since
        the session began): read from the disk as a check without a session reads it (DiskView, same bounds: inside
        the working directory, no virtual environment's activation script, no machine code; False past
        MAX_CONTENT). A script planted before the session began, run through the terminal, was not read while
        `Engine.check` of the same line read it (bg49's open item)."""
        if self.disk:
            return None  # (a DiskView's read already did)
        return DiskView(self.workdir, 0.0)._disk(file_key(key, self.workdir), False)

    def touched(self, key: str) -> bool:
        """Whether the session wrote the file the analyzer keys ``key``, or it changed in the working
        tree since the session began: a program or a library too (which ``read`` leaves unjudged)."""
        name = file_key(key, self.workdir)
        inside = name.rstrip("/") + "/"
        if self.overlay and any(k == name or k.startswith(inside) for k in self.overlay):
            return True
        if self.files.writing and self._being_written(name):
            return True  # (adv48) a live background job of the session writes it
        with self._lock:
            if name in self.files.files or any(k.startswith(inside) for k in self.files.files):
                return True  # the file, or a file in the folder it names (`-provider-path DIR`)
            if name == "." and any(map(key_in_workdir, self.files.files)):
                return True  # (env44) the working directory: its files' keys have no `./`
        path = self._path(name)
        if path is None:
            return False
        try:
            real = os.path.realpath(path)
            return self._inside(real) and os.stat(real).st_mtime >= self.files.started - _SLACK
        except (OSError, ValueError):
            return False

    def names_in(self, folder: str) -> list[str]:
        """The names a glob in ``folder`` (a key, "" for the working directory) may match: of the
        files the session wrote there, and of the folder on disk (the first few hundred)."""
        with self._lock:
            names = [posixpath.basename(k) for k in self.files.files if posixpath.dirname(k) == folder]
        if self.overlay:
            names += [posixpath.basename(k) for k in self.overlay if posixpath.dirname(k) == folder]
        path = self._path(folder or ".")
        if path is not None:
            names += _listed(path)
        return names

    def keys_under(self, base: str, name: str | None = None) -> list[str]:
        """The files under the folder ``base`` (an analyzer's key: "" the working directory, "/"
        anywhere) that a `**` glob may match, at any depth: those the session wrote, and those
        of the folders under it on disk (not hidden ones, not followed through links; the first
        few hundred entries), which ``read`` judges only when they changed since it began.
        ``name``: the glob of the last component a key must match (the others are left out on
        disk before their file is asked when it changed: one stat each). Remembered for the
        view's check."""
        memo = self._under.get((base, name))
        if memo is not None:
            return list(memo)
        keys = self._keys_under(base, name)
        self._under[base, name] = keys
        return list(keys)

    def _keys_under(self, base: str, name: str | None) -> list[str]:
        folder = file_key(base, self.workdir) if base not in ("", "/") else base
        if folder == ".":
            folder = ""
        prefix = folder.rstrip("/") + "/" if folder else ""
        with self._lock:
            keys = [
                k
                for k in self.files.files
                if folder == "/" or (k.startswith(prefix) if prefix else not k.startswith(("/", "~")))
            ]
        if self.overlay:
            keys += [
                k
                for k in self.overlay
                if folder == "/" or (k.startswith(prefix) if prefix else not k.startswith(("/", "~")))
            ]
        path = self._path(folder or ".") if folder != "/" else None
        if path is None:
            return keys
        pending = [(path, prefix, 0)]
        seen = 0
        since = self.files.started - _SLACK
        while pending and seen < _MAX_LISTED:
            here, key, depth = pending.pop()
            try:
                with os.scandir(here) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > _MAX_LISTED:
                            break
                        if entry.name.startswith(".") or entry.name in _NOT_WALKED:
                            continue
                        if entry.is_dir(follow_symlinks=False):
                            if depth < _MAX_DEPTH_WALKED:
                                pending.append((entry.path, key + entry.name + "/", depth + 1))
                        elif (name is None or fnmatch.fnmatchcase(entry.name, name)) and _changed_since(entry, since):
                            keys.append(key + entry.name)  # older ones are not read (see _disk)
            except (OSError, ValueError):
                continue
        return keys

    def _disk(self, name: str, written: bool) -> str | bool | None:
        """The file's text on disk; False when it is there but cannot be judged (a program written or
        built since the session began, too); None when it is not read (absent, outside the working
        directory and not written by the session, or unchanged since the session began). (perf50) One reading
        for a session and a check without one (DiskView: ``disk``, whose rules differ where noted)."""
        found = self._held(name, written)
        if not isinstance(found, tuple):
            self._stamped(name, found)
            return found
        real, held = found
        disk = self.disk
        try:
            # (perf50) not a FIFO's open: it would wait for a writer (the stat said a regular file; a file put there
            # since is told by its fstat)
            handle = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            try:
                now = os.fstat(handle)
                if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino) or not stat.S_ISREG(now.st_mode):
                    self._stamped(name, _UNKEPT)  # swapped while read: not kept
                    return False  # not the file the checks were made on: cannot be judged (fail closed)
                chunks: list[bytes] = []
                size = 0
                while size <= MAX_CONTENT * 4:
                    chunk = os.read(handle, MAX_CONTENT * 4 + 1 - size)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                data = b"".join(chunks)
            finally:
                os.close(handle)
        except (OSError, ValueError):
            self._stamped(name, _UNKEPT)
            return False if written else None
        self._stamped(name, _stamp(now))
        if disk:
            if data[:4] in _MACHINE_CODE:
                # the project's program: not read here (as before bg49). (fix49) Only machine code: a NUL anywhere
                # else (`rm -rf ~\n#\0`: bash runs it; dash drops NULs) is read, and asks
                return None
        elif _BINARY in data[:4096]:
            # a program the session wrote or built in the working tree (`gcc x.c -o x`, then `./x`):
            # machine code nobody reads here, and not the project's own: it cannot be judged (adv31;
            # before, it was not read at all, and so ran unjudged)
            return False
        text = data.decode("utf-8", "replace")
        return False if len(text) > MAX_CONTENT else text

    def _held(self, name: str, written: bool) -> tuple[str, os.stat_result] | bool | None:
        """Where the file of key ``name`` is and what it is (its resolved path and stat) when its text is to be read;
        else what ``_disk`` answers without reading it. A session reads a file inside the working directory changed
        since it began (or one it wrote, outside too); a check without one (``disk``) any regular file inside but a
        virtual environment's activation script. What is not a regular file is not read (a FIFO's open waits for
        its writer): unread in a session when it wrote it, or when it is not a folder."""
        path = self._path(name)
        if path is None:
            return None
        disk = self.disk
        try:
            real = os.path.realpath(path)
            outside = not self._inside(real)
            if not outside:
                if disk and _in_environment(real, self._real or ""):
                    return None
            elif disk:
                return None
            elif written and real == os.path.abspath(path):
                outside = False  # the very path the session wrote: read as one it wrote
            held = os.stat(real)
        except (OSError, ValueError):
            return False if written and not disk else None
        if outside:
            # (sess51) outside the working directory, not written by that name: read when it changed since the
            # session began -- its change time, which no caller sets (`cp -r d /tmp/q`, `mv d /tmp/q`, `cp d/*
            # /tmp/q/`, `tar xf d.tar -C /tmp/q`, `find d -exec cp {} /tmp/q/y.sh ';'` keep no name the session
            # remembers, and `sh /tmp/q/x.sh` ran the copied `rm -rf ~` unjudged); a file made before the session
            # began is not read, as before (the user's `~/.ssh/config`): not the working tree's 2 s slack, the tick
            # of the kernel's coarse clock
            if max(held.st_mtime, held.st_ctime) < self.files.started - _TICK:
                return None
        elif not disk and not written and held.st_mtime < self.files.started - _SLACK:
            return None
        if not stat.S_ISREG(held.st_mode):
            return None if disk or (not written and stat.S_ISDIR(held.st_mode)) else False
        if held.st_size > MAX_CONTENT * 4:
            return False
        return real, held

    def _stamped(self, name: str, stamp: object) -> None:
        """(perf50) What the file of key ``name`` was when read (DiskView keeps it; a session's view does not)."""

    def _inside(self, real: str) -> bool:
        if self._real is None:
            self._real = os.path.realpath(self.workdir)
        root = self._real
        return real == root or real.startswith(root.rstrip("/") + "/")

    def _path(self, name: str) -> str | None:
        if not name or name.startswith("$") or "$" in name:
            return None
        if name.startswith("~"):
            expanded = os.path.expanduser(name)
            return None if expanded.startswith("~") else expanded
        return name if name.startswith("/") else os.path.join(self.workdir, name)


class DiskView(SessionView):
    """(bg49) What a check without a session reads (`Engine.check`, `hermes-engine check`: what a guard hook asks):
    the file a command runs, read from the disk as a session reads a file it wrote (`bash x.sh`, `source x`, `./x`,
    `python x.py`, `node x.js`; `make` with the project's Makefile, `npm run` with its package.json: the Programs
    rows' `files:` in follow.DISK_LANGUAGES). `Engine.check('bash x.sh')` with x.sh holding `rm -rf ~` was allowed: a
    check judged the line's text only. Only files named exactly are read -- never a glob's matches (`files: ["*.py",
    "**/*.py"]`: the modules a script may import; the engine's own tests import modules holding its payload texts,
    xf48b), never a file outside the working directory. A program (a NUL in its first 4 KiB) is the project's
    machine code, not read (as before); a text past MAX_CONTENT cannot be judged and is unread (fail closed: an
    approval no grant covers). A file inside a virtual environment (a folder holding `pyvenv.cfg`: `.venv/bin/activate`)
    is its installer's, not read. Whether it was asked for a file (``asked``): the parse of such a line is not kept
    (the file may change before the next check)."""

    __slots__ = ("asked", "listing", "settle", "stamps")
    disk = True

    def __init__(self, workdir: str, settle: float = _SLACK) -> None:
        super().__init__(_NO_FILES, workdir, _NO_LOCK)  # (nothing is remembered: one empty record for all)
        self.asked = False
        # (perf50) What each file read was, by key (see ``stamps_of``); None once one changed within ``settle``
        # seconds of the check (or was swapped while read): the line's parse is then not kept
        self.settle = settle
        self.stamps: dict[str, object] | None = {}
        # (entry50) while the analyzer reads a word naming the file a program runs (not a `files:` glob): a glob
        # in it is matched against the disk (`bash x.s?`), a folder run file by file is listed (`run-parts d`)
        self.listing = False

    def _stamped(self, name: str, stamp: object) -> None:
        stamps = self.stamps
        if stamps is None:
            return
        if stamp is _UNKEPT or (isinstance(stamp, tuple) and stamp[-1] >= time.time() - self.settle):
            self.stamps = None  # too recent to tell a rewrite in the same clock tick: the parse is not kept
        else:
            stamps[name] = stamp

    def same(self, stamps: dict[str, object]) -> bool:
        """(perf50) Whether every file of ``stamps`` (a kept parse's) is on disk as it was read: the same file
        (device, inode, mode, size, modification and change times: any write moves the change time, which no caller
        sets) reached by its name through whatever links, changed before ``settle`` seconds ago; or, for a file
        whose text was not read, the same answer (absent, outside, a virtual environment's script)."""
        settle = time.time() - self.settle
        for name, stamp in stamps.items():
            path = self._path(name)
            if path is None:
                if stamp is not None:
                    return False
                continue
            try:
                held = os.stat(path)
            except (OSError, ValueError):
                if stamp is not None:
                    return False  # (a name that resolves to nothing is not read: _held's None)
                continue
            if isinstance(stamp, tuple):
                now = _stamp(held)
                if now != stamp or now[-1] >= settle:
                    return False
            elif self._held(name, False) != stamp:
                return False  # (a tuple now: there is a text to read)
        return True

    def mentioned(self, text: str) -> bool:
        # a command word holding a `/` (`./x`, `bin/tool`): run as a file (the fast path would not read it)
        return runs_path(text)

    def read(self, key: str) -> str | bool | None:
        self.asked = True
        return self._disk(file_key(key, self.workdir), False)

    def touched(self, key: str) -> bool:
        return False  # nothing changed since a session began: there is none

    def names_in(self, folder: str) -> list[str]:
        # a glob's matches are not read (see the class), but for the word naming the file a program runs
        # (``listing``, entry50): the folder's names on disk, as the shell matches them
        if not self.listing:
            return []
        self.asked = True
        self.stamps = None  # (perf50) a folder's names are not stamped: the line's parse is not kept
        path = self._path(folder or ".")
        try:
            inside = path is not None and self._inside(os.path.realpath(path))
        except (OSError, ValueError):
            return []
        return _listed(path) if path is not None and inside else []

    def keys_under(self, base: str, name: str | None = None) -> list[str]:
        return []


def _listed(path: str) -> list[str]:
    """The names in the folder ``path`` on disk (the first _MAX_LISTED; none when it cannot be listed)."""
    names: list[str] = []
    try:
        with os.scandir(path) as entries:
            for i, entry in enumerate(entries):
                if i >= _MAX_LISTED:
                    break
                names.append(entry.name)
    except (OSError, ValueError):
        pass
    return names


def _stamp(held: os.stat_result) -> tuple[int, int, int, int, int, int, float]:
    """(perf50) What a file read was: its device, inode, mode, size, modification and change times in nanoseconds
    (any write changes the change time, which no caller sets), and last the latest of those two times (seconds:
    DiskView tells a change too recent to keep from it)."""
    return (
        held.st_dev,
        held.st_ino,
        held.st_mode,
        held.st_size,
        held.st_mtime_ns,
        held.st_ctime_ns,
        max(held.st_mtime, held.st_ctime),
    )


# (perf50) A file's reading that is not kept (it failed, or the file was swapped while read): DiskView._stamped
_UNKEPT = object()
_NO_FILES = SessionFiles(0.0)
_NO_LOCK = threading.Lock()


def _in_environment(real: str, root: str) -> bool:
    """Whether the file ``real`` is a virtual environment's activation script below ``root`` (`VENV/bin/activate*`
    with VENV holding pyvenv.cfg). (fix49) Only those: a pyvenv.cfg planted beside a script made any file there
    unread (`s/pyvenv.cfg` and `s/x.sh`: `bash s/x.sh` was allowed)."""
    folder = posixpath.dirname(real)
    if posixpath.basename(folder) != "bin" or not posixpath.basename(real).startswith("activate"):
        return False
    venv = posixpath.dirname(folder)
    return len(venv) > len(root) and venv.startswith(root) and os.path.isfile(posixpath.join(venv, "pyvenv.cfg"))


# (fix49) The first bytes of machine code (ELF, thin Mach-O in both byte orders; not 0xcafebabe: a Java class too)
_MACHINE_CODE = frozenset(
    {b"\x7fELF", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe"}
)


def _changed_since(entry: os.DirEntry[str], since: float) -> bool:
    """Whether a folder entry's file changed at ``since`` or later (a broken link: no)."""
    try:
        return entry.stat().st_mtime >= since
    except OSError:
        return False


# The home folder named through the user's name, which the analyzer leaves unexpanded (`/home/$USER/.ssh/config`):
# the home's spellings are one key (xf44b), as `~`, `$HOME` and the home's absolute path are.
_USER_HOMES = tuple(f"{top}/{name}" for top in ("/home", "/Users") for name in ("$USER", "${USER}", "$LOGNAME"))


def file_key(path: str, workdir: str) -> str:
    """The key a path is remembered under: relative to the working directory when inside it, else `~/…`
    when in the home folder (spelled `~`, `$HOME`, its absolute path or `/home/$USER`: one key, xf44b),
    else as spelled (normalised)."""
    if not path:
        return path
    path = posixpath.normpath(path)
    first = path[:1]
    if first == "~" or path.startswith(_USER_HOMES):
        if first == "~":
            rest = path[1:]
        else:
            cut = path.find("/", path.find("/", 1) + 1)
            rest = path[cut:] if cut > 0 else ""
            if path[: cut if cut > 0 else len(path)] not in _USER_HOMES:
                return path  # `/home/$USERX/…`
        if rest and rest[0] != "/":
            return path  # `~user/…`: another user's home
        home = _home()
        if not home:
            return "~" + rest
        path = home + rest
    elif first != "/":
        return path
    root = workdir.rstrip("/")
    if path == root:
        return "."
    if root and path.startswith(root + "/"):
        return path[len(root) + 1 :]
    home = _home()
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def _home() -> str:
    """The home folder's absolute path, normalised ("" when unknown or the root)."""
    home = posixpath.normpath(os.environ.get("HOME") or os.path.expanduser("~"))
    return "" if home in ("/", ".") or not home.startswith("/") else home.rstrip("/")


_PREFIX_MARK = "\0"


def held_by(archives: dict[str, tuple[str, ...]], key: str) -> tuple[str, ...]:
    """What the file keyed ``key`` holds of a tree reader's (SessionFiles.archives): its own entry, or a splitter's
    prefix it starts with, the rest a name's tail (`p_aa` after `split x.tgz p_`; open37)."""
    held = archives.get(key)
    if held is not None:
        return held
    found: list[str] = []
    for prefix, sources in archives.items():
        if prefix.endswith(_PREFIX_MARK):
            stem = prefix[:-1]
            if key.startswith(stem) and len(key) > len(stem) and "/" not in key[len(stem) :]:
                found.extend(sources)
    return tuple(found)
