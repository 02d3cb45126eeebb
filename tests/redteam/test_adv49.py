"""adv49 (stop 49, issue 8): an adversary on main, probing here-documents as bash reads them -- where a body ends
and what text the command on its input receives.

FIXED (each payload was allowed on main and did its harm live; the near misses stay allowed):

1. A delimiter holding an expansion: bash takes the word with its quotes removed and NOTHING expanded (`<<$E` ends
   at a line `$E`, `<<${E}` at `${E}`, `<<$(E)` at `$(E)`), the lexer took the expansion's name (`E`). So in
   `cat <<$E` / `$E` / `rm -rf ~` / `E` the engine read `rm -rf ~` as cat's data, while bash ends the body at `$E`
   and runs `rm -rf ~` (allowed -> denied). The delimiter is the word's raw text now (lexer._delimiter); a word
   mixing an expansion with quotes (`"$E"`, `${x:-'a'}`) is not read for certain (unparseable: asks).
2. A line continued in an unquoted body: bash joins a line ending in an odd run of backslashes with the next BEFORE
   it compares a line with the delimiter, so `bash <<c` / `echo 'rm -rf ~' >> ~/.bashr\\` / `c` / `c` runs
   `echo 'rm -rf ~' >> ~/.bashrc` (the first `c` continues the line) while the lexer ended the body at the first `c`
   and judged a write of `~/.bashr\\` (allowed -> asks); `bash <<h/id_ed25519` with `cat ~/.ss\\` printed the key
   (allowed -> asks). The lexer joins such lines as bash does (quoted delimiters keep them).
3. An unquoted body's escapes: bash removes the backslash of `\\$`, `` \\` `` and `\\\\` before the command reads the
   body, so `bash <<E` / `rm -rf \\$HOME` / `E` gives the shell `rm -rf $HOME`; the engine read the body as it
   stands (a literal `$HOME`: allowed -> denied). Also `\\\\$HOME`, `` \\`rm -rf ~\\` ``, `x=\\$(echo ~); rm -rf
   "\\$x"`, `sh -s`, `. /dev/stdin`, `cat <<E | sh`, and `cat > y.sh <<E ...; sh y.sh` (the file's text). The
   text a reader gets is lexer.heredoc_text(body).
4. A value the line set, pasted into an unquoted body: bash pastes `$x`'s text into the body and the reader parses
   it, so `x=';'; bash <<E` / `echo a$x rm -rf ~` / `E` runs `rm -rf ~` (also a newline, `|`, `&&`); the engine let
   the reader expand `$x` as a word (allowed -> denied). A known value that is not a plain word is pasted into the
   text read (shell.Analyzer._pasted_value); a plain one (`v=1.2.3`) is still read as `$v`. Any reader: a python
   body `print("$x")` with `x='"); import os; os.system("rm -rf ~"); print("'` ran rm (allowed -> denied).

OPEN: no strict xfail in this family. Read for certain no longer but not exactly: a delimiter mixing an expansion
with quotes (`<<"$E"`, bash's delimiter `$E`) asks as unparseable. Noticed, not fixed (no live harm shown here):
BSD/macOS `apply 'rm -rf %1' ~` runs `rm -rf ~` and is allowed (apply is not installed on this Linux host, and no
Programs row describes it); decode_ansi_c differs from bash on `$'\\x'`, `$'\\u'` without digits (bash keeps the
backslash) and `$'\\c?'` (bash: DEL), none of which was found to hide a command.

Held (probed, no hole): here-strings, `read`/`mapfile` from bodies, bodies inside `$(...)`/backquotes, multiple
bodies on a line, `<<-`, a newline inside `$(`/quotes before the body, arithmetic `<<` (`$[1<<E]`, `((x<<E))`),
carriers (command/builtin/exec/nice/ionice/chrt/taskset/stdbuf/setpriv/unshare/busybox/toybox/coproc/time),
`trap`/`PS4`/`command_not_found_handle`/history writers, `${x@P}`, brace-built options, find/dd/install/ln writers
of the engine's files, python/node/perl/ruby writers through computed home paths, the terminal's `cwd` (confined by
the handler), the file tools through `../` and links, process write to a background python -i / node -i / bash.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    SECRET,
    Case,
    assert_verdict,
    background_writes,
    blocked,
    harm_project,
    policy_project,
    run_confined,
)

# -- the payloads (each allowed on main) ---------------------------------------------------------------------------
PAYLOADS: dict[str, Case] = {
    # 1. the delimiter holding an expansion: the body ends at its raw text
    "delimiter-var": ({}, "cat <<$E\n$E\nrm -rf ~\nE"),
    "delimiter-braced": ({}, "cat <<${E}\n${E}\nrm -rf ~\nE"),
    "delimiter-substitution": ({}, ": <<$(E)\n$(E)\necho 'rm -rf ~' >> ~/.bashrc\nE"),
    "delimiter-tabs": ({}, "cat <<-$E\n\t$E\ncat ~/.ssh/id_ed25519\nE"),
    "delimiter-redirected": ({}, "cat <<$E >/dev/null\n$E\nrm -rf ~\nE"),
    "delimiter-backquote": ({}, "cat <<`E`\n`E`\nrm -rf ~\nE"),
    "delimiter-arithmetic": ({}, "cat <<$((1))\n$((1))\nrm -rf ~\n1"),
    "delimiter-quoted-var": ({}, 'cat <<"$E"\n$E\nrm -rf ~\nE'),
    # 2. a continued line in an unquoted body runs past a delimiter line
    "continued-bashrc": ({}, "bash <<c\necho 'rm -rf ~' >> ~/.bashr\\\nc\nc"),
    "continued-rc": ({}, "bash <<rc\necho 'rm -rf ~' >> ~/.bash\\\nrc\nrc"),
    "continued-key": ({}, "bash <<h/id_ed25519\ncat ~/.ss\\\nh/id_ed25519\nh/id_ed25519"),
    "continued-tabs": ({}, "bash <<-c\n\techo 'rm -rf ~' >> ~/.bashr\\\nc\n\tc"),
    # 3. an unquoted body's `\$`, `\``, `\\` escapes: what the reader gets
    "escaped-home": ({}, "bash <<E\nrm -rf \\$HOME\nE"),
    "escaped-braced-home": ({}, "sh <<E\nrm -rf \\${HOME}\nE"),
    "escaped-backslash-home": ({}, "bash <<E\nrm -rf \\\\$HOME\nE"),
    "escaped-backquote": ({}, "bash <<E\n\\`rm -rf ~\\`\nE"),
    "escaped-variable": ({}, 'bash <<E\nx=\\$(echo ~); rm -rf "\\$x"\nE'),
    "escaped-pipe": ({}, "cat <<E | sh\nrm -rf \\$HOME\nE"),
    "escaped-stdin-flag": ({}, "sh -s <<E\nrm -rf \\$HOME\nE"),
    "escaped-source": ({}, ". /dev/stdin <<E\nrm -rf \\$HOME\nE"),
    "escaped-written-script": ({}, "cat > y.sh <<E\nrm -rf \\$HOME\nE\nsh y.sh"),
    "escaped-bashrc": ({}, "sh <<E\necho 'rm -rf \\$HOME' >> \\$HOME/.bashrc\nE"),
    # a script the session wrote with the file tool, run by a later call: read with the same lexer
    "written-file-delimiter": ({"y.sh": "cat <<$E\n$E\nrm -rf ~\nE\n"}, "sh y.sh"),
    "written-file-escaped": ({"y.sh": "bash <<E\nrm -rf \\$HOME\nE\n"}, "bash y.sh"),
    # 4. a value the line set, pasted into the body: the reader parses it
    "pasted-semicolon": ({}, "x=';'; bash <<E\necho a$x rm -rf ~\nE"),
    "pasted-newline": ({}, "x=$'\\n'; bash <<E\necho a${x}rm -rf ~\nE"),
    "pasted-pipe": ({}, "x='|'; bash <<E\necho a $x sh -c 'rm -rf ~'\nE"),
    "pasted-and": ({}, "x='&&'; sh <<E\ntrue $x rm -rf ~\nE"),
    "pasted-python": ({}, 'x=\'"); import os; os.system("rm -rf ~"); print("\'; python3 - <<E\nprint("$x")\nE'),
}

# ordinary here-documents near the payloads: allowed on main and after the fixes
NEAR_MISSES: dict[str, Case] = {
    "escaped-dollar-data": ({}, "cat <<EOF > notes.md\nprice: \\$5 and \\`code\\`\nEOF"),
    "escaped-echo-home": ({}, "bash <<EOF\necho \\$HOME\nEOF"),
    "python-escapes": ({}, 'python3 - <<EOF\nprint("a\\\\nb")\nEOF'),
    "continued-data": ({}, "cat <<EOF\nline \\\ncontinued\nEOF"),
    "commit-message": ({}, "git commit -F - <<EOF\nmsg with \\$var\nEOF"),
    "quoted-continuation": ({}, "sh <<'EOF'\necho $x \\\nEOF"),
    "continued-shell-line": ({}, "bash <<EOF\nls \\\n  -la\nEOF"),
    "windows-path": ({}, "cat <<EOF > a.txt\nC:\\\\path\\\\to\nEOF"),
    "loop": ({}, 'bash <<EOF\nfor f in *.py; do echo "\\$f"; done\nEOF'),
    "tabs-continued": ({}, "cat <<-EOF > b.txt\n\ta \\\n\tb\n\tEOF"),
    "quoted-delimiter": ({}, 'cat <<"EOF"\nx\nEOF'),
    "continued-into-delimiter-word": ({}, "bash <<E\necho \\\nE\nE"),
    "pasted-word": ({}, "v=1.2.3; bash <<E\necho $v\nE"),
    "pasted-message": ({}, "m='fix: a bug'; git commit -F - <<E\n$m\nE"),
    "pasted-spaces": ({}, "m='hello world'; bash <<E\necho $m\nE"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv49", "kind: ApprovalPolicy\n") as project:
        yield project


@pytest.mark.parametrize(
    ("case", "allowed", "session"),
    [pytest.param(case, False, f"payload-{name}", id=f"payload-{name}") for name, case in PAYLOADS.items()]
    + [pytest.param(case, True, f"near-{name}", id=f"near-{name}") for name, case in NEAR_MISSES.items()],
)
def test_verdicts(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- the harm, live under a real bash with a fake HOME, then refused through the terminal ---------------------------
DELETING = [
    "cat <<$E\n$E\nrm -rf ~\nE",
    "cat <<${E}\n${E}\nrm -rf ~\nE",
    "cat <<`E`\n`E`\nrm -rf ~\nE",
    "bash <<E\nrm -rf \\$HOME\nE",
    "bash <<E\nrm -rf \\\\$HOME\nE",
    "bash <<E\n\\`rm -rf ~\\`\nE",
    'bash <<E\nx=\\$(echo ~); rm -rf "\\$x"\nE',
    "cat <<E | sh\nrm -rf \\$HOME\nE",
    ". /dev/stdin <<E\nrm -rf \\$HOME\nE",
    "cat > y.sh <<E\nrm -rf \\$HOME\nE\nsh y.sh",
    "x=';'; bash <<E\necho a$x rm -rf ~\nE",
    "x='&&'; sh <<E\ntrue $x rm -rf ~\nE",
    'x=\'"); import os; os.system("rm -rf ~"); print("\'; python3 - <<E\nprint("$x")\nE',
]


@pytest.mark.parametrize("payload", DELETING)
def test_deleting_payloads_live_then_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, payload: str) -> None:
    home, _, printed = run_confined(tmp_path / "unguarded", payload)
    assert not home.exists() or not (home / "notes.txt").exists(), printed
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, guarded_home, _):
        blocked(engine, guarded_home, payload)


def test_continued_line_writes_the_bashrc_live_then_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first `c` continues `~/.bashr\\`: bash appends `rm -f ~/notes.txt` to ~/.bashrc; the next shell runs it."""
    payload = "bash <<c\necho 'rm -f ~/notes.txt' >> ~/.bashr\\\nc\nc"
    home, _, printed = run_confined(tmp_path / "unguarded", payload + "\nbash -c '. ~/.bashrc'")
    assert (home / ".bashrc").read_text() == "rm -f ~/notes.txt\n", printed
    assert not (home / "notes.txt").exists()
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, guarded_home, _):
        blocked(engine, guarded_home, payload)
        assert not (guarded_home / ".bashrc").exists()


