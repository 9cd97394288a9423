"""Consensus models over a campaign's latest labels: the crowd coded from a judgments frame,
fitted by one of :data:`MODELS`, and its results as frames (per pair, per annotator).

Every annotator whose rows are of kind ``judgment`` is a worker — people and automatic judges
alike, so an automatic judge enters as one more worker whose confusion matrix is estimated. Gold
labels (an adjudicator's, or a named annotator's, whose own rows then leave the crowd) clamp the
posterior of the pairs they cover. The models run over the labels in use; a scale label nobody
gave has posterior 0. A pair's decided label is the argmax of its posterior; a tie takes the
lower label (crowd-kit's ``idxmax`` does the same).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pooljudge.annotate.crowd_em import Crowd, CrowdFit, dawid_skene, mace, one_coin
from pooljudge.annotate.crowd_glad import glad
from pooljudge.annotate.judgment_codes import Coded

__all__ = ["MODELS", "MODEL_NAMES", "CrowdResult", "fit_crowd", "posterior_frame",
           "worker_frame"]

# Policy name -> (what the model is called, its fitting function).
MODELS: dict[str, tuple[str, Callable[[Crowd], CrowdFit]]] = {
    "ds": ("Dawid-Skene", dawid_skene),
    "ds1": ("one-coin Dawid-Skene", one_coin),
    "glad": ("GLAD", glad),
    "mace": ("MACE", mace),
}
MODEL_NAMES: tuple[str, ...] = tuple(MODELS)


@dataclass(frozen=True)
class CrowdResult:
    """A fitted model on the scale: ``posterior`` (coded items × scale), the decided label
    position per item (argmax, ties lower), the workers' names and the fit itself."""

    model: str
    scale: tuple[int, ...]
    posterior: np.ndarray
    decided: np.ndarray
    workers: np.ndarray
    used: np.ndarray  # scale positions the model ran over
    fit: CrowdFit
    labels_per_worker: np.ndarray


def fit_crowd(coded: Coded, model: str, gold: np.ndarray | None = None, *,
              leave_out: str | None = None) -> CrowdResult:
    """Fit ``model`` (a key of MODELS) to the coded votes.

    ``gold``: a scale position per coded item, -1 where unknown. ``leave_out``: an annotator
    whose rows are not votes (the gold annotator). Items left without votes keep their gold
    label's posterior (one-hot), or, without gold, the uniform distribution over the labels
    in use.
    """
    keep = np.ones(len(coded.ann), dtype=bool)
    if leave_out is not None:
        keep &= coded.annotators[coded.ann] != leave_out
    n_items = len(coded.item_topic)
    gold = np.full(n_items, -1, dtype=np.int64) if gold is None else gold
    used = np.unique(np.concatenate([coded.pos[keep], gold[gold >= 0]]))
    if len(used) == 0:
        used = np.arange(len(coded.scale))
    remap = np.full(len(coded.scale), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    workers, worker = np.unique(coded.ann[keep], return_inverse=True)
    crowd = Crowd(item=coded.item[keep], worker=worker.astype(np.int64),
                  pos=remap[coded.pos[keep]], n_items=n_items, n_workers=len(workers),
                  n_labels=len(used), gold=np.where(gold >= 0, remap[np.maximum(gold, 0)], -1))
    fit = MODELS[model][1](crowd)
    posterior = np.zeros((n_items, len(coded.scale)))
    posterior[:, used] = np.nan_to_num(fit.posterior, nan=1.0 / len(used))
    return CrowdResult(model=model, scale=coded.scale, posterior=posterior,
                       decided=np.argmax(posterior, axis=1), workers=coded.annotators[workers],
                       used=used, fit=fit,
                       labels_per_worker=np.bincount(worker, minlength=len(workers)))


def posterior_frame(coded: Coded, result: CrowdResult) -> pd.DataFrame:
    """One row per (pair, scale label): ``topic, doc, label, probability``, by topic, doc,
    label (the soft qrels of :mod:`pooljudge.formats.soft_qrels`)."""
    n_items, width = result.posterior.shape
    frame = pd.DataFrame({
        "topic": np.repeat(coded.topics[coded.item_topic].astype(str), width),
        "doc": np.repeat(coded.item_doc.astype(str), width),
        "label": np.tile(np.asarray(result.scale, dtype=np.int64), n_items),
        "probability": result.posterior.ravel()})
    return frame.sort_values(["topic", "doc", "label"], kind="stable", ignore_index=True)


def worker_frame(result: CrowdResult) -> pd.DataFrame:
    """Per annotator: ``annotator, labels, competence`` and, for models with one,
    ``confusion`` — rows true label, columns given label, as ``t:g=p`` text."""
    frame = pd.DataFrame({"annotator": result.workers.astype(str),
                          "labels": result.labels_per_worker,
                          "competence": result.fit.competence})
    if result.fit.confusion is not None:
        names = np.asarray(result.scale)[result.used]
        frame["confusion"] = [
            " ".join(f"{t}:{g}={m[a, b]:.3f}" for a, t in enumerate(names)
                     for b, g in enumerate(names)) for m in result.fit.confusion]
    return frame.sort_values("annotator", kind="stable", ignore_index=True)
