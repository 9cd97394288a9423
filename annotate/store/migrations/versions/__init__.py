"""Schema revisions, oldest first: 0001 initial tables, 0002 queue counters."""
