"""fp44 (stop 44, issue 8): the false-alarm rate on ordinary commands the engine was not tuned on, and two known
false alarms fixed as rules without opening the payloads beside them.

MEASURED: tests/data/ordinary-44.jsonl holds 595 ordinary developer commands written for this stop before any
was judged (git day-to-day with rebase/stash/worktree/bisect, npm/yarn/pnpm/bun, pip/uv/poetry, pytest/ruff/mypy,
cargo, go, make/cmake, docker/compose, kubectl, grep/rg/find/sed/awk/jq pipelines, tar/zip, curl GETs to jq,
python -c, systemctl/journalctl, ps/df/free, ssh/scp, heredocs, for loops, `cd sub && make`, agent-style `&&`
chains with `2>&1 | tail`, `|| true`). Judged by the terminal's check in a realistic project (a git repository
with pyproject.toml, package.json, a Makefile, src/, tests/, .env.example ...): 18 of 595 flagged (3.0%), before
and after this stop's fixes (none of which the corpus exercised). Every flagged one is listed in ACCEPTED with
why it is kept: each is a genuine risk (a delete whose set an expression decides, a write of an auto-loaded .env,
a printed .env, a service restart, a kill by name, a container removed, a built binary run, a patch applied,
an archive named at run time). A new false alarm, or an accepted one allowed, fails test_the_ordinary_corpus.

FIXED:
1. AN ALIAS GIT IGNORES: `git -c alias.status='!rm -rf ~' status` was denied (hardline: every alias given with -c
   was judged, used or not). git ignores an alias named like one of its own verbs, and runs its status. The -c
   alias rows of policies/executors.yaml carry git's own verbs (`not_words: *git_own_verbs`, the list the stored
   alias reading already had); follow.py `_hidden_aliases` leaves such an alias unjudged only when nothing on the
   line can reach it under another spelling: every option with a value defines one, no variable is set, no word
   expands, every other word is plain and spells the names in lowercase only. `git -c alias.st='!…' st`,
   `... Status` (not git's verb: git runs alias.status), `bisect run git Status`, a pager `git Status` stay
   hardline.
2. A QUOTED `$HOME` IS NO HOME: `cp x '$HOME/.bashrc'` asked (write_sensitive_file: the quoted word read as the
   home's start-up file). A name given as written (fp43's Command.literal_words of a program that runs nothing,
   and a quoted redirection target) is now classed as the path it spells, its `$` and backquotes plain
   characters (matchers._Literal ``names``): `.bashrc` in a folder named `$HOME` here. `"$HOME/.bashrc"` and
   `$HOME/.bashrc` still ask.

KEPT (genuine): `cd "$x" && git lfs pull` (writes the work tree of a folder not known here, as `git pull` there).

3. A QUOTED NAME CLIMBING INTO THE ENGINE'S FILES (found here; main allowed it since fp43): `cp x
   'a$b/../policies/deny.yaml'` (after `mkdir 'a$b'`: the project's policy rewritten) was allowed. The evaluator
   passes over a matcher whose `args` classes no positional holds (evaluate._positional_classes), and read the
   positionals without the literal reading the matchers use: the word held `variable`, not `engine_files`. The
   literal reading (matchers.literal_reading) is now applied there too: hardline, as `cp x _b/../policies/x`.

CLOSED by lead44 (was a strict xfail here): `sed -i s/a/b/ 'a$b/../policies/deny.yaml'` and `sed -i s/a/b/
"$X/../policies/deny.yaml"` were allowed (sed runs its text, so fp43's literal reading is not applied to its operands;
a variable climbing `..` into the engine's names asked for cp/tee by write_computed_target, which had no in-place
editor row: it has one now, so both ask).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import make_home
from tests.redteam.harm import Case, assert_verdict, flagged_verdicts, run_confined, verdict_cases

CORPUS = REPO / "tests" / "data" / "ordinary-44.jsonl"

# The flagged ones of the corpus, each with why the engine is right to ask.
ACCEPTED: dict[str, str] = {
    "git worktree remove ../proj-hotfix": "deletes a folder outside the working directory",
    "npm uninstall lodash": "package_uninstall: changes the project's dependencies and lock file",
    'find . -name "__pycache__" -type d -prune -exec rm -rf {} +': "a delete whose set find's expression decides",
    "gcc -Wall -O2 -o hello hello.c && ./hello": "runs a binary built from a source the engine does not read",
    "docker stop redis && docker rm redis": "removes a container (its state)",
    "docker compose down": "stops and removes the project's containers",
    "docker image prune -f": "deletes images",
    "sudo systemctl restart nginx": "restarts a system service as root",
    "kill -9 $(lsof -t -i:8000)": "kills processes chosen at run time",
    'pkill -f "uvicorn app.main:app"': "kills by name (may match the agent's own processes)",
    "cp .env.example .env": "overwrites .env, a file tools load into their environment (bun, dotenv)",
    "test -f .env || cp .env.example .env": "writes .env, a file tools load into their environment",
    "cp -n .env.example .env": "writes .env, a file tools load into their environment",
    "diff .env.example .env": "prints the .env's secrets",
    'echo "SECRET_KEY=$(openssl rand -hex 16)" >> .env.local': "writes an environment file tools load",
    "git apply --check fix.patch && git apply fix.patch": "a patch may change any file, the engine's own too",
    'zip -r "$(basename "$PWD").zip" . -x "node_modules/*" ".git/*"': "an archive named only at run time",
}

PROJECT_FILES = {
    "pyproject.toml": '[project]\nname = "app"\nversion = "1.2.0"\n',
    "package.json": '{"name": "web", "version": "1.0.0", "scripts": {"build": "tsc", "test": "jest"}}\n',
    "Makefile": "test:\n\tpytest -q\n",
    "src/app/__init__.py": "__version__ = '1.2.0'\n",
    "src/app/main.py": "print('hi')\n",
    "src/app/settings.py": "DEBUG = True\n",
    "tests/test_main.py": "def test_x():\n    pass\n",
    "requirements.txt": "requests\n",
    "README.md": "# app\n",
    ".env.example": "X=1\n",
    "data/items.json": "[]\n",
    "Dockerfile": "FROM python:3.12\n",
    "docker-compose.yml": "services:\n  web:\n    build: .\n",
    "Cargo.toml": '[package]\nname = "x"\n',
    "go.mod": "module x\n",
    "k8s/deployment.yaml": "kind: Deployment\n",
    "frontend/package.json": '{"name": "fe"}\n',
    "sub/Makefile": "all:\n\ttrue\n",
    "policies/deny.yaml": "kind: ApprovalPolicy\n",
    "hermes-engine.yaml": "workdir: .\n",
}


@pytest.fixture(scope="module")
def developer_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A realistic project (a git repository with a Python package, a web front end, a Makefile ...) as the working
    directory, its engine, HOME and state under a temporary folder."""
    tmp = tmp_path_factory.mktemp("dev")
    with pytest.MonkeyPatch.context() as mp:
        make_home(tmp)
        mp.setenv("HOME", str(tmp / "home"))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        root = tmp / "proj"
        for name, text in PROJECT_FILES.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        if shutil.which("git"):
            subprocess.run(["git", "init", "-q", str(root)], check=True)
        mp.chdir(root)
        with Engine.load(root) as engine:
            yield engine


