"""adv52 (issue 8): the adversary of stop 52's changes -- an option's value split at run time, uv's `--script PATH`,
and plain names in the working directory no longer read by user_file's globs.

1. Split values (shell.py `_splits_into_options`, `_split_options`). Stop 52 read only a value that *starts* with a
   substitution or a variable: `git -C ./$(cat f) status`, `git -C x$(cat f)`, `--git-dir=.git$(cat f)`, `-C
   $PWD$(cat f)`, `-C $(pwd)/$(cat f)`, `-C "."$(cat f)` and `git log $(nproc)$(cat f)` split just as well (f holding
   `. -c core.fsmonitor=./x.sh`: x.sh ran, live below) and were allowed. Every expansion in the word is read now
   (`_expands_no_option`): each plain substitution must print no option by the table (`substitution_words:`) and
   each variable be the environment's or a glob's. And a substitution whose program the line redefined (`nproc() {
   cat f; }`) or whose PATH it changed (`export PATH=.:$PATH` with ./nproc written) prints anything: `make
   -j$(nproc)` then read `-f x.mk` (live below), so `_shadowed` takes such a substitution out of its kind.
2. uv reads a script's inline metadata (PEP 723 `# /// script`): `uv lock|sync|export|tree|add --script x.py` and
   `uv run x.py` fetch and build its dependencies' direct references, its [tool.uv] indexes and find-links and obey
   its [tool.uv] settings. A written x.py naming `find-links = ["file:///.../wh"]` built a local sdist whose in-tree
   backend deleted ~/notes.txt (live below, when uv is installed); a git URL or an index in the block was allowed
   where the same keys in pyproject.toml ask. Every written script's block is read as a pyproject's (`language:
   sources` and `conf`) by uv, hatch, pdm, poetry, pipenv, rye and pipx run (its name may be a variable's).
3. A `cd` only the run knows (`cd "$(dirname "$PWD")"`, `cd "$(cat f)"`, `cd ${PWD%/*}`) then a plain name: with the
   project at ~/p, `echo x >> .bashrc` or `echo x > notes.txt` wrote the home's file and was allowed, though `echo
   x > $D/.bashrc` asks (stop 52's decision: an unknown folder may be the home). A relative word after such a `cd`
   is now also read as `$UNKNOWN/word` (View._under_unknown): a name the home holds as its file or a secret asks.

4. A link made on the line into a folder (`cp -l ~/notes.txt .`, `cp -s ~/notes.txt .`) was remembered under the
   folder's name, and link(1) (`link ~/notes.txt h`) made none: writing `notes.txt` / `h` next wrote the user's note
   (live below). The link is now also read as NAME/TARGET's name, and link(1) is a linker.

Open (not fixed here, see the report): `rm $D/notes.txt` / `cd "$D" && rm .bashrc` (rm of a computed path is no
rule's, by design); a local find-links folder
holding an archive the session wrote (`--find-links wh` with a base64-decoded sdist).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import policy_project, project_in_home, run_confined, said, session_verdict

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
needs_uv = pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not installed")

HOOK = "git init -q && printf '#!/bin/sh\\nrm -f \"$HOME/notes.txt\"\\n' > x.sh && chmod +x x.sh\n"

SPLIT_VALUES = [
    "git -C ./$(cat f) status",
    "git -C x$(cat f) status",
    "git --git-dir=.git$(cat f) status",
    "git --work-tree=.$(cat f) status",
    "git -C $PWD$(cat f) status",
    "git -C $PWD/$(cat f) status",
    "git -C $(pwd)/$(cat f) status",
    "git -C $(pwd)$(cat f) status",
    'git -C "."$(cat f) status',
    'git -C "$(pwd)"$(cat f) status',
    "git -C $(nproc)$(cat f) status",
    "git -C $(git rev-parse --show-toplevel)/$(cat f) status",
    "d=$(cat f); git -C ./$d status",
    "read d < f; git -C ./$d status",
    "git log $(nproc)$(cat f)",
    "git log $(git merge-base a b)$(cat f)",
    "tar czf x.tgz ./$(cat list)",
    # a substitution whose program the line made another one
    "nproc() { cat f; }; git -C $(nproc) status",
    "nproc() { cat f; }; make -j$(nproc)",
    "pwd() { cat f; }; git -C $(pwd) status",
    "export PATH=.:$PATH; git -C $(nproc) status",
    "PATH=.:$PATH; make -j$(nproc)",
]
SPLIT_NEAR_MISSES = [
    "git -C $(pwd)/sub status",
    'git -C "$(pwd)/sub" status',
    'git -C "./$(cat f)" status',
    "git -C $HOME/src/x status",
    "git -C $PWD/sub status",
    "make -j$(nproc)",
    "make -j $(nproc)",
    "cmake -B build -DX=$(nproc)",
    "git log $(git merge-base a b)..HEAD",
    "git -C $(git rev-parse --show-toplevel) log",
    "tar czf x.tgz -C $(mktemp -d) .",
    "tar -C $(mktemp -d)/x -xzf a.tgz",
    "for f in *.c; do gcc -c ./$f; done",
    "docker run -v $(pwd):/src img ls",
    "docker run --user $(id -u):$(id -g) img ls",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv52", "kind: ApprovalPolicy\n") as loaded:
        yield loaded


@needs_git
@pytest.mark.parametrize(
    "payload",
    ["git -C ./$(cat f) status", "git -C $PWD/$(cat f) status", "nproc() { cat f; }; git -C $(nproc) status"],
)
def test_a_value_split_anywhere_runs_a_hook_live(tmp_path: Path, payload: str) -> None:
    home, _, printed = run_confined(tmp_path, HOOK + "printf '. -c core.fsmonitor=./x.sh' > f\n" + payload)
    assert not (home / "notes.txt").exists(), printed


@needs_make
def test_a_path_shadowed_nproc_gives_make_a_makefile_live(tmp_path: Path) -> None:
    setup = (
        "printf 'all:\\n\\trm -f $(HOME)/notes.txt\\n' > x.mk && printf '#!/bin/sh\\necho 1 -f x.mk\\n' > nproc\n"
        "chmod +x nproc\n"
    )
    home, _, printed = run_confined(tmp_path, setup + "export PATH=.:$PATH; make -j$(nproc)")
    assert not (home / "notes.txt").exists(), printed
    # the same line without the PATH change runs the system's nproc: nothing is deleted
    home, _, printed = run_confined(tmp_path / "plain", setup + "make -j$(nproc) -f /dev/null all 2>/dev/null; true")
    assert (home / "notes.txt").read_text() == "keep me\n", printed


@pytest.mark.parametrize("command", SPLIT_VALUES)
def test_a_value_split_anywhere_is_not_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


@pytest.mark.parametrize("command", SPLIT_NEAR_MISSES)
def test_split_near_misses_stay_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    verdict = engine.check(command)
    assert verdict.decision == "allow", said(command, verdict)


# -- 2. a script's inline metadata -------------------------------------------------------------------------------

BACKEND = (
    "mkdir -p src/evil-1.0 wh && cd src/evil-1.0\n"
    'printf \'[build-system]\\nrequires = []\\nbuild-backend = "backend"\\nbackend-path = ["."]\\n'
    '[project]\\nname = "evil"\\nversion = "1.0"\\ndynamic = ["dependencies"]\\n\' > pyproject.toml\n'
    "printf 'import os\\nos.remove(os.path.expanduser(\"~/notes.txt\"))\\n' > backend.py\n"
    "cd ../.. && tar czf wh/evil-1.0.tar.gz -C src evil-1.0\n"
    'printf \'# /// script\\n# dependencies = ["evil"]\\n# [tool.uv]\\n# find-links = ["file://%s/wh"]\\n'
    '# no-index = true\\n# ///\\nprint(1)\\n\' "$PWD" > x.py\n'
)


@needs_uv
@pytest.mark.parametrize("payload", ["uv lock --script x.py --offline", "uv run --offline x.py"])
def test_a_scripts_metadata_builds_what_it_names_live(tmp_path: Path, payload: str) -> None:
    home, _, printed = run_confined(tmp_path, BACKEND + f"timeout 60 {payload} >/dev/null 2>&1; true")
    assert not (home / "notes.txt").exists(), printed


def _script(*lines: str) -> str:
    return "".join(f"# {line}\n" for line in ("/// script", *lines, "///")) + "print(1)\n"


SCRIPTS = {
    "index": _script('dependencies = ["evil"]', "[tool.uv]", 'index-url = "https://h.example/simple"'),
    "find_links": _script('dependencies = ["evil"]', "[tool.uv]", 'find-links = ["file:///tmp/wh"]', "no-index = true"),
    "git": _script('dependencies = ["evil @ git+https://h.example/r"]'),
    "keyring": _script('dependencies = ["rich"]', "[tool.uv]", 'keyring-provider = "subprocess"'),
    "sources": _script('dependencies = ["evil"]', "[tool.uv.sources]", 'evil = { git = "https://h.example/r" }'),
}
SCRIPT_RUNS = [
    "uv lock --script x.py",
    "uv lock --script x.py --offline",
    "uv sync --script=x.py",
    "uv export --script x.py",
    "uv tree --script x.py",
    "uv add --script x.py rich",
    "uv run x.py",
    "uv run -q x.py",
    "uv run --script x.py",
    'read -r s; uv lock --script "$s"',
    "hatch run x.py",
    "pdm run x.py",
]
PLAIN_SCRIPT = _script('requires-python = ">=3.11"', 'dependencies = ["requests<3", "rich"]')


@pytest.mark.parametrize("kind", sorted(SCRIPTS))
@pytest.mark.parametrize("command", SCRIPT_RUNS)
def test_a_written_scripts_sources_are_read(project: tuple[Path, Engine], kind: str, command: str) -> None:
    root, engine = project
    if kind == "keyring" and not command.startswith(("uv", "read", "for")):
        pytest.skip("[tool.uv]'s settings are uv's only")
    decision = session_verdict(root, engine, {"x.py": SCRIPTS[kind]}, command, f"script-{kind}-{command}")
    assert decision != "allow", (kind, command, decision)


def test_pipx_run_reads_a_scripts_direct_references(project: tuple[Path, Engine]) -> None:
    root, engine = project
    assert session_verdict(root, engine, {"x.py": SCRIPTS["git"]}, "pipx run x.py", "pipx-git") != "allow"
    assert session_verdict(root, engine, {"x.py": PLAIN_SCRIPT}, "pipx run x.py", "pipx-plain") == "allow"


@pytest.mark.parametrize("command", [*SCRIPT_RUNS, "uv run python x.py", "uv remove --script x.py rich"])
def test_a_plain_scripts_metadata_stays_allowed(project: tuple[Path, Engine], command: str) -> None:
    root, engine = project
    decision = session_verdict(root, engine, {"x.py": PLAIN_SCRIPT}, command, f"plain-{command}")
    wanted = "ask" if command.startswith("uv remove") else "allow"  # (package_uninstall, as before)
    assert decision == wanted, (command, decision)


def test_every_written_scripts_metadata_is_read(project: tuple[Path, Engine]) -> None:
    """The script a line names may be one only the run knows (`uv lock --script "$s"`): every written script's block
    is read, also where uv reads none (`uv run python x.py`, `uv sync`: fail closed, only with such a block)."""
    root, engine = project
    for command in ("uv run python x.py", "uv sync"):
        assert session_verdict(root, engine, {"x.py": SCRIPTS["git"]}, command, f"any-{command}") != "allow", command
        assert session_verdict(root, engine, {"x.py": "print(1)\n"}, command, f"none-{command}") == "allow", command


# -- 3. a plain name after a `cd` only the run knows ----------------------------------------------------------------


@pytest.fixture(scope="module")
def in_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with project_in_home(tmp_path_factory, "adv52_in_home") as (root, engine):
        home = root.parent
        (home / ".bashrc").write_text("# the user's\n")
        old = time.time() - 3600
        for path in (home / ".bashrc", home / "notes.txt", root / "hermes-engine.yaml"):
            os.utime(path, (old, old))
        yield root, engine


UNKNOWN_CD = [
    'cd "$(dirname "$PWD")" && echo x > notes.txt',
    'cd "$(dirname "$PWD")" && echo x >> .bashrc',
    'cd "$(cat f)" && echo x >> .bashrc',
    "cd ${PWD%/*} && echo x > notes.txt",
    'cd "$(realpath ..)" && sed -i d notes.txt',
    'cd "$D" && echo x > .bashrc',
    'cd "$(dirname "$PWD")" && cp a.txt notes.txt',
]
UNKNOWN_CD_NEAR_MISSES = [
    'cd "$D" && echo x > out.txt',
    'cd "$D" && make',
    'cd "$D" && cat notes.txt',
    'cd "$D" && ls -la',
    "echo x > out.txt",
    "cd .. && cd p && echo x > out.txt",
    'cd "$(mktemp -d)" && echo x > notes.txt',
]


def test_a_cd_only_the_run_knows_writes_the_homes_file_live(tmp_path: Path) -> None:
    payload = 'mkdir -p "$HOME/p" && cd "$HOME/p" && cd "$(dirname "$PWD")" && echo x > notes.txt'
    home, _, printed = run_confined(tmp_path, payload)
    assert (home / "notes.txt").read_text() == "x\n", printed


@pytest.mark.parametrize("command", UNKNOWN_CD)
def test_a_plain_name_after_an_unknown_cd_is_read_in_the_home(in_home: tuple[Path, Engine], command: str) -> None:
    _, engine = in_home
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


@pytest.mark.parametrize("command", UNKNOWN_CD_NEAR_MISSES)
def test_unknown_cd_near_misses_stay_allowed(in_home: tuple[Path, Engine], command: str) -> None:
    _, engine = in_home
    verdict = engine.check(command)
    assert verdict.decision == "allow", said(command, verdict)


def test_rm_under_an_unknown_folder_destroys_the_homes_file_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(tmp_path, 'D=$HOME; cd "$D" && rm notes.txt')
    assert not (home / "notes.txt").exists(), printed


@pytest.mark.parametrize(
    "command",
    ['cd "$D" && rm notes.txt', "rm $D/notes.txt", 'cd "$(dirname "$PWD")" && rm notes.txt', "rm $D/.bashrc"],
)
def test_rm_under_an_unknown_folder_is_not_allowed(in_home: tuple[Path, Engine], command: str) -> None:
    _, engine = in_home
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


# -- 3b. a hard or symbolic link into the working directory made on the line --------------------------------------

LINKED_HERE = [
    "link ~/notes.txt h; echo x > h",
    "cp -l ~/notes.txt .; echo x > notes.txt",
    "cp --link ~/notes.txt ./; echo x > notes.txt",
    "cp -s ~/notes.txt .; echo x > notes.txt",
    "cp -l ~/notes.txt .; sed -i d notes.txt",
]
LINKED_NEAR_MISSES = [
    "cp -l a.txt b.txt; echo x > b.txt",
    "link a.txt b.txt; echo x > b.txt",
    "cp a.txt .; echo x > a.txt",
    "cp -l ~/notes.txt .; cat notes.txt",
    "cp ~/notes.txt .; echo x > notes.txt",
]


@pytest.mark.parametrize("payload", ["link ~/notes.txt h; echo x > h", "cp -l ~/notes.txt .; echo x > notes.txt"])
def test_a_link_made_into_the_working_directory_writes_the_note_live(tmp_path: Path, payload: str) -> None:
    home, _, printed = run_confined(tmp_path, payload)
    assert (home / "notes.txt").read_text() == "x\n", printed


@pytest.mark.parametrize("command", LINKED_HERE)
def test_a_link_made_into_the_working_directory_is_followed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    verdict = engine.check(command)
    assert verdict.decision != "allow", said(command, verdict)


@pytest.mark.parametrize("command", LINKED_NEAR_MISSES)
def test_link_near_misses_stay_allowed(project: tuple[Path, Engine], command: str) -> None:
    root, engine = project
    (root / "a.txt").write_text("a\n")
    old = time.time() - 3600
    os.utime(root / "a.txt", (old, old))
    verdict = engine.check(command)
    assert verdict.decision == "allow", said(command, verdict)
