"""Automatic judges: an LLM on an OpenAI-compatible server labels a campaign's pairs.

- :mod:`~annotate.autojudge.prompt`: the template, its fields and hashes;
- :mod:`~annotate.autojudge.parse`: the rules that read a label from a reply;
- :mod:`~annotate.autojudge.retry`: which failures are retried, and the waits;
- :mod:`~annotate.autojudge.client`: one pair asked under the retry policy;
- :mod:`~annotate.autojudge.runner`: a run over a campaign, one transaction per label.

The SQL lives in :mod:`annotate.store.autojudge`; ``openai`` is imported only by the client.
"""
