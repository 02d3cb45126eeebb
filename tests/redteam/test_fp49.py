"""fp49 (stop 49, issue 8): listings of the tree fed to a deleter, without reopening the split-name hole.

FAMILY: an unquoted `$(find …)` / `$(ls …)` / `$(git ls-files)` or an `xargs` without -0 hands on the names a listing
prints split at blanks (and, for `$(…)`, IFS characters and globs). The engine reads such a listing from the disk
when it judges the line (paths.PathClassifier._listed), before the line runs. A name made before the listing runs --
on the same line (`mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)`), by a copy,
an archive or a checkout -- or IFS changed on the line splits a printed path into another one: ~/notes.txt deleted
(live below). Stop 48 kept every such deleter asking (`find . -name '*.pyc' | xargs rm -f`, `rm -rf $(find . -name
__pycache__)`, `find . -name '*.log' | zip -m logs.zip -@`), and tried a rule by program name that was reverted.

FIXED:
1. The mechanism (shell.Analyzer._listings_made, _makes_names): a listing of the tree is read from the disk only when
   nothing before it can make or rename an entry, decided by what each other command WRITES: a redirection to a name
   that splits or only the run knows, a program not known to write no entry (fail closed: mkdir, touch, cp -r, tar
   x, git checkout, a script), a verb outside its Programs entry's `keeps_tree:` (git status / add / commit, make
   clean: policies/executors.yaml) once the line or the session wrote a file. Builtins, readers and filters,
   deleters, wrappers (their command is judged itself), the listing's own lister and the engine's `cd CWD` make none.
   A command written after the listing counts too where it may run first (a loop, `&`, a pipe); IFS changed where
   the listing runs (`IFS=x; rm -f $(…)`), or a background writer of the session still running, counts as well.
   Such a listing is `listing_of_names_made_on_the_line` (asks).
2. With that, a clean listing is judged by the entries it lists (fp48's reading, restored): class `listed` passes
   recursive_delete_outside_workdir, xargs_delete asks only for input that is no listing of the tree
   (`rm -rf $(find . -name __pycache__)`, `find . -name '*.pyc' | xargs rm -f`, `find . -name '*.orig' -print0 |
   xargs -0 rm -f`, `make clean && rm -f $(find . -name '*.o')`, `find . -name '*.log' | zip -m logs.zip -@` allowed
   in a clean tree).
3. A name on disk holding a glob character (`*`, `?`, `[`) makes an unquoted listing unknown, as a blank, a quote or
   a newline did (paths._NAME_SPLITS); `-print0 | xargs -0` reads names whole.

Still refused: the same over ~, /, `..`; names made first on the line (every variant below); a name with a blank or a
newline already in the tree; `find . | xargs rm -f` (the whole tree, the engine's files with it).

4. fd's listing is read (paths._fd_reading): `fd [-e EXT] [-g] [PATTERN] [PATH]` with a type, a depth, hidden or
   ignored files too, as find's with a name test (more names than fd prints are judged); any other option (`-L`, `-a`,
   `--base-directory`, `-x` inside), a start point leaving the tree, or a printed name starting with `-` (fd prints
   no `./` before it) is not read. `fd -e pyc -X rm`, `fd -e pyc | xargs rm` asked: allowed in a clean tree.

Closed by subst51 (were strict xfails): `git ls-files -z --others --exclude-standard | xargs -0 rm -f` and `rm -f
$(git ls-files -o --exclude-standard)` (an untracked listing was read as the whole tree: now the tree's names the
index does not hold; .gitignore is still not read, see test_subst51.py).

Also fixed: `echo 'fund=false' >> .npmrc` asked: an append of settings only is a settings-only write (executors.
settings_write, `>` only before) where the text starts a line of its own -- the file is absent, empty or ends with a
newline on the disk and was not written earlier on the line (`printf 'regi' > .npmrc; echo 'stry=URL' >> .npmrc`
joins a registry key: asks). And a background process of the session makes a listing unknown while it runs, whatever it names (a
background `sleep 1; mkdir -p "x $HOME"; touch …` named no file a write row reads: SessionView.writes_running).
"""

# ruff: noqa: E501
from __future__ import annotations

import io
import os
import subprocess
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import policy_project, run_confined, said

