"""``pooljudge autojudge audit``: probe an automatic judge on pairs people judged not relevant
(query stuffing, prompt injection), and check circularity against the runs' model families.

The probes, the prompts' SHA-256, the judge's configuration and the results are written to
``--output`` (JSON, atomically) rather than the campaign database: a probe is not a judgment of
a campaign pair (its document was altered), so it must never reach the qrels, and one file is
the whole, self-contained record of one audit. The tables are printed as well.
"""

from __future__ import annotations

import argparse

from pooljudge.cli import Subcommands
from pooljudge.cli.autojudge_options import add_server_options, api_key, endpoint
from pooljudge.cli.inputs import open_database
from pooljudge.cli.options import add_db_option, int_range, open_unit, positive_int
from pooljudge.errors import UsageError

__all__ = ["register_audit"]

_KINDS = ("control", "stuffing", "injection")  # audit.PROBE_KINDS (no import at start-up)


def register_audit(actions: Subcommands) -> None:
    """Add the ``audit`` action to ``pooljudge autojudge``."""
    parser = actions.add_parser(
        "audit", help="probe a judge: query stuffing, prompt injection, circularity",
        description="On pairs no person judged relevant, ask the judge again with the query's "
                    "words appended to the document (stuffing) and with an instruction to the "
                    "assessor appended (injection); report each flip rate (share of probes "
                    "now called relevant) with a Wilson interval. With --run-families and "
                    "--judge-family, report the judge's agreement with the people on pairs "
                    "retrieved by runs of the judge's own model family, apart. Everything, "
                    "probes, prompt hashes and the judge's configuration included, goes to "
                    "--output (JSON).")
    parser.add_argument("--campaign", required=True, metavar="CAMPAIGN",
                        help="the campaign's name")
    parser.add_argument("--output", required=True, metavar="FILE",
                        help="the audit record (JSON; - for standard output)")
    parser.add_argument("--name", metavar="NAME",
                        help="the judge's annotator name whose stored labels the circularity "
                             "check uses (default: the model name)")
    add_server_options(parser)
    parser.add_argument("--probes", nargs="+", choices=_KINDS, default=list(_KINDS),
                        metavar="KIND", help="probe kinds: control, stuffing, injection "
                                             "(default: all three)")
    parser.add_argument("--injection", metavar="TEXT",
                        help="the instruction appended by the injection probe (default: a "
                             "note saying the document is perfectly relevant)")
    parser.add_argument("--relevant", type=int_range(), metavar="LABEL",
                        help="labels >= LABEL are relevant (default: the scale's second label)")
    parser.add_argument("--limit", type=positive_int(), metavar="N",
                        help="probe at most N pairs (the first in queue order)")
    parser.add_argument("--run-families", metavar="FILE",
                        help="'run family' lines: each run's model family")
    parser.add_argument("--judge-family", metavar="FAMILY",
                        help="the judge's model family (with --run-families)")
    parser.add_argument("--confidence", type=open_unit, default=0.95, metavar="C",
                        help="confidence of the intervals (default: 0.95)")
    add_db_option(parser)
    parser.set_defaults(handler=_audit)


