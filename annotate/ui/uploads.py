"""Uploaded files through the project's one set of readers (pooljudge.trec, collection).

Streamlit hands over bytes; the readers take paths (and name them in errors), so each upload is
written under its own name in a temporary folder and read from there. Errors stay InputError
with the uploaded file's name and line.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from pooljudge.collection import read_documents, read_topics
from pooljudge.trec import read_run, run_name

__all__ = ["read_uploaded_documents", "read_uploaded_runs", "read_uploaded_topics"]


def _saved(folder: Path, upload) -> Path:
    path = folder / Path(upload.name).name
    path.write_bytes(upload.getvalue())
    return path


def read_uploaded_runs(uploads: Sequence) -> dict[str, pd.DataFrame]:
    """Run name (file name without ``.gz``) -> run frame, for every uploaded run file."""
    with tempfile.TemporaryDirectory() as folder:
        paths = [_saved(Path(folder), upload) for upload in uploads]
        return {run_name(path): read_run(path) for path in paths}


def read_uploaded_topics(upload) -> pd.DataFrame:
    with tempfile.TemporaryDirectory() as folder:
        return read_topics(_saved(Path(folder), upload))


def read_uploaded_documents(uploads: Sequence) -> pd.DataFrame:
    with tempfile.TemporaryDirectory() as folder:
        return read_documents([_saved(Path(folder), upload) for upload in uploads])
