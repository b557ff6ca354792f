"""What every importer produces, and how it becomes a stored throughput run.

An importer reads one file into an :class:`ImportedRun`: one :class:`ImportedCell` per
benchmark in the file, each with a ``summary`` in exactly the shape our own cells store
(:func:`summary`), and per-request rows where the file has them. A metric the file does not
carry is None, never estimated; the run's configuration names the source tool and lists what is
missing, so the app and the reports can say so.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from desktop_app.core.parsing import Phrase
from desktop_app.core.metrics import (
    CellAccumulator,
    RequestMetrics,
    RequestTiming,
    request_metrics,
)
from desktop_app.core.store import Store

# Our cell metrics, in the order the missing-metrics list names them.
CELL_METRICS = ("ttft_s", "prefill_tps", "decode_tps", "tpot_s", "itl_s", "e2e_s", "wall_s",
                "output_tps", "effective_prefill_tps", "effective_decode_tps", "prompt_tokens",
                "completion_tokens")


@dataclass
class ImportedCell:
    """One benchmark of the file: a load point. ``requests`` are ``tp_requests`` rows without
    ``run_id``/``cell_id``; ``summary`` has the keys of our stored cell summaries."""

    summary: dict[str, Any]
    input_tokens: int | None = None
    output_tokens: int | None = None
    concurrency: int | None = None
    request_rate: float | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    started_at: str | None = None
    ended_at: str | None = None


@dataclass
class ImportedRun:
    """A whole file. ``source`` is the tool's short name (``vllm-bench-serve``, ``aiperf``,
    ``guidellm``); ``details`` go into the run's configuration beside it."""

    source: str
    label: str  # the tool's name as people write it, e.g. "vllm bench serve"
    model: str | None
    endpoint_url: str | None
    cells: list[ImportedCell]
    details: dict[str, Any] = field(default_factory=dict)


def finite(value: Any) -> float | None:
    """``value`` as a float, or None when it is missing, NaN or infinite: vLLM writes NaN means
    when every request failed, and a NaN is a missing figure, not a number."""
    if value is None or isinstance(value, bool):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def dist(n: int | None = None, mean: float | None = None, p50: float | None = None,
         p90: float | None = None, p99: float | None = None, min: float | None = None,
         max: float | None = None, scale: float = 1.0) -> dict[str, Any] | None:
    """A distribution in our stored shape, every value times ``scale`` (e.g. 1e-3 for ms to s);
    None when even the mean is unknown. Statistics the file lacks stay None."""
    if finite(mean) is None:
        return None

    def s(v):
        v = finite(v)
        return None if v is None else v * scale

    return {"n": None if n is None else int(n), "mean": s(mean), "p50": s(p50), "p90": s(p90),
            "p99": s(p99), "min": s(min), "max": s(max)}


def summary(*, count: int | None, ok: int | None, failures_by_class: dict[str, int] | None = None,
            **metrics: Any) -> dict[str, Any]:
    """A cell summary in our stored shape (``CellSummary.to_dict()`` plus the sweep's extras);
    every metric not given is None. Unknown metric names are a bug and raise KeyError."""
    unknown = set(metrics) - set(CELL_METRICS)
    if unknown:
        raise KeyError(f"not cell metrics: {sorted(unknown)}")
    out: dict[str, Any] = {"count": count, "ok": ok,
                           "failures_by_class": dict(failures_by_class or {})}
    out.update({m: metrics.get(m) if isinstance(metrics.get(m), (dict, type(None)))
                else finite(metrics[m]) for m in CELL_METRICS})
    for key in ("prompt_tokens", "completion_tokens"):
        if out[key] is not None:
            out[key] = int(out[key])
    out.update(prefill_change=None, decode_change=None, goodput=None, token_mismatches=None,
               client_load=None, status="completed")
    return out


def summary_from_timings(timings: CellAccumulator | list[RequestTiming], wall_s: float | None,
                         failures_by_class: dict[str, int] | None = None,
                         timeline: bool = True) -> dict[str, Any]:
    """A cell summary computed with our own definitions from per-request timings a file gave
    (or from the accumulator they were added to as the file was read).

    ``timeline=False`` when the file has no send times: per-request figures stand, but the
    time-weighted (effective) throughputs, which need the requests' overlap, are left None.
    ``failures_by_class`` replaces our classes with the tool's own names when given.
    """
    if isinstance(timings, CellAccumulator):
        acc = timings
    else:
        acc = CellAccumulator()
        for t in timings:
            acc.add(t)
    s = acc.summary(wall_s).to_dict()
    if not timeline:
        s["effective_prefill_tps"] = s["effective_decode_tps"] = None
    if failures_by_class is not None:
        s["failures_by_class"] = dict(failures_by_class)
    return summary(count=s.pop("count"), ok=s.pop("ok"), failures_by_class=s.pop(
        "failures_by_class"), **{k: v for k, v in s.items() if k in CELL_METRICS})


def request_row(seq: int, timing: RequestTiming, *, tokens_source: str,
                error_message: str | None = None, sent_at: float | None = None,
                metrics: RequestMetrics | None = None) -> dict[str, Any]:
    """A ``tp_requests`` row for one imported request, figures by our definitions
    (``metrics``: the request's figures where the caller has computed them already)."""
    m = metrics or request_metrics(timing)
    return {"seq": seq, "warmup": 0, "sent_at": sent_at, "ttft_s": m.ttft_s, "e2e_s": m.e2e_s,
            "prompt_tokens": timing.prompt_tokens, "completion_tokens": timing.completion_tokens,
            "tokens_source": tokens_source, "prefill_tps": m.prefill_tps,
            "decode_tps": m.decode_tps, "tpot_s": m.tpot_s,
            # As JSON text: the store takes it as is, and the C encoder is quick on 100k rows.
            "itl_s": json.dumps(m.itl_s) if m.itl_s else None,
            "error_class": timing.error_class,
            "error_message": error_message}


