"""adv49b (stop 49, issue 8): an adversary against stop 49's new allows.
The family: commands stop 49 made `allow` (fp49's listings read from the disk, fp49/cfg49's settings-only appends to a
package manager's configuration, bg49's session-less reading of the script a command runs), attacked with spellings
the new readings do not cover. Every hole's harm is shown live below (a real bash or pip, a fake HOME).
Fixed (each allowed before):
1. pip reads a configuration key as any long name of its option (`--KEY` looked up among the aliases): the pip row of
   package_sources listed `index-url` and `log` but not `pypi-url` (index-url's alias) nor `log-file` / `local-log`
   (log's), `source` / `source-dir` / `source-directory` (src's), `dest` / `destination-dir(ectory)` (download's).
   `printf '[global]\\nlog-file = ~/.bashrc\\n' >> pip.conf` (every pip command appends its log, lines it prints, to
   ~/.bashrc: live) and `printf '[global]\\npypi-url = http://h/simple\\n' >> pip.conf` (pip installs from that
   index: live, "Looking in indexes") were settings-only writes: they ask now (policies/executors.yaml, data).
2. `Engine.check('bash $(cat list)')` (list holding `x.sh`): a script named only at run time, which a session asks for
   once it wrote files, was allowed without a session, where every file of the tree may be the one named: asks.
3. An appended line that starts indented continues the file's last entry: `echo '    x = http://h/simple' >>
   pip.conf` after a pip.conf's `extra-index-url = URL` made configparser's value `URL\\nx = http://h/simple`, which
   pip splits at blanks: an index it installs from (live). `key = value` indented was a settings line; an append
   whose first line is indented is more than settings now (shell.Analyzer._settings_text): asks (also `\\t`, after
   blank lines, `echo ' fund=false' >> .npmrc`).
Probed and held (ask or deny): fp49's listing after a maker behind a wrapper (`env`/`command`/`timeout`/`nice mkdir`,
`xargs -0 mkdir`, a function named `grep` running mkdir, `hash -p /bin/mkdir cat`), a preprocessor (`rg --pre bash`,
`sort --compress-program=./x.sh`), `cd ~` / `CDPATH=~ cd .ssh` before the listing,
ZIPOPT on the line, links in the tree to the key and to ~ listed (`find . -name '*.log' | zip -m logs.zip -@`, `|
xargs rm -rf`, `-print0` without `-0`, `find -L`, `-printf '%p/'`); bg49's spellings
(`bash -- x.sh`, `bash ./x.sh`, `bash < x.sh`, `. ./x.sh`, `exec ./x.sh`, `env`/`nice`/`timeout`/`command bash x.sh`,
`xargs bash < list`, a script sourcing another, a link to the script, a 70 KB script, `bash -s < x.sh`,
`bash /dev/stdin < x.sh`, `bash <(cat x.sh)`); an npm append through CRLF (`x=1\\r\\nscript-shell=...`).
Near misses that stay allowed: `echo 'timeout = 60' >> pip.conf`, `printf '[global]\\ndefault-timeout = 60\\n' >
pip.conf`, `echo 'fund=false' >> .npmrc`; session-less `ls *.sh`, `cat *.py`,
`echo $(date)`, `cat $(git ls-files)`, `ls | xargs cat`.
Closed by entry50 (stop 50; plain tests below since): `Engine.check('bash x.s?')` (`sh ./[x].sh`, `run-parts d`)
with x.sh holding the payload (live): a check without a session matched no glob on the disk (reading them in
DiskView.names_in for every glob made python's `files:` globs read the tree's modules: a false alarm); it now
matches the glob of the word naming the file a program runs only (DiskView.listing). `Engine.check('python3 -m x')`
with x.py holding the payload: python's `-m` run resolves the module (its `entry:` forms), not its `files:` globs.
Noticed, not changed: a check without a session now asks for `python3 $(which pip) list` and
`bash "$(git rev-parse --show-toplevel)/x.sh"` (a script named at run time: fail closed, item 3).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import assert_allowed, assert_not_allowed, run_confined

PIP = f"{sys.executable} -m pip"
PIP_PAYLOADS = [
    "printf '[global]\\nlog-file = ~/.bashrc\\n' >> pip.conf",
    "printf '[global]\\nlocal_log = ~/.bashrc\\n' >> pip.conf",
    "printf '[global]\\npypi-url = http://127.0.0.1:9/simple\\n' >> pip.conf",
    "printf '[install]\\nsource-dir = /tmp/s\\n' > pip.conf",
    "printf '[global]\\nlog-file = /tmp/x/.bashrc\\n' > .venv/pip.conf",
]
PIP_NEAR_MISSES = [
    "echo 'timeout = 60' >> pip.conf",
    "printf '[global]\\ndefault-timeout = 60\\nno-cache-dir = true\\n' > pip.conf",
    "echo 'fund=false' >> .npmrc",
]


@pytest.mark.parametrize("command", PIP_PAYLOADS)
def test_a_pip_option_alias_is_no_settings_only_write(plain_harm: tuple[Engine, Path, Path], command: str) -> None:
    assert_not_allowed(plain_harm[0], command)


@pytest.mark.parametrize("command", PIP_NEAR_MISSES)
def test_settings_only_writes_stay_allowed(plain_harm: tuple[Engine, Path, Path], command: str) -> None:
    assert_allowed(plain_harm[0], command)


def test_pip_appends_its_log_to_the_file_log_file_names_live(tmp_path: Path) -> None:
    """The ground: pip reads `log-file` as `--log` and appends to ~/.bashrc on an ordinary `pip list`."""
    home, _, _ = run_confined(tmp_path, f"{PIP_PAYLOADS[0]} && PIP_CONFIG_FILE=pip.conf {PIP} list >/dev/null")
    assert (home / ".bashrc").is_file() and "Package" in (home / ".bashrc").read_text()


def test_pip_installs_from_the_index_pypi_url_names_live(tmp_path: Path) -> None:
    """The ground: `pypi-url` is pip's index-url: pip looks in the index the append names."""
    _, _, printed = run_confined(
        tmp_path,
        f"{PIP_PAYLOADS[2]} && PIP_CONFIG_FILE=pip.conf {PIP} download --no-deps --retries 0 --timeout 1 -d d nosuch",
    )
    assert "Looking in indexes: http://127.0.0.1:9/simple" in printed


