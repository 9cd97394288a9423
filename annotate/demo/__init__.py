"""The demo collection: Python's own documentation, a dozen information needs, real runs, a pool.

Everything is built offline from text every Python installation ships (``pydoc_data.topics`` and
the docstrings of standard-library modules), so ``pooljudge demo`` works on any machine.
"""

from pooljudge.annotate.demo.build import DemoCollection, build_collection, write_collection
from pooljudge.annotate.demo.corpus import stdlib_documents
from pooljudge.annotate.demo.needs import INFORMATION_NEEDS, topics_frame

__all__ = [
    "INFORMATION_NEEDS",
    "DemoCollection",
    "build_collection",
    "stdlib_documents",
    "topics_frame",
    "write_collection",
]
