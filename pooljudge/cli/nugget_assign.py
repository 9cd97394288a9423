"""``pooljudge nuggets assign``: a model labels each answer's nuggets (support, partial_support,
not_support) through an OpenAI-compatible server, as ``pooljudge autojudge`` asks for labels.

The API key is read from the environment variable ``--api-key-env`` only (default
``OPENAI_API_KEY``; a local server needs none: set it to any value), never stored or printed.
Each answer is stored in its own transaction, all of the model's labels or none, under the
model's name as a label source; the table printed says what became of every answer
(:mod:`pooljudge.annotate.nugget_assign_run`). ``--share`` labels a seeded random part of the
answers (to measure the model against people before labelling all; the PPI scores of
``nuggets scores`` need the model on every answer).
"""

from __future__ import annotations

import argparse

from pooljudge.cli.autojudge_options import add_chat_options, api_key, ask_model, endpoint
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, seed, unit_share

__all__ = ["register_assign"]


def register_assign(actions) -> None:
    """Add the ``assign`` action to ``pooljudge nuggets``' actions."""
    assigning = actions.add_parser(
        "assign", help="a model labels each answer's nuggets (OpenAI-compatible server)",
        description="Ask a model, per answer, for one label per active nugget of its topic "
                    "(support, partial_support or not_support: nuggetizer's assignment prompt) "
                    "and store them under the model's name, one transaction per answer. "
                    "Answers whose topic has no nugget, or labelled before by the same model, "
                    "are skipped; an invalid reply is asked again once, then reported and "
                    "nothing of it stored.")
    assigning.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                           help="the campaign's name")
    assigning.add_argument("--base-url", required=True, metavar="URL",
                           help="the server's API root, e.g. http://127.0.0.1:11434/v1")
    assigning.add_argument("--model", required=True, metavar="NAME",
                           help="the model name the server knows (the labels' assessor)")
    assigning.add_argument("--share", type=unit_share, default=1.0, metavar="P",
                           help="label a random share P of the answers (default 1: all)")
    assigning.add_argument("--seed", type=seed, default=0,
                           help="seed of the --share draw (default 0)")
    add_chat_options(assigning, in_flight="answers asked at once", concurrency=4,
                     timeout=120.0)
    assigning.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                           help="the outcome per answer: table (default), tsv or json")
    assigning.add_argument("-o", "--output", default="-", metavar="FILE",
                           help="default: stdout")
    add_db_option(assigning)
    assigning.set_defaults(handler=_assign)


def _assign(args: argparse.Namespace) -> int:
    import pandas as pd

    from pooljudge.annotate.nugget_assign_run import (
        AssignTask,
        plan_assignments,
        run_assignments,
    )
    from pooljudge.cli.output import emit, render, warn

    model = endpoint(args)[1]
    api_key(args.api_key_env)  # checked before any work
    with open_database(args) as engine:
        plan = plan_assignments(engine, campaign=args.campaign, model=model, share=args.share,
                                seed=args.seed)
        tasks = [item for item in plan if isinstance(item, AssignTask)]
        outcomes = ask_model(args, lambda chat: run_assignments(
            engine, chat, tasks, campaign=args.campaign, model=model,
            concurrency=args.concurrency), max_tokens=2048) if tasks else []
    done = iter(outcomes)  # in the tasks' order
    rows = [next(done) if isinstance(item, AssignTask) else item for item in plan]
    table = pd.DataFrame([(o.answer, o.topic, o.status, o.cells, o.detail) for o in rows],
                         columns=["answer", "topic", "status", "cells", "detail"])
    emit(render(table, args.format), args.output)
    if (unlabelled := sum(o.status in ("malformed", "refused", "failed") for o in outcomes)):
        warn("nuggets", f"{unlabelled} answers were not labelled (nothing of them stored); run "
                        "the command again to ask for them again")
    return 0
