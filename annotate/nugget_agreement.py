"""Agreement between assessors on nugget assignments, by the project's agreement code.

Each (answer, nugget) cell is an item of its answer's topic; the three labels are ordinal,
``not_support`` < ``partial_support`` < ``support`` (coded 0, 1, 2 by
:data:`pooljudge.annotate.records.NUGGET_LABELS`' order). :func:`assignment_agreement` hands
the cells to :func:`pooljudge.annotate.agreement.agreement_report`, so the figures are the
ones ``pooljudge agree`` gives for relevance: per pair of assessors the shared cells, raw
agreement, Cohen's kappa and the linear and quadratic weighted kappas (scikit-learn's
``cohen_kappa_score``), specific agreement with "positive" = partial or full support, a
bootstrap CI of kappa over topics; overall and per topic Krippendorff's alpha, nominal and
ordinal (``krippendorff.alpha``), on the cells two or more assessors labelled.
"""

from __future__ import annotations

import pandas as pd
from pooljudge.annotate.agreement import AgreementReport, BootstrapSpec, agreement_report
from pooljudge.annotate.records import NUGGET_LABELS

__all__ = ["ITEM_SEPARATOR", "assignment_agreement", "assignment_judgments"]

_DEFAULT_SPEC = BootstrapSpec()
ITEM_SEPARATOR = "\x1f"  # between the answer and the nugget of an item (never in an id)


def assignment_judgments(cells: pd.DataFrame) -> pd.DataFrame:
    """Cells (``answer, topic, nugget, assessor, label``) as a judgments frame ``annotator,
    topic, doc, label``: ``doc`` is ``answer<US>nugget`` and ``label`` the label's position in
    :data:`NUGGET_LABELS`."""
    codes = {label: i for i, label in enumerate(NUGGET_LABELS)}
    return pd.DataFrame({
        "annotator": cells["assessor"].astype(str).to_numpy(),
        "topic": cells["topic"].astype(str).to_numpy(),
        "doc": (cells["answer"].astype(str) + ITEM_SEPARATOR
                + cells["nugget"].astype(str)).to_numpy(),
        "label": cells["label"].map(codes).astype("int64").to_numpy()})


def assignment_agreement(cells: pd.DataFrame, *, per_topic: bool = False,
                         spec: BootstrapSpec | None = _DEFAULT_SPEC) -> AgreementReport:
    """The agreement report of the assessors' latest labels ``cells`` (as
    :func:`pooljudge.annotate.store.nugget_cells` returns them); scale 0, 1, 2."""
    return agreement_report(assignment_judgments(cells), tuple(range(len(NUGGET_LABELS))),
                            per_topic=per_topic, spec=spec)
