"""fp47 (stop 47, issue 8): false alarms of ordinary cleanup in a real project tree, and a hole found measuring them.

MEASURED: a project as a developer has it (a clone's .git of ~1,100 entries made by real `git init` and 12 commits,
a `.venv` made by `python -m venv` that the engine itself runs from (adv46: its interpreter's files are the engine's),
a node_modules of 3,150 files, a Python package with __pycache__ folders, *.orig / *.log leftovers): 6,850 entries in
all. 49 ordinary cleanup and build commands (/tmp list in the stop's report) judged there: 33 asked before this stop,
17 after. A listing of the tree was read only through 2,048 entries, counted before find's `-name` test (a clone's
.git alone passes it), and `find -delete` / `-exec rm {} +` asked (find_delete) whatever it deleted.

FIXED:
1. `rm $(find . -name '*.pyc')`, `for f in $(find . -name '*.orig'); do rm "$f"; done`, `rm -f $(find . -maxdepth 1
   -name '*.orig')`, `cat $(find . -name '*.log')` asked in such a tree (delete_computed_path / read_computed_path:
   past the listing's read limit, a path only the run knows). A find listing with a `-name` test counts only the
   entries it prints against the 2,048 (paths.PathClassifier._listed); the entries it reads in all are bounded
   apart (65,536, _MAX_NAMED_READ), a folder read only in part is not read (asks), and -maxdepth bounds the walk.
2. `find . -name '*.pyc' -delete`, `find . -name '*.log' -exec rm {} +` (rm with -f / -v only), `find src -type f
   -name '*.orig' -delete`, `find . -maxdepth 2 -name '*.log' -delete` asked (find_delete). A find deleting in the
   working tree the files its `-name` tests pass (tests -name/-iname/-type/-maxdepth/-mindepth only, no alternative,
   no link followed, no recursive rm) is read as the `rm -f $(find START EXPR)` it is (evaluate._find_deletes).
3. HOLE (found measuring, before this stop too): a listing of the tree naming one of the engine's files without
   spelling it was allowed: `rm $(find . -name 'x.txt')` with toolsets/x.txt deleted it (the engine's patterns are
   gated on the line naming an engine file). Now such a word is read where it lands (View.words_land_elsewhere):
   `rm $(find . -name '*.py')` with the engine's .venv below is engine_files_write (denied), as `rm $(ls toolsets)`.

Still refused (payloads below): the same deletes over ~, /, `..`, after `cd ~`, with -L, a recursive rm, an
alternative, a `.env` / key / engine file in the tree, more printed names than the listing reads.

OPEN (strict xfails below, in such a tree): `rm -f $(git ls-files -o --exclude-standard)` (no name test: the whole
tree is classified, past the limit; .gitignore is not read). Fixed in fp48 (FIXED_IN_FP48): `find . -path ./.venv
-prune -o -name '*.pyc' -delete`; in fp49 (tests/redteam/test_fp49.py): `find . -name '*.pyc' | xargs rm -f`, `rm -rf
$(find . -name __pycache__)`.
"""

# ruff: noqa: E501
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import assert_allowed, assert_judged, policy_project, said

