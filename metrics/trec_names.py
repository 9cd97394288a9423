"""trec_eval's measure spelling: ``-m NAME[.PARAMS]`` arguments as printed names and measures.

A ``-m`` argument names a trec_eval measure family (``P``, ``ndcg_cut``, ``utility``...) or a
set of them (``official``, ``set``, ``all_trec``), optionally followed by ``.`` and
comma-separated parameters. trec_eval's rules, reproduced here:

- families print in trec_eval's fixed order (``measures.c``), whatever the order of ``-m``;
- a family's parameters come from the first ``-m`` that gives the family with a ``.``;
- integer cutoffs (``P.5,7,3``) are read like C's ``atol`` (``23.4`` is 23), sorted, and must be
  positive and distinct; each prints as ``NAME_k`` (``P_3``, ``P_5``, ``P_7``);
- fractional cutoffs (``iprec_at_recall..10,.25``, ``Rprec_mult.0.2,0.35``) are read like
  ``atof``, sorted, distinct, and print as ``NAME_%3.2f`` (``Rprec_mult_0.20``);
- value lists (``utility.2,-1,0,0``, ``11pt_avg..25,.5,.75``, ``relstring.20``, ``set_F.0.5``)
  and ``level=gain`` pairs (``ndcg.1=3,2=9,4=4.5``, ``rbp.p=0.8``) keep their order and print
  as ``NAME_<parameters as typed>`` (``utility_2,-1,0,0``); without parameters, as ``NAME``.

:func:`expand` turns one argument into :class:`Entry` records, :func:`expand_all` a whole
command line's ``-m`` list. ``rel`` (trec_eval's ``-l``) is passed as the ``rel`` parameter of
every measure that has one; ``num_docs`` (``-N``) is the collection size of ``utility``.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pooljudge.metrics.registry import Measure, make, names

from pooljudge.errors import InputError

__all__ = ["Entry", "StringMeasure", "expand", "expand_all"]

Kind = Literal["plain", "long_cuts", "double_cuts", "doubles", "pairs"]
_DEPTHS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_TENTHS = tuple(i / 10 for i in range(11))
_C_LONG = re.compile(r"\s*([+-]?\d+)")
_C_DOUBLE = re.compile(r"\s*([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))",
                       re.IGNORECASE)


@dataclass(frozen=True)
class StringMeasure:
    """A measure trec_eval prints as text: ``runid`` (the run tag of the run file's last line)
    or ``relstring`` (one character per label of the first ``length`` ranked documents)."""

    kind: Literal["runid", "relstring"]
    length: int = 0


@dataclass(frozen=True)
class Entry:
    """One measure as trec_eval prints it.

    ``name``: the printed name (``P_5``); ``measure``: what to compute; ``family``: the trec_eval
    measure it belongs to (``P``). ``per_topic``: printed for each topic with ``-q``;
    ``summary``: printed in the summary (topic ``all``); ``integer``: printed as ``%ld`` instead
    of ``%6.4f``. ``nan_levels``: recall levels x at which trec_eval divides 0 by 0 on an empty
    ranking, printing NaN when ``lround(x * R)`` is 0 for any of them (``iprec_at_recall``,
    ``11pt_avg``).
    """

    name: str
    measure: Measure | StringMeasure
    family: str
    per_topic: bool = True
    summary: bool = True
    integer: bool = False
    nan_levels: tuple[float, ...] = ()


@dataclass(frozen=True)
class _Context:
    rel: int
    num_docs: int


@dataclass(frozen=True)
class _Family:
    """A trec_eval measure: how its parameters read, and how one value of them is built."""

    name: str
    kind: Kind
    build: Callable[..., Measure | StringMeasure]
    default: tuple = ()
    per_topic: bool = True
    summary: bool = True
    integer: bool = False


def _make(ctx: _Context, name: str, cutoff: float | None = None, **params: Any) -> Measure:
    """``make`` with trec_eval's ``-l`` as ``rel`` when the measure takes one."""
    if name not in names():
        raise InputError(f"needs pooljudge's {name} measure, which this version lacks")
    measure = make(name, cutoff, **params)
    if ctx.rel != 1 and any(p.name == "rel" for p in measure.spec.params):
        measure = make(name, cutoff, rel=ctx.rel, **params)
    return measure


def _plain(name: str) -> Callable[[_Context], Measure]:
    return lambda ctx: _make(ctx, name)


def _cut(name: str) -> Callable[[float, _Context], Measure]:
    return lambda cutoff, ctx: _make(ctx, name, cutoff)


def _relstring(values: tuple[float, ...], ctx: _Context) -> StringMeasure:
    """Length = the first value truncated to an integer (C's cast); below 0 means 0."""
    if not math.isfinite(values[0]):
        raise InputError(f"the length must be a number, got {values[0]}")
    return StringMeasure("relstring", max(int(values[0]), 0))


def _utility(values: tuple[float, ...], ctx: _Context) -> Measure:
    if len(values) != 4:
        raise InputError(f"needs 4 coefficients a,b,c,d, got {len(values)}")
    a, b, c, d = values
    return _make(ctx, "Utility", a=a, b=b, c=c, d=d, docs=ctx.num_docs)


def _eleven_point(values: tuple[float, ...], ctx: _Context) -> Measure:
    """IPrec11 at the given recall levels, which must not descend: trec_eval's loop assumes
    ascending levels and averages other points than the ones given when they are not."""
    if list(values) != sorted(values):
        raise InputError("recall levels must be in ascending order")
    if values == _TENTHS:
        return _make(ctx, "IPrec11")
    return _make(ctx, "IPrec11", levels=values)


def _set_f(values: tuple[float, ...], ctx: _Context) -> Measure:
    """trec_eval's set_F.x = (x + 1) P R / (x P + R): SetF with beta = sqrt(x)."""
    if not values[0] >= 0:
        raise InputError(f"the weight must be >= 0, got {values[0]}")
    return _make(ctx, "SetF", beta=math.sqrt(values[0]))


def _gains(pairs: tuple[tuple[str, float], ...]) -> dict[str, Any]:
    """``make``'s keyword ``gains``: the ``level=gain`` pairs whose level is an integer (others
    are ignored, as trec_eval does); the first gain given for a level wins."""
    gains: dict[int, float] = {}
    for level, gain in pairs:
        if re.fullmatch(r"[+-]?\d+", level):
            gains.setdefault(int(level), gain)
    return {"gains": gains} if gains else {}


def _gained(name: str) -> Callable[[tuple, _Context], Measure]:
    return lambda pairs, ctx: _make(ctx, name, **_gains(pairs))


def _rbp(name: str) -> Callable[[tuple, _Context], Measure]:
    """rbp and rbp_resid: persistence ``p=`` (default 0.9, the last one given wins) and gains."""
    def build(pairs: tuple[tuple[str, float], ...], ctx: _Context) -> Measure:
        p = next((value for key, value in reversed(pairs) if key == "p"), 0.9)
        return _make(ctx, name, p=p, **_gains(pairs))

    return build


_FAMILIES: tuple[_Family, ...] = (
    _Family("runid", "plain", lambda ctx: StringMeasure("runid"), per_topic=False),
    _Family("num_q", "plain", _plain("NumQ"), per_topic=False, integer=True),
    _Family("num_ret", "plain", _plain("NumRet"), integer=True),
    _Family("num_rel", "plain", _plain("NumRel"), integer=True),
    _Family("num_rel_ret", "plain", _plain("NumRelRet"), integer=True),
    _Family("map", "plain", _plain("AP")),
    _Family("gm_map", "plain", _plain("GMAP"), per_topic=False),
    _Family("Rprec", "plain", _plain("Rprec")),
    _Family("bpref", "plain", _plain("Bpref")),
    _Family("recip_rank", "plain", _plain("RR")),
    _Family("iprec_at_recall", "double_cuts", _cut("IPrec"), _TENTHS),
    _Family("P", "long_cuts", _cut("P"), _DEPTHS),
    _Family("relstring", "doubles", _relstring, (10.0,), summary=False),
    _Family("recall", "long_cuts", _cut("R"), _DEPTHS),
    _Family("infAP", "plain", _plain("infAP")),
    _Family("gm_bpref", "plain", _plain("GMBpref"), per_topic=False),
    _Family("Rprec_mult", "double_cuts", lambda x, ctx: _make(ctx, "RprecMult", mult=x),
            tuple(i / 10 for i in range(2, 21, 2))),
    _Family("utility", "doubles", _utility, (1.0, -1.0, 0.0, 0.0)),
    _Family("11pt_avg", "doubles", _eleven_point, _TENTHS),
    _Family("binG", "plain", _plain("BinG")),
    _Family("G", "pairs", _gained("G")),
    _Family("ndcg", "pairs", _gained("nDCG")),
    _Family("ndcg_rel", "pairs", _gained("nDCGRel")),
    _Family("Rndcg", "pairs", _gained("RnDCG")),
    _Family("ndcg_cut", "long_cuts", _cut("nDCG"), _DEPTHS),
    _Family("map_cut", "long_cuts", _cut("AP"), _DEPTHS),
    _Family("relative_P", "long_cuts", _cut("RelP"), _DEPTHS),
    _Family("success", "long_cuts", _cut("Success"), (1, 5, 10)),
    _Family("set_P", "plain", _plain("SetP")),
    _Family("set_relative_P", "plain", _plain("SetRelP")),
    _Family("set_recall", "plain", _plain("SetR")),
    _Family("set_map", "plain", _plain("SetAP")),
    _Family("set_F", "doubles", _set_f, (1.0,)),
    _Family("num_nonrel_judged_ret", "plain", _plain("NumNonRelJudgedRet"), integer=True),
    _Family("rbp", "pairs", _rbp("RBPGraded")),
    _Family("rbp_resid", "pairs", _rbp("RBPResid")),
    _Family("unj", "long_cuts", _cut("Unjudged"), (5, 10, 20)),
)
_BY_NAME = {family.name: family for family in _FAMILIES}
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
             "bpref", "recip_rank", "iprec_at_recall", "P")
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": (*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult",
                 "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P",
                 "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
}
# trec_eval measures (and sets) that need other input formats (-R prefs, qrels_jg) or that
# pooljudge does not compute.
UNSUPPORTED = frozenset({
    "all_prefs", "prefs", "qrels_jg", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap",
    "dcg", "ideal_dcg", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
    "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
})


