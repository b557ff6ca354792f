"""A verdict per scenario, in the seeds' form (典型场景选择): which run is ahead for what a
deployment is for, by how much, and what it trades away. Codes and figures only; the words are
`desktop_app.report.verdicts.scenario_text` and `trade_off_text` (docs/COMPARE.md).

The scenarios and the rows they weigh (each row already decided per cell on its noise by
`compare.dimensions`):

* "many_users" (many concurrent users): TTFT p50 and total output tok/s, in every cell above
  1 concurrent;
* "one_user" (one user's streaming speed): decode tok/s per request, in every cell;
* "structured_tasks" (agentic tasks): the strict pass rate (or the first judge run), decided
  by its McNemar or Wilson test, and the tasks per hour a stored replay measured at each
  number of agents (`replay_tasks_per_hour` rows, decided task by task on the same
  conversations): the measured figure, never the capacity model's, which has no noise to
  decide on.

A run is "ahead" in a scenario when it wins at least one of the scenario's cells and no other
run wins any; "mixed" when two runs each win some; "even" when cells were decided and none was
won; "n/a" when no cell could be decided. A tie, or a difference inside the noise, is never a
win here: only the rows' significant winners count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from desktop_app.core.compare.dimensions import DimensionRow

__all__ = ["SCENARIOS", "Scenario", "ScenarioFigure", "TradeOff", "scenarios", "trade_off"]

SCENARIOS = ("many_users", "one_user", "structured_tasks")
_FIGURES = {"many_users": ("ttft", "output_tps"), "one_user": ("decode",),
            "structured_tasks": ("pass_rate", "tasks_per_hour")}
# A scenario figure read from rows of another key.
_ROW_KEYS = {"tasks_per_hour": "replay_tasks_per_hour"}


@dataclass(frozen=True)
class ScenarioFigure:
    """One figure of a scenario over its cells: how many cells there were, how many each run
    won (`wins`, by run index), how many were even or undecided, and for the scenario's leader
    against the best other run the range of `ratios` (leader / other, over the cells it won, in the
    figure's own direction: a TTFT ratio of 0.3 means the leader's first tokens come in 30 %
    of the time). `unit` and `better` as the rows'."""

    key: str
    unit: str
    better: str | None
    cells: int
    wins: dict[int, int] = field(default_factory=dict, hash=False)
    even: int = 0
    undecided: int = 0
    ratios: tuple[float, ...] = ()
    values: dict[int, float] = field(default_factory=dict, hash=False)  # pass rate: per run


@dataclass(frozen=True)
class Scenario:
    key: Literal["many_users", "one_user", "structured_tasks"]
    status: Literal["ahead", "mixed", "even", "n/a"]
    leader: int | None
    figures: tuple[ScenarioFigure, ...]


@dataclass(frozen=True)
class TradeOff:
    """Two runs ahead in different scenarios: `run` is ahead in `gains` (scenario figures it
    wins) and behind in `costs` (figures the other run wins); each item is (figure key, its
    ratios range as in ScenarioFigure, unit, better)."""

    run: int
    other: int
    gains: tuple[tuple[str, tuple[float, ...], str, str | None], ...]
    costs: tuple[tuple[str, tuple[float, ...], str, str | None], ...]


def _cell_rows(rows: Sequence[DimensionRow], key: str, scenario: str) -> list[DimensionRow]:
    if key in _ROW_KEYS:
        return [r for r in rows if r.key == _ROW_KEYS[key]
                and sum(v.value is not None for v in r.values) >= 2]
    out = [r for r in rows if r.cell and r.key == key]
    if scenario == "many_users":
        out = [r for r in out if r.params["concurrency"] > 1]
    return out


