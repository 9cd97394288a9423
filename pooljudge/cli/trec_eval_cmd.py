"""``pooljudge trec_eval [options] QRELS RUN``: a drop-in for trec_eval 10.0's command line.

It takes trec_eval's options (also glued: ``-M100``, ``-l2``, ``-mP.5``, ``-qc``; and the long
forms such as ``--query_eval_wanted``) and prints what trec_eval 10.0 prints, line for line.
trec_eval 10.0's flow, reproduced (:mod:`~pooljudge.cli.trec_eval_topics`): the qrels topics in
byte order; with ``-c`` a topic the run lacks ranks trec_eval's one-document sentinel, without
it the first such topic stops the output (exit status 4); ``-M N`` keeps each topic's top N
in ranking order before anything else; ``-J`` then drops documents without a judgment (or with
a negative label); ``-l`` is the relevance level; ``-N`` the collection size for ``utility``.
The run may be ``-`` (standard input) and gzip-compressed. A blank qrels line is refused
(exit status 2), as trec_eval refuses it. Left out: the prefs and qrels_jg
input formats (``-R``), z-scores (``-Z``), the old output format (``-o``) and debugging (``-D``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pooljudge import __version__
from pooljudge.cli import Subcommands
from pooljudge.errors import InputError, UsageError

if TYPE_CHECKING:
    import numpy as np

    from pooljudge.cli.trec_eval_print import Evaluation
    from pooljudge.formats.trec import RunColumns
    from pooljudge.metrics.qrels_lookup import Qrels
    from pooljudge.metrics.trec_names import Entry

HELP = "trec_eval 10.0's command line and output, exactly (-q -c -J -n -M -l -N -m)"
DESCRIPTION = (
    "A drop-in for trec_eval 10.0: the same options, the same lines, order, padding and "
    "values (%6.4f, counts as integers). Measures are named as trec_eval names them: -m "
    "official (the default), -m all_trec, -m set, -m P.5,10, -m ndcg_cut.10, -m "
    "iprec_at_recall..25,.5, -m utility.2,-1,0,0, -m ndcg.1=3,2=9, -m relstring.20, -m runid."
)
EPILOG = (
    "Not supported: the prefs and qrels_jg rel_info formats and their measures, dcg, "
    "ideal_dcg and yaap, z-scores (-Z), the old output format (-o) and debug output (-D)."
)
STDIN_NAME = "<stdin>"


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("trec_eval", help=HELP, description=DESCRIPTION,
                                   epilog=EPILOG)
    parser.add_argument("qrels", metavar="QRELS", help="qrels file: topic iteration doc label")
    parser.add_argument("run", metavar="RUN",
                        help="run file (plain or gzip): topic Q0 doc rank score tag; "
                             "- reads standard input")
    parser.add_argument("-q", "--query_eval_wanted", action="store_true",
                        help="also print each topic's values, before the summary")
    parser.add_argument("-m", "--measure", action="append", dest="measures",
                        metavar="MEASURE[.PARAMS]",
                        help="a trec_eval measure or set (official, all_trec, set), with "
                             "parameters after a dot; repeat for more. Default: official")
    parser.add_argument("-c", "--complete_rel_info_wanted", dest="complete", action="store_true",
                        help="evaluate a qrels topic the run lacks as trec_eval 10 does (on "
                             "its one-document sentinel ranking); without -c such a topic "
                             "stops trec_eval with exit status 4")
    parser.add_argument("-l", "--level_for_rel", dest="rel", type=_count("-l", 1), default=1,
                        metavar="N", help="the lowest label that counts as relevant (default 1)")
    parser.add_argument("-n", "--nosummary", action="store_true",
                        help="print no summary (topic all) lines")
    parser.add_argument("-J", "--Judged_docs_only", dest="judged_only", action="store_true",
                        help="drop documents without a judgment (or with a negative label) "
                             "from every ranking first")
    parser.add_argument("-N", "--Number_docs_in_coll", dest="num_docs", type=_count("-N", 0),
                        default=0, metavar="N",
                        help="number of documents in the collection (for utility)")
    parser.add_argument("-M", "--Max_retrieved_per_topic", dest="max_docs",
                        type=_count("-M", 0), metavar="N",
                        help="evaluate only each topic's top N documents")
    parser.add_argument("-R", "--Rel_info_format", dest="rel_format", default="qrels",
                        metavar="FORMAT", help="rel_info format: only qrels (the default)")
    parser.add_argument("-T", "--Results_format", dest="results_format",
                        default="trec_results", metavar="FORMAT",
                        help="results format: only trec_results (the default)")
    parser.add_argument("-v", "--version", action="version",
                        version=f"pooljudge {__version__} trec_eval (trec_eval 10.0 output)",
                        help="print the version and exit")
    parser.add_argument("-D", "--Debug_level", metavar="N",
                        help="trec_eval's debug output: not supported (an error)")
    parser.add_argument("-o", "--Output_old_results_format", dest="old_format",
                        action="store_true",
                        help="trec_eval's old output format: not supported (an error)")
    parser.add_argument("-Z", "--Zscore", metavar="FILE",
                        help="z-scores instead of values: not supported (an error)")
    parser.set_defaults(handler=run)


def _count(option: str, minimum: int):
    """An argparse type: an integer >= ``minimum``."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    convert.__name__ = option
    return convert


