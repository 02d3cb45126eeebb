"""Readers for the small languages programs execute commands from.

sed scripts (`e`, `s///e`), ex-style command lines (vim `-c`, `+cmd`, gdb `-ex`,
less `+!cmd`), typed keys (tmux send-keys, screen stuff), makefiles, and env's
-S split strings. Each returns the shell commands its input would run; ``None``
stands for a command that comes from data the program reads at run time.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import posixpath
import re
import shlex
from collections.abc import Sequence

# -- env -S ------------------------------------------------------------------------

_ENV_ESCAPES = {"_": " ", "t": "\t", "n": "\n", "r": "\r", "v": "\v", "f": "\f", "\\": "\\", '"': '"', "'": "'"}
_ENV_ESCAPES.update({"#": "#", "$": "$"})
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def split_string(text: str, env: dict[str, str] | None = None) -> list[str]:
    """The words GNU env -S makes of ``text``: blanks separate, quotes group, `\\_` is a
    separating blank, `\\c` ends the string, `#` at a word start comments out the rest,
    and only ``${NAME}`` is expanded."""
    words: list[str] = []
    current: list[str] = []
    in_word = False
    i = 0
    n = len(text)
    quote = ""

    def finish() -> None:
        nonlocal in_word
        if in_word:
            words.append("".join(current))
            current.clear()
            in_word = False

    while i < n:
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = ""
            else:
                current.append(ch)
            i += 1
            continue
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            i += 2
            if nxt == "c":
                break
            if nxt == "_" and not quote:
                finish()
                continue
            current.append(_ENV_ESCAPES.get(nxt, "\\" + nxt))
            in_word = True
            continue
        if quote == '"':
            if ch == '"':
                quote = ""
            else:
                current.append(ch)
            i += 1
            continue
        if ch in " \t\n\v\f\r":
            finish()
            i += 1
            continue
        if ch == "#" and not in_word:
            break
        if ch in "'\"":
            quote = ch
            in_word = True
            i += 1
            continue
        if ch == "$":
            var = _VAR.match(text, i)
            if var is not None:
                value = (env or {}).get(var.group(1))
                current.append(value if value is not None else var.group())
                in_word = True
                i = var.end()
                continue
        current.append(ch)
        in_word = True
        i += 1
    finish()
    return words


# -- option variables (TAR_OPTIONS, MAKEFLAGS) ----------------------------------------

_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_HEX_ESCAPE = re.compile(r"x([0-9A-Fa-f]{1,2})")
_OCTAL_ESCAPE = re.compile(r"0([0-7]{1,3})")


def wordsplit(text: str, env: dict[str, str] | None = None) -> list[str]:
    """The words GNU tar makes of TAR_OPTIONS (its `wordsplit`, default flags): blanks separate,
    single and double quotes group, a backslash escapes the next character inside quotes and out
    (`\\ ` is a blank in a word, `\\t` a tab, `\\x41` an A), nothing is expanded, `#` is a character."""
    words: list[str] = []
    current: list[str] = []
    in_word = False
    quote = ""
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            code = _HEX_ESCAPE.match(text, i + 1) or _OCTAL_ESCAPE.match(text, i + 1)
            if code is not None:
                current.append(chr(int(code.group(1), 16 if code.group().startswith("x") else 8)))
                i = code.end()
            else:
                current.append(_C_ESCAPES.get(text[i + 1], text[i + 1]))
                i += 2
            in_word = True
            continue
        if quote:
            if ch == quote:
                quote = ""
            else:
                current.append(ch)
        elif ch in "'\"":
            quote = ch
            in_word = True
        elif ch in " \t\n":
            if in_word:
                words.append("".join(current))
                current.clear()
                in_word = False
        else:
            current.append(ch)
            in_word = True
        i += 1
    if in_word:
        words.append("".join(current))
    return words


def make_flags(text: str, env: dict[str, str] | None = None) -> list[str]:
    """The words GNU make makes of MAKEFLAGS / GNUMAKEFLAGS: the value is expanded as make text
    first (`$$` is a dollar; a `$(shell ...)` in it runs, judged apart), then blanks separate and a
    backslash escapes the next character; a first word without a dash or `=` is a group of letters."""
    words: list[str] = []
    current: list[str] = []
    text = text.replace("$$", "$")
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            current.append(text[i + 1])
            i += 2
            continue
        if ch in " \t":
            if current:
                words.append("".join(current))
                current.clear()
        else:
            current.append(ch)
        i += 1
    if current:
        words.append("".join(current))
    if words and not words[0].startswith("-") and "=" not in words[0]:
        words[0] = "-" + words[0]
    return words


# How a program splits an option variable into words (a run's `language:` for `as: options`).
OPTION_SPLITTERS = {"env": split_string, "tar": wordsplit, "make": make_flags}


# -- sed ---------------------------------------------------------------------------

# Addresses are bounded: an unterminated one costs at most its bound, whatever follows it.
_SED_ADDRESS = re.compile(r"\s*(?:\d+(?:~\d+)?|\$|/(?:[^/\\\n]|\\.){0,4096}/[IM]*|\\(.)(?:(?!\1).){0,4096}\1[IM]*)")
_SED_SECOND = re.compile(r"\s*,\s*(?:[+~]?\d+|\$|/(?:[^/\\\n]|\\.){0,4096}/[IM]*|\\(.)(?:(?!\1).){0,4096}\1[IM]*)")


def sed_payloads(script: str, files: list[tuple[str, str]] | None = None) -> list[str | None]:
    """Commands a sed script executes: `e COMMAND`, `e` (the pattern space: data), and
    `s/RE/REPLACEMENT/e` (the replaced pattern space, read as its replacement). ``files`` collects
    the files it names, as the command that reads or writes them: ("tee", FILE) for `w FILE`,
    `W FILE` and the `s///w FILE` flag, ("cat", FILE) for `r FILE` and `R FILE`."""
    out: list[str | None] = []
    i = 0
    n = len(script)
    while i < n:
        ch = script[i]
        if ch in " \t\n;{}!":
            i += 1
            continue
        if ch == "#":
            i = _line_end(script, i)
            continue
        address = _SED_ADDRESS.match(script, i)
        if address is not None and address.end() > i:
            i = address.end()
            second = _SED_SECOND.match(script, i)
            if second is not None:
                i = second.end()
            continue
        if ch == "e":
            end = _line_end(script, i)
            command = script[i + 1 : end].strip()
            out.append(command or None)
            i = end
        elif ch == "s" and i + 1 < n:
            i = _substitute(script, i, out, files)
        elif ch == "y" and i + 1 < n:
            delimiter = script[i + 1]
            i = _delimited(script, _delimited(script, i + 2, delimiter), delimiter)
        elif ch in "rRwW":
            # the file name is the rest of the line (`;` and `}` in it are part of the name)
            end = _line_end(script, i)
            _sed_file(script[i + 1 : end], "tee" if ch in "wW" else "cat", files)
            i = end
        elif ch in "aicbtT:vLlqQ":
            # (the lines after `a\\` are read as commands too: the stricter reading)
            i = _line_end(script, i) if ch in "aic:" else _command_end(script, i + 1)
        else:
            i += 1
    return out


def _line_end(script: str, i: int) -> int:
    end = script.find("\n", i)
    return len(script) if end < 0 else end


def _sed_file(rest: str, verb: str, files: list[tuple[str, str]] | None) -> None:
    """The file of a `w`/`r` command or flag: the rest of the line, blanks before it skipped."""
    name = rest.lstrip(" \t")
    if files is not None and name:
        files.append((verb, name))


def _command_end(script: str, i: int) -> int:
    while i < len(script) and script[i] not in ";\n}":
        i += 1
    return i


def _delimited(script: str, i: int, delimiter: str) -> int:
    """Index after the next unescaped ``delimiter`` from ``i``."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delimiter:
            return i + 1
        i += 1
    return i


def _substitute(script: str, i: int, out: list[str | None], files: list[tuple[str, str]] | None) -> int:
    delimiter = script[i + 1]
    after_regex = _delimited(script, i + 2, delimiter)
    after_replacement = _delimited(script, after_regex, delimiter)
    replacement = script[after_regex : max(after_regex, after_replacement - 1)]
    end = after_replacement
    flags = []
    while end < len(script) and script[end] not in ";\n}":
        if script[end] == "w":  # `w FILE` takes the rest of the line
            stop = _line_end(script, end)
            _sed_file(script[end + 1 : stop], "tee", files)
            end = stop
            break
        flags.append(script[end])
        end += 1
    if "e" in flags:
        text = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), replacement)
        # `&` and `\1` put the input line back in: the command is then partly data.
        out.append(text if text.strip() and not re.search(r"&|\\[0-9]", replacement) else None)
        if re.search(r"&|\\[0-9]", replacement) and text.strip():
            out.append(text.replace("&", " "))
    return end


# -- ex-style command lines (vim -c / +cmd, gdb -ex, less +cmd) ---------------------

_EX_PREFIX = re.compile(r"^[\s:]*(?:(?:%|[.$\d]+(?:,[.$\d]+)?|'[a-z<>])\s*)?(?:sil(?:ent)?!?\s+)?(?:exe(?:cute)?\s+)?")
_EX_BANG = re.compile(r"^(?:r(?:ead)?|w(?:rite)?|[.$\d,%]*)\s*!(.*)$", re.DOTALL)
# (lldb's `platform shell CMD` too: its command files are read as these)
# (gdb's `pipe CMD | SHELL` and `| CMD | SHELL`, a blank after `|` optional: the rest is read as a shell line,
# its gdb command before the shell's; fresh37a)
_EX_SHELL = re.compile(
    r"^(?:(?:(?:platform\s+)?sh(?:e(?:ll?)?)?|ter(?:m(?:i(?:n(?:al?)?)?)?)?|pipe)(?:\s+(.*))?|\|\s*(.*))$", re.DOTALL
)
_EX_CODE = re.compile(
    # (fresh39a) vim and gdb read a command by its abbreviations (`:pyt`, `:pe`, `:rub`, gdb's `gu`)
    r"^(?P<lang>py(?:t(?:h(?:on?)?)?)?3?|pyx|pythonx|py3?do|pydo|lua|luado|pe(?:rl?)?|perld(?:o)?|rub(?:y)?|rubyd(?:o)?|tcl"
    r"|gu(?:i(?:le?)?)?|python-interactive|pi"
    r"|script)"  # lldb's `script CODE`: python
    r"(?:\s+(?P<code>.*))?$",
    re.DOTALL,
)
_EX_LANGUAGES = {"lua": "lua", "luado": "lua", "perl": "perl", "perldo": "perl", "ruby": "ruby", "rubydo": "ruby"}
_EX_LANGUAGES.update({"pe": "perl", "per": "perl", "perld": "perl", "rub": "ruby", "rubyd": "ruby"})
# `:source FILE` / `:so FILE` (vim, gdb): a file of the same commands.
_EX_SOURCE = re.compile(r"^so(?:u(?:r(?:c(?:e)?)?)?)?!?\s+(?:-v\s+)?(\S.*)$")
_EX_AUTOCMD = re.compile(r"^au(?:tocmd)?!?\s+(.*)$", re.DOTALL)
_EX_AUTOCMD_FLAGS = re.compile(r"^(?:(?:\+\+once|\+\+nested|nested)\s+)+")
_EX_QUOTED = re.compile(r"^(['\"])(.*)\1$", re.DOTALL)  # `exe '!CMD'`: one string
# A mapping (`nnoremap j :!CMD<CR>`, `map <F2> <Cmd>py3 ...<CR>`, an abbreviation): its right side is keys
# typed when it is pressed (by `-c 'normal j'`, `-s KEYS`, feedkeys(), another mapping ...); each
# command line it types (after `:` or `<Cmd>`, up to `<CR>`) is read as run (adv31)
_EX_MAP = re.compile(
    r"^(?:[nvxsoilct]?(?:nore)?map!?|[nvxsoilct]?no(?:re(?:m(?:ap?)?)?)?!?|[nvxsoilct]n(?:o(?:r(?:e(?:m(?:ap?)?)?)?)?)?"
    r"|[nvxsoilct]?m(?:ap?)?|[ic]?(?:nore)?ab(?:b(?:r(?:ev?)?)?)?|[ic]?norea(?:b(?:br?)?)?)"
    r"\s+(?:<(?:buffer|nowait|silent|special|script|expr|unique)>\s*)*\S+\s+(?P<keys>.+)$",
    re.DOTALL | re.IGNORECASE,
)
_EX_TYPED = re.compile(r"(?::|<cmd>)(.*?)(?:<(?:cr|enter|return|nl)>|\r|\n|$)", re.IGNORECASE | re.DOTALL)
_EX_KEY_BAR = re.compile(r"<bar>", re.IGNORECASE)
_EX_SYSTEM = re.compile(r"\b(?:system|systemlist|jobstart|termopen)\s*\(\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*')")
# (fresh37a) what else runs a text: `:normal KEYS` and feedkeys(KEYS) type keys (each `:CMD<CR>` a command
# line), execute(CMD) / execute([CMD, ...]) runs ex commands, libcall(LIB, "system", CMD) libc's system()
_VIM_STRING = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')"""
_EX_NORMAL = re.compile(r"^norm(?:a(?:l)?)?!?\s+(?P<keys>.+)$", re.DOTALL)
_EX_FEEDKEYS = re.compile(r"\bfeedkeys\s*\(\s*(" + _VIM_STRING + ")")
_EX_EXECUTE = re.compile(r"\bexecute\s*\(\s*(\[(?:[^\]\"']|" + _VIM_STRING + r")*\]|" + _VIM_STRING + ")")
_EX_LIBCALL = re.compile(r"\blibcall(?:nr)?\s*\([^,()]*,\s*[\"']system[\"']\s*,\s*(" + _VIM_STRING + ")")
_EX_STRINGS = re.compile(_VIM_STRING)


def _vim_text(literal: str) -> str:
    """A vimscript string literal's text (a double-quoted one's `\\<CR>` is the key `<CR>`)."""
    if literal[0] == "'":
        return literal[1:-1].replace("''", "'")
    return literal[1:-1].replace("\\<", "<").replace('\\"', '"')


# vimscript's delete(PATH[, FLAGS]) and writefile(LINES, PATH): judged as `rm` (`rm -rf` with "rf", `rmdir`
# with "d") and `tee` of the path, a literal (`'~/x'`, `expand('~')`), an environment variable (`$HOME`) or an
# expression known only when it runs (adv32)
_VIM_PATH = r"""(?:expand\s*\(\s*)?(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*\)?|\$\w+|[^,()]+(?:\([^()]*\))?"""
_EX_DELETE = re.compile(
    r"""\bdelete\s*\(\s*(?P<path>""" + _VIM_PATH + r""")\s*(?:,\s*(?P<flags>"[^"]*"|'[^']*'))?\s*\)"""
)
_EX_WRITEFILE = re.compile(r"""\bwritefile\s*\((?:[^()]|\([^()]*\))*?,\s*(?P<path>""" + _VIM_PATH + r""")\s*[,)]""")
_VIM_VARIABLE = re.compile(r"\$\w+")
_VIM_LITERAL = re.compile(r"""^(?:expand\s*\(\s*)?(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^']|'')*)')\s*\)?$""")


def _ex_word(path: str) -> str:
    """A path an ex command names (`~/x` expanded as vim does) as a shell word."""
    return path if path in ("~", "~/") else "~/" + shlex.quote(path[2:]) if path.startswith("~/") else shlex.quote(path)


def _vim_path(expression: str) -> str:
    """A vimscript path expression as a shell word: a literal's text, `$NAME`, or a variable nobody sets."""
    expression = expression.strip()
    literal = _VIM_LITERAL.match(expression)
    if literal is not None:
        text = literal.group("dq") if literal.group("dq") is not None else literal.group("sq").replace("''", "'")
        return _ex_word(text)
    if _VIM_VARIABLE.fullmatch(expression):
        return f'"{expression}"'
    return '"$VIM_EXPRESSION"'  # known only when it runs


