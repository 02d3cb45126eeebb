"""A web or file server rooted at home, `/` or a credential folder publishes every key under it.

`cd ~ && python3 -m http.server`, `python3 -m http.server -d ~`, `php -S 0.0.0.0:8000 -t ~`,
`busybox httpd -h ~`, `ruby -run -e httpd ~`, `npx http-server ~`: each was allowed
(serve_private_folder now asks).
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

PAYLOADS = [
    "cd ~ && python3 -m http.server 8000",
    "python3 -m http.server -d ~ 8000",
    "python3 -m http.server --directory / 80",
    "php -S 0.0.0.0:8000 -t ~",
    "busybox httpd -h ~ -p 8080",
    "ruby -run -e httpd ~ -p 8000",
    "npx http-server ~",
    "cd ~/.ssh && python3 -m http.server",
]

NEAR_MISSES = [
    "python3 -m http.server 8000",
    "cd docs && python3 -m http.server",
    "php -S localhost:8000 -t public",
    "npx http-server dist",
]


@pytest.mark.parametrize("command", PAYLOADS)
def test_serving_a_private_folder_asks(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision != "allow" and "serve_private_folder" in {m.key for m in verdict.matches}, command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_serving_the_project_stays_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
