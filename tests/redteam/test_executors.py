"""Ordinary programs that execute a string or a file they are given (policies/executors.yaml).

Each payload is judged like `bash -c`: one that deletes the home directory is denied as
hardline, whatever program carries it. A shell or interpreter an ordinary program starts
(an escape hatch) needs approval even when what it runs cannot be read.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

DELETES_HOME = [
    # sed: the `e` command and the `e` flag of `s`
    "sed -n '1e rm -rf ~' notes.txt",
    "sed -e p -e '$e rm -rf ~' notes.txt",
    "sed --expression='2 e rm -rf ~' notes.txt",
    "echo x | sed 's/x/rm -rf ~/e'",
    "sed -n '/TODO/e rm -rf ~' notes.txt",
    # tar
    "tar -cf /dev/null notes.txt --checkpoint=1 --checkpoint-action=exec='rm -rf ~'",
    "tar -xf a.tar --to-command='rm -rf ~'",
    "tar -I 'rm -rf ~' -cf a.tar notes.txt",
    "tar --use-compress='sh -c \"rm -rf ~\"' -xf a.tar",
    # git: configuration keys and variables whose value git runs
    "git -c core.fsmonitor='rm -rf ~' status",
    "git -c core.pager='rm -rf ~' log",
    "git -c core.sshCommand='rm -rf ~' fetch",
    "git -c alias.st='!rm -rf ~' st",
    "git -c credential.helper='!rm -rf ~' push",
    "git -c diff.x.textconv='rm -rf ~' diff",
    "git -C /tmp -c core.editor='rm -rf ~' commit",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf ~' git log",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf ~'; git x",
    "GIT_SSH_COMMAND='rm -rf ~' git fetch",
    "GIT_EXTERNAL_DIFF='rm -rf ~' git diff",
    "env GIT_PAGER='rm -rf ~' git log",
    "git clone -u 'rm -rf ~' /srv/repo copy",
    "git submodule foreach 'rm -rf ~'",
    # ssh, scp, rsync
    "ssh -o ProxyCommand='rm -rf ~' host",
    "ssh -oLocalCommand='rm -rf ~' -oPermitLocalCommand=yes host",
    "scp -o 'ProxyCommand rm -rf ~' a host:b",
    "rsync -e 'sh -c \"rm -rf ~\"' a host:b",
    "rsync --rsync-path='rm -rf ~' a host:b",
    "ssh -p 2222 host rm -rf ~",
    "echo 'rm -rf ~' | ssh host",
    # terminals and multiplexers
    "script -qc 'rm -rf ~' /dev/null",
    "flock /tmp/lock -c 'rm -rf ~'",
    "flock -w 3 /tmp/lock rm -rf ~",
    "watch -n 60 'rm -rf ~'",
    "tmux new-session -d 'rm -rf ~'",
    "tmux send-keys -t main 'rm -rf ~' C-m",
    "screen -dmS job rm -rf ~",
    "screen -S job -X stuff 'rm -rf ~\\n'",
    # editors, debuggers, pagers
    "vim -c ':!rm -rf ~' -c ':q!' notes.txt",
    "vim +'silent !rm -rf ~' +q",
    "nvim --headless -c 'call system(\"rm -rf ~\")' -c q",
    "vim -c 'py3 import os; os.system(\"rm -rf ~\")' -c q",
    "gdb -nx -ex '!rm -rf ~' -ex quit",
    "gdb -batch -ex 'shell rm -rf ~'",
    "less '+!rm -rf ~' notes.txt",
    "LESSOPEN='|rm -rf ~ %s' less notes.txt",
    "man -P 'rm -rf ~ #' ls",
    "MANPAGER='sh -c \"rm -rf ~\"' man ls",
    "ag --pager 'rm -rf ~' TODO",
    # awk, find, xargs, parallel, env -S, zip, make
    "awk 'BEGIN { system(\"rm -rf ~\") }'",
    "gawk 'BEGIN { print | \"rm -rf ~\" }'",
    "awk 'BEGIN { \"rm -rf ~\" | getline x }'",
    "find . -maxdepth 0 -exec rm -rf ~ \\;",
    "find / -maxdepth 0 -ok rm -rf ~ \\;",
    "ls | xargs -0 rm -rf ~",
    "parallel ::: 'rm -rf ~'",
    "env -S 'rm -rf ~'",
    "zip z.zip notes.txt -T -TT 'rm -rf ~ #'",
    "zip z.zip notes.txt -T --unzip-command='rm -rf ~'",
    "printf 'all:\\n\\trm -rf ~\\n' | make -f -",
    "make --eval='$(shell rm -rf ~)' all",
    "printf 'x:\\n\\trm -rf ~\\n' > Makefile; make",
    # interpreters
    "python3 -c 'import os; os.system(\"rm -rf ~\")'",
    "perl -e 'system(\"rm -rf ~\")'",
    "ruby -e '`rm -rf ~`'",
    "php -r 'system(\"rm -rf ~\");'",
    "lua -e 'os.execute(\"rm -rf ~\")'",
    "bun -e \"require('child_process').execSync('rm -rf ~')\"",
    "deno eval \"Deno.removeSync(Deno.env.get('HOME'), {recursive: true})\"",
    "osascript -e 'do shell script \"rm -rf ~\"'",
    "python3 -c \"import subprocess, os; subprocess.run(['rm', '-rf', os.path.expanduser('~')])\"",
    "node -e \"require('child_process').spawnSync('rm', ['-rf', require('os').homedir()])\"",
    'perl -e \'system "rm", "-rf", $ENV{HOME}\'',
    "emacs --batch --eval '(shell-command \"rm -rf ~\")'",
    'awk \'BEGIN { system("rm -rf " ENVIRON["HOME"]) }\'',
    # database shells, package tools and other hatches
    "mysql -e '\\! rm -rf ~'",
    "psql -c '\\! rm -rf ~' db",
    "sqlite3 app.db '.shell rm -rf ~'",
    "echo '.system rm -rf ~' | sqlite3 app.db",
    "apt-get update -o APT::Update::Pre-Invoke::='rm -rf ~'",
    "dpkg --pre-invoke='rm -rf ~' -i pkg.deb",
    "rpm --eval '%(rm -rf ~)'",
    "strace -o '|rm -rf ~' true",
    "mosh host -- rm -rf ~",
    # any program: an option whose value is a command
    "some-tool --exec='rm -rf ~'",
    "some-tool --hook='!rm -rf ~'",
    "some-tool --pager 'rm -rf ~'",
]

ESCAPE_HATCHES = [
    "tar -cf /dev/null notes.txt --checkpoint=1 --checkpoint-action=exec=/bin/sh",
    "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=sh' tar -cf x.tar notes.txt",
    "sort --compress-program=sh big.txt",
    "git -c core.pager=sh log",
    "git -c core.hooksPath=/tmp/hooks commit -m wip",
    "gdb -nx -ex '!sh' -ex quit",
    "vim -c ':!/bin/sh'",
    "vi -c ':shell'",
    "less '+!bash' notes.txt",
    "awk 'BEGIN { system(\"/bin/sh\") }'",
    "sed -n '1e id' notes.txt",
    "sed 's/.*/&/e' notes.txt",
    "scp -S /tmp/wrapper.sh a host:b",
    "make SHELL=/tmp/shell.sh",
    "nmap --script=/tmp/probe.nse localhost",
    "rg --pre /tmp/pre.sh TODO",
    "some-tool --run-with=bash",
    "some-tool --callback=!id",
    "LD_PRELOAD=/tmp/hook.so ls",
    "BASH_ENV=/tmp/env.sh bash -c ls",
    "tcpdump -i eth0 -w x.pcap -G 60 -z /tmp/rotate.sh",
    "psql -c '\\! sh' db",
]

NEAR_MISSES = [
    "sed -n 's/a/b/p' notes.txt",
    "sed -i 's/e/E/g' notes.txt",
    "sed -n '/e/p' notes.txt",
    "sed 's/foo/bar/w out.txt' notes.txt",
    "tar -czf backup.tgz src",
    "tar -xzf backup.tgz -C ./out",
    "sort -u names.txt",
    "sort --compress-program=gzip -S 10M big.txt",
    "git -c core.pager=cat log --oneline",
    "git -c user.name=bot commit -m 'fix: exec path'",
    "git -c core.fsmonitor=false status",
    "git -c alias.co=checkout co main",
    "GIT_PAGER=cat git log -3",
    "git log --grep='rm -rf'",
    "ssh host uptime",
    "ssh -o StrictHostKeyChecking=no host ls",
    "scp -P 2222 notes.txt host:/tmp/",
    "rsync -avz -e ssh src/ host:dst/",
    "flock /tmp/lock make build",
    "watch -n 5 'df -h'",
    "tmux new -d -s dev 'npm run dev'",
    "tmux send-keys -t dev 'make test' Enter",
    "vim +42 notes.txt",
    "vim -c 'set number' notes.txt",
    "gdb -batch -ex 'bt' ./app core",
    "less +G app.log",
    "man -P cat ls",
    "awk '{ print $1 }' access.log",
    "awk -F, 'NR > 1 { s += $3 } END { print s }' data.csv",
    "find . -name '*.py' -exec grep -l TODO {} +",
    "find . -type f -execdir wc -l {} \\;",
    "ls | xargs -n 1 echo",
    "parallel gzip ::: a.txt b.txt",
    "env -S 'python3 -u' app.py",
    "zip -r site.zip public",
    "make -j4 test",
    "make SHELL=/bin/bash all",
    "python3 -c 'print(sum(range(10)))'",
    'node -e "console.log(process.version)"',
    "perl -ne 'print if /ERROR/' app.log",
    'deno eval "console.log(Deno.version)"',
    "some-tool --output=report.txt --verbose",
    "some-tool --shell-completion zsh",
    "docker run --entrypoint=/app/start.sh image",
    "psql -c 'select count(*) from users' db",
    "sqlite3 app.db '.tables'",
    "apt-get -o Dpkg::Options::=--force-confold install nginx",
    "python3 -c \"import subprocess; subprocess.run(['ls', '-la'], check=True)\"",
    "node -e \"require('child_process').execSync('ls', {stdio: 'inherit'})\"",
]


@pytest.mark.parametrize("command", DELETES_HOME)
def test_a_payload_that_deletes_the_home_directory_is_denied_whatever_carries_it(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", ESCAPE_HATCHES)
def test_a_shell_started_through_an_escape_hatch_needs_approval(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_uses_of_the_same_programs_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
