"""Finish an interrupted throughput sweep into the same run: `resume_sweep`.

A sweep killed mid-run (a crash, a closed laptop, SIGKILL) leaves its run 'running' in the store
until the store is next opened, which marks it 'interrupted' (`store.liveness`). Its cells are in
one of three states, and resuming treats each so the run ends as if it had never stopped:

- finished (status completed or time_budget, a stored summary, and every request it counted in
  the store): kept exactly as stored, requests, samples and all, and not run again;
- cut mid-way (running or cancelled) or finished without all its rows committed: re-run from
  scratch. Its partial requests and /metrics samples are DELETED, not kept under a flag: a cell's
  figures must come from one uninterrupted pass at its stated load (the first requests of a
  closed-loop cell run on a server not yet at that load, and the rest of the pass would run
  after an unknown pause, perhaps on a restarted server), and every reader of the store (run
  browser, export, comparison) counts a cell's rows as its requests. Keeping them would need a
  new column every one of those readers would have to learn to skip;
- never started (pending): run.

The config comes back from the run's stored config_json; the API key never was stored, so the
caller passes the endpoint (URL and key) again. The resumed part sends the config's warm-up
requests again (the server may have restarted), continues on the run's clock (seconds since its
`started_at`), and the diagnosis and each cell's change against concurrency 1 are recomputed
over every cell, kept and new. The run ends 'completed' (or 'cancelled'/'failed', and can then be
resumed again).
"""

from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from typing import Any

from desktop_app.core.endpoint.client import make_client
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo, MetricSample
from desktop_app.core.metrics import CellSummary, Distribution, RequestTiming
from desktop_app.core.store import CellRecord, NotFoundError, RunRecord, Store
from desktop_app.core.store.liveness import _HOSTNAME, _OWNER_TOKEN
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import (
    ProgressCallback,
    RequestRecord,
    ResumeFrom,
    SweepResult,
    run_sweep,
)
from desktop_app.core.throughput.types import CellResult, CellSpec, ClientLoad

RESUMABLE = ("interrupted", "cancelled", "failed")
FINISHED_CELL = ("completed", "time_budget")


class ResumeError(Exception):
    """A run that cannot be resumed; the message says why, in one line, naming the run."""


def sweep_config_from_json(data: dict[str, Any], endpoint: EndpointConfig) -> SweepConfig:
    """The SweepConfig a run stored (`SweepConfig.to_json`), sent to `endpoint`.

    The stored endpoint fields (model, api, timeouts) are kept so the resumed cells measure the
    same thing; `endpoint` gives the URL, API key and TLS choice. Raises ResumeError when the
    stored config is not a sweep's.
    """
    fields = {f.name for f in dataclasses.fields(SweepConfig)}
    data = dict(data)
    stored_ep = data.pop("endpoint", None) or {}
    unknown = set(data) - fields
    if unknown or "input_tokens" not in data:
        raise ResumeError(f"the stored configuration is not a sweep's (keys: {sorted(data)})")
    ep_fields = {f.name for f in dataclasses.fields(EndpointConfig)} - {"base_url", "api_key",
                                                                          "verify_tls"}
    kept_ep = {k: v for k, v in stored_ep.items() if k in ep_fields and v is not None}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return SweepConfig(endpoint=dataclasses.replace(endpoint, **kept_ep), **values)


def _epoch(iso: str | None) -> float | None:
    return None if not iso else datetime.fromisoformat(iso).timestamp()


def _timing(row: dict, origin: float) -> RequestTiming:
    """A stored request back on the run's clock (seconds since `origin`, epoch seconds)."""
    sent = row["sent_at"] - origin
    first = None if row["ttft_s"] is None else sent + row["ttft_s"]
    last = None if row["e2e_s"] is None else sent + row["e2e_s"]
    chunks: list[float] = []
    if first is not None:
        chunks.append(first)
        for gap in row["itl_s"] or ():
            chunks.append(chunks[-1] + gap)
    prompt = row["prompt_tokens"]
    return RequestTiming(
        prompt_tokens=prompt if prompt is not None else row["prompt_tokens_target"],
        completion_tokens=row["completion_tokens"] or 0, sent_s=sent, first_token_s=first,
        last_token_s=last, chunk_times_s=tuple(chunks), error_class=row["error_class"])


