"""``pooljudge nuggets draft``: a model drafts each topic's nugget bank from its relevant
passages, through an OpenAI-compatible server (as ``pooljudge autojudge`` asks for labels).

The API key is read from the environment variable ``--api-key-env`` only (default
``OPENAI_API_KEY``; a local server needs none: set it to any value), never stored or printed.
Each topic is stored in its own transaction, all of the model's reply or none; the table printed
says what became of every topic (:mod:`pooljudge.annotate.nugget_draft_run`).
"""

from __future__ import annotations

import argparse

from pooljudge.cli.autojudge_options import add_chat_options, api_key, ask_model, endpoint
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, positive_int

__all__ = ["MAX_NUGGETS", "register_draft"]

MAX_NUGGETS = 100


def register_draft(actions) -> None:
    """Add the ``draft`` action to ``pooljudge nuggets``' actions."""
    drafting = actions.add_parser(
        "draft", help="draft each topic's bank with a model (OpenAI-compatible server)",
        description="Ask a model, per topic, for up to --max nuggets of 1-12 words labelled "
                    "vital or okay, from the topic and its relevant passages (nuggetizer's "
                    "prompt), and store them as the model's drafts, one transaction per topic. "
                    "Topics without a relevant passage, or drafted before by the same model "
                    "and prompt, are skipped; an invalid reply is asked again once, then "
                    "reported and nothing of it stored.")
    drafting.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                          help="the campaign's name")
    drafting.add_argument("--base-url", required=True, metavar="URL",
                          help="the server's API root, e.g. http://127.0.0.1:11434/v1")
    drafting.add_argument("--model", required=True, metavar="NAME",
                          help="the model name the server knows (the drafts' author)")
    drafting.add_argument("--topics", nargs="+", metavar="TOPIC",
                          help="only these topics (default: every topic)")
    drafting.add_argument("--max", type=positive_int(MAX_NUGGETS), default=30, metavar="N",
                          dest="max_nuggets", help="nuggets a topic at most (default 30)")
    drafting.add_argument("--max-passages", type=positive_int(1000), default=20, metavar="N",
                          help="relevant passages in a prompt at most, in pool order "
                               "(default 20)")
    add_chat_options(drafting, in_flight="topics asked at once", concurrency=4, timeout=120.0)
    drafting.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                          help="the outcome per topic: table (default), tsv or json")
    drafting.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    add_db_option(drafting)
    drafting.set_defaults(handler=_draft)


def _draft(args: argparse.Namespace) -> int:
    import pandas as pd

    from pooljudge.annotate.nugget_draft_run import DraftTask, plan_drafts, run_drafts
    from pooljudge.cli.output import emit, render, warn

    model = endpoint(args)[1]
    api_key(args.api_key_env)  # checked before any work
    with open_database(args) as engine:
        plan = plan_drafts(engine, campaign=args.campaign, author=model, topics=args.topics,
                           max_passages=args.max_passages)
        tasks = [item for item in plan if isinstance(item, DraftTask)]
        outcomes = ask_model(args, lambda chat: run_drafts(
            engine, chat, tasks, campaign=args.campaign, author=model,
            max_nuggets=args.max_nuggets, concurrency=args.concurrency),
            max_tokens=4096) if tasks else []
    done = iter(outcomes)  # in the tasks' order
    rows = [next(done) if isinstance(item, DraftTask) else item for item in plan]
    table = pd.DataFrame([(o.topic, o.status, o.nuggets, o.detail) for o in rows],
                         columns=["topic", "status", "nuggets", "detail"])
    emit(render(table, args.format), args.output)
    if (undrafted := sum(o.status in ("malformed", "refused", "failed") for o in outcomes)):
        warn("nuggets", f"{undrafted} topics were not drafted (nothing of them stored); run "
                        "the command again to ask for them again")
    return 0
