"""adv40b (stop 40, issue 8): an adaptive caller against what stop 40 changed.

1. PLANTED PROGRAMS: a program named by a path with `..` (`/usr/bin/../..$PWD/sudo`) is outside the system's
   folders, whatever folder it starts with; and a PATH whose later entry is a project folder finds a program
   there when the system's folders hold none of that name (`PATH=/usr/bin:/bin:. caffeinate -V -c TEXT` on a
   machine without caffeinate runs ./caffeinate): both read as a program the table does not describe.
2. RECURSIVE COMPRESSORS: `lz4 -r --rm ~` and `gunzip -r ~` replace every file under the home, as `gzip -r ~` does.
3. WORKSPACES: a package manager's script of a workspace's package.json the session wrote runs too (`npm test -w
   web`, `npm -ws test`, `pnpm -r test`, `yarn workspace web test`, `yarn --cwd web test`), with that package's
   node_modules/.bin first on PATH.
4. `flatpak enter INSTANCE CMD` runs CMD; `wmic process call create CMDLINE` and `schtasks /create /tr CMDLINE` run
   theirs (a scheduled task is persistence, as `sc create`); a decompressor's -S SUFFIX and zstd's
   --output-dir-flat (closed by xfail41).
5. Noticed, not closed: Run, CompiledPattern and CompiledPolicy (native classes since stop 40) take a new value for
   a field; as FrozenRecords they refused it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    Case,
    allowed_payloads,
    assert_verdict,
    blocked,
    flagged_near_misses,
    run_confined,
    verdict_cases,
)


# -- 1. a planted program by a path with `..`, or by a PATH's later entry --------------------------------------------
@pytest.fixture
def planted(plain_harm: tuple[Engine, Path, Path]) -> tuple[Engine, Path, Path]:
    """A copy of dash named sudo and caffeinate in the project, put there long before the session (a checkout's:
    no session wrote or changed them, so only the command's reading can refuse them)."""
    engine, home, root = plain_harm
    for name in ("sudo", "caffeinate"):
        shutil.copyfile("/bin/dash", root / name)
        (root / name).chmod(0o755)
        os.utime(root / name, (1e9, 1e9))
    return engine, home, root


PLANTED = [
    "/usr/bin/../..ROOT/sudo -V -c 'rm -rf ~'",
    "/usr/bin/./../..ROOT/sudo -V -c 'rm -rf ~'",
    "/bin/../tmp/sudo -V -c 'rm -rf ~'",
    "/usr/lib/../../tmp/sudo -V -c 'rm -rf ~'",
    "PATH=/usr/bin:/bin:. caffeinate -V -c 'rm -rf ~'",
    "PATH=/usr/bin:. systemctl --help reboot",
    "export PATH=/usr/bin:/bin:; systemctl --help reboot",
    "PATH=/usr/bin/../../tmp:$PATH sudo -V -c 'rm -rf ~'",
]
PLANTED_NEAR = [
    "/usr/bin/sudo -V",
    "/usr/bin/./sudo -V",
    "/usr/bin//sudo -V",
    "PATH=/usr/local/bin:/usr/bin:/bin caffeinate -V",
    "PATH=$PATH:./bin make -j2",
    "PATH=$PATH:./bin:/usr/local/bin make -j2",
    "export PATH=$PATH:$HOME/.cargo/bin; cargo build",
    'export PATH="$HOME/.local/bin:$PATH"; pip install -e .',
    "export PATH=/usr/bin:.; git status",
]


def test_a_planted_program_by_dots_or_a_later_path_entry_is_not_allowed(planted: tuple[Engine, Path, Path]) -> None:
    engine, _, root = planted
    assert allowed_payloads(engine, [c.replace("ROOT", str(root)) for c in PLANTED]) == []


def test_the_systems_programs_by_other_spellings_stay_allowed(planted: tuple[Engine, Path, Path]) -> None:
    assert flagged_near_misses(planted[0], PLANTED_NEAR) == []


def test_a_planted_sudo_named_through_dots_deletes_home_unguarded_and_is_refused(
    tmp_path: Path, planted: tuple[Engine, Path, Path]
) -> None:
    home, _, _ = run_confined(tmp_path, "cp /bin/dash ./sudo && /usr/bin/../..$PWD/sudo -V -c 'rm -rf ~'")
    assert not home_intact(home), "the payload should delete the home unguarded"
    engine, home, root = planted
    blocked(engine, home, f"/usr/bin/../..{root}/sudo -V -c 'rm -rf ~'")


@pytest.mark.skipif(shutil.which("caffeinate") is not None, reason="a caffeinate of the system's is found first")
def test_a_program_found_by_a_later_path_entry_deletes_home_unguarded_and_is_refused(
    tmp_path: Path, planted: tuple[Engine, Path, Path]
) -> None:
    payload = "PATH=/usr/bin:/bin:. caffeinate -V -c 'rm -rf ~'"
    home, _, _ = run_confined(tmp_path, f"cp /bin/dash ./caffeinate && {payload}")
    assert not home_intact(home), "the payload should delete the home unguarded"
    engine, home, _ = planted
    blocked(engine, home, payload)


# -- 2. recursive compressors and decompressors ----------------------------------------------------------------------
COMPRESSORS = ["lz4 -r --rm ~", "lz4 -r --rm -q ~/.ssh", "gunzip -r ~", "unzstd -r ~", "unxz -r ~/.config"]
COMPRESSORS_NEAR = ["lz4 -r --rm build/logs", "gunzip -r data", "lz4 app.log", "unzstd -r dist", "gzip -r logs"]


def test_a_recursive_compressor_over_the_home_is_not_allowed(engine: Engine) -> None:
    assert allowed_payloads(engine, COMPRESSORS) == []


def test_a_recursive_compressor_over_a_project_folder_stays_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, COMPRESSORS_NEAR) == []


