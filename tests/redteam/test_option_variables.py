"""Variables that make a program run a command, however the line sets them (rt10's option
variables, stop 22).

A program's option variable is split as the program splits it (GNU tar's wordsplit for
TAR_OPTIONS: `\\ ` is a blank inside a word; GNU make expands MAKEFLAGS as make text, so a
`$(shell …)` in it runs, then splits it at blanks a backslash does not escape). Any target
triple's cargo runner is one (`CARGO_TARGET_*_RUNNER`), and so are npm's settings in any case.
A variable the line gives a value known only at run time (`read X`, `printf -v X`, `X=$(cmd)`)
is not taken for unset: it holds any value the line gave it before, and one nobody can read
here (an approval). PS4 is expanded before every command bash traces, and any later `set -x`
turns tracing on: a PS4 the line sets is read as run.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.executors import make_flags, wordsplit
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    # tar's own word splitting: backslash-blank, quotes of either kind
    "TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' tar xf a.tar",
    "export TAR_OPTIONS=--checkpoint=1\\ --checkpoint-action=exec='rm\\ -rf\\ ~'; tar xf a.tar",
    "TAR_OPTIONS=\"'--to-command=rm -rf ~'\" tar xf a.tar",
    "TAR_OPTIONS='--to-command=rm\\x20-rf\\x20~' tar xf a.tar",
    # however the variable reaches tar
    "echo 'export TAR_OPTIONS=\"--to-command=rm\\ -rf\\ ~\"' > e.sh; . ./e.sh; tar xf a.tar",
    "f() { export TAR_OPTIONS='\"--to-command=rm -rf ~\"'; }; f; tar xf a.tar",
    "env TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' tar xf a.tar",
    "declare -x TAR_OPTIONS='--to-command=rm\\ -rf\\ ~'; tar xf a.tar",
    "typeset -x TAR_OPTIONS='--to-command=rm\\ -rf\\ ~'; tar xf a.tar",
    "set -a; TAR_OPTIONS='--to-command=rm\\ -rf\\ ~'; tar xf a.tar",
    "TAR_OPTIONS=-v; TAR_OPTIONS+=' --to-command=rm\\ -rf\\ ~'; export TAR_OPTIONS; tar xf a.tar",
    "TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' command tar xf a.tar",
    "TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' timeout 9 nice tar xf a.tar",
    "TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' sudo -E tar xf a.tar",
    "env -S \"TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' tar xf a.tar\"",
    # a value dropped later (a branch, a read) may still be the one tar sees
    "TAR_OPTIONS='\"--to-command=rm -rf ~\"'; true || unset TAR_OPTIONS; tar xf a.tar",
    "TAR_OPTIONS='\"--to-command=rm -rf ~\"'; [ -f x ] && read TAR_OPTIONS; tar xf a.tar",
    # GNU make: MAKEFLAGS is make text, then options
    "MAKEFLAGS='--eval=$(shell rm -rf ~)' make",
    "GNUMAKEFLAGS='--eval=$(shell rm -rf ~)' make",
    "export MAKEFLAGS; MAKEFLAGS='--eval=$(shell rm -rf ~)'; make",
    "MAKEFLAGS='$(shell rm -rf ~)' make",
    "MAKEFLAGS='k $(shell rm -rf ~)' make",
    "MAKEFLAGS='--eval=$$(shell\\ rm\\ -rf\\ ~)' make",
    "CC='rm -rf ~ #' make x.o",
    "MAKEFLAGS='--eval=all:;rm\\ -rf\\ ~' make",
    "echo 'all:; rm -rf ~' > Makefile; make",
    # PS4 under xtrace, turned on before or after
    "set -x; PS4='$(rm -rf ~)'; true",
    "PS4='$(rm -rf ~)'; set -x; true",
    "set -o xtrace; x=1; PS4='$(rm -rf ~)'; x=2",
    "PS4='`rm -rf ~`'; shopt -os xtrace; :",
    "PS4='${x:=$(rm -rf ~)}'; set -x; :",
    "set -x; PS4='$(rm -rf ~)' cd .",
    # programs other tools run from a variable
    "export npm_config_script_shell='sh -c \"rm -rf ~\" #'; npm run build",
    "NPM_CONFIG_SCRIPT_SHELL='sh -c \"rm -rf ~\" #' npm test",
    "export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER='rm -rf ~ #'; cargo run",
    "CARGO_TARGET_AARCH64_APPLE_DARWIN_RUNNER='rm -rf ~ #' cargo test",
    "RUSTC_WRAPPER='rm -rf ~ #' cargo build",
    "CARGO_BUILD_RUSTC_WRAPPER='rm -rf ~ #' cargo build",
    "GOFLAGS=\"-toolexec='rm -rf ~'\" go build .",
    "EDITOR='rm -rf ~ #' crontab -e",
    "VISUAL='rm -rf ~ #' git commit",
    "PAGER='rm -rf ~ #' psql",
    "MANPAGER='rm -rf ~ #' man ls",
    "LESSOPEN='|rm -rf ~ %s' git log",
]

# The value is known only at run time, or names a script nobody can read here.
ASK = [
    # (hardline once read / printf -v values are read: the analyzer's variable writers)
    "printf -v TAR_OPTIONS %s '\"--to-command=rm -rf ~\"'; export TAR_OPTIONS; tar xf a.tar",
    "export TAR_OPTIONS; read -r TAR_OPTIONS <<< '\"--to-command=rm -rf ~\"'; tar xf a.tar",
    "read TAR_OPTIONS; tar xf a.tar",
    'TAR_OPTIONS="$x" tar xf a.tar',
    "TAR_OPTIONS=$(cat opts) tar xf a.tar",
    "mapfile -t MAKEFLAGS < f; make",
    "read MAKEFLAGS; make",
    "read PS4; set -x; true",
    "read LD_PRELOAD; ls",
    "read GIT_EDITOR; git commit",
    "read npm_config_script_shell; npm run build",
    "export npm_config_script_shell=/tmp/x.sh; npm run build",
    "npm_config_node_options='--require /tmp/x.js' npm test",
    "RUSTC_WRAPPER=/tmp/w.sh cargo build",
    "read CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER; cargo run",
    "declare -n r=TAR_OPTIONS; r='--to-command=rm\\ -rf\\ ~'; tar xf a.tar",
    "for TAR_OPTIONS in '--to-command=rm\\ -rf\\ ~'; do :; done; tar xf a.tar",
    "MAKEFILES=/tmp/evil.mk make",
    # (env46) a registry the line names, a loopback one too (was a near miss): what it serves, nobody reads here
    "npm_config_registry=http://localhost:4873 npm install",
]

NEAR_MISSES = [
    "TAR_OPTIONS='--wildcards -v' tar xf a.tar -C build",
    "TAR_OPTIONS=--no-same-owner tar xf a.tar -C build",
    "export TAR_OPTIONS='--to-command=cat'; tar xf a.tar",
    'for f in *.tar; do tar xf "$f" -C build; done',
    'read x; tar xf "$x" -C build',
    'read -r name; echo "$name"',
    "MAKEFLAGS=-j4 make",
    "MAKEFLAGS='-j4 --no-print-directory' make",
    "MAKEFLAGS=k make",
    "make CFLAGS='-O2; x'",
    "declare -n r=x; r=1; echo $x",
    "set -x; make",
    "PS4='+ ${BASH_SOURCE}:${LINENO}: '; set -x; make",
    "PS4='+ $(date +%s) '; set -x; make",
    "RUSTC_WRAPPER=sccache cargo build",
    "CARGO_TARGET_DIR=/tmp/t cargo build",
    "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=clang cargo build",
    "GOFLAGS=-mod=vendor go build ./...",
    "CC=gcc make",
    "CC='ccache gcc' CXX=g++ cmake -B build",
    "CC=clang pip install .",
    "EDITOR=vim crontab -e",
    "VISUAL='code --wait' git commit",
    "PAGER=less git log",
    "GIT_PAGER=cat git log",
    # (env46) npm's own registry: another one (a loopback one too) is a package source the caller names, and asks
    "npm_config_registry=https://registry.npmjs.org/ npm install",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_what_an_option_variable_runs_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", ASK)
def test_an_option_variable_nobody_can_read_is_not_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_option_variables_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


# (payload, what makes it live in the fake working directory)
_ARCHIVE = "echo data > f && tar cf a.tar f && rm f && "
# (make runs a $(shell …) of MAKEFLAGS with the SHELL of its environment: a terminal has one)
_MAKEFILE = "export SHELL=/bin/sh && printf 'all:\\n\\t@true\\n' > Makefile && "
HARM = [
    ("TAR_OPTIONS='--to-command=rm\\ -rf\\ ~' tar xf a.tar", _ARCHIVE),
    ("export TAR_OPTIONS=--checkpoint=1\\ --checkpoint-action=exec='rm\\ -rf\\ ~'; tar xf a.tar", _ARCHIVE),
    ("f() { export TAR_OPTIONS='\"--to-command=rm -rf ~\"'; }; f; tar xf a.tar", _ARCHIVE),
    ("MAKEFLAGS='--eval=$(shell rm -rf ~)' make", _MAKEFILE),
    ("export MAKEFLAGS; MAKEFLAGS='$(shell rm -rf ~)'; make", _MAKEFILE),
    ("CC='rm -rf ~ #' make x.o", "touch x.c && "),
    ("PS4='$(rm -rf ~)'; set -x; true", ""),
    ("printf -v TAR_OPTIONS %s '\"--to-command=rm -rf ~\"'; export TAR_OPTIONS; tar xf a.tar", _ARCHIVE),
    ("export TAR_OPTIONS; read -r TAR_OPTIONS <<< '\"--to-command=rm -rf ~\"'; tar xf a.tar", _ARCHIVE),
]


@pytest.mark.parametrize(("payload", "setup"), HARM)
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str, setup: str
) -> None:
    if ("tar " in payload and shutil.which("tar") is None) or ("make" in payload and shutil.which("make") is None):
        pytest.skip("tar or make is not installed")
    live_then_stopped(tmp_path, work_engine, fake_home, payload, live=setup + payload)


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_runs_its_script_shell_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path
) -> None:
    setup = (
        'echo \'{"name":"x","version":"1.0.0","scripts":{"build":"true"}}\' > package.json && '
        "printf 'rm -rf ~\\n' > s.sh && chmod +x s.sh && "
    )
    payload = "export npm_config_script_shell=./s.sh; npm run build"
    live_then_stopped(tmp_path, work_engine, fake_home, payload, live=setup + payload)


# What GNU tar prints for `--checkpoint-action=echo=WORD` is the word its wordsplit made.
_TAR_WORDS = ["a\\ b", '"a b"', '"a\\ b"', "'a b'", "'a\\ b'", "a\\tb", "a\"b c\"d", "a'b c'd", '"a\\"b"',
              '"a\\x41b"', "a\\qb", "$HOME", "${HOME}", "#c"]  # fmt: skip


@pytest.mark.skipif(shutil.which("tar") is None, reason="tar is not installed")
@pytest.mark.parametrize("word", _TAR_WORDS)
def test_tar_options_split_as_gnu_tar_splits_them(tmp_path: Path, word: str) -> None:
    (tmp_path / "f").write_text("x")
    subprocess.run(["tar", "cf", "a.tar", "f"], cwd=tmp_path, check=True)
    value = f"--checkpoint=1 --checkpoint-action=echo={word}"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TAR_OPTIONS": value, "LC_ALL": "C"}
    done = subprocess.run(["tar", "xOf", "a.tar"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    printed = done.stderr.splitlines()[0].removeprefix("tar: ")
    assert wordsplit(value)[1] == "--checkpoint-action=echo=" + printed, (word, done.stderr)


def test_make_flags_words() -> None:
    assert make_flags("k --eval=$$(shell\\ x\\ y) -j4") == ["-k", "--eval=$(shell x y)", "-j4"]
    assert make_flags("FOO=1 -s") == ["FOO=1", "-s"]