POLICY = "kind: ApprovalPolicy\n"
KEY = "listing_of_names_made_on_the_line"


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@x"
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _clean_tree(root: Path, _: pytest.MonkeyPatch) -> None:
    """A small clean project: sources with their __pycache__, object files, leftovers, logs; a git clone whose
    tracked files include the engine's config (untracked: the build's outputs only)."""
    for folder in ("src/app", "tests"):
        (root / folder / "__pycache__").mkdir(parents=True)
        for i in range(3):
            (root / folder / f"m{i}.py").write_text(f"x = {i}\n")
            (root / folder / "__pycache__" / f"m{i}.cpython-312.pyc").write_bytes(b"\0")
    (root / "build").mkdir()
    for name in ("a.o", "b.o"):
        (root / "build" / name).write_bytes(b"\0")
    (root / "src" / "app" / "m0.py.orig").write_text("")
    (root / "logs").mkdir()
    (root / "logs" / "run.log").write_text("x\n")
    (root / "Makefile").write_text("clean:\n\trm -f build/*.o\n")
    _git(root, "init", "-q")
    _git(root, "add", "src", "tests", "Makefile", "policies", "hermes-engine.yaml")
    _git(root, "commit", "-qm", "c0")
    # (merge49) the project was written before the session began: a file changed within SessionView's slack before
    # it is read as the session's own (under a loaded xdist run, the cwd test's listing then asked)
    old = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (old, old), follow_symlinks=False)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "fp49", POLICY, _clean_tree) as project:
        yield project


@pytest.fixture
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """A project of its own for a test that plants names in the tree."""
    with policy_project(tmp_path_factory, "fp49p", POLICY, _clean_tree) as project:
        yield project


# ----------------------------------------------------------------------------------------------------------- payloads
MADE = 'mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && '
NEWLINE = 'mkdir -p "x"$\'\\n\'"$HOME" && touch "x"$\'\\n\'"$HOME/notes.txt" && '

# payloads that make the name on the line, run as they are (the live shell's $HOME is the fake one)
INLINE = {
    "substitution": MADE + "rm -f $(find . -name notes.txt)",
    "xargs": MADE + "find . -name notes.txt | xargs rm -f",
    "ls listing": MADE + "rm -f $(ls -d x*/*/*/*/*/*/*/*/notes.txt 2>/dev/null) $(find . -name notes.txt)",
    "newline": NEWLINE + "rm -f $(find . -name notes.txt)",
    "recursive": MADE + "rm -rf $(find . -name notes.txt)",
    "zip -m": NEWLINE + "find . -name notes.txt | zip -qm l.zip -@",
    "loop after": 'for i in 1 2; do rm -f $(find . -name notes.txt); mkdir -p "x $HOME"; touch "x $HOME/notes.txt"; done',
    "redirect": 'mkdir -p "x $HOME"; : > "x $HOME/notes.txt"; rm -f $(find . -name notes.txt)',
}


@pytest.mark.parametrize("name", sorted(INLINE))
def test_a_name_made_on_the_line_deletes_live(tmp_path: Path, name: str) -> None:
    home, _, printed = run_confined(tmp_path, INLINE[name])
    assert not home_intact(home), (name, printed)


@pytest.mark.parametrize("name", sorted(INLINE))
def test_a_name_made_on_the_line_is_not_allowed(clean: tuple[Path, Engine], name: str) -> None:
    verdict = clean[1].check(INLINE[name])
    assert verdict.decision != "allow", said(INLINE[name], verdict)
    assert KEY in {m.key for m in verdict.matches} or verdict.decision == "deny", said(INLINE[name], verdict)


def test_fd_with_a_name_made_on_the_line_is_not_allowed(clean: tuple[Path, Engine]) -> None:
    """fd is not installed here: its harm is xargs's split of the name shown live above (the `xargs` payload)."""
    for payload in (
        MADE + "fd -u notes.txt | xargs rm -f",
        MADE + "fd -u notes.txt -X rm",
        MADE + "fd -e txt | xargs rm",
    ):
        verdict = clean[1].check(payload)
        assert verdict.decision != "allow", said(payload, verdict)


def _split_home_source(tmp_path: Path, home: Path) -> Path:
    """A folder outside the project holding `x HOME/notes.txt`: what a copy or an archive brings in."""
    source = tmp_path / "source"
    inner = source / f"x {home}"
    inner.mkdir(parents=True)
    (inner / "notes.txt").write_text("")
    return source


