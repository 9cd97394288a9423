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

:func:`anchoring` is the control of a model's pre-assignment (the assignment pane's
suggestions, ``pooljudge calibrate suggest``): people's latest labels compared with the model's
on the cells both labelled, on all of them, on those labelled with no suggestion shown and on
those labelled with one — ``n``, raw agreement, Cohen's linear weighted kappa (scikit-learn's
``cohen_kappa_score(weights="linear")`` over the three labels; NaN when undefined) and, where
a suggestion was shown, ``followed``, the share of labels equal to it. Higher agreement with a
suggestion than without is what anchoring looks like.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from pooljudge.annotate.agreement import AgreementReport, BootstrapSpec, agreement_report
from pooljudge.annotate.records import NUGGET_LABELS

__all__ = ["ANCHORING_COLUMNS", "ITEM_SEPARATOR", "anchoring", "assignment_agreement",
           "assignment_judgments"]

ANCHORING_COLUMNS = ("subset", "n", "agreement", "weighted_kappa_linear", "followed")
ANCHORING_SUBSETS = ("all", "no suggestion shown", "suggestion shown")

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


def anchoring(cells: pd.DataFrame, *, judge: str, people: set[str]) -> pd.DataFrame:
    """:data:`ANCHORING_COLUMNS` for the three subsets above, from ``cells`` (with
    ``suggested``: :func:`pooljudge.annotate.store.nugget_cells` ``with_suggested``): the
    latest labels of ``people`` joined with ``judge``'s on the same (answer, nugget)."""
    from sklearn.metrics import cohen_kappa_score

    model = cells.loc[cells["assessor"] == judge, ["answer", "nugget", "label"]]
    human = cells.loc[cells["assessor"].isin(people), ["answer", "nugget", "label",
                                                       "suggested"]]
    both = human.merge(model, on=["answer", "nugget"], suffixes=("", "_model"))
    shown = both["suggested"].notna().to_numpy(bool)
    codes = {label: i for i, label in enumerate(NUGGET_LABELS)}
    rows = []
    for subset, keep in zip(ANCHORING_SUBSETS, (np.ones(len(both), bool), ~shown, shown),
                            strict=True):
        part = both[keep]
        a, b = part["label"].map(codes).to_numpy(), part["label_model"].map(codes).to_numpy()
        kappa = np.nan
        if len(part) and len(set(a) | set(b)) > 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kappa = float(cohen_kappa_score(a, b, labels=[0, 1, 2], weights="linear"))
        followed = ((part["label"] == part["suggested"]).mean()
                    if subset == "suggestion shown" and len(part) else np.nan)
        rows.append((subset, len(part), (a == b).mean() if len(part) else np.nan, kappa,
                     followed))
    return pd.DataFrame(rows, columns=list(ANCHORING_COLUMNS))
