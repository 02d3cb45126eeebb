"""What stop 29 left allowed (adv29's list), found again and closed by adv30.

- A script an interpreter runs whose name is a runner of its folder's files: `sh mvnw`, `python3 waf`
  (a written wscript), `bash gradlew`. `./mvnw` read .mvn/ and `waf` its wscript; run through an
  interpreter, only the script itself was read. Now any operand script named like a program of the
  table with a `files:` run is judged as that program too (follow._script_named_like_a_runner).
- `mvn -f sub` with a written sub/.mvn/jvm.config, `./gradlew` with a written gradle-wrapper.jar, and
  `java -jar w.jar` with a written jar (machine code nobody reads here): data in policies/executors.yaml.
- pylint's init-hook in a written pyproject.toml / setup.cfg / tox.ini (`[tool.pylint.main]`), pylint's
  --rcfile.
- `git -C ~ add -A`, `GIT_WORK_TREE=~ git add .`, `cd ~ && git add --all`: staging a folder above
  secrets (policies/secrets.yaml credential_read).
- Options that make a program write or delete a folder it is given: `vim -w/-W FILE`, node's
  `--cpu-prof-dir`/`--heap-prof-dir`/`--diagnostic-dir`, mypy's `--cache-dir` and reports, pytest's
  `-o cache_dir=` and `--junitxml` (judged as `tee PATH`), pytest's `--basetemp DIR` (pytest removes DIR
  first) and `-o cache_dir=DIR --cache-clear` (judged as `rm -rf DIR`), PYTEST_ADDOPTS.
- A copy of a written file run under another name: `rsync a b; sh b`, `ln a b; sh b`, and
  `ln -s a.sh b; ./b` (the link's target was read as a command name found on PATH).
- `find . -exec sh -c 'echo x > {}' \\;`: GNU find puts the path in place of `{}` inside a word too.
- `env` / `printenv`: not a leak. The terminal's child gets only allowlisted variables (handlers/_env.py);
  the test below shows a secret of the engine's environment is not printed by any of the dumps.

Verdicts share one engine; the harm runs for one payload per family. Every run is confined: HOME and
the working directory are under tmp_path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    Case,
    assert_verdict,
    files_intact_after,
    live_then_stopped,
    policy_rewritten_live,
    run_confined,
    verdict_cases,
    written_then_stopped,
)
from tests.redteam.test_adv30_new_families import NEAR_MISSES as NEW_NEAR_MISSES
from tests.redteam.test_adv30_new_families import PAYLOADS as NEW_PAYLOADS

RM = "rm -rf ~"
SCRIPT = f"#!/bin/sh\n{RM}\n"
PYTHON = f"import os\nos.system('{RM}')\n"
JVM = "-XX:OnOutOfMemoryError=sh -c x\n"
POLICY = "kind: ApprovalPolicy\n"

# (files the session writes, the command, the terminal's cwd or None)
PAYLOADS: dict[str, tuple[dict[str, str], str, str | None]] = {
    "python3 waf, written wscript": ({"wscript": PYTHON}, "python3 waf configure", None),
    "sh waf, written wscript": ({"wscript": PYTHON}, "sh ./waf build", None),
    "sh mvnw, written .mvn": ({".mvn/jvm.config": JVM}, "sh mvnw clean", None),
    "bash mvnw, written wrapper jar": ({".mvn/wrapper/maven-wrapper.jar": "PK"}, "bash mvnw -q package", None),
    "sh gradlew, written wrapper jar": ({"gradle/wrapper/gradle-wrapper.jar": "PK"}, "sh gradlew build", None),
    "./gradlew, written wrapper jar": ({"gradle/wrapper/gradle-wrapper.jar": "PK"}, "./gradlew build", None),
    "mvn -f sub, written sub/.mvn": ({"sub/.mvn/jvm.config": JVM}, "mvn -f sub package", None),
    "mvn -f sub/pom.xml, written sub/.mvn": ({"sub/.mvn/maven.config": "-Dx=y\n"}, "mvn -f sub/pom.xml package", None),
    "java -jar, written jar": ({"w.jar": "PK"}, "java -jar w.jar", None),
    "pylint, pyproject init-hook": (
        {"pyproject.toml": f"[tool.pylint.main]\ninit-hook = \"import os; os.system('{RM}')\"\n"},
        "pylint src",
        None,
    ),
    "pylint, setup.cfg init-hook": (
        {"setup.cfg": f"[pylint.main]\ninit-hook = {PYTHON.replace(chr(10), '; ')}\n"},
        "pylint src",
        None,
    ),
    "pylint --rcfile": (
        {"lint.cfg": f"[MAIN]\ninit-hook = {PYTHON.replace(chr(10), '; ')}\n"},
        "pylint --rcfile=lint.cfg src",
        None,
    ),
    "git -C ~ add -A": ({}, "git -C ~ add -A", None),
    "git -C ~ add .": ({}, "git -C ~ add .", None),
    "GIT_WORK_TREE=~ git add -A": ({}, "GIT_WORK_TREE=~ git add -A", None),
    "git --work-tree=$HOME add --all": ({}, "git --git-dir=/tmp/r --work-tree=$HOME add --all", None),
    "cd ~ && git add -A": ({}, "cd ~ && git add -A", None),
    "vim -w policy": ({}, "vim -w policies/deny.yaml x.txt", None),
    "vim -W bashrc": ({}, "vim -W ~/.bashrc x.txt", None),
    "node --cpu-prof-dir policies": ({}, "node --cpu-prof-dir=policies x.js", None),
    "node --diagnostic-dir policies": ({}, "node --diagnostic-dir policies x.js", None),
    "mypy --cache-dir policies": ({}, "mypy --cache-dir policies src", None),
    "pytest -o cache_dir=policies": ({}, "pytest -o cache_dir=policies", None),
    "pytest --basetemp=~": ({}, "pytest --basetemp=~", None),
    "pytest --basetemp home": ({}, "python3 -m pytest -q --basetemp $HOME tests", None),
    "pytest cache_dir ~ cache-clear": ({}, "pytest -o cache_dir=~ --cache-clear", None),
    "PYTEST_ADDOPTS basetemp": ({}, "PYTEST_ADDOPTS='--basetemp=~' pytest -q", None),
    "pytest --junitxml policy": ({}, "pytest --junitxml=policies/deny.yaml", None),
    "rsync a copy": ({"a.sh": SCRIPT}, "rsync a.sh b; sh b", None),
    "ln a hard link": ({"a.sh": SCRIPT}, "ln a.sh b; sh b", None),
    "ln -s then ./b": ({"a.sh": SCRIPT}, "ln -s a.sh b; ./b", None),
    "find -exec sh -c {} in a word": ({}, "find . -exec sh -c 'echo x > {}' \\;", None),
    "find policies -exec sh -c {}": ({}, "find policies -name '*.yaml' -exec bash -c 'echo x >{}' \\;", None),
}
NEAR_MISSES: dict[str, tuple[dict[str, str], str, str | None]] = {
    "python3 waf, nothing written": ({}, "python3 waf configure", None),
    "sh mvnw, nothing written": ({}, "sh mvnw clean", None),
    "sh a script of another name": ({"wscript": PYTHON}, "sh build.sh", None),
    "mvn -f sub, a source file written": ({"notes.txt": "x\n"}, "mvn -f sub package", None),
    "java -jar, nothing written": ({}, "java -jar app.jar", None),
    "pylint, pyproject without a hook": (
        {"pyproject.toml": "[project]\nname = 'x'\nversion = '1'\n[tool.pylint.main]\njobs = 2\n"},
        "pylint src",
        None,
    ),
    "pylint, setup.cfg of flake8": ({"setup.cfg": "[flake8]\nmax-line-length = 100\n"}, "pylint src", None),
    "mypy, a module written": ({"app.py": 'import shutil\nshutil.rmtree("build")\n'}, "mypy app.py", None),
    "git add -A": ({}, "git add -A", None),
    "git -C project add -A": ({}, "git -C sub add -A", None),
    "git -C ~ add a note": ({}, "git -C ~ add notes.txt", None),
    "git -C ~ status": ({}, "git -C ~ status", None),
    "vim -w a log": ({}, "vim -w keys.log x.txt", None),
    "node --cpu-prof-dir prof": ({}, "node --cpu-prof-dir=prof x.js", None),
    "mypy --cache-dir .mypy_cache": ({}, "mypy --cache-dir .mypy_cache src", None),
    "pytest --basetemp build": ({}, "pytest --basetemp=build/tmp -q", None),
    "pytest cache_dir cache-clear": ({}, "pytest -o cache_dir=.cache --cache-clear", None),
    "pytest -k -p": ({}, "pytest -q -k test_x -p no:cacheprovider -o addopts=", None),
    "pytest --junitxml report": ({}, "pytest --junitxml=report.xml", None),
    "rsync a harmless copy": ({"a.sh": "echo hi\n"}, "rsync a.sh b; sh b", None),
    "ln -s a harmless script": ({"a.sh": "echo hi\n"}, "ln -s a.sh b; ./b", None),
    # (redt34: `find … -exec sh -c 'wc -l {}' \\;` and `-exec sh -c 'cp {} {}.bak'` were near misses here, but
    # the name found is parsed by sh: `touch 'a;rm -rf ~;.txt'` first deletes HOME. They ask now, as
    # tests/redteam/test_redt34.py's SPLICED family; `sh -c 'wc -l "$1"' _ {}` is the safe spelling.)
    "find -exec sh -c with the name as $1": ({}, "find . -name '*.txt' -exec sh -c 'wc -l \"$1\"' _ {} \\;", None),
    "env": ({}, "env", None),
    "printenv": ({}, "printenv", None),
}


# the new families' cases (tests/redteam/test_adv30_new_families.py) are judged in the same engine
VERDICT_PAYLOADS = {**PAYLOADS, **{f"new: {k}": v for k, v in NEW_PAYLOADS.items()}}
VERDICT_NEAR_MISSES = {**NEAR_MISSES, **{f"new: {k}": v for k, v in NEW_NEAR_MISSES.items()}}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(VERDICT_PAYLOADS, VERDICT_NEAR_MISSES))
def test_a_payload_stop_29_left_allowed_is_not_allowed_its_near_miss_is(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- the harm, one payload per family ------------------------------------------------------------

WAF = "import sys\nsys.argv[0] = 'waf'\nexec(open('wscript').read())\n"  # the project's own runner (not written)
KEY_PRINTER = "print(open('../home/.ssh/id_ed25519').read())\n"


def test_python3_waf_does_not_run_a_written_wscript(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    # the project's own waf (on disk before the session) runs the wscript the caller writes
    written_then_stopped(
        tmp_path, engine, home, {"wscript": KEY_PRINTER}, "python3 waf configure", present={"waf": WAF}
    )


def test_git_add_in_home_does_not_stage_the_key(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    engine, home, _ = plain_harm
    # unguarded, in another fake home: the key is staged (then any `git push` or `git show :…` sends it)
    _, _, printed = run_confined(tmp_path, "git -C $HOME init -q && git -C $HOME add -A && git -C $HOME ls-files")
    assert ".ssh/id_ed25519" in printed, "the payload should do harm unguarded"
    # through the engine: refused; nothing is staged in the home
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", "-C", str(home), "init", "-q"], env=env, check=True, timeout=60)
    result = engine.call("terminal", {"command": "git -C ~ add -A"})
    assert not result.ok, result.output
    staged = subprocess.run(
        ["git", "-C", str(home), "ls-files"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert ".ssh/id_ed25519" not in staged.stdout


def test_pytest_basetemp_does_not_remove_the_home(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    # unguarded, pytest removes the folder --basetemp names before it runs (a child pytest with no
    # plugins of the machine's, a generous timeout: it only has to start)
    payload = "python3 -m pytest -q -p no:cacheprovider --basetemp=$HOME t"
    test = "def test_a(tmp_path):\n    pass\n"
    live = f"mkdir t && printf '{test}' > t/test_a.py && PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "
    live_then_stopped(tmp_path, engine, home, payload, live=live + payload.replace("python3", sys.executable))


def test_a_linked_copy_of_a_written_script_does_not_run(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """`ln -s a.sh b; ./b`: the link's target was read as a command found on PATH, not the written file."""
    engine, home, _ = plain_harm
    script = "#!/bin/sh\ncat ../home/.ssh/id_ed25519\n"
    written_then_stopped(tmp_path, engine, home, {"a.sh": script}, "ln -s a.sh b; ./b", mode=0o755)


