"""Time ``pooljudge bias`` against a pytrec_eval leave-one-run-out script on the robust03 runs.

Both are whole processes computing the same table (AP, P@10, nDCG@10 with and without each
run's depth-K pool share, over every qrels topic) for the 17 TREC 2003 Robust runs; they run
interleaved, ``--repeat`` times each; the medians of wall and CPU time and their ratios are
printed (CPU time is the fairer figure on a shared, loaded machine). The data
folder is ``$POOLJUDGE_SHARED_DATA`` (or ``--data``).

    .venv/bin/python benchmarks/bias_speed.py [--depth 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTREC_SCRIPT = '''
import collections, gzip, sys
import pytrec_eval

def lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        yield from handle

def parse_run(path):
    run = collections.defaultdict(dict)
    for line in lines(path):
        topic, _, doc, _, score, _ = line.split()
        run[topic][doc] = float(score)
    return run

depth, qrels_path, paths = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
qrels = collections.defaultdict(dict)
for line in lines(qrels_path):
    topic, _, doc, label = line.split()
    qrels[topic][doc] = int(label)
runs = {path: parse_run(path) for path in paths}
tops = {}
for path, run in runs.items():
    ranked = {t: sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)
              for t, docs in run.items()}
    tops[path] = {(t, d) for t, docs in ranked.items() for d, _ in docs[:depth]}
everything = set().union(*tops.values())
names = ("map", "P_10", "ndcg_cut_10")

def restricted(pool):
    judged = collections.defaultdict(dict)
    for t, docs in qrels.items():
        for d, label in docs.items():
            if (t, d) in pool:
                judged[t][d] = label
    return judged

def means(judged, run):
    result = pytrec_eval.RelevanceEvaluator(judged, set(names)).evaluate(run)
    return [sum(result.get(t, {}).get(n, 0.0) for t in qrels) / len(qrels) for n in names]

with_qrels = restricted(everything)
for path, run in runs.items():
    others = set().union(*(tops[o] for o in runs if o != path))
    print(path, means(with_qrels, run), means(restricted(others), run))
'''


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one child process; exits when it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        error = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"{command[:3]} failed: {error}")
    return elapsed, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("POOLJUDGE_SHARED_DATA"))
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if not args.data or not Path(args.data, "robust03").is_dir():
        raise SystemExit("set POOLJUDGE_SHARED_DATA (or --data) to the shared data folder")
    folder = Path(args.data, "robust03")
    qrels = str(folder / "qrels.txt")
    runs = sorted(str(p) for p in (folder / "runs").glob("input.*.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp, "bias_pytrec_eval.py")
        script.write_text(PYTREC_SCRIPT)
        commands = {
            "pooljudge": [sys.executable, "-m", "pooljudge", "bias", qrels, *runs,
                          "--depth", str(args.depth), "-m", "AP P@10 nDCG@10", "--format", "tsv"],
            "pytrec_eval": [sys.executable, str(script), str(args.depth), qrels, *runs],
        }
        wall: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():  # interleaved
                seconds, used = timed(command)
                wall[name].append(seconds)
                cpu[name].append(used)
    print(f"leave-one-run-out, {len(runs)} robust03 runs, depth {args.depth}, "
          f"{args.repeat} runs each (interleaved)")
    for name in commands:
        print(f"{name:12s} median wall {statistics.median(wall[name]):6.2f} s   "
              f"cpu {statistics.median(cpu[name]):6.2f} s")
    for label, values in (("wall", wall), ("cpu", cpu)):
        ratio = statistics.median(values["pooljudge"]) / statistics.median(values["pytrec_eval"])
        print(f"ratio pooljudge / pytrec_eval ({label}): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
