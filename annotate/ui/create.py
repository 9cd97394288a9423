"""Create a campaign in the browser: upload topics, documents and runs; pool them; add people.

Pooling is :mod:`pooling`: depth-k pool of the uploaded runs, a static judging order, an optional
per-topic budget. The queue follows a static order or an adaptive policy (MTF, MaxMean,
Thompson sampling) that learns from the judgments; every pair's rank in each run is stored.
The queue ``review`` makes a high-recall review instead
(:mod:`pooljudge.annotate.ui.create_review`).
The label scale is an editable table (value, name, description) that starts from a preset or
from a JSON file in the format of ``pooljudge init --scale FILE.json``; it sits above the form
so that choosing a start refills it at once. The judging page's keys are an optional JSON key
map (as ``pooljudge init --keys FILE.json``), checked against the scale before anything is
stored. Answers: the campaign may offer "I can't judge this" (a reason is asked) and name the
labels whose choice needs a rationale (as ``pooljudge init --cannot-judge --rationale``).
:mod:`pooljudge.annotate.campaigns` pools, checks and stores the campaign and its people in one
transaction (all or nothing); the new login links are shown once, to copy (tokens are stored
only as hashes).

:func:`create_from_uploads` takes file-like objects (``.name`` and ``.getvalue()``), so it is
usable without the page.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import TypedDict

import pandas as pd
import streamlit as st
from pooljudge.annotate import store
from pooljudge.annotate.campaigns import CampaignSettings, plan_campaign, store_campaign
from pooljudge.annotate.keymap import ACTIONS, DEFAULT_KEYS, NAMED_KEYS, KeyMap
from pooljudge.annotate.links import login_link
from pooljudge.annotate.records import DEFAULT_MIN_DWELL_MS, MAX_MIN_DWELL_MS, LabelScale
from pooljudge.annotate.ui import keys
from pooljudge.annotate.ui import session as login_state
from pooljudge.annotate.ui.create_review import (
    REVIEW_HELP,
    REVIEW_QUEUE,
    create_review_from_uploads,
    review_inputs,
)
from pooljudge.annotate.ui.people import Link, app_address, parse_people, show_links
from pooljudge.annotate.ui.render import md_escape
from pooljudge.annotate.ui.uploads import (
    read_uploaded_documents,
    read_uploaded_runs,
    read_uploaded_topics,
    with_uploaded_pool,
)
from pooljudge.pooling.orders import ADAPTIVE_ORDERS, JUDGING_ORDERS
from pooljudge.pooling.strategies import strategies
from sqlalchemy import Engine

from pooljudge.errors import InputError, StorageError

__all__ = ["SCALES", "SCALE_FROM_FILE", "Pooling", "create_from_uploads", "keymap_from_text",
           "render_create", "scale_from_table", "scale_table"]

SCALES = {"binary (0–1)": (0, 1), "graded 0–2": (0, 2), "graded 0–3": (0, 3)}
SCALE_FROM_FILE = "a JSON file (as `pooljudge init --scale FILE.json`)"
QUEUES = {**JUDGING_ORDERS, **{k: f"adaptive — {v}" for k, v in ADAPTIVE_ORDERS.items()},
          REVIEW_QUEUE: REVIEW_HELP}
_SCALE_SOURCE = "label scale"
CREATE_POOL = "create_pool"                  # an optional ready pool file
CREATE_MIN_DWELL = "create_min_dwell"  # the form's shortest look before a label key acts
CREATE_CANNOT_JUDGE = "create_cannot_judge"  # the form's "I can't judge this" checkbox
CREATE_RATIONALE = "create_rationale"        # the form's labels that need a rationale
CREATE_HIGHLIGHT_NARRATIVE = "create_highlight_narrative"  # narrative words highlighted too
KEYS_EXAMPLE = '{"label:0": "a", "label:1": "l", "skip": "x", "page_down": ["Space", "PageDown"]}'
KEYS_HELP = (
    "Actions: label:VALUE (one per label), " + ", ".join(ACTIONS) + ". A key is one letter, "
    "digit or punctuation mark, or " + ", ".join(NAMED_KEYS) + ". Defaults: a one-digit label "
    "by its digit, " + "; ".join(f"{a} {' '.join(k)}" for a, k in DEFAULT_KEYS.items())
    + ". c and r are Streamlit's; Esc and Enter leave the comment box.")


class Pooling(TypedDict):
    """The form's pooling, as keywords of :func:`pooljudge.annotate.campaigns.plan_campaign`: each
    run's
    top ``depth``, ordered by static ``strategy``, cut to ``budget`` pairs per topic (None: all)."""

    depth: int
    strategy: str
    budget: int | None


def create_from_uploads(engine: Engine, settings: CampaignSettings, *, pooling: Pooling,
                        topics, documents: Sequence, runs: Sequence, pool=None,
                        creator: str | None = None) -> list[Link]:
    """Read the uploads (:mod:`pooljudge.annotate.ui.uploads`), pool the runs as ``pooling`` says
    (or take the uploaded ``pool``, a file as ``pooljudge pool`` writes it; runs then only give
    ranks) and store the campaign in one transaction; the people's links.

    ``creator``: an admin campaign of the logged-in person; their login is re-checked in the
    same transaction and they are granted ``admin`` of the new campaign. InputError (and nothing
    stored) for a missing input, a bad file or setting, a pooled topic or document that was not
    uploaded, an existing campaign or person name, or a login that no longer holds.
    """
    if not settings.name or topics is None or not documents or not (runs or pool is not None):
        raise InputError("a campaign needs a name, topics, documents and runs or a pool file")
    address = app_address()
    inputs = {"topics": read_uploaded_topics(topics),
              "documents": read_uploaded_documents(documents),
              "runs": read_uploaded_runs(runs) if runs else None, **pooling}
    plan = plan_campaign(settings, **inputs) if pool is None else with_uploaded_pool(
        pool, lambda frame, path: plan_campaign(settings, pool=frame, pool_path=path, **inputs))
    if creator is None:
        created = store_campaign(engine, plan)
    else:
        with login_state.write(engine, campaign=creator, allowed=("admin",)) as (session, me):
            created = store_campaign(session, plan)
            store.grant_role(session, annotator_id=me.id, campaign=settings.name, role="admin")
    return [(role, name, login_link(address, token)) for role, name, token in created.people]


def scale_table(scale: LabelScale) -> pd.DataFrame:
    """The scale as an editable table: columns value, name, description."""
    return pd.DataFrame({"value": pd.array(scale.values, dtype="int64"),
                         "name": [x.name for x in scale.labels],
                         "description": [x.description for x in scale.labels]})


def scale_from_table(table: pd.DataFrame) -> LabelScale:
    """The label scale of an edited table; rows left wholly blank are ignored. InputError for
    a value that is not a whole number, a repeated value, or no label at all."""
    labels = []
    for row in table.to_dict("records"):
        value, name, description = row.get("value"), _text(row.get("name")), \
            _text(row.get("description"))
        if pd.isna(value) and not name and not description:
            continue
        if pd.isna(value) or not float(value).is_integer():
            raise InputError(f"label {name or '(no name)'} needs a whole-number value",
                             path=_SCALE_SOURCE)
        labels.append({"value": int(value), "name": name or str(int(value)),
                       "description": description})
    return LabelScale.from_data(labels, source=_SCALE_SOURCE)


def render_create(engine: Engine) -> None:
    """The page. One message area at its top: the last creation's links, or the last error."""
    st.title("New campaign")
    messages = st.empty()
    if done := st.session_state.get(keys.NEW_LINKS):
        name, links = done
        with messages.container():
            show_links(links, f"Campaign {md_escape(name)} created.", state_key=keys.NEW_LINKS)
    st.subheader("Label scale")
    scale = _scale_input()
    st.subheader("Campaign")
    with st.form(keys.CREATE_FORM):
        values, pooling, files = _form_inputs()
        values |= _answer_inputs(scale)
        review = review_inputs()
        submitted = st.form_submit_button("Create campaign", key=keys.CREATE_SUBMIT)
    if not submitted:
        return
    try:
        if scale is None:
            raise InputError("the label scale above is not complete: fix it first")
        people = tuple(parse_people(values.pop("people")))
        keymap = keymap_from_text(values.pop("keys"), scale)
        is_review = values["order"] == REVIEW_QUEUE
        if is_review:
            values["order"] = "pool"  # the review's own queue
        settings = CampaignSettings(scale=scale, people=people, keymap=keymap, **values)
        admin_of = [c for c, role in login_state.roles().items() if role == "admin"]
        creator = admin_of[0] if admin_of else ""
        links = (create_review_from_uploads(engine, settings, review=review, **files,
                                            creator=creator) if is_review else
                 create_from_uploads(engine, settings, pooling=pooling, **files,
                                     creator=creator))
    except (InputError, StorageError) as exc:
        st.session_state.pop(keys.NEW_LINKS, None)
        messages.error(md_escape(f"Nothing was created: {exc}"), icon=":material/error:")
        return
    st.session_state[keys.NEW_LINKS] = (settings.name, links)
    st.rerun()


