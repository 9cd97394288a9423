"""``pooljudge eval`` and ``pooljudge pool`` of this tree against another checkout, in one run.

A change that should not touch speed (a refactor, a new module on the import path) is checked
by timing both versions as whole processes on the same inputs, interleaved (this tree, the
baseline, this tree, ...) after one untimed run each, and printing the medians of wall and CPU
time and the ratio this / baseline (below 1: this tree is faster).

- eval: a generated run of ``--lines`` lines (2,000 topics, score ties, grouped by topic) against
  qrels of 200 judged documents per topic, measures P@10 nDCG@10 AP RR, tsv output;
- pool: the depth-100 pool of the 17 robust03 runs (gzip) from $POOLJUDGE_SHARED_DATA, when set.

The baseline is a checkout of an earlier commit (``git worktree add /tmp/base COMMIT``); it runs
with this interpreter, its own sources first on ``sys.path``. Usage::

    .venv/bin/python benchmarks/versions_speed.py --baseline /tmp/base [--lines 2000000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from eval_speed import MEASURES, bytecode_cached, timed

LAUNCH = ("import runpy, sys; sys.path.insert(0, {root!r}); "
          "runpy.run_module('pooljudge', run_name='__main__', alter_sys=True)")


def pooljudge(root: Path, *args: str) -> list[str]:
    """The command line of ``pooljudge ARGS`` from the sources under ``root``."""
    return [sys.executable, "-c", LAUNCH.format(root=str(root)), *args]


def workloads(folder: Path, lines: int) -> dict[str, list[str]]:
    """Workload name -> the pooljudge arguments, on inputs made in ``folder``."""
    subprocess.run([sys.executable, str(Path(__file__).with_name("eval_speed.py")),
                    "--generate-into", str(folder), "--sizes", str(lines)], check=True)
    jobs = {"eval": ["eval", str(folder / f"qrels{lines}.txt"), str(folder / f"run{lines}.txt"),
                     "-m", MEASURES, "--format", "tsv"]}
    shared = os.environ.get("POOLJUDGE_SHARED_DATA")
    runs = sorted(Path(shared, "robust03", "runs").glob("input.*.gz")) if shared else []
    if runs:
        jobs["pool"] = ["pool", *map(str, runs), "--depth", "100", "-o", str(folder / "pool.tsv")]
    return jobs


def compare(args: list[str], roots: dict[str, Path], repeat: int, env: dict[str, str]
            ) -> dict[str, tuple[float, float]]:
    """Per version: median wall and CPU seconds over ``repeat`` interleaved runs."""
    commands = {name: pooljudge(root, *args) for name, root in roots.items()}
    for command in commands.values():
        timed(command, env)
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            samples[name].append(timed(command, env))
    return {name: (statistics.median(s[0] for s in got), statistics.median(s[1] for s in got))
            for name, got in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, type=Path, help="a checkout to compare with")
    parser.add_argument("--lines", type=int, default=2_000_000, help="eval's run lines")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    roots = {"this": Path(__file__).resolve().parents[1], "baseline": args.baseline.resolve()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = bytecode_cached(os.environ, folder / "pycache")
        print(f"{'workload':<10}{'this':>10}{'baseline':>10}{'wall ratio':>12}{'CPU ratio':>11}")
        for name, job in workloads(folder, args.lines).items():
            got = compare(job, roots, args.repeat, env)
            (wall, cpu), (base_wall, base_cpu) = got["this"], got["baseline"]
            print(f"{name:<10}{wall:>9.2f}s{base_wall:>9.2f}s{wall / base_wall:>12.2f}"
                  f"{cpu / base_cpu:>11.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
