"""Topics, qrels and documents from an ``ir_datasets`` dataset, offline only.

:func:`load_dataset` takes a dataset ID of ``ir_datasets``' registry (``msmarco-passage/dev``,
or one registered in Python with ``ir_datasets.registry.register``), a folder of local files
given to ``ir_datasets.create_dataset`` (``docs.tsv``: ``doc_id<TAB>text``; ``queries.tsv``:
``query_id<TAB>text``; ``qrels``: TREC qrels; any of them may be absent), or a
``ir_datasets.Dataset`` object. Nothing is read until asked:

- :meth:`IrdsDataset.topics`: every query as a campaign's topics (``id, title, description,
  narrative``; a query's text is its title when it has no title field);
- :meth:`IrdsDataset.qrels`: ``topic, doc, label`` (int64), as ``read_qrels`` gives;
- :meth:`IrdsDataset.documents`: only the documents asked for (``id, title, text``), through the
  dataset's ``docs_store().get_many`` in one call: a pool's documents, never the collection.

Offline: ``ir_datasets`` has no offline switch, so while it reads, every remote source it knows
(HTTP, Google Drive, Cloud Storage) refuses to open and the attempt becomes an InputError naming
the dataset, what is missing and how to download it (``ir_datasets export ID docs``) into the
cache (``$IR_DATASETS_HOME``, default ``~/.ir_datasets``, read when ``ir_datasets`` is first
imported). A missing local file is an InputError naming it. Files that are present are read as
``ir_datasets`` reads them (building its document store beside them on first use).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import threading
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pooljudge.errors import InputError, UsageError
from pooljudge.formats.collection import DOCUMENT_COLUMNS, TOPIC_COLUMNS

__all__ = ["LOCAL_FILES", "IrdsDataset", "load_dataset"]

LOCAL_FILES = {"docs": "docs.tsv", "queries": "queries.tsv", "qrels": "qrels"}
"""A local dataset folder's files (``ir_datasets.create_dataset``'s docs_tsv, queries_tsv and
qrels_trec)."""

_TEXT_FIELDS = ("text", "body", "passage", "contents", "abstract")  # a document's text, first found
_GUARD = threading.RLock()
_UNREADABLE = (RuntimeError, ValueError, UnicodeDecodeError, OSError)  # a file ir_datasets refused


class _Offline(Exception):
    """A remote source ``ir_datasets`` tried to open while offline."""

    def __init__(self, source: str) -> None:
        super().__init__(source)
        self.source = source


@dataclass
class IrdsDataset:
    """A dataset of ``ir_datasets``, read lazily (see the module docstring)."""

    id: str
    dataset: Any = field(repr=False)
    _topics: pd.DataFrame | None = field(default=None, repr=False)
    _qrels: pd.DataFrame | None = field(default=None, repr=False)

    def has(self, entity: str) -> bool:
        """Whether the dataset has ``docs``, ``queries`` or ``qrels``."""
        return bool(self.dataset.has(entity))

    def topics(self) -> pd.DataFrame:
        """Every query as topics ``id, title, description, narrative`` (text; missing fields
        empty). InputError when the dataset has no queries or they are not available offline,
        or a query id is blank or listed twice."""
        if self._topics is None:
            with self._reading("queries"):
                rows = [_topic_row(q) for q in self.dataset.queries_iter()]
            frame = pd.DataFrame(rows, columns=list(TOPIC_COLUMNS), dtype=object)
            self._topics = _checked_ids(frame, "id", f"dataset {self.id}: queries", "query")
        return self._topics

    def qrels(self) -> pd.DataFrame:
        """The qrels as ``topic, doc, label`` (label int64). InputError when the dataset has no
        qrels, they are not available offline, or a document is judged twice for a topic."""
        if self._qrels is None:
            with self._reading("qrels"):
                rows = [(q.query_id, q.doc_id, q.relevance) for q in self.dataset.qrels_iter()]
            frame = pd.DataFrame(rows, columns=["topic", "doc", "label"])
            frame = frame.astype({"topic": object, "doc": object, "label": np.int64})
            twice = frame.duplicated(["topic", "doc"]).to_numpy()
            if twice.any():
                i = int(np.argmax(twice))
                raise InputError(f"dataset {self.id}: qrels judge document {frame['doc'].iat[i]} "
                                 f"twice for topic {frame['topic'].iat[i]}")
            self._qrels = frame
        return self._qrels

    def documents(self, ids: Iterable[str]) -> pd.DataFrame:
        """The documents ``ids`` (distinct, in first-seen order) that the dataset has, as
        ``id, title, text``, fetched with one ``docs_store().get_many`` call; ids it lacks are
        left out (the caller's member check names them)."""
        wanted = list(dict.fromkeys(str(i) for i in ids))
        found: dict[str, Any] = {}
        if wanted:
            with self._reading("docs"):
                found = self.dataset.docs_store().get_many(wanted)
        rows = [_document_row(found[i]) for i in wanted if i in found]
        return pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS), dtype=object)

    @contextlib.contextmanager
    def _reading(self, entity: str) -> Iterator[None]:
        """Read ``entity`` offline: InputError when the dataset lacks it, a remote source would
        be opened, a local file is missing, or ``ir_datasets`` cannot parse a file (its
        message, such as ``expected 2 fields, got 1``, follows)."""
        if not self.has(entity):
            raise InputError(f"dataset {self.id} has no {entity}")
        try:
            with _offline():
                yield
        except FileNotFoundError as exc:
            raise InputError(f"dataset {self.id}: its {entity} file is missing: "
                             f"{exc.filename or exc}") from None
        except Exception as exc:
            source = _blocked_source(exc)
            if source is None and isinstance(exc, _UNREADABLE):  # ir_datasets' parse errors
                raise InputError(f"dataset {self.id}: its {entity} cannot be read: {exc}"
                                 ) from None
            if source is None:
                raise
            raise InputError(
                f"dataset {self.id}: its {entity} are not in the local ir_datasets cache "
                f"({_home()}); missing: {source}; download them once, online, with "
                f"`ir_datasets export {self.id} {entity} > /dev/null`") from None


