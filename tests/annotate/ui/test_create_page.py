"""AppTest (no browser): the create-campaign form submitted for real, as an admin.

AppTest cannot upload files, so the page's one uploader (``create._uploader``) is replaced by
in-memory files; every other widget is filled and the form's submit button pressed. Two topics
and two runs of depth 2: topic 1 pools d1, d2 (run A) and d3, d4 (run B), topic 2 pools d4, d5
(A) and d6, d4 (B); a budget of 2 keeps two pairs per topic.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from pooljudge.annotate import store
from pooljudge.annotate.links import DEFAULT_APP_URL as DEFAULT_URL
from pooljudge.annotate.records import Label, LabelScale
from pooljudge.annotate.store import open_engine, session_scope
from pooljudge.annotate.ui import create, keys
from pooljudge.annotate.ui.render import JOINER
from pooljudge.pooling.pool import apply_budget, build_pool
from pooljudge.pooling.static_orders import static_order
from streamlit.testing.v1 import AppTest

from pooljudge.cli import main
from pooljudge.errors import InputError
from pooljudge.formats.trec import read_run
from tests.support.new_campaign import DOCS, RUNS, TOPICS, stored_pairs

APP = str(Path(__file__).resolve().parents[3] / "annotate" / "app.py")
POOL_HEADER = "topic\tdoc\torder\tbest_rank\truns\n"
FILE_SCALE = [{"value": 0, "name": "No", "description": "off topic"},
              {"value": 2, "name": "Yes", "description": "answers the question"}]


def _file(name: str, text: str) -> io.BytesIO:
    upload = io.BytesIO(text.encode())
    upload.name = name
    return upload


@pytest.fixture
def app(tmp_path, monkeypatch) -> dict:
    """A database with campaign ``home`` and its admin ``boss``; the page's uploads in memory."""
    url = f"sqlite:///{tmp_path / 'create.db'}"
    monkeypatch.setenv("POOLJUDGE_DB", url)
    monkeypatch.delenv("POOLJUDGE_URL", raising=False)
    engine = open_engine(url)
    with session_scope(engine) as session:
        store.create_campaign(
            session, name="home", scale=LabelScale.binary(),
            topics=pd.DataFrame({"id": ["9"], "title": "t", "description": "", "narrative": ""}),
            documents=pd.DataFrame({"id": ["x"], "title": "x", "text": "x"}),
            pool=pd.DataFrame({"topic": ["9"], "doc": ["x"], "order": [1], "best_rank": [1],
                               "runs": ["r"]}))
        boss = store.add_annotator(session, campaign="home", name="boss", role="admin")
    files = {keys.CREATE_TOPICS: _file("topics.tsv", TOPICS),
             keys.CREATE_DOCS: [_file("docs.jsonl", DOCS)],
             keys.CREATE_RUNS: [_file(name, text) for name, text in RUNS.items()],
             keys.SCALE_FILE: _file("scale.json", json.dumps(FILE_SCALE))}
    monkeypatch.setattr(create, "_uploader", lambda label, *, key, **_: files.get(key))
    yield {"engine": engine, "boss": boss, "files": files, "tmp": tmp_path}
    engine.dispose()


