"""Command text as the shell would see it, with display tricks removed.

Terminal escapes, zero-width and bidi characters, fullwidth letters (NFKC) and
line continuations are how `rm` hides from a regex over raw text; they are
undone here, before anything is parsed or matched.
"""

from __future__ import annotations

import re
import unicodedata

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC
    r"|\x1b[@-Z\\-_]"  # two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTINUATION = re.compile(r"\\\r?\n")


def normalize(text: str) -> str:
    ascii_only = text.isascii()
    if ascii_only and text.isprintable():
        return text  # no escapes, controls or line breaks: nothing to undo
    text = _ANSI.sub("", text)
    if not ascii_only:  # ASCII has no invisible characters and is its own NFKC form
        text = _INVISIBLE.sub("", text)
        text = unicodedata.normalize("NFKC", text)
        text = _INVISIBLE.sub("", text)  # NFKC can produce some of them
    text = text.replace("\r\n", "\n")
    text = _CONTROL.sub("", text)
    return _CONTINUATION.sub("", text)
