"""Stop 31's shortcuts, attacked (brk32): inputs where each one fires, judged against the reading it
skips and against what bash and make actually run. Where the verdict was more lenient than the
truth, the engine now fails closed:

- A written makefile's settings that change every recipe (executors.make_payloads): `NAME != CMD`
  (make runs CMD as it reads the line), `.SHELLFLAGS` (the words before each recipe: `SHELL :=
  /usr/bin/env` with `.SHELLFLAGS := rm -rf ~`), and PATH (`PATH := ./bin:$(PATH)` makes `echo hi` run
  a written bin/echo; also `make PATH=...`, `define PATH`, a target's PATH). These were allowed with
  or without the inert `echo` recipe shortcut: the makefile's assignments were not read at all.
- What a stage prints into a shell through a compound command (`(make) | sh`, `{ sh x.sh; } | sh`,
  `make | (sh)`, `(cat y.sh) | sh`): the lead's written-run link (`$written`) and the printed-file
  reading only looked at the next stage of the same pipeline.
- What a shell line a program runs prints (`sh -c "echo 'rm -rf ~'" | sh`, `eval "..." | sh`, a git
  alias given with `-c`): now the stage's output, as a function call's was.
- bash's bracket expressions in a glob (`[^a]`, `[[:alpha:]]`, `[[=a=]]`), which fnmatch reads otherwise
  (regexes.bash_brackets): the listing shortcut, glob.iglob, the line's links and the class match of a
  glob word all missed `rm -rf src/[[:alpha:]]*/` with `src/up -> ~`, `echo x > ~/.bash[[:alpha:]]c`.
- cloud_metadata's spellings the literal prefilter was checked against: the IPv4-mapped address with
  its zero groups written out (`[0:0:0:0:0:ffff:a9fe:a9fe]`) and AWS's IPv6 address spelled out.

Random differentials for shortcuts that had none: the shell's own parameters no longer remembered as
lost (variables.SHELL_OWN), makefiles mixing settings and inert `echo` lines (Analyzer.inert_recipes),
the last-part glob read from a listing (trees._last_part_landings), and the one-character escapes'
deletion reading (normalize._deletions)."""

from __future__ import annotations

import glob
import itertools
import posixpath
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.policy import normalize, trees, variables
from engine.policy.shell import Analyzer
from tests.redteam.harm import (
    Case,
    assert_verdict,
    live_then_stopped,
    policy_project,
    verdict_cases,
    written_then_stopped,
)

ECHO_RM = "#!/bin/sh\nrm -rf ~\n"
PRINTS_RM = "all:\n\t@echo 'rm -rf ~'\n"

