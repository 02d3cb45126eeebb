"""stop 49, xf49 (issue 8): names a line makes before a glob or a listing reads them; packers fed a listing.

The family: an earlier command on the line writes names the line does not show (a checkout, a recursive copy, a
move of a folder), or a listing / a file's text becomes a program's words; a later glob, listing or substitution hands
those names to a program that reads one as an option (`-Ish x.py`, `-delete`, `-rf`) or packs what a link points to.

Found allowed, and fixed (each live below, under bash with a fake HOME):

1. A glob holding a literal `.` was never read as an option after a checkout: `git checkout evil; tar cf a.tar *.py`
   with the branch holding `-Ish x.py` runs `sh x.py` as tar's compressor. Now the `.` keeps a glob from an option
   only for a program none of whose options takes a value holding one (rm; `values:` hold rm's `--interactive=WHEN`)
   (shell._valued_options).
2. cp -r, rsync -a and mv of a folder write names the line does not show into their destination: `cp -r e/. sub/; cd
   sub && find . -del*`, `rsync -a e/ sub/; …`, `mv e sub; …` were allowed. Now a Programs row's `unpacks_into:`
   (cp/gcp: -r -R -a; rsync: -r -a; mv/gmv: always) names the options with which the destination (`-t DIR` or the
   last operand) holds unknown names, as an `unpacks_here` command's folder does (Program.unpacks_target).
3. rm is no `active` program: `git checkout evil; cd sub && rm *` with a checked-out `sub/-rf` deletes sub's folders
   too (live; a checked-out link named `~` is removed as a link, the home stays). Now rm's row says `reads_planted:
   true`: its globs after unknown names are read as an active program's.
4. (adv48c 7) Without a session (`Engine.check`, a guard hook) a packer's names from input nobody can see were
   skipped: `ls ~/.ssh/id_ed25519 | tar -cf - -T -` (`| cpio -o`, `| zip - -@`) printed the key. Now only a listing of
   the working tree is skipped, and not by a packer that dereferences (`--dereference`: tar -h, cpio -L): `ls | tar
   -chf - -T -` with a link k.py -> the key asks, as `tar -chf - *` does (follow._tree_listed, _dereferences).
5. find's expression from a file or a listing: `find . $(cat f.txt)`, `x=$(cat f); find . $x`, `ls | xargs find .`,
   `cat f | xargs -I{} find {} -name x`, `find "$(cat f)" -name x` (a line `-delete` is an action). Now a word a
   substitution or xargs makes in a `deletes_listed:` program's words asks (expression_of_unknown_words), unless it is
   one quoted word after an option word (`-name "$(cat p)"`), starts with a literal (`"./$(…)"`) or prints a path
   (`"$(git rev-parse --show-toplevel)"`) (shell.Analyzer._split_expression).
6. Review mend: git's writes_tree (a parse of its words) ran for every git command; now it runs only where a later
   glob needs it (Analyzer.unknown_made keeps the command).

Open (strict xfails below): tar -C DIR / unzip -d DIR / git clone URL DIR outside the folder (`tar xf a.tar -C
/tmp/x; cd /tmp/x && find . -del*`), a listing piped to zip (which follows links unless -y) or pax -L with a link to
the key. Noticed, not fixed: `git $(cat f.txt)` with f.txt `-c core.fsmonitor=./x.sh status` runs x.sh (allowed; an
unquoted substitution among an active program's words other than find's is not read as its options).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.programs import Program
from tests.conftest import pure_build_only
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    GIT,
    SECRET,
    Case,
    assert_verdict,
    linked_key_tree,
    needs_git,
    run_confined,
    tree_project,
    verdict_cases,
)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with tree_project(tmp_path_factory, "xf49") as project:
        yield project


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with tree_project(tmp_path_factory, "xf49-link", linked_key_tree) as project:
        yield project


# -- 1-3, 5: the verdicts (each judged in its own session of the shared project) ------------------------------------
PAYLOADS: dict[str, Case] = {
    # 1. a glob holding a `.` given to a program an option of which takes any value
    "tar-py-after-checkout": ({}, "git checkout evil; tar cf a.tar *.py"),
    "tar-py-after-pull": ({}, "git pull && tar czf s.tgz *.py"),
    "python-py-after-checkout": ({}, "git checkout evil; python3 *.py"),
    "zip-py-after-unzip": ({}, "unzip -o a.zip; zip x.zip *.py"),
    # 2. a recursive copy's / a move's destination
    "cp-r": ({}, "cp -r e/. sub/; cd sub && find . -del*"),
    "cp-a": ({}, "cp -a e sub; cd sub/e && tar cf x.tar *"),
    "cp-target": ({}, "cp -R -t sub e; cd sub && find . -del*"),
    "cp-into-here": ({}, "cp --recursive e/. .; find . -del*"),
    "rsync": ({}, "rsync -a e/ sub/; cd sub && find . -del*"),
    "rsync-here": ({}, "rsync -r e/ .; tar cf x.tar *"),
    "mv-folder": ({}, "mv e sub; cd sub && find . -del*"),
    "mv-target": ({}, "mv -t sub e; cd sub/e && find . -del*"),
    # 3. rm after names the line does not show
    "rm-after-checkout": ({}, "git checkout evil; cd sub && rm *"),
    "rm-after-tar": ({}, "tar xf a.tar; rm -f ?*"),
    "rm-after-cp": ({}, "cp -r e/. sub/; cd sub; rm -f *"),
    # 5. find's expression from a file or a listing
    "find-substitution": ({}, "find . $(cat f.txt)"),
    "find-variable": ({}, "x=$(cat f.txt); find . $x"),
    "find-backquote": ({}, "find . `cat f.txt`"),
    "find-start-quoted": ({}, 'find "$(cat f.txt)" -name x'),
    "xargs-find-ls": ({}, "ls | xargs find ."),
    "xargs-find-cat": ({}, "cat f.txt | xargs find ."),
    "xargs-find-each": ({}, "cat f.txt | xargs -I{} find {} -name x"),
    "find-or-quoted": ({}, 'find . -name x -o "$(cat f.txt)"'),
}
NEAR_MISSES: dict[str, Case] = {
    "tar-py": ({}, "tar cf a.tar *.py"),
    "ls-py-after-checkout": ({}, "git checkout main; ls *.py"),
    "grep-py-after-checkout": ({}, "git checkout -b x; grep -n foo *.py"),
    "rm-pyc-after-checkout": ({}, "git checkout x; rm *.pyc"),
    # (link50: `git checkout x; cd sub && rm ./*` asks now: the branch may turn sub into a link to the home, live in
    # tests/redteam/test_link50.py)
    "rm-dotted-after-checkout": ({}, "git checkout x; rm ./*.pyc"),
    "status-rm": ({}, "git status; cd sub && rm *.txt"),
    "cp-r-ls": ({}, "cp -r src/. build/; ls build"),
    "rsync-alone": ({}, "rsync -a src/ build/"),
    "cp-file": ({}, "cp a.py b.py; find . -del*"),
    "cp-r-elsewhere": ({}, "cp -r e/. sub/; find . -del*"),
    "cp-r-cat": ({}, "cp -r e/. sub/; cd sub && cat *"),
    "mv-file": ({}, "mv old.py new.py; tar cf a.tar *"),
    "mv-elsewhere": ({}, "mv e sub; find . -del*"),
    "rm-dashdash-after-cp": ({}, "cp -r e/. sub/; cd sub; rm -- x *"),
    "ls-wc": ({}, "ls | wc -l"),
    "ls-py-packed": ({}, "ls *.py | tar -cf - -T -"),
    "find-packed": ({}, "find . -name '*.py' | tar -cf a.tar -T -"),
    "find-name-quoted": ({}, 'find . -name "$(cat p.txt)"'),
    "find-variable-quoted": ({}, 'x=$(cat p.txt); find . -name "$x" -print'),
    "find-toplevel": ({}, "find \"$(git rev-parse --show-toplevel)\" -name '*.py'"),
    "find-prefixed": ({}, 'find "./$(cat d.txt)" -name x'),
    "find-xargs-grep": ({}, "find . -name '*.py' | xargs grep -n TODO"),
    "find-newer": ({}, 'find . -newer "$(ls -t | head -1)"'),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_names_made_before_a_glob_or_a_listing(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- 4. packers fed a listing, judged without a session (Engine.check, what a guard hook asks) ----------------------
@pytest.mark.parametrize(
    "command",
    [
        "ls ~/.ssh/id_ed25519 | tar -cf - -T -",
        "ls ~/.ssh/id_ed25519 | cpio -o",
        "ls ~/.ssh/id_ed25519 | zip - -@",
        "cat names.txt | tar -cf x.tar -T -",
        "ls -1 ~/.ssh | tar -cf - -T -",
    ],
)
def test_a_packer_fed_other_input_is_not_allowed_without_a_session(loaded: tuple[Path, Engine], command: str) -> None:
    assert loaded[1].check(command).decision != "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "ls | tar -chf - -T -",
        "ls -a | tar -chf - -T -",
        "ls | cpio -oL",
        "ls | tar --dereference -cf x.tar -T -",
        "find . | tar -chf - -T -",
    ],
)
def test_a_dereferencing_packer_of_a_listing_with_a_link_to_the_key(linked: tuple[Path, Engine], command: str) -> None:
    assert linked[1].check(command).decision != "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "ls | tar -chf - -T -",
        "ls | cpio -oL > x.cpio",
        "ls | tar -cf - -T -",
        "ls a.py | tar -cf - -T -",
        "ls *.py | tar -cf - -T -",
        "find . -name '*.py' | tar -chf a.tar -T -",
        "git ls-files | tar -cf a.tar -T -",
        "find . | cpio -o > b.cpio",
    ],
)
def test_packers_of_the_tree_stay_allowed_without_a_session(loaded: tuple[Path, Engine], command: str) -> None:
    """No link in the tree: a listing of it packed, dereferenced or not, is the project's own files."""
    assert loaded[1].check(command).decision == "allow", command


