"""``pooljudge export`` and ``pooljudge agree`` on 1,000,000 judgments, SQLite and PostgreSQL.

On each backend a campaign is built once with the loader of ``store_speed.py``: 1,000 topics,
``judgments / per_pair`` pairs on a graded 0-2 scale, each pair judged by ``--per-pair`` (5) of
``--annotators`` (8) annotators chosen at random (so annotators miss pairs), a vote equal to a
hidden truth with probability 0.6 and uniform otherwise (so majorities tie, 2-2-1, on 8% of
the pairs); an adjudicator decides 2% of the pairs. Then every command runs as a fresh
process, timed from start to exit, its CPU time and peak memory (``ru_maxrss``) taken by
``/usr/bin/time``:

- ``pooljudge export --campaign C --policy majority -o qrels.txt`` (and ``--policy
  adjudicated``), qrels and provenance TSV;
- ``pooljudge agree --campaign C --format json -o agree.json`` (1000-resample bootstrap CI);

and, for comparison, what one writes by hand, also each in a fresh process: ``pandas.read_sql``
of the latest judgments, then a ``groupby`` majority (ties to the lower label; adjudications
override) written with ``to_csv`` and no provenance, or ``agreement_speed.reference`` (the
libraries on a pivot table, no CI). The reference qrels must equal pooljudge's, and its kappas
the report's. Prints a Markdown table: wall time, CPU time (user + system: what the machine's
other load does not inflate) and peak memory; ratios are reference / pooljudge.

    .venv/bin/python benchmarks/export_agree_speed.py [--judgments 1000000]
        [--backends sqlite,postgresql]

PostgreSQL: the server on 127.0.0.1:5432 (user postgres); a database is created and dropped.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_speed import (  # a sibling script, not a package
    CAMPAIGN,
    bench_database,
    create,
    import_frame,
)

POOLJUDGE = Path(sys.executable).with_name("pooljudge")
LATEST = """
SELECT a.name AS annotator, t.key AS topic, d.key AS doc, j.label, j.kind, j.created_at
FROM judgment j JOIN pair p ON p.id = j.pair_id JOIN campaign c ON c.id = p.campaign_id
JOIN topic t ON t.id = p.topic_id JOIN document d ON d.id = p.document_id
JOIN annotator a ON a.id = j.annotator_id
WHERE c.name = :campaign AND NOT EXISTS (
    SELECT 1 FROM judgment n WHERE n.pair_id = j.pair_id AND n.annotator_id = j.annotator_id
    AND n.kind = j.kind AND n.version > j.version)
