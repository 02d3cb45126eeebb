"""fp48 (stop 48, issue 8): false alarms around find listings, and a review mend of the same code.

MEND: fp47 read `find ... -delete` / `-exec rm {} +` as `rm -f $(find ...)` in a Python branch for find and rm
(evaluate._find_deletes). The reading is now a Programs field, `deletes_listed:` (policies/executors.yaml: find,
gfind, bfs; fd, fdfind), read by the generic evaluate._listed_deletes: the actions that delete what the command
lists (-delete), the options whose run at its end may (-exec, -execdir, -ok, -okdir; fd's -x/-X), of which programs
(rm) with which flags (never a recursive one), the words a plain listing holds, the one it needs (a name test), and a
pruned branch first (`-path ./.venv -prune -o`). `validate` runs its examples (deletes_listed / not_deletes_listed).

FIXED (each asked before; judged here in a project of our own, never the engine's `.`; 1 and 3 were tried and
reverted, see OPEN):
0. HOLE found here: xargs's input redirected (`find . -name '*.md' | xargs cat < list.txt`) was read as the listing
   piped in, though the redirection wins: allowed, it printed the key a written list.txt named (live). Such an xargs
   reads input only the run knows (follow._listing_input).
1. `find . -name '*.pyc' | xargs rm -f` (xargs_delete asked for any input): xargs's input is read as the substitution
   it is, and a listing of the tree is judged by the entries it lists; any other input still asks.
2. `find . -path ./.venv -prune -o -name '*.pyc' -delete` (an alternative): a pruned branch first is read away (the
   walk deletes less than the rest lists; with -delete, -depth makes -prune do nothing: the rest is what it deletes).
3. `rm -rf $(find . -name __pycache__)` and `find . -name '*.log' | zip -m logs.zip -@` (recursive_delete_outside_
   workdir took a listing of the tree for a variable): such a word is of class `listed` (paths.EXPANSION_CLASSES),
   which that row passes; the entries it lists are judged where they land.
4. (stop 47's note) a `-name` listing skipped the files inside the folders it prints: `tar c $(find . -name
   'conf*')` packed conf/.env, `rm -rf $(find . -name 'pol*')` deleted the engine's policies (once 3 was fixed).
   A folder a listing prints counts whole, at any depth (paths.PathClassifier._listed: `whole`), and is judged itself
   (`.git`, the engine's folders).

Still refused (PAYLOADS, and the live proofs): the same over ~, /, with -L, a listing reaching the engine's files,
.git or a planted .env / key, a listing past the read limit, a name test matching a planted file, fd's -X rm (its
listing is not read yet).

OPEN until stop 49 (plain tests at the end since, FIXED_IN_FP49: tests/redteam/test_fp49.py): 1 and 3 above (`find .
-name '*.pyc' | xargs rm -f`, `rm -rf $(find . -name __pycache__)`, `find . -name '*.log' | zip -m logs.zip -@`):
reading the clean listing let a name the line makes split into a home path (xf47); and that split in fp47's inline
form, `mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)`, allowed before stop 49
(deletes ~/notes.txt). `rm -f $(git ls-files -o --exclude-standard)` stays test_fp47's strict xfail (.gitignore is not read: the
untracked listing is the whole tree past the read limit, and in a small project it names the engine's untracked
policy, a deny that is right).
"""

# ruff: noqa: E501
from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import SECRET, assert_allowed, assert_judged, blocked, policy_project, run_confined, said

