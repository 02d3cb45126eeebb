"""git's stored aliases: what `git NAME` runs when NAME is none of git's own verbs (lead42, adv41b's strict xfail).

`git config alias.r 'reset --hard'` in one call, `git r` in the next: git reads the alias from its configuration
files and runs `git reset --hard`. The verdict on `git r` must be about that, so the engine reads the same files git
reads (the system's, the user's, the repository's and its worktree's, with their includes) for the alias's value.
A file that exists and cannot be read, an include nesting too deep or a value too long: the alias is unknown, and
the caller is asked (fail closed). The files are read again only when their size or time changes.
"""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

Getenv = Callable[[str], "str | None"]

_MAX_DEPTH = 8  # includes inside includes (git's own limit is 10)
# files one look-up reads, includes counted each time they are named (adv42b: six files each including the next
# 200 times made 200**6 readings, and the check never ended)
_MAX_FILES = 256
_MAX_BYTES = 1 << 20  # a configuration file larger than this is not read: its aliases are unknown
_MAX_CACHED = 64
# path -> ((mtime_ns, size, inode), the file's aliases (name -> values) and its include paths, or None: unreadable)
_CACHE: dict[str, tuple[tuple[int, int, int], Any]] = {}


class Unknown(Exception):
    """A configuration file git reads that the engine cannot read for certain."""


def stored_aliases(name: str, cwd: str | None, getenv: Getenv) -> list[str]:
    """Every value the configuration git would read gives the alias ``name`` (section and key names are
    case-insensitive), in the order git reads the files (the last one wins in git; every one is returned, the
    caller judges them all). Raises Unknown when a file git reads cannot be read here."""
    key = name.lower()
    values: list[str] = []
    budget = [_MAX_FILES]
    for path in config_files(cwd, getenv):
        _collect(path, key, values, 0, getenv, budget)
    return values


# (xf45) a remote's URLs kept beside the aliases, under a key no alias has (a subsection holds no newline): the
# remote's own ("\nremote.NAME", its case kept, as git's) and every remote's ("\nremote*")
_REMOTE = "\nremote."
_EVERY_REMOTE = "\nremote*"


def remote_urls(name: str | None, cwd: str | None, getenv: Getenv) -> list[str]:
    """(xf45) The `url` and `pushurl` values the configuration git would read gives remote ``name`` (None: every
    remote's, what a push naming none may use), in the order git reads the files. Raises Unknown as
    stored_aliases does."""
    key = _EVERY_REMOTE if name is None else _REMOTE + name
    values: list[str] = []
    budget = [_MAX_FILES]
    for path in config_files(cwd, getenv):
        _collect(path, key, values, 0, getenv, budget)
    return values


