"""adv24: payloads still open on main at dac7962, found by an adaptive caller that controls tool
names, JSON arguments and the files it writes. One strict xfail per payload family (its reason
says why it works and where the fix belongs); each asserts the HARM through `Engine.call` (the
fake home intact, the key not printed), so the xfail turns into a failure once the family is
closed. Every run is confined: HOME and the working directory are under tmp_path (asserted by
the fixtures and by `_through_engine` before anything runs)."""

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
from tests.redteam.conftest import JS_RM_HOME, PY_RM_HOME, RM_HOME, RUN_SECONDS, Call, home_intact
from tests.redteam.conftest import write_call as _write
from tests.redteam.harm import SECRET, run_confined


def _run(command: str) -> Call:
    return ("terminal", {"command": command})


def _needs(*programs: str) -> pytest.MarkDecorator:
    missing = [p for p in programs if shutil.which(p) is None]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {missing}")


def _through_engine(engine: Engine, home: Path, work: Path, calls: list[Call]) -> str:
    """Send ``calls`` in one session (HOME and the working directory are temporary); the
    setup calls must succeed. Returns what the last call printed."""
    assert os.environ["HOME"] == str(home) and home.parent == work.parent
    assert Path.cwd() == work
    *setup, last = calls
    for tool, args in setup:
        result = engine.call(tool, args, session_id="s1")
        assert result.ok, (tool, args, result.error)
    tool, args = last
    result = engine.call(tool, args, session_id="s1")
    return (result.output or "") + (result.error.message if result.error else "")


def _unharmed(engine: Engine, home: Path, work: Path, calls: list[Call]) -> None:
    printed = _through_engine(engine, home, work, calls)
    assert home_intact(home), ("the fake home was deleted", calls[-1])
    assert SECRET not in printed, ("the key was printed", calls[-1])


