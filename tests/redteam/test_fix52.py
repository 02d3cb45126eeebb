"""stop 52 (issue 8): an option's value split at run time, uv's `--script PATH`, and stop 51's two regressions.

1. An option's value spelled as an unquoted substitution, or a variable the line set to a text nobody knows, splits
   at run time: its words after the first are the program's options. `git -C $(cat f) status` with f holding
   `. -c core.fsmonitor=./x.sh` ran x.sh (live below: the note deleted) and was allowed, as was `read -r s; git -C $s
   status`; `-C "$(cat f)"` (one word) stays allowed. A substitution printing no option (a path, a revision, a
   number or a date: `make -j$(nproc)`, `git log --since=$(date +%F)`) is none (substitution_words' `numbers`).
2. uv's verbs that read a script's inline metadata (add, remove, sync, lock, export, tree) take `--script PATH`; the
   uv row read it as `uv run`'s flag, so `while read -r script; do uv lock --script "$script" --check; done` (fp45's
   corpus, from astral-sh/uv's own workflow) asked since stop 51. A table's `long:` may now hold a list (`[*uv_long,
   script=]`), a later spelling of a name replacing an earlier one; `uv run --script "$s"` still runs $s (asks).
3. Decision on stop 51's kept-$PWD regression: `p=$PWD; cd /tmp; echo x > $p/notes.txt` asks because p is forgotten
   at an absolute `cd` and an unknown folder may be the home, where notes.txt is the user's (home51's user_file). A
   name the home does not hold stays allowed (test_pwd_kept, test_unknown_prefix).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import pure_build_only
from tests.redteam.harm import policy_project, run_confined, said

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SPLIT_VALUES = [
    "git -C $(cat f) status",
    "git -C `cat f` status",
    "read -r s; git -C $s status",
    "git -C $(cat f)/sub log",
    "read -r s; uv sync --script $s",
    "read -r s; uv lock --script=$s",
    "git log --since=$(date +%z)",
    # (rev52) an expansion past the value's start, or after a substitution printing no option, or a second command
    "git log $(id -u)$(cat f)",
    "git -C $(pwd)$(cat f) status",
    "git -C x$(cat f) status",
    "git -C $X$(cat f) status",
    "git log --since=$(date +%F)$(cat g)",
    "make -j$(nproc)$(cat f)",
    "make -j$(nproc\ncat f)",
    "git -C $(pwd; cat f) status",
    'git -c "core.$(cat f)" status',
    "git log x$(cat f)",
]
NEAR_MISSES = [
    'git -C "$(cat f)" status',
    'read -r s; git -C "$s" status',
    "git -C $(git rev-parse --show-toplevel) status",
    "git -C $HOME/src/x status",
    "make -j$(nproc)",
    "mkdir -p build && cd build && cmake .. && make -j$(nproc)",
    "git log --since=$(date +%F)",
    "git log --since=$(date -u +%Y-%m-%d) --oneline",
    "tar czf backup-$(date +%F).tgz src",
    "docker run --name app-$(id -u) img",
    "git -C $(pwd)/sub log",
    'while IFS= read -r script; do uv lock --script "$script" --check; done',
    # (stop 53: `uv add --script "$s"` writes $s, a file only the run knows: asks, write_computed_target)
    'read -r s; uv export --script "$s"',
    "uv lock --script x.py --check",
    "uv run --script x.py",
    "p=$PWD; cd /tmp; echo x > $p/out.txt",
    "echo x > $OUT/out.txt",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "fix52", "kind: ApprovalPolicy\n") as loaded:
        yield loaded


@needs_git
@pytest.mark.parametrize(
    ("planted", "command"),
    [
        (". -c core.fsmonitor=./x.sh", "git -C $(cat f) status"),
        (" -c core.fsmonitor=./x.sh", "git -C $(pwd)$(cat f) status"),
    ],
)
def test_a_split_option_value_runs_a_hook_live(tmp_path: Path, planted: str, command: str) -> None:
    setup = (
        "git init -q && printf '#!/bin/sh\\nrm -f \"$HOME/notes.txt\"\\n' > x.sh && chmod +x x.sh\n"
        f"printf '{planted}' > f\n"
    )
    home, _, printed = run_confined(tmp_path, setup + command)
    assert not (home / "notes.txt").exists(), printed
    # quoted, the same file is one folder's name: nothing runs
    home, _, printed = run_confined(tmp_path / "quoted", setup + 'git -C "$(cat f)" status')
    assert (home / "notes.txt").read_text() == "keep me\n", printed


@pytest.mark.parametrize("command", SPLIT_VALUES)
def test_a_split_option_value_is_not_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    verdict = engine.check(command)
    assert verdict.decision == "allow", said(command, verdict)


def test_uv_run_still_runs_its_script_word(project: tuple[Path, Engine]) -> None:
    """`--script` is a flag of `uv run`: the word after it is the program run (a read one is unknown code)."""
    _, engine = project
    for command in ('read -r s; uv run --script "$s"', 'read -r s; uv run -s "$s"', "uv run --script rm -rf ~"):
        verdict = engine.check(command)
        assert verdict.decision != "allow", said(command, verdict)


def test_an_unknown_folder_before_a_users_file_asks(project: tuple[Path, Engine], tmp_path: Path) -> None:
    """An unknown folder may be the home (an earlier call's `export X=$HOME`): a name the home holds as the user's
    file is destroyed there (live), a name it does not hold stays allowed."""
    _, engine = project
    home = Path(os.environ["HOME"])
    assert (home / "notes.txt").is_file()
    for command in ("echo x > $X/notes.txt", "p=$PWD; cd /tmp; echo x > $p/notes.txt"):
        verdict = engine.check(command)
        assert verdict.decision != "allow", said(command, verdict)
    live, _, printed = run_confined(tmp_path, "X=$HOME; echo x > $X/notes.txt")
    assert (live / "notes.txt").read_text() != "keep me\n", printed
    assert engine.check("echo x > $X/out.txt").decision == "allow"


ROOTED = [
    'cat "$X"/etc/shadow',
    'cat "$@"/etc/shadow',
    'cat "$*"/etc/shadow',
    'cat "${1}"/etc/shadow',
    'echo x > "$X"/etc/cron.d/x',
    'cp a.txt "$DESTDIR"/etc/sudoers.d/x',
    # (rev52) a system folder's file: `echo x > /usr/bin/ls` asks
    'echo x > "$X"/usr/bin/ls',
    'cp a.txt "$OUT"/bin/app',
]
ROOTED_NEAR = [
    'echo x > "$OUT"/log.txt',
    'mkdir -p "$DESTDIR"/usr/share/x',
    'tar czf "$OUT"/etc.tgz .',
    'cat "$SRC"/etc/config.yaml',
    'cat "$X"/etc/hosts',
]


def test_an_empty_quoted_folder_is_the_root_live(tmp_path: Path) -> None:
    """`"$@"` with no arguments, an unset `"$X"`: the word is the path from the root (a file of the test's own, by
    its absolute path without the leading `/`, is printed)."""
    mine = tmp_path / "mine.txt"
    mine.write_text("the root's\n")
    below = str(mine)[1:]
    _, _, printed = run_confined(tmp_path, f'cat "$@"/{below}; cat "$X"/{below}')
    assert printed == "the root's\n" * 2


@pytest.mark.parametrize("command", ROOTED)
def test_a_system_file_below_an_unknown_quoted_folder_is_not_allowed(
    project: tuple[Path, Engine], command: str
) -> None:
    """(stop 52) `cat $X/etc/shadow` asked (unquoted, split), `cat "$X"/etc/shadow` did not: an unknown folder before
    a path read as a home's or an engine's file only, not as the root's (the variable empty)."""
    _, engine = project
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


@pytest.mark.parametrize("command", ROOTED_NEAR)
def test_an_ordinary_path_below_an_unknown_folder_stays_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    verdict = engine.check(command)
    assert verdict.decision == "allow", said(command, verdict)


@pure_build_only
def test_a_home_spelled_by_its_users_name_is_read_where_it_is(
    project: tuple[Path, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    """(stop 52) `~USER` was read as /home/USER: `~root/notes.txt` (HOME=/root), `~postgres/x` named no existing file
    there, so no user_file (`echo x > ~root/notes.txt` was allowed). The password database says where a home is
    (here a fake one: a user whose home holds a note, one whose home is `/`, one at /dev with `..` after it); a user
    it does not know leaves the word as written (a name in the working directory: a link `~zz` there to the home);
    pushd's stack (`~1`, `~+1`) is known when the command runs."""
    root, engine = project
    home = Path(os.environ["HOME"])
    homes = {"fakeu": str(home), "rootish": "/", "devu": "/dev"}

    def getpwnam(name: str) -> object:
        if name not in homes:
            raise KeyError(name)
        return type("Entry", (), {"pw_dir": homes[name]})()

    monkeypatch.setattr(pwd, "getpwnam", getpwnam)
    link = root / "~zz"
    link.symlink_to(home)
    try:
        for command in (
            "echo x > ~fakeu/notes.txt",
            "rm ~fakeu/notes.txt",
            "cat ~rootish/etc/shadow",
            "cat ~devu/../etc/shadow",
            "echo x > ~devu/../etc/cron.d/x",
            "echo x > ~zz/notes.txt",
            "rm ~zz/notes.txt",
            "pushd ~; pushd /tmp; echo x > ~1/notes.txt",
            "rm ~+1/notes.txt",
        ):
            verdict = engine.check(command)
            assert verdict.decision != "allow", said(command, verdict)
        assert engine.check("echo x > ~fakeu/new.txt").decision == "allow"
    finally:
        link.unlink()


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_a_ripgrep_configuration_the_session_wrote_is_read(plain_harm: tuple[Engine, Path, Path]) -> None:
    """(stop 52) RIPGREP_CONFIG_PATH names a file of rg's arguments, one a line: `--pre=./x.sh` runs x.sh on every
    file searched. Unguarded, the note is deleted (first run, its own copy); through the engine the call is refused
    and the home intact; a configuration of plain options stays allowed."""
    engine, home, root = plain_harm
    setup = [
        'printf \'#!/bin/sh\\nrm -f "$HOME"/notes.txt\\ncat "$1"\\n\' > x.sh && chmod +x x.sh',
        "printf -- '--pre=./x.sh\\n' > cfg",
        "printf -- '--smart-case\\n--hidden\\n' > plain.cfg",
        "echo foo > a.txt",
    ]
    for step in setup:
        assert engine.call("terminal", {"command": step}, session_id="rg").ok, step
    live = root / "live"
    live.mkdir()
    for name in ("x.sh", "cfg", "a.txt"):
        shutil.copy2(root / name, live / name)
    (live / "notes.txt").write_text("keep me\n")
    env = {"HOME": str(live), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "RIPGREP_CONFIG_PATH": "cfg"}
    subprocess.run(["rg", "foo", "a.txt"], cwd=live, env=env, capture_output=True, timeout=30, check=False)
    assert not (live / "notes.txt").exists()
    result = engine.call("terminal", {"command": "RIPGREP_CONFIG_PATH=cfg rg foo a.txt"}, session_id="rg")
    assert not result.ok and result.error is not None and result.error.type in ("denied", "pending_approval")
    assert (home / "notes.txt").read_text() == "keep me\n"
    assert engine.call("terminal", {"command": "RIPGREP_CONFIG_PATH=plain.cfg rg foo a.txt"}, session_id="rg").ok
