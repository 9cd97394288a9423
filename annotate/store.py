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
from annotate.store_autojudge import (
    auto_failures,
    auto_judge,
    pair_views,
    pairs_for_judge,
    record_auto_failure,
    record_auto_judgment,
)
from annotate.store_campaigns import (
    campaign_keymap,
    campaign_summary,
    create_campaign,
    get_campaign,
    list_campaigns,
)
from annotate.store_check import consistency_problems
from annotate.store_import import import_judgments
from annotate.store_judgments import (
    DuplicateWrite,
    history,
    judgment_times,
    judgments_frame,
    others_labels,
    pair_view,
    recent_seconds,
    record_judgment,
)
from annotate.store_pairs import pair_by_key
from annotate.store_progress import annotator_progress, progress, topic_pairs

__all__ = [
    "DuplicateWrite",
    "add_annotator",
    "add_label_source",
    "annotator_id",
    "annotator_progress",
    "authenticate",
    "auto_failures",
    "auto_judge",
    "campaign_keymap",
    "campaign_summary",
    "consistency_problems",
    "create_campaign",
    "get_campaign",
    "hash_token",
    "history",
    "import_judgments",
    "judgment_times",
    "judgments_frame",
    "list_annotators",
    "list_campaigns",
    "next_pair",
    "others_labels",
    "pair_by_key",
    "pair_view",
    "pair_views",
    "pairs_for_judge",
    "progress",
    "recent_seconds",
    "record_auto_failure",
    "record_auto_judgment",
    "record_judgment",
    "release_expired",
    "remove_annotator",
    "skip_pair",
    "topic_pairs",
]
