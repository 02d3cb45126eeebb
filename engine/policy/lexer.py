"""Shell text → tokens, the way a POSIX shell (and bash) would split it.

Words keep their parts (literal text, variable references, command
substitutions) so the analyzer can resolve them; quoting is recorded, because a
dangerous word inside quotes is data, not a command. Here-document bodies are
read at the end of their line, as the shell does.

Only bash's blanks (space and tab) and metacharacters (`|&;()<>`, newline)
separate words: a carriage return, a no-break or an em space is part of a word,
so `#` after one is literal, as in bash. `#` starts a comment only at the start
of a word; inside `((...))`, an extglob group or the parenthesised part of a
`[[ =~ ]]` regex it does not. A backslash-newline joins lines outside single
quotes. All loops are iterative: nesting depth costs no stack.
"""

from __future__ import annotations

import itertools
import re
from contextvars import ContextVar
from operator import attrgetter
from time import thread_time

from engine.records import fields_repr

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Final

LIT: Final = 0  # literal text
VAR: Final = 1  # $NAME or ${NAME...}
SUB: Final = 2  # $(...), `...`, <(...), >(...)
ARITH = 3  # $((...))

MAX_LENGTH: Final = 64 * 1024
# Words and operators one check may lex in all (payloads re-lexed included): the analysis of
# each costs about the same, so this bounds the whole parse. Past it, OverBudget.
MAX_TOKENS = 1024
# Parentheses or braces nested inside one `$(...)`, `${...}` or `((...))`: the analyzer reads
# payloads only 8 levels deep, and every level would scan the text again.
MAX_NESTING = 64


# Inside double quotes: characters that are none of `"`, `\`, `$`, a backquote; runs of escapes.
_DQ_PLAIN: Final = re.compile(r'[^"\\$`]+')
_DQ_ESCAPES: Final = re.compile(r'(?:\\[$`"\\\n])+')


class ShellSyntaxError(Exception):
    """The text cannot be split the way a shell would (unbalanced quotes, ...)."""


class OverBudget(ShellSyntaxError):
    """The check has lexed more than its token budget, or run past its CPU deadline."""


class Budget:
    """What one check may still spend: tokens, and CPU time of this thread (from the first spend)."""

    __slots__ = ("_clock_at", "deadline", "seconds", "tokens")

    def __init__(self, tokens: int, seconds: float) -> None:
        self.tokens = tokens
        self.seconds = seconds
        # Set once 256 tokens are spent: the small commands nearly every check is about never
        # read the clock.
        self.deadline: float | None = None
        self._clock_at = tokens - 256

    def spend(self, tokens: int) -> None:
        self.tokens -= tokens
        if self.tokens < 0:
            raise OverBudget(f"more than {MAX_TOKENS} words and operators to read")
        if self.tokens <= self._clock_at:
            self._clock_at = self.tokens - 256
            now = thread_time()
            if self.deadline is None:
                self.deadline = now + self.seconds
            elif now > self.deadline:
                self._clock_at = self.tokens + 1
                raise OverBudget("reading it took longer than its time budget")


# The budget of the check running in this context (the evaluator sets it around a parse).
BUDGET: ContextVar[Budget | None] = ContextVar("hermes_policy_budget", default=None)


_SEG_FIELDS = ("kind", "text", "quoted")


class Seg:
    """One part of a word: its kind, its text, whether it was quoted."""

    __slots__ = _SEG_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    kind: int
    text: str
    quoted: bool

    def __init__(self, kind: int, text: str, quoted: bool = False) -> None:
        self.kind = kind
        self.text = text
        self.quoted = quoted

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_seg_fields(self) == _seg_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _SEG_FIELDS)


_seg_fields = attrgetter(*_SEG_FIELDS)


_HERE_DOC_FIELDS = ("delimiter", "strip_tabs", "body", "quoted")


class HereDoc:
    """A here-document: its delimiter, whether tabs are stripped, its body once read, whether its
    delimiter was quoted (then the body is taken as it stands; else bash joins a line ending in an
    odd run of backslashes with the next before it looks for the delimiter, and expands the body)."""

    __slots__ = _HERE_DOC_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    delimiter: str
    strip_tabs: bool
    body: str | None
    quoted: bool

    def __init__(self, delimiter: str, strip_tabs: bool, body: str | None = None, quoted: bool = True) -> None:
        self.delimiter = delimiter
        self.strip_tabs = strip_tabs
        self.body = body
        self.quoted = quoted

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_heredoc_fields(self) == _heredoc_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _HERE_DOC_FIELDS)


_heredoc_fields = attrgetter(*_HERE_DOC_FIELDS)


_TOKEN_FIELDS = ("kind", "value", "segs", "brace", "heredoc", "literal", "quoted")


class Token:
    """One token of a command line: a word, an operator or a newline."""

    __slots__ = _TOKEN_FIELDS
    __hash__: ClassVar[Any] = None  # unhashable, as a record that is not frozen

    kind: str  # "word", "op" or "nl"
    value: str  # operator text, or the word's source text
    # The word's parts; empty for a word that is one plain run (then ``literal`` holds it).
    segs: list[Seg] | tuple[()]
    brace: bool  # an unquoted {a,b} may expand
    heredoc: HereDoc | None
    # The word's text when it is plain literal text (no expansions), else None. On a redirection
    # operator: the descriptor written before it (`2>`: "2", `{fd}<`: "{fd}"), else None.
    literal: str | None
    quoted: bool  # some part of the word was quoted

    def __init__(
        self,
        kind: str,
        value: str,
        segs: list[Seg] | tuple[()] = (),
        brace: bool = False,
        heredoc: HereDoc | None = None,
        literal: str | None = None,
        quoted: bool = False,
    ) -> None:
        self.kind = kind
        self.value = value
        self.segs = segs
        self.brace = brace
        self.heredoc = heredoc
        self.literal = literal
        self.quoted = quoted

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_token_fields(self) == _token_fields(other))

    def __repr__(self) -> str:
        return fields_repr(self, _TOKEN_FIELDS)


_token_fields = attrgetter(*_TOKEN_FIELDS)


def _compound(value: str, segs: list[Seg], brace: bool = False) -> Token:
    """A word token made of parts (quotes, escapes, expansions)."""
    if len(segs) == 1:  # most such words (`'a'`, `"$x"`, `$(cmd)`): no generator to run
        only = segs[0]
        return Token("word", value, segs, brace, None, only.text if only.kind == LIT else None, only.quoted)
    literal = "".join(s.text for s in segs) if all(s.kind == LIT for s in segs) else None
    return Token("word", value, segs, brace, None, literal, any(s.quoted for s in segs))


