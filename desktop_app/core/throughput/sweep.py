"""The throughput sweep: discover, prepare prompts, warm up, run every cell, diagnose.

`run_sweep` is the one entry point the CLI and the GUI share. It reports progress through a
plain callback (the GUI's controller turns it into signals), hands every finished request to
the store's writer as it finishes, and on cancellation stops every request in flight, marks the
cell and the run cancelled and re-raises, leaving the store consistent.

Streams go over the lean path (`endpoint.lean`) unless the config asks for httpx or a proxy
applies; with `workers` > 1 a cell's streams run in worker processes (`throughput.workers`), or
with `ray` in Ray actors on a cluster's machines (`throughput.ray_pool`, stamps corrected onto
this process's clock), and come back here to be recorded.

Clock: every time in the records is seconds since the run started (the moment its row was
stored, so the run's `started_at` is the origin to the millisecond), from
`time.perf_counter_ns()` stamps taken as bytes arrived (see `endpoint.client`), so the client's
timeline and the /metrics samples line up. A resumed run (`resume=`, see `throughput.resume`)
continues on the same clock: its new cells' times count from the original start.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from desktop_app.core import engines
from desktop_app.core.endpoint.client import make_client, stream_request
from desktop_app.core.endpoint.lean import LeanClient, lean_supported, stream_request_lean
from desktop_app.core.endpoint.limits import clean_text
from desktop_app.core.endpoint.discovery import choose_model, discover
from desktop_app.core.endpoint.server_settings import stored_settings
from desktop_app.core.endpoint.types import EndpointInfo, MetricSample, StreamResult
from desktop_app.core.metrics import RequestTiming, distribution, request_metrics, summarize_cell
from desktop_app.core.parsing import InputError
from desktop_app.core.redact import redact_text
from desktop_app.core.runs import default_name
from desktop_app.core.store import RunWriter, Store, StoreError, utc_now_iso
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.findmax import next_load, probe_requests, probes
from desktop_app.core.throughput.lengths import sent_lengths
from desktop_app.core.throughput.workload import (
    BLOCK_TOKENS, CHARS_PER_TOKEN, REPLY_SAMPLE, Workload, WorkloadRecord, WorkloadRef,
    load_workload, schedule,
)
from desktop_app.core.throughput.loops import ClientLoadMonitor, closed_loop, open_loop, timed_loop
from desktop_app.core.throughput.prompts import (
    Prompt, PromptError, PromptFactory, check_prompt_tokens,
)
from desktop_app.core.throughput.types import (
    CellResult,
    CellSpec,
    CellStatus,
    Finding,
    RequestRecord,
)

if TYPE_CHECKING:
    from desktop_app.core.throughput.ray_pool import RayPool
    from desktop_app.core.throughput.workers import WorkerPool

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepProgress:
    """Where a sweep is. `phase` is one of: discovering, prompts, warm-up, running, diagnosing,
    predicting (the suggestions' effects, after the sweep: `done` of `total` steps of the
    fit; see `jobs.sweep_job`)."""

    phase: str
    cell_index: int = 0
    cells_total: int = 0
    cell: CellSpec | None = None
    done: int = 0  # finished requests in this cell
    total: int = 0  # planned requests in this cell
    run_done: int = 0
    run_total: int = 0
    elapsed_s: float = 0.0
    eta_s: float | None = None
    latest: RequestTiming | None = None
    run_id: int | None = None  # the stored run, once it exists
    finished: CellResult | None = None  # set once, when cell `cell_index` has ended


@dataclass
class SweepResult:
    """What a sweep produced; `status` is completed, cancelled or failed."""

    run_id: int | None
    config: SweepConfig
    info: EndpointInfo
    cells: list[CellResult] = field(default_factory=list)
    requests: list[RequestRecord] = field(default_factory=list)
    samples: list[MetricSample] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    status: str = "completed"
    usage_expected: bool = True
    # A ShareGPT workload's replies: the characters a token the server's tokenizer counted on
    # `replies_counted` of them (None: not counted, CHARS_PER_TOKEN estimated them).
    reply_chars_per_token: float | None = None
    replies_counted: int = 0


ProgressCallback = Callable[[SweepProgress], None]


@dataclass
class ResumeFrom:
    """An interrupted run for `run_sweep` to finish instead of starting a new one.

    Built by `throughput.resume.resume_sweep`. `cell_ids[i]` is the stored id of cell i (every
    cell of the config is stored); `kept` holds the finished cells, by index, which are not run
    again; `requests` and `samples` are theirs, for the result. `claim()` (blocking) takes the run
    over in the store once discovery and prompts succeeded; it raises if it cannot.
    `clock_origin_epoch` is the run's start (epoch seconds), the origin of its clock.
    """

    run_id: int
    clock_origin_epoch: float
    cell_ids: list[int]
    kept: dict[int, CellResult]
    requests: list[RequestRecord]
    samples: list[MetricSample]
    usage_expected: bool
    claim: Callable[[], None]


class _Run:
    """The state of one sweep while it runs (one per `run_sweep` call)."""

    def __init__(self, config: SweepConfig, store: Store | None, on_progress: ProgressCallback | None):
        self.config = config
        self.store = store
        self.writer: RunWriter | None = None  # opened once the run exists in the store
        self.on_progress = on_progress or (lambda _p: None)
        self.t0_ns = time.perf_counter_ns()
        self.t0_epoch = time.time()
        self.pace_ns = self.t0_ns  # when this process started sending: the ETA's baseline
        self.run_done = 0
        self.prompt_seq = itertools.count()  # every request of the run gets its own salt
        self.run_total = sum(c.requests for c in config.cells()) + config.warmup
        self.streams: LeanClient | None = None  # the lean path's connections, when it is used
        # The worker processes (config.workers > 1) or Ray actors (config.ray), if any.
        self.pool: WorkerPool | RayPool | None = None
        # The workload file the sweep replays (config.workload), read before anything is sent.
        self.workload: Workload | None = None
        # A text's characters a token: measured on a ShareGPT file's replies by the server's
        # tokenizer (`replies_counted` of them), else the estimate's CHARS_PER_TOKEN.
        self.chars_per_token = float(CHARS_PER_TOKEN)
        self.replies_counted = 0

    async def stream(self, client, body: dict, deadline: float | None = None) -> StreamResult:
        """One streamed request of the run, on the lean path or on the httpx `client`."""
        if self.streams is not None:
            return await stream_request_lean(self.streams, self.config.endpoint, body,
                                             deadline=deadline)
        return await stream_request(client, self.config.endpoint, body, deadline=deadline)

    def restart_clock(self, origin_epoch: float | None = None) -> None:
        """Start the run's clock now, or at `origin_epoch` (epoch seconds) for a resumed run."""
        now_ns, now = time.perf_counter_ns(), time.time()
        self.t0_epoch = now if origin_epoch is None else origin_epoch
        self.t0_ns = now_ns - round((now - self.t0_epoch) * 1e9)
        # A resumed run's clock includes the time it lay dead; run_done counts only what this
        # process has done, so the pace is measured from now.
        self.pace_ns = now_ns

    @overload
    def seconds(self, ns: int) -> float: ...

    @overload
    def seconds(self, ns: int | None) -> float | None: ...

    def seconds(self, ns: int | None) -> float | None:
        return None if ns is None else (ns - self.t0_ns) / 1e9

    def elapsed(self) -> float:
        return (time.perf_counter_ns() - self.t0_ns) / 1e9

    def eta(self) -> float | None:
        if self.run_done == 0:
            return None
        paced_s = (time.perf_counter_ns() - self.pace_ns) / 1e9
        return paced_s / self.run_done * (self.run_total - self.run_done)


