"""``pooljudge autojudge``: label a campaign's pairs with an LLM on any OpenAI-compatible server.

The API key is read from the environment variable ``--api-key-env`` (default
``OPENAI_API_KEY``) and is never stored or printed; a local server needs none, so set the
variable to any value. Everything the user can get wrong (campaign, URL, template, key
variable, a server that refuses or never answers) is one line ``pooljudge: error: …``, exit 2,
checked before anything is written where it can be.
"""

from __future__ import annotations

import argparse
import sys

from pooljudge.cli import Subcommands
from pooljudge.cli.autojudge_audit import register_audit
from pooljudge.cli.autojudge_options import (
    add_server_options,
    api_key,
    endpoint,
    nonnegative_float,
)
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, positive_int
from pooljudge.cli.output import print_frame
from pooljudge.errors import UsageError

__all__ = ["register"]

EXIT_INTERRUPTED = 130
_REPLY_SHOWN = 60


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "autojudge", help="label a campaign's pairs with an LLM (OpenAI-compatible server)",
        description="Label a campaign's pairs with an LLM served by any OpenAI-compatible "
                    "server (vLLM, Ollama, llama.cpp, hosted APIs), as a non-human judge. "
                    "Each label is committed as it arrives; a re-run skips what is done and "
                    "retries the failures. --failures lists the failures. "
                    "'pooljudge autojudge audit' probes a judge (stuffing, injection) and "
                    "checks circularity.")
    actions = parser.add_subparsers(title="actions", metavar="ACTION",
                                    parser_class=type(parser))
    register_audit(actions)
    parser.add_argument("--campaign", metavar="CAMPAIGN",
                        help="the campaign's name (required)")
    parser.add_argument("--name", metavar="NAME",
                        help="the judge's annotator name (default: the model name)")
    add_server_options(parser)
    parser.add_argument("--limit", type=positive_int(), metavar="N",
                        help="label at most N pairs in this run")
    parser.add_argument("--pairs", choices=("all", "unjudged"), default="all",
                        help="all pairs, or only pairs without a human judgment (default: all)")
    parser.add_argument("--price-in", type=nonnegative_float, metavar="USD",
                        help="USD per million input tokens (for the cost in the summary)")
    parser.add_argument("--price-out", type=nonnegative_float, metavar="USD",
                        help="USD per million output tokens")
    parser.add_argument("--failures", action="store_true",
                        help="list the pairs the judge(s) failed to label, and send nothing")
    add_db_option(parser)
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if not args.campaign:
        raise UsageError("the following arguments are required: --campaign")
    if args.failures:
        return _list_failures(args)
    from pooljudge.annotate.autojudge.prompt import PromptTemplate

    base_url, model = endpoint(args)
    template = (PromptTemplate.from_file(args.prompt) if args.prompt
                else PromptTemplate.default())
    key = api_key(args.api_key_env)
    with open_database(args) as engine:
        return _judge(args, engine, base_url=base_url, model=model, template=template,
                      api_key=key)


def _judge(args, engine, *, base_url: str, model: str, template, api_key: str) -> int:
    import asyncio

    from pooljudge.annotate.autojudge.client import Judge, Tally, make_client
    from pooljudge.annotate.autojudge.retry import RetryPolicy
    from pooljudge.annotate.autojudge.runner import Run, plan_run

    plan = plan_run(engine, campaign=args.campaign, name=args.name or model, pairs=args.pairs,
                    limit=args.limit)

    async def main():
        client = make_client(base_url=base_url, api_key=api_key, timeout=args.timeout)
        policy = RetryPolicy(max_attempts=args.max_attempts, base=args.backoff)
        judge = Judge(client, model=model, scale=plan.campaign.scale, policy=policy,
                      tally=Tally(), secret=api_key)
        try:
            return await Run(engine, plan, judge, template,
                             concurrency=args.concurrency).execute()
        finally:
            await client.close()

    summary = asyncio.run(main())
    print(summary.paragraph(price_in=args.price_in, price_out=args.price_out))
    if summary.interrupted:
        print("pooljudge: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _list_failures(args: argparse.Namespace) -> int:
    from pooljudge.annotate.store import auto_failures, session_scope

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        frame = auto_failures(session, campaign=args.campaign, name=args.name)
    frame["reply"] = frame["reply"].map(_short)
    print_frame(frame)
    return 0


def _short(text: object) -> str:
    """A reply on one line, at most :data:`_REPLY_SHOWN` characters ("" for none)."""
    if not isinstance(text, str):
        return ""
    line = " ".join(text.split())
    return line if len(line) <= _REPLY_SHOWN else line[:_REPLY_SHOWN - 1] + "…"
