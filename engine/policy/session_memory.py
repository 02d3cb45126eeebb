"""What one session did that a later call depends on: the files it wrote, the input a
process of its has not run yet.

A command is judged with what its session wrote before it. A file written by the file
tools (``write_file``, ``patch``) or by the terminal (redirections, ``tee``, ``curl -o``,
``wget -O``, ``cp``, ``mv``, ``install``) is remembered under the path the analyzer keys it
by (relative to the working directory, ``~/...`` or absolute). When a later line runs one
(``sh x.sh``, ``./x``, ``python x.py``, ``source x``, ``make``, ``npm test``...), the
analyzer reads its text as if it were on the line: the remembered content and the file as
it is on disk when judged, both (the strictest wins). A file the session wrote whose text
nobody can read (``curl -o``, ``echo "$X" > f``, too large, gone) is *unread*: running it
needs approval. A file in the working directory changed since the session began is judged
by its text on disk too, whoever wrote it.

``process write`` to a shell or an interpreter started in the background is buffered
here per process: each complete line is judged with the shell's state so far, and the
partial line after the last newline is held -- never sent before it is judged. The state
(``ShellState``) is what the analyzer held after the lines sent before: functions (their
bodies as tokens), ``hash``/``BASH_CMDS`` entries, aliases, variables with their readings
and lost values, name references, positionals, the directory and ``pushd`` stack, file
descriptors; a line is judged by an analyzer that starts from it (earlier lines are not
read again). Where the readings of a line leave different states, what differs is unknown
after it. A state past its bound, or left by a line the analyzer could not read, is lost:
every later line to that shell needs approval that no grant covers.

Everything is bounded (sessions, files, bytes, buffered input); what falls out of the
bounds is remembered as unread, never as harmless. Thread-safe.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import posixpath
import re
import shlex
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from engine.policy.argv import parse_argv
from engine.policy.commands import POSIX_SHELLS, SHELLS, command_name, dash_unread
from engine.policy.lexer import FD_NAME, MAX_LENGTH
from engine.policy.links import UNKNOWN_TARGET
from engine.policy.paths import key_in_workdir, key_within
from engine.policy.programs import EMPTY, ProgramTable, stdin_run
from engine.policy.trees import COMPRESSORS, TREE_READERS, compressed_files, split_prefix, splits

# (perf50) the views of a check and their disk reading live in views (a guard's start imports no dataclass)
from engine.policy.views import (  # noqa: F401 (callers')
    _BINARY,
    _PREFIX_MARK,
    MAX_BYTES,
    MAX_CONTENT,
    MAX_FILES,
    MAX_NAMES,
    MAX_SEARCHES,
    MAX_SOURCES,
    DiskView,
    Remembered,
    SessionFiles,
    SessionView,
    _live,
    file_key,
    held_by,
)

if TYPE_CHECKING:
    from engine.policy.shell import Analyzer

MAX_SESSIONS = 1024
MAX_PENDING = MAX_LENGTH  # a process's input held before its line ends
MAX_CONTEXT = 32 * 1024  # an interpreter's earlier lines read with each later one (ProcessInput.context)
MAX_STATE = MAX_LENGTH  # a background shell's state: characters of values, aliases and function bodies
MAX_WATCHED = 64  # (sess46) live background processes whose code files are watched, per session (Watched)
_LEFT = itertools.count(1)  # (sess51) the keys of the writers a foreground line left running (left_behind)
MAX_WATCHED_KEYS = 1024  # the files one watches by name; past it, every write of the session is judged against it

# Interpreters whose lines are programs (the shells that read commands from their input: commands.SHELLS).
INTERPRETERS = {
    "python": "python",
    "node": "node",
    "nodejs": "node",
    "bun": "node",
    "deno": "node",
    "perl": "perl",
    "ruby": "ruby",
    "irb": "ruby",
    "php": "php",
    "lua": "lua",
}
_PYTHON = re.compile(r"^(?:(i)?python|pypy)[0-9.]*$")
# (sess45) IPython's lines are Python *and* its magics: `%run F` / `run F` (automagic) runs F, `!cmd` a shell
# line; judged as `ipython -c LINES` (its Programs row), never as plain `python3 -c` (which read `%run a.txt`
# as a syntax error and let a written a.txt delete HOME). The languages an interpreter's writes are judged in:
_INLINE_KINDS = frozenset({"python", "ipython", *INTERPRETERS.values()})
# A background process started with a command no name says reads commands: read with the Programs
# table by the first write's gate (SessionMemory.resolve), which has it
UNRESOLVED = "unresolved"


@dataclass(slots=True)
class Watched:
    """(sess46) A background process of the session and the files the reading of its command read as code (the
    keys SessionView.read was asked for while the gate judged it: its scripts, Makefiles, package.json, the modules
    it imports, the globs of a Programs row's ``files:``). While it runs, a later call that writes one of them is
    judged as the process's command run with the new text (engine.gate, SessionMemory.rewritten): `sleep 2; sh x.sh`
    then write_file x.sh 'rm -rf ~' ran the new text unjudged."""

    command: str  # the terminal's command and cwd, as the gate judged them
    cwd: str | None
    exact: frozenset[str]
    globs: tuple[str, ...]
    every: bool = False  # past MAX_WATCHED_KEYS: any file written is one it may read
    alive: Callable[[], bool] | None = None  # the process's handle (None: not started yet)

    def reads(self, key: str) -> bool:
        """Whether the process may read the file of ``key`` (a file_key) as code."""
        return self.every or key in self.exact or any(_glob_matches(key, glob) for glob in self.globs)


@dataclass(slots=True)
class Writing:
    """(adv48) A background process of the session and the files the reading of its command writes: while it runs
    (or is about to start) their text on disk is not the one it leaves there. `sleep 2; cp y.txt x.sh` in the
    background, then `sleep 4; sh x.sh` read x.sh's old text (`echo hi`) and ran y.txt's (`rm -f ~/notes.txt`, live):
    such a file is now unread (SessionView.read: False) until the process ended."""

    keys: frozenset[str]
    alive: Callable[[], bool] | None = None  # the process's handle (None: not started yet)
    # (bg49) the keys that stand for more than one file: a glob target (`cp y.txt x.s?`: every name it may match), a
    # tree a program writes names the line does not show in (`git checkout -- x.sh`: "." -- every file below it;
    # "*": any file, where it runs is known only at run time)
    wide: tuple[str, ...] = ()

    def writes(self, key: str) -> bool:
        """Whether the process may write the file of ``key`` (a file_key)."""
        return key in self.keys or any(_covers(written, key) for written in self.wide)


def _glob_matches(key: str, glob: str) -> bool:
    """``key`` matches ``glob``, read loosely (`*` and `**` across folders): a wider match costs a judgment, not
    a verdict (the rewrite is judged as the process's command with the new text)."""
    return fnmatch.fnmatchcase(key, glob.replace("**/", "")) or fnmatch.fnmatchcase(key, glob.replace("**", "*"))


@dataclass(slots=True)
class WatchedKeys:
    """The keys a background command's reading asked for (SessionView.reads), bounded."""

    keys: set[str] = field(default_factory=set)
    over: bool = False

    def add(self, key: str) -> None:
        if len(self.keys) >= MAX_WATCHED_KEYS:
            self.over = True
        else:
            self.keys.add(key)


@dataclass(frozen=True, slots=True)
class ShellState:
    """What a background shell holds after the lines it was sent, as the analyzer read them: a
    later line is read by an analyzer that starts from it (see ``restore``). Copies only."""

    start: tuple[object, ...]  # Analyzer._start(): variables, lost values, aliases, functions, hash...
    cwd: str | None
    positional: tuple[str, ...] | None
    directories: tuple[str | None, ...]  # pushd's stack
    values: tuple[object, ...]  # _Values: unset, readonly, arrays, written, attributes, oldpwd, oldpwd_at, exported
    streams: tuple[object, ...]  # descriptors, sinks, sink, fetched
    lost: str | None = None  # why the state is not known: every later line needs approval
    # What the shell's earlier lines write, copy or move (KEY, writers, text when the line spelled
    # it, else None: unread) and the links they make (NAME, TARGET), keyed as the analyzer keys
    # them. The shell may not have run those lines yet when a later one is judged (`sleep 1; echo
    # 'rm -rf ~' > s.sh` then `source s.sh`): the disk is no witness, these are what the files hold.
    made: tuple[tuple[str, frozenset[str], str | None], ...] = ()
    linked: tuple[tuple[str, str], ...] = ()
    # `exec python3 -i`: the language of the interpreter that replaced the shell (its later input
    # is that language's program, judged as a background `python3 -i`'s is: see SessionMemory.take).
    # "" when a program the line started reads the input in a way not judged here (`python3 -i`
    # without exec: the shell reads again once it ends, nobody can tell when): the state is lost.
    replaced: str | None = None
    # A descriptor copied from the shell's input is open (`exec 3<&0`): a later `sh /dev/fd/3`,
    # `sh <&3` reads that input (no descriptor numbers are kept: any of them).
    copied: bool = False
    # What `exec N< F` opened (descriptor, F's file key; "" when not known): a later line's `exec 0<&N`,
    # `bash <&N` reads F (judged by its text then).
    opened: tuple[tuple[str, str], ...] = ()
    # (xfail41) An earlier line may have put POSIXLY_CORRECT in the shell's environment: it named it, sourced a
    # file, evaluated text or exported a computed name (evaluate._SETS_UNNAMED), or the shell is a login shell or a
    # zsh (its start-up files). Then a later `--help` after a hardline program's operand may be an operand too
    # (evaluate: the `--help` lowering is not read), as when the line itself does so.
    environ: bool = False

    def restore(self, analyzer: Any) -> None:
        """Put ``analyzer`` where the shell is (before it reads a line)."""
        analyzer.resumed = self
        analyzer.plain_words = False  # the fast path reads no state
        if self.lost is not None:
            return  # see check
        analyzer._begin(self.start)
        analyzer.cwd = self.cwd
        analyzer.positional = list(self.positional) if self.positional is not None else None
        analyzer.directories = list(self.directories)
        vals = analyzer.vals
        unset, readonly, arrays, written, attributes, oldpwd, oldpwd_at, exported = self.values
        vals.unset, vals.readonly, vals.written = set(unset), set(readonly), set(written)  # type: ignore[call-overload]
        vals.exported = set(exported)  # type: ignore[call-overload]
        vals.arrays = {k: list(v) for k, v in arrays.items()}  # type: ignore[attr-defined]
        vals.attributes = dict(attributes)  # type: ignore[call-overload]
        vals.oldpwd, vals.oldpwd_at = oldpwd, oldpwd_at
        descriptors, sinks, sink, fetched = self.streams
        analyzer.descriptors = descriptors
        analyzer.sinks = dict(sinks)  # type: ignore[call-overload]
        analyzer.sink = sink
        analyzer.fetched = fetched
        if self.made:
            from engine.policy.shell import _Written  # noqa: PLC0415

            session = analyzer.session
            for key, writers, spelled in self.made:
                text = spelled
                if session is not None and spelled is not None:
                    # written since through the file tools or another call: that text is judged too
                    found = session.read(key)
                    if found is False:
                        text = None
                    elif isinstance(found, str) and found != spelled:
                        text = spelled + "\n" + found
                analyzer.files[key] = _Written(writers, text)
        if self.linked:
            analyzer.links = {**analyzer.links, **dict(self.linked)}
        if self.opened:
            analyzer.exec_opened = dict(self.opened)

    def check(self) -> None:
        """Raise (the line is past what can be read) when the state is lost."""
        if self.lost is not None:
            from engine.policy.shell import TooComplex  # noqa: PLC0415

            raise TooComplex(f"the shell's state from earlier input is not known ({self.lost})")


def shell_state_of(analyzer: Any, lost: str | None = None) -> ShellState:
    """The state ``analyzer`` holds after reading lines, merged with the other readings it made
    (``analyzer.ended``): what they leave different is unknown. Lost past MAX_STATE."""
    for other in analyzer.ended or ():
        lost = lost or _merge_state(analyzer, other)
    vals = analyzer.vals
    state = ShellState(
        analyzer._start(),
        analyzer.cwd,
        tuple(analyzer.positional) if analyzer.positional is not None else None,
        tuple(analyzer.directories),
        (
            frozenset(vals.unset),
            frozenset(vals.readonly),
            {k: tuple(v) for k, v in vals.arrays.items()},
            frozenset(vals.written),
            dict(vals.attributes),
            vals.oldpwd,
            vals.oldpwd_at,
            frozenset(vals.exported),
        ),
        (analyzer.descriptors, dict(analyzer.sinks), analyzer.sink, analyzer.fetched),
        lost,
    )
    if lost is not None:
        return state
    size = _state_size(analyzer)
    made = tuple((key, entry.writers, entry.content) for key, entry in analyzer.files.items())
    linked = tuple(analyzer.links.items())
    size += sum(len(key) + len(target) for key, target in linked)
    opened = tuple(analyzer.exec_opened.items())
    size += sum(len(number) + len(key) for number, key in opened)
    size += sum(len(key) + sum(map(len, writers)) for key, writers, _ in made)
    texts = sum(len(text) for _, _, text in made if text is not None)
    if size + texts > MAX_STATE:
        made = tuple((key, writers, None) for key, writers, _ in made)  # their texts first: unread
    else:
        size += texts
    if size > MAX_STATE:
        return lost_state(f"more than {MAX_STATE} characters of functions, aliases, values and files made")
    return replace(state, made=made, linked=linked, opened=opened) if made or linked or opened else state


def lost_state(reason: str) -> ShellState:
    """A shell whose state is not known: every later line to it needs approval."""
    return ShellState((), "$unknown", None, (), (), (), reason)


def _merge_state(analyzer: Any, other: Any) -> str | None:
    """Fold another reading's end state into ``analyzer``'s: a variable either leaves differently
    is unknown (with both values remembered as lost), a function has the bodies of both. Returns
    why the two cannot be folded (the state is then lost)."""
    env, theirs = analyzer.env, other.env
    for key in set(env) | set(theirs):
        mine, their = env.get(key), theirs.get(key)
        if mine != their:
            if mine is not None:
                del env[key]  # remembered as lost
            held = env.lost.setdefault(key, [])
            if their is not None and their not in held:
                held.append(their)
    for key, held_values in theirs.lost.items():
        held = env.lost.setdefault(key, [])
        held.extend(v for v in held_values if v not in held)
    if analyzer.cwd != other.cwd:
        analyzer.cwd = "$unknown"
    if analyzer.positional != other.positional:
        analyzer.positional = None
    if analyzer.directories != other.directories:
        analyzer.directories = []
    for name, bodies in other.functions.items():
        mine_bodies = analyzer.functions.setdefault(name, [])
        mine_bodies.extend(b for b in bodies if all(b is not m for m in mine_bodies))
    analyzer.namerefs |= other.namerefs
    vals, their_vals = analyzer.vals, other.vals
    vals.unset &= their_vals.unset
    vals.readonly |= their_vals.readonly
    vals.written |= their_vals.written
    vals.exported &= their_vals.exported  # (stop 57) exported in one reading only: maybe not (see in_new_shell)
    for key in set(vals.arrays) | set(their_vals.arrays):
        if vals.arrays.get(key) != their_vals.arrays.get(key):
            vals.arrays.pop(key, None)
    for key in set(vals.attributes) | set(their_vals.attributes):
        if vals.attributes.get(key) != their_vals.attributes.get(key):
            vals.attributes.pop(key, None)
    if (vals.oldpwd, vals.oldpwd_at) != (their_vals.oldpwd, their_vals.oldpwd_at):
        vals.oldpwd = vals.oldpwd_at = None
    analyzer.fetched = analyzer.fetched or other.fetched
    files = analyzer.files
    for key, entry in other.files.items():
        mine = files.get(key)
        if mine is None:
            files[key] = entry
        elif mine.content != entry.content or mine.writers != entry.writers:
            text = mine.content if mine.content == entry.content else None  # either reading's: unread
            files[key] = type(entry)(mine.writers | entry.writers, text)
    links = analyzer.links
    for name, target in other.links.items():
        if links.get(name, target) != target:
            links[name] = UNKNOWN_TARGET  # one reading links it here, another there
        else:
            links[name] = target
    opened = analyzer.exec_opened
    for number, key in other.exec_opened.items():
        opened[number] = key if opened.get(number, key) == key else ""  # one reading opens this, another that
    for number in opened:
        if number not in other.exec_opened:
            opened[number] = ""
    for field_name in ("aliases", "alias_scopes", "kept", "references", "hashed", "descriptors", "sinks", "sink"):
        if getattr(analyzer, field_name) != getattr(other, field_name):
            return f"readings of a line leave its {field_name} different"
    return None


def _state_size(analyzer: Any) -> int:
    size = sum(len(k) + len(v) for k, v in analyzer.env.items())
    size += sum(len(k) + sum(map(len, v)) for k, v in analyzer.env.lost.items())
    size += sum(len(k) + len(v) for k, v in analyzer.aliases.items())
    size += sum(len(k) + len(v) for k, v in analyzer.hashed.items())
    size += sum(len(k) + sum(map(len, v)) for k, v in analyzer.vals.arrays.items())
    size += sum(len(str(d)) for d in analyzer.directories) + sum(map(len, analyzer.positional or ()))
    size += len(analyzer.descriptors or "") + sum(len(k) + len(v) for k, v in analyzer.sinks.items())
    for name, bodies in analyzer.functions.items():
        size += len(name) + sum(len(t.value) + 1 for body in bodies for t in body)
    return size


@dataclass(slots=True)
class ProcessInput:
    """A background shell's or interpreter's input: the held partial line and the shell's state."""

    kind: str  # "shell", an interpreter's language, or "input" (a program reading commands: command_readers)
    pending: str = ""
    shell: ShellState | None = None  # what the shell's earlier lines left (None: a fresh shell)
    judged: list[str] = field(default_factory=list)  # complete lines judged and not yet sent
    guarded: bool = False  # the policy judges writes to it: only judged lines are sent
    programs: ProgramTable = EMPTY  # the policy's Programs table its lines were judged with (see judged)
    command: str = ""  # a command reader's command line (kind "input"): its lines are judged as its input
    # An interpreter's earlier lines sent without anyone's approval (allowed as they were): what it defined then
    # (`f = os.system`, `const cp = require('child_process')`) is read with each later line (fresh38b); past
    # MAX_CONTEXT characters the start is lost and every later write needs an approval no grant covers.
    context: str = ""
    allowed: list[str] = field(default_factory=list)  # judged lines the gate allowed without an approval
    cwd: str | None = None  # where it started (the working directory's key), for a shell resolved later
    view: SessionView | None = None  # the session's view its last lines were judged in (see judged)
    posix: bool = False  # (stop 58) a shell named among POSIX sh's (dash's): bash-only syntax reads otherwise there


class SessionMemory:
    """Every session's memory, by session id (bounded: the least recently used go first)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._sessions: OrderedDict[str, SessionFiles] = OrderedDict()
        self._lock = threading.Lock()
        self._clock = clock

    def session(self, session_id: str | None) -> SessionFiles:
        key = session_id or "default"
        with self._lock:
            found = self._sessions.get(key)
            if found is None:
                found = self._sessions[key] = SessionFiles(self._clock())
                while len(self._sessions) > MAX_SESSIONS:
                    self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(key)
            return found

    def view(self, session_id: str | None, workdir: str) -> SessionView:
        return SessionView(self.session(session_id), workdir, self._lock)

    # -- recording -------------------------------------------------------------------

    def wrote(self, session_id: str | None, workdir: str, path: str, content: str | None) -> None:
        """A file tool wrote ``path`` (as its caller spelled it) with ``content`` (None: unseen)."""
        files = self.session(session_id)
        with self._lock:
            files.remember(file_key(path, workdir), content)

    def terminal_wrote(
        self,
        session_id: str | None,
        workdir: str,
        command: str,
        cwd: str | None,
        programs: ProgramTable | None = None,
        background: bool = False,
    ) -> None:
        """Remember the files a terminal command that ran wrote (as the analyzer read them); ``background``: it
        runs on after the call, and its files are unread while it does (Writing)."""
        if background:
            # (fp49) any background process of the session may make or rename entries while it runs (`sleep 3; mkdir
            # -p "x $HOME"`: no file a write names): a listing of the tree is not read from the disk meanwhile
            # (writes_running); the files it writes by name replace the marker below
            marked = self.view(session_id, workdir)
            with self._lock:
                self._writing(marked.files, command, (BACKGROUND_WRITER,))
        writes = _MAY_WRITE.search(command) is not None
        searches = _MAY_SEARCH.search(command) is not None
        if not writes and not searches:
            return
        view = self.view(session_id, workdir)
        known = view.links()
        analyzer = _analyzed(view, command, cwd, programs)
        if analyzer is None:
            targets = _rough_targets(command, cwd) if writes else []
            with self._lock:
                for key in targets:
                    view.files.remember(file_key(key, workdir), None)
                if background:
                    self._writing(view.files, command, (file_key(key, workdir) for key in targets))
            return
        if searches:
            self._searched(view, analyzer.commands)
        if not writes:
            return
        read = _tree_words(analyzer.commands, workdir)
        archives = _tar_archives(analyzer.commands, analyzer.files) if read else {}
        with self._lock:
            for key in archives:
                # tar's archive (`tar czf x.tgz .`: the analyzer reads no file written by `-f`)
                name = file_key(key, workdir)
                view.files.remember(name, None, tuple(w for w in read if file_key(w, workdir) != name))
            # (before the files written, which may copy a piece: `split x.tgz p_ && cp p_aa y`; again after them,
            # which may be what is split: `grep -r K . > o && split o p_`)
            self._split(view, analyzer.commands, read, workdir)
            for key, written in analyzer.files.items():
                if key.startswith(("/dev/", "/proc/")) or key in ("", "$unknown"):
                    continue
                name = file_key(key, workdir)
                sources: tuple[str, ...] = ()
                if read and not written.writers.isdisjoint(TREE_READERS):
                    sources = tuple(w for w in read if file_key(w, workdir) != name)
                if view.files.archives:
                    # a copy of one (`cp x.tgz y.tgz`, `cat x.tgz > y`, `base64 x.tgz > y.txt`) holds what it read
                    sources += _copied_sources(analyzer.commands, written.writers, view.files.archives, workdir)
                content = written.content
                if analyzer.edited and key in analyzer.edited:
                    # edited in place (`sed -i CMD x.sh`): after the run, its text is the one on disk
                    disk = view._disk(name, True)
                    content = disk if isinstance(disk, str) else None
                view.files.remember(name, content, tuple(dict.fromkeys(sources)))
            for key in analyzer.moved:
                view.files.forget(file_key(key, workdir))
            if background:
                keys = dict.fromkeys(file_key(key, workdir) for key in analyzer.files)
                # a write through a link made earlier writes the file it names (`cp y.txt l.sh`, l.sh -> x.sh)
                aliases = _aliased(view, dict.fromkeys(keys))
                # (bg49) and a tree a program writes names the line does not show in (`git checkout -- x.sh`)
                trees = _trees_written(analyzer.commands, cwd, workdir)
                self._writing(view.files, command, [*keys, *(k for same in aliases.values() for k in same)], trees)
            if view.files.archives:
                # `gzip x.tar` (this line's archive or an earlier call's): x.tar.gz holds what x.tar held (tail36)
                for name, held in _compressed_archives(analyzer.commands, view.files.archives, workdir):
                    view.files.remember(name, None, held)
            self._split(view, analyzer.commands, read, workdir)
            made = {
                _absolute(name, workdir): _absolute(target, workdir)
                for name, target in analyzer.links.items()
                if known.get(name) != target and "$" not in name and "$" not in target
            }
            if made:
                view.files.link(made)

    def left_behind(
        self,
        session_id: str | None,
        workdir: str,
        command: str,
        cwd: str | None,
        programs: ProgramTable | None,
        alive: Callable[[], bool],
    ) -> None:
        """(sess51) A foreground terminal ``command`` ended and left processes running (``alive``: whether they still
        do): `(sleep 1; sed -i 's/^echo hi$/rm -rf ~/' x.sh) >/dev/null 2>&1 &`, `setsid sh -c '…' &`. What its line
        writes is written by them after the call returned: read as a background process's writes (Writing) while
        they run. Before, the in-place edit was read from the disk right after the call (the old text), and the next
        call's `sleep 2; sh x.sh` was judged by that text and ran the edited one."""
        self.terminal_wrote(session_id, workdir, command, cwd, programs, background=True)
        files = self.session(session_id)
        with self._lock:
            writing = files.writing.pop(command, None)
            if writing is not None:
                writing.alive = alive
                files.writing[f"{command}\0left {next(_LEFT)}"] = writing
                _bound_writing(files)
                files._names()

    @staticmethod
    def _writing(files: SessionFiles, command: str, keys: Iterable[str], trees: Iterable[str] = ()) -> None:
        """(adv48) A background ``command`` about to start writes the files of ``keys`` and every file under the
        folders of ``trees`` (the lock held); a glob among ``keys`` (bg49: `cp y.txt x.s?`) is every name it may
        match, "*" any file (Writing.wide)."""
        written = frozenset(keys)
        wide = frozenset(trees).union(k for k in written if k == "*" or _GLOB_CHARS.search(k) is not None)
        if written or wide:
            files.writing.pop(command, None)
            files.writing[command] = Writing(written | wide, wide=tuple(sorted(wide)))
            _bound_writing(files)
            files._names()

    def _searched(self, view: SessionView, commands: list[Any]) -> None:
        """Remember the quiet tree searches of a line that ran (SessionFiles.searched)."""
        from engine.policy.evaluate import quiet_searches  # noqa: PLC0415 (evaluate imports shell, which imports this)

        found = quiet_searches(commands)
        if found:
            with self._lock:
                view.files.searches(found)

    @staticmethod
    def _split(view: SessionView, commands: list[Any], read: tuple[str, ...], workdir: str) -> None:
        """`split -b 1k x.tgz p_`: its pieces p_aa, p_ab, ... hold what x.tgz held (open37; the lock held)."""
        if (view.files.archives or read) and any(splits(c) for c in commands):
            for prefix, held in _split_pieces(commands, view.files.archives, read, workdir):
                view.files.hold(prefix, held)

    # -- process input -----------------------------------------------------------------

    def started(
        self,
        session_id: str | None,
        process_id: str,
        command: str,
        cwd: str | None,
        programs: ProgramTable | None = None,
        alive: Callable[[], bool] | None = None,
    ) -> None:
        """A background process started (``alive``: whether it still runs; then it watches the files the gate's
        reading of ``command`` read as code, see expect): when it reads commands (as ``programs``, the policy's
        tables, say), its input is buffered by line. One no name says reads commands (`script -q /dev/null`,
        `newgrp`, `unshare -U`: a shell with no command given) is kept UNRESOLVED until the gate reads it with the
        Programs table (resolve)."""
        kind = reader_kind(command, (programs or EMPTY).command_readers) or UNRESOLVED
        files = self.session(session_id)
        state = ProcessInput(kind, command=command if kind in ("input", UNRESOLVED) else "", cwd=cwd)
        if kind == "shell":
            state.shell = _fresh_shell(cwd)
            # (rev58) every word, also inside another's quotes (`bash -c 'exec sh'`); and a program that hands its lines
            # to /bin/sh (`perl -ne 'system $_'`): any command naming no other shell
            names = {command_name(word) for word in _WORDS.findall(command)}
            state.posix = not names.isdisjoint(POSIX_SHELLS) or names.isdisjoint(_NON_POSIX_SHELLS)
            if _starts_environment(command):
                state.shell = replace(state.shell, environ=True)
        with self._lock:
            if len(files.processes) >= MAX_NAMES:
                files.processes.pop(next(iter(files.processes)))
            files.processes[process_id] = state
            writing = files.writing.pop(command, None) if alive is not None else None
            if writing is not None:
                writing.alive = alive
                files.writing[process_id] = writing
            watched = files.expected.pop(command, None) if alive is not None else None
            if watched is not None:
                watched.alive = alive
                files.watches[process_id] = watched
                while len(files.watches) > MAX_WATCHED:
                    files.watches.pop(next(iter(files.watches)))

    def not_started(self, session_id: str | None, command: str) -> None:
        """(debt50) The background ``command`` the gate allowed did not start (its cwd refused, its runtime or its
        spawn failed): its markers -- the files it was about to write (Writing) and to read as code (Watched) --
        still waiting for a process (no ``alive`` handle) are dropped. Kept, they stood for a process about to start
        for the rest of the session: every later listing of the tree asked (writes_running), each file it names was
        read as being written. A marker a started process holds (with a handle) is left to its handle."""
        files = self.session(session_id)
        with self._lock:
            writing = files.writing.get(command)
            if writing is not None and writing.alive is None:
                del files.writing[command]
                files._names()
            watched = files.expected.get(command)
            if watched is not None and watched.alive is None:
                del files.expected[command]

    # -- (sess46) files a live background process reads as code ---------------------------

    def expect(self, session_id: str | None, command: str, cwd: str | None, read: WatchedKeys) -> None:
        """The gate allowed a background ``command`` whose reading read the files ``read`` names: the process
        it starts (``started`` with its handle) watches them."""
        if not read.keys and not read.over:
            return
        globs = tuple(k for k in read.keys if "*" in k or "?" in k or "[" in k)
        watched = Watched(command, cwd, frozenset(read.keys).difference(globs), globs, read.over)
        files = self.session(session_id)
        with self._lock:
            files.expected.pop(command, None)
            files.expected[command] = watched
            while len(files.expected) > MAX_WATCHED:
                files.expected.popitem(last=False)

    def watched(self, files: SessionFiles) -> list[Watched]:
        """The session's background processes still running (or about to start) that watch files (the ended ones
        forgotten)."""
        with self._lock:
            # allowed, its process not started yet (a call of the same batch judged meanwhile): watched too
            expected: list[Watched] = list(files.expected.values())
        return expected + _live(files.watches, self._lock)

    def rewritten(
        self, view: SessionView, tool: str, args: Any, programs: ProgramTable | None = None
    ) -> list[tuple[Watched, SessionView]]:
        """(sess46) The session's running background processes a call of ``tool`` with ``args`` rewrites a file of
        (one their command's reading read as code), each with a view of the session where the files the call
        writes hold their new text (None: not known, judged as unread): judge the process's command there."""
        live = self.watched(view.files)
        if not live:
            return []
        written = _written_by(SessionView(view.files, view.workdir, self._lock), tool, args, programs)
        aliases = _aliased(view, written)
        out: list[tuple[Watched, SessionView]] = []
        for watched in live:
            hit = {key: text for key, text in written.items() if watched.reads(key)}
            for key, text in written.items():
                # (adv47) a folder or a glob copied over a file it reads (`cp -r e/. d/`, `cp e/* d/`): unread
                hit.update(dict.fromkeys((k for k in watched.exact if k not in hit and _covers(key, k)), None))
                for same in aliases.get(key, ()):
                    # (adv47) written through a link made earlier (`ln -s x.sh l.sh`, `ln x.sh h.sh`): its text
                    if same != key and watched.reads(same):
                        hit[same] = text
            if hit:
                again = SessionView(view.files, view.workdir, self._lock)
                again.overlay = hit
                out.append((watched, again))
        return out

    def process(self, session_id: str | None, process_id: Any) -> ProcessInput | None:
        if not isinstance(process_id, str):
            return None
        return self.session(session_id).processes.get(process_id)

    def resolve(self, session_id: str | None, process_id: str, state: ProcessInput, programs: ProgramTable) -> bool:
        """(fresh39b) Read an UNRESOLVED process's command with the policy's Programs table: a program
        its `stdin: true` runs say reads its input as a shell (`script`, `newgrp`, `unshare` with no
        command) or as a program gets its writes buffered and judged as such; any other is data again
        (each write judged alone, sent at once: forgotten here). Whether it reads commands."""
        if state.kind != UNRESOLVED:
            return True
        kind = table_reader_kind(state.command, programs)
        processes = self.session(session_id).processes
        with self._lock:
            if state.kind != UNRESOLVED:
                return True
            if kind is None:
                if processes.get(process_id) is state:
                    del processes[process_id]
                state.kind = "data"
                return False
            state.kind = kind
            if kind == "shell":
                state.command = ""
                state.shell = _fresh_shell(state.cwd)
        return True

    def to_judge(self, state: ProcessInput, data: str, programs: ProgramTable | None = None) -> str | None:
        """The command text a write of ``data`` runs (its complete lines; a shell's are judged
        from ``state.shell``: see SessionView.shell), or None when it completes no line. An
        interpreter's lines are judged as its inline program, spelled as ``programs`` (the
        policy's table) says the language's interpreter takes one."""
        lines, _ = _cut(state, state.pending + data)
        if not lines:
            return None
        if state.kind == "input":
            # `sqlite3` started in the background, `.shell rm -rf ~` written: judged as `sqlite3 <<< '…'` (redt36)
            return f"{state.command} <<< {shlex.quote(lines)}"
        if state.kind != "shell":
            return inline_text(programs or state.programs, state.kind, state.context + lines)
        if state.posix and (dash_unread(lines) or "\\" in lines):
            # (stop 58, adv58) `sh` in the background, `x+=.bak` written: judged as sh's text (shell_syntax_unread);
            # and a line holding a backslash (adv58b: dash's echo decodes `\n`), which sh's text reads as dash writes
            return f"sh -c {shlex.quote(lines)}"
        return lines

    def judged(
        self,
        state: ProcessInput,
        data: str,
        programs: ProgramTable | None = None,
        allowed: bool = False,
        session: SessionView | None = None,
    ) -> None:
        """The gate judged a write of ``data`` (with ``programs``, the policy's table: what the
        shell's state after it is read with, and ``session``, the view it was judged in: the files
        its lines source are read there) and let it through: its lines may be sent. ``allowed``:
        without anyone's approval (an interpreter's such lines are read again with its later ones)."""
        lines, _ = _cut(state, state.pending + data)
        if lines:
            with self._lock:
                if programs is not None:
                    state.programs = programs
                if session is not None:
                    state.view = session
                state.judged.append(lines)
                del state.judged[:-16]
                if allowed:
                    state.allowed.append(lines)
                    del state.allowed[:-16]

    def take(self, state: ProcessInput, data: str, programs: ProgramTable | None = None) -> str | None:
        """What to send for a write of ``data``: the complete lines the gate judged; the rest is
        held. None when the lines differ from what was judged (another write came between)."""
        if state.kind in (UNRESOLVED, "data"):
            return data  # no gate read it (an unguarded tool), or data: sent as it is
        with self._lock:
            before = state.pending
            lines, rest = _cut(state, state.pending + data)
            if not lines:
                if len(rest) > MAX_PENDING:
                    return None
                state.pending = rest
                return ""
            if len(rest) > MAX_PENDING or (state.guarded and lines not in state.judged):
                return None
            if state.guarded:
                state.judged.remove(lines)
            state.pending = rest
            if state.kind not in ("shell", "input") and lines in state.allowed:
                state.allowed.remove(lines)
                context = state.context + lines
                if len(context) > MAX_CONTEXT:
                    # its definitions are no longer read: every later write is judged from a lost state (asks)
                    state.context = ""
                    state.shell = lost_state(f"an interpreter's earlier input past {MAX_CONTEXT} characters")
                else:
                    state.context = context
        if state.kind == "shell":
            table = state.programs if programs is None else programs
            shell = _after(state.shell, lines, table, session=state.view)
            if shell.replaced is not None and not _switched_last(state.shell, lines, table):
                # `python3 -i⏎print(1)⏎` in one write: the lines after the one that starts a program
                # reading the shell's input are that program's, but were judged as the shell's.
                with self._lock:
                    state.pending = before
                return None
            with self._lock:
                if shell.replaced:
                    state.kind, state.shell = shell.replaced, None
                else:
                    state.shell = shell
        return lines


# -- helpers -------------------------------------------------------------------------------


SHARED_KEY = "policy.session_memory"


def memory_of(shared: Any) -> SessionMemory:
    """The engine's session memory, kept in its shared state (``ctx.shared`` for handlers)."""
    memory: SessionMemory = shared.get_or_create(SHARED_KEY, SessionMemory)
    return memory


# Text that may write a file: a redirection, or a program that writes files it is given (an archiver's
# archive too: SessionFiles.archives).
# (fp49) The key a background command's Writing holds whatever it writes by name: never a file's key
BACKGROUND_WRITER = "$background"
_MAY_WRITE = re.compile(
    r">|\b(?:tee|curl|wget|cp|mv|install|ln|dd|rsync|mount|g?tar|bsdtar|zip|7zz?a?|pax|afio"
    r"|gzip|pigz|xz|lzma|p?zstd|[pl]?bzip2|lz4|lzop|lzip|brotli|compress|g?c?split)\b"
    # an inline program's own writes and links (`python3 -c "open('/tmp/x.sh', 'w')…"`, `os.symlink(…)`: fresh38b)
    r"|\b(?:open|write\w*|symlink\w*|link\w*|hardlink_to|file_put_contents|fopen|touch|copy\w*|rename\w*)\b"
    # a file edited in place (`sed -i CMD x.sh`): remembered with its text after the run
    r"|\s-[a-zA-Z]*i|--in"
)
_TARGET = re.compile(r">>?\|?\s*([^\s;&|<>()]+)")
# Text that may run a quiet tree search (evaluate.quiet_searches: `grep -rq K .`), or a program named so only the
# parse can tell (`g''rep`, `\grep`, `$G`): its searches are remembered (SessionFiles.searched)
_MAY_SEARCH = re.compile(r"grep|diff|\b(?:rg|ag|ack|pt|ug)\b|['\"\\$`]")


def _analyzed(view: SessionView, command: str, cwd: str | None, programs: ProgramTable | None) -> Analyzer | None:
    """The analyzer's reading of a terminal ``command`` run in ``cwd`` with the session's files (``view``);
    None when the reading raised (the callers fall back to a rough reading of the written names)."""
    from engine.policy.shell import Analyzer  # noqa: PLC0415 (shell imports this module's readers)

    analyzer = Analyzer(programs or EMPTY, view)
    prefix = f"cd -- {_tilde_word(cwd)} && " if cwd else ""
    try:
        analyzer.analyze(prefix + command)
    except Exception:
        return None
    return analyzer


def _written_by(view: SessionView, tool: str, args: Any, programs: ProgramTable | None) -> dict[str, str | None]:
    """(sess46) The files a call writes, by key, with their text after it (None: not known here): the file
    tools' path, the terminal's writes as the analyzer reads them (redirections, tee, cp, mv, sed -i, links)."""
    workdir = view.workdir
    path = args.get("path")
    if tool == "write_file" and isinstance(path, str):
        content = args.get("content")
        return {file_key(path, workdir): content if isinstance(content, str) else None}
    if tool == "patch" and isinstance(path, str):
        name = file_key(path, workdir)
        return {name: _patched(view, name, args)}
    command = args.get("command")
    if tool != "terminal" or not isinstance(command, str):
        return {}
    cwd = args.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    known = view.links()
    analyzer = _analyzed(view, command, cwd, programs)
    if analyzer is None:
        return {file_key(key, workdir): None for key in _rough_targets(command, cwd)}
    out: dict[str, str | None] = {}
    for key, written in analyzer.files.items():
        if key.startswith(("/dev/", "/proc/")) or key in ("", "$unknown"):
            continue
        edited = analyzer.edited and key in analyzer.edited
        out[file_key(key, workdir)] = None if edited else written.content
    for name, target in analyzer.links.items():
        if "$" not in name and known.get(name) != target:
            out[file_key(name, workdir)] = None  # `ln -sf evil x.sh`: what it holds is another file's
    for tree in _trees_written(analyzer.commands, cwd, workdir):
        out.setdefault(tree, None)
    return out


def _trees_written(commands: list[Any], cwd: str | None, workdir: str) -> list[str]:
    """(xf48b, bg49) The keys of the folders the ``commands`` of a line run in ``cwd`` write names in that the line
    does not show: a program whose Programs row `unpacks_here` (git, tar, unzip, patch ...) unless its verb is one of
    its `keeps_tree:` (`git status`); every file under such a folder is rewritten with a text not known here (`sh x.sh
    &` then `git checkout -- x.sh` ran the committed `rm -rf ~`; the other way round, a background `git checkout --
    x.sh` then `sh x.sh`). Where it writes is where it runs, moved by its `chdir:` options (`git -C DIR`) or given by
    its `paths_in:` ones (`git --work-tree=DIR`), read as its grammar reads them; "*" (every file) where only the run
    knows the folder."""
    found: list[str] = []
    for command in commands:
        program = command.program
        if program is None or not program.writes_tree(command.argv):
            continue
        base = command.cwd if command.cwd is not None else cwd
        grammar = program.grammar
        if grammar.chdir or grammar.paths_in:
            for option, folder, _ in parse_argv(grammar, list(command.argv)).options:
                if option in grammar.chdir or option in grammar.paths_in:
                    base = "$unknown" if folder is None else posixpath.join(base or "", folder)
        # (unpack50) and where its destination option or its verb's destination sends names (`unzip -d DIR`, `git
        # clone URL DIR`), read from where it runs
        for target in program.unpacks_target(command.argv):
            here = command.cwd if command.cwd is not None else cwd
            key = posixpath.join(here or "", target)
            found.append("*" if "$" in key or "`" in key else file_key(key, workdir) or ".")
        if base is None:
            found.append(".")
        elif "$" in base or "`" in base:
            found.append("*")
        else:
            found.append(_checkout_top(file_key(base, workdir) or ".", workdir))
    return found


def _checkout_top(key: str, workdir: str) -> str:
    """(bg49) The folder of a checkout a program writing a tree from the folder of ``key`` may write in: a version
    control program writes its whole checkout (`cd sub && git checkout -- ../x.sh` writes x.sh), whose top is the
    nearest folder up holding a `.git` (a repository nested in the working directory: its own folder), else the
    working directory's tree. A key outside the working directory is kept."""
    if not key_in_workdir(key) or key == ".":
        return key
    folder = posixpath.normpath(key)
    while folder not in ("", "."):
        if os.path.lexists(posixpath.join(workdir, folder, ".git")):
            return folder
        folder = posixpath.dirname(folder)
    return "."


_GLOB_CHARS = re.compile(r"[*?[]")


_OVERFLOW = "\0overflow"  # (fix51) the writers past MAX_WATCHED, folded into one that writes any file


class _AnyAlive:
    """(fix51) Whether any of the folded writers still runs (one not started yet, or whose handle fails: running)."""

    __slots__ = ("handles",)

    def __init__(self, handles: list[Callable[[], bool] | None]) -> None:
        self.handles = handles

    def __call__(self) -> bool:
        running: list[Callable[[], bool] | None] = []
        for handle in self.handles:
            try:
                if handle is None or handle():
                    running.append(handle)
            except Exception:
                running.append(handle)
        self.handles = running  # (the ended ones forgotten: the list stays as long as what still runs)
        return bool(running)


def _bound_writing(files: SessionFiles) -> None:
    """(fix51) Past MAX_WATCHED writers, the oldest are folded into one that may write any file (`*`) while any of
    them runs, instead of being forgotten: 66 `sleep 40 &` calls pushed out a leftover still rewriting x.sh, whose
    text was then read from the disk (the old one) and run (the review of stop 51). The lock held."""
    if len(files.writing) <= MAX_WATCHED:
        return
    folded = files.writing.pop(_OVERFLOW, None)
    handles: list[Callable[[], bool] | None] = []
    if folded is not None and isinstance(folded.alive, _AnyAlive):
        handles.extend(folded.alive.handles)
    while len(files.writing) >= MAX_WATCHED:
        handles.append(files.writing.pop(next(iter(files.writing))).alive)
    files.writing[_OVERFLOW] = Writing(frozenset({"*"}), alive=_AnyAlive(handles), wide=("*",))


def _covers(written: str, key: str) -> bool:
    """(adv47) Whether a write of ``written`` (a folder, a glob: `cp -r e/. d/` writes `d`, `cp e/* d/` writes
    `d/*`; "." the working directory's tree, "*" any file) may replace the file of ``key``."""
    if written == "*" or key_within(key, written):
        return True
    return _GLOB_CHARS.search(written) is not None and fnmatch.fnmatchcase(key, written)


def _aliased(view: SessionView, written: dict[str, str | None]) -> dict[str, tuple[str, ...]]:
    """(adv47) The written keys that are a symbolic link or one of a file's hard links on disk, each with the keys
    of the files it writes through to (the watched file a link made earlier names: `ln -s x.sh l.sh` then a write
    of l.sh rewrites x.sh). Only a link is looked at further: a plain file costs one lstat."""
    out: dict[str, tuple[str, ...]] = {}
    for key in written:
        path = view._path(key)
        if path is None:
            continue
        try:
            held = os.lstat(path)
            if not stat.S_ISLNK(held.st_mode) and held.st_nlink < 2:
                continue
            target = os.stat(path)
        except (OSError, ValueError):
            continue
        same: list[str] = []
        real = os.path.realpath(path)
        if real != path:
            same.append(file_key(real, view.workdir))
        if target.st_nlink > 1:
            same.extend(_hard_links(view, (target.st_dev, target.st_ino)))
        out[key] = tuple(same)
    return out


def _hard_links(view: SessionView, identity: tuple[int, int]) -> list[str]:
    """The keys of the files a watch of the session reads that are ``identity`` (device, inode) on disk."""
    found: list[str] = []
    keys: set[str] = set()
    for watched in (*view.files.watches.values(), *view.files.expected.values()):
        keys.update(watched.exact)
    for key in list(keys)[:MAX_WATCHED_KEYS]:
        path = view._path(key)
        if path is None:
            continue
        try:
            held = os.stat(path)
        except (OSError, ValueError):
            continue
        if (held.st_dev, held.st_ino) == identity:
            found.append(key)
    return found


def _patched(view: SessionView, name: str, args: Any) -> str | None:
    """The text `patch` leaves in the file of key ``name`` (old_string -> new_string on its text on disk);
    None when not computed here (a unified diff, a file not read)."""
    old, new = args.get("old_string"), args.get("new_string")
    path = view._path(name)
    if not isinstance(old, str) or not old or not isinstance(new, str) or path is None:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONTENT * 4 + 1)
    except (OSError, ValueError):
        return None
    if len(data) > MAX_CONTENT * 4 or _BINARY in data:
        return None
    text = data.decode("utf-8", "replace")
    if old not in text:
        return None
    return text.replace(old, new) if args.get("replace_all") else text.replace(old, new, 1)


def _absolute(key: str, workdir: str) -> str:
    """An analyzer's key (relative to the working directory, `~/...` or absolute) made absolute."""
    if key.startswith(("/", "~")):
        return posixpath.normpath(key)
    return posixpath.normpath(posixpath.join(workdir, key))


def _tree_words(commands: list[Any], workdir: str) -> tuple[str, ...]:
    """The words the tree readers of a line read (see SessionFiles.archives): each absolute (or `~/…`),
    as where the reader ran; a word of an option's is kept too (a name that is no file holds nothing)."""
    words: dict[str, None] = {}
    for command in commands:
        if command.name in TREE_READERS:
            cwd = command.cwd or ""
            for word in command.argv[1:]:
                if word[:1] not in ("", "-") and len(words) < MAX_SOURCES:
                    words[_absolute(posixpath.join(cwd, word), workdir)] = None
    return tuple(words)


_TARS = frozenset({"tar", "gtar", "bsdtar"})
_TAR_WRITES = frozenset({"c", "r", "u", "A", "create", "append", "update", "catenate", "concatenate"})


def _tar_archives(commands: list[Any], files: dict[str, Any]) -> dict[str, None]:
    """The archives a tar of the line creates or adds to (`-f FILE` with c/r/u/A), as the analyzer keys a
    file (relative to where the line started), that it does not count as written already."""
    found: dict[str, None] = {}
    for command in commands:
        reading = command.reading if command.name in _TARS else None
        if reading is None or _TAR_WRITES.isdisjoint(name for name, _, _ in reading.options):
            continue
        for name, value, _ in reading.options:
            if name in ("f", "file") and value and value != "-" and "$" not in value:
                key = posixpath.normpath(posixpath.join(command.cwd or "", value))
                if key not in files:
                    found[key] = None
    return found


def _copied_sources(
    commands: list[Any], writers: frozenset[str], archives: dict[str, tuple[str, ...]], workdir: str
) -> tuple[str, ...]:
    """What the files the session remembers a tree reader wrote (``archives``) that a writer of a file
    names hold: the copy holds it too."""
    found: list[str] = []
    for command in commands:
        if command.name in writers:
            cwd = command.cwd or ""
            # its words, an option's value (`dd if=x.tgz of=y`) and its input (`tee y < x.tgz`: redt36)
            words = [*command.argv[1:], *(w.partition("=")[2] for w in command.argv[1:] if "=" in w)]
            words += [target for op, target in command.redirects if op in ("<", "<>")]
            for word in words:
                if word:
                    # keyed as the analyzer keys a file (`../x.tar` stays relative: _tar_archives), or absolute
                    spelled = posixpath.join(cwd, word)
                    key = file_key(_absolute(spelled, workdir), workdir)
                    found.extend(held_by(archives, key) or held_by(archives, file_key(spelled, workdir)))
    return tuple(found)


# A key standing for the files a splitter names from a prefix (`split x.tgz p_`: p_aa, p_ab, ...): the prefix, then
# this mark (no path holds a NUL)


def _split_pieces(
    commands: list[Any], archives: dict[str, tuple[str, ...]], read: tuple[str, ...], workdir: str
) -> list[tuple[str, tuple[str, ...]]]:
    """(prefix key, sources) of each splitter of the line cutting a file the session remembers a tree reader wrote,
    or a tree reader's output piped to it (`split -b 1k x.tgz p_`, `tar c . | split - p_`, `csplit -f p x.tgz 5`):
    each piece it names from the prefix holds part of it, which may be the secret (redt36's open split)."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for command in commands:
        if not splits(command):
            continue
        cwd = command.cwd or ""
        source, prefix = split_prefix(command)
        if not prefix or "$" in prefix:
            continue
        held: list[str] = []
        inputs = [target for op, target in command.redirects if op in ("<", "<>")] if source == "-" else [source]
        if source == "-" and not command.fed_by.isdisjoint(TREE_READERS):
            held.extend(read)  # `tar c . | split -b 1k - p_`
        if source == "-" and command.fed_by:
            held.extend(_copied_sources(commands, frozenset(command.fed_by), archives, workdir))  # `cat x.tgz | split`
        for name in inputs:
            spelled = posixpath.normpath(posixpath.join(cwd, name))
            held.extend(
                held_by(archives, file_key(spelled, workdir))
                or held_by(archives, file_key(_absolute(spelled, workdir), workdir))
            )
        if held:
            key = file_key(posixpath.normpath(posixpath.join(cwd, prefix)), workdir)
            found.append((key + _PREFIX_MARK, tuple(dict.fromkeys(held))[:MAX_SOURCES]))
    return found


def _compressed_archives(
    commands: list[Any], archives: dict[str, tuple[str, ...]], workdir: str
) -> list[tuple[str, tuple[str, ...]]]:
    """(key, sources) of each file a compressor of the line makes of a file the session remembers a tree
    reader wrote (``archives``): `gzip x.tar` after `tar cf x.tar .` makes x.tar.gz, which holds it too."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for command in commands:
        if command.name in COMPRESSORS:
            cwd = command.cwd or ""
            for source, made in compressed_files(command.name, command.argv):
                # keyed as the analyzer keys a file (relative to where the line started, `../x.tar` too), or absolute
                key = file_key(posixpath.normpath(posixpath.join(cwd, source)), workdir)
                held = held_by(archives, key) or held_by(archives, file_key(_absolute(key, workdir), workdir))
                if held:
                    found.append((file_key(posixpath.normpath(posixpath.join(cwd, made)), workdir), held))
    return found


def _rough_targets(command: str, cwd: str | None) -> list[str]:
    """Redirection targets of a command the analyzer could not read (remembered as unread)."""
    out = []
    for match in _TARGET.finditer(command):
        target = match.group(1).strip("'\"")
        if target and not target.startswith("&"):
            out.append(posixpath.join(cwd, target) if cwd and not target.startswith(("/", "~")) else target)
    return out


def _starts_environment(command: str) -> bool:
    """(xfail41) Whether a background shell started as ``command`` reads start-up files that may set any variable
    (a login or interactive shell, a zsh, fish or csh), or runs where variables are set (see sets_environment)."""
    from engine.policy.evaluate import _LOGIN_SHELL  # noqa: PLC0415

    words = command.split()
    name = words[0].rpartition("/")[2] if words else ""
    if name in ("zsh", "fish", "csh", "tcsh"):
        return True
    return _LOGIN_SHELL.search(command) is not None or sets_environment(command)


def _fresh_shell(cwd: str | None) -> ShellState:
    """A shell's state when it starts in ``cwd`` (a state even with no cwd: a line judged with one is
    known to be a background shell's)."""
    start = f"cd -- {_tilde_word(posixpath.normpath(cwd))}\n" if cwd else "\n"
    return _after(None, start, EMPTY)


def table_reader_kind(command: str, programs: ProgramTable) -> str | None:
    """(fresh39b) How a background command that names no shell or interpreter reads what is written to
    it, by the Programs table: a program whose `stdin: true` run applies to its words and is given no
    other input (`script -q /dev/null`, `newgrp`, `unshare -U`, `nsenter -t 1 -m`: a shell; `sudo -s`) is
    "shell" when it runs a shell (or a command known only at run time, or a line that cannot be read:
    the strictest), the interpreter's language when its lines are an inline program judged here, else
    "input" (judged as `COMMAND <<< LINES`); None: data (`cat`, `tail -f log`)."""
    from engine.policy.shell import Analyzer  # noqa: PLC0415

    analyzer = Analyzer(programs)
    analyzer.piped = {}
    try:
        analyzer.analyze(command)
    except Exception:  # fail closed: a command nobody can read may start anything
        return "shell"
    reader = _input_reader(analyzer, programs)
    if reader is None:
        return None
    language = reader[0]
    if language is None:
        return "shell"
    return language if language in _INLINE_KINDS and inline_text(programs, language, "") is not None else "input"


def reader_kind(command: str, readers: frozenset[str] = frozenset()) -> str | None:
    """How a background command reads what is written to it: "shell" when a shell reads its
    input, an interpreter's language, "input" for one of ``readers`` (the Programs tables'
    `command_readers:`, programs reading commands from their input: redt36), or None (data:
    each write judged alone, sent at once)."""
    from engine.policy.lexer import ShellSyntaxError  # noqa: PLC0415
    from engine.policy.shell import TooComplex, parse  # noqa: PLC0415

    try:
        commands = parse(command)
        names = [c.name for c in commands]
        argvs = [list(c.argv) for c in commands]
    except (ShellSyntaxError, TooComplex, RecursionError):
        names = [command_name(w) for w in command.split()]
        argvs = [command.split()]
    if _line_runner(argvs):
        return "shell"  # (fix58a) each line written to it runs as a shell's (`perl -ne 'system $_'`)
    # (redt36) without the Programs table a wrapper is not unwrapped (`env bash`, `nice python3 -i`,
    # `stdbuf -oL sqlite3`): a command whose words name none read as a shell's or an interpreter's is
    # read by each word's name too (stricter: a word naming one is taken for it)
    if not any(not n or n in SHELLS or _PYTHON.match(n) or n in INTERPRETERS or n in readers for n in names):
        names = [*names, *(command_name(w) for w in command.split() if not w.startswith("-") and "=" not in w)]
    kind: str | None = None
    for name in names:
        if not name or name in SHELLS:
            return "shell"  # a shell anywhere (or a program known only at run time): the strictest
        python = _PYTHON.match(name)
        if python is not None:
            kind = kind or ("ipython" if python.group(1) else "python")
        elif name in INTERPRETERS:
            kind = kind or INTERPRETERS[name]
        elif name in readers:
            kind = kind or "input"
    return kind


# (fix58a) interpreters whose inline program may run the lines it reads as shell commands (follow.runs_input_lines)
_LINE_LANGUAGES: Final = {
    **{"perl": "perl", "ruby": "ruby", "php": "php", "node": "node", "nodejs": "node"},
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "busybox-awk"), "awk"),
}


