"""Tables as the admin pages show them: human column labels, and no raw missing value.

``st.dataframe`` draws a missing value (None, NaN, NaT, pd.NA) as the word "None" unless told
otherwise. :func:`show_table` renames the columns to the labels given (a column without one
keeps its name: it is data, such as a label's or a topic's name), draws missing values as
:data:`MISSING` (an em dash; Streamlit's ``placeholder``, so the columns keep their types and
sort as numbers), writes numbers by printf formats, and puts the meaning of a missing value in
the column's help.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

__all__ = ["MISSING", "readable", "show_table"]

MISSING = "—"


def readable(frame: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """``frame`` with its columns (and its index's name) renamed by ``labels``; others kept."""
    shown = frame.rename(columns=dict(labels))
    if shown.index.name is not None:
        shown.index.name = labels.get(str(shown.index.name), shown.index.name)
    return shown


def show_table(frame: pd.DataFrame, labels: Mapping[str, str] | None = None,
               formats: Mapping[str, str] | None = None, *,
               helps: Mapping[str, str] | None = None, hide_index: bool = True,
               column_config: Mapping[str, Any] | None = None) -> None:
    """``st.dataframe`` of :func:`readable`, missing values drawn as :data:`MISSING`;
    ``formats`` (printf, by the frame's column names) for number columns, ``helps`` for the
    headers' tooltips; ``column_config`` (by the labels shown) is added last."""
    labels, formats, helps = labels or {}, formats or {}, helps or {}
    config: dict[str, Any] = {}
    for name in frame.columns:
        label = labels.get(str(name), str(name))
        if name in formats:
            config[label] = st.column_config.NumberColumn(format=formats[name],
                                                          help=helps.get(name))
        elif name in helps:
            config[label] = st.column_config.Column(help=helps[name])
    st.dataframe(readable(frame, labels), hide_index=hide_index,
                 column_config=config | dict(column_config or {}), placeholder=MISSING)
