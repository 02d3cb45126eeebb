"""Where a path lands on disk: the symbolic links on its way, and what glob characters reach.

A policy judged on the spelling alone is fooled by ``gc -> .git/config``. Looking every
word up with ``lstat`` on each check would cost more than the rest of the check, so each
directory a check walks through is listed once and kept while its modification time, change
time and inode stay the same: creating, removing or renaming an entry, a symbolic link included,
changes them (and setting the modification time back, `touch -d`, changes the change time).
A listing younger than the clock's granularity could miss a change made in the same tick, so
recently changed directories are asked entry by entry instead.

Only the areas a tool can plant a link in are followed (the working directory, home,
temp dirs, the file tools' roots); the system's own links (``/bin -> usr/bin``) are not.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import stat
import time
from collections.abc import Sequence

_LINK, _DIR, _OTHER = 1, 2, 3
# Timestamps are only as fine as the kernel's clock tick: trust a listing once it is older.
_RACY_NS = 2_000_000_000
_MAX_ENTRIES = 4096  # larger directories are asked entry by entry
_MAX_DIRS = 1024
_MAX_GLOB_LANDINGS = 64

Listing = dict[str, int]


def scan(directory: str) -> Listing | None:
    """The directory's entries by kind, as they are now; None past _MAX_ENTRIES or unreadable."""
    entries: Listing = {}
    try:
        with os.scandir(directory) as found:
            for count, entry in enumerate(found):
                if count >= _MAX_ENTRIES:
                    return None
                if entry.is_symlink():
                    entries[entry.name] = _LINK
                else:
                    entries[entry.name] = _DIR if entry.is_dir(follow_symlinks=False) else _OTHER
    except OSError:
        return None
    return entries


class LinkFinder:
    """Finds where absolute normalised paths land, with listings cached per directory."""

    def __init__(self, areas: Sequence[str]) -> None:
        ordered = sorted(set(areas), key=len, reverse=True)
        self._prefixes = tuple((a, a.rstrip("/") + "/") for a in ordered)
        self._any_prefix = tuple(prefix for _, prefix in self._prefixes)
        self._is_real = {a: os.path.realpath(a) == a for a in ordered}
        self._listings: dict[str, tuple[tuple[int, int, int], Listing]] = {}
        # The links of each cached listing (keyed by the listing's identity, kept alive with it).
        self._link_names: dict[int, tuple[Listing, frozenset[str]]] = {}

    def walk(self) -> Walk:
        """A view for one check: each directory is looked at once, each path resolved once."""
        return Walk(self)

    def listing(self, directory: str) -> Listing | None:
        """The directory's entries by kind, or None when it must be asked entry by entry."""
        try:
            st = os.stat(directory)
        except (OSError, ValueError):
            return None
        # The change time too: a caller can set a folder's modification time back (`touch -d`).
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        cached = self._listings.get(directory)
        if cached is not None and cached[0] == key:
            return cached[1]
        if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < _RACY_NS:
            return None
        entries = scan(directory)
        if entries is None:
            return None
        if len(self._listings) >= _MAX_DIRS:
            self._listings.clear()
            self._link_names.clear()
        self._listings[directory] = (key, entries)
        return entries