ORDER BY j.id
"""


def build(url: str, judgments: int, annotators: int, per_pair: int) -> float:
    """Create the campaign and load its judgments and adjudications; seconds taken."""
    from pooljudge.annotate.records import LabelScale
    from pooljudge.annotate.store import open_engine

    started = time.perf_counter()
    names = np.array([f"annotator{i}" for i in range(annotators)], dtype=object)
    engine = open_engine(url)
    pool = create(engine, judgments // per_pair, scale=LabelScale.range(0, 2), overlap=per_pair,
                  annotators={**dict.fromkeys(names, "annotator"), "adjudicator": "adjudicator"})
    rng = np.random.default_rng(0)
    pairs = len(pool)
    chosen = np.argsort(rng.random((pairs, annotators)), axis=1)[:, :per_pair].ravel()
    pair = np.repeat(np.arange(pairs), per_pair)
    truth = rng.integers(0, 3, pairs)
    label = np.where(rng.random(len(pair)) < 0.6, truth[pair], rng.integers(0, 3, len(pair)))
    topic, doc = pool["topic"].to_numpy(), pool["doc"].to_numpy()
    import_frame(engine, pd.DataFrame({"annotator": names[chosen], "topic": topic[pair],
                                       "doc": doc[pair], "label": label.astype(str)}))
    decided = rng.choice(pairs, pairs // 50, replace=False)
    import_frame(engine, pd.DataFrame({"annotator": "adjudicator", "topic": topic[decided],
                                       "doc": doc[decided], "kind": "adjudication",
                                       "label": truth[decided].astype(str)}))
    engine.dispose()
    return time.perf_counter() - started


def measured(argv: list[str]) -> tuple[float, float, float]:
    """Run ``argv`` as a fresh process: (wall seconds, CPU seconds, peak RSS in MB); error if
    it fails.

    CPU (user + system) and peak come from ``/usr/bin/time`` (the child's rusage): measured by
    ``wait4`` here, the peak would start from this process's own size at the fork."""
    with tempfile.NamedTemporaryFile("r") as usage:
        started = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", usage.name, *argv],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seconds = time.perf_counter() - started
        if done.returncode:
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
        user, system, peak = usage.read().split()[-3:]
        return seconds, float(user) + float(system), int(peak) / 1024


def read_latest(url: str) -> pd.DataFrame:
    """The reference's read: one SQL query into a DataFrame."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.connect() as connection:
        return pd.read_sql(sa.text(LATEST), connection, params={"campaign": CAMPAIGN})


def reference_export(url: str, output: str, policy: str) -> None:
    """Majority per pair by ``groupby`` (ties to the lower label), adjudications override."""
    frame = read_latest(url)
    votes = frame[frame["kind"] == "judgment"]
    counts = votes.groupby(["topic", "doc", "label"]).size().rename("n").reset_index()
    counts = counts.sort_values(["topic", "doc", "n", "label"], ascending=[True, True, False, True])
    qrels = counts.drop_duplicates(["topic", "doc"])[["topic", "doc", "label"]]
    if policy == "adjudicated":
        decided = (frame[frame["kind"] == "adjudication"].sort_values("created_at")
                   .drop_duplicates(["topic", "doc"], keep="last")[["topic", "doc", "label"]])
        qrels = pd.concat([qrels, decided]).drop_duplicates(["topic", "doc"], keep="last")
        qrels = qrels.sort_values(["topic", "doc"])
    qrels.insert(1, "iteration", 0)
    qrels.to_csv(output, sep=" ", header=False, index=False)


def reference_agree(url: str, output: str) -> None:
    """The libraries on a pivot table (``agreement_speed.reference``), kappas as JSON."""
    import warnings

    from agreement_speed import reference

    warnings.simplefilter("ignore")
    frame = read_latest(url)
    kappas = reference(frame[frame["kind"] == "judgment"])
    Path(output).write_text(json.dumps({f"{a}/{b}": k for (a, b), k in kappas.items()}))


def check(folder: Path) -> None:
    """The reference computed the same qrels and kappas as pooljudge."""
    for policy in ("majority", "adjudicated"):
        ours = (folder / f"{policy}.txt").read_text().split()
        theirs = (folder / f"reference-{policy}.txt").read_text().split()
        if ours != theirs:
            raise SystemExit(f"qrels differ from the reference ({policy})")
    report = json.loads((folder / "agree.json").read_text())
    theirs = json.loads((folder / "reference-agree.json").read_text())
    for row in report["pairs"]:
        if not np.isclose(row["cohen_kappa"], theirs[f"{row['a']}/{row['b']}"]):
            raise SystemExit(f"kappa differs for {row['a']}/{row['b']}")


def commands(url: str, folder: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Per measurement: (pooljudge's command line, the reference's)."""
    me = [sys.executable, str(Path(__file__).resolve()), "--child"]
    common = ["--campaign", CAMPAIGN, "--db", url]
    runs = {f"export --policy {p}": (
        [str(POOLJUDGE), "export", *common, "--policy", p, "-o", str(folder / f"{p}.txt")],
        [*me, f"export-{p}", url, str(folder / f"reference-{p}.txt")])
        for p in ("majority", "adjudicated")}
    runs["agree --format json"] = (
        [str(POOLJUDGE), "agree", *common, "--format", "json", "-o", str(folder / "agree.json")],
        [*me, "agree", url, str(folder / "reference-agree.json")])
    return runs


def bench(backend: str, url: str, args: argparse.Namespace, folder: Path) -> list[dict]:
    seconds = build(url, args.judgments, args.annotators, args.per_pair)
    print(f"{backend}: built {args.judgments:,} judgments in {seconds:.0f} s", flush=True)
    rows = []
    for name, (ours, theirs) in commands(url, folder).items():
        (t_ours, cpu_ours, m_ours), (t_theirs, cpu_theirs, m_theirs) = (measured(ours),
                                                                        measured(theirs))
        rows.append({"backend": backend, "command": f"`{name}`", "time (s)": t_ours,
                     "CPU (s)": cpu_ours, "peak (MB)": m_ours, "reference time (s)": t_theirs,
                     "reference CPU (s)": cpu_theirs, "reference peak (MB)": m_theirs,
                     "time ratio": t_theirs / t_ours, "CPU ratio": cpu_theirs / cpu_ours})
        print(rows[-1], flush=True)
    check(folder)
    return rows


def markdown(table: pd.DataFrame) -> str:
    """The table in Markdown, numbers with one decimal."""
    cells = table.map(lambda v: f"{v:.1f}" if isinstance(v, float) else str(v))
    lines = [list(table.columns), ["---"] * len(table.columns), *cells.to_numpy().tolist()]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def child(task: str, url: str, output: str) -> None:
    if task == "agree":
        reference_agree(url, output)
    else:
        reference_export(url, output, task.removeprefix("export-"))


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:5])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--annotators", type=int, default=8)
    parser.add_argument("--per-pair", type=int, default=5, help="annotators per pair (>= 3)")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for backend in args.backends.split(","):
            with bench_database(backend, folder) as url:
                rows += bench(backend, url, args, folder)
    print(f"\n{args.judgments:,} judgments, {args.judgments // args.per_pair:,} pairs; "
          "qrels and kappas identical to the reference\n")
    print(markdown(pd.DataFrame(rows)))


if __name__ == "__main__":
    main()
