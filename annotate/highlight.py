"""Highlight terms: which words of a text to mark, as character spans (pure; no HTML here).

A *term* is a string of one or more words (a word is a run of letters, digits, underscores and
combining marks). A term of several words is a *phrase*: it marks its words only where they
stand next to each other in the text, separated as in the term (any run of whitespace where the
term has whitespace, the same punctuation where it has punctuation: ``node.js``), and the mark
covers the whole phrase.

A word of the text matches a word of a term (both compared lower-cased, Unicode NFC) when

1. the term word is a prefix of it and has at least :data:`MIN_PREFIX` characters (``format``
   marks ``formatting``, ``formats``; ``reformat`` is not marked: matches start at a word's
   start);
2. their English Snowball stems are equal (``retrieval`` marks ``retrieve``); or
3. one stem is a prefix of the other, and the shorter stem has at least
   :data:`MIN_STEM_PREFIX` characters and comes from a word the stemmer changed (an inflected
   form): ``parser`` marks ``parsing`` and ``parse`` (stem ``pars``), and ``parsing`` marks
   ``parser`` (and ``parsley``), but ``format`` does not mark ``form``.

A term word shorter than :data:`MIN_PREFIX` (``AI``, ``in``) marks only the same word, so short
words never mark every word that starts like them.

Terms of a topic (:func:`topic_terms`) are its distinct words minus :data:`STOP_WORDS` and
words shorter than :data:`MIN_PREFIX`, and its double-quoted phrases (kept whole, stop words
included). Terms a person types are taken as typed (a short word or a stop word is their
choice).

Cost: the text is tokenized once with one regular expression; each *distinct* word is stemmed
and looked up once (set look-ups of its prefixes, never a pattern per term), and a compiled
:class:`Matcher` (with its word cache) is reused for every text with the same terms.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = [
    "MIN_PREFIX",
    "MIN_STEM_PREFIX",
    "STOP_WORDS",
    "TOPIC_WORDS",
    "Matcher",
    "Span",
    "matcher",
    "spans",
    "term_words",
    "topic_terms",
]

MIN_PREFIX = 3
"""A term word this long or longer marks the words it starts (``for`` marks ``format``)."""
MIN_STEM_PREFIX = 4
"""Stems related by prefix must both be this long (``pars`` and ``parser``; not ``for``)."""
TOPIC_WORDS = frozenset({
    "article", "articles", "concerning", "discuss", "discussed", "discusses", "discussing",
    "describes", "describing", "document", "documents", "find", "identify", "irrelevant",
    "mention", "mentioned", "mentions", "nonrelevant", "regarding", "relevant", "relevance",
})
"""Words of the boilerplate of topic descriptions and narratives (``Find documents that
discuss…``, ``A relevant document mentions…``): they say nothing about the topic."""
STOP_WORDS: frozenset[str] = frozenset(ENGLISH_STOP_WORDS) | TOPIC_WORDS
"""scikit-learn's English stop list (318 words such as ``the``, ``about``, ``whereas``,
``describe``) and :data:`TOPIC_WORDS`: words a topic's text never contributes as terms (a
person may still add one)."""

Span = tuple[int, int]
# Combining marks (U+0300–U+036F) are not \w: a decomposed "café" stays one word.
_CHAR = r"[\w\u0300-\u036f]"
_WORD = re.compile(rf"{_CHAR}+")
_NEXT = re.compile(rf"([^\w\u0300-\u036f]*)({_CHAR}+)")  # the separator, then the next word
_QUOTED = re.compile(r'"([^"]*)"|\u201c([^\u201d]*)\u201d')
_PATTERN_WORDS = 100  # measured: an alternation of 200 words is slower than a pass over words
_WORD_CACHE_LIMIT = 20_000  # words remembered per Matcher (then it starts afresh)
_local = threading.local()


def _fold(word: str) -> str:
    """The form words are compared in: NFC, lower case."""
    return unicodedata.normalize("NFC", word).lower()


@functools.lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    """The English Snowball stem of a folded word (one stemmer per thread: it keeps state)."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


def _head(word: str) -> str:
    """The first two letters, a second ``y`` read as ``i``: a word and its stem share them
    (stemming changes endings; ``dying`` gives ``die``), so a text word whose head no term word
    or stem has can match no term of at least :data:`MIN_PREFIX` letters."""
    return word[:1] + word[1:2].replace("y", "i")


