"""Second names made on the line: `ln -s TARGET NAME`, `cp -s`, `mount --bind`.

Later words through NAME are judged as TARGET (`ln -sfn ~ hl; rm -rf hl/*` is `rm -rf ~/*`),
and so is a `cd` into it. rm, unlink and mv given the link's own name act on the link
itself; through `hl/` or `hl/x` they reach what it points to.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath

from engine.policy.argv import Grammar, parse_argv
from engine.policy.commands import command_name
from engine.policy.follow import join_path

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from engine.policy.shell import Command

# Programs that make a second name for a file or directory.
LINKERS = frozenset({"ln", "cp", "mount"})
_ON_THE_LINK = frozenset({"rm", "unlink", "mv"})
# What a link made to a target known only at run time leads to (a program named by it is any program).
UNKNOWN_TARGET = "$unknown"

# Recursive readers that follow the symbolic links in the tree they walk, by the options that make
# them follow (`grep -R`, `rg -L`, `tar -h`, `cp -L`): a link in the tree to `~/.ssh` is read as
# `~/.ssh` (`-r` of grep, `tar c`, `cp -r` keep a link as a link). scp -r follows always.
FOLLOWING: dict[str, frozenset[str]] = {
    "grep": frozenset({"R", "dereference-recursive"}),
    "egrep": frozenset({"R", "dereference-recursive"}),
    "fgrep": frozenset({"R", "dereference-recursive"}),
    "ugrep": frozenset({"R", "dereference-recursive"}),
    "rg": frozenset({"L", "follow"}),
    "ag": frozenset({"f", "follow"}),
    "tar": frozenset({"h", "dereference"}),
    "gtar": frozenset({"h", "dereference"}),
    "bsdtar": frozenset({"h", "L", "dereference"}),
    "cp": frozenset({"L", "dereference"}),
    "gcp": frozenset({"L", "dereference"}),
    "rsync": frozenset({"L", "copy-links", "copy-unsafe-links", "k", "copy-dirlinks"}),
    "find": frozenset({"L", "follow"}),
    "gfind": frozenset({"L", "follow"}),
    "bfs": frozenset({"L", "follow"}),
    "du": frozenset({"L", "dereference"}),
    "scp": frozenset({"r"}),
}
# ... and those that follow them unless told not to (`zip -r` stores what a link leads to; `-y` the link;
# `diff -rN src empty` prints every file a link in src leads to, `--no-dereference` compares the links).
FOLLOWING_UNLESS: dict[str, frozenset[str]] = {
    "diff": frozenset({"no-dereference"}),
    "gdiff": frozenset({"no-dereference"}),
    "zip": frozenset({"y", "symlinks"}),
    "7z": frozenset({"snl"}),
    "7za": frozenset({"snl"}),
    "7zz": frozenset({"snl"}),
}
FOLLOWERS = frozenset(FOLLOWING) | frozenset(FOLLOWING_UNLESS)
_MAX_FOLLOWED = 16  # readings of one reader through the links made on the line


# Recursive readers and changers, by the options that make them recursive (none: always). A word of
# theirs that names a folder holding HOME walks HOME; a glob word of theirs may name a link at run
# time (`grep -r x src/*/` with `src/up -> ../..`): read as where the link leads (see tree_landings).
RECURSIVE: dict[str, frozenset[str]] = {
    "grep": frozenset({"r", "R", "recursive", "dereference-recursive"}),
    "egrep": frozenset({"r", "R", "recursive", "dereference-recursive"}),
    "fgrep": frozenset({"r", "R", "recursive", "dereference-recursive"}),
    "ugrep": frozenset({"r", "R", "recursive", "dereference-recursive"}),
    "rg": frozenset(),
    "ag": frozenset(),
    "diff": frozenset({"r", "recursive"}),
    "cp": frozenset({"r", "R", "a", "recursive", "archive"}),
    "du": frozenset(),
    "tar": frozenset(),
    "rsync": frozenset({"r", "a", "recursive", "archive"}),
    "zip": frozenset({"r", "recurse-paths"}),
    "scp": frozenset({"r"}),
    "chmod": frozenset({"R", "recursive"}),
    "chown": frozenset({"R", "recursive"}),
    "chgrp": frozenset({"R", "recursive"}),
    "rm": frozenset({"r", "R", "recursive"}),
    "ls": frozenset({"R", "recursive"}),
    "find": frozenset(),
}
_MAX_GLOB_MATCHES = 64


def recursive_words(command: Command) -> list[int]:
    """The indices of the words (no option) of a recursive reader or changer (RECURSIVE), or none."""
    follows = RECURSIVE.get(command.name)
    if follows is None:
        return []
    words, present = _words_and_options(command.name, command.argv)
    return words if not follows or not present.isdisjoint(follows) else []


def _words_and_options(name: str, argv: tuple[str, ...]) -> tuple[list[int], set[str]]:
    """The indices of the words of ``argv`` that are no option, and its options read letter by
    letter and whole (`-follow` of find, `-snl` of 7z, `tar chf`: the old bundle without a dash)."""
    words: list[int] = []
    present: set[str] = set()
    ended = False
    for i, word in enumerate(argv[1:], 1):
        if ended or word == "-" or not word.startswith("-"):
            words.append(i)
            if i == 1 and name in ("tar", "gtar", "bsdtar") and word.isalpha():
                present.update(word)  # `tar chf x src`
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            present.add(word[2:].split("=", 1)[0])
        else:
            present.update(word[1:])
            present.add(word[1:])  # `-follow` (find), `-snl` (7z)
    return words, present


def tree_landings(word: str, cwd: str, home: str, on_the_link: bool) -> list[str] | None:
    """Where a recursive reader's ``word`` (read in ``cwd``) reaches beyond what it spells: a glob
    matching links on disk (`src/*/`, `src/?`, first _MAX_GLOB_MATCHES: None past them) reads where
    each leads, and a folder holding HOME (`..` from a sibling of HOME, `src/up/` with `up -> ../..`)
    reads HOME. ``on_the_link``: rm given the link's own name (no `/` after it) acts on the link."""
    if word.startswith("-") or "$" in word:
        return []
    if word == "~" or word.startswith("~/"):
        path = home + word[1:]
    elif word.startswith("~"):
        return []
    else:
        path = posixpath.join(cwd, word)
    matches: list[str] = []
    if _GLOB_CHARS.isdisjoint(path):
        # no glob: a link it names is read where it lands by the paths walk; only a folder holding
        # HOME is said here, from the text alone (no system call on a check's common path)
        plain = posixpath.normpath(path)
        if plain == "/" or home.startswith(plain.rstrip("/") + "/"):
            return [home]
        if word.startswith(("/", "~")) or not _through_disk_link(cwd, word):
            return []
        matches.append(path)  # `src/up/` (a brace's word) with `src/up -> ../..` on disk
    else:
        import glob as globbing  # noqa: PLC0415  (few words are globs)

        for n, match in enumerate(globbing.iglob(path)):
            if n >= _MAX_GLOB_MATCHES:
                return None
            matches.append(match)
    out: list[str] = []
    for match in matches:
        plain = posixpath.normpath(match)
        if on_the_link and not match.endswith("/") and os.path.islink(plain):
            continue
        real = os.path.realpath(plain)
        if real != plain:
            out.append(real)  # through a link
        if (real == "/" or home.startswith(real.rstrip("/") + "/")) and os.path.isdir(real):
            out.append(home)  # a folder holding HOME: the walk reads HOME
    return list(dict.fromkeys(out))


