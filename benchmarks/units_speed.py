"""A 2M-line chunk run at document level: pooljudge's conversion against pandas, and its cost
beside one evaluation.

Data built here (seeded): 50 topics × 40,000 chunks retrieved out of 80,000, five chunks a
document (16,000 documents), scores with many ties; 50 judged chunks a topic. Measured side by
side, repeated and interleaved, medians printed:

- conversion alone, from columns in memory: :func:`pooljudge.metrics.units.document_run` against
what a
  pandas user would write (map the chunks with ``merge``, then ``groupby([topic, doc]).max()``);
- one evaluation of the chunk run (AP, P@10, nDCG@10) from the same columns, and the whole
  ``eval --units`` path from the file (read, tell the level, convert, score) against ``eval``
  of the chunk run from the file (read, score).

Usage: ``python benchmarks/units_speed.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from pooljudge.metrics.eval_inputs import load_qrels, parse_all
from pooljudge.metrics.evaluate import score
from pooljudge.metrics.units import document_run, prepare_units, run_at_level

from pooljudge.formats.trec import read_run_columns, run_columns, write_run

TOPICS, PER_TOPIC, CHUNKS_PER_DOC = 50, 40_000, 5


def build() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(0)
    chunk_ids = np.char.add("c", np.arange(PER_TOPIC * 2).astype(str))
    units = pd.DataFrame({"chunk": chunk_ids, "doc": np.char.add(
        "d", (np.arange(len(chunk_ids)) // CHUNKS_PER_DOC).astype(str))})
    picks = np.concatenate([rng.permutation(len(chunk_ids))[:PER_TOPIC] for _ in range(TOPICS)])
    run = pd.DataFrame({"topic": np.repeat(np.arange(TOPICS).astype(str), PER_TOPIC),
                        "doc": chunk_ids[picks],
                        "score": rng.integers(0, 10_000, TOPICS * PER_TOPIC) / 100})
    qrels = pd.DataFrame({"topic": np.repeat(np.arange(TOPICS).astype(str), 50),
                          "doc": chunk_ids[rng.integers(0, len(chunk_ids), TOPICS * 50)],
                          "label": 1}).drop_duplicates(["topic", "doc"])
    return units, run, qrels


def with_pandas(run: pd.DataFrame, units: pd.DataFrame) -> pd.DataFrame:
    mapped = run.merge(units, left_on="doc", right_on="chunk", how="left", suffixes=("", "_d"))
    return mapped.groupby(["topic", "doc_d"], sort=False)["score"].max().reset_index()


def _at_documents(run, units):
    """What ``eval --units`` does to a run: tell its level and convert it (one look-up)."""
    return run_at_level(run, units, "doc")


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    units, run, qrels = build()
    prepared, columns = prepare_units(units), run_columns(run)
    prepared_qrels = load_qrels(qrels)
    measures = parse_all(["AP", "P@10", "nDCG@10"])
    converted = document_run(columns, prepared)
    expected = with_pandas(run, units)
    assert len(converted.score) == len(expected)
    assert np.isclose(np.sort(converted.score), np.sort(expected["score"].to_numpy())).all()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chunks"
        write_run(run, path, tag="chunks")
        steps = {
            "convert (pooljudge)": lambda: document_run(columns, prepared),
            "convert (pandas merge + groupby)": lambda: with_pandas(run, units),
            "evaluate the chunk run once": lambda: score(prepared_qrels, "r", columns, measures),
            "eval file: read + score": lambda: score(prepared_qrels, "r",
                                                     read_run_columns(path), measures),
            "eval --units file: read + level + convert + score": lambda: score(
                prepared_qrels, "r", _at_documents(read_run_columns(path), prepared), measures),
        }
        times = {name: [] for name in steps}
        for _ in range(args.repeat):
            for name, step in steps.items():
                times[name].append(timed(step))
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{TOPICS * PER_TOPIC:,} chunk lines, {len(converted.score):,} document rows; "
          f"median of {args.repeat}")
    for name, value in median.items():
        print(f"  {name:52s} {value:6.2f} s")
    ours = median["convert (pooljudge)"]
    pandas_ratio = median["convert (pandas merge + groupby)"] / ours
    evaluation_ratio = ours / median["evaluate the chunk run once"]
    file_ratio = (median["eval --units file: read + level + convert + score"]
                  / median["eval file: read + score"])
    print(f"  pandas / pooljudge conversion: {pandas_ratio:.1f}x")
    print(f"  conversion / one evaluation:   {evaluation_ratio:.2f}")
    print(f"  eval --units / eval (files):   {file_ratio:.2f}")


if __name__ == "__main__":
    main()
