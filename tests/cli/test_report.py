"""``pooljudge report --topic-groups [--baseline]``: the per-group section in the page, its
regression warning at the top, and refused options or groups files (exit 2, one line, no file)."""

from __future__ import annotations

import html
import re

import pytest
from pooljudge.metrics.report_groups import FLAG

from pooljudge.cli import main

CATEGORIES = ("billing", "shipping", "returns")


@pytest.fixture
def files(tmp_path):
    """30 topics, 10 per category, 5 relevant documents each. ``base`` ranks them after
    ``t % 8`` others; ``new`` ranks them first, except on billing where 12 to 14 others come
    first: AP rises overall and falls on billing, P@10 falls on billing."""
    qrels, base, new, groups = [], [], [], ["topic group"]
    for t in range(30):
        category = CATEGORIES[t % 3]
        groups.append(f"q{t} category={category}")
        qrels += [f"q{t} 0 d{d} {int(d < 5)}" for d in range(20)]
        base += _ranked(t, "base", t % 8)
        new += _ranked(t, "new", 12 + t % 3 if category == "billing" else 0)
    for name, lines in (("qrels", qrels), ("base", base), ("new", new), ("groups", groups)):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path


def _ranked(topic: int, tag: str, before: int) -> list[str]:
    """Run lines of one topic: ``before`` non-relevant documents, the relevant d0-d4, the rest."""
    others = list(range(5, 20))
    order = [*others[:before], *range(5), *others[before:]]
    return [f"q{topic} Q0 d{d} {r + 1} {20 - r} {tag}" for r, d in enumerate(order)]


def _report(files, capsys, *extra: str) -> tuple[int, str, str]:
    page = files / "report.html"
    status = main(["report", str(files / "qrels"), str(files / "base"), str(files / "new"),
                   "-m", "P@10 AP", "--topic-groups", str(files / "groups"), *extra,
                   "-o", str(page)])
    err = capsys.readouterr().err
    return status, page.read_text() if page.exists() else "", err


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_the_page_has_the_per_group_section_after_the_means(files, capsys):
    status, page, err = _report(files, capsys)
    assert status == 0, err
    keys = re.findall(r'<section id="([a-z]+)"', page)
    assert keys[:3] == ["warnings", "means", "groups"] and keys.index("groups") < keys.index("rbp")
    section = page.split('<section id="groups">', 1)[1].split("</section>", 1)[0]
    for column in ("95% CI low", "95% CI high", "Δ vs baseline", "p (t, Holm)", "regression"):
        assert column in section
    rows = re.findall(r"<tr>(.*?)</tr>", section)
    flagged = [_text(r).split() for r in rows if FLAG in r]
    assert [r[:2] for r in flagged] == [["category=billing", "new"]] * 2  # P@10 and AP


def test_the_regression_is_a_warning_at_the_top_even_though_the_overall_mean_rose(files,
                                                                                  capsys):
    _, page, _ = _report(files, capsys)
    assert page.index('<section id="warnings">') < page.index('<section id="means">')
    warnings = page.split('<section id="warnings">', 1)[1].split("</section>", 1)[0]
    lines = [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", warnings)]
    assert [x.split(" (")[0] for x in lines[:2]] == ["regression in group 'category=billing'"] * 2
    [ap] = [x for x in lines[:2] if "measure AP," in x]
    assert "while over all topics it rose" in ap


def test_baseline_option_reverses_the_check(files, capsys):
    status, page, err = _report(files, capsys, "--baseline", "new")
    assert status == 0, err
    section = page.split('<section id="groups">', 1)[1].split("</section>", 1)[0]
    flagged = {_text(r).split()[0] for r in re.findall(r"<tr>(.*?)</tr>", section) if FLAG in r}
    assert flagged == {"category=shipping", "category=returns"}


def test_without_topic_groups_the_page_has_no_group_section(files, capsys):
    page = files / "plain.html"
    assert main(["report", str(files / "qrels"), str(files / "base"), "-m", "AP", "-o",
                 str(page)]) == 0
    assert 'id="groups"' not in page.read_text()


@pytest.mark.parametrize(("groups", "extra", "message"), [
    ("topic group\nq1\n", (), "groups:2: expected 'topic group'"),
    ("q1 all\n", (), "groups:1: group name 'all' is reserved"),
    ("", (), "groups"),
    (None, ("--baseline", "nope"), "--baseline 'nope' is not among the runs"),
    (None, ("--alpha", "1.5"), "--alpha"),
], ids=["no-group", "reserved-all", "empty", "unknown-baseline", "bad-alpha"])
def test_bad_groups_or_options_are_one_line_and_write_nothing(files, capsys, groups, extra,
                                                              message):
    if groups is not None:
        (files / "groups").write_text(groups)
    status, page, err = _report(files, capsys, *extra)
    assert status == 2 and page == "", err
    assert err.startswith("pooljudge: error: ") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err


def test_baseline_without_topic_groups_is_a_usage_error(files, capsys):
    status = main(["report", str(files / "qrels"), str(files / "base"), str(files / "new"),
                   "--baseline", "base", "-o", str(files / "x.html")])
    err = capsys.readouterr().err
    assert status == 2 and "--baseline needs --topic-groups" in err
    assert not (files / "x.html").exists()


def test_groups_and_latency_together_latency_last_with_the_headline_measures(files, capsys):
    (files / "latency.tsv").write_text(
        "run\tqueries\tretrievals\ttimed\tmean_ms\tp50_ms\tp95_ms\tp99_ms\n"
        "base\t30\t30\t30\t40.0\t39.0\t55.0\t60.0\n"
        "new\t30\t30\t30\t90.0\t88.0\t120.0\t130.0\n")
    status, page, err = _report(files, capsys, "--latency", str(files / "latency.tsv"))
    assert status == 0, err
    keys = re.findall(r'<section id="([a-z]+)"', page)
    assert keys.index("groups") == 2 and keys[-1] == "latency"
    latency = page.split('<section id="latency">', 1)[1]
    head = re.findall(r"<th>(.*?)</th>", latency)
    assert head == ["run", "P@10", "AP", "p50_ms", "p95_ms", "p99_ms", "mean_ms", "timed"]