def _scale_input() -> LabelScale | None:
    """The label-scale editor (outside the form, so a new start refills it); its scale, or
    None after showing what is missing or wrong."""
    presets = [*SCALES, SCALE_FROM_FILE]
    start = st.selectbox("Start from", presets, key=keys.SCALE_PRESET)
    try:
        if start == SCALE_FROM_FILE:
            upload = _uploader("Label scale file (JSON): a list of `value`, `name`, "
                               "`description`", key=keys.SCALE_FILE, types=["json"])
            if upload is None:
                st.info("Upload the label scale file, or start from a preset.")
                return None
            data = upload.getvalue()
            scale, source = _scale_from_json(data, upload.name), f"file{zlib.crc32(data):08x}"
        else:
            scale, source = LabelScale.range(*SCALES[start]), f"preset{presets.index(start)}"
        table = st.data_editor(
            scale_table(scale), key=keys.label_table_key(source), num_rows="dynamic",
            hide_index=True, width="stretch", column_config={
                "value": st.column_config.NumberColumn("value (qrels label)", step=1,
                                                       required=True),
                "name": st.column_config.TextColumn("name (on the button)", required=True),
                "description": st.column_config.TextColumn("description (for annotators)",
                                                           width="large")})
        return scale_from_table(table)
    except InputError as exc:
        st.error(md_escape(str(exc)))
        return None