# Commands that write a file they name: vim's `:w FILE` / `:w >> FILE`, `:wq FILE`, `:x FILE`, `:saveas FILE`,
# `:update FILE`, `:redir > FILE`, `:mksession FILE`, `:mkvimrc FILE`, `:mkview FILE`, `:wviminfo FILE`,
# `:wshada FILE`; gdb's `set logging file FILE`, `set history filename FILE`, `dump|append ... FILE ...`,
# `save breakpoints FILE`, `gcore FILE`, `generate-core-file FILE`.
_EX_WRITE = re.compile(
    r"^(?:(?:w(?:r(?:i(?:te?)?)?)?|wq|x(?:it?)?|up(?:d(?:a(?:te?)?)?)?|sav(?:e(?:as?)?)?)!?(?:\s*>>)?"
    r"|redi(?:r)?!?\s*>>?|mks(?:e(?:s(?:s(?:i(?:on?)?)?)?)?)?!?|mkvimrc!?|mkv(?:i(?:m(?:r(?:c)?)?)?)?!?"
    r"|mkvie(?:w)?!?|wv(?:i(?:m(?:i(?:n(?:fo?)?)?)?)?)?!?|wsh(?:a(?:d(?:a)?)?)?!?"
    r"|set\s+logging\s+file|set\s+history\s+filename|save\s+(?:breakpoints|gdb-index)|gcore|generate-core-file)"
    r"\s+(?P<path>[^\s|!][^\s|]*)\s*$"
)
_EX_DUMP = re.compile(r"^(?:dump|append)(?:\s+(?:binary|verilog|ihex|srec|tekhex|value|memory))*\s+(?P<path>[^\s|]+)\s")
# (stop 57, adv57) a file opened into a buffer (`:e F`, `:sp F`, `:tabe F`, `:badd F`, `:args F`): a later `:w`, `:x`,
# `:up` writes it (`vim -es -c 'e ~/.bashrc' -c 'call append("$", "CMD")' -c w -c q` put CMD in .bashrc), so it
# is judged as a file written (`tee F`); a file read into the buffer (`:r F`, `:r ~/.ssh/id_ed25519` then `:w!
# leak.txt`: the key in a file the caller sends) as `cat F`
_EX_EDIT = re.compile(
    r"^(?:e(?:d(?:it?)?)?|vi(?:s(?:u(?:al?)?)?)?|sp(?:l(?:it?)?)?|vs(?:p(?:l(?:it?)?)?)?|new|vne(?:w)?"
    r"|tabe(?:d(?:it?)?)?|tabnew|sv(?:i(?:ew?)?)?|vie(?:w)?|fin(?:d)?|sf(?:i(?:nd?)?)?|bad(?:d)?|arga(?:d(?:d)?)?"
    r"|ar(?:gs?)?|n(?:e(?:xt?)?)?|drop|tabf(?:i(?:nd?)?)?)!?\s+(?:\+\S+\s+)?(?P<path>[^\s|!][^\s|]*)\s*$"
)
_EX_READ = re.compile(r"^(?:r(?:e(?:ad?)?)?|ins(?:e(?:rt?)?)?)\s+(?P<path>[^\s|!][^\s|]*)\s*$")


# Lines no reader below can find a payload in, dropped in one pass before the per-line reading (a
# 64 KiB vimrc is ~2,500 ex lines, each ~8 regex matches: 15 ms): a line that opens with `let`, `set`,
# a mapping or another verb none of the body patterns starts with, and holds no `|` (another command
# after it), no `!` (a bang in a mapping's right side, `:!CMD`) and none of the words the `system(`
# reading or gdb's `set logging|history` look for. Any other line is read as before.
_EX_INERT = re.compile(
    r"^[ \t:]*(?:let|unlet|set|setlocal|setglobal|[nvxsoilct]?(?:nore)?map|syntax|filetype|colorscheme"
    r"|highlight|hi|if|elseif|else|endif|endfunction|endfunc|return)(?![\w-])"
    r"(?![^\n]*(?:system|jobstart|termopen|logging|history|delete|writefile))"
    # a mapping typing a command that runs code, sources or writes a file (see _EX_MAP)
    r"(?![^\n]*(?::|<[Cc][Mm][Dd]>)[ \t]*(?:[.$\d,%]+|'.)?[ \t]*(?:sil\w*!?[ \t]+)?"
    r"(?:py|pe|rub|lu|tc|gu|sh|te|so|sa|red|mk|wv|wsh|wq?\b|wq?[ \t]|x\b|up|au|r\b|r[ \t]|norm|exe))"
    r"[^\n|!]*(?:\n|\Z)",
    re.MULTILINE,
)


def typed_commands(keys: str) -> str:
    """The command lines typed keys enter (`:CMD` up to a newline or `<CR>`, `<Cmd>CMD`): vim's `-s KEYS`
    file, read as the ex lines they are."""
    return "\n".join(found.group(1) for found in _EX_TYPED.finditer(keys))


def ex_payloads(text: str) -> list[tuple[str, str | None]]:
    """(language, code) pairs an ex-style command line runs: ("shell", CMD), ("spawn", None)
    for an interactive shell, ("file", PATH) for a file of ex commands it sources, ("write", PATH)
    for a file it writes (`:w F`, `:saveas F`, gdb's `set logging file F`), ("run", COMMAND) for what the
    editor does itself, judged as that command (vimscript's `delete(P, 'rf')`: `rm -rf -- P`), or
    (interpreter, CODE) for `:python ...`, `:lua ...`."""
    return _ex_payloads_of_lines(_EX_INERT.sub("", text))


def _ex_payloads_of_lines(text: str) -> list[tuple[str, str | None]]:
    """ex_payloads without the inert-line prefilter (each line read)."""
    out: list[tuple[str, str | None]] = []
    for line in _ex_lines(text):
        for body in _ex_bodies(_EX_PREFIX.sub("", line, count=1).strip()):
            _ex_body(body, out)
    return out


def _ex_bodies(body: str) -> list[str]:
    """The ex command ``body`` runs: itself; an autocmd's command (`au VimEnter * !CMD`, with or
    without a group: both readings); an `:execute` string's text (`exe '!CMD'`)."""
    bodies = [body]
    auto = _EX_AUTOCMD.match(body)
    if auto is not None:
        words = auto.group(1).split(None, 3)
        for at in (2, 3):  # `au EVENT PAT CMD`, `au GROUP EVENT PAT CMD`
            if len(words) > at:
                command = _EX_AUTOCMD_FLAGS.sub("", " ".join(words[at:]), count=1)
                bodies.append(_EX_PREFIX.sub("", command, count=1).strip())
    mapping = _EX_MAP.match(body)
    if mapping is not None:
        for typed in _EX_TYPED.finditer(mapping.group("keys")):
            for line in _ex_lines(_EX_KEY_BAR.sub("|", typed.group(1))):
                bodies += _ex_bodies(_EX_PREFIX.sub("", line, count=1).strip())
    normal = _EX_NORMAL.match(body)
    if normal is not None:  # `:normal :!CMD<CR>`: the command lines the keys type
        for line in _ex_lines(typed_commands(_EX_KEY_BAR.sub("|", normal.group("keys")))):
            bodies += _ex_bodies(_EX_PREFIX.sub("", line, count=1).strip())
    quoted = _EX_QUOTED.match(body)
    if quoted is not None:
        inner = _vim_text(body)
        bodies += _ex_bodies(_EX_PREFIX.sub("", inner, count=1).strip())  # (`exe "norm :!CMD\\<CR>"`: read as well)
    return [b for b in bodies if b]


def _ex_body(body: str, out: list[tuple[str, str | None]]) -> None:
    """The payloads of one ex command (see ex_payloads)."""
    bang = _EX_BANG.match(body)
    verb = body[: body.find("!")].strip(" .$,%0123456789") if bang is not None else ""
    if verb in ("w", "write") and not body[body.find("!") - 1].isspace():
        bang = None  # `:w! FILE` writes by force (`:w !CMD`, with a blank, pipes to CMD)
    if bang is not None and verb in ("", "r", "read", "w", "write"):
        command = bang.group(1).strip()
        out.append(("shell", command) if command else ("spawn", None))
        return
    shell = _EX_SHELL.match(body)
    if shell is not None:
        command = (shell.group(1) or shell.group(2) or "").strip()
        out.append(("shell", command) if command else ("spawn", None))
        return
    source = _EX_SOURCE.match(body)
    if source is not None:
        out.append(("file", source.group(1).strip()))
        return
    written = _EX_WRITE.match(body) or _EX_DUMP.match(body) or _EX_EDIT.match(body)
    if written is not None:
        out.append(("write", written.group("path")))
        return
    read = _EX_READ.match(body)
    if read is not None:
        out.append(("run", f"cat -- {_ex_word(read.group('path'))}"))
        return
    code = _EX_CODE.match(body)
    if code is not None:
        lang = _EX_LANGUAGES.get(code.group("lang"), "python")
        out.append((lang, code.group("code")))
        return
    for call in _EX_SYSTEM.finditer(body):
        literal = call.group(1)
        out.append(("shell", literal[1:-1].replace("''", "'") if literal[0] == "'" else literal[1:-1]))
    if "(" in body:
        for call in _EX_LIBCALL.finditer(body):
            out.append(("shell", _vim_text(call.group(1))))
        for call in _EX_FEEDKEYS.finditer(body):
            out.extend(_ex_payloads_of_lines(typed_commands(_vim_text(call.group(1)))))
        for call in _EX_EXECUTE.finditer(body):
            for literal in _EX_STRINGS.findall(call.group(1)):
                out.extend(_ex_payloads_of_lines(_vim_text(literal)))
    if "delete" in body:
        for call in _EX_DELETE.finditer(body):
            flags = call.group("flags") or ""
            verb = "rm -rf --" if "rf" in flags else "rmdir --" if "d" in flags else "rm --"
            out.append(("run", f"{verb} {_vim_path(call.group('path'))}"))
    if "writefile" in body:
        out.extend(("run", f"tee -- {_vim_path(call.group('path'))}") for call in _EX_WRITEFILE.finditer(body))


# ed(1): an address (line numbers, marks, /regex/, ?regex?) before a command letter.
_ED_ADDRESS = r"(?:[ \t\d.$,;%+\-^]|'[a-z]|/(?:[^/\\\n]|\\.)*/|\?(?:[^?\\\n]|\\.)*\?)*"
# `!CMD`, `r !CMD`, `w !CMD`, `e !CMD`, `E !CMD`: a shell command line; `g/re/!...` is ed's error.
_ED_BANG = re.compile(r"^" + _ED_ADDRESS + r"(?:[rwWeE][ \t]*)?!(.*)$", re.MULTILINE)
# `r FILE`, `e FILE`, `E FILE`: a file read into the buffer (and printed by `,p`).
_ED_READ = re.compile(r"^" + _ED_ADDRESS + r"[reE][ \t]+([^!\s][^\n]*)$", re.MULTILINE)
# `w FILE`, `W FILE` (appends), `wq FILE`: the buffer written to a file other than the one edited.
_ED_WRITE = re.compile(r"^" + _ED_ADDRESS + r"(?:wq?|W)[ \t]+([^!\s][^\n]*)$", re.MULTILINE)


def ed_payloads(text: str) -> list[str | None]:
    """Shell command lines an ed(1) script runs: `!CMD`, `r !CMD`, `w !CMD`, `e !CMD` (an
    empty one: `!` alone repeats the last, nothing certain to read)."""
    return [m.group(1).strip() or None for m in _ED_BANG.finditer(text)]


def ed_reads(text: str) -> list[str | None]:
    """Files an ed(1) script reads into its buffer (`r FILE`, `e FILE`, `E FILE`)."""
    return [m.group(1).strip() for m in _ED_READ.finditer(text)]


def ed_writes(text: str) -> list[str]:
    """Files an ed(1) script writes its buffer to (`w FILE`, `W FILE`, `wq FILE`)."""
    return [m.group(1).strip() for m in _ED_WRITE.finditer(text)]


def _ex_lines(text: str) -> list[str]:
    """Split on newlines and on `|` (vim's command separator), except inside a `!` command."""
    lines: list[str] = []
    for line in text.split("\n"):
        start = 0
        while start < len(line):
            body = _EX_PREFIX.sub("", line[start : start + 64], count=1)
            # (gdb's `pipe` and `|`: their `|` is the pipe to the shell line, no separator; fix58a: `w! FILE` is a
            # forced write, its `|` a separator: `w! ../notes.txt|q` writes ../notes.txt)
            if body.lstrip().startswith(("!", "r!", "r !", "w !", "read !", "write !", "|", "pipe ")):
                lines.append(line[start:])
                break
            at = line.find("|", start)
            if at < 0:
                lines.append(line[start:])
                break
            lines.append(line[start:at])
            start = at + 1
    return lines


# -- database shells (mysql, psql, sqlite3) -----------------------------------------------

_SQL_SHELL = re.compile(
    r"(?im)(?:^|;)\s*(?:\\!|\\system|system|\.shell|\.system|\\o\s*\||\\g\s*\||\.output\s*\||\.once\s*\|)\s*([^\n;]*)"
)
# (fresh39a) What takes the rest of its line, `;` and all: sqlite3's (and duckdb's) dot-commands, read by any
# prefix (`.sh`, `.sy`, `.o`), a `.output`/`.once`/`.import`/`.read` whose file is a quoted or bare `|CMD`,
# psql's `\!` and `\w |CMD`, sqlcmd's `!!CMD`, and mysql's `pager CMD` / `\P CMD` (its output piped to CMD).
_SQL_LINE = re.compile(
    r"(?im)^[ \t]*(?:\.sh(?:e(?:ll?)?)?|\.sy(?:s(?:t(?:em?)?)?)?|!!|\\!|\\system|system|pager|(?-i:\\P)"
    r"|(?:\.o(?:u(?:t(?:p(?:ut?)?)?)?|n(?:ce?)?)?|\.rea(?:d)?|\.im(?:p(?:o(?:rt?)?)?)?)(?:[ \t]+-{1,2}[\w-]+)*"
    r"[ \t]+(?P<q>['\"]?)\||\\[ogw][ \t]*\|)(?:[ \t]+|(?<=[|!]))(?P<cmd>[^\n]*)"
)
# psql's (and mysql's) backslash commands after a query on the same line: `select 1 \g |CMD`, `… \! CMD`
_SQL_META = re.compile(r"\\(?:!|[ogw][ \t]*\|)[ \t]*(?P<cmd>[^\n]*)")
_SQL_PROGRAM = re.compile(r"(?is)\bprogram\s+'((?:[^']|'')*)'")
# (xfail40) psql's `\setenv NAME VALUE` of the editor, pager or shell a later `\e`, `\ef`, a long result or `\!` runs:
# VALUE is the command (psql runs `EDITOR FILE` through the shell)
_SQL_SETENV = re.compile(
    r"(?im)\\setenv[ \t]+(?:PSQL_EDITOR|EDITOR|VISUAL|PSQL_PAGER|PAGER|PSQL_WATCH_PAGER|SHELL)[ \t]+(?P<value>[^\n]*)"
)
# sqlite3's SQL functions: edit(TEXT, EDITOR) runs EDITOR through the shell; writefile(PATH, DATA)
# writes and readfile(PATH) reads any file. A first argument that is not a string literal is data.
_SQL_LITERAL = r"'((?:[^']|'')*)'"
_SQL_EDIT = re.compile(
    r"(?is)\bedit\s*\((?:[^(),']++|'(?:[^']|'')*+'|\([^()]*+\))*+,\s*(?:" + _SQL_LITERAL + r"|([^)\s]))"
)
_SQL_WRITEFILE = re.compile(r"(?is)\bwritefile\s*\(\s*(?:" + _SQL_LITERAL + r"|([^)\s]))")
# (fresh39a) and the other shells' functions that read a file of this machine: duckdb's read_text / read_blob /
# read_csv / read_json / read_parquet (`~` is the home there), ClickHouse's file(), MySQL's load_file(),
# PostgreSQL's pg_read_file() (the server's, on this machine for a local one)
_SQL_READ = re.compile(
    r"(?is)\b(?:readfile|read_(?:text|blob|csv(?:_auto)?|json(?:_auto|_objects)?|ndjson|parquet)|load_file"
    r"|pg_read_(?:binary_)?file|file)\s*\(\s*(?:" + _SQL_LITERAL + r"|([^)\s]))|^\s*\.import\s+(?:--\w+\s+)*(\S+)",
    re.MULTILINE,
)


