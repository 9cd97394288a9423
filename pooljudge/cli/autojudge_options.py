"""Options shared by ``pooljudge autojudge`` and ``pooljudge autojudge audit``: the server,
the model, the prompt, the key's environment variable and the retry policy, and their checks.

The API key is read from the environment variable ``--api-key-env`` only; it is never stored
or printed.
"""

from __future__ import annotations

import argparse
import math
import os
from urllib.parse import urlsplit

from pooljudge.cli.options import positive_int
from pooljudge.errors import UsageError

__all__ = ["MAX_CONCURRENCY", "add_chat_options", "add_server_options", "api_key", "ask_model",
           "endpoint", "nonnegative_float", "positive_float"]

MAX_CONCURRENCY = 512


def nonnegative_float(text: str) -> float:
    """``type=`` checker: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """``type=`` checker: a finite number > 0."""
    value = nonnegative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """--base-url, --model, --prompt, and :func:`add_chat_options` (8 requests in flight, a
    60 s time-out)."""
    parser.add_argument("--base-url", metavar="URL",
                        help="the server's API root, e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--model", metavar="NAME", help="the model name the server knows")
    parser.add_argument("--prompt", metavar="FILE",
                        help="a prompt template with fields {title}, {document}… (default: "
                             "pooljudge's own prompt for the campaign's scale)")
    add_chat_options(parser, in_flight="requests in flight", concurrency=8, timeout=60.0)


def add_chat_options(parser: argparse.ArgumentParser, *, in_flight: str, concurrency: int,
                     timeout: float) -> None:
    """--api-key-env, --concurrency (``in_flight`` at most), --timeout, --max-attempts,
    --backoff: how a command talks to an OpenAI-compatible server."""
    parser.add_argument("--api-key-env", metavar="VAR", default="OPENAI_API_KEY",
                        help="environment variable holding the API key (default: "
                             "OPENAI_API_KEY); never stored or printed")
    parser.add_argument("--concurrency", type=positive_int(MAX_CONCURRENCY),
                        default=concurrency, metavar="N",
                        help=f"{in_flight} at most (default: {concurrency})")
    parser.add_argument("--timeout", type=positive_float, default=timeout, metavar="SECONDS",
                        help=f"time-out of one request (default: {timeout:g})")
    parser.add_argument("--max-attempts", type=positive_int(100), default=6, metavar="N",
                        help="attempts per request, retries included (default: 6)")
    parser.add_argument("--backoff", type=nonnegative_float, default=0.5, metavar="SECONDS",
                        help="base of the exponential back-off (default: 0.5)")


def ask_model(args: argparse.Namespace, work, *, max_tokens: int):
    """Run ``await work(chat)`` with a :class:`~pooljudge.annotate.autojudge.client.Chat` on the
    server of --base-url and --model (checked), the key of --api-key-env and the retry policy
    of :func:`add_chat_options`' options; the client is closed afterwards. Its result."""
    import asyncio

    from pooljudge.annotate.autojudge.client import Chat, Tally, make_client
    from pooljudge.annotate.autojudge.retry import RetryPolicy

    base_url, model = endpoint(args)
    key = api_key(args.api_key_env)

    async def main():
        client = make_client(base_url=base_url, api_key=key, timeout=args.timeout)
        chat = Chat(client, model=model, tally=Tally(), secret=key, max_tokens=max_tokens,
                    policy=RetryPolicy(max_attempts=args.max_attempts, base=args.backoff))
        try:
            return await work(chat)
        finally:
            await client.close()

    return asyncio.run(main())


def endpoint(args: argparse.Namespace) -> tuple[str, str]:
    """The checked --base-url and --model (both required)."""
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


def api_key(variable: str) -> str:
    """The key in the environment variable ``variable``; UsageError when unset or empty."""
    value = os.environ.get(variable)
    if not value:
        raise UsageError(f"--api-key-env: the environment variable {variable} is not set (a "
                         f"local server needs no key: set it to any value, e.g. {variable}=none)")
    return value