def cell_lengths(config: SweepConfig, spec: CellSpec) -> tuple[list[int], list[int]]:
    """The prompt and output length of each request of a cell, in the order they are
    sent: the cell's own lengths, or drawn from its distributions. Seeded by the sweep's seed
    and the distribution, not the cell: every load of a sweep, a resumed sweep and another
    configuration's sweep with the same seed send the same lengths in the same order, so what
    differs between their cells is the load or the server, not the draw."""
    n = spec.requests
    drawn = []
    for axis, lengths, fixed in (("input", spec.input_lengths, spec.input_tokens),
                                 ("output", spec.output_lengths, spec.output_tokens)):
        key = lengths.label if lengths is not None else fixed
        rng = random.Random(f"{config.seed}:{axis}:{key}")
        drawn.append(lengths.draw(n, rng) if lengths is not None else [fixed] * n)
    return drawn[0], drawn[1]


def request_body(config: SweepConfig, info: EndpointInfo, prompt, output_tokens: int, *,
                 cacheable: bool = False) -> dict:
    """The JSON body of one benchmark request (streaming is added by the client). `cacheable`:
    the server may reuse the prompt's prefix (a session's history), so an engine that is told
    not to cache a sweep's unique prompts is not told so."""
    body: dict = {"model": config.endpoint.model, "max_tokens": output_tokens,
                  "temperature": config.temperature}
    body.update(prompt.request_fields())
    fixed_length = config.ignore_eos if config.ignore_eos is not None else info.accepts_ignore_eos
    if fixed_length:
        body["ignore_eos"] = True
        body["min_tokens"] = output_tokens
    if config.unique_prompts and not cacheable:  # an engine caching by default is told not to
        body.update(engines.get_engine(info.engine).unique_prompt_fields)
    body.update(config.extra_body)
    return body


def to_timing(run: _Run, prompt_target: int, res: StreamResult, usage_expected: bool) -> RequestTiming:
    """A StreamResult on the run's clock; a missing usage is a failure only where usage is due."""
    error = res.error_class
    if error == "no_usage" and not usage_expected:
        error = None  # this server never sends usage: the client's count stands, flagged in the record
    return RequestTiming(
        prompt_tokens=res.prompt_tokens if res.prompt_tokens is not None else prompt_target,
        completion_tokens=res.completion_tokens,
        sent_s=run.seconds(res.sent_ns),
        first_token_s=run.seconds(res.first_token_ns),
        last_token_s=run.seconds(res.last_token_ns),
        chunk_times_s=tuple((t - run.t0_ns) / 1e9 for t in res.chunk_times_ns),
        error_class=error,
    )


# A chat template adds tens of tokens to a prompt and a system prompt hundreds; a server whose
# usage claims more than this of the prompt the client built and sent is not counting it.
PROMPT_USAGE_FACTOR, PROMPT_USAGE_SLACK = 4, 4096


def held_to_prompt(res: StreamResult, sent_tokens: int) -> StreamResult:
    """`res` with a prompt count the client can believe: a usage prompt_tokens beyond
    PROMPT_USAGE_FACTOR x the tokens sent plus PROMPT_USAGE_SLACK (1,000,000 for a 64-token
    prompt gave a prefill of 9e8 tok/s) is dropped for the client's own count, and flagged."""
    if res.prompt_tokens is None or res.prompt_tokens <= (
            PROMPT_USAGE_FACTOR * sent_tokens + PROMPT_USAGE_SLACK):
        return res
    return dataclasses.replace(res, prompt_tokens=None,
                               flags=(*res.flags, "prompt_usage_beyond_sent"))


def _answer_s(res: StreamResult) -> float | None:
    """Seconds from the send to the first answer token (reasoning excluded), or None."""
    if res.first_answer_ns is None:
        return None
    return (res.first_answer_ns - res.sent_ns) / 1e9