def sql_payloads(text: str) -> list[str | None]:
    """Commands a database shell's input hands to the system shell: `\\! CMD`, `system CMD`,
    `.shell CMD`, `.system CMD`, output piped to `|CMD`, `COPY ... PROGRAM 'CMD'`, sqlite3's
    `edit(TEXT, 'EDITOR')` (EDITOR run on a temporary file) and `writefile('PATH', DATA)` (a file
    written, reported as `tee PATH`). None: the command (or file) comes from data."""
    out: list[str | None] = [m.group(1).strip() or None for m in _SQL_SHELL.finditer(text)]
    for m in _SQL_LINE.finditer(text):
        line, quote = m.group("cmd"), m.group("q")
        if quote:
            line = line.split(quote, 1)[0]
        line = line.strip()
        if line and line not in out:
            out.append(line)
    if "\\" in text:
        for m in _SQL_META.finditer(text):
            line = m.group("cmd").strip()
            if line and line not in out:
                out.append(line)
        for m in _SQL_SETENV.finditer(text):
            value = m.group("value").strip()
            if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out.append(value or None)
    out += [m.group(1).replace("''", "'") for m in _SQL_PROGRAM.finditer(text)]
    if "(" in text:
        out += [
            _sql_string(m.group(1)) + " /tmp/sqlite-edit" if m.group(1) is not None else None
            for m in _SQL_EDIT.finditer(text)
        ]
        out += [
            f'tee "{_sql_string(m.group(1))}"' if m.group(1) is not None else None
            for m in _SQL_WRITEFILE.finditer(text)
        ]
    return out


# SQL that creates the database file it names: `VACUUM [schema] INTO 'F'`, `ATTACH [DATABASE] 'F' AS x`
# (sqlite3, duckdb).
_SQL_CREATES = re.compile(r"(?is)\b(?:vacuum(?:\s+\w+)?\s+into|attach(?:\s+database)?)\s+" + _SQL_LITERAL)


# PostgreSQL's server-side `COPY table|(query) TO 'F'`: the server writes F (on this machine for a local one).
_SQL_COPY_TO = re.compile(r"(?is)\bcopy\b[^;]*?\bto\s+" + _SQL_LITERAL)


def sql_writes(text: str) -> list[str]:
    """Files a database shell's SQL creates or overwrites (`VACUUM INTO 'F'`, `ATTACH 'F'`, `COPY ... TO 'F'`)."""
    return [_sql_string(path) for path in sql_written_paths(text)]


def sql_written_paths(text: str) -> list[str]:
    """sql_writes' files as they are named (the SQL literals' text, not shell words)."""
    found = [*_SQL_CREATES.finditer(text), *_SQL_COPY_TO.finditer(text)]
    return [m.group(1).replace("''", "'") for m in found]


# `.read FILE` (sqlite3), `\\i FILE`/`\\ir FILE` (psql), `source FILE`/`\\. FILE` (mysql): SQL from a file.
_SQL_SOURCE = re.compile(r"(?im)(?:^|;)\s*(?:\.read|\\ir?|source|\\\.)\s+([^\s;]+)")


def sql_sources(text: str) -> list[str]:
    """Files of commands a database shell's input runs (`.read FILE`, `\\i FILE`, `source FILE`)."""
    return [m.group(1).strip("'\"") for m in _SQL_SOURCE.finditer(text)]


def sql_reads(text: str) -> list[str | None]:
    """Files a database shell's input reads: sqlite3's `readfile('PATH')`, `.import PATH TABLE`.
    None: a path that comes from data."""
    out: list[str | None] = []
    for m in _SQL_READ.finditer(text):
        path = m.group(1) if m.group(1) is not None else m.group(3)
        out.append(None if path is None else _sql_string(path))
    return out


def _sql_string(literal: str) -> str:
    """A SQL string literal's text, for a double-quoted shell word (its `$HOME` still read)."""
    return literal.replace("''", "'").replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")


# -- typed keys (tmux send-keys, screen stuff) ----------------------------------------

_ENTER_KEYS = frozenset({"enter", "c-m", "kpenter", "c-j", "^m", "^j"})


def typed_text(words: list[str], literal: bool = False) -> str:
    """The text `tmux send-keys WORD...` types: key names become keys, other words their text."""
    out: list[str] = []
    for word in words:
        if not literal and word.lower() in _ENTER_KEYS:
            out.append("\n")
        elif not literal and word.lower() in ("space", "tab"):
            out.append(" " if word.lower() == "space" else "\t")
        else:
            out.append(word.replace("^M", "\n").replace("\\n", "\n").replace("\\r", "\n"))
    return "".join(out)


# -- makefiles ---------------------------------------------------------------------

_MAKE_SHELL = re.compile(r"\$[({]shell\s+((?:[^()]|\([^()]*\))*)[)}]")
_MAKE_SHELL_VARIABLE = re.compile(r"^\s*(?:override\s+)?SHELL\s*[:?+!]?=\s*(.+)$", re.MULTILINE)


# `TARGETS: PREREQUISITES; RECIPE`: a recipe on the rule's line (not `X := a; b`, `all: X = a; b`)
_MAKE_INLINE_RECIPE = re.compile(r"^[^\t=;#:\n][^=;#:\n]*::?(?!=)[^=;\n]*;(.*)$", re.MULTILINE)


# What a makefile sets that changes how every recipe runs, in each spelling of an assignment (`[TARGET:]
# [export|override|private] NAME OP VALUE`): PATH (make looks its recipes' programs up on the PATH it
# sets: `PATH := ./bin:$(PATH)` runs a written bin/echo for `echo hi`), .SHELLFLAGS (the words before
# each recipe: `SHELL := /usr/bin/env` `.SHELLFLAGS := rm -rf ~`), and `NAME != CMD` (CMD run by make as
# it reads the line).
_MAKE_PREFIX = r"^[ ]*(?:[^\t#=:\n]+:[ \t]*)?(?:(?:export|override|private)[ \t]+)*"
_MAKE_SETS = re.compile(
    _MAKE_PREFIX + r"(?P<name>PATH|\.SHELLFLAGS)[ \t]*(?P<op>:{0,3}=|[?+!]=)[ \t]*(?P<value>[^\n]*)$", re.MULTILINE
)
_MAKE_DEFINE = re.compile(
    r"^[ ]*(?:(?:export|override|private)[ \t]+)*define[ \t]+(?P<name>PATH|\.SHELLFLAGS)\b[^\n]*\n"
    r"(?P<value>.*?)^[ ]*endef",
    re.MULTILINE | re.DOTALL,
)
_MAKE_BANG = re.compile(_MAKE_PREFIX + r"[^\s:#=!?+]+[ \t]*!=[ \t]*([^\n]*)$", re.MULTILINE)
_MAKE_REFERENCE = re.compile(r"\$[({]([A-Za-z_]\w*)[)}]")


def _make_settings(text: str) -> list[str]:
    """Shell lines for what a makefile sets that changes how its recipes run (see _MAKE_SETS), to be
    read before them: `export PATH="VALUE"` (make's `$(NAME)` read as the shell's `${NAME}`, another
    `$(...)` as a command), `SHELL FLAGS :` for each SHELL it sets (or /bin/sh), and each `!=` command."""
    out: list[str] = []
    if "!=" in text:
        out.extend(match.group(1) for match in _MAKE_BANG.finditer(text))
    if "PATH" not in text and "SHELLFLAGS" not in text:
        return out
    flags: list[str] = []
    found = [(m.group("name"), m.group("op"), m.group("value")) for m in _MAKE_SETS.finditer(text)]
    found += [(m.group("name"), "=", " ".join(m.group("value").split())) for m in _MAKE_DEFINE.finditer(text)]
    for name, op, given in found:
        value = f"$({given.strip()})" if op == "!=" else given.strip()
        if name == "PATH":
            out.append('export PATH="' + _MAKE_REFERENCE.sub(r"${\1}", value).replace("$$", "\\$") + '"')
        else:
            flags.append(value)
    if flags:
        shells = [m.group(1).strip() for m in _MAKE_SHELL_VARIABLE.finditer(text)] or ["/bin/sh"]
        out.extend(f"{shell} {value} :" for shell in shells for value in flags)
    return out


# make's built-in variables (GNU make's defaults, `make -p`): a recipe's `$(CC) -o x x.c` runs `cc -o x
# x.c`; the flags are empty. A makefile that sets one gives its value instead (one plain assignment), or
# leaves the reference unread (several, `+=`, a value of make's own references); the value of a program's
# variable it sets runs too (a recipe of another makefile may use it: `make -f a.mk -f b.mk`), as
# `make CC=VALUE` does (policies/executors.yaml).
_MAKE_PROGRAMS = {
    "CC": "cc", "CXX": "g++", "CPP": "cc -E", "AR": "ar", "AS": "as", "LD": "ld", "FC": "f77", "PC": "pc",
    "LEX": "lex", "YACC": "yacc", "LINT": "lint", "M2C": "m2c", "MAKEINFO": "makeinfo", "TEX": "tex",
    "TEXI2DVI": "texi2dvi", "WEAVE": "weave", "CWEAVE": "cweave", "TANGLE": "tangle", "CTANGLE": "ctangle",
    "RM": "rm -f", "GET": "get", "CO": "co", "MAKE": "make",
}  # fmt: skip
_MAKE_FLAGS = {
    "ARFLAGS": "rv", "CFLAGS": "", "CXXFLAGS": "", "CPPFLAGS": "", "LDFLAGS": "", "LDLIBS": "", "FFLAGS": "",
    "ASFLAGS": "", "LFLAGS": "", "YFLAGS": "", "PFLAGS": "", "RFLAGS": "", "LINTFLAGS": "", "TARGET_ARCH": "",
    "SHELL": "/bin/sh", ".SHELLFLAGS": "-c",
}  # fmt: skip
# An assignment of a makefile (`[TARGET:] [export|override|private] NAME OP VALUE`), `undefine NAME`, and
# one whose name is computed (`$(C)C = rm -rf ~`: nobody reads which variable it sets)
_MAKE_ASSIGN = re.compile(
    r"^[ ]*(?:[^\t#=:\n]+:[ \t]*)?(?P<mods>(?:(?:export|override|private|undefine)[ \t]+)*)"
    r"(?P<name>[A-Za-z_.][A-Za-z0-9_.-]*)[ \t]*(?P<op>:{0,3}=|[?+!]=|$)[ \t]*(?P<value>[^\n#]*)",
    re.MULTILINE,
)
_MAKE_COMPUTED_NAME = re.compile(
    r"^[ ]*(?:[^\t#=:\n]+:[ \t]*)?(?:(?:export|override|private|define|undefine)[ \t]+)*[^\t\n#=:$]*\$[^\n=:]*?"
    r"(?::{0,3}|[?+!])=",
    re.MULTILINE,
)
_MAKE_CONDITIONAL = re.compile(r"^[ \t]*(?:ifdef|ifndef|ifeq|ifneq)\b", re.MULTILINE)
# `$(NAME)` / `${NAME}` in a recipe (not `$$`, not a function call's `$(shell …)`)
_MAKE_VARIABLE_REFERENCE = re.compile(r"(?<!\$)\$(?:\(([A-Za-z_.][A-Za-z0-9_.-]*)\)|\{([A-Za-z_.][A-Za-z0-9_.-]*)\})")
# A command-line variable definition (`make 'CC = x'`, `CC:=x`, `CC+=x`, `X!=CMD`)
_MAKE_LINE_ASSIGN = re.compile(r"^[ \t]*(?P<name>[^\s=:!?+#]+)[ \t]*(?P<op>:{0,3}=|[?+!]=)(?P<value>.*)$", re.DOTALL)
_MAX_MAKE_READINGS = 8  # readings of one recipe line (a variable with several values): more is unknown


class MakeGiven:
    """What make's command line and its environment give its variables: NAME -> the values it may hold
    (None: one known only at run time), whether the environment overrides the makefile (`make -e`),
    whether the line defines a variable whose name is computed (`make 'X$(Y)=…'`), and the makefile
    text make reads before the makefiles (`--eval`): its assignments count as theirs."""

    __slots__ = ("before", "computed", "environment", "environment_first", "goals", "line")

    def __init__(
        self,
        line: dict[str, list[str | None]],
        environment: dict[str, list[str | None]],
        environment_first: bool = False,
        computed: bool = False,
        before: str = "",
        goals: tuple[str, ...] | None = None,
    ) -> None:
        self.line = line
        self.environment = environment
        self.environment_first = environment_first
        self.computed = computed
        self.before = before
        # (mk49) the goals make is asked for (empty: its default goal), when make reads one makefile it is
        # known to read first and no goal is computed; None: every recipe is judged (see make_goal_recipes)
        self.goals = goals


def make_line_variables(words: Sequence[str], dynamic: Sequence[bool]) -> tuple[dict[str, list[str | None]], bool]:
    """The variables make's command-line words define (each `NAME OP VALUE` operand, `MAKEFLAGS`' too),
    and whether one's name is computed. A value known only at run time, `X!=CMD` (CMD's output), or one
    appended to (`CC+=x`) is marked by a `+` (the environment's value goes before it)."""
    line: dict[str, list[str | None]] = {}
    computed = False
    for word, varies in zip(words, dynamic, strict=False):
        if "=" not in word:
            continue
        match = _MAKE_LINE_ASSIGN.match(word)
        if match is None:
            continue
        name, op, value = match.group("name", "op", "value")
        if "$" in name or (varies and "=" not in word.split("$", 1)[0]):
            computed = True
            continue
        held: str | None = None if varies or op == "!=" else value.strip()
        if op == "+=" and held is not None:
            held = "+" + held  # (see _make_variables: after the environment's value)
        line.setdefault(name, []).append(held)
    return line, computed


def _make_known(value: str | None, out: list[str | None]) -> str | None:
    """A value as a recipe reads it: make text (`$$` a dollar); one holding make's own references is
    known only at run time, and the `$(shell CMD)` calls in it run (put in ``out``)."""
    if value is None or "$" not in value:
        return value
    rest = value.replace("$$", "")
    if "$" not in rest:
        return value.replace("$$", "$")
    out.extend(match.group(1) for match in _MAKE_SHELL.finditer(value))
    return None


def _make_appended(value: str | None, environment: list[str | None] | None) -> list[str | None]:
    """A command-line value: `CC+=x` (marked `+x`) is the environment's value and x, or x alone."""
    if value is None or not value.startswith("+"):
        return [value]
    return [value[1:], *(None if held is None else f"{held} {value[1:]}" for held in environment or ())]


def _make_variables(text: str, out: list[str | None], given: MakeGiven | None) -> dict[str, list[str | None]] | None:
    """The values each `$(NAME)` of ``text``'s recipes may stand for, as make decides them: the command
    line's, unless the makefile's assignment is an `override`; the makefile's (one plain assignment; one
    inside a conditional, the value below it too; `?=` none when the environment or a built-in default
    sets the name), unless `make -e` puts the environment's first; the environment's; the built-in
    default (see _MAKE_PROGRAMS). A name missing from the result is left as written (a makefile setting
    it several times, `+=`, from its own references). The values it gives the programs' variables are
    put in ``out`` as commands. None: the makefile sets a variable whose name is computed, or as it runs
    (`$(eval …)`): no name is read."""
    if given is not None and given.before:
        text = given.before + "\n" + text
    if "$(eval" in text or "${eval" in text or "define" in text:
        return {}  # assignments made as it runs, or over several lines: none is read
    if "$" in text and _MAKE_COMPUTED_NAME.search(text) is not None:
        return None
    inside = _make_conditional_lines(text) if "if" in text and _MAKE_CONDITIONAL.search(text) else None
    assigned: dict[str, list[tuple[str, str, bool, bool]]] = {}
    for match in _MAKE_ASSIGN.finditer(text):
        mods, name, op, value = match.group("mods", "name", "op", "value")
        if not op and "undefine" not in mods:
            continue
        maybe = inside is not None and text.rfind("\n", 0, match.start()) + 1 in inside
        assigned.setdefault(name, []).append((op or "undefine", value.strip(), "override" in mods, maybe))
        if name in _MAKE_PROGRAMS and value.strip():
            out.append(value.strip())
    line = given.line if given is not None else {}
    environment = given.environment if given is not None else {}
    environment_first = given is not None and given.environment_first
    values: dict[str, list[str | None]] = {}
    for name in {*assigned, *line, *environment, *_MAKE_PROGRAMS, *_MAKE_FLAGS}:
        made = assigned.get(name)
        default = _MAKE_PROGRAMS.get(name, _MAKE_FLAGS.get(name))
        below: list[str | None] = list(environment.get(name, ()))
        if not below or name == "SHELL":  # make never takes SHELL from the environment: both readings
            below.append(default if default is not None else "")
        given_line: list[str | None] = []
        for value in line.get(name, ()):
            given_line.extend(_make_appended(value, environment.get(name)))
        if made is None:
            values[name] = list(given_line or below)
            continue
        op, value, override, maybe = made[0]
        plain = len(made) == 1 and op in ("=", ":=", "::=", ":::=", "?=") and "$" not in value
        if given_line and not any(o for _, _, o, _ in made):
            values[name] = given_line
        elif not plain:
            continue  # left as written
        elif environment_first and name in environment and not override and name != "SHELL":
            values[name] = list(environment[name])
        elif op == "?=":  # set when nothing else did: the environment or a built-in default did
            values[name] = (
                [*below, *([value] if maybe else [])] if name in environment or default is not None else [value]
            )
        else:
            values[name] = [value, *below] if maybe else [value]
    for name, held in values.items():
        values[name] = list(dict.fromkeys(_make_known(value, out) for value in held))
    return values


