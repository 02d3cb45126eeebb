"""entry50 (stop 50, issue 8): files a program finds by itself.
The family: the line names no file, or names one the program resolves to another, and the program runs a file of
the project: npm's default and lifecycle scripts (`npm start` with no start script runs `node server.js`, `npm
restart` runs stop's and start's scripts), node's module resolution (`node .` runs package.json's `main` or
index.js, `node index` index.js), python's (`python3 d` runs d/__main__.py, `python3 -m x.y` x/y.py or
x/y/__main__.py from the working directory), `run-parts d` (every file of d) and a glob the shell resolves
(`bash x.s?`, `sh ./[x].sh`). Each was allowed with the file holding `rm -rf ~/notes.txt` (live below, a real
bash, node, npm and python, a fake HOME), in a session that wrote the file or without a session (`Engine.check`:
the file already on the disk), or both.
Fixed:
1. The Programs rows say how the program resolves the file it is given (`entry:` forms of an `as: file` run,
   policies/executors.yaml: node's operand, python's operand and `-m`): the first form the line, the session or
   the disk holds is the file read (follow._entry). `python3 -m pytest`, `python3 -m http.server` (no module of
   that name here) read nothing, as before.
2. npm_scripts: `npm start` (`restart`, yarn's, pnpm's) with no start script is `node server.js`; `npm restart`
   reads restart's, stop's and start's scripts with their pre- and post- ones.
3. A check without a session matches the glob of the word naming the file a program runs (`bash x.s?`) and lists
   the folder run-parts runs (DiskView.listing): adv49b's strict xfails, now plain tests there. Never for a
   `files:` run (the modules a script may import stay unread without a session: xf48b's false alarms).
Near misses that stay allowed (both ways): a benign start script, `npm start` with a benign server.js, `node .` with
a benign index.js, `python3 -m pytest` / `http.server` / `venv` / `pip`, a benign d/__main__.py, `bash x.s?` and
`run-parts d` with benign files, `ls *.sh`.
Open (strict xfail) until disk51: without a session, `npm --prefix d start` (`pnpm -C d start`) with d/package.json's
start script holding the payload was allowed (live); now read in d (tests/redteam/test_disk51.py). yarn and pnpm
are not installed here, so their `start` payloads are judged (ask) but not shown live. A zip run by python under a
name without its suffix (`python3 app`) is read as text: asks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact, make_home
from tests.redteam.harm import planted, policy_project, session_verdict

P = "rm -rf ~/notes.txt"
JS = "require('child_process').execSync('rm -rf ~/notes.txt')\n"
PY = "import os\nos.system('rm -rf ~/notes.txt')\n"
SAFE_JS = "console.log(1)\n"


def package(scripts: dict[str, str], **more: str) -> str:
    return json.dumps({"name": "p", "version": "1.0.0", "scripts": scripts, **more})


# name -> (files, command): each runs the payload (live: test_the_payload_deletes_the_note_live)
PAYLOADS: dict[str, tuple[dict[str, str], str]] = {
    "npm-start-server-js": ({"package.json": package({}), "server.js": JS}, "npm start"),
    "npm-restart-stop": ({"package.json": package({"stop": P, "start": "echo s"})}, "npm restart"),
    "npm-restart-poststart": ({"package.json": package({"start": "echo s", "poststart": P})}, "npm restart"),
    "npm-run-start-server-js": ({"package.json": package({}), "server.js": JS}, "npm run-script start"),
    "node-dot-index": ({"index.js": JS}, "node ."),
    "node-dot-main": ({"package.json": package({}, main="lib/m.js"), "lib/m.js": JS}, "node ."),
    "node-dot-main-no-suffix": ({"package.json": package({}, main="lib/m"), "lib/m.js": JS}, "node ."),
    "node-folder-index": ({"d/index.js": JS}, "node d"),
    "node-folder-main": ({"d/package.json": package({}, main="m.js"), "d/m.js": JS}, "node d"),
    "node-index-suffix": ({"index.js": JS}, "node index"),
    "node-dot-slash-folder": ({"d/index.js": JS}, "node ./d/"),
    "python-folder-main": ({"d/__main__.py": PY}, "python3 d"),
    "python-m-module": ({"x.py": PY}, "python3 -m x"),
    "python-m-package": ({"x/__main__.py": PY}, "python3 -m x"),
    "python-m-dotted": ({"x/y.py": PY}, "python3 -m x.y"),
    "python-m-attached": ({"x.py": PY}, "python3 -mx"),
    "python-m-parent-package": ({"x/__init__.py": PY, "x/w.py": "print(1)\n"}, "python3 -m x.w"),
    "python-m-grandparent-package": (
        {"x/__init__.py": PY, "x/y/__init__.py": "", "x/y/z.py": "print(1)\n"},
        "python3 -m x.y.z",
    ),
    "run-parts": ({"d/w": "#!/bin/sh\n" + P + "\n"}, "run-parts d"),
    "bash-glob": ({"x.sh": P + "\n"}, "bash x.s?"),
    "sh-bracket-glob": ({"x.sh": P + "\n"}, "sh ./[x].sh"),
}
# judged only (yarn and pnpm are not installed here): their start runs `node server.js` as npm's does
JUDGED_ONLY: dict[str, tuple[dict[str, str], str]] = {
    "yarn-start-server-js": ({"package.json": package({}), "server.js": JS}, "yarn start"),
    "pnpm-start-server-js": ({"package.json": package({}), "server.js": JS}, "pnpm start"),
}
NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "npm-start-script": ({"package.json": package({"start": "node ok.js"}), "ok.js": SAFE_JS}, "npm start"),
    "npm-start-server-js": ({"package.json": package({}), "server.js": SAFE_JS}, "npm start"),
    "npm-restart": ({"package.json": package({"start": "echo s", "stop": "echo t"})}, "npm restart"),
    "npm-test": ({"package.json": package({"test": "echo t"})}, "npm test"),
    "node-dot": ({"index.js": SAFE_JS}, "node ."),
    "node-dot-main": ({"package.json": package({}, main="lib/m.js"), "lib/m.js": SAFE_JS}, "node ."),
    "node-index": ({"index.js": SAFE_JS}, "node index"),
    "python-m-pytest": ({"t.py": "print(1)\n"}, "python3 -m pytest -q"),
    "python-m-http-server": ({"t.py": "print(1)\n"}, "python3 -m http.server 8000"),
    "python-m-venv": ({"a.py": "print(1)\n"}, "python3 -m venv .venv"),
    "python-m-own": ({"x.py": "print(1)\n"}, "python3 -m x"),
    "python-folder-main": ({"d/__main__.py": "print(1)\n"}, "python3 d"),
    "python-m-package-module": ({"x/__init__.py": "", "x/w.py": "print(1)\n"}, "python3 -m x.w"),
    "bash-glob": ({"x.sh": "echo hi\n"}, "bash x.s?"),
    "run-parts": ({"d/w": "#!/bin/sh\necho hi\n"}, "run-parts d"),
    "ls-glob": ({"x.sh": "echo hi\n"}, "ls *.sh"),
    "cat-glob": ({"x.py": PY}, "cat *.py"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "entry50", "kind: ApprovalPolicy\n") as project:
        yield project


def checked(loaded: tuple[Path, Engine], files: dict[str, str], command: str) -> str:
    """Engine.check's verdict (no session: what a guard hook asks) with ``files`` on the disk (executable)."""
    root, engine = loaded
    with planted(root, files, 0o755):
        return engine.check(command).decision