def test_continued_line_prints_the_key_live_then_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = "bash <<h/id_ed25519\ncat ~/.ss\\\nh/id_ed25519\nh/id_ed25519"
    _, _, printed = run_confined(tmp_path / "unguarded", payload)
    assert SECRET in printed
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, guarded_home, _):
        blocked(engine, guarded_home, payload)


def test_near_misses_do_what_they_say_live(tmp_path: Path) -> None:
    """The readings match bash: a continued data line joins, `\\$` prints `$`, a quoted body keeps its backslash."""
    home, cwd, printed = run_confined(tmp_path, "cat <<EOF\nline \\\ncontinued\nEOF\nbash <<EOF\necho \\$HOME\nEOF")
    assert printed.splitlines() == ["line continued", str(home)]
    assert home_intact(home) and cwd.is_dir()


# -- the same bodies written line by line to a background shell (process write): each write judged with what it holds
WRITTEN_LINES = {
    "delimiter-var": ["cat <<$E\n", "$E\n", "rm -rf ~/.ssh\n", "E\n"],
    "pasted-semicolon": ['x=";"\n', "bash <<E\n", "echo a$x rm -rf ~/.ssh\n", "E\n"],
}


@pytest.mark.parametrize("name", sorted(WRITTEN_LINES))
def test_lines_written_to_a_background_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Live: bash reading the lines deletes ~/.ssh; through process write one of the writes is refused, the key kept."""
    lines = WRITTEN_LINES[name]
    home, _, printed = run_confined(tmp_path / "unguarded", "bash <<'Z'\n" + "".join(lines) + "Z")
    assert not (home / ".ssh").exists(), printed
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, guarded_home, _):
        results = background_writes(engine, "bash", lines)
        assert any(not r.ok for r in results), [r.output for r in results]
        assert home_intact(guarded_home)