def expand(text: str, *, rel: int = 1, num_docs: int = 0) -> list[Entry]:
    """One ``-m`` argument (``all_trec``, ``P.5,7,3``, ``ndcg.1=3,2=9``...) as entries in
    trec_eval's printing order. Raises InputError for an unknown or unsupported measure or bad
    parameters (see the module docstring for the rules)."""
    return expand_all([text], rel=rel, num_docs=num_docs)


def expand_all(texts: Sequence[str], *, rel: int = 1, num_docs: int = 0) -> list[Entry]:
    """Every ``-m`` argument of one command line: the marked families in trec_eval's order,
    each with the parameters of the first argument that gave it some."""
    marked: set[str] = set()
    given: dict[str, str] = {}
    for text in texts:
        base, dot, raw = text.partition(".")
        marked.update(_families_of(base, text))
        if dot:
            if not raw:
                raise InputError(f"{text!r}: no parameters after the '.'")
            if base in NICKNAMES:
                raise InputError(f"{text!r}: the measure set {base} takes no parameters")
            given.setdefault(base, raw)
    context = _Context(rel=rel, num_docs=num_docs)
    entries: list[Entry] = []
    for family in _FAMILIES:
        if family.name in marked:
            try:
                entries += _entries(family, given.get(family.name), context)
            except InputError as exc:
                shown = family.name + (f".{given[family.name]}" if family.name in given else "")
                raise InputError(f"{shown!r}: {exc.message}") from None
    return entries


