"""One pre-tool hook event of a coding agent, judged by the project's policy.

An agent (Claude Code, Codex CLI, Gemini CLI) sends the call it is about to make as JSON;
:func:`parse_event` maps its tool onto the engine's (its shell tool onto ``terminal``, its
write and edit tools onto ``write_file``/``patch``, its read and search tools onto
``read_file``/``search_files``/``list_dir``, MCP tools ``mcp__srv__tool`` onto the same
name), :func:`judge` decides, and :func:`render` answers in that agent's protocol.

What the engine does not guard gets no opinion (the agent's own permission rules apply);
what it judged is allowed, asked about (in the agent's own prompt) or denied. Every
decision is written to the project's audit log. Anything unexpected -- input that is not
a hook event, a project that does not load, a bug -- raises :class:`GuardError` or another
exception, which the command turns into exit 2 (the code every agent reads as "block").
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from engine.policy.arguments import (
    COMMAND_ARGUMENTS,
    SHELL_LANGUAGES,
    TYPED_ARGUMENTS,
    carries_code,
    key_words,
    names_a_command,
    names_code,
)
from engine.records import MISSING, Record

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

    from engine.guard.cache import CompiledProject
    from engine.policy.evaluate import Evaluator

AGENTS = ("claude-code", "codex", "gemini")
# An agent's content search (Claude Code's Grep, Gemini's search_file_content): ripgrep over a
# folder, reading and printing what matches. Unlike the engine's search_files it skips no secret
# file, so it is a tool of its own for the policy: a folder above secrets (`~`) asks.
AGENT_SEARCH = "agent_search"
MAX_EVENT_BYTES = 8 << 20
DEFER = "defer"  # no opinion: the agent's own permission rules decide

# Claude Code's tools (https://docs.anthropic.com/en/docs/claude-code/hooks): tool -> (engine tool, path keys).
_CLAUDE_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Write": ("write_file", ("file_path",)),
    "Edit": ("patch", ("file_path",)),
    "MultiEdit": ("patch", ("file_path",)),
    "NotebookEdit": ("write_file", ("notebook_path",)),
    "Read": ("read_file", ("file_path",)),
    "NotebookRead": ("read_file", ("notebook_path",)),
    "Grep": (AGENT_SEARCH, ("path",)),
    "Glob": ("search_files", ("path",)),
    "LS": ("list_dir", ("path",)),
}
# Gemini CLI's built-in tools (docs/tools in google-gemini/gemini-cli).
_GEMINI_FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    "write_file": ("write_file", ("file_path", "absolute_path", "path")),
    "replace": ("patch", ("file_path", "absolute_path", "path")),
    "edit": ("patch", ("file_path", "absolute_path", "path")),
    "read_file": ("read_file", ("file_path", "absolute_path", "path")),
    "read_many_files": ("read_file", ("paths", "include")),
    "list_directory": ("list_dir", ("dir_path", "path")),
    "glob": ("search_files", ("dir_path", "path")),
    "search_file_content": (AGENT_SEARCH, ("dir_path", "path")),
    "grep_search": (AGENT_SEARCH, ("dir_path", "path")),
}
# The input keys holding a search's globs (ripgrep's `--glob`): `*` or `.env*` brings hidden
# files, which ripgrep otherwise skips, into the search.
_GLOB_KEYS: dict[str, tuple[str, ...]] = {
    "Grep": ("glob",),
    "search_file_content": ("include",),
    "grep_search": ("include",),
    "read_many_files": ("paths", "include"),
}
_SEARCH_TOOLS = frozenset({"search_files", "list_dir", AGENT_SEARCH})
_EVENTS = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}


class GuardError(Exception):
    """The input is not a hook event this guard can judge (the message says why)."""


class Call(Record):
    """An agent's tool call as the engine judges it: one or more (engine tool, arguments)."""

    __slots__ = ("agent", "tool", "session_id", "cwd", "checks")  # noqa: RUF023  (the fields' order)

    agent: str
    tool: str  # as the agent names it
    session_id: str | None
    cwd: str | None
    checks: list[tuple[str, dict[str, Any]]]

    def __init__(
        self,
        agent: str,
        tool: str,
        session_id: str | None,
        cwd: str | None,
        checks: list[tuple[str, dict[str, Any]]] = MISSING,
    ) -> None:
        self.agent = agent
        self.tool = tool
        self.session_id = session_id
        self.cwd = cwd
        self.checks = [] if checks is MISSING else checks


class Decision(Record):
    """The guard's answer to a call, before it is put in the agent's protocol."""

    __slots__ = ("decision", "reason", "keys")  # noqa: RUF023  (the fields' order)

    decision: str  # allow, ask, deny, or defer (no opinion)
    reason: str
    keys: tuple[str, ...]

    def __init__(self, decision: str, reason: str, keys: tuple[str, ...] = ()) -> None:
        self.decision = decision
        self.reason = reason
        self.keys = keys


# -- reading the event ---------------------------------------------------------------


