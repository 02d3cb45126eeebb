"""Which classes a path-like word belongs to: root, home, block_device, credential...

Classes are declared in DangerPatterns manifests as globs over normalised paths
(``~`` for the home directory, ``**`` crossing ``/``, ``{a,b}`` alternatives, a
leading ``!`` excluding, ``\\*`` a literal star). A few classes are computed
here because no glob can express them: ``relative``, ``escapes_workdir``,
``absolute``, ``variable`` (only known at run time), ``remote`` and ``url``; and
two from the loaded project: ``engine_files`` (every file the engine's loader
reads, the engine itself and its state) and ``engine_state`` (the state dir).

On a live engine a word is judged where it lands as well as how it is spelled
(:class:`Places`): its absolute path (relative to the working directory, ``~``
for the real home), and the files it reaches through symbolic links or glob
characters. Each of those forms is judged on its own and the strictest wins.
"""

from __future__ import annotations

import bisect
import itertools
import os
import posixpath
import pwd
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from fnmatch import fnmatchcase
from functools import lru_cache

from engine.policy import gitindex
from engine.policy.landing import Depends, LinkFinder, Walk
from engine.policy.regexes import _BASH_BRACKET, Finder, Regex, RegexError, bash_brackets, compile_linear
from engine.records import FrozenRecord, Interpreted
from engine.source.project import MANIFEST_SUFFIXES

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Final

# Classes only the running engine can compute: they name this project's own files.
ENGINE_CLASSES = frozenset({"engine_files", "engine_state"})
# Every folder above one of the engine's own files: deleting or moving it away deletes or moves them.
# Not an ENGINE_CLASSES member: a word naming it need not contain an engine file's name.
ENGINE_PARENT = "engine_parent"
# Classes a word belongs to only when it holds an expansion (`$`, a backtick): the fast path
# never skips such a text, so a matcher testing only these needs no trigger.
# `computed_source`: `computed` except a substitution that only lists the working tree (see
# lists_tree): what a program that prints files reads from, when only the run says where.
# `listed` (fp48, fp49): a substitution that only lists the working tree, whose words are the entries it lists (judged
# where each lands: PathClassifier._listed; a name the line may make first is shell.Analyzer._listings_made's).
EXPANSION_CLASSES: Final = frozenset({"variable", "computed", "computed_source", "listed"})
# A regular file with more than one name (hard links): what it holds may be a secret's under
# another name (engine.policy.hardlinks checks the names for the file tools; a check of a
# terminal line does not walk the tree, so each such file is unknown).
HARD_LINKED = "hard_linked"
# A folder holding a secret file within a bounded walk, on a line that sends a tree reader's output or
# a recursive copy to another host (View._holds; the evaluator says which lines: Evaluator._match).
SECRET_HOLDER = "secret_holder"
# (home51) A declared class (policies/paths.yaml): a file of the user's outside the working tree (in a home, a
# sibling folder), read from its spelling. On a live engine a word keeps it only when it names an existing file
# (not a folder) outside the working tree, where it lands (View._user_file): writing over or deleting it destroys
# what the user had there; a new file, a folder, or a path in the tree is no such file.
USER_FILE = "user_file"
COMPUTED_CLASSES = (
    frozenset(
        {
            "relative",
            "escapes_workdir",
            "absolute",
            "remote",
            "url",
            "workdir",
            ENGINE_PARENT,
            HARD_LINKED,
            SECRET_HOLDER,
        }
    )
    | EXPANSION_CLASSES
    | ENGINE_CLASSES
)
# `parents:NAME` in a class's globs stands for every folder above a path of class NAME.
PARENTS_PREFIX = "parents:"
# Classes that say where a directory tree lives rather than what a file is: every file of a
# working directory under /opt or a home directory shares them, so inside the working
# directory they say nothing about one file (and would make every `rm x` look like
# deleting a system file).
_AREA_CLASSES = frozenset({"home_any", "system_any", "tmp"})
_MAX_GLOB_LANDINGS = 64
_GLOB_CHARS = frozenset("*?[")
# When the working directory itself is one of these, a relative path is as
# dangerous as the absolute path it names.
_CRITICAL_CWD_CLASSES = ("root", "system_top", "home_top")
_NEVER = r"\b\B"
# A plain name: nothing in it is read as a path's syntax (no `/`, `~`, `$`, glob, `:`, `@`, `=`,
# no leading dot or dash), so it names `./NAME` and nothing else (see View.classify_plain).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_MANY_TOUCHED = 256  # class matches past which classify_plain says no name in another folder is plain
_UNSURE_FOLDER = re.compile(r"[$`*?\[{\\]")  # a `cd` target the text alone does not name
_PLAIN_LINES = re.compile(r"(?m)^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")  # the lines that are a plain name
_RELATIVE = frozenset({"relative"})
_USER_FILE = frozenset({USER_FILE})


# _lines_finder's finders by their globs: every evaluator of a policy (a reload, another working
# directory, the guard's) shares them; the class globs of a policy make ~1,000 of them (~40 ms to build).
_LINES_FINDERS: dict[tuple[str, ...], Finder] = {}
_MAX_LINES_FINDERS = 64


def _lines_finder(globs: Iterable[str], *, names: bool = False) -> Finder:
    """A line that one of ``globs`` (includes; a `!` exclusion is left out) may match in full.
    ``names``: lines of names alone (_relative_finders), where a `*` or `?` stops at the line's end:
    a `*` that may run on over thousands of lines of names (no `/` ends it) made each match a
    search to the text's end (RE2 keeps the longer reading alive), quadratic in the lines."""
    key = (*dict.fromkeys(globs), "\n" if names else "")
    kept = _LINES_FINDERS.get(key)
    if kept is not None:
        return kept
    body = "|".join(glob_to_regex(g) for g in key[:-1] if not g.startswith("!"))
    if names:
        body = body.replace("[^/]", "[^/\n]")
    made = Finder(f"(?m)^(?:{body or _NEVER})$")
    if len(_LINES_FINDERS) >= _MAX_LINES_FINDERS:
        _LINES_FINDERS.clear()  # simpler than an LRU, and safe under threads
    _LINES_FINDERS[key] = made
    return made


_NESTED_BRACES = re.compile(r"\{[^}]*\{")  # braces in braces: glob_to_regex reads them otherwise
_ESCAPED_SEPARATOR = re.compile(r"\\[/{},\\]")  # an escaped character _relative_glob would split or expand at
_MAX_RELATIVE = 16  # folders whose _relative_finders are kept


def _relative_glob(glob: str, folder: str) -> list[str] | None:
    """What a class glob asks of NAME for the paths FOLDER/NAME (NAME a plain name, no `/`;
    ``folder`` printable ASCII, ending in `/`): globs, one of which NAME must match where the whole
    glob matches the whole path ([] when none may: the glob's segments spell another folder, or it
    is an exclusion, which the finders leave out); None when that cannot be said here (a `**` that
    reads part of the folder's path in another way; a `[`, an escaped `/`, brace or comma, nested braces).

    Each alternative of the glob's braces (a superset of what glob_to_regex reads) is cut at its
    `/`: the segments before NAME's must each match the folder's (`*` and `?` never cross a `/`);
    what is left is the glob of NAME (the same regex as its end in the whole glob's). A `**` segment
    in the folder's part (`(?:.*/)?`: any folders) leaves `**` when it ends the glob, or when the
    segments between it and a last `**` match folders there (`**/.git/**`); X when the segments
    after it (`/tmp/**`, `**/X`, `**/a/X`) end at NAME, the ones before X matching the folder's last."""
    if glob.startswith("!"):
        return []
    if "[" in glob or _ESCAPED_SEPARATOR.search(glob) or not glob.isascii() or _NESTED_BRACES.search(glob):
        return None
    alternatives = _expand_alternatives(glob) if "{" in glob else [glob]
    if alternatives is None:
        return None
    folders = folder[:-1].split("/")
    out: list[str] = []
    for alternative in alternatives:
        segments = alternative.split("/")
        deep = next((i for i, seg in enumerate(segments) if "**" in seg), len(segments))
        head = min(deep, len(folders))
        if deep == len(segments) and len(segments) != len(folders) + 1:
            continue  # as many segments as FOLDER/NAME, or no match
        if not all(_segment_matches(seg, name) for seg, name in zip(segments[:head], folders, strict=False)):
            continue
        if deep >= len(folders):
            if deep == len(folders) or deep == len(segments):
                out.append("/".join(segments[len(folders) :]))
            continue  # (deep > len(folders): segments of a folder inside NAME)
        # `**` in the folder's part: it reads any folders there (`(?:.*/)?`, segment to segment)
        rest = segments[deep + 1 :]
        if segments[deep] != "**":
            return None
        if not rest:
            out.append("**")
        elif not any("**" in seg for seg in rest):  # the last segments of FOLDER/NAME
            start = len(folders) + 1 - len(rest)
            if start >= deep and all(_segment_matches(a, b) for a, b in zip(rest[:-1], folders[start:], strict=True)):
                out.append(rest[-1])
        elif rest[-1] == "**" and not any("**" in seg for seg in rest[:-1]):  # folders there, then anything
            inner = rest[:-1]
            if any(
                all(_segment_matches(a, b) for a, b in zip(inner, folders[at : at + len(inner)], strict=True))
                for at in range(deep, len(folders) - len(inner) + 1)
            ):
                out.append("**")
        else:
            return None
    return out


def _segment_matches(segment: str, name: str) -> bool:
    """Whether a glob segment (no `/`, `**`, `[` or braces) matches one name, case ignored."""
    if "*" not in segment and "?" not in segment and "\\" not in segment:
        return segment.lower() == name.lower()
    return re.fullmatch(glob_to_regex(segment), name, re.IGNORECASE) is not None


_HOME_VARS = re.compile(
    r"^(?:\$HOME|\$\{HOME\}|\$ENV\{HOME\}|%USERPROFILE%|%HOMEPATH%|\$env:(?:USERPROFILE|HOME)|\$\{env:(?:USERPROFILE|HOME)\})"
    r"(?=[/\\]|$)",
    re.IGNORECASE,
)
# A Windows home directory (`C:\Users\me\...`, `C:/Users/me/...`): folded like `~`.
_WINDOWS_HOME = re.compile(r"^[A-Za-z]:/(?:Users|Documents and Settings)/[^/]+(?=/|$)", re.IGNORECASE)
_REMOTE = re.compile(r"^[\w.-]+@[\w.-]+:|^[\w.-]+:(?!//)[^\s]*$")
URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_WINDOWS = re.compile(r"^[A-Za-z]:[\\/]")
# A fresh temporary file or the working directory, named by the command that makes or prints it.
_FRESH = re.compile(r"^\$\((?:mktemp|pwd)\b[^()$`;|&<>]*\)(?:/[^$`]*)?$")
_FORM_FILE: Final = re.compile(r"^[\w.-]+=[@<](.+)$")
# A word that is one substitution running a program that only lists names of the working tree
# (see lists_tree): git's index, find or ls below relative folders.
_SUBSTITUTION = re.compile(r"^(?:\$\(([^()`$]*)\)|`([^()`$]*)`)$")
LISTER_NAMES = frozenset({"git", "find", "ls", "fd", "fdfind"})  # the programs _LISTER names (shell._listing_of)
_LISTER = re.compile(r"^\s*(git\s+ls-files|git\s+diff\s+--name-only|find|ls|fdfind|fd)(?=\s|$)(.*)$", re.S)
# (fp49) fd's options a listing of the tree may hold: a name test (-e EXT, -g with its pattern), a type, a depth,
# hidden and ignored files too (more names than fd prints: each judged), NUL ends; the value options take the next word
_FD_VALUED: Final = frozenset({"-e", "--extension", "-t", "--type", "-d", "--max-depth", "--maxdepth"})
_FD_FLAGS: Final = frozenset({"-g", "--glob", "-0", "--print0", "-H", "--hidden", "-I", "--no-ignore", "-u"})
_LISTED_WORD = re.compile(r"""^(?:-[\w-]+|'[\w.*?\[\]{}/ -]*'|"[\w.*?\[\]{}/ -]*"|[\w.*?\[\]{}/-]+)$""")
# What makes a lister print more than names below where it runs: symbolic links followed or
# printed (`ls -l` shows targets), text of its own (`-printf`, `--format`), prefixes, other trees.
_LISTER_OPTION = re.compile(
    r"^-(?:L|H|P|follow|exec\w*|ok\w*|printf|fprint\w*|fls|ls|delete|newer\w*|files0-from|C|c|-format.*|"
    r"-.*prefix.*|-git-dir.*|-work-tree.*|-full-name|-abbrev.*)$"
)
_HARD_LINKED_FORM = frozenset({HARD_LINKED})
# What splits a listed name into other words: IFS blanks for `$(…)`, quotes and backslashes for xargs.
# (fp49) and glob characters: an unquoted `$(…)` expands a printed name holding one (`*`, `?`, `[`) to other names
_NAME_SPLITS = re.compile(r"[\s'\"\\*?\[]")
# What git prints quoted (core.quotePath): control characters, `"`, `\`, bytes past ASCII.
_GIT_QUOTED = re.compile(r'[\x00-\x1f"\\\x7f-\U0010ffff]')
_NEVER_SPLITS = re.compile(r"(?!)")  # names read whole, ended by NUL (`find -print0 | xargs -0`)
_MAX_LISTED: Final = 2048  # entries a listing of the tree is read through (see PathClassifier._listed)
_MAX_KEPT: Final = 4096  # words whose classes a classifier keeps across checks while their stamps hold (View.classify)
# A tree a link-following reader walks (View.followed): entries walked, links out of it judged.
_MAX_FOLLOWED_ENTRIES = 20000
_MAX_FOLLOWED_LINKS = 16
_LS_OPTION = re.compile(r"^-[1aAdRrtSUvX]+$")


def _any_match(pattern: str) -> bool:
    """Whether a glob names an existing entry (the first one found; `**` is not searched)."""
    if "**" in pattern:
        return True
    import glob as globbing  # noqa: PLC0415  (a start-up import otherwise: few words need it)

    return next(globbing.iglob(pattern), None) is not None