def _families_of(base: str, text: str) -> tuple[str, ...]:
    if base in NICKNAMES:
        return NICKNAMES[base]
    if base in _BY_NAME:
        return (base,)
    if base in UNSUPPORTED:
        raise InputError(f"{text!r}: trec_eval's {base} is not supported (preference and "
                         "judgment-group measures, dcg and yaap are left out)")
    raise InputError(f"unknown trec_eval measure {text!r}{_hint(base)}")


def _hint(base: str) -> str:
    """``P_10`` -> "did you mean P.10?"; otherwise the closest trec_eval names."""
    glued = re.fullmatch(r"(.+?)_([0-9.]+)", base)
    if glued and glued[1] in _BY_NAME:
        return f"; did you mean {glued[1]}.{glued[2]}?"
    near = difflib.get_close_matches(base, [*_BY_NAME, *NICKNAMES], n=4, cutoff=0.6)
    return f"; did you mean {', '.join(near)}?" if near else ""


def _entries(family: _Family, raw: str | None, ctx: _Context) -> list[Entry]:
    """The entries of one family, with its default parameters when ``raw`` is None."""
    def entry(name: str, measure: Measure | StringMeasure,
              nan_levels: tuple[float, ...] = ()) -> Entry:
        return Entry(name, measure, family.name, family.per_topic, family.summary,
                     family.integer, nan_levels)

    if family.kind == "plain":
        if raw is not None:
            raise InputError(f"{family.name} takes no parameters")
        return [entry(family.name, family.build(ctx))]
    if family.kind == "long_cuts":
        cuts = family.default if raw is None else _long_cutoffs(raw)
        return [entry(f"{family.name}_{k}", family.build(k, ctx)) for k in cuts]
    if family.kind == "double_cuts":
        cuts = family.default if raw is None else _double_cutoffs(raw)
        at_recall = family.name == "iprec_at_recall"
        return [entry(f"{family.name}_{x:3.2f}", family.build(x, ctx), (x,) if at_recall else ())
                for x in cuts]
    name = family.name if raw is None else f"{family.name}_{raw}"
    if family.kind == "doubles":
        values = family.default if raw is None else tuple(_c_double(v) for v in raw.split(","))
        nan = values if family.name == "11pt_avg" else ()
        return [entry(name, family.build(values, ctx), nan)]
    pairs = () if raw is None else _pairs(raw)
    return [entry(name, family.build(pairs, ctx))]