# -- the harms, live ---------------------------------------------------------------------------------------------
def _branch(files: str) -> str:
    """A repository whose branch `evil` holds ``files`` (a shell fragment run in the work tree), checked out at main."""
    return (
        f"git init -q -b main && {GIT} commit -q --allow-empty -m a && git checkout -q -b evil && {files} && "
        f"git add -A && {GIT} commit -qm b && git checkout -q main\n"
    )


@needs_git
def test_a_checked_out_dotted_option_runs_a_program_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """1. `*.py` expands to `-Ish x.py x.py`: tar runs `sh x.py` as its compressor, which deletes the note."""
    setup = _branch("printf 'rm -f ~/notes.txt\\n' > x.py && : > './-Ish x.py'")
    home, _, printed = run_confined(tmp_path, setup + "git checkout -q evil; tar cf a.tar *.py")
    assert not (home / "notes.txt").exists(), printed
    home, _, _ = run_confined(tmp_path / "near", setup + "tar cf a.tar *.py")  # on main: no such name
    assert home_intact(home)
    assert loaded[1].check("git checkout -q evil; tar cf a.tar *.py").decision != "allow"
    assert loaded[1].check("tar cf a.tar *.py").decision == "allow"


def test_a_recursive_copy_brings_an_option_name_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """2. cp -r copies e's `-delete` into sub: `find . -del*` there is `find . -delete` (sub emptied); mv too."""
    setup = "mkdir -p e sub/d && : > e/-delete && : > sub/d/keep\n"
    _, cwd, printed = run_confined(tmp_path, setup + "cp -r e/. sub/; cd sub && find . -del*")
    assert not (cwd / "sub" / "d").exists(), printed
    _, cwd, printed = run_confined(
        tmp_path / "mv", "mkdir -p e/d && : > e/-delete && : > e/d/keep\nmv e sub; cd sub && find . -del*"
    )
    assert not (cwd / "sub" / "d").exists(), printed
    _, cwd, _ = run_confined(
        tmp_path / "near", "mkdir -p e sub/d && : > e/x.txt && : > sub/d/keep\ncp -r e/. sub/; cd sub && find . -del*"
    )
    assert (cwd / "sub" / "d" / "keep").is_file()
    for command in ("cp -r e/. sub/; cd sub && find . -del*", "mv e sub; cd sub && find . -del*"):
        assert loaded[1].check(command).decision != "allow", command


