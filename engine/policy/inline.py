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
import posixpath
import re

from engine.policy.lexer import OverBudget
from engine.policy.regexes import Located

# Expressions that name the home directory (for paths in code, and arguments of calls).
HOME_EXPRESSIONS = (
    r"process\.env\.HOME|\bhomedir\(\)|Path\.home\(\)|Dir\.home|expanduser\(\s*['\"]~['\"]\s*\)"
    r"|(?:os|__import__\(\s*['\"]os['\"]\s*\))\.environ\[['\"]HOME['\"]\]|getenv\(\s*['\"]HOME['\"]\s*\)|\$env:USERPROFILE|\$HOME\b"
    r"|(?:environ|env)\.get\(\s*['\"]HOME['\"]\s*\)|Deno\.homeDir\(\)|ENV\[['\"]HOME['\"]\]"
    r"|\$_SERVER\[['\"]HOME['\"]\]|\$ENV\{HOME\}|ENVIRON\[\"HOME\"\]"
    # Tcl's `$env(HOME)` / `$::env(HOME)` and a bare `~` word (`file delete -force ~`), Emacs Lisp's
    # `(getenv "HOME")` (adv32)
    # (no `\s` inside a set: matchers' long-program form puts a set of blanks in its place)
    r"|\$(?:::)?env\(HOME\)|getenv\s+\"HOME\"|(?:^|\s|[\[{])~(?:\s|[;\]}]|$)"
)
# A program's string literals ("..." and '...', escapes kept), and runs of them joined (`"a" + "b"`,
# perl's and PHP's `.`, Lua's `..`, Python's `'a' 'b'`): the paths and names a program builds from pieces.
CODE_STRINGS = re.compile(r"\"[^\"\\]*(?:\\.[^\"\\]*)*\"|'[^'\\]*(?:\\.[^'\\]*)*'")
JOINED_HINT = re.compile(r"""["'](?:\s*(?:\+|\.\.?)\s*|\s+)["']""")
_JOINER = re.compile(r"\s*(?:\+|\.\.?)\s*|\s+")
_MAX_JOINED = 4096  # literals read for joins


def joined_literals(code: str) -> list[str]:
    """Each run of joined string literals in ``code`` as the one double-quoted literal it makes."""
    out: list[str] = []
    run: list[str] = []
    end = -1
    for literal in itertools.islice(CODE_STRINGS.finditer(code), _MAX_JOINED):
        if run and _JOINER.fullmatch(code, end, literal.start()) is None:
            if len(run) > 1:
                out.append('"' + "".join(run) + '"')
            run = []
        run.append(literal.group(0)[1:-1])
        end = literal.end()
    if len(run) > 1:
        out.append('"' + "".join(run) + '"')
    return out


def joined_reading(code: str) -> str:
    """``code`` with the literals it joins appended, each as the one literal it makes (fresh37b:
    `getattr(os, 'sys' + 'tem')`, `os["exe".."cute"]` read with `"system"`, `"execute"` in them too),
    or ``code`` itself when it joins none."""
    if JOINED_HINT.search(code) is None:
        return code
    joined = joined_literals(code)
    return code + "\n" + " ".join(joined) if joined else code


