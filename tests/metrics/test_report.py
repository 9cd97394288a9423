"""The HTML report: self-contained, escaped, every run present; its views as DataFrames."""

from __future__ import annotations

import base64
import html
import io
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from pooljudge.metrics.report import (
    RECALL_LEVELS,
    bias_view,
    collect,
    literal_label,
    means_table,
    pr_table,
    rbp_table,
    render_report,
    sections,
)
from pooljudge.metrics.report_html import MAX_COLUMNS, Section, html_table, render_page

from pooljudge import metrics
from pooljudge.cli import main
from pooljudge.formats.trec import write_qrels, write_run

EVIL = "<b onmouseover=alert(1)>&\"run'"


class _Collector(HTMLParser):
    """Collects tags, attributes and text; fails the test on malformed nesting of tables."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.open_tables = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs
        self.open_tables += tag == "table"

    def handle_endtag(self, tag):
        self.open_tables -= tag == "table"

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Collector:
    parser = _Collector()
    parser.feed(page)
    parser.close()
    assert parser.open_tables == 0
    return parser


def _collection(seed: int = 0, n_topics: int = 8):
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame([(str(t), f"d{d}", int(rng.choice([-1, 0, 1, 2])))
                          for t in range(1, n_topics + 1) for d in rng.choice(40, 15, False)],
                         columns=["topic", "doc", "label"])
    runs = {}
    for name in ("alpha", EVIL, "gamma"):
        rows = [(str(t), f"d{d}", float(rng.integers(0, 9)))
                for t in range(1, n_topics + 1) for d in rng.choice(40, 20, False)]
        runs[name] = pd.DataFrame(rows, columns=["topic", "doc", "score"])
    return qrels, runs


def test_html_table_escapes_every_cell_and_header():
    frame = pd.DataFrame({"<th>": [EVIL, "x"], "value": [0.5, np.nan], "n": [3, 4]})
    text = html_table(frame)
    assert "<b onmouseover" not in text and "<th>&lt;th&gt;</th>" in text
    assert html.escape(EVIL) in text
    assert '<td class="num">0.5000</td>' in text and '<td class="num">–</td>' in text
    parsed = _parse(text)
    assert EVIL in "".join(parsed.text)  # it round-trips as text, never as markup
    assert "b" not in parsed.tags


def test_page_is_self_contained_and_escapes_title_meta_and_warnings():
    page = render_page(EVIL, [EVIL], [EVIL], [Section("k", EVIL, EVIL, {EVIL: pd.DataFrame(
        {"a": [1]})}, collapsed=True)])
    parsed = _parse(page)
    assert "http" not in page and "<script" not in page and "src=\"/" not in page
    assert "b" not in parsed.tags
    assert "".join(parsed.text).count(EVIL) >= 5


def test_views_are_dataframes_consistent_with_evaluate():
    qrels, runs = _collection()
    data = collect(qrels, runs, ["AP", "P@5"], pool_depth=5)
    means = means_table(data)
    assert list(means.index) == list(runs)
    direct = metrics.evaluate(qrels, runs, ["AP", "P@5", "Judged@10"], per_topic=False)
    direct = direct.set_index(["run", "measure"])["value"]
    condensed = metrics.evaluate(qrels, runs, ["AP"], per_topic=False, judged_only=True)
    for run in runs:
        assert means.loc[run, "AP"] == pytest.approx(direct[(run, "AP")])
        assert means.loc[run, "unjudged share of top 10 (1 − Judged@10)"] == pytest.approx(
            1 - direct[(run, "Judged@10")])
        assert means.loc[run, "AP condensed"] == pytest.approx(
            condensed.set_index("run").loc[run, "value"])
    intervals = rbp_table(data)
    np.testing.assert_allclose(intervals["high"], intervals["RBP"] + intervals["residual"])
    assert ((intervals["low"] >= 0) & (intervals["high"] <= 1 + 1e-12)).all()
    curves = pr_table(data)
    assert list(curves.columns) == [f"{r:.1f}" for r in RECALL_LEVELS]
    iprec = metrics.evaluate(qrels, runs, ["IPrec@0.5"], per_topic=False).set_index("run")
    np.testing.assert_allclose(curves["0.5"], iprec.loc[list(runs), "value"])
    view = bias_view(data.bias)
    assert list(view.index) == list(runs) and "AP without" in view.columns
    assert [s.key for s in sections(data)] == ["means", "rbp", "bias", "pr", "topics"]
    assert any("fewer than 25" in w for w in data.warnings)


def test_report_without_bias_omits_the_section():
    qrels, runs = _collection(1)
    data = collect(qrels, runs)
    assert data.bias is None
    assert "bias" not in [s.key for s in sections(data)]
    assert "Pool bias" not in render_report(data)


def test_report_cli_with_hostile_run_file_name(tmp_path):
    qrels, runs = _collection(2)
    write_qrels(qrels, tmp_path / "qrels.txt")
    paths = []
    for name, run in runs.items():
        path = tmp_path / (name.replace("/", "_") + ".run")
        write_run(run.assign(tag="t"), path)
        paths.append(str(path))
    out = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "qrels.txt"), *paths, "--pool-depth", "5",
                 "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    parsed = _parse(page)
    assert "http" not in page
    assert "b" not in parsed.tags and not any(a == "onmouseover" for a, _ in parsed.attrs)
    text = "".join(parsed.text)
    for path in paths:
        assert path.rsplit("/", 1)[1] in text


# a run named like mathtext: unbalanced (matplotlib raised), balanced (rendered as math), and
# one with a leading underscore (an automatic legend drops such labels)
MATH_NAMES = ("a$\\frac{$b", "odd2$x$y", "_under$")


def _math_named(seed: int):
    qrels, runs = _collection(seed)
    return qrels, dict(zip(MATH_NAMES, runs.values(), strict=True))


def _shown(text) -> tuple[str, bool]:
    """What matplotlib draws for a Text and whether as math (the preprocessing Text.draw uses)."""
    return text._preprocess_math(text.get_text())


def test_plot_labels_show_run_names_literally():
    qrels, runs = _math_named(4)
    figures = {c: f for s in sections(collect(qrels, runs)) for c, f in s.figures.items()}
    for figure in figures.values():
        figure.savefig(io.BytesIO(), format="png")  # raised ValueError on a$\frac{$b
    legend = figures["Interpolated precision–recall"].axes[0].get_legend().get_texts()
    assert [_shown(t) for t in legend] == [(name, False) for name in MATH_NAMES]
    ticks = figures["RBP intervals per run"].axes[0].get_yticklabels()
    assert sorted(_shown(t) for t in ticks) == sorted((name, False) for name in MATH_NAMES)
    assert literal_label("x\\$y$") == "x\\\\$y\\$"


def _report_cells(tmp_path, qrels, runs: dict, names: tuple[str, ...]) -> list[str]:
    """The text pieces of a report of ``runs`` written to files called ``names``."""
    tmp_path.mkdir(exist_ok=True)
    write_qrels(qrels, tmp_path / "qrels.txt")
    paths = [tmp_path / name for name in names]
    for path, run in zip(paths, runs.values(), strict=True):
        write_run(run.assign(tag="t"), path)
    out = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "qrels.txt"), *map(str, paths), "--pool-depth", "5",
                 "-o", str(out)]) == 0
    return _parse(out.read_text(encoding="utf-8")).text


def test_report_cli_with_mathtext_run_names(tmp_path):
    qrels, runs = _math_named(5)
    cells = [t for t in _report_cells(tmp_path, qrels, runs, MATH_NAMES) if t in MATH_NAMES]
    # rows of means, RBP, bias (twice: run, left out) and curves, each row once per part of
    # a table split at MAX_COLUMNS (the run column repeats); a column of each per-topic table
    split = {s.key: [f for f in s.tables.values()] for s in sections(
        collect(*_math_named(5), pool_depth=5))}
    parts = sum(-(-f.shape[1] // MAX_COLUMNS) for key in ("means", "rbp", "bias", "pr")
                for f in split[key])
    assert parts > 4  # some tables were split
    for name in MATH_NAMES:
        assert cells.count(name) == parts + 1 + len(split["topics"])


def test_report_cli_with_run_names_that_are_column_names(tmp_path):
    """Runs named like the tables' own index and columns still get their rows and columns:
    each name shows as often as a plain name, on top of the headers that use the word."""
    qrels, runs = _collection(6)
    names = ("topic", "run", "measure")
    plain = _report_cells(tmp_path / "plain", qrels, runs, ("r1", "r2", "r3"))
    clashing = _report_cells(tmp_path / "clash", qrels, runs, names)
    for name, control in zip(names, ("r1", "r2", "r3"), strict=True):
        assert clashing.count(name) == plain.count(name) + plain.count(control) > 10


@pytest.mark.slow
def test_report_from_real_runs_opens_and_contains_every_run(shared_data, tmp_path):
    folder = shared_data / "robust03"
    paths = sorted((folder / "runs").glob("input.*.gz"))  # every run (17 in robust03)
    assert len(paths) >= 17
    out = tmp_path / "robust03.html"
    assert main(["report", str(folder / "qrels.txt"), *map(str, paths), "--pool-depth", "20",
                 "-m", "AP", "-m", "nDCG@10", "-m", "RecallDepth(r=0.5)", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    parsed = _parse(page)
    assert "http" not in page and "<script" not in page
    text = "".join(parsed.text)
    assert f"{len(paths)} runs, pool depth 20" in text
    for path in paths:
        assert text.count(path.name[:-3]) >= 5  # means, RBP, bias, curves, per-topic tables
    images = [value for name, value in parsed.attrs if name == "src"]
    assert len(images) == 2
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for heading in ("Means per run", "RBP intervals (p=0.8)", "Pool bias (leave one run out)",
                    "Precision–recall curves", "Per-topic scores", "Warnings"):
        assert heading in text
    assert parsed.tags.count("details") == 6  # AP, nDCG@10, RecallDepth, Judged@10, RBP, residual
    assert "topic(s) never reach the recall of RecallDepth(r=0.5)" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        pytest.param(["--pool-depth", "0"], "--pool-depth: must be at least 1", id="depth"),
        pytest.param(["--rbp-p", "1"], "--rbp-p: must lie strictly between 0 and 1", id="p"),
        pytest.param(["-m", "AP P@ten"], "-m/--measure:", id="measure"),
    ],
)
def test_report_cli_usage_errors_write_nothing(tmp_path, capsys, extra, message):
    qrels, runs = _collection(3)
    write_qrels(qrels, tmp_path / "qrels.txt")
    write_run(runs["alpha"].assign(tag="t"), tmp_path / "alpha")
    out = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "qrels.txt"), str(tmp_path / "alpha"), *extra,
                 "-o", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(("value", "text"), [(-1e-7, "0.0000"), (-0.25, "-0.2500"),
                                             (np.float32(0.5), "0.5000"), (np.int64(7), "7"),
                                             (float("nan"), "–"), ("<i>", "&lt;i&gt;")])
def test_cells_are_formatted_without_negative_zero(value, text):
    from pooljudge.metrics.report_html import format_cell

    assert format_cell(value)[0] == text
