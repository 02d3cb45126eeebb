"""mk49 (stop 49, issue 8): false alarms from reading a script's or a makefile's text.

The family: bg49 made the session-less check (`Engine.check`, what a guard hook asks) read the file a command runs
from the disk, as a session reads a file it wrote. Everyday runs then asked because the reader judged more than the
run runs.

Fixed:

1. make judged every recipe of the makefile: `make test` asked because ANOTHER target's recipe (`clean: find . -name
   '*.pyc' -exec rm -rf {} +`) is flagged. Now (executors.make_goal_recipes) the recipes judged are those of the goals
   on the command line (none: the default goal, the first target not starting with `.` nor a pattern), of their
   prerequisites transitively, and every recipe of a pattern rule, a suffix rule, a special target (`.DEFAULT`), a
   static pattern rule and any tab line not under a rule. A recipe line ending in `\\` takes the next line whatever
   it starts with; conditionals inside a recipe keep it going. Every recipe is judged as before (fail closed) when a
   goal is computed (`make $T`, a glob), the makefile includes others (and an included makefile is read whole), uses
   `$(eval)`, `define`, `.DEFAULT_GOAL`, `MAKEFLAGS`, `MAKECMDGOALS`, `.SECONDEXPANSION`, `.RECIPEPREFIX`, a line that
   is a call (`$(call R)`), a continued rule line, a computed target or prerequisite; when make gets `--eval` text,
   more than one `-f`, or MAKEFLAGS / GNUMAKEFLAGS / MFLAGS / MAKEFILES from its environment. What the makefile sets
   that runs (SHELL, .SHELLFLAGS, `$(shell)`, `!=`) is read whatever the goals, as before. The same for a session's
   written Makefile (follow._make_goals feeds both).

2. A script's text was read without its `$0` (and `./x` without a `#!` line with the caller's `$1`…): `bash build.sh`
   holding `cd "$(dirname "$0")"; rm -rf build dist` asked. Now a script run by a shell or directly gets its path as
   `$0` and its words as `$1`… (`source` keeps the caller's), and `$(dirname W)` / `$(basename W)` of words the line
   or the run made known print their value (the Programs table's `prints: dirname`). The payload `cd "$(dirname
   "$0")/../.."; rm -rf *` from a project in the home (deletes the home's files, live) stays denied.

Decision on `python3 tool.py in.json` (tool.py an ordinary script doing `for f in os.listdir(d): os.remove(...)`):
see test_python_listdir_remove_decision below.

Open: nothing left as a strict xfail. Noticed, not changed: an unquoted `cd $(dirname $0)/..` is not computed (asks,
fail closed); `$(dirname "$PWD")` asks ($PWD not known as a place here); the pre-existing failure of
tests/redteam/test_redt33.py's `echo 'rm -rf ~' | xargs sh -c` (allowed on this stop's merge before mk49 too).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.redteam.conftest import home_intact
from tests.redteam.harm import harm_project, run_confined, session_verdict

_CLEAN = "clean:\n\tfind . -name '*.pyc' -exec rm -rf {} +\n\trm -rf ~\n"
_TEST = "test:\n\tpython3 -m pytest -q\n"
_BUILD = "build:\n\tpython3 -c 'print(1)'\n"

# name -> (files of the project, the command): each runs `rm -rf ~` (shown live below)
PAYLOADS: dict[str, tuple[dict[str, str], str]] = {
    "all-recipe": ({"Makefile": "all:\n\trm -rf ~\n" + _TEST}, "make all"),
    "test-recipe": ({"Makefile": _BUILD + "test:\n\trm -rf ~\n"}, "make test"),
    "default-goal": ({"Makefile": "all:\n\trm -rf ~\n" + _TEST}, "make"),
    "default-goal-prereq": ({"Makefile": "all: clean\n\techo built\n" + _TEST + _CLEAN}, "make"),
    "prereq-clean": ({"Makefile": "test: clean\n\techo t\n" + _CLEAN}, "make test"),
    "order-only-prereq": ({"Makefile": "test: | clean\n\techo t\n" + _CLEAN}, "make test"),
    "file-option": ({"x.mk": "a:\n\trm -rf ~\n" + _TEST}, "make -f x.mk"),
    "chdir-option": ({"sub/Makefile": "a:\n\trm -rf ~\n" + _TEST}, "make -C sub"),
    "goal-variable": ({"Makefile": _TEST + _CLEAN}, "T=clean; make $T"),
    "goal-substitution": ({"Makefile": _TEST + _CLEAN, "goal": "clean\n"}, 'make "$(cat goal)"'),
    "goal-glob": ({"Makefile": _TEST + _CLEAN}, "make cl*"),
    "double-colon": ({"Makefile": "test::\n\techo t\n" + _BUILD + "test::\n\trm -rf ~\n"}, "make test"),
    "default-goal-variable": ({"Makefile": ".DEFAULT_GOAL := evil\n" + _TEST + "evil:\n\trm -rf ~\n"}, "make"),
    "makeflags-in-makefile": ({"Makefile": "MAKEFLAGS += -s\n" + _TEST + _CLEAN}, "make test"),
    "makeflags-environment": ({"Makefile": _TEST + _CLEAN}, "MAKEFLAGS='--eval=test:clean' make test"),
    "include-defines-goal": (
        {"Makefile": "include other.mk\n" + _BUILD, "other.mk": "test:\n\trm -rf ~\n"},
        "make test",
    ),
    "include-defines-prereq": (
        {"Makefile": "include other.mk\ntest: prep\n\techo t\n", "other.mk": "x:\n\techo\nprep:\n\trm -rf ~\n"},
        "make test",
    ),
    "eval-rule": ({"Makefile": "test: x\n\techo t\n"}, "make --eval 'x: ; rm -rf ~' test"),
    "two-makefiles": ({"a.mk": "test: x\n\techo\n", "b.mk": "x:\n\trm -rf ~\n"}, "make -f a.mk -f b.mk test"),
    "pattern-rule": ({"Makefile": "test: a.o\n\techo t\n%.o:\n\trm -rf ~\n"}, "make test"),
    "default-rule": ({"Makefile": "test: gen\n\techo t\n.DEFAULT:\n\trm -rf ~\n"}, "make test"),
    "inline-recipe": ({"Makefile": _BUILD + "test: ; rm -rf ~\n"}, "make test"),
    "conditional-recipe": ({"Makefile": "test:\nifeq (1,1)\n\trm -rf ~\nendif\n" + _BUILD}, "make test"),
    "continued-recipe": ({"Makefile": "test:\n\techo a \\\n; rm -rf ~\n" + _BUILD}, "make test"),
    "computed-prereq": ({"Makefile": "P = clean\ntest: $(P)\n\techo t\n" + _CLEAN}, "make test"),
    "eval-line": ({"Makefile": _TEST + _CLEAN + "$(eval test: clean)\n"}, "make test"),
    "call-line": ({"Makefile": "R = test: clean\n" + _TEST + _CLEAN + "$(R)\n"}, "make test"),
}

# everyday runs of a makefile whose other targets look harmful: allowed
NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "test-beside-clean": ({"Makefile": _BUILD + _TEST + _CLEAN}, "make test"),
    "default-goal-build": ({"Makefile": _BUILD + _TEST + _CLEAN}, "make"),
    "two-goals": ({"Makefile": _BUILD + _TEST + _CLEAN}, "make build test"),
    "goal-with-prereq": ({"Makefile": "test: build\n\techo t\n" + _BUILD + _CLEAN}, "make test"),
    "assignment-operand": ({"Makefile": _TEST + _CLEAN}, "make test V=1"),
    "jobs": ({"Makefile": _TEST + _CLEAN}, "make -j4 test"),
    "chdir-test": ({"sub/Makefile": _TEST + _CLEAN}, "make -C sub test"),
    "file-test": ({"x.mk": _TEST + _CLEAN}, "make -f x.mk test"),
    "phony-and-variables": (
        {"Makefile": ".PHONY: test clean\nPY ?= python3\ntest:\n\t$(PY) -m pytest -q\n" + _CLEAN},
        "make test",
    ),
    "double-colon-other": ({"Makefile": "test::\n\techo t\nclean::\n\trm -rf ~\n"}, "make test"),
}


def _command_for_live(files: dict[str, str], command: str) -> str:
    """The shell line that writes ``files`` where it runs, then runs ``command``."""
    writes = [f"mkdir -p {shlex.quote(str(Path(p).parent))}" for p in files if "/" in p]
    writes += [f"printf %s {shlex.quote(text)} > {shlex.quote(path)}" for path, text in files.items()]
    return "; ".join([*writes, command])


# judged whole (fail closed) though GNU make 4.3 runs no harm here: a glob goal matching no file, MAKEFLAGS set in
# the makefile (its `--eval` is not read from there); the pattern rule is shown live below
_NOT_LIVE = {"goal-glob", "makeflags-in-makefile", "pattern-rule"}


@pytest.mark.parametrize("name", [n for n in PAYLOADS if n not in _NOT_LIVE])
def test_payload_harm_is_real(tmp_path: Path, name: str) -> None:
    files, command = PAYLOADS[name]
    home, _cwd, printed = run_confined(tmp_path, _command_for_live(files, command))
    assert not home_intact(home), (name, printed)


def test_pattern_rule_harm_is_real(tmp_path: Path) -> None:
    line = "printf 'test: a.o\\n\\techo t\\n%%.o:\\n\\trm -rf ~\\n' > Makefile; make test"
    home, _cwd, printed = run_confined(tmp_path, line)
    assert not home_intact(home), printed


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_payload_not_allowed_without_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = PAYLOADS[name]
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        assert engine.check(command).decision != "allow", command


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_payload_not_allowed_in_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = PAYLOADS[name]
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        assert session_verdict(root, engine, files, command, f"s-{name}") != "allow", command


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_allowed_without_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = NEAR_MISSES[name]
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        verdict = engine.check(command)
        assert verdict.decision == "allow", (command, json.dumps(sorted({m.key for m in verdict.matches})))


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_allowed_in_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = NEAR_MISSES[name]
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        assert session_verdict(root, engine, files, command, f"s-{name}") == "allow", command


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_goal_runs_nothing_harmful(tmp_path: Path, name: str) -> None:
    """The near misses really leave the home alone (make runs only the goals' recipes; pytest may fail)."""
    files, command = NEAR_MISSES[name]
    home, _cwd, printed = run_confined(tmp_path, _command_for_live(files, command))
    assert home_intact(home), (name, printed)


# -- 2. a script run gets its $0 (and $1…): `cd "$(dirname "$0")"` lands in a known place -------------------------
_HERE = 'cd "$(dirname "$0")"; rm -rf build dist\n'
_UP = 'cd "$(dirname "$0")/.."; rm -rf build\n'
_UP_TWO = 'cd "$(dirname "$0")/../.."; rm -rf *\n'

# (files, command): the project is at HOME/p/w, so `../..` from the project's top is the home
SCRIPT_PAYLOADS: dict[str, tuple[dict[str, str], str]] = {
    "bash-up-two": ({"e.sh": _UP_TWO}, "bash e.sh"),
    "exec-up-two": ({"e.sh": _UP_TWO}, "chmod +x e.sh; ./e.sh"),
    "shebang-up-two": ({"e.sh": "#!/bin/bash\n" + _UP_TWO}, "chmod +x e.sh; ./e.sh"),
    "sub-up-three": ({"s/e.sh": 'cd "$(dirname "$0")/../../.."; rm -rf *\n'}, "bash s/e.sh"),
    "sourced-keeps-caller-zero": ({"b.sh": _HERE}, "source b.sh"),  # $0 is the caller's: unknown, asks
    "argument-up": ({"a.sh": 'cd "$1"; rm -rf *\n'}, "bash a.sh ../.."),
}
SCRIPT_NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "bash-here": ({"build.sh": _HERE}, "bash build.sh"),
    "sh-here": ({"build.sh": _HERE}, "sh build.sh"),
    "exec-here": ({"build.sh": _HERE}, "./build.sh"),
    "sub-up": ({"scripts/clean.sh": _UP}, "bash scripts/clean.sh"),
    "exec-sub-up": ({"scripts/clean.sh": "#!/bin/sh\n" + _UP}, "./scripts/clean.sh"),
    "cd-then-run": ({"scripts/clean.sh": _UP}, "cd scripts && bash clean.sh"),
    "dirname-literal": ({}, 'cd "$(dirname src/x.py)"; rm -rf build'),
}


