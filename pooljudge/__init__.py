"""pooljudge: from TREC runs to a finished, trustworthy test collection."""

from pooljudge.errors import InputError, PoolJudgeError, UsageError

__version__ = "0.1.0"
__all__ = ["InputError", "PoolJudgeError", "UsageError", "__version__"]
