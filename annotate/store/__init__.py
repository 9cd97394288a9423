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
    login,
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
    pair_runs,
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
from pooljudge.annotate.store.nugget_assignments import (
    CELL_COLUMNS,
    import_nugget_assignments,
    nugget_cells,
    record_nugget_assignment,
)
from pooljudge.annotate.store.nugget_edits import (
    NUGGET_EDITORS,
    add_nugget,
    delete_nugget,
    edit_nugget,
    merge_nuggets,
)
from pooljudge.annotate.store.nuggets import (
    NUGGET_COLUMNS,
    import_nuggets,
    nugget_bank,
    nugget_history,
    nuggets_frame,
    topic_titles,
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
from pooljudge.annotate.store.rag_answers import (
    ANSWER_FRAME_COLUMNS,
    answer_texts,
    import_rag_answers,
    rag_answers_frame,
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
    "ANSWER_FRAME_COLUMNS",
    "CELL_COLUMNS",
    "DEFAULT_URL",
    "NUGGET_COLUMNS",
    "NUGGET_EDITORS",
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
    "add_nugget",
    "annotator_id",
    "annotator_progress",
    "answer_texts",
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
    "delete_nugget",
    "edit_nugget",
    "end_login_session",
    "get_campaign",
    "grant_role",
    "guidelines_sha256",
    "hash_token",
    "highlight_terms",
    "history",
    "import_judgments",
    "import_nugget_assignments",
    "import_nuggets",
    "import_rag_answers",
    "judgment_times",
    "judgments_frame",
    "list_annotators",
    "list_campaigns",
    "login",
    "merge_nuggets",
    "migrate",
    "migration_config",
    "move_to_front",
    "needs_guidelines",
    "next_pair",
    "nugget_bank",
    "nugget_cells",
    "nugget_history",
    "nuggets_frame",
    "open_engine",
    "others_labels",
    "pair_by_key",
    "pair_runs",
    "pair_view",
    "pair_views",
    "pairs_for_judge",
    "peek_next_pair",
    "pool_sample",
    "progress",
    "rag_answers_frame",
    "recent_judgment_rows",
    "recent_judgments",
    "recent_seconds",
    "record_auto_failure",
    "record_auto_judgment",
    "record_judgment",
    "record_nugget_assignment",
    "release_expired",
    "remove_annotator",
    "remove_annotator_term",
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
    "topic_titles",
    "withdraw_last",
    "withdrawal",
]
