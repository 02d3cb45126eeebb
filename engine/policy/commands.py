"""What the analyzer knows about commands beyond their arguments' grammar.

Command names as patterns see them (`/usr/bin/python3.11` is `python`), shell
commands an inline program hands to system() or backticks, filters that pass or
decode data on its way down a pipe, files curl and wget save, and what echo and
printf print. How programs read their arguments, and what they run, is data:
the Programs table (policies/executors.yaml, engine/policy/programs.py).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from engine.policy.lexer import decode_ansi_c
from engine.policy.paths import URL

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Final

ASSIGNMENT: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")

_PYTHON: Final = re.compile(r"^(?:python|pypy)[0-9.]*$")  # pypy3 runs Python as python3 does (redt36)
# (xfail39) not perl6: Raku, another language (its `shell "CMD"` is no perl)
_VERSIONED: Final = re.compile(
    r"(lua|luajit|perl(?!-?6$)|ruby|php|tclsh|wish|node|nodejs|rscript|julia|emacs)-?\d+(?:\.\d+)*"
)
# (adv51) A flavoured build of one program, installed under its own name: Debian's `NAME.FLAVOUR` (vim.basic,
# vim.tiny, vim.nox, vim.gtk3, rename.ul), an AppImage (nvim.appimage), emacs's `NAME-FLAVOUR` (emacs-nox,
# emacs-gtk, emacs-lucid): the program it is built from (`vim.basic -c '!CMD'` ran CMD, allowed as an unknown name)
_FLAVOURS: Final = (
    ".basic",
    ".tiny",
    ".nox",
    ".gtk",
    ".gtk2",
    ".gtk3",
    ".athena",
    ".motif",
    ".lesstif",
    ".appimage",
    ".ul",
    "-nox",
    "-gtk",
    "-gtk3",
    "-lucid",
    "-pgtk",
    "-x11",
    "-athena",
    "-motif",
)
# The dynamic loader run as a program (`/lib64/ld-linux-x86-64.so.2 PROG ARGS`, `ld-2.31.so`, `ld64.so.2`,
# `ld-musl-x86_64.so.1`): one entry, `ld.so`, whatever the architecture and version in its name.
_LOADER: Final = re.compile(r"ld(?:-linux|64|-musl)?(?:-[\w.-]*)?\.so(?:\.[\d.]+)?")
# Pipeline filters that pass literal data through (or decode it) on its way to a sink.
# (stop 58, adv58) Only those that pass all of it as it is: tr, fold, head, tail, sort and uniq change it (`echo
# ../notes.txtX | tr -d X`, `head -c 18` of a longer line, `tail -n 2` of a here-document that quoted its lines); tr's
# simple sets are worked out (_tr).
PASS_THROUGH = frozenset({"cat", "tee", "dos2unix"})
# ... and those that pass one line (or copies of it) whole, given no option but a count of lines of at least one
_LINE_FILTERS: Final = frozenset({"head", "tail", "sort", "uniq"})
_LINE_COUNT: Final = re.compile(r"(?:-[1-9][0-9]{0,5}|-n ?[1-9][0-9]{0,5}|--lines=[1-9][0-9]{0,5})?")
# (stop 58, adv58) The shells that read only POSIX sh (Debian's /bin/sh is dash), and the syntax of bash's they read
# otherwise, each a way to run more than bash would: `$'…'` (dash: `$` and a plain quote, `echo $'a\' ; rm -rf ~ #
# \''`), `[[ a > f ]]` (a redirection), `((…))` (subshells), `x+=…`, declare, typeset, let, shopt, `printf -v`,
# mapfile, readarray, source, builtin, `read -a`, `cd -e` (a no-op or a failure: the variable or the folder stays
# what it was), pushd and popd, a here-string `<<<`. Each at a command's start (after an operator, a backslash, `!`
# or if/elif/while/until/then/do/else/eval/exec/command/time), or `$'` anywhere, outside quotes (dash_unread reads
# the text with its quoted parts blanked: `grep '^$'`, `echo "let me know"` are none; eval's text is read on its
# own). (rev58: dash's echo and printf are read as dash writes: printed_text's posix)
POSIX_SHELLS: Final = frozenset({"sh", "dash", "ash", "posh"})
DASH_UNREAD: Final = re.compile(
    r"\$'"
    r"|(?:^|[;&|(){}\n`!\\]|\b(?:if|elif|while|until|then|do|else|eval|exec|command|time)\s)(?<!\$\()\s*\\?"
    r"(?:\[\[|\(\(|(?:declare|typeset|let|shopt|pushd|popd|mapfile|readarray|source|builtin)(?=[\s;&|)]|$)"
    r"|printf\s+-v|read\s+-[A-Za-z]*[ac-oqs-z]|cd\s+-[A-Za-z@]*[^\sLP-]|[A-Za-z_]\w*(?:\[[^]\n]{0,64}\])?\+=)"
    r"|<<<"
)


def dash_unread(text: str) -> bool:
    """Whether ``text``, a POSIX sh's, holds syntax of bash's dash reads otherwise (DASH_UNREAD, outside quotes)."""
    if not _DASH_HINT.search(text):
        return False
    return DASH_UNREAD.search(_blank_quoted(text)) is not None


_DASH_HINT: Final = re.compile(
    r"\$'|\[\[|\(\(|\+=|<<<|declare|typeset|let|shopt|printf|pushd|popd|mapfile|readarray|source|builtin|read|cd"
)


def _blank_quoted(text: str) -> str:
    """``text`` with what its single and double quotes hold blanked (`_`), the quotes and a backslash's escape kept."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if quote == "'":
            out.append("'" if char == "'" else "_")
            quote = "" if char == "'" else quote
        elif char == "\\" and i + 1 < n:
            out.append(char + (text[i + 1] if not quote else "_"))
            i += 2
            continue
        elif quote == '"':
            out.append('"' if char == '"' else "_")
            quote = "" if char == '"' else quote
        else:
            out.append(char)
            if char in "'\"":
                quote = char
        i += 1
    return "".join(out)


