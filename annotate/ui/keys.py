"""Session-state and widget keys of the app, as named constants the tests reuse.

A widget with ``key=K`` carries the CSS class ``st-key-K`` in the browser, which is how the
real-browser tests find it. Keys that embed a pair id (``label_key`` and friends) make every
judging widget belong to one pair: a key press that arrives after the page moved on refers to a
widget of the *previous* pair and is ignored by the callbacks.
"""

from __future__ import annotations

# --- session state ------------------------------------------------------------------------------
USER = "pj_user"                 # AnnotatorInfo of the logged-in person
TOKEN = "pj_token"               # their login token (re-checked on every run: removal logs out)
ROLES = "pj_roles"               # campaign name -> the person's role there (store.campaign_roles)
LOGOUT = "logout"                # the sidebar's Log out button
LOGGED_OUT = "pj_logged_out"     # set by Log out: the login page says so
CURRENT = "pj_current"           # PairView on screen, or None to fetch the next one
SHOWN_AT = "pj_shown_at"         # time.monotonic() when CURRENT appeared (seconds spent)
REVIEW_PAIR = "pj_review_pair"   # the pair on screen when it belongs to a review topic
BACK_STEPS = "pj_back_steps"     # 0 = new pairs; n = the n-th most recent own judgment on screen
FLASH = "pj_flash"               # one-line confirmation of the last action
CAMPAIGN = "pj_campaign"         # campaign name the admin pages work on
NEW_LINKS = "pj_new_links"       # login links created on the create-campaign page
PEOPLE_LINKS = "pj_people_links"  # (campaign, links) of people just added on the people page
PEOPLE_FLASH = "pj_people_flash"  # (kind, message) of the last add or removal on the people page
ASSIGN_ANSWER = "pj_assign_answer"  # the answer key on the assignment pane (None: the queue's)
ASSIGN_FOCUS = "pj_assign_focus"    # the nugget key focused there (None: its first unlabelled)
ASSIGN_SHOWN = "pj_assign_shown"    # (answer, nugget): the cell on screen, None while writing
ASSIGN_SHOWN_AT = "pj_assign_shown_at"  # time.monotonic() when that cell appeared
BANK_TOPIC = "pj_bank_topic"        # the topic on the nugget-creation pane
BANK_FOCUS = "pj_bank_focus"        # the nugget key focused there (None: its first)
BANK_PASSAGE = "pj_bank_passage"    # the index of the relevant passage shown
BANK_MERGE = "pj_bank_merge"        # the nugget marked to be merged into the next one chosen
BANK_EDIT = "pj_bank_edit"          # the nugget being edited in the box (None: a new one)
BANK_SHOWN = "pj_bank_shown"        # (topic, nugget, passage) on screen, None while writing

# --- widget keys (fixed) ------------------------------------------------------------------------
FORWARD = "forward"              # leave the earlier pairs, back to new ones
KEYBOARD = "pj_keyboard"         # the judging page's key script (pooljudge.annotate.ui.keyboard)
GATE_KEY = "pj_key_gate"         # the judging pane's gate (pooljudge.annotate.ui.key_gate)
SPAN_PICK = "pj_span_pick"       # the creation pane's selection picker (ui.span_pick)
SETTLING = "pj-settling"         # class on <body> while the pair's parts name different pairs
CAMPAIGN_PICKER = "campaign_picker"
CREATE_FORM = "create_form"
CREATE_SUBMIT = "create_submit"
CREATE_NAME = "create_name"
CREATE_TOPICS = "create_topics"
CREATE_DOCS = "create_docs"
CREATE_RUNS = "create_runs"
CREATE_DEPTH = "create_depth"
CREATE_BUDGET = "create_budget"
CREATE_POOLING = "create_pooling"
CREATE_OVERLAP = "create_overlap"
CREATE_QUEUE = "create_queue"
CREATE_GUIDELINES = "create_guidelines"
CREATE_KEYS = "create_keys"      # the judging page's key map (JSON, as `pooljudge init --keys`)
CREATE_PEOPLE = "create_people"
SHOW_OTHERS = "show_others_labels"
SCALE_PRESET = "scale_preset"    # the label scale the table starts from (outside the form)
SCALE_FILE = "scale_file"        # optional JSON label scale, as `pooljudge init --scale F.json`
PEOPLE_FORM = "people_form"
PEOPLE_TEXT = "people_text"
ADD_PEOPLE_SUBMIT = "add_people_submit"
HIDE_LINKS = "hide_links"
REMOVE_FORM = "remove_form"
REMOVE_PERSON = "remove_person"
REMOVE_CONFIRM = "remove_confirm"
REMOVE_SUBMIT = "remove_submit"
EXPORT_POLICY = "export_policy"
EXPORT_UNDECIDED = "export_undecided"
DOWNLOAD_QRELS = "download_qrels"
DOWNLOAD_PROVENANCE = "download_provenance"
DOWNLOAD_JUDGMENTS = "download_judgments"
EVAL_RUNS = "eval_runs"
ADJUDICATE_PREFIX = "adjudicate"


def label_table_key(source: str) -> str:
    """The label-scale editor started from ``source`` (a preset, or a file's checksum): a new
    start gets a fresh table instead of the previous one's edits."""
    return f"label_table_{source}"


def label_key(pair_id: int, value: int) -> str:
    """The button that gives ``pair_id`` the label ``value`` (``m`` marks a negative value)."""
    return f"label_{pair_id}_{value}" if value >= 0 else f"label_{pair_id}_m{-value}"


def comment_key(pair_id: int) -> str:
    return f"comment_{pair_id}"


def skip_key(pair_id: int) -> str:
    return f"skip_{pair_id}"


def back_key(pair_id: int) -> str:
    return f"back_{pair_id}"


def adjudicate_key(pair_id: int, value: int) -> str:
    suffix = str(value) if value >= 0 else f"m{-value}"
    return f"{ADJUDICATE_PREFIX}_{pair_id}_{suffix}"


def cell_key(kind: str, cell: int, what: str) -> str:
    """A button of the assignment pane acting on cell ``cell`` (its mark, see
    :func:`pooljudge.annotate.ui.nugget_assign.cell_mark`): ``label_<cell>_<value>`` or
    ``skip_<cell>_<what>`` / ``back_<cell>_<what>``, names the judging pane's gate knows."""
    return f"{kind}_{cell}_{what}"


def nugget_focus_key(answer_index: int, position: int) -> str:
    """The checklist row that focuses the ``position``-th nugget of the shown answer."""
    return f"nugget_focus_{answer_index}_{position}"
