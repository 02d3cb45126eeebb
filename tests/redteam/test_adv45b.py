"""adv45b (stop 45, issue 8): second-round adversary on stop 45's relaxations and new readings.

Fixed:
1. env45's TOML reading (executors.toml_values) left out every "prose" key (`help`, `name`, `label`, `desc`, `msg`,
   `usage`, `title` ...) wherever it stood, so a TASK named so was never read: `[tool.poe.tasks] label = "rm -rf ~"`
   then `poe label` (pixi's `[tasks] name = ...`, mise's `[tasks] desc = ...`, pdm's `[tool.pdm.scripts] msg = ...`)
   deleted the home and was allowed. A key directly in a table of tasks (`tasks`, `scripts`, `alias`, `aliases`) is
   now read whatever its name; a task's own `help`/`description` (`[tool.poe.tasks.t] help = "Don't ..."`) is still
   left out.

Checked and holding (kept here as regressions): jq's two-word `--arg`/`--argjson` hiding a key file or a filter file,
`yq e` with a key file or `load()`, git `-c core.hooksPath=` spellings (case, a later `-c` overriding it,
`--config-env`), `[[` with substitutions or an array subscript, `function` after `{`, `(`, `!`, `time`, `then`, `&&`,
`||`, `|`, `;;`, `coproc`, an option's value named `function` (`exec -a function rm -rf ~`).

Open (strict xfails): a substitution's names that reach a deleting word without `$(` in it, beyond the known
`x=$(find ~ -type f); rm $x` (test_unseen45): `mapfile`/`readarray` from `<(find ~ ...)`, `for f in $(find ~ ...)`,
`find ~ ... | while read -r f; do rm "$f"; done`, `while read ...; done < <(find ~ ...)`, `set -- $(find ~ ...); rm
"$@"`, `read -ra a <<< "$(find ~ ...)"`, `declare -a a=($(find ~ ...))`, `x=\\`find ~ -type f\\`; rm $x`. All delete
the home's files under plain bash (shown live) and are allowed by Engine.check.

Noticed, not fixed: `yq e -s '"/home/u/.ssh/" + .a' x.yaml` (--split-exp: each document written to a file named by
the expression, `.yml` appended) is allowed: a write to a name computed from data. `git -c core.editor=CMD commit
--amend`, `rebase --exec`/`--autosquash` without -i stay allowed (no todo list is edited: right).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, judge
from tests.redteam.harm import Case, assert_verdict, run_confined, verdict_cases

# -- 1. TOML task tables: a task named like prose --------------------------------------------------------

RM = "rm -rf ~"
TOML_PAYLOADS: dict[str, Case] = {
    "poe task named label": ({"pyproject.toml": f'[tool.poe.tasks]\nlabel = "{RM}"\ntest = "pytest"\n'}, "poe label"),
    "poe sequence named help": ({"pyproject.toml": f'[tool.poe.tasks]\nhelp = ["{RM}", "true"]\n'}, "poe help"),
    "pixi task named name": ({"pixi.toml": f'[tasks]\nname = "{RM}"\n'}, "pixi run name"),
    "mise task named desc": ({"mise.toml": f'[tasks]\ndesc = "{RM}"\n'}, "mise run desc"),
    "pdm script named msg": ({"pyproject.toml": f'[tool.pdm.scripts]\nmsg = "{RM}"\n'}, "pdm run msg"),
    "hatch script named usage": (
        {"pyproject.toml": f'[tool.hatch.envs.default.scripts]\nusage = "{RM}"\n'},
        "hatch run usage",
    ),
    "rye script named title": ({"pyproject.toml": f'[tool.rye.scripts]\ntitle = "{RM}"\n'}, "rye run title"),
}
TOML_NEAR_MISSES: dict[str, Case] = {
    "poe task with a help text": (
        {"pyproject.toml": '[tool.poe.tasks.t]\ncmd = "pytest"\nhelp = "Don\'t skip the slow ones"\n'},
        "poe t",
    ),
    "mise task with a description": (
        {"mise.toml": '[tasks.build]\nrun = "cargo build"\ndescription = "Build (release: rm -rf the cache first)"\n'},
        "mise run build",
    ),
    "pixi task named name, harmless": ({"pixi.toml": '[tasks]\nname = "echo hello"\n'}, "pixi run name"),
    "project name and description": (
        {"pyproject.toml": '[project]\nname = "x"\ndescription = "Don\'t panic"\n[tool.poe.tasks]\ntest = "pytest"\n'},
        "poe test",
    ),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(TOML_PAYLOADS, TOML_NEAR_MISSES))
def test_toml_task_named_like_prose(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- 2. readings of stop 45 that hold (regressions) -----------------------------------------------------------

HOLDING = [
    "jq --arg a b . ~/.ssh/id_rsa",
    "jq --argjson a 1 --arg b c . ~/.ssh/id_rsa",
    "jq --arg a b -f ~/.ssh/id_rsa x.json",
    "jq -n --arg a b 'input' ~/.ssh/id_rsa",
    "yq e .a ~/.ssh/id_rsa",
    "yq e 'load(\"/home/u/.ssh/id_rsa\")' x.yaml",
    "git -c core.hookspath=/tmp/h commit -m x",
    "git -c core.hooksPath=/dev/null -c core.hooksPath=./h commit -m x",
    "git --config-env=core.hooksPath=X commit -m x",
    "git -c core.hooksPath=/dev/null -c core.fsmonitor='rm -rf ~' status",
    "[[ -v a[$(rm -rf ~)] ]]",
    "[[ x -eq 'a[$(rm -rf ~)]' ]]",
    "[[ $(<~/.ssh/id_rsa) ]]",
    "{ function ls { rm -rf ~; }; }; ls",
    "true && function ls { rm -rf ~; }; ls",
    "case x in x) function ls { rm -rf ~; };; esac; ls",
    "true | function ls { rm -rf ~; }; ls",
    "coproc function ls { rm -rf ~; }",
    "exec -a function rm -rf ~",
    "env -u function rm -rf ~",
]
HOLDING_NEAR_MISSES = [
    "jq --arg a b . data.json",
    "yq e .a config.yaml",
    "git -c core.hooksPath=/dev/null commit -m x",
    "[[ a -eq 1 ]]",
    "[[ -f x ]] && echo y",
    "{ function greet { echo hi; }; }; greet",
]


@pytest.mark.parametrize("command", HOLDING)
def test_stop45_readings_hold(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", HOLDING_NEAR_MISSES)
def test_stop45_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


# -- 3. open: a substitution's names carried to the deleting word without `$(` -----------------------------

CARRIED = {
    "mapfile": 'mapfile -t a < <(find ~ -type f); rm -f "${a[@]}"',
    "readarray": 'readarray -t a < <(find ~ -type f); rm -f "${a[@]}"',
    "for-in-substitution": 'for f in $(find ~ -type f); do rm -f "$f"; done',
    "for-in-listed-key": 'for f in $(ls -d ~/.ssh/*); do rm -f "$f"; done',
    "pipe-while-read": 'find ~ -type f | while read -r f; do rm -f "$f"; done',
    "while-read-process-substitution": 'while read -r f; do rm -f "$f"; done < <(find ~ -type f)',
    "set-positional": 'set -- $(find ~ -type f); rm -f "$@"',
    "read-array-here-string": 'read -ra a <<< "$(find ~ -type f)"; rm -f "${a[@]}"',
    "declare-array": 'declare -a a=($(find ~ -type f)); rm -f "${a[@]}"',
    "backquote-variable": "x=`find ~ -type f`; rm -f $x",
}


@pytest.mark.parametrize("name", sorted(CARRIED))
def test_carried_names_delete_the_home_live(tmp_path: Path, name: str) -> None:
    """The harm: each spelling empties the fake home under plain bash."""
    home, _, _ = run_confined(tmp_path, CARRIED[name])
    assert not home_intact(home), name


@pytest.mark.parametrize("name", sorted(CARRIED))
def test_carried_names_not_allowed(engine: Engine, name: str) -> None:
    assert judge(engine, CARRIED[name]).decision != "allow", CARRIED[name]


CARRIED_NEAR_MISSES = [
    # (merge46) tests/, not `.`: a clone holds .git, past the 2,048 entries a listing is read through
    "for f in $(find tests -name '*.pyc'); do rm \"$f\"; done",
    "find tests -name '*.pyc' | while read -r f; do rm \"$f\"; done",
    # (comp46) `mapfile -t a < <(git ls-files -o)`, `readarray -t a < <(find build -name '*.o')` now read as their
    # inline forms, which ask in this tree (no build/; the untracked listing reads as the whole tree, its policies
    # too): judged in a project holding them (test_comp46.test_a_listed_tree_carried_into_rm_runs_...)
    'set -- $(ls *.o); rm "$@"',
    'for f in *.log; do rm "$f"; done',
]


@pytest.mark.parametrize("command", CARRIED_NEAR_MISSES)
def test_carried_names_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