_CALL = re.compile(
    r"\b(?:system|popen|exec[lvpe]*|spawn\w*|check_output|check_call|getoutput|getstatusoutput|call|run|Popen"
    r"|shell_exec|passthru|proc_open|execSync|spawnSync|exec_command|execute|execFileSync|execFile"
    r"|shell-command(?:-to-string)?|async-shell-command|call-process(?:-shell-command)?"
    r"|start-process(?:-shell-command)?|process-lines"
    # (fresh38b) ruby's Open3 (`Open3.capture2("CMD")`, popen3, pipeline ...), python 2's os.popen2-4,
    # perl's IPC::System::Simple (`systemx`, `capturex`, `runx`), node's execa (`execaCommandSync("CMD")`)
    r"|capture[23]e?|popen[234]e?|Open3\.pipeline(?:_rw|_r|_w|_start)?|systemx|capturex|runx"
    r"|execa(?:Command)?(?:Sync)?(?=\s*\())(?![\w-])"
)
_CALL_AT = Located(_CALL)  # (over a long program: tried where RE2 finds a name)
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
# Second names for a call (`from os import system as s`, `s = os.system`, `{execSync: run1}`),
# read around each of the program's calls (_CALL matches) rather than by a regex over all of it
# (64 KiB of `x = 1` lines was 10,000 assignments to reject, ~15 ms): after the call's name, ` as
# NEW` or `: NEW,`; before it, `NEW = ` (a receiver, `os.`, between them) and after it the statement's end.
_AS_ALIAS = re.compile(r"\s+as\s+(\w+)")
_KEY_ALIAS = re.compile(r"\s*:\s*(\w+)\s*[,}]")
_ASSIGNED_END = re.compile(r"\s*(?=[;\n,)]|$)")
_WORD = re.compile(r"\w+")
_BACKTICK_CODE = re.compile(r"`([^`]+)`|%x\(([^)]*)\)|qx[({]([^)}]*)[)}]")
# awk's pipes: `print | "cmd"`, `"cmd" | getline`, `"cmd" |& getline`.
_AWK_PIPE = re.compile(r"\|&?\s*(\"(?:[^\"\\]|\\.)*\")|(\"(?:[^\"\\]|\\.)*\")\s*\|&?\s*getline")
# AppleScript's `do shell script "..."`; Tcl/expect's `exec ...` and `spawn ...`.
_DO_SHELL_SCRIPT = re.compile(r"do\s+shell\s+script\s+(\"(?:[^\"\\]|\\.)*\")", re.IGNORECASE)
_TCL_EXEC = re.compile(r"(?:^|[\[;{\s])(?:exec|spawn)\s+([^\];}\n]+)")
# cmake: `execute_process(COMMAND sh -c "...")`, `add_custom_command(... COMMAND rm -rf x ...)`: the
# words after COMMAND up to the next keyword or the call's end (run without a shell: as argv words).
_CMAKE_COMMAND = re.compile(r"\bCOMMAND\s+((?:[^()\n]|\([^()\n]*\))+?)(?=\s+[A-Z][A-Z_]{2,}\b|\s*\)|\n|$)")
# cmake's own file commands (fresh37a): `file(REMOVE_RECURSE P...)` / `file(REMOVE P...)` delete as `rm -rf` / `rm -f`
# do; `$ENV{NAME}` is the environment's NAME, `${VAR}` a cmake variable known only when it runs
_CMAKE_REMOVE = re.compile(r"(?i)\bfile\s*\(\s*(REMOVE_RECURSE|REMOVE)\b([^()]*)\)")
_CMAKE_ENV = re.compile(r"\$ENV\{(\w+)\}")
_CMAKE_VARIABLE = re.compile(r"\$\{[^{}]*\}")
# (stop 57, adv57) a `${NAME}` in a path cmake's file(REMOVE …) deletes is the script's or the line's (`cmake
# -DX=$HOME/notes.txt -P r.cmake` with `file(REMOVE ${X})` removed the note; rev57: cmake's own names too, which -D and
# set() give any value): a path computed from what the caller chose, read as a command's output (delete_computed_path)
_CMAKE_VALUE = '"$(printf %s "$CMAKE_EXPRESSION")"'
# ninja: a rule's `command = ...` (run through /bin/sh -c)
_NINJA_COMMAND = re.compile(r"(?m)^[ \t]*command[ \t]*=[ \t]*(.+)$")
# a build file's lines naming more of it: ninja's `include F` / `subninja F` (relative to ninja's folder),
# cmake's `include(F)` of a file (a bare module name, `include(CTest)`, is cmake's own); the folder
# variables cmake puts before a file of the project are read as its folder
_NINJA_INCLUDE = re.compile(r"(?m)^[ \t]*(?:include|subninja)[ \t]+(\S+)")
_CMAKE_INCLUDE = re.compile(
    r"(?i)\binclude\s*\(\s*\"?(?:\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/)?([^\s)\"]*[./][^\s)\"]*)"
)
# (adv51) a C preprocessor's `#include "F"` / `<F>` (`#include_next`, `#import`) and roff's `.so F` / `.mso F`: F's
# text is put into the output (`cpp x.c` of `#include "$HOME/.ssh/id_ed25519"` printed the key): read as `cat F`
_CPP_INCLUDE = re.compile(r'(?m)^[ \t]*#[ \t]*(?:include(?:_next)?|import)[ \t]*["<]([^">\n]+)[">]')
_ROFF_INCLUDE = re.compile(r"(?m)^[.'][ \t]*m?so[ \t]+(\S[^\n]*?)[ \t]*$")
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
    assigned: dict[str, list[str]] = {}  # the names the program assigns, read on first use (_path_of)
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
        for removed in itertools.islice(_CMAKE_REMOVE.finditer(code), _MAX_CALLS):
            paths = _CMAKE_VARIABLE.sub(_CMAKE_VALUE, _CMAKE_ENV.sub(r'"${\1}"', removed.group(2)))
            verb = "rm -rf --" if removed.group(1).upper() == "REMOVE_RECURSE" else "rm -f --"
            scripts.append(f"{verb} {paths.strip()}")
    elif language == "ninja":
        scripts += [m.group(1).strip() for m in itertools.islice(_NINJA_COMMAND.finditer(code), _MAX_CALLS)]
    # One past _MAX_CALLS is enough to know the program is past it (not every `exec(` of 64 KiB).
    calls = _CALL_AT.finditer(code, _MAX_CALLS + 1)
    if len(calls) > _MAX_CALLS:
        raise OverBudget(f"an inline program with more than {_MAX_CALLS} calls that may run a command")
    aliases = _aliases(code, calls)
    if aliases:
        calls += re.finditer(r"(?<![\w.$])(?:" + "|".join(map(re.escape, aliases)) + r")(?![\w-])", code)
    for n, match in enumerate(calls):
        if n >= _MAX_CALLS:
            raise OverBudget(f"an inline program with more than {_MAX_CALLS} calls that may run a command")
        arguments = spent.take(_arguments(code, match.start(), match.end(), spent))
        if arguments:
            words = _words(arguments)
            if len(words) > 1 and _ARGV_FORM.match(arguments) and "+" not in arguments:
                if " " in words[0] and not words[0].startswith("$"):
                    # a shell line then a variable (`system("rm -rf ~", $r)`, `execSync("...", opts)`): the
                    # line is read as a shell's too, as the call may run it (gen33)
                    scripts.append(words[0])
                # a list of arguments (`["sh", "-c", "rm -rf ~"]`, `"rm", "-rf", $HOME`): each one word
                words = [w if w == "~" or w.startswith("$") or _PLAIN.fullmatch(w) else _quoted(w) for w in words]
            if words:
                scripts.append(" ".join(words))
                # run in another folder: `subprocess.run([...], cwd='x')`, `execSync(c, {cwd: 'x'})`
                option = _CWD_OPTION.search(arguments) if "cwd" in arguments or "chdir" in arguments else None
                if option is not None:
                    folder = _path_of(option.group(1), language, code, assigned, 0)
                    scripts.append(_in_folder(folder, scripts[-1]))
    if "Deno." in code:
        # `new Deno.Command("sh", {args: ["-c", CMD]})`, `Deno.run({cmd: ["sh", "-c", CMD]})`: the
        # program and its arguments are in an option object the calls above stop at
        for match in itertools.islice(_DENO_SPAWN.finditer(code), _MAX_CALLS):
            listed = ", ".join(g for g in match.groups() if g)
            words = _words(listed)
            if words:
                scripts.append(
                    " ".join(w if w == "~" or w.startswith("$") or _PLAIN.fullmatch(w) else _quoted(w) for w in words)
                )
    for match in _BACKTICK_CODE.finditer(code):
        script = next((g for g in match.groups() if g), None)
        if script:
            scripts.append(script)
    if scripts and language in ("tclsh", "expect") and "cd" in code:
        # Tcl's `cd DIR` (`cd` alone: the home) before its `exec`s: they run there (fresh37b: `cd; exec rm -rf .ssh`)
        tcl_folders = [_tcl_name(m.group(1)) if m.group(1) else "~" for m in _TCL_CD.finditer(code)][:8]
        scripts += [_in_folder(folder, script) for script in scripts for folder in tcl_folders]
    if scripts and "chdir" in code and language not in ("tclsh", "expect"):
        # the program's own change of folder: its commands run there (a computed one: unknown)
        folders = _chdirs(code, language, spent, assigned)
        if len(scripts) * len(folders) > _MAX_CALLS:
            raise OverBudget(f"an inline program with more than {_MAX_CALLS} commands run in folders it changes to")
        scripts += [_in_folder(folder, script) for script in scripts for folder in folders]
    return scripts


# Deno's ways to start a program: the program, then the `args` list (or the `cmd` list of the old API).
_DENO_SPAWN = re.compile(
    r"\bDeno\.Command\s*\(\s*((?:'[^']*'|\"[^\"]*\"|[\w.$]+))\s*(?:,\s*\{[^{}]*?\bargs\s*:\s*\[([^\]]*)\])?"
    r"|\bDeno\.run\s*\(\s*\{[^{}]*?\bcmd\s*:\s*\[([^\]]*)\]"
)
# A call's option naming the folder its command runs in (python's `cwd=`, node's `{cwd: ...}`,
# ruby's `chdir:`).
_CWD_OPTION = re.compile(r"""(?<![\w$])['"]?:?(?:cwd|chdir)['"]?\s*(?:=(?![=>])|=>|:(?!:))\s*([^,)}\n]+)""")


def _in_folder(folder: str | None, script: str) -> str:
    """``script`` run in ``folder`` (None: a folder computed when the program runs)."""
    if folder is None:
        return f'cd -- "$computed_folder" && {script}'
    if folder == "~" or folder.startswith("~/"):
        rest = folder[2:]
        return f"cd -- ~/{_quoted(rest) if rest else ''} && {script}"
    return f"cd -- {_quoted(folder)} && {script}"


_ARGV_FORM = re.compile(r"\s*\[|[^,]*,")
_PLAIN = re.compile(r"[\w@%+=:,./~-]+")


