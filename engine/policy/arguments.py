"""The argument names that hold a command line, for every reader of a tool's arguments: a
policy rule's glob on one is matched against the command as it runs (engine.policy.evaluate),
an `applies_to` target or a rule names it as a command (engine.policy.compile), and `guard`
judges it as a terminal command in any MCP tool's input (engine.guard.hook). One list: a command
in an argument only one of them knew was never judged as a command by the others."""

from __future__ import annotations

import re

COMMAND_ARGUMENTS = frozenset({"command", "cmd", "script", "shell_command", "commandline", "command_line"})
# ... and text typed into a running process (the process tool's `input`; an MCP server's
# `interact_with_process {pid, input}`): judged as a command line too wherever that can only make
# a call stricter (a rule's glob, guard's reading of MCP tools), never in place of judging it as a
# path (another tool's `input` may be a file).
TYPED_ARGUMENTS = COMMAND_ARGUMENTS | {"input"}

# An MCP server's own name for an argument that holds a command (guard reads every MCP tool's
# input with it): a key whose words (case and separators aside: `shellCommand`, `cmd_line`,
# `Commands`) include one of these, unless its last word names a file (`script_path`). Found in
# real shell servers' schemas (search of public repositories, stop 24): Desktop Commander
# (`start_process {command, shell}`, `interact_with_process {pid, input}`), mcp-server-commands
# (`run_command {command, stdin}`, `run_script` with the script on stdin), iterm-mcp
# (`write_to_terminal {command}`), an iTerm2 server (`run_command {command}`, `send_text {text}`),
# tmux servers (`execute-command {paneId, command}`, `send-keys-raw {keys}`, lox/tmux-mcp-server's
# `send_commands {commands: [...]}`), mcp-cmd (`runCommand {command}`).
COMMAND_WORDS = frozenset(
    {
        "cmd", "cmds", "command", "commands", "cmdline", "cmdlines", "commandline", "commandlines", "shell",
        "script", "scripts", "exec", "execute", "run", "eval", "keys", "keystrokes", "oneliner", "bash", "sh",
        "zsh", "powershell", "shellscript",
    }
)  # fmt: skip
_FILE_WORDS = frozenset({"path", "paths", "file", "files", "filename", "dir", "directory", "folder", "uri", "url"})
# `code` whose `language` (or `lang`) is one of these is a command line.
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh", "dash", "ksh", "fish", "console", "shellscript", "terminal"})
_KEY_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def key_words(key: str) -> list[str]:
    """A key's words in lower case: `shellCommand` -> shell, command; `cmd_line` -> cmd, line."""
    return [w.lower() for w in _KEY_WORDS.findall(key)]


def names_a_command(key: str) -> bool:
    """Whether an argument named ``key`` holds a command line (see COMMAND_WORDS)."""
    if key.lower() in TYPED_ARGUMENTS:
        return True
    words = key_words(key)
    if not words or words[-1] in _FILE_WORDS:
        return False
    return "".join(words) in COMMAND_WORDS or any(w in COMMAND_WORDS for w in words)