def _line_runner(argvs: list[list[str]]) -> bool:
    """(fix58a) Whether a background command runs an interpreter whose inline program hands each line it reads to the
    system's shell (`perl -ne 'system $_'`, `ruby -ne 'system $_'`, `perl -ne 'exec $_'`, `awk '{system($0)}'`,
    python's `for l in sys.stdin: os.system(l)`): what is written to it is a shell's input (`process write "rm -f
    ../notes.txt"` was judged as perl's program, and allowed)."""
    from engine.policy.follow import runs_input_lines  # noqa: PLC0415

    for argv in argvs:
        for at, word in enumerate(argv):
            name = command_name(word)
            language = "python" if _PYTHON.match(name) else _LINE_LANGUAGES.get(name)
            if language is not None and any(runs_input_lines(language, code, argv) for code in argv[at + 1 :]):
                return True
    return False


_OPENERS = frozenset({"if", "case", "for", "while", "until", "select", "{"})
_CLOSERS = frozenset({"fi", "esac", "done", "}"})
_CONTINUING = frozenset({"|", "|&", "&&", "||", "("})
_COMMAND_START = frozenset({"do", "then", "else", "elif", "{", "!", "time"})


def _cut(state: ProcessInput, text: str) -> tuple[str, str]:
    """(the lines a write completes, the text held after them). A shell's lines are held
    whole until the construct they start ends, as the shell itself waits for it: an open
    quote, here-document or substitution, a trailing `\\`, `|`, `&&` or `||`, an `if`,
    loop, `case`, group or subshell not yet closed."""
    end = text.rfind("\n")
    if end < 0:
        return "", text
    lines = text[: end + 1]
    if state.kind == "shell" and _incomplete(lines):
        return "", text
    return lines, text[end + 1 :]


