"""One line of facts per stored run, for run lists (``throughline runs``, the Runs page).

Read through the records modules, so a list shows the same cell count, loads and pass counts as
the run's own page, its export and its comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_app.core.runs import PassCount, RunInfo
from desktop_app.core.sqleval.records import eval_from
from desktop_app.core.store import Store
from desktop_app.core.throughput.records import sweep_from
from desktop_app.core.throughput.replay import stored_replay

__all__ = ["RunOverview", "overview"]


@dataclass(frozen=True)
class RunOverview:
    """A run's identity and headline figures: for a sweep its cells (finished / planned) and
    their loads in sweep order ("c=1", "2 req/s", "load unknown"); for a SQL run the pass count
    of each judge it ran; for a replay its tasks per hour at each number of agents."""

    info: RunInfo
    cells_finished: int = 0
    cells: int = 0
    loads: tuple[str, ...] = ()
    passes: dict[str, PassCount] = field(default_factory=dict, hash=False)
    tasks_per_hour: tuple[tuple[int, float], ...] = ()


def overview(store: Store, info: RunInfo) -> RunOverview:
    """The headline figures of one run (blocking; no per-request rows are read)."""
    if info.kind == "throughput":
        sweep = sweep_from(store, info, requests=False)
        loads = tuple(dict.fromkeys(c.load_label for c in sweep.cells))
        return RunOverview(info, sum(c.finished for c in sweep.cells), len(sweep.cells), loads)
    if info.kind == "sql":
        run = eval_from(store, info)
        return RunOverview(info, passes={j: run.pass_count(j) for j in run.judges})
    if info.kind == "replay":
        found = stored_replay(store, info.id)
        points = found.points if found is not None else ()
        return RunOverview(info, tasks_per_hour=tuple(
            (p.sessions, tph.value) for p in points if (tph := p.tasks_per_hour) is not None))
    return RunOverview(info)
