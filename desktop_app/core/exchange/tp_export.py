"""A stored throughput run as CSV (one file per cell, one per request) and as JSON.

The JSON gives each cell the keys ``vllm bench serve --save-result --save-detailed`` writes where
the metric is the same (``completed``, ``mean_ttft_ms``, ``p99_ttft_ms``, ``ttfts``, ``itls``, ...),
next to Throughline's own figures under their own names. Every field is listed in docs/EXPORTS.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from desktop_app.core.runs import RunInfo
from desktop_app.core.stats import Estimate
from desktop_app.core.store import Store
from desktop_app.core.throughput import figures as cell_figures
from desktop_app.core.throughput.export import cell_json
from desktop_app.core.throughput.records import (
    StoredCell,
    ThroughputRun,
    iter_request_rows,
    sample_rows,
)

DISTRIBUTIONS = ("ttft_s", "prefill_tps", "decode_tps", "tpot_s", "itl_s", "e2e_s")
STATS = ("n", "mean", "p50", "p90", "p99", "min", "max")
CELL_SCALARS = ("wall_s", "output_tps", "effective_prefill_tps", "effective_decode_tps",
                "prompt_tokens", "completion_tokens", "prefill_change", "decode_change",
                "goodput", "token_mismatches")
CELL_LEAD = ("run_id", "cell_index", "input_tokens", "output_tokens", "concurrency",
             "request_rate", "status", "requests", "ok", "failed", "failures_by_class",
             "input_lengths", "output_lengths")


def figure_columns() -> tuple[str, ...]:
    """The registered figures' columns (`CellFigure.export`): a figure's value where the
    summary's columns do not carry it, then its interval."""
    return tuple(c for stem, value, _ in _stems() for c in (
        ((stem,) if value else ()) + (f"{stem}_low", f"{stem}_high")))


def _stems() -> tuple[tuple[str, bool, cell_figures.CellFigure], ...]:
    """(column stem, whether its value is a column of its own, figure) of each exported one."""
    return tuple((f.export, f.export_value, f) for f in cell_figures.figures()
                 if f.export is not None and f.estimate is not None)


def cell_columns() -> tuple[str, ...]:
    """The columns of ``cells.csv``, in order (docs/EXPORTS.md)."""
    return (CELL_LEAD + tuple(f"{m}_{s}" for m in DISTRIBUTIONS for s in STATS) + CELL_SCALARS
            + ("client_bound",) + figure_columns())


REQUEST_COLUMNS = (
    "run_id", "cell_index", "seq", "warmup", "sent_at", "ttft_s", "e2e_s", "prompt_tokens_target",
    "prompt_tokens", "completion_tokens", "tokens_source", "prefill_tps", "decode_tps", "tpot_s",
    "itl_count", "itl_s", "error_class", "error_message", "finish_reason", "response_id",
    "status_code", "ttft_answer_s", "reasoning_chunks",
)
# vLLM's latency keys, from our distribution in seconds: (vLLM metric, ours).
_VLLM_LATENCIES = (("ttft", "ttft_s"), ("tpot", "tpot_s"), ("itl", "itl_s"), ("e2el", "e2e_s"))


def cell_row(run_id: int, cell: StoredCell) -> dict[str, Any]:
    """One row of ``cells.csv``: the cell's shape, counts, every stored figure (None is
    missing) and the intervals of the compared figures."""
    s = cell.summary
    d = s.to_dict()
    known = cell.counts_known
    row: dict[str, Any] = {
        "run_id": run_id, "cell_index": cell.index, "input_tokens": cell.input_tokens,
        "output_tokens": cell.output_tokens, "concurrency": cell.concurrency,
        "request_rate": cell.request_rate, "status": cell.stored_status,
        "requests": s.count if known else None, "ok": s.ok if cell.ok_known else None,
        "failed": s.count - s.ok if known and cell.ok_known else None,
        "failures_by_class": json.dumps(s.failures_by_class, sort_keys=True),
        # How a drawn axis was drawn ("N(512,128)"); empty: every request had the one length.
        "input_lengths": cell.spec.input_lengths.label if cell.spec.input_lengths else None,
        "output_lengths": cell.spec.output_lengths.label if cell.spec.output_lengths else None,
    }
    for metric in DISTRIBUTIONS:
        dist = d.get(metric) or {}
        for stat in STATS:
            row[f"{metric}_{stat}"] = dist.get(stat)
    for key in CELL_SCALARS:
        row[key] = d.get(key, getattr(cell.result, key, None))
    row["client_bound"] = cell.client_bound
    for name, value, est in _estimates(cell):
        if value:
            row[name] = None if est is None else est.value
        row[f"{name}_low"] = None if est is None or not est.has_interval else est.low
        row[f"{name}_high"] = None if est is None or not est.has_interval else est.high
    return row


def _estimates(cell: StoredCell) -> tuple[tuple[str, bool, Estimate | None], ...]:
    """`_stems()` with the cell's estimate of each figure."""
    return tuple((stem, value, cell.figure(f.key)) for stem, value, f in _stems())


def request_row(run_id: int, cell_index: int | None, r: dict[str, Any]) -> dict[str, Any]:
    """One row of ``requests.csv`` from a stored row whose ``itl_s`` is still JSON text (as
    :func:`iter_requests` gives it with ``decode=False``): copied, not re-encoded."""
    itl = r.get("itl_s") or ""
    row = {k: r.get(k) for k in REQUEST_COLUMNS}
    row.update(run_id=run_id, cell_index=cell_index, warmup=int(bool(r.get("warmup"))),
               itl_count=0 if itl in ("", "[]") else itl.count(",") + 1,
               itl_s="" if itl == "[]" else itl)
    return row