def _incomplete(lines: str) -> bool:
    from engine.policy.lexer import ShellSyntaxError, tokenize  # noqa: PLC0415

    try:
        tokens = tokenize(lines)
    except ShellSyntaxError as exc:
        message = str(exc)
        return "unterminated" in message or "never closed" in message
    except RecursionError:
        return False  # judged, and failed closed there
    if not tokens or tokens[-1].kind != "nl":
        return bool(tokens)  # the last newline was a continuation (`\\` at the end)
    last = next((t for t in reversed(tokens) if t.kind != "nl"), None)
    if last is not None and last.kind == "op" and last.value in _CONTINUING:
        return True
    depth = 0
    start = True  # at the start of a command, where keywords are keywords
    for token in tokens:
        if token.kind == "word":
            word = token.literal
            if start and word in _OPENERS:
                depth += 1
            elif start and word in _CLOSERS:
                depth -= 1
            start = word in _COMMAND_START
        else:
            if token.value == "(":
                depth += 1
            elif token.value == ")":
                depth -= 1
            start = True
    return depth > 0


def _tilde_word(path: str) -> str:
    head, sep, rest = path.partition("/")
    if re.fullmatch(r"~[A-Za-z0-9._-]*", head):
        return head + sep + (shlex.quote(rest) if rest else "")
    return shlex.quote(path)


