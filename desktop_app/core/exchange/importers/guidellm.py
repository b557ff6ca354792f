"""Results written by GuideLLM: ``benchmarks.json`` (``guidellm benchmark --output-path``).

A report is ``{"metadata": {"version": 1, "guidellm_version", ...}, "args": {...},
"benchmarks": [...]}``; files from before the metadata block (GuideLLM 0.2/0.3) have the same
``benchmarks``. Each benchmark (one load point, one cell here) has ``config.strategy`` (older:
``args.strategy``) with ``type_`` synchronous / concurrent (``streams``) / throughput /
constant or poisson (``rate``), a ``duration`` in seconds, and ``metrics`` whose entries are
``{"successful": {count, mean, median, min, max, total_sum, percentiles: {p50, p90, p99, ...}},
"errored": ..., "incomplete": ..., "total": ...}``; ``requests.successful`` / ``errored`` hold a
sample of the requests.

Mapping: ``time_to_first_token_ms`` -> TTFT; ``inter_token_latency_ms`` (GuideLLM: (last token
- first token) / (output tokens - 1)) -> our TPOT; ``request_latency`` (s) -> e2e. GuideLLM's
``time_per_output_token_ms`` includes TTFT, so it is not our TPOT and is not used. Output tok/s is
``output_token_count.successful.total_sum / duration`` (our definition, from GuideLLM's totals).
Per-request prefill and decode tok/s, chunk ITL and the time-weighted throughputs are missing
from the aggregates; the sampled requests are stored as they are, with those figures computed
per request.
"""

from __future__ import annotations

from typing import Any

from desktop_app.core.exchange.errors import ExchangeError
from desktop_app.core.exchange.importers.common import ImportedCell, ImportedRun, dist, summary
from desktop_app.core.parsing import dict_at

SOURCE, LABEL = "guidellm", "GuideLLM"
REPORT_VERSION = 1


def looks_like(doc: Any) -> bool:
    """Whether a JSON object has the shape of a GuideLLM benchmarks report."""
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        return False
    meta = doc.get("metadata")
    if isinstance(meta, dict) and "guidellm_version" in meta:
        return True
    return any(isinstance(b, dict) and isinstance(b.get("metrics"), dict)
               for b in doc["benchmarks"])


def check_version(doc: dict, where: str) -> None:
    """Refuse a report schema newer than this reader knows, naming the GuideLLM version."""
    meta = dict_at(doc, "metadata")
    version = meta.get("version")
    if version is None:
        return
    if not isinstance(version, int) or version > REPORT_VERSION:
        tool = meta.get("guidellm_version", "?")
        raise ExchangeError(where, code="import_newer_guidellm", tool_version=str(tool),
                            version=version, known=REPORT_VERSION)


def _status(metric: Any, status: str = "successful") -> dict | None:
    if isinstance(metric, dict) and isinstance(metric.get(status), dict):
        return metric[status]
    return None


def _dist(metrics: dict, key: str, scale: float = 1.0):
    d = _status(metrics.get(key))
    if d is None or not d.get("count"):
        return None
    pct = d.get("percentiles") or {}
    return dist(n=d.get("count"), mean=d.get("mean"), p50=pct.get("p50", d.get("median")),
                p90=pct.get("p90"), p99=pct.get("p99"), min=d.get("min"), max=d.get("max"),
                scale=scale)


def _total(metrics: dict, key: str) -> float | None:
    d = _status(metrics.get(key))
    value = None if d is None else d.get("total_sum")
    return float(value) if isinstance(value, (int, float)) else None


def _fixed(metrics: dict, key: str) -> int | None:
    d = _status(metrics.get(key))
    if d and d.get("count") and d.get("min") is not None and d.get("min") == d.get("max"):
        return int(d["min"])
    return None


def _load(bench: dict) -> tuple[int | None, float | None, str | None]:
    config = dict_at(bench, "config")
    strategy = config.get("strategy") or (bench.get("args") or {}).get("strategy") or {}
    kind = strategy.get("type_")
    if kind == "synchronous":
        return 1, None, kind
    if kind == "concurrent" and isinstance(strategy.get("streams"), int):
        return strategy["streams"], None, kind
    if kind in ("constant", "poisson") and isinstance(strategy.get("rate"), (int, float)):
        return None, float(strategy["rate"]), kind
    if kind == "throughput" and isinstance(strategy.get("max_concurrency"), int):
        return strategy["max_concurrency"], None, kind  # as many as fit, up to this many
    return None, None, kind


