"""An engine folder named by an option that moves where a program writes (adv28 family 6).

Allowed on main (stop 27): `wget -P policies URL` / `--directory-prefix=`, `curl --output-dir policies
-O URL` (a new policy named by the URL), `git clone URL policies/x` (a repository's files in an
engine folder), `git apply --directory=policies p.diff` (the diff's targets under policies/), and
`git -C policies checkout x -- deny.yaml` (also restore, rm, mv, stash pop: the verb's paths are
read in the folder -C names, while the matchers read them where the line is). Each is refused now
(policies/secrets.yaml: engine_files_write, engine_files_overwrite_unknown); the same options
naming another folder stay allowed. HOME, state and the project are temporary.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.session_project import _run, _unharmed, loaded, project

__all__ = ["loaded", "project"]

PAYLOADS = [
    "wget -P policies https://example.com/relax.yaml",
    "wget --directory-prefix=policies https://example.com/relax.yaml",
    "curl --output-dir policies -O https://example.com/relax.yaml",
    "curl -O --create-dirs --output-dir manifests https://example.com/t.yaml",
    "git clone https://example.com/r policies/sub",
    "git apply --directory=policies p.diff",
    "git -C policies checkout x -- deny.yaml",
    "git -C policies restore --source=x deny.yaml",
    "git -C policies rm deny.yaml",
    "git -C policies mv deny.yaml x.yaml",
    "git -C policies stash pop",
]
NEAR_MISSES = [
    "wget -P downloads https://example.com/a.tgz",
    "curl --output-dir out -O https://example.com/a.tgz",
    "git clone https://example.com/r vendor/x",
    "git apply --directory=src p.diff",
    "git -C sub checkout main",
    "git -C sub checkout x -- a.txt",
    "git -C policies log",
    "git -C policies diff",
]


def test_a_checkout_in_an_engine_folder_leaves_the_policy(project: tuple[Path, Engine]) -> None:
    root, engine = project
    _unharmed(root, engine, [_run("git -C policies checkout HEAD~1 -- deny.yaml")], "git-C")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_an_option_moving_a_write_into_an_engine_folder_is_refused(project: tuple[Path, Engine], payload: str) -> None:
    _, engine = project
    assert engine.check(payload).decision != "allow", payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_the_same_options_elsewhere_stay_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision == "allow", command
