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


# An MCP tool that runs a program given as source (Jupyter MCP's `execute_code {code}` and
# `insert_execute_code_cell {cell_source}`, mcp-run-python's `run_python_code {python_code}`, a
# sandbox's `run_code {code, language}`): guard judges the text as that language's inline program,
# the command line `python3 -c CODE` (engine.runtime.code does the same for the engine's own
# execute_code). A tool runs what it is given when a word of its name is one of these (its own name,
# or its server's unless its own name says what else it does: `search_code`, `format_code`), or its
# own name is a language's (`python`, `run-js`) and says nothing else it does.
EXECUTING_WORDS = frozenset(
    {
        "run", "runner", "exec", "execute", "executor", "eval", "evaluate", "interpret", "interpreter", "repl",
        "kernel", "sandbox",
    }
)  # fmt: skip
NOT_EXECUTING_WORDS = frozenset(
    {
        "search", "find", "grep", "query", "lookup", "format", "formatter", "lint", "linter", "explain", "review",
        "analyze", "analyse", "highlight", "parse", "index", "read", "get", "list", "view", "show", "save", "store",
        "write", "create", "insert", "edit", "update", "delete", "document", "comment", "complete", "suggest",
        "convert", "translate", "diff", "count",
    }
)  # fmt: skip
# Its arguments that hold the program: these names, or a name whose last word is one of CODE_WORDS
# (`python_code`, `cellSource`, `jsCode`), unless it names a file (`source_path`, `script_file`).
CODE_ARGUMENTS = frozenset({"code", "source", "source_code", "cell_source", "script", "snippet", "program_text"})
CODE_WORDS = frozenset({"code", "source", "script", "snippet"})
# ... and the argument beside it that names its language (`{"code": ..., "language": "javascript"}`).
LANGUAGE_ARGUMENTS = frozenset({"language", "lang", "programming_language", "code_language"})
# A language's name (an argument's value, or a word of the tool's or the argument's name) -> the
# command line prefix that runs a program in it as an inline argument ("" for a shell: the text is
# the command line itself). A language named but not here is asked about (guard cannot read it).
CODE_LANGUAGES: dict[str, str] = {
    **dict.fromkeys(("python", "python3", "py", "ipython", "pyodide"), "python3 -c"),
    **dict.fromkeys(("javascript", "js", "node", "nodejs", "mjs", "cjs"), "node -e"),
    **dict.fromkeys(("typescript", "ts", "deno"), "deno eval"),
    "bun": "bun -e",
    **dict.fromkeys(("ruby", "rb"), "ruby -e"),
    **dict.fromkeys(("perl", "pl"), "perl -e"),
    "php": "php -r",
    **dict.fromkeys(("lua", "luajit"), "lua -e"),
    **dict.fromkeys(("r", "rscript"), "Rscript -e"),
    **dict.fromkeys(("julia", "jl"), "julia -e"),
    **dict.fromkeys(("powershell", "pwsh", "ps1"), "pwsh -Command"),
    **dict.fromkeys(("applescript", "osascript"), "osascript -e"),
    **dict.fromkeys(SHELL_LANGUAGES, ""),
}
# The language a tool runs when nothing names one (Jupyter's kernel, most code-running servers).
DEFAULT_CODE_LANGUAGE = "python"
_LANGUAGE_NAME = re.compile(r"[a-z]+")


def names_code(key: str) -> bool:
    """Whether an argument named ``key`` of a tool that runs programs holds one (see CODE_ARGUMENTS)."""
    if key.lower() in CODE_ARGUMENTS:
        return True
    words = key_words(key)
    return bool(words) and words[-1] in CODE_WORDS


def runs_code(tool: str) -> bool:
    """Whether an MCP tool (`mcp__SERVER__TOOL`) runs the programs it is given (see EXECUTING_WORDS)."""
    server, _, own = tool.removeprefix("mcp__").rpartition("__")
    words = set(key_words(own))
    if not words.isdisjoint(EXECUTING_WORDS):
        return True
    if not words.isdisjoint(NOT_EXECUTING_WORDS):
        return False
    # `mcp__pyodide__python {code}`: a tool named for a language, or a server named for running
    return not words.isdisjoint(CODE_LANGUAGES) or not EXECUTING_WORDS.isdisjoint(key_words(server))


def code_language(name: str) -> str | None:
    """The CODE_LANGUAGES name of a language as a tool names it (`Python`, `python3.12`, `node20`,
    `JavaScript (Node.js)`), or None when it is not one guard reads."""
    lowered = name.strip().lower()
    if lowered in CODE_LANGUAGES:
        return lowered
    first = _LANGUAGE_NAME.search(lowered)
    return first.group() if first is not None and first.group() in CODE_LANGUAGES else None


def named_languages(name: str) -> list[str]:
    """The languages the words of a tool's or an argument's name name (`run_python_code` -> python)."""
    return [w for w in dict.fromkeys(key_words(name)) if w in CODE_LANGUAGES]


# IPython's (a Jupyter kernel's) shell escapes in a Python program: `!cmd`, `files = !cmd`, `%sx cmd`,
# `%system cmd`, and a cell run by a shell (`%%bash`, `%%sh`, `%%script bash`, `%%sx`, `%%!`).
_IPYTHON_LINE = re.compile(r"^[ \t]*(?:[\w.,() \t]*=[ \t]*)?(?:!!?|%(?:sx|system|sc)\b)(.*)$", re.MULTILINE)
_IPYTHON_CELL = re.compile(r"\A\s*%%(?:bash|sh|zsh|script|sx|system|!)\b[^\n]*\n(.*)\Z", re.DOTALL)


def ipython_commands(code: str) -> list[str]:
    """The command lines a Python program run by IPython hands a shell (see _IPYTHON_LINE)."""
    cell = _IPYTHON_CELL.match(code)
    out = [cell.group(1)] if cell is not None else []
    return out + [m.group(1) for m in _IPYTHON_LINE.finditer(code) if m.group(1).strip()]


def code_command(language: str, code: str) -> str:
    """The command line that runs ``code`` in ``language`` (a CODE_LANGUAGES name) as an inline program."""
    import shlex  # noqa: PLC0415

    prefix = CODE_LANGUAGES[language]
    return f"{prefix} {shlex.quote(code)}" if prefix else code