@needs_git
def test_a_checked_out_dash_rf_makes_rm_recursive_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """3. A checked-out `sub/-rf` makes `rm *` in sub `rm -rf`: sub's folder goes (without it rm refuses a folder).
    A checked-out link named `~` is a name from the glob, no tilde: rm removes the link, the home stays."""
    setup = _branch("mkdir -p sub/d && : > sub/d/keep && : > sub/-rf && ln -s \"$HOME\" 'sub/~'")
    home, cwd, printed = run_confined(tmp_path, setup + "git checkout -q evil; cd sub && rm *")
    assert not (cwd / "sub" / "d").exists(), printed
    assert home_intact(home)  # (the link, not the home)
    _, cwd, _ = run_confined(tmp_path / "near", setup + "git checkout -q evil; cd sub && rm *.txt; rm -- *; true")
    assert (cwd / "sub" / "d" / "keep").is_file()
    assert loaded[1].check("git checkout -q evil; cd sub && rm *").decision != "allow"


def test_ls_of_the_key_packed_and_a_dereferenced_listing_live(tmp_path: Path) -> None:
    """4. `ls FILE` prints FILE: tar packs the key; `ls | tar -chf` packs what the link k.py points to."""
    _, _, printed = run_confined(tmp_path, "ls ~/.ssh/id_ed25519 | tar -cf - -T -")
    assert SECRET in printed
    _, _, printed = run_confined(tmp_path / "link", "ln -s ~/.ssh/id_ed25519 k.py; ls | tar -chf - -T -")
    assert SECRET in printed
    _, _, printed = run_confined(tmp_path / "near", "ln -s ~/.ssh/id_ed25519 k.py; ls | tar -cf - -T -")
    assert SECRET not in printed  # (without -h the link itself is packed)