# Shells: programs that read commands from their input or a `-c` string (session_memory's background
# shells, evaluate's finders running a line through one).
SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "ash", "busybox", "fish", "rbash", "tcsh", "csh"}
)


def shell_word(text: str) -> str:
    """``text`` as one shell word; a leading `~` or `~user` stays unquoted, as a program that
    hands it to a shell may leave it (the stricter reading: it is the home directory)."""
    head, sep, rest = text.partition("/")
    if head.startswith("~") and re.fullmatch(r"~[A-Za-z0-9._-]*", head):
        return head + sep + (_quote(rest) if rest else "")
    return _quote(text)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def basename(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return name.lower()


# The same programs under other names: GNU tools with the `g` Homebrew and the BSDs give them
# (`gcp`, `gsed`, `grm`), uutils' `uu-cp`. A pattern about `cp` is about these too.
_RENAMED: Final = frozenset(
    [
        "cp",
        "mv",
        "ln",
        "install",
        "rm",
        "rmdir",
        "dd",
        "tee",
        "chmod",
        "chown",
        "chgrp",
        "shred",
        "truncate",
        "touch",
        "mkdir",
        "cat",
        "head",
        "tail",
        "sed",
        "tar",
        "find",
        "xargs",
        "env",
        "nohup",
        "nice",
        "timeout",
        "stdbuf",
        "chroot",
        "split",
        "csplit",
        "base64",
        "base32",
        "od",
        "link",
        "unlink",
        "mktemp",
        "sort",
    ]
)


def renamed(names: frozenset[str] | set[str]) -> set[str]:
    """The other names of ``names`` that command_name() reads as them (`gcp`, `uu-cp` for `cp`)."""
    return {f"{prefix}{n}" for n in names & _RENAMED for prefix in ("g", "uu-", "uu_")}


def command_name(word: str) -> str:
    """The name patterns match: basename, lower-case, python3.11 and pypy3 → python, BUN.EXE → bun, gcp → cp,
    ld-linux-x86-64.so.2 → ld.so, vim.basic and emacs-nox → vim and emacs (adv51)."""
    name = word[word.rfind("/") + 1 :].lower()  # basename(word), without a list
    if name.endswith((".exe", ".cmd", ".bat")) and len(name) > 4:
        name = name[:-4]
    if name[:1] in ("g", "u"):
        if name[1:] in _RENAMED:
            return name[1:]
        if name[:3] in ("uu-", "uu_") and name[3:] in _RENAMED:
            return name[3:]
    if name.startswith(("python", "pypy")) and _PYTHON.match(name):
        return "python"
    if name.startswith("ld") and ".so" in name and _LOADER.fullmatch(name):
        return "ld.so"
    if ("." in name or "-" in name) and name.endswith(_FLAVOURS):
        cut = max(name.rfind("."), name.rfind("-"))
        if cut > 0:
            return command_name(name[:cut])
    if name[-1:].isdigit():
        # an interpreter named with its version (lua5.4, tclsh8.6, ruby3.2, php8.2, perl5.36; fresh37a)
        versioned = _VERSIONED.fullmatch(name)
        if versioned is not None:
            return versioned.group(1)
    return name


def decode_filter(filter_argv: tuple[str, ...], data: str) -> str | None:
    """Data after a decoding filter, or None when the filter is not understood."""
    name = command_name(filter_argv[0])
    flags = {a for a in filter_argv[1:] if a.startswith("-")}
    if name in ("base64", "base32") and ({"-d", "--decode", "-D"} & flags):
        import base64  # noqa: PLC0415  (a start-up import otherwise: few commands decode)

        compact = data.replace("\n", "")
        if "=" in compact.rstrip("=") or " " in compact or "\t" in compact:
            # (stop 58, adv58, rev58) GNU base64 -d decodes on past a padded block and stops at a blank; Python's
            # b64decode stops at the first and drops the second
            return None
        try:
            raw = base64.b64decode(compact, validate=True) if name == "base64" else base64.b32decode(compact)
        except ValueError:  # binascii.Error is one
            return None
        return raw.decode("utf-8", errors="replace")
    if name == "xxd" and "-r" in flags:
        import binascii  # noqa: PLC0415  (a start-up import otherwise: few commands decode)

        try:
            return binascii.unhexlify(re.sub(r"\s+", "", data)).decode("utf-8", errors="replace")
        except ValueError:  # binascii.Error is one
            return None
    if name == "rev":
        return "\n".join(line[::-1] for line in data.split("\n"))
    if name in PASS_THROUGH:
        return data
    if name == "tr":
        return _tr(filter_argv[1:], data)
    if name in _LINE_FILTERS and _LINE_COUNT.fullmatch(" ".join(filter_argv[1:])) and _one_line(data):
        return data  # one line (or copies of it), kept whole: `yes CMD | head -1`, `echo CMD | sort`
    return None


def _tr(args: Sequence[str], data: str) -> str | None:
    r"""(CI of f21bd19b) What `tr -d SET` or `tr SET1 SET2` writes of ``data``, on its bytes as GNU tr works (`tr -d
    'â'` deletes a zero-width space's UTF-8 bytes): sets of characters, octal and letter escapes and
    ascending ranges; None for any other option, a class, an equivalence or a repeat (not worked out here)."""
    delete = bool(args) and args[0] == "-d"
    sets = [_tr_set(word) for word in (args[1:] if delete else args)]
    if any(found is None for found in sets) or len(sets) != (1 if delete else 2):
        return None
    raw = data.encode("utf-8", "surrogateescape")
    first = sets[0]
    assert first is not None
    if delete:
        out = raw.translate(None, first)
    else:
        second = sets[1]
        if not second:
            return None
        second = (second + second[-1:] * len(first))[: len(first)]
        out = raw.translate(bytes.maketrans(first, second))
    return out.decode("utf-8", errors="replace")


_TR_ESCAPES: Final = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92}