def _quoted(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _path_word(path: str) -> str:
    """``path`` as a shell word for the path a file names, its variables (a written `$HOME`) and a leading `~` read
    as the home: the stricter reading of a name written by a line that expanded them."""
    head, sep, rest = path.partition("/") if path.startswith("~") else ("", "", path)
    return head + sep + '"' + re.sub(r'(["\\`])', r"\\\1", rest) + '"'


def _aliases(code: str, calls: list[re.Match[str]]) -> list[str]:
    """Names a call that may run a command goes by besides its own (`system as s`, `s = os.system`):
    read around ``calls``, the program's _CALL matches (every one of them, at most _MAX_CALLS)."""
    if " as " not in code and "=" not in code and ":" not in code:
        return []
    out: list[str] = []
    for call in calls:
        name = call.group()
        if _WORD.fullmatch(name) is None:
            continue  # `shell-command`: a lisp name is never given another
        end = call.end()
        found = _AS_ALIAS.match(code, end) or _KEY_ALIAS.match(code, end)
        named = [found.group(1)] if found is not None else []
        if _ASSIGNED_END.match(code, end) is not None:
            assigned = _assigned_to(code, call.start())
            if assigned is not None:
                named.append(assigned)
        out += [alias for alias in named if alias != name and alias not in out]
    return out


def _assigned_to(code: str, start: int) -> str | None:
    """The name assigned the value that starts at ``start`` (`NEW = os.system`: NEW), read back
    from it: a receiver (`os.`), blanks, `=`, blanks, a name (not an attribute: `a.b = ...`)."""
    i = start
    if i > 0 and code[i - 1] == ".":
        while i > 0 and (code[i - 1].isalnum() or code[i - 1] in "_."):
            i -= 1
    while i > 0 and code[i - 1].isspace():
        i -= 1
    if i == 0 or code[i - 1] != "=":
        return None
    i -= 1
    while i > 0 and code[i - 1].isspace():
        i -= 1
    end = i
    while i > 0 and (code[i - 1].isalnum() or code[i - 1] == "_"):
        i -= 1
    if i == end or (i > 0 and code[i - 1] == "."):
        return None
    return code[i:end]


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


# What a backslash escape is in the languages whose literals are read here (Python, JavaScript, perl's and
# ruby's double quotes, Tcl): `os.system('rm\\t-rf\\t~')` hands the shell tabs, which split its words (fresh37b).
_ESCAPED = {"t": "\t", "n": "\n"}


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), text)


# -- files an inline program opens for writing -------------------------------------------------
# What a program's own text names as a file it writes (`open('x', 'w')`, perl's `open F, ">x"`,
# `fs.writeFileSync('x', ...)`, awk's `print > "x"`): each is judged as `tee FILE`, so every rule
# about a written file holds for it (the engine's own files, start-up files, credentials). A name
# the program computes (`open(sys.argv[1], 'w')`, `">$f"`) is None: a name nobody can read here.
# Only calls that write are read: a program that writes no file names no target.

# Calls whose first argument is the file written (python: the object they are called on).
_WRITE_FIRST = {
    "python": r"\.write_text|\.write_bytes|\.touch|\.symlink_to|\.hardlink_to",
    "ruby": r"\b(?:File|IO)\.(?:write|binwrite)|\bFileUtils\.touch",
    "node": r"\b(?:writeFile|appendFile|createWriteStream|truncate)(?:Sync)?"
    r"|\bDeno\.(?:writeTextFile|writeFile)(?:Sync)?|\bBun\.write",
    "php": r"\bfile_put_contents|\btouch",
    "perl": r"(?!)",
    "lua": r"\bio\.output",
}
# Calls whose second argument is the file written (copies, moves, links).
_WRITE_SECOND = {
    "python": r"\bshutil\.(?:copy\w*|move)|\bos\.(?:rename|replace|renames|symlink|link)",
    "ruby": r"\bFileUtils\.(?:cp\w*|mv|move|copy\w*|ln\w*|install)|\bFile\.(?:rename|symlink|link)",
    "node": r"\b(?:copyFile|rename|symlink|link|cp)(?:Sync)?",
    "php": r"\b(?:copy|rename|symlink|link)",
    "perl": r"\b(?:File::Copy::)?(?:copy|move|cp|mv|rename|symlink|link)",
    "lua": r"\bos\.rename",
}
# Calls that open a file, writing when their mode (or flags) says so.
_WRITE_OPEN = {
    "python": r"(?<![\w.])open|\b(?:io|codecs|gzip|bz2|lzma|os)\.open",
    "ruby": r"\b(?:File|IO)\.(?:open|new)|(?<![\w.])open",
    "node": r"\b(?:open|openSync)|\bDeno\.(?:open|create)(?:Sync)?",
    "php": r"\bfopen",
    "perl": r"\bopen|\bsysopen",
    "lua": r"\bio\.open",
}
_CALLS_OF = {
    language: Located(
        re.compile(
            r"(?:(?P<first>" + _WRITE_FIRST[language] + r")|(?P<second>" + _WRITE_SECOND[language] + r")"
            r"|(?P<open>" + _WRITE_OPEN[language] + r"))(?![\w-])"
        )
    )
    for language in _WRITE_OPEN
}
# A mode that writes ("w", "a", "x", "r+", php's "c"), or flags that do (O_WRONLY, File::CREAT ...).
_WRITE_MODE = re.compile(r"^\s*[rbtU]*[waxc+]")
_WRITE_FLAGS = re.compile(r"\b(?:O_)?(?:WRONLY|RDWR|CREAT|APPEND|TRUNC)\b")
_OPTIONS_FLAG = re.compile(r"""\bflags?\s*:\s*(['"][^'"]*['"])""")
_KEYWORD = re.compile(r"^\s*:?(\w+)\s*(?:=(?![=>])|:(?!:)|=>)\s*")
# perl's open modes: `>`, `>>`, `+<`, `+>`, with layers (`>:utf8`); a 2-argument open carries the name.
_PERL_MODE = re.compile(r"^\s*(?:\+?>>?|\+<)(?::[\w()-]+)*\s*")
# awk: `print ... > EXPR`, `printf ... >> EXPR` (a `>` inside parentheses is a comparison).
_AWK_PRINT = re.compile(r"\bprintf?\b([^;{}\n]*)")
# (a receiver before them: `os.path.`, `require('os').`)
_RECEIVER = r"(?:[\w$]+(?:\([^()]*\))?\.)*"
_HOME_CALL = re.compile(_RECEIVER + r"(?:expanduser|expand_path)\(\s*['\"](~[^'\"]*)['\"]\s*\)")
_HOME_VALUE = re.compile(_RECEIVER + r"(?:" + HOME_EXPRESSIONS + r")")
_HOME_INTERPOLATED = re.compile(r"\$ENV\{HOME\}|\$\{?HOME\}?|#\{\s*(?:Dir\.home|ENV\[['\"]HOME['\"]\])\s*\}")
_INTERPOLATION = re.compile(r"[$@]|#\{")
_ASSIGNED = re.compile(r"(?<![\w.$])(?:(?:my|let|const|var|local)\s+)?(\$?[A-Za-z_]\w*)\s*=(?![=~>])\s*([^;\n]+)")
_PATH_CALL = re.compile(r"^(?:[\w.]+\.)?(?:Path|PurePath|PosixPath|Pathname)\s*\((.*)\)$", re.DOTALL)
_JOIN_CALL = re.compile(r"^(?:[\w.]+\.)?join\s*\((.*)\)$", re.DOTALL)
_STATEMENT_WORD = re.compile(r"(?:or|and|if|unless|do)\b")
_CONCAT = re.compile(r"\s*\+\s*|\s+\.\s+")
_STRING = re.compile(
    r"""^[rRbBuU]{0,2}(?:"(?P<d>(?:[^"\\]|\\.)*)"|'(?P<s>(?:[^'\\]|\\.)*)'|`(?P<t>[^`]*)`)$""", re.DOTALL
)
_F_STRING = re.compile(r"""^[fF][rR]?(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')$""", re.DOTALL)
# Words one of a language's calls above holds: a program with none of them writes no file this reads.
_WRITE_KEYWORDS = {
    "python": ("open", "write_", "touch", "link", "shutil", "rename", "replace"),
    "ruby": ("File", "IO", "open"),
    "node": ("write", "File", "open", "truncate", "rename", "link", "cp", "create"),
    "php": ("file_put_contents", "touch", "copy", "rename", "link", "fopen"),
    "perl": ("open", "copy", "move", "cp", "mv", "rename", "link"),
    "lua": ("io.", "os.rename"),
}
# The bare names of those calls (and the modules holding them), for a writer taken as a value and
# called under another name (`f = open`, `from io import open as o`, `getattr(builtins, 'open')`,
# `{writeFileSync: w} = require('fs')`, ruby's `File.method(:write)`, perl's `\\&CORE::open`, php's
# `$f = 'file_put_contents'`): the program's writes are then ones the run computes.
_WRITER_NAMES = {
    "python": r"open|write_text|write_bytes|touch|symlink_to|hardlink_to|copy\w*|move|renames?|replace|symlink|link"
    r"|shutil|pathlib|os|io|codecs|gzip|bz2|lzma|builtins|__builtins__",
    "ruby": r"write|binwrite|open|touch|cp\w*|mv|move|copy\w*|ln\w*|install|rename|symlink|link|File|IO|FileUtils",
    "node": r"(?:writeFile|appendFile|createWriteStream|truncate|open|copyFile|rename|symlink|link|cp|writeTextFile"
    r"|create)(?:Sync)?",
    "php": r"file_put_contents|touch|fopen|copy|rename|symlink|link",
    "perl": r"open|sysopen|copy|move|cp|mv|rename|symlink|link",
    "lua": r"open|output|rename|io",
}
_REBOUND = {
    language: Located(
        re.compile(
            # taken as a value: `f = open`, perl's `\&CORE::open`, ruby's `method(:write)`, `send(:write, ...)`
            r"(?:(?<![=!<>])=(?![=~>])|\\&|\b(?:method|public_send|send|__send__)\s*\()\s*:?(?:[\w$]+(?:\.|::))*"
            r"(?:" + names + r")\s*(?=[;\n,)}\]]|$)"
            # looked up by name: `getattr(builtins, 'open')`, `__builtins__.__dict__['open']`
            r"|(?:\bgetattr\s*\([^,()]*,|(?:__dict__|__builtins__|builtins|globals\(\)|locals\(\)|vars\([^()]*\))\s*\[)"
            r"\s*['\"](?:" + names + r")['\"]"
            # imported under another name: `from io import open as o`, `import shutil as s`
            r"|(?<![\w$.])(?:"
            + names
            + r")\s+as\s+\w"
            + {
                # handed to another call: `partial(open, mode='w')`, `map(Path.write_text, ...)`
                "python": r"|[(,]\s*(?:\w+\.)*(?:open|write_text|write_bytes)\s*(?=[,)])",
                # destructured under another name: `const {writeFileSync: w} = require('fs')`
                "node": r"|(?<![\w$.'\"])(?:" + names + r")\s*:\s*(?!true\b|false\b|null\b|undefined\b)[A-Za-z_$][\w$]*"
                r"\s*[,}]",
                # a function called by its name in a string: `$f = 'file_put_contents'; $f(...)`
                "php": r"|=\s*['\"](?:" + names + r")['\"]",
            }.get(language, "")
        )
    )
    for language, names in _WRITER_NAMES.items()
}
# A program's change of its working folder (`os.chdir`, `process.chdir`, `Dir.chdir`, perl's and
# php's `chdir`, lua's `lfs.chdir`): the relative names it writes after it are under that folder.
_MAX_CHDIRS = 8
_CHDIR = re.compile(r"(?<![\w$])(?:[\w$]+(?:\(\)|\(['\"]\w+['\"]\))?\.)*f?chdir(?![\w-])")
_CHDIR_AT = Located(_CHDIR)
_MAX_NAME_DEPTH = 4  # a name assigned from a name ...: followed this many steps
# Calls that may write read per program (most open to read: a long program opens many files; each
# call's reading is bounded by _MAX_ARGUMENTS, and all of them by _MAX_READ)
_MAX_OPENS = _MAX_CALLS * 8


