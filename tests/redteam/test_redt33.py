"""redt33 (stop 33, issue 8): an adversary on the stop's merged changes (pipe33, perfa33, perfb33,
adv33, gen33), as a caller controlling only the command text and the files it writes.

Found and closed here (allowed on the trial merge, flagged at d2c400e):
- adv33's `${x:-w}` of a lowercase name "no child inherits" (shell.py `_inherited`) held for the
  lines of a child process too, whose environment its parent sets: `env x=/ sh -c 'rm -rf
  ${x:-tmp}'` (rm -rf /), `sudo x=... sh -c`, `env x=/ awk 'BEGIN{system(...)}'`, `nice env`,
  `exec env`. A line another process runs (`Analyzer.children`) now inherits any name: both readings,
  as at d2c400e.
- perfb33's quiet shortcut (`_Index.candidates`: no prefilter's fragment in the command's text, so no
  name-less matcher) met adv33's extglob reading, which reads a path past its text: `cat /e@(t)c/shadow`,
  `cat ~/.!(x)`, `cat /etc/!(x)` were allowed where the reference path (every matcher) asked. A text
  with an extglob group is not quiet (evaluate.py `_EXTGLOB_GROUP`).

Open (xfail strict; each is allowed and bash runs the harm):
- adv33's make built-in variables take make's default (CC=cc, MAKE=make, CFLAGS empty) although the
  command line or the environment overrides them: `make x CC=rm` / `CC=rm make x` with a recipe
  `$(CC) -rf ~` runs `rm -rf ~` (flagged at d2c400e: the recipe was read unexpanded). The makefile's
  reading (executors.make_payloads) sees the makefile's text only. (Closed by mk34: the makefile is
  read with make's command line and environment; harm runs in test_mk34_make_variables.py.)
- adv33's extglob reading makes a group naming a dot `..`, but bash 5.2 (globskipdots) never matches
  `..` and does match a hidden name: `~/@(.ssh)/id_*`, `@(.env)`, `.@(env)`, `~/@(.bashrc)` (also
  allowed at d2c400e).
- pipe33's "a shell payload reads the outer input" (closed by pipe34 up to the printed arguments: see
  tests/redteam/test_pipe34_reach.py): not when the inner shell's input is redirected from
  /dev/stdin or /dev/fd/0 (`echo CMD | sh -c 'sh < /dev/stdin'`, `| (sh < /dev/fd/0)`); a compound's
  output into `>(sh)` (`{ echo CMD; } > >(sh)`, while `echo CMD > >(sh)` is judged); GNU parallel
  with a command (`echo CMD | parallel sh -c`: parallel alone is judged); a fifo made by mknod or
  made earlier (`mknod p p; sh < p & echo CMD > p`); a file written through a descriptor opened by
  `exec 3<>F` (`exec 3<>f.sh; echo CMD >&3; sh f.sh`); a program printing its own arguments into a
  shell (`yes CMD | sh`, `basename CMD | sh`, `date +CMD | sh`, `awk 'BEGIN{print "CMD"}' | sh`, `node
  -e 'console.log("CMD")' | sh`). All allowed at d2c400e too.

Held (tests below): 60+ other spellings of printed text into a shell (fifos by mkfifo, coprocesses,
`exec 3<&0`, `read; eval`, `while read`, xargs -I{}, tee >(sh), process substitution); perfa33's plain
line scan against the full Lexer over generated lines with control characters, CR, `!`, `[[` (the
only difference, `[[ a || b ]]` split at `||`, reads more commands, not fewer); perfb33's kept lands
and quiet shortcut against files replaced by links after a check (each second verdict equals a fresh
engine's); adv33's %XX bound (300 escapes or `%` signs beside a spelled metadata host still ask).

Verdicts only (one module-scoped engine); no payload runs.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.policy import lexer
from tests.conftest import REPO
from tests.redteam.conftest import assert_judged_as_fresh, make_home

P = "rm -rf ~"

# adv33's default of a lowercase name, inside a line whose environment its parent sets (closed here).
CHILD_ENVIRONMENT = {
    "env sh -c": "env x=/ sh -c 'rm -rf ${x:-tmp}'",
    "env quoted": "env x=/ sh -c 'rm -rf \"${x:-tmp}\"'",
    "env -i": "env -i x='rm -rf' sh -c '${x:-ls} ~'",
    "env program": "env x=rm sh -c '${x:-echo} -rf ~'",
    "env = operator": "env x=rm sh -c '${x=echo} -rf ~'",
    "env -S": "env -S \"x=/ sh -c 'rm -rf \\${x:-tmp}'\"",
    "/usr/bin/env": "/usr/bin/env x='rm -rf' sh -c '${x:-ls} ~'",
    "busybox env": "busybox env x='rm -rf' sh -c '${x:-ls} ~'",
    "sudo VAR=": "sudo x='rm -rf' sh -c '${x:-ls} ~'",
    "nice env": "nice env x=/ sh -c 'rm -rf ${x:-tmp}'",
    "exec env": "exec env x=/ sh -c 'rm -rf ${x:-tmp}'",
    "env env": "env x=/ env sh -c 'rm -rf ${x:-tmp}'",
    "env awk system": "env x=/ awk 'BEGIN{system(\"rm -rf ${x:-tmp}\")}'",
}

# Still allowed: the intended reading of adv33 at the top of a line (no parent sets x).
TOP_LEVEL_DEFAULTS = ["${x:-ls} -la", "${x-ls} -la", "export x; ${x:-ls} -la"]

_MAKE_CC = "printf 'x:\\n\\t$(CC) -rf ~\\n' > Makefile; "
MAKE_OVERRIDES = {
    "make CC= after": _MAKE_CC + "make x CC=rm",
    "make CC= before": _MAKE_CC + "make CC=rm x",
    "CC= in the environment": _MAKE_CC + "CC=rm make x",
    "${CC} in the environment": "printf 'x:\\n\\t${CC} -rf ~\\n' > Makefile; CC=rm make x",
    "MAKE=": "printf 'x:\\n\\t$(MAKE) -rf ~\\n' > Makefile; make x MAKE=rm",
    "CFLAGS in the environment": "printf 'x:\\n\\t$(CC) $(CFLAGS) x.c\\n' > Makefile; CFLAGS='; rm -rf ~' make x",
    "computed name": "printf 'C = C\\n$(C)C = rm -rf ~;\\nx:\\n\\t$(CC) -o x x.c\\n' > Makefile; make x",
}

# perfb33's quiet shortcut (_Index.candidates) searched the command's text for the prefilters' path
# fragments, which an extglob group reads past (closed here): allowed, the reference asked.
EXTGLOB_QUIET = {
    "/etc/!(x)": "shopt -s extglob\ncat /etc/!(x)",
    "/e@(t)c/shadow": "shopt -s extglob\ncat /e@(t)c/shadow",
    "~/.!(x)": "shopt -s extglob\ncat ~/.!(x)",
    "~/.n@(e)trc": "shopt -s extglob\ncat ~/.n@(e)trc",
}

EXTGLOB_HIDDEN = {
    "key folder": "shopt -s extglob\ncat ~/@(.ssh)/id_*",
    ".env group": "shopt -s extglob\ncat @(.env)",
    ".env dot outside": "shopt -s extglob\ncat .@(env)",
    ".bashrc": "shopt -s extglob\ncp x ~/@(.bashrc)",
    ".bashrc part": "shopt -s extglob\ncp x ~/@(.bash)rc",
}

# Closed by pipe34 (allowed here and at d2c400e): text reaching a shell by these routes.
PIPE_OPEN = {
    "sh -c 'sh < /dev/stdin'": f"echo '{P}' | sh -c 'sh < /dev/stdin'",
    "bash -c 'bash < /dev/fd/0'": f"echo '{P}' | bash -c 'bash < /dev/fd/0'",
    "bash -c 'exec bash < /dev/stdin'": f"echo '{P}' | bash -c 'exec bash < /dev/stdin'",
    "(sh < /dev/fd/0)": f"echo '{P}' | (sh < /dev/fd/0)",
    "group > >(sh)": f"{{ echo '{P}'; }} > >(sh)",
    "subshell > >(bash)": f"(echo '{P}') > >(bash)",
    "if > >(sh)": f"if true; then echo '{P}'; fi > >(sh)",
    "for > >(sh)": f"for i in 1; do echo '{P}'; done > >(sh)",
    "parallel sh -c": f"echo '{P}' | parallel sh -c",
    "parallel bash -c {}": f"echo '{P}' | parallel bash -c {{}}",
    "parallel eval": f"echo '{P}' | parallel eval",
    "mknod fifo": f"mknod p p; sh < p & echo '{P}' > p",
    "mknod fifo as a script": f"mknod p p; bash p & printf '{P}\\n' > p",
    "a fifo made earlier": f"sh < p & echo '{P}' > p",
    "exec 3<> file": f"exec 3<>f.sh; echo '{P}' >&3; sh f.sh",
    "exec 3<> fifo": f"mkfifo p; exec 3<>p; echo '{P}' >&3; sh <&3",
}

# A program that prints its own arguments (or a text in them) into a shell: allowed here and at
# d2c400e (which allowed 27 of the 32 shapes tried, this branch 21); closed by print34.
PRINTED_ARGUMENTS = {
    "yes": f"yes '{P}' | sh",
    "yes | head -1": f"yes '{P}' | head -1 | sh",
    "basename": f"basename '{P}' | sh",
    "expr": f"expr '{P}' | sh",
    "shuf -e": f"shuf -n1 -e '{P}' | sh",
    "date +FORMAT": f"date '+{P}' | sh",
    "seq -f": f"seq -f '{P}' 1 | sh",
    "printenv": f"x='{P}' printenv x | sh",
    "awk print": f"awk 'BEGIN{{print \"{P}\"}}' | sh",
    "node console.log": f"node -e 'console.log(\"{P}\")' | sh",
    "ruby puts": f"ruby -e 'puts \"{P}\"' | sh",
    "jq -rn": f"jq -rn '\"{P}\"' | sh",
}

PIPE_HELD = [
    f"echo '{P}' | sh -c 'exec 3<&0; sh <&3'",
    f"echo '{P}' | {{ exec 3<&0; sh <&3; }}",
    f"echo '{P}' | {{ cat; }} | sh",
    f"echo '{P}' | (cat) | sh",
    f"echo '{P}' | sh -c 'read -r x; eval \"$x\"'",
    f"echo '{P}' | bash -c 'read -r x; $x'",
    f"echo '{P}' | while read l; do $l; done",
    f"echo '{P}' | sh -c 'while read l; do $l; done'",
    f"echo '{P}' | xargs -I{{}} sh -c {{}}",
    # (merge49) xargs splits its input at blanks: `echo '{P}' | xargs sh -c` runs `sh -c rm -rf ~`, a bare rm (no
    # harm: tests/redteam/test_merge49.py); these hand sh the line whole
    f"printf '{P}\\n' | xargs -d '\\n' sh -c",
    f"printf '{P}\\0' | xargs -0 sh -c",
    f"echo '\"{P}\"' | xargs sh -c",
    f"echo '{P}' | tee >(sh)",
    f"echo '{P}' > >(sh)",
    f"echo '{P}' | bash /dev/fd/0",
    f"echo '{P}' | sh -c '. /dev/stdin'",
    f"echo '{P}' | sh < /dev/stdin",
    f"coproc sh; echo '{P}' >&${{COPROC[1]}}",
    f"coproc S {{ sh; }}; echo '{P}' >&\"${{S[1]}}\"",
    f"mkfifo p; sh < p & echo '{P}' > p",
    f"mkfifo p; cat p | sh & echo '{P}' > p",
    f"exec 3>f.sh; echo '{P}' >&3; sh f.sh",
    f"{{ echo '{P}' >&3; }} 3>f.sh; sh f.sh",
    f"echo '{P}' | sed 's/x/y/' | bash",
    f"echo '{P}' | stdbuf -oL cat | sh",
    f"echo '{P}' | base64 | base64 -d | sh",
    f"echo '{P}' | sh -c 'x=$(cat); eval \"$x\"'",
    f"echo '{P}' | bash -c 'mapfile a; eval \"${{a[@]}}\"'",
    f"echo '{P}' | sh -c '\"$0\"' sh",
    f"echo '{P}' | sh -c 'sh <&0'",
    f"echo '{P}' | sh -c 'exec 5<&0; sh <&5'",
    f"echo '{P}' | sh -c 'if true; then sh; fi'",
    f"echo '{P}' | sh -c 'f() {{ read x; $x; }}; f'",
    f"echo '{P}' | git -c alias.x='!sh' x",
    f"echo '{P}' | parallel",
    f"bash <(echo '{P}')",
    "x='rm -rf'; echo \"$x ~\" | sh",
]

_HOST = "%31%36%39.254.169.254"
PERCENT_BOUND = [
    f"curl 'http://x/?{'%41' * 300}' http://{_HOST}/",
    f"curl http://{_HOST}/ -d '{'%' * 300}'",
    f"echo '{'%' * 257}'; curl http://{_HOST}/",
    f"curl http://{_HOST}/ -H 'X: {'%x' * 300}'",
    "curl http://%25%33%31%36%39.254.169.254/",
]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    root = tmp_path_factory.mktemp("redt33")
    home = make_home(root)
    (home / ".bashrc").write_text("# rc\n")
    work = root / "work"
    work.mkdir()
    (work / ".env").write_text("KEY=1\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("XDG_STATE_HOME", str(root / "xdg-state"))
        patch.setenv("XDG_CONFIG_HOME", str(root / "xdg-config"))
        yield root, home, work


@pytest.fixture(scope="module")
def engine(places: tuple[Path, Path, Path]) -> Iterator[Engine]:
    root, _, work = places
    with Engine.load(REPO, config={"workdir": str(work), "state_dir": str(root / "state")}) as loaded:
        yield loaded


def _judged(engine: Engine, command: str) -> tuple[str, tuple[str, ...]]:
    verdict = engine.check(command)
    return verdict.decision, tuple(sorted(m.key for m in verdict.matches))


def _cases(family: str, table: dict[str, str], open_reason: str = "") -> list[Any]:
    """``table``'s commands as parameters named by ``family``; an open family's are xfail(strict)."""
    marks = [pytest.mark.xfail(strict=True, reason=f"redt33 open: {open_reason}")] if open_reason else []
    return [pytest.param(command, id=f"{family}-{name}", marks=marks) for name, command in table.items()]


NOT_ALLOWED = [
    *_cases("child environment", CHILD_ENVIRONMENT),
    *_cases("extglob quiet", EXTGLOB_QUIET),
    *_cases("pipe held", {str(i): command for i, command in enumerate(PIPE_HELD)}),
    *_cases("percent bound", {str(i): command for i, command in enumerate(PERCENT_BOUND)}),
    *_cases("make", MAKE_OVERRIDES),
    *_cases("extglob hidden", EXTGLOB_HIDDEN),
    *_cases("pipe open", PIPE_OPEN),  # closed by pipe34 (tests/redteam/test_pipe34_reach.py)
    # closed by print34 (policies/printers.yaml, shell.Analyzer._printed_of)
    *_cases("printed arguments", PRINTED_ARGUMENTS),
]


@pytest.mark.parametrize("command", NOT_ALLOWED)
def test_payloads_are_not_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision != "allow"


@pytest.mark.parametrize("command", TOP_LEVEL_DEFAULTS)
def test_a_default_at_the_top_of_the_line_stays_its_word(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow"


def test_plain_lines_tokenize_as_the_lexer_reads_them() -> None:
    """perfa33's plain-line scan (_NOT_PLAIN_LINE) against the full Lexer: lines of words, list
    operators, control characters, CR, `!`, `=`, `[`/`]`. Only `[[ a || b ]]` differs (the scan splits
    at `||`: more commands read, not fewer), which is left out here."""
    pieces = [*"ab-~/.=*?![]:,%^+@", "\r", "\x0b", "\x0c", "\x01", "\x7f", " ", "\t", ";", "&", "|"]
    pieces += ["]]", "case", "in", "esac", ";;", "!", "x=1", "{a,b}", "rm", "-rf"]
    rnd = random.Random(33)
    compared = 0
    while compared < 3000:
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 12)))
        if lexer._NOT_PLAIN_LINE.search(text) or "=~" in text or "[[" in text:
            continue
        compared += 1
        try:
            fast = [repr(t) for t in lexer.tokenize(text)]
        except lexer.ShellSyntaxError:
            fast = ["error"]
        try:
            full = [repr(t) for t in lexer.Lexer(text).run()]
        except lexer.ShellSyntaxError:
            full = ["error"]
        assert fast == full, text


def test_kept_lands_follow_files_replaced_by_links(engine: Engine, places: tuple[Path, Path, Path]) -> None:
    """perfb33's kept answers (View.words_land_elsewhere, _Index.candidates' quiet commands) after
    files and folders of the working directory, and one outside it reached by a link, are replaced by
    links to home: each second verdict equals a fresh engine's and is not allow."""
    root, home, work = places
    key = home / ".ssh" / "id_ed25519"
    out = root / "out"
    (out / "d").mkdir(parents=True)
    (out / "d" / "k").write_text("plain\n")
    for folder in ("a/b", "s", "t/u/v"):
        (work / folder).mkdir(parents=True)
    for name in ("f", "g", "h", "a/b/k", "s/k", "t/u/v/k"):
        (work / name).write_text("plain\n")
    os.symlink(out, work / "o")
    commands = ["cat f", "cat a/b/k", "cp g s/k", "cat t/u/v/k", "cat o/d/k", "cat ../out/d/k", "tee h"]
    commands += ["cat f g", "rm -rf t/u", "cat a/*/k", "echo x > g", "cat < f"]
    time.sleep(2.2)  # past landing's racy window: the listings are vouched for, the answers kept
    for command in commands:
        first = _judged(engine, command)
        assert first[0] == "allow" and _judged(engine, command) == first, command
    (work / "f").unlink()
    os.symlink(key, work / "f")
    os.rename(work / "a" / "b", work / "a" / "b0")
    os.symlink(home / ".ssh", work / "a" / "b")
    (work / "s" / "k").unlink()
    os.symlink(home / ".bashrc", work / "s" / "k")
    shutil.rmtree(work / "t" / "u")
    os.symlink(home, work / "t" / "u")
    os.symlink(home / ".ssh", home / "v")
    os.symlink(key, home / ".ssh" / "k")
    (out / "d" / "k").unlink()
    os.symlink(key, out / "d" / "k")
    for name in ("g", "h"):
        (work / name).unlink()
        os.symlink(home / ".bashrc", work / name)
    assert_judged_as_fresh(engine, work, root / "state2", commands)