def _component_meets(alternative: str, part: str) -> bool:
    """Whether a class glob's component and a glob word's may name one entry, matched both ways. A
    class's literal star (`~/\\*`, `/.\\*`: the word `~/*`, every entry) is met only by a word's
    component with a star of its own (`*`, `.[!.]*`, `.s*`), not by one of a few fixed names (`.s?h`,
    `fo?`: judged as those names are, glob34)."""
    if alternative == part:
        return True
    if "\\*" in alternative:
        if "*" not in part:
            return False
        alternative = alternative.replace("\\", "")
    return fnmatchcase(alternative, part) or fnmatchcase(part, alternative)


_MAX_NAMES_BELOW = 4096  # entries _names_below reads; past them, any name may be there


def _names_below(folder: str, name: str) -> bool:
    """Whether an entry anywhere below ``folder`` (absolute, plain) may bear the name glob ``name``
    (case ignored: `-iname`), as a `**/NAME` glob acting on what exists (find's files, glob34) would
    reach; true when the folder's path holds a wildcard, the name is `**`, or past _MAX_NAMES_BELOW."""
    if not _GLOB_CHARS.isdisjoint(folder) or "**" in name or not folder.startswith("/"):
        return True
    pattern = name.lower()
    seen = 0
    for _, folders, files in os.walk(folder):
        for entry in (*folders, *files):
            seen += 1
            if seen > _MAX_NAMES_BELOW or fnmatchcase(entry.lower(), pattern):
                return True
    return False


def _links_of(path: str) -> int:
    """How many names the file at ``path`` has (2 when it cannot be read now: unknown is not one)."""
    try:
        return os.stat(path).st_nlink
    except OSError:
        return 2


# A listing piped into `xargs -0` (see shell._listing_of, follow._listing_input): the reader takes
# each NUL-ended name whole. The marker is an option no lister knows: spelled on a line, the
# lister refuses it and prints nothing.
NUL_READ = "--nul-read"
# What makes a lister end its names with NUL instead of a newline.
_PRINTS_NUL = frozenset({"-print0", "-z", "-0", "--print0"})  # (fd's -0 / --print0: fp49)


def prints_nul(listing: str) -> bool:
    """Whether the lister of ``listing`` (`$(LISTER ...)`) ends its names with NUL (`find -print0`,
    `git ls-files -z`): in a substitution the shell drops the NULs and joins the names (`.` then
    `./x` reads `../x`), so only a reader that splits at NUL (`xargs -0`) gets the names."""
    return not _PRINTS_NUL.isdisjoint(w.strip("'\"") for w in listing.removesuffix(")").split())


# (subst51) `git ls-files`'s options that print the untracked files (`-o`, `--others`: a unique prefix), the options
# that only narrow them, and its short options taking a value (`-x PATTERN`, `-X FILE`: a cluster ends there)
_GIT_OTHERS_NARROWING: Final = frozenset(
    {
        "z",
        "i",
        "ignored",
        "exclude-standard",
        "directory",
        "no-empty-directory",
        "exclude",
        "exclude-from",
        "exclude-per-directory",
        "x",
        "X",
        NUL_READ[2:],
    }
)


def ls_files_others(args: Sequence[str]) -> str | None:
    """(subst51) How `git ls-files ARGS` prints untracked files: None, not at all; "only", them alone (`-o`, with
    options that only narrow them: `-z`, `--exclude-standard`, `-i`); "also", with the index's paths (`-o -c`, any
    other option: read as both)."""
    others = False
    other = False
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--"):
            name = arg[2:].split("=", 1)[0]
            if len(name) >= 1 and "others".startswith(name) and name[:1] == "o":
                others = True
            elif name not in _GIT_OTHERS_NARROWING:
                other = True
        elif arg.startswith("-") and len(arg) > 1:
            for letter in arg[1:]:
                if letter == "o":
                    others = True
                elif letter not in _GIT_OTHERS_NARROWING:
                    other = True
                if letter in "xX":
                    break  # (its value: the rest of the word)
    if not others:
        return None
    return "also" if other else "only"


def lists_tree(word: str) -> bool:
    """Whether ``word`` is `$(LISTER ...)` whose output names only files below the working
    directory: `git ls-files`, `git diff --name-only`, `find` of relative folders, plain `ls`
    (no `..`, no absolute or home paths, nothing that prints link targets or text of its own).
    Its words are read like a glob of the tree (a link in the tree is judged where words land)."""
    found = _SUBSTITUTION.match(word)
    if found is None:
        return False
    text = _lister_of(found.group(1) if found.group(1) is not None else found.group(2))
    lister = _LISTER.match(text) if text is not None else None
    if lister is None:
        return False
    program, rest = lister.groups()
    if program in ("fd", "fdfind"):
        return _fd_reading(rest.split()) is not None
    for part in rest.split():
        text = part.strip("'\"")
        if not _LISTED_WORD.match(part) or ".." in text or text.startswith("/"):
            return False
        if part.startswith("-") and (_LISTER_OPTION.match(part) or (program == "ls" and not _LS_OPTION.match(part))):
            return False
    return True


def _fd_reading(words: Sequence[str]) -> tuple[list[str], Callable[[str], bool] | None, int] | None:
    """(fp49) `fd [OPTIONS] [PATTERN] [PATH...]` read as a listing of the tree: (its start points, a test of the names
    it prints, the levels it walks); None when it may print more than names below where it runs (an option outside
    _FD_VALUED / _FD_FLAGS: `-L`, `-x`, `-a`, `-p`, `--base-directory`; a path with `..` or absolute). fd's own
    skips (hidden and ignored files) are not read: the walk judges more names than fd prints. The test: every `-e`
    extension (case ignored), and the pattern as a regular expression searched in the name (a glob with -g; an
    unreadable one passes every name)."""
    extensions: list[str] = []
    operands: list[str] = []
    glob = False
    depth = _UNBOUNDED
    at = 0
    while at < len(words):
        part = words[at]
        text = part.strip("'\"")
        if not _LISTED_WORD.match(part) and not (operands == [] and _FD_PATTERN.match(part)):
            return None
        if part in _FD_VALUED:
            if at + 1 >= len(words):
                return None
            value = words[at + 1].strip("'\"")
            if part in ("-e", "--extension"):
                extensions.append(value.lower().lstrip("."))
            elif part in ("-d", "--max-depth", "--maxdepth"):
                if not (value.isascii() and value.isdigit()):
                    return None
                depth = int(value)
            at += 2
            continue
        if part.startswith("-") and part != NUL_READ:
            if part not in _FD_FLAGS:
                return None
            glob = glob or part in ("-g", "--glob")
        elif part != NUL_READ:
            if operands and (".." in text or text.startswith("/")):
                return None  # a start point outside the tree (the pattern is no path)
            operands.append(text)
        at += 1
    pattern = operands[0] if operands else ""
    starts = operands[1:]
    if not extensions and pattern in ("", ".", "^"):
        return starts, None, depth
    return starts, _fd_names(extensions, pattern, glob), depth


# (fp49) an fd pattern: a regular expression of the name (no quote, blank, `$`, backquote or parenthesis survives
# _SUBSTITUTION's reading anyway)
_FD_PATTERN = re.compile(r"""^'[^']*'$|^"[^"$`]*"$|^[\w.*?+^\[\]{}|\\-]+$""")


def _fd_names(extensions: list[str], pattern: str, glob: bool) -> Callable[[str], bool]:
    """(fp49) The names `fd -e EXT… PATTERN` prints: its extensions (case ignored) and its pattern, searched in the
    name as a regular expression (case ignored unless it holds a capital: fd's smart case), or matched whole as a
    glob with -g; a pattern this reader cannot compile passes every name."""
    search: Callable[[str], bool] | None = None
    if pattern not in ("", ".", "^"):
        if glob:
            search = lambda name: fnmatchcase(name, pattern)  # noqa: E731
        else:
            try:
                compiled = re.compile(pattern, 0 if any(c.isupper() for c in pattern) else re.IGNORECASE)
            except re.error:
                compiled = None
            if compiled is not None:
                search = lambda name: compiled.search(name) is not None  # noqa: E731

    def named(name: str) -> bool:
        if extensions and not any(name.lower().endswith("." + ext) for ext in extensions):
            return False
        return search is None or search(name)

    return named


# (merge46) Later stages of a listing that only select some of its lines (`$(find . -name '*.tmp' | grep -v keep)`):
# what they print is a subset of the tree's names. grep with no option that prints other text (-o, -c, -l, -r,
# -e/-f, a file operand), sort/uniq with no file, head/tail with a count.
_SELECTOR = re.compile(r"^\s*(grep|egrep|fgrep|sort|uniq|head|tail)(?=\s|$)(.*)$", re.S)
_SELECTOR_WORD = re.compile(r"""^(?:'[\w.*?\[\]{}/ -]*'|"[\w.*?\[\]{}/ -]*"|[\w.*?\[\]{}/-]+)$""")
_SELECTOR_FLAGS = {"grep": frozenset("viEFwxs"), "sort": frozenset("urnVfb"), "uniq": frozenset()}
# head/tail's count: `-N`, `-nN`, `-n+N`, or `-n` and the number after it (adv47b: a bare number elsewhere is a file
# head reads, `find . -name '*.log' | head 5` printing a written file `5`'s lines, `tail -n 1 5` too)
_COUNT = re.compile(r"^-(?:\d+|n[-+]?\d+)$")
_COUNT_VALUE = re.compile(r"^[-+]?\d+$")


def _counts_only(words: list[str]) -> bool:
    """Whether head/tail's ``words`` are counts only (_COUNT, or `-n` and its number): no file operand."""
    value = False
    for word in words:
        if value:
            if not _COUNT_VALUE.match(word):
                return False
            value = False
        elif word == "-n":
            value = True
        elif not _COUNT.match(word):
            return False
    return not value


def _lister_of(listing: str) -> str | None:
    """The stage of a substitution's text (`LISTER ... | SELECTOR ...`) that makes the names: the text itself, or its
    first stage when every later one only selects lines (_SELECTOR); None when a later stage may print other text."""
    if "|" not in listing:
        return listing
    stages = listing.split("|")
    for stage in stages[1:]:
        found = _SELECTOR.match(stage)
        if found is None:
            return None
        program, rest = found.groups()
        words = rest.split()
        if program in ("head", "tail"):
            if not _counts_only(words):
                return None
            continue
        flags = _SELECTOR_FLAGS.get(program, _SELECTOR_FLAGS["grep"])
        operands = 0
        for word in words:
            if not _SELECTOR_WORD.match(word):
                return None
            if word.startswith("-") and len(word) > 1:
                if not flags.issuperset(word[1:]):
                    return None
            else:
                operands += 1
        if operands != (0 if program in ("sort", "uniq") else 1):
            return None  # grep's one pattern; a further word is a file it reads (sort/uniq: any word)
    return stages[0]


# find's expression words that make its `-name` tests no longer all required (an alternative, a negation, a
# group, a list; as the shell leaves them, or still escaped: see _find_names). A glob of brackets is read by
# fnmatch otherwise than find reads it (`[!.]`, `[^.]`): it filters nothing.
FIND_EITHER = frozenset({"-o", "-or", "!", "-not", ",", "(", ")", "\\(", "\\)", "\\!"})


def _find_names(expression: Sequence[str]) -> Callable[[str], bool] | None:
    """A test of the names `find … EXPRESSION` prints, from its `-name`/`-iname` tests when every one of them
    must hold (the expression has no alternative, negation or group): None when it has none."""
    globs: list[tuple[str, bool]] = []
    for i, word in enumerate(expression):
        if word in FIND_EITHER:
            return None
        if word in ("-name", "-iname") and i + 1 < len(expression):
            glob = expression[i + 1]
            if "[" in glob or "\\" in glob or (word == "-iname" and not glob.isascii()):
                return None
            globs.append((glob.lower(), True) if word == "-iname" else (glob, False))
    if not globs:
        return None
    return lambda name: all(_find_matches(name, glob, folded) for glob, folded in globs)


def _find_matches(name: str, glob: str, folded: bool) -> bool:
    """Whether find's `-name GLOB` (``folded``: `-iname`, ``glob`` lowered and ASCII) passes ``name``. (adv48)
    find's -iname folds case as the C library does (towlower, one character for one): Python's lower() gives
    `İ` two (`i̇`), so `-iname 'confİg'` passed .git/config in a UTF-8 locale and fnmatch read nothing. A glob
    -iname holds only ASCII (_find_names), and a name that is not ASCII passes it (it may fold to the glob)."""
    if folded:
        return not name.isascii() or fnmatchcase(name.lower(), glob)
    return fnmatchcase(name, glob)


def _find_depth(expression: Sequence[str]) -> int:
    """(fp47) The levels below its start points `find … -maxdepth N` descends to; _UNBOUNDED without one (or
    one it cannot read: the walk reads every level, more than find does)."""
    depth = -1
    for i, word in enumerate(expression[:-1]):
        if word == "-maxdepth":
            # (adv48) find reads its last -maxdepth (`-maxdepth 1 -maxdepth 5` walks 5 levels): the largest is read
            value = expression[i + 1]
            depth = max(depth, int(value) if value.isascii() and value.isdigit() else _UNBOUNDED)
    return _UNBOUNDED if depth < 0 else depth


_UNBOUNDED: Final = 1 << 30


class GlobError(ValueError):
    pass


def parent_globs(globs: Iterable[str]) -> list[str]:
    """Globs for every folder above a path the (including) ``globs`` match: ``~/.ssh/id_*`` gives
    ``~`` and ``~/.ssh``; ``~/.gnupg/**`` gives ``~`` and ``~/.gnupg``. A glob that starts with
    ``**`` (``**/.env``: any folder may hold one) gives none, and the parts after a ``**`` none either."""
    out: dict[str, None] = {}
    for glob in globs:
        if glob.startswith("!"):
            continue
        for alternative in _expand_alternatives(glob) or ():
            parts = alternative.split("/")
            for end in range(1, len(parts)):
                if "**" in parts[end - 1]:
                    break
                out["/".join(parts[:end]) or "/"] = None
    return list(out)


