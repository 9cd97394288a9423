"""``--units FILE --level doc|chunk`` on ``eval``, ``pool`` and ``report``, and the NumRet and
short@k counts in their tables: each level's numbers equal those of the same data written out
at that level by hand."""

from __future__ import annotations

import html
import re

import pytest

from pooljudge.cli import main
from pooljudge.formats.trec import read_pool

UNITS = """\
chunk\tdoc
d1#1\tD1
d1#2\tD1
d1#3\tD1
d2#1\tD2
d2#2\tD2
d3#1\tD3
d4#1\tD4
d4#2\tD4
zA\tA
aB\tB
"""
# Topic 1: D4's best chunk is deepest; zA and aB tie (the documents A and B, B first). Topic 2:
# two chunks. Topic 3 is judged but missing from the runs.
CHUNK_RUN = """\
1 Q0 d2#2 1 0.9 c
1 Q0 d1#3 2 0.8 c
1 Q0 d4#2 3 0.1 c
1 Q0 d1#1 4 0.8 c
1 Q0 d3#1 5 0.7 c
1 Q0 d2#1 6 0.7 c
1 Q0 zA 7 0.65 c
1 Q0 aB 8 0.65 c
1 Q0 d1#2 9 0.5 c
2 Q0 d4#1 1 3 c
2 Q0 d2#1 2 2 c
"""
DOC_RUN = """\
1 Q0 D2 1 0.9 d
1 Q0 D1 2 0.8 d
1 Q0 D3 3 0.7 d
1 Q0 B 4 0.65 d
1 Q0 A 5 0.65 d
1 Q0 D4 6 0.1 d
2 Q0 D4 1 3 d
2 Q0 D2 2 2 d
"""
DOC_QRELS = "1 0 D1 2\n1 0 D4 1\n1 0 A 1\n1 0 D3 0\n2 0 D2 1\n3 0 D2 1\n"
CHUNK_QRELS = "1 0 d1#1 1\n1 0 d1#3 0\n1 0 d4#2 2\n1 0 zA 1\n2 0 d2#2 1\n3 0 d2#1 1\n"
# CHUNK_QRELS aggregated by hand: D1 max(1, 0), D4 2, A 1; D2 1 in topics 2 and 3.
AGGREGATED = "1 0 D1 1\n1 0 D4 2\n1 0 A 1\n2 0 D2 1\n3 0 D2 1\n"
# DOC_QRELS applied to every chunk by hand.
EXPANDED = ("1 0 d1#1 2\n1 0 d1#2 2\n1 0 d1#3 2\n1 0 d4#1 1\n1 0 d4#2 1\n1 0 zA 1\n1 0 d3#1 0\n"
            "2 0 d2#1 1\n2 0 d2#2 1\n3 0 d2#1 1\n3 0 d2#2 1\n")
MEASURES = ["-m", "P@1 P@3 P@5 AP nDCG@5 RR R@5 Judged@5 RBP(p=0.5)"]


@pytest.fixture
def files(tmp_path):
    """Paths by name; the runs sit in folders of their own so that converted and hand-written
    runs share the name ``sys``."""
    texts = {"units": UNITS, "chunks/sys": CHUNK_RUN, "docs/sys": DOC_RUN, "other/docrun":
             DOC_RUN, "doc_qrels": DOC_QRELS, "chunk_qrels": CHUNK_QRELS,
             "aggregated": AGGREGATED, "expanded": EXPANDED}
    paths = {}
    for name, text in texts.items():
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths[name] = str(path)
    return paths