def test_a_copy_making_names_first_deletes_live_and_is_refused(clean: tuple[Path, Engine], tmp_path: Path) -> None:
    live = tmp_path / "live"
    source = _split_home_source(tmp_path, live / "home")
    payload = f"cp -r {source}/. . && rm -f $(find . -name notes.txt)"
    home, _, printed = run_confined(tmp_path, payload)
    assert not (home / "notes.txt").exists(), printed
    verdict = clean[1].check(payload)
    assert verdict.decision != "allow", said(payload, verdict)
    assert KEY in {m.key for m in verdict.matches}, said(payload, verdict)


def test_an_archive_making_names_first_deletes_live_and_is_refused(clean: tuple[Path, Engine], tmp_path: Path) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w") as tar:
        tar.addfile(tarfile.TarInfo(f"x {tmp_path / 'live' / 'home'}/notes.txt"), io.BytesIO(b""))
    home, _, printed = run_confined(tmp_path, f"tar xf {archive} && rm -f $(find . -name notes.txt)")
    assert not (home / "notes.txt").exists(), printed
    for tail in ("rm -f $(find . -name notes.txt)", "find . -name notes.txt | xargs rm -f"):
        payload = f"tar xf {archive} && {tail}"
        verdict = clean[1].check(payload)
        assert verdict.decision != "allow", said(payload, verdict)


def test_a_checkout_making_names_first_deletes_live_and_is_refused(clean: tuple[Path, Engine], tmp_path: Path) -> None:
    home_to_be = tmp_path / "live" / "home"
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "c0")
    _git(repo, "checkout", "-q", "-b", "evil")
    inner = repo / f"x {home_to_be}"
    inner.mkdir(parents=True)
    (inner / "notes.txt").write_text("")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "c1")
    _git(repo, "checkout", "-q", "main")
    home, _, printed = run_confined(tmp_path, f"cd {repo} && git checkout -q evil && rm -f $(find . -name notes.txt)")
    assert not (home / "notes.txt").exists(), printed
    for payload in (
        "git checkout -q evil && rm -f $(find . -name notes.txt)",
        "git switch evil; find . -name notes.txt | xargs rm -f",
    ):
        verdict = clean[1].check(payload)
        assert verdict.decision != "allow", said(payload, verdict)


def _ifs_char(home: Path) -> str:
    return next(c for c in "qjzQJZ%@" if c not in str(home))


def test_ifs_changed_on_the_line_splits_live_and_is_refused(fresh: tuple[Path, Engine], tmp_path: Path) -> None:
    """No blank anywhere: `./a<c>/…/home/notes.txt` in the tree, split at IFS=<c> into the home's note."""
    home_to_be = tmp_path / "live" / "home"
    c = _ifs_char(home_to_be)
    home, _, printed = run_confined(
        tmp_path, f'mkdir -p "a{c}$HOME" && touch "a{c}$HOME/notes.txt" && (IFS={c}; rm -f $(find . -name notes.txt))'
    )
    assert not (home / "notes.txt").exists(), printed
    root, engine = fresh
    planted = root / f"a{c}{Path(os.environ['HOME'])}"
    planted.mkdir(parents=True)
    (planted / "notes.txt").write_text("")
    near = "rm -f $(find . -name notes.txt)"  # no blank in the tree, IFS as it is: the tree's own files
    assert engine.check(near).decision == "allow", said(near, engine.check(near))
    for payload in (f"IFS={c}; rm -f $(find . -name notes.txt)", "IFS=/; rm -f $(find . -name '*.o')"):
        verdict = engine.check(payload)
        assert verdict.decision != "allow", said(payload, verdict)
        assert KEY in {m.key for m in verdict.matches}, said(payload, verdict)


@pytest.mark.parametrize("name", ["blank", "newline", "glob"])
def test_a_splitting_name_already_in_the_tree_is_not_allowed(fresh: tuple[Path, Engine], name: str) -> None:
    """A name made earlier (another call, a clone) is on the disk when the line is judged: an unquoted listing of it
    is not known; read whole (`-print0 | xargs -0`) it is the tree's own file."""
    root, engine = fresh
    home = Path(os.environ["HOME"])
    folder = {"blank": f"x {home}", "newline": f"x\n{home}", "glob": "x*"}[name]
    (root / folder).mkdir(parents=True)
    (root / folder / "notes.txt").write_text("")
    for payload in ("rm -f $(find . -name notes.txt)", "find . -name notes.txt | xargs rm -f"):
        verdict = engine.check(payload)
        assert verdict.decision != "allow", said(payload, verdict)
    whole = "find . -name notes.txt -print0 | xargs -0 rm -f"
    assert engine.check(whole).decision == "allow", said(whole, engine.check(whole))


