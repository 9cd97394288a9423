"""How much of a model's nugget banks people kept, edited, merged or deleted, and what they
added: the post-editing figures of a campaign, from the banks' history.

Per topic (and ``all``): ``model_nuggets`` (created by a model), of them ``kept`` (never
changed), ``edited`` (changed and still active), ``merged`` (into another nugget), ``deleted``;
and ``added``, the nuggets people created. A model nugget edited and then merged or deleted
counts by its final state; ``kept_share`` is ``kept / model_nuggets`` (NaN without any).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["POST_EDITING_COLUMNS", "post_editing"]

POST_EDITING_COLUMNS = ("topic", "model_nuggets", "kept", "edited", "merged", "deleted",
                        "added", "kept_share")


def post_editing(history: pd.DataFrame) -> pd.DataFrame:
    """The figures above from :func:`pooljudge.annotate.store.nugget_history`'s frame (its
    events in the order made); one row per topic with nuggets, then ``all``."""
    if history.empty:
        return pd.DataFrame(columns=list(POST_EDITING_COLUMNS))
    last = history.groupby("key", sort=False).tail(1).set_index("key")
    changed = history[history["action"] != "created"].groupby("key").size()
    state = last["after"].map(lambda after: after["state"])
    model = last["author_kind"].eq("model")
    touched = changed.reindex(last.index, fill_value=0).gt(0)
    nuggets = pd.DataFrame({
        "topic": last["topic"].astype(str),
        "model_nuggets": model,
        "kept": model & ~touched,
        "edited": model & touched & state.eq("active"),
        "merged": model & state.eq("merged"),
        "deleted": model & state.eq("deleted"),
        "added": ~model})
    table = nuggets.groupby("topic", sort=False).sum()
    table.loc["all"] = table.sum()
    table = table.astype("int64")
    table["kept_share"] = np.divide(table["kept"], table["model_nuggets"],
                                    out=np.full(len(table), np.nan),
                                    where=table["model_nuggets"].to_numpy() > 0)
    return table.reset_index()[list(POST_EDITING_COLUMNS)]