def _form_inputs() -> tuple[dict, Pooling, dict]:
    """The form's widgets: settings (people and keys still as text), pooling, the uploads."""
    name = st.text_input("Campaign name", key=keys.CREATE_NAME)
    files = {"topics": _uploader("Topics (TREC topics, TSV or JSONL)", key=keys.CREATE_TOPICS),
             "documents": _uploader("Documents (JSONL, TSV or TREC `<DOC>`)", key=keys.CREATE_DOCS,
                                    multiple=True),
             "runs": _uploader("Runs (TREC format)", key=keys.CREATE_RUNS, multiple=True),
             "pool": _uploader("Or a ready pool (TSV, as `pooljudge pool` writes it; the runs, "
                               "if given, then only add each pair's ranks)", key=CREATE_POOL)}
    left, middle, right = st.columns(3)
    depth = left.number_input("Pool depth", min_value=1, value=10, key=keys.CREATE_DEPTH)
    budget = middle.number_input("Budget per topic (0 = whole pool)", min_value=0, value=0,
                                 key=keys.CREATE_BUDGET)
    pooling = right.selectbox("Judging order (pooling)", [s.name for s in strategies("static")],
                              index=0, key=keys.CREATE_POOLING)
    left, right = st.columns(2)
    overlap = left.number_input("Annotators per pair (overlap)", min_value=1, value=1,
                                key=keys.CREATE_OVERLAP)
    queue = right.selectbox("Queue", list(QUEUES), key=keys.CREATE_QUEUE, help="\n\n".join(
        f"{k}: {v}" for k, v in QUEUES.items()))
    show_others = st.checkbox("Show each annotator the other annotators' labels",
                              key=keys.SHOW_OTHERS)
    narrative = st.checkbox("Highlight the narrative's words in documents too (not only the "
                            "title's and the description's)", key=CREATE_HIGHLIGHT_NARRATIVE)
    guidelines = st.text_area("Guidelines (shown to annotators)", key=keys.CREATE_GUIDELINES)
    people = st.text_area("People, one per line: `name` or `name,role` "
                          "(role: annotator, adjudicator, admin)", key=keys.CREATE_PEOPLE)
    keymap = st.text_area("Keys of the judging page (optional JSON, action: key; empty for "
                          "the defaults)", key=keys.CREATE_KEYS, placeholder=KEYS_EXAMPLE,
                          help=KEYS_HELP)
    return {"name": name.strip(), "overlap": int(overlap), "order": queue,
            "guidelines": guidelines, "show_others_labels": bool(show_others),
            "highlight_narrative": bool(narrative), "people": people, "keys": keymap}, \
        Pooling(depth=int(depth), strategy=pooling, budget=int(budget) or None), files


