"""``pooljudge export`` (consensus qrels + provenance, or with ``--format hf`` a Hugging Face
dataset: :mod:`pooljudge.cli.export_hf`)."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

from pooljudge.annotate.consensus_policies import (
    DEFAULT_POLICY,
    DEFAULT_TIES,
    GOLD_HELP,
    MODEL_POLICIES,
    POLICY_HELP,
    TIES,
    TIES_HELP,
)
from pooljudge.cli import Subcommands
from pooljudge.cli.export_settled import (
    add_undecided_option,
    check_undecided,
    settled_lines,
    with_undecided,
)
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, described, int_range
from pooljudge.errors import InputError, UsageError
from pooljudge.formats.files import atomic_writer

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from pooljudge.annotate.consensus_policies import Policy

__all__ = ["load_campaign", "prels_path", "provenance_path", "register", "write_tsv"]

EXPORT_FORMATS = ("trec", "hf")
PROVENANCE_SUFFIX = ".provenance.tsv"
PRELS_SUFFIX = ".prels.tsv"
_LINES = 50_000  # provenance lines joined per write


def register(subparsers: Subcommands) -> None:
    export = subparsers.add_parser(
        "export", help="write consensus qrels and their provenance",
        description="Write TREC qrels (topic 0 doc label) of the judged pairs, one label per pair "
                    "decided by --policy, and beside them a provenance TSV (per pair: the votes "
                    "and the rule that decided). \"I can't judge this\" answers are never a "
                    "label: they are left out and counted (see --cannot-judge). A campaign made "
                    "from a sampled pool also writes each pooled-but-unsampled pair with label "
                    "-1, and the prels (topic doc label stratum inclusion, every pooled pair) "
                    "the estimators read. All files are written to temporary names and renamed.")
    export.add_argument("--policy", default=DEFAULT_POLICY, metavar="POLICY",
                        help=f"how a pair's label is decided (default: {DEFAULT_POLICY}): "
                             f"{described(POLICY_HELP)}")
    export.add_argument("--ties", choices=TIES, default=DEFAULT_TIES,
                        help=f"majority ties (default: {DEFAULT_TIES}): {described(TIES_HELP)}")
    add_undecided_option(export)
    export.add_argument("--binarize", type=int_range(), metavar="T",
                        help="write 1 for a decided label >= T, else 0")
    export.add_argument("--gold", metavar="SOURCE",
                        help=f"seed a model policy ({', '.join(MODEL_POLICIES)}) with known "
                             f"labels: {described(GOLD_HELP)}")
    for flag, what in (("--soft-qrels", "each pair's posterior probability of every label "
                                        "(topic doc label probability TSV, docs/consensus.md)"),
                       ("--competence", "each annotator's estimated competence and confusion "
                                        "matrix as TSV")):
        export.add_argument(flag, metavar="FILE", help=f"with a model policy: also write {what}")
    export.add_argument("-o", "--output", default="-", metavar="FILE", help="default: stdout")
    export.add_argument("--provenance", metavar="FILE",
                        help=f"provenance TSV (default: FILE{PROVENANCE_SUFFIX} beside -o; "
                             "not written for stdout unless given)")
    export.add_argument("--prels", metavar="FILE",
                        help=f"a sampled campaign's prels TSV (default: FILE{PRELS_SUFFIX} "
                             "beside -o; not written for stdout unless given)")
    export.add_argument("--cannot-judge", metavar="FILE",
                        help="also write the \"I can't judge this\" answers as TSV: topic, doc, "
                             "annotator, reason (the latest answer of each annotator and pair)")
    export.add_argument("--certificates", metavar="FILE",
                        help="a review campaign: also write each certified topic's certificate "
                        "as JSON (docs/guides/review.md)")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="trec",
                        help="trec (default): TREC qrels and TSV files beside them; hf: a "
                        "Hugging Face dataset in folder DIR (Parquet configs qrels, topics, "
                        "judgments, provenance... and a README.md dataset card)")
    export.add_argument("directory", nargs="?", metavar="DIR",
                        help="with --format hf: the dataset folder (written whole, then renamed "
                        "into place)")
    export.add_argument("--force", action="store_true",
                        help="with --format hf: replace a DIR that is not empty")
    export.add_argument("--license", metavar="ID",
                        help="with --format hf: the card's license tag, a Hub license ID such as "
                        "cc-by-4.0 (default: other)")
    export.set_defaults(handler=_export)
    export.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                        help="the campaign's name")
    add_db_option(export)

def provenance_path(output: str, given: str | None, suffix: str = PROVENANCE_SUFFIX
                    ) -> str | None:
    """Where the provenance goes: ``given``, else beside a file output, else nowhere."""
    if given is not None:
        return given
    return None if output == "-" else output + suffix


def prels_path(output: str, given: str | None) -> str | None:
    """Where a sampled campaign's prels go: ``given``, else beside a file output, else
    nowhere."""
    return provenance_path(output, given, PRELS_SUFFIX)


class _Loaded(NamedTuple):
    frame: pd.DataFrame  # votes and adjudications (label rows)
    scale: tuple[int, ...]
    answers: pd.DataFrame  # "I can't judge this" answers
    sample: pd.DataFrame | None  # every pooled pair of a sampled campaign, else None


def load_campaign(args: argparse.Namespace) -> _Loaded:
    """Votes and adjudications, the scale, the "I can't judge this" answers and a sampled
    campaign's pooled pairs, read in one transaction."""
    import pandas as pd

    from pooljudge.annotate.store import (
        cannot_judge_answers,
        get_campaign,
        judgments_frame,
        pool_sample,
        session_scope,
    )

    # What consensus reads: votes, and adjudications with the time that orders them.
    columns = ("annotator", "topic", "doc", "label", "kind", "source")
    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        scale = get_campaign(session, name=args.campaign).scale.values
        votes = judgments_frame(session, campaign=args.campaign, kind="judgment",
                                columns=columns)
        decided = judgments_frame(session, campaign=args.campaign, kind="adjudication",
                                  columns=(*columns, "created_at"))
        answers = cannot_judge_answers(session, campaign=args.campaign)
        sample = pool_sample(session, campaign=args.campaign)
    return _Loaded(pd.concat([votes, decided], ignore_index=True), scale, answers, sample)


