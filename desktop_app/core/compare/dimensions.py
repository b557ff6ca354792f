"""The side-by-side table: one row per dimension, one value per run with its noise, a verdict
decided on that noise. No words: the verdict is a code with its figures, and
`desktop_app.report.verdicts` says it in English or Chinese (docs/COMPARE.md).

`dimension_rows(runs)` takes runs from `load.load_run` (throughput and SQL runs in any mix) and
returns :class:`DimensionRow` s in this order:

* throughput, for each concurrency at least two sweeps measured (every concurrency of the only
  sweep when there is one): prefill (mean tok/s per request), then the prefill change against
  1 concurrent, TTFT (median), decode (mean tok/s per request), then the main bottleneck;
* SQL: pass rate per judge, strict pass rate per tier, mean steps and tokens per question per
  tier, the main failure classes.

A run that lacks a dimension (a SQL run in a throughput row, a tier it did not ask) gets an
empty :class:`DimValue`: shown as n/a, never guessed.

How a row is decided (:class:`RowVerdict`): the best run against the runner-up, and a winner
only when the difference is real:

* throughput and effort rows: each value is an :class:`~desktop_app.core.stats.Estimate` with a
  bootstrap interval; real means the two intervals do not overlap (`stats.differ`) and the
  values are at least `stats.MIN_EFFECT` apart (10 %, or 10 points for a change; 35 % for what
  one request experiences at a concurrency above 1, `stats.SHARED_MIN_EFFECT`). A sweep's
  figure at one concurrency is the average over the prompt lengths every sweep measured there;
  its interval adds the cells' half-widths in quadrature (their requests are independent). The
  prefill change's interval comes from the cells' bounds
  (low = low at c / high at 1 - 1, high = high at c / low at 1 - 1).
* a run whose value rests on a client-bound cell is shown, marked (`detail["client_bound"]`),
  and never ranked;
* pass rates: two runs judged on common (question, epoch) pairs get an exact McNemar test on
  the discordant pairs of the common ones; runs with no question in common get Wilson
  intervals and the non-overlap rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, Literal

from desktop_app.core.compare.load import SqlRun, ThroughputRun
from desktop_app.core.sqleval.records import compared_judges
from desktop_app.core.sqleval.types import TIERS
from desktop_app.core.stats import (
    ALPHA,
    MIN_EFFECT,
    SHARED_MIN_EFFECT,
    Estimate,
    bootstrap,
    differ,
    mcnemar_exact,
    wilson,
)
from desktop_app.core.throughput import figures as cell_figures
from desktop_app.core.throughput.figures import Better, CellFigure
from desktop_app.core.throughput.records import StoredCell
from desktop_app.core.throughput.replay import paired_ratio

Status = Literal["win", "tie", "n/a", "info"]
DiffKind = Literal["relative", "points"]

__all__ = ["BOTTLENECK_CODES", "VERDICT_CODES", "DimValue", "RowVerdict",
           "DimensionRow", "dimension_rows", "run_label", "wilson"]

# Server-side findings that name a bottleneck, most telling first; measurement findings
# (client_bound, token_count_mismatch) say the numbers are doubtful, not where time goes.
BOTTLENECK_CODES = ("concurrency_cap", "kv_cache_pressure", "prefill_drop_under_concurrency",
                    "decode_slows_with_batch", "failures", "prefill_slows_with_length")

# Every code a RowVerdict can carry (desktop_app.report.verdicts words each one).
VERDICT_CODES = (
    "win",  # a real difference: outside both intervals, or McNemar p < ALPHA
    "within_noise",  # the best and the runner-up are about even
    "below_min_effect",  # outside both intervals, but closer than stats.MIN_EFFECT
    "no_interval",  # a value without a spread (an imported figure): cannot tell
    "not_comparable_lengths",  # the sweeps share no prompt length at this concurrency
    "different_tasks",  # replays of different SQL runs' conversations: other work, not servers
    "client_bound",  # (no longer given: a busy client widens the intervals instead)
    "within_client_lag",  # apart on the requests, but the client's lateness could explain it
    "tally",  # a figure's cells counted per concurrency (informational)
    "failures_even",  # the failure-class row when no run fails significantly less
    "only_one",  # one run has the figure
    "none",  # no run has it
    "same_bottleneck", "different_bottlenecks",  # the bottleneck row (informational)
    "fewest_failures",  # the failure-class row (informational)
)


@dataclass(frozen=True)
class DimValue:
    """One run's value in a row: `value` (a number in the row's unit) with its `estimate`
    (value, 95 % interval, observations, method; None for a figure without one) and/or `text`
    (a code, for the bottleneck and failure-class rows). `detail` holds the figures shown
    beside it; `detail["client_bound"]` is True when the value rests on a client-bound cell
    (shown, never ranked). Empty = n/a."""

    value: float | None = None
    estimate: Estimate | None = None
    text: str | None = None
    detail: dict = field(default_factory=dict, hash=False)

    @property
    def available(self) -> bool:
        return self.value is not None or self.text is not None

    @property
    def low(self) -> float | None:
        return None if self.estimate is None else self.estimate.low

    @property
    def high(self) -> float | None:
        return None if self.estimate is None else self.estimate.high

    @property
    def n(self) -> int | None:
        return None if self.estimate is None else self.estimate.n

    @property
    def client_bound(self) -> bool:
        return bool(self.detail.get("client_bound"))


@dataclass(frozen=True)
class RowVerdict:
    """Who wins a row, decided on noise; a code and figures, never words.

    `status`: "win" (a real difference), "tie" (about even), "n/a" (cannot be decided) or
    "info" (not a contest: bottlenecks, failure classes). `code` is one of
    :data:`VERDICT_CODES`; `params` the figures its words need (e.g. "best", "second", "diff",
    "fixes", "breaks", "p_value", "run", "runs"). `winner` is the index of the winning run,
    only when `significant`; `leader` the better-looking of the two compared (a tie too) and
    `runner_up` the other. `method` says how significance was decided: "bootstrap-mean",
    "bootstrap-median", "mcnemar-exact", "wilson" or "none". `diff` is relative (0.1 = 10 %
    better) for `diff_kind` "relative", percentage points as a fraction for "points"."""

    status: Status
    code: str
    params: dict = field(default_factory=dict, hash=False)
    winner: int | None = None
    runner_up: int | None = None
    leader: int | None = None
    significant: bool = False
    method: str = "none"
    diff: float | None = None
    diff_kind: DiffKind = "relative"
    better: Better | None = None


@dataclass(frozen=True)
class DimensionRow:
    """One dimension: `key` (stable: "prefill", "ttft", "decode", "prefill_change",
    "bottleneck", "pass_rate", "tier_pass_rate", "tier_steps", "tier_tokens",
    "failure_classes"), `params` (e.g. {"concurrency": 4}, {"judge": "strict"},
    {"tier": "hard"}), `unit` ("tok/s", "s", "change", "fraction", "steps", "tokens", ""), one
    value per run in the order given, the verdict, which way is better, and the `group`
    ("throughput" or "sql") the row belongs to."""

    key: str
    unit: str
    values: tuple[DimValue, ...]
    verdict: RowVerdict
    params: dict = field(default_factory=dict, hash=False)
    better: Better | None = None
    group: Literal["throughput", "sql"] = "throughput"
    audience: Literal["system", "user"] | None = None
    scope: Literal["cell", "tally"] | None = None

    @property
    def cell(self) -> bool:
        """A row of one cell (prompt length x concurrency x output length)."""
        return self.scope == "cell"


def run_label(run) -> str:
    """How verdicts name a run: '#12' plus its name when it has one (RunInfo.label)."""
    return run.info.label


# --------------------------------------------------------------------------- statistics


# --------------------------------------------------------------------------- deciding a row


PairTest = Callable[[int, int], tuple[bool, int | None, str, dict]]


def _decide(values: Sequence[DimValue], better: Better, *, points: bool = False,
            pair_test: PairTest | None = None, min_effect: float = MIN_EFFECT) -> RowVerdict:
    """The best value against the runner-up (module doc). `pair_test(i, j)` replaces the
    interval rule: (significant, winner index or None, method, params); `min_effect` is the
    smallest difference two runs of one server do not reach (stats.MIN_EFFECT, or
    SHARED_MIN_EFFECT for a per-request figure under concurrency)."""
    kind: DiffKind = "points" if points else "relative"
    have = [(i, v, v.value) for i, v in enumerate(values) if v.value is not None]
    if not have:
        return RowVerdict("n/a", "none", better=better, diff_kind=kind)
    if len(have) == 1:
        return RowVerdict("n/a", "only_one", {"run": have[0][0]}, better=better, diff_kind=kind)
    if any(v.detail.get("lengths_differ") for _, v, _x in have):
        return RowVerdict("n/a", "not_comparable_lengths", better=better, diff_kind=kind)
    bound = [i for i, v, _x in have if v.client_bound]
    ranked = sorted(have, key=lambda ivx: ivx[2], reverse=better == "higher")
    (w, best, hi), (r, second, lo) = ranked[0], ranked[1]
    diff: float | None
    if points:
        diff = hi - lo if better == "higher" else lo - hi
    elif lo:
        diff = hi / lo - 1 if better == "higher" else 1 - hi / lo
    else:
        diff = None
    params: dict[str, Any] = {"best": hi, "second": lo, "diff": diff, "diff_kind": kind,
              "better": better, "client_bound": bound}

    def verdict(status: Status, code: str, *, leader: int = w, runner_up: int = r,
                winner: int | None = None, method: str = "none") -> RowVerdict:
        return RowVerdict(status, code, params, winner=winner, runner_up=runner_up,
                          leader=leader, significant=winner is not None, method=method,
                          diff=params["diff"], diff_kind=kind, better=better)

    if pair_test is not None:
        significant, winner, method, extra = pair_test(w, r)
        params.update(extra)
        if significant:
            if winner == r:  # runs judged on partly different questions: the pairs decide
                params.update(best=lo, second=hi, diff=None if diff is None else -diff)
                return verdict("win", "win", leader=r, runner_up=w, winner=winner,
                               method=method)
            return verdict("win", "win", winner=winner, method=method)
        return verdict("tie", "within_noise", method=method)
    a, b = best.estimate, second.estimate
    if a is None or b is None or not (a.has_interval and b.has_interval):
        return verdict("n/a", "no_interval")
    method = a.method if a.method == b.method else "none"
    lag = max(best.detail.get("lag_bound") or 0.0, second.detail.get("lag_bound") or 0.0)
    if not differ(a, b) and lag > 0 and differ(*(Estimate(**v.detail["measured"])
                                                 for v in (best, second))):
        # Apart on the requests alone; the client's own lateness could close the gap.
        params.update(lag_bound=lag, client_lag_s=max(best.detail.get("client_lag_s", 0.0),
                                                      second.detail.get("client_lag_s", 0.0)))
        return verdict("tie", "within_client_lag", method=method)
    if differ(a, b):
        if diff is not None and abs(diff) < min_effect:
            # Real within each run, but smaller than two runs of one server drift apart.
            params["min_effect"] = min_effect
            return verdict("tie", "below_min_effect", method=method)
        return verdict("win", "win", winner=w, method=method)
    return verdict("tie", "within_noise", method=method)


# --------------------------------------------------------------------------- throughput rows


# (input tokens, output tokens, and how each was drawn: "" fixed, else the distribution as
# written, `CellSpec.shape`): a cell of N(512,128) is never set beside one of 512 exactly.
Shape = tuple[int, int, str, str]


# The compared figures are `throughput.figures`' registry, read when a comparison is made (a
# figure registered later is compared too). Their order: what the system delivers first, as
# GuideLLM's and AIPerf's reports lead with it, then what each user gets.
def compared_figures() -> tuple[CellFigure, ...]:
    return tuple(f for f in cell_figures.figures() if f.compared)


def figure_keys() -> tuple[str, ...]:
    return tuple(f.key for f in compared_figures())


def _cells_at(run: ThroughputRun, concurrency: int) -> dict[Shape, StoredCell]:
    out: dict[Shape, StoredCell] = {}
    for c in run.closed_loop_cells:
        if c.concurrency == concurrency:
            out.setdefault(c.spec.shape, c)
    return out


def client_lag_s(cell: StoredCell) -> float:
    """How late the client's own loop could have stamped this cell's times: the p99 lateness
    of its 10 ms timer (0 when not measured, e.g. an imported cell)."""
    load = cell.result.client_load
    if load is None or not math.isfinite(load.loop_lag_p99_ms):
        return 0.0
    return max(0.0, load.loop_lag_p99_ms) / 1000.0


def _widened(est: Estimate, cell: StoredCell, fig: CellFigure) -> tuple[Estimate, float]:
    """`est` with its interval widened by what the client's lateness could move it (the
    value stays as measured: lateness only makes a time look longer, so the interval grows on
    the side of a shorter time, a faster rate), and that bound in the figure's unit."""
    lag = client_lag_s(cell)
    if lag <= 0 or fig.lag == "none" or not est.has_interval:
        return est, 0.0
    low, high = est.low, est.high
    if fig.lag == "time":
        bound = lag
        low = max(0.0, low - lag)
    elif fig.lag == "rate_of_time":
        # rate = tokens / time: a time up to `lag` shorter is a rate up to t / (t - lag) higher.
        t = cell.ttft_s or 0.0
        factor = t / (t - lag) if t > lag else math.inf
        bound = high * (factor - 1) if math.isfinite(factor) else math.inf
        high = high * factor
    else:  # per_token: one late stamp at each end, spread over the request's gaps
        gaps = max(1, cell.output_tokens - 1)
        per = lag / gaps
        if fig.unit == "s":
            bound = per
            low = max(0.0, low - per)
        else:  # tok/s = 1 / TPOT
            tpot = 1.0 / high if high > 0 else 0.0
            new_high = 1.0 / (tpot - per) if tpot > per else math.inf
            bound = new_high - high
            high = new_high
    return Estimate(est.value, low, high, est.n, est.method), bound


