"""Red team, stop 51, debt51: last stop's debt, and the link at the last name of a path below an unpacked tree.

The family (link50's): a tree a clone, an archive unpacked or a checkout writes may hold symlinks (git stores them as
blobs of mode 120000, tar and zip store them). A later word of the same line is read from the disk as it is today (no
link there yet), so the caller who controls the repository or the archive reaches any file of the home. link50 read
a word that goes THROUGH a name of that tree (`git clone URL r; rm -rf r/h/*`, h -> ~) as going through a link to the
home, for the programs of shell.py's `_WRITES_THROUGH` set and a redirection's target. Two readings stayed open:

- the LAST name of the word being a link to a file, which a program opens and writes (`git clone URL r; cp x r/n`,
  `echo x > r/n`, `tee r/n`, `truncate -s 0 r/n`, `chmod 600 r/n` with n -> ~/.bashrc or ~/notes.txt): allowed;
- a READ through such a path (`git clone URL r; cat r/h/.bash_history`, `tar czf x.tgz r/h/`): judged as a read of the
  clone's own file, allowed unless the file's name alone was a secret's.

Fixed (debt51): who writes through which words is data, the Programs table's `writes_through:` field (policies/
executors.yaml: `{words: every|last, last_name: true}`; rows of their own for rmdir, unlink, shred, truncate, tee,
touch, setfacl, chattr, which nothing else describes and whose words stay an undescribed program's), with
`writes_through:` / `not_writes_through:` examples that `hermes-engine validate` runs. shell.Analyzer._through_unknown
reads it: a `last_name:` program's written words (cp's destination, tee's, chmod's) and a redirection's target are
read, at their last name below a folder the line NAMED (a clone's DIR, `tar -C D`, `unzip -d D`, a copy's
destination), as a link to a file of the home only the run knows (`~/$LINKED`: asks, write_computed_target). Every
other program's words are read through a name below such a folder (the read side). The gate is the line having an
unpacker (Analyzer.unknown_made) and a word with a `/` or a redirection: `git status && git log` works out nothing.

Decisions (near misses): the unpacker's own working folder is not read so at the last name, nor for a reader (`git
pull && cp a.txt b.txt`, `git clone URL r && echo done > log.txt`, `git checkout main && touch a.py` stay allowed:
every write into the project after a pull would ask); rm, rmdir, unlink, mv, install, rsync and ln replace or remove
a link at the last name, they do not write through it (`git clone URL r; rm -rf r/n`, `mv x r/n` stay allowed; install
shown live below).

Open: a read or a last-name write through the unpacker's own folder (`git pull; cat h/.bash_history`, `git pull; cp x
n`), by the decision above: strict xfails below, with their harm live.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.programs import _read_through
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    GIT,
    Case,
    assert_verdict,
    linked_repo,
    needs_git,
    run_confined,
    small_tree,
    tree_project,
    verdict_cases,
)

_URL = "https://example.org/r"


def _linked_repo(link: str, target: str) -> str:
    """A source repository `src` whose tree holds ``link`` -> ``target``, and a file x holding `owned`."""
    return linked_repo(link, target, "echo owned > x")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with tree_project(tmp_path_factory, "debt51") as project:
        yield project


# -- the verdicts (each in its own session of the shared project) ---------------------------------------------------
PAYLOADS: dict[str, Case] = {
    "cp-last-name": ({}, f"git clone {_URL} r; cp x r/n"),
    "redirect-last-name": ({}, f"git clone {_URL} r; echo x > r/n"),
    "append-last-name": ({}, f"git clone {_URL} r && cd r && echo x >> n"),
    "tee-last-name": ({}, f"git clone {_URL} r; echo x | tee r/n"),
    "truncate-last-name": ({}, f"git clone {_URL} r; truncate -s 0 r/n"),
    "cd-cp-last-name": ({}, f"git clone {_URL} r && cd r && cp ../x n"),
    "tar-C-cp-last-name": ({}, "tar xf a.tar -C out; cp evil out/n"),
    "unzip-d-tee": ({}, "unzip -q a.zip -d out && date | tee -a out/n"),
    "read-history": ({}, f"git clone {_URL} r; cat r/h/.bash_history"),
    "read-tar-C": ({}, "tar xf a.tar -C x; cat x/h/.bash_history"),
    "pack-home": ({}, f"git clone {_URL} r; tar czf x.tgz r/h/"),
    "grep-home": ({}, f"git clone {_URL} r && grep -r token r/h/"),
}
NEAR_MISSES: dict[str, Case] = {
    "clone-cp-from": ({}, f"git clone {_URL} r && cp r/conf/a.json ."),
    "clone-cat": ({}, f"git clone {_URL} r && cat r/README.md"),
    "clone-log": ({}, f"git clone {_URL} r && echo done > log.txt"),
    "clone-rm-name": ({}, f"git clone {_URL} r; rm -rf r/n"),
    "clone-mv-onto": ({}, f"git clone {_URL} r; mv x r/n"),
    "clone-ln-onto": ({}, f"git clone {_URL} r; ln -sf /tmp/x r/n"),
    "pull-cp": ({}, "git pull && cp a.txt b.txt"),
    "pull-tee": ({}, "git pull && make | tee build.log"),
    "checkout-touch": ({}, "git checkout main && touch a.py"),
    "tar-ls": ({}, "tar xzf dist.tgz -C dist && ls dist/"),
    "status-cat": ({}, "git status && cat src/a.py > out.txt"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_a_link_at_the_last_name_and_reads_through(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


@pytest.mark.parametrize(
    ("command", "reading"),
    [
        (f"git clone {_URL} r; cp x r/n", "cp x ~/$LINKED"),
        (f"git clone {_URL} r; cat r/h/notes.txt", "cat ~/notes.txt"),
        (f"git clone {_URL} r; cat r/h/.bash_history", "cat ~/.bash_history"),
    ],
)
def test_the_reading_names_the_home(loaded: tuple[Path, Engine], command: str, reading: str) -> None:
    """The reading is the link's (via `link`), not another rule: `cat r/h/notes.txt` is read as `cat ~/notes.txt`
    (allowed as that read is), `cat r/h/.bash_history` as the history's read (asks)."""
    table = loaded[1]._snapshot.policy.programs
    assert _read_through(command, table)
    from engine.policy.programs import _no_dash_names
    from engine.policy.shell import Analyzer

    analyzer = Analyzer(table)
    analyzer.dash_names = _no_dash_names
    analyzer.analyze(command)
    assert reading in {c.text for c in analyzer.commands if "link" in c.via}, analyzer.commands


