"""redt34 (stop 34, issue 8): an adversary on the stop's merge (mk34, glob34, pipe34, print34, lead34),
as a caller controlling only the command text and the files it writes.

Found and closed here (each allowed on the merge 38530fc; a real bash deletes the fake HOME):
- STORED: print34 read a program's output as its own words only: a program given no shell text was
  taken to print nothing a shell runs. But many print what they keep or find, which an earlier command
  sets to any text: `git commit -m CMD; git log -1 --format=%s | sh`, `git config k CMD; git config k |
  sh`, `ln -s CMD l; readlink l | sh`, `touch 'd/CMD'; ls d | sh`, `find -printf '%f\\n' | sh`, `mkdir
  ';CMD;' && cd ';CMD;' && pwd | sh`, `dirs | sh`. `prints: stored` (policies/printers.yaml, git and
  find in executors.yaml) feeds the next stages `$stored`; policies/exec.yaml stored_code asks where a
  shell reads it (not an interpreter's script: `git log | python3 count.py` stays allowed).
- SPLICED: a value the outer shell puts into a text another shell parses was read as the word `$x`
  (one argument), not as code: `read x; eval "echo $x"`, `x=$(git config k); sh -c "echo $x"`, `sh -c
  "echo $(readlink l)"`, `for f in *; do sh -c "echo $f"; done` (a glob's names), `find . -exec sh -c
  'echo {}' \\;`, `ls | xargs -I{} sh -c 'echo {}'` ran `a;rm -rf ~`. A shell's `-c` text or eval's words
  holding a substitution's output or a variable the line set to an unknown value (Analyzer.spliced_code;
  so too echo's words or a here-string a shell reads: `bash <<< "echo $x"`, `echo "echo $x" | sh`;
  follow.Follower._spliced), a loop variable over a glob whose body hands a text to a shell
  (Analyzer._read_loops), find's `{}` inside a word holding shell text: data runs (an escape hatch
  reading data: asks). A variable the line did not set is the environment's (`sh -c "echo $USER"` stays).
- SEQUENCE: bash's `{x..y}` sequence expression was read as literal text (lexer.expand_braces expanded
  comma groups only): `cat ~/.{r..t}sh/id_*`, `cat ~/.ss{h..h}/id_*` printed the key. Sequences of
  letters or up to 64 numbers expand now; a longer number range stays a word (`touch f{1..100}`).
- ODD FOLDER: `$PWD` after a `cd` into a folder relative to the start was ".", whatever the folder's
  name: `mkdir -p ';CMD;' && cd ';CMD;' && sh -c "$PWD"` / `bash -c "ls $PWD"` / `echo $PWD | sh`. A
  folder whose name holds shell text leaves $PWD unknown (Analyzer._odd_folder).

- ANSIBLE (lead34's neighbours): a Jinja template in `-a`/`-e` (`msg={{ lookup('pipe', CMD) }}` runs CMD,
  `lookup('file', KEY)` prints the key, `path={{p}} -e p=~`), JSON arguments (`-a '{"path": "~", "state":
  "absent"}'`), the script module's free-form file (`-m script -a x.sh`), ansible-console's input (`echo
  'file path=~ state=absent' | ansible-console localhost`): policies/executors.yaml (data runs: asks;
  the script is read as the file it runs).

Open at redt34, closed by open35 (tests/redteam/test_open35.py): a spliced value reaching a shell through a
function's positional parameter (`f() { sh -c "echo $1"; }; f
"$(readlink l)"`: the argument's value is not marked as set by the line), or into an inline program's
system call (`awk "BEGIN{system(\\"echo $x\\")}"`, python's os.system: follow.code reads the code's text).

Held (near misses below): environment variables in a -c text, loops over globs that run no shell,
find's `{}` alone or as a name's part, GNU parallel (it quotes what it puts in), git's output into
non-shells.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, live_then_stopped, verdict_cases

P = "rm -rf ~"
L = "ln -s 'a;rm -rf ~' l; "  # a link whose target is the text a later command splices in

STORED: dict[str, Case] = {
    "git log --format=%s": ({}, "git log -1 --format=%s | sh"),
    "git log after a commit": (
        {},
        f"git init -q; git -c user.name=a -c user.email=a@b commit -q --allow-empty -m '{P}'; "
        "git log -1 --format=%s | sh",
    ),
    "git show --format=%B": ({}, "git show -s --format=%B | bash"),
    "git config value": ({}, f"git init -q; git config x.y '{P}'; git config x.y | sh"),
    "git config --get": ({}, "git config --get x.y | bash -s"),
    "git log through head": ({}, "git log -1 --format=%s | head -1 | sh"),
    "readlink": ({}, "readlink l | sh"),
    "realpath -s": ({}, "ln -s 'x;rm -rf ~' l; realpath -s l | sh"),
    "ls of a folder": ({}, f"mkdir d; touch 'd/{P}'; ls d | sh"),
    "ls through sort": ({}, "ls -1 d | sort | sh"),
    "find -printf": ({}, f"touch '{P}'; find . -name 'rm*' -printf '%f\\n' | sh"),
    "du through cut": ({}, "du -a d | cut -f2 | sh"),
    "pwd": ({}, "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && pwd | sh"),
    "dirs": ({}, "mkdir -p ';rm -rf ~;' && pushd ';rm -rf ~;' && dirs | sh"),
}

SPLICED: dict[str, Case] = {
    "read; eval": ({}, 'read x; eval "echo $x"'),
    "read; bash -c": ({}, 'read x; bash -c "ls $x"'),
    "read; quoted in -c": ({}, "read x; sh -c \"ls '$x'\""),
    "eval of two words": ({}, 'read x; eval echo "$x"'),
    "git config into eval": ({}, f"git init -q; git config x.y 'a;{P}'; x=$(git config x.y); eval \"echo $x\""),
    "a substitution in -c": ({}, L + 'sh -c "echo $(readlink l)"'),
    "a variable in -c": ({}, L + 'x=$(readlink l); bash -c "echo $x"'),
    "${x} in -c": ({}, L + 'x=$(readlink l); sh -c "echo ${x}"'),
    "env sh -c": ({}, L + 'x=$(readlink l); env sh -c "echo $x"'),
    "timeout bash -c": ({}, L + 'x=$(readlink l); timeout 5 bash -c "echo $x"'),
    "read from a substitution": ({}, L + 'read -r x < <(readlink l); sh -c "echo $x"'),
    "mapfile into eval": ({}, L + 'mapfile -t a < <(readlink l); eval "echo ${a[0]}"'),
    "a git alias": ({}, L + 'x=$(readlink l); git -c alias.t="!echo $x" t'),
    "a file's text": ({}, f"echo 'a;{P}' > f; x=$(cat f); sh -c \"echo $x\""),
    "a loop over a glob, sh -c": ({}, f"touch 'x;{P}'; for f in *; do sh -c \"echo $f\"; done"),
    "a loop over a glob, eval": ({}, f"touch 'x;{P}'; for f in *; do eval \"echo $f\"; done"),
    "a loop over a glob, bash -lc": ({}, 'for f in *; do bash -lc "echo $f"; done'),
    "a loop over a substitution": ({}, 'for f in $(ls); do sh -c "echo $f"; done'),
    "find -exec sh -c '{}'": ({}, f"touch 'x;{P}'; find . -type f -exec sh -c 'echo {{}}' \\;"),
    'find -exec bash -c "{}"': ({}, 'find . -exec bash -c "echo {}" \\;'),
    "fd -x sh -c": ({}, "fd -e txt -x sh -c 'echo {}'"),
    "xargs -I{} sh -c": ({}, f"touch 'x;{P}'; ls | xargs -I{{}} sh -c 'echo {{}}'"),
    "xargs -I% from find": ({}, "find . | xargs -I% sh -c 'echo %'"),
    "a here-string": ({}, L + 'x=$(readlink l); bash <<< "echo $x"'),
    "echo into sh": ({}, L + 'x=$(readlink l); echo "echo $x" | sh'),
    "printf into bash -s": ({}, L + "x=$(readlink l); printf 'echo %s\\n' \"$x\" | bash -s"),
}

ODD_FOLDER: dict[str, Case] = {
    "sh -c $PWD": ({}, "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && sh -c \"$PWD\""),
    "sh -c $(pwd)": ({}, "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && sh -c \"$(pwd)\""),
    "bash -c ls $PWD": ({}, "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && bash -c \"ls $PWD\""),
    "eval ls $PWD": ({}, "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && eval \"ls $PWD\""),
    "echo $PWD into sh": ({}, "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && echo $PWD | sh"),
}

# glob34's neighbour: bash's sequence expression `{x..y}` was not expanded (lexer.expand_braces read only
# comma groups), so a folder spelled by one met no credential or home pattern beside a glob
SEQUENCE: dict[str, Case] = {
    "a letter range, one letter": ({}, "cat ~/.ss{h..h}/id_*"),
    "a letter range": ({}, "cat ~/.{r..t}sh/id_*"),
    "a range inside the name": ({}, "cat ~/.s{r..t}h/id_*"),
    "two ranges": ({}, "cat ~/.{q..s}{r..t}h/id_*"),
    "a range with a step": ({}, "cat ~/.s{a..z..18}h/id_*"),
    "a descending range": ({}, "cat ~/.ss{i..g}/id_*"),
    "a range in a comma group": ({}, "cat ~/{x,.s{s..s}h}/id_*"),
    "rm of a range": ({}, "rm -rf ~/.{r..t}sh"),
}

# lead34's neighbours: arguments ansible computes when it runs, the script module, ansible-console's input
ANSIBLE: dict[str, Case] = {
    "a pipe lookup": ({}, "ansible localhost -m debug -a \"msg={{ lookup('pipe','rm -rf ~') }}\""),
    "a file lookup of the key": ({}, "ansible localhost -m debug -a \"msg={{ lookup('file','~/.ssh/id_ed25519') }}\""),
    "set_fact of a pipe lookup": ({}, "ansible localhost -m set_fact -a \"x={{ lookup('pipe','rm -rf ~') }}\""),
    "a path from -e": ({}, "ansible localhost -m file -a 'path={{p}} state=absent' -e p=~"),
    "an env lookup": ({}, 'ansible localhost -m file -a \'path={{ lookup("env","HOME") }} state=absent\''),
    "JSON arguments": ({}, 'ansible localhost -m file -a \'{"path": "~", "state": "absent"}\''),
    "a -e template": (
        {},
        'ansible localhost -m debug -a msg=x -e \'y={% if 1 %}{{ lookup("pipe","id") }}{% endif %}\'',
    ),
    "the script module": ({}, f"printf '{P}\\n' > x.sh; ansible localhost -m script -a x.sh"),
    "ansible-console's input": ({}, "echo 'file path=~ state=absent' | ansible-console localhost"),
}

OPEN: dict[str, Case] = {
    "a function's $1": ({}, L + 'f() { sh -c "echo $1"; }; f "$(readlink l)"'),
    "awk system": ({}, L + 'x=$(readlink l); awk "BEGIN{system(\\"echo $x\\")}"'),
    "python os.system": ({}, L + "x=$(readlink l); python3 -c \"import os; os.system('echo $x')\""),
}

NEAR: dict[str, Case] = {
    "an environment variable in -c": ({}, 'sh -c "echo $USER"'),
    "HOME in -c": ({}, 'bash -c "cd $HOME && ls"'),
    "PATH in eval": ({}, 'eval "echo $PATH"'),
    "a known value in -c": ({}, 'x=hello; sh -c "echo $x"'),
    "a value as $1": ({}, 'read x; sh -c \'echo "$1"\' _ "$x"'),
    "a word in single quotes": ({}, "read x; eval 'echo \"$x\"'"),
    "read; ls": ({}, "read x; ls $x"),
    "a loop over a glob": ({}, 'for f in *.log; do gzip "$f"; done'),
    "a loop over a glob, $1": ({}, 'for f in *.txt; do sh -c \'wc -l "$1"\' _ "$f"; done'),
    "a loop over words": ({}, 'for f in a b; do sh -c "echo $f"; done'),
    "a loop echoing names": ({}, "for f in *; do echo $f; done"),
    "find -exec mv {} {}.old": ({}, "find . -name '*.bak' -exec mv {} {}.old \\;"),
    "find -exec grep {} +": ({}, "find . -name '*.txt' -exec grep -l foo {} +"),
    "parallel echo": ({}, "seq 3 | parallel echo"),
    "ls | parallel gzip": ({}, "ls | parallel gzip"),
    "git log into head": ({}, "git log --format='%h %s' | head"),
    "git log into python": ({}, "git log --oneline | python3 count.py"),
    "git config into wc": ({}, "git config user.name | wc -c"),
    "ls into xargs wc": ({}, "ls | xargs wc -l"),
    "pwd in a substitution": ({}, 'cd "$(pwd)/build"'),
    "a plain folder's $PWD": ({}, 'mkdir -p build && cd build && sh -c "ls $PWD"'),
    "cat a script into bash": ({}, "cat script.sh | bash"),
    "a long number range": ({}, "touch file{1..100}.txt"),
    "a number range in a loop": ({}, "for i in {1..100}; do echo $i; done"),
    "a letter range of folders": ({}, "mkdir -p out/{a..c}"),
    "a padded range": ({}, "cp x.txt backup{01..03}.txt"),
    "rm of a number range": ({}, "rm -f log{1..5}.txt"),
    "ansible ping": ({}, "ansible all -m ping -e env=prod"),
    "ansible service": ({}, "ansible web -m service -a 'name=nginx state=restarted'"),
    "ansible-console alone": ({}, "ansible-console localhost"),
    "a computed value into python": ({}, 'x=$(date); echo "$x" | python3 log.py'),
    "a computed value into tee": ({}, 'x=$(date); echo "$x" | tee log'),
    "a here-string of a computed value": ({}, 'read x; grep foo <<< "$x"'),
}


@pytest.mark.parametrize(
    ("case", "allowed", "session"), verdict_cases({**STORED, **SPLICED, **ODD_FOLDER, **SEQUENCE, **ANSIBLE}, NEAR)
)
def test_stored_and_spliced_text_is_judged_where_a_shell_reads_it(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# closed by open35 (Analyzer.spliced_args, follow._SPLICED_KINDS; tests/redteam/test_open35.py)
@pytest.mark.parametrize("case", list(OPEN.values()), ids=list(OPEN))
def test_open_spliced_routes(plain_project: tuple[Path, Engine], case: Case) -> None:
    assert_verdict(plain_project, case, False, f"open-{case[1][:40]}")


HARM = {
    "git log --format=%s": f"git init -q; git -c user.name=a -c user.email=a@b commit -q --allow-empty -m '{P}'; "
    "git log -1 --format=%s | sh",
    "git config": f"git init -q; git config x.y '{P}'; git config x.y | sh",
    "readlink": f"ln -s '{P}' l; readlink l | sh",
    "ls": f"mkdir d; touch 'd/{P}'; ls d | sh",
    "pwd": "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && pwd | sh",
    "git config into eval": f"git init -q; git config x.y 'a;{P}'; x=$(git config x.y); eval \"echo $x\"",
    "a substitution in -c": L + 'sh -c "echo $(readlink l)"',
    "a file's text in -c": f"echo 'a;{P}' > f; read x < f; x=$(cat f); sh -c \"echo $x\"",
    "a loop over a glob": f"touch 'x;{P}'; for f in *; do sh -c \"echo $f\"; done",
    "find -exec sh -c": f"touch 'x;{P}'; find . -type f -exec sh -c 'echo {{}}' \\;",
    "xargs -I{} sh -c": f"touch 'x;{P}'; ls | xargs -I{{}} sh -c 'echo {{}}'",
    "$PWD in bash -c": "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && bash -c \"ls $PWD\"",
    "$PWD into sh": "mkdir -p ';rm -rf ~;' && cd ';rm -rf ~;' && echo $PWD | sh",
    "a computed value echoed into sh": L + 'x=$(readlink l); echo "echo $x" | sh',
    "a computed value in a here-string": L + 'x=$(readlink l); bash <<< "echo $x"',
    "a letter range": "cat ~/.{r..t}sh/id_*",
    "a range with a step": "cat ~/.s{a..z..18}h/id_*",
}

# the real ansible-core (the dev extra), against localhost, as tests/redteam/test_lead34_ansible.py
ANSIBLE_HARM = {
    "a pipe lookup": "ansible localhost -m debug -a \"msg={{ lookup('pipe','rm -rf ~') }}\"",
    "a file lookup": "ansible localhost -m debug -a \"msg={{ lookup('file','~/.ssh/id_ed25519') }}\"",
    "JSON arguments": 'ansible localhost -m file -a \'{"path": "~", "state": "absent"}\'',
    "a path from -e": "ansible localhost -m file -a 'path={{p}} state=absent' -e p=~",
    "ansible-console's input": "echo 'file path=~ state=absent' | ansible-console localhost",
}


@pytest.mark.parametrize("payload", list(HARM.values()), ids=list(HARM))
def test_stored_and_spliced_text_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload)


@pytest.mark.parametrize("payload", list(ANSIBLE_HARM.values()), ids=list(ANSIBLE_HARM))
def test_computed_ansible_arguments_do_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ansible = Path(sys.executable).parent / "ansible"
    if not ansible.is_file():
        pytest.skip("ansible-core (the dev extra) is not installed")
    monkeypatch.setenv("PATH", f"{ansible.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload)