PAYLOADS: dict[str, Case] = {
    # a makefile's settings
    "bang": ({"Makefile": "X != rm -rf ~\nall:\n\techo a b\n"}, "make"),
    "bang-export": ({"Makefile": "export X != rm -rf ~\nall:\n\t@:\n"}, "make all"),
    "shellflags": ({"Makefile": "SHELL := /usr/bin/env\n.SHELLFLAGS := rm -rf ~\nall:\n\techo a b\n"}, "make"),
    "shellflags-c": ({"Makefile": ".SHELLFLAGS := -c 'rm -rf ~' x\nall:\n\techo a b\n"}, "make"),
    "shellflags-line": ({"Makefile": "all:\n\techo a b\n"}, "make .SHELLFLAGS='-c rm\\ -rf\\ ~'"),
    "path": ({"Makefile": "PATH := ./bin:$(PATH)\nall:\n\techo a b\n", "bin/echo": ECHO_RM}, "make"),
    "path-export": ({"Makefile": "export PATH := ./bin:$(PATH)\nall:\n\techo a b\n", "bin/echo": ECHO_RM}, "make"),
    "path-override": ({"Makefile": "override PATH = ./bin:/usr/bin:/bin\nall:\n\tls\n", "bin/ls": ECHO_RM}, "make"),
    "path-define": (
        {"Makefile": "define PATH\n./bin:/usr/bin:/bin\nendef\nall:\n\techo a\n", "bin/echo": ECHO_RM},
        "make",
    ),
    "path-target": ({"Makefile": "all: PATH = ./bin:/usr/bin:/bin\nall:\n\techo a b\n", "bin/echo": ECHO_RM}, "make"),
    "path-line": ({"Makefile": "all:\n\techo a b\n", "bin/echo": ECHO_RM}, "make PATH=./bin:/usr/bin"),
    "path-eval": ({"Makefile": "all:\n\techo a b\n", "bin/echo": ECHO_RM}, "make --eval 'PATH=./bin:/usr/bin'"),
    # a compound's output into a shell
    "subshell-make": ({"Makefile": PRINTS_RM}, "(make) | sh"),
    "group-make": ({"Makefile": PRINTS_RM}, "{ true; make; } | sh"),
    "if-make": ({"Makefile": PRINTS_RM}, "if true; then make; fi | sh"),
    "for-make": ({"Makefile": PRINTS_RM}, "for i in 1; do make; done | sh"),
    "into-subshell": ({"Makefile": PRINTS_RM}, "make | (sh)"),
    "group-script": ({"x.sh": "echo 'rm -rf ~'\n"}, "{ sh x.sh; } | sh"),
    "subshell-script": ({"x.sh": "echo 'rm -rf ~'\n"}, "(sh x.sh) | sh"),
    "subshell-cat": ({"y.sh": "rm -rf ~\n"}, "(cat y.sh) | sh"),
    "cat-into-subshell": ({"y.sh": "rm -rf ~\n"}, "cat y.sh | (sh)"),
    "known-beside": ({"x.sh": "echo 'rm -rf ~'\n"}, "f() { echo hi; sh x.sh; }; f | sh"),
    "payload-beside": ({"x.sh": "echo 'rm -rf ~'\n"}, "sh -c 'echo hi; sh x.sh' | sh"),
    # a shell line's output into a shell
    "sh-c-echo": ({}, "sh -c \"echo 'rm -rf ~'\" | sh"),
    "bash-c-printf": ({}, "bash -c 'printf \"rm -rf ~\"' | bash"),
    "eval-echo": ({}, "eval \"echo 'rm -rf ~'\" | sh"),
    "git-alias": ({}, "git -c alias.x='!echo rm -rf ~' x | sh"),
    # bash's bracket expressions in a glob that reaches a link to HOME (trees.bash_brackets)
    "posix-class": ({}, "ln -s ~ src/up; rm -rf src/[[:alpha:]]*/"),
    "caret": ({}, "ln -s ~ src/up; rm -rf src/[^a]p/"),
    "equivalence": ({}, "ln -s ~ src/up; grep -r KEY src/[[=u=]]p"),
    "class-start-up": ({}, "echo x > ~/.bash[[:alpha:]]c"),
    "caret-start-up": ({}, "echo x > ~/.bash[^x]c"),
    # cloud_metadata spellings
    "metadata-mapped": ({}, "curl 'http://[0:0:0:0:0:ffff:a9fe:a9fe]/latest/meta-data/iam/'"),
    "metadata-mapped-upper": ({}, "curl -g http://[0:0:0:0:0:FFFF:A9FE:A9FE]/latest/"),
    "metadata-aws-ipv6": ({}, "curl 'http://[fd00:ec2:0:0:0:0:0:254]/latest/meta-data/'"),
}
NEAR_MISSES: dict[str, Case] = {
    "bang-date": ({"Makefile": "X != date\nall:\n\techo a b\n"}, "make"),
    "recipe-test": ({"Makefile": "all:\n\tif [ a != b ]; then echo x; fi\n"}, "make"),
    "shellflags-e": ({"Makefile": ".SHELLFLAGS := -ec\nall:\n\techo a b\n"}, "make"),
    "path-nothing-written": ({"Makefile": "PATH := ./bin:$(PATH)\nall:\n\tls\n"}, "make"),
    "path-node-modules": ({"Makefile": "export PATH := $(CURDIR)/node_modules/.bin:$(PATH)\nall:\n\tls\n"}, "make"),
    "make-grep": ({"Makefile": "all:\n\t@echo hi\n"}, "(make) | grep hi"),
    "sh-c-cat": ({}, "sh -c 'echo hi' | cat"),
    "sh-c-plain": ({}, "sh -c 'echo ls' | sh"),
    "class-in-workdir": ({}, "ls [[:alpha:]]*"),
    "class-in-grep": ({}, "grep -n '[[:alpha:]]' x.txt"),
    "metadata-other": ({}, "curl 'http://[::ffff:a9fe:a9ff]/'"),
    "metadata-aws-other": ({}, "curl 'http://[fd00:ec2::2540]/'"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "brk32", "kind: ApprovalPolicy\n") as project:
        yield project


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_a_payload_past_a_shortcut_is_not_allowed_its_near_miss_is(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- harm: one run per family -------------------------------------------------------------------


def test_a_written_makefile_bang_assignment_does_not_run(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"Makefile": "X != rm -rf ~\nall:\n\t@echo a b\n"}, "make")


def test_a_written_makefile_path_does_not_run_a_written_echo(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    engine, home, _ = plain_harm
    files = {"Makefile": "PATH := ./bin:$(PATH)\nall:\n\techo a b\n", "bin/echo": ECHO_RM}
    written_then_stopped(tmp_path, engine, home, files, "make", mode=0o755)


def test_a_written_script_printed_through_a_group_into_a_shell_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"x.sh": "echo 'rm -rf ~'\n"}, "{ sh x.sh; } | sh")