def anywhere_names(globs: Iterable[str]) -> list[str]:
    """A sample name for each thing the (including) ``globs`` protect wherever it lies: ``**/.env``
    gives ``.env``, ``**/*.{pem,key}`` gives ``x.pem`` and ``x.key``, ``**/.kube/config`` gives
    ``.kube/config`` (each wildcard filled with ``x``). Globs anchored to a folder (``~/.ssh/**``)
    give none: the folder itself says where those are. What a search glob may reach is tested
    against these (a glob ``*`` or ``.env*`` brings them into a search)."""
    out: dict[str, None] = {}
    for alternative in anywhere_globs(globs):
        name = re.sub(r"\[![^\]]*\]", "x", alternative)  # a negated set: some other character
        name = re.sub(r"\[([^\]])[^\]]*\]", r"\1", name)
        name = re.sub(r"\\(.)", r"\1", name).replace("*", "x").replace("?", "x")
        if name:
            out[name] = None
    return list(out)


def anywhere_globs(globs: Iterable[str]) -> list[str]:
    """What the (including) ``globs`` protect wherever it lies, relative: ``**/*.{pem,key}`` gives
    ``*.pem`` and ``*.key``, ``**/.kube/config`` gives ``.kube/config``."""
    out: dict[str, None] = {}
    for glob in globs:
        if glob.startswith("!") or not glob.startswith("**/"):
            continue
        for alternative in _expand_alternatives(glob[3:]) or ():
            if "**" not in alternative:
                out[alternative] = None
    return list(out)


def glob_reaches(glob: str, name: str) -> bool:
    """Whether a search glob (ripgrep's and gitignore's syntax: without a ``/`` it matches a
    name at any depth) may select ``name`` (a relative path). A glob that does not compile
    reaches everything: the question is asked rather than a secret read."""
    glob = glob.strip().removeprefix("/")
    if not glob or glob.startswith("!"):
        return False  # an exclusion selects nothing
    try:
        pattern = re.compile(f"(?:.*/)?(?:{glob_to_regex(glob)})(?:/.*)?", re.DOTALL)
    except (GlobError, re.error):
        return True
    parts = name.split("/")
    return any(pattern.fullmatch("/".join(parts[i:])) for i in range(len(parts)))


def ancestors(paths: Iterable[str]) -> list[str]:
    """Every folder above the absolute ``paths`` (``/`` left out: it is a class of its own), as literal globs."""
    out: dict[str, None] = {}
    for path in paths:
        parent = posixpath.dirname(path.rstrip("/"))
        while parent and parent != "/":
            out[literal(parent)] = None
            parent = posixpath.dirname(parent)
    return list(out)


def glob_to_regex(glob: str) -> str:
    """Translate one class glob to a regex (anchored by the caller).

    Raises:
        GlobError: an unbalanced ``[`` or ``{``.
    """
    out: list[str] = []
    i = 0
    n = len(glob)
    while i < n:
        ch = glob[i]
        if ch == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = glob.find("]", i + 1)
            if end < 0:
                raise GlobError(f"unbalanced '[' in {glob!r}")
            body = glob[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end
        elif ch == "{":
            end = glob.find("}", i + 1)
            if end < 0:
                raise GlobError(f"unbalanced '{{' in {glob!r}")
            options = glob[i + 1 : end].split(",")
            out.append("(?:" + "|".join(glob_to_regex(o) for o in options) + ")")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


_MAX_ALTERNATIVES = 256
_BRACES = re.compile(r"\{([^{}]*)\}")


def _expand_alternatives(glob: str) -> list[str] | None:
    """Every alternative a glob's braces spell out; None past _MAX_ALTERNATIVES (a glob of
    braces after braces multiplies them: an author's typo must not exhaust memory)."""
    pending = [glob]
    out: list[str] = []
    while pending:
        text = pending.pop()
        match = _BRACES.search(text)
        if match is None:
            out.append(text)
            continue
        options = match.group(1).split(",")
        if len(out) + len(pending) + len(options) > _MAX_ALTERNATIVES:
            return None
        pending.extend(text[: match.start()] + o + text[match.end() :] for o in reversed(options))
    return out


def literal_fragments(glob: str) -> list[str]:
    """For each alternative a glob spells out, its longest literal run (for trigger checks).

    A path matching the glob contains at least one of the returned strings ("" when
    there are too many alternatives to list: every path then qualifies).
    """
    alternatives = _expand_alternatives(glob.lstrip("!"))
    if alternatives is None:
        return [""]
    out: list[str] = []
    for alternative in alternatives:
        # `**/` may match nothing at all, so the text after it is all a path must contain.
        cleaned = re.sub(r"\[[^\]]*\]|\\.|\*\*/", "*", alternative)
        runs = [f for f in re.split(r"[*?]+", cleaned) if f]
        out.append(max(runs, key=len, default=""))
    return out


def fewest_fragments(fragments: Iterable[str]) -> list[str]:
    """The fragments no other one is part of: a text holding ``/root/.ssh/id_`` holds
    ``/.ssh/id_`` too, so searching for the shorter one alone answers the same question."""
    unique = sorted(set(fragments))
    # A fragment is left out when another one is part of it. Each fragment is looked for once in
    # all of them joined (a search in C), not tested against each one kept (quadratic in Python:
    # hundreds of trigger texts on every start of a judging command).
    separator = next((c for c in "\0\n\x01" if not any(c in f for f in unique)), None)
    if separator is None or "" in unique:
        kept = _fewest_slowly(unique)
    else:
        joined = separator.join(unique)
        starts = list(itertools.accumulate((len(f) + 1 for f in unique[:-1]), initial=0))
        dropped = bytearray(len(unique))
        # Shortest first: a fragment left out holds a shorter one, which leaves out whatever holds it.
        for index in sorted(range(len(unique)), key=lambda i: len(unique[i])):
            if dropped[index]:
                continue
            fragment = unique[index]
            at = joined.find(fragment)
            while at >= 0:
                holder = bisect.bisect_right(starts, at) - 1
                if holder != index:
                    dropped[holder] = 1
                if holder + 1 == len(starts):
                    break
                at = joined.find(fragment, starts[holder + 1])  # one finding per fragment that holds it
        kept = [f for f, gone in zip(unique, dropped, strict=True) if not gone]
    # Ties in a stable order (not the set's, which changes with every process): an alternation
    # built from them is one text, so its compiled form can be kept (engine.guard.warm).
    return sorted(kept, key=lambda f: (-len(f), f))


class _Trie(dict[str, "_Trie"]):
    """A node of :func:`literal_union`'s trie: the next character -> the node after it."""


_UNION_DEPTH = 64  # nested groups past which literal_union gives the plain alternation (re parses groups recursively)


class _TooDeep(Exception):
    pass


def literal_union(fragments: Iterable[str]) -> str:
    """A regex that ``search`` finds in a text exactly when one of ``fragments`` (literal, at least
    one, none empty) is in it: their alternation with common prefixes factored out (a trie).
    `re` tries the alternatives of `a|b|...` one by one at each position of the text; here it
    follows one branch per character (a search over hundreds of path fragments went from ~10 us
    to ~1 us a command). The same text for the same fragments in every process (the warm-start
    file keeps compiled programs by their pattern text)."""
    given = list(fragments)
    trie = _Trie()
    for fragment in given:
        node = trie
        for char in fragment:
            node = node.setdefault(char, _Trie())
        node[""] = _Trie()  # a fragment ends here: found already, whatever follows

    def branch(node: _Trie, depth: int) -> str:
        head: list[str] = []
        while "" not in node:
            if len(node) > 1:
                if depth >= _UNION_DEPTH:
                    raise _TooDeep
                alternatives = [re.escape(char) + branch(node[char], depth + 1) for char in sorted(node)]
                head.append("(?:" + "|".join(alternatives) + ")")
                break
            ((char, node),) = node.items()  # one way on: a run of literal characters, no group
            head.append(re.escape(char))
        return "".join(head)

    try:
        return branch(trie, 0)
    except _TooDeep:
        return "|".join(re.escape(f) for f in given)


def _fewest_slowly(unique: list[str]) -> list[str]:
    """:func:`fewest_fragments` for fragments no separator can join (or holding the empty one)."""
    kept: list[str] = []
    for fragment in sorted(unique, key=lambda f: (len(f), f)):
        if not any(k in fragment for k in kept):
            kept.append(fragment)
    return kept


class _Class(FrozenRecord):
    """A path class compiled: what it includes, what it excludes."""

    __slots__ = ("include", "exclude")  # noqa: RUF023  (the fields' order)

    include: Regex
    exclude: Regex | None

    def __init__(self, include: Regex, exclude: Regex | None) -> None:
        object.__setattr__(self, "include", include)
        object.__setattr__(self, "exclude", exclude)


class Places(FrozenRecord):
    """What a path means on this machine, for this engine.

    ``engine_files`` and ``engine_state`` are globs over absolute paths (see :func:`literal`);
    ``names`` are literal parts any spelling of those paths contains (for the fast path).
    ``derive`` judges declared classes on the absolute form too; ``resolve`` follows symbolic
    links and glob characters on disk. Pattern examples use neither, so they mean the same on
    every machine.
    """

    __slots__ = (  # noqa: RUF023  (the fields' order)
        "cwd",
        "home",
        "engine_files",
        "engine_state",
        "engine_parents",
        "names",
        "derive",
        "resolve",
        "link_areas",
        "engine_folders",
        "manifest_folders",
    )

    cwd: str
    home: str
    engine_files: tuple[str, ...]
    engine_state: tuple[str, ...]
    engine_parents: tuple[str, ...]  # every folder above an engine file (see :func:`ancestors`)
    names: tuple[str, ...]
    derive: bool
    resolve: bool
    # Where a tool can plant a symbolic link (the working directory, home, temp dirs, the file
    # tools' roots): links elsewhere (/bin -> usr/bin) are the system's own and not followed.
    link_areas: tuple[str, ...]
    # The folders whose members the engine reads (manifest folders, handler packages, the
    # project's top, its state): where a relative word may land after a `cd` the line cannot
    # read (`cd "$(cat f)"; rm deny.yaml`, `cd -`). See View.anywhere.
    engine_folders: tuple[str, ...]
    manifest_folders: frozenset[str]  # those of engine_folders that load any new manifest

    def __init__(
        self,
        cwd: str,
        home: str,
        engine_files: tuple[str, ...] = (),
        engine_state: tuple[str, ...] = (),
        engine_parents: tuple[str, ...] = (),
        names: tuple[str, ...] = (),
        derive: bool = True,
        resolve: bool = True,
        link_areas: tuple[str, ...] = (),
        engine_folders: tuple[str, ...] = (),
        manifest_folders: frozenset[str] = frozenset(),
    ) -> None:
        object.__setattr__(self, "cwd", cwd)
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "engine_files", engine_files)
        object.__setattr__(self, "engine_state", engine_state)
        object.__setattr__(self, "engine_parents", engine_parents)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "derive", derive)
        object.__setattr__(self, "resolve", resolve)
        object.__setattr__(self, "link_areas", link_areas)
        object.__setattr__(self, "engine_folders", engine_folders)
        object.__setattr__(self, "manifest_folders", manifest_folders)


# The project pattern examples are judged in: a checkout at /project of a user whose home is
# /home/user, with the usual layout.
EXAMPLE_PLACES = Places(
    cwd="/project",
    home="/home/user",
    engine_files=(
        "/project/{manifests,toolsets,policies,handlers,.hermes-engine}",
        "/project/{manifests,toolsets,policies,handlers,.hermes-engine}/**",
        "/project/hermes-engine.{yaml,yml}",
        "/home/user/.local/state/hermes-engine/**",
    ),
    engine_state=("/project/.hermes-engine/**", "/home/user/.local/state/hermes-engine/**"),
    engine_parents=("/project", "/home/user/.local/state", "/home/user/.local", "/home/user", "/home"),
    names=("manifests", "toolsets", "policies", "handlers", "hermes-engine"),
    derive=False,
    resolve=False,
)


def literal(path: str) -> str:
    """``path`` as a class glob that matches exactly that path."""
    return re.sub(r"([\\*?\[\]{}!])", r"\\\1", path)


class Classes(frozenset[str], metaclass=Interpreted):
    """The classes of one word judged in several forms (as spelled, where it lands).

    As a set it is their union; a matcher that excludes classes tests each form on its own,
    so the strictest reading wins: ``../x`` that lands in /tmp still escapes the workdir.
    """

    __slots__ = ("forms",)
    forms: tuple[frozenset[str], ...]

    def __new__(cls, forms: Sequence[frozenset[str]]) -> Classes:
        self = frozenset.__new__(cls, frozenset().union(*forms))  # not super(): mypyc compiles this
        self.forms = tuple(forms)
        return self


def forms_of(found: frozenset[str]) -> tuple[frozenset[str], ...]:
    """Each form a word was judged in (one, for a word judged as spelled only)."""
    if isinstance(found, Classes):
        return found.forms
    return (found,)


def key_in_workdir(key: str) -> bool:
    """Whether a remembered ``key`` (session_memory.file_key) may name a file in the working directory: relative
    and not climbing out of it (one starting with an expansion may land there: fail closed)."""
    return not key.startswith(("/", "~", "../")) and key != ".."


# (bg49) A command word holding a `/` (at the start of the text, after an operator or after assignments): `./x`,
# `bin/tool` run as a file a check without a session reads (session_memory.DiskView); the fast path skips no such text
_RUNS_PATH = re.compile(r"(?:^|[\n;&|(`{]|\$\()\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*[^\s;&|()<>=]*/")


def runs_path(text: str) -> bool:
    """Whether ``text`` may run a file named with a `/` as a command (a cheap test: no parse)."""
    return "/" in text and _RUNS_PATH.search(text) is not None


def key_within(key: str, folder: str) -> bool:
    """Whether the remembered ``key`` is the folder ``folder`` or below it (both keys as session_memory.file_key
    gives them); ``folder`` "." is the working directory: every key that may name a file in it (key_in_workdir).
    One rule for the readers of a write of a whole tree (shell._within, session_memory._covers: bg49)."""
    if key == folder:
        return True
    if folder == ".":
        return key_in_workdir(key)
    return key.startswith(folder.rstrip("/") + "/")


def file_operand(word: str) -> str:
    """The file a word names for reading: curl's `@file`, `name=@file` and `name=<file` forms."""
    form = _FORM_FILE.match(word)
    if form is not None:
        return form.group(1)
    if word.startswith("@") and len(word) > 1:
        return word[1:]
    return word