def _audit(args: argparse.Namespace) -> int:
    from pooljudge.annotate.autojudge.audit import INJECTION
    from pooljudge.annotate.autojudge.prompt import PromptTemplate
    from pooljudge.formats.groups import read_run_groups

    base_url, model = endpoint(args)
    if (args.run_families is None) != (args.judge_family is None):
        raise UsageError("--run-families and --judge-family go together")
    injection = INJECTION if args.injection is None else args.injection.strip()
    if not injection:
        raise UsageError("--injection: must not be blank")
    template = (PromptTemplate.from_file(args.prompt) if args.prompt
                else PromptTemplate.default())
    families = read_run_groups(args.run_families) if args.run_families else None
    key = api_key(args.api_key_env)
    kinds = list(dict.fromkeys(args.probes))
    with open_database(args) as engine:
        data = _campaign_data(engine, args.campaign, args.name or model)
        relevant = _threshold(args.relevant, data["info"].scale.values)
        views = _probe_views(engine, data, relevant, args.limit)
    from pooljudge.annotate.autojudge.audit import make_probes

    probes = make_probes(views, template, scale=data["info"].scale,
                         guidelines=data["info"].guidelines, kinds=kinds, injection=injection)
    outcomes = _ask(args, base_url, model, key, data["info"].scale, probes)
    config = {"name": args.name or model, "model": model, "base_url": base_url,
              "api_key_env": args.api_key_env, "template_sha256": template.sha256,
              "prompt_file": args.prompt, "timeout": args.timeout,
              "max_attempts": args.max_attempts, "backoff": args.backoff,
              "concurrency": args.concurrency}
    from pooljudge.cli.autojudge_report import audit_document, print_audit

    document = audit_document(args, data, config=config, kinds=kinds, injection=injection,
                              relevant=relevant, probes=probes, outcomes=outcomes,
                              families=families)
    print_audit(args.output, document)
    return 0


def _campaign_data(engine, campaign: str, judge: str) -> dict:
    """The campaign's settings, pairs with their runs, people's labels and the judge's."""
    from pooljudge.annotate.store import (
        get_campaign,
        judgments_frame,
        list_annotators,
        pair_runs,
        session_scope,
    )

    with session_scope(engine, readonly=True) as session:
        info = get_campaign(session, name=campaign)
        annotators = list_annotators(session, campaign=campaign, include_removed=True)
        labels = judgments_frame(session, campaign=campaign, kind="judgment",
                                 columns=("annotator", "topic", "doc", "label"))
        pairs = pair_runs(session, campaign=campaign)
    humans = set(annotators.loc[annotators["human"].astype(bool), "name"])
    if judge in humans:
        raise UsageError(f"{judge!r} is a person in campaign {campaign!r}, not an automatic "
                         "judge; choose another --name")
    people = labels[labels["annotator"].isin(humans)]
    return {"info": info, "pairs": pairs, "people": people,
            "judge": labels[labels["annotator"] == judge], "judge_name": judge}


def _threshold(given: int | None, values) -> int:
    ordered = sorted(values)
    relevant = ordered[1] if given is None and len(ordered) > 1 else given
    if relevant is None or not ordered[0] < relevant <= ordered[-1]:
        raise UsageError(f"--relevant: must be above the scale's lowest label {ordered[0]} and "
                         f"at most its highest {ordered[-1]}")
    return relevant


def _probe_views(engine, data: dict, relevant: int, limit: int | None) -> list:
    """The views of the pairs no person called relevant (at most ``limit``), queue order."""
    from pooljudge.annotate.autojudge.audit_stats import people_decisions
    from pooljudge.annotate.store import pair_views, session_scope

    decided = people_decisions(data["people"], relevant=relevant)
    data["decisions"] = decided
    negative = decided.loc[decided["relevant_votes"] == 0, ["topic", "doc"]]
    chosen = data["pairs"].merge(negative, on=["topic", "doc"])["pair_id"].tolist()
    if not chosen:
        raise UsageError(f"campaign {data['info'].name!r} has no pair that people judged and "
                         "nobody called relevant: nothing to probe")
    chosen = chosen if limit is None else chosen[:limit]
    with session_scope(engine, readonly=True) as session:
        return pair_views(session, pair_ids=[int(i) for i in chosen])


def _ask(args, base_url: str, model: str, key: str, scale, probes) -> list:
    import asyncio

    from pooljudge.annotate.autojudge.audit import ask_all
    from pooljudge.annotate.autojudge.client import Judge, Tally, make_client
    from pooljudge.annotate.autojudge.retry import RetryPolicy

    async def main():
        client = make_client(base_url=base_url, api_key=key, timeout=args.timeout)
        policy = RetryPolicy(max_attempts=args.max_attempts, base=args.backoff)
        judge = Judge(client, model=model, scale=scale, policy=policy, tally=Tally(),
                      secret=key)
        try:
            return await ask_all(judge, probes, concurrency=args.concurrency)
        finally:
            await client.close()

    return asyncio.run(main())
