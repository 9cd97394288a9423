"""Options are checked when the command line is parsed, before any work whose size they decide.

Each bad value: exit status 2, one line ``pooljudge: error: --option: reason``, and fast (the
cases that used to allocate without bound get a generous time limit, so CI is not flaky).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time

import pytest

from pooljudge.cli import main
from pooljudge.cli.options import int_range, open_unit, port, positive_int, probability, seed

BLOW_UP_SECONDS = 5.0
INIT = ("init", "c", "--topics", "t.tsv", "--docs", "d.jsonl", "--pool", "p.tsv")
POOL = ("pool", "run1")
TRUST = ("q.txt", "run1", "run2")
SIMULATE = ("simulate", "annotators", "--campaign", "c", "--truth", "q")

# (command line before the option, option, bad value, used to blow up)
CASES = [
    (INIT, "--scale", "0-100000000", True),
    (INIT, "--scale", "0-10000000", True),
    (INIT, "--scale", "0-100", False),
    (INIT, "--scale", "3-1", False),
    (INIT, "--scale", "big.json", True),
    (INIT, "--scale", "missing.json", False),
    (INIT, "--overlap", "0", False),
    (INIT, "--overlap", "100000000", True),
    (INIT, "--overlap", "2.5", False),
    (INIT, "--depth", "0", False),
    (INIT, "--depth", "1000000000000", True),
    (INIT, "--seed", "-1", False),
    (INIT, "--seed", str(2**64), False),
    (INIT, "--order", "bogus", False),
    (SIMULATE, "--annotators", "0", False),
    (SIMULATE, "--annotators", "1000000000", True),
    (SIMULATE, "--workers", "0", False),
    (SIMULATE, "--workers", "100000", True),
    (SIMULATE, "--error", "1.5", False),
    (SIMULATE, "--error", "nan", False),
    (SIMULATE, "--seed", "-1", False),
    (("agree", "--campaign", "c"), "--resamples", "-1", False),
    (("agree", "--campaign", "c"), "--resamples", "1000000000000", True),
    (("agree", "--campaign", "c"), "--confidence", "1", False),
    (("agree", "--campaign", "c"), "--confidence", "0", False),
    (("agree", "--campaign", "c"), "--seed", "-3", False),
    (("agree", "--campaign", "c"), "--relevant", "high", False),
    (("export", "--campaign", "c"), "--binarize", "1.5", False),
    (("adjudication", "list", "--campaign", "c"), "--min-spread", "0", False),
    (POOL, "--depth", "0", False),
    (POOL, "--depth", "10000000000000", True),
    (POOL, "--budget", "0", False),
    (POOL, "--floor", "-1", False),
    (POOL, "--seed", "-1", False),
    (("simulate", "orders", "q.txt", "run1"), "--rel", "x", False),
    (("simulate", "orders", "q.txt", "run1"), "--depth", "0", False),
    (("report", *TRUST, "-o", "r.html"), "--pool-depth", "0", False),
    (("report", *TRUST, "-o", "r.html"), "--rbp-p", "1", False),
    (("report", *TRUST, "-o", "r.html"), "--rbp-p", "inf", False),
    (("bias", *TRUST), "--depth", "0", False),
    (("bias", *TRUST, "--depth", "10"), "--group-prefix", "0", False),
    (("compare", *TRUST), "--resamples", "0", False),
    (("compare", *TRUST), "--resamples", "10000000000", True),
    (("compare", *TRUST), "--seed", "-1", False),
    (("autojudge", "--campaign", "c"), "--concurrency", "0", False),
    (("autojudge", "--campaign", "c"), "--concurrency", "100000000", True),
    (("autojudge", "--campaign", "c"), "--limit", "0", False),
    (("autojudge", "--campaign", "c"), "--max-attempts", "1000", False),
    (("autojudge", "--campaign", "c"), "--timeout", "-1", False),
    (("serve",), "--pool-size", "0", False),
    (("serve",), "--port", "0", False),
    (("serve",), "--port", "70000", False),
    (("demo", "--no-serve"), "--port", "0", False),
]


def _id(case: tuple) -> str:
    prefix, option, value, _ = case
    return f"{prefix[0]} {option} {value}"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty working folder with ``big.json``, a scale of 101 labels; no process may start
    (a port that slipped through would launch the server)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a bad option must fail before any process starts")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.chdir(tmp_path)
    labels = [{"value": v, "name": f"grade {v}"} for v in range(101)]
    (tmp_path / "big.json").write_text(json.dumps(labels), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("prefix", "option", "value", "blow_up"), CASES,
                         ids=[_id(c) for c in CASES])
def test_a_bad_option_fails_at_once_in_one_line(folder, capsys, prefix, option, value, blow_up):
    started = time.perf_counter()
    status = main([*prefix, option, value])
    elapsed = time.perf_counter() - started
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"pooljudge: error: {option}: "), err
    if blow_up:
        assert elapsed < BLOW_UP_SECONDS
    assert sorted(p.name for p in folder.iterdir()) == ["big.json"]  # no database, no output


@pytest.mark.parametrize(("check", "good", "bad"), [
    (positive_int(10), {"1": 1, "10": 10, " 7 ": 7, "+3": 3}, ["0", "11", "-1", "2.0", "1e3",
                                                                "", "x", "9" * 30]),
    (int_range(-2, 2), {"-2": -2, "0": 0, "2": 2}, ["-3", "3"]),
    (int_range(), {"-99": -99, "12345": 12345}, ["1.5", "0x10"]),
    (seed, {"0": 0, str(2**32 - 1): 2**32 - 1}, ["-1", str(2**32)]),
    (port, {"1": 1, "65535": 65535}, ["0", "65536"]),
    (probability, {"0": 0.0, "1": 1.0, "0.25": 0.25}, ["-0.1", "1.01", "nan", "inf", "half"]),
    (open_unit, {"0.5": 0.5, "0.999": 0.999}, ["0", "1", "nan", "-inf"]),
], ids=["positive_int", "int_range", "any_int", "seed", "port", "probability", "open_unit"])
def test_checkers_accept_exactly_their_range(check, good, bad):
    assert {text: check(text) for text in good} == good
    for text in bad:
        with pytest.raises(argparse.ArgumentTypeError):
            check(text)
