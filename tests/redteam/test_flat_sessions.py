"""Long files a session wrote and a command runs (a vimrc under `vim -u`): read in one pass for the
lines that may run something, then line by line (executors._EX_INERT). The prefilter drops only lines
no reader finds a payload in: the payloads, and the verdicts, are those of reading every line."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bench.bench_adversarial import SessionChecks, _vimrc
from engine.policy import executors

# Lines that open like an inert one (`let`, `set`, a mapping ...) and still run or write something,
# and lines the body patterns read; each must be read as it was.
TRICKY = [
    "let g:a = 1",
    "let x = system('rm -rf ~')",
    'let x=systemlist("id")',
    "set logging file /tmp/x",
    "set history filename ~/.bashrc",
    "set\tlogging file f",
    "set number | !rm -rf ~",
    "set nonumber|sh",
    "nnoremap x :!rm -rf ~<CR>",
    "nmap <F5> :w !sh<CR>",
    "let a = 1 | sh",
    "if 1 | call system('x') | endif",
    "let j = jobstart('sh')",
    "let t = termopen('x')",
    "return system('x')",
    "setlocal x",
    "letx",
    "let! x",
    ":let a=1",
    "  :5let a",
    "  :%set a",
    "hi Normal",
    "highlight! x",
    "map x y",
    "syntax on",
    "filetype on",
    "colorscheme x|sh",
    "else | !x",
    "\tlet a | w f",
    "\rsh",
    "sh",
    "shell",
    "so x.vim",
    "source! x.vim",
    "w /etc/x",
    "wq x",
    "x y",
    "up f",
    "sav f",
    "redir > f",
    "mksession f",
    "py3 import os",
    "lua os.execute('x')",
    "pi x",
    "au VimEnter * sh",
    "autocmd BufRead * so x",
    "au! g BufRead * ++once !x",
    "exe 'sh'",
    'exe "!rm -rf ~"',
    '"sh"',
    "'sh'",
    '" a comment',
    "silent! !x",
    "sil exe '!x'",
    "dump memory f 0 1",
    "append value f x",
    "gcore f",
    "generate-core-file f",
    "save breakpoints f",
    "platform shell x",
    "term",
    "terminal x",
    "pipe x",
    "perl x",
    "ruby x",
    "tcl x",
    "guile x",
    "script x",
    "python-interactive",
    "luado x",
    "endif",
    "elseif x",
    "return",
    "endfunction",
    "unlet x",
    "set-x",
    "let-x = 1 | sh",
    "",
]


def test_the_prefilter_keeps_every_payload() -> None:
    rng = random.Random(30)
    texts = ["\n".join(TRICKY), "\n".join(TRICKY) + "\n", "\r\n".join(TRICKY), *TRICKY]
    words = ["let", "set", "nnoremap", "sh", "w", "|", "!", "x", "'", '"', ":", " ", "\t", "system(", "au", "so"]
    for _ in range(300):
        lines = rng.sample(TRICKY, 8)
        lines += ["".join(rng.choice(words) for _ in range(rng.randrange(1, 8))) for _ in range(8)]
        rng.shuffle(lines)
        texts.append("\n".join(lines))
    for text in texts:
        assert executors.ex_payloads(text) == executors._ex_payloads_of_lines(text), text
    assert executors.ex_payloads("\n".join(TRICKY))  # (the list holds lines that run something)


@pytest.fixture(scope="module")
def sessions() -> Iterator[SessionChecks]:
    checks = SessionChecks()
    yield checks
    checks.close()


@pytest.mark.parametrize(
    "line",
    ["nnoremap <leader>x :!rm -rf ~<CR>", "let g:a = 1 | !rm -rf ~", "exe '!rm -rf ~'", "autocmd VimEnter * !rm -rf ~"],
)
def test_a_harmful_line_in_a_long_vimrc_is_found(sessions: SessionChecks, line: str) -> None:
    # The bench's 64 KiB vimrc (~2,500 lines the prefilter drops) with one line that runs a command
    # in its middle: judged as the line alone is.
    text = _vimrc(60 * 1024)
    middle = text.find("\n", len(text) // 2) + 1
    command = "vim -u vimrc -c q"
    alone = sessions.prepared({"vimrc": line + "\n"}, command)(command)
    long = sessions.prepared({"vimrc": text[:middle] + line + "\n" + text[middle:]}, command)(command)
    assert (long.decision, long.hardline) == (alone.decision, alone.hardline)  # type: ignore[attr-defined]
    # (a mapping's `:!CMD` runs only when its key is pressed: judged alike, allowed alone as well)
    assert long.decision != "allow" or line.startswith("nnoremap")  # type: ignore[attr-defined]
    assert sessions.prepared({"vimrc": text}, command)(command).decision == "allow"  # type: ignore[attr-defined]


# -- a long text's compatibility reading folds only its non-ASCII runs (normalize._folded) -----------

# Characters NFKC changes or composes (fullwidth, ligatures, a Kelvin sign, combining marks that
# compose with the ASCII letter before them, Hangul jamo that compose with each other), invisible ones
# the reading strips (some between a letter and its mark), and ones it leaves alone.
_WIDE = [
    "ｒ",
    "ｍ",
    "ﬁ",
    "K",
    "\u0301",
    "\u0327",
    "\u200b",
    "\u00ad",
    "\ufeff",
    "\u1100",
    "\u1161",
    "\u11a8",
    "é",
    "м",
    "–",
    "①",
    "\u3000",
]


@pytest.mark.parametrize("seed", range(4))
def test_a_long_texts_folded_reading_is_the_whole_texts(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.policy import normalize

    rng = random.Random(seed)
    ascii_words = ["rm a1; ", "e", "x", " ", "\n", "-rf ~", "c"]
    texts = []
    for runs in (1, 2, 5, normalize._FEW_RUNS, normalize._FEW_RUNS + 1, 300):
        words = [rng.choice(ascii_words) for _ in range(4000)]
        for _ in range(runs):
            words.insert(rng.randrange(len(words)), "".join(rng.choice(_WIDE) for _ in range(rng.randrange(1, 4))))
        texts.append("".join(words))
    # a run across each halving point of the text, and one at its start and at its end
    plain = "rm a1; " * 1200
    for at in (0, 1, len(plain) // 2 - 1, len(plain) // 2, len(plain) // 4, len(plain) - 1, len(plain)):
        texts.append(plain[:at] + "e\u200b\u0301ｒ" + plain[at:])
    for text in texts:
        assert normalize._folded(text) == normalize._folded_whole(text)
    folded = [normalize.readings(text) for text in texts]
    monkeypatch.setattr(normalize, "_folded", normalize._folded_whole)
    assert folded == [normalize.readings(text) for text in texts]
