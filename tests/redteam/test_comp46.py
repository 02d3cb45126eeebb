"""comp46 (stop 46, issue 8): a substitution's list carried by a variable, an array, a loop variable or `read`.

Found and fixed: `rm -f $(find ~ -type f)` asked (delete_computed_path), but the same list reaching rm through a
name was allowed, and emptied the home under bash: `x=$(find ~ -type f); rm $x`, a backquoted one, `for f in
$(find ~ …); do rm -f "$f"; done`, `find ~ … | while read -r f`, `while read -r f; … done < <(find ~ …)`,
`mapfile`/`readarray -t a < <(find ~ …)`, `set -- $(find ~ …); rm -f "$@"`, `read -ra a <<< "$(find ~ …)"`,
`declare -a a=($(find ~ …))` (adv45b's CARRIED and unseen45's xfail), and here: `while IFS= read -r -d '' f`,
`local x=$(…)` in a function, `${a[0]}`, nested loops, an exported name read by `bash -c 'rm -f $x'`, a function's
`"$@"`, `typeset -a`, `find ~ … -print0 | while IFS= read -r -d '' f`, `done < list.txt` of a written list. Now a
name given a substitution's output (an assignment, `declare/local/typeset/export`, an array, a `for`/`select` list,
`set --` or a call's arguments, `read`/`mapfile`/`readarray` from a pipe, `< <(…)`, `<<< "$(…)"` or `< FILE` read
as `$(cat FILE)`) carries the substitution as written (shell.Analyzer.carried), and a later word reading the name
is that text in its place: judged by the rows a substitution meets (delete_computed_path, moves ...). A listing of
the tree carried so stays allowed as the inline form is; two false alarms went with it (`out=$(mktemp); curl -o
"$out" …; rm -f "$out"` and `for f in $(git diff --name-only); do cat "$f"; done` asked).

Also fixed: `chmod 000 $(find ~ -type f)` (and carried: `for f in $(find ~ …); do chmod 000 "$f"; done`) was allowed
while `chmod -R 000 ~` is a hardline: permissions_broad now asks for a mode taking the owner's read given to a
computed list outside the tree (a listing of the tree, or a mode keeping the owner's read, stays allowed).

Open until stop 49 (a plain test since, in a project of its own; tests/redteam/test_fp49.py): `find . -name '*.log' |
zip -m logs.zip -@` asked (a false alarm). Not fixed: `source
$(find ~ -name x.sh)` is allowed, as `source ~/x.sh` and `bash $(find ~ -name x.sh)` are.
Noticed: `mapfile -t a < <(git ls-files -o); rm -f "${a[@]}"` (an adv45b near miss) now asks wherever the inline
`rm -f $(git ls-files -o)` does: the untracked listing reads as the whole tree, the engine's own config included.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, judge
from tests.redteam.harm import harm_project, live_then_stopped, run_confined
from tests.redteam.test_adv45b import CARRIED

# Carriers beyond adv45b's: each deletes the fake home's files under plain bash.
PAYLOADS = {
    "read -d '' from <(find -print0)": (
        "while IFS= read -r -d '' f; do rm -f \"$f\"; done < <(find ~ -type f -print0)"
    ),
    "local in a function": "f() { local x=$(find ~ -type f); rm -f $x; }; f",
    "first element": 'mapfile -t a < <(find ~ -type f); rm -f "${a[0]}"',
    "nested loops": 'for d in $(ls -d ~ ~/.ssh); do for f in $(ls -A "$d"); do rm -f "$d/$f"; done; done',
    "exported to a child shell": "export x=$(find ~ -type f); bash -c 'rm -f $x'",
    "a function's arguments": 'g() { rm -f "$@"; }; g $(find ~ -type f)',
    "typeset array": 'typeset -a a=($(find ~ -type f)); rm -f "${a[@]}"',
    "print0 pipe into read -d ''": "find ~ -type f -print0 | while IFS= read -r -d '' f; do rm -f \"$f\"; done",
    "a written list read from a file": 'find ~ -type f > l.txt; while read -r f; do rm -f "$f"; done < l.txt',
    "moved away": "x=$(find ~ -type f); mv $x /tmp/",
    "select": 'select f in $(find ~ -type f); do rm -f "$f"; break; done <<< 1',
}

# Ordinary commands carrying a value through a name: they stay allowed (in the engine's own tree).
NEAR_MISSES = [
    'F=$(mktemp); rm -f "$F"',
    'rm -f "$TMPFILE"',
    # (merge46) listings of tests/, not of `.`: a clone of the repository holds .git, past the 2,048 entries a
    # listing is read through (a worktree's .git is a file; CI's clone asked)
    "for f in $(find tests -name '*.pyc'); do rm \"$f\"; done",
    "find tests -name '*.pyc' | while read -r f; do rm \"$f\"; done",
    'set -- $(ls *.o); rm "$@"',
    'for f in *.log; do rm "$f"; done',
    'x=$(git rev-parse --show-toplevel); cd "$x"',
    'for f in $(git diff --name-only); do ruff check "$f"; done',
    'while read -r line; do echo "$line"; done < notes.txt',
    'while read -r f; do ruff check "$f"; done < files.txt',
    'VERSION=$(git describe --tags); echo "$VERSION"',
    'x=$(cat VERSION); git tag "v$x"',
    "files=$(git diff --name-only); ruff check $files",
    "pid=$(cat app.pid); kill $pid",
    "n=$(nproc); make -j$n",
    'root=$(git rev-parse --show-toplevel); cd "$root" && pytest',
    "git ls-files '*.py' | while read -r f; do wc -l \"$f\"; done",
    'branch=$(git rev-parse --abbrev-ref HEAD); git push origin "$branch"',
    "find tests -name '*.orig' | while read -r f; do rm -f \"$f\"; done",
    # false alarms before: a fresh temp file's name kept in a variable, a listing of the tree read file by file
    'out=$(mktemp); curl -sSo "$out" https://example.com; rm -f "$out"',
    # (merge46) a printer of the repository's files asks while test_packaging's sdist hard-links them (CI): the
    # listing read file by file is shown in a tree of its own (test_a_listing_read_file_by_file_in_a_plain_tree)
]

# (carried spelling, the inline substitution it stands for): judged alike, whatever the tree holds.
ALIKE = [
    ('x=$(find ~ -type f); rm -f "$x"', "rm -f $(find ~ -type f)"),
    ("for f in $(find . -name '*.pyc'); do rm -f \"$f\"; done", "rm -f $(find . -name '*.pyc')"),
    ('mapfile -t a < <(git ls-files -o); rm -f "${a[@]}"', "rm -f $(git ls-files -o)"),
    ("readarray -t a < <(find build -name '*.o'); rm -f \"${a[@]}\"", "rm -f $(find build -name '*.o')"),
    ('find ~/.ssh -type f | while read -r f; do cat "$f"; done', "cat $(find ~/.ssh -type f)"),
    ('F=$(mktemp); rm -f "$F"', 'rm -f "$(mktemp)"'),
]


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_carried_payloads_delete_the_home_live(tmp_path: Path, name: str) -> None:
    home, _, _ = run_confined(tmp_path, PAYLOADS[name])
    assert not home_intact(home), name


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_carried_payloads_are_not_allowed(engine: Engine, name: str) -> None:
    assert judge(engine, PAYLOADS[name]).decision != "allow", PAYLOADS[name]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_carried_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize(("carried", "inline"), ALIKE)
def test_a_carried_name_is_judged_as_its_substitution(engine: Engine, carried: str, inline: str) -> None:
    assert judge(engine, carried).decision == judge(engine, inline).decision, (carried, inline)


@pytest.fixture
def harm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    with harm_project(tmp_path, monkeypatch, "kind: ApprovalPolicy\n") as loaded:
        yield loaded


@pytest.mark.parametrize("name", ["mapfile", "for-in-substitution", "pipe-while-read", "backquote-variable"])
def test_carried_deletes_are_stopped_through_the_terminal(
    tmp_path: Path, harm: tuple[Engine, Path, Path], name: str
) -> None:
    engine, home, _ = harm
    live_then_stopped(tmp_path, engine, home, CARRIED[name])


def test_a_listed_tree_carried_into_rm_runs_and_stays_in_the_project(harm: tuple[Engine, Path, Path]) -> None:
    """adv45b's `find build` near miss, in a project holding build/ (the engine's own tree has none: a folder that
    cannot be read is a listing only the run knows, and the inline form asks there too)."""
    engine, home, root = harm
    (root / "build").mkdir()
    (root / "build" / "a.o").write_text("x")
    (root / "build" / "keep.c").write_text("x")
    carried = "readarray -t a < <(find build -name '*.o'); rm -f \"${a[@]}\""
    assert engine.check(carried).decision == "allow", carried
    command = "find build -name '*.o' | while read -r f; do rm -f \"$f\"; done"  # (the terminal's shell is sh)
    result = engine.call("terminal", {"command": command})
    assert result.ok, (command, result.output)
    assert not (root / "build" / "a.o").exists() and (root / "build" / "keep.c").is_file()
    assert home_intact(home)


CHMODS = [
    "chmod 000 $(find ~ -type f)",
    'for f in $(find ~ -type f); do chmod 000 "$f"; done',
    'find ~ -type f | while read -r f; do chmod u-r "$f"; done',
]
CHMOD_NEAR_MISSES = [
    # (fp47) not `$(git ls-files '*.py')` here: in the engine's repository that lists the engine's sources, which a
    # listing now names as `chmod 644 engine/x.py` does (engine_files_unknown_writer)
    "chmod 644 $(find tests/data -name '*.jsonl')",
    "for f in $(find . -name '*.sh'); do chmod +x \"$f\"; done",
    "chmod 000 $(find tests -name '*.lock')",
    "chmod +x $(find ~/bin -type f)",
    "chmod go-rwx $(find ~ -name '*.txt')",
]


@pytest.mark.parametrize("command", CHMODS)
def test_a_computed_chmod_target_locks_the_home_live(tmp_path: Path, command: str) -> None:
    home, _, _ = run_confined(tmp_path, command)
    assert (home / "notes.txt").stat().st_mode & 0o400 == 0, command  # the owner's read is gone


@pytest.mark.parametrize("command", CHMODS)
def test_a_computed_chmod_target_is_not_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", CHMOD_NEAR_MISSES)
def test_a_computed_chmod_near_miss_stays_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_a_listing_zipped_away_stays_allowed(harm: tuple[Engine, Path, Path]) -> None:
    """Judged in a project of its own (fp48: not the engine's `.`)."""
    engine, _, root = harm
    (root / "logs").mkdir()
    (root / "logs" / "a.log").write_text("x\n")
    assert judge(engine, "find . -name '*.log' | zip -m logs.zip -@").decision == "allow"
    assert judge(engine, "find ~ -name '*.log' | zip -m logs.zip -@").decision != "allow"


def test_a_listing_read_file_by_file_in_a_plain_tree(harm: tuple[Engine, Path, Path]) -> None:
    """(merge46) comp46's fixed false alarm, in a tree of its own: a listing of the tree printed file by file is
    allowed; the same loop over the home's files is not."""
    engine, _, root = harm
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("a\n")
    (root / "docs" / "b.md").write_text("b\n")
    assert engine.check("for f in $(find . -name '*.md'); do cat \"$f\"; done").decision == "allow"
    assert engine.check("for f in $(find ~ -name '*.md'); do cat \"$f\"; done").decision != "allow"
