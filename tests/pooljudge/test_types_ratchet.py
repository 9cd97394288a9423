"""Types checked: mypy's ratchet (``ignore_errors`` overrides in pyproject.toml) may list
annotate's modules still being annotated, never a module of a package `make test` type-checks
(pooljudge.metrics, .pooling, .formats, .cli and the others its mypy call names); their sources
carry no blanket ``# type: ignore`` (a specific ``# type: ignore[code]`` says which check it
silences)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = ("pooljudge.metrics", "pooljudge.pooling", "pooljudge.formats", "pooljudge.cli")
_BLANKET = re.compile(r"#\s*type:\s*ignore(?!\[)")


def _checked() -> list[str]:
    """The packages the Makefile's mypy call names (``-p``)."""
    call = re.search(r"mypy --config-file[^\n]*\\?\n?[^\n]*", (ROOT / "Makefile").read_text())
    assert call is not None, "the Makefile runs no mypy"
    return re.findall(r"-p (\S+)", call.group(0))


CHECKED = tuple(_checked())


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _ignored(config: dict) -> list[str]:
    """The module patterns of every mypy override that sets ``ignore_errors``."""
    overrides = config["tool"]["mypy"].get("overrides", [])
    found: list[str] = []
    for override in overrides:
        if override.get("ignore_errors"):
            modules = override["module"]
            found += [modules] if isinstance(modules, str) else modules
    return found


def _covers_checked(pattern: str) -> bool:
    """Whether a mypy module pattern (``a.b``, ``a.*``, ``a.*.c``) matches a checked module."""
    regex = re.compile(re.escape(pattern).replace(r"\.\*", r"(\..+)?") + "$")
    return any(regex.match(f"{package}.x") or regex.match(package) or
               pattern.startswith(package + ".") for package in CHECKED)


def _module_file(name: str, package_dir: dict[str, str]) -> Path | None:
    """The source file of module ``name`` by setuptools' package-dir, or None."""
    for package in sorted(package_dir, key=len, reverse=True):
        if name == package or name.startswith(package + "."):
            rest = name[len(package) + 1:].split(".") if name != package else []
            base = (ROOT / package_dir[package]).joinpath(*rest)
            for path in (base.with_suffix(".py"), base / "__init__.py"):
                if path.is_file():
                    return path
    return None


def test_no_checked_module_is_on_the_ratchet():
    """Not one module of metrics, pooling, formats or cli has its errors ignored."""
    assert [m for m in _ignored(_config()) if _covers_checked(m)] == []


@pytest.mark.parametrize("pattern", ["pooljudge.cli.eval_cmd", "pooljudge.metrics.*",
                                     "pooljudge.*", "pooljudge.formats"])
def test_a_planted_checked_module_is_found(pattern):
    """The check above sees a checked module however the override spells it."""
    config = {"tool": {"mypy": {"overrides": [
        {"module": ["pooljudge.annotate.store.undo"], "ignore_errors": True},
        {"module": pattern, "ignore_errors": True}]}}}
    assert [m for m in _ignored(config) if _covers_checked(m)] == [pattern]


def test_an_annotate_module_is_not_taken_for_a_checked_one():
    assert not _covers_checked("pooljudge.annotate.store.undo")
    assert not _covers_checked("pooljudge.annotate.*")


def test_every_remaining_ignore_names_a_module_that_exists():
    """The remaining list is honest: a module moved or deleted leaves the ratchet with it."""
    config = _config()
    package_dir = config["tool"]["setuptools"]["package-dir"]
    missing = [m for m in _ignored(config) if _module_file(m, package_dir) is None]
    assert missing == []


def test_make_test_type_checks_the_four_packages():
    """The Makefile's mypy call names metrics, pooling, formats and cli (``-p``)."""
    assert set(REQUIRED) <= set(CHECKED)


def test_checked_sources_carry_no_blanket_type_ignore():
    """A ``# type: ignore`` in the checked packages names its error code."""
    package_dir = _config()["tool"]["setuptools"]["package-dir"]
    blanket = []
    for package in CHECKED:
        for path in sorted((ROOT / package_dir.get(package, package.replace(".", "/")))
                           .rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if _BLANKET.search(line):
                    blanket.append(f"{path.relative_to(ROOT)}:{number}")
    assert blanket == []


def test_a_blanket_ignore_is_told_from_a_specific_one():
    assert _BLANKET.search("x = f()  # type: ignore")
    assert _BLANKET.search("x = f()  # type:ignore  # why")
    assert not _BLANKET.search("x = f()  # type: ignore[attr-defined]  # stub gap")
