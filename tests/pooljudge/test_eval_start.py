"""``pooljudge eval`` in a fresh process starts lean: numpy's OpenBLAS without its busy-waiting
threads unless the user asked for them, and the garbage collector on again once imports are done."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = ("import gc, os, sys; from pooljudge.cli import main; "
        "main(['eval', sys.argv[1], sys.argv[2], '-m', 'P@1', '--format', 'tsv']); "
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), gc.isenabled())")


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("3", "3")])
def test_blas_threads_default_to_one_and_a_given_setting_stands(tmp_path, given, expected):
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 t\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", CODE, str(tmp_path / "q.txt"),
                          str(tmp_path / "r.txt")], capture_output=True, text=True, check=True,
                         env=env).stdout
    assert out.splitlines()[-1] == f"{expected} True"


PRELS_CODE = ("import sys; from pooljudge.cli import main; "
              "main(['eval', sys.argv[1], sys.argv[2], '--prels', sys.argv[3], '-m', 'statAP', "
              "'-m', 'P@1', '--se', '--format', sys.argv[4]]); "
              "print('pandas' in sys.modules)")


@pytest.mark.parametrize("fmt", ["tsv", "json", "table"])
def test_estimates_with_standard_errors_need_no_pandas(tmp_path, fmt):
    """The SEs' text, in every format, is built from the results' arrays."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n1 Q0 c 3 0 t\n")
    (tmp_path / "p.tsv").write_text("topic\tdoc\tlabel\tstratum\tinclusion\n"
                                    "1\ta\t1\t1\t0.5\n1\tb\t0\t1\t0.5\n1\tc\t\t1\t0.5\n"
                                    "1\td\t\t1\t0.5\n")
    out = subprocess.run([sys.executable, "-c", PRELS_CODE, str(tmp_path / "q.txt"),
                          str(tmp_path / "r.txt"), str(tmp_path / "p.tsv"), fmt],
                         capture_output=True, text=True, check=True).stdout
    assert "statAP" in out and "ci_low" in out
    assert out.splitlines()[-1] == "False"