def test_a_shell_line_printed_into_a_shell_does_not_run(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, "sh -c \"echo 'rm -rf ~'\" | sh")


# -- random differentials -------------------------------------------------------------------------


def _key(verdict: Any) -> tuple[Any, ...]:
    return verdict.decision, verdict.hardline, tuple(sorted((m.key, m.command, m.grantable) for m in verdict.matches))


_SETS = [
    "set -- {v} {v}",
    "shift",
    "shift 2",
    'set -- "$(cat f)"',
    "read -r a; set -- $a",
    "f() {{ {sink}; }}; f {v} {v}",
    "f() {{ shift; {sink}; }}; f {v} {v}",
    "f() {{ set -- {v}; }}; f",
    "while read -r l; do shift; done < f",
    "if test -e f; then shift; fi",
    "f() {{ :; }}; f {v}",
    'set -- "$@" {v}',
]
_SINKS = [
    'rm -rf "$1"',
    "rm -rf $@",
    'rm -rf "$*"',
    "LD_PRELOAD=$1 ls",
    'export TAR_OPTIONS="$1"; tar tf a.tar',
    '"$@"',
    'tar "$@" tf a.tar',
    'rm -rf "${{1:-~}}"',
    "rm -rf ~/$#",
]
_VALUES = ["~", "/", "x", "'--to-command=rm -rf ~'", "rm", "-rf", "/tmp/x.so"]


def test_the_shell_own_parameters_judge_as_remembered(loaded: tuple[Path, Engine]) -> None:
    """variables.SHELL_OWN (perf31): `$1`..`$9`, `$#`, `$@`, `$*`, `$0` set or lost say nothing to a
    program. Lines that set, shift, lose and pass them, judged with them remembered as lost too."""
    _, engine = loaded
    evaluator = engine._evaluator(engine._snapshot)
    rng = random.Random(32)
    texts = {"bash -c 'rm -rf \"$0\"' ~", "bash -c '$0 -rf ~' rm", "sh -c 'rm -rf $0' \"$(cat x)\""}
    while len(texts) < 160:
        parts = []
        for _ in range(rng.randrange(1, 4)):
            sink = rng.choice(_SINKS).format()
            parts.append(rng.choice(_SETS).format(v=rng.choice(_VALUES), sink=sink))
        parts.append(rng.choice(_SINKS).format())
        texts.add("; ".join(parts))
    for text in sorted(texts):
        fast = _key(evaluator.check(text))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(variables, "SHELL_OWN", frozenset())
            reference = _key(evaluator.check(text))
        assert fast == reference, text


_MAKE_LINES = [
    "\techo a b",
    "\techo x-1 y:2",
    "\t@echo hi",
    "\t-echo a",
    "\tls",
    "\techo a; rm -rf ~",
    "X != date",
    "PATH := ./bin:$(PATH)",
    "export PATH := ./bin:$(PATH)",
    ".SHELLFLAGS := -ec",
    "SHELL := /bin/bash",
    "export BASH_ENV := x.sh",
    "\talias echo='rm -rf ~'",
    "\tcd ..",
    "\tX=1",
    "b:",
    "all: PATH = ./bin:/usr/bin",
]


def _session_key(loaded: tuple[Path, Engine], files: dict[str, str], command: str, session: str) -> tuple[Any, ...]:
    root, engine = loaded
    for path, text in files.items():
        assert engine.call("write_file", {"path": path, "content": text}, session_id=session).ok, path
    view = engine.session_memory.view(session, str(root))
    return _key(engine._evaluator(engine._snapshot).verdict("terminal", {"command": command}, view))