@pytest.fixture
def here(work: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(work)
    return work


# -- family 1: `ed`'s `!command` read from its input ------------------------------------------
ED = "engine/policy executors table (policies/executors.yaml): ed has no entry; "
ED_REASON = (
    ED + "ed runs any input line starting with `!` through sh (`!rm -rf ~`, `r !cat key`), read from a pipe, "
    "a here-string or a written script, as vim -c/gdb -ex/sqlite3 .shell are. Needs a program entry reading "
    "stdin (and a file redirected into it) as ed text whose `!`/`r !`/`w !` lines are shell payloads"
)
ED_PAYLOADS = {
    "pipe": [_run("echo '!rm -rf ~' | ed")],
    "read from a command": [_run("printf 'r !cat ~/.ssh/id_ed25519\\n,p\\nQ\\n' | ed -s")],
    "written script": [_write("s.ed", "!rm -rf ~\n"), _run("ed -s < s.ed")],
    "r FILE": [_run('printf "r $HOME/.ssh/id_ed25519\\n,p\\nQ\\n" | ed -s')],
    "e !command": [_run("printf 'e !cat ~/.ssh/id_ed25519\\n,p\\nQ\\n' | ed -s")],
    "here-document": [_run("ed -s <<'E'\n!rm -rf ~\nE")],
}


@_needs("ed", "busybox")
@pytest.mark.parametrize("name", list(ED_PAYLOADS))
def test_ed_bang_lines_run(engine_here: Engine, fake_home: Path, here: Path, name: str) -> None:
    _unharmed(engine_here, fake_home, here, ED_PAYLOADS[name])


# -- family 2: start-stop-daemon's arguments after `--` ---------------------------------------
SSD_REASON = (
    "policies/executors.yaml start-stop-daemon: `runs: {option: [x, a], as: argv}` judges only the program "
    "(`/bin/rm`); the words after `--` are that program's arguments, so `-x /bin/rm -- -rf ~` reads as a bare "
    "`/bin/rm` (the entry's own example expects just that). The run should be the option's value followed by "
    "the operands after `--` (like capsh's `after: ['--']`)"
)
SSD_PAYLOADS = [
    "start-stop-daemon -S -x /bin/rm -- -rf ~",
    "start-stop-daemon -S -n adv24 --startas /bin/sh -- -c 'rm -rf ~'",
    "start-stop-daemon -S -n adv24 -a /bin/rm -- -rf ~",
    "busybox start-stop-daemon -S -x /bin/rm -- -rf ~",
]


@_needs("start-stop-daemon", "busybox")
@pytest.mark.parametrize("payload", SSD_PAYLOADS)
def test_start_stop_daemon_runs_the_words_after_dashes(
    engine_here: Engine, fake_home: Path, here: Path, payload: str
) -> None:
    _unharmed(engine_here, fake_home, here, [_run(payload)])


# -- family 3: archivers reading the names of the files to pack from their input ---------------
NAMES_REASON = (
    "engine/policy read judgement (the `reads` of tar/zip/cpio in policies/secrets.yaml + executors.yaml "
    "fed_by): `tar -T -`, `zip -@` and `cpio -o` take the NAMES of the files they pack (and print to stdout) "
    "from their input; the names echoed into them are never judged as reads (`echo KEY | xargs cat` asks, "
    "these allow). The names a pipe/here-string feeds them should be read paths, like xargs' input"
)
NAMES_PAYLOADS = [
    "echo ~/.ssh/id_ed25519 | tar cf - -T -",
    "printf '%s\\n' ~/.ssh/id_ed25519 | tar cf - --files-from=-",
    "echo ~/.ssh/id_ed25519 | zip -q -0 - -@",
    "echo ~/.ssh/id_ed25519 | busybox cpio -o -H newc",
    "ls ~/.ssh/* | busybox cpio -o -H newc",
]


@_needs("tar", "zip", "busybox")
@pytest.mark.parametrize("payload", NAMES_PAYLOADS)
def test_an_archiver_packs_names_from_its_input(engine_here: Engine, fake_home: Path, here: Path, payload: str) -> None:
    _unharmed(engine_here, fake_home, here, [_run(payload)])


# -- family 4: package-manager lifecycle scripts of a written package.json ---------------------
PACKAGE = json.dumps(
    {
        "name": "x",
        "version": "1.0.0",
        "scripts": {
            k: "rm -rf ~" for k in ("preinstall", "install", "postinstall", "prepare", "prepack", "preversion", "build")
        },
    }
)
NPM_REASON = (
    "policies/executors.yaml npm: only run/test/start/stop/restart read package.json (`files: [package.json]`); "
    "`npm install`/`ci`/`pack`/`rebuild`/`link`/`version`/`publish` run the root package's lifecycle scripts "
    "(preinstall, install, postinstall, prepare, prepack, preversion ...) too, and `--prefix DIR`/`-C DIR`/"
    "`--workspace` read DIR/package.json, not the working directory's. Needs the lifecycle scripts each "
    "subcommand runs, and the package.json under --prefix (pnpm install/pnpm <script>/bun run/node --run alike); "
    "`--script-shell=FILE` (the option spelling of npm_config_script_shell, which asks) runs FILE for every script"
)
NPM_PAYLOADS = {
    "npm install": [_write("package.json", PACKAGE), _run("npm install --no-audit --no-fund --offline")],
    "npm rebuild": [_write("package.json", PACKAGE), _run("npm rebuild")],
    "npm version": [_write("package.json", PACKAGE), _run("npm version patch --no-git-tag-version")],
    "npm pack": [_write("package.json", PACKAGE), _run("npm pack --dry-run")],
    "npm --prefix": [_write("sub/package.json", PACKAGE), _run("npm --prefix sub run build")],
    "npm run --prefix=": [_write("sub/package.json", PACKAGE), _run("npm run build --prefix=sub")],
    "npm --script-shell": [
        _write("package.json", json.dumps({"name": "x", "scripts": {"build": "echo hi"}})),
        _write("x.sh", RM_HOME),
        _run("chmod +x x.sh && npm --script-shell=./x.sh run build"),
    ],
}


@_needs("npm")
@pytest.mark.parametrize("name", list(NPM_PAYLOADS))
def test_npm_lifecycle_scripts_of_a_written_package(
    engine_here: Engine, fake_home: Path, here: Path, name: str
) -> None:
    _unharmed(engine_here, fake_home, here, NPM_PAYLOADS[name])


# -- family 5: makefiles in another directory, or run by another program -----------------------
MAKE_REASON = (
    "policies/executors.yaml make: `files: [GNUmakefile, makefile, Makefile]` are read in the line's directory; "
    "`make -C DIR` (an option the entry lists as `directory=/C` but not as `chdir`) reads DIR/Makefile, which "
    "is never judged; `busybox mim -f FILE` (busybox's make-like runner) has no entry at all. Mark C as chdir "
    "for make, and give mim an entry reading -f (default ./mim) as make text"
)
MAKEFILE = "all:\n\trm -rf ~\n"
MAKE_PAYLOADS = {
    "make -C": [_write("sub/Makefile", MAKEFILE), _run("make -C sub")],
    "make --directory=": [_write("sub/Makefile", MAKEFILE), _run("make --directory=sub")],
    "busybox mim -f": [_write("m", MAKEFILE), _run("busybox mim -f m all")],
}


@_needs("make", "busybox")
@pytest.mark.parametrize("name", list(MAKE_PAYLOADS))
def test_a_written_makefile_elsewhere_runs(engine_here: Engine, fake_home: Path, here: Path, name: str) -> None:
    _unharmed(engine_here, fake_home, here, MAKE_PAYLOADS[name])


# -- family 6: a written Python or JavaScript file that an interpreter loads by NAME ----------
PY = sys.executable
LOADED_REASON = (
    "engine/policy/session_memory + the executors' `file` runs: a file the session wrote is judged when a line "
    "names it as a script (`python3 x.py`, `node x.js`), not when the interpreter loads it by module name "
    "(`python -m mod`, `import mod`, `node -r ./mod.js`, `require('./mod.js')`, `perl -I. -Mx`), "
    "by convention (pytest's "
    "conftest.py, pip's setup.py build backend) or from PYTHONPATH (sitecustomize.py). A written *.py/*.js "
    "in the tree should be judged when such a loader runs there (or the loader should ask once the session "
    "wrote code it may import)"
)
LOADED_PAYLOADS = {
    "python -m": [_write("mod.py", PY_RM_HOME), _run("python3 -m mod")],
    "python -c import": [_write("mod.py", PY_RM_HOME), _run("python3 -c 'import mod'")],
    "sitecustomize on PYTHONPATH": [_write("sitecustomize.py", PY_RM_HOME), _run("PYTHONPATH=. python3 -c 1")],
    "pytest conftest.py": [_write("conftest.py", PY_RM_HOME), _run(f"{PY} -m pytest -q -p no:cacheprovider")],
    "pip wheel setup.py": [
        _write("setup.py", PY_RM_HOME),
        _run(f"{PY} -m pip wheel -q --no-build-isolation --no-deps --no-index -w dist ."),
    ],
    "node -r": [_write("mod.js", JS_RM_HOME), _run("node -r ./mod.js -e 1")],
    "perl -I. -Mx": [_write("x.pm", 'package x; system("rm -rf ~"); 1;\n'), _run("perl -I. -Mx -e 1")],
    "PERL5LIB=. perl -Mx": [_write("x.pm", 'package x; system("rm -rf ~"); 1;\n'), _run("PERL5LIB=. perl -Mx -e 1")],
    "node -e require": [_write("mod.js", JS_RM_HOME), _run("node -e 'require(\"./mod.js\")'")],
}


@_needs("python3", "node", "perl")
@pytest.mark.parametrize("name", list(LOADED_PAYLOADS))
def test_a_written_module_loaded_by_name(engine_here: Engine, fake_home: Path, here: Path, name: str) -> None:
    _unharmed(engine_here, fake_home, here, LOADED_PAYLOADS[name])


# -- family 7: a written script fed to a shell through a pipe or found by find/xargs -----------
PIPED_REASON = (
    "engine/policy session files: `sh < x.sh` and `tr a a < x.sh | sh` are judged by x.sh's text, but the "
    "same file piped by cat/sed/sort/head into sh (stdin of a shell fed by a reader of the file), or named "
    "by `find -name x.sh -exec sh {}` / `ls x.sh | xargs sh` (a listing), is not: the reader's file is not "
    "carried to the shell that runs its output. A shell whose stdin is a pipeline from readers of written "
    "files should judge their text (or ask when it cannot)"
)
PIPED_PAYLOADS = [
    "cat x.sh | sh",
    "cat x.sh | bash -s",
    "sed '' x.sh | sh",
    "sort x.sh | sh",
    "cat x.sh | busybox sh",
    "grep . x.sh | sh",
    "awk 1 x.sh | sh",
    "find . -name x.sh -exec sh {} \\;",
    "ls x.sh | xargs sh",
]


@pytest.mark.parametrize("payload", PIPED_PAYLOADS)
def test_a_written_script_piped_into_a_shell(engine_here: Engine, fake_home: Path, here: Path, payload: str) -> None:
    _unharmed(engine_here, fake_home, here, [_write("x.sh", RM_HOME), _run(payload)])


GLOBBED_REASON = (
    "engine/policy session files: `sh x.sh` is judged by the written x.sh, but a glob naming it "
    "(`sh x.s?`, `sh [x].sh`, `sh x*`) or a listing (`sh $(ls *.sh)`) is not expanded against the files the "
    "session wrote before the script operand is looked up; the glob should be matched in the line's directory "
    "(as the path rules do for protected names) and each match judged as the script"
)
GLOBBED_PAYLOADS = ["sh x.s?", "sh [x].sh", "sh x*", "sh $(ls *.sh)"]


@pytest.mark.parametrize("payload", GLOBBED_PAYLOADS)
def test_a_written_script_named_by_a_glob(engine_here: Engine, fake_home: Path, here: Path, payload: str) -> None:
    _unharmed(engine_here, fake_home, here, [_write("x.sh", RM_HOME), _run(payload)])


# -- family 8: written files a program reads as its own commands -----------------------------
SCRIPTED_REASON = (
    "policies/executors.yaml: these programs read a FILE of their own commands that may run a shell "
    "(ssh -F's ProxyCommand/LocalCommand, sqlite3 -init/.read with .shell, gdb `source` with `shell`, vim/ex "
    "ex commands from stdin with `!`, run-parts running every file of a folder); the session wrote that file, "
    "but no entry names it as a `file` run in the program's language, so its text is never judged"
)
SCRIPTED_PAYLOADS = {
    "sqlite3 -init": [_write("x.sql", ".shell rm -rf ~\n"), _run("sqlite3 -batch -init x.sql :memory: 'select 1'")],
    "sqlite3 .read": [_write("x.sql", ".shell rm -rf ~\n"), _run("sqlite3 :memory: '.read x.sql'")],
    "gdb source": [_write("x.gdb", "shell rm -rf ~\n"), _run("gdb -batch -ex 'source x.gdb'")],
    "vim -es stdin": [_write("x.vim", "!rm -rf ~\n"), _run("vim -es < x.vim")],
    "ex -s stdin": [_write("x.vim", "!rm -rf ~\n"), _run("ex -s < x.vim")],
}


SCRIPTED_OPEN: tuple[str, ...] = ()  # ssh -F and run-parts: tests/redteam/test_written_command_files.py


@_needs("sqlite3", "gdb", "vim", "ex")
@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=SCRIPTED_REASON)) if n in SCRIPTED_OPEN else n
        for n in SCRIPTED_PAYLOADS
    ],
)
def test_a_written_command_file_runs(engine_here: Engine, fake_home: Path, here: Path, name: str) -> None:
    _unharmed(engine_here, fake_home, here, SCRIPTED_PAYLOADS[name])


