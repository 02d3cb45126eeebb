"""adv50 (stop 50, issue 8): an adversary on the merge of stop 50, attacking what the new readings allow.
The family: a program that resolves the file it runs by itself (entry50's `entry:` forms: `node .`, `node index`,
`node d`, `python3 d`, `python3 -m x`), over files already in the project when the session began (planted: a
checkout, an unpacked archive, an earlier session). Each payload below deletes the fake HOME's note when run by a
real bash (live, test_the_payload_is_real).
Fixed:
1. A session resolved the entry against the line's and the session's own files only: the file a planted package.json
   `main`, index.js, d/__main__.py or x.py names was never found, nothing was read, and the run was allowed through
   the terminal (while `Engine.check` of the same line asked). follow._entry reads the project's planted files in
   a session too (SessionView.planted, unpack50's bounds), as `bash x.sh` already did: now ask.
2. `python3 -m x` with a package x/ and a benign x.py in the same folder runs the package (a package is found
   before a module) and its x/__main__.py after its x/__init__.py; the row read x.py only (first form found), and
   with x/__init__.py present read that one only, so a payload in x/__main__.py was allowed with or without a
   session (live). The python row's `-m` entry is two runs now: ["{/}/__init__.py", "{/}.py"] and
   ["{/}/__main__.py"] (policies/executors.yaml).
Near misses that stay allowed (both ways): benign planted files for each form, `python3 -m pytest`, `http.server`,
`venv`, a benign package with a benign x.py.
Open: none added by this file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import planted, policy_project

JS = "require('child_process').execSync('rm -rf ~/notes.txt')\n"
PY = "import os\nos.system('rm -rf ~/notes.txt')\n"
SAFE_JS = "console.log(1)\n"
SAFE_PY = "print(1)\n"


def package(**more: str) -> str:
    return json.dumps({"name": "p", "version": "1.0.0", **more})


# name -> (files on the disk before the session, command)
PAYLOADS: dict[str, tuple[dict[str, str], str]] = {
    "node-dot-index": ({"index.js": JS}, "node ."),
    "node-dot-main": ({"package.json": package(main="s.js"), "s.js": JS}, "node ."),
    "node-dot-main-folder": ({"package.json": package(main="lib"), "lib/index.js": JS, "index.js": SAFE_JS}, "node ."),
    "node-index": ({"index.js": JS}, "node index"),
    "node-no-suffix": ({"s.js": JS}, "node s"),
    "node-folder": ({"d/index.js": JS}, "node d"),
    "python-folder": ({"d/__main__.py": PY}, "python3 d"),
    "python-m-module": ({"m.py": PY}, "python3 -m m"),
    "python-m-package-over-module": ({"x.py": SAFE_PY, "x/__init__.py": "", "x/__main__.py": PY}, "python3 -m x"),
    "python-m-package-main": ({"x/__init__.py": "", "x/__main__.py": PY}, "python3 -m x"),
    "python-m-package-init": ({"x.py": SAFE_PY, "x/__init__.py": PY, "x/__main__.py": SAFE_PY}, "python3 -m x"),
    "python-m-subpackage-main": ({"x/__init__.py": "", "x/y/__init__.py": "", "x/y/__main__.py": PY}, "python3 -m x.y"),
}
SH = "rm -rf ~/notes.txt\n"
PAYLOADS.update(
    {
        # a checkout's Makefile / package.json: Engine.check read them, a session did not
        "make-planted-recipe": ({"Makefile": "test:\n\trm -rf ~/notes.txt\n"}, "make test"),
        "make-lowercase-makefile": (
            {"makefile": "test:\n\trm -rf ~/notes.txt\n", "Makefile": "test:\n\ttrue\n"},
            "make test",
        ),
        "make-gnumakefile": (
            {"GNUmakefile": "test:\n\trm -rf ~/notes.txt\n", "Makefile": "test:\n\ttrue\n"},
            "make test",
        ),
        "make-include": (
            {
                "Makefile": "include inc.mk\ntest:\n\ttrue\n",
                "inc.mk": "SHELL=/bin/bash\nexport BASH_ENV=./x.sh\n",
                "x.sh": SH,
            },
            "make test",
        ),
        "make-eval-define-export": (
            {
                "Makefile": "SHELL=/bin/bash\ndefine E\nexport BASH_ENV=./x.sh\nendef\n$(eval $(E))\ntest:\n\ttrue\n",
                "x.sh": SH,
            },
            "make test",
        ),
        "make-directory": (
            {"Makefile": "test:\n\ttrue\n", "mk/Makefile": "test:\n\trm -rf ~/notes.txt\n"},
            "make -C mk test",
        ),
        "make-default-rule": ({"Makefile": "test: ; true\n.DEFAULT:\n\trm -rf ~/notes.txt\n"}, "make test x"),
        # a variable exported under a name make computes (N = BASH_ENV): with or without a session
        "make-export-computed-name": (
            {"Makefile": "SHELL=/bin/bash\nN=BASH_ENV\nexport $(N)=./x.sh\ntest:\n\ttrue\n", "x.sh": SH},
            "make test",
        ),
        "make-export-all-computed-name": (
            {"Makefile": "SHELL=/bin/bash\nN=BASH_ENV\nexport\n$(N)=./x.sh\ntest:\n\ttrue\n", "x.sh": SH},
            "make test",
        ),
        "make-export-named-computed-name": (
            {"Makefile": "SHELL=/bin/bash\nN=BASH_ENV\nexport BASH_ENV\n$(N) := ./x.sh\ntest:\n\ttrue\n", "x.sh": SH},
            "make test",
        ),
        "npm-test-planted": ({"package.json": json.dumps({"scripts": {"test": "rm -rf ~/notes.txt"}})}, "npm test"),
    }
)
NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "make-benign": ({"Makefile": "test:\n\ttrue\n"}, "make test"),
    "make-computed-name-no-export": (
        {"Makefile": "N=X\n$(N)_SRC = a.c\nexport CC = gcc\ntest:\n\ttrue\n"},
        "make test",
    ),
    "make-computed-target-export-all": (
        {"Makefile": "OBJ=a.o\n$(OBJ): a.c\n\ttrue\nexport\ntest:\n\ttrue\n"},
        "make test",
    ),
    "make-export-flags": ({"Makefile": "export CFLAGS = -O2\ntest:\n\ttrue\n"}, "make test"),
    "npm-test-benign": ({"package.json": json.dumps({"scripts": {"test": "echo ok"}})}, "npm test"),
    "node-dot-index": ({"index.js": SAFE_JS}, "node ."),
    "node-dot-main-folder": ({"package.json": package(main="lib"), "lib/index.js": SAFE_JS}, "node ."),
    "node-index": ({"index.js": SAFE_JS}, "node index"),
    "python-folder": ({"d/__main__.py": SAFE_PY}, "python3 d"),
    "python-m-module": ({"m.py": SAFE_PY}, "python3 -m m"),
    "python-m-package": ({"x.py": SAFE_PY, "x/__init__.py": "", "x/__main__.py": SAFE_PY}, "python3 -m x"),
    "python-m-pytest": ({"t.py": SAFE_PY}, "python3 -m pytest -q"),
    "python-m-http-server": ({"t.py": SAFE_PY}, "python3 -m http.server 8000"),
    "python-m-venv": ({"t.py": SAFE_PY}, "python3 -m venv .venv"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv50", "kind: ApprovalPolicy\n") as project:
        yield project


def verdicts(loaded: tuple[Path, Engine], files: dict[str, str], command: str, session: str) -> tuple[str, str]:
    """(Engine.check's decision, the terminal's in a fresh session) with ``files`` planted before both."""
    root, engine = loaded
    with planted(root, files):
        checked = engine.check(command).decision
        view = engine.session_memory.view(session, str(root))
        judged = engine._evaluator(engine._snapshot).verdict("terminal", {"command": command}, view).decision
        return checked, judged


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_a_planted_entry_is_read_with_and_without_a_session(loaded: tuple[Path, Engine], name: str) -> None:
    files, command = PAYLOADS[name]
    checked, judged = verdicts(loaded, files, command, f"adv50-payload-{name}")
    assert checked != "allow", command
    assert judged != "allow", command


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_benign_planted_entries_stay_allowed(loaded: tuple[Path, Engine], name: str) -> None:
    files, command = NEAR_MISSES[name]
    assert verdicts(loaded, files, command, f"adv50-near-{name}") == ("allow", "allow"), command


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_the_payload_is_real(tmp_path: Path, name: str) -> None:
    files, command = PAYLOADS[name]
    program = command.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    home = make_home(tmp_path)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    for rel, text in files.items():
        path = cwd / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["/bin/bash", "-c", command], cwd=cwd, env=env, capture_output=True, timeout=20, check=False)
    assert not home_intact(home), command