def _record(index: int, row: dict) -> RequestRecord:
    return RequestRecord(
        index, row["seq"], row["response_id"], row["prompt_tokens_target"], row["prompt_tokens"],
        row["completion_tokens"] or 0, row["tokens_source"], row["ttft_s"], row["e2e_s"],
        row["error_class"], row["error_message"], row["status_code"], row["finish_reason"])


def _sample(row: dict) -> MetricSample:
    return MetricSample(t_s=row["t_s"], running=row["running"], waiting=row["waiting"],
                        kv_cache_usage=row["kv_cache_usage"], preemptions=row["preemptions"],
                        raw=row["raw_json"] or {})


def _summary(d: dict) -> CellSummary:
    """A stored cell summary (`CellSummary.to_dict`) back as a CellSummary, values unchanged."""
    names = {f.name for f in dataclasses.fields(CellSummary)}
    values = {k: v for k, v in d.items() if k in names}
    for k, v in values.items():
        if isinstance(v, dict) and k != "failures_by_class":
            values[k] = Distribution(**v)
    return CellSummary(**values)


def _spec_matches(rec: CellRecord, spec: CellSpec) -> bool:
    return (rec.input_tokens, rec.output_tokens, rec.concurrency, rec.request_rate) == (
        spec.input_tokens, spec.output_tokens, spec.concurrency, spec.request_rate)


def _kept_cell(store: Store, run_id: int, rec: CellRecord, spec: CellSpec, origin: float,
               ) -> tuple[CellResult, list[dict], list[MetricSample]] | None:
    """A finished cell as stored, or None when it must run again."""
    s = rec.summary
    if rec.status not in FINISHED_CELL or not s:
        return None
    rows = [r for r in store.requests(run_id, cell_id=rec.id, limit=10**9) if not r["warmup"]]
    if len(rows) != s.get("count"):
        return None  # killed between the cell's end and the commit of its last rows
    samples = [_sample(r) for r in store.metric_samples(run_id, cell_id=rec.id)]
    load = s.get("client_load")
    started, ended = _epoch(rec.started_at), _epoch(rec.ended_at)
    cell = CellResult(
        spec=spec, summary=_summary(s), timings=tuple(_timing(r, origin) for r in rows),
        samples=tuple(samples), client_load=ClientLoad(**load) if load else None,
        goodput=s.get("goodput"), token_mismatches=s.get("token_mismatches", 0),
        started_s=0.0 if started is None else started - origin,
        ended_s=0.0 if ended is None else ended - origin, status=rec.status)
    return cell, rows, samples


def check_resumable(store: Store, run_id: int) -> RunRecord:
    """The run if it can be resumed; ResumeError saying why not otherwise (blocking)."""
    try:
        run = store.get_run(run_id)
    except NotFoundError:
        raise ResumeError(f"no run {run_id} in {store.path}") from None
    if run.kind != "throughput":
        raise ResumeError(f"run {run_id} is a {run.kind} run; resume finishes throughput sweeps "
                          "(run the evaluation again instead)")
    if run.status == "completed":
        raise ResumeError(f"run {run_id} is completed; there is nothing to resume")
    if run.status == "running":
        raise ResumeError(f"run {run_id} is still running (process {run.pid} on "
                          f"{run.hostname}); stop it first, or wait for it to end")
    if run.status not in RESUMABLE:
        raise ResumeError(f"run {run_id} has status {run.status!r}, which cannot be resumed")
    return run


def plan_resume(store: Store, run_id: int, endpoint: EndpointConfig,
                ) -> tuple[SweepConfig, ResumeFrom]:
    """What resuming `run_id` would do: its config and the cells kept (blocking, reads only)."""
    run = check_resumable(store, run_id)
    config = sweep_config_from_json(run.config, endpoint)
    specs = config.cells()
    origin = _epoch(run.started_at) or _epoch(run.created_at)
    stored = {c.cell_index: c for c in store.cells(run_id)}
    kept: dict[int, CellResult] = {}
    requests: list[RequestRecord] = []
    samples: list[MetricSample] = []
    for i, spec in enumerate(specs):
        rec = stored.get(i)
        if rec is None:
            continue
        if not _spec_matches(rec, spec):
            raise ResumeError(f"run {run_id}: stored cell {i} ({rec.input_tokens} in, "
                              f"{rec.output_tokens} out) does not match its configuration")
        found = _kept_cell(store, run_id, rec, spec, origin)
        if found is not None:
            kept[i], rows, cell_samples = found
            requests += [_record(i, r) for r in rows]
            samples += cell_samples
    # Whether the server sends usage, as the first warm-up found (no warm-up: assumed, as then).
    with store._lock:  # Store's own lock: other threads may be using the same connection
        sources = {r[0] for r in store.db.execute(
            "SELECT DISTINCT tokens_source FROM tp_requests WHERE run_id = ? AND warmup = 1",
            (run_id,))}
    usage = "usage" in sources if sources else True

    cell_ids = [stored[i].id if i in stored else -1 for i in range(len(specs))]

    def claim() -> None:
        _claim(store, run, specs, stored, kept, cell_ids)

    plan = ResumeFrom(run_id=run_id, clock_origin_epoch=origin, cell_ids=cell_ids, kept=kept,
                      requests=requests, samples=samples, usage_expected=usage, claim=claim)
    return config, plan