def _make_conditional_lines(text: str) -> set[int]:
    """Where the lines of ``text`` inside an `ifdef`/`ifndef`/`ifeq`/`ifneq` block start."""
    inside: set[int] = set()
    depth = 0
    at = 0
    for line in text.split("\n"):
        word = line.split(None, 1)[0] if line.strip() and not line.startswith("\t") else ""
        if word in ("ifdef", "ifndef", "ifeq", "ifneq"):
            depth += 1
        elif word == "endif":
            depth = max(depth - 1, 0)
        elif depth:
            inside.add(at)
        at += len(line) + 1
    return inside


def _make_readings(line: str, variables: dict[str, list[str | None]]) -> list[str | None]:
    """A recipe line with its variables expanded, once for each value they may hold (see
    _make_variables); None: a reading nobody knows here."""
    if "$" not in line or not variables:
        return [line]
    names = [m.group(1) or m.group(2) for m in _MAKE_VARIABLE_REFERENCE.finditer(line)]
    choices = [variables[name] for name in dict.fromkeys(names) if name in variables]
    if not choices:
        return [line]
    out: list[str | None] = []
    if any(None in held for held in choices):
        out.append(None)
    known = [[v for v in held if v is not None] for held in choices]
    if any(not held for held in known):
        return out
    count = 1
    for held in known:
        count *= len(held)
    if count > _MAX_MAKE_READINGS:
        return [None]
    order = [name for name in dict.fromkeys(names) if name in variables]
    for combination in itertools.product(*known):
        out.append(_make_substituted(line, dict(zip(order, combination, strict=True))))
    return out


def _make_substituted(line: str, chosen: dict[str, str]) -> str:
    return _MAKE_VARIABLE_REFERENCE.sub(lambda m: chosen.get(m.group(1) or m.group(2), m.group(0)), line)


# A SHELL that runs a recipe as the shell line it is, with .SHELLFLAGS of options only ending in `-c`
# (`-ec`, `-eu -o pipefail -c`): the recipe is read as written
_MAKE_PLAIN_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})
_MAKE_PLAIN_FLAGS = re.compile(r"(?:[ \t]*(?:[-+][A-Za-z]+|-o[ \t]+[a-z]+))*[ \t]*-[A-Za-z]*c[ \t]*")


def _make_plain_runner(shell: str, flags: str) -> bool:
    program, _, options = shell.strip().partition(" ")
    plain = posixpath.basename(program) in _MAKE_PLAIN_SHELLS
    return plain and _MAKE_PLAIN_FLAGS.fullmatch(f"{options} {flags}") is not None


def make_payloads(text: str, given: MakeGiven | None = None, depth: int = 0) -> list[str | None]:
    """Commands a makefile runs: what it sets that changes every recipe (_make_settings), recipe lines
    (tab-indented, or after a rule's `;`) with make's variables expanded as its command line and
    environment (``given``) set them, each run by the SHELL with the .SHELLFLAGS they give (`make x
    SHELL=rm .SHELLFLAGS=-rf` runs `rm -rf LINE`), `$(shell ...)` calls and a SHELL it sets. None: a
    recipe line nobody can read here (a variable whose value or name is known only at run time)."""
    out: list[str | None] = [*_make_settings(text)]
    variables = _make_variables(text, out, given)
    if given is not None and given.computed:
        variables = None
    # (mk50) what make exports to every recipe, read before each; its parse-time functions, wherever they are
    exports = make_exports(text, variables, given)
    if exports is None:
        out.append(None)
        exports = ""
    out.extend(_make_parse_time(text, variables, depth))
    chosen = make_goal_recipes(text, given.goals) if given is not None and given.goals is not None else None
    if chosen is not None:
        recipes = chosen
    else:
        recipes = [line[1:].lstrip("@+-") for line in text.split("\n") if line.startswith("\t")]
        if ";" in text:
            recipes.extend(match.group(1).strip().lstrip("@+-") for match in _MAKE_INLINE_RECIPE.finditer(text))
    runners: list[str] = []
    if variables:
        shells = [s for s in variables.get("SHELL", ["/bin/sh"]) if s is not None]
        flags = [f for f in variables.get(".SHELLFLAGS", ["-c"]) if f is not None]
        if None in variables.get("SHELL", ()) or None in variables.get(".SHELLFLAGS", ()):
            out.append(None)
        runners = [f"{s} {f}" for s in shells for f in flags if not _make_plain_runner(s, f)][:_MAX_MAKE_READINGS]
    if given is not None and not recipes:
        # a SHELL or .SHELLFLAGS on make's command line (this text), with makefiles not read here: each
        # of their recipe lines, a text nobody knows here, run by that program
        out.extend(f'{exports}{runner} "$MAKE_RECIPE"' for runner in runners)
    if exports and not recipes:
        out.append(exports + ":")
    # (mk50) a recipe's `$(file …)` calls are judged above; make replaces each by nothing
    recipes = [_make_without_files(recipe) if "file" in recipe else recipe for recipe in recipes]
    for recipe in recipes:
        if variables is None:
            out.append(None if _MAKE_VARIABLE_REFERENCE.search(recipe) else exports + recipe)
            continue
        for reading in _make_readings(recipe, variables):
            out.append(None if reading is None else exports + reading)
            if reading is not None:
                out.extend(f"{exports}{runner} {shlex.quote(reading)}" for runner in runners)
    out.extend(match.group(1) for match in _MAKE_SHELL.finditer(text))
    out.extend(match.group(1).strip() for match in _MAKE_SHELL_VARIABLE.finditer(text))
    return out


# (mk50) What a makefile gives every recipe's environment. make exports to each recipe the variables a line
# `export NAME = VALUE` (`override export`, a target's `test: export X = v`, `export define NAME`) or `export NAME …`
# names, every variable after a bare `export` or with `.EXPORT_ALL_VARIABLES:`, one whose name the environment gave
# it (PATH always), and the command line's `NAME=VALUE` (MAKEFLAGS' too): `export NODE_OPTIONS=--require=./x.js`,
# `export BASH_ENV=./x.sh` with `SHELL = /bin/bash`, `export PATH := ./evil:$(PATH)` run x.js, x.sh, evil/pytest
# before `pytest -q`. Each recipe is judged as if these shell `export` lines came before it (make_exports): the
# analyzer reads them as it reads `export NODE_OPTIONS=…; node x` on a line. A value make computes (`$(shell …)`
# runs, another function or a variable whose value is not read here) is a value known only at run time.
_MAKE_EXPORT_LINE = re.compile(
    r"^[ ]*(?:[^\t#=:\n]+:[ \t]*)?(?:(?:override|private)[ \t]+)*export(?:[ \t]+(?P<rest>[^\n]*))?$", re.MULTILINE
)
# (adv50) an assignment to a name make computes (`$(N) = VALUE`, `export $(N) := VALUE`): with exports, which
# variable of the recipes' environment it sets is known only when make runs (`N = BASH_ENV`)
_MAKE_COMPUTED_ASSIGN = re.compile(
    r"^[ ]*(?:(?:export|override|private)[ \t]+)*[^\s=:#]*\$[({][^\s=:#]*[ \t]*(?::{1,3}|[?+!])?=", re.MULTILINE
)
_MAKE_EXPORT_DEFINE = re.compile(
    r"^[ ]*(?:(?:export|override|private)[ \t]+)*define[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_]*)[^\n]*\n"
    r"(?P<value>.*?)^[ ]*endef",
    re.MULTILINE | re.DOTALL,
)
_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAKE_UNKNOWN_VALUE = "${MAKE_COMPUTED_VALUE}"  # a shell variable nobody set: a value known only at run time
_MAX_MAKE_EXPORTS = 128


def _make_close(text: str, at: int) -> int:
    """The index of the `)`/`}` closing the make reference opened at ``text[at]`` (`(` or `{`); -1: none."""
    opener = text[at]
    closer = ")" if opener == "(" else "}"
    depth = 0
    for i in range(at, len(text)):
        c = text[i]
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _make_to_shell(value: str, known: dict[str, list[str | None]], assigned: set[str], command: bool = False) -> str:
    """Make text as the text of a shell double-quoted word (``command``: as shell code inside `$(…)`):
    `$$` a dollar, `$(NAME)` the one value the makefile gives NAME, or the environment's `${NAME}` when the
    makefile sets no NAME (CURDIR: `${PWD}`), `$(shell CMD)` the command substitution `$(CMD)`; any other
    function, or a variable whose value is not read here, a value known only at run time."""
    out: list[str] = []
    i = 0
    while i < len(value):
        c = value[i]
        if c != "$":
            out.append(c if command or c not in '"\\`' else "\\" + c)
            i += 1
            continue
        following = value[i + 1 : i + 2]
        if following == "$" or not following:
            out.append("$" if command else "\\$")
            i += 2
            continue
        if following in "({":
            end = _make_close(value, i + 1)
            if end < 0:
                out.append(_MAKE_UNKNOWN_VALUE)
                break
            inner = value[i + 2 : end]
            i = end + 1
        else:
            inner = following
            i += 2
        if inner[:6] in ("shell ", "shell\t"):
            out.append("$(" + _make_to_shell(inner[6:], known, assigned, command=True) + ")")
        elif _SHELL_NAME.fullmatch(inner) is None:
            out.append(_MAKE_UNKNOWN_VALUE)  # a function (`$(subst …)`, `$(wildcard …)`), `$@`, a computed name
        elif inner == "CURDIR":
            out.append("${PWD}")
        elif inner in known and len(known[inner]) == 1 and known[inner][0] is not None:
            held = known[inner][0] or ""
            out.append(held if command else re.sub(r'(["\\`$])', r"\\\1", held))
        elif inner in assigned or inner in known:
            out.append(_MAKE_UNKNOWN_VALUE)
        else:
            out.append("${" + inner + "}")
    return "".join(out)


def make_exports(text: str, variables: dict[str, list[str | None]] | None, given: MakeGiven | None) -> str | None:
    """(mk50) Shell lines exporting what make puts in every recipe's environment (see _MAKE_EXPORT_LINE), to be
    read before each recipe: `export NAME="VALUE"; …; ` (empty: nothing). None: more than can be read here."""
    if given is not None and given.before:
        text = given.before + "\n" + text
    line = given.line if given is not None else {}
    from_environment = {"PATH", *(given.environment if given is not None else ())}
    if "export" not in text and "EXPORT_ALL" not in text and not line and not any(n in text for n in from_environment):
        return ""  # (a variable make had from its environment, PATH, is exported when the makefile sets it)
    known = variables or {}
    everything = ".EXPORT_ALL_VARIABLES" in text
    named: set[str] = set()
    for match in _MAKE_EXPORT_LINE.finditer(text):
        rest = (match.group("rest") or "").split("#", 1)[0]
        if not rest.strip():
            everything = True  # `export` alone: every variable
        elif "$" in rest.split("=", 1)[0]:
            if "=" in rest:
                return None  # (adv50) `export $(N)=./x.sh`: a value exported under a name make computes
            everything = True  # `export $(NAMES)`: names nobody reads here
        elif "=" not in rest and not rest.lstrip().startswith("define"):
            named.update(rest.split())
    if (everything or named) and _MAKE_COMPUTED_ASSIGN.search(text):
        return None  # (adv50) `$(N) = ./x.sh` with every variable (or a name) exported: which one nobody reads here
    assigned = {m.group("name") for m in _MAKE_ASSIGN.finditer(text) if m.group("op")}
    statements: list[str] = []
    for match in _MAKE_ASSIGN.finditer(text):
        mods, name, op, value = match.group("mods", "name", "op", "value")
        if not op or "undefine" in mods or _SHELL_NAME.fullmatch(name) is None:
            continue
        if not (everything or "export" in mods or name in named or name in from_environment):
            continue
        if op == "!=":
            held = "$(" + _make_to_shell(value.strip(), known, assigned, command=True) + ")"
        else:
            held = _make_to_shell(value.strip(), known, assigned)
        if op == "+=":
            held = "${" + name + "} " + held
        statements.append(f'export {name}="{held}"')
    if "define" in text:
        for match in _MAKE_EXPORT_DEFINE.finditer(text):
            name = match.group("name")
            if everything or name in named or name in from_environment or match.group(0).lstrip().startswith("export"):
                statements.append(f'export {name}="{_make_to_shell(match.group("value"), known, assigned)}"')
    for name, values in line.items():
        if _SHELL_NAME.fullmatch(name) is None:
            continue
        for held_line in values:
            if held_line is None:
                statements.append(f'export {name}="{_MAKE_UNKNOWN_VALUE}"')
            else:
                shown = _make_to_shell(held_line.removeprefix("+"), known, assigned)
                statements.append(f'export {name}="{shown}"')
    if len(statements) > _MAX_MAKE_EXPORTS:
        return None
    return "".join(f"{statement}; " for statement in statements)


# (mk50) make's functions that act as it reads the text they are in, whatever the goals: `$(file >PATH,TEXT)` /
# `$(file >>PATH,TEXT)` write PATH (judged as a redirection to it), `$(file <PATH)` reads it (judged as `cat PATH`),
# `$(eval TEXT)` reads TEXT as makefile text (judged as one; a TEXT make computes is one nobody reads here),
# `$(guile …)` runs Guile code, and the `load` / `-load` directive loads a shared object: machine code (both asked).
_MAKE_PARSE_FUNCTIONS = re.compile(r"\$[({](file|eval|guile|load)[ \t]")
_MAKE_LOAD = re.compile(r"^[ \t]*-?load[ \t]", re.MULTILINE)
_MAX_MAKE_EVAL_DEPTH = 4


def _make_parse_time(text: str, variables: dict[str, list[str | None]] | None, depth: int) -> list[str | None]:
    """(mk50) What make's parse-time functions in ``text`` do, as shell lines (see _MAKE_PARSE_FUNCTIONS)."""
    out: list[str | None] = []
    if "load" in text and _MAKE_LOAD.search(text):
        out.append(None)
    if "$" not in text or _MAKE_PARSE_FUNCTIONS.search(text) is None:
        return out
    known = variables or {}
    assigned = {m.group("name") for m in _MAKE_ASSIGN.finditer(text) if m.group("op")}
    for match in _MAKE_PARSE_FUNCTIONS.finditer(text):
        end = _make_close(text, match.start() + 1)
        if end < 0:
            out.append(None)
            continue
        name, argument = match.group(1), text[match.end() : end]
        if name in ("guile", "load"):
            out.append(None)
        elif name == "eval":
            if "$" in argument.replace("$$", "") or depth >= _MAX_MAKE_EVAL_DEPTH:
                out.append(None)  # text make computes (`$(eval $(subst X,,…))`, `$(call T,…)`)
            else:
                out.extend(make_payloads(argument.replace("$$", "$"), None, depth + 1))
        else:
            target, _, written = argument.partition(",")
            target = target.strip()
            mode = ">>" if target.startswith(">>") else target[:1]
            named = target[len(mode) :].strip()
            # `$(file >$@,…)` in a recipe: the file is the rule's target, one of the makefile's targets
            paths = _make_targets(text) if named in ("$@", "$(@)", "${@}") else [_make_to_shell(named, known, assigned)]
            for path in paths:
                if mode == "<":
                    out.append(f'cat "{path}"')
                elif mode in (">", ">>"):
                    out.append(f"printf '%s\\n' {shlex.quote(written)} {mode} \"{path}\"")
                else:
                    out.append(None)  # a mode make refuses, or one computed
    return out


def _make_without_files(line: str) -> str:
    """(mk50) A recipe line without its `$(file …)` calls (each expands to nothing; _make_parse_time judges them)."""
    for _ in range(_MAX_MAKE_READINGS):
        match = re.search(r"\$[({]file[ \t]", line)
        end = _make_close(line, match.start() + 1) if match is not None else -1
        if match is None or end < 0:
            break
        line = line[: match.start()] + line[end + 1 :]
    return line


