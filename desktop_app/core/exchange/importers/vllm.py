"""Results written by ``vllm bench serve --save-result`` (and the older benchmark_serving.py).

One JSON object per benchmark; ``--append-result`` puts several in one file, one per line, and
each becomes a cell. Keys read (vllm/benchmarks/serve.py): ``completed``, ``failed``,
``duration`` (s), ``total_input_tokens``, ``total_output_tokens``, ``output_throughput``,
``{mean,median,p<N>}_{ttft,tpot,itl,e2el}_ms``, ``max_concurrency``, ``request_rate``
(number or "inf"), ``model_id``, ``backend``, ``date``; with ``--save-detailed`` also the
per-request lists ``input_lens``, ``output_lens``, ``ttfts`` (s), ``itls`` (s), ``latencies`` (s),
``start_times`` (s, perf_counter) and ``errors``.

With the per-request lists every figure is recomputed with our definitions (they match vLLM's:
TPOT excludes TTFT, ITL pools chunk gaps), so prefill and decode tok/s are known too. Without
them only what the file states is stored: prefill tok/s, decode tok/s and the time-weighted
throughputs are missing, and p90s are missing unless ``--metric-percentiles`` asked for them.
"""

from __future__ import annotations

from typing import Any

from desktop_app.core.exchange.errors import ExchangeError
from desktop_app.core.exchange.importers.common import (
    ImportedCell,
    ImportedRun,
    dist,
    request_row,
    summary,
    summary_from_timings,
)
from desktop_app.core.metrics import CellAccumulator, RequestTiming

SOURCE, LABEL = "vllm-bench-serve", "vllm bench serve"
PER_REQUEST = ("input_lens", "output_lens", "ttfts", "itls", "latencies")


def looks_like(doc: Any) -> bool:
    """Whether a JSON object has the shape of a vLLM serving-benchmark result."""
    return (isinstance(doc, dict) and isinstance(doc.get("completed"), int)
            and any(k in doc for k in ("mean_ttft_ms", "ttfts", "mean_e2el_ms")))


def _latency(doc: dict, name: str):
    # n is the number of requests only where each request gives one value (TTFT, E2E); vLLM's
    # ITL pools chunk gaps and its TPOT skips 1-token outputs, so their n is not in the file.
    n = doc.get("completed") if name in ("ttft", "e2el") else None
    return dist(n=n, mean=doc.get(f"mean_{name}_ms"),
                p50=doc.get(f"median_{name}_ms", doc.get(f"p50_{name}_ms")),
                p90=doc.get(f"p90_{name}_ms"), p99=doc.get(f"p99_{name}_ms"), scale=1e-3)


def _number(doc: dict, key: str, where: str) -> float | None:
    value = doc.get(key)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        if value is not None:
            raise ExchangeError(where, code="import_not_number", key=repr(key), value=repr(value))
        return None
    return float(value)


def _detailed(doc: dict, where: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    n = len(doc["ttfts"])
    lists = {k: doc.get(k) for k in (*PER_REQUEST, "start_times", "errors")}
    for key, values in lists.items():
        if values is not None and (not isinstance(values, list) or len(values) != n):
            raise ExchangeError(where, code="import_list_length", key=repr(key), n=n)
    starts = lists["start_times"]
    if starts is not None and any(t is None for t in starts):
        starts = None  # e.g. a Throughline export of imported requests: no send times
    # Send times relative to the first: epoch or perf_counter seconds plus a TTFT of
    # milliseconds would lose digits in a float.
    base = min(float(t) for t in starts) if starts else 0.0
    errors = lists["errors"] or [""] * n
    # One request at a time into the accumulator: the timings are not kept, and each request's
    # gaps are let go once read (300,000 requests of 31 gaps held 2 GB before).
    acc, rows, failures = CellAccumulator(), [], 0
    itls = doc["itls"]
    for i in range(n):
        sent = float(starts[i]) - base if starts else 0.0
        failed = bool(errors[i]) or (not doc["ttfts"][i] and not doc["latencies"][i])
        first = None if failed else sent + float(doc["ttfts"][i])
        last = None if failed else sent + float(doc["latencies"][i])
        chunks: list[float] = []
        if first is not None:
            t = first
            chunks.append(first)
            for gap in itls[i] or []:
                t += float(gap)
                chunks.append(t)
        itls[i] = None
        timing = RequestTiming(
            prompt_tokens=int(doc["input_lens"][i] or 0),
            completion_tokens=int(doc["output_lens"][i] or 0), sent_s=sent,
            first_token_s=first, last_token_s=last, chunk_times_s=tuple(chunks),
            error_class="vllm_error" if failed else None)
        failures += failed
        message = str(errors[i]).strip().splitlines()[-1][:500] if errors[i] else None
        rows.append(request_row(i, timing, tokens_source=SOURCE, error_message=message,
                                metrics=acc.add(timing)))
    s = summary_from_timings(acc, _number(doc, "duration", where),
                             {"vllm_error": failures} if failures else {},
                             timeline=starts is not None)
    return s, rows


def _cell(doc: dict, where: str) -> ImportedCell:
    if all(isinstance(doc.get(k), list) for k in PER_REQUEST):
        s, rows = _detailed(doc, where)
    else:
        completed = doc["completed"]
        failed = doc.get("failed")
        total_out = _number(doc, "total_output_tokens", where)
        s, rows = summary(
            count=None if failed is None else completed + int(failed), ok=completed,
            failures_by_class={"vllm_error": int(failed)} if failed else {},
            ttft_s=_latency(doc, "ttft"), tpot_s=_latency(doc, "tpot"),
            itl_s=_latency(doc, "itl"), e2e_s=_latency(doc, "e2el"),
            wall_s=_number(doc, "duration", where),
            output_tps=_number(doc, "output_throughput", where),
            prompt_tokens=_number(doc, "total_input_tokens", where),
            completion_tokens=total_out), []
    rate = doc.get("request_rate")
    lens = doc.get("input_lens") if isinstance(doc.get("input_lens"), list) else None
    # Output lengths of the requests that completed: a failed one has 0, which says nothing.
    outs = [r["completion_tokens"] for r in rows if not r["error_class"]] or None
    return ImportedCell(
        summary=s, requests=rows,
        # A length is the cell's only when every request had it: a fact, not an average.
        input_tokens=lens[0] if lens and len(set(lens)) == 1 else None,
        output_tokens=outs[0] if outs and len(set(outs)) == 1 else None,
        concurrency=doc.get("max_concurrency") if isinstance(doc.get("max_concurrency"), int)
        else None,
        request_rate=float(rate) if isinstance(rate, (int, float)) and rate != float("inf")
        else None)


def read(docs: list[Any], where: str) -> ImportedRun:
    """The run in ``docs`` (one object per benchmark); ExchangeError naming ``where`` on a
    document that is not a vLLM result."""
    cells = []
    for number, doc in enumerate(docs, 1):
        if not looks_like(doc):
            raise ExchangeError(where, code="import_not_vllm_result", number=number)
        cells.append(_cell(doc, where))
    first = docs[0]
    details = {k: first.get(k) for k in ("date", "backend", "label", "tokenizer_id",
                                         "num_prompts", "burstiness") if first.get(k) is not None}
    details["detailed"] = all(isinstance(first.get(k), list) for k in PER_REQUEST)
    return ImportedRun(SOURCE, LABEL, first.get("model_id"), None, cells, details)
