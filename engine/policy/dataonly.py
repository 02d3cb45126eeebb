"""(stop 56) Inline programs that only read data: an allowlist of shapes, not a list of the ways to run code.

An inline program fed from the network (`curl -s URL | python3 -c 'import json, sys; print(json.load(sys.stdin)["v"])'`)
is allowed only when everything it names is known to turn input into data: the modules it imports, the names it calls
and the attributes it reads are on a short list, and every other name is one the program binds itself. Stop 55 read
such programs through a regex of the ways to run code (eval, system, pickle, logging.config, timeit ...), and each
review found another; what is not on this list asks (the matcher condition `data_only`, policies/exec.yaml).

Python is read with its own parser (`ast`): no string, f-string or comment can hide a name from it. The other
languages are read by their tokens: a string without interpolation is data, a name after a sigil (`$x`, `@x`) or one
the program declares is its own, and any other name must be on the language's list; a construct that runs a string
or a command (a backquote, `%x`, perl's `s///e`, an interpolated block) is never data-only.
"""

from __future__ import annotations

import ast
import builtins
import re

TYPE_CHECKING = False  # not typing's: a guard does not import typing (annotations only; test_guard)
if TYPE_CHECKING:
    from typing import Final


def _words(text: str) -> frozenset[str]:
    """The blank-separated words of ``text``: a table of names as written below."""
    return frozenset(text.split())


# -- python ------------------------------------------------------------------------------------------------------
# Modules whose functions turn text into values and values into text (no file, process, import or evaluation).
_PY_MODULES: Final = _words(
    """json tomllib sys csv re base64 binascii math statistics datetime time collections itertools functools string
    textwrap hashlib html uuid decimal fractions operator pprint urllib.parse unicodedata calendar bisect heapq
    zlib gzip io"""
)
# Builtins that compute values (no open, eval, exec, compile, getattr, __import__, globals, vars, help, breakpoint).
_PY_BUILTINS: Final = _words(
    """print len str int float bool list dict set tuple frozenset sorted reversed sum min max abs round any all
    enumerate zip range map filter isinstance repr ord chr hex oct bin divmod pow format iter next input bytes
    bytearray ascii hash slice exit quit type True False None Exception KeyError ValueError IndexError TypeError
    AttributeError StopIteration ZeroDivisionError SystemExit"""
)
_PY_EVERY_BUILTIN: Final = frozenset(dir(builtins))
# Attributes read on any value: none names a file, a process, an import or an evaluation (no `_` name ever).
_PY_ATTRIBUTES: Final = _words(
    """stdin stdout stderr buffer read readline readlines write flush argv exit maxsize load loads dump dumps
    JSONDecodeError reader writer DictReader DictWriter writerow writerows writeheader fieldnames b64decode
    b64encode urlsafe_b64decode urlsafe_b64encode b32decode b16decode hexlify unhexlify search match fullmatch
    findall finditer sub subn split group groups groupdict start end span compile escape IGNORECASE MULTILINE
    DOTALL I M S sha256 sha1 md5 hexdigest digest decompress compress parse get items keys values append extend
    insert remove pop clear update setdefault copy sort reverse count index strip lstrip rstrip splitlines
    rsplit partition rpartition join lower upper title capitalize casefold startswith endswith replace format
    encode decode find rfind isdigit isalpha isalnum isspace zfill ljust rjust center expandtabs hex fromhex add
    discard union intersection difference now utcnow today fromtimestamp utcfromtimestamp fromisoformat strptime
    strftime isoformat timestamp timedelta timezone utc date datetime year month day hour minute second days
    seconds total_seconds time gmtime localtime sqrt floor ceil log log10 log2 exp pi inf isnan fsum prod mean
    median stdev mode Counter defaultdict OrderedDict deque most_common chain groupby islice product
    permutations combinations accumulate reduce itemgetter quote unquote quote_plus unquote_plus urlparse
    urlsplit urlencode parse_qs parse_qsl netloc query scheme hostname port fragment normalize name category
    dedent indent wrap fill shorten pformat pprint unescape ascii_letters digits TextIOWrapper StringIO BytesIO
    getvalue heappush heappop nlargest nsmallest bisect insort Decimal Fraction uuid4 real imag"""
)
# Statements and expressions that compute: anything else (a class, async code, a global or nonlocal, a yield
# that hands values to a caller nobody reads) is not data-only.
_PY_NODES: Final = (
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If, ast.With,
    ast.Try, ast.ExceptHandler, ast.Raise, ast.Assert, ast.Delete, ast.Pass, ast.Break, ast.Continue, ast.Return,
    ast.FunctionDef, ast.Lambda, ast.arguments, ast.arg, ast.Import, ast.ImportFrom, ast.alias, ast.withitem,
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Compare, ast.Call, ast.keyword, ast.Attribute,
    ast.Subscript, ast.Slice, ast.Starred, ast.Name, ast.Constant, ast.JoinedStr, ast.FormattedValue, ast.List,
    ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension,
    ast.NamedExpr, ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop,
)  # fmt: skip