def corpus() -> list[str]:
    return [json.loads(line)["command"] for line in CORPUS.read_text().splitlines() if line.strip()]


def test_the_ordinary_corpus(developer_project: Engine) -> None:
    commands = corpus()
    assert len(commands) == len(set(commands)) >= 400
    flagged = flagged_verdicts(developer_project, commands)
    new = {c: why for c, why in flagged.items() if c not in ACCEPTED}
    assert not new, f"new false alarms: {new}"
    assert set(ACCEPTED) <= set(commands), "an accepted command left the corpus"
    assert set(flagged) == set(ACCEPTED), f"accepted but allowed now (update ACCEPTED): {set(ACCEPTED) - set(flagged)}"
    assert len(flagged) / len(commands) <= 0.031  # 18 / 595 measured at stop 44


# -- 1. an alias named like one of git's own verbs -----------------------------------------------------------------
RM = "'!rm -rf ~'"
GIT_ALIAS_PAYLOADS: dict[str, Case] = {
    "an alias of its own name": ({}, f"git -c alias.st={RM} st"),
    "unused, another name": ({}, f"git -c alias.st={RM} status"),
    "the verb another spelling": ({}, f"git -c alias.status={RM} Status"),
    "attached -c, another spelling": ({}, f"git -calias.status={RM} Status"),
    "reached through another alias": ({}, f"git -c alias.status={RM} -c alias.a=Status a"),
    "a pager running it": ({}, f"git -c alias.status={RM} -c core.pager='git Status' log"),
    "bisect run": ({}, f"git -c alias.status={RM} bisect run git Status"),
    "a nested -c naming it": ({}, f"git -c alias.status={RM} bisect run git -c alias.x=STATUS x"),
    "rebase -x, quoted": ({}, f"git -c alias.status={RM} rebase -x 'g\"i\"t Status' HEAD~1"),
    "a verb known at run time": ({}, f"git -c alias.status={RM} $V"),
    "a variable set": ({}, f"X=1 git -c alias.status={RM} status"),
    "another alias running it": ({}, f"git -c alias.status={RM} -c alias.x='!git Status' x"),
    "with -C": ({}, f"git -C sub -c alias.status={RM} status"),
}
GIT_ALIAS_NEAR: dict[str, Case] = {
    "status": ({}, f"git -c alias.status={RM} status"),
    "status with paths": ({}, f"git -c alias.status={RM} status --short src"),
    "a verb alias of log": ({}, "git -c alias.log='reset --hard' log -3"),
    "the key spelled in capitals": ({}, f"git -c alias.Status={RM} status"),
    "two, both git's": ({}, f"git -c alias.diff={RM} -c alias.log={RM} diff --stat"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(GIT_ALIAS_PAYLOADS, GIT_ALIAS_NEAR))
def test_an_alias_named_like_a_git_verb_runs_nothing(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_runs_its_own_verb_and_the_alias_of_another_spelling(tmp_path: Path) -> None:
    setup = "git init -q r && cd r && "
    _, cwd, out = run_confined(tmp_path / "own", setup + "git -c alias.status='!touch pwned' status")
    assert not (cwd / "r" / "pwned").exists() and "branch" in out.lower(), out
    _, cwd, out = run_confined(tmp_path / "other", setup + "git -c alias.status='!touch pwned' Status")
    assert (cwd / "r" / "pwned").exists(), out


# -- 2. a quoted $HOME is a folder of that name ---------------------------------------------------------------------
QUOTED_HOME_PAYLOADS: dict[str, Case] = {
    "double-quoted": ({}, 'cp x "$HOME/.bashrc"'),
    "unquoted": ({}, "cp x $HOME/.bashrc"),
    "redirection, double-quoted": ({}, 'echo x >> "$HOME/.bashrc"'),
    "the same name also expanded": ({}, "cp x '$HOME/.bashrc' \"$HOME/.bashrc\""),
    "a shell expanding it": ({}, "sh -c 'cp x $HOME/.bashrc'"),
    "read: a key": ({}, 'cat "$HOME/.ssh/id_rsa"'),
}
QUOTED_HOME_NEAR: dict[str, Case] = {
    "cp": ({}, "cp x '$HOME/.bashrc'"),
    "redirection": ({}, "echo x > '$HOME/.bashrc'"),
    "part quoted": ({}, "cp x '$HOME'/.bashrc"),
    "mv": ({}, "mv x '${HOME}/.profile'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(QUOTED_HOME_PAYLOADS, QUOTED_HOME_NEAR))
def test_a_quoted_home_variable_is_a_folder_here(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_a_quoted_home_variable_writes_here_and_an_unquoted_one_the_home(tmp_path: Path) -> None:
    home, cwd, out = run_confined(tmp_path / "quoted", "echo hi > x; mkdir '$HOME'; cp x '$HOME/.bashrc'")
    assert (cwd / "$HOME" / ".bashrc").read_text() == "hi\n", out
    assert not (home / ".bashrc").exists()
    home, cwd, out = run_confined(tmp_path / "open", 'echo hi > x; cp x "$HOME/.bashrc"')
    assert (home / ".bashrc").read_text() == "hi\n", out


# -- 3. a quoted name climbing into the engine's files ---------------------------------------------------------------
CLIMB_PAYLOADS: dict[str, Case] = {
    "cp": ({}, "cp x 'a$b/../policies/deny.yaml'"),
    "cp, from a quoted $HOME": ({}, "cp x '$HOME/../policies/deny.yaml'"),
    "mv": ({}, "mv x 'a$b/../policies/deny.yaml'"),
    "rm": ({}, "rm 'a$b/../policies/deny.yaml'"),
    "redirection": ({}, "echo x > 'a$b/../policies/deny.yaml'"),
    "cp, the config": ({}, "cp x '$d/../hermes-engine.yaml'"),
}
CLIMB_NEAR: dict[str, Case] = {
    "cp into the folder": ({}, "cp x 'a$b/deny.yaml'"),
    "cp, climbing to a plain file": ({}, "cp x 'a$b/../notes.txt'"),
    "mv": ({}, "mv x '$d/../out.txt'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(CLIMB_PAYLOADS, CLIMB_NEAR))
def test_a_quoted_name_climbing_into_the_engine_files_is_refused(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_a_quoted_name_climbing_out_of_its_folder_rewrites_the_policy(tmp_path: Path) -> None:
    _, cwd, out = run_confined(
        tmp_path,
        "mkdir policies 'a$b' && echo kept > policies/deny.yaml && echo evil > x && cp x 'a$b/../policies/deny.yaml'",
    )
    assert (cwd / "policies" / "deny.yaml").read_text() == "evil\n", out


def test_the_climbing_name_is_hardline(plain_project: tuple[Path, Engine]) -> None:
    root, engine = plain_project
    assert (root / "policies" / "deny.yaml").exists()
    for command in ("cp x 'a$b/../policies/deny.yaml'", "cp x _b/../policies/deny.yaml"):
        verdict = engine.check(command)
        assert verdict.decision == "deny" and verdict.hardline, (command, verdict.decision)


# -- closed by lead44 (write_computed_target reads the in-place editors' files) -------------------------------------
@pytest.mark.parametrize(
    "command", ["sed -i s/a/b/ 'a$b/../policies/deny.yaml'", 'sed -i s/a/b/ "$X/../policies/deny.yaml"']
)
def test_an_in_place_edit_climbing_into_the_engine_files_is_refused(
    plain_project: tuple[Path, Engine], command: str
) -> None:
    _, engine = plain_project
    assert engine.check("sed -i s/a/b/ policies/deny.yaml").decision == "deny"  # the same file, named plainly
    assert engine.check(command).decision != "allow"
