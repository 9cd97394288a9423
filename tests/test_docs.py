"""The manual (mkdocs.yml, docs/): its generated reference pages hold a section for every
command, sub-command, measure and pooling strategy, the measure sections are the text
``pooljudge eval --list-measures`` prints, every measure parameter is described, and the site
builds with ``mkdocs build --strict`` (nav entries of absent optional pages dropped, pages the
nav does not name listed under "More")."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pooljudge.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_gen" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


refpages = _load("refpages")
PAGES = refpages.pages()


def _sections(page: str) -> dict[str, str]:
    """Level-2 heading -> the text under it, of a generated page."""
    parts = re.split(r"^## (.+)$", PAGES[page], flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def _registered_measures() -> list[str]:
    import pooljudge.metrics  # noqa: F401
    from pooljudge.metrics.registry import names

    return names()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_its_reference_section(command):
    section = _sections("reference/commands.md").get(f"`pooljudge {command}`")
    assert section is not None and re.search(rf"usage:\s+pooljudge {re.escape(command)}\b", section)


def test_every_sub_command_has_its_reference_section():
    titles = [title for title, _ in refpages.command_parsers()]
    assert "pooljudge logs import" in titles and "pooljudge annotators add" in titles
    assert set(_sections("reference/commands.md")) == {f"`{t}`" for t in titles}


@pytest.mark.parametrize("name", _registered_measures())
def test_every_measure_has_its_section_as_list_measures_prints_it(name, capsys):
    section = _sections("reference/measures.md").get(name)
    assert section is not None
    assert main(["eval", "--list-measures", name]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed and printed in section


@pytest.mark.parametrize("name", _registered_measures())
def test_every_measure_and_parameter_is_described(name):
    from pooljudge.metrics.registry import Measure, spec_of

    spec = spec_of(Measure(name))
    undescribed = [p.name for p in spec.params if not p.description.strip()]
    assert spec.description.strip() and undescribed == []


def test_list_measures_refuses_an_unknown_name(capsys):
    assert main(["eval", "--list-measures", "NoSuchMeasure"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pooljudge: error: --list-measures: unknown measure")
    assert err.count("\n") == 1


def test_list_measures_accepts_a_trec_eval_name(capsys):
    assert main(["eval", "--list-measures", "ndcg_cut_10"]) == 0
    assert capsys.readouterr().out.startswith("nDCG[@k] — ")


def test_every_strategy_has_its_section():
    from pooljudge.pooling.strategies import REGISTRY

    sections = _sections("reference/strategies.md")
    assert set(sections) == set(REGISTRY)
    for name, strategy in REGISTRY.items():
        assert strategy.help in sections[name]
        for param in strategy.params:
            assert param.description and f"`{param.name}`" in sections[name]
            assert param.description in sections[name]


def test_the_api_page_names_modules_that_exist():
    for module in refpages.API_MODULES:
        assert f"::: {module}\n" in PAGES["reference/api.md"]
        assert importlib.util.find_spec(module) is not None, module


def test_the_nav_hook_drops_absent_pages_and_adds_unnamed_ones(tmp_path):
    hooks = _load("hooks")
    (tmp_path / "guides").mkdir()
    for page in ("index.md", "guides/a.md", "extra.md", "_gen/x.md"):
        (tmp_path / page).parent.mkdir(exist_ok=True)
        (tmp_path / page).write_text("# x\n")
    nav = [{"Home": "index.md"}, {"Guides": [{"A": "guides/a.md"}, {"Gone": "absent.md"}]},
           {"Only absent": ["absent2.md"]}, {"Ref": "reference/commands.md"}]
    kept = hooks._present(nav, tmp_path)
    assert kept == [{"Home": "index.md"}, {"Guides": [{"A": "guides/a.md"}]},
                    {"Ref": "reference/commands.md"}]
    assert hooks._unnamed(kept, tmp_path) == ["extra.md"]


def test_the_site_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "pooljudge.metrics.evaluate" in api
    measures = (tmp_path / "site" / "reference" / "measures" / "index.html").read_text()
    assert "precision at k" in measures


def test_the_readme_fits_a_screen_and_links_nothing_relative():
    """The README is the package index's page too: short, and no link or image that only
    resolves inside the repository."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    targets = re.findall(r"\]\(([^)]+)\)", text) + re.findall(r'src="([^"]+)"', text)
    assert [t for t in targets if not t.startswith(("https://", "http://"))] == []