def _change(cell: StoredCell, one: StoredCell | None, fig: CellFigure) -> Estimate | None:
    """A change at the cell's concurrency against 1 of the figure `fig` is relative to
    (prefill), the cell's own figure (one home), the interval from the two cells' bounds
    (low = low at c / high at 1 - 1, high = high at c / low at 1 - 1)."""
    of = fig.relative_to_c1 or ""
    value = getattr(cell.result, fig.key, None)
    a, b = cell.figure(of), None if one is None else one.figure(of)
    if value is None or a is None or b is None:
        return None
    if a.has_interval and b.has_interval and b.low > 0 and b.high > 0:
        return Estimate(value, a.low / b.high - 1, a.high / b.low - 1, min(a.n, b.n), a.method)
    return Estimate(value, value, value, min(a.n, b.n), "none")


def _value(run: ThroughputRun, cell: StoredCell, fig: CellFigure) -> DimValue:
    if fig.relative_to_c1 is not None:
        est = _change(cell, _cells_at(run, 1).get(cell.spec.shape), fig)
    else:
        est = cell.figure(fig.key)
    if est is None:
        return DimValue()
    wide, bound = _widened(est, cell, fig)
    return DimValue(est.value, wide, detail={
        "client_bound": cell.client_bound, "client_lag_s": client_lag_s(cell),
        "lag_bound": bound, "measured": est.to_json(), "requests": cell.requests})


