"""The argument names that hold a command line, for every reader of a tool's arguments: a
policy rule's glob on one is matched against the command as it runs (engine.policy.evaluate),
an `applies_to` target or a rule names it as a command (engine.policy.compile), and `guard`
judges it as a terminal command in any MCP tool's input (engine.guard.hook). One list: a command
in an argument only one of them knew was never judged as a command by the others."""

from __future__ import annotations

import itertools
import re

TYPE_CHECKING = False  # not typing's: a guard start does not import typing (see engine.guard.hook)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

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
# A REPL's or an evaluator's words too (`eval {expression}`, `run_cell {raw_cell}`, `{statement}`).
CODE_ARGUMENTS = frozenset({
    "code", "source", "source_code", "cell_source", "script", "snippet", "program_text", "expression", "expr",
    "cell", "raw_cell", "statement", "statements", "program",
})  # fmt: skip
CODE_WORDS = frozenset({"code", "source", "script", "snippet", "expression", "expr", "cell", "statement", "program"})
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
    **dict.fromkeys(("tcl", "tclsh", "wish", "jimsh"), "tclsh <<<"),  # tclsh reads its program from stdin
    "expect": "expect -c",
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


# A notebook's tool that writes a cell (jupyter-mcp-server's `insert_cell`/`overwrite_cell_source`,
# a notebook server's `add_cell`): the cell runs later (`execute_cell {cell_index}` names no source),
# so its source is judged as the kernel's program when it is written -- unless it says it is not
# code (`cell_type: markdown`). So is a tool's that an argument tells to run it (`execute: true`).
NOTEBOOK_WORDS = frozenset({"notebook", "notebooks", "cell", "cells", "jupyter", "ipynb", "ipython", "kernel", "colab"})
NOT_CODE_CELLS = frozenset({"markdown", "md", "raw", "text", "heading"})
CELL_TYPE_ARGUMENTS = frozenset({"cell_type", "celltype", "type", "kind"})
# A file's text in an object of a tool that runs programs (Piston's `files: [{name, content}]`):
# a program, in the language its name's extension or the tool's `language` names.
FILE_CONTENT_ARGUMENTS = frozenset({"content", "contents", "text", "body", "data"})
FILE_NAME_ARGUMENTS = frozenset({"name", "filename", "file_name", "path", "file", "filepath", "file_path"})


def carries_code(tool: str, tool_input: Mapping[str, Any]) -> bool:
    """Whether an MCP tool's source arguments are programs it runs, now or later: runs_code, a
    notebook's tool writing a code cell, or a tool told to run what it is given (`execute: true`)."""
    if runs_code(tool):
        return True
    for key, value in tool_input.items():
        if value is True and not EXECUTING_WORDS.isdisjoint(key_words(key)):
            return True
    if NOTEBOOK_WORDS.isdisjoint(key_words(tool.removeprefix("mcp__"))):
        return False
    for key, value in tool_input.items():
        if key.lower() in CELL_TYPE_ARGUMENTS and isinstance(value, str) and value.lower() in NOT_CODE_CELLS:
            return False
    return True


