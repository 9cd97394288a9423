"""``pooljudge logs import|sample FILE.jsonl``: production retrieval logs to runs and topics.

``import`` reads a JSON Lines log (one retrieval per line, plain or .gz; the schema is in
``pooljudge/formats/logs.py`` and docs/guides/logs-rag.md) and writes, into a new folder
``--out DIR`` (all files or none): ``runs/CONFIG@VERSION.run`` (TREC runs, one per
configuration and index version), ``topics.tsv`` (``id title``, for ``init --topics``),
``topic-groups.tsv``
(``category=…``, ``language=…``, ``tenant=…`` groups, for ``eval --topic-groups``) and
``latency.tsv`` (per run: queries, retrievals, mean, p50, p95, p99 in ms); it prints the
latency table. ``sample`` draws ``--n`` distinct queries to label (stratified by a field,
proportional or equal allocation, exact counts, seeded) and writes them as a topics file and,
with ``--ids``, as a query-id list that ``import --queries`` reads. ``--private FIELD`` drops a
field, ``--hash FIELD`` replaces it by HMAC-SHA256 under the key in the environment variable
named by ``--hash-key-env``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pooljudge.cli import Subcommands
from pooljudge.cli.options import MAX_COUNT, positive_int, seed, summary
from pooljudge.cli.output import render, warn
from pooljudge.errors import UsageError

if TYPE_CHECKING:
    from pooljudge.formats.logs import Logs, Privacy

HELP = "turn production retrieval logs into runs, topics, groups and latency; sample queries"
# pooljudge.formats.logs's field names, written out: importing it here would load pyarrow.
PRIVATE_FIELDS = ("query", "category", "language", "tenant")
HASHABLE_FIELDS = ("query_id", *PRIVATE_FIELDS)
STRATA = ("category", "language", "tenant")
T = TypeVar("T")


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser("logs", help=HELP, description=summary(__doc__))
    actions = parser.add_subparsers(title="actions", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    importing = actions.add_parser(
        "import", help="write runs, topics, topic groups and latency from a log",
        description="Write runs per configuration@index_version, topics, topic groups and "
                    "latency percentiles from a JSON Lines retrieval log.")
    importing.add_argument("file", metavar="FILE.jsonl", help="the log (plain or .gz)")
    importing.add_argument("--out", metavar="DIR",
                           help="a new folder for the output (default: the log's name "
                                "without .jsonl/.gz, in the current folder)")
    importing.add_argument("--queries", metavar="IDS",
                           help="keep only these query ids (one per line, as 'logs sample "
                                "--ids' writes)")
    sampling = actions.add_parser(
        "sample", help="draw queries to label, stratified by a field",
        description="Draw --n distinct logged queries to label, as a topics file for 'init' "
                    "and a query-id list for 'logs import --queries'.")
    sampling.add_argument("file", metavar="FILE.jsonl", help="the log (plain or .gz)")
    sampling.add_argument("--n", type=positive_int(MAX_COUNT), required=True, metavar="N",
                          help="how many distinct queries to draw")
    sampling.add_argument("--stratify", choices=STRATA, metavar="FIELD",
                          help=f"stratify by this field ({', '.join(STRATA)}); default: one "
                               "simple random sample")
    sampling.add_argument("--allocation", choices=("proportional", "equal"),
                          default="proportional",
                          help="proportional (default): each stratum in proportion to its "
                               "queries; equal: the same number from each (a small stratum "
                               "gives all it has, the rest is redistributed)")
    sampling.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    sampling.add_argument("-o", "--output", default="-", metavar="FILE",
                          help="the topics TSV (id, title) (default: standard output)")
    sampling.add_argument("--ids", metavar="FILE", help="also write the query ids here")
    for sub, handler in ((importing, _import), (sampling, _sample)):
        _add_privacy_options(sub)
        sub.set_defaults(handler=handler)


def _add_privacy_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--private", action="append", default=[], choices=PRIVATE_FIELDS,
                        metavar="FIELD",
                        help=f"drop this field (repeatable): {', '.join(PRIVATE_FIELDS)}")
    parser.add_argument("--hash", action="append", default=[], choices=HASHABLE_FIELDS,
                        metavar="FIELD",
                        help="replace this field by its keyed hash, HMAC-SHA256 (repeatable): "
                             f"{', '.join(HASHABLE_FIELDS)}")
    parser.add_argument("--hash-key-env", metavar="VAR",
                        help="the environment variable holding the --hash key (never a file "
                             "or the command line)")


def _privacy(args: argparse.Namespace) -> Privacy:
    """The privacy options, checked: UsageError for a field both private and hashed, --hash
    without a key, or a key variable unset or empty."""
    from pooljudge.formats.logs import Privacy

    both = sorted(set(args.private) & set(args.hash))
    if both:
        raise UsageError(f"--private and --hash: {both[0]} cannot be both dropped and hashed")
    key = b""
    if args.hash:
        if not args.hash_key_env:
            raise UsageError("--hash needs --hash-key-env VAR (the key is read from the "
                             "environment only)")
        value = os.environ.get(args.hash_key_env, "")
        if not value:
            raise UsageError(f"--hash-key-env: the environment variable {args.hash_key_env} "
                             "is not set or empty")
        key = value.encode("utf-8")
    elif args.hash_key_env:
        raise UsageError("--hash-key-env without --hash: name the fields to hash")
    return Privacy(frozenset(args.private), frozenset(args.hash), key)


def _read(args: argparse.Namespace) -> Logs:
    from pooljudge.formats.logs import read_logs

    return read_logs(args.file, _privacy(args))


def _import(args: argparse.Namespace) -> int:
    from pooljudge.formats.log_files import (
        make_folder,
        output_folder,
        read_id_list,
        write_latency,
        write_log_run,
        write_log_topics,
        write_topic_groups,
    )
    from pooljudge.ground.heap import release_freed_memory
    from pooljudge.metrics.latency import latency_table
    from pooljudge.metrics.log_index import LogIndex
    from pooljudge.metrics.log_queries import (
        log_topics,
        normalised_values,
        select_queries,
        several_values,
        topic_groups,
    )
    from pooljudge.metrics.logs import log_runs

    out = args.out or _default_folder(args.file)
    ids = read_id_list(args.queries) if args.queries else None
    logs = _read(args)
    if ids is not None:
        logs, missing = select_queries(logs, ids)
        if missing:
            warn("logs import", f"{len(missing)} of the {len(set(ids))} --queries ids are not "
                                f"in the logs (e.g. {missing[0]})")
        if logs.retrievals.empty:
            raise UsageError("--queries: none of these query ids is in the logs")
    index = LogIndex.of(logs)
    latency = latency_table(logs, index)
    with output_folder(out) as folder:  # the small files first, then one run at a time
        topics, topic_warnings = log_topics(logs, index)
        flattened = write_log_topics(topics, folder / "topics.tsv")
        regrouped = write_topic_groups(topic_groups(logs, index=index),
                                       folder / "topic-groups.tsv")
        write_latency(latency, folder / "latency.tsv")
        queries = len(topics)
        del topics
        release_freed_memory()
        runs = log_runs(logs, index)
        release_freed_memory()
        run_folder = make_folder(folder / "runs")

        def write(i: int) -> None:  # in parts of 256k rows: little memory, two runs at once
            name = runs.names[i]
            write_log_run(_released(runs.chunks(i)), run_folder / f"{name}.run", name)

        with ThreadPoolExecutor(2) as pool:
            list(pool.map(write, range(len(runs.names))))
    for message in (*runs.warnings, *topic_warnings, *normalised_values(logs, index=index),
                    *several_values(logs, index=index)):
        warn("logs import", message)
    _flattened_warnings("logs import", flattened, regrouped)
    print(f"{len(logs.retrievals)} retrievals, {queries} queries, {len(runs.names)} "
          f"run(s) written to {out}/")
    print(render(latency, "table"), end="")
    return 0


def _released(parts: Iterator[T]) -> Iterator[T]:
    """``parts``, the memory freed since the last one handed back to the kernel before each
    (writer threads allocate from their own heaps, which keep what they free)."""
    from pooljudge.ground.heap import release_freed_memory

    for part in parts:
        yield part
        del part
        release_freed_memory()


def _default_folder(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    if not name or name == Path(path).name:
        raise UsageError(f"--out: name the output folder (cannot derive one from {path})")
    return name


def _flattened_warnings(command: str, titles: int, groups: int) -> None:
    if titles:
        warn(command, f"{titles} query text(s) hold tabs or line breaks: written with a "
                      "space in their place")
    if groups:
        warn(command, f"{groups} group name(s) changed: tabs and line breaks written as one "
                      "space, blanks at the ends of the value (after 'field=') removed")


def _sample(args: argparse.Namespace) -> int:
    from pooljudge.formats.log_files import write_id_list, write_log_topics
    from pooljudge.metrics.log_index import LogIndex
    from pooljudge.metrics.log_queries import log_topics, normalised_values, query_strata
    from pooljudge.pooling.query_sample import sample_queries

    logs = _read(args)
    index = LogIndex.of(logs)
    queries, warnings = query_strata(logs, args.stratify, index)
    if args.stratify:
        warnings = [*normalised_values(logs, (args.stratify,), index), *warnings]
    sample, allocation, more = sample_queries(queries, args.n, allocation=args.allocation,
                                              seed=args.seed)
    topics, _ = log_topics(logs, index)
    chosen = topics.set_index("id").loc[sample["query_id"].to_numpy()].reset_index()
    for message in (*warnings, *more):
        warn("logs sample", message)
    flattened = write_log_topics(chosen, args.output)
    if args.ids:
        write_id_list(sample["query_id"], args.ids)
    _flattened_warnings("logs sample", flattened, 0)
    stream = sys.stderr if args.output == "-" else sys.stdout
    print(f"{len(sample)} of {len(queries)} queries sampled"
          + (f", stratified by {args.stratify} ({args.allocation})" if args.stratify else ""),
          file=stream)
    print(render(allocation, "table"), end="", file=stream)
    return 0
