"""redt32 (stop 32, issue 8): an adversary on the stop's merged changes.

1. perfb32's kept classes (View.classify `_kept`, Walk.sure, the watcher's generation): the file
   system changed between two checks of the same command (a folder above the word renamed and
   replaced by a link, a folder moved out and a new one holding a link made, hundreds of events, a
   change within the same second, a folder replaced by a link to home). Every second verdict equals
   a fresh engine's: held (tests below, one `time.sleep` past the racy window for the lot).
2. perfa32's shared empty tables (shell.py `_NO_ENTRIES/_NO_ITEMS/_NO_NAMES`): a function, alias,
   history entry, sink, `exec` read or move in one check never changes a later check's verdict: held.
3. The piped-output merge (adv32's collecting + brk32's `said`): most spellings are judged, but two
   shapes still ran printed shell text unjudged (closed at stop 33 by pipe33, one mechanism: see
   tests/redteam/test_pipe33_printed.py, which holds their harm runs):
   - a known text piped through a filter whose output the analyzer does not compute (`sed -n p`,
     `sed 's/^//'`, `awk 1`, `grep .`, `cut -c1-`): the filter's output is unknown, and `sh` fed by
     sed/awk/grep/cut is allowed (`sort`, `head`, `rev`, `tr` are judged);
   - a shell reading the pipe from inside `sh -c` (`| sh -c sh`, `| sh -c 'cat | sh'`, `| bash -c
     'sh -'`, `| sh -c 'exec sh'`, `| sh -c 'f() { sh; }; f'`): the inner shell's stdin is the pipe.
4. Near-miss everyday commands that ask since this stop: compiling and running the default output
   of a file the session did not write (`gcc main.c && ./a.out`, `rustc main.rs && ./main`, `make app
   && ./app`, `go build ./cmd/tool && ./tool`, `tsc main.ts && node main.js`): adv32's `output:` names
   the compiler's default output, and a program built and run on one line asks (session_file_unread),
   as `gcc main.c -o app && ./app` asked before. Consistent, reported, not changed.

Verdicts only (one module-scoped engine); no payload runs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import assert_judged_as_fresh

PAYLOAD = "rm -rf ~"

# Filters whose output the analyzer does not compute, between a known shell text and a shell.
FILTERED = {
    "sed -n p": f"echo '{PAYLOAD}' | sed -n p | sh",
    "sed s/^//": f"echo '{PAYLOAD}' | sed 's/^//' | sh",
    "sed y": f"echo '{PAYLOAD}' | sed y/q/q/ | sh",
    "awk 1": f"echo '{PAYLOAD}' | awk 1 | sh",
    "grep .": f"echo '{PAYLOAD}' | grep . | sh",
    "cut -c1-": f"echo '{PAYLOAD}' | cut -c1- | sh",
}

# A shell inside `sh -c` reading the pipe the outer command feeds.
NESTED = {
    "sh -c sh": f"echo '{PAYLOAD}' | sh -c sh",
    "bash -c bash": f"echo '{PAYLOAD}' | bash -c bash",
    "sh -c 'exec sh'": f"echo '{PAYLOAD}' | sh -c 'exec sh'",
    "bash -c 'sh -'": f"echo '{PAYLOAD}' | bash -c 'sh -'",
    "sh -c 'cat | sh'": f"echo '{PAYLOAD}' | sh -c 'cat | sh'",
    "sh -c 'sh -c sh'": f"echo '{PAYLOAD}' | sh -c 'sh -c sh'",
    "env -i sh -c sh": f"echo '{PAYLOAD}' | env -i sh -c sh",
    "function in sh -c": f"echo '{PAYLOAD}' | sh -c 'f() {{ sh; }}; f'",
    "eval in sh -c": f"echo '{PAYLOAD}' | sh -c 'eval sh'",
}

# Spellings of the same that are judged (held).
JUDGED = {
    "sh": f"echo '{PAYLOAD}' | sh",
    "eval cat": f"echo '{PAYLOAD}' | bash -c 'eval \"$(cat)\"'",
    "subshell": f"echo '{PAYLOAD}' | (sh)",
    "group": f"echo '{PAYLOAD}' | {{ sh; }}",
    "function": f"f() {{ sh; }}; echo '{PAYLOAD}' | f",
    "here-string through a function": f"f() {{ cat; }}; f <<< '{PAYLOAD}' | sh",
    "alias": f"alias s=sh\necho '{PAYLOAD}' | s",
    "xargs sh -c": f"echo '{PAYLOAD}' | xargs -I{{}} sh -c {{}}",
    "tee >(sh)": f"echo '{PAYLOAD}' | tee >(sh) >/dev/null",
    "tee | sh": f"echo '{PAYLOAD}' | tee /dev/null | sh",
    "here-string": f"sh <<< '{PAYLOAD}'",
    "source /dev/stdin": f"echo '{PAYLOAD}' | source /dev/stdin",
    "process substitution": f"sh < <(echo '{PAYLOAD}')",
    "source <()": f"source <(echo '{PAYLOAD}')",
    "bash -s": f"echo '{PAYLOAD}' | bash -s",
    "sort": f"echo '{PAYLOAD}' | sort | sh",
    "sh -c echo": f"sh -c \"echo '{PAYLOAD}'\" | sh",
    "eval echo": f"eval \"echo '{PAYLOAD}'\" | sh",
    "while read eval": f"echo '{PAYLOAD}' | while read -r l; do eval \"$l\"; done",
    "awk system": f"echo '{PAYLOAD}' | awk '{{system($0)}}'",
}


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    root = tmp_path_factory.mktemp("redt32")
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("secret key\n")
    work = root / "work"
    work.mkdir()
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        yield root, home, work
    finally:
        if saved is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = saved


@pytest.fixture(scope="module")
def engine(places: tuple[Path, Path, Path]) -> Iterator[Engine]:
    root, _, work = places
    loaded = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(root / "state")})
    yield loaded
    loaded.close()


def _judged(engine: Engine, command: str) -> tuple[str, list[str]]:
    verdict = engine.check(command)
    return verdict.decision, sorted(m.key for m in verdict.matches)


@pytest.mark.parametrize("command", JUDGED.values(), ids=JUDGED.keys())
def test_printed_shell_text_into_a_shell_is_judged(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow"


@pytest.mark.parametrize("command", FILTERED.values(), ids=FILTERED.keys())
def test_known_text_through_a_filter_into_a_shell(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow"


@pytest.mark.parametrize("command", NESTED.values(), ids=NESTED.keys())
def test_a_shell_inside_sh_c_reading_the_pipe(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow"


def test_no_state_leaks_from_one_check_into_the_next(engine: Engine) -> None:
    targets = [PAYLOAD, "cat ~/.ssh/id_ed25519", f"echo '{PAYLOAD}' | sh", "fc -s rm"]
    before = {t: _judged(engine, t) for t in targets}
    earlier = [
        "rm() { :; }",
        "alias rm=echo",
        "alias cat=true",
        f"history -s '{PAYLOAD}'",
        "sh() { cat; }",
        "f() { local HOME=/tmp; }; f",
        "exec 3< /dev/null",
        "mv a b",
        "cat > s.sh; sh s.sh",
        "alias a='rm -rf'; a ~",
    ]
    for line in earlier:
        engine.check(line)
        assert {t: _judged(engine, t) for t in targets} == before, line


def test_kept_classes_follow_the_file_system(engine: Engine, places: tuple[Path, Path, Path]) -> None:
    """perfb32's kept classes against changes another process makes between two checks; each
    second verdict equals a fresh engine's (and is not allow)."""
    root, home, work = places
    key = str(home / ".ssh" / "id_ed25519")
    (work / "a" / "b").mkdir(parents=True)
    (work / "c" / "b").mkdir(parents=True)
    (work / "f.txt").write_text("plain\n")
    (work / "d").mkdir()
    (work / "e").mkdir()
    commands = ["cat a/k", "cat c/b/k", "cat f.txt", "rm -rf d/*", "cp f e/.bashrc"]
    time.sleep(2.1)  # past landing._RACY_NS: the listings are kept, and so are the words' classes
    for command in commands:
        first = _judged(engine, command)
        assert _judged(engine, command) == first, command
    # A folder on the way renamed and replaced by a link to a folder holding a link to the key.
    (root / "t").mkdir()
    os.symlink(key, root / "t" / "k")
    os.rename(work / "a", work / "a0")
    os.symlink(root / "t", work / "a")
    # A folder moved out of the tree and a new one holding a link made in its place.
    os.rename(work / "c", root / "c-moved")
    (work / "c").mkdir()
    os.symlink(root / "t", work / "c" / "b")
    # Hundreds of events (past the watcher's _MAX_EVENTS), then a file replaced by a link.
    for i in range(300):
        (work / f"n{i}").write_text("x")
    (work / "f.txt").unlink()
    os.symlink(key, work / "f.txt")
    # Folders replaced by links to home.
    os.rmdir(work / "d")
    os.symlink(home, work / "d")
    os.rmdir(work / "e")
    os.symlink(home, work / "e")
    assert_judged_as_fresh(engine, work, root / "state2", commands)
