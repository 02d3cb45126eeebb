"""Mercurial's stored aliases: what `hg NAME` runs when its configuration defines NAME (rows43, adv42b's xfail).

`[alias] x = !rm -rf $HOME` in ~/.hgrc, then `hg x`: hg runs the shell line. Unlike git, hg lets an alias
replace one of its own verbs (`[alias] status = !CMD`), so every verb is looked up. The engine reads the files
hg reads: HGRCPATH's files and folders (their `*.rc`) when it is set, else the system's (/etc/mercurial/hgrc,
/etc/mercurial/hgrc.d/*.rc and the same under /usr and /usr/local) and the user's (~/.hgrc, and
XDG_CONFIG_HOME, when absolute, or ~/.config: hg/hgrc); then the repository's (the `.hg` found from the
command's folder, or -R's, up: its hgrc, hgrc-not-shared, and a shared repository's source hgrc), with every
`%include`. A file that
exists and cannot be read for certain (a line hg refuses, a folder, a FIFO, over 1 MiB) raises Unknown: the
use asks (fail closed). Files are kept, by path, until their size, time or inode changes (gitconfig's cache).
"""

from __future__ import annotations

import os
import re

from engine.policy.gitconfig import _MAX_BYTES, _MAX_DEPTH, _MAX_FILES, Getenv, Unknown, _at, _here, _stamped, _text

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

_SYSTEM = ("/etc/mercurial", "/usr/etc/mercurial", "/usr/local/etc/mercurial")
_CACHE: dict[str, tuple[tuple[int, int, int], Any]] = {}
_SECTION = re.compile(r"\[([^\[]+)\]")
_ITEM = re.compile(r"([^=\s][^=]*?)\s*=\s*((.*\S)?)")
_CONTINUED = re.compile(r"\s+(\S|\S.*\S)\s*$")
_BLANK = re.compile(r"(;|#|\s*$)")
_INCLUDE = re.compile(r"%include\s+(\S|\S.*\S)\s*$")
_UNSET = re.compile(r"%unset\s+(\S+)")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def stored_aliases(name: str, cwd: str | None, getenv: Getenv, repository: str | None = None) -> list[str]:
    """Every value hg's configuration gives the alias ``name`` (compared lowercased: a reading more), in the
    order hg reads the files. ``repository``: the folder -R/--repository names (relative to ``cwd``). Raises
    Unknown when a file hg reads cannot be read here."""
    key = name.lower()
    values: list[str] = []
    budget = [_MAX_FILES]
    for path in config_files(cwd, getenv, repository):
        _collect(path, key, values, 0, getenv, budget)
    return values


def config_files(cwd: str | None, getenv: Getenv, repository: str | None = None) -> list[str]:
    """The files hg reads, in order (see the module's docstring)."""
    files: list[str] = []
    home = _at(cwd, getenv("HOME") or "") or None
    rcpath = getenv("HGRCPATH")
    if rcpath is not None:
        for entry in rcpath.split(os.pathsep):
            if entry:
                files.extend(_rc_entry(_at(cwd, _expanded(entry, getenv))))
    else:
        for folder in _SYSTEM:
            files.append(f"{folder}/hgrc")
            files.extend(_rc_folder(f"{folder}/hgrc.d"))
        if home:
            files.append(f"{home}/.hgrc")
        xdg = getenv("XDG_CONFIG_HOME")  # (hg takes an absolute one only)
        if xdg is None or not os.path.isabs(xdg):
            xdg = f"{home}/.config" if home else None
        if xdg:
            files.append(f"{xdg}/hg/hgrc")
    if getenv("HGRCSKIPREPO") is None:
        start = cwd if cwd is not None else _here()
        if repository is not None:
            if "$" in repository or "://" in repository:
                raise Unknown(repository)  # (a value known at run time; a remote one hg does not take here)
            start = _at(start, repository)
        dot = _discover(start) if start is not None else None
        if dot is not None:
            files.append(f"{dot}/hgrc")
            files.append(f"{dot}/hgrc-not-shared")
            shared = _shared_source(dot)
            if shared is not None:
                files.append(f"{shared}/hgrc")
    return files


def _rc_entry(path: str) -> list[str]:
    """An HGRCPATH entry: a folder's `*.rc` files, else the file itself."""
    return _rc_folder(path) if os.path.isdir(path) else [path]


