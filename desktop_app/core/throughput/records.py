"""The one way a stored throughput sweep is read back: `load_sweep(store, run_id)`.

This module alone knows how a sweep is stored (``tp_cells.summary_json`` as
`sweep.cell_summary_json` writes it, ``tp_requests`` rows, ``metric_samples`` rows, the kept
diagnosis) and turns it into the sweep's own types: :class:`~desktop_app.core.throughput.types.
CellResult` per cell, with per-request timings, the /metrics timeline, the findings, and each
cell's figures with their noise (:class:`~desktop_app.core.stats.Estimate`). The Throughput page,
the Runs page, the comparison, the PDF, the exports, resume and the CLI read through it.

Imported runs may lack figures (AIPerf's CSV has no requests; some files give no counts or no
load): what is missing stays None or "unknown", never guessed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from desktop_app.core.endpoint.types import MetricSample
from desktop_app.core.metrics import CellSummary, Distribution, RequestTiming, request_metrics
from desktop_app.core.runs import RunInfo, load_label, run_info
from desktop_app.core.stats import Estimate
from desktop_app.core.store import Store
from desktop_app.core.store.tables import CellRecord
from desktop_app.core.throughput import figures as cell_figures
from desktop_app.core.throughput.checks import unreliable_cells
from desktop_app.core.throughput.diagnosis import diagnose, with_config_findings
from desktop_app.core.throughput.figures import CellSample
from desktop_app.core.throughput.lengths import Lengths
from desktop_app.core.throughput.types import (
    CellResult,
    CellSpec,
    CellStatus,
    ClientLoad,
    Finding,
    RequestRecord,
    Severity,
)

__all__ = ["StoredCell", "ThroughputRun", "cell_result", "finding_to_json", "findings_from_json",
           "iter_request_rows", "load_sweep", "request_ids", "request_record",
           "requests_by_id", "StoredRequest", "sample_from_row", "sample_rows", "samples", "save_diagnosis",
           "summary_from_json", "sweep_from", "timing_from_row"]

FINISHED_CELL = ("completed", "time_budget")
_DIST_STATS = ("n", "mean", "p50", "p90", "p99", "min", "max")
_DISTRIBUTIONS = ("ttft_s", "prefill_tps", "decode_tps", "tpot_s", "itl_s", "e2e_s")
_SCALARS = ("wall_s", "output_tps", "effective_prefill_tps", "effective_decode_tps")


# --------------------------------------------------------------------------- decoding


def _distribution(d: Any) -> Distribution | None:
    """A stored distribution; an imported one may lack its count or percentiles (None), and
    one without a mean is none at all."""
    if not isinstance(d, dict) or d.get("mean") is None:
        return None
    stats: dict[str, Any] = {k: d.get(k) for k in _DIST_STATS}
    return Distribution(**stats)


def _stored_workload(data: dict | None) -> dict[str, Any]:
    """What a cell's requests were made of, as stored (`CellSpec.workload_json`), as
    CellSpec's fields; a part that is not what was written (a file edited by hand) is read as
    fixed."""
    data = data if isinstance(data, dict) else {}
    out: dict[str, Any] = {}
    for axis in ("input", "output"):
        value = data.get(axis)
        try:
            out[f"{axis}_lengths"] = None if value is None else Lengths.from_json(value)
        except (ValueError, TypeError, KeyError):
            out[f"{axis}_lengths"] = None
    workload, speedup = data.get("workload"), data.get("speedup")
    out["workload"] = workload if isinstance(workload, str) else None
    out["speedup"] = (float(speedup) if isinstance(speedup, (int, float))
                      and not isinstance(speedup, bool) and speedup > 0 else None)
    turns = data.get("turns")
    if isinstance(turns, int) and not isinstance(turns, bool) and turns >= 1:
        out["turns"] = turns
        for key in ("think_s", "system_tokens"):
            value = data.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
                out[key] = int(value) if key == "system_tokens" else float(value)
    return out


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def summary_from_json(d: dict | None) -> CellSummary:
    """A stored cell summary (`CellSummary.to_dict` plus extras) back as a CellSummary.

    Counts an imported file did not give come back as 0 (see :attr:`StoredCell.counts_known`).
    """
    d = d if isinstance(d, dict) else {}
    failures = d.get("failures_by_class")
    figures: dict[str, Any] = {m: _distribution(d.get(m)) for m in _DISTRIBUTIONS}
    figures.update((k, d.get(k)) for k in _SCALARS)
    return CellSummary(
        count=_int_or_none(d.get("count")) or 0, ok=_int_or_none(d.get("ok")) or 0,
        failures_by_class=dict(failures) if isinstance(failures, dict) else {},
        **figures,
        prompt_tokens=_int_or_none(d.get("prompt_tokens")) or 0,
        completion_tokens=_int_or_none(d.get("completion_tokens")) or 0)


def _client_load(d: Any) -> ClientLoad | None:
    if not isinstance(d, dict):
        return None
    try:
        return ClientLoad(**{f.name: d[f.name] for f in dataclasses.fields(ClientLoad)})
    except KeyError:
        return None


def _epoch(iso: str | None) -> float | None:
    return None if not iso else datetime.fromisoformat(iso).timestamp()


def cell_result(record: CellRecord, timings: Sequence[RequestTiming] = (),
                samples: Sequence[MetricSample] = (), origin: float | None = None) -> CellResult:
    """A stored cell as the sweep's CellResult. `timings` and `samples` are the cell's own
    (empty when not read); `origin` (epoch seconds) puts its start and end on the run's clock.
    A cell the sweep never finished (pending, or left running) reads as cancelled."""
    d = record.summary if isinstance(record.summary, dict) else {}
    status = cast(CellStatus, record.status if record.status in FINISHED_CELL
                  else "cancelled")
    started, ended = _epoch(record.started_at), _epoch(record.ended_at)
    base = origin if origin is not None else 0.0
    return CellResult(
        spec=CellSpec(record.input_tokens or 0, record.output_tokens or 0,
                      _int_or_none(d.get("count")) or len(timings),
                      concurrency=record.concurrency, request_rate=record.request_rate,
                      **_stored_workload(record.workload)),
        summary=summary_from_json(d), timings=tuple(timings), samples=tuple(samples),
        client_load=_client_load(d.get("client_load")),
        prefill_change=d.get("prefill_change"), decode_change=d.get("decode_change"),
        goodput=d.get("goodput"), token_mismatches=_int_or_none(d.get("token_mismatches")) or 0,
        implausible=_implausible(d.get("implausible")),
        resent=_int_or_none(d.get("resent")) or 0,
        send_lateness=_lateness(d.get("send_lateness")),
        turn_figures=_turn_figures(d.get("turns")),
        prefix_cache=_prefix_cache(d.get("prefix_cache")),
        started_s=0.0 if started is None or origin is None else started - base,
        ended_s=0.0 if ended is None or origin is None else ended - base, status=status)


def _lateness(value) -> dict[str, float] | None:
    """A scheduled cell's stored send lateness (`sweep.lateness_summary`): its finite numbers."""
    if not isinstance(value, dict):
        return None
    return {str(k): float(v) for k, v in value.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)}


