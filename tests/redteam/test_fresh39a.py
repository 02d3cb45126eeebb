"""fresh39a (stop 39, issue 8 Build items 1-3): a fresh adversary's carriers and spellings, tried on main as a caller
controlling only the command text. Each payload below was allowed there (but those marked kept: they guard
what a new row of the table must not lose).

- EVERY_MATCH: a `match:` run of the Programs table read only the first place its pattern matched in a value
  (follow._payloads): `octave --eval 'system("true"); system(CMD)'`, `rpm --eval '%(true) %(CMD)'`, gnuplot's
  second `system()`, `tmux display '#(true) x #(CMD)'` (tmux's greedy `#(…)` also swallowed the second one into
  a line the shell reads as a comment). Every match is read now; tmux's `#(…)` ends at its own `)`.
- SQL: sqlite3's (and duckdb's) dot-commands by any prefix (`.sh`, `.she`, `.sy`), `.output`/`.once`/`.import`
  whose file is a quoted `'|CMD'`, psql's `\\g |CMD` / `\\! CMD` after a query on the same line, sqlcmd's `!!CMD`,
  usql's `\\!`, mysql's `pager CMD`, fossil's sqlite3 shell; and the functions that read a file of this machine
  (duckdb's `read_text('~/…')`, ClickHouse's `file()`).
- VCS: hg's `-e/--ssh CMD` and `--remotecmd`, CVS's `-e EDITOR`, darcs' `--posthook/--prehook` (any option named
  `…hook`, `…cmd`, `…command` or with a dotted prefix, air's `--build.cmd`, on a program nobody describes),
  `fossil settings ssh-command CMD`.
- EDITORS: emacsclient's `-e` (a flag: its operands are the expressions), kakoune's `%sh{…}`, vifm's `-c '!CMD'` /
  `+!CMD`, lf's `-command '$CMD'`, vim's `--remote-send ':!CMD<CR>'` / `--remote-expr`, ex commands by their
  abbreviations (gdb's and vim's `she`, `shel`, `:pyt`).
- RUNNERS: `pnpm exec -c` / `pnpm -c exec` (a shell line pnpm joins), `nix shell INSTALLABLE -c CMD`, `meson devenv`,
  `hatch env run`, `bazel run --run_under=CMD`, `sbatch --wrap`, `ctest --test-command`, bmake's `${:!CMD!}`, remake,
  `tox exec`, `repo forall -c`, `west forall -c`, `watchman-make --run`, `uftrace CMD`, `docker compose exec`,
  `deno run 'data:…,CODE'`, `sqlite-utils --functions`, Prolog's / Leiningen's / MATLAB's inline goals, `dc <<< '!CMD'`.
- WRAPPERS: terminal emulators (`xterm -e 'CMD'`, `gnome-terminal -- …`, `kitty CMD`, `wezterm start`), byobu (tmux's
  words), autossh (ssh's remote command), `FZF_DEFAULT_OPTS='--bind start:execute(CMD)'`.
- CREDENTIALS: `npm config get //registry/:_authToken`, jq / yq printing the environment (`jq -n env`,
  `env.NAME`, `$ENV`, `strenv(NAME)`), yq's `load("KEY")`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    assert_allowed,
    assert_hardline,
    assert_not_allowed,
    blocked,
    harm_project,
    live_then_stopped,
    run_confined,
)

EVERY_MATCH = [
    'octave --eval \'system("true"); system("rm -rf ~")\'',
    'gnuplot -e \'system("true"); system("rm -rf ~")\'',
    "rpm --eval '%(true) %(rm -rf ~)'",
    "rpmbuild -D 'x %(true) %(rm -rf ~)' -bp x.spec",
    "tmux display -p '#(true)#(rm -rf ~)'",
    "tmux display -p '#(true) x #(rm -rf ~)'",
    "tmux set -g status-right '#(date) #(rm -rf ~)'",
    "fzf --bind 'a:accept,start:execute(true),load:become(rm -rf ~)'",
]
EVERY_MATCH_NEAR = [
    "tmux display -p '#{pane_id} #(date)'",
    "tmux set -g status-right '#(date +%H:%M) #(uptime)'",
    "octave --eval 'system(\"ls\"); disp(1)'",
    "gnuplot -e 'system(\"date\"); plot sin(x)'",
    "rpm --eval '%(date) %(uname -r)'",
    "fzf --bind 'ctrl-a:select-all,enter:execute(less {})'",
]

SQL = [
    "sqlite3 <<< '.sh rm -rf ~'",
    "sqlite3 :memory: '.sy rm -rf ~'",
    "sqlite3 :memory: '.she rm -rf ~'",
    "sqlite3 db '  .sh   rm -rf ~'",
    "sqlite3 --cmd '.sh rm -rf ~' db",
    "printf '.sh rm -rf ~\\n' > x.sql; sqlite3 < x.sql",
    "sqlite3 :memory: \".output '|rm -rf ~'\" 'select 1'",
    "sqlite3 :memory: \".import '|rm -rf ~' t\"",
    'sqlite3 :memory: ".once |sh" "select \'rm -rf ~\'"',
    "duckdb -s '.she rm -rf ~'",
    "duckdb :memory: \".output '|rm -rf ~'\"",
    "psql -c 'select 1 \\g |rm -rf ~'",
    "psql -c '\\w |rm -rf ~'",
    "mysql -e 'pager rm -rf ~'",
    "usql sqlite:x.db -c '\\! rm -rf ~'",
    "sqlcmd -Q '!!rm -rf ~'",
    "echo '!! rm -rf ~' | sqlcmd -S db",
    "fossil sqlite3 -R r.fossil '.shell rm -rf ~'",
    "fossil sql <<< '.sh rm -rf ~'",
    # files of this machine read by SQL functions
    "duckdb -c \"select * from read_text('~/.ssh/id_rsa')\"",
    "duckdb -c \"select * from read_csv('/home/u/.aws/credentials')\"",
    "clickhouse local -q \"select * from file('/home/u/.ssh/id_rsa', 'LineAsString')\"",
    "mysql -e \"select load_file('/home/u/.ssh/id_rsa')\"",
]
SQL_NEAR = [
    "sqlite3 app.db '.tables'",
    "sqlite3 app.db '.schema users'",
    "sqlite3 app.db '.show'",
    "sqlite3 :memory: '.output out.txt' 'select 1'",
    "sqlite3 -header -csv app.db 'select * from t'",
    "duckdb -c \"select * from read_csv('data.csv')\"",
    "duckdb -c \"select * from read_parquet('data/*.parquet')\"",
    "psql -c '\\dt' db",
    "psql -c '\\o out.txt' -c 'select 1'",
    "mysql -e 'select 1'",
    "sqlcmd -S db -Q 'select 1'",
    "usql pg://localhost/db -c 'select 1'",
    "clickhouse local -q 'select 1'",
    "clickhouse client -q \"select * from file('data.csv', 'CSV')\"",
    "fossil sql 'select 1'",
]

VCS = [
    "hg clone -e 'sh -c \"rm -rf ~\"' ssh://x/y",
    "hg pull --ssh 'rm -rf ~; ssh' ssh://x/y",
    "hg push --remotecmd 'rm -rf ~;' ssh://x/y",
    "cvs -e 'rm -rf ~;' commit",
    "darcs record --posthook='rm -rf ~' -a -m x",
    "darcs pull --prehook='rm -rf ~'",
    "darcs whatsnew --posthook 'rm -rf ~' --run-posthook",
    "air --build.cmd 'rm -rf ~'",
    "fossil settings ssh-command 'rm -rf ~'",
    "fossil set editor 'rm -rf ~;'",
    "repo forall -c 'rm -rf ~'",
    "repo forall -vc rm -rf ~",  # (kept: allowed before only for the generic wrapper reading; see WRAPPERS)
    "repo forall p1 p2 -c 'rm -rf ~'",
    "west forall -c 'rm -rf ~'",
]
VCS_NEAR = [
    "hg clone ssh://h/r",
    "hg pull -e ssh ssh://h/r",
    "hg log -l 5",
    "cvs -d :pserver:x@h:/r checkout m",
    "cvs -e vim commit",
    "darcs record --posthook='make test' -a -m x",
    "darcs pull",
    "air --build.cmd 'go build -o ./tmp/main .'",
    "fossil settings autosync off",
    "fossil set editor vim",
    "fossil clone https://h/r r.fossil",
    "repo sync -j8",
    "repo forall -c 'git status'",
    "repo forall -c git log -1",
    "west forall -c 'git status'",
    "mytool --posthook='make test'",
]

EDITORS = [
    "emacsclient -e '(shell-command \"rm -rf ~\")'",
    "emacsclient -e '(delete-directory (expand-file-name \"~\") t)'",
    "emacsclient -a 'rm -rf ~;' notes.txt",
    "kak -e 'nop %sh{rm -rf ~}'",
    "kak -ui dummy -e 'nop %sh(true); nop %sh|rm -rf ~|; quit'",
    "vifm -c '!rm -rf ~'",
    "vifm '+!rm -rf ~'",
    "lf -command '$rm -rf ~'",
    "lf -remote 'send $rm -rf ~'",
    "nvim --server /tmp/s --remote-send ':!rm -rf ~<CR>'",
    "vim --servername X --remote-send ':!rm -rf ~<CR>'",
    "nvim --remote-expr 'system(\"rm -rf ~\")'",
    "gdb -batch -ex 'she rm -rf ~'",
    "gdb -batch -ex 'shel rm -rf ~'",
    "vim -c 'pyt import shutil, os; shutil.rmtree(os.path.expanduser(\"~\"))'",
    "vim -es -c 'pe use File::Path; rmtree($ENV{HOME})' -c q",
    "vim -es -c 'rub require \"fileutils\"; FileUtils.rm_rf(Dir.home)' -c q",
    "gdb -batch -ex 'pyt import shutil, os; shutil.rmtree(os.path.expanduser(\"~\"))'",
]
EDITORS_NEAR = [
    "emacsclient -n notes.txt",
    "emacsclient -c -a '' notes.txt",
    "emacsclient -e '(+ 1 2)'",
    "kak notes.txt",
    "kak -e 'set global tabstop 4' notes.txt",
    "vifm ~/proj",
    "vifm -c 'cd /tmp'",
    "lf -command 'set hidden'",
    "vim --servername X --remote-send ':w<CR>'",
    "vim --remote-silent notes.txt",
    "nvim --server /tmp/s --remote-expr 'bufname()'",
    "gdb -batch -ex 'show version'",
]

RUNNERS = [
    "pnpm -c exec 'rm -rf ~'",
    "pnpm --shell-mode exec 'rm -rf ~'",
    "pnpm exec -c echo 'a;rm -rf ~'",
    "nix shell nixpkgs#hello -c rm -rf ~",
    "nix develop .#dev --command rm -rf ~",
    "meson devenv rm -rf ~",
    "meson devenv -C build rm -rf ~",
    "hatch env run -- rm -rf ~",
    "bazel run --run_under='rm -rf ~' //:x",
    "sbatch --wrap='rm -rf ~'",
    "ctest --build-and-test a b --test-command rm -rf ~",
    "bmake -V '${:!rm -rf ~!}'",
    "pmake -V '$(:!rm -rf ~!)'",
    "remake --eval='$(shell rm -rf ~)'",
    "tox exec -e py -- rm -rf ~",
    "watchman-make -p '*.c' --run 'rm -rf ~'",
    "uftrace rm -rf ~",
    "docker compose exec x rm -rf /",
    "deno run 'data:application/javascript,Deno.removeSync(Deno.env.get(\"HOME\"),{recursive:true})'",
    "deno run 'data:application/javascript;base64,"
    "RGVuby5yZW1vdmVTeW5jKERlbm8uZW52LmdldCgiSE9NRSIpLHtyZWN1cnNpdmU6dHJ1ZX0p'",
    "sqlite-utils memory --functions 'import os; os.system(\"rm -rf ~\")' 'select 1'",
    "miller -n put 'end{system(\"rm -rf ~\")}'",
    "swipl -g 'shell(\"rm -rf ~\")' -t halt",
    'lein run -m clojure.main -e \'(clojure.java.shell/sh "rm" "-rf" "/home/u")\'',
    "matlab -batch 'system(\"rm -rf ~\")'",
    "newlisp -e '(exec \"rm -rf ~\")'",
    "dc <<< '!rm -rf ~'",
]
RUNNERS_NEAR = [
    "pnpm exec eslint .",
    "pnpm exec -c 'eslint . && prettier --check .'",
    "pnpm -r exec tsc",
    "pnpm -c exec 'ls -la'",
    "pnpm dlx create-vite app",
    "nix shell nixpkgs#hello -c hello",
    "nix develop -c make",
    "meson devenv -C build ./app",
    "hatch env run -e test -- pytest",
    "bazel run --run_under=valgrind //:app",
    "sbatch --wrap='python train.py'",
    "sbatch job.sh",
    "ctest --output-on-failure",
    "bmake -V MAKE_VERSION",
    "remake -x all",
    "tox exec -e py -- python -V",
    "watchman-make -p '*.c' --run make",
    "uftrace record ./a.out",
    "docker compose exec web ls /app",
    "deno run 'data:application/javascript,console.log(1)'",
    "swipl -g 'writeln(1)' -t halt",
    "matlab -batch 'disp(1)'",
    "lein test",
    "dc <<< '2 3 + p'",
]

# (the rows these name took the generic reading of an undescribed wrapper from kitty, foot, wezterm and
# gnome-terminal, which caught their multi-word spellings before: kept so that naming them loses nothing)
WRAPPERS = [
    "xterm -e 'rm -rf ~'",
    "tilix -e 'rm -rf ~'",
    "lxterminal -e 'rm -rf ~'",
    "gnome-terminal -- sh -c 'rm -rf ~'",
    "kitty rm -rf ~",
    "kitty --title t sh -c 'rm -rf ~'",
    "foot -H rm -rf ~",
    "wezterm start --cwd /tmp rm -rf ~",
    "wezterm cli spawn -- rm -rf ~",
    "byobu new -d 'rm -rf ~'",
    "autossh -M 0 h 'rm -rf ~'",
    "FZF_DEFAULT_OPTS='--bind \"start:execute(rm -rf ~)\"' fzf",
]
WRAPPERS_NEAR = [
    "xterm -e htop",
    "xterm -e 'tail -f log.txt'",
    "gnome-terminal -- htop",
    "kitty",
    "kitty --title build make",
    "foot htop",
    "wezterm start -- htop",
    "byobu new -d -s work",
    "autossh -M 0 -f -N -L 8080:localhost:80 host",
    "FZF_DEFAULT_OPTS='--height 40%' fzf",
]

CREDENTIALS = [
    "npm config get //registry.npmjs.org/:_authToken",
    "pnpm config get _auth",
    "yarn config get npmAuthToken",
    "jq -n env",
    "jq -n 'env.AWS_SECRET_ACCESS_KEY'",
    "jaq -n '$ENV'",
    "yq -n 'env(AWS_SECRET_ACCESS_KEY)'",
    "yq -n 'strenv(GITHUB_TOKEN)'",
    "yq -n 'load(\"/home/u/.ssh/id_rsa\")'",
    'yq -n \'.a = load_str("x") | .b = load_str("/home/u/.ssh/id_rsa")\'',
]
CREDENTIALS_NEAR = [
    "npm config get registry",
    "yarn config get npmRegistryServer",
    "jq --arg env prod '.x = $env' f.json",
    "jq '.[] | select(.env == \"prod\")' f.json",
    "jq -r .environment f.json",
    "yq '.services.web.environment' c.yaml",
    "jq -n '[1,2]'",
]

# the hardline spellings: denied, not asked
HARDLINE = [
    "sqlite3 <<< '.sh rm -rf ~'",
    "sqlite3 :memory: '.shell echo hi; rm -rf ~'",
    "psql -c 'select 1 \\g |rm -rf ~'",
    'octave --eval \'system("true"); system("rm -rf ~")\'',
    "tmux display -p '#(true) x #(rm -rf ~)'",
    "hg pull --ssh 'rm -rf ~; ssh' ssh://x/y",
    "kak -e 'nop %sh{rm -rf ~}'",
    "pnpm -c exec 'rm -rf ~'",
    "xterm -e 'rm -rf ~'",
    "gdb -batch -ex 'she rm -rf ~'",
]


@pytest.mark.parametrize("command", EVERY_MATCH + SQL + VCS + EDITORS + RUNNERS + WRAPPERS + CREDENTIALS)
def test_payload_is_not_allowed(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


@pytest.mark.parametrize("command", HARDLINE)
def test_hardline_spellings_are_denied(engine: Engine, command: str) -> None:
    assert_hardline(engine, command)


@pytest.mark.parametrize(
    "command",
    EVERY_MATCH_NEAR + SQL_NEAR + VCS_NEAR + EDITORS_NEAR + RUNNERS_NEAR + WRAPPERS_NEAR + CREDENTIALS_NEAR,
)
def test_near_miss_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


# -- the harm, live: a real bash under a fake HOME deletes it; through the terminal it is refused --------------

_LIVE: list[tuple[str, str]] = [
    ("sqlite3", "sqlite3 :memory: '.sh rm -rf ~'"),
    ("sqlite3", "sqlite3 :memory: '.sy rm -rf ~'"),
    ("sqlite3", "sqlite3 :memory: \".output '|rm -rf ~'\" 'select 1'"),
    ("gdb", "gdb -batch -nx -ex 'she rm -rf ~'"),
]


@pytest.mark.parametrize(("program", "payload"), _LIVE, ids=[p for _, p in _LIVE])
def test_deletes_home_live_and_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, program: str, payload: str
) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, home, _):
        live_then_stopped(tmp_path, engine, home, payload)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_tmux_second_format_deletes_home_live_and_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second `#(…)` of a tmux format runs as the first does; only the first was read."""
    server = f"f39a{os.getpid()}"
    payload = f"tmux -L {server} -f /dev/null new -d \\; display -p '#(true) x #(rm -rf ~)'"
    # tmux runs a `#(…)` job in the background: wait for it (20 s at most: slow on a loaded CI) first
    wait = "for i in $(seq 200); do [ -e ~/notes.txt ] || break; sleep 0.1; done"
    live = f"{payload}; {wait}; tmux -L {server} kill-server"
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, home, _):
        blocked(engine, home, payload)  # refused through the terminal, the home intact
    deleted, _, _ = run_confined(tmp_path, live)
    if (deleted / "notes.txt").is_file():
        # tmux's `#()` jobs are asynchronous: on two CI runs of stop 39 the server ran none within 20 s (and on
        # others it did). The refusal above is the test; the harm unguarded is shown where tmux runs the job.
        pytest.skip("tmux ran no `#()` job within 20 s here: the harm unguarded is not shown")


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_jq_env_prints_a_token_live_and_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`jq -n env.NAME` prints a token of the environment the engine's parent holds; through the terminal,
    with nobody to approve, it does not run."""
    token = "tok-f39a-5b1e"
    command = "jq -rn env.SERVICE_TOKEN"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SERVICE_TOKEN": token}
    ran = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=30, check=False)
    assert token in ran.stdout, ran
    monkeypatch.setenv("SERVICE_TOKEN", token)
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, _, _):
        result = engine.call("terminal", {"command": command})
        assert not result.ok and result.error is not None and result.error.type == "pending_approval"
        assert token not in str(result.output) + str(result.error)


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="sqlite3 is not installed")
def test_sqlite_table_near_miss_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The near miss through the terminal: a dot-command that runs nothing is let through and runs."""
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, _, _):
        result = engine.call("terminal", {"command": "sqlite3 :memory: '.show'"})
        assert result.ok, result.error