def code_writes(code: str, language: str) -> list[str | None]:
    """Files ``code`` (in ``language``: python, perl, ruby, node, php, lua, awk) opens for writing,
    as far as its literals say; None for a name computed when it runs.

    Raises:
        OverBudget: more calls, or more to read in them, than the limits (see the module).
    """
    if language == "awk":
        return _awk_writes(code)
    if language in ("tclsh", "expect"):
        return _tcl_writes(code)
    keywords = _WRITE_KEYWORDS.get(language)
    if keywords is None or not any(k in code for k in keywords):
        return []
    out: list[str | None] = []
    spent = _Spent()
    assigned: dict[str, list[str]] = {}  # read when a name is first looked up
    calls = _CALLS_OF[language].finditer(code, _MAX_OPENS + 1)
    if len(calls) > _MAX_OPENS:  # known before any is read (each costs a read of its arguments)
        raise OverBudget(f"an inline program with more than {_MAX_OPENS} calls that may write a file")
    for match in calls:
        if language == "python" and match.group("first") is not None:  # `Path('x').write_text(...)`
            out.append(_path_of(_receiver(code, match.start()), language, code, assigned, 0))
            continue
        text = _written_arguments(code, match.end(), spent)
        if text is None:  # a call too long to read: whatever it writes, nobody can say here
            out.append(None)
            continue
        arguments = _split_arguments(spent.take(text))
        target: str | None = None
        if match.group("open") is not None:
            target = _opened(arguments, language, match.group("open"))
        elif match.group("first") is not None:
            target = next(iter(arguments), None)
        elif len(arguments) > 1:
            target = arguments[1]
        if target is not None:
            out.append(_path_of(target, language, code, assigned, 0))
    if _REBOUND[language].search(code) is not None:
        out.append(None)  # a writer called under another name: what it writes is computed
    if out and "chdir" in code:
        out = _moved(out, _chdirs(code, language, spent, assigned))
    return out


# Calls that make a second name for a file or folder (a link), or move one to another name, per language:
# (SOURCE, NAME) in that order, or (python's `Path(NAME).symlink_to(TARGET)`, `Path(SOURCE).rename(NAME)`)
# called on the first path.
_PAIR_CALLS = {
    kind: {language: Located(re.compile(pattern + r"(?![\w-])")) for language, pattern in patterns.items()}
    for kind, patterns in {
        "ln -s": {
            "python": r"\bos\.(?:symlink|link)|(?P<link_on>\.symlink_to|\.hardlink_to)",
            "ruby": r"\bFile\.(?:symlink|link)|\bFileUtils\.ln\w*",
            "node": r"(?<![\w$])(?:[\w$]+(?:\([^()]*\))?\.)*(?:symlink|link)(?:Sync)?",
            "php": r"(?<![\w$>])(?:symlink|link)",
            "perl": r"(?<![\w$@%&])(?:symlink|link)",
            "lua": r"\blfs\.link",
        },
        "mv": {
            "python": r"\bos\.(?:rename|renames|replace)|\bshutil\.move|(?P<move_on>\.rename|\.replace)",
            "ruby": r"\bFile\.rename|\bFileUtils\.(?:mv|move)",
            "node": r"(?<![\w$])(?:[\w$]+(?:\([^()]*\))?\.)*rename(?:Sync)?",
            "php": r"(?<![\w$>])rename",
            "perl": r"(?<![\w$@%&])(?:File::Copy::)?(?:rename|move|mv)",
            "lua": r"\bos\.rename",
        },
    }.items()
}
_PAIR_HINTS = {"ln -s": ("link",), "mv": ("rename", "replace", "move", "mv")}


