"""Second names made on the line: `ln -s TARGET NAME`, `cp -s`, `mount --bind`.

Later words through NAME are judged as TARGET (`ln -sfn ~ hl; rm -rf hl/*` is `rm -rf ~/*`),
and so is a `cd` into it. rm, unlink and mv given the link's own name act on the link
itself; through `hl/` or `hl/x` they reach what it points to.
"""

from __future__ import annotations

import fnmatch
import posixpath

from engine.policy.argv import Grammar, parse_argv
from engine.policy.commands import command_name
from engine.policy.follow import join_path
from engine.policy.programs import Program, subcommand_levels
from engine.policy.regexes import bash_brackets
from engine.policy.trees import followed_words, split_prefix

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from engine.policy.shell import Command

# Programs that make a second name for a file or directory.
LINKERS = frozenset({"ln", "cp", "mount", "link"})  # (stop 53: link(1), a hard link)
# (adv41) The programs writing files whose names the line does not show under the folder they run in (an archive's
# members, a diff's targets) are the Programs entries with `unpacks_here: true` (ProgramTable.unpacks_here, debt42).
_ON_THE_LINK = frozenset({"rm", "unlink", "mv"})
# The builtins entering a folder (a link's name read both ways enters a folder only the run knows)
_ENTERS = frozenset({"cd", "pushd"})
# What a link made to a target known only at run time leads to (a program named by it is any program).
UNKNOWN_TARGET = "$unknown"

_MAX_FOLLOWED = 16  # readings of one reader through the links made on the line


def _below(name: str, folder: str) -> bool:
    """Whether the file key ``name`` lies below ``folder`` (a file key: `.` is the working directory)."""
    if folder == ".":
        return not name.startswith(("/", "~", "../")) and name != ".."
    return name.startswith(folder.rstrip("/") + "/")


