"""Certificates of a pooled campaign's topics, from its stored judgments.

Per topic: the pool size and its labelled pairs in labelling order (a pair's label is the
lower median of the human annotators' latest labels, as for review campaigns and the adaptive
orders; a label ≥ 1 is relevant), handed to :func:`pooljudge.pooling.pool_certificates.
certify_pool_topic`. A review campaign is refused: its certificates are its own
(``campaigns review``).
"""

from __future__ import annotations

import pandas as pd
from pooljudge.annotate import store
from pooljudge.annotate.review_rules import RELEVANT
from pooljudge.pooling.pool_certificates import PoolCertificate, certify_pool_topic
from sqlmodel import Session

from pooljudge.errors import InputError

__all__ = ["COLUMNS", "pool_certificates"]

COLUMNS = ["topic", "pool", "judged", "relevant_found", "p_value", "certified", "exhausted",
           "remaining", "remaining_low", "remaining_high", "target", "alpha", "order"]


def pool_certificates(session: Session, *, campaign: str, target: float = 0.95,
                      alpha: float = 0.05) -> pd.DataFrame:
    """One row per topic of ``campaign`` (queue order): :data:`COLUMNS`, ``order`` being the
    campaign's judging order the test read."""
    info = store.get_campaign(session, name=campaign)
    if store.review_settings(session, campaign_id=info.id) is not None:
        raise InputError(f"campaign {campaign!r} is a review: its certificates come from "
                         "'pooljudge campaigns review'")
    rows = []
    for topic in store.topic_pairs(session, campaign=campaign).itertuples():
        labels, _newest = store.review_labels(session, topic_id=int(topic.topic_id))
        relevant = (labels["label"].to_numpy() >= RELEVANT).astype("int64")
        certificate: PoolCertificate = certify_pool_topic(
            str(topic.topic), relevant, int(topic.pairs), target=target, alpha=alpha)
        rows.append(certificate.as_dict() | {"order": info.order})
    return pd.DataFrame(rows, columns=COLUMNS)
