"""``pooljudge eval QRELS RUN...``: trec_eval-exact scores with unjudged rates beside them."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pooljudge.cli import Subcommands
from pooljudge.cli.datasets import add_dataset_option, qrels_and_runs, qrels_name
from pooljudge.cli.eval_soft import add_soft_options, refuse_soft_options, run_soft
from pooljudge.cli.options import (
    add_compat_option,
    add_format_option,
    add_measure_option,
    add_qrels_runs,
    add_units_options,
    measures_from,
)
from pooljudge.cli.output import emit, warn
from pooljudge.errors import UsageError
from pooljudge.ground.defaults import DEFAULT_MEASURES
from pooljudge.ground.progress import progress

ERROR_COLUMNS = ("se", "ci_low", "ci_high")

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from pooljudge.metrics.qrels_lookup import Qrels
    from pooljudge.metrics.registry import Measure
    from pooljudge.metrics.results import RunResult

HELP = "evaluate runs against qrels (trec_eval -c numbers, unjudged rates beside them)"
TABLE_COVERAGE = "Unjudged@10"
AUTOMATIC_COLUMN = "Automatic@10"
MIN_TOPICS = 25


class _ListMeasures(argparse.Action):
    """``--list-measures [NAME]``: print the measure catalogue (every measure, or NAME's entry)
    and exit, like --help: QRELS and RUN are not needed."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        import pooljudge.metrics  # noqa: F401  (registers the measures)
        from pooljudge.errors import InputError
        from pooljudge.metrics.catalogue import catalogue

        try:
            text = catalogue(values if isinstance(values, str) else None)
        except InputError as exc:
            parser.error(str(exc))
        print(text)
        parser.exit(0)


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("eval", help=HELP, description=HELP)
    add_qrels_runs(parser, dataset=True)  # --soft-qrels too takes QRELS as a run
    parser.add_argument("--list-measures", action=_ListMeasures, nargs="?", metavar="NAME",
                        help="print every measure (or NAME's: P, P@10, P_10) with its "
                             "parameters, summary and trec_eval names, then exit")
    add_dataset_option(parser, "qrels (every positional is then a run)")
    add_measure_option(parser, DEFAULT_MEASURES)
    parser.add_argument("--per-topic", action="store_true", help="also print every topic's values")
    parser.add_argument("--topic-groups", metavar="FILE",
                        help="'topic group' lines: print means per group instead "
                             "(columns run group measure topics value)")
    parser.add_argument("--judged-only", action="store_true",
                        help="drop unjudged documents before scoring (trec_eval -J)")
    parser.add_argument("--provenance", metavar="FILE",
                        help="the export's provenance TSV (--policy human-else-automatic:NAME): "
                             "also show Automatic@10, the share of the top 10 labelled by the "
                             "automatic judge")
    parser.add_argument("--prels", metavar="FILE",
                        help="sampled judgments (the FILE.prels.tsv of a sampled campaign's "
                             "export): needed by the estimators xinfAP, infNDCG, statAP, "
                             "statPrec@k, statNDCG")
    parser.add_argument("--se", action="store_true",
                        help="with --prels: each estimate's standard error (statPrec@k: "
                             "Hajek's variance of the stratified unequal-probability sample; "
                             "others: see --se-method) and the 95%% t interval "
                             "of the mean over topics "
                             "(tsv/json: columns se ci_low ci_high)")
    parser.add_argument("--se-method", choices=("linearised", "bootstrap"),
                        help="implies --se: the SE of statAP, statNDCG, xinfAP, infNDCG by "
                             "linearisation (Hajek's variance of each judged document's "
                             "delete-one influence, less the second-order surplus its pairs "
                             "measure) or by a seeded bootstrap within strata "
                             "(default: each estimator's own, pooljudge.metrics.uncertainty)")
    add_units_options(parser, "the level of the qrels")
    add_soft_options(parser)
    add_compat_option(parser)
    add_format_option(parser, "table (default): means per run; tsv: run topic measure value. "
                              "Every format also gives NumRet (documents returned, summed over "
                              "topics) and, per cutoff k of the measures, short@k (topics "
                              "where fewer than k were returned; a topic missing from the run "
                              "counts; not per group with --topic-groups)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with _lean_start():
        from pooljudge.metrics.estimators import check_prels
        from pooljudge.metrics.eval_inputs import parse_all
        from pooljudge.metrics.evaluate import score_all
        from pooljudge.metrics.returned import cutoffs, num_ret, with_counts

    measures = measures_from(args)
    if args.soft_qrels is not None:
        return run_soft(args, measures)
    refuse_soft_options(args)
    check_prels(measures, args.prels is not None)
    if (args.se or args.se_method) and not args.prels:
        raise UsageError("--se needs --prels FILE: standard errors are those of the estimators "
                         "from sampled judgments")
    _refuse_with_units(args)
    qrels_source, args.runs = qrels_and_runs(args)
    computed = num_ret(measures)
    if args.format == "table":
        computed = list(dict.fromkeys([*computed, *parse_all([TABLE_COVERAGE])]))
    groups = None
    if args.topic_groups and args.provenance:
        raise UsageError("--provenance and --topic-groups cannot be combined: the automatic "
                         "share is reported per run; evaluate once without --topic-groups")
    if args.topic_groups:
        from pooljudge.formats.groups import read_topic_groups

        groups = read_topic_groups(args.topic_groups)
    bar = progress(total=len(args.runs), desc="runs", unit="run")
    # short@k is a count per topic, not a measure: a group's mean of it would mislead
    ks = cutoffs(measures) if groups is None else []

    def seen(result: RunResult) -> None:
        _warn_about(result, measures)
        bar.update(1)

    try:
        if args.units is not None:
            qrels, results, level = _score_units(args, qrels_source, computed, seen)
        else:
            level = None
            qrels, results = score_all(qrels_source, args.runs, computed,
                                       judged_only=args.judged_only, runs_seen=seen,
                                       compat=args.compat, prels=args.prels,
                                       se=args.se_method or args.se)
    finally:
        bar.close()
    results = [with_counts(result, ks) for result in results]
    if qrels.n_topics < MIN_TOPICS:
        warn("eval", f"only {qrels.n_topics} topics evaluated: fewer than {MIN_TOPICS} are too "
             "few to rank systems reliably")
    automatic = _automatic(args) if args.provenance else None
    if groups is not None:
        from pooljudge.cli.output import group_text

        text = group_text("eval", results, groups, args.format)
    else:
        text = _render(results, args.format, _shown(measures), args.per_topic, automatic,
                       level)
    emit(text, args.output)
    return 0


@contextlib.contextmanager
def _lean_start() -> Iterator[None]:
    """The first imports of numpy and pyarrow made cheaper, in a process that has not imported
    numpy yet (the ``pooljudge eval`` command; nothing changes when it is loaded already):

    - ``OPENBLAS_NUM_THREADS`` defaults to 1: numpy's OpenBLAS otherwise starts a thread per
      core at import that busy-waits for work; eval does no BLAS work, and that CPU time
      competed with parsing on a busy machine (a setting given by the user stands);
    - no garbage collection passes while the modules load: they create some 100,000 objects
      and no garbage, and each full pass over them (a few per start-up) was wasted. The
      collector is on again afterwards.
    """
    if "numpy" in sys.modules:
        yield
        return
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _shown(measures: Sequence) -> list[str]:
    """The measures asked for, then the counts (NumRet, short@k) beside them."""
    from pooljudge.metrics.returned import count_names

    return [*(str(m) for m in measures), *count_names(measures)]


def _refuse_with_units(args: argparse.Namespace) -> None:
    """--units moves pairs between levels: options bound to the pairs of one level refuse it."""
    if args.units is None:
        if args.level is not None:
            raise UsageError("--level needs --units FILE: eval tells chunks from documents by "
                             "the unit map")
        return
    for option, given in (("--prels", args.prels), ("--provenance", args.provenance)):
        if given:
            raise UsageError(f"{option} cannot be combined with --units: its judgments are "
                             "(topic, id) pairs of one level; evaluate at that level without "
                             "--units")


def _score_units(args: argparse.Namespace, source: str | pd.DataFrame, measures: Sequence,
                 seen: Callable[[RunResult], None]) -> tuple[Qrels, list[RunResult], str]:
    """Qrels and runs moved to the level asked for (:mod:`pooljudge.cli.units_inputs`), each
    run read whole, then scored like any run; also the level."""
    from pooljudge.cli.inputs import read_runs
    from pooljudge.cli.units_inputs import load_units, qrels_at, run_at
    from pooljudge.formats.trec import read_qrels
    from pooljudge.metrics.eval_inputs import load_qrels
    from pooljudge.metrics.evaluate import score

    units = load_units(args, "eval")
    assert units is not None  # called with --units
    if isinstance(source, str):
        given, path = read_qrels(source), source
    else:
        given, path = source, qrels_name(args)
    frame, level = qrels_at(given, units, args.level, path=path, command="eval")
    qrels = load_qrels(frame)
    results = []
    for name, run in read_runs(args.runs):
        result = score(qrels, name, run_at(name, run, units, level), measures,
                       judged_only=args.judged_only, compat=args.compat)
        seen(result)
        results.append(result)
    return qrels, results, level


def _warn_about(result, measures: Sequence) -> None:
    """Warnings about topics only in the run and topics where the run returned fewer than k
    (k of the ``measures`` asked for, not of the table's added coverage column)."""
    import numpy as np

    from pooljudge.metrics.returned import short_warning
    if result.run_only_topics:
        warn("eval", f"{result.name}: {result.run_only_topics} topic(s) only in the run, not in "
             "the qrels: ignored")
    missing = int((result.returned == 0).sum())
    if missing:
        warn("eval", f"{result.name}: {missing} qrels topic(s) missing from the run score 0")
    short = short_warning(result, measures)
    if short:
        warn("eval", short)
    for measure in measures:
        never = int(np.isnan(result.values[measure]).sum()) if measure.name == "RecallDepth" else 0
        if never:
            warn("eval", f"{result.name}: {never} topic(s) never reach the recall of {measure}: "
                 "no value")


def _automatic(args: argparse.Namespace) -> list[RunResult]:
    """Per run, P@10 against the provenance's automatic-line marks: Automatic@10."""
    from pooljudge.annotate.ppi import AUTOMATIC_AT, automatic_qrels
    from pooljudge.metrics.eval_inputs import parse_all
    from pooljudge.metrics.evaluate import score_all

    marks = automatic_qrels(args.provenance)
    return score_all(marks, args.runs, parse_all([f"P@{AUTOMATIC_AT}"]),
                     compat=args.compat)[1]


def _render(results: Sequence[RunResult], fmt: str, shown: list[str], per_topic: bool,
            automatic: Sequence[RunResult] | None = None, level: str | None = None) -> str:
    """tsv (``run topic measure value``), json records, or the means table; ``automatic``
    (P@10 against the automatic marks) adds Automatic@10 rows, or a column of the table;
    ``level`` (with --units) is named in the table's legend."""
    if automatic is not None and fmt != "table":
        results = [*results, *_renamed(automatic)]
    from pooljudge.metrics.evaluate import tidy

    if any(result.errors for result in results):
        if fmt != "table":
            return _errors_text(results, fmt, shown, per_topic)
        from pooljudge.cli.eval_table import errors_table_text

        text = errors_table_text(results, shown)
        if text is not None:
            return f"{text}\n{ERRORS_LEGEND}\n"
        return _with_errors(tidy(results, per_topic=per_topic), shown)
    if fmt == "tsv":
        lines = ["run\ttopic\tmeasure\tvalue"]
        lines += [f"{r}\t{t}\t{m}\t{v!r}" for r, t, m, v in _rows(results, per_topic)]
        return "\n".join(lines) + "\n"
    if fmt == "json":
        records = [{"run": r, "topic": t, "measure": m, "value": v}
                   for r, t, m, v in _rows(results, per_topic)]
        return json.dumps(records, indent=1) + "\n"

    if automatic is not None:
        results = [*results, *_renamed(automatic)]
        return _table(tidy(results, per_topic=per_topic), shown, True, level)
    from pooljudge.cli.eval_table import table_text
    from pooljudge.metrics.returned import NUM_RET

    counts = [m for m in shown if m == NUM_RET or m.startswith("short@")]
    text = table_text(results, shown, counts, (TABLE_COVERAGE, "unjudged@10"), per_topic)
    if text is None:  # a case the pandas frame handles its own way (eval_table's docstring)
        return _table(tidy(results, per_topic=per_topic), shown, False, level)
    return _with_legend(text, False, level)


ERRORS_LEGEND = ("mean over topics; se = its standard error; ci = 95% t interval over the "
                 "topic estimates (--format tsv: every topic's own SE)")


def _with_errors(frame: pd.DataFrame, shown: list[str]) -> str:
    """--se table: per run and measure, the mean and, for the estimators, the SE of the mean
    and its 95% t interval (tsv and json: :func:`_errors_text`)."""
    frame = frame[frame["measure"].isin(shown)]
    means = frame[frame["topic"] == "all"]
    text = means.drop(columns="topic").to_string(index=False,
                                                 float_format=lambda v: f"{v:.4f}")
    return f"{text}\n{ERRORS_LEGEND}\n"


def _errors_text(results: Sequence[RunResult], fmt: str, shown: list[str], per_topic: bool
                 ) -> str:
    """--se tsv/json: rows ``run topic measure value se ci_low ci_high`` in tidy's order, from
    the results' arrays (no pandas); NaN is an empty tsv field, null in json."""
    from pooljudge.metrics.uncertainty import error_columns

    wanted = set(shown)
    rows = []
    for result in results:
        extra = error_columns(result, per_topic)
        errors = zip(*(extra[k].tolist() for k in ERROR_COLUMNS), strict=True)
        rows += [(*row, *more) for row, more in zip(_rows([result], per_topic), errors,
                                                     strict=True) if row[2] in wanted]
    names = ["run", "topic", "measure", "value", *ERROR_COLUMNS]
    if fmt == "json":
        records = [dict(zip(names, (*row[:3], *(None if v != v else v for v in row[3:])),
                            strict=True)) for row in rows]
        return json.dumps(records, indent=1) + "\n"
    lines = ["\t".join(names)]
    lines += ["\t".join([*row[:3], *("" if v != v else repr(v) for v in row[3:])])
              for row in rows]
    return "\n".join(lines) + "\n"


def _renamed(automatic: Sequence[RunResult]) -> list[RunResult]:
    """The Automatic@10 results under their own measure name (a P@10 in disguise)."""
    import dataclasses

    renamed = []
    for result in automatic:
        (measure, values), = result.values.items()
        name = _Automatic(measure)
        # RunResult's keys are measures; a column shown under another name stands in for one
        shown: dict[Any, np.ndarray] = {name: values}
        summary: dict[Any, float] = {name: result.summary[measure]}
        renamed.append(dataclasses.replace(result, values=shown, summary=summary))
    return renamed


class _Automatic:
    """A measure name shown as ``Automatic@10`` (the values are P@10 against the marks)."""

    def __init__(self, measure: Measure) -> None:
        self.measure = measure

    def __str__(self) -> str:
        return AUTOMATIC_COLUMN


def _rows(results: Sequence[RunResult], per_topic: bool) -> Iterator[tuple[str, str, str, float]]:
    """(run, topic, measure, value) in :func:`pooljudge.metrics.evaluate.tidy`'s order: per run, its
    topics (with ``per_topic``), then the summary rows (topic ``all``)."""
    from pooljudge.metrics.evaluate import ALL_TOPICS

    for result in results:
        names = [str(m) for m in result.values]
        if per_topic:
            columns = [v.tolist() for v in result.values.values()]
            for index, topic in enumerate(result.topics):
                for name, values in zip(names, columns, strict=True):
                    yield result.name, topic, name, float(values[index])
        for name, value in zip(names, result.summary.values(), strict=True):
            yield result.name, ALL_TOPICS, name, float(value)


def _table(frame: pd.DataFrame, shown: list[str], automatic: bool = False,
           level: str | None = None) -> str:
    """Means per run (and per topic with --per-topic), the counts (NumRet, short@k) as
    integers, the unjudged share of the top 10 (and, with ``automatic``, the automatically
    labelled share beside it)."""
    from pooljudge.metrics.returned import NUM_RET

    wide = frame.pivot_table(index=["run", "topic"], columns="measure", values="value",
                             sort=False)
    coverage = wide[TABLE_COVERAGE]
    wide = wide[[m for m in shown if m != TABLE_COVERAGE]]
    counts = [m for m in shown if m == NUM_RET or m.startswith("short@")]
    wide[counts] = wide[counts].round().astype("int64")
    wide["unjudged@10"] = coverage
    if automatic:
        wide["automatic@10"] = frame.pivot_table(
            index=["run", "topic"], columns="measure", values="value", sort=False)[
            AUTOMATIC_COLUMN]
    wide = wide.reset_index()
    return _with_legend(wide.to_string(index=False, float_format=lambda v: f"{v:.4f}"),
                        automatic, level)


def _with_legend(text: str, automatic: bool, level: str | None) -> str:
    """The table's text, then its legend line (naming Automatic@10 and the --units level)."""
    legend = ("topic 'all' = mean over the evaluated topics; NumRet = documents returned "
              "(summed over topics); short@k = topics where fewer than k documents were "
              "returned (a topic missing from the run counts); unjudged@10 = share of the top "
              "10 with no judgment or a negative label (Unjudged@10)")
    if automatic:
        legend += ("; automatic@10 = share of the top 10 labelled by the automatic judge "
                   "(from the provenance)")
    if level is not None:
        from pooljudge.metrics.units import LEVEL_NAMES

        legend += f"; evaluated at {LEVEL_NAMES[level]} level (--units)"
    return f"{text}\n{legend}\n"
