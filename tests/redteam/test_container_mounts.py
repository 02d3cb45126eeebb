"""A container given a host path can write it: a bind mount is judged as a write to that path.

`docker run -v HOST:CTR` (and `--volume`, `--mount type=bind,src=HOST`, on docker, podman and
nerdctl, through `create` and `container run`) is read as writing HOST (`:ro` / `readonly`:
reading it). The host's root, a home directory or a system directory needs approval; the
engine's own files stay hardline; a work-tree folder, a named volume or /tmp stays allowed.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

ASK = [
    "docker run -v /:/host alpine rm -rf /host/etc",
    "docker run -v ~:/h alpine rm -rf /h",
    "docker run -v ~/:/h alpine sh",
    "docker run -it -v $HOME:/root alpine sh",
    'docker run -v "$HOME":/h alpine',
    "docker run -v /home/alice:/h alpine",
    "docker run -v /root:/r alpine",
    "docker run --volume=/etc:/e alpine sh -c 'echo x > /e/passwd'",
    "docker run --volume /usr:/u alpine",
    "docker run -v=/etc:/e alpine",
    "docker run --mount type=bind,src=/,dst=/host alpine rm -rf /host",
    "docker run --mount type=bind,source=/home/alice,target=/h alpine",
    "docker run -v ~/.ssh:/k alpine cat /k/id_rsa",
    "docker run -v ~/.ssh:/k:ro alpine cat /k/id_rsa",  # read-only still reads the keys
    "docker run --mount type=bind,src=~/.aws,dst=/a,readonly alpine",
    "docker run -v ~/.bashrc:/b alpine sh -c 'echo x >> /b'",
    "docker run -v /var/run/docker.sock:/var/run/docker.sock alpine",
    "docker create -v ~:/h alpine",
    "docker container run -v ~:/h alpine",
    "podman run -v ~:/h alpine",
    "podman run --rm -v /etc:/e:Z alpine",
    "nerdctl run -v /:/host alpine",
    "docker -H unix:///var/run/docker.sock run -v ~:/h alpine",
    "sudo docker run -v /:/host alpine",
]

HARDLINE = [
    "docker run -v ./manifests:/m alpine",  # the engine's own files, writable in the container
    "docker run -v ./hermes-engine.yaml:/c.yaml alpine",
]

NEAR_MISSES = [
    "docker run --rm alpine echo hi",
    "docker run -v ./data:/data alpine ls /data",
    "docker run -v data:/data postgres",
    "docker run --mount type=volume,src=data,dst=/d alpine",
    "docker run -v /tmp/work:/w alpine",
    "docker run -v ~/projects/app/data:/data alpine",
    "docker run --rm -v $(pwd):/src -w /src node:20 npm test",
    'docker run -it --rm -v "$PWD":/app -w /app node:20 npm test',
    "docker run -d -p 8080:80 --name web nginx",
    "docker run -e VOLUME=/:/x alpine",
    "podman run -v ./src:/src:ro alpine",
]


@pytest.mark.parametrize("command", ASK)
def test_a_host_path_mounted_into_a_container_needs_approval(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", HARDLINE)
def test_the_engines_files_mounted_writable_are_hardline(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), (command, verdict.as_dict())


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_work_tree_folders_volumes_and_tmp_stay_allowed(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "allow", (command, verdict.as_dict())