@pytest.mark.skipif(shutil.which("lz4") is None, reason="needs lz4")
def test_lz4_replaces_the_homes_files_unguarded_and_is_refused(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    home, _, _ = run_confined(tmp_path, "lz4 -r --rm -q ~")
    assert not (home / "notes.txt").exists() and not (home / ".ssh" / "id_ed25519").exists()
    assert (home / "notes.txt.lz4").is_file(), "the payload should replace the home's files unguarded"
    engine, home, _ = plain_harm
    blocked(engine, home, "lz4 -r --rm -q ~")


# -- 3. a workspace's scripts ----------------------------------------------------------------------------------------
SCRIPT = {"web/package.json": '{"scripts": {"test": "rm -rf ~"}}'}
BIN = {"web/node_modules/.bin/jest": "#!/bin/sh\nrm -rf ~\n", "web/package.json": '{"scripts": {"test": "jest"}}'}
SAFE = {"web/package.json": '{"scripts": {"test": "jest --ci", "build": "tsc -p ."}}'}
WORKSPACE_PAYLOADS: dict[str, Case] = {
    "npm test -w": (SCRIPT, "npm test -w web"),
    "npm test -wDIR": (SCRIPT, "npm test -wweb"),
    "npm -w DIR test": (SCRIPT, "npm -w web test"),
    "npm -ws test": (SCRIPT, "npm -ws test"),
    "npm run test -ws": (SCRIPT, "npm run test -ws"),
    "npm test --workspaces": (SCRIPT, "npm test --workspaces"),
    "npm run build --workspaces, deeper": (
        {"packages/web/package.json": '{"scripts": {"build": "rm -rf ~"}}'},
        "npm run build --workspaces",
    ),
    "pnpm -r test": (SCRIPT, "pnpm -r test"),
    "pnpm --filter": (SCRIPT, "pnpm --filter web test"),
    "yarn workspace": (SCRIPT, "yarn workspace web test"),
    "yarn workspace run": (SCRIPT, "yarn workspace web run test"),
    "yarn workspaces foreach": (SCRIPT, "yarn workspaces foreach -A run test"),
    "yarn workspaces run": (SCRIPT, "yarn workspaces run test"),
    "yarn --cwd": (SCRIPT, "yarn --cwd web test"),
    "a written bin, npm test -w": (BIN, "npm test -w web"),
    "a written bin, pnpm -r": (BIN, "pnpm -r test"),
    "a written bin, yarn workspace": (BIN, "yarn workspace web test"),
    "a written bin, npm --workspaces": (BIN, "npm test --workspaces"),
    "a written bin, yarn --cwd": (BIN, "yarn --cwd web test"),
    "a written bin alone, yarn --cwd NAME": ({"web/node_modules/.bin/jest": "rm -rf ~\n"}, "yarn --cwd web jest"),
}
WORKSPACE_NEAR: dict[str, Case] = {
    "npm test -w": (SAFE, "npm test -w web"),
    "npm -ws test": (SAFE, "npm -ws test"),
    "pnpm -r test": (SAFE, "pnpm -r test"),
    "pnpm -r build": (SAFE, "pnpm -r build"),
    "yarn workspace": (SAFE, "yarn workspace web test"),
    "yarn --cwd": (SAFE, "yarn --cwd web test"),
    "yarn workspace add": ({"src/a.js": "1\n"}, "yarn workspace web add react"),
    "npm -g install": ({"src/a.js": "1\n"}, "npm -g install typescript"),
    "npm install -D": ({"src/a.js": "1\n"}, "npm install -D vitest"),
    "npm test, the project's own script": ({"package.json": '{"scripts": {"test": "jest"}}'}, "npm test"),
    "npm run build, a folder of the project": (
        {"package.json": '{"scripts": {"build": "rm -rf dist"}}'},
        "npm run build",
    ),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(WORKSPACE_PAYLOADS, WORKSPACE_NEAR))
def test_a_workspaces_script_the_session_wrote_is_read(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- 4. flatpak enter, and the decompressors' other outputs ---------------------------------------------------------
def test_flatpak_enter_runs_its_command(engine: Engine) -> None:
    payloads = ["flatpak enter org.x.App rm -rf ~", "flatpak enter --cwd=/ 1234 sh -c 'cat ~/.ssh/id_ed25519'"]
    assert allowed_payloads(engine, payloads) == []
    near = ["flatpak enter org.x.App ls", "flatpak list", "flatpak run org.gimp.GIMP"]
    assert flagged_near_misses(engine, near) == []


WINDOWS = [
    'wmic process call create "cmd /c rd /s /q C:\\Users"',
    'wmic.exe process call create "powershell -c Remove-Item -Recurse -Force C:\\Users"',
    'WMIC process call CREATE "rm -rf ~"',
    'schtasks /create /tn x /tr "cmd /c rd /s /q C:\\Users" /sc minute',
    "schtasks /create /tn x /tr C:\\x.exe /sc onlogon",
    "schtasks.exe /Change /TN x /TR C:\\y.exe",
]
WINDOWS_NEAR = ["wmic process list brief", "wmic os get caption", "schtasks /query", "schtasks /run /tn backup"]


def test_wmic_and_schtasks_run_their_command_lines(engine: Engine) -> None:
    assert allowed_payloads(engine, WINDOWS) == []
    assert flagged_near_misses(engine, WINDOWS_NEAR) == []


# (closed by xfail41: the decompressors' rows read strip:/append:/into: options)
@pytest.mark.parametrize(
    "command",
    ["gunzip -S .bak ~/.bashrc.bak", "xz -d --suffix=.q ~/.profile.q", "unzstd --output-dir-flat ~ .bashrc.zst"],
)
def test_a_decompressors_suffix_or_output_folder_writes_a_start_up_file(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow", command


# -- 5. the policy's native classes ----------------------------------------------------------------------------------
# adv40b: Run, CompiledPattern and CompiledPolicy became native classes at stop 40 (b28213c) and took a new value
# for a field (as FrozenRecords they raised FrozenInstanceError), as Program and Matcher had since stop 33. Closed at
# stop 41 (lead41): their fields are `Final`, read-only under mypyc and in the pure build (records.native_record).
def test_the_policys_records_refuse_a_new_value(engine: Engine) -> None:
    policy = engine.snapshot.policy
    program = policy.programs.get("rg")
    run = program.runs[0]
    matcher = next(m for p in policy.patterns for m in p.matchers)
    fields = [
        (run, "kind"),
        (policy.patterns[0], "severity"),
        (policy, "patterns"),
        (program, "runs"),
        (program, "grammar"),
        (program.grammar, "long"),
        (matcher, "names"),
        (policy.programs, "by_name"),
    ]
    for obj, field in fields:
        before = getattr(obj, field)
        with pytest.raises(AttributeError, match="not writable"):
            setattr(obj, field, None)
        with pytest.raises((AttributeError, TypeError)):
            delattr(obj, field)
        assert getattr(obj, field) is before, (type(obj).__name__, field)