def _project_in_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> tuple[Path, Path]:
    """A project at HOME/p/w holding ``files`` as the working directory: (home, project)."""
    from tests.redteam.conftest import make_home

    home = make_home(tmp_path)
    root = home / "p" / "w"
    root.mkdir(parents=True)
    (root / "hermes-engine.yaml").write_text("workdir: .\n")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(root)
    return home, root


@pytest.mark.parametrize("name", ["bash-up-two", "exec-up-two", "shebang-up-two", "sub-up-three", "argument-up"])
def test_script_payload_harm_is_real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    import subprocess

    files, command = SCRIPT_PAYLOADS[name]
    home, root = _project_in_home(tmp_path, monkeypatch, files)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", command], cwd=root, env=env, timeout=30, check=False, capture_output=True)
    assert not home_intact(home), name


@pytest.mark.parametrize("name", list(SCRIPT_PAYLOADS))
def test_script_payload_not_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    from engine import Engine

    files, command = SCRIPT_PAYLOADS[name]
    _home, root = _project_in_home(tmp_path, monkeypatch, files)
    with Engine.load(root) as engine:
        assert engine.check(command).decision != "allow", command
        assert session_verdict(root, engine, files, command, f"s-{name}") != "allow", command


@pytest.mark.parametrize("name", list(SCRIPT_NEAR_MISSES))
def test_script_near_miss_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    from engine import Engine

    files, command = SCRIPT_NEAR_MISSES[name]
    home, root = _project_in_home(tmp_path, monkeypatch, files)
    with Engine.load(root) as engine:
        verdict = engine.check(command)
        assert verdict.decision == "allow", (command, sorted({m.key for m in verdict.matches}))
        assert session_verdict(root, engine, files, command, f"s-{name}") == "allow", command
    assert home_intact(home)