def load_dataset(source: str | os.PathLike[str] | Any, *, name: str | None = None
                 ) -> IrdsDataset:
    """The dataset ``source``: a folder of local files (:data:`LOCAL_FILES`), an ID of
    ``ir_datasets``' registry, or a ``ir_datasets.Dataset`` (called ``name`` in messages,
    default ``dataset``). Nothing is read yet.

    InputError for an unknown ID (naming the closest registered ones) or a folder holding none
    of the local files; UsageError when ``ir_datasets`` is not installed.
    """
    try:
        import ir_datasets
    except ImportError:
        raise UsageError("--dataset needs ir_datasets: pip install 'pooljudge[datasets]'"
                         ) from None

    if not isinstance(source, str | os.PathLike):
        return IrdsDataset(name or "dataset", source)
    path = Path(source)
    if path.is_dir():
        files = {key: path / name for key, name in LOCAL_FILES.items() if (path / name).is_file()}
        if not files:
            raise InputError(f"a local dataset needs one of {', '.join(LOCAL_FILES.values())}",
                             path=path)
        dataset = ir_datasets.create_dataset(docs_tsv=files.get("docs"),
                                             queries_tsv=files.get("queries"),
                                             qrels_trec=files.get("qrels"))
        return IrdsDataset(str(path), dataset)
    try:
        dataset = ir_datasets.load(str(source))
    except KeyError:
        raise InputError(_unknown(str(source), ir_datasets.registry)) from None
    return IrdsDataset(str(source), dataset)


def _unknown(name: str, registry: Iterable[str]) -> str:
    """An unknown ID's message: the registered IDs sharing its first part, or the way to list
    them all."""
    family = name.split("/")[0]
    near = sorted(i for i in registry if i.split("/")[0] == family)[:5]
    hint = f"registered IDs of {family}: {', '.join(near)}" if near else (
        "`ir_datasets list` names them; a folder of docs.tsv, queries.tsv or qrels is a local "
        "dataset")
    return f"--dataset {name}: no such ir_datasets dataset ({hint})"