def code_pairs(code: str, language: str, verb: str) -> list[tuple[str | None, str | None]]:
    """The links (``verb`` "ln -s") or moves ("mv") ``code`` (in ``language``) makes, as far as its
    literals say: (SOURCE, NAME) of `os.symlink(T, N)`, `fs.symlinkSync(T, N)`, `File.symlink(T, N)`,
    perl's and php's `symlink T, N`, `Path(N).symlink_to(T)` (and the hard-link calls); of `os.rename(S, N)`,
    `shutil.move`, `fs.renameSync`, `File.rename`, perl's and php's `rename`, `Path(S).rename(N)`. A path
    the run computes is None (`~` for the home folder). Each is judged as the shell's `ln -s`/`mv` of
    them (fresh38b: `python3 -c "os.symlink(HOME, 'h')"; rm -rf h/*` is `rm -rf ~/*`; `os.rename('policies',
    'p')` moves the engine's policies away, as `mv policies p` does).

    Raises:
        OverBudget: more calls, or more to read in them, than the limits (see the module).
    """
    if language in ("tclsh", "expect"):
        return _tcl_pairs(code, verb)
    found = _PAIR_CALLS[verb].get(language)
    if found is None or not any(hint in code for hint in _PAIR_HINTS[verb]):
        return []
    out: list[tuple[str | None, str | None]] = []
    spent = _Spent()
    assigned: dict[str, list[str]] = {}
    calls = found.finditer(code, _MAX_OPENS + 1)
    if len(calls) > _MAX_OPENS:
        raise OverBudget(f"an inline program with more than {_MAX_OPENS} calls that may link or move a file")
    for match in calls:
        text = _written_arguments(code, match.end(), spent)
        if not text:
            continue  # not a call (a name, an attribute), or one too long to read (code_writes judges it)
        arguments = _split_arguments(spent.take(text))
        groups = match.groupdict()
        if groups.get("link_on") is not None:  # Path(NAME).symlink_to(TARGET)
            if not arguments:
                continue
            first, second = arguments[0], _receiver(code, match.start())
        elif groups.get("move_on") is not None:  # Path(SOURCE).rename(NAME)
            if not arguments:
                continue
            first, second = _receiver(code, match.start()), arguments[0]
            if not first:
                continue  # `.replace(…)` of a string, not of a path
        elif len(arguments) > 1:
            first, second = arguments[0], arguments[1]
        else:
            continue
        out.append((_path_of(first, language, code, assigned, 0), _path_of(second, language, code, assigned, 0)))
    if out and "chdir" in code:
        # the program's own change of folder: a relative name is also the one under each folder it moves to
        folders = _chdirs(code, language, spent, assigned)
        out += [
            (None if folder is None else _under(folder, first), None if folder is None else _under(folder, second))
            for first, second in out
            for folder in folders
        ]
    return out


def _under(folder: str, name: str | None) -> str | None:
    """``name`` as a program that moved to ``folder`` reaches it (an absolute or home name stays)."""
    if name is None or name.startswith(("/", "~")):
        return name
    return posixpath.join(folder, name)


def _tcl_pairs(code: str, verb: str) -> list[tuple[str | None, str | None]]:
    """Tcl's `file rename ?-force? SOURCE NAME` ("mv") and `file link ?-symbolic? NAME TARGET` ("ln -s")."""
    if "file" not in code:
        return []
    out: list[tuple[str | None, str | None]] = []
    for n, match in enumerate(_TCL_FILE.finditer(code)):
        if n >= _MAX_OPENS:
            raise OverBudget(f"a Tcl program with more than {_MAX_OPENS} calls that may write a file")
        kind = match.group(1)
        words = [w for w in _TCL_WORDS.findall(match.group(2)) if not w.startswith("-")]
        if len(words) < 2:
            continue
        if kind == "rename" and verb == "mv":
            out.append((_tcl_name(words[-2]), _tcl_name(words[-1])))
        elif kind == "link" and verb == "ln -s":
            out.append((_tcl_name(words[1]), _tcl_name(words[0])))
    if out and "cd" in code:
        folders = [_tcl_name(m.group(1)) if m.group(1) else "~" for m in _TCL_CD.finditer(code)]
        out += [
            (None if folder is None else _under(folder, a), None if folder is None else _under(folder, b))
            for a, b in out
            for folder in folders
        ]
    return out


def _chdirs(code: str, language: str, spent: _Spent, assigned: dict[str, list[str]]) -> list[str | None]:
    """The folders a program changes to (`os.chdir('x')`, `process.chdir(...)`, `Dir.chdir('x') do`,
    perl's `chdir $d`): a literal one as named, None for one computed when it runs (or none named:
    perl's and ruby's `chdir` with no folder go home, a name taken as a value is called elsewhere)."""
    out: list[str | None] = []
    for n, match in enumerate(_CHDIR_AT.finditer(code, _MAX_CHDIRS + 1)):
        if n >= _MAX_CHDIRS:
            return [None]  # more folders than are worth following: each relative name computed
        text = _written_arguments(code, match.end(), spent)
        arguments = _split_arguments(spent.take(text)) if text else []
        out.append(_path_of(arguments[0], language, code, assigned, 0) if arguments else None)
    return out


def _moved(written: list[str | None], folders: list[str | None]) -> list[str | None]:
    """What a program writes when it changes its folder to each of ``folders`` on the way: a
    relative name is also the one under each folder (a computed folder: a computed name)."""
    if not folders:
        return written
    out: list[str | None] = []
    for name in written:
        out.append(name)
        if name is None or name.startswith(("/", "~")):
            continue
        for folder in folders:
            out.append(None if folder is None else posixpath.join(folder, name))
    return out


# Tcl (tclsh, wish, expect): `open NAME w|a|r+|{WRONLY CREAT}`, `file copy|rename ... DEST`,
# `file link ?-symbolic? NAME TARGET`, `cd DIR`; a word with `$` or `[...]` is computed, and so is
# what a program writes through a command under another name (`rename open o`, `interp alias`).
_TCL_WORD = r"(?:\{[^{}]*\}|\"(?:[^\"\\]|\\.)*\"|[^\s;\]\[{}\"]+(?:\[[^\]]{0,256}\][^\s;\]\[]*){0,16})"
_TCL_COMMAND = r"(?:^|(?<=[\[;{\n]))\s*"
_TCL_OPEN = re.compile(_TCL_COMMAND + r"open\s+(" + _TCL_WORD + r")(?:[ \t]+(" + _TCL_WORD + r"))?", re.MULTILINE)
_TCL_FILE = re.compile(_TCL_COMMAND + r"file\s+(copy|rename|link)((?:[ \t]+" + _TCL_WORD + r"){1,16})", re.MULTILINE)
_TCL_CD = re.compile(_TCL_COMMAND + r"cd(?:[ \t]+(" + _TCL_WORD + r"))?\s*(?=[;\]}\n]|$)", re.MULTILINE)
_TCL_REBOUND = re.compile(r"\brename\s+:*open\b|\binterp\s+alias\b|\[\s*\$\w|(?:^|[;{\n])\s*\$\w", re.MULTILINE)
_TCL_WORDS = re.compile(_TCL_WORD)


