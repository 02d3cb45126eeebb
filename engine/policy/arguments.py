"""The argument names that hold a command line, for every reader of a tool's arguments: a
policy rule's glob on one is matched against the command as it runs (engine.policy.evaluate),
an `applies_to` target or a rule names it as a command (engine.policy.compile), and `guard`
judges it as a terminal command in any MCP tool's input (engine.guard.hook). One list: a command
in an argument only one of them knew was never judged as a command by the others."""

from __future__ import annotations

COMMAND_ARGUMENTS = frozenset({"command", "cmd", "script", "shell_command", "commandline", "command_line"})
# ... and text typed into a running process (the process tool's `input`; an MCP server's
# `interact_with_process {pid, input}`): judged as a command line too wherever that can only make
# a call stricter (a rule's glob, guard's reading of MCP tools), never in place of judging it as a
# path (another tool's `input` may be a file).
TYPED_ARGUMENTS = COMMAND_ARGUMENTS | {"input"}
