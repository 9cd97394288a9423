"""Alembic migrations of the judgment store (run by
:func:`pooljudge.annotate.store.engine.open_engine`).

What each revision added to the schema (:mod:`pooljudge.annotate.store.models` describes ``head``):

Queue counters (revision 0002): ``pair.open_slots`` is the overlap K minus the participants who
judged the pair minus the live claims on it, never below 0; ``pair.judged`` counts the distinct
participants who judged it. ``topic.open_slots`` is K minus the annotators holding the topic
(assignment by topic). The claim query reads only these counters and partial indexes
``WHERE open_slots > 0``, so it never aggregates judgments.

Adaptive orders (revision 0003): ``pool_entry`` keeps each pair's rank in every run that
retrieved it; ``campaign.order_seed`` seeds the policy and ``campaign.queue_mark`` is the highest
judgment id the queue positions reflect (see :mod:`pooljudge.annotate.store.adaptive_queue`).

Progress counters (revision 0004): ``annotator_topic.judged`` counts the distinct pairs of a
topic each annotator judged, so progress never aggregates judgments (see
:mod:`pooljudge.annotate.store.progress_counters`).

Automatic judges (revision 0005): ``auto_judgment`` holds the provenance of each label an LLM
judge wrote (one row per judgment row, same transaction); ``auto_failure`` the pairs whose last
attempt gave no label, one row per (pair, judge), deleted when a later run labels the pair (see
:mod:`pooljudge.annotate.store.autojudge`).

Keyboard (revision 0006): ``campaign.keymap`` is the campaign's key map as JSON (every action's
keys, see :mod:`pooljudge.annotate.keymap`), or NULL for the defaults.

Judging aids (revision 0007): ``judgment.status`` is ``label``, ``withdrawn`` (an undo) or
``cannot_judge``; each is a version of the same (pair, annotator, kind) sequence and the latest
version decides. ``judgment.label`` is NULL exactly when the status is not ``label``;
``judgment.rationale`` is a can't-judge answer's required reason or a label's rationale.
``campaign.cannot_judge``, ``campaign.rationale_labels`` (JSON list of labels that need a
rationale) and ``campaign.highlight_narrative`` are campaign settings; ``topic_term`` and
``annotator_term`` hold highlight terms; ``guidelines_ack`` who acknowledged which guidelines.
``campaign.suggest_from`` names the automatic judge shown to people as a suggestion (NULL: off);
``judgment.suggested`` is the label suggested when the person judged (NULL: none shown).

Sampled pools (revision 0008): ``pair.stratum`` and ``pair.inclusion`` (the pair's first-order
inclusion probability π) are set for every pair of a campaign made from a sampled pool and NULL
otherwise; only the sampled pairs are ``pair`` rows (so the queue, claims, counters and their
indexes never meet an unsampled pair). ``unsampled_pair`` keeps the pooled pairs the design did
not draw, by their ids as text (see :mod:`pooljudge.annotate.store.samples`).

Passages (revision 0009): ``document.parent``, ``passage_start`` and ``passage_end`` are NULL for
a whole document and set for a passage, whose ``text`` is its slice of the parent row (stored
once per campaign); CHECK ``ck_document_passage``.

Review campaigns (revision 0012): ``review`` marks a campaign as a high-recall review (its
stopping rule, target recall, alpha, seed); ``review_topic`` holds each topic's phase (``rank``,
``sample``, ``certified``), the label count its stored ranking was trained on and the next
retrain's; ``review_sample`` a topic's random sample in draw order; ``certificate`` why a topic
stopped and the judgment ids it rests on (with their SHA-256 digest). In a certified topic every
``pair.open_slots`` is 0 (its queue is closed; see :mod:`pooljudge.annotate.store.review`).
Nuggets (revision 0013): ``nugget`` (banks per topic, never deleted: a state), ``nugget_event``
(their history), ``rag_answer`` and ``answer_sentence`` (RAG answers and their cited sentences),
``nugget_assignment`` (assessors' labels of (answer, nugget) cells, append-only); their
invariants are in :mod:`pooljudge.annotate.store.nugget_models`.
"""