def _claim(store: Store, run: RunRecord, specs: list[CellSpec], stored: dict[int, CellRecord],
           kept: dict[int, CellResult], cell_ids: list[int]) -> None:
    """Take the run over for this process and clear the cells to re-run, in one transaction.

    The status test in the UPDATE makes two resumes of one run exclusive: the second finds it
    'running' and gives up. Cells the store never got (killed while adding them) are added, and
    their ids written into `cell_ids`.
    """
    db = store.db
    # Under Store's own lock (its methods take it too): the GUI polls the same connection from
    # another thread while a sweep runs. Store has no public call for taking a run over.
    with store._lock, db.atomic():
        taken = db.execute(
            "UPDATE runs SET status = 'running', ended_at = NULL, error = NULL, pid = ?, "
            "hostname = ?, owner_token = ? WHERE id = ? AND status IN (?, ?, ?)",
            (os.getpid(), _HOSTNAME, _OWNER_TOKEN, run.id, *RESUMABLE)).rowcount
        if not taken:
            raise ResumeError(f"run {run.id} was resumed or changed by another process meanwhile")
        for i, rec in stored.items():
            if i in kept or i >= len(specs):
                continue
            db.execute("DELETE FROM tp_requests WHERE run_id = ? AND cell_id = ?", (run.id, rec.id))
            db.execute("DELETE FROM metric_samples WHERE run_id = ? AND cell_id = ?",
                       (run.id, rec.id))
            db.execute("UPDATE tp_cells SET status = 'pending', started_at = NULL, "
                       "ended_at = NULL, summary_json = NULL WHERE id = ?", (rec.id,))
        for i, spec in enumerate(specs):
            if i not in stored:
                cell_ids[i] = store.add_cell(
                    run.id, cell_index=i, input_tokens=spec.input_tokens,
                    output_tokens=spec.output_tokens, concurrency=spec.concurrency,
                    request_rate=spec.request_rate, status="pending")


async def resume_sweep(
    store: Store,
    run_id: int,
    endpoint: EndpointConfig | None = None,
    on_progress: ProgressCallback | None = None,
    *,
    info: EndpointInfo | None = None,
) -> SweepResult:
    """Finish interrupted throughput run `run_id` into the same run; returns the whole sweep.

    `endpoint` gives where to send (URL, API key, TLS); None uses the run's stored URL without a
    key (stored URLs have credentials removed, so pass the endpoint again when it needs any).
    Model, API and timeouts come from the stored run. `on_progress` and cancellation (cancel the
    task) behave as in `run_sweep`; `info` skips discovery. Raises ResumeError (not resumable, or
    the endpoint serves a different engine) or EndpointError (unreachable) before the run is
    touched; the store must be open in this process for the whole call.
    """
    run = check_resumable(store, run_id)
    if endpoint is None:
        if not run.endpoint_url:
            raise ResumeError(f"run {run_id} has no stored endpoint URL; give the endpoint")
        endpoint = EndpointConfig(run.endpoint_url)
    config, plan = plan_resume(store, run_id, endpoint)
    if info is None:
        async with make_client(config.endpoint, 1) as client:
            info = await discover(config.endpoint, client)
    engine = ("simulated " if info.simulated else "") + info.engine
    if run.engine and engine != run.engine:
        raise ResumeError(f"run {run_id} measured a {run.engine} endpoint; "
                          f"{config.endpoint.v1_url} is {engine}")
    return await run_sweep(config, store, on_progress, info=info, resume=plan)