def _rc_folder(folder: str) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    except OSError as error:
        if os.path.exists(folder) and not os.path.isdir(folder):
            return []  # (hg reads *.rc of a folder only)
        raise Unknown(folder) from error
    return [os.path.join(folder, name) for name in names if name.endswith(".rc")]


def _discover(start: str) -> str | None:
    """The `.hg` folder hg finds from ``start`` up (the first one: hg takes any `.hg` folder)."""
    folder = os.path.abspath(start)
    for _ in range(256):
        dot = os.path.join(folder, ".hg")
        if os.path.isdir(dot):
            return dot
        if os.path.lexists(dot) and not os.path.isdir(dot):
            raise Unknown(dot)  # (a `.hg` that is no folder: hg stops there with an error, or not: not known)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def _shared_source(dot: str) -> str | None:
    """A shared repository's source `.hg` (its `sharedpath` file), whose hgrc hg reads with share-safe."""
    path = os.path.join(dot, "sharedpath")
    text: str | None = _stamped(path, _CACHE, "", lambda: _text(path, 4096))
    if not text or not isinstance(text, str):
        return None
    named = text.strip()
    return named if os.path.isabs(named) else os.path.normpath(os.path.join(dot, named))


def _expanded(path: str, getenv: Getenv) -> str:
    """A path as hg expands it (util.expandpath: variables, then `~`); an unset variable stays as written."""

    def variable(found: re.Match[str]) -> str:
        value = getenv(found.group(1) or found.group(2))
        return found.group(0) if value is None else value

    path = _VARIABLE.sub(variable, path)
    if path == "~" or path.startswith("~/"):
        home = getenv("HOME")
        if home:
            return home + path[1:]
    elif path.startswith("~"):
        return os.path.expanduser(path)
    return path


def _collect(path: str, key: str, values: list[str], depth: int, getenv: Getenv, budget: list[int]) -> None:
    budget[0] -= 1
    if depth > _MAX_DEPTH or budget[0] < 0:
        raise Unknown(path)
    read: tuple[dict[str, list[str]], list[str]] | None = _stamped(path, _CACHE, ({}, []), lambda: _parsed(path))
    if read is None:
        return
    aliases, includes = read
    values.extend(aliases.get(key, ()))
    base = os.path.dirname(path)
    for include in includes:
        included = _expanded(include, getenv)
        if "$" in included:
            raise Unknown(included)
        _collect(os.path.join(base, included), key, values, depth + 1, getenv, budget)


def _parsed(path: str) -> tuple[dict[str, list[str]], list[str]]:
    if os.path.getsize(path) > _MAX_BYTES:
        raise Unknown(path)
    return parse_aliases(_text(path, _MAX_BYTES + 1))


def parse_aliases(text: str) -> tuple[dict[str, list[str]], list[str]]:
    """An hgrc's `[alias]` entries (lowercased name -> its values, in order) and its `%include` paths, read as
    hg's config parser reads it: a section header `[name]`, `name = value`, a line starting with a blank
    continuing the value (joined with a newline), `#` and `;` lines comments, `%unset` ignored (a reading
    more). A line hg refuses raises Unknown."""
    aliases: dict[str, list[str]] = {}
    includes: list[str] = []
    section = ""
    last: list[str] | None = None  # the value a continuation line extends
    for line in text.removeprefix("\ufeff").splitlines():
        if last is not None:
            if line[:1] in ("#", ";"):
                continue  # (a comment inside a continued value)
            found = _CONTINUED.match(line)
            if found is not None:
                last[-1] += "\n" + found.group(1)
                continue
        last = None
        if _BLANK.match(line):
            continue
        found = _SECTION.match(line)
        if found is not None:
            section = found.group(1).strip()
            continue
        found = _ITEM.match(line)
        if found is not None:
            entry = aliases.setdefault(found.group(1).lower(), []) if section == "alias" else []
            entry.append(found.group(2) or "")
            last = entry
            continue
        found = _INCLUDE.match(line)
        if found is not None:
            includes.append(found.group(1))
            continue
        if _UNSET.match(line):
            continue
        raise Unknown(f"a line hg refuses: {line[:40]!r}")
    return aliases, includes
