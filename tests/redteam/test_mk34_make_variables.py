"""mk34 (stop 34, issue 8): make's variables as its command line and its environment set them.

adv33 expanded a written makefile's recipes with make's built-in defaults (CC=cc, MAKE=make, CFLAGS
empty) read from the makefile's text alone: `make x CC=rm`, `CC=rm make x`, `make x MAKE=rm`,
`CFLAGS='; rm -rf ~' make x` with a recipe `$(CC) -rf ~` (or `$(CC) $(CFLAGS) x.c`) ran `rm -rf ~`
while the engine allowed them (redt33's MAKE_OVERRIDES, xfail strict until here). Now
(executors.make_payloads with follow.Follower._make_given) each `$(NAME)`/`${NAME}` of a recipe takes
the values make gives it: a command-line `NAME=VALUE` (anywhere among the words, MAKEFLAGS' too,
`CC+=x`), unless the makefile's assignment is an `override`; the makefile's (one plain assignment; with
conditionals or `?=` the value below it too), unless `-e` puts the environment first; the environment
(the line's variables, `env X=… make`, an `export`); the built-in default; `--eval` assignments count
as the makefile's. A value known only at run time (`read CC`, `make CC="$Y"`), a value of make's own
references, or a computed name (`$(C)C = …` in the makefile, `make 'C$(Y)=…'`) makes the recipe line
unknown: ask. SHELL and .SHELLFLAGS so given make each recipe line run as `SHELL FLAGS 'LINE'` (`make
x SHELL=rm .SHELLFLAGS=-rf` with a recipe `$(HOME)`); a plain shell with options ending in `-c` reads
the line as written. Found on the way (allowed before): `make 'X != CMD'` (make runs CMD as it reads
its command line) and a value holding `$(shell CMD)` on the line or in the environment (`CFLAGS='$(shell
CMD)' make` with the project's own makefile using CFLAGS).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, live_then_stopped, verdict_cases, written_then_stopped

P = "rm -rf ~"
CC_RECIPE = "printf 'x:\\n\\t$(CC) -rf ~\\n' > Makefile; "
HOME_RECIPE = "printf 'x:\\n\\t$(HOME)\\n' > Makefile; "
CFLAGS_RECIPE = "printf 'x:\\n\\t$(CC) $(CFLAGS) -o x x.c\\n' > Makefile; "

PAYLOADS: dict[str, Case] = {
    # the command line over the makefile and the defaults
    "CC= on the line": ({}, CC_RECIPE + "make x CC=rm"),
    "CC:= on the line": ({}, CC_RECIPE + "make x 'CC:=rm'"),
    "CC = on the line, blanks": ({}, CC_RECIPE + "make x 'CC = rm'"),
    "over the makefile's": ({}, "printf 'CC = gcc\\nx:\\n\\t$(CC) -rf ~\\n' > Makefile; make x CC=rm"),
    "MAKEFLAGS": ({}, CC_RECIPE + "MAKEFLAGS='CC=rm' make x"),
    "--eval": ({}, CC_RECIPE + "make --eval='CC=rm' x"),
    "a lowercase name": ({}, "printf 'x:\\n\\t$(x) -rf ~\\n' > Makefile; make x x=rm"),
    "a name of the makefile's": ({}, "printf 'x:\\n\\t$(TOOL) -rf ~\\n' > Makefile; make x TOOL=rm"),
    "CC+= after the environment's": ({}, CC_RECIPE.replace(" -rf ~", "") + "CC=rm make x 'CC+=-rf ~'"),
    "CFLAGS with a separator": ({}, CFLAGS_RECIPE + f"make x CFLAGS='; {P};'"),
    "a value known at run time": ({}, CC_RECIPE + 'make x CC="$Y"'),
    "a computed name on the line": ({}, CC_RECIPE + "make x 'C$(Y)=rm'"),
    # the words reaching make by other paths
    "a word from a substitution": ({}, CC_RECIPE + "make x $(echo CC=rm)"),
    "positional words": ({}, CC_RECIPE + 'set -- CC=rm; make x "$@"'),
    "xargs": ({}, CC_RECIPE + "echo CC=rm | xargs make x"),
    "a function": ({}, CC_RECIPE + "f() { make x CC=rm; }; f"),
    "sh -c with the environment": ({}, CC_RECIPE + "CC=rm sh -c 'make x'"),
    "command": ({}, CC_RECIPE + "CC=rm command make x"),
    # the environment over the defaults (and over the makefile with -e)
    "env": ({}, CC_RECIPE + "env CC=rm make x"),
    "export": ({}, CC_RECIPE + "export CC=rm; make x"),
    "-e over the makefile's": ({}, "printf 'CC = echo\\nx:\\n\\t$(CC) -rf ~\\n' > Makefile; CC=rm make -e x"),
    "a conditional assignment": (
        {},
        "printf 'ifdef Q\\nX = echo\\nendif\\nx:\\n\\t$(X) -rf ~\\n' > Makefile; X=rm make x",
    ),
    "?=": ({}, "printf 'X ?= echo\\nx:\\n\\t$(X) -rf ~\\n' > Makefile; X=rm make x"),
    # `?=` never sets a name make has a default for: `rm -f -r ~` runs (allowed before mk34 too)
    "?= on a built-in": ({}, "printf 'RM ?= echo\\nx:\\n\\t$(RM) -r ~\\n' > Makefile; make x"),
    "read from input": ({}, CC_RECIPE + "read CC; make x"),
    "a computed name in the makefile": (
        {},
        "printf 'C = C\\n$(C)C := rm -rf ~;\\nx:\\n\\t$(CC) x.c\\n' > Makefile; make x",
    ),
    # SHELL and .SHELLFLAGS: each recipe line run by that program
    "SHELL= .SHELLFLAGS= on the line": ({}, HOME_RECIPE + "make x SHELL=rm .SHELLFLAGS=-rf"),
    "SHELL .SHELLFLAGS in MAKEFLAGS": ({}, HOME_RECIPE + "MAKEFLAGS='SHELL=rm .SHELLFLAGS=-rf' make x"),
    ".SHELLFLAGS in the environment": ({}, HOME_RECIPE + "env .SHELLFLAGS=-rf make x SHELL=rm"),
    "SHELL exported": ({}, HOME_RECIPE + "export SHELL=rm; make -e x .SHELLFLAGS=-rf"),
    # a makefile not read here (the project's): each recipe line, a text nobody knows, run by `rm -rf`
    "SHELL .SHELLFLAGS, the project's makefile": ({}, "make x SHELL=rm .SHELLFLAGS=-rf"),
    "SHELL .SHELLFLAGS in MAKEFLAGS, the project's makefile": ({}, "MAKEFLAGS='SHELL=rm .SHELLFLAGS=-rf' make"),
    # make runs these as it reads its command line or its variables (the makefile need not be written)
    "X != CMD": ({}, f"make x 'X != {P}'"),
    "$(shell) on the line": ({}, f"make 'CFLAGS=$(shell {P})'"),
    "$(shell) in the environment": ({}, f"CFLAGS='-O2 $(shell {P})' make"),
}

NEAR: dict[str, Case] = {
    "make": ({}, "make"),
    "make test": ({}, "make test"),
    "make CC=clang": ({}, "make CC=clang"),
    "make -j4 CFLAGS=-O2": ({}, "make -j4 CFLAGS=-O2"),
    "written, CC=clang": ({}, CFLAGS_RECIPE + "make x CC=clang"),
    "written, -j4 CFLAGS=-O2": ({}, CFLAGS_RECIPE + "make -j4 CFLAGS=-O2 x"),
    "written, CFLAGS+=": ({}, CFLAGS_RECIPE + "make x 'CFLAGS+=-Wall'"),
    "written, CC in the environment": ({}, CFLAGS_RECIPE + "CC=clang CFLAGS='-O2 -g' make x"),
    "written, SHELL=/bin/bash": ({}, CFLAGS_RECIPE + "make x SHELL=/bin/bash"),
    "written, .SHELLFLAGS=-ec": ({}, CFLAGS_RECIPE + "make x .SHELLFLAGS=-ec"),
    "written, pipefail": ({}, CFLAGS_RECIPE + "make x SHELL=bash '.SHELLFLAGS=-eu -o pipefail -c'"),
    "SHELL='bash -x'": ({}, "make SHELL='bash -x' all"),
    "SHELL=/bin/bash pipefail": ({}, "make SHELL=/bin/bash .SHELLFLAGS='-eu -o pipefail -c' all"),
    "SHELL=/bin/zsh": ({}, "make SHELL=/bin/zsh test"),
    # make runs the makefile's `override` value: `echo -rf ~`
    "override over the line": ({}, "printf 'override CC = echo\\nx:\\n\\t$(CC) -rf ~\\n' > Makefile; make x CC=rm"),
    # the makefile's assignment over the environment's (no -e)
    "the makefile's over the environment": ({}, "printf 'CC = echo\\nx:\\n\\t$(CC) -rf ~\\n' > Makefile; CC=rm make x"),
    "$(shell date)": ({}, "make X='$(shell date)'"),
    "?= defaults": (
        {},
        "printf 'CC ?= gcc\\nCFLAGS ?= -O2\\nLDFLAGS ?=\\nPREFIX ?= /usr/local\\nall:\\n\\t$(CC) $(CFLAGS) $(LDFLAGS)"
        " -o app main.c\\n' > Makefile; make",
    ),
    "ifeq/else": (
        {},
        "printf 'ifeq ($(DEBUG),1)\\nCFLAGS = -g\\nelse\\nCFLAGS = -O2\\nendif\\nall:\\n\\t$(CC) $(CFLAGS) -o app"
        " main.c\\n' > Makefile; make DEBUG=1",
    ),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR))
def test_make_variables_are_read_as_make_sets_them(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize(
    "payload",
    [
        CC_RECIPE + "make x CC=rm",
        CC_RECIPE + "CC=rm make x",
        "printf 'x:\\n\\t$(CC) $(CFLAGS) x.c\\n' > Makefile; CFLAGS='; rm -rf ~' make x",
        "printf 'C = C\\n$(C)C = rm -rf ~;\\nx:\\n\\t$(CC) -o x x.c\\n' > Makefile; make x",
        HOME_RECIPE + "make x SHELL=rm .SHELLFLAGS=-rf",
        "printf 'RM ?= echo\\nx:\\n\\t$(RM) -r ~\\n' > Makefile; make x",
    ],
    ids=["CC on the line", "CC in the environment", "CFLAGS in the environment", "computed name", "SHELL", "?="],
)
def test_a_recipe_run_with_the_line_s_variables_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload)


def test_shell_and_shellflags_on_the_line_with_the_project_s_makefile_do_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    """The makefile is the project's (not read here): `SHELL=rm .SHELLFLAGS=-rf` runs `rm -rf LINE`
    for each of its recipe lines (here one naming the home)."""
    engine, home, _ = plain_harm
    present = {"Makefile": "x:\n\t$(HOME)\n"}
    written_then_stopped(tmp_path, engine, home, {}, "make x SHELL=rm .SHELLFLAGS=-rf", present=present)


def test_a_shell_assignment_on_make_s_command_line_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    """`make 'X != CMD'` runs CMD through the environment's SHELL as make reads its command line (a
    terminal's environment has one; the confined run is given it), before any makefile is read."""
    engine, home, _ = plain_harm
    payload = f"make x 'X != {P}'"
    live_then_stopped(tmp_path, engine, home, payload, live="export SHELL=/bin/bash; " + payload)


def test_a_shell_call_in_the_environment_does_not_run_through_the_project_s_makefile(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    """The makefile is the project's (nobody wrote it in the session): CFLAGS from the environment is
    expanded where it uses it, and its `$(shell CMD)` runs."""
    engine, home, _ = plain_harm
    present = {"Makefile": "x:\n\t@echo $(CFLAGS)\n"}
    written_then_stopped(tmp_path, engine, home, {}, f"CFLAGS='$(shell {P})' make x", present=present)
