"""Time ``pooljudge eval`` against a pytrec_eval script on 2,000 topics x 1,000 documents.

Both are whole processes (start-up, parsing, evaluation, output) computing P@10 nDCG@10 AP RR;
they run interleaved, ``--repeat`` times each, and the medians of wall time and of CPU time
(user + system, all threads: a loaded machine inflates wall time more than CPU time), their
ratios and the peak memory (the child's max RSS from ``os.wait4``) are printed. The generated run
has score ties.

    .venv/bin/python benchmarks/eval_speed.py [--topics 2000] [--docs 1000] [--repeat 5]
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

import numpy as np

PYTREC_SCRIPT = '''
import collections, sys
import pytrec_eval

def parse_run(path):
    run = collections.defaultdict(dict)
    with open(path) as handle:
        for line in handle:
            topic, _, doc, _, score, _ = line.split()
            run[topic][doc] = float(score)
    return run

def parse_qrels(path):
    qrels = collections.defaultdict(dict)
    with open(path) as handle:
        for line in handle:
            topic, _, doc, label = line.split()
            qrels[topic][doc] = int(label)
    return qrels

qrels, run = parse_qrels(sys.argv[1]), parse_run(sys.argv[2])
names = ("P_10", "ndcg_cut_10", "map", "recip_rank")
results = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
for name in names:
    print(name, sum(v[name] for v in results.values()) / len(qrels))
'''


def generate(folder: Path, topics: int, docs: int, seed: int = 7) -> tuple[Path, Path]:
    """A run (``docs`` per topic, scores with ties) and qrels judging 20% of each ranking."""
    rng = np.random.default_rng(seed)
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    with run_path.open("w") as run, qrels_path.open("w") as qrels:
        for topic in range(1, topics + 1):
            ids = rng.choice(10 * docs * 50, size=docs, replace=False)
            scores = np.round(rng.gamma(2.0, 2.0, size=docs), 2)  # many ties
            run.write("".join(f"{topic} Q0 D{d} {i} {s} bench\n"
                              for i, (d, s) in enumerate(zip(ids, scores, strict=True), 1)))
            judged = rng.choice(ids, size=docs // 5, replace=False)
            labels = rng.choice([0, 0, 0, 1, 2], size=len(judged))
            qrels.write("".join(f"{topic} 0 D{d} {lab}\n"
                                for d, lab in zip(judged, labels, strict=True)))
    return qrels_path, run_path


def timed(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB; ru_maxrss is KiB on Linux) of one child."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, _, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if process.stderr is not None and process.returncode not in (None, 0):
        raise SystemExit(f"{command[:3]} failed: {process.stderr.read().decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, run = generate(folder, args.topics, args.docs)
        script = folder / "pytrec_eval_script.py"
        script.write_text(PYTREC_SCRIPT)
        commands = {
            "pooljudge": [sys.executable, "-m", "pooljudge", "eval", str(qrels), str(run),
                          "-m", "P@10 nDCG@10 AP RR", "--format", "tsv"],
            "pytrec_eval": [sys.executable, str(script), str(qrels), str(run)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        memory: dict[str, float] = dict.fromkeys(commands, 0.0)
        for _ in range(args.repeat):
            for name, command in commands.items():  # interleaved
                seconds, cpu_seconds, mib = timed(command)
                times[name].append(seconds)
                cpu[name].append(cpu_seconds)
                memory[name] = max(memory[name], mib)
    print(f"{args.topics} topics x {args.docs} documents, {args.repeat} runs each (interleaved)")
    for name in commands:
        print(f"{name:12s} median {statistics.median(times[name]):6.2f} s   "
              f"CPU {statistics.median(cpu[name]):6.2f} s   peak RSS {memory[name]:7.0f} MiB")
    wall, used = (statistics.median(d["pooljudge"]) / statistics.median(d["pytrec_eval"])
                  for d in (times, cpu))
    print(f"ratio pooljudge / pytrec_eval: {wall:.2f} (CPU time: {used:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
