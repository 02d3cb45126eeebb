"""adv48 (stop 48, issue 8): the adversary against the readings that allow a command for what the engine read on
disk (fp47's find -delete read as `rm -f $(find ...)`, fix47's planted option names read in a glob's folder, the
listings of rm -rf targets, the session's links).

Found allowed, and fixed (each deleted the project's .git or the folder live, below):

1. find reads its LAST `-maxdepth` (GNU find: a global option each occurrence sets again); the listing read the
   smallest: `find . -maxdepth 1 -maxdepth 5 -name HEAD -delete` (and `-exec rm -f {} +`, `rm -f $(find . -maxdepth
   1 -maxdepth 5 -name HEAD)`) listed one level, nothing named HEAD, and was allowed; find walked into .git and
   deleted .git/HEAD (and logs/HEAD). Now the listing walks the largest (paths._find_depth).
2. find's `-iname` folds case as the C library does, one character for one (towlower): `İ` (U+0130) folds to `i`.
   Python's lower() gives it two (`i̇`), so `find . -iname 'confİg' -delete` (`-iname '*İ*'`) listed nothing and
   was allowed; in a UTF-8 locale (C.UTF-8: the terminal's) find deleted .git/config (.git/index, ...). Now an
   -iname glob that is not ASCII filters nothing (every name is listed), and a name that is not ASCII passes an
   ASCII one (paths._find_matches).
3. A glob word holding an expansion the reading leaves unknown (empty in bash): `find . -de$1l*`, `-de${u}l*`,
   `$@-del*`, `-de"$@"l*`, `` -de`true`l* `` with a file `-delete` planted was allowed (the planted names were matched
   against the word's raw text `-de$1l*`); bash globs `-del*` and find reads `-delete` (the folder emptied, live).
   Now such a word is matched as its text up to the expansion, then any text (shell._unknown_widened: `-de*`).
4. A file a background job of the session writes, run by a later call: the job `until [ -e go ]; ...; cp y.txt x.sh`
   (or `cat y.txt > x.sh`), then `: > go; until [ -e done ]; ...; sh x.sh` was judged by x.sh's text at check time
   (`echo hi`) and ran y.txt's (`rm -f ~/notes.txt`: the note deleted, live through the terminal tool). Now the
   files a background command's reading writes are unread while its process runs (session_memory.Writing:
   SessionView.read answers False; through a link made before, `cp y.txt l.sh` with l.sh -> x.sh, the file it
   names), so the later call asks; a job writing another file changes nothing.

Held (tests below keep them): a find over a link to the home (`find sl/`, `find hh/`), a second start point through
a link, `-mindepth`, `HEA?`, `-name '*' -type f`, `.git/..`; fix47's planted names through `${x:-*}`, `set --
-del*`, `for`, `select`, `case`, `eval`, `command`, a function, `read -a`, `printf -v`, nocaseglob; a background
job swapping a listed folder for a link to the home (`sleep 2; rm -rf build; ln -s ~ build` in the background,
then `sleep 4; rm -rf build/`: the session's link is read at once, denied; through python's os.symlink too).

Closed by bg49 (stop 49): a background `git checkout -- x.sh` (a committed `rm -f ~/notes.txt`) then `sh x.sh` (the
checkout writes a text its reading does not name: now every file of the tree it runs in, unread). Closed in the merge
by xf48a: `a=(*); find . $a`, `x=(-del*); find . $x` (an array's first element). Not fixed (adv47's
notes): `a=(-del*); find . "${a[@]}"` (adv47's strict xfail), `find . $(cat f.txt)` / `find . $(ls)` / `ls |
xargs find .` (a program's output read as find's words: the general reading of stored output).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, harm_project, policy_project, run_confined, verdict_cases


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv48", "kind: ApprovalPolicy\n") as (root, engine):
        subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
        (root / "src").mkdir()
        (root / "src" / "a.pyc").write_bytes(b"\0")
        (root / "b.log").write_text("x\n")
        yield root, engine


def _utf8_locale() -> bool:
    done = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=False)
    return any(line.lower().replace("-", "") == "c.utf8" for line in done.stdout.split())


# -- 1. and 2. find's -maxdepth and -iname, as find reads them -------------------------------------------------------
FIND_PAYLOADS: dict[str, Case] = {
    "maxdepth-last": ({}, "find . -maxdepth 1 -maxdepth 5 -name HEAD -delete"),
    "maxdepth-after-name": ({}, "find . -name HEAD -maxdepth 1 -maxdepth 9 -exec rm -f {} +"),
    "maxdepth-zero-first": ({}, "find . -maxdepth 0 -maxdepth 3 -name config -delete"),
    "maxdepth-listing": ({}, "rm -f $(find . -maxdepth 1 -maxdepth 5 -name HEAD)"),
    "iname-dotted-i": ({}, "find . -iname 'confİg' -delete"),
    "iname-dotted-star": ({}, "find . -iname '*İ*' -delete"),
    "iname-dotted-locale": ({}, "LC_ALL=C.UTF-8 find . -iname 'İndex' -exec rm -f {} +"),
}
FIND_NEAR_MISSES: dict[str, Case] = {
    "pyc": ({}, "find . -name '*.pyc' -delete"),
    "pyc-maxdepth": ({}, "find . -maxdepth 2 -name '*.pyc' -delete"),
    "log-maxdepth-twice": ({}, "find . -maxdepth 2 -maxdepth 1 -name '*.log' -delete"),
    "iname-ascii": ({}, "find . -iname '*.PYC' -delete"),
    "iname-exec": ({}, "find . -iname '*.LOG' -exec rm -f {} +"),
    "non-ascii-name": ({"src/é.tmp": "x\n"}, "find . -name 'é*.tmp' -delete"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(FIND_PAYLOADS, FIND_NEAR_MISSES))
def test_find_depth_and_case(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


@pytest.mark.parametrize("payload", ["find . -maxdepth 1 -maxdepth 5 -name HEAD -delete"])
def test_the_last_maxdepth_deletes_git_head_live(tmp_path: Path, loaded: tuple[Path, Engine], payload: str) -> None:
    """The harm, live: find walks five levels and deletes .git/HEAD; one -maxdepth 1 alone does not."""
    _, cwd, _ = run_confined(tmp_path, f"git init -q && {payload}")
    assert not (cwd / ".git" / "HEAD").exists()
    _, cwd, _ = run_confined(tmp_path / "near", "git init -q && find . -maxdepth 1 -name HEAD -delete")
    assert (cwd / ".git" / "HEAD").is_file()
    root, engine = loaded
    assert engine.check(payload).decision != "allow"
    assert (root / ".git" / "HEAD").is_file()


def test_a_dotted_capital_i_deletes_git_config_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """The harm, live (a UTF-8 locale): `-iname 'confİg'` passes .git/config, which find deletes."""
    if not _utf8_locale():
        pytest.skip("no C.UTF-8 locale here: find folds `İ` only in a UTF-8 locale")
    payload = "find . -iname 'confİg' -delete"
    _, cwd, _ = run_confined(tmp_path, f"git init -q && LC_ALL=C.UTF-8 {payload}")
    assert not (cwd / ".git" / "config").exists()
    _, cwd, _ = run_confined(tmp_path / "near", "git init -q && LC_ALL=C.UTF-8 find . -iname 'CONFIG.bak' -delete")
    assert (cwd / ".git" / "config").is_file()
    assert loaded[1].check(payload).decision != "allow"


# -- 3. a planted option name globbed by a word with an empty expansion ----------------------------------------------
_PLANTED: dict[str, str] = {"-delete": "", "keep/k.txt": "x\n"}
DASH_PAYLOADS: dict[str, Case] = {
    "positional": (_PLANTED, "find . -de$1l*"),
    "unset-braced": (_PLANTED, "find . -de${u}l*"),
    "all-positionals": (_PLANTED, "find . $@-del*"),
    "quoted-positionals": (_PLANTED, 'find . -de"$@"l*'),
    "star-positionals": (_PLANTED, "find . -de$*l*"),
    "default-empty": (_PLANTED, "find . -de${@:-}l*"),
    "empty-array": (_PLANTED, "a=(); find . -de${a[@]}l*"),
    "backquotes": (_PLANTED, "find . -de`true`l*"),
    "in-sub": ({"sub/-delete": "", "sub/k.txt": "x\n"}, "cd sub && find . -de$1l?te"),
    # (adv47's open xfail) an array of a glob, its unknown elements spelled `${a[@]}`: read as a glob of any text
    "array-of-a-glob": (_PLANTED, "a=(*); find . ${a[@]}"),
}
DASH_NEAR_MISSES: dict[str, Case] = {
    "name-quoted": (_PLANTED, 'find . -name "$1*.pyc"'),
    "list-txt": (_PLANTED, "ls -l $1*.txt"),
    "not-planted": ({"keep/k.txt": "x\n", "-notes": ""}, 'find . -name "$1*.txt" -print'),
    "planted-elsewhere": ({"sub/-delete": "", "a.txt": "x\n"}, "wc -l $1*.txt"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(DASH_PAYLOADS, DASH_NEAR_MISSES))
def test_planted_names_through_an_empty_expansion(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


@pytest.mark.parametrize("payload", ["find . -de$1l*", "find . $@-del*", "find . -de${u}l*"])
def test_an_empty_expansion_globs_the_planted_name_live(
    tmp_path: Path, loaded: tuple[Path, Engine], payload: str
) -> None:
    """The harm, live: bash globs `-del*` to the planted `-delete` and find empties the folder; the engine asks."""
    _, cwd, _ = run_confined(tmp_path, f"mkdir -p d && : > d/keep && : > ./-delete\n{payload}")
    assert not (cwd / "d").exists(), payload
    _, cwd, _ = run_confined(tmp_path / "near", f"mkdir -p d && : > d/keep && : > ./-notes\n{payload}")
    assert (cwd / "d" / "keep").is_file(), payload
    root, engine = loaded
    (root / "-delete").write_text("")
    try:
        assert engine.check(payload).decision != "allow", payload
    finally:
        (root / "-delete").unlink()


# the same array expanded as `$a` (its first element): bash gives find a[0], the planted `-delete` (x=(-del*): the
# same). Closed in the merge by xf48a (an array's elements are the names its glob matches where it is assigned)
OPEN_ARRAYS = ["a=(*); find . $a", "x=(-del*); find . $x"]


@pytest.mark.parametrize("payload", OPEN_ARRAYS)
def test_open_array_first_element(loaded: tuple[Path, Engine], payload: str) -> None:
    assert_verdict(loaded, (_PLANTED, payload), False, f"open-{payload}")


@pytest.mark.parametrize("payload", OPEN_ARRAYS)
def test_an_array_of_a_glob_deletes_live(tmp_path: Path, payload: str) -> None:
    _, cwd, _ = run_confined(tmp_path, f"mkdir -p d && : > d/keep && : > ./-delete\n{payload}")
    assert not (cwd / "d").exists(), payload


# -- held ----------------------------------------------------------------------------------------------------------
HELD_PAYLOADS: dict[str, Case] = {
    "head-glob": ({}, "find . -name 'HEA?' -delete"),
    "mindepth": ({}, "find . -mindepth 2 -name HEAD -delete"),
    "git-dotdot": ({}, "find .git/.. -name HEAD -delete"),
    "every-file": ({}, "find . -name '*' -type f -delete"),
    "default-glob": (_PLANTED, "find . -del${x:-*}"),
    "set-positionals": (_PLANTED, 'set -- -del*; find . "$@"'),
    "function": (_PLANTED, 'f(){ find . "$@"; }; f -del*'),
    "select": (_PLANTED, "select a in -del*; do find . $a; break; done"),
    "read-array": (_PLANTED, 'read -a r <<< "-del*"; find . ${r[@]}'),
    "printf-v": (_PLANTED, 'printf -v z %s "-del*"; find . $z'),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(HELD_PAYLOADS, {}))
def test_held(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- 4. a file a background process of the session writes, read by a later call as code -----------------------------
_WAITS = "until [ -e go ]; do sleep 0.1; done; "  # the background job waits for the later call: no race, no timing
_WRITERS: dict[str, str] = {
    "cp": _WAITS + "cp y.txt x.sh; : > done",
    "cat-redirect": _WAITS + "cat y.txt > x.sh; : > done",
    "through-a-link": _WAITS + "cp y.txt l.sh; : > done",  # l.sh -> x.sh, made before
}
_RUNS_LATER = ": > go; until [ -e done ]; do sleep 0.1; done; sh x.sh"


def _background(engine: Engine, command: str, session: str) -> str:
    started = engine.call("terminal", {"command": command, "background": True}, session_id=session)
    assert started.ok, started.error
    return str(json.loads(started.output)["process_id"])


@pytest.mark.parametrize("writer", list(_WRITERS), ids=list(_WRITERS))
@pytest.mark.parametrize("written", ["on-disk", "write_file"])
def test_a_background_writer_of_a_script_run_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str, written: str
) -> None:
    """The harm, live through the terminal tool: a background job of the session copies y.txt (`rm -f ~/notes.txt`)
    over x.sh (`echo hi`) once the later call starts; the later call's `sh x.sh` was judged by x.sh's old text and
    ran the new one (the home's note deleted). Now x.sh is unread while the job runs: the call asks."""
    with harm_project(tmp_path, monkeypatch) as (engine, home, root):
        files = {"y.txt": "rm -f ~/notes.txt\n", "x.sh": "echo hi\n"}
        for name, text in files.items():
            if written == "on-disk":
                (root / name).write_text(text)
            else:
                assert engine.call("write_file", {"path": name, "content": text}, session_id="s").ok
        (root / "l.sh").symlink_to("x.sh")
        pid = _background(engine, _WRITERS[writer], "s")
        try:
            result = engine.call("terminal", {"command": _RUNS_LATER}, session_id="s")
            assert not result.ok and result.error is not None, result.output
            assert result.error.type in ("denied", "pending_approval")
            assert home_intact(home)
        finally:
            engine.call("process", {"action": "kill", "process_id": pid}, session_id="s")


def test_a_background_writer_of_another_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: the background job writes z.txt, not the script the later call runs: `sh x.sh` stays allowed."""
    with harm_project(tmp_path, monkeypatch) as (engine, home, root):
        (root / "y.txt").write_text("rm -f ~/notes.txt\n")
        (root / "x.sh").write_text("echo hi\n")
        pid = _background(engine, _WAITS + "cp y.txt z.txt; : > done", "s")
        try:
            result = engine.call("terminal", {"command": _RUNS_LATER}, session_id="s")
            assert result.ok, result.error
            assert "hi" in (result.output or "") and home_intact(home)
        finally:
            engine.call("process", {"action": "kill", "process_id": pid}, session_id="s")


def test_the_copied_script_is_what_runs_live(tmp_path: Path) -> None:
    """The ground, unguarded: the background copy lands before the later `sh x.sh`, which deletes the home's note;
    with the job copying another file, x.sh's own text runs and the home is intact."""
    setup = "printf 'rm -f ~/notes.txt\\n' > y.txt && printf 'echo hi\\n' > x.sh && "
    home, _, _ = run_confined(tmp_path, f"{setup}({_WRITERS['cp']}) & {_RUNS_LATER}")
    assert not (home / "notes.txt").exists()
    near = _WAITS + "cp y.txt z.txt; : > done"
    home, _, printed = run_confined(tmp_path / "near", f"{setup}({near}) & {_RUNS_LATER}")
    assert home_intact(home) and "hi" in printed


def _committed_script(root: Path) -> None:
    """x.sh committed holding `rm -f ~/notes.txt`, its working copy `echo hi`."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@x"]
    (root / "x.sh").write_text("rm -f ~/notes.txt\n")
    subprocess.run([*git, "init", "-q"], cwd=root, check=True, capture_output=True)
    subprocess.run([*git, "add", "x.sh"], cwd=root, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "c"], cwd=root, check=True, capture_output=True)
    (root / "x.sh").write_text("echo hi\n")


def test_open_a_background_checkout_of_a_script_run_later(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with harm_project(tmp_path, monkeypatch) as (engine, home, root):
        _committed_script(root)
        pid = _background(engine, _WAITS + "git checkout -- x.sh; : > done", "s")
        try:
            result = engine.call("terminal", {"command": _RUNS_LATER}, session_id="s")
            assert not result.ok and home_intact(home), result.output
        finally:
            engine.call("process", {"action": "kill", "process_id": pid}, session_id="s")


def test_the_checked_out_script_is_what_runs_live(tmp_path: Path) -> None:
    """The ground of the open case, unguarded: the background checkout lands before `sh x.sh`, which runs it."""
    git = "git -c user.name=t -c user.email=t@x"
    setup = f"printf 'rm -f ~/notes.txt\\n' > x.sh && git init -q && {git} add x.sh && {git} commit -qm c && "
    setup += "printf 'echo hi\\n' > x.sh && "
    home, _, _ = run_confined(tmp_path, f"{setup}({_WAITS}git checkout -- x.sh; : > done) & {_RUNS_LATER}")
    assert not (home / "notes.txt").exists()