def _store_row(run: _Run, run_id: int, cell_id: int | None, index: int, warmup: bool,
               target: int, res: StreamResult, timing: RequestTiming) -> dict:
    """The request's `tp_requests` row. Every text is free of lone surrogates and every number
    fits SQLite (the client already refused impossible counts); the writer still turns a row
    it cannot store into a failed request instead of stopping (store/writer.py)."""
    m = request_metrics(timing)
    return {k: clean_text(v) for k, v in _row_values(run, run_id, cell_id, index, warmup,
                                                      target, res, timing, m).items()}


def _row_values(run, run_id, cell_id, index, warmup, target, res, timing, m) -> dict:
    return {
        "run_id": run_id, "cell_id": cell_id, "seq": index, "warmup": int(warmup),
        "sent_at": run.t0_epoch + timing.sent_s,
        "ttft_s": m.ttft_s, "e2e_s": m.e2e_s,
        "prompt_tokens_target": target, "prompt_tokens": res.prompt_tokens,
        "completion_tokens": res.completion_tokens, "tokens_source": res.tokens_source,
        "prefill_tps": m.prefill_tps, "decode_tps": m.decode_tps, "tpot_s": m.tpot_s,
        "itl_s": list(m.itl_s) if m.itl_s else None,
        "error_class": timing.error_class, "error_message": res.error_message,
        "finish_reason": res.finish_reason, "response_id": res.response_id,
        "status_code": res.status_code,
        "ttft_answer_s": _answer_s(res), "reasoning_chunks": res.reasoning_chunks,
    }


async def run_sweep(
    config: SweepConfig,
    store: Store | None = None,
    on_progress: ProgressCallback | None = None,
    *,
    info: EndpointInfo | None = None,
    resume: ResumeFrom | None = None,
) -> SweepResult:
    """Run the sweep `config` describes; returns every cell, request and finding.

    Raises InputError (bad config) or EndpointError (discovery failed) before anything is
    stored. Cancelling the task stops every request in flight, marks the current cell and the
    run `cancelled` in the store, and re-raises CancelledError. With `resume` (needs `store`),
    the stored run is finished instead: its kept cells are not run again but are part of the
    result and the diagnosis.
    """
    config.validate()
    if resume is not None and store is None:
        raise ValueError("resuming a run needs its store")
    run = _Run(config, store, on_progress)
    if resume is not None:
        run.run_total = config.warmup + sum(
            s.requests for i, s in enumerate(config.cells()) if i not in resume.kept)
    run.on_progress(SweepProgress("discovering", run_total=run.run_total))
    specs = config.cells()
    max_conc = max((s.concurrency or 64) for s in specs)
    lean = config.http_client == "lean" and lean_supported(config.endpoint)
    async with (make_client(config.endpoint, max_conc) as client,
                contextlib.AsyncExitStack() as stack):
        if lean:
            run.streams = await stack.enter_async_context(LeanClient(config.endpoint, max_conc))
        if info is None:
            info = await discover(config.endpoint, client)
        config = dataclasses.replace(config, endpoint=choose_model(config.endpoint, info))
        run.config = config
        prompts = await _prepare_prompts(run, client, info, specs)
        if config.ray is not None:  # Ray's actors are not this process's children
            from desktop_app.core.throughput.ray_pool import RayPool

            run.pool = RayPool(config.workers, config.endpoint, config.http_client, config.ray)
            stack.push_async_callback(run.pool.close)
            await run.pool.start()
        elif config.workers > 1:
            # Imported here: a sweep in this process alone needs neither the pool nor
            # multiprocessing, and a command's start-up pays for every import.
            import multiprocessing

            from desktop_app.core.throughput.workers import WorkerPool

            if multiprocessing.current_process().daemon:
                # A daemon process (the app's sweep process, which also resumes runs) may not
                # start processes of its own: its cells run here, on this loop.
                log.warning("workers=%d asked in a daemon process: streaming in-process",
                            config.workers)
            else:
                run.pool = WorkerPool(config.workers, config.endpoint, config.http_client)
                stack.push_async_callback(run.pool.close)
                await run.pool.start()
        result = SweepResult(None, config, info)
        if run.replies_counted:
            result.reply_chars_per_token = run.chars_per_token
            result.replies_counted = run.replies_counted
        run_id = None
        if resume is not None:
            run.restart_clock(resume.clock_origin_epoch)
            await asyncio.to_thread(resume.claim)
            result.run_id = run_id = resume.run_id
            result.requests.extend(resume.requests)
            result.samples.extend(resume.samples)
            result.usage_expected = resume.usage_expected
            assert store is not None  # a resumed run is a stored one (resume_sweep)
            run.writer = store.writer()
        elif store is not None:
            run.restart_clock()  # the run's clock starts as it is stored (its started_at)
            identity: dict[str, Any] = dict(endpoint_url=config.endpoint.base_url, model=config.endpoint.model,
                            engine=engines.run_label(info.engine, info.simulated),
                            config={**config.to_json(), **stored_settings(
                                info.server_settings, config.server_settings)})
            name = config.name or await asyncio.to_thread(
                default_name, store, "throughput", config.default_name(), **identity)
            run_id = await asyncio.to_thread(store.create_run, "throughput", name=name,
                                             notes=config.notes or None, **identity)
            result.run_id = run_id
            run.writer = store.writer()
        try:
            await _execute(run, client, info, specs, prompts, result, resume)
        except asyncio.CancelledError:
            result.status = "cancelled"
            await _finish(run, result, "cancelled")
            raise
        except Exception as exc:
            result.status = "failed"
            await _finish(run, result, "failed", error=f"{type(exc).__name__}: {exc}")
            raise
        await _finish(run, result, "completed")
    return result


