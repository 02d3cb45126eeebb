"""Start-up files and variables that make a program run code the line wrote (adv28 family 2).

Each was allowed on main (stop 27): a folder a variable names holds the shell's start-up files
(`ZDOTDIR=. zsh`, `HOME=. bash -i`, fish under `XDG_CONFIG_HOME`), a program's own start-up file
in the working directory (gdb's .gdbinit once an auto-load safe-path lets it, R's .Rprofile), an
option or variable naming a configuration (less --lesskey-content, mysql --defaults-file/--pager,
OPENSSL_CONF, PSQLRC, R_PROFILE_USER, LUA_INIT), pytest --doctest-glob collecting a written file,
and the start-up code variables read a file as shell text, not as the interpreter's
(PYTHONSTARTUP, NODE_OPTIONS (also `-r./a.js`), RUBYOPT). The Programs table
(policies/executors.yaml) describes each now. Verdicts share one engine; the harm runs for one
representative payload per kind (a folder named by a variable, a variable naming code).
Every run is confined: HOME and the working directory are under tmp_path.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import harm_project, policy_project, written_then_stopped

RM_HOME = "rm -rf ~"
JS_RM_HOME = 'require("fs").rmSync(require("os").homedir(), {recursive: true})'

PAYLOADS = [
    f"printf '{RM_HOME}\\n' > .zshenv; ZDOTDIR=. zsh -c true",
    f"printf '{RM_HOME}\\n' > z/.zshrc; ZDOTDIR=z zsh -i",
    f"printf '{RM_HOME}\\n' > .zshenv; HOME=. zsh -c true",
    f"printf '{RM_HOME}\\n' > c/fish/config.fish; XDG_CONFIG_HOME=c fish -c true",
    f"printf '{RM_HOME}\\n' > .bashrc; HOME=. bash -i",
    f"printf 'shell {RM_HOME}\\n' > .gdbinit; gdb -iex 'set auto-load safe-path /' -batch ./a",
    f"less '--lesskey-content=#command;! shell {RM_HOME}' README",
    f"less --lesskey-content='! shell {RM_HOME}' README",
    f"printf '>>> import os; os.system(\"{RM_HOME}\")\\n' > doc.md; pytest --doctest-glob='*.md'",
    "printf 'openssl_conf = a\\n' > o.cnf; OPENSSL_CONF=o.cnf curl https://example.com",
    f"printf '\\\\! {RM_HOME}\\n' > r; PSQLRC=r psql -c 1",
    f"printf 'system(\"{RM_HOME}\")\\n' > .Rprofile; Rscript -e 1",
    f"printf 'system(\"{RM_HOME}\")\\n' > r; R_PROFILE_USER=r Rscript -e 1",
    f"printf '[mysql]\\npager={RM_HOME}\\n' > .my.cnf; mysql --defaults-file=.my.cnf",
    f"mysql --pager='{RM_HOME}'",
    f"printf 'import os; os.system(\"{RM_HOME}\")\\n' > .pythonrc; PYTHONSTARTUP=.pythonrc python3 -i",
    f"printf '{JS_RM_HOME}' > a.js; NODE_OPTIONS=-r./a.js node -e 0",
    f"printf 'system(\"{RM_HOME}\")' > a.rb; RUBYOPT=-r./a.rb ruby -e 1",
    f"printf 'os.execute(\"{RM_HOME}\")' > i.lua; LUA_INIT=@i.lua lua -v",
    f"LUA_INIT='os.execute(\"{RM_HOME}\")' lua -v",
    # tmux writes a buffer to a file; its server replaces the socket file it is given
    "tmux save-buffer ~/.bashrc",
    "tmux -S ~/.bashrc new -d",
]
NEAR_MISSES = [
    "zsh -c true",
    "ZDOTDIR=. zsh -fc true",
    "fish -c true",
    "XDG_CONFIG_HOME=c fish -N -c true",
    "bash -i < /dev/null",
    "HOME=/tmp/h bash -c 'echo hi'",
    "gdb -batch ./a.out",
    "less --lesskey-content='j forw-line;k back-line' README",
    "pytest --doctest-glob='*.md'",
    "pytest -q",
    "OPENSSL_CONF=/etc/ssl/openssl.cnf curl https://example.com",
    "Rscript -e 1",
    f"printf 'system(\"{RM_HOME}\")\\n' > .Rprofile; R --vanilla -e 1",
    "mysql -h db -u app",
    "NODE_OPTIONS=--max-old-space-size=4096 node -e 0",
    "LUA_INIT='print(1)' lua -v",
    # over-block on main: reading the user's own tmux configuration asked (write_sensitive_file)
    "tmux source-file ~/.tmux.conf",
    "tmux source ~/.tmux.conf",
    "PS1='x' bash -i",
    "HOME=~ bash -i",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with policy_project(tmp_path_factory, "startup", "kind: ApprovalPolicy\n") as (_, loaded):
        yield loaded


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_start_up_file_or_variable_running_written_code_is_not_allowed(engine: Engine, payload: str) -> None:
    assert engine.check(payload).decision != "allow", payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_programs_without_a_written_start_up_file_stay_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


@pytest.fixture
def harm_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path]]:
    with harm_project(tmp_path, monkeypatch) as (loaded, home, _):
        yield loaded, home


@pytest.mark.parametrize(
    ("program", "files", "payload"),
    [
        ("fish", {"c/fish/config.fish": f"{RM_HOME}\n"}, "XDG_CONFIG_HOME=c fish -c true"),
        ("node", {"a.js": JS_RM_HOME}, "NODE_OPTIONS='--require ./a.js' node -e 0"),
    ],
)
def test_written_start_up_code_does_not_run(
    tmp_path: Path, harm_engine: tuple[Engine, Path], program: str, files: dict[str, str], payload: str
) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    engine, home = harm_engine
    assert os.environ["HOME"] == str(home) and home.is_relative_to(tmp_path)
    written_then_stopped(tmp_path, engine, home, files, payload)
