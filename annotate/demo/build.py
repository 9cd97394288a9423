"""Build the demo collection: documents, information needs, four runs, an ordered pool.

The runs come from three retrieval methods (:mod:`pooljudge.annotate.demo.retrieval`) over two query
forms: the title alone (what a user types) for TF-IDF, BM25 and character n-grams, and title plus
description for a second BM25 run. They are pooled to ``depth`` with :func:`pooling.build_pool`
and ordered by reciprocal rank fusion (:func:`pooljudge.annotate.campaigns.ordered_pool`), so the
annotators see the likeliest-relevant documents first. Nothing is random: the same Python
version gives the same collection byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from pooljudge.annotate.campaigns import ordered_pool
from pooljudge.annotate.demo.corpus import stdlib_documents
from pooljudge.annotate.demo.needs import topics_frame
from pooljudge.annotate.demo.retrieval import bm25_run, chargram_run, tfidf_run
from pooljudge.pooling.pool import build_pool

from pooljudge.formats.files import atomic_writer
from pooljudge.formats.trec import write_pool, write_run

__all__ = ["DemoCollection", "build_collection", "write_collection"]

# Guidelines shown on the judging page of the demo campaign.
DEMO_GUIDELINES = (
    "Judge whether the document helps someone with the information need. Read the narrative: it "
    "says what counts. A document that only mentions the subject in passing is not relevant. "
    "Judge each document on its own, whatever you saw before."
)


@dataclass(frozen=True)
class DemoCollection:
    """Topics (id, title, description, narrative), documents (id, title, text), runs, pool."""

    topics: pd.DataFrame
    documents: pd.DataFrame
    runs: dict[str, pd.DataFrame]
    pool: pd.DataFrame


def build_collection(*, depth: int = 10, run_depth: int = 100) -> DemoCollection:
    """Retrieve for every need with every method, pool to ``depth``, order the pool by RRF."""
    topics = topics_frame()
    documents = stdlib_documents()
    titles = pd.Series(topics["title"].to_numpy(), index=topics["id"])
    verbose = pd.Series((topics["title"] + " " + topics["description"]).to_numpy(),
                        index=topics["id"])
    runs = {
        "tfidf-title": tfidf_run(documents, titles, depth=run_depth, tag="tfidf-title"),
        "bm25-title": bm25_run(documents, titles, depth=run_depth, tag="bm25-title"),
        "bm25-desc": bm25_run(documents, verbose, depth=run_depth, tag="bm25-desc"),
        "chargram-title": chargram_run(documents, titles, depth=run_depth, tag="chargram-title"),
    }
    return DemoCollection(topics, documents, runs, ordered_pool(build_pool(runs, depth), "rrf"))


def write_collection(collection: DemoCollection, folder: Path) -> None:
    """Write runs (TREC format), the pool (TSV) and topics/documents (JSON lines) to ``folder``."""
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    for name, run in collection.runs.items():
        write_run(run, folder / "runs" / name)
    write_pool(collection.pool, folder / "pool.tsv")
    for name, frame in (("topics", collection.topics), ("documents", collection.documents)):
        with atomic_writer(folder / f"{name}.jsonl") as handle:
            frame.to_json(handle, orient="records", lines=True, force_ascii=False)