def _turn_figures(value) -> tuple[dict, ...] | None:
    """A multi-turn cell's stored figures per turn (`sweep.turn_figures`), each a dict of its
    finite numbers (or None where the server did not report one)."""
    if not isinstance(value, list):
        return None
    out = []
    for item in value[:1000]:
        if isinstance(item, dict):
            out.append({str(k): (v if isinstance(v, (int, float)) and not isinstance(v, bool)
                                 and math.isfinite(v) else None) for k, v in item.items()})
    return tuple(out)


def _prefix_cache(value) -> dict | None:
    """A cell's stored prefix-cache reuse (`servermetrics.prefix_cache`), checked."""
    if not isinstance(value, dict):
        return None
    nums: dict[str, float] = {}
    for key in ("hits", "queries", "share"):
        v = value.get(key)
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                and v >= 0):
            return None
        nums[key] = float(v)
    if nums["share"] > 1:
        return None
    return {**nums, "source": str(value.get("source", ""))[:80]}


def cell_summaries(store: Store, run_id: int) -> list[dict[str, Any] | None]:
    """Each stored cell's summary as it was written, in cell order (a replay's points, which
    `throughput.replay.ReplayPoint.from_json` checks)."""
    return [cell.summary for cell in store.cells(run_id)]


def _implausible(value) -> dict[str, int]:
    """A stored cell's plausibility counts ({} for cells stored before they were counted)."""
    if not isinstance(value, dict):
        return {}
    return {str(k): n for k, v in value.items() if (n := _int_or_none(v))}