# Longest operators first: the lexer takes the first that matches.
_OPERATORS = (
    ";;&",
    "&>>",
    "<<<",
    "<<-",
    ">>",
    "<<",
    "&&",
    "||",
    "|&",
    ";;",
    ";&",
    ">&",
    "<&",
    "&>",
    ">|",
    "<>",
    ";",
    "&",
    "|",
    "<",
    ">",
    "(",
    ")",
)
_REDIRECTS = frozenset({">>", "<<", "<<-", "<<<", "&>>", ">&", "<&", "&>", ">|", "<>", "<", ">"})
_PLAIN: Final = re.compile(r"[^ \t\n'\"\\$`;&|<>()#{}]+")
_BREAK: Final = frozenset(" \t\n;&|<>()")  # bash's blanks and metacharacters end a word
_EXTGLOB = frozenset("?*+@!")  # ?( *( +( @( !( open an extglob group
# The common tokens in one pass: blanks, newlines, comments, operators, and whole
# words of plain text (ending where the word ends) -- most words of most commands.
# The word's run is possessive: a shorter run ends before one of its own characters, where the
# lookahead (a blank, an operator, the end) cannot hold; backtracking into it only cost time.
# Each kind starts with characters of its own (an operator with _OPERATOR_FIRST): the first character names the
# kind matched (Lexer.run reads it there, not through the match's `lastgroup`).
_TOKEN: Final = re.compile(
    r"(?P<word>[^ \t\n'\"\\$`;&|<>()#{}]++(?=[ \t\n;&|)]|[<>](?!\()|\Z|(?<![?*+@!])\())|(?P<ws>[ \t]+)"
    r"|(?P<op>" + "|".join(re.escape(op) for op in _OPERATORS) + r")"
    r"|(?P<nl>\n)|(?P<comment>\#[^\n]*)"
)
_OPERATOR_FIRST: Final = frozenset(op[0] for op in _OPERATORS)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!-]")
_FD_PREFIX: Final = re.compile(r"[0-9]+$")
# `exec {fd}<<< …`: a word naming the descriptor a redirection opens (shell, session_memory, programs)
FD_NAME: Final = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
_ARRAY_HEAD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=\Z")  # `x=`, `x+=`, `x[1]=` before `(`
# A word _Lexer._word takes whole: plain runs (_PLAIN) and single-quoted strings, at most
# _SIMPLE_LENGTH characters (a longer one goes part by part, under the budget); each part.
_SIMPLE_WORD: Final = re.compile(r"(?:[^ \t\n'\"\\$`;&|<>()#{}]++|'[^']*+')++")
_SIMPLE_PIECE: Final = re.compile(r"([^ \t\n'\"\\$`;&|<>()#{}]+)|'([^']*)'")
_SIMPLE_LENGTH: Final = 256
_PLAIN_SUBSTITUTION: Final = re.compile(
    r"\$\(([^()'\"\\`#$\n{}]*)\)"
)  # `$(a b)`: what _dollar reads of it, in one match
# Inside a pattern group (_Lexer._group): runs of what it copies as it is, and of one bracket.
_GROUP_PLAIN = re.compile(r"[^()\\'\"$`]+")
_OPENING = re.compile(r"\(+")
_CLOSING = re.compile(r"\)+")
# (subst50) as bash 5.2 reads them: `\x`, `\u`, `\U` with no hex digit and `\8` keep their backslash;
# `\c\\` is one control character (its second backslash is eaten); `\c` ending the string is kept.
_ANSI_C = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c\\\\{1,2}|c.|.)", re.DOTALL)
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi_c(body: str) -> str:
    """The value of a bash $'...' string, as bash 5.2 decodes it in a UTF-8 locale (subst50: compared with a
    real bash in tests/redteam/test_subst50.py): `\\x`, `\\u`, `\\U` without a hex digit, `\\8`, `\\9` and a
    `\\c` that ends the string keep their backslash; `\\c?` is DEL, `\\cX` the control character of X's
    first byte (`\\c\\\\` eats the second backslash); a `\\U` past U+10FFFF is bytes no character holds
    (U+FFFD here), or nothing from 0x80000000 on (bash's negative value: `r$'\\UFFFFFFFF'm` is `rm`)."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        head = code[0]
        if head in "xuU":
            if len(code) == 1:
                return "\\" + code
            value = int(code[1:], 16)
            if value >= 0x80000000:
                return ""
            return chr(value) if value <= 0x10FFFF else "\ufffd"
        if head in "01234567":
            return chr(int(code, 8) & 0xFF)
        if head == "c" and len(code) >= 2:
            char = code[1]
            if char == "?":
                return "\x7f"
            if ord(char) < 0x80:
                return chr(ord(char) & 0x1F)
            first, *rest = char.encode("utf-8", "surrogatepass")
            return chr(first & 0x1F) + ("\ufffd" if rest else "")
        return _SIMPLE_ESCAPES.get(code, "\\" + code)

    return _ANSI_C.sub(one, body)


_PROMPT_ESCAPE = re.compile(r"\\([0-7]{1,3}|D\{[^}]*\}|.)", re.S)
# What bash's prompt decoding makes of `\C` (decode_prompt_string): controls, a `$` (`#` for root), nothing for
# the non-printing markers; every other letter is a text bash quotes before expanding the result (the directory,
# the user, the time ...): no code, read here as a plain letter.
_PROMPT_SIMPLE = {"a": "\a", "e": "\x1b", "n": "\n", "r": "\r", "$": "$", "\\": "\\", "[": "", "]": ""}
_PROMPT_TEXTS = frozenset("dDhHjlsStTuvVwW!#@A")


def decode_prompt(value: str) -> str:
    """(unseen50) The text bash expands for a prompt string (`${x@P}`, PS0 PS1 PS2 PS4) once its backslash escapes
    are decoded: `\\NNN` is the character with that octal code (a backquote is `\\140`, `$` is `\\044`), `\\$`
    a `$` (for anyone but root), `\\\\` one backslash. The result's substitutions run (promptvars), so
    `x='\\140CMD\\140'; echo ${x@P}` runs CMD."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0].isdigit():
            return chr(int(code, 8) & 0xFF)
        if code in _PROMPT_SIMPLE:
            return _PROMPT_SIMPLE[code]
        if code[0] in _PROMPT_TEXTS:
            return "x"
        return match.group(0)

    return _PROMPT_ESCAPE.sub(one, value)


def prompt_values(values: list[str]) -> list[str]:
    """Prompt strings as written, and as bash decodes them where that differs (see decode_prompt)."""
    decoded = [decode_prompt(value) for value in values if "\\" in value]
    return [*values, *(text for text in decoded if text not in values)]


