"""Every command that reads a file, against a table of bad inputs: exit status 2, one stderr
line ``pooljudge: error: PATH[:LINE]: ...``, no traceback, nothing written (the output file or
the campaign database unchanged). A second table holds inputs that must be accepted (a UTF-8
byte-order mark, CRLF line ends, very long ids)."""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile.conftest import GOOD, run_inprocess, run_subprocess, snapshot

OWNED = pytest.mark.xfail(strict=True, reason="owned by import fixes")

# command -> (kind of the file replaced, argv builder(good folder, bad path, output, db url)).
# The output is the file a successful run would write: -o, --plot, or the database (.db).
Builder = Callable[[Path, str, str, str], list[str]]
COMMANDS: dict[str, tuple[str, Builder]] = {
    "eval/qrels": ("qrels", lambda g, b, o, d: ["eval", b, f"{g}/run_a", "-o", o]),
    "eval/run": ("run", lambda g, b, o, d: ["eval", f"{g}/qrels", b, f"{g}/run_a", "-o", o]),
    "eval/topic-groups": ("tgroups", lambda g, b, o, d: [
        "eval", f"{g}/qrels", f"{g}/run_a", "--topic-groups", b, "-o", o]),
    "pool/run": ("run", lambda g, b, o, d: ["pool", b, f"{g}/run_a", "--depth", "3", "-o", o]),
    "pool/exclude": ("qrels", lambda g, b, o, d: [
        "pool", f"{g}/run_a", "--exclude", b, "-o", o]),
    "simulate/qrels": ("qrels", lambda g, b, o, d: [
        "simulate", "orders", b, f"{g}/run_a", "--strategy", "rrf", "--plot", o]),
    "simulate/run": ("run", lambda g, b, o, d: [
        "simulate", "orders", f"{g}/qrels", b, f"{g}/run_a", "--strategy", "rrf", "--plot", o]),
    "bias/qrels": ("qrels", lambda g, b, o, d: [
        "bias", b, f"{g}/run_a", f"{g}/run_b", "--depth", "3", "-o", o]),
    "bias/run": ("run", lambda g, b, o, d: [
        "bias", f"{g}/qrels", b, f"{g}/run_a", "--depth", "3", "-o", o]),
    "bias/group-map": ("rgroups", lambda g, b, o, d: [
        "bias", f"{g}/qrels", f"{g}/run_a", f"{g}/run_b", "--depth", "3", "--group-map", b,
        "-o", o]),
    "compare/qrels": ("qrels", lambda g, b, o, d: [
        "compare", b, f"{g}/run_a", f"{g}/run_b", "-o", o]),
    "compare/run": ("run", lambda g, b, o, d: [
        "compare", f"{g}/qrels", b, f"{g}/run_a", "-o", o]),
    "compare/topic-groups": ("tgroups", lambda g, b, o, d: [
        "compare", f"{g}/qrels", f"{g}/run_a", f"{g}/run_b", "--topic-groups", b, "-o", o]),
    "correlate/qrels": ("qrels", lambda g, b, o, d: [
        "correlate", f"{g}/qrels", b, f"{g}/run_a", f"{g}/run_b", "-o", o]),
    "correlate/run": ("run", lambda g, b, o, d: [
        "correlate", f"{g}/qrels", f"{g}/qrels", b, f"{g}/run_a", "-o", o]),
    "report/qrels": ("qrels", lambda g, b, o, d: ["report", b, f"{g}/run_a", "-o", o]),
    "report/run": ("run", lambda g, b, o, d: ["report", f"{g}/qrels", b, f"{g}/run_a", "-o", o]),
    "report/topic-groups": ("tgroups", lambda g, b, o, d: [
        "report", f"{g}/qrels", f"{g}/run_a", f"{g}/run_b", "--topic-groups", b, "-o", o]),
    "report/latency": ("latency", lambda g, b, o, d: [
        "report", f"{g}/qrels", f"{g}/run_a", "--latency", b, "-o", o]),
    "report/units": ("units", lambda g, b, o, d: [
        "report", f"{g}/qrels", f"{g}/run_a", "--units", b, "-o", o]),
    "eval/units": ("units", lambda g, b, o, d: [
        "eval", f"{g}/qrels", f"{g}/run_a", "--units", b, "-o", o]),
    "compare-stages/qrels": ("qrels", lambda g, b, o, d: [
        "compare-stages", b, "--manifest", f"{g}/manifest", "-o", o]),
    "compare-stages/manifest": ("manifest", lambda g, b, o, d: [
        "compare-stages", f"{g}/qrels", "--manifest", b, "-o", o]),
    "compare-stages/topic-groups": ("tgroups", lambda g, b, o, d: [
        "compare-stages", f"{g}/qrels", "--manifest", f"{g}/manifest", "--topic-groups", b,
        "-o", o]),
    "logs sample": ("log", lambda g, b, o, d: ["logs", "sample", b, "--n", "2", "-o", o]),
    "logs import": ("log", lambda g, b, o, d: ["logs", "import", b, "--out", o]),
    "init/topics": ("topics", lambda g, b, o, d: _init(g, d, topics=b)),
    "init/docs": ("docs", lambda g, b, o, d: _init(g, d, docs=b)),
    "init/pool": ("pool", lambda g, b, o, d: _init(g, d, pool=b)),
    "init/scale": ("scale", lambda g, b, o, d: [*_init(g, d), "--scale", b]),
    "init/runs": ("run", lambda g, b, o, d: [*_init(g, d), "--runs", b, f"{g}/run_a"]),
    "judgments import": ("judgments", lambda g, b, o, d: [
        "judgments", "import", b, "--campaign", "demo", "--new-annotator", "llm", "--db", d]),
}
DATABASE_COMMANDS = {"judgments import"}  # write into the shared campaign database
FOLDER_COMMANDS = {"logs import"}  # write a new folder: it must not appear