def _through_disk_link(cwd: str, word: str) -> bool:
    """Whether a relative ``word`` passes a symbolic link on disk in its own first components
    (those of ``cwd`` are the working directory's: not looked at)."""
    at = cwd
    for n, part in enumerate(word.split("/")):
        if part in ("", "."):
            continue
        if part == ".." or n >= 8:
            return False
        at = posixpath.join(at, part)
        if os.path.islink(at):
            return True
    return False


def _below(name: str, folder: str) -> bool:
    """Whether the file key ``name`` lies below ``folder`` (a file key: `.` is the working directory)."""
    if folder == ".":
        return not name.startswith(("/", "~", "../")) and name != ".."
    return name.startswith(folder.rstrip("/") + "/")


def followed_words(command: Command) -> list[int]:
    """The indices of the words of ``command`` a link-following recursive reader may walk (its
    words that are no option: a pattern or an archive's name too, which walks nothing), or none
    when it is not one (FOLLOWING, FOLLOWING_UNLESS). Its options are read both ways: as its
    grammar reads them, and letter by letter (`tar chf`: the old bundle without a dash too)."""
    name = command.name
    if name not in FOLLOWERS:
        return []
    argv = command.argv
    words, present = _words_and_options(name, argv)
    program = command.program
    if program is not None:
        present.update(option for option, _, _ in parse_argv(program.grammar, list(argv)).options)
    follows = FOLLOWING.get(name)
    if follows is not None:
        return words if not present.isdisjoint(follows) else []
    return [] if not present.isdisjoint(FOLLOWING_UNLESS[name]) else words