def _tr_set(word: str) -> bytes | None:
    """tr's SET as its bytes (None: a class, an equivalence class, a repeat or an option). An octal escape takes up to
    three digits of a value below 0400 (`\\400` is a space and a 0, as GNU tr reads it); a range's ends may be
    escapes (`X-\\132`)."""
    if word.startswith("-") or "[:" in word or "[=" in word or "*" in word:
        return None
    raw = word.encode("utf-8", "surrogateescape")
    tokens: list[tuple[int, bool]] = []  # (byte, whether it is a plain `-`)
    i = 0
    while i < len(raw):
        byte = raw[i]
        if byte == 92 and i + 1 < len(raw):  # a backslash
            digits = re.match(rb"[0-7]{1,3}", raw[i + 1 : i + 4])
            if digits is not None:
                text = digits.group()
                if int(text, 8) > 0o377:
                    text = text[:2]
                tokens.append((int(text, 8), False))
                i += 1 + len(text)
                continue
            tokens.append((_TR_ESCAPES.get(chr(raw[i + 1]), raw[i + 1]), False))
            i += 2
            continue
        tokens.append((byte, byte == 45))
        i += 1
    items: list[int] = []
    k = 0
    while k < len(tokens):
        if k + 2 < len(tokens) and tokens[k + 1][1]:  # `a-z`
            low, high = tokens[k][0], tokens[k + 2][0]
            if high < low:
                return None
            items.extend(range(low, high + 1))
            k += 3
            continue
        items.append(tokens[k][0])
        k += 1
    return bytes(items)


