"""Configuration files a program loads and that run commands (stop 27, issue 8).

`tmux -f FILE` / `tmux source-file FILE` (run-shell, if-shell, a default-command, `bind KEY
run-shell ...`), `screen -c FILE` (exec, screen, backtick), `vim -u VIMRC` / `nvim -u` (`:!`,
system()), `lldb -s/-S/-K FILE` (`platform shell`, `script`), less's lesskey source
(`--lesskey-src`, LESSKEY_SRC: `shell`/`pipe` actions, an #env LESSOPEN). A file the line or
the session wrote is read (executors.yaml `as: file` runs; executors.config_commands reads tmux,
screen and lesskey files, the ex reader vim's and lldb's); a config nobody wrote here stays as
before (not read), and a lesskey file nobody can read (compiled) asks. (env46) lldb's command files
(`-s`/`-S`/`-K`) are read as gdb's `-x`: one nobody wrote here asks (tests/redteam/test_env46.py).

These are verdict tests only: nothing runs (a tmux or screen server started by a test would run
its jobs outside any fake HOME).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge

RM = "rm -rf ~"

# name -> (file name, its text, the command that loads it)
CONFIGS: dict[str, tuple[str, str, str]] = {
    "tmux -f, run-shell": ("t.conf", f'run-shell "{RM}"\n', "tmux -f t.conf new -d"),
    "tmux -f, if-shell": ("t.conf", f"if-shell '{RM}' 'display x'\n", "tmux -f t.conf"),
    "tmux -f, default-command": ("t.conf", f'set -g default-command "{RM}"\n', "tmux -f t.conf new-session -d"),
    "tmux -f, a key bound to run-shell": ("t.conf", f"bind-key -n F5 run-shell '{RM}'\n", "tmux -L x -f t.conf"),
    "tmux -f, two commands on a line": ("t.conf", f"set -g mouse on \\; run -b '{RM}'\n", "tmux -f t.conf"),
    "tmux source-file": ("t.conf", f'run-shell "{RM}"\n', "tmux source-file t.conf"),
    "tmux source (alias)": ("t.conf", f'new-window "{RM}"\n', "tmux source t.conf"),
    "screen -c, exec": ("rc", f"exec {RM}\n", "screen -c rc -dm"),
    "screen -c, a window": ("rc", f"screen -t w sh -c '{RM}'\n", "screen -c rc"),
    "screen -c, backtick": ("rc", f"backtick 1 60 60 sh -c '{RM}'\n", "screen -c rc -dmS s"),
    "vim -u, :!": ("vimrc", f":!{RM}\n", "vim -u vimrc x.txt"),
    "nvim -u, system()": ("init.vim", f"call system('{RM}')\n", "nvim -u init.vim"),
    "vim -U (gvimrc)": ("g.vim", f"silent !{RM}\n", "gvim -U g.vim"),
    "lldb -s, platform shell": ("cmds", f"platform shell {RM}\n", "lldb -s cmds ./a.out"),
    "lldb -S, script": ("cmds", f"script import os; os.system('{RM}')\n", "lldb -S cmds"),
    "lldb --source": ("cmds", f"shell {RM}\n", "lldb --source cmds -b"),
    "tmux -f, a hook's run-shell": ("t.conf", f"set-hook -g session-created \"run-shell '{RM}'\"\n", "tmux -f t.conf"),
    "tmux -f, a status format's #()": ("t.conf", f'set -g status-right "#({RM})"\n', "tmux -f t.conf new -d"),
    "tmux -f, a sourced file": ("t.conf", "source-file a.conf\n", f"printf %s 'run \"{RM}\"' > a.conf; tmux -f t.conf"),
    "vim -u, an autocmd": ("vimrc", f"autocmd VimEnter * silent !{RM}\n", "vim -u vimrc"),
    "vim -u, an autocmd in a group": ("vimrc", f"au! mine BufRead *.txt ++once !{RM}\n", "vim -u vimrc x.txt"),
    "vim -u, an execute string": ("vimrc", f"exe '!{RM}'\n", "vim -u vimrc"),
    "nvim -u init.lua": ("init.lua", f"os.execute('{RM}')\n", "nvim -u init.lua"),
    "less --lesskey-src, shell action": ("keys", f"#command\n! shell {RM}\n", "less --lesskey-src=keys README"),
    "LESSKEY_SRC, pipe action": ("keys", f"#command\n| pipe m{RM}\n", "LESSKEY_SRC=keys less README"),
    "lesskey #env LESSOPEN": ("keys", f"#env\nLESSOPEN=|{RM} %s\n", "less --lesskey-src keys README"),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_config_written_on_the_line_is_read(engine: Engine, name: str) -> None:
    path, text, command = CONFIGS[name]
    line = f"printf %s {shlex.quote(text)} > {path}; {command}"
    verdict = judge(engine, line)
    assert verdict.decision == "deny", (name, verdict)


@pytest.mark.parametrize("name", ["tmux -f, run-shell", "screen -c, exec", "vim -u, :!", "lldb -s, platform shell"])
def test_a_config_the_session_wrote_earlier_is_read(work_engine: Engine, work: Path, name: str) -> None:
    path, text, command = CONFIGS[name]
    memory = work_engine.session_memory
    memory.wrote("s1", str(work), path, text)
    evaluator = work_engine._evaluator(work_engine.snapshot)
    verdict = evaluator.verdict("terminal", {"command": command}, memory.view("s1", str(work)))
    assert verdict.decision == "deny", (name, verdict)
    # another session never wrote it: its text is not read (env46: lldb's command files are read as gdb's -x, an
    # escape hatch: one nobody wrote here asks)
    other = evaluator.verdict("terminal", {"command": command}, memory.view("s2", str(work))).decision
    assert other == ("ask" if command.startswith("lldb") else "allow"), (name, other)


def test_a_compiled_lesskey_file_written_on_the_line_asks(engine: Engine) -> None:
    verdict = judge(engine, "printf '\\0\\1x' > keys; less -k keys README")
    assert verdict.decision != "allow", verdict


NEAR_MISSES: dict[str, tuple[str, str, str]] = {
    "a plain tmux.conf": (
        "t.conf",
        "set -g mouse on\nset -g history-limit 10000\nbind | split-window -h\n",
        "tmux -f t.conf new -d",
    ),
    "a plain screenrc": ("rc", "startup_message off\ndefscrollback 5000\n", "screen -c rc -dm"),
    "a plain vimrc": ("vimrc", "set number\nsyntax on\nnnoremap <leader>w :w<CR>\n", "vim -u vimrc x.txt"),
    "lldb breakpoints": ("cmds", "breakpoint set -n main\nrun\nbt\n", "lldb -s cmds ./a.out"),
    "lesskey bindings": ("keys", "#command\nj forw-line\nk back-line\n", "less --lesskey-src=keys README"),
    "a vimrc with autocmds": (
        "vimrc",
        'autocmd FileType python setlocal ts=4\nau BufWritePre *.py :%s/\\s\\+$//e\nexe "normal! gg"\n',
        "vim -u vimrc x.py",
    ),
    "a clock in the status line": ("t.conf", "set -g status-right '#(date +%H:%M)'\n", "tmux -f t.conf new -d"),
    "an init.lua setting options": ("init.lua", "vim.opt.number = true\n", "nvim -u init.lua"),
    "an harmless run-shell": ("t.conf", "run-shell 'echo ready'\n", "tmux -f t.conf new -d"),
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_a_harmless_written_config(engine: Engine, name: str) -> None:
    path, text, command = NEAR_MISSES[name]
    line = f"printf %s {shlex.quote(text)} > {path}; {command}"
    assert judge(engine, line).decision == "allow", line


@pytest.mark.parametrize(
    "command",
    [
        "tmux -f /dev/null new -d",
        "tmux new -d",
        "vim -u NONE x.txt",
        "vim -u NORC -N x.txt",
        "nvim -u DEFAULTS",
        "vim -u ~/.vimrc x.txt",
        "screen -c /etc/screenrc -ls",
        "less -k keys README",
    ],
)
def test_near_miss_a_config_nobody_wrote_here_is_not_read(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