def _after(
    shell: ShellState | None,
    lines: str,
    programs: ProgramTable,
    readers: bool = True,
    session: SessionView | None = None,
) -> ShellState:
    """The state a shell in ``shell`` is in after running ``lines`` (lost when they cannot be read).
    ``readers``: a program a line starts that reads the shell's input switches it (see _input_reader).
    ``session``: the view the lines were judged with (fresh39b): a file they source is read there, so
    what it defines (an alias, a function, a variable, a `cd`) is the shell's after them, as judged; the quiet
    tree searches they run are remembered there (quiet42: the lines are sent, SessionMemory.take)."""
    from engine.policy.shell import Analyzer  # noqa: PLC0415

    if shell is not None and shell.lost is not None:
        return replace(shell, replaced=None) if shell.replaced is not None else shell  # lost for good
    analyzer = Analyzer(programs)
    analyzer.session = session  # (not given to the constructor: that restores the view's shell, done below)
    if shell is not None:
        shell.restore(analyzer)
    analyzer.ended = []
    analyzer.piped = {} if readers else None
    try:
        analyzer.analyze(lines)
    except Exception as exc:
        return lost_state(f"a line it ran could not be read: {exc}"[:200])
    if session is not None and _MAY_SEARCH.search(lines):
        # (quiet42) lines sent to a background shell search as a call does (SessionFiles.searched)
        from engine.policy.evaluate import quiet_searches  # noqa: PLC0415

        found = quiet_searches(analyzer.commands)
        if found:
            with session._lock:
                session.files.searches(found)
    copied = shell is not None and shell.copied
    if readers and analyzer.input_replaced:
        # `exec < FILE`: the shell reads its commands from FILE (judged there), no more from its input
        return replace(lost_state("the shell reads its commands from a file now (exec <)"), replaced="")
    reader = _input_reader(analyzer, programs, copied) if readers else None
    if reader is not None:
        language, replaced = reader
        if replaced and language is not None and inline_text(programs, language, "") is not None:
            return ShellState((), None, None, (), (), (), None, replaced=language)
        what = f"a {language} program" if language else "a program"
        return replace(lost_state(f"{what} it started reads what is written to the shell (its input)"), replaced="")
    from engine.policy.evaluate import sets_unnamed  # noqa: PLC0415

    state = shell_state_of(analyzer)
    if state.lost is None and (
        (shell is not None and shell.environ) or sets_environment(lines) or sets_unnamed(analyzer.commands)
    ):
        state = replace(state, environ=True)
    if readers and not copied and state.lost is None and _copies_input(analyzer, False)[1]:
        state = replace(state, copied=True)  # `exec 3<&0`: a later `sh /dev/fd/3` reads the shell's input
    elif copied and state.lost is None:
        state = replace(state, copied=True)
    return state