# -- family 10: sqlite3's SQL functions that read, write and run ------------------------------
SQLITE_REASON = (
    "policies/executors.yaml sqlite3 (the mysql/psql/sqlite3 entry): its dot commands (.shell/.system) are "
    "judged, but not the SQL the CLI runs: `edit(text, EDITOR)` runs EDITOR through the shell, "
    "`readfile(PATH)`/`writefile(PATH, data)` read and write any file. The SQL operands "
    "(and -cmd) should be scanned for edit()'s second argument (a shell payload) and readfile/writefile/"
    ".import/.output paths (reads/writes judged like cat/tee)"
)
SQLITE_PAYLOADS = [
    "sqlite3 :memory: \"select edit('x', 'rm -rf ~;')\"",
    "sqlite3 :memory: \"select cast(readfile('$HOME/.ssh/id_ed25519') as text)\"",
    "sqlite3 :memory: \"select writefile('$HOME/notes.txt', 'x')\"",
]


@_needs("sqlite3")
@pytest.mark.parametrize("payload", SQLITE_PAYLOADS)
def test_sqlite3_sql_functions(engine_here: Engine, fake_home: Path, here: Path, payload: str) -> None:
    _unharmed(engine_here, fake_home, here, [_run(payload)])


# -- family 11: programs that run the rest of their line (wrappers the table does not list) ----
LOADER = "/lib64/ld-linux-x86-64.so.2"
WRAPPER_REASON = (
    "policies/executors.yaml: the dynamic loader run as a program (`ld-linux-x86-64.so.2 PROG ARGS`, `ld.so`) "
    "and gdb with `--args PROG ARGS` plus `-ex run` (the gdb entry reads -ex/-x payloads, not the debuggee) "
    "execute the command that follows, but have no `rest: true, as: argv` run, so `rm -rf ~` after them is a "
    "plain operand. Needs a wrapper entry for ld*.so* paths (matched by basename ld-linux*.so*/ld.so) and "
    "gdb's --args (and lldb's `--`)"
)
WRAPPER_PAYLOADS = [
    f"{LOADER} /bin/rm -rf ~",
    f"{LOADER} /bin/sh -c 'rm -rf ~'",
    "gdb -batch -ex run --args rm -rf ~",
    "gdb -batch -ex run --args /bin/sh -c 'cat ~/.ssh/id_ed25519'",
]


