"""Results written by AIPerf: ``profile_export_aiperf.json`` and ``profile_export_aiperf.csv``.

The JSON (aiperf ``JsonExportData``, ``schema_version`` "1.0") holds one object per metric tag,
``{"unit", "avg", "p50", "p90", "p99", "min", "max", ...}``, plus ``input_config`` (model names,
URL, ``loadgen.concurrency`` / ``request_rate``), ``aiperf_version``, ``start_time`` and
``end_time``. The CSV holds the same statistics with display names ("Time to First Token (ms)")
in a section of distributions and a section of single values, rounded to 2 decimals, and no
configuration: an import of the CSV has no model, URL or load.

Mapping (AIPerf's metrics reference): ``time_to_first_token`` -> TTFT; ``inter_token_latency``
= (latency - TTFT) / (OSL - 1) -> our TPOT; ``output_token_throughput_per_user`` = 1 / ITL ->
our decode tok/s; ``inter_chunk_latency`` -> our ITL; ``request_latency`` -> e2e;
``output_token_throughput`` -> output tok/s; ``prefill_throughput_per_user`` (ISL / TTFT, newer
versions) -> prefill tok/s. Token counts are AIPerf's client-side tokenizer's, and OSL includes
reasoning tokens. The time-weighted throughputs are missing.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from desktop_app.core.exchange.errors import ExchangeError
from desktop_app.core.parsing import dict_at
from desktop_app.core.redact import redact_text
from desktop_app.core.exchange.importers.common import ImportedCell, ImportedRun, dist, summary

SOURCE, LABEL = "aiperf", "AIPerf"
SCHEMA_MAJOR = 1
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "seconds": 1.0}
_RATE_UNITS = {"tokens/sec", "tokens/sec/user", "tokens/s", "requests/sec"}
# Display names of the CSV whose tags are not the name in snake case.
_CSV_TAGS = {"total_input_sequence_length": "total_isl",
             "total_output_sequence_length": "total_osl"}
KNOWN_TAGS = ("time_to_first_token", "inter_token_latency", "request_latency",
              "request_throughput", "request_count", "output_token_throughput")


def looks_like(doc: Any) -> bool:
    """Whether a JSON object has the shape of an AIPerf profile export."""
    if not isinstance(doc, dict):
        return False
    if "aiperf_version" in doc:
        return True
    return any(isinstance(doc.get(t), dict) and "unit" in doc[t] for t in KNOWN_TAGS)


def looks_like_csv(text: str) -> bool:
    """Whether text is AIPerf's CSV export (its first section starts ``Metric,avg,`` or
    ``Metric,Value``)."""
    head = text.lstrip().split("\n", 1)[0].strip().lower()
    return head.startswith("metric,avg,") or head == "metric,value"


def check_version(doc: dict, where: str) -> None:
    """Refuse an export schema newer than the one this reader knows, naming the AIPerf version."""
    version = doc.get("schema_version")
    if version is None:
        return
    try:
        major = int(str(version).split(".")[0])
    except ValueError:
        raise ExchangeError(where, code="import_aiperf_bad_version",
                            version=repr(version)) from None
    if major > SCHEMA_MAJOR:
        raise ExchangeError(where, code="import_newer_aiperf",
                            tool_version=str(doc.get("aiperf_version", "?")), version=version,
                            known=SCHEMA_MAJOR)


_KEY_FLAG = re.compile(r"(--api-key|--api_key)(\s+|=)(\"[^\"]*\"|'[^']*'|\S+)")


def redact_command(command: str) -> str:
    """The command line without credentials: header values (``-H "Authorization: Bearer .."``)
    and ``--api-key`` values are blanked before anything is stored."""
    return _KEY_FLAG.sub(r"\1\2[redacted]", redact_text(command))


def _time(metrics: dict, tag: str, where: str):
    m = metrics.get(tag)
    if not isinstance(m, dict) or m.get("avg") is None:
        return None
    unit = str(m.get("unit", "")).lower()
    if unit not in _TIME_UNITS:
        raise ExchangeError(where, code="import_not_time_unit", tag=tag, unit=repr(m.get("unit")))
    return dist(mean=m.get("avg"), p50=m.get("p50"), p90=m.get("p90"), p99=m.get("p99"),
                min=m.get("min"), max=m.get("max"), scale=_TIME_UNITS[unit])


def _rate(metrics: dict, tag: str):
    m = metrics.get(tag)
    if not isinstance(m, dict) or m.get("avg") is None:
        return None
    return dist(mean=m.get("avg"), p50=m.get("p50"), p90=m.get("p90"), p99=m.get("p99"),
                min=m.get("min"), max=m.get("max"))


def _value(metrics: dict, tag: str, scale: float = 1.0) -> float | None:
    m = metrics.get(tag)
    if isinstance(m, dict) and isinstance(m.get("avg"), (int, float)):
        return float(m["avg"]) * scale
    return None


def _fixed(metrics: dict, tag: str) -> int | None:
    """A length every request had (min == max), else None: never a mean passed off as a target."""
    m = metrics.get(tag)
    if isinstance(m, dict) and m.get("min") is not None and m.get("min") == m.get("max"):
        return int(m["min"])
    return None


def _cell(metrics: dict, where: str, config: dict) -> ImportedCell:
    ok = _value(metrics, "request_count")
    errors = _value(metrics, "error_request_count") or 0
    duration = metrics.get("benchmark_duration")
    wall = None
    if isinstance(duration, dict) and duration.get("avg") is not None:
        wall = float(duration["avg"]) * _TIME_UNITS.get(str(duration.get("unit", "sec")), 1.0)
    for tag in ("output_token_throughput_per_user", "prefill_throughput_per_user"):
        unit = (metrics.get(tag) or {}).get("unit") if isinstance(metrics.get(tag), dict) else None
        if unit is not None and unit not in _RATE_UNITS:
            raise ExchangeError(where, code="import_not_rate_unit", tag=tag, unit=repr(unit))
    total_in, total_out = _value(metrics, "total_isl"), _value(metrics, "total_osl")
    s = summary(
        count=None if ok is None else int(ok + errors), ok=None if ok is None else int(ok),
        failures_by_class={"error": int(errors)} if errors else {},
        ttft_s=_time(metrics, "time_to_first_token", where),
        tpot_s=_time(metrics, "inter_token_latency", where),
        itl_s=_time(metrics, "inter_chunk_latency", where),
        e2e_s=_time(metrics, "request_latency", where),
        decode_tps=_rate(metrics, "output_token_throughput_per_user"),
        prefill_tps=_rate(metrics, "prefill_throughput_per_user"),
        wall_s=wall, output_tps=_value(metrics, "output_token_throughput"),
        prompt_tokens=None if total_in is None else int(total_in),
        completion_tokens=None if total_out is None else int(total_out))
    loadgen = (config.get("loadgen") or {}) if isinstance(config, dict) else {}
    conc, rate = loadgen.get("concurrency"), loadgen.get("request_rate")
    return ImportedCell(
        summary=s, input_tokens=_fixed(metrics, "input_sequence_length"),
        output_tokens=_fixed(metrics, "output_sequence_length"),
        concurrency=conc if isinstance(conc, int) else None,
        request_rate=float(rate) if isinstance(rate, (int, float)) else None)


def read_json(doc: dict, where: str) -> ImportedRun:
    """The run in a ``profile_export_aiperf.json`` object."""
    check_version(doc, where)
    if not any(isinstance(doc.get(t), dict) for t in KNOWN_TAGS):
        raise ExchangeError(where, code="import_aiperf_no_metrics", tags=", ".join(KNOWN_TAGS))
    config = dict_at(doc, "input_config")
    endpoint = config.get("endpoint") or {}
    models = endpoint.get("model_names") or []
    url = endpoint.get("url") or (endpoint.get("urls") or [None])[0]
    if url and "://" not in url:
        url = "http://" + url  # AIPerf takes host:port and means http
    details = {k: doc.get(k) for k in ("aiperf_version", "schema_version", "benchmark_id",
                                       "start_time", "end_time", "was_cancelled")
               if doc.get(k) is not None}
    if isinstance(config.get("cli_command"), str):
        details["cli_command"] = redact_command(config["cli_command"])
    # AIPerf's start_time/end_time are local times without a zone: kept in the details as
    # written, never in the store's UTC time columns.
    cell = _cell(doc, where, config)
    return ImportedRun(SOURCE, LABEL, models[0] if models else None, url, [cell], details)


_NAME = re.compile(r"^(?P<name>.*?)\s*(\((?P<unit>[^()]*)\))?$")


def read_csv(text: str, where: str) -> ImportedRun:
    """The run in a ``profile_export_aiperf.csv``: its two metric sections (GPU telemetry, when
    present, is skipped). Values carry the CSV's 2-decimal rounding."""
    metrics: dict[str, dict[str, Any]] = {}
    header: list[str] | None = None
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or not any(cell.strip() for cell in row):
            header = None
            continue
        if row[0] == "Metric":
            header = [h.strip().lower() for h in row]
            continue
        if header is None:
            continue  # e.g. the GPU telemetry table, whose header starts "Endpoint"
        # A quoted cell may hold line breaks: the name reads with its whitespace as one space.
        match = _NAME.fullmatch(" ".join(row[0].split()))
        if match is None:
            continue
        tag = re.sub(r"[^a-z0-9]+", "_", match["name"].lower()).strip("_")
        tag = _CSV_TAGS.get(tag, tag)
        entry: dict[str, Any] = {"unit": match["unit"] or ""}
        for key, cell in zip(header[1:], row[1:]):
            key = "avg" if key == "value" else key
            if cell.strip():
                try:
                    entry[key] = float(cell)
                except ValueError:
                    raise ExchangeError(where, code="import_csv_not_number", line=number,
                                        name=row[0], key=key, cell=repr(cell)) from None
        metrics[tag] = entry
    if not any(t in metrics for t in KNOWN_TAGS):
        raise ExchangeError(where, code="import_aiperf_csv_no_metrics")
    return ImportedRun(SOURCE, LABEL, None, None, [_cell(metrics, where, {})],
                       {"format": "csv", "note": "AIPerf's CSV has no configuration: model, "
                        "endpoint and load are unknown"})
