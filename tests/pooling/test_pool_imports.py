"""``pooljudge pool`` loads no data-frame or scientific stack on its array paths: sampling
(``--sample``) and plain pooling in a static order without ``--stats`` are Arrow/numpy only, so
a sampled pool is written in a fraction of a second (issue #16). Each case runs a fresh
``python -X importtime -m pooljudge pool ...`` and reads the modules it imported from the
interpreter's own import log, so nothing the test itself imported can hide or add one."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = frozenset({"pandas", "scipy", "statsmodels", "sqlmodel", "sqlalchemy", "matplotlib",
                   "sklearn", "streamlit"})


def _pool(*argv: str) -> tuple[int, set[str], str]:
    """Run ``python -m pooljudge pool ARGV``: exit status, imported top-level packages, stderr."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "pooljudge", "pool", *argv],
                          capture_output=True, text=True, check=False, timeout=120)
    rows = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")]
    modules = {row[2].strip() for row in rows if len(row) == 3 and row[1].strip().isdigit()}
    errors = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    return done.returncode, {m.split(".")[0] for m in modules}, "\n".join(errors)


@pytest.fixture
def run_files(tmp_path, kit):
    return [str(path) for path in kit.tied_run_files(tmp_path / "runs", 3, 3)]


@pytest.mark.parametrize("options", [
    ["--sample", "pps(prior=ap,depth=8)", "--budget", "20", "--seed", "1"],
    ["--sample", "strata(3:1.0,8:0.5)", "--strategy", "borda"],
    ["--sample", "uniform(depth=8,rate=0.3)"],
    ["--depth", "8"],
    ["--depth", "8", "--strategy", "take@2", "--budget", "5", "--floor", "1"],
], ids=["pps", "strata", "uniform", "plain", "plain-budget"])
def test_pool_writes_its_file_without_pandas(tmp_path, run_files, options):
    out = tmp_path / "pool.tsv"
    status, packages, errors = _pool(*run_files, *options, "-o", str(out))
    assert status == 0, errors
    assert out.read_text(encoding="utf-8").startswith("topic\tdoc\torder\tbest_rank\truns\t")
    assert packages & HEAVY == set()
    assert {"numpy", "pyarrow"} <= packages  # the control: the log does list what was loaded