@pytest.mark.skipif(not Path(LOADER).exists() or shutil.which("gdb") is None, reason="no x86-64 loader or gdb")
@pytest.mark.parametrize("payload", WRAPPER_PAYLOADS)
def test_a_wrapper_runs_the_rest_of_its_line(engine_here: Engine, fake_home: Path, here: Path, payload: str) -> None:
    _unharmed(engine_here, fake_home, here, [_run(payload)])


# Wrappers not installed on the test machine: only the verdict is asserted (strict xfail each).
UNLISTED_WRAPPERS = [
    "ld.so /bin/rm -rf ~",
    "lldb -b -o run -- rm -rf ~",
    "tini -- rm -rf ~",
    "dumb-init rm -rf ~",
    "daemonize /bin/rm -rf ~",
    "ccache rm -rf ~",
    "cpulimit -l 5 -- rm -rf ~",
    "mispipe 'rm -rf ~' cat",
    "pee 'rm -rf ~'",
    "ifne rm -rf ~",
    "lckdo l rm -rf ~",
    "dtach -n s rm -rf ~",
    "runcon x rm -rf ~",
    "fakechroot rm -rf ~",
    "nq rm -rf ~",
    "pueue add -- rm -rf ~",
]


@pytest.mark.parametrize("payload", UNLISTED_WRAPPERS)
def test_an_unlisted_wrapper_is_judged(engine: Engine, payload: str) -> None:
    # Only the verdict (the shared engine of tests/redteam/conftest.py; nothing runs).
    assert engine.check(payload).decision != "allow"


