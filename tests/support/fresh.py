"""Run Python code in a fresh interpreter: for what a process imports and prints on its own."""

from __future__ import annotations

import subprocess
import sys


def python_output(code: str) -> str:
    """Standard output of ``python -c code`` in a new interpreter; raises if the code fails."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout
