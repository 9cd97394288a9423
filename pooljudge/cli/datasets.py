"""``--dataset ID``: topics, qrels and documents from ``ir_datasets``, for any command.

:func:`add_dataset_option` adds the option; :func:`dataset_topics`, :func:`dataset_qrels` and
:func:`dataset_documents` read what the command needs from it (None without the option), through
:mod:`pooljudge.formats.irds` (offline only, documents fetched by id). The dataset is opened once
per process and ID. :func:`qrels_and_runs` (and :func:`qrels_frame_and_runs`,
:func:`qrels_name`) serve the commands whose positionals are ``QRELS RUN...``: with
``--dataset`` the qrels come from the dataset and every positional is a run. :func:`refuse_both`
is the one conflict rule: a file option and the dataset never both give the same thing;
:func:`check_collection` and :func:`collection` apply it to a campaign's topics and documents
(``init``, and any command that makes a campaign).
"""

from __future__ import annotations

import argparse
from functools import lru_cache
from typing import TYPE_CHECKING

from pooljudge.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pandas as pd

    from pooljudge.formats.irds import IrdsDataset

__all__ = ["add_dataset_option", "check_collection", "collection", "dataset_documents",
           "dataset_qrels", "dataset_topics", "open_dataset", "qrels_and_runs",
           "qrels_frame_and_runs", "qrels_name", "refuse_both"]

DATASET_HELP = ("an ir_datasets ID already in the local cache ($IR_DATASETS_HOME; nothing is "
                "downloaded), or a folder of docs.tsv, queries.tsv and/or qrels (TREC)")


def add_dataset_option(parser: argparse.ArgumentParser, gives: str = "topics, documents and "
                       "qrels") -> None:
    """``--dataset ID`` (``args.dataset``), its help naming what it ``gives``."""
    parser.add_argument("--dataset", metavar="ID", help=f"read the {gives} from {DATASET_HELP}")


def open_dataset(args: argparse.Namespace) -> IrdsDataset | None:
    """The dataset of ``--dataset`` (opened once per ID), or None without the option."""
    source = getattr(args, "dataset", None)
    return None if source is None else _open(source)


@lru_cache(maxsize=8)
def _open(source: str) -> IrdsDataset:
    from pooljudge.formats.irds import load_dataset

    return load_dataset(source)


def dataset_topics(args: argparse.Namespace) -> pd.DataFrame | None:
    """The dataset's queries as topics (``id, title, description, narrative``), or None."""
    dataset = open_dataset(args)
    return None if dataset is None else dataset.topics()


def dataset_qrels(args: argparse.Namespace) -> pd.DataFrame | None:
    """The dataset's qrels (``topic, doc, label``), or None without ``--dataset``."""
    dataset = open_dataset(args)
    return None if dataset is None else dataset.qrels()


def dataset_documents(args: argparse.Namespace, ids: Iterable[str]) -> pd.DataFrame | None:
    """The documents ``ids`` from the dataset's document store (``id, title, text``; ids it
    lacks left out), or None without ``--dataset``."""
    dataset = open_dataset(args)
    return None if dataset is None else dataset.documents(ids)


def qrels_and_runs(args: argparse.Namespace) -> tuple[object, list[str]]:
    """For ``QRELS RUN...`` commands: ``(args.qrels, args.runs)``, or with ``--dataset`` the
    dataset's qrels frame and every positional as a run (``eval --dataset ID RUN...``, one run
    or more). UsageError for a qrels file without any run."""
    qrels = dataset_qrels(args)
    if qrels is None:
        if not args.runs:
            raise UsageError("the following arguments are required: RUN")
        return args.qrels, list(args.runs)
    return qrels, [args.qrels, *args.runs]


def qrels_frame_and_runs(args: argparse.Namespace) -> tuple[pd.DataFrame, list[str]]:
    """:func:`qrels_and_runs` with the qrels as a frame (``topic, doc, label``): the file read
    with ``read_qrels`` when there is no ``--dataset``."""
    qrels, runs = qrels_and_runs(args)
    if isinstance(qrels, str):
        from pooljudge.formats.trec import read_qrels

        qrels = read_qrels(qrels)
    return qrels, runs


def qrels_name(args: argparse.Namespace) -> str:
    """What the qrels are called in a report or a message: ``dataset ID``, or the qrels file's
    name."""
    if getattr(args, "dataset", None) is not None:
        return f"dataset {args.dataset}"
    from pooljudge.formats.trec import run_name

    return run_name(args.qrels)


def refuse_both(args: argparse.Namespace, option: str, given: object, what: str) -> None:
    """UsageError when ``option`` (its value ``given``) and ``--dataset`` would both give
    ``what``."""
    if given is not None and getattr(args, "dataset", None) is not None:
        raise UsageError(f"{option}: the {what} come from --dataset {args.dataset}; give one or "
                         "the other")


_COLLECTION = (("--topics", "topics", "queries"), ("--docs", "docs", "docs"))


def check_collection(args: argparse.Namespace) -> None:
    """UsageError unless each of topics and documents (``args.topics``, ``args.docs``) comes
    from exactly one place: its file option, or else ``--dataset`` (when the dataset has
    them). Checked before any file is read."""
    dataset = open_dataset(args)
    for option, attribute, entity in _COLLECTION:
        given = getattr(args, attribute)
        if dataset is None:
            if given is None:
                raise UsageError(f"{option}: required (or --dataset ID)")
        elif given is None and not dataset.has(entity):
            raise UsageError(f"--dataset {args.dataset} has no {entity}: give {option} FILE")
        elif given is not None and dataset.has(entity):
            refuse_both(args, option, given, "topics" if entity == "queries" else "documents")


def collection(args: argparse.Namespace, pool: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The campaign's topics and documents (after :func:`check_collection`), from their files
    or from ``--dataset``: of the dataset's documents only the pool's queued ones (a sampled
    pool's sampled pairs) are fetched."""
    from pooljudge.formats.collection import read_documents, read_topics

    dataset = open_dataset(args)
    topics = read_topics(args.topics) if args.topics else _required(dataset, "--topics").topics()
    if args.docs:
        return topics, read_documents(args.docs)
    queued = pool["doc"]
    if "sampled" in pool.columns:
        queued = queued[pool["sampled"].to_numpy() == 1]
    return topics, _required(dataset, "--docs").documents(queued)


def _required(dataset: IrdsDataset | None, option: str) -> IrdsDataset:
    """``dataset`` where ``option`` was not given (:func:`check_collection` made sure of it)."""
    if dataset is None:
        raise UsageError(f"{option}: required (or --dataset ID)")
    return dataset
