"""The judgment store's public functions: the only place with SQL (split over store_*.py).

Every function is keyword-only after the session it takes; open sessions with
:func:`annotate.db.session_scope`. Results are plain records (:mod:`annotate.records`) or
DataFrames, never table rows.
"""

from annotate.assignment import next_pair, release_expired, skip_pair
from annotate.store_annotators import (
    add_annotator,
    add_label_source,
    annotator_id,
    authenticate,
    hash_token,
    list_annotators,
    remove_annotator,
)
from annotate.store_answers import cannot_judge_answers
from annotate.store_autojudge import (
    auto_failures,
    auto_judge,
    pair_views,
    pairs_for_judge,
    record_auto_failure,
    record_auto_judgment,
)
from annotate.store_calibration import (
    calibration_candidates,
    move_to_front,
    set_suggest_from,
    suggest_from,
    suggestion,
    suggestions_shown,
)
from annotate.store_campaigns import (
    campaign_keymap,
    campaign_summary,
    create_campaign,
    get_campaign,
    list_campaigns,
)
from annotate.store_check import consistency_problems
from annotate.store_frames import judgment_times, judgments_frame
from annotate.store_guidelines import (
    acknowledge_guidelines,
    acknowledgements,
    guidelines_sha256,
    needs_guidelines,
    set_guidelines,
)
from annotate.store_import import import_judgments
from annotate.store_judgments import (
    DuplicateWrite,
    history,
    others_labels,
    pair_view,
    recent_seconds,
    record_judgment,
)
from annotate.store_pairs import pair_by_key
from annotate.store_progress import annotator_progress, progress, topic_pairs
from annotate.store_stats import AnnotatorStatistics, Standing, annotator_statistics, standing
from annotate.store_terms import (
    TopicTerms,
    UnknownTopic,
    add_annotator_term,
    campaign_terms,
    highlight_terms,
    remove_annotator_term,
    set_topic_terms,
)
from annotate.store_undo import RecentJudgment, recent_judgments, withdraw_last, withdrawal

__all__ = [
    "AnnotatorStatistics",
    "DuplicateWrite",
    "RecentJudgment",
    "Standing",
    "TopicTerms",
    "UnknownTopic",
    "acknowledge_guidelines",
    "acknowledgements",
    "add_annotator",
    "add_annotator_term",
    "add_label_source",
    "annotator_id",
    "annotator_progress",
    "annotator_statistics",
    "authenticate",
    "auto_failures",
    "auto_judge",
    "calibration_candidates",
    "campaign_keymap",
    "campaign_summary",
    "campaign_terms",
    "cannot_judge_answers",
    "consistency_problems",
    "create_campaign",
    "get_campaign",
    "guidelines_sha256",
    "hash_token",
    "highlight_terms",
    "history",
    "import_judgments",
    "judgment_times",
    "judgments_frame",
    "list_annotators",
    "list_campaigns",
    "move_to_front",
    "needs_guidelines",
    "next_pair",
    "others_labels",
    "pair_by_key",
    "pair_view",
    "pair_views",
    "pairs_for_judge",
    "progress",
    "recent_judgments",
    "recent_seconds",
    "record_auto_failure",
    "record_auto_judgment",
    "record_judgment",
    "release_expired",
    "remove_annotator",
    "remove_annotator_term",
    "set_guidelines",
    "set_suggest_from",
    "set_topic_terms",
    "skip_pair",
    "standing",
    "suggest_from",
    "suggestion",
    "suggestions_shown",
    "topic_pairs",
    "withdraw_last",
    "withdrawal",
]