async def _finish(run: _Run, result: SweepResult, status: str, error: str | None = None) -> None:
    """Close the writer and mark the run; `result.status` becomes what was written: a run whose
    rows did not all reach the file (a full disk) is failed, never completed, and raises the
    StoreError once it is marked, as a write that failed mid-sweep does: whether the disk
    filled before the last request or at the final commit is timing, not a second outcome."""
    refused: StoreError | None = None
    if run.writer is not None:
        try:
            await asyncio.to_thread(run.writer.close)
        except StoreError as exc:
            if status == "completed":
                status, refused = "failed", exc
            error = error or f"{type(exc).__name__}: {exc}"
    if run.pool is not None and run.store is not None and result.run_id is not None:
        clocks = await run.pool.clock_record()  # actors on other hosts: their clocks, stated
        if clocks is not None:
            with contextlib.suppress(StoreError):
                from desktop_app.core.throughput.diagnosis import with_config_findings
                from desktop_app.core.throughput.ray_pool import save_clocks

                await asyncio.to_thread(save_clocks, run.store, result.run_id, clocks)
                # Stored after the diagnosis: its finding is read from what was stored, as
                # the run read back shows it (records.sweep_from).
                stored = await asyncio.to_thread(run.store.get_run, result.run_id)
                result.findings = with_config_findings(result.findings, stored.config)
    if run.store is not None and result.run_id is not None:
        try:
            status = await asyncio.to_thread(run.store.finish_run, result.run_id, status, error)
        except StoreError:
            # The file takes nothing more; the next open marks the run interrupted.
            status = "failed" if status == "completed" else status
    result.status = status
    if refused is not None:
        raise refused


async def _prepare_prompts(run: _Run, client, info: EndpointInfo, specs: list[CellSpec]) -> PromptFactory:
    """Build every prompt length before anything is timed or stored; bad lengths raise InputError."""
    config = run.config
    run.on_progress(SweepProgress("prompts", cells_total=len(specs), run_total=run.run_total))
    prompts = PromptFactory(client, config.endpoint, info, unique=config.unique_prompts,
                            seed=config.seed ^ run.t0_ns)
    if config.workload is not None:
        run.workload = await asyncio.to_thread(_checked_workload, config.workload)
        return await _prepare_workload(run, prompts, specs)
    plans = [cell_lengths(config, s) for s in specs]
    lengths = {s.input_tokens for s in specs} | {n for ins, _ in plans for n in ins} | {
        s.system_tokens for s in specs if s.system_tokens}
    try:
        await prompts.prepare(sorted(lengths))
    except PromptError as exc:
        raise InputError("input tokens", code=exc.code, **exc.params) from None
    limit = prompts.max_model_len
    for spec, (ins, outs) in zip(specs, plans):
        # The warm-up sends the nominal lengths; a drawn request may be longer, and a session's
        # last turn carries its whole history.
        worst = max([(spec.input_tokens, spec.output_tokens), *zip(ins, outs)], key=sum)
        if spec.turns is not None:
            worst = (spec.system_tokens + spec.turns * spec.input_tokens
                     + (spec.turns - 1) * spec.output_tokens, spec.output_tokens)
        if limit and sum(worst) > limit:
            raise InputError("input tokens", code="exceeds_context", input=worst[0],
                             output=worst[1], limit=limit)
    return prompts


def _checked_workload(ref: WorkloadRef) -> Workload:
    """The workload file the config names, read again: the same file (its digest) or an
    InputError, so a resumed or repeated sweep never replays another."""
    workload = load_workload(ref.path, "workload")
    if workload.digest != ref.digest:
        raise InputError("workload", code="workload_changed", path=ref.path, digest=ref.digest)
    return workload


async def _prepare_workload(run: _Run, prompts: PromptFactory, specs: list[CellSpec]
                            ) -> PromptFactory:
    """Before anything is timed: the block lengths a trace's prompts are made of are fitted,
    and a record longer than the server's context is refused (InputError naming its line)."""
    workload = run.workload
    assert workload is not None
    try:
        if workload.format == "mooncake":
            await prompts.prepare({n for r in workload.records for _, n in _blocks(r)})
    except PromptError as exc:
        raise InputError("workload", code=exc.code, **exc.params) from None
    run.chars_per_token, run.replies_counted = await _reply_chars_per_token(workload, prompts)
    limit = prompts.max_model_len
    for r in workload.records:
        if limit and r.input_tokens is not None and (
                r.input_tokens + (r.output_tokens or 0) > limit):
            raise InputError(f"workload: {workload.name}:{r.line}", code="exceeds_context",
                             input=r.input_tokens, output=r.output_tokens or 0, limit=limit)
    return prompts


# A measured characters-a-token outside these is not a tokenizer's count of prose: kept out.
CHARS_PER_TOKEN_RANGE = (0.5, 16.0)


async def _reply_chars_per_token(workload: Workload, prompts: PromptFactory
                                 ) -> tuple[float, int]:
    """Characters a token of a ShareGPT file's replies as the server's tokenizer counts the
    first `REPLY_SAMPLE` of them (a Chinese reply is near one character a token, an English one
    near four), and how many were counted; (CHARS_PER_TOKEN, 0) without a tokenizer, for
    another format, or when the count fails or is implausible."""
    sample = [r.reply for r in workload.records if r.reply][:REPLY_SAMPLE]
    if workload.format != "sharegpt" or not sample or prompts.method != "tokenizer":
        return float(CHARS_PER_TOKEN), 0
    try:
        counts = [await prompts.count_text(text) for text in sample]
    except PromptError as exc:
        log.info("replies not counted by the tokenizer (%s): %d characters a token",
                 exc, CHARS_PER_TOKEN)
        return float(CHARS_PER_TOKEN), 0
    tokens = sum(c for c in counts if c)
    ratio = sum(len(t) for t in sample) / tokens if tokens else 0.0
    low, high = CHARS_PER_TOKEN_RANGE
    if not low <= ratio <= high:
        return float(CHARS_PER_TOKEN), 0
    return ratio, len(sample)


