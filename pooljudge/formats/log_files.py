"""What ``pooljudge logs`` writes: a whole output folder at once, TREC runs (fast), topics,
topic groups, the latency table, query-id lists; and the latency table read back.

- :func:`output_folder`: files are written into a temporary folder beside the target, renamed
  onto it only when everything is written: a failure leaves no half output. The target must not
  exist or be an empty folder (an import never mixes with an older one's runs).
- :func:`write_log_run`: ``topic Q0 doc rank score tag`` lines through pyarrow's CSV writer
  (scores in shortest round-trip form), in the frame's order.
- Text that goes into line-based files (query texts, group names) is made one line: every run
  of tabs and line breaks becomes one space (group names also lose blanks at their ends, as
  their reader would); the writers return how many values that changed, for a warning.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from pooljudge.errors import InputError
from pooljudge.formats.files import PathLike, atomic_writer, read_utf8
from pooljudge.formats.logs import RE2_BLANK

__all__ = ["LATENCY_HEADER", "make_folder", "one_line", "output_folder", "read_id_list",
           "read_latency", "write_id_list",
           "write_latency", "write_log_run", "write_log_topics", "write_topic_groups"]

LATENCY_HEADER = ("run", "queries", "retrievals", "timed", "mean_ms", "p50_ms", "p95_ms",
                  "p99_ms")
# What ends a line for str.splitlines, and the tab: the characters a TSV field cannot hold.
_BREAK_CHARS = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BREAKS = re.compile(f"[{_BREAK_CHARS}]+")
_RE2_BREAK = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in _BREAK_CHARS) + "]"


@contextlib.contextmanager
def output_folder(path: PathLike) -> Iterator[Path]:
    """A temporary folder beside ``path``, renamed to ``path`` when the block ends without an
    exception (removed otherwise). InputError when ``path`` is a file or a folder with files in
    it, or when the folder cannot be written."""
    target = Path(path)
    if target.is_symlink() or (target.exists() and (not target.is_dir() or any(
            target.iterdir()))):
        raise InputError("exists and is not an empty folder: name a new folder", path=path)
    parent = target.absolute().parent
    if not parent.is_dir():
        raise InputError(f"cannot write: folder {parent} does not exist", path=path)
    try:
        folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
        umask = os.umask(0o022)
        os.umask(umask)
        folder.chmod(0o777 & ~umask)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path=path) from None
    try:
        yield folder
        if target.is_dir():
            target.rmdir()  # empty, checked above
        folder.rename(target)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise InputError(f"cannot write: {exc.strerror or exc}", path=path) from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def write_log_run(run: pd.DataFrame | Iterable[pd.DataFrame], path: PathLike, tag: str
                  ) -> None:
    """Write a run frame (``topic, doc, rank, score``, in the order to write), or its
    consecutive parts, as TREC lines ``topic Q0 doc rank score tag``; ids and ``tag`` must be
    free of blanks (the log reader checks them). Arrow's CSV writer runs without the GIL."""
    import pyarrow.csv as pcsv

    parts = [run] if isinstance(run, pd.DataFrame) else run
    words = pa.array(["Q0", tag])
    options = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    with atomic_writer(path, mode="wb") as handle:
        for part in parts:
            n = len(part)
            table = pa.table({
                "topic": pa.array(part["topic"]),
                "q0": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int8)), words),
                "doc": pa.array(part["doc"]), "rank": pa.array(part["rank"].to_numpy()),
                "score": pa.array(part["score"].to_numpy(np.float64)),
                "tag": pa.DictionaryArray.from_arrays(pa.array(np.ones(n, np.int8)), words)})
            pcsv.write_csv(table, handle, write_options=options)


def one_line(values: pa.Array | pd.Series | Iterable[str], *, strip: bool = False
             ) -> tuple[pa.Array, int]:
    """The values (as an Arrow string array) with each run of tabs and line breaks made one
    space (and, with ``strip``, blanks at the ends removed), and how many changed; one Arrow
    regex over all the values finds whether any needs it."""
    import pyarrow.compute as pc

    values = _arrow_texts(values)
    pattern = _RE2_BREAK + (f"|^{RE2_BLANK}|{RE2_BLANK}$" if strip else "")
    suspect = pc.match_substring_regex(values, pattern).fill_null(False)
    rows = np.flatnonzero(suspect.to_numpy(zero_copy_only=False))
    if not len(rows):
        return values, 0
    texts = values.to_pylist()  # the rare case: text with tabs or line breaks
    changed = 0
    for i in rows:
        flat = _BREAKS.sub(" ", texts[i])
        flat = flat.strip() if strip else flat
        changed += flat != texts[i]
        texts[i] = flat
    return pa.array(texts, pa.large_string()), changed


def write_log_topics(topics: pd.DataFrame, path: PathLike) -> int:
    """Write ``id, title`` as the TSV topics ``pooljudge init --topics`` reads (a header
    ``id<TAB>title``, then one line per topic); returns how many titles :func:`one_line`
    changed."""
    titles, changed = one_line(topics["title"])
    _write_joined(path, [_arrow_texts(topics["id"]), titles], "\t", "id\ttitle\n")
    return changed


