"""Comparisons of stored runs: summaries, the side-by-side dimension rows, and capacity in tasks.

Qt-free; the PDF report (`desktop_app.report`) and the GUI's Runs page both read these.

- `load_run(store, run_id)`: a stored run as a :class:`ThroughputRun` or :class:`SqlRun`.
- `dimension_rows(runs)`: one :class:`DimensionRow` per dimension, a value per run with its
  95 % interval, and a verdict decided on that noise (codes; words in `report.verdicts`).
- `settings_differ(infos)`: the identity fields and server settings not the same in every run.
- `pair_runs(runs)`, `capacity(tp, sql)`, `capacity_verdicts(caps)`: speed and quality together
  (cost per correct answer, correct answers per hour at each measured concurrency).
- `scenarios(rows)`, `trade_off(rows, found)`: a verdict per scenario (many concurrent users,
  one user's streaming speed, structured tasks) and what the runs trade.
- `compare(store, run_ids)`: all of the above at once, as a :class:`Comparison`.
- `compare_strategies(runs, paths)`: the fast path, the tool loop and the layered strategy on
  the same endpoint (correct answers per hour, tokens per correct answer, pass rate per judge,
  decided on noise), and each layered run's split per path (`run_paths(run)`).
"""

from desktop_app.core.compare.capacity import (
    Capacity,
    CapacityPoint,
    CompareNote,
    Cost,
    CriterionVerdict,
    capacity,
    capacity_verdicts,
    cost_per_correct,
    pair_runs,
)
from desktop_app.core.compare.dimensions import (
    VERDICT_CODES,
    DimensionRow,
    DimValue,
    RowVerdict,
    dimension_rows,
    run_label,
)
from desktop_app.core.compare.load import (
    RunInfo,
    SqlRun,
    StepTokens,
    StoredCell,
    StoredQuestion,
    ThroughputRun,
    load_run,
)
from desktop_app.core.compare.scenarios import SCENARIOS, Scenario, ScenarioFigure, TradeOff
from desktop_app.core.compare.session import Comparison, CompareError, compare
from desktop_app.core.compare.settings import settings_differ
from desktop_app.core.compare.strategies import (
    LayeredPath,
    PathShare,
    StrategyGroup,
    StrategyReport,
    StrategyRun,
    compare_strategies,
    path_split,
    run_paths,
)

__all__ = [
    "SCENARIOS", "VERDICT_CODES", "Capacity", "Scenario", "ScenarioFigure", "TradeOff", "CapacityPoint", "CompareError", "CompareNote", "Comparison", "Cost",
    "CriterionVerdict", "DimValue", "DimensionRow", "LayeredPath", "PathShare", "RowVerdict",
    "RunInfo", "SqlRun", "StepTokens", "StoredCell", "StoredQuestion", "StrategyGroup",
    "StrategyReport", "StrategyRun", "ThroughputRun", "capacity", "capacity_verdicts",
    "compare", "compare_strategies", "cost_per_correct", "dimension_rows",
    "load_run", "pair_runs", "path_split", "run_paths", "run_label", "settings_differ",
]