# An extglob group (`@(a|b)`, `!(x)`, `+(..)`, `*(..)`, `?(..)`; with `shopt -s extglob`): the innermost
_EXTGLOB_GROUP = re.compile(r"[?*+@!]\(([^()]*)\)")
_MAX_EXTGLOB_WORDS = 64  # the words a path's groups may spell out; past it, each group reads as `*`
_MAX_EXTGLOB_DEPTH = 16  # groups nested deeper read as `*`


def _group_names(kind: str, body: str) -> list[str]:
    """What one group stands for, as plain globs (a superset of what it matches): `@(a|b)` a and b,
    `?(a)` nothing or a, `+(a)` a and a run of more (`a*`), `*(a)` all three, `!(a)` anything (`*`,
    which fnmatch lets match a hidden name too: `shopt -s dotglob` or a GLOBIGNORE the line does not
    show makes bash do so)."""
    if kind == "!":
        return ["*"]
    alternatives = body.split("|")
    if kind == "@":
        return alternatives
    if kind == "?":
        return ["", *alternatives]
    more = [a + "*" for a in alternatives]
    return [*alternatives, *more] if kind == "+" else ["", *alternatives, *more]


def _component_names(part: str) -> list[str]:
    """The plain globs one path component with extglob groups may match (glob34): the groups are spelled
    out innermost first, like brace expansion. bash 5.2 matches a hidden name when the pattern's dot is
    literal (`@(.ssh)`, `.@(env)`, `+(.)ssh`) and, with globskipdots (its default), never `.` or `..`;
    a component that may match them once that is unset (`@(..)`, `.!(x)`, `+(.)`) reads as them too. An
    empty name matches nothing. Past the bounds, each group is `*` (and `..` if it holds a dot)."""
    words = [part]
    for _ in range(_MAX_EXTGLOB_DEPTH):
        spelled: list[str] = []
        for word in words:
            group = _EXTGLOB_GROUP.search(word)
            if group is None:
                spelled.append(word)
                continue
            head, tail = word[: group.start()], word[group.end() :]
            spelled.extend(head + name + tail for name in _group_names(word[group.start()], group.group(1)))
        if spelled == words:
            break
        words = spelled
        if len(words) > _MAX_EXTGLOB_WORDS:
            break
    if len(words) > _MAX_EXTGLOB_WORDS or any(_EXTGLOB_GROUP.search(w) is not None for w in words):
        widest = re.sub(r"[?*+@!]\(.*\)", "*", _EXTGLOB_GROUP.sub("*", part))
        words = [widest, ".."] if "." in part else [widest]
    names: list[str] = []
    for word in words:
        if word and word not in names:
            names.append(word)
        if word.startswith(".") and word not in (".", ".."):
            for dots in (".", ".."):
                if fnmatchcase(dots, word) and dots not in names:
                    names.append(dots)
    return names or [_EXTGLOB_GROUP.sub("*", part)]


def extglob_words(word: str) -> list[str] | None:
    """The words a path with extglob groups may name, each a plain glob, or None when it has no group
    (`~/@(.aws|x)/credentials` is `~/.aws/credentials` and `~/x/credentials`): judged as brace expansion's
    words are. Past _MAX_EXTGLOB_WORDS in all, each group component is `*` (and `..` where it holds a
    dot): a word of each."""
    if "(" not in word or _EXTGLOB_GROUP.search(word) is None:
        return None
    parts = word.split("/")
    choices: list[list[str]] = []
    total = 1
    for part in parts:
        names = _component_names(part) if "(" in part and _EXTGLOB_GROUP.search(part) else [part]
        choices.append(names)
        total *= len(names)
    if total <= _MAX_EXTGLOB_WORDS:
        return ["/".join(names) for names in itertools.product(*choices)]
    starred = [
        names[0] if len(names) == 1 else _EXTGLOB_GROUP.sub("*", part)
        for part, names in zip(parts, choices, strict=True)
    ]
    dotted = [
        names[0] if len(names) == 1 else ".." if ".." in names else s for s, names in zip(starred, choices, strict=True)
    ]
    return ["/".join(starred), "/".join(dotted)]


def _extglob_reach(text: str) -> str:
    """A path with extglob groups read as one path (normalize_path), as far as they may reach: the word
    it names when it names one (`~/@(.ssh)/x` is `~/.ssh/x`); else a component whose group may name a
    dot folder (`src/@(..)/`, `+(.)`) is `..`, another one may name anything in its folder (`~/!(x)` is
    `~/*`), adv33. Classes are read from each word (PathClassifier._classify, extglob_words)."""
    words = extglob_words(text)
    if words is not None and len(words) == 1:
        return words[0]
    parts = text.split("/")
    for i, part in enumerate(parts):
        groups = _EXTGLOB_GROUP.findall(part)
        if groups:
            parts[i] = ".." if any("." in g for g in groups) else _EXTGLOB_GROUP.sub("*", part)
    return "/".join(parts)


# (holes39) The home as normalize_path climbs out of it: a folder beside the others in /home (a name no path holds)
_HOME_ANCHOR = "/home/\x00home"


# (stop 52) `~root` is /root, not /home/root (`echo x > ~root/notes.txt` was no user_file, HOME being /root)
_SPELLED_HOMES: Final = {"root": "/root"}
_DIRECTORY_STACK: Final = re.compile(r"[+-]?[0-9]+")


def _user_home(user: str) -> str | None:
    """(stop 52) The home `~USER` names here, from the password database (a live engine's reading of the disk, at
    each check: a user added since is read): a user whose home is not /home/USER (`~postgres`, `~root`, the engine's
    own user spelled by name), without its trailing `/` (a home of `/` is ""); None when there is no such user (bash
    leaves the word as written: `~zz/x` is a name in the working directory)."""
    try:
        return pwd.getpwnam(user).pw_dir.rstrip("/")
    except (KeyError, OSError, ValueError):
        return None


def normalize_path(word: str) -> tuple[str, set[str]]:
    """(normalised path, computed classes) for a word used as a path."""
    computed: set[str] = set()
    text = word.strip()
    if text.startswith("file://"):
        text = text[len("file://") :]
    text = file_operand(text)
    if URL.match(text):
        return text, {"url"}
    if "(" in text and _EXTGLOB_GROUP.search(text) is not None:
        text = _extglob_reach(text)
    if _WINDOWS.match(text):
        text = text.replace("\\", "/")
        home = _WINDOWS_HOME.match(text)
        if home is not None:
            text = "~" + text[home.end() :]
        elif text[0] in "Zz":
            # (xfail40) Wine's Z: drive is the Unix root (`wine cmd /c 'rd /s /q Z:\home\me'`): read as that path
            text = text[2:]
        else:
            return text, {"absolute", "windows"}
    if _HOME_VARS.match(text):
        text = _HOME_VARS.sub("~", text).replace("\\", "/")
    if text.startswith("~") and len(text) > 1 and text[1] != "/":
        user, _, rest = text[1:].partition("/")
        if _DIRECTORY_STACK.fullmatch(user):
            # (stop 52) `~1`, `~+1`, `~-2`: a folder of pushd's stack, known when the command runs
            return text, {"variable", "computed"}
        text = _SPELLED_HOMES.get(user, f"/home/{user}") + (f"/{rest}" if rest else "")
    if "$" in text or "`" in text:
        computed.add("variable")
        # Where it lands is only known when the command runs: a command substitution, or a last
        # component that is itself an expansion (`> $F`, `"$D/$F"`; `$TMPDIR/x` names its file).
        if ("$(" in text or "`" in text or "$" in text.rstrip("/").rsplit("/", 1)[-1][:1]) and not (
            _FRESH.match(text) and ".." not in text
        ):
            computed.add("computed")
            # (fp48, fp49) a listing of the tree (`listed`): judged by the entries it lists, each where it lands
            computed.add("listed" if lists_tree(text) else "computed_source")
    if _REMOTE.match(text) and not text.startswith(("/", "~", ".")):
        return text, {"remote"}
    if text.startswith("~"):
        if "/.." in text:
            # (holes39) a `..` that climbs above the home leaves it: `~/../$USER` is a folder beside it (a home,
            # this one too: /home/me), `~/../..` the root; read where homes are, not clamped to `~/$USER`
            climbed = posixpath.normpath(_HOME_ANCHOR + text[1:])
            if climbed != _HOME_ANCHOR and not climbed.startswith(_HOME_ANCHOR + "/"):
                computed.add("absolute")
                return climbed, computed
        rest = posixpath.normpath("/" + text[1:].lstrip("/")) if text != "~" else "/"
        normalised = "~" + ("" if rest == "/" else rest)
        computed.add("absolute")
        return normalised, computed
    if text.startswith("/"):
        normalised = posixpath.normpath(text)
        if normalised.startswith("//"):
            normalised = "/" + normalised.lstrip("/")
        computed.add("absolute")
        return normalised, computed
    normalised = posixpath.normpath(text) if text else "."
    computed.add("relative")
    if normalised == ".." or normalised.startswith("../"):
        computed.add("escapes_workdir")
    elif normalised in (".", "*"):
        computed.add("workdir")
    return normalised, computed


def local_reading(word: str, *, urls: bool = True) -> str | None:
    """``word`` read as a local file relative to the working directory, when it would otherwise
    not be read as one (``ab:/../.env`` reads as a remote ``host:path``, ``http://x/../../.env`` as
    a URL, ``C:/../.env`` as a Windows path), else None. A file tool opens such a word as a local
    path (``./ab:/../.env`` is ``.env``), and so does any command but the few that take remote
    paths (``mkdir ab:; cat ab:/../.env``), so a path is judged in this reading as well. Without
    ``urls``, a URL only when a ``..`` in it climbs out of its folders (``curl`` fetches the rest)."""
    _, computed = normalize_path(word)
    if computed & {"remote", "windows"} or (
        "url" in computed and (urls or ".." in word.strip().rstrip("/").split("/"))
    ):
        return "./" + word.strip()
    return None


# Classes compiled ahead, by their globs: filled from the compiled-project cache (engine.guard.cache)
# so an evaluator built from a cached project reads its classes back instead of compiling them, and
# by each compile (a pure function of the globs): a load from source compiles each class once, not
# again for the cache entry and for the evaluator that judges next.
COMPILED_CLASSES: dict[tuple[str, ...], _Class] = {}
_MAX_COMPILED = 1024


def _compile(globs: Iterable[str]) -> _Class:
    """One class from globs; a leading ``!`` excludes."""
    globs = tuple(globs)
    ahead = COMPILED_CLASSES.get(globs)
    if ahead is not None:
        return ahead
    include = [glob_to_regex(g) for g in globs if not g.startswith("!")]
    exclude = [glob_to_regex(g[1:]) for g in globs if g.startswith("!")]
    made = _Class(
        compile_linear("(?:" + "|".join(include or [r"\b\B"]) + r")\Z"),
        compile_linear("(?:" + "|".join(exclude) + r")\Z") if exclude else None,
    )
    if len(COMPILED_CLASSES) < _MAX_COMPILED:
        COMPILED_CLASSES[globs] = made
    return made


def _alternatives_of(classes: Mapping[str, Sequence[str]]) -> list[tuple[str, tuple[str, ...]]]:
    """(class, components) of each absolute alternative of the including globs (see _glob_classes)."""
    alternatives: list[tuple[str, tuple[str, ...]]] = []
    for name, globs in classes.items():
        for glob in globs:
            if glob.startswith("!"):
                continue
            for spelled in _expand_alternatives(glob) or ():
                # `**` only as the last component (`~/.ssh/**`): a folder and what it holds
                if spelled.startswith(("/", "~")) and "**" not in spelled.removesuffix("/**"):
                    # a literal star (`~/\\*`: the word `~/*`) keeps its backslash (_component_meets)
                    parts = spelled.split("/")
                    alternatives.append((name, tuple(p if "\\*" in p else p.replace("\\", "") for p in parts)))
    return alternatives


_TREE_LINK, _TREE_DIR, _TREE_OTHER = 1, 2, 3
_TREE_KEPT_DIRS = 4096  # folders TreeLister keeps (all are forgotten past it)
_TREE_KEPT_TOTAL = 1 << 16  # entries it keeps in all (the same)
_TREE_KEPT_ENTRIES = 4096  # larger folders are listed again on each walk
_TREE_READ = max(_MAX_FOLLOWED_ENTRIES, _MAX_LISTED) + 1  # past it, every walker stops anyway
# (fp47) The entries a find listing with a `-name` test reads in all (its folders walked, the names tested): only
# the ones it prints count against _MAX_LISTED (a clone's .git, a .venv, a node_modules hold thousands of others)
_MAX_NAMED_READ: Final = 1 << 16


def _globbed(path: str) -> list[str] | None:
    """The names a glob `path` matches (itself when it has no glob character); None past _MAX_LISTED."""
    if _GLOB_CHARS.isdisjoint(path):
        return [path]
    import glob as globbing  # noqa: PLC0415  (few words are globs)

    roots: list[str] = []
    for n, match in enumerate(globbing.iglob(path)):
        if n >= _MAX_LISTED:
            return None
        roots.append(match)
    return roots


# Timestamps are only as fine as the kernel's clock tick: a listing is kept once it is older.
_TREE_RACY_NS = 2_000_000_000


