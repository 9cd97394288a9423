"""Automatic judges: an LLM on an OpenAI-compatible server labels a campaign's pairs.

- :mod:`~pooljudge.annotate.autojudge.prompt`: the template, its fields and hashes;
- :mod:`~pooljudge.annotate.autojudge.parse`: the rules that read a label from a reply;
- :mod:`~pooljudge.annotate.autojudge.retry`: which failures are retried, and the waits;
- :mod:`~pooljudge.annotate.autojudge.client`: one pair asked under the retry policy;
- :mod:`~pooljudge.annotate.autojudge.runner`: a run over a campaign, one transaction per label.

The SQL lives in :mod:`pooljudge.annotate.store.autojudge`; ``openai`` is imported only by the
client.
"""