def _long_cutoffs(raw: str) -> tuple[int, ...]:
    """Integer cutoffs read like ``atol``, sorted; InputError unless positive and distinct."""
    cuts = sorted(_c_long(item) for item in raw.split(","))
    if cuts[0] <= 0:
        raise InputError("cutoffs must be positive integers")
    if len(set(cuts)) < len(cuts):
        raise InputError("a cutoff is given twice")
    return tuple(cuts)


def _double_cutoffs(raw: str) -> tuple[float, ...]:
    """Fractional cutoffs read like ``atof``, sorted; InputError for a repeated one."""
    cuts = sorted(_c_double(item) for item in raw.split(","))
    if len(set(cuts)) < len(cuts):
        raise InputError("a cutoff is given twice")
    return tuple(cuts)


def _pairs(raw: str) -> tuple[tuple[str, float], ...]:
    """``name=value`` pairs, values read like ``atof``; InputError for another form."""
    pairs = []
    for item in raw.split(","):
        key, equals, value = item.partition("=")
        if not equals or "=" in value:
            raise InputError(f"parameters are written name=value, got {item!r}")
        pairs.append((key, _c_double(value)))
    return tuple(pairs)


def _c_long(text: str) -> int:
    """C's ``atol``: the leading integer of ``text`` (``23.4`` -> 23), 0 when there is none."""
    match = _C_LONG.match(text)
    return int(match[1]) if match else 0


def _c_double(text: str) -> float:
    """C's ``atof``: the leading number of ``text`` (``.5x`` -> 0.5), 0.0 when there is none."""
    match = _C_DOUBLE.match(text)
    return float(match[1]) if match else 0.0