@dataclass(frozen=True)
class _Term:
    """A parsed term: its folded words and the separators between them (``" "`` stands for
    any whitespace; other separators have their whitespace removed)."""

    words: tuple[str, ...]
    gaps: tuple[str, ...]


def _gap(text: str) -> str:
    """A separator between two words, normalised: whitespace removed, ``" "`` if nothing else."""
    return "".join(text.split()) or " "


@functools.lru_cache(maxsize=4096)
def _parse(term: str) -> _Term | None:
    """``term`` as words and separators; None when it has no word."""
    found = list(_WORD.finditer(term))
    if not found:
        return None
    gaps = tuple(_gap(term[a.end():b.start()]) for a, b in itertools.pairwise(found))
    return _Term(tuple(_fold(m.group()) for m in found), gaps)


def term_words(term: str) -> tuple[str, ...]:
    """The folded words of ``term`` (empty when it has none): what identifies it, so two terms
    with the same words and separators mark the same text."""
    parsed = _parse(term)
    return () if parsed is None else parsed.words


def topic_terms(*texts: str) -> tuple[str, ...]:
    """The distinct terms of a topic's ``texts`` (title, description, perhaps narrative), text
    by text: its double-quoted phrases whole (``"information retrieval"`` gives ``information
    retrieval``), then its other words lower-cased, unless a stop word or shorter than
    :data:`MIN_PREFIX`. An unmatched quote is ignored."""
    seen: dict[str, None] = {}
    for text in texts:
        rest = _QUOTED.sub(lambda m: _keep_phrase(seen, m.group(1) or m.group(2) or ""), text)
        for word in _WORD.findall(rest):
            folded = _fold(word)
            if len(folded) >= MIN_PREFIX and folded not in STOP_WORDS:
                seen.setdefault(folded, None)
    return tuple(seen)


def _keep_phrase(seen: dict[str, None], phrase: str) -> str:
    """Record a quoted phrase (folded, whitespace collapsed); its place in the text becomes a
    blank, so its words are not also taken one by one."""
    words = " ".join(_fold(phrase).split())
    if _WORD.search(words):
        seen.setdefault(words, None)
    return " "


