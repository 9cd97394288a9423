"""Highlight terms: the rules a term must follow, and the reader of ``topic<TAB>term`` files.

A term is what an admin or annotator asks to have marked in documents: a word, or a phrase of
several words (see :mod:`pooljudge.annotate.highlight`). Stored terms are cleaned by
:func:`clean_term`:
whitespace runs become one space, the ends are trimmed, double quotes around the whole term are
dropped (a term of several words is a phrase anyway: ``"organised crime"`` is ``organised
crime``) and letters are lower-cased (matching ignores case, so ``Format`` and ``format`` are
one term).

A terms file has one ``topic<TAB>term`` per line; blank lines and lines starting with ``#``
are ignored, and a first line ``topic<TAB>term`` is a header. Errors name ``path:line``.
"""

from __future__ import annotations

import re
import unicodedata

import pandas as pd

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, read_utf8

__all__ = ["MAX_TERMS", "MAX_TERM_LENGTH", "clean_term", "read_topic_terms"]

MAX_TERM_LENGTH = 100
"""Characters in a cleaned term, at most."""
MAX_TERMS = 50
"""Terms per topic, at most: the campaign's, and each annotator's own."""
_WORD = re.compile(r"\w")
_QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')
_ALLOWED_CONTROLS = frozenset("\t\n\r")  # whitespace: collapsed to a space


def clean_term(text: str) -> str:
    """``text`` as a stored term: NFC, whitespace collapsed and trimmed, surrounding double
    quotes dropped, lower-cased.

    InputError (a message for a person) for a term that is blank, has no letter or digit, is
    longer than :data:`MAX_TERM_LENGTH` characters, or holds a control or invisible formatting
    character (such as U+202E, which reverses the text around it).
    """
    if not isinstance(text, str):
        raise InputError(f"a term must be text, got {type(text).__name__}")
    bad = next((c for c in text if unicodedata.category(c) in ("Cc", "Cf")
                and c not in _ALLOWED_CONTROLS), None)
    if bad is not None:
        raise InputError(f"a term must not contain control or formatting characters "
                         f"(U+{ord(bad):04X})")
    term = " ".join(unicodedata.normalize("NFC", text).split()).lower()
    if _QUOTED.fullmatch(term):
        term = " ".join(term[1:-1].split())
    if not term:
        raise InputError("a term must not be blank")
    if not _WORD.search(term):
        raise InputError(f"a term needs a letter or a digit: {term!r}")
    if len(term) > MAX_TERM_LENGTH:
        raise InputError(f"a term has at most {MAX_TERM_LENGTH} characters, this one "
                         f"{len(term)}")
    return term


def read_topic_terms(path: PathLike) -> pd.DataFrame:
    """The ``topic<TAB>term`` lines of ``path`` as a DataFrame of ``topic``, ``term`` (cleaned)
    and ``line`` (its line number), in file order.

    InputError naming ``path:line`` for a line without a tab or with more than one, a blank
    topic, a bad term (:func:`clean_term`), a (topic, term) given twice, more than
    :data:`MAX_TERMS` terms for a topic, undecodable bytes, or a file without any term.
    """
    text = read_utf8(path)
    rows: list[tuple[str, str, int]] = []
    first: dict[tuple[str, str], int] = {}
    counts: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        topic, term = _fields(line, path, number)
        if not rows and (topic.lower(), term) == ("topic", "term"):
            continue
        seen = first.setdefault((topic, term), number)
        if seen != number:
            raise InputError(f"topic {topic}: term {term!r} listed twice (first on line {seen})",
                             path=path, line=number)
        counts[topic] = counts.get(topic, 0) + 1
        if counts[topic] > MAX_TERMS:
            raise InputError(f"topic {topic}: more than {MAX_TERMS} terms", path=path,
                             line=number)
        rows.append((topic, term, number))
    if not rows:
        raise InputError("no 'topic<TAB>term' lines", path=path)
    return pd.DataFrame(rows, columns=["topic", "term", "line"]).astype(
        {"topic": object, "term": object})


def _fields(line: str, path: PathLike, number: int) -> tuple[str, str]:
    """The topic and the cleaned term of a data line."""
    fields = line.split("\t")
    if len(fields) != 2:
        raise InputError(f"expected 'topic<TAB>term', found {len(fields) - 1} tabs", path=path,
                         line=number)
    topic = fields[0].strip()
    if not topic:
        raise InputError("blank topic id", path=path, line=number)
    try:
        return topic, clean_term(fields[1])
    except InputError as exc:
        raise InputError(f"topic {topic}: {exc.message}", path=path, line=number) from None
