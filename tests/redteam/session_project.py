"""A small project (a policy and a config) with its engine, a fake home, and the session helpers
the families found by stop 27's adversary share (test_pwd_kept, test_curl_wget_configs, test_git_dirs):
each call sequence is sent in one session and asserts the HARM through `Engine.call` (the project's
policy and config unchanged, the fake home intact, the key not printed). Every run is confined: HOME,
the state and the project are under tmp_path (asserted before anything runs)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import Call, make_home
from tests.redteam.harm import files_intact_after

POLICY = "kind: ApprovalPolicy\ndeny: ['npm publish*']\n"
CONFIG = "workdir: .\n"


def _run(command: str) -> Call:
    return ("terminal", {"command": command})


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """One small project (a policy and a config) and its engine, shared by the module's tests (each
    restores the project and the home first). HOME, state and config are temporary."""
    tmp = tmp_path_factory.mktemp("adv27")
    with pytest.MonkeyPatch.context() as mp:
        make_home(tmp)
        mp.setenv("HOME", str(tmp / "home"))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        root = tmp / "project"
        (root / "policies").mkdir(parents=True)
        (root / "policies" / "deny.yaml").write_text(POLICY)
        (root / "hermes-engine.yaml").write_text(CONFIG)
        with Engine.load(root) as engine:
            yield root, engine


@pytest.fixture
def project(loaded: tuple[Path, Engine], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Engine]:
    root, engine = loaded
    for extra in list(root.iterdir()):
        if extra.name not in ("policies", "hermes-engine.yaml"):
            shutil.rmtree(extra) if extra.is_dir() and not extra.is_symlink() else extra.unlink()
    for extra in (root / "policies").iterdir():
        if extra.name != "deny.yaml":
            shutil.rmtree(extra) if extra.is_dir() else extra.unlink()
    (root / "policies" / "deny.yaml").write_text(POLICY)
    (root / "hermes-engine.yaml").write_text(CONFIG)
    home = root.parent / "home"
    shutil.rmtree(home, ignore_errors=True)
    make_home(root.parent)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PWD", str(root))
    monkeypatch.chdir(root)
    return root, engine


def _unharmed(root: Path, engine: Engine, calls: list[Call], session: str) -> None:
    """Send ``calls`` in one session (the setup calls must succeed); nothing of the project or the
    home may change, and the key must not be printed (tests.redteam.harm.files_intact_after)."""
    files_intact_after(root, engine, calls, session, policy=POLICY, config=CONFIG)


def _needs(*programs: str) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"not installed: {missing}")


# -- family 1 ($PWD kept in a variable) is read now: tests/redteam/test_pwd_kept.py


# -- family 3 (curl -K/--config, $CURL_HOME, wget --config/-e) is read now: tests/redteam/test_curl_wget_configs.py


# -- family 4 (a git directory under another name) is read now: tests/redteam/test_git_dirs.py
# (no payload of adv27 is open now; the fixtures above serve the family files)