# -- found and not closed by fresh39a (closed by xfail40: tests/redteam/test_xfail40.py; the reasons kept) ------


def _open(command: str, reason: str) -> object:
    del reason  # (why it was open)
    return pytest.param(command, id=command[:60])


@pytest.mark.parametrize(
    "command",
    [
        _open(
            "psql -c '\\setenv PSQL_EDITOR \"rm -rf ~;\"' -c '\\e'",
            "psql's \\setenv sets a variable for the editor \\e starts later on the line: the SQL reader has no "
            "variables of the database shell's own",
        ),
        _open(
            "cmake -DCMAKE_C_COMPILER_LAUNCHER='sh;-c;rm -rf ~' .",
            "a cache variable naming a launcher (a CMake list: `;`-separated words) runs at build time, in a "
            "later `cmake --build`; no row reads -D values as commands",
        ),
        _open(
            "nix run nixpkgs#bash -- -c 'rm -rf ~'",
            "`nix run INSTALLABLE -- ARGS` runs the installable's main program, which only nix's evaluation "
            "knows (nixpkgs#bash is bash): the table has no way to name a program after an operand's text",
        ),
        _open(
            "wine cmd /c 'rd /s /q Z:\\home\\u'",
            "Wine's Z: drive is the Unix root: Windows paths are folded for C:\\Users only, and `wine PROG ARGS` "
            "is not read as a wrapper of Windows programs",
        ),
    ],
)
def test_open_payloads(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)
