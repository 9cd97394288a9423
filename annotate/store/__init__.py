"""The judgment store's front door: the only place with SQL (one module per aggregate).

Code outside this package imports only ``pooljudge.annotate.store``. Open an engine with
:func:`open_engine` (upgraded to the newest schema) and sessions with :func:`session_scope`;
every other function is keyword-only after the session it takes. Results are plain records
(:mod:`pooljudge.annotate.records`) or DataFrames, never table rows.
"""

from pooljudge.annotate.store.access import (
    SESSION_HOURS,
    Credential,
    NotAllowed,
    authorize,
    campaign_roles,
    end_login_session,
    grant_role,
    list_grants,
    login,
    revoke_role,
    start_login_session,
)
from pooljudge.annotate.store.adaptive_queue import run_ranks
from pooljudge.annotate.store.annotators import (
    add_annotator,
    add_label_source,
    annotator_id,
    authenticate,
    hash_token,
    list_annotators,
    remove_annotator,
)
from pooljudge.annotate.store.answers import cannot_judge_answers
from pooljudge.annotate.store.assignment import next_pair, release_expired, skip_pair
from pooljudge.annotate.store.autojudge import (
    auto_failures,
    auto_judge,
    pair_views,
    pairs_for_judge,
    record_auto_failure,
    record_auto_judgment,
)
from pooljudge.annotate.store.calibration import (
    calibration_candidates,
    move_to_front,
    set_suggest_from,
    suggest_from,
    suggestion,
    suggestions_shown,
)
from pooljudge.annotate.store.campaigns import (
    campaign_keymap,
    campaign_summary,
    create_campaign,
    get_campaign,
    list_campaigns,
)
from pooljudge.annotate.store.check import consistency_problems
from pooljudge.annotate.store.engine import (
    DEFAULT_URL,
    database_url,
    migrate,
    migration_config,
    open_engine,
    session_scope,
)
from pooljudge.annotate.store.frames import judgment_times, judgments_frame
from pooljudge.annotate.store.guidelines import (
    acknowledge_guidelines,
    acknowledgements,
    guidelines_sha256,
    needs_guidelines,
    set_guidelines,
)
from pooljudge.annotate.store.imports import check_columns, import_judgments
from pooljudge.annotate.store.judgments import (
    DuplicateWrite,
    NotCurrent,
    history,
    others_labels,
    pair_view,
    recent_seconds,
    record_judgment,
)
from pooljudge.annotate.store.pairs import pair_by_key
from pooljudge.annotate.store.peek import peek_next_pair
from pooljudge.annotate.store.progress_counters import (
    PACE,
    TimeLeft,
    annotator_progress,
    progress,
    time_left,
    topic_pairs,
)
from pooljudge.annotate.store.samples import SAMPLE_COLUMNS, SplitPool, pool_sample, split_sample
from pooljudge.annotate.store.stats import (
    CampaignJudgmentRows,
    campaign_judgment_rows,
    recent_judgment_rows,
    status_counts_since,
)
from pooljudge.annotate.store.terms import (
    TopicTerms,
    UnknownTopic,
    add_annotator_term,
    campaign_terms,
    highlight_terms,
    remove_annotator_term,
    set_topic_terms,
)
from pooljudge.annotate.store.undo import (
    RecentJudgment,
    recent_judgments,
    withdraw_last,
    withdrawal,
)

__all__ = [
    "DEFAULT_URL",
    "PACE",
    "SAMPLE_COLUMNS",
    "SESSION_HOURS",
    "CampaignJudgmentRows",
    "Credential",
    "DuplicateWrite",
    "NotAllowed",
    "NotCurrent",
    "RecentJudgment",
    "SplitPool",
    "TimeLeft",
    "TopicTerms",
    "UnknownTopic",
    "acknowledge_guidelines",
    "acknowledgements",
    "add_annotator",
    "add_annotator_term",
    "add_label_source",
    "annotator_id",
    "annotator_progress",
    "authenticate",
    "authorize",
    "auto_failures",
    "auto_judge",
    "calibration_candidates",
    "campaign_judgment_rows",
    "campaign_keymap",
    "campaign_roles",
    "campaign_summary",
    "campaign_terms",
    "cannot_judge_answers",
    "check_columns",
    "consistency_problems",
    "create_campaign",
    "database_url",
    "end_login_session",
    "get_campaign",
    "grant_role",
    "guidelines_sha256",
    "hash_token",
    "highlight_terms",
    "history",
    "import_judgments",
    "judgment_times",
    "judgments_frame",
    "list_annotators",
    "list_campaigns",
    "list_grants",
    "login",
    "migrate",
    "migration_config",
    "move_to_front",
    "needs_guidelines",
    "next_pair",
    "open_engine",
    "others_labels",
    "pair_by_key",
    "pair_view",
    "pair_views",
    "pairs_for_judge",
    "peek_next_pair",
    "pool_sample",
    "progress",
    "recent_judgment_rows",
    "recent_judgments",
    "recent_seconds",
    "record_auto_failure",
    "record_auto_judgment",
    "record_judgment",
    "release_expired",
    "remove_annotator",
    "remove_annotator_term",
    "revoke_role",
    "run_ranks",
    "session_scope",
    "set_guidelines",
    "set_suggest_from",
    "set_topic_terms",
    "skip_pair",
    "split_sample",
    "start_login_session",
    "status_counts_since",
    "suggest_from",
    "suggestion",
    "suggestions_shown",
    "time_left",
    "topic_pairs",
    "withdraw_last",
    "withdrawal",
]