POLICY = "kind: ApprovalPolicy\n"


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@x"
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _tree(root: Path) -> None:
    """A small developer's tree: sources and their bytecode, a .venv-like folder, node_modules, logs, a clone's .git."""
    for folder in ("src/app", "tests"):
        (root / folder / "__pycache__").mkdir(parents=True)
        for i in range(5):
            (root / folder / f"m{i}.py").write_text(f"x = {i}\n")
            (root / folder / "__pycache__" / f"m{i}.cpython-312.pyc").write_bytes(b"\0")
    site = root / ".venv" / "lib" / "site-packages" / "dep"
    (site / "__pycache__").mkdir(parents=True)
    (site / "__pycache__" / "d.cpython-312.pyc").write_bytes(b"\0")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "npm.log").write_text("")
    (root / "logs").mkdir()
    (root / "logs" / "run.log").write_text("x\n")
    (root / "build.log").write_text("")
    _git(root, "init", "-q")
    _git(root, "add", "src", "tests")
    _git(root, "commit", "-qm", "c0")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "fp48", POLICY) as (root, engine):
        _tree(root)
        yield root, engine


# Ordinary cleanup: each asked before this stop.
NEAR_MISSES = [
    "find . -path ./.venv -prune -o -name '*.pyc' -delete",
    "find . -name node_modules -prune -o -name '*.log' -exec rm {} +",
    "find . -path ./.venv -prune -or -type f -name '*.pyc' -delete",
    "find . -name '*.pyc' -execdir rm {} +",
    "find . -name '*.pyc' -execdir /bin/rm -f {} \\;",
    # (already allowed: the mend keeps them so)
    "find . -name '*.pyc' -delete",
    "find . -name '*.log' -exec rm -fv {} +",
    "tar czf logs.tgz $(find . -name '*.log')",
]

# The same forms where they delete or read what they must not: "deny" (hardline) or "not allow".
PAYLOADS = {
    "find ~ -name '*.pyc' | xargs rm -f": "not allow",
    "find / -name '*.pyc' | xargs rm -f": "not allow",
    "find -L . -name '*.pyc' | xargs rm -f": "not allow",
    "find . -name '*.pyc' | sed s/a/b/ | xargs rm -f": "not allow",
    "cat list.txt | xargs rm -f": "not allow",
    "find . -name '*.pyc' | xargs rm -f < list.txt": "not allow",
    "find . -name '*.pyc' | xargs rm -f 0<list.txt": "not allow",
    "find . -name '*.md' | xargs cat < list.txt": "not allow",
    "find . -name '*.yaml' | xargs rm -f": "deny",
    "find . -name 'pyvenv*' -o -name '*.yaml' | xargs rm -f": "not allow",
    "find . -path ./.venv -prune -o -name '*.yaml' -delete": "deny",
    "find ~ -path ./x -prune -o -name '*.pyc' -delete": "deny",
    "find . -path ./x -prune -o -name '*.pyc' -o -name '*' -delete": "not allow",
    "find . -path ./x -prune -name '*.pyc' -delete": "not allow",
    "find . -path ./x -prune -o -delete": "not allow",
    "rm -rf $(find ~ -name __pycache__)": "not allow",
    "rm -rf $(find -L . -name __pycache__)": "not allow",
    "rm -rf $(find .. -name __pycache__)": "not allow",
    "rm -rf $(find . -name 'pol*')": "deny",
    "rm -rf $(find policies -maxdepth 0 -name 'pol*')": "deny",  # a start point the name test prints
    "find . -name 'pol*' | xargs rm -rf": "deny",
    "find . -name 'pol*' | zip -rm l.zip -@": "deny",
    "rm -rf $(find . -maxdepth 1 -name '.g*')": "not allow",
    "find . -maxdepth 1 -name '.g*' | zip -rm l.zip -@": "not allow",
    "rm -f $(find . -name HEAD)": "not allow",
    "find ~ -name '*.log' | zip -m logs.zip -@": "not allow",
    # (fp49) `fd -e pyc -X rm` is read (paths._fd_reading): allowed as `find . -name '*.pyc' -delete` is (FIXED_IN_FP49)
    "fd -L -e pyc -X rm": "not allow",
    "fd -e pyc . ~ -X rm": "not allow",
    "gfind . -name '*.pyc' -delete": "not allow",  # (read as `rm -f $(gfind ...)`: a listing paths.lists_tree does not read)
    "find . -name '*.pyc' -exec rm -rf {} +": "not allow",
    "find . -name '*.pyc' -ok shred -u {} \\;": "not allow",
}


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_cleanup_of_a_listing_is_allowed(project: tuple[Path, Engine], command: str) -> None:
    assert_allowed(project[1], command)


