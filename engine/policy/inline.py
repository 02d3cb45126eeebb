"""Shell commands an inline program hands to the system.

`os.system("...")`, `subprocess.run(["rm", "-rf", os.path.expanduser("~")])`,
`require('child_process').spawnSync('rm', ['-rf', os.homedir()])`, perl's
`system "rm", "-rf", $ENV{HOME}`, backticks and `qx{}`, awk's pipes, AppleScript's
`do shell script`, Tcl's `exec`, Emacs Lisp's `(shell-command ...)`: the string
literals of the call's arguments, in order, with expressions naming the home
directory read as `~`. What the arguments compute beyond literals is left to the
patterns on the program itself (a computed call is at least an ask).

Reading is linear in the program: the scan jumps from bracket to bracket on `re`
(quoted strings stepped over whole), each call's arguments are read within
_MAX_ARGUMENTS characters, and a program has _MAX_SCAN brackets and _MAX_READ
characters of arguments to spend in all. A program with more calls or more to read than that is past a limit
(OverBudget: the check asks, and denies when the flat scan finds a hardline command).
"""

from __future__ import annotations

import itertools
import re

from engine.policy.lexer import OverBudget

# Expressions that name the home directory (for paths in code, and arguments of calls).
HOME_EXPRESSIONS = (
    r"process\.env\.HOME|\bhomedir\(\)|Path\.home\(\)|Dir\.home|expanduser\(\s*['\"]~['\"]\s*\)"
    r"|os\.environ\[['\"]HOME['\"]\]|getenv\(\s*['\"]HOME['\"]\s*\)|\$env:USERPROFILE|\$HOME\b"
    r"|(?:environ|env)\.get\(\s*['\"]HOME['\"]\s*\)|Deno\.homeDir\(\)|ENV\[['\"]HOME['\"]\]"
    r"|\$_SERVER\[['\"]HOME['\"]\]|\$ENV\{HOME\}|ENVIRON\[\"HOME\"\]"
)
_CALL = re.compile(
    r"\b(?:system|popen|exec[lvpe]*|spawn\w*|check_output|check_call|getoutput|getstatusoutput|call|run|Popen"
    r"|shell_exec|passthru|proc_open|execSync|spawnSync|exec_command|execute|execFileSync|execFile"
    r"|shell-command(?:-to-string)?|async-shell-command|call-process(?:-shell-command)?"
    r"|start-process(?:-shell-command)?|process-lines)(?![\w-])"
)
# perl's quote operators: q(...) qq{...} q[...] q<...> q!...! (a string like '...' or "...").
_PERL_QUOTE = (
    r"(?<![\w$@%&])qq?\s*(?:\((?P<qparen>[^()]*)\)|\{(?P<qbrace>[^{}]*)\}|\[(?P<qbracket>[^\[\]]*)\]"
    r"|<(?P<qangle>[^<>]*)>|(?P<qd>[^\w\s(\[{<),;=+.])(?P<qother>(?:(?!(?P=qd)).)*)(?P=qd))"
)
_PERL_QUOTED = re.compile(_PERL_QUOTE, re.DOTALL)
_ARGUMENT = re.compile(
    r"(?P<home>" + HOME_EXPRESSIONS + r")"
    r"|" + _PERL_QUOTE + r"|\"(?P<double>(?:[^\"\\]|\\.)*)\"|'(?P<single>(?:[^'\\]|\\.)*)'"
    r"|(?P<stop>\b[A-Za-z_]\w*\s*=(?!=)|\{|:\w+\s*=>)"  # keyword arguments and option objects end the command
    r"|(?P<name>(?<![\w.$])[$@]?[A-Za-z_]\w*(?:\.\w+)*(?![\w(]))"  # a variable: a word known only at run time
)
_ESCAPE = re.compile(r"\\(.)")
# Second names for a call (`from os import system as s`, `s = os.system`, `{execSync: run1}`):
# group 1 the name the call goes by, group 2 the new name.
_ALIAS = re.compile(
    r"\b(\w+)\s+as\s+(\w+)"
    r"|(?<![\w.])(\w+)\s*=\s*(?:[\w.]+\.)?(\w+)\s*(?=[;\n,)]|$)"
    r"|\b(\w+)\s*:\s*(\w+)\s*[,}]"
)
_BACKTICK_CODE = re.compile(r"`([^`]+)`|%x\(([^)]*)\)|qx[({]([^)}]*)[)}]")
# awk's pipes: `print | "cmd"`, `"cmd" | getline`, `"cmd" |& getline`.
_AWK_PIPE = re.compile(r"\|&?\s*(\"(?:[^\"\\]|\\.)*\")|(\"(?:[^\"\\]|\\.)*\")\s*\|&?\s*getline")
# AppleScript's `do shell script "..."`; Tcl/expect's `exec ...` and `spawn ...`.
_DO_SHELL_SCRIPT = re.compile(r"do\s+shell\s+script\s+(\"(?:[^\"\\]|\\.)*\")", re.IGNORECASE)
_TCL_EXEC = re.compile(r"(?:^|[\[;{\s])(?:exec|spawn)\s+([^\];}\n]+)")
# cmake: `execute_process(COMMAND sh -c "...")`, `add_custom_command(... COMMAND rm -rf x ...)`: the
# words after COMMAND up to the next keyword or the call's end (run without a shell: as argv words).
_CMAKE_COMMAND = re.compile(r"\bCOMMAND\s+((?:[^()\n]|\([^()\n]*\))+?)(?=\s+[A-Z][A-Z_]{2,}\b|\s*\)|\n|$)")
# ninja: a rule's `command = ...` (run through /bin/sh -c)
_NINJA_COMMAND = re.compile(r"(?m)^[ \t]*command[ \t]*=[ \t]*(.+)$")
_MAX_ARGUMENTS = 4096  # characters of one call's arguments that are read
_MAX_CALLS = 64  # calls read per program (the inline_computed_call pattern judges what it builds)
_MAX_SCAN = 2048  # brackets stepped over per program, in all its calls
_MAX_READ = 64 * 1024  # characters of arguments read per program, in all its calls
# From where a scan is to the next bracket, quoted strings (their backslash escapes skipped) and
# other text stepped over at once: group 1 is the bracket, or a quote that is never closed.
_NEXT = re.compile(
    r"""(?:[^"'()\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+"|'[^'\\]*+(?:\\.[^'\\]*+)*+')*+([()\[\]{}"'])""",
    re.DOTALL,
)