def _make_targets(text: str) -> list[str]:
    """(mk50) The targets a makefile's rules name, as shell text (a pattern, a computed one, or too many: a name
    known only at run time)."""
    out: list[str] = []
    for line in text.split("\n"):
        rule = _MAKE_RULE.match(line) if line[:1] not in ("\t", "") else None
        if rule is None or "=" in rule.group("rest").partition(";")[0]:
            continue
        for target in rule.group("targets").split():
            if target.startswith(".") and "/" not in target:
                continue  # a special target (`.PHONY`), a suffix rule
            if any(c in target for c in "%$*?[") or len(out) >= _MAX_MAKE_READINGS:
                return [_MAKE_UNKNOWN_VALUE]
            out.append(re.sub(r'(["\\`$])', r"\\\1", target))
    return out or [_MAKE_UNKNOWN_VALUE]


# (mk49) What make runs is the recipes of the goals it is asked for and of their prerequisites, not every recipe
# of the makefile (`make test` does not run `clean:`'s `find . -name '*.pyc' -exec rm -rf {} +`). A makefile
# whose rules cannot be followed here is read whole, as before: one that includes others, evaluates text
# (`$(eval)`), defines variables over lines (`define`), sets the goals or make's flags (`.DEFAULT_GOAL`,
# `MAKEFLAGS`, `MAKECMDGOALS`), expands prerequisites twice (`.SECONDEXPANSION`), changes the recipe prefix
# (`.RECIPEPREFIX`), continues a line that is not a recipe's (`\`), has a line that is a call (`$(call RULE)`
# may expand to a rule), or whose rule line computes a target or a prerequisite (`$(X): $(Y)`).
_MAKE_UNFOLLOWED = re.compile(
    r"\$[({]eval\b|\bMAKEFLAGS\b|\bMAKECMDGOALS\b|\.DEFAULT_GOAL\b|\.SECONDEXPANSION\b"
    r"|\.RECIPEPREFIX\b|^[ \t]*(?:-|s)?include\b|^[ \t]*define\b|^ *\$"
    # (fix49) a recursive make (`$(MAKE) clean` runs another goal's recipe), prerequisites every target gets
    r"|\$[({]MAKE\b|\bmake\b|\.EXTRA_PREREQS\b",
    re.MULTILINE,
)
# A rule line `TARGETS: PREREQUISITES [; RECIPE]` (`::` a double-colon rule; not `X := v`, `X ::= v`, `X = a:b`)
_MAKE_RULE = re.compile(r"^(?P<targets>[^\t#=:\n][^#=:\n]*?)[ \t]*::?(?![=:])(?P<rest>[^\n]*)$")
# lines that leave a rule's recipe going on (conditionals may wrap recipe lines), and those that hold nothing
_MAKE_KEEPS_RECIPE = re.compile(r"^[ \t]*(?:ifdef|ifndef|ifeq|ifneq|else|endif)\b|^[ \t]*(?:#.*)?$")


def make_goal_recipes(text: str, goals: tuple[str, ...]) -> list[str] | None:
    """The recipe lines make runs for ``goals`` (none: the default goal, the first target not starting with
    `.` nor a pattern): theirs and their prerequisites' (transitively), with every recipe of a pattern rule,
    a suffix rule or a special target (`%.o: %.c`, `.c.o:`, `.DEFAULT:`, a static pattern rule) and every
    tab line make would not read as a rule's. None: the makefile is not one followed here (see
    _MAKE_UNFOLLOWED; no default goal): every recipe is judged."""
    if _MAKE_UNFOLLOWED.search(text):
        return None
    always: list[str] = []  # recipes run whatever the goals (patterns, special targets, stray tab lines)
    rules: list[tuple[list[str], list[str], list[str]]] = []  # (targets, prerequisites, recipe lines)
    current: list[str] = always
    default: str | None = None
    continued = False  # the recipe line before ends with `\`: this line is more of it, whatever it starts with
    for line in text.split("\n"):
        if line.startswith("\t") or continued:
            current.append(line.removeprefix("\t").lstrip("@+-"))
            continued = line.endswith("\\")
            continue
        if line.endswith("\\"):
            return None  # a rule or an assignment going on over lines
        if _MAKE_KEEPS_RECIPE.match(line):
            continue
        rule = _MAKE_RULE.match(line)
        rest = rule.group("rest") if rule is not None else ""
        depends, _, inline = rest.partition(";")
        if rule is None or "=" in depends:  # an assignment, a directive, a target's own variable
            current = always
            continue
        if "$" in rule.group("targets") or "$" in depends:
            return None  # a computed target or prerequisite
        targets = rule.group("targets").split()
        recipe: list[str] = []
        if inline.strip():
            recipe.append(inline.strip().lstrip("@+-"))
        if ":" in depends:
            return None  # (fix49) a static pattern rule (`test: t%: clean`): its prerequisites are the goal's
        if any(t.startswith(".") or "%" in t for t in targets):
            always.extend(recipe)  # a pattern or suffix rule, a special target
            current = always
            continue
        if default is None:
            default = targets[0] if targets else None
        rules.append((targets, [d for d in depends.split() if d != "|"], recipe))
        current = recipe
    wanted = list(goals) if goals else ([default] if default is not None else [])
    if not wanted:
        return None
    # (fix49) make first remakes the makefiles it read, whatever the goals: a rule for one (`Makefile: FORCE`, an
    # included `x.mk`) runs before `make test`
    wanted += [t for targets, _, _ in rules for t in targets if _MAKEFILE_TARGET.search(t) is not None]
    seen: set[str] = set()
    out = list(always)
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        for targets, depends, recipe in rules:
            if name in targets:
                out.extend(recipe)
                wanted.extend(depends)
    return out


# (fix49) A target naming a makefile make may read (it remakes one before any goal): GNUmakefile, makefile,
# Makefile, *.mk, *.make and the like
_MAKEFILE_TARGET = re.compile(r"(?i)(?:^|/)(?:gnu)?makefile|\.(?:mk|mak|make)$")


# `include FILES`, `-include FILES`, `sinclude FILES`: makefiles read in its place (globs allowed)
_MAKE_INCLUDE = re.compile(r"^[ ]*(?:-|s)?include[ \t]+([^#\n]*)", re.MULTILINE)
_MAX_MAKE_INCLUDES = 32


def make_includes(text: str) -> list[str]:
    """The makefiles a makefile (or `--eval` text) includes, as it names them."""
    if "include" not in text:
        return []
    out: list[str] = []
    for match in _MAKE_INCLUDE.finditer(text):
        out.extend(match.group(1).split())
    return out[:_MAX_MAKE_INCLUDES]


# -- a program's own configuration: its command lines (tmux -f, screen -c, less's lesskey) -----
# A config file a program loads at start-up is a list of the program's own commands, some of which run
# a shell line (tmux's run-shell / if-shell, screen's exec, lesskey's shell action). `config_commands`
# gives each as a shell line the analyzer judges with the program's grammar (`tmux run-shell "CMD"`) or
# as the command itself; None when the text cannot be read (a compiled lesskey file): the run asks.

CONFIG_LANGUAGES = frozenset({"tmux", "screen", "lesskey"})
_MAX_CONFIG_LINES = 512
_TMUX_BIND = re.compile(r"^(?:bind-key|bind)\s+(?:-[nr]+\s+|-[TN]\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s+)*\S+\s+(.*)$")
_TMUX_SET = re.compile(
    r"^(?:set-option|set|set-window-option|setw)(?:\s+-\w+)*(?:\s+-t\s+\S+)?\s+[\"']?"
    r"(?P<name>default-command|default-shell|lock-command)[\"']?\s+(?P<value>.+)$"
)
_TMUX_HOOK = re.compile(r"^set-hook\s+(.+)$")
_TMUX_SET_OTHER = re.compile(r"^(?:set-option|set|set-window-option|setw)(?:\s|$)")
_TMUX_FORMAT_RUN = re.compile(r"#\(([^()]+)\)")  # a format's `#(CMD)`: tmux runs CMD
_TMUX_SPLIT = re.compile(r"\s\\;(?:\s|$)|\s;\s*$")
_SCREEN_FDPAT = re.compile(r"^[.!|:]+$")
_LESSKEY_ESCAPES = {"r": "\n", "n": "\n", "t": "\t", "e": "", "b": "", "\\": "\\"}
_LESSKEY_SECTIONS = frozenset({"#command", "#line-edit", "#env", "#stop"})


def _config_lines(text: str) -> list[str] | None:
    """Its logical lines (a backslash at the end continues one), without blanks and `#` comments;
    None past _MAX_CONFIG_LINES."""
    out: list[str] = []
    held = ""
    for raw in text.splitlines():
        line = held + raw
        if line.endswith("\\") and not line.endswith("\\\\"):
            held = line[:-1] + " "
            continue
        held = ""
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
            if len(out) > _MAX_CONFIG_LINES:
                return None
    if held.strip():
        out.append(held.strip())
    return out


def _tmux_commands(line: str, out: list[str], depth: int = 0) -> None:
    """The shell lines of one tmux command line (``out``): each `\\;`-separated command as `tmux
    COMMAND` (through `bind KEY`), a default-command's value, a hook's command (`set-hook -g NAME
    CMD`, read as a tmux command line), and every `#(CMD)` of a format (status-right ...)."""
    for format_command in _TMUX_FORMAT_RUN.findall(line):
        out.append(format_command)
    for piece in _TMUX_SPLIT.split(line):
        part = piece.strip()
        for _ in range(4):  # `bind x bind y run-shell CMD`
            bound = _TMUX_BIND.match(part)
            if bound is None:
                break
            part = bound.group(1).strip()
        if not part:
            continue
        hook = _TMUX_HOOK.match(part)
        if hook is not None and depth < 4:  # the hook's command: a tmux command line
            try:
                words = shlex.split(hook.group(1))
            except ValueError:
                words = []
            if words:
                _tmux_commands(words[-1], out, depth + 1)
            continue
        option = _TMUX_SET.match(part)
        if option is not None:  # the command (or shell) every new pane runs: one quoted word of tmux's
            value = option.group("value").strip()
            try:
                words = shlex.split(value)
            except ValueError:
                words = []
            out.append(words[0] if len(words) == 1 else value)
            continue
        if _TMUX_SET_OTHER.match(part):
            continue  # (xfail39) another option set: it runs nothing (its formats' `#(CMD)` are read above)
        out.append("tmux " + part)


def _screen_commands(line: str, out: list[str]) -> None:
    try:
        words = shlex.split(line)
    except ValueError:
        out.append(line)  # read as one shell line: over-reading is the safe side
        return
    for _ in range(4):
        if len(words) > 2 and words[0] in ("bind", "bindkey"):
            words = words[2:] if not words[1].startswith("-") else words[3:]  # `bind KEY CMD`, `bindkey -k KEY CMD`
        else:
            break
    if not words:
        return
    verb, rest = words[0], words[1:]
    if verb == "exec":  # `exec [FDPAT] CMD ARGS`: a command whose output (or input) is the window's
        if rest and _SCREEN_FDPAT.match(rest[0]):
            rest = rest[1:]
        if rest:
            out.append(shlex.join(rest))
    elif verb == "screen":  # a window running CMD
        out.append(shlex.join(words))
    elif verb == "backtick" and len(rest) > 3:  # `backtick ID LIFESPAN AUTOREFRESH CMD ARGS`
        out.append(shlex.join(rest[3:]))
    elif verb in ("shell", "defshell") and rest:
        out.append(shlex.join(rest[:1]))
    elif verb == "stuff" and rest:
        out.append(shlex.join(["screen", "-X", "stuff", *rest]))
    elif verb == "eval":  # each argument a screen command
        for item in rest[:8]:
            _screen_commands(item, out)


def _lesskey_commands(text: str) -> list[str] | None:
    """A lesskey source: a `shell`/`pshell`/`pipe` action's extra string is a shell line (typed
    after `!`); the `#env` section's variables are less's (LESSOPEN, LESS, EDITOR ...): each judged
    as `NAME=VALUE less` is."""
    if "\0" in text:
        return None  # a compiled lesskey file (less -k): nobody reads it here
    lines = text.splitlines()
    if len(lines) > _MAX_CONFIG_LINES:
        return None
    out: list[str] = []
    section = "#command"
    for raw in lines:
        line = raw.strip()
        head = line.split(None, 1)[0] if line else ""
        if head in _LESSKEY_SECTIONS:
            section = head
            continue
        if not line or line.startswith("#"):
            continue
        if section == "#env":
            name, eq, value = line.partition("=")
            if eq and name.strip():
                # (no lesskey of its own: that one is being read)
                assigned = f"{name.strip()}={shlex.quote(value.strip())}"
                out.append(f"LESSKEY_SRC= LESSKEYIN= LESSKEY= {assigned} less /dev/null")
        elif section == "#command":
            words = line.split(None, 2)
            if len(words) == 3 and words[1] in ("shell", "pshell", "pipe"):
                extra = re.sub(r"\\(.)", lambda m: _LESSKEY_ESCAPES.get(m.group(1), m.group(1)), words[2]).strip()
                if words[1] == "pipe":  # a mark's letter, then the command the text is piped to
                    extra = extra[1:].strip()
                if extra:
                    out.append(extra)
    return out


def config_commands(language: str, text: str) -> list[str] | None:
    """The shell lines a program's configuration file runs (CONFIG_LANGUAGES); None: unreadable."""
    if language == "lesskey":
        return _lesskey_commands(text)
    lines = _config_lines(text)
    if lines is None:
        return None
    out: list[str] = []
    for line in lines:
        if language == "tmux":
            _tmux_commands(line, out)
        else:
            _screen_commands(line, out)
    return out


# -- ssh_config ----------------------------------------------------------------------

