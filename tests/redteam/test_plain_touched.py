"""The flat scan's fold reads thousands of plain names at once (View.plain_touched): a name whose
only class may not be `relative` where the check runs is never folded. Since stop 29 (flat29) the
names are read alone, by what each class glob asks of a name once the working directory's path has
matched its start (paths._relative_glob), not each prefixed with that path: the same names must be
found, in a project under HOME, in a folder of its `.git`, in the engine's own tree, elsewhere."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.paths import _relative_glob
from tests.conftest import REPO


def _names(globs: list[str]) -> list[str]:
    """Names close to every glob's pieces (as spelled, altered, in capitals) and plain ones."""
    names = {"a1", "notes.txt", "policies", ".git", ".env", "id_rsa", "x.pem", "hermes-engine.yaml"}
    for glob in globs:
        for piece in re.split(r"[/{},]", glob):
            word = re.sub(r"[*?\[\]!\\]", "", piece)
            if word and "\n" not in word:
                names.update({word, word + "x", "a" + word, word.upper()})
    return sorted(names)


@pytest.mark.parametrize(
    ("home", "where"),
    [
        ("home", "home/proj/.git/hooks"),
        ("home", "repo"),
        ("home", "repo/docs"),
        ("repo/tests", "repo/tests/redteam"),  # `~/redteam/` too
        ("repo/tests", "repo/tests"),  # `~/`
    ],
)
def test_names_read_alone_are_touched_as_when_read_with_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: str, where: str
) -> None:
    def place(spelled: str) -> Path:
        return REPO / spelled[5:] if spelled.startswith("repo") else tmp_path / spelled

    monkeypatch.setenv("HOME", str(place(home)))
    work = place(where)
    work.mkdir(parents=True, exist_ok=True)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    try:
        classifier = engine._evaluator(engine._snapshot).classifier
        view = classifier.view()
        assert classifier._relative_finders(str(work)) is not None
        names = _names(classifier._declared_globs + classifier._here_globs)
        alone = {n for n in names if view.plain_touched(n.encode())}
        classifier._relative[str(work)] = None  # read as before: each name after the folder's path
        prefixed = {n for n in names if view.plain_touched(n.encode())}
    finally:
        engine.close()
    assert alone == prefixed
    # Under /tmp or in HOME every name is held (`/tmp/**`, `~/*`): a checkout under /tmp (CI's
    # fresh clone) says nothing here.
    under_tmp = REPO.resolve().is_relative_to("/tmp") or REPO.resolve().is_relative_to(tempfile.gettempdir())
    if where.startswith("repo") and where != home and not under_tmp:
        assert "a1" not in alone and ".env" in alone and len(alone) < len(names)


@pytest.mark.parametrize(
    ("glob", "folder", "expected"),
    [
        ("/etc/**", "/etc/", ["**"]),
        ("/etc/*.conf", "/etc/", ["*.conf"]),
        ("/etc/*.conf", "/tmp/", []),
        ("/home/*/.ssh/id_*", "/home/me/", []),
        ("/home/*/.ssh/*", "/home/me/.ssh/", ["*"]),
        ("**/.env", "/a/b/", [".env"]),
        ("**/.git/**", "/a/.git/hooks/", ["**"]),
        ("**/.git/**", "/a/b/", []),
        ("**/.git/config", "/a/.git/", ["config"]),
        ("{~,/root}/.aws/{credentials,config}", "~/.aws/", ["credentials", "config"]),
        ("~/*", "~/", ["*"]),
        ("/", "/a/", []),
        ("/\\*", "/", ["\\*"]),
        ("!/etc/x", "/etc/", []),
        ("/tmp/[ab]*", "/tmp/", None),  # a class: read with the folder before each name
        ("/a/**/b/c", "/a/x/", []),
        ("/a/**/b/c", "/a/x/b/", ["c"]),
        ("/a/**x/c", "/a/b/", None),  # a `**` inside a segment of the folder's part
    ],
)
def test_what_a_glob_asks_of_a_name_in_a_folder(glob: str, folder: str, expected: list[str] | None) -> None:
    assert _relative_glob(glob, folder) == expected


def test_many_names_a_glob_holds_are_read_in_linear_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Under /tmp every name is held (`/tmp/**`: `**` on the name alone). A `*` of the names-alone
    # finder that ran on over the lines made each of 16,000 matches a search to the text's end.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    work = tmp_path / "home" / "w"
    work.mkdir(parents=True)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    try:
        view = engine._evaluator(engine._snapshot).classifier.view()
        names = "\n".join(f"a{i}" for i in range(16000)).encode()
        started = time.thread_time()
        touched = view.plain_touched(names)
        spent = time.thread_time() - started
    finally:
        engine.close()
    assert touched is not None and len(touched) == 16000
    assert spent < 5.0  # ~0.1 s here; quadratic, it took minutes