def read_event(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_EVENT_BYTES:
        raise GuardError(f"the hook event is larger than {MAX_EVENT_BYTES} bytes")
    try:
        event = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise GuardError(f"the hook event is not JSON ({exc})") from None
    if not isinstance(event, dict):
        raise GuardError(f"the hook event is a JSON {type(event).__name__}, not an object")
    return event


def _text(event: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    value = event.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise GuardError(f"the hook event's {key!r} must be a non-empty string")
    return value


def parse_event(agent: str, event: Mapping[str, Any]) -> Call:
    """The engine's view of one hook event. Raises GuardError when it is not a pre-tool event."""
    if agent not in AGENTS:
        raise GuardError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
    name = event.get("hook_event_name")
    if name is not None and name != _EVENTS[agent]:
        raise GuardError(f"the guard answers {_EVENTS[agent]} events, not {name!r}")
    tool = _text(event, "tool_name", required=True)
    assert tool is not None
    tool_input = event.get("tool_input", {})
    if not isinstance(tool_input, dict):
        raise GuardError("the hook event's 'tool_input' must be an object")
    session = event.get("session_id")
    call = Call(agent, tool, session if isinstance(session, str) and session else None, _text(event, "cwd"))
    if tool.startswith("mcp__"):
        call.checks.append((tool, dict(tool_input)))
        _mcp(call, tool, tool_input)
    elif agent == "gemini":
        _gemini(call, tool, tool_input)
    else:
        _claude_or_codex(call, tool, tool_input)
    return call


# An MCP tool's arguments that name files, and the ones that are a command line: a filesystem
# server's write_file must not reach the engine's own files, nor a shell server's run_command
# run `rm -rf ~`, unjudged. What such a tool does with a path is read from its name.
# fmt: off
_MCP_PATH_KEYS = frozenset({
    "path", "paths", "file", "files", "file_path", "filepath", "filename", "file_name", "notebook_path",
    "absolute_path", "dir", "dir_path", "directory", "folder", "source", "destination", "target", "src",
    "dst", "dest", "old_path", "new_path", "from", "to", "uri", "root", "cwd", "workdir",
})
# ... and any key whose last word is one of these (`repo_path`, `targetPath`, `outputDir`).
_PATH_WORDS = frozenset({"path", "paths", "dir", "directory", "folder", "file", "files", "filename", "uri"})
# A program and its arguments in two members (`{"command": "rm", "args": ["-rf", "~"]}`): judged joined.
_MCP_PROGRAM_KEYS = frozenset({*COMMAND_ARGUMENTS, "program", "executable", "binary", "exe"})
# What a server feeds the command it runs on its standard input (`{"command": "bash", "stdin": …}`).
_MCP_STDIN_KEYS = frozenset({"stdin", "input"})
_MCP_ARGV_KEYS = frozenset({"args", "arguments", "argv", "params", "parameters"})
_READ_VERBS = frozenset({
    "read", "get", "list", "ls", "search", "find", "grep", "glob", "view", "show", "cat", "head", "tail",
    "stat", "info", "tree", "query", "count", "diff", "exists", "describe", "inspect", "open", "lookup",
})
_WRITE_VERBS = frozenset({
    "write", "edit", "create", "delete", "remove", "move", "rename", "copy", "patch", "append", "replace",
    "set", "put", "update", "save",
})
# A version-control server's verbs that record or show what is on disk read the files they name
# (git writes its own folder, which the policy judges as `.git` wherever it is named); the verbs that
# put files back (checkout, reset, restore, merge...) write them, as does any unknown verb.
_VCS_NAMES = frozenset({"git", "hg", "svn", "jj"})
_VCS_RECORDING = frozenset({"add", "stage", "unstage", "commit", "status", "diff", "log", "show", "blame"})
_VCS_RESTORING = frozenset({
    "checkout", "switch", "reset", "restore", "revert", "merge", "rebase", "pull", "stash", "clean", "apply",
    "init", "clone", "rm", "mv", "am", "cherry", "pick",
})
# A tool whose name says it deletes (or empties) what a path names, or moves it away: each such path is
# judged as `rm -rf -- PATH` too (writing the path of a folder, HOME itself, is no protected write).
# A move's destination is only written: it keeps the write and read checks.
_DELETE_VERBS = frozenset({
    "delete", "del", "remove", "rm", "rmdir", "rmtree", "unlink", "trash", "clean", "empty", "purge", "wipe",
    "erase", "destroy",
})
_MOVE_VERBS = frozenset({"move", "mv", "rename"})
_DESTINATION_KEYS = frozenset({"destination", "dest", "dst", "to", "new_path", "newpath", "target", "new_name"})
# fmt: on
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_MAX_MCP_CHECKS = 256
# Marks a check that may only make a call stricter: its "allow" is no opinion (an MCP tool the
# user's own permission rules ask about must not be let through because its path is harmless).
_FLOOR = "\0floor"


def _mcp(call: Call, tool: str, tool_input: Mapping[str, Any]) -> None:
    """Checks for what an MCP tool's arguments name: each path as a write and a read (only a read
    when the tool's name says it reads: `read_file`, `list_directory`), each command line as a
    terminal command. The tool's own `rules:` still apply to the call as a whole."""
    words = {w.lower() for w in _WORD.findall(tool.rsplit("__", 1)[-1])}
    reads_only = bool(words & _READ_VERBS) and not words & _WRITE_VERBS
    if words & _VCS_NAMES and words & _VCS_RECORDING and not words & (_WRITE_VERBS | _VCS_RESTORING):
        reads_only = True  # `git_add {files: [policies/p.yaml]}` stages the file: it writes .git, not it
    engine_tools = ("read_file",) if reads_only else ("write_file", "read_file")
    deletes = not words.isdisjoint(_DELETE_VERBS)
    moves = not words.isdisjoint(_MOVE_VERBS)
    # A server or tool whose name says it runs commands (`mcp__shell__run`, `mcp__tmux__send_text`):
    # a string argument read neither as a path nor as a command by its name is judged as a command
    # too (fail closed: its name is the server's own choice). A tool of another kind (a note writer's
    # `content: "rm -rf ~"`) has its text judged only under the command names (see names_a_command).
    named = key_words(tool.removeprefix("mcp__"))
    runner = not _RUNNER_WORDS.isdisjoint(named)
    found: list[tuple[str, dict[str, Any]]] = []
    from engine.guard.processes import process_input  # noqa: PLC0415

    typed = process_input(tool, dict(tool_input))
    if typed is not None:
        # `interact_with_process {pid, input}`: judged with what the process was sent before
        # (engine.guard.processes); its text is not judged again as a fresh line below.
        found.append(("terminal", {"command": typed[1], _FLOOR: True, _PROCESS: typed[0]}))
    starting = not _START_WORDS.isdisjoint(named)
    # A program given to a tool that runs it (`execute_code {code}`): judged in its language.
    # Its source in a language named (`language: javascript`, `run_python_code`) is not read as a
    # command line too, unless the tool's name says it may be one (`mcp__shell__run_code`: the
    # `language` may be an argument such a server ignores).
    shellish = not _SHELL_NAME_WORDS.isdisjoint(named)
    programs, in_language = (
        _program_checks(tool, tool_input, shellish) if carries_code(tool, tool_input) else ([], set())
    )
    found += programs
    for key, value in _leaves(tool_input, 0):
        lowered = key.lower()
        if typed is not None and value is tool_input.get(key) and isinstance(value, str) and value == typed[1]:
            continue
        if starting and names_a_command(key) and isinstance(value, str) and value is tool_input.get(key):
            found.append(("terminal", {"command": value, _FLOOR: True, _STARTS: True}))
            continue  # judged as it is, and starts the process's record (see _process_checks)
        if lowered in _MCP_PATH_KEYS or _last_word(key) in _PATH_WORDS:
            for text in value if isinstance(value, list) else [value]:
                if isinstance(text, str) and text:
                    for path in _file_uri_paths(text):
                        found += [(engine_tool, {"path": path, _FLOOR: True}) for engine_tool in engine_tools]
                        if deletes or (moves and lowered not in _DESTINATION_KEYS):
                            found.append(("terminal", {"command": _removal(path), _FLOOR: True}))
            if len(found) > _MAX_MCP_CHECKS:
                raise GuardError(f"{tool}: more than {_MAX_MCP_CHECKS} paths and commands to judge")
            if not names_a_command(key):
                continue
        if id(value) in in_language and not names_a_command(key) and not shellish:
            continue  # `{"code": "console.log(1)", "language": "javascript"}`: judged as node's, above
        if names_a_command(key) or runner or (lowered in _MCP_ARGV_KEYS and _is_argv(value)):
            found += [("terminal", {"command": line, _FLOOR: True}) for line in _command_lines(value)]
        if len(found) > _MAX_MCP_CHECKS:
            raise GuardError(f"{tool}: more than {_MAX_MCP_CHECKS} paths and commands to judge")
    found += _leaf_texts(tool, tool_input, named)
    if len(found) > _MAX_MCP_CHECKS:
        raise GuardError(f"{tool}: more than {_MAX_MCP_CHECKS} paths and commands to judge")
    for members in _objects(tool_input, 0):
        # `{"code": "rm -rf ~", "language": "bash"}`: a shell program
        language = members.get("language", members.get("lang"))
        code = members.get("code")
        if isinstance(language, str) and language.lower() in SHELL_LANGUAGES and isinstance(code, str):
            found.append(("terminal", {"command": code, _FLOOR: True}))
    for line in _fed_commands(tool_input, tool):
        found.append(("terminal", {"command": line, _FLOOR: True}))
    for argv in _split_commands(tool_input):
        # Run as an argv (each word as given) or joined into a shell line (`~` expands): both judged.
        for line in dict.fromkeys((_command(argv, tool), " ".join(argv))):
            found.append(("terminal", {"command": line, _FLOOR: True}))
        if len(found) > _MAX_MCP_CHECKS:
            raise GuardError(f"{tool}: more than {_MAX_MCP_CHECKS} paths and commands to judge")
    call.checks += found


# A tool whose name says it applies a patch (`apply_patch {patch}`, `git_apply {diff}`), or runs SQL
# (`sqlite write_query {query}`, `postgres query {sql}`): see _leaf_texts.
_PATCH_TOOL_WORDS = frozenset({"patch", "patches", "diff", "apply"})
_SQL_TOOL_WORDS = frozenset({
    "sql", "sqlite", "sqlite3", "duckdb", "postgres", "postgresql", "pg", "psql", "mysql", "mariadb", "db",
    "database", "databases", "query", "queries", "statement",
})  # fmt: skip
_UNIFIED_TARGET = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?([^\t\n]+?)(?:\t.*)?$", re.MULTILINE)
_GIT_DIFF_TARGET = re.compile(r"^diff --git a/(\S+) b/(\S+)$|^rename to (.+)$|^copy to (.+)$", re.MULTILINE)


def _leaf_texts(tool: str, tool_input: Mapping[str, Any], named: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """What any string of an MCP tool's input names, whatever its key (adv28): a `file:` URI is a
    local file the server opens (`fetch {url: "file:///home/me/.ssh/id_rsa"}`: judged as a read);
    a patch given to a tool that applies one (a unified diff's `--- a/P`/`+++ b/P`, a Codex patch's
    headers) writes the files it names; SQL given to a database tool writes the files its
    `VACUUM INTO`/`ATTACH`/`COPY ... TO` name and runs the commands its shell escapes name (as
    sqlite3's and psql's input is judged on the terminal)."""
    from engine.policy.executors import sql_payloads, sql_written_paths  # noqa: PLC0415

    words = set(named)
    patches = not words.isdisjoint(_PATCH_TOOL_WORDS)
    sql = not words.isdisjoint(_SQL_TOOL_WORDS)
    out: list[tuple[str, dict[str, Any]]] = []
    for key, value in _leaves(tool_input, 0):
        lowered = key.lower()
        texts = value if isinstance(value, list) else [value]
        for text in texts:
            if not isinstance(text, str) or not text:
                continue
            if text[:5].lower() == "file:" and not (lowered in _MCP_PATH_KEYS or _last_word(key) in _PATH_WORDS):
                out += [("read_file", {"path": path, _FLOOR: True}) for path in _file_uri_paths(text)]
            if patches and "\n" in text:
                targets = [path for _, path in patch_targets(text)]
                targets += [m.group(1).strip() for m in _UNIFIED_TARGET.finditer(text)]
                for m in _GIT_DIFF_TARGET.finditer(text):
                    targets += [g.strip() for g in m.groups() if g]
                for path in dict.fromkeys(t for t in targets if t and t != "/dev/null"):
                    out.append(("write_file", {"path": path, _FLOOR: True}))
            if sql:
                out += [("write_file", {"path": path, _FLOOR: True}) for path in sql_written_paths(text)]
                for line in sql_payloads(text):
                    if line is None:
                        why = f"{tool} runs SQL whose command or file comes from data"
                        out.append((_UNREAD, {"why": why, _FLOOR: True}))
                    else:
                        out.append(("terminal", {"command": line, _FLOOR: True}))
    return out


# Markers on a check: the pid of the process an input is typed into, a process's start command, the
# shell state a process's input is judged with (see judge and engine.guard.processes).
_PROCESS = "\0process"
_STARTS = "\0starts"
_SHELL = "\0shell"
_MARKERS = (_FLOOR, _PROCESS, _STARTS, _SHELL)
_START_WORDS = frozenset({"start", "spawn", "launch"})
# A server's or tool's name word that says it runs what it is given (see _mcp).
_RUNNER_WORDS = frozenset({
    "run", "exec", "execute", "shell", "terminal", "command", "commands", "cmd", "process", "bash", "sh", "zsh",
    "tmux", "iterm", "iterm2", "console", "repl", "pty", "tty", "ssh", "commander", "powershell", "script",
})  # fmt: skip
# ... of those, the words that say it may run a shell's command lines (not only programs: `run_code`).
_SHELL_NAME_WORDS = _RUNNER_WORDS - {"run", "exec", "execute", "repl"}


def _program_checks(
    tool: str, tool_input: Mapping[str, Any], shellish: bool
) -> tuple[list[tuple[str, dict[str, Any]]], set[int]]:
    """What a tool that runs programs (arguments.runs_code: `execute_code`, `run_python_code`) is
    given as source, at any depth (arguments.names_code: `code`, `python_code`, `cell_source`): each
    judged as a terminal command, the inline program that runs it in its language (`python3 -c CODE`).
    The language is the one a `language` argument beside it names, else each one the argument's or
    the tool's name names (`run_python_code`, `js_code`), else the default (python). A language named
    that guard does not read (`"language": "rust"`), or a source or language that is not text, asks
    (fail closed). Python is also read for IPython's shell escapes (`!rm -rf ~`, `%%bash`: a
    Jupyter kernel runs them); on a tool whose name says it may run a shell's lines (``shellish``:
    `mcp__terminal__execute {source}`) each source is a command line too. Also returns the ids of
    the sources read in a language named for them, not a shell's: those are not read as command
    lines too (`console.log(x => 1)` is not a shell's)."""
    from engine.policy.arguments import (  # noqa: PLC0415
        CODE_LANGUAGES,
        DEFAULT_CODE_LANGUAGE,
        FILE_CONTENT_ARGUMENTS,
        LANGUAGE_ARGUMENTS,
        code_command,
        code_language,
        file_language,
        ipython_commands,
        named_languages,
    )

    out: list[tuple[str, dict[str, Any]]] = []
    programs: set[int] = set()
    outer = [v for k, v in tool_input.items() if k.lower() in LANGUAGE_ARGUMENTS and v not in (None, "")]
    for index, members in enumerate(_objects(tool_input, 0, lower=False)):
        given = [v for k, v in members.items() if k.lower() in LANGUAGE_ARGUMENTS and v not in (None, "")]
        extension = file_language(members) if index and not given else None
        if index and not given and extension is None:
            given = outer  # a file or cell object of the tool's: in the tool's language
        for key, value in members.items():
            # a nested object's `content` (Piston's `files: [{name, content}]`) is a file's program
            if value is None or not (
                names_code(key)
                or (index and key.lower() in FILE_CONTENT_ARGUMENTS)
                # `python_repl {command}`, `repl execute {input}`: a program, on a tool whose name
                # does not say it runs a shell's lines (those are command lines, judged as such)
                or (not shellish and names_a_command(key))
            ):
                continue
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                sources = list(dict.fromkeys(("".join(value), "\n".join(value))))  # a notebook cell's lines
            elif isinstance(value, str):
                sources = [value]
            elif isinstance(value, list) and any(isinstance(v, str) for v in value):
                out.append((_UNREAD, {"why": f"{tool}'s {key!r} is a program that is not text", _FLOOR: True}))
                continue
            else:
                continue  # a number, or an object or list of objects (their members are read as objects)
            sources = [s for s in sources if s.strip()]
            if not sources:
                continue
            languages: list[str] = []
            for name in given:
                language = code_language(name) if isinstance(name, str) else None
                if language is None:
                    why = f"{tool} runs a program in a language guard does not read ({name!r})"
                    out.append((_UNREAD, {"why": why, _FLOOR: True}))
                else:
                    languages.append(language)
            if extension is not None:
                languages = [extension]
            elif not given:
                languages = [*named_languages(key), *named_languages(tool.removeprefix("mcp__"))]
            if languages and all(CODE_LANGUAGES[language] for language in languages):
                programs.add(id(value))  # a language named, and not a shell: not a command line too
            if shellish:
                languages = [*(languages or [DEFAULT_CODE_LANGUAGE]), "shell"]  # it may be a command line
            for language in dict.fromkeys(languages or [DEFAULT_CODE_LANGUAGE]):
                out += [("terminal", {"command": code_command(language, s), _FLOOR: True}) for s in sources]
                if CODE_LANGUAGES[language] == CODE_LANGUAGES[DEFAULT_CODE_LANGUAGE]:  # IPython's escapes
                    for line in dict.fromkeys(c for s in sources for c in ipython_commands(s)):
                        if line is None:
                            why = f"{tool} runs an IPython magic or call whose command guard cannot read"
                            out.append((_UNREAD, {"why": why, _FLOOR: True}))
                        else:
                            out.append(("terminal", {"command": line, _FLOOR: True}))
            if len(out) > _MAX_MCP_CHECKS:
                raise GuardError(f"{tool}: more than {_MAX_MCP_CHECKS} programs to judge")
    return out, programs


def _command_lines(value: Any) -> list[str]:
    """The command lines an argument holding a command gives: a string as it is; a list of strings
    as an argv (quoted, each word as given), as words joined by blanks (a server that joins them
    for a shell: `~` expands), and as several commands (`commands: ["cd ~", "rm -rf .ssh"]`:
    each, and all of them in order as one script)."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not _is_argv(value):
        return []
    import shlex  # noqa: PLC0415

    return list(dict.fromkeys((shlex.join(value), " ".join(value), "\n".join(value), *value)))


def _removal(path: str) -> str:
    """The command line a tool deleting (or moving away) ``path`` stands for: `rm -rf -- PATH`."""
    from engine.policy.commands import shell_word  # noqa: PLC0415

    return "rm -rf -- " + shell_word(path)


def _file_uri_paths(text: str) -> list[str]:
    """The paths a path argument names: itself, and for a `file:` URI (any case of the scheme)
    the path a server opens for it: without `//`, `//localhost`, and percent-decoded."""
    if text[:5].lower() != "file:":
        return [text]
    from urllib.parse import unquote  # noqa: PLC0415

    rest = text[5:]
    if rest.startswith("//"):
        host, slash, tail = rest[2:].partition("/")
        # `file:///x` and `file://localhost/x` name /x; the old reading (`file://` cut) is kept too
        rest = "/" + tail if slash and host.lower() in ("", "localhost") else rest[2:]
    found = [text.removeprefix("file://"), rest, unquote(rest)]
    return list(dict.fromkeys(p for p in found if p))


def _objects(value: Any, depth: int, lower: bool = True) -> list[dict[str, Any]]:
    """Every object in ``value`` at any depth (lists of objects included), keys in lower case
    (as they are with ``lower`` false)."""
    if depth > 16:
        raise GuardError("the tool input is nested too deeply to judge")
    out: list[dict[str, Any]] = []
    if isinstance(value, dict):
        out.append({(str(k).lower() if lower else str(k)): v for k, v in value.items()})
        items: Iterable[Any] = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return out
    for item in items:
        if isinstance(item, (dict, list)):
            out += _objects(item, depth + 1, lower)
    return out


def _split_commands(value: Any) -> list[list[str]]:
    """[program, *args] of each object at any depth that gives a program and its arguments in
    two members (`{"command": "rm", "args": ["-rf", "~"]}`)."""
    out: list[list[str]] = []
    for lowered in _objects(value, 0):
        programs = [v for k, v in lowered.items() if k in _MCP_PROGRAM_KEYS and isinstance(v, str) and v.strip()]
        argvs = [v for k, v in lowered.items() if k in _MCP_ARGV_KEYS and isinstance(v, list)]
        for program in programs:
            for argv in argvs:
                out.append([program, *(a if isinstance(a, str) else json.dumps(a) for a in argv)])
    return out


def _fed_commands(value: Any, tool: str) -> list[str]:
    """A command with the text it is given on its standard input (`{"command": "bash", "stdin":
    "rm -rf ~"}`), at any depth, as the shell line that feeds it so: `COMMAND <<'EOF'` (what
    reads the text as commands is judged so, `cat` reads it as data). A text with no command
    beside it is judged as a command line by itself (TYPED_ARGUMENTS)."""
    out: list[str] = []
    for lowered in _objects(value, 0):
        commands = [v for k, v in lowered.items() if k in COMMAND_ARGUMENTS and (isinstance(v, str) or _is_argv(v))]
        for key, text in lowered.items():
            if key not in _MCP_STDIN_KEYS or not isinstance(text, str) or not text:
                continue
            end = "HERMES_ENGINE_INPUT"
            while end in text:
                end += "_"
            for command in commands:
                out.append(f"{_command(command, tool)} <<'{end}'\n{text}\n{end}\n")
            if not commands and key not in TYPED_ARGUMENTS:
                out.append(text)  # fed to a process the call does not name: any shell
    return out


def _last_word(key: str) -> str:
    words = _WORD.findall(key)
    return words[-1].lower() if words else ""


def _is_argv(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _leaves(value: Any, depth: int) -> list[tuple[str, Any]]:
    """(key, value) of every object member at any depth (lists of objects included), keys first."""
    if depth > 16:
        raise GuardError("the tool input is nested too deeply to judge")
    out: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((str(key), item))
            if isinstance(item, (dict, list)):
                out += _leaves(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                out += _leaves(item, depth + 1)
    return out


def _command(value: Any, tool: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        import shlex  # noqa: PLC0415

        return shlex.join(value)  # an argv, as older Codex shell tools send it
    raise GuardError(f"{tool}: 'command' must be a string or a list of strings")


def _paths(tool: str, tool_input: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for key in keys:
        value = tool_input.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, str) for v in values):
            raise GuardError(f"{tool}: {key!r} must be a path (a string) or a list of them")
        found += values
    return found


def _files(call: Call, engine_tool: str, paths: list[str], tool_input: Mapping[str, Any]) -> None:
    if not paths and engine_tool in _SEARCH_TOOLS:
        paths = ["."]  # a search without a path searches the working directory
    if not paths:
        raise GuardError(f"{call.tool}: no path in the tool input")
    globs = _globs(call.tool, tool_input)
    for path in paths:
        args: dict[str, Any] = {"path": path}
        if globs:
            # What the globs bring into the search is judged by judge() (it needs the policy's classes).
            args[_GLOBS] = globs
        call.checks.append((engine_tool, args))


_GLOBS = "\0globs"  # not an argument of any tool: judge() replaces it with the files it reaches
_GLOB_SPLIT = re.compile(r"[\s,]+(?![^{]*\})")  # Claude Code splits `glob` at spaces and commas outside braces


def _globs(tool: str, tool_input: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key in _GLOB_KEYS.get(tool, ()):
        value = tool_input.get(key)
        values = value if isinstance(value, list) else [value]
        for item in values:
            if item is None:
                continue
            if not isinstance(item, str):
                raise GuardError(f"{tool}: {key!r} must be a glob (a string) or a list of them")
            out += [g for g in _GLOB_SPLIT.split(item) if g]
    return out


def _claude_or_codex(call: Call, tool: str, tool_input: Mapping[str, Any]) -> None:
    if tool in ("Bash", "shell", "exec_command", "local_shell"):
        command = _command(tool_input.get("command", tool_input.get("cmd")), tool)
        args: dict[str, Any] = {"command": command}
        workdir = tool_input.get("workdir")
        if isinstance(workdir, str) and workdir:
            args["cwd"] = workdir
        call.checks.append(("terminal", args))
        _shell_patch(call, command, args.get("cwd"))
    elif tool == "write_stdin":
        # Codex's unified exec: text typed into a session exec_command started (`bash`) is a
        # command line like any other. Only ever stricter: stdin may feed a program, not a shell.
        chars = tool_input.get("chars")
        if chars is not None and not isinstance(chars, str):
            raise GuardError("write_stdin: 'chars' must be a string")
        if chars and chars.strip():
            call.checks.append(("terminal", {"command": chars, _FLOOR: True}))
            _shell_patch(call, chars)
    elif tool == "apply_patch" and call.agent == "codex":
        body = _command(tool_input.get("command", tool_input.get("input")), tool)
        for engine_tool, path in patch_targets(body):
            call.checks.append((engine_tool, {"path": path}))
        if not call.checks:
            raise GuardError("apply_patch: the patch names no file")
    elif tool in _CLAUDE_FILES:
        engine_tool, keys = _CLAUDE_FILES[tool]
        _files(call, engine_tool, _paths(tool, tool_input, keys), tool_input)
    else:
        call.checks.append((tool, dict(tool_input)))


def _gemini(call: Call, tool: str, tool_input: Mapping[str, Any]) -> None:
    if tool == "run_shell_command":
        args: dict[str, Any] = {"command": _command(tool_input.get("command"), tool)}
        where = tool_input.get("dir_path", tool_input.get("directory"))
        if isinstance(where, str) and where:
            args["cwd"] = where
        call.checks.append(("terminal", args))
        _shell_patch(call, args["command"], args.get("cwd"))
    elif tool in _GEMINI_FILES:
        engine_tool, keys = _GEMINI_FILES[tool]
        _files(call, engine_tool, _paths(tool, tool_input, keys), tool_input)
    else:
        call.checks.append((tool, dict(tool_input)))


# A patch a shell line applies, placed at judging time (engine.policy.shell reads the line with
# the project's Programs table); a patch applied where only the run knows.
_SHELL_PATCH = "\0shell_patch"
_UNPLACED = "\0unplaced"
_UNREAD = "\0unread"  # a program guard cannot read (an MCP tool's code in an unknown language): asks


def _shell_patch(call: Call, command: str, workdir: str | None = None) -> None:
    """Codex applies a patch run as a shell command itself (`apply_patch <<'EOF'`, or the argv
    `["apply_patch", PATCH]`): each file it names is judged as a write, as in its apply_patch tool,
    where Codex applies it too: in the call's ``workdir``, in the directory the line has moved to
    before it (see _placed_patches), and as the plain path: the strictest wins."""
    if "*** Begin Patch" not in command:
        return
    for engine_tool, path in patch_targets(command):
        call.checks.append((engine_tool, {"path": path}))
        if workdir and not os.path.isabs(path):
            call.checks.append((engine_tool, {"path": os.path.join(workdir, path)}))
    call.checks.append((_SHELL_PATCH, {"command": command, "cwd": workdir}))


def _placed_patches(
    project: CompiledProject, checks: list[tuple[str, dict[str, Any]]]
) -> list[tuple[str, dict[str, Any]]]:
    """``checks`` with each shell line's patch placed where the shell applies it: the analyzer's
    directory for each `apply_patch` the line runs (after `cd`, `pushd`, a wrapper's `-C`, an alias:
    engine.policy.shell models them, as the terminal check does). A directory known only at run
    time (`cd -`, `cd "$(…)"`, CDPATH), a command named only at run time, or a line the analyzer
    cannot read is an _UNPLACED check: the guard asks."""
    from engine.policy.lexer import ShellSyntaxError  # noqa: PLC0415
    from engine.policy.shell import parse  # noqa: PLC0415

    assert project.policy is not None
    out: list[tuple[str, dict[str, Any]]] = []
    for tool, args in checks:
        if tool != _SHELL_PATCH:
            out.append((tool, args))
            continue
        command, workdir = args["command"], args["cwd"]
        try:
            runs = [c for c in parse(command, project.policy.programs) if c.name in ("apply_patch", "")]
        except ShellSyntaxError:
            out.append((_UNPLACED, {"why": "a line the analyzer cannot read"}))
            continue
        places = dict.fromkeys(c.cwd for c in runs if c.cwd is not None)
        if any(not c.name for c in runs) or any(p.startswith("$") for p in places):
            out.append((_UNPLACED, {"why": "a directory or command known only when the line runs"}))
        folders = [p for p in places if not p.startswith("$")]
        if workdir:
            folders += [os.path.join(workdir, f) for f in folders]
        for engine_tool, path in patch_targets(command):
            if not os.path.isabs(path):
                out += [(engine_tool, {"path": os.path.join(f, path)}) for f in dict.fromkeys(folders)]
    return out


_PATCH_HEADERS = (
    ("*** Add File: ", "write_file"),
    ("*** Update File: ", "patch"),
    ("*** Delete File: ", "patch"),
    ("*** Move to: ", "write_file"),
)


def patch_targets(body: str) -> list[tuple[str, str]]:
    """(engine tool, path) for each file a Codex ``apply_patch`` body adds, changes, deletes or moves to.

    Read as Codex reads it (codex-rs apply-patch): lines end at ``\n`` only (Python's
    ``splitlines`` also ends one at U+2028, so `x\u2028/../policies/p.yaml` was judged as `x`),
    and a header is recognised after leading and trailing white space (`   *** Update File: p`).
    """
    out: list[tuple[str, str]] = []
    for raw in body.split("\n"):
        line = raw.strip()
        for header, engine_tool in _PATCH_HEADERS:
            marker = header.rstrip()
            if line.startswith(marker):
                path = line[len(marker) :].strip()
                if path:
                    out.append((engine_tool, path))
    return out


# -- judging -------------------------------------------------------------------------


def _workdir(project: CompiledProject, call: Call) -> Path:
    if call.cwd and os.path.isabs(call.cwd):
        return Path(call.cwd)
    return Path(project.config.workdir(project.root))


def evaluator_for(project: CompiledProject, workdir: Path) -> Evaluator:
    from engine.guard.deferred import release_collection  # noqa: PLC0415
    from engine.policy.evaluate import Evaluator  # noqa: PLC0415
    from engine.policy.places import engine_places  # noqa: PLC0415

    assert project.policy is not None
    places = engine_places(project.packs, project.config, workdir, project.audit_path())
    evaluator = Evaluator(project.policy, str(workdir), places)
    release_collection()  # a judging process has started: collections on again (engine.cli)
    return evaluator


def judge(project: CompiledProject, call: Call, evaluator: Evaluator | None = None) -> Decision:
    """Judge every check of ``call``; the strictest wins. Each check is written to the audit log."""
    if project.policy is None:
        raise GuardError("the project has no compiled policy")
    workdir = _workdir(project, call)
    evaluator = evaluator or evaluator_for(project, workdir)
    if any(_PROCESS in args or _STARTS in args for _, args in call.checks):
        from engine.guard.processes import Processes  # noqa: PLC0415

        with Processes(project.config.state_dir).locked() as processes:
            return _judge(project, call, evaluator, workdir, processes)
    return _judge(project, call, evaluator, workdir, None)


def _judge(project: CompiledProject, call: Call, evaluator: Evaluator, workdir: Path, processes: Any) -> Decision:
    from engine.policy.audit import AuditLog, redact  # noqa: PLC0415

    assert project.policy is not None
    audit = AuditLog(project.audit_path())
    decisions: list[Decision] = []
    settings = project.policy.settings
    checks, typed, starts = _process_checks(project, call, processes)
    for tool, given in _case_spellings(workdir, _reached(project, _placed_patches(project, checks))):
        floor = given.get(_FLOOR) is True
        shell = given.get(_SHELL)
        args = {k: v for k, v in given.items() if k not in _MARKERS} if floor or shell is not None else given
        guarded = project.policy.is_guarded(tool)
        if tool == _UNPLACED:  # fail closed: the files a patch writes are not known
            relaxed = settings.yolo or settings.mode == "off"
            decision = Decision("allow" if relaxed else "ask", f"hermes-engine asks: a patch applied in {args['why']}")
        elif tool == _UNREAD:  # fail closed: what the call runs cannot be read
            relaxed = settings.yolo or settings.mode == "off"
            decision = Decision("allow" if relaxed else "ask", f"hermes-engine asks: {args['why']}")
        elif guarded:
            decision = _decide(project, evaluator, call, tool, args, workdir, shell)
        else:
            decision = Decision(DEFER, "")
        if tool == "read_file" and decision.decision in ("allow", DEFER):
            linked = _hard_linked(evaluator, workdir, args.get("path"))
            if linked is not None:
                decision = Decision("ask", f"hermes-engine asks: {linked}", decision.keys)
        if floor and decision.decision == "allow":
            decision = Decision(DEFER, "", decision.keys)
        verdict_keys = list(decision.keys)
        record = {
            "tool": tool,
            "session_id": call.session_id,
            "task_id": None,
            "agent": call.agent,
            "agent_tool": call.tool,
            "decision": decision.decision,
            "outcome": f"guard-{decision.decision}",
            "allowed": decision.decision in ("allow", DEFER),
            "keys": verdict_keys,
            "command": redact(" ; ".join(_values(project, tool, args)) or tool),
        }
        try:
            audit.append(record)
        except Exception as exc:  # an unwritable audit log lets nothing risky through
            if decision.decision not in ("allow", DEFER):
                decision = Decision(
                    "deny", f"the audit log cannot be written ({exc}); {decision.reason}", decision.keys
                )
        decisions.append(decision)
    final = Decision(DEFER, "")
    for kind in ("deny", "ask", "allow"):
        chosen = [d for d in decisions if d.decision == kind]
        if chosen:
            reason = "; ".join(dict.fromkeys(d.reason for d in chosen if d.reason))
            final = Decision(kind, reason, tuple(k for d in chosen for k in d.keys))
            break
    if processes is not None and final.decision != "deny":
        # What the process was sent (refused: nothing); asked about: sent or not, nobody knows.
        for pid, text, candidates in typed:
            processes.sent(call.session_id, pid, text if final.decision != "ask" else None, candidates)
        for record in starts:
            processes.start(call.session_id, record)
        processes.save()
    return final


def _process_checks(
    project: CompiledProject, call: Call, processes: Any
) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str, list[Any]]], list[Any]]:
    """``call.checks`` with each input typed into a process judged with what that process was sent
    before (one check per record it may be: see engine.guard.processes), and the records of the
    processes it starts."""
    if processes is None:
        return call.checks, [], []
    from engine.guard.processes import started  # noqa: PLC0415
    from engine.policy.session_memory import inline_text  # noqa: PLC0415

    assert project.policy is not None
    programs = project.policy.programs
    checks: list[tuple[str, dict[str, Any]]] = []
    typed: list[tuple[str, str, list[Any]]] = []
    starts: list[Any] = []
    for tool, args in call.checks:
        if _STARTS in args:
            starts.append(started(args["command"], programs))
            checks.append((tool, {k: v for k, v in args.items() if k != _STARTS}))
            continue
        pid = args.get(_PROCESS)
        if not isinstance(pid, str):
            checks.append((tool, args))
            continue
        text = args["command"]
        candidates = processes.candidates(call.session_id, pid)
        typed.append((pid, text, candidates))
        for record in candidates:
            kind, shell = record.state(programs)
            line = text if text.endswith("\n") else text + "\n"
            if kind == "shell":
                checks.append((tool, {"command": line, _FLOOR: True, _SHELL: shell}))
            elif kind == "data":
                checks.append((tool, {"command": text, _FLOOR: True}))  # a program reading data: as before
            else:
                spelled = inline_text(programs, kind, line)
                checks.append((tool, {"command": spelled if spelled is not None else text, _FLOOR: True}))
    return checks, typed, starts


def _reached(project: CompiledProject, checks: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """``checks`` with each search's globs replaced by the secret files they bring into it: a
    glob that may select a hidden secret (`*`, `.env*`, `{.env,x}`: ripgrep searches hidden
    files a glob names) adds a read of ``PATH/.env`` (the policy's own names), which asks."""
    from engine.policy.paths import anywhere_names, glob_reaches  # noqa: PLC0415

    assert project.policy is not None
    out: list[tuple[str, dict[str, Any]]] = []
    names: list[str] | None = None
    for tool, args in checks:
        globs = args.get(_GLOBS)
        if not globs:
            out.append((tool, args))
            continue
        plain = {k: v for k, v in args.items() if k != _GLOBS}
        out.append((tool, plain))
        if names is None:
            classes = project.policy.classes
            every = anywhere_names([*classes.get("secret", ()), *classes.get("credential", ())])
            # ripgrep skips hidden files unless a glob names them; the others it reads without one.
            names = [n for n in every if any(part.startswith(".") for part in n.split("/"))]
        base = plain["path"] if tool == AGENT_SEARCH else "."
        for name in names:
            if any(glob_reaches(glob, name) for glob in globs):
                out.append((tool, {"path": os.path.join(base, name)}))
    return out


def _hard_linked(evaluator: Evaluator, workdir: Path, path: Any) -> str | None:
    """Why the agent's read of ``path`` asks when the file has other names (hard links) that are
    secrets or lie outside the working directory (see engine.policy.hardlinks), else None."""
    if not isinstance(path, str) or not path or "\0" in path:
        return None
    spelled = os.path.join(workdir, os.path.expanduser(path))
    try:
        info = os.stat(spelled)
    except (OSError, ValueError):
        return None
    if info.st_nlink <= 1 or not stat.S_ISREG(info.st_mode):
        return None
    from engine.policy.hardlinks import HardLinks  # noqa: PLC0415

    classify = evaluator.classifier.classify
    hidden = frozenset({"credential", "secret", "engine_state"})
    finder = HardLinks([Path(os.path.realpath(workdir))], lambda p: frozenset(classify(str(p))), hidden)
    return finder.refusal(Path(os.path.realpath(spelled)), info, path)


_FOLDED_TOOLS = ("write_file", "patch", "read_file", "list_dir", "search_files", AGENT_SEARCH)


def _case_spellings(workdir: Path, checks: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """``checks`` with each file tool's path also judged where a file system that ignores case lands
    it (the agent's own tools on macOS: `POLICIES/x.yaml` is `policies/x.yaml`, `.ENV` is `.env`)."""
    from engine.policy.landing import case_folded  # noqa: PLC0415

    out: list[tuple[str, dict[str, Any]]] = []
    for tool, args in checks:
        out.append((tool, args))
        path = args.get("path")
        if tool in _FOLDED_TOOLS and isinstance(path, str) and path and "\0" not in path:
            spelled = os.path.normpath(os.path.join(workdir, os.path.expanduser(path)))
            inside = spelled.startswith(str(workdir).rstrip("/") + "/")
            folded = case_folded(spelled, str(workdir) if inside else "/")
            if folded != spelled:
                out.append((tool, {**args, "path": folded}))
    return out


def _values(project: CompiledProject, tool: str, args: Mapping[str, Any]) -> list[str]:
    assert project.policy is not None
    out: list[str] = []
    for argument, _ in project.policy.targets.get(tool, ()):
        value = args.get(argument)
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            out += [str(v) for v in value]
    return out


def _decide(
    project: CompiledProject,
    evaluator: Evaluator,
    call: Call,
    tool: str,
    args: dict[str, Any],
    workdir: Path,
    shell: Any = None,
) -> Decision:
    from engine.policy.model import ALLOW, DENY  # noqa: PLC0415

    session = None
    if shell is not None:
        # a process's input: read from where the earlier inputs left its shell
        from engine.policy.session_memory import SessionMemory  # noqa: PLC0415

        session = SessionMemory().view(call.session_id, str(workdir))
        session.shell = shell
    verdict = evaluator.verdict(tool, args, session)
    keys = tuple(m.key for m in verdict.matches)
    described = "; ".join(dict.fromkeys(m.description for m in verdict.matches))
    if verdict.decision == ALLOW:
        return Decision("allow", "", keys)
    if verdict.decision == DENY:
        why = "a hardline pattern, never allowed" if verdict.hardline else "denied by the approval policy"
        return Decision("deny", f"hermes-engine refused ({why}): {described or verdict.reason or tool}", keys)
    return _ask(project, call, tool, args, verdict, workdir, described, keys)


def _ask(
    project: CompiledProject,
    call: Call,
    tool: str,
    args: dict[str, Any],
    verdict: Any,
    workdir: Path,
    described: str,
    keys: tuple[str, ...],
) -> Decision:
    """A call the policy asks about: a session grant or the policy's own settings may allow it;
    otherwise the agent asks its user (its own prompt; there is no second prompt of ours)."""
    from engine.policy.approval import ApprovalChain, ApprovalRequest  # noqa: PLC0415
    from engine.policy.scope import scope_matches  # noqa: PLC0415

    assert project.policy is not None
    settings = project.policy.settings
    values = tuple(_values(project, tool, args))
    where = args.get("cwd")
    scoped = scope_matches(tool, verdict, values, str(workdir), where if isinstance(where, str) else None)
    request = ApprovalRequest(
        tool, args, " ; ".join(values) or tool, verdict, call.session_id, None, values, str(workdir), scoped
    )
    chain = ApprovalChain()
    if call.session_id is not None and request.grantable:
        chain.store = _grant_store(project)
    if chain.granted(request):
        return Decision("allow", "granted earlier in this session", keys)
    if settings.yolo:
        return Decision("allow", "approvals.yolo is on", keys)
    if settings.mode == "off":
        return Decision("allow", "approvals.mode is off", keys)
    return Decision("ask", f"hermes-engine asks: {described or verdict.reason or 'approval required'}", keys)


def _grant_store(project: CompiledProject) -> Any:
    from engine.mcp.grants import SqliteGrantStore  # noqa: PLC0415

    return SqliteGrantStore(project.config.state_dir / "guard-grants.sqlite")


# -- answering -----------------------------------------------------------------------


def render(agent: str, decision: Decision) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) answering ``decision`` in ``agent``'s protocol."""
    reason = decision.reason
    if agent == "gemini":
        # BeforeTool: {"decision": "allow"|"deny"|"ask", "reason": ...} on exit 0.
        if decision.decision == DEFER:
            return 0, "{}", ""
        return 0, json.dumps({"decision": decision.decision, "reason": reason or decision.decision}), ""
    kind = decision.decision
    if agent == "codex" and kind == "ask":
        # Codex's PreToolUse honours "deny" only: a call that needs a person's approval is refused,
        # with the reason, rather than let through unasked.
        kind = "deny"
        reason = f"{reason} (Codex hooks cannot ask; run it yourself if it is intended)"
    if kind == DEFER or (agent == "codex" and kind == "allow"):
        return 0, "{}", ""
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": kind,
            "permissionDecisionReason": reason or "hermes-engine: no danger pattern matched",
        }
    }
    return 0, json.dumps(output), ""


def fail(reason: str) -> tuple[int, str, str]:
    """Fail closed: exit 2 is the one code all three agents read as "block this call"."""
    return 2, "", f"hermes-engine guard: {reason}; the call is blocked\n"


def run(agent: str, data: bytes, root: Path) -> tuple[int, str, str]:
    """One hook invocation, start to end. Never raises: any failure is exit 2."""
    try:
        call = parse_event(agent, read_event(data))
        from engine.guard.cache import load_project  # noqa: PLC0415

        project, result = load_project(root)
        if project is None:
            errors = [p.format() for p in (result.errors if result is not None else [])][:5]
            return fail("the project does not load: " + ("; ".join(errors) or "unknown error"))
        return render(agent, judge(project, call))
    except GuardError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return fail("interrupted")
    except BaseException as exc:  # fail closed, whatever it is
        return fail(f"internal error ({type(exc).__name__}: {exc})")


def run_process(agent: str, root: str | None, builtin: bool) -> None:
    """``hermes-engine guard --for AGENT [--root PATH | --builtin]`` as a whole process: stdin in,
    the answer out, the exit code. Parsed without the command-line library (engine.cli): it is
    what an agent starts once per tool call."""
    import sys  # noqa: PLC0415

    try:
        if builtin:
            from engine.source.project import builtin_pack_dir  # noqa: PLC0415

            where = builtin_pack_dir()
        else:
            where = Path(root) if root is not None else Path.cwd()
        code, out, err = run(agent, sys.stdin.buffer.read(), where)
    except BaseException as exc:  # fail closed
        code, out, err = fail(f"internal error ({type(exc).__name__})")
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    if err:
        sys.stderr.write(err)
        sys.stderr.flush()
    sys.exit(code)
