"""Words of a tool's text and of a query, reduced to the same terms.

Identifiers are split (``createPullRequest``, ``create_pull_request``), words are
lower-cased, a few abbreviations are spelled out ("PR" → "pull request"), common
English endings are stripped (a light stemmer: "issues", "issuing" and "issued"
meet at "issu"), stop words go, and the verbs tools are described with are folded
to one term per meaning ("remove", "erase", "drop" → "delete"), so a model's
phrasing meets a manifest's. No model and no network: tables and a few rules, the
same on both sides.
"""

from __future__ import annotations

import re

_SPLIT = re.compile(r"\b[A-Za-z]{1,3}[0-9]+\b|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_]+")

_STOP = """a an and any are as at be by can could do does for from have how i if in into is it its me my
of on or our please should so some that the their them then there these this those to us use using
via want was we what when where which will with would you your all new need let lets like just also
now here able way thing things"""
STOP_WORDS = frozenset(_STOP.split())
# Kept although short: they carry meaning in tool names.
_KEEP_SHORT = frozenset({"id", "ip", "os", "ui", "s3", "io", "ec2", "pdf", "csv", "sms", "dns", "sql", "git", "tag"})

# Spelled out before anything else (both in tools and in queries).
ABBREVIATIONS = {
    "pr": "pull request",
    "prs": "pull requests",
    "mr": "merge request",
    "mrs": "merge requests",
    "k8s": "kubernetes",
    "repo": "repository",
    "repos": "repositories",
    "db": "database",
    "dm": "direct message",
    "dms": "direct messages",
    "vm": "virtual machine",
    "vms": "virtual machines",
    "env": "environment",
    "envs": "environments",
    "msg": "message",
    "config": "configuration",
    "auth": "authentication",
    "info": "information",
    "doc": "document",
    "docs": "documents",
    "img": "image",
    "pic": "picture",
    "pics": "pictures",
    "txt": "text",
    "dir": "directory",
    "dirs": "directories",
    "tz": "timezone",
    "eta": "arrival time",
    "url": "link",
    "urls": "links",
}

# Words folded to one term per meaning (the first word of each group names it).
_FOLDS = (
    "delete remove erase drop destroy purge wipe trash discard",
    "create make add generate register",
    "update edit modify change alter amend adjust reschedule",
    "get fetch retrieve view obtain inspect display detail",
    "search find query discover seek lookup filter",
    "send deliver dispatch notify",
    "run execute launch invoke trigger",
    "stop halt kill terminate abort shut shutdown",
    "cancel revoke withdraw",
    "restore recover undelete",
    "schedule book reserve reservation",
    "current currently",
    "configuration configure setting",
    "event meeting appointment",
    "route direction",
    "payment charge",
    "caption subtitle",
    "version revision",
    "image picture photo",
    "folder directory",
    "invoice bill",
    "customer client",
    "email mail",
    "text sms",
)
_GROUPS = [line.split() for line in _FOLDS]

_SUFFIXES = ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "es", "ed", "s", "e", "y")
_LONGER_BASE = frozenset({"ments", "ment", "ings", "ing"})


def stem(word: str) -> str:
    """A light suffix stripper: enough for plural, gerund and past forms to meet."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if not word.endswith(suffix):
            continue
        base = word[: -len(suffix)]
        if suffix.startswith("ation"):
            base += "at"  # translation -> translat, as translate
        if len(base) < (4 if suffix in _LONGER_BASE else 3):
            return word
        if suffix == "s" and base[-1] in "suia":  # status, analysis, alias, schema(s) stay put
            return word if base[-1] in "sui" else base
        if suffix == "y" and base[-1] in "aeiou":  # deploy, key, survey
            return word
        if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
            base = base[:-1]  # mapping -> map, stopped -> stop
        return base
    return word


SYNONYMS: dict[str, str] = {stem(word): stem(group[0]) for group in _GROUPS for word in group}
_ABBREVIATED: dict[str, tuple[str, ...]] = {k: tuple(v.split()) for k, v in ABBREVIATIONS.items()}

_TERMS: dict[str, tuple[str, ...]] = {}
_TERMS_LIMIT = 200_000


def _word_terms(word: str) -> tuple[str, ...]:
    cached = _TERMS.get(word)
    if cached is not None:
        return cached
    lower = word.lower()
    words = _ABBREVIATED.get(lower, (lower,))
    out = []
    for w in words:
        if w in STOP_WORDS or (len(w) < 3 and w not in _KEEP_SHORT and not w.isdigit()):
            continue
        stemmed = stem(w)
        out.append(SYNONYMS.get(stemmed, stemmed))
    result = tuple(out)
    if len(_TERMS) < _TERMS_LIMIT:
        _TERMS[word] = result
    return result


def terms(text: str) -> list[str]:
    """The terms of ``text`` in order (repeats kept)."""
    out: list[str] = []
    known = _TERMS.get
    for word in _SPLIT.findall(text):
        found = known(word)
        out.extend(_word_terms(word) if found is None else found)
    return out
