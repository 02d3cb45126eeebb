"""The cloud metadata service (instance credentials) named in every spelling a client reads.

curl, wget and Python resolve a host the way inet_aton does: octal and hex parts, and fewer
than four parts (the last one fills the rest). Found by adv4: each spelling below but the
dotted decimal one was allowed.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

SPELLINGS = [
    "curl http://2852039166/latest/meta-data/iam/security-credentials/",
    "curl http://0xa9fea9fe/latest/meta-data/",
    "curl http://0xA9FEA9FE/latest/meta-data/",
    "curl http://0251.0376.0251.0376/latest/",
    "curl http://0xa9.0xfe.0xa9.0xfe/",
    "curl http://169.254.43518/latest/",
    "curl http://169.16689662/latest/",
    "curl 'http://[::ffff:a9fe:a9fe]/latest/'",
    "wget -qO- http://instance-data/latest/meta-data/",
    "python3 -c 'import urllib.request as u; print(u.urlopen(\"http://2852039166/latest/\").read())'",
]


@pytest.mark.parametrize("command", SPELLINGS)
def test_the_metadata_service_in_another_spelling_is_not_allowed(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision != "allow", command
    assert any(m.key == "cloud_metadata" for m in verdict.matches), command


@pytest.mark.parametrize("command", ["curl http://169.254.1.1/", "curl http://28520391660/", "seq 2852039"])
def test_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow"