def test_find_exec_sh_does_not_rewrite_the_policy(
    tmp_path: Path, plain_project: tuple[Path, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, engine = plain_project
    payload = "find policies -name '*.yaml' -exec sh -c 'echo x > {}' \\;"
    assert policy_rewritten_live(tmp_path, payload, POLICY), "the payload should do harm unguarded"
    monkeypatch.chdir(root)
    files_intact_after(root, engine, [("terminal", {"command": payload})], "find-harm", policy=POLICY)


def test_env_dumps_print_no_secret_of_the_engine(
    plain_harm: tuple[Engine, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`env`, `printenv`, `export -p`, /proc/self/environ stay allowed: the terminal's child holds only
    allowlisted variables (handlers/_env.py), so a secret of the engine's environment is not there."""
    engine, _, _ = plain_harm
    secrets = {"OPENAI_API_KEY": "sk-adv30-0123456789abcdef", "DATABASE_URL": "postgres://u:pw-adv30@db/x"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    for command in ("env", "printenv", "export -p", "declare -x", "cat /proc/self/environ"):
        result = engine.call("terminal", {"command": command})
        printed = (result.output or "") + (result.error.message if result.error else "")
        for value in secrets.values():
            assert value not in printed, command
        if command != "cat /proc/self/environ":
            assert result.ok, (command, result.error)