class LinkFollower:
    """Mixin of the analyzer: records links made on the line and reads words through them."""

    links: dict[str, str]  # NAME (as a file key) -> TARGET
    cwd: str | None

    def _file_key(self, word: str) -> str:
        raise NotImplementedError

    def _on_disk_kind(self, key: str) -> str:
        """ "folder", "file" or "" (neither, or the disk cannot say) for the file key ``key`` now."""
        raise NotImplementedError

    def _a_folder(self, name: str) -> bool:
        """(stop 53) Whether a link's NAME is a folder for certain: a home, `.`, `..`, `/`, or a folder on the disk."""
        key = self._file_key(name)
        bare = key.rstrip("/")
        if set(bare.split("/")) <= {"", ".", ".."} or (bare.startswith("~") and "/" not in bare):
            return True
        return self._on_disk_kind(key) == "folder"

    def _workdir_key(self, key: str) -> str | None:
        """The file key ``key`` (absolute, `~/...` or `../...`) as the working directory's relative key when it names
        a file under the session's workdir (`~/p/src/x` with the project at ~/p: `src/x`); None otherwise."""
        return None

    def _link_key(self, word: str) -> str:
        """``word``'s file key for the links: a name in the project spelled from the home or the root (`~/p/x`,
        `$PWD/../p/x`) is its relative key (adv53: `ln -s ~/notes.txt x; echo x > ~/p/x` wrote the user's note)."""
        key = self._file_key(word)
        if key[:1] in ("/", "~") or key.startswith("../"):
            return self._workdir_key(key) or key
        return key

    def _record_link(self, command: Command) -> None:
        """`ln -s TARGET NAME`, `cp -s`, `mount --bind`: later words through NAME mean TARGET."""
        program = command.program
        if command.name == "link":
            # (stop 53) link(1) FILE1 FILE2: a hard link (`link ~/notes.txt h; echo x > h` wrote the user's note); a
            # FILE2 that exists (`link /tmp/q ~`) makes none
            words = command.argv[2:] if command.argv[1:2] == ("--",) else command.argv[1:]
            if len(words) == 2 and not any(w[:1] == "-" for w in words) and not self._a_folder(words[1]):
                self._record_pairs(command, [(words[0], words[1], words[0])], None)
            return
        if program is None:
            return
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
        # (TARGET as written, NAME, TARGET from the working directory)
        pairs: list[tuple[str, str, str]]
        if directory is not None:
            pairs = [(t, posixpath.join(directory, posixpath.basename(t.rstrip("/"))), t) for t in operands]
        elif len(operands) == 1:
            pairs = [(operands[0], posixpath.basename(operands[0].rstrip("/")) or operands[0], operands[0])]
        elif len(operands) >= 2:
            *targets, last = operands
            if len(targets) > 1 or last.endswith("/"):
                pairs = [(t, posixpath.join(last, posixpath.basename(t.rstrip("/"))), t) for t in targets]
            else:
                target = targets[0]
                base = posixpath.basename(target.rstrip("/"))
                # (stop 53) NAME a folder for certain (`~`, `.`, `..`, `/`, one on the disk): the link is made in it,
                # never over it (`ln -sf /tmp/q ~; rm -rf ~/` deletes the home)
                pairs = [] if self._a_folder(last) else [(target, last, target)]
                into = not present & {"T", "no-target-directory"} and command.name != "mount"
                symbolic = bool(present & {"s", "symbolic"})
                if (
                    into
                    and base not in ("", ".", "..")
                    and base[:1] != "~"
                    and not (symbolic and not target.startswith(("/", "~")))
                ):
                    # (stop 53) NAME may be a folder (`cp -l ~/notes.txt .`, `ln ~/notes.txt src`): the link is then
                    # TARGET's name inside it (`./notes.txt`), read both ways. (A symbolic link's relative TARGET is
                    # read from NAME's folder: the line's `NAME/` reading, shell's _into_folder, makes that pair.)
                    pairs.append((target, posixpath.normpath(posixpath.join(last, base)), target))
        else:
            return
        self._record_pairs(command, pairs, directory)

    def _record_pairs(self, command: Command, pairs: list[tuple[str, str, str]], directory: str | None) -> None:
        """The links ``pairs`` (TARGET as written, NAME, TARGET from the working directory) a command made, remembered
        under NAME's file key (a target known only at run time, `ln -s "$(which rm)" x`: the name leads anywhere)."""
        unknown = {w for w, d in zip(command.argv, command.dynamic, strict=False) if d}
        for target, name, spelled in pairs:
            if name in unknown or (directory is not None and directory in unknown):
                continue
            if target in unknown:
                self.links[self._link_key(name)] = UNKNOWN_TARGET
                continue
            resolved = spelled if spelled.startswith(("/", "~")) else join_path(self.cwd, spelled)
            self.links[self._link_key(name)] = self._through_link(resolved)

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
        # (xfail39) a `./` the line's $PWD became is the working directory, absolute to the shell, which ln
        # keeps as it is: not read from NAME's folder (`ln -s $PWD/../c/.env /tmp/l` leads to ../c/.env from here)
        here = self._took_pwd()
        for i in targets:
            target = argv[i]
            if target and not target.startswith(("/", "~")) and not (here and (target == "." or target[:2] == "./")):
                out[i] = posixpath.normpath(posixpath.join(folder, target))
        return out

    def _took_pwd(self) -> bool:
        """Whether the command being read took $PWD (or `$(pwd)`) for "." in its words."""
        return False

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

    def _tree_links(self, command: Command, written: list[str] | None = None) -> list[list[str]]:
        """A link-following recursive reader (followed_words) of a tree holding links made on the
        line: its argv with each word it walks replaced by each target of a link below that word
        (and of links below those targets), up to _MAX_FOLLOWED. ``written``: the words as the line wrote them,
        before they were read through the links (xf45: `ln -s ../../home src` into an existing folder src makes
        src/home; `grep -R x src` read `src` as the link only, and never walked src/home)."""
        out: list[list[str]] = []
        argv = command.argv
        for i in followed_words(command):
            if command.dynamic[i]:
                continue
            key = self._link_key(argv[i])  # (rev53b: the links' own keys, `~/p/h` is `h`)
            pending = [key]
            seen = {key}
            if written is not None and len(written) == len(argv) and written[i] != argv[i]:
                # (the word as written, a folder the link was made in: its own links below it)
                pending.append(self._link_key(written[i]))
                seen.add(pending[-1])
            while pending and len(out) < _MAX_FOLLOWED:
                folder = pending.pop()
                for name, target in self.links.items():
                    if target not in seen and _below(name, folder):
                        seen.add(target)
                        pending.append(target)
                        out.append([*argv[:i], target, *argv[i + 1 :]])
        return out

    def _links_here(self) -> list[str]:
        """(adv41) The targets of the links made on the line or earlier in the session below the folder the
        command runs in (`ln -s ~ b/h; cd b && tar xf a.tar`): an unpacker there writes a member `h/.bashrc`
        through the link, so it is judged again as run in each target (up to _MAX_FOLLOWED)."""
        folder = self._link_key(".")
        return [target for name, target in self.links.items() if _below(name, folder)][:_MAX_FOLLOWED]

    def _through_links(self, argv: list[str]) -> list[str]:
        # rm, unlink and mv act on a link named by itself (`rm -rf hl` removes the link); through
        # `hl/` or `hl/x` they reach what it points to.
        final = command_name(argv[0]) not in _ON_THE_LINK
        out = [
            self._through_link(word, final) if i == 0 or not word.startswith("-") else word
            for i, word in enumerate(argv)
        ]
        for i, word in enumerate(out):
            head, equals, value = word.partition("=")
            if i and equals and value and "/" not in head:
                # (adv53) a name after `=` (dd's `of=x`, `--output=x`): through the link as a word alone
                # (`ln -s ~/notes.txt x; dd if=a.py of=x` wrote the user's note)
                through = self._through_link(value, final)
                if through != value:
                    out[i] = head + equals + through
        if argv[0] in _ENTERS:
            for i, word in enumerate(argv[1:], 1):
                key = self._link_key(word)
                target = self.links.get(key, "")
                outside = target[:1] in ("/", "~", "$") or target.startswith("../")
                below = any(name.startswith(key + "/") for name in self.links)
                if outside and below and self._on_disk_kind(target) == "file":
                    # (adv53) a name read both as a link and as a folder holding one (`mkdir src; ln ~/notes.txt
                    # src`): `cd` cannot enter a link to a file, so it enters the folder if there is one, or stays
                    # (`cd src; echo x > notes.txt` wrote the user's note): a folder only the run knows. A link to a
                    # folder, or to nothing on the disk (a symbolic one), it enters (rev53b: `ln -s ~ d; cd d && mv
                    # p /tmp/` moved the project)
                    out[i] = UNKNOWN_TARGET
        if "/" in argv[0] and "/" not in out[0]:
            # `ln -s a.sh b; ./b` runs the file a.sh, not a command of that name found on PATH (adv30)
            out[0] = "./" + out[0]
        return out

    def _attached_links(
        self, program: Program, argv: list[str], dynamic: list[bool]
    ) -> list[tuple[list[str], list[bool]]]:
        """(stop 54) ``argv`` once more for each short option whose value is attached to its word and names a link
        made here (`ln -s ~/notes.txt x; sort -ox a.py` wrote the user's note): the value as a word of its own
        (`sort -o x a.py`), which the links then read. Fail closed: an extra reading, never in place of the line."""
        out: list[tuple[list[str], list[bool]]] = []
        found = [
            (level.grammar, option, value, at)
            for level, reading in subcommand_levels(program, parse_argv(program.grammar, argv), argv)
            for option, value, at in reading.options
        ]
        for grammar, option, value, at in found:
            word = argv[at]
            if not value or dynamic[at] or word[:2] == "--" or word[:1] != "-" or len(option) != 1:
                continue
            if not word.endswith(value):
                continue
            if self._through_link(value) == value:
                continue
            head = word[: len(word) - len(value)]
            if grammar.short_equals and head.endswith("="):
                head = head[:-1]
            out.append(([*argv[:at], head, value, *argv[at + 1 :]], [*dynamic[: at + 1], *dynamic[at:]]))
            if len(out) >= _MAX_FOLLOWED:
                break
        return out

    def _pieces_links(self, command: Command) -> list[str]:
        """(stop 55) The targets of the links made here whose names a splitter's pieces may take: its prefix and any
        suffix, in the prefix's folder (`ln -s ~/notes.txt xaa; split -l1 a.py` wrote the user's note through xaa)."""
        prefix = split_prefix(command)[1]
        if not prefix:
            return []
        key = self._link_key(prefix)
        found = [target for name, target in self.links.items() if name.startswith(key) and "/" not in name[len(key) :]]
        return found[:_MAX_FOLLOWED]

    def _through_link(self, word: str, final: bool = True) -> str:
        key = (self._link_key(word) if self.links else self._file_key(word)) if word else word
        target = self.links.get(key)
        if target is not None and (final or word.endswith("/")):
            return target + ("/" if word.endswith("/") and not target.endswith("/") else "")
        # the deepest link the word is under (`ln ~/notes.txt src` with src a folder made src/notes.txt, under src)
        if self.links and not _GLOB_CHARS.isdisjoint(key):
            # a glob word: the deepest link it may name (`src/notes.tx?` names src/notes.txt before src)
            through = _globbed_link(key, word, self.links, final)
            if through != word:
                return through
        under = [name for name in self.links if key.startswith(name + "/")]
        globbed = _link_by_glob(key, word, self.links, final) if self.links else None
        if under:
            name = max(under, key=len)
            if globbed is None or globbed[0] <= name.count("/") + 1:
                return self.links[name].rstrip("/") + key[len(name) :]
        if globbed is not None:
            return globbed[1]
        return word


