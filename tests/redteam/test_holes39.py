"""holes39: the misses stop 38 noticed and left open in the terminal's danger detector.

1. Remote executors: `knife ssh QUERY CMD` and `fab [-H HOSTS] -- CMD` run CMD on hosts that may be this one:
   judged as `ssh HOST CMD` is (policies/executors.yaml knife, fab rows).
2. A shell the table does not name (`nsh -c CMD`, `closh -c CMD`): an undescribed program's `-c STRING` is read as a
   shell line (the `*` row); a value that is no command acts on nothing (`mytool -c config.yaml`).
3. A home or a credentials folder made unusable: `~/..` climbing above the home is read beside the homes (paths.
   normalize_path: `~/../$USER` is /home/$USER, a home, not ~/$USER); an owner-taking mode on a folder holding
   credentials (`chmod 000 ~/.ssh`), `install -d -m 000 ~`, `chattr -R +i ~` ask (system.yaml permissions_broad).
4. An undescribed program whose operand merely names an acting program (`mywrap reboot`): read as a wrapper too, its
   hardline matches asking (follow._carried's bare reading, Command.guessed); lookups and message printers (`which
   reboot`, `tldr kill`, `logger reboot`) are no wrappers.
5. Files the session wrote, run by `cmd /c x.bat`, `scons -f F`, `fab -f F` / `fabric -f F`, are judged by their text.
6. A `.pth` file the session wrote is read as Python when python runs (`site.addsitedir(D)` runs its import lines).

False alarms removed: a program's host operands (`hosts:` in the Programs table: salt's target, ansible's pattern,
ssh's host) are read by no path class (`salt '*' test.ping`); a help option after a permuting system program's verb
(`systemctl reboot --help`, `shutdown now --help`) asks instead of hardline, unless POSIXLY_CORRECT is named on the
line (then it is an operand and the verb runs: argv.runs_nothing_later).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import (
    Case,
    assert_allowed,
    assert_hardline,
    assert_not_allowed,
    assert_verdict,
    blocked,
    live_then_stopped,
    run_confined,
    verdict_cases,
    written_then_allowed,
    written_then_stopped,
)

# -- 1. remote executors ------------------------------------------------------------------------------------
REMOTE_PAYLOADS = [
    "knife ssh 'name:*' 'rm -rf ~'",
    "knife ssh 'name:*' rm -rf ~",
    "knife ssh -x root role:web 'rm -rf ~'",
    "knife ssh -m localhost 'sudo reboot'",
    "fab -H h -- rm -rf ~",
    "fab -H localhost -- 'rm -rf ~'",
    "fab -- sudo reboot",
]
REMOTE_NEAR = [
    "knife ssh 'name:*' uptime",
    "knife ssh 'role:web' 'sudo chef-client'",
    "knife node list",
    "fab -H h -- uptime",
    "fab -H h deploy",
    "fab deploy",
    "invoke build",
]


@pytest.mark.parametrize("command", REMOTE_PAYLOADS)
def test_a_remote_executors_command_is_judged_as_ssh_hosts(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


@pytest.mark.parametrize("command", REMOTE_NEAR)
def test_an_ordinary_remote_command_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


# -- 2. shells the table does not name ----------------------------------------------------------------------
SHELL_PAYLOADS = [
    "nsh -c 'rm -rf ~'",
    "closh -c 'rm -rf ~'",
    "fooish -c 'rm -rf ~'",
    "/opt/x/bin/nsh -c 'rm -rf $HOME'",
    "closh -c reboot",
]
SHELL_NEAR = [
    "nsh -c 'ls -la'",
    "closh -c 'echo hi'",
    "mytool -c config.yaml",
    "mytool -c 3 host",
    "mytool -c ./build",
    "mytool -c ~/.config/x.yaml",
    "redis-cli -c get x",
    'gcc -c "$f"',
    'for f in *.c; do gcc -c "$f"; done',
    "mytool -c 'my file.c'",
]


@pytest.mark.parametrize("command", SHELL_PAYLOADS)
def test_an_unnamed_shells_command_line_is_judged(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


@pytest.mark.parametrize("command", SHELL_NEAR)
def test_an_ordinary_dash_c_value_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


def test_a_shell_copied_under_a_wrappers_name_with_dash_c_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    # (adv38's open xfail, one spelling) a copy of dash named nice: `--help` is no promise, `-c TEXT` runs TEXT; nice
    # declares no -c, so its value is read as a shell line (the `*` row's -c run)
    engine, _, root = plain_harm
    (root / "bin").mkdir()
    copy = root / "bin" / "nice"
    copy.write_bytes(Path("/bin/dash").read_bytes())
    copy.chmod(0o755)
    assert_not_allowed(engine, "bin/nice --help -c 'rm -rf ~'")


def test_an_unnamed_shell_deleting_home_is_refused(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    shell = tmp_path / "bin" / "nsh"  # a shell by a name no table row holds (bash, copied)
    shell.parent.mkdir()
    bash = shutil.which("bash")
    assert bash is not None
    shutil.copy(bash, shell)
    live_then_stopped(tmp_path, engine, home, f"{shell} -c 'rm -rf ~'")


# -- 3. the home or the credentials folder made unusable -------------------------------------------------------
LOCKED_ASKED = [
    "chmod 000 ~/../$USER",
    "chmod 000 ~/.ssh",
    "chmod 0 $HOME/.ssh",
    "chmod u-x ~/.gnupg",
    "install -d -m 000 ~",
    "install -dm0 ~/.ssh",
    "install --directory --mode=000 $HOME",
    "chattr -R +i ~",
    "chattr +i ~",
    "chattr +i ~/.ssh",
]
LOCKED_HARDLINE = [
    "rm -rf ~/../$USER",
    "rm -rf ~/..",
    "rm -rf ~/../..",
]
LOCKED_NEAR = [
    "chmod 700 ~/.ssh",
    "chmod go-rwx ~/.ssh",
    "chmod 600 ~/.ssh/id_ed25519",
    "chmod 644 ~/.ssh/id_ed25519.pub",
    "chmod 600 ~/.ssh/config",
    "chmod 755 ~/../$USER",
    "install -d -m 000 build/x",
    "install -m 000 x build/y",
    "chattr +i notes.txt",
    "cat ~/a/../b",
    "ls ~/..",
]


@pytest.mark.parametrize("command", LOCKED_ASKED)
def test_locking_the_home_or_its_credentials_asks(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


@pytest.mark.parametrize("command", LOCKED_HARDLINE)
def test_a_home_climbed_to_through_dots_is_the_home(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


@pytest.mark.parametrize("command", LOCKED_NEAR)
def test_an_ordinary_mode_change_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


@pytest.mark.parametrize(
    ("payload", "locked"),
    [("chmod 000 ~/.ssh", ".ssh"), ("install -d -m 000 ~", ""), ("chmod 000 ~/../$(basename ~)", "")],
)
def test_locking_the_home_for_real_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str, locked: str
) -> None:
    engine, home, _ = plain_harm
    live, _, _ = run_confined(tmp_path / "unguarded", payload)
    target = live / locked if locked else live
    try:
        assert stat.S_IMODE(target.stat().st_mode) == 0, payload
    finally:
        target.chmod(0o755)
    blocked(engine, home, payload)


# -- 4. an undescribed program naming an acting one ---------------------------------------------------------
GUESSED_ASKED = [
    "mywrap reboot",
    "mywrap halt",
    "mywrap shutdown now",
    "mywrap kill 1",
]
GUESSED_NEAR = [
    "cowsay reboot",
    "echo reboot",
    "printf '%s\\n' reboot",
    "which reboot",
    "whereis shutdown",
    "tldr reboot",
    "apropos reboot",
    "man shutdown",
    "logger reboot",
    "notify-send reboot",
    "mytool git status",
    "mywrap ls",
    "mywrap rm notes.txt",
]


@pytest.mark.parametrize("command", GUESSED_ASKED)
def test_an_unknown_program_naming_an_acting_one_asks(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "ask" and not verdict.hardline, (command, verdict.decision, verdict.hardline)


@pytest.mark.parametrize("command", GUESSED_NEAR)
def test_a_printer_or_a_lookup_of_a_name_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


def test_a_certain_reading_is_not_hidden_by_a_guessed_one(engine: Engine) -> None:
    # tmux runs `reboot` (certain) and the bare reading of its piece may name it too: the hardline stands
    for command in ("tmux new -d ';' run reboot", "mywrap --daemon reboot"):
        assert_hardline(engine, command)


# -- 5, 6. written files run by cmd /c, scons -f, fab -f, a .pth ----------------------------------------------
RM_HOME_PY = "import os\nos.system('rm -rf ~')\n"
WRITTEN: dict[str, Case] = {
    "cmd-bat": ({"x.bat": "rm -rf ~\n"}, "cmd /c x.bat"),
    "cmd-bat-k": ({"x.bat": "rm -rf ~\n"}, "cmd.exe /k x.bat"),
    "scons-f": ({"F": RM_HOME_PY}, "scons -f F"),
    "scons-sconstruct": ({"F": RM_HOME_PY}, "scons --sconstruct=F"),
    "fab-f": ({"F": RM_HOME_PY}, "fab -f F"),
    "fab-f-task": ({"F": RM_HOME_PY}, "fab -f F deploy"),
    "fabric-f": ({"F": RM_HOME_PY}, "fabric -f F"),
    "invoke-f-py": ({"c.py": RM_HOME_PY}, "invoke -f c.py build"),
    "pth-addsitedir": (
        {"d/x.pth": "import os; os.system('rm -rf ~')\n"},
        "python -c \"import site; site.addsitedir('d')\"",
    ),
    "pth-addsitedir-3": (
        {"d/x.pth": "import os; os.system('rm -rf ~')\n"},
        "python3 -c 'import site; site.addsitedir(\"d\")'",
    ),
}
WRITTEN_NEAR: dict[str, Case] = {
    "cmd-bat": ({"x.bat": "echo hi\n"}, "cmd /c x.bat"),
    "scons-f": ({"F": "print('hi')\n"}, "scons -f F"),
    "fab-f": ({"F": "from fabric import task\n@task\ndef x(c):\n    c.run('uptime')\n"}, "fab -f F x"),
    "invoke-f-yaml": ({"c.yaml": "run:\n  echo: true\n"}, "invoke -f c.yaml build"),
    "pth-paths": ({"d/x.pth": "/some/path\n../lib\n"}, "python -c \"import site; site.addsitedir('d')\""),
    "pth-then-python": ({"d/x.pth": "/some/path\n"}, "python -c 'print(1)'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(WRITTEN, WRITTEN_NEAR))
def test_a_written_file_run_by_its_runner_is_judged(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_a_written_pth_deleting_home_is_refused(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    if shutil.which("python3") is None:
        pytest.skip("needs python3")
    engine, home, _ = plain_harm
    files = {"d/x.pth": "import os; os.system('rm -rf ~')\n"}
    written_then_stopped(tmp_path, engine, home, files, "python3 -c \"import site; site.addsitedir('d')\"")


def test_a_written_pth_of_paths_runs(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, _, _ = plain_harm
    written_then_allowed(engine, {"d/x.pth": "lib\n"}, "python3 -c \"import site; site.addsitedir('d')\"")


# -- false alarms: a host pattern is no file name ----------------------------------------------------------
HOST_NEAR = [
    "salt '*' test.ping",
    "salt -G 'os:*' test.ping",
    "ansible '*' -m ping",
    "ansible -m ping '*'",
    "ssh '*' uptime",
    "ssh policies uptime",
]
HOST_PAYLOADS = [
    "salt '*' file.remove '*'",
    "salt '*' cp.get_file salt://x '*'",
    "ansible '*' -m copy -a 'src=x dest=*'",
    "cp x '*'",
    "mytool '*'",
    "salt-call '*'",
]
HOST_HARDLINE = [
    "salt '*' cmd.run 'rm -rf ~'",
    "ansible '*' -m shell -a 'rm -rf ~'",
    "ssh '*' 'rm -rf ~'",
]


@pytest.mark.parametrize("command", HOST_NEAR)
def test_a_host_pattern_names_no_engine_file(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


@pytest.mark.parametrize("command", HOST_PAYLOADS)
def test_a_glob_that_may_be_a_file_still_asks(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


@pytest.mark.parametrize("command", HOST_HARDLINE)
def test_a_host_patterns_command_is_still_judged(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


# -- false hardline: a help option after the verb ------------------------------------------------------------
HELP_AFTER = [
    "systemctl reboot --help",
    "systemctl reboot -h",
    "shutdown now --help",
    "shutdown -r now --help",
    "reboot now --help",
    "loginctl poweroff --version",
    "sudo shutdown now --help",
]
HELP_AFTER_ACTING = [
    "shutdown now --foo",
    "systemctl reboot --force",
    "systemctl reboot",
    "POSIXLY_CORRECT=1 shutdown now --help",
    "export POSIXLY_CORRECT=1; systemctl reboot -h",
    "env POSIXLY_CORRECT=y systemctl reboot --help",
]


@pytest.mark.parametrize("command", HELP_AFTER)
def test_a_help_after_the_verb_asks_not_hardline(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision != "allow" and not verdict.hardline, (command, verdict.decision)


@pytest.mark.parametrize("command", HELP_AFTER_ACTING)
def test_a_verb_that_runs_stays_hardline(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


def test_posixly_correct_in_the_engines_environment_keeps_the_hardline(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the caller's shell may inherit the engine's environment: its POSIXLY_CORRECT makes --help an operand
    monkeypatch.setenv("POSIXLY_CORRECT", "1")
    assert "POSIXLY_CORRECT" in os.environ
    assert_hardline(engine, "shutdown now --help")
