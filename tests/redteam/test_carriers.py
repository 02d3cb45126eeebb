"""Carriers: shells, su/runuser, env and the wrappers, read the way each program reads its arguments.

A carrier's own options come before, around and after the payload (`bash -O extglob -lc`,
`sh -c -x CMD`, `su CMD-less -c`, `env -iS'...'`); whatever the spelling, the payload is
what runs. And the reverse: when the words only look like a carrier (`timeout --foreground
echo reboot`), what runs is a print, and a hardline verdict would be about the wrong thing.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

CARRIED = [
    # a shell's own options around -c
    "bash -O extglob -lc 'rm -rf ~'",
    "bash +O extglob -c 'rm -rf ~'",
    "sh -c -x 'rm -rf ~'",
    "sh -ce -- 'rm -rf ~'",
    "bash -c -o pipefail 'rm -rf ~'",
    "bash --norc --noprofile -c 'rm -rf ~'",
    "bash --rcfile /dev/null -ic 'rm -rf ~'",
    "dash -ec 'rm -rf ~'",
    "zsh -fc 'rm -rf ~'",
    "/bin/sh -xc 'rm -rf ~' arg0",
    "sh -c 'sh -c \"rm -rf ~\"'",
    # su, runuser, sg
    "su -c 'rm -rf ~'",
    "su -lc 'rm -rf ~'",
    "su - root -c 'rm -rf ~'",
    "su --comm 'rm -rf ~' root",
    "su -c 'echo ok' --command 'rm -rf ~' root",
    "su -c 'rm -rf ~' -w --command root",
    "runuser -l app -c 'rm -rf ~'",
    "runuser --command='rm -rf ~' app",
    "runuser --sess 'rm -rf ~' app",
    "runuser -u app -- rm -rf ~",
    "sg staff -c 'rm -rf ~'",
    # env: -S and its spellings, bundling, assignments anything-with-equals
    "env -S 'rm -rf ~'",
    "env --split-string='rm -rf ~'",
    "env --spl='rm -rf ~'",
    "env -iS 'rm -rf ~'",
    "env -vi -S 'sh -c \"rm -rf ~\"'",
    "env -iSrm -rf ~",
    "env -S 'sh\\_-c\\_\"rm -rf ~\"'",
    "env -S '-i A=1 sh -c \"rm -rf ~\"'",
    "env -iC /tmp sh -c 'rm -rf ~'",
    "env A-B=1 rm -rf ~",
    "env --unset=X --chdir=/ rm -rf ~",
    "env -u X -- rm -rf ~",
    "env --s$'\\0'='rm -rf ~'",
    # wrappers with options that take values, nested
    "sudo -u root -g wheel -E rm -rf ~",
    "sudo --preserve-env=PATH -- rm -rf ~",
    "nice -n 19 ionice -c idle timeout -k 5 60 stdbuf -oL rm -rf ~",
    "timeout -s KILL 1.5m rm -rf ~",
    "doas -u root env -i rm -rf ~",
    "setsid -f rm -rf ~",
    "chrt -i 0 rm -rf ~",
    "taskset -c 0-3 rm -rf ~",
    "/usr/bin/env -i /bin/bash -c 'rm -rf ~'",
    "command -p rm -rf ~",
    "exec -a innocent rm -rf ~",
    "su --command re$'\\0'boot root",
    # programs whose job is running the command after their options
    "poetry run rm -rf ~",
    "uv run --with requests rm -rf ~",
    "conda run -n base rm -rf ~",
    "bundle exec rm -rf ~",
    "mise x -- rm -rf ~",
    "nix-shell -p hello --run 'rm -rf ~'",
    "nix develop -c rm -rf ~",
    "direnv exec . rm -rf ~",
    "fakeroot rm -rf ~",
    "sshpass -p secret rm -rf ~",
    "setarch x86_64 -R rm -rf ~",
    "ip netns exec blue rm -rf ~",
    "capsh -- -c 'rm -rf ~'",
    "gosu app rm -rf ~",
    "ls | entr -p rm -rf ~",
    "logsave /tmp/log rm -rf ~",
    "echo ~ | xargs rm -rf",
    "echo 'rm -rf ~' | xargs -I{} sh -c '{}'",
    "docker exec -u root web rm -rf ~",
    "kubectl exec -it web -- rm -rf ~",
    # a process substitution is a file holding what it prints
    "bash <(echo 'rm -rf ~')",
    "source <(printf 'rm -rf ~')",
    ". <(echo 'rm -rf ~')",
    "bash < <(echo 'rm -rf ~')",
    "awk -f <(echo 'BEGIN { system(\"rm -rf ~\") }')",
    "python3 <(echo 'import shutil, os; shutil.rmtree(os.path.expanduser(\"~\"))')",
    "exec 3<<< 'rm -rf ~'; bash <&3",
    "exec 4< <(echo 'rm -rf ~'); sh <&4",
    "time -p rm -rf ~",
    # builtins that keep a command to run later
    "trap 'rm -rf ~' EXIT",
    "trap -- 'rm -rf ~' INT TERM; sleep 1",
    "shopt -s expand_aliases; alias ls='rm -rf ~'; ls",
    "mapfile -C 'rm -rf ~' -c 1 lines < notes.txt",
]

ONLY_LOOK_LIKE_CARRIERS = [
    "timeout --foreground echo reboot",
    "timeout --preserve-status echo sh -c reboot",
    "env echo --split-string reboot",
    "env -i echo -S reboot",
    "env -- echo --split-string reboot",
    "env FOO=1 --s reboot",
    "env -uS /bin/echo reboot",
    "env -S/bin/echo reboot",
    "env -0S reboot",
    "nice -n echo sh -c reboot",
    "sudo -E echo sh -c reboot",
    "stdbuf -oL echo sh -c reboot",
    "sh -- -c reboot",
    "sh /dev/null -c reboot",
    "su -- root --command reboot",
    "su -wFOO,creboot root",
    "su --command reboot --command 'echo safe' root",
    "runuser -u root --command reboot",
    "su -m -w FOO --command reboot root",
    "command -v reboot",
]

NEAR_MISSES = [
    "bash -lc 'npm test'",
    "sh -c 'echo reboot'",
    "bash -O globstar -c 'ls **/*.py'",
    "su -c 'whoami' app",
    "env -i PATH=/usr/bin python3 app.py",
    "env -S 'python3 -u' app.py",
    "timeout 30 pytest -q",
    "nice -n 10 make -j4",
    "sudo -u postgres psql -c 'select 1'",
    "gcc -c main.c",
    "grep -c reboot access.log",
    "env EDITOR=vim git commit",
    "xargs -0 sh -c 'echo \"$1\"' _",
    "poetry run pytest -q",
    "uv run python app.py",
    "bundle exec rake test",
    "echo a.txt b.txt | xargs wc -l",
    "docker exec web ls /srv",
    "kubectl exec -it web -- ls",
    "trap 'rm -f /tmp/app.lock' EXIT",
    "alias ll='ls -la'",
    "trap -p",
    "diff <(sort a.txt) <(sort b.txt)",
    "bash <(echo 'echo hello')",
]


@pytest.mark.parametrize("command", CARRIED)
def test_a_carried_payload_is_judged_as_what_runs(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", ONLY_LOOK_LIKE_CARRIERS)
def test_words_that_only_look_like_a_carrier_are_not_hard_denied(engine: Engine, command: str) -> None:
    assert not judge(engine, command).hardline, command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_carriers_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