_GLOB_CHARS = frozenset("*?[")


def _globbed_link(key: str, word: str, links: dict[str, str], final: bool) -> str:
    """A glob word that may name a link at run time (`src/*/` with `src/up -> ../..`, `cat
    src/*/.ssh/id_*`, `grep -r x src/*`): read through the first link a leading part of it can
    match, component by component (the walk the shell's expansion makes; a dot-name matches only a
    dot-pattern). rm, unlink and mv (``final`` False) given the link's own name act on the link.
    (adv53) The deepest link it may name (`ln ~/notes.txt src` made src/notes.txt, which `src/notes.tx?`
    names, under src read as the link too: `printf x > src/notes.tx?` wrote the user's note)."""
    found = _deepest_link(key, word, links, final, False)
    if found is None:
        return word
    through = found[1]
    return through + ("/" if word.endswith("/") and not through.endswith("/") else "")


def _link_by_glob(key: str, word: str, links: dict[str, str], final: bool) -> tuple[int, str] | None:
    """(adv53) A word naming a link whose own name is a glob (`ln ~/notes.* src` made src/notes.*: the names the
    glob matches when ln runs): the deepest such link a leading part of the word matches (`echo x > src/notes.txt`
    wrote the user's note), as (its depth, the word through it); None when none does."""
    return _deepest_link(key, word, links, final, True)