def _python_data_only(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    bound: set[str] = set()
    nodes = list(ast.walk(tree))
    for node in nodes:  # the names the program binds itself (what it assigns, loops over, takes, imports as)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.ExceptHandler) and node.name:
            bound.add(node.name)
    for node in nodes:
        if not isinstance(node, _PY_NODES):
            return False
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in _PY_MODULES:
                    return False
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module not in _PY_MODULES:
                return False
            for alias in node.names:
                if alias.name not in _PY_ATTRIBUTES:
                    return False
                bound.add(alias.asname or alias.name)
        elif isinstance(node, ast.Attribute):
            if node.attr not in _PY_ATTRIBUTES:
                return False
        elif isinstance(node, ast.FunctionDef) and (node.decorator_list or node.name.startswith("_")):
            return False
    # (adv56) a name the program binds is its own unless it is a builtin's: `(lambda exec: 0)` binds exec in the
    # lambda alone, and `[exec][0](sys.stdin.read())` ran the response
    return all(
        not isinstance(node, ast.Name)
        or node.id in _PY_BUILTINS
        or (node.id in bound and node.id not in _PY_EVERY_BUILTIN and node.id[:2] != "__")
        for node in nodes
    )


# -- the other languages, by their tokens -----------------------------------------------------------------------
# Names each language's data-only programs use: the input read, JSON parsed, text matched, printed. (A JavaScript
# property, `JSON.parse(d).version`, may be any name but those that reach code: _JS_DENIED.)
_TOKEN_NAMES: Final = {
    "js": _words(
        """JSON parse stringify console log error process stdin stdout write on data end setEncoding argv env exit
        readFileSync require fs length map filter forEach reduce find some every keys values entries join split trim
        slice includes startsWith endsWith replace toLowerCase toUpperCase String Number parseInt parseFloat Object
        Array isArray Math max min round floor Date toISOString toString toFixed const let var if else for of in
        return true false null undefined new typeof while break continue push sort indexOf match test padStart padEnd
        concat flat size has get set Map Set Buffer from utf8 utf chunk c d s x e k v r o"""
    ),
    "perl": _words(
        """print printf say if unless else elsif while for foreach my our split join chomp chop lc uc length substr
        index sprintf keys values each sort reverse scalar defined exists next last and or not eq ne lt gt le ge cmp
        x STDIN STDOUT STDERR END BEGIN decode_json encode_json JSON PP use strict warnings utf8 qw grep map abs int
        hex oct ord chr lcfirst ucfirst local new decode encode pretty canonical"""
    ),
    "ruby": _words(
        """puts print p pp require json JSON parse generate pretty_generate STDIN read readlines each each_line map
        select reject find keys values each_pair to_s to_i to_f to_a to_h strip chomp split join upcase downcase
        include? start_with? end_with? length size first last sort sort_by reverse dig fetch if unless else elsif end
        do then while nil true false and or not gets sub gsub scan match count uniq compact flatten min max sum
        group_by with_index format rjust ljust"""
    ),
    "lua": _words(
        """print io read write string format gsub match gmatch find sub len lower upper rep reverse byte char table
        concat insert remove sort unpack pairs ipairs tostring tonumber type select math floor ceil max min abs huge
        local for in do end if then else elseif while repeat until return break and or not nil true false function
        lines a l n"""
    ),
}
_LANGUAGES: Final = {
    "node": "js", "nodejs": "js", "deno": "js", "bun": "js", "perl": "perl", "ruby": "ruby", "lua": "lua",
    "luajit": "lua",
}  # fmt: skip
# A pattern's text (perl's and ruby's `/…/` where an operand goes, perl's m, s, tr and y, ruby's %r, node's regex
# literal), a segment up to its delimiter: linear, whatever the text (rev56: a lazy `.*?` took 43 s on `s/` * 2048).
_SEGMENT: Final = r"(?:[^\\\n/]|\\.)*"
_PERL_PATTERN: Final = (
    r"(?<![\w$@%&])(?:s|tr|y)(?P<d>[#|!,])(?:(?!(?P=d))[^\\\n]|\\.)*(?P=d)(?:(?!(?P=d))[^\\\n]|\\.)*(?P=d)[a-z]*"
    rf"|(?<![\w$@%&])(?:s|tr|y)/{_SEGMENT}/{_SEGMENT}/[a-z]*"
    r"|(?<![\w$@%&])s\s*\{[^{}\n]*\}\s*\{[^{}\n]*\}[a-z]*"
    rf"|(?<![\w$@%&])m\s*(?:\{{[^{{}}\n]*\}}|\([^()\n]*\)|/{_SEGMENT}/)[a-z]*"
    rf"|(?P<k>^|[=~(,;{{!]|\b(?:if|or|and|not|for|map|grep|when|while|split|until|print|return|unless))\s*/{_SEGMENT}/[a-z]*"
)
_RUBY_PATTERN: Final = (
    r"%r\{[^{}\n]*\}[a-z]*"
    rf"|(?P<k>^|[=~(,;{{|!&]|\b(?:if|or|and|not|sub|scan|gsub|when|grep|match|split|unless|index))\s*/{_SEGMENT}/[a-z]*"
)
_JS_PATTERN: Final = rf"(?P<k>^|[=(,;:!&|?{{}}]|\breturn)\s*/(?![/*]){_SEGMENT}/[a-z]*"
# Strings, comments and patterns, by language, read left to right in one pass (a quote inside a comment or a pattern
# opens no string: adv56's perl `# '`, rev56's `print if /'/; readpipe; print if /'/`): a string the language does not
# interpolate, or interpolates only plain names into (perl's `"$x[readpipe]"` and `"$x->[…]"` run code, rev56: such a
# string is read as code), a comment, a pattern (the same for what it interpolates).
_PERL_PLAIN: Final = r"(?:[$@](?![{(])\w+(?:\[-?\d+\])*(?![\w\[{]|->))"
_LEXEMES: Final = {
    "js": re.compile(
        r"(?P<c>//[^\n]*|/\*.*?\*/)"
        r"|'(?P<s>(?:[^'\\\n]|\\.)*)'|\"(?P<s2>(?:[^\"\\\n]|\\.)*)\"|`(?P<s3>(?:[^`\\$]|\\.|\$(?!\{))*)`"
        rf"|(?P<p>{_JS_PATTERN})",
        re.S,
    ),
    "perl": re.compile(
        r"(?P<c>(?<![$\\])#[^\n]*)"
        rf"|'(?P<s>(?:[^'\\]|\\.)*)'|\"(?P<s2>(?:[^\"\\@$]|\\.|{_PERL_PLAIN})*)\""
        rf"|(?P<p>{_PERL_PATTERN})"
    ),
    "ruby": re.compile(
        r"(?P<c>(?<![$?\\])#(?!\{)[^\n]*)|'(?P<s>(?:[^'\\]|\\.)*)'|\"(?P<s2>(?:[^\"\\#]|\\.|#(?!\{))*)\""
        rf"|(?P<p>{_RUBY_PATTERN})"
    ),
    "lua": re.compile(
        r"(?P<c>--\[(?P<e>=*)\[.*?\](?P=e)\]|--[^\n]*)"
        r"|'(?P<s>(?:[^'\\\n]|\\.)*)'|\"(?P<s2>(?:[^\"\\\n]|\\.)*)\"|\[(?P<e2>=*)\[(?P<s3>.*?)\](?P=e2)\]",
        re.S,
    ),
}
# What runs a string or a command whatever names it uses, in the program as written: a backquote where the language
# runs one, ruby's %x, perl's s///e or a code block in a pattern or a string, an expression perl interpolates (an
# index or a key that is not a plain word or number: `$x[readpipe]`, rev56), an escape that spells a name; the
# arguments and the files a program reads beyond its input (perl's @ARGV and ruby's ARGV, which `<>`, ARGF and gets
# open: adv56, `chomp(@ARGV=<STDIN>); print while <>` ran the response's `CMD|`; node's readFileSync of anything but
# its input: a path from the response printed the key).
_NEVER: Final = {
    "js": re.compile(
        r"`|\\u|\\x|\brequire\b(?!\s*\(\s*(['\"])(?:node:)?fs\1\s*\)\s*\.\s*readFileSync\b)"
        r"|\bprocess\b(?!\s*\.\s*(?:stdin|stdout|stderr|argv|env|exit|exitCode)\b)"
        r"|readFileSync\s*\((?!\s*(?:0|(['\"])/dev/stdin\2)\s*[,)])"
        r"|\[\^?[^\]\n]*/[^\]\n]*\]"  # (adv57) a pattern's class holding a `/` (`/[/]'/`): where the reader ends it
    ),
    "perl": re.compile(
        r"`|\(\?\??\{|\bs(\W)(?:(?!\1)[^\n])*\1(?:(?!\1)[^\n])*\1[a-z]*e|\bs\s*\{[^}]*\}\s*\{[^}]*\}[a-z]*e"
        r"|[@$*%&]\s*\{|&\s*\$|->\s*[($]|\bqx\b|\w::(?!PP\b)|@ARGV|\$ARGV\s*\[|\\[0-7xNo]"
        r"|(?:[$@]\w+|->)\s*\[[^\]\n]*[A-Za-z_($@]|(?:[$@%]\w+|->)\s*\{[^}\n]*[^\w\s}-]"
        # (adv57) quoting the reader above does not read, whose quote or `#` it would take for a string's or a
        # comment's and so hide code (`print qw#a#; system <STDIN>`): q, qq, qw, qr, m and s/tr/y with other
        # delimiters, a here-document, the data after __END__, pod
        # (rev57: not an escape's letter, `\s*` in a pattern)
        r"|(?<![\w$@%&\\])(?:q|qq|qw|qr)\s*[^\w\s=,;)]|(?<![\w$@%&\\])m\s*[^\w\s{(/=,;)]"
        r"|(?<![\w$@%&\\])(?:s|tr|y)\s*[^\w\s/#|!,{=;)\]]|<<\s*[\"'~A-Za-z_]|__(?:END|DATA)__|(?m:^=[a-z])"
    ),
    "ruby": re.compile(
        r"`|%x|#\{|\bsend\b|\bmethod\b|eval|\bKernel\b|\bObject\b|::|\bARGV\b|\$\*|\\[0-7xu]"
        r"|\brequire\b(?!\s*\(?\s*(['\"])json\1)"
        # (adv57) =begin comments and the data after __END__ (and, read in the program with its strings blanked,
        # below: the quoting the reader does not read)
        r"|(?m:^=begin)|__END__"
    ),
    "lua": re.compile(r"\\\d|\\x|\\u|\blines\s*\(\s*[^)\s]"),
}
# ... and in the program with its strings and comments blanked: an index that is not a number (a plain key in
# node: `x[k]` and `x["constr" + "uctor"]` reach what `x.constructor` does; lua's `io["open"]`), a module perl
# uses other than these (`use if 1, "re", lc "EVAL"` turned on code in patterns), perl's do, require, sub and goto,
# a lua library handed on as a value (`pairs(io)` reached io.popen, rev56).
_NEVER_BLANKED: Final = {
    # (adv57) and a string right after a `/` the reader took for a division (`if (1) /'/; CODE; /'/`: a pattern to
    # node, whose quotes hid CODE in a "string" here), or a pattern's class holding a `/` (`/[/]'/`)
    "js": re.compile(r"[\w)\]]\s*\[(?!\s*(?:\d+|\"\")\s*\])|/\s*\"\"|\"\"\s*/(?![/*])"),
    "perl": re.compile(r"\b(?:use|no)\s+(?!(?:strict|warnings|utf8|JSON::PP)\s*(?:;|$))|\b(?:do|require|sub|goto)\b"),
    "lua": re.compile(r"\[(?!\s*\d+\s*\])|\b(?:io|string|table|math)\b(?!\s*[.:])"),
    # (adv57) ruby's quoting the reader does not read, whose quote it took for a string's and so hid code (`x = ?';
    # system STDIN.read; y = ?'`: a character literal): `?` before a string or a backslash, the %-literals but
    # %r{…}, here-documents (rev57: read with the strings blanked, so `puts "100%!"` and `"a?"` are no such thing)
    "ruby": re.compile(r"\?(?:\"\"|\\)|%(?!r\{)[qQwWiIsr]?[(\[{<|!/^]|<<[~-]?(?:\"\"|[A-Za-z_])"),
}
# a name, not one after a sigil (perl's `$x`, ruby's `@x`), with the `.` before it when it is a property
_NAME: Final = re.compile(r"(\.\s*)?(?<![$@%\w])([A-Za-z_]\w*[?!]?)")
_DECLARED: Final = {
    "js": re.compile(r"\b(?:const|let|var)\s+(\w+)|\(\s*(\w+)\s*(?:,\s*(\w+)\s*)*\)\s*=>|\b(\w+)\s*=>"),
    "perl": re.compile(r"$^"),  # its own names are sigiled: `$x`, `@x`, `%x`
    "ruby": re.compile(r"\|\s*(\w+)(?:\s*,\s*(\w+))*\s*\||\b([a-z_]\w*)\s*=(?![=~])"),
    "lua": re.compile(r"\blocal\s+(\w+)|\bfor\s+(\w+)(?:\s*,\s*(\w+))?"),
}
# (ruby) a declared name called as a method (`x(…)`, `x ARG`) is the method, not the variable (adv56: `instance_eval
# = 0; instance_eval(STDIN.read)` ran the response)
_CALLED: Final = re.compile(r"\s*\(|[ \t]+(?!(?:if|unless|and|or|then|do|end|while|until|rescue)\b)[\w\"'$@:\[]")


# (rev56) node's commonest spelling, `const fs = require("fs"); … fs.readFileSync(0, "utf8")`: the name read as the
# module itself when it is used for nothing else
_FS_ALIAS: Final = re.compile(r"\b(?:const|let|var)\s+(\w+)\s*=\s*(require\s*\(\s*(['\"])(?:node:)?fs\3\s*\))")


def _fs_aliased(code: str) -> str:
    """``code`` with each name bound to require("fs") and used only as `NAME.readFileSync` spelled as the module."""
    for match in _FS_ALIAS.finditer(code):
        name, module = match.group(1), match.group(2)
        uses = [
            m.end()
            for m in re.finditer(rf"(?<![\w$.]){re.escape(name)}\b", code)
            if not match.start() <= m.start() < match.end()
        ]
        if uses and all(re.match(r"\s*\.\s*readFileSync\b", code[end:]) for end in uses):
            head = code[: match.start()] + "const " + name + " = 0"
            rest = re.sub(rf"(?<![\w$.]){re.escape(name)}(?=\s*\.\s*readFileSync\b)", module, code[match.end() :])
            return _fs_aliased(head + rest)
    return code


def _token_data_only(language: str, code: str) -> bool:
    if language == "js" and "require" in code:
        code = _fs_aliased(code)
    if _NEVER[language].search(code) is not None:
        return False
    strings: list[str] = []

    def blank(match: re.Match[str]) -> str:
        found = match.groupdict()
        if found["c"] is not None:
            return " "
        if found.get("p") is not None:
            return (found.get("k") or "") + '""'  # a pattern: its text is no names
        strings.append(next((found[g] for g in ("s", "s2", "s3") if found.get(g) is not None), ""))
        return '""'

    text = _LEXEMES[language].sub(blank, code)
    if language == "js" and any(s.strip() in _JS_DENIED for s in strings):
        return False  # `x["constructor"]`, a key spelled in a string
    if language == "perl":
        text = _PERL_KEYS.sub(r"\1{}", text)
    if _NEVER_BLANKED[language].search(text) is not None:
        return False
    declared = {name for match in _DECLARED[language].finditer(text) for name in match.groups() if name}
    declared -= _NEVER_DECLARED
    names = _TOKEN_NAMES[language]
    for match in _NAME.finditer(text):
        word = match.group(2)
        if word in names:
            continue
        if word in declared and not (language == "ruby" and _CALLED.match(text, match.end())):
            continue
        # a JavaScript object's property (`JSON.parse(d).version`): any name but those that reach code
        if language != "js" or word in _JS_DENIED or match.group(1) is None:
            return False
    return True


# Names a program may not take for its own: a builtin or global a declaration in one scope leaves reachable in
# another (adv56: python's `(lambda exec: 0)` then `exec(...)`; node's `{ let setTimeout }`, lua's `do local load`).
_NEVER_DECLARED: Final = _words(
    """eval exec system require Function import constructor setTimeout setInterval setImmediate queueMicrotask
    globalThis global module exports Reflect Proxy WebAssembly Worker process Deno Bun fetch this arguments load
    loadstring dofile os io debug package rawget rawset setmetatable getmetatable _G _ENV pcall xpcall string
    instance_eval instance_exec class_eval module_eval send public_send open spawn fork syscall binding"""
)
# The properties through which a JavaScript value reaches a function that runs code, or the module loader.
_JS_DENIED: Final = _words(
    """constructor __proto__ prototype caller callee call apply bind __defineGetter__ __defineSetter__
    __lookupGetter__ __lookupSetter__ mainModule binding _linkedBinding dlopen require main then valueOf toJSON eval
    Function import getOwnPropertyDescriptor getOwnPropertyDescriptors getPrototypeOf setPrototypeOf
    getOwnPropertyNames getOwnPropertySymbols defineProperty defineProperties getBuiltinModule"""
)
# perl: a bare hash key (`$h{v}`, `->{v}`)
_PERL_KEYS: Final = re.compile(r"((?:[$@%]\w+|->|\}))\s*\{\s*-?\w+\s*\}")


def data_only(name: str, code: str) -> bool:
    """Whether inline program ``code`` that program ``name`` runs is one of the data-only shapes (see above). A
    language without such shapes (php, tcl, R ...) never is: its programs fed from the network ask."""
    if name.startswith(("python", "pypy")):
        return _python_data_only(code)
    language = _LANGUAGES.get(name)
    return language is not None and len(code) <= 4096 and _token_data_only(language, code)
