"""Global options before a program's verb are read with their values, as the program reads them.

`git -C DIR reset --hard` is `git reset --hard`; a verb hidden behind options that take a
value (`npm --prefix ./app uninstall`, `docker -H host rm`) is still the verb.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

HIDDEN_VERBS = {
    "git -C /srv/app reset --hard": "git_discard_work",
    "git --work-tree /srv/app reset --hard HEAD~3": "git_discard_work",
    "git --git-dir=/srv/app/.git --work-tree=/srv/app clean -fdx": "git_discard_work",
    "git -C '/srv/my app' push --force origin main": "git_force_push",
    "git -c core.pager=cat -C /srv/app push -f": "git_force_push",
    "git --no-pager -C /srv/app branch -D release": "git_delete_branch",
    "git --namespace=x -P checkout -- .": "git_discard_work",
    "npm --prefix ./app uninstall left-pad": "package_uninstall",
    "npm -C ./app rm left-pad": "package_uninstall",
    "pnpm --dir ./app remove left-pad": "package_uninstall",
    "yarn --cwd ./app remove left-pad": "package_uninstall",
    "pip --proxy http://proxy:3128 uninstall -y requests": "package_uninstall",
    "pip --cache-dir /tmp/c uninstall flask": "package_uninstall",
    "apt-get -o Debug::pkgProblemResolver=1 remove nginx": "package_uninstall",
    "docker -H ssh://prod rm -f web": "container_cluster_destructive",
    "docker --context prod system prune -af": "container_cluster_destructive",
    "docker --log-level debug rmi app:latest": "container_cluster_destructive",
    "podman --remote volume rm data": "container_cluster_destructive",
    "docker compose -f prod.yml -p shop down -v": "container_cluster_destructive",
    "kubectl -n prod --context live delete deployment web": "container_cluster_destructive",
    "helm -n prod uninstall web": "container_cluster_destructive",
}

NEAR_MISSES = [
    "git -C /srv/app status",
    "git -C /srv/app push origin main",
    "git -C /srv/app branch -d merged",
    "git --no-pager log push --force",
    "git status && echo push --force",
    "git -C /srv/app log --grep='reset --hard'",
    "npm --prefix ./app install left-pad",
    "pip --proxy http://proxy:3128 install requests",
    "yarn --cwd ./app add left-pad",
    "docker --log-level debug ps",
    "docker compose -f prod.yml -p shop ps",
    "kubectl -n prod get pods",
    "helm -n prod list",
]


@pytest.mark.parametrize(("command", "key"), list(HIDDEN_VERBS.items()))
def test_a_verb_behind_global_options_is_still_the_verb(engine: Engine, command: str, key: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision != "allow" and key in {m.key for m in verdict.matches}, (command, verdict.as_dict())


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_harmless_verbs_behind_global_options_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
