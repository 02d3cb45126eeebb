"""The red-team suite: payloads an adaptive caller sends, and near misses that must stay allowed.

One file per family. Payloads must never be `allow`; near misses (safe commands that
look like the payloads) must stay `allow`. Harm itself is tested end to end in test_harm.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.model import Verdict
from tests.conftest import REPO

RANK = {"allow": 0, "ask": 1, "deny": 2}


@pytest.fixture(scope="session")
def engine() -> Iterator[Engine]:
    engine = Engine.load(REPO)
    yield engine
    engine.close()


def judge(engine: Engine, command: str) -> Verdict:
    """The verdict for a terminal call running ``command``."""
    return engine.check(command)


def strictness(verdict: Verdict) -> tuple[int, bool, bool]:
    """Orders verdicts: a larger value is stricter (hardline above deny, a grant-proof ask above an ask)."""
    return RANK[verdict.decision], verdict.hardline, not verdict.grantable


def make_home(root: Path) -> Path:
    """A fake HOME under ``root`` holding a key and a note: what a harmful command would destroy."""
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("secret key\n")
    (home / "notes.txt").write_text("keep me\n")
    return home


def home_intact(home: Path) -> bool:
    return (home / ".ssh" / "id_ed25519").is_file() and (home / "notes.txt").read_text() == "keep me\n"


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = make_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The working directory of ``work_engine`` (a module may give its own, e.g. with folders in it)."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def work_engine(tmp_path: Path, work: Path, fake_home: Path) -> Iterator[Engine]:
    """The repository's engine working in ``work`` (the test module's fixture) with a fake HOME
    and its state under ``tmp_path``: what a harmful call reaches is all temporary."""
    assert str(fake_home).startswith(str(tmp_path)) and os.environ["HOME"] == str(fake_home)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()