def _blocks(record: WorkloadRecord) -> list[tuple[int, int]]:
    """A Mooncake record's prompt as (hash id, tokens) blocks: BLOCK_TOKENS each, the last
    what is left of its input length; a record without hash ids is one block of its own."""
    n = record.input_tokens or 1
    if not record.hash_ids:
        return [(-1, n)]
    last = n - BLOCK_TOKENS * (len(record.hash_ids) - 1)
    return [(h, BLOCK_TOKENS) for h in record.hash_ids[:-1]] + [(record.hash_ids[-1], last)]


async def _workload_bodies(run: _Run, info: EndpointInfo, prompts: PromptFactory,
                           spec: CellSpec) -> tuple[list[dict | None], list[int], list[float]]:
    """The cell's requests from the workload's records (in the file's order, again from the
    first when the cell asks for more): their bodies, their prompt lengths as far as known,
    and, for a cell on the schedule, each send's time from the first (ascending)."""
    config, workload = run.config, run.workload
    assert workload is not None
    records = [workload.records[k % len(workload.records)] for k in range(spec.requests)]
    if spec.speedup is not None:
        records.sort(key=lambda r: r.timestamp_s or 0.0)
    blocks: dict[tuple[int, int], int] = {}  # (hash id, tokens) -> its salt, in this cell
    bodies: list[dict | None] = []
    targets: list[int] = []
    default_out = spec.output_tokens
    for r in records:
        if workload.format == "mooncake":
            parts = []
            for h, n in _blocks(r):
                if h < 0:  # no hash ids: a prompt of its own
                    parts.append((next(run.prompt_seq), n))
                    continue
                if (h, n) not in blocks:
                    blocks[(h, n)] = next(run.prompt_seq)
                parts.append((blocks[(h, n)], n))
            prompt = await prompts.blocks(parts)
        else:
            prompt = prompts.given(r.prompt, r.messages, next(run.prompt_seq),
                                   r.estimated_input(run.chars_per_token))
        targets.append(r.estimated_input(run.chars_per_token))
        bodies.append(request_body(config, info, prompt,
                                   r.estimated_output(default_out, run.chars_per_token)))
    offsets = schedule(records, spec.speedup) if spec.speedup is not None else []
    return bodies, targets, offsets


async def _execute(run: _Run, client, info: EndpointInfo, specs: list[CellSpec],
                   prompts: PromptFactory, result: SweepResult,
                   resume: ResumeFrom | None = None) -> None:
    config = run.config
    cell_ids: list[int | None] = [None] * len(specs)
    kept = resume.kept if resume is not None else {}
    if resume is not None:
        cell_ids = list(resume.cell_ids)
    elif run.store is not None:
        for i, spec in enumerate(specs):
            cell_ids[i] = await asyncio.to_thread(
                run.store.add_cell, result.run_id, cell_index=i, input_tokens=spec.input_tokens,
                output_tokens=spec.output_tokens, concurrency=spec.concurrency,
                request_rate=spec.request_rate, status="pending",
                workload_json=spec.workload_json(),
            )
    to_run = [s for i, s in enumerate(specs) if i not in kept]
    if config.warmup and to_run:
        result.usage_expected = await _warm_up(run, client, info, prompts, to_run[0], result)
    async def run_and_keep(i: int, spec: CellSpec) -> None:
        cell = await _run_cell(run, client, info, prompts, i, spec, cell_ids[i], result)
        result.cells.append(cell)
        run.on_progress(SweepProgress(
            "running", cell_index=i, cells_total=len(specs), cell=spec, done=cell.summary.count,
            total=spec.requests, run_done=run.run_done, run_total=run.run_total,
            elapsed_s=run.elapsed(), eta_s=run.eta(), run_id=result.run_id, finished=cell))
        if run.store is not None:
            # Stored as soon as the cell ends, so a run cancelled later still shows it; the
            # comparison with concurrency 1 is added once every cell is in.
            await asyncio.to_thread(run.store.update_cell, cell_ids[i],
                                    summary_json=cell_summary_json(cell))

    for i, spec in enumerate(specs):
        if i in kept:
            result.cells.append(kept[i])
            continue
        await run_and_keep(i, spec)
    search = config.find_max
    while search is not None and (load := next_load(probes(result.cells), search)) is not None:
        # The next probe of the knee's search, at the load the cells so far point to.
        spec = dataclasses.replace(specs[0], concurrency=load, requests=probe_requests(
            load, config.requests_per_cell))
        specs.append(spec)
        run.run_total += spec.requests
        cell_ids.append(None if run.store is None else await asyncio.to_thread(
            run.store.add_cell, result.run_id, cell_index=len(specs) - 1,
            input_tokens=spec.input_tokens, output_tokens=spec.output_tokens,
            concurrency=load, status="pending", workload_json=spec.workload_json()))
        await run_and_keep(len(specs) - 1, spec)
    if kept:  # the kept cells' requests and samples came first; put them in sweep order
        result.requests.sort(key=lambda r: r.cell)
        result.samples.sort(key=lambda s: s.t_s)
    result.cells = _with_changes(result.cells)
    run.on_progress(SweepProgress("diagnosing", cells_total=len(specs), run_done=run.run_done,
                                  run_total=run.run_total, elapsed_s=run.elapsed()))
    # What the server reported (and the user typed) lets the findings name the real cap.
    settings = stored_settings(info.server_settings, config.server_settings)["server_settings"]
    from desktop_app.core.throughput.diagnosis import diagnose  # needed once, at the end
    from desktop_app.core.throughput.records import save_diagnosis

    result.findings = diagnose(result.cells, info, server_settings=settings or None)
    if run.store is not None and result.run_id is not None:
        for cell, cell_id in zip(result.cells, cell_ids):
            if cell_id is not None:  # every cell has one when the run is stored
                await asyncio.to_thread(run.store.update_cell, cell_id,
                                        summary_json=cell_summary_json(cell))
        # Kept with the run: reopening it shows these findings, not a rebuild.
        await asyncio.to_thread(save_diagnosis, run.store, result.run_id, result.findings)