def test_the_note_read_through_the_link_is_judged_as_the_note(loaded: tuple[Path, Engine]) -> None:
    assert loaded[1].check(f"git clone {_URL} r; cat r/h/notes.txt").decision == "allow"
    assert loaded[1].check(f"git clone {_URL} r; cat r/h/.bash_history").decision != "allow"


# -- the table drives it (debt51: shell.py's _WRITES_THROUGH set is the `writes_through:` rows) ---------------------
_MINE = """\
kind: Programs
name: mine
programs:
  - program: [mywipe]
    writes_through: {words: every}
    examples:
      writes_through: ["git pull; mywipe h/*"]
      not_writes_through: ["mywipe h/*"]
"""


def _prepare_mine(root: Path, mp: pytest.MonkeyPatch) -> None:
    small_tree(root, mp)
    (root / "policies" / "mine.yaml").write_text(_MINE)


@pytest.fixture(scope="module")
def mine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with tree_project(tmp_path_factory, "debt51m", _prepare_mine) as project:
        yield project


def test_a_projects_row_makes_a_program_write_through(loaded: tuple[Path, Engine], mine: tuple[Path, Engine]) -> None:
    """`mywipe` is undescribed: in the unpacker's own folder only a writer's words are read through; a project's
    `writes_through:` row makes it one, and the row adds no other description (its words stay undescribed)."""
    line = "git pull; mywipe h/*"
    builtin, project = loaded[1]._snapshot.policy.programs, mine[1]._snapshot.policy.programs
    assert not _read_through(line, builtin)
    assert project.writes_through.get("mywipe") == (False, False)
    assert _read_through(line, project)
    assert project.get("mywipe") is None