def test_a_find_expression_from_a_file_or_a_listing_deletes_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """5. f.txt holding `-delete` (or a name `-delete` listed) is find's action: the tree goes."""
    _, cwd, printed = run_confined(tmp_path, "mkdir d && : > d/keep && echo -delete > f.txt\nfind . $(cat f.txt)")
    assert not (cwd / "d").exists(), printed
    _, cwd, printed = run_confined(tmp_path / "ls", "mkdir .d && : > .d/keep && : > ./-delete\nls | xargs find .")
    assert not (cwd / ".d").exists(), printed
    _, cwd, _ = run_confined(
        tmp_path / "near", 'mkdir d && : > d/keep && echo -delete > f.txt\nfind . -name "$(cat f.txt)"'
    )
    assert (cwd / "d" / "keep").is_file()
    assert loaded[1].check("find . $(cat f.txt)").decision != "allow"
    assert loaded[1].check("ls | xargs find .").decision != "allow"
    assert loaded[1].check('find . -name "$(cat f.txt)"').decision == "allow"


# -- 6. the hot path ----------------------------------------------------------------------------------------------
@pure_build_only  # (a compiled Program's callers call the native method: a replaced one is never called)
def test_git_verbs_are_parsed_only_where_a_glob_needs_them(
    loaded: tuple[Path, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git status` alone (or before `ls`) never works out writes_tree; a glob after `git checkout` does, once."""
    calls: list[tuple[str, ...]] = []
    original = Program.writes_tree

    def counted(self: Program, argv: tuple[str, ...]) -> bool:
        calls.append(tuple(argv))
        return original(self, argv)

    try:
        monkeypatch.setattr(Program, "writes_tree", counted)
    except (TypeError, AttributeError):
        pytest.skip("a compiled Program's method cannot be replaced")
    engine = loaded[1]
    for command in ("git status", "git status && git log --oneline | head", "git diff; ls"):
        assert engine.check(command + " # xf49-hot").decision == "allow"
    assert calls == []
    assert engine.check("git checkout evil; find . -del* # xf49-hot").decision != "allow"
    assert calls and all(argv[:2] == ("git", "checkout") for argv in calls)


# -- open -----------------------------------------------------------------------------------------------------------
OPEN = {
    "tar-C-elsewhere": "tar xf a.tar -C /tmp/x; cd /tmp/x && find . -del*",
    "unzip-d-elsewhere": "unzip a.zip -d /tmp/x; cd /tmp/x && find . -del*",
    "clone-elsewhere": "git clone https://example.org/r /tmp/r; cd /tmp/r && find . -del*",
}


# (unpack50: fixed, the Programs rows' `unpacks_into:` name tar's -C, unzip's -d, git clone's DIR)
@pytest.mark.parametrize("command", list(OPEN.values()), ids=list(OPEN))
def test_open_an_unpacker_writing_elsewhere(loaded: tuple[Path, Engine], command: str) -> None:
    assert loaded[1].check(command).decision != "allow"


# (unpack50: fixed, zip's grammar names -y/--symlinks, pax's -L/--dereference)
@pytest.mark.parametrize("command", ["ls | zip - -@", "ls | pax -wL"])
def test_open_other_dereferencing_packers(linked: tuple[Path, Engine], command: str) -> None:
    assert linked[1].check(command).decision != "allow"


def test_zip_of_a_listing_packs_a_linked_key_live(tmp_path: Path) -> None:
    """The open packers' ground: zip stores what a link points to."""
    if shutil.which("zip") is None:
        pytest.skip("zip is not installed")
    _, cwd, _ = run_confined(tmp_path, "ln -s ~/.ssh/id_ed25519 k.py; ls | zip -q -0 x.zip -@")
    assert SECRET.encode() in (cwd / "x.zip").read_bytes()


# noticed at stop 49, fixed by xf49b (options_of_unknown_words): git's options split from a file's text (`-c KEY=VALUE`)
def test_git_options_from_a_file(loaded: tuple[Path, Engine]) -> None:
    assert loaded[1].check("git $(cat f.txt)").decision != "allow"


@needs_git
def test_git_options_from_a_file_run_a_program_live(tmp_path: Path) -> None:
    """f.txt holding `-c core.fsmonitor=./x.sh status`: git runs x.sh (the note deleted); a plain status does not."""
    setup = "git init -q && printf '#!/bin/sh\\nrm -f ~/notes.txt\\n' > x.sh && chmod +x x.sh && "
    home, _, printed = run_confined(
        tmp_path, setup + "echo '-c core.fsmonitor=./x.sh status' > f.txt; git $(cat f.txt)"
    )
    assert not (home / "notes.txt").exists(), printed
    home, _, _ = run_confined(tmp_path / "near", setup + "echo 'status' > f.txt; git $(cat f.txt)")
    assert home_intact(home)