def timing_from_row(row: dict, origin: float, chunks: bool = True) -> RequestTiming:
    """A stored request on the run's clock (seconds since `origin`, epoch seconds), with its
    chunk times rebuilt from the stored gaps (`chunks=False` skips them: a view of 100k
    requests needs no per-chunk times, and they are most of the memory)."""
    sent_at = row.get("sent_at")
    sent = (origin if sent_at is None else sent_at) - origin
    ttft, e2e = row.get("ttft_s"), row.get("e2e_s")
    first = None if ttft is None else sent + ttft
    last = None if e2e is None else sent + e2e
    times: list[float] = []
    if first is not None and chunks:
        times.append(first)
        for gap in row.get("itl_s") or ():
            times.append(times[-1] + gap)
    prompt = row.get("prompt_tokens")
    return RequestTiming(
        prompt_tokens=prompt if prompt is not None else (row.get("prompt_tokens_target") or 0),
        completion_tokens=row.get("completion_tokens") or 0, sent_s=sent, first_token_s=first,
        last_token_s=last, chunk_times_s=tuple(times), error_class=row.get("error_class"))


def request_record(cell_index: int, row: dict):
    """A stored request row as the sweep's RequestRecord (what resume carries forward)."""

    return RequestRecord(
        cell_index, row["seq"], row["response_id"], row["prompt_tokens_target"],
        row["prompt_tokens"], row["completion_tokens"] or 0, row["tokens_source"], row["ttft_s"],
        row["e2e_s"], row["error_class"], row["error_message"], row["status_code"],
        row["finish_reason"], ttft_answer_s=row.get("ttft_answer_s"),
        reasoning_chunks=row.get("reasoning_chunks") or 0)


def sample_from_row(row: dict) -> MetricSample:
    """A stored /metrics sample (``t_s`` seconds since the run started)."""
    return MetricSample(t_s=row["t_s"], running=row.get("running"), waiting=row.get("waiting"),
                        kv_cache_usage=row.get("kv_cache_usage"),
                        preemptions=row.get("preemptions"), raw=row.get("raw_json") or {})


def finding_to_json(f: Finding) -> dict:
    """A finding as kept with its run and exported (`findings_from_json` reads it back): its
    code, severity, `params` (the values its words quote) and `suggestion_code`; a finding kept
    before #12 keeps its English `message` and `suggestion` instead."""
    out = {"code": f.code, "severity": f.severity, "params": f.params,
           "evidence": f.evidence, "suggestion_code": f.suggestion_code}
    if f.message or f.suggestion:
        out["message"], out["suggestion"] = f.message, f.suggestion
    return out


def save_diagnosis(store: Store, run_id: int, findings: Sequence[Finding]) -> None:
    """Keep a sweep's findings with its run (blocking), replacing any kept before."""
    store.set_diagnosis(run_id, [finding_to_json(f) for f in findings])


