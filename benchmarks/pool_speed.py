"""Depth-100 pool of the 17 robust03 runs: pooljudge against trectools' TrecPoolMaker (topX).

Two measurements, each repeated and interleaved (pooljudge, trectools, pooljudge, ...):

- end to end: read the 17 gzip run files and build the pool (pooljudge: ``read_runs`` as the
  command line does, each reading thread checking its whole file and cutting it to the top-k
  candidates, then ``build_pool``, which also records best rank and runs per pair;
  trectools: ``TrecRun(path)`` per file, then ``make_pool(..., strategy="topX", topX=100)``);
- pool step only: the same pool from runs already in memory.

Prints the median of each and the ratio trectools / pooljudge. Data: the folder named by
$POOLJUDGE_SHARED_DATA (holding ``robust03/runs``). Usage:
``python benchmarks/pool_speed.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings
from pathlib import Path

from pooljudge.pooling import build_pool

from pooljudge.cli.inputs import read_runs
from pooljudge.formats.trec import read_run_columns, run_name

DEPTH = 100


def data_folder() -> Path:
    folder = os.environ.get("POOLJUDGE_SHARED_DATA")
    if not folder:
        raise SystemExit("set POOLJUDGE_SHARED_DATA to the folder that holds robust03/runs")
    return Path(folder) / "robust03" / "runs"


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from trectools import TrecPoolMaker, TrecRun

    paths = sorted(str(p) for p in data_folder().glob("input.*.gz"))
    if len(paths) != 17:
        raise SystemExit(f"expected 17 robust03 runs in {data_folder()}, found {len(paths)}")
    columns = {run_name(p): read_run_columns(p) for p in paths}
    trec_runs = [TrecRun(p) for p in paths]
    times: dict[str, list[float]] = {k: [] for k in ("ours_e2e", "theirs_e2e", "ours", "theirs")}
    sizes: dict[str, int] = {}
    for _ in range(args.repeat):
        seconds, pool = timed(lambda: build_pool(read_runs(paths, depth=DEPTH), DEPTH))
        times["ours_e2e"].append(seconds)
        sizes["pooljudge"] = len(pool.pairs)
        seconds, theirs = timed(lambda: TrecPoolMaker().make_pool(
            [TrecRun(p) for p in paths], strategy="topX", topX=DEPTH))
        times["theirs_e2e"].append(seconds)
        sizes["trectools"] = int(theirs.get_total_pool_size())
        times["ours"].append(timed(lambda: build_pool(columns, DEPTH))[0])
        times["theirs"].append(timed(lambda: TrecPoolMaker().make_pool(
            trec_runs, strategy="topX", topX=DEPTH))[0])
    median = {k: statistics.median(v) for k, v in times.items()}
    print(f"robust03: 17 runs, depth {DEPTH}, {args.repeat} repeats, medians")
    print(f"pool pairs: pooljudge {sizes['pooljudge']}, trectools {sizes['trectools']} "
          "(trectools breaks score ties by doc id ascending, trec_eval descending)")
    print(f"{'measurement':<32}{'pooljudge':>11}{'trectools':>11}{'ratio':>8}")
    for label, ours, theirs in (("read files + pool (end to end)", "ours_e2e", "theirs_e2e"),
                                ("pool step only (runs in memory)", "ours", "theirs")):
        print(f"{label:<32}{median[ours]:>10.3f}s{median[theirs]:>10.3f}s"
              f"{median[theirs] / median[ours]:>7.1f}x")


if __name__ == "__main__":
    main()
