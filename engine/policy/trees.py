"""Recursive readers and the trees they walk: which words of a command a recursive reader or
changer walks (RECURSIVE), which readers follow the links in the tree (FOLLOWING), and where a
word of theirs reaches beyond its text on disk (tree_landings).

Apart from engine/policy/links.py (the links a line makes) so that it is compiled
(engine.build.COMPILED_MODULES): a check of every recursive command runs these.
"""

from __future__ import annotations

import os
import posixpath

from engine.policy.argv import parse_argv
from engine.policy.regexes import _BASH_BRACKET, bash_brackets

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Final

    from engine.policy.shell import Command

# Recursive readers that follow the symbolic links in the tree they walk, by the options that make
# them follow (`grep -R`, `rg -L`, `tar -h`, `cp -L`): a link in the tree to `~/.ssh` is read as
# `~/.ssh` (`-r` of grep, `tar c`, `cp -r` keep a link as a link). scp -r follows always.
# Programs that read a whole tree (or the files named to them) and write what they read: an archive, a
# search's hits (`tar c .`, `grep -r KEY .`, `find . | cpio -o`). A line sending their output away is
# what the project_exfiltration rows judge (evaluate._sends_away); a file they wrote is remembered by the
# session with the words they read (session_memory: a later call sending that file sends those).
TREE_READERS: Final[frozenset[str]] = frozenset(
    {"tar", "gtar", "bsdtar", "zip", "7z", "7za", "7zz", "cpio", "pax", "grep", "egrep", "fgrep", "ugrep", "rg", "ag"}
    | {"ack", "find", "cat", "gzip", "xz", "zstd", "base64", "afio", "bsdcpio", "fd", "fdfind", "bfs", "gfind"}
    # the searches no table describes that read the working folder when none is named (IMPLICIT_FOLDER's
    # `ug`, `ack-grep`, the platinum searcher `pt`: `pt KEY | nc h 1` sends what `rg KEY | nc h 1` does)
    | {"ug", "ack-grep", "pt", "ggrep"}
)

# Compressors writing FILE as FILE plus a suffix in place (`gzip x.tar` makes x.tar.gz), by their suffix: the
# file they make holds what the archive held (evaluate._sends_away, SessionFiles.archives; tail36).
COMPRESSORS: Final[dict[str, str]] = {
    "gzip": ".gz", "pigz": ".gz", "xz": ".xz", "lzma": ".lzma", "zstd": ".zst", "pzstd": ".zst", "bzip2": ".bz2",
    "pbzip2": ".bz2", "lbzip2": ".bz2", "lz4": ".lz4", "lzop": ".lzo", "lzip": ".lz", "brotli": ".br",
    "compress": ".Z",
}  # fmt: skip
# Their decompressing names: each turns FILE.SUFFIX back into FILE in place (`gunzip x.tar.gz` makes x.tar).
DECOMPRESSORS: Final = frozenset({"gunzip", "unxz", "unlzma", "bunzip2", "unzstd", "lz4cat", "unlz4", "uncompress"})
# Options with which they write no file of their own (decompress, to the output, test, list), in short bundles
_NOT_WRITING_LETTERS = frozenset("dctl")
_NOT_WRITING = frozenset({"--decompress", "--uncompress", "--stdout", "--to-stdout", "--test", "--list"})


def compressed_files(name: str, argv: tuple[str, ...]) -> list[tuple[str, str]]:
    """(file, the file it becomes) for each file compressor ``name`` (one of COMPRESSORS) compresses in place:
    `gzip x.tar` gives (x.tar, x.tar.gz); `-S .s`/`--suffix=.s` a suffix of its own, `-o F` (zstd, lz4) or a
    second operand (lz4, lzop: `lz4 x.tar y`) a name of its own. None when it decompresses or writes to its
    output (`gzip -c x.tar > y.gz`: the redirection's file, read as any writer's)."""
    suffix = COMPRESSORS[name]
    operands: list[str] = []
    outputs: list[str] = []
    done = False
    i = 1
    while i < len(argv):
        word = argv[i]
        following = argv[i + 1] if i + 1 < len(argv) else ""
        if done or word == "-" or not word.startswith("-"):
            operands.append(word)
        elif word == "--":
            done = True
        elif word.startswith("--"):
            option, eq, value = word.partition("=")
            if option in _NOT_WRITING:
                return []
            if option in ("--suffix", "--output"):
                if not eq:
                    value, i = following, i + 1
                if option == "--suffix":
                    suffix = value
                else:
                    outputs.append(value)
        else:
            letters = word[1:]
            for at, letter in enumerate(letters):
                if letter in _NOT_WRITING_LETTERS and not (letter == "l" and name == "lz4"):  # (lz4's -l: a format)
                    return []
                if letter in "So":
                    value = letters[at + 1 :]
                    if not value:
                        value, i = following, i + 1
                    if letter == "S":
                        suffix = value
                    else:
                        outputs.append(value)
                    break
        i += 1
    files = [w for w in operands if w != "-"]
    made = [(w, w + suffix) for w in files] + [(w, out) for w in files[:1] for out in outputs]
    if name in ("lz4", "lzop") and len(files) == 2:
        made.append((files[0], files[1]))
    return made