def findings_from_json(items: Iterable[Any]) -> tuple[Finding, ...]:
    """Findings as `throughput.export.finding_json` wrote them (unknown shapes skipped)."""
    out = []
    for f in items or ():
        if isinstance(f, dict) and f.get("code"):
            severity = cast(Severity, f.get("severity") if f.get("severity") in (
                "info", "warning", "problem") else "info")
            evidence, params = f.get("evidence"), f.get("params")
            suggestion, code = f.get("suggestion"), f.get("suggestion_code")
            out.append(Finding(str(f["code"]), severity, str(f.get("message") or ""),
                               evidence if isinstance(evidence, dict) else {},
                               suggestion if isinstance(suggestion, str) else None,
                               params if isinstance(params, dict) else {},
                               code if isinstance(code, str) else None))
    return tuple(out)


# --------------------------------------------------------------------------- typed results


@dataclass(frozen=True)
class StoredCell:
    """One stored cell: its store ids, the sweep's CellResult, whether its latencies are
    client-bound, and the figures a comparison sets side by side, with their noise: `figures`,
    every registered figure's estimate by key (`throughput.figures` says how each is computed:
    a per-user figure from stored requests carries a bootstrap interval, a system figure the
    interval of the closed loop's rate by Little's law moved onto its measured value, goodput a
    Wilson interval, and a figure an imported file gave without its requests none). The
    properties name the built-in ones: per user `ttft` (median TTFT, s), `tpot` (median time per
    output token, s), `prefill` and `decode` (mean tok/s per request); for the system
    `output_tps` (completion tokens of completed requests / wall time), `rps` (completed
    requests / wall time) and `goodput` (the share meeting the run's targets, when it set any)."""

    id: int
    index: int
    stored_status: str  # as stored: pending, running, completed, time_budget, cancelled
    started_at: str | None
    ended_at: str | None
    result: CellResult
    counts_known: bool = True  # the stored summary gave its request count (imports may not)
    ok_known: bool = True  # ... and how many completed
    client_bound: bool = False
    # Every registered figure's estimate (`throughput.figures`), by key.
    figures: Mapping[str, Estimate | None] = field(default_factory=dict)

    def figure(self, key: str) -> Estimate | None:
        return self.figures.get(key)

    @property
    def ttft(self) -> Estimate | None:
        return self.figures.get("ttft")

    @property
    def prefill(self) -> Estimate | None:
        return self.figures.get("prefill")

    @property
    def decode(self) -> Estimate | None:
        return self.figures.get("decode")

    @property
    def tpot(self) -> Estimate | None:
        return self.figures.get("tpot")

    @property
    def output_tps(self) -> Estimate | None:
        return self.figures.get("output_tps")

    @property
    def goodput(self) -> Estimate | None:
        return self.figures.get("goodput")

    @property
    def spec(self) -> CellSpec:
        return self.result.spec

    @property
    def summary(self) -> CellSummary:
        return self.result.summary

    @property
    def input_tokens(self) -> int:
        return self.result.spec.input_tokens

    @property
    def output_tokens(self) -> int:
        return self.result.spec.output_tokens

    @property
    def concurrency(self) -> int | None:
        return self.result.spec.concurrency

    @property
    def request_rate(self) -> float | None:
        return self.result.spec.request_rate

    @property
    def load_label(self) -> str:
        return load_label(self.concurrency, self.request_rate)

    @property
    def requests(self) -> int:
        return self.result.summary.count

    @property
    def ok(self) -> int:
        return self.result.summary.ok

    @property
    def ttft_s(self) -> float | None:
        return None if self.ttft is None else self.ttft.value

    @property
    def prefill_tps(self) -> float | None:
        return None if self.prefill is None else self.prefill.value

    @property
    def decode_tps(self) -> float | None:
        return None if self.decode is None else self.decode.value

    @property
    def prefill_change(self) -> float | None:
        return self.result.prefill_change

    @property
    def decode_change(self) -> float | None:
        return self.result.decode_change

    @property
    def finished(self) -> bool:
        return self.stored_status in FINISHED_CELL