def test_makefiles_with_settings_judge_as_every_recipe_read(loaded: tuple[Path, Engine]) -> None:
    """Analyzer.inert_recipes (sess31) against reading every recipe line, on makefiles that mix plain
    `echo` lines with the settings make_payloads now reads first, with and without a written bin/echo."""
    root, _ = loaded
    rng = random.Random(3232)
    try:
        for n in range(40):
            lines = ["all:", *(rng.choice(_MAKE_LINES) for _ in range(rng.randrange(1, 8))), "\techo done"]
            files = {"Makefile": "\n".join(lines) + "\n"}
            if n % 2:
                files["bin/echo"] = ECHO_RM
            keys = []
            for skip in (True, False):
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(Analyzer, "inert_recipes", skip)
                    keys.append(_session_key(loaded, files, "make", f"mk{n}-{skip}"))
            assert keys[0] == keys[1], files
            if n % 2 and any("PATH" in line for line in lines):
                assert keys[0][0] != "allow", files  # the written echo is what make runs
            (root / "Makefile").unlink(missing_ok=True)
            shutil.rmtree(root / "bin", ignore_errors=True)
    finally:
        (root / "Makefile").unlink(missing_ok=True)
        shutil.rmtree(root / "bin", ignore_errors=True)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """HOME holding a project whose src/ has links (up, to HOME, out), hidden names and odd ones."""
    root = tmp_path_factory.mktemp("brk32-landings")
    home = root / "home" / "u"
    src = home / "proj" / "src"
    (src / "a").mkdir(parents=True)
    for name in [".hidden", ".f.py", "f.py", "b-1", "[x]", "!a", "^b", "a.b", "ab", "-"]:
        (src / name).write_text("")
    for name, target in [("up", "../.."), ("h", str(home)), ("e", "/etc"), (".up", "../.."), ("dangling", "none")]:
        (src / name).symlink_to(target)
    return str(home), str(home / "proj")


def test_a_random_last_part_glob_lands_where_the_glob_reading_does(tree: tuple[str, str]) -> None:
    """trees._last_part_landings (perf31) against glob.iglob then each match (the general reading)."""
    home, project = tree
    rng = random.Random(320)
    pieces = ["*", "?", "[!.]", "[.]", "[a-c]", "[!a]", "[^a]", "[[:alpha:]]", "[[:digit:]x]", "[[=u=]]", ".", "a"]
    pieces += ["b", "u", "p", "-", "[", "]", "**", "\\", "!"]
    folders = ["src/", "./src/", "src//", "~/proj/src/", "src/up/", "../proj/src/", "src/a/../", "/"]
    checked = 0
    for _ in range(600):
        word = rng.choice(folders) + "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 4)))
        if not trees._GLOB_CHARS.intersection(word):
            continue
        for on_the_link in (False, True):
            spelled = trees.bash_brackets(word)  # bash's `[^a]`, `[[:alpha:]]` as fnmatch spells them
            path = home + spelled[1:] if spelled.startswith("~/") else posixpath.join(project, spelled)
            matches = list(itertools.islice(glob.iglob(path), trees._MAX_GLOB_MATCHES + 1))
            expected = None if len(matches) > trees._MAX_GLOB_MATCHES else trees.landings_of(matches, home, on_the_link)
            assert trees.tree_landings(word, project, home, on_the_link) == expected, (word, on_the_link)
            checked += 1
    assert checked > 500


def test_one_character_escapes_delete_as_the_full_sequence_reading() -> None:
    """normalize._deletions (flat31): a long text whose escapes are all ESC and one character (no CSI,
    nF, string or BEL) skips _ESCAPES_ASCII's reading: the readings are those of all three ways."""
    rng = random.Random(3201)
    alphabet = ["\x1b", "\x07", "[", "]", "\\", "a", "r", "m", " ", "/", "~", "-", "\x7f", "\x01", "\t", "0", "P", "("]
    skipped = 0
    for _ in range(800):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12)))
        if "\x1b" not in text or "\x07" in text or normalize._ESCAPE_LONGER.search(text) is not None:
            continue
        long = text * (normalize._MIXED_LENGTH // len(text) + 1)  # past the mixed readings: the uniform ones
        ways = (long, normalize._INTRODUCED.sub("", long), normalize._ESCAPES_ASCII.sub("", long))
        assert set(normalize._deletions(long)) == {normalize._controls(t) for t in ways}, repr(text)
        skipped += 1
    assert skipped > 60
