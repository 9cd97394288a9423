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

from pooljudge.cli.autojudge_options import api_key, endpoint, nonnegative_float, positive_float
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, positive_int, seed

__all__ = ["register_assign"]


def _share(text: str) -> float:
    """``--share``: a number in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number in (0, 1], got {text!r}") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"a number in (0, 1], got {text!r}")
    return value


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
    assigning.add_argument("--share", type=_share, default=1.0, metavar="P",
                           help="label a random share P of the answers (default 1: all)")
    assigning.add_argument("--seed", type=seed, default=0,
                           help="seed of the --share draw (default 0)")
    assigning.add_argument("--api-key-env", metavar="VAR", default="OPENAI_API_KEY",
                           help="environment variable holding the API key (default: "
                                "OPENAI_API_KEY); never stored or printed")
    assigning.add_argument("--concurrency", type=positive_int(64), default=4, metavar="N",
                           help="answers asked at once at most (default 4)")
    assigning.add_argument("--timeout", type=positive_float, default=120.0, metavar="SECONDS",
                           help="time-out of one request (default 120)")
    assigning.add_argument("--max-attempts", type=positive_int(100), default=6, metavar="N",
                           help="attempts per request, retries included (default 6)")
    assigning.add_argument("--backoff", type=nonnegative_float, default=0.5, metavar="SECONDS",
                           help="base of the exponential back-off (default 0.5)")
    assigning.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                           help="the outcome per answer: table (default), tsv or json")
    assigning.add_argument("-o", "--output", default="-", metavar="FILE",
                           help="default: stdout")
    add_db_option(assigning)
    assigning.set_defaults(handler=_assign)


def _assign(args: argparse.Namespace) -> int:
    import asyncio

    import pandas as pd

    from pooljudge.annotate.autojudge.client import Chat, Tally, make_client
    from pooljudge.annotate.autojudge.retry import RetryPolicy
    from pooljudge.annotate.nugget_assign_run import (
        AssignTask,
        plan_assignments,
        run_assignments,
    )
    from pooljudge.cli.output import emit, render, warn

    base_url, model = endpoint(args)
    key = api_key(args.api_key_env)
    with open_database(args) as engine:
        plan = plan_assignments(engine, campaign=args.campaign, model=model, share=args.share,
                                seed=args.seed)
        tasks = [item for item in plan if isinstance(item, AssignTask)]

        async def main():
            client = make_client(base_url=base_url, api_key=key, timeout=args.timeout)
            chat = Chat(client, model=model, tally=Tally(), secret=key, max_tokens=2048,
                        policy=RetryPolicy(max_attempts=args.max_attempts, base=args.backoff))
            try:
                return await run_assignments(engine, chat, tasks, campaign=args.campaign,
                                             model=model, concurrency=args.concurrency)
            finally:
                await client.close()

        outcomes = asyncio.run(main()) if tasks else []
    done = iter(outcomes)  # in the tasks' order
    rows = [next(done) if isinstance(item, AssignTask) else item for item in plan]
    table = pd.DataFrame([(o.answer, o.topic, o.status, o.cells, o.detail) for o in rows],
                         columns=["answer", "topic", "status", "cells", "detail"])
    emit(render(table, args.format), args.output)
    if (unlabelled := sum(o.status in ("malformed", "refused", "failed") for o in outcomes)):
        warn("nuggets", f"{unlabelled} answers were not labelled (nothing of them stored); run "
                        "the command again to ask for them again")
    return 0
