"""Documents of the demo collection: the standard library's own documentation, read offline.

Two sources, both present on every CPython installation:

- ``pydoc_data.topics``: the language reference sections ``help()`` shows (id ``ref-<topic>``);
- the module docstrings of standard-library modules and their direct submodules, read from the
  source files with :func:`ast.get_docstring` — nothing is imported, so no module runs any code
  (id ``mod-<dotted.name>``).

Docstrings shorter than ``min_chars`` and the codec tables under ``encodings`` are left out: they
are boilerplate, not documents anyone would judge. The order is sorted by id, so the frame is
identical on every run of the same Python version.
"""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import sys
from collections.abc import Iterator

import pandas as pd

__all__ = ["stdlib_documents"]

# Packages whose members are test suites, tool internals or per-codec tables, not documentation.
_SKIPPED_PACKAGES = frozenset(
    {"test", "idlelib", "lib2to3", "encodings", "turtledemo", "ensurepip"})
# Modules that print or open things on import; we never import anything, but keep them out anyway.
_SKIPPED_MODULES = frozenset({"this", "antigravity", "__phello__"})


def stdlib_documents(*, min_chars: int = 120) -> pd.DataFrame:
    """Columns ``id, title, text``: one row per reference topic and per documented module."""
    rows = list(_reference_topics()) + list(_module_docstrings(min_chars))
    frame = pd.DataFrame(rows, columns=["id", "title", "text"])
    frame = frame.drop_duplicates("id").sort_values("id", kind="stable")
    return frame.reset_index(drop=True)


def _reference_topics() -> Iterator[tuple[str, str, str]]:
    """The language reference topics; the title is the text's first line (its heading)."""
    from pydoc_data.topics import topics

    for name, text in topics.items():
        body = text.strip()
        heading = body.splitlines()[0].strip() if body else name
        yield f"ref-{name}", heading, body


def _module_docstrings(min_chars: int) -> Iterator[tuple[str, str, str]]:
    for name in _module_names():
        docstring = _docstring(name)
        if docstring is not None and len(docstring) >= min_chars:
            first = docstring.strip().splitlines()[0].strip().rstrip(".")
            yield f"mod-{name}", f"{name} — {first}" if first else name, docstring.strip()


def _module_names() -> Iterator[str]:
    """Public top-level standard-library modules plus the direct submodules of its packages."""
    for name in sorted(sys.stdlib_module_names):
        if name.startswith("_") or name in _SKIPPED_MODULES or name in _SKIPPED_PACKAGES:
            continue
        spec = _find_spec(name)
        if spec is None:
            continue
        yield name
        for module in pkgutil.iter_modules(spec.submodule_search_locations or []):
            if not module.name.startswith("_") and module.name not in {"test", "tests"}:
                yield f"{name}.{module.name}"


def _find_spec(name: str):
    """The module's spec when it is pure Python source on this machine (else None)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return spec


def _docstring(name: str) -> str | None:
    """The module docstring parsed from source (never imported), or None when unreadable."""
    parent, _, child = name.rpartition(".")
    if parent:
        parent_spec = _find_spec(parent)
        if parent_spec is None:
            return None
        found = [m for m in pkgutil.iter_modules(parent_spec.submodule_search_locations or [])
                 if m.name == child]
        if not found:
            return None
        spec = found[0].module_finder.find_spec(name, None)  # type: ignore[call-arg]
        origin = getattr(spec, "origin", None)
    else:
        spec = _find_spec(name)
        origin = spec.origin if spec else None
    if not origin or not origin.endswith(".py"):
        return None
    try:
        with open(origin, encoding="utf-8") as handle:
            return ast.get_docstring(ast.parse(handle.read()))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
