"""The figures of a sweep cell, one descriptor each, read by every view that shows or compares
them: the cell's stored estimates (`records.StoredCell.figures`), the comparison's rows
(`compare.dimensions`), the cell table of the window and of the terminal (`core.tables`,
`gui.models.cells`), the columns of ``cells.csv`` (`exchange.tp_export`) and the PDF. Their words
are `report.figure_words`' (the core keeps none).

Adding a figure is one `register(CellFigure(...))` and its words (docs/ARCHITECTURE.md). The
definitions of the per-request and cell metrics they read are `core.metrics`'.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from desktop_app.core.metrics import CellSummary, RequestMetrics, RequestTiming
from desktop_app.core.stats import Estimate, bootstrap, point, ratio_estimate, wilson
from desktop_app.core.throughput.types import CellResult

Better = Literal["higher", "lower"]
Audience = Literal["system", "user"]
# How the client's own lateness can move a figure (`compare.dimensions._widened`): "time" (a
# time stamped once per request: TTFT), "rate_of_time" (a rate over such a time: prefill),
# "per_token" (a gap spread over the tokens: TPOT, decode) or "none" (the cell's wall clock,
# moved by at most one late stamp in thousands: the system rates).
Lag = Literal["time", "rate_of_time", "per_token", "none"]


class Shown(Protocol):
    """What a table row shows a cell from: a sweep's CellResult, a what-if cell, a table row."""

    @property
    def summary(self) -> CellSummary: ...

    @property
    def prefill_change(self) -> float | None: ...


@dataclass(frozen=True)
class CellSample:
    """What a cell's estimates are computed from: its result, its completed requests and their
    per-request figures (same order)."""

    result: CellResult
    ok: Sequence[RequestTiming]
    per: Sequence[RequestMetrics]


@dataclass(frozen=True)
class Column:
    """A column of the cell table: `key` (its words' key in `report.figure_words`), the value
    it shows of a cell (None: "-"), shown with `spec` after multiplying by `scale`, or as a
    signed percentage when `spec` is "change". `rank` orders the columns of every figure."""

    key: str
    value: Callable[[Shown], float | None]
    spec: str
    rank: int
    scale: float = 1.0

    def text(self, cell: Shown) -> str:
        v = self.value(cell)
        if v is None:
            return "-"
        if self.spec == "change":
            return f"{v * 100:+.0f}%"
        return format(v * self.scale, self.spec)


@dataclass(frozen=True)
class CellFigure:
    """One figure of a cell.

    `key` names it everywhere (the comparison's row, its words, its estimate in
    `StoredCell.figures`); `unit` is that of its value ("s", "tok/s", "req/s", "fraction",
    "change"). `estimate` computes it, with its noise, from a cell's requests (None: it is
    `relative_to_c1`, a change against the concurrency-1 cell of the same lengths, which the
    comparison computes from the `of` figure of both cells). `better` says which way is better
    (None: shown, never compared); `audience` whom it serves: the "system" (what the server
    delivers in all) or each "user" (what one request experiences; drifts more between runs at
    concurrency above 1, so the comparison asks more of it); `lag` how the client's own lateness
    moves it. `columns` are its columns in the cell table. `export` is the stem of its columns in
    ``cells.csv`` (``{export}_low``/``_high``: its interval; and ``{export}``, its value, unless
    `export_value` is False because the summary's columns already carry it). `rank` orders the
    comparison's rows: what the system delivers first, as GuideLLM's and AIPerf's reports do.
    """

    key: str
    unit: str
    rank: int
    estimate: Callable[[CellSample], Estimate | None] | None = None
    better: Better | None = None
    audience: Audience = "user"
    lag: Lag = "none"
    columns: tuple[Column, ...] = ()
    export: str | None = None
    export_value: bool = True
    relative_to_c1: str | None = None  # the figure it is a change of

    @property
    def compared(self) -> bool:
        return self.better is not None


_REGISTRY: dict[str, CellFigure] = {}
_LOCK = threading.Lock()


def register(figure: CellFigure) -> CellFigure:
    """Add `figure` (a second one of the same key replaces the first, so a module reloaded in a
    test does not make two)."""
    if not figure.key.isidentifier():
        raise ValueError(f"a figure's key is a code such as 'ttft', not {figure.key!r}")
    if (figure.estimate is None) == (figure.relative_to_c1 is None):
        raise ValueError(f"figure {figure.key!r}: an estimate, or the figure it is a change of")
    with _LOCK:
        _REGISTRY[figure.key] = figure
    return figure


def unregister(key: str) -> None:
    """Remove a figure (a test's toy figure)."""
    with _LOCK:
        _REGISTRY.pop(key, None)


def figures() -> tuple[CellFigure, ...]:
    """Every registered figure, in the comparison's order."""
    return tuple(sorted(_REGISTRY.values(), key=lambda f: (f.rank, f.key)))


def get(key: str) -> CellFigure | None:
    return _REGISTRY.get(key)


def keys() -> tuple[str, ...]:
    return tuple(f.key for f in figures())


def columns() -> tuple[Column, ...]:
    """The cell table's figure columns, in order."""
    return tuple(sorted((c for f in figures() for c in f.columns), key=lambda c: (c.rank, c.key)))