def _create_page(token: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["token"] = token
    at.run()
    at.switch_page("app_pages/create.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _fill(at: AppTest, *, name: str = "new", people: str = "ann1\nref,adjudicator") -> AppTest:
    at.text_input(key=keys.CREATE_NAME).input(name)
    at.number_input(key=keys.CREATE_DEPTH).set_value(2)
    at.number_input(key=keys.CREATE_BUDGET).set_value(2)
    at.selectbox(key=keys.CREATE_POOLING).select("borda")
    at.number_input(key=keys.CREATE_OVERLAP).set_value(2)
    at.selectbox(key=keys.CREATE_QUEUE).select("topic")
    at.checkbox(key=keys.SHOW_OTHERS).check()
    at.text_area(key=keys.CREATE_GUIDELINES).input("Judge the topic, not the title.")
    at.text_area(key=keys.CREATE_PEOPLE).input(people)
    return at


def _submit(at: AppTest) -> AppTest:
    at.button(key=keys.CREATE_SUBMIT).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _expected_pool(folder: Path, depth: int, budget: int, order: str) -> list[tuple]:
    runs = {}
    for name, text in RUNS.items():
        (folder / name).write_text(text)
        runs[name] = read_run(folder / name)
    pool = build_pool(runs, depth)
    frame = apply_budget(pool, static_order(pool, order), budget=budget)
    return sorted((str(t), str(d), int(o), int(b), str(r)) for t, d, o, b, r in
                  frame[["topic", "doc", "order", "best_rank", "runs"]].to_numpy())


def _names(engine) -> list[str]:
    with session_scope(engine, readonly=True) as session:
        return [c.name for c in store.list_campaigns(session)]


# --- a campaign created through the form --------------------------------------------------------

def test_the_form_stores_the_campaign_its_pool_and_people_with_working_links(app) -> None:
    engine = app["engine"]
    at = _create_page(app["boss"])
    at.selectbox(key=keys.SCALE_PRESET).select("graded 0–2").run()
    table = at.data_editor[0]
    assert table.value.to_dict("list") == {
        "value": [0, 1, 2], "name": ["Not relevant", "Relevant", "Highly relevant"],
        "description": ["", "", ""]}
    at.session_state[keys.label_table_key("preset1")] = {
        "edited_rows": {0: {"description": "nothing on the topic"},
                        2: {"name": "Key", "description": "a key resource"}},
        "added_rows": [], "deleted_rows": []}
    at = _submit(_fill(at))
    assert not at.error, [e.value for e in at.error]

    with session_scope(engine, readonly=True) as session:
        info = store.get_campaign(session, name="new")
    assert info.scale == LabelScale((Label(0, "Not relevant", "nothing on the topic"),
                                     Label(1, "Relevant", ""), Label(2, "Key", "a key resource")))
    assert (info.overlap, info.order, info.show_others_labels, info.guidelines) == \
        (2, "topic", True, "Judge the topic, not the title.")
    stored = stored_pairs(engine, "new")
    assert sorted(stored) == _expected_pool(app["tmp"], depth=2, budget=2, order="borda")
    assert [t for t, *_ in stored] == ["1", "1", "2", "2"]      # the budget cut both topics

    links = re.findall(r"^(\w+)\s+(\S+)\s+(\S+)$", at.code[0].value, flags=re.M)
    assert [(role, name) for role, name, _ in links] == [("annotator", "ann1"),
                                                         ("adjudicator", "ref")]
    with session_scope(engine, readonly=True) as session:
        for role, name, url in links:
            assert url.startswith(f"{DEFAULT_URL}/?token=")
            person = store.authenticate(session, token=url.split("?token=", 1)[1])
            assert (person.campaign_name, person.name, person.role) == ("new", name, role)
    assert "Campaign new created" in at.success[0].value
    at.button(key=keys.HIDE_LINKS).click().run()
    assert not at.code and not at.success


def test_a_json_scale_file_fills_the_table_and_links_use_the_configured_address(
        app, monkeypatch) -> None:
    monkeypatch.setenv("POOLJUDGE_URL", "https://judge.example.org/")
    at = _create_page(app["boss"])
    at.selectbox(key=keys.SCALE_PRESET).select(create.SCALE_FROM_FILE).run()
    assert at.data_editor[0].value.to_dict("records") == FILE_SCALE
    at = _submit(_fill(at, people="solo"))
    with session_scope(app["engine"], readonly=True) as session:
        info = store.get_campaign(session, name="new")
        url = at.code[0].value.split()[-1]
        assert url.startswith("https://judge.example.org/?token=")
        assert store.authenticate(session, token=url.split("=", 1)[1]).name == "solo"
    assert info.scale == LabelScale.from_data(FILE_SCALE)


def test_a_campaign_without_people_shows_no_links(app) -> None:
    at = _submit(_fill(_create_page(app["boss"]), people=""))
    assert not at.error and not at.code and "Campaign new created" in at.success[0].value
    with session_scope(app["engine"], readonly=True) as session:
        assert store.list_annotators(session, campaign="new").empty
    assert _names(app["engine"]) == ["home", "new"]


# --- bad input stores nothing -------------------------------------------------------------------

def _plain(markdown: str) -> str:
    """What an md_escape'd message reads as: without its backslashes and word joiners."""
    return markdown.replace("\\", "").replace(JOINER, "")


def _refused(app, at: AppTest, message: str) -> None:
    assert not at.code and len(at.error) == 1 and message in _plain(at.error[0].value)
    assert _names(app["engine"]) == ["home"]
    with session_scope(app["engine"], readonly=True) as session:
        assert store.list_annotators(session, campaign="home")["name"].tolist() == ["boss"]


def test_a_run_naming_an_unknown_topic_stores_nothing(app) -> None:
    app["files"][keys.CREATE_RUNS].append(_file("runC", "3 Q0 d1 1 9 C\n"))
    at = _submit(_fill(_create_page(app["boss"])))
    _refused(app, at, "run(s) runC retrieve topic 3, document d1, but the topics have no 3")


def test_a_duplicate_campaign_name_stores_nothing(app) -> None:
    at = _submit(_fill(_create_page(app["boss"]), name="home", people="boss2,admin"))
    _refused(app, at, "a campaign named 'home' already exists")


def test_a_bad_person_line_stores_nothing(app) -> None:
    at = _submit(_fill(_create_page(app["boss"]), people="ann1\nann2,boss"))
    _refused(app, at, "people:2: unknown role 'boss' for 'ann2'")


def test_a_person_the_store_refuses_rolls_the_campaign_back(app) -> None:
    # the parser lets a tab inside a name through; the store refuses it after the campaign
    at = _submit(_fill(_create_page(app["boss"]), people="ann1\nbad\tname"))
    _refused(app, at, "an annotator name must be non-blank")


def test_a_bad_run_file_is_named_by_its_own_name_not_a_temporary_path(app) -> None:
    app["files"][keys.CREATE_RUNS].append(_file("badrun.txt", "1 Q0 d1\n"))
    at = _submit(_fill(_create_page(app["boss"])))
    _refused(app, at, "Nothing was created: badrun.txt:1: ")
    shown = _plain(at.error[0].value)
    assert shown == ("Nothing was created: badrun.txt:1: expected 6 whitespace-separated "
                     "fields, found 3: '1 Q0 d1'"), shown


def _order(at: AppTest) -> list[str]:
    """The main area's elements, top to bottom, by type."""
    return [node.type for node in at.main if hasattr(node, "type") and node.type in
            ("title", "success", "error", "code", "subheader")]


def test_an_error_after_a_success_replaces_it_at_the_top(app) -> None:
    at = _submit(_fill(_create_page(app["boss"])))
    assert _order(at)[:3] == ["title", "success", "code"], _order(at)
    at.text_input(key=keys.CREATE_NAME).input("new")  # the same name again: refused
    at = _submit(at)
    assert not at.success and not at.code and len(at.error) == 1
    assert "a campaign named 'new' already exists" in _plain(at.error[0].value)
    assert _order(at)[:3] == ["title", "error", "subheader"], _order(at)
    at.text_input(key=keys.CREATE_NAME).input("newer")  # a success replaces the error
    at = _submit(at)
    assert not at.error and "Campaign newer created" in at.success[0].value
    assert _order(at)[:3] == ["title", "success", "code"], _order(at)


def test_a_ready_pool_file_makes_the_pairs_pooljudge_init_makes(app, monkeypatch) -> None:
    """``pooljudge pool`` writes the pool; ``pooljudge init --pool`` and the page's upload of
    the same file (no runs) store the same pairs, in the same order."""
    folder, url = app["tmp"], str(app["engine"].url)
    for name, text in [*RUNS.items(), ("topics.tsv", TOPICS), ("docs.jsonl", DOCS)]:
        (folder / name).write_text(text)
    monkeypatch.chdir(folder)
    assert main(["pool", "runA", "runB", "--depth", "2", "--strategy", "borda", "--budget",
                 "3", "-o", "pool.tsv"]) == 0
    assert main(["init", "fromcli", "--topics", "topics.tsv", "--docs", "docs.jsonl",
                 "--pool", "pool.tsv", "--db", url]) == 0
    app["files"][keys.CREATE_RUNS] = []
    app["files"][create.CREATE_POOL] = _file("pool.tsv", (folder / "pool.tsv").read_text())
    at = _submit(_fill(_create_page(app["boss"]), people=""))
    assert not at.error and "Campaign new created" in at.success[0].value
    stored = stored_pairs(app["engine"], "new")
    assert stored == stored_pairs(app["engine"], "fromcli")
    assert len(stored) == 6 and {t for t, *_ in stored} == {"1", "2"}  # budget 3 per topic


@pytest.mark.parametrize(("text", "message"), [
    ("topic\tdoc\n1\td1\n", "mypool.tsv:1: header lacks column(s) order, best_rank, runs"),
    (f"{POOL_HEADER}1\td1\t1\t1\tA\n\n1\td9\t2\t2\tA\n", "mypool.tsv:4: unknown document d9"),
    (f"{POOL_HEADER}3\td1\t1\t1\tA\n", "mypool.tsv:2: unknown topic 3"),
], ids=["format", "document", "topic"])
def test_a_bad_pool_file_is_named_by_its_own_name_and_line(app, text, message) -> None:
    app["files"][keys.CREATE_RUNS] = []
    app["files"][create.CREATE_POOL] = _file("mypool.tsv", text)
    at = _submit(_fill(_create_page(app["boss"])))
    _refused(app, at, f"Nothing was created: {message}")
    assert "/tmp" not in _plain(at.error[0].value)


# --- the label table ----------------------------------------------------------------------------

def test_scale_from_table_skips_blank_rows_and_refuses_fractions() -> None:
    table = pd.DataFrame({"value": [1.0, None, 0.0], "name": ["Yes", None, " No "],
                          "description": ["on topic", "", None]})
    assert create.scale_from_table(table) == LabelScale(
        (Label(0, "No", ""), Label(1, "Yes", "on topic")))
    with pytest.raises(InputError, match="label Half needs a whole-number value"):
        create.scale_from_table(pd.DataFrame({"value": [0.5], "name": ["Half"],
                                              "description": [""]}))
    with pytest.raises(InputError, match="label values repeat"):
        create.scale_from_table(create.scale_table(LabelScale.binary()).assign(value=[1, 1]))