def _tcl_name(word: str) -> str | None:
    """A Tcl word's text when it is literal (braces and quotes taken off), else None."""
    if word[:1] == "{":
        return word[1:-1]
    if word[:1] == '"':
        word = word[1:-1]
    return None if "$" in word or "[" in word or word.startswith("|") else _unescape(word)


def _tcl_writes(code: str) -> list[str | None]:
    if "open" not in code and "file" not in code:
        return []
    out: list[str | None] = []
    for n, match in enumerate(itertools.chain(_TCL_OPEN.finditer(code), _TCL_FILE.finditer(code))):
        if n >= _MAX_OPENS:
            raise OverBudget(f"a Tcl program with more than {_MAX_OPENS} calls that may write a file")
        if match.re is _TCL_OPEN:
            mode = match.group(2)
            if mode is None:
                continue  # read
            literal = _tcl_name(mode)
            if literal is not None and not (_WRITE_MODE.match(literal) or _WRITE_FLAGS.search(literal)):
                continue
            out.append(_tcl_name(match.group(1)))
            continue
        words = [w for w in _TCL_WORDS.findall(match.group(2)) if not w.startswith("-")]
        if words:
            out.append(_tcl_name(words[0] if match.group(1) == "link" else words[-1]))
    if _TCL_REBOUND.search(code) is not None:
        out.append(None)
    if out and "cd" in code:
        out = _moved(out, [_tcl_name(m.group(1)) if m.group(1) else "~" for m in _TCL_CD.finditer(code)])
    return out


def _opened(arguments: list[str], language: str, name: str) -> str | None:
    """The expression of the file an open call writes; None when it opens one only to read it."""
    if language == "perl":
        return _perl_opened(arguments, name)
    if not arguments:
        return None
    if name.startswith("Deno.create"):
        return arguments[0]
    positional = [a for a in arguments if not _KEYWORD.match(a)]
    mode = positional[1] if len(positional) > 1 else None
    for argument in arguments:
        keyword = _KEYWORD.match(argument)
        if keyword is not None and keyword.group(1) in ("mode", "flags", "flag"):
            mode = argument[keyword.end() :]
    if mode is None:
        return None  # the default: read
    mode = mode.strip()
    if mode.startswith("{"):  # node's options object: {flag: 'w'}
        flag = _OPTIONS_FLAG.search(mode)
        mode = flag.group(1) if flag is not None else "'r'"
    literal = _literal(mode)
    if literal is not None:
        return arguments[0] if _WRITE_MODE.match(literal) else None
    if _WRITE_FLAGS.search(mode) or "RDONLY" not in mode:
        return arguments[0]  # flags that write, or a mode computed when it runs
    return None


def _perl_opened(arguments: list[str], name: str) -> str | None:
    """perl: open(FH, MODE, FILE), open(FH, "MODEFILE"), sysopen(FH, FILE, FLAGS)."""
    if name == "sysopen":
        if len(arguments) < 3:
            return None
        return arguments[1] if _WRITE_FLAGS.search(arguments[2]) or "RDONLY" not in arguments[2] else None
    if len(arguments) > 2:
        given = _literal(arguments[1])
        if given is None or _PERL_MODE.match(given):
            return arguments[2]  # a mode that writes, or one computed when it runs
        return None
    if len(arguments) != 2:
        return None
    spec = arguments[1].strip()
    literal = _literal(spec)
    if literal is None:
        return spec  # `open F, $spec`: the mode and the name computed together
    mode = _PERL_MODE.match(literal)
    if mode is None or literal.rstrip().endswith("|"):
        return None  # a read (`<x`, `x`) or a pipe (embedded_shell reads those)
    if spec[:1] in "'\"":
        body = spec[1:-1]
        raw = _PERL_MODE.match(body)
        return spec[0] + body[raw.end() if raw is not None else 0 :] + spec[0]
    return "'" + literal[mode.end() :].replace("\\", "\\\\").replace("'", "\\'") + "'"


def _written_arguments(code: str, end: int, spent: _Spent) -> str | None:
    """A call's arguments: `f(ARGS)`, or perl/ruby's `f ARGS` up to the statement's end; None
    when they are not closed within _MAX_ARGUMENTS characters."""
    i = end
    while i < len(code) and code[i] in " \t":
        i += 1
    if i < len(code) and code[i] == "(":
        inside = _balanced(code, i + 1, ")", spent)
        return None if not inside and code[i + 1 : i + 2] != ")" else inside
    if i == end or i >= len(code) or code[i] in ".=;,)]}\n":
        return ""  # not a call: a name, an attribute, an assignment
    return code[i : _statement_end(code, i, min(len(code), i + _MAX_ARGUMENTS))]


def _statement_end(code: str, i: int, limit: int) -> int:
    """Where the statement from ``i`` ends: `;`, a newline, a closing brace, or perl's `or die`
    and ruby's `do` (quoted strings stepped over; a brace the statement opens, as perl's `$ENV{HOME}`,
    is closed within it)."""
    depth = 0
    while i < limit:
        ch = code[i]
        if ch in "\"'`":
            i = _quote_end(code, i, limit)
            continue
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif (
            ch in ";\n}"
            or (ch == "|" and code[i + 1 : i + 2] == "|")
            or (ch == " " and _STATEMENT_WORD.match(code, i + 1) is not None)
        ):
            return i
        i += 1
    return limit


def _quote_end(text: str, i: int, limit: int) -> int:
    """Where the quoted string opening at ``i`` ends (past its closing quote; backslash escapes
    stepped over), or ``limit`` when it is not closed before it: the one quote-stepping rule of
    _statement_end and _split_arguments."""
    quote = text[i]
    i += 1
    while i < limit:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == quote:
            return i + 1
        else:
            i += 1
    return limit


def _split_arguments(text: str) -> list[str]:
    """Top-level, comma-separated arguments (quotes and brackets stepped over); perl's `=>` separates too."""
    out: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'`":
            i = _quote_end(text, i, n)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and (ch == "," or (ch == "=" and text[i + 1 : i + 2] == ">")):
            out.append(text[start:i].strip())
            i += ch == "="
            start = i + 1
        i += 1
    last = text[start:].strip()
    if last or out:
        out.append(last)
    return out


def _receiver(code: str, at: int) -> str:
    """The expression a method is called on: `Path('x')` of `Path('x').write_text(...)`."""
    i = at
    depth = 0
    low = max(0, at - _MAX_ARGUMENTS)
    while i > low:
        ch = code[i - 1]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (ch.isalnum() or ch in "_."):
            break
        i -= 1
    return code[i:at]


def _literal(expression: str) -> str | None:
    """A string literal's text (its escapes read); None for any other expression."""
    text = expression.strip()
    if text[:1] == "q":
        quoted = _PERL_QUOTED.fullmatch(text)
        if quoted is None:
            return None
        return next((g for g in quoted.group("qparen", "qbrace", "qbracket", "qangle", "qother") if g), "")
    found = _STRING.match(text)
    if found is None:
        return None
    if found.group("t") is not None:
        return None if "${" in found.group("t") else found.group("t")
    body = found.group("d") if found.group("d") is not None else found.group("s")
    return _unescape(body or "")


