"""The paths `git ls-files` prints in a folder, read from git's index without running git.

`cat $(git ls-files)` prints what the index lists, and the index is a file the caller can
write: a `.git` file naming a folder it made (`gitdir: e`) with an `index` whose entries are
`/home/me/.ssh/id_ed25519` or `../../x` (git prints them as they are). So a git listing is
judged by the index git will read as well as by the tree (paths.PathClassifier._listed).

Read for certain or not at all: anything git would read differently from this reader (a
`core.worktree` or an `[include]` in the repository's configuration, a bare repository on the
way, a split or sparse index, another object format, a version this reader does not know, a
`.git` that is neither a repository nor a `gitdir:` file) gives None, and the caller asks.
Running git instead would run the caller's configuration (`core.fsmonitor` is a program).
"""

from __future__ import annotations

import os
import posixpath
import re

_MAX_INDEX = 64 << 20  # bytes of index read (a larger one is not read: None)
_MAX_ENTRIES = 1 << 20
# Configuration that moves the work tree or reads more configuration, or another object format:
# a key line `worktree = …`, `bare = <not false>`, `[include…]`/`[includeIf…]`, `objectFormat`.
_UNSURE_CONFIG = re.compile(
    r"(?im)(?:^|[\]\s])(?:worktree\s*=|bare\s*(?:$|[;#]|=(?!\s*(?:false|no|off|0)\b))|objectformat\b)|\[\s*include"
)
_HASH = 20  # SHA-1 object names (another format is refused in the configuration)


def _is_repository(path: str) -> bool:
    """git's test for a repository folder (is_git_directory): HEAD, objects/ and refs/."""
    common = path
    try:
        with open(posixpath.join(path, "commondir"), encoding="utf-8") as f:
            common = posixpath.normpath(posixpath.join(path, f.read().strip()))
    except OSError:
        pass
    return (
        os.path.exists(posixpath.join(path, "HEAD"))
        and os.path.isdir(posixpath.join(common, "objects"))
        and os.path.isdir(posixpath.join(common, "refs"))
    )


def _repository(folder: str) -> tuple[str, str] | bool | None:
    """(work tree top, git folder) for ``folder`` as git finds it; False when there is none (git
    prints nothing); None when it cannot be said for certain."""
    current = folder
    while True:
        dotgit = posixpath.join(current, ".git")
        if os.path.lexists(dotgit):
            if os.path.isdir(dotgit):
                return (current, dotgit) if _is_repository(dotgit) else None
            try:
                with open(dotgit, encoding="utf-8") as f:
                    head = f.read(4096)
            except (OSError, UnicodeDecodeError):
                return None
            if not head.startswith("gitdir: "):
                return None
            gitdir = posixpath.normpath(posixpath.join(current, head[8:].strip()))
            return (current, gitdir) if _is_repository(gitdir) else None
        if _is_repository(current):
            return None  # a bare repository (or a git folder) on the way: git reads it otherwise
        if current == "/":
            return False
        current = posixpath.dirname(current)


def _configuration_is_plain(gitdir: str) -> bool:
    folders = [gitdir]
    try:
        with open(posixpath.join(gitdir, "commondir"), encoding="utf-8") as f:
            folders.append(posixpath.normpath(posixpath.join(gitdir, f.read().strip())))
    except OSError:
        pass
    for folder in folders:
        for name in ("config", "config.worktree"):
            try:
                with open(posixpath.join(folder, name), "rb") as f:
                    text = f.read(1 << 20).decode("utf-8", "replace")
            except FileNotFoundError:
                continue
            except OSError:
                return False
            if _UNSURE_CONFIG.search(text):
                return False
    return True


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (index v4 path prefixes)."""
    byte = data[at]
    at += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[at]
        at += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at


def entries(data: bytes) -> list[bytes] | None:
    """The paths of an index file's entries, or None when this reader cannot read it for certain."""
    if len(data) < 12 + _HASH or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4) or count > _MAX_ENTRIES:
        return None
    end = len(data) - _HASH
    at = 12
    out: list[bytes] = []
    previous = b""
    try:
        for _ in range(count):
            start = at
            mode = int.from_bytes(data[at + 24 : at + 28], "big")
            flags = int.from_bytes(data[at + 60 : at + 62], "big")
            at += 62
            if flags & 0x4000:
                if version < 3:
                    return None
                at += 2
            if mode >> 12 == 0o04:
                return None  # a sparse folder entry: its files are not listed here
            if version == 4:
                strip, at = _varint(data, at)
                stop = data.index(b"\0", at)
                if strip > len(previous):
                    return None
                path = previous[: len(previous) - strip] + data[at:stop]
                at = stop + 1
            else:
                stop = data.index(b"\0", at)
                path = data[at:stop]
                at = start + ((stop - start + 8) & ~7)
            if at > end:
                return None
            out.append(path)
            previous = path
        while at + 8 <= end:  # extensions: a split index lists its entries elsewhere
            signature = data[at : at + 4]
            if signature in (b"link", b"sdir"):
                return None
            at += 8 + int.from_bytes(data[at + 4 : at + 8], "big")
    except (ValueError, IndexError):
        return None
    return out if at == end else None


