"""Review of stop 50's merge (rev50): the files entry50, mk50 and unpack50 read from the disk under perf50's kept
parses (Evaluator._disk_parses, keyed by DiskView.stamps), and the new `entry:` / npm readings.

Found and fixed:
- `python3 -m pkg` with an empty pkg/__init__.py and pkg/__main__.py deleting the home was allowed: the `-m` row's
  one `entry:` list ("{/}.py", "{/}/__init__.py", "{/}/__main__.py") stops at the first file found, so the
  __init__.py hid the __main__.py python runs after it. __main__.py is now a row of its own (policies/executors.yaml).
- `npm start` with a package.json that has no `scripts` key and a server.js deleting the home was allowed:
  npm_scripts returned no command before entry50's `node server.js` fallback (a package.json with any script was
  read). A missing `scripts` is now read as none.
- `python3 -m pytest` asked when the working directory held an __init__.py with a deletion: entry50's
  `{/}/../__init__.py` form named the working directory's own __init__.py for a one-part module name (python never
  runs it). A form climbing above the module's own packages is skipped.
- (no behaviour) DiskView.names_in and SessionView.names_in listed a folder with the same code: one helper
  (views._listed).

Checked, no regression (kept here as tests): a kept parse is dropped when a file entry50/mk50 read changes --
package.json's `main` retargeted, a `-m` module's parent __init__.py, a makefile's `include`d file, a `-include`d
file that appears later, the makefile's exports; a line that listed a folder (`run-parts d`, `bash x.s?`) is never
kept. No exception in the new readings on odd manifests / names (a fail-closed `ask` for everyday commands).

Open (strict xfail): `npm start` in a session with package.json (no scripts) and server.js planted before it began
is allowed (a session does not read a planted package.json: npm's `files:` row is not a run named exactly).
Open (noticed, not changed; not this merge's): `make` / `make clean` without a session asks (session_file_unread)
in a project whose Makefile has a target building `app` and another running `./app`, in a session it is allowed
(the same at start50); `npm test` with `.npmrc` holding `script-shell=./x.sh` (x.sh deleting the home) on disk
before the check is allowed without a session (the .npmrc is read only when the line or the session writes it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import JS_RM_HOME, PY_RM_HOME, RM_HOME, home_intact
from tests.redteam.harm import blocked, run_confined


def _old(path: Path) -> None:
    t = time.time()
    os.utime(path, (t - 3600, t - 3600), follow_symlinks=False)


def _put(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    _old(path)


def _evaluator(engine: Engine):  # type: ignore[no-untyped-def]
    return engine._evaluator(engine._snapshot)


# -- python3 -m PACKAGE: its __main__.py after its __init__.py ----------------------------------------------------

PKG_FILES = {"pkg/__init__.py": "", "pkg/__main__.py": PY_RM_HOME}


def test_a_package_main_after_its_init_deletes_the_home_live(tmp_path: Path) -> None:
    payload = "mkdir -p pkg && : > pkg/__init__.py && printf '%s' \"$M\" > pkg/__main__.py && python3 -m pkg"
    _, _, printed = run_confined(tmp_path, f"M={PY_RM_HOME!r}; {payload}".replace("\\n", "\n"))
    home = tmp_path / "live" / "home"
    assert not home_intact(home), printed


def test_a_package_main_after_its_init_is_not_allowed(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    for name, text in PKG_FILES.items():
        _put(root, name, text)
    assert engine.check("python3 -m pkg").decision == "deny"
    blocked(engine, home, "python3 -m pkg")


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"pkg/__init__.py": "", "pkg/__main__.py": "print('hi')\n"}, "python3 -m pkg"),
        ({"pkg/__init__.py": "", "pkg/cli.py": "print('hi')\n"}, "python3 -m pkg.cli"),
        ({"pkg/__init__.py": "VERSION = 1\n", "pkg/__main__.py": "from pkg import VERSION\n"}, "python3 -m pkg"),
        ({"tests/test_x.py": "def test_x():\n    assert 1\n"}, "python3 -m pytest -q"),
        # (rev50) the working directory's own __init__.py is not a package `-m pytest` / `-m a.b` is in
        ({"__init__.py": "import shutil\nshutil.rmtree('build')\n"}, "python3 -m pytest"),
        (
            {"__init__.py": "import shutil\nshutil.rmtree('build')\n", "a/__init__.py": "", "a/b.py": ""},
            "python3 -m a.b",
        ),
    ],
)
def test_everyday_python_modules_stay_allowed(
    plain_harm: tuple[Engine, Path, Path], files: dict[str, str], command: str
) -> None:
    engine, _, root = plain_harm
    for name, text in files.items():
        _put(root, name, text)
    assert engine.check(command).decision == "allow"
    view = engine.session_memory.view("s", str(root))
    assert _evaluator(engine).verdict("terminal", {"command": command}, view).decision == "allow"


# -- npm start with no scripts: node server.js ---------------------------------------------------------------------


def test_npm_start_without_scripts_runs_server_js_live(tmp_path: Path) -> None:
    payload = (
        "printf '%s' '{\"name\": \"p\"}' > package.json && printf '%s' \"$S\" > server.js && "
        "npm start --offline --loglevel=silent </dev/null"
    )
    _, _, printed = run_confined(tmp_path, f"S={JS_RM_HOME.strip()!r}; {payload}")
    assert not home_intact(tmp_path / "live" / "home"), printed


@pytest.mark.parametrize("command", ["npm start", "pnpm start", "yarn start", "npm restart"])
def test_npm_start_without_scripts_is_not_allowed(plain_harm: tuple[Engine, Path, Path], command: str) -> None:
    engine, _, root = plain_harm
    _put(root, "package.json", '{"name": "p", "version": "1.0.0"}\n')
    _put(root, "server.js", JS_RM_HOME)
    assert engine.check(command).decision != "allow"


# (fix50) closed by adv50: a session reads the project's Makefile and package.json from the disk
def test_npm_start_without_scripts_in_a_session(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    _put(root, "package.json", '{"name": "p", "version": "1.0.0"}\n')
    _put(root, "server.js", JS_RM_HOME)
    blocked(engine, home, "npm start")


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"package.json": '{"main": "lib/a.js"}\n', "lib/a.js": JS_RM_HOME}, "node ."),
        ({"d/package.json": '{"main": "m.js"}\n', "d/m.js": JS_RM_HOME}, "node d"),
        ({"d/__main__.py": PY_RM_HOME}, "python3 d"),
        ({"a/__init__.py": "", "a/b.py": PY_RM_HOME}, "python3 -m a.b"),
        ({"a/__init__.py": PY_RM_HOME, "a/b.py": ""}, "python3 -m a.b"),  # the package above the module: still read
    ],
)
def test_a_session_resolves_a_planted_entry(
    plain_harm: tuple[Engine, Path, Path], files: dict[str, str], command: str
) -> None:
    """(entry50 x unpack50) `node .` / `python3 -m pkg` / `python3 d` in a session with the files planted before it
    began: entry50's resolution read only what the session wrote (SessionView.read), so nothing resolved and the
    file ran unread (allowed) while a check without a session denied it."""
    engine, home, root = plain_harm
    for name, text in files.items():
        _put(root, name, text)
    assert engine.check(command).decision == "deny"
    blocked(engine, home, command)


@pytest.mark.parametrize(
    ("manifest", "command"),
    [
        ('{"name": "p"}\n', "npm start"),  # a harmless server.js
        ('{"name": "p"}\n', "npm test"),  # no test script: npm says so, runs nothing
        ('{"name": "p", "scripts": {"start": "node server.js"}}\n', "npm start"),
        ('{"name": "p", "scripts": null}\n', "npm start"),
    ],
)
def test_npm_near_misses_stay_allowed(plain_harm: tuple[Engine, Path, Path], manifest: str, command: str) -> None:
    engine, _, root = plain_harm
    _put(root, "package.json", manifest)
    _put(root, "server.js", "require('http').createServer((q, s) => s.end('hi')).listen(3000)\n")
    assert engine.check(command).decision == "allow"


# -- perf50's kept parse and what entry50 / mk50 read from the disk -----------------------------------------------

Change = Callable[[Path], None]
CACHED: list[tuple[str, dict[str, str], str, Change]] = [
    (
        "package.json main retargeted",
        {"package.json": '{"main": "lib/a.js"}', "lib/a.js": "console.log(1)\n", "lib/b.js": JS_RM_HOME},
        "node .",
        lambda root: (root / "package.json").write_text('{"main": "lib/b.js"}'),
    ),
    (
        "package.json appears over index.js",
        {"index.js": "console.log(1)\n", "b.js": JS_RM_HOME},
        "node .",
        lambda root: (root / "package.json").write_text('{"main": "b.js"}'),
    ),
    (
        "-m module's parent __init__.py",
        {"a/__init__.py": "", "a/b/__init__.py": "", "a/b/c.py": "print(1)\n"},
        "python3 -m a.b.c",
        lambda root: (root / "a" / "__init__.py").write_text(PY_RM_HOME),
    ),
    (
        "-m package's __main__.py",
        {"pkg/__init__.py": "", "pkg/__main__.py": "print(1)\n"},
        "python3 -m pkg",
        lambda root: (root / "pkg" / "__main__.py").write_text(PY_RM_HOME),
    ),
    (
        "makefile include",
        {"Makefile": "include other.mk\nall:\n\techo hi\n", "other.mk": "X = 1\n"},
        "make",
        lambda root: (root / "other.mk").write_text("$(shell rm -rf ~)\n"),
    ),
    (
        "makefile -include appearing",
        {"Makefile": "-include local.mk\nall:\n\techo hi\n"},
        "make",
        lambda root: (root / "local.mk").write_text("$(shell rm -rf ~)\n"),
    ),
    (
        "makefile export",
        {"Makefile": "export FOO = 1\nall:\n\techo hi\n", "x.sh": RM_HOME},
        "make",
        lambda root: (root / "Makefile").write_text("export BASH_ENV = x.sh\nSHELL = /bin/bash\nall:\n\techo hi\n"),
    ),
]


@pytest.mark.parametrize(("name", "files", "command", "change"), CACHED, ids=[c[0] for c in CACHED])
def test_a_kept_parse_is_dropped_when_a_file_read_changes(
    plain_harm: tuple[Engine, Path, Path], name: str, files: dict[str, str], command: str, change: Change
) -> None:
    engine, _, root = plain_harm
    for path, text in files.items():
        _put(root, path, text)
    evaluator = _evaluator(engine)
    evaluator.disk_settle = 0.0  # keep fresh readings too: the stamps alone must tell the change
    assert engine.check(command).decision == "allow"
    assert engine.check(command).decision == "allow"
    assert command in evaluator._disk_parses, name  # (kept: the check below is the kept parse's)
    change(root)
    assert engine.check(command).decision != "allow", name


@pytest.mark.parametrize(
    ("files", "command", "added"),
    [
        ({"d/a": "echo hi\n"}, "run-parts d", "d/b"),
        ({"x.sh": "echo hi\n"}, "bash x.s?", "x.sh"),
        ({"x.sh": "echo hi\n"}, "sh ./[x].sh", "x.sh"),
    ],
)
def test_a_line_that_listed_a_folder_is_not_kept(
    plain_harm: tuple[Engine, Path, Path], files: dict[str, str], command: str, added: str
) -> None:
    engine, _, root = plain_harm
    for path, text in files.items():
        _put(root, path, text)
    evaluator = _evaluator(engine)
    evaluator.disk_settle = 0.0
    assert engine.check(command).decision == "allow"
    assert command not in evaluator._disk_parses
    target = root / added
    before = target.stat() if target.exists() else None
    target.write_text(RM_HOME)
    if before is not None:
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert engine.check(command).decision != "allow"