def in_session(loaded: tuple[Path, Engine], files: dict[str, str], command: str, session: str) -> str:
    """The terminal's verdict after the session wrote ``files`` (write_file)."""
    root, engine = loaded
    verdict = session_verdict(root, engine, files, command, session)
    for name in files:
        assert not (root / name).exists(), name
    return verdict


ALL_PAYLOADS = {**PAYLOADS, **JUDGED_ONLY}


@pytest.mark.parametrize("name", list(ALL_PAYLOADS))
def test_a_check_without_a_session_reads_the_file_the_program_finds(loaded: tuple[Path, Engine], name: str) -> None:
    files, command = ALL_PAYLOADS[name]
    assert checked(loaded, files, command) != "allow", command


@pytest.mark.parametrize("name", list(ALL_PAYLOADS))
def test_a_session_reads_the_written_file_the_program_finds(loaded: tuple[Path, Engine], name: str) -> None:
    files, command = ALL_PAYLOADS[name]
    assert in_session(loaded, files, command, f"payload-{name}") != "allow", command


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_ordinary_runs_stay_allowed_without_a_session(loaded: tuple[Path, Engine], name: str) -> None:
    files, command = NEAR_MISSES[name]
    assert checked(loaded, files, command) == "allow", command


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_ordinary_runs_stay_allowed_in_a_session(loaded: tuple[Path, Engine], name: str) -> None:
    files, command = NEAR_MISSES[name]
    assert in_session(loaded, files, command, f"near-{name}") == "allow", command