def _export(args: argparse.Namespace) -> int:
    from pooljudge.annotate.campaigns import sampled_export
    from pooljudge.annotate.consensus import settle
    from pooljudge.annotate.consensus_policies import Policy
    from pooljudge.formats.certificates import write_certificates
    from pooljudge.formats.trec import write_prels, write_qrels

    policy = with_undecided(Policy.parse(args.policy, ties=args.ties, binarize=args.binarize,
                                         gold=args.gold), args.undecided)
    for option, given in (("--soft-qrels", args.soft_qrels), ("--competence", args.competence)):
        if given is not None and policy.name not in MODEL_POLICIES:
            raise UsageError(f"{option}: only with a model policy ({', '.join(MODEL_POLICIES)})")
    if args.format == "hf" and args.certificates is not None:
        raise UsageError("--certificates: only with --format trec (the JSON goes beside the "
                         "qrels)")
    if args.format == "hf":
        from pooljudge.cli.export_hf import export_hf

        return export_hf(args, policy)
    for option, given in (("DIR", args.directory), ("--force", args.force or None),
                          ("--license", args.license)):
        if given is not None:
            raise UsageError(f"{option}: only with --format hf (TREC qrels go to -o FILE)")
    provenance = provenance_path(args.output, args.provenance)
    prels = prels_path(args.output, args.prels)
    for option, target in (("-o", args.output), ("--provenance", provenance),
                           ("--prels", prels), ("--cannot-judge", args.cannot_judge),
                           ("--soft-qrels", args.soft_qrels), ("--competence", args.competence),
                           ("--certificates", args.certificates)):
        _check_target(option, target)
    certificates = _certificates(args) if args.certificates is not None else None
    frame, scale, answers, sample = load_campaign(args)
    if args.prels is not None and sample is None:
        raise UsageError(f"--prels: campaign {args.campaign} was not made from a sampled pool")
    if frame.empty:
        raise InputError(f"campaign {args.campaign} has no judgments to export"
                         + (f" ({len(answers)} \"I can't judge this\" answers only)"
                            if len(answers) else ""))
    settlement = settle(frame, scale, policy)
    check_undecided(settlement, args.undecided, args.campaign)
    qrels, votes = settlement.qrels, settlement.provenance
    judged = len(qrels)
    sampled = None if sample is None else sampled_export(qrels, sample)
    with ExitStack() as files:  # renamed on leaving, in reverse order; an error: none is
        if args.cannot_judge is not None:
            _write_answers(files.enter_context(atomic_writer(args.cannot_judge)), answers)
        if args.soft_qrels is not None or args.competence is not None:
            _write_model(args, frame, scale, policy, files)
        if provenance is not None:
            write_tsv(votes, files.enter_context(atomic_writer(provenance)))
        if certificates is not None:
            write_certificates(certificates, files.enter_context(atomic_writer(args.certificates)))
        if sampled is not None:
            qrels = sampled.qrels
            if prels is not None:  # renamed at once: the qrels below are written last
                write_prels(sampled.prels, prels)
        write_qrels(qrels, args.output)
    left_out = len(votes) - judged
    print(f"{judged} judged pairs written by policy {policy}"
          + (f" (ties: {policy.ties})" if policy.name in {"majority", "adjudicated"} else "")
          + (f"; {left_out} left out, see the provenance" if left_out else "")
          + _answers_note(len(answers), args.cannot_judge)
          + _sample_note(sample, prels)
          + _certificates_note(certificates, args.certificates),
          *settled_lines(settlement), sep="\n", file=sys.stderr)
    return 0