def run(args: argparse.Namespace) -> int:
    import numpy as np
    import pyarrow.compute as pc

    from pooljudge.cli.trec_eval_print import render
    from pooljudge.cli.trec_eval_topics import with_sentinel
    from pooljudge.formats.blank_lines import refuse_blank_lines
    from pooljudge.metrics.eval_inputs import load_qrels
    from pooljudge.metrics.trec_names import expand_all

    _refuse_unsupported(args)
    try:
        entries = expand_all(args.measures or ["official"], rel=args.rel,
                             num_docs=args.num_docs)
    except InputError as exc:
        raise UsageError(f"-m: {exc}") from None
    refuse_blank_lines(args.qrels)
    qrels = load_qrels(args.qrels)
    run_columns, runid = read_run(args.run)
    in_run = pc.is_in(qrels.topics, value_set=run_columns.topic.dictionary)
    in_run = in_run.to_numpy(zero_copy_only=False)
    missing = np.flatnonzero(~in_run)
    if args.complete:
        run_columns = with_sentinel(run_columns, [qrels.topics[i].as_py() for i in missing])
    if args.max_docs is not None:
        run_columns = truncate(run_columns, args.max_docs)
    if not args.complete and len(missing):
        return _stop_at_missing(args, entries, qrels, run_columns, in_run, runid,
                                int(missing[0]))
    evaluation = _evaluate(args, entries, qrels, run_columns, runid,
                           evaluated=np.ones(len(in_run), dtype=bool), skipped=~in_run)
    sys.stdout.write(render(entries, evaluation, per_topic=args.query_eval_wanted,
                            summary=not args.nosummary))
    return 0


def _stop_at_missing(args: argparse.Namespace, entries: list[Entry], qrels: Qrels,
                     run: RunColumns, in_run: np.ndarray, runid: str, missing: int) -> int:
    """Without -c, trec_eval 10.0 stops at the first qrels topic (byte order) the run lacks:
    the topics before it printed (-q), its message on standard error, exit status 4."""
    import numpy as np

    from pooljudge.cli.trec_eval_print import render
    from pooljudge.cli.trec_eval_topics import MISSING_TOPIC_STATUS, missing_topic_message

    if args.query_eval_wanted and missing > 0:
        before = np.arange(len(in_run)) < missing
        evaluation = _evaluate(args, entries, qrels, run, runid, evaluated=before,
                               skipped=np.zeros(len(in_run), dtype=bool))
        sys.stdout.write(render(entries, evaluation, per_topic=True, summary=False))
    sys.stdout.flush()
    sys.stderr.write(missing_topic_message(qrels.topics[missing].as_py()))
    return MISSING_TOPIC_STATUS


