"""``init --suggest-from`` and ``calibrate suggest``: the campaign's suggestion setting."""

from __future__ import annotations

from pooljudge.annotate.store import add_annotator, open_engine, session_scope, suggest_from

from tests.support.cli_campaign import _init


def _setting(files) -> str | None:
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    try:
        with session_scope(engine, readonly=True) as session:
            return suggest_from(session, campaign="demo")
    finally:
        engine.dispose()


def test_init_names_the_judge_and_suggest_changes_it(cli, files, capsys):
    assert _init(cli, "--suggest-from", "llm-a") == 0
    assert _setting(files) == "llm-a"
    assert cli("calibrate", "suggest", "--campaign", "demo", "--off") == 0
    assert _setting(files) is None
    assert cli("calibrate", "suggest", "--campaign", "demo", "--from", "llm-b") == 0
    assert "suggestions from llm-b" in capsys.readouterr().err
    assert _setting(files) == "llm-b"


def test_a_person_cannot_be_the_suggesting_judge(cli, files, capsys):
    assert _init(cli) == 0 and _setting(files) is None
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine) as session:
        add_annotator(session, campaign="demo", name="ann")
    engine.dispose()
    capsys.readouterr()
    assert cli("calibrate", "suggest", "--campaign", "demo", "--from", "ann") == 2
    assert capsys.readouterr().err == ("pooljudge: error: 'ann' is a person in campaign "
                                       "'demo', not an automatic judge\n")
    assert cli("calibrate", "suggest", "--campaign", "nope", "--from", "x") == 2


def test_agree_reports_judgments_with_and_without_suggestions(cli, files, capsys):
    import json

    from pooljudge.annotate import store

    assert _init(cli, "--overlap", "2") == 0
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine) as session:
        ids = {}
        for name in ("ann", "bob"):
            store.add_annotator(session, campaign="demo", name=name)
            ids[name] = store.annotator_id(session, campaign="demo", name=name)
        for topic, doc, ann, bob, suggested in (("301", "FT1", 1, 1, 1), ("301", "FT3", 0, 0, 0),
                                                ("302", "FT2", 1, 0, None),
                                                ("302", "FT3", 0, 1, None)):
            pair = store.pair_by_key(session, campaign="demo", topic=topic, doc=doc).pair_id
            for name, label in (("ann", ann), ("bob", bob)):
                store.record_judgment(session, annotator_id=ids[name], pair_id=pair,
                                      label=label, suggested=suggested)
    engine.dispose()
    capsys.readouterr()
    assert cli("agree", "--campaign", "demo", "--resamples", "0", "--format", "json") == 0
    split = json.loads(capsys.readouterr().out)["by_suggestion"]
    assert {k: [(p["n"], p["agreement"]) for p in v] for k, v in split.items()} == {
        "without a suggestion shown": [(2, 0.0)], "with a suggestion shown": [(2, 1.0)]}
    assert cli("agree", "--campaign", "demo", "--resamples", "0") == 0
    out = capsys.readouterr().out
    assert "Judgments made without a suggestion shown" in out
    assert "Judgments made with a suggestion shown" in out
