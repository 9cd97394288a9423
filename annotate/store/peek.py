"""The pair an annotator will most likely be given next, read without claiming it.

The judging pane shows it the moment a label is accepted, while the label's write (and the real
claim of the next pair) completes on the server: :func:`peek_next_pair` is the first candidate
of the annotator's queue other than the pair they hold, as the claim statement of
:mod:`pooljudge.annotate.store.assignment` would find it now. It is a forecast, never a claim:
another annotator may take its last slot first, in which case the pane shows the pair actually
claimed when the write returns (and the judging pane's gate lets no key act on the forecast
before then). None when no forecast is worth making: nothing else is open for the annotator,
an adaptive order (its policy re-ranks the queue at claim time), or assignment by topic whose
held topics have nothing left (the claim would pick a new topic).
"""

from __future__ import annotations

import sqlalchemy as sa
from pooljudge.annotate.records import PairView
from pooljudge.annotate.store.assignment import _candidates
from pooljudge.annotate.store.common import load_pair_view, run
from pooljudge.annotate.store.models import Annotator, Campaign
from pooljudge.pooling.orders import adaptive_spec
from sqlmodel import Session

__all__ = ["peek_next_pair"]

_ANN, _CAMPAIGN = sa.inspect(Annotator).local_table, sa.inspect(Campaign).local_table
_MODES = (sa.select(_ANN.c.campaign_id, _ANN.c.active, _ANN.c.human, _CAMPAIGN.c.assign_mode,
                    _CAMPAIGN.c.judging_order)
          .join(_CAMPAIGN, _CAMPAIGN.c.id == _ANN.c.campaign_id)
          .where(_ANN.c.id == sa.bindparam("aid")))


def _first_other(*, held_by_topic: bool) -> sa.Select:
    """The first candidate (queue order, skipped pairs left out) other than pair ``held``."""
    query = _candidates(held_by_topic=held_by_topic, skipped=False)
    candidate = query.selected_columns[0].table
    return query.where(candidate.c.id != sa.bindparam("held")).limit(1)


_NEXT = {held: _first_other(held_by_topic=held) for held in (False, True)}


def peek_next_pair(session: Session, *, annotator_id: int, held_pair_id: int
                   ) -> PairView | None:
    """The pair ``annotator_id`` would most likely claim after answering ``held_pair_id``
    (read only, no lock, no claim); None as the module docstring says."""
    me = run(session, _MODES, aid=annotator_id).first()
    if me is None or not me.active or not me.human or adaptive_spec(me.judging_order):
        return None
    by_topic = me.assign_mode == "topic"
    pair_id = run(session, _NEXT[by_topic], aid=annotator_id, cid=me.campaign_id,
                  held=held_pair_id).scalar_one_or_none()
    return None if pair_id is None else load_pair_view(session, pair_id, None)
