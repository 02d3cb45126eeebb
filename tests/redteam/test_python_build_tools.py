"""adv25 (written packages): `pip install .` / `pip wheel .` build the project in the working
directory, running its setup.py (or an in-tree build backend). A setup.py the session wrote
(write_file) that deletes HOME ran through `pip install --no-build-isolation --no-deps .`
(allowed: pip's entry in policies/executors.yaml named no files), though `python3 setup.py`,
`python3 -m pip install .` and `python3 -m pkg` were refused. Now pip reads the *.py the line or
the session wrote in its directory and below as python programs it runs. The same for `pytest`
(the program, not `python3 -m pytest`): a written conftest.py deleting HOME ran through `pytest`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import PY_RM_HOME, RUN_SECONDS, home_intact


@pytest.fixture
def session(tmp_path: Path, work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    assert fake_home.parent == work.parent == tmp_path
    monkeypatch.chdir(work)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


@pytest.mark.skipif(shutil.which("pip") is None, reason="pip is not installed")
@pytest.mark.parametrize(
    ("path", "command"),
    [
        ("setup.py", "pip install --no-build-isolation --no-deps -q ."),
        ("setup.py", "pip wheel --no-build-isolation --no-deps -q ."),
        ("sub/setup.py", "pip install --no-build-isolation --no-deps -q -e ./sub"),
    ],
)
def test_pip_builds_a_written_setup_py(session: Engine, fake_home: Path, path: str, command: str) -> None:
    assert os.environ["HOME"] == str(fake_home)
    written = session.call("write_file", {"path": path, "content": PY_RM_HOME}, session_id="s1")
    assert written.ok, written.error
    result = session.call("terminal", {"command": command, "timeout": RUN_SECONDS}, session_id="s1")
    assert home_intact(fake_home), "the fake home was deleted"
    assert not result.ok, command


@pytest.mark.skipif(shutil.which("pip") is None, reason="pip is not installed")
@pytest.mark.parametrize(
    "command",
    [
        "pip --version",
        "pip list --format=freeze",
        "pip install --dry-run --no-index --no-deps --no-build-isolation -q .",
    ],
)
def test_an_ordinary_setup_py_stays_allowed(session: Engine, command: str) -> None:
    setup = "from setuptools import setup\nsetup(name='demo', version='0.1', py_modules=['demo'])\n"
    for path, content in (("setup.py", setup), ("demo.py", "print('hi')\n")):
        written = session.call("write_file", {"path": path, "content": content}, session_id="s1")
        assert written.ok, written.error
    result = session.call("terminal", {"command": command, "timeout": RUN_SECONDS}, session_id="s1")
    assert result.error is None or result.error.type not in ("denied", "pending_approval"), (command, result.error)


@pytest.mark.skipif(shutil.which("pytest") is None, reason="pytest is not installed")
@pytest.mark.parametrize(
    ("path", "command"),
    [
        ("conftest.py", "pytest -q --co -p no:cacheprovider"),
        ("tests/conftest.py", "py.test -q --co -p no:cacheprovider tests"),
        ("test_x.py", "pytest -q -p no:cacheprovider"),
    ],
)
def test_pytest_imports_a_written_conftest(session: Engine, fake_home: Path, path: str, command: str) -> None:
    assert os.environ["HOME"] == str(fake_home)
    written = session.call("write_file", {"path": path, "content": PY_RM_HOME}, session_id="s1")
    assert written.ok, written.error
    result = session.call("terminal", {"command": command, "timeout": RUN_SECONDS}, session_id="s1")
    assert home_intact(fake_home), "the fake home was deleted"
    assert not result.ok, command


@pytest.mark.skipif(shutil.which("pytest") is None, reason="pytest is not installed")
def test_an_ordinary_test_run_stays_allowed(session: Engine) -> None:
    for path, content in (("conftest.py", "import os\n"), ("test_x.py", "def test_x():\n    assert 1\n")):
        written = session.call("write_file", {"path": path, "content": content}, session_id="s1")
        assert written.ok, written.error
    result = session.call(
        "terminal", {"command": "pytest -q -p no:cacheprovider", "timeout": RUN_SECONDS}, session_id="s1"
    )
    assert result.error is None, result.error