def _one_line(data: str) -> bool:
    """Whether ``data`` is one line, or copies of one line (yes's printed text)."""
    lines = data.rstrip("\n").split("\n")
    return len(lines) == 1 or all(line == lines[0] for line in lines)


def download_targets(name: str, argv: tuple[str, ...] | list[str]) -> list[str]:
    """Files curl or wget save on this command line (``-`` for stdout is left out)."""
    if name not in ("curl", "wget"):
        return []
    words = argv[1:]
    urls = [w for w in words if URL.match(w)]
    out: list[str] = []
    if name == "curl":
        out += [v for v in option_values("o", words) + option_values("output", words) if v != "-"]
        if any(w in ("-O", "--remote-name", "--remote-name-all") or _clustered(w, "O") for w in argv[1:]):
            out += [_url_basename(u) for u in urls]
        return out
    document = option_values("O", words) + option_values("output-document", words)
    if document:
        return [v for v in document if v != "-"]
    prefix = next(iter(option_values("P", words) + option_values("directory-prefix", words)), "")
    return [posixpath.join(prefix, _url_basename(u)) if prefix else _url_basename(u) for u in urls]


def _clustered(word: str, letter: str) -> bool:
    return word.startswith("-") and not word.startswith("--") and letter in word[1:] and word[1:].isalpha()


def option_values(name: str, words: Sequence[str]) -> list[str]:
    """Values of an option among a command's words.

    One letter: `-o V`, `-oV`, and in a cluster of flags `-so V`, `-qO-`.
    Longer: `--name=V`, `-name=V`, `name=V` (dd), `--name V`, `-name V`.
    """
    values: list[str] = []
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else None
        if len(name) == 1:
            if word.startswith("--") or not word.startswith("-"):
                continue
            at = word.find(name, 1)
            if at < 0 or (at > 1 and not word[1:at].isalpha()):  # only flag letters may come before it
                continue
            attached = word[at + 1 :]
            if attached:
                values.append(attached)
            elif nxt is not None:
                values.append(nxt)
            continue
        for prefix in (f"--{name}=", f"-{name}=", f"{name}="):
            if word.startswith(prefix):
                values.append(word[len(prefix) :])
        if word in (f"--{name}", f"-{name}") and nxt is not None:
            values.append(nxt)
    return values


def _url_basename(url: str) -> str:
    path = url.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    _, _, rest = path.partition("/")
    name = rest.rstrip("/").rsplit("/", 1)[-1]
    return name or "index.html"


_PRINTF_SPEC = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?([sbcdiuxXoq]))")