class Lexer:
    # A word that is one `$(plain text)` is read in one C match (speed only: off in the test that
    # compares it with the loop, which must read alike).
    plain_substitutions = True

    def __init__(self, text: str) -> None:
        if len(text) > MAX_LENGTH:
            raise ShellSyntaxError(f"command is {len(text)} characters long; the limit is {MAX_LENGTH}")
        self.text = text
        self.pos = 0
        self.tokens: list[Token] = []
        self._pending: list[HereDoc] = []

    # -- top level ---------------------------------------------------------------

    def run(self) -> list[Token]:
        budget = BUDGET.get()
        if budget is not None:
            budget.spend(0)
        text = self.text
        n = len(text)
        tokens = self.tokens
        spent = 0
        append = tokens.append
        match_token = _TOKEN.match
        expect_heredoc_word = False
        conditional = False  # inside `[[ ... ]]`, where && || ( ) < > are its own operators
        regex_next = False  # the last token was `=~`: the next word is a regex
        descriptor: str | None = None  # the descriptor word just read, for the redirection after it
        pos = 0
        while pos < n:
            if budget is not None and len(tokens) - spent >= 256:
                budget.spend(len(tokens) - spent)
                spent = len(tokens)
            ch = text[pos]
            if ch == "\\" and text.startswith("\\\n", pos):
                pos += 2  # a line continuation between words joins nothing
                continue
            if regex_next and (ch == "(" or ch not in _BREAK):
                # The right side of `[[ x =~ RE ]]`: parentheses group the regex; blanks,
                # `|` and `#` inside them are part of it.
                self.pos = pos
                token = self._word(regex=True)
                pos = self.pos
            else:
                if ch == "(" and text.startswith("((", pos) and (_command_position(tokens) or _for_header(tokens)):
                    self.pos = pos
                    if self._arithmetic_command():
                        pos = self.pos
                        continue
                # One regex recognises the common tokens; anything else is a word with quotes,
                # escapes or expansions, which _word takes apart character by character.
                match = match_token(text, pos)
                if match is None or (ch in "<>" and text.startswith(("<(", ">("), pos)):
                    self.pos = pos
                    token = self._word()
                    pos = self.pos
                else:
                    start, pos = pos, match.end()
                    if ch in " \t#":
                        continue  # blanks, a comment
                    regex_next = False
                    if ch == "\n":
                        append(Token("nl", "\n"))
                        if self._pending:
                            self.pos = pos
                            self._read_heredocs()
                            pos = self.pos
                        continue
                    if ch in _OPERATOR_FIRST:
                        op = text[start:pos]
                        if conditional and op in _CONDITIONAL_OPERATORS:
                            append(Token("word", op, (), False, None, op))  # `[[ a && b ]]`: one command
                            continue
                        if descriptor is not None:
                            append(Token("op", op, (), False, None, descriptor))  # `2>`, `3<&0`, `{fd}<`
                            descriptor = None
                        else:
                            append(Token("op", op))
                        expect_heredoc_word = op in ("<<", "<<-")
                        continue
                    word = text[start:pos]
                    token = Token("word", word, (), False, None, word)
                    if word == "[[" and _command_position(tokens):
                        conditional = True
                    elif word == "]]":
                        conditional = False
            if pos < n and text[pos] == "(" and token.literal is not None and _ARRAY_HEAD.match(token.literal):
                joined = self._array_joined(token, pos)
                if joined is not None:
                    token, pos = joined, self.pos
            elif (
                pos < n
                and text[pos] == "("
                and any(c in token.value for c in "*?[")
                and not text.startswith("()", pos)
                and not _command_position(tokens)
            ):
                qualified = self._glob_qualified(token, pos)
                if qualified is not None:
                    token, pos = qualified, self.pos
            regex_next = token.literal == "=~"
            # A word made only of digits right before a redirection is its file descriptor: kept
            # as the operator's ``literal`` (`3< x`: "3"); so is a `{NAME}` one (also left a word).
            if pos < n and text[pos] in "<>" and token.literal is not None and not text.startswith(("<(", ">("), pos):
                if _FD_PREFIX.match(token.value):
                    descriptor = token.value
                    continue
                if FD_NAME.fullmatch(token.value):
                    descriptor = token.value
            if expect_heredoc_word:
                doc = HereDoc(_delimiter(token), tokens[-1].value == "<<-", None, token.quoted)
                token.heredoc = doc
                self._pending.append(doc)
                expect_heredoc_word = False
            append(token)
        self.pos = pos
        if budget is not None:
            budget.spend(len(tokens) - spent)
        if self._pending:
            raise ShellSyntaxError(f"here-document delimited by {self._pending[0].delimiter!r} is never closed")
        return tokens

    def _array_joined(self, head: Token, at: int) -> Token | None:
        """`x=(a b)#c`, `x=(a)y`: text right after an array assignment's `)` makes the whole one
        word (bash assigns the string `(a b)#c`), so the `#` there starts no comment; None for
        an array assignment (`x=(a b)` then a blank or an operator)."""
        text = self.text
        end = _balanced_end(text, at + 1, ")", comments=True)
        if end is None or end + 1 >= len(text) or text[end + 1] in _BREAK:
            return None
        self.pos = end + 1
        rest = self._word()
        inner = text[at + 1 : end]
        segs = [Seg(LIT, head.value), Seg(LIT, "(" + inner + ")")]
        segs.extend(Seg(SUB, script) for script in substitutions(inner))
        segs.extend(rest.segs)
        return _compound(head.value + text[at : self.pos], segs)

    def _glob_qualified(self, head: Token, at: int) -> Token | None:
        """(fresh41) `*.py(.e:'CMD':)`, `**/*.txt(om[1])`: a glob word with a parenthesised group right after it and
        ending the word is zsh's glob qualifier list (bash reads no command there: a syntax error), one word as
        `*(…)` is; shell._glob_qualifier_scripts reads the code it runs. Only an argument (`[() { …; }` defines a
        function named `[`); None when the group does not close or text follows it."""
        text = self.text
        end = _balanced_end(text, at + 1, ")")
        if end is None or (end + 1 < len(text) and text[end + 1] not in _BREAK):
            return None
        segs = list(head.segs) if head.segs else [Seg(LIT, head.value)]
        # (adv41b) read as an extglob group is: zsh expands `$(…)`, `` `…` `` and `$x` in the word before it globs
        # (`ls *.py($(rm -rf ~))` ran rm in zsh; one literal part hid it)
        self.pos = at
        self._group(segs)
        if self.pos != end + 1:
            self.pos = at
            return None
        return _compound(head.value + text[at : end + 1], segs)

    def _arithmetic_command(self) -> bool:
        """`(( expr ))` at the start of a command: no comments, no words, only its substitutions.

        Returns False (nothing consumed) when the parentheses close as two subshells instead.
        """
        text = self.text
        start = self.pos + 2
        end = _arithmetic_end(text, start)
        if end is None:
            return False
        # The expression rides on the operator (`literal`): a variable it names is evaluated
        # again, so `x='a[$(cmd)]'; (( x ))` runs cmd.
        self.tokens.append(Token("op", "((", literal=text[start:end]))
        for script in substitutions(text[start:end]):
            self.tokens.append(_compound(f"$({script})", [Seg(SUB, script)]))
        self.tokens.append(Token("op", "))"))
        self.pos = end + 2
        return True

    def _read_heredocs(self) -> None:
        for doc in self._pending:
            if not doc.strip_tabs and "\n" not in doc.delimiter:
                start = self.pos
                self._read_body(doc)
                body = doc.body or ""
                if doc.quoted or not (body.endswith("\\") or "\\\n" in body):
                    continue
                self.pos = start  # (adv49) a continued line: read line by line, as bash does
            lines: list[str] = []
            while True:
                line = self._body_line(doc)
                check = line.lstrip("\t") if doc.strip_tabs else line
                while not doc.quoted and _odd_backslashes(check):
                    # (adv49) `a\<newline>E`: an unquoted body's line continues on the next (its tabs kept),
                    # and the joined line is compared with the delimiter: `E` there ends nothing.
                    check = check[:-1] + self._body_line(doc)
                if check == doc.delimiter:
                    break
                lines.append(check)
            doc.body = "\n".join(lines)
        self._pending = []

    def _body_line(self, doc: HereDoc) -> str:
        """The next line of a here-document's body (its line break read past)."""
        text = self.text
        if self.pos >= len(text):
            raise ShellSyntaxError(f"here-document delimited by {doc.delimiter!r} is never closed")
        end = text.find("\n", self.pos)
        line = text[self.pos :] if end < 0 else text[self.pos : end]
        self.pos = len(text) if end < 0 else end + 1
        return line

    def _read_body(self, doc: HereDoc) -> None:
        """A `<<` body (no tabs stripped): the lines up to the first that is the delimiter, found
        by one C search for it between two line breaks (a body of thousands of lines is not
        walked line by line). ``self.pos`` is at a line's start: right after a line break."""
        text = self.text
        start = self.pos
        if start >= len(text):
            raise ShellSyntaxError(f"here-document delimited by {doc.delimiter!r} is never closed")
        marked = "\n" + doc.delimiter
        at = text.find(marked + "\n", start - 1)
        if at < 0:
            # The last line, without a line break after it (an empty one is no line: the text ended).
            if not doc.delimiter or not text.endswith(marked, start - 1):
                raise ShellSyntaxError(f"here-document delimited by {doc.delimiter!r} is never closed")
            at = len(text) - len(marked)
        doc.body = text[start : max(start, at)]
        self.pos = min(len(text), at + len(marked) + 1)

    # -- words -------------------------------------------------------------------

    def _word(self, *, regex: bool = False) -> Token:
        text = self.text
        n = len(text)
        start = self.pos
        if not regex:
            # A short word of plain runs and single-quoted strings (`'a'`, `x'y z'`), up to a blank
            # or an operator: its parts in one C pass, as the loop below would make them.
            simple = _SIMPLE_WORD.match(text, start, start + _SIMPLE_LENGTH)
            if simple is not None:
                end = simple.end()
                if end == n or (text[end] in _BREAK and text[end] != "(" and not _procsub_at(text, end)):
                    self.pos = end
                    found = _SIMPLE_PIECE.findall(text, start, end)
                    parts = [Seg(LIT, plain) if plain else Seg(LIT, inner, True) for plain, inner in found]
                    if len(parts) >= 64 and (budget := BUDGET.get()) is not None:
                        budget.spend(32 * (len(parts) // 64))  # as the loop below charges them
                    return _compound(text[start:end], parts)
            if self.plain_substitutions and text.startswith("$(", start):
                # `$(a)`: no quote, escape, comment, group or expansion inside, a word on its own.
                sub = _PLAIN_SUBSTITUTION.match(text, start, start + _SIMPLE_LENGTH)
                if sub is not None and "case" not in sub.group(1):  # `$(case x in x) …`: a pattern's `)`
                    end = sub.end()
                    if end == n or (text[end] in _BREAK and not _procsub_at(text, end)):
                        self.pos = end
                        return _compound(text[start:end], [Seg(SUB, sub.group(1))])
        segs: list[Seg] = []
        brace = False
        if text.startswith(("<(", ">("), start):
            # Process substitution: `<(cmd)` runs cmd; the word may go on after it.
            self.pos += 2
            segs.append(Seg(SUB, self._balanced(")", comments=True)))
        budget = BUDGET.get()
        charged = 0
        while self.pos < n:
            if budget is not None and len(segs) - charged >= 64:
                budget.spend(32)  # a word of many parts costs a token per two (each costs about a word to read)
                charged = len(segs)
            ch = text[self.pos]
            plain = _PLAIN.match(text, self.pos)
            if plain is not None:
                segs.append(Seg(LIT, plain.group()))
                self.pos = plain.end()
                continue
            if ch == "(" and (regex or self._opens_extglob(segs, start)):
                self._group(segs)
                continue
            if ch in _BREAK:
                if segs and _procsub_at(text, self.pos):
                    # `--file=<(cmd)`, `a>(cmd)`: bash goes on with the word (gen32)
                    self.pos += 2
                    segs.append(Seg(SUB, self._balanced(")", comments=True)))
                    continue
                break
            if ch in "{}":
                brace = True
                segs.append(Seg(LIT, ch))
                self.pos += 1
            elif ch == "#":
                segs.append(Seg(LIT, ch))  # inside a word, # is literal
                self.pos += 1
            elif ch == "\\":
                if self.pos + 1 < n and text[self.pos + 1] != "\n":  # backslash-newline joins lines
                    segs.append(Seg(LIT, text[self.pos + 1], quoted=True))
                self.pos += 2
            elif ch == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote")
                segs.append(Seg(LIT, text[self.pos + 1 : end], quoted=True))
                self.pos = end + 1
            elif ch == '"':
                self.pos += 1
                self._double_quoted(segs)
            elif ch == "`":
                self.pos += 1
                end = self._backtick_end()
                segs.append(Seg(SUB, text[self.pos : end].replace("\\`", "`")))
                self.pos = end + 1
            else:  # "$"
                self._dollar(segs, quoted=False)
        return _compound(text[start : self.pos], segs, brace)

    def _opens_extglob(self, segs: list[Seg], start: int) -> bool:
        """Whether the `(` at the current position opens `?(...)`, `*(...)` ... `!(...)`."""
        if self.pos == start or self.text[self.pos - 1] not in _EXTGLOB:
            return False
        last = segs[-1] if segs else None
        if last is None or last.kind != LIT or last.quoted:
            return False
        # `!(cmd)` at the start of a command negates a subshell (without extglob, bash's default).
        return not (self.pos - start == 1 and last.text == "!" and _command_position(self.tokens))

    def _group(self, segs: list[Seg]) -> None:
        """A parenthesised pattern group (extglob, or a `[[ =~ ]]` regex): one part of the word."""
        text = self.text
        n = len(text)
        depth = 0
        buf: list[str] = []

        def flush() -> None:
            if buf:
                segs.append(Seg(LIT, "".join(buf)))
                buf.clear()

        while self.pos < n:
            ch = text[self.pos]
            if ch in "()":
                # A run of one bracket at once (`((((...` at 16 KiB: one C match, not a step each).
                bracket = (_OPENING if ch == "(" else _CLOSING).match(text, self.pos)
                run = bracket.end() if bracket is not None else self.pos + 1
                if ch == "(":
                    depth += run - self.pos
                elif run - self.pos >= depth:
                    run = self.pos + depth  # the bracket that closes the group
                    buf.append(text[self.pos : run])
                    self.pos = run
                    flush()
                    return
                else:
                    depth -= run - self.pos
                buf.append(text[self.pos : run])
                self.pos = run
                continue
            elif ch == "\\":
                buf.append(text[self.pos : self.pos + 2])
                self.pos += 2
                continue
            elif ch == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote")
                buf.append(text[self.pos : end + 1])
                self.pos = end + 1
                continue
            elif ch in '"$`':
                flush()
                if ch == '"':
                    self.pos += 1
                    self._double_quoted(segs)
                elif ch == "`":
                    self.pos += 1
                    end = self._backtick_end()
                    segs.append(Seg(SUB, text[self.pos : end].replace("\\`", "`")))
                    self.pos = end + 1
                else:
                    self._dollar(segs, quoted=False)
                continue
            plain = _GROUP_PLAIN.match(text, self.pos)  # ch is none of the others: a run from here
            run = plain.end() if plain is not None else self.pos + 1
            buf.append(text[self.pos : run])
            self.pos = run
        raise ShellSyntaxError("unterminated pattern group '('")

    def _backtick_end(self) -> int:
        text = self.text
        i = self.pos
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "`":
                return i
            i += 1
        raise ShellSyntaxError("unterminated backquote")

    def _double_quoted(self, segs: list[Seg]) -> None:
        text = self.text
        n = len(text)
        buf: list[str] = []

        def flush() -> None:
            if buf:
                segs.append(Seg(LIT, "".join(buf), quoted=True))
                buf.clear()

        plain = _DQ_PLAIN.match
        escapes = _DQ_ESCAPES.match
        while self.pos < n:
            # Runs of ordinary characters, and of escapes, are taken whole (linear in C).
            found = plain(text, self.pos)
            if found is not None:
                buf.append(found.group())
                self.pos = found.end()
                continue
            ch = text[self.pos]
            if ch == '"':
                self.pos += 1
                flush()
                if not segs or segs[-1].kind != LIT or not segs[-1].quoted:
                    segs.append(Seg(LIT, "", quoted=True))  # "" is an empty, quoted word
                return
            if ch == "\\" and (found := escapes(text, self.pos)) is not None:
                # Each `\X` (X one of $ ` " \ newline) is X; a backslash-newline is nothing.
                unescaped = found.group()[1::2].replace("\n", "")
                if unescaped:
                    buf.append(unescaped)
                self.pos = found.end()
            elif ch == "$":
                flush()
                self._dollar(segs, quoted=True)
            elif ch == "`":
                flush()
                self.pos += 1
                end = self._backtick_end()
                segs.append(Seg(SUB, text[self.pos : end].replace("\\`", "`"), quoted=True))
                self.pos = end + 1
            else:
                buf.append(ch)
                self.pos += 1
        raise ShellSyntaxError("unterminated double quote")

    def _dollar(self, segs: list[Seg], *, quoted: bool) -> None:
        text = self.text
        if text.startswith("\\\n", self.pos + 1):
            # `$\<newline>'a'` is `$'a'`, `$\<newline>(cmd)` runs cmd: bash joins continued lines
            # before it reads what follows the `$`. The position moves to the last line break, so
            # what follows it is read as what follows the `$` (`self.pos + 1`).
            while text.startswith("\\\n", self.pos + 1):
                self.pos += 2
        nxt = text[self.pos + 1] if self.pos + 1 < len(text) else ""
        if nxt == "(":
            if text.startswith("((", self.pos + 1):
                end = _arithmetic_end(text, self.pos + 3)
                if end is not None:
                    inner = text[self.pos + 3 : end]
                    self.pos = end + 2
                    segs.append(Seg(ARITH, inner, quoted))
                    # `$(( $(cmd) ))` still runs cmd.
                    segs.extend(Seg(SUB, script, quoted) for script in substitutions(inner))
                    return
            self.pos += 2
            segs.append(Seg(SUB, self._balanced(")", comments=True), quoted))
            return
        if nxt == "[":
            end = _balanced_end(text, self.pos + 2, "]")
            if end is not None:
                # `$[ expr ]`: bash's old spelling of `$(( expr ))`
                inner = text[self.pos + 2 : end]
                self.pos = end + 1
                segs.append(Seg(ARITH, inner, quoted))
                segs.extend(Seg(SUB, script, quoted) for script in substitutions(inner))
                return
        if nxt == "{":
            self.pos += 2
            inner = self._balanced("}")
            name = _NAME.match(inner.lstrip("!#"))
            # `${x}`, `${#x}`: the name; with an operator (`${x:-rm}`, `${x/ls/rm}`, `${!x}`) the
            # whole text, for the analyzer to expand or to take as known only at run time.
            plain = name is not None and (inner in (name.group(), "#" + name.group()) or inner == "#")
            segs.append(Seg(VAR, name.group() if plain and name else inner, quoted))
            # `${x:-$(cmd)}`, `${x:-<(cmd)}` (unquoted: no process substitution between double quotes) still run cmd.
            segs.extend(Seg(SUB, script, quoted) for script in substitutions(inner, process=not quoted))
            return
        if nxt == "'" and not quoted:
            end = self.pos + 2
            while end < len(text) and text[end] != "'":
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise ShellSyntaxError("unterminated $'...' string")
            # A NUL ends a C string: bash keeps what comes before it (`re$'\0x'boot` is `reboot`).
            segs.append(Seg(LIT, decode_ansi_c(text[self.pos + 2 : end]).split("\0", 1)[0], quoted=True))
            self.pos = end + 1
            return
        if nxt == '"' and not quoted:
            self.pos += 1  # $"..." is a translated string: a double-quoted one here
            return
        name = _NAME.match(text, self.pos + 1)
        if name is None:
            segs.append(Seg(LIT, "$", quoted))
            self.pos += 1
            return
        segs.append(Seg(VAR, name.group(), quoted))
        self.pos = name.end()

    def _balanced(self, closer: str, *, comments: bool = False) -> str:
        """Text up to the matching closer, skipping quotes and nested groups.

        With ``comments`` (the body of `$(...)`, a script), `#` at the start of a word
        comments out the rest of its line, closer included, as bash reads it.
        """
        end = _balanced_end(self.text, self.pos, closer, comments=comments)
        if end is None:
            raise ShellSyntaxError(f"unterminated {'$(' if closer == ')' else '${'}")
        start = self.pos
        self.pos = end + 1
        return self.text[start:end]


def _procsub_at(text: str, at: int) -> bool:
    """A process substitution (`<(` or `>(`) starts at ``at``."""
    return text.startswith(("<(", ">("), at)


def _for_header(tokens: list[Token]) -> bool:
    """Whether the next `((` opens `for (( init; test; step ))`: arithmetic, as `(( … ))` is."""
    return bool(tokens) and tokens[-1].literal == "for" and _command_position(tokens, 2)


def _command_position(tokens: list[Token], back: int = 1) -> bool:
    """Whether the next word would start a command (``back``: the word ``back - 1`` tokens before it)."""
    previous = tokens[-back] if len(tokens) >= back else None
    if previous is None or previous.kind == "nl":
        return True
    if previous.kind == "op":
        return previous.value not in _REDIRECTS
    return previous.literal in _COMMAND_STARTERS


_CONDITIONAL_OPERATORS: Final = frozenset({"&&", "||", "(", ")", "<", ">"})
_COMMAND_STARTERS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time"})


def _balanced_end(text: str, start: int, closer: str, *, comments: bool = False) -> int | None:
    """Index of the closer matching an opener just before ``start``, or None."""
    opener = "(" if closer == ")" else "[" if closer == "]" else "{"
    depth = 1
    cases: list[int] = []  # the depth each open `case` statement is at
    budget = BUDGET.get()
    steps = 0
    i = start
    n = len(text)
    while i < n:
        steps += 1
        if steps >= 256 and budget is not None:
            budget.spend(64)  # a long scan (its words are lexed again when read) costs tokens too
            steps = 0
        ch = text[i]
        if ch not in _BALANCE_STOPS:
            # a run of characters that open, close or quote nothing: one C match (a word of them
            # is looked at only for `case`/`esac` starting it)
            run = _BALANCE_RUN.match(text, i)
            if run is not None:
                if comments and ch in "ce" and (i == start or text[i - 1] in _BREAK):
                    keyword = _CASE_WORD.match(text, i)
                    if keyword is not None:
                        if keyword.group() == "case" and _opens_command(text, start, i):
                            cases.append(depth)
                        elif keyword.group() == "esac" and cases and cases[-1] == depth:
                            cases.pop()
                i = run.end()
                continue
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            i = end + 1
            continue
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if comments and ch == "$" and i + 1 < n and text[i + 1] in "{'":
            if text[i + 1] == "{":
                # `${x:- # text}`: one expansion, its `#` and `)` are no comment and no closer
                braced = _balanced_end(text, i + 2, "}")
                if braced is None:
                    return None
                i = braced + 1
                continue
            i += 2  # `$'it\'s'`: a C string, where `\'` is a quote
            while i < n and text[i] != "'":
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if ch == "#" and comments and (i == start or text[i - 1] in _BREAK):
            end = text.find("\n", i)
            if end < 0:
                return None
            i = end
            continue
        if ch == opener:
            depth += 1
            if depth > MAX_NESTING:
                raise OverBudget(f"groups nested more than {MAX_NESTING} deep")
        elif ch == closer:
            if cases and cases[-1] == depth and opener == "(":
                i += 1  # `case w in x) ...;; esac`: a pattern's `)` closes nothing
                continue
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


# What _balanced_end looks at one by one (quotes, escapes, `$`, `#`, brackets, blanks and
# operators: a word starts after them); the rest it skips in runs.
_BALANCE_STOPS = frozenset("\\'\"$#(){}[] \t\n;&|<>")
_BALANCE_RUN = re.compile(r"[^\\'\"$#(){}\[\] \t\n;&|<>]+")
# `case` and `esac` as words of their own (what _balanced_end tracks inside a substitution)
_CASE_WORD = re.compile(r"(?:case|esac)(?=[ \t\n;&|<>()]|\Z)")


def _opens_command(text: str, start: int, at: int) -> bool:
    """Whether the word at ``at`` starts a command: only blanks since ``start`` or since a `;`,
    `&`, `|`, `(` or a line break, or a keyword that itself starts one before it (`then case`,
    `do case`); `$(echo case)` and `$(printf then case)` have no case statement."""
    i = at - 1
    while True:
        while i >= start and text[i] in " \t":
            i -= 1
        if i < start or text[i] in ";&|(\n":
            return True
        for keyword in _STARTERS_BEFORE:
            begins = i + 1 - len(keyword)
            if text.endswith(keyword, start, i + 1) and (begins == start or text[begins - 1] in " \t\n;&|("):
                i = begins - 1  # the keyword's own place must start a command
                break
        else:
            return False


# keywords after which a command starts (`then case ...`)
_STARTERS_BEFORE = ("do", "then", "else", "{", "!")


def _arithmetic_end(text: str, start: int) -> int | None:
    """Index of the `))` closing `((` (or `$((`) just before ``start``; None if it closes as `) )`."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "'\"":
            end = text.find(ch, i + 1)
            if end < 0:
                return None
            i = end + 1
            continue
        if ch == "(":
            depth += 1
            if depth > MAX_NESTING:
                raise OverBudget(f"groups nested more than {MAX_NESTING} deep")
        elif ch == ")":
            if depth == 0:
                return i if text.startswith("))", i) else None
            depth -= 1
        i += 1
    return None


_SUBSTITUTION_STOP = re.compile(r"[\\`$]")
_SUBSTITUTION_STOP_PROCESS = re.compile(r"[\\`$<>]")


def _odd_backslashes(line: str) -> bool:
    """Whether ``line`` ends in an odd run of backslashes (a continued line)."""
    run = len(line) - len(line.rstrip("\\"))
    return run % 2 == 1


def _delimiter(token: Token) -> str:
    """A here-document's delimiter as bash reads it: the word with its quotes removed and nothing expanded
    (`$E`, `${E}`, `$(E)`, a backquote are their own text: adv49). A word holding an expansion and a quote
    or backslash (`"$E"`, `${x:-'a'}`) is not read for certain (bash keeps some quotes and removes others):
    a ShellSyntaxError."""
    if token.literal is not None and not token.segs:
        return token.literal
    if all(seg.kind == LIT for seg in token.segs):
        return "".join(seg.text for seg in token.segs)
    if any(c in token.value for c in "'\"\\"):
        raise ShellSyntaxError(f"a here-document delimiter nobody can read for certain: {token.value!r}")
    return token.value


_BODY_STOP: Final = re.compile(r"[\\$]")
_BODY_NAME: Final = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def heredoc_text(
    body: str,
    value: Callable[[str], str | None] | None = None,
    expansion: Callable[[list[Seg]], str | None] | None = None,
) -> str:
    """What a command reads from an unquoted here-document ``body`` (its lines joined already), as a
    reader of it sees the text: bash removes the backslash of `\\$`, `\\``, `\\\\` (`rm -rf \\$HOME` gives a
    shell `rm -rf $HOME`: adv49); its expansions are left for the reader, which expands them the same way,
    and a backslash that bash leaves right before an expansion (`\\\\$HOME`: it only quotes the value's first
    character) is dropped. A `$NAME` / `${NAME}` that ``value`` knows is its text: bash pastes the value into
    the body, where a reader parses it (`x=';'` and `echo a$x rm -rf ~` give a shell `echo a; rm -rf ~`).
    An expansion with an operator or arithmetic (`${x#a}`, `${x:-a}`, `$((n+1))`: subst50) that ``expansion``
    computes (from its parts, as _dollar reads them) is its value too: no reader but a shell expands it, and a
    shell pastes the value just the same."""
    if "\\" not in body and ((value is None and expansion is None) or "$" not in body):
        return body
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        stop = _BODY_STOP.search(body, i)
        if stop is None:
            out.append(body[i:])
            break
        at = stop.start()
        out.append(body[i:at])
        if body[at] == "$":
            named = _BODY_NAME.match(body, at) if value is not None else None
            known = value(named.group(1) or named.group(2)) if value is not None and named is not None else None
            if named is not None and known is not None:
                out.append(known)
                i = named.end()
                continue
            if named is None and expansion is not None and body[at + 1 : at + 2] in ("{", "(", "["):
                computed = _computed_expansion(body, at, expansion)
                if computed is not None:
                    out.append(computed[0])
                    i = computed[1]
                    continue
            out.append("$")
            i = at + 1
            continue
        if at + 1 >= n:
            out.append("\\")
            break
        nxt = body[at + 1]
        if nxt in "$`":
            out.append(nxt)
        elif nxt == "\\":
            if body[at + 2 : at + 3] not in ("$", "`"):
                out.append("\\")
        else:
            out.append(body[at : at + 2])
        i = at + 2
    return "".join(out)


def _computed_expansion(body: str, at: int, expansion: Callable[[list[Seg]], str | None]) -> tuple[str, int] | None:
    """The value ``expansion`` computes for the parameter or arithmetic expansion at ``at`` of a here-document
    ``body``, and where it ends; None for a command substitution, one that runs a command, or one not known."""
    lexer = Lexer(body)
    lexer.pos = at
    segs: list[Seg] = []
    try:
        lexer._dollar(segs, quoted=True)
    except ShellSyntaxError:
        return None
    if len(segs) != 1 or segs[0].kind not in (VAR, ARITH):
        return None
    known = expansion(segs)
    return None if known is None else (known, lexer.pos)


def body_expansions(body: str) -> list[Seg]:
    """The parameter and arithmetic expansions of an unquoted here-document ``body`` (bash expands it as
    a double-quoted word in which `"` is a character): `${a[x]}`, `${!x}`, `${s:x}`, `$((x))`, `$[x]`,
    each a VAR or ARITH part (quoted). Its command substitutions are the caller's (see substitutions).
    A body nobody can read for certain (an unbalanced `${`) is a ShellSyntaxError."""
    lexer = Lexer(body)
    segs: list[Seg] = []
    at = body.find("$")
    while at != -1:
        if body[at + 1 : at + 2] in ("{", "(", "[") and _unescaped(body, at):
            lexer.pos = at
            lexer._dollar(segs, quoted=True)
            at = body.find("$", max(lexer.pos, at + 1))
        else:
            at = body.find("$", at + 1)
    return [seg for seg in segs if seg.kind in (VAR, ARITH)]


def _unescaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` follows no backslash, or an even run of them (`\\\\${x}` expands)."""
    run = 0
    while at - run - 1 >= 0 and text[at - run - 1] == "\\":
        run += 1
    return run % 2 == 0


def substitutions(text: str, process: bool = False) -> list[str]:
    """The command substitutions (`$(...)`, backquotes) inside a parameter or arithmetic expansion.

    Single quotes do not hide one: in arithmetic (`$(( '$(cmd)' ))`, `(( … ))`, a subscript) and
    in a double-quoted expansion's word (`"${x:-'$(cmd)'}"`) bash keeps them as characters and
    runs cmd. Where they do quote (`${x:-'$(cmd)'}` unquoted) cmd is judged all the same.

    With ``process`` (a parameter expansion's word, not arithmetic: `$((a<(b)))` compares), a process
    substitution too: `${x:-<(cmd)}` runs cmd (fresh37a)."""
    out: list[str] = []
    i = 0
    n = len(text)
    stops = _SUBSTITUTION_STOP_PROCESS if process else _SUBSTITUTION_STOP
    while i < n:
        stop = stops.search(text, i)  # what is not `\\`, a backquote or `$` (`<`, `>`) is skipped
        if stop is None:
            break
        i = stop.start()
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == "`":
            close = text.find("`", i + 1)
            if close < 0:
                break
            out.append(text[i + 1 : close])
            i = close + 1
        elif (ch == "$" and text.startswith("$(", i) and not text.startswith("$((", i)) or (
            ch != "$" and text.startswith("(", i + 1)
        ):
            found = _balanced_end(text, i + 2, ")", comments=True)
            if found is None:
                break
            out.append(text[i + 2 : found])
            i = found + 1
        else:
            i += 1
    return out


# A line of plain words joined by list and pipe operators only (no quotes, expansions,
# redirections, groups or comments): most commands an agent runs. Its tokens are the
# regex's pieces, and the full lexer would produce the same ones.
# Possessive and atomic throughout: a word or an operator run is never split another way,
# so a line that is not plain fails in linear time.
_WORD_CHARS = r"[^ \t\n'\"\\$`;&|<>()#{}]++"
_LIST_OPS = "|".join(re.escape(op) for op in _OPERATORS if op not in _REDIRECTS and op not in "()")
_PLAIN_LINE = re.compile(rf"[ \t]*+(?:(?>{_WORD_CHARS}|{_LIST_OPS})[ \t]*+)*+")
# The same lines, found by a search for one character outside them (a charset scan in C, not a
# match of every word): each of `;`, `&` and `|` alone is a list operator, so any run of the three
# is list operators, and every other character is a word's or a blank. The test suite checks the
# two agree (test_policy_differential).
_NOT_PLAIN_LINE: Final = re.compile(r"[\n'\"\\$`<>()#{}]")
_PLAIN_PIECE: Final = re.compile(rf"{_WORD_CHARS}|{_LIST_OPS}")
_LIST_OP_SET: Final = frozenset(op for op in _OPERATORS if op not in _REDIRECTS and op not in "()")

# Tokens the Lexer certainly makes one each of, the same whatever follows them and whatever
# came before (see _over_budget): a word of plain runs (`#` not first), single-quoted strings,
# double-quoted ones without `\`, `$` or a backquote, `$NAME` and `$(...)` of plain text, ending at
# a blank, a newline or `;&|`; an operator but `(`, `)` and the here-document ones (`<(`, `>(`
# excluded too); a newline (no here-document is pending). Atomic throughout: linear, also when it fails.
_AHEAD_WORD = (
    r"(?!\#)(?:[^ \t\n'\"\\$`;&|<>(){}]++|'[^']*+'|\"[^\"\\$`]*+\"|\$\((?![^()]*case)[^()'\"\\`#$]*+\)"
    r"|\$[A-Za-z_][A-Za-z0-9_]*+)++"
    r"(?=[ \t\n;&|]|\Z)"
)
_AHEAD_OPS = "|".join(re.escape(op) for op in _OPERATORS if op not in ("(", ")", "<<", "<<-"))
_AHEAD_TOKEN = rf"(?>[ \t]*+(?:{_AHEAD_WORD}|(?!<<(?!<)|[<>]\()(?:{_AHEAD_OPS})|\n))"
_AHEAD: dict[int, re.Pattern[str]] = {}
# Whether tokenize looks ahead for a text past the budget (off in the differential test's reference).
LOOK_AHEAD = True
_AHEAD_FIRST: Final = 8  # characters a token left in the budget past which the look-ahead goes first


def _over_budget(text: str, count: int) -> bool:
    """Whether ``text`` starts with ``count`` tokens the Lexer certainly reads one each of (one C
    match): then lexing it spends ``count`` tokens before any error it could raise."""
    pattern = _AHEAD.get(count)
    if pattern is None:
        pattern = _AHEAD[count] = re.compile(rf"(?>{_AHEAD_TOKEN}{{{count}}})")
    return pattern.match(text) is not None


def tokenize(text: str) -> list[Token]:
    """Raises:
    ShellSyntaxError: the text is not something a shell could run as written.
    """
    budget = BUDGET.get()
    looked = False  # the look-ahead below ran (and found fewer tokens)
    if budget is not None:
        # A budget another reading of the same check spent: stop before reading this one at all
        # (the fast path's full match alone is milliseconds at 64 KiB).
        budget.spend(0)
        if LOOK_AHEAD:
            # The Lexer spends its tokens 256 at a time; the spend that leaves the budget below zero
            # raises. When the text starts with that many tokens of the plainest kinds, it raises
            # OverBudget once it has read them: said at once (lexing 1,280 quoted words or
            # substitutions costs milliseconds, and its tokens are never read). Before the fast path
            # too: it raises the same for a plain line past the budget, after a full match of it
            # (~0.6 ms at 64 KiB, where this match reads the first ~1,280 tokens). Only in a text long
            # enough for it (_AHEAD_FIRST characters a token): in a shorter one the match that fails
            # reads it all, and the fast path a second time (the Lexer's path below asks again).
            past = (budget.tokens // 256 + 1) * 256
            looked = len(text) >= _AHEAD_FIRST * past
            if looked and _over_budget(text, past):
                budget.spend(past)
    # `=~` makes the next word a regex to the full lexer (its pieces are kept apart).
    if len(text) <= MAX_LENGTH and text.isascii() and "=~" not in text and _NOT_PLAIN_LINE.search(text) is None:
        if budget is not None and len(text) > budget.tokens:
            # More characters than tokens left: read one past the budget at most (spend raises).
            pieces = [m.group() for m in itertools.islice(_PLAIN_PIECE.finditer(text), max(budget.tokens, 0) + 1)]
        else:
            pieces = _PLAIN_PIECE.findall(text)
        if budget is not None:
            budget.spend(len(pieces))
        return [
            Token("op", piece) if piece in _LIST_OP_SET else Token("word", piece, (), False, None, piece)
            for piece in pieces
        ]
    if budget is not None and LOOK_AHEAD and not looked:
        # The same, for a text the fast path does not read (quoted words, substitutions: lexing 1,280
        # of them costs milliseconds, and their tokens are never read).
        past = (budget.tokens // 256 + 1) * 256
        if len(text) >= past and _over_budget(text, past):
            budget.spend(past)
    return Lexer(text).run()


REDIRECT_OPS: Final = _REDIRECTS


# Brace expansion: at most this many words, groups nested at most this deep, and a bound on
# the scanning (past any, the word is reported incomplete, and the analyzer treats it as only
# known at run time).
MAX_EXPANSIONS = 64
MAX_BRACE_DEPTH = 16
MAX_BRACE_GROUPS = 64  # per word and level
_MAX_BRACE_STEPS = 2048
_BRACES = re.compile(r"[{},]")
_BRACES_ONLY = re.compile(r"[{}]")


class _Steps:
    __slots__ = ("steps",)

    def __init__(self, steps: int) -> None:
        self.steps = steps


def expand_braces(text: str) -> tuple[list[str], bool]:
    """The words bash's brace expansion makes of ``text`` (`a{b,c}d` → abd acd), in bash's order.

    As bash reads a group: from an opening brace, the first closing brace at the same level
    after a comma at that level closes it (`{a}b,c}` is one group of `a}b` and `c`); a brace
    that never closes is literal. Returns (words, complete): ``complete`` is False when a
    limit cut the expansion short.
    """
    if "{" not in text or "}" not in text or ("," not in text and ".." not in text):
        return [text], True
    budget = _Steps(_MAX_BRACE_STEPS)
    return _expand(text, 0, len(text), 0, budget)


def _expand(text: str, lo: int, hi: int, depth: int, budget: _Steps) -> tuple[list[str], bool]:
    parts: list[list[str]] = []
    complete = True
    literal = pos = origin = lo  # origin: where bash starts reading the rest as a new word
    groups = 0
    while True:
        start = text.find("{", pos, hi)
        if start < 0:
            break
        pos = start + 1
        if start == origin and text.startswith("{}", start):
            continue  # bash ignores a `{}` that starts a word (find -exec ... {} ;)
        if depth >= MAX_BRACE_DEPTH:
            return [text[lo:hi]], False
        sequence = _SEQUENCE.match(text, start, hi)
        words = _sequence_words(sequence) if sequence is not None else None
        if sequence is not None and words is not None:
            # `{a..c}`, `{1..10..2}`, `{01..3}`: a sequence expression (redt34: `cat ~/.{r..t}sh/id_*`
            # was read as a folder of that literal name). One of more than MAX_EXPANSIONS numbers
            # (`{1..100}`) stays a word: numbers alone name no credential or home folder.
            groups += 1
            if groups > MAX_BRACE_GROUPS:
                return [text[lo:hi]], False
            if start > literal:
                parts.append([text[literal:start]])
            parts.append(words)
            literal = pos = origin = sequence.end()
            continue
        found = _group_end(text, start, hi, budget)
        if budget.steps < 0:
            return [text[lo:hi]], False
        if found is None:
            origin = pos
            continue  # never closed: a literal brace
        close, commas = found
        groups += 1
        if groups > MAX_BRACE_GROUPS:
            return [text[lo:hi]], False
        if start > literal:
            parts.append([text[literal:start]])
        alternatives: list[str] = []
        bounds = [start, *commas, close]
        for left, right in itertools.pairwise(bounds):
            words, done = _expand(text, left + 1, right, depth + 1, budget)
            complete = complete and done
            alternatives.extend(words[: MAX_EXPANSIONS - len(alternatives)])
            if len(alternatives) >= MAX_EXPANSIONS and right != close:
                complete = False
                break
        parts.append(alternatives)
        literal = pos = origin = close + 1
    if literal < hi:
        parts.append([text[literal:hi]])
    # Bash's order varies the last group fastest: the first words take the first alternative
    # of every group but the last few, which are folded into one fixed prefix.
    total = 1
    varying = len(parts)
    while varying > 0 and total * len(parts[varying - 1]) <= MAX_EXPANSIONS:
        varying -= 1
        total *= len(parts[varying])
    if varying > 0:
        complete = False
        varying -= 1  # the part that overflows still varies, cut short by islice
    fixed = "".join(options[0] for options in parts[:varying])
    combinations = itertools.islice(itertools.product(*parts[varying:]), MAX_EXPANSIONS)
    return [fixed + "".join(chosen) for chosen in combinations], complete


# bash's sequence expression: two integers or two letters, and an optional increment
_SEQUENCE = re.compile(r"\{(?:(-?\d+)\.\.(-?\d+)|([A-Za-z])\.\.([A-Za-z]))(?:\.\.(-?\d+))?\}")


def _sequence_words(found: re.Match[str]) -> list[str] | None:
    """The words of a sequence expression, as bash makes them (zero-padded when an end is); None for
    more than MAX_EXPANSIONS numbers (letters are at most 58)."""
    step = abs(int(found.group(5) or "1")) or 1
    if found.group(1) is not None:
        first, last = int(found.group(1)), int(found.group(2))
        if abs(last - first) // step + 1 > MAX_EXPANSIONS:
            return None
        values = range(first, last + 1, step) if first <= last else range(first, last - 1, -step)
        ends = (found.group(1), found.group(2))
        padded = any(len(e.lstrip("-")) > 1 and e.lstrip("-").startswith("0") for e in ends)
        width = max(len(e) for e in ends) if padded else 0
        return [f"{v:0{width}d}" if width else str(v) for v in values]
    low, high = ord(found.group(3)), ord(found.group(4))
    if abs(high - low) // step + 1 > MAX_EXPANSIONS:
        return None
    codes = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
    return [chr(c) for c in codes]


def _group_end(text: str, start: int, hi: int, budget: _Steps) -> tuple[int, list[int]] | None:
    """The closing brace and top-level commas of the group opened at ``start``, if it closes."""
    level = 0
    commas: list[int] = []
    pattern = _BRACES
    pos = start + 1
    while True:
        match = pattern.search(text, pos, hi)
        budget.steps -= 1
        if match is None or budget.steps < 0:
            return None
        pos = match.end()
        ch = match.group()
        if pos == start + 2 and ch == "}":
            continue  # a closing brace right after the opening one is a literal (`{}`)
        if ch == "{":
            level += 1
        elif ch == "}":
            if level:
                level -= 1
            elif commas:
                return match.start(), commas
        elif level == 0:
            commas.append(match.start())
            if len(commas) > MAX_EXPANSIONS:
                pattern = _BRACES_ONLY  # more alternatives than are kept: only the close matters
