"""The judging page's key map: checks (Streamlit's c and r, keys bound twice, unknown actions and
keys), the campaign column and its migration, ``pooljudge init --keys``, the New campaign page's
key map, the judging page's buttons and legend under a custom map, and an admin's landing page.

No browser here: what the keys do in Chromium is tests/e2e/test_keyboard_browser.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa
from alembic import command
from pooljudge.annotate import store
from pooljudge.annotate.keymap import ACTIONS, KeyMap, canonical_key
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import migration_config, open_engine, session_scope
from pooljudge.annotate.ui import create, keys
from pooljudge.annotate.ui.render import JOINER
from pooljudge.annotate.ui.routes import home_route
from streamlit.testing.v1 import AppTest

from pooljudge.cli import main
from pooljudge.errors import InputError

APP = str(Path(__file__).resolve().parents[3] / "annotate" / "app.py")
BINARY = (0, 1)
# Every action of a binary scale, and the default keys the judging page's specification gives.
SPEC_DEFAULTS = {"label:0": ["0"], "label:1": ["1"], "skip": ["s"], "back": ["b"],
                 "forward": ["n"], "undo": ["u"], "cannot_judge": ["i"], "comment": ["/"],
                 "page_down": ["Space", "PageDown"],
                 "page_up": ["PageUp"], "line_down": ["j", "Down"], "line_up": ["k", "Up"],
                 "top": ["Home"], "bottom": ["End"], "legend": ["?"]}


def _map(data: object, labels=BINARY) -> KeyMap:
    return KeyMap.from_data(data, labels=labels, source="k.json")


# --- the checks ---------------------------------------------------------------------------------

def test_defaults_bind_every_action_as_specified() -> None:
    assert json.loads(KeyMap.default(BINARY).to_json()) == SPEC_DEFAULTS
    assert set(SPEC_DEFAULTS) - {"label:0", "label:1"} == set(ACTIONS)


def test_an_override_replaces_only_its_action_and_round_trips() -> None:
    keymap = _map({"label:0": "A", "label:1": "l", "skip": "x", "page_down": ["pgdn", "F2"],
                   "legend": "h"})
    assert keymap.shortcut("label:0") == "a"            # letters are case-blind: lower case
    assert keymap.bindings["page_down"] == ("PageDown", "F2")
    assert keymap.bindings["line_down"] == ("j", "Down")  # untouched: the default
    assert KeyMap.from_text(keymap.to_json(), labels=BINARY) == keymap
    assert keymap.page_keys()["PageDown"] == "page_down" and keymap.page_keys()["h"] == "legend"
    assert " " not in keymap.page_keys()                 # Space was given up by page_down


@pytest.mark.parametrize(("data", "message"), [
    pytest.param({"skip": "c"}, "skip: 'c' is reserved by Streamlit", id="c"),
    pytest.param({"label:1": "R"}, "label:1: 'r' is reserved by Streamlit", id="R"),
    pytest.param({"page_down": ["Space", "r"]}, "page_down: 'r' is reserved", id="r-in-list"),
    pytest.param({"skip": "b"}, "key 'b' is bound twice: skip and back", id="clash-default"),
    pytest.param({"label:0": "j", "line_down": ["Down"], "top": "J"},
                 "key 'j' is bound twice: label:0 and top", id="clash-both-given"),
    pytest.param({"page_up": ["k", "k"]}, "key 'k' is bound twice: page_up", id="twice-in-one"),
    pytest.param({"top": "0"}, "key '0' is bound twice: label:0 and top", id="clash-label"),
    pytest.param({"label:2": "2"}, "unknown action 'label:2'; the actions are label:0, label:1",
                 id="label-not-in-scale"),
    pytest.param({"jump": "x"}, "unknown action 'jump'", id="unknown-action"),
    pytest.param({"skip": "Enter"}, "skip: Enter has a fixed meaning", id="enter"),
    pytest.param({"comment": "Escape"}, "comment: Esc has a fixed meaning", id="esc"),
    pytest.param({"skip": "Ctrl+S"}, "skip: 'Ctrl+S': combinations with modifiers", id="ctrl"),
    pytest.param({"skip": "Spaces"}, "skip: 'Spaces' is not a key", id="unknown-key"),
    pytest.param({"skip": "/"}, "skip: '/' cannot be a button's key", id="punctuation-button"),
    pytest.param({"skip": ["x", "y"]}, "skip: a button takes one key, got 2", id="two-for-button"),
    pytest.param({"legend": []}, "legend: needs at least one key", id="empty"),
    pytest.param({"skip": 5}, "skip: expected a key name or a list of key names", id="number"),
    pytest.param(["skip", "x"], "expected a JSON object", id="not-an-object"),
])
def test_bad_maps_are_refused_with_the_reason(data, message) -> None:
    with pytest.raises(InputError) as error:
        _map(data)
    assert str(error.value).startswith("k.json: ") and message in str(error.value)


def test_json_text_errors_name_the_line_and_a_repeated_action() -> None:
    with pytest.raises(InputError, match=r"^k\.json:2: not a JSON key map"):
        KeyMap.from_text('{"skip": "x",\n oops}', labels=BINARY, source="k.json")
    with pytest.raises(InputError, match="action 'skip' appears twice"):
        KeyMap.from_text('{"skip": "x", "skip": "y"}', labels=BINARY, source="k.json")


def test_labels_beyond_one_digit_have_no_default_key_but_may_get_one() -> None:
    keymap = _map({"label:10": "t"}, labels=(-1, 0, 10))
    assert keymap.shortcut("label:-1") is None and keymap.shortcut("label:0") == "0"
    assert keymap.shortcut("label:10") == "t"
    assert _map({"label:0": []}).shortcut("label:0") is None  # a label may go without a key


@pytest.mark.parametrize(("text", "key"), [("a", "a"), ("Q", "q"), ("7", "7"), ("?", "?"),
                                           (" ", "Space"), ("space", "Space"), ("ArrowUp", "Up"),
                                           ("pgup", "PageUp"), ("f12", "F12"), ("del", "Delete")])
def test_key_names_are_canonical(text, key) -> None:
    assert canonical_key(text) == key


# --- the campaign column, its migration, the command line ----------------------------------------

def _collection() -> dict[str, pd.DataFrame]:
    return {"topics": pd.DataFrame({"id": ["7"], "title": "widgets", "description": "d",
                                    "narrative": "n"}),
            "documents": pd.DataFrame({"id": ["d1", "d2"], "title": "t", "text": "x"}),
            "pool": pd.DataFrame({"topic": "7", "doc": ["d1", "d2"], "order": [1, 2],
                                  "best_rank": [1, 2], "runs": "r"})}


def test_a_campaign_keeps_its_map_and_an_older_campaign_gets_the_defaults(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'k.db'}"
    engine = open_engine(url, upgrade=False)
    config = migration_config()
    with engine.begin() as connection:                   # a database before the key map
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")
        assert "keymap" not in {c["name"] for c in sa.inspect(connection).get_columns("campaign")}
        connection.execute(sa.text(
            "INSERT INTO campaign (name, scale, overlap, judging_order, assign_mode, guidelines, "
            "show_others_labels, created_at) VALUES ('old', :scale, 1, 'pool', 'pair', '', "
            "false, '2025-01-01 00:00:00')"), {"scale": LabelScale.range(0, 2).to_json()})
    engine.dispose()
    engine = open_engine(url)                            # upgraded in place
    custom = _map({"skip": "x"})
    with session_scope(engine) as session:
        store.create_campaign(session, name="new", scale=LabelScale.binary(), keymap=custom,
                              **_collection())
        with pytest.raises(InputError, match=r"key map is for labels \[0, 1\]"):
            store.create_campaign(session, name="x", scale=LabelScale.range(0, 2),
                                  keymap=custom, **_collection())
    with session_scope(engine, readonly=True) as session:
        assert store.campaign_keymap(session, campaign="old") == KeyMap.default((0, 1, 2))
        assert store.campaign_keymap(session, campaign="new") == custom
        assert sorted(session.execute(sa.text("SELECT name FROM campaign")).scalars()) \
            == ["new", "old"]
    engine.dispose()


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.setenv("POOLJUDGE_DB", f"sqlite:///{tmp_path / 'p.db'}")
    monkeypatch.chdir(tmp_path)
    frames = _collection()
    frames["topics"].to_csv("topics.tsv", sep="\t", index=False)
    frames["documents"].to_json("docs.jsonl", orient="records", lines=True)
    frames["pool"].to_csv("pool.tsv", sep="\t", index=False)

    def init(name: str, keymap: str | None, *extra: str) -> int:
        if keymap is not None:
            (tmp_path / "keys.json").write_text(keymap, encoding="utf-8")
        return main(["init", name, "--topics", "topics.tsv", "--docs", "docs.jsonl",
                     "--pool", "pool.tsv", *(["--keys", "keys.json"] if keymap else []),
                     *extra])

    return init


@pytest.mark.parametrize(("keymap", "message"), [
    ('{"skip": "c"}', "keys.json: skip: 'c' is reserved by Streamlit (c clears its cache, "
                      "r reruns the app)"),
    ('{"skip": "x", "comment": "x"}', "keys.json: key 'x' is bound twice: skip and comment"),
    ('{"label:3": "x"}', "keys.json: unknown action 'label:3'; the actions are label:0, label:1, "
                         "label:2, skip"),
    ('{"skip": ', "keys.json:1: not a JSON key map"),
])
def test_init_refuses_a_bad_key_map_in_one_line(cli, capsys, keymap, message) -> None:
    assert cli("demo", keymap, "--scale", "0-2") == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"pooljudge: error: {message}")


def test_init_stores_the_key_map(cli, capsys, tmp_path) -> None:
    assert cli("demo", '{"label:0": "a", "label:1": "l", "page_down": ["Space"]}') == 0
    assert cli("plain", None) == 0
    engine = open_engine(f"sqlite:///{tmp_path / 'p.db'}")
    with session_scope(engine, readonly=True) as session:
        demo = store.campaign_keymap(session, campaign="demo")
        plain = store.campaign_keymap(session, campaign="plain")
    engine.dispose()
    assert (demo.shortcut("label:0"), demo.shortcut("label:1")) == ("a", "l")
    assert demo.bindings["page_down"] == ("Space",) and plain == KeyMap.default(BINARY)


# --- pages --------------------------------------------------------------------------------------

SCALE = LabelScale((Label(0, "Off"), Label(1, "On", "answers it"), Label(2, "Key")))


@pytest.fixture
def people(app_db) -> dict[str, str]:
    keymap = KeyMap.from_data({"label:0": "a", "label:1": "s", "label:2": "d", "skip": "x",
                               "comment": "m", "line_down": ["Down"], "top": ["Home", "t"]},
                              labels=SCALE.values)
    with session_scope(app_db) as session:
        store.create_campaign(session, name="c", scale=SCALE, keymap=keymap, **_collection())
        return {name: store.add_annotator(session, campaign="c", name=name, role=role)
                for name, role in (("ann", "annotator"), ("boss", "admin"))}


def _legend(at: AppTest) -> list[tuple[tuple[str, ...], str]]:
    (legend,) = [h.value for h in at.get("html") if 'class="pj-legend"' in h.value]
    rows = re.findall(r'<div class="pj-legend-row">(.*?)</div>', legend)
    return [(tuple(re.findall(r"<b>(.*?)</b>", row)), row.rsplit("</b> ", 1)[1]) for row in rows]


def test_the_judging_page_binds_and_lists_the_campaigns_keys(people, open_page) -> None:
    at = open_page(people["ann"])
    shortcuts = {b.key.split("_")[0] + (b.key.split("_")[2] if b.key.startswith("label") else ""):
                 b.proto.shortcut for b in at.main.button}
    assert shortcuts == {"label0": "a", "label1": "s", "label2": "d", "skip": "x", "back": "b"}
    legend = dict(_legend(at))
    assert {k for keys_ in legend for k in keys_} == {
        "a", "s", "d", "x", "b", "m", "Space", "PageDown", "PageUp", "Down", "k", "Up", "Home",
        "t", "End", "?", "Esc", "Enter"}
    assert legend[("a",)] == "Off" and legend[("Home", "t")] == "document start"
    comment = at.text_input(key=keys.comment_key(at.session_state[keys.CURRENT].pair_id))
    assert comment.placeholder.endswith("· m to type, Enter to keep")


def test_a_label_without_description_has_no_dangling_colon(people, open_page) -> None:
    at = open_page(people["ann"])
    (_, labels) = at.sidebar.expander
    assert [h.value for h in labels.get("html")] == [
        '<div class="pj-text">0 · Off</div>', '<div class="pj-text">1 · On: answers it</div>',
        '<div class="pj-text">2 · Key</div>']


def test_an_admins_link_opens_overview_and_claims_nothing(people, open_page, app_db) -> None:
    at = open_page(people["boss"])
    assert any("By annotator" in s.value for s in at.subheader)
    assert keys.CURRENT not in at.session_state and not at.main.button  # no label button, no pair
    with session_scope(app_db, readonly=True) as session:
        assert session.execute(sa.text("SELECT COUNT(*) FROM claim")).scalar() == 0
    at.switch_page("app_pages/judge.py").run()                      # judging, on purpose
    assert at.session_state[keys.CURRENT].doc_id == "d1"


def test_an_annotators_link_still_opens_the_judging_page(people, open_page) -> None:
    at = open_page(people["ann"])
    assert at.session_state[keys.CURRENT].doc_id == "d1"


@pytest.mark.parametrize(("role", "home"), [("annotator", "judge.py"),
                                            ("adjudicator", "judge.py"),
                                            ("admin", "overview.py")])
def test_home_pages_by_role(role, home) -> None:
    assert home_route(role).file == home and role in home_route(role).roles
    with pytest.raises(KeyError, match="nobody"):
        home_route("nobody")


def _new_campaign_page(token: str, monkeypatch, keymap: str) -> AppTest:
    """The New campaign page, its form filled (uploads in memory) with ``keymap``, submitted."""
    frames = _collection()
    files = {keys.CREATE_TOPICS: frames["topics"].to_csv(sep="\t", index=False),
             keys.CREATE_DOCS: [frames["documents"].to_json(orient="records", lines=True)],
             keys.CREATE_RUNS: ["7 Q0 d1 1 9 r\n7 Q0 d2 2 8 r\n"]}
    names = {keys.CREATE_TOPICS: "topics.tsv", keys.CREATE_DOCS: "docs.jsonl",
             keys.CREATE_RUNS: "r"}

    def upload(label, *, key, **_):
        made = [_Upload(names[key], text) for text in
                (files[key] if isinstance(files.get(key), list) else [files.get(key)])
                if text is not None]
        return made if isinstance(files.get(key), list) else (made[0] if made else None)

    monkeypatch.setattr(create, "_uploader", upload)
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["token"] = token
    at.run()
    at.switch_page("app_pages/create.py").run()
    at.text_input(key=keys.CREATE_NAME).input("fresh")
    at.text_area(key=keys.CREATE_PEOPLE).input("ann2")
    at.text_area(key=keys.CREATE_KEYS).input(keymap)
    at.button(key=keys.CREATE_SUBMIT).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


class _Upload:
    """An uploaded file as the page reads it: ``.name`` and ``.getvalue()``."""

    def __init__(self, name: str, text: str) -> None:
        self.name, self._data = name, text.encode()

    def getvalue(self) -> bytes:
        return self._data


@pytest.mark.parametrize(("text", "message"), [
    ('{"skip": "r"}', "key map: skip: 'r' is reserved by Streamlit"),
    ('{"skip": "x", "top": "x"}', "key map: key 'x' is bound twice: skip and top"),
    ('{"label:9": "x"}', "key map: unknown action 'label:9'"),
])
def test_the_new_campaign_page_refuses_a_bad_key_map(people, app_db, monkeypatch, text,
                                                      message) -> None:
    at = _new_campaign_page(people["boss"], monkeypatch, text)
    shown = " ".join(e.value for e in at.error).replace("\\", "").replace(JOINER, "")
    assert "Nothing was created" in shown and message in shown
    with session_scope(app_db, readonly=True) as session:
        assert [c.name for c in store.list_campaigns(session)] == ["c"]


def test_the_new_campaign_page_stores_a_key_map(people, app_db, monkeypatch) -> None:
    at = _new_campaign_page(people["boss"], monkeypatch, '{"label:1": "y", "skip": "Right"}')
    assert not at.error
    with session_scope(app_db, readonly=True) as session:
        keymap = store.campaign_keymap(session, campaign="fresh")
    assert keymap.shortcut("label:1") == "y" and keymap.shortcut("skip") == "Right"
    assert keymap.shortcut("label:0") == "0"


def test_a_saved_map_keeps_its_keys_when_a_new_action_defaults_to_one_of_them() -> None:
    """A map saved before undo (u) and can't-judge (i) existed binds them elsewhere: it still
    loads, the new actions give those keys up; a new map binding them twice is refused."""
    old = {"skip": "u", "back": "i"}
    loaded = KeyMap.from_data(old, labels=BINARY, stored=True)
    assert loaded.shortcut("skip") == "u" and loaded.shortcut("back") == "i"
    assert loaded.shortcut("undo") is None and loaded.shortcut("cannot_judge") is None
    with pytest.raises(InputError, match="bound twice"):
        KeyMap.from_data(old, labels=BINARY)
    with pytest.raises(InputError, match="bound twice"):  # two saved keys still clash
        KeyMap.from_data({"skip": "u", "back": "u"}, labels=BINARY, stored=True)