class _Spent:
    """What reading one program has spent of its budget."""

    __slots__ = ("read", "steps")

    def __init__(self) -> None:
        self.steps = 0
        self.read = 0

    def take(self, text: str) -> str:
        self.read += len(text)
        if self.read > _MAX_READ:
            raise OverBudget(f"an inline program with more than {_MAX_READ} characters of call arguments")
        return text


def embedded_shell(code: str, language: str = "") -> list[str]:
    """Shell commands ``code`` hands to the system, as far as its literals say.

    Raises:
        OverBudget: more calls, or more to read in them, than the limits (see the module).
    """
    scripts: list[str] = []
    spent = _Spent()
    if language == "awk":
        for match in _AWK_PIPE.finditer(code):
            literal = match.group(1) or match.group(2)
            scripts.append(_unescape(literal[1:-1]))
    elif language == "osascript":
        scripts += [_unescape(m.group(1)[1:-1]) for m in _DO_SHELL_SCRIPT.finditer(code)]
    elif language in ("expect", "tclsh"):
        scripts += [m.group(1).strip() for m in _TCL_EXEC.finditer(code)]
    elif language == "cmake":
        scripts += [m.group(1).strip() for m in itertools.islice(_CMAKE_COMMAND.finditer(code), _MAX_CALLS)]
    elif language == "ninja":
        scripts += [m.group(1).strip() for m in itertools.islice(_NINJA_COMMAND.finditer(code), _MAX_CALLS)]
    # One past _MAX_CALLS is enough to know the program is past it (not every `exec(` of 64 KiB).
    calls = list(itertools.islice(_CALL.finditer(code), _MAX_CALLS + 1))
    aliases = _aliases(code)
    if aliases:
        calls += re.finditer(r"(?<![\w.$])(?:" + "|".join(map(re.escape, aliases)) + r")(?![\w-])", code)
    for n, match in enumerate(calls):
        if n >= _MAX_CALLS:
            raise OverBudget(f"an inline program with more than {_MAX_CALLS} calls that may run a command")
        arguments = spent.take(_arguments(code, match.start(), match.end(), spent))
        if arguments:
            words = _words(arguments)
            if len(words) > 1 and _ARGV_FORM.match(arguments) and "+" not in arguments:
                # a list of arguments (`["sh", "-c", "rm -rf ~"]`, `"rm", "-rf", $HOME`): each one word
                words = [w if w == "~" or w.startswith("$") or _PLAIN.fullmatch(w) else _quoted(w) for w in words]
            if words:
                scripts.append(" ".join(words))
    for match in _BACKTICK_CODE.finditer(code):
        script = next((g for g in match.groups() if g), None)
        if script:
            scripts.append(script)
    return scripts


