"""Assign nuggets with a model on an OpenAI-compatible server: an answer per request and a
transaction per answer.

:func:`plan_assignments` takes the campaign's answers (or a seeded random ``share`` of them,
to measure a model against people before labelling all) in stored order.
An answer is skipped when its topic's bank has no active nugget, or when the model already
holds a label for every active nugget of it (so a second run asks only for what is missing).
The model's labels are stored under its name as a label source (a non-human annotator); a
person of the campaign with that name is refused, so a model's labels are never taken for a
person's.

:func:`run_assignments` asks ``concurrency`` answers at a time (:class:`Chat`, under the
automatic judge's retry policy). A reply that is not one valid label per nugget is asked again
once with the problem named; a second invalid reply leaves the answer ``malformed``, with
nothing stored. A valid reply is stored in one transaction (all of its labels or none:
``refused`` when the store refuses one). No reply at all is ``failed``. A
:class:`~pooljudge.annotate.autojudge.client.ServerRefused` stops the run and is raised;
answers stored before it stay stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pooljudge.annotate.autojudge.bounded import each_bounded
from pooljudge.annotate.autojudge.client import Chat, Failure
from pooljudge.annotate.nugget_assign_prompt import (
    InvalidAssignment,
    assign_messages,
    corrective_assign_message,
    parse_assignments,
)
from pooljudge.annotate.store import (
    answer_texts,
    import_nugget_assignments,
    list_annotators,
    nugget_bank,
    nugget_cells,
    session_scope,
    topic_card,
)
from sqlalchemy import Engine

from pooljudge.errors import InputError
from pooljudge.formats.nugget_assignments import AssignmentRow

__all__ = ["ASSIGN_STATUSES", "AnswerOutcome", "AssignTask", "plan_assignments",
           "run_assignments"]

ASSIGN_STATUSES = ("stored", "skipped", "malformed", "refused", "failed")


@dataclass(frozen=True)
class AssignTask:
    """One answer to label: where it is, the query, its text and the topic's active nuggets."""

    answer: str
    topic: str
    run: str
    query: str
    text: str
    nuggets: tuple[str, ...]


@dataclass(frozen=True)
class AnswerOutcome:
    """What became of an answer: a status of :data:`ASSIGN_STATUSES`, the cells stored, why."""

    answer: str
    topic: str
    status: str
    cells: int = 0
    detail: str = ""


def plan_assignments(engine: Engine, *, campaign: str, model: str, share: float = 1.0,
                     seed: int = 0) -> list[AssignTask | AnswerOutcome]:
    """The answers chosen (see the module docstring), in stored order: a task to ask for, or
    the outcome ``skipped``. InputError when a person of the campaign is named ``model``."""
    with session_scope(engine, readonly=True) as session:
        people = list_annotators(session, campaign=campaign, include_removed=True)
        if (people["name"].eq(model) & people["human"]).any():
            raise InputError(f"campaign {campaign!r} has a person named {model!r}: the model's "
                             "labels would be taken for theirs")
        answers = answer_texts(session, campaign=campaign)
        banks: dict[str, list[str]] = {}
        for nugget in nugget_bank(session, campaign=campaign):
            banks.setdefault(nugget.topic, []).append(nugget.text)
        cells = nugget_cells(session, campaign=campaign)
        held = cells[cells["assessor"] == model].groupby("answer").size().to_dict()
        cards = {t: topic_card(session, campaign=campaign, topic=t)
                 for t in {a.topic for a in answers}}
    keep = _chosen(len(answers), share, seed)
    plan: list[AssignTask | AnswerOutcome] = []
    for answer, kept in zip(answers, keep, strict=True):
        nuggets = banks.get(answer.topic, [])
        if not kept:
            continue
        if not nuggets:
            plan.append(AnswerOutcome(answer.key, answer.topic, "skipped", 0, "no active nugget"))
        elif held.get(answer.key, 0) >= len(nuggets):
            plan.append(AnswerOutcome(answer.key, answer.topic, "skipped", 0,
                                      "labelled before by this model"))
        else:
            title, description, _ = cards[answer.topic]
            text = " ".join(sentence.text for sentence in answer.sentences)
            plan.append(AssignTask(answer.key, answer.topic, answer.run, title or description,
                                   text, tuple(nuggets)))
    return plan


def _chosen(count: int, share: float, seed: int) -> np.ndarray:
    """A mask of round(share · count) answers drawn at random (seeded); all at share 1."""
    if not 0.0 < share <= 1.0:
        raise InputError(f"--share: must lie in (0, 1], got {share}")
    mask = np.zeros(count, dtype=bool)
    mask[np.random.default_rng(seed).permutation(count)[:round(share * count)]] = True
    return mask


async def run_assignments(engine: Engine, chat: Chat, tasks: Sequence[AssignTask], *,
                          campaign: str, model: str,
                          concurrency: int = 4) -> list[AnswerOutcome]:
    """Label every task (see the module docstring); the outcomes in the tasks' order."""

    async def one(task: AssignTask) -> AnswerOutcome:
        labels = await _ask(chat, task)
        if isinstance(labels, AnswerOutcome):
            return labels
        return _store(engine, task, labels, campaign=campaign, model=model)

    return await each_bounded(tasks, one, concurrency)


async def _ask(chat: Chat, task: AssignTask) -> list[str] | AnswerOutcome:
    """The answer's valid labels, or the outcome saying why there are none."""
    messages = assign_messages(query=task.query, answer=task.text, nuggets=task.nuggets)
    for attempt in (1, 2):
        reply = await chat.ask(messages)
        if isinstance(reply, Failure):
            return AnswerOutcome(task.answer, task.topic, "failed", 0, reply.reason)
        try:
            return parse_assignments(reply.text, len(task.nuggets))
        except InvalidAssignment as exc:
            if attempt == 2:
                return AnswerOutcome(task.answer, task.topic, "malformed", 0,
                                     f"no valid labels after a re-ask: {exc}")
            messages = [*messages, {"role": "assistant", "content": reply.text},
                        corrective_assign_message(str(exc), len(task.nuggets))]
    raise AssertionError("unreachable")


def _store(engine: Engine, task: AssignTask, labels: list[str], *, campaign: str,
           model: str) -> AnswerOutcome:
    rows = [AssignmentRow(task.topic, task.run, task.answer, text, label, model)
            for text, label in zip(task.nuggets, labels, strict=True)]
    try:
        with session_scope(engine) as session:
            stored = import_nugget_assignments(session, campaign=campaign, rows=rows,
                                               label_sources=[model])
    except InputError as exc:
        return AnswerOutcome(task.answer, task.topic, "refused", 0, exc.message)
    return AnswerOutcome(task.answer, task.topic, "stored", stored)