_WORDS: Final = re.compile(r"[\w./+-]+")
_NON_POSIX_SHELLS: Final = frozenset({"bash", "rbash", "zsh", "ksh", "mksh", "yash", "fish", "csh", "tcsh"})


def sets_environment(lines: str) -> bool:
    """(xfail41) Whether ``lines`` a shell runs may put POSIXLY_CORRECT in its environment (see ShellState.environ):
    they name it, or may set variables no word of theirs names (evaluate._SETS_UNNAMED)."""
    from engine.policy.evaluate import _SETS_UNNAMED  # noqa: PLC0415

    return "POSIXLY_CORRECT" in lines or _SETS_UNNAMED.search(lines) is not None


def _switched_last(shell: ShellState | None, lines: str, programs: ProgramTable) -> bool:
    """Whether the line that starts a program reading the shell's input is the last of ``lines``
    (none after it was judged as the shell's). Read again line by line: only when one does."""
    end = lines.find("\n")
    while 0 <= end < len(lines) - 1:
        head = lines[: end + 1]
        if not _incomplete(head):
            after = _after(shell, head, programs)
            if after.replaced is not None:
                return False
        end = lines.find("\n", end + 1)
    return True


_INPUTS = frozenset({"<", "<>", "<&", "<<", "<<<", "<<-"})
_DATA = frozenset({"<<", "<<<", "<<-"})  # here-documents and here-strings: data, never the shell's input