_ARGV_FORM = re.compile(r"\s*\[|[^,]*,")
_PLAIN = re.compile(r"[\w@%+=:,./~-]+")


def _quoted(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _aliases(code: str) -> list[str]:
    """Names a call that may run a command goes by besides its own (`system as s`, `s = os.system`)."""
    if " as " not in code and "=" not in code and ":" not in code:
        return []
    out: list[str] = []
    for match in _ALIAS.finditer(code):
        if match.group(1) is not None:
            name, alias = match.group(1), match.group(2)
        elif match.group(3) is not None:
            alias, name = match.group(3), match.group(4)
        else:
            name, alias = match.group(5), match.group(6)
        if alias != name and _CALL.fullmatch(name) and alias not in out:
            out.append(alias)
            if len(out) >= _MAX_CALLS:
                break
    return out


def _arguments(code: str, start: int, end: int, spent: _Spent) -> str:
    """The text of a call's arguments: `f(ARGS)`, perl/ruby `f ARGS;`, or lisp `(f ARGS)`."""
    before = start
    while before > 0 and code[before - 1].isspace():
        before -= 1
    i = end
    while i < len(code) and code[i] in " \t":
        i += 1
    if before > 0 and code[before - 1] == "(":  # (shell-command "...")
        return _balanced(code, end, ")", spent)
    if i < len(code) and code[i] == "(":
        return _balanced(code, i + 1, ")", spent)
    if i < len(code) and code[i] == "q":  # perl: system q(rm -rf x)
        quoted = _PERL_QUOTED.match(code, i, min(len(code), i + _MAX_ARGUMENTS))
        return quoted.group(0) if quoted else ""
    if i < len(code) and code[i] in "\"'[":
        # Up to the first mark; the search is bounded by what is left to read (past it, OverBudget).
        limit = min(len(code), i + _MAX_READ - spent.read + 1)
        stop = limit
        for mark in (";", "\n", "}"):
            at = code.find(mark, i, stop)
            if at >= 0:
                stop = at
        return code[i:stop]
    return ""


def _balanced(code: str, i: int, closer: str, spent: _Spent) -> str:
    """Text from ``i`` to the closer that ends the group open before it (quotes skipped)."""
    depth = 1
    start = i
    limit = min(len(code), i + _MAX_ARGUMENTS)
    step = _NEXT.match
    steps = spent.steps
    try:
        while True:
            found = step(code, i, limit)
            if found is None:
                return ""  # not closed within the limit: nothing certain to read
            steps += 1
            at = found.end() - 1
            ch = code[at]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0 and ch == closer:
                    return code[start:at]
            else:
                return ""  # a quote not closed within the limit
            if steps > _MAX_SCAN:
                raise OverBudget(f"an inline program with more than {_MAX_SCAN} brackets in its calls")
            i = at + 1
    finally:
        spent.steps = steps


def _words(arguments: str) -> list[str]:
    words: list[str] = []
    for token in _ARGUMENT.finditer(arguments):
        if token.group("stop"):
            break
        if token.group("home"):
            words.append("~")
        elif token.group("name"):
            words.append("$" + token.group("name").lstrip("$@").replace(".", "_"))
        elif token.group("qd") is not None or token.group(0)[:1] == "q":
            quoted = next((g for g in token.group("qparen", "qbrace", "qbracket", "qangle", "qother") if g), "")
            words.append(quoted)
        else:
            literal = token.group("double") if token.group("double") is not None else token.group("single")
            words.append(_unescape(literal or ""))
    return words


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: m.group(1), text)