def _init(good: Path, db: str, **given: str) -> list[str]:
    files = {"topics": f"{good}/topics", "docs": f"{good}/docs", "pool": f"{good}/pool", **given}
    return ["init", "fresh", "--topics", files["topics"], "--docs", files["docs"], "--pool",
            files["pool"], "--db", db]


# --- bad inputs: name -> {kind: (content, line named in the error or None)} -------------------

ALL_KINDS = ("qrels", "run", "tgroups", "rgroups", "topics", "docs", "pool", "scale", "judgments",
             "manifest", "log", "latency", "units")
LINE_KINDS = tuple(k for k in ALL_KINDS if k != "scale")
HEADER_KINDS = ("tgroups", "rgroups", "topics", "pool", "judgments", "manifest", "latency")
JSON_NUMBERS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity", "1e400": "1e400"}


def _everywhere(content: bytes, line: int | None = None, kinds=ALL_KINDS) -> dict:
    return {kind: (content, line) for kind in kinds}


def _second_line(lines: dict[str, str]) -> dict:
    """Each kind's good first data line, then the bad line (named as line 2, or 3 after a
    header)."""
    cases = {}
    for kind, bad in lines.items():
        first = GOOD[kind].splitlines(keepends=True)
        header = kind in HEADER_KINDS
        content = "".join(first[: 2 if header else 1]) + bad
        cases[kind] = (content.encode(), 3 if header else 2)
    return cases