def file_language(members: Mapping[str, Any]) -> str | None:
    """The CODE_LANGUAGES name a file object's name names by its extension (`main.py` -> py)."""
    for key, value in members.items():
        if key.lower() in FILE_NAME_ARGUMENTS and isinstance(value, str) and "." in value:
            return code_language(value.rsplit(".", 1)[1])
    return None


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
_IPYTHON_CELL = re.compile(r"\A\s*%%(\w+|!)([^\n]*)\n(.*)\Z", re.DOTALL)
# IPython's default aliases (IPython.core.alias, posix): `%rm -rf ~`, and with automagic (on by
# default) the bare line `rm -rf ~`, run `rm -rf ~`; line magics that run a program (`%pip install
# x`, `%run x.py`, and the bare `run x.py`: sess45's, written to a background ipython, ran x.py unread).
# `%alias NAME CMD` and `%rehashx` make other names commands: asked about.
IPYTHON_ALIASES: dict[str, str] = {
    **{name: name for name in ("rm", "rmdir", "mv", "cp", "cat", "mkdir", "less", "more", "man", "clear", "ls")},
    **dict.fromkeys(("ll", "lf", "lk", "ldir", "lx"), "ls -F -l"),
    "pip": "pip", "conda": "conda", "mamba": "mamba", "uv": "uv", "run": "python3",
}  # fmt: skip
IPYTHON_DEFINING_MAGICS = frozenset({"alias", "rehashx"})
# Cell magics: the shells that run a cell, and the interpreters (`%%perl`, `%%script ruby`).
_CELL_SHELLS = frozenset({"bash", "sh", "zsh", "sx", "system", "!"})
_CELL_LANGUAGES = {"perl": "perl", "ruby": "ruby", "python": "python", "python2": "python", "python3": "python",
                   "pypy": "python", "node": "node", "javascript": "node"}  # fmt: skip
_IPYTHON_MAGIC = re.compile(r"^[ \t]*(?:[\w.,() \t]*=[ \t]*)?%(\w+)(?![\w%])[ \t]*(.*)$", re.MULTILINE)
_IPYTHON_BARE = re.compile(
    r"^[ \t]*(" + "|".join(IPYTHON_ALIASES) + r")(?![\w.])"
    r"(?![ \t]*(?:[-+*/%&|^<>@]?=|[(\[.,:;)]|(?:if|else|for|in|and|or|is|not)\b))[ \t]*(.*)$",
    re.MULTILINE,
)
# Python calls of the kernel's own (get_ipython()'s): run_cell_magic(MAGIC, LINE, CELL),
# run_line_magic(MAGIC, LINE), magic(LINE), run_cell(CELL), and getoutput/system(COMMAND).
_IPYTHON_CD = re.compile(r"^[ \t]*%?cd(?![\w.])(?![ \t]*(?:[-+*/%&|^<>@]?=|[(\[.,:;)]))[ \t]*(.*)$", re.MULTILINE)
_IPYTHON_CALL = re.compile(
    r"\.(run_cell_magic|run_line_magic|magic|run_cell|getoutput|system_piped|system_raw|system)\s*\("
)
_PY_STRING = r"[rRuU]?(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")"
_PY_ARGUMENT = re.compile(r"\s*(" + _PY_STRING + r")\s*(?:(,)|(\)))")
_IPYTHON_ARITY = {"run_cell_magic": 3, "run_line_magic": 2}
_MAX_IPYTHON_CALLS = 64
_MAX_IPYTHON_DEPTH = 4


def ipython_commands(code: str, depth: int = 0) -> list[str | None]:
    """The command lines a Python program run by IPython hands a shell or another program: its
    escapes (see _IPYTHON_LINE), alias and program magics (IPYTHON_ALIASES), cell magics, and the
    kernel's calls that run a cell or a magic given as literals (see _IPYTHON_CALL). None for one
    guard cannot read: a call's text computed when it runs, a magic that defines a command."""
    out: list[str | None] = []
    cell = _IPYTHON_CELL.match(code)
    if cell is not None:
        out += _cell_magic(cell.group(1), cell.group(2).strip(), cell.group(3), depth)
    out += [m.group(1) for m in _bounded(_IPYTHON_LINE, code, out) if m.group(1).strip()]
    if "%" in code:
        for match in _bounded(_IPYTHON_MAGIC, code, out):
            name, line = match.group(1), match.group(2)
            if name in IPYTHON_DEFINING_MAGICS:
                out.append(None)
            elif name in IPYTHON_ALIASES:
                out.append(f"{IPYTHON_ALIASES[name]} {line}".strip())
    out += [f"{IPYTHON_ALIASES[m.group(1)]} {m.group(2)}".strip() for m in _bounded(_IPYTHON_BARE, code, out)]
    if "(" in code:
        out += _ipython_calls(code, depth)
    if "cd" in code and out:
        # `%cd policies` (or the bare `cd policies`, an automagic) moves the kernel: what the cell
        # runs after it runs there
        folders = [m.group(1).strip() or "~" for m in _bounded(_IPYTHON_CD, code, out)]
        out += [f"cd -- {folder} && {line}" for folder in folders[:8] for line in out[:64] if line is not None]
    return out


