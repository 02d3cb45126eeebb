"""fix49 (stop 49, issue 8): holes a review of this stop's merge found in its new allows, each shown live.

1. xargs's default reading keeps a blank quoted or escaped (follow._xargs_words): `echo 'rm\\ -rf\\ ~' | xargs sh -c`
   hands sh the one word `rm -rf ~` (live: the home goes). merge49's blank split read `sh -c rm\\ …` and allowed it.
2. make remakes the makefiles it read before any goal (executors.make_goal_recipes): mk49 judged only the goal's
   recipes, so `make test` with a rule `Makefile: FORCE` running `rm -rf ~` was allowed (live: it runs first).
3. A check without a session reads a script from the disk (bg49's DiskView): a NUL after the first line made it
   "the project's machine code", unread (`rm -rf ~\\n#\\0`: bash runs it, live), and a pyvenv.cfg planted beside a
   script made it a virtual environment's, unread. Only machine code (ELF, Mach-O) or a NUL in the first line is
   not read now, and only a virtual environment's `bin/activate*` is skipped.
(after a second adversary) make's goal reading falls back to every recipe for a recursive make (`$(MAKE) clean`), a
static pattern rule's prerequisites and `.EXTRA_PREREQS`; only ELF/thin Mach-O magic is machine code (a script
starting 0xcafebabe, or one whose first line holds a NUL, which dash runs, is read); pip's `report` is a setting.
4. fp49's listing rule read the top line's text for what runs in any order: a `trap` body, and a listing inside a
   script run by the line, judged only the commands before them (live: ~/notes.txt deleted).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import policy_project, run_confined

SPLIT = 'mkdir -p "x $HOME" && touch "x $HOME/notes.txt"'
FILES = {
    "Makefile": "test:\n\t@echo ok\nMakefile: FORCE\n\trm -rf ~\nFORCE:\n",
    "nul.sh": "rm -rf ~\n#\0\n",
    "s/pyvenv.cfg": "home = /usr/bin\n",
    "s/x.sh": "rm -rf ~\n",
    "later.sh": "(sleep 1; rm -f $(find . -name notes.txt)) & " + SPLIT + "\n",
    "m2/Makefile": "test:\n\t@echo ok\nclean:\n\trm -rf build\n",
    "m3/Makefile": "test:\n\t$(MAKE) clean\nclean:\n\trm -rf ~/.ssh\n",
    "m4/Makefile": "test: t%: clean\n\t@echo ok\nclean:\n\trm -rf ~/.ssh\n",
    "m5/Makefile": ".EXTRA_PREREQS := clean\ntest:\n\t@echo ok\nclean:\n\trm -rf ~/.ssh\n",
    "magic.sh": "\xca\xfe\xba\xbe\nrm -rf ~/.ssh\n",
    "dash.sh": "rm -rf ~/.ssh #\0\n",
    ".venv/pyvenv.cfg": "home = /usr/bin\n",
    ".venv/bin/activate": "deactivate () { unset -f deactivate; }\nexport VIRTUAL_ENV=/x\nhash -r 2>/dev/null\n",
}


def _files(root: Path, _mp: pytest.MonkeyPatch) -> None:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with policy_project(tmp_path_factory, "fix49", "kind: ApprovalPolicy\n", _files) as (_, loaded):
        yield loaded


PAYLOADS = [
    "echo 'rm\\ -rf\\ ~' | xargs sh -c",
    "echo 'rm\\ -rf\\ $HOME' | xargs sh -c",
    "echo '\"rm -rf ~\"' | xargs sh -c",
    "make test",
    "bash nul.sh",
    "bash s/x.sh",
    "trap 'rm -f $(find . -name notes.txt)' EXIT; " + SPLIT,
    "bash later.sh",
    "make -C m3 test",
    "make -C m4 test",
    "make -C m5 test",
    "bash magic.sh",
    "sh dash.sh",
    "printf '[global]\\nreport = ~/.ssh/id_ed25519\\n' >> pip.conf",
]
NEAR_MISSES = [
    "echo 'a b' | xargs echo",
    "printf '%s\\n' 'a\\ b.txt' | xargs echo",
    "make -C m2 test",
    "source .venv/bin/activate",
    "rm -f $(find . -name '*.o')",
]


@pytest.mark.parametrize("command", PAYLOADS)
def test_the_payload_is_not_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_the_near_miss_stays_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


@pytest.mark.parametrize(
    "setup",
    [
        "",  # the xargs line itself
        "printf 'test:\\n\\t@echo ok\\nMakefile: FORCE\\n\\trm -rf ~\\nFORCE:\\n' > Makefile; ",
        "printf 'rm -rf ~\\n#\\0\\n' > nul.sh; ",
    ],
)
def test_the_payloads_delete_the_home_live(tmp_path: Path, setup: str) -> None:
    command = (
        "echo 'rm\\ -rf\\ ~' | xargs sh -c" if not setup else "make test" if "Makefile" in setup else "bash nul.sh"
    )
    home, _, printed = run_confined(tmp_path, setup + command)
    assert not (home / "notes.txt").exists(), printed


def test_a_trap_listing_splits_into_the_home_live(tmp_path: Path) -> None:
    home, _, printed = run_confined(tmp_path, "trap 'rm -f $(find . -name notes.txt)' EXIT; " + SPLIT)
    assert not (home / "notes.txt").exists(), printed
