"""Comparisons of stored runs: summaries, the side-by-side dimension rows, and capacity in tasks.

Qt-free; the PDF report (`desktop_app.report`) and the GUI's Runs page both read these.

- `load_run(store, run_id)`: a stored run as a :class:`ThroughputRun` or :class:`SqlRun`.
- `dimension_rows(runs)`: one :class:`DimensionRow` per dimension, a value per run, a verdict.
- `pair_runs(runs)`, `capacity(tp, sql)`, `capacity_verdicts(caps)`: speed and quality together
  (cost per correct answer, correct answers per hour at each measured concurrency).
- `compare(store, run_ids)`: all of the above at once, as a :class:`Comparison`.
"""

from desktop_app.core.compare.capacity import (
    Capacity,
    CapacityPoint,
    Cost,
    CriterionVerdict,
    capacity,
    capacity_verdicts,
    cost_per_correct,
    pair_runs,
)
from desktop_app.core.compare.dimensions import (
    DimensionRow,
    DimValue,
    RowVerdict,
    dimension_rows,
    run_label,
)
from desktop_app.core.compare.load import (
    CellPoint,
    QuestionRow,
    RunInfo,
    SqlRun,
    StepTokens,
    ThroughputRun,
    load_run,
)
from desktop_app.core.compare.session import Comparison, CompareError, compare

__all__ = [
    "Capacity", "CapacityPoint", "CellPoint", "CompareError", "Comparison", "Cost",
    "CriterionVerdict", "DimValue", "DimensionRow", "QuestionRow", "RowVerdict", "RunInfo",
    "SqlRun", "StepTokens", "ThroughputRun", "capacity", "capacity_verdicts", "compare",
    "cost_per_correct", "dimension_rows", "load_run", "pair_runs", "run_label",
]