def _path_of(expression: str, language: str, code: str, assigned: dict[str, list[str]], depth: int) -> str | None:
    """The file an expression names when its literals say it all (``~`` for the home directory);
    None when the run computes it. ``assigned``: the names ``code`` assigns, read on first use."""
    text = expression.strip()
    for _ in range(_MAX_NAME_DEPTH):  # `(Path.home() / 'x')`: the parentheses around it
        if not (text[:1] == "(" and text[-1:] == ")" and _split_arguments(text[1:-1]) == [text[1:-1].strip()]):
            break
        text = text[1:-1].strip()
    if not text or depth > _MAX_NAME_DEPTH:
        return None
    literal = _literal(text)
    if literal is not None:
        interpolated = text[:1] == '"' or text[:2] == "qq"
        if interpolated and language in ("perl", "ruby", "php") and _INTERPOLATION.search(literal):
            # `"$ENV{HOME}/.bashrc"` names home; `">$f"` nothing certain
            named = _HOME_INTERPOLATED.sub("~", literal)
            return named if named.startswith("~") and not _INTERPOLATION.search(named) else None
        return literal
    if _F_STRING.match(text):
        return None if "{" in text else _literal(text[1:])
    home = _HOME_CALL.fullmatch(text)
    if home is not None:
        return home.group(1)
    if _HOME_VALUE.fullmatch(text):
        return "~"
    call = _PATH_CALL.match(text) or _JOIN_CALL.match(text)
    if call is not None:
        return _joined(_split_arguments(call.group(1)), language, code, assigned, depth, "/")
    if " / " in text:  # Path('a') / 'b'
        return _joined(text.split(" / "), language, code, assigned, depth, "/")
    if _CONCAT.search(text):  # 'out/' + name, perl's $dir . '/x'
        return _joined(_CONCAT.split(text), language, code, assigned, depth, "")
    if not assigned:
        assigned.update(_assignments(code))
        assigned[""] = []  # (read)
    values = assigned.get(text)
    if values is not None and len(values) == 1:
        return _path_of(values[0], language, code, assigned, depth + 1)
    return None


def _joined(
    parts: list[str], language: str, code: str, assigned: dict[str, list[str]], depth: int, separator: str
) -> str | None:
    """Parts of a path put together, when every one is known."""
    names: list[str] = []
    for part in parts:
        name = _path_of(part, language, code, assigned, depth + 1)
        if name is None:
            return None
        names.append(name)
    if not names:
        return None
    return posixpath.join(*names) if separator else "".join(names)


def _assignments(code: str) -> dict[str, list[str]]:
    """The expressions each plain name is assigned (`p = 'out.txt'`, `my $f = "x"`)."""
    out: dict[str, list[str]] = {}
    for match in itertools.islice(_ASSIGNED.finditer(code), _MAX_CALLS * 4):
        out.setdefault(match.group(1), []).append(match.group(2).strip())
    return out


def _awk_writes(code: str) -> list[str | None]:
    """awk's `print ... > EXPR` and `printf ... >> EXPR`: a string literal is the file; any other
    expression a name the run computes."""
    out: list[str | None] = []
    for n, match in enumerate(_AWK_PRINT.finditer(code)):
        if n >= _MAX_OPENS:
            raise OverBudget(f"an awk program with more than {_MAX_OPENS} print statements")
        statement = match.group(1)
        depth = 0
        quote = False
        i = 0
        while i < len(statement):
            ch = statement[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    quote = False
            elif ch == '"':
                quote = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == "|":
                break  # a pipe to a command (embedded_shell reads it)
            elif ch == ">" and depth <= 0:
                out.append(_literal(statement[i + 1 :].lstrip(">")))
                break
            i += 1
    return out


def build_includes(code: str, language: str) -> list[str]:
    """The commands that judge the files a ninja or cmake build file reads as more of itself
    (`subninja sub.ninja`: `ninja -f sub.ninja`; cmake's `include(rules.txt)`: `cmake -P rules.txt`), and the
    files a C preprocessor's `#include` or roff's `.so` puts into the output (`cat -- F`, adv51)."""
    if language == "ninja" and ("include" in code or "subninja" in code):
        found = itertools.islice(_NINJA_INCLUDE.finditer(code), _MAX_CALLS)
        return [f"ninja -f {_quoted(m.group(1))}" for m in found]
    if language == "cmake" and "nclude" in code.lower():
        found = itertools.islice(_CMAKE_INCLUDE.finditer(code), _MAX_CALLS)
        return [f"cmake -P {_quoted(m.group(1))}" for m in found]
    if language in ("cpp", "roff"):
        pattern = _CPP_INCLUDE if language == "cpp" else _ROFF_INCLUDE
        found = itertools.islice(pattern.finditer(code), _MAX_CALLS)
        return [f"cat -- {_path_word(m.group(1))}" for m in found]
    return []


# Files a program's text loads and runs as its own code, by a literal name: perl's `do "F"` /
# `require "F"`, python's runpy.run_path / SourceFileLoader / execfile, node's require('./F') (any
# extension is run as JavaScript) and a readFileSync('F') a vm/eval/Function runs, Tcl's `source F`.
_LOADS: dict[str, re.Pattern[str]] = {
    # an expression (read by _path_of: a literal, or a name with one literal assignment)
    "perl": re.compile(r"""\b(?:do|require)\b\s*\(?\s*("[^"\n]+"|'[^'\n]+'|\$\w+)"""),
    "python": re.compile(
        r"""\b(?:run_path|execfile)\s*\(\s*(?:path_name\s*=\s*)?([^,()\n]+)"""
        r"""|\bSourceFileLoader\s*\([^,()]*,\s*([^,()\n]+)"""
    ),
    # require('./F'), and the REPL's `.load F` (node -i / a background node fed by `process write`, bun's REPL):
    # the rest of the line names F (sess45: `.load a.txt` ran a written a.txt unread; in a program it is no
    # JavaScript, so reading it costs no program that runs)
    "node": re.compile(
        r"""\brequire\s*\(\s*["'`](\.{1,2}/[^"'`\n]+)["'`]|^[ \t]*\.load[ \t]+([^\s][^\n]*?)[ \t]*$""",
        re.MULTILINE,
    ),
    "tclsh": re.compile(r"""(?:^|[;\[{])\s*source\s+(?:-encoding\s+\S+\s+)?["{]?([^\s;\]}"]+)""", re.MULTILINE),
    # Emacs Lisp's `(load "F")`, `(load-file "F")` (adv32)
    "elisp": re.compile(r'\((?:load|load-file)\s+"([^"\n]+)"'),
    # ruby's load / require_relative / require of a path (`require 'json'` is a gem: _RUBY_LIBRARY), and
    # eval / instance_eval / class_eval of File.read(F) or IO.read(F)
    "ruby": re.compile(
        r"""(?:(?<![\w.:$@])|\bKernel\s*\.\s*)(?:load|require_relative|require)\b\s*\(?\s*"""
        r"""("[^"\n]+"|'[^'\n]+'|[A-Za-z_]\w*(?![\w.(:]))"""
        r"""|\b(?:eval|instance_eval|class_eval|module_eval|instance_exec)\s*\(?\s*(?:File|IO)\s*\.\s*"""
        r"""(?:read|binread)\s*\(?\s*("[^"\n]+"|'[^'\n]+'|[A-Za-z_]\w*(?![\w.(:]))"""
    ),
    # php's include / include_once / require / require_once, and eval(file_get_contents(F))
    "php": re.compile(
        r"""(?<![\w$>:])(?:include|include_once|require|require_once)\b\s*\(?\s*("[^"\n]+"|'[^'\n]+'|\$\w+(?![\w\[(-]))"""
        r"""|\beval\s*\(\s*file_get_contents\s*\(\s*("[^"\n]+"|'[^'\n]+'|\$\w+(?![\w\[(-]))"""
    ),
}
# ruby's `require 'json'`: a gem or a library on the load path, not a file named here
_RUBY_LIBRARY = re.compile(r"""require\b\s*\(?\s*["'](?![./~])""")
_LOADS_AT = {language: Located(pattern) for language, pattern in _LOADS.items()}
_NODE_RUNS_TEXT = re.compile(r"\brunIn\w*Context\b|\bcompileFunction\b|\bnew\s+Function\b|\beval\s*\(|\bScript\s*\(")
_NODE_READ = re.compile(r"""\breadFileSync\s*\(\s*["'`]([^"'`\n]+)["'`]""")
# perl's open of a named file for reading, whose lines a system of a variable may run
_PERL_READ_OPEN = re.compile(
    r"""\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*(?:["']<["']\s*,\s*)?["']<?\s*([^"'|<>&\n]+?)\s*["']"""
)
_PERL_MODULE = re.compile(r"[A-Za-z_][\w:]*|v?[\d._]+")
_LOADERS = {
    "perl": "perl", "python": "python3", "node": "node", "tclsh": "tclsh", "expect": "tclsh",
    "ruby": "ruby", "php": "php", "elisp": "emacs --batch -l",
}  # fmt: skip


_NAMED_BY_EXPRESSION = frozenset({"perl", "python", "ruby", "php"})
# The names a loader tries for a name without a suffix, besides the name itself: ruby's
# `require_relative 'lib'` loads lib.rb; Emacs' `(load "x")` x.elc, then x.el, then x (adv33)
_TRIED_SUFFIXES: dict[str, tuple[str, ...]] = {"ruby": (".rb",), "elisp": (".elc", ".el")}


# (env46) Shared objects a program's text loads by name (dlopen runs the object's constructors: machine code from the
# file whatever it holds): python's ctypes (`CDLL(F)`, `PyDLL`, `cdll.LoadLibrary(F)`) and cffi's `ffi.dlopen(F)`,
# ruby's Fiddle (`Fiddle.dlopen(F)`, `Fiddle::Handle.new(F)`), perl's DynaLoader `dl_load_file(F)`. Gated by a word
# each holds (_LIBRARY_WORDS): most code names none.
_LIBRARY_LOADS: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"""\b(?:CDLL|PyDLL|WinDLL|OleDLL|LoadLibrary|dlopen)\s*\(\s*(?:name\s*=\s*)?([^,()\n]+)"""),
    "ruby": re.compile(r"""\bFiddle(?:\s*\.\s*dlopen|::Handle(?:\s*\.\s*new|\s*\.\s*dlopen)?)\s*\(?\s*([^,()\n]+)"""),
    "perl": re.compile(r"""\bdl_load_file\s*\(\s*([^,()\n]+)"""),
}
_LIBRARY_WORDS: dict[str, tuple[str, ...]] = {
    "python": ("DLL", "LoadLibrary", "dlopen"),
    "ruby": ("Fiddle",),
    "perl": ("dl_load_file",),
}
# an expression that names a library the loader finds by name in the system's folders (`find_library('c')`), or
# the program itself (`CDLL(None)`): nothing of a folder the caller writes in
_LIBRARY_SEARCHED = re.compile(r"(?:[\w.]*\bfind_library\b|None|nil|undef)\s*$")