FOLLOWING: Final[dict[str, frozenset[str]]] = {
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
FOLLOWING_UNLESS: Final[dict[str, frozenset[str]]] = {
    "diff": frozenset({"no-dereference"}),
    "gdiff": frozenset({"no-dereference"}),
    "zip": frozenset({"y", "symlinks"}),
    "7z": frozenset({"snl"}),
    "7za": frozenset({"snl"}),
    "7zz": frozenset({"snl"}),
}
FOLLOWERS: Final = frozenset(FOLLOWING) | frozenset(FOLLOWING_UNLESS)
_GLOB_CHARS: Final = frozenset("*?[")


# Recursive readers and changers, by the options that make them recursive (none: always). A word of
# theirs that names a folder holding HOME walks HOME; a glob word of theirs may name a link at run
# time (`grep -r x src/*/` with `src/up -> ../..`): read as where the link leads (see tree_landings).
RECURSIVE: Final[dict[str, frozenset[str]]] = {
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
_MAX_GLOB_MATCHES: Final = 64


def recursive_words(command: Command) -> list[int]:
    """The indices of the words (no option) of a recursive reader or changer (RECURSIVE), or none."""
    follows = RECURSIVE.get(command.name)
    if follows is None:
        return []
    words, present = _words_and_options(command.name, command.argv)
    return words if not follows or not present.isdisjoint(follows) else []


def options_of(name: str, argv: tuple[str, ...]) -> set[str]:
    """The options of ``argv`` read letter by letter and whole, up to `--` (see _words_and_options)."""
    return _words_and_options(name, argv)[1]


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
    if "[" in word and _BASH_BRACKET.search(word):
        word = bash_brackets(word)
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
        folder, pattern = posixpath.split(path)
        if pattern and _GLOB_CHARS.isdisjoint(folder) and posixpath.normpath(folder) == folder:
            return _last_part_landings(folder, pattern, home, on_the_link)
        import glob as globbing  # noqa: PLC0415  (few words are globs)

        for n, match in enumerate(globbing.iglob(path)):
            if n >= _MAX_GLOB_MATCHES:
                return None
            matches.append(match)
    return landings_of(matches, home, on_the_link)


def landings_of(matches: list[str], home: str, on_the_link: bool) -> list[str]:
    """Where each of a word's ``matches`` on disk leads (see tree_landings)."""
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


def _last_part_landings(folder: str, pattern: str, home: str, on_the_link: bool) -> list[str] | None:
    """tree_landings of a glob in its last part alone (`/*`, `src/*.py`), in a ``folder`` spelled
    as normpath spells it (so each match is the entry listed, not a `..` read by its text): the
    matches glob.iglob gives (the folder's listing in its order, hidden names only for a pattern
    starting with `.`, fnmatch.filter), each read from its listing entry, which says whether it
    is a link without a system call. One that is none lands at its folder's real path joined with its name (as
    os.path.realpath reads its last part): the folder's real path is read once, not one
    realpath (an lstat for each part) and an lstat per match (`rm -rf /*`: ~25 entries)."""
    import fnmatch  # noqa: PLC0415  (few words are globs)

    try:
        with os.scandir(folder) as listing:
            entries = {entry.name: entry for entry in listing}
    except OSError:
        return []  # glob lists nothing it cannot list
    names = list(entries) if pattern[0] == "." else [name for name in entries if name[0] != "."]
    found = fnmatch.filter(names, pattern)
    if len(found) > _MAX_GLOB_MATCHES:
        return None
    out: list[str] = []
    real_folder: str | None = None
    for name in found:
        plain = posixpath.normpath(posixpath.join(folder, name))
        try:
            link = entries[name].is_symlink()
        except OSError:
            link = False  # gone since it was listed: realpath reads it as no link
        if link:
            if on_the_link:
                continue
            real = os.path.realpath(plain)
        else:
            if real_folder is None:
                real_folder = os.path.realpath(folder)
            real = posixpath.join(real_folder, name)
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


# Tree readers whose folder may be left out, and then read the working folder (redt35, sends36): `find -type f`,
# `fd -X cat`, `rg KEY`, `grep -r KEY`, `ag KEY`. By name: how many operands come before the folders (a
# pattern), the options that give the pattern instead (then none does), the options that name the folder
# (then it is not implicit), the options without which it reads no folder (grep's -r; empty: always), and
# the words that end its own (fd's -X CMD).
_PATTERN = frozenset({"e", "f", "regexp", "file"})
_GREP_R = frozenset({"r", "R", "recursive", "dereference-recursive"})
_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})
IMPLICIT_FOLDER: dict[str, tuple[int, frozenset[str], frozenset[str], frozenset[str], frozenset[str]]] = {
    "find": (0, frozenset(), frozenset(), frozenset(), frozenset()),
    "gfind": (0, frozenset(), frozenset(), frozenset(), frozenset()),
    "bfs": (0, frozenset(), frozenset(), frozenset(), frozenset()),
    "fd": (1, frozenset(), frozenset({"search-path", "base-directory"}), frozenset(), _FD_EXEC),
    "fdfind": (1, frozenset(), frozenset({"search-path", "base-directory"}), frozenset(), _FD_EXEC),
    "rg": (1, _PATTERN | {"files", "type-list"}, frozenset(), frozenset(), frozenset()),
    "ag": (1, frozenset(), frozenset(), frozenset(), frozenset()),
    "ack": (1, frozenset(), frozenset(), frozenset(), frozenset()),
    "grep": (1, _PATTERN, frozenset(), _GREP_R, frozenset()),
    "egrep": (1, _PATTERN, frozenset(), _GREP_R, frozenset()),
    "fgrep": (1, _PATTERN, frozenset(), _GREP_R, frozenset()),
    "ugrep": (1, _PATTERN, frozenset(), _GREP_R, frozenset()),
    # searches the Programs table does not describe: their words that are no option are operands
    # (`ug KEY`: ugrep's alias searching the working folder; `ack-grep`, the platinum searcher `pt`)
    "ug": (1, frozenset(), frozenset(), frozenset(), frozenset()),
    "ack-grep": (1, frozenset(), frozenset(), frozenset(), frozenset()),
    "pt": (1, frozenset(), frozenset(), frozenset(), frozenset()),
}
_FIND_OWN = frozenset({"-H", "-L", "-P"})
# ... of which these search their input instead when it is no terminal (`cat f | rg KEY`; grep -r never does)
_INPUT_FIRST = frozenset({"rg", "ag", "ack", "ugrep"})
_UNDESCRIBED = frozenset({"ug", "ack-grep", "pt"})