def _figure(rows: Sequence[DimensionRow], key: str, scenario: str) -> ScenarioFigure | None:
    if key == "pass_rate":
        judged = [r for r in rows if r.key == "pass_rate"]
        row = next((r for r in judged if r.params.get("judge") == "strict"),
                   judged[0] if judged else None)
        if row is None or sum(v.value is not None for v in row.values) < 2:
            return None
        v = row.verdict
        won = {v.winner: 1} if v.significant and v.winner is not None else {}
        return ScenarioFigure("pass_rate", row.unit, row.better, 1, won,
                              int(v.status == "tie"), int(v.status == "n/a"),
                              values={i: x.value for i, x in enumerate(row.values)
                                      if x.value is not None})
    cells = _cell_rows(rows, key, scenario)
    if not cells:
        return None
    wins: dict[int, int] = {}
    for r in cells:
        if r.verdict.significant and r.verdict.winner is not None:
            wins[r.verdict.winner] = wins.get(r.verdict.winner, 0) + 1
    return ScenarioFigure(key, cells[0].unit, cells[0].better, len(cells), wins,
                          sum(r.verdict.status == "tie" for r in cells),
                          sum(r.verdict.status == "n/a" for r in cells))


def _ratios(rows: Sequence[DimensionRow], fig: ScenarioFigure, scenario: str, leader: int
            ) -> tuple[float, ...]:
    """Leader / best other run, over the cells the leader won (the range the words give)."""
    if fig.key == "pass_rate":
        return ()
    out = []
    for r in _cell_rows(rows, fig.key, scenario):
        if not (r.verdict.significant and r.verdict.winner == leader):
            continue
        mine = r.values[leader].value
        others = [v.value for i, v in enumerate(r.values) if i != leader and v.value is not None]
        if mine is None or not others or (mine == 0 and fig.unit != "change"):
            continue
        other = max(others) if fig.better == "higher" else min(others)
        if other:
            out.append(mine / other)
    return (min(out), max(out)) if out else ()


def scenarios(rows: Sequence[DimensionRow]) -> list[Scenario]:
    """Each scenario whose figures the compared runs have (module doc)."""
    out = []
    for key in SCENARIOS:
        figs = [f for k in _FIGURES[key] if (f := _figure(rows, k, key)) is not None]
        if not figs:
            continue
        winners = {i for f in figs for i, n in f.wins.items() if n}
        if len(winners) == 1:
            status, leader = "ahead", next(iter(winners))
        elif len(winners) > 1:
            status, leader = "mixed", None
        elif any(f.even for f in figs):
            status, leader = "even", None
        else:
            status, leader = "n/a", None
        if leader is not None:
            figs = [ScenarioFigure(f.key, f.unit, f.better, f.cells, f.wins, f.even, f.undecided,
                                   _ratios(rows, f, key, leader), f.values) for f in figs]
        out.append(Scenario(key, status, leader, tuple(figs)))  # type: ignore[arg-type]
    return out


def trade_off(rows: Sequence[DimensionRow], found: Sequence[Scenario]) -> TradeOff | None:
    """When two runs are each ahead in some scenario: what the one ahead for one user's
    streaming speed gains there, and what it costs where the other is ahead (the seeds'
    "A: each stream decodes 11 % faster, but first tokens come 3.2x later")."""
    ahead = [s for s in found if s.status == "ahead"]
    leaders = {s.leader for s in ahead}
    if len(leaders) != 2:
        return None
    by = {s.key: s for s in ahead}
    first = by.get("one_user") or ahead[0]
    run = first.leader
    other = next(i for i in leaders if i != run)
    assert run is not None and other is not None

    def items(of: int, against: int) -> tuple:
        picked = []
        for s in ahead:
            if s.leader != of:
                continue
            for f in s.figures:
                if f.wins.get(of) and f.key != "pass_rate":
                    picked.append((f.key, f.ratios, f.unit, f.better))
                elif f.wins.get(of):
                    picked.append((f.key, (f.values.get(of, 0.0), f.values.get(against, 0.0)),
                                   f.unit, f.better))
        return tuple(picked)

    return TradeOff(run, other, items(run, other), items(other, run))
