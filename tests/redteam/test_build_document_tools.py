"""Build and document tools whose project files are programs (adv28 family 7).

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
written file they stay allowed. Judged only (one shared engine): these programs are not among the test peers.
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
PAYLOADS = [
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
NEAR_MISSES = [
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
    with policy_project(tmp_path_factory, "builders", "kind: ApprovalPolicy\n") as (_, loaded):
        yield loaded


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_written_project_file_a_tool_runs_is_not_allowed(engine: Engine, payload: str) -> None:
    assert engine.check(payload).decision != "allow", payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_the_tools_without_written_files_stay_allowed(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command