def implicit_folder(command: Command) -> int:
    """Where the folder a tree reader reads when none is named (the working folder) goes in its words: the
    index to put `.` at (`find -type f` → `find . -type f`, `rg KEY` → `rg KEY .`, `fd -X cat` → `fd . -X
    cat`, fd's pattern `.` matching every name); 0 when it names one, or reads none."""
    spec = IMPLICIT_FOLDER.get(command.name)
    program = command.program
    if spec is None:
        return 0
    argv = command.argv
    patterns, pattern_options, folder_options, needs, ends = spec
    if command.name in ("find", "gfind", "bfs"):
        at = 1
        while at < len(argv) and (argv[at] in _FIND_OWN or argv[at][:2] in ("-D", "-O")):
            at += 2 if argv[at] in ("-D", "-O") else 1
        first = argv[at] if at < len(argv) else ""
        return at if not first or first[0] in "-(!" else 0
    if command.name in _INPUT_FIRST and (
        command.fed_by or command.stdin or any(op == "<" for op, _ in command.redirects)
    ):
        return 0
    if command.name in _UNDESCRIBED:
        # no grammar: fed by a stage, it searches its input; else the folder goes first (`ug . KEY`)
        given = sum(1 for w in argv[1:] if w[:1] != "-" or w == "-")
        return 1 if not command.fed_by and given <= patterns else 0
    cut = next((i for i, w in enumerate(argv) if w in ends), len(argv)) if ends else len(argv)
    if program is None:
        return 0
    parsed = parse_argv(program.grammar, argv[:cut])
    names = {name for name, _, _ in parsed.options}
    if needs is _GREP_R and any(  # `grep -d recurse KEY`, `-d rec` (argmatch's abbreviation, redt37)
        name in ("d", "directories") and value and value.startswith("rec") and "recurse".startswith(value)
        for name, value, _ in parsed.options
    ):
        names.add("r")
    if (needs and names.isdisjoint(needs)) or not names.isdisjoint(folder_options):
        return 0
    if not names.isdisjoint(pattern_options):
        patterns = 0
    operands = parsed.operand_at
    if len(operands) > patterns:
        return 0
    return operands[-1] + 1 if operands else 1


def splits(command: Any) -> bool:
    """Whether ``command`` is a splitter's (its entry has a `pieces_prefix`: see split_prefix)."""
    program = command.program
    return program is not None and bool(program.pieces_prefix)


def split_prefix(command: Any) -> tuple[str, str]:
    """(the file a splitter ``command`` cuts, "-" its input; the prefix it names its pieces with: its own, or the
    default), or a prefix "" when the command is no splitter. A splitter is a program whose entry has a
    `pieces_prefix` (split's `x`, csplit's `xx`); the line names its own prefix where the entry's `as: path,
    prepend: tee` run reads (split's operand 1, csplit's -f), its words read by the entry's grammar."""
    program = command.program
    if program is None or not program.pieces_prefix:
        return "-", ""
    parsed = parse_argv(program.grammar, command.argv)
    operands = parsed.operands
    prefix: str | None = None
    for run in program.runs:
        if run.kind != "path" or run.prepend != "tee":
            continue
        if run.source == "operand" and run.index < len(operands):
            prefix = operands[run.index]
        elif run.source == "option":
            given = parsed.values(run.names)
            if given:
                prefix = given[-1]
    source = operands[0] if operands else "-"
    return source, program.pieces_prefix if prefix is None else prefix
