"""Time sampling a pool and estimating from the sample, as whole processes (issue #16's goal:
under 2 s together on the 17 robust03 runs), beside pytrec_eval's infAP on the same sample.

Steps, each a whole process (start-up, reading, work, output), interleaved ``--repeat`` times
after one untimed run, Python modules compiled once and cached (``eval_speed``'s harness):

- ``pool``: ``pooljudge pool RUNS --depth 100 --sample DESIGN --budget 20% of the depth-100
  pool --seed 1 -o FILE``, for ``pps(prior=ap)``, ``strata(10:1.0,30:0.5,100:0.1)`` and
  ``uniform``;
- ``estimate``: ``pooljudge eval QRELS RUNS --prels PRELS -m statAP -m xinfAP -m statPrec@10
  -m statNDCG`` on the pps sample judged from the robust03 qrels (a sampled pair without a qrels
  line is non-relevant), and the same ``--se`` (the default, linearised SEs), as tsv and as the
  default table;
- ``infAP``: trec_eval's infAP on the sample's qrels (-1 for pooled-but-unsampled pairs), by
  ``pooljudge eval -m infAP`` and by pytrec_eval (parse + evaluate, all 17 runs), for a ratio
  against the tool a user would pick.

``--baseline FOLDER`` times another version's sources (FOLDER first on PYTHONPATH) in the same
rounds. Printed: medians of wall and CPU time and peak memory per step, the ratios, and the
sum sample + estimate against the 2 s goal.

    POOLJUDGE_SHARED_DATA=... .venv/bin/python benchmarks/sampled_speed.py [--repeat 5]
        [--baseline FOLDER]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_speed import bytecode_cached, measure, timed

DESIGNS = {"pps": "pps(prior=ap,depth=100)", "strata": "strata(10:1.0,30:0.5,100:0.1)",
           "uniform": "uniform(depth=100)"}
ESTIMATORS = ["-m", "statAP", "-m", "xinfAP", "-m", "statPrec@10", "-m", "statNDCG"]
BUDGET = 9906  # 20% of robust03's depth-100 pool (49,528 pairs)
PYTREC_INFAP = '''
import collections, gzip, sys
import pytrec_eval

qrels = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    topic, _, doc, label = line.split()
    qrels[topic][doc] = int(label)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"infAP"})
for path in sys.argv[2:]:
    run = collections.defaultdict(dict)
    for line in gzip.open(path, "rt"):
        topic, _, doc, _, score, _ = line.split()[:6]
        run[topic][doc] = float(score)
    values = evaluator.evaluate(run)
    print(path, sum(v["infAP"] for v in values.values()) / len(values))
'''


def judge(sampled: Path, qrels: Path, folder: Path) -> tuple[Path, Path, Path]:
    """The sample judged from complete qrels: prels (every pooled pair, labels of the sampled
    ones), the sampled pairs' qrels, and trec_eval's infAP qrels (-1 for the unsampled)."""
    import pandas as pd

    pool = pd.read_csv(sampled, sep="\t", dtype=str, keep_default_na=False)
    truth = pd.read_csv(qrels, sep=r"\s+", header=None, dtype=str,
                        names=["topic", "iteration", "doc", "label"])
    both = pool.merge(truth[["topic", "doc", "label"]], on=["topic", "doc"], how="left")
    drawn = both["sampled"] == "1"
    both["label"] = both["label"].fillna("0").where(drawn, "")
    prels = folder / "sample.prels.tsv"
    both[["topic", "doc", "label", "stratum", "inclusion"]].to_csv(prels, sep="\t", index=False)
    judged, infap = folder / "sample.qrels", folder / "sample.infap.qrels"
    for path, frame in ((judged, both[drawn]),
                        (infap, both.assign(label=both["label"].where(drawn, "-1")))):
        frame.assign(iteration="0")[["topic", "iteration", "doc", "label"]].to_csv(
            path, sep=" ", header=False, index=False)
    return prels, judged, infap


def steps(runs: list[str], folder: Path, inputs: tuple[Path, Path, Path], script: Path
          ) -> dict[str, list[str]]:
    """The pooljudge command of every step, by name (pytrec_eval's infAP too)."""
    prels, judged, infap = inputs
    command = [sys.executable, "-P", "-m", "pooljudge"]
    tools = {f"pool {name}": [*command, "pool", *runs, "--depth", "100", "--sample", design,
                              "--budget", str(BUDGET), "--seed", "1",
                              "-o", str(folder / f"{name}.tsv")]
             for name, design in DESIGNS.items()}
    estimate = [*command, "eval", str(judged), *runs, "--prels", str(prels), *ESTIMATORS,
                "--format", "tsv"]
    tools["estimate"] = estimate
    tools["estimate --se"] = [*estimate, "--se"]
    tools["estimate --se table"] = [*estimate[:-2], "--se"]  # the default output
    tools["infAP"] = [*command, "eval", str(infap), *runs, "-m", "infAP", "--format", "tsv"]
    tools["infAP pytrec_eval"] = [sys.executable, str(script), str(infap), *runs]
    return tools


def with_baseline(tools: dict[str, list[str]], baseline: str | None) -> dict[str, list[str]]:
    """Each pooljudge step also as "NAME @baseline", run from FOLDER's sources."""
    if not baseline:
        return tools
    folder = Path(baseline).resolve()
    extra = {f"{name} @baseline": ["env", f"PYTHONPATH={folder}", *command]
             for name, command in tools.items() if "pytrec_eval" not in name}
    return {**tools, **extra}


def report(results: dict[str, tuple[float, float, float]], repeat: int) -> None:
    """Medians per step, the ratios, and sample + estimate against the 2 s goal."""
    print(f"robust03, 17 runs, {repeat} runs each (interleaved)")
    print(f"  {'step':28s} {'wall s':>7s} {'CPU s':>7s} {'peak MiB':>9s}")
    for name, (wall, cpu, mib) in results.items():
        print(f"  {name:28s} {wall:7.2f} {cpu:7.2f} {mib:9.0f}")
    wall = {name: value[0] for name, value in results.items()}
    cpu = {name: value[1] for name, value in results.items()}
    print("ratios (wall, CPU):")
    print(f"  infAP pooljudge / pytrec_eval: {wall['infAP'] / wall['infAP pytrec_eval']:.2f}, "
          f"{cpu['infAP'] / cpu['infAP pytrec_eval']:.2f}")
    for name in [n for n in results if n.endswith("@baseline")]:
        ours = name.removesuffix(" @baseline")
        print(f"  {ours} now / before: {wall[ours] / wall[name]:.2f}, {cpu[ours] / cpu[name]:.2f}")
    for estimate in ("estimate", "estimate --se", "estimate --se table"):
        total = wall["pool pps"] + wall[estimate]
        print(f"  pool pps + {estimate}: {total:.2f} s wall, {total / 2.0:.2f} of the 2 s goal")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("POOLJUDGE_SHARED_DATA"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", metavar="FOLDER")
    args = parser.parse_args(argv)
    if not args.data:
        parser.error("set POOLJUDGE_SHARED_DATA or --data to the shared data folder")
    robust = Path(args.data) / "robust03"
    runs = sorted(str(p) for p in (robust / "runs").glob("*.gz"))
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        env = bytecode_cached(os.environ, folder / "pycache")
        script = folder / "pytrec_infap.py"
        script.write_text(PYTREC_INFAP)
        first = steps(runs, folder, (folder / "p", folder / "q", folder / "i"), script)
        timed(first["pool pps"], env)  # the sample the estimates read
        inputs = judge(folder / "pps.tsv", robust / "qrels.txt", folder)
        tools = with_baseline(steps(runs, folder, inputs, script), args.baseline)
        report(measure(tools, args.repeat, env), args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