def _requests(bench: dict) -> list[dict[str, Any]]:
    groups = dict_at(bench, "requests")
    rows: list[dict[str, Any]] = []
    for status in ("successful", "errored", "incomplete"):
        for r in groups.get(status) or []:
            if not isinstance(r, dict):
                continue
            ttft_ms, itl_ms = r.get("time_to_first_token_ms"), r.get("inter_token_latency_ms")
            prompt, output = r.get("prompt_tokens"), r.get("output_tokens")
            ttft = ttft_ms / 1000.0 if isinstance(ttft_ms, (int, float)) else None
            tpot = itl_ms / 1000.0 if isinstance(itl_ms, (int, float)) and itl_ms > 0 else None
            rows.append({
                "seq": len(rows), "warmup": 0, "ttft_s": ttft, "e2e_s": r.get("request_latency"),
                "prompt_tokens": prompt, "completion_tokens": output, "tokens_source": SOURCE,
                "prefill_tps": prompt / ttft if isinstance(prompt, (int, float)) and ttft
                else None,
                "decode_tps": 1.0 / tpot if tpot else None, "tpot_s": tpot,
                "error_class": None if status == "successful" else status,
                "error_message": r.get("error") if status != "successful" else None,
            })
    return rows


def _cell(bench: dict, where: str) -> ImportedCell:
    metrics = bench.get("metrics")
    if not isinstance(metrics, dict):
        raise ExchangeError(where, code="import_guidellm_no_metrics")
    # 0.4+ keeps the counts in metrics; 0.2/0.3 beside them.
    totals = metrics.get("request_totals") or bench.get("request_totals") or {}
    ok = totals.get("successful")
    failures = {k: totals[k] for k in ("errored", "incomplete") if totals.get(k)}
    count = totals.get("total", None if ok is None else ok + sum(failures.values()))
    duration = bench.get("duration")
    if not isinstance(duration, (int, float)) and isinstance(bench.get("end_time"), (int, float)):
        duration = bench["end_time"] - bench.get("start_time", bench["end_time"])
    wall = float(duration) if isinstance(duration, (int, float)) and duration > 0 else None
    completion = _total(metrics, "output_token_count")
    prompt = _total(metrics, "prompt_token_count")
    s = summary(
        count=count, ok=ok, failures_by_class=failures,
        ttft_s=_dist(metrics, "time_to_first_token_ms", 1e-3),
        tpot_s=_dist(metrics, "inter_token_latency_ms", 1e-3),
        e2e_s=_dist(metrics, "request_latency"), wall_s=wall,
        output_tps=completion / wall if completion is not None and wall else None,
        prompt_tokens=None if prompt is None else int(prompt),
        completion_tokens=None if completion is None else int(completion))
    concurrency, rate, _ = _load(bench)
    return ImportedCell(summary=s, requests=_requests(bench), concurrency=concurrency,
                        request_rate=rate, input_tokens=_fixed(metrics, "prompt_token_count"),
                        output_tokens=_fixed(metrics, "output_token_count"))


def read(doc: dict, where: str) -> ImportedRun:
    """The run in a GuideLLM report: one cell per benchmark, in file order."""
    check_version(doc, where)
    benches = [b for b in doc["benchmarks"] if isinstance(b, dict)]
    if not benches:
        raise ExchangeError(where, code="import_guidellm_no_benchmarks")
    cells = [_cell(b, f"{where}: benchmark {i}") for i, b in enumerate(benches)]
    args = dict_at(doc, "args")
    meta = dict_at(doc, "metadata")
    model = args.get("model")
    details = {k: meta.get(k) for k in ("version", "guidellm_version") if meta.get(k) is not None}
    details["strategies"] = [_load(b)[2] for b in benches]
    if any(c.requests for c in cells):
        details["requests_are_sampled"] = True
    return ImportedRun(SOURCE, LABEL, model if isinstance(model, str) else None,
                       args.get("target") if isinstance(args.get("target"), str) else None,
                       cells, details)