def printed_text(name: str, args: list[str] | tuple[str, ...], posix: bool = False) -> str | None:
    r"""What `echo ...` or `printf FORMAT ARGS...` writes, escapes decoded; None if not knowable. ``posix``: as dash's
    builtins write it (stop 58: its echo takes only -n and always decodes; its printf leaves `\x`, `\u`, `\U`)."""
    if name == "echo" and posix:
        words = list(args)
        while words and words[0] == "-n":
            words.pop(0)
        return decode_echo(" ".join(words), posix=True)[0]
    if name == "echo":
        flags: set[str] = set()
        words = list(args)
        while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
            flags.update(words.pop(0)[1:])
        text = " ".join(words)
        return decode_echo(text)[0] if "e" in flags else text
    if name != "printf" or not args:
        return None
    if args[0] == "--":  # (env47) the end of its options: `printf -- '-x\n'`, bash's builtin and coreutils' alike
        args = args[1:]
        if not args:
            return None
    fmt, rest = args[0], list(args[1:])
    out: list[str] = []
    for _ in range(64):  # the format is reused while arguments remain
        at = 0
        consumed = False
        for match in _PRINTF_SPEC.finditer(fmt):
            out.append(_format_text(fmt[at : match.start()], posix))  # escapes live in the format only
            at = match.end()
            kind = match.group(2)
            if match.group(1) == "%":
                out.append("%")
                continue
            consumed = True
            value = rest.pop(0) if rest else ""
            if kind in "sq":
                out.append(value)
            elif kind == "b":
                decoded, stopped = decode_echo(value, octal=True, posix=posix)
                out.append(decoded)
                if stopped:
                    return "".join(out)  # `\c` in a %b argument ends all of printf's output
            elif kind == "c":
                out.append(value[:1])
            else:
                return None  # numbers are rarely how a command is spelled; do not guess
        out.append(_format_text(fmt[at:], posix))
        if not rest or not consumed:
            break
    return "".join(out)


def _format_text(text: str, posix: bool) -> str:
    r"""A printf format's text, its escapes decoded (``posix``: dash's printf keeps `\x`, `\u`, `\U` as they are)."""
    if posix and "\\" in text:
        text = _HEX_ESCAPE.sub(r"\1\\\\", text)
    return decode_ansi_c(text)


# (the backslash of `\x`, `\u`, `\U` escaped, unless it is escaped itself: `\\x` stays a backslash and an x)
_HEX_ESCAPE: Final = re.compile(r"(?<!\\)((?:\\\\)*)\\(?=[xuU])")
# (stop 58, adv58) The escapes of echo -e and printf's %b (bash 5.2's, compared with it): `\0NNN` (up to three octal
# digits after the 0), `\NNN` for %b only (echo leaves it as it is), `\c` ends the output; the others as $'...'s.
_ECHO_ESCAPE = re.compile(
    r"\\(0[0-7]{0,3}|[1-7][0-7]{0,2}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|.)", re.S
)


_ECHO_LETTERS: Final = frozenset("abeEfnrtv\\xuU")
_DASH_ECHO_LETTERS: Final = frozenset("abfnrtv\\")  # (adv58b) dash's echo and %b: no \x, \u, \U, \e


def decode_echo(text: str, octal: bool = False, posix: bool = False) -> tuple[str, bool]:
    r"""What echo -e (``octal``: printf's %b) prints of ``text``, and whether a `\c` ended it there (`echo -e 'rm -f
    ../notes.txt\c'` prints the path and no more: decode_ansi_c kept `\c`; `\0164` was read as `\016` and a 4)."""
    if "\\" not in text:
        return text, False
    out: list[str] = []
    at = 0
    for match in _ECHO_ESCAPE.finditer(text):
        out.append(text[at : match.start()])
        at = match.end()
        code = match.group(1)
        if code == "c":
            return "".join(out), True
        if code[0] == "0":
            out.append(chr(int(code[1:] or "0", 8) & 0xFF))
        elif code[0] in "1234567":
            out.append(chr(int(code, 8) & 0xFF) if octal else "\\" + code)
        elif code[0] in (_DASH_ECHO_LETTERS if posix else _ECHO_LETTERS):
            out.append(decode_ansi_c("\\" + code))
        else:
            out.append("\\" + code)  # (rev58) `\'`, `\"`, `\?`: echo keeps the backslash ($'…' drops it)
    out.append(text[at:])
    return "".join(out), False