def config_files(cwd: str | None, getenv: Getenv) -> list[str]:
    """The configuration files git reads, system first: /etc/gitconfig (or GIT_CONFIG_SYSTEM, none with
    GIT_CONFIG_NOSYSTEM), the user's (GIT_CONFIG_GLOBAL, or XDG_CONFIG_HOME/git/config and ~/.gitconfig), the
    repository's (GIT_DIR, or the .git found from ``cwd`` up) and its worktree's."""
    files: list[str] = []
    if not getenv("GIT_CONFIG_NOSYSTEM"):
        files.append(_at(cwd, getenv("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    # (a relative HOME, XDG_CONFIG_HOME or GIT_CONFIG_GLOBAL is git's folder's: `cd sub && HOME=. git x`, adv42b)
    home = _at(cwd, getenv("HOME") or "") or None
    glob = getenv("GIT_CONFIG_GLOBAL")
    if glob is not None:
        files.append(_at(cwd, _expand(glob, home)))
    else:
        xdg = _at(cwd, getenv("XDG_CONFIG_HOME") or "") or (f"{home}/.config" if home else None)
        if xdg:
            files.append(f"{xdg}/git/config")
        if home:
            files.append(f"{home}/.gitconfig")
    git_dir = getenv("GIT_DIR")
    if git_dir is not None:
        git_dirs = [git_dir if os.path.isabs(git_dir) or cwd is None else os.path.join(cwd, git_dir)]
    elif cwd is not None:
        git_dirs = _discover(cwd)
    elif (here := _here()) is not None:
        git_dirs = _discover(here)
    else:
        git_dirs = []
    # GIT_COMMON_DIR: the repository's own files (its config) are there, whatever the git directory (adv42b:
    # `GIT_COMMON_DIR=/elsewhere/.git git y ~` read another repository's aliases unseen)
    common_env = getenv("GIT_COMMON_DIR")
    if common_env is not None and not os.path.isabs(common_env) and cwd is not None:
        common_env = os.path.join(cwd, common_env)
    for git_dir in git_dirs:
        common = common_env or _common_dir(git_dir)
        files.append(f"{common}/config")
        files.append(f"{git_dir}/config.worktree")
    return files


def _at(cwd: str | None, path: str) -> str:
    """``path`` as the command in ``cwd`` reads it."""
    return os.path.join(cwd, path) if path and cwd is not None and not os.path.isabs(path) else path


def _here() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


def _discover(start: str) -> list[str]:
    """The repository's git directory found from ``start`` up, as git finds it (a `.git` folder, a `.git` file
    naming one, or a bare repository); none outside any. git passes over a `.git` folder that is no repository
    (no HEAD naming a ref or a commit, no objects or refs folder) and looks further up: such a folder is returned
    (its config may be read: a reading more) and the search goes on (adv42b: an empty `sub/.git` made the engine
    read sub/.git/config, while git in sub ran the parent repository's alias)."""
    found: list[str] = []
    folder = os.path.abspath(start)
    for _ in range(256):
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot):
            found.append(dot)
            if _repository(dot):
                return found
        elif os.path.isfile(dot):
            named = _gitdir_file(dot)
            if named is None:
                raise Unknown(dot)
            found.append(named if os.path.isabs(named) else os.path.normpath(os.path.join(folder, named)))
            return found
        elif _repository(folder):
            found.append(folder)  # a bare repository
            return found
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent
    return found


def _repository(folder: str) -> bool:
    """Whether git takes ``folder`` for a git directory: a HEAD naming a ref or a commit, and an objects and a
    refs folder (a linked worktree's: its commondir's)."""
    if not os.path.isfile(os.path.join(folder, "HEAD")):
        return False
    head = (_small_text(os.path.join(folder, "HEAD")) or "").strip()
    if not (head.startswith("ref: refs/") or (len(head) in (40, 64) and all(c in "0123456789abcdef" for c in head))):
        return False
    common = _common_dir(folder)
    return os.path.isdir(os.path.join(common, "objects")) and os.path.isdir(os.path.join(common, "refs"))


def _gitdir_file(path: str) -> str | None:
    """The folder a `.git` file names (`gitdir: PATH`, a worktree's or a submodule's)."""
    try:
        first = (_small_text(path) or "").partition("\n")[0]
    except Unknown:
        return None
    return first[len("gitdir:") :].strip() or None if first.startswith("gitdir:") else None


def _common_dir(git_dir: str) -> str:
    """A linked worktree's git directory names the repository's in its `commondir` file."""
    named = (_small_text(os.path.join(git_dir, "commondir")) or "").strip()
    if not named:
        return git_dir
    return named if os.path.isabs(named) else os.path.normpath(os.path.join(git_dir, named))


_TEXTS: dict[str, tuple[tuple[int, int, int], Any]] = {}


def _small_text(path: str) -> str | None:
    """The first 4 KiB of a small file git reads a path from (read again when it changes); None: no such file."""
    text: str | None = _stamped(path, _TEXTS, "", lambda: _text(path, 4096))
    return text


def _text(path: str, limit: int) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        return handle.read(limit)  # (newline="": a lone CR is a blank to git, not a line end)


def _stamped(path: str, cache: dict[str, tuple[tuple[int, int, int], Any]], empty: Any, read: Callable[[], Any]) -> Any:
    """What ``read`` makes of the file at ``path``, kept in ``cache`` until its size, time or inode changes; None:
    no such file; ``empty`` for /dev/null. Raises Unknown for a file that is not a regular one (a FIFO would block
    the open, /dev/zero never end, a folder: adv42b) or that ``read`` cannot read."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Unknown(path) from error
    if _empty_device(path, status.st_mode):
        return empty  # (GIT_CONFIG_GLOBAL=/dev/null: git reads nothing)
    if not stat.S_ISREG(status.st_mode):
        raise Unknown(path)
    stamp = (status.st_mtime_ns, status.st_size, status.st_ino)
    cached = cache.get(path)
    if cached is not None and cached[0] == stamp:
        found = cached[1]
    else:
        try:
            found = read()
        except (OSError, Unknown):
            found = None
        if len(cache) >= _MAX_CACHED:
            cache.clear()
        cache[path] = (stamp, found)
    if found is None:
        raise Unknown(path)
    return found


def _empty_device(path: str, mode: int) -> bool:
    """/dev/null (the character device, not a file of that name elsewhere): git reads it as an empty file."""
    return stat.S_ISCHR(mode) and os.path.realpath(path) == "/dev/null"


def _expand(path: str, home: str | None) -> str:
    """A path as git reads it in its configuration: `~/` the home, `~USER/` that user's home, `%(prefix)/` git's
    installation's (not known here: Unknown)."""
    if path.startswith("~/") and home:
        return home + path[1:]
    if path.startswith("~") or path.startswith("%(prefix)/"):
        # (adv42b: `path = ~me/x.cfg`, `%(prefix)/x.cfg` were read as relative paths, and missed)
        user, slash, rest = path[1:].partition("/")
        if path.startswith("~") and user:
            try:
                return pwd.getpwnam(user).pw_dir + slash + rest
            except KeyError:
                return path  # (no such user: git finds no file either)
        raise Unknown(path)
    return path


def _collect(path: str, key: str, values: list[str], depth: int, getenv: Getenv, budget: list[int]) -> None:
    budget[0] -= 1
    if depth > _MAX_DEPTH or budget[0] < 0:
        raise Unknown(path)
    read = _read(path)
    if read is None:
        return
    aliases, includes = read
    values.extend(aliases.get(key, ()))
    base = os.path.dirname(path)
    home = getenv("HOME")
    for include in includes:
        # (every includeIf's file too, its condition unread: a reading more, never one less)
        included = _expand(include, home)
        if not os.path.isabs(included):
            included = os.path.join(base, included)
        _collect(included, key, values, depth + 1, getenv, budget)


def _read(path: str) -> tuple[dict[str, list[str]], list[str]] | None:
    """The aliases and include paths of the file at ``path``; None when there is no such file."""
    found: tuple[dict[str, list[str]], list[str]] | None = _stamped(path, _CACHE, ({}, []), lambda: _parsed(path))
    return found


def _parsed(path: str) -> tuple[dict[str, list[str]], list[str]]:
    if os.path.getsize(path) > _MAX_BYTES:
        raise Unknown(path)
    return parse_aliases(_text(path, _MAX_BYTES + 1))


def parse_aliases(text: str) -> tuple[dict[str, list[str]], list[str]]:
    """A git configuration file's `[alias]` entries (lowercased name -> its values, in order) and the paths its
    `[include]` and `[includeIf "…"]` sections name. Read as git reads it: a section header may share its line
    with an entry, a value's quotes and backslash escapes are removed, `#` and `;` outside quotes start a comment,
    a backslash at a line's end continues the value. Raises Unknown for a value that does not end (an open quote
    at the end of the file)."""
    aliases: dict[str, list[str]] = {}
    includes: list[str] = []
    section = ""
    i, n = (1 if text.startswith("\ufeff") else 0), len(text)  # (git skips a UTF-8 byte order mark)
    while i < n:
        char = text[i]
        if char in " \t\r\n":
            i += 1
            continue
        if char in "#;":
            i = _line_end(text, i)
            continue
        if char == "[":
            end = text.find("]", i)
            if end < 0:
                raise Unknown("a section header that does not end")
            section = _section_name(text[i + 1 : end])
            i = end + 1
            continue
        start = i
        while i < n and (text[i].isalnum() or text[i] == "-"):
            i += 1
        name = text[start:i].lower()
        if not name:
            raise Unknown(f"no variable name at offset {start}")
        while i < n and text[i] in " \t":
            i += 1
        value: str | None = None
        if i < n and text[i] == "=":
            value, i = _value(text, i + 1)
        elif i < n and text[i] not in "\r\n#;":
            raise Unknown(f"a variable line git refuses at offset {start}")
        if section == "alias" and value is not None:
            aliases.setdefault(name, []).append(value)
        elif section.startswith("alias.") and value is not None:
            # `[alias "x"] y = V` (or `[alias.x]`, `[alias ""]`) is the variable alias.x.y: git looks aliases up
            # by what follows `alias.`, so `git x.y` runs V (adv42b)
            aliases.setdefault(f"{section[len('alias.') :].lower()}.{name}", []).append(value)
        elif section.startswith("remote.") and name in ("url", "pushurl") and value is not None:
            aliases.setdefault(_REMOTE + section[len("remote.") :], []).append(value)
            aliases.setdefault(_EVERY_REMOTE, []).append(value)
        elif (section == "include" or section.startswith("includeif.")) and name == "path" and value:
            includes.append(value)
    return aliases, includes


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end + 1


def _section_name(header: str) -> str:
    """`alias` -> "alias"; `includeIf "gitdir:~/x/"` -> "includeif.gitdir:~/x/" (the section lowercased, the
    subsection kept); `alias.x` (the old spelling) -> "alias.x"."""
    head, _, sub = header.strip().partition('"')
    head = head.strip().lower()
    if sub:
        return f"{head}.{sub.rstrip().removesuffix(chr(34))}"
    return head


_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}


def _value(text: str, i: int) -> tuple[str, int]:
    """The value starting at ``i`` (after `=`), and where the next line starts."""
    out: list[str] = []
    quoted = False
    pending = ""  # blanks kept only if more of the value follows them
    n = len(text)
    while i < n:
        char = text[i]
        if char == "\n":
            if quoted:
                raise Unknown("a quoted value that does not end on its line")
            i += 1
            break
        if char == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt == "\n":
                i += 2
                continue
            if nxt == "\r" and text[i + 2 : i + 3] == "\n":
                i += 3
                continue
            if nxt not in _ESCAPES:
                raise Unknown("a bad escape in a value")
            out.append(pending + _ESCAPES[nxt])
            pending = ""
            i += 2
            continue
        if char == '"':
            quoted = not quoted
            out.append(pending)
            pending = ""
            i += 1
            continue
        if not quoted and char in "#;":
            i = _line_end(text, i)
            break
        if not quoted and char in " \t\r\f\v":
            if out or pending:
                pending += " "  # (git keeps each blank inside a value as a space)
            i += 1
            continue
        out.append(pending + char)
        pending = ""
        i += 1
    if quoted:
        raise Unknown("a quoted value that does not end")
    return "".join(out), i