def _cell_row(runs: Sequence, fig: CellFigure, concurrency: int, shape: Shape) -> DimensionRow:
    vals = []
    for r in runs:
        cell = _cells_at(r, concurrency).get(shape) if isinstance(r, ThroughputRun) else None
        vals.append(DimValue() if cell is None else _value(r, cell, fig))
    values = tuple(vals)
    params: dict[str, Any] = {"concurrency": concurrency, "input_tokens": shape[0],
                              "output_tokens": shape[1]}
    for key, drawn in (("input_lengths", shape[2]), ("output_lengths", shape[3])):
        if drawn:
            params[key] = drawn
    # What one request gets among others drifts more between runs than the cell's totals do.
    floor = SHARED_MIN_EFFECT if fig.audience == "user" and concurrency > 1 else MIN_EFFECT
    assert fig.better is not None  # only compared figures get rows
    return DimensionRow(fig.key, fig.unit, values,
                        _decide(values, fig.better, points=fig.unit == "change",
                                min_effect=floor), params,
                        fig.better, "throughput", fig.audience, "cell")


def _tally_row(runs: Sequence, fig: CellFigure, cells: Sequence[DimensionRow],
               unmatched: Sequence[int]) -> DimensionRow:
    """A figure's cells summed up per concurrency: how many cells each run wins, how many are
    even, how many cannot be decided; never a winner of its own (RowVerdict "info"; the
    scenarios in `compare.scenarios` weigh the cells)."""
    levels: list[dict[str, Any]] = []
    for c in sorted({r.params["concurrency"] for r in cells} | set(unmatched)):
        at = [r for r in cells if r.params["concurrency"] == c]
        wins: dict[int, int] = {}
        for r in at:
            if r.verdict.significant and r.verdict.winner is not None:
                wins[r.verdict.winner] = wins.get(r.verdict.winner, 0) + 1
        levels.append({"concurrency": c, "cells": len(at), "wins": wins,
                       "even": sum(1 for r in at if r.verdict.status == "tie"),
                       "undecided": sum(1 for r in at if r.verdict.status == "n/a"),
                       "lengths_differ": c in unmatched})
    n = len(runs)
    values = tuple(DimValue(text="tally", detail={"wins": sum(lv["wins"].get(i, 0)
                                                                for lv in levels)})
                   if isinstance(runs[i], ThroughputRun) else DimValue() for i in range(n))
    verdict = RowVerdict("info", "tally", {"levels": levels}, better=fig.better)
    return DimensionRow(fig.key, fig.unit, values, verdict, {}, fig.better, "throughput",
                        fig.audience, "tally")


