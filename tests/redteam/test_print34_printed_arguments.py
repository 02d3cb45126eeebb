"""print34 (issue 8): a program printing its own arguments (or a text in them) into a shell.

pipe33 computed what `echo`/`printf` print; every other program's output was taken as nothing a shell
could run (`yes CMD | sh`, `basename CMD | sh`, `date +CMD | sh`, `awk 'BEGIN{print "CMD"}' | sh` were
allowed). Now (shell.Analyzer._printed_of):

1. the Programs table says how a program's output is computed from its words (`prints:`,
   policies/printers.yaml: yes, basename/dirname, expr, shuf -e, date +FORMAT, seq -f/-s, printenv
   NAME, env with no command); a text computed exactly is judged as the line a shell after it runs (deny here);
2. a text computed in a way not evaluated here (a format's %-sequences, an inline program: `prints:
   code` on awk, node, deno, bun, ruby, perl, python, jq) feeds the shell as `$printed`
   (policies/exec.yaml printed_code: asks), and so does an inline program a stage hands on (`deno eval`);
3. the general rule: a program described nowhere whose words hold shell text (a space, an operator, a
   quote) may print them (`stat -c CMD . | sh`, `numfmt --format=CMD`, `./tool CMD | sh`): it asks.

Verdicts in one module project (each case in its own session); one real harm run per family under bash.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, live_then_stopped, verdict_cases

P = "rm -rf ~"

COMPUTED: dict[str, Case] = {
    "yes": ({}, f"yes '{P}' | sh"),
    "yes | head -1": ({}, f"yes '{P}' | head -1 | sh"),
    "yes, one word": ({}, "yes reboot | head -n1 | bash"),
    "basename": ({}, f"basename '{P}' | sh"),
    "basename -s": ({}, f"basename -s .sh 'a/{P}.sh' | sh"),
    "basename -a": ({}, f"basename -a x/ls 'y/{P}' | bash -s"),
    "dirname": ({}, f"dirname '{P}/x' | sh"),
    "expr": ({}, f"expr '{P}' | sh"),
    "shuf -e": ({}, f"shuf -n1 -e '{P}' | sh"),
    "shuf -e among others": ({}, f"shuf -e ls '{P}' | sh"),
    "shuf with -e in a cluster": ({}, f"shuf -ren1 '{P}' | sh"),
    "date +FORMAT": ({}, f"date '+{P}' | sh"),
    "date -u +FORMAT": ({}, f"date -u '+{P}' | zsh"),
    "seq -f": ({}, f"seq -f '{P}' 1 | sh"),
    "seq -s": ({}, f"seq -s ';{P};' 2 | sh"),
    "printenv": ({}, f"x='{P}' printenv x | sh"),
    "through a wrapper": ({}, f"nice -n5 basename '{P}' | sh"),
    "a path to the program": ({}, f"/usr/bin/yes '{P}' | head -1 | sh"),
    "in a function": ({}, f"f() {{ date '+{P}'; }}; f | sh"),
    "in sh -c": ({}, f"bash -c \"basename '{P}'\" | sh"),
    "into xargs sh -c": ({}, f"basename '{P}' | xargs -I{{}} sh -c {{}}"),
    "a word from a substitution": ({}, f"basename \"$(echo '{P}')\" | sh"),
}

NOT_EVALUATED: dict[str, Case] = {
    "awk print": ({}, f"awk 'BEGIN{{print \"{P}\"}}' | sh"),
    "mawk print into bash -s": ({}, f"mawk 'BEGIN{{print \"{P}\"}}' | bash -s"),
    "node console.log": ({}, f"node -e 'console.log(\"{P}\")' | sh"),
    "deno eval": ({}, f"deno eval 'console.log(\"{P}\")' | sh"),
    "bun -p": ({}, f"bun -p '\"{P}\"' | sh"),
    "ruby puts": ({}, f"ruby -e 'puts \"{P}\"' | sh"),
    "perl -le print": ({}, f"perl -le 'print q({P})' | sh"),
    "python print": ({}, f"python3 -c 'print(\"{P}\")' | bash"),
    "jq -rn": ({}, f"jq -rn '\"{P}\"' | sh"),
    "a format with a %-sequence": ({}, f"date '+{P}%n' | sh"),
    "seq -f with %g": ({}, f"seq -f '{P} #%g' 1 | sh"),
    "printenv of a name nobody set here": ({}, "printenv CMD | sh"),
    "env with no command: the environment": ({}, "export x=';rm -rf ~;'; env | sh"),
    "env of an assignment": ({}, "x=';rm -rf ~;' env | sh"),
    "printf with a number": ({}, "printf '%d;rm -rf ~\\n' 1 | sh"),
    "expr of an expression": ({}, "expr substr 'xrm -rf ~' 2 8 | sh"),
    "awk into xargs sh -c": ({}, f"awk 'BEGIN{{print \"{P}\"}}' | xargs sh -c"),
    "awk in sh -c": ({}, f'sh -c "awk \'BEGIN{{print \\"{P}\\"}}\'" | sh'),
    "an undescribed program given shell text": ({}, f"./tool '{P}' | sh"),
    "an undescribed program given a substitution": ({}, f"./tool \"$(echo '{P}')\" | sh"),
    "stat -c": ({}, f"stat -c '{P}' . | sh"),
    "numfmt --format": ({}, f"numfmt --format='{P} %f' 1 | sh"),
}

NEAR: dict[str, Case] = {
    "echo into sh": ({}, "echo 'ls' | sh"),
    "printf into bash": ({}, "printf 'ls\\n' | bash"),
    "yes into rm -i": ({}, "yes | rm -i x.txt"),
    "yes n into cp -i": ({}, "yes n | cp -i a.txt b.txt"),
    "seq into xargs echo": ({}, "seq 3 | xargs -n1 echo"),
    "date into xargs mkdir": ({}, "date +%F | xargs mkdir -p"),
    "date in a substitution": ({}, 'mkdir -p "build-$(date +%Y%m%d)"'),
    "basename in a substitution": ({}, 'echo "$(basename "$PWD")"'),
    "dirname in cd": ({}, 'cd "$(dirname x/y)"'),
    "awk into sort": ({}, "awk '{print $1}' f.txt | sort | uniq -c"),
    "jq into head": ({}, "jq -r '.name' package.json | head -1"),
    "git log --format into head": ({}, "git log --format='%h %s' | head"),
    "a harmless computed line": ({}, "basename /usr/bin/ls | sh"),
    "sh -c echo into sh": ({}, "sh -c 'echo hi' | sh"),
    "cat a script into bash": ({}, "cat script.sh | bash"),
    "make into sh": ({}, "make | sh"),
    # ("ls | sh" was a near miss here: ls prints names an earlier command may have made any text,
    # `mkdir d; touch 'd/rm -rf ~'; ls d | sh` deletes HOME: a payload of tests/redteam/test_redt34.py)
    "env into grep": ({}, "env | grep PATH"),
    "env running a program into sh": ({}, "env FOO=1 make | sh"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases({**COMPUTED, **NOT_EVALUATED}, NEAR))
def test_printed_arguments_are_judged_where_a_shell_reads_them(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


HARM = {
    "yes | head -1": f"yes '{P}' | head -1 | sh",
    "basename": f"basename '{P}' | sh",
    "dirname": f"dirname '{P}/x' | bash",
    "expr": f"expr '{P}' | sh",
    "shuf -e": f"shuf -n1 -e '{P}' | sh",
    "date +FORMAT": f"date '+{P}' | sh",
    "seq -f": f"seq -f '{P} #%g' 1 | sh",
    "printenv": f"x='{P}' printenv x | sh",
    "awk print": f"awk 'BEGIN{{print \"{P}\"}}' | sh",
    "an undescribed program": f"stat -c '{P}' . | sh",
    "env printing the environment": "export x=';rm -rf ~;'; env | sh",
    "eval of a substitution": f"eval \"$(basename '{P}')\"",
    "sh -c of a substitution": f"sh -c \"$(date '+{P}')\"",
    "a here-string of a substitution": f"bash <<< \"$(expr '{P}')\"",
    "xargs sh -c": f"basename '{P}' | xargs -I{{}} sh -c {{}}",
}

# interpreters a CI machine may lack (.ci/install-peers installs node; perl is Debian's base)
INTERPRETED = {
    "node": f"node -e 'console.log(\"{P}\")' | sh",
    "perl": f"perl -le 'print q({P})' | sh",
    "ruby": f"ruby -e 'puts \"{P}\"' | sh",
    "jq": f"jq -rn '\"{P}\"' | sh",
    "python3": f"python3 -c 'print(\"{P}\")' | bash",
}


@pytest.mark.parametrize("payload", list(HARM.values()), ids=list(HARM))
def test_a_program_printing_its_arguments_into_a_shell_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload)


@pytest.mark.parametrize("program", list(INTERPRETED))
def test_an_inline_program_printing_into_a_shell_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], program: str
) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (.ci/install-peers installs node)")
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, INTERPRETED[program])
