"""A toy judge written as a module of its own, as a user adding a judge would: `rowcount`
passes an answer whose column count and row count are the gold's, whatever its values."""

import importlib.util
import sys
from contextlib import contextmanager
from pathlib import Path

from desktop_app.core.sqleval.judges import unregister

MODULE = '''
from desktop_app.core.sqleval.judges import Judge, register

JUDGE = register(Judge("rowcount", rank=40, names="nocase", uses_tolerance=False,
                       compare=lambda question, pair, tolerance: []))
'''


@contextmanager
def toy_judge(folder: Path):
    """The module written into `folder`, imported (its import registers the judge), and the
    judge removed afterwards."""
    path = folder / "rowcount_judge.py"
    path.write_text(MODULE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("rowcount_judge", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["rowcount_judge"] = module
    spec.loader.exec_module(module)
    try:
        yield module.JUDGE
    finally:
        unregister("rowcount")
        sys.modules.pop("rowcount_judge", None)