def _concurrencies(tps: Sequence[ThroughputRun]) -> list[int]:
    counts: dict[int, int] = {}
    for r in tps:
        for c in {c.concurrency for c in r.closed_loop_cells if c.concurrency is not None}:
            counts[c] = counts.get(c, 0) + 1
    need = 2 if len(tps) > 1 else 1
    return sorted(c for c, n in counts.items() if n >= need)


def _throughput_rows(runs: Sequence) -> list[DimensionRow]:
    tps = [r for r in runs if isinstance(r, ThroughputRun)]
    if not tps:
        return []
    shapes: dict[int, list[Shape]] = {}
    unmatched = []
    for c in _concurrencies(tps):
        present = [set(_cells_at(r, c)) for r in tps if _cells_at(r, c)]
        common = set.intersection(*present) if present else set()
        if not common and len(present) > 1:
            unmatched.append(c)  # the sweeps share no cell at this load: nothing to compare
        shapes[c] = sorted(common)
    rows: list[DimensionRow] = []
    for fig in compared_figures():
        cells = [_cell_row(runs, fig, c, s) for c, ss in shapes.items() for s in ss
                 if not (fig.relative_to_c1 is not None and c == 1)]
        cells = [r for r in cells if any(v.available for v in r.values)]
        if not cells and fig.key == "goodput":
            continue  # no run set targets
        if not cells and not unmatched:
            continue
        rows.append(_tally_row(runs, fig, cells, unmatched))
        rows += cells
    rows.append(_bottleneck_row(runs))
    return rows


