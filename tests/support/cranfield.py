"""The Cranfield collection (POOLJUDGE_SHARED_DATA/cranfield) as files pooljudge reads.

Documents and topics become JSON Lines (topics numbered 1..225 by their position in cran.qry,
as cranqrel numbers them); cranqrel (``query doc grade``, 1 = most relevant … 4 = minimum
interest, -1 = not relevant) becomes TREC qrels with label 5 - grade for grades 1..4 and 0 for
-1, so "grade 1-3" is "label >= 2".
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

RELEVANT_LABEL = 2  # grades 1-3


def cranfield_dir() -> Path:
    """The Cranfield folder, or skip the test when POOLJUDGE_SHARED_DATA is unset."""
    root = os.environ.get("POOLJUDGE_SHARED_DATA")
    if not root or not (Path(root) / "cranfield" / "cranqrel").is_file():
        pytest.skip("POOLJUDGE_SHARED_DATA/cranfield is not available")
    return Path(root) / "cranfield"


def _records(text: str) -> list[tuple[str, dict[str, str]]]:
    """``.I n`` records with their ``.X`` fields."""
    out = []
    for chunk in re.split(r"^\.I\s+", text, flags=re.M)[1:]:
        number, _, body = chunk.partition("\n")
        fields = dict(re.findall(r"^\.([A-Z])\n(.*?)(?=^\.[A-Z]\n|\Z)", body, flags=re.M | re.S))
        out.append((number.strip(), {k: " ".join(v.split()) for k, v in fields.items()}))
    return out


def write_cranfield(folder: Path, out: Path) -> tuple[Path, Path, Path]:
    """(qrels, docs, topics) written under ``out``."""
    docs = [{"id": n, "title": f.get("T", ""), "text": f.get("W", "")}
            for n, f in _records((folder / "cran.all.1400").read_text())]
    topics = [{"id": str(i), "title": f.get("W", "")}
              for i, (_, f) in enumerate(_records((folder / "cran.qry").read_text()), start=1)]
    lines = []
    for line in (folder / "cranqrel").read_text().splitlines():
        if line.strip():
            query, doc, grade = line.split()
            label = 0 if int(grade) < 1 else 5 - int(grade)
            lines.append(f"{query} 0 {doc} {label}")
    paths = out / "cran.qrels", out / "cran.docs.jsonl", out / "cran.topics.jsonl"
    paths[0].write_text("\n".join(lines) + "\n")
    paths[1].write_text("".join(json.dumps(d) + "\n" for d in docs))
    paths[2].write_text("".join(json.dumps(t) + "\n" for t in topics))
    return paths
