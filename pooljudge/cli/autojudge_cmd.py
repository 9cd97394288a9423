"""``pooljudge autojudge``: label a campaign's pairs with an LLM on any OpenAI-compatible server.

The API key is read from the environment variable ``--api-key-env`` (default
``OPENAI_API_KEY``) and is never stored or printed; a local server needs none, so set the
variable to any value. Everything the user can get wrong (campaign, URL, template, key
variable, a server that refuses or never answers) is one line ``pooljudge: error: …``, exit 2,
checked before anything is written where it can be.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from urllib.parse import urlsplit

from pooljudge.cli import Subcommands
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, positive_int
from pooljudge.cli.output import print_frame
from pooljudge.errors import UsageError

__all__ = ["register"]

MAX_CONCURRENCY = 512
EXIT_INTERRUPTED = 130
_REPLY_SHOWN = 60


def _nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    value = _nonnegative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def register(subparsers: Subcommands) -> None:
    parser = subparsers.add_parser(
        "autojudge", help="label a campaign's pairs with an LLM (OpenAI-compatible server)",
        description="Label a campaign's pairs with an LLM served by any OpenAI-compatible "
                    "server (vLLM, Ollama, llama.cpp, hosted APIs), as a non-human judge. "
                    "Each label is committed as it arrives; a re-run skips what is done and "
                    "retries the failures. --failures lists the failures.")
    parser.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                        help="the campaign's name")
    parser.add_argument("--base-url", metavar="URL",
                        help="the server's API root, e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--model", metavar="NAME", help="the model name the server knows")
    parser.add_argument("--name", metavar="NAME",
                        help="the judge's annotator name (default: the model name)")
    parser.add_argument("--prompt", metavar="FILE",
                        help="a prompt template with fields {title}, {document}… (default: "
                             "pooljudge's own prompt for the campaign's scale)")
    parser.add_argument("--api-key-env", metavar="VAR", default="OPENAI_API_KEY",
                        help="environment variable holding the API key (default: "
                             "OPENAI_API_KEY); never stored or printed")
    parser.add_argument("--concurrency", type=positive_int(MAX_CONCURRENCY), default=8,
                        metavar="N", help="requests in flight at most (default: 8)")
    parser.add_argument("--limit", type=positive_int(), metavar="N",
                        help="label at most N pairs in this run")
    parser.add_argument("--pairs", choices=("all", "unjudged"), default="all",
                        help="all pairs, or only pairs without a human judgment (default: all)")
    parser.add_argument("--price-in", type=_nonnegative_float, metavar="USD",
                        help="USD per million input tokens (for the cost in the summary)")
    parser.add_argument("--price-out", type=_nonnegative_float, metavar="USD",
                        help="USD per million output tokens")
    parser.add_argument("--timeout", type=_positive_float, default=60.0, metavar="SECONDS",
                        help="time-out of one request (default: 60)")
    parser.add_argument("--max-attempts", type=positive_int(100), default=6, metavar="N",
                        help="attempts per request, retries included (default: 6)")
    parser.add_argument("--backoff", type=_nonnegative_float, default=0.5, metavar="SECONDS",
                        help="base of the exponential back-off (default: 0.5)")
    parser.add_argument("--failures", action="store_true",
                        help="list the pairs the judge(s) failed to label, and send nothing")
    add_db_option(parser)
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.failures:
        return _list_failures(args)
    from pooljudge.annotate.autojudge.prompt import PromptTemplate

    base_url, model = _endpoint(args)
    template = (PromptTemplate.from_file(args.prompt) if args.prompt
                else PromptTemplate.default())
    api_key = _api_key(args.api_key_env)
    with open_database(args) as engine:
        return _judge(args, engine, base_url=base_url, model=model, template=template,
                      api_key=api_key)


def _endpoint(args: argparse.Namespace) -> tuple[str, str]:
    """The checked --base-url and --model (both required unless --failures)."""
    if not args.base_url or not args.model:
        raise UsageError("--base-url and --model are required (unless --failures)")
    parts = urlsplit(args.base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--base-url: not an http(s) URL: {args.base_url!r}")
    try:
        parts.port  # noqa: B018 (validates the port)
    except ValueError:
        raise UsageError(f"--base-url: bad port in {args.base_url!r}") from None
    if not args.model.strip():
        raise UsageError("--model: must not be blank")
    return args.base_url.rstrip("/"), args.model


def _api_key(variable: str) -> str:
    value = os.environ.get(variable)
    if not value:
        raise UsageError(f"--api-key-env: the environment variable {variable} is not set (a "
                         f"local server needs no key: set it to any value, e.g. {variable}=none)")
    return value


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