class LinkFollower:
    """Mixin of the analyzer: records links made on the line and reads words through them."""

    links: dict[str, str]  # NAME (as a file key) -> TARGET
    cwd: str | None

    def _file_key(self, word: str) -> str:
        raise NotImplementedError

    def _record_link(self, command: Command) -> None:
        """`ln -s TARGET NAME`, `cp -s`, `mount --bind`: later words through NAME mean TARGET."""
        program = command.program
        if program is None:
            return
        # A target known only at run time (`ln -s "$(which rm)" x`): the name leads anywhere.
        unknown = {w for w, d in zip(command.argv, command.dynamic, strict=False) if d}
        parsed = parse_argv(program.grammar, command.argv)
        present = {name for name, _, _ in parsed.options}
        if command.name == "cp" and not present & {"s", "l"}:
            return
        if command.name == "mount" and not present & {"bind", "rbind", "B", "R"}:
            return
        operands = parsed.all_operands(command.argv)
        # ln and cp -t DIR (mount's -t is a filesystem type).
        directories = parsed.values(frozenset({"t"})) if command.name != "mount" else []
        directory = directories[0] if directories else None
        if directory is not None:
            pairs = [(target, posixpath.join(directory, posixpath.basename(target.rstrip("/")))) for target in operands]
        elif len(operands) == 1:
            pairs = [(operands[0], posixpath.basename(operands[0].rstrip("/")) or operands[0])]
        elif len(operands) >= 2:
            *targets, last = operands
            if len(targets) > 1 or last.endswith("/"):
                pairs = [(t, posixpath.join(last, posixpath.basename(t.rstrip("/")))) for t in targets]
            else:
                pairs = [(targets[0], last)]
        else:
            return
        for target, name in pairs:
            if name in unknown or (directory is not None and directory in unknown):
                continue
            if target in unknown:
                self.links[self._file_key(name)] = UNKNOWN_TARGET
                continue
            resolved = target if target.startswith(("/", "~")) else join_path(self.cwd, target)
            self.links[self._file_key(name)] = self._through_link(resolved)

    def _from_link_folder(self, argv: list[str], dynamic: list[bool], grammar: Grammar) -> list[str]:
        """`ln -s TARGET NAME` (not -r): the link reads a relative TARGET from NAME's folder, not
        the working directory (`ln -s ../../home/.ssh src/k` leads to `../home/.ssh` from here).
        The argv with each such TARGET as the path it names from the working directory, so the
        line is judged (and the link remembered) where it leads."""
        parsed = parse_argv(grammar, argv)
        present = {name for name, _, _ in parsed.options}
        if "s" not in present or present & {"r", "relative"} or parsed.rest is not None:
            return argv
        at = parsed.operand_at
        directories = parsed.values(frozenset({"t"}))
        if directories:
            folder: str | None = directories[0]
            targets = at
        elif len(at) >= 2:
            targets = at[:-1]
            last = argv[at[-1]]
            # NAME is a folder's link (`ln -s a b dir/`, several TARGETs), else its own folder.
            folder = last if len(targets) > 1 or last.endswith("/") else posixpath.dirname(last)
            if dynamic[at[-1]]:
                return argv
        else:
            return argv
        if not folder or folder.rstrip("/") in ("", ".") or "$" in folder or any(dynamic[i] for i in targets):
            return argv
        out = list(argv)
        for i in targets:
            target = argv[i]
            if target and not target.startswith(("/", "~")):
                out[i] = posixpath.normpath(posixpath.join(folder, target))
        return out

    def _into_folder(self, argv: list[str], dynamic: list[bool], grammar: Grammar) -> list[str] | None:
        """`ln -s ../../home/.ssh src` where `src` may be a folder (the text cannot say): the link is
        then `src/.ssh`, its target read from `src`. That reading's argv (`src/`), for a relative
        TARGET that climbs (`..`); None for any other line."""
        parsed = parse_argv(grammar, argv)
        present = {name for name, _, _ in parsed.options}
        at = parsed.operand_at
        if "s" not in present or present & {"r", "relative", "t", "T"} or parsed.rest is not None or len(at) != 2:
            return None
        target, last = argv[at[0]], argv[at[1]]
        if dynamic[at[0]] or dynamic[at[1]] or last.endswith("/") or target.startswith(("/", "~")):
            return None
        if ".." not in target.split("/"):
            return None
        out = list(argv)
        out[at[1]] = last + "/"
        return out

    def _tree_links(self, command: Command) -> list[list[str]]:
        """A link-following recursive reader (followed_words) of a tree holding links made on the
        line: its argv with each word it walks replaced by each target of a link below that word
        (and of links below those targets), up to _MAX_FOLLOWED."""
        out: list[list[str]] = []
        argv = command.argv
        for i in followed_words(command):
            if command.dynamic[i]:
                continue
            key = self._file_key(argv[i])
            pending = [key]
            seen = {key}
            while pending and len(out) < _MAX_FOLLOWED:
                folder = pending.pop()
                for name, target in self.links.items():
                    if target not in seen and _below(name, folder):
                        seen.add(target)
                        pending.append(target)
                        out.append([*argv[:i], target, *argv[i + 1 :]])
        return out

    def _through_links(self, argv: list[str]) -> list[str]:
        # rm, unlink and mv act on a link named by itself (`rm -rf hl` removes the link); through
        # `hl/` or `hl/x` they reach what it points to.
        final = command_name(argv[0]) not in _ON_THE_LINK
        out = [
            self._through_link(word, final) if i == 0 or not word.startswith("-") else word
            for i, word in enumerate(argv)
        ]
        if "/" in argv[0] and "/" not in out[0]:
            # `ln -s a.sh b; ./b` runs the file a.sh, not a command of that name found on PATH (adv30)
            out[0] = "./" + out[0]
        return out

    def _through_link(self, word: str, final: bool = True) -> str:
        key = self._file_key(word) if word else word
        for name, target in self.links.items():
            if key == name and (final or word.endswith("/")):
                return target + ("/" if word.endswith("/") and not target.endswith("/") else "")
            if key.startswith(name + "/"):
                return target.rstrip("/") + key[len(name) :]
        if self.links and not _GLOB_CHARS.isdisjoint(key):
            return _globbed_link(key, word, self.links, final)
        return word


_GLOB_CHARS = frozenset("*?[")


def _globbed_link(key: str, word: str, links: dict[str, str], final: bool) -> str:
    """A glob word that may name a link at run time (`src/*/` with `src/up -> ../..`, `cat
    src/*/.ssh/id_*`, `grep -r x src/*`): read through the first link a leading part of it can
    match, component by component (the walk the shell's expansion makes; a dot-name matches only a
    dot-pattern). rm, unlink and mv (``final`` False) given the link's own name act on the link."""
    parts = key.rstrip("/").split("/")
    for name, target in links.items():
        named = name.split("/")
        if len(named) > len(parts) or (len(named) == len(parts) and not final and not word.endswith("/")):
            continue
        if all(_component_matches(n, p) for n, p in zip(named, parts, strict=False)):
            rest = "/".join(parts[len(named) :])
            through = target.rstrip("/") + ("/" + rest if rest else "")
            return through + ("/" if word.endswith("/") and not through.endswith("/") else "")
    return word


def _component_matches(name: str, pattern: str) -> bool:
    if _GLOB_CHARS.isdisjoint(pattern):
        return name == pattern
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)
