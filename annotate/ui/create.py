"""Create a campaign in the browser: upload topics, documents and runs; pool them; add people.

Pooling is :mod:`pooling`: depth-k pool of the uploaded runs, a static judging order, an optional
per-topic budget. The queue follows a static order or an adaptive policy (MTF, MaxMean,
Thompson sampling) that learns from the judgments; every pair's rank in each run is stored.
The campaign and its people are stored in one transaction (all or nothing); the new login
links are shown once, to copy (tokens are stored only as hashes).
"""

from __future__ import annotations

import streamlit as st
from sqlalchemy import Engine

from annotate import store
from annotate.adaptive_queue import run_ranks
from annotate.db import session_scope
from annotate.records import ADAPTIVE_ORDERS, JUDGING_ORDERS, LabelScale
from annotate.ui import keys
from annotate.ui.uploads import read_uploaded_documents, read_uploaded_runs, read_uploaded_topics
from pooling.pool import apply_budget, build_pool
from pooling.static_orders import STATIC_ORDERS, static_order
from pooljudge.errors import InputError

__all__ = ["SCALES", "render_create"]

SCALES = {"binary (0–1)": (0, 1), "graded 0–2": (0, 2), "graded 0–3": (0, 3)}
QUEUES = {**JUDGING_ORDERS, **{k: f"adaptive — {v}" for k, v in ADAPTIVE_ORDERS.items()}}


def render_create(engine: Engine) -> None:
    if links := st.session_state.get(keys.NEW_LINKS):
        st.success("Campaign created. Copy each person's link now: it is not shown again.")
        st.code("\n".join(f"{role:<11} {name:<16} {url}" for role, name, url in links),
                language=None)
    with st.form(keys.CREATE_FORM):
        name = st.text_input("Campaign name")
        topics = st.file_uploader("Topics (TREC topics, TSV or JSONL)")
        docs = st.file_uploader("Documents (JSONL, TSV or TREC <DOC>)", accept_multiple_files=True)
        runs = st.file_uploader("Runs (TREC format)", accept_multiple_files=True)
        left, middle, right = st.columns(3)
        depth = left.number_input("Pool depth", min_value=1, value=10)
        budget = middle.number_input("Budget per topic (0 = whole pool)", min_value=0, value=0)
        strategy = right.selectbox("Judging order (pooling)", list(STATIC_ORDERS), index=0)
        left, middle, right = st.columns(3)
        scale = left.selectbox("Label scale", list(SCALES))
        overlap = middle.number_input("Annotators per pair (overlap)", min_value=1, value=1)
        queue = right.selectbox("Queue", list(QUEUES), help="\n\n".join(
            f"{k}: {v}" for k, v in QUEUES.items()))
        guidelines = st.text_area("Guidelines (shown to annotators)")
        people = st.text_area("People, one per line: `name` or `name,role` "
                              "(role: annotator, adjudicator, admin)")
        submitted = st.form_submit_button("Create campaign", key=keys.CREATE_SUBMIT)
    if not submitted:
        return
    try:
        links = _create(engine, name=name.strip(), topics=topics, docs=docs, runs=runs,
                        depth=int(depth), budget=int(budget) or None, strategy=strategy,
                        scale=SCALES[scale], overlap=int(overlap), queue=queue,
                        guidelines=guidelines, people=_people(people))
    except (InputError, ValueError) as exc:
        st.error(str(exc))
        return
    st.session_state[keys.NEW_LINKS] = links
    st.rerun()


def _people(text: str) -> list[tuple[str, str]]:
    """``name`` or ``name,role`` lines -> (name, role); blank lines are ignored."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, _, role = (part.strip() for part in line.partition(","))
        if not name:
            raise InputError("a person needs a name", path="people", line=number)
        found.append((name, role or "annotator"))
    return found


def _create(engine: Engine, *, name: str, topics, docs, runs, depth: int, budget: int | None,
            strategy: str, scale: tuple[int, int], overlap: int, queue: str, guidelines: str,
            people: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    if not name or topics is None or not docs or not runs:
        raise InputError("a campaign needs a name, topics, documents and at least one run")
    pool = build_pool(read_uploaded_runs(runs), depth)
    ordered = apply_budget(pool, static_order(pool, strategy), budget=budget)
    base = (st.context.url or "").split("?")[0].rsplit("/", 1)[0] or ""
    with session_scope(engine) as session:
        store.create_campaign(
            session, name=name, scale=LabelScale.range(*scale), overlap=overlap, order=queue,
            guidelines=guidelines, topics=read_uploaded_topics(topics),
            documents=read_uploaded_documents(docs),
            pool=ordered[["topic", "doc", "order", "best_rank", "runs"]],
            run_ranks=run_ranks(pool))
        return [(role, person, f"{base}/?token=" + store.add_annotator(
            session, campaign=name, name=person, role=role)) for person, role in people]