@dataclass(frozen=True)
class ThroughputRun:
    """A stored sweep (or an imported one): its cells in sweep order, the server's /metrics
    timeline, and its diagnosis (`findings`: the one kept with the run when it ended, else made
    again from the stored requests: `diagnosis_kept` says which; `diagnosis_error` why none
    could be made)."""

    info: RunInfo
    cells: tuple[StoredCell, ...]
    samples: tuple[MetricSample, ...] = ()
    findings: tuple[Finding, ...] = ()
    diagnosis_kept: bool = False
    diagnosis_error: str | None = None

    def results(self) -> list[CellResult]:
        return [c.result for c in self.cells]

    def unreliable(self) -> set[int]:
        """Indices of the client-bound cells."""
        return {i for i, c in enumerate(self.cells) if c.client_bound}

    def concurrencies(self) -> list[int]:
        return sorted({c.concurrency for c in self.cells if c.concurrency is not None})

    def lengths(self) -> list[int]:
        return sorted({c.input_tokens for c in self.cells})

    def cell(self, input_tokens: int, concurrency: int) -> StoredCell | None:
        """The finished cell at this prompt length and concurrency (the first output length)."""
        return next((c for c in self.cells if c.input_tokens == input_tokens
                     and c.concurrency == concurrency and c.summary.count), None)

    @property
    def closed_loop_cells(self) -> tuple[StoredCell, ...]:
        """Cells with a concurrency and a stored summary: what the comparison reads."""
        return tuple(c for c in self.cells if c.concurrency is not None and c.summary.count)


def _stored_cell(record: CellRecord, result: CellResult, client_bound: bool) -> StoredCell:
    ok = [t for t in result.timings if t.ok]
    d = record.summary if isinstance(record.summary, dict) else {}
    return StoredCell(
        record.id, record.cell_index, record.status, record.started_at, record.ended_at, result,
        counts_known=_int_or_none(d.get("count")) is not None,
        ok_known=_int_or_none(d.get("ok")) is not None, client_bound=client_bound,
        figures=cell_figures.estimates(
            CellSample(result, ok, [request_metrics(t) for t in ok])))


_REQUEST_SELECT = (
    "SELECT cell_id, seq, warmup, sent_at, ttft_s, e2e_s, prompt_tokens_target, prompt_tokens, "
    "completion_tokens, tokens_source, prefill_tps, decode_tps, tpot_s, itl_s, error_class, "
    "error_message, finish_reason, response_id, status_code, ttft_answer_s, reasoning_chunks "
    "FROM tp_requests WHERE run_id = ?"
)


def iter_request_rows(store: Store, run_id: int, cell_id: int | None = None, *,
                      decode: bool = True) -> Iterator[dict[str, Any]]:
    """A run's stored request rows (or one cell's) in cell and ``seq`` order, streamed.

    Read on a connection of its own, read-only, so a run of 100k requests is never all in memory
    and the store stays free for other callers (WAL lets readers and the writer work at once).
    ``decode=False`` leaves ``itl_s`` as the stored JSON text (an export copies it as is).
    Columns and units: docs/EXPORTS.md (times in seconds, ``sent_at`` epoch seconds).
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
            row["warmup"] = bool(row["warmup"])
            yield row


def request_ids(store: Store, run_id: int, cell_id: int | None = None,
                errors_only: bool = False) -> list[int]:
    """Ids of a run's stored requests in sweep order (cheap: from an index), for a browser
    that reads its visible rows lazily with :func:`requests_by_id`."""
    return store.request_ids(run_id, cell_id, errors_only)


@dataclass(frozen=True)
class StoredRequest:
    """One stored request as a run browser lists it (seconds, tokens, tokens per second; None
    where the request has no such figure; columns: docs/EXPORTS.md). `id` is its row's, so a
    browser can hold ids and read the rows in view."""

    id: int
    cell_id: int | None = None
    seq: int | None = None
    warmup: bool = False
    ttft_s: float | None = None
    e2e_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prefill_tps: float | None = None
    decode_tps: float | None = None
    tpot_s: float | None = None
    finish_reason: str | None = None
    status_code: int | None = None
    error_class: str | None = None
    error_message: str | None = None
    response_id: str | None = None


_REQUEST_FIELDS = tuple(f.name for f in dataclasses.fields(StoredRequest))


def requests_by_id(store: Store, ids: Sequence[int]) -> list[StoredRequest]:
    """The stored requests with these ids, in that order (an id no longer stored is left out)."""
    return [StoredRequest(**{**{k: row.get(k) for k in _REQUEST_FIELDS},
                             "warmup": bool(row.get("warmup"))})
            for row in store.requests_by_id(ids)]


def samples(store: Store, run_id: int) -> list[MetricSample]:
    """A run's /metrics timeline, in the order stored (``t_s`` since the run started)."""
    return [sample_from_row(r) for r in store.metric_samples(run_id)]