# A `%` sequence of a format (date's +FORMAT, seq -f): what it becomes is not evaluated here.
_FORMAT_SEQUENCE = re.compile(r"%[-_0^#+]*\d*(?:\.\d*)?[A-Za-z%]?")
# Options whose value is printed as text by a `format` printer: seq -f/--format, -s/--separator.
_FORMAT_OPTIONS = frozenset({"-f", "--format", "-s", "--separator"})
_VALUED_SHUF = frozenset({"-n", "--head-count", "-o", "--output", "--random-source", "-i", "--input-range"})


def _shuf_echo(word: str) -> bool:
    """Whether a word of shuf's is a cluster of short options holding -e (`-e`, `-re`, `-en1`)."""
    if not word.startswith("-") or word.startswith("--"):
        return False
    for letter in word[1:]:
        if letter == "e":
            return True
        if letter in "ino":  # the rest of the word is its value
            return False
    return False


def printed_words(kind: str, args: Sequence[str], env: Mapping[str, str]) -> tuple[str | None, bool]:
    """What a program of the Programs table's `prints:` ``kind`` prints from ``args``, and whether that
    is its output exactly (see policies/printers.yaml). (None, False): it prints text computed in a
    way not evaluated here (an inline program, printenv of an unknown value); (None, True): nothing of
    its words (date without +FORMAT, shuf of its files)."""
    if kind == "repeated":  # yes: its words joined, on every line
        text = " ".join(args[1:] if args and args[0] == "--" else args) or "y"
        return text + "\n" + text, True
    if kind in ("basename", "dirname"):
        names: list[str] = []
        multiple, suffix, at = kind == "dirname", "", 0
        while at < len(args):
            word = args[at]
            at += 1
            if word == "--":
                names.extend(args[at:])
                break
            if word in ("-a", "--multiple", "-z", "--zero"):
                multiple = multiple or word in ("-a", "--multiple")
            elif word in ("-s", "--suffix") and at < len(args):
                suffix, multiple, at = args[at], True, at + 1
            elif word.startswith("--suffix="):
                suffix, multiple = word[9:], True
            elif word.startswith("-s") and len(word) > 2:
                suffix, multiple = word[2:], True
            else:
                names.append(word)
        if not multiple and len(names) == 2:  # basename NAME SUFFIX
            names, suffix = names[:1], names[1]
        out: list[str] = []
        for name in names:
            stripped = name.rstrip("/") or ("/" if name else "")
            if kind == "dirname":
                head = stripped.rpartition("/")[0].rstrip("/") if "/" in stripped else "."
                out.append(head or "/")
            else:
                base = stripped.rpartition("/")[2] or stripped
                out.append(base[: -len(suffix)] if suffix and base.endswith(suffix) and base != suffix else base)
        return "\n".join(out), True
    if kind == "expression":  # expr WORD prints it; an expression's value is not computed
        return (args[0], True) if len(args) == 1 else (" ".join(args), False)
    if kind == "choices":  # shuf -e WORDS: any of them, one a line (all are judged)
        if not any(word == "--echo" or _shuf_echo(word) for word in args):
            return None, True
        words: list[str] = []
        at = 0
        while at < len(args):
            word = args[at]
            at += 1
            if word == "--":
                words.extend(args[at:])
                break
            if word in _VALUED_SHUF:
                at += 1
            elif not word.startswith("-") or word == "-":
                words.append(word)
        return "\n".join(words), True
    if kind == "format":  # date +FORMAT, seq -f FORMAT -s SEPARATOR: the text of the format
        texts = [w[1:] for w in args if w.startswith("+")]
        for at, word in enumerate(args):
            name, eq, value = word.partition("=")
            if name in _FORMAT_OPTIONS and eq:
                texts.append(value)
            elif word in _FORMAT_OPTIONS and at + 1 < len(args):
                texts.append(args[at + 1])
            elif word[:2] in ("-f", "-s") and len(word) > 2 and not word.startswith("--"):
                texts.append(word[2:])
        if not texts:
            return None, True
        text = " ".join(texts)
        return _FORMAT_SEQUENCE.sub("", text), "%" not in text and "\\" not in text
    if kind == "variable":  # printenv NAME...: their values
        values = [env.get(word) for word in args if not word.startswith("-")]
        if not values or any(v is None for v in values):
            return None, False
        return "\n".join(v for v in values if v is not None), True
    return None, False  # code: an inline program's output is not evaluated here