def _deepest_link(key: str, word: str, links: dict[str, str], final: bool, glob_names: bool) -> tuple[int, str] | None:
    """The deepest link a leading part of ``key`` may name, as (its depth, ``key`` through it); None when none
    does. ``glob_names``: the links' names are the globs (only such links are tried), else ``key``'s parts are."""
    parts = key.rstrip("/").split("/")
    found: tuple[list[str], str] | None = None
    for name, target in links.items():
        if glob_names and _GLOB_CHARS.isdisjoint(name):
            continue
        named = name.split("/")
        if len(named) > len(parts) or (len(named) == len(parts) and not final and not word.endswith("/")):
            continue
        if found is not None and len(named) <= len(found[0]):
            continue
        pairs = zip(parts, named, strict=False) if glob_names else zip(named, parts, strict=False)
        if all(_component_matches(n, p) for n, p in pairs):
            found = (named, target)
    if found is None:
        return None
    named, target = found
    rest = "/".join(parts[len(named) :])
    return len(named), target.rstrip("/") + ("/" + rest if rest else "")


def _component_matches(name: str, pattern: str) -> bool:
    if _GLOB_CHARS.isdisjoint(pattern):
        return name == pattern
    if name.startswith(".") and not pattern.startswith("."):
        return False
    if "[" in pattern:
        pattern = bash_brackets(pattern)  # `[^a]`, `[[:alpha:]]` as bash reads them
    return fnmatch.fnmatchcase(name, pattern)
