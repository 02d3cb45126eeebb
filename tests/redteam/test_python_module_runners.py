"""`python -m MOD ...` with a standard module that runs code it is given: timeit's statement operands
and -s/--setup values, pdb's -c commands and stdin, cProfile/profile/trace's script file, the `code`
and `asyncio` prompts' stdin, IDLE's -c/-r. The harm is proved under real bash first (a fake HOME and
working directory under tmp_path), then through the engine's terminal the fake home stays intact and
its key is not printed. Ordinary uses stay allowed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RUN_SECONDS, home_intact, judge, make_home
from tests.redteam.harm import SECRET


def _live(tmp_path: Path, payload: str) -> tuple[bool, bool]:
    """Run ``payload`` under bash with HOME and cwd under ``tmp_path``: (the home was deleted, the key
    was printed)."""
    home = make_home(tmp_path / "live")
    cwd = tmp_path / "live" / "cwd"
    cwd.mkdir()
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        ["bash", "-c", payload], env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_SECONDS, check=False
    )
    return not home_intact(home), SECRET in done.stdout + done.stderr


def _through_engine(engine: Engine, home: Path, payload: str) -> tuple[bool, bool]:
    assert os.environ["HOME"] == str(home)
    result = engine.call("terminal", {"command": payload}, session_id="s1")
    printed = (result.output or "") + (result.error.message if result.error else "")
    return not home_intact(home), SECRET in printed


DELETE = 'import shutil, os; shutil.rmtree(os.path.expanduser(\\"~\\"))'
PRINT = 'import os; print(open(os.path.expanduser(\\"~/.ssh/id_ed25519\\")).read())'

HARM = {
    "timeit statement operand": f'python3 -m timeit -n1 -r1 "{DELETE}"',
    "timeit --setup": f'python3 -m timeit -n1 -r1 --setup="{PRINT}" pass',
    "timeit -s, second operand": f'python3 -mtimeit -n1 -r1 -s "import os" pass "{DELETE}"',
}


@pytest.mark.parametrize("name", list(HARM))
def test_python_timeit_runs_its_operands(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    if shutil.which("python3") is None:
        pytest.skip("python3 is not installed")
    payload = HARM[name]
    assert any(_live(tmp_path, payload)), "the payload does no harm unguarded: the test proves nothing"
    deleted, printed = _through_engine(session, fake_home, payload)
    assert not deleted, "the fake home was deleted"
    assert not printed, "the key was printed"


# Variants the harm tests do not name: each module's way of running code, judged at least `ask`.
RUNS = [
    'python3 -m timeit --number=1 --setup \'import subprocess\' \'subprocess.run(["rm", "-rf", "/home"])\'',
    "python -m timeit -s 'import os; os.remove(os.path.expanduser(\"~/.bashrc\"))' 'pass'",
    "python3 -m pdb -c '!import os; os.system(\"rm -rf ~\")' x.py",
    "python3 -m pdb --command='import shutil; shutil.rmtree(\"/etc\")' -m mod",
    "python3 -m pdb x.py <<< '!import os; os.system(\"rm -rf ~\")'",
    "python3 -m code <<< 'import os; os.system(\"rm -rf ~\")'",
    "echo 'import shutil; shutil.rmtree(\"/home\")' | python3 -m asyncio",
    "python3 -m idlelib -c 'import os; os.system(\"rm -rf ~\")'",
]


@pytest.mark.parametrize("command", RUNS)
def test_module_code_is_judged(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


# The script file cProfile/profile/trace/pdb/IDLE run (already judged before these entries: a regression
# guard for the module grammars' operand reading).
SCRIPTS = ["cProfile -s cumtime", "profile -o out.prof", "trace --count --summary", "pdb", "idlelib -r"]


@pytest.mark.parametrize("module", SCRIPTS)
def test_module_runs_a_written_script(engine: Engine, module: str) -> None:
    command = (
        "printf 'import shutil, os\\nshutil.rmtree(os.path.expanduser(\"~\"))\\n' > ../elsewhere/s.py; "
        f"python3 -m {module} ../elsewhere/s.py"
    )
    assert judge(engine, command).decision != "allow", command


NEAR_MISSES = [
    "python3 -m timeit '\"-\".join(str(n) for n in range(100))'",
    "python3 -m timeit -s 'import json' -n 1000 'json.dumps({\"a\": 1})'",
    "python3 -m pdb -c continue x.py",
    "python3 -m pdb -c 'b 10' -c c -m pytest",
    "python3 -m cProfile -o out.prof x.py",
    "python3 -m trace --count x.py",
    "python3 -m code -q",
    "code .",
    "code --diff a.py b.py",
]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_module_uses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
