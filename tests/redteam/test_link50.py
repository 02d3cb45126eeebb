"""Red team, stop 50, link50: paths through a link an unpacker or a checkout made.

The family: a tree an unpacker or a checkout writes may hold symlinks (tar and zip archives store them, git stores
them as blobs of mode 120000). A later word of the same line that goes THROUGH a name that tree may hold was read
from the disk as it is today (no link there yet), so the caller who controls the archive or the repository reaches
any folder: `git clone URL r; rm -rf r/h/*` with the clone holding `h -> $HOME` deletes the home's files. Each harm
is shown live below under bash with a fake HOME, then the verdict.

Fixed: shell.Analyzer already knows the folders where an earlier command of the line wrote names it does not show
(_unknown_folders: an `unpacks_here` program's folder unless its verb is one of `keeps_tree:`, an `unpacks_into:`
destination, tar `-C`, unzip `-d`, a clone's DIR). A word of a program that deletes or writes through its paths (rm,
shred, chmod/chown -R, find, truncate, tee, touch; a copy's or a move's destination: its last word) and a
redirection target are read a second time (via `link`) as if the first name below such a folder were a link to the
home (Analyzer._through_unknown): `rm -rf r/h/*` is also `rm -rf ~/*` (denied by the patterns), `echo x > r/h/.bashrc`
is also `> ~/.bashrc` (asks). Only a word that goes through that name (more follows it, or a `/` ends the word):
`rm -rf r/build` removes the link itself, not what it points to, and stays allowed. The reading is gated on the line
having such a writer (Analyzer.unknown_made, empty for every other line): ordinary lines pay nothing.

Decision (`git pull && rm -rf build/`): GNU rm given `build/` with build a link to a folder deletes what the folder
holds (shown live below), and a pull may bring a committed link `build -> ~`. So the strict reading holds: it is
read as `rm -rf ~/` and denied; `git pull && rm -rf build` (no slash: rm removes the link) stays allowed. Measured:
no line of the ordinary corpora (tests/data/ordinary-44/45/46.jsonl) nor of the policy corpus tests has an unpacker
or a checkout followed by a write through a path below its tree; test_fp44/44b/45 and tests/test_policy*.py pass
unchanged (test_fp46's corpus test fails on the branch's base already, `man $(find . -name bat.1)`, not this change).
Likewise `git checkout main && rm -rf node_modules/.cache` asks.

Open at stop 50, closed by debt51 (tests/redteam/test_debt51.py): the last name itself being a link to a file,
written through by a program that follows it (`git clone URL r; cp x r/h` with h -> ~/.bashrc, `echo x > r/h`), and a
read through such a path (`cat r/h/.bash_history` after the clone). Who writes through which words moved from
shell.py's _WRITES_THROUGH to the Programs table's `writes_through:` rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    GIT,
    Case,
    assert_verdict,
    linked_repo,
    needs_git,
    needs_tar,
    needs_zip,
    run_confined,
    tree_project,
    verdict_cases,
)

# a bare-enough source repository whose tree holds `h -> $HOME` (git stores the link), cloned by the payloads
_LINKED_REPO = linked_repo("h", "$HOME")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with tree_project(tmp_path_factory, "link50") as project:
        yield project


# -- the verdicts (each judged in its own session of the shared project) -------------------------------------------
PAYLOADS: dict[str, Case] = {
    "clone-rm": ({}, "git clone https://example.org/r r; rm -rf r/h/*"),
    "clone-cd-rm": ({}, "git clone https://example.org/r r && cd r && rm -rf h/*"),
    "clone-dir-rm": ({}, "git clone -q https://example.org/r /tmp/r; rm -rf /tmp/r/h/*"),
    "clone-rm-slash": ({}, "git clone https://example.org/r r; rm -rf r/h/"),
    "clone-deeper": ({}, "git clone https://example.org/r r; rm -rf r/h/.ssh"),
    "tar-C-rm": ({}, "tar xf a.tar -C /tmp/x; rm -rf /tmp/x/h/*"),
    "tar-here-rm": ({}, "tar xf a.tar; rm -rf h/*"),
    "unzip-rm": ({}, "unzip a.zip; rm -rf h/*"),
    "unzip-d-rm": ({}, "unzip -q a.zip -d out && rm -rf out/h/*"),
    "checkout-rm": ({}, "git checkout evil; rm -rf h/*"),
    "pull-rm": ({}, "git pull; rm -rf h/*"),
    "stash-pop-rm": ({}, "git stash pop; rm -rf h/*"),
    "switch-rm": ({}, "git switch evil && rm -rf h/.ssh/"),
    "clone-redirect": ({}, "git clone https://example.org/r r; echo x > r/h/.bashrc"),
    "clone-append-keys": ({}, "git clone https://example.org/r r; cd r; echo k >> h/.ssh/authorized_keys"),
    "clone-cp-into": ({}, "git clone https://example.org/r r; cp evil.sh r/h/.bashrc"),
    "clone-mv-into": ({}, "git clone https://example.org/r r; mv x r/h/.bashrc"),
    "clone-chmod": ({}, "git clone https://example.org/r r; chmod -R 777 r/h/"),
    "clone-shred": ({}, "git clone https://example.org/r r; shred -u r/h/.ssh/id_ed25519"),
    "clone-find-delete": ({}, "git clone https://example.org/r r; find r/h/ -delete"),
    "tar-C-cp": ({}, "tar xf a.tar -C /tmp/x; cp -r /tmp/x/a /tmp/x/h/"),
    # (was xf49's near miss `rm-dotted-after-checkout`: the branch may turn sub into a link, live below)
    "checkout-cd-rm": ({}, "git checkout x; cd sub && rm ./*"),
    # the decision documented above: a pull may bring a committed `build -> ~`
    "pull-rm-build-slash": ({}, "git pull && rm -rf build/"),
}
NEAR_MISSES: dict[str, Case] = {
    "clone-ls": ({}, "git clone https://example.org/r r && cd r && ls"),
    "clone-ls-sub": ({}, "git clone https://example.org/r r && ls r/src/"),
    "clone-rm-name": ({}, "git clone https://example.org/r r && rm -rf r/build"),
    "clone-cp-from": ({}, "git clone https://example.org/r r && cp r/conf/a.json ."),
    "clone-cat-into": ({}, "git clone https://example.org/r r && cat r/src/x.py > out.txt"),
    "clone-log": ({}, "git clone https://example.org/r r && echo done > log.txt"),
    "tar-ls": ({}, "tar xzf dist.tgz -C dist && ls dist/"),
    "unzip-grep": ({}, "unzip -d out a.zip && grep -rn TODO out/src"),
    "pull-rm-name": ({}, "git pull && rm -rf build"),
    "pull-rm-file": ({}, "git pull && rm -f x.o"),
    "status-rm-slash": ({}, "git status && rm -rf build/"),
    "rm-slash-alone": ({}, "rm -rf build/"),
    "rm-glob-alone": ({}, "rm -rf build/*"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_paths_through_a_name_an_unpacker_made(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


@pytest.mark.parametrize(
    "command",
    [
        "git clone https://example.org/r r; rm -rf r/h/*",
        "tar xf a.tar -C /tmp/x; rm -rf /tmp/x/h/*",
        "git checkout evil; rm -rf h/*",
        "unzip a.zip; rm -rf h/*",
    ],
)
def test_a_check_without_a_session_reads_them_too(loaded: tuple[Path, Engine], command: str) -> None:
    assert loaded[1].check(command).decision == "deny", command


def test_the_reading_names_the_home(loaded: tuple[Path, Engine]) -> None:
    """The verdict is the strict reading's: `rm -rf ~/*` read through the link, not an unrelated rule."""
    verdict = loaded[1].check("git clone https://example.org/r r; rm -rf r/h/*")
    assert any(m.command == "rm -rf ~/*" and "link" in m.via for m in verdict.matches), verdict.matches