# -- family 12: interpreter variables that hold code -----------------------------------------
PERL5DB_REASON = (
    "policies/executors.yaml `**` env runs: PERL5OPT/RUBYOPT/NODE_OPTIONS/PYTHONSTARTUP are judged, but "
    "PERL5DB (the code `perl -d` runs in place of `require 'perl5db.pl'`) is not: it is perl text, and "
    "should be an `env: [PERL5DB], as: perl` run (when -d is given, or always)"
)


@_needs("perl")
@pytest.mark.parametrize(
    "payload", ["PERL5DB='system(\"rm -rf ~\")' perl -d -e 1", "PERL5DB='BEGIN { system q(rm -rf ~) }' perl -d -e 1"]
)
def test_perl5db_code_runs(engine_here: Engine, fake_home: Path, here: Path, payload: str) -> None:
    _unharmed(engine_here, fake_home, here, [_run(payload)])


# -- family 13: build systems that run a written build file ----------------------------------
BUILD_REASON = (
    "policies/executors.yaml: make and npm read their build file (`files:`), but cmake (CMakeLists.txt "
    "`execute_process`, `cmake -P script`), ninja (build.ninja rules) and cargo (build.rs; not run here: "
    "cargo needs its own HOME) have no `files` run, so a build file the session wrote runs unjudged. "
    "Needs `files: [CMakeLists.txt]`/`option: [P]` as cmake text, `files: [build.ninja]`/`-f` as ninja text"
)
CMAKE = 'cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\nexecute_process(COMMAND sh -c "rm -rf ~")\n'
BUILD_PAYLOADS = {
    "cmake -S . -B build": [_write("CMakeLists.txt", CMAKE), _run("cmake -S . -B build")],
    "cmake -P": [_write("x.cmake", 'execute_process(COMMAND sh -c "rm -rf ~")\n'), _run("cmake -P x.cmake")],
    "ninja": [_write("build.ninja", "rule r\n  command = rm -rf ~\nbuild x: r\n"), _run("ninja")],
}