async def _warm_up(run: _Run, client, info, prompts, spec: CellSpec, result: SweepResult) -> bool:
    """Send the warm-up requests; returns whether the server sends usage in streams."""
    config = run.config
    run.on_progress(SweepProgress("warm-up", run_total=run.run_total))
    saw_usage = False
    # A workload warms up on its own first records (its prompts may be shorter than a salt).
    replayed = (await _workload_bodies(run, info, prompts, dataclasses.replace(
        spec, requests=config.warmup, speedup=None)) if run.workload is not None else None)

    async def send(index: int) -> None:
        nonlocal saw_usage
        target = spec.input_tokens
        if replayed is not None:
            body, target = replayed[0][index], replayed[1][index]
        else:
            prompt = await prompts.prompt(spec.input_tokens, next(run.prompt_seq))
            body = request_body(config, info, prompt, spec.output_tokens)
        assert body is not None
        res = await run.stream(client, body)
        saw_usage = saw_usage or res.tokens_source == "usage"
        run.run_done += 1
        if run.writer is not None and result.run_id is not None:
            timing = to_timing(run, target, res, usage_expected=False)
            run.writer.add_request(_store_row(run, result.run_id, None, index, True,
                                              target, res, timing))

    await closed_loop(send, concurrency=min(config.warmup, spec.concurrency or 1),
                      requests=config.warmup)
    return saw_usage


class _CellTally:
    """What one cell has measured so far: its requests' timings, the server's samples and the
    counts the cell reports. `record` and `on_sample` are the stream's and the scraper's
    callbacks; each stores what it is given as it comes."""

    def __init__(self, run: _Run, index: int, spec: CellSpec, cell_id: int | None,
                 result: SweepResult) -> None:
        self.run, self.index, self.spec, self.cell_id, self.result = (
            run, index, spec, cell_id, result)
        self.timings: list[RequestTiming] = []
        self.samples: list[MetricSample] = []
        self.mismatches = 0
        self.resent = 0
        self.implausible: dict[str, int] = {}
        # The prompt length each request asked for (`cell_lengths`), by its index; a text
        # workload's are estimates, not checked against the server's count.
        self.targets = [spec.input_tokens] * spec.requests
        self.exact_targets = True
        self.lateness: list[float] = []
        # A multi-turn cell's requests: (turn, TTFT s, prompt tokens, cached prompt tokens).
        self.turn_rows: list[tuple[int, float | None, int | None, int | None]] = []

    def progress(self, latest: RequestTiming | None) -> None:
        run, spec = self.run, self.spec
        run.on_progress(SweepProgress(
            "running", cell_index=self.index, cells_total=len(run.config.cells()), cell=spec,
            done=len(self.timings), total=spec.requests, run_done=run.run_done,
            run_total=run.run_total, elapsed_s=run.elapsed(), eta_s=run.eta(), latest=latest,
            run_id=self.result.run_id))

    def record(self, i: int, res: StreamResult) -> None:
        """The streams' callback: `keep`."""
        self.keep(i, res)

    def keep(self, i: int, res: StreamResult) -> RequestRecord:
        """Store request `i`'s result and count it; its RequestRecord (TTFT as every view's)."""
        run, result = self.run, self.result
        target = self.targets[i] if i < len(self.targets) else self.spec.input_tokens
        res = held_to_prompt(res, target)
        timing = to_timing(run, target, res, result.usage_expected)
        self.timings.append(timing)
        for code in res.flags:
            if code == "resent":
                self.resent += 1
            else:
                self.implausible[code] = self.implausible.get(code, 0) + 1
        if self.exact_targets and not check_prompt_tokens(target, res.prompt_tokens):
            self.mismatches += 1
        run.run_done += 1
        metrics = request_metrics(timing)
        result.requests.append(RequestRecord(
            self.index, i, res.response_id, target, res.prompt_tokens,
            res.completion_tokens, res.tokens_source, metrics.ttft_s, metrics.e2e_s,
            timing.error_class, res.error_message, res.status_code, res.finish_reason,
            res.flags, _answer_s(res), res.reasoning_chunks))
        if run.writer is not None and result.run_id is not None:
            run.writer.add_request(_store_row(run, result.run_id, self.cell_id, i, False,
                                              target, res, timing))
        self.progress(timing)
        return result.requests[-1]

    def on_sample(self, sample: MetricSample) -> None:
        self.samples.append(sample)
        self.result.samples.append(sample)
        writer, run_id = self.run.writer, self.result.run_id
        if writer is not None and run_id is not None:
            writer.add_metric_sample({
                "run_id": run_id, "cell_id": self.cell_id, "t_s": sample.t_s,
                "running": sample.running, "waiting": sample.waiting,
                "kv_cache_usage": sample.kv_cache_usage, "preemptions": sample.preemptions,
                "raw_json": sample.raw,
            })