def estimates(sample: CellSample) -> dict[str, Estimate | None]:
    """Every figure's estimate of one cell (a relative one is the comparison's to compute)."""
    return {f.key: f.estimate(sample) for f in figures() if f.estimate is not None}


# --------------------------------------------------------------------------- how they are computed


def per_request(metric: str, statistic: Literal["mean", "median"],
                summary: Callable[[CellSummary], float | None]
                ) -> Callable[[CellSample], Estimate | None]:
    """An estimate of a per-request figure (`RequestMetrics.<metric>`): `statistic` of the
    completed requests with a bootstrap interval; from the stored summary (`summary`, no
    interval) when the requests are not kept (an imported file)."""

    def estimate(sample: CellSample) -> Estimate | None:
        values = [v for m in sample.per if (v := getattr(m, metric)) is not None]
        if values:
            return bootstrap(values, statistic)
        value = summary(sample.result.summary)
        return None if value is None else point(value, max(sample.result.summary.ok, 1))

    return estimate


def system_rate(tokens: bool) -> Callable[[CellSample], Estimate | None]:
    """A system figure: the cell's measured rate (completion tokens, or completed requests, over
    its wall time) with the relative interval of sum(tokens or 1) / sum(e2e) over the completed
    requests, the closed loop's rate by Little's law, bootstrapped: how much the mix of requests
    the cell happened to draw could move it."""

    def estimate(sample: CellSample) -> Estimate | None:
        s = sample.result.summary
        measured = s.output_tps if tokens else (s.ok / s.wall_s if s.wall_s and s.ok else None)
        if measured is None or not math.isfinite(measured) or measured < 0:
            return None
        pairs = [(t.completion_tokens if tokens else 1.0, m.e2e_s)
                 for t, m in zip(sample.ok, sample.per) if m.e2e_s is not None and m.e2e_s > 0]
        ratio = ratio_estimate([a for a, _ in pairs], [b for _, b in pairs]) if pairs else None
        if ratio is None or not ratio.has_interval or ratio.value <= 0 or not math.isfinite(
                ratio.high):
            return point(measured, max(len(pairs), 1))
        return Estimate(measured, measured * ratio.low / ratio.value,
                        measured * ratio.high / ratio.value, ratio.n, ratio.method)

    return estimate


def _goodput(sample: CellSample) -> Estimate | None:
    """The share of requests meeting the run's targets, with a Wilson interval."""
    result = sample.result
    share, n = result.goodput, result.summary.count
    if share is None or not math.isfinite(share) or not 0 <= share <= 1 or n <= 0:
        return None
    if not result.timings:  # an imported share without its requests
        return point(share, n)
    return wilson(round(share * n), n)


def _stat(dist: str, stat: str) -> Callable[[CellSummary], float | None]:
    def read(s: CellSummary) -> float | None:
        d = getattr(s, dist)
        return None if d is None else getattr(d, stat)
    return read


def _median_or_mean(dist: str) -> Callable[[CellSummary], float | None]:
    def read(s: CellSummary) -> float | None:
        d = getattr(s, dist)
        return None if d is None else (d.p50 if d.p50 is not None else d.mean)
    return read


def _of_summary(read: Callable[[CellSummary], float | None]) -> Callable[[Shown], float | None]:
    return lambda cell: read(cell.summary)


for _figure in (
    CellFigure("output_tps", "tok/s", 10, system_rate(tokens=True), "higher", "system",
               columns=(Column("output_tps", _of_summary(lambda s: s.output_tps), ".1f", 70),)),
    CellFigure("request_rate", "req/s", 20, system_rate(tokens=False), "higher", "system"),
    CellFigure("goodput", "fraction", 30, _goodput, "higher", "system"),
    CellFigure("ttft", "s", 40, per_request("ttft_s", "median", _median_or_mean("ttft_s")),
               "lower", "user", "time", export="ttft_p50_s", export_value=False,
               columns=(Column("ttft_p50", _of_summary(_stat("ttft_s", "p50")), ".3f", 10),
                        Column("ttft_p90", _of_summary(_stat("ttft_s", "p90")), ".3f", 20))),
    CellFigure("tpot", "s", 50, per_request("tpot_s", "median", _stat("tpot_s", "p50")),
               "lower", "user", "per_token",
               columns=(Column("tpot_ms", _of_summary(_stat("tpot_s", "mean")), ".1f", 60,
                               scale=1000.0),)),
    CellFigure("decode", "tok/s", 60, per_request("decode_tps", "mean", _stat("decode_tps",
                                                                             "mean")),
               "higher", "user", "per_token", export="decode_mean_tps", export_value=False,
               columns=(Column("decode", _of_summary(_stat("decode_tps", "mean")), ".1f", 50),)),
    CellFigure("prefill", "tok/s", 70, per_request("prefill_tps", "mean",
                                                   _stat("prefill_tps", "mean")),
               "higher", "user", "rate_of_time", export="prefill_mean_tps", export_value=False,
               columns=(Column("prefill", _of_summary(_stat("prefill_tps", "mean")), ".0f",
                               30),)),
    CellFigure("prefill_change", "change", 80, None, "higher", "user",
               relative_to_c1="prefill",
               columns=(Column("vs_c1", lambda cell: cell.prefill_change, "change", 40),)),
):
    register(_figure)