BAD_INPUTS: dict[str, dict] = {
    "empty": _everywhere(b""),
    "whitespace": _everywhere(b"  \n\t\n\n"),
    "binary": _everywhere(bytes(range(256)) * 4),
    "invalid-utf8": {kind: ("\n".join(GOOD[kind].splitlines()[:1]).encode() + b"\n\xff\xfe\n",
                            2) for kind in LINE_KINDS},
    "10MB-line": _everywhere(b"x" * 10_000_000 + b"\n", 1, LINE_KINDS),
    "truncated-gzip": {k: (gzip.compress(GOOD[k].encode())[:-12], None) for k in ALL_KINDS},
    "gzip-of-garbage": _everywhere(b"\x1f\x8b\x08\x00" + b"garbage" * 20),
    "wrong-columns": _second_line({
        "qrels": "1 0 d9\n", "run": "1 Q0 d9 1 2.0\n", "tgroups": "2\n", "rgroups": "run_b\n",
        "topics": "4\tfour\n", "pool": "3\td9\t3\n", "judgments": "bob\t2\td1\n",
        "docs": '{"id": "d9"} trailing\n', "manifest": "run_c\n", "log": '{"query_id": "q9"}\n',
        "latency": "run_b\t1\n", "units": "d9\n"}),
    **{f"{value}-value": _second_line({
        "qrels": f"1 0 d9 {value}\n", "run": f"1 Q0 d9 7 {value} tag\n",
        "pool": f"3\td9\t{value}\t3\trun_a\n", "judgments": f"bob\t2\td2\t{value}\n",
        "log": f'{{"query_id": "q9", "latency_ms": {JSON_NUMBERS[value]}, "results": []}}\n'})
       for value in ("nan", "inf", "-inf", "1e400")},
    "huge-int": _second_line({
        "qrels": "1 0 d9 99999999999999999999999\n",
        "pool": "3\td9\t99999999999999999999999\t3\trun_a\n",
        "judgments": "bob\t2\td2\t99999999999999999999999\n"}),
    "huge-id-twice": _second_line({
        "run": "1 Q0 d1 9 0.5 tag\n".replace("d1", "d1" + "z" * 100_000) * 2,
        "qrels": "1 0 d1 1\n".replace("d1", "d1" + "z" * 100_000) * 2}),
    "json-not-object": {**_second_line({"docs": "[1, 2]\n", "judgments": "[1, 2]\n",
                                        "log": "[1, 2]\n"}),
                        "topics": (b'{"id": "1", "title": "one"}\n[1, 2]\n', 2)},
    "invalid-json": {**_second_line({"docs": '{"id": "d9", \n', "judgments": '{"topic": \n',
                                     "log": '{"query_id": \n'}),
                     "topics": (b'{"id": "1", "title": "one"}\n{"id": \n', 2)},
    "scale-not-labels": {"scale": (b'{"value": 0}\n', None)},
    "time-not-a-time": {"judgments": (
        b"annotator\ttopic\tdoc\tlabel\ttime\nbob\t1\td1\t1\tyesterday\n", 2)},
    "seconds-inf": {"judgments": (
        b"annotator\ttopic\tdoc\tlabel\tseconds\nbob\t1\td1\t1\tinf\n", 2)},
    "duplicate-header": {
        "pool": (b"topic\tdoc\torder\tbest_rank\truns\tdoc\n1\td1\t1\t1\trun_a\td2\n", 1),
        "topics": (b"id\ttitle\tid\n1\tone\t2\n", 1),
        "docs": (b"id\ttitle\ttext\ttitle\nd1\ta\tb\tc\n", 1),
        "judgments": (b"annotator\ttopic\tdoc\tlabel\tlabel\nbob\t1\td1\t1\t0\n", 1),
        "manifest": (b"run\tstage\trun\nrun_a\tretrieve\trun_b\n", 1),
    },
}
# The huge-id lines: the second repeats the first one's pair, so the error is on line 3.
for _kind in ("run", "qrels"):
    _content, _line = BAD_INPUTS["huge-id-twice"][_kind]
    BAD_INPUTS["huge-id-twice"][_kind] = (_content, _line + 1)

PATHS = {"directory", "dev-null", "missing"}  # bad paths rather than bad contents

# (command, input) cases the other helpers are fixing in the import reader right now.
OWNED_CASES: set[tuple[str, str]] = set()


def _cases() -> list:
    cases = []
    for command, (kind, _) in COMMANDS.items():
        for name in [*BAD_INPUTS, *sorted(PATHS)]:
            if name not in PATHS and kind not in BAD_INPUTS[name]:
                continue
            marks = [OWNED] if (command, name) in OWNED_CASES else []
            cases.append(pytest.param(command, name, id=f"{command}|{name}", marks=marks))
    return cases


CASES = _cases()
# A representative subset as real processes: one per reader kind, plus the path cases.
SUBPROCESS = [("eval/run", "binary"), ("pool/run", "wrong-columns"),
              ("simulate/run", "truncated-gzip"), ("report/qrels", "nan-value"),
              ("init/docs", "invalid-json"), ("init/pool", "duplicate-header"),
              ("init/topics", "directory"), ("bias/group-map", "missing"),
              ("judgments import", "dev-null"), ("logs import", "invalid-json"),
              ("compare-stages/manifest", "wrong-columns"), ("report/latency", "missing")]


def _bad_path(tmp_path: Path, kind: str, name: str) -> tuple[str, int | None]:
    if name == "directory":
        (tmp_path / "folder").mkdir()
        return str(tmp_path / "folder"), None
    if name == "dev-null":
        return "/dev/null", None
    if name == "missing":
        return str(tmp_path / "no-such-file"), None
    content, line = BAD_INPUTS[name][kind]
    path = tmp_path / f"bad-{kind}"
    path.write_bytes(content)
    return str(path), line


def _runs_beside(kind: str, good: Path, folder: Path) -> None:
    """A manifest names its runs relative to its folder: copy the good runs beside it."""
    if kind == "manifest":
        for run in ("run_a", "run_b"):
            shutil.copy(good / run, folder / run)


