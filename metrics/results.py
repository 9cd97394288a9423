"""One run's evaluation result, shared by :mod:`pooljudge.metrics.evaluate` (which makes it) and
the modules that read it (uncertainty, bias, returned, report, the eval command)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from pooljudge.metrics.registry import Measure

__all__ = ["RunResult"]


@dataclass(frozen=True)
class RunResult:
    """One run's scores: per measure, an array over ``topics``, and the summary value."""

    name: str
    topics: list[str]
    values: dict[Measure, np.ndarray]
    summary: dict[Measure, float]
    returned: np.ndarray
    run_only_topics: int
    errors: dict[Measure, np.ndarray] = field(default_factory=dict)
    intervals: dict[Measure, tuple[float, float, float]] = field(default_factory=dict)
