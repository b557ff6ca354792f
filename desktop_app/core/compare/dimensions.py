"""The side-by-side table: one row per dimension, one value per run, a verdict in words.

`dimension_rows(runs)` takes summaries from `load.load_run` (throughput and SQL runs in any mix)
and returns :class:`DimensionRow` s in the order of the seed reports: prefill at 1 concurrent,
prefill change at each higher concurrency, decode, TTFT at the longest prompt, the main
bottleneck, then strict and tolerant pass rates, pass rate per tier, mean steps and tokens per
tier, and the main failure classes. A run that lacks a dimension (a SQL run in a throughput row,
a tier it did not ask) gets an empty :class:`DimValue`: shown as n/a, never guessed.

Where runs measured different prompt lengths, the throughput rows average over the lengths every
run measured (`detail["lengths"]`); with none in common each run's own lengths are used and the
row says so (`detail["lengths_differ"]`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import Literal

from desktop_app.core.compare.load import SqlRun, ThroughputRun
from desktop_app.core.sqleval.types import TIERS

__all__ = ["BOTTLENECK_CODES", "NOT_COMPARABLE", "DimValue", "RowVerdict", "DimensionRow",
           "dimension_rows", "run_label", "TIE_RELATIVE", "TIE_POINTS"]

# Server-side findings that name a bottleneck, most telling first; measurement findings
# (client_bound, token_count_mismatch) say the numbers are doubtful, not where time goes.
BOTTLENECK_CODES = ("concurrency_cap", "kv_cache_pressure", "prefill_drop_under_concurrency",
                    "decode_slows_with_batch", "failures", "prefill_slows_with_length")
TIE_RELATIVE = 0.02  # rates within 2 % of each other are a tie: run-to-run noise is that large
TIE_POINTS = 0.005  # pass rates within half a percentage point


@dataclass(frozen=True)
class DimValue:
    """One run's value in a row: `value` (a number in the row's unit) and/or `text` (a code for
    the non-numeric rows); `detail` holds the figures a cell shows beside it. Empty = n/a."""

    value: float | None = None
    text: str | None = None
    detail: dict = field(default_factory=dict, hash=False)

    @property
    def available(self) -> bool:
        return self.value is not None or self.text is not None


@dataclass(frozen=True)
class RowVerdict:
    """Which run wins a row. `status`: "win", "tie", "n/a" (fewer than two runs have the value)
    or "info" (not comparable, e.g. bottlenecks). `diff` is relative (0.1 = 10 % better) for
    `diff_kind` "relative", percentage points as a fraction (0.1 = 10 points) for "points".
    `text` is the verdict in English."""

    status: Literal["win", "tie", "n/a", "info"]
    text: str
    winner: int | None = None
    runner_up: int | None = None
    diff: float | None = None
    diff_kind: Literal["relative", "points"] = "relative"
    better: Literal["higher", "lower"] | None = None


@dataclass(frozen=True)
class DimensionRow:
    """One dimension: `key` (stable, e.g. "prefill_change" with params {"concurrency": 2}),
    `label` in English, `unit` ("tok/s", "s", "fraction", "steps", "tokens", ""), one value per
    run in the order given, and the verdict."""

    key: str
    label: str
    unit: str
    values: tuple[DimValue, ...]
    verdict: RowVerdict
    params: dict = field(default_factory=dict, hash=False)


def run_label(run: ThroughputRun | SqlRun) -> str:
    """How verdicts name a run: '#12' plus its name when it has one."""
    return f"#{run.info.id}" + (f" {run.info.name}" if run.info.name else "")


# --------------------------------------------------------------------------- verdicts


def _fmt(value: float, unit: str) -> str:
    if unit == "fraction":
        return f"{value * 100:.0f} %"
    if unit == "change":
        return f"{value * 100:+.0f} %"
    if unit == "s":
        return f"{value:.2f} s" if value >= 1 else f"{value * 1000:.0f} ms"
    if unit in ("tok/s", "tokens"):
        return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"
    return f"{value:.1f} {unit}".strip()


NOT_COMPARABLE = "not comparable: the runs measured different prompt lengths"


def verdict(values: tuple[DimValue, ...], labels: list[str], unit: str,
            better: Literal["higher", "lower"], points: bool = False) -> RowVerdict:
    """Who wins among the runs with a value: the best against the runner-up, in words. Values
    taken at different prompt lengths (`detail["lengths_differ"]`) are not ranked."""
    have = [(i, v.value) for i, v in enumerate(values) if v.value is not None]
    kind = "points" if points else "relative"
    if not have:
        return RowVerdict("n/a", "n/a: no run measured this", better=better, diff_kind=kind)
    if len(have) == 1:
        return RowVerdict("n/a", f"n/a: only {labels[have[0][0]]} measured this",
                          better=better, diff_kind=kind)
    if any(values[i].detail.get("lengths_differ") for i, _ in have):
        return RowVerdict("n/a", NOT_COMPARABLE, better=better, diff_kind=kind)
    ranked = sorted(have, key=lambda iv: iv[1], reverse=better == "higher")
    (w, best), (r, second) = ranked[0], ranked[1]
    if points:
        diff = abs(best - second)
        tie = diff < TIE_POINTS
        by = f"{diff * 100:.0f} points"
    else:
        base = second if better == "higher" else best
        diff = abs(best - second) / abs(base) if base else None
        tie = diff is not None and diff < TIE_RELATIVE
        if diff is None:
            by = "from zero"
        elif better == "lower" and second:
            by = f"{abs(second - best) / abs(second) * 100:.0f} % lower"
        else:
            by = f"{diff * 100:.0f} % {'higher' if better == 'higher' else 'lower'}"
    figures = f"{_fmt(best, unit)} vs {_fmt(second, unit)}"
    if tie:
        return RowVerdict("tie", f"about even: {figures}", w, r, diff, kind, better)
    return RowVerdict("win", f"{labels[w]} wins: {figures} ({by})", w, r, diff, kind, better)


# --------------------------------------------------------------------------- throughput rows


def _common_lengths(runs: list[ThroughputRun], concurrency: int) -> tuple[list[int] | None, bool]:
    sets = [{c.input_tokens for c in r.cells if c.concurrency == concurrency} for r in runs]
    sets = [s for s in sets if s]
    if not sets:
        return None, False
    common = set.intersection(*sets)
    return (sorted(common), False) if common else (None, len(sets) > 1)


def _avg(run: ThroughputRun, concurrency: int, lengths: list[int] | None, attr: str
         ) -> tuple[float | None, list[int]]:
    cells = [c for c in run.cells if c.concurrency == concurrency
             and (lengths is None or c.input_tokens in lengths)
             and getattr(c, attr) is not None]
    if not cells:
        return None, []
    return fmean(getattr(c, attr) for c in cells), sorted({c.input_tokens for c in cells})


def _throughput_rows(runs: list, labels: list[str]) -> list[DimensionRow]:
    tps = [r for r in runs if isinstance(r, ThroughputRun)]
    if not tps:
        return []
    rows = []
    # Prefill at 1 concurrent.
    lengths, differ = _common_lengths(tps, 1)
    vals = []
    for r in runs:
        if not isinstance(r, ThroughputRun):
            vals.append(DimValue())
            continue
        mean, used = _avg(r, 1, lengths, "prefill_tps")
        per = {c.input_tokens: c.prefill_tps for c in r.cells
               if c.concurrency == 1 and c.prefill_tps is not None}
        detail = {"lengths": used, "lengths_differ": differ}
        if per:
            lo, hi = min(per, key=per.get), max(per, key=per.get)
            detail.update(min=per[lo], min_tokens=lo, max=per[hi], max_tokens=hi)
        vals.append(DimValue(mean, detail=detail))
    rows.append(DimensionRow("prefill_c1", "Prefill at 1 concurrent (mean tok/s per request)",
                             "tok/s", tuple(vals), verdict(tuple(vals), labels, "tok/s", "higher")))
    # Prefill change at each higher concurrency.
    for conc in sorted({c for r in tps for c in r.concurrencies() if c > 1}):
        lengths, differ = _common_lengths(tps, conc)
        vals = []
        for r in runs:
            if not isinstance(r, ThroughputRun):
                vals.append(DimValue())
                continue
            mean, used = _avg(r, conc, lengths, "prefill_change")
            # A ratio to the run's own 1-concurrent figure: comparable across prompt lengths.
            vals.append(DimValue(mean, detail={"lengths": used, "lengths_note": differ}))
        rows.append(DimensionRow(
            "prefill_change", f"Prefill change at {conc} concurrent vs 1", "change", tuple(vals),
            verdict(tuple(vals), labels, "change", "higher", points=True), {"concurrency": conc}))
    # Decode at 1 concurrent, with the range under load beside it.
    lengths, differ = _common_lengths(tps, 1)
    vals = []
    for r in runs:
        if not isinstance(r, ThroughputRun):
            vals.append(DimValue())
            continue
        mean, used = _avg(r, 1, lengths, "decode_tps")
        loaded = [c.decode_tps for c in r.cells if c.concurrency > 1 and c.decode_tps is not None]
        detail = {"lengths": used, "lengths_differ": differ}
        if loaded:
            detail.update(loaded_min=min(loaded), loaded_max=max(loaded))
        vals.append(DimValue(mean, detail=detail))
    rows.append(DimensionRow("decode_c1", "Decode at 1 concurrent (mean tok/s per request)",
                             "tok/s", tuple(vals), verdict(tuple(vals), labels, "tok/s", "higher")))
    rows.append(_ttft_row(runs, tps, labels))
    rows.append(_bottleneck_row(runs, labels))
    return rows


def _ttft_row(runs: list, tps: list[ThroughputRun], labels: list[str]) -> DimensionRow:
    lengths, differ = _common_lengths(tps, 1)
    vals = []
    for r in runs:
        if not isinstance(r, ThroughputRun):
            vals.append(DimValue())
            continue
        own = sorted({c.input_tokens for c in r.cells if c.concurrency == 1})
        at = (lengths or own or [None])[-1]
        cell = r.cell(at, 1) if at is not None else None
        if cell is None or cell.ttft_s is None:
            vals.append(DimValue())
            continue
        top = max(r.concurrencies())
        loaded = r.cell(at, top)
        detail = {"tokens": at, "lengths_differ": differ}
        if top > 1 and loaded is not None and loaded.ttft_s is not None:
            detail.update(top_concurrency=top, top_ttft_s=loaded.ttft_s)
        vals.append(DimValue(cell.ttft_s, detail=detail))
    return DimensionRow("ttft_longest", "TTFT at the longest prompt, 1 concurrent (mean)", "s",
                        tuple(vals), verdict(tuple(vals), labels, "s", "lower"))


def _bottleneck_row(runs: list, labels: list[str]) -> DimensionRow:
    vals = []
    for r in runs:
        if not isinstance(r, ThroughputRun):
            vals.append(DimValue())
            continue
        main = next((f for code in BOTTLENECK_CODES for f in r.findings if f.code == code), None)
        doubts = [f.code for f in r.findings if f.code in ("client_bound", "token_count_mismatch")]
        if main is None:
            vals.append(DimValue(text="none", detail={"doubts": doubts}))
        else:
            vals.append(DimValue(text=main.code, detail={
                "message": main.message, "severity": main.severity, "doubts": doubts,
                "cap": main.evidence.get("cap")}))
    texts = [(i, v.text) for i, v in enumerate(vals) if v.text is not None]
    if len(texts) < 2:
        v = RowVerdict("n/a", "n/a: fewer than two throughput runs")
    elif len({t for _, t in texts}) == 1:
        v = RowVerdict("info", f"the same bottleneck in every run: {texts[0][1]}")
    else:
        v = RowVerdict("info", "different bottlenecks: " + "; ".join(
            f"{labels[i]} {t}" for i, t in texts))
    return DimensionRow("bottleneck", "Main bottleneck (diagnosis)", "", tuple(vals), v)


# --------------------------------------------------------------------------- SQL rows


def _sql_rows(runs: list, labels: list[str]) -> list[DimensionRow]:
    sqls = [r for r in runs if isinstance(r, SqlRun)]
    if not sqls:
        return []
    rows = []
    judges = [j for j in ("strict", "tolerant", "full") if any(j in r.summary for r in sqls)]
    for judge in judges:
        vals = []
        for r in runs:
            s = r.summary.get(judge) if isinstance(r, SqlRun) else None
            vals.append(DimValue(s.passed / s.total, detail={"passed": s.passed, "total": s.total})
                        if s is not None and s.total else DimValue())
        rows.append(DimensionRow("pass_rate", f"{judge.capitalize()} pass rate", "fraction",
                                 tuple(vals), verdict(tuple(vals), labels, "fraction", "higher",
                                                      points=True), {"judge": judge}))
    tiers = [t for t in TIERS if any(t in r.tiers for r in sqls)]
    for tier in tiers:
        vals = []
        for r in runs:
            s = r.summary.get("strict") if isinstance(r, SqlRun) else None
            if s is None or tier not in s.by_tier:
                vals.append(DimValue())
                continue
            ok, n = s.by_tier[tier]
            detail = {"passed": ok, "total": n}
            tol = r.summary.get("tolerant")
            if tol is not None and tier in tol.by_tier:
                detail["tolerant_passed"] = tol.by_tier[tier][0]
            vals.append(DimValue(ok / n if n else None, detail=detail))
        rows.append(DimensionRow("tier_pass_rate", f"Strict pass rate, {tier}", "fraction",
                                 tuple(vals), verdict(tuple(vals), labels, "fraction", "higher",
                                                      points=True), {"tier": tier}))
    for tier in tiers:
        steps, tokens = [], []
        for r in runs:
            t = r.tiers.get(tier) if isinstance(r, SqlRun) else None
            if t is None:
                steps.append(DimValue())
                tokens.append(DimValue())
                continue
            steps.append(DimValue(t.mean_steps, detail={"questions": t.questions}))
            tokens.append(DimValue(t.mean_prompt_tokens + t.mean_completion_tokens, detail={
                "prompt": t.mean_prompt_tokens, "completion": t.mean_completion_tokens}))
        rows.append(DimensionRow("tier_steps", f"Mean steps per question, {tier}", "steps",
                                 tuple(steps), verdict(tuple(steps), labels, "steps", "lower"),
                                 {"tier": tier}))
        rows.append(DimensionRow("tier_tokens", f"Mean tokens per question, {tier}", "tokens",
                                 tuple(tokens), verdict(tuple(tokens), labels, "tokens", "lower"),
                                 {"tier": tier}))
    vals = []
    for r in runs:
        if not isinstance(r, SqlRun):
            vals.append(DimValue())
            continue
        classes = r.failure_classes()[:3]
        vals.append(DimValue(text=", ".join(c for c, _ in classes) or "none", detail={
            "classes": classes, "failures": sum(n for _, n in r.failure_classes()),
            "questions": len(r.questions)}))
    present = [(i, v) for i, v in enumerate(vals) if v.text is not None]
    if len(present) < 2:
        v = RowVerdict("n/a", "n/a: fewer than two SQL runs")
    else:
        share = [(i, v.detail["failures"] / max(v.detail["questions"], 1)) for i, v in present]
        fewest = min(share, key=lambda iv: iv[1])
        v = RowVerdict("info", f"fewest strict failures: {labels[fewest[0]]} "
                       f"({fewest[1] * 100:.0f} % of its questions)", fewest[0])
    rows.append(DimensionRow("failure_classes", "Main failure classes (strict)", "",
                             tuple(vals), v))
    return rows


def dimension_rows(runs: list[ThroughputRun | SqlRun]) -> list[DimensionRow]:
    """Every dimension row for `runs` (in the given order); see the module doc. Pure."""
    labels = [run_label(r) for r in runs]
    return _throughput_rows(runs, labels) + _sql_rows(runs, labels)