async def _run_cell(run: _Run, client, info, prompts, index: int, spec: CellSpec,
                    cell_id: int | None, result: SweepResult) -> CellResult:
    config = run.config
    tally = _CellTally(run, index, spec, cell_id, result)
    # Every prompt of the cell is built (and counted, where this server's salts do not all
    # count the same) before its first request: no request waits on the tokenizer.
    offsets: list[float] = []
    bodies: list[dict | None] = []
    if run.workload is not None:
        bodies, tally.targets, offsets = await _workload_bodies(run, info, prompts, spec)
        tally.exact_targets = run.workload.format == "mooncake"
    elif spec.turns is not None:
        tally.exact_targets = False  # a turn's prompt is its history: counted by the server
    else:
        ins, outs = cell_lengths(config, spec)
        tally.targets = ins
        for n_in, n_out in zip(ins, outs):
            prompt = await prompts.prompt(n_in, next(run.prompt_seq))
            bodies.append(request_body(config, info, prompt, n_out))
    scraper_task = scraper = counters = None
    if config.scrape_metrics and info.has_metrics:
        from desktop_app.core.throughput.servermetrics import MetricsScraper  # /metrics only

        scraper = MetricsScraper(client, config.endpoint, interval_s=config.metrics_interval_s,
                                 t0=run.t0_ns / 1e9)
        # The counters before the cell, so its own change is read after it (the periodic
        # scrapes start and stop inside it); outside its clock and its time budget.
        counters = await scraper.once()
    started = run.elapsed()
    # The cell's time budget: no request starts after it, and those in flight are cut at it
    # (they end `timeout`, saying so).
    deadline = (time.perf_counter() + config.cell_time_budget_s
                if config.cell_time_budget_s else None)
    if run.store is not None:
        await asyncio.to_thread(run.store.update_cell, cell_id, status="running",
                                started_at=_iso_now())
    if scraper is not None:
        scraper_task = asyncio.create_task(scraper.run(tally.on_sample))
    monitor = ClientLoadMonitor()
    monitor.start()
    tally.progress(None)
    status: CellStatus = "completed"
    cell_error: str | None = None
    try:
        if spec.turns is not None:
            sent = await _send_sessions(run, client, info, prompts, spec, deadline, tally)
        else:
            sent = await _send_cell(run, client, bodies, index, spec, deadline, tally.record,
                                    offsets, tally.lateness)
        if sent < spec.requests or (deadline is not None and time.perf_counter() >= deadline):
            status = "time_budget"  # requests left unsent, or cut in flight at the budget
    except asyncio.CancelledError:
        status = "cancelled"
        raise
    except BaseException as exc:
        status = "failed"  # whatever ended the cell, it did not complete; the cell says what
        cell_error = redact_text(f"{type(exc).__name__}: {exc}")
        raise
    finally:
        load = await monitor.stop()
        if run.pool is not None:  # the workers' loops stamped the chunks, not this one
            from desktop_app.core.throughput.workers import merge_loads

            load = merge_loads(run.pool.loads)
        if scraper_task is not None:
            scraper_task.cancel()
            scraped = (await asyncio.gather(scraper_task, return_exceptions=True))[0]
            if isinstance(scraped, StoreError) and status == "completed":
                status = "failed"  # its samples could not be stored: said, not dropped
        ended_s, ended_at = run.elapsed(), _iso_now()
        reuse = None
        if scraper is not None and counters is not None and status != "cancelled":
            from desktop_app.core.throughput.servermetrics import prefix_cache

            after = await scraper.once()
            reuse = prefix_cache(counters.raw, after.raw) if after is not None else None
        if run.store is not None:
            await asyncio.to_thread(run.store.update_cell, cell_id, status=status,
                                    ended_at=ended_at, error=cell_error)
    timings = tally.timings
    return CellResult(
        spec=spec, summary=summarize_cell(timings), timings=tuple(timings),
        samples=tuple(tally.samples), client_load=load, goodput=_goodput(config, timings),
        token_mismatches=tally.mismatches, started_s=started, ended_s=ended_s,
        status=status, implausible=dict(sorted(tally.implausible.items())),
        resent=tally.resent,
        send_lateness=lateness_summary(tally.lateness) if spec.speedup is not None else None,
        turn_figures=turn_figures(tally.turn_rows, spec.turns) if spec.turns else None,
        prefix_cache=reuse,
    )