class Walk:
    """One check's view of the file system (see :meth:`LinkFinder.walk`)."""

    __slots__ = ("_dirs", "_finder", "_landed")

    def __init__(self, finder: LinkFinder) -> None:
        self._finder = finder
        self._dirs: dict[str, Listing | None] = {}
        self._landed: dict[str, str | None] = {}

    def links_in(self, directory: str) -> frozenset[str] | None:
        """The names of the symbolic links in ``directory``; None when it cannot be listed now."""
        listing = self._listing(directory)
        if listing is None:
            return None
        found = self._finder._link_names.get(id(listing))
        if found is None or found[0] is not listing:
            found = self._finder._link_names[id(listing)] = (
                listing,
                frozenset(n for n, kind in listing.items() if kind == _LINK),
            )
        return found[1]

    def names_landing_elsewhere(self, directory: str) -> frozenset[str] | None:
        """The plain names in ``directory`` (normalised, absolute) that land elsewhere than
        ``directory/name``: its symbolic links, when :meth:`landing` of ``directory/name`` can
        find no other link (none on the way to it, its area not itself behind one). None when
        that cannot be said from one listing: then each name must be asked (:meth:`landing`)."""
        finder = self._finder
        inside = directory.rstrip("/") + "/"
        area = next((a for a, prefix in finder._prefixes if inside.startswith(prefix)), None)
        if area is None:
            return frozenset()  # outside every area: nothing there is followed
        if not finder._is_real[area] or self.landing(directory) is not None:
            return None
        links = self.links_in(directory)
        if links is None:
            # Changed too recently to keep a listing (see LinkFinder.listing): one listing now
            # says what asking each name now would say.
            listing = scan(directory)
            return None if listing is None else frozenset(n for n, kind in listing.items() if kind == _LINK)
        return links

    def is_link(self, directory: str, name: str) -> bool:
        """Whether ``directory/name`` (a real directory) is a symbolic link."""
        return self._kind(directory, name) == _LINK

    def hard_linked(self, path: str) -> bool:
        """Whether ``path`` (absolute, normal, inside the areas) is a regular file with more than
        one name (hard links): another name may be a secret's. Only an entry its directory lists
        as a file or a link is asked (one stat; nothing for flags and names that do not exist)."""
        if not path.startswith(self._finder._any_prefix):
            return False
        directory, name = posixpath.split(path)
        if not name or self._kind(directory, name) not in (_OTHER, _LINK):
            return False
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            return False
        return stat.S_ISREG(info.st_mode) and info.st_nlink > 1

    def landing(self, path: str) -> str | None:
        """The real path of ``path`` when a symbolic link is on its way; None when there is
        none (or the path stops existing first, or lies outside the areas)."""
        landed = self._landed
        if path in landed:
            return landed[path]
        if not path.startswith(self._finder._any_prefix):
            return None
        found = landed[path] = self._resolve(path)
        return found

    def leads_to(self, path: str) -> str:
        """Where ``path`` (absolute, normal) leads: :meth:`landing` inside the areas (a link the
        area itself sits behind keeps its spelling there: `~` stays `~`), the real path outside."""
        if path.startswith(self._finder._any_prefix):
            return self.landing(path) or path
        return os.path.realpath(path)

    def landings(self, normal: str, raw: str) -> list[str]:
        """Every real path a word reaches when that differs from ``normal``: through links
        (``..`` after a link climbs from the link's target, as the kernel does) and every
        existing match of its glob characters (first 64, inside the areas)."""
        if "*" in raw or "?" in raw or "[" in raw:
            if not self._finder._any_prefix or not raw.startswith(self._finder._any_prefix):
                return []
            import glob as globbing  # noqa: PLC0415  (a start-up import otherwise: few words are globs)

            found = []
            # The pattern where its literal head lands: `hl/*` with `hl -> ~` is `~/*` to rm, which
            # its matches one by one (`~/notes.txt`, ...) would never say.
            parts = raw.split("/")
            first = next(i for i, part in enumerate(parts) if any(c in part for c in "*?["))
            head = "/".join(parts[:first])
            head_landing = self.landing(posixpath.normpath(head)) if head.rstrip("/") else None
            if head_landing is not None:
                # Normalised as the word itself is (`hl/*/` and `hl/*/.` are `~/*`: a class glob
                # has no trailing `/` or `.` component).
                found.append(posixpath.normpath("/".join([head_landing.rstrip("/"), *parts[first:]])))
            # A `..` after a folder that does not exist yet (`mkdir x && cat x/../.en?`): the shell
            # globs the word once the folder is made, so the glob is read where `..` leads too.
            spellings = [raw, normal] if normal != raw and ".." in raw.split("/") else [raw]
            matches = itertools.chain.from_iterable(globbing.iglob(s) for s in spellings)
            for i, match in enumerate(matches):
                if i >= _MAX_GLOB_LANDINGS:
                    break
                clean = posixpath.normpath(match)
                found.append(self.landing(clean) or clean)
            return found
        if ".." in raw and ".." in raw.split("/") and self._linked_before_dotdot(raw):
            real = os.path.realpath(raw)
            return [real] if real != normal else []
        linked = self.landing(normal)
        return [linked] if linked is not None else []

    def _linked_before_dotdot(self, raw: str) -> bool:
        parts = raw.split("/")
        for i, part in enumerate(parts):
            if part == ".." and i > 1 and self.landing(posixpath.normpath("/".join(parts[:i]))) is not None:
                return True
        return False

    def _resolve(self, path: str) -> str | None:
        finder = self._finder
        area = ""
        for area, prefix in finder._prefixes:  # noqa: B007 -- the first area holding the path
            if path.startswith(prefix):
                break
        if not finder._is_real[area]:
            real = os.path.realpath(path)
            return real if real != path else None
        current = area
        for part in path[len(area) :].strip("/").split("/"):
            kind = self._kind(current, part)
            if kind == _LINK:
                real = os.path.realpath(path)
                return real if real != path else None
            if kind != _DIR:
                return None
            current = f"{current.rstrip('/')}/{part}"
        return None

    def _listing(self, directory: str) -> Listing | None:
        dirs = self._dirs
        if directory in dirs:
            return dirs[directory]
        listing = dirs[directory] = self._finder.listing(directory)
        return listing

    def _kind(self, directory: str, name: str) -> int | None:
        dirs = self._dirs
        listing = dirs[directory] if directory in dirs else self._listing(directory)
        if listing is not None:
            return listing.get(name)
        try:
            mode = os.lstat(f"{directory.rstrip('/')}/{name}").st_mode
        except (OSError, ValueError):
            return None
        return _LINK if stat.S_ISLNK(mode) else _DIR if stat.S_ISDIR(mode) else _OTHER


def case_folded(path: str, base: str = "/") -> str:
    """Where ``path`` (absolute, normalised, inside ``base``) lands on a file system that ignores
    case (macOS, Windows, a casefold folder): each component below ``base`` as the entry of its
    folder that differs from it only in case, and from the first that has none, in lower case
    (the engine's own names are: `HERMES-ENGINE.YML` is its config there)."""
    root = base.rstrip("/")
    if not path.startswith(root + "/"):
        return path
    current = root
    listing = True
    for part in path[len(root) + 1 :].split("/"):
        name = part.lower()
        if listing and part:
            try:
                names = os.listdir(current or "/")
            except (OSError, ValueError):
                names = []
            folded = part.casefold()
            found = part if part in names else next((n for n in names if n.casefold() == folded), None)
            listing = found is not None  # nothing below a folder that does not exist
            name = found or name
        current = f"{current}/{name}"
    return current
