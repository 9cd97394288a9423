"""``logs import`` and ``logs sample`` share one rule for a query logged with two categories
(the first logged value, a warning either way); group values lose their end blanks as the
warning says (the same rule for strata); a gzip log with malformed lines gives one line, never
a crash (fuzzed)."""

from __future__ import annotations

import gzip
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pooljudge.cli import main
from tests.support.logs import write_jsonl

SEVERAL = ("1 query id(s) are logged with several values of category (e.g. q1): each is counted "
           "in its first")


def _records() -> list[dict]:
    return [{"query_id": "q1", "query": "a", "category": "billing", "config": "bm25",
             "results": [{"id": "d1", "score": 1.0}]},
            {"query_id": "q2", "query": "b", "category": " returns\t", "config": "bm25",
             "results": [{"id": "d2", "score": 1.0}]},
            {"query_id": "q1", "query": "a", "category": "shipping", "config": "bm25",
             "results": [{"id": "d3", "score": 1.0}]}]


def test_import_and_sample_put_a_two_category_query_in_its_first(tmp_path, capsys):
    log = write_jsonl(tmp_path / "log.jsonl", _records(), gz=False)
    assert main(["logs", "import", str(log), "--out", str(tmp_path / "out")]) == 0
    imported = capsys.readouterr().err
    groups = (tmp_path / "out" / "topic-groups.tsv").read_text(encoding="utf-8").splitlines()
    assert groups == ["topic group", "q1 category=billing", "q2 category=returns"]
    assert main(["logs", "sample", str(log), "--n", "2", "--stratify", "category", "-o",
                 str(tmp_path / "topics.tsv")]) == 0
    captured = capsys.readouterr()
    sampled, table = captured.err, captured.out
    assert SEVERAL in imported and SEVERAL in sampled
    strata = {line.split()[0]: line.split()[1] for line in table.splitlines()[1:]}
    assert strata["billing"] == "1"  # q1 counted once, in its first category (stratum queries)
    assert "shipping" not in table  # q1 is not counted in its second category


def test_the_blanks_warning_says_what_is_written(tmp_path, capsys):
    log = write_jsonl(tmp_path / "log.jsonl", _records(), gz=False)
    assert main(["logs", "import", str(log), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert ("1 query id(s) have a category value with tabs, line breaks or blanks at its ends: "
            "read as one line, the ends removed, a blank value as none (e.g. q2)") in err
    text = (tmp_path / "out" / "topic-groups.tsv").read_text(encoding="utf-8")
    assert "category=returns\n" in text and "= " not in text and "\t" not in text


_LINE = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=40).map(str.encode),
    st.sampled_from([b"{", b"[]", b"null", b'{"query_id": 1}', b'{"query_id": "q", "results": 3}',
                     b'{"query_id": "q", "results": [{"id": null}]}', b"\xff\xfe", b"\x00",
                     b'{"query_id": "q", "latency_ms": -1, "results": []}']),
)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bad=st.lists(_LINE, min_size=1, max_size=3), at=st.integers(0, 3),
       truncate=st.booleans())
def test_a_gzip_log_with_malformed_lines_is_one_line_or_imported(tmp_path_factory, capsys,
                                                                 bad, at, truncate):
    folder = tmp_path_factory.mktemp("fuzz")
    good = [json.dumps(r).encode() for r in _records()]
    lines = good[:at] + bad + good[at:]
    data = gzip.compress(b"\n".join(lines) + b"\n")
    log = folder / "log.jsonl.gz"
    log.write_bytes(data[: len(data) // 2] if truncate else data)
    out = folder / "out"
    capsys.readouterr()
    status = main(["logs", "import", str(log), "--out", str(out)])
    err = capsys.readouterr().err
    if status == 0:
        assert (out / "topic-groups.tsv").exists()
    else:
        assert status == 2 and not out.exists()
        assert err.startswith(f"pooljudge: error: {log}") and err.count("\n") == 1, err