def _names_input(op: str, target: str, copied: bool, cwd: str | None) -> bool:
    """Whether a redirection's source is the shell's own input: `<&0`, `< /dev/stdin`, `< /dev/fd/0`,
    `< /proc/$$/fd/0` (any PID's), or -- once a descriptor was copied from it (``copied``: `exec
    3<&0`; no descriptor numbers are kept, so any) -- `<&3`, `< /dev/fd/3`, `< /proc/self/fd/3`."""
    from engine.policy.follow import descriptor_file  # noqa: PLC0415

    if op in _DATA:
        return False
    if op.endswith("&"):  # `<&N`, `>&N`: a copy of descriptor N (`<&-` closes)
        if target == "-":
            return False
        return target == "0" or copied or not target.isdigit()
    number = descriptor_file(target, cwd)
    return number == "0" or (number is not None and copied)


def _copies_input(analyzer: Any, copied: bool) -> tuple[bool, bool]:
    """(whether a line's redirections copy the shell's input to a descriptor anywhere on it, whether
    an `exec` keeps such a copy for the later lines): `exec 3<&0`, `exec 3</dev/stdin`, even
    `exec 3>/dev/stdin` (opening a pipe by its /proc name opens the pipe), `{ ...; } 3<&0`."""
    line = kept = False
    for _ in range(2):  # (a copy of a copy: `exec 3<&0 4<&3`)
        for command in analyzer.commands:
            cwd = command.cwd or analyzer.cwd
            if any(_names_input(op, target, copied or line, cwd) for op, target in command.redirects):
                line = True
                if command.argv[0] == "exec" and all(FD_NAME.fullmatch(a) for a in command.argv[1:]):
                    kept = True
    return line, kept


