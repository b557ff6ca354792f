"""Stored runs read back for a comparison: `load_run(store, run_id)`.

Nothing here decodes the store: a throughput run comes from
:func:`desktop_app.core.throughput.records.sweep_from`, a SQL run from
:func:`desktop_app.core.sqleval.records.eval_from`, so the comparison, the PDF and every other
view show the same figures for the same run.
"""

from __future__ import annotations

from desktop_app.core.runs import RunInfo, run_info
from desktop_app.core.sqleval.records import SqlRun, StepTokens, StoredQuestion, eval_from
from desktop_app.core.store import Store
from desktop_app.core.throughput.records import StoredCell, ThroughputRun, sweep_from

__all__ = ["RunInfo", "StoredCell", "ThroughputRun", "StepTokens", "StoredQuestion", "SqlRun",
           "load_run", "run_info"]


def load_run(store: Store, run_id: int) -> ThroughputRun | SqlRun | RunInfo:
    """The stored run `run_id`, typed; a run of a kind no comparison reads comes back as its
    RunInfo. Raises the store's NotFoundError for an unknown id. Blocking (SQLite)."""
    info = run_info(store.get_run(run_id))
    if info.kind == "throughput":
        return sweep_from(store, info)
    if info.kind == "sql":
        return eval_from(store, info, steps=True)
    return info