def _certificates(args: argparse.Namespace) -> dict:
    """The review campaign's certificates as a JSON document; UsageError for another kind."""
    from pooljudge.annotate.store import (
        certificates,
        get_campaign,
        review_settings,
        session_scope,
    )
    from pooljudge.formats.certificates import certificates_document

    with open_database(args) as engine, session_scope(engine, readonly=True) as session:
        campaign = get_campaign(session, name=args.campaign)
        settings = review_settings(session, campaign_id=campaign.id)
        if settings is None:
            raise UsageError(f"--certificates: campaign {args.campaign} is not a review "
                             "(init --review)")
        found = certificates(session, campaign_id=campaign.id)
    level = {"rule": settings.rule, "target": settings.target, "alpha": settings.alpha}
    return certificates_document(args.campaign, level, [c.as_dict() for c in found])


def _certificates_note(document: dict | None, path: str | None) -> str:
    """The summary's words on the certificates written (stale ones named)."""
    if document is None:
        return ""
    items = document["certificates"]
    stale = [c["topic"] for c in items if c["stale"]]
    return (f"; {len(items)} certificates written to {path}"
            + (f" ({len(stale)} stale: topics {', '.join(stale)})" if stale else ""))


def _write_model(args: argparse.Namespace, frame: pd.DataFrame, scale: tuple[int, ...],
                 policy: Policy, files: ExitStack) -> None:
    """The model's soft qrels and per-annotator competence, renamed with the other files."""
    from pooljudge.annotate.consensus import fit_policy_model
    from pooljudge.annotate.crowd import posterior_frame, worker_frame
    from pooljudge.formats.soft_qrels import write_soft_qrels

    coded, result = fit_policy_model(frame, scale, policy)
    if args.soft_qrels is not None:
        soft = files.enter_context(atomic_writer(args.soft_qrels))
        write_soft_qrels(posterior_frame(coded, result), soft, comment=f"policy {policy}")
    if args.competence is not None:
        write_tsv(worker_frame(result), files.enter_context(atomic_writer(args.competence)))


def _sample_note(sample: pd.DataFrame | None, prels: str | None) -> str:
    """The summary's words on a sampled campaign's -1 lines and prels (else nothing)."""
    if sample is None:
        return ""
    unsampled = int((~sample["sampled"]).sum())
    where = f"written to {prels}" if prels is not None else "not written (--prels FILE)"
    return (f"; {unsampled} pooled but unsampled pairs as label -1; prels of {len(sample)} "
            f"pooled pairs {where}")


def _write_answers(handle: IO[str], answers: pd.DataFrame) -> None:
    from pooljudge.formats.trec import write_cannot_judge

    write_cannot_judge(answers, handle)


def _answers_note(count: int, path: str | None) -> str:
    """The summary's words on the can't-judge answers (none: nothing, unless a file was
    asked for)."""
    if not count and path is None:
        return ""
    where = f", written to {path}" if path is not None else " (--cannot-judge FILE lists them)"
    return f"; {count} \"I can't judge this\" answers not in the qrels{where}"


def write_tsv(frame: pd.DataFrame, handle: IO[str]) -> None:
    """Write ``frame`` as ``to_csv(sep="\\t", index=False, lineterminator="\\n", na_rep="")``
    does, byte for byte: joined column by column in pyarrow, not row by row. Frames with a
    float column, or a text that ``to_csv`` would quote (a tab, quote or line break), are left
    to ``to_csv``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = [_text_column(frame[name]) for name in frame.columns]
    if any(c is None for c in columns) or any(
            pc.any(pc.match_substring_regex(c, '[\t"\r\n]')).as_py() for c in columns):
        frame.to_csv(handle, sep="\t", index=False, lineterminator="\n", na_rep="")
        return
    handle.write("\t".join(map(str, frame.columns)) + "\n")
    rows = pc.binary_join_element_wise(*columns, pa.scalar("\t", pa.large_string()))
    for start in range(0, len(rows), _LINES):  # streamed: one slice of lines at a time
        handle.write("\n".join(rows.slice(start, _LINES).to_pylist()) + "\n")


def _text_column(column: pd.Series) -> pa.Array | None:
    """A text or integer column as pyarrow text (missing: empty); None for other types."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        if pd.api.types.is_integer_dtype(column.dtype):
            values = pc.cast(pa.array(column.array, from_pandas=True), pa.large_string())
        elif pd.api.types.is_string_dtype(column.dtype):  # str, or objects that are all text
            values = pa.array(column.array, pa.large_string(), from_pandas=True)
        else:
            return None
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return pc.fill_null(values, "")


def _check_target(option: str, target: str | None) -> None:
    """Refuse a target that cannot be written before anything is computed or written."""
    if target is None or target == "-":
        return
    path = Path(target)
    if not target.strip() or path.is_dir():
        raise UsageError(f"{option} {target!r}: not a file name")
    if not path.parent.is_dir():
        raise UsageError(f"{option} {target}: no such directory: {path.parent}")