def _input_reader(analyzer: Any, programs: ProgramTable, copied: bool = False) -> tuple[str | None, bool] | None:
    """What a line a background shell runs leaves reading the shell's own input: a command
    whose input is neither a pipe nor redirected away (a redirection FROM the shell's input,
    `sh <&0`, `sh < /dev/stdin`, is none: see _names_input) and that the Programs table says reads
    its input as a program (a `stdin: true` run that applies to its words: `python3 -i`, `node`,
    `bash`, `ssh HOST`, `sqlite3 db`, `gdb` ...) or is given it as a file (`python3 -`, `sh
    /dev/stdin`, `sh /proc/$$/fd/0`, `sh /dev/fd/3` after `exec 3<&0`), or a command known only
    at run time. ``copied``: a descriptor copied from the shell's input is open (an earlier line's
    `exec 3<&0`). Only a command's own (descriptor 0) input redirections count: `sh 3< x`, `sh {fd}<
    x` read the shell's input (Analyzer.own_inputs). `>(sh)` as what a command
    writes reaches it reads a pipe that may carry the shell's input (`tee >(sh)`): a reader too,
    unless it is given that output as data (`echo ls >&3` to `exec 3> >(bash)`). Returns (its language, or None when it
    is not an inline language or not known; whether `exec` replaced the shell with it), or None:
    the shell reads its next line itself."""
    from engine.policy.follow import stdin_file  # noqa: PLC0415

    copied = copied or _copies_input(analyzer, copied)[0]
    piped = analyzer.piped or {}
    own_inputs = analyzer.own_inputs
    for command in analyzer.commands:
        if "function" in command.via or id(command) in piped:
            # a definition's body, read where it stands (a call reads it again); `>(CMD)` read where
            # it is made: the pipe it reads carries what is written to it (`exec 3> >(bash)`)
            continue
        cwd = command.cwd or analyzer.cwd
        own = own_inputs.get(id(command)) if own_inputs else None
        redirects = command.redirects if own is None else own
        given = bool(command.stdin) if own is None else bool(command.fed_by)
        redirected = any(op in _INPUTS for op, _ in redirects)
        if (given or redirected) and not any(op in _INPUTS and _names_input(op, t, copied, cwd) for op, t in redirects):
            continue  # data (`echo x | python3`, `sh <<< x`) or a file (`sh < x.sh`) is its input
        replaced = bool(command.via) and command.via[0] == "exec" and command.depth == 0
        if not command.name:
            return None, replaced  # a program known only at run time: any of them
        run = stdin_run(command)
        if run is not None:
            return (run.language if run.kind == "code" else None), replaced
        program = command.program
        if program is None or not program.active:
            continue
        for word in command.argv[1:]:
            if stdin_file(word, cwd) or (copied and _names_input("<", word, copied, cwd)):
                return None, replaced  # `python3 -`, `sh /dev/stdin`, `source /proc/$$/fd/0`: its program
    return None


def inline_text(programs: ProgramTable, language: str, lines: str) -> str | None:
    """The command line that runs ``lines`` as a ``language`` program, spelled as the Programs
    table says that language's interpreter takes one: its inline option (`python -c`, `node -e`,
    `php -r`), else its input (`tclsh <<< …`). None when no program of the table reads it."""
    inline: str | None = None
    for name, program in sorted(programs.by_name.items()):
        for run in program.runs:
            if run.kind != "code" or run.language != language:
                continue
            if run.source == "option":
                letter = min(run.names, key=lambda n: (len(n), n))
                flag = f"-{letter}" if len(letter) == 1 else f"--{letter}"
                return f"{name} {flag} {shlex.quote(lines)}"
            if run.source == "stdin" and inline is None:
                inline = f"{name} <<< {shlex.quote(lines)}"
    return inline
