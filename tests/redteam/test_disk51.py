"""disk51 (stop 51, issue 8): what a check WITHOUT a session reads from the project on the disk.
The family: a session remembers the files it wrote; a check without one (`Engine.check`, a restarted engine, a host
that passes no session) reads some project files from the disk (the script a line names, the Makefile, package.json).
A caller who wrote files in an earlier session then runs them through a file the check does not read. Each payload
below deletes the fake home's note or runs the caller's program when run live (a real bash, npm, node, python).
Fixed:
1. npm's `--prefix DIR` (pnpm's `-C DIR`) given before the verb moves the verb to DIR as the verb's own option does (a
   verb's `chdir:`; install's row does not move with it: with `-g` the prefix is where the bins go), and the npm
   language reads a verb's operands with the verb's grammar: `npm --prefix d start`, `npm --prefix=d start`, `npm run
   --prefix d start`, `npm run --dir d start`, `pnpm -C d start` with d/package.json's start script deleting the note
   were allowed (entry50's strict xfail, now a plain test there).
2. A project's .npmrc is npm's (pnpm's) options for every command: read from the disk without a session too (language
   `npmrc`: its `key=value` lines as `--key=value` of the options the row declares) unless the git index lists it (a
   committed .npmrc is the user's, there before any session): `script-shell=./x`, `node-options=--require ./x.js`
   made `npm test` run ./x or x.js, allowed. `npm --node-options='--require ./x.js' test` (the option spelled on the
   line) was allowed too.
3. False alarm: `echo 'store-dir=.pnpm-store' >> .npmrc` asked. A `settings:` key ending in `/` names a folder: a value
   below the file's own folder is settings only (`~/.ssh`, `../x`, `$HOME`, an absolute path still ask).
Near misses that stay allowed: a benign d/package.json run with `--prefix`, an .npmrc of ordinary settings, a
committed .npmrc naming a shell, `make test` running a committed `./app`, the store-dir / cacheFolder writes.
Open (strict xfails, harm shown live): without a session, pytest's conftest.py / a `pytest.ini` `addopts = -p plug`,
tox.ini's commands and noxfile.py written by the caller are not read (`pytest`, `tox`, `nox`: allowed); a PYTHONPATH /
PATH folder of the project (mk50's strict xfails) is not read either. An .npmrc naming a registry other than npm's,
untracked, makes every npm command ask (the registry option is read for any verb, as on the line).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import harm_project, session_verdict

P = "rm -rf ~/notes.txt"
JS = "require('fs').rmSync(require('os').homedir() + '/notes.txt', {force: true})\n"
PY = "import os\nos.system('rm -rf ~/notes.txt')\n"
SH = "#!/bin/sh\n" + P + "\n"


def package(scripts: dict[str, str]) -> str:
    return json.dumps({"name": "p", "version": "1.0.0", "scripts": scripts})


# name -> (files on the disk before any session, the command): each deletes the note live (npm, node, bash)
PAYLOADS: dict[str, tuple[dict[str, str], str]] = {
    "npm-prefix-start": ({"d/package.json": package({"start": P})}, "npm --prefix d start"),
    "npm-prefix-equals": ({"d/package.json": package({"start": P})}, "npm --prefix=d start"),
    "npm-run-prefix": ({"d/package.json": package({"start": P})}, "npm run --prefix d start"),
    "npm-test-prefix-after": ({"d/package.json": package({"test": P})}, "npm test --prefix d"),
    "npm-short-prefix-after": ({"d/package.json": package({"start": P})}, "npm start -C d"),
    "npm-prefix-test": ({"d/package.json": package({"test": P})}, "npm --prefix d test"),
    "npmrc-script-shell": (
        {".npmrc": "script-shell=./x\n", "x": SH, "package.json": package({"test": "echo t"})},
        "npm test",
    ),
    "npmrc-node-options": (
        {".npmrc": "node-options=--require ./x.js\n", "x.js": JS, "package.json": package({"test": "node -e 0"})},
        "npm test",
    ),
    "npmrc-node-options-run": (
        {".npmrc": "node-options = --require=./x.js\n", "x.js": JS, "package.json": package({"b": "node -e 0"})},
        "npm run b",
    ),
    "node-options-on-the-line": (
        {"x.js": JS, "package.json": package({"test": "node -e 0"})},
        "npm --node-options='--require ./x.js' test",
    ),
}
# judged only (pnpm is not installed here): pnpm reads .npmrc and -C as npm does
JUDGED_ONLY: dict[str, tuple[dict[str, str], str]] = {
    "pnpm-dir": ({"d/package.json": package({"start": P})}, "pnpm -C d start"),
    "pnpm-run-dir": ({"d/package.json": package({"test": P})}, "pnpm run --dir d test"),
    "pnpm-npmrc-script-shell": (
        {".npmrc": "script-shell=./x\n", "x": SH, "package.json": package({"test": "echo t"})},
        "pnpm test",
    ),
}
NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "npm-prefix-benign": (
        {"d/package.json": package({"start": "node s.js"}), "d/s.js": "console.log(1)\n"},
        "npm --prefix d start",
    ),
    "npm-run-prefix-benign": ({"d/package.json": package({"test": "echo t"})}, "npm run --prefix d test"),
    "pnpm-dir-benign": ({"d/package.json": package({"start": "echo s"})}, "pnpm -C d start"),
    "npmrc-ordinary": (
        {
            ".npmrc": "save-exact=true\nengine-strict=true\nfund=false\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n"
            "registry=https://registry.npmjs.org/\nstore-dir=.pnpm-store\nloglevel=warn\n",
            "package.json": package({"test": "echo t", "start": "node s.js"}),
            "s.js": "console.log(1)\n",
        },
        "npm test",
    ),
    "npmrc-memory": (
        {".npmrc": "node-options=--max-old-space-size=4096\n", "package.json": package({"test": "echo t"})},
        "npm test",
    ),
    "npm-ci-ordinary-npmrc": ({".npmrc": "save-exact=true\n", "package.json": package({})}, "npm ci"),
    "make-runs-app": ({"Makefile": "test:\n\t./app\n", "app": "#!/bin/sh\necho hi\n"}, "make test"),
}
# writes judged by the line alone (no file on the disk needed)
WRITES_ALLOWED = [
    "echo 'store-dir=.pnpm-store' >> .npmrc",
    "printf 'store-dir=.pnpm-store\\n' > .npmrc",
    "echo 'virtual-store-dir=node_modules/.pnpm' >> .npmrc",
    "printf 'cacheFolder: .yarn/cache\\n' >> .yarnrc.yml",
]
WRITES_ASKED = [
    "echo 'store-dir=~/.ssh' >> .npmrc",
    "echo 'store-dir=../x' >> .npmrc",
    "echo 'store-dir=/tmp/s' > .npmrc",
    "echo 'store-dir=$HOME' > .npmrc",
    "echo 'store-dir=a/../../x' > .npmrc",
    "echo 'script-shell=./x' >> .npmrc",
    "echo 'store-dir=.pnpm-store' >> ~/.npmrc",
    "printf 'cacheFolder: ../../.ssh\\n' >> .yarnrc.yml",
]


def _on_disk(root: Path, files: dict[str, str]) -> None:
    """``files`` written in the project, dated an hour back (older than any session)."""
    back = time.time() - 3600
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
        (root / path).chmod(0o755)
        os.utime(root / path, (back, back))


def _git(root: Path, *words: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *words], cwd=root, env=env, check=True, capture_output=True, timeout=30)


def _check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], command: str, committed: bool = False
) -> str:
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        _on_disk(root, files)
        if committed:
            _git(root, "init", "-q")
            _git(root, "add", "-A")
            _git(root, "-c", "user.name=a", "-c", "user.email=a@e.x", "commit", "-q", "-m", "m")
        verdict = engine.check(command)
        return f"{verdict.decision} {sorted({m.key for m in verdict.matches})}"


def _live(tmp_path: Path, files: dict[str, str], command: str) -> Path:
    """Run ``command`` unguarded with bash in a folder holding ``files`` and a fake HOME; return the HOME."""
    home = make_home(tmp_path)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    _on_disk(cwd, files)
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
    }
    subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, timeout=60, check=False)
    return home


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_the_payload_deletes_the_note_live(tmp_path: Path, name: str) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    files, command = PAYLOADS[name]
    assert not home_intact(_live(tmp_path, files, command)), command


@pytest.mark.parametrize("name", [*PAYLOADS, *JUDGED_ONLY])
def test_a_check_without_a_session_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = {**PAYLOADS, **JUDGED_ONLY}[name]
    assert not _check(tmp_path, monkeypatch, files, command).startswith("allow"), command


@pytest.mark.parametrize("name", [n for n in (*PAYLOADS, *JUDGED_ONLY) if "npmrc" not in n])
def test_a_session_that_wrote_the_files_reads_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = {**PAYLOADS, **JUDGED_ONLY}[name]
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        assert session_verdict(root, engine, files, command, f"s-{name}") != "allow", command


@pytest.mark.parametrize("name", [n for n in (*PAYLOADS, *JUDGED_ONLY) if "npmrc" in n])
def test_a_session_writing_the_npmrc_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """In a session the .npmrc's write itself needs an approval (write_sensitive_file): what a later session-less check
    meets is a file an approved (or unguarded) write left behind."""
    files, _command = {**PAYLOADS, **JUDGED_ONLY}[name]
    with harm_project(tmp_path, monkeypatch) as (engine, _home, _root):
        assert not engine.call("write_file", {"path": ".npmrc", "content": files[".npmrc"]}, session_id="s").ok


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_allowed_without_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = NEAR_MISSES[name]
    verdict = _check(tmp_path, monkeypatch, files, command)
    assert verdict.startswith("allow"), (command, verdict)


@pytest.mark.parametrize("name", ["npm-prefix-benign", "npmrc-ordinary", "npmrc-memory", "make-runs-app"])
def test_near_miss_leaves_the_note_live(tmp_path: Path, name: str) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    files, command = NEAR_MISSES[name]
    assert home_intact(_live(tmp_path, files, command)), command


def test_a_committed_npmrc_is_the_users(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same .npmrc naming a shell: untracked (a session may have left it) it is read and asks; listed by the git
    index (committed before any session) it is the user's and not read."""
    files = {".npmrc": "script-shell=/bin/bash\n", "package.json": package({"test": "echo t"})}
    assert not _check(tmp_path / "a", monkeypatch, files, "npm test").startswith("allow")
    assert _check(tmp_path / "b", monkeypatch, files, "npm test", committed=True).startswith("allow")