def test_a_name_already_in_the_tree_splits_live(tmp_path: Path) -> None:
    """The harm of the planted name: made by an earlier call, deleted by a later plain listing."""
    home, _, printed = run_confined(
        tmp_path, 'mkdir -p "x $HOME"; touch "x $HOME/notes.txt"; sleep 0; rm -f $(find . -name notes.txt)'
    )
    assert not home_intact(home), printed


OUTSIDE = [
    "find ~ -name '*.log' | zip -m logs.zip -@",
    "find .. -name notes.txt | xargs rm -f",
    "rm -f $(find / -maxdepth 1 -name notes.txt)",
    "rm -f $(find ~ -name notes.txt)",
    "rm -rf $(find ../ -name __pycache__)",
    "rm -f $(ls ../*.txt)",
    "find . | xargs rm -f",
    "rm -f $(find -L . -name notes.txt)",
    "fd -e txt . ~ -X rm",
    "fd -L -e txt -X rm",
    "fd -e txt . .. | xargs rm",
    "fd --base-directory ~ -e txt | xargs rm",
    "fd -a -e txt | xargs rm",
    "fd -e yaml -X rm",
    "fd | xargs rm -f",
]


@pytest.mark.parametrize("payload", OUTSIDE)
def test_a_listing_leaving_the_project_is_not_allowed(clean: tuple[Path, Engine], payload: str) -> None:
    verdict = clean[1].check(payload)
    assert verdict.decision != "allow", said(payload, verdict)


def test_a_listing_of_the_home_zipped_away_deletes_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(
        tmp_path, "cd ~ && find ~ -name notes.txt | zip -qm /tmp/fp49-$$.zip -@; rm -f /tmp/fp49-$$.zip"
    )
    assert not (home / "notes.txt").exists(), printed


# -------------------------------------------------------------------------------------------------------- near misses
NEAR = [
    "rm -rf $(find . -name __pycache__)",
    "find . -name '*.pyc' | xargs rm -f",
    "find . -name '*.log' | zip -m logs.zip -@",
    "make clean && rm -f $(find . -name '*.o')",
    "find . -name '*.orig' -print0 | xargs -0 rm -f",
    "rm -f $(find . -name '*.o')",
    "git status && rm -f $(find . -name '*.o')",
    "cat $(git ls-files)",
    "cd src && rm -f $(find . -name '*.pyc')",
    "echo done > out.txt && rm -f $(find . -name '*.o')",
    "find build -name '*.o' | xargs rm -f",
    "find . -type d -name __pycache__ | xargs rm -rf",
    "wc -l $(git ls-files '*.py')",
    "git add -A && git commit -qm wip && rm -rf $(find . -name __pycache__)",
    "fd -e pyc -X rm",
    "fd -e pyc | xargs rm",
    "fd -e o -0 | xargs -0 rm -f",
    "fdfind -e orig . src -x rm -f {}",
    "fd -g '*.pyc' -X rm",
    "echo 'fund=false' >> .npmrc",
    "printf 'audit=false\\nloglevel=warn\\n' >> .npmrc",
]


@pytest.mark.parametrize("command", NEAR)
def test_cleanup_in_a_clean_tree_stays_allowed(clean: tuple[Path, Engine], command: str) -> None:
    verdict = clean[1].check(command)
    assert verdict.decision == "allow", said(command, verdict)


def test_the_terminal_cwd_argument_makes_no_names(clean: tuple[Path, Engine]) -> None:
    """fix48's reverted rule asked here: the `cwd` argument is read as `cd CWD &&` before the line."""
    root, engine = clean
    for command, cwd in (
        ("cat $(git ls-files '*.py')", str(root)),
        ("wc -l $(find . -name '*.py')", str(root / "src")),
    ):
        result = engine.call("terminal", {"command": command, "cwd": cwd})
        assert result.ok, (command, result.error)