def _bounded(pattern: re.Pattern[str], code: str, out: list[str | None]) -> list[re.Match[str]]:
    """The first _MAX_IPYTHON_CALLS matches of ``pattern``; past them a None in ``out`` (asks)."""
    found = list(itertools.islice(pattern.finditer(code), _MAX_IPYTHON_CALLS + 1))
    if len(found) > _MAX_IPYTHON_CALLS:
        out.append(None)
        del found[_MAX_IPYTHON_CALLS:]
    return found


def _cell_magic(name: str, line: str, body: str, depth: int) -> list[str | None]:
    """What a cell magic runs: a shell's cell, an interpreter's program, a written file (`tee`)."""
    if name == "script":
        interpreter, _, line = line.partition(" ")
        name = interpreter.rsplit("/", 1)[-1]
    if name in _CELL_SHELLS or name in SHELL_LANGUAGES:
        return [body]
    if name in _CELL_LANGUAGES:
        return [code_command(_CELL_LANGUAGES[name], body)]
    if name in ("writefile", "file"):
        return [f"tee {line}"]
    # `%%time`, `%%capture`: the cell is run as Python (its lines are read with the program's), and
    # may open with a cell magic of its own
    inner = _IPYTHON_CELL.match(body)
    if inner is None:
        return []
    if depth >= _MAX_IPYTHON_DEPTH:
        return [None]
    return _cell_magic(inner.group(1), inner.group(2).strip(), inner.group(3), depth + 1)


def _ipython_calls(code: str, depth: int) -> list[str | None]:
    """The kernel's calls in ``code`` (see _IPYTHON_CALL), read as the text they run."""
    out: list[str | None] = []
    for n, match in enumerate(_IPYTHON_CALL.finditer(code)):
        if n >= _MAX_IPYTHON_CALLS or depth >= _MAX_IPYTHON_DEPTH:
            out.append(None)
            break
        arguments = _literal_arguments(code, match.end())
        name = match.group(1)
        if arguments is None or len(arguments) != _IPYTHON_ARITY.get(name, 1):
            out.append(None)  # computed, or given as keywords
        elif name == "run_cell_magic":
            out += ipython_commands(f"%%{arguments[0]} {arguments[1]}\n{arguments[2]}", depth + 1)
        elif name == "run_line_magic":
            out += ipython_commands(f"%{arguments[0]} {arguments[1]}", depth + 1)
        elif name == "magic":
            out += ipython_commands("%" + arguments[0].lstrip("%"), depth + 1)
        elif name == "run_cell":
            out += ipython_commands(arguments[0], depth + 1)
        else:
            out.append(arguments[0])
    return out


def _literal_arguments(code: str, at: int) -> list[str] | None:
    """A call's arguments from ``at`` (past its `(`) when each is a string literal, else None."""
    import ast  # noqa: PLC0415

    out: list[str] = []
    while len(out) < 4:
        found = _PY_ARGUMENT.match(code, at)
        if found is None:
            return None
        try:
            value = ast.literal_eval(found.group(1))
        except (ValueError, SyntaxError):  # `'\\N{nothing}'`: not a string Python reads
            return None
        if not isinstance(value, str):
            return None
        out.append(value)
        if found.group(3):
            return out
        at = found.end()
    return None


def code_command(language: str, code: str) -> str:
    """The command line that runs ``code`` in ``language`` (a CODE_LANGUAGES name) as an inline program."""
    import shlex  # noqa: PLC0415

    prefix = CODE_LANGUAGES[language]
    return f"{prefix} {shlex.quote(code)}" if prefix else code