def _bottleneck_row(runs: Sequence) -> DimensionRow:
    vals = []
    for r in runs:
        if not isinstance(r, ThroughputRun):
            vals.append(DimValue())
            continue
        # A finding the diagnosis calls a problem first; a "possible" one only when no run
        # of this one has a problem (marked so the words say "possible").
        main = next((f for code in BOTTLENECK_CODES for f in r.findings
                     if f.code == code and f.severity == "problem"), None) or next(
            (f for code in BOTTLENECK_CODES for f in r.findings if f.code == code), None)
        doubts = [f.code for f in r.findings if f.code in ("client_bound", "token_count_mismatch")]
        if main is None:
            vals.append(DimValue(text="none", detail={"doubts": doubts}))
        else:
            # The finding as a code and values (`report.diagnosis_words.finding_text` puts it
            # in the reader's words): the core keeps no sentence of its own here.
            vals.append(DimValue(text=main.code, detail={
                "finding": main, "severity": main.severity, "doubts": doubts,
                "cap": main.evidence.get("cap"), "possible": main.severity != "problem"}))
    texts = {i: v.text for i, v in enumerate(vals) if v.text is not None}
    # The same bottleneck only when its figures agree too: caps of 1 and 2 are two findings.
    kinds = {(v.text, v.detail.get("cap"), v.detail.get("possible", False))
             for v in vals if v.text is not None}
    if len(texts) < 2:
        v = RowVerdict("n/a", "only_one" if texts else "none",
                       {"run": next(iter(texts))} if texts else {})
    elif len(kinds) == 1:
        v = RowVerdict("info", "same_bottleneck", {"bottleneck": next(iter(texts.values()))})
    else:
        v = RowVerdict("info", "different_bottlenecks", {"bottlenecks": texts})
    return DimensionRow("bottleneck", "", tuple(vals), v, {}, None, "throughput")