def _eval(capsys, *argv) -> tuple[str, str]:
    assert main(["eval", *argv]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


@pytest.mark.parametrize(("qrels", "by_hand"), [("doc_qrels", "doc_qrels"),
                                                ("chunk_qrels", "aggregated")])
@pytest.mark.parametrize("fmt", ["tsv", "json", "table"])
def test_eval_at_document_level_equals_the_document_run_by_hand(files, capsys, qrels, by_hand,
                                                                fmt):
    ours, err = _eval(capsys, files[qrels], files["chunks/sys"], "--units", files["units"],
                      "--level", "doc", "--per-topic", "--format", fmt, *MEASURES)
    theirs, _ = _eval(capsys, files[by_hand], files["docs/sys"], "--per-topic", "--format",
                      fmt, *MEASURES)
    if fmt == "table":  # the legend names the level
        assert ours.endswith("; evaluated at document level (--units)\n")
        ours = ours.replace("; evaluated at document level (--units)", "")
    assert ours == theirs
    assert "ASSUMPTION" not in err
    if qrels == "chunk_qrels":
        assert "4 of 5 judged document(s) have unjudged chunks" in err  # all but A


def test_eval_default_level_is_the_qrels_level(files, capsys):
    by_docs, _ = _eval(capsys, files["doc_qrels"], files["chunks/sys"], "--units", files["units"],
                       "--format", "tsv")
    assert by_docs == _eval(capsys, files["doc_qrels"], files["docs/sys"], "--format", "tsv")[0]
    by_chunks, err = _eval(capsys, files["chunk_qrels"], files["chunks/sys"], "--units",
                           files["units"], "--format", "tsv")
    assert by_chunks == _eval(capsys, files["chunk_qrels"], files["chunks/sys"], "--format",
                              "tsv")[0]
    assert "ASSUMPTION" not in err and "chunks" not in err  # nothing moved between levels


def test_eval_at_chunk_level_applies_document_labels_once_stated(files, capsys, tmp_path):
    second = tmp_path / "chunks" / "sys2"
    second.write_text(CHUNK_RUN.replace("0.9", "0.1"), encoding="utf-8")
    ours, err = _eval(capsys, files["doc_qrels"], files["chunks/sys"], str(second), "--units",
                      files["units"], "--level", "chunk", "--per-topic", "--format", "tsv",
                      *MEASURES)
    theirs, _ = _eval(capsys, files["expanded"], files["chunks/sys"], str(second),
                      "--per-topic", "--format", "tsv", *MEASURES)
    assert ours == theirs
    assert err.count("ASSUMPTION: every chunk of a judged document has the document's label") == 1


def test_pool_levels(files):
    def pool(*argv):
        out = files["units"] + ".pool"
        assert main(["pool", *argv, "--depth", "4", "-o", out]) == 0
        return read_pool(out)

    at_docs = pool(files["chunks/sys"], "--units", files["units"], "--level", "doc")
    by_hand = pool(files["docs/sys"])
    assert at_docs.equals(by_hand)  # the top 4 documents: D2 D1 D3 B; topic 2: D4 D2
    assert set(at_docs[at_docs["topic"] == "1"]["doc"]) == {"D2", "D1", "D3", "B"}
    at_chunks = pool(files["chunks/sys"], "--units", files["units"])  # every run ranks chunks
    assert at_chunks.equals(pool(files["chunks/sys"]))
    assert set(at_chunks[at_chunks["topic"] == "1"]["doc"]) == {"d2#2", "d1#3", "d1#1", "d3#1"}
    mixed = pool(files["chunks/sys"], files["other/docrun"], "--units", files["units"])
    assert set(mixed["doc"]) <= {"D1", "D2", "D3", "D4", "A", "B"}  # a document run: doc level
    assert mixed.loc[mixed["doc"] == "B", "runs"].tolist() == ["docrun,sys"]
    excluded = pool(files["chunks/sys"], "--units", files["units"], "--level", "doc",
                    "--exclude", files["chunk_qrels"])
    assert set(zip(excluded["topic"], excluded["doc"], strict=True)) == {
        ("1", "D2"), ("1", "D3"), ("1", "B"), ("2", "D4")}  # D1 judged through d1#1, d1#3


def _report(files, capsys, *argv) -> tuple[str, str]:
    out = files["units"] + ".html"
    assert main(["report", *argv, "-o", out]) == 0
    with open(out, encoding="utf-8") as handle:
        return handle.read(), capsys.readouterr().err


def _cells(page: str, section: str) -> dict[str, str]:
    """The first table of a section as {column: first row's cell}."""
    part = page[page.index(f'<section id="{section}">'):]
    part = part[:part.index("</section>")]
    heads = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", part)]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", part)
    return dict(zip(heads, cells[:len(heads)], strict=True))


def test_report_shows_both_levels_side_by_side(files, capsys):
    page, err = _report(files, capsys, files["doc_qrels"], files["chunks/sys"], "--units",
                        files["units"], "-m", "P@3 AP")
    levels = _cells(page, "levels")
    at_doc, _ = _eval(capsys, files["doc_qrels"], files["docs/sys"], "-m", "P@3 AP",
                      "--format", "tsv")
    at_chunk, _ = _eval(capsys, files["expanded"], files["chunks/sys"], "-m", "P@3 AP",
                        "--format", "tsv")
    for level, text in (("document", at_doc), ("chunk", at_chunk)):
        values = dict(line.split("\t")[2:] for line in text.splitlines()[1:])
        assert levels[f"P@3 {level}"] == f"{float(values['P@3']):.4f}"
        assert levels[f"AP {level}"] == f"{float(values['AP']):.4f}"
        assert levels[f"NumRet {level}"] == str(int(float(values["NumRet"])))
        assert levels[f"short@3 {level}"] == str(int(float(values["short@3"])))
    assert levels["NumRet chunk"] == "11" and levels["NumRet document"] == "8"
    assert levels["short@3 document"] == "2"  # topic 2 returned 2 documents, topic 3 none
    means = _cells(page, "means")  # the sections at the qrels' level: documents
    assert means["NumRet"] == "8" and means["short@3"] == "2"
    assert "level: document (--units" in page
    assert "ASSUMPTION" in page and err.count("ASSUMPTION") == 1