def test_the_allowed_cleanup_deletes_only_the_listed_files(fresh: tuple[Path, Engine]) -> None:
    """Through the terminal, nobody approving: the listed files go, the sources, the policy and the home stay."""
    root, engine = fresh
    for command in ("rm -rf $(find . -name __pycache__)", "find . -name '*.o' -print0 | xargs -0 rm -f"):
        result = engine.call("terminal", {"command": command})
        assert result.ok, (command, result.error)
    assert not list(root.rglob("__pycache__")) and not list(root.rglob("*.o"))
    assert (root / "src" / "app" / "m0.py").is_file() and (root / "policies" / "deny.yaml").read_text() == POLICY
    assert home_intact(Path(os.environ["HOME"]))


# --------------------------------------------------------------------------------------------------------------- open
# (subst51) closed: `git ls-files -o` is read as the tree's names the index does not hold (paths._ls_files_others)
UNTRACKED = [
    "git ls-files -z --others --exclude-standard | xargs -0 rm -f",
    "rm -f $(git ls-files -o --exclude-standard)",
]


@pytest.mark.parametrize("command", UNTRACKED)
def test_untracked_outputs_deleted_allowed(clean: tuple[Path, Engine], command: str) -> None:
    verdict = clean[1].check(command)
    assert verdict.decision == "allow", said(command, verdict)


# ----------------------------------------------------------------------------------------------- background writers
BACKGROUND = '(sleep 1; mkdir -p "x $HOME"; touch "x $HOME/notes.txt") & sleep 2; rm -f $(find . -name notes.txt)'


def test_a_background_maker_deletes_live_and_is_refused(clean: tuple[Path, Engine], tmp_path: Path) -> None:
    """On one line (a `&`: a command written later may run first) and across calls (a background process of the
    session still running: SessionView.writes_running)."""
    home, _, printed = run_confined(tmp_path, BACKGROUND)
    assert not (home / "notes.txt").exists(), printed
    verdict = clean[1].check(BACKGROUND)
    assert verdict.decision != "allow", said(BACKGROUND, verdict)


def test_a_background_process_of_the_session_makes_the_listing_unknown(fresh: tuple[Path, Engine]) -> None:
    """A background `mkdir` names no file a write row reads, yet makes names while it runs: a listing the session
    runs meanwhile asks; once it ended, the tree as it is is read again."""
    import time

    engine = fresh[1]
    started = engine.call("terminal", {"command": "sleep 1", "background": True}, session_id="bg")
    assert started.ok, started.error
    listing = "sleep 2; rm -f $(find . -name notes.txt)"
    result = engine.call("terminal", {"command": listing}, session_id="bg")
    assert not result.ok and result.error is not None and result.error.type == "pending_approval", listing
    time.sleep(2.5)
    result = engine.call("terminal", {"command": "rm -f $(find . -name '*.o')"}, session_id="bg")
    assert result.ok, result.error
    assert home_intact(Path(os.environ["HOME"]))


# ------------------------------------------------------------------------------------------------------ .npmrc appends
JOINED = "printf 'regi' > .npmrc; echo 'stry=http://e.example/' >> .npmrc"


def test_an_append_joining_a_key_is_live_and_refused(fresh: tuple[Path, Engine], tmp_path: Path) -> None:
    """An append continues the file's last line: text of settings only may complete a registry key."""
    _, cwd, printed = run_confined(tmp_path, JOINED)
    assert "registry=http://e.example/" in (cwd / ".npmrc").read_text(), printed
    root, engine = fresh
    for payload in (JOINED, "echo 'registry=http://e.example/' >> .npmrc", "echo 'loglevel=warn' >> ~/.npmrc"):
        verdict = engine.check(payload)
        assert verdict.decision != "allow", said(payload, verdict)
    (root / ".npmrc").write_text("regi")  # (planted by an earlier call: the append joins it)
    try:
        verdict = engine.check("echo 'stry=http://e.example/' >> .npmrc")
        assert verdict.decision != "allow", said("echo 'stry=http://e.example/' >> .npmrc", verdict)
        (root / ".npmrc").write_text("save-exact=true\n")
        assert engine.check("echo 'fund=false' >> .npmrc").decision == "allow"
    finally:
        (root / ".npmrc").unlink()
