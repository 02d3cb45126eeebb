"""Variables that make any program load code the caller wrote, and irb's start-up file (adv28 family 4).

Allowed on main (stop 27), found by adv28's hunt:
- `LD_LIBRARY_PATH=. ls` after writing ./libc.so.6: the dynamic loader takes the written library
  for every program (LD_PRELOAD was judged, the library path was not); `GCONV_PATH=.` with a written
  gconv-modules: glibc's iconv loads the modules it lists;
- `JAVA_TOOL_OPTIONS=-javaagent:./a.jar java ...` (also JDK_JAVA_OPTIONS, _JAVA_OPTIONS, JAVA_OPTS,
  MAVEN_OPTS, GRADLE_OPTS): every JVM started loads the agent (`java -javaagent:` was judged);
- `irb` after writing ./.irbrc (IRB reads the working directory's start-up file), and IRBRC;
- `KUBE_EDITOR='CMD' kubectl edit`: the editor kubectl runs (EDITOR and VISUAL were judged).
policies/executors.yaml describes each now; a folder the caller wrote no library into keeps its
verdict. Judged only (one shared engine): the loaders' payloads are machine code, and no JVM, irb
or kubectl is among the test peers.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Engine
from tests.redteam.harm import policy_project

PAYLOADS = [
    "printf 'x' > libc.so.6; LD_LIBRARY_PATH=. ls",
    "printf 'x' > lib/libfoo.so; LD_LIBRARY_PATH=/usr/lib:lib ./app",
    "printf 'module x//\\nx// y 1\\n' > gconv-modules; GCONV_PATH=. iconv -f x -t y a.txt",
    "printf 'x' > a.jar; JAVA_TOOL_OPTIONS=-javaagent:./a.jar java -version",
    "printf 'x' > a.jar; _JAVA_OPTIONS='-Xmx1g -javaagent:./a.jar' mvn -v",
    "printf 'x' > a.so; JDK_JAVA_OPTIONS=-agentpath:./a.so=opt java -jar app.jar",
    "printf 'system(\"rm -rf ~\")\\n' > .irbrc; irb",
    "printf 'system(\"rm -rf ~\")\\n' > r.rb; IRBRC=r.rb irb",
    "KUBE_EDITOR='rm -rf ~' kubectl edit deploy x",
]
NEAR_MISSES = [
    "LD_LIBRARY_PATH=/usr/local/lib ./app",
    "LD_LIBRARY_PATH=build/lib ./app",
    "printf 'x' > notes.txt; LD_LIBRARY_PATH=. ./app",
    "JAVA_TOOL_OPTIONS=-Xmx2g java -jar app.jar",
    "MAVEN_OPTS=-Xmx1g mvn -q package",
    "irb",
    "KUBE_EDITOR=vim kubectl edit deploy x",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with policy_project(tmp_path_factory, "loaders", "kind: ApprovalPolicy\n") as (_, loaded):
        yield loaded


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_variable_loading_written_code_is_not_allowed(engine: Engine, payload: str) -> None:
    assert engine.check(payload).decision != "allow", payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_loader_variables_without_written_code_stay_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command
