"""adv25 (links): `diff -r` follows the symbolic links in the trees it compares (unless
--no-dereference), and `diff -rN TREE empty` prints every file of TREE as added lines. With
`src/h -> ../../home` (a link naming no secret, allowed), `diff -rN src empty` printed
~/.ssh/id_ed25519; `diff -rN ~ empty` itself was allowed. Now diff is a link-following reader
(links.FOLLOWING_UNLESS) and a recursive diff of a folder above secrets reads them
(policies/secrets.yaml credential_read)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.harm import SECRET


@pytest.fixture
def linked(tmp_path: Path, work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """The repository's engine in ``work`` (with `src/a.txt` and an empty `empty/`), HOME its sibling."""
    assert fake_home.parent == work.parent == tmp_path
    (work / "src").mkdir()
    (work / "empty").mkdir()
    (work / "src" / "a.txt").write_text("a\n")
    monkeypatch.chdir(work)
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


def _printed(engine: Engine, command: str) -> tuple[bool, str]:
    result = engine.call("terminal", {"command": command}, session_id="s1")
    return result.ok, (result.output or "") + (result.error.message if result.error else "")


@pytest.mark.parametrize("link", ["ln -s ../../home src/h", "ln -s ../.. src/up"])
@pytest.mark.parametrize("reader", ["diff -rN src empty", "diff -r src empty", "diff --recursive -N src empty"])
def test_diff_r_through_a_link_to_home(linked: Engine, link: str, reader: str) -> None:
    made, _ = _printed(linked, link)
    assert made, link
    ok, printed = _printed(linked, reader)
    assert not ok, reader
    assert SECRET not in printed, "the key was printed"


def test_diff_r_of_home(linked: Engine) -> None:
    ok, printed = _printed(linked, "diff -rN ~ empty")
    assert not ok
    assert SECRET not in printed


@pytest.mark.parametrize(
    "command",
    [
        "diff -ru src empty",
        "diff -u src/a.txt empty/a.txt",
        "diff -ruN src empty > changes.patch",
        "git diff --no-index src empty",
    ],
)
def test_near_misses_stay_allowed(linked: Engine, command: str) -> None:
    # no link in the trees: an ordinary recursive diff
    assert linked.check(command).decision == "allow", command


def test_no_dereference_compares_the_links(linked: Engine) -> None:
    made, _ = _printed(linked, "ln -s ../../home src/h")
    assert made
    assert linked.check("diff -ru --no-dereference src empty").decision == "allow"