def test_report_at_one_level(files, capsys):
    page, err = _report(files, capsys, files["chunk_qrels"], files["other/docrun"],
                        files["chunks/sys"], "--units", files["units"], "--level", "doc")
    assert '<section id="levels">' not in page and "level: document" in page
    assert "ASSUMPTION" not in err


BAD = [  # (options, extra run, message)
    (["--level", "doc"], None, "--level needs --units FILE"),
    (["--units", "{units}", "--level", "chunk"], "{other/docrun}",
     "run docrun ranks documents: it cannot be used at chunk level"),
    (["--units", "{bad_units}"], None, "{bad_units}:3: chunk 'd1#1' is mapped to two "
                                       "documents: 'D1' (line 2) and 'D2'"),
    (["--units", "{units}", "--level", "doc"], "{ghost}",  # a chunk run moved to documents
     "ghost: chunk ghost#1 (topic 1) is not in the unit map"),
    (["--units", "{units}"], "{mixed}", "run mixed mixes chunk ids (d1#1) and document ids (D2)"),
    (["--units", "{units}"], "{stranger}", "none of the ids of run stranger is a chunk or a "
                                           "document of the unit map"),
]
COMMANDS = {
    "eval": lambda f, runs, options: ["eval", f["doc_qrels"], *runs, *options],
    "pool": lambda f, runs, options: ["pool", *runs, *options],
    "report": lambda f, runs, options: ["report", f["doc_qrels"], *runs, *options,
                                        "-o", f["units"] + ".html"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(("options", "run", "message"), BAD, ids=[m[:24] for *_, m in BAD])
def test_bad_units_input_is_one_line(files, capsys, tmp_path, command, options, run, message):
    more = {"bad_units": "chunk doc\nd1#1 D1\nd1#1 D2\n",
            "ghost": "1 Q0 d1#1 1 2 g\n1 Q0 ghost#1 2 1 g\n",
            "mixed": "1 Q0 d1#1 1 1 m\n1 Q0 D2 2 0.5 m\n", "stranger": "1 Q0 who 1 1 s\n"}
    for name, text in more.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        files[name] = str(tmp_path / name)
    runs = [files["chunks/sys"], *([run.format(**files)] if run else [])]
    argv = COMMANDS[command](files, runs, [part.format(**files) for part in options])
    assert main(argv) == 2
    err = capsys.readouterr().err
    *warnings, error = err.splitlines()  # warnings may come first (the assumption, say)
    assert error.startswith("pooljudge: error: ") and "error" not in "".join(warnings), err
    assert message.format(**files) in error
    assert "Traceback" not in err


@pytest.mark.parametrize("option", ["--prels", "--provenance"])
def test_eval_refuses_pair_files_of_one_level(files, capsys, option):
    assert main(["eval", files["doc_qrels"], files["chunks/sys"], "--units", files["units"],
                 option, files["doc_qrels"], "-m", "statAP" if option == "--prels" else "AP"]
                ) == 2
    assert f"{option} cannot be combined with --units" in capsys.readouterr().err


def test_simulate_refuses_units(files, capsys):
    assert main(["simulate", "orders", files["doc_qrels"], files["docs/sys"], "--units",
                 files["units"]]) == 2
    assert "unrecognized arguments: --units" in capsys.readouterr().err


def test_counts_in_the_eval_table(files, capsys):
    out, _ = _eval(capsys, files["doc_qrels"], files["docs/sys"], "-m", "P@2 R@6",
                   "--per-topic")
    header, *rows = out.splitlines()
    assert header.split() == ["run", "topic", "P@2", "R@6", "NumRet", "short@2", "short@6",
                              "unjudged@10"]
    table = {row.split()[1]: row.split() for row in rows[:4]}
    assert table["1"][4:7] == ["6", "0", "0"]  # exactly 6 returned: not short of 6
    assert table["2"][4:7] == ["2", "0", "1"]
    assert table["3"][4:7] == ["0", "1", "1"]  # missing from the run: returned nothing
    assert table["all"][4:7] == ["8", "1", "2"]


def test_hostile_ids_stay_text_in_the_report(tmp_path, capsys):
    evil = "<script>x</script>&amp;"
    (tmp_path / "units").write_text(f"c1{evil} D{evil}\nc2 E\n", encoding="utf-8")
    (tmp_path / "qrels").write_text(f"1 0 D{evil} 1\n", encoding="utf-8")
    run = tmp_path / f"run{evil.replace('/', '_')}"
    run.write_text(f"1 Q0 c1{evil} 1 2 t\n1 Q0 c2 2 1 t\n", encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "qrels"), str(run), "--units",
                 str(tmp_path / "units"), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<script" not in page and html.escape(run.name) in page
    assert _cells(page, "levels")["P@10 document"] == "0.1000"
