"""Uploaded files through the project's one set of readers (pooljudge.formats.trec, collection).

Streamlit hands over bytes; the readers take paths (and name them in errors), so each upload is
written under its own name in a temporary folder (:func:`pooljudge.formats.files.temporary_files`)
and read from there. Errors stay InputError with the uploaded file's own name and line, never
the temporary folder's path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pandas as pd

from pooljudge.errors import InputError
from pooljudge.formats.collection import read_documents, read_topics
from pooljudge.formats.files import temporary_files
from pooljudge.formats.trec import read_pool, read_run, run_name

__all__ = ["read_uploaded_documents", "read_uploaded_runs", "read_uploaded_topics",
           "with_uploaded_pool"]

T = TypeVar("T")


def _read(uploads: Sequence, reader: Callable[[list[Path]], T]) -> T:
    """``reader`` of the uploads written to a temporary folder; an InputError naming one of
    those files names the upload instead (its own name, as the browser sent it)."""
    with temporary_files([(upload.name, upload.getvalue()) for upload in uploads]) as paths:
        try:
            return reader(paths)
        except InputError as exc:
            if exc.path is None:
                raise
            named = {str(path): Path(upload.name).name for path, upload in
                     zip(paths, uploads, strict=True)}
            shown = named.get(exc.path, Path(exc.path).name)
            raise InputError(exc.message, path=shown, line=exc.line) from None


def read_uploaded_runs(uploads: Sequence) -> dict[str, pd.DataFrame]:
    """Run name (file name without ``.gz``) -> run frame, for every uploaded run file."""
    return _read(uploads, lambda paths: {run_name(path): read_run(path) for path in paths})


def read_uploaded_topics(upload) -> pd.DataFrame:
    """The topics of one uploaded topic file."""
    return _read([upload], lambda paths: read_topics(paths[0]))


def read_uploaded_documents(uploads: Sequence) -> pd.DataFrame:
    """The documents of every uploaded document file, as one frame."""
    return _read(uploads, read_documents)


def with_uploaded_pool(upload, use: Callable[[pd.DataFrame, Path], T]) -> T:
    """``use(pool, path)`` of a ready pool file (as ``pooljudge pool`` writes it) while it is
    on disk at ``path``, so that checks of its rows (unknown topic or document) name its line:
    as ``upload.name:LINE``, like every other error of the upload."""
    return _read([upload], lambda paths: use(read_pool(paths[0]), paths[0]))
