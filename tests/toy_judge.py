"""A toy judge written as a module of its own, as a user adding a judge would: `rowcount`
passes an answer whose column count and row count are the gold's, whatever its values."""

from contextlib import contextmanager
from pathlib import Path

from desktop_app.core.sqleval.judges import unregister
from tests.module_file import module_from_file

MODULE = '''
from desktop_app.core.sqleval.judges import Judge, register

JUDGE = register(Judge("rowcount", rank=40, names="nocase", uses_tolerance=False,
                       compare=lambda question, pair, tolerance: []))
'''


@contextmanager
def toy_judge(folder: Path):
    """The module written into `folder`, imported (its import registers the judge), and the
    judge removed afterwards."""
    try:
        with module_from_file(folder, "rowcount_judge", MODULE) as module:
            yield module.JUDGE
    finally:
        unregister("rowcount")