CONTINUED = [
    "echo '    x = http://127.0.0.1:9/simple' >> pip.conf",
    "printf '\\tx = http://e.example/simple\\n' >> pip.conf",
    "printf '\\n\\n  x = http://e.example/simple\\n' >> pip.conf",
    "echo ' fund=false' >> .npmrc",
]
CONTINUED_NEAR_MISSES = ["echo 'timeout = 60' >> pip.conf", "printf '\\nfund=false\\n' >> .npmrc"]


@pytest.fixture
def configured(plain_harm: tuple[Engine, Path, Path]) -> tuple[Engine, Path, Path]:
    """A project whose pip.conf names an extra index (a private one, as many have), its .npmrc a setting."""
    engine, home, root = plain_harm
    (root / "pip.conf").write_text("[global]\nextra-index-url = https://pypi.org/simple\n")
    (root / ".npmrc").write_text("save-exact=true\n")
    return engine, home, root


@pytest.mark.parametrize("command", CONTINUED)
def test_an_indented_append_continues_the_last_entry(configured: tuple[Engine, Path, Path], command: str) -> None:
    engine, _, root = configured
    assert_not_allowed(engine, command)
    view = engine.session_memory.view("s-continued", str(root))
    assert engine._evaluator(engine._snapshot).verdict("terminal", {"command": command}, view).decision != "allow"


@pytest.mark.parametrize("command", CONTINUED_NEAR_MISSES)
def test_an_append_starting_its_own_line_stays_allowed(configured: tuple[Engine, Path, Path], command: str) -> None:
    assert_allowed(configured[0], command)


def test_an_indented_append_adds_an_index_live(tmp_path: Path) -> None:
    """The ground: configparser continues extra-index-url's value with the indented line, and pip splits the value
    at blanks: the appended URL is an index pip looks in."""
    setup = "printf '[global]\\nextra-index-url = https://pypi.org/simple\\n' > pip.conf && "
    _, _, printed = run_confined(
        tmp_path,
        setup + CONTINUED[0] + f" && PIP_CONFIG_FILE=pip.conf {PIP} download --no-deps --retries 0 --timeout 1 -d d x",
    )
    assert "http://127.0.0.1:9/simple" in printed.split("Looking in indexes:", 1)[1].split("\n", 1)[0]


SCRIPTED = {"x.sh": "rm -rf ~/notes.txt\n", "list": "x.sh\n", "x.py": "import os\nos.system('rm -rf ~/notes.txt')\n"}


@pytest.fixture
def scripted(plain_harm: tuple[Engine, Path, Path]) -> tuple[Engine, Path, Path]:
    engine, home, root = plain_harm
    for name, text in SCRIPTED.items():
        (root / name).write_text(text)
    (root / "d").mkdir()
    (root / "d" / "w.sh").write_text(SCRIPTED["x.sh"])
    return engine, home, root


CHECKED_PAYLOADS = ["bash $(cat list)", "sh `cat list`"]
GLOBBED_OPEN = ["bash x.s?", "sh ./[x].sh", "run-parts d"]
CHECKED_NEAR_MISSES = ["ls *.sh", "cat *.py", "echo $(date)", "cat $(git ls-files)", "ls | xargs cat", "wc -l *.sh"]


@pytest.mark.parametrize("command", CHECKED_PAYLOADS)
def test_a_session_less_check_reads_the_script_a_glob_or_a_substitution_names(
    scripted: tuple[Engine, Path, Path], command: str
) -> None:
    assert_not_allowed(scripted[0], command)


@pytest.mark.parametrize("command", CHECKED_NEAR_MISSES)
def test_a_session_less_check_of_ordinary_globs_stays_allowed(
    scripted: tuple[Engine, Path, Path], command: str
) -> None:
    assert_allowed(scripted[0], command)


@pytest.mark.parametrize("command", GLOBBED_OPEN)
def test_a_session_less_check_of_a_globbed_script(scripted: tuple[Engine, Path, Path], command: str) -> None:
    assert_not_allowed(scripted[0], command)


@pytest.mark.parametrize("command", ["bash x.s?", "sh ./[x].sh", "bash $(cat list)", "python3 -m x"])
def test_the_named_script_deletes_the_note_live(tmp_path: Path, command: str) -> None:
    """The ground, unguarded: each spelling runs x.sh (x.py) and deletes the note."""
    setup = "printf 'rm -rf ~/notes.txt\\n' > x.sh && printf 'x.sh\\n' > list && "
    setup += "printf 'import os\\nos.system(\"rm -rf ~/notes.txt\")\\n' > x.py && "
    home, _, printed = run_confined(tmp_path, setup + command.replace("python3", sys.executable))
    assert not (home / "notes.txt").exists(), printed
    near, _, _ = run_confined(tmp_path / "near", "printf 'echo hi\\n' > x.sh && bash x.s?")
    assert home_intact(near)


def test_a_session_less_check_of_a_module_run_by_name(scripted: tuple[Engine, Path, Path]) -> None:
    engine, _, _ = scripted
    assert engine.check("python3 -m x").decision != "allow"