# --------------------------------------------------------------------------- SQL rows


def _outcomes(run: SqlRun, judge: str, tier: str | None) -> dict[tuple[str, int], bool]:
    return {(q.question_id, q.epoch): o for q in run.questions
            if (tier is None or q.tier == tier) and (o := q.outcome(judge)) is not None}


def _mcnemar(runs: Sequence, judge: str, tier: str | None) -> PairTest | None:
    """The paired test for two runs with (question, epoch) pairs in common (None when a row's
    runs never share one: then Wilson intervals decide)."""
    def test(i: int, j: int) -> tuple[bool, int | None, str, dict]:
        a, b = sorted((i, j))  # A is the run given first, B the other: "B fixes 13, breaks 0"
        oa, ob = _outcomes(runs[a], judge, tier), _outcomes(runs[b], judge, tier)
        keys = oa.keys() & ob.keys()
        fixes = sum(1 for k in keys if ob[k] and not oa[k])
        breaks = sum(1 for k in keys if oa[k] and not ob[k])
        p = mcnemar_exact(fixes, breaks)
        significant = p < ALPHA and fixes != breaks
        winner = (b if fixes > breaks else a) if significant else None
        return significant, winner, "mcnemar-exact", {
            "a": a, "b": b, "fixes": fixes, "breaks": breaks, "p_value": p, "paired": len(keys)}

    sqls = [r for r in runs if isinstance(r, SqlRun)]
    keysets = [set(_outcomes(r, judge, tier)) for r in sqls]
    if len(keysets) >= 2 and all(ka & kb for n, ka in enumerate(keysets)
                                 for kb in keysets[n + 1:]):
        return test
    return None