class TreeLister:
    """The entries of the folders the bounded tree walkers read (View.followed for a reader
    that follows links, `grep -R .`; PathClassifier._listed for a listing of the tree,
    `$(ls src)`): each folder is listed once and kept while its modification time and inode
    stay the same (creating, removing or renaming an entry, a link included, changes them; its
    change time too: a caller can set a folder's modification time back, `touch -d`, not that),
    so a walk of an unchanged tree costs one stat per folder, not a listing of every entry.
    A folder changed too recently for its timestamp to tell (or a large one) is listed again."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[tuple[int, int, int], tuple[tuple[str, int], ...]]] = {}
        self._total = 0  # entries kept
        # (xf46) a kept listing's names starting with `-`, by folder, with the listing they were read from
        self._dashes: dict[str, tuple[tuple[tuple[str, int], ...], tuple[str, ...]]] = {}

    def dash_names(self, folder: str, every: bool = False) -> tuple[str, ...]:
        """The names in ``folder`` starting with `-` (see View.dash_names), () when it cannot be listed: read
        from its listing (picked out again only when that changed), every name of a folder past _TREE_READ.
        ``every``: all its names (not kept)."""
        listed = self.entries(folder)
        if listed is None:
            return ()
        kept = None if every else self._dashes.get(folder)
        if kept is not None and kept[0] is listed:
            return kept[1]
        if len(listed) < _TREE_READ:
            names = tuple(name for name, _ in listed if every or name[:1] == "-")
        else:
            try:  # a folder past what a walker reads: every name, as bash's glob reads them
                with os.scandir(folder) as entries:
                    names = tuple(entry.name for entry in entries if every or entry.name[:1] == "-")
            except OSError:
                names = ()
        if every:
            return names
        if len(self._dashes) >= _TREE_KEPT_DIRS:
            self._dashes.clear()
        self._dashes[folder] = (listed, names)
        return names

    def entries(self, folder: str) -> tuple[tuple[str, int], ...] | None:
        """``folder``'s (name, kind) entries in listing order (the first _TREE_READ); None when
        it cannot be listed (not a folder, not readable)."""
        try:
            info: os.stat_result | None = os.stat(folder)
        except OSError:
            info = None
        if info is not None:
            kept = self._kept.get(folder)
            if kept is not None and kept[0] == (info.st_mtime_ns, info.st_ctime_ns, info.st_ino):
                return kept[1]
        listed: list[tuple[str, int]] = []
        try:
            with os.scandir(folder) as found:
                for entry in found:
                    if len(listed) >= _TREE_READ:
                        return tuple(listed)  # a walker stops here: not kept
                    if entry.is_symlink():
                        listed.append((entry.name, _TREE_LINK))
                    else:
                        listed.append((entry.name, _TREE_DIR if entry.is_dir(follow_symlinks=False) else _TREE_OTHER))
        except OSError:
            return None
        out = tuple(listed)
        changed = max(info.st_mtime_ns, info.st_ctime_ns) if info is not None else 0
        if info is not None and len(out) <= _TREE_KEPT_ENTRIES and time.time_ns() - changed >= _TREE_RACY_NS:
            if len(self._kept) >= _TREE_KEPT_DIRS or self._total + len(out) > _TREE_KEPT_TOTAL:
                self._kept.clear()  # simpler than an LRU, and safe under threads
                self._total = 0
            self._kept[folder] = ((info.st_mtime_ns, info.st_ctime_ns, info.st_ino), out)
            self._total += len(out)
        return out


class PathClassifier:
    """Classifies words against the classes declared in policy manifests."""

    def __init__(
        self,
        classes: Mapping[str, Sequence[str]],
        cwd: str | None = None,
        places: Places | None = None,
        folders: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        self._classes = {name: _compile(globs) for name, globs in classes.items()}
        # A variable's usual folders (the policy's `variable_folders:`; see View._under_unknown).
        self.folders: Mapping[str, tuple[str, ...]] = folders or {}
        self._globs = classes
        self._alternatives: list[tuple[str, tuple[str, ...]]] | None = None  # built on the first glob word
        self._engine_alternatives: list[tuple[str, tuple[str, ...]]] | None = None  # the same, the engine's
        self.names = frozenset(self._classes) | COMPUTED_CLASSES
        self.places = places
        if places is not None and cwd is None:
            cwd = places.cwd
        self._cwd_critical: str | None = None
        if cwd:
            cwd_path, _ = normalize_path(cwd)
            # (only the critical classes: another class's regex may run on RE2 for a long folder, and a guard
            # start imports RE2 only when a text needs it)
            if self._match(cwd_path, _CRITICAL_CWD_CLASSES):
                self._cwd_critical = cwd_path
        self._lexical = lru_cache(maxsize=4096)(self._classify)
        # Built when first used (see _plain_finders); () when there are none.
        self._plain: tuple[Finder, Finder] | tuple[()] | None = None
        self._declared_globs: list[str] = []  # those of _plain's finders, by the path as spelled
        self._here_globs: list[str] = []  # and by the path in the working directory
        # folder -> its plain names' finders read on the names alone (see _relative_finders)
        self._relative: dict[str, tuple[Finder, tuple[tuple[bytes, Finder], ...]] | None] = {}
        self._class_finders: dict[frozenset[str], Finder | None] = {}
        self._links: LinkFinder | None = None
        # word -> (_classify_here's answer, the stamps it stood on: Walk.depends): the answers whose walk was sure
        # (Walk.sure: only listings the watcher vouches for), kept while no event comes (View.classify).
        self._kept: dict[str, tuple[frozenset[str], Depends]] = {}
        # word -> (View.words_land_elsewhere's answer for it, its stamps): kept as _kept is, only when the walk
        # that found it was sure.
        self._kept_lands: dict[str, tuple[bool, Depends]] = {}
        self._trees = TreeLister()
        # folder -> (its listing, PathClassifier._folder_holds' answer for it)
        self._held: dict[str, tuple[tuple[tuple[str, int], ...], bool, tuple[str, ...]]] = {}
        if places is not None:
            self._engine = {
                "engine_files": _compile(places.engine_files),
                "engine_state": _compile(places.engine_state),
                ENGINE_PARENT: _compile(places.engine_parents),
            }
            self._cwd_area = self._match(self._tilde(places.cwd), _AREA_CLASSES)
            self._links = LinkFinder(places.link_areas or ("/",), places.home) if places.resolve else None
            self._where = lru_cache(maxsize=4096)(self._locate)
            self._at = lru_cache(maxsize=4096)(self._classes_at)

    def _plain_finders(self) -> tuple[Finder, Finder] | None:
        """Where a line of a text may be a path a class holds, as multi-line RE2 patterns (see
        :meth:`View.classify_plain`): (the declared classes, for a name as spelled; the declared
        classes but the working directory's own area classes, and the engine's, for a path in
        the working directory, as :meth:`_classes_at` judges it). Supersets: exclusions are
        ignored, case too, and `*` may run on past the line's end. None without places, or
        when they do not compile."""
        finders = self._plain
        if finders is None:
            places = self.places
            finders = ()
            if places is not None:
                declared = [g for spelled in self._globs.values() for g in spelled]
                # A name in the working directory is in the working tree: never a user_file there on a live
                # engine (View._user_file; a link landing elsewhere is touched by _plain_scope). Kept in, every
                # plain name of a project under /root or /home/NAME was touched (`/root/**`): no fold at all.
                here = [
                    g
                    for name, spelled in self._globs.items()
                    if name not in self._cwd_area and not (name == USER_FILE and places.resolve)
                    for g in spelled
                ]
                here += [*places.engine_files, *places.engine_state, *places.engine_parents]
                try:
                    finders = (_lines_finder(declared), _lines_finder(here))
                except (GlobError, RegexError):
                    finders = ()
                self._declared_globs, self._here_globs = declared, here
            self._plain = finders
        return finders or None

    def _relative_finders(self, cwd: str) -> tuple[Finder, tuple[tuple[bytes, Finder], ...]] | None:
        """_plain_finders for names read in ``cwd`` (absolute, normal) without its path before each
        name (View._touched_names: 16,000 names of a 64 KiB text, each prefixed, were ~300 KB to
        scan): (a finder of the lines a declared glob may hold as spelled, or a glob of the second
        finder may hold as CWD/NAME or its `~` form, by what the glob asks of NAME once the folder's
        path has matched its literal start (_relative_glob); for each form of the folder whose path a
        glob's wildcards must read, those globs and the form, read with the form before each name).
        None when the folder's path is not printable ASCII or the globs do not compile."""
        if cwd in self._relative:
            return self._relative[cwd]
        made: tuple[Finder, tuple[tuple[bytes, Finder], ...]] | None = None
        forms = [cwd.rstrip("/") + "/"]
        tilde = self._tilde(cwd)
        if tilde != cwd:
            forms.append(tilde.rstrip("/") + "/")
        if self._plain_finders() is not None and all(f.isascii() and f.isprintable() for f in forms):
            names = list(self._declared_globs)
            prefixed: list[tuple[bytes, Finder]] = []
            try:
                for form in forms:
                    whole: list[str] = []
                    for glob in self._here_globs:
                        rest = _relative_glob(glob, form)
                        if rest is None:
                            whole.append(glob)
                        else:
                            names += rest
                    if whole:
                        prefixed.append((form.encode(), _lines_finder(whole)))
                made = (_lines_finder(names, names=True), tuple(prefixed))
            except (GlobError, RegexError):
                made = None
        if len(self._relative) >= _MAX_RELATIVE:
            self._relative.clear()
        self._relative[cwd] = made
        return made

    def _class_finder(self, classes: frozenset[str]) -> Finder | None:
        """Where a line may be a path one of ``classes`` holds (as _plain_finders, for these classes
        only, the engine's by their globs); None when one of them is computed otherwise (then no
        line can be said free of them) or the globs do not compile."""
        if classes in self._class_finders:
            return self._class_finders[classes]
        finder: Finder | None = None
        places = self.places
        engine = {
            "engine_files": places.engine_files if places else (),
            "engine_state": places.engine_state if places else (),
            ENGINE_PARENT: places.engine_parents if places else (),
        }
        if places is not None and not classes & (COMPUTED_CLASSES - set(engine)):
            globs = [g for name in sorted(classes) for g in (*self._globs.get(name, ()), *engine.get(name, ()))]
            try:
                finder = _lines_finder(globs)
            except (GlobError, RegexError):
                finder = None
        self._class_finders[classes] = finder
        return finder

    @property
    def classify(self) -> Callable[[str], frozenset[str]]:
        """The classes of a word. On a live engine, take it once per check (see :meth:`view`)."""
        return self._lexical if self.places is None else self.view().classify

    def _match(self, path: str, only: tuple[str, ...] | frozenset[str] | None = None) -> set[str]:
        found = set()
        for name, spec in self._classes.items():
            if only is not None and name not in only:
                continue
            if spec.include.match(path) and not (spec.exclude is not None and spec.exclude.match(path)):
                found.add(name)
        return found

    def _classify(self, word: str) -> frozenset[str]:
        if "(" in word:
            words = extglob_words(word)
            if words is not None and words != [word]:
                # each word an extglob group may name, as brace expansion's words (glob34)
                return Classes([form for w in words for form in forms_of(self._lexical(w))])
        path, classes = normalize_path(word)
        if "url" in classes or "remote" in classes:
            return frozenset(classes)
        classes |= self._match(path)
        if path.startswith(("/", "~")) and not _GLOB_CHARS.isdisjoint(path):
            classes |= self._glob_classes(path)
        if "relative" in classes and self._cwd_critical is not None and "escapes_workdir" not in classes:
            base = self._cwd_critical
            if path == "*":
                joined = base.rstrip("/") + "/*"
            elif path == ".":
                joined = base
            else:
                joined = posixpath.normpath(posixpath.join(base if base != "~" else "/~", path))
                joined = joined[1:] if base == "~" else joined
            # (home51) a relative word that stays in the working directory names a file of the tree, never one
            # of the user's outside it, whatever the working directory is (the home itself)
            classes |= self._match(joined) - _USER_FILE
        return frozenset(classes)

    def _glob_classes(self, path: str, engine: bool = False) -> set[str]:
        """The classes a glob word may name (`rm ~/.bash*` names ~/.bashrc): each component is
        matched both ways against each alternative of a class glob (not those after a `**`)
        with as many components. Exclusions are not applied: the glob may name either. With
        ``engine``, the engine's own classes (`cp x /srv/proj?/policies/self.yaml`)."""
        if engine:
            if self._engine_alternatives is None:
                places = self.places
                assert places is not None
                self._engine_alternatives = _alternatives_of(
                    {
                        "engine_files": places.engine_files,
                        "engine_state": places.engine_state,
                        ENGINE_PARENT: places.engine_parents,
                    }
                )
            alternatives = self._engine_alternatives
        else:
            if self._alternatives is None:
                self._alternatives = _alternatives_of(self._globs)
            alternatives = self._alternatives
        if "[" in path and _BASH_BRACKET.search(path):
            path = bash_brackets(path)  # `~/.bash[[:alpha:]]c`, `[^x]` as bash reads them
        parts = path.split("/")
        found: set[str] = set()
        if engine and "**" in parts[:-1]:
            # `**` may be no folder at all (`./**/hermes-engine.*` names ./hermes-engine.yaml)
            at = parts.index("**")
            found = self._glob_classes("/".join(parts[:at] + parts[at + 1 :]), engine=True)
        for name, alternative in alternatives:
            if name in found:
                continue
            under = alternative[-1] == "**"  # the folder's contents: one component or more below it
            head = alternative[:-1] if under else alternative
            if (len(parts) <= len(head)) if under else (len(parts) != len(head)):
                continue
            if all(_component_meets(a, p) for a, p in zip(head, parts, strict=False)):
                if engine and under and "**" in parts[:-1] and not _names_below("/".join(head), parts[-1]):
                    continue  # `./**/*.txt` (find . -name '*.txt' -exec rm {} +): none of the folder's files
                found.add(name)
        return found

    # -- where a word lands (live engines only) ------------------------------------------

    def _tilde(self, path: str) -> str:
        home = self.places.home if self.places is not None else ""
        if home and (path == home or path.startswith(home + "/")):
            return "~" + path[len(home) :]
        return path

    def _locate(self, word: str) -> tuple[str, str] | None:
        """(normalised absolute path, absolute path as spelled) of a word, or None when it names
        no local path (a URL, a remote path, a variable)."""
        places = self.places
        assert places is not None
        path, computed = normalize_path(word)
        if computed & {"url", "remote", "variable", "windows"}:
            return None
        raw = _HOME_VARS.sub("~", file_operand(word.strip()).removeprefix("file://"))
        named = raw.startswith("~") and raw != "~" and not raw.startswith("~/")
        if raw == "~" or raw.startswith("~/"):
            raw = places.home + raw[1:]
        elif named:
            # (stop 52) `~USER` where the password database puts that home (`~root` is /root, a home of `/` is the
            # root, `..` after it is read from there); no such user: the word as written, in the working directory
            user, _, rest = raw[1:].partition("/")
            home = _user_home(user)
            raw = posixpath.join(places.cwd, raw) if home is None else home + "/" + rest
        elif not raw.startswith("/"):
            raw = posixpath.join(places.cwd, raw)
        if named:
            normal = posixpath.normpath(raw)
            if normal.startswith("//"):
                normal = normal[1:]
        elif path.startswith("~"):
            normal = places.home + path[1:]
        elif path.startswith("/"):
            normal = path
        else:
            normal = posixpath.normpath(posixpath.join(places.cwd, path))
        return normal, raw

    def _classes_at(self, path: str) -> frozenset[str]:
        """Classes of an absolute path: the declared ones (without the working directory's own
        area classes when it lies inside it) and the engine's."""
        places = self.places
        assert places is not None
        found: set[str] = set()
        if places.derive:
            tilde = self._tilde(path)
            found = self._match(path) | self._match(tilde)
            if not _GLOB_CHARS.isdisjoint(path):
                # What the glob may name, in either spelling (`/home/me/.[!.]*` is `~/.[!.]*`).
                found |= self._glob_classes(path) | self._glob_classes(tilde)
            cwd = places.cwd
            if path == cwd or path.startswith(cwd.rstrip("/") + "/"):
                found -= self._cwd_area
                found.discard(USER_FILE)  # (home51) a file of the tree
        for name, spec in self._engine.items():
            if spec.include.match(path) and not (spec.exclude is not None and spec.exclude.match(path)):
                found.add(name)
        if not _GLOB_CHARS.isdisjoint(path):
            # What the glob may name of the engine's own (a glob above its folder: `/srv/proj?/...`).
            found |= self._glob_classes(path, engine=True)
        return frozenset(found)

    def _classify_here(self, word: str, walk: Walk | None) -> frozenset[str]:
        if "(" in word:
            words = extglob_words(word)
            if words is not None and words != [word]:
                return Classes([form for w in words for form in forms_of(self._classify_here(w, walk))])
        lexical = self._lexical(word)
        listing = "computed" in lexical and "computed_source" not in lexical and _SUBSTITUTION.match(word) is not None
        if walk is not None and listing:
            walk.sure = False  # a listing of the tree: read with scandir, globs, the git index
            return self._listed(word, lexical, walk)
        where = self._where(word)
        if where is None:
            local = local_reading(word, urls=False)
            if local is None:
                return lexical
            # A command opens `ab:/../.env` as the local `.env` once a folder `ab:` exists.
            return Classes([lexical, self._classify_here(local, walk)])
        normal, raw = where
        forms = [lexical]
        # a `**` word reads what exists below (_names_below): not kept across checks
        at = self._classes_at(normal) if "/**/" in normal else self._at(normal)
        if at:
            forms.append(at)
        if walk is not None:
            for landing in walk.landings(normal, raw):
                found = self._at(landing)
                if found:
                    forms.append(found)
            if walk.hard_linked(normal):
                forms.append(_HARD_LINKED_FORM)
        if len(forms) == 1:
            return lexical
        return Classes(forms)

    def _listed(self, word: str, lexical: frozenset[str], walk: Walk, base: str | None = None) -> frozenset[str]:
        """A listing of the tree (lists_tree): the names it prints are the tree's, so it is judged
        as each of them would be by where it lands -- the links in the listed folders (where they
        lead) and the files with other names (hard_linked). Past _MAX_LISTED entries, or a folder
        that cannot be read, it is a path only the run knows (computed_source).

        ``base`` (absolute, normal): the directory the listing runs in and its names are read
        from (after a `cd` on the line; the working directory by default). A start point is
        walked where it leads (`ls lnk` with `lnk -> ~/.config/gh` lists the token's folder).
        `ls DIR` prints bare names, read from ``base``: each is judged there as well."""
        places = self.places
        assert places is not None
        base = places.cwd if base is None else base
        found = _SUBSTITUTION.match(word)
        assert found is not None
        listing = _lister_of(found.group(1) if found.group(1) is not None else found.group(2)) or ""
        words = listing.split()
        args = [w.strip("'\"") for w in words[1:]]
        unknown = Classes([lexical, frozenset({"computed_source"})])
        nul = NUL_READ in args
        if nul != prints_nul(listing):
            # NUL-ended names in a substitution are joined (`.` then `./x` is `../x`); a NUL
            # reader of newline-ended names takes the whole output as one name
            return unknown
        named: Callable[[str], bool] | None = None  # find's `-name GLOB` tests: the names it prints
        depth = _UNBOUNDED  # find's -maxdepth: the levels it walks below a start point
        if words[0] == "find":  # its start points: the words before the expression
            starts = list(itertools.takewhile(lambda w: not w.startswith(("-", "(", "!")), args))
            named = _find_names(args[len(starts) :])
            depth = _find_depth(args[len(starts) :])
        elif words[0] == "ls":
            starts = [w for w in args if not w.startswith("-")]
        elif words[0] in ("fd", "fdfind"):  # (fp49) its pattern, then its start points (_fd_reading)
            reading = _fd_reading(words[1:])
            if reading is None:
                return unknown
            starts, named, depth = reading
        else:  # git: its pathspecs are inside the tree; the whole of it is read
            starts = []
        pending = []
        forms = [lexical]
        # (subst51) `git ls-files -o`: the untracked files it prints are the tree's names the index does not hold,
        # read from the disk (.gitignore not read: more names than git prints, `--exclude-standard` drops the
        # ignored ones); with an option selecting the index's too (`-c`, `-m`, `-s`), its paths as well
        others = ls_files_others(args) if words[0] == "git" and words[1] == "ls-files" else None
        tracked: frozenset[str] | None = None
        root = walk.leads_to(base)
        if others is not None:
            listed_paths = gitindex.listed(root)
            if listed_paths is None:
                return unknown
            tracked = frozenset(p.decode("utf-8", "surrogateescape") for p in listed_paths)
        if words[0] == "git" and others != "only" and not self._indexed(root, words[1] == "ls-files", walk, nul, forms):
            return unknown
        seen = 0
        read = 0  # (fp47) entries read in all, a find with a `-name` test's bound (_MAX_NAMED_READ)
        levels: dict[str, int] = {}  # (fp47) a walked folder's level below its start point, with -maxdepth
        bare: set[str] = set()  # `ls DIR`: the names it prints, read from base
        split = _NAME_SPLITS if not nul else _NEVER_SPLITS
        # (fp48) the folders a `-name` test prints, and those below them: what a recursive reader of the listing
        # (`tar c`, `rm -r`, `cp -r`, `zip -r`) reads is all they hold (`find . -name 'conf*'` prints conf/, and
        # `tar c $(…)` packs conf/.env), so every entry below counts, at any depth; a start point too (`find
        # policies -maxdepth 0 -name 'p*'` prints policies)
        whole: set[str] = set()
        for start in starts or ["."]:
            path = posixpath.normpath(posixpath.join(base, start))
            if not _GLOB_CHARS.intersection(start):
                if words[0] == "ls" and path != base:
                    bare.add(start.rstrip("/") + ":")  # the header `ls A B` prints before each folder
                # Where it leads: a link to a folder on its way is listed as that folder (a start
                # point only: below it, links are judged one by one).
                led = walk.leads_to(path)
                if named is not None and named(posixpath.basename(posixpath.normpath(start)) or start):
                    whole.add(led)
                    at = self._at(led)
                    if at and at not in forms:
                        forms.append(at)
                pending.append(led)
                continue
            import glob as globbing  # noqa: PLC0415  (a start-up import otherwise: few words list globs)

            for match in globbing.iglob(path):  # `ls *.txt`: each match, a folder listed in turn
                seen += 1
                if seen > _MAX_LISTED:
                    return unknown
                if os.path.isdir(match) and not os.path.islink(match):
                    pending.append(match)
                elif os.path.islink(match):
                    at = self._at(os.path.realpath(match))
                    if at:
                        forms.append(at)
                else:
                    if split.search(posixpath.basename(match)):
                        return unknown
                    if _links_of(match) > 1:
                        forms.append(_HARD_LINKED_FORM)
                    at = self._at(match)
                    if at and at not in forms:
                        forms.append(at)  # a file the tree holds that is protected itself (`.env`)
        # `ls DIR` prints DIR's own names (every level with -R), read from base
        tops = frozenset(p for p in pending if p != walk.leads_to(base)) if words[0] == "ls" else frozenset()
        every_level = any(a.startswith("-") and not a.startswith("--") and "R" in a for a in args)
        trees = self._trees
        while pending:
            folder = pending.pop()
            listed = trees.entries(folder)
            if listed is None:
                return unknown  # not a folder (`ls *.md`, a file), or not readable now
            level = levels.pop(folder, 0) + 1  # the level of its entries
            filtered = named is not None and folder not in whole
            if named is not None:
                read += len(listed)
                if read > _MAX_NAMED_READ or len(listed) >= _TREE_READ:
                    return unknown  # past the bound, or a folder read only in part
            for name, kind in listed:
                printed = not filtered or (named is not None and named(name))
                if not printed and kind != _TREE_DIR:
                    continue  # `find . -name '*.py'` prints no `.env`, nor a link named `k` (one named `k.py` is read)
                seen += 1
                if seen > _MAX_LISTED:
                    return unknown
                if split.search(name):
                    # `a⏎/home/me/.ssh/id_ed25519⏎/z.py`: the shell (or xargs) splits the
                    # printed name, and a piece is another path
                    return unknown
                if name[:1] == "-" and words[0] in ("fd", "fdfind"):
                    return unknown  # (fp49) fd prints `-rf` with no `./` before it: an option to its reader
                if tops and (every_level or folder in tops):
                    bare.add(name)
                path = posixpath.join(folder, name)
                if tracked is not None:
                    if name == ".git" and folder != root:
                        return unknown  # (a repository of its own: git prints its folder, `rm -r` takes it whole)
                    if kind != _TREE_DIR and path[len(root) + 1 :] in tracked:
                        continue  # a tracked file: not among the untracked ones
                if kind == _TREE_LINK:
                    at = self._at(os.path.realpath(path))
                    if at:
                        forms.append(at)
                elif kind == _TREE_DIR:
                    if named is not None and (printed or folder in whole):
                        whole.add(path)  # printed itself, or below one printed: all it holds counts
                        at = self._at(path)
                        if at and at not in forms:
                            forms.append(at)  # a folder of its own class (`.git`, the engine's)
                        pending.append(path)
                    elif (name != ".git" or words[0] != "git") and level < depth:
                        pending.append(path)
                        if depth != _UNBOUNDED:
                            levels[path] = level
                else:
                    try:
                        linked = os.lstat(path).st_nlink > 1
                    except OSError:
                        return unknown  # gone since it was listed: not readable now
                    if linked:
                        forms.append(_HARD_LINKED_FORM)
                    at = self._at(path)
                    if at and at not in forms:
                        forms.append(at)  # a protected file in the tree (`.env`, `*.pem`)
        for name in bare:
            # `cat $(ls src)` reads ./NAME, not src/NAME: a link of that name here leads elsewhere
            path = posixpath.join(base, name)
            if os.path.islink(path):
                at = self._at(os.path.realpath(path))
                if at:
                    forms.append(at)
            elif os.path.isdir(path):
                return unknown  # a folder the walk did not list (`cp -r $(ls src) out`)
            elif os.path.lexists(path):
                if _links_of(path) > 1:
                    forms.append(_HARD_LINKED_FORM)
                at = self._at(path)
                if at and at not in forms:
                    forms.append(at)
        return Classes(forms) if len(forms) > 1 else lexical

    def _indexed(self, folder: str, below: bool, walk: Walk, nul: bool, forms: list[frozenset[str]]) -> bool:
        """Judge what a git listing in ``folder`` prints: the index's paths (engine.policy.gitindex;
        an index is a file the caller can write, and git prints its paths as they are), each
        where it lands, into ``forms``. False when that cannot be said for certain: an index
        this reader cannot read, a path that leaves the tree (absolute, `..`, `.git`), or one git
        prints quoted or the reader splits (without NUL ends)."""
        paths = gitindex.listed(folder, below=below)
        if paths is None:
            return False
        for raw in paths:
            path = raw.decode("utf-8", "surrogateescape")
            parts = path.split("/")
            if not path or any(p in ("", ".", "..", ".git") for p in parts):
                return False
            if not nul and (_GIT_QUOTED.search(path) or _NAME_SPLITS.search(path)):
                return False
            full = posixpath.join(folder, path)
            landing = walk.leads_to(full)
            if landing != full:
                at = self._at(landing)
                if at:
                    forms.append(at)
            if _links_of(full) > 1 and os.path.isfile(full):
                forms.append(_HARD_LINKED_FORM)
            at = self._at(full)
            if at and at not in forms:
                forms.append(at)
        return True

    def _folder_holds(
        self, folder: str, listed: tuple[tuple[str, int], ...], through_links: bool = True
    ) -> tuple[bool, tuple[str, ...]]:
        """(whether ``folder``'s own entries ``listed`` hold a secret or credential file or folder, its
        folders to walk on) for View._holds; a link's target only ``through_links`` (a search printing
        the tree keeps a link a link: `grep -R` and its kin are judged through their links apart). Kept
        while TreeLister gives the same listing (the same object: the folder unchanged), unless a link is
        among them (where it leads may change)."""
        kept = self._held.get(folder)
        if kept is not None and kept[0] is listed:
            return kept[1], kept[2]
        held = False
        folders: list[str] = []
        links = False
        for name, kind in listed:
            path = posixpath.join(folder, name)
            if kind == _TREE_LINK:
                links = True
                if not through_links:
                    continue
                path = os.path.realpath(path)  # zip, scp and rsync -L send what it leads to
            elif kind == _TREE_DIR:
                folders.append(path)
            if not self._at(path).isdisjoint(_SECRET_CLASSES):
                held = True  # a secret file, or a credential folder itself (`.ssh`, `.gnupg`)
                break
        found = (held, tuple(folders))
        if not links:
            if len(self._held) >= _TREE_KEPT_DIRS:
                self._held.clear()
            self._held[folder] = (listed, held, found[1])
        return found

    def secret_names(self) -> list[str]:
        """The name globs (no folder) of what the ``secret`` and ``credential`` classes protect
        wherever it lies (``*.pem``, ``id_rsa``): for a search that cannot ask about each file."""
        every = [*self._globs.get("secret", ()), *self._globs.get("credential", ())]
        return [g for g in anywhere_globs(every) if "/" not in g]

    def view(self) -> View:
        """The classifier for one check: each directory on the way of its words is looked at
        once, so one check sees one state of the file system."""
        return View(self)


class View:
    """One check's classifier (see :meth:`PathClassifier.view`).

    ``lands_elsewhere`` says whether a word may name another path than it spells (a symbolic
    link, a glob, ``..`` after a link), or any relative word when the working directory is
    itself critical: then no matcher may be skipped for the text it lacks.
    """

    __slots__ = (
        "_anywhere",
        "_classifier",
        "_critical",
        "_cwd",
        "_followed",
        "_holding",
        "_kept",
        "_kept_lands",
        "_lands",
        "_lexical_only",
        "_memo",
        "_walk",
        "asked_before",
        "holders",
        "printed_only",
    )

    def __init__(self, classifier: PathClassifier) -> None:
        self._classifier = classifier
        self._critical = classifier._cwd_critical is not None
        places = classifier.places
        self._walk = classifier._links.walk() if classifier._links is not None else None
        self._cwd = places.cwd if places is not None else "."
        self._memo: dict[str, frozenset[str]] = {}
        self._lands: dict[str, bool] = {}
        self._anywhere: dict[str, list[frozenset[str]]] = {}
        self._followed: dict[str, list[str] | None] = {}
        self._lexical_only = places is None
        # Whether the line sends a tree reader's output or a copy to another host (set by the evaluator):
        # then a word naming a folder that holds a secret is also of class SECRET_HOLDER (see _holds).
        self.holders = False
        # Whether those holders are for a search printing a tree to the caller only (`grep -r KEY .`): a
        # folder its reader cannot read is not read to the caller, and a walk past its bound, which found
        # no secret at the top, holds none (a question on every search of a large project would be one
        # nobody reads); a send to another host holds both (fail closed).
        self.printed_only = False
        # (quiet42) A quiet tree search on the line asking a folder the session searched quietly before something
        # new (set by the evaluator: evaluate._asked_before): the search's text, or "".
        self.asked_before = ""
        self._holding: dict[str, bool] = {}
        # The classifier's answers kept from earlier checks of this walk's generation (None: no watcher).
        self._kept: dict[str, tuple[frozenset[str], Depends]] | None = None
        self._kept_lands: dict[str, tuple[bool, Depends]] | None = None
        walk = self._walk
        if walk is not None and walk.generation:
            self._kept = classifier._kept
            self._kept_lands = classifier._kept_lands

    @property
    def workdir(self) -> str:
        """The working directory the check's relative words land in (the engine's, not the process's)."""
        return self._cwd

    def anywhere(self, word: str) -> list[frozenset[str]]:
        """The forms of a relative ``word`` read under a directory the line cannot know (`cd
        "$(cat f)"`, `cd -`, CDPATH): it may land in any folder whose members the engine reads
        (Places.engine_folders). Each folder where it would name something is a form: where an
        entry of that name exists (or a glob of it matches one), or, in a manifest folder, where
        a new file of that name would be loaded (a manifest suffix). A new `notes.txt` or a
        `build/` that no engine folder holds lands nowhere the engine reads, so `cd "$D"; rm -rf
        build` keeps its own verdict."""
        found = self._anywhere.get(word)
        if found is not None:
            return found
        found = []
        places = self._classifier.places
        if places is not None and places.engine_folders and word and not word.startswith(("/", "~", "$", "-")):
            path, computed = normalize_path(word)
            if not computed & {"url", "remote", "variable", "windows"} and not path.startswith(("/", "~")):
                loaded = path.rstrip("/").endswith(MANIFEST_SUFFIXES)
                globbed = not _GLOB_CHARS.isdisjoint(path)
                for folder in places.engine_folders:
                    joined = posixpath.normpath(posixpath.join(folder, path))
                    if globbed:
                        there = _any_match(joined)
                    else:
                        there = os.path.lexists(joined) or (loaded and folder in places.manifest_folders)
                    if there:
                        at = self._classifier._at(joined)
                        if at:
                            found.append(at)
        self._anywhere[word] = found
        return found

    def _root_baseline(self) -> frozenset[str]:
        """The classes of any name at the root (`/x`), the parents' classes: a system folder's (`"$X"/usr/bin/ls`
        with X unset writes /usr/bin/ls) is beyond them."""
        return self.classify("/x") | _PARENT_CLASSES

    def _home_baseline(self) -> frozenset[str]:
        """The classes of a plain file in the home (`~/x`), the parents' classes of any path with them."""
        return self.classify("~/x") | _PARENT_CLASSES

    def listed_in(self, word: str, cwd: str) -> frozenset[str] | None:
        """A listing of the tree (lists_tree) run after a `cd` on the line to ``cwd`` (relative to
        the working directory, `~/…` or absolute): judged by walking that folder, where its names
        are read (PathClassifier._listed). None when the folder is not known for certain (`cd -`,
        `cd "$D"`, `~user`) or nothing is walked here: the caller keeps it a path only the run knows."""
        places = self._classifier.places
        if places is None or self._walk is None or not lists_tree(word):
            return None
        if cwd == "~" or cwd.startswith("~/"):
            folder = places.home + cwd[1:]
        elif cwd.startswith(("~", "$")) or _UNSURE_FOLDER.search(cwd):
            return None
        else:
            folder = posixpath.join(places.cwd, cwd)
        folder = posixpath.normpath(folder)
        key = f"{folder}\0{word}"
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._classifier._listed(
                word, self._classifier._lexical(word), self._walk, folder
            )
        return found

    def followed(self, word: str, cwd: str | None) -> list[str] | None:
        """Where the symbolic links in the tree ``word`` names (read after a `cd` to ``cwd``, None:
        none) lead, for a reader that follows them (`grep -R`, `tar ch`, `cp -rL`): the real path
        of each link that leaves the tree (and of links in the trees those lead to), first
        _MAX_FOLLOWED_LINKS. None when that cannot be said for certain: a folder only the run
        knows (`cd "$D"`), or a walk past _MAX_FOLLOWED_ENTRIES (the caller asks). A word that
        names no folder walks nothing; a link it names itself is judged where it lands."""
        if self._classifier.places is None or not word or word.startswith("-"):
            return []
        if cwd == "$unknown" and not word.startswith(("/", "~")):
            return None
        spelled = word if cwd is None or word.startswith(("/", "~")) else posixpath.join(cwd, word)
        key = f"\0{spelled}"
        memo = self._followed
        if key in memo:
            return memo[key]
        found = memo[key] = self._walk_followed(spelled)
        return found

    def _walk_followed(self, spelled: str) -> list[str] | None:
        places = self._classifier.places
        if places is None:
            return []
        home = places.home
        if spelled == "~" or spelled.startswith("~/"):
            path = home + spelled[1:]
        elif spelled.startswith("~"):
            return None  # another user's home (`~bob`): not known here
        else:
            path = posixpath.join(self._cwd, spelled)
        path = posixpath.normpath(path)
        roots = _globbed(path)
        if roots is None:
            return None
        trees = [os.path.realpath(root) for root in roots if os.path.isdir(root)]
        pending = list(trees)
        seen = set(trees)
        landings: list[str] = []
        count = 0
        lister = self._classifier._trees
        while pending:
            current = pending.pop()
            listed = lister.entries(current)
            if listed is None:
                continue  # unreadable: the reader cannot read it either
            for name, kind in listed:
                count += 1
                if count > _MAX_FOLLOWED_ENTRIES:
                    return None
                if kind == _TREE_LINK:
                    real = os.path.realpath(posixpath.join(current, name))
                    if any(real == tree or real.startswith(tree.rstrip("/") + "/") for tree in trees):
                        continue  # inside a tree already walked
                    if len(landings) >= _MAX_FOLLOWED_LINKS:
                        return None
                    landings.append(real)
                    if home.startswith(real.rstrip("/") + "/"):
                        landings.append(home)  # a folder above home reads home (`ln -s ../.. up`)
                    if os.path.isdir(real) and real not in seen:
                        seen.add(real)
                        trees.append(real)
                        pending.append(real)
                elif kind == _TREE_DIR:
                    pending.append(posixpath.join(current, name))
        return landings

    def classify(self, word: str) -> frozenset[str]:
        """The classes of ``word`` in this check's view of the file system. A method, not a bound
        method kept on the view: a view that held its own would be freed by the cycle collector
        only, with its walk and memos (on every check)."""
        if self._lexical_only:
            return self._classifier._lexical(word)
        found = self._memo.get(word)
        if found is None:
            # An answer an earlier check found from vouched-for listings alone holds while their stamps
            # do: no event since on them, so no listing, link or entry on the word's way has changed.
            kept = self._kept
            walk = self._walk
            held = kept.get(word) if kept is not None else None
            if held is not None and walk is not None and walk.holds(held[1]):
                found = held[0]
                if held[1][0] != walk.generation and kept is not None:
                    kept[word] = (found, walk.restamped(held[1]))
            else:
                if walk is not None:
                    walk.sure = True
                found = self._classifier._classify_here(word, walk)
                if kept is not None and walk is not None and walk.sure:
                    if len(kept) >= _MAX_KEPT:
                        kept.clear()  # (answers of stamps long gone among them; simpler than an LRU)
                    kept[word] = (found, walk.depends())
            if "$" in word and "variable" in found and "computed" not in found:
                found = self._under_unknown(word, found)
            if USER_FILE in found:
                found = self._user_file(word, found)
            self._memo[word] = found
        if self.holders and self._holds(word, found):
            return Classes([form | _HOLDER for form in forms_of(found)])
        return found

    def _user_file(self, word: str, found: frozenset[str]) -> frozenset[str]:
        """``found`` (holding USER_FILE) without it when ``word`` names no existing file of the user's outside
        the working tree, read on disk now (never kept across checks: a file made since is one): a new name, a
        folder, a path whose real path is in the working tree (`~/proj/x` with the project at ~/proj). A glob
        keeps it when one of its matches is such a file (or it matches past the bound); a word whose place only
        the run knows keeps it (fail closed). Pattern examples (no places on disk) keep the spelling's class."""
        places = self._classifier.places
        if places is None or not places.resolve:
            return found
        where = self._classifier._where(word)
        if where is None:
            return found
        raw = where[1]
        names = _globbed(raw) if not _GLOB_CHARS.isdisjoint(raw) else [raw]
        if names is None:
            return found
        cwd = places.cwd.rstrip("/") + "/"
        for name in names:
            try:
                real = os.path.realpath(name)
                if (real + "/").startswith(cwd) or not os.path.lexists(name) or os.path.isdir(name):
                    continue
            except (OSError, ValueError):
                return found
            return found
        forms = [form - _USER_FILE for form in forms_of(found)]
        return Classes(forms) if len(forms) > 1 else forms[0]

    def _holds(self, word: str, found: frozenset[str]) -> bool:
        """Whether ``word`` (classes ``found``) names a folder holding, within a bounded walk, a file
        of class secret or credential (`.`, `src`, `/srv/app` with a `.env` below). Read afresh on each
        check from the tree listings (TreeLister: one stat per folder it kept; a folder changed since
        is listed again), never kept: a `.env` created below changes the next check's answer. A word
        only the run knows (a variable), a folder that cannot be read, or a walk past _MAX_LISTED
        entries holds one (fail closed: the SECRET_HOLDER rows are about sending it to another host)."""
        held = self._holding.get(word)
        if held is None:
            held = self._holding[word] = self._walk_holds(word, found)
        return held

    def _walk_holds(self, word: str, found: frozenset[str]) -> bool:
        classifier = self._classifier
        if not word or word[0] == "-" or not found.isdisjoint(_NOT_LOCAL):
            return False
        if not found.isdisjoint(EXPANSION_CLASSES) or not found.isdisjoint(_SECRET_CLASSES):
            return True  # a folder only the run knows (`tar c "$D" | nc h 80`), or a secret's own
        where = classifier._where(word)
        if where is None:
            return False
        normal = where[0]
        roots = _globbed(normal)
        if roots is None:
            return True
        pending = [os.path.realpath(root) for root in roots if os.path.isdir(root)]
        trees = classifier._trees
        seen = 0
        while pending:
            folder = pending.pop()
            listed = trees.entries(folder)
            if listed is None:
                if self.printed_only:
                    continue  # nor can the search read it
                return True  # a folder the walk cannot read: what it holds is not known
            seen += len(listed)
            if seen > _MAX_LISTED:
                return not self.printed_only
            held, folders = classifier._folder_holds(folder, listed, not self.printed_only)
            if held:
                return True
            pending.extend(folders)
        return False

    def _under_unknown(self, word: str, found: frozenset[str]) -> frozenset[str]:
        """A path whose folder is a variable the line never sets (`$HERMES_HOME/config.yaml`,
        `$p/policies/deny.yaml` with `p=$PWD` forgotten after `cd /tmp`): it may be any folder, the
        engine's too. When the literal names after the variable (or their last ones) name one of
        the engine's files in a folder it reads (View.anywhere), the word is a name only the run
        knows (`computed`: a write to it asks, write_computed_target); otherwise it keeps its classes
        (`$OUT/log.txt`)."""
        tail = _UNKNOWN_PREFIX.search(word)
        if tail is None:
            return found
        if tail.start() == 0:
            # a variable whose usual value is known (`$HERMES_HOME/.env` is `~/.hermes/.env` by default)
            for default in self._classifier.folders.get(tail.group(1).strip("${}").upper(), ()):
                usual = self.classify(default + tail.group(2))
                if usual - self._home_baseline():
                    # (xfail39) and the secret the usual folder holds there is read as that secret
                    # (`cat $XDG_RUNTIME_DIR/containers/auth.json` prints a registry login)
                    return Classes([*forms_of(found), found | _COMPUTED | (usual & _SECRET_CLASSES)])
        parts = [p for p in tail.group(2).split("/") if p and p != "."]
        while ".." in parts:  # above an unknown folder: another unknown one
            parts = parts[parts.index("..") + 1 :]
        if len(parts) > _MAX_UNKNOWN_TAIL:
            return Classes([*forms_of(found), found | _COMPUTED])
        if parts:
            # (stop 52) the variable empty (an unset one, `"$@"` with no arguments): the path from the root
            # (`cat "$X"/etc/shadow`, `echo x > "$DESTDIR"/etc/cron.d/x`), a system file beyond the root's own classes
            rooted = self.classify("/" + "/".join(parts))
            if rooted - self._root_baseline():
                return Classes([*forms_of(found), found | _COMPUTED | (rooted & _SECRET_CLASSES)])
        folders = self._classifier.places.engine_folders if self._classifier.places is not None else ()
        for start in range(len(parts)):
            rel = "/".join(parts[start:])
            homes = self.classify("~/" + rel) - self._home_baseline()
            if homes:
                # a file of the home's (`$X/.bashrc`, `$X/.ssh/authorized_keys`): the folder may be HOME, and
                # (stop 53) a file of the user's there is theirs to lose (`rm $D/notes.txt`, `cd "$D" && rm
                # notes.txt`: user_file_destroyed, as `rm ~/notes.txt`)
                # (a temp folder's own file is no user's: `rm "$TMPDIR/notes.txt"`; rev53b: not above it, whose
                # parent may be the home, `$TMPDIR/../notes.txt`, and a start-up file keeps its class)
                temp = tail.start() == 0 and tail.group(1).strip("${}") in _TEMP_VARIABLES and ".." not in tail.group(2)
                lost = homes & _LOST_AT_HOME - (_USER_FILE if temp else frozenset())
                return Classes([*forms_of(found), found | _COMPUTED | lost])
            if start == len(parts) - 1 and not any(os.path.lexists(posixpath.join(f, rel)) for f in folders):
                # A new name alone (`$OUT/deploy.yaml`): that the unknown folder is a manifest folder
                # is no likelier than any other; its name with the folder's (`$D/policies/x.yaml`) is.
                continue
            if any(form & ENGINE_CLASSES for form in self.anywhere(rel)):
                return Classes([*forms_of(found), found | _COMPUTED])
        return found

    def folder(self, spelled: str) -> str | None:
        """The absolute, normal path a `cd` to ``spelled`` leads to from the working directory;
        None when the text alone cannot say (a variable, a glob, another user's home)."""
        places = self._classifier.places
        if places is None or not spelled or _UNSURE_FOLDER.search(spelled):
            return None
        if spelled == "~" or spelled.startswith("~/"):
            path = places.home + spelled[1:]
        elif spelled.startswith("~"):
            return None
        else:
            path = posixpath.join(self._cwd, spelled)
        return posixpath.normpath(path) if path.startswith("/") else None

    def dash_names(self, cwd: str | None, every: bool = False) -> tuple[str, ...] | None:
        """(xf46) The names starting with `-` in the folder a command runs in (``cwd``: Command.cwd, None for
        the working directory), which a glob word there expands to where its program reads options; None
        when the folder is not known for certain (`cd "$D"`), () when it cannot be listed. ``every``: all its
        names (adv47: the values a planted `-c` reads from the names after it, `git * status`)."""
        folder = self._cwd if cwd is None else self.folder(cwd)
        if folder is None:
            return None
        return self._classifier._trees.dash_names(folder, every)

    def classify_plain(
        self,
        words: Iterable[str],
        directory: str | None = None,
        classes: frozenset[str] | None = None,
        *,
        all_plain: bool = False,
    ) -> set[str]:
        """Classify the plain names among ``words`` at once, ahead of :attr:`classify`; return
        those of ``words`` whose only class is then known to be ``relative``.

        For a long text of many distinct words (the flat scan), one word at a time costs more
        than all the rest. A plain name (_PLAIN_NAME) means `./NAME`: its only class is
        ``relative`` unless a class glob matches NAME, CWD/NAME or its `~` form, or it is a
        symbolic link. All of those are found in one RE2 pass over the names joined by lines
        (any line a match touches is left to :attr:`classify`), and one listing of the working
        directory; the others are remembered as ``relative``. Nothing is remembered when the
        working directory is itself critical or a link may be on its way (then every word is
        classified on its own, as before). Set work in C, no Python step per word.

        ``directory`` (absolute, normal; see :meth:`folder`): the names as they would be read
        after a `cd` there, by every class glob and the engine's (a superset: the working
        directory's own area classes are not left out); nothing is remembered. With ``classes``
        too: the names no glob of those classes may hold there (what a caller that reads only
        those classes cannot tell apart; `cd ~/.ssh` leaves `a1` and `a2` alike to a hardline
        matcher, though both are credentials). ``all_plain``: the caller has kept only plain names
        (one search of them all less).
        """
        scope = self._plain_scope(directory)
        if scope is None:
            return set()
        cwd, links = scope
        memo: dict[str, frozenset[str]] = self._memo if directory is None else {}
        given = set(words)
        known = {w for w in memo.keys() & given if memo[w] == _RELATIVE}
        unknown = given.difference(memo, links)
        plain = unknown if all_plain else _PLAIN_LINES.findall("\n".join(unknown))
        if not plain:
            return known
        found = self._touched_names("\n".join(plain).encode("utf-8", "surrogatepass"), cwd, directory, classes)
        if found is None:
            return set()
        touched = {name.decode("utf-8", "replace") for name in found}
        relative = (unknown if all_plain else set(plain)).difference(touched)
        memo.update(dict.fromkeys(relative, _RELATIVE))
        return relative | known

    def plain_touched(
        self, lines: bytes, directory: str | None = None, classes: frozenset[str] | None = None
    ) -> set[bytes] | None:
        """Of plain names joined by lines (UTF-8), a set that holds every one whose only class
        may not be ``relative`` (see :meth:`classify_plain`, whose test this is, on bytes and
        remembering nothing: the flat scan's fold reads thousands of new names at once); None
        when no name can be said to be only ``relative``."""
        scope = self._plain_scope(directory)
        if scope is None:
            return None
        cwd, links = scope
        touched = self._touched_names(lines, cwd, directory, classes)
        if touched is not None:
            touched.update(name.encode("utf-8", "surrogatepass") for name in links)
        return touched

    def _plain_scope(self, directory: str | None) -> tuple[str, frozenset[str]] | None:
        """(the folder plain names are read in, its names that land elsewhere), or None when no
        plain name there can be said to be only ``relative`` (see :meth:`classify_plain`)."""
        classifier = self._classifier
        if classifier.places is None or self._critical:
            return None
        cwd = self._cwd if directory is None else directory
        if classifier._plain_finders() is None or not cwd.startswith("/") or posixpath.normpath(cwd) != cwd:
            return None
        links: frozenset[str] = frozenset()
        if self._walk is not None:
            found = self._walk.names_landing_elsewhere(cwd)
            if found is None:
                # A folder a `cd` names that is not there (yet), on no link's way: nothing in it
                # lands elsewhere now (`cd build` before thousands of runs was judged run by run).
                if directory is None or os.path.lexists(directory) or self._walk.landing(directory) is not None:
                    return None
                found = frozenset()
            links = found
        return cwd, links

    def _touched_names(
        self, spelled: bytes, cwd: str, directory: str | None, classes: frozenset[str] | None
    ) -> set[bytes] | None:
        """The names among ``spelled`` (plain names joined by lines) a class glob may hold, as
        spelled or in ``cwd`` (see :meth:`classify_plain`); None when none can be said free of them."""
        classifier = self._classifier
        places = classifier.places
        finders = classifier._plain_finders()
        assert places is not None and finders is not None
        inside = cwd.rstrip("/") + "/"
        relative = classifier._relative_finders(cwd) if directory is None else None
        touched: set[bytes] = set()
        if relative is not None:
            # The names alone, and with the folder's path before them only for the globs whose
            # wildcards read it (_relative_finders): no copy of the folder's path per name.
            scans = [(relative[0], spelled)]
            scans += [(finder, form + spelled.replace(b"\n", b"\n" + form)) for form, finder in relative[1]]
        else:
            prefix = inside.encode("utf-8", "surrogatepass")
            here = prefix + spelled.replace(b"\n", b"\n" + prefix)
            tilde = classifier._tilde(cwd)
            if tilde != cwd:
                other = (tilde.rstrip("/") + "/").encode("utf-8", "surrogatepass")
                here += b"\n" + other + spelled.replace(b"\n", b"\n" + other)
            scans = [(finders[0], spelled), (finders[1], here)]
        if directory is not None and classes is not None:
            only = classifier._class_finder(classes)
            if only is None:
                return None
            scans = [(only, spelled), (only, here)]
        elif directory is not None:
            scans.append((finders[0], here))  # every declared class, the area ones too
        for finder, data in scans:
            for n, (start, stop) in enumerate(finder.spans(data)):
                if directory is not None and n >= _MANY_TOUCHED:
                    return None  # a folder the classes hold most of (`cd engine`): none is said plain
                first = data.rfind(b"\n", 0, start) + 1
                last = data.find(b"\n", stop)
                for line in data[first : last if last >= 0 else len(data)].split(b"\n"):
                    touched.add(line.rsplit(b"/", 1)[-1])
        home = places.home
        if home.startswith(inside):  # CWD/NAME is home itself: `~`
            touched.add(home[len(inside) :].split("/", 1)[0].encode("utf-8", "surrogatepass"))
        return touched

    def text_lands_elsewhere(self, text: str) -> bool:
        """Whether a word of ``text`` (read roughly, before parsing) may land elsewhere."""
        if self._critical:
            return True
        walk = self._walk
        if walk is None:
            return False
        bare = unquoted(text)  # quotes and backslashes gone (C, no regex)
        links_here = walk.links_in(self._cwd)
        if links_here is not None:
            # Set work first (a long line has many words): a word that names a link here (an
            # option too: that only judges more), then none that is more than a name. The words
            # are listed only when they are needed (a folder without links, a text without paths).
            if links_here and not links_here.isdisjoint(_PATH_WORDS.findall(bare)):
                return True
            if not _pathlike(bare):
                return False
        return self.words_land_elsewhere(set(_PATH_WORDS.findall(bare)))

    def words_land_elsewhere(self, words: Iterable[str]) -> bool:
        if self._critical:
            return True
        walk = self._walk
        if walk is None:
            return False
        # An answer an earlier check found from vouched-for listings alone holds while their stamps do
        # (as View.classify's kept classes): no event since on the word's way.
        kept = self._kept_lands
        lands_memo = self._lands
        links_here: frozenset[str] | None = None
        listed = False
        listed_sure = True  # whether the working directory's listing was vouched for
        for word in words:
            if not word or word[0] == "-":
                continue
            lands = lands_memo.get(word)
            if lands is None and kept is not None:
                held = kept.get(word)
                if held is not None and walk.holds(held[1]):
                    lands = held[0]
                    if held[1][0] != walk.generation:
                        kept[word] = (lands, walk.restamped(held[1]))
            if lands is None and word[0] in "$`" and lists_tree(word):
                # (fp47) a listing of the tree names the files it lists, the engine's among them, without spelling
                # them: `rm $(find . -name '*.py')` with the engine's .venv (or toolsets/) below
                lands = lands_memo[word] = not self.classify(word).isdisjoint(ENGINE_CLASSES)
            if lands is None:
                before = walk.sure
                walk.sure = True
                if _PATHLIKE_CHARS.search(word) is None:
                    # A plain name in the working directory: one set lookup in its listing.
                    if not listed:
                        links_here = walk.links_in(self._cwd)
                        listed, listed_sure = True, walk.sure
                    elif not listed_sure:
                        walk.sure = False
                    lands = word in links_here if links_here is not None else walk.is_link(self._cwd, word)
                else:
                    lands = self._pathlike_lands(word)
                if kept is not None and walk.sure:
                    if len(kept) >= _MAX_KEPT:
                        kept.clear()
                    kept[word] = (lands, walk.depends())
                walk.sure = before and walk.sure
                lands_memo[word] = lands
            if lands:
                return True
        return False

    def _pathlike_lands(self, word: str) -> bool:
        assert self._walk is not None
        where = self._classifier._where(word)
        if where is None:
            # Judged as the local file it names too (`ab:/../.en?`: see _classify_here), which may
            # be a glob or climb with `..` like any other path.
            local = local_reading(word, urls=False)
            return local is not None and self._pathlike_lands(local)
        normal, raw = where
        return any(c in raw for c in "*?[") or ".." in raw.split("/") or self._walk.landing(normal) is not None


# The literal names after the last variable of a word (`$D/policies/deny.yaml`, `${X}/a`): see
# View._under_unknown.
_UNKNOWN_PREFIX = re.compile(r"(\$\{[^{}]*\}|\$[A-Za-z_]\w*|\$[0-9@*#?$!-])((?:/[^$`/]*)+)$")
_HOLDER: Final = frozenset({SECRET_HOLDER})
_NOT_LOCAL: Final = frozenset({"url", "remote", "windows"})
_SECRET_CLASSES: Final = frozenset({"secret", "credential", "secret_parent"})
_PARENT_CLASSES = frozenset({"engine_parent", "protected_parent", "secret_parent", "home_top", "home_any", "absolute"})
_MAX_UNKNOWN_TAIL = 8  # names after the variable past which the word is not walked: asks
_COMPUTED = frozenset({"computed"})
# (stop 53) the classes a home's file keeps under a folder that may be the home (View._under_unknown): what the user
# loses when it is deleted or rewritten there (user_file_destroyed, remove_sensitive_file) and what it prints
# (adv53) a temp folder's variables: a file there is no file of the home's (`rm "$TMPDIR/notes.txt"`)
_TEMP_VARIABLES: Final = frozenset({"TMPDIR", "TMP", "TEMP", "RUNNER_TEMP"})
_LOST_AT_HOME: Final = _USER_FILE | _SECRET_CLASSES | frozenset({"shell_startup", "sensitive_dotfile"})
_PATH_WORDS = re.compile(r"[^\s;&|<>()`'\"=]+")
# A word naming a path by more than a plain name holds one of these.
_PATHLIKE_CHARS: Final = re.compile(r"[/~*?\[]")
_PATHLIKE_LONG = 256  # texts longer than this are searched for each of them apart (_pathlike)


def _pathlike(text: str) -> bool:
    """Whether ``text`` holds a character of _PATHLIKE_CHARS. In a long text, one memchr each: the
    regex stops at every character (~0.3 ms over 64 KiB without one)."""
    if len(text) <= _PATHLIKE_LONG:
        return _PATHLIKE_CHARS.search(text) is not None
    return "/" in text or "~" in text or "*" in text or "?" in text or "[" in text


def unquoted(text: str) -> str:
    """``text`` without quotes and backslashes (the flat scan's reading, and words read roughly).
    Replaces, as fast for wide text as for ASCII, where `str.translate` maps each character of a
    non-ASCII text in turn (18 ms for 64 KiB of fullwidth letters); each only for a character the
    text holds (one memchr: a replace costs ~20 us over 64 KiB even without one)."""
    if '"' in text:
        text = text.replace('"', "")
    if "'" in text:
        text = text.replace("'", "")
    if "\\" in text:
        text = text.replace("\\", "")
    return text
