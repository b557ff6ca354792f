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
from datetime import datetime
from typing import Any

from desktop_app.core import engines
from desktop_app.core.endpoint.client import make_client
from desktop_app.core.endpoint.discovery import discover
from desktop_app.core.endpoint.server_settings import user_settings_from_stored
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo, MetricSample
from desktop_app.core.parsing import CodedError
from desktop_app.core.runs import run_info
from desktop_app.core.store import NotFoundError, Store
from desktop_app.core.store.tables import RunRecord
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.ray_pool import CLOCKS_KEY
from desktop_app.core.throughput.records import (
    StoredCell,
    iter_request_rows,
    request_record,
    sweep_from,
)
from desktop_app.core.throughput.sweep import (
    ProgressCallback,
    RequestRecord,
    ResumeFrom,
    SweepResult,
    run_sweep,
)
from desktop_app.core.throughput.findmax import FindMax
from desktop_app.core.throughput.lengths import Lengths
from desktop_app.core.throughput.workload import WorkloadRef
from desktop_app.core.throughput.types import CellResult, CellSpec

RESUMABLE = ("interrupted", "cancelled", "failed")


class ResumeError(CodedError):
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
    # The run stored the settings merged with what the server reported; the sweep gets back
    # only what the user typed (the server is asked again when it resumes).
    merged = data.pop("server_settings", None) or {}
    source = data.pop("server_settings_source", None) or {}
    data["server_settings"] = user_settings_from_stored(merged, source) if source else merged
    data.pop(CLOCKS_KEY, None)  # what a Ray run measured, not what it was asked to do
    unknown = set(data) - fields
    if unknown or "input_tokens" not in data:
        raise ResumeError(code="not_a_sweep_config", keys=str(sorted(data)))
    ep_fields = {f.name for f in dataclasses.fields(EndpointConfig)} - {"base_url", "api_key",
                                                                          "verify_tls"}
    kept_ep = {k: v for k, v in stored_ep.items() if k in ep_fields and v is not None}
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    try:
        for axis in ("input_lengths", "output_lengths"):
            values[axis] = tuple(Lengths.from_json(v) for v in values.get(axis) or ())
        if values.get("workload") is not None:
            values["workload"] = WorkloadRef.from_json(values["workload"])
        if values.get("find_max") is not None:
            values["find_max"] = FindMax.from_json(values["find_max"])
    except (ValueError, TypeError, KeyError):
        raise ResumeError(code="not_a_sweep_config", keys=str(sorted(data))) from None
    return SweepConfig(endpoint=dataclasses.replace(endpoint, **kept_ep), **values)


def _spec_matches(cell: StoredCell, spec: CellSpec) -> bool:
    return (cell.spec.shape, cell.concurrency, cell.request_rate) == (
        spec.shape, spec.concurrency, spec.request_rate)


def check_resumable(store: Store, run_id: int) -> RunRecord:
    """The run if it can be resumed; ResumeError saying why not otherwise (blocking)."""
    try:
        run = store.get_run(run_id)
    except NotFoundError:
        raise ResumeError(code="no_run", run=run_id, path=store.path) from None
    if run.kind != "throughput":
        raise ResumeError(code="resume_not_throughput", run=run_id, kind=run.kind)
    if run.status == "completed":
        raise ResumeError(code="resume_completed", run=run_id)
    if run.status == "running":
        raise ResumeError(code="resume_running", run=run_id, pid=run.pid, host=run.hostname)
    if run.status not in RESUMABLE:
        raise ResumeError(code="resume_status", run=run_id, status=repr(run.status))
    return run


def plan_resume(store: Store, run_id: int, endpoint: EndpointConfig,
                ) -> tuple[SweepConfig, ResumeFrom]:
    """What resuming `run_id` would do: its config and the cells kept (blocking, reads only)."""
    run = check_resumable(store, run_id)
    config = sweep_config_from_json(run.config, endpoint)
    specs = config.cells()
    sweep = sweep_from(store, run_info(run), chunks=True)
    origin = datetime.fromisoformat(sweep.info.started_at).timestamp()
    stored = {c.index: c for c in sweep.cells}
    rows_by_cell: dict[int | None, list[dict]] = {}
    for row in iter_request_rows(store, run_id):
        if not row["warmup"]:
            rows_by_cell.setdefault(row["cell_id"], []).append(row)
    kept: dict[int, CellResult] = {}
    requests: list[RequestRecord] = []
    samples: list[MetricSample] = []
    for i, spec in enumerate(specs):
        cell = stored.get(i)
        if cell is None:
            continue
        if not _spec_matches(cell, spec):
            raise ResumeError(code="resume_cell_mismatch", run=run_id, cell=i,
                              input=cell.input_tokens, output=cell.output_tokens)
        rows = rows_by_cell.get(cell.id, [])
        # Kept only when finished with every request it counted committed (a kill between
        # the cell's end and the commit of its last rows leaves fewer).
        if cell.finished and cell.counts_known and len(rows) == cell.summary.count:
            kept[i] = dataclasses.replace(cell.result, spec=spec)
            requests += [request_record(i, r) for r in rows]
            samples += cell.result.samples
    # Whether the server sends usage, as the first warm-up found (no warm-up: assumed, as then).
    sources = store.warmup_token_sources(run_id)
    usage = "usage" in sources if sources else True

    cell_ids = [stored[i].id if i in stored else -1 for i in range(len(specs))]

    def claim() -> None:
        _claim(store, run, specs, stored, kept, cell_ids)

    plan = ResumeFrom(run_id=run_id, clock_origin_epoch=origin, cell_ids=cell_ids, kept=kept,
                      requests=requests, samples=samples, usage_expected=usage, claim=claim)
    return config, plan


def _claim(store: Store, run: RunRecord, specs: list[CellSpec], stored: dict[int, StoredCell],
           kept: dict[int, CellResult], cell_ids: list[int]) -> None:
    """Take the run over for this process and clear the cells to re-run, in one transaction.

    `Store.claim_run` makes two resumes of one run exclusive: the second finds it 'running' and
    gives up. Cells the store never got (killed while adding them) are added, and their ids
    written into `cell_ids`.
    """
    def prepare() -> None:
        for i, cell in stored.items():
            if i not in kept and i < len(specs):
                store.reset_cell(run.id, cell.id)
        for i, spec in enumerate(specs):
            if i not in stored:
                cell_ids[i] = store.add_cell(
                    run.id, cell_index=i, input_tokens=spec.input_tokens,
                    output_tokens=spec.output_tokens, concurrency=spec.concurrency,
                    request_rate=spec.request_rate, status="pending")

    if not store.claim_run(run.id, RESUMABLE, prepare):
        raise ResumeError(code="resume_raced", run=run.id)


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
            raise ResumeError(code="resume_no_url", run=run_id)
        endpoint = EndpointConfig(run.endpoint_url)
    config, plan = plan_resume(store, run_id, endpoint)
    if config.find_max is not None:  # its probes followed what the earlier ones measured
        raise ResumeError(code="resume_find_max", run=run_id)
    if info is None:
        async with make_client(config.endpoint, 1) as client:
            info = await discover(config.endpoint, client)
    engine = engines.run_label(info.engine, info.simulated)
    if run.engine and engine != run.engine:
        raise ResumeError(code="resume_other_engine", run=run_id, engine=run.engine,
                          url=config.endpoint.v1_url, now=engine)
    return await run_sweep(config, store, on_progress, info=info, resume=plan)