async def _send_sessions(run: _Run, client, info: EndpointInfo, prompts: PromptFactory,
                         spec: CellSpec, deadline: float | None, tally: _CellTally) -> int:
    """Send the cell as multi-turn sessions, `spec.concurrency` at once: turn k+1 carries turn
    k's reply in its history and goes `spec.think_s` after it; a session whose turn failed
    ends there (its later turns are not sent). The sessions share a system prompt built for
    this cell (a prefix the server may cache across them); each turn's new text has its own
    salt. Returns how many requests were sent."""
    config = run.config
    turns = spec.turns or 1
    system = ((await prompts.prompt(spec.system_tokens, next(run.prompt_seq))).content
              if spec.system_tokens else None)
    sent = 0

    async def session(s: int) -> None:
        nonlocal sent
        history: list[dict[str, str]] = [{"role": "system", "content": system}] if system else []
        target = spec.system_tokens
        for k in range(turns):
            if k and spec.think_s:
                await asyncio.sleep(spec.think_s)
            if deadline is not None and time.perf_counter() >= deadline:
                return
            turn = await prompts.prompt(spec.input_tokens, next(run.prompt_seq))
            history.append({"role": "user", "content": turn.content})
            target += spec.input_tokens
            tally.targets[s * turns + k] = target
            body = request_body(config, info, Prompt(target, target, prompts.method,
                                                     messages=tuple(history)),
                                spec.output_tokens, cacheable=True)
            res = await run.stream(client, body, deadline=deadline)
            sent += 1
            kept = tally.keep(s * turns + k, res)
            tally.turn_rows.append((k + 1, kept.ttft_s, res.prompt_tokens, res.cached_tokens))
            if res.error_class is not None:
                return
            history.append({"role": "assistant", "content": res.text})
            target += res.completion_tokens

    await closed_loop(session, concurrency=spec.concurrency or 1,
                      requests=spec.requests // turns, deadline=deadline)
    return sent


def turn_figures(rows: list[tuple[int, float | None, int | None, int | None]], turns: int
                 ) -> tuple[dict, ...]:
    """A multi-turn cell's figures per turn: how many requests, their TTFT (p50, mean), prompt
    tokens (mean: the history grows) and the share of prompt tokens the server said it had
    cached (usage's cached_tokens; None where it reported none)."""
    out = []
    for turn in range(1, turns + 1):
        mine = [r for r in rows if r[0] == turn]
        ttft = distribution(r[1] for r in mine if r[1] is not None)
        prompts = [r[2] for r in mine if r[2] is not None]
        cached = [(r[3], r[2]) for r in mine if r[3] is not None and r[2]]
        out.append({
            "turn": turn, "n": len(mine),
            "ttft_p50_s": ttft.p50 if ttft else None,
            "ttft_mean_s": ttft.mean if ttft else None,
            "prompt_tokens_mean": sum(prompts) / len(prompts) if prompts else None,
            "cached_share": (sum(c for c, _ in cached) / sum(p for _, p in cached)
                             if cached else None)})
    return tuple(out)


async def _send_cell(run: _Run, client, bodies: list[dict | None], index: int, spec: CellSpec,
                     deadline: float | None, record: Callable[[int, StreamResult], None],
                     offsets: list[float] | None = None, lateness: list[float] | None = None
                     ) -> int:
    """Send the cell's requests (closed loop, open loop, on a workload's schedule at
    `offsets`, or through the worker pool), each result to `record` as it ends; how many were
    sent. A body is dropped once sent; a scheduled send's lateness goes to `lateness`."""
    seed = run.config.seed + index
    if run.pool is not None:
        items = list(enumerate(bodies))
        bodies.clear()
        return await run.pool.run_cell(items, concurrency=spec.concurrency,
                                       rate_per_s=spec.request_rate, seed=seed,
                                       deadline=deadline, on_result=record)

    async def send(i: int) -> None:
        body, bodies[i] = bodies[i], None
        assert body is not None  # each index is sent once
        record(i, await run.stream(client, body, deadline=deadline))

    if spec.speedup is not None:
        return await timed_loop(send, offsets or [], deadline=deadline, lateness=lateness)
    if spec.concurrency is not None:
        return await closed_loop(send, concurrency=spec.concurrency, requests=spec.requests,
                                 deadline=deadline)
    assert spec.request_rate is not None  # a cell is closed- or open-loop (CellSpec)
    return await open_loop(send, rate_per_s=spec.request_rate, requests=spec.requests,
                           seed=seed, deadline=deadline)


def _goodput(config: SweepConfig, timings: list[RequestTiming]) -> float | None:
    """Share of requests meeting every target the user set (failed requests never do)."""
    if config.ttft_target_s is None and config.tpot_target_s is None or not timings:
        return None
    good = 0
    for t in timings:
        if not t.ok:
            continue
        m = request_metrics(t)
        if config.ttft_target_s is not None and (m.ttft_s is None or m.ttft_s > config.ttft_target_s):
            continue
        if config.tpot_target_s is not None and m.tpot_s is not None and m.tpot_s > config.tpot_target_s:
            continue
        good += 1
    return good / len(timings)


def _with_changes(cells: list[CellResult]) -> list[CellResult]:
    """Fill in each cell's change of mean prefill and decode tok/s against concurrency 1."""
    base = {c.spec.shape: c.summary for c in cells if c.spec.concurrency == 1}

    def change(summary, b, name):
        value, ref = getattr(summary, name), getattr(b, name)
        if value is None or ref is None or not ref.mean:
            return None
        return value.mean / ref.mean - 1.0

    out = []
    for c in cells:
        b = base.get(c.spec.shape)
        if b is None:
            out.append(c)
            continue
        out.append(dataclasses.replace(c, prefill_change=change(c.summary, b, "prefill_tps"),
                                       decode_change=change(c.summary, b, "decode_tps")))
    return out


def cell_summary_json(cell: CellResult) -> dict:
    """The cell's figures as stored with it and exported (see docs/THROUGHPUT.md)."""
    s = cell.summary.to_dict()
    load = dataclasses.asdict(cell.client_load) if cell.client_load else None
    out = {**s, "prefill_change": cell.prefill_change, "decode_change": cell.decode_change,
           "goodput": cell.goodput, "token_mismatches": cell.token_mismatches,
           "implausible": dict(cell.implausible), "resent": cell.resent,
           "client_load": load, "status": cell.status}
    if cell.spec.workload_json() is not None:
        out["lengths_sent"] = sent_lengths(cell.timings)
    if cell.send_lateness is not None:
        out["send_lateness"] = cell.send_lateness
    if cell.turn_figures is not None:
        out["turns"] = list(cell.turn_figures)
    if cell.prefix_cache is not None:
        out["prefix_cache"] = cell.prefix_cache
    return out


def lateness_summary(lateness: list[float]) -> dict[str, float]:
    """How late a scheduled cell's sends started (seconds): mean, p50, p99, max and n, as
    `metrics.distribution` computes every figure's."""
    d = distribution(lateness)
    if d is None:
        return {"n": 0}
    return {"n": d.n, "mean": d.mean, "p50": d.p50, "p99": d.p99, "max": d.max}



def _iso_now() -> str:
    return utc_now_iso()