def sample_rows(store: Store, run_id: int) -> list[dict[str, Any]]:
    """A run's /metrics timeline as stored rows (``t_s`` since the run started, ``cell_id``)."""
    return store.metric_samples(run_id)


def load_sweep(store: Store, run_id: int, *, requests: bool = True) -> ThroughputRun:
    """The stored sweep `run_id`, typed (see the module doc). `requests=False` skips the
    per-request rows and the /metrics timeline (cells only: no intervals, a diagnosis only if one
    was kept): for lists and quick views.

    Raises NotFoundError for an unknown id, ValueError for a run of another kind. Blocking
    (SQLite): call it in a thread from the GUI.
    """
    record = store.get_run(run_id)
    if record.kind != "throughput":
        raise ValueError(f"run {run_id} is a {record.kind} run, not a throughput sweep")
    return sweep_from(store, run_info(record), requests=requests)


def sweep_from(store: Store, info: RunInfo, *, requests: bool = True,
               chunks: bool = False) -> ThroughputRun:
    """`load_sweep` for a run whose identity is already read; `chunks=True` also rebuilds every
    request's chunk times (resume needs them)."""
    records = store.cells(info.id)
    rows = sample_rows(store, info.id) if requests else []
    samples = tuple(sample_from_row(r) for r in rows)
    samples_by_cell: dict[int | None, list[MetricSample]] = {}
    for row, sample in zip(rows, samples):
        samples_by_cell.setdefault(row.get("cell_id"), []).append(sample)
    by_cell: dict[int | None, list[RequestTiming]] = {}
    origin = _epoch(info.started_at) or 0.0
    if requests:
        for r in iter_request_rows(store, info.id, decode=chunks):
            if not r["warmup"]:
                by_cell.setdefault(r["cell_id"], []).append(timing_from_row(r, origin, chunks))
    results = [cell_result(rec, by_cell.get(rec.id, ()), samples_by_cell.get(rec.id, ()),
                           origin) for rec in records]
    bound = unreliable_cells(results)
    cells = tuple(_stored_cell(rec, res, i in bound)
                  for i, (rec, res) in enumerate(zip(records, results)))
    kept = store.diagnosis(info.id)
    error = None
    if kept is not None:
        findings = findings_from_json(kept)
        # The Ray clocks are stored as the run ends, after its diagnosis was kept.
        with contextlib.suppress(Exception):
            findings = tuple(with_config_findings(findings, info.config))
    elif requests:
        try:
            findings = tuple(diagnose(results, None, server_settings=info.settings or None,
                                      run_config=info.config))
        except Exception as exc:  # noqa: BLE001 - an odd stored run must not sink a view
            findings, error = (), f"{type(exc).__name__}: {exc}"
    else:
        findings = ()
    return ThroughputRun(info, cells, samples, findings, kept is not None, error)
