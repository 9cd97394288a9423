"""Retrieval logs built in tests: 3 categories, 2 configurations, 2 index versions, optional
fields left out on some lines, and helpers to write them plain or gzipped."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

CATEGORIES = ("billing", "shipping", "returns")
CONFIGS = ("bm25", "dense")
VERSIONS = ("v1", "v2")


def sample_records(queries: int = 12, seed: int = 0, docs: int = 30) -> list[dict]:
    """One retrieval per (query, config, version); every fourth line lacks scores, every fifth
    lacks ranks, every seventh lacks latency, query 0 has no category."""
    rng = random.Random(seed)
    records = []
    for q in range(queries):
        for config in CONFIGS:
            for version in VERSIONS:
                i = len(records)
                ids = rng.sample(range(docs), 5)
                results = [{"id": f"d{d}", "rank": r + 1, "score": round(10.0 - 1.5 * r, 3)}
                           for r, d in enumerate(ids)]
                if i % 4 == 0:
                    results = [{k: v for k, v in x.items() if k != "score"} for x in results]
                if i % 5 == 0:
                    results = [{k: v for k, v in x.items() if k != "rank"} for x in results]
                record = {"query_id": f"q{q}", "query": f"how do I {q}?", "config": config,
                          "index_version": version, "results": results,
                          "language": "en" if q % 2 else "de", "tenant": "acme",
                          "settings": {"k": 5, "nested": [1, {"x": None}]},
                          "timestamp": "2026-01-01T00:00:00Z"}
                if q:
                    record["category"] = CATEGORIES[q % 3]
                if i % 7:
                    record["latency_ms"] = round(rng.uniform(5, 200), 2)
                records.append(record)
    return records


def write_jsonl(path: Path, records: list, *, gz: bool = False) -> Path:
    """Write records (dicts become JSON, strings are written as they are) one per line."""
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path