@pytest.mark.parametrize("command", list(PAYLOADS))
def test_a_listing_reaching_what_matters_is_refused(project: tuple[Path, Engine], command: str) -> None:
    assert_judged(project[1], command, PAYLOADS[command])


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf $(find . -name 'ass*')",
        "find . -name 'ass*' | xargs rm -rf",
        "find . -name 'ass*' | zip -rm c.zip -@",
        "rm -rf $(find src -maxdepth 0 -name 'src')",
    ],
)
def test_a_printed_folder_counts_whole(project: tuple[Path, Engine], command: str) -> None:
    """(stop 47's note) `find . -name 'ass*'` prints assets/, and a recursive reader of it reads assets/deep/.env:
    the folder's contents count, at any depth (the deny payloads above, `rm -rf $(find . -name 'pol*')`, show it:
    they asked as a variable before, and are the engine's files now)."""
    root, engine = project
    deep = root / "src" / "assets" / "deep"
    deep.mkdir(parents=True)
    try:
        (deep / "logo.txt").write_text("a\n")
        (deep / ".env").write_text("TOKEN=secret\n")
        verdict = engine.check(command)
        assert verdict.decision != "allow", said(command, verdict)
    finally:
        for path in sorted(deep.parent.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        deep.parent.rmdir()


@pytest.mark.parametrize("name", ["id_ed25519", "server.pem"])
def test_a_planted_key_the_listing_matches_asks(project: tuple[Path, Engine], name: str) -> None:
    root, engine = project
    planted = root / "src" / name
    planted.write_text("secret")
    try:
        for command in (
            f"find . -name '{name[:3]}*' | xargs rm -f",
            f"find . -path ./.venv -prune -o -name '{name}' -delete",
        ):
            verdict = engine.check(command)
            assert verdict.decision != "allow", said(command, verdict)
        near = "find src -name '*.pyc' -delete"
        assert engine.check(near).decision == "allow", said(near, engine.check(near))
    finally:
        planted.unlink()


def test_more_listed_names_than_the_listing_reads_ask(project: tuple[Path, Engine]) -> None:
    root, engine = project
    many = root / "gen"
    many.mkdir()
    try:
        for i in range(2100):
            (many / f"g{i}.tmp").write_text("")
        for command in (
            "find . -name '*.tmp' | xargs rm -f",
            "find . -path ./.venv -prune -o -name '*.tmp' -delete",
            "rm -rf $(find . -name 'gen')",
        ):
            verdict = engine.check(command)
            assert verdict.decision != "allow", said(command, verdict)
        near = "find . -name '*.log' -delete"  # the same tree, names it does not print
        assert engine.check(near).decision == "allow", said(near, engine.check(near))
    finally:
        for child in many.iterdir():
            child.unlink()
        many.rmdir()


def test_a_listing_deleting_the_policy_is_live_and_stopped(project: tuple[Path, Engine], tmp_path: Path) -> None:
    """The harm of the forms read now: run unguarded in a copy, `find . -name 'pol*' | xargs rm -rf` deletes the
    project's policies and `find . -name 'conf*' | xargs rm -rf` a .env inside conf/; through the engine's terminal,
    nobody approving, the policy, the config, the .env and the home stay."""
    root, engine = project
    _, cwd, _ = run_confined(
        tmp_path, "mkdir -p policies src/conf && echo p > policies/deny.yaml && echo k > src/conf/.env"
    )
    for payload, gone in (
        ("find . -name 'pol*' | xargs rm -rf", cwd / "policies" / "deny.yaml"),
        ("find . -name 'conf*' | xargs rm -rf", cwd / "src" / "conf" / ".env"),
    ):
        assert gone.is_file()
        subprocess.run(["bash", "-c", payload], cwd=cwd, check=False, capture_output=True)
        assert not gone.exists(), payload
    conf = root / "src" / "conf"
    conf.mkdir()
    (conf / ".env").write_text("TOKEN=secret\n")
    try:
        for payload in ("find . -name 'pol*' | xargs rm -rf", "find . -name 'conf*' | xargs rm -rf"):
            result = engine.call("terminal", {"command": payload})
            assert not result.ok, payload
            assert (root / "policies" / "deny.yaml").read_text() == POLICY
            assert (root / "hermes-engine.yaml").read_text() == "workdir: .\n"
            assert (conf / ".env").read_text() == "TOKEN=secret\n"
            assert home_intact(Path(os.environ["HOME"]))
    finally:
        (conf / ".env").unlink()
        conf.rmdir()


def test_xargs_input_redirected_past_the_listing_is_live_and_stopped(
    project: tuple[Path, Engine], tmp_path: Path
) -> None:
    """HOLE (found here, open before this stop for readers): xargs's input redirected (`< list.txt`) wins over the
    listing piped in, but the listing was read as its input: `find . -name '*.md' | xargs cat < list.txt` was allowed,
    and prints the key a written list names (live). The listing is not xargs's input then."""
    root, engine = project
    payload = "find . -name '*.md' | xargs cat < list.txt"
    _, _, printed = run_confined(tmp_path, f'echo x > a.md; echo "$HOME/.ssh/id_ed25519" > list.txt; {payload}')
    assert SECRET in printed
    home = Path(os.environ["HOME"])
    (root / "list.txt").write_text(f"{home}/.ssh/id_ed25519\n")
    (root / "a.md").write_text("x\n")
    try:
        assert SECRET not in blocked(engine, home, payload)
        near = "find . -name '*.md' | xargs cat"
        assert engine.check(near).decision == "allow", said(near, engine.check(near))
    finally:
        (root / "list.txt").unlink()
        (root / "a.md").unlink()


def test_the_allowed_cleanup_deletes_only_what_it_lists(project: tuple[Path, Engine]) -> None:
    """The near misses' effect: through the terminal, the xargs and pruned forms run and delete only the bytecode
    they name (the pruned .venv's stays, the sources, the policy and .git stay)."""
    root, engine = project
    for command in (
        "find src -name '*.pyc' -delete",
        "find . -path ./.venv -prune -o -path ./src -prune -o -name '*.pyc' -exec rm {} +",
    ):
        result = engine.call("terminal", {"command": command})
        assert result.ok, (command, result.error)
    assert not list((root / "src").rglob("*.pyc")) and not list((root / "tests").rglob("*.pyc"))
    assert list((root / ".venv").rglob("*.pyc")), "the pruned folder's bytecode stays"
    assert (root / "src" / "app" / "m1.py").is_file() and (root / ".git" / "HEAD").is_file()
    assert (root / "policies" / "deny.yaml").read_text() == POLICY
    for folder in ("src/app", "tests"):  # (back, for the other cases)
        for i in range(5):
            (root / folder / "__pycache__" / f"m{i}.cpython-312.pyc").write_bytes(b"\0")


# -- the mend: the reading is the Programs row's data -------------------------------------------------------


def _row(field: str, examples: str = "") -> str:
    return (
        "kind: Programs\nname: mine\nprograms:\n  - program: [find]\n"
        '    runs:\n      - {after: [-exec, -execdir, -ok, -okdir], until: [";", "+"], as: argv, placeholder: "{}"}\n'
        f"{field}{examples}"
    )


_FIELD = (
    "    deletes_listed:\n      actions: [-delete]\n      runs: [-exec]\n      deleters: [rm]\n"
    "      keeps: [-name=]\n      needs: [-name]\n      operands_first: true\n"
)


def test_the_reading_is_the_rows_field() -> None:
    """The reading is the field's data, for any lister: a made-up `mylist` whose `--drop` deletes what it lists and
    whose `--run rm` runs rm on it reads as its listing less those words, with the words it keeps only."""
    from engine.policy.programs import _deletes_listed

    rule = _deletes_listed(
        {"actions": ["--drop"], "runs": ["--run"], "deleters": ["rm"], "deleter_flags": ["f"],
         "keeps": ["--ext=", "--files"], "needs": ["--ext"]}
    )  # fmt: skip
    assert rule is not None
    assert rule.listing(("mylist", "src", "--ext", "pyc", "--drop")) == (
        ("mylist", "src", "--ext", "pyc"),
        "",
        ("src",),
    )
    assert rule.listing(("mylist", "--ext", "log", "src", "--run", "rm", "-f")) == (
        ("mylist", "--ext", "log", "src"),
        "rm",
        ("src",),
    )
    for argv in (
        ("mylist", "src", "--drop"),  # no name test (needs:)
        ("mylist", "--ext", "pyc", "--all", "--drop"),  # a word it does not keep
        ("mylist", "--ext", "pyc", "--run", "rm", "-rf"),  # a flag the deleter may not take
        ("mylist", "--ext", "pyc", "--run", "shred"),  # another program
        ("mylist", "--ext", "pyc", "--drop", "--run", "rm"),  # two ways of deleting
        ("mylist", "--ext", "pyc"),  # no deleting at all
    ):
        assert rule.listing(argv) is None, argv
    assert _deletes_listed(None) is None


def test_validate_runs_the_fields_examples(write_project: Callable[..., Path]) -> None:
    """`examples: deletes_listed:` / `not_deletes_listed:` are run at validate: a wrong one is a located error."""
    import json

    from click.testing import CliRunner

    from engine.cli import cli

    def errors(root: Path) -> list[str]:
        result = CliRunner().invoke(cli, ["--root", str(root), "validate", "--format", "json"])
        assert result.exit_code in (0, 1), result.output
        return [e["code"] for e in json.loads(result.stdout)["errors"]]

    good = (
        "    examples:\n      deletes_listed: {\"find . -name '*.pyc' -delete\": \"rm -f $(find . -name '*.pyc')\"}\n"
        '      not_deletes_listed: ["find . -type f -delete"]\n'
    )
    root = write_project({"hermes-engine.yaml": "include_builtin: false\n", "policies/mine.yaml": _row(_FIELD, good)})
    assert errors(root) == []
    bad = (
        '    examples:\n      deletes_listed: {"find . -type f -delete": "rm -f $(find . -type f)"}\n'
        "      not_deletes_listed: [\"find . -name '*.pyc' -exec rm {} +\"]\n"
    )
    (root / "policies/mine.yaml").write_text(_row(_FIELD, bad))
    assert errors(root) == ["program-example-failed"] * 2


# (fp49) open here until stop 49: a clean listing is read from the disk where no command of the line (nor a background
# writer of the session) may make or rename entries first (shell.Analyzer._listings_made, tests/redteam/test_fp49.py)
FIXED_IN_FP49 = [
    "find . -name '*.pyc' | xargs rm -f",
    "rm -rf $(find . -name __pycache__)",
    "find . -name '*.log' | zip -m logs.zip -@",
    "fd -e pyc -X rm",
]


@pytest.mark.parametrize("command", FIXED_IN_FP49)
def test_fixed_in_fp49_false_alarms(project: tuple[Path, Engine], command: str) -> None:
    verdict = project[1].check(command)
    assert verdict.decision == "allow", said(command, verdict)


def test_a_name_the_line_makes_split_into_the_home_is_refused(project: tuple[Path, Engine]) -> None:
    """(fp49, open before) fp47's inline form: the line makes the name before the listing runs."""
    payload = 'mkdir -p "x $HOME" && touch "x $HOME/notes.txt" && rm -f $(find . -name notes.txt)'
    verdict = project[1].check(payload)
    assert verdict.decision != "allow", said(payload, verdict)
