"""The RAG walkthrough (docs/rag_walkthrough.sh) runs from a generated log to the report, and
the lines the manual (docs/guides/logs-rag.md) quotes from it are what it prints: the billing
regression is flagged while the overall mean rose, and the report carries per-group and latency
sections."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _walk(folder: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(ROOT / "docs" / "rag_walkthrough.sh"), str(folder)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_the_walkthrough_runs_and_prints_what_the_manual_quotes(tmp_path):
    done = _walk(tmp_path)
    quoted = ("pooljudge compare: warning: regression in group 'category=billing' (measure "
              "nDCG@10, baseline bm25@v7.run, run hybrid@v8.run): mean fell by 0.3671 "
              "(Holm-adjusted p = 4.4e-05 over groups) while over all topics it rose by 0.0930")
    assert quoted in done.stderr
    assert quoted in (ROOT / "docs" / "guides" / "logs-rag.md").read_text(encoding="utf-8")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    for section in ("Per group", "Latency and precision", "▼ regression"):
        assert section in page


def test_the_walkthrough_runs_twice_in_the_same_folder_with_the_same_output(tmp_path):
    first = _walk(tmp_path)
    report = (tmp_path / "report.html").read_bytes()
    second = _walk(tmp_path)
    assert (second.stdout, second.stderr) == (first.stdout, first.stderr)
    assert (tmp_path / "report.html").read_bytes() == report
