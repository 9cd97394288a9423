"""Review certificates as JSON (``pooljudge export --certificates FILE``), beside the qrels.

One object: ``{"format": "pooljudge-certificates", "version": 1, "campaign": NAME,
"rule": ..., "target": ..., "alpha": ..., "certificates": [...]}``, each certificate a plain
mapping (its fields in :class:`pooljudge.annotate.review_records.ReviewCertificate`, with
``confidence`` and ``judgment_count``). NaN (an estimate without a sample) is written as null.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import IO, Any

__all__ = ["certificates_document", "write_certificates"]


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Mapping):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def certificates_document(campaign: str, settings: Mapping[str, Any],
                          certificates: Sequence[Mapping[str, Any]]) -> dict:
    """The JSON document of a campaign's certificates (``settings``: rule, target, alpha)."""
    return _clean({"format": "pooljudge-certificates", "version": 1, "campaign": campaign,
                   **settings, "certificates": list(certificates)})


def write_certificates(document: Mapping[str, Any], handle: IO[str]) -> None:
    """Write ``document`` (from :func:`certificates_document`) as indented JSON."""
    json.dump(document, handle, indent=2, ensure_ascii=False, allow_nan=False)
    handle.write("\n")
