"""``pooljudge eval --soft-qrels FILE RUN...``: expected values and percentile intervals over
qrels drawn from a posterior (:mod:`pooljudge.metrics.soft_eval`)."""

from __future__ import annotations

import argparse
import json

from pooljudge.cli.options import positive_int, seed
from pooljudge.cli.output import emit
from pooljudge.errors import UsageError

MAX_SAMPLES = 100_000
LEGEND = ("expected = mean over {s} qrels drawn from the soft qrels (seed {seed}); low, high = "
          "the 2.5th and 97.5th percentiles of the drawn values; topic 'all' = the summary "
          "over topics")
REFUSED = ("dataset", "prels", "se", "se_method", "units", "topic_groups", "provenance")


def add_soft_options(parser: argparse.ArgumentParser) -> None:
    """``--soft-qrels FILE``, ``--samples S`` and ``--seed N``."""
    parser.add_argument("--soft-qrels", metavar="FILE",
                        help="soft qrels (P(label) per pair, `export --soft-qrels`): every "
                             "positional is then a run; prints each measure's expected value "
                             "and 95%% percentile interval over qrels drawn from them")
    parser.add_argument("--samples", type=positive_int(MAX_SAMPLES), default=None,
                        help="with --soft-qrels: qrels drawn (default 200)")
    parser.add_argument("--seed", type=seed, default=None,
                        help="with --soft-qrels: the draws' seed (default 0)")


def run_soft(args: argparse.Namespace, measures: list) -> int:
    """Read the soft qrels and the runs (every positional), draw, score, print."""
    from pooljudge.formats.soft_qrels import read_soft_qrels
    from pooljudge.formats.trec import read_run, run_name
    from pooljudge.metrics.soft_eval import DEFAULT_SAMPLES, soft_evaluate

    for name in REFUSED:
        if getattr(args, name, None):
            raise UsageError(f"--{name.replace('_', '-')} cannot be combined with --soft-qrels")
    soft = read_soft_qrels(args.soft_qrels)
    runs = {}
    for path in [args.qrels, *args.runs]:
        name = run_name(path)
        if name in runs:
            raise UsageError(f"two runs are named {name!r}")
        runs[name] = read_run(path)
    samples = args.samples or DEFAULT_SAMPLES
    result = soft_evaluate(soft, runs, measures, samples=samples, seed=args.seed or 0,
                           per_topic=args.per_topic, judged_only=args.judged_only,
                           compat=args.compat)
    emit(_render(result.frame, args.format, samples, args.seed or 0), args.output)
    return 0


def refuse_soft_options(args: argparse.Namespace) -> None:
    """--samples and --seed belong to --soft-qrels."""
    for option, given in (("--samples", args.samples), ("--seed", args.seed)):
        if given is not None:
            raise UsageError(f"{option} needs --soft-qrels FILE")


def _render(frame, fmt: str, samples: int, seed_value: int) -> str:
    if fmt == "json":
        return json.dumps(frame.to_dict(orient="records"), indent=1) + "\n"
    if fmt == "tsv":
        lines = ["\t".join(frame.columns)]
        lines += ["\t".join([r, t, m, *(repr(float(v)) for v in values)])
                  for r, t, m, *values in frame.itertuples(index=False)]
        return "\n".join(lines) + "\n"
    text = frame.to_string(index=False, float_format=lambda v: f"{v:.4f}")
    return f"{text}\n{LEGEND.format(s=samples, seed=seed_value)}\n"
