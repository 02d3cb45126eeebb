"""Second names made on the line: `ln -s TARGET NAME`, `cp -s`, `mount --bind`.

Later words through NAME are judged as TARGET (`ln -sfn ~ hl; rm -rf hl/*` is `rm -rf ~/*`),
and so is a `cd` into it. rm, unlink and mv given the link's own name act on the link
itself; through `hl/` or `hl/x` they reach what it points to.
"""

from __future__ import annotations

import posixpath

from engine.policy.argv import parse_argv
from engine.policy.commands import command_name
from engine.policy.follow import join_path

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from engine.policy.shell import Command

# Programs that make a second name for a file or directory.
LINKERS = frozenset({"ln", "cp", "mount"})
_ON_THE_LINK = frozenset({"rm", "unlink", "mv"})
# What a link made to a target known only at run time leads to (a program named by it is any program).
UNKNOWN_TARGET = "$unknown"


class LinkFollower:
    """Mixin of the analyzer: records links made on the line and reads words through them."""

    links: dict[str, str]  # NAME (as a file key) -> TARGET
    cwd: str | None

    def _file_key(self, word: str) -> str:
        raise NotImplementedError

    def _record_link(self, command: Command) -> None:
        """`ln -s TARGET NAME`, `cp -s`, `mount --bind`: later words through NAME mean TARGET."""
        program = command.program
        if program is None:
            return
        # A target known only at run time (`ln -s "$(which rm)" x`): the name leads anywhere.
        unknown = {w for w, d in zip(command.argv, command.dynamic, strict=False) if d}
        parsed = parse_argv(program.grammar, command.argv)
        present = {name for name, _, _ in parsed.options}
        if command.name == "cp" and not present & {"s", "l"}:
            return
        if command.name == "mount" and not present & {"bind", "rbind", "B", "R"}:
            return
        operands = parsed.all_operands(command.argv)
        # ln and cp -t DIR (mount's -t is a filesystem type).
        directories = parsed.values(frozenset({"t"})) if command.name != "mount" else []
        directory = directories[0] if directories else None
        if directory is not None:
            pairs = [(target, posixpath.join(directory, posixpath.basename(target.rstrip("/")))) for target in operands]
        elif len(operands) == 1:
            pairs = [(operands[0], posixpath.basename(operands[0].rstrip("/")) or operands[0])]
        elif len(operands) >= 2:
            *targets, last = operands
            if len(targets) > 1 or last.endswith("/"):
                pairs = [(t, posixpath.join(last, posixpath.basename(t.rstrip("/")))) for t in targets]
            else:
                pairs = [(targets[0], last)]
        else:
            return
        for target, name in pairs:
            if name in unknown or (directory is not None and directory in unknown):
                continue
            if target in unknown:
                self.links[self._file_key(name)] = UNKNOWN_TARGET
                continue
            resolved = target if target.startswith(("/", "~")) else join_path(self.cwd, target)
            self.links[self._file_key(name)] = self._through_link(resolved)

    def _through_links(self, argv: list[str]) -> list[str]:
        # rm, unlink and mv act on a link named by itself (`rm -rf hl` removes the link); through
        # `hl/` or `hl/x` they reach what it points to.
        final = command_name(argv[0]) not in _ON_THE_LINK
        return [
            self._through_link(word, final) if i == 0 or not word.startswith("-") else word
            for i, word in enumerate(argv)
        ]

    def _through_link(self, word: str, final: bool = True) -> str:
        key = self._file_key(word) if word else word
        for name, target in self.links.items():
            if key == name and (final or word.endswith("/")):
                return target + ("/" if word.endswith("/") and not target.endswith("/") else "")
            if key.startswith(name + "/"):
                return target.rstrip("/") + key[len(name) :]
        return word
