"""Every Python snippet of the documentation runs (README.md and docs/**/*.md): a fenced
```python block is executed, on its own, in a folder holding the small example files the
snippets name (qrels.txt, runs/a, runs/a.gz, runs/b, chunks.tsv, chunks.run, chunk-qrels.txt,
traffic.jsonl.gz). A block whose first line is ``# doc: no-run`` (then a reason) is not run;
that list is kept tiny and pinned below."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NO_RUN = "# doc: no-run"
# (page, first line after the marker) of the snippets that are deliberately not run.
NOT_RUN: set[tuple[str, str]] = set()
_FENCE = re.compile(r"^```(?:python|py)\s*\n(.*?)^```\s*$", re.S | re.M)


def _pages() -> list[Path]:
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_gen" not in p.parts)
    return [ROOT / "README.md", *docs]


def snippets() -> list[tuple[str, int, str]]:
    """(page relative to the repository, line of the fence, code) of every Python block."""
    found = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((page.relative_to(ROOT).as_posix(), line, match.group(1)))
    return found


SNIPPETS = snippets()


def _write_examples(folder: Path) -> None:
    """Two runs over three topics, qrels for them, a unit map of two chunks per document, a
    chunk run with chunk qrels, and a log of retrievals by two configurations."""
    (folder / "runs").mkdir()
    docs = [f"d{i}" for i in range(1, 13)]
    qrels = [f"{t} 0 {d} {int(i % 3 == 0) + int(i % 5 == 0)}"
             for t in (1, 2, 3) for i, d in enumerate(docs)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    for name, step in (("a", 1), ("b", 5)):
        lines = [f"{t} Q0 {docs[(i * step + t) % 12]} {i + 1} {20 - i}.5 {name}"
                 for t in (1, 2, 3) for i in range(12)]
        (folder / "runs" / name).write_text("\n".join(lines) + "\n")
    (folder / "runs" / "a.gz").write_bytes(gzip.compress((folder / "runs" / "a").read_bytes()))
    (folder / "chunks.tsv").write_text("chunk doc start end\n" + "".join(
        f"{d}-{c} {d} {c * 100} {c * 100 + 99}\n" for d in docs for c in (0, 1)))
    (folder / "chunks.run").write_text("".join(
        f"{t} Q0 {d}-{c} {i * 2 + c + 1} {50 - i * 2 - c} chunky\n"
        for t in (1, 2) for i, d in enumerate(docs) for c in (0, 1)))
    (folder / "chunk-qrels.txt").write_text("".join(
        f"{t} 0 {d}-0 {i % 2}\n" for t in (1, 2) for i, d in enumerate(docs)))
    records = [{"query_id": f"q{q}", "query": f"question {q}", "config": config,
                "index_version": version, "latency_ms": 10.0 + q, "category": "billing",
                "results": [{"id": d, "rank": r + 1, "score": 10.0 - r}
                            for r, d in enumerate(docs[q:q + 5])]}
               for q in range(1, 6) for config, version in (("bm25", "v7"), ("hybrid", "v8"))]
    (folder / "traffic.jsonl.gz").write_bytes(
        gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode()))


@pytest.mark.parametrize(("page", "line", "code"), SNIPPETS,
                         ids=[f"{page}:{line}" for page, line, _ in SNIPPETS])
def test_the_snippet_runs(page, line, code, tmp_path, monkeypatch):
    if code.startswith(NO_RUN):
        assert (page, code.splitlines()[1].strip()) in NOT_RUN, "a new no-run snippet: pin it"
        pytest.skip("marked not to run")
    _write_examples(tmp_path)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__snippet__"})


def test_the_snippets_are_found():
    """The collector sees the documented examples (a renamed fence would silently skip them)."""
    pages = {page for page, _, _ in SNIPPETS}
    assert {"README.md", "docs/guides/evaluate.md", "docs/guides/logs-rag.md"} <= pages


def test_a_wrong_import_fails(tmp_path, monkeypatch):
    """The old README's import, which no longer exists, fails when run as a snippet would."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ImportError):
        exec("from pooljudge.metrics.logs import latency_table", {})