@pytest.mark.parametrize(
    ("name", "row"),
    [
        ("rm", (False, False)),
        ("rmdir", (False, False)),
        ("unlink", (False, False)),
        ("find", (False, False)),
        ("cp", (True, True)),
        ("mv", (True, False)),
        ("install", (True, False)),
        ("rsync", (True, False)),
        ("ln", (True, False)),
        ("tee", (False, True)),
        ("shred", (False, True)),
        ("chmod", (False, True)),
        ("chown", (False, True)),
        ("chgrp", (False, True)),
    ],
)
def test_the_builtin_rows(loaded: tuple[Path, Engine], name: str, row: tuple[bool, bool]) -> None:
    assert loaded[1]._snapshot.policy.programs.writes_through.get(name) == row


def test_shred_stays_undescribed(loaded: tuple[Path, Engine]) -> None:
    """A row with only `writes_through:` keeps the program out of by_name (the `*` runs still read its words)."""
    table = loaded[1]._snapshot.policy.programs
    assert table.get("shred") is None and table.get("tee") is None
    assert table.get("cp") is not None


# -- the harms, live ------------------------------------------------------------------------------------------------
@needs_git
@pytest.mark.parametrize("write", ["cp x r/n", "echo owned > r/n", "cat x | tee r/n >/dev/null"])
def test_a_cloned_link_at_the_last_name_written_live(tmp_path: Path, write: str) -> None:
    home, _, printed = run_confined(tmp_path, _linked_repo("n", "$HOME/notes.txt") + f"git clone -q src r; {write}")
    assert (home / "notes.txt").read_text() == "owned\n", printed


@needs_git
def test_a_cloned_link_truncates_the_note_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(
        tmp_path, _linked_repo("n", "$HOME/notes.txt") + "git clone -q src r; truncate -s 0 r/n"
    )
    assert (home / "notes.txt").read_text() == "", printed


@needs_git
def test_a_cloned_link_reads_the_home_live(tmp_path: Path) -> None:
    setup = 'echo "export TOKEN=s3cret" > "$HOME/.bash_history"\n' + _linked_repo("h", "$HOME")
    _, _, printed = run_confined(tmp_path, setup + "git clone -q src r; cat r/h/.bash_history")
    assert "TOKEN=s3cret" in printed


@needs_git
@pytest.mark.parametrize("write", ["rm -rf r/n", "mv x r/n", "install x r/n", "ln -sf /tmp/elsewhere r/n"])
def test_the_near_misses_replace_the_link_live(tmp_path: Path, write: str) -> None:
    """Why rm, mv, install and ln have no `last_name:`: they remove or replace the link, the note is untouched."""
    home, _, printed = run_confined(tmp_path, _linked_repo("n", "$HOME/notes.txt") + f"git clone -q src r; {write}")
    assert home_intact(home), printed


# -- open -----------------------------------------------------------------------------------------------------------
@needs_git
def test_a_pulled_link_at_the_last_name_written_live(tmp_path: Path) -> None:
    """The open item's harm: a branch brings `n -> ~/notes.txt` into the project's own folder; `cp x n` writes it."""
    setup = (
        f"git init -q && {GIT} commit -q --allow-empty -m a && git checkout -qb evil && "
        f'ln -s "$HOME/notes.txt" n && git add -A && {GIT} commit -qm b && git checkout -q - && echo owned > x\n'
    )
    home, _, printed = run_confined(tmp_path, setup + "git merge -q evil && cp x n")
    assert (home / "notes.txt").read_text() == "owned\n", printed


@pytest.mark.xfail(
    strict=True,
    reason="open (decision: near misses): the unpacker's own folder is not read at the last name nor for a reader: "
    "`git pull && cp x n` (n -> ~/notes.txt) and `git pull; cat h/.bash_history` (h -> ~) are allowed",
)
@pytest.mark.parametrize("command", ["git pull && cp x n", "git pull; cat h/.bash_history"])
def test_open_the_unpackers_own_folder(loaded: tuple[Path, Engine], command: str) -> None:
    assert loaded[1].check(command).decision != "allow"
