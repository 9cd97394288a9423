"""Command line: ``campaigns terms`` (highlight terms per topic) and ``init
--highlight-narrative``."""

from __future__ import annotations

import pytest
from pooljudge.annotate.store import campaign_terms, get_campaign, open_engine, session_scope

# The campaign commands' small campaign (its fixtures cli, files: tests/cli/conftest.py).
from tests.support.cli_campaign import _init


def _stored(folder, fn, **kwargs):
    """``fn(session, **kwargs)`` on the CLI's database."""
    engine = open_engine(f"sqlite:///{folder / 'p.db'}")
    try:
        with session_scope(engine, readonly=True) as session:
            return fn(session, **kwargs)
    finally:
        engine.dispose()


def test_terms_replace_the_topics_in_the_file(cli, files, capsys) -> None:
    assert _init(cli) == 0
    (files / "terms.tsv").write_text(
        "topic\tterm\n301\tMafia\n# a comment\n\n301\t\"organised  crime\"\n302\tvaccine\n",
        encoding="utf-8")
    assert cli("campaigns", "terms", "--campaign", "demo", "terms.tsv") == 0
    assert "3 highlight terms for 2 topics" in capsys.readouterr().out
    (files / "more.tsv").write_text("302\tpolio\n302\tiron lung\n", encoding="utf-8")
    assert cli("campaigns", "terms", "--campaign", "demo", "more.tsv") == 0
    assert _stored(files, campaign_terms, campaign="demo") == {
        "301": ("mafia", "organised crime"), "302": ("iron lung", "polio")}


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("301\tok\n301 crime\n", "more.tsv:2: expected 'topic<TAB>term', found 0 tabs",
                 id="no-tab"),
    pytest.param("301\tok\n\tcrime\n", "more.tsv:2: blank topic id", id="blank-topic"),
    pytest.param("301\tok\n301\t \n", "more.tsv:2: topic 301: a term must not be blank",
                 id="blank-term"),
    pytest.param("301\tok\n301\tOK\n", "more.tsv:2: topic 301: term 'ok' listed twice (first "
                 "on line 1)", id="twice"),
    pytest.param("301\tbad\x1bterm\n", "more.tsv:1: topic 301: a term must not contain control "
                 "or formatting characters (U+001B)", id="control"),
    pytest.param("301\tok\n999\tx\n999\ty\n", "more.tsv:2: campaign 'demo' has no topic '999'",
                 id="unknown-topic"),
    pytest.param("# nothing\n", "more.tsv: no 'topic<TAB>term' lines", id="empty"),
])
def test_a_bad_line_is_exit_2_and_writes_nothing(cli, files, capsys, text,
                                                 message) -> None:
    assert _init(cli) == 0
    (files / "keep.tsv").write_text("301\tkept\n", encoding="utf-8")
    assert cli("campaigns", "terms", "--campaign", "demo", "keep.tsv") == 0
    capsys.readouterr()
    (files / "more.tsv").write_text(text, encoding="utf-8")
    assert cli("campaigns", "terms", "--campaign", "demo", "more.tsv") == 2
    assert capsys.readouterr().err == f"pooljudge: error: {message}\n"
    assert _stored(files, campaign_terms, campaign="demo") == {"301": ("kept",), "302": ()}


@pytest.mark.parametrize("flag", [True, False], ids=["flag", "default"])
def test_init_highlight_narrative(cli, files, flag) -> None:
    assert _init(cli, *(["--highlight-narrative"] if flag else [])) == 0
    assert _stored(files, get_campaign, name="demo").highlight_narrative is flag