def _pass_row(runs: Sequence, judge: str, tier: str | None) -> DimensionRow:
    vals = []
    for r in runs:
        count = r.pass_count(judge, tier) if isinstance(r, SqlRun) else None
        if count is None or not count.judged:
            vals.append(DimValue())
            continue
        detail: dict[str, Any] = {"passed": count.passed, "total": count.judged, "unfinished": count.unfinished,
                  "client_bound": False}
        if tier is not None and judge == "strict" and "tolerant" in r.judges:
            tol = r.pass_count("tolerant", tier)
            if tol.judged:
                detail["tolerant_passed"] = tol.passed
        spread = r.spread.get(judge) if tier is None else None
        if spread is not None and len(spread.rates) > 1:
            detail["epochs"] = {"rates": list(spread.rates), "mean": spread.mean,
                                "std": spread.std, "min": spread.min, "max": spread.max}
        est = wilson(count.passed, count.judged)
        assert est is not None  # count.judged > 0
        vals.append(DimValue(est.value, est, detail=detail))
    values = tuple(vals)
    verdict = _decide(values, "higher", points=True, pair_test=_mcnemar(runs, judge, tier))
    key, params = ("pass_rate", {"judge": judge}) if tier is None else (
        "tier_pass_rate", {"judge": judge, "tier": tier})
    return DimensionRow(key, "fraction", values, verdict, params, "higher", "sql")


def _effort_row(runs: Sequence, key: str, tier: str, unit: str,
                of: Callable[[Any], float]) -> DimensionRow:
    vals = []
    for r in runs:
        qs = [q for q in r.judged if q.tier == tier] if isinstance(r, SqlRun) else []
        est = bootstrap([of(q) for q in qs], "mean") if qs else None
        if est is None:
            vals.append(DimValue())
            continue
        detail: dict[str, Any] = {"questions": len(qs), "client_bound": False}
        if key == "tier_tokens":
            detail.update(prompt=fmean(q.prompt_tokens for q in qs),
                          completion=fmean(q.completion_tokens for q in qs))
        vals.append(DimValue(est.value, est, detail=detail))
    values = tuple(vals)
    return DimensionRow(key, unit, values, _decide(values, "lower"), {"tier": tier}, "lower",
                        "sql")


def _failure_row(runs: Sequence, strict: RowVerdict | None) -> DimensionRow:
    """The main failure classes per run. Which run fails least is the strict pass rate's
    verdict (`strict`: its McNemar or Wilson test): named only when that row names a winner,
    else "failures_even", so two runs with the same failures never have a winner here."""
    vals = []
    for r in runs:
        if not isinstance(r, SqlRun):
            vals.append(DimValue())
            continue
        classes = r.failure_classes()
        vals.append(DimValue(text=", ".join(c for c, _ in classes[:3]) or "none", detail={
            "classes": classes[:3], "failures": sum(n for _, n in classes),
            "questions": len(r.judged),
            "missing_round": r.explained().get("missing_round", 0)}))
    present = [(i, v) for i, v in enumerate(vals) if v.text is not None]
    if len(present) < 2:
        v = RowVerdict("n/a", "only_one" if present else "none",
                       {"run": present[0][0]} if present else {})
    else:
        shares = {i: v.detail["failures"] / max(v.detail["questions"], 1) for i, v in present}
        if strict is not None and strict.significant and strict.winner in shares:
            i = strict.winner
            v = RowVerdict("info", "fewest_failures", {"run": i, "share": shares[i]}, leader=i)
        else:
            v = RowVerdict("info", "failures_even", {"shares": shares})
    return DimensionRow("failure_classes", "", tuple(vals), v, {}, None, "sql")


