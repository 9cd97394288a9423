"""Time ``pooljudge eval`` against pytrec_eval (and trec_eval) on 2M and 8M run lines.

Every tool runs as a whole process (start-up, parsing, evaluation, output) computing P@10
nDCG@10 AP RR. For each size the tools run interleaved, ``--repeat`` times each; printed are the
medians of wall time and of CPU time (user + system, all threads: a loaded machine inflates wall
time more than CPU time), pooljudge's ratios to the others, and each tool's peak memory (the
child's max RSS from ``os.wait4``; the data are generated in a separate process, since a child
also counts the memory of the parent it was forked from). Each tool first runs once untimed, and
Python modules are compiled once and cached, as for an installed package. trec_eval is timed only
when a ``trec_eval`` binary is on PATH or ``TREC_EVAL`` names one; ``--baseline FOLDER`` also
times the pooljudge whose sources are in FOLDER (another version's ``pooljudge``, ``metrics``,
``pooling`` and ``annotate`` folders), so that before and after are measured in one run. The
ratios to every other tool are printed side by side.

The generated runs have ``--topics`` topics (2,000) with score ties, lines grouped by topic as
trec_eval writes them; within a topic the lines come in random score order (``--order random``,
the default and the harder case: every topic must be sorted) or in rank order, score descending,
as retrieval systems write them (``--order ranked``). The qrels judge ``--judged`` documents of
each topic (200), so they are the same size for every run size and only the run grows.

    .venv/bin/python benchmarks/eval_speed.py [--sizes 2000000 8000000] [--repeat 3]
        [--order random|ranked] [--baseline FOLDER] [--data FOLDER]
        (TREC_EVAL=/path/to/trec_eval: time it; --data FOLDER: keep the inputs there and reuse
        those generated with the same size, topics, judged count and order)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

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
MEASURES = "P@10 nDCG@10 AP RR"
TREC_EVAL_MEASURES = ["-m", "P.10", "-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank"]


def input_paths(folder: Path, lines: int, topics: int, judged: int,
                order: str) -> tuple[Path, Path]:
    """The qrels and run files of one input, named by every parameter that shapes it, so that
    ``--data`` never reuses an input generated with other topics, judged counts or order."""
    stem = f"{lines}-{topics}t-{judged}j-{order}"
    return folder / f"qrels{stem}.txt", folder / f"run{stem}.txt"


def generate(folder: Path, lines: int, topics: int, judged: int, seed: int = 7,
             order: str = "random") -> tuple[Path, Path]:
    """A run of about ``lines`` lines over ``topics`` topics (scores with ties; with ``order``
    "ranked" each topic's lines by score descending) and qrels that judge ``judged`` of each
    topic's documents (labels 0, 1, 2).

    Run in a child process by :func:`main`: a child's peak memory (``ru_maxrss``) counts the
    memory of the parent it was forked from, so the timing parent must stay small.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    docs = max(lines // topics, 1)
    topic = np.repeat(np.arange(1, topics + 1), docs)
    ids = np.concatenate([rng.choice(500 * docs, size=docs, replace=False) for _ in range(topics)])
    rank = np.tile(np.arange(1, docs + 1), topics)
    score = np.round(rng.gamma(2.0, 2.0, size=len(ids)), 2)  # many ties
    if order == "ranked":
        score = -np.sort(-score.reshape(topics, docs), axis=1).ravel()
    doc = pc.binary_join_element_wise("D", pc.cast(pa.array(ids), pa.string()), "")
    qrels_path, run_path = input_paths(folder, lines, topics, judged, order)
    _write(run_path, {"topic": topic, "q0": np.full(len(ids), "Q0"), "doc": doc, "rank": rank,
                      "score": score, "tag": np.full(len(ids), "bench")})
    picked = np.concatenate([t * docs + rng.choice(docs, size=min(judged, docs), replace=False)
                             for t in range(topics)])
    _write(qrels_path, {"topic": topic[picked], "iteration": np.zeros(len(picked), dtype=int),
                        "doc": doc.take(pa.array(picked)),
                        "label": rng.choice([0, 0, 0, 1, 2], size=len(picked))})
    return qrels_path, run_path


def _write(path: Path, columns: dict) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.table({name: pa.array(values) if not isinstance(values, pa.Array) else values
                      for name, values in columns.items()})
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, path, write_options=options)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB; ru_maxrss is KiB on Linux) of one child."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0 and process.stderr is not None:
        raise SystemExit(f"{command[:3]} failed: {process.stderr.read().decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def commands(qrels: Path, run: Path, script: Path, baseline: str | None = None
             ) -> dict[str, list[str]]:
    """The command line of every tool present, by name; with ``baseline`` (a folder holding
    another version's ``pooljudge``, ``metrics`` and ``pooling``) that version too, as
    "baseline" (its folder first on PYTHONPATH, so its modules are imported, not these)."""
    # -P: the current folder is not put first on sys.path (it would hide the baseline's)
    pooljudge = [sys.executable, "-P", "-m", "pooljudge", "eval", str(qrels), str(run),
                 "-m", MEASURES, "--format", "tsv"]
    tools = {"pooljudge": pooljudge}
    if baseline:
        tools["baseline"] = ["env", f"PYTHONPATH={Path(baseline).resolve()}", *pooljudge]
    tools["pytrec_eval"] = [sys.executable, str(script), str(qrels), str(run)]
    trec_eval = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if trec_eval:
        tools["trec_eval"] = [trec_eval, "-c", *TREC_EVAL_MEASURES, str(qrels), str(run)]
    return tools


