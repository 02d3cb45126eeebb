"""home51: the user's own files outside the project, and file changes run as another user.

The family: a plain file of the user's outside the working tree (``~/notes.txt``, ``~/Documents/thesis.tex``,
``../sibling-project/src/x.py``) written over, truncated or deleted by an ordinary program. The engine protected
credential folders, shell start-up files, the home's dot folders and the project's .git, but `echo gone >
~/notes.txt`, `cp x ~/notes.txt`, `sed -i d ~/notes.txt`, `dd of=$HOME/notes.txt`, `rm ~/notes.txt`, an inline
program's `open(..., 'w')` and `rm ../sibling/src/x.py` were all allowed and destroyed the file.

Fixed: the path class ``user_file`` (policies/paths.yaml: anywhere in a home but its cache, or beside the tree) is
read on disk by a live engine (paths.View._user_file): a word keeps it only when it names an existing file, not a
folder, whose real path is outside the working tree. The pattern ``user_file_destroyed`` (policies/delete.yaml) asks
for such a file written over by a truncating redirection (``>``, ``>|``, ``&>``; not ``>>``), ``tee`` (not ``-a``),
``dd of=``, a copy/move/install/link over it, an in-place edit (sed -i, perl -pi, gawk inplace, ex), a download
(curl -o, wget -O), or deleted/truncated one by one (rm, unlink, shred, truncate); the writers' table and inline
programs reach it as ``tee PATH``. A new file, a folder, the home's cache, temp folders and files in the tree stay
allowed. And ``privileged_file_change`` (policies/exec.yaml): a program that deletes, overwrites, moves or re-owns
files run through sudo/doas/pkexec/run0/runuser/su asks (`sudo rm secret.db`, `sudo -u root rm -rf ./x`).

Open (noticed, not fixed): moving a user file away (`mv ~/notes.txt /tmp/x`) is allowed: the file survives
elsewhere, and `mv ~/Downloads/x.zip .` is an everyday command.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, strictness
from tests.redteam.harm import blocked, harm_project, project_in_home, run_confined, said

# Each destroys ~/notes.txt (truncated, overwritten or deleted) when bash runs it in a fresh fake home.
HOME_PAYLOADS = [
    "echo gone > ~/notes.txt",
    ": >| ~/notes.txt",
    "echo gone &> ~/notes.txt",
    "echo gone | tee ~/notes.txt",
    "echo gone > a.txt && cp a.txt ~/notes.txt",
    "echo gone > a.txt && mv a.txt ~/notes.txt",
    "echo gone > a.txt && install a.txt ~/notes.txt",
    "echo gone > a.txt && ln -sf a.txt ~/notes.txt",
    "echo gone > a.txt && cp -t ~ a.txt && mv ~/a.txt ~/notes.txt",
    "sed -i d ~/notes.txt",
    "perl -pi -e 's/keep/lost/' ~/notes.txt",
    "truncate -s0 ~/notes.txt",
    "dd if=/dev/null of=$HOME/notes.txt status=none",
    "rm ~/notes.txt",
    'rm -f "$HOME/notes.txt"',
    "unlink ~/notes.txt",
    "python3 -c \"open('$HOME/notes.txt', 'w')\"",
    "sort -o ~/notes.txt /dev/null",
    "echo ~/notes.txt | xargs rm",
    "cd ~ && echo gone > notes.txt",
    "cd .. && rm home/notes.txt",
]

# The same files in the engine's reading, judged only (no live run needed: each is a spelling of one above).
HOME_SPELLINGS = [
    "curl -s -o ~/notes.txt file:///dev/null",
    "wget -q -O ~/notes.txt http://example.com/x",
    "cat a.txt > /HOME/notes.txt",
    "rsync a.txt ~/notes.txt",
    "shred -u ~/notes.txt",
    "gawk -i inplace 1 ~/notes.txt",
    "ex -sc '%d|x' ~/notes.txt",
    "node -e \"require('fs').writeFileSync(process.env.HOME + '/notes.txt', '')\"",
    "ln -s ~/notes.txt link.txt && echo x > link.txt",
]

# Everyday commands that must stay allowed next to them.
NEAR_MISSES = [
    "echo x > /dev/null",
    "ls 2>&1",
    "make 2>&1 | tail -n 5",
    "echo x > /tmp/home51-near.txt",
    'F=$(mktemp) && echo x > "$F"',
    "rm ~/.cache/pip/x.whl",
    "echo done >> ~/notes.txt",
    "echo done | tee -a ~/notes.txt",
    "tee -a build.log < a.txt",
    "echo x > out.txt",
    "echo x > a.txt",
    "cp a.txt /tmp/",
    "cp ~/notes.txt ./copy.txt",
    "cat ~/notes.txt",
    "sed -n 1p ~/notes.txt",
    "dd if=$HOME/notes.txt of=copy.txt status=none",
    "echo x > ~/new-file.txt",
    "cp a.txt ~/Documents/",
    "cp a.txt ~/",
    "rm a.txt",
    "curl -o page.html https://example.com/",
    "sudo apt-get install -y jq",
    "sudo mkdir -p /opt/app",
    "sudo ls -la",
    "sudo cat /var/log/syslog",
]

# Run as another user: each file change asks, and is never judged more leniently than the same command unprivileged.
PRIVILEGED = [
    "sudo rm secret.db",
    "sudo -u root rm -rf ./x",
    "doas rm secret.db",
    "pkexec rm secret.db",
    "run0 rm secret.db",
    "sudo sh -c 'rm secret.db'",
    "su -c 'rm secret.db'",
    "sudo cp a.txt b.txt",
    "sudo sed -i s/a/b/ a.txt",
    "sudo chown -R root ./build",
    "sudo find . -name '*.log' -delete",
    "sudo rm ~/notes.txt",
    "sudo tee ~/notes.txt < a.txt",
]


@pytest.fixture
def loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    """A fresh project with a fake home (its key and note), ~/Documents, a sibling project with a source file, and
    a.txt in the project, all older than the session (a file made in it would be the session's own)."""
    (tmp_path / "home" / "Documents").mkdir(parents=True)
    sibling = tmp_path / "sibling" / "src"
    sibling.mkdir(parents=True)
    (sibling / "x.py").write_text("print('mine')\n")
    with harm_project(tmp_path, monkeypatch) as loaded:
        _, home, root = loaded
        (root / "a.txt").write_text("a\n")
        old = time.time() - 3600
        for path in (home / "notes.txt", home / "Documents", sibling / "x.py", root / "a.txt"):
            os.utime(path, (old, old))
        yield loaded


def _decision(engine: Engine, command: str) -> str:
    return engine.check(command).decision


@pytest.mark.parametrize("payload", HOME_PAYLOADS)
def test_a_home_file_destroyed_live_and_stopped(
    tmp_path: Path, loaded: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = loaded
    live, _, _ = run_confined(tmp_path / "unguarded", payload)
    assert not home_intact(live), f"the payload should destroy ~/notes.txt unguarded: {payload}"
    blocked(engine, home, payload)


@pytest.mark.parametrize("command", HOME_SPELLINGS)
def test_other_spellings_of_the_home_file_are_not_allowed(loaded: tuple[Engine, Path, Path], command: str) -> None:
    engine, home, _ = loaded
    command = command.replace("/HOME", str(home))
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


@pytest.mark.parametrize("payload", ["rm ../sibling/src/x.py", "echo gone > ../sibling/src/x.py"])
def test_a_sibling_project_file_destroyed_live_and_stopped(
    tmp_path: Path, loaded: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, root = loaded
    live = tmp_path / "unguarded" / "sibling" / "src"
    live.mkdir(parents=True)
    (live / "x.py").write_text("print('mine')\n")
    run_confined(tmp_path / "unguarded", payload.replace("../sibling", "../../sibling"))
    assert not (live / "x.py").is_file() or (live / "x.py").read_text() != "print('mine')\n", payload
    result = engine.call("terminal", {"command": payload})
    assert not result.ok and result.error is not None and result.error.type == "pending_approval", payload
    assert (root.parent / "sibling" / "src" / "x.py").read_text() == "print('mine')\n"
    assert home_intact(home)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(loaded: tuple[Engine, Path, Path], command: str) -> None:
    engine, _, _ = loaded
    verdict = engine.check(command)
    assert verdict.decision == "allow", said(command, verdict)


def test_a_file_made_after_a_check_is_read_afresh(loaded: tuple[Engine, Path, Path]) -> None:
    """A new name is no user's file; once the file exists, the same command asks (the class is read on disk at each
    check, never kept from an earlier one)."""
    engine, home, _ = loaded
    command = "echo x > ~/later.txt"
    assert _decision(engine, command) == "allow"
    (home / "later.txt").write_text("the user's\n")
    assert _decision(engine, command) == "ask"
    (home / "later.txt").unlink()
    assert _decision(engine, command) == "allow"


def test_a_folder_is_no_user_file_but_a_file_copied_over_inside_it_is(loaded: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = loaded
    assert _decision(engine, "cp a.txt ~/Documents/") == "allow"
    (home / "Documents" / "a.txt").write_text("the user's\n")
    assert _decision(engine, "cp a.txt ~/Documents/") == "ask"


@pytest.fixture(scope="module")
def in_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with project_in_home(tmp_path_factory, "home51_in_home", ("src",)) as loaded:
        yield loaded


def test_a_project_inside_the_home_keeps_its_own_files_allowed(in_home: tuple[Path, Engine]) -> None:
    """The tree at ~/p: its files spelled through the home are the project's (read by their real path)."""
    root, engine = in_home
    (root / "src" / "old.txt").write_text("x\n")
    old = time.time() - 3600
    os.utime(root / "src" / "old.txt", (old, old))
    for command in ("rm ~/p/src/old.txt", "echo x > ~/p/src/old.txt", "sed -i d $HOME/p/src/old.txt"):
        verdict = engine.check(command)
        assert verdict.decision == "allow", said(command, verdict)
    verdict = engine.check("rm ~/notes.txt")
    assert verdict.decision == "ask", said("rm ~/notes.txt", verdict)


@pytest.mark.parametrize("command", PRIVILEGED)
def test_a_file_change_run_as_another_user_asks(loaded: tuple[Engine, Path, Path], command: str) -> None:
    engine, _, _ = loaded
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


@pytest.mark.parametrize(
    "command",
    ["rm secret.db", "rm -rf ./x", "rm -rf ~", "echo gone > ~/notes.txt", "ls", "cat a.txt", "rm ~/.ssh/id_ed25519"],
)
@pytest.mark.parametrize("wrapper", ["sudo", "sudo -u root", "doas", "pkexec"])
def test_privileged_is_never_more_lenient(loaded: tuple[Engine, Path, Path], wrapper: str, command: str) -> None:
    engine, _, _ = loaded
    plain = engine.check(command)
    wrapped = f"{wrapper} {command}" if ">" not in command else f"{wrapper} sh -c '{command}'"
    privileged = engine.check(wrapped)
    assert strictness(privileged) >= strictness(plain), (said(command, plain), said(wrapped, privileged))


def test_a_link_in_the_tree_to_the_users_file_is_still_read_by_the_fold(in_home: tuple[Path, Engine]) -> None:
    """stop 52: a plain name in the working directory is no longer read by user_file's globs (`~/**`, `/root/**`,
    `/home/*/**`): with them every name of a project in a home was touched and the flat scan's fold said nothing
    plain (test_plain_touched failed in CI's checkout under /root). A name there is in the working tree, never a
    user_file, but a link in it landing on the user's file is touched (and writing through it asks)."""
    root, engine = in_home
    home = root.parent
    (root / "linked.txt").unlink(missing_ok=True)
    (root / "linked.txt").symlink_to(home / "notes.txt")
    view = engine._evaluator(engine._snapshot).classifier.view()
    touched = view.plain_touched(b"a1\nREADME.md\nlinked.txt\n.env")
    assert touched is not None and {b"linked.txt", b".env"} <= touched
    assert "linked.txt" not in view.classify_plain(["a1", "README.md", "linked.txt"])
    for command in ("echo gone > linked.txt", "sed -i d linked.txt", "cp README.md linked.txt"):
        verdict = engine.check(command)
        assert verdict.decision != "allow", said(command, verdict)
    assert engine.check("echo x > a1").decision == "allow"
