"""Options several commands share, and checkers for argparse ``type=``.

Adders: :func:`add_qrels_runs` (positional ``QRELS RUN...``), :func:`add_measure_option`
(``-m/--measure``, read back by :func:`measures_from`), :func:`add_compat_option`,
:func:`add_format_option` (``--format`` and ``-o/--output``), :func:`add_db_option` and
:func:`add_units_options` (``--units FILE --level doc|chunk``).
:func:`summary` gives a module docstring's first line as plain help text; :func:`described`,
help text listing declared choices.

Every option whose value decides the size of some work (labels of a scale, overlap, depth,
resamples, processes...) is checked by a ``type=`` checker here, before that work starts. A bad
value raises ``argparse.ArgumentTypeError``; the parser prints it as one line,
``pooljudge: error: --option: reason``, and exits with status 2.

Integers are written in decimal (``1000``, ``-3``; no ``2.5``, no ``1e3``); floats must be
finite. The maxima are sanity bounds far above any real use, so that a typo (an extra zero or
two) fails at once instead of running out of memory. Nothing heavy is imported at start-up.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from pooljudge.errors import InputError, UsageError

if TYPE_CHECKING:
    from pooljudge.metrics.registry import Measure

__all__ = [
    "MAX_COUNT",
    "MAX_DEPTH",
    "MAX_OVERLAP",
    "MAX_RESAMPLES",
    "MAX_SEED",
    "add_compat_option",
    "add_db_option",
    "add_format_option",
    "add_measure_option",
    "add_qrels_runs",
    "add_randomization_options",
    "add_units_options",
    "check_can_listen",
    "described",
    "int_range",
    "listen_host",
    "measures_from",
    "nonnegative_int",
    "open_unit",
    "port",
    "positive_int",
    "probability",
    "seed",
    "summary",
]

MAX_OVERLAP = 1000
MAX_DEPTH = 1_000_000
MAX_COUNT = 10**9  # pairs, budgets: far beyond any pool, well within int64
MAX_RESAMPLES = 100_000
MAX_SEED = 2**32 - 1
_INTEGER = re.compile(r"^[+-]?\d{1,19}$")
_LITERAL = re.compile(r"``(.+?)``")
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def _integer(text: str) -> int:
    value = text.strip()
    if not _INTEGER.match(value):
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    return int(value)


def int_range(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """A checker of integers ``lo <= value <= hi`` (a None bound: unbounded on that side)."""

    def check(text: str) -> int:
        value = _integer(text)
        if lo is not None and value < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, got {value}")
        if hi is not None and value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi}, got {value}")
        return value

    check.__name__ = "integer"
    return check


def positive_int(hi: int | None = None) -> Callable[[str], int]:
    """A checker of integers ``1 <= value <= hi``."""
    return int_range(1, hi)


def nonnegative_int(hi: int | None = None) -> Callable[[str], int]:
    """A checker of integers ``0 <= value <= hi``."""
    return int_range(0, hi)


seed = int_range(0, MAX_SEED)
"""A random seed: ``0 <= seed <= 2**32 - 1`` (numpy's and SQLite's integers hold it exactly)."""

port = int_range(1, 65535)
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def listen_host(text: str) -> str:
    """``--host``: an IPv4 or IPv6 address, or a host name of letters, digits, hyphens and
    dots (RFC 1123); a dotted quad out of range (``999.1.1.1``) is refused, not looked up."""
    import ipaddress

    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    labels = text.removesuffix(".").split(".")
    if (re.fullmatch(r"[0-9.]+", text) or len(text) > 253
            or not all(_HOST_LABEL.fullmatch(label) for label in labels)):
        raise argparse.ArgumentTypeError(f"not an IP address or host name: {text!r}")
    return text


def check_can_listen(host: str, port: int) -> None:
    """UsageError unless a TCP server can listen on ``host``:``port`` now (the name resolves,
    the address is this machine's, the port is free): bound and closed again at once."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise UsageError(f"--host: cannot resolve {host!r}: {exc}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise UsageError(f"--port: cannot listen on {host}:{port}: "
                             f"{exc.strerror or exc}") from None
"""A TCP port number."""


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def probability(text: str) -> float:
    """A probability ``0 <= p <= 1``."""
    value = _float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value:g}")
    return value


def open_unit(text: str) -> float:
    """A number strictly between 0 and 1 (a confidence level, an RBP persistence)."""
    value = _float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {value:g}")
    return value


def unit_share(text: str) -> float:
    """A share of a whole, 0 < p <= 1 (a similarity threshold, a share of answers)."""
    value = _float(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value:g}")
    return value