def listed(folder: str, *, below: bool = True) -> list[bytes] | None:
    """What `git ls-files` prints run in ``folder`` (absolute, real): the index's paths below
    it, relative to it (bytes, as git prints them with -z). Not ``below``: every path, relative
    to the top of the work tree (`git diff --name-only`). [] where git finds no repository.
    None when that cannot be said for certain (see the module's notes)."""
    found = _repository(folder)
    if found is False:
        return []
    if found is None or found is True:
        return None
    top, gitdir = found
    if not _configuration_is_plain(gitdir):
        return None
    try:
        with open(posixpath.join(gitdir, "index"), "rb") as f:
            data = f.read(_MAX_INDEX + 1)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if len(data) > _MAX_INDEX:
        return None
    paths = entries(data)
    if paths is None:
        return None
    if folder == top or not below:
        return paths
    prefix = (folder[len(top) :].strip("/") + "/").encode("utf-8", "surrogateescape")
    if not folder.startswith(top.rstrip("/") + "/"):
        return None
    return [p[len(prefix) :] for p in paths if p.startswith(prefix)]


_MAX_REFS = 20000  # ref names read (more: not read, None)
_PLAIN_REF = re.compile(r"[A-Za-z0-9_.+@/][A-Za-z0-9_.+@/-]*")


def refs_plain(folder: str) -> bool:
    """(adv51b) Whether every branch and tag name of the repository git finds from ``folder`` (absolute, real), as
    `git branch --show-current`, `git describe` or `git rev-parse --abbrev-ref` print one, is a plain word that
    does not start with `-`: git refuses `git branch -- -x` but not `git update-ref 'refs/tags/--output=F' HEAD`
    nor a clone's tags, and `git log $(git describe --tags)` then wrote F. Loose refs below refs/heads and
    refs/tags, packed-refs and HEAD are read; False when any is not plain or cannot be read for certain (a ref
    backend this reader does not know, an unsure configuration). Every ref below refs/ counts (`git describe --all`
    prints any), each in its shortest form (fix51)."""
    found = _repository(folder)
    if found is False:
        return True  # (no repository: git prints nothing)
    if found is None or found is True:
        return False
    _top, gitdir = found
    if not _configuration_is_plain(gitdir):
        return False
    common = gitdir
    try:
        with open(posixpath.join(gitdir, "commondir"), encoding="utf-8") as f:
            common = posixpath.normpath(posixpath.join(gitdir, f.read().strip()))
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return False
    names: list[str] = []
    try:
        with open(posixpath.join(gitdir, "HEAD"), encoding="utf-8") as f:
            head = f.read(4096).strip()
        if head.startswith("ref:"):
            names.append(head[4:].strip())
        if os.path.isdir(posixpath.join(common, "reftable")):
            return False  # (the reftable backend: not read)
        try:
            with open(posixpath.join(common, "packed-refs"), encoding="utf-8") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and not line.startswith(("#", "^")):
                        names.append(parts[1])
                    if len(names) > _MAX_REFS:
                        return False
        except FileNotFoundError:
            pass
        for root, _dirs, files in os.walk(posixpath.join(common, "refs")):
            for name in files:
                names.append(posixpath.relpath(posixpath.join(root, name), common))
            if len(names) > _MAX_REFS:
                return False
    except (OSError, UnicodeDecodeError):
        return False
    for name in names:
        # (fix51) every name, HEAD's target too, in every short form git prints: `git symbolic-ref HEAD
        # refs/--output=F` made `git symbolic-ref --short HEAD` print `--output=F` (refs/ stripped)
        short = name
        for prefix in ("refs/heads/", "refs/tags/", "refs/remotes/", "refs/"):
            if name.startswith(prefix):
                short = name[len(prefix) :]
                break
        if not _PLAIN_REF.fullmatch(short) or not _PLAIN_REF.fullmatch(name):
            return False
    return True
