"""Run builders shared by the pooling tests (frames and files), as the ``kit`` fixture."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest


class Kit:
    """Run builders."""

    @staticmethod
    def run_frame(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
        """A run frame from (topic, doc, score) rows."""
        return pd.DataFrame(rows, columns=["topic", "doc", "score"]).assign(tag="t")

    @staticmethod
    def ranked_run(topic: str, docs: list[str]) -> list[tuple[str, str, float]]:
        """Rows giving ``docs`` ranks 1, 2, ... by strictly decreasing scores."""
        return [(topic, doc, float(len(docs) - i)) for i, doc in enumerate(docs)]

    @staticmethod
    def write_run_file(path: Path, rows: list[tuple[str, str, float]]) -> Path:
        lines = [f"{t} Q0 {d} {i + 1} {s!r} tag\n" for i, (t, d, s) in enumerate(rows)]
        path.write_text("".join(lines), encoding="utf-8")
        return path

    @staticmethod
    def tied_runs(seed: int, n_runs: int = 4) -> dict[str, list[tuple[str, str, float]]]:
        """Random runs with heavy score ties, string topic ids and non-ASCII document ids."""
        rng = random.Random(seed)
        topics = ["01", "1", "q7", "topic-b", "10"]
        vocabulary = [f"d{i}" for i in range(40)] + ["é1", "Z9", "a", "ä", "d01"]
        runs = {}
        for r in range(n_runs):
            rows = []
            for topic in topics:
                for doc in rng.sample(vocabulary, rng.randint(1, 30)):
                    rows.append((topic, doc, float(rng.choice([1, 2, 3, 3.5]))))
            rng.shuffle(rows)
            runs[f"run{r}"] = rows
        return runs

    @classmethod
    def tied_run_files(cls, folder: Path, seed: int, n_runs: int = 4) -> list[Path]:
        """:meth:`tied_runs` written as run files in a new ``folder``, one per run."""
        folder.mkdir()
        return [cls.write_run_file(folder / name, rows)
                for name, rows in cls.tied_runs(seed, n_runs).items()]


@pytest.fixture
def kit() -> type[Kit]:
    """The run builders."""
    return Kit