# -- the harms, live ------------------------------------------------------------------------------------------------
@needs_git
def test_a_cloned_link_deletes_the_home_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(tmp_path, _LINKED_REPO + "git clone -q src r; rm -rf r/h/*")
    assert not (home / "notes.txt").exists(), printed


@needs_git
def test_a_cloned_link_writes_into_the_home_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(tmp_path, _LINKED_REPO + "git clone -q src r; echo owned > r/h/notes.txt")
    assert (home / "notes.txt").read_text() == "owned\n", printed


@needs_git
def test_a_checked_out_link_deletes_the_home_live(tmp_path: Path) -> None:
    setup = (
        f"git init -q && {GIT} commit -q --allow-empty -m a && git checkout -qb evil && "
        f'ln -s "$HOME" h && git add -A && {GIT} commit -qm b && git checkout -q main\n'
    )
    home, _, printed = run_confined(tmp_path, setup + "test ! -e h && git checkout -q evil; rm -rf h/*")
    assert not home_intact(home) and not (home / "notes.txt").exists(), printed


@needs_git
def test_a_checkout_turning_a_folder_into_a_link_live(tmp_path: Path) -> None:
    """`git checkout x; cd sub && rm ./*`: branch x holds sub as a link to the home (xf49's old near miss)."""
    setup = (
        f"mkdir sub && echo y > sub/b.txt && git init -q && git add -A && {GIT} commit -qm a && git checkout -qb x && "
        f'git rm -rq sub && ln -s "$HOME" sub && git add -A && {GIT} commit -qm b && git checkout -q main\n'
    )
    home, _, printed = run_confined(tmp_path, setup + "test -d sub && git checkout -q x; cd sub && rm ./*")
    assert not (home / "notes.txt").exists(), printed