def _evaluate(args: argparse.Namespace, entries: list[Entry], qrels: Qrels, run: RunColumns,
              runid: str, *, evaluated: np.ndarray, skipped: np.ndarray) -> Evaluation:
    """Score the (truncated) run once; join it again only for relstring and rbp_resid.

    ``evaluated``: the qrels topics printed and averaged; ``skipped``: those the run file
    lacks (with -c ``run`` ranks the sentinel for them)."""

    from pooljudge.cli.trec_eval_print import (
        ZEROED_WHEN_ALL_JUDGED,
        Evaluation,
        relstrings,
        unjudged_counts,
    )
    from pooljudge.metrics.evaluate import score
    from pooljudge.metrics.join import join
    from pooljudge.metrics.registry import Measure
    from pooljudge.metrics.trec_names import StringMeasure

    measures = list(dict.fromkeys(e.measure for e in entries if isinstance(e.measure, Measure)))
    result = score(qrels, "run", run, measures, judged_only=args.judged_only, compat="10")
    lengths = {e.measure.length for e in entries if args.query_eval_wanted
               and isinstance(e.measure, StringMeasure) and e.measure.kind == "relstring"}
    needs_unjudged = any(e.family in ZEROED_WHEN_ALL_JUDGED for e in entries)
    strings, unjudged = {}, None
    if lengths or needs_unjudged:
        ranking = join(qrels, run, judged_only=args.judged_only, compat="10")
        strings = relstrings(ranking, lengths)
        unjudged = unjudged_counts(ranking) if needs_unjudged else None
    empty = (result.returned == 0) & (args.judged_only or args.max_docs == 0)
    return Evaluation(topics=result.topics, values=result.values, qrels=qrels,
                      evaluated=evaluated, skipped=skipped, empty=empty,
                      runid=runid, unjudged=unjudged, relstrings=strings,
                      all_num_rel=int(qrels.num_rel(1).sum()) if args.complete else None)


def _refuse_unsupported(args: argparse.Namespace) -> None:
    """UsageError for the trec_eval options pooljudge does not reproduce."""
    if args.rel_format != "qrels":
        raise UsageError(f"-R {args.rel_format}: only the qrels rel_info format is supported")
    if args.results_format != "trec_results":
        raise UsageError(f"-T {args.results_format}: only the trec_results format is supported")
    for given, option, what in ((args.Zscore, "-Z", "z-scores are"),
                                (args.old_format, "-o", "the old output format is"),
                                (args.Debug_level, "-D", "debug levels are")):
        if given is not None and given is not False:
            raise UsageError(f"{option}: {what} not supported by pooljudge trec_eval")


def read_run(path: str) -> tuple[RunColumns, str]:
    """The run's checked columns and its run id: the tag of its last line (trec_eval's rule).

    ``-`` reads standard input (gzip or plain); its errors name ``<stdin>``.
    """
    if path != "-":
        return _read_run_file(path)
    import tempfile

    from pooljudge.formats.limits import copy_stdin

    with tempfile.TemporaryDirectory(prefix="pooljudge-") as folder:
        copy = Path(folder) / "run"
        copy_stdin(copy, STDIN_NAME)
        try:
            return _read_run_file(copy)
        except InputError as exc:
            raise InputError(exc.message, path=STDIN_NAME, line=exc.line) from None


def _read_run_file(path: str | Path) -> tuple[RunColumns, str]:
    from pooljudge.formats.columnar import encode_run, parse_run

    table = parse_run(path, tag=True)
    tags = table["tag"]
    return encode_run(table, path), str(tags[len(tags) - 1])


def truncate(run: RunColumns, depth: int) -> RunColumns:
    """trec_eval's -M: each topic's first ``depth`` documents in ranking order (score
    descending, doc id descending), rows kept in file order."""
    import numpy as np

    from pooljudge.formats.trec import RunColumns
    from pooljudge.kernels import int_array, numpy_of
    from pooljudge.kernels.ranking import rank_rows

    codes = numpy_of(run.topic.indices).astype(np.int64)
    if len(codes) == 0 or np.bincount(codes).max() <= depth:
        return run
    order = rank_rows(codes, run.score, run.doc, precision="double")
    ranked = codes[order]
    starts = np.flatnonzero(np.concatenate(([True], ranked[1:] != ranked[:-1])))
    sizes = np.diff(np.append(starts, len(order)))
    rank = np.arange(len(order)) - np.repeat(starts, sizes)
    keep = np.sort(order[rank < depth])
    rows = int_array(keep)
    doc_hash = None if run.doc_hash is None else run.doc_hash[keep]
    return RunColumns(run.topic.take(rows), run.doc.take(rows), run.score[keep], doc_hash)
