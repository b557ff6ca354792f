"""A stored throughput run as CSV (one file per cell, one per request) and as JSON.

The JSON gives each cell the keys ``vllm bench serve --save-result --save-detailed`` writes where
the metric is the same (``completed``, ``mean_ttft_ms``, ``p99_ttft_ms``, ``ttfts``, ``itls``, ...),
next to Throughline's own figures under their own names. Every field is listed in docs/EXPORTS.md.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from desktop_app.core.metrics import CellSummary, Distribution
from desktop_app.core.store import CellRecord, RunRecord, Store
from desktop_app.core.throughput.checks import unreliable_cells
from desktop_app.core.throughput.export import cell_json
from desktop_app.core.throughput.types import CellResult, CellSpec, ClientLoad

DISTRIBUTIONS = ("ttft_s", "prefill_tps", "decode_tps", "tpot_s", "itl_s", "e2e_s")
STATS = ("n", "mean", "p50", "p90", "p99", "min", "max")
_DIST_FIELDS = STATS
CELL_SCALARS = ("wall_s", "output_tps", "effective_prefill_tps", "effective_decode_tps",
                "prompt_tokens", "completion_tokens", "prefill_change", "decode_change",
                "goodput", "token_mismatches")
CELL_COLUMNS = (
    ("run_id", "cell_index", "input_tokens", "output_tokens", "concurrency", "request_rate",
     "status", "requests", "ok", "failed", "failures_by_class")
    + tuple(f"{m}_{s}" for m in DISTRIBUTIONS for s in STATS) + CELL_SCALARS
)
REQUEST_COLUMNS = (
    "run_id", "cell_index", "seq", "warmup", "sent_at", "ttft_s", "e2e_s", "prompt_tokens_target",
    "prompt_tokens", "completion_tokens", "tokens_source", "prefill_tps", "decode_tps", "tpot_s",
    "itl_count", "itl_s", "error_class", "error_message", "finish_reason", "response_id",
    "status_code",
)
# vLLM's latency keys, from our distribution in seconds: (vLLM metric, ours).
_VLLM_LATENCIES = (("ttft", "ttft_s"), ("tpot", "tpot_s"), ("itl", "itl_s"), ("e2el", "e2e_s"))


def cell_row(run_id: int, cell: CellRecord) -> dict[str, Any]:
    """One row of ``cells.csv``: the cell's shape, counts and every stored figure (None is
    missing)."""
    s = cell.summary or {}
    row: dict[str, Any] = {
        "run_id": run_id, "cell_index": cell.cell_index, "input_tokens": cell.input_tokens,
        "output_tokens": cell.output_tokens, "concurrency": cell.concurrency,
        "request_rate": cell.request_rate, "status": cell.status, "requests": s.get("count"),
        "ok": s.get("ok"),
        "failed": None if s.get("count") is None or s.get("ok") is None
        else s["count"] - s["ok"],
        "failures_by_class": json.dumps(s.get("failures_by_class") or {}, sort_keys=True),
    }
    for metric in DISTRIBUTIONS:
        dist = s.get(metric) or {}
        for stat in STATS:
            row[f"{metric}_{stat}"] = dist.get(stat)
    for key in CELL_SCALARS:
        row[key] = s.get(key)
    return row


def request_row(run_id: int, cell_index: int | None, r: dict[str, Any]) -> dict[str, Any]:
    """One row of ``requests.csv`` from a stored row whose ``itl_s`` is still JSON text (as
    :func:`iter_requests` gives it with ``decode=False``): copied, not re-encoded."""
    itl = r.get("itl_s") or ""
    row = {k: r.get(k) for k in REQUEST_COLUMNS}
    row.update(run_id=run_id, cell_index=cell_index, warmup=int(bool(r.get("warmup"))),
               itl_count=0 if itl in ("", "[]") else itl.count(",") + 1,
               itl_s="" if itl == "[]" else itl)
    return row


_REQUEST_SELECT = (
    "SELECT cell_id, seq, warmup, sent_at, ttft_s, e2e_s, prompt_tokens_target, prompt_tokens, "
    "completion_tokens, tokens_source, prefill_tps, decode_tps, tpot_s, itl_s, error_class, "
    "error_message, finish_reason, response_id, status_code FROM tp_requests WHERE run_id = ?"
)


def iter_requests(store: Store, run_id: int, cell_id: int | None = None, *,
                  decode: bool = True) -> Iterator[dict[str, Any]]:
    """A run's requests (or one cell's) in cell and ``seq`` order, streamed.

    Read on a connection of its own, read-only, so a run of 100k requests is never all in memory
    and the store stays free for other callers (WAL lets readers and the writer work at once).
    ``decode=False`` leaves ``itl_s`` as the stored JSON text.
    """
    sql, params = _REQUEST_SELECT, [run_id]
    if cell_id is not None:
        sql += " AND cell_id = ?"
        params.append(cell_id)
    sql += " ORDER BY cell_id, seq"
    uri = Path(store.path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as conn:
        cursor = conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        for values in cursor:
            row = dict(zip(names, values))
            if decode:
                row["itl_s"] = json.loads(row["itl_s"]) if row["itl_s"] else None
            yield row


def _ms(value: float | None) -> float | None:
    return None if value is None else value * 1000.0


def vllm_keys(cell: CellRecord, requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The cell in ``vllm bench serve`` result keys, for the metrics that mean the same thing.

    Latencies in ms from our distributions (vLLM's ``median_*`` is our p50); throughputs per
    second of the cell's wall time. Per-request lists hold the cell's measured requests (warm-ups
    are not in any cell) in ``seq`` order; a failed request has ``ttfts`` null where vLLM writes 0.
    """
    s = cell.summary or {}
    wall = s.get("wall_s")
    ok, count = s.get("ok"), s.get("count")
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