def test_the_resolved_file_is_the_one_judged(loaded: tuple[Path, Engine]) -> None:
    """Not any file of the tree: a payload in a file the program does not resolve to leaves the run allowed
    (`node .` with a package.json `main` naming a benign file runs that one, not index.js; `python3 -m x`
    with x.py benign runs x.py, not y.py)."""
    files = {"package.json": package({}, main="ok.js"), "ok.js": SAFE_JS, "index.js": JS}
    assert checked(loaded, files, "node .") == "allow"
    assert checked(loaded, {"x.py": "print(1)\n", "y.py": PY}, "python3 -m x") == "allow"
    assert checked(loaded, {"package.json": package({"start": "echo s"}), "server.js": JS}, "npm start") == "allow"


def _live(tmp_path: Path, files: dict[str, str], command: str) -> Path:
    """Run ``command`` unguarded with bash in a folder holding ``files`` and a fake HOME; return the HOME."""
    home = make_home(tmp_path)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    for name, text in files.items():
        path = cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {
        "HOME": str(home),
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
    }
    subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, timeout=60, check=False)
    return home


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_the_payload_deletes_the_note_live(tmp_path: Path, name: str) -> None:
    files, command = PAYLOADS[name]
    if command.startswith("npm") and shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    assert not home_intact(_live(tmp_path, files, command)), command


@pytest.mark.parametrize("name", ["npm-start-server-js", "node-dot", "python-folder-main", "bash-glob"])
def test_the_near_miss_leaves_the_note_live(tmp_path: Path, name: str) -> None:
    files, command = NEAR_MISSES[name]
    assert home_intact(_live(tmp_path, files, command)), command


# Without a session, npm's `--prefix DIR` (pnpm's `-C DIR`) runs DIR/package.json's scripts: (disk51) read there
PREFIXED = ["npm --prefix d start", "npm --prefix=d start", "npm run --prefix d start", "pnpm -C d start"]
PREFIXED_FILES = {"d/package.json": package({"start": P})}


@pytest.mark.parametrize("command", PREFIXED)
def test_a_session_less_check_of_a_prefixed_npm_script(loaded: tuple[Path, Engine], command: str) -> None:
    """(disk51, was a strict xfail) `npm --prefix d start` moves the verb to d as the verb's own `--prefix` does."""
    assert checked(loaded, PREFIXED_FILES, command) != "allow", command


def test_a_prefixed_npm_script_runs_live(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    assert not home_intact(_live(tmp_path, PREFIXED_FILES, "npm --prefix d start"))