def summary(doc: str | None) -> str:
    """The first line of a docstring as plain text for ``--help``: reST ``literals`` and
    :role:`targets` lose their markup (``x`` becomes x)."""
    first = (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""
    return _ROLE.sub(r"\1", _LITERAL.sub(r"\1", first))


def described(choices: Mapping[str, str]) -> str:
    """Declared choices as help text: ``name: what it does; name: ...``."""
    return "; ".join(f"{name}: {text}" for name, text in choices.items())


QRELS_HELP = "qrels file: topic iteration doc label"
MEASURE_HELP = ("measure name such as P@10, P(rel=2)@10, nDCG@10, AP, RBP(p=0.8), Judged@10 or "
                "a trec_eval name (P_10, map); repeat the option or separate names by blanks")
FORMAT_HELP = "table (default, for reading), tsv (header + full precision) or json"
DB_HELP = "database URL (default: $POOLJUDGE_DB, else sqlite:///pooljudge.db)"


def add_qrels_runs(parser: argparse.ArgumentParser,
                   qrels: Sequence[tuple[str, str]] = (("QRELS", QRELS_HELP),),
                   dataset: bool = False) -> None:
    """Positional arguments: each ``(METAVAR, help)`` of ``qrels`` (stored as
    ``args.<metavar in lower case>``), then ``RUN...`` (``args.runs``, at least one).

    With ``dataset`` (a command that also takes ``--dataset``) argparse accepts zero runs, so
    that ``--dataset ID RUN`` parses (the lone positional is the run);
    :func:`pooljudge.cli.datasets.qrels_and_runs` then refuses ``QRELS`` without a run."""
    for metavar, text in qrels:
        parser.add_argument(metavar.lower(), metavar=metavar, help=text)
    parser.add_argument("runs", metavar="RUN", nargs="*" if dataset else "+",
                        help="run files (plain or .gz)")


def add_measure_option(parser: argparse.ArgumentParser, default: Sequence[str]) -> None:
    """``-m/--measure`` (repeatable, or blank-separated names), defaulting to ``default``."""
    parser.add_argument("-m", "--measure", action="append", metavar="MEASURE", dest="measures",
                        help=f"{MEASURE_HELP} (default: {' '.join(default)})")
    parser.set_defaults(default_measures=tuple(default))


def measures_from(args: argparse.Namespace) -> list[Measure]:
    """The measures of ``-m/--measure`` (else the defaults), duplicates dropped; UsageError
    ``-m/--measure: reason`` for an unknown name."""
    from pooljudge.metrics.eval_inputs import parse_all

    names = [n for text in (args.measures or args.default_measures) for n in text.split()]
    try:
        return parse_all(names)
    except InputError as exc:
        raise UsageError(f"-m/--measure: {exc}") from None


def add_compat_option(parser: argparse.ArgumentParser) -> None:
    """``--compat 9|10``: the trec_eval release whose numbers are reproduced (``args.compat``,
    default "10"; see :mod:`pooljudge.metrics.compat`)."""
    # pooljudge.metrics.compat.COMPATS, written out: importing metrics here would load numpy at
    # start-up
    parser.add_argument("--compat", choices=("9", "10"), default="10",
                        help="10 (default): trec_eval 10.0 numbers; 9: trec_eval 9.0.8 / "
                             "pytrec_eval (single-precision scores, (long)(x*R + 0.9) "
                             "interpolated-precision cutoffs, unj_k without negative labels)")


def add_format_option(parser: argparse.ArgumentParser, help_text: str = FORMAT_HELP) -> None:
    """``--format table|tsv|json`` (``help_text`` says what each gives) and ``-o/--output
    FILE`` (default ``-``, standard output)."""
    parser.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                        help=help_text)
    parser.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="write here instead of standard output (atomically)")


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--db URL`` (falls back to ``$POOLJUDGE_DB``, then ``sqlite:///pooljudge.db``)."""
    parser.add_argument("--db", metavar="URL", default=None, help=DB_HELP)


UNITS_HELP = ("unit map: 'chunk doc' lines (or 'chunk doc start end', character offsets), one "
              "per chunk; runs and qrels may then be at chunk or document level, told apart by "
              "their ids")
LEVEL_HELP = {
    "doc": "documents: a chunk run ranks each document at its best chunk; chunk qrels give a "
           "document the highest label of its chunks",
    "chunk": "chunks: document qrels give each chunk its document's label (an assumption, "
             "stated in a warning); document runs cannot be evaluated at this level",
}


def add_randomization_options(parser: argparse.ArgumentParser) -> None:
    """``--resamples N`` (default 10000) and ``--seed S`` (default 0) of the paired
    randomization test (``compare``, ``compare-stages``)."""
    parser.add_argument("--resamples", type=positive_int(MAX_RESAMPLES), default=10_000,
                        help="randomization test resamples (default 10000)")
    parser.add_argument("--seed", type=seed, default=0, help="randomization seed (default 0)")


def add_units_options(parser: argparse.ArgumentParser, default: str) -> None:
    """``--units FILE`` (``args.units``) and ``--level doc|chunk`` (``args.level``, None when
    not given: ``default`` says what the command does then)."""
    parser.add_argument("--units", metavar="FILE", help=UNITS_HELP)
    parser.add_argument("--level", choices=("doc", "chunk"),
                        help=f"with --units, the evaluation unit: {described(LEVEL_HELP)} "
                             f"(default: {default})")
