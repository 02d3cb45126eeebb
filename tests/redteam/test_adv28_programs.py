"""Programs and variables that run what the caller wrote or gave them, found by adv28's hunt.

Judged only, in one shared engine (CI time): none of these programs is among the test peers, and
the harm of the kinds they join (wrappers, start-up files, project files) is shown by the families'
own harm tests (test_startup_configs, test_more_wrappers, test_written_task_files).

Family 4: variables that make any program load code the caller wrote, and irb's start-up file.

Allowed on main (stop 27):
- `LD_LIBRARY_PATH=. ls` after writing ./libc.so.6: the dynamic loader takes the written library
  for every program (LD_PRELOAD was judged, the library path was not); `GCONV_PATH=.` with a written
  gconv-modules: glibc's iconv loads the modules it lists;
- `JAVA_TOOL_OPTIONS=-javaagent:./a.jar java ...` (also JDK_JAVA_OPTIONS, _JAVA_OPTIONS, JAVA_OPTS,
  MAVEN_OPTS, GRADLE_OPTS): every JVM started loads the agent (`java -javaagent:` was judged);
- `irb` after writing ./.irbrc (IRB reads the working directory's start-up file), and IRBRC;
- `KUBE_EDITOR='CMD' kubectl edit`: the editor kubectl runs (EDITOR and VISUAL were judged).
policies/executors.yaml describes each now; a folder the caller wrote no library into keeps its
verdict.

Family 5: secret managers' runners and environment loaders that run a command.

`op run -- CMD`, `doppler run -- CMD` / `--command 'CMD'`, `dotenvx run --`, `infisical run --`,
`aws-vault exec P -- CMD`, `chamber exec S -- CMD`, `envchain NS CMD`, `sops exec-env F 'CMD'`,
`dotenv -- CMD` / `dotenv run -- CMD`, `foreman run`, `honcho run`, `fnm exec -- CMD`, `scl enable C
'CMD'`, `niceload CMD`, `with-lock-ex LOCK CMD`, `machinectl shell .host PROG` and `newgrp G <<< CMD`
were allowed on main with `rm -rf ~` as the command: the Programs table did not describe them, so
the command they run was never judged. They are wrappers in policies/executors.yaml now.

Family 7: build and document tools whose project files are programs.

Allowed on main (stop 27) after the caller wrote the file: `scons` (SConstruct is Python), `ant`
(build.xml's <exec>), `sbt`, `mix`, `dotnet build`/`msbuild` (a project's <Exec>), `gem build
x.gemspec` (Ruby), `swift build` (Package.swift), `zig build`, `nix-shell` (a shellHook runs on the
host), `vagrant status` (the Vagrantfile is Ruby), `terraform plan` (an external data source runs a
program), `ansible-playbook p.yml` and `ansible -m shell -a CMD`, `lefthook run`, `sphinx-build`
(conf.py), `mkdocs build` (hooks), `latexmk` (.latexmkrc is Perl), a TeX engine with
`-shell-escape` (\\write18), `pandoc --lua-filter`/`--filter`, `asciidoctor -r`, `emacs -l`, `quarto
render`; and a task file's YAML flow sequence of plain scalars (`cmds: [rm -rf ~]`) was read as no
command (engine.policy.executors._unquote). policies/executors.yaml describes them now: the file
is read in its language where the engine reads one, and asked about otherwise (opaque). Without a
written file they stay allowed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Engine
from tests.redteam.harm import policy_project

RM = "rm -rf ~"
PY = f'import os; os.system(\\"{RM}\\")'
ANT = f'<project><target name="x"><exec executable="sh"><arg line="-c {RM}"/></exec></target></project>'
NIX = f'pkgs: pkgs.mkShell {{ shellHook = "{RM}"; }}'

LOADERS = [
    "printf 'x' > libc.so.6; LD_LIBRARY_PATH=. ls",
    "printf 'x' > lib/libfoo.so; LD_LIBRARY_PATH=/usr/lib:lib ./app",
    "printf 'module x//\\nx// y 1\\n' > gconv-modules; GCONV_PATH=. iconv -f x -t y a.txt",
    "printf 'x' > a.jar; JAVA_TOOL_OPTIONS=-javaagent:./a.jar java -version",
    "printf 'x' > a.jar; _JAVA_OPTIONS='-Xmx1g -javaagent:./a.jar' mvn -v",
    "printf 'x' > a.so; JDK_JAVA_OPTIONS=-agentpath:./a.so=opt java -jar app.jar",
    "printf 'system(\"rm -rf ~\")\\n' > .irbrc; irb",
    "printf 'system(\"rm -rf ~\")\\n' > r.rb; IRBRC=r.rb irb",
    "KUBE_EDITOR='rm -rf ~' kubectl edit deploy x",
]
LOADERS_NEAR = [
    "LD_LIBRARY_PATH=/usr/local/lib ./app",
    "LD_LIBRARY_PATH=build/lib ./app",
    "printf 'x' > notes.txt; LD_LIBRARY_PATH=. ./app",
    "JAVA_TOOL_OPTIONS=-Xmx2g java -jar app.jar",
    "MAVEN_OPTS=-Xmx1g mvn -q package",
    "irb",
    "KUBE_EDITOR=vim kubectl edit deploy x",
]
RUNNERS = [
    f"op run -- {RM}",
    f"op run --env-file=.env -- {RM}",
    f"doppler run -- {RM}",
    f"doppler run --command '{RM}'",
    f"dotenvx run -- {RM}",
    f"infisical run --env=dev -- {RM}",
    f"aws-vault exec prod -- {RM}",
    f"chamber exec app -- {RM}",
    f"envchain aws {RM}",
    f"sops exec-env s.yaml '{RM}'",
    f"dotenv -- {RM}",
    f"dotenv run -- {RM}",
    f"foreman run {RM}",
    f"honcho run {RM}",
    f"fnm exec --using=18 -- {RM}",
    f"scl enable devtoolset-9 '{RM}'",
    f"niceload -l 2 {RM}",
    f"with-lock-ex /tmp/l {RM}",
    "machinectl shell .host /bin/rm -rf ~",
    f"newgrp users <<< '{RM}'",
]
RUNNERS_NEAR = [
    "op run -- npm test",
    "doppler run -- python3 app.py",
    "aws-vault exec prod -- aws s3 ls",
    "envchain aws terraform plan",
    "sops exec-env s.yaml 'echo hi'",
    "dotenv -- node server.js",
    "foreman start",
    "honcho start",
    "machinectl list",
    "scl enable devtoolset-9 bash",
]
BUILDERS = [
    f"printf '{PY}\\n' > SConstruct; scons",
    f"printf '{ANT}' > build.xml; ant x",
    f"printf 'import sys.process._; \"{RM}\".!\\n' > build.sbt; sbt compile",
    f'printf \'System.cmd("sh", ["-c", "{RM}"])\\n\' > mix.exs; mix compile',
    f'printf \'<Project><Target Name="B"><Exec Command="{RM}"/></Target></Project>\' > x.csproj; dotnet build',
    f"printf 'Gem::Specification.new {{ system(\"{RM}\") }}\\n' > x.gemspec; gem build x.gemspec",
    "printf 'import Foundation\\n' > Package.swift; swift build",
    "printf 'const std = @import(\"std\");\\n' > build.zig; zig build",
    f"printf '{NIX}\\n' > shell.nix; nix-shell --run true",
    f"printf 'system(\"{RM}\")\\n' > Vagrantfile; vagrant status",
    f'printf \'data "external" "x" {{ program = ["sh", "-c", "{RM}"] }}\\n\' > main.tf; terraform plan',
    f"printf -- '- hosts: localhost\\n  tasks:\\n  - shell: {RM}\\n' > p.yml; ansible-playbook p.yml",
    f"ansible localhost -m shell -a '{RM}'",
    f"printf 'pre-commit:\\n  commands:\\n    x:\\n      run: {RM}\\n' > lefthook.yml; lefthook run pre-commit",
    f"printf '{PY}\\n' > conf.py; sphinx-build . _build",
    f"printf 'hooks:\\n  - h.py\\n' > mkdocs.yml; printf '{PY}\\n' > h.py; mkdocs build",
    f"printf 'system(\"{RM}\");\\n' > .latexmkrc; latexmk -pdf x.tex",
    f"printf '\\\\immediate\\\\write18{{{RM}}}\\n\\\\bye\\n' > x.tex; pdflatex -shell-escape x.tex",
    f"printf 'os.execute(\"{RM}\")\\n' > f.lua; pandoc --lua-filter=f.lua x.md",
    f"printf 'system(\"{RM}\")\\n' > x.rb; asciidoctor -r ./x.rb a.adoc",
    f"printf '(shell-command \"{RM}\")\\n' > x.el; emacs --batch -l x.el",
    f"printf '```{{python}}\\n{PY}\\n```\\n' > x.qmd; quarto render x.qmd",
    # a YAML flow sequence of plain scalars in a task file (`cmds: [CMD]`) was read as no command
    f"printf 'version: 3\\ntasks:\\n  x:\\n    cmds: [{RM}]\\n' > Taskfile.yml; task x",
]
BUILDERS_NEAR = [
    "scons",
    "ant build",
    "terraform plan",
    "terraform fmt",
    "sphinx-build -b html docs _build",
    "mkdocs build",
    "latexmk -pdf x.tex",
    "pdflatex x.tex",
    "pdflatex -shell-escape x.tex",
    "pandoc -o x.pdf x.md",
    "asciidoctor a.adoc",
    "ansible localhost -m ping",
    "ansible-playbook site.yml",
    "gem build x.gemspec",
    "dotnet build",
    "nix-shell --run true",
    "vagrant status",
    "quarto render x.qmd",
    "printf 'version: 3\\ntasks:\\n  x:\\n    deps: [a, b]\\n    cmds: [echo hi, make]\\n' > Taskfile.yml; task x",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with policy_project(tmp_path_factory, "adv28", "kind: ApprovalPolicy\n") as (_, loaded):
        yield loaded


@pytest.mark.parametrize("payload", [*LOADERS, *BUILDERS])
def test_written_code_a_program_loads_or_runs_is_not_allowed(engine: Engine, payload: str) -> None:
    assert engine.check(payload).decision != "allow", payload


@pytest.mark.parametrize("payload", RUNNERS)
def test_the_command_a_secret_runner_runs_is_judged(engine: Engine, payload: str) -> None:
    verdict = engine.check(payload)
    assert (verdict.decision, verdict.hardline) == ("deny", True), payload


@pytest.mark.parametrize("command", [*LOADERS_NEAR, *RUNNERS_NEAR, *BUILDERS_NEAR])
def test_the_programs_without_written_code_stay_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command
