"""What stop 30 left allowed (closing30.md "Still allowed"), found again and closed by adv31.

Verdicts share one engine; the harm runs for one payload per family. Every run is confined: HOME and
the working directory are under tmp_path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, verdict_cases

RM = "rm -rf ~"
SCRIPT = f"#!/bin/sh\n{RM}\n"
PYTHON = f"import os\nos.system('{RM}')\n"
R_CODE = f'system("{RM}")\n'
RUBY = f"system('{RM}')\n"
VIMRC_MAP = f"nnoremap j :!{RM}<CR>\n"
DOCS_MAKEFILE = "SPHINXBUILD ?= sphinx-build\nhtml:\n\t$(SPHINXBUILD) -M html . _build\n"

PAYLOADS: dict[str, Case] = {
    # R CMD INSTALL / build / check run the package's configure (and cleanup) script, and its R code
    "R CMD INSTALL, written configure": ({"configure": SCRIPT}, "R CMD INSTALL ."),
    "R CMD INSTALL, written cleanup": ({"cleanup": SCRIPT}, "R CMD INSTALL --clean ."),
    "R CMD build, written R code": ({"R/zzz.R": R_CODE}, "R CMD build ."),
    "R CMD check, written configure": ({"pkg/configure": SCRIPT}, "R CMD check pkg"),
    # mypy's plugins: modules it imports, named by a configuration it reads
    "mypy, pyproject plugins": (
        {"pyproject.toml": '[tool.mypy]\nplugins = ["plug"]\n', "plug.py": PYTHON},
        "mypy src",
    ),
    "mypy, pyproject plugins (path)": ({"pyproject.toml": '[tool.mypy]\nplugins = "./p.py"\n', "p.py": PYTHON}, "mypy src"),
    "mypy, setup.cfg plugins": ({"setup.cfg": "[mypy]\nplugins = plug\n", "plug.py": PYTHON}, "mypy ."),
    "mypy --config-file plugins": (
        {"m.toml": '[tool.mypy]\nplugins = ["plug"]\n', "plug/__init__.py": PYTHON},
        "mypy --config-file m.toml .",
    ),
    "dmypy run, mypy.ini plugins": (
        {"mypy.ini": "[mypy]\nplugins = tools.plug:entry\n", "tools/plug.py": PYTHON},
        "dmypy run -- src",
    ),
    # pytest's cache_dir in a written configuration, emptied by --cache-clear
    "pytest.ini cache_dir ~ --cache-clear": ({"pytest.ini": "[pytest]\ncache_dir = ~\n"}, "pytest --cache-clear"),
    "pyproject cache_dir $HOME --cache-clear": (
        {"pyproject.toml": '[tool.pytest.ini_options]\ncache_dir = "$HOME"\n'},
        "python3 -m pytest --cache-clear -q",
    ),
    "tox.ini cache_dir policies --cache-clear": ({"tox.ini": "[pytest]\ncache_dir = policies\n"}, "pytest --cache-clear"),
    "pytest.ini cache_dir policies": ({"pytest.ini": "[pytest]\ncache_dir = policies\n"}, "pytest -q"),
    # programs writing the log file they are given (judged as `tee FILE`)
    "ltrace -o bashrc": ({}, "ltrace -o ~/.bashrc ls"),
    "strace -o policy": ({}, "strace -o policies/deny.yaml true"),
    "strace --output policy": ({}, "strace --output=policies/x.yaml true"),
    "ssh -E bashrc": ({}, "ssh -E ~/.bashrc host"),
    "scp -E": ({}, "ssh -E policies/x.yaml -o BatchMode=yes host true"),
    "valgrind --log-file": ({}, "valgrind --log-file=policies/x.yaml true"),
    "script FILE": ({}, "script -q -c true policies/x.yaml"),
    "GNU time -o": ({}, "/usr/bin/time -o ~/.bashrc true"),
    "wget -o log": ({}, "wget -o ~/.bashrc https://example.com/"),
    "rsync --log-file": ({}, "rsync --log-file=policies/x.yaml a b"),
    "pip --log": ({}, "pip --log ~/.profile list"),
    # Vagrant's triggers: shell lines run on the host, from Ruby strings
    "Vagrantfile trigger run inline": (
        {"Vagrantfile": f'Vagrant.configure("2") do |c|\n  c.trigger.before :up do |t|\n    t.run = {{inline: "{RM}"}}\n  end\nend\n'},
        "vagrant up",
    ),
    "Vagrantfile trigger run path": (
        {"x.sh": SCRIPT, "Vagrantfile": 'Vagrant.configure("2") do |c|\n  c.trigger.after :status do |t|\n    t.run = {path: "x.sh"}\n  end\nend\n'},
        "vagrant status",
    ),
    # sphinx runs docs/conf.py under `make -C docs html` (the project's Makefile)
    "make -C docs html, written conf.py": ({"docs/conf.py": PYTHON}, "make -C docs html"),
    "make html in docs, written conf.py": ({"docs/conf.py": PYTHON}, "cd docs && make html"),
    # a vimrc mapping pressed by the keys vim is given
    "vim -u rc -c normal": ({"rc": VIMRC_MAP}, "vim -u rc -c 'normal j' -c q x.txt"),
    "vim -u rc -s keys": ({"rc": VIMRC_MAP, "keys": "j:q\n"}, "vim -u rc -s keys x.txt"),
    "vim -u rc -c exe normal": ({"rc": VIMRC_MAP}, "vim -u rc -c 'exe \"normal j\"' x.txt"),
    "vim rc map with system": ({"rc": f"map <F2> :call system('{RM}')<CR>\n"}, "vim -u rc -c 'normal \\<F2>' x.txt"),
}
NEAR_MISSES: dict[str, Case] = {
    "R CMD INSTALL, nothing written": ({}, "R CMD INSTALL ."),
    "R CMD INSTALL, a note written": ({"NEWS.md": "x\n"}, "R CMD INSTALL ."),
    "mypy, pyproject without plugins": ({"pyproject.toml": "[tool.mypy]\nstrict = true\n"}, "mypy src"),
    "mypy, nothing written": ({}, "mypy src"),
    "mypy, a plugin that runs nothing": (
        {"pyproject.toml": '[tool.mypy]\nplugins = ["plug"]\n', "plug.py": "from mypy.plugin import Plugin\n"},
        "mypy src",
    ),
    "pytest --cache-clear": ({}, "pytest --cache-clear"),
    "pytest.ini cache_dir .cache --cache-clear": ({"pytest.ini": "[pytest]\ncache_dir = .cache\n"}, "pytest --cache-clear"),
    "pytest.ini testpaths": ({"pytest.ini": "[pytest]\ntestpaths = tests\n"}, "pytest -q"),
    "strace -o a log": ({}, "strace -o trace.log ls"),
    "strace -f": ({}, "strace -f -e trace=open ls"),
    "ltrace -o a log": ({}, "ltrace -o lt.log ls"),
    "ssh -E a log": ({}, "ssh -E ssh.log host true"),
    "valgrind --log-file log": ({}, "valgrind --log-file=vg.log ./a.out"),
    "script a typescript": ({}, "script -q -c true out.txt"),
    "time -o log": ({}, "/usr/bin/time -o t.log true"),
    "wget -o log": ({}, "wget -o wget.log https://example.com/"),
    "vagrant up, nothing written": ({}, "vagrant up"),
    "make -C docs html, nothing written": ({}, "make -C docs html"),
    "make -C docs html, a page written": ({"docs/index.rst": "Title\n=====\n"}, "make -C docs html"),
    "vim -u rc -c normal, a harmless map": ({"rc": "nnoremap j gj\n"}, "vim -u rc -c 'normal j' -c q x.txt"),
    "vim -c normal": ({}, "vim -c 'normal G' -c wq x.txt"),
    "vim -s keys": ({"keys": "ihello\x1b:wq\n"}, "vim -s keys x.txt"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_a_payload_stop_30_left_allowed_is_not_allowed_its_near_miss_is(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)
