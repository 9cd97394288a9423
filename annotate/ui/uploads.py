"""Uploaded files through the project's one set of readers (pooljudge.formats.trec, collection).

Streamlit hands over bytes; the readers take paths (and name them in errors), so each upload is
written under its own name in a temporary folder (:func:`pooljudge.formats.files.temporary_files`)
and read from there. Errors stay InputError with the uploaded file's name and line.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from pooljudge.formats.collection import read_documents, read_topics
from pooljudge.formats.files import temporary_files
from pooljudge.formats.trec import read_run, run_name

__all__ = ["read_uploaded_documents", "read_uploaded_runs", "read_uploaded_topics"]


def _contents(uploads: Sequence) -> list[tuple[str, bytes]]:
    return [(upload.name, upload.getvalue()) for upload in uploads]


def read_uploaded_runs(uploads: Sequence) -> dict[str, pd.DataFrame]:
    """Run name (file name without ``.gz``) -> run frame, for every uploaded run file."""
    with temporary_files(_contents(uploads)) as paths:
        return {run_name(path): read_run(path) for path in paths}


def read_uploaded_topics(upload) -> pd.DataFrame:
    """The topics of one uploaded topic file."""
    with temporary_files(_contents([upload])) as [path]:
        return read_topics(path)


def read_uploaded_documents(uploads: Sequence) -> pd.DataFrame:
    """The documents of every uploaded document file, as one frame."""
    with temporary_files(_contents(uploads)) as paths:
        return read_documents(paths)
