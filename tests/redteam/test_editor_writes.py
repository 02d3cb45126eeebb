"""Editors and in-place edits run from the command line write what they are given.

`ex -sc '%d|x' policies/delete.yaml`, `vim -es -c '%d' -c wq hermes-engine.yaml` and
`gawk -i inplace … policies/x.yaml` emptied the engine's own files (allowed, while `sed -i`
was a hardline deny); `ex -sc '$a|…' -cx ~/.bashrc` and `gawk -i inplace … ~/.bashrc` edit a
start-up file.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import judge


@pytest.fixture(scope="module")
def project_engine() -> Iterator[Engine]:
    """The repository's engine working in the repository itself: its policies are engine files."""
    engine = Engine.load(REPO, config={"workdir": str(REPO)})
    yield engine
    engine.close()


ENGINE_FILES = [
    "awk -i inplace '{print}' policies/delete.yaml",
    "gawk -i inplace 'NR>1' hermes-engine.yaml",
    "ex -sc '%d|x' policies/delete.yaml",
    "vim -es -c '%d' -c 'wq' hermes-engine.yaml",
    "nvim --headless -c '%d|wq' manifests/terminal.yaml",
]

START_UP = ["ex -sc '$a|rm -rf ~' -cx ~/.bashrc", "gawk -i inplace '{print}' ~/.bashrc"]

NEAR_MISSES = ["vim src/main.py", "awk '{print}' policies/delete.yaml", "view policies/delete.yaml"]


@pytest.mark.parametrize("command", ENGINE_FILES)
def test_an_editor_writing_engine_files_is_hardline(project_engine: Engine, command: str) -> None:
    verdict = judge(project_engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", START_UP)
def test_an_editor_writing_a_start_up_file_asks(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_reading_and_ordinary_editing_stay_allowed(project_engine: Engine, command: str) -> None:
    assert judge(project_engine, command).decision == "allow", command