class Matcher:
    """A compiled set of terms: :meth:`spans` finds their marks in any text.

    Each term word gets an id; look-up tables map a term word (rules 1 and, for short words,
    the exact match), a stem (rule 2), an inflected term word's stem (rule 3, the text's stem
    longer) and every prefix of a term stem (rule 3, the term's stem longer) to their ids.
    """

    def __init__(self, terms: Iterable[str]) -> None:
        vocabulary: dict[str, int] = {}
        self._phrases: list[tuple[tuple[int, ...], tuple[str, ...]]] = []
        for term in dict.fromkeys(p for p in map(_parse, terms) if p is not None):
            ids = tuple(vocabulary.setdefault(w, len(vocabulary)) for w in term.words)
            self._phrases.append((ids, term.gaps))
        self._tables: dict[str, dict[str, set[int]]] = {
            name: {} for name in ("exact", "prefix", "stem", "inflected", "stem_prefix")}
        self._heads: set[str] = set()
        for word, i in vocabulary.items():
            self._index(word, i)
        self._starts: dict[int, list[int]] = {}
        for p, (ids, _) in enumerate(self._phrases):
            self._starts.setdefault(ids[0], []).append(p)
        self._long = any(len(ids) > 1 for ids, _ in self._phrases)  # spans may overlap
        self._words: dict[str, frozenset[int]] = {}
        self._plans: dict[str, tuple[bool, tuple[int, ...]] | None] = {}
        self._lock = threading.Lock()

    def _index(self, word: str, i: int) -> None:
        def put(table: str, key: str) -> None:
            self._tables[table].setdefault(key, set()).add(i)

        if len(word) < MIN_PREFIX:
            put("exact", word)
            return
        stem = _stem(word)
        self._heads.update((_head(word), _head(stem)))
        put("prefix", word)
        put("stem", stem)
        if len(stem) >= MIN_STEM_PREFIX:
            if stem != word:
                put("inflected", stem)
            for end in range(MIN_STEM_PREFIX, len(stem) + 1):
                put("stem_prefix", stem[:end])

    def __bool__(self) -> bool:
        return bool(self._phrases)

    def _matches(self, word: str) -> frozenset[int]:
        """Ids of the term words that the text's ``word`` (as written) matches (cached)."""
        found = self._words.get(word)
        if found is not None:
            return found
        tables, folded = self._tables, _fold(word)
        ids = set(tables["exact"].get(folded, ()))
        if len(folded) >= MIN_PREFIX and _head(folded) not in self._heads:
            return self._remember(word, frozenset(ids))  # no term starts like it: no stemming
        for end in range(MIN_PREFIX, len(folded) + 1):
            ids.update(tables["prefix"].get(folded[:end], ()))
        stem = _stem(folded) if len(folded) >= MIN_PREFIX else folded
        ids.update(tables["stem"].get(stem, ()))
        if len(stem) >= MIN_STEM_PREFIX:
            if stem != folded:
                ids.update(tables["stem_prefix"].get(stem, ()))
            for end in range(MIN_STEM_PREFIX, len(stem)):
                ids.update(tables["inflected"].get(stem[:end], ()))
        return self._remember(word, frozenset(ids))

    def _remember(self, word: str, found: frozenset[int]) -> frozenset[int]:
        with self._lock:
            if len(self._words) >= _WORD_CACHE_LIMIT:
                self._words.clear()
            self._words[word] = found
        return found

    def spans(self, text: str) -> list[Span]:
        """Sorted, non-overlapping (start, end) character spans of ``text`` to mark;
        overlapping or touching matches are merged into one span.

        The distinct words of ``text`` are matched once each; then one pattern of the words
        that matched finds their places (a second pass over the words when more than
        :data:`_PATTERN_WORDS` matched: a long alternation is slower), and a phrase is followed
        word by word from there.
        """
        if not self._phrases:
            return []
        plans = {w: plan for w in set(_WORD.findall(text)) if (plan := self._plan(w))}
        if not plans:
            return []
        matches = (_words_pattern(frozenset(plans)).finditer(text)
                   if len(plans) <= _PATTERN_WORDS
                   else (m for m in _WORD.finditer(text) if m.group() in plans))
        found: list[Span] = []
        for match in matches:
            single, phrases = plans[match.group()]
            if single:
                found.append(match.span())
            for p in phrases:
                end = self._phrase_end(text, match.end(), p)
                if end is not None:
                    found.append((match.start(), end))
        return _merge(found) if self._long else found

    def _plan(self, word: str) -> tuple[bool, tuple[int, ...]] | None:
        """What the text's ``word`` starts: a one-word term (True), the phrases (indices);
        None when nothing (cached)."""
        if word in self._plans:
            return self._plans[word]
        starts = [p for i in self._matches(word) for p in self._starts.get(i, ())]
        phrases = tuple(p for p in starts if len(self._phrases[p][0]) > 1)
        plan = (len(phrases) < len(starts), phrases) if starts else None
        with self._lock:
            if len(self._plans) >= _WORD_CACHE_LIMIT:
                self._plans.clear()
            self._plans[word] = plan
        return plan

    def _phrase_end(self, text: str, pos: int, p: int) -> int | None:
        """Where phrase ``p`` ends when its first word ends at ``pos``; None if it is not
        there."""
        ids, gaps = self._phrases[p]
        for i, gap in zip(ids[1:], gaps, strict=True):
            nxt = _NEXT.match(text, pos)
            if (nxt is None or _gap(nxt.group(1)) != gap
                    or i not in self._matches(nxt.group(2))):
                return None
            pos = nxt.end()
        return pos


@functools.lru_cache(maxsize=64)
def _words_pattern(words: frozenset[str]) -> re.Pattern[str]:
    """One pattern finding any of ``words`` as a whole word (longest first)."""
    alternatives = "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
    return re.compile(rf"(?<!{_CHAR})(?:{alternatives})(?!{_CHAR})")


def _merge(found: list[Span]) -> list[Span]:
    """Sorted spans, overlapping or touching ones joined."""
    merged: list[Span] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@functools.lru_cache(maxsize=64)
def matcher(terms: tuple[str, ...]) -> Matcher:
    """The compiled :class:`Matcher` of ``terms`` (cached: a topic's pairs reuse it)."""
    return Matcher(terms)


def spans(text: str, terms: Iterable[str]) -> list[Span]:
    """The spans of ``text`` that ``terms`` mark (see the module's rules)."""
    return matcher(tuple(terms)).spans(text)