def _setup(command: str, name: str, good: Path, campaign_db: str, tmp_path: Path):
    kind, build = COMMANDS[command]
    bad, line = _bad_path(tmp_path, kind, name)
    _runs_beside(kind, good, tmp_path)
    if command in DATABASE_COMMANDS:
        db_file = Path(campaign_db.removeprefix("sqlite:///"))
        written, db = db_file, campaign_db
        out = str(tmp_path / "unused.tsv")
    elif command.startswith("init/"):
        written = tmp_path / "fresh.db"
        db, out = f"sqlite:///{written}", str(tmp_path / "unused.tsv")
    elif command in FOLDER_COMMANDS:
        written = tmp_path / "out.dir"
        db, out = "", str(written)
    else:
        written = tmp_path / "out.file"
        written.write_bytes(b"the old output\n")
        db, out = "", str(written)
    return build(good, bad, out, db), bad, line, written


def _check(status: int, err: str, bad: str, line: int | None, before, written: Path) -> None:
    assert "Traceback" not in err, err
    assert status == 2, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("pooljudge: error: "), err
    assert bad in err, err
    if line is not None:
        assert f"{bad}:{line}: " in err, err
    assert snapshot(written) == before


@pytest.mark.parametrize(("command", "name"), CASES)
def test_bad_input_is_one_error_line_and_writes_nothing(
        command, name, good, campaign_db, tmp_path, capsys):
    argv, bad, line, written = _setup(command, name, good, campaign_db, tmp_path)
    before = snapshot(written)
    capsys.readouterr()
    status = run_inprocess(argv)
    _check(status, capsys.readouterr().err, bad, line, before, written)


@pytest.mark.parametrize(("command", "name"), SUBPROCESS, ids=[f"{c}|{n}" for c, n in SUBPROCESS])
def test_bad_input_in_a_real_process(command, name, good, campaign_db, tmp_path):
    argv, bad, line, written = _setup(command, name, good, campaign_db, tmp_path)
    before = snapshot(written)
    done = run_subprocess(argv, tmp_path)
    _check(done.status, done.err, bad, line, before, written)


# --- inputs that must be accepted ------------------------------------------------------------

def _bom(text: str) -> bytes:
    return b"\xef\xbb\xbf" + text.encode()


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def _long_ids(kind: str) -> bytes:
    long_doc = "d1" + "z" * 100_000
    return GOOD[kind].replace("d1 ", f"{long_doc} ").replace("d1\t", f"{long_doc}\t").encode()


ACCEPTED = {"bom": _bom, "crlf": _crlf}
ACCEPTED_CASES = [pytest.param(c, n, id=f"{c}|{n}") for c in COMMANDS for n in ACCEPTED]
ACCEPTED_CASES += [pytest.param(c, "long-ids", id=f"{c}|long-ids")
                   for c in ("eval/run", "eval/qrels", "pool/run")]


@pytest.mark.parametrize(("command", "name"), ACCEPTED_CASES)
def test_good_input_with_bom_crlf_or_long_ids_is_accepted(
        command, name, good, campaign_db, tmp_path, capsys):
    kind, build = COMMANDS[command]
    path = tmp_path / f"ok-{kind}"
    content = _long_ids(kind) if name == "long-ids" else ACCEPTED[name](GOOD[kind])
    if kind == "run":
        content = content.replace(b"tag", b"run_c")
        path = tmp_path / "run_c"
    _runs_beside(kind, good, tmp_path)
    path.write_bytes(content)
    db = campaign_db
    if command.startswith("init/"):
        db = f"sqlite:///{tmp_path / 'fresh.db'}"
    elif command in DATABASE_COMMANDS:
        copy = tmp_path / "copy.db"
        shutil.copy(campaign_db.removeprefix("sqlite:///"), copy)
        db = f"sqlite:///{copy}"
    out = tmp_path / ("out.dir" if command in FOLDER_COMMANDS else "out.file")
    argv = build(good, str(path), str(out), db)
    status = run_inprocess(argv)
    err = capsys.readouterr().err
    assert status == 0 and "error" not in err, err


def test_the_table_is_large(request):
    """The number of (command x input) cases tried; printed with -rA."""
    count = len(CASES) + len(SUBPROCESS) + len(ACCEPTED_CASES)
    print(f"hostile cases: {len(CASES)} in-process, {len(SUBPROCESS)} subprocess, "
          f"{len(ACCEPTED_CASES)} accepted")
    assert count > 300
