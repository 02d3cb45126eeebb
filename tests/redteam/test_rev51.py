"""rev51 (stop 51, issue 8): review of stop 51's merge (xf51, subst51, home51, disk51, unseen51, adv51, sess51,
debt51) and the defects the review and this stop's helpers found.

1. adv51 read a C source and a roff document (languages cpp, roff) for their includes, but through the whole
   inline-code reading: a C source's `system("rm -rf ~")` was read as a command the compiler runs, so
   `gcc -O2 -Wall -o app x.c` of an ordinary program was DENY (hardline), and a roff page quoting a command was
   read as running it. Compiling or formatting a document runs none of its text: a document language is read for
   the files it puts into the output only (inline.build_includes), the include payloads stay not allowed.
2. link50 read a clone as writing unseen names into the working folder as well as into its DIR (git is an unpacker
   of its own folder: `git pull`), so `git clone https://example.org/r r && rm -rf build/` read build/ as a link
   to the home: DENY. An unpacker that names its destination (`git clone URL DIR`, `tar -C D`, `unzip -d D`)
   writes there only; the names below that destination are still read as links (payloads below).
Open: see the strict xfails below (none when the module has none).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, policy_project, validated_policy, verdict_cases

RM = "rm -rf ~"
C_RUNS = f'#include <stdlib.h>\nint main(void) {{ return system("{RM}"); }}\n'
C_KEY = '#include "$HOME/.ssh/id_ed25519"\nint main(void) { return 0; }\n'
ROFF_QUOTES = f'.TH X 1\n.SH EXAMPLE\nsystem("{RM}")\n'

PAYLOADS: dict[str, Case] = {
    "cpp of a written include of the key": ({"x.c": C_KEY}, "cpp x.c"),
    "gcc -E of a written include of the key": ({"x.c": C_KEY}, "gcc -E x.c"),
    "roff .so of the key": ({"x.ms": ".so $HOME/.ssh/id_ed25519\n"}, "groff -Tascii -ms x.ms"),
    "below a clone's DIR": ({}, "git clone https://example.org/r r && rm -rf r/h/"),
    "below a clone moved by -C": ({}, "git -C sub clone https://example.org/r r && rm -rf sub/r/h/"),
    "below tar -C's folder": ({"a.tar": "x"}, "tar xf a.tar -C out && rm -rf out/h/"),
    "below a clone with no DIR, in the working folder": ({}, "git clone https://example.org/r && rm -rf r/h/"),
}

NEAR_MISSES: dict[str, Case] = {
    "gcc of a program that calls system()": ({"x.c": C_RUNS}, "gcc -O2 -Wall -o app x.c"),
    "cc -c of a program that calls system()": ({"x.c": C_RUNS}, "cc -c x.c"),
    "cpp of a program that calls system()": ({"x.c": C_RUNS}, "cpp x.c"),
    "nroff of a page quoting a command": ({"x.1": ROFF_QUOTES}, "nroff -man x.1"),
    "a clone into DIR, then the project's build/": ({}, "git clone https://example.org/r r && rm -rf build/"),
    "tar -C out, then the project's build/": ({"a.tar": "x"}, "tar xf a.tar -C out && rm -rf build/"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "rev51", "kind: ApprovalPolicy\n") as project:
        yield project


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_verdicts(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- the two example readers made one (duplicates --change: subst51's copy of debt50's) -----------------------------
WRONG_EXAMPLES = {
    "makes_no_names": (
        "makes_no_names:\n  names: [mytool]\n  examples:\n"
        "    unknown_listing: ['mytool x && rm -f $(find . -name a.pyc)']\n",
        "reads its listing from the disk",
    ),
    "substitution_words": (
        "substitution_words:\n  commands: []\n  examples:\n    not_options: ['git log $(cat f)']\n",
        "reads an option from a substitution",
    ),
}


@pytest.mark.parametrize("section", sorted(WRONG_EXAMPLES))
def test_a_wrong_example_fails_validation(tmp_path: Path, section: str) -> None:
    text, message = WRONG_EXAMPLES[section]
    code, output = validated_policy(tmp_path, "mine.yaml", "kind: Programs\nname: mine\nprograms: []\n" + text)
    assert code != 0 and "program-example-failed" in output and message in output, output
