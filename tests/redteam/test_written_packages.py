"""Written files a program runs by name, not by path (adv24b family 5).

Python imports a package from its directory (`python3 -m pkg` runs pkg/__init__.py and
pkg/__main__.py; `import pkg`, `pydoc pkg`, `-m pkg.sub`, namespace folders without
__init__.py) and runs the `.pth` files of its site-packages at start-up; make's `--eval TEXT`
/ `-E TEXT` is make text whose `include FILE` reads a makefile. The session writes the file with
write_file, then runs it through the terminal (HOME and the working directory temporary): the
run must be refused and the fake home intact. Near misses (harmless packages, stdlib modules,
`make --eval 'X=1'`) still run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from tests.redteam.conftest import PY_RM_HOME, RUN_SECONDS, home_intact

MAKE_RM_HOME = "$(shell rm -rf ~)\n"
# (file written with write_file, its text, the command that runs it)
INDIRECT: dict[str, tuple[str, str, str]] = {
    "python3 -m PACKAGE": ("pkg/__init__.py", PY_RM_HOME, "python3 -m pkg"),
    "python3 -m PACKAGE (__main__)": ("pkg/__main__.py", PY_RM_HOME, "python3 -m pkg"),
    "import PACKAGE": ("pkg/__init__.py", PY_RM_HOME, 'python3 -c "import pkg"'),
    "pydoc PACKAGE": ("pkg/__init__.py", PY_RM_HOME, "python3 -m pydoc pkg"),
    "python3 -m PACKAGE.SUB": ("pkg/sub/__init__.py", PY_RM_HOME, "python3 -m pkg.sub"),
    "namespace package": ("ns/deep/mod.py", PY_RM_HOME, "python3 -m ns.deep.mod"),
    "package after cd": ("sub/pkg/__init__.py", PY_RM_HOME, 'cd sub && python3 -c "import pkg"'),
    "make --eval include": ("x.mk", MAKE_RM_HOME, 'make --eval="include x.mk"'),
    "make -E include": ("x.mk", MAKE_RM_HOME, 'make -E "include x.mk"'),
    "make --eval -include glob": ("x.mk", MAKE_RM_HOME, "make --eval='-include *.mk'"),
    "Makefile including": ("mk/x.mk", MAKE_RM_HOME, "printf 'include mk/x.mk\\nall:\\n\\ttrue\\n' > Makefile; make"),
}


@pytest.fixture
def here(work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(work)
    assert os.environ["HOME"] == str(fake_home) and fake_home.parent == work.parent
    return work


def _call(engine: Engine, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    result = engine.call(tool, args, session_id="s1")
    return result.ok, (result.output or "") + (result.error.message if result.error else "")


@pytest.mark.parametrize("name", list(INDIRECT))
def test_a_written_file_run_indirectly(work_engine: Engine, fake_home: Path, here: Path, name: str) -> None:
    path, text, command = INDIRECT[name]
    if "make" in command and shutil.which("make") is None:
        pytest.skip("make is not installed")
    (here / "pkg").mkdir()
    (here / "pkg" / "__init__.py").write_text("")  # there before: the package folder, empty
    assert _call(work_engine, "write_file", {"path": path, "content": text})[0]
    ran, printed = _call(work_engine, "terminal", {"command": command, "timeout": RUN_SECONDS})
    assert home_intact(fake_home), ("the fake home was deleted", command)
    assert not ran, (command, printed)


def test_a_written_pth_file_runs_at_start_up(work_engine: Engine, fake_home: Path, here: Path) -> None:
    # Writing a .pth file is asked (a start-up file); one approved is still judged when python starts.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "v"], check=True, cwd=here)
    pth = f"v/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages/x.pth"
    assert (here / pth).parent.is_dir()
    work_engine.set_approval_callback(lambda request: "once" if request.tool == "write_file" else "deny")
    line = PY_RM_HOME.replace("\n", "; ").rstrip("; ") + "\n"
    assert _call(work_engine, "write_file", {"path": pth, "content": line})[0]
    assert (here / pth).read_text() == line
    ran, printed = _call(work_engine, "terminal", {"command": "v/bin/python -c 1", "timeout": RUN_SECONDS})
    assert home_intact(fake_home)
    assert not ran, printed


NEAR_MISSES: dict[str, tuple[dict[str, str], str, str]] = {
    # files written, the command, what it prints
    "a harmless package": (
        {"pkg/__init__.py": "VALUE = 1\n", "pkg/__main__.py": "from pkg import VALUE\nprint('value', VALUE)\n"},
        "python3 -m pkg",
        "value 1",
    ),
    "a stdlib module": ({"pkg/__init__.py": "VALUE = 1\n"}, "python3 -m http.server --help", "usage"),
    "pytest on written tests": (
        {"tests/test_a.py": "import os\n\ndef test_a(tmp_path):\n    assert os.path.isdir(tmp_path)\n"},
        # --basetemp: pytest's own numbered folders under /tmp/pytest-of-USER are shared with the
        # run that runs this test, and a pytest that makes one deletes the stale ones at its end
        # (gigabytes of earlier runs on a CI machine: the 30 s timeout passed while it deleted).
        "python3 -m pytest -q -p no:cacheprovider --basetemp=tmp-pytest tests/test_a.py",
        "1 passed",
    ),
    "make --eval a variable": ({"Makefile": "all:\n\t@echo x=$(X)\n"}, "make --eval 'X=1' all", "x=1"),
    "make --eval a harmless include": (
        {"Makefile": "all:\n\t@echo x=$(X)\n", "config.mk": "X = 2\n"},
        "make --eval 'include config.mk' all",
        "x=2",
    ),
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_misses_still_run(work_engine: Engine, fake_home: Path, here: Path, name: str) -> None:
    files, command, printed = NEAR_MISSES[name]
    if command.startswith("make") and shutil.which("make") is None:
        pytest.skip("make is not installed")
    for path, text in files.items():
        assert _call(work_engine, "write_file", {"path": path, "content": text})[0]
    ran, output = _call(work_engine, "terminal", {"command": command, "timeout": RUN_SECONDS})
    assert ran and printed in output, (command, output)
    assert home_intact(fake_home)