def _home() -> str:
    import ir_datasets

    return f"IR_DATASETS_HOME={ir_datasets.util.home_path()}"


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """While inside, every remote source of ``ir_datasets`` raises :class:`_Offline` instead of
    connecting, and its logger's download messages are silenced."""
    import ir_datasets
    from ir_datasets.util import download

    def refuse(source: Any) -> Any:
        raise _Offline(str(getattr(source, "url", None) or getattr(source, "uri", source)))

    remote = [c for c in _subclasses(download.BaseDownload) if c is not download.LocalDownload]
    logger = ir_datasets.log.easy().logger()  # made now: made later, it would reset its level
    cache = ir_datasets.lazy_libs._cache
    with _GUARD:
        saved = {c: c.__dict__.get("stream") for c in remote}
        level, bars = logger.level, cache.get("tqdm")
        try:
            for cls in remote:
                cls.stream = refuse
            logger.setLevel(logging.ERROR)
            if not _stderr_is_terminal():
                cache["tqdm"] = _quiet_tqdm()
            yield
        finally:
            logger.setLevel(level)
            if bars is None:
                cache.pop("tqdm", None)
            else:
                cache["tqdm"] = bars
            for cls, method in saved.items():
                if method is None:
                    del cls.stream
                else:
                    cls.stream = method


def _quiet_tqdm() -> types.SimpleNamespace:
    """What ``ir_datasets.lazy_libs.tqdm()`` gives off a terminal: bars that show nothing
    (pooljudge's rule, :mod:`pooljudge.ground.progress`)."""
    import tqdm

    class Quiet(tqdm.tqdm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "disable": True})

    return types.SimpleNamespace(tqdm=Quiet)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return False


def _subclasses(cls: Any) -> list[Any]:
    """Every subclass of ``cls``, depth first (ir_datasets' download classes: untyped)."""
    found: list[Any] = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def _blocked_source(exc: BaseException) -> str | None:
    """The remote source an exception (or the errors ``ir_datasets`` wrapped in it) came from
    when it is :class:`_Offline`, else None."""
    if isinstance(exc, _Offline):
        return exc.source
    for arg in getattr(exc, "args", ()):
        items = arg if isinstance(arg, list | tuple) else (arg,)
        for item in items:
            inner = item[1] if isinstance(item, tuple) and len(item) == 2 else item
            if isinstance(inner, BaseException) and (found := _blocked_source(inner)):
                return found
    cause = exc.__cause__ or exc.__context__
    return _blocked_source(cause) if cause is not None else None


def _topic_row(query: Any) -> dict[str, str]:
    """A query namedtuple as a topic row: ``title`` from its title field, else its text."""
    fields = query._fields
    title = query.title if "title" in fields else _text_of(query)
    return {"id": str(query.query_id), "title": _str(title),
            "description": _str(getattr(query, "description", "")),
            "narrative": _str(getattr(query, "narrative", ""))}


def _document_row(doc: Any) -> dict[str, str]:
    """A document namedtuple as ``id, title, text``: text from the first of ``text, body,
    passage, contents, abstract`` it has, else its ``default_text()``."""
    title = getattr(doc, "title", "") if "title" in doc._fields else ""
    return {"id": str(doc.doc_id), "title": _str(title), "text": _text_of(doc)}


def _text_of(record: Any) -> str:
    for name in _TEXT_FIELDS:
        if name in record._fields:
            return _str(getattr(record, name))
    if hasattr(record, "default_text"):
        return _str(record.default_text())
    return ""


def _str(value: object) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def _checked_ids(frame: pd.DataFrame, column: str, where: str, what: str) -> pd.DataFrame:
    """``frame`` with ids stripped; InputError for none, a blank id or one listed twice."""
    if frame.empty:
        raise InputError(f"{where}: no {what} found")
    frame[column] = frame[column].str.strip()
    blank = (frame[column] == "").to_numpy()
    if blank.any():
        raise InputError(f"{where}: {what} {int(np.argmax(blank)) + 1} has a blank id")
    twice = frame[column].duplicated().to_numpy()
    if twice.any():
        raise InputError(f"{where}: {what} {frame[column].iat[int(np.argmax(twice))]} listed "
                         "twice")
    return frame
