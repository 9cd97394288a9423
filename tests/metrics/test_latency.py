"""Latency beside precision: the join on run names, one-sided runs named, the report section."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pooljudge.metrics.latency import LATENCY_SHOWN, latency_beside, latency_section
from pooljudge.metrics.report_html import render_section

LATENCY = pd.DataFrame({"run": ["bm25@v1", "<b>dense@v1", "old@v0"], "queries": [3, 3, 1],
                        "retrievals": [4, 3, 1], "timed": [4, 3, 0],
                        "mean_ms": [20.0, 50.0, np.nan], "p50_ms": [18.0, 45.0, np.nan],
                        "p95_ms": [30.0, 90.0, np.nan], "p99_ms": [31.0, 99.0, np.nan]})
MEANS = pd.DataFrame({"run": ["<b>dense@v1", "<b>dense@v1", "bm25@v1", "bm25@v1", "new@v2",
                              "new@v2"],
                      "measure": ["P@10", "nDCG@10"] * 3,
                      "value": [0.5, 0.6, 0.4, 0.45, 0.7, 0.8]})


def test_each_run_has_its_scores_and_latency_in_one_row():
    table, warnings = latency_beside(LATENCY, MEANS)
    assert list(table.columns) == ["run", "P@10", "nDCG@10", *LATENCY_SHOWN]
    assert list(table["run"]) == ["<b>dense@v1", "bm25@v1", "new@v2", "old@v0"]
    dense = table.set_index("run").loc["<b>dense@v1"]
    assert (dense["P@10"], dense["p95_ms"], dense["timed"]) == (0.5, 90.0, 3)
    assert np.isnan(table.set_index("run").loc["new@v2", "p50_ms"])
    assert np.isnan(table.set_index("run").loc["old@v0", "P@10"])
    assert warnings == ["1 run(s) have no latency row (e.g. new@v2)",
                        "1 latency row(s) name no evaluated run (e.g. old@v0)"]


def test_the_section_escapes_run_names_and_says_what_is_missing():
    html = render_section(latency_section(LATENCY, MEANS))
    assert "&lt;b&gt;dense@v1" in html and "<b>dense" not in html
    assert "p95_ms" in html and "Warning: 1 run(s) have no latency row" in html


def test_the_timed_count_prints_as_an_integer_even_beside_an_unmatched_run():
    """new@v2 has no latency row, so the joined column holds a missing value; the counts of
    the others still print as integers (``timed`` 3, not 3.0000)."""
    html = render_section(latency_section(LATENCY, MEANS))
    rows = {row.split("</td>", 1)[0]: row for row in html.split("<tr><td>")[1:]}
    assert rows["&lt;b&gt;dense@v1"].endswith('<td class="num">3</td></tr>')
    assert rows["bm25@v1"].endswith('<td class="num">4</td></tr>')
    assert "3.0000" not in html and "4.0000" not in html
    assert rows["new@v2"].endswith("<td>–</td></tr>")