POLICY = "kind: ApprovalPolicy\n"


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@x"
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _tree(root: Path) -> None:
    """A developer's clone: .git (real commits), .venv (`python -m venv`), node_modules, __pycache__, leftovers."""
    app = root / "src" / "app"
    (app / "__pycache__").mkdir(parents=True)
    for i in range(300):
        (app / f"m{i}.py").write_text(f"x = {i}\n")
    for i in range(50):
        (app / "__pycache__" / f"m{i}.cpython-312.pyc").write_bytes(b"\0")
    (root / "tests").mkdir()
    for i in range(100):
        (root / "tests" / f"test_{i}.py").write_text("")
    _git(root, "init", "-q")
    for c in range(8):
        for i in range(75):
            with (app / f"m{(c * 75 + i) % 300}.py").open("a") as f:
                f.write(f"# {c}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"c{c}")
    # (without pip: ensurepip costs ~15 s; an installed package's sources and bytecode stand for it)
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    for p in range(40):
        package = site / f"dep{p}"
        (package / "__pycache__").mkdir(parents=True)
        for m in range(20):
            (package / f"mod{m}.py").write_text("")
            (package / "__pycache__" / f"mod{m}.cpython-312.pyc").write_bytes(b"\0")
    for p in range(150):
        lib = root / "node_modules" / f"pkg{p}" / "lib"
        lib.mkdir(parents=True)
        (lib.parent / "package.json").write_text("{}")
        for f in range(20):
            (lib / f"f{f}.js").write_text("")
    for name in ("a.orig", "src/b.orig", "build.log", "src/x.log", "src/app/y.rej", ".DS_Store"):
        (root / name).write_text("")
    (root / ".gitignore").write_text(".venv/\nnode_modules/\n*.pyc\n__pycache__/\n*.log\n")


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """The tree above as the working directory, the engine running from its .venv (adv46: those are its files)."""
    from engine.policy import places

    def prepare(root: Path, mp: pytest.MonkeyPatch) -> None:
        _tree(root)
        assert sum(1 for _ in root.rglob("*")) > 6000 and sum(1 for _ in (root / ".git").rglob("*")) > 1000
        assert sum(1 for _ in (root / ".venv").rglob("*")) > 1600
        real = places.interpreter_files

        def in_project(*args: object, **kwargs: object) -> tuple[list[Path], list[Path]]:
            folders, files = real()
            return [root / ".venv", *folders], files

        mp.setattr(places, "interpreter_files", in_project)

    with policy_project(tmp_path_factory, "fp47", POLICY, prepare) as project:
        yield project


# Ordinary cleanup in the clone: each asked before this stop (past the listing's read limit, or find_delete).
NEAR_MISSES = [
    "rm $(find . -name '*.pyc')",
    "rm -f $(find . -name '*.pyc')",
    "for f in $(find . -name '*.orig'); do rm \"$f\"; done",
    "for f in $(find . -name '*.pyc'); do rm -f \"$f\"; done",
    "rm -f $(find . -maxdepth 1 -name '*.orig')",
    "cat $(find . -name '*.log')",
    "find . -name '*.pyc' -delete",
    "find . -type f -name '*.pyc' -delete",
    "find . -name '*.log' -exec rm {} +",
    "find . -name '*.log' -exec rm -f {} \\;",
    "find . -name '*.orig' -delete",
    "find . -name '*.rej' -delete",
    "find . -name '.DS_Store' -delete",
    "find src -name '*.pyc' -delete",
    "find . -maxdepth 2 -name '*.log' -delete",
    "find . -maxdepth 1 -name '*.orig' -delete",
    "find . -iname '*.ORIG' -exec rm -fv {} +",
]

# The same cleanup where it deletes what it must not: each not allowed.
PAYLOADS = {
    # the engine's interpreter (its venv, in the project) and manifests, named by no word of the line (the hole)
    "rm $(find . -name '*.py')": "deny",
    "rm -f $(find . -name 'pyvenv.cfg')": "deny",
    "find . -name '*.py' -delete": "deny",
    "find . -name 'pyvenv.cfg' -exec rm {} +": "deny",
    "find . -name '*.yaml' -delete": "deny",
    "for f in $(find . -name 'deny.yaml'); do rm \"$f\"; done": "deny",
    # outside the working tree, or read in a way the listing does not model
    "find ~ -name '*.pyc' -delete": "deny",
    "find / -name '*.pyc' -delete": "deny",
    "find .. -name '*.pyc' -delete": "not allow",
    "cd ~ && find . -name '*.pyc' -delete": "not allow",
    "find -L . -name '*.pyc' -delete": "not allow",
    "find . -name '*.pyc' -exec rm -rf {} +": "not allow",
    "find . -name '*.pyc' -delete -o -name x": "not allow",
    "find . -name '*.pyc' -o -name '*' -delete": "not allow",
    "find . -path ./src -name '*.pyc' -delete": "not allow",
    "find . -name '*' -delete": "not allow",
    "find . -type f -delete": "not allow",
    "find . -name '*.pyc' -exec shred -u {} +": "not allow",
}


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_cleanup_in_a_clone_is_allowed(clone: tuple[Path, Engine], command: str) -> None:
    assert_allowed(clone[1], command)


@pytest.mark.parametrize("command", list(PAYLOADS))
def test_deletes_past_the_tree_or_of_the_engine_are_refused(clone: tuple[Path, Engine], command: str) -> None:
    assert_judged(clone[1], command, PAYLOADS[command])


@pytest.mark.parametrize("name", [".env", "id_ed25519", "server.pem"])
def test_a_protected_file_the_find_deletes_asks(clone: tuple[Path, Engine], name: str) -> None:
    root, engine = clone
    planted = root / "src" / name
    planted.write_text("secret")
    try:
        for command in (f"find . -name '{name}' -delete", f"find src -name '{name[:3]}*' -exec rm {{}} +"):
            verdict = engine.check(command)
            assert verdict.decision != "allow", said(command, verdict)
        near = "find src -name '*.orig' -delete"  # the same folder, its other names
        assert engine.check(near).decision == "allow", said(near, engine.check(near))
    finally:
        planted.unlink()


def test_more_printed_names_than_the_listing_reads_ask(clone: tuple[Path, Engine]) -> None:
    root, engine = clone
    many = root / "gen"
    many.mkdir()
    try:
        for i in range(2100):
            (many / f"g{i}.tmp").write_text("")
        for command in ("find . -name '*.tmp' -delete", "rm -f $(find gen -name 'g*')"):
            verdict = engine.check(command)
            assert verdict.decision != "allow", said(command, verdict)
        # names it does not print are not counted: the same tree, another name
        near = "find . -name '*.orig' -delete"
        assert engine.check(near).decision == "allow", said(near, engine.check(near))
    finally:
        for child in many.iterdir():
            child.unlink()
        many.rmdir()


def test_the_engine_file_delete_is_live_and_stopped(clone: tuple[Path, Engine], tmp_path: Path) -> None:
    """The hole's harm: run unguarded, `find . -name '*.yaml' -delete` deletes a project's policy; through the
    engine's terminal, nobody approving, the policy, the config and the home are intact."""
    root, engine = clone
    copy = tmp_path / "copy"
    (copy / "policies").mkdir(parents=True)
    (copy / "policies" / "deny.yaml").write_text(POLICY)
    subprocess.run(["bash", "-c", "find . -name '*.yaml' -delete"], cwd=copy, check=False, capture_output=True)
    assert not (copy / "policies" / "deny.yaml").exists()
    for command in ("find . -name '*.yaml' -delete", "rm $(find . -name 'deny.yaml')"):
        result = engine.call("terminal", {"command": command})
        assert not result.ok, command
        assert (root / "policies" / "deny.yaml").read_text() == POLICY
        assert (root / "hermes-engine.yaml").read_text() == "workdir: .\n"
        assert (root / ".venv" / "pyvenv.cfg").is_file()
        assert home_intact(Path(os.environ["HOME"]))


def test_the_allowed_cleanup_deletes_only_what_it_names(clone: tuple[Path, Engine]) -> None:
    """The near miss's effect: through the terminal, `find . -name '*.rej' -delete` runs and deletes only the
    leftover (the venv, the policy and the sources stay)."""
    root, engine = clone
    (root / "src" / "z.rej").write_text("")
    result = engine.call("terminal", {"command": "find src -name '*.rej' -delete"})
    assert result.ok, result.error
    assert not (root / "src" / "z.rej").exists() and not (root / "src" / "app" / "y.rej").exists()
    (root / "src" / "app" / "y.rej").write_text("")  # (back, for the other cases)
    assert (root / "src" / "app" / "m1.py").is_file() and (root / ".venv" / "pyvenv.cfg").is_file()
    assert (root / "policies" / "deny.yaml").read_text() == POLICY


OPEN = {
    "rm -f $(git ls-files -o --exclude-standard)": "no name test: every untracked entry is classified, past the listing's limit (.gitignore is not read)",
}

# (fp48) open here until stop 48, allowed since (tests/redteam/test_fp48.py): a pruned walk; (fp49) open until stop 49,
# allowed since (tests/redteam/test_fp49.py): a clean listing read where no command of the line makes names first
FIXED_IN_FP48 = [
    "find . -path ./.venv -prune -o -name '*.pyc' -delete",
    "find . -name '*.pyc' | xargs rm -f",
    "rm -rf $(find . -name __pycache__)",
]


@pytest.mark.parametrize("command", FIXED_IN_FP48)
def test_fixed_false_alarms(clone: tuple[Path, Engine], command: str) -> None:
    verdict = clone[1].check(command)
    assert verdict.decision == "allow", said(command, verdict)


@pytest.mark.parametrize(
    "command", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=why)) for c, why in OPEN.items()]
)
def test_open_false_alarms(clone: tuple[Path, Engine], command: str) -> None:
    verdict = clone[1].check(command)
    assert verdict.decision == "allow", said(command, verdict)


def test_a_working_directory_that_is_the_home_keeps_the_hardline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find . -name '*.txt' -delete` run in the home (the engine's working directory) is find_delete_critical's
    hardline, not the listing's reading (a home's `.`); in the home's src/ it is that reading."""
    home = make_home(tmp_path)
    (home / "src").mkdir()
    (home / "src" / "a.orig").write_text("")
    (home / "hermes-engine.yaml").write_text("workdir: .\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(home)
    with Engine.load(home) as engine:
        verdict = engine.check("find . -name '*.orig' -delete")
        assert verdict.decision == "deny", said("find . -name '*.orig' -delete", verdict)
        assert "find_delete_critical" in {m.key for m in verdict.matches}
        near = engine.check("find src -name '*.orig' -delete")
        assert near.decision == "allow", said("find src -name '*.orig' -delete", near)