@_needs("cmake", "ninja")
@pytest.mark.parametrize("name", list(BUILD_PAYLOADS))
def test_a_written_build_file_runs(engine_here: Engine, fake_home: Path, here: Path, name: str) -> None:
    _unharmed(engine_here, fake_home, here, BUILD_PAYLOADS[name])


# -- liveness: the single-line payloads do harm under a real shell ----------------------------
@_needs("ed", "start-stop-daemon", "tar", "busybox", "sqlite3")
@pytest.mark.parametrize(
    "payload",
    # (stop 51) start-stop-daemon -x PROG does nothing when a PROG process already runs (another test's rm, in a
    # parallel run: CI saw it once); a pidfile nobody wrote makes it match that pid only, so it starts
    [
        "echo '!rm -rf ~' | ed",
        SSD_PAYLOADS[0].replace("-S ", "-S --pidfile ./ssd.pid ", 1),
        NAMES_PAYLOADS[0],
        NAMES_PAYLOADS[3],
        SQLITE_PAYLOADS[0],
    ],
)
def test_the_payload_does_harm_unguarded(tmp_path: Path, payload: str) -> None:
    home, _, printed = run_confined(tmp_path, payload)
    assert not home.exists() or SECRET in printed


@pytest.fixture
def engine_here(work_engine: Engine, here: Path) -> Engine:
    return work_engine


