"""rt10 red team (stop 21, triaged stop 22): open misses against
option variables (TAR_OPTIONS, MAKEFLAGS, PS4 under xtrace, npm/cargo runners).

Each payload is hardline-class harm (bash runs `rm -rf ~`, `rm -rf /*` or a home-deleting hook).
Strict xfails: a fix turns one into a pass, and then the entry moves out of the xfail list into
an ordinary assertion (tests/redteam/test_*.py of the family).
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

# today: allow (or an ask after stop 21's fix); harm is hardline-class
# (stop 22: the rest are ordinary assertions in test_option_variables.py)
ALLOWED: list[tuple[str, str]] = []

# today: a grantable ask (or an ask after stop 21's fix); harm is hardline-class
# (sends36: the read case was an ask only because values.read_fields split a line read into one name at
# every blank (re.split's maxsplit=0), an error the check took for an unparseable line; a literal
# here-string's value is known as printf -v's is, so the hardline verdict is the right one.)
ASKED: list[tuple[str, str]] = []


@pytest.mark.parametrize(("command", "why"), ALLOWED + ASKED)
@pytest.mark.xfail(strict=True, reason="rt10: not a hardline deny today; bash runs hardline-class harm")
def test_rt10_miss(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


# fixed by sec2's value model (printf -v of known words gives a known value)
FIXED: list[tuple[str, str]] = [
    (
        "printf -v TAR_OPTIONS %s '\"--to-command=rm -rf ~\"'; export TAR_OPTIONS; tar xf a.tar",
        "printf -v then export sets TAR_OPTIONS",
    ),
    # sends36: a literal here-string or here-document read into one name gives the whole line
    (
        "export TAR_OPTIONS; read -r TAR_OPTIONS <<< '\"--to-command=rm -rf ~\"'; tar xf a.tar",
        "export first, then read the value",
    ),
    (
        'read -r v <<< \'"--to-command=rm -rf ~"\'; export TAR_OPTIONS="$v"; tar xf a.tar',
        "read into another name, then exported under TAR_OPTIONS",
    ),
    (
        "export TAR_OPTIONS; read -r TAR_OPTIONS <<'E'\n\"--to-command=rm -rf ~\"\nE\ntar xf a.tar",
        "a here-document's line",
    ),
    (
        "export TAR_OPTIONS; IFS= read -r TAR_OPTIONS <<< '  \"--to-command=rm -rf ~\"'; tar xf a.tar",
        "an empty IFS: the line as it is",
    ),
]


@pytest.mark.parametrize(("command", "why"), FIXED)
def test_rt10_fixed(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why