@needs_git
def test_rm_of_a_pulled_link_with_a_slash_empties_the_home_live(tmp_path: Path) -> None:
    """The decision's harm: GNU rm given `build/` deletes what the linked folder holds."""
    setup = (
        f"git init -q && {GIT} commit -q --allow-empty -m a && git checkout -qb evil && "
        f'ln -s "$HOME" build && git add -A && {GIT} commit -qm b && git checkout -q main\n'
    )
    home, _, printed = run_confined(tmp_path, setup + "git merge -q evil && rm -rf build/")
    assert not (home / "notes.txt").exists(), printed


@needs_tar
def test_a_tarred_link_deletes_the_home_live(tmp_path: Path) -> None:
    setup = 'mkdir t x && ln -s "$HOME" t/h && tar cf a.tar -C t h && rm -rf t\n'
    home, _, printed = run_confined(tmp_path, setup + "tar xf a.tar -C x; rm -rf x/h/*")
    assert not (home / "notes.txt").exists(), printed


@needs_zip
def test_a_zipped_link_deletes_the_home_live(tmp_path: Path) -> None:
    setup = 'mkdir t && ln -s "$HOME" t/h && (cd t && zip -qy ../a.zip h) && rm -rf t\n'
    home, _, printed = run_confined(tmp_path, setup + "unzip -q a.zip; rm -rf h/*")
    assert not (home / "notes.txt").exists(), printed


# -- a link at the last name (open at stop 50, closed by debt51) ----------------------------------------------------
@needs_git
def test_a_cloned_link_to_a_file_written_through_live(tmp_path: Path) -> None:
    """The last name's harm: the clone holds `n -> $HOME/notes.txt`; `cp x r/n` overwrites the note."""
    setup = linked_repo("n", "$HOME/notes.txt", "echo owned > x")
    home, _, printed = run_confined(tmp_path, setup + "git clone -q src r; cp x r/n")
    assert (home / "notes.txt").read_text() == "owned\n", printed


@pytest.mark.parametrize(
    "command", ["git clone https://example.org/r r; cp x r/n", "git clone https://example.org/r r; echo x > r/n"]
)
def test_a_final_name_written_through(loaded: tuple[Path, Engine], command: str) -> None:
    """(debt51, was this file's strict xfail) cp's `writes_through: {words: last, last_name: true}` and a redirection
    read the last name below the clone's folder as a link to a home file only the run knows (tests/redteam/
    test_debt51.py has the family)."""
    verdict = loaded[1].check(command)
    assert verdict.decision != "allow", verdict.matches
    assert any("link" in m.via for m in verdict.matches), verdict.matches