def _sql_rows(runs: Sequence) -> list[DimensionRow]:
    sqls = [r for r in runs if isinstance(r, SqlRun)]
    if not sqls:
        return []
    judges = list(compared_judges(sqls))
    rows = [_pass_row(runs, j, None) for j in judges]
    tiers = [t for t in TIERS if any(q.tier == t for r in sqls for q in r.judged)]
    if "strict" in judges:
        rows += [_pass_row(runs, "strict", t) for t in tiers]
    for tier in tiers:
        rows.append(_effort_row(runs, "tier_steps", tier, "steps", lambda q: q.step_count))
        rows.append(_effort_row(runs, "tier_tokens", tier, "tokens", lambda q: q.tokens))
    strict = next((r.verdict for r in rows if r.key == "pass_rate"
                   and r.params.get("judge") == "strict"), None)
    rows.append(_failure_row(runs, strict))
    return rows


def dimension_rows(runs: Sequence[ThroughputRun | SqlRun]) -> list[DimensionRow]:
    """Every dimension row for `runs` (in the given order); see the module doc. Pure (the
    bootstrap is seeded from the data)."""
    runs = list(runs)
    return _throughput_rows(runs) + _sql_rows(runs)


def _replay_pairs(points: Sequence) -> PairTest | None:
    """The paired test for replays of the same conversations (None unless every two of the
    row's points share at least two finished tasks): `replay.paired_ratio`, a winner when its
    interval excludes 1 and the ratio is at least MIN_EFFECT away from it."""
    def test(i: int, j: int) -> tuple[bool, int | None, str, dict]:
        est, n = paired_ratio(points[i], points[j])
        if est is None:
            return False, None, "bootstrap-paired", {"paired": n}
        apart = est.low > 1 or est.high < 1
        winner = (i if est.value > 1 else j) if apart and abs(est.value - 1) >= MIN_EFFECT \
            else None
        return winner is not None, winner, "bootstrap-paired", {
            "paired": n, "ratio": est.value, "ratio_low": est.low, "ratio_high": est.high,
            "a": i, "b": j}

    have = [p for p in points if p is not None and p.task_ids]
    if len(have) < 2 or any(paired_ratio(x, y)[0] is None for n, x in enumerate(have)
                            for y in have[n + 1:]):
        return None
    return test


def replay_rows(runs: Sequence[ThroughputRun | SqlRun], measured: Sequence) -> list[DimensionRow]:
    """Tasks per hour measured by replay (`throughput.replay`), a row per number of agents
    that at least one sweep's server was replayed at: each sweep's value is its server's
    replay (`measured[i]`: the StoredReplay of sweep i in the order the sweeps come in `runs`,
    or None), its interval the bootstrap over the tasks; decided as the other rows (outside
    both intervals and at least MIN_EFFECT apart). `params`: sessions, and the SQL runs whose
    conversations were replayed (`sql_runs`). Replays of one SQL run's conversations are
    decided task by task (`_replay_pairs`); replays of different ones measured different work,
    and the row says so ("different_tasks") instead of naming a server."""
    sweeps = [i for i, r in enumerate(runs) if isinstance(r, ThroughputRun)]
    by_run = dict(zip(sweeps, measured))
    sessions = sorted({p.sessions for r in measured if r is not None for p in r.points})
    rows = []
    for n in sessions:
        values, points = [], []
        for i in range(len(runs)):
            point = by_run[i].point(n) if by_run.get(i) is not None else None
            est = point.tasks_per_hour if point is not None else None
            points.append(point if est is not None else None)
            values.append(DimValue(est.value, est, detail={"replay": by_run[i].info.id})
                          if est is not None else DimValue())
        sql_runs = sorted({r.sql_run for r in measured if r is not None and r.point(n)})
        verdict = (_decide(values, "higher", pair_test=_replay_pairs(points))
                   if len(sql_runs) == 1 else
                   RowVerdict("n/a", "different_tasks", {"sql_runs": sql_runs},
                              better="higher"))
        rows.append(DimensionRow("replay_tasks_per_hour", "tasks/h", tuple(values), verdict,
                                 {"sessions": n, "sql_runs": sql_runs}, "higher",
                                 "throughput", "system"))
    return rows