# What no benchmark can have measured: a file claiming more is damaged or made up, and its
# figures would sit beside measured ones in a comparison. Per request a count of tokens is held
# to what a client accepts from a live server (limits.MAX_PLAUSIBLE_TOKENS).
MAX_IMPORTED_SECONDS = 1e7  # about 116 days: a duration, a latency
MAX_IMPORTED_RATE = 1e9  # tokens (or requests) per second, a whole cluster's prefill included
MAX_IMPORTED_COUNT = 1e12  # requests or tokens of a cell; below SQLite's 2**63 integers


def _bound(key: str) -> float:
    if key.endswith("_tps") or key == "request_rate":
        return MAX_IMPORTED_RATE
    if key.endswith("_s"):
        return MAX_IMPORTED_SECONDS
    return MAX_IMPORTED_COUNT


def _impossible(key: str, value: Any) -> Phrase | None:
    """Why ``value`` (under ``key``) cannot have been measured, or None when it can."""
    if value is None or isinstance(value, (bool, str)):
        return None
    if not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return Phrase("why_not_finite")
    if value < 0:
        return Phrase("why_negative")
    if value > _bound(key):
        return Phrase("why_beyond", {"high": _bound(key)})
    return None


def check_plausible(run: ImportedRun, where: str) -> None:
    """ExchangeError naming ``where``, the cell (or request) and the value when a figure of
    ``run`` is negative, not finite or beyond what any benchmark measures; nothing is stored
    from such a file (the sweep flags the same of a live server)."""
    from desktop_app.core.endpoint.limits import MAX_PLAUSIBLE_TOKENS
    from desktop_app.core.exchange.errors import ExchangeError

    def refuse(place: Phrase, key: str, value: Any, why: Phrase) -> None:
        raise ExchangeError(where, code="import_implausible", place=place, key=key,
                            value=f"{value!r:.40}", why=why)

    for number, cell in enumerate(run.cells, 1):
        what = Phrase("place_result", {"result": number})

        def request(row: dict, number: int = number) -> Phrase:
            return Phrase("place_request", {"result": number, "request": row.get("seq", 0) + 1})
        for key in ("input_tokens", "output_tokens", "concurrency", "request_rate"):
            why = _impossible(key, getattr(cell, key))
            if why:
                refuse(what, key, getattr(cell, key), why)
        # The requests first: a figure derived from a damaged one is named by its source.
        for row in cell.requests:
            for key in ("prompt_tokens", "completion_tokens"):
                v = row.get(key)
                if isinstance(v, int) and not 0 <= v <= MAX_PLAUSIBLE_TOKENS:
                    refuse(request(row), key, v, Phrase("why_negative") if v < 0 else
                           Phrase("why_too_many_tokens", {"high": MAX_PLAUSIBLE_TOKENS}))
            for key in ("ttft_s", "e2e_s", "tpot_s", "sent_at", "prefill_tps", "decode_tps"):
                why = _impossible(key, row.get(key))
                if why:
                    refuse(request(row), key, row.get(key), why)
        for key, value in cell.summary.items():
            stats = value.items() if isinstance(value, dict) else [(None, value)]
            for stat, v in stats:
                why = _impossible(key, v)
                if why and key != "failures_by_class":
                    refuse(what, key if stat is None else f"{key} {stat}", v, why)
            if key == "failures_by_class" and isinstance(value, dict):
                for name, n in value.items():
                    why = _impossible("count", n)
                    if why:
                        refuse(what, f"failures ({name})", n, why)


def missing_metrics(cells: list[ImportedCell]) -> list[str]:
    """Our metrics that no cell of the file provides."""
    return [m for m in CELL_METRICS if all(c.summary.get(m) is None for c in cells)]


def store_run(store: Store, imported: ImportedRun, file_name: str) -> int:
    """Store ``imported`` as a finished throughput run and return its id; all or nothing.

    The run is named "<tool>: <file>"; its configuration holds ``source``, ``file``, the tool's
    details and ``missing`` (metrics absent from every cell).
    """
    config = {"source": imported.source, "imported_from": imported.label, "file": file_name,
              "missing": missing_metrics(imported.cells), **imported.details}
    run_id = store.create_run("throughput", name=f"{imported.label}: {file_name}",
                              endpoint_url=imported.endpoint_url, model=imported.model,
                              engine=None, config=config,
                              notes=f"Imported from a {imported.label} result file; metrics "
                                    "it does not carry are missing, not estimated.")
    try:
        writer = store.writer() if any(c.requests for c in imported.cells) else None
        try:
            for index, cell in enumerate(imported.cells):
                cell_id = store.add_cell(
                    run_id, cell_index=index, input_tokens=cell.input_tokens,
                    output_tokens=cell.output_tokens, concurrency=cell.concurrency,
                    request_rate=cell.request_rate, status="completed",
                    started_at=cell.started_at, ended_at=cell.ended_at, summary=cell.summary)
                for row in cell.requests:  # a cell with requests made `writer`
                    assert writer is not None
                    writer.add_request({**row, "run_id": run_id, "cell_id": cell_id})
        finally:
            if writer is not None:
                writer.close()
        store.finish_run(run_id, "completed")
    except BaseException:
        store.delete_run(run_id)
        raise
    return run_id