def iter_requests(store: Store, run_id: int, cell_id: int | None = None, *,
                  decode: bool = True) -> Iterator[dict[str, Any]]:
    """A run's stored requests, streamed (see `throughput.records.iter_request_rows`)."""
    return iter_request_rows(store, run_id, cell_id, decode=decode)


def _ms(value: float | None) -> float | None:
    return None if value is None else value * 1000.0


def vllm_keys(cell: StoredCell, requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The cell in ``vllm bench serve`` result keys, for the metrics that mean the same thing.

    Latencies in ms from our distributions (vLLM's ``median_*`` is our p50); throughputs per
    second of the cell's wall time. Per-request lists hold the cell's measured requests (warm-ups
    are not in any cell) in ``seq`` order; a failed request has ``ttfts`` null where vLLM writes 0.
    """
    s = cell.summary.to_dict()
    wall = s.get("wall_s")
    ok = s.get("ok") if cell.ok_known else None
    count = s.get("count") if cell.counts_known else None
    prompt, completion = s.get("prompt_tokens"), s.get("completion_tokens")

    def per_s(value):
        return value / wall if value is not None and wall else None

    out: dict[str, Any] = {
        "completed": ok, "failed": None if ok is None or count is None else count - ok,
        "duration": wall, "total_input_tokens": prompt, "total_output_tokens": completion,
        "request_throughput": per_s(ok), "output_throughput": s.get("output_tps"),
        "total_token_throughput": per_s(None if prompt is None or completion is None
                                        else prompt + completion),
        "max_concurrency": cell.concurrency,
        "request_rate": cell.request_rate if cell.request_rate is not None else "inf",
    }
    for vllm, ours in _VLLM_LATENCIES:
        dist = s.get(ours) or {}
        out[f"mean_{vllm}_ms"] = _ms(dist.get("mean"))
        out[f"median_{vllm}_ms"] = _ms(dist.get("p50"))
        out[f"p90_{vllm}_ms"] = _ms(dist.get("p90"))
        out[f"p99_{vllm}_ms"] = _ms(dist.get("p99"))
    out.update(
        input_lens=[r["prompt_tokens"] if r.get("prompt_tokens") is not None
                    else r.get("prompt_tokens_target") for r in requests],
        output_lens=[r.get("completion_tokens") for r in requests],
        ttfts=[r.get("ttft_s") for r in requests],
        itls=[list(r.get("itl_s") or []) for r in requests],
        latencies=[r.get("e2e_s") for r in requests],
        start_times=[r.get("sent_at") for r in requests],
        errors=["" if not r.get("error_class") else
                f"{r['error_class']}: {r.get('error_message') or ''}".rstrip(": ")
                for r in requests],
    )
    return out


def run_json(run: RunInfo) -> dict[str, Any]:
    """The run's own record as exported (configuration already redacted by the store)."""
    return {"id": run.id, "kind": run.kind, "name": run.name, "endpoint_url": run.endpoint,
            "model": run.model, "engine": run.engine, "status": run.status,
            "started_at": run.started_at, "ended_at": run.ended_at,
            "app_version": run.app_version, "error": run.error or None,
            "notes": run.notes or None, "simulated": run.simulated,
            "server_settings": run.settings, "server_settings_source": run.settings_source,
            "config": run.config}


def json_cells(store: Store, sweep: ThroughputRun) -> Iterator[dict[str, Any]]:
    """The ``cells`` entries of the JSON export: the sweep JSON's cell (``cell_json``, fields in
    docs/THROUGHPUT.md) with the stored times and the intervals, then vLLM's keys; one cell's
    requests in memory at a time."""
    for cell in sweep.cells:
        entry = cell_json(cell.index, cell.result, cell.client_bound)
        if not cell.counts_known:  # an imported file without its counts
            entry.update(requests=None, failed=None)
        # The store keeps ISO times, not seconds since the run started.
        del entry["started_s"], entry["ended_s"]
        entry.update(started_at=cell.started_at, ended_at=cell.ended_at,
                     status=cell.stored_status,
                     intervals={name: est.to_json() if est is not None else None
                                for name, _, est in _estimates(cell)})
        vllm = vllm_keys(cell, list(iter_request_rows(store, sweep.info.id, cell.id)))
        del vllm["request_rate"]  # ours: the open-loop rate or null; vLLM writes "inf"
        entry.update(vllm)
        yield entry


def json_requests(store: Store, run_id: int, index_of: dict[Any, int]
                  ) -> Iterator[dict[str, Any]]:
    """The ``requests`` entries of the JSON export: ``requests.csv``'s columns without the
    gaps themselves (each measured request's gaps are in its cell's ``itls``)."""
    for r in iter_requests(store, run_id, decode=False):
        row = request_row(run_id, index_of.get(r.get("cell_id")), r)
        del row["itl_s"]
        yield row


def json_server_metrics(store: Store, run_id: int, index_of: dict[Any, int]
                        ) -> list[dict]:
    """The ``server_metrics`` entries: the /metrics timeline (``t_s`` since the run started)."""
    return [{k: s.get(k) for k in ("t_s", "running", "waiting", "kv_cache_usage",
                                   "preemptions")} | {"cell_index": index_of.get(s.get("cell_id"))}
            for s in sample_rows(store, run_id)]
