"""``pooljudge campaigns guidelines --campaign C FILE``: replace the guidelines (everyone reads
them again); bad input is one ``pooljudge: error:`` line and exit status 2."""

from __future__ import annotations

from pooljudge.annotate.store import (
    acknowledge_guidelines,
    annotator_id,
    get_campaign,
    guidelines_sha256,
    needs_guidelines,
    open_engine,
    session_scope,
)

from tests.support.cli_campaign import _init  # the campaign (its fixtures: tests/cli/conftest.py)


def _state(files, person: str | None = "ann") -> tuple[str, bool | None]:
    """The guidelines of campaign demo and whether ``person`` must read them."""
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    try:
        with session_scope(engine, readonly=True) as session:
            text = get_campaign(session, name="demo").guidelines
            if person is None:
                return text, None
            who = annotator_id(session, campaign="demo", name=person)
            return text, needs_guidelines(session, annotator_id=who)
    finally:
        engine.dispose()


def test_new_guidelines_are_stored_and_reopened_for_everyone(cli, files, capsys) -> None:
    assert _init(cli) == 0 and cli("annotators", "add", "ann", "--campaign", "demo") == 0
    (files / "rules.md").write_text("\ufeffJudge the page.\nNot the site.\n", encoding="utf-8")
    capsys.readouterr()
    assert cli("campaigns", "guidelines", "--campaign", "demo", "rules.md") == 0
    sha = guidelines_sha256("Judge the page.\nNot the site.\n")
    assert capsys.readouterr().out == (f"campaign demo: new guidelines (sha256 {sha[:12]}); "
                                       "every annotator reads them before their next pair\n")
    assert _state(files) == ("Judge the page.\nNot the site.\n", True)
    engine = open_engine(f"sqlite:///{files / 'p.db'}")
    with session_scope(engine) as session:
        acknowledge_guidelines(session, annotator_id=annotator_id(
            session, campaign="demo", name="ann"), sha256=sha)
    engine.dispose()
    assert cli("campaigns", "guidelines", "--campaign", "demo", "rules.md") == 0
    assert "unchanged" in capsys.readouterr().out
    assert _state(files)[1] is False                     # the same text: nothing to re-read
    (files / "empty.md").write_text("", encoding="utf-8")
    assert cli("campaigns", "guidelines", "--campaign", "demo", "empty.md") == 0
    assert "removed" in capsys.readouterr().out
    assert _state(files) == ("", False)


def test_bad_input_is_one_error_line_and_status_2(cli, files, capsys) -> None:
    assert _init(cli) == 0
    (files / "rules.md").write_text("x", encoding="utf-8")
    (files / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    for argv, message in [
        (("--campaign", "demo", "missing.md"), "missing.md: no such file"),
        (("--campaign", "nope", "rules.md"), "no campaign named 'nope'"),
        (("--campaign", "demo", "latin1.md"), "latin1.md: cannot read the guidelines"),
    ]:
        capsys.readouterr()
        assert cli("campaigns", "guidelines", *argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("pooljudge: error: ") and message in err, err
        assert "Traceback" not in err and err.count("\n") == 1
    assert _state(files, person=None)[0] == ""
