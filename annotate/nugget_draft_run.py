"""Draft a campaign's nugget banks with a model on an OpenAI-compatible server, a topic per
request and a transaction per topic.

:func:`plan_drafts` reads, for every topic asked for (default: all), its card and its relevant
passages (:func:`pooljudge.annotate.store.relevant_passages`: the pooled documents people
judged relevant). A topic is skipped when it has no relevant passage (nothing to draft from) or
when the same model and prompt drafted it before (any of its nuggets, whatever became of them,
has this author and :data:`~pooljudge.annotate.nugget_drafts.PROMPT_SHA256`), so a second run
drafts only what the first did not.

:func:`run_drafts` asks for the topics ``concurrency`` at a time (:class:`Chat`, under the
automatic judge's retry policy). A reply that is not a valid nugget list is asked again once
with the problem named; a second invalid reply leaves the topic ``malformed``, with nothing
stored. A valid list is stored at the end of the topic's bank in one transaction, the nuggets
authored by the model (``author_kind`` model, the model's name, the prompt's SHA-256), with a
``created`` event each: all of the reply or none (``refused`` when the store refuses one, e.g.
a text an active nugget of the topic already has). No reply at all is ``failed``. A
:class:`~pooljudge.annotate.autojudge.client.ServerRefused` (a wrong key, URL or model) stops
the run and is raised; topics stored before it stay stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pooljudge.annotate.autojudge.bounded import each_bounded
from pooljudge.annotate.autojudge.client import Chat, Failure
from pooljudge.annotate.nugget_drafts import (
    PROMPT_SHA256,
    InvalidDraft,
    corrective_draft_message,
    draft_messages,
    parse_drafts,
)
from pooljudge.annotate.store import (
    import_nuggets,
    nugget_bank,
    relevant_passages,
    session_scope,
    topic_card,
    topic_titles,
)
from sqlalchemy import Engine

from pooljudge.errors import InputError
from pooljudge.formats.nuggets import NuggetRow

__all__ = ["DRAFT_STATUSES", "DraftTask", "TopicOutcome", "plan_drafts", "run_drafts"]

DRAFT_STATUSES = ("stored", "skipped", "malformed", "refused", "failed")


@dataclass(frozen=True)
class DraftTask:
    """One topic to draft: its card and its relevant passages (id, title, text)."""

    topic: str
    title: str
    description: str
    narrative: str
    passages: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class TopicOutcome:
    """What became of a topic: a status of :data:`DRAFT_STATUSES`, the nuggets stored, why."""

    topic: str
    status: str
    nuggets: int = 0
    detail: str = ""


def plan_drafts(engine: Engine, *, campaign: str, author: str,
                topics: Sequence[str] | None = None,
                max_passages: int = 20) -> list[DraftTask | TopicOutcome]:
    """Every topic asked for, in stored order: a task to ask for, or the outcome ``skipped``
    (see the module docstring); at most ``max_passages`` passages a topic, in pool order.
    InputError for an unknown campaign or topic."""
    with session_scope(engine, readonly=True) as session:
        known = list(topic_titles(session, campaign=campaign))
        for topic in topics or ():
            if topic not in known:
                raise InputError(f"campaign {campaign!r} has no topic {topic!r}")
        drafted = {n.topic for n in nugget_bank(session, campaign=campaign,
                                                states=("active", "merged", "deleted"))
                   if n.author_kind == "model" and n.author == author
                   and n.prompt_sha256 == PROMPT_SHA256}
        plan: list[DraftTask | TopicOutcome] = []
        for topic in known if topics is None else [t for t in known if t in set(topics)]:
            if topic in drafted:
                plan.append(TopicOutcome(topic, "skipped", 0, "drafted before by this model "
                                                              "and prompt"))
                continue
            passages = relevant_passages(session, campaign=campaign, topic=topic)
            if not passages:
                plan.append(TopicOutcome(topic, "skipped", 0, "no relevant passage"))
                continue
            title, description, narrative = topic_card(session, campaign=campaign, topic=topic)
            plan.append(DraftTask(topic, title, description, narrative,
                                  tuple(passages[:max_passages])))
    return plan


async def run_drafts(engine: Engine, chat: Chat, tasks: Sequence[DraftTask], *, campaign: str,
                     author: str, max_nuggets: int = 30,
                     concurrency: int = 4) -> list[TopicOutcome]:
    """Draft every task (see the module docstring); the outcomes in the tasks' order."""

    async def one(task: DraftTask) -> TopicOutcome:
        drafts = await _ask(chat, task, max_nuggets)
        if isinstance(drafts, TopicOutcome):
            return drafts
        return _store(engine, task.topic, drafts, campaign=campaign, author=author)

    return await each_bounded(tasks, one, concurrency)


async def _ask(chat: Chat, task: DraftTask,
               max_nuggets: int) -> list[tuple[str, str]] | TopicOutcome:
    """The topic's valid drafts, or the outcome saying why there are none."""
    messages = draft_messages(title=task.title, description=task.description,
                              narrative=task.narrative, passages=task.passages,
                              max_nuggets=max_nuggets)
    for attempt in (1, 2):
        answer = await chat.ask(messages)
        if isinstance(answer, Failure):
            return TopicOutcome(task.topic, "failed", 0, answer.reason)
        try:
            return parse_drafts(answer.text, max_nuggets)
        except InvalidDraft as exc:
            if attempt == 2:
                return TopicOutcome(task.topic, "malformed", 0,
                                    f"no valid nugget list after a re-ask: {exc}")
            messages = [*messages, {"role": "assistant", "content": answer.text},
                        corrective_draft_message(str(exc), max_nuggets)]
    raise AssertionError("unreachable")


def _store(engine: Engine, topic: str, drafts: list[tuple[str, str]], *, campaign: str,
           author: str) -> TopicOutcome:
    rows = [NuggetRow(topic, text, importance, author_kind="model", author=author,
                      prompt_sha256=PROMPT_SHA256) for text, importance in drafts]
    try:
        with session_scope(engine) as session:
            stored = import_nuggets(session, campaign=campaign, rows=rows, actor=author)
    except InputError as exc:
        return TopicOutcome(topic, "refused", 0, exc.message)
    return TopicOutcome(topic, "stored", stored)
