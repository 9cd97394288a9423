"""What ``pooljudge trec_eval`` prints: trec_eval 10.0's lines, values and summary, exactly.

Lines are ``%-22s\\t%s\\t%6.4f`` (name padded to 22, topic, value), ``%ld`` for counts,
``'...'`` for ``relstring``; per topic (``-q``) every per-topic measure of a topic, topic by
topic in byte order, then the summary (topic ``all``) unless ``-n``. A NaN prints as ``-nan``
(glibc's rendering of trec_eval's 0/0). The values come from pooljudge's measures, adjusted
where trec_eval's own flow differs (see :func:`topic_values`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pooljudge.cli.trec_eval_topics import reset_when_skipped
from pooljudge.metrics.qrels_lookup import UNJUDGED
from pooljudge.metrics.ranked import needed_relevant
from pooljudge.metrics.registry import Measure
from pooljudge.metrics.trec_names import Entry, StringMeasure

if TYPE_CHECKING:
    from pooljudge.metrics.join import Ranking
    from pooljudge.metrics.qrels_lookup import Qrels

__all__ = ["Evaluation", "relstrings", "render", "topic_values", "unjudged_counts"]

NAME_WIDTH = 22
# Families trec_eval leaves at 0 for a ranking without an unjudged document.
ZEROED_WHEN_ALL_JUDGED = frozenset({"rbp_resid"})


@dataclass(frozen=True)
class Evaluation:
    """One run scored for printing, over the qrels topics (byte order).

    ``evaluated``: topics printed and averaged (all with -c, else those the run has);
    ``skipped``: evaluated topics the run file has no line for (only with -c; their ranking is
    trec_eval's sentinel, see :mod:`~pooljudge.cli.trec_eval_topics`); ``empty``: topics whose
    ranking trec_eval sees as empty (with -J or -M 0), where 0/0 gives NaN; ``unjudged``: per
    topic, the ranked documents without a judgment or with a negative label (None when no
    entry needs it); ``relstrings``: per relstring length, per topic, its text;
    ``all_num_rel``: with -c, the summary ``num_rel`` (trec_eval's te_calc_avg_num_rel: the
    qrels lines with a label > 0 over all topics, whatever -l), else None.
    """

    topics: list[str]
    values: dict[Measure, np.ndarray]
    qrels: Qrels
    evaluated: np.ndarray
    skipped: np.ndarray
    empty: np.ndarray
    runid: str
    unjudged: np.ndarray | None
    relstrings: dict[int, list[str]]
    all_num_rel: int | None = None


def topic_values(entry: Entry, ev: Evaluation) -> np.ndarray:
    """The entry's value per topic as trec_eval computes it.

    A skipped topic (-c) ranks trec_eval's sentinel document; the values trec_eval then resets
    (:func:`~pooljudge.cli.trec_eval_topics.reset_when_skipped`, by printed name) are 0.
    trec_eval's rbp_resid stays 0 for a ranking with no unjudged document (dropping the
    p^n tail pooljudge's RBPResid adds). On an empty ranking trec_eval's interpolated precision
    starts from 0/0: NaN at every recall level x with lround(x * R) = 0 (and for 11pt_avg when
    any level has it).
    """
    measure = entry.measure
    if not isinstance(measure, Measure):
        raise TypeError(f"{entry.name} is a text entry: it has no values")
    values = np.array(ev.values[measure], dtype=np.float64)
    if reset_when_skipped(entry.name):
        values[ev.skipped] = 0.0
    if entry.family in ZEROED_WHEN_ALL_JUDGED and ev.unjudged is not None:
        values[ev.unjudged == 0] = 0.0
    if entry.nan_levels and ev.empty.any():
        num_rel = ev.qrels.num_rel(int(measure["rel"]))
        reached = np.zeros(len(values), dtype=bool)
        for level in entry.nan_levels:
            reached |= needed_relevant(level, num_rel, "10") == 0
        values[ev.empty & reached] = np.nan
    return values


def summary_value(measure: Measure, values: np.ndarray) -> float:
    """The summary over the evaluated topics' ``values``, accumulated in topic order as
    trec_eval does: the sum for counts, exp(mean(log v)) for GMAP-like measures, else the mean.
    A NaN topic value makes the summary NaN."""
    kind = measure.spec.summary
    if kind == "sum":
        return float(np.cumsum(values)[-1])
    if kind == "gmean":
        return float(np.exp(np.cumsum(np.log(values))[-1] / len(values)))
    return float(np.cumsum(values)[-1] / len(values))


def relstrings(ranking: Ranking, lengths: set[int]) -> dict[int, list[str]]:
    """Per length n, per topic, the labels of the first n ranked documents as characters:
    the label for 0-9, ``>`` above 9, ``-`` without a qrels line, ``.`` for a negative label."""
    labels = ranking.labels
    codes = np.full(len(labels), ord("."), dtype=np.uint8)
    codes[labels == UNJUDGED] = ord("-")
    judged = labels >= 0
    codes[judged] = ord("0") + np.minimum(labels[judged], 9).astype(np.uint8)
    codes[labels > 9] = ord(">")
    out = {}
    for length in lengths:
        keep = ranking.rank <= length
        text = codes[keep].tobytes().decode("ascii")
        ends = np.cumsum(np.bincount(ranking.topic[keep], minlength=ranking.n_topics))
        starts = np.concatenate(([0], ends[:-1]))
        out[length] = [text[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    return out


def unjudged_counts(ranking: Ranking) -> np.ndarray:
    """Per topic, the ranked documents without a judgment or with a negative label."""
    return np.bincount(ranking.topic[ranking.labels < 0], minlength=ranking.n_topics)


def render(entries: list[Entry], ev: Evaluation, *, per_topic: bool, summary: bool) -> str:
    """The whole output: per-topic lines (``per_topic``), then the summary (``summary``)."""
    columns = {e.name: topic_values(e, ev) for e in entries if isinstance(e.measure, Measure)}
    lines: list[str] = []
    if per_topic:
        shown = [e for e in entries if e.per_topic]
        for index in np.flatnonzero(ev.evaluated).tolist():
            topic = ev.topics[index]
            for entry in shown:
                if isinstance(entry.measure, StringMeasure):
                    text = _relstring(entry, entry.measure, ev, index)
                else:
                    text = _number(columns[entry.name][index], entry.integer)
                lines.append(_line(entry.name, topic, text))
    if summary:
        for entry in entries:
            if not entry.summary:
                continue
            if isinstance(entry.measure, StringMeasure):
                lines.append(_line("runid", "all", ev.runid))
                continue
            value = summary_value(entry.measure, columns[entry.name][ev.evaluated])
            if entry.name == "num_rel" and ev.all_num_rel is not None:
                value = ev.all_num_rel
            lines.append(_line(entry.name, "all", _number(value, entry.integer)))
    return "".join(lines)


def _relstring(entry: Entry, measure: StringMeasure, ev: Evaluation, index: int) -> str:
    """The quoted relstring of topic ``index`` (``measure``: the entry's); ``''`` where
    trec_eval clears it (a skipped topic's ``relstring``, not ``relstring_N``)."""
    if ev.skipped[index] and reset_when_skipped(entry.name):
        return "''"
    return f"'{ev.relstrings[measure.length][index]}'"


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<{NAME_WIDTH}}\t{topic}\t{text}\n"


def _number(value: float, integer: bool) -> str:
    """``%ld`` of the truncated value for counts, else ``%6.4f``; NaN as glibc prints 0/0."""
    if integer:
        return str(int(value))
    if np.isnan(value):
        return f"{'-nan':>6}"
    return f"{value:6.4f}"