def write_topic_groups(groups: pd.DataFrame, path: PathLike) -> int:
    """Write ``topic, group`` as ``topic group`` lines (a ``topic group`` header first), the
    file ``--topic-groups`` reads; returns how many group names were changed: tabs and line
    breaks made one space (:func:`one_line`), and blanks at the ends of the value removed,
    after ``field=`` as at the end (``category= billing `` is written ``category=billing``),
    since ``--topic-groups`` would drop the trailing ones and keep the leading ones."""
    import pyarrow.compute as pc

    original = _arrow_texts(groups["group"])
    names, _ = one_line(original, strip=True)
    names = pc.replace_substring_regex(names, f"^([^=]*)={RE2_BLANK}+", r"\1=")
    changed = int(pc.sum(pc.not_equal(names, original).fill_null(False)).as_py() or 0)
    _write_joined(path, [_arrow_texts(groups["topic"]), names], " ", "topic group\n")
    return changed


def write_id_list(ids: Iterable[str], path: PathLike) -> None:
    """Write one id per line."""
    _write_joined(path, [_arrow_texts(ids)], "", "")


def _arrow_texts(values: pa.Array | pa.ChunkedArray | pd.Series | Iterable[str]) -> pa.Array:
    """Text values as one Arrow ``large_string`` array (Arrow-held columns without a copy of
    their chunks' contents beyond one concatenation)."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.ArrowDtype):
        values = pa.array(values.array)
    elif isinstance(values, pd.Series):
        values = pa.array(values.astype(str).to_numpy(object), pa.large_string())
    elif not isinstance(values, pa.Array | pa.ChunkedArray):
        values = pa.array([str(v) for v in values], pa.large_string())
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.string())
    return values.cast(pa.large_string())


def _write_joined(path: PathLike, columns: list[pa.Array], separator: str, header: str
                  ) -> None:
    """Write ``header``, then the columns joined by ``separator``, one line per row: the
    lines are built by one Arrow kernel and written straight from its data buffer."""
    import pyarrow.compute as pc

    empty = pa.scalar("", pa.large_string())
    lines = pc.binary_join_element_wise(*columns, pa.scalar(separator, pa.large_string()))
    newline = pa.scalar("\n", pa.large_string())
    lines = pc.binary_join_element_wise(lines, empty, newline)  # each line, then "\n"
    with atomic_writer(path, mode="wb") as handle:
        handle.write(header.encode("utf-8"))
        if len(lines):
            offsets = np.frombuffer(lines.buffers()[1], np.int64)[
                lines.offset: lines.offset + len(lines) + 1]
            handle.write(memoryview(lines.buffers()[2])[offsets[0]:offsets[-1]])


def write_latency(table: pd.DataFrame, path: PathLike) -> None:
    """Write the latency table as TSV with a header, numbers at full precision (NaN: ``nan``)."""
    with atomic_writer(path) as handle:
        handle.write("\t".join(LATENCY_HEADER) + "\n")
        for row in table[list(LATENCY_HEADER)].itertuples(index=False, name=None):
            handle.write("\t".join([str(row[0]), *map(str, map(int, row[1:4])),
                                    *map(repr, map(float, row[4:]))]) + "\n")


def read_latency(path: PathLike) -> pd.DataFrame:
    """Read a latency table written by :func:`write_latency`; InputError naming ``path:line``
    for a wrong header, a wrong number of fields or a value that is not a number."""
    lines = read_utf8(path).splitlines()
    if not lines or tuple(lines[0].split("\t")) != LATENCY_HEADER:
        raise InputError(f"expected the header {' '.join(LATENCY_HEADER)} (tab-separated)",
                         path=path, line=1)
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(LATENCY_HEADER):
            raise InputError(f"expected {len(LATENCY_HEADER)} tab-separated fields, found "
                             f"{len(fields)}", path=path, line=number)
        try:
            rows.append([fields[0], *map(int, fields[1:4]), *map(float, fields[4:])])
        except ValueError:
            raise InputError("expected counts and numbers after the run name", path=path,
                             line=number) from None
    return pd.DataFrame(rows, columns=list(LATENCY_HEADER))


def make_folder(path: PathLike) -> Path:
    """Create the folder ``path`` (inside an :func:`output_folder`) and return it."""
    folder = Path(path)
    try:
        folder.mkdir()
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path=path) from None
    return folder


def read_id_list(path: PathLike) -> list[str]:
    """Ids, one per line (blank lines and ``#`` comments skipped); InputError naming
    ``path:line`` for a line holding more than one word, or for a file without ids."""
    ids = []
    for number, line in enumerate(read_utf8(path).splitlines(), start=1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if len(words) > 1:
            raise InputError(f"expected one query id, found {len(words)} words", path=path,
                             line=number)
        ids.append(words[0])
    if not ids:
        raise InputError("no query ids", path=path)
    return ids
