"""Which trec_eval release the numbers reproduce: ``"10"`` (the default) or ``"9"``.

``"10"`` is trec_eval 10.0 with ``-c``; ``"9"`` is trec_eval 9.0.8 (and pytrec_eval, built on
its C core) with ``-c``. They differ in three places, and nowhere else among pooljudge's
measures:

- score comparison: 10 compares run scores in double precision, 9 in single precision (it
  stored them as ``float``), so scores equal as float32 tie and the doc id decides;
- interpolated-precision cutoffs (``IPrec@x``, ``IPrec11``): a rank qualifies when it holds at
  least ``lround(x * R)`` relevant documents in 10 (round half away from zero), at least
  ``(long)(x * R + 0.9)`` in 9; both computed in double precision;
- ``Unjudged@k`` (``unj_k``): 10 counts a document with a negative label as unjudged, 9 counts
  only documents without any qrels line.
"""

from __future__ import annotations

from typing import Literal

from pooljudge.errors import InputError

__all__ = ["COMPATS", "DEFAULT_COMPAT", "Compat", "check_compat"]

Compat = Literal["9", "10"]
COMPATS: tuple[Compat, ...] = ("9", "10")
DEFAULT_COMPAT: Compat = "10"


def check_compat(value: object) -> Compat:
    """``value`` as a :data:`Compat`: ``"9"``/``"10"`` or the integers 9/10 (a bool is not one).

    Raises InputError for anything else.
    """
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if text not in COMPATS:
        raise InputError(f"compat must be one of {', '.join(COMPATS)} (trec_eval's major "
                         f"version), got {value!r}")
    return text  # type: ignore[return-value]