def run_json(run: RunRecord) -> dict[str, Any]:
    """The run's own record as exported (configuration already redacted by the store)."""
    return {"id": run.id, "kind": run.kind, "name": run.name, "endpoint_url": run.endpoint_url,
            "model": run.model, "engine": run.engine, "status": run.status,
            "created_at": run.created_at, "started_at": run.started_at,
            "ended_at": run.ended_at, "app_version": run.app_version, "error": run.error,
            "notes": run.notes, "config": run.config}


def _distribution(d: dict | None) -> Distribution | None:
    return None if d is None else Distribution(**{k: d.get(k) for k in _DIST_FIELDS})


def cell_result(record: CellRecord) -> CellResult:
    """A stored cell as the sweep's CellResult (no timings: the store keeps requests apart), so
    the sweep's own JSON shape (:func:`cell_json`) serves stored and imported runs alike.
    Figures the record lacks stay None."""
    d = dict(record.summary or {})
    summary = CellSummary(
        count=d.get("count"), ok=d.get("ok"), failures_by_class=d.get("failures_by_class") or {},
        **{m: _distribution(d.get(m)) for m in DISTRIBUTIONS},
        **{k: d.get(k) for k in ("wall_s", "output_tps", "effective_prefill_tps",
                                 "effective_decode_tps", "prompt_tokens", "completion_tokens")})
    load = d.get("client_load")
    return CellResult(
        spec=CellSpec(record.input_tokens, record.output_tokens, d.get("count"),
                      concurrency=record.concurrency, request_rate=record.request_rate),
        summary=summary, timings=(), client_load=ClientLoad(**load) if load else None,
        prefill_change=d.get("prefill_change"), decode_change=d.get("decode_change"),
        goodput=d.get("goodput"), token_mismatches=d.get("token_mismatches"),
        status=d.get("status") or record.status)


def json_cells(store: Store, cells: list[CellRecord]) -> Iterator[dict[str, Any]]:
    """The ``cells`` entries of the JSON export: the sweep JSON's cell (``cell_json``, fields in
    docs/THROUGHPUT.md) with the stored times, then vLLM's keys; one cell's requests in memory
    at a time."""
    results = [cell_result(c) for c in cells]
    unreliable = unreliable_cells(results)
    for i, (cell, result) in enumerate(zip(cells, results)):
        s = result.summary
        known = s.count is not None and s.ok is not None
        if not known:  # an imported file without its counts: cell_json needs numbers
            result = dataclasses.replace(result, summary=dataclasses.replace(s, count=0, ok=0))
        entry = cell_json(cell.cell_index, result, i in unreliable)
        if not known:
            entry.update(requests=s.count, failed=None)
        # The store keeps ISO times, not seconds since the run started.
        del entry["started_s"], entry["ended_s"]
        entry.update(started_at=cell.started_at, ended_at=cell.ended_at)
        vllm = vllm_keys(cell, list(iter_requests(store, cell.run_id, cell.id)))
        del vllm["request_rate"]  # ours: the open-loop rate or null; vLLM writes "inf"
        entry.update(vllm)
        yield entry


def json_requests(store: Store, run_id: int, index_of: dict[int, int]
                  ) -> Iterator[dict[str, Any]]:
    """The ``requests`` entries of the JSON export: ``requests.csv``'s columns without the
    gaps themselves (each measured request's gaps are in its cell's ``itls``)."""
    for r in iter_requests(store, run_id, decode=False):
        row = request_row(run_id, index_of.get(r.get("cell_id")), r)
        del row["itl_s"]
        yield row


def json_server_metrics(store: Store, run_id: int, index_of: dict[int, int]) -> list[dict]:
    """The ``server_metrics`` entries: the /metrics timeline (``t_s`` since the run started)."""
    return [{k: s.get(k) for k in ("t_s", "running", "waiting", "kv_cache_usage",
                                   "preemptions")} | {"cell_index": index_of.get(s.get("cell_id"))}
            for s in store.metric_samples(run_id)]