def code_libraries(code: str, language: str) -> list[str | None]:
    """The shared objects ``code`` loads by a path (holding a `/`: a bare name is looked up in the library
    path, not the working folder; see _LIBRARY_LOADS); None for a name computed when it runs."""
    words = _LIBRARY_WORDS.get(language)
    if words is None or not any(word in code for word in words):
        return []
    out: list[str | None] = []
    assigned: dict[str, list[str]] = {}
    for match in itertools.islice(_LIBRARY_LOADS[language].finditer(code), _MAX_CALLS):
        expression = match.group(1).strip()
        if _LIBRARY_SEARCHED.match(expression):
            continue
        path = _path_of(expression, language, code, assigned, 0)
        if path is None or "/" in path:
            out.append(path)
    return out


# (sess45) A REPL's own commands that write a file, by language: (a word each holds, the command; its group:
# the file). node's `.save F` writes the lines the REPL was fed (`a = 1 // ; CMD` is JavaScript and a shell
# line) to F: a background `node -i` fed `.save ~/.bashrc` wrote a start-up file unjudged.
_REPL_WRITES: dict[str, tuple[str, re.Pattern[str]]] = {
    "node": (".save", re.compile(r"^[ \t]*\.save[ \t]+([^\s][^\n]*?)[ \t]*$", re.MULTILINE)),
}


def repl_writes(code: str, language: str) -> list[str]:
    """The files ``code``'s REPL commands write (see _REPL_WRITES), judged as `tee FILE`."""
    found = _REPL_WRITES.get(language)
    if found is None or found[0] not in code:
        return []
    return [m.group(1) for m in itertools.islice(found[1].finditer(code), _MAX_CALLS)]


def code_loads(code: str, language: str, runs_lines: bool = False) -> list[tuple[str, str | None]]:
    """(program, file) for each file ``code`` loads as its own code (see _LOADS: judged as
    ``program FILE``; None for a name computed when it runs), and, when ``runs_lines`` (it runs what it reads as shell
    commands), each file perl opens for reading (judged as `sh FILE`)."""
    runner = _LOADERS.get(language)
    if runner is None:
        return []
    pattern = _LOADS_AT["tclsh" if runner == "tclsh" else language]
    out: list[tuple[str, str | None]] = []
    assigned: dict[str, list[str]] = {}
    for match in pattern.finditer(code, _MAX_CALLS):
        found = next((g for g in match.groups() if g), "").strip()
        if language == "perl" and _PERL_MODULE.fullmatch(found):
            continue  # `require strict`, `require 5.010`: a module or a version, not a file
        if language == "ruby" and _RUBY_LIBRARY.match(match.group(0)):
            continue  # `require 'json'`: a gem
        path = _path_of(found, language, code, assigned, 0) if language in _NAMED_BY_EXPRESSION else found
        if path is None or (path and not path.startswith("-")):
            out.append((runner, path))  # None: a file named only when it runs
            if path and not posixpath.splitext(path)[1]:
                out += [(runner, path + suffix) for suffix in _TRIED_SUFFIXES.get(language, ())]
    if language == "node" and _NODE_RUNS_TEXT.search(code) is not None:
        out += [("node", m.group(1)) for m in itertools.islice(_NODE_READ.finditer(code), _MAX_CALLS)]
    if language == "perl" and runs_lines:
        found = itertools.islice(_PERL_READ_OPEN.finditer(code), _MAX_CALLS)
        out += [("sh", m.group(1)) for m in found if not m.group(1).startswith("-")]
    return out