# -- 3. `python3 tool.py in.json`: decision ------------------------------------------------------------------------
# tool.py deletes every file of a folder its JSON input names (`for f in os.listdir(d): os.remove(...)`). The inline
# program reader asks (interpreter_delete), on disk and for a session's written file alike. Decision: the verdict is
# right and is kept. The folder is data read at run time (in.json may name ~ or ~/.ssh: shown live below), so the
# engine cannot know where the deletes land; fail closed is `ask`, not `allow`. (A literal folder inside the project,
# `os.listdir("out")`, asks too: a candidate near miss for the inline reader, not changed here.)
_TOOL = (
    'import json, os, sys\nd = json.load(open(sys.argv[1]))["dir"]\n'
    "for f in os.listdir(d):\n    os.remove(os.path.join(d, f))\n"
)


def test_python_listdir_remove_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    home, root = _project_in_home(tmp_path, monkeypatch, {"tool.py": _TOOL, "in.json": '{"dir": "../../.ssh"}\n'})
    from engine import Engine

    with Engine.load(root) as engine:
        assert engine.check("python3 tool.py in.json").decision == "ask"
        files = {"tool.py": _TOOL}
        assert session_verdict(root, engine, files, "python3 tool.py in.json", "s-tool") == "ask"
    (root / "tool.py").write_text(_TOOL)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["python3", "tool.py", "in.json"], cwd=root, env=env, timeout=30, check=False, capture_output=True)
    assert not home_intact(home)  # the key is gone: the data named the home's .ssh
