"""A tilde is the home the line set: `HOME=/etc; cp x ~/passwd` writes /etc/passwd.

Each was allowed (the analyzer read `~` as the real home whatever HOME was set to).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import run_confined

PAYLOADS = [
    "HOME=/etc; cp x ~/passwd",
    "export HOME=/etc; echo x >> ~/sudoers",
    "HOME=/usr/bin; cp x ~/ls",
]

NEAR_MISSES = ["HOME=/tmp/h; rm -rf ~/x", "cd ~; ls", "HOME=$PWD; ls ~"]


@pytest.mark.parametrize("command", PAYLOADS)
def test_a_tilde_follows_the_home_the_line_set(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


def test_a_tilde_under_a_root_home_is_hardline(engine: Engine) -> None:
    verdict = judge(engine, "HOME=/; rm -rf ~/usr")
    assert (verdict.decision, verdict.hardline) == ("deny", True)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_homes_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_the_shell_does_write_through_the_new_home(tmp_path: Path) -> None:
    # what the verdict is about: bash expands ~ to the HOME set earlier on the line
    target = tmp_path / "elsewhere"
    target.mkdir()
    _, _, printed = run_confined(tmp_path, f"HOME={target}; echo planted > ~/x; cat {target}/x")
    assert "planted" in printed
