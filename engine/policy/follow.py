"""Following what a program runs, as the Programs table describes it.

For each simple command the analyzer finds, its program's grammar is applied to
its words and every *run* of the table is read: the command a wrapper runs next,
a shell string in an option, a script in a file written earlier on the line, an
inline program, a sed or ex command. Each payload is analysed like `bash -c`.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
from collections.abc import Callable, Sequence
from functools import partial

from engine.policy import gitindex, hgconfig
from engine.policy.arguments import ipython_commands
from engine.policy.argv import NONE, Grammar, Parsed, in_system_folder, parse_argv
from engine.policy.commands import shell_word
from engine.policy.executors import (
    CONFIG_LANGUAGES,
    TASK_LANGUAGES,
    MakeGiven,
    addopts_words,
    compose_mounts,
    config_commands,
    decode,
    doctest_source,
    ed_payloads,
    ed_reads,
    ed_writes,
    ex_payloads,
    fish_text,
    go_generate_lines,
    make_includes,
    make_line_variables,
    make_payloads,
    mypy_executables,
    mypy_plugin_files,
    notebook_cells,
    npm_bins,
    npm_scripts,
    option_file_words,
    option_settings,
    package_sources,
    rake_as_ruby,
    requirement_words,
    response_words,
    script_metadata,
    sed_payloads,
    source_row,
    split_string,
    sql_payloads,
    sql_reads,
    sql_sources,
    sql_writes,
    ssh_config_forwards,
    ssh_config_includes,
    ssh_config_payloads,
    task_code_language,
    task_commands,
    typed_commands,
    typed_text,
)
from engine.policy.gitconfig import Unknown, remote_urls, stored_aliases
from engine.policy.gitconfig import _stamped as stamped
from engine.policy.inline import (
    build_includes,
    code_libraries,
    code_loads,
    code_pairs,
    code_writes,
    embedded_shell,
    joined_reading,
    repl_writes,
)
from engine.policy.lexer import prompt_values
from engine.policy.paths import FIND_EITHER, NUL_READ, prints_nul
from engine.policy.programs import Extractor, Program, ProgramTable, Run, subcommand_levels
from engine.policy.regexes import Located
from engine.policy.variables import ANY_VARIABLE, lose_path
from engine.records import replace

_NPM_BIN = "node_modules/.bin"  # (see _run: a package's scripts find their programs there first)

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Final

    from engine.policy.shell import Command
    from engine.policy.variables import Variables

# env -S may hold another -S; GNU env reads them in turn. A bound keeps this linear.
_MAX_REPARSE = 4
_EXPRESSION_START = ("-", "(", "!")
# The file name an inline program computes (`open(sys.argv[1], "w")`): a word only the run knows.
_COMPUTED_NAME = "$computed_name"
# The variable a path an inline program computes at run time is read as, in the `ln -s`/`mv` it is judged as
# (follow.code): a value nobody knows here.
_COMPUTED_PATH = "__computed_path"


# `as: file` languages naming a folder: the file of it the program reads, and that file's language
_FOLDER_FILES: Final = {
    "curlhome": (".curlrc", "curlrc"),  # CURL_HOME, XDG_CONFIG_HOME (curl)
    "gitdir": ("config", "gitconfig"),  # --git-dir, GIT_DIR: the repository's config, read as .git/config is
    "gitconfighome": ("git/config", "gitconfig"),  # XDG_CONFIG_HOME (git's global config)
}
# make's names (a command of one of them is read with its command line and environment: Follower.making),
# and its options `--eval TEXT` and `-e` (the environment overrides the makefiles' variables)
_MAKES: Final = frozenset({"make", "gmake"})
# (fix58a) copiers a program runs by their words (shell._COPIERS and tee): the files they write are remembered
_ARGV_COPIERS: Final = frozenset({"cp", "mv", "install", "rsync", "ln", "link", "gcp", "gmv", "ginstall", "tee"})
_MAKE_EVAL = frozenset({"E"})
_MAKE_FILES = frozenset({"f", "makefile"})  # (mk49) `-f F`, `--file=F`, `--makefile=F`
_MAKE_HIDDEN = frozenset(
    {"MAKEFLAGS", "GNUMAKEFLAGS", "MFLAGS", "MAKEFILES"}
)  # (mk49) make reads flags, makefiles there
_MAKE_ENVIRONMENT_FIRST = frozenset({"e"})
# (adv43) A git configuration's keys that send git elsewhere: an `[include]`/`[includeIf …]` section (its `path`),
# core.worktree, core.hooksPath, init.templateDir, and a protocol allowed (ext::, a URL that is a command). Any
# spelling git takes: keys are case-blind, a section header may share its line, a subsection `[core "x"]` is
# another key (matched too: over-reading is the safe side).
_GIT_ELSEWHERE: Final = re.compile(
    r"(?im)^[ \t]*\[[ \t]*include|^[ \t]*(?:\[[^\]\n]*\][ \t]*)?(?:worktree|hookspath|templatedir|allow)[ \t]*(?:=|$)"
)
# A written file the dynamic loader (LD_LIBRARY_PATH) or glibc's iconv (GCONV_PATH) may load: see _file.
_LOADED_NAME: Final = re.compile(r"\.so(?:\.|$)|^gconv-modules")


# (bg49) The Programs rows' `files:` languages a check without a session reads from the disk (session_memory.DiskView):
# the project's files that say what the program runs when the line names none (make's recipes, npm's scripts)
DISK_LANGUAGES = frozenset({"make", "npm", "npmrc"})
# (disk51) an .npmrc's `key = value` line (npm's ini: `;`/`#` comments), and the lines read
_NPMRC_LINE = re.compile(r"^\s*([A-Za-z][\w.-]*)\s*=(.*)$")
_MAX_NPMRC_LINES = 256


def _committed(folder: str, path: str) -> bool:
    """(disk51) Whether the git index lists the file ``path`` (relative to ``folder``, the working folder): committed
    (or staged) by the user, not a file a session left behind. Not when git's index cannot be read for certain."""
    if not folder.startswith("/") or path[:1] in ("/", "~", "$"):
        return False
    try:
        real = os.path.realpath(posixpath.join(folder, posixpath.dirname(path)))
    except (OSError, ValueError):
        return False
    names = gitindex.listed(real)
    return names is not None and posixpath.basename(path).encode("utf-8", "surrogateescape") in names


_GLOBBED_WORD: Final = re.compile(r"[*?\[]")
_SESSION_SLACK: Final = 2.0  # (fix51) seconds: a file changed this close to the session's start counts as changed