def _answer_inputs(scale: LabelScale | None) -> dict:
    """The answers annotators may give besides a label: "I can't judge this", and the labels
    of ``scale`` whose choice needs a rationale (none while the scale is incomplete)."""
    cannot = st.checkbox("Offer \"I can't judge this\" (annotators must give a reason)",
                         key=CREATE_CANNOT_JUDGE)
    values = scale.values if scale is not None else ()
    names = {lab.value: f"{lab.value} · {lab.name}" for lab in scale.labels} if scale else {}
    chosen = st.multiselect("Labels that need a rationale when chosen", values,
                            format_func=lambda value: names.get(value, str(value)),
                            key=CREATE_RATIONALE)
    dwell = st.number_input("Shortest look at a pair before a label key acts (ms; 0: off)",
                            min_value=0, max_value=MAX_MIN_DWELL_MS, step=50,
                            value=DEFAULT_MIN_DWELL_MS, key=CREATE_MIN_DWELL,
                            help="A label key pressed sooner after a pair appeared does "
                                 "nothing, with a quiet hint: a held or doubled key never "
                                 "labels a pair nobody read.")
    return {"cannot_judge": bool(cannot), "rationale_labels": tuple(int(v) for v in chosen),
            "min_dwell_ms": int(dwell)}


def keymap_from_text(text: str, scale: LabelScale) -> KeyMap | None:
    """The key map typed on the page, checked against ``scale``; None when left empty.
    InputError for a clash, an unknown action or key, or text that is not a JSON object."""
    return KeyMap.from_text(text, labels=scale.values) if text.strip() else None


def _uploader(label: str, *, key: str, multiple: bool = False, types: list[str] | None = None):
    """One file uploader (the only place the page reads files from the browser)."""
    return st.file_uploader(label, key=key, accept_multiple_files=multiple, type=types)


def _scale_from_json(data: bytes, name: str) -> LabelScale:
    """A label scale file's bytes, as :meth:`LabelScale.from_json` reads a file."""
    try:
        decoded = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not a JSON label scale: {exc}", path=name,
                         line=getattr(exc, "lineno", None)) from None
    return LabelScale.from_data(decoded, source=name)


def _text(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) \
        else str(value).strip()