# -- near misses: what the fixes must keep allowed --------------------------------------------
NEAR_MISSES = [
    "echo ',p' | ed -s notes.txt",
    "start-stop-daemon --status --pidfile run.pid",
    "find src -name '*.py' | tar cf src.tar -T -",
    "git ls-files | zip -q src.zip -@",
    "make -C sub",
    "cat notes.txt | wc -l",
    "python3 -m json.tool data.json",
    "python3 -m pytest -q",
    "npm install",
    "npm --prefix sub run build",
]


@pytest.mark.parametrize("payload", NEAR_MISSES)
def test_near_miss_stays_allowed(work_engine: Engine, here: Path, payload: str) -> None:
    # No file of the session holds anything: a fix must not ask for these. (adv45) The folder the listing walks is
    # there: a listing of one that cannot be read is input only the run knows (`find src | xargs cat` asks), and
    # since adv45 piped names are read without a session too.
    (here / "src").mkdir()
    (here / "src" / "a.py").write_text("print(1)\n")
    assert work_engine.check(payload).decision == "allow", payload


# -- family 9: engine files rewritten by writers the table does not know ----------------------
POLICY = "kind: ApprovalPolicy\ndeny: ['npm publish*']\n"
# The caller's material in its work tree (what a few allowed terminal calls or write_file make):
# a policy that turns approvals off, packed, encoded, dumped and diffed.
MATERIAL = r"""
mkdir -p k/policies && printf 'mode: off\n' > k/policies/deny.yaml && printf 'mode: off\n' > x.txt
tar cf x.tar -C k policies
(cd k && zip -qr ../x.zip policies)
openssl base64 -in k/policies/deny.yaml -out x.b64
xxd k/policies/deny.yaml > x.hex
busybox uuencode k/policies/deny.yaml x > x.uu
(cd k && find policies | busybox cpio -o -H newc > ../x.cpio 2>/dev/null)
diff -u policies/deny.yaml k/policies/deny.yaml | sed '1,2c--- policies/deny.yaml\n+++ policies/deny.yaml' > p
rm -rf k
"""


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """One small project (a policy, the caller's material) and its engine, shared by the module's
    engine-file tests (each restores the project first). HOME, state and config are temporary."""
    missing = [p for p in ("tar", "zip", "openssl", "xxd", "busybox", "diff") if shutil.which(p) is None]
    if missing:
        pytest.skip(f"not installed: {missing}")
    tmp = tmp_path_factory.mktemp("engine-files")
    with pytest.MonkeyPatch.context() as mp:
        (tmp / "home").mkdir()
        mp.setenv("HOME", str(tmp / "home"))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        root = tmp / "project"
        (root / "policies").mkdir(parents=True)
        (root / "policies" / "deny.yaml").write_text(POLICY)
        (root / "hermes-engine.yaml").write_text("workdir: .\n")
        subprocess.run(["/bin/bash", "-c", MATERIAL], cwd=root, check=False, capture_output=True, timeout=RUN_SECONDS)
        with Engine.load(root) as engine:
            yield root, engine


@pytest.fixture
def project(loaded: tuple[Path, Engine], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Engine]:
    root, engine = loaded
    for extra in (root / "policies").iterdir():
        if extra.name != "deny.yaml":
            extra.unlink()
    (root / "policies" / "deny.yaml").write_text(POLICY)
    (root / "x.txt").write_text("mode: off\n")
    monkeypatch.setenv("HOME", str(root.parent / "home"))
    monkeypatch.chdir(root)
    return root, engine


