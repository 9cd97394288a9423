"""One name on the shelf: the folders metrics/, pooling/ and annotate/ install inside
``pooljudge`` (setuptools package-dir), so pooljudge coexists with the package index's own
``pooling`` and ``annotate`` distributions and with a ``metrics.py`` in the working folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"pooljudge": "pooljudge", "metrics": "pooljudge.metrics",
           "pooling": "pooljudge.pooling", "annotate": "pooljudge.annotate"}
QRELS = "1 0 d1 1\n1 0 d2 0\n"
RUN = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n"


def test_every_source_folder_is_a_listed_package():
    """pyproject's explicit package list names every folder that holds Python files."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = set()
    for folder, name in FOLDERS.items():
        for path, dirs, files in os.walk(ROOT / folder):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if any(f.endswith(".py") for f in files):
                relative = Path(path).relative_to(ROOT / folder).parts
                found.add(".".join((name, *relative)))
    assert found == listed


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                    str(folder), str(ROOT)], check=True, capture_output=True, timeout=300)
    (built,) = folder.glob("pooljudge-*.whl")
    return built


def test_the_wheel_installs_one_top_level_name(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    tops = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert tops == {"pooljudge"}
    assert "pooljudge/annotate/app.py" in names
    assert any(n.startswith("pooljudge/annotate/app_pages/") for n in names)
    assert "pooljudge/annotate/ui/icon.png" in names


def _pooljudge(args: list[str], cwd: Path, extra_path: Path | None = None
               ) -> subprocess.CompletedProcess:
    env = {**os.environ}
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(extra_path),
                                                          env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "pooljudge", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_a_metrics_py_in_the_working_folder_changes_nothing(tmp_path):
    for shadow in ("metrics", "pooling", "annotate"):
        (tmp_path / f"{shadow}.py").write_text("raise SystemExit('the folder module ran')\n")
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    done = _pooljudge(["eval", "q.txt", "r.txt", "-m", "P@1", "--format", "tsv"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "r.txt\tall\tP@1\t1.0" in done.stdout.splitlines()
    pooled = _pooljudge(["pool", "r.txt", "--depth", "1"], tmp_path)
    assert pooled.returncode == 0, pooled.stderr


def test_the_index_pooling_and_annotate_packages_coexist(tmp_path):
    """The package index's ``pooling`` and ``annotate`` on the path first: pooljudge's commands
    still work (they used to import the wrong top-level packages)."""
    site = tmp_path / "site"
    got = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                          "--target", str(site), "pooling", "annotate"],
                         capture_output=True, text=True, timeout=300, check=False)
    if got.returncode != 0:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the package index could not be reached: {got.stderr[-500:]}")
        pytest.skip("the package index could not be reached")
    assert (site / "pooling").is_dir() and (site / "annotate").is_dir()
    (tmp_path / "r.txt").write_text(RUN)
    pooled = _pooljudge(["pool", "r.txt", "--depth", "1"], tmp_path, site)
    assert pooled.returncode == 0, pooled.stderr
    helped = _pooljudge(["campaigns", "--help"], tmp_path, site)
    assert helped.returncode == 0 and helped.stdout.startswith("usage:"), helped.stderr
    app = subprocess.run([sys.executable, "-c", "import pooljudge.annotate.app, sys; "
                          "print(sys.modules['pooljudge.annotate'].__file__)"],
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)},
                         capture_output=True, text=True, timeout=120, check=False)
    assert app.returncode == 0 and str(site) not in app.stdout, app.stderr


def test_no_installed_package_shadows_the_tests_helpers():
    """``tests`` is this folder alone: a dependency that installs a top-level ``tests`` package
    (tira, which autojudge-evaluate requires, does) would win over this namespace package in a
    process started with ``PYTHONPATH=.`` (the benchmarks, the e2e servers), so
    ``tests.support`` would not be found."""
    script = "import json, tests; print(json.dumps(list(tests.__path__)))"
    done = subprocess.run([sys.executable, "-c", script],
                          capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert {Path(p).resolve() for p in json.loads(done.stdout)} == {(ROOT / "tests").resolve()}