# Keys whose value is a command ssh hands to the user's shell (RemoteCommand: the remote one's)
_SSH_COMMAND_KEY = re.compile(
    r"^[ \t]*(?:proxycommand|localcommand|knownhostscommand|remotecommand)(?:[ \t]*=[ \t]*|[ \t]+)(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_SSH_MATCH = re.compile(r"^[ \t]*match[ \t=]+(.*)$", re.IGNORECASE | re.MULTILINE)
_SSH_EXEC = re.compile(r"(?:^|[ \t])!?exec[ \t]+(?:\"([^\"]*)\"|(\S+))", re.IGNORECASE)
_SSH_INCLUDE = re.compile(r"^[ \t]*include(?:[ \t]*=[ \t]*|[ \t]+)(.*)$", re.IGNORECASE | re.MULTILINE)


def ssh_config_payloads(text: str) -> list[str]:
    """Commands an ssh_config runs: ProxyCommand / LocalCommand / KnownHostsCommand /
    RemoteCommand values, and `Match exec "CMD"` conditions."""
    out: list[str] = []
    for match in _SSH_COMMAND_KEY.finditer(text):
        value = match.group(1).strip()
        if value.startswith('"') and value.endswith('"') and len(value) > 1:
            value = value[1:-1]
        if value and value.lower() != "none":
            out.append(value)
    for match in _SSH_MATCH.finditer(text):
        for found in _SSH_EXEC.finditer(match.group(1)):
            out.append(found.group(1) if found.group(1) is not None else found.group(2))
    return out


# (rows43) Keys that forward a port or open one to the network, and the command-line option each is: judged as
# `ssh OPTION VALUE h` (policies/exec.yaml's public_tunnel reads those), the value's blanks joined by `:` as the
# option writes them (`RemoteForward 8080 localhost:80` is `-R 8080:localhost:80`)
_SSH_FORWARD_KEY = re.compile(
    r"^[ \t]*(remoteforward|localforward|dynamicforward|gatewayports)(?:[ \t]*=[ \t]*|[ \t]+)(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_SSH_FORWARD_OPTION = {"remoteforward": "-R", "localforward": "-L", "dynamicforward": "-D"}


def ssh_config_forwards(text: str) -> list[list[str]]:
    """The ssh options an ssh_config's forwarding keys stand for: `RemoteForward A B` -> ["-R", "A:B"],
    `GatewayPorts yes` -> ["-g"] (every block's, whatever its Host or Match: a reading more)."""
    out: list[list[str]] = []
    for match in _SSH_FORWARD_KEY.finditer(text):
        key, value = match.group(1).lower(), match.group(2).strip().strip('"')
        if key == "gatewayports":
            if value.lower() in ("yes", "clientspecified"):
                out.append(["-g"])
        elif value:
            out.append([_SSH_FORWARD_OPTION[key], ":".join(value.split())])
    return out


def ssh_config_includes(text: str) -> list[str]:
    """The files an ssh_config includes (`Include FILE…`), as it names them; a relative name is
    read in ~/.ssh (a user configuration's) and where the line runs."""
    out: list[str] = []
    for match in _SSH_INCLUDE.finditer(text):
        for word in match.group(1).split():
            name = word.strip('"')
            if name:
                out.append(name)
                if not name.startswith(("/", "~")):
                    out.append("~/.ssh/" + name)
    return out[:_MAX_MAKE_INCLUDES]


_NPM_LIFECYCLE = {"t": "test", "tst": "test", "test": "test", "start": "start", "stop": "stop", "restart": "restart"}
_NPM_RUN = frozenset({"run", "run-script", "rum", "urn"})
_NPM_SERVER = frozenset({"start", "restart"})  # (entry50) the verbs that run `node server.js` with no start script
# Runners whose `RUNNER NAME` runs the script NAME when NAME is none of their own verbs (`yarn build`,
# `pnpm lint`, `bun dev`).
_NAME_RUNNERS = frozenset({"yarn", "pnpm", "bun"})
# Their verbs that install, pack or publish the package: its lifecycle scripts run (_NPM_LIFECYCLE_RUNS).
_NPM_INSTALLING = frozenset(
    {"install", "i", "add", "ci", "pack", "publish", "rebuild", "rb", "link", "ln", "update", "up", "upgrade",
     "import", "dedupe", "prune", "version"}
)  # fmt: skip


# The scripts a package's install, pack, publish and version verbs run.
_NPM_LIFECYCLE_RUNS = (
    "preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare", "prepack",
    "postpack", "prepublishOnly", "publish", "postpublish", "preversion", "version", "postversion", "dependencies",
)  # fmt: skip


def npm_scripts(text: str, argv: Sequence[str], operands: Sequence[str] | None = None) -> list[str]:
    """Commands `npm run NAME` / `npm test` runs from a package.json: the script and its pre- and
    post- scripts; every script when the name cannot be read. Not JSON: the text itself.
    ``operands``: argv's operands as the runner's grammar reads them (default: its words without a dash)."""
    try:
        data = json.loads(text)
    except ValueError:
        return [text]
    scripts = data.get("scripts", {}) if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return []
    # (rev50) a package.json without `scripts` still runs something: `npm start` its server.js (below)
    words = [w for w in (argv[1:] if operands is None else operands) if not w.startswith("-")]
    # (adv40b) a workspace chosen first runs that package's script (`yarn workspace web test`, `yarn workspaces
    # foreach run test`): the words after the choice name it
    while words and words[0] in _NPM_CHOOSERS:
        words = words[1 + _NPM_CHOOSERS[words[0]] :]
    name: str | None = None
    if words and words[0] in _NPM_LIFECYCLE:
        name = _NPM_LIFECYCLE[words[0]]
    elif len(words) > 1 and words[0] in _NPM_RUN:
        name = words[1]
    elif words and words[0] not in _NPM_INSTALLING and posixpath.basename(argv[0]) in _NAME_RUNNERS:
        # `yarn NAME`, `pnpm NAME`, `bun NAME` run the script NAME, as `yarn run NAME` does.
        name = words[0]
    elif posixpath.basename(argv[0]) in _NAME_RUNNERS:
        return [str(scripts[n]) for n in _NPM_LIFECYCLE_RUNS if n in scripts]  # `pnpm add x`, `yarn install`
    names = [f"pre{name}", name, f"post{name}"] if name is not None else list(scripts)
    if name == "restart":
        # (entry50) `npm restart` runs the restart script, or else stop's and start's with their pre- and post-
        names += [f"{pre}{verb}" for verb in ("stop", "start") for pre in ("pre", "", "post")]
    found = [str(scripts[n]) for n in names if n in scripts]
    if name in _NPM_SERVER and "start" not in scripts:
        # (entry50) with no start script, `npm start` (pnpm's, yarn's) runs `node server.js`: the package's
        # server.js, read as node reads it (a `prestart` still runs before it)
        found.append("node server.js")
    return found


_NPM_EXEC_VERBS = frozenset({"exec", "x", "exe", "dlx"})
# words choosing the workspaces a script runs in, and how many words each takes after it; (xf44) `yarn global` the
# verb after it acts in yarn's global folder (`yarn global add file:p` runs p's lifecycle scripts, as `yarn add file:p`)
_NPM_CHOOSERS = {"workspace": 1, "workspaces": 0, "foreach": 0, "global": 0}


def npm_bins(text: str, argv: Sequence[str]) -> list[str]:
    """(xfail39) The files `npm exec NAME` / `npx NAME` runs from a package.json's `bin` (a mapping of names to
    files, or one file named as the package): the one NAME names; none when it names no bin of the package."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    declared = data.get("bin")
    if isinstance(declared, str):
        declared = {str(data.get("name") or "").rpartition("/")[2]: declared}
    if not isinstance(declared, dict):
        return []
    words = [w for w in argv[1:] if not w.startswith("-")]
    if posixpath.basename(argv[0]) not in ("npx", "bunx", "pnpx"):
        verbs = [i for i, w in enumerate(words) if w in _NPM_EXEC_VERBS]
        words = words[verbs[0] + 1 :] if verbs else []
    if not words or words[0] not in declared:
        return []
    return [str(declared[words[0]])]


# -- task files: what a runner reads from its project folder -------------------------
# A `files:` run's language says how a runner reads a file of its folder (policies/executors.yaml):
# `commands` (a task file whose values are shell lines: tox.ini, justfile, Taskfile.yml, pyproject's
# scripts, composer.json, .pre-commit-config.yaml ...), `gogenerate` (Go sources' //go:generate
# lines), `rake` (Ruby whose `sh` runs a shell line), `compose` (a compose file's host mounts) and
# `opaque` (compiled or unreadable code: build.rs, build.gradle, pom.xml ...: the session wrote it,
# so the run asks).

TASK_LANGUAGES = frozenset({"commands", "gitconfig", "gogenerate", "rake", "compose", "opaque", "curlrc", "wgetrc"})

# -- option files: a configuration that is the program's own options ------------------
# `curlrc` (curl -K FILE, $CURL_HOME/.curlrc: one option a line, `--output F`, `-o F`, `output = F`,
# `url: "U"`) and `wgetrc` (wget --config FILE, $WGETRC, and each `-e COMMAND`: `output_document = F`)
# are read as the options they hold, put on the program's line (`curl --output F`): what the line
# would do with them inline is what the file does.
_OPTION_LINE = re.compile(r"^\s*(-{0,2})([A-Za-z0-9#][\w.#-]*)(?:\s*[=:]\s*|\s+|$)(.*)$")
_MAX_OPTION_LINES = 256
# wgetrc keys (`_`/`-` ignored, case ignored) whose long option has another name
_WGETRC_OPTIONS = {
    "logfile": "output-file",
    "dirprefix": "directory-prefix",
    "input": "input-file",
    "header": "header",
    "useaskpass": "use-askpass",
    "outputdocument": "output-document",
    "appendoutput": "append-output",
    "postfile": "post-file",
    "bodyfile": "body-file",
    "certificate": "certificate",
    "privatekey": "private-key",
    "loadcookies": "load-cookies",
    "savecookies": "save-cookies",
    "warcfile": "warc-file",
}


def option_file_words(language: str, text: str) -> list[str] | None:
    """The option words a curl or wget configuration holds (see above); None when there are more
    lines than are read (nobody judges the file: the run asks)."""
    words: list[str] = []
    lines = text.splitlines()
    if len(lines) > _MAX_OPTION_LINES:
        return None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _OPTION_LINE.match(line)
        if match is None:
            return None
        dashes, name, value = match.groups()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1].replace('\\"', '"') if value[0] == '"' else value[1:-1]
        if language == "wgetrc" and not dashes:
            key = name.replace("_", "").replace("-", "").lower()
            name = _WGETRC_OPTIONS.get(key, name.replace("_", "-").lower())
            dashes = "--"
        elif not dashes:
            dashes = "-" if len(name) == 1 else "--"
        if language == "wgetrc" and dashes == "--":
            words.append(f"--{name}={value}" if value else f"--{name}")
        else:
            words.append(dashes + name)
            if value:
                words.append(value)
    return words


_MAX_TASK_TEXT_LINES = 2048  # lines of a task file read; a longer one is not judged (ask)
_MAX_TASK_LINES = 256  # distinct command lines read from one task file; more: the file is not judged (ask)
_TASK_KEY = re.compile(r"^[\"']?[\w.@:/+-]+[\"']?\s*(?::|=)(?![:=])\s*")
_TASK_SKIP = re.compile(r"^(?:#(?!!)|;|//|\[[^\]]*\]\s*$|[{}\[\],]+\s*$|---\s*$|\.\.\.\s*$)")
_TASK_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'')
# keys whose values are prose a runner prints (a description's `don't` is no unclosed quote)
_TASK_PROSE = re.compile(r"(?i)desc|description|summary|help|title|label|comment|usage|name|prompt|msg|message")
_TASK_HOME = re.compile(r"\{(?:homedir|env:(?:HOME|USERPROFILE)(?::[^{}\n]*)?)\}")
_TASK_MAPPING = re.compile(r"^\{\s*[\"']?[\w.@/-]*[\"']?\s*(?::|=)")
_GLOB_CHARS = re.compile(r"[*?\[]")
_TASK_LIST = re.compile(r"\[[^\[\]]*\]")
_TASK_SHEBANG = re.compile(r"(?m)^[ \t]*#!\s*\S*?(?:/env\s+(?:-S\s+)?)?(?:.*/)?(python3?|ruby|node|perl|php)\b")
_GO_GENERATE = re.compile(r"(?m)^//go:generate[ \t]+(.+)$")
_RAKE_SH = re.compile(r"(?<![\w.:])(?:sh|ruby|safe_system|system!)(?=[\s(])")
_COMPOSE_SHORT = re.compile(r"""(?m)^[ \t]*-[ \t]*["']?(?P<path>[/~.$][^:"'\s]*):[^\s"']""")
_COMPOSE_LONG = re.compile(r"""(?m)^[ \t]*-?[ \t]*source[ \t]*:[ \t]*["']?(?P<path>[/~.$][^"'\s]*)""")
# (fresh38a) a flow sequence of mounts (`volumes: ["~:/h", "./d:/d"]`, `volumes: [{type: bind, source: ~}]`)
_COMPOSE_FLOW = re.compile(r"(?m)^[ \t]*volumes[ \t]*:[ \t]*\[([^\n]*)")
_COMPOSE_FLOW_ITEM = re.compile(
    r"""(?:^|[\[,{])[ \t]*(?:source[ \t]*:[ \t]*)?["']?(?P<path>[/~.$][^:"'\s,}\]]*)(?=["']?[ \t]*[:,}\]]|["']?$)"""
)
_COMPOSE_HOST = re.compile(
    r"(?im)^[ \t]*(?:privileged[ \t]*:[ \t]*[\"']?(?:true|yes|on)|(?:pid|network_mode|ipc|userns_mode)[ \t]*:[ \t]*"
    r"[\"']?host|cap_add[ \t]*:.*\b(?:SYS_ADMIN|ALL)\b|-[ \t]*[\"']?(?:CAP_)?(?:SYS_ADMIN|ALL)[\"']?[ \t]*$)"
)


def _unquote(value: str) -> list[str]:
    """A task file's value as its runner reads it: one quoted string unquoted (JSON/TOML escapes);
    a list of strings (`["rm", "-rf", "~"]`) both as one argv (its words joined) and as commands
    one each (composer's, deno's lists of command lines)."""
    value = value.strip().rstrip(",").strip()
    if value[:1] == "[" and value[-1:] == "]":
        words = [
            _json_string(m.group(1)) if m.group(1) is not None else m.group(2)
            for m in itertools.islice(_TASK_STRING.finditer(value), _MAX_TASK_LINES + 1)
        ]
        if not words:
            # a YAML flow sequence of plain scalars (`cmds: [rm -rf ~, make]`): each item is a line (adv28)
            return [item.strip() for item in value[1:-1].split(",")[: _MAX_TASK_LINES + 1] if item.strip()]
        return [" ".join(words), *words] if len(words) > 1 else words
    match = _TASK_STRING.fullmatch(value)
    if match is not None:
        return [_json_string(match.group(1)) if match.group(1) is not None else match.group(2)]
    return [value]


def _json_string(text: str) -> str:
    if "\\" not in text:
        return text
    try:
        decoded = json.loads(f'"{text}"')
    except ValueError:
        return text
    return decoded if isinstance(decoded, str) else text


def task_commands(text: str, toml: bool = False) -> tuple[list[str], bool]:
    """The shell lines a task file may run, read line by line whatever its format (ini, TOML, YAML,
    JSON, a justfile): each line without its list marker (`- `), recipe prefixes (`@`, `-`) and key
    (`commands =`, `cmd:`, `"build":`), its value unquoted; section headers, comments and brackets
    skipped. Over-reading is the safe side: a value that is not a command is judged as one. Also
    whether lines were left unread (more than the limit). ``toml``: the file is named `*.toml`
    (pyproject.toml, tox.toml, pixi.toml): one that tomllib reads is read as TOML (toml_commands)."""
    out: list[str] = []
    seen: set[str] = set()
    if "{" in text:
        # tox's substitutions of the home folder (`commands = rm -rf {homedir}`, `{env:HOME}`): read as `~`
        text = _TASK_HOME.sub("~", text)
    if toml:
        values = toml_values(text)
        if values is not None:
            for value in values:
                if _add_task_command(value, out, seen):
                    return out, True
            return out, len(values) > _MAX_TOML_VALUES
    for n, raw in enumerate(text.splitlines()):
        if n >= _MAX_TASK_TEXT_LINES:
            return out, True
        line = raw.strip()
        if not line or _TASK_SKIP.match(line):
            continue
        while line[:2] in ("- ", "-\t") or line[:1] == "@":
            line = line[1:].lstrip()
        key = _TASK_KEY.match(line)
        if key is not None:
            if _TASK_PROSE.fullmatch(key.group(0).strip(" \t:=\"'")) is not None:
                continue  # `desc: Don't …`: prose a runner prints, not a command (a quote of its own)
            line = line[key.end() :]
        values = _unquote(line)
        if line.count('"') + line.count("'") > 2 or (line[:1] == "{" and _TASK_MAPPING.search(line) is not None):
            # several values on one line (`{"test": "rm -rf ~"}`, `x = {cmd = ["rm", "-rf", "~"]}`), or an inline
            # table of one (`x = {shell = "rm -rf ~"}`: pdm's, poe's; fresh38a): each string, and each list of them
            # as one argv
            strings = itertools.islice(_TASK_STRING.finditer(line), _MAX_TASK_LINES + 1)
            values += [_json_string(m.group(1)) if m.group(1) is not None else m.group(2) for m in strings]
            lists = itertools.islice(_TASK_LIST.finditer(line), _MAX_TASK_LINES + 1)
            values += [" ".join(_unquote(m.group(0))[:1]) for m in lists]
        for value in values:
            if _add_task_command(value, out, seen):
                return out, True
    return out, False


def _add_task_command(value: str, out: list[str], seen: set[str]) -> bool:
    """Add a task file's value to ``out`` as the command line it is (recipe prefixes dropped; a value
    no runner runs, or one already read, left out); True when ``out`` is full (more than are read)."""
    command = value.strip()
    while command[:1] == "@" or (command[:1] == "-" and command[1:2] not in ("", "-")):
        command = command[1:].lstrip()  # `@php x.php` (composer), `- cmd` (tox), `-cmd` (just: errors ignored)
    if command in ("", "|", ">", "|-", ">-", "{", "[", "({", "[{") or _not_a_command(command):
        return False
    if command[:1] == "{" and _TASK_MAPPING.search(command) is not None:
        return False  # an inline table or object (`{cmd = [...]}`): its strings are read one by one
    if command in seen:
        return False
    if len(out) >= _MAX_TASK_LINES:
        return True
    seen.add(command)
    out.append(command)
    return False


# (adv45b) TOML tables whose keys are task names (poe's, pixi's and mise's `tasks`, pdm's, hatch's and rye's `scripts`,
# cargo's `alias`): a name like `help` or `label` there is a task, not prose
_TOML_TASK_TABLES = frozenset({"tasks", "scripts", "alias", "aliases"})
_MAX_TOML_VALUES = 4096  # strings of a TOML task file read; more: the file is not judged (ask)


def toml_values(text: str) -> list[str] | None:
    """(env45) The strings a TOML file holds, as the line reader over-reads them: every string value
    (a key naming prose, `description = "Don't …"`, left out, as `_TASK_PROSE` says) and every array of
    strings both as one argv (its words joined) and as its items one each; None when tomllib does not
    read the file (the line reader then reads it). Read line by line, a multi-line array's item holding a
    `:` (`"ignore:x",`, pytest's filterwarnings) was taken for a key and its value for an unclosed quote."""
    import tomllib  # noqa: PLC0415  (a start-up import otherwise: few commands read a written TOML file)

    try:
        data: dict[str, object] = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    out: list[str] = []
    # (key, the table's key holding it, value)
    stack: list[tuple[str, str, object]] = [("", "", data)]
    while stack and len(out) <= _MAX_TOML_VALUES:
        key, table, value = stack.pop()
        # (adv45b) a key directly in a table of tasks is a task's name, whatever it says: `[tool.poe.tasks]
        # label = "rm -rf ~"` then `poe label` (pixi's, mise's `[tasks]`, pdm's `scripts`, cargo's `[alias]`)
        prose = bool(key) and table not in _TOML_TASK_TABLES and _TASK_PROSE.fullmatch(key) is not None
        if isinstance(value, str):
            if not prose:
                out.append(value)
        elif isinstance(value, dict):
            stack.extend((str(k), key, v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            words = [item for item in value if isinstance(item, str)]
            if len(words) > 1 and len(words) == len(value) and not prose:
                out.append(" ".join(words))
            stack.extend((key, table, item) for item in reversed(value))
    return out


def _not_a_command(value: str) -> bool:
    """A value no runner runs as a command line: a glob as its first word (`include = ["src/*"]`,
    a list of patterns: no shell expands an argv's first word), a folder alone (`/`, `~`, `src/`)."""
    first = value.split(None, 1)[0]
    if first in ('""', "''"):
        return True  # an empty program name: nothing runs ("command not found")
    if first.strip("/.~") == "" or first[-1:] == "/":  # `/`, `src/`: a folder, not a program
        return first == value
    return first not in ("[", "[[") and first[:1] != "/" and _GLOB_CHARS.search(first) is not None


def task_code_language(text: str) -> str | None:
    """The interpreter a task file's recipe names in a `#!` line (a justfile's shebang recipe): its
    text is then also read as that language."""
    match = _TASK_SHEBANG.search(text)
    if match is None:
        return None
    name = match.group(1)
    return "python" if name.startswith("python") else name


def go_generate_lines(text: str) -> list[str]:
    """The commands `go generate` runs: each `//go:generate CMD` line of the Go sources."""
    return [m.group(1).strip() for m in _GO_GENERATE.finditer(text)][:_MAX_TASK_LINES]


def rake_as_ruby(text: str) -> str:
    """A Rakefile as Ruby whose `sh`/`ruby` (Rake's FileUtils) calls read as `system` ones."""
    return _RAKE_SH.sub("system", text)


def compose_mounts(text: str) -> tuple[list[str], bool]:
    """The host paths a compose file's services mount (`- /:/host`, `source: ~`), and whether a
    service gets the host itself (privileged, pid/network/ipc: host, CAP_SYS_ADMIN)."""
    paths = [m.group("path") for m in _COMPOSE_SHORT.finditer(text)]
    paths += [m.group("path") for m in _COMPOSE_LONG.finditer(text)]
    if "[" in text:
        for flow in itertools.islice(_COMPOSE_FLOW.finditer(text), _MAX_TASK_LINES):
            paths += [m.group("path") for m in _COMPOSE_FLOW_ITEM.finditer(flow.group(1))]
    return paths[:_MAX_TASK_LINES], _COMPOSE_HOST.search(text) is not None


# -- encodings ---------------------------------------------------------------------


def decode(value: str, encoding: str | None) -> str:
    """A payload as its program decodes it before running it (PowerShell -EncodedCommand)."""
    if encoding == "base64-utf16le":
        import base64  # noqa: PLC0415  (a start-up import otherwise: few commands decode)

        try:
            return base64.b64decode(value).decode("utf-16-le", errors="replace")
        except ValueError:  # binascii.Error is one
            return value
    if encoding == "string-array" and value[:1] == "[":
        return _string_array(value)
    if encoding == "data-url" and value[:5].lower() == "data:":
        return _data_url(value)
    if encoding == "fish":
        return fish_text(value)
    if encoding == "sq" and "'\\" in value:
        # (adv42) a value in git's single quotes (GIT_CONFIG_PARAMETERS): `'\''` is a quote, `'\!'` a `!`
        return value.replace("'\\''", "'").replace("'\\!'", "!")
    return value


# -- fish ----------------------------------------------------------------------------
# (unseen55) fish's own reading of a command line, spelled for sh: where the two differ, what fish runs is judged.
# `(CMD)` unquoted is a command substitution (as `$(CMD)`, which fish 3.4+ also reads, in double quotes too); a
# backslash outside quotes decodes `\xHH`, `\XHH`, `\ooo`, `\uXXXX`, `\UXXXXXXXX`, `\cX` and `\e`, `\n` ... (`r\x6d` is
# `rm`); in single quotes `\'` is a quote and `\\` a backslash (`'x\''` is one word, `x'`); `{WORD}` without a comma
# is WORD (`{$HOME}`), which sh leaves in braces. Backquotes are data to fish: sh's reading of them is kept (the
# safe side).
_FISH_ESCAPES: dict[str, str] = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_FISH_HEX: dict[str, tuple[int, str]] = {
    "x": (2, "0123456789abcdefABCDEF"),
    "X": (2, "0123456789abcdefABCDEF"),
    "u": (4, "0123456789abcdefABCDEF"),
    "U": (8, "0123456789abcdefABCDEF"),
}
_FISH_GATE = re.compile(r"[\\'({]|>\?")
_FISH_WORD_END = frozenset(" \t\n;|&<>(")
_FISH_DEPTH = 64


def _fish_word_start(text: str, i: int) -> bool:
    """Whether ``text[i]`` starts a word for fish (a `#` there starts a comment): the line's start, or after an
    unescaped blank or operator. (rev55b) Not after a substitution's `)` or an escaped blank (`(echo a)#`, `\\ #`: the
    `#` is in the word, and the rest of the line runs)."""
    if i == 0:
        return True
    if text[i - 1] not in _FISH_WORD_END:
        return False
    escapes = 0
    while i - 2 - escapes >= 0 and text[i - 2 - escapes] == "\\":
        escapes += 1
    return escapes % 2 == 0


def fish_text(text: str) -> str:
    """A fish command line as sh reads the same commands (see above); text without a backslash, single quote,
    parenthesis or brace is the same in both."""
    if _FISH_GATE.search(text) is None:
        return text
    out, _ = _fish_span(text, 0, False)
    return out


def _sh_char(char: str) -> str:
    """One character fish decoded from an escape, quoted for sh."""
    return "\\'" if char == "'" else f"'{char}'"


def _fish_escape(text: str, i: int) -> tuple[str, int]:
    """The backslash escape at ``text[i]`` (outside quotes) spelled for sh, and where it ends."""
    nxt = text[i + 1 : i + 2]
    if nxt in _FISH_ESCAPES:
        return _sh_char(_FISH_ESCAPES[nxt]), i + 2
    octal = nxt != "" and nxt in "01234567"
    if octal or nxt in _FISH_HEX:
        width, digits = (3, "01234567") if octal else _FISH_HEX[nxt]
        start = i + 1 if octal else i + 2
        end = start
        while end < len(text) and end - start < width and text[end] in digits:
            end += 1
        if end == start:
            return text[i : i + 2], i + 2
        code = int(text[start:end], 8 if octal else 16)
        return (_sh_char(chr(code)) if 0 < code <= 0x10FFFF else "''"), end
    if nxt == "c" and i + 2 < len(text):
        return _sh_char(chr(ord(text[i + 2]) & 0x1F)), i + 3
    return text[i : i + 2], i + 2


def _fish_span(text: str, i: int, inside: bool, depth: int = 0) -> tuple[str, int]:
    """``text`` from ``i`` spelled for sh, to its end or (``inside`` a substitution) the `)` that closes it: the
    spelling and the index after that `)`. (stop 55, rev55b) Past _FISH_DEPTH nested substitutions the rest is kept
    as written (a recursion per `(`: `((((…` raised RecursionError)."""
    out: list[str] = []
    n = len(text)
    if depth > _FISH_DEPTH:
        return text[i:], n
    while i < n:
        char = text[i]
        if char == "\\":
            spelled, i = _fish_escape(text, i)
            out.append(spelled)
        elif char == "'":
            out.append("'")
            i += 1
            while i < n and text[i] != "'":
                if text[i] == "\\" and text[i + 1 : i + 2] in ("'", "\\"):
                    out.append("'\\''" if text[i + 1] == "'" else "\\")
                    i += 2
                    continue
                out.append(text[i])
                i += 1
            out.append("'")
            i += 1
        elif char == '"':
            out.append('"')
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    out.append(text[i : i + 2])
                    i += 2
                elif text.startswith("$(", i):
                    inner, i = _fish_span(text, i + 2, True, depth + 1)
                    out.append(f"$({inner})")
                else:
                    out.append(text[i])
                    i += 1
            out.append('"')
            i += 1
        elif char == "(" or text.startswith("$(", i):
            inner, i = _fish_span(text, i + (2 if char == "$" else 1), True, depth + 1)
            out.append(f"$({inner})")
        elif char == ")" and inside:
            return "".join(out), i + 1
        elif char == "#" and _fish_word_start(text, i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(text[i:end])
            i = end
        elif char == ">" and text[i + 1 : i + 2] == "?":
            out.append(">")  # (rev55b) fish's `>?FILE`: written unless it exists (sh reads `?FILE` as the name)
            i += 2
        elif char == "{" and (i == 0 or text[i - 1] != "$"):
            # `{WORD}` without a comma is WORD: fish 3.5+ expands only `{$VAR…}` so and keeps `{word}` as written, an
            # older fish expands both (the safe side: both read so); (rev55b) never a `#` in it (`{#}` read as `#` hid
            # the rest of the line behind a comment)
            close = text.find("}", i + 1)
            inner = text[i + 1 : close] if close > i + 1 else ""
            if inner and not any(c in inner for c in ",{ \t\n;'\"#"):
                spelled, _ = _fish_span(inner, 0, False, depth + 1)
                out.append(spelled)
                i = close + 1
            else:
                out.append(char)
                i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out), i


def _data_url(value: str) -> str:
    """A `data:` URL's text (`data:text/javascript,CODE`, `data:…;base64,B64`, percent-escapes decoded): the
    module deno or node runs from it (fresh39a)."""
    from urllib.parse import unquote_to_bytes  # noqa: PLC0415  (a start-up import otherwise: few commands decode)

    head, _, data = value.partition(",")
    raw = unquote_to_bytes(data)
    if head.lower().endswith(";base64"):
        import base64  # noqa: PLC0415

        try:
            raw = base64.b64decode(raw)
        except ValueError:  # binascii.Error is one
            return value
    return raw.decode("utf-8", errors="replace")


_ARRAY_ITEM = re.compile(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'')


def _string_array(value: str) -> str:
    """A TOML or JSON array of strings (`["sh", "-c", "CMD"]`: a program and its words) as the shell line
    of those words; an item that is no plain string makes it a text nobody reads here (`$(...)`)."""
    words: list[str] = []
    rest = value[1:].rstrip().removesuffix("]")
    at = 0
    while True:
        while at < len(rest) and rest[at] in " \t\n,":
            at += 1
        if at >= len(rest):
            break
        found = _ARRAY_ITEM.match(rest, at)
        if found is None:
            return "$(unread array)"
        double, single = found.groups()
        if double is not None:
            try:
                words.append(json.loads(f'"{double}"'))
            except ValueError:
                return "$(unread array)"
        else:
            words.append(single)
        at = found.end()
    return shlex.join(words)


# -- files a program reads as more of its own arguments, or as Python -----------------

_MAX_RESPONSE_WORDS = 1024  # words of a response file read; more: the file is not judged (ask)
_MAX_CELLS = 512  # code cells of a notebook read; more: the notebook is not judged (ask)
_DOCTEST_LINE = re.compile(r"^[ \t]*(?:>>>|\.\.\.)(?: (.*)|$)", re.MULTILINE)
_SHELL_KERNELS = frozenset({"bash", "sh", "zsh", "shell"})


def response_words(text: str) -> list[str] | None:
    """A response file's words (`gcc @FILE`, `javac @FILE`, `ld @FILE`): split at blanks and newlines,
    quotes and backslashes read as GCC's libiberty and javac read them. None when the file cannot be
    split for certain (an unclosed quote) or holds more words than are read."""
    import shlex  # noqa: PLC0415  (a start-up import otherwise: few commands name a response file)

    try:
        words = shlex.split(text, comments=False, posix=True)
    except ValueError:
        return None
    return words if len(words) <= _MAX_RESPONSE_WORDS else None


_ADDOPTS = re.compile(r"^[ \t]*(addopts|cache_dir)[ \t]*=[ \t]*(.*(?:\n[ \t]+\S.*)*)", re.MULTILINE)
_TOML_ITEM = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'([^']*)'")


def _config_items(text: str, match: re.Match[str], group: int) -> list[str] | None:
    """The strings of a configuration key's value that ``match`` found (its ``group``): a TOML string or
    list of strings (a list to its closing bracket, maybe on a later line); None for an ini value."""
    value = match.group(group).strip()
    if value.startswith("["):
        end = text.find("]", match.start(group))
        value = text[match.start(group) : end + 1 if end >= 0 else len(text)]
    if value.startswith(("[", '"', "'")):
        return [a if a or not b else b for a, b in _TOML_ITEM.findall(value)]
    return None


_CONF_SECTION = re.compile(r"^[ \t]*\[+[ \t]*([^\]\n]*?)[ \t]*\]+[ \t]*(?:[#;].*)?$")
_CONF_KEY = re.compile(r"^([A-Za-z_][\w.-]*|\"[^\"\n]*\"|'[^'\n]*')[ \t]*[=:][ \t]*(.*?)[ \t]*$")
_CONF_NEVER = frozenset({"help", "version"})


def option_settings(text: str, tool: str | None) -> list[tuple[str, str]]:
    """(xf51) The settings of a configuration whose keys are the program's long options (pip.conf / pip.ini,
    uv.toml, pyproject.toml's [tool.TOOL] tables; ``tool`` the program's name, None for a file of the program's own):
    each `KEY = VALUE` as (option, value), the option in its line spelling (lower case, `_` as `-`: `cache_dir` is
    --cache-dir), a value's quotes taken off, a TOML list or an ini value's indented continuation lines each a value
    of the key. A pyproject.toml's other tables are the project's, not the tool's (`[project] version = "1"` is no
    --version); help and version are no setting of any. The section a key is in (pip's [global], [install]) is not
    kept: the option is read where the program reads it (before its verb or after it)."""
    words: list[tuple[str, str]] = []
    section = ""
    key = ""
    lines = text.splitlines()
    for at, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        head = _CONF_SECTION.match(line)
        if head is not None:
            section = head.group(1).strip().strip("\"'")
            key = ""
            continue
        if tool is not None and not (section == f"tool.{tool}" or section.startswith(f"tool.{tool}.")):
            continue
        if line[:1] in " \t" and key:
            words.append((key, stripped.strip("\"'")))  # an ini continuation: one more value of the key
            continue
        found = _CONF_KEY.match(stripped)
        if found is None:
            key = ""
            continue
        key = found.group(1).strip("\"'").lower().replace("_", "-")
        if key in _CONF_NEVER:
            key = ""
            continue
        value = found.group(2)
        if value.startswith("["):
            rest = "\n".join([value, *lines[at + 1 :]])
            end = rest.find("]")
            items = _TOML_ITEM.findall(rest[: end + 1 if end >= 0 else len(rest)])
            words += [(key, a if a or not b else b) for a, b in items]
            continue
        if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 1:
            value = value[1:-1]
        words.append((key, value))
    return words


def addopts_words(text: str) -> list[str] | None:
    """The options a pytest configuration adds to every run (`addopts = --basetemp=DIR` in pytest.ini,
    tox.ini or setup.cfg, with its indented continuation lines; a TOML string or list of strings in
    pyproject.toml): split as pytest splits them, and its `cache_dir = DIR` as `-o cache_dir=DIR`.
    None when a value cannot be split for certain."""
    import shlex  # noqa: PLC0415  (a start-up import otherwise)

    words: list[str] = []
    for match in _ADDOPTS.finditer(text):
        value = match.group(2).strip()
        if match.group(1) == "cache_dir":
            # the folder its cache is written to, emptied by --cache-clear (adv31): `-o cache_dir=DIR`
            item = next(iter(_TOML_ITEM.findall(value)), None)
            words += ["-o", "cache_dir=" + ((item[0] or item[1]) if item else value)]
            continue
        items = _config_items(text, match, 2) or [value]
        try:
            for item in items:
                words += shlex.split(item, comments=False, posix=True)
        except ValueError:
            return None
    return words if len(words) <= _MAX_RESPONSE_WORDS else None


_MYPY_PLUGINS = re.compile(r"^[ \t]*plugins[ \t]*=[ \t]*(.*(?:\n[ \t]+\S.*)*)", re.MULTILINE)


def mypy_plugin_files(text: str) -> list[str]:
    """The files of the plugins a mypy configuration names (`plugins = a.b, ./p.py` in mypy.ini or
    setup.cfg, a TOML string or list in pyproject.toml; `NAME:ENTRY` names an entry point): a path as
    given, a module as its file or package (`a.b` is a/b.py or a/b/__init__.py). mypy imports them."""
    files: list[str] = []
    for match in _MYPY_PLUGINS.finditer(text):
        items = _config_items(text, match, 1)
        for item in items if items is not None else re.split(r"[,\s]+", match.group(1).strip()):
            name = item.strip().rsplit(":", 1)[0] if not re.match(r"^[A-Za-z]:[\\/]", item.strip()) else item.strip()
            if not name:
                continue
            if "/" in name or name.endswith(".py"):
                files.append(name)
            else:
                module = name.replace(".", "/")
                files += [module + ".py", module + "/__init__.py"]
    return files[:_MAX_RESPONSE_WORDS]


_MYPY_EXECUTABLE = re.compile(r"""(?m)^[ \t]*python_executable[ \t]*[=:][ \t]*["']?([^"'\n#]+?)["']?[ \t]*(?:#.*)?$""")


def mypy_executables(text: str) -> list[str]:
    """The `python_executable` a mypy configuration names (mypy.ini, setup.cfg, pyproject.toml): a program
    mypy runs to find the packages (adv32)."""
    return [m.group(1).strip() for m in itertools.islice(_MYPY_EXECUTABLE.finditer(text), 8) if m.group(1).strip()]


def doctest_source(text: str) -> str:
    """The Python of a doctest file's (or docstring's) examples: each `>>> ` and `... ` line's code."""
    return "\n".join(m.group(1) or "" for m in itertools.islice(_DOCTEST_LINE.finditer(text), _MAX_CELLS * 8))


def notebook_cells(text: str) -> list[tuple[str, str]] | None:
    """A Jupyter notebook's code cells as (kind, source): "python" (IPython: its shell escapes are read
    with it), or "shell" for a bash kernel's. None for a notebook nobody can read here: not JSON of
    nbformat 3 or 4, more cells than are read, or a kernel language not judged here (R, Julia ...)."""
    try:
        notebook = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(notebook, dict):
        return None
    metadata = notebook.get("metadata")
    language = "python"
    if isinstance(metadata, dict):
        spec = metadata.get("kernelspec")
        info = metadata.get("language_info")
        named = spec.get("language") if isinstance(spec, dict) else None
        if named is None and isinstance(info, dict):
            named = info.get("name")
        if named is not None:
            language = str(named).lower()
    kind = "shell" if language in _SHELL_KERNELS else "python" if language in ("python", "ipython", "python3") else ""
    if not kind:
        return None
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3: worksheets of cells, the code under `input`
        sheets = notebook.get("worksheets")
        cells = (
            [c for s in sheets if isinstance(s, dict) for c in s.get("cells") or ()]
            if isinstance(sheets, list)
            else None
        )
    if not isinstance(cells, list) or len(cells) > _MAX_CELLS:
        return None
    out: list[tuple[str, str]] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue  # markdown and raw cells do not run
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            if not all(isinstance(line, str) for line in source):
                return None
            source = "".join(source)
        if not isinstance(source, str):
            return None
        out.append((kind, source))
    return out


# -- package sources a written file names (env47) ---------------------------------------
# `language: requirements` (pip's -r / -c FILE, uv's): each line is pip's own options or a requirement,
# put on the program's line (`--index-url URL`, `-e git+URL`, `x @ URL` are then judged as the line's);
# `language: sources` (pyproject.toml's [[tool.uv.index]] / [tool.poetry.source] / [[tool.pdm.source]] /
# [[source]], a direct reference `x @ git+URL`, uv.toml, pip.conf, an npmrc, a yarnrc, a gemrc): the value
# of each key that names where packages come from, judged as the run's `prepend` option naming it on
# the line (`uv sync` of a pyproject naming an index is `pip install --index-url URL`).
_MAX_REQUIREMENT_LINES = 512
_REQUIREMENT_COMMENT = re.compile(r"(?:^|\s)#.*$")
_REQUIREMENT_OPTIONS = re.compile(r"\s(?=--?[A-Za-z])")
# (adv47b) pip expands `${NAME}` in a requirements file from its environment before it reads a line's options
# (pip._internal.req.req_file): `--index-url ${EVIL}` or a line `${EVIL}` alone is whatever the run's environment
# says (`EVIL=--index-url=http://h/s pip install -r r.txt`): such a file is not read for certain
_REQUIREMENT_VARIABLE = re.compile(r"\$\{[A-Z0-9_]+\}")
# (debt48) the keys are the `package_sources:` table's (policies/executors.yaml), per kind of file: a row is
# (files, keys, settings, not_sections); the grammar around a key (a scope, `:key:`, `--key`, quotes) is here
SourceRow = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
_SOURCE_SETTING = r"""(?i)(?:^|[\s{{,])(?:--?)?[:"']?(?:@[\w.-]+:)?(?:{keys})["']?:?(?:\s*[=:]\s*|\s+|$)(.*)$"""
_KEY_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}
# a value that is a URL (any scheme: `file:`, `git+ssh:`, a Windows drive too), or a variable expanded there
_SOURCE_VALUE = re.compile(r"""(?<![\w$])(?:[A-Za-z][\w+.-]*:[^\s"',}\]]+|\$\{?[A-Za-z_]\w*\}?[^\s"',}\]]*)""")
# a requirement's direct reference anywhere (`"x @ git+https://h/r"`, `x @ https://h/x.tgz`, `git+https://h/r`)
_DIRECT_REFERENCE = re.compile(
    r"""(?i)(?:@\s*|(?<![\w.+-]))(?P<url>(?:git|hg|svn|bzr)\+[^\s"',\]]+|(?<=@)\s*[a-z][\w+.-]*://[^\s"',\]]+)"""
)
_SECTION = re.compile(r"^\s*\[+\s*([^\]]*?)\s*\]+\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:-\s|[\"'\[]|[A-Za-z][\w+.-]*:|\$)")


def requirement_words(text: str, folder: str) -> list[str] | None:
    """A pip requirements (or constraints) file's words, as pip reads them: a line's comment dropped, a
    `\\`-continued line joined, an option line split into words (`--index-url URL`, `-e git+URL`, `-r
    other.txt`, a nested file's name read from ``folder``), a requirement one word with its own options
    after it (`x @ https://h/x.tgz --hash=...`). None when a line cannot be split for certain (or holds a
    `${NAME}` pip expands from its environment), or the file holds more lines than are read."""
    import shlex  # noqa: PLC0415  (a start-up import otherwise: few commands name a requirements file)

    lines = re.sub(r"\\\r?\n", " ", text).splitlines()
    if len(lines) > _MAX_REQUIREMENT_LINES:
        return None
    if "${" in text and any(_REQUIREMENT_VARIABLE.search(_REQUIREMENT_COMMENT.sub("", line)) for line in lines):
        return None  # a variable pip expands when it reads the file: unknown here
    words: list[str] = []
    for raw in lines:
        line = _REQUIREMENT_COMMENT.sub("", raw).strip()
        if not line:
            continue
        if line.startswith("-"):
            head, rest = "", line
        else:  # a requirement, then its own options (`--hash`, `--config-settings`)
            split = _REQUIREMENT_OPTIONS.split(line, maxsplit=1)
            head, rest = split[0].strip(), split[1] if len(split) > 1 else ""
        try:
            options = shlex.split(rest, comments=False, posix=True)
        except ValueError:
            return None
        for at, word in enumerate(options[:-1]):
            # a nested requirements or constraints file is named from the folder of the one naming it
            nested = options[at + 1]
            if word in ("-r", "-c", "--requirement", "--constraint") and not nested.startswith(("/", "~", "$")):
                options[at + 1] = posixpath.normpath(posixpath.join(folder, nested))
        if head:
            words.append(head.split(";")[0].strip() if "://" not in head else re.split(r"\s;", head)[0].strip())
        words += options
    return words if len(words) <= _MAX_RESPONSE_WORDS else None


def source_row(rows: tuple[SourceRow, ...], path: str) -> SourceRow:
    """The `package_sources:` rows naming the file ``path`` (by its last part), merged; every row's keys for a
    file no row names (`PIP_CONFIG_FILE=p.conf`, `--config-file F`: any name)."""
    name = posixpath.basename(path)
    chosen = [row for row in rows if any(fnmatch.fnmatchcase(name, glob) for glob in row[0])] or list(rows)
    return (
        (name,),
        tuple(dict.fromkeys(key for row in chosen for key in row[1])),
        tuple(dict.fromkeys(key for row in chosen for key in row[2])),
        tuple(dict.fromkeys(section for row in chosen for section in row[3])),
    )


def _key_pattern(keys: tuple[str, ...]) -> re.Pattern[str]:
    """A line setting one of ``keys`` (`-` and `_` alike, any case), its value as group 1."""
    pattern = _KEY_PATTERNS.get(keys)
    if pattern is None:
        # (cfg49) `-`, `_` or nothing between a key's words, camel case split too: `npm-registry-server` is
        # `npmRegistryServer`, `index_url` and `indexurl` are `index-url`
        spelled = "|".join(
            "[-_]?".join(re.escape(part) for part in re.split(r"[-_]|(?<=[a-z0-9])(?=[A-Z])", key) if part)
            for key in keys
        )
        pattern = re.compile(_SOURCE_SETTING.format(keys=spelled or "(?!)"))
        if len(_KEY_PATTERNS) > 64:
            _KEY_PATTERNS.clear()
        _KEY_PATTERNS[keys] = pattern
    return pattern


# (adv52) PEP 723's inline metadata in a Python script: `# /// script` ... `# ///`, each line `#` or `# TEXT`
_SCRIPT_METADATA = re.compile(r"(?m)^# /// script[ \t]*$\r?\n(?P<body>(?:^#(?: .*)?\r?\n)*?)^# ///[ \t]*$")


def script_metadata(text: str) -> str:
    """(adv52) The TOML a Python script's inline metadata holds (PEP 723: `# /// script` .. `# ///`, the `# ` taken
    off each line), which `uv run x.py`, `uv lock --script x.py` read as a pyproject's: its dependencies, direct
    references (`x @ git+URL`), [tool.uv] sources and indexes and settings; "" without one. A block left open
    (`# /// script` without its end) is read to the end of the text."""
    found = _SCRIPT_METADATA.search(text)
    if found is not None:
        body = found.group("body")
    elif re.search(r"(?m)^# /// script", text):
        body = "\n".join(line for line in text[text.index("# /// script") :].splitlines()[1:] if line[:1] == "#")
    else:
        return ""
    return "\n".join(line[2:] if line[:2] == "# " else line[1:] for line in body.splitlines())


def package_sources(text: str, row: SourceRow) -> list[str]:
    """The places a package manager's written configuration or manifest fetches packages from (see
    above): each source key's value (``row``'s keys: a URL or a variable; on its line, or the lines of a list
    or an ini continuation under it) and each direct reference (`x @ URL`, `git+URL`); the keys of a section
    ``row`` leaves out (`[project.urls] Source = URL`: pages, not sources) are not read."""
    setting_key = _key_pattern(row[1])
    found: list[str] = []
    listing = False
    skipped = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        header = _SECTION.match(line)
        if header is not None:
            section, listing = header.group(1).lower(), False
            skipped = any(fnmatch.fnmatchcase(section, glob) for glob in row[3])
            continue
        if skipped:
            continue
        if listing and line[:1] in (" ", "\t", "-") and _LIST_ITEM.match(line):
            found += _SOURCE_VALUE.findall(line)
            listing = "]" not in stripped or stripped.startswith("-")
            continue
        listing = False
        setting = setting_key.search(line)
        if setting is not None:
            value = setting.group(1).strip()
            found += _SOURCE_VALUE.findall(value)
            listing = value in ("", "[", "|", ">") or (value.startswith("[") and "]" not in value)
        found += [m.group("url").strip() for m in _DIRECT_REFERENCE.finditer(line)]
    return list(dict.fromkeys(found))


_SETTING_LINE = re.compile(r"^\s*([A-Za-z0-9_][\w.-]*)\s*(?:=|:(?:\s|$))")


def _folded(key: str) -> str:
    """(cfg49) A key as the package managers match it: `-` and `_` dropped, any case (yarn 1's `yarn-path` is
    berry's `yarnPath`, pip's `keyring_provider` its `keyring-provider`)."""
    return key.lower().replace("-", "").replace("_", "")


def settings_only(text: str, row: SourceRow) -> bool:
    """(debt48) Whether a file of ``row``'s kind holds settings only: each line a comment, a section or `key =
    value` (`key: value` in YAML) whose key is none of the row's keys naming a source or its settings naming a
    credential or a program (globs, `-` and `_` alike, any case). A line of any other shape (`//host/:_authToken=`,
    `key[]=`, a list's item) is not."""
    matter = tuple(_folded(glob) for glob in (*row[1], *row[2]) if not glob.endswith("/"))
    folders = tuple(_folded(glob[:-1]) for glob in row[2] if glob.endswith("/"))
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;" or _SECTION.match(line) is not None:
            continue
        setting = _SETTING_LINE.match(line)
        if setting is None:
            return False
        key = _folded(setting.group(1))
        if any(fnmatch.fnmatchcase(key, glob) for glob in matter):
            return False
        if any(fnmatch.fnmatchcase(key, glob) for glob in folders) and not _folder_below(line[setting.end() :]):
            return False
    return True


# (disk51) a folder named below the folder of the file that names it: plain name parts, no `..`, no variable
_BELOW = re.compile(r"[\w@+-][\w.@+-]*|\.[\w@+-][\w.@+-]*")


def _folder_below(value: str) -> bool:
    """(disk51) Whether a setting's ``value`` names a folder below the file's own folder (`store-dir=.pnpm-store`,
    `cacheFolder: .yarn/cache`): what a tool writes there stays in the project. A `settings:` entry ending in `/`
    is such a folder key: any other value (`~/.ssh`, `/etc`, `../x`, `$HOME`, quoted or not) matters."""
    value = value.strip()
    if value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) > 1:
        value = value[1:-1]
    parts = value.rstrip("/").split("/")
    return bool(value) and all(_BELOW.fullmatch(part) is not None and ".." not in part for part in parts)


def settings_named(rows: tuple[SourceRow, ...], path: str) -> bool:
    """(cfg49) Whether ``path``'s last part is a file of a `package_sources:` row with `settings:` (a cheap test
    before the file's text is read)."""
    name = posixpath.basename(path)
    return any(row[2] and any(fnmatch.fnmatchcase(name, glob) for glob in row[0]) for row in rows)


def settings_write(rows: tuple[SourceRow, ...], path: str, text: str) -> bool:
    """(debt48) Whether writing ``text`` over ``path`` (a name in the line's folder or below it) writes a package
    manager's configuration of settings only: a file of a `package_sources:` row that lists the keys that matter
    there (`settings:`), holding none of them (settings_only). A home's or an absolute path's file (`~/.npmrc`:
    its credentials overwritten), one named from a variable or above the folder, are not."""
    if not path or path[0] in "/~$" or ".." in path.split("/"):
        return False
    name = posixpath.basename(path)
    chosen = tuple(row for row in rows if row[2] and any(fnmatch.fnmatchcase(name, glob) for glob in row[0]))
    return bool(chosen) and settings_only(text, source_row(chosen, path))
