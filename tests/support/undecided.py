"""A campaign with decided, undecided and unanimous pairs, as issue #29 found it.

Campaign ``tie`` (binary scale, overlap 2): topics 7 (documents d01..d13) and 8 (d14..d25),
judged by ``ann1`` and ``ann2``; ``idle`` (an annotator) never judged. The 25 pairs:

- 14 unanimous: d01..d14, both say ``d`` number mod 2 (odd: 1, even: 0);
- 11 disagreements: d15..d25, ann1 says 1 and ann2 says 0 (a tie each);
- the adjudicator ``referee`` decided d15 = 1, so 10 ties (d16..d25) are undecided.

Expected, with the adjudicated policy and the tie rule ``lower``: adjudicated 1, unanimous 14,
majority 0, majority tie → lower label 10; the qrels label d16..d25 0.
"""

from __future__ import annotations

import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import session_scope
from sqlalchemy import Engine

__all__ = ["ADJUDICATED", "DOCS", "UNANIMOUS", "UNDECIDED", "make_tie_campaign"]

DOCS = {f"d{i:02d}": ("7" if i <= 13 else "8") for i in range(1, 26)}
UNANIMOUS = [f"d{i:02d}" for i in range(1, 15)]
ADJUDICATED = "d15"
UNDECIDED = [f"d{i:02d}" for i in range(16, 26)]
PEOPLE = (("ann1", "annotator"), ("ann2", "annotator"), ("idle", "annotator"),
          ("referee", "adjudicator"), ("boss", "admin"))


def make_tie_campaign(engine: Engine, name: str = "tie") -> dict[str, str]:
    """Create the campaign above on ``engine``; the people's login tokens by name."""
    ids = list(DOCS)
    documents = pd.DataFrame({"id": ids, "title": [f"Title {d}" for d in ids],
                              "text": [f"body of {d}" for d in ids]})
    topics = pd.DataFrame({"id": ["7", "8"], "title": ["widgets", "gadgets"],
                           "description": "d", "narrative": "n"})
    pool = pd.DataFrame({"topic": list(DOCS.values()), "doc": ids, "order": range(1, 26),
                         "best_rank": range(1, 26), "runs": "r1"})
    rows = [(who, d, int(d[1:]) % 2, "judgment") for d in UNANIMOUS for who in ("ann1", "ann2")]
    rows += [(who, d, label, "judgment") for d in [ADJUDICATED, *UNDECIDED]
             for who, label in (("ann1", 1), ("ann2", 0))]
    rows.append(("referee", ADJUDICATED, 1, "adjudication"))
    frame = pd.DataFrame(rows, columns=["annotator", "doc", "label", "kind"])
    with session_scope(engine) as session:
        store.create_campaign(session, name=name, scale=LabelScale.binary(), overlap=2,
                              topics=topics, documents=documents, pool=pool)
        tokens = {who: store.add_annotator(session, campaign=name, name=who, role=role)
                  for who, role in PEOPLE}
        store.import_judgments(session, campaign=name, source="human",
                               frame=frame.assign(topic=frame["doc"].map(DOCS)))
    return tokens
