"""A campaign's judgments as a Hugging Face dataset on disk, in the Hub's layout.

``DIR/<config>/test-00000-of-00001.parquet`` for each table (qrels, topics, judgments,
provenance...) and ``DIR/README.md``, the dataset card: a YAML header whose ``configs:`` list
maps each config to its Parquet file (so ``datasets.load_dataset(DIR, "qrels")`` reads it, and
the Hub shows it), with license, task and size tags, then prose: the campaign, its scale and
consensus policy, counts, agreement, and what each config's columns mean. Written with pyarrow
alone (no ``datasets`` at run time).

Atomic: everything is written into a temporary sibling directory, which is then renamed onto
``DIR``; an existing non-empty ``DIR`` is refused unless ``force`` (then it is replaced whole,
and removed only once the new one is in place). Untrusted text (campaign name, labels' names,
ids) reaches the card only escaped: as a JSON string in the YAML header, Markdown-escaped in
the prose.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pooljudge.errors import InputError, UsageError
from pooljudge.formats.files import PathLike, atomic_writer

__all__ = ["SPLIT", "CardFacts", "check_hf_target", "dataset_card", "parquet_path",
           "write_hf_dataset"]

SPLIT = "test"  # an evaluation collection's one split, as BEIR and MTEB name it
_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")  # inline markup; <, > and & are HTML-escaped
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
          (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"))


@dataclass(frozen=True)
class CardFacts:
    """What the card says besides the tables: the campaign, its label scale, the consensus
    policy, ``counts`` (name -> number, in order), ``agreement`` (name -> value, None when
    undefined; empty: not computed), the ``license`` tag and a ``description`` of each config
    (config -> one sentence)."""

    campaign: str
    scale: Sequence[int]
    policy: str
    counts: Mapping[str, int]
    agreement: Mapping[str, float | int | None] = field(default_factory=dict)
    license: str = "other"
    descriptions: Mapping[str, str] = field(default_factory=dict)
    tool: str = "pooljudge"


def parquet_path(config: str) -> str:
    """A config's file inside the dataset directory (the Hub's ``<config>/<split>-*`` name)."""
    return f"{config}/{SPLIT}-00000-of-00001.parquet"


def check_hf_target(path: PathLike, *, force: bool) -> Path:
    """The target directory, refused (UsageError) when it is a file, its parent is missing, or
    it is a non-empty directory and not ``force``; checked before anything is computed."""
    target = Path(path)
    if not str(path).strip() or str(path) == "-":
        raise UsageError(f"{path!r}: not a directory name")
    if target.exists() and not target.is_dir():
        raise UsageError(f"{path}: exists and is not a directory")
    if not target.absolute().parent.is_dir():
        raise UsageError(f"{path}: no such directory: {target.absolute().parent}")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise UsageError(f"{path}: the directory is not empty (--force replaces it)")
    return target


def write_hf_dataset(path: PathLike, tables: Mapping[str, pd.DataFrame], facts: CardFacts, *,
                     force: bool = False) -> Path:
    """Write ``tables`` (config -> frame; the first is the default config) and their card to
    ``path``, atomically (module docstring). The path written; UsageError as
    :func:`check_hf_target`, InputError when the disk refuses a write."""
    target = check_hf_target(path, force=force)
    parent = target.absolute().parent
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror or exc}", path=parent) from None
    try:
        for config, frame in tables.items():
            file = staging / parquet_path(config)
            file.parent.mkdir()
            pq.write_table(_arrow_table(frame), file)
        with atomic_writer(staging / "README.md") as handle:
            handle.write(dataset_card(tables, facts))
        _swap(staging, target)
    except OSError as exc:
        raise InputError(f"cannot write the dataset: {exc.strerror or exc}", path=path) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _swap(staging: Path, target: Path) -> None:
    """Rename ``staging`` onto ``target``: an empty or missing target at once; a full one is
    first renamed aside and removed after."""
    if not target.exists() or not any(target.iterdir()):
        os.replace(staging, target)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=staging.parent))
    os.replace(target, aside / "previous")
    try:
        os.replace(staging, target)
    except OSError:
        os.replace(aside / "previous", target)  # put it back
        raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _arrow_table(frame: pd.DataFrame) -> pa.Table:
    """The frame as Arrow columns: text as strings, nullable integers with nulls."""
    table = pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False)
    return table.replace_schema_metadata(None)  # no pandas metadata: plain columns to readers


def dataset_card(tables: Mapping[str, pd.DataFrame], facts: CardFacts) -> str:
    """The README.md: YAML header (configs, license, tags), then the prose (module docstring)."""
    return _header(tables, facts) + _prose(tables, facts)


def _header(tables: Mapping[str, pd.DataFrame], facts: CardFacts) -> str:
    first = next(iter(tables), None)
    rows = len(tables[first]) if first is not None else 0
    size = next((name for bound, name in _SIZES if rows < bound), "n>100M")
    lines = ["---", f"pretty_name: {_yaml(f'Relevance judgments: {facts.campaign}')}",
             f"license: {_yaml(facts.license)}", "task_categories:", "- text-retrieval",
             "task_ids:", "- document-retrieval", "tags:", "- relevance-judgments", "- qrels",
             "- information-retrieval", f"- {facts.tool}", "size_categories:", f"- {size}",
             "configs:"]
    for config in tables:
        lines += [f"- config_name: {_yaml(config)}"]
        if config == first:
            lines += ["  default: true"]
        lines += ["  data_files:", f"  - split: {SPLIT}",
                  f"    path: {_yaml(f'{config}/{SPLIT}-*.parquet')}"]
    return "\n".join([*lines, "---", ""]) + "\n"


def _prose(tables: Mapping[str, pd.DataFrame], facts: CardFacts) -> str:
    name = _md(facts.campaign)
    parts = [f"# Relevance judgments of campaign {name}\n",
             f"Judged with {_md(facts.tool)}: documents pooled from retrieval runs, labelled by "
             f"people (and any automatic judges named in `source`), one label per pair decided "
             f"by the consensus policy **{_md(facts.policy)}**.\n",
             "## Campaign\n",
             f"- Campaign: {name}",
             f"- Label scale: {', '.join(str(int(v)) for v in facts.scale)}",
             f"- Consensus policy: {_md(facts.policy)}",
             *(f"- {_md(key)}: {value:,}" for key, value in facts.counts.items()),
             ""]
    if facts.agreement:
        parts += ["## Agreement\n",
                  "Between annotators, over the pairs two or more of them labelled:\n",
                  *(f"- {_md(key)}: {_number(value)}" for key, value in facts.agreement.items()),
                  ""]
    parts += ["## Configurations\n", "| config | rows | columns | what it holds |",
              "|---|---|---|---|"]
    for config, frame in tables.items():
        columns = ", ".join(f"`{c}`" for c in map(str, frame.columns))
        what = _md(facts.descriptions.get(config, ""))
        parts.append(f"| {_md(config)} | {len(frame):,} | {columns} | {what} |")
    first = next(iter(tables), "qrels")
    parts += ["", "## Loading\n", "```python", "from datasets import load_dataset", "",
              f"qrels = load_dataset(\"path/to/this/folder\", {json.dumps(first)}, "
              f"split=\"{SPLIT}\").to_pandas()", "```", ""]
    return "\n".join(parts)


def _number(value: float | None) -> str:
    """A count with thousands separators, a coefficient to 3 decimals, None as undefined."""
    if value is None:
        return "undefined"
    return f"{value:,}" if isinstance(value, int) else f"{value:.3f}"


def _yaml(text: str) -> str:
    """A YAML scalar holding ``text`` literally: a JSON string (YAML's double-quoted style)."""
    return json.dumps(str(text), ensure_ascii=False)


def _md(text: str) -> str:
    """``text`` as literal Markdown inside a line (a list item's value, a table cell): on one
    line, HTML escaped, and the characters that open inline markup (emphasis, code, links,
    strike-through) or end a table cell backslash-escaped."""
    flat = " ".join(str(text).split())
    return _MARKDOWN.sub(r"\\\1", html.escape(flat, quote=False))