def test_a_staged_payload_is_still_read_when_untracked_beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Committed is decided per file: a committed package.json does not make an untracked .npmrc the user's."""
    with harm_project(tmp_path, monkeypatch) as (engine, _home, root):
        _on_disk(root, {"package.json": package({"test": "echo t"})})
        _git(root, "init", "-q")
        _git(root, "add", "package.json")
        _on_disk(root, {".npmrc": "script-shell=./x\n", "x": SH})
        assert engine.check("npm test").decision != "allow"


@pytest.mark.parametrize("command", WRITES_ALLOWED)
def test_a_project_folder_setting_is_settings_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    with harm_project(tmp_path, monkeypatch) as (engine, _home, _root):
        verdict = engine.check(command)
        assert verdict.decision == "allow", (command, sorted(m.key for m in verdict.matches))


@pytest.mark.parametrize("command", WRITES_ASKED)
def test_a_folder_setting_elsewhere_still_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    with harm_project(tmp_path, monkeypatch) as (engine, _home, _root):
        assert engine.check(command).decision != "allow", command


# -- open: test runners' project files written by the caller, read by nobody without a session ----------------------
RUNNER_FILES: dict[str, tuple[dict[str, str], str]] = {
    "pytest-conftest": (
        {"conftest.py": PY, "test_a.py": "def test_a():\n    pass\n"},
        "python3 -m pytest -q -p no:cacheprovider",
    ),
    "pytest-ini-plugin": (
        {"pytest.ini": "[pytest]\naddopts = -p plug\n", "plug.py": PY, "test_a.py": "def test_a():\n    pass\n"},
        "python3 -m pytest -q -p no:cacheprovider",
    ),
}


def _live_python(tmp_path: Path, files: dict[str, str], command: str) -> Path:
    """As _live, with this interpreter (which has pytest) first on PATH as python3."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    home = make_home(tmp_path)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    _on_disk(cwd, files)
    env = {"HOME": str(home), "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, timeout=60, check=False)
    return home


@pytest.mark.parametrize("name", list(RUNNER_FILES))
def test_a_runner_file_deletes_the_note_live(tmp_path: Path, name: str) -> None:
    files, command = RUNNER_FILES[name]
    assert not home_intact(_live_python(tmp_path, files, command)), command


@pytest.mark.xfail(
    strict=True,
    reason="open (disk51): without a session a test runner's project files (conftest.py, pytest.ini's addopts "
    "plugins, tox.ini, noxfile.py) are not read; reading them only when the git index does not list them (as .npmrc "
    "now) is the next step",
)
@pytest.mark.parametrize("name", list(RUNNER_FILES))
def test_open_a_runner_file_without_a_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    files, command = RUNNER_FILES[name]
    assert not _check(tmp_path, monkeypatch, files, command).startswith("allow"), command
