"""Evaluate TREC runs against qrels with trec_eval's numbers and unjudged rates beside them."""

from importlib import import_module

from pooljudge.metrics.evaluate import evaluate
from pooljudge.metrics.registry import Measure, make, names, parse

from pooljudge.ground.defaults import DEFAULT_MEASURES

# Modules whose import registers measures; a new measure family adds its module here.
MEASURE_MODULES: tuple[str, ...] = tuple(
    f"pooljudge.metrics.{name}"
    for name in ("ranked", "sets", "residual", "sampled", "graded", "estimators"))
for _module in MEASURE_MODULES:
    import_module(_module)

__all__ = ["DEFAULT_MEASURES", "MEASURE_MODULES", "Measure", "evaluate", "make", "names", "parse"]
