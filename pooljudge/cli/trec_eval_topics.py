"""Which qrels topics ``pooljudge trec_eval`` evaluates, and on what ranking: trec_eval 10.0's flow.

trec_eval 10.0 loops over the qrels topics in byte order. A topic the run has is evaluated on
the run's ranking. A topic the run lacks:

- with ``-c``, is evaluated on a stand-in ranking of one document, ``ceci_nest_pas_un_docno``
  with score 1.0 (:data:`SENTINEL`), like any other ranking (so ``-J`` and ``-M 0`` drop it, and
  qrels that judge that id see it judged); then the values whose printed names are exactly
  ``num_ret``, ``utility``, ``rbp_resid``, ``relstring`` or start with ``unj`` are reset (to 0,
  and ``''`` for relstring) by :func:`reset_when_skipped`. Parameterised names
  (``utility_2,-1,0,0``, ``relstring_7``, ``rbp_resid_p=0.95``) keep the stand-in's values;
- without ``-c``, stops the loop: the topics before it have been printed (with ``-q``), then
  ``trec_eval: result qid 'T' not found in qrels`` goes to standard error and the exit status
  is 4 (:data:`MISSING_TOPIC_STATUS`), with no summary.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from pooljudge.formats.trec import RunColumns
from pooljudge.kernels import string_hashes

__all__ = ["MISSING_TOPIC_STATUS", "SENTINEL", "missing_topic_message", "reset_when_skipped",
           "with_sentinel"]

SENTINEL = "ceci_nest_pas_un_docno"
MISSING_TOPIC_STATUS = 4
# Printed names trec_eval resets for a skipped topic, compared whole; and the prefix it resets.
_RESET_NAMES = frozenset({"num_ret", "utility", "relstring", "rbp_resid"})
_RESET_PREFIX = "unj"


def reset_when_skipped(name: str) -> bool:
    """Whether trec_eval resets the measure printed as ``name`` on a topic the run skipped
    (its ``strcmp``/``strncmp`` on the printed name: ``utility_1,-1,0,0`` is kept)."""
    return name in _RESET_NAMES or name.startswith(_RESET_PREFIX)


def missing_topic_message(topic: str) -> str:
    """trec_eval 10.0's line for a qrels topic the run lacks, without ``-c``."""
    return f"trec_eval: result qid '{topic}' not found in qrels\n"


def with_sentinel(run: RunColumns, topics: list[str]) -> RunColumns:
    """``run`` (read from a file: plain string doc ids) with one more row per topic in
    ``topics`` (topics the run lacks): the document :data:`SENTINEL` with score 1.0, after the
    run's own rows."""
    if not topics:
        return run
    dictionary = run.topic.dictionary
    first = len(dictionary)
    codes = pa.array(range(first, first + len(topics)), type=run.topic.indices.type)
    topic = pa.DictionaryArray.from_arrays(
        pa.concat_arrays([run.topic.indices, codes]),
        pa.concat_arrays([dictionary, pa.array(topics, type=dictionary.type)]))
    sentinels = pa.array([SENTINEL] * len(topics), type=run.doc.type)
    doc = pa.concat_arrays([run.doc, sentinels])
    score = np.concatenate([run.score, np.ones(len(topics))])
    doc_hash = None if run.doc_hash is None else np.concatenate([run.doc_hash,
                                                                string_hashes(sentinels)])
    return RunColumns(topic, doc, score, doc_hash)