def bytecode_cached(environ: Mapping[str, str], folder: Path) -> dict[str, str]:
    """The environment for the timed children: Python modules compiled once and cached (in
    ``folder``, not beside the sources), as for any installed package, even where
    PYTHONDONTWRITEBYTECODE is set."""
    env = {k: v for k, v in environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder)
    return env


def measure(tools: dict[str, list[str]], repeat: int, env: dict[str, str]
            ) -> dict[str, tuple[float, float, float]]:
    """Per tool: median wall and CPU seconds, and the peak RSS over ``repeat`` interleaved runs
    (after one untimed run each, which also fills the bytecode cache and the page cache)."""
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in tools}
    for command in tools.values():
        timed(command, env)
    for _ in range(repeat):
        for name, command in tools.items():  # interleaved
            samples[name].append(timed(command, env))
    return {name: (statistics.median(s[0] for s in got), statistics.median(s[1] for s in got),
                   max(s[2] for s in got)) for name, got in samples.items()}


def report(lines: int, results: dict[str, tuple[float, float, float]], repeat: int) -> None:
    """Each tool's medians and peak memory, then pooljudge's ratios to every other tool side by
    side (below 1: pooljudge takes less)."""
    print(f"\n{lines:,} run lines, {repeat} runs each (interleaved)")
    print(f"  {'tool':12s} {'wall s':>8s} {'CPU s':>8s} {'peak RSS MiB':>13s}")
    for name, (wall, cpu, mib) in results.items():
        print(f"  {name:12s} {wall:8.2f} {cpu:8.2f} {mib:13.0f}")
    others = [name for name in results if name != "pooljudge"]
    ours = results["pooljudge"]
    print(f"  {'pooljudge /':12s}" + "".join(f" {name:>13s}" for name in others))
    for column, label in enumerate(("wall", "CPU", "peak memory")):
        print(f"  {label:12s}" + "".join(f" {ours[column] / results[name][column]:13.2f}"
                                         for name in others))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000_000, 8_000_000],
                        help="run lines (default: 2M and 8M)")
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--judged", type=int, default=200, help="judged documents per topic")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--order", choices=("random", "ranked"), default="random",
                        help="score order of each topic's lines (default: random)")
    parser.add_argument("--baseline", metavar="FOLDER",
                        help="also time the pooljudge whose sources are in FOLDER (e.g. an "
                             "earlier checkout) as 'baseline': before/after in one run")
    parser.add_argument("--data", metavar="FOLDER",
                        help="keep the generated inputs in FOLDER and reuse those already "
                             "there (their names carry size, topics, judged and order)")
    parser.add_argument("--generate-into", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate_into:  # the child process of the next branch
        for lines in args.sizes:
            generate(Path(args.generate_into), lines, args.topics, args.judged,
                     order=args.order)
        return 0
    if "trec_eval" not in commands(Path(), Path(), Path()):
        print("trec_eval: none on PATH and TREC_EVAL not set: not timed")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        script = folder / "pytrec_eval_script.py"
        script.write_text(PYTREC_SCRIPT)
        env = bytecode_cached(os.environ, folder / "pycache")
        data = Path(args.data) if args.data else folder
        data.mkdir(parents=True, exist_ok=True)
        for lines in args.sizes:
            qrels, run = input_paths(data, lines, args.topics, args.judged, args.order)
            if not (args.data and qrels.exists() and run.exists()):
                subprocess.run([sys.executable, __file__, "--generate-into", str(data),
                                "--sizes", str(lines), "--topics", str(args.topics),
                                "--judged", str(args.judged), "--order", args.order],
                               check=True)
            tools = commands(qrels, run, script, args.baseline)
            report(lines, measure(tools, args.repeat, env), args.repeat)
            if not args.data:
                run.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
