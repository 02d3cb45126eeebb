"""Container lifecycle verbs, remote daemons, and `ssh HOST CMD` judged as CMD.

Stopping, restarting or killing containers (or taking a compose stack down) needs approval
however it is reached: behind global options, through xargs, ssh, a heredoc to a remote
shell, git aliases or eval. Prose about those commands is not those commands.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

LIFECYCLE = [
    "docker restart app",
    "docker stop web-1",
    "docker kill app",
    "docker container restart app",
    "docker compose down",
    "docker compose -f prod.yml down",
    "docker compose stop",
    "docker-compose stop app",
    "docker-compose down",
    "podman stop web",
    "nerdctl kill app",
    "docker ps -q | xargs docker stop",
    "docker ps -q | xargs -r docker kill",
    "ssh prod docker restart app",
    "ssh -p 2222 prod 'docker compose down'",
    "ssh prod <<EOF\ndocker restart app\nEOF",
    "echo 'docker restart app' | ssh prod",
    "bash -c 'docker restart app'",
    "eval 'docker stop app'",
    "git -c alias.x='!docker stop app' x",
    'echo "$(docker kill app)"',
    "printf '%s' \"$(docker compose down)\"",
    "sudo -u ops docker --context prod stop app",
    "docker -H ssh://prod ps",
    "docker --context=prod ps",
    "podman --remote ps",
    "podman --url tcp://prod:8080 ps",
]

NEAR_MISSES = [
    "echo doc-only: docker stop web-1 stops one container",
    "echo 'README: docker compose down stops the stack'",
    "cat <<'README'\ndocker-compose stop app\nREADME",
    'git commit -m "note docker restart counts"',
    'grep "docker restart" log.txt',
    "docker ps -a",
    "docker compose up -d",
    "docker compose logs -f web",
    "docker run --rm --network=none alpine:3.20 true",
    "docker run --rm -v /srv/data:/data alpine:3.20 ls -r",
    "docker start app",
    "docker -H unix:///var/run/docker.sock ps",
    "ssh prod uptime",
]


@pytest.mark.parametrize("command", LIFECYCLE)
def test_container_lifecycle_and_remote_daemons_need_approval(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_prose_and_harmless_container_commands_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