ENGINE_FILE_REASON = (
    "engine_files writes (policies/self.yaml + the write targets in policies/executors.yaml / data.yaml): "
    "these writers put caller text into policies/deny.yaml and the line is allowed, though SECURITY.md 1 makes "
    "every terminal write to an engine file a hardline deny: an output operand or option no entry names "
    "(uniq's 2nd operand, `xxd -r IN OUT`, `openssl ... -out`, `busybox uudecode -o`, `gpg -o`, sqlite3's "
    "`.output`/`.once`, split/csplit prefixes with a .yaml suffix), a file named inside the input (ed's "
    "`e FILE`/`w FILE`, `patch -p0 < diff`), or an archive's members extracted onto the project's top (tar "
    "x, unzip, cpio -i, python -m zipfile/tarfile -e) — SECURITY.md says a tree copied onto the top asks. "
    "Each writer needs its output named as a write target (and unknown members/diff targets: ask)"
)
ENGINE_FILE_PAYLOADS = {
    "uniq IN OUT": "uniq x.txt policies/deny.yaml",
    "xxd -r IN OUT": "xxd -r x.hex policies/deny.yaml",
    "openssl base64 -out": "openssl base64 -d -in x.b64 -out policies/deny.yaml",
    "openssl enc -out": "openssl enc -d -base64 -in x.b64 -out policies/deny.yaml",
    "busybox uudecode -o": "busybox uudecode -o policies/deny.yaml x.uu",
    "gpg -o": "gpg --yes -o policies/deny.yaml --dearmor x.txt",
    "sqlite3 .output": "sqlite3 :memory: '.output policies/deny.yaml' \"select 'mode: off'\"",
    "sqlite3 .once": "sqlite3 :memory: '.once policies/deny.yaml' \"select 'mode: off'\"",
    "split suffix": "split --additional-suffix=.yaml x.txt policies/p",
    "csplit suffix": "csplit -s -f policies/c -b '%d.yaml' x.txt 1",
    "ed e FILE": "printf 'e policies/deny.yaml\\n,d\\nw\\n' | ed -s",
    "ed w FILE": "printf 'w policies/deny.yaml\\n' | ed -s x.txt",
    "start-stop-daemon cp": "start-stop-daemon -S -n adv24 -d . -a /bin/cp -- x.txt policies/deny.yaml",
    "patch -p0 < diff": "patch -p0 < p",
    "busybox patch -p0": "busybox patch -p0 < p",
    "tar x on the top": "tar xf x.tar",
    "busybox tar x": "busybox tar xf x.tar",
    "unzip -o": "unzip -o x.zip",
    "busybox unzip -o": "busybox unzip -o x.zip",
    "busybox cpio -i": "busybox cpio -idu < x.cpio",
    "python -m zipfile -e": "python3 -m zipfile -e x.zip .",
    "python -m tarfile -e": "python3 -m tarfile -e x.tar .",
}


@pytest.mark.parametrize("name", list(ENGINE_FILE_PAYLOADS))
def test_an_engine_file_rewritten_by_an_unknown_writer(project: tuple[Path, Engine], name: str) -> None:
    root, engine = project
    payload = ENGINE_FILE_PAYLOADS[name]
    program = payload.split()[0] if not payload.startswith("printf") else "ed"
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    assert Path.cwd() == root and Path(os.environ["HOME"]).parent == root.parent
    engine.call("terminal", {"command": payload})
    assert (root / "policies" / "deny.yaml").read_text() == POLICY, "the policy was rewritten"
    assert sorted(p.name for p in (root / "policies").iterdir()) == ["deny.yaml"], "a manifest was added"


ENGINE_FILE_NEAR_MISSES = [
    "uniq x.txt",
    "uniq x.txt out.txt",
    "xxd x.txt",
    "openssl base64 -in x.txt -out x.b64",
    "tar tf x.tar",
    "unzip -l x.zip",
    "split -b 1k x.txt parts/p",
    "sqlite3 :memory: 'select 1'",
]


@pytest.mark.parametrize("payload", ENGINE_FILE_NEAR_MISSES)
def test_near_miss_an_ordinary_writer_stays_allowed(project: tuple[Path, Engine], payload: str) -> None:
    assert project[1].check(payload).decision == "allow", payload