class Follower:
    """Mixin of the analyzer: reads a command's program and follows its payloads."""

    programs: ProgramTable
    env: Variables
    cwd: str | None  # where the line is, relative to where it started (None: there)
    files: dict[str, Any]  # files written earlier on the line
    session: Any  # what the session wrote before the line (session_memory.SessionView), or None
    indirect: int  # > 0 while analysing an escape hatch's payload
    descriptors: str | None  # input given to a descriptor earlier on the line (`exec 3<<< …`)
    following: set[str]  # variables whose payload is being read (a payload's own commands obey them too)
    # What the stage before this one in a pipe prints, when it only lists the working tree
    # (`find . -name '*.py' | xargs grep x`): `$(find . -name '*.py')`, read like that
    # substitution (paths.lists_tree); None: unknown input.
    listing: tuple[str, str | None] | None = None  # (the listing, the folder it runs in: see shell._listing_of)
    # (unseen55) the shell whose payload is being read is fish: the code its own builtins are handed (`eval TEXT`,
    # `source F`, an alias's text) is fish's too (see _payload, _FISH_SAME_SHELL); another program's is its own
    fish_dialect: bool = False
    # (stop 56) where the command about to be followed was started, when its own `chdir:` option moved the working
    # folder (a one-element tuple: None is the line's start); its `unmoved:` runs are read there
    started_in: tuple[str | None] | None = None
    # Files written on the line or in the session that a program ran (a Makefile under make, a script):
    # a count, so a pipeline can tell that a stage's output came from such a file (see shell._pipeline).
    written_runs = 0
    # Files a command ran or read as a shell's commands before the line wrote them (`sh < p & echo CMD >
    # p`, `bash p & printf CMD > p`): (the program, the word, whether on its input); read again once the
    # line is read (see shell.Analyzer._readings).
    early_reads: list[tuple[str, str, bool]] | None = None
    exec_input: str | None  # what a command reads when it is given no input of its own (see shell._simple)
    printing: list[str] | None  # what the lines a stage runs print, when its output is read (see shell._simple)
    # The make command whose runs are being read, with the variables its wrappers set (`env CC=x make`):
    # what its command line and environment give the makefile's variables (see _make_given)
    making: tuple[Command, dict[str, str]] | None = None
    # (mk49) a makefile being read is one another includes: every recipe of it is judged (see _make_goals)
    making_included = False
    # (lead42) aliases the line defines in a program's configuration (`git config alias.r 'reset --hard'`): (the
    # run's language, the name lowercased) -> the values, for a later `git r` on the line (see _stored_alias)
    defined_aliases: dict[tuple[str, str], list[str]] | None = None
    # (lead42) the reading looked at files on the disk that may change (a configuration's aliases): the evaluator
    # keeps no parse of the text for the next check
    read_disk = False
    # (adv44b) aliases of a command's options left unjudged (_hidden_aliases) while its other runs are read: judged
    # after all when the command runs anything else (see follow_program)
    hidden_runs: list[Callable[[], None]] | None = None

    # Provided by the analyzer.
    def analyze(self, text: str, *, depth: int = 0, via: tuple[str, ...] = ()) -> None:
        raise NotImplementedError

    def inert_recipe(self, recipe: str, depth: int) -> bool:
        raise NotImplementedError

    commands: list[Command]
    unread: list[str]  # the analyzer's (see evaluate._unread)

    def spent(self) -> int:
        raise NotImplementedError

    def repeat(self, commands: int, tokens: int) -> bool:
        raise NotImplementedError

    def commands_met(self) -> int:
        raise NotImplementedError

    def _unwrap(
        self,
        argv: list[str],
        dynamic: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> list[Command]:
        raise NotImplementedError

    def _content(self, word: str) -> str | None:
        raise NotImplementedError

    def _record_writes(
        self, last: Command, stages: list[Command], redirects: list[tuple[str, str]], stdin: str, output: str | None
    ) -> None:
        raise NotImplementedError

    def _print(self, text: str) -> None:
        """What a line or a command run by a stage whose output is read prints (see shell._simple)."""
        raise NotImplementedError

    def _output(self, command: Command | None, stdin: str) -> str | None:
        raise NotImplementedError

    def _argv_run(
        self, words: list[str], flags: list[bool], command: Command, via: tuple[str, ...], depth: int
    ) -> None:
        """A command a program runs without a shell (`xargs echo CMD`, `setsid CMD`): what it prints
        (the known part: xargs adds what it reads) is the program's output too."""
        stages = self._unwrap(words, flags, [], "", command.fed_by, via, depth)
        if stages and stages[-1].name in _ARGV_COPIERS:
            # (fix58a) a copy made under another program's name (`cmake -E copy /dev/stdin x.sh`, gio's copy and
            # move: cp's and mv's words) is remembered as cp's own is (the file holds the source's text, else one
            # nobody knows here: `curl URL | cmake -E copy /dev/stdin x.sh; sh x.sh`, allowed)
            self._record_writes(stages[-1], stages, [], "", None)
        if self.printing is not None and stages:
            printed = self._output(stages[-1], "")
            if printed:
                self._print(printed)

    def _known(self, word: str) -> bool:
        raise NotImplementedError

    def _folder_unknown(self) -> bool:
        """Whether the folder the command runs in is known only at run time (`git -C "$D"`)."""
        raise NotImplementedError

    def _input_arguments(
        self, run: Run, parsed: Parsed, argv: list[str], words: list[str], command: Command
    ) -> tuple[list[str], list[str]]:
        """parallel's arguments when no `:::` lists them: the lines of its input, or of the files `-a F`
        and `:::: F` name (``run.argument_files``; `-`, /dev/stdin: the input) when the line or the
        session wrote them; `$(cat)` for input only the run knows when something is piped in, or a
        written text not known here; and the command's words with the marker an option names (`-I @`,
        one of ``run.input_args``) spelled as `{}`."""
        marker = next((v for name, v, _ in parsed.options if name in run.input_args and v), None)
        if marker is not None:
            words = [w.replace(marker, "{}") for w in words]
        files = [v for name, v, _ in parsed.options if name in run.argument_files and v is not None]
        files += _arguments(argv, run.until - run.arguments, run.arguments)
        texts: list[str | None] = []
        for name in files or ["-"]:
            if stdin_file(name, command.cwd):
                texts.append(command.stdin or (None if command.fed_by else ""))
            elif self._known(name):
                texts.append(self._content(name))
        lines: list[str] = []
        for text in texts:
            if text is None:
                lines.append(_UNKNOWN_INPUT)
            else:
                lines.extend(line for line in text.splitlines() if line.strip())
        return lines[:_MAX_ARGUMENTS], words

    def _early_read(self, name: str, word: str, stdin: bool) -> None:
        """``name`` reads the file ``word`` as commands (on its input: ``stdin``) before the line wrote it."""
        if self.early_reads is None:
            self.early_reads = []
        if len(self.early_reads) < 16:
            self.early_reads.append((name, word, stdin))

    def opened_content(self, number: str) -> str | None:
        raise NotImplementedError

    def _script(self, word: str) -> str | None:
        raise NotImplementedError

    def _planted(self, word: str) -> str | None:
        """(unpack50) The project's file ``word`` names, read from the disk (SessionView.planted)."""
        raise NotImplementedError

    def _touched(self, word: str) -> bool:
        """Whether the line or the session wrote ``word``, or it changed in the working tree since
        the session began (a program, too: a shared object built there)."""
        raise NotImplementedError

    def wrapper_environment(self, grammar: Grammar, parsed: Parsed, unknown: bool) -> None:
        """(stop 58) What a wrapper's reading ``parsed`` gives the command it runs: its assignments (``unknown``:
        one of its words is known only at run time) and no variable its `clears_environment` or `unsets_variable`
        options take away, for the rest of the chain (`env -i`, `env -u X`, `env X=/`)."""
        raise NotImplementedError

    def run_script(self, text: str, command: Command, path: str, depth: int, via: tuple[str, ...]) -> None:
        """Read a shell script ``command`` runs from ``path`` (the analyzer gives it the words after
        the path as its positional parameters)."""
        raise NotImplementedError

    def run_with(self, text: str, words: list[str], flags: list[bool], depth: int, via: tuple[str, ...]) -> None:
        """Read shell ``text`` with ``words`` as its $0, $1… (``flags``: known only at run time)."""
        raise NotImplementedError

    def _synthetic(self, name: str, argv: tuple[str, ...], via: tuple[str, ...], depth: int) -> Command:
        raise NotImplementedError

    def run_folder(self, command: Command, folder: str, via: tuple[str, ...], depth: int) -> None:
        raise NotImplementedError

    def written_in(self, folder: str) -> list[str] | None:
        """The names of the files the line or the session wrote in ``folder``; None for a folder
        named only at run time in a session that wrote files."""
        raise NotImplementedError

    # -- the table -------------------------------------------------------------------

    def follow_program(
        self, command: Command, program: Program, local: dict[str, str]
    ) -> tuple[list[str], list[bool], bool] | None:
        """Follow every payload of ``command``; return the command it runs next (argv, dynamic,
        whether that is an escape hatch), or None when it runs nothing more."""
        started_in, self.started_in = self.started_in, None
        if not program.active:
            return None  # a grammar only (rm, chmod ...): nothing it runs
        argv = list(command.argv)
        dynamic = list(command.dynamic)
        parsed = parse_argv(program.grammar, argv)
        command.reading = parsed
        reparse = program.reparse
        if reparse is not None:
            argv, dynamic, parsed = self._reparse(program, reparse, argv, dynamic, parsed)
        if parsed.refused:
            return None  # the program rejects its arguments: nothing runs
        local.update(parsed.assignments)
        grammar = program.grammar
        if parsed.assignments or grammar.clears_environment or grammar.unsets_variable:
            self.wrapper_environment(grammar, parsed, any(dynamic[: parsed.rest]))
        levels = subcommand_levels(program, parsed, argv)
        inner: tuple[list[str], list[bool], bool] | None = None
        via = (*command.via, command.name)
        # What there is to read: most runs have nothing in most commands, and are skipped by kind.
        variables = self.env.read_by_programs(local)
        stdin = bool(command.stdin)
        # (adv45) input piped in that is not known here (`find ~ | zip -m x.zip -@`): a names-from-input run reads it
        # as the listing or `$(cat)` (_names_piped); without a session it was skipped with the other stdin runs
        piped = not stdin and _input_unseen(command)
        # (bg49) a check without a session (DiskView) reads only the `files:` of DISK_LANGUAGES (Makefile, package.json)
        disk = not self.files and self.session is not None and self.session.disk
        files = bool(self.files) or self.session is not None
        making = self.making
        if command.name in _MAKES:
            self.making = (command, local)  # (a make command's files and texts are read as it sets them)
        hiding = self.hidden_runs
        self.hidden_runs = None
        ran = self.commands_met()
        given: frozenset[str] | None = None  # the program's own options, given before its verb (Run.outer)
        try:
            for level, reading in levels:
                runs = level.runs
                if not runs:
                    continue
                present = reading.present()
                if level.option_names.isdisjoint(present):
                    runs = level.plain_runs
                    if not (variables or stdin or files or piped):
                        runs = level.word_runs
                count = len(reading.operands) + (len(argv) - reading.rest if reading.rest is not None else 0)
                for run in runs:
                    source = run.source
                    if run.outer:
                        # (xf45) `git -c core.editor=CMD rebase -i`: git's -c, read by the verb's run
                        if given is None:
                            given = frozenset(name for name, _, _ in parsed.options)
                        if run.names.isdisjoint(given):
                            continue
                        read = parsed  # the program's own reading, in place of the verb's
                    else:
                        if source == "option" and run.names.isdisjoint(present):
                            continue
                        if (source == "env" or source == "env_pairs") and not variables:  # noqa: PLR1714
                            continue
                        if (source == "stdin" and not stdin and not _names_piped(run, command)) or (
                            source == "files" and (not files or (disk and run.language not in DISK_LANGUAGES))
                        ):
                            continue
                        if (
                            source == "stdin"
                            and piped
                            and (not files or disk)
                            and run.prepend == "cat"
                            and _tree_listed(self.listing, command)
                            and not _dereferences(level, present)
                        ):
                            # (adv45) without a session only the names a program deletes are read from unseen input:
                            # read as cat's, a local pack of the tree (`find . | cpio -o > b.cpio`) is not a print
                            # (xfail'd). (xf49) Only a listing of the tree: other input (`ls ~/.ssh/id_ed25519 | tar
                            # -cf - -T -`, `cat f.txt | cpio -o`) is read as `cat -- $(cat)`, as with a session; and
                            # not when it packs what the tree's links point to (`ls | tar -chf - -T -`, `ls | cpio -oL`:
                            # a link to the key packs the key), read as cat reads the listing's names
                            continue
                        if run.kind in ("reparse", "options"):
                            continue
                        read = reading
                    if not run.applies(present, count):
                        continue
                    if started_in is not None and run.unmoved:  # (a local first: most commands moved nowhere)
                        moved, self.cwd = self.cwd, started_in[0]
                        try:
                            found = self._run(run, command, level, read, argv, dynamic, local, via)
                        finally:
                            self.cwd = moved
                    else:
                        found = self._run(run, command, level, read, argv, dynamic, local, via)
                    if found is not None and inner is None:
                        inner = found
            hidden = self._held_aliases()
            if hidden and (inner is not None or self.commands_met() > ran):
                # (adv44b) the command runs another program (`git -c alias.status='!rm -rf ~' difftool -x ./t.sh`,
                # the written t.sh running `git Status`): it inherits the aliases, each judged after all
                for judge in hidden:
                    judge()
        finally:
            self.making = making
            self.hidden_runs = hiding
        return inner

    def follow_unknown(
        self, command: Command, rules: Program, program: Program | None = None, carries: bool = False
    ) -> None:
        """Options whose value looks like a command: of a program the table does not describe, and
        (``program``) the options a described program's grammar does not declare (debt37: naming a
        program in the table took this check from all its options, `borg create --rsh='sh -c …'` was
        allowed until --rsh was named). A declared option means what its row says; one the program
        reads as no option (after `--`, the command it runs, an operand) is no option. An undescribed
        program that ``carries`` commands (no builtin: see _carried) is also read for a shell or an
        interpreter it is handed among its operands."""
        argv = command.argv
        undeclared: frozenset[int] | None = None
        if carries:
            for run in rules.carried_runs:
                self._carried(run, command)
        named = _option_runs(rules.option_word_runs)
        for i in range(1, len(argv)):
            word = argv[i]
            if word[:1] != "-" or word in ("--", "-"):
                continue
            name, eq, value = word.lstrip("-").partition("=")
            runs = named.get(name)
            if runs is None:
                runs = _runs_naming(rules.option_word_runs, named, name)
            readings = [(name, eq, value, runs)]
            if len(word) > 2 and word[1] != "-":
                # (adv39) a one-letter option in a cluster or with its value attached, as getopt reads them: `nsh
                # -xc 'rm -rf ~'` (its value the next word), `nsh -c'rm -rf ~'` (the rest of the word)
                # (every letter of a cluster: a shell's `-cx CMD` takes CMD as -c's too)
                cluster = word[1:].isascii() and word[1:].isalpha()
                letters = [(letter, None) for letter in dict.fromkeys(word[1:])] if cluster else []
                for letter, attached in (*letters, (word[1], word[2:])):
                    taking = named.get(letter)
                    if taking is None:
                        taking = _runs_naming(rules.option_word_runs, named, letter)
                    taking = tuple(run for run in taking if not run.attached)  # (`-xsh` is no `-x sh`)
                    if taking:
                        readings.append((letter, "" if attached is None else "=", attached or "", taking))
            for name, eq, given, runs in readings:
                for run in runs:
                    if run.attached and not eq:
                        continue
                    value = given
                    if not eq:
                        if not ((word.startswith("--") or len(name) == 1) and i + 1 < len(argv)):
                            continue
                        value = argv[i + 1]
                    payload = matched_payload(run, value)
                    if payload is None:
                        continue
                    if program is not None:
                        # (read once, and only for a value that looks like a command: most options are none)
                        if undeclared is None:
                            undeclared = undeclared_options(command, program)
                        if i not in undeclared:
                            break
                    # (env46) `each: true`: every match in the value is a payload (a list's items: ipython's
                    # `exec_lines=['a','!rm -rf ~','b']`, whose middle item was not read), not the first alone
                    found = [p for p in _payloads(run, [value]) if p is not None] if run.each else [payload]
                    shelled = run.prepend is not None and run.kind == "shell"
                    for each in found:
                        # (sess45) ipython's `--ext=M`: `python3 -m M`
                        text = f"{run.prepend} {each}" if shelled else each
                        self._payload(run, command, rules, text, (*command.via, command.name), command.depth + 1)

    def _carried(self, run: Run, command: Command) -> None:
        """A program the table does not know, handed a shell or an interpreter (one of ``run``'s names,
        by name or path) followed by an option, a path from / or ~ or a `key=value`
        (`with-contenv sh -c CMD`, `rustup run stable bash -c CMD`,
        `lxc-attach -n c -- sh -c CMD`): a wrapper, most likely; the words from that name on are read
        as the command they spell (fresh37a). Only the first such name: what it runs reads the rest."""
        argv = command.argv
        names = run.names
        bare = 0
        for i in range(1, len(argv)):
            word = argv[i]
            if word[:1] == "-":
                continue
            name = word.rpartition("/")[2]
            # (adv39) a dotted variant by its stem: mkfs.ext4, mkfs.xfs, python3.12
            if name not in names and ("." not in name or name.partition(".")[0] not in names):
                continue
            bare = bare or i
            # an option after it, or the words of a command that acts (adv37): a path from the root or the home
            # (`mv ~ /tmp/x`, `find . ~ -delete`), dd's `of=DEV` (a name alone, `reboot`, is not read: `systemctl
            # --help reboot`)
            rest = argv[i + 1 :]
            # (holes38) or an option of the wrapper's own before it (`mywrap --daemon reboot`, `--daemon kill 1`):
            # the shape of a wrapper's line, its options then the command (`cowsay reboot` has none)
            if any(w[:1] == "-" and w not in ("-", "--") for w in argv[1:i]) or any(
                (w[:1] == "-" and w != "-") or w[:1] in ("~", "/") or w.startswith("$HOME") or "=" in w for w in rest
            ):
                via = (*command.via, command.name)
                self._words(run, command, list(argv[i:]), list(command.dynamic[i:]), via, command.depth + 1)
                return
        if bare:
            # (holes39) none of that shape (`mywrap reboot`, `mywrap kill 1`): it may still be a wrapper, or a program
            # that takes the name as data (a manual, a lookup): read so too, its hardline matches asking
            # (Command.guessed)
            start = len(self.commands)
            via = (*command.via, command.name)
            self._words(run, command, list(argv[bare:]), list(command.dynamic[bare:]), via, command.depth + 1)
            for found in self.commands[start:]:
                found.guessed = True

    def follow_environment(self, command: Command, rules: Program, local: dict[str, str]) -> None:
        """Variables every program obeys (LD_PRELOAD, BASH_ENV ...)."""
        via = (*command.via, command.name)
        for run in rules.runs:
            if run.source != "env":
                continue
            for name in self.variables_read(run, local):
                if name in self.following:
                    continue
                values, lost = self.env.readings(name, local)
                if lost:
                    self._escape_hatch(None, via, command.depth + 1)
                # `BROWSER=firefox x`: firefox obeys BROWSER too; it is read once
                self.following.add(name)
                try:
                    for value in values:
                        payload = matched_payload(run, value)
                        if payload is not None:
                            self._payload(run, command, rules, payload, via, command.depth + 1)
                finally:
                    self.following.discard(name)

    def variables_read(self, run: Run, local: dict[str, str]) -> list[str]:
        """The variables an `env:` run reads that the line set or lost (its names, and those its
        globs match): one it never named holds no value and none known only at run time (see
        Variables.readings), so it says nothing. (The `**` entry names ~150 variables, a line
        sets a few: every name was read before, for each command of a line that sets any.)"""
        present = {*local, *self.env, *self.env.lost}
        if ANY_VARIABLE in present and run.names:
            # (stop 56) a variable named only at run time may be any of them: one, holding a value known only at run
            # time, says so (each of ~150 names read so, and again in each shell started, passed every bound)
            present.add(min(run.names))
        if run.pattern is None:
            return sorted(run.names.intersection(present))
        match = run.pattern.fullmatch
        return sorted(run.names.intersection(present).union(k for k in present if match(k)))

    def variable_values(self, run: Run, local: dict[str, str], via: tuple[str, ...], depth: int) -> list[str]:
        """The values an `env:` run's variables may hold. One the line gave a value known only at
        run time (`read X`, `printf -v X`, `X=$(cmd)`) holds any value it had before, and one
        nobody can read here: a command that comes from data (an approval)."""
        values: list[str] = []
        for name in self.variables_read(run, local):
            held, lost = self.env.readings(name, local)
            values.extend(held)
            if lost:
                self._escape_hatch(None, via, depth)
        return values

    def _reparse(
        self, program: Program, run: Run, argv: list[str], dynamic: list[bool], parsed: Parsed
    ) -> tuple[list[str], list[bool], Parsed]:
        """`env -S STRING`: the string's words take the option's place and parsing starts over."""
        for _ in range(_MAX_REPARSE):
            hit = next(((v, i) for name, v, i in parsed.options if name in run.names and v is not None), None)
            if hit is None:
                break
            value, index = hit
            word = argv[index]
            attached = word != value and word.endswith(value) and len(word) > len(value)
            end = index + 1 if attached else index + 2
            # Letters bundled before it stay options (`env -0S x` keeps -0).
            letter = "" if word.startswith("--") else next((n for n in run.names if len(n) == 1), "")
            at = word.find(letter, 1) if letter else -1
            kept = [word[:at]] if at > 1 else []
            words = [*kept, *split_string(value, self.env)]
            was_dynamic = any(dynamic[index:end])
            argv = [*argv[:index], *words, *argv[end:]]
            dynamic = [*dynamic[:index], *([was_dynamic] * len(words)), *dynamic[end:]]
            parsed = parse_argv(program.grammar, argv)
        return argv, dynamic, parsed

    # -- one run ---------------------------------------------------------------------

    def _run(
        self,
        run: Run,
        command: Command,
        program: Program,
        parsed: Parsed,
        argv: list[str],
        dynamic: list[bool],
        local: dict[str, str],
        via: tuple[str, ...],
    ) -> tuple[list[str], list[bool], bool] | None:
        source = run.source
        depth = command.depth + 1
        if run.kind == "alias":
            self._stored_alias(run, command, program, parsed, argv, dynamic, local, via, depth)
            return None
        if source == "rest" or run.with_rest or source == "after":
            return self._words_run(run, command, parsed, argv, dynamic, via, depth)
        values: list[str] = []
        if source == "option":
            # (cfg50) an option given as a flag stands for the run's `default:` (`npm install --no-strict-ssl` is
            # strict-ssl false)
            values = [
                v if v is not None else run.default or ""
                for name, v, _ in parsed.options
                if name in run.names and (v is not None or run.default is not None)
            ]
            if run.last:
                values = values[-1:]
        elif source == "operand":
            operands = parsed.all_operands(argv)
            values = operands[run.index : run.index + 1]
            if not values and run.default is not None:
                values = [run.default]
            if run.language == "gitremote":
                values = self._remote_urls(run, command, values, local, via, depth)
        elif source == "operands":
            values = parsed.all_operands(argv)[run.index :]  # (stop 56) `operands: N`: from the Nth on
        elif source == "prefixed":
            prefix = next(iter(run.names))
            values = [w[len(prefix) :] for w in argv[1:] if w.startswith(prefix) and len(w) > len(prefix)]
        elif source == "env":
            values = self.variable_values(run, local, via, depth)
        elif source == "env_pairs":
            values = self._env_pairs(run, local)
        elif source == "stdin":
            values = [command.stdin] if command.stdin else []
            via = (*via, "stdin")
            if _names_piped(run, command) or (values and run.kind == "argv" and run.prepend is not None):
                # Names read one a line (`tar -T -`, `zip -@`, `cpio -o`): the operands of the
                # command the table names for them (`cat -- NAMES`: reads, judged as cat's); names
                # piped in that are not known here stand for the listing or the input, as xargs'.
                names = [line for line in command.stdin.splitlines() if line.strip()][:_MAX_INPUT_NAMES]
                if not command.stdin:
                    listing = self.listing
                    known = listing is not None and listing[1] == command.cwd and not prints_nul(listing[0])
                    names = [listing[0] if known and listing is not None else _UNKNOWN_INPUT]
                assert run.prepend is not None
                # (adv45) relative names are read in the folder of its `-C DIR` too (`echo .ssh | tar -C ~ -cf x.tar
                # -T - --remove-files` deleted ~/.ssh): grammar.paths_in, as its operands are (shell._read_in_folders)
                folders = [v for n, v, _ in parsed.options if v and n in program.grammar.paths_in]
                if folders:
                    names += [f"{f.rstrip('/')}/{n}" for f in folders for n in names if n[:1] not in ("/", "~", "$")]
                words = [*run.prepend.split(), "--", *names]
                flags = [False] * len(words)
                self._nested(run, partial(self._unwrap, words, flags, [], "", command.fed_by, via, depth))
                return None
        elif source == "files":
            names = sorted(run.names)
            if command.cwd == "$unknown" or self._folder_unknown():
                # (adv43b) a folder known only at run time (`cd "$D"`, `cd d*`) may be any the session wrote in:
                # its file of the name is any such written file (`cd "$D" && git status` ran a written bare
                # repository's `d/config` core.fsmonitor, allowed)
                names += [f"**/{name}" for name in names if not name.startswith(("**/", "/", "~"))]
            values = [name for name in names if self._known(name)]
            if self.session is not None and run.language in DISK_LANGUAGES and not self.session.disk:
                # (adv50) the project's Makefile / package.json planted before the session began: read from the
                # disk as a check without a session reads it (`make test` over a checkout's `test:` recipe holding
                # `rm -rf ~` was allowed through the terminal while Engine.check asked)
                values += [name for name in names if name not in values and self._planted(name) is not None]
            if run.language == "npm" and not values and self._touched_in(_NPM_BIN):
                # (xfail40) the project's own package.json (nobody reads it here) names scripts run with its
                # node_modules/.bin first on PATH: a program the line or the session wrote there may be what runs
                self._nested(run, partial(self._escape_hatch, None, via, depth))
        if run.not_words and values:
            values = [value for value in values if value not in run.not_words]
        if run.decode == "prompt" and values:
            # (unseen50) a prompt string is matched once more as bash decodes its escapes before expanding it
            # (`PS1='\\140rm -rf ~\\140' bash -i`: `\\140` is a backquote)
            values = prompt_values(values)
        arguments = _positional_words(run, parsed, argv, dynamic) if run.positional else None
        spliced = source in ("option", "operand") and (
            (run.kind in _SPLICED_KINDS and self._spliced(run, parsed, argv, dynamic))
            # a sed script completed by a value an earlier command stored (`s/v/$(git describe)/`: a tag
            # `v/;erm${IFS}-rf${IFS}~;#` closes the command and adds `e`): not a counter's (tail36)
            or (run.kind == "sed" and self._spliced(run, parsed, argv, dynamic, data=True))
            # an interpreter's program text completed by a value not known here in its code, not in one of its
            # string literals (`python3 -c "$x"`, `node -e "f(); $x"`): a program nobody can read, like `sh -c
            # "$x"` (open37); `python3 -c "print('$x')"` prints the environment's value
            or _unread_program(run, argv, dynamic, self._payload_at(run, parsed, argv))
        )
        if values and run.match is not None and _ALIAS_GROUP in run.match.pattern:
            self._given_alias(run, parsed, argv, dynamic, values, local, via, depth)
            if spliced:  # (a value known only at run time in the alias's text: `-c alias.t="!echo $x" t`, redt34)
                self._nested(run, partial(self._escape_hatch, None, via, depth))
            return None
        found_payloads = _payloads(run, values)
        if source == "operands" and (run.strip or run.append or run.into):
            found_payloads = renamed(run, parsed, values, found_payloads)
        if run.language == "pipe" and run.kind == "shell" and len(found_payloads) > 1:
            # (xfail41b) the command lines are the stages of one pipe (`mispipe CMD1 CMD2` is `CMD1 | CMD2`)
            found_payloads = [" | ".join(f"({p}\n)" for p in found_payloads if p is not None)]
        for found in found_payloads:
            payload = found
            if payload is not None and run.variable:
                # The payload is a variable's name: its value runs; one not set on the line is data.
                payload = local.get(payload, self.env.get(payload))
                if payload is None:
                    self._escape_hatch(None, via, depth)
                    continue
                if run.value is not None:
                    payload = _value_payload(run.value, payload)
                    if payload is None:
                        continue
            if payload is not None:
                text = decode(payload, run.decode)
                if run.prepend is not None and run.kind == "shell":
                    text = f"{run.prepend} {text}"  # where it runs (ssh's stdin: in the remote home)
                self._payload(run, command, program, text, via, depth, arguments)
                if run.placeholder is not None and run.kind == "argv" and source == "option":
                    # (adv40) a program the command runs on each file it reads, the file's name appended (rg
                    # --pre PROG runs `PROG FILE` for every file it searches): what it found under each operand
                    # and the working directory (an operand may be the pattern), as find's `{}`
                    roots = dict.fromkeys([*parsed.all_operands(argv), "."])
                    searched = [
                        ("." if r in (".", "") else r.rstrip("/")) + "/*" for r in roots if not r.startswith("-")
                    ]
                    self._words(run, command, [text, *searched], [False] * (len(searched) + 1), via, depth)
                if spliced:
                    # `x=$(git config k); sh -c "echo $x"`: a value the outer shell puts in the text is
                    # read as code by the shell it runs (`a;rm -rf ~`), not as the word `$x`: data runs;
                    # so too an interpreter's (`python3 -c "print('$x')"`, `awk "BEGIN{system(\"$x\")}"`:
                    # `');import os;os.system('…` closes the string: open35)
                    self._nested(run, partial(self._escape_hatch, None, via, depth))
        return None

    def _given_alias(
        self,
        run: Run,
        parsed: Parsed,
        argv: list[str],
        dynamic: list[bool],
        values: list[str],
        local: dict[str, str],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """(lead42) An alias given for this command (`git -c alias.NAME=VALUE`, a GIT_CONFIG pair): used by
        its verb, it runs with the words after the verb appended (`git -c alias.x='!rm -rf' x ~` runs `rm -rf ~`,
        `git -c alias.r='restore --worktree' r --staged .` runs `git restore --worktree --staged .`: adv41b);
        unused, its value is still judged alone."""
        assert run.match is not None
        at = _verb_at(parsed)
        verb = argv[at].lower() if at is not None and not dynamic[at] else None
        hidden = self._hidden_aliases(run, parsed, argv, dynamic, local) if run.not_words else frozenset()
        # git keeps the aliases given with -c for the command an alias runs (an alias naming another: `-c
        # alias.a=b -c alias.b='!CMD' a`): they are put before its verb again
        given = ""
        if run.source == "option":
            given = "".join(
                f" {'-' if len(name) == 1 else '--'}{name} {shlex.quote(value)}"
                for name, value, _ in parsed.options
                if value is not None and name in run.names and value[:6].lower() == "alias."
            )
        for value in values:
            for found in run.match.finditer(value):
                payload = next((found.group(g) for g in run.match.payloads if found.group(g)), None)
                name = (found.group("alias") or "").lower()
                # (the command an alias runs keeps the variable or option that gave it: the alias is not read again
                # inside its own reading, `GIT_CONFIG_PARAMETERS="'alias.l'='log'" git l` runs `git log` once)
                guard = f"alias:{id(run)}:{name}"
                if not payload or guard in self.following:
                    continue
                if name in hidden:
                    # (adv44b) unjudged only while the command runs nothing else (follow_program)
                    if self.hidden_runs is None:
                        self.hidden_runs = []
                    carried = run if not given or run.prepend is None else replace(run, prepend=run.prepend + given)
                    self.hidden_runs.append(
                        partial(self._guarded_alias, guard, carried, decode(payload, run.decode), via, depth)
                    )
                    continue
                if run.variable:  # (`--config-env=alias.x=V`: the variable V's value, read by the run's `value`)
                    held = local.get(payload, self.env.get(payload))
                    if held is None:
                        self._escape_hatch(None, via, depth)
                        continue
                    payload = _value_payload(run.value, held) if run.value is not None else held
                    if not payload:
                        continue
                used = at is not None and verb == name
                words, flags = (argv[at + 1 :], dynamic[at + 1 :]) if used and at is not None else ([], [])
                self.following.add(guard)
                try:
                    carried = run if not given or run.prepend is None else replace(run, prepend=run.prepend + given)
                    self._alias_runs(carried, decode(payload, run.decode), words, flags, via, depth)
                finally:
                    self.following.discard(guard)

    def _held_aliases(self) -> list[Callable[[], None]] | None:
        """The aliases _given_alias held while a command's runs were read (see follow_program)."""
        return self.hidden_runs

    def _guarded_alias(self, guard: str, run: Run, text: str, via: tuple[str, ...], depth: int) -> None:
        """(adv44b) A hidden alias judged after all, unused (see follow_program), not read again inside itself."""
        if guard in self.following:
            return
        self.following.add(guard)
        try:
            self._alias_runs(run, text, [], [], via, depth)
        finally:
            self.following.discard(guard)

    def _hidden_aliases(
        self, run: Run, parsed: Parsed, argv: list[str], dynamic: list[bool], local: dict[str, str]
    ) -> frozenset[str]:
        """(fp44) The aliases of this command's options that nothing runs: git ignores an alias named like one of
        its own verbs (the run's ``not_words``: `git -c alias.status='!rm -rf ~' status` runs git's status, was
        denied), but looks up `Status` (no verb of git's) as alias.status, in this command or in any git the
        command starts (which inherits the -c options). So the names are hidden only when every option with a
        value defines such an alias (no pager, editor or other program of git's is given), the line sets no
        variable a program reads, no word is known only at run time, and every other word is plain (no quote,
        expansion, glob or space: a shell line `-x 'g"i"t Status'`) and spells the names, if at all, in lowercase
        (`bisect run git Status`, `-c alias.x=Status x`); otherwise each alias is judged (used or not)."""
        if any(dynamic) or self.env.read_by_programs(local):
            return frozenset()
        names: set[str] = set()
        defined: set[int] = set()
        for name, value, index in parsed.options:
            if value is None:
                continue
            key, equals, _ = value.partition("=")
            alias = key[6:].lower() if name in run.names and equals and key[:6].lower() == "alias." else ""
            if alias not in run.not_words:
                return frozenset()
            names.add(alias)
            defined.add(index)  # `-cVALUE`, `--config-env=...`; `-c VALUE`: the next word too
            if index + 1 < len(argv) and not argv[index].endswith(value):
                defined.add(index + 1)
        for i, word in enumerate(argv[1:], 1):
            if i in defined:
                continue
            if _PLAIN_WORD.match(word) is None:
                return frozenset()
            lowered = word.lower()
            if any(lowered.count(name) != word.count(name) for name in names):
                return frozenset()
        return frozenset(names)

    def _stored_alias(
        self,
        run: Run,
        command: Command,
        program: Program,
        parsed: Parsed,
        argv: list[str],
        dynamic: list[bool],
        local: dict[str, str],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """(lead42) A verb read from the program's configuration (an `as: alias` run): an operand run names the
        alias a command uses (`git r --staged .`: what the configuration files and the line's own definitions
        give `r`, run with `--staged .` appended); an operands run whose match names an `alias` group defines
        one (`git config alias.r 'reset --hard'`): remembered for the rest of the line, and judged as used with
        no arguments (a later call, or the user, runs it). A configuration nobody can read here: the caller is
        asked (fail closed)."""
        operands = parsed.all_operands(argv)
        language = run.language or ""
        if run.source == "operands":
            operands = operands[run.index :]
            if run.match is None:
                return
            for i, operand in enumerate(operands[:-1]):
                if operand in run.not_words:
                    continue
                found = run.match.search(operand)
                name = found.group("alias") if found is not None else None
                if not name:
                    continue
                value = operands[i + 1]
                defined = self.defined_aliases
                if defined is None:
                    defined = self.defined_aliases = {}
                defined.setdefault((language, name.lower()), []).append(value)
                self._alias_value(run, value, [], [], via, depth)
            return
        at = _operand_index(parsed, run.index)
        if run.index >= len(operands) or at is None:
            return
        name = operands[run.index]
        # (debt43) a verb among the run's not_words (git's own) is no alias: one set lookup, before any regex
        if dynamic[at] or name in run.not_words or (run.match is not None and run.match.search(name) is None):
            return
        # (an alias whose value names its own verb runs the program's own: hg's `[alias] log = log -G`)
        guard = f"stored:{language}:{name.lower()}"
        if guard in self.following:
            return
        values = list((self.defined_aliases or {}).get((language, name.lower()), ()))
        self.read_disk = True
        try:
            folder = self._folder(command.cwd)
            for option, moved, _ in parsed.options:  # `git -C DIR` (each one from the last)
                if moved is not None and option in program.grammar.chdir:
                    if "$" in moved:
                        raise Unknown(moved)
                    folder = posixpath.join(folder, _home_expanded(moved))
            getenv = partial(self._config_variable, _option_variables(program, parsed, local))
            if language == "hgrc":  # (rows43) Mercurial's files; -R/--repository names the repository read
                named = parsed.values(_HG_REPOSITORY)
                repository = _home_expanded(named[-1]) if named else None
                values += hgconfig.stored_aliases(name, folder, getenv, repository)
            else:
                values += stored_aliases(name, folder, getenv)
        except Unknown:
            # (a file the program reads that cannot be read here: what the verb runs is not known)
            self._nested(run, partial(self._escape_hatch, None, via, depth))
        self.following.add(guard)
        try:
            for value in values:
                self._alias_value(run, value, argv[at + 1 :], dynamic[at + 1 :], via, depth)
        finally:
            self.following.discard(guard)

    def _disk_config(self, path: str, cwd: str | None, own: tuple[str, ...]) -> str | None:
        """The text of the configuration file(s) ``path`` names on the disk (a glob's matches, as ssh's Include
        reads them, joined), none in the folders ``own`` names (`~/` the home); None: none. Raises Unknown for a
        name known only at run time, a file that is not a regular one or larger than 1 MiB, or a glob of more
        than 32 files."""
        if "$" in path or "`" in path:
            raise Unknown(path)
        self.read_disk = True
        full = posixpath.normpath(posixpath.join(self._folder(cwd), _home_expanded(path)))
        names = [full]
        if any(char in full for char in "*?["):
            import glob  # noqa: PLC0415 (here only: a warm guard's start imports no glob)

            names = sorted(glob.glob(full))[:33]
        if len(names) > 32:
            raise Unknown(path)
        skipped = tuple(_home_expanded(folder) for folder in own)
        texts = [
            text
            for name in names
            if not os.path.realpath(name).startswith(skipped) and (text := _config_text(name)) is not None
        ]
        return "\n".join(texts) if texts else None

    def _folder(self, cwd: str | None) -> str:
        """The folder a command runs in, on the disk (the session's working directory, else this process's);
        raises Unknown for one known only at run time (`cd "$x"`)."""
        if cwd == "$unknown" or (cwd is not None and "$" in cwd):
            raise Unknown(cwd)
        base = self.session.workdir if self.session is not None else os.getcwd()
        if cwd is None:
            return str(base)
        return posixpath.join(str(base), _home_expanded(cwd))

    def _remote_urls(
        self, run: Run, command: Command, values: list[str], local: dict[str, str], via: tuple[str, ...], depth: int
    ) -> list[str]:
        """(xf45) `language: gitremote`: the operand (git push's repository) may name a remote, whose URLs the
        configuration gives (`git push x` with `[remote "x"] url = ../r`: r's receiving hooks run); none names
        every remote's (the push's default). The URLs are read beside the word itself (a folder of the name
        is what git takes when no remote is so named). A configuration nobody can read here asks."""
        if not (self.files or (self.session is not None and not self.session.disk)):
            return values  # (no hook written: none to find)
        named = [v for v in values if "/" not in v and ":" not in v and v not in (".", "..")]
        if values and not named:
            return values
        # (a name known only at run time may be any remote's)
        name = named[0] if named and "$" not in named[0] and "`" not in named[0] else None
        self.read_disk = True
        try:
            getenv = partial(self._config_variable, local)
            urls = remote_urls(name, self._folder(command.cwd), getenv)
        except Unknown:
            self._nested(run, partial(self._escape_hatch, None, via, depth))
            return values
        return [*values, *urls]

    def _config_variable(self, local: dict[str, str], name: str) -> str | None:
        """A variable's value as the program sees it: the line's, else the environment's (HOME, GIT_DIR ...),
        a leading `~` (the engine's name for the home) the real home."""
        value = local.get(name, self.env.get(name))
        if value is None:
            return os.environ.get(name)
        if "$" in value:
            raise Unknown(name)  # (a value known only at run time)
        return _home_expanded(value)

    def _alias_value(
        self, run: Run, value: str, words: list[str], flags: list[bool], via: tuple[str, ...], depth: int
    ) -> None:
        """A stored alias's value: `!LINE` is a shell line, anything else the program's own words."""
        if value.startswith("!"):
            self._alias_runs(replace(run, prepend=None), value[1:], words, flags, via, depth)
        else:
            self._alias_runs(run, value, words, flags, via, depth)

    def _alias_runs(
        self, run: Run, text: str, words: list[str], flags: list[bool], via: tuple[str, ...], depth: int
    ) -> None:
        """Judge an alias's ``text`` run with ``words`` appended: git runs `!CMD` as `sh -c 'CMD "$@"' CMD ARGS`
        and a verb alias as `git VALUE ARGS` (``run.prepend``), the words being the outer shell's, expanded there."""
        line = f"{run.prepend} {text}" if run.prepend else text
        if words:
            line += ' "$@"'
        zero = run.prepend or text
        self._nested(run, lambda: self.run_with(line, [zero, *words], [False, *flags], depth, via))

    def _spliced(self, run: Run, parsed: Parsed, argv: list[str], dynamic: list[bool], data: bool = False) -> bool:
        """Whether the word a shell's payload comes from (`sh -c TEXT`, `bash -c TEXT`) holds a value the
        outer shell gives it that is not known here (see spliced_code); with ``data``, one an earlier
        command may have stored (see spliced_data)."""
        if not any(dynamic):
            return False
        at = self._payload_at(run, parsed, argv)
        if data:
            return any(i < len(argv) and dynamic[i] and self.spliced_data(argv[i]) for i in at)
        return any(i < len(argv) and dynamic[i] and self.spliced_code(argv[i]) for i in at)

    def _payload_at(self, run: Run, parsed: Parsed, argv: list[str]) -> list[int]:
        """The indexes of the words an option's or operand's payload may come from (the option's word and the
        one after it: `-cTEXT`, `-c TEXT`)."""
        at: list[int] = []
        if run.source == "option":
            for name, _, index in parsed.options:
                if name in run.names:
                    at.extend((index, index + 1))
        else:
            operands = list(parsed.operand_at)
            if parsed.rest is not None:
                operands += range(parsed.rest, len(argv))
            at = operands[run.index : run.index + 1]
        return at

    def spliced_data(self, text: str) -> bool:
        """Whether ``text``, a word with a value the outer shell gives it, holds one an earlier command may
        have stored (a substitution printing no mere count or fact of the system, a variable set from one or
        read): a language less than a shell's (sed's script) reads it as commands only when it can be any text."""
        raise NotImplementedError

    def spliced_code(self, text: str) -> bool:
        """Whether ``text``, a word with a value the outer shell gives it that is not known here, holds
        one the line set (`read x`, `x=$(cmd)`, a loop's) or a substitution's output: a shell reading the
        word as commands parses that value too. A variable the line did not set is the environment's."""
        raise NotImplementedError

    def _words_run(
        self,
        run: Run,
        command: Command,
        parsed: Parsed,
        argv: list[str],
        dynamic: list[bool],
        via: tuple[str, ...],
        depth: int,
    ) -> tuple[list[str], list[bool], bool] | None:
        """Payloads made of words: the rest of the line, an option that starts a command
        (`python -m MOD ARGS`), or find's `-exec ... ;`."""
        if run.source == "after":
            if command.program is not None and parsed.options:
                # (rev54, stop 55) a marker option spelled inside a word: `-x=rm`, `--exec-batch=rm`, `-Hx rm`, `-Hxrm`,
                # `genie -ic CMD`
                argv, dynamic = _markers_apart(argv, dynamic, run.names, command.program.grammar, parsed)
            if run.kind in ("path", "file"):
                # the file named by the word after each marker (find's `-fprint FILE`, vim's `-s KEYS`): that word alone
                for at in range(1, len(argv) - 1):
                    if argv[at] in run.names:
                        self._payload(run, command, None, argv[at + 1], via, depth)
                return None
            spans = _marked(argv, run.names, run.until)
            if run.first:
                spans = [s for s in spans if parsed.rest is not None and s[0] == parsed.rest + 1]
            for start, end in spans:
                words = argv[start:end]
                flags = dynamic[start:end]
                if run.placeholder is not None:
                    # the starting points: the operands before the first marker (fd's come after its options)
                    before = argv[: spans[0][0]]
                    operands = [w for w in parsed.all_operands(argv) if w in before]
                    named = _found_name(before) if run.replace is None and command.cwd is None else None
                    for root in _expression_roots(operands):
                        found = ("." if root in (".", "") else root.rstrip("/")) + "/*"
                        # GNU find puts the path in place of `{}` inside a word too (`sh -c 'echo x > {}'`);
                        # with `replace` (fd's {}, {/}, {.} ...), a command holding none gets it appended.
                        # A word that is `{}` alone: a file of the name `-name` gives, when it does
                        if run.replace is None:
                            alone = found
                            if named is not None and _INSIDE.match(root) is not None:
                                alone = found[:-1] + "**/" + named
                            expanded = [
                                alone if w == run.placeholder else w.replace(run.placeholder, found) for w in words
                            ]
                        else:
                            expanded = _completed(run, words, found)
                        self._words(
                            run, command, expanded, [*flags, *[False] * (len(expanded) - len(flags))], via, depth
                        )
                    if any(run.placeholder in w and w != run.placeholder and _CODE_TEXT.search(w) for w in words):
                        # `find . -exec sh -c 'echo {}' \;`: the name found is put in a text a program may
                        # parse as commands, and a name may hold any text (`x;rm -rf ~`): data runs (redt34)
                        self._nested(run, partial(self._escape_hatch, None, via, depth))
                else:
                    self._words(run, command, words, flags, via, depth)
            return None
        if run.with_rest and run.source == "operand":
            # (xf44b) `operand: N, with_rest: true`: the words from operand N on, options among them, are a command
            # (BSD `script [-q] [file [command ...]]`; `ip -all netns exec CMD`, which names no namespace)
            at = _operand_position(parsed, argv, run.index)
            if at < 0:
                return None
            words = argv[at:]
            if words[0] in run.not_words:
                return None  # (carr45) a verb of the program's own, no command (`rr replay`: rr's `rr CMD` is record)
            if run.match is not None:
                # (carr45) with `match`: the operand's payload group is the command's first word, the words after it
                # continue it (hatch's `run ENV:CMD ARGS`); an operand it does not match starts no command
                first = matched_payload(run, words[0])
                if not first:
                    return None
                words = [first, *words[1:]]
            # judged as a command of its own (nested): the row's other reading stays the inner command
            self._words(run, command, words, dynamic[at:], via, depth)
            return None
        if run.with_rest:
            hit = next(((v, i) for name, v, i in parsed.options if name in run.names and v is not None), None)
            if hit is None:
                return None
            tail = argv[parsed.rest :] if parsed.rest is not None else []
            words = [hit[0], *tail]
            flags = [dynamic[min(hit[1] + 1, len(dynamic) - 1)], *dynamic[len(argv) - len(tail) :]]
            if run.kind == "argv":
                return words, flags, run.indirect
            self._words(run, command, words, flags, via, depth)
            return None
        if parsed.rest is not None:
            words = argv[parsed.rest :]
            flags = dynamic[parsed.rest :]
        elif not program_stops(command):
            # A program that reads options anywhere (`runuser -u app -- cmd`): its operands.
            words = list(parsed.operands)
            flags = [dynamic[i] for i in parsed.operand_at]
        else:
            return None
        if run.until:
            stop = next((i for i, w in enumerate(words) if w in run.until), len(words))
            words, flags = words[:stop], flags[:stop]
        if run.input_args and run.arguments:
            pass  # parallel: its input is its arguments (below)
        elif run.input_args and command.stdin:
            words, flags = _with_input(run, parsed, words, flags, command.stdin)
        elif run.input_args and words:
            # Input only known at run time (`find ~ -name x | xargs -I{} cp f {}`): its words are too.
            unknown = _listing_input(parsed, self.listing, command.cwd, command.redirects)
            words, flags = _with_input(run, parsed, words, flags, unknown, whole=True)
            flags = [f or unknown in w for f, w in zip(flags, words, strict=True)]
        if not words:
            return None
        if run.arguments:
            # parallel CMD ::: A B: the command runs once per argument, completed by it.
            arguments = _arguments(argv, run.arguments, run.until)
            if not arguments and run.input_args:
                # `echo CMD | parallel sh -c`, `| parallel eval`, `| parallel -I@ bash -c @`: with no
                # `:::`, each line of its input is an argument (one not known here: `$(cat)`), or of the
                # argument files it names (`-a F`, `:::: F`)
                arguments, words = self._input_arguments(run, parsed, argv, words, command)
                if arguments == [_UNKNOWN_INPUT] and not command.stdin:
                    # input only the run knows (not a listing of the tree piped in: `ls | parallel gzip`
                    # gets names): a word for it, unquoted (`curl URL | parallel sh -c`)
                    known = _listing_input(parsed, self.listing, command.cwd, command.redirects) != _UNKNOWN_INPUT
                    completed = [] if known else _completed(run, words, _UNKNOWN_INPUT, quoted=False)
                    if completed:
                        self._words(
                            run, command, completed, [*flags, *([True] * (len(completed) - len(flags)))], via, depth
                        )
                    arguments = []
            for argument in arguments:
                completed = _completed(run, words, argument)
                self._words(run, command, completed, [*flags, *([False] * (len(completed) - len(flags)))], via, depth)
        if run.kind == "argv":
            if run.under:
                self._local_program(run, command, words, flags, via, depth)
                if run.only_under:
                    return None
            return words, flags, run.indirect
        self._words(run, command, words, flags, via, depth)
        return None

    def _touched_in(self, folder: str) -> bool:
        """Whether the line or the session wrote a file in ``folder``, or one there changed since the
        session began (the first few hundred names of the folder are asked)."""
        return any(self._touched(posixpath.join(folder, name)) for name in self.written_in(folder) or ())

    def _local_program(
        self, run: Run, command: Command, words: list[str], flags: list[bool], via: tuple[str, ...], depth: int
    ) -> None:
        """(fresh39b) A runner that puts a project's folder first on PATH for what it runs (``run.under``:
        npx, `npm exec`, `poetry run`, `uv run` find `jest` in node_modules/.bin, `pytest` in .venv/bin):
        a file of that name there that the line or the session wrote, or that changed since the session
        began, is what runs: judged as that file run with the other words too (its text, or an approval
        when nobody can read it). Any other is the program of that name, read as before."""
        name = words[0] if words and not flags[0] else ""
        if not name or "/" in name or name.startswith("-"):
            return
        for folder in run.under:
            local = posixpath.join(folder, name)
            if self._touched(local):
                self._nested(run, partial(self._argv_run, [local, *words[1:]], list(flags), command, via, depth))

    def _words(
        self,
        run: Run,
        command: Command,
        words: list[str],
        flags: list[bool],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        if run.prepend is not None:
            prepended = run.prepend.split()  # (rev56: `prepend: env -C` is two words)
            words, flags = [*prepended, *words], [*[False] * len(prepended), *flags]
        if run.kind == "argv":
            self._nested(run, partial(self._argv_run, words, flags, command, via, depth))
            return
        if run.kind == "keys":
            self._payload(run, command, None, typed_text(words), via, depth)
            return
        texts = words if run.each else [" ".join(words)]
        for text in texts:
            self._payload(run, command, None, text, via, depth)
        spliced = run.kind in _SPLICED_KINDS and not run.input_args  # (GNU parallel quotes what it puts in)
        if (spliced and any(f and self.spliced_code(w) for w, f in zip(words, flags, strict=False))) or (
            _unread_program(run, words, flags)
        ):
            # `eval "echo $x"` with x from `read`: its value is parsed as commands (see _run)
            self._nested(run, partial(self._escape_hatch, None, via, depth))

    def _env_pairs(self, run: Run, local: dict[str, str]) -> list[str]:
        """`GIT_CONFIG_KEY_0=k GIT_CONFIG_VALUE_0=v` → ["k=v"]."""
        key_prefix, value_prefix = sorted(run.names, key=lambda n: "VALUE" in n)
        out = []
        for i in range(64):
            key = local.get(f"{key_prefix}{i}", self.env.get(f"{key_prefix}{i}"))
            if key is None:
                break
            value = local.get(f"{value_prefix}{i}", self.env.get(f"{value_prefix}{i}", ""))
            out.append(f"{key}={value}")
        return out

    # -- one payload -----------------------------------------------------------------

    def _payload(
        self,
        run: Run,
        command: Command,
        program: Program | None,
        text: str,
        via: tuple[str, ...],
        depth: int,
        arguments: tuple[list[str], list[bool]] | None = None,
    ) -> None:
        """Judge what ``run`` found; ``arguments``: a shell payload's positional parameters
        (`sh -c 'rm -rf "$1"' _ ~`), with whether each is known only at run time."""
        kind = run.kind
        if command.program is not None and command.program.windows and kind == "shell":
            text = windows_text(text)
        if kind == "argv":
            # A program named by an option or a variable (`scp -S PROG`, `sort --compress-program=PROG`):
            # one word, run without a shell. A script of its own that nobody can read here is run as
            # an escape hatch runs it.
            if "/" in text and not in_system_folder(text) and self._content(text) is None:
                self.indirect += 1
                try:
                    self._synthetic("sh", ("sh", text), via, depth)
                finally:
                    self.indirect -= 1
                return
            self._nested(run, partial(self._unwrap, [text], [False], [], "", command.fed_by, via, depth))
        elif kind in ("shell", "keys"):
            if run.spawn:
                self._nested(run, lambda: self._synthetic("sh", ("sh", "-c", text), via, depth))
            # (what the line prints is the command's output: see shell._simple). Its commands read the
            # command's input, unless that input is the line itself: `echo 'rm -rf ~' | sh -c sh`, `| sh -c
            # 'cat | sh'` run the text piped in (read as `exec < FILE`'s is: see shell._simple)
            inherited = self.exec_input
            if command.stdin and run.source != "stdin":
                self.exec_input = command.stdin
            # (unseen55) fish's payload, and the code a fish builtin is handed (`eval "rm -rf (echo ~)"`), as fish
            # reads it; any other program's payload (`bash -c`) as sh's
            fish = run.decode == "fish" or (self.fish_dialect and command.name in _FISH_SAME_SHELL)
            unread = _CSH_UNREAD if command.name in _CSH_NAMES else _FISH_UNREAD if fish else None
            if unread is not None and unread.search(text) is not None:
                self.unread.append(UNREAD_SHELL_MARK + text[:80])  # (stop 57) see evaluate.UNREAD_SHELL
            if fish and run.decode != "fish":
                text = fish_text(text)
            # (a program's shell sees only the variables the line exported: Analyzer._analyze_tokens, _new_shell)
            try:
                # (partials, not lambdas kept in a local: compiled, a closure stored in its own function's environment
                # is a reference cycle, left for the cycle collector after each check)
                reading: Callable[[], object]
                if arguments is not None:
                    words, flags = arguments
                    if run.positional == "argv":
                        text = sh_argv(text)
                    reading = partial(self.run_with, text, words, flags, depth, via)
                else:
                    reading = partial(self.analyze, text, depth=depth, via=via)
                self.in_dialect(fish, partial(self._nested, run, reading))
            finally:
                self.exec_input = inherited
        elif kind == "code" and run.language in ("curlrc", "wgetrc"):
            self._option_file(run, command, run.language or "", text, via, depth)  # `wget -e COMMAND`
        elif kind == "code" and run.language in CONFIG_LANGUAGES:
            # a configuration given as text (`less --lesskey-content=TEXT`, whose lines may be ended by
            # `;` as well, `\;` a literal one): the shell lines it runs
            if run.language == "lesskey":
                text = _LESSKEY_LINE_END.sub("\n", text).replace("\\;", ";")
            lines = config_commands(run.language or "", text)
            if lines is None:
                self._nested(run, partial(self._escape_hatch, None, via, depth))
            for line in lines or ():
                self._nested(run, partial(self.analyze, line, depth=depth, via=via))
        elif kind == "code":
            self._nested(run, lambda: self.code(command, run.language or "", text, via, depth))
        elif kind == "sed":
            files: list[tuple[str, str]] = []
            for item in sed_payloads(text, files):
                self._escape_hatch(item, via, depth)
            for verb, path in files:  # `w FILE` judged as `tee FILE`, `r FILE` as `cat FILE`
                self._program_file(verb, path, via, depth)
        elif kind == "sql" or kind == "ed":  # noqa: PLR1714
            for item in sql_payloads(text) if kind == "sql" else ed_payloads(text):
                self._escape_hatch(item, via, depth)
            for written in sql_writes(text) if kind == "sql" else ed_writes(text):
                self._program_file("tee", written, via, depth)
            for source in sql_sources(text) if kind == "sql" else ():
                self._file(replace(run, kind="file", language="sql", indirect=True), command, source, via, depth)
            for read in sql_reads(text) if kind == "sql" else ed_reads(text):
                # a file it reads, judged as `cat PATH` is; one named by data: a read nobody can judge; a leading
                # `~/` is the home (duckdb expands it: fresh39a)
                line = "cat"
                if read is not None:
                    line = f'cat ~/"{read[2:]}"' if read.startswith("~/") else f'cat "{read}"'
                self._nested(run, partial(self.analyze, line, depth=depth, via=via))
        elif kind == "ex":
            for language, code in ex_payloads(text):
                if language == "file":  # `source FILE`
                    self._file(replace(run, kind="file", language="ex", indirect=True), command, code or "", via, depth)
                elif language == "write":  # `:w FILE`, gdb's `set logging file FILE`: judged as `tee FILE`
                    self._program_file("tee", code, via, depth)
                elif language in ("shell", "spawn"):
                    self._escape_hatch(code, via, depth)
                elif language == "run":  # what the editor does itself (vimscript's delete(): `rm -- P`)
                    self.analyze(code or "", depth=depth, via=via)
                else:
                    self._nested(run, partial(self.code, command, language, code or "", via, depth))
        elif kind == "make":
            for recipe in make_payloads(text, self._make_given(command, text)):
                if recipe is None:  # a line whose variables hold a value known only at run time
                    self._nested(run, partial(self._escape_hatch, None, via, depth))
                    continue
                if not run.indirect and self.inert_recipe(recipe, depth):
                    continue  # `echo WORDS`: counted, not read
                # (mk50) a recipe runs in a shell of its own: what it exports (make's exports read before it)
                # is not the line's, nor lost for make itself (`make x CC=clang` read CC as lost: asked)
                values, lost = dict(self.env), {k: list(v) for k, v in self.env.lost.items()}
                try:
                    self._nested(run, partial(self.analyze, recipe, depth=depth, via=via))
                finally:
                    self.env.reset(values, lost)
            for name in make_includes(text):
                # `include x.mk` (in --eval text, a makefile): read as a makefile, once along a chain
                if name not in via:
                    included, self.making_included = self.making_included, True
                    try:
                        self._file(replace(run, kind="file", language="make"), command, name, via, depth)
                    finally:
                        self.making_included = included
        elif kind == "ssh_config":
            for item in ssh_config_payloads(text):
                self._escape_hatch(item, via, depth)
            forwards = ssh_config_forwards(text)
            if forwards:
                # (rows43) the forwards it sets up, judged as the options on one ssh line (`GatewayPorts yes` with
                # a LocalForward is `-g -L`): `RemoteForward 8080 x:80` is `ssh -R 8080:x:80 h`
                forward = " ".join(shlex.quote(word) for words in forwards for word in words)
                self._nested(run, partial(self.analyze, f"ssh {forward} h", depth=depth, via=via))
            for name in ssh_config_includes(text):
                if name not in via:
                    self._file(replace(run, kind="file", language="ssh_config"), command, name, via, depth)
        elif kind == "file":
            self._file(run, command, text, via, depth)
        elif kind == "path":
            # A path the program hands to something else (a container's bind mount): judged as the
            # operand of the command the table names for it (`bind-mount PATH`).
            # (`prepend: rm -rf`: a folder the program deletes, pytest's --basetemp)
            prepended = tuple((run.prepend or "path").split())
            self._nested(run, lambda: self._synthetic(prepended[0], (*prepended, text), via, depth))

    def _make_given(self, command: Command, text: str) -> MakeGiven | None:
        """What the make command being read gives its makefiles' variables: its `NAME=VALUE` operands (and
        MAKEFLAGS', read among its words), its environment (the line's variables, a wrapper's `env X=…`; one
        the line lost holds a value known only at run time), `-e`, its `--eval` texts."""
        making = self.making
        if making is None or making[0] is not command or command.program is None:
            return None
        local = making[1]
        argv = list(command.argv)
        parsed = parse_argv(command.program.grammar, argv)
        at = [i for i in parsed.operand_at if i < len(argv)]
        line, computed = make_line_variables([argv[i] for i in at], [command.dynamic[i] for i in at])
        environment: dict[str, list[str | None]] = {}
        for name in {*local, *self.env, *self.env.lost}:
            values, lost = self.env.readings(name, local)
            environment[name] = [*values, None] if lost else list(values)
        evals = [value for value in parsed.values(_MAKE_EVAL) if value != text]
        first = parsed.has(_MAKE_ENVIRONMENT_FIRST)
        return MakeGiven(
            line, environment, first, computed, "\n".join(evals), self._make_goals(command, parsed, at, local)
        )

    def _make_goals(
        self, command: Command, parsed: Any, at: list[int], local: dict[str, str]
    ) -> tuple[str, ...] | None:
        """(mk49) The goals the make command asks for (its operands that are not `NAME=VALUE`; none: the default
        goal), when only they are followed in the makefile read (executors.make_goal_recipes). None: every recipe
        is judged: a goal computed or known only at run time, a makefile read through `include` (its rules
        are the including one's too), `--eval` text (its rules come first), more than one `-f`, MAKEFLAGS or
        MAKEFILES in the environment (flags and makefiles not on the line)."""
        if self.making_included or parsed.has(_MAKE_EVAL) or len(parsed.values(_MAKE_FILES)) > 1:
            return None
        if not _MAKE_HIDDEN.isdisjoint({*local, *self.env, *self.env.lost}):
            return None
        goals: list[str] = []
        for i in at:
            word = command.argv[i]
            if command.dynamic[i] or "$" in word or any(c in word for c in "*?["):
                return None
            if "=" not in word:
                goals.append(word)
        return tuple(goals)

    def _file(self, run: Run, command: Command, path: str, via: tuple[str, ...], depth: int) -> None:
        """A file the program runs: read when it was written earlier on the line (or is stdin)."""
        listing = self._disk_listing(run, path)
        try:
            self._file_read(run, command, path, via, depth)
        finally:
            if listing:
                self.session.listing = False

    def _disk_listing(self, run: Run, path: str) -> bool:
        """(entry50) A check without a session (DiskView) matches a glob the program's word holds against the disk
        (`bash x.s?`, `sh ./[x].sh`) and lists the folder it runs the files of (`run-parts d`), as the shell and
        the program would: the word names the file it runs. Never for a `files:` run (the modules a script may
        import: xf48b's false alarms), and only while this word is read."""
        view = self.session
        if view is None or not view.disk or run.source == "files" or view.listing:
            return False
        if run.language != "folder" and not _GLOBBED_WORD.search(path):
            return False
        view.listing = True
        return True

    def _entry(self, run: Run, path: str, depth: int = 0) -> str | None:
        """(entry50) The file the program runs for the word ``path``, resolved as it resolves it (the run's
        `entry:` forms, policies/executors.yaml): `node .` runs package.json's `main` or index.js, `node index`
        index.js, `python3 d` d/__main__.py, `python3 -m x.y` x/y.py or x/y/__main__.py. The first form the line,
        the session or the disk holds; None when none does."""
        if "$" in path or "`" in path or depth > 2:
            return None
        path = path.rstrip("/") or path  # (`node ./d/`: the folder d)
        dotted = path.replace(".", "/")
        for form in run.entry:
            name, _, key = form.partition("#")
            candidate = name.replace("{}", path).replace("{/}", dotted)
            if "//" in candidate or ("{/}" in name and name.count("/..") > dotted.count("/")):
                # (rev50) a package above the module's own (`-m pytest`'s `{/}/../__init__.py`: the working
                # directory's __init__.py, which python never runs)
                continue
            text = self._script(candidate)
            if text is None and self.session is not None and not self.session.disk:
                # (rev50) a session resolves it as a check does: a file of the project it did not write (planted
                # before it began: `python3 -m pkg` with pkg/__main__.py, `node .` with package.json's `main`)
                text = self._planted(candidate)
            if text is None:
                continue
            if not key:
                return candidate
            try:
                data = json.loads(text)
            except ValueError:
                return candidate  # a manifest nobody can read: read as what it is (fail closed)
            value = data.get(key) if isinstance(data, dict) else None
            if isinstance(value, str) and value and "$" not in value:
                found = self._entry(run, posixpath.join(posixpath.dirname(candidate), value), depth + 1)
                if found is not None:
                    return found
        return None

    def _file_read(self, run: Run, command: Command, path: str, via: tuple[str, ...], depth: int) -> None:
        if run.entry:
            found = self._entry(run, path)
            if found is None and "{}" not in run.entry:
                return  # (python3 -m pytest: no module of that name here, the installed one runs)
            path = found or path
        if run.language == "folder":
            self.run_folder(command, path, via, depth)  # run-parts DIR: every file of DIR
            return
        if run.language == "libraries":
            # LD_LIBRARY_PATH=DIR:DIR, GCONV_PATH=DIR: a shared object (or iconv's module list) the line
            # or the session wrote in one is loaded by the program: machine code nobody reads here
            for place in path.split(":"):
                names = self.written_in(place or ".")
                if names is None or any(_LOADED_NAME.search(name) for name in names):
                    self._nested(run, partial(self._escape_hatch, None, via, depth))
                    return
            return
        if run.under:
            self._start_up_folder(run, path, via, depth)
            return
        if run.source == "operand":
            self._script_named_like_a_runner(command, path, via, depth)
        if run.language == "plugin":
            return  # a verb run as PREFIX+VERB through PATH: see shell._plugin_on_path
        folder = _FOLDER_FILES.get(run.language or "")
        if folder is not None:
            # a folder the program reads a file of: CURL_HOME=DIR is DIR/.curlrc, GIT_DIR=DIR is DIR/config
            name, language = folder
            run, path = replace(run, language=language), posixpath.join(path, name)
        if run.source == "files" and not run.names.isdisjoint(via[:-1]):
            # the project files judged up this chain (tasks.py's `c.run("pytest")`: pytest reads *.py again)
            return
        if run.language == "library":
            # A shared object it loads (`ssh -I F`, `openssl -engine F`, `-fplugin=F`): machine code nobody
            # reads here. One the line or the session wrote, or that changed in the working tree since the
            # session began (`gcc -shared -o x.so`): a run nobody can judge (ask); any other is the system's.
            if self._script(path) is not None or self._touched(path):
                self._nested(run, partial(self._escape_hatch, None, via, depth))
            return
        content = command.stdin if stdin_file(path, command.cwd) else self._script(path)
        if content is None and self.session is not None and (run.source != "files" or run.language in DISK_LANGUAGES):
            # (unpack50) a file of the project the session did not write, named exactly (`bash x.sh` with x.sh
            # planted before the session began): read from the disk as a check without a session reads it
            content = self._planted(path)
        own_folders = _DISK_CONFIGS.get(run.language or "")
        if content is None and own_folders is not None and path != "none":
            # (rows43) a configuration that says what the program does, read from the disk when the line or the
            # session did not write it (`ssh -F cfg`: a file any earlier means put there), except the user's and
            # the system's own (~/.ssh/, /etc/ssh/: what plain `ssh` reads unread); one that cannot be read for
            # certain asks
            try:
                content = self._disk_config(path, command.cwd, own_folders)
            except Unknown:
                self._nested(run, partial(self._escape_hatch, None, via, depth))
                return
        if content is not None and run.language not in _SETTINGS_ONLY and not stdin_file(path, command.cwd):
            self.written_runs += 1
        if content is None and descriptor_file(path, command.cwd) is not None:
            # `bash /dev/fd/3 3<<< TEXT`, `exec {fd}<<< TEXT; source /dev/fd/$fd`: no descriptor numbers
            # are kept, so any input the line gave a descriptor is what it reads; `exec 3< x.sh` on this
            # line or an earlier one to the same shell, then `bash /dev/fd/3`: x.sh
            content = command.stdin or self.descriptors or self.opened_content(descriptor_file(path, command.cwd) or "")
        language = run.language or "shell"
        if content is None:
            if language in ("shell", "fish") and command.name and path not in self.files:
                self._early_read(command.name, path, False)
            if language == "shell" and command.name in (".", "source"):
                # (xfail40) a file this shell sources that nobody reads here (`. .venv/bin/activate`) may set PATH:
                # from here on a command's name may find a file the line or the session wrote (shell._on_path)
                lose_path(self.env)
            if run.indirect:
                # A file nobody can read here, run by an escape hatch: reported as its interpreter running it.
                runner = "sh" if language in _SHELL_RUN or language in CONFIG_LANGUAGES else language
                self._nested(run, lambda: self._synthetic(runner, (runner, path), via, depth))
            return
        inner = (*via, path)
        if language in ("response", "addopts"):
            # `gcc @FILE`, `javac @FILE`: the file's words are the program's own, in its place; a pytest
            # configuration's `addopts` (adv30)
            if path in via:
                return  # a file that names itself (`@rsp` holding `@rsp`): read once along a chain
            words = response_words(content) if language == "response" else addopts_words(content)
            if words is None:  # unbalanced quotes, or more words than are read: nobody judges it (ask)
                self._nested(run, partial(self._escape_hatch, None, inner, depth))
            else:
                name = command.argv[0] if command.argv else command.name
                # a configuration's options come before the line's own (`cache_dir = ~` with `--cache-clear`)
                own = list(command.argv[1:]) if language == "addopts" else []
                flags = [False] * (len(words) + 1) + list(command.dynamic[1 : 1 + len(own)])
                self._unwrap([name, *words, *own], flags, [], "", command.fed_by, inner, depth)
            return
        if language == "conf":
            # (xf51) a configuration whose keys are the program's long options (pip.conf, uv.toml, pyproject's
            # [tool.uv]): read as those options on the line, judged by the runs that read the option (one table:
            # `cache-dir = ~/.ssh` is --cache-dir=~/.ssh is PIP_CACHE_DIR=~/.ssh)
            if path not in via and command.program is not None:
                in_script = path.endswith((".py", ".pyw"))  # (adv52) a script's inline metadata: its [tool.uv]
                tool = command.name if in_script or posixpath.basename(path) == "pyproject.toml" else None
                content = script_metadata(content) if in_script else content
                self._configured(command, command.program, option_settings(content, tool), inner, depth)
            return
        if language in ("requirements", "sources"):
            if language == "sources" and path.endswith((".py", ".pyw")):
                # (adv52) a Python script's sources are its inline metadata's (`uv lock --script x.py`: PEP 723's
                # `# /// script` block with `dependencies = ["x @ git+URL"]`, `[tool.uv] index-url = URL`)
                content = script_metadata(content)
            if path not in via:  # (a requirements file naming itself: read once along a chain)
                self._package_sources(run, command, language, path, content, inner, depth)
            return
        if language == "mypy":
            # a mypy configuration's plugins: modules it imports, read as the Python they are (adv31)
            for plugin in mypy_plugin_files(content):
                if plugin not in via:
                    self._file(replace(run, language="python"), command, plugin, inner, depth)
            for executable in mypy_executables(content):  # a program it runs (adv32)
                self._nested(run, partial(self._unwrap, [executable], [False], [], "", command.fed_by, inner, depth))
            return
        if language in ("notebook", "ipython", "doctest"):
            self._python_cells(command, language, path, content, inner, depth)
            return
        if language in TASK_LANGUAGES:
            self._task_file(run, command, language, content, inner, depth)
        elif language == "fish" or (language == "shell" and self.fish_dialect and command.name in _FISH_SAME_SHELL):
            # (unseen55) a script fish runs (`fish x.fish`, or fish's `source x.fish`): its lines as fish reads them,
            # spelled for sh
            self.in_dialect(
                True,
                lambda: self._nested(run, lambda: self.run_script(fish_text(content), command, path, depth, inner)),
            )
        elif language == "shell":
            self._nested(run, lambda: self.run_script(content, command, path, depth, inner))
        elif language in ("make", "sed", "ex", "ed", "sql", "ssh_config"):
            self._payload(_as(run, language), command, None, content, inner, depth)
        elif language == "vimkeys":
            # keys vim types in normal mode (`vim -s KEYS`): the command lines they type after `:` (adv32)
            self._payload(_as(run, "ex"), command, None, typed_commands(content), inner, depth)
        elif language in CONFIG_LANGUAGES:
            # a program's own configuration (tmux -f, screen -c, a lesskey): the shell lines its commands run
            lines = config_commands(language, content)
            if lines is None:
                self._nested(run, partial(self._escape_hatch, None, inner, depth))
            for line in lines or ():
                self._nested(run, partial(self.analyze, line, depth=depth, via=inner))
        elif language == "npmrc":
            self._npmrc(run, command, path, content, inner, depth)
        elif language == "npmbin":
            # (xfail39) `npm exec NAME`, `npx NAME`: the package's own bin NAME, beside its package.json (node's when
            # JavaScript, else the shell's or its `#!` interpreter's, as `./FILE` runs)
            for target in npm_bins(content, command.argv):
                where = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                runs_as = "node" if where.endswith((".js", ".mjs", ".cjs")) else "shell"
                self._file(replace(run, language=runs_as), command, where, inner, depth)
        elif language == "npm":
            # its operands as its grammar reads them (`pnpm -C DIR NAME`: DIR is no script's name)
            # (disk51) a verb's own options read by its grammar (`npm run --prefix d start`: d is no script's name)
            program = command.program
            operands = None if program is None else _verb_operands(program, command.argv)
            # (fresh39b) npm runs a script with node_modules/.bin first on PATH: a program of that folder the
            # line or the session wrote is what `jest` in a script runs (read through that PATH)
            # (adv40b) the package's own: a workspace's scripts (`npm test -w web`, `pnpm -r test`) run in its folder;
            # the packages a glob found (`**/package.json`) each with theirs (a written bin under any of them)
            bins = posixpath.join(posixpath.dirname(path), _NPM_BIN)
            if "*" in bins:
                bin_path = f"PATH={shell_word(_ANY_NPM_BIN)}:{_NPM_BIN_PATH[5:]}"
            elif self._touched_in(bins):
                bin_path = f"PATH={shell_word(bins)}{_NPM_BIN_PATH[5 + len(_NPM_BIN) :]}"
            else:
                bin_path = ""
            for script in npm_scripts(content, command.argv, operands):
                self._nested(run, partial(self.analyze, bin_path + script, depth=depth, via=inner))
        else:
            self._nested(run, lambda: self.code(command, language, content, inner, depth))

    def _changed_in_session(self, folder: str, path: str) -> bool:
        """(fix51) Whether the file ``path`` (relative to ``folder``) changed since the session began: a session can
        stage and commit a file itself (`git add r.txt && git commit -m r && git mv r.txt .npmrc`), so the index
        listing it is no sign of the user's. Without a session, nothing to compare with (False); unknown: True."""
        if self.session is None or self.session.disk:
            return False
        try:
            held = os.stat(posixpath.join(folder, path))
        except (OSError, ValueError):
            return True
        started: float = self.session.files.started
        return max(held.st_mtime, held.st_ctime) >= started - _SESSION_SLACK

    def _npmrc(self, run: Run, command: Command, path: str, content: str, via: tuple[str, ...], depth: int) -> None:
        """(disk51) A project's .npmrc npm reads with every command: its `key=value` lines are npm's own options on
        the program's line (`script-shell=./x` is `npm --script-shell=./x`, `node-options=--require ./x.js` is
        `npm --node-options='--require ./x.js'`), judged by the row's runs of those options; only options the row's
        grammar declares, but the ones naming its folder (`prefix`: with npm the global one). One the git index
        lists is the user's, committed before any session (git ls-files; engine.policy.gitindex): not read."""
        program = command.program
        try:
            folder = self._folder(command.cwd)
        except Unknown:
            folder = ""  # (a folder only the run knows: no index read, the file is read)
        if program is None or (_committed(folder, path) and not self._changed_in_session(folder, path)):
            return
        grammar = program.grammar
        words: list[str] = []
        for line in content.splitlines()[:_MAX_NPMRC_LINES]:
            found = _NPMRC_LINE.match(line)
            if found is None:
                continue
            key = found.group(1).lower()
            name = grammar.aliases.get(key, key) if len(key) > 1 else key
            if key not in grammar.long or name in grammar.chdir or name in grammar.paths_in:
                continue
            value = found.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            words.append(f"--{key}={value}")
        if words:
            line = " ".join(shell_word(word) for word in (command.argv[0], *words))
            self._nested(run, partial(self.analyze, line, depth=depth, via=via))

    def _script_named_like_a_runner(self, command: Command, path: str, via: tuple[str, ...], depth: int) -> None:
        """`sh mvnw`, `python3 waf`, `bash gradlew`: a script an interpreter runs whose name is a
        runner of its folder's files (a program of the table with a `files:` run) reads those files
        as the runner does when run by its name (`./mvnw` reads .mvn/jvm.config, waf its wscript):
        judged as that program too, with the words after the script (adv30)."""
        name = posixpath.basename(path)
        program = self.programs.get(name)
        if program is None or name == command.name or name in via or "/" in name or not name:
            return
        if not any(r.source == "files" for r in program.runs):
            return
        argv = list(command.argv)
        at = len(argv) - 1 - argv[::-1].index(path) if path in argv else len(argv)
        words = [name, *argv[at + 1 :]]
        flags = [False, *command.dynamic[at + 1 :]]
        self._unwrap(words, flags, [], "", command.fed_by, (*via, name), depth)

    def _start_up_folder(self, run: Run, folder: str, via: tuple[str, ...], depth: int) -> None:
        """`HOME=. git status`, `XDG_CONFIG_HOME=c tmux`, `ZDOTDIR=z zsh`: a folder the program reads
        its start-up files from (``run.under``: `.gitconfig`, `.config` ...). One of them the line or
        the session wrote, or that changed since the session began, may run anything: nobody reads
        it here (ask). A folder named only at run time asks in a session that wrote files; a folder
        holding none of them is the user's business (adv29: every folder asked, written or not)."""
        if "$" in folder or "`" in folder:
            if self.written_in(folder) is None:
                self._nested(run, partial(self._escape_hatch, None, via, depth))
            return
        # (env44) a search list (`PHP_INI_SCAN_DIR=/etc/php.d:d`, `COMPILER_PATH=/usr/lib:d`): each folder of it too
        places = [folder, *(p for p in folder.split(":") if p and p != folder)] if ":" in folder else [folder]
        for place in places:
            for name in run.under:
                if self._touched(posixpath.join(place, name)):
                    self._nested(run, partial(self._escape_hatch, None, via, depth))
                    return

    def _configured(
        self,
        command: Command,
        program: Program,
        settings: list[tuple[str, str]],
        via: tuple[str, ...],
        depth: int,
    ) -> None:
        """(xf51) ``command`` judged once more with a configuration's ``settings`` (option_settings) as its options,
        spelt as its environment's are (shell._named_options): a no value the negation, a yes value the bare flag
        when a grammar of the program reads the option without a value, else `--OPTION=VALUE`; one of the program's
        own options before its verb, a verb's after the line's words (before a `--`)."""
        before: list[str] = []
        after: list[str] = []
        for option, value in settings:
            folded = value.strip().lower()
            if not folded:
                continue
            if folded in ("0", "false", "no", "off"):
                word = "--no-" + option
            elif folded in ("1", "true", "yes", "on") and _declares_flag(program, option, 3):
                word = "--" + option
            else:
                word = f"--{option}={value}"
            own = program.grammar.stop_at_operand and option in program.grammar.long
            (before if own else after).append(word)
        if not before and not after:
            return
        argv, flags = list(command.argv), list(command.dynamic)
        at = argv.index("--") if "--" in argv[1:] else len(argv)
        words = [*argv[:1], *before, *argv[1:at], *after, *argv[at:]]
        dynamic = [*flags[:1], *([False] * len(before)), *flags[1:at], *([False] * len(after)), *flags[at:]]
        self._unwrap(words, dynamic, [], "", command.fed_by, via, depth)

    def _python_cells(
        self, command: Command, language: str, path: str, content: str, via: tuple[str, ...], depth: int
    ) -> None:
        """A notebook's code cells (`jupyter nbconvert --execute`, `papermill`, `ipython x.ipynb`), an
        IPython script, or a doctest file's examples (`python -m doctest F`): each judged as the Python
        it is, with IPython's shell escapes (`!cmd`, `%%bash` cells, alias magics) as shell lines; a
        notebook that cannot be read (not JSON, past its bounds) or in a kernel language not judged
        here asks."""
        if language == "doctest":
            cells = [("python", doctest_source(content))]
            if path.endswith(".py"):  # a module: imported (its code runs) before its docstrings' examples
                cells.append(("python", content))
        elif language == "notebook" or path.endswith(".ipynb"):
            found = notebook_cells(content)
            if found is None:
                self._escape_hatch(None, via, depth)
                return
            cells = found
        else:
            cells = [("python", content)]
        for kind, text in cells:
            if kind == "shell":
                self.analyze(text, depth=depth, via=via)
                continue
            if not text.strip():
                continue
            self.code(command, "python", text, via, depth)
            for line in ipython_commands(text):
                if line is None:  # a magic that defines a command, a call given computed text
                    self._escape_hatch(None, via, depth)
                else:
                    self.analyze(line, depth=depth, via=via)

    def _task_file(
        self, run: Run, command: Command, language: str, content: str, via: tuple[str, ...], depth: int
    ) -> None:
        """A file of its folder a runner reads (a `files:` run): the commands it runs from it, as
        its language says (executors.TASK_LANGUAGES); code nobody reads here (`opaque`: build.rs,
        build.gradle, _test.go ...) the session wrote: a run nobody can judge (ask)."""
        if language == "opaque":
            self._nested(run, partial(self._escape_hatch, None, via, depth))
            return
        if language in ("curlrc", "wgetrc"):
            self._option_file(run, command, language, content, via, depth)
            return
        if language == "compose":
            paths, host = compose_mounts(content)
            for path in paths:  # judged as docker run's -v: `bind-mount PATH`
                self._nested(run, partial(self._synthetic, "bind-mount", ("bind-mount", path), via, depth))
            if host:
                self._nested(run, partial(self._escape_hatch, None, via, depth))
            return
        if language == "rake":
            self._nested(run, partial(self.code, command, "ruby", rake_as_ruby(content), via, depth))
            return
        if language == "gitconfig" and _GIT_ELSEWHERE.search(content) is not None:
            # (adv43) a written git configuration that sends git to files its text does not hold (an include, hooks
            # elsewhere) or to a work tree elsewhere (`worktree = ~`: `git add -A; git commit; git push URL` sent the
            # home's keys, `git pull` writes over its files), or lets a URL run a command (`protocol.ext.allow`)
            self._nested(run, partial(self._escape_hatch, None, via, depth))
        more = False
        if language == "gogenerate":
            lines = go_generate_lines(content)
        else:
            lines, more = task_commands(content, toml=bool(via) and via[-1].endswith(".toml"))
            if language == "gitconfig":  # `alias.x = !CMD`: a shell line
                lines = [line[1:] if line.startswith("!") else line for line in lines]
        if more:  # more command lines than are read: nobody judges the file (ask)
            self._nested(run, partial(self._escape_hatch, None, via, depth))
        elif lines:  # read as one script: one parse, the analyzer's budgets; a block's lines stay together
            self._nested(run, partial(self.analyze, "\n".join(lines), depth=depth, via=via))
        code = task_code_language(content) if language == "commands" else None
        if code is not None:  # a recipe with a `#!` line: its text is that language's too
            self._nested(run, partial(self.code, command, code, content, via, depth))

    def _option_file(
        self, run: Run, command: Command, language: str, content: str, via: tuple[str, ...], depth: int
    ) -> None:
        """A curl or wget configuration (or wget's `-e COMMAND`): judged as its options on the
        program's line (`output = F` is `curl --output F`); one nobody can read here asks."""
        words = option_file_words(language, content)
        if words is None:
            self._nested(run, partial(self._escape_hatch, None, via, depth))
            return
        if words:
            program = "curl" if language == "curlrc" else "wget"
            line = " ".join(shell_word(word) for word in (program, *words))
            self._nested(run, partial(self.analyze, line, depth=depth, via=via))

    def _package_sources(
        self, run: Run, command: Command, language: str, path: str, content: str, via: tuple[str, ...], depth: int
    ) -> None:
        """(env47) Where a written requirements file, manifest or package manager's configuration fetches
        packages from: a requirements file's lines are pip's own words on the program's line (`pip install -r
        r.txt` of `--index-url URL` is `pip install -r r.txt --index-url URL`); a configuration's sources are
        each judged as the run's ``prepend`` option naming it (`uv sync` of a pyproject naming an index is
        `pip install --index-url URL`), so that the row's own reading of a source the line names decides."""
        if language == "requirements":
            words = requirement_words(content, posixpath.dirname(path))
            if words is None:  # a line nobody can split for certain, or more than are read: ask
                self._nested(run, partial(self._escape_hatch, None, via, depth))
            elif words:
                line = " ".join(shell_word(word) for word in (*command.argv, *words))
                self._nested(run, partial(self.analyze, line, depth=depth, via=via))
            return
        for source in package_sources(content, source_row(self.programs.package_sources, path)):
            if source.startswith("$"):  # a variable the program expands when it reads the file: unknown here
                self._nested(run, partial(self._escape_hatch, None, via, depth))
            else:
                line = f"{run.prepend or 'sh'} {shell_word(source)}"
                self._nested(run, partial(self.analyze, line, depth=depth, via=via))

    def _program_file(self, verb: str, path: str | None, via: tuple[str, ...], depth: int) -> None:
        """A file a program's own text names (`sed 'w FILE'`, perl's `open F, ">FILE"`), judged as
        ``verb`` (`tee`: written, `cat`: read) naming it on the line. None: a name the program
        computes when it runs, judged as a name nobody can read here (`tee "$computed"`)."""
        if path is None:
            self._synthetic(verb, (verb, _COMPUTED_NAME), via, depth)
        else:
            self.analyze(f"{verb} -- {shell_word(path)}", depth=depth, via=via)

    def _escape_hatch(self, text: str | None, via: tuple[str, ...], depth: int) -> None:
        """A command a non-shell program hands to `sh -c`: reported as that shell (an escape
        hatch), and what it runs judged too. ``None``: the command comes from data."""
        self.indirect += 1
        try:
            if text is None:
                self._synthetic("sh", ("sh",), via, depth)
                return
            self._synthetic("sh", ("sh", "-c", text), via, depth)
            self.analyze(text, depth=depth, via=via)
        finally:
            self.indirect -= 1

    def code(self, command: Command, language: str, code: str, via: tuple[str, ...], depth: int) -> None:
        """An inline program: the interpreter's own command carries it, or one read as it."""
        if language == "opaque":
            # (stop 54) code nobody reads here (LLVM IR on lli's input: `lli < y.ll` with y.ll written): a run
            # nobody can judge, as an opaque file the line or the session wrote is
            if code.strip():
                self._escape_hatch(None, via, depth)
            return
        if language == "ipython":  # `ipython -c`, its input: Python, and its escapes (`!cmd`) as shell lines
            self._python_cells(command, language, "", code, via, depth)
            return
        if language in _DOCUMENT_LANGUAGES:  # (rev51) a document, not code: only the files it puts into the output
            for script in build_includes(code, language):
                self.analyze(script, depth=depth, via=(*via, language))
            return
        reading = joined_reading(code)  # with the names it joins from pieces (`'sys' + 'tem'`)
        if command.name == language or (command.program is not None and language in command.program.names):
            command.code = reading if command.code is None else command.code + "\n" + reading
            target = command
        else:
            target = self._synthetic(language, (language, "-e", code), (*via,), depth)
            target.code = reading
        inner = (*via, language) if target is not command else via
        for script in embedded_shell(code, language):
            self.indirect += 1
            try:
                self.analyze(script, depth=depth, via=inner)
            finally:
                self.indirect -= 1
        # a build file's includes (`subninja F`, cmake's `include(F)`): F judged as the build file
        # it is, cmake's relative to the including file's folder (the path of a file run ends ``via``)
        folder = posixpath.dirname(via[-1]) if language == "cmake" and via else ""
        for script in build_includes(code, language):
            self.analyze(f"cd -- {shell_word(folder)} && {script}" if folder else script, depth=depth, via=inner)
        # files it loads as its own code (perl's `do "F"`, runpy.run_path, Tcl's `source F`): judged
        # as that program running F; files perl reads whose lines it runs as `sh F`
        runs_data, lines = _runs_input(language, code, command.argv)
        for runner, path in code_loads(code, language, runs_data):
            if path is None:  # a file named only when it runs (`do $ARGV[0]`): nobody judges it here
                self._escape_hatch(None, inner, depth)
            else:
                self.analyze(f"{runner} {shell_word(path)}", depth=depth, via=inner)
        # (env46) a shared object it loads by path (`ctypes.CDLL("./x.so")`): judged as bash's `enable -f F` (its
        # constructors run: only one in the system's library folders is not asked about); one named when it runs asks
        for library in code_libraries(code, language):
            if library is None:
                self._escape_hatch(None, inner, depth)
            else:
                self.analyze(f"enable -f {shell_word(library)} library", depth=depth, via=inner)
        # (sess45) a REPL's command writing a file (node's `.save F`: the lines it was fed, into ~/.bashrc): `tee F`
        for path in repl_writes(code, language):
            self.analyze(f"tee -- {shell_word(path)}", depth=depth, via=inner)
        # `open('x', 'w')`: judged as `tee x`; a name written again is the same `tee x`: counted
        # and charged as its first reading, not read again (Analyzer.repeat)
        read: dict[str | None, tuple[int, int]] = {}
        for written in code_writes(code, language):
            again = read.get(written)
            if again is not None and self.repeat(*again):
                continue
            commands, tokens = len(self.commands), self.spent()
            self._program_file("tee", written, inner, depth)
            read[written] = (len(self.commands) - commands, tokens - self.spent())
        # `os.symlink(T, 'h')`: later words through h are judged as T, as after `ln -s T h` (a T the run
        # computes leads anywhere: `ln -s "$x" h`); `os.rename(S, N)` as `mv S N` (the source is gone)
        for verb in ("ln -s", "mv"):
            for source, name in code_pairs(code, language, verb):
                if name is None and verb == "ln -s":
                    continue  # a link named when it runs: code_writes judges its name written
                words = [shell_word(p) if p is not None else '"$' + _COMPUTED_PATH + '"' for p in (source, name)]
                self.analyze(f"{verb} -- {words[0]} {words[1]}", depth=depth, via=inner)
        if lines:
            # `perl -ne 'system $_'`, `awk '{system($0)}'`: each line it reads is a shell command --
            # judged as a shell given the same input (`echo 'rm -rf ~' | perl …` runs rm; fed
            # nothing, it reads the background shell's own input: a reader, see session_memory)
            self._unwrap(["sh"], [False], list(command.redirects), command.stdin, command.fed_by, inner, depth)
            # ... and `perl -ne 'system $_' cmds.txt`, `awk '{system($0)}' f`: the FILE operands it
            # reads those lines from first, each judged as `sh FILE`
            for word, dynamic in line_files(command, language, code):
                self._unwrap(["sh", word], [False, dynamic], [], "", command.fed_by, inner, depth)

    def in_dialect(self, fish: bool, action: Callable[[], object]) -> None:
        """(stop 55) Run ``action`` with the payload read as fish's (``fish``: Follower.fish_dialect) or sh's, the
        reading before it restored after."""
        dialect = self.fish_dialect
        self.fish_dialect = fish
        try:
            action()
        finally:
            self.fish_dialect = dialect

    def _nested(self, run: Run, action: Callable[[], object]) -> None:
        """Run ``action``; what it finds is marked as reached through an escape hatch if ``run`` is one."""
        if not run.indirect:
            action()
            return
        self.indirect += 1
        try:
            action()
        finally:
            self.indirect -= 1


# Inline programs that run the lines they read as shell commands: per language, (what reads its
# input, what hands a computed text to the system's shell). Both must be there (perl and ruby read
# it with -n/-p too; awk always does). `perl -ne print`, `awk '{system("make")}'` are not.
_SYSTEM_OF_VARIABLE = r"(?:\bsystem|\bexec|\bqx|\breadpipe|\bspawn|%x)\b\s*[({]?\s*[^;{}]*?\$|`[^`]*\$"
# perl's `open(P, "|sh")`, `open P, "| /bin/bash"`, `open(P, "|-", "sh")`: what it prints to P is run
_PIPE_TO_SHELL = r"""\bopen\b[^;]*?["']\s*\|\s*(?:-\s*["']\s*,\s*["']\s*)?(?:\S*/)?(?:ba|da|z|k|mk)?sh\b"""
_LINE_RUNNERS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "perl": (
        re.compile(r"<\s*(?:STDIN|ARGV|\$\w+)?\s*>|\breadline\b"),
        re.compile(_SYSTEM_OF_VARIABLE + "|" + _PIPE_TO_SHELL),
    ),
    "ruby": (re.compile(r"\bgets\b|\bSTDIN\b|\$stdin|\bARGF\b|\breadlines?\b"), re.compile(_SYSTEM_OF_VARIABLE)),
    "awk": (
        re.compile(r""),
        re.compile(r"\bsystem\s*\(\s*[^)\"]|\|\s*\"[^\"]*\b(?:sh|bash|dash|zsh|ksh)\b|[\w$)\]]\s*\|\s*getline\b"),
    ),
    "python": (
        re.compile(r"\bsys\.stdin\b|\binput\s*\(|\bfileinput\b|/dev/stdin"),
        re.compile(
            r"\b(?:os\.(?:system|popen|exec\w*|spawn\w*)|subprocess\.\w+|commands\.\w+|pty\.spawn)\s*\(\s*"
            r"(?![\"'\[(]|[rbfu]+[\"'])"
        ),
    ),
    "node": (
        re.compile(r"process\.stdin|\breadline\b|/dev/stdin|readFileSync\(\s*0\b"),
        re.compile(r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(\s*(?![\"'`\[])"),
    ),
    "php": (
        re.compile(r"\bSTDIN\b|php://stdin|\bfgets\b|\breadline\b"),
        re.compile(r"\b(?:system|exec|shell_exec|passthru|popen|proc_open)\s*\(\s*\$|`[^`]*\$"),
    ),
}
# ... each tried, over a long program, where RE2 finds one may start (regexes.Located)
_LINE_RUNNERS_AT = {language: (Located(reads), Located(runs)) for language, (reads, runs) in _LINE_RUNNERS.items()}
_LINE_OPTION = re.compile(r"-[A-Za-z0-9]*[np][A-Za-z]*")  # perl/ruby -n, -p, -lne, -pe


_LESSKEY_LINE_END: Final = re.compile(r"(?<!\\);")

_AWK_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Languages of files that only set a program's options (its commands in them are judged as runs): what
# the program prints is not their text (see written_runs). Every other language counts, unknown ones too.
_SETTINGS_ONLY: Final = CONFIG_LANGUAGES | {
    "npmrc",
    "requirements",
    "sources",
    "ssh_config",
    "wgetrc",
    "response",
    "addopts",
    "conf",
    "gitconfig",
    "gitdir",
    "gitconfighome",
    "curlrc",
    "curlhome",
}
# (rev51) languages of documents a program formats or preprocesses without running any of their text (a C source's
# `system("rm -rf ~")` is not run by `gcc -c`): read for their includes only (inline.build_includes)
_DOCUMENT_LANGUAGES = frozenset({"cpp", "roff"})
_CODE_OPTIONS = frozenset({"e", "E", "c", "r", "f", "file", "source"})  # the program's text given by an option


def line_files(command: Command, language: str, code: str) -> list[tuple[str, bool]]:
    """The files a line runner (see runs_input_lines) reads its lines from: ``command``'s operands
    but the one carrying the program (its text, or its script when no option gave it), awk's
    NAME=VALUE assignments and its own input (`-`), with whether each is known only at run time."""
    reading = command.reading
    if not isinstance(reading, Parsed):
        return []
    operands = list(zip(reading.operands, reading.operand_at, strict=True))
    if reading.rest is not None:  # a grammar that stops at its first operand (perl's `+`): the rest
        operands += [(command.argv[at], at) for at in range(reading.rest, len(command.argv))]
    if operands and operands[0][0] != code and not any(name in _CODE_OPTIONS for name, _, _ in reading.options):
        operands = operands[1:]  # `perl script.pl cmds.txt`, `awk PROGRAM f`: the program itself
    out: list[tuple[str, bool]] = []
    for word, at in operands:
        if word in (code, "-") or (language == "awk" and _AWK_ASSIGNMENT.match(word)):
            continue
        dynamic = command.dynamic[at] if at < len(command.dynamic) else True
        out.append((word, dynamic))
        if len(out) >= _MAX_INPUT_NAMES:
            break
    return out


def runs_input_lines(language: str, code: str, argv: Sequence[str]) -> bool:
    """Whether an inline ``language`` program runs what it reads on its input as shell commands
    (see _LINE_RUNNERS): `perl -ne 'system $_'`, `awk '{system($0)}'`, `awk '{print | "sh"}'`,
    python's `for l in sys.stdin: os.system(l)`."""
    return _runs_input(language, code, argv)[1]


def _runs_input(language: str, code: str, argv: Sequence[str]) -> tuple[bool, bool]:
    """Whether ``code`` hands a computed text to the system's shell, and whether it runs the lines
    it reads (runs_input_lines): each pattern run once over the program."""
    runner = _LINE_RUNNERS_AT.get(language)
    if runner is None:
        return False, False
    reads, runs = runner
    if runs.search(code) is None:
        return False, False
    if language in ("perl", "ruby") and any(_LINE_OPTION.fullmatch(word) for word in argv[1:]):
        return True, True
    return True, reads.search(code) is not None


# file languages whose unread file an escape hatch runs is reported as `sh FILE`
_SHELL_RUN: Final = frozenset({"shell", "make", "sed", "ex", "ed", "sql", "ssh_config"})


# names of a program's own input: `sh /proc/self/fd/0 <<< TEXT` runs TEXT
_DESCRIPTOR_FILE = re.compile(r"^/(?:dev|proc/[^/]+(?:/task/[^/]+)?)/fd/")
_DESCRIPTOR_NUMBER = re.compile(r"/(?:dev|proc/[^/]+(?:/task/[^/]+)?)/fd/([0-9]+)")
_PROC_ROOT = re.compile(r"^(?:/proc/[^/]+/root)+(?=/)")  # `/proc/self/root/dev/stdin` is `/dev/stdin`
_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0"})


def descriptor_file(path: str, cwd: str | None = None) -> str | None:
    """The descriptor of the opening process's own that ``path`` names (`/dev/stdin`, `/dev/fd/N`,
    `/proc/PID/fd/N` of any PID -- `$$`, `self`, digits --, `/proc/PID/task/TID/fd/N`, spelled with
    `//`, `.`, `..`, or relative to ``cwd``): its number ("" when it is known only at run time:
    `/dev/fd/$fd`), else None."""
    if path in _STDIN_FILES:
        return "0" if path != "-" else None
    if not path.startswith("/"):
        if not path or cwd is None or not cwd.startswith("/"):
            return None
        path = posixpath.join(cwd, path)
    if "/dev" not in path and "/proc" not in path:
        return None
    norm = _PROC_ROOT.sub("", "/" + posixpath.normpath(path).lstrip("/"))
    if norm == "/dev/stdin":
        return "0"
    number = _DESCRIPTOR_NUMBER.fullmatch(norm)
    if number is not None:
        return str(int(number.group(1)))
    return "" if _DESCRIPTOR_FILE.match(norm) else None


def stdin_file(path: str, cwd: str | None = None) -> bool:
    """Whether a program given ``path`` as a file reads its own input (`-`, `/dev/stdin`,
    `/proc/$$/fd/0` ...: see descriptor_file)."""
    return path == "-" or descriptor_file(path, cwd) == "0"


_MAX_INPUT_NAMES: Final = 64  # names read from a program's input (see _run)
_UNKNOWN_INPUT: Final = "$(cat)"  # a word xargs reads from input nobody can see here


def _listing_input(
    parsed: Parsed, listing: tuple[str, str | None] | None, cwd: str | None, redirects: tuple[tuple[str, str], ...] = ()
) -> str:
    """The word xargs reads from a listing piped into it (shell._listing_of): the listing when
    xargs reads its names as the listing prints them, where it was made; else input only the
    run knows. Not from the pipe with `-a FILE`; another folder (`find . | (cd x; xargs cat)`);
    a delimiter other than a newline (`-d .` cuts `./home/me/.ssh/k` into `/home/me/`...).
    `-0` reads NUL-ended names whole: only from a lister that ends them so (`find -print0`,
    `git ls-files -z`), marked for the walk (paths.NUL_READ: blanks in names do not split). (fp48) Not with its
    input redirected (`find . -name x | xargs rm < list.txt` reads list.txt: the redirection wins over the pipe)."""
    if listing is None or listing[1] != cwd or any(op[:1] == "<" for op, _ in redirects):
        return _UNKNOWN_INPUT
    text = listing[0]
    nul = False
    for name, value, _ in parsed.options:
        if name == "a":
            return _UNKNOWN_INPUT
        if name == "0":
            nul = True
        elif name == "d":
            if value not in ("\\n", "\n"):
                return _UNKNOWN_INPUT
            nul = False
    if nul != prints_nul(text):
        return _UNKNOWN_INPUT
    return text[:-1] + " " + NUL_READ + ")" if nul else text


def _with_input(
    run: Run, parsed: Parsed, words: list[str], flags: list[bool], data: str, whole: bool = False
) -> tuple[list[str], list[bool]]:
    """xargs: the words it reads (when the data piped in is known) complete the command; with
    -I R they replace R in it, one line at a time (the first line is judged: the others differ
    only in their data). ``whole``: ``data`` is one word standing for input only the run knows
    (`$(cat)`, or a listing of the tree)."""
    replace = [v for name, v, _ in parsed.options if name in run.input_args and v is not None]
    replaced = next((name for name, v, _ in parsed.options if name in run.input_args), None)
    if replaced is not None:
        marker = replace[0] if replace else "{}"
        line = data if whole else next((line.strip() for line in data.splitlines() if line.strip()), "")
        return [w.replace(marker, line) for w in words], flags
    extra = [data] if whole else _xargs_items(parsed, data)[:64]
    if not words:  # no command: xargs runs echo
        words, flags = ["echo"], [False]
    return [*words, *extra], [*flags, *([False] * len(extra))]


_XARGS_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "a": "\a", "b": "\b", "f": "\f"}


def _xargs_items(parsed: Parsed, data: str) -> list[str]:
    """(merge49) The arguments xargs makes of ``data``: split at blanks, or with `-0` at NULs and with `-d C` at C
    only (`printf 'rm -rf ~\\n' | xargs -d '\\n' sh -c` hands sh the one word `rm -rf ~`, which it runs: read as
    blanks split, it was `sh -c rm -rf ~`, a bare rm). A delimiter not read here keeps the data one word."""
    delimiter: str | None = None
    for name, value, _ in parsed.options:
        if name == "0":
            delimiter = "\0"
        elif name == "d":
            delimiter = _xargs_delimiter(value or "")
    if delimiter is None:
        return _xargs_words(data)
    if not delimiter:
        return [data]
    items = data.split(delimiter)
    if items and not items[-1]:
        items.pop()  # (the input's last delimiter ends the last item)
    return items


def _xargs_words(data: str) -> list[str]:
    """(fix49) xargs's default reading: items split at blanks and newlines, a blank kept by single or double quotes
    or a backslash (`echo 'rm\\ -rf\\ ~' | xargs sh -c` hands sh the one word `rm -rf ~`). A quote left open (xargs
    refuses the input) keeps the data one word."""
    if "'" not in data and '"' not in data and "\\" not in data:
        return data.split()
    items: list[str] = []
    word: list[str] = []
    quote = ""
    held = False  # a quoted part or an escape: the item stands even when empty
    i = 0
    while i < len(data):
        c = data[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\n":
                return [data]
            else:
                word.append(c)
        elif c in "'\"":
            quote, held = c, True
        elif c == "\\" and i + 1 < len(data):
            i += 1
            word.append(data[i])
            held = True
        elif c in " \t\n":
            if word or held:
                items.append("".join(word))
                word, held = [], False
        else:
            word.append(c)
        i += 1
    if quote:
        return [data]
    if word or held:
        items.append("".join(word))
    return items


def _xargs_delimiter(value: str) -> str:
    """xargs's `-d` value as the character it splits at (a C escape, `\\NNN` octal, `\\xHH`); "" when not read."""
    if len(value) == 1:
        return value
    if value[:1] != "\\":
        return ""
    rest = value[1:]
    if rest in _XARGS_ESCAPES:
        return _XARGS_ESCAPES[rest]
    try:
        if rest[:1] in ("x", "X") and len(rest) > 1:
            return chr(int(rest[1:], 16))
        if rest.isdigit():
            return chr(int(rest, 8))
    except ValueError:
        return ""
    return ""


# npm, pnpm and yarn run a package.json script with the project's node_modules/.bin first on PATH (the
# system's folders after it: what the analyzer looks a command name up in, see shell._on_path)
_NPM_BIN = "node_modules/.bin"
_NPM_BIN_PATH = f"PATH={_NPM_BIN}:/usr/local/bin:/usr/bin:/bin\n"
_ANY_NPM_BIN = f"**/{_NPM_BIN}"  # (adv40b) every package's below the line's folder


def _dereferences(program: Program, present: frozenset[str]) -> bool:
    """(xf49) Whether one of the ``present`` options is the program's `--dereference` (tar's -h, cpio's -L; unpack50:
    pax's -L): it packs what a link points to, not the link. (unpack50) A program whose grammar names a `symlinks`
    option (zip's -y: store a link as a link) dereferences unless it is given."""
    grammar = program.grammar
    if "symlinks" in grammar.long:
        return not any("symlinks" in grammar.names(name) for name in present)
    return any("dereference" in grammar.names(name) for name in present)


def _tree_listed(listing: tuple[str, str | None] | None, command: Command) -> bool:
    """(xf49) Whether ``command``'s input is a listing of the working tree made where it runs (shell._listing_of)."""
    return listing is not None and listing[1] == command.cwd


def _names_piped(run: Run, command: Command) -> bool:
    """A names-from-input run (`as: argv` with `prepend`, from stdin) whose input is piped in but
    not known here (`ls ~/.ssh/* | cpio -o`), or opened from a file (`zip -m x.zip -@ < list`, adv45)."""
    return run.kind == "argv" and run.prepend is not None and not command.stdin and _input_unseen(command)


def _input_unseen(command: Command) -> bool:
    """The command's input is given (a pipe, a `<` redirection) but its text is not known here."""
    return bool(command.fed_by) or any(op[:1] == "<" for op, _ in command.redirects)


def program_stops(command: Command) -> bool:
    return command.program is None or command.program.grammar.stop_at_operand


# cmd.exe reads a switch glued to a built-in's name (`rd/s/q X`, `del/f/q X`) as `rd /s/q X` (gen32)
_GLUED_SWITCH = re.compile(r"(?i)(^\s*|[&|(]\s*|@)(rd|rmdir|del|erase|copy|move|xcopy|robocopy|md|mkdir|type|dir)(?=/)")


def windows_text(text: str) -> str:
    """cmd.exe and PowerShell text for the POSIX lexer: backslashes are path separators, not
    escapes, and PowerShell's escape character is the backtick."""
    text = re.sub(r"`(.)", r"\1", text)
    if "/" in text:
        text = _GLUED_SWITCH.sub(r"\1\2 ", text)
    return text.replace("\\", "\\\\")


def _as(run: Run, kind: str) -> Run:
    return replace(run, kind=kind)


# A word holding more than one word or an operator: text a program may parse as commands (see _words_run)
_CODE_TEXT: Final = re.compile(r"[\s;&|<>()`$]")
# Runs whose text a value spliced in by the outer shell is parsed as code in (see Follower._spliced)
_SPLICED_KINDS: Final = frozenset({"shell", "code", "make"})
# code kinds that are a configuration given as text, not a program (see Follower._payload)
_NOT_PROGRAMS: Final = frozenset({"curlrc", "wgetrc", *CONFIG_LANGUAGES})
# an inner language's string literal ('…', "…", with backslash escapes), and a value the outer shell left unknown
_INNER_STRING: Final = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.S)
_UNKNOWN_VALUE: Final = re.compile(r"\$(?:\{?[!#]?[A-Za-z_][A-Za-z0-9_]*|\{?[0-9@*])|\$\(|`")


def _unread_program(run: Run, words: list[str], flags: list[bool], at: Sequence[int] | None = None) -> bool:
    """Whether an interpreter's inline program ``run`` reads from ``words`` (those ``at``, or all) is completed by
    a value not known here in its code (see _unread_code); ``flags``: whether each word has such a value."""
    if run.kind != "code" or run.language in _NOT_PROGRAMS:
        return False
    indexes = range(len(words)) if at is None else at
    return any(i < len(words) and i < len(flags) and flags[i] and _unread_code(words[i]) for i in indexes)


def _unread_code(word: str) -> bool:
    """Whether ``word``, an inline program's text holding a value the outer shell gives it, holds that value
    outside the program's string literals: its code is not known here (`$x` as the whole program)."""
    if "$" not in word and "`" not in word:
        return False
    return _UNKNOWN_VALUE.search(_INNER_STRING.sub("", word)) is not None


def _positional_words(run: Run, parsed: Parsed, argv: list[str], dynamic: list[bool]) -> tuple[list[str], list[bool]]:
    """The words a shell's payload gets as $0, $1…: `sh -c TEXT NAME A B` → NAME, A, B;
    `sh -s A B` reading stdin → sh, A, B ($0 is the shell's name when no NAME is given)."""
    at = list(parsed.operand_at)
    if parsed.rest is not None:
        at += range(parsed.rest, len(argv))
    if run.source == "operand":
        at = at[run.index + 1 :]
    elif run.source == "option" and run.positional == "argv":  # `fish -c TEXT A B`: the operands
        pass
    else:
        at = [0, *at]
    if run.positional == "argv" and (not at or at[0] != 0):
        at = [0, *at]  # csh and fish: the operands are $1…, $0 is the shell's name
    if not at:
        at = [0]
    return [argv[i] for i in at], [dynamic[i] for i in at]


# csh's and fish's `$argv` (`$argv[2]`, `${argv[2]}`, `$argv[1-2]`, `$argv[1..2]`, `$#argv`):
# the positional parameters, spelled for sh (see _positional_words, positional: argv).
_ARGV_ITEM = re.compile(r"\$\{?argv\[(\d+)\]\}?")
_ARGV_ANY = re.compile(r"\$\{?argv(?:\[[^\]]*\])?\}?")


def sh_argv(text: str) -> str:
    """A csh or fish payload's `$argv` references as sh's positional parameters (the rest of the
    text is read as sh reads it, as for any shell the table names)."""
    if "argv" not in text:
        return text
    text = text.replace("$#argv", "$#")
    text = _ARGV_ITEM.sub(lambda m: "${" + m.group(1) + "}", text)
    return _ARGV_ANY.sub("$@", text)


# (unseen55) fish's builtins that run code in the same fish (see Follower.fish_dialect)
_FISH_SAME_SHELL: Final = frozenset({"eval", "source", ".", "trap"})  # (rev55b) trap's text runs in fish too
# (stop 57, adv57) csh's and fish's syntax the analyzer (which reads sh's) does not follow (evaluate.UNREAD_SHELL):
# csh's assignments (`set f=~/notes.txt; rm -f $f`), its modifiers (`$f:r`, `$HOME:h`), subscripts (`$f[2]`), the
# folder stack (`=0/..`) and `chdir`; fish's functions (`function f; rm -f $argv; end; f ~/notes.txt`)
_CSH_NAMES: Final = frozenset({"csh", "tcsh"})
_CSH_UNREAD: Final = re.compile(
    r"(?:^|[\s;&|({])(?:set|setenv|unsetenv|@|chdir|pushd|popd)(?=[\s;&|)}]|$)|\$\{?\w+\}?(?::[a-zA-Z&]|\[)|(?:^|\s)=[0-9-]"
)
_FISH_UNREAD: Final = re.compile(r"(?:^|[\s;&|(])function(?=\s)")
UNREAD_SHELL_MARK: Final = "$unread_shell:"  # among the unread: evaluate.UNREAD_SHELL


_ALIAS_GROUP: Final = "(?P<alias>"  # a run's match naming an alias (see Follower._given_alias)


# (rows43) configuration languages read from the disk when the line or the session did not write the file
# (its value: the folders of the user's and the system's own, not read)
_DISK_CONFIGS: Final = {"ssh_config": ("~/.ssh/", "/etc/ssh/")}
_CONFIG_TEXTS: dict[str, tuple[tuple[int, int, int], Any]] = {}


def _config_text(path: str) -> str | None:
    """A configuration file's text (kept until its size, time or inode changes); None: no such file."""
    text: str | None = stamped(path, _CONFIG_TEXTS, "", partial(_capped_text, path))
    return text


def _capped_text(path: str) -> str:
    if os.path.getsize(path) > _MAX_CONFIG_BYTES:
        raise Unknown(path)
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        return handle.read(_MAX_CONFIG_BYTES)


_MAX_CONFIG_BYTES: Final = 1 << 20


_HG_REPOSITORY: Final = frozenset({"repository", "R"})


def _option_variables(program: Program, parsed: Parsed, local: dict[str, str]) -> dict[str, str]:
    """The line's variables with those the command's options stand for: a run `{env: [GIT_DIR], as: options,
    prepend: "--git-dir="}` says the variable is read as that option, so `git --git-dir=D` is GIT_DIR=D (adv42b:
    `git --git-dir=/elsewhere/.git y ~` ran another repository's alias unread)."""
    if not parsed.options:
        return local
    given: dict[str, str] | None = None
    for run in program.runs:
        prepend = run.prepend
        if run.kind != "options" or run.source != "env" or not prepend or not prepend.startswith("--"):
            continue
        option = prepend[2:].removesuffix("=")
        for written, value, _ in parsed.options:
            if written == option and value is not None:
                if given is None:
                    given = dict(local)
                for variable in run.names:
                    given[variable] = value
    return local if given is None else given


def _declares_flag(program: Program, option: str, levels: int) -> bool:
    """Whether ``program`` or one of its verbs (``levels`` deep) reads the long ``option`` without a value."""
    if program.grammar.long.get(option) == NONE:
        return True
    return levels > 0 and any(_declares_flag(verb, option, levels - 1) for verb in program.subcommands.values())


def _home_expanded(path: str) -> str:
    if path == "~" or path.startswith("~/"):
        return os.environ.get("HOME", "/") + path[1:]
    return path


# (fp44) a word a shell passes as written: no quote, expansion, glob, space or other shell syntax
_PLAIN_WORD: Final = re.compile(r"[\w./:@,+=%^-]*\Z")


def _verb_at(parsed: Parsed) -> int | None:
    """Where the verb is in a command read by its global options' grammar (its first operand)."""
    return _operand_index(parsed, 0)


def _operand_index(parsed: Parsed, index: int) -> int | None:
    """Where operand ``index`` of Parsed.all_operands is in the argv (those from `rest` on follow the others)."""
    if index < len(parsed.operand_at):
        return parsed.operand_at[index]
    return None if parsed.rest is None else parsed.rest + index - len(parsed.operand_at)


def _payloads(run: Run, values: list[str]) -> list[str | None]:
    """Each value's payload (matched_payload); with a `match` that names its payload, one payload per match
    in the value (lftp's `-e 'put a; put KEY'`: every upload, adv32; fresh39a: every one of the program's
    calls, not the first alone: `octave --eval 'system("true"); system("rm -rf ~")'`, `rpm --eval '%(true)
    %(CMD)'`, `tmux display '#(true)#(CMD)'`)."""
    if run.match is None or not run.match.payloads:
        return [matched_payload(run, value) for value in values]
    out: list[str | None] = []
    for value in values:
        for found in run.match.finditer(value):
            payload = next((found.group(g) for g in run.match.payloads if found.group(g)), None)
            if payload:
                out.append(payload if run.output is None else run.output.replace("{}", payload))
    return out


def renamed(run: Run, parsed: Parsed, values: list[str], payloads: list[str | None]) -> list[str | None]:
    """(xfail41) The files an operands run writes whose names the program computes from an option's value (see
    Run.strip, Run.append, Run.into): `gunzip -S .bak ~/.bashrc.bak` writes ~/.bashrc, `gzip -S rc ~/.bash`
    writes ~/.bashrc, `unzstd --output-dir-flat ~ .bashrc.zst` writes ~/.bashrc."""
    # an `append` run names nothing but the operands with the suffix (gzip compressing x writes x.gz)
    names = [] if run.append else [p for p in payloads if p]
    for name, value, _ in parsed.options:
        if not value:
            continue
        if name in run.strip:
            names += [v[: -len(value)] for v in values if v.endswith(value) and len(v) > len(value)]
        if name in run.append:
            names += [v + value for v in values if v and v != "-"]
    folders = [v for name, v, _ in parsed.options if name in run.into and v]
    if folders:
        # its base name in the folder (--output-dir-flat), and its path below it (--output-dir-mirror)
        names += [
            f"{folder.rstrip('/') or '/'}/{part}"
            for folder in folders
            for written in names
            for part in dict.fromkeys((written.rpartition("/")[2], written.lstrip("/")))
            if part
        ]
    return list(dict.fromkeys(names))


# The `*` entry's option runs whose name pattern takes each option name met (follow_unknown reads every option word of
# every command: one dict lookup a word, not a regex per run), by the runs' identity (kept alive with them).
_OPTION_RUNS: dict[int, tuple[tuple[Run, ...], dict[str, tuple[Run, ...]]]] = {}
_MAX_OPTION_NAMES = 4096  # names kept per table; a caller's every new name must not grow it without end


def _option_runs(runs: tuple[Run, ...]) -> dict[str, tuple[Run, ...]]:
    """The option name -> runs memo of ``runs`` (see _runs_naming)."""
    found = _OPTION_RUNS.get(id(runs))
    if found is None or found[0] is not runs:
        if len(_OPTION_RUNS) >= 64:
            _OPTION_RUNS.clear()
        found = _OPTION_RUNS[id(runs)] = (runs, {})
    return found[1]


def _runs_naming(runs: tuple[Run, ...], named: dict[str, tuple[Run, ...]], name: str) -> tuple[Run, ...]:
    """Those of ``runs`` whose `options:` pattern takes the option name ``name`` (remembered in ``named``)."""
    taking = tuple(run for run in runs if run.pattern is not None and run.pattern.fullmatch(name))
    if len(named) >= _MAX_OPTION_NAMES:
        named.clear()
    named[name] = taking
    return taking


def _value_payload(value: Extractor, text: str) -> str | None:
    """(adv42) The payload a `variable` run's `value` regex finds in the variable's value ``text`` (its `payload`
    group, or the whole value); None: no match."""
    found = value.search(text)
    if found is None:
        return None
    if value.payloads:
        return next((found.group(g) for g in value.payloads if found.group(g)), None)
    return text


def matched_payload(run: Run, value: str) -> str | None:
    """The payload a run finds in ``value`` (its `match` group, or the whole value; in its `output`
    name when it has one); None: no match."""
    if run.match is None:
        return value if run.output is None else run.output.replace("{}", value)
    found = run.match.search(value)
    if found is None:
        return None
    if run.match.payloads:
        payload: str | None = next((found.group(g) for g in run.match.payloads if found.group(g)), None)
        if payload and run.output is not None:
            return run.output.replace("{}", payload)
        return payload or None
    return value if run.output is None else run.output.replace("{}", value)


def _markers_apart(
    argv: list[str], dynamic: list[bool], markers: frozenset[str], grammar: Grammar, parsed: Parsed
) -> tuple[list[str], list[bool]]:
    """``argv`` with each marker option the program's parse found spelled inside a word made words of its own: a
    one-letter marker in a cluster of flags (`-Hx rm`, `genie -ic CMD`, `ksu u -qe CMD`) is `-H -x rm`, its attached
    value a word after it (`-xrm`; clap's `-x=rm` with Grammar.short_equals), a long one with its value (`--exec=rm`)
    or abbreviated (`--exe rm`) the marker as the run names it. (rev54: clap's spellings; stop 55: every grammar,
    through its parse, so that a letter inside another option's value is never read as the marker.)"""
    split: dict[int, list[str]] = {}
    for name, _, at in parsed.options:
        if at <= 0 or at >= len(argv) or at in split or argv[at] in markers:
            continue
        marker = next((m for n in grammar.names(name) if (m := ("-" if len(n) == 1 else "--") + n) in markers), None)
        word = argv[at]
        if marker is None or word[:1] != "-":
            continue
        if len(marker) > 2 or word[:2] == "--":
            _, equals, value = word.partition("=")
            split[at] = [marker, value] if equals else [marker]
            continue
        k = word.find(marker[1], 1)
        if k < 0:
            continue
        rest = word[k + 1 :]
        if grammar.short_equals:
            rest = rest.removeprefix("=")
        split[at] = [*([word[:k]] if k > 1 else []), marker, *([rest] if rest else [])]
    if not split:
        return argv, dynamic
    out: list[str] = []
    flags: list[bool] = []
    for i, (word, varies) in enumerate(zip(argv, dynamic, strict=False)):
        pieces = split.get(i, [word])
        out += pieces
        flags += [varies] * len(pieces)
    return out, flags


def _marked(argv: Sequence[str], starts: frozenset[str], ends: frozenset[str]) -> list[tuple[int, int]]:
    """Spans of words between a start word (find's -exec) and an end word (`;`, `+`)."""
    spans = []
    i = 1
    while i < len(argv):
        if argv[i] in starts:
            end = i + 1
            while end < len(argv) and argv[end] not in ends:
                end += 1
            if end > i + 1:
                spans.append((i + 1, end))
            i = end
        i += 1
    return spans


_MAX_ARGUMENTS = 64  # arguments judged per command (each one is a command of its own)


def _arguments(argv: Sequence[str], markers: frozenset[str], ends: frozenset[str]) -> list[str]:
    """The words after each marker word, up to the next marker or end word (parallel's `::: A B`)."""
    out: list[str] = []
    taking = False
    for word in argv[1:]:
        if word in markers:
            taking = True
        elif word in ends:
            taking = False
        elif taking:
            out.append(word)
            if len(out) >= _MAX_ARGUMENTS:
                break
    return out


def _completed(run: Run, words: list[str], argument: str, quoted: bool = True) -> list[str]:
    """The command's words with ``argument`` put in: where ``run.replace`` matches, or at the end.
    The argument is one word of the command (quoted) when the command is a shell string -- unless
    ``quoted`` is False: a word standing for what only the run knows (`$(cat)`, a listing's glob)."""
    value = shell_word(argument) if run.kind == "shell" and quoted else argument
    if run.replace is not None:
        replaced = [run.replace.sub(value, w) for w in words]
        if replaced != words:
            return replaced
    return [*words, value]


_FIND_NAME_TESTS: Final = frozenset({"-name", "-iname"})


# a folder in the working directory (`.`, `src/`; not `..`, `~`, `/x`, `$D`)
_INSIDE: Final = re.compile(r"^(?!\.\.(?:/|$))(?!.*/\.\.(?:/|$))[\w.][\w./-]*$")


def _found_name(words: Sequence[str]) -> str | None:
    """The name every file find acts on bears, when its expression before the action is a plain `and` of
    tests with one `-name PATTERN` (`find . -name '*.pyc' -exec rm {} +`: only .pyc files, adv33);
    None for any alternative or negation, or a pattern any name matches. Read for a starting point in
    the working directory only: one above it keeps standing for everything under it (`find ~ -name
    '.*'` reaches every dotfile of the home)."""
    names = [words[i + 1] for i in range(len(words) - 1) if words[i] in _FIND_NAME_TESTS]
    if len(names) != 1 or "/" in names[0] or not names[0].strip("*?") or not FIND_EITHER.isdisjoint(words):
        return None
    return names[0]


def _expression_roots(operands: Sequence[str]) -> list[str]:
    """find's starting points: the operands before its expression."""
    roots = []
    for word in operands:
        if word.startswith(_EXPRESSION_START) or word in (")", ","):
            break
        roots.append(word)
    return roots or ["."]


def undeclared_options(command: Command, program: Program) -> frozenset[int]:
    """The indices of the words ``program`` (and the subcommands its words name) reads as options
    its grammar does not declare: an unknown long name (or an ambiguous prefix), an unknown letter."""
    argv = command.argv
    reading = command.reading
    if reading is None:
        reading = command.reading = parse_argv(program.grammar, argv)
    found: set[int] = set()
    for level, parsed in subcommand_levels(program, reading, argv):
        grammar = level.grammar
        for _, _, at in parsed.options:
            word = argv[at]
            if at in found or word[:1] != "-":
                continue
            body = word[2:] if word.startswith("--") else word[1:]
            name = body.partition("=")[0]
            if word.startswith("--") or (grammar.long_only and len(name) > 1):
                if len(grammar.resolve_long(name)) != 1:
                    found.add(at)
            elif grammar.long_only and len(grammar.resolve_long(name)) == 1:
                continue  # a long-only program's one-letter long option (`sqlite3 -c TEXT`, `duckdb -c TEXT`; adv39)
            elif body and (body[0].lower() if grammar.ignore_case else body[0]) not in grammar.short:
                found.add(at)
    return frozenset(found)


def _verb_operands(program: Program, argv: Sequence[str]) -> list[str]:
    """(disk51) The operands of ``argv`` as the program reads them, less the values the verbs it names take as their
    own options (`npm run --prefix d start` is run, start: d is --prefix's; `pnpm -C d start` is start)."""
    parsed = parse_argv(program.grammar, argv)
    operands = parsed.all_operands(argv)
    for _, at in subcommand_levels(program, parsed, argv)[1:]:
        for _, value, _ in at.options:
            if value is not None and value in operands[1:]:
                operands.pop(operands.index(value, 1))
    return operands


def join_path(cwd: str | None, path: str) -> str:
    if cwd is not None and cwd != "$unknown" and path and not path.startswith(("/", "~")):
        path = posixpath.join(cwd, path)
    return posixpath.normpath(path) if path else path


def _operand_position(parsed: Parsed, argv: list[str], index: int) -> int:
    """Where operand ``index`` is in ``argv`` (counting the words after a program's first operand where its
    options end), -1 when it has no such operand."""
    if index < len(parsed.operand_at):
        return parsed.operand_at[index]
    if parsed.rest is not None:
        at = parsed.rest + index - len(parsed.operand_at)
        return at if at < len(argv) else -1
    return -1
