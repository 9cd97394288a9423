"""MkDocs hooks (mkdocs.yml).

- The nav names a few pages other changes add (docs/trec_eval.md, ...); an entry whose page is
  not in docs/ yet is dropped, so `mkdocs build --strict` passes with or without them.
  Generated pages (reference/) are written later by mkdocs-gen-files and always kept. A page
  in docs/ that the nav does not name is added under "More", so none is left out.
- mkdocstrings reads the source statically, and the folders metrics/, pooling/, annotate/ sit
  at the repository's top while they install as pooljudge.metrics, ...: build/api-src/ gets the
  installed layout as symbolic links, from pyproject.toml's package-dir.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

API_SOURCE = Path("build") / "api-src"

GENERATED = "reference/"


def _present(item: Any, docs: Path) -> Any:
    """The nav item with absent pages removed (None when nothing of it is left)."""
    if isinstance(item, str):
        return item if item.startswith(GENERATED) or (docs / item).is_file() else None
    if isinstance(item, list):
        kept = [k for k in (_present(i, docs) for i in item) if k is not None]
        return kept or None
    if isinstance(item, dict):
        kept = {name: k for name, value in item.items()
                if (k := _present(value, docs)) is not None}
        return kept or None
    return item


def _installed_layout(root: Path) -> None:
    """root/build/api-src/pooljudge/: links to pooljudge/'s files plus one per package-dir
    folder installed inside it (pooljudge.metrics -> metrics/)."""
    target = root / API_SOURCE / "pooljudge"
    shutil.rmtree(target.parent, ignore_errors=True)
    target.mkdir(parents=True)
    for child in (root / "pooljudge").iterdir():
        (target / child.name).symlink_to(child.resolve())
    with (root / "pyproject.toml").open("rb") as handle:
        folders = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    for package, folder in folders.items():
        if package.count(".") == 1:
            (target / package.split(".")[1]).symlink_to((root / folder).resolve())


def _named(item: Any) -> set[str]:
    if isinstance(item, str):
        return {item}
    values = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
    return set().union(*(_named(value) for value in values))


def _unnamed(nav: list[Any], docs: Path) -> list[str]:
    """Pages of docs/ (not docs/_gen/) the nav does not name, sorted."""
    named = _named(nav)
    pages = (path.relative_to(docs).as_posix() for path in docs.rglob("*.md"))
    return sorted(page for page in pages if not page.startswith("_") and page not in named)


@event_priority(100)  # before mkdocstrings reads its paths
def on_config(config: Any) -> Any:
    docs = Path(config["docs_dir"])
    nav = _present(config["nav"], docs) or []
    extra = _unnamed(nav, docs)
    config["nav"] = [*nav, {"More": extra}] if extra else nav
    _installed_layout(Path(config["config_file_path"]).resolve().parent)
    return config
