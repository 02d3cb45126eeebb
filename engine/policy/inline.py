"""Shell commands an inline program hands to the system.

`os.system("...")`, `subprocess.run(["rm", "-rf", os.path.expanduser("~")])`,
`require('child_process').spawnSync('rm', ['-rf', os.homedir()])`, perl's
`system "rm", "-rf", $ENV{HOME}`, backticks and `qx{}`, awk's pipes, AppleScript's
`do shell script`, Tcl's `exec`, Emacs Lisp's `(shell-command ...)`: the string
literals of the call's arguments, in order, with expressions naming the home
directory read as `~`. What the arguments compute beyond literals is left to the
patterns on the program itself (a computed call is at least an ask).
"""

from __future__ import annotations

import re

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
_ARGUMENT = re.compile(
    r"(?P<home>" + HOME_EXPRESSIONS + r")"
    r"|\"(?P<double>(?:[^\"\\]|\\.)*)\"|'(?P<single>(?:[^'\\]|\\.)*)'"
    r"|(?P<stop>\b[A-Za-z_]\w*\s*=(?!=)|\{|:\w+\s*=>)"  # keyword arguments and option objects end the command
    r"|(?P<name>(?<![\w.$])[$@]?[A-Za-z_]\w*(?:\.\w+)*(?![\w(]))"  # a variable: a word known only at run time
)
_ESCAPE = re.compile(r"\\(.)")
_BACKTICK_CODE = re.compile(r"`([^`]+)`|%x\(([^)]*)\)|qx[({]([^)}]*)[)}]")
# awk's pipes: `print | "cmd"`, `"cmd" | getline`, `"cmd" |& getline`.
_AWK_PIPE = re.compile(r"\|&?\s*(\"(?:[^\"\\]|\\.)*\")|(\"(?:[^\"\\]|\\.)*\")\s*\|&?\s*getline")
# AppleScript's `do shell script "..."`; Tcl/expect's `exec ...` and `spawn ...`.
_DO_SHELL_SCRIPT = re.compile(r"do\s+shell\s+script\s+(\"(?:[^\"\\]|\\.)*\")", re.IGNORECASE)
_TCL_EXEC = re.compile(r"(?:^|[\[;{\s])(?:exec|spawn)\s+([^\];}\n]+)")
_MAX_ARGUMENTS = 4096  # characters of one call's arguments that are read
_MAX_CALLS = 64  # calls read per program (the inline_computed_call pattern judges what it builds)


def embedded_shell(code: str, language: str = "") -> list[str]:
    """Shell commands ``code`` hands to the system, as far as its literals say."""
    scripts: list[str] = []
    if language == "awk":
        for match in _AWK_PIPE.finditer(code):
            literal = match.group(1) or match.group(2)
            scripts.append(_unescape(literal[1:-1]))
    elif language == "osascript":
        scripts += [_unescape(m.group(1)[1:-1]) for m in _DO_SHELL_SCRIPT.finditer(code)]
    elif language in ("expect", "tclsh"):
        scripts += [m.group(1).strip() for m in _TCL_EXEC.finditer(code)]
    for n, match in enumerate(_CALL.finditer(code)):
        if n >= _MAX_CALLS:
            break
        arguments = _arguments(code, match.start(), match.end())
        if arguments:
            words = _words(arguments)
            if words:
                scripts.append(" ".join(words))
    for match in _BACKTICK_CODE.finditer(code):
        script = next((g for g in match.groups() if g), None)
        if script:
            scripts.append(script)
    return scripts


def _arguments(code: str, start: int, end: int) -> str:
    """The text of a call's arguments: `f(ARGS)`, perl/ruby `f ARGS;`, or lisp `(f ARGS)`."""
    before = code[:start].rstrip()
    i = end
    while i < len(code) and code[i] in " \t":
        i += 1
    if before.endswith("("):  # (shell-command "...")
        return _balanced(code, end, ")")
    if i < len(code) and code[i] == "(":
        return _balanced(code, i + 1, ")")
    if i < len(code) and code[i] in "\"'[":
        stop = len(code)
        for mark in (";", "\n", "}"):
            at = code.find(mark, i)
            if at >= 0:
                stop = min(stop, at)
        return code[i:stop]
    return ""


def _balanced(code: str, i: int, closer: str) -> str:
    """Text from ``i`` to the closer that ends the group open before it (quotes skipped)."""
    depth = 1
    start = i
    limit = min(len(code), i + _MAX_ARGUMENTS)
    quote = ""
    while i < limit:
        ch = code[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0 and ch == closer:
                return code[start:i]
        i += 1
    return ""  # not closed within the limit: nothing certain to read


def _words(arguments: str) -> list[str]:
    words: list[str] = []
    for token in _ARGUMENT.finditer(arguments):
        if token.group("stop"):
            break
        if token.group("home"):
            words.append("~")
        elif token.group("name"):
            words.append("$" + token.group("name").lstrip("$@").replace(".", "_"))
        else:
            literal = token.group("double") if token.group("double") is not None else token.group("single")
            words.append(_unescape(literal or ""))
    return words


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: m.group(1), text)
