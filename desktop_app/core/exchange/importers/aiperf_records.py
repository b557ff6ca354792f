"""AIPerf's per-request records: ``profile_export.jsonl`` (``--export-level records``).

One JSON object per line: ``metadata`` (``request_start_ns``, ``request_end_ns`` epoch ns,
``benchmark_phase``, ``was_cancelled``, ...), ``metrics`` (each ``{"value", "unit"}``:
``time_to_first_token`` ms, ``request_latency`` ms, ``inter_chunk_latency`` a list of ms,
``input_sequence_length`` and ``output_sequence_length`` tokens; ``error_isl`` for a failed
request) and ``error`` (null, or ``{code, type, message}``). Shape from AIPerf's
docs/tutorials/working-with-profile-exports.md (record_models.MetricRecordInfo).

Every figure is recomputed with our definitions from the records, so nothing is missing but the
load: the records do not say it. It is taken from ``profile_export_aiperf.json`` in the same
folder when that file is there (as are the model and URL), and is otherwise unknown.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_app.core.exchange.errors import MAX_IMPORT_BYTES, ExchangeError
from desktop_app.core.exchange.importers import aiperf
from desktop_app.core.exchange.importers.common import (
    ImportedCell,
    ImportedRun,
    request_row,
    summary_from_timings,
)
from desktop_app.core.files import read_bounded
from desktop_app.core.metrics import CellAccumulator, RequestTiming

SUMMARY_FILE = "profile_export_aiperf.json"
_MS = {"ms": 1e-3, "ns": 1e-9, "us": 1e-6, "s": 1.0, "sec": 1.0}


def looks_like(doc: Any) -> bool:
    """Whether a JSON object is one of AIPerf's per-request records."""
    return (isinstance(doc, dict) and isinstance(doc.get("metadata"), dict)
            and "request_start_ns" in doc["metadata"] and "metrics" in doc)


def _value(metrics: dict, tag: str, where: str, unit_scale: bool = True):
    m = metrics.get(tag)
    if not isinstance(m, dict) or m.get("value") is None:
        return None
    if not unit_scale:
        return m["value"]
    unit = str(m.get("unit", "ms")).lower()
    if unit not in _MS:
        raise ExchangeError(where, code="import_not_time_unit", tag=tag, unit=repr(m.get("unit")))
    if isinstance(m["value"], list):
        return [float(v) * _MS[unit] for v in m["value"]]
    return float(m["value"]) * _MS[unit]


def _timing(record: dict, t0_ns: int, where: str) -> tuple[RequestTiming, str | None]:
    meta, metrics = record["metadata"], record.get("metrics") or {}
    error = record.get("error") if isinstance(record.get("error"), dict) else None
    sent = (int(meta["request_start_ns"]) - t0_ns) / 1e9
    prompt = _value(metrics, "input_sequence_length", where, False) \
        or _value(metrics, "error_isl", where, False) or 0
    completion = _value(metrics, "output_sequence_length", where, False) or 0
    ttft = _value(metrics, "time_to_first_token", where)
    latency = _value(metrics, "request_latency", where)
    failed = error is not None or meta.get("was_cancelled") or ttft is None or latency is None
    first = None if failed else sent + ttft
    chunks = []
    if first is not None:
        t = first
        chunks.append(t)
        for gap in _value(metrics, "inter_chunk_latency", where) or []:
            t += gap
            chunks.append(t)
    error_class = None
    if failed:
        error_class = (error or {}).get("type") or ("cancelled" if meta.get("was_cancelled")
                                                    else "no_first_token")
    timing = RequestTiming(prompt_tokens=int(prompt), completion_tokens=int(completion),
                           sent_s=sent, first_token_s=first,
                           last_token_s=None if failed else sent + latency,
                           chunk_times_s=tuple(chunks), error_class=error_class)
    return timing, (error or {}).get("message")


def _summary_config(path: Path) -> tuple[dict, dict]:
    """The configuration in ``profile_export_aiperf.json`` beside ``path``, if readable."""
    beside = path.parent / SUMMARY_FILE
    try:
        doc = json.loads(read_bounded(beside, MAX_IMPORT_BYTES).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}, {}
    if not aiperf.looks_like(doc) or not isinstance(doc.get("input_config"), dict):
        return {}, {}
    return doc["input_config"], {"config_from": SUMMARY_FILE,
                                 "aiperf_version": doc.get("aiperf_version")}


def read(docs: list[dict], path: Path) -> ImportedRun:
    """The run in a ``profile_export.jsonl``: one cell; warm-up records stored, not counted."""
    where = str(path)
    t0 = min(int(d["metadata"]["request_start_ns"]) for d in docs)
    acc, rows = CellAccumulator(), []
    for seq, record in enumerate(docs):
        timing, message = _timing(record, t0, where)
        warmup = record["metadata"].get("benchmark_phase", "profiling") == "warmup"
        # Warm-up records are stored, and kept out of every figure as ours are.
        row = request_row(seq, timing, tokens_source="aiperf", error_message=message,
                          sent_at=int(record["metadata"]["request_start_ns"]) / 1e9,
                          metrics=None if warmup else acc.add(timing))
        row["warmup"] = int(warmup)
        rows.append(row)
    if not acc.count:
        raise ExchangeError(where, code="import_aiperf_no_requests")
    s = summary_from_timings(acc, None, dict(acc.failures))
    config, details = _summary_config(path)
    endpoint = config.get("endpoint") or {}
    loadgen = config.get("loadgen") or {}
    models = endpoint.get("model_names") or []
    url = endpoint.get("url")
    if isinstance(url, str) and "://" not in url:
        url = "http://" + url
    profiled = [r for r in rows if not r["warmup"]]
    prompts = {r["prompt_tokens"] for r in profiled}
    outputs = {r["completion_tokens"] for r in profiled if not r["error_class"]}
    conc, rate = loadgen.get("concurrency"), loadgen.get("request_rate")
    cell = ImportedCell(
        summary=s, requests=rows,
        input_tokens=prompts.pop() if len(prompts) == 1 else None,
        output_tokens=outputs.pop() if len(outputs) == 1 else None,
        concurrency=conc if isinstance(conc, int) else None,
        request_rate=float(rate) if isinstance(rate, (int, float)) else None)
    details = {k: v for k, v in details.items() if v is not None}
    details["format"] = "records"
    return ImportedRun(aiperf.SOURCE, aiperf.LABEL, models[0] if models else None,
                       url if isinstance(url, str) else None, [cell], details)
