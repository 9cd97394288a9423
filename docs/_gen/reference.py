"""mkdocs-gen-files script (mkdocs.yml): writes the generated reference pages of refpages.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import mkdocs_gen_files

_spec = importlib.util.spec_from_file_location("refpages", Path(__file__).with_name("refpages.py"))
assert _spec is not None and _spec.loader is not None
refpages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(refpages)

for path, text in refpages.pages().items():
    with mkdocs_gen_files.open(path, "w") as handle:
        handle.write(text)
